//! Bulk conversion: `n` elements of one dtype into another, exactly as the
//! scalar reference converts each (`scalar`), at the speed of the CPU's
//! vector units.
//!
//! - `plan`: the call's arguments checked, each side resolved to its bytes.
//! - `driver`: a call split into a head, a contiguous body handed to a
//!   kernel in place, and strided blocks through stack buffers.
//! - `scalar`: the reference every kernel is tested against; `pack`: the
//!   bits of sub-byte elements.
//! - `lanes`: the framework most kernels are written in (a decoder and an
//!   encoder meeting in lanes) and the one loop every kernel runs.
//! - `portable`: the `portable` level, a kernel for every pair in code the
//!   compiler vectorizes for any target.
//! - `rules`: a level's dispatch as an ordered list of first-match rules,
//!   resolved once into a table.
//! - One folder per architecture (`x86/`, `aarch64/`), whose `dispatch.rs`
//!   holds its levels' rules, and which implements `Arch` for the driver.
//!
//! The level is chosen once, at first use, from the CPU and `NX_DTYPE_ISA`.

#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)] // SIMD intrinsics, FPCR and FPSR
pub mod aarch64;
mod driver;
#[allow(unsafe_code)] // raw pointers of the kernels' one loop
pub mod lanes;
pub mod pack;
mod plan;
pub mod portable;
pub mod rules;
pub mod scalar;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // SIMD intrinsics
pub mod x86;

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod generic;

pub use driver::{piece_of, run, streamed, ALIGN_DST_BYTES, ALIGN_MIN, BIG_CALL, STREAM_MIN};
pub use lanes::Raw;
pub use plan::{plan, Side, Span};

use crate::table::Dtype;
use std::ffi::CStr;
use std::sync::OnceLock;

/// The architecture this build runs on.
#[cfg(target_arch = "x86_64")]
pub type Native = x86::X86;
#[cfg(target_arch = "aarch64")]
pub type Native = aarch64::Aarch64;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub type Native = generic::Generic;

/// What an architecture gives the architecture-neutral driver: its levels'
/// kernels, the floating-point state its kernels set and put back, and its
/// memory helpers.
pub trait Arch {
    /// The caller's floating-point control state (x86: MXCSR), read once
    /// for a call and put back, flags included, when it returns.
    type FpState: Copy + std::fmt::Debug + PartialEq;

    /// The architecture's levels, weakest first: `scalar`, `portable`, then
    /// its own.
    const LEVELS: &'static [Isa];

    /// The best level this CPU runs.
    fn cpu() -> Isa;

    /// The dispatch rules of this architecture's levels.
    fn levels() -> &'static [rules::Level];

    /// The kernel for `s -> d` at `isa` (a level the CPU runs), if the
    /// level has one.
    fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<Entry>;

    /// Run `run` with the caller's floating-point state, restored after.
    fn hold(run: impl FnOnce(Self::FpState));

    /// Run `run` under the floating-point environment `fp` asks for (the
    /// default one plus `fp`'s needs), the caller's restored after: where
    /// portable code's float operations must not see the caller's rounding
    /// mode or flushing. `run` must reach its float operations through a
    /// pointer, so that none moves across the environment's writes.
    fn under(fp: lanes::Fp, run: impl FnOnce());

    /// As `under`, within a `hold` whose caller's state is `held` (a
    /// strided call's blocks, `Store::Held`): the state is not read again,
    /// and `hold` restores it.
    fn enter(held: Self::FpState, fp: lanes::Fp, run: impl FnOnce()) {
        let _ = held;
        Self::under(fp, run)
    }

    /// Run a whole conversion call `run` with the caller's status flags
    /// as they were: where integer code the compiler vectorizes may raise
    /// one (aarch64's saturating narrowings set FPSR.QC).
    fn keep_flags(run: impl FnOnce()) {
        run()
    }

    /// Order the non-temporal stores of a `Store::Stream` run before the
    /// call returns.
    fn stream_end() {}

    /// A count of time for `driver::streamed`'s trial (0 where nothing
    /// streams).
    fn ticks() -> u64 {
        0
    }

    /// A hint to bring the line at `p` closer; never faults.
    fn prefetch(_p: *const u8) {}

    /// Gather the first of `m` elements of `w` bytes (element j at byte
    /// `at + j step` of `src`) packed into `out`: how many it did (the
    /// driver does the rest).
    fn gather(
        _isa: Isa,
        _src: &[u8],
        _at: usize,
        _step: i64,
        _w: usize,
        _out: &mut [u8],
        _m: usize,
    ) -> usize {
        0
    }

    /// Scatter the first of `m` packed elements of `w` bytes in `from` to
    /// byte `at + j step` of `dst`: how many it did.
    fn spread(
        _isa: Isa,
        _from: &[u8],
        _dst: &mut [u8],
        _at: usize,
        _step: i64,
        _w: usize,
        _m: usize,
    ) -> usize {
        0
    }

    /// A one-pass strided conversion for `s -> d`, where it beats the
    /// driver's blocks.
    fn strided(_isa: Isa, _s: Dtype, _d: Dtype) -> Option<Strided> {
        None
    }
}

/// The caller's floating-point state on this architecture.
pub type FpState = <Native as Arch>::FpState;

/// A strided conversion in one pass: element j read at byte `sa + j ss` of
/// the source slice and written at `da + j ds` of the destination's.
pub type Strided = fn(&[u8], usize, i64, &mut [u8], usize, i64, usize);

/// Kernel levels. Each architecture has its own list of them, weakest
/// first (`Arch::LEVELS`): `scalar` and `portable` everywhere, then its
/// hand-written ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The reference: integer arithmetic, one element at a time.
    Scalar,
    /// Code over machine integers and floats that the compiler vectorizes
    /// for the target it builds for (SSE2 on baseline x86-64, NEON on
    /// aarch64).
    Portable,
    /// AVX2 + F16C + FMA + BMI2.
    Avx2,
    /// AVX-512 F/BW/VL/DQ on top of Avx2.
    Avx512,
    /// aarch64's Advanced SIMD (NEON), with FP16 conversions.
    Neon,
}

impl Isa {
    /// Every level of every architecture.
    pub const ALL: [Isa; 5] = [
        Isa::Scalar,
        Isa::Portable,
        Isa::Avx2,
        Isa::Avx512,
        Isa::Neon,
    ];

    pub fn name(self) -> &'static CStr {
        match self {
            Isa::Scalar => c"scalar",
            Isa::Portable => c"portable",
            Isa::Avx2 => c"avx2",
            Isa::Avx512 => c"avx512",
            Isa::Neon => c"neon",
        }
    }

    pub fn of_name(s: &str) -> Option<Isa> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().to_bytes() == s.as_bytes())
    }

    /// This architecture's levels, weakest first.
    pub fn here() -> &'static [Isa] {
        Native::LEVELS
    }

    /// The level's rank among this architecture's levels (None: not one).
    fn rank(self) -> Option<usize> {
        Native::LEVELS.iter().position(|&i| i == self)
    }

    /// Whether this CPU runs the level.
    pub fn supported(self) -> bool {
        matches!((self.rank(), Isa::cpu().rank()), (Some(a), Some(b)) if a <= b)
    }

    /// The best level this CPU runs, detected once: every call checks its
    /// level against it (`Kernel::of`).
    fn cpu() -> Isa {
        static CPU: OnceLock<Isa> = OnceLock::new();
        *CPU.get_or_init(Native::cpu)
    }

    /// The level `NX_DTYPE_ISA=cap` gives: the best level this CPU runs at
    /// most `cap` when `cap` is one of this architecture's levels, else
    /// (a level of another architecture) the best level this CPU runs.
    pub fn best(cap: Isa) -> Isa {
        let Some(top) = cap.rank() else {
            return Isa::cpu();
        };
        Native::LEVELS
            .iter()
            .take(top + 1)
            .rev()
            .copied()
            .find(|i| i.supported())
            .unwrap_or(Isa::Scalar)
    }
}

static CHOSEN: OnceLock<Isa> = OnceLock::new();

/// The level in use: chosen once (thread-safe), capped by `NX_DTYPE_ISA`
/// when it names a level of this architecture (`Isa::best`); a value that
/// names no level caps nothing. `nx_kernel_isa` reports the choice.
pub fn isa() -> Isa {
    *CHOSEN.get_or_init(|| {
        std::env::var("NX_DTYPE_ISA")
            .ok()
            .and_then(|v| Isa::of_name(v.trim()))
            .map_or_else(Isa::cpu, Isa::best)
    })
}

/// How a kernel writes its whole vectors: `Plain` (ordinary stores), or
/// `Stream` (non-temporal stores, which write around the caches and so skip
/// reading each destination line first; then the destination pointer must be
/// 64-byte aligned, and the caller orders the stores with `Arch::stream_end`
/// before returning). A kernel's partial last vector is always ordinary.
/// `Fetch(d)`: as `Stream`, and the kernel prefetches its source `d` bytes
/// ahead (`driver::streamed`). `Held(state)`: ordinary stores, one block of
/// many within the caller's `Arch::hold`, which read the caller's
/// floating-point state once and restores it, so the kernel does neither.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Store {
    Plain,
    Stream,
    Fetch(usize),
    Held(FpState),
}

/// A contiguous SIMD kernel, called as `k(src, dst, n, head, store)` on `n`
/// elements from bit 0 of both sides (the last byte of a sub-byte side read
/// whole, or written whole: its bits past element n too), the first `head`
/// elements by themselves (a head that brings a side to a cache line; one
/// that does not split both sides on whole bytes within `n` is taken as 0),
/// the rest with `store`. Safe to call: the table hands one out only for a
/// level the CPU supports. With `Store::Stream` a destination not 64-byte
/// aligned after the head is still converted right, only slower.
pub type SimdKernel = fn(&[u8], &mut [u8], usize, usize, Store);

/// A dispatch table's entry: the kernel, the rule that chose it, and
/// whether the driver aligns the destination of a narrowing to half the
/// width (kernels whose vector stores are narrower than their loads, where
/// a store straddling two lines costs more than two straddling loads).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub kernel: SimdKernel,
    pub rule: &'static str,
    pub align_dst: bool,
}

/// The kernel for one pair at one level.
#[derive(Clone, Copy)]
pub enum Kernel {
    Scalar(Dtype, Dtype),
    Simd(Entry),
}

impl Kernel {
    /// The kernel for `s -> d` at `isa` (a level the CPU supports).
    pub fn of(isa: Isa, s: Dtype, d: Dtype) -> Kernel {
        if s != d && isa != Isa::Scalar && isa.supported() {
            if let Some(e) = Native::kernel(isa, s, d) {
                return Kernel::Simd(e);
            }
        }
        Kernel::Scalar(s, d)
    }

    /// Whether `isa` has a SIMD kernel for `s -> d`.
    pub fn is_simd(isa: Isa, s: Dtype, d: Dtype) -> bool {
        matches!(Kernel::of(isa, s, d), Kernel::Simd(_))
    }

    /// The name of the rule that chose this kernel ("scalar": none did).
    pub fn rule(self) -> &'static str {
        match self {
            Kernel::Scalar(..) => "scalar",
            Kernel::Simd(e) => e.rule,
        }
    }

    /// Whether the driver aligns the destination for a body of `sb` ->
    /// `db` bits an element (see `Entry`).
    fn aligns_destination(self, sb: usize, db: usize) -> bool {
        matches!(self, Kernel::Simd(e) if e.align_dst && 2 * db == sb)
    }

    /// Convert with ordinary stores.
    #[inline]
    pub fn run(self, src: &[u8], dst: &mut [u8], n: usize) {
        self.run_as(src, dst, n, 0, Store::Plain);
    }

    /// Convert the first `head` elements by themselves and the rest with
    /// the given store policy (see `SimdKernel`; a `Stream` run is
    /// followed by `stream_end`). Any head converts the same.
    #[inline]
    pub fn run_as(self, src: &[u8], dst: &mut [u8], n: usize, head: usize, store: Store) {
        match self {
            Kernel::Scalar(s, d) => scalar::run(s, d, src, dst, n),
            Kernel::Simd(e) => (e.kernel)(src, dst, n, head, store),
        }
    }
}

/// The names of the levels with dispatch rules on this architecture.
pub fn listed_levels() -> Vec<&'static str> {
    Native::levels()
        .iter()
        .filter_map(|l| l.isa.name().to_str().ok())
        .collect()
}

/// Which rule gives each pair its kernel at this architecture's levels
/// (`rules::listing`), or at the level named `level` alone (None: no such
/// level has rules here).
pub fn listing(level: Option<&str>) -> Option<String> {
    let levels: Vec<rules::Level> = Native::levels()
        .iter()
        .filter(|l| level.is_none_or(|n| l.isa.name().to_bytes() == n.as_bytes()))
        .copied()
        .collect();
    (!levels.is_empty()).then(|| rules::listing(&levels))
}

/// Order the non-temporal stores of `Store::Stream` runs before the call
/// returns, so that other threads (and the caller) see them as ordinary
/// stores.
pub fn stream_end() {
    Native::stream_end();
}

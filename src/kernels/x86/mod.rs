//! x86-64: the AVX2 and AVX-512 levels (`avx2.rs`, `avx512/`), their
//! rules (`dispatch.rs`), and what the driver needs of x86 (`X86`: MXCSR,
//! non-temporal stores, the time-stamp counter, gathers).
//!
//! Most kernels are the lanes framework's decoders and encoders
//! (`kernels::lanes`) in 256-bit (`avx2.rs`) or 512-bit vectors
//! (`avx512/steps.rs`); whole kernels where they beat the lanes
//! (`avx512/`), masks for bit and bool (`bits.rs`, `avx512/bits.rs`), and
//! maps between machine types that the compiler vectorizes (`native.rs`).
//!
//! Every kernel runs under an MXCSR of its own (`call`): every exception
//! masked, round to nearest (toward zero where a marker says), FTZ and DAZ
//! only where they change no result (`lanes::Fp`); the caller's MXCSR,
//! flags included, is back when the call returns.

mod avx2;
mod avx512;
mod bits;
pub mod dispatch;
mod gather;
mod native;

use super::lanes::{self, Fp};
use super::{Arch, Entry, Isa, Raw, Store, Strided};
use crate::table::Dtype;
use std::arch::x86_64::*;

pub fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("lzcnt")
        && is_x86_feature_detected!("popcnt")
        && is_x86_feature_detected!("f16c")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("bmi2")
}

pub fn has_avx512() -> bool {
    has_avx2()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512dq")
}

/// Store 32 bytes at `p`: ordinary, or non-temporal when `NT` (then `p` is
/// 32-byte aligned).
///
/// # Safety
/// `p` is writable for 32 bytes (and aligned when `NT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn put256<const NT: bool>(p: *mut u8, v: __m256i) {
    // SAFETY: forwarded.
    unsafe {
        if NT {
            _mm256_stream_si256(p.cast(), v)
        } else {
            _mm256_storeu_si256(p.cast(), v)
        }
    }
}

/// Store 16 bytes at `p`: ordinary, or non-temporal when `NT` (then `p` is
/// 16-byte aligned).
///
/// # Safety
/// `p` is writable for 16 bytes (and aligned when `NT`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn put128<const NT: bool>(p: *mut u8, v: __m128i) {
    // SAFETY: forwarded.
    unsafe {
        if NT {
            _mm_stream_si128(p.cast(), v)
        } else {
            _mm_storeu_si128(p.cast(), v)
        }
    }
}

/// MXCSR for the kernels: every exception masked, no FTZ or DAZ, round to
/// nearest-even.
const MXCSR_RN: u32 = 0x1F80;
/// Round toward zero.
const TOWARD_ZERO: u32 = 3 << 13;
/// Flush to zero: float32 results below the normals become zeros of their sign.
const FTZ: u32 = 1 << 15;
/// Denormals are zeros: float inputs below the normals read as zeros of
/// their sign.
const DAZ: u32 = 1 << 6;

/// The MXCSR a kernel needing `fp` runs under.
pub const fn mxcsr_of(fp: Fp) -> u32 {
    let mut m = MXCSR_RN;
    if fp.has(Fp::TOWARD_ZERO) {
        m |= TOWARD_ZERO;
    }
    if fp.has(Fp::FLUSH) {
        m |= FTZ | DAZ;
    }
    m
}

#[inline(always)]
fn mxcsr() -> u32 {
    let mut v = 0u32;
    // SAFETY: stmxcsr stores the SSE control register (x86-64 baseline) at
    // a valid u32.
    unsafe { std::arch::asm!("stmxcsr [{0}]", in(reg) &mut v, options(nostack, preserves_flags)) };
    v
}

#[inline(always)]
fn set_mxcsr(v: u32) {
    // SAFETY: ldmxcsr loads the SSE control register from a valid u32; the
    // values written are `MXCSR_*` or the caller's own, never a reserved bit.
    unsafe { std::arch::asm!("ldmxcsr [{0}]", in(reg) &v, options(nostack, preserves_flags)) };
}

/// Run a kernel of `sb` -> `db` bits per element on the slices, when they
/// hold `n` elements of each side, under the MXCSR for `fp` (the caller's
/// MXCSR, flags included, restored after): the first `head` elements by
/// `plain` (see `SimdKernel`), then the rest by `stream` (its non-temporal
/// form, prefetching as far ahead as `Store::Fetch` says) when `store` asks
/// for it and the rest's destination is 64-byte aligned, else by `plain`.
///
/// # Safety
/// `plain` and `stream` are one kernel's two forms, and the CPU has the
/// features they need.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn call(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
    bits: (usize, usize),
    fp: Fp,
    plain: Raw,
    stream: Raw,
) {
    let (sb, db) = bits;
    let env = mxcsr_of(fp);
    let whole = head <= n && (head * sb).is_multiple_of(8) && (head * db).is_multiple_of(8);
    let head = if whole { head } else { 0 };
    let (hs, hd) = (head * sb / 8, head * db / 8);
    if src.len() >= (n * sb).div_ceil(8) && dst.len() >= (n * db).div_ceil(8) {
        let nt = matches!(store, Store::Stream | Store::Fetch(_))
            && (dst.as_ptr() as usize).wrapping_add(hd).is_multiple_of(64);
        let k = if nt { stream } else { plain };
        let ahead = match store {
            Store::Fetch(d) if nt => d,
            _ => 0,
        };
        // SAFETY: the lengths were checked (the head's and the rest's bytes
        // lie within them, on whole bytes), and the alignment for
        // streaming; the CPU features are the caller's promise. The
        // kernels are reached through pointers, so no float operation of
        // theirs moves across the MXCSR writes.
        let run = || unsafe {
            if head > 0 {
                plain(src.as_ptr(), dst.as_mut_ptr(), head, 0);
            }
            k(
                src.as_ptr().add(hs),
                dst.as_mut_ptr().add(hd),
                n - head,
                ahead,
            );
        };
        match store {
            // A block within `hold`: the caller's MXCSR is known and is
            // restored when the scope ends.
            Store::Held(caller) => enter(caller, env, run),
            _ => under(env, run),
        }
    }
}

/// Run `run(mxcsr)` with the caller's MXCSR `mxcsr` read once, and
/// restored, flags included, when it returns: the scope of kernel calls
/// made with `Store::Held(mxcsr)`, which neither read nor restore it.
/// STMXCSR waits for every float operation before it, so a strided call
/// reads it once, not once a block.
#[inline(always)]
fn hold(run: impl FnOnce(u32)) {
    // (No guard for an unwind: the library's code does not panic, and a
    // drop guard's landing pad in every kernel entry costs code size.)
    let caller = mxcsr();
    run(caller);
    set_mxcsr(caller);
}

/// `run` under MXCSR `env`, the caller's MXCSR, flags included, restored
/// after (`hold`; restored without reading it back, which costs a short
/// call more than the write). `run` must reach its float operations
/// through a pointer, so that none moves across the MXCSR writes.
#[inline(always)]
fn under(env: u32, run: impl FnOnce()) {
    hold(|caller| enter(caller, env, run));
}

/// `run` under MXCSR `env` within a scope whose MXCSR is `caller`, which
/// restores it: `env` set only where it differs.
#[inline(always)]
fn enter(caller: u32, env: u32, run: impl FnOnce()) {
    if caller != env {
        set_mxcsr(env);
    }
    run();
}

/// Whether `n` elements of `w` bytes, element j at byte `at + j * step`
/// (`step` any sign), all lie within `len` bytes: then the bytes from the
/// lowest element's start to the highest's, `|(n - 1) step|`, else None
/// (or n = 0). The first and the last element bound the rest.
fn reach(len: usize, at: usize, step: i64, w: usize, n: usize) -> Option<u64> {
    let span = (n.checked_sub(1)? as u64).checked_mul(step.unsigned_abs())?;
    let lo = if step >= 0 {
        at as u64
    } else {
        (at as u64).checked_sub(span)?
    };
    let hi = lo.checked_add(span)?.checked_add(w as u64)?;
    (hi <= len as u64).then_some(span)
}

/// A safe table entry for a raw kernel `$f::<NT>` of `$sb` -> `$db` bits per
/// element, put only in the table of a level whose CPU features it needs.
macro_rules! entry {
    // `[args]`: the kernel's leading generic arguments, before the store
    // form's; `$env`: what it needs of the environment (`lanes::Fp`).
    ($name:ident, $($f:ident)::+ $([$($g:tt),*])?, $sb:expr, $db:expr, $env:expr) => {
        fn $name(src: &[u8], dst: &mut [u8], n: usize, head: usize, store: $crate::kernels::Store) {
            // SAFETY: the two forms of one kernel; the table holding this
            // entry is built for CPUs with the features it needs.
            unsafe {
                $crate::kernels::x86::call(src, dst, n, head, store, ($sb, $db), $env, $($f)::+::<$($($g,)*)? false>, $($f)::+::<$($($g,)*)? true>)
            }
        }
    };
}
use entry;

/// A kernel that meets in lanes `L` (`kernels::lanes`), at `L`'s level.
fn k_lanes<L: lanes::Lanes, S: lanes::VSrc<L>, D: lanes::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    k_lanes_streamed_by::<L, L, S, D>(src, dst, n, head, store)
}

/// A kernel that meets in lanes: `L`'s for ordinary stores, `T`'s for
/// non-temporal ones (float32 -> float16 at AVX-512: AVX2's lanes, but
/// AVX-512's wider non-temporal stores).
fn k_lanes_streamed_by<L, T, S, D>(src: &[u8], dst: &mut [u8], n: usize, head: usize, store: Store)
where
    L: lanes::Lanes,
    T: lanes::Lanes,
    S: lanes::VSrc<L> + lanes::VSrc<T>,
    D: lanes::VDst<L> + lanes::VDst<T>,
{
    let (a, b) = (L::raw::<S, D, false>(), T::raw::<S, D, true>());
    let bits = (<S as lanes::Side>::BITS, <D as lanes::Side>::BITS);
    // SAFETY: only handed out by the tables of the lanes' levels and of
    // the levels above them, built for CPUs with their features
    // (`has_avx512` includes `has_avx2`).
    unsafe { call(src, dst, n, head, store, bits, lanes::fp::<S, D>(), a, b) }
}

/// A complex pair as its parts' pair: `k_lanes` on twice the elements (a
/// complex element is its two parts, real first; `n` is at most a sixteenth
/// of the address space, so `2 n` cannot overflow, nor `2 head`, which a
/// valid head does not pass).
fn parts<L: lanes::Lanes, S: lanes::VSrc<L>, D: lanes::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    k_lanes::<L, S, D>(src, dst, 2 * n, head.saturating_mul(2), store)
}

/// x86-64's levels with rules: the portable level's, then its own.
static LEVELS: [super::rules::Level; 3] = [
    super::portable::LEVEL,
    dispatch::LEVELS[0],
    dispatch::LEVELS[1],
];

/// x86-64 for the driver.
pub struct X86;

impl Arch for X86 {
    type FpState = u32;

    const LEVELS: &'static [Isa] = &[Isa::Scalar, Isa::Portable, Isa::Avx2, Isa::Avx512];

    fn cpu() -> Isa {
        if has_avx512() {
            Isa::Avx512
        } else if has_avx2() {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }

    fn levels() -> &'static [super::rules::Level] {
        &LEVELS
    }

    fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<Entry> {
        match isa {
            Isa::Portable => super::portable::kernel(s, d),
            _ => dispatch::kernel(isa, s, d),
        }
    }

    #[inline(always)]
    fn hold(run: impl FnOnce(u32)) {
        hold(run)
    }

    #[inline(always)]
    fn under(fp: Fp, run: impl FnOnce()) {
        under(mxcsr_of(fp), run)
    }

    #[inline(always)]
    fn enter(held: u32, fp: Fp, run: impl FnOnce()) {
        enter(held, mxcsr_of(fp), run)
    }

    fn stream_end() {
        // SAFETY: sfence has no preconditions (SSE, in the x86-64 baseline).
        unsafe { _mm_sfence() }
    }

    fn ticks() -> u64 {
        // SAFETY: RDTSC reads a counter (x86-64 baseline); no memory access.
        unsafe { _rdtsc() }
    }

    #[inline(always)]
    fn prefetch(p: *const u8) {
        // SAFETY: SSE is in the x86-64 baseline; a prefetch is a hint:
        // whatever the address, it reads nothing the program sees and
        // never faults. Into L2 (PREFETCHT2).
        unsafe { _mm_prefetch::<_MM_HINT_T2>(p.cast()) };
    }

    fn gather(
        isa: Isa,
        src: &[u8],
        at: usize,
        step: i64,
        w: usize,
        out: &mut [u8],
        m: usize,
    ) -> usize {
        match gather::near(isa, src, at, step, w, out, m) {
            0 if w == 4 => gather::gather32(isa, src, at, step, out, m),
            g => g,
        }
    }

    fn spread(
        isa: Isa,
        from: &[u8],
        dst: &mut [u8],
        at: usize,
        step: i64,
        w: usize,
        m: usize,
    ) -> usize {
        gather::spread(isa, from, dst, at, step, w, m)
    }

    fn strided(isa: Isa, s: Dtype, d: Dtype) -> Option<Strided> {
        native::strided(isa, s.code(), d.code())
    }
}

//! Bulk conversion kernels (issue 4): argument plan, dispatch, and the
//! driver that feeds contiguous kernels.
//!
//! A *kernel* converts `n` elements packed from bit 0 of one buffer into
//! another (`scalar::run` for every pair; `x86` for the pairs moved in bulk).
//! The driver splits a strided or bit-misaligned call into a scalar head, a
//! byte-aligned contiguous body handed to the kernel in place, and blocks
//! gathered into / scattered from stack buffers (no allocation). The level is
//! chosen once, at first use, from the CPU and `NX_DTYPE_ISA`.

pub mod pack;
pub mod scalar;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // SIMD intrinsics: the one place in kernels allowed it
pub mod x86;

use crate::ffi::{NX_ERR_RANGE, NX_OK};
use crate::table::Dtype;
use crate::value::convert;
use std::ffi::CStr;
use std::sync::OnceLock;

/// Kernel levels, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    Scalar,
    /// AVX2 + F16C + FMA + BMI2.
    Avx2,
    /// AVX-512 F/BW/VL/DQ on top of Avx2.
    Avx512,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::Scalar, Isa::Avx2, Isa::Avx512];

    pub fn name(self) -> &'static CStr {
        match self {
            Isa::Scalar => c"scalar",
            Isa::Avx2 => c"avx2",
            Isa::Avx512 => c"avx512",
        }
    }

    fn of_name(s: &str) -> Option<Isa> {
        Isa::ALL
            .into_iter()
            .find(|i| i.name().to_bytes() == s.as_bytes())
    }

    /// Whether this CPU runs the level.
    pub fn supported(self) -> bool {
        self <= Isa::cpu()
    }

    /// The best level this CPU runs, detected once: every call checks its
    /// level against it (`Kernel::of`), and the profile of a call of 16
    /// elements put 9% of its time on the eleven feature tests.
    fn cpu() -> Isa {
        static CPU: OnceLock<Isa> = OnceLock::new();
        *CPU.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            if x86::has_avx512() {
                return Isa::Avx512;
            } else if x86::has_avx2() {
                return Isa::Avx2;
            }
            Isa::Scalar
        })
    }

    /// The best supported level at most `cap`.
    pub fn best(cap: Isa) -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| *i <= cap && i.supported())
            .unwrap_or(Isa::Scalar)
    }
}

static CHOSEN: OnceLock<Isa> = OnceLock::new();

/// The level in use: chosen once (thread-safe), capped by `NX_DTYPE_ISA`
/// when it names a level (an unknown value caps nothing).
pub fn isa() -> Isa {
    *CHOSEN.get_or_init(|| {
        let cap = std::env::var("NX_DTYPE_ISA")
            .ok()
            .and_then(|v| Isa::of_name(v.trim()))
            .unwrap_or(Isa::Avx512);
        Isa::best(cap)
    })
}

/// How a kernel writes its whole vectors: `Plain` (ordinary stores), or
/// `Stream` (non-temporal stores, which write around the caches and so skip
/// reading each destination line first; then the destination pointer must be
/// 64-byte aligned, and the caller orders the stores with `stream_end`
/// before returning). A kernel's partial last vector is always ordinary.
/// `Fetch(d)`: as `Stream`, and the kernels that can prefetch their source
/// in software do, `d` bytes ahead (see `streamed`).
/// `Held(mxcsr)`: ordinary stores, one block of many within the caller's
/// scope (`x86::hold`), which restores the MXCSR `mxcsr` it read once, so
/// the kernel neither reads nor restores it (see `blocks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    Plain,
    Stream,
    Fetch(usize),
    Held(u32),
}

/// A contiguous SIMD kernel (see the module doc), called as `k(src, dst,
/// n, head, store)` on `n` elements from bit 0 of both sides (the last
/// byte of a sub-byte side read whole, or written whole: its bits past
/// element n too), the first `head` elements by themselves (a head that
/// brings a side to a cache line; one that does not split both sides on
/// whole bytes within `n` is taken as 0), the rest with `store`. Safe to
/// call: the table hands one out only for a level the CPU supports. With
/// `Store::Stream` a destination not 64-byte aligned after the head is
/// still converted right, only slower.
pub type SimdKernel = fn(&[u8], &mut [u8], usize, usize, Store);

/// The kernel for one pair at one level.
#[derive(Clone, Copy)]
pub enum Kernel {
    Scalar(Dtype, Dtype),
    Simd(SimdKernel),
}

impl Kernel {
    /// The kernel for `s -> d` at `isa` (a level the CPU supports).
    pub fn of(isa: Isa, s: Dtype, d: Dtype) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if s != d && isa != Isa::Scalar && isa.supported() {
            if let Some(k) = x86::kernel(isa, s, d) {
                return Kernel::Simd(k);
            }
        }
        let _ = isa;
        Kernel::Scalar(s, d)
    }

    /// Whether `isa` has a SIMD kernel for `s -> d`.
    pub fn is_simd(isa: Isa, s: Dtype, d: Dtype) -> bool {
        matches!(Kernel::of(isa, s, d), Kernel::Simd(_))
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
            Kernel::Simd(k) => k(src, dst, n, head, store),
        }
    }
}

/// Order the non-temporal stores of `Store::Stream` runs before the call
/// returns, so that other threads (and the caller) see them as ordinary
/// stores.
pub fn stream_end() {
    #[cfg(target_arch = "x86_64")]
    x86::stream_end();
}

/// One side of a conversion as the caller gave it: offsets and strides
/// count elements.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    pub dt: Dtype,
    pub offset: i64,
    pub stride: i64,
}

/// One side resolved to bytes: the spanned byte range `[lo, lo + len)` of the
/// caller's pointer, and element `i` at bit `first + i * step` of that range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub dt: Dtype,
    pub lo: usize,
    pub len: usize,
    pub first: i64,
    pub step: i64,
    pub bits: u32,
}

impl Span {
    #[inline]
    fn bit(&self, i: usize) -> usize {
        (self.first + i as i64 * self.step) as usize
    }

    /// Whether element i + 1 follows element i with no gap.
    #[inline]
    fn contiguous(&self) -> bool {
        self.step == i64::from(self.bits)
    }
}

/// Status: NX_OK, or NX_ERR_RANGE.
pub type Status = i32;

/// The byte span of `n > 0` elements of `side` (`offset >= 0`: `plan`), or
/// NX_ERR_RANGE when an index is negative or index (or bit) arithmetic
/// overflows int64.
// In 64 bits, checked, and by shifts (an element's bits are a power of
// two): the same spans and errors as exact 128-bit arithmetic (tests/
// kernels.rs holds that as its reference), whose multiplications cost a
// short call 1.5-3.5 ns (C loop, best of 5 alternated: float32 ->
// float16 of 32 elements 33.8 -> 30.8 ns, of one 38.5 -> 36.8 ns).
// Inlined (as `plan`): out of line, the spans went through the stack and
// back in pieces, which cost a call 12-14 ns (float32 -> uint8 of 32
// elements: 43 -> 31 ns, of 1024: 99 -> 85 ns).
#[inline(always)]
fn span(side: Side, n: i64) -> Result<Span, Status> {
    // Where the product or the sum overflows int64, the exact last index
    // lies outside 0 ..= i64::MAX: NX_ERR_RANGE either way.
    let last = (n - 1)
        .checked_mul(side.stride)
        .and_then(|reach| side.offset.checked_add(reach))
        .ok_or(NX_ERR_RANGE)?;
    let (lo_idx, hi_idx) = (last.min(side.offset), last.max(side.offset));
    if lo_idx < 0 {
        return Err(NX_ERR_RANGE);
    }
    let (lo_idx, hi_idx) = (lo_idx as u64, hi_idx as u64);
    let bits = side.dt.bits();
    let k = bits.trailing_zeros();
    // lo = floor(lo_idx bits / 8), end = ceil((hi_idx + 1) bits / 8).
    let (lo, end) = if k >= 3 {
        let bytes = u64::from(bits / 8);
        // (lo_idx <= hi_idx: the end's product bounds the start's.)
        let end = (hi_idx + 1).checked_mul(bytes).ok_or(NX_ERR_RANGE)?;
        (lo_idx * bytes, end)
    } else {
        // 2^(3 - k) elements a byte; hi_idx + 8 cannot overflow.
        let per = 3 - k;
        (lo_idx >> per, (hi_idx + (1 << per)) >> per)
    };
    let len = end - lo;
    // The end within the address space; bit positions relative to the
    // span (up to len 8) in int64.
    if end > isize::MAX as u64 || len > (i64::MAX / 8) as u64 {
        return Err(NX_ERR_RANGE);
    }
    // offset bits - lo 8: the elements from the lowest to the first, and
    // the lowest's bit within its byte.
    let first = ((side.offset as u64 - lo_idx) << k) + ((lo_idx << k) & 7);
    Ok(Span {
        dt: side.dt,
        lo: lo as usize,
        len: len as usize,
        first: first as i64,
        // (Wrapped only when n = 1, where no step is taken.)
        step: side.stride.wrapping_mul(i64::from(bits)),
        bits,
    })
}

/// Check counts, offsets and strides (ABI.md, "Bulk conversion"): the spans
/// of source and destination, or None when n = 0 (nothing to touch).
#[inline(always)]
pub fn plan(src: Side, dst: Side, n: i64) -> Result<Option<(Span, Span)>, Status> {
    if n < 0 || src.offset < 0 || dst.offset < 0 || dst.stride < 1 {
        return Err(NX_ERR_RANGE);
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some((span(src, n)?, span(dst, n)?)))
}

/// Calls that move at least this many bytes (read + written) write with
/// non-temporal stores (`Store::Stream`), which skip reading each
/// destination line before writing it (as glibc's memcpy does past its
/// threshold, here 181 MiB). What decides is whether source and destination
/// together stay in the last-level cache (32 MiB, shared with the host's
/// other tenants) until the next call. Measured on this machine (one thread,
/// the same buffers converted again and again, as `make bench` does; C
/// harness, runs alternated), in Gelem/s, ordinary against streamed:
/// - 48 MiB moved (float16 -> float32, float32 -> float64 at 16 MiB of
///   source, which the old rule of 48 MiB of destination left ordinary):
///   1.2-1.6 against 2.1-4.0, and 0.57-0.72 against 1.09-1.10;
/// - 24 MiB (float32 -> float16 at 16 MiB): 1.3-1.6 against 2.0-2.4;
/// - 17-20 MiB (float32 -> float8_e4m3fn, float4_e2m1fn): the same within
///   the noise (1.8-2.6 against 2.1-2.3);
/// - 6 MiB (float16 -> float32 at 2 MiB): 7.0-8.3 against 3.5-3.6.
///
/// On the Intel Xeon (105 MiB of L3, shared) streaming won from 10 MiB
/// moved up (bench-levels, both orders): float32 -> float8_e4m3fn, int8,
/// uint4, float4_e2m1fn at 16 MiB of source (18-20 MiB moved) 1.06-1.25x,
/// at 8 MiB 1.0-1.19x. 16 MiB keeps clear of the AMD's loss at 6 MiB.
pub const STREAM_MIN: usize = 16 << 20;

/// The contiguous body: `n` elements from bit 0 of `src` into bit 0 of
/// `dst`, ending on a whole byte of the destination (see `SimdKernel`).
fn body_run(isa: Isa, k: Kernel, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], n: usize) {
    let (sb, db) = (sp.bits as usize, dp.bits as usize);
    let stream = isa != Isa::Scalar
        && matches!(k, Kernel::Simd(_))
        && n.saturating_mul(sb + db) / 8 >= STREAM_MIN;
    // Streaming: the destination brought to a cache line, as non-temporal
    // stores want. Otherwise one side's pointer (numpy's arrays sit 16
    // bytes past one, so every vector load or store of a side left there
    // straddles two lines): the wider side's, or the destination's for
    // the narrowings to half the width that `aligns_destination` names.
    let long = n >= ALIGN_MIN || n.saturating_mul(db) / 8 >= ALIGN_DST_BYTES;
    let head = if isa == Isa::Scalar || !long {
        None
    } else {
        let dst_side = stream || db >= sb || aligns_destination(isa, sp.dt, dp.dt);
        let (w, addr) = if dst_side {
            (db, dst.as_ptr() as usize)
        } else {
            (sb, src.as_ptr() as usize)
        };
        let gap = addr.wrapping_neg() % 64 * 8; // bits
        let h = gap / w;
        // Whole elements of that side, whole bytes of both, within the
        // body (a 1-bit side's head can be 504 elements).
        (gap % w == 0 && h * sb % 8 == 0 && h * db % 8 == 0 && h <= n).then_some(h)
    };
    match head {
        Some(head) if stream => {
            streamed(k, src, dst, n, head, (sb, db), piece_of(sb));
            stream_end();
        }
        // The head and the rest in one kernel call: one MXCSR read (a call
        // of its own for the head read it again right after the head's
        // work, which waited on that work: bool -> float64 of 2048
        // elements 320 -> 427 ns with the head, against 356 without that
        // read).
        _ => k.run_as(src, dst, n, head.unwrap_or(0), Store::Plain),
    }
}

/// Source bytes a piece of a streamed call (`streamed`).
const PIECE: usize = 1 << 20;

/// Pieces a streamed call needs before it tries the prefetch (`streamed`).
const TRIAL_MIN: usize = 10;

/// The prefetch distances a streamed call tries (bytes ahead of the
/// source's reads): no one distance wins for every loop (BENCHMARKS.md).
const AHEADS: [usize; 2] = [2048, 4096];

/// A count of time for `streamed`'s trial: x86's time-stamp counter (one
/// instruction that cannot fail, where a clock read can report an error
/// that `Instant` would turn into a panic); 0 where nothing streams.
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    return x86::ticks();
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// Elements a piece of a streamed call for a source of `sb` bits: about
/// `PIECE` bytes, a multiple of 512 elements, so that each piece starts on
/// whole bytes of both sides and on a cache line of the destination.
pub fn piece_of(sb: usize) -> usize {
    (PIECE * 8 / sb.max(1) / 512 * 512).max(512)
}

/// A streamed body (`body_run`: `n` elements, the first `head` bringing the
/// destination to a cache line, `bits` per element of each side) in pieces
/// of `m` elements (`piece_of`; the first also holds the head).
///
/// Whether software prefetch of the source pays depends on the host's
/// memory at the time, so each call long enough to tell measures it. On
/// the AMD Zen 4, on a day its memory was slow (one core read 11.6 GB/s),
/// the narrowings ran 1.06-1.64x faster with this trial at 67108864
/// elements (`avx2`: 1.18-3.76x), the widenings 0.97-1.02x (`make
/// bench-levels`), where a stop on a fast day (25 GB/s) had measured
/// float32 -> float8_e4m3fn at 0.71-0.81x with a prefetch 4 KiB ahead in
/// every large call (BENCHMARKS.md). So a call of `TRIAL_MIN` pieces or
/// more runs its first piece without, times the next six: 2 KiB ahead,
/// none, 4 KiB, 4 KiB, none, 2 KiB (in mirror order, so that a drift in
/// the host's rate falls on all three alike), and runs the rest as the
/// fastest pair did. The choice changes no result: only which prefetches
/// the kernels issue.
pub fn streamed(
    k: Kernel,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    bits: (usize, usize),
    m: usize,
) {
    let ((sb, db), m) = (bits, m.max(1));
    // The byte of element `i` (on a whole byte: the head, whole bytes of
    // both sides, plus a multiple of 512), without overflow.
    let at = |i: usize, w: usize| i / 8 * w + i % 8 * w / 8;
    // Piece j: elements from `start(j)` (0, then head + j m) to the next
    // piece's start or n.
    let start = |j: usize| {
        if j == 0 {
            0
        } else {
            head.saturating_add(j.saturating_mul(m))
        }
    };
    let pieces = n.saturating_sub(head).div_ceil(m).max(1);
    let mut run = |j: usize, store: Store| {
        let (from, to) = (start(j), start(j + 1).min(n));
        let t = ticks();
        if let (Some(s), Some(d)) = (src.get(at(from, sb)..), dst.get_mut(at(from, db)..)) {
            k.run_as(
                s,
                d,
                to.saturating_sub(from),
                if j == 0 { head } else { 0 },
                store,
            );
        }
        ticks().wrapping_sub(t)
    };
    let (mut j, mut store) = (0, Store::Stream);
    if pieces >= TRIAL_MIN {
        run(0, Store::Stream);
        let [near, far] = AHEADS.map(Store::Fetch);
        let [a, b, c, d, e, f] = [
            run(1, near),
            run(2, Store::Stream),
            run(3, far),
            run(4, far),
            run(5, Store::Stream),
            run(6, near),
        ];
        let time = [
            a.saturating_add(f),
            b.saturating_add(e),
            c.saturating_add(d),
        ];
        store = [near, Store::Stream, far]
            .into_iter()
            .zip(time)
            .min_by_key(|&(_, t)| t)
            .map_or(Store::Stream, |(s, _)| s);
        j = 7;
    }
    while j < pieces {
        run(j, store);
        j += 1;
    }
}

/// Whether a narrowing to half the width aligns its destination, not its
/// source: AVX2's kernels, whose stores (128 bits, most) straddling a line
/// cost more than two straddling loads. At AVX2 every such pair (`make
/// bench-levels`, AMD Zen 4, 16384 and 131072 elements, over aligning the
/// source: float32 -> float16 1.39-1.44x, int16 -> int8 1.30-1.48x,
/// float64 -> float32 1.25-1.29x; float32 -> int16 0.93x; the 4:1
/// narrowings, not taken, 0.85-0.88x), at AVX-512 the pairs that run
/// AVX2's kernels there (`x86::AVX2_PAIRS`).
fn aligns_destination(isa: Isa, s: Dtype, d: Dtype) -> bool {
    let half = 2 * d.bits() == s.bits();
    match isa {
        Isa::Scalar => false,
        Isa::Avx2 => half,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => half && x86::AVX2_PAIRS.contains(&(s.code(), d.code())),
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx512 => false,
    }
}

/// Bodies get a head that aligns them when at least `ALIGN_MIN` elements
/// long or when they write at least `ALIGN_DST_BYTES`: enough work to pay
/// for the head (a pass through the kernel's path for a partial step). In
/// L1 a 512-bit store straddling two lines runs at half the rate (float16
/// -> float32 in a plain C loop, both sides 16 bytes past a line: 23
/// against 48 Gelem/s aligned). Measured here (AMD Zen 4, `make
/// bench-levels` at AVX-512, both sides 16 bytes past a line, against no
/// head under `ALIGN_MIN`): the pairs that the destination's bound adds,
/// 1.26x (geometric mean) at 2048 and at 4096 elements, the rest 0.99x
/// (the noise); least, bool -> float64 (0.73x, 0.84x), whose kernel
/// computes more than it stores. Under 16 KiB of destination the head
/// lost (1024 elements: 0.73-0.92x by destination size).
pub const ALIGN_MIN: usize = 16384;
/// See `ALIGN_MIN`.
pub const ALIGN_DST_BYTES: usize = 16 << 10;

/// Bytes of a gathered block's buffer, each side's, for calls whose wider
/// side spans less than `BIG_CALL`: a call initialises the two, and a
/// block holds 1024 * 8 / (the wider side's bits) elements (64
/// complex128, 256 float32). Against 4 KiB each (bench-levels, source
/// stride 2, alternated): 1.5x at 16 elements, 1.1-1.6x at 64, 1.0-1.25x
/// at 1024.
const BLOCK_BYTES: usize = 1024;

/// Bytes of a block's buffer for calls whose wider side spans `BIG_CALL`
/// or more. Each block costs more than its set-up: a kernel's narrow
/// stores read back at once by wider loads (the masked stores of
/// `x86::gather::spread`, the kernels' loads of a gathered block) wait
/// until those stores are written, which a larger block leaves time for.
/// Against 1 KiB (source or destination stride 2, 65536 elements,
/// alternated): int64 -> uint8 4.85 -> 8.6 Gelem/s, float64 ->
/// float8_e4m3fn 3.85 -> 6.35, int8 -> float16 7.3 -> 9.6; at 256
/// elements (2 KiB) 0.64-0.86x, where the 16 KiB to initialise cost more.
const BIG_BLOCK_BYTES: usize = 8192;
/// See `BIG_BLOCK_BYTES` (8 KiB blocks against 1 KiB, a C loop over
/// `nx_convert_strided`, alternated, stride 2: a wider side of 8 KiB of
/// int64 even, 16 KiB of complex128 1.26x, 4 KiB of float64 0.87x).
pub const BIG_CALL: usize = 16 << 10;

/// A block's buffer of `B` bytes, on a cache line: the kernels' vector
/// loads and stores of it then split no line, wherever the stack puts it
/// (byte arrays, the buffers had sat where the frame put them: source
/// stride 2, 65536 elements, the SIMD gather's float32 -> float64 1.9 ->
/// 2.5 Gelem/s in one build and 2.6 in another; destination stride 2,
/// float32 -> float64 1.26x, float32 -> complex128 1.43x).
#[repr(align(64))]
struct Block<const B: usize>([u8; B]);

impl<const B: usize> Default for Block<B> {
    fn default() -> Block<B> {
        Block([0; B])
    }
}

/// Convert `n` elements from `src` (the source span's bytes) into `dst` (the
/// destination span's bytes) with the kernel level `isa`.
pub fn run(isa: Isa, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], n: usize) -> Status {
    let (s, d) = (sp.dt, dp.dt);
    let k = Kernel::of(isa, s, d);
    let one = |dst: &mut [u8], i: usize| {
        let raw = pack::read(src, sp.bit(i), sp.bits);
        pack::write(dst, dp.bit(i), dp.bits, convert(s, d, raw));
    };
    let mut i = 0;
    if sp.contiguous() && dp.contiguous() {
        // Contiguous: convert a few elements alone until both sides sit on a
        // byte boundary, then hand the kernel the rest in place up to the
        // destination's last whole byte (a sub-byte source may end within
        // a byte: the kernels read it whole): all of it into whole-byte
        // elements; a bit destination's last 2 to 7 through a byte of
        // our own (`last_byte`); a single last element alone, below.
        while i < n.min(8) && !(sp.bit(i).is_multiple_of(8) && dp.bit(i).is_multiple_of(8)) {
            one(dst, i);
            i += 1;
        }
        if sp.bit(i).is_multiple_of(8) && dp.bit(i).is_multiple_of(8) {
            let unit = (8 / dp.bits).max(1) as usize;
            let body = (n - i) / unit * unit;
            let (sb, db) = (sp.bit(i) / 8, dp.bit(i) / 8);
            if let (Some(from), Some(to)) = (src.get(sb..), dst.get_mut(db..)) {
                body_run(isa, k, sp, dp, from, to, body);
            }
            i += body;
            if n - i >= 2 && sp.bit(i).is_multiple_of(8) {
                last_byte(k, sp, dp, src, dst, i, n);
                return NX_OK;
            }
        }
    }
    // Strided between machine types: one pass, as numpy's loops go, for
    // the pairs `x86::native::strided` names.
    #[cfg(target_arch = "x86_64")]
    if i == 0 && sp.bits.is_multiple_of(8) && dp.bits.is_multiple_of(8) {
        if let Some(f) = x86::native::strided(isa, s.code(), d.code()) {
            f(
                src,
                sp.bit(0) / 8,
                sp.step / 8,
                dst,
                dp.bit(0) / 8,
                dp.step / 8,
                n,
            );
            return NX_OK;
        }
    }
    // The rest, strided or misaligned: gather a block packed from bit 0,
    // convert it, scatter it. A single element alone: the scalar
    // conversion costs 30-70 ns an element, more than a block's set-up
    // from two elements up (7 elements of stride 2: 1.6-2.8x).
    if n - i >= 2 {
        let wide = (n - i).saturating_mul(sp.bits.max(dp.bits) as usize) / 8;
        if wide >= BIG_CALL {
            blocks::<BIG_BLOCK_BYTES>(isa, k, sp, dp, src, dst, i, n);
        } else {
            blocks::<BLOCK_BYTES>(isa, k, sp, dp, src, dst, i, n);
        }
    } else {
        for j in i..n {
            one(dst, j);
        }
    }
    NX_OK
}

/// The last `n - i` elements of a contiguous call into a sub-byte
/// destination, fewer than its byte holds, both sides on whole bytes at
/// `i`: the kernel converts them from the source in place into a byte of
/// its own, whose bits for them are written into the destination as one
/// element of that many bits (`pack::write`: the byte's other bits kept).
fn last_byte(k: Kernel, sp: &Span, dp: &Span, src: &[u8], dst: &mut [u8], i: usize, n: usize) {
    let bits = (n - i) * dp.bits as usize;
    let mut byte = [0u8];
    if let (Some(from), true) = (src.get(sp.bit(i) / 8..), bits < 8) {
        k.run(from, &mut byte, n - i);
        let [b] = byte;
        pack::write(dst, dp.bit(i), bits as u32, b.into());
    }
}

/// Elements `i .. i + m` of the source side `sp` packed into `out`: by
/// the level's SIMD gathers where they apply (`x86::gather`: byte
/// permutes for strides of up to 4 elements, else VPGATHERDD for 32-bit
/// elements), the rest by `pack::gather`.
fn gather(isa: Isa, src: &[u8], sp: &Span, i: usize, out: &mut [u8], m: usize) {
    #[cfg(target_arch = "x86_64")]
    let done = if sp.bits.is_multiple_of(8) {
        let (at, step, w) = (sp.bit(i) / 8, sp.step / 8, sp.bits as usize / 8);
        match x86::gather::near(isa, src, at, step, w, out, m) {
            0 if w == 4 => x86::gather::gather32(isa, src, at, step, out, m),
            g => g,
        }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = isa;
        0
    };
    let rest = out
        .get_mut(done * sp.bits as usize / 8..)
        .unwrap_or_default();
    pack::gather(src, sp.bit(i + done), sp.step, sp.bits, rest, m - done);
}

/// `m` elements packed in `from` into elements `i .. i + m` of the
/// destination side `dp`: by masked byte stores where they apply
/// (`x86::gather::spread`), the rest by `pack::scatter`.
fn scatter(isa: Isa, from: &[u8], dst: &mut [u8], dp: &Span, i: usize, m: usize) {
    #[cfg(target_arch = "x86_64")]
    let done = if dp.bits.is_multiple_of(8) {
        let (at, w) = (dp.bit(i) / 8, dp.bits as usize / 8);
        x86::gather::spread(isa, from, dst, at, dp.step / 8, w, m)
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = {
        let _ = isa;
        0
    };
    let rest = from.get(done * dp.bits as usize / 8..).unwrap_or_default();
    pack::scatter(rest, dst, dp.bit(i + done), dp.step, dp.bits, m - done);
}

/// Elements `i .. n` through stack blocks (kept out of `run`, so that a
/// contiguous call does not pay for initialising the buffers). A block's
/// elements of a contiguous side that span whole bytes are read or written
/// in place, not copied: a 4- or 1-bit side's too (source stride 2, 65536
/// elements, into contiguous float4_e2m1fn, int4, uint4, bit: 5.4-6.4x
/// over the per-element scatter, 0.51-0.56 -> 2.8-3.6 Gelem/s).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn blocks<const B: usize>(
    isa: Isa,
    k: Kernel,
    sp: &Span,
    dp: &Span,
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    n: usize,
) {
    let (mut sbuf, mut dbuf) = (Block::<B>::default(), Block::<B>::default());
    let block = B * 8 / sp.bits.max(dp.bits) as usize;
    // Elements i .. i + m of a contiguous side in place: their bytes, when
    // whole (a sub-byte side's too: from a byte boundary, whole bytes).
    let in_place = |s: &Span, i: usize, m: usize| {
        let (at, len) = (s.bit(i), m * s.bits as usize);
        (s.contiguous() && at.is_multiple_of(8) && len.is_multiple_of(8))
            .then(|| at / 8..(at + len) / 8)
    };
    // The kernel's MXCSR read once for all blocks (`x86::hold`).
    let mut each = |store: Store| {
        while i < n {
            let m = (n - i).min(block);
            let from = match in_place(sp, i, m) {
                Some(r) => src.get(r).unwrap_or_default(),
                None => {
                    gather(isa, src, sp, i, &mut sbuf.0, m);
                    &sbuf.0
                }
            };
            if let Some(r) = in_place(dp, i, m) {
                if let Some(to) = dst.get_mut(r) {
                    k.run_as(from, to, m, 0, store);
                }
            } else {
                k.run_as(from, &mut dbuf.0, m, 0, store);
                scatter(isa, &dbuf.0, dst, dp, i, m);
            }
            i += m;
        }
    };
    #[cfg(target_arch = "x86_64")]
    x86::hold(|mxcsr| each(Store::Held(mxcsr)));
    #[cfg(not(target_arch = "x86_64"))]
    each(Store::Plain);
}

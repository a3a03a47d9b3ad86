//! x86-64 SIMD kernels, beside the scalar reference they are tested against.
//!
//! Two levels, AVX2 (`avx2.rs`) and AVX-512 (`avx512/`). Most kernels are
//! a source decoder and a destination encoder that meet in lanes
//! (`steps.rs`; one list of pairs for both levels in `lane_pairs!`): every
//! pair among float32, float16, bfloat16, the float8 and float4 formats,
//! the 16-, 8- and 4-bit integers, bool, bit and complex64, and from
//! float64, complex128, int32 and uint32 into them; and the 64-bit
//! integers with the 16-, 8-, 4- and 1-bit formats. The AVX-512 level adds
//! whole kernels among the wide dtypes (`avx512/wide.rs`) and whole
//! kernels where they beat the lanes (`avx512::patch`). bit with the
//! others, and bool into them, by masks, not lanes (`bits.rs` at AVX2 for
//! the dtypes of 4 to 16 bits and into bit from up to 64; `avx512/bits.rs`
//! for most).
//! At both levels, the pairs of machine types still without a kernel (the
//! integers among themselves; at AVX2 also the 64-bit integers, float64
//! <-> the 32-bit integers and complex128) get a map the compiler vectorizes
//! (`native.rs`), so that no pair is left to the scalar reference. The
//! dispatch table is built once per level. Strided elements move between
//! memory and the driver's blocks by byte permutes, masked stores and
//! VPGATHERDD (`gather.rs`).
//!
//! Every SIMD kernel runs under an MXCSR the kernel names (`call`): every
//! exception masked, round to nearest (or toward zero), no FTZ or DAZ but
//! where they change no result (the float8/float4 encoders,
//! `steps::NarrowOut`, and AVX2's float -> 64-bit integer truncation,
//! `native::trunc64`), so a caller's floating-point environment changes
//! no result and traps nothing;
//! the caller's MXCSR, flags included, is back when the call returns.
//!
//! Large calls: every kernel comes in two forms, ordinary stores and
//! non-temporal ones (`Store`, chosen per call by the driver). The
//! non-temporal forms of the narrowing loops (`steps`, `native`, and at
//! AVX-512 `map16`, `narrow_bytes`, `to_narrow`, `wide::narrow_ints`,
//! `bits::to_bit`, and `lookup`'s `to_e2m1` and lookups into 8 and 4 bits)
//! also prefetch their source when the call says so, as far ahead as it
//! says (`Store::Fetch`, `Fetch`): whether that pays depends on the host's
//! memory at the time, so the driver measures it in each long call
//! (`kernels::streamed`).

mod avx2;
mod avx512;
mod bits;
pub(super) mod gather;
pub(super) mod native;
mod steps;

use super::{Isa, SimdKernel, Store};
use crate::table::{Dtype, COUNT};
use std::arch::x86_64::*;
use std::cell::Cell;
use std::sync::OnceLock;

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

/// A raw kernel: `n` elements from `src` into `dst` (see `call`).
type Raw = unsafe fn(*const u8, *mut u8, usize);

thread_local! {
    /// How far ahead (bytes; 0: not at all) the kernel this thread is
    /// running prefetches its source: set by `call` for a `Store::Fetch`
    /// call (a raw kernel takes no more arguments), read by the kernel
    /// through `Fetch::of`.
    static FETCH: Cell<usize> = const { Cell::new(0) };
}

/// A kernel's software prefetch of its source, the distance ahead in
/// bytes (0: none): the non-temporal form's in a `Store::Fetch` call
/// (`kernels::streamed`), else none. Read once, at the kernel's entry (in
/// a shared library a thread-local can cost a call to reach).
#[derive(Clone, Copy)]
struct Fetch(usize);

impl Fetch {
    #[inline(always)]
    fn of<const NT: bool>() -> Fetch {
        Fetch(if NT {
            FETCH.try_with(Cell::get).unwrap_or(0)
        } else {
            0
        })
    }

    /// Prefetch (into L2: PREFETCHT2) the `bytes` of source that lie the
    /// distance past `p`, a line at a time.
    #[inline(always)]
    fn ahead(self, p: *const u8, bytes: usize) {
        if self.0 > 0 {
            for o in (0..bytes).step_by(64) {
                // SAFETY: SSE is in the x86-64 baseline; a prefetch is a
                // hint: whatever the address, it reads nothing the
                // program sees and never faults.
                unsafe { _mm_prefetch::<_MM_HINT_T2>(p.wrapping_add(self.0 + o).cast()) };
            }
        }
    }
}

/// MXCSR for the kernels: every exception masked, no FTZ or DAZ, round to
/// nearest-even; a kernel may add `steps::TOWARD_ZERO`, `FTZ` or `DAZ`.
pub(crate) const MXCSR_RN: u32 = 0x1F80;
/// Flush to zero: float32 results below the normals become zeros of their sign.
pub(crate) const FTZ: u32 = 1 << 15;
/// Denormals are zeros: float inputs below the normals read as zeros of
/// their sign.
pub(crate) const DAZ: u32 = 1 << 6;

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
/// hold `n` elements of each side, under MXCSR `env` (the caller's MXCSR,
/// flags included, restored after): the first `head` elements by `plain`
/// (see `SimdKernel`), then the rest by `stream` (its non-temporal form)
/// when `store` asks for it (`Stream`, `Fetch`: the latter with `FETCH`
/// set to its distance while `stream` runs) and the rest's destination is
/// 64-byte aligned, else by `plain`.
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
    env: u32,
    plain: Raw,
    stream: Raw,
) {
    let (sb, db) = bits;
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
                plain(src.as_ptr(), dst.as_mut_ptr(), head);
            }
            if ahead > 0 {
                let _ = FETCH.try_with(|f| f.set(ahead));
            }
            k(src.as_ptr().add(hs), dst.as_mut_ptr().add(hd), n - head);
            if ahead > 0 {
                let _ = FETCH.try_with(|f| f.set(0));
            }
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
/// restored, flags included, when it returns: the scope of
/// kernel calls made with `Store::Held(mxcsr)`, which neither read nor
/// restore it. STMXCSR waits for every float operation before it: read at
/// each block of a strided call, it stalled the pipeline once a block
/// (strided calls 1.5-3.4x slower; the profile put 82% of a kernel entry's
/// samples on the read).
#[inline(always)]
pub fn hold(run: impl FnOnce(u32)) {
    // (No guard for an unwind: the library's code does not panic, and a
    // drop guard's landing pad in each of the kernels' entries grew
    // `.text` by 38 KB.)
    let caller = mxcsr();
    run(caller);
    set_mxcsr(caller);
}

/// `run` under MXCSR `env`, the caller's MXCSR, flags included, restored
/// after (`hold`; restored without reading it back: the read, STMXCSR then
/// a compare, cost 296 of the 420 pairs 70-140 ns a call: 32 elements 110
/// -> 43 ns; int8 -> bit of 16384 390 -> 250 ns). `run` must reach its
/// float operations through a pointer, so that none moves across the
/// MXCSR writes.
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
    // form's; `$env`: its MXCSR.
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

/// The scalar reference as a level's kernel for `S -> D`, where it beats
/// the level's own (`build_for`): it needs no MXCSR (it rounds in the
/// integers) and stores plainly whatever the store form.
fn reference<const S: i32, const D: i32>(src: &[u8], dst: &mut [u8], n: usize, _: usize, _: Store) {
    if let (Some(s), Some(d)) = (Dtype::from_code(S), Dtype::from_code(D)) {
        super::scalar::run(s, d, src, dst, n);
    }
}

/// A kernel that meets in lanes `L` (`steps.rs`), at `L`'s level.
fn k_lanes<L: steps::Lanes, S: steps::VSrc<L>, D: steps::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    k_lanes_streamed_by::<L, L, S, D>(src, dst, n, head, store)
}

/// A kernel that meets in lanes: `L`'s for ordinary stores, `T`'s for
/// non-temporal ones (`T` = `L` but for `f32_f16_avx512`).
fn k_lanes_streamed_by<L, T, S, D>(src: &[u8], dst: &mut [u8], n: usize, head: usize, store: Store)
where
    L: steps::Lanes,
    T: steps::Lanes,
    S: steps::VSrc<L> + steps::VSrc<T>,
    D: steps::VDst<L> + steps::VDst<T>,
{
    let (a, b) = (L::raw::<S, D, false>(), T::raw::<S, D, true>());
    let bits = (<S as steps::Side>::BITS, <D as steps::Side>::BITS);
    let env = steps::env::<S, D>();
    // SAFETY: only handed out by the tables of the lanes' levels and of
    // the levels above them, built for CPUs with their features
    // (`has_avx512` includes `has_avx2`).
    unsafe { call(src, dst, n, head, store, bits, env, a, b) }
}

/// float32 -> float16 at AVX-512 (`AVX2_PAIRS`): AVX2's lanes, but
/// AVX-512's when streaming, whose 512-bit non-temporal stores ran
/// 1.06-1.09x AVX2's 128-bit ones at 256 MiB of source (`make
/// bench-levels`, AMD Zen 4; 0.99x at 16 MiB). Over AVX2's lanes alone:
/// 1.03x at 256 MiB, the same in cache.
/// (Not generic: one address, which the tests compare with the table's.)
pub fn f32_f16_avx512(src: &[u8], dst: &mut [u8], n: usize, head: usize, store: Store) {
    k_lanes_streamed_by::<avx2::Four, avx512::Two, steps::F32In, steps::F16Out>(
        src, dst, n, head, store,
    )
}

/// A complex pair as its parts' pair: `k_lanes` on twice the elements (a
/// complex element is its two parts, real first; `n` is at most a sixteenth
/// of the address space, so `2 n` cannot overflow, nor `2 head`, which a
/// valid head does not pass).
fn parts<L: steps::Lanes, S: steps::VSrc<L>, D: steps::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    k_lanes::<L, S, D>(src, dst, 2 * n, head.saturating_mul(2), store)
}

/// The time-stamp counter (`kernels::streamed`'s timing).
pub fn ticks() -> u64 {
    // SAFETY: RDTSC reads a counter (x86-64 baseline); no memory access.
    unsafe { _rdtsc() }
}

/// Order the non-temporal stores before the call returns.
pub fn stream_end() {
    // SAFETY: sfence has no preconditions (SSE, in the x86-64 baseline).
    unsafe { _mm_sfence() }
}

type Table = [[Option<SimdKernel>; COUNT]; COUNT];

/// Make `k` the kernel for `s -> d` in `t` (codes out of range change
/// nothing).
fn set(t: &mut Table, s: i32, d: i32, k: SimdKernel) {
    if let Some(cell) = t
        .get_mut(s as usize)
        .and_then(|row| row.get_mut(d as usize))
    {
        *cell = Some(k);
    }
}

/// Put `$k::<L, S, D>` in `t` for every `S -> D` of the lists, their
/// dtype codes read through the trait `$side` (pairs of one dtype never
/// reach the table: `Kernel::of` moves them). A later list replaces an
/// earlier one's kernel for the same pair.
macro_rules! pairs {
    ($t:ident, $k:ident<$L:ty>, $side:path; $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        $( $( pairs!(@one $t, $k<$L>, $side, $S => $ds); )* )*
    };
    (@one $t:ident, $k:ident<$L:ty>, $side:path, $S:ty => [$($D:ty),*]) => {
        $( set(&mut $t, <$S as $side>::DT, <$D as $side>::DT, $k::<$L, $S, $D>); )*
    };
}

/// Every pair that meets in lanes (`steps.rs`), at the level whose float32
/// lanes are `$f32` and float16 codes `$f16`: one list for both levels.
macro_rules! lane_pairs {
    ($t:ident, $f32:ty, $f16:ty) => {{
        use crate::ffi::{NX_COMPLEX128, NX_COMPLEX64};
        use steps::*;
        pairs!($t, k_lanes<$f32>, Side;
            [F32In, F16In, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>, I8In<true>,
             I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] =>
                [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out,
                 U8Out, I4Out, U4Out, BoolOut, BitOut];
            [Bf16In<true>] => [F32Out];
            [Bf16In<false>] =>
                [F64Out, F16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
                 U4Out, BoolOut, BitOut];
            // Sources whose values are all bfloat16 values.
            [E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn,
             BitIn] =>
                [Bf16Top];
            [F64Fold<29>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
            [F64Fold<47>] => [E4m3Folded];
            [F64Fold<48>] => [E5m2Folded];
            [F64Fold<49>] => [E2m1Folded];
            [F64Fold<40>] => [Bf16Out];
            [F64Odd] => [BoolOut, BitOut];
            [F64Near] => [F32Out];
            // complex128's real parts as float64 (the same proofs).
            [F64Fold<29, true>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
            [F64Fold<47, true>] => [E4m3Folded];
            [F64Fold<48, true>] => [E5m2Folded];
            [F64Fold<49, true>] => [E2m1Folded];
            [F64Fold<40, true>] => [Bf16Out];
            [F64Near<true>] => [F32Out];
            [C128Any] => [BoolOut, BitOut];
            [I32Odd<true>, I32Odd<false>] =>
                [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
                 U4Out, BoolOut, BitOut];
            [I32Near<true>, I32Near<false>] => [F32Out];
            // Sources whose values float32 holds exactly.
            [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I4In<true>, I4In<false>, BitIn] =>
                [I32Out<true>, I32Out<false>];
            [C64In] =>
                [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I32Out<true>,
                 I32Out<false>, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
            [C64Any] => [BoolOut, BitOut];
            // Sources whose lanes are their float32 results.
            [F32In, F16In, Bf16In<true>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
             I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn, F64Near, I32Near<true>,
             I32Near<false>] => [C64Out];
            [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
             I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] => [C128Out];
        );
        pairs!($t, k_lanes<$f16>, Side;
            [F16In] => [E5m2Out];
            [E5m2In, E4m3In] => [F16Out];
        );
        // complex64 <-> complex128: float32 <-> float64 on the parts.
        for (s, d, k) in [
            (NX_COMPLEX128, NX_COMPLEX64, parts::<$f32, F64Near, F32Out> as SimdKernel),
            (NX_COMPLEX64, NX_COMPLEX128, parts::<$f32, F32In, F64Out>),
        ] {
            set(&mut $t, s, d, k);
        }
    }};
}

/// The pairs whose AVX-512 table entry is AVX2's kernel (`build_for`;
/// float32 -> float16's streams by AVX-512's, `f32_f16_avx512`): measured
/// faster there in cache (`make bench-levels`, AMD Zen 4; below).
///
/// The narrowings to half the width among them, like every such narrowing
/// at AVX2, want the destination aligned (`super::aligns_destination`).
/// Over AVX-512's own kernels with the source aligned (4096 / 16384 /
/// 65536 / 262144 elements; 1.00-1.02x at 1048576): float32 -> float16
/// (F16C's VCVTPS2PH, 128-bit stores) 1.49x / 1.27x / 1.23x / 1.21x, int16
/// -> int8 and uint8 (`native`'s maps) 1.62-1.71x / 1.07-1.12x /
/// 1.22-1.29x / 1.22-1.32x, int32 -> int16 and uint16 1.20-1.23x /
/// 1.21-1.22x / 1.20x / 1.11-1.12x. (At AVX-512 the other halvings ran no
/// faster with the destination aligned: `narrow_bytes` 0.93-0.95x,
/// bfloat16 -> uint8 0.86-0.93x.)
///
/// The rest ran faster at AVX2's level than at AVX-512's (`levels.txt`,
/// 4096 to 65536 elements): 256-bit stores sustain more than 512-bit ones
/// once the destination leaves L1 (float16 -> float32 in a plain C loop,
/// 12.2-14.0 against 11.1-12.6 Gelem/s in L2). Over AVX-512's own kernels
/// (4096 / 16384 / 65536 elements, best of 5 alternated runs):
/// bfloat16 -> float16 1.72x / 1.16x / 1.17x; float32 -> float64 1.10x /
/// 1.11x / 1.09x; the others into float64, complex64 and complex128
/// 1.04-1.20x, but uint32 -> float64 0.97x at 4096. At 262144 (the
/// destination past L2) 0.96-1.01x, streamed at 4M elements 0.97-1.03x.
/// bool -> float64, which AVX-512's lanes lost on both hosts (0.89x at
/// 16384 in `levels.txt`, 0.74-0.81x on the host of 2026-12-06): over
/// them 1.34x / 1.23x / 1.28x / 1.26x at 4096 / 16384 / 131072 /
/// 1048576 elements, 1.01x streamed at 16777216.
pub const AVX2_PAIRS: [(i32, i32); 19] = {
    use crate::ffi::*;
    [
        (NX_FLOAT32, NX_FLOAT16),
        (NX_INT16, NX_INT8),
        (NX_INT16, NX_UINT8),
        (NX_INT32, NX_INT16),
        (NX_INT32, NX_UINT16),
        (NX_BFLOAT16, NX_FLOAT16),
        (NX_FLOAT32, NX_FLOAT64),
        (NX_INT32, NX_FLOAT64),
        (NX_UINT32, NX_FLOAT64),
        (NX_FLOAT64, NX_COMPLEX64),
        (NX_COMPLEX64, NX_FLOAT64),
        (NX_COMPLEX64, NX_COMPLEX128),
        (NX_FLOAT32, NX_COMPLEX128),
        (NX_INT32, NX_COMPLEX128),
        (NX_UINT32, NX_COMPLEX128),
        (NX_UINT64, NX_COMPLEX128),
        (NX_BFLOAT16, NX_COMPLEX128),
        (NX_BOOL, NX_COMPLEX128),
        (NX_BOOL, NX_FLOAT64),
    ]
};

/// The table of `isa`'s kernels on this CPU.
fn build(isa: Isa) -> Table {
    build_for(
        isa,
        is_x86_feature_detected!("avx512vbmi"),
        is_x86_feature_detected!("avx512bf16"),
    )
}

/// The table of `isa`'s kernels, those that need AVX512-VBMI only if
/// `vbmi`, AVX512-BF16 only if `bf16` (the tests build it without them,
/// too, where the CPU has them, so that the kernels those replace stay
/// tested).
fn build_for(isa: Isa, vbmi: bool, bf16: bool) -> Table {
    let mut t: Table = [[None; COUNT]; COUNT];
    match isa {
        // The kernels that meet in lanes, then whole kernels where they
        // are faster (`avx512::patch`).
        Isa::Avx512 => {
            lane_pairs!(t, avx512::Two, avx512::Codes);
            // The 64-bit integers, which only AVX-512 DQ converts.
            {
                use steps::*;
                pairs!(t, k_lanes<avx512::Two>, Side;
                    [I64Odd<true>, I64Odd<false>] =>
                        [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out,
                         I4Out, U4Out, BoolOut, BitOut];
                    [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, C64In, I8In<true>,
                     I8In<false>, I4In<true>, I4In<false>, BitIn] => [I64Out<true>, I64Out<false>];
                );
            }
            // float16 and bfloat16 -> float8/float4 rounded in their codes
            // (VPSRLVW: AVX-512 BW's variable word shifts; bfloat16 ->
            // float8 in byte lanes and both -> float4 by lookup instead
            // where AVX512-VBMI is, `patch`),
            // and bool and bit tested in them and in the float8 formats'
            // float16 codes, without widening to float32.
            {
                use steps::*;
                pairs!(t, k_lanes<avx512::Codes>, Side;
                    [F16In] => [E4m3Out, E2m1Out];
                    [F16In, E4m3In, E5m2In] => [BoolOut, BitOut]);
                pairs!(t, k_lanes<avx512::Bf16Codes>, Side;
                    [Bf16In<false>] => [E4m3Out, E5m2Out, E2m1Out, BoolOut, BitOut]);
            }
            // The 4-bit sources decoded into float16 or bfloat16 codes by
            // one table lookup (VPERMW), without float32 lanes: 1.4-1.8x
            // (`make bench-levels`, 16384-65536 elements).
            {
                use steps::*;
                pairs!(t, k_lanes<avx512::Codes>, Side;
                    [I4In<true>, I4In<false>, E2m1In] => [F16Out]);
                pairs!(t, k_lanes<avx512::Bf16Codes>, Side;
                    [I4In<true>, I4In<false>, E2m1In] => [Bf16Out]);
            }
            // float16 and bfloat16 -> the integers of 16 bits and fewer,
            // truncated in their codes (VPSRLVW). Into int16 and uint16
            // over the float32 lanes (`make bench-levels`, the host of
            // 2026-12-06, 4096 / 16384 / 131072 elements): int16
            // 1.27-1.31x / 1.32-1.39x / 1.33-1.39x, uint16 1.90-2.36x /
            // 2.14-2.52x / 2.24-2.60x.
            {
                use steps::*;
                pairs!(t, k_lanes<avx512::Codes>, Side;
                    [F16In] => [I16Out, U16Out];
                    [F16In, E4m3In, E5m2In] => [I8Out, U8Out, I4Out, U4Out]);
                pairs!(t, k_lanes<avx512::Bf16Codes>, Side;
                    [Bf16In<false>] => [I16Out, U16Out, I8Out, U8Out, I4Out, U4Out]);
            }
            // int8 and uint8 into float16: AVX2's kernel, which every
            // AVX-512 CPU runs, where AVX512-VBMI's lookup does not take
            // them (`avx512::lookup`). (The small integers' widenings into
            // float32, float64 and complex128 keep AVX-512's lanes:
            // 0.94-1.8x over AVX2's at 4096-262144 elements, most above
            // 1.05, `make bench-levels`; into the 32-bit integers,
            // `native`'s maps, below.)
            {
                use avx2::Four;
                use steps::*;
                pairs!(t, k_lanes<Four>, Side;
                    // Over the AVX512-VBMI lookup, on an AMD Zen 4 host
                    // (4096 / 16384 / 131072 elements): 1.66x / 1.36x /
                    // 1.25-1.27x (20.2 -> 27.4 Gelem/s at 16384), 1.0x at
                    // 1048576; AVX-512's lanes ran 0.69-0.89x of these.
                    [I8In<true>, I8In<false>] => [F16Out];
                );
            }
            // The integers and bool among themselves as at AVX2 (their
            // lanes go through float32: 2-10x slower), but the whole
            // kernels' pairs (`patch`) keep those.
            native::replace_lanes::<true>(&mut t);
            avx512::patch(&mut t, vbmi, bf16);
            native::fill::<true>(&mut t);
            // `AVX2_PAIRS`: AVX2's kernels.
            let avx2 = build_for(Isa::Avx2, vbmi, bf16);
            for (s, d) in AVX2_PAIRS {
                let k = avx2.get(s as usize).and_then(|row| row.get(d as usize));
                if let Some(&Some(k)) = k {
                    set(&mut t, s, d, k);
                }
            }
            set(
                &mut t,
                crate::ffi::NX_FLOAT32,
                crate::ffi::NX_FLOAT16,
                f32_f16_avx512,
            );
        }
        Isa::Avx2 => {
            lane_pairs!(t, avx2::Four, avx2::Words);
            // The 64-bit integers with the formats no machine type holds
            // (the others: `native`, which saturates integers without
            // going through float32).
            {
                use steps::*;
                pairs!(t, k_lanes<avx2::Four>, Side;
                    [I64Odd<true>, I64Odd<false>] =>
                        [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I4Out, U4Out, BitOut];
                    [F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I4In<true>, I4In<false>,
                     BitIn] => [I64Out<true>, I64Out<false>];
                );
            }
            // Decoded into float16 or bfloat16 codes by table lookups,
            // without the float32 conversions of the lanes above: 1.7-2.5x
            // for the 4-bit sources, 1.2-1.4x for float8_e4m3fn (`make
            // bench-levels`, 16384-65536 elements). Not float8_e5m2 (a
            // shift to float16, then VCVTPH2PS, is cheaper) nor float32
            // destinations (the conversions cost no more than the shifts).
            {
                use steps::*;
                pairs!(t, k_lanes<avx2::Words>, Side;
                    [I4In<true>, I4In<false>, E2m1In] => [F16Out]);
                pairs!(t, k_lanes<avx2::Bf16Words>, Side;
                    [I4In<true>, I4In<false>, E2m1In, E4m3In] => [Bf16Out]);
            }
            // bit with the dtypes of 8 and 4 bits by masks (`bits.rs`), and
            // into bit from those of 16 to 64 bits but float32 and
            // complex64 (0.77-0.98x, `make bench-levels`). bool into them
            // too, over its lanes (16384 and 131072 elements): into float8
            // 10-15x (3.7 -> 54 Gelem/s, where the scalar reference gave
            // 47-63), float4_e2m1fn 5.2-5.8x, int4 and uint4 2.2x, float16
            // 1.3-1.4x, bfloat16 1.9-2.1x (the integers of 8 and 16 bits:
            // `native`'s maps, below). And bit into the 16-bit dtypes
            // (1.6-2.7x).
            {
                use crate::ffi::*;
                use steps::dtype_bits;
                // `from_truth2::<S, D>` for `S -> D`, each D listed;
                // `to_bit2::<S>` for each `S -> bit`.
                macro_rules! masks {
                    ($k:ident, $s:ident -> $($d:ident)*) => {$({
                        entry!(e, bits::$k[{ $s }, { $d }], dtype_bits($s), dtype_bits($d), MXCSR_RN);
                        set(&mut t, $s, $d, e);
                    })*};
                    ($k:ident, $($s:ident)* -> $d:ident) => {$({
                        entry!(e, bits::$k[{ $s }], dtype_bits($s), dtype_bits($d), MXCSR_RN);
                        set(&mut t, $s, $d, e);
                    })*};
                }
                masks!(from_truth2, NX_BIT -> NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT8
                    NX_UINT8 NX_INT4 NX_UINT4 NX_BOOL NX_FLOAT16 NX_BFLOAT16 NX_INT16 NX_UINT16);
                masks!(to_bit2, NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT8 NX_UINT8
                    NX_INT4 NX_UINT4 NX_BOOL NX_FLOAT16 NX_BFLOAT16 NX_INT16 NX_UINT16 NX_INT32
                    NX_UINT32 NX_FLOAT64 NX_INT64 NX_UINT64 -> NX_BIT);
                masks!(from_truth2, NX_BOOL -> NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN
                    NX_INT4 NX_UINT4 NX_FLOAT16 NX_BFLOAT16);
            }
            native::fill::<false>(&mut t);
            native::replace_lanes::<false>(&mut t);
            // The pairs whose AVX2 kernels ran below the scalar reference
            // (`make bench-levels`, AMD Zen 4, 16384 elements: 0.31-0.79x)
            // take the reference: into and from the 64-bit integers, which
            // the AVX2 lanes reach through float64 pieces, where the
            // reference looks an 8- or 4-bit source up by byte; and two of
            // `native`'s maps.
            {
                use crate::ffi::*;
                macro_rules! referred {
                    ($($s:ident -> $($d:ident)*;)*) => {$($(
                        set(&mut t, $s, $d, reference::<$s, $d>);
                    )*)*};
                }
                referred! {
                    NX_BIT -> NX_INT64 NX_UINT64;
                    NX_INT4 -> NX_INT64 NX_UINT64 NX_FLOAT8_E4M3FN;
                    NX_UINT4 -> NX_INT64 NX_UINT64;
                    NX_FLOAT4_E2M1FN -> NX_INT64 NX_UINT64 NX_FLOAT8_E4M3FN;
                    NX_FLOAT8_E4M3FN -> NX_INT64 NX_UINT64;
                    NX_FLOAT8_E5M2 -> NX_INT64 NX_UINT64;
                    NX_INT64 -> NX_INT4 NX_UINT4;
                    NX_UINT64 -> NX_INT4 NX_UINT4 NX_UINT8;
                    NX_INT16 -> NX_BOOL;
                    NX_UINT16 -> NX_BOOL;
                }
            }
        }
        Isa::Scalar => {}
    }
    t
}

static AVX2: OnceLock<Table> = OnceLock::new();
static AVX512: OnceLock<Table> = OnceLock::new();

/// The SIMD kernel for `s -> d` at `isa`, if it has one (`isa` supported).
pub fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<SimdKernel> {
    let t = match isa {
        Isa::Avx2 => AVX2.get_or_init(|| build(Isa::Avx2)),
        Isa::Avx512 => AVX512.get_or_init(|| build(Isa::Avx512)),
        Isa::Scalar => return None,
    };
    *t.get(s.code() as usize)?.get(d.code() as usize)?
}

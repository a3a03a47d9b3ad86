//! x86-64 SIMD kernels, beside the scalar reference they are tested against.
//!
//! The generic kernel is one loop, `run::<S, D>`: widen a block of source
//! elements exactly to float32 bits (`Src`), then round them once into the
//! destination (`Dst`), with the element maps of `lanes.rs` (integer
//! arithmetic, immune to MXCSR). The loop is compiled once per level under
//! `#[target_feature]`, so the compiler vectorizes it with that level's
//! instructions; only the 32-bit integer sources still use it.
//! Hand-written kernels do the rest: at the AVX2 level every pair among the
//! formats of at most 32 bits, the small integers and bool, and float64
//! into them (`avx2.rs`). The AVX-512 level starts from the AVX2 level's
//! table (every AVX-512 CPU runs it) and puts its own kernels over it where
//! they are faster (`patch512::patch`, `avx512.rs`). The dispatch table is
//! built once per level.
//!
//! Every SIMD kernel runs under an MXCSR the kernel names (`call`): every
//! exception masked, no FTZ/DAZ, round to nearest (or toward zero), so a
//! caller's floating-point environment changes no result and traps nothing;
//! the caller's MXCSR, flags included, is back when the call returns.
//!
//! Large calls: every kernel comes in two forms, ordinary stores and
//! non-temporal ones (`Store`, chosen per call by the driver), and a call
//! reading at least `PREFETCH_MIN` bytes prefetches its source ahead.

mod avx2;
mod avx512;
pub mod lanes;
mod patch512;

use super::{Isa, SimdKernel, Store};
use crate::format::{E2M1FN, E4M3FN, E5M2, F16};
use crate::table::{Dtype, COUNT};
use std::arch::x86_64::*;
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

/// Elements per block: a multiple of 8 (whole bytes of 1- and 4-bit
/// elements) and of every vector width.
const B: usize = 64;

/// A source dtype: `BITS` per element; `dec` widens the `B` elements at `p`
/// to float32 bits (exactly, or rounded to odd / nearest where noted).
trait Src {
    const DT: i32;
    const BITS: usize;
    /// # Safety
    /// `p` is readable for `B * BITS / 8` bytes.
    unsafe fn dec(p: *const u8, out: &mut [u32; B]);
}

/// A destination dtype: `enc` rounds `B` float32 bits once into `BITS`-bit
/// elements at `p`.
trait Dst {
    const DT: i32;
    const BITS: usize;
    /// # Safety
    /// `p` is writable for `B * BITS / 8` bytes.
    unsafe fn enc(lanes: &[u32; B], p: *mut u8);
}

/// Sources of whole bytes: `$t` read little-endian, mapped by `$f`.
macro_rules! src_bytes {
    ($name:ident, $dt:expr, $t:ty, $f:expr) => {
        struct $name;
        impl Src for $name {
            const DT: i32 = $dt;
            const BITS: usize = 8 * size_of::<$t>();
            #[inline(always)]
            unsafe fn dec(p: *const u8, out: &mut [u32; B]) {
                let p = p.cast::<$t>();
                for (j, o) in out.iter_mut().enumerate() {
                    // SAFETY: j < B, within the caller's B elements; no
                    // alignment is assumed.
                    let v = unsafe { p.add(j).read_unaligned() };
                    *o = $f(<$t>::from_le(v));
                }
            }
        }
    };
}

macro_rules! dst_bytes {
    ($name:ident, $dt:expr, $t:ty, $f:expr) => {
        struct $name;
        impl Dst for $name {
            const DT: i32 = $dt;
            const BITS: usize = 8 * size_of::<$t>();
            #[inline(always)]
            unsafe fn enc(lanes: &[u32; B], p: *mut u8) {
                let p = p.cast::<$t>();
                for (j, &a) in lanes.iter().enumerate() {
                    let v: $t = $f(a);
                    // SAFETY: j < B, within the caller's B elements.
                    unsafe { p.add(j).write_unaligned(v.to_le()) };
                }
            }
        }
    };
}

macro_rules! dst_nibbles {
    ($name:ident, $dt:expr, $f:expr) => {
        struct $name;
        impl Dst for $name {
            const DT: i32 = $dt;
            const BITS: usize = 4;
            #[inline(always)]
            unsafe fn enc(lanes: &[u32; B], p: *mut u8) {
                for (j, pair) in lanes.chunks_exact(2).enumerate() {
                    if let [lo, hi] = pair {
                        let b = ($f(*lo) & 15) | (($f(*hi) & 15) << 4);
                        // SAFETY: j < B / 2, within the caller's B / 2 bytes.
                        unsafe { p.add(j).write(b as u8) };
                    }
                }
            }
        }
    };
}

use lanes::{enc, enc_bf16, int_to_f32, to_int};

// Too wide for float32: rounded to odd (then once more, correctly, by the
// destination), or to nearest-even when float32 is the destination.
src_bytes!(I32Odd, 9, i32, |v: i32| int_to_f32(
    v < 0,
    v.unsigned_abs(),
    true
));
src_bytes!(I32Near, 9, i32, |v: i32| int_to_f32(
    v < 0,
    v.unsigned_abs(),
    false
));
src_bytes!(U32Odd, 10, u32, |v: u32| int_to_f32(false, v, true));
src_bytes!(U32Near, 10, u32, |v: u32| int_to_f32(false, v, false));

dst_bytes!(F32Out, 1, u32, |a: u32| a);
dst_bytes!(F16Out, 2, u16, |a: u32| enc(F16, a) as u16);
dst_bytes!(Bf16Out, 3, u16, |a: u32| enc_bf16(a) as u16);
dst_bytes!(E4m3Out, 4, u8, |a: u32| enc(E4M3FN, a) as u8);
dst_bytes!(E5m2Out, 5, u8, |a: u32| enc(E5M2, a) as u8);
dst_nibbles!(E2m1Out, 6, |a: u32| enc(E2M1FN, a));
dst_bytes!(I16Out, 11, i16, |a: u32| to_int(a, -32768, 32767) as i16);
dst_bytes!(U16Out, 12, u16, |a: u32| to_int(a, 0, 65535) as u16);
dst_bytes!(I8Out, 13, i8, |a: u32| to_int(a, -128, 127) as i8);
dst_bytes!(U8Out, 14, u8, |a: u32| to_int(a, 0, 255) as u8);
dst_nibbles!(I4Out, 15, |a: u32| to_int(a, -8, 7) as u32);
dst_nibbles!(U4Out, 16, |a: u32| to_int(a, 0, 15) as u32);
// NaN is not zero: any bit but the sign set.
dst_bytes!(BoolOut, 19, u8, |a: u32| u8::from(a << 1 != 0));

/// The kernel body: whole blocks in place, the last partial block through
/// stack buffers (reading and writing only the caller's bytes). Streaming
/// (`NT`), a whole block is encoded into a buffer first and copied out with
/// non-temporal stores (a block's bytes are a multiple of 32, so with `dst`
/// 64-byte aligned every copy is aligned).
///
/// # Safety
/// `src` is readable for ceil(n * S::BITS / 8) bytes, `dst` writable for
/// ceil(n * D::BITS / 8) bytes (and 64-byte aligned when `NT`), and the CPU
/// has the caller's features (AVX2 at least).
#[inline(always)]
unsafe fn run<S: Src, D: Dst, const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let mut lanes = [0u32; B];
    // Only streaming reads it (else the compiler drops it).
    let mut nbuf = [0u8; B * 8];
    let (sb, db) = (B * S::BITS / 8, B * D::BITS / 8);
    let full = n / B;
    let mut pf = prefetch_from(full * sb);
    for k in 0..full {
        prefetch_ahead(src, &mut pf, (k + 1) * sb);
        // SAFETY: block k lies within the first n elements of both arrays;
        // `nbuf` holds a whole block of any width.
        unsafe {
            S::dec(src.add(k * sb), &mut lanes);
            if NT {
                D::enc(&lanes, nbuf.as_mut_ptr());
                for j in (0..db).step_by(32) {
                    let v = _mm256_loadu_si256(nbuf.as_ptr().add(j).cast());
                    put256::<true>(dst.add(k * db + j), v);
                }
            } else {
                D::enc(&lanes, dst.add(k * db));
            }
        }
    }
    let rest = n - full * B;
    if rest > 0 {
        let mut sbuf = [0u8; B * 8];
        let mut dbuf = [0u8; B * 8];
        let (sl, dl) = ((rest * S::BITS).div_ceil(8), (rest * D::BITS).div_ceil(8));
        // SAFETY: sl and dl bytes remain in the caller's arrays past the
        // full blocks; the buffers hold a whole block of either width.
        unsafe {
            std::ptr::copy_nonoverlapping(src.add(full * sb), sbuf.as_mut_ptr(), sl);
            S::dec(sbuf.as_ptr(), &mut lanes);
            D::enc(&lanes, dbuf.as_mut_ptr());
            std::ptr::copy_nonoverlapping(dbuf.as_ptr(), dst.add(full * db), dl);
        }
    }
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

#[target_feature(enable = "avx2,f16c,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_avx2<S: Src, D: Dst, const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { run::<S, D, NT>(src, dst, n) }
}

#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,bmi1,bmi2,lzcnt,popcnt"
)]
unsafe fn run_avx512<S: Src, D: Dst, const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { run::<S, D, NT>(src, dst, n) }
}

/// A raw kernel: `n` elements from `src` into `dst` (see `run`).
type Raw = unsafe fn(*const u8, *mut u8, usize);

/// MXCSR for the kernels: every exception masked, no FTZ or DAZ, and round
/// to nearest-even (`MXCSR_RN`) or toward zero (`MXCSR_RZ`).
pub(crate) const MXCSR_RN: u32 = 0x1F80;
pub(crate) const MXCSR_RZ: u32 = 0x7F80;
/// Flush to zero: float32 results below the normals become zeros of their sign.
pub(crate) const FTZ: u32 = 1 << 15;

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
/// flags included, restored after): `stream` (its non-temporal form) when
/// `store` asks for it and `dst` is 64-byte aligned, else `plain`.
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
    store: Store,
    bits: (usize, usize),
    env: u32,
    plain: Raw,
    stream: Raw,
) {
    let (sb, db) = bits;
    if src.len() >= (n * sb).div_ceil(8) && dst.len() >= (n * db).div_ceil(8) {
        let nt = store == Store::Stream && (dst.as_ptr() as usize).is_multiple_of(64);
        let k = if nt { stream } else { plain };
        let caller = mxcsr();
        if caller != env {
            set_mxcsr(env);
        }
        // SAFETY: the lengths were checked, and the alignment for
        // streaming; the CPU features are the caller's promise. The kernel
        // is reached through a pointer, so no float operation of it moves
        // across the MXCSR writes.
        unsafe { k(src.as_ptr(), dst.as_mut_ptr(), n) }
        if mxcsr() != caller {
            set_mxcsr(caller);
        }
    }
}

/// A safe table entry for a raw kernel `$f::<NT>` of `$sb` -> `$db` bits per
/// element, put only in the table of a level whose CPU features it needs.
macro_rules! entry {
    // `[args]`: the kernel's leading generic arguments, before the store
    // form's.
    ($name:ident, $($f:ident)::+ $([$($g:tt),*])?, $sb:expr, $db:expr) => {
        fn $name(src: &[u8], dst: &mut [u8], n: usize, store: $crate::kernels::Store) {
            // SAFETY: the two forms of one kernel; the table holding this
            // entry is built for CPUs with the features it needs.
            unsafe {
                $crate::kernels::x86::call(src, dst, n, store, ($sb, $db), $crate::kernels::x86::MXCSR_RN, $($f)::+::<$($($g,)*)? false>, $($f)::+::<$($($g,)*)? true>)
            }
        }
    };
}
use entry;

fn k_avx2<S: Src, D: Dst>(src: &[u8], dst: &mut [u8], n: usize, store: Store) {
    let (a, b): (Raw, Raw) = (run_avx2::<S, D, false>, run_avx2::<S, D, true>);
    // SAFETY: only handed out by `table(Isa::Avx2)`, built for CPUs with
    // AVX2 (`has_avx2`).
    unsafe { call(src, dst, n, store, (S::BITS, D::BITS), MXCSR_RN, a, b) }
}

/// A hand-written AVX2 kernel (`avx2.rs`) meeting in lanes `L`.
fn k_lanes<L, S: avx2::VSrc<L>, D: avx2::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    store: Store,
) {
    let (a, b): (Raw, Raw) = (avx2::run::<L, S, D, false>, avx2::run::<L, S, D, true>);
    let env = S::MXCSR | D::MXCSR_OR;
    // SAFETY: only handed out by `table(Isa::Avx2)`, built for CPUs with
    // AVX2 and F16C (`has_avx2`).
    unsafe { call(src, dst, n, store, (S::BITS, D::BITS), env, a, b) }
}

/// `k_lanes` in float32 lanes, the pairs that meet there (a source or
/// destination may have both forms, so `pairs!` names the lanes through
/// the function).
fn k_vec<S: avx2::VSrc, D: avx2::VDst>(src: &[u8], dst: &mut [u8], n: usize, store: Store) {
    k_lanes::<avx2::Four, S, D>(src, dst, n, store)
}

/// `k_lanes` in float16 codes (`avx2::Words`).
fn k_words<S: avx2::VSrc<avx2::Words>, D: avx2::VDst<avx2::Words>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    store: Store,
) {
    k_lanes::<avx2::Words, S, D>(src, dst, n, store)
}

fn k_avx512<S: Src, D: Dst>(src: &[u8], dst: &mut [u8], n: usize, store: Store) {
    let (a, b): (Raw, Raw) = (run_avx512::<S, D, false>, run_avx512::<S, D, true>);
    // SAFETY: as k_avx2, for `has_avx512`.
    unsafe { call(src, dst, n, store, (S::BITS, D::BITS), MXCSR_RN, a, b) }
}

/// Order the non-temporal stores before the call returns.
pub fn stream_end() {
    // SAFETY: sfence has no preconditions (SSE, in the x86-64 baseline).
    unsafe { _mm_sfence() }
}

type Table = [[Option<SimdKernel>; COUNT]; COUNT];

/// Put `$k::<S, D>` in `t` for every `S -> D` of the lists, their dtype
/// codes read through the traits `$src` and `$dst` (pairs of one dtype
/// never reach the table: `Kernel::of` moves them). A later list replaces
/// an earlier one's kernel for the same pair.
macro_rules! pairs {
    ($t:ident, $k:ident, $src:path, $dst:path; $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        $( $( pairs!(@one $t, $k, $src, $dst, $S => $ds); )* )*
    };
    (@one $t:ident, $k:ident, $src:path, $dst:path, $S:ty => [$($D:ty),*]) => {
        $(
            if let Some(cell) = $t
                .get_mut(<$S as $src>::DT as usize)
                .and_then(|row| row.get_mut(<$D as $dst>::DT as usize))
            {
                *cell = Some($k::<$S, $D>);
            }
        )*
    };
}

fn build(isa: Isa) -> Table {
    let mut t: Table = [[None; COUNT]; COUNT];
    match isa {
        // AVX2's kernels (every AVX-512 CPU runs them), the generic kernel
        // compiled for AVX-512 for the 32-bit integer sources, then the
        // hand-written AVX-512 kernels over them (`patch512::patch`).
        Isa::Avx512 => {
            t = build(Isa::Avx2);
            pairs!(t, k_avx512, Src, Dst;
                [I32Odd, U32Odd] =>
                    [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
                     U4Out, BoolOut];
                [I32Near, U32Near] => [F32Out];
            );
            patch512::patch(&mut t);
        }
        // Hand-written kernels (`avx2.rs`) for all but the 32-bit integer
        // sources, which keep the generic one.
        Isa::Avx2 => {
            pairs!(t, k_avx2, Src, Dst;
                [I32Odd, U32Odd] =>
                    [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
                     U4Out, BoolOut];
                [I32Near, U32Near] => [F32Out];
            );
            // (A block of its own: `avx2`'s names would shadow the generic
            // ones above.)
            {
                use avx2::*;
                pairs!(t, k_vec, avx2::VSrc, avx2::VDst;
                    [F32In, F16In, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>, I8In<true>,
                     I8In<false>, I4In<true>, I4In<false>, BoolIn] =>
                        [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out,
                         U8Out, I4Out, U4Out, BoolOut];
                    [Bf16In<true>] => [F32Out];
                    [Bf16In<false>] =>
                        [F64Out, F16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
                         U4Out, BoolOut];
                    // Sources whose values are all bfloat16 values.
                    [E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn] =>
                        [Bf16Top];
                    [F64Fold<29>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
                    [F64Fold<47>] => [E4m3Folded];
                    [F64Fold<48>] => [E5m2Folded];
                    [F64Fold<49>] => [E2m1Folded];
                    [F64Fold<40>] => [Bf16Out];
                    [F64Odd] => [BoolOut];
                    [F64Near] => [F32Out];
                );
                pairs!(t, k_words, avx2::VSrc<Words>, avx2::VDst<Words>;
                    [F16In] => [E5m2Out];
                    [E5m2In, E4m3In] => [F16Out];
                );
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

/// How far ahead of the conversion the source is prefetched (bytes), in
/// calls reading at least `PREFETCH_MIN` bytes. The hardware prefetchers
/// alone left a conversion reading DRAM well below the core's read
/// bandwidth (float32 -> float4_e2m1fn at 256 MiB: 1.9 against 3.2 Gelem/s
/// with this; float64 -> float8_e4m3fn 1.1 against 1.6); a source in L1 or
/// L2 needs no help, and a short call would pay for the first prefetches.
const PREFETCH: usize = 2048;
const PREFETCH_MIN: usize = 512 << 10;

/// The first argument of `prefetch_ahead` for a call reading `bytes`.
#[inline(always)]
fn prefetch_from(bytes: usize) -> usize {
    if bytes >= PREFETCH_MIN {
        0
    } else {
        usize::MAX // never: nothing to prefetch
    }
}

/// Prefetch the source lines from byte `*done` up to `upto + PREFETCH` of
/// `src` (prefetching never faults, past the end neither).
#[inline(always)]
fn prefetch_ahead(src: *const u8, done: &mut usize, upto: usize) {
    while *done < upto + PREFETCH {
        // SAFETY: a prefetch is a hint that touches no architectural
        // state and never faults (SSE, in the x86-64 baseline).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(*done).cast()) };
        *done += 64;
    }
}

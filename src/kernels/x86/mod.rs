//! x86-64 SIMD kernels, beside the scalar reference they are tested against.
//!
//! Every kernel is one loop, `run::<S, D>`: widen a block of source elements
//! exactly to float32 bits (`Src`), then round them once into the destination
//! (`Dst`), with the element maps of `lanes.rs` (integer arithmetic, immune to
//! MXCSR). The loop is compiled once per level under `#[target_feature]`, so
//! the compiler vectorizes it with that level's instructions (AVX2 ymm,
//! AVX-512 zmm with per-lane variable shifts and masks); float16 uses F16C
//! instead (`f16c.rs`). The dispatch table is built once per level.

mod avx512;
mod f16c;
pub mod lanes;

use super::{Isa, SimdKernel};
use crate::format::{E2M1FN, E4M3FN, E5M2, F16};
use crate::table::{Dtype, COUNT};
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

/// Sources of 4 bits: two per byte, low nibble first.
macro_rules! src_nibbles {
    ($name:ident, $dt:expr, $f:expr) => {
        struct $name;
        impl Src for $name {
            const DT: i32 = $dt;
            const BITS: usize = 4;
            #[inline(always)]
            unsafe fn dec(p: *const u8, out: &mut [u32; B]) {
                for (j, o) in out.chunks_exact_mut(2).enumerate() {
                    // SAFETY: j < B / 2, within the caller's B / 2 bytes.
                    let b = u32::from(unsafe { p.add(j).read() });
                    if let [lo, hi] = o {
                        *lo = $f(b & 15);
                        *hi = $f(b >> 4);
                    }
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

use lanes::{dec, dec_bf16, dec_to_f64, enc, enc_bf16, f64_to_f32, int_to_f32, of_int, to_int};

src_bytes!(F32In, 1, u32, |v: u32| v);
src_bytes!(F16In, 2, u16, |v: u16| dec(F16, v.into()));
src_bytes!(Bf16In, 3, u16, |v: u16| dec_bf16(v.into()));
src_bytes!(E4m3In, 4, u8, |v: u8| dec(E4M3FN, v.into()));
src_bytes!(E5m2In, 5, u8, |v: u8| dec(E5M2, v.into()));
src_nibbles!(E2m1In, 6, |v: u32| dec(E2M1FN, v));
src_bytes!(I16In, 11, i16, |v: i16| of_int(v.into()));
src_bytes!(U16In, 12, u16, |v: u16| of_int(v.into()));
src_bytes!(I8In, 13, i8, |v: i8| of_int(v.into()));
src_bytes!(U8In, 14, u8, |v: u8| of_int(v.into()));
src_nibbles!(I4In, 15, |v: u32| of_int(((v << 28) as i32) >> 28));
src_nibbles!(U4In, 16, |v: u32| of_int(v as i32));
src_bytes!(BoolIn, 19, u8, |v: u8| of_int(i32::from(v != 0)));
// Too wide for float32: rounded to odd (then once more, correctly, by the
// destination), or to nearest-even when float32 is the destination.
src_bytes!(F64Odd, 0, u64, |v: u64| f64_to_f32(v, true));
src_bytes!(F64Near, 0, u64, |v: u64| f64_to_f32(v, false));
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
dst_bytes!(F64Out, 0, u64, dec_to_f64);

/// The kernel body: whole blocks in place, the last partial block through
/// stack buffers (reading and writing only the caller's bytes).
///
/// # Safety
/// `src` is readable for ceil(n * S::BITS / 8) bytes, `dst` writable for
/// ceil(n * D::BITS / 8) bytes, and the CPU has the caller's features.
#[inline(always)]
unsafe fn run<S: Src, D: Dst>(src: *const u8, dst: *mut u8, n: usize) {
    let mut lanes = [0u32; B];
    let (sb, db) = (B * S::BITS / 8, B * D::BITS / 8);
    let full = n / B;
    for k in 0..full {
        // SAFETY: block k lies within the first n elements of both arrays.
        unsafe {
            S::dec(src.add(k * sb), &mut lanes);
            D::enc(&lanes, dst.add(k * db));
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

#[target_feature(enable = "avx2,f16c,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_avx2<S: Src, D: Dst>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { run::<S, D>(src, dst, n) }
}

#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,bmi1,bmi2,lzcnt,popcnt"
)]
unsafe fn run_avx512<S: Src, D: Dst>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded contract.
    unsafe { run::<S, D>(src, dst, n) }
}

/// Whether the slices hold `n` elements of each side.
fn fits<S: Src, D: Dst>(src: &[u8], dst: &[u8], n: usize) -> bool {
    src.len() >= (n * S::BITS).div_ceil(8) && dst.len() >= (n * D::BITS).div_ceil(8)
}

fn k_avx2<S: Src, D: Dst>(src: &[u8], dst: &mut [u8], n: usize) {
    if fits::<S, D>(src, dst, n) {
        // SAFETY: the lengths were checked; this function is only handed
        // out by `table(Isa::Avx2)`, built for CPUs with AVX2 (`has_avx2`).
        unsafe { run_avx2::<S, D>(src.as_ptr(), dst.as_mut_ptr(), n) }
    }
}

fn k_avx512<S: Src, D: Dst>(src: &[u8], dst: &mut [u8], n: usize) {
    if fits::<S, D>(src, dst, n) {
        // SAFETY: as k_avx2, for `has_avx512`.
        unsafe { run_avx512::<S, D>(src.as_ptr(), dst.as_mut_ptr(), n) }
    }
}

/// Copy `src` to `dst` (their common length) with non-temporal stores
/// where `dst` is 64-byte aligned; `stream_end` orders them.
pub fn stream(dst: &mut [u8], src: &[u8], isa: Isa) {
    let len = dst.len().min(src.len());
    let head = dst.as_ptr().align_offset(64).min(len);
    let body = (len - head) / 64 * 64;
    let (d0, d1) = dst.split_at_mut(head);
    let (s0, s1) = src.split_at(head);
    d0.copy_from_slice(s0);
    if isa >= Isa::Avx2 {
        // SAFETY: d1 and s1 hold at least `body` bytes; d1 is 64-byte
        // aligned; the level's features were detected.
        unsafe { stream_avx2(d1.as_mut_ptr(), s1.as_ptr(), body) };
    }
    let done = if isa >= Isa::Avx2 { body } else { 0 };
    let rest = len - head;
    if let (Some(d), Some(s)) = (d1.get_mut(done..rest), s1.get(done..rest)) {
        d.copy_from_slice(s);
    }
}

/// # Safety
/// `dst` (64-byte aligned) and `src` hold `len` bytes, `len` a multiple of
/// 64; the CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn stream_avx2(dst: *mut u8, src: *const u8, len: usize) {
    use std::arch::x86_64::*;
    let mut i = 0;
    while i < len {
        // SAFETY: i + 64 <= len; dst + i is 32-byte aligned.
        unsafe {
            let a = _mm256_loadu_si256(src.add(i).cast());
            let b = _mm256_loadu_si256(src.add(i + 32).cast());
            _mm256_stream_si256(dst.add(i).cast(), a);
            _mm256_stream_si256(dst.add(i + 32).cast(), b);
        }
        i += 64;
    }
}

/// Order the non-temporal stores before the call returns.
pub fn stream_end() {
    // SAFETY: sfence has no preconditions (SSE, in the x86-64 baseline).
    unsafe { std::arch::x86_64::_mm_sfence() }
}

type Table = [[Option<SimdKernel>; COUNT]; COUNT];

/// Fill `t` with every `S -> D` of the lists, at level `isa`.
macro_rules! pairs {
    ($t:ident, $isa:ident; $( [$($S:ident),*] => $ds:tt );* $(;)?) => {
        $( $( pairs!(@one $t, $isa, $S => $ds); )* )*
    };
    (@one $t:ident, $isa:ident, $S:ident => [$($D:ident),*]) => {
        $(
            if let Some(row) = $t.get_mut($S::DT as usize) {
                if let Some(cell) = row.get_mut($D::DT as usize) {
                    *cell = Some(if $isa == Isa::Avx512 { k_avx512::<$S, $D> } else { k_avx2::<$S, $D> });
                }
            }
        )*
    };
}

fn build(isa: Isa) -> Table {
    let mut t: Table = [[None; COUNT]; COUNT];
    pairs!(t, isa;
        [F32In, F16In, Bf16In, E4m3In, E5m2In, E2m1In, I16In, U16In, I8In, U8In, I4In, U4In, BoolIn] =>
            [F32Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
             U4Out, BoolOut, F64Out];
        [F64Odd, I32Odd, U32Odd] =>
            [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out,
             BoolOut];
        [F64Near, I32Near, U32Near] => [F32Out];
    );
    f16c::patch(&mut t, isa);
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

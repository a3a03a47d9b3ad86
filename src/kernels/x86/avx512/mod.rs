//! The AVX-512 level: the forms of the `steps.rs` sides in 512-bit vectors
//! (`steps`, a child module), the rounding they share with the whole
//! kernels here (`narrow16`, `round16`, `narrow_code16`), and the whole
//! kernels that beat the lanes for their pairs (`patch`): float32 ->
//! float8/float4, with AVX512-VBMI bfloat16, float16, float32, float64
//! and the integers of 32 and 64 bits -> float8 in byte lanes
//! (`narrow_bytes`; float16 and float32 into float8_e4m3fn only), 8-bit
//! sources into 16-bit floats and the floats into float4_e2m1fn by
//! lookup (`lookup.rs`), and bit with the others by masks (`bits.rs`).
//!
//! Every kernel runs under the MXCSR `super::call` sets (round to nearest,
//! every exception masked; FTZ and DAZ for the float8 and float4 encoders,
//! which zero only factors and products whose code is a zero anyway, see
//! `narrow16`). The whole kernels are one loop (`each`) over a step of
//! whole vectors and a masked last part, in two forms: `NT` false stores
//! its whole vectors with ordinary stores, `NT` true with non-temporal ones
//! (then the destination is 64-byte aligned and each step's stores are
//! aligned to their width; see `kernels::Store`). Masked stores are always
//! ordinary.

use super::put256;
use crate::codes::{
    NX_BFLOAT16, NX_FLOAT16, NX_FLOAT32, NX_FLOAT64, NX_INT32, NX_INT64, NX_UINT32, NX_UINT64,
};
use crate::format::{Format, Specials, BF16, E2M1FN, E4M3FN, E5M2, F16, F64};
use crate::kernels::lanes::{each, Fetch};
use std::arch::x86_64::*;

pub(super) mod bits;
pub(super) mod lookup;
pub(super) mod steps;
pub(super) mod wide;
pub use steps::{Bf16Codes, Codes, Two};

const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;

/// `v` unchanged, but opaque to the compiler: keeps a narrowing conversion
/// (VPMOV*, VCVTPS2PH) in registers instead of folded into a (masked) store,
/// whose memory forms are microcoded and slow on AMD's Zen 4.
#[inline(always)]
fn reg128(mut v: __m128i) -> __m128i {
    // SAFETY: an empty asm block with `v` in and out: no instruction.
    unsafe {
        std::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}

#[inline]
#[target_feature(enable = "avx2")]
fn reg256(mut v: __m256i) -> __m256i {
    // SAFETY: as `reg128`.
    unsafe {
        std::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}

/// `v` unchanged, but opaque to the compiler (as `reg128`): keeps VPAVGW
/// and the shift after it as two word operations (LLVM otherwise widens the
/// pair to dwords, four times the work).
#[inline]
#[target_feature(enable = "avx512f")]
fn reg512(mut v: __m512i) -> __m512i {
    // SAFETY: as `reg128`.
    unsafe {
        std::arch::asm!("/* {0} */", inout(zmm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}

/// The mask of the first `k` lanes (all 64 from 64 up). A narrower mask
/// takes its low bits: `as u16` is the first min(k, 16) of 16 lanes.
#[inline(always)]
fn first_lanes(k: usize) -> u64 {
    if k >= 64 {
        u64::MAX
    } else {
        (1u64 << k) - 1
    }
}

/// Store 64 bytes at `p`: ordinary, or non-temporal when `NT` (then `p` is
/// 64-byte aligned).
///
/// # Safety
/// `p` is writable for 64 bytes (and aligned when `NT`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put512<const NT: bool>(p: *mut u8, v: __m512i) {
    // SAFETY: forwarded.
    unsafe {
        if NT {
            _mm512_stream_si512(p.cast(), v)
        } else {
            _mm512_storeu_si512(p.cast(), v)
        }
    }
}

/// A step's source vectors: the `sb` vectors of 64 bytes from `p` (64
/// elements of `sb` bytes), then zeros up to 8.
///
/// # Safety
/// `p` is readable for 64 `sb` bytes, `sb` at most 8.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn step_vectors(p: *const u8, sb: usize) -> [__m512i; 8] {
    std::array::from_fn(|k| {
        if k < sb {
            // SAFETY: vector k is within the 64 `sb` bytes.
            unsafe { _mm512_loadu_si512(p.add(64 * k).cast()) }
        } else {
            _mm512_setzero_si512()
        }
    })
}

/// Whether `s` is an integer dtype of 32 or 64 bits (`as_f32`'s).
const fn wide_int(s: i32) -> bool {
    matches!(s, NX_INT32 | NX_UINT32 | NX_INT64 | NX_UINT64)
}

/// The 64 elements of dtype `S` in `v` (`step_vectors`: `S`'s bytes of
/// vectors) as float32, in order, four vectors: float32's own, or
/// integers of 32 or 64 bits converted (`wide::ints_f32`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn as_f32<const S: i32>(v: [__m512i; 8]) -> [__m512i; 4] {
    let [v0, v1, v2, v3, v4, v5, v6, v7] = v;
    match S {
        NX_INT32 | NX_UINT32 => [v0, v1, v2, v3].map(|x| wide::ints_f32::<S>([x, x])),
        NX_INT64 | NX_UINT64 => {
            [[v0, v1], [v2, v3], [v4, v5], [v6, v7]].map(|x| wide::ints_f32::<S>(x))
        }
        _ => [v0, v1, v2, v3],
    }
}

/// `step_vectors` of the first `left` elements alone (masked loads, zeros
/// past them: nothing past them is read).
///
/// # Safety
/// `p` is readable for `left` `sb` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn part_vectors(p: *const u8, sb: usize, left: usize) -> [__m512i; 8] {
    std::array::from_fn(|k| {
        let m = first_lanes((sb * left).saturating_sub(64 * k));
        // SAFETY: the mask keeps the readable bytes.
        unsafe { full::_mm512_maskz_loadu_epi8(m, p.wrapping_add(64 * k).cast()) }
    })
}

/// A vector of 16 lanes (bytes, words or dwords), loaded and stored whole
/// or under a mask of lanes.
trait Lanes16: Copy {
    /// Bytes per lane.
    const W: usize;
    /// # Safety
    /// `p` is readable for the lanes in `m` (all 16: a plain load).
    unsafe fn load(m: u16, p: *const u8) -> Self;
    /// # Safety
    /// `p` is writable for the 16 lanes, and `W * 16`-byte aligned (at
    /// most 64) when `NT`.
    unsafe fn put<const NT: bool>(self, p: *mut u8);
    /// # Safety
    /// `p` is writable for the lanes in `m`.
    unsafe fn put_masked(self, m: u16, p: *mut u8);
}

macro_rules! lanes16 {
    ($t:ty, $w:expr, $load:ident, $put:ident, $store:ident) => {
        impl Lanes16 for $t {
            const W: usize = $w;
            #[inline(always)]
            unsafe fn load(m: u16, p: *const u8) -> Self {
                // SAFETY: forwarded.
                unsafe { full::$load(m, p.cast()) }
            }
            #[inline(always)]
            unsafe fn put<const NT: bool>(self, p: *mut u8) {
                // SAFETY: forwarded.
                unsafe { $put::<NT>(p, self) }
            }
            #[inline(always)]
            unsafe fn put_masked(self, m: u16, p: *mut u8) {
                // SAFETY: forwarded.
                unsafe { full::$store(p.cast(), m, self) }
            }
        }
    };
}
lanes16!(
    __m256i,
    2,
    _mm256_maskz_loadu_epi16,
    put256,
    _mm256_mask_storeu_epi16
);
lanes16!(
    __m512i,
    4,
    _mm512_maskz_loadu_epi32,
    put512,
    _mm512_mask_storeu_epi32
);

/// The kernels that map 16 lanes to 16 lanes: `f` converts 16 source
/// elements (`I`) into 16 destination elements (`O`), `U` vectors a step
/// (independent work in flight: the light maps run faster in cache four at
/// a time).
///
/// # Safety
/// As `super::call`'s kernels.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn map16<I: Lanes16, O: Lanes16, const U: usize, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    f: impl Fn(I) -> O,
    ahead: usize,
) {
    each(
        n,
        16 * U,
        16,
        Fetch::new::<NT>(src, 8 * I::W, ahead),
        |i| {
            for k in (i..i + 16 * U).step_by(16) {
                // SAFETY: lanes k .. k + 16 are within n; the stores are at
                // multiples of their width from the destination.
                unsafe { f(I::load(u16::MAX, src.add(I::W * k))).put::<NT>(dst.add(O::W * k)) }
            }
        },
        |i, left| {
            let m = first_lanes(left) as u16;
            // SAFETY: lanes i .. i + left are within n.
            unsafe { f(I::load(m, src.add(I::W * i))).put_masked(m, dst.add(O::W * i)) }
        },
    );
}

/// A float format of at most 8 bits, as a type (the kernels are compiled
/// once per format, its constants folded in).
pub trait Fmt {
    const F: Format;
}

macro_rules! fmt {
    ($name:ident, $f:expr) => {
        pub struct $name;
        impl Fmt for $name {
            const F: Format = $f;
        }
    };
}
fmt!(E4m3, E4M3FN);
fmt!(E5m2, E5M2);
fmt!(E2m1, E2M1FN);

/// float32 bits rounded to bfloat16 in their top halves: nearest-even on
/// the bits (x + 0x7FFF + bit 16 of x), a NaN quiet keeping its top payload
/// bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn bf16_round(x: __m512i) -> __m512i {
    let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), _mm512_set1_epi32(1));
    let up = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7FFF)), lsb);
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    let nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F80_0000));
    _mm512_mask_or_epi32(up, nan, x, _mm512_set1_epi32(0x0040_0000))
}

/// The bytes of a pack of two vectors (VPACK*, whose 128-bit lane L holds
/// 8 bytes of the first operand's lane L, then 8 of the second's) in
/// order: the first operand's, then the second's.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn packed2(p: __m512i) -> __m512i {
    _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0), p)
}

/// The bytes of a pack of two packs of two (lane L holds 4 bytes of each
/// of the four operands' lane L in turn) in order: the first operand's,
/// then the second's, the third's, the fourth's.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn packed4(p: __m512i) -> __m512i {
    let order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    _mm512_permutexvar_epi32(order, p)
}

/// The two 256-bit halves of `v`, low first.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn halves(v: __m512i) -> [__m256i; 2] {
    [_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v)]
}

/// Two 256-bit halves as one vector.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn join(lo: __m256i, hi: __m256i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// Masked loads and stores that take the plain (faster) instruction when
/// every lane is on, as in all but the last group of a call, and touch no
/// memory when every lane is off.
///
/// A masked access whose vector reaches into a second page, with lanes
/// off there, can take a microcode assist when that page is not readable
/// (or writable) as the first is, which costs a short call more than all
/// its work. Such a vector is moved through the stack instead (at most
/// once a call, in its last group).
mod full {
    use std::arch::x86_64::*;
    use std::mem::size_of;

    /// Whether a vector of `len` bytes at `p` reaches into a second page.
    #[inline(always)]
    fn crosses_page(p: usize, len: usize) -> bool {
        p % 4096 > 4096 - len
    }

    /// The runs of lanes on in `m`: (first lane, count), lowest first (a
    /// call's last group has one, its first lanes).
    #[inline(always)]
    fn runs(mut m: u64) -> impl Iterator<Item = (usize, usize)> {
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            // i < 64, as m has a lane on; i + k <= 64.
            let i = m.trailing_zeros();
            let k = (m >> i).trailing_ones();
            m &= u64::MAX.checked_shl(i + k).unwrap_or(0);
            Some((i as usize, k as usize))
        })
    }

    /// A masked store that is the plain store when every lane is on.
    macro_rules! store {
        ($name:ident, $elem:ty, $mask:ty, $vec:ty, $plain:ident) => {
            /// # Safety
            #[doc = concat!("As `", stringify!($name), "`.")]
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
            pub unsafe fn $name(p: *mut $elem, m: $mask, v: $vec) {
                const N: usize = size_of::<$vec>();
                const W: usize = size_of::<$elem>();
                // SAFETY: forwarded: all lanes on means the whole vector's
                // bytes, and only the lanes on are written, run by run.
                unsafe {
                    if m == <$mask>::MAX {
                        $plain(p.cast(), v)
                    } else if m == 0 {
                        // No lane on: nothing to write.
                    } else if crosses_page(p as usize, N) {
                        let mut tmp = [0u8; N];
                        $plain(tmp.as_mut_ptr().cast(), v);
                        for (i, k) in runs(u64::from(m)) {
                            std::ptr::copy_nonoverlapping(
                                tmp.as_ptr().add(i * W),
                                p.cast::<u8>().add(i * W),
                                k * W,
                            );
                        }
                    } else {
                        std::arch::x86_64::$name(p, m, v)
                    }
                }
            }
        };
    }

    /// A masked (zeroing) load that is the plain load when every lane is on.
    macro_rules! load {
        ($name:ident, $mask:ty, $elem:ty, $vec:ty, $plain:ident) => {
            /// # Safety
            #[doc = concat!("As `", stringify!($name), "`.")]
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
            pub unsafe fn $name(m: $mask, p: *const $elem) -> $vec {
                const N: usize = size_of::<$vec>();
                const W: usize = size_of::<$elem>();
                // SAFETY: forwarded: all lanes on means the whole vector's
                // bytes, and only the lanes on are read, run by run.
                unsafe {
                    if m == <$mask>::MAX {
                        $plain(p.cast())
                    } else if m == 0 {
                        // No lane on: zeros, nothing read.
                        std::mem::zeroed()
                    } else if crosses_page(p as usize, N) {
                        let mut tmp = [0u8; N];
                        for (i, k) in runs(u64::from(m)) {
                            std::ptr::copy_nonoverlapping(
                                p.cast::<u8>().add(i * W),
                                tmp.as_mut_ptr().add(i * W),
                                k * W,
                            );
                        }
                        $plain(tmp.as_ptr().cast())
                    } else {
                        std::arch::x86_64::$name(m, p)
                    }
                }
            }
        };
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn runs_of_lanes() {
            let runs = |m| super::runs(m).collect::<Vec<_>>();
            assert_eq!(runs(0), []);
            assert_eq!(runs(0b111), [(0, 3)]);
            assert_eq!(runs(0b1101_1010), [(1, 1), (3, 2), (6, 2)]);
            assert_eq!(runs(u64::MAX), [(0, 64)]);
            assert_eq!(runs(1 << 63 | 1), [(0, 1), (63, 1)]);
            assert_eq!(runs(u64::MAX << 1), [(1, 63)]);
        }
    }

    store!(
        _mm512_mask_storeu_epi8,
        i8,
        u64,
        __m512i,
        _mm512_storeu_si512
    );
    load!(
        _mm512_maskz_loadu_epi8,
        u64,
        i8,
        __m512i,
        _mm512_loadu_si512
    );
    store!(
        _mm256_mask_storeu_epi16,
        i16,
        u16,
        __m256i,
        _mm256_storeu_si256
    );
    store!(
        _mm256_mask_storeu_epi8,
        i8,
        u32,
        __m256i,
        _mm256_storeu_si256
    );
    store!(
        _mm512_mask_storeu_epi32,
        i32,
        u16,
        __m512i,
        _mm512_storeu_si512
    );
    store!(_mm_mask_storeu_epi8, i8, u16, __m128i, _mm_storeu_si128);
    store!(
        _mm512_mask_storeu_epi64,
        i64,
        u8,
        __m512i,
        _mm512_storeu_si512
    );
    load!(
        _mm512_maskz_loadu_epi64,
        u8,
        i64,
        __m512i,
        _mm512_loadu_si512
    );
    load!(
        _mm256_maskz_loadu_epi16,
        u16,
        i16,
        __m256i,
        _mm256_loadu_si256
    );
    load!(
        _mm512_maskz_loadu_epi32,
        u16,
        i32,
        __m512i,
        _mm512_loadu_si512
    );
}

/// The elements of `fmt` (a float8 or float4) nearest 32 float32 (bits,
/// `x0` then `x1`), one a word lane, through float16, 32 lanes a word
/// operation: x scaled by 2^(bias - 15), which makes `fmt`'s values exactly
/// the float16 values whose low d = 10 - f fraction bits are zero (normal and
/// subnormal alike: the two least normals and subnormal quanta line up),
/// converted toward zero (VCVTPS2PH), the code made odd in the lanes of `odd`
/// (round to odd), then rounded to nearest-even at bit d.
///
/// Why that rounds once: float16 keeps d - 1 >= 6 bits below `fmt`'s round
/// bit in every binade, so x and its float16 rounded to odd lie on the same
/// side of (or both on) every value and midpoint of `fmt` (see
/// `steps::F64Odd`). The odd bit only matters where the code's bits
/// below the round bit are all zero, so `odd` need not be exact: the caller
/// sets it where any of x's fraction bits is set from bit 0 up to float16's
/// bit d - 2 (float32 bits 0 .. 11 + d). For a float16 normal result that
/// is "dropped bits or low code bits set", as needed; for a subnormal one k
/// binades down the dropped bits run to 12 + k, covered while k <= d - 1,
/// and from k = 12 - d (<= d - 1 for every d here) the code is under
/// 2^(11 - k) <= 2^(d - 1) and rounds to zero, odd bit or not, as x must.
/// Scaling is exact unless x scaled is below float32's normals (FTZ/DAZ may
/// then zero it), where the result is the zero of x's sign either way.
///
/// Past float16's range the conversion gives 65504 (infinity for an infinite
/// x): float8_e4m3fn and float4_e2m1fn clamp the code first (to 448 and 6,
/// scaled: they saturate, infinity too); float8_e5m2, float16's exponent
/// range, rounds 65504 up to infinity like every x past its threshold 61440.
/// NaN: float8_e4m3fn's NaN of x's sign; float8_e5m2 keeps the top payload
/// bits, quiet; float4_e2m1fn +0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
fn narrow16(x0: __m512i, x1: __m512i, odd: u32, fmt: Format) -> __m512i {
    let scale = f32::from_bits(((127 + fmt.bias - 15) as u32) << 23);
    let half = |x: __m512i| {
        let x = _mm512_castsi512_ps(x);
        let y = if fmt.bias == 15 {
            x
        } else {
            _mm512_mul_ps(x, _mm512_set1_ps(scale))
        };
        _mm512_cvtps_ph::<RZ>(y)
    };
    let h = join(half(x0), half(x1));
    round16(h, odd, fmt)
}

/// The codes of `fmt` nearest 32 float16 codes `h` made odd in the lanes
/// of `odd` (each rounding as the value it stands for would: exact, or
/// `narrow16`'s truncation), in word lanes. For float8_e5m2 (float16's
/// bias) that is `h` rounded at bit 8; the others come scaled
/// (`narrow16`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn round16(h: __m512i, odd: u32, fmt: Format) -> __m512i {
    let d = 10 - fmt.fraction_bits;
    let a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
    let dv = _mm_cvtsi32_si128(d as i32);
    let sign_at = 16 - fmt.bits();
    // float8_e5m2: the code's top bit is where the sign lands (d = 8): round
    // the bits with the sign (only a NaN could carry into it).
    let ride = sign_at == d;
    let m = if ride {
        h
    } else if fmt.has_infinity() {
        a
    } else {
        _mm512_min_epu16(a, _mm512_set1_epi16((fmt.max_finite_bits() << d) as i16))
    };
    // Nearest-even at bit d: (m + 2^(d-1) - 1 + lsb) >> d, as
    // avg(m, 2^(d-1) - 2 + lsb) >> (d - 1) (VPAVGW adds one more and halves
    // without overflow). The odd bit joins the last kept bit: (m | 1) and m
    // with its last bit taken as 1 round alike at bit d (no carry can reach
    // bit d from the odd bit either way).
    let one = _mm512_set1_epi16(1);
    let last = _mm512_mask_srl_epi16(one, !odd, m, dv);
    let c = _mm512_ternarylogic_epi32::<0xEA>(last, one, _mm512_set1_epi16((1 << (d - 1)) - 2));
    let (v, shr) = (
        reg512(_mm512_avg_epu16(m, c)),
        _mm_cvtsi32_si128(d as i32 - 1),
    );
    let sat = _mm_cvtsi32_si128(sign_at as i32);
    let nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7C00));
    let sign = _mm512_set1_epi16(fmt.sign_mask() as i16);
    // The NaN lanes are merged into the last shifts where they can be.
    match fmt.specials {
        // The sign rode along (`ride`); a NaN keeps its top payload bits.
        Specials::Ieee => {
            let q = _mm512_set1_epi16(1 << (fmt.fraction_bits - 1));
            let r = _mm512_srl_epi16(v, shr);
            _mm512_mask_mov_epi16(r, nan, _mm512_or_si512(_mm512_srl_epi16(h, sat), q))
        }
        Specials::FnNan => {
            let all = _mm512_set1_epi16(fmt.magnitude_mask() as i16);
            let r = _mm512_mask_srl_epi16(all, !nan, v, shr);
            _mm512_ternarylogic_epi32::<0xF8>(r, _mm512_srl_epi16(h, sat), sign)
        }
        // NaN: +0.
        Specials::Finite => {
            let r = _mm512_maskz_srl_epi16(!nan, v, shr);
            _mm512_ternarylogic_epi32::<0xF8>(r, _mm512_maskz_srl_epi16(!nan, h, sat), sign)
        }
    }
}

/// `narrow_code16::<BF, FMT>`'s source and destination formats.
const fn code_formats(bf: bool, fmt: u8) -> (Format, Format) {
    (
        if bf { BF16 } else { F16 },
        crate::kernels::lanes::narrow_format(fmt),
    )
}

/// Where `narrow_code16` of `src` codes into `fmt` starts its table: the
/// exponent field below which every lane rounds to zero (a shift of 16 or
/// more), 0 for float16 (whose 32 fields the table holds whole).
const fn code_base((src, fmt): (Format, Format)) -> i32 {
    let tn = src.bias - fmt.bias + 1;
    let shift = (src.fraction_bits - fmt.fraction_bits) as i32;
    if src.exponent_bits == 5 || tn + shift < 16 {
        0
    } else {
        tn + shift - 16
    }
}

/// `narrow_code16`'s tables, by exponent field e (from `code_base`): the
/// shift, and what to subtract from |h| before it (see there). The
/// infinity field (float16's: bfloat16's is past the table) subtracts
/// nothing, so that infinity rounds past the cap.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn code_tables((src, fmt): (Format, Format)) -> [[u16; 32]; 2] {
    let (m, tn) = (src.fraction_bits, src.bias - fmt.bias + 1);
    let shift = (m - fmt.fraction_bits) as i32;
    let mut t = [[0u16; 32]; 2];
    let mut i = 0;
    while i < 32 {
        let e = code_base((src, fmt)) + i as i32;
        let k = if e < tn { e } else { tn };
        let sh = shift + tn - k;
        let off = if sh >= 16 || e == (1 << src.exponent_bits) - 1 {
            0
        } else {
            ((k - 1) << m) - ((1 << (sh - 1)) - 1)
        };
        t[0][i] = if sh >= 16 { 16 } else { sh as u16 };
        t[1][i] = off as u16;
        i += 1;
    }
    t
}

/// The codes of `fmt` (`NarrowOut`'s format `FMT`) nearest 32 codes `h`
/// of float16 (bfloat16 if `BF`), one a word lane, rounded once in the
/// integers: each lane's code is its value over `fmt`'s quantum in the
/// binade where it lands, rounded to nearest-even by a variable shift
/// (AVX-512 BW's VPSRLVW, which gives 0 for counts past 15), the shift and
/// offset looked up by exponent field (VPERMW, `code_tables`).
///
/// With m = the source's fraction bits, f = `fmt`'s, e a lane's exponent
/// field and tn the field of `fmt`'s least normal binade, k = min(e, tn)
/// and v = |h| - (k - 1) 2^m: for e >= tn that is |h| rebiased, `fmt`'s
/// code times 2^(m - f), so the shift is m - f, and rounding may carry into
/// the exponent as it should; below, v is the significand with its leading
/// bit and each binade down shifts one more, which makes subnormals (the
/// carry out of them gives the least normal) and, from 16 on, zeros. A
/// source subnormal (e = 0) comes out as if its leading bit were set one
/// binade down, wrong but harmless: with tn >= f + 2 (float16 ->
/// float8_e4m3fn and float4_e2m1fn, every bfloat16 source; not float16 ->
/// float8_e5m2, float16's exponent range: `round16`) it lies below half
/// `fmt`'s least subnormal and rounds to 0 either way.
///
/// Nearest-even without the kept bit: with v' = v + 2^(s-1) - 1 (the
/// table's offset folds that in), v' >> s rounds half down and
/// (v' + 1) >> s half up; they differ by one only on a tie, where the even
/// of the two is the half-up result with its last bit cleared. Neither
/// overflows: v' + 1 < 2^16 wherever s < 16.
///
/// Past `fmt`'s range the code comes out above its largest finite one
/// (infinities too): clamped to infinity (float8_e5m2) or saturated. NaN:
/// float8_e5m2 keeps the top payload bits, quiet; float8_e4m3fn gives the
/// NaN of the sign; float4_e2m1fn +0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn narrow_code16<const BF: bool, const FMT: u8>(h: __m512i) -> __m512i {
    let (src, fmt) = code_formats(BF, FMT);
    if src.bias == fmt.bias {
        return round16(h, 0, fmt);
    }
    let [tsh, tpos] = const {
        let (src, fmt) = code_formats(BF, FMT);
        let tn = src.bias - fmt.bias + 1;
        assert!(tn == 1 || tn >= fmt.fraction_bits as i32 + 2);
        code_tables((src, fmt))
    };
    let base = const { code_base(code_formats(BF, FMT)) };
    let (m, f) = (src.fraction_bits, fmt.fraction_bits);
    let w = |k: i32| _mm512_set1_epi16(k as i16);
    // SAFETY: each table is 64 bytes.
    let [tsh, tpos] = [tsh, tpos].map(|t| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) });
    let mv = _mm_cvtsi32_si128(m as i32);
    let a = _mm512_and_si512(h, w(0x7FFF));
    let e = _mm512_srl_epi16(a, mv);
    // bfloat16's fields from `base`, clamped into the table's 32; float16's
    // are the indices.
    let e = if BF {
        _mm512_min_epu16(_mm512_subs_epu16(e, w(base)), w(31))
    } else {
        e
    };
    let v = _mm512_sub_epi16(a, _mm512_permutexvar_epi16(e, tpos));
    let sh = _mm512_permutexvar_epi16(e, tsh);
    let down = _mm512_srlv_epi16(v, sh);
    let up = _mm512_srlv_epi16(_mm512_add_epi16(v, w(1)), sh);
    // up & !((up ^ down) & 1)
    let r = _mm512_ternarylogic_epi32::<0xD0>(up, down, w(1));
    // A NaN: a magnitude above infinity's code.
    let nan = _mm512_cmpgt_epu16_mask(a, w(src.infinity_bits() as i32));
    let cap = if fmt.has_infinity() {
        fmt.infinity_bits()
    } else {
        fmt.max_finite_bits()
    } as i32;
    let sign = w(fmt.sign_mask() as i32);
    let sat = _mm_cvtsi32_si128(16 - fmt.bits() as i32);
    match fmt.specials {
        Specials::Ieee => {
            let q = fmt.infinity_bits() | 1 << (f - 1);
            let payload = _mm512_ternarylogic_epi32::<0xF8>(
                w(q as i32),
                _mm512_srl_epi16(a, _mm_cvtsi32_si128((m - f) as i32)),
                w(fmt.fraction_mask() as i32),
            );
            let r = _mm512_mask_min_epu16(payload, !nan, r, w(cap));
            _mm512_ternarylogic_epi32::<0xF8>(r, _mm512_srl_epi16(h, sat), sign)
        }
        Specials::FnNan => {
            let r = _mm512_mask_min_epu16(w(fmt.magnitude_mask() as i32), !nan, r, w(cap));
            _mm512_ternarylogic_epi32::<0xF8>(r, _mm512_srl_epi16(h, sat), sign)
        }
        // NaN: +0.
        Specials::Finite => {
            let r = _mm512_maskz_min_epu16(!nan, r, w(cap));
            _mm512_ternarylogic_epi32::<0xF8>(r, _mm512_maskz_srl_epi16(!nan, h, sat), sign)
        }
    }
}

/// `narrow_bytes`'s constants for 16-bit codes of `src` into `fmt` (a
/// float8 with NaN): see there.
struct BytePlan {
    /// The bit the bits below it are folded into (sticky).
    fold: u32,
    /// `src`'s infinity: magnitudes above are NaNs.
    inf: u16,
    /// The least magnitude of `src` that rounds to `fmt`'s largest
    /// finite value (no infinity) or to infinity.
    sat: u16,
    /// A NaN's magnitude: `nan | (a & payload)`, which rounds to `fmt`'s NaN
    /// keeping those payload bits.
    nan: u16,
    payload: u16,
    /// `src`'s first binade that can round to a nonzero code, as a
    /// magnitude: subtracted (saturating) before the bytes are taken.
    low: u16,
    /// By the round byte: what the dropped bits take off the truncated code.
    drop: [u8; 64],
    /// By the round byte: the code of the binades below `fmt`'s normals.
    sub: [[u8; 64]; 2],
    /// VPMULTISHIFTQB's bit offsets: the round byte, then the code byte, of
    /// each word.
    ctrl: [u8; 64],
}

/// A magnitude of `src` with `fmt`'s code `code` (exact: `src` has more
/// fraction bits and a wider exponent range than `fmt`'s normals).
const fn code_in(src: Format, fmt: Format, code: u64) -> u16 {
    let (m, f) = (src.fraction_bits, fmt.fraction_bits);
    let e = (code >> f) as i32 - fmt.bias + src.bias;
    ((e as u64) << m | (code & fmt.fraction_mask()) << (m - f)) as u16
}

#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn byte_plan(src: Format, fmt: Format) -> BytePlan {
    let (m, f) = (src.fraction_bits, fmt.fraction_bits);
    assert!(m >= f + 2 && f + 2 <= 7 && fmt.bits() == 8 && fmt.has_nan());
    let fold = m - f - 2;
    // The quantum of fmt's subnormals is 2^(emin - f); half of it is the
    // first binade that can round to a nonzero code, and the f + 1 binades
    // from there lie below fmt's normals.
    let below = (f + 1) as usize;
    let first = fmt.emin() - f as i32 - 1 + src.bias;
    // The round byte's 7 bits (VPERMI2B's index) tell those binades apart.
    assert!(first > 0 && (below as u32) <= 1 << (5 - f));
    let max = code_in(src, fmt, fmt.max_finite_bits());
    let (sat, nan, payload) = if fmt.has_infinity() {
        // The midpoint above the largest finite value, odd: it ties up.
        let q = fmt.infinity_bits() | 1 << (f - 1);
        let p = ((1 << (f - 1)) - 1) << (m - f);
        (max + (1 << (m - f - 1)), code_in(src, fmt, q), p)
    } else {
        (max, code_in(src, fmt, fmt.magnitude_mask()), 0)
    };
    let mut drop = [0u8; 64];
    let mut sub = [[0u8; 64]; 2];
    let mut ctrl = [0u8; 64];
    let mut q = 0;
    while q < 128 {
        // Round byte q: its low f + 2 bits are the fraction's from bit
        // `fold` (lsb, round, sticky at the bottom), its high bits the
        // binade from `first`.
        let (lsb, round, sticky) = ((q >> 2) & 1, (q >> 1) & 1, q & 1);
        if q < 64 {
            drop[q] = (((below - 1) << f) - (round & (sticky | lsb))) as u8;
            ctrl[q] = ((q % 8 / 2 * 16) as u32 + if q % 2 == 0 { fold } else { m - f }) as u8;
        }
        let k = q >> (f + 2);
        if k < below {
            // The value over the subnormal quantum: (2^m + frac) / 2^s.
            let v = 1 << m | (q & ((1 << (f + 2)) - 1)) << fold;
            let s = m as usize + 1 - k;
            let (c, rest, half) = (v >> s, v & ((1 << s) - 1), 1 << (s - 1));
            sub[q / 64][q % 64] =
                (c + (rest > half || (rest == half && c & 1 == 1)) as usize) as u8;
        }
        q += 1;
    }
    // Every code byte fits (the largest, a NaN's, included).
    assert!(((nan | payload) - ((first as u16) << m)) >> (m - f) < 256);
    BytePlan {
        fold,
        inf: src.infinity_bits() as u16,
        sat,
        nan,
        payload,
        low: (first as u16) << m,
        drop,
        sub,
        ctrl,
    }
}

/// `x` with every bit below bit `b` of each `W`-bit lane or'ed into bit b
/// (a sticky bit): the carry of x + 2^b - 1 flips bit b exactly when one
/// of them is set.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn fold_below<const W: u32>(x: __m512i, b: u32) -> __m512i {
    let low = (1u64 << b) - 1;
    let (sum, bit) = match W {
        16 => (
            _mm512_add_epi16(x, _mm512_set1_epi16(low as i16)),
            _mm512_set1_epi16((low + 1) as i16),
        ),
        32 => (
            _mm512_add_epi32(x, _mm512_set1_epi32(low as i32)),
            _mm512_set1_epi32((low + 1) as i32),
        ),
        _ => (
            _mm512_add_epi64(x, _mm512_set1_epi64(low as i64)),
            _mm512_set1_epi64((low + 1) as i64),
        ),
    };
    _mm512_ternarylogic_epi32::<0xF8>(x, sum, bit)
}

/// The top words of 32 dwords (`a` then `b`), in order: one VPERMT2W. Of
/// float32 bits, their top halves (bfloat16 codes, truncated).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn top_words(a: __m512i, b: __m512i) -> __m512i {
    let odd = _mm512_set_epi16(
        63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27, 25, 23, 21, 19,
        17, 15, 13, 11, 9, 7, 5, 3, 1,
    );
    _mm512_permutex2var_epi16(a, odd, b)
}

/// The byte indexes 0, 2, .. 126: VPERMT2B with it takes the even bytes
/// of two vectors (the low bytes of their words), in order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn even_bytes() -> __m512i {
    _mm512_set_epi8(
        126, 124, 122, 120, 118, 116, 114, 112, 110, 108, 106, 104, 102, 100, 98, 96, 94, 92, 90,
        88, 86, 84, 82, 80, 78, 76, 74, 72, 70, 68, 66, 64, 62, 60, 58, 56, 54, 52, 50, 48, 46, 44,
        42, 40, 38, 36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0,
    )
}

/// float64's top 16 bits read as a format of their own: the sign,
/// float64's exponent and the fraction's top four bits. A float64 folded
/// at bit 48 (`fold_below`) has as its top word its value rounded to odd
/// there, in this format, which rounds into a format of at most two
/// fraction bits as the float64 does (round to odd with two bits to
/// spare), float64's exponent range whole: no float32 in between.
pub(super) const F64_TOP: Format = Format::new(11, 4, 1023, Specials::Ieee);

/// float64's bits 47 .. 63 (its exponent and the fraction's top five bits,
/// no sign) read as a format: as `F64_TOP`, for float8_e4m3fn's three
/// fraction bits.
const F64_MID: Format = Format::new(11, 5, 1023, Specials::Ieee);

/// The format of the words `narrow_bytes` reads a source of dtype `s` as,
/// into float8 `f`.
const fn byte_source(s: i32, f: Format) -> Format {
    match s {
        NX_FLOAT16 => F16,
        NX_FLOAT64 if f.fraction_bits + 2 <= F64_TOP.fraction_bits => F64_TOP,
        NX_FLOAT64 => F64_MID,
        _ => BF16,
    }
}

/// The words of 64 float64 (`v`), in order (elements 0 .. 32, then 32 ..
/// 64): their top words (`F64_TOP`), or if `mid` their bits 47 .. 63
/// (`F64_MID`), each folded first at the word's bit `fold` (`fold_below`
/// at the float64 bit under it), and their top words again (the signs).
/// The top words take three operations a 32 (two VPERMT2W and a blend)
/// where truncating to float32 takes four VCVTPD2PS, two inserts and a
/// VPERMT2W.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn f64_words(v: [__m512i; 8], fold: u32, mid: bool) -> ([__m512i; 2], [__m512i; 2]) {
    let word = if mid { F64_MID } else { F64_TOP };
    let b = F64.fraction_bits - word.fraction_bits + fold;
    let [x0, x1, x2, x3, x4, x5, x6, x7] = v.map(|x| fold_below::<64>(x, b));
    if mid {
        // The high dwords, and those shifted up one bit.
        let odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
        let [u0, u1, u2, u3] = [(x0, x1), (x2, x3), (x4, x5), (x6, x7)]
            .map(|(a, b)| _mm512_permutex2var_epi32(a, odd, b));
        let [m0, m1, m2, m3] = [u0, u1, u2, u3].map(|u| _mm512_slli_epi32::<1>(u));
        return (
            [top_words(m0, m1), top_words(m2, m3)],
            [top_words(u0, u1), top_words(u2, u3)],
        );
    }
    // Word 3 of each quadword of two vectors, twice over.
    let top = _mm512_set_epi16(
        63, 59, 55, 51, 47, 43, 39, 35, 31, 27, 23, 19, 15, 11, 7, 3, 63, 59, 55, 51, 47, 43, 39,
        35, 31, 27, 23, 19, 15, 11, 7, 3,
    );
    let four = |a, b, c, d| {
        let lo = _mm512_permutex2var_epi16(a, top, b);
        let hi = _mm512_permutex2var_epi16(c, top, d);
        _mm512_mask_blend_epi16(0xFFFF_0000, lo, hi)
    };
    let h = [four(x0, x1, x2, x3), four(x4, x5, x6, x7)];
    (h, h)
}

/// bfloat16, float16 (into float8_e4m3fn: float16's exponent range is
/// float8_e5m2's), float32, float64 or an integer of 32 or 64 bits read
/// as float32 (`as_f32`) (`S`, its dtype code) ->
/// float8_e4m3fn or float8_e5m2 (`F`), 64 lanes a byte operation
/// (AVX512-VBMI's byte permutes), in place of the word lanes of
/// `narrow_code16`, of float32's roundings through float16 (`to_narrow`)
/// and of float64's lanes through float32 (float64 is read by its words).
/// float32 into e5m2 is slower this way: its kernel stays (BENCHMARKS.md,
/// "Kernel choices").
///
/// In words: a = |h| with the bits below `fold` or'ed into it (a sticky
/// bit), clamped to the least magnitude that saturates (or overflows), a
/// NaN replaced by a magnitude rounding to `F`'s NaN (with its payload
/// bits), then t = a - `low` saturating: the binade from `low` (k) and the
/// fraction (m bits; `F` keeps f). VPMULTISHIFTQB takes two bytes of each
/// t: the code byte c = t >> (m - f) (k 2^f plus the f kept fraction bits:
/// the truncated code, offset by the 2^f codes of each binade below the
/// normals) and the round byte r = t >> `fold` (from the bottom: the sticky
/// bit, the round bit, the kept bits, then k's low bits).
///
/// In bytes, by table: a normal result is c + rounding - offset, where
/// the rounding (nearest-even) needs only r's three low bits (`drop`,
/// VPERMB, subtracted saturating); a result below the normals is looked up
/// by r whole (`sub`, VPERMI2B: k's binade and every bit that decides). The
/// larger of the two is the code: a normal lane's first is at least `F`'s
/// least normal code, which bounds every `sub` entry; below the normals the
/// first is 0 (saturated) but in the top binade, where it rounds the same
/// fraction on a coarser grid than the true code, so no higher (rounding is
/// monotonic). The sign is or'ed back from the source's high bytes.
///
/// A float32 x is read as a bfloat16 with a sticky bit: every bit of x
/// below bit 16 + `fold` or'ed into that bit, its high half taken. That
/// keeps every bit above the sticky, as the bfloat16 fold does, and the
/// sticky (so a NaN whose payload lies below it stays a NaN). A float64 x
/// likewise, in its 64 bits, and read by words with its exponent whole (no
/// float32 in between, so no range to clamp first): into float8_e5m2 its
/// top word (`F64_TOP`, the sticky at bit 48); into float8_e4m3fn, which
/// keeps a fraction bit more, bits 47 .. 63 (`F64_MID`, the sticky at bit
/// 47), the signs taken from the top words apart. Either word is x rounded
/// to odd two bits below `F`'s last, which rounds into `F` as x does.
///
/// # Safety
/// As `super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn narrow_bytes<F: Fmt, const S: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    const { assert!(matches!(S, NX_BFLOAT16 | NX_FLOAT16 | NX_FLOAT32 | NX_FLOAT64) || wide_int(S)) };
    // Steps of 64 a loop turn, all computed before any is stored: two beat
    // one, four do no better than two.
    const U: usize = 2;
    let p = const { byte_plan(byte_source(S, F::F), F::F) };
    // Bytes a source element.
    let sb = const { crate::kernels::lanes::dtype_bits(S) / 8 };
    let w = |k: u16| _mm512_set1_epi16(k as i16);
    let [s0, s1] = p.sub;
    // SAFETY: each table is 64 bytes.
    let [drop, ctrl, sub0, sub1] =
        [p.drop, p.ctrl, s0, s1].map(|t| unsafe { _mm512_loadu_si512(t.as_ptr().cast()) });
    let even = even_bytes();
    let odd = _mm512_add_epi8(even, _mm512_set1_epi8(1));
    // 32 words folded: their magnitudes, each with the bits below `fold`
    // or'ed into it (a sticky bit).
    let folded = |h: __m512i| {
        // (`F64_MID`'s words hold no sign.)
        let a = if const { byte_source(S, F::F).bits() > 16 } {
            h
        } else {
            _mm512_and_si512(h, w(0x7FFF))
        };
        // (float32, float64 and the integers read as float32 are folded
        // before they are narrowed.)
        if sb == 2 {
            fold_below::<16>(a, p.fold)
        } else {
            a
        }
    };
    // The lanes of `a` that are not NaN. (Asked as "not above infinity",
    // LLVM moves the mask past the subtraction: a blend more a step.) An
    // integer read as float32 is
    // never NaN.
    let numbers = |a: __m512i| {
        if const { wide_int(S) } {
            u32::MAX
        } else {
            _mm512_cmplt_epu16_mask(a, w(p.inf + 1))
        }
    };
    // 32 codes' two bytes (round, code) a word, from magnitudes `a` whose
    // lanes `num` are not NaN.
    let bytes = |a: __m512i, num: u32| {
        let nan_to = if p.payload == 0 {
            w(p.nan)
        } else {
            _mm512_ternarylogic_epi32::<0xEA>(a, w(p.payload), w(p.nan))
        };
        let t = _mm512_subs_epu16(_mm512_mask_min_epu16(nan_to, num, a, w(p.sat)), w(p.low));
        _mm512_multishift_epi64_epi8(ctrl, t)
    };
    // 64 codes from two vectors of 32 folded codes, `h0` and `h1`, whose
    // signs are bit 15 of `s0` and `s1`'s words.
    let codes = |h0: __m512i, h1: __m512i, s0: __m512i, s1: __m512i| {
        let (b0, b1) = if const {
            byte_plan(byte_source(S, F::F), F::F).payload != 0
                && crate::kernels::lanes::dtype_bits(S) == 16
        } {
            // A NaN's code keeps payload bits (float8_e5m2): their magnitude
            // (a ternary operation, and a copy of `a` it overwrites) only
            // where the 64 lanes hold a NaN, which pays unless most groups
            // hold one.
            let (a0, a1) = (folded(h0), folded(h1));
            let (n0, n1) = (numbers(a0), numbers(a1));
            if n0 & n1 == u32::MAX {
                (bytes(a0, u32::MAX), bytes(a1, u32::MAX))
            } else {
                (bytes(a0, n0), bytes(a1, n1))
            }
        } else {
            // Each vector through in turn: both folded first, as above, is
            // slower into float8_e4m3fn (the same operations in another
            // order).
            let one = |h| {
                let a = folded(h);
                bytes(a, numbers(a))
            };
            (one(h0), one(h1))
        };
        let r = _mm512_permutex2var_epi8(b0, even, b1);
        let c = _mm512_permutex2var_epi8(b0, odd, b1);
        let normal = _mm512_subs_epu8(c, _mm512_permutexvar_epi8(r, drop));
        let code = _mm512_max_epu8(normal, _mm512_permutex2var_epi8(sub0, r, sub1));
        let high = _mm512_permutex2var_epi8(s0, odd, s1);
        _mm512_ternarylogic_epi32::<0xF8>(code, high, _mm512_set1_epi8(i8::MIN))
    };
    // 64 codes from the vectors `v` read (`sb` of them): 16-bit codes, or
    // float32 (or an integer's, `as_f32`) folded (at float32's bit 16 +
    // `fold`), their high words, or float64 folded and read by its words
    // (`f64_words`).
    let from = |v: [__m512i; 8]| {
        let [v0, v1, ..] = v;
        let ([h0, h1], [s0, s1]) = match S {
            NX_FLOAT64 => f64_words(v, p.fold, const { byte_source(S, F::F).bits() > 16 }),
            _ if S == NX_FLOAT32 || wide_int(S) => {
                let [x0, x1, x2, x3] = as_f32::<S>(v).map(|x| fold_below::<32>(x, 16 + p.fold));
                let h = [top_words(x0, x1), top_words(x2, x3)];
                (h, h)
            }
            _ => ([v0, v1], [v0, v1]),
        };
        codes(h0, h1, s0, s1)
    };
    each(
        n,
        64 * U,
        64,
        Fetch::new::<NT>(src, 8 * sb, ahead),
        |i| {
            // SAFETY: lanes i .. i + 64 U are within n (`sb` vectors of 64
            // bytes a 64); 64-byte stores at multiples of 64 from the
            // destination.
            unsafe {
                let v: [__m512i; U] =
                    std::array::from_fn(|k| from(step_vectors(src.add(sb * (i + 64 * k)), sb)));
                for (k, v) in v.into_iter().enumerate() {
                    put512::<NT>(dst.add(i + 64 * k), v);
                }
            }
        },
        |i, left| {
            // SAFETY: lanes i .. i + left are within n (and their bytes).
            unsafe {
                let v = from(part_vectors(src.add(sb * i), sb, left));
                full::_mm512_mask_storeu_epi8(dst.add(i).cast(), first_lanes(left), v);
            }
        },
    );
}

/// 32 words (each < 16) as 16 bytes of nibbles, low nibble first.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn words_to_nibbles(w: __m512i) -> __m128i {
    _mm512_cvtepi32_epi8(_mm512_madd_epi16(w, _mm512_set1_epi32(0x0010_0001)))
}

/// Bytes (codes of at most 4 bits) paired into nibbles, low first: word j
/// of the result is byte 2j + 16 * byte 2j + 1 (VPMADDUBSW).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn pair_nibbles(b: __m512i) -> __m512i {
    _mm512_maddubs_epi16(b, _mm512_set1_epi16(0x1001))
}

/// float32 -> a float8 or float4 (`narrow16`, 32 lanes a group): bytes,
/// or nibbles two a byte (low nibble first).
///
/// # Safety
/// As `super::call`'s kernels.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn to_narrow<F: Fmt, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let sb = 4;
    // 32 lanes under `m`, as codes in word lanes.
    let words = |m: u32, p: *const u8| {
        let d = 10 - F::F.fraction_bits;
        // SAFETY: the caller's lanes in `m` are readable.
        let (x0, x1) = unsafe {
            (
                full::_mm512_maskz_loadu_epi32(m as u16, p.cast()),
                full::_mm512_maskz_loadu_epi32((m >> 16) as u16, p.wrapping_add(64).cast()),
            )
        };
        let tested = _mm512_set1_epi32(((1u32 << (12 + d)) - 1) as i32);
        let odd = (u32::from(_mm512_test_epi32_mask(x1, tested)) << 16)
            | u32::from(_mm512_test_epi32_mask(x0, tested));
        narrow16(x0, x1, odd, F::F)
    };
    // Word pairs into dwords holding a byte each: low + 16 * high.
    // A step: 64 lanes into 64 bytes (float8: two groups packed, VPACKUSWB,
    // and put back in order), or 128 lanes into 64 bytes (float4: groups
    // packed two by two into bytes, those paired into nibbles, the two
    // results packed). Cheaper than narrowing each group (VPMOVWB, VPMOVDB:
    // two operations each); every code is at most 0xFF, so the packs'
    // saturation changes nothing.
    let nib = F::F.bits() == 4;
    each(
        n,
        if nib { 128 } else { 64 },
        32,
        Fetch::new::<NT>(src, 8 * sb, ahead),
        |i| {
            // SAFETY: lanes i .. i + 64 (float4: 128) are within n; a
            // 64-byte store at a multiple of 64 from the destination.
            unsafe {
                let w = |k: usize| words(u32::MAX, src.add(sb * (i + 32 * k)));
                if nib {
                    let lo = pair_nibbles(_mm512_packus_epi16(w(0), w(1)));
                    let hi = pair_nibbles(_mm512_packus_epi16(w(2), w(3)));
                    let b = packed4(_mm512_packus_epi16(lo, hi));
                    put512::<NT>(dst.add(i / 2), b);
                } else {
                    let b = packed2(_mm512_packus_epi16(w(0), w(1)));
                    put512::<NT>(dst.add(i), b);
                }
            }
        },
        |i, left| {
            let m = first_lanes(left) as u32;
            // SAFETY: lanes i .. i + left are within n (and the bytes
            // that hold them).
            unsafe {
                let w = words(m, src.add(sb * i));
                if nib {
                    let keep = first_lanes(left.div_ceil(2)) as u16;
                    let b = reg128(words_to_nibbles(w));
                    full::_mm_mask_storeu_epi8(dst.add(i / 2).cast(), keep, b);
                } else {
                    let b = reg256(_mm512_cvtepi16_epi8(w));
                    full::_mm256_mask_storeu_epi8(dst.add(i).cast(), m, b);
                }
            }
        },
    );
}

//! The AVX2 + F16C forms of the lanes framework's sides (`kernels::lanes`): decoders and encoders
//! that meet in float32 lanes of 256-bit vectors (`Four`), in float16
//! codes (`Words`) between float16 and float8_e5m2 and from float8_e4m3fn
//! and the 4-bit sources to float16, or in bfloat16 codes (`Bf16Words`)
//! from those to bfloat16, 32 elements a step. The tests hold every pair to
//! the scalar reference.
//!
//! Hardware float conversions are used freely here because every kernel
//! runs under an MXCSR of our choosing (`super::call` sets it and restores
//! the caller's): round to nearest (toward zero for `F64Odd` and
//! `F64Fold`), exceptions masked, and no FTZ or DAZ but for the float8 and
//! float4 encoders (`NarrowOut`). Under it:
//! - VCVTPH2PS and VCVTPS2PD widen exactly, quieting a NaN and keeping its
//!   payload, as SEMANTICS.md's widening does;
//! - VCVTPD2PS rounds to nearest-even, or toward zero for `F64Odd` and
//!   `F64Fold`, a NaN quiet keeping its top payload bits;
//! - VCVTPS2PH takes its rounding from the immediate;
//! - int -> float of at most 24 bits, VCVTTPS2DQ and products by a power of
//!   two are exact (a product that falls below float32's normals only where
//!   the result rounds to zero anyway, see `narrow16`, which is why FTZ may
//!   flush it there, and DAZ zero such a factor: they spare the slow path
//!   such values take, which made bfloat16 -> float8_e4m3fn from random bit
//!   patterns half as fast, and float32 -> float8_e4m3fn of float32
//!   subnormals twenty times slower);
//! - FTZ leaves the conversions alone (VCVTPS2PH still gives float16
//!   subnormals; the kernel tests hold it to that).

use super::{native, put128, put256};
use crate::format::{Format, Specials, BF16, E4M3FN, E5M2, F16};
use crate::kernels::lanes::*;
use crate::kernels::Raw;
use std::arch::x86_64::*;

type V = __m256i;
/// 32 elements as float32 bits, element j in lane j % 8 of vector j / 8:
/// where most pairs meet.
pub type Four = [V; 4];
/// 32 elements as float16 codes, element j in word j % 16 of vector j / 16:
/// where float16 and float8_e5m2 meet (one exponent, so a code of one is a
/// code of the other shifted, and no float32 lanes are needed), and
/// float8_e4m3fn and the 4-bit sources -> float16 (table lookups).
pub type Words = [V; 2];
/// 32 elements as bfloat16 codes, element j in word j % 16 of vector
/// j / 16: where the 4-bit sources and float8_e4m3fn decode into bfloat16
/// without float32 conversions (a table lookup, or a shift and a table).
#[derive(Clone, Copy)]
pub struct Bf16Words([V; 2]);

/// The step loop with this level's features.
///
/// # Safety
/// As `steps`, on a CPU with AVX2, F16C and FMA.
#[target_feature(enable = "avx2,f16c,fma")]
unsafe fn run<L: Lanes, S: VSrc<L>, D: VDst<L>, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { steps::<L, S, D, NT>(src, dst, n, ahead) }
}

impl Lanes for Four {
    const UNROLL: usize = 1;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
}

impl Lanes for Words {
    const UNROLL: usize = 1;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
}

impl Lanes for Bf16Words {
    const UNROLL: usize = 1;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
}

// ------------------------------------------------------------- helpers

/// `v` unchanged, but opaque to the compiler: keeps VPAVGW a VPAVGW (the
/// compiler otherwise merges it with the shift after it into a widening to
/// 32-bit lanes, three times the work).
#[inline]
#[target_feature(enable = "avx2")]
fn opaque(mut v: V) -> V {
    // SAFETY: an empty asm block with `v` in and out: no instruction.
    unsafe {
        std::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}

#[inline]
#[target_feature(enable = "avx2")]
fn join(lo: __m128i, hi: __m128i) -> V {
    _mm256_set_m128i(hi, lo)
}

#[inline]
#[target_feature(enable = "avx2")]
fn splat(v: u32) -> V {
    _mm256_set1_epi32(v as i32)
}

/// float32 bits with a NaN made quiet.
#[inline]
#[target_feature(enable = "avx2")]
fn quiet32(x: V) -> V {
    let nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, splat(0x7FFF_FFFF)), splat(0x7F80_0000));
    _mm256_or_si256(x, _mm256_and_si256(nan, splat(1 << 22)))
}

/// Eight float16 codes (words) as float32 bits, times `scale` (exact: a
/// power of two that keeps every value normal).
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn from_f16(h: __m128i, scale: f32) -> V {
    let x = _mm256_cvtph_ps(h);
    _mm256_castps_si256(if scale == 1.0 {
        x
    } else {
        _mm256_mul_ps(x, _mm256_set1_ps(scale))
    })
}

/// The 32 bytes at `p` widened to words, sixteen a vector.
///
/// # Safety
/// `p` is readable for 32 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn words32(p: *const u8) -> [V; 2] {
    // SAFETY: the caller's 32 bytes.
    let v = unsafe { _mm256_loadu_si256(p.cast()) };
    [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)].map(|b| _mm256_cvtepu8_epi16(b))
}

/// Two vectors of 16 float16 codes as 32 float32 bits, times `scale` (see
/// `from_f16`).
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn from_f16x32(h: [V; 2], scale: f32) -> Four {
    let [a, b] = h;
    let f = |v: __m128i| from_f16(v, scale);
    [
        f(_mm256_castsi256_si128(a)),
        f(_mm256_extracti128_si256::<1>(a)),
        f(_mm256_castsi256_si128(b)),
        f(_mm256_extracti128_si256::<1>(b)),
    ]
}

/// The 32 nibbles at `p` (low nibble first) as bytes, in two vectors of 16.
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn nibbles(p: *const u8) -> [__m128i; 2] {
    // SAFETY: the caller's 16 bytes.
    let v = unsafe { _mm_loadu_si128(p.cast()) };
    let m = _mm_set1_epi8(0x0F);
    let lo = _mm_and_si128(v, m);
    let hi = _mm_and_si128(_mm_srli_epi16::<4>(v), m);
    [_mm_unpacklo_epi8(lo, hi), _mm_unpackhi_epi8(lo, hi)]
}

/// The 32 nibbles at `p` (low nibble first) looked up in a table of 16-bit
/// codes (`nibble_table`: low bytes, high bytes), sixteen words a vector.
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn nibble_words(p: *const u8, t: &[[u8; 16]; 2]) -> [V; 2] {
    // SAFETY: the caller's 16 bytes; each table row is 16 bytes.
    let ([a, b], [lo, hi]) = unsafe {
        (
            nibbles(p),
            t.each_ref()
                .map(|r| _mm256_broadcastsi128_si256(_mm_loadu_si128(r.as_ptr().cast()))),
        )
    };
    // Elements 0-15 in the low 128-bit lane, 16-31 in the high one; the
    // unpacks pair each code's bytes within a lane (elements 0-7 with 16-23,
    // 8-15 with 24-31), the permutes put the halves in order.
    let v = join(a, b);
    let (l, h) = (_mm256_shuffle_epi8(lo, v), _mm256_shuffle_epi8(hi, v));
    let (w0, w1) = (_mm256_unpacklo_epi8(l, h), _mm256_unpackhi_epi8(l, h));
    [
        _mm256_permute2x128_si256::<0x20>(w0, w1),
        _mm256_permute2x128_si256::<0x31>(w0, w1),
    ]
}

/// 32 small integers in bytes (two vectors of 16, signed or not) as float32.
#[inline]
#[target_feature(enable = "avx2")]
fn bytes_to_f32<const SIGNED: bool>(b: [__m128i; 2]) -> Four {
    let w = |v: __m128i| {
        let d = if SIGNED {
            _mm256_cvtepi8_epi32(v)
        } else {
            _mm256_cvtepu8_epi32(v)
        };
        _mm256_castps_si256(_mm256_cvtepi32_ps(d))
    };
    let [a, b] = b;
    [
        w(a),
        w(_mm_srli_si128::<8>(a)),
        w(b),
        w(_mm_srli_si128::<8>(b)),
    ]
}

// ------------------------------------------------------------- sources

impl VSrc<Four> for F32In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 128 bytes.
        std::array::from_fn(|k| unsafe { _mm256_loadu_si256(p.add(32 * k).cast()) })
    }
}

impl VSrc<Four> for F16In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 64 bytes.
        std::array::from_fn(|k| from_f16(unsafe { _mm_loadu_si128(p.add(16 * k).cast()) }, 1.0))
    }
}

impl<const QUIET: bool> VSrc<Four> for Bf16In<QUIET> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        std::array::from_fn(|k| {
            // SAFETY: the caller's 64 bytes.
            let h = unsafe { _mm_loadu_si128(p.add(16 * k).cast()) };
            let x = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h));
            if QUIET {
                quiet32(x)
            } else {
                x
            }
        })
    }
}

impl VSrc<Words> for F16In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Words {
        // SAFETY: the caller's 64 bytes.
        [0, 1].map(|k| unsafe { _mm256_loadu_si256(p.add(32 * k).cast()) })
    }
}

/// float8_e5m2 is float16's top byte: shifted into place, exact.
impl VSrc<Four> for E5m2In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 32 bytes.
        let w = unsafe { words32(p) };
        from_f16x32(w.map(|w| _mm256_slli_epi16::<8>(w)), 1.0)
    }
}
/// As float16 codes, with a NaN made quiet (as VCVTPH2PS would).
impl VSrc<Words> for E5m2In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Words {
        // SAFETY: the caller's 32 bytes.
        let w = unsafe { words32(p) };
        w.map(|w| {
            let h = _mm256_slli_epi16::<8>(w);
            let a = _mm256_and_si256(h, _mm256_set1_epi16(0x7FFF));
            let nan = _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x7C00));
            _mm256_or_si256(h, _mm256_and_si256(nan, _mm256_set1_epi16(0x0200)))
        })
    }
}

/// float8_e4m3fn: the magnitude at float16's bit 7 is a float16 2^8 times
/// too small (normal and subnormal alike); 0x7F and 0xFF are NaN.
impl VSrc<Four> for E4m3In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 32 bytes.
        let w = unsafe { words32(p) };
        let h = w.map(|w| {
            // Sign to bit 15, magnitude to bits 13 .. 7; NaN (magnitude
            // 0x7F) to float16's quiet NaN of its sign, which the product
            // keeps.
            let h = _mm256_and_si256(
                _mm256_srai_epi16::<1>(_mm256_slli_epi16::<8>(w)),
                _mm256_set1_epi16(0xBFFF_u16 as i16),
            );
            let m = _mm256_set1_epi16(0x7F);
            let nan = _mm256_cmpeq_epi16(_mm256_and_si256(w, m), m);
            let q = _mm256_or_si256(
                _mm256_and_si256(h, _mm256_set1_epi16(0x8000_u16 as i16)),
                _mm256_set1_epi16(0x7E00),
            );
            _mm256_blendv_epi8(h, q, nan)
        });
        from_f16x32(h, 256.0)
    }
}

/// As float16 codes, without float32 lanes (whose conversions, two per
/// vector each way, bound the pair): a normal code's magnitude at bit 7 with
/// the exponent rebiased (+8); a subnormal's, M * 2^-9, is a float16 normal
/// whose top byte a table gives (its low byte is 0); NaN, float16's quiet
/// NaN of its sign.
impl VSrc<Words> for E4m3In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Words {
        // Top bytes of the float16 of M * 2^-9, M = 0 ..= 7 (index 8 .. 15
        // never read).
        let top = _mm256_broadcastsi128_si256(_mm_setr_epi8(
            0, 0x18, 0x1C, 0x1E, 0x20, 0x21, 0x22, 0x23, 0, 0, 0, 0, 0, 0, 0, 0,
        ));
        let w16 = _mm256_set1_epi16;
        // SAFETY: the caller's 32 bytes.
        let w = unsafe { words32(p) };
        w.map(|w| {
            let m = _mm256_and_si256(w, w16(0x7F));
            let normal = _mm256_add_epi16(_mm256_slli_epi16::<7>(m), w16(0x2000));
            // The table's byte into the word's top byte (index M there, 0
            // in the low byte, whose entry is 0).
            let sub = _mm256_shuffle_epi8(top, _mm256_slli_epi16::<8>(_mm256_and_si256(w, w16(7))));
            let is_sub = _mm256_cmpeq_epi16(_mm256_and_si256(w, w16(0x78)), _mm256_setzero_si256());
            let h = _mm256_blendv_epi8(normal, sub, is_sub);
            let h = _mm256_blendv_epi8(h, w16(0x7E00), _mm256_cmpeq_epi16(m, w16(0x7F)));
            _mm256_or_si256(
                h,
                _mm256_and_si256(_mm256_slli_epi16::<8>(w), w16(0x8000_u16 as i16)),
            )
        })
    }
}

/// float4_e2m1fn: the code's float16 (a 16-entry table of top bytes) is
/// 2^14 times too small.
impl VSrc<Four> for E2m1In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // Top byte of the float16 (code & 8) << 12 | (code & 7) << 9.
        let table = _mm_setr_epi8(
            0, 2, 4, 6, 8, 10, 12, 14, -128, -126, -124, -122, -120, -118, -116, -114,
        );
        // SAFETY: the caller's 16 bytes.
        let [a, b] = unsafe { nibbles(p) }.map(|e| _mm_shuffle_epi8(table, e));
        let z = _mm_setzero_si128();
        [
            _mm_unpacklo_epi8(z, a),
            _mm_unpackhi_epi8(z, a),
            _mm_unpacklo_epi8(z, b),
            _mm_unpackhi_epi8(z, b),
        ]
        .map(|h| from_f16(h, 16384.0))
    }
}

impl<const SIGNED: bool> VSrc<Four> for I8In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 32 bytes.
        let v = unsafe { _mm256_loadu_si256(p.cast()) };
        bytes_to_f32::<SIGNED>([_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)])
    }
}

impl<const SIGNED: bool> VSrc<Four> for I4In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 16 bytes.
        let b = unsafe { nibbles(p) };
        // Signed: (c ^ 8) - 8 extends bit 3.
        let b = if SIGNED {
            let e = _mm_set1_epi8(8);
            b.map(|v| _mm_sub_epi8(_mm_xor_si128(v, e), e))
        } else {
            b
        };
        bytes_to_f32::<SIGNED>(b)
    }
}

impl<const SIGNED: bool> VSrc<Four> for I16In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        std::array::from_fn(|k| {
            // SAFETY: the caller's 64 bytes.
            let h = unsafe { _mm_loadu_si128(p.add(16 * k).cast()) };
            let d = if SIGNED {
                _mm256_cvtepi16_epi32(h)
            } else {
                _mm256_cvtepu16_epi32(h)
            };
            _mm256_castps_si256(_mm256_cvtepi32_ps(d))
        })
    }
}

impl VSrc<Four> for BoolIn {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 32 bytes.
        let v = unsafe { _mm256_loadu_si256(p.cast()) };
        let one = _mm256_andnot_si256(
            _mm256_cmpeq_epi8(v, _mm256_setzero_si256()),
            _mm256_set1_epi8(1),
        );
        bytes_to_f32::<false>([
            _mm256_castsi256_si128(one),
            _mm256_extracti128_si256::<1>(one),
        ])
    }
}

impl VSrc<Four> for BitIn {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 4 bytes.
        let m = u32::from_le(unsafe { p.cast::<u32>().read_unaligned() });
        let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        std::array::from_fn(|k| {
            let v = _mm256_and_si256(_mm256_set1_epi32((m >> (8 * k)) as i32), bits);
            _mm256_and_si256(_mm256_cmpeq_epi32(v, bits), splat(0x3F80_0000))
        })
    }
}

/// The `k`th four float64 of a step: at `p + 32 k`, or complex128's real
/// parts (`C`) from `p + 64 k`.
///
/// # Safety
/// `p` is readable for the step's bytes (256, or 512 when `C`), k < 8.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn f64x4<const C: bool>(p: *const u8, k: usize) -> __m256d {
    // SAFETY: within the caller's step.
    unsafe {
        if C {
            let a = _mm256_loadu_pd(p.add(64 * k).cast());
            let b = _mm256_loadu_pd(p.add(64 * k + 32).cast());
            // (a0 b0 a2 b2) put in order.
            let e = _mm256_castpd_si256(_mm256_unpacklo_pd(a, b));
            _mm256_castsi256_pd(_mm256_permute4x64_epi64::<0b11_01_10_00>(e))
        } else {
            _mm256_loadu_pd(p.add(32 * k).cast())
        }
    }
}

impl<const C: bool> VSrc<Four> for F64Near<C> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's step.
        let half = |k: usize| unsafe { _mm256_cvtpd_ps(f64x4::<C>(p, k)) };
        std::array::from_fn(|k| _mm256_castps_si256(_mm256_set_m128(half(2 * k + 1), half(2 * k))))
    }
}

impl<const C: bool> VSrc<Four> for F64Odd<C> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        let odd8 = |k: usize| {
            // SAFETY: the caller's step.
            let [a, b] = [0, 1].map(|j| unsafe { f64x4::<C>(p, 2 * k + j) });
            let [ta, tb] = [a, b].map(|x| _mm256_cvtpd_ps(x));
            let ne = |x, t| _mm256_castpd_ps(_mm256_cmp_pd::<_CMP_NEQ_OQ>(_mm256_cvtps_pd(t), x));
            // The low halves of the 64-bit masks, in element order.
            let m = _mm256_shuffle_ps::<0b10_00_10_00>(ne(a, ta), ne(b, tb));
            let m = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(m));
            let t = _mm256_castps_si256(_mm256_set_m128(tb, ta));
            _mm256_or_si256(t, _mm256_and_si256(m, splat(1)))
        };
        std::array::from_fn(odd8)
    }
}

impl<const B: u32, const C: bool> VSrc<Four> for F64Fold<B, C> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        let below = _mm256_set1_epi64x((1 << B) - 1);
        let bit = _mm256_set1_epi64x(1 << B);
        let half = |k: usize| {
            // SAFETY: the caller's step.
            let x = _mm256_castpd_si256(unsafe { f64x4::<C>(p, k) });
            let exact = _mm256_cmpeq_epi64(_mm256_and_si256(x, below), _mm256_setzero_si256());
            let x = _mm256_or_si256(x, _mm256_andnot_si256(exact, bit));
            _mm256_cvtpd_ps(_mm256_castsi256_pd(x))
        };
        std::array::from_fn(|k| _mm256_castps_si256(_mm256_set_m128(half(2 * k + 1), half(2 * k))))
    }
}

impl VSrc<Four> for C128Any {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // Four complex (64 bytes from p + 64 k): 1.0 where a part is
        // nonzero.
        let one = |k: usize| {
            // SAFETY: the caller's 512 bytes.
            let [a, b] = [0, 32].map(|j| unsafe { _mm256_loadu_si256(p.add(64 * k + j).cast()) });
            // Each complex's parts or'ed, complexes in the order 0 2 1 3.
            let x = _mm256_or_si256(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
            let zero = _mm256_cmpeq_epi64(_mm256_slli_epi64::<1>(x), _mm256_setzero_si256());
            // The low dwords of quadwords 0 2 1 3: in order.
            let z = _mm256_permutevar8x32_epi32(zero, _mm256_setr_epi32(0, 4, 2, 6, 0, 0, 0, 0));
            _mm256_castsi256_si128(_mm256_andnot_si256(z, splat(0x3F80_0000)))
        };
        std::array::from_fn(|k| join(one(2 * k), one(2 * k + 1)))
    }
}

impl<const SIGNED: bool> VSrc<Four> for I32Near<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    unsafe fn get(p: *const u8) -> Four {
        std::array::from_fn(|k| {
            // SAFETY: the caller's 128 bytes.
            let x = unsafe { _mm256_loadu_si256(p.add(32 * k).cast()) };
            _mm256_castps_si256(if SIGNED {
                _mm256_cvtepi32_ps(x)
            } else {
                // hi * 2^16 + lo, both exact, rounded once by the FMA.
                let hi = _mm256_cvtepi32_ps(_mm256_srli_epi32::<16>(x));
                let lo = _mm256_cvtepi32_ps(_mm256_and_si256(x, splat(0xFFFF)));
                _mm256_fmadd_ps(hi, _mm256_set1_ps(65536.0), lo)
            })
        })
    }
}

impl<const SIGNED: bool> VSrc<Four> for I32Odd<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    unsafe fn get(p: *const u8) -> Four {
        std::array::from_fn(|k| {
            // SAFETY: the caller's 128 bytes.
            let x = unsafe { _mm256_loadu_si256(p.add(32 * k).cast()) };
            // uint32 from 2^31 (no signed conversion takes it): halved,
            // with the dropped bit kept as a sticky bit (the halved value
            // is at least 2^30, so it sits far below float32's last bit and
            // is exact only where x is), then doubled after, exactly.
            let big = if SIGNED {
                _mm256_setzero_si256()
            } else {
                _mm256_srai_epi32::<31>(x)
            };
            let y = if SIGNED {
                x
            } else {
                let half =
                    _mm256_or_si256(_mm256_srli_epi32::<1>(x), _mm256_and_si256(x, splat(1)));
                _mm256_blendv_epi8(x, half, big)
            };
            let t = _mm256_castps_si256(_mm256_cvtepi32_ps(y));
            let exact = _mm256_cmpeq_epi32(_mm256_cvttps_epi32(_mm256_castsi256_ps(t)), y);
            let t = _mm256_or_si256(t, _mm256_andnot_si256(exact, splat(1)));
            // Doubled: one more in the exponent field.
            _mm256_add_epi32(t, _mm256_and_si256(big, splat(1 << 23)))
        })
    }
}

/// The real parts of 8 complex64 at `p` (64 bytes), in order, as `f` maps
/// each complex64 (its two parts in one quadword).
///
/// # Safety
/// `p` is readable for 64 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn evens(p: *const u8, f: impl Fn(V) -> V) -> V {
    // SAFETY: the caller's 64 bytes.
    let [a, b] = [0, 32].map(|k| f(unsafe { _mm256_loadu_si256(p.add(k).cast()) }));
    // Dwords 0 and 2 of each 128-bit lane of a, then of b: quadwords in the
    // order 0 2 1 3 of the result.
    let e = _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(e))
}

impl VSrc<Four> for C64In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // SAFETY: the caller's 256 bytes.
        std::array::from_fn(|k| quiet32(unsafe { evens(p.add(64 * k), |v| v) }))
    }
}

impl VSrc<Four> for C64Any {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Four {
        // Each quadword's low dword or'ed with its high one.
        let any = |v: V| _mm256_or_si256(v, _mm256_srli_epi64::<32>(v));
        // SAFETY: the caller's 256 bytes.
        std::array::from_fn(|k| unsafe { evens(p.add(64 * k), any) })
    }
}

/// The 4-bit sources as float16 (`Words`) and bfloat16 (`Bf16Words`)
/// codes: a table of each code's, exact (`nibble_code`).
macro_rules! nibble_sources {
    ($($s:ty),*) => {$(
        impl VSrc<Words> for $s {
            #[inline]
            #[target_feature(enable = "avx2,f16c")]
            unsafe fn get(p: *const u8) -> Words {
                // SAFETY: the caller's 16 bytes.
                unsafe { nibble_words(p, &const { nibble_table(<$s>::DT, F16) }) }
            }
        }
        impl VSrc<Bf16Words> for $s {
            #[inline]
            #[target_feature(enable = "avx2,f16c")]
            unsafe fn get(p: *const u8) -> Bf16Words {
                // SAFETY: the caller's 16 bytes.
                Bf16Words(unsafe { nibble_words(p, &const { nibble_table(<$s>::DT, BF16) }) })
            }
        }
    )*};
}
nibble_sources!(I4In<true>, I4In<false>, E2m1In);

/// The bfloat16 codes of the subnormals (and zero) of `fmt` (a float8) as a
/// byte-lookup table for `sub_bf16`: the low byte of fraction field M's at
/// byte M, the high byte at byte M + 8.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn sub_table(fmt: Format) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut m = 0;
    while m < 1 << fmt.fraction_bits {
        let c = widen_code(fmt, m as u32, BF16);
        t[m] = c as u8;
        t[m + 8] = (c >> 8) as u8;
        m += 1;
    }
    t
}

/// Words `w` (float8 codes, < 256) of exponent field 0 in `fmt` as
/// bfloat16 (magnitudes: `sub_table`), whatever the other lanes give.
#[inline]
#[target_feature(enable = "avx2")]
fn sub_bf16(w: V, fmt: Format, t: &[u8; 16]) -> V {
    let w16 = _mm256_set1_epi16;
    // Index M in the low byte, M + 8 in the high one.
    let m = _mm256_and_si256(w, w16(fmt.fraction_mask() as i16));
    let idx = _mm256_or_si256(_mm256_mullo_epi16(m, w16(0x0101)), w16(0x0800));
    // SAFETY: the table is 16 bytes.
    let t = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast())) };
    _mm256_shuffle_epi8(t, idx)
}

/// float8_e4m3fn as bfloat16 codes, exact: a normal's magnitude at bit 4
/// with the exponent rebiased (+120); a subnormal's from a table; NaN,
/// bfloat16's quiet NaN of its sign.
impl VSrc<Bf16Words> for E4m3In {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get(p: *const u8) -> Bf16Words {
        let w16 = _mm256_set1_epi16;
        let t = const { sub_table(E4M3FN) };
        let rebias = ((BF16.bias - E4M3FN.bias) << BF16.fraction_bits) as i16;
        // SAFETY: the caller's 32 bytes.
        let w = unsafe { words32(p) };
        Bf16Words(w.map(|w| {
            let m = _mm256_and_si256(w, w16(0x7F));
            let normal = _mm256_add_epi16(_mm256_slli_epi16::<4>(m), w16(rebias));
            let is_sub = _mm256_cmpgt_epi16(w16(8), m);
            let h = _mm256_blendv_epi8(normal, sub_bf16(w, E4M3FN, &t), is_sub);
            let nan = _mm256_cmpeq_epi16(m, w16(0x7F));
            let h = _mm256_blendv_epi8(h, w16(0x7FC0), nan);
            _mm256_or_si256(
                h,
                _mm256_and_si256(_mm256_slli_epi16::<8>(w), w16(i16::MIN)),
            )
        }))
    }
}

// -------------------------------------------------------- destinations

/// bfloat16 codes stored as they are (every source of these lanes is exact).
impl VDst<Bf16Words> for Bf16Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Bf16Words, p: *mut u8) {
        let [a, b] = x.0;
        // SAFETY: the caller's 64 bytes.
        unsafe {
            put256::<NT>(p, a);
            put256::<NT>(p.add(32), b);
        }
    }
}

impl VDst<Four> for F32Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            // SAFETY: the caller's 128 bytes.
            unsafe { put256::<NT>(p.add(32 * k), v) }
        }
    }
}

impl VDst<Four> for F64Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            let v = _mm256_castsi256_ps(v);
            let lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
            let hi = _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v));
            // SAFETY: the caller's 256 bytes.
            unsafe {
                put256::<NT>(p.add(64 * k), _mm256_castpd_si256(lo));
                put256::<NT>(p.add(64 * k + 32), _mm256_castpd_si256(hi));
            }
        }
    }
}

impl VDst<Four> for F16Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let h = |v: V| _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_castsi256_ps(v));
        let [a, b, c, d] = x;
        // SAFETY: the caller's 64 bytes.
        unsafe {
            put256::<NT>(p, join(h(a), h(b)));
            put256::<NT>(p.add(32), join(h(c), h(d)));
        }
    }
}

impl VDst<Words> for F16Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Words, p: *mut u8) {
        let [a, b] = x;
        // SAFETY: the caller's 64 bytes.
        unsafe {
            put256::<NT>(p, a);
            put256::<NT>(p.add(32), b);
        }
    }
}

/// 16-bit halves of 16 dwords (`a` then `b`, each < 2^16) in order.
#[inline]
#[target_feature(enable = "avx2")]
fn dwords_to_words(a: V, b: V) -> V {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b))
}

/// On the integer bits: x + 0x7FFF + (bit 16 of x), the top half; a NaN
/// keeps its top payload bits, quiet.
impl VDst<Four> for Bf16Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let r = |a: V| {
            let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(a), splat(1));
            let up = _mm256_add_epi32(a, _mm256_add_epi32(lsb, splat(0x7FFF)));
            let nan =
                _mm256_cmpgt_epi32(_mm256_and_si256(a, splat(0x7FFF_FFFF)), splat(0x7F80_0000));
            let q = _mm256_or_si256(a, splat(0x0040_0000));
            _mm256_srli_epi32::<16>(_mm256_blendv_epi8(up, q, nan))
        };
        let [a, b, c, d] = x;
        // SAFETY: the caller's 64 bytes.
        unsafe {
            put256::<NT>(p, dwords_to_words(r(a), r(b)));
            put256::<NT>(p.add(32), dwords_to_words(r(c), r(d)));
        }
    }
}

impl VDst<Four> for Bf16Top {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let [a, b, c, d] = x.map(|v| _mm256_srli_epi32::<16>(v));
        // SAFETY: the caller's 64 bytes.
        unsafe {
            put256::<NT>(p, dwords_to_words(a, b));
            put256::<NT>(p.add(32), dwords_to_words(c, d));
        }
    }
}

/// The codes of `fmt` (a float8 or float4) nearest 16 float32 (`x0` then
/// `x1`), in word lanes, through float16: `avx512::narrow16`'s method (its
/// comment has the proof of the single rounding), 16 lanes a word
/// operation, with one change: instead of a mask of the lanes to round to
/// odd, the sticky bit is folded into x itself before the conversion. Bit
/// 11 + d of x (float16's code bit d - 2 in the normal range, d - 2 - k for
/// a subnormal result k binades down) is set where any bit below it is:
/// for k <= d - 2 it lands below the code's round bit d - 1 and rounds as
/// the bits it stands for would; from k = d - 1 >= 12 - d on the code
/// rounds to zero with or without it (`avx512::narrow16`). NaNs stay NaNs
/// (the bit is under the payload bits kept), infinities have no bit to set.
///
/// `folded`: x comes folded already (`F64Fold<{40 + d}>`, whose bit is this
/// bit: where float32 is normal, the same x but for bit 0, which no float16
/// keeps; below, a zero either way), and the fold is skipped.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn narrow16(x0: V, x1: V, fmt: Format, folded: bool) -> V {
    let d = 10 - fmt.fraction_bits;
    let scale = f32::from_bits(((127 + fmt.bias - 15) as u32) << 23);
    let below = splat((1 << (11 + d)) - 1);
    let half = |x: V| {
        let x = _mm256_castsi256_ps(if folded {
            x
        } else {
            let sticky = _mm256_and_si256(
                _mm256_add_epi32(_mm256_and_si256(x, below), below),
                splat(1 << (11 + d)),
            );
            _mm256_or_si256(x, sticky)
        });
        let y = if fmt.bias == 15 {
            x
        } else {
            _mm256_mul_ps(x, _mm256_set1_ps(scale))
        };
        _mm256_cvtps_ph::<_MM_FROUND_TO_ZERO>(y)
    };
    round16(join(half(x0), half(x1)), fmt)
}

/// The codes of `fmt` nearest 16 float16 codes `h` (each rounding as the
/// value it stands for would: exact, or `narrow16`'s folded truncation), in
/// word lanes. For float8_e5m2 (float16's bias) that is `h` rounded at bit
/// 8; the others scale first (`narrow16`).
#[inline]
#[target_feature(enable = "avx2")]
fn round16(h: V, fmt: Format) -> V {
    let d = 10 - fmt.fraction_bits;
    let a = _mm256_and_si256(h, _mm256_set1_epi16(0x7FFF));
    let sign_at = 16 - fmt.bits() as i32;
    let ride = sign_at == d as i32;
    let m = if ride {
        h
    } else if fmt.has_infinity() {
        a
    } else {
        _mm256_min_epu16(a, _mm256_set1_epi16((fmt.max_finite_bits() << d) as i16))
    };
    // Nearest-even at bit d: avg(m, 2^(d-1) - 2 + last) >> (d - 1), with
    // `last` the last kept bit (VPAVGW adds one more and halves).
    let one = _mm256_set1_epi16(1);
    let dv = _mm_cvtsi32_si128(d as i32);
    let last = _mm256_and_si256(_mm256_srl_epi16(m, dv), one);
    let c = _mm256_or_si256(last, _mm256_set1_epi16((1 << (d - 1)) - 2));
    let r = _mm256_srl_epi16(
        opaque(_mm256_avg_epu16(m, c)),
        _mm_cvtsi32_si128(d as i32 - 1),
    );
    let top = _mm256_srl_epi16(h, _mm_cvtsi32_si128(sign_at));
    let nan = _mm256_cmpgt_epi16(a, _mm256_set1_epi16(0x7C00));
    let sign = _mm256_set1_epi16(fmt.sign_mask() as i16);
    match fmt.specials {
        // The sign rode along; a NaN keeps its top payload bits, quiet.
        Specials::Ieee => {
            let q = _mm256_set1_epi16(1 << (fmt.fraction_bits - 1));
            _mm256_blendv_epi8(r, _mm256_or_si256(top, q), nan)
        }
        // NaN: the format's NaN of x's sign.
        Specials::FnNan => {
            let all = _mm256_set1_epi16(fmt.magnitude_mask() as i16);
            _mm256_or_si256(_mm256_blendv_epi8(r, all, nan), _mm256_and_si256(top, sign))
        }
        // NaN: +0.
        Specials::Finite => {
            _mm256_andnot_si256(nan, _mm256_or_si256(r, _mm256_and_si256(top, sign)))
        }
    }
}

/// 32 bytes in element order from 16-bit lanes `a` then `b` (each < 256).
#[inline]
#[target_feature(enable = "avx2")]
fn words_to_bytes(a: V, b: V) -> V {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b))
}

/// 32 bytes (each < 16) as 16 bytes of nibbles, low nibble first.
#[inline]
#[target_feature(enable = "avx2")]
fn bytes_to_nibbles(b: V) -> __m128i {
    let w = _mm256_maddubs_epi16(b, _mm256_set1_epi16(0x1001));
    _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(
        _mm256_packus_epi16(w, w),
    ))
}

/// float16 codes rounded to float8_e5m2 in place (`round16`).
impl VDst<Words> for E5m2Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Words, p: *mut u8) {
        let [a, b] = x.map(|h| round16(h, E5M2));
        // SAFETY: the caller's 32 bytes.
        unsafe { put256::<NT>(p, words_to_bytes(a, b)) }
    }
}

impl<const FMT: u8, const FOLDED: bool> VDst<Four> for NarrowOut<FMT, FOLDED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let f = narrow_format(FMT);
        let [a, b, c, d] = x;
        let bytes = words_to_bytes(narrow16(a, b, f, FOLDED), narrow16(c, d, f, FOLDED));
        // SAFETY: the caller's 32 (float4: 16) bytes.
        unsafe {
            if Self::BITS == 4 {
                put128::<NT>(p, bytes_to_nibbles(bytes));
            } else {
                put256::<NT>(p, bytes);
            }
        }
    }
}

/// 32 dwords (each in a byte's range, signed or not) as 32 bytes in order.
#[inline]
#[target_feature(enable = "avx2")]
fn dwords_to_bytes<const SIGNED: bool>(x: Four) -> V {
    let [a, b, c, d] = x;
    let (ab, cd) = (_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    let v = if SIGNED {
        _mm256_packs_epi16(ab, cd)
    } else {
        _mm256_packus_epi16(ab, cd)
    };
    // Dword 4L + k holds vector k's four of 128-bit lane L.
    _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
}

impl<const LO: i32, const HI: i32, const BITS: usize> VDst<Four> for IntOut<LO, HI, BITS> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        // Clamped in float32 only where the packing below cannot saturate:
        // below LO the truncation gives i32::MIN (also for -inf) and the
        // signed packs saturate it to LO, for 8 and 16 bits. A NaN must give
        // 0: VMAXPS with 0 returns its second operand, 0, for a NaN
        // (unsigned); a mask clears it (signed, 8 and 16 bits). For int4 the
        // clamps keep a NaN (VMINPS and VMAXPS return their second operand,
        // x, for one), the truncation gives i32::MIN, and the packs and the
        // nibble mask below make that 0x80 & 0x0F = 0.
        let int = |v: V| {
            let v = _mm256_castsi256_ps(v);
            let (lo, hi) = (_mm256_set1_ps(LO as f32), _mm256_set1_ps(HI as f32));
            _mm256_cvttps_epi32(if LO == 0 {
                _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), hi)
            } else if BITS == 4 {
                _mm256_max_ps(lo, _mm256_min_ps(hi, v))
            } else {
                _mm256_min_ps(_mm256_and_ps(v, _mm256_cmp_ps::<_CMP_ORD_Q>(v, v)), hi)
            })
        };
        let c = x.map(int);
        // SAFETY: the caller's STEP * BITS / 8 bytes.
        unsafe {
            if BITS == 16 {
                let [a, b, e, f] = c;
                let two = |a, b| {
                    if LO < 0 {
                        _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(a, b))
                    } else {
                        dwords_to_words(a, b)
                    }
                };
                put256::<NT>(p, two(a, b));
                put256::<NT>(p.add(32), two(e, f));
            } else if BITS == 8 {
                let v = if LO < 0 {
                    dwords_to_bytes::<true>(c)
                } else {
                    dwords_to_bytes::<false>(c)
                };
                put256::<NT>(p, v);
            } else {
                let v = _mm256_and_si256(dwords_to_bytes::<true>(c), _mm256_set1_epi8(0x0F));
                put128::<NT>(p, bytes_to_nibbles(v));
            }
        }
    }
}

impl<const SIGNED: bool> VDst<Four> for I32Out<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let two31 = _mm256_set1_ps(2147483648.0);
        for (k, v) in x.into_iter().enumerate() {
            let v = _mm256_castsi256_ps(v);
            // VCVTTPS2DQ gives 0x8000_0000 past the range and for a NaN:
            // right below it, flipped to 0x7FFF_FFFF above, cleared for a
            // NaN. Unsigned: negatives and NaN to 0 first (VMAXPS returns
            // its second operand, 0, for a NaN); from 2^31 less 2^31,
            // with the top bit set after; from 2^32 every bit.
            let t = if SIGNED {
                let over = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(v, two31));
                let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
                _mm256_andnot_si256(nan, _mm256_xor_si256(_mm256_cvttps_epi32(v), over))
            } else {
                let v = _mm256_max_ps(v, _mm256_setzero_ps());
                let big = _mm256_cmp_ps::<_CMP_GE_OQ>(v, two31);
                let sat = _mm256_cmp_ps::<_CMP_GE_OQ>(v, _mm256_set1_ps(4294967296.0));
                let y = _mm256_sub_ps(v, _mm256_and_ps(big, two31));
                let t = _mm256_cvttps_epi32(y);
                let top = _mm256_and_si256(_mm256_castps_si256(big), splat(0x8000_0000));
                _mm256_or_si256(_mm256_or_si256(t, top), _mm256_castps_si256(sat))
            };
            // SAFETY: the caller's 128 bytes.
            unsafe { put256::<NT>(p.add(32 * k), t) }
        }
    }
}

/// int64 and uint64 rounded to odd in float32 (`native::odd32`), 32 of
/// them into the lanes.
impl<const SIGNED: bool> VSrc<Four> for I64Odd<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    unsafe fn get(p: *const u8) -> Four {
        let mut f = [0u32; 32];
        for (j, o) in f.iter_mut().enumerate() {
            // SAFETY: the caller's 256 bytes; unaligned reads.
            let x = unsafe { p.add(8 * j).cast::<u64>().read_unaligned() };
            *o = if SIGNED {
                native::odd32_i64(x as i64)
            } else {
                native::odd32_u64(x)
            };
        }
        // SAFETY: 128 bytes of `f`.
        std::array::from_fn(|k| unsafe { _mm256_loadu_si256(f.as_ptr().add(8 * k).cast()) })
    }
}

/// int64 and uint64 from float32 lanes that hold the source's values
/// exactly: `native`'s truncation (AVX2 converts no 64-bit integer).
impl<const SIGNED: bool> VDst<Four> for I64Out<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx2,f16c,fma")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let mut f = [0f32; 32];
        for (k, v) in x.into_iter().enumerate() {
            // SAFETY: 32 bytes of `f`.
            unsafe { _mm256_storeu_ps(f.as_mut_ptr().add(8 * k), _mm256_castsi256_ps(v)) };
        }
        let mut out = [0u64; 32];
        for (o, &v) in out.iter_mut().zip(&f) {
            *o = if SIGNED {
                native::Cast::<i64>::cast(v) as u64
            } else {
                native::Cast::<u64>::cast(v)
            };
        }
        for k in 0..8 {
            // SAFETY: the caller's 256 bytes, 32 at a time; 32 bytes of `out`.
            unsafe {
                let v = _mm256_loadu_si256(out.as_ptr().add(4 * k).cast());
                put256::<NT>(p.add(32 * k), v);
            }
        }
    }
}

impl VDst<Four> for C64Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let z = _mm256_setzero_ps();
        for (k, v) in x.into_iter().enumerate() {
            let v = _mm256_castsi256_ps(quiet32(v));
            // (v0 0 v1 0 | v4 0 v5 0) and (v2 0 v3 0 | v6 0 v7 0).
            let (lo, hi) = (_mm256_unpacklo_ps(v, z), _mm256_unpackhi_ps(v, z));
            let a = _mm256_permute2f128_ps::<0x20>(lo, hi);
            let b = _mm256_permute2f128_ps::<0x31>(lo, hi);
            // SAFETY: the caller's 256 bytes.
            unsafe {
                put256::<NT>(p.add(64 * k), _mm256_castps_si256(a));
                put256::<NT>(p.add(64 * k + 32), _mm256_castps_si256(b));
            }
        }
    }
}

impl VDst<Four> for C128Out {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let z = _mm256_setzero_pd();
        for (k, v) in x.into_iter().enumerate() {
            let v = _mm256_castsi256_ps(v);
            let halves = [_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)];
            for (j, h) in halves.into_iter().enumerate() {
                let d = _mm256_cvtps_pd(h);
                // (d0 0 | d2 0) and (d1 0 | d3 0), put in order.
                let (lo, hi) = (_mm256_unpacklo_pd(d, z), _mm256_unpackhi_pd(d, z));
                let a = _mm256_permute2f128_pd::<0x20>(lo, hi);
                let b = _mm256_permute2f128_pd::<0x31>(lo, hi);
                // SAFETY: the caller's 512 bytes.
                unsafe {
                    put256::<NT>(p.add(128 * k + 64 * j), _mm256_castpd_si256(a));
                    put256::<NT>(p.add(128 * k + 64 * j + 32), _mm256_castpd_si256(b));
                }
            }
        }
    }
}

impl VDst<Four> for BitOut {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let zero = _mm256_setzero_si256();
        let mut m = 0u32;
        for (k, v) in x.into_iter().enumerate() {
            // Any bit but the sign set.
            let z = _mm256_cmpeq_epi32(_mm256_slli_epi32::<1>(v), zero);
            let z = _mm256_movemask_ps(_mm256_castsi256_ps(z)) as u32;
            m |= (!z & 0xFF) << (8 * k);
        }
        // SAFETY: the caller's 4 bytes.
        unsafe { p.cast::<u32>().write_unaligned(m.to_le()) }
    }
}

impl VDst<Four> for BoolOut {
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn put<const NT: bool>(x: Four, p: *mut u8) {
        let zero = _mm256_setzero_si256();
        let b = x.map(|v| {
            _mm256_andnot_si256(
                _mm256_cmpeq_epi32(_mm256_slli_epi32::<1>(v), zero),
                splat(1),
            )
        });
        // SAFETY: the caller's 32 bytes.
        unsafe { put256::<NT>(p, dwords_to_bytes::<false>(b)) }
    }
}

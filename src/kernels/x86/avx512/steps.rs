//! The AVX-512 forms of the lanes framework's sides (`kernels::lanes`): decoders and encoders
//! that meet in float32 lanes of 512-bit vectors (`Two`), in float16
//! codes (`Codes`) or in bfloat16 codes (`Bf16Codes`: bfloat16 -> float8
//! and float4, which AVX2 runs in float32 lanes), 32 elements a step,
//! computing what `avx2.rs`'s forms compute (the kernel tests hold both to
//! the scalar reference). They run under the kernel's MXCSR as those do
//! (`super::super::call`: round to nearest, toward zero for the float64
//! sources rounded to odd, FTZ and DAZ for the float8/float4 encoders), so
//! hardware conversions round as the marker says. What AVX-512 adds: masks
//! in place of blends, VPERMI2W tables for float8_e4m3fn, VPERMT2W to take
//! the top halves of 32 dwords at once, VPTESTMB for bool, variable word
//! shifts (VPSRLVW) to round float16 and bfloat16 codes into float8/float4
//! without widening them, VPERMW to look the 4-bit sources' float16
//! and bfloat16 codes up whole, and where AVX512-BF16 is, VCVTNE2PS2BF16
//! into bfloat16 (`Bf16Ne`).

use super::super::{put128, put256};
use super::wide::{complexes, f32_i32, f32_i64, reals};
use super::{
    bf16_round, first_lanes, full, halves, join, narrow16, narrow_code16, packed2, packed4,
    pair_nibbles, put512, top_words, words_to_nibbles, RN,
};
use crate::format::{Format, BF16, E2M1FN, E4M3FN, F16, F32};
use crate::kernels::lanes::*;
use crate::kernels::Raw;
use std::arch::x86_64::*;

type Z = __m512i;
/// 32 elements as float32 bits, element j in lane j % 16 of vector j / 16.
pub type Two = [Z; 2];
/// 32 elements as float16 codes, element j in word j.
pub type Codes = Z;

/// The step loop with this level's features.
///
/// # Safety
/// As `steps`, on a CPU with AVX-512 F/BW/VL/DQ, AVX2, F16C and FMA.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma")]
unsafe fn run<L: Lanes, S: VSrc<L>, D: VDst<L>, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { steps::<L, S, D, NT>(src, dst, n, ahead) }
}

/// The last partial step moved under byte masks, 64 bytes at a time: the
/// source into the buffer with whole-vector stores, which the step's loads
/// then take straight from the store buffer. The default's memcpy wrote it
/// in pieces that a vector load cannot be forwarded from, and waited for
/// them, which a short call paid for. The caller's side goes through
/// `full`, which keeps a vector from reaching into another page.
macro_rules! masked_tail {
    () => {
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
        unsafe fn tail_in(src: *const u8, buf: *mut u8, len: usize, cap: usize) {
            for c in (0..cap).step_by(64) {
                let m = first_lanes(len.saturating_sub(c));
                // SAFETY: the lanes on are bytes c .. len of `src`, the
                // caller's to read; c + 64 <= 512 bytes of `buf`, as c < cap
                // <= 512 and c is a multiple of 64.
                unsafe {
                    let v = full::_mm512_maskz_loadu_epi8(m, src.add(c).cast());
                    _mm512_storeu_si512(buf.add(c).cast(), v);
                }
            }
        }
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
        unsafe fn tail_out(buf: *const u8, dst: *mut u8, len: usize) {
            for c in (0..len).step_by(64) {
                let m = first_lanes(len - c);
                // SAFETY: the lanes on are bytes c .. len of both; `buf`
                // is on the stack, where every page is readable (no assist
                // to avoid).
                unsafe {
                    let v = _mm512_maskz_loadu_epi8(m, buf.add(c).cast());
                    full::_mm512_mask_storeu_epi8(dst.add(c).cast(), m, v);
                }
            }
        }
    };
}

impl Lanes for Two {
    const UNROLL: usize = 2;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
    masked_tail!();
}

/// 32 elements as bfloat16 codes, element j in word j: bfloat16 rounds
/// into float8/float4 in them (`narrow_code16`).
#[derive(Clone, Copy)]
pub struct Bf16Codes(Z);

impl Lanes for Bf16Codes {
    const UNROLL: usize = 2;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
    masked_tail!();
}

impl Lanes for Codes {
    const UNROLL: usize = 2;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
        run::<Self, S, D, NT>
    }
    masked_tail!();
}

// ------------------------------------------------------------- tables

/// float8_e4m3fn magnitudes widened into `to` (words), 32 a vector.
#[allow(clippy::indexing_slicing)] // only in the statics' initialisers: would fail the build
const fn e4m3_words(to: Format) -> [[u16; 32]; 4] {
    let mut t = [[0u16; 32]; 4];
    let mut k = 0;
    while k < 128 {
        t[k / 32][k % 32] = widen_code(E4M3FN, k as u32, to) as u16;
        k += 1;
    }
    t
}

/// The top halves of float32 (bfloat16 codes) of the e4m3 magnitudes.
static E4M3_BF16: [[u16; 32]; 4] = e4m3_words(BF16);
/// The float16 codes of the e4m3 magnitudes.
static E4M3_F16: [[u16; 32]; 4] = e4m3_words(F16);

/// Every float4_e2m1fn code (sign included) as float32 bits.
// Indexing in a constant initialiser: out of range would fail the build.
#[allow(clippy::indexing_slicing)]
static E2M1_F32: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut k = 0;
    while k < 16 {
        t[k] = widen_code(E2M1FN, k as u32 & 7, F32) | (k as u32 & 8) << 28;
        k += 1;
    }
    t
};

/// `nibble_codes` as a VPERMW table (words 16 to 31 are never read).
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn nibble_words(dt: i32, to: Format) -> [u16; 32] {
    let c = nibble_codes(dt, to);
    let mut t = [0u16; 32];
    let mut k = 0;
    while k < 16 {
        t[k] = c[k];
        k += 1;
    }
    t
}

/// 32 float8_e4m3fn codes (one a word, < 256) looked up in `t` (indexed by
/// the magnitude: two VPERMI2W over 64 words each, which read the index's
/// low 6 bits, chosen by bit 6), with the sign moved to bit 15.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn e4m3_lookup(w: Z, t: &[[u16; 32]; 4]) -> Z {
    // SAFETY: each row is 64 bytes.
    let [t0, t1, t2, t3] = t
        .each_ref()
        .map(|r| unsafe { _mm512_loadu_si512(r.as_ptr().cast()) });
    let upper = _mm512_test_epi16_mask(w, _mm512_set1_epi16(64));
    let v = _mm512_mask_blend_epi16(
        upper,
        _mm512_permutex2var_epi16(t0, w, t1),
        _mm512_permutex2var_epi16(t2, w, t3),
    );
    _mm512_ternarylogic_epi32::<0xF8>(v, _mm512_slli_epi16::<8>(w), _mm512_set1_epi16(-0x8000))
}

// ------------------------------------------------------------- helpers

/// The 32 bytes at `p` widened to words.
///
/// # Safety
/// `p` is readable for 32 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn bytes_to_words(p: *const u8) -> Z {
    // SAFETY: the caller's 32 bytes.
    _mm512_cvtepu8_epi16(unsafe { _mm256_loadu_si256(p.cast()) })
}

/// The 32 nibbles at `p` (low nibble first) as 32 bytes.
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn nibbles(p: *const u8) -> __m256i {
    // SAFETY: the caller's 16 bytes.
    let w = _mm256_cvtepu8_epi16(unsafe { _mm_loadu_si128(p.cast()) });
    // Word j = byte j: low nibble in its low byte, high nibble in its high.
    let m = _mm256_set1_epi16(0x0F);
    _mm256_ternarylogic_epi32::<0xF8>(
        _mm256_and_si256(w, m),
        _mm256_slli_epi16::<4>(w),
        _mm256_set1_epi16(0x0F00),
    )
}

/// The 32 nibbles at `p` (low nibble first) looked up in `t`
/// (`nibble_words`): one VPERMW.
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn nibble_lookup(p: *const u8, t: &[u16; 32]) -> Z {
    // SAFETY: the table is 64 bytes; the caller's 16 bytes.
    let (t, b) = unsafe { (_mm512_loadu_si512(t.as_ptr().cast()), nibbles(p)) };
    _mm512_permutexvar_epi16(_mm512_cvtepu8_epi16(b), t)
}

/// Words (32) as the top halves of 32 dwords, in order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn top_halves(w: Z) -> Two {
    // Quadwords 0 4 1 5 2 6 3 7: the in-lane unpacks then put words
    // 0 .. 15 in the first vector and 16 .. 31 in the second, in order.
    let w = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0), w);
    let z = _mm512_setzero_si512();
    [_mm512_unpacklo_epi16(z, w), _mm512_unpackhi_epi16(z, w)]
}

/// 32 bytes (small integers, signed or not) as float32.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn bytes_to_f32<const SIGNED: bool>(b: __m256i) -> Two {
    let f = |v: __m128i| {
        let d = if SIGNED {
            _mm512_cvtepi8_epi32(v)
        } else {
            _mm512_cvtepu8_epi32(v)
        };
        _mm512_castps_si512(_mm512_cvtepi32_ps(d))
    };
    [
        f(_mm256_castsi256_si128(b)),
        f(_mm256_extracti128_si256::<1>(b)),
    ]
}

/// 1.0 in the lanes whose bit of `m` is set, else 0 (bit j, element j).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn ones(m: u32) -> Two {
    let one = _mm512_set1_epi32(0x3F80_0000);
    [
        _mm512_maskz_mov_epi32(m as u16, one),
        _mm512_maskz_mov_epi32((m >> 16) as u16, one),
    ]
}

/// A bit for each element with a bit of `bits` set (bit j, element j).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn test(x: Two, bits: u32) -> u32 {
    let b = _mm512_set1_epi32(bits as i32);
    u32::from(_mm512_test_epi32_mask(x[0], b)) | u32::from(_mm512_test_epi32_mask(x[1], b)) << 16
}

// ------------------------------------------------------------- sources

impl VSrc<Two> for F32In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 128 bytes.
        [0, 1].map(|k| unsafe { _mm512_loadu_si512(p.add(64 * k).cast()) })
    }
}

impl VSrc<Two> for F16In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 64 bytes.
        [0, 1].map(|k| unsafe {
            _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256(p.add(32 * k).cast())))
        })
    }
}

impl VSrc<Codes> for F16In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Codes {
        // SAFETY: the caller's 64 bytes.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
}

/// The codes as they are (the encoders handle NaNs themselves).
impl VSrc<Bf16Codes> for Bf16In<false> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Bf16Codes {
        // SAFETY: the caller's 64 bytes.
        Bf16Codes(unsafe { _mm512_loadu_si512(p.cast()) })
    }
}

impl<const QUIET: bool> VSrc<Two> for Bf16In<QUIET> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 64 bytes.
        let h = unsafe { _mm512_loadu_si512(p.cast()) };
        let h = if QUIET {
            let a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
            let nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7F80));
            _mm512_mask_mov_epi16(h, nan, _mm512_or_si512(h, _mm512_set1_epi16(0x40)))
        } else {
            h
        };
        top_halves(h)
    }
}

impl VSrc<Two> for E5m2In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 32 bytes.
        let h = _mm512_slli_epi16::<8>(unsafe { bytes_to_words(p) });
        halves(h).map(|v| _mm512_castps_si512(_mm512_cvtph_ps(v)))
    }
}

/// As float16 codes, with a NaN made quiet (as VCVTPH2PS would).
impl VSrc<Codes> for E5m2In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Codes {
        // SAFETY: the caller's 32 bytes.
        let h = _mm512_slli_epi16::<8>(unsafe { bytes_to_words(p) });
        let a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
        let nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7C00));
        _mm512_mask_mov_epi16(h, nan, _mm512_or_si512(h, _mm512_set1_epi16(0x0200)))
    }
}

impl VSrc<Two> for E4m3In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 32 bytes.
        top_halves(e4m3_lookup(unsafe { bytes_to_words(p) }, &E4M3_BF16))
    }
}

impl VSrc<Codes> for E4m3In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Codes {
        // SAFETY: the caller's 32 bytes.
        e4m3_lookup(unsafe { bytes_to_words(p) }, &E4M3_F16)
    }
}

impl VSrc<Two> for E2m1In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the table is 64 bytes; the caller's 16 bytes.
        let (t, b) = unsafe { (_mm512_loadu_si512(E2M1_F32.as_ptr().cast()), nibbles(p)) };
        let f = |v: __m128i| _mm512_permutexvar_epi32(_mm512_cvtepu8_epi32(v), t);
        [
            f(_mm256_castsi256_si128(b)),
            f(_mm256_extracti128_si256::<1>(b)),
        ]
    }
}

/// The 4-bit sources as float16 (`Codes`) and bfloat16 (`Bf16Codes`)
/// codes, looked up whole (`nibble_code`: exact).
macro_rules! nibble_sources {
    ($($s:ty),*) => {$(
        impl VSrc<Codes> for $s {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn get(p: *const u8) -> Codes {
                // SAFETY: the caller's 16 bytes.
                unsafe { nibble_lookup(p, &const { nibble_words(<$s>::DT, F16) }) }
            }
        }
        impl VSrc<Bf16Codes> for $s {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn get(p: *const u8) -> Bf16Codes {
                // SAFETY: the caller's 16 bytes.
                Bf16Codes(unsafe { nibble_lookup(p, &const { nibble_words(<$s>::DT, BF16) }) })
            }
        }
    )*};
}
nibble_sources!(I4In<true>, I4In<false>, E2m1In);

impl<const SIGNED: bool> VSrc<Two> for I8In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 32 bytes.
        bytes_to_f32::<SIGNED>(unsafe { _mm256_loadu_si256(p.cast()) })
    }
}

impl<const SIGNED: bool> VSrc<Two> for I4In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 16 bytes.
        let b = unsafe { nibbles(p) };
        // Signed: (c ^ 8) - 8 extends bit 3.
        let b = if SIGNED {
            let e = _mm256_set1_epi8(8);
            _mm256_sub_epi8(_mm256_xor_si256(b, e), e)
        } else {
            b
        };
        bytes_to_f32::<SIGNED>(b)
    }
}

impl<const SIGNED: bool> VSrc<Two> for I16In<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        [0, 1].map(|k| {
            // SAFETY: the caller's 64 bytes.
            let h = unsafe { _mm256_loadu_si256(p.add(32 * k).cast()) };
            let d = if SIGNED {
                _mm512_cvtepi16_epi32(h)
            } else {
                _mm512_cvtepu16_epi32(h)
            };
            _mm512_castps_si512(_mm512_cvtepi32_ps(d))
        })
    }
}

impl VSrc<Two> for BoolIn {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 32 bytes.
        let v = unsafe { _mm256_loadu_si256(p.cast()) };
        ones(_mm256_test_epi8_mask(v, v))
    }
}

impl VSrc<Two> for BitIn {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 4 bytes.
        ones(u32::from_le(unsafe { p.cast::<u32>().read_unaligned() }))
    }
}

/// The `k`th eight float64 of a step: at `p + 64 k`, or complex128's real
/// parts (`C`) from `p + 128 k` (one VPERMT2Q).
///
/// # Safety
/// `p` is readable for the step's bytes (256, or 512 when `C`), k < 4.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f64x8<const C: bool>(p: *const u8, k: usize) -> Z {
    // SAFETY: within the caller's step.
    unsafe {
        if C {
            let a = _mm512_loadu_si512(p.add(128 * k).cast());
            reals(a, _mm512_loadu_si512(p.add(128 * k + 64).cast()))
        } else {
            _mm512_loadu_si512(p.add(64 * k).cast())
        }
    }
}

impl<const C: bool> VSrc<Two> for F64Near<C> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's step.
        let y = |k| unsafe {
            _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_castsi512_pd(f64x8::<C>(p, k))))
        };
        [join(y(0), y(1)), join(y(2), y(3))]
    }
}

impl<const C: bool> VSrc<Two> for F64Odd<C> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        let y = |k| {
            // SAFETY: the caller's step.
            let x = _mm512_castsi512_pd(unsafe { f64x8::<C>(p, k) });
            let t = _mm512_cvtpd_ps(x);
            let inexact = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(_mm512_cvtps_pd(t), x);
            let t = _mm256_castps_si256(t);
            _mm256_mask_or_epi32(t, inexact, t, _mm256_set1_epi32(1))
        };
        [join(y(0), y(1)), join(y(2), y(3))]
    }
}

impl<const B: u32, const C: bool> VSrc<Two> for F64Fold<B, C> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        let y = |k| {
            // SAFETY: the caller's step.
            let x = unsafe { f64x8::<C>(p, k) };
            let inexact = _mm512_test_epi64_mask(x, _mm512_set1_epi64((1 << B) - 1));
            let x = _mm512_mask_or_epi64(x, inexact, x, _mm512_set1_epi64(1 << B));
            _mm256_castps_si256(_mm512_cvtpd_ps(_mm512_castsi512_pd(x)))
        };
        [join(y(0), y(1)), join(y(2), y(3))]
    }
}

impl VSrc<Two> for C128Any {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // Complex 8k .. 8k + 8 with a nonzero part: a bit each, in order.
        let any = |k: usize| {
            // SAFETY: the caller's 512 bytes.
            let [a, b] = [0, 64].map(|j| unsafe { _mm512_loadu_si512(p.add(128 * k + j).cast()) });
            let re = reals(a, b);
            let im = _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), b);
            let m = _mm512_test_epi64_mask(_mm512_or_si512(re, im), _mm512_set1_epi64(i64::MAX));
            u32::from(m)
        };
        ones(any(0) | any(1) << 8 | any(2) << 16 | any(3) << 24)
    }
}

impl<const SIGNED: bool> VSrc<Two> for I32Near<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        [0, 1].map(|k| {
            // SAFETY: the caller's 128 bytes.
            let x = unsafe { _mm512_loadu_si512(p.add(64 * k).cast()) };
            _mm512_castps_si512(if SIGNED {
                _mm512_cvtepi32_ps(x)
            } else {
                _mm512_cvtepu32_ps(x)
            })
        })
    }
}

impl<const SIGNED: bool> VSrc<Two> for I32Odd<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        [0, 1].map(|k| {
            // SAFETY: the caller's 128 bytes.
            let x = unsafe { _mm512_loadu_si512(p.add(64 * k).cast()) };
            let (t, back) = if SIGNED {
                let t = _mm512_cvtepi32_ps(x);
                (t, _mm512_cvttps_epi32(t))
            } else {
                let t = _mm512_cvtepu32_ps(x);
                (t, _mm512_cvttps_epu32(t))
            };
            let t = _mm512_castps_si512(t);
            let inexact = _mm512_cmpneq_epi32_mask(back, x);
            _mm512_mask_or_epi32(t, inexact, t, _mm512_set1_epi32(1))
        })
    }
}

impl<const SIGNED: bool> VSrc<Two> for I64Odd<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        let y = |k: usize| {
            // SAFETY: the caller's 256 bytes.
            let x = unsafe { f64x8::<false>(p, k) };
            let (t, back) = if SIGNED {
                let t = _mm512_cvtepi64_ps(x);
                (t, _mm512_cvttps_epi64(t))
            } else {
                let t = _mm512_cvtepu64_ps(x);
                (t, _mm512_cvttps_epu64(t))
            };
            let t = _mm256_castps_si256(t);
            let inexact = _mm512_cmpneq_epi64_mask(back, x);
            _mm256_mask_or_epi32(t, inexact, t, _mm256_set1_epi32(1))
        };
        [join(y(0), y(1)), join(y(2), y(3))]
    }
}

/// The real parts of 16 complex64 at `p` (128 bytes), as `f` maps each
/// complex64 (its two parts in one quadword): one VPERMT2D.
///
/// # Safety
/// `p` is readable for 128 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn evens(p: *const u8, f: impl Fn(Z) -> Z) -> Z {
    // SAFETY: the caller's 128 bytes.
    let [a, b] = [0, 64].map(|k| f(unsafe { _mm512_loadu_si512(p.add(k).cast()) }));
    let idx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    _mm512_permutex2var_epi32(a, idx, b)
}

/// float32 bits with a NaN made quiet.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn quiet32(x: Z) -> Z {
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    let nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F80_0000));
    _mm512_mask_or_epi32(x, nan, x, _mm512_set1_epi32(1 << 22))
}

impl VSrc<Two> for C64In {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // SAFETY: the caller's 256 bytes.
        [0, 1].map(|k| quiet32(unsafe { evens(p.add(128 * k), |v| v) }))
    }
}

impl VSrc<Two> for C64Any {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn get(p: *const u8) -> Two {
        // Each quadword's low dword or'ed with its high one.
        let any = |v: Z| _mm512_or_si512(v, _mm512_srli_epi64::<32>(v));
        // SAFETY: the caller's 256 bytes.
        [0, 1].map(|k| unsafe { evens(p.add(128 * k), any) })
    }
}

// -------------------------------------------------------- destinations

impl VDst<Two> for F32Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        // SAFETY: the caller's 128 bytes.
        unsafe {
            put512::<NT>(p, x[0]);
            put512::<NT>(p.add(64), x[1]);
        }
    }
}

impl VDst<Two> for F64Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            for (j, h) in halves(v).into_iter().enumerate() {
                let d = _mm512_cvtps_pd(_mm256_castsi256_ps(h));
                // SAFETY: the caller's 256 bytes.
                unsafe { put512::<NT>(p.add(128 * k + 64 * j), _mm512_castpd_si512(d)) }
            }
        }
    }
}

impl VDst<Two> for F16Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        let h = |v: Z| _mm512_cvtps_ph::<RN>(_mm512_castsi512_ps(v));
        // SAFETY: the caller's 64 bytes.
        unsafe { put512::<NT>(p, join(h(x[0]), h(x[1]))) }
    }
}

impl VDst<Codes> for F16Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Codes, p: *mut u8) {
        // SAFETY: the caller's 64 bytes.
        unsafe { put512::<NT>(p, x) }
    }
}

impl VDst<Two> for Bf16Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        // SAFETY: the caller's 64 bytes.
        unsafe { put512::<NT>(p, top_words(bf16_round(x[0]), bf16_round(x[1]))) }
    }
}

impl<const SUB: bool> VDst<Two> for Bf16Ne<SUB> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c,avx512bf16")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        // VFPCLASSPS 0x20: subnormal (DAZ does not apply to it).
        let sub = |v: Z| _mm512_fpclass_ps_mask::<0x20>(_mm512_castsi512_ps(v));
        if SUB && sub(x[0]) | sub(x[1]) != 0 {
            // SAFETY: forwarded.
            return unsafe { <Bf16Out as VDst<Two>>::put::<NT>(x, p) };
        }
        let [a, b] = x.map(|v| _mm512_castsi512_ps(v));
        // SAFETY: both are 512 bits of vector register: a bit cast; then
        // the caller's 64 bytes.
        unsafe {
            let h = std::mem::transmute::<__m512bh, Z>(_mm512_cvtne2ps_pbh(b, a));
            put512::<NT>(p, h)
        }
    }
}

/// The step loop with this level's features and AVX512-BF16, for
/// `Bf16Ne`.
///
/// # Safety
/// As `run`, on a CPU with AVX512-BF16 too.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c,fma,avx512bf16")]
pub unsafe fn run_bf16<S: VSrc<Two>, const SUB: bool, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { steps::<Two, S, Bf16Ne<SUB>, NT>(src, dst, n, ahead) }
}

/// bfloat16 codes stored as they are (every source of these lanes is exact).
impl VDst<Bf16Codes> for Bf16Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Bf16Codes, p: *mut u8) {
        // SAFETY: the caller's 64 bytes.
        unsafe { put512::<NT>(p, x.0) }
    }
}

impl VDst<Two> for Bf16Top {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        // SAFETY: the caller's 64 bytes.
        unsafe { put512::<NT>(p, top_words(x[0], x[1])) }
    }
}

/// An encoder of codes of 8 bits or fewer in lanes `$L`: `$codes` gives a
/// step's codes, one a word lane (`$signed`: 8-bit ones in -128..=127),
/// and two steps are stored together (`put_codes2`).
macro_rules! narrow_out {
    ($L:ty, [$($gen:tt)*], $T:ty, $codes:expr) => {
        narrow_out!($L, [$($gen)*], $T, $codes, false);
    };
    ($L:ty, [$($gen:tt)*], $T:ty, $codes:expr, $signed:expr) => {
        impl<$($gen)*> VDst<$L> for $T {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn put<const NT: bool>(x: $L, p: *mut u8) {
                // SAFETY: the caller's STEP * BITS / 8 bytes.
                unsafe { put_codes::<NT>($codes(x), Self::BITS, $signed, p) }
            }

            const PAIRED: bool = true;

            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn put2<const NT: bool>(x0: $L, x1: $L, p: *mut u8) {
                let [w0, w1] = [x0, x1].map($codes);
                // SAFETY: the caller's two steps.
                unsafe { put_codes2::<NT, false>(w0, w1, Self::BITS, $signed, p) }
            }
        }
    };
}
// float16 and bfloat16 codes rounded in the integers (`narrow_code16`),
// float32 lanes through float16 (`narrow16`).
narrow_out!(Codes, [const FMT: u8], NarrowOut<FMT>, |x| narrow_code16::<false, FMT>(x));
narrow_out!(Bf16Codes, [const FMT: u8], NarrowOut<FMT>, |x: Bf16Codes| {
    narrow_code16::<true, FMT>(x.0)
});
narrow_out!(
    Two,
    [const FMT: u8, const FOLDED: bool],
    NarrowOut<FMT, FOLDED>,
    |x| narrow_two::<FMT, FOLDED>(x)
);

/// `NarrowOut<FMT, FOLDED>`'s codes of a step, one a word lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
fn narrow_two<const FMT: u8, const FOLDED: bool>(x: Two) -> Z {
    let f = narrow_format(FMT);
    // Round to odd where a bit narrow16 drops is set (`narrow16`); a
    // folded source did that itself.
    let odd = if FOLDED {
        0
    } else {
        test(x, (1 << (12 + 10 - f.fraction_bits)) - 1)
    };
    narrow16(x[0], x[1], odd, f)
}

/// Store two steps' codes of 16 bits (as they are), 8 bits (one
/// VPACKUSWB, or VPACKSSWB for `signed` codes, saturated to -128..=127,
/// and a permute in place of two VPMOVWB, two operations each) or 4 (two
/// VPACKUSWB, a VPMADDUBSW and a permute in place of two VPMADDWD and two
/// VPMOVDB). One 64-byte store in place of two of 32 also keeps
/// int8/uint8 at memory speed. `LANED` words come in
/// `IntOut::laned_words`' order, which the final permute puts right.
///
/// # Safety
/// `p` is writable for `8 * bits` bytes (aligned to 64 when `NT`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put_codes2<const NT: bool, const LANED: bool>(
    w0: Z,
    w1: Z,
    bits: usize,
    signed: bool,
    p: *mut u8,
) {
    // SAFETY: forwarded.
    unsafe {
        if bits == 16 {
            put512::<NT>(p, w0);
            put512::<NT>(p.add(64), w1);
        } else if bits == 8 {
            // Ordered words: quadword 2L + k holds step k's bytes of
            // 128-bit lane L. Laned: dword 4L + j holds the four elements
            // from 16j + 4L (every code fits the pack's range: its
            // saturation changes nothing).
            let b = if signed {
                _mm512_packs_epi16(w0, w1)
            } else {
                _mm512_packus_epi16(w0, w1)
            };
            let b = if LANED { packed4(b) } else { packed2(b) };
            put512::<NT>(p, b);
        } else {
            // Ordered: lane L of the pairs is step 0's 4 bytes of it, then
            // step 1's. Laned: word 8L + j holds the four elements from
            // 16j + 4L.
            let n = pair_nibbles(_mm512_packus_epi16(w0, w1));
            let n = _mm512_packus_epi16(n, n);
            let b = if LANED {
                let order = _mm512_set_epi16(
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 27, 19, 11, 3, 26, 18, 10, 2,
                    25, 17, 9, 1, 24, 16, 8, 0,
                );
                _mm512_permutexvar_epi16(order, n)
            } else {
                let order = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 13, 9, 5, 1, 12, 8, 4, 0);
                _mm512_permutexvar_epi32(order, n)
            };
            put256::<NT>(p, _mm512_castsi512_si256(b));
        }
    }
}

/// Store 32 codes of `bits` 16 (int16, uint16: as they are), 8 (float8,
/// int8, uint8) or 4 (float4, int4, uint4), one a word lane; `signed`
/// 8-bit ones saturate to -128..=127, as `put_codes2`'s pack does.
///
/// # Safety
/// `p` is writable for `4 * bits` bytes (aligned to that when `NT`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put_codes<const NT: bool>(w: Z, bits: usize, signed: bool, p: *mut u8) {
    // SAFETY: forwarded.
    unsafe {
        if bits == 16 {
            put512::<NT>(p, w);
        } else if bits == 4 {
            put128::<NT>(p, words_to_nibbles(w));
        } else if signed {
            put256::<NT>(p, _mm512_cvtsepi16_epi8(w));
        } else {
            put256::<NT>(p, _mm512_cvtepi16_epi8(w));
        }
    }
}

impl<const LO: i32, const HI: i32, const BITS: usize> IntOut<LO, HI, BITS> {
    /// A step's integers as dwords: clamped in float32, truncated. A NaN
    /// gives 0 in the low word, as SEMANTICS.md wants: unsigned, VMAXPS
    /// returns its second operand, 0, for it; signed, VMINPS and VMAXPS
    /// return it (their second operand) and the truncation gives
    /// 0x8000_0000 (a saturating pack would make that the minimum).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn ints(x: Two) -> Two {
        x.map(|v| {
            let v = _mm512_castsi512_ps(v);
            let v = if LO == 0 {
                _mm512_min_ps(
                    _mm512_max_ps(v, _mm512_setzero_ps()),
                    _mm512_set1_ps(HI as f32),
                )
            } else {
                let v = _mm512_min_ps(_mm512_set1_ps(HI as f32), v);
                _mm512_max_ps(_mm512_set1_ps(LO as f32), v)
            };
            _mm512_cvttps_epi32(v)
        })
    }

    /// A step's integers, one a word lane, in the order VPACKUSDW leaves
    /// them: word 8L + j of 128-bit lane L is element 4L + j of the step's
    /// first half (j < 4), then of its second. For 4 bits the nibbles
    /// (`put_codes`); for 8 and 16 the values. One VPACKUSDW
    /// (unsigned: 0..=HI already; signed: the low word taken first) in
    /// place of a VPERMT2W, which takes twice its time here.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn laned_words(x: Two) -> Z {
        let [a, b] = Self::ints(x);
        if LO == 0 {
            return _mm512_packus_epi32(a, b);
        }
        let low = _mm512_set1_epi32(if BITS == 4 { 15 } else { 0xFFFF });
        _mm512_packus_epi32(_mm512_and_si512(a, low), _mm512_and_si512(b, low))
    }

    /// A step's integers, one a word lane, in order: for 4 bits the
    /// nibbles (`put_codes`), for 8 and 16 bits the values.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn words(x: Two) -> Z {
        // For 16 bits too, in place of two VPMOVDW and an insert.
        packed2(Self::laned_words(x))
    }
}

impl<const LO: i32, const HI: i32, const BITS: usize> IntOut<LO, HI, BITS> {
    /// `words` of 32 float16 codes, or bfloat16 codes if `BF`, computed in
    /// the codes. 16 bits by `code_words16`; int4 by a table
    /// (`int4_code_words`); the others (whose bounds both formats hold):
    /// the magnitude clamped to the code of the bound (HI; int8's 128,
    /// which its stores saturate to 127; 0 for a NaN and, unsigned, for a
    /// negative), then truncated by a variable shift of its significand (a
    /// shift of 16 or more, any value under 1, gives 0), and negated where
    /// negative.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn code_words<const BF: bool>(h: Z) -> Z {
        const { assert!(BITS <= 8 || BITS == 16) };
        if BITS == 16 {
            return Self::code_words16::<BF>(h);
        }
        if LO < 0 && BITS == 4 {
            return int4_code_words::<BF>(h);
        }
        let fmt = if BF { BF16 } else { F16 };
        let w16 = |v: u32| _mm512_set1_epi16(v as i16);
        let inf = w16(fmt.infinity_bits() as u32);
        let bound = |v: i32| w16(int_code(v.unsigned_abs(), fmt));
        let (a, neg) = if LO == 0 {
            // Unsigned: a code above +inf's is a NaN or negative, all 0.
            let zero = _mm512_cmpgt_epu16_mask(h, inf);
            (_mm512_maskz_min_epu16(!zero, h, bound(HI)), 0)
        } else {
            // int8: one bound, 128, for both signs (`put_codes`,
            // `put_codes2` saturate).
            let a = _mm512_and_si512(h, w16(0x7FFF));
            let nan = _mm512_cmpgt_epu16_mask(a, inf);
            let neg = _mm512_movepi16_mask(h);
            (_mm512_maskz_min_epu16(!nan, a, bound(LO)), neg)
        };
        let e = if BF {
            _mm512_srli_epi16::<7>(a)
        } else {
            _mm512_srli_epi16::<10>(a)
        };
        let count = _mm512_sub_epi16(w16(fmt.fraction_bits + fmt.bias as u32), e);
        // The fraction with the leading 1 (set for zero too: its shift is
        // past 16).
        let m = _mm512_ternarylogic_epi32::<0xF8>(
            w16(1 << fmt.fraction_bits),
            a,
            w16(fmt.fraction_mask() as u32),
        );
        let v = _mm512_srlv_epi16(m, count);
        if LO == 0 {
            return v;
        }
        _mm512_mask_sub_epi16(v, neg, _mm512_setzero_si512(), v)
    }

    /// `code_words` into int16 or uint16, whose bounds neither format
    /// holds below infinity (or float16 none at all): the significand
    /// with its leading 1 at bit 15 shifted right by bias + 15 - e. A
    /// count past 15 (any value under 1) gives 0, and so does a negative
    /// count, which wraps past it: a NaN's and, unsigned, a negative's
    /// (its exponent read with the sign). The codes from 2^16 (uint16) or
    /// of magnitude from 2^15 (int16) through infinity take the bound
    /// instead (0xFFFF; 2^15, which the sign makes -2^15, or a minimum
    /// 2^15 - 1). Seven operations a 32 into uint16 and eleven into
    /// int16, where the float32 lanes convert each half, clamp, truncate
    /// and pack.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn code_words16<const BF: bool>(h: Z) -> Z {
        let fmt = if BF { BF16 } else { F16 };
        let w16 = |v: u32| _mm512_set1_epi16(v as i16);
        let signed = LO < 0;
        let a = if signed {
            _mm512_and_si512(h, w16(0x7FFF))
        } else {
            h
        };
        // The least code that saturates, and the lanes below it or past
        // infinity (one unsigned compare: those below wrap past the rest).
        let inf = fmt.infinity_bits() as u32;
        let top = (fmt.bias as u32 + if signed { 15 } else { 16 }) << fmt.fraction_bits;
        let low = if top < inf { top } else { inf };
        let keep = _mm512_cmpgt_epu16_mask(_mm512_sub_epi16(a, w16(low)), w16(inf - low));
        let m = _mm512_or_si512(
            if BF {
                _mm512_slli_epi16::<8>(h)
            } else {
                _mm512_slli_epi16::<5>(h)
            },
            w16(0x8000),
        );
        let e = if BF {
            _mm512_srli_epi16::<7>(a)
        } else {
            _mm512_srli_epi16::<10>(a)
        };
        let count = _mm512_sub_epi16(w16(fmt.bias as u32 + 15), e);
        let bound = w16(if signed { 0x8000 } else { 0xFFFF });
        let v = _mm512_mask_srlv_epi16(bound, keep, m, count);
        if !signed {
            return v;
        }
        let neg = _mm512_movepi16_mask(h);
        let z = _mm512_setzero_si512();
        _mm512_mask_sub_epi16(_mm512_min_epu16(v, w16(0x7FFF)), neg, z, v)
    }
}

/// int4's nibbles by truncation class (`int4_code_words`): class 0 is
/// |x| < 1; class j in 1..=12 is the binade 2^((j - 1) / 4) with the two
/// top fraction bits (j - 1) % 4, whose values all truncate to
/// ((4 + (j - 1) % 4) << ((j - 1) / 4)) >> 2; class 13 is |x| >= 8. Words
/// 0..16 for a positive x (saturated to 7), 16..32 for a negative one
/// (-8 at most, as a nibble).
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn int4_class_words() -> [u16; 32] {
    let mut t = [0u16; 32];
    let mut j = 1;
    while j < 14 {
        let m = if j == 13 {
            8
        } else {
            ((4 + (j - 1) % 4) << ((j - 1) / 4)) >> 2
        };
        t[j] = if m > 7 { 7 } else { m as u16 };
        t[16 + j] = (16 - m as u16) & 15;
        j += 1;
    }
    t
}

/// int4's nibbles of 32 float16 codes, or bfloat16 codes if `BF`, one a
/// word lane, by one table lookup (VPERMW, `int4_class_words`): a
/// truncation toward zero into -8..=7 depends only on x's sign and class,
/// which a saturating subtraction and a minimum take from the exponent and
/// the two top fraction bits; a NaN gives 0 (the lookup's zero mask). Eight
/// operations where the shift form (`code_words`, which int8 and the
/// unsigned integers keep) took eleven for int4: it clamped each sign to
/// its own bound, shifted by a variable count, negated and masked.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn int4_code_words<const BF: bool>(h: Z) -> Z {
    let fmt = if BF { BF16 } else { F16 };
    let w16 = |v: u32| _mm512_set1_epi16(v as i16);
    let t = const { int4_class_words() };
    // SAFETY: the table is 64 bytes.
    let t = unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
    let a = _mm512_and_si512(h, w16(0x7FFF));
    let keep = _mm512_cmple_epu16_mask(a, w16(fmt.infinity_bits() as u32));
    // The exponent and two top fraction bits, from just below class 1.
    let top = if BF {
        _mm512_srli_epi16::<5>(a)
    } else {
        _mm512_srli_epi16::<8>(a)
    };
    let below = ((fmt.bias - 1) << 2) as u32 + 3;
    let class = _mm512_min_epu16(_mm512_subs_epu16(top, w16(below)), w16(13));
    // The sign to bit 4: the negative half of the table.
    let i = _mm512_ternarylogic_epi32::<0xF8>(class, _mm512_srli_epi16::<11>(h), w16(16));
    _mm512_maskz_permutexvar_epi16(keep, i, t)
}

// float16 and bfloat16 codes into the integers of 8 bits and fewer, in the
// codes (`IntOut::code_words`).
narrow_out!(Codes, [const LO: i32, const HI: i32, const BITS: usize], IntOut<LO, HI, BITS>,
    |x| IntOut::<LO, HI, BITS>::code_words::<false>(x), LO < 0);
narrow_out!(Bf16Codes, [const LO: i32, const HI: i32, const BITS: usize], IntOut<LO, HI, BITS>,
    |x: Bf16Codes| IntOut::<LO, HI, BITS>::code_words::<true>(x.0), LO < 0);

impl<const LO: i32, const HI: i32, const BITS: usize> VDst<Two> for IntOut<LO, HI, BITS> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        let w = Self::words(x);
        // SAFETY: the caller's STEP * BITS / 8 bytes.
        unsafe {
            if BITS == 16 {
                put512::<NT>(p, w);
            } else {
                put_codes::<NT>(w, BITS, LO < 0, p);
            }
        }
    }

    // Two steps of bytes or nibbles make one store (`put_codes2`).
    const PAIRED: bool = BITS < 16;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put2<const NT: bool>(x0: Two, x1: Two, p: *mut u8) {
        // SAFETY: the caller's two steps.
        unsafe {
            put_codes2::<NT, true>(
                Self::laned_words(x0),
                Self::laned_words(x1),
                BITS,
                LO < 0,
                p,
            )
        }
    }
}

impl<const SIGNED: bool> VDst<Two> for I32Out<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            let t = f32_i32::<SIGNED>(_mm512_castsi512_ps(v));
            // SAFETY: the caller's 128 bytes.
            unsafe { put512::<NT>(p.add(64 * k), t) }
        }
    }
}

impl<const SIGNED: bool> VDst<Two> for I64Out<SIGNED> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            for (j, h) in halves(v).into_iter().enumerate() {
                let t = f32_i64::<SIGNED>(_mm256_castsi256_ps(h));
                // SAFETY: the caller's 256 bytes.
                unsafe { put512::<NT>(p.add(128 * k + 64 * j), t) }
            }
        }
    }
}

impl VDst<Two> for C64Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        // Lane j of v, then a zero (lane 16 of the pair, from the zero).
        let lo = _mm512_set_epi32(16, 7, 16, 6, 16, 5, 16, 4, 16, 3, 16, 2, 16, 1, 16, 0);
        let hi = _mm512_set_epi32(16, 15, 16, 14, 16, 13, 16, 12, 16, 11, 16, 10, 16, 9, 16, 8);
        let z = _mm512_setzero_si512();
        for (k, v) in x.into_iter().enumerate() {
            let v = quiet32(v);
            // SAFETY: the caller's 256 bytes.
            unsafe {
                put512::<NT>(p.add(128 * k), _mm512_permutex2var_epi32(v, lo, z));
                put512::<NT>(p.add(128 * k + 64), _mm512_permutex2var_epi32(v, hi, z));
            }
        }
    }
}

impl VDst<Two> for C128Out {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
    unsafe fn put<const NT: bool>(x: Two, p: *mut u8) {
        for (k, v) in x.into_iter().enumerate() {
            for (j, h) in halves(v).into_iter().enumerate() {
                let d = _mm512_castpd_si512(_mm512_cvtps_pd(_mm256_castsi256_ps(h)));
                let [a, b] = complexes(d);
                let q = 256 * k + 128 * j;
                // SAFETY: the caller's 512 bytes.
                unsafe {
                    put512::<NT>(p.add(q), a);
                    put512::<NT>(p.add(q + 64), b);
                }
            }
        }
    }
}

/// bool and bit in lanes `$L`, from `$truth`: a bit for each element with
/// any bit but the sign set (bit j, element j).
macro_rules! truth {
    ($($L:ty => $truth:expr),*) => {$(
        impl VDst<$L> for BitOut {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn put<const NT: bool>(x: $L, p: *mut u8) {
                let t: u32 = $truth(x);
                // SAFETY: the caller's 4 bytes.
                unsafe { p.cast::<u32>().write_unaligned(t.to_le()) }
            }
        }

        impl VDst<$L> for BoolOut {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
            unsafe fn put<const NT: bool>(x: $L, p: *mut u8) {
                let t: u32 = $truth(x);
                // SAFETY: the caller's 32 bytes.
                unsafe { put256::<NT>(p, _mm256_maskz_mov_epi8(t, _mm256_set1_epi8(1))) }
            }
        }
    )*};
}
// float32 lanes, and 16-bit float codes (float16's, bfloat16's) tested
// without widening them.
truth!(
    Two => |x: Two| test(x, 0x7FFF_FFFF),
    Codes => |x: Codes| _mm512_test_epi16_mask(x, _mm512_set1_epi16(0x7FFF)),
    Bf16Codes => |x: Bf16Codes| _mm512_test_epi16_mask(x.0, _mm512_set1_epi16(0x7FFF))
);

//! Hand-written AVX-512 kernels for the pairs moved in bulk, replacing the
//! vectorized generic loop where it is too slow. Same element maps as
//! `lanes.rs`, and tested against the scalar reference like it; immune to
//! MXCSR: rounding is either integer arithmetic or instructions with
//! embedded rounding (`{rn-sae}`, `{rz-sae}`), and the few lanes whose
//! result FTZ/DAZ could touch (float32 subnormal inputs or results) are
//! recomputed by `lanes`.
//!
//! Every kernel is one loop (`each`) over a step of whole vectors and a
//! masked last part, and comes in two forms: `NT` false stores its whole
//! vectors with ordinary stores, `NT` true with non-temporal ones (then the
//! destination is 64-byte aligned and each step's stores are aligned to
//! their width; see `kernels::Store`). Masked stores are always ordinary.

use super::{lanes, prefetch_ahead, prefetch_from, put128, put256};
use crate::format::{Format, Specials, E2M1FN, E4M3FN, E5M2};
use std::arch::x86_64::*;
use std::sync::OnceLock;

const RN: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
const RZ: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;

/// `v` unchanged, but opaque to the compiler: keeps a narrowing conversion
/// (VPMOV*, VCVTPS2PH) in registers instead of folded into a (masked) store,
/// whose memory forms are microcoded and slow on AMD Zen 4.
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

/// The lanes of the last, partial group of 16 (or all 16).
#[inline(always)]
fn tail_mask(left: usize) -> u16 {
    if left >= 16 {
        u16::MAX
    } else {
        ((1u32 << left) - 1) as u16
    }
}

/// float32 bits (16 lanes) rounded once into `fmt` (a format of at most 8
/// bits), one code per dword lane. The normal range rounds on the integer
/// bits; below the least normal, |x| + 2^(23 + emin - f) with embedded
/// round-to-nearest leaves the subnormal code in the low bits (exact for a
/// float32 subnormal |x| too, which rounds to 0 here, DAZ or not).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn narrow(x: __m512i, fmt: Format) -> __m512i {
    let f = fmt.fraction_bits;
    let s = 23 - f;
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    // The sign moved from bit 31 to the format's top bit.
    let sign = _mm512_and_si512(
        _mm512_srl_epi32(x, _mm_cvtsi32_si128(32 - fmt.bits() as i32)),
        _mm512_set1_epi32(fmt.sign_mask() as i32),
    );
    let sv = _mm_cvtsi32_si128(s as i32);
    let lsb = _mm512_and_si512(_mm512_srl_epi32(a, sv), _mm512_set1_epi32(1));
    // Round to nearest-even at bit s and rebias the exponent in one add
    // (wrapping below the normal range, where `rs` is taken instead).
    let c = ((1u32 << (s - 1)) - 1).wrapping_sub(((127 - fmt.bias) as u32) << 23);
    let rn = _mm512_srl_epi32(
        _mm512_add_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(c as i32)), lsb),
        sv,
    );
    let magic_bits = ((127 + 23 + fmt.emin() - f as i32) as u32) << 23;
    let magic = _mm512_set1_epi32(magic_bits as i32);
    let t = _mm512_add_round_ps::<RN>(_mm512_castsi512_ps(a), _mm512_castsi512_ps(magic));
    let rs = _mm512_sub_epi32(_mm512_castps_si512(t), magic);
    let min_normal = (((fmt.emin() + 127) as u32) << 23) as i32;
    let small = _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(min_normal));
    let r = _mm512_mask_blend_epi32(small, rn, rs);
    let max = _mm512_set1_epi32(fmt.max_finite_bits() as i32);
    let r = if fmt.has_infinity() {
        let over = _mm512_cmpgt_epu32_mask(r, max);
        _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32(fmt.infinity_bits() as i32))
    } else {
        _mm512_min_epu32(r, max)
    };
    let r = _mm512_or_si512(r, sign);
    let nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F80_0000));
    let nan_bits = match fmt.specials {
        Specials::Ieee => {
            let keep = (1 << (f - 1)) - 1;
            let payload = _mm512_and_si512(_mm512_srl_epi32(a, sv), _mm512_set1_epi32(keep));
            let q = fmt.infinity_bits() as i32 | 1 << (f - 1);
            _mm512_or_si512(_mm512_or_si512(payload, _mm512_set1_epi32(q)), sign)
        }
        Specials::FnNan => _mm512_or_si512(sign, _mm512_set1_epi32(fmt.magnitude_mask() as i32)),
        Specials::Finite => _mm512_setzero_si512(),
    };
    _mm512_mask_mov_epi32(r, nan, nan_bits)
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

/// The loop of every kernel here: `step(i)` converts elements i .. i + `g`
/// (whole vectors), then `part(i, left)` the rest, `t` elements (a masked
/// vector) at a time, `left` of them (at most `t`) in the call's range. The
/// source (`src`, of `sbits` bits per element) is prefetched ahead of the
/// steps (see `prefetch_ahead`).
#[inline(always)]
fn each(
    n: usize,
    g: usize,
    t: usize,
    (src, sbits): (*const u8, usize),
    mut step: impl FnMut(usize),
    mut part: impl FnMut(usize, usize),
) {
    let mut i = 0;
    let mut pf = prefetch_from(n * sbits / 8);
    while i + g <= n {
        prefetch_ahead(src, &mut pf, (i + g) * sbits / 8);
        step(i);
        i += g;
    }
    while i < n {
        part(i, (n - i).min(t));
        i += t;
    }
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
    __m128i,
    1,
    _mm_maskz_loadu_epi8,
    put128,
    _mm_mask_storeu_epi8
);
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
/// (independent work in flight: the light maps run up to 15% faster in
/// cache four at a time).
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn map16<I: Lanes16, O: Lanes16, const U: usize, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    f: impl Fn(I) -> O,
) {
    each(
        n,
        16 * U,
        16,
        (src, I::W * 8),
        |i| {
            for k in (i..i + 16 * U).step_by(16) {
                // SAFETY: lanes k .. k + 16 are within n; the stores are at
                // multiples of their width from the destination.
                unsafe { f(I::load(u16::MAX, src.add(I::W * k))).put::<NT>(dst.add(O::W * k)) }
            }
        },
        |i, left| {
            let m = tail_mask(left);
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

/// 32 nibble codes (one per dword lane of `c0`, then `c1`) as 16 bytes, low
/// nibble first: the dwords packed to words (VPACKUSDW interleaves the two
/// in groups of four), each pair of words joined into a byte, the bytes
/// narrowed and put back in order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn nibbles32(c0: __m512i, c1: __m512i) -> __m128i {
    let w = _mm512_packus_epi32(c0, c1);
    // Dword k: bits 0..3 its first code, 4..7 its second, the rest zero.
    let b =
        _mm512_ternarylogic_epi32::<0xA8>(w, _mm512_srli_epi32::<12>(w), _mm512_set1_epi32(0xFF));
    let b = _mm512_cvtepi32_epi8(b);
    // Byte 4L + j holds byte 2L + j of c0's (j < 2) or of c1's (j >= 2).
    let order = _mm_set_epi8(15, 14, 11, 10, 7, 6, 3, 2, 13, 12, 9, 8, 5, 4, 1, 0);
    _mm_shuffle_epi8(b, order)
}

/// float32 -> float8_e4m3fn.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f32_to_e4m3<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded.
    unsafe {
        map16::<__m512i, __m128i, 4, NT>(src, dst, n, |x| {
            reg128(_mm512_cvtepi32_epi8(narrow(x, E4M3FN)))
        })
    }
}

/// float32 -> float8_e5m2 through float16 rounded to odd: VCVTPS2PH toward
/// zero, with the last bit set when that was inexact (VCVTPH2PS widens back
/// exactly to compare). float16 has 11 significant bits against e5m2's 3,
/// the same exponent range and a quantum 2^8 times finer, and saturates
/// toward zero at 65504 (odd), past e5m2's overflow threshold 61440: so, as
/// in `lanes::f64_to_f32`, rounding the float16 bits to nearest-even at bit 8
/// rounds once. A NaN converts quiet keeping its top payload bits.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn f32_to_e5m2<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    const RZH: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
    let odd = |x: __m512| {
        let h = _mm512_cvtps_ph::<RZH>(x);
        let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(_mm512_cvtph_ps(h), x);
        _mm256_mask_mov_epi16(h, inexact, _mm256_or_si256(h, _mm256_set1_epi16(1)))
    };
    // 32 lanes under `m`, as 32 codes.
    let codes = |m: u32, p: *const u8| {
        // SAFETY: the caller's lanes in `m` are readable.
        let (x0, x1) = unsafe {
            (
                full::_mm512_maskz_loadu_ps(m as u16, p.cast()),
                full::_mm512_maskz_loadu_ps((m >> 16) as u16, p.wrapping_add(64).cast()),
            )
        };
        let h = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(odd(x0)), odd(x1));
        let t8 = _mm512_srli_epi16::<8>(h);
        let lsb = _mm512_and_si512(t8, _mm512_set1_epi16(1));
        // The sign rides along at bit 15: only a NaN could carry into it.
        let r = _mm512_srli_epi16::<8>(_mm512_add_epi16(
            _mm512_add_epi16(h, _mm512_set1_epi16(0x7F)),
            lsb,
        ));
        let a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
        let nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7C00));
        let r = _mm512_mask_mov_epi16(r, nan, _mm512_or_si512(t8, _mm512_set1_epi16(2)));
        reg256(_mm512_cvtepi16_epi8(r))
    };
    each(
        n,
        32,
        32,
        (src, 32),
        // SAFETY: lanes i .. i + 32 are within n; a 32-byte store at a
        // multiple of 32 from the destination.
        |i| unsafe { put256::<NT>(dst.add(i), codes(u32::MAX, src.add(4 * i))) },
        |i, left| {
            let m = ((1u64 << left) - 1) as u32;
            // SAFETY: lanes i .. i + left are within n.
            unsafe { full::_mm256_mask_storeu_epi8(dst.add(i).cast(), m, codes(m, src.add(4 * i))) }
        },
    );
}

/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f32_to_e2m1<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let codes = |m: u32, p: *const u8| {
        // SAFETY: the caller's lanes in `m` are readable.
        let (x0, x1) = unsafe {
            (
                full::_mm512_maskz_loadu_epi32(m as u16, p.cast()),
                full::_mm512_maskz_loadu_epi32((m >> 16) as u16, p.wrapping_add(64).cast()),
            )
        };
        nibbles32(narrow(x0, E2M1FN), narrow(x1, E2M1FN))
    };
    each(
        n,
        32,
        32,
        (src, 32),
        // SAFETY: lanes i .. i + 32 are within n; a 16-byte store at a
        // multiple of 16 from the destination.
        |i| unsafe { put128::<NT>(dst.add(i / 2), codes(u32::MAX, src.add(4 * i))) },
        |i, left| {
            let m = ((1u64 << left) - 1) as u32;
            let bytes = ((1u32 << left.div_ceil(2)) - 1) as u16;
            // SAFETY: lanes i .. i + left are within n, held by the
            // destination's first `bytes` bytes from i / 2.
            unsafe {
                full::_mm_mask_storeu_epi8(dst.add(i / 2).cast(), bytes, codes(m, src.add(4 * i)))
            }
        },
    );
}

/// float16 -> float32 (F16C: exact, NaN quieted keeping its payload).
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn f16_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let wide = |h| _mm512_castps_si512(_mm512_cvtph_ps(h));
    // SAFETY: forwarded.
    unsafe { map16::<__m256i, __m512i, 4, NT>(src, dst, n, wide) }
}

/// float32 -> float16 (VCVTPS2PH with embedded round-to-nearest; NaN
/// quieted keeping its top payload bits, as SEMANTICS.md).
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn f32_to_f16<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let half = |x| reg256(_mm512_cvtps_ph::<RN>(_mm512_castsi512_ps(x)));
    // SAFETY: forwarded.
    unsafe { map16::<__m512i, __m256i, 4, NT>(src, dst, n, half) }
}

/// 32 words (the top halves of float32) widened in order into the top
/// halves of 32 dwords, stored at `p` (128 bytes).
///
/// # Safety
/// `p` is writable for 128 bytes (and 64-byte aligned when `NT`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put_top_halves<const NT: bool>(p: *mut u8, h: __m512i) {
    // Quadwords 0 4 1 5 2 6 3 7: the in-lane unpacks then put words
    // 0 .. 15 in the first vector and 16 .. 31 in the second, in order.
    let order = _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0);
    let h = _mm512_permutexvar_epi64(order, h);
    let z = _mm512_setzero_si512();
    // SAFETY: forwarded.
    unsafe {
        put512::<NT>(p, _mm512_unpacklo_epi16(z, h));
        put512::<NT>(p.add(64), _mm512_unpackhi_epi16(z, h));
    }
}

/// 16 words (the top halves of float32) widened into dwords, stored at `p`
/// under `m`.
///
/// # Safety
/// `p` is writable for the lanes in `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn put_top_halves_part(p: *mut u8, m: u16, h: __m256i) {
    let x = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h));
    // SAFETY: forwarded.
    unsafe { full::_mm512_mask_storeu_epi32(p.cast(), m, x) }
}

/// A float8 -> float32 through `t`, its table: every float8 value, NaN included, is a
/// float32 whose low 16 bits are zero, so its top half (a bfloat16) comes
/// from a 128-entry table of words indexed by the magnitude (two VPERMI2W
/// over 64 words each, which read the index's low 6 bits, chosen by bit 6),
/// the sign is merged from the byte, and the words are widened into the top
/// halves of dwords.
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f8_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize, t: &[u16; 128]) {
    let [t0, t1, t2, t3] = [0, 32, 64, 96].map(|k| {
        // SAFETY: words k .. k + 32 lie within the 128 of `t`.
        unsafe { _mm512_loadu_si512(t.as_ptr().add(k).cast()) }
    });
    // Words (one per byte) to bfloat16 codes: table | (byte << 8 & 0x8000).
    let top = |w: __m512i| {
        let upper = _mm512_test_epi16_mask(w, _mm512_set1_epi16(64));
        let v = _mm512_mask_blend_epi16(
            upper,
            _mm512_permutex2var_epi16(t0, w, t1),
            _mm512_permutex2var_epi16(t2, w, t3),
        );
        _mm512_ternarylogic_epi32::<0xF8>(v, _mm512_slli_epi16::<8>(w), _mm512_set1_epi16(-0x8000))
    };
    each(
        n,
        32,
        16,
        (src, 8),
        |i| {
            // SAFETY: lanes i .. i + 32 are within n; 128 bytes stored at
            // a multiple of 128 from the destination.
            unsafe {
                let b = _mm256_loadu_si256(src.add(i).cast());
                put_top_halves::<NT>(dst.add(4 * i), top(_mm512_cvtepu8_epi16(b)));
            }
        },
        |i, left| {
            let m = tail_mask(left);
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let b = full::_mm_maskz_loadu_epi8(m, src.add(i).cast());
                let w = _mm512_castsi256_si512(_mm256_cvtepu8_epi16(b));
                put_top_halves_part(dst.add(4 * i), m, _mm512_castsi512_si256(top(w)));
            }
        },
    );
}

/// The top halves of the float32 values of the float8_e4m3fn magnitudes.
fn e4m3_table() -> &'static [u16; 128] {
    static T: OnceLock<[u16; 128]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u16; 128];
        for (k, v) in t.iter_mut().enumerate() {
            *v = (lanes::dec(E4M3FN, k as u32) >> 16) as u16;
        }
        t
    })
}

/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn e4m3_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: forwarded.
    unsafe { f8_to_f32::<NT>(src, dst, n, e4m3_table()) }
}

/// float8_e5m2 -> float32: an e5m2 byte is the top byte of a float16.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn e5m2_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let widen = |b: __m128i| {
        _mm512_castps_si512(_mm512_cvtph_ps(_mm256_slli_epi16::<8>(
            _mm256_cvtepu8_epi16(b),
        )))
    };
    // SAFETY: forwarded.
    unsafe { map16::<__m128i, __m512i, 4, NT>(src, dst, n, widen) }
}

/// float4_e2m1fn -> float32: a 16-entry table indexed by the nibble.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn e2m1_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    static T: OnceLock<[u32; 16]> = OnceLock::new();
    let t = T.get_or_init(|| {
        let mut t = [0u32; 16];
        for (k, v) in t.iter_mut().enumerate() {
            *v = lanes::dec(E2M1FN, k as u32);
        }
        t
    });
    // SAFETY: `t` holds 16 dwords.
    let table = unsafe { _mm512_loadu_si512(t.as_ptr().cast()) };
    // 16 nibbles (8 bytes, under `m`) as 16 float32.
    let wide = |m: u16, p: *const u8| {
        // SAFETY: the caller's bytes in `m` are readable.
        let b = unsafe { full::_mm_maskz_loadu_epi8(m, p.cast()) };
        let w = _mm_cvtepu8_epi16(b); // 8 u16, one byte each
        let split = _mm_or_si128(
            _mm_and_si128(w, _mm_set1_epi16(0x0F)),
            _mm_slli_epi16::<4>(_mm_andnot_si128(_mm_set1_epi16(0x0F), w)),
        );
        _mm512_permutexvar_epi32(_mm512_cvtepu8_epi32(split), table)
    };
    each(
        n,
        16,
        16,
        (src, 4),
        // SAFETY: lanes i .. i + 16 (8 bytes from i / 2) are within n;
        // 64-byte stores.
        |i| unsafe { put512::<NT>(dst.add(4 * i), wide(0xFF, src.add(i / 2))) },
        |i, left| {
            let m = tail_mask(left);
            let bytes = ((1u32 << left.div_ceil(2)) - 1) as u16;
            // SAFETY: `bytes` source bytes hold lanes i .. i + left, all
            // within n.
            unsafe {
                full::_mm512_mask_storeu_epi32(
                    dst.add(4 * i).cast(),
                    m,
                    wide(bytes, src.add(i / 2)),
                )
            }
        },
    );
}

/// float64 -> float32 bits for 8 lanes, rounded to odd, for destinations
/// whose least subnormal is far above 2^-126 (float16, the float8s,
/// float4): VCVTPD2PS toward zero, with the last bit set when that dropped
/// a nonzero bit. For |x| >= 2^-126 truncation drops exactly bits 0..28 of
/// x (past float32's range it gives the largest finite value, odd already;
/// a NaN keeps its top payload bits, and these destinations drop the last
/// one). Lanes below 2^-126 (float32 subnormal, where FTZ/DAZ may act) store
/// as the zero of their sign in such a destination either way.
///
/// # Safety
/// `p` is readable for the lanes in `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f64_odd(p: *const u8, m: u8) -> __m256i {
    // SAFETY: forwarded; masked lanes are not read.
    let x = unsafe { full::_mm512_maskz_loadu_pd(m, p.cast()) };
    let y = _mm256_castps_si256(_mm512_cvt_roundpd_ps::<RZ>(x));
    let inexact = _mm512_test_epi64_mask(_mm512_castpd_si512(x), _mm512_set1_epi64(0x1FFF_FFFF));
    _mm256_mask_or_epi32(y, inexact, y, _mm256_set1_epi32(1))
}

/// 16 lanes of `f64_odd` under `m`.
///
/// # Safety
/// `p` is readable for the lanes in `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f64_odd16(p: *const u8, m: u16) -> __m512i {
    // SAFETY: forwarded.
    let (lo, hi) = unsafe {
        (
            f64_odd(p, m as u8),
            f64_odd(p.wrapping_add(64), (m >> 8) as u8),
        )
    };
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// float64 -> float32 bits for 8 lanes, to nearest-even (`odd` false) or to
/// odd, exactly at every magnitude, with embedded rounding. Lanes below
/// 2^-126, whose float32 result is subnormal (where FTZ would act), are
/// computed apart: |x| + 2^-97 rounds (embedded) at float32's subnormal
/// quantum 2^-149, so its low bits are the float32 code; rounding to odd
/// sets the last bit when that sum was inexact. (DAZ can only zero a
/// float64 subnormal there, whose float32 result is 0 either way but for
/// the odd bit, which no narrower format sees: their quanta are far above
/// 2^-149.) The odd rounding of the other lanes is `f64_odd`'s.
///
/// # Safety
/// `p` is readable for the lanes in `m`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f64_group(p: *const u8, m: u8, odd: bool) -> __m256i {
    // SAFETY: forwarded; masked lanes are not read.
    let x = unsafe { full::_mm512_maskz_loadu_pd(m, p.cast()) };
    let bits = _mm512_castpd_si512(x);
    let a = _mm512_and_si512(bits, _mm512_set1_epi64(0x7FFF_FFFF_FFFF_FFFF));
    let tiny = _mm512_cmplt_epu64_mask(a, _mm512_set1_epi64(0x3810_0000_0000_0000));
    let y = if odd {
        let y = _mm256_castps_si256(_mm512_cvt_roundpd_ps::<RZ>(x));
        let inexact = _mm512_test_epi64_mask(bits, _mm512_set1_epi64(0x1FFF_FFFF));
        _mm256_mask_or_epi32(y, inexact, y, _mm256_set1_epi32(1))
    } else {
        _mm256_castps_si256(_mm512_cvt_roundpd_ps::<RN>(x))
    };
    if tiny == 0 {
        // The common case: no lane near float32's subnormals.
        return y;
    }
    let magic = _mm512_set1_epi64(((1023 - 97) as i64) << 52);
    let af = _mm512_castsi512_pd(a);
    let sign = _mm512_cvtepi64_epi32(_mm512_and_si512(
        _mm512_srli_epi64::<32>(bits),
        _mm512_set1_epi64(0x8000_0000),
    ));
    let code = if odd {
        let t = _mm512_add_round_pd::<RZ>(af, _mm512_castsi512_pd(magic));
        let code = _mm512_sub_epi64(_mm512_castpd_si512(t), magic);
        let back = _mm512_sub_round_pd::<RZ>(t, _mm512_castsi512_pd(magic));
        let inexact = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(back, af);
        _mm512_mask_or_epi64(code, inexact, code, _mm512_set1_epi64(1))
    } else {
        let t = _mm512_add_round_pd::<RN>(af, _mm512_castsi512_pd(magic));
        _mm512_sub_epi64(_mm512_castpd_si512(t), magic)
    };
    let small = _mm256_or_si256(_mm512_cvtepi64_epi32(code), sign);
    _mm256_mask_mov_epi32(y, tiny, small)
}

/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f64_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    each(
        n,
        16,
        8,
        (src, 64),
        |i| {
            // SAFETY: lanes i .. i + 16 are within n; 32-byte stores.
            unsafe {
                let lo = f64_group(src.add(8 * i), u8::MAX, false);
                let hi = f64_group(src.add(8 * i + 64), u8::MAX, false);
                put256::<NT>(dst.add(4 * i), lo);
                put256::<NT>(dst.add(4 * i + 32), hi);
            }
        },
        |i, left| {
            let m = tail_mask(left) as u8;
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let y = f64_group(src.add(8 * i), m, false);
                full::_mm256_mask_storeu_epi32(dst.add(4 * i).cast(), m, y);
            }
        },
    );
}

/// float64 -> a float8 or float4 through float32 rounded to odd (see
/// `lanes::f64_to_f32` for why that rounds once).
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f64_to_narrow<F: Fmt, const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    // 32 lanes under `m` as codes: 32 bytes, or 16 bytes of nibbles.
    let bytes = |m: u32, p: *const u8| {
        // SAFETY: the caller's lanes in `m` are readable.
        let (x0, x1) = unsafe {
            (
                f64_odd16(p, m as u16),
                f64_odd16(p.wrapping_add(128), (m >> 16) as u16),
            )
        };
        let (c0, c1) = (narrow(x0, F::F), narrow(x1, F::F));
        if F::F.bits() == 4 {
            _mm256_castsi128_si256(nibbles32(c0, c1))
        } else {
            let (b0, b1) = (_mm512_cvtepi32_epi8(c0), _mm512_cvtepi32_epi8(c1));
            reg256(_mm256_inserti128_si256::<1>(_mm256_castsi128_si256(b0), b1))
        }
    };
    each(
        n,
        32,
        32,
        (src, 64),
        |i| {
            // SAFETY: lanes i .. i + 32 are within n; a 32-byte store at a
            // multiple of 32 (16 at a multiple of 16) from the destination.
            unsafe {
                let b = bytes(u32::MAX, src.add(8 * i));
                if F::F.bits() == 4 {
                    put128::<NT>(dst.add(i / 2), _mm256_castsi256_si128(b));
                } else {
                    put256::<NT>(dst.add(i), b);
                }
            }
        },
        |i, left| {
            let m = ((1u64 << left) - 1) as u32;
            // SAFETY: lanes i .. i + left are within n (and the bytes
            // that hold them).
            unsafe {
                let b = bytes(m, src.add(8 * i));
                if F::F.bits() == 4 {
                    let keep = ((1u32 << left.div_ceil(2)) - 1) as u16;
                    full::_mm_mask_storeu_epi8(
                        dst.add(i / 2).cast(),
                        keep,
                        _mm256_castsi256_si128(b),
                    );
                } else {
                    full::_mm256_mask_storeu_epi8(dst.add(i).cast(), m, b);
                }
            }
        },
    );
}

/// float64 -> float16: float32 rounded to odd, then VCVTPS2PH (round to
/// nearest) — one rounding, as `lanes::f64_to_f32` shows.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn f64_to_f16<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    each(
        n,
        16,
        8,
        (src, 64),
        |i| {
            // SAFETY: lanes i .. i + 16 are within n; 32-byte stores.
            unsafe {
                let y = _mm512_castsi512_ps(f64_odd16(src.add(8 * i), u16::MAX));
                put256::<NT>(
                    dst.add(2 * i),
                    reg256(_mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(y)),
                );
            }
        },
        |i, left| {
            let m = tail_mask(left) as u8;
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let y = _mm256_castsi256_ps(f64_odd(src.add(8 * i), m));
                full::_mm_mask_storeu_epi16(
                    dst.add(2 * i).cast(),
                    m,
                    reg128(_mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(y)),
                );
            }
        },
    );
}

/// float64 -> bfloat16: float32 rounded to odd, then rounded to nearest on
/// the integer bits (a NaN keeps its top payload bits, quiet).
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f64_to_bf16<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    each(
        n,
        16,
        8,
        (src, 64),
        |i| {
            // SAFETY: lanes i .. i + 16 are within n; 32-byte stores.
            unsafe {
                let lo = f64_group(src.add(8 * i), u8::MAX, true);
                let hi = f64_group(src.add(8 * i + 64), u8::MAX, true);
                let x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                put256::<NT>(
                    dst.add(2 * i),
                    reg256(_mm512_cvtepi32_epi16(bf16_round16(x))),
                );
            }
        },
        |i, left| {
            let m = tail_mask(left) as u8;
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let y = f64_group(src.add(8 * i), m, true);
                full::_mm_mask_storeu_epi16(
                    dst.add(2 * i).cast(),
                    m,
                    reg128(_mm256_cvtepi32_epi16(bf16_round(y))),
                );
            }
        },
    );
}

/// float32 bits to bfloat16 codes in dword lanes (16 lanes), as
/// `bf16_round`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn bf16_round16(x: __m512i) -> __m512i {
    let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), _mm512_set1_epi32(1));
    let r = _mm512_srli_epi32::<16>(_mm512_add_epi32(
        _mm512_add_epi32(x, _mm512_set1_epi32(0x7FFF)),
        lsb,
    ));
    let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
    let nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F80_0000));
    let q = _mm512_or_si512(_mm512_srli_epi32::<16>(x), _mm512_set1_epi32(0x40));
    _mm512_mask_mov_epi32(r, nan, q)
}

/// float32 bits to bfloat16 codes in dword lanes (8 lanes).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn bf16_round(x: __m256i) -> __m256i {
    let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(1));
    let r = _mm256_srli_epi32::<16>(_mm256_add_epi32(
        _mm256_add_epi32(x, _mm256_set1_epi32(0x7FFF)),
        lsb,
    ));
    let a = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF_FFFF));
    let nan = _mm256_cmpgt_epu32_mask(a, _mm256_set1_epi32(0x7F80_0000));
    let q = _mm256_or_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(0x40));
    _mm256_mask_mov_epi32(r, nan, q)
}

/// 8 float32 (bits) widened exactly to float64. Subnormal lanes (which DAZ
/// would zero) are computed apart: their fraction converted to float64
/// (exact) times 2^-149 (exact, embedded rounding, normal operands and
/// result).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn f32_group_f64(x: __m256i) -> __m512i {
    let scale = _mm512_set1_pd(f64::from_bits((1023 - 149) << 52));
    let e = _mm256_and_si256(x, _mm256_set1_epi32(0x7F80_0000));
    let sub = _mm256_cmpeq_epi32_mask(e, _mm256_setzero_si256());
    let frac = _mm256_and_si256(x, _mm256_set1_epi32(0x7F_FFFF));
    let small = _mm512_mul_round_pd::<RN>(_mm512_cvtepi32_pd(frac), scale);
    let sign = _mm512_slli_epi64::<32>(_mm512_cvtepu32_epi64(_mm256_and_si256(
        x,
        _mm256_set1_epi32(i32::MIN),
    )));
    let small = _mm512_or_si512(_mm512_castpd_si512(small), sign);
    let y = _mm512_castpd_si512(_mm512_cvtps_pd(_mm256_castsi256_ps(x)));
    _mm512_mask_mov_epi64(y, sub, small)
}

/// float32 -> float64 (exact): plain VCVTPS2PD for a step of 16 with no
/// subnormal lane, else `f32_group_f64`.
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f32_to_f64<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    each(
        n,
        16,
        8,
        (src, 32),
        |i| {
            // SAFETY: lanes i .. i + 16 are within n; 64-byte stores.
            unsafe {
                let x = _mm512_loadu_si512(src.add(4 * i).cast());
                let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
                // a - 1 < 0x7FFFFF: a subnormal (0 wraps to the top).
                let a1 = _mm512_sub_epi32(a, _mm512_set1_epi32(1));
                let (xl, xh) = (_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x));
                let (lo, hi) = if _mm512_cmplt_epu32_mask(a1, _mm512_set1_epi32(0x7F_FFFF)) == 0 {
                    let lo = _mm512_cvtps_pd(_mm256_castsi256_ps(xl));
                    let hi = _mm512_cvtps_pd(_mm256_castsi256_ps(xh));
                    (_mm512_castpd_si512(lo), _mm512_castpd_si512(hi))
                } else {
                    (f32_group_f64(xl), f32_group_f64(xh))
                };
                put512::<NT>(dst.add(8 * i), lo);
                put512::<NT>(dst.add(8 * i + 64), hi);
            }
        },
        |i, left| {
            let m = tail_mask(left) as u8;
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let x = full::_mm256_maskz_loadu_epi32(m, src.add(4 * i).cast());
                full::_mm512_mask_storeu_epi64(dst.add(8 * i).cast(), m, f32_group_f64(x));
            }
        },
    );
}

/// bfloat16 -> float32: the top half; a NaN is made quiet (on the 16-bit
/// codes, 32 a vector).
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn bf16_to_f32<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let quiet = |h: __m512i| {
        let a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
        let nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7F80));
        _mm512_mask_mov_epi16(h, nan, _mm512_or_si512(h, _mm512_set1_epi16(0x40)))
    };
    each(
        n,
        32,
        16,
        (src, 16),
        // SAFETY: lanes i .. i + 32 are within n; 128 bytes stored at a
        // multiple of 128 from the destination.
        |i| unsafe {
            put_top_halves::<NT>(
                dst.add(4 * i),
                quiet(_mm512_loadu_si512(src.add(2 * i).cast())),
            )
        },
        |i, left| {
            let m = tail_mask(left);
            // SAFETY: lanes i .. i + left are within n.
            unsafe {
                let h = full::_mm256_maskz_loadu_epi16(m, src.add(2 * i).cast());
                let h = _mm512_castsi512_si256(quiet(_mm512_castsi256_si512(h)));
                put_top_halves_part(dst.add(4 * i), m, h);
            }
        },
    );
}

/// float32 -> bfloat16, rounded on the integer bits (`lanes::enc_bf16`).
///
/// # Safety
/// As `super::run`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f32_to_bf16<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let half = |x| reg256(_mm512_cvtepi32_epi16(bf16_round16(x)));
    // SAFETY: forwarded.
    unsafe { map16::<__m512i, __m256i, 4, NT>(src, dst, n, half) }
}

/// int8 / uint8 -> float32 (exact).
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn i8_to_f32<const SIGNED: bool, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    let widen = |b: __m128i| {
        let w = if SIGNED {
            _mm512_cvtepi8_epi32(b)
        } else {
            _mm512_cvtepu8_epi32(b)
        };
        _mm512_castps_si512(_mm512_cvtepi32_ps(w))
    };
    // SAFETY: forwarded.
    unsafe { map16::<__m128i, __m512i, 4, NT>(src, dst, n, widen) }
}

/// float32 -> int8 / uint8: clamp to the byte's range in float32 (VMINPS
/// and VMAXPS return their second operand, the source, when it is a NaN),
/// truncate (VCVTTPS2DQ, which no MXCSR mode changes but DAZ, and a
/// subnormal truncates to 0 either way; a NaN gives 0x8000_0000), keep the
/// low byte (VPMOVDB: a NaN's is 0, as SEMANTICS.md wants).
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn f32_to_i8<const SIGNED: bool, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    let (lo, hi) = if SIGNED {
        (-128.0, 127.0)
    } else {
        (0.0, 255.0)
    };
    let byte = |x: __m512i| {
        let x = _mm512_castsi512_ps(x);
        let y = _mm512_max_ps(_mm512_set1_ps(lo), _mm512_min_ps(_mm512_set1_ps(hi), x));
        reg128(_mm512_cvtepi32_epi8(_mm512_cvtt_roundps_epi32::<
            _MM_FROUND_NO_EXC,
        >(y)))
    };
    // SAFETY: forwarded.
    unsafe { map16::<__m512i, __m128i, 4, NT>(src, dst, n, byte) }
}

/// Masked loads and stores that take the plain (faster) instruction when
/// every lane is on, as in all but the last group of a call.
mod full {
    use std::arch::x86_64::*;

    /// A masked store that is the plain store when every lane is on.
    macro_rules! store {
        ($name:ident, $elem:ty, $mask:ty, $vec:ty, $plain:ident) => {
            /// # Safety
            #[doc = concat!("As `", stringify!($name), "`.")]
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
            pub unsafe fn $name(p: *mut $elem, m: $mask, v: $vec) {
                // SAFETY: forwarded; all lanes on means the whole vector's bytes.
                unsafe {
                    if m == <$mask>::MAX {
                        $plain(p.cast(), v)
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
                // SAFETY: forwarded; all lanes on means the whole vector's bytes.
                unsafe {
                    if m == <$mask>::MAX {
                        $plain(p.cast())
                    } else {
                        std::arch::x86_64::$name(m, p)
                    }
                }
            }
        };
    }

    store!(
        _mm256_mask_storeu_epi16,
        i16,
        u16,
        __m256i,
        _mm256_storeu_si256
    );
    store!(
        _mm256_mask_storeu_epi32,
        i32,
        u8,
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
    store!(
        _mm512_mask_storeu_epi64,
        i64,
        u8,
        __m512i,
        _mm512_storeu_si512
    );
    store!(_mm512_mask_storeu_ps, f32, u16, __m512, _mm512_storeu_ps);
    store!(_mm_mask_storeu_epi16, i16, u8, __m128i, _mm_storeu_si128);
    store!(_mm_mask_storeu_epi8, i8, u16, __m128i, _mm_storeu_si128);
    load!(
        _mm256_maskz_loadu_epi16,
        u16,
        i16,
        __m256i,
        _mm256_loadu_si256
    );
    load!(
        _mm256_maskz_loadu_epi32,
        u8,
        i32,
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
    load!(_mm512_maskz_loadu_pd, u8, f64, __m512d, _mm512_loadu_pd);
    load!(_mm512_maskz_loadu_ps, u16, f32, __m512, _mm512_loadu_ps);
    load!(_mm_maskz_loadu_epi8, u16, i8, __m128i, _mm_loadu_si128);
}

/// float32 -> bfloat16 with AVX512-BF16's VCVTNEPS2BF16: nearest-even
/// whatever MXCSR says, a NaN made quiet keeping its top payload bits (as
/// SEMANTICS.md) but subnormal inputs flushed to zero. bfloat16 shares
/// float32's exponent range, so only a subnormal input has a subnormal
/// result: a group holding one (rare) takes the integer rounding instead.
///
/// # Safety
/// As `super::run`, on a CPU with AVX512-BF16.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")]
pub unsafe fn f32_to_bf16_ne<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let half = |x| {
        let e = _mm512_and_si512(x, _mm512_set1_epi32(0x7F80_0000));
        let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
        let sub = _mm512_cmpeq_epi32_mask(e, _mm512_setzero_si512())
            & _mm512_cmpneq_epi32_mask(a, _mm512_setzero_si512());
        if sub == 0 {
            let h = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
            // SAFETY: both are 256 bits of vector register: a bit cast.
            reg256(unsafe { std::mem::transmute::<__m256bh, __m256i>(h) })
        } else {
            reg256(_mm512_cvtepi32_epi16(bf16_round16(x)))
        }
    };
    // SAFETY: forwarded.
    unsafe { map16::<__m512i, __m256i, 4, NT>(src, dst, n, half) }
}

/// float64 -> bfloat16 with AVX512-BF16: float32 rounded to odd, then
/// VCVTNEPS2BF16 (nearest-even, NaN quiet keeping its top payload bits, as
/// `bf16_round`), unless a lane's float32 is subnormal, which it would
/// flush: such a step (rare) rounds on the integer bits instead.
///
/// # Safety
/// As `super::run`, on a CPU with AVX512-BF16.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")]
pub unsafe fn f64_to_bf16_ne<const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    each(
        n,
        16,
        16,
        (src, 64),
        |i| {
            // SAFETY: lanes i .. i + 16 are within n; 32-byte stores.
            unsafe {
                let lo = f64_group(src.add(8 * i), u8::MAX, true);
                let hi = f64_group(src.add(8 * i + 64), u8::MAX, true);
                let x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                // 1 <= |x| bits <= 0x7F_FFFF: a nonzero subnormal.
                let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
                let sub = _mm512_cmplt_epu32_mask(
                    _mm512_sub_epi32(a, _mm512_set1_epi32(1)),
                    _mm512_set1_epi32(0x7F_FFFF),
                );
                let h = if sub == 0 {
                    // Both are 256 bits of vector register: a bit cast.
                    std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(
                        _mm512_castsi512_ps(x),
                    ))
                } else {
                    _mm512_cvtepi32_epi16(bf16_round16(x))
                };
                put256::<NT>(dst.add(2 * i), reg256(h));
            }
        },
        // SAFETY: the last `left` lanes, forwarded (ordinary stores).
        |i, left| unsafe { f64_to_bf16::<false>(src.add(8 * i), dst.add(2 * i), left) },
    );
}

//! Hand-written AVX-512 kernels for the pairs moved in bulk, replacing the
//! vectorized generic loop where it is too slow. Same element maps as
//! `lanes.rs`, and tested against the scalar reference like it; immune to
//! MXCSR: rounding is either integer arithmetic or instructions with
//! embedded rounding (`{rn-sae}`, `{rz-sae}`), and the few lanes whose
//! result FTZ/DAZ could touch (float32 subnormal inputs or results) are
//! computed apart or, for the float8 and float4 destinations, round to the
//! zero of their sign either way (`narrow16`).
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

/// The lanes of the last, partial group of 16 (or all 16).
#[inline(always)]
fn tail_mask(left: usize) -> u16 {
    if left >= 16 {
        u16::MAX
    } else {
        ((1u32 << left) - 1) as u16
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

/// float64 -> float32 bits for 8 lanes, rounded to odd, for a destination
/// whose least subnormal is far above 2^-126 (float16): VCVTPD2PS toward
/// zero, with the last bit set when that dropped a nonzero bit. For |x| >=
/// 2^-126 truncation drops exactly bits 0..28 of x (past float32's range it
/// gives the largest finite value, odd already; a NaN keeps its top payload
/// bits, and float16 drops the last one). Lanes below 2^-126 (float32
/// subnormal, where FTZ/DAZ may act) store as the zero of their sign in
/// float16 either way.
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
/// `lanes::f64_to_f32`). The odd bit only matters where the code's bits
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
///
/// A float64 comes as its float32 truncation (`to_narrow`), which truncates
/// into float16 as the float64 does (float16's grid is a subset of
/// float32's), with `odd` from the float64's bits (0 .. 40 + d: float16's
/// bit j is the float64's fraction bit 42 + j).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
fn narrow16(x0: __m512i, x1: __m512i, odd: u32, fmt: Format) -> __m512i {
    let d = 10 - fmt.fraction_bits;
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
    let h = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(x0)), half(x1));
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

/// float32 (`WIDE` false) or float64 (`WIDE` true) -> a float8 or float4
/// (`narrow16`, 32 lanes a group): bytes, or nibbles two a byte (low nibble
/// first).
///
/// # Safety
/// As `super::run`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,f16c")]
pub unsafe fn to_narrow<F: Fmt, const WIDE: bool, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    let sb = if WIDE { 8 } else { 4 };
    // 32 lanes under `m`, as codes in word lanes.
    let words = |m: u32, p: *const u8| {
        let d = 10 - F::F.fraction_bits;
        // SAFETY: the caller's lanes in `m` are readable.
        let (x0, x1, odd) = unsafe {
            if WIDE {
                // Four groups of 8: float32 toward zero (VCVTPD2PS), and the
                // odd bit from the float64's bits (`narrow16`).
                let tested = _mm512_set1_epi64(((1u64 << (41 + d)) - 1) as i64);
                let mut y = [_mm256_setzero_si256(); 4];
                let mut odd = 0u32;
                for (k, y) in y.iter_mut().enumerate() {
                    let x = full::_mm512_maskz_loadu_pd(
                        (m >> (8 * k)) as u8,
                        p.wrapping_add(64 * k).cast(),
                    );
                    *y = _mm256_castps_si256(_mm512_cvt_roundpd_ps::<RZ>(x));
                    odd |= u32::from(_mm512_test_epi64_mask(_mm512_castpd_si512(x), tested))
                        << (8 * k);
                }
                let [a, b, c, e] = y;
                let join = |lo, hi| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                (join(a, b), join(c, e), odd)
            } else {
                let x0 = full::_mm512_maskz_loadu_epi32(m as u16, p.cast());
                let x1 =
                    full::_mm512_maskz_loadu_epi32((m >> 16) as u16, p.wrapping_add(64).cast());
                let tested = _mm512_set1_epi32(((1u32 << (12 + d)) - 1) as i32);
                let odd = (u32::from(_mm512_test_epi32_mask(x1, tested)) << 16)
                    | u32::from(_mm512_test_epi32_mask(x0, tested));
                (x0, x1, odd)
            }
        };
        narrow16(x0, x1, odd, F::F)
    };
    // Word pairs into dwords holding a byte each: low + 16 * high.
    let nibbles = |w| _mm512_madd_epi16(w, _mm512_set1_epi32(0x0010_0001));
    // A step: 64 lanes into 64 bytes (float8: two groups packed, VPACKUSWB,
    // and put back in order), or 128 lanes into 64 bytes (float4: four
    // groups' byte pairs packed twice, VPACKUSDW and VPACKUSWB). Cheaper
    // than narrowing each group (VPMOVWB, VPMOVDB: two operations each);
    // every code is at most 0xFF, so the packs' saturation changes nothing.
    let nib = F::F.bits() == 4;
    each(
        n,
        if nib { 128 } else { 64 },
        32,
        (src, 8 * sb),
        |i| {
            // SAFETY: lanes i .. i + 64 (float4: 128) are within n; a
            // 64-byte store at a multiple of 64 from the destination.
            unsafe {
                let w = |k: usize| words(u32::MAX, src.add(sb * (i + 32 * k)));
                if nib {
                    let lo = _mm512_packus_epi32(nibbles(w(0)), nibbles(w(1)));
                    let hi = _mm512_packus_epi32(nibbles(w(2)), nibbles(w(3)));
                    // Dword 4L + k holds group k's bytes of 128-bit lane L.
                    let order =
                        _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
                    let b = _mm512_permutexvar_epi32(order, _mm512_packus_epi16(lo, hi));
                    put512::<NT>(dst.add(i / 2), b);
                } else {
                    // Quadword 2L + k holds group k's bytes of lane L.
                    let order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
                    let b = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(w(0), w(1)));
                    put512::<NT>(dst.add(i), b);
                }
            }
        },
        |i, left| {
            let m = ((1u64 << left) - 1) as u32;
            // SAFETY: lanes i .. i + left are within n (and the bytes
            // that hold them).
            unsafe {
                let w = words(m, src.add(sb * i));
                if nib {
                    let keep = ((1u32 << left.div_ceil(2)) - 1) as u16;
                    let b = reg128(_mm512_cvtepi32_epi8(nibbles(w)));
                    full::_mm_mask_storeu_epi8(dst.add(i / 2).cast(), keep, b);
                } else {
                    let b = reg256(_mm512_cvtepi16_epi8(w));
                    full::_mm256_mask_storeu_epi8(dst.add(i).cast(), m, b);
                }
            }
        },
    );
}

//! Table lookups (AVX512-VBMI's byte permutes). A source byte (one element
//! of 8 bits, two of 4) indexes the results of its pair for every byte,
//! made once by the scalar reference itself (so the lookup cannot disagree
//! with it): 16 bits of results a byte (`look_up16`: some 8-bit dtypes
//! into 16 bits, `WIDE`; the 4-bit dtypes -> the 8-bit ones), 8
//! (`look_up8`: among the 8-bit dtypes, among the 4-bit ones) or 4
//! (`look_up4`: the 8-bit dtypes into the 4-bit ones). Among the 8- and
//! 4-bit dtypes a lookup replaces the lanes' widening to float32, encoding
//! and narrowing back (between two 4-bit dtypes a byte, two elements, is
//! looked up whole).
//!
//! And float32, float64, bfloat16 and float16 into float4_e2m1fn
//! (`to_e2m1`), whose every rounding fits one table of 64 bytes indexed by
//! the source's exponent and top fraction bits. And float16 into int4 and uint4
//! (`f16_to_4bit`), whose truncations a byte of the source decides; and
//! float8_e4m3fn into the integers of 32 and 64 bits (`ints`), looked up
//! into 16 bits and extended.

use super::{first_lanes, full, put512, reg256, F64_TOP};
use crate::codes::*;
use crate::format::{Format, BF16, F16, F32};
use crate::kernels::lanes::{each, Fetch};
use crate::kernels::scalar;
use crate::table::Dtype;
use crate::value::dtype_of;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The pairs looked up by source byte; `bytes::<K>` converts `PAIRS[K]`.
/// A source byte holds one element of 8 bits or two of 4, whose results
/// take 4, 8 or 16 bits (`out_bits`): some 8-bit sources into 16 bits,
/// and every pair among the dtypes of 8 and 4 bits (`SMALL`) but those
/// whose kernels were faster (`KEPT`).
pub const PAIRS: [(i32, i32); COUNT] = pairs();

/// `PAIRS`' length.
const COUNT: usize = WIDE.len() + SMALL.len() * (SMALL.len() - 1) - KEPT.len();

/// 8-bit sources into 16 bits where the lookup beat the lanes (the lanes
/// stay for float8_e5m2 -> float16, a shift, and int8, uint8 -> bfloat16;
/// BENCHMARKS.md, "Kernel choices").
const WIDE: [(i32, i32); 10] = [
    (NX_INT8, NX_FLOAT16),
    (NX_UINT8, NX_FLOAT16),
    (NX_FLOAT8_E4M3FN, NX_FLOAT16),
    (NX_FLOAT8_E4M3FN, NX_BFLOAT16),
    (NX_FLOAT8_E5M2, NX_BFLOAT16),
    (NX_FLOAT8_E4M3FN, NX_INT16),
    (NX_FLOAT8_E4M3FN, NX_UINT16),
    (NX_FLOAT8_E5M2, NX_INT16),
    (NX_FLOAT8_E5M2, NX_UINT16),
    (NX_BOOL, NX_FLOAT16),
];

/// The dtypes of 8 and 4 bits: looked up among themselves.
const SMALL: [i32; 8] = [
    NX_FLOAT8_E4M3FN,
    NX_FLOAT8_E5M2,
    NX_FLOAT4_E2M1FN,
    NX_INT8,
    NX_UINT8,
    NX_INT4,
    NX_UINT4,
    NX_BOOL,
];

/// The pairs of `SMALL` whose kernels beat the lookup: among int8, uint8
/// and bool (a copy, a clamp, a compare) and int4, uint4 -> bool.
const KEPT: [(i32, i32); 8] = [
    (NX_INT8, NX_UINT8),
    (NX_UINT8, NX_INT8),
    (NX_INT8, NX_BOOL),
    (NX_UINT8, NX_BOOL),
    (NX_BOOL, NX_INT8),
    (NX_BOOL, NX_UINT8),
    (NX_INT4, NX_BOOL),
    (NX_UINT4, NX_BOOL),
];

/// `PAIRS`: `WIDE`, then every pair of two `SMALL` dtypes not `KEPT`.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn pairs() -> [(i32, i32); COUNT] {
    let mut t = [(0, 0); COUNT];
    let mut k = 0;
    while k < WIDE.len() {
        t[k] = WIDE[k];
        k += 1;
    }
    let mut i = 0;
    while i < SMALL.len() {
        let mut j = 0;
        while j < SMALL.len() {
            let p = (SMALL[i], SMALL[j]);
            let mut kept = p.0 == p.1;
            let mut q = 0;
            while q < KEPT.len() {
                kept |= KEPT[q].0 == p.0 && KEPT[q].1 == p.1;
                q += 1;
            }
            if !kept {
                t[k] = p;
                k += 1;
            }
            j += 1;
        }
        i += 1;
    }
    assert!(k == t.len());
    t
}

/// `PAIRS[k]`'s dtypes, checked to give 4, 8 or 16 bits a source byte.
#[allow(clippy::panic, clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn pair(k: usize) -> (Dtype, Dtype) {
    match (Dtype::from_code(PAIRS[k].0), Dtype::from_code(PAIRS[k].1)) {
        (Some(s), Some(d))
            if (s.bits() == 4 || s.bits() == 8)
                && matches!(8 / s.bits() * d.bits(), 4 | 8 | 16) =>
        {
            (s, d)
        }
        _ => panic!("a lookup pair gives 4, 8 or 16 bits a source byte"),
    }
}

/// Bits of results a source byte of `PAIRS[k]`.
const fn out_bits(k: usize) -> usize {
    let (s, d) = pair(k);
    (8 / s.bits() * d.bits()) as usize
}

/// A pair's results for every source byte, as the kernel of its
/// `out_bits` reads them: 16 bits, the low bytes then the high bytes; 8
/// bits, a byte each; 4 bits, a byte each holding the nibble. And how
/// 16-bit results fold (`Fold`).
struct Table {
    bytes: [u8; 512],
    fold: Fold,
}

/// How a pair's 16-bit results fold onto 128 of them, the sign bit (15)
/// or'ed in from the source byte's (7): half the lookups.
#[derive(Clone, Copy, PartialEq)]
enum Fold {
    /// No fold: 256 results.
    None,
    /// Byte c + 128's result is c's with the sign bit set, for every c <
    /// 128 (a float source into a float). The planes stay as made; a
    /// byte indexes them by its low 7 bits.
    Sign,
    /// Byte -c's result has the sign bit set and is c's with it, for
    /// every 0 < c <= 128 (but c = 128, a byte of its own), and byte 0's
    /// is 0 (int8 into a float). Each plane's first 128 bytes are
    /// rewritten to hold the results of -1 .. -128 without it; a byte
    /// indexes them by |c| - 1.
    Magnitude,
}

/// `$body` with `$f` the const of `$fold` (a `Fold` as u8, for the const
/// parameters of the kernels that take it): one instance a fold, chosen
/// once a call.
macro_rules! by_fold {
    ($fold:expr, $f:ident => $body:expr) => {
        match $fold {
            Fold::None => {
                const $f: u8 = Fold::None as u8;
                $body
            }
            Fold::Sign => {
                const $f: u8 = Fold::Sign as u8;
                $body
            }
            Fold::Magnitude => {
                const $f: u8 = Fold::Magnitude as u8;
                $body
            }
        }
    };
}

/// `PAIRS[K]`'s table, made at the pair's first use by the scalar
/// reference over the 256 source bytes (so the lookup cannot disagree
/// with it).
fn table<const K: usize>() -> &'static Table {
    static MADE: [OnceLock<Table>; PAIRS.len()] = [const { OnceLock::new() }; PAIRS.len()];
    static NONE: OnceLock<Table> = OnceLock::new();
    let (s, d) = const { pair(K) };
    MADE.get(K).unwrap_or(&NONE).get_or_init(|| {
        let codes: [u8; 256] = std::array::from_fn(|c| c as u8);
        let mut out = [0u8; 512];
        let n = 256 * 8 / s.bits() as usize;
        scalar::run(s, d, &codes, &mut out, n);
        let mut bytes = [0u8; 512];
        let mut fold = Fold::None;
        match const { out_bits(K) } {
            16 => {
                let (lo, hi) = bytes.split_at_mut(256);
                for ((l, h), w) in lo.iter_mut().zip(hi.iter_mut()).zip(out.chunks_exact(2)) {
                    if let &[a, b] = w {
                        (*l, *h) = (a, b);
                    }
                }
                // Source byte c's result.
                let of = |c: usize| match out.get(2 * c..2 * c + 2) {
                    Some(&[a, b]) => u16::from_le_bytes([a, b]),
                    _ => 0,
                };
                if (0..128).all(|c| of(c + 128) == of(c) | 0x8000) {
                    fold = Fold::Sign;
                } else if of(0) == 0
                    && (1..=128).all(|c| of(256 - c) >= 0x8000)
                    && (1..128).all(|c| of(c) == of(256 - c) & 0x7FFF)
                {
                    fold = Fold::Magnitude;
                    // Entry i: byte -(i + 1)'s result, its sign cleared.
                    for i in 0..128 {
                        let [a, b] = (of(255 - i) & 0x7FFF).to_le_bytes();
                        if let (Some(l), Some(h)) = (lo.get_mut(i), hi.get_mut(i)) {
                            (*l, *h) = (a, b);
                        }
                    }
                }
            }
            8 => bytes = out,
            _ => {
                for (b, c) in bytes
                    .iter_mut()
                    .zip(out.iter().flat_map(|&o| [o & 0x0F, o >> 4]))
                {
                    *b = c;
                }
            }
        }
        Table { bytes, fold }
    })
}

/// `PAIRS[K]`, `n` elements.
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn bytes<const K: usize, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let (s, d) = const { pair(K) };
    // Source and destination bytes: a 4-bit side's last may be half used.
    let (nin, nout) = (
        (n * s.bits() as usize).div_ceil(8),
        (n * d.bits() as usize).div_ceil(8),
    );
    let t = table::<K>();
    // SAFETY: forwarded.
    unsafe {
        match const { out_bits(K) } {
            16 => by_fold!(t.fold, F => look_up16::<F, NT>(&t.bytes, src, dst, nin, nout, ahead)),
            8 => look_up8::<NT>(&t.bytes, src, dst, nin, ahead),
            _ => look_up4::<NT>(&t.bytes, src, dst, nin, nout, ahead),
        }
    }
}

/// The 256 bytes of `t` as four vectors.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn quarter_vectors(t: &[u8]) -> [__m512i; 4] {
    std::array::from_fn(|j| match t.get(64 * j..64 * j + 64) {
        // SAFETY: 64 bytes.
        Some(q) => unsafe { _mm512_loadu_si512(q.as_ptr().cast()) },
        None => _mm512_setzero_si512(),
    })
}

/// The bytes of `[a, b, c, d]` (256) at the 64 indexes of `x`: VPERMI2B
/// looks up 64 bytes in 128 at a time, two of them and a blend on the
/// index's top bit.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn look(x: __m512i, [a, b, c, d]: [__m512i; 4]) -> __m512i {
    let low = _mm512_permutex2var_epi8(a, x, b);
    let high = _mm512_permutex2var_epi8(c, x, d);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high)
}

/// 8 bits of results a source byte (an element of 8 bits into 8, two of 4
/// into 4): each of the `nin` bytes looked up in the 256 of `t`.
///
/// # Safety
/// As `bytes`, `nin` bytes on each side.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn look_up8<const NT: bool>(
    t: &[u8; 512],
    src: *const u8,
    dst: *mut u8,
    nin: usize,
    ahead: usize,
) {
    let t = quarter_vectors(t);
    each(
        nin,
        64,
        64,
        Fetch::new::<NT>(src, 8, ahead),
        |i| {
            // SAFETY: bytes i .. i + 64 are within nin, at a multiple of 64
            // from the destination.
            unsafe { put512::<NT>(dst.add(i), look(_mm512_loadu_si512(src.add(i).cast()), t)) }
        },
        |i, left| {
            let m = first_lanes(left);
            // SAFETY: bytes i .. i + left are within nin.
            unsafe {
                let x = full::_mm512_maskz_loadu_epi8(m, src.add(i).cast());
                full::_mm512_mask_storeu_epi8(dst.add(i).cast(), m, look(x, t));
            }
        },
    );
}

/// 4 bits of results a source byte (8-bit elements into 4-bit ones): each
/// of the `nin` bytes looked up in the 256 nibbles of `t` (a byte each),
/// paired into `nout` bytes (low nibble first).
///
/// # Safety
/// As `bytes`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn look_up4<const NT: bool>(
    t: &[u8; 512],
    src: *const u8,
    dst: *mut u8,
    nin: usize,
    nout: usize,
    ahead: usize,
) {
    let t = quarter_vectors(t);
    // 32 words, each two nibbles: a byte.
    let pairs = |x: __m512i| super::pair_nibbles(look(x, t));
    let even = super::even_bytes();
    each(
        nin,
        128,
        64,
        Fetch::new::<NT>(src, 8, ahead),
        |i| {
            // SAFETY: bytes i .. i + 128 are within nin; 64 bytes out at a
            // multiple of 64 from the destination.
            unsafe {
                let [a, b] = [0, 64].map(|k| pairs(_mm512_loadu_si512(src.add(i + k).cast())));
                put512::<NT>(dst.add(i / 2), _mm512_permutex2var_epi8(a, even, b));
            }
        },
        |i, left| {
            // SAFETY: bytes i .. i + left are within nin, and their results'
            // bytes within nout (i is even).
            unsafe {
                let x = full::_mm512_maskz_loadu_epi8(first_lanes(left), src.add(i).cast());
                let m = first_lanes((nout - i / 2).min(32)) as u32;
                let b = reg256(_mm512_cvtepi16_epi8(pairs(x)));
                full::_mm256_mask_storeu_epi8(dst.add(i / 2).cast(), m, b);
            }
        },
    );
}

/// The 16-bit results of a pair (`look_up16`'s, `ints`'), from
/// the two planes of its table: two byte permutes interleave the planes
/// into 64 results, each plane a `look`, or where the results fold
/// (`FOLD`, a `Fold` as u8) one VPERMI2B and the sign or'ed in: 12 vector
/// operations for 64 elements, 7 folded by the sign, 10 by the magnitude
/// (its index |c| - 1, zeroes masked), where the lanes widen to float32,
/// encode and narrow back.
struct Planes {
    lo: [__m512i; 4],
    hi: [__m512i; 4],
    first: __m512i,
    second: __m512i,
}

impl Planes {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    fn new(t: &[u8; 512]) -> Self {
        let (lo, hi) = t.split_at(256);
        // Byte j of the result words: lo[j / 2] or hi[j / 2], from the
        // first half of the two planes (`first`) or the second.
        let first: [i8; 64] = std::array::from_fn(|j| ((j % 2) * 64 + j / 2) as i8);
        // SAFETY: 64 bytes from an array of 64.
        let first = unsafe { _mm512_loadu_si512(first.as_ptr().cast()) };
        Planes {
            lo: quarter_vectors(lo),
            hi: quarter_vectors(hi),
            first,
            second: _mm512_add_epi8(first, _mm512_set1_epi8(32)),
        }
    }

    /// The results of the 64 bytes of `x`, 32 words a vector, in order.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    fn words<const FOLD: u8>(&self, x: __m512i) -> (__m512i, __m512i) {
        let (lo, hi) = if FOLD == Fold::None as u8 {
            (look(x, self.lo), look(x, self.hi))
        } else {
            // The index and the lanes looked up (the others zeroed).
            let (i, z) = if FOLD == Fold::Sign as u8 {
                (x, !0)
            } else {
                let i = _mm512_add_epi8(_mm512_abs_epi8(x), _mm512_set1_epi8(-1));
                (i, _mm512_test_epi8_mask(x, x))
            };
            let [a, b, ..] = self.lo;
            let [e, f, ..] = self.hi;
            let look = |p, q| _mm512_maskz_permutex2var_epi8(z, p, i, q);
            let sign = _mm512_set1_epi8(i8::MIN);
            (
                look(a, b),
                _mm512_ternarylogic_epi32::<0xF8>(look(e, f), x, sign),
            )
        };
        (
            _mm512_permutex2var_epi8(lo, self.first, hi),
            _mm512_permutex2var_epi8(lo, self.second, hi),
        )
    }
}

/// 16 bits of results a source byte (an element of 8 bits into 16, two of
/// 4 into 8), from the two planes of `t` (`Planes`).
///
/// # Safety
/// As `bytes`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn look_up16<const FOLD: u8, const NT: bool>(
    t: &[u8; 512],
    src: *const u8,
    dst: *mut u8,
    nin: usize,
    nout: usize,
    ahead: usize,
) {
    let planes = Planes::new(t);
    let words = |x: __m512i| planes.words::<FOLD>(x);
    // Bytes i .. i + left: their results' bytes, but no further than
    // `nout` (a 4-bit source's last byte may give one element, not two).
    let mut part = |i: usize, left: usize| {
        let o = (nout - 2 * i).min(2 * left);
        // SAFETY: bytes i .. i + left are within nin, their results'
        // bytes 2 i .. 2 i + o within nout.
        unsafe {
            let x = full::_mm512_maskz_loadu_epi8(first_lanes(left), src.add(i).cast());
            let (a, b) = words(x);
            full::_mm512_mask_storeu_epi8(dst.add(2 * i).cast(), first_lanes(o), a);
            let m = first_lanes(o.saturating_sub(64));
            full::_mm512_mask_storeu_epi8(dst.add(2 * i + 64).cast(), m, b);
        }
    };
    // Whole steps only over the bytes whose two results both fit.
    let whole = nout / 2;
    each(
        whole,
        64,
        64,
        Fetch::new::<NT>(src, 8, ahead),
        |i| {
            // SAFETY: bytes i .. i + 64 are within nin, and their 128
            // results' within nout, at a multiple of 128 from the
            // destination.
            unsafe {
                let (a, b) = words(_mm512_loadu_si512(src.add(i).cast()));
                put512::<NT>(dst.add(2 * i), a);
                put512::<NT>(dst.add(2 * i + 64), b);
            }
        },
        &mut part,
    );
    if nin > whole {
        part(whole, nin - whole);
    }
}

/// `ints`' destination `d` for the 16-bit pair `k` (an 8-bit source into
/// int16 or uint16), checked: an integer of 32 or 64 bits of the same
/// signedness, which holds each result as it is.
#[allow(clippy::panic)] // only in constant blocks: would fail the build
const fn ints_dest(k: usize, d: i32) -> Dtype {
    let (s, w) = pair(k);
    let signed = match w.code() {
        NX_INT16 => true,
        NX_UINT16 => false,
        _ => panic!("ints: not a pair into int16 or uint16"),
    };
    match Dtype::from_code(d) {
        Some(t)
            if s.bits() == 8
                && (signed && matches!(d, NX_INT32 | NX_INT64)
                    || !signed && matches!(d, NX_UINT32 | NX_UINT64)) =>
        {
            t
        }
        _ => panic!("ints: not a 32- or 64-bit integer of the pair's signedness"),
    }
}

/// An 8-bit source -> an integer of 32 or 64 bits (`D`) whose every result
/// int16 or uint16 holds (float8_e4m3fn's: at most 448 in magnitude, NaN
/// 0), by the lookup of its pair into those (`PAIRS[K]`, `Planes`) and
/// one extension a vector (VPMOVSXWD/VPMOVZXWD, or into 64 bits from each
/// quarter), in place of float32 lanes truncated, clamped and masked.
/// (float8_e5m2's infinities saturate to bounds 16 bits do not hold.)
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn ints<const K: usize, const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let t = table::<K>();
    // SAFETY: forwarded.
    unsafe { by_fold!(t.fold, F => ints_by::<F, K, D, NT>(&t.bytes, src, dst, n, ahead)) }
}

/// `ints` with the fold of its table `t` (`FOLD`, a `Fold` as u8).
///
/// # Safety
/// As `ints`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn ints_by<const FOLD: u8, const K: usize, const D: i32, const NT: bool>(
    t: &[u8; 512],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let x = const { ints_dest(K, D).bits() as usize / 8 };
    let signed = matches!(D, NX_INT32 | NX_INT64);
    let planes = Planes::new(t);
    // The results of 64 source bytes, `x` vectors of them.
    let wide = |v: __m512i| -> [__m512i; 8] {
        let (a, b) = planes.words::<FOLD>(v);
        let z = _mm512_setzero_si512();
        if x == 4 {
            let e = |h: __m256i| {
                if signed {
                    _mm512_cvtepi16_epi32(h)
                } else {
                    _mm512_cvtepu16_epi32(h)
                }
            };
            let [a0, a1] = super::halves(a);
            let [b0, b1] = super::halves(b);
            [e(a0), e(a1), e(b0), e(b1), z, z, z, z]
        } else {
            let e = |q: __m128i| {
                if signed {
                    _mm512_cvtepi16_epi64(q)
                } else {
                    _mm512_cvtepu16_epi64(q)
                }
            };
            let q = |w: __m512i| {
                [
                    _mm512_castsi512_si128(w),
                    _mm512_extracti32x4_epi32::<1>(w),
                    _mm512_extracti32x4_epi32::<2>(w),
                    _mm512_extracti32x4_epi32::<3>(w),
                ]
            };
            let [a0, a1, a2, a3] = q(a);
            let [b0, b1, b2, b3] = q(b);
            [a0, a1, a2, a3, b0, b1, b2, b3].map(e)
        }
    };
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, 8, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n, their results'
            // bytes at a multiple of 64 from the destination.
            unsafe {
                let v = wide(_mm512_loadu_si512(src.add(i).cast()));
                for (k, v) in v.into_iter().take(x).enumerate() {
                    put512::<NT>(dst.add(x * i + 64 * k), v);
                }
            }
        },
        |i, left| {
            // SAFETY: elements i .. i + left are within n (and their
            // results' bytes).
            unsafe {
                let v = wide(full::_mm512_maskz_loadu_epi8(
                    first_lanes(left),
                    src.add(i).cast(),
                ));
                for (k, v) in v.into_iter().take(x).enumerate() {
                    let m = first_lanes((x * left).saturating_sub(64 * k));
                    full::_mm512_mask_storeu_epi8(dst.add(x * i + 64 * k).cast(), m, v);
                }
            }
        },
    );
}

/// The index in `PAIRS` of `(s, d)`, which must be there.
#[allow(clippy::panic, clippy::indexing_slicing)] // only in constant blocks: would fail the build
pub const fn pair_index(s: i32, d: i32) -> usize {
    let mut k = 0;
    while k < PAIRS.len() {
        if PAIRS[k].0 == s && PAIRS[k].1 == d {
            return k;
        }
        k += 1;
    }
    panic!("no such lookup pair")
}

/// The format whose codes `to_e2m1` of source dtype `S` indexes:
/// bfloat16 is float32's top half, so it indexes as float32; float64 by
/// its top words (`F64_TOP`).
#[allow(clippy::panic)] // only in constant blocks: would fail the build
const fn indexed(s: i32) -> Format {
    match s {
        NX_FLOAT64 => F64_TOP,
        NX_FLOAT32 | NX_BFLOAT16 => F32,
        NX_FLOAT16 => F16,
        _ => panic!("not a source of to_e2m1"),
    }
}

/// The bit of a code of `f` into which `to_e2m1` folds the bits below it
/// (a sticky bit under the fraction's top two): float32's bit 20,
/// bfloat16's bit 4, float16's 7, `F64_TOP`'s 1 (float64's bit 49).
const fn e2m1_fold(f: Format) -> u32 {
    f.fraction_bits - 3
}

/// The index word of `f` (`indexed`) from which `e2m1_table` starts: the
/// binade of 2^-3, below which everything rounds to zero (half the least
/// subnormal is 2^-2).
const fn e2m1_low(f: Format) -> u16 {
    ((f.bias - 3) << 3) as u16
}

/// float4_e2m1fn's magnitude code for index word `e2m1_low(f)` + j of `f`
/// (float32 or float16, `indexed`), j < 56: seven binades of eight (the
/// fraction's top two bits and a sticky bit), made once by the scalar
/// reference from the least code of each word, or, for a sticky word, one
/// halfway inside it: every code of the word rounds alike, as no midpoint
/// of float4_e2m1fn falls strictly between two multiples of the sticky
/// bit's weight (its round bit is the one above the kept two, or higher).
/// The last binade (8 to 16) saturates: so does everything past it.
fn e2m1_table(f: Format) -> &'static [u8; 64] {
    static MADE: [OnceLock<[u8; 64]>; 2] = [OnceLock::new(), OnceLock::new()];
    let [f32_made, f16_made] = &MADE;
    let (made, s) = if f.bits() == 16 {
        (f16_made, const { dtype_of::<{ NX_FLOAT16 as usize }>() })
    } else {
        (f32_made, const { dtype_of::<{ NX_FLOAT32 as usize }>() })
    };
    let d = const { dtype_of::<{ NX_FLOAT4_E2M1FN as usize }>() };
    made.get_or_init(|| {
        let fold = e2m1_fold(f);
        let mut t = [0u8; 64];
        for (j, c) in (0u32..).zip(t.iter_mut().take(56)) {
            let r = u32::from(e2m1_low(f)) + j;
            let x = ((r & !1) << fold) | ((r & 1) << (fold - 1));
            let mut code = [0u8];
            let (x32, x16) = (x.to_le_bytes(), (x as u16).to_le_bytes());
            let bytes: &[u8] = if f.bits() == 16 { &x16 } else { &x32 };
            scalar::run(s, d, bytes, &mut code, 1);
            *c = code[0] & 0x0F;
        }
        t
    })
}

/// The byte permutation that puts a `to_e2m1` step's nibble pairs in
/// order. Element e sits at index byte P(e): for float32 words (`wide`,
/// four vectors of 16 dwords packed twice) e = 16k + 4L + r sits at 16L +
/// 4k + r; for 16-bit sources (two vectors of 32 words packed once) e =
/// 32h + 8L + r sits at 16L + 8h + r. `pair_nibbles` leaves elements e and
/// e + 1 (e even, so P(e) even) in the low byte of word P(e) / 2, byte
/// P(e): output byte b, elements 2b and 2b + 1, is byte P(2b) (one VPERMB,
/// where packing the words and permuting them took two operations).
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn nibble_order(wide: bool) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut b = 0;
    while b < 32 {
        let e = 2 * b;
        t[b] = if wide {
            16 * (e % 16 / 4) + 4 * (e / 16) + e % 4
        } else {
            16 * (e % 32 / 8) + 8 * (e / 32) + e % 8
        } as u8;
        b += 1;
    }
    t
}

/// float64, float32, bfloat16 or float16 (`S`, its dtype code) ->
/// float4_e2m1fn by one byte lookup (VPERMB) a 64 elements, in place of
/// the roundings through float16 (`to_narrow`, the float64 lanes) and in
/// float16 or bfloat16 codes (`narrow_code16`). Each source element x: the
/// bits below bit `e2m1_fold` or'ed into it (a sticky bit), x shifted right
/// to there (sign, exponent, the fraction's top two bits, the sticky) in a
/// word; the magnitude clamped to the table's seven binades (`e2m1_table`:
/// below them zero, above them saturated, infinity too) and the table's
/// index; NaN gives index 0 (+0: SEMANTICS.md) and no sign; the sign or'ed
/// in as bit 3 of the code.
///
/// A float64 x is folded at bit 49 in its 64 bits and its top word taken
/// (`f64_words`), a code of `F64_TOP` with its sticky bit at bit 1:
/// float64's exponent whole, no float32 in between. The table is
/// float32's: its codes are the same in every format, by binade from 2^-3.
/// Cheaper than truncating it to float32 (VCVTPD2PS) and indexing that.
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn to_e2m1<const S: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let f = const { indexed(S) };
    let fold = const { e2m1_fold(if S == NX_BFLOAT16 { BF16 } else { indexed(S) }) };
    let low = const { e2m1_low(indexed(S)) };
    // float32: four vectors of 16 dwords; the others two of 32 words.
    let wide = S == NX_FLOAT32;
    let order = const { nibble_order(S == NX_FLOAT32) };
    // SAFETY: 64 bytes each.
    let (table, order) = unsafe {
        (
            _mm512_loadu_si512(
                e2m1_table(if S == NX_FLOAT16 { F16 } else { F32 })
                    .as_ptr()
                    .cast(),
            ),
            _mm512_loadu_si512(order.as_ptr().cast()),
        )
    };
    let w16 = |k: u16| _mm512_set1_epi16(k as i16);
    // 32 index words (x >> `fold`): index, and sign at bit 3.
    let index = |p: __m512i| {
        let m = _mm512_and_si512(p, w16((1 << (f.exponent_bits + 3)) - 1));
        let inf = (f.infinity_bits() >> e2m1_fold(f)) as u16;
        // The lanes that are not NaN. (Asked as "not above infinity", LLVM
        // zeroes the NaN lanes by two blends after the fact.)
        let num = _mm512_cmplt_epu16_mask(m, w16(inf + 1));
        let i = _mm512_maskz_subs_epu16(num, _mm512_min_epu16(m, w16(low + 55)), w16(low));
        // The sign from bit 11 (float32, bfloat16), 8 (float16) or 14
        // (float64).
        let sign = match f.exponent_bits {
            8 => _mm512_maskz_srli_epi16::<8>(num, p),
            5 => _mm512_maskz_srli_epi16::<5>(num, p),
            _ => _mm512_maskz_srli_epi16::<11>(num, p),
        };
        (i, sign)
    };
    // The 64 elements' index words (two vectors, see `nibble_order`) from
    // the vectors `v` read (`sb` of them).
    let words = |v: [__m512i; 8]| {
        let [v0, v1, v2, v3, ..] = v;
        if S == NX_FLOAT64 {
            // x >> `fold` (1).
            let (top, _) = super::f64_words(v, fold, false);
            return top.map(|h| _mm512_srli_epi16::<1>(h));
        }
        if !wide {
            return [v0, v1].map(|h| {
                let h = super::fold_below::<16>(h, fold);
                match fold {
                    4 => _mm512_srli_epi16::<4>(h),
                    _ => _mm512_srli_epi16::<7>(h),
                }
            });
        }
        let x = [v0, v1, v2, v3].map(|v| super::fold_below::<32>(v, fold));
        let [w0, w1, w2, w3] = x.map(|v| _mm512_srli_epi32::<20>(v));
        [_mm512_packus_epi32(w0, w1), _mm512_packus_epi32(w2, w3)]
    };
    // 64 codes, two a byte (low nibble first).
    let nibbles = |v: [__m512i; 8]| {
        let [p0, p1] = words(v);
        let ((i0, s0), (i1, s1)) = (index(p0), index(p1));
        let code = _mm512_permutexvar_epi8(_mm512_packus_epi16(i0, i1), table);
        let sign = _mm512_packus_epi16(s0, s1);
        let code = _mm512_ternarylogic_epi32::<0xF8>(code, sign, _mm512_set1_epi8(8));
        _mm512_castsi512_si256(_mm512_permutexvar_epi8(order, super::pair_nibbles(code)))
    };
    // Bytes a source element.
    let sb = const { crate::kernels::lanes::dtype_bits(S) / 8 };
    // SAFETY: forwarded.
    unsafe { nibble_steps::<NT>(src, dst, n, sb, nibbles, ahead) }
}

/// The steps of a kernel into 4 bits: 64 elements of `sb` bytes a step
/// (`step_vectors`), their 64 codes two a byte from `nibbles`, 32 bytes
/// stored; the last elements under masks.
///
/// # Safety
/// As `super::super::call`'s kernels, the destination 4 bits an element.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn nibble_steps<const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    sb: usize,
    nibbles: impl Fn([__m512i; 8]) -> __m256i,
    ahead: usize,
) {
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, 8 * sb, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n (`sb` vectors of
            // 64 bytes); a 32-byte store at a multiple of 32 from the
            // destination.
            unsafe {
                let v = super::step_vectors(src.add(sb * i), sb);
                super::put256::<NT>(dst.add(i / 2), nibbles(v));
            }
        },
        |i, left| {
            // SAFETY: elements i .. i + left are within n (and the bytes
            // that hold them).
            unsafe {
                let v = super::part_vectors(src.add(sb * i), sb, left);
                let keep = first_lanes(left.div_ceil(2)) as u32;
                full::_mm256_mask_storeu_epi8(dst.add(i / 2).cast(), keep, nibbles(v));
            }
        },
    );
}

/// The index of a float16 code into `D` (int4 or uint4) in
/// `f16_to_4bit`: its high byte for int4, its bits 7 .. 14 for uint4.
const fn f16_4bit_shift(d: i32) -> u32 {
    if d == NX_INT4 {
        8
    } else {
        7
    }
}

/// `f16_to_4bit`'s destination `d`, checked to be int4 or uint4.
#[allow(clippy::panic)] // only in constant blocks: would fail the build
const fn f16_4bit_dest(d: i32) -> Dtype {
    match Dtype::from_code(d) {
        Some(t) if d == NX_INT4 || d == NX_UINT4 => t,
        _ => panic!("f16_to_4bit: not int4 or uint4"),
    }
}

/// `f16_to_4bit`'s 256 results (a nibble a byte): the scalar reference's
/// for each index with zeros below it, made at first use.
fn f16_4bit_table<const D: i32>() -> &'static [u8; 256] {
    static MADE: [OnceLock<[u8; 256]>; 2] = [OnceLock::new(), OnceLock::new()];
    let [int4, uint4] = &MADE;
    let d = const { f16_4bit_dest(D) };
    let made = if D == NX_INT4 { int4 } else { uint4 };
    made.get_or_init(|| {
        let mut t = [0u8; 256];
        let s = const { dtype_of::<{ NX_FLOAT16 as usize }>() };
        for (i, c) in (0u16..).zip(t.iter_mut()) {
            let x = (i << f16_4bit_shift(D)).to_le_bytes();
            let mut code = [0u8];
            scalar::run(s, d, &x, &mut code, 1);
            *c = code[0] & 0x0F;
        }
        t
    })
}

/// float16 -> int4 or uint4 (`D`, its dtype code) by one byte lookup an
/// element (VPERMI2B, two of 128), in place of the float16 code lanes
/// (`int4_code_words`, `code_words`). A truncation into int4 depends only
/// on the sign, the exponent and the fraction's top two bits (|x| < 8
/// needs no more, and past it saturates): a float16's high byte. Into
/// uint4 a fraction bit more (8 <= x < 16) and no sign (a negative x
/// gives 0): bits 7 .. 14. Each index, zeros below, gives its results
/// (`f16_4bit_table`), but for the NaNs whose index is infinity's (their
/// payload below it), which a compare zeroes, with the negative lanes into
/// uint4.
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn f16_to_4bit<const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let t = quarter_vectors(f16_4bit_table::<D>());
    let inf = _mm512_set1_epi16(0x7C00);
    let even = super::even_bytes();
    let odd = _mm512_add_epi8(even, _mm512_set1_epi8(1));
    // 64 codes, two a byte (low nibble first), from 64 float16 codes.
    let signed = D == NX_INT4;
    let nibbles = |v: [__m512i; 8]| {
        let [v0, v1, ..] = v;
        // The lanes looked up: |x| (int4) or x (uint4: a negative's code is
        // above it) not above infinity.
        let keep = |v| {
            let a = if signed {
                _mm512_and_si512(v, _mm512_set1_epi16(0x7FFF))
            } else {
                v
            };
            _mm512_cmple_epu16_mask(a, inf)
        };
        let k = _mm512_kunpackd(u64::from(keep(v1)), u64::from(keep(v0)));
        // The indexes (`f16_4bit_shift`): the high bytes, or the low bytes
        // of x >> 7.
        let i = if signed {
            _mm512_maskz_permutex2var_epi8(k, v0, odd, v1)
        } else {
            let [s0, s1] = [v0, v1].map(|v| _mm512_srli_epi16::<7>(v));
            _mm512_maskz_permutex2var_epi8(k, s0, even, s1)
        };
        let code = look(i, t);
        _mm512_castsi512_si256(_mm512_permutexvar_epi8(even, super::pair_nibbles(code)))
    };
    // SAFETY: forwarded.
    unsafe { nibble_steps::<NT>(src, dst, n, 2, nibbles, ahead) }
}

/// The 4-bit dtypes whose codes `widen4` looks up: float4_e2m1fn, int4,
/// uint4 (their index in `widen4_table`'s cache).
const fn nibble_source(s: i32) -> usize {
    match s {
        NX_FLOAT4_E2M1FN => 0,
        NX_INT4 => 1,
        _ => 2,
    }
}

/// The codes of dtype `d` (16, 32 or 64 bits, or complex128) that the 16
/// codes of the 4-bit dtype `s` convert to, as `widen4`'s tables: 32 words
/// (the 16 codes twice), 16 dwords, or 16 quadwords (of complex128 the real
/// parts); made at first use by the scalar reference.
fn widen4_table(s: Dtype, d: Dtype) -> &'static [u8; 128] {
    static MADE: [OnceLock<[u8; 128]>; 3 * crate::table::COUNT] =
        [const { OnceLock::new() }; 3 * crate::table::COUNT];
    static NONE: OnceLock<[u8; 128]> = OnceLock::new();
    let k = nibble_source(s.code()) * crate::table::COUNT + d.code() as usize;
    MADE.get(k).unwrap_or(&NONE).get_or_init(|| {
        let codes: [u8; 8] = std::array::from_fn(|i| ((2 * i) | ((2 * i + 1) << 4)) as u8);
        let mut t = [0u8; 128];
        if d.bits() == 128 {
            // complex128: the real parts (`widen4` zeroes the imaginary).
            let mut c = [0u8; 256];
            scalar::run(s, d, &codes, &mut c, 16);
            for (r, z) in t.chunks_exact_mut(8).zip(c.chunks_exact(16)) {
                r.copy_from_slice(z.get(..8).unwrap_or(&[0; 8]));
            }
        } else {
            scalar::run(s, d, &codes, &mut t, 16);
        }
        if d.bits() == 16 {
            t.copy_within(0..32, 32);
        }
        t
    })
}

/// float4_e2m1fn, int4 or uint4 (`S`) -> a dtype `D` of 16, 32 or 64 bits
/// or complex128, each element's code looked up whole among `D`'s 16
/// (`widen4_table`): the source nibbles spread to the lanes of the
/// results, each in its lane's low four bits, index of one permute
/// (VPERMW, whose index bit 4, left from the next nibble, picks the
/// table's second copy; VPERMD; two tables and VPERMT2Q; complex128 the
/// last at every other quadword, the imaginary parts zeroed: a real
/// source's are +0). The lanes these replace widen to float32 and encode.
/// AVX-512 F/BW alone. Results of 32 bits and more are stored 256 bits at
/// a time: the stores bind, and sustain more at that width past L1.
///
/// # Safety
/// As `super::super::call`'s kernels.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn widen4<const S: i32, const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let (s, d) = const {
        match (Dtype::from_code(S), Dtype::from_code(D)) {
            (Some(s), Some(d))
                if s.bits() == 4 && (matches!(d.bits(), 16 | 32 | 64) || D == NX_COMPLEX128) =>
            {
                (s, d)
            }
            _ => panic!("a 4-bit source into 16, 32, 64 bits or complex128"),
        }
    };
    let w = d.bits() as usize;
    let t = widen4_table(s, d);
    let [t0, t1] = [0, 64].map(|k| match t.get(k..k + 64) {
        // SAFETY: 64 bytes.
        Some(v) => unsafe { _mm512_loadu_si512(v.as_ptr().cast()) },
        None => _mm512_setzero_si512(),
    });
    // Byte i of the 8 at `p` in quadword i, its high nibble in the high
    // dword: 16 elements, one a dword.
    let dwords = |p: *const u8| {
        // SAFETY: the caller's 8 bytes at `p`.
        let b = _mm512_cvtepu8_epi64(unsafe { _mm_loadl_epi64(p.cast()) });
        _mm512_or_si512(b, _mm512_slli_epi64::<28>(b))
    };
    // The results of the 64 elements whose 32 bytes are at `p`: `w / 8`
    // vectors.
    let results = |p: *const u8| {
        let mut v = [_mm512_setzero_si512(); 16];
        // SAFETY: (every read) the caller's 32 bytes at `p`.
        unsafe {
            match w {
                16 => {
                    for (j, x) in v.iter_mut().take(2).enumerate() {
                        // Byte i of 16 in dword i, then its high nibble in
                        // the high word.
                        let b = _mm512_cvtepu8_epi32(_mm_loadu_si128(p.add(16 * j).cast()));
                        let i = _mm512_or_si512(b, _mm512_slli_epi32::<12>(b));
                        *x = _mm512_permutexvar_epi16(i, t0);
                    }
                }
                32 => {
                    for (j, x) in v.iter_mut().take(4).enumerate() {
                        *x = _mm512_permutexvar_epi32(dwords(p.add(8 * j)), t0);
                    }
                }
                128 => {
                    // Element 4 g + k's index in dword 4 k (quadword 2 k,
                    // the real part) of vector g; the imaginary parts, the
                    // odd quadwords, zeroed by the mask.
                    let spread = _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0);
                    for (j, x) in v.chunks_exact_mut(4).enumerate() {
                        let i = dwords(p.add(8 * j));
                        for (g, y) in x.iter_mut().enumerate() {
                            let at = _mm512_add_epi32(spread, _mm512_set1_epi32(4 * g as i32));
                            let q = _mm512_permutexvar_epi32(at, i);
                            *y = _mm512_maskz_permutex2var_epi64(0x55, t0, q, t1);
                        }
                    }
                }
                _ => {
                    for (j, x) in v.chunks_exact_mut(2).enumerate().take(4) {
                        let i = dwords(p.add(8 * j));
                        let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(i));
                        let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(i));
                        if let [a, b] = x {
                            *a = _mm512_permutex2var_epi64(t0, lo, t1);
                            *b = _mm512_permutex2var_epi64(t0, hi, t1);
                        }
                    }
                }
            }
        }
        v
    };
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, 4, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n: 32 source bytes
            // from i / 2, 8 w result bytes from i w / 8, a multiple of 64
            // from the destination.
            unsafe {
                let at = dst.add(i * w / 8);
                for (j, v) in results(src.add(i / 2)).into_iter().take(w / 8).enumerate() {
                    if w == 16 {
                        put512::<NT>(at.add(64 * j), v);
                    } else {
                        super::put256::<NT>(at.add(64 * j), _mm512_castsi512_si256(v));
                        super::put256::<NT>(at.add(64 * j + 32), _mm512_extracti64x4_epi64::<1>(v));
                    }
                }
            }
        },
        |i, left| {
            // The source bytes of elements i .. i + left (the last may be
            // half used), copied into a step's.
            let mut b = [0u8; 32];
            // SAFETY: those bytes; their results' bytes within the
            // destination's.
            unsafe {
                std::ptr::copy_nonoverlapping(src.add(i / 2), b.as_mut_ptr(), left.div_ceil(2));
                let at = dst.add(i * w / 8);
                let len = left * w / 8;
                for (j, v) in results(b.as_ptr()).into_iter().take(w / 8).enumerate() {
                    let m = first_lanes(len.saturating_sub(64 * j));
                    full::_mm512_mask_storeu_epi8(at.add(64 * j).cast(), m, v);
                }
            }
        },
    );
}

//! Sources of 8 bits into 16-bit destinations by table lookup (AVX512-VBMI):
//! a source byte indexes the 256 results of its pair, made once by the
//! scalar reference itself (so the lookup cannot disagree with it), held as
//! two planes (the results' low bytes, their high bytes) of four vectors.
//! VPERMI2B looks up 64 bytes in 128 at a time: two of them and a blend on
//! the code's top bit give a plane (one, and the sign or'ed in, where the
//! results are symmetric in the sign), and two byte permutes interleave the
//! planes into 64 results: 12 vector operations for 64 elements (7 if
//! symmetric), where the lanes widen to float32, encode and narrow back.
//! `make bench-levels`, AMD Zen 4, 16384 and 131072 elements, over the
//! lanes: float8_e4m3fn -> float16 and bfloat16 1.3x, float8_e5m2 ->
//! bfloat16 2.1x, int8 and uint8 -> float16 1.7-1.8x.

use super::{each, first_lanes, full, put512};
use crate::ffi::*;
use crate::kernels::scalar;
use crate::table::Dtype;
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The pairs looked up here; `bytes::<K>` converts `PAIRS[K]`. Where the
/// lanes were faster they stay (`make bench-levels`, 131072 elements, AMD
/// Zen 4): float8_e5m2 -> float16 (a shift), int8 and uint8 -> bfloat16.
pub const PAIRS: [(i32, i32); 5] = [
    (NX_FLOAT8_E4M3FN, NX_FLOAT16),
    (NX_FLOAT8_E4M3FN, NX_BFLOAT16),
    (NX_FLOAT8_E5M2, NX_BFLOAT16),
    (NX_INT8, NX_FLOAT16),
    (NX_UINT8, NX_FLOAT16),
];

/// `PAIRS[k]`'s dtypes, checked to be 8 bits into 16.
#[allow(clippy::panic, clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn pair(k: usize) -> (Dtype, Dtype) {
    match (Dtype::from_code(PAIRS[k].0), Dtype::from_code(PAIRS[k].1)) {
        (Some(s), Some(d)) if s.bits() == 8 && d.bits() == 16 => (s, d),
        _ => panic!("a lookup pair is 8 bits into 16"),
    }
}

/// A pair's result for every source code: the low bytes, then the high
/// bytes; and whether code c + 128's is c's with the sign bit (15) set,
/// for every c < 128 (a float source into a float: half the lookups).
struct Planes {
    bytes: [u8; 512],
    sym: bool,
}

/// `PAIRS[K]`'s planes, made at the pair's first use.
fn planes<const K: usize>() -> &'static Planes {
    static MADE: [OnceLock<Planes>; PAIRS.len()] = [const { OnceLock::new() }; PAIRS.len()];
    static NONE: OnceLock<Planes> = OnceLock::new();
    let (s, d) = const { pair(K) };
    MADE.get(K).unwrap_or(&NONE).get_or_init(|| {
        let codes: [u8; 256] = std::array::from_fn(|c| c as u8);
        let mut words = [0u8; 512];
        scalar::run(s, d, &codes, &mut words, 256);
        let mut bytes = [0u8; 512];
        let (lo, hi) = bytes.split_at_mut(256);
        for ((l, h), w) in lo.iter_mut().zip(hi.iter_mut()).zip(words.chunks_exact(2)) {
            if let &[a, b] = w {
                (*l, *h) = (a, b);
            }
        }
        let (pos, neg) = words.split_at(256);
        let sym = pos
            .chunks_exact(2)
            .zip(neg.chunks_exact(2))
            .all(|(p, n)| matches!((p, n), (&[a, b], &[c, d]) if c == a && d == b | 0x80));
        Planes { bytes, sym }
    })
}

/// `PAIRS[K]`, `n` elements.
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX512-VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
pub unsafe fn bytes<const K: usize, const NT: bool>(src: *const u8, dst: *mut u8, n: usize) {
    let p = planes::<K>();
    // SAFETY: forwarded.
    unsafe {
        if p.sym {
            look_up::<true, NT>(&p.bytes, src, dst, n)
        } else {
            look_up::<false, NT>(&p.bytes, src, dst, n)
        }
    }
}

/// `bytes` with planes `p`, symmetric (`Planes::sym`) if `SYM`.
///
/// # Safety
/// As `bytes`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn look_up<const SYM: bool, const NT: bool>(
    p: &[u8; 512],
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    // SAFETY: 8 vectors of 64 bytes within the 512 of `p`.
    let t: [__m512i; 8] =
        std::array::from_fn(|j| unsafe { _mm512_loadu_si512(p.as_ptr().add(64 * j).cast()) });
    // Byte j of the result words: lo[j / 2] or hi[j / 2], from the first
    // half of the two planes (`first`) or the second.
    let first: [i8; 64] = std::array::from_fn(|j| ((j % 2) * 64 + j / 2) as i8);
    // SAFETY: 64 bytes from an array of 64.
    let first = unsafe { _mm512_loadu_si512(first.as_ptr().cast()) };
    let second = _mm512_add_epi8(first, _mm512_set1_epi8(32));
    let plane = |x: __m512i, top: __mmask64, [a, b, c, d]: [__m512i; 4]| {
        let low = _mm512_permutex2var_epi8(a, x, b);
        let high = _mm512_permutex2var_epi8(c, x, d);
        _mm512_mask_blend_epi8(top, low, high)
    };
    let words = |x: __m512i| {
        let [a, b, c, d, e, f, g, h] = t;
        let (lo, hi) = if SYM {
            let hi = _mm512_permutex2var_epi8(e, x, f);
            (
                _mm512_permutex2var_epi8(a, x, b),
                _mm512_ternarylogic_epi32::<0xF8>(hi, x, _mm512_set1_epi8(i8::MIN)),
            )
        } else {
            let top = _mm512_movepi8_mask(x);
            (plane(x, top, [a, b, c, d]), plane(x, top, [e, f, g, h]))
        };
        (
            _mm512_permutex2var_epi8(lo, first, hi),
            _mm512_permutex2var_epi8(lo, second, hi),
        )
    };
    each(
        n,
        64,
        64,
        |i| {
            // SAFETY: elements i .. i + 64 are within n: 64 source bytes,
            // 128 destination bytes, at a multiple of 128 from the
            // destination.
            unsafe {
                let (a, b) = words(_mm512_loadu_si512(src.add(i).cast()));
                put512::<NT>(dst.add(2 * i), a);
                put512::<NT>(dst.add(2 * i + 64), b);
            }
        },
        |i, left| {
            // SAFETY: elements i .. i + left are within n.
            unsafe {
                let x = full::_mm512_maskz_loadu_epi8(first_lanes(left), src.add(i).cast());
                let (a, b) = words(x);
                full::_mm512_mask_storeu_epi8(dst.add(2 * i).cast(), first_lanes(2 * left), a);
                let m = first_lanes(2 * left.saturating_sub(32));
                full::_mm512_mask_storeu_epi8(dst.add(2 * i + 64).cast(), m, b);
            }
        },
    );
}

//! Whole kernels among the wide dtypes (float64, float32, int64, uint64,
//! int32, uint32), which float32 lanes cannot carry: each a map of 16
//! lanes with AVX-512 DQ's conversions between 64-bit integers and floats,
//! under the kernel's MXCSR (round to nearest-even, exceptions masked), so
//! an int -> float rounds once, as SEMANTICS.md asks. Float -> int
//! truncates (the T forms), then saturates: the conversions give the
//! "integer indefinite" (signed: the least value; unsigned: every bit) past
//! the range and for a NaN, which is right below the range (signed) or
//! above it (unsigned, once negatives and NaN are 0: VMAXPD returns its
//! second operand, 0, for a NaN), and is fixed up elsewhere. Int -> int
//! saturates (VPMOVS*, VPMOVUS*, or a clamp first), and the integers of
//! 16 to 64 bits into narrower ones and float4_e2m1fn by clamps and packs
//! (`narrow_ints`). The 32- and 64-bit integers
//! into float16 through float32 (`ints_f32`), which `narrow_bytes` also
//! reads them as.

use super::super::put256;
use super::full;
use super::{first_lanes, halves, join, map16, packed2, packed4, put512, reg256, Lanes16};
use crate::codes::{NX_FLOAT4_E2M1FN, NX_INT32, NX_INT64, NX_UINT32, NX_UINT64};
use crate::kernels::lanes::{each, Fetch};
use crate::kernels::scalar;
use crate::table::Dtype;
use std::arch::x86_64::*;
use std::sync::OnceLock;

type Z = __m512i;

/// 16 lanes of 64 bits.
#[derive(Clone, Copy)]
pub struct Q16([Z; 2]);

impl Lanes16 for Q16 {
    const W: usize = 8;
    #[inline(always)]
    unsafe fn load(m: u16, p: *const u8) -> Self {
        // SAFETY: forwarded; the masks split the 16 lanes 8 and 8.
        unsafe {
            Q16([
                full::_mm512_maskz_loadu_epi64(m as u8, p.cast()),
                full::_mm512_maskz_loadu_epi64((m >> 8) as u8, p.wrapping_add(64).cast()),
            ])
        }
    }
    #[inline(always)]
    unsafe fn put<const NT: bool>(self, p: *mut u8) {
        // SAFETY: forwarded: 128 bytes, 64-byte aligned halves when NT.
        unsafe {
            put512::<NT>(p, self.0[0]);
            put512::<NT>(p.add(64), self.0[1]);
        }
    }
    #[inline(always)]
    unsafe fn put_masked(self, m: u16, p: *mut u8) {
        // SAFETY: forwarded, as `load`.
        unsafe {
            full::_mm512_mask_storeu_epi64(p.cast(), m as u8, self.0[0]);
            full::_mm512_mask_storeu_epi64(p.wrapping_add(64).cast(), (m >> 8) as u8, self.0[1]);
        }
    }
}

/// 16 lanes of 128 bits (complex128).
#[derive(Clone, Copy)]
pub struct C16([Z; 4]);

/// Eight complex lanes' mask (the low byte of `m`) as their 16 quadwords'.
fn two_each(m: u16) -> u16 {
    let x = m & 0xFF;
    let x = (x | x << 4) & 0x0F0F;
    let x = (x | x << 2) & 0x3333;
    let x = (x | x << 1) & 0x5555;
    x | x << 1
}

impl Lanes16 for C16 {
    const W: usize = 16;
    #[inline(always)]
    unsafe fn load(m: u16, p: *const u8) -> Self {
        // SAFETY: forwarded: complex 0 .. 8 are the first 16 quadwords,
        // 8 .. 16 the next.
        let [a, b] = unsafe {
            [
                Q16::load(two_each(m), p),
                Q16::load(two_each(m >> 8), p.wrapping_add(128)),
            ]
        };
        C16([a.0[0], a.0[1], b.0[0], b.0[1]])
    }
    #[inline(always)]
    unsafe fn put<const NT: bool>(self, p: *mut u8) {
        // SAFETY: forwarded: 256 bytes, 64-byte aligned quarters when NT.
        unsafe {
            for (k, v) in self.0.into_iter().enumerate() {
                put512::<NT>(p.add(64 * k), v);
            }
        }
    }
    #[inline(always)]
    unsafe fn put_masked(self, m: u16, p: *mut u8) {
        let [a, b, c, d] = self.0;
        // SAFETY: forwarded, as `load`.
        unsafe {
            Q16([a, b]).put_masked(two_each(m), p);
            Q16([c, d]).put_masked(two_each(m >> 8), p.wrapping_add(128));
        }
    }
}

/// float64 bits with a NaN made quiet.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn quiet64(x: Z) -> Z {
    let nan = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(pd(x), pd(x));
    _mm512_mask_or_epi64(x, nan, x, _mm512_set1_epi64(1 << 51))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn pd(x: Z) -> __m512d {
    _mm512_castsi512_pd(x)
}

/// A float32 truncated to int32 (`SIGNED`) or uint32, saturated, NaN 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn f32_i32<const SIGNED: bool>(x: __m512) -> Z {
    if SIGNED {
        // The conversion gives int32's least value past either end and
        // for a NaN: right below; the NaN lanes zeroed by its mask, the
        // maximum put back above. Four operations in place of five (a
        // blend more for the NaN lanes).
        let ordered = _mm512_cmp_ps_mask::<_CMP_ORD_Q>(x, x);
        let t = _mm512_maskz_cvttps_epi32(ordered, x);
        let over = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_set1_ps(2147483648.0));
        _mm512_mask_mov_epi32(t, over, _mm512_set1_epi32(i32::MAX))
    } else {
        _mm512_cvttps_epu32(_mm512_max_ps(x, _mm512_setzero_ps()))
    }
}

/// A float64 truncated to int32 (`SIGNED`) or uint32, saturated, NaN 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn f64_i32<const SIGNED: bool>(x: __m512d) -> __m256i {
    if SIGNED {
        // int32's maximum is a float64 (unlike the other bounds here), so a
        // clamp saturates above (VMINPD returns its second operand, x, for
        // a NaN), the conversion's indefinite below, and the NaN lanes are
        // masked to 0: three operations in place of five.
        let ordered = _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x);
        let x = _mm512_min_pd(_mm512_set1_pd(f64::from(i32::MAX)), x);
        _mm512_maskz_cvttpd_epi32(ordered, x)
    } else {
        _mm512_cvttpd_epu32(_mm512_max_pd(x, _mm512_setzero_pd()))
    }
}

/// A float64 truncated to int64 (`SIGNED`) or uint64, saturated, NaN 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn f64_i64<const SIGNED: bool>(x: __m512d) -> Z {
    if SIGNED {
        // As `f32_i32`.
        let ordered = _mm512_cmp_pd_mask::<_CMP_ORD_Q>(x, x);
        let t = _mm512_maskz_cvttpd_epi64(ordered, x);
        let over = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(x, _mm512_set1_pd(9223372036854775808.0));
        _mm512_mask_mov_epi64(t, over, _mm512_set1_epi64(i64::MAX))
    } else {
        _mm512_cvttpd_epu64(_mm512_max_pd(x, _mm512_setzero_pd()))
    }
}

/// A float32 truncated to int64 (`SIGNED`) or uint64, saturated, NaN 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn f32_i64<const SIGNED: bool>(x: __m256) -> Z {
    if SIGNED {
        // As `f32_i32`.
        let ordered = _mm256_cmp_ps_mask::<_CMP_ORD_Q>(x, x);
        let t = _mm512_maskz_cvttps_epi64(ordered, x);
        let over = _mm256_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm256_set1_ps(9223372036854775808.0));
        _mm512_mask_mov_epi64(t, over, _mm512_set1_epi64(i64::MAX))
    } else {
        _mm512_cvttps_epu64(_mm256_max_ps(x, _mm256_setzero_ps()))
    }
}

/// One kernel: 16 lanes of `$i` to 16 of `$o` by `$f`.
macro_rules! wide {
    ($(#[$doc:meta])* $name:ident, $i:ty => $o:ty, $f:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As `super::super::call`'s kernels.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
        pub unsafe fn $name<const NT: bool>(src: *const u8, dst: *mut u8, n: usize, ahead: usize) {
            // SAFETY: forwarded.
            unsafe { map16::<$i, $o, 2, NT>(src, dst, n, $f, ahead) }
        }
    };
}

// float64 -> integers.
wide!(f64_to_i64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| f64_i64::<true>(pd(v)))));
wide!(f64_to_u64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| f64_i64::<false>(pd(v)))));
wide!(f64_to_i32, Q16 => Z, |x: Q16| join(f64_i32::<true>(pd(x.0[0])), f64_i32::<true>(pd(x.0[1]))));
wide!(f64_to_u32, Q16 => Z, |x: Q16| join(
    f64_i32::<false>(pd(x.0[0])),
    f64_i32::<false>(pd(x.0[1]))
));
// 64-bit integers -> floats, rounded once.
wide!(i64_to_f64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| _mm512_castpd_si512(_mm512_cvtepi64_pd(v)))));
wide!(u64_to_f64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| _mm512_castpd_si512(_mm512_cvtepu64_pd(v)))));
wide!(i64_to_f32, Q16 => Z, |x: Q16| {
    let [a, b] = x.0.map(|v| _mm256_castps_si256(_mm512_cvtepi64_ps(v)));
    join(a, b)
});
wide!(u64_to_f32, Q16 => Z, |x: Q16| {
    let [a, b] = x.0.map(|v| _mm256_castps_si256(_mm512_cvtepu64_ps(v)));
    join(a, b)
});
/// 16 integers of dtype `S` (`Z`: 32 bits, or `Q16`'s two vectors) as
/// float32: exact up to 2^24 in magnitude, and past it (rounded, and
/// conversion is monotonic) 2^24 or more, where float16 is infinite (from
/// 65520) and every float8 and float4 code its largest or infinity. A
/// kernel of float32 into those then gives each integer's code, rounded
/// once.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn ints_f32<const S: i32>(v: [Z; 2]) -> Z {
    let [a, b] = v;
    let q = |x: Z| {
        _mm256_castps_si256(if S == NX_INT64 {
            _mm512_cvtepi64_ps(x)
        } else {
            _mm512_cvtepu64_ps(x)
        })
    };
    _mm512_castps_si512(match S {
        NX_INT32 => _mm512_cvtepi32_ps(a),
        NX_UINT32 => _mm512_cvtepu32_ps(a),
        _ => _mm512_castsi512_ps(join(q(a), q(b))),
    })
}

// 32- and 64-bit integers -> float16, rounded once (`ints_f32`).
wide!(i32_to_f16, Z => __m256i, |x: Z| f16s(ints_f32::<{ NX_INT32 }>([x, x])));
wide!(u32_to_f16, Z => __m256i, |x: Z| f16s(ints_f32::<{ NX_UINT32 }>([x, x])));
wide!(i64_to_f16, Q16 => __m256i, |x: Q16| f16s(ints_f32::<{ NX_INT64 }>(x.0)));
wide!(u64_to_f16, Q16 => __m256i, |x: Q16| f16s(ints_f32::<{ NX_UINT64 }>(x.0)));

/// 16 float32 as float16, rounded to nearest-even.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn f16s(x: Z) -> __m256i {
    _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_castsi512_ps(x))
}

// Integers among themselves, saturated.
wide!(i64_to_i32, Q16 => Z, |x: Q16| join(_mm512_cvtsepi64_epi32(x.0[0]), _mm512_cvtsepi64_epi32(x.0[1])));
wide!(i64_to_u32, Q16 => Z, |x: Q16| {
    let [a, b] = x.0.map(|v| _mm512_cvtusepi64_epi32(_mm512_max_epi64(v, _mm512_setzero_si512())));
    join(a, b)
});
wide!(u64_to_i32, Q16 => Z, |x: Q16| {
    let max = _mm512_set1_epi64(i64::from(i32::MAX));
    let [a, b] = x.0.map(|v| _mm512_cvtepi64_epi32(_mm512_min_epu64(v, max)));
    join(a, b)
});
wide!(u64_to_u32, Q16 => Z, |x: Q16| join(_mm512_cvtusepi64_epi32(x.0[0]), _mm512_cvtusepi64_epi32(x.0[1])));
wide!(i64_to_u64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| _mm512_max_epi64(v, _mm512_setzero_si512()))));
wide!(u64_to_i64, Q16 => Q16, |x: Q16| Q16(x.0.map(|v| _mm512_min_epu64(v, _mm512_set1_epi64(i64::MAX)))));
wide!(i32_to_i64, Z => Q16, |x: Z| Q16(halves(x).map(|h| _mm512_cvtepi32_epi64(h))));
wide!(i32_to_u64, Z => Q16, |x: Z| {
    let x = _mm512_max_epi32(x, _mm512_setzero_si512());
    Q16(halves(x).map(|h| _mm512_cvtepu32_epi64(h)))
});
wide!(u32_to_i64, Z => Q16, |x: Z| Q16(halves(x).map(|h| _mm512_cvtepu32_epi64(h))));
/// The real parts of 8 complex128 (`a` then `b`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn reals(a: Z, b: Z) -> Z {
    _mm512_permutex2var_epi64(a, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), b)
}

/// 8 float64 as complex128 with +0 imaginary parts (16 quadwords).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn complexes(d: Z) -> [Z; 2] {
    // Lane j, then a zero (lane 8 of the pair, from the zero).
    let lo = _mm512_set_epi64(8, 3, 8, 2, 8, 1, 8, 0);
    let hi = _mm512_set_epi64(8, 7, 8, 6, 8, 5, 8, 4);
    let z = _mm512_setzero_si512();
    [
        _mm512_permutex2var_epi64(d, lo, z),
        _mm512_permutex2var_epi64(d, hi, z),
    ]
}

/// 16 float64 as complex128.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn c16(a: Z, b: Z) -> C16 {
    let ([p, q], [r, t]) = (complexes(a), complexes(b));
    C16([p, q, r, t])
}

// complex128 <-> float64: the real parts, and zeros for the imaginary
// parts (a NaN made quiet, as SEMANTICS.md's store of a float64 does).
wide!(c128_to_f64, C16 => Q16, |x: C16| {
    let [a, b, c, d] = x.0;
    Q16([quiet64(reals(a, b)), quiet64(reals(c, d))])
});
wide!(f64_to_c128, Q16 => C16, |x: Q16| c16(quiet64(x.0[0]), quiet64(x.0[1])));
// complex128 -> the 32- and 64-bit integers: the real parts truncated.
wide!(c128_to_i64, C16 => Q16, |x: C16| {
    let [a, b, c, d] = x.0;
    Q16([reals(a, b), reals(c, d)].map(|v| f64_i64::<true>(pd(v))))
});
wide!(c128_to_u64, C16 => Q16, |x: C16| {
    let [a, b, c, d] = x.0;
    Q16([reals(a, b), reals(c, d)].map(|v| f64_i64::<false>(pd(v))))
});
wide!(c128_to_i32, C16 => Z, |x: C16| {
    let [a, b, c, d] = x.0;
    join(f64_i32::<true>(pd(reals(a, b))), f64_i32::<true>(pd(reals(c, d))))
});
wide!(c128_to_u32, C16 => Z, |x: C16| {
    let [a, b, c, d] = x.0;
    join(f64_i32::<false>(pd(reals(a, b))), f64_i32::<false>(pd(reals(c, d))))
});
// The 32- and 64-bit integers -> complex128 (exact from 32 bits, rounded
// once from 64) and the 64-bit ones -> complex64 (rounded once).
wide!(i64_to_c128, Q16 => C16, |x: Q16| {
    let [a, b] = x.0.map(|v| _mm512_castpd_si512(_mm512_cvtepi64_pd(v)));
    c16(a, b)
});
// A float32 zero-extended to a quadword is a complex64 with a +0
// imaginary part.
wide!(i64_to_c64, Q16 => Q16, |x: Q16| Q16(
    x.0.map(|v| _mm512_cvtepu32_epi64(_mm256_castps_si256(_mm512_cvtepi64_ps(v))))
));
wide!(u64_to_c64, Q16 => Q16, |x: Q16| Q16(
    x.0.map(|v| _mm512_cvtepu32_epi64(_mm256_castps_si256(_mm512_cvtepu64_ps(v))))
));

/// The codes of float4_e2m1fn (`d`) that the integers -6 ..= 6 of dtype
/// `s` convert to, at index v & 15 (`narrow_ints`' VPSHUFB table; integers past
/// them saturate as 6 and -6 do); made at first use by the scalar
/// reference.
fn e2m1_of_ints(s: Dtype, d: Dtype) -> &'static [u8; 16] {
    static MADE: [OnceLock<[u8; 16]>; crate::table::COUNT] =
        [const { OnceLock::new() }; crate::table::COUNT];
    static NONE: OnceLock<[u8; 16]> = OnceLock::new();
    MADE.get(s.code() as usize)
        .unwrap_or(&NONE)
        .get_or_init(|| {
            let mut t = [0u8; 16];
            let wide = s.bits() as usize / 8;
            for v in -6i64..=6 {
                // v in the source's bytes (a signed one's two's complement; an
                // unsigned source's negatives are never looked up).
                let bytes = v.to_le_bytes();
                let mut code = [0u8];
                scalar::run(s, d, bytes.get(..wide).unwrap_or(&[]), &mut code, 1);
                if let Some(c) = t.get_mut((v & 15) as usize) {
                    *c = code[0] & 0x0F;
                }
            }
            t
        })
}

/// The integers of 16, 32 and 64 bits (`S`) -> a narrower integer or
/// float4_e2m1fn (`D`), saturating, 64 elements a step: each lane clamped
/// to `D`'s range at its own width (VPMAXS and VPMINS, or VPMINU alone for
/// an unsigned source; float4_e2m1fn's integers -6 ..= 6, past which it
/// saturates), the lanes narrowed by packing (the low dwords of quadwords
/// by VPERMT2D, then VPACKSSDW or VPACKUSDW and VPACKSSWB or VPACKUSWB, to
/// which the clamp leaves nothing to saturate, and one permute to undo
/// their 128-bit lanes). A signed source of 16 or 32 bits into a whole 8-
/// or 16-bit integer is not clamped: the packs saturate to its range
/// themselves. Into 4 bits, float4_e2m1fn's codes looked up by the bytes'
/// low nibbles (VPSHUFB, `e2m1_of_ints`), the bytes paired into nibbles
/// (`pair_nibbles`).
///
/// Into 4 bits these replace lanes that go through float32; into 8 and 16
/// bits, for the pairs `patch` lists, `native`'s maps (VPMOVS* or VPMOVUS*
/// storing to memory, after a clamp where the signs differ).
///
/// # Safety
/// As `super::super::call`'s kernels.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub unsafe fn narrow_ints<const S: i32, const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // Each closure reads the plan as a constant of its own (captured, it
    // would be a value the closure reads, and LLVM, seeing every width's
    // code in it, no longer inlines it).
    let Narrowing { w, db, .. } = const { narrowing(S, D) };
    // float4_e2m1fn's codes by the clamped integers' low nibbles.
    let e2m1 = D == NX_FLOAT4_E2M1FN;
    let table = match (e2m1, Dtype::from_code(S), Dtype::from_code(D)) {
        (true, Some(s), Some(d)) => {
            // SAFETY: 16 bytes.
            _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(e2m1_of_ints(s, d).as_ptr().cast()) })
        }
        _ => _mm512_setzero_si512(),
    };
    // A source vector clamped into [lo, hi].
    let clamp = |x: Z| {
        let Narrowing {
            w,
            signed,
            packed,
            lo,
            hi,
            ..
        } = const { narrowing(S, D) };
        match (w, signed) {
            _ if packed => x,
            (16, true) => _mm512_min_epi16(
                _mm512_max_epi16(x, _mm512_set1_epi16(lo as i16)),
                _mm512_set1_epi16(hi as i16),
            ),
            (16, false) => _mm512_min_epu16(x, _mm512_set1_epi16(hi as i16)),
            (32, true) => _mm512_min_epi32(
                _mm512_max_epi32(x, _mm512_set1_epi32(lo as i32)),
                _mm512_set1_epi32(hi as i32),
            ),
            (32, false) => _mm512_min_epu32(x, _mm512_set1_epi32(hi as i32)),
            (_, true) => _mm512_min_epi64(
                _mm512_max_epi64(x, _mm512_set1_epi64(lo)),
                _mm512_set1_epi64(hi),
            ),
            (_, false) => _mm512_min_epu64(x, _mm512_set1_epi64(hi)),
        }
    };
    // Dwords to words and words to bytes, saturating: unsigned into the
    // unsigned destination of that width (its range reaches past the
    // signed one's).
    let pack32 = |a: Z, b: Z| {
        let Narrowing { db, lo, .. } = const { narrowing(S, D) };
        if db == 16 && lo >= 0 {
            _mm512_packus_epi32(a, b)
        } else {
            _mm512_packs_epi32(a, b)
        }
    };
    let pack16 = |a: Z, b: Z| {
        let Narrowing { db, lo, .. } = const { narrowing(S, D) };
        if db == 8 && lo >= 0 {
            _mm512_packus_epi16(a, b)
        } else {
            _mm512_packs_epi16(a, b)
        }
    };
    // A step's source vectors `v` (`w / 8` of them) clamped, and a 64-bit
    // source's as the dwords of four vectors (its low halves, in order).
    let dwords = |v: [Z; 8]| {
        let v = v.map(clamp);
        if const { narrowing(S, D).w == 64 } {
            let low = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
            let [a, b, c, d, e, f, g, h] = v;
            [(a, b), (c, d), (e, f), (g, h)].map(|(x, y)| _mm512_permutex2var_epi32(x, low, y))
        } else {
            let [a, b, c, d, ..] = v;
            [a, b, c, d]
        }
    };
    // The 64 elements of a step: two vectors of words in order, or one of
    // bytes.
    let out = |v: [Z; 8]| {
        let [a, b, c, d] = dwords(v);
        match const { (narrowing(S, D).w, narrowing(S, D).db) } {
            (_, 16) => [packed2(pack32(a, b)), packed2(pack32(c, d))],
            (16, _) => [packed2(pack16(a, b)), a],
            _ => [packed4(pack16(pack32(a, b), pack32(c, d))), a],
        }
    };
    // 32 bytes of nibbles, two elements a byte (low first).
    let nibbles = |b: Z| {
        let b = _mm512_and_si512(b, _mm512_set1_epi8(0x0F));
        let b = if e2m1 {
            _mm512_shuffle_epi8(table, b)
        } else {
            b
        };
        reg256(_mm512_cvtepi16_epi8(super::pair_nibbles(b)))
    };
    let sb = w / 8;
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, 8 * sb, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n (`sb` vectors of
            // 64 bytes); their `db` * 8 bytes out, from a multiple of as
            // many from the destination.
            unsafe {
                let [x, y] = out(super::step_vectors(src.add(sb * i), sb));
                let to = dst.add(i * db / 8);
                match db {
                    16 => {
                        put512::<NT>(to, x);
                        put512::<NT>(to.add(64), y);
                    }
                    8 => put512::<NT>(to, x),
                    _ => put256::<NT>(to, nibbles(x)),
                }
            }
        },
        |i, left| {
            // SAFETY: elements i .. i + left are within n (and the bytes
            // that hold them).
            unsafe {
                let [x, y] = out(super::part_vectors(src.add(sb * i), sb, left));
                let to = dst.add(i * db / 8);
                // The bytes of the first `left` elements from vector k.
                let m = |k: usize| first_lanes((left * db / 8).saturating_sub(64 * k));
                if db >= 8 {
                    full::_mm512_mask_storeu_epi8(to.cast(), m(0), x);
                }
                if db == 16 {
                    full::_mm512_mask_storeu_epi8(to.wrapping_add(64).cast(), m(1), y);
                }
                if db == 4 {
                    let keep = first_lanes(left.div_ceil(2)) as u32;
                    full::_mm256_mask_storeu_epi8(to.cast(), keep, nibbles(x));
                }
            }
        },
    );
}

/// `narrow_ints`' plan for one pair: the source's bits (`w`), the
/// destination's (`db`), whether the source is signed, the destination's
/// range (float4_e2m1fn's integers -6 ..= 6), and whether the packs'
/// saturation is the clamp (`packed`: a signed source of 16 or 32 bits
/// into a whole 8- or 16-bit integer).
#[derive(Clone, Copy)]
struct Narrowing {
    w: usize,
    db: usize,
    signed: bool,
    lo: i64,
    hi: i64,
    packed: bool,
}

#[allow(clippy::panic)] // only in constant blocks: would fail the build
const fn narrowing(s: i32, d: i32) -> Narrowing {
    let (Some(s), Some(d)) = (Dtype::from_code(s), Dtype::from_code(d)) else {
        panic!("not dtype codes");
    };
    let (w, db) = (s.bits() as usize, d.bits() as usize);
    let Some((smin, _)) = s.int_range() else {
        panic!("an integer of 16 to 64 bits into a narrower one or float4_e2m1fn");
    };
    assert!(matches!(w, 16 | 32 | 64) && matches!(db, 4 | 8 | 16) && db < w);
    let (lo, hi) = match d.int_range() {
        Some(r) => (r.0 as i64, r.1 as i64),
        None => (-6, 6),
    };
    let signed = smin < 0;
    Narrowing {
        w,
        db,
        signed,
        lo,
        hi,
        packed: signed && w < 64 && db >= 8,
    }
}

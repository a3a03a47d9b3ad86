//! The 1-bit dtype (bit) with the others by masks, without lanes: what
//! both levels' kernels take from the scalar reference (`codes`, `truth`),
//! and the AVX2 level's kernels: bit with the dtypes of 8 and 4 bits both
//! ways and from bit into those of 16 bits, into bit from those of 16 to
//! 64 bits, and bool into those of 4 to 16 bits (`avx512/bits.rs` has the
//! AVX-512 level's, for every width). From bit,
//! each source bit picks one of two codes of the destination, the codes
//! that bit 0 and bit 1 convert to; into bit, each destination bit tells
//! whether any of the source code's bits that, set alone, convert to 1 is
//! set. (That a code is true exactly then, for every code, is what the
//! kernel tests hold against the reference: every code of the sources of
//! up to 16 bits, boundaries and random codes of the wider ones.)

use super::put256;
use crate::codes::{NX_BIT, NX_BOOL};
use crate::kernels::lanes::{each, Fetch};
use crate::kernels::scalar;
use crate::table::{Dtype, COUNT};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// The dtype of a code of the table's constants, not bit itself.
#[allow(clippy::panic)] // only in constant blocks: would fail the build
pub(super) const fn other(code: i32) -> Dtype {
    match Dtype::from_code(code) {
        Some(d) if d.bits() != 1 => d,
        _ => panic!("a dtype other than bit"),
    }
}

const BIT: Dtype = crate::value::dtype_of::<{ NX_BIT as usize }>();

/// Bit 0 of every `b`-bit field of 64 bits (`b` a power of two up to 64),
/// shifted up `p`.
pub(super) const fn every(b: usize, p: usize) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < 64 {
        m |= 1 << i;
        i += b;
    }
    m << p
}

/// 64 bytes of `code` (its first `len` bytes) over and over.
fn repeat(code: &[u8], len: usize) -> [u8; 64] {
    std::array::from_fn(|i| code.get(i % len.max(1)).copied().unwrap_or(0))
}

/// For `from_truth` into `d`: the codes that bit 0 and bit 1 convert to,
/// each repeated through 64 bytes (a 4-bit code in both nibbles).
pub(super) fn codes(d: Dtype) -> &'static [[u8; 64]; 2] {
    static MADE: [OnceLock<[[u8; 64]; 2]>; COUNT] = [const { OnceLock::new() }; COUNT];
    static NONE: OnceLock<[[u8; 64]; 2]> = OnceLock::new();
    MADE.get(d.code() as usize)
        .unwrap_or(&NONE)
        .get_or_init(|| {
            // Elements 0 (bit 0) and 1 (bit 1).
            let mut out = [0u8; 32];
            scalar::run(BIT, d, &[0b10], &mut out, 2);
            let len = d.bits() as usize / 8;
            if len == 0 {
                let [z, o] = [out[0] & 0x0F, out[0] >> 4].map(|c| c | c << 4);
                [[z; 64], [o; 64]]
            } else {
                let (z, o) = out.split_at(len);
                [repeat(z, len), repeat(o, len)]
            }
        })
}

/// For `to_bit` from `s`: the code bits that, set alone, convert to 1,
/// repeated through 64 bytes (a 4-bit code's in both nibbles).
pub(super) fn truth(s: Dtype) -> &'static [u8; 64] {
    static MADE: [OnceLock<[u8; 64]>; COUNT] = [const { OnceLock::new() }; COUNT];
    static NONE: OnceLock<[u8; 64]> = OnceLock::new();
    MADE.get(s.code() as usize)
        .unwrap_or(&NONE)
        .get_or_init(|| {
            let b = s.bits() as usize;
            let mut mask = [0u8; 16];
            for p in 0..b {
                let mut one = [0u8; 16];
                let mut out = [0u8; 1];
                if let (Some(x), Some(m)) = (one.get_mut(p / 8), mask.get_mut(p / 8)) {
                    *x = 1 << (p % 8);
                    scalar::run(s, BIT, &one, &mut out, 1);
                    *m |= (out[0] & 1) << (p % 8);
                }
            }
            if b == 4 {
                [mask[0] | mask[0] << 4; 64]
            } else {
                repeat(&mask, b / 8)
            }
        })
}

/// The dtype of a code of the table's constants, the AVX2 kernels' other
/// side: one of 4 to 16 bits, or if `wide` up to 64.
#[allow(clippy::panic)] // only in constant blocks: would fail the build
const fn small(code: i32, wide: bool) -> Dtype {
    match other(code) {
        d if d.bits() == 4 || d.bits() == 8 || d.bits() == 16 || wide && d.bits() <= 64 => d,
        _ => panic!("a dtype of 4 to 16 bits (up to 64 if wide)"),
    }
}

/// The 32-byte vector of the first 32 bytes of `v`.
#[inline]
#[target_feature(enable = "avx2")]
fn vector(v: &[u8; 64]) -> __m256i {
    // SAFETY: 32 of the 64 bytes.
    unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
}

/// The AVX2 kernels' steps in the one loop: `step(from, to)` converts the
/// `g` elements at `from` into `to` (the caller's bytes, or for the last
/// few elements, fewer than `g`, copies on the stack that hold them,
/// 32-byte aligned: `sbits` and `dbits` bits an element, at most `B` bytes
/// a step).
///
/// # Safety
/// `src` and `dst` hold `n` elements of `sbits` and `dbits` bits.
#[inline(always)]
unsafe fn steps<const B: usize>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    (sbits, dbits): (usize, usize),
    g: usize,
    fetch: Fetch,
    step: impl Fn(*const u8, *mut u8),
) {
    // SAFETY: elements i .. i + g are within n.
    let whole = |i: usize| unsafe { step(src.add(i * sbits / 8), dst.add(i * dbits / 8)) };
    let last = |i: usize, left: usize| {
        // Aligned: a step may store its vector non-temporally.
        #[repr(C, align(32))]
        struct Step<const B: usize>([u8; B]);
        let (mut from, mut to) = (Step([0; B]), Step([0; B]));
        // SAFETY: the bytes of elements i .. n of both sides (the last of
        // a sub-byte side may be half used); the copies hold a step's.
        unsafe {
            let (a, b) = ((left * sbits).div_ceil(8), (left * dbits).div_ceil(8));
            std::ptr::copy_nonoverlapping(src.add(i * sbits / 8), from.0.as_mut_ptr(), a);
            step(from.0.as_ptr(), to.0.as_mut_ptr());
            std::ptr::copy_nonoverlapping(to.0.as_ptr(), dst.add(i * dbits / 8), b);
        }
    };
    each(n, g, g, fetch, whole, last);
}

/// bit or bool (`S`) -> `D`, a dtype of 4, 8 or 16 bits, at AVX2. From
/// bit: 32 elements' bits (4 bytes, broadcast) spread to one a byte
/// (VPSHUFB), tested, and the destination's two codes blended by the
/// result; into 4 bits the even and the odd elements apart (PEXT),
/// blending the low and the high nibbles; into 16 bits 16 elements' bits
/// broadcast to words, each tested for its own. From bool: each source
/// byte compared with zero (true iff not zero, which converts as bit 1
/// does: SEMANTICS.md), into 8 bits the compare blending the codes itself
/// (into 16 widened to words, VPMOVSXBW), into 4 bits its byte mask
/// (VPMOVMSKB) taken as the bits.
///
/// # Safety
/// As `super::call`'s kernels, on a CPU with AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub unsafe fn from_truth2<const S: i32, const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let d = const { small(D, false) };
    let b = d.bits() as usize;
    let [zero, one] = codes(d);
    let (zero, one) = (vector(zero), vector(one));
    // Byte j takes source byte j / 8 (each 128-bit lane holds all four).
    let spread = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
    // The codes of the 32 elements of `k`.
    let pick = |k: u32| {
        let x = _mm256_and_si256(
            _mm256_shuffle_epi8(_mm256_set1_epi32(k as i32), spread),
            bit,
        );
        _mm256_blendv_epi8(zero, one, _mm256_cmpeq_epi8(x, bit))
    };
    // The zero bytes of 32 bools at `p`.
    let falses = |p: *const u8| {
        // SAFETY: the step's 32 bytes at `p` (below).
        let x = unsafe { _mm256_loadu_si256(p.cast()) };
        _mm256_cmpeq_epi8(x, _mm256_setzero_si256())
    };
    let low = _mm256_set1_epi8(0x0F);
    // Bit j of word j.
    let words = _mm256_setr_epi16(
        1,
        2,
        4,
        8,
        16,
        32,
        64,
        128,
        256,
        512,
        1024,
        2048,
        4096,
        8192,
        16384,
        i16::MIN,
    );
    let step = |from: *const u8, to: *mut u8| {
        // SAFETY: a step's 4 or 8 source bytes (bool: 32 or 64) and 32
        // destination bytes (16 bits: 64), 32-byte aligned from the
        // destination.
        unsafe {
            if b == 16 {
                // 32 elements, 16 a vector: word j false where bool byte j
                // is zero, true where bit j is set.
                if S == NX_BOOL {
                    let f = falses(from);
                    for (j, h) in [_mm256_castsi256_si128(f), _mm256_extracti128_si256::<1>(f)]
                        .into_iter()
                        .enumerate()
                    {
                        let v = _mm256_blendv_epi8(one, zero, _mm256_cvtepi8_epi16(h));
                        put256::<NT>(to.add(32 * j), v);
                    }
                } else {
                    let k = u32::from_le(from.cast::<u32>().read_unaligned());
                    for j in 0..2 {
                        let x = _mm256_set1_epi16((k >> (16 * j)) as i16);
                        let t = _mm256_cmpeq_epi16(_mm256_and_si256(x, words), words);
                        put256::<NT>(to.add(32 * j), _mm256_blendv_epi8(zero, one, t));
                    }
                }
                return;
            }
            let v = if b == 8 && S == NX_BOOL {
                _mm256_blendv_epi8(one, zero, falses(from))
            } else if b == 8 {
                pick(u32::from_le(from.cast::<u32>().read_unaligned()))
            } else {
                let k = if S == NX_BOOL {
                    let m = |j: usize| {
                        u64::from(!(_mm256_movemask_epi8(falses(from.add(32 * j))) as u32))
                    };
                    m(0) | m(1) << 32
                } else {
                    u64::from_le(from.cast::<u64>().read_unaligned())
                };
                let (lo, hi) = (_pext_u64(k, every(2, 0)), _pext_u64(k, every(2, 1)));
                let (lo, hi) = (pick(lo as u32), pick(hi as u32));
                _mm256_or_si256(_mm256_and_si256(lo, low), _mm256_andnot_si256(low, hi))
            };
            put256::<NT>(to, v);
        }
    };
    let sbits = if S == NX_BOOL { 8 } else { 1 };
    let fetch = Fetch::new::<NT>(src, sbits, ahead);
    // Elements a step: a vector of results, two of 16 bits.
    let g = if b == 16 { 32 } else { 256 / b };
    // SAFETY: the caller's elements; a step's bytes as above (at most 64).
    unsafe {
        if S == NX_BOOL && b == 4 || b == 16 {
            steps::<64>(src, dst, n, (sbits, b), g, fetch, step)
        } else {
            steps::<32>(src, dst, n, (sbits, b), g, fetch, step)
        }
    }
}

/// `S`, a dtype of 4 to 64 bits, -> bit at AVX2: 32 bytes at a time
/// tested against `S`'s true bits (compared with zero at the element's
/// width, VPMOVMSKB; a wider element's byte bits taken one an element,
/// PEXT); a 4-bit source's low and high nibbles apart, interleaved (PDEP).
/// (Both forms store the bits with ordinary stores: at most a quarter of
/// what a step moves.)
///
/// # Safety
/// As `super::call`'s kernels, on a CPU with AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub unsafe fn to_bit2<const S: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let s = const { small(S, true) };
    let b = s.bits() as usize;
    let fetch = Fetch::new::<NT>(src, b, ahead);
    let t = vector(truth(s));
    let low = _mm256_set1_epi8(0x0F);
    let (lo_t, hi_t) = (_mm256_and_si256(t, low), _mm256_andnot_si256(low, t));
    // The bytes of `x` with a bit of `m` set, one bit a byte.
    let any = |x: __m256i, m: __m256i| {
        let z = _mm256_cmpeq_epi8(_mm256_and_si256(x, m), _mm256_setzero_si256());
        !(_mm256_movemask_epi8(z) as u32)
    };
    // The elements of `x` (of `b` bits) with a bit of `t` set, one bit an
    // element.
    let wide = |x: __m256i| {
        let (x, z) = (_mm256_and_si256(x, t), _mm256_setzero_si256());
        let eq = match b {
            16 => _mm256_cmpeq_epi16(x, z),
            32 => _mm256_cmpeq_epi32(x, z),
            _ => _mm256_cmpeq_epi64(x, z),
        };
        _pext_u32(!(_mm256_movemask_epi8(eq) as u32), every(b / 8, 0) as u32)
    };
    // SAFETY: the caller's elements; a step's 32 b / 8 source bytes (32
    // elements from 16 bits up), and 4 or 8 destination bytes.
    unsafe {
        if b >= 16 {
            return steps::<256>(src, dst, n, (b, 1), 32, fetch, |from, to| {
                let per = 256 / b;
                let k = (0..b / 8).fold(0u32, |k, j| {
                    k | wide(_mm256_loadu_si256(from.add(32 * j).cast())) << (per * j)
                });
                to.cast::<u32>().write_unaligned(k.to_le());
            });
        }
        steps::<32>(src, dst, n, (b, 1), 256 / b, fetch, |from, to| {
            let x = _mm256_loadu_si256(from.cast());
            if b == 8 {
                to.cast::<u32>().write_unaligned(any(x, t).to_le());
            } else {
                let (lo, hi) = (any(x, lo_t), any(x, hi_t));
                let k = _pdep_u64(lo.into(), every(2, 0)) | _pdep_u64(hi.into(), every(2, 1));
                to.cast::<u64>().write_unaligned(k.to_le());
            }
        })
    }
}

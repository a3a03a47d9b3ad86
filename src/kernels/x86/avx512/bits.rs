//! The 1-bit dtype (bit) with the others by masks at AVX-512, every
//! width (`super::super::bits` has the tables the scalar reference makes,
//! and the AVX2 level's kernels). From bit, each source bit picks one of
//! two codes of the destination (`from_truth`: the bits spread to byte masks,
//! one VPBLENDMB a vector); into bit, each destination bit tells whether
//! any of some bits of the source's code is set (`to_bit`: one VPTESTM a
//! vector, no conversion). bool -> the others likewise, its bytes tested
//! for the bits (`from_truth` too). The lanes these replace widen to float32
//! and encode.

use super::super::bits::{codes, every, other, truth};
use super::super::put256;
use super::{first_lanes, full, put512};
use crate::codes::NX_BOOL;
use crate::kernels::lanes::{each, Fetch};
use std::arch::x86_64::*;

/// The 64-byte vector of `v`.
#[inline]
#[target_feature(enable = "avx512f")]
fn vector(v: &[u8; 64]) -> __m512i {
    // SAFETY: 64 bytes.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// bit or bool (`S`) -> dtype `D`, `n` elements: 64 a step, their bits
/// `k` (bit: 8 source bytes; bool: VPTESTMB of 64, true iff not zero,
/// which converts as bit 1 does: SEMANTICS.md), each vector of their
/// results a blend of `D`'s two codes under the bits spread to its bytes
/// (PDEP, and a multiply that fills each element's bytes); into 4 bits one
/// 256-bit vector, the even and the odd elements' bits taken apart (PEXT)
/// blending the low and the high nibbles.
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX-512 BW and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,bmi2")]
pub unsafe fn from_truth<const S: i32, const D: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let bytes = const { other(D).bits() as usize / 8 };
    // 256-bit vectors where the stores bind, which sustain more at that
    // width past L1; 512-bit ones into 8 and 16 bits while the results fit
    // L1 (32 KiB), where they run twice as fast.
    // SAFETY: forwarded.
    unsafe {
        if bytes <= 2 && n * bytes <= 32 << 10 {
            picks::<S, D, 64, NT>(src, dst, n, ahead)
        } else {
            picks::<S, D, 32, NT>(src, dst, n, ahead)
        }
    }
}

/// `from_truth` in vectors of `W` bytes (32 or 64) for 8 bits and more.
///
/// # Safety
/// As `from_truth`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,bmi2")]
unsafe fn picks<const S: i32, const D: i32, const W: usize, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let d = const { other(D) };
    let b = d.bits() as usize;
    let [zero, one] = codes(d);
    let (zero, one) = (vector(zero), vector(one));
    let (z, o) = (_mm512_castsi512_si256(zero), _mm512_castsi512_si256(one));
    let nibbles = |k: u64| {
        let lo = _mm256_mask_blend_epi8(_pext_u64(k, every(2, 0)) as u32, z, o);
        let hi = _mm256_mask_blend_epi8(_pext_u64(k, every(2, 1)) as u32, z, o);
        // The low nibbles of `lo`, the high of `hi`.
        _mm256_ternarylogic_epi32::<0xE4>(lo, hi, _mm256_set1_epi8(0x0F))
    };
    // The mask of the `w`-byte vector j of the results of 8 bits and more:
    // its elements' bits spread to their bytes.
    let bytes = b / 8;
    let spread = |k: u64, w: usize, j: usize| {
        let per = w / bytes.max(1);
        let bits = (k >> (j * per)) & first_lanes(per);
        _pdep_u64(bits, every(bytes.max(1), 0)).wrapping_mul((1 << bytes) - 1)
    };
    let w = W;
    // Vector j of the results of `k` at `at`: whole, or its first `part`
    // bytes.
    let put = |at: *mut u8, k: u64, j: usize, part: Option<usize>| {
        let m = spread(k, w, j);
        // SAFETY: the callers' (below): the vector's bytes at `at`, or
        // its first `part`, are the destination's.
        unsafe {
            if w == 64 {
                let v = _mm512_mask_blend_epi8(m, zero, one);
                match part {
                    None => put512::<NT>(at, v),
                    Some(len) => full::_mm512_mask_storeu_epi8(at.cast(), first_lanes(len), v),
                }
            } else {
                let v = _mm256_mask_blend_epi8(m as u32, z, o);
                match part {
                    None => put256::<NT>(at, v),
                    Some(len) => {
                        full::_mm256_mask_storeu_epi8(at.cast(), first_lanes(len) as u32, v)
                    }
                }
            }
        }
    };
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, if S == NX_BOOL { 8 } else { 1 }, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n: 8 source bytes
            // from i / 8 (bool: 64 from i), 8 b result bytes from i b / 8,
            // a multiple of 32 (4 bits) or `w` from the destination.
            unsafe {
                let k = if S == NX_BOOL {
                    let v = _mm512_loadu_si512(src.add(i).cast());
                    _mm512_test_epi8_mask(v, v)
                } else {
                    u64::from_le(src.add(i / 8).cast::<u64>().read_unaligned())
                };
                let at = dst.add(i * b / 8);
                if b == 4 {
                    put256::<NT>(at, nibbles(k));
                }
                for j in 0..64 * bytes / w {
                    put(at.add(w * j), k, j, None);
                }
            }
        },
        |i, left| {
            let mut k = [0u8; 8];
            let len = (left * b).div_ceil(8);
            // SAFETY: the source bytes of elements i .. i + left (bool:
            // masked loads, nothing past them read); their results' `len`
            // bytes (the last of 4 bits may be half used) within the
            // destination's.
            unsafe {
                let k = if S == NX_BOOL {
                    let v = full::_mm512_maskz_loadu_epi8(first_lanes(left), src.add(i).cast());
                    _mm512_test_epi8_mask(v, v)
                } else {
                    std::ptr::copy_nonoverlapping(src.add(i / 8), k.as_mut_ptr(), left.div_ceil(8));
                    u64::from_le_bytes(k)
                };
                let at = dst.add(i * b / 8);
                if b == 4 {
                    full::_mm256_mask_storeu_epi8(at.cast(), first_lanes(len) as u32, nibbles(k));
                }
                for j in 0..64 * bytes / w {
                    put(at.add(w * j), k, j, Some(len.saturating_sub(w * j)));
                }
            }
        },
    );
}

/// Dtype `S` -> bit, `n` elements: 64 a step, each source vector tested
/// against `S`'s true bits (VPTESTM at the element's width; a 128-bit
/// element's two quadwords or'ed, PEXT; a 4-bit one's low and high
/// nibbles apart, PDEP), 8 bytes of bits out. (Both forms store those
/// with ordinary stores: a 64th to a 4th of the bytes a step moves.)
///
/// # Safety
/// As `super::super::call`'s kernels, on a CPU with AVX-512 BW and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,bmi2")]
pub unsafe fn to_bit<const S: i32, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let s = const { other(S) };
    let b = s.bits() as usize;
    let t = vector(truth(s));
    let low = _mm256_set1_epi8(0x0F);
    let (lo_t, hi_t) = (
        _mm256_and_si256(_mm512_castsi512_si256(t), low),
        _mm256_andnot_si256(low, _mm512_castsi512_si256(t)),
    );
    // The bits of 64 4-bit elements (32 bytes in `x`).
    let nibbles = |x: __m256i| {
        let lo = _mm256_test_epi8_mask(x, lo_t);
        let hi = _mm256_test_epi8_mask(x, hi_t);
        _pdep_u64(lo.into(), every(2, 0)) | _pdep_u64(hi.into(), every(2, 1))
    };
    // The bits of the elements in source vector j of a step, in place.
    let tested = |x: __m512i, j: usize| -> u64 {
        match b {
            8 => _mm512_test_epi8_mask(x, t),
            16 => u64::from(_mm512_test_epi16_mask(x, t)) << (32 * j),
            32 => u64::from(_mm512_test_epi32_mask(x, t)) << (16 * j),
            64 => u64::from(_mm512_test_epi64_mask(x, t)) << (8 * j),
            _ => {
                let q = u64::from(_mm512_test_epi64_mask(x, t));
                _pext_u64(q | q >> 1, every(2, 0)) << (4 * j)
            }
        }
    };
    // Whole source vectors a step (none for 4 bits).
    let count = b / 8;
    each(
        n,
        64,
        64,
        Fetch::new::<NT>(src, b, ahead),
        |i| {
            // SAFETY: elements i .. i + 64 are within n: 8 b source bytes
            // from i b / 8, 8 bytes of bits from i / 8.
            unsafe {
                let at = src.add(i * b / 8);
                let mut k = 0;
                if b == 4 {
                    k = nibbles(_mm256_loadu_si256(at.cast()));
                }
                for j in 0..count {
                    k |= tested(_mm512_loadu_si512(at.add(64 * j).cast()), j);
                }
                dst.add(i / 8).cast::<u64>().write_unaligned(k.to_le());
            }
        },
        |i, left| {
            let len = (left * b).div_ceil(8);
            // SAFETY: the source bytes of elements i .. i + left (masked
            // loads: nothing past them is read), and the bytes of their
            // bits within the destination's.
            unsafe {
                let at = src.add(i * b / 8);
                let load = |j: usize| {
                    let m = first_lanes(len.saturating_sub(64 * j));
                    full::_mm512_maskz_loadu_epi8(m, at.wrapping_add(64 * j).cast())
                };
                let mut k = 0;
                if b == 4 {
                    k = nibbles(_mm512_castsi512_si256(load(0)));
                }
                for j in 0..count {
                    k |= tested(load(j), j);
                }
                let k = (k & first_lanes(left)).to_le_bytes();
                std::ptr::copy_nonoverlapping(k.as_ptr(), dst.add(i / 8), left.div_ceil(8));
            }
        },
    );
}

//! Sixteen decimal digits in ASCII with SSE2, which every x86-64 CPU has:
//! both halves of the text's digits split side by side in one register,
//! about twenty vector operations where the word-at-a-time version takes
//! twice as many scalar ones. `layout::sixteen_scalar` is the portable twin
//! that the tests hold this to.

use core::arch::x86_64::*;

/// The ASCII digits of `hi` then `lo` (each < 10^8, eight digits each,
/// first digit in the low byte), and how many of them there are up to the
/// last one that is not 0 (0 when all are).
#[inline(always)]
pub fn sixteen(hi: u32, lo: u32) -> (u128, u32) {
    // SAFETY: SSE2 is part of the x86-64 baseline, so every CPU running
    // this code has the one feature `sixteen_sse2` enables.
    unsafe { sixteen_sse2(hi, lo) }
}

/// Each step divides every lane by 10^4, 10^2 or 10 (a multiplication by
/// the reciprocal, exact in these ranges: checked over every input by the
/// tests) and puts the quotient in the lower half of the lane and the
/// remainder in the upper one, so the digits come out first-digit-first.
#[inline]
#[target_feature(enable = "sse2")]
fn sixteen_sse2(hi: u32, lo: u32) -> (u128, u32) {
    // Two 64-bit lanes: hi's (the first digits) low.
    let v = _mm_set_epi64x(i64::from(lo), i64::from(hi));
    // v / 10^4 = v * ceil(2^40 / 10^4) >> 40 for v < 10^8; then
    // v + q * (2^32 - 10^4) is the remainder with q above it, in one
    // multiply-add, and a shuffle swaps the two.
    let q = _mm_srli_epi64::<40>(_mm_mul_epu32(v, _mm_set1_epi64x(109_951_163)));
    let v = _mm_add_epi64(v, _mm_mul_epu32(q, _mm_set1_epi64x((1 << 32) - 10_000)));
    let v = _mm_shuffle_epi32::<0b10_11_00_01>(v);
    // Four 32-bit lanes < 10^4: x / 100 = x * 5243 >> 19.
    let q = _mm_srli_epi16::<3>(_mm_mulhi_epu16(v, _mm_set1_epi32(5243)));
    let r = _mm_sub_epi16(v, _mm_mullo_epi16(q, _mm_set1_epi32(100)));
    let v = _mm_or_si128(q, _mm_slli_epi32::<16>(r));
    // Eight 16-bit lanes < 100: y / 10 = y * 6554 >> 16.
    let q = _mm_mulhi_epu16(v, _mm_set1_epi16(6554));
    let r = _mm_sub_epi16(v, _mm_mullo_epi16(q, _mm_set1_epi16(10)));
    let digits = _mm_or_si128(q, _mm_slli_epi16::<8>(r));
    let zeros = _mm_movemask_epi8(_mm_cmpeq_epi8(digits, _mm_setzero_si128())) as u32;
    // The last non-zero digit's place, plus one; the low bit set keeps the
    // argument of ilog2 non-zero and counts as "none".
    let count = ((!zeros & 0xFFFF) << 1 | 1).ilog2();
    let ascii = _mm_add_epi8(digits, _mm_set1_epi8(b'0' as i8));
    let low = _mm_cvtsi128_si64(ascii) as u64;
    let high = _mm_cvtsi128_si64(_mm_unpackhi_epi64(ascii, ascii)) as u64;
    (u128::from(low) | u128::from(high) << 64, count)
}

//! Strided sources of 32-bit elements gathered by VPGATHERDD (8 lanes at
//! AVX2, 16 at AVX-512: 1.03-1.19x over 8 into the narrower dtypes, 1.0x
//! into the wider) into a block's buffer, in place of `pack::gather`'s
//! copies (which take the elements left over, and every other case).
//!
//! Measured (`make bench-levels`' harness, source stride 2, AVX-512 level,
//! against the same build without this path, best of 3 alternated runs):
//! float32, int32 and uint32 into the other dtypes 1.26x (geometric mean)
//! at 65536 elements, 1.36x at 1024, up to 1.53x (float32 -> float64
//! 2.27 -> 2.55 Gelem/s). Into complex128, whose blocks hold 64 elements,
//! the gathers ran 0.73-0.75x (65536 elements; 0.92-0.96x at 1024), their
//! cause not found (the kernel entry's MXCSR read, STMXCSR, waits on
//! them: 74% of the entry's samples; without it float32 -> complex128
//! still 1.11 -> 1.18 Gelem/s against 1.53 with the copies): blocks of
//! fewer than 128 elements keep the copies. 64-bit elements by VPGATHERDQ
//! ran no faster than the copies (0.94-1.02x).

use super::super::Isa;
use std::arch::x86_64::*;

/// Gather elements `0 .. g` of 4 bytes, element j at byte `at + j * step`
/// of `buf` (`step` any sign, or 0), packed into `out`, where `g` is `m`
/// rounded down to a multiple of the level's lanes; return `g`, or 0 (nothing written)
/// where this does not apply: below AVX2, fewer than 128 elements, any
/// outside `buf`, or offsets past 32 bits.
#[inline]
pub fn gather32(isa: Isa, buf: &[u8], at: usize, step: i64, out: &mut [u8], m: usize) -> usize {
    let lanes = if isa == Isa::Avx512 { 16 } else { 8 };
    let g = m / lanes * lanes;
    if m < 128 || isa == Isa::Scalar || !isa.supported() {
        return 0;
    }
    // Every offset from element 0 fits an i32 (VPGATHERDD's signed
    // indices, scale 1).
    let span = super::reach(buf.len(), at, step, 4, g);
    if span.is_none_or(|s| s > i32::MAX as u64) || out.len() < g * 4 {
        return 0;
    }
    let (base, step, to) = (buf.as_ptr().wrapping_add(at), step as i32, out.as_mut_ptr());
    // SAFETY: the level is there (`supported`); element j's bytes, at + j
    // step .. + 4, lie within `buf` for every j < g (checked above), and
    // `out` holds 4 g bytes; no offset j step passes `span`, which fits an
    // i32; g is a multiple of the level's lanes.
    unsafe {
        if isa == Isa::Avx512 {
            gather32_avx512(base, step, to, g)
        } else {
            gather32_avx2(base, step, to, g)
        }
    }
    g
}

/// # Safety
/// AVX2; elements j < n (a multiple of 8) at `base + j * step`, 4 bytes
/// each, readable, every `j * step` an i32; `out` writable for 4 n bytes.
#[target_feature(enable = "avx2")]
unsafe fn gather32_avx2(base: *const u8, step: i32, out: *mut u8, n: usize) {
    // Lane l's offset from a step's first element.
    let lanes = _mm256_mullo_epi32(
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        _mm256_set1_epi32(step),
    );
    for j in (0..n).step_by(8) {
        let idx = _mm256_add_epi32(_mm256_set1_epi32(j as i32 * step), lanes);
        // SAFETY: the caller's elements j .. j + 8 and their 32 bytes of
        // `out`.
        unsafe {
            let v = _mm256_i32gather_epi32::<1>(base.cast(), idx);
            _mm256_storeu_si256(out.add(4 * j).cast(), v);
        }
    }
}

/// # Safety
/// As `gather32_avx2`, on AVX-512 F, `n` a multiple of 16.
#[target_feature(enable = "avx512f")]
unsafe fn gather32_avx512(base: *const u8, step: i32, out: *mut u8, n: usize) {
    let lanes = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(step),
    );
    for j in (0..n).step_by(16) {
        let idx = _mm512_add_epi32(_mm512_set1_epi32(j as i32 * step), lanes);
        // SAFETY: the caller's elements j .. j + 16 and their 64 bytes of
        // `out`.
        unsafe {
            let v = _mm512_i32gather_epi32::<1>(idx, base.cast());
            _mm512_storeu_si512(out.add(4 * j).cast(), v);
        }
    }
}

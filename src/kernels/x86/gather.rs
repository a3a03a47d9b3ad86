//! Strided whole-byte elements moved between the caller's memory and the
//! driver's blocks by SIMD, in place of `pack`'s element copies (which take
//! the elements left over, and every other case):
//! - `near`: a source stride of -4 to 4 elements (not 0 or 1), elements of
//!   1 to 16 bytes, 64 bytes at a time by byte permutes (VPERMB/VPERMT2B,
//!   AVX512-VBMI) of the one to four vectors that hold them;
//! - `spread`: a destination stride of 2 to 4, elements of 1 to 4 bytes,
//!   by VPERMB and a masked store that writes only the elements' bytes;
//! - `gather32`: other strides of 32-bit elements by VPGATHERDD (8 lanes
//!   at AVX2, 16 at AVX-512).
//!
//! 64-bit elements by VPGATHERDQ run no faster than the driver's copies,
//! so they take those.

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
    if m < 128 || !matches!(isa, Isa::Avx2 | Isa::Avx512) || !isa.supported() {
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

/// The strides in elements that `near` and `spread` serve (a source's any
/// sign; destination strides are at least 1, and 1 is contiguous).
const NEAR_K: [i64; 7] = [-4, -3, -2, -1, 2, 3, 4];
/// Whole-byte element widths, by their index in the tables below.
const WIDTHS: [usize; 5] = [1, 2, 4, 8, 16];

/// How 64 bytes of elements of `w` bytes a stride of `k` (in `NEAR_K`) are
/// picked from the vectors loaded at one place: `nv` vectors (4 at most,
/// as |k| <= 4) from byte `off` (<= 0) relative to the vector's first
/// element (its highest byte for k < 0, whose elements run down), and
/// VPERMT2B's byte indexes into them (bit 7 picks the third and fourth).
struct Pick {
    idx: [u8; 64],
    nv: usize,
    off: i64,
}

#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn pick(w: usize, k: i64) -> Pick {
    let s = k * w as i64;
    // The bytes from the lowest element's start to the highest's end:
    // every index is below 256 (at most 252 + w - 1 - 3w, |k| <= 4).
    let span = (64 / w as i64 - 1) * s.abs() + w as i64;
    let nv = (span + 63) / 64;
    // Backward, the loads end where the vector's first element does.
    let off = if k < 0 { w as i64 - nv * 64 } else { 0 };
    let mut idx = [0u8; 64];
    let mut o = 0;
    while o < 64 {
        let (e, b) = ((o / w) as i64, (o % w) as i64);
        idx[o] = (e * s + b - off) as u8;
        o += 1;
    }
    Pick {
        idx,
        nv: nv as usize,
        off,
    }
}

/// The table of `f(x, y)` for every `x` of the constant array `xs` and
/// `y` of `ys`, by their indexes (in a constant block: loops, as a const
/// fn takes no closure).
macro_rules! grid {
    ($f:ident, $xs:ident, $ys:ident) => {{
        let mut t = [const { [const { $f($xs[0], $ys[0]) }; $ys.len()] }; $xs.len()];
        let mut i = 0;
        while i < $xs.len() {
            let mut j = 0;
            while j < $ys.len() {
                t[i][j] = $f($xs[i], $ys[j]);
                j += 1;
            }
            i += 1;
        }
        t
    }};
}

/// `pick` for every width and stride, by their indexes in `WIDTHS` and
/// `NEAR_K`.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const PICKS: [[Pick; NEAR_K.len()]; WIDTHS.len()] = grid!(pick, WIDTHS, NEAR_K);

/// Whether `near` and `spread` run at `isa`: AVX-512 on a CPU with it and
/// with AVX512-VBMI (VPERMB, VPERMT2B; std caches the answer).
fn permutes(isa: Isa) -> bool {
    isa == Isa::Avx512 && isa.supported() && is_x86_feature_detected!("avx512vbmi")
}

/// The entry of `table` (by the widths `ws` and strides in elements `ks`
/// it was built over) for elements of `w` bytes a byte step `step` apart,
/// if it has one.
fn cell<T, const A: usize, const B: usize>(
    table: &'static [[T; B]; A],
    ws: [usize; A],
    ks: [i64; B],
    w: usize,
    step: i64,
) -> Option<&'static T> {
    let i = ws.iter().position(|&x| x == w)?;
    let j = ks.iter().position(|&k| k * w as i64 == step)?;
    table.get(i)?.get(j)
}

/// How many of the ranges `lo + j sv .. + need` (j = 0, 1, ..; `sv` not
/// 0) lie within `0 .. len`: the first and the last bound the rest.
fn fits(lo: i64, need: i64, sv: i64, len: usize) -> usize {
    let len = len as i64;
    if lo < 0 || lo + need > len {
        return 0;
    }
    // Forward the last one's end bounds them, backward its start.
    (if sv > 0 {
        (len - need - lo) / sv
    } else {
        lo / -sv
    } + 1) as usize
}

/// Gather elements `0 .. g` of `w` bytes (a power of two up to 16), element
/// j at byte `at + j * step` of `buf`, a stride of -4 to 4 elements but 0
/// and 1, packed into `out`, 64 bytes at a time by byte permutes of the
/// vectors that hold them (VPERMB/VPERMT2B: one to three a 64 bytes, where
/// the copies take one an element, and VPGATHERDD one a 4 bytes); return
/// g (a multiple of 64 / w), as many as have every loaded vector within
/// `buf`, or 0 where this does not apply (below AVX-512, no VBMI, other
/// strides or widths).
pub fn near(
    isa: Isa,
    buf: &[u8],
    at: usize,
    step: i64,
    w: usize,
    out: &mut [u8],
    m: usize,
) -> usize {
    let p = cell(&PICKS, WIDTHS, NEAR_K, w, step);
    let Some(p) = p.filter(|_| permutes(isa)) else {
        return 0;
    };
    let e = 64 / w;
    // Bytes from one vector's loads to the next's, and the loads' extent.
    let sv = e as i64 * step;
    let (lo, need) = (at as i64 + p.off, 64 * p.nv as i64);
    let v = fits(lo, need, sv, buf.len()).min(m / e).min(out.len() / 64);
    // SAFETY: the level and VBMI are there; vector j's loads, lo + j sv ..
    // + need, lie within `buf` for j < v (`fits`), and `out` holds 64 v
    // bytes.
    unsafe {
        let base = buf.as_ptr().wrapping_offset(lo as isize);
        let (to, sv) = (out.as_mut_ptr(), sv as isize);
        match p.nv {
            1 => near_avx512::<1>(base, sv, &p.idx, to, v),
            2 => near_avx512::<2>(base, sv, &p.idx, to, v),
            3 => near_avx512::<3>(base, sv, &p.idx, to, v),
            _ => near_avx512::<4>(base, sv, &p.idx, to, v),
        }
    }
    v * e
}

/// # Safety
/// AVX-512 F/BW and VBMI; for j < v, `base + j sv` readable for 64 NV
/// bytes and `out + 64 j` writable for 64.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn near_avx512<const NV: usize>(
    base: *const u8,
    sv: isize,
    idx: &[u8; 64],
    out: *mut u8,
    v: usize,
) {
    // SAFETY: 64 bytes.
    let idx = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    // The bytes taken from the third and fourth vectors.
    let high = _mm512_movepi8_mask(idx);
    for j in 0..v {
        // SAFETY: the caller's vector j: NV loads and one store.
        unsafe {
            let p = base.offset(j as isize * sv);
            let load = |i: usize| _mm512_loadu_si512(p.add(64 * i).cast());
            let r = match NV {
                1 => _mm512_permutexvar_epi8(idx, load(0)),
                2 => _mm512_permutex2var_epi8(load(0), idx, load(1)),
                _ => {
                    let lo = _mm512_permutex2var_epi8(load(0), idx, load(1));
                    let v3 = if NV == 4 {
                        load(3)
                    } else {
                        _mm512_setzero_si512()
                    };
                    let hi = _mm512_permutex2var_epi8(load(2), idx, v3);
                    _mm512_mask_blend_epi8(high, lo, hi)
                }
            };
            _mm512_storeu_si512(out.add(64 * j).cast(), r);
        }
    }
}

/// How packed elements of `w` bytes go out a stride of `k` (2 to 4): `g`
/// of them from `g w` packed bytes into one vector's span, `(g - 1) k w +
/// w` bytes from its first, under a byte mask (the bytes between them
/// untouched), by VPERMB's indexes.
struct Spread {
    idx: [u8; 64],
    mask: u64,
    g: usize,
}

#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn spread_of(w: usize, k: i64) -> Spread {
    let k = k as usize;
    let g = (64 - w) / (k * w) + 1;
    let (mut idx, mut mask) = ([0u8; 64], 0u64);
    let mut o = 0;
    while o < 64 {
        let (e, b) = (o / (k * w), o % (k * w));
        if e < g && b < w {
            idx[o] = (e * w + b) as u8;
            mask |= 1 << o;
        }
        o += 1;
    }
    Spread { idx, mask, g }
}

/// The element widths `spread` takes, and its strides. Elements of 8 and
/// 16 bytes, four or two a store, run slower than their copies.
const SPREAD_W: [usize; 3] = [1, 2, 4];
const SPREAD_K: [i64; 3] = [2, 3, 4];

/// `spread_of` for every width and stride of `SPREAD_W` and `SPREAD_K`.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const SPREADS: [[Spread; SPREAD_K.len()]; SPREAD_W.len()] = grid!(spread_of, SPREAD_W, SPREAD_K);

/// Scatter elements `0 .. g` of `w` bytes packed in `from` to byte `at + j
/// * step` of `buf` (a stride of 2 to 4 elements), writing only their
/// bytes (masked stores: the bytes between are neither read nor written,
/// so another thread may write them meanwhile); return g, as many whole
/// groups (`Spread`) as lie within both, or 0 where this does not apply.
pub fn spread(
    isa: Isa,
    from: &[u8],
    buf: &mut [u8],
    at: usize,
    step: i64,
    w: usize,
    m: usize,
) -> usize {
    let p = cell(&SPREADS, SPREAD_W, SPREAD_K, w, step);
    let Some(p) = p.filter(|_| permutes(isa)) else {
        return 0;
    };
    // (A stride in `SPREAD_K`: positive.)
    let (g, step) = (p.g, step as usize);
    // Group j reads g w bytes of `from` from j g w and writes bytes of
    // `buf` from at + j g step up to `last` bytes on.
    let last = (g - 1) * step + w;
    let v =
        fits(at as i64, last as i64, (g * step) as i64, buf.len()).min(m.min(from.len() / w) / g);
    // SAFETY: the level and VBMI are there; group j's masked load reads
    // bytes j g w .. + g w of `from` and its masked store writes bytes
    // within at + j g step .. + last of `buf`, both within for j < v.
    unsafe {
        spread_avx512(
            from.as_ptr(),
            buf.as_mut_ptr().wrapping_add(at),
            p,
            g * w,
            g * step,
            v,
        )
    }
    v * g
}

/// # Safety
/// AVX-512 F/BW and VBMI; for j < v, bytes j gw .. (j + 1) gw of `from`
/// readable and the bytes under `mask` from `to + j gkw` writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn spread_avx512(from: *const u8, to: *mut u8, p: &Spread, gw: usize, gkw: usize, v: usize) {
    // SAFETY: 64 bytes.
    let idx = unsafe { _mm512_loadu_si512(p.idx.as_ptr().cast()) };
    // (gw <= 32: a group spans at least twice its bytes.)
    let low = (1u64 << gw) - 1;
    for j in 0..v {
        // SAFETY: the caller's group j, under the masks.
        unsafe {
            let x = _mm512_maskz_loadu_epi8(low, from.add(j * gw).cast());
            let r = _mm512_permutexvar_epi8(idx, x);
            _mm512_mask_storeu_epi8(to.add(j * gkw).cast(), p.mask, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fits` against every range counted one by one.
    #[test]
    fn fits_counts_the_ranges_within() {
        for len in [0, 1, 63, 64, 65, 200, 511] {
            for lo in -3..=len as i64 + 2 {
                for need in [1, 16, 64, 128, 256] {
                    for sv in [-300, -64, -17, -1, 1, 5, 64, 128, 300] {
                        let within = |j: i64| {
                            let a = lo + j * sv;
                            a >= 0 && a + need <= len as i64
                        };
                        let n = fits(lo, need, sv, len) as i64;
                        assert!(
                            (0..n).all(within) && !within(n),
                            "{len} {lo} {need} {sv}: {n}"
                        );
                    }
                }
            }
        }
    }

    /// `near` and `spread` against element copies, every width and stride
    /// they serve, with room around the elements (then every whole vector
    /// or group is taken) and without (the span alone: fewer).
    #[test]
    fn near_and_spread_match_copies() {
        let isa = Isa::Avx512;
        if !permutes(isa) {
            return;
        }
        let bytes = |n: usize, seed: usize| -> Vec<u8> {
            (0..n)
                .map(|i| (i * 131 + seed * 7 + (i >> 8)) as u8)
                .collect()
        };
        for w in WIDTHS {
            for k in NEAR_K {
                let s = k * w as i64;
                for m in [0, 1, 5, 63, 64, 65, 130, 200] {
                    // Bytes from the lowest element to the highest's end.
                    let span = (m.max(1) - 1) * s.unsigned_abs() as usize + w;
                    for room in [0, 300] {
                        let buf = bytes(span + 2 * room, m + w);
                        let at = room + if k < 0 { span - w } else { 0 };
                        let elem = |j: usize| {
                            let p = (at as i64 + j as i64 * s) as usize;
                            &buf[p..p + w]
                        };
                        let mut out = vec![0xA5; m * w + 64];
                        let g = near(isa, &buf, at, s, w, &mut out, m);
                        let e = 64 / w;
                        assert!(g <= m && g.is_multiple_of(e), "w {w} k {k} m {m}: {g}");
                        if room > 0 {
                            assert_eq!(g, m / e * e, "w {w} k {k} m {m}");
                        }
                        for j in 0..g {
                            assert_eq!(
                                &out[j * w..(j + 1) * w],
                                elem(j),
                                "w {w} k {k} m {m} j {j}"
                            );
                        }
                        assert!(out[g * w..].iter().all(|&x| x == 0xA5));
                        if k < 2 {
                            continue;
                        }
                        // Scatter: the packed bytes out a stride of k
                        // (elements of up to 4 bytes).
                        let from = bytes(m * w, 3);
                        let dst0 = bytes(span + 2 * room, 5);
                        let mut dst = dst0.clone();
                        let Some(sp) = cell(&SPREADS, SPREAD_W, SPREAD_K, w, s) else {
                            assert_eq!(spread(isa, &from, &mut dst, room, s, w, m), 0);
                            continue;
                        };
                        let g = spread(isa, &from, &mut dst[..span + room], room, s, w, m);
                        let per = sp.g;
                        assert!(g <= m && g.is_multiple_of(per), "w {w} k {k} m {m}: {g}");
                        if room > 0 {
                            assert_eq!(g, m / per * per, "w {w} k {k} m {m}");
                        }
                        let mut want = dst0.clone();
                        for j in 0..g {
                            let p = room + j * s as usize;
                            want[p..p + w].copy_from_slice(&from[j * w..(j + 1) * w]);
                        }
                        assert!(dst == want, "spread w {w} k {k} m {m} room {room}");
                    }
                }
            }
        }
    }
}

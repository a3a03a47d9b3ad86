//! Sub-byte packing (ABI.md, "Elements in memory"): element `i` of a dtype of
//! `bits` bits starts at bit `i * bits` of its buffer, low bits first. These
//! read and write one element at a bit position; a write of a sub-byte
//! element changes only its own bits (read-modify-write of the shared byte).

use crate::value::Raw;

/// The element of `bits` bits at bit position `bit` of `buf` (0 if out of
/// bounds, which the callers' plans rule out).
#[inline]
pub fn read(buf: &[u8], bit: usize, bits: u32) -> Raw {
    let byte = bit / 8;
    if bits.is_multiple_of(8) {
        let n = bits as usize / 8;
        buf.get(byte..byte + n).map_or(0, |b| {
            b.iter()
                .rev()
                .fold(0u128, |acc, &x| (acc << 8) | u128::from(x))
        })
    } else {
        let mask = (1u8 << bits) - 1;
        buf.get(byte)
            .map_or(0, |&b| u128::from((b >> (bit % 8)) & mask))
    }
}

/// Write the low `bits` bits of `raw` as the element at bit position `bit`.
#[inline]
pub fn write(buf: &mut [u8], bit: usize, bits: u32, raw: Raw) {
    let byte = bit / 8;
    if bits.is_multiple_of(8) {
        let n = bits as usize / 8;
        if let Some(b) = buf.get_mut(byte..byte + n) {
            for (i, x) in b.iter_mut().enumerate() {
                *x = (raw >> (8 * i)) as u8;
            }
        }
    } else if let Some(b) = buf.get_mut(byte) {
        let shift = bit % 8;
        let mask = ((1u8 << bits) - 1) << shift;
        *b = (*b & !mask) | (((raw as u8) << shift) & mask);
    }
}

/// Gather `m` elements of `bits` bits, element j at bit `first + j * step`
/// of `buf`, packed from bit 0 of `out`. Whole-byte elements move as
/// fixed-size copies, which `read` and `write` (through u128) are not.
#[inline]
pub fn gather(buf: &[u8], first: usize, step: i64, bits: u32, out: &mut [u8], m: usize) {
    match bits {
        8 => gather_bytes::<1>(buf, first, step, out, m),
        16 => gather_bytes::<2>(buf, first, step, out, m),
        32 => gather_bytes::<4>(buf, first, step, out, m),
        64 => gather_bytes::<8>(buf, first, step, out, m),
        128 => gather_bytes::<16>(buf, first, step, out, m),
        4 => gather_sub::<4>(buf, first, step, out, m),
        _ => gather_sub::<1>(buf, first, step, out, m),
    }
}

/// The bit of element j, the first at bit `first`, one every `step` bits.
#[inline(always)]
fn bit_of(first: usize, step: i64, j: usize) -> usize {
    (first as i64 + j as i64 * step) as usize
}

/// Scatter `m` elements of `bits` bits packed from bit 0 of `from` to bit
/// `first + j * step` of `buf` (sub-byte ones changing only their own
/// bits). The step is positive: destination strides are at least 1
/// (ABI.md).
#[inline]
pub fn scatter(from: &[u8], buf: &mut [u8], first: usize, step: i64, bits: u32, m: usize) {
    match bits {
        8 => scatter_bytes::<1>(from, buf, first, step, m),
        16 => scatter_bytes::<2>(from, buf, first, step, m),
        32 => scatter_bytes::<4>(from, buf, first, step, m),
        64 => scatter_bytes::<8>(from, buf, first, step, m),
        128 => scatter_bytes::<16>(from, buf, first, step, m),
        _ => (0..m).for_each(|j| {
            let x = read(from, j * bits as usize, bits);
            write(buf, bit_of(first, step, j), bits, x)
        }),
    }
}

/// Whole-byte elements as every stride's window of their width: an
/// iterator, which computes and checks no position of its own. (The
/// destination's windows, by `chunks_mut`, run slower than its positions;
/// its arrays, `scatter_bytes`, faster.)
#[inline(always)]
fn gather_bytes<const W: usize>(buf: &[u8], first: usize, step: i64, out: &mut [u8], m: usize) {
    let out = out.get_mut(..m * W).unwrap_or_default().chunks_exact_mut(W);
    let (at, s) = (first / 8, (step.unsigned_abs() / 8) as usize);
    if s == 0 {
        if let Some(x) = buf.get(at..at + W) {
            out.for_each(|e| e.copy_from_slice(x));
        }
    } else if step > 0 {
        let windows = buf.get(at..).unwrap_or_default().windows(W).step_by(s);
        out.zip(windows).for_each(|(e, x)| e.copy_from_slice(x));
    } else if let Some(lo) = at.checked_sub((m.max(1) - 1).saturating_mul(s)) {
        // Backward: the same windows from the last element up, into `out`
        // from its end.
        let windows = buf.get(lo..).unwrap_or_default().windows(W).step_by(s);
        out.rev()
            .zip(windows)
            .for_each(|(e, x)| e.copy_from_slice(x));
    }
}

/// Whole-byte elements as arrays of their width, every `k`-th (a step of
/// `k` elements, at least one: strides count elements), by an iterator:
/// no position computed or checked apart. (The source's like arrays lose
/// on small blocks, complex128 destinations': `gather_bytes` keeps its
/// windows.)
#[inline(always)]
fn scatter_bytes<const W: usize>(from: &[u8], buf: &mut [u8], first: usize, step: i64, m: usize) {
    let from = from.get(..m * W).unwrap_or_default().as_chunks::<W>().0;
    let k = ((step.unsigned_abs() / 8) as usize / W).max(1);
    let to = buf
        .get_mut(first / 8..)
        .unwrap_or_default()
        .as_chunks_mut::<W>()
        .0;
    to.iter_mut()
        .step_by(k)
        .zip(from)
        .for_each(|(x, e)| *x = *e);
}

/// `gather` of sub-byte elements (4 or 1 bits): each output byte put
/// together from its elements with constant shifts and stored once, where
/// `read` and `write` go through u128 and a read-modify-write of the
/// byte per element.
#[inline(always)]
fn gather_sub<const BITS: usize>(buf: &[u8], first: usize, step: i64, out: &mut [u8], m: usize) {
    let pos = |j: usize| bit_of(first, step, j);
    let per = 8 / BITS;
    let mask = ((1u16 << BITS) - 1) as u8;
    let elem = |j: usize| {
        let p = pos(j);
        buf.get(p / 8).map_or(0, |&x| (x >> (p % 8)) & mask)
    };
    // Output byte b from elements b * per .. b * per + count.
    let byte =
        |b: usize, count: usize| (0..count).fold(0, |acc, k| acc | elem(b * per + k) << (k * BITS));
    let whole = m / per;
    for (b, o) in out.iter_mut().take(whole).enumerate() {
        *o = byte(b, per);
    }
    if !m.is_multiple_of(per) {
        if let Some(o) = out.get_mut(whole) {
            *o = byte(whole, m % per);
        }
    }
}

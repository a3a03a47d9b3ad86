//! The plan of a call: its arguments checked (counts, offsets, strides) and
//! each side resolved to the byte span it touches.

use crate::codes::{Status, NX_ERR_RANGE};
use crate::table::Dtype;

/// One side of a conversion as the caller gave it: offsets and strides
/// count elements.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    pub dt: Dtype,
    pub offset: i64,
    pub stride: i64,
}

/// One side resolved to bytes: the spanned byte range `[lo, lo + len)` of the
/// caller's pointer, and element `i` at bit `first + i * step` of that range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub dt: Dtype,
    pub lo: usize,
    pub len: usize,
    pub first: i64,
    pub step: i64,
    pub bits: u32,
}

impl Span {
    #[inline]
    pub(crate) fn bit(&self, i: usize) -> usize {
        (self.first + i as i64 * self.step) as usize
    }

    /// Whether element i + 1 follows element i with no gap.
    #[inline]
    pub(crate) fn contiguous(&self) -> bool {
        self.step == i64::from(self.bits)
    }
}

/// The byte span of `n > 0` elements of `side` (`offset >= 0`: `plan`), or
/// NX_ERR_RANGE when an index is negative or index (or bit) arithmetic
/// overflows int64.
// In 64 bits, checked, and by shifts (an element's bits are a power of
// two): the same spans and errors as exact 128-bit arithmetic (the kernel
// tests hold that as their reference), which costs a short call more.
// Inlined: out of line, the spans go through the stack in pieces.
#[inline(always)]
fn span(side: Side, n: i64) -> Result<Span, Status> {
    // Where the product or the sum overflows int64, the exact last index
    // lies outside 0 ..= i64::MAX: NX_ERR_RANGE either way.
    let last = (n - 1)
        .checked_mul(side.stride)
        .and_then(|reach| side.offset.checked_add(reach))
        .ok_or(NX_ERR_RANGE)?;
    let (lo_idx, hi_idx) = (last.min(side.offset), last.max(side.offset));
    if lo_idx < 0 {
        return Err(NX_ERR_RANGE);
    }
    let (lo_idx, hi_idx) = (lo_idx as u64, hi_idx as u64);
    let bits = side.dt.bits();
    let k = bits.trailing_zeros();
    // lo = floor(lo_idx bits / 8), end = ceil((hi_idx + 1) bits / 8).
    let (lo, end) = if k >= 3 {
        let bytes = u64::from(bits / 8);
        // (lo_idx <= hi_idx: the end's product bounds the start's.)
        let end = (hi_idx + 1).checked_mul(bytes).ok_or(NX_ERR_RANGE)?;
        (lo_idx * bytes, end)
    } else {
        // 2^(3 - k) elements a byte; hi_idx + 8 cannot overflow.
        let per = 3 - k;
        (lo_idx >> per, (hi_idx + (1 << per)) >> per)
    };
    let len = end - lo;
    // The end within the address space; bit positions relative to the
    // span (up to len 8) in int64.
    if end > isize::MAX as u64 || len > (i64::MAX / 8) as u64 {
        return Err(NX_ERR_RANGE);
    }
    // offset bits - lo 8: the elements from the lowest to the first, and
    // the lowest's bit within its byte.
    let first = ((side.offset as u64 - lo_idx) << k) + ((lo_idx << k) & 7);
    Ok(Span {
        dt: side.dt,
        lo: lo as usize,
        len: len as usize,
        first: first as i64,
        // (Wrapped only when n = 1, where no step is taken.)
        step: side.stride.wrapping_mul(i64::from(bits)),
        bits,
    })
}

/// Check counts, offsets and strides (ABI.md, "Bulk conversion"): the spans
/// of source and destination, or None when n = 0 (nothing to touch).
#[inline(always)]
pub fn plan(src: Side, dst: Side, n: i64) -> Result<Option<(Span, Span)>, Status> {
    if n < 0 || src.offset < 0 || dst.offset < 0 || dst.stride < 1 {
        return Err(NX_ERR_RANGE);
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some((span(src, n)?, span(dst, n)?)))
}

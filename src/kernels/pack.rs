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

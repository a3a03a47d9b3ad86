//! The portable scalar kernel for every pair: `value::convert` (the core's
//! one rounding routine) per element. It is the reference the SIMD kernels
//! are tested against, and the kernel every level uses for the pairs that
//! have no SIMD kernel.

use super::pack;
use crate::table::Dtype;
use crate::value::convert;

/// Convert `n` elements packed from bit 0 of `src` into `dst` (packed from
/// bit 0; other bits of a shared last byte are kept).
pub fn run(s: Dtype, d: Dtype, src: &[u8], dst: &mut [u8], n: usize) {
    let (sb, db) = (s.bits(), d.bits());
    if s == d && sb % 8 == 0 {
        let len = n * sb as usize / 8;
        if let (Some(from), Some(to)) = (src.get(..len), dst.get_mut(..len)) {
            to.copy_from_slice(from);
        }
        return;
    }
    for i in 0..n {
        let raw = pack::read(src, i * sb as usize, sb);
        pack::write(dst, i * db as usize, db, convert(s, d, raw));
    }
}

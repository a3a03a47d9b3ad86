//! The portable scalar kernel for every pair: `value::convert` (the core's
//! one rounding routine) per element. It is the reference the SIMD kernels
//! are tested against, and the kernel every level uses for the pairs that
//! have no SIMD kernel.
//!
//! `convert` is compiled once per pair (`run_pair`), with both dtypes
//! constants, so that each pair's loop holds only that pair's arithmetic
//! (what decode and encode do for those dtypes), not a dispatch on both
//! dtypes per element.

use super::pack;
use crate::table::{Dtype, COUNT};
use crate::value::{convert, dtype_of, read_elem, write_elem};

/// Convert `n` elements packed from bit 0 of `src` into `dst` (packed from
/// bit 0; other bits of a shared last byte are kept).
pub fn run(s: Dtype, d: Dtype, src: &[u8], dst: &mut [u8], n: usize) {
    if let Some(k) = RUN
        .get(s.code() as usize)
        .and_then(|row| row.get(d.code() as usize))
    {
        k(src, dst, n);
    }
}

/// `run` for the pair whose codes are `S` and `D` (constants here, so the
/// inlined `convert` folds to that pair's arithmetic).
fn run_pair<const S: usize, const D: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let (s, d) = const { (dtype_of::<S>(), dtype_of::<D>()) };
    let (sb, db) = (s.bits(), d.bits());
    if s == d && sb % 8 == 0 {
        let len = n * sb as usize / 8;
        if let (Some(from), Some(to)) = (src.get(..len), dst.get_mut(..len)) {
            to.copy_from_slice(from);
        }
    } else if sb % 8 == 0 && db % 8 == 0 {
        let (sw, dw) = (s.elem_bytes(), d.elem_bytes());
        for (i, o) in src.chunks_exact(sw).zip(dst.chunks_exact_mut(dw)).take(n) {
            write_elem(d, convert(s, d, read_elem(s, i)), o);
        }
    } else {
        for i in 0..n {
            let raw = pack::read(src, i * sb as usize, sb);
            pack::write(dst, i * db as usize, db, convert(s, d, raw));
        }
    }
}

type Run = fn(&[u8], &mut [u8], usize);

/// `[run_pair::<S, 0>, ..., run_pair::<S, 20>]`.
macro_rules! row {
    ($s:literal) => {
        [
            run_pair::<$s, 0>,
            run_pair::<$s, 1>,
            run_pair::<$s, 2>,
            run_pair::<$s, 3>,
            run_pair::<$s, 4>,
            run_pair::<$s, 5>,
            run_pair::<$s, 6>,
            run_pair::<$s, 7>,
            run_pair::<$s, 8>,
            run_pair::<$s, 9>,
            run_pair::<$s, 10>,
            run_pair::<$s, 11>,
            run_pair::<$s, 12>,
            run_pair::<$s, 13>,
            run_pair::<$s, 14>,
            run_pair::<$s, 15>,
            run_pair::<$s, 16>,
            run_pair::<$s, 17>,
            run_pair::<$s, 18>,
            run_pair::<$s, 19>,
            run_pair::<$s, 20>,
        ]
    };
}

/// `run_pair` for every pair, indexed by source code, then destination.
static RUN: [[Run; COUNT]; COUNT] = [
    row!(0),
    row!(1),
    row!(2),
    row!(3),
    row!(4),
    row!(5),
    row!(6),
    row!(7),
    row!(8),
    row!(9),
    row!(10),
    row!(11),
    row!(12),
    row!(13),
    row!(14),
    row!(15),
    row!(16),
    row!(17),
    row!(18),
    row!(19),
    row!(20),
];

//! The portable scalar kernel for every pair: `value::convert` (the core's
//! one rounding routine) per element. It is the reference the SIMD kernels
//! are tested against, and the kernel every level uses for the pairs that
//! have no SIMD kernel.
//!
//! `convert` is compiled once per pair (`run_pair`), with both dtypes
//! constants, so that each pair's loop holds only that pair's arithmetic
//! (what decode and encode do for those dtypes), not a dispatch on both
//! dtypes per element. A source of 8 bits or fewer has at most 256 codes:
//! where `convert` decodes or rounds, their results are made once by
//! `convert` itself and then looked up (`lookup`).

use super::pack;
use crate::table::{Class, Dtype, COUNT};
use crate::value::{convert, dtype_of, read_elem, write_elem, Raw};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The scalar reference as a level's kernel for `S -> D` (dtype codes),
/// where it beats the level's own: it needs no floating-point environment
/// (it rounds in the integers) and stores plainly whatever the store form.
pub fn kernel<const S: i32, const D: i32>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    _: usize,
    _: super::Store,
) {
    if let (Some(s), Some(d)) = (Dtype::from_code(S), Dtype::from_code(D)) {
        run(s, d, src, dst, n);
    }
}

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
    } else if const { looked_up(dtype_of::<S>(), dtype_of::<D>()) } {
        lookup(s, d, table::<S, D>(), src, dst, n);
    } else if sb % 8 == 0 && db % 8 == 0 {
        let (sw, dw) = (s.elem_bytes(), d.elem_bytes());
        for (i, o) in src.chunks_exact(sw).zip(dst.chunks_exact_mut(dw)).take(n) {
            write_elem(d, convert(s, d, read_elem(s, i)), o);
        }
    } else {
        // Whole-byte elements into sub-byte ones (sub-byte sources are
        // looked up): a destination byte put together at a time, the last
        // partial one element by element, keeping its other bits.
        let (sw, db) = (s.elem_bytes(), db as usize);
        let per = 8 / db;
        let whole = n / per;
        for (i, o) in src.chunks_exact(sw * per).zip(dst.iter_mut()).take(whole) {
            *o = i.chunks_exact(sw).enumerate().fold(0, |acc, (k, e)| {
                acc | (convert(s, d, read_elem(s, e)) as u8) << (k * db)
            });
        }
        for i in whole * per..n {
            let raw = pack::read(src, i * sb as usize, sb);
            pack::write(dst, i * db, db as u32, convert(s, d, raw));
        }
    }
}

/// Whether `s -> d` is looked up: a source of at most 8 bits, unless both
/// sides are whole bytes and the conversion is cheaper than a load (an
/// integer or bool widened, clamped or tested; bool into a float, a
/// select). A float source is decoded, an integer rounded into a float,
/// and a sub-byte side costs a bit position per element.
const fn looked_up(s: Dtype, d: Dtype) -> bool {
    let int = matches!(s.class(), Class::Signed | Class::Unsigned);
    s.bits() <= 8
        && (s.bits() < 8
            || d.bits() < 8
            || matches!(s.class(), Class::Float(_))
            || (int && matches!(d.class(), Class::Float(_) | Class::Complex(_))))
}

/// The results of every code of a source of at most 8 bits, by source
/// code (the first 2^bits entries used), one table per pair: each result's
/// low and high 64 bits, and whether the table is made. Atomics, zero at
/// first, so that the tables (189, 776 KiB) take no room in the library
/// file (a `OnceLock` would put them in its data), in safe code: threads
/// that make one at once store the same values.
struct Table {
    made: AtomicBool,
    words: [AtomicU64; 512],
}

impl Table {
    const fn empty() -> Table {
        Table {
            made: AtomicBool::new(false),
            words: [const { AtomicU64::new(0) }; 512],
        }
    }

    /// The result for `code`, of a destination of `bits` bits.
    #[inline(always)]
    fn get(&self, code: usize, bits: u32) -> Raw {
        let word = |k: usize| self.words.get(k).map_or(0, |w| w.load(Ordering::Relaxed));
        let lo = Raw::from(word(2 * code));
        if bits > 64 {
            lo | Raw::from(word(2 * code + 1)) << 64
        } else {
            lo
        }
    }
}

/// Index of a source dtype of at most 8 bits among those (its row in
/// `TABLES`): how many such dtypes come before `code` (of `COUNT`, how many
/// there are).
const fn narrow_index(code: usize) -> usize {
    let mut k = 0;
    let mut c = 0;
    while c < code {
        if let Some(dt) = Dtype::from_code(c as i32) {
            if dt.bits() <= 8 {
                k += 1;
            }
        }
        c += 1;
    }
    k
}

/// Sources of at most 8 bits (float8, float4, the small integers, bool,
/// bit): a row of tables each, each made at its pair's first use.
static TABLES: [[Table; COUNT]; narrow_index(COUNT)] =
    [const { [const { Table::empty() }; COUNT] }; narrow_index(COUNT)];

/// `s -> d`'s table: each code's `convert` (the reference itself, so the
/// lookup cannot disagree with it), made at first use.
fn table<const S: usize, const D: usize>() -> &'static Table {
    static NONE: Table = Table::empty();
    let (s, d) = const { (dtype_of::<S>(), dtype_of::<D>()) };
    let t = TABLES
        .get(const { narrow_index(S) })
        .and_then(|row| row.get(D))
        .unwrap_or(&NONE);
    // Acquire: a table seen made is seen whole.
    if !t.made.load(Ordering::Acquire) {
        for code in 0..1usize << s.bits() {
            let r = convert(s, d, code as Raw);
            for (k, half) in [r as u64, (r >> 64) as u64].into_iter().enumerate() {
                if let Some(w) = t.words.get(2 * code + k) {
                    w.store(half, Ordering::Relaxed);
                }
            }
        }
        t.made.store(true, Ordering::Release);
    }
    t
}

/// `n` elements of `s` (at most 8 bits) converted by looking their codes up
/// in `t`, a group of elements that fills whole bytes on both sides at a
/// time (one source byte, or as many as 8 elements of either side fill),
/// so that the loop has no per-element bounds or bit positions; the last
/// partial group goes element by element (a shared last byte keeps its
/// other bits).
#[inline(always)]
fn lookup(s: Dtype, d: Dtype, t: &Table, src: &[u8], dst: &mut [u8], n: usize) {
    let (sb, db) = (s.bits() as usize, d.bits() as usize);
    let mask = ((1u16 << sb) - 1) as u8;
    let code = |x: u64| t.get(usize::from(x as u8 & mask), d.bits());
    let g = 8 / sb.min(db).min(8);
    let (gs, gd) = (g * sb / 8, g * db / 8);
    let groups = src.chunks_exact(gs).zip(dst.chunks_exact_mut(gd));
    for (i, o) in groups.take(n / g) {
        let mut le = [0u8; 8];
        le.iter_mut().zip(i).for_each(|(x, &y)| *x = y);
        let x = u64::from_le_bytes(le);
        if db % 8 == 0 {
            for (k, e) in o.chunks_exact_mut(db / 8).enumerate() {
                write_elem(d, code(x >> (k * sb)), e);
            }
        } else {
            let packed = (0..g).fold(0u64, |acc, k| {
                acc | (code(x >> (k * sb)) as u64) << (k * db)
            });
            o.iter_mut()
                .zip(packed.to_le_bytes())
                .for_each(|(x, y)| *x = y);
        }
    }
    for i in n / g * g..n {
        let bit = i * sb;
        let x = src.get(bit / 8).map_or(0, |&b| b >> (bit % 8));
        pack::write(dst, i * db, db as u32, code(u64::from(x)));
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

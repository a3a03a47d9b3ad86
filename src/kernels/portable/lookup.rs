//! The 8-, 4- and 1-bit sources by table: each source code's result, made
//! once per pair from the scalar reference itself (`value::convert`, so a
//! lookup cannot disagree with it), then one load a element (`Lookup`), or
//! for the sub-byte sources one load a source byte, of all its elements'
//! results (`Nibbles`, `Octets`).

use super::elems::{by_steps, Bf16, Bit, Bool, E2m1, E4m3, E5m2, Elem, C128, C64, F16, I4, U4};
use super::{Pair, Step};
use crate::codes::NX_DTYPE_COUNT;
use crate::kernels::lanes::Side;
use crate::kernels::pack;
use crate::table::Dtype;
use crate::value::{convert, Raw};
use std::sync::OnceLock;

/// A source looked up: its code (the table's index) and its place among
/// the looked-up sources (a row of tables each).
pub(crate) trait Code: Elem {
    const ROW: usize;
    fn code(self) -> u8;
}

/// The number of looked-up sources.
const ROWS: usize = 7;

macro_rules! code {
    ($($t:ty: $row:literal, |$x:ident| $e:expr;)*) => {$(
        impl Code for $t {
            const ROW: usize = $row;
            #[inline(always)]
            fn code(self) -> u8 {
                let $x = self;
                $e
            }
        }
    )*};
}

code! {
    E4m3: 0, |x| x.0;
    E5m2: 1, |x| x.0;
    i8: 2, |x| x as u8;
    u8: 3, |x| x;
    E2m1: 4, |x| x.0;
    I4: 5, |x| x.0 as u8 & 15;
    U4: 6, |x| x.0;
}

/// A destination looked up: its element from the reference's bits, and its
/// tables (one per looked-up source, by destination code, made at first
/// use).
pub(crate) trait Entry: Elem + 'static {
    fn of_raw(r: Raw) -> Self;
    /// A sub-byte element's bits (0 for the others).
    #[inline(always)]
    fn low(self) -> u8 {
        0
    }
    fn tables() -> &'static [[OnceLock<[Self; 256]>; NX_DTYPE_COUNT]; ROWS];
}

macro_rules! entries {
    ($($t:ty: |$r:ident| $e:expr $(, |$x:ident| $low:expr)?;)*) => {$(
        impl Entry for $t {
            #[inline(always)]
            fn of_raw($r: Raw) -> Self {
                $e
            }
            $(
                #[inline(always)]
                fn low(self) -> u8 {
                    let $x = self;
                    $low
                }
            )?
            fn tables() -> &'static [[OnceLock<[Self; 256]>; NX_DTYPE_COUNT]; ROWS] {
                static TABLES: [[OnceLock<[$t; 256]>; NX_DTYPE_COUNT]; ROWS] =
                    [const { [const { OnceLock::new() }; NX_DTYPE_COUNT] }; ROWS];
                &TABLES
            }
        }
    )*};
}

entries! {
    f64: |r| f64::from_bits(r as u64);
    f32: |r| f32::from_bits(r as u32);
    F16: |r| F16(r as u16);
    Bf16: |r| Bf16(r as u16);
    E4m3: |r| E4m3(r as u8);
    E5m2: |r| E5m2(r as u8);
    E2m1: |r| E2m1(r as u8), |x| x.0;
    i64: |r| r as i64;
    u64: |r| r as u64;
    i32: |r| r as i32;
    u32: |r| r as u32;
    i16: |r| r as i16;
    u16: |r| r as u16;
    i8: |r| r as i8;
    u8: |r| r as u8;
    I4: |r| I4(((r as u8) << 4) as i8 >> 4), |x| x.0 as u8 & 15;
    U4: |r| U4(r as u8 & 15), |x| x.0;
    C128: |r| C128([f64::from_bits(r as u64), f64::from_bits((r >> 64) as u64)]);
    C64: |r| C64([f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)]);
    Bool: |r| Bool(r as u8);
    Bit: |r| Bit(r != 0), |x| u8::from(x.0);
}

/// The table of `S -> D`: every source code's result, made at first use.
#[allow(clippy::indexing_slicing)] // constant indices, in range (checked when compiled)
fn table<S: Code, D: Entry>() -> &'static [D; 256] {
    const { assert!(S::ROW < ROWS && D::DT >= 0 && (D::DT as usize) < NX_DTYPE_COUNT) };
    D::tables()[S::ROW][D::DT as usize].get_or_init(|| {
        let mut t = [D::default(); 256];
        if let (Some(s), Some(d)) = (Dtype::from_code(S::DT), Dtype::from_code(D::DT)) {
            for (k, e) in t.iter_mut().enumerate().take(1 << S::BITS) {
                *e = D::of_raw(convert(s, d, k as Raw));
            }
        }
        t
    })
}

/// The family of kernels by table.
pub(crate) struct Lookup;

impl<S: Code, D: Entry> Step for Pair<Lookup, S, D> {
    const SB: usize = S::BITS;
    const DB: usize = D::BITS;
    const FLOATS: bool = false;
    #[inline(always)]
    fn step(src: &[u8], dst: &mut [u8]) {
        let t = table::<S, D>();
        let code = |x: S| t.get(usize::from(x.code())).copied().unwrap_or_default();
        // A sub-byte destination's bits by the source's bytes directly: an
        // 8-bit source's code is its byte.
        let bits = |b: u8| t.get(usize::from(b)).map_or(0, |e| e.low());
        match (S::BITS, D::BITS) {
            (8, 4) => {
                for (o, p) in dst.iter_mut().zip(src.as_chunks::<2>().0) {
                    *o = bits(p[0]) | bits(p[1]) << 4;
                }
            }
            (8, 1) => {
                for (o, p) in dst.iter_mut().zip(src.as_chunks::<8>().0) {
                    *o = p.iter().enumerate().fold(0, |a, (k, &b)| a | bits(b) << k);
                }
            }
            (4, 1) => {
                for (o, p) in dst.iter_mut().zip(src.as_chunks::<4>().0) {
                    *o = p.iter().enumerate().fold(0, |a, (k, &b)| {
                        a | (bits(b & 15) | bits(b >> 4) << 1) << (2 * k)
                    });
                }
            }
            _ => by_steps::<S, D>(src, dst, |s, d| D::write(d, S::read(s).map(code))),
        }
    }
}

/// A destination whose elements from one source byte fill whole bytes: a
/// 4-bit source's two (`Pair`), a bit source's eight (`Oct`), as bytes; and
/// its tables of them (by source byte), made at first use.
pub(crate) trait Groups: Side + 'static {
    type Pair: Copy + AsMut<[u8]> + 'static;
    type Oct: Copy + AsMut<[u8]> + 'static;
    const PAIR: Self::Pair;
    const OCT: Self::Oct;
    fn pairs(dst: &mut [u8]) -> &mut [Self::Pair];
    fn octs(dst: &mut [u8]) -> &mut [Self::Oct];
    fn tables() -> &'static GroupTables<Self::Pair, Self::Oct>;
}

/// A destination's group tables: one per 4-bit source, one for bit.
pub(crate) struct GroupTables<P, O> {
    pairs: [OnceLock<[P; 256]>; 3],
    octs: OnceLock<[O; 256]>,
}

macro_rules! groups {
    ($($t:ty: $pair:literal, $oct:literal;)*) => {$(
        impl Groups for $t {
            type Pair = [u8; $pair];
            type Oct = [u8; $oct];
            const PAIR: Self::Pair = [0; $pair];
            const OCT: Self::Oct = [0; $oct];
            #[inline(always)]
            fn pairs(dst: &mut [u8]) -> &mut [Self::Pair] {
                dst.as_chunks_mut::<$pair>().0
            }
            #[inline(always)]
            fn octs(dst: &mut [u8]) -> &mut [Self::Oct] {
                dst.as_chunks_mut::<$oct>().0
            }
            fn tables() -> &'static GroupTables<Self::Pair, Self::Oct> {
                static TABLES: GroupTables<[u8; $pair], [u8; $oct]> = GroupTables {
                    pairs: [const { OnceLock::new() }; 3],
                    octs: OnceLock::new(),
                };
                &TABLES
            }
        }
    )*};
}

groups! {
    f64: 16, 64;
    f32: 8, 32;
    F16: 4, 16;
    Bf16: 4, 16;
    E4m3: 2, 8;
    E5m2: 2, 8;
    E2m1: 1, 4;
    i64: 16, 64;
    u64: 16, 64;
    i32: 8, 32;
    u32: 8, 32;
    i16: 4, 16;
    u16: 4, 16;
    i8: 2, 8;
    u8: 2, 8;
    I4: 1, 4;
    U4: 1, 4;
    C128: 32, 128;
    C64: 16, 64;
    Bool: 2, 8;
}

/// The group table of the sub-byte source `S` (of `per` elements a byte)
/// into `D`: for each source byte, its elements' results, placed as the
/// destination packs them.
fn group_table<S: Side, D: Side, G: Copy + AsMut<[u8]>>(zero: G) -> [G; 256] {
    let mut t = [zero; 256];
    let (sb, db) = (S::BITS, D::BITS);
    if let (Some(s), Some(d)) = (Dtype::from_code(S::DT), Dtype::from_code(D::DT)) {
        for (b, g) in t.iter_mut().enumerate() {
            for k in 0..8 / sb {
                let code = (b >> (k * sb)) & ((1 << sb) - 1);
                pack::write(g.as_mut(), k * db, db as u32, convert(s, d, code as Raw));
            }
        }
    }
    t
}

/// The family of kernels from a 4-bit source by its bytes: each byte's two
/// results at once.
pub(crate) struct Nibbles;

impl<S: Code, D: Groups> Step for Pair<Nibbles, S, D> {
    const SB: usize = S::BITS;
    const DB: usize = D::BITS;
    const FLOATS: bool = false;
    #[inline(always)]
    fn step(src: &[u8], dst: &mut [u8]) {
        const { assert!(S::BITS == 4 && S::ROW >= 4) };
        let t = D::tables()
            .pairs
            .get(S::ROW - 4)
            .map(|c| c.get_or_init(|| group_table::<S, D, _>(D::PAIR)));
        if let Some(t) = t {
            for (o, &b) in D::pairs(dst).iter_mut().zip(src) {
                *o = t.get(usize::from(b)).copied().unwrap_or(D::PAIR);
            }
        }
    }
}

/// The family of kernels from bit by its bytes: each byte's eight results
/// at once.
pub(crate) struct Octets;

impl<D: Groups> Step for Pair<Octets, Bit, D> {
    const SB: usize = 1;
    const DB: usize = D::BITS;
    const FLOATS: bool = false;
    #[inline(always)]
    fn step(src: &[u8], dst: &mut [u8]) {
        let t = D::tables()
            .octs
            .get_or_init(|| group_table::<Bit, D, _>(D::OCT));
        for (o, &b) in D::octs(dst).iter_mut().zip(src) {
            *o = t.get(usize::from(b)).copied().unwrap_or(D::OCT);
        }
    }
}

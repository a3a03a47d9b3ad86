//! The 8- and 4-bit sources by table: each source code's result, made once
//! per pair from the scalar reference itself (`value::convert`, so a
//! lookup cannot disagree with it), then one load a element.

use super::elems::{Bf16, Bit, Bool, E2m1, E4m3, E5m2, Elem, C128, C64, F16, I4, U4};
use super::{Pair, Step, STEP};
use crate::codes::NX_DTYPE_COUNT;
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
    fn tables() -> &'static [[OnceLock<[Self; 256]>; NX_DTYPE_COUNT]; ROWS];
}

macro_rules! entries {
    ($($t:ty: |$r:ident| $e:expr;)*) => {$(
        impl Entry for $t {
            #[inline(always)]
            fn of_raw($r: Raw) -> Self {
                $e
            }
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
    E2m1: |r| E2m1(r as u8);
    i64: |r| r as i64;
    u64: |r| r as u64;
    i32: |r| r as i32;
    u32: |r| r as u32;
    i16: |r| r as i16;
    u16: |r| r as u16;
    i8: |r| r as i8;
    u8: |r| r as u8;
    I4: |r| I4(((r as u8) << 4) as i8 >> 4);
    U4: |r| U4(r as u8 & 15);
    C128: |r| C128([f64::from_bits(r as u64), f64::from_bits((r >> 64) as u64)]);
    C64: |r| C64([f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)]);
    Bool: |r| Bool(r as u8);
    Bit: |r| Bit(r as u8);
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
        let x = S::load(src);
        let mut y = [D::default(); STEP];
        for (y, x) in y.iter_mut().zip(x) {
            *y = t.get(usize::from(x.code())).copied().unwrap_or_default();
        }
        D::store(&y, dst);
    }
}

//! The one table of dtypes, in code order. Every fact of a dtype (its name,
//! width, kind, float format) is written here and nowhere else; the C
//! constants, `nx_dtype_table`, min/max values and `exact` derive from it.

use crate::format::{self, Format};
use std::ffi::CStr;

/// How the bits of an element are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Float(Format),
    /// Two components of this format, real first.
    Complex(Format),
    Signed,
    Unsigned,
    /// One byte, true iff not zero.
    Bool,
    /// One bit.
    Bit,
}

/// The kinds of number, numbered as the `NX_KIND_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Kind {
    Float = 0,
    Complex = 1,
    Signed = 2,
    Unsigned = 3,
    Boolean = 4,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    pub name: &'static CStr,
    pub bits: u32,
    pub class: Class,
}

const fn row(name: &'static CStr, bits: u32, class: Class) -> Row {
    Row { name, bits, class }
}

use Class::*;

/// The 21 dtypes; a dtype's code is its index.
pub const TABLE: [Row; 21] = [
    row(c"float64", 64, Float(format::F64)),
    row(c"float32", 32, Float(format::F32)),
    row(c"float16", 16, Float(format::F16)),
    row(c"bfloat16", 16, Float(format::BF16)),
    row(c"float8_e4m3fn", 8, Float(format::E4M3FN)),
    row(c"float8_e5m2", 8, Float(format::E5M2)),
    row(c"float4_e2m1fn", 4, Float(format::E2M1FN)),
    row(c"int64", 64, Signed),
    row(c"uint64", 64, Unsigned),
    row(c"int32", 32, Signed),
    row(c"uint32", 32, Unsigned),
    row(c"int16", 16, Signed),
    row(c"uint16", 16, Unsigned),
    row(c"int8", 8, Signed),
    row(c"uint8", 8, Unsigned),
    row(c"int4", 4, Signed),
    row(c"uint4", 4, Unsigned),
    row(c"complex128", 128, Complex(format::F64)),
    row(c"complex64", 64, Complex(format::F32)),
    row(c"bool", 8, Bool),
    row(c"bit", 1, Bit),
];

pub const COUNT: usize = TABLE.len();

/// A checked dtype code: an index into `TABLE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dtype(u8);

impl Dtype {
    pub const fn from_code(code: i32) -> Option<Dtype> {
        if code >= 0 && (code as usize) < COUNT {
            Some(Dtype(code as u8))
        } else {
            None
        }
    }

    pub fn all() -> impl Iterator<Item = Dtype> {
        (0..COUNT as u8).map(Dtype)
    }

    pub const fn code(self) -> i32 {
        self.0 as i32
    }

    pub const fn row(self) -> &'static Row {
        const ROWS: &[Row] = &TABLE;
        // A Dtype's code was checked against TABLE when it was made, so the
        // fallback (the first row) is never taken.
        match ROWS.split_at_checked(self.0 as usize) {
            Some((_, [row, ..])) => row,
            _ => &TABLE[0],
        }
    }

    pub const fn bits(self) -> u32 {
        self.row().bits
    }

    pub const fn class(self) -> Class {
        self.row().class
    }

    pub fn name(self) -> &'static str {
        // Every name in TABLE is ASCII.
        self.row().name.to_str().unwrap_or("")
    }

    pub fn of_name(name: &[u8]) -> Option<Dtype> {
        Dtype::all().find(|d| d.row().name.to_bytes() == name)
    }

    pub const fn kind(self) -> Kind {
        match self.class() {
            Float(_) => Kind::Float,
            Complex(_) => Kind::Complex,
            Signed => Kind::Signed,
            Unsigned => Kind::Unsigned,
            Bool | Bit => Kind::Boolean,
        }
    }

    /// The float format of a float dtype.
    pub const fn float_format(self) -> Option<Format> {
        match self.class() {
            Float(f) => Some(f),
            _ => None,
        }
    }

    /// The format of a float dtype, or of a complex dtype's components.
    pub const fn component_format(self) -> Option<Format> {
        match self.class() {
            Float(f) | Complex(f) => Some(f),
            _ => None,
        }
    }

    /// Bytes that `n` elements fill, ceil(n * bits / 8); None if n < 0 or
    /// the count does not fit in i64.
    pub const fn bytes(self, n: i64) -> Option<i64> {
        if n < 0 {
            return None;
        }
        let total = (n as i128 * self.bits() as i128 + 7) / 8;
        if total > i64::MAX as i128 {
            None
        } else {
            Some(total as i64)
        }
    }

    /// Bytes one element occupies in a scalar call (a sub-byte element uses
    /// the low bits of one byte).
    pub const fn elem_bytes(self) -> usize {
        (self.bits() as usize).div_ceil(8)
    }

    /// The integer range of an integer dtype, as (min, max).
    pub const fn int_range(self) -> Option<(i128, i128)> {
        let b = self.bits();
        match self.class() {
            Signed => Some((-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)),
            Unsigned => Some((0, (1i128 << b) - 1)),
            _ => None,
        }
    }
}

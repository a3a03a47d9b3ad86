//! The number an element holds, and the conversion of one element between
//! any two dtypes (SEMANTICS.md, "Conversions between any two dtypes"). This
//! is the scalar reference every kernel is tested against.

use crate::format::{Format, F64};
use crate::store::{load_f64, store_f64, store_int};
use crate::table::{Class, Dtype};

/// The exact number an element holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A float, as float64 bits (every float format widens exactly).
    Float(u64),
    /// An integer of any integer dtype.
    Int(i128),
    /// Real and imaginary parts, as float64 bits.
    Complex(u64, u64),
    Bool(bool),
}

/// Bits of an element, in the low `bits` of a u128 (complex: real part low).
pub type Raw = u128;

const fn low_mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Whether the float64 with bits `x` is not zero (NaN is not zero).
const fn f64_nonzero(x: u64) -> bool {
    x << 1 != 0
}

/// float64 -> integer: truncate toward zero, saturate to [lo, hi], NaN -> 0.
fn f64_to_int(x: u64, lo: i128, hi: i128) -> i128 {
    // On the bits, not with `as`: the hardware conversion raises the invalid
    // exception on NaN, which traps under a caller's MXCSR that unmasks it.
    let exp = ((x >> 52) & 0x7FF) as i32;
    let frac = x & ((1 << 52) - 1);
    let neg = x >> 63 != 0;
    let mag = if exp == 0x7FF {
        if frac != 0 {
            return 0; // NaN
        }
        i128::MAX
    } else if exp < 1023 {
        0 // |x| < 1: zeros and subnormals too
    } else {
        // |x| = m * 2^(exp - 1075), truncated; past 2^116 it is past every
        // integer dtype's range anyway.
        let m = i128::from(frac | 1 << 52);
        match exp - 1075 {
            s if s >= 64 => i128::MAX,
            s if s >= 0 => m << s,
            s => m >> -s,
        }
    };
    (if neg { -mag } else { mag }).clamp(lo, hi)
}

/// The number element `raw` of `dt` holds.
#[inline(always)]
pub fn decode(dt: Dtype, raw: Raw) -> Value {
    let raw = raw & low_mask(dt.bits());
    match dt.class() {
        Class::Float(f) => Value::Float(load_f64(f, raw as u64)),
        Class::Complex(f) => {
            let half = f.bits();
            let re = (raw & low_mask(half)) as u64;
            let im = (raw >> half) as u64;
            Value::Complex(load_f64(f, re), load_f64(f, im))
        }
        Class::Signed => {
            let shift = 128 - dt.bits();
            Value::Int(((raw << shift) as i128) >> shift)
        }
        Class::Unsigned => Value::Int(raw as i128),
        Class::Bool | Class::Bit => Value::Bool(raw != 0),
    }
}

/// A float component (given as float64 bits) stored into format `f`.
#[inline(always)]
fn float_into(f: Format, v: Value) -> u64 {
    match v {
        Value::Float(x) | Value::Complex(x, _) => store_f64(f, x),
        Value::Int(n) => store_int(f, n),
        Value::Bool(b) => store_int(f, i128::from(b)),
    }
}

/// The element of `dt` a store of `v` holds (SEMANTICS.md's table).
#[inline(always)]
pub fn encode(dt: Dtype, v: Value) -> Raw {
    match dt.class() {
        Class::Float(f) => u128::from(float_into(f, v)),
        Class::Complex(f) => {
            let (re, im) = match v {
                Value::Complex(re, im) => (store_f64(f, re), store_f64(f, im)),
                other => (float_into(f, other), 0),
            };
            u128::from(re) | (u128::from(im) << f.bits())
        }
        Class::Signed | Class::Unsigned => {
            let (lo, hi) = dt.int_range().unwrap_or((0, 0));
            let n = match v {
                Value::Float(x) | Value::Complex(x, _) => f64_to_int(x, lo, hi),
                Value::Int(n) => n.clamp(lo, hi),
                Value::Bool(b) => i128::from(b),
            };
            (n as u128) & low_mask(dt.bits())
        }
        Class::Bool | Class::Bit => {
            let b = match v {
                Value::Float(x) => f64_nonzero(x),
                Value::Complex(re, im) => f64_nonzero(re) || f64_nonzero(im),
                Value::Int(n) => n != 0,
                Value::Bool(b) => b,
            };
            u128::from(b)
        }
    }
}

/// Element `raw` of `src` converted to `dst`. The same dtype copies the bits
/// exactly (a move keeps NaN payloads and signalling bits). Always inlined,
/// so that with constant dtypes (`kernels::scalar`) it folds to the pair's
/// arithmetic.
#[inline(always)]
pub fn convert(src: Dtype, dst: Dtype, raw: Raw) -> Raw {
    if src == dst {
        raw & low_mask(src.bits())
    } else {
        encode(dst, decode(src, raw))
    }
}

/// The float64 bits an element converts to.
#[inline(always)]
pub fn to_f64(dt: Dtype, raw: Raw) -> u64 {
    match dt.class() {
        Class::Float(f) if f == F64 => raw as u64,
        _ => match decode(dt, raw) {
            Value::Float(x) | Value::Complex(x, _) => x,
            Value::Int(n) => store_int(F64, n),
            Value::Bool(b) => store_int(F64, i128::from(b)),
        },
    }
}

/// Read one element from its `dt.elem_bytes()` little-endian bytes (a
/// sub-byte element from the low bits of the first byte).
#[inline(always)]
pub fn read_elem(dt: Dtype, bytes: &[u8]) -> Raw {
    // Fixed-size copies, as in write_elem.
    fn get<const N: usize>(bytes: &[u8]) -> Raw {
        let mut le = [0u8; 16];
        if let (Some(dst), Some(src)) = (le.get_mut(..N), bytes.get(..N)) {
            dst.copy_from_slice(src);
        }
        u128::from_le_bytes(le)
    }
    let raw = match dt.elem_bytes() {
        1 => get::<1>(bytes),
        2 => get::<2>(bytes),
        4 => get::<4>(bytes),
        8 => get::<8>(bytes),
        _ => get::<16>(bytes),
    };
    raw & low_mask(dt.bits())
}

/// Write one element as `dt.elem_bytes()` little-endian bytes; a sub-byte
/// element clears the other bits of its byte.
#[inline(always)]
pub fn write_elem(dt: Dtype, raw: Raw, bytes: &mut [u8]) {
    // Fixed-size copies: a scalar store is a few nanoseconds, a memcpy call
    // of a variable length would be a good part of that.
    fn put<const N: usize>(bytes: &mut [u8], le: &[u8; 16]) {
        if let (Some(dst), Some(src)) = (bytes.get_mut(..N), le.get(..N)) {
            dst.copy_from_slice(src);
        }
    }
    let le = raw.to_le_bytes();
    match dt.elem_bytes() {
        1 => put::<1>(bytes, &le),
        2 => put::<2>(bytes, &le),
        4 => put::<4>(bytes, &le),
        8 => put::<8>(bytes, &le),
        _ => put::<16>(bytes, &le),
    }
}

/// The dtype whose code is `C`, as a constant (a build error for a bad code).
// Only evaluated in `const` blocks: the panic cannot happen at run time.
#[allow(clippy::panic)]
pub(crate) const fn dtype_of<const C: usize>() -> Dtype {
    match Dtype::from_code(C as i32) {
        Some(d) => d,
        None => panic!("no such dtype code"),
    }
}

/// `[f::<0>, ..., f::<20>]`: a function specialised per dtype code.
macro_rules! per_code {
    ($f:ident) => {
        [
            $f::<0>, $f::<1>, $f::<2>, $f::<3>, $f::<4>, $f::<5>, $f::<6>, $f::<7>, $f::<8>,
            $f::<9>, $f::<10>, $f::<11>, $f::<12>, $f::<13>, $f::<14>, $f::<15>, $f::<16>,
            $f::<17>, $f::<18>, $f::<19>, $f::<20>,
        ]
    };
}

/// `encode(dt, Value::Float(x))` written to `out`, for the dtype whose code
/// is `C`: the dtype is a constant here, so the one rounding routine and the
/// write are specialised to it (a scalar store is then a few nanoseconds;
/// returning the element for a generic write measured slower).
fn store_f64_code<const C: usize>(x: u64, out: &mut [u8]) {
    let dt = const { dtype_of::<C>() };
    write_elem(dt, encode(dt, Value::Float(x)), out);
}

/// `store_f64_code` for every code, indexed by code.
pub static STORE_F64: [fn(u64, &mut [u8]); crate::table::COUNT] = per_code!(store_f64_code);

/// `to_f64(dt, read_elem(dt, bytes))` for the dtype whose code is `C`,
/// specialised as `store_f64_code` is.
fn load_f64_code<const C: usize>(bytes: &[u8]) -> u64 {
    let dt = const { dtype_of::<C>() };
    to_f64(dt, read_elem(dt, bytes))
}

/// `load_f64_code` for every code, indexed by code.
pub static LOAD_F64: [fn(&[u8]) -> u64; crate::table::COUNT] = per_code!(load_f64_code);

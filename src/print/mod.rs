//! pp_value (SEMANTICS.md, "Printing"): an element's text. The digits come
//! from `digits` (the engine, integer arithmetic only, so every machine
//! prints the same), the text from `layout`; nothing allocates.

pub mod digits;
mod layout;
mod memo;
pub mod pow10;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // SSE2 intrinsics: the one place in print allowed it
mod sse2;

use crate::format::{Format, Specials, F32, F64};
use crate::store::{is_value, store_f64};
use crate::table::{Class, Dtype};
use digits::{exact, fast, fast_settled, places, Decimal, Placed};
use layout::Writer;

/// Every text fits in this many bytes with room for a NUL (NX_FORMAT_MAX).
pub const FORMAT_MAX: usize = 64;

/// Why a double cannot be printed as a value of a dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintError {
    /// The dtype is not a float kind.
    Kind,
    /// A finite double that is not a value of the dtype's format.
    NotValue,
}

/// The decimal of a finite, non-zero magnitude `mag` (sign clear) of `fmt`,
/// by Schubfach's exact decision alone (`float` tries the fast path first).
#[inline(always)]
pub fn decimal_of_bits(fmt: Format, mag: u64) -> Decimal {
    let f = fmt.fraction_bits;
    let exp = (mag >> f) as i32;
    let frac = mag & fmt.fraction_mask();
    if exp == 0 {
        exact(frac, fmt.emin() - f as i32, false)
    } else {
        // A power of two has its lower neighbour a quarter step away, unless
        // that neighbour is the largest subnormal (exponent field 1).
        exact(
            frac | 1 << f,
            exp - fmt.bias - f as i32,
            frac == 0 && exp > 1,
        )
    }
}

/// The significand and exponent of a magnitude `mag` of `fmt` that `fast`
/// takes: normal and not a power of two (nearly all; the others take
/// `exact`).
#[inline(always)]
fn fast_parts(fmt: Format, mag: u64) -> Option<(u64, i32)> {
    let f = fmt.fraction_bits;
    let frac = mag & fmt.fraction_mask();
    let normal = if fmt.specials == Specials::FnNan {
        mag.wrapping_sub(1 << f) <= fmt.max_finite_bits() - (1 << f)
    } else {
        // The exponent field, from 1 to the largest finite one.
        (mag >> f).wrapping_sub(1) < fmt.max_finite_bits() >> f
    };
    (normal && frac != 0).then(|| (frac | 1 << f, (mag >> f) as i32 - fmt.bias - f as i32))
}

/// `fast` for a magnitude `mag` of `fmt`, when it takes it.
#[inline(always)]
fn try_fast(fmt: Format, mag: u64) -> Option<Placed> {
    let (c, q) = fast_parts(fmt, mag)?;
    fast(fmt, c, q)
}

/// The placed decimal of a finite, non-zero magnitude `mag` of `fmt`, as
/// `float` finds it (the engine alone, for benchmarks and tests).
#[inline(always)]
pub fn placed_of_bits(fmt: Format, mag: u64) -> Placed {
    try_fast(fmt, mag).unwrap_or_else(|| rare_placed(fmt, mag))
}

/// The decimals `fast` leaves: near a boundary (`fast_settled`), and the
/// values it does not take (`exact`). Out of line, so that the paths
/// around `fast` save no registers for it.
#[cold]
#[inline(never)]
fn rare_placed(fmt: Format, mag: u64) -> Placed {
    if let Some(p) = fast_parts(fmt, mag).and_then(|(c, q)| fast_settled(fmt, c, q)) {
        return p;
    }
    decimal_of_bits(fmt, mag).placed(fmt)
}

/// A float of `fmt` with bits `bits`: the shortest decimal, nan, inf, -inf.
#[inline(always)]
fn float(w: &mut Writer, fmt: Format, bits: u64) {
    if let Some(p) = try_fast(fmt, bits & fmt.magnitude_mask()) {
        w.minus_if(bits & fmt.sign_mask() != 0);
        return placed(w, fmt, p);
    }
    w.pass(|w| rare(w, fmt, bits));
}

/// `float` for the values `fast` does not take: zero, infinities, NaNs,
/// subnormals, powers of two and the decisions near a boundary. A function
/// of its own so that the common path saves no registers for it.
#[cold]
#[inline(never)]
fn rare(mut w: Writer, fmt: Format, bits: u64) -> usize {
    let mag = bits & fmt.magnitude_mask();
    // Zero, infinities and NaNs in one test: the magnitudes outside
    // 1..=max_finite.
    if mag.wrapping_sub(1) < fmt.max_finite_bits() {
        w.minus_if(bits & fmt.sign_mask() != 0);
        placed(&mut w, fmt, rare_placed(fmt, mag));
    } else if fmt.is_nan(bits) {
        w.bytes(b"nan");
    } else {
        w.minus_if(bits & fmt.sign_mask() != 0);
        w.bytes(if mag == 0 { b"0" } else { b"inf" });
    }
    w.finish()
}

/// The layout of a placed decimal of `fmt`.
#[inline(always)]
fn placed(w: &mut Writer, fmt: Format, p: Placed) {
    if places(fmt) == 17 {
        w.decimal::<true>(p)
    } else {
        w.decimal::<false>(p)
    }
}

/// `float` for float64 alone, its format folded in; a function of its own
/// (as is float32's) so that its registers are not saved and restored
/// around every other dtype's code in `format_elem`.
#[inline(never)]
fn float64(bits: u64, out: &mut [u8; FORMAT_MAX]) -> usize {
    let mut w = Writer::new(out);
    float(&mut w, F64, bits);
    w.finish()
}

#[inline(never)]
fn float32(bits: u32, out: &mut [u8; FORMAT_MAX]) -> usize {
    let mut w = Writer::new(out);
    float(&mut w, F32, u64::from(bits));
    w.finish()
}

/// The two dtypes printed on every call rather than remembered, found by
/// code (a byte compare) before anything else is looked up.
const FLOAT64: Option<Dtype> = Dtype::from_code(0);
const FLOAT32: Option<Dtype> = Dtype::from_code(1);

/// Write pp_value of element `raw` of `dt` (its bits in the low `dt.bits()`;
/// complex: real part low) to `out`; returns the text's length.
/// Inlined into its callers: the two widest floats go straight to their
/// engine, with their format's constants folded in, one call deep.
#[inline]
pub fn format_elem(dt: Dtype, raw: u128, out: &mut [u8; FORMAT_MAX]) -> usize {
    if Some(dt) == FLOAT64 {
        return float64(raw as u64, out);
    }
    if Some(dt) == FLOAT32 {
        return float32(raw as u32, out);
    }
    other(dt, raw, out)
}

/// `format_elem` for every dtype but float64 and float32.
#[inline(never)]
fn other(dt: Dtype, raw: u128, out: &mut [u8; FORMAT_MAX]) -> usize {
    let bits = dt.bits();
    let raw = if bits >= 128 {
        raw
    } else {
        raw & ((1 << bits) - 1)
    };
    if let Class::Float(f) = dt.class() {
        if let Some(table) = memo::table(f) {
            return memo::text(table, raw as u64, out, |out| {
                let mut w = Writer::new(out);
                float(&mut w, f, raw as u64);
                w.finish()
            });
        }
    }
    let mut w = Writer::new(out);
    match dt.class() {
        Class::Float(f) => float(&mut w, f, raw as u64),
        Class::Complex(f) => {
            let re = raw as u64 & (f.sign_mask() | f.magnitude_mask());
            let im = (raw >> f.bits()) as u64;
            float(&mut w, f, re);
            // "-" iff the imaginary sign bit is set on a number; NaN is "+nan".
            let minus = im & f.sign_mask() != 0 && !f.is_nan(im);
            w.byte(if minus { b'-' } else { b'+' });
            float(&mut w, f, im & f.magnitude_mask());
            w.byte(b'i');
        }
        Class::Signed => {
            let shift = 128 - bits;
            w.int(((raw << shift) as i128) >> shift);
        }
        Class::Unsigned => match i128::try_from(raw) {
            Ok(n) => w.int(n),
            // No unsigned dtype is wider than 64 bits.
            Err(_) => w.bytes(b"?"),
        },
        Class::Bool | Class::Bit => w.bytes(if raw != 0 { b"true" } else { b"false" }),
    }
    w.finish()
}

/// Write pp_value of the double `x` as a value of float dtype `dt`; a finite
/// `x` must be a value of `dt`'s format. NaN and infinities print as such in
/// every format (pp_value of the float itself).
pub fn format_f64(dt: Dtype, x: f64, out: &mut [u8; FORMAT_MAX]) -> Result<usize, PrintError> {
    let fmt = dt.float_format().ok_or(PrintError::Kind)?;
    let bits = x.to_bits();
    if fmt == F64 || !x.is_finite() {
        let mut w = Writer::new(out);
        float(&mut w, F64, bits);
        return Ok(w.finish());
    }
    if !is_value(fmt, bits) {
        return Err(PrintError::NotValue);
    }
    let elem = store_f64(fmt, bits);
    let print = |out: &mut [u8; FORMAT_MAX]| {
        let mut w = Writer::new(out);
        float(&mut w, fmt, elem);
        w.finish()
    };
    Ok(match memo::table(fmt) {
        Some(table) => memo::text(table, elem, out, print),
        None => print(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widest_floats_by_code() {
        assert_eq!(FLOAT64.map(Dtype::class), Some(Class::Float(F64)));
        assert_eq!(FLOAT32.map(Dtype::class), Some(Class::Float(F32)));
    }
}

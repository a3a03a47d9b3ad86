//! Facts derived from the table: `exact`, least and greatest values.

use crate::format::Format;
use crate::table::{Class, Dtype};

/// Every value of format `a` is a value of format `b`: at least its
/// precision, range and least magnitude, and its infinities and NaNs.
pub fn float_exact(a: Format, b: Format) -> bool {
    a.fraction_bits <= b.fraction_bits
        && a.max_finite() <= b.max_finite()
        // Least positive magnitude: 2^(emin - f).
        && a.emin() - a.fraction_bits as i32 >= b.emin() - b.fraction_bits as i32
        && (!a.has_infinity() || b.has_infinity())
        && (!a.has_nan() || b.has_nan())
}

/// Every integer of magnitude <= m is a value of `b`: m <= 2^(f+1) (the
/// significand holds it) and m <= the largest finite value.
fn ints_exact(m: i128, b: Format) -> bool {
    m <= 1i128 << (b.fraction_bits + 1) && (m as f64) <= b.max_finite()
}

/// `exact a b` (ocaml/nx_array.mli): every value of `a` is a value of `b`.
pub fn exact(a: Dtype, b: Dtype) -> bool {
    use Class::*;
    match (a.class(), b.class()) {
        (Bool | Bit, _) => true,
        (_, Bool | Bit) => false,
        (Complex(fa), Complex(fb)) => float_exact(fa, fb),
        (Complex(_), _) => false,
        (Float(fa), Float(fb) | Complex(fb)) => float_exact(fa, fb),
        (Float(_), _) => false,
        (Signed | Unsigned, Float(fb) | Complex(fb)) => {
            let (lo, hi) = a.int_range().unwrap_or((0, 0));
            ints_exact(hi.max(-lo), fb)
        }
        (Signed | Unsigned, _) => {
            let ((alo, ahi), (blo, bhi)) = (
                a.int_range().unwrap_or((0, 0)),
                b.int_range().unwrap_or((0, 0)),
            );
            blo <= alo && ahi <= bhi
        }
    }
}

/// The least (`max` false) or greatest value of `dt` as element bits; None
/// for complex dtypes, which have no order.
pub fn extreme(dt: Dtype, max: bool) -> Option<u128> {
    match dt.class() {
        Class::Float(f) => {
            let mag = if f.has_infinity() {
                f.infinity_bits()
            } else {
                f.max_finite_bits()
            };
            Some(u128::from(if max { mag } else { mag | f.sign_mask() }))
        }
        Class::Signed | Class::Unsigned => {
            let (lo, hi) = dt.int_range()?;
            let mask = (1u128 << dt.bits()) - 1;
            Some((if max { hi } else { lo }) as u128 & mask)
        }
        Class::Bool | Class::Bit => Some(u128::from(max)),
        Class::Complex(_) => None,
    }
}

//! The one rounding routine: every store of a number into a float format
//! (from a float64, an integer, or another float format read exactly as a
//! float64) goes through `round_parts`, which reads only the `Format`.

use crate::format::{Format, Specials, F64};

const F64_FRACTION: u64 = (1 << 52) - 1;
const F64_QUIET: u64 = 1 << 51;
const F64_EXP: u64 = 0x7ff << 52;

/// Round `(-1)^neg * m * 2^e` into `fmt`, once, ties to even, with the
/// exponent unbounded above; past the largest finite value the result is the
/// infinity of its sign, or saturates in formats without one. `sticky` says
/// the exact value has more bits below `m` (so it is never a tie).
/// Returns the element's bits.
#[inline(always)]
pub fn round_parts(fmt: Format, neg: bool, m: u64, e: i32, sticky: bool) -> u64 {
    let sign = if neg { fmt.sign_mask() } else { 0 };
    if m == 0 {
        return sign;
    }
    let lz = m.leading_zeros();
    let m = m << lz;
    let e = e - lz as i32;
    // value = m * 2^e with m in [2^63, 2^64): its leading bit has exponent `top`.
    let top = e + 63;
    let f = fmt.fraction_bits as i32;
    // Exponent of the last bit kept: f bits below the leading bit, but never
    // below the subnormal quantum 2^(emin - f). Clamped so that everything
    // under half a quantum takes the same (branch-free) path to zero.
    let q = top.max(fmt.emin()) - f;
    // At least 63 - f >= 11, since every f <= 52.
    let shift = (q - e).clamp(0, 65) as u32;
    // Kept bits in the high half, the bits below them left-aligned in the low.
    let wide = (u128::from(m) << 64) >> shift;
    let kept = (wide >> 64) as u64;
    let below = wide as u64;
    let half = below >> 63;
    let rest = u64::from(below << 1 != 0 || sticky);
    let kept = kept + (half & (rest | kept));
    // Biased like the format: subnormals have exponent field 0, and a carry
    // out of the fraction moves into the exponent field by itself. `top` is
    // at most 1023 + 63, so this cannot overflow for any format here.
    let mag = (((q + f - fmt.emin()) as u64) << f) + kept;
    // A select, not a branch: random data overflows unpredictably.
    let over = overflow_bits(fmt);
    sign | if mag > fmt.max_finite_bits() {
        over
    } else {
        mag
    }
}

/// Bits (sign clear) a result past the largest finite value stores as.
fn overflow_bits(fmt: Format) -> u64 {
    if fmt.has_infinity() {
        fmt.infinity_bits()
    } else {
        fmt.max_finite_bits()
    }
}

/// The NaN of `fmt` that a NaN of sign `neg` and float64 payload `payload`
/// (the 51 bits below float64's quiet bit) stores as.
fn nan_bits(fmt: Format, neg: bool, payload: u64) -> u64 {
    let sign = if neg { fmt.sign_mask() } else { 0 };
    match fmt.specials {
        Specials::Ieee => {
            let f = fmt.fraction_bits;
            // Quiet, keeping the payload's top f-1 bits.
            sign | fmt.infinity_bits() | (1 << (f - 1)) | ((payload & (F64_QUIET - 1)) >> (52 - f))
        }
        Specials::FnNan => sign | fmt.magnitude_mask(),
        Specials::Finite => 0,
    }
}

/// of_float: the bits a store of the float64 with bits `x` into `fmt` holds.
#[inline(always)]
pub fn store_f64(fmt: Format, x: u64) -> u64 {
    let neg = x >> 63 != 0;
    let exp = ((x >> 52) & 0x7ff) as i32;
    let frac = x & F64_FRACTION;
    match exp {
        0x7ff if frac == 0 => (if neg { fmt.sign_mask() } else { 0 }) | overflow_bits(fmt),
        0x7ff => nan_bits(fmt, neg, frac),
        0 => round_parts(fmt, neg, frac, -1074, false),
        _ => round_parts(fmt, neg, frac | (1 << 52), exp - 1075, false),
    }
}

/// The bits a store of the exact integer `v` into `fmt` holds, rounded once.
/// `v` is within the range of int64 and uint64 together, so |v| < 2^64.
pub fn store_int(fmt: Format, v: i128) -> u64 {
    let mag = v.unsigned_abs();
    let m = u64::try_from(mag).unwrap_or(u64::MAX);
    round_parts(fmt, v < 0, m, 0, false)
}

/// The float64 bits holding exactly the value of element `bits` of `fmt`.
/// A NaN reads as the quiet NaN of its sign keeping its whole payload (the
/// FnNan NaN has payload 0). float64 itself reads unchanged.
#[inline(always)]
pub fn load_f64(fmt: Format, bits: u64) -> u64 {
    if fmt == F64 {
        return bits;
    }
    let neg = bits & fmt.sign_mask() != 0;
    let sign = if neg { 1 << 63 } else { 0 };
    if fmt.is_nan(bits) {
        let f = fmt.fraction_bits;
        let payload = match fmt.specials {
            Specials::Ieee => (bits & (fmt.fraction_mask() >> 1)) << (52 - f),
            _ => 0,
        };
        return sign | F64_EXP | F64_QUIET | payload;
    }
    if fmt.is_infinite(bits) {
        return sign | F64_EXP;
    }
    let mag = bits & fmt.magnitude_mask();
    let exp = (mag >> fmt.fraction_bits) as i32;
    let frac = mag & fmt.fraction_mask();
    let f = fmt.fraction_bits as i32;
    if exp == 0 {
        round_parts(F64, neg, frac, fmt.emin() - f, false)
    } else {
        // A normal value is normal in float64 too (every format's exponent
        // range lies within float64's): the exponent rebiased and the
        // fraction left-aligned, what `round_parts` gives through a
        // normalisation and a u128 shift, which were slower for the scalar
        // level's float16 and bfloat16 -> float32.
        sign | (((exp - fmt.bias + F64.bias) as u64) << 52) | (frac << (52 - f))
    }
}

/// Whether the float64 `x` is a value of `fmt` (true for NaN and infinities).
pub fn is_value(fmt: Format, x: u64) -> bool {
    let finite = (x >> 52) & 0x7ff != 0x7ff;
    !finite || load_f64(fmt, store_f64(fmt, x)) == x
}

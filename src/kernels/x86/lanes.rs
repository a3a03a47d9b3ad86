//! Element maps to and from float32 bits, written branch-free on integers so
//! that the compiler vectorizes them (see `mod.rs`) and no result depends on
//! MXCSR: the only float operations are exact ones on normal operands
//! (an integer of at most 24 bits to float, a product by a power of two that
//! stays normal, float to integer by truncation).
//!
//! `dec_*` widen an element exactly to float32 bits; `enc_*` round float32
//! bits once into a narrower format. A pair through float32 therefore rounds
//! once, exactly as `value::convert`; the sources too wide for that (float64,
//! int32, uint32) are rounded to odd first (see `f64_to_f32`).

use crate::format::{Format, Specials};

/// float32 bits of `x` (a power of two in float32's normal range).
const fn pow2_f32(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

const QUIET32: u32 = 1 << 22;

/// Element `b` of a float format at most 16 bits wide, other than bfloat16,
/// as float32 bits (exact: every such format's values are float32 values).
#[inline(always)]
pub fn dec(fmt: Format, b: u32) -> u32 {
    let f = fmt.fraction_bits;
    let mag = b & fmt.magnitude_mask() as u32;
    let sign = (b >> (fmt.bits() - 1) & 1) << 31;
    let exp = mag >> f;
    let frac = mag & fmt.fraction_mask() as u32;
    // Normal: move the fields into place and rebias the exponent.
    let normal = (mag << (23 - f)) + (((127 - fmt.bias) as u32) << 23);
    // Subnormal: frac * 2^(emin - f), exact and normal in float32.
    let sub = ((frac as f32) * pow2_f32(fmt.emin() - f as i32)).to_bits();
    let top = exp == fmt.exponent_all_ones() as u32;
    let special = match fmt.specials {
        Specials::Ieee => 0x7F80_0000 | (frac << (23 - f)) | if frac != 0 { QUIET32 } else { 0 },
        Specials::FnNan if mag == fmt.magnitude_mask() as u32 => 0x7FC0_0000,
        _ => normal,
    };
    let v = if exp == 0 {
        sub
    } else if top {
        special
    } else {
        normal
    };
    sign | v
}

/// bfloat16 bits as float32 bits: the top half; a NaN is made quiet.
#[inline(always)]
pub fn dec_bf16(b: u32) -> u32 {
    let x = b << 16;
    let quiet = if x & 0x7FFF_FFFF > 0x7F80_0000 {
        QUIET32
    } else {
        0
    };
    x | quiet
}

/// float32 bits rounded once into `fmt` (any format narrower than float32):
/// nearest, ties to even, on the integer significand; past the largest
/// finite value infinity or saturation; NaN by SEMANTICS.md's rule.
#[inline(always)]
pub fn enc(fmt: Format, a: u32) -> u32 {
    let f = fmt.fraction_bits;
    let abs = a & 0x7FFF_FFFF;
    let sign = (a >> 31) << (fmt.bits() - 1);
    let e = abs >> 23;
    let frac = abs & 0x7F_FFFF;
    let m = frac | if e != 0 { 1 << 23 } else { 0 };
    // The destination's biased exponent of this binade (float32 subnormals
    // share binade exponent 1).
    let ed = e.max(1) as i32 - 127 + fmt.bias;
    // Bits dropped: 23 - f for a normal result, more for a subnormal one;
    // from 25 on everything rounds to 0, so 31 is as good as more.
    let sh = ((23 - f as i32) + (1 - ed).max(0)).min(31) as u32;
    let base = if ed >= 1 { ((ed - 1) as u32) << f } else { 0 };
    let half = (1u32 << sh) >> 1;
    // m < 2^24 and half <= 2^30: no overflow.
    let rounded = (m + half - 1 + ((m >> sh) & 1)) >> sh;
    // The implicit bit in `rounded` adds one to base's exponent field, and a
    // carry out of the fraction moves into it by itself.
    let r = base + rounded;
    let max = fmt.max_finite_bits() as u32;
    let over = if fmt.has_infinity() {
        fmt.infinity_bits() as u32
    } else {
        max
    };
    let nan = match fmt.specials {
        Specials::Ieee => {
            let keep = (1u32 << (f - 1)) - 1;
            sign | fmt.infinity_bits() as u32 | (1 << (f - 1)) | ((frac >> (23 - f)) & keep)
        }
        Specials::FnNan => sign | fmt.magnitude_mask() as u32,
        Specials::Finite => 0,
    };
    if abs > 0x7F80_0000 {
        nan
    } else if r > max {
        sign | over
    } else {
        sign | r
    }
}

/// float32 bits rounded once into bfloat16 (`enc(BF16, a)`, shorter: the
/// two share float32's exponent range, so rounding the bits is enough).
#[inline(always)]
pub fn enc_bf16(a: u32) -> u32 {
    let r = a.wrapping_add(0x7FFF + ((a >> 16) & 1)) >> 16;
    if a & 0x7FFF_FFFF > 0x7F80_0000 {
        (a >> 16) | 0x40
    } else {
        r
    }
}

/// float32 bits widened exactly to float64 bits (a NaN made quiet).
#[inline(always)]
pub fn dec_to_f64(a: u32) -> u64 {
    let sign = u64::from(a >> 31) << 63;
    let abs = a & 0x7FFF_FFFF;
    let e = abs >> 23;
    let frac = abs & 0x7F_FFFF;
    let normal = (u64::from(abs) << 29) + ((1023 - 127) << 52);
    // frac * 2^-149, exact and normal in float64.
    let sub = (f64::from(frac) * f64::from_bits((1023 - 149) << 52)).to_bits();
    let special =
        0x7FF0_0000_0000_0000 | (u64::from(frac) << 29) | if frac != 0 { 1 << 51 } else { 0 };
    sign | if e == 0 {
        sub
    } else if e == 255 {
        special
    } else {
        normal
    }
}

/// float64 bits to float32 bits, rounded to nearest-even (`odd` false) or to
/// odd (`odd` true).
///
/// Why rounding to odd first and then to nearest-even in a format F of q
/// significand bits gives the single rounding of x into F, when float32 has
/// at least q + 2 bits at x's magnitude: every value of F and every midpoint
/// between two neighbours of F is then an *even* multiple of float32's
/// quantum there. Rounding to odd maps x to itself if it is on float32's
/// grid, else to the odd grid point strictly between x's two grid
/// neighbours, so x and its image lie on the same side of (or both on) every
/// value and midpoint of F, and round alike. The precondition holds for
/// every F used (q <= 11 < 24 - 2 in the normal range; F's subnormal quantum
/// 2^-24 (float16) or 2^-133 (bfloat16) is at least 4 times float32's
/// 2^-149; values below all of that round to 0 in F either way). Past
/// float32's range rounding to odd gives float32's largest finite value (odd),
/// which is past every F's overflow threshold, so it overflows alike.
#[inline(always)]
pub fn f64_to_f32(x: u64, odd: bool) -> u32 {
    let abs = x & 0x7FFF_FFFF_FFFF_FFFF;
    let sign = ((x >> 63) as u32) << 31;
    let e = abs >> 52;
    let frac = abs & ((1 << 52) - 1);
    let m = frac | if e != 0 { 1 << 52 } else { 0 };
    let ed = e.max(1) as i64 - 1023 + 127;
    let sh = (29 + (1 - ed).max(0)).min(63) as u32;
    let base = if ed >= 1 { ((ed - 1) as u64) << 23 } else { 0 };
    let rounded = if odd {
        (m >> sh) | u64::from(m & ((1u64 << sh) - 1) != 0)
    } else {
        let half = (1u64 << sh) >> 1;
        (m + half - 1 + ((m >> sh) & 1)) >> sh
    };
    let r = base + rounded;
    let nan = 0x7FC0_0000 | ((frac >> 29) as u32 & (QUIET32 - 1));
    let inf = abs == 0x7FF0_0000_0000_0000;
    if abs > 0x7FF0_0000_0000_0000 {
        sign | nan
    } else if r > 0x7F7F_FFFF {
        sign | if odd && !inf {
            0x7F7F_FFFF
        } else {
            0x7F80_0000
        }
    } else {
        sign | r as u32
    }
}

/// A 32-bit integer (`neg`, magnitude `u`) to float32 bits, rounded to
/// nearest-even or to odd (see `f64_to_f32` for why odd).
#[inline(always)]
pub fn int_to_f32(neg: bool, u: u32, odd: bool) -> u32 {
    let sign = u32::from(neg) << 31;
    // Below 2^24 the conversion is exact.
    let small = ((u & 0xFF_FFFF) as i32 as f32).to_bits();
    // Else u >> 8 < 2^24 converts exactly and its exponent is u's, less 8.
    let e = (((u >> 8) as i32 as f32).to_bits() >> 23) + 8; // biased
    let sh = (e.max(150) - 150).min(8); // bits below the 24 kept, 1..=8
    let big = if odd {
        let sticky = u32::from(u & ((1u32 << sh) - 1) != 0);
        (((e - 1) << 23) + (u >> sh)) | sticky
    } else {
        let u = u64::from(u);
        let half = (1u64 << sh) >> 1;
        // Wrapping: both arms are computed for every lane, and for u = 0
        // (sh = 0, half = 0) this one is u - 1; `small` is chosen then, but
        // a plain `-` is an overflow panic in a build with overflow checks.
        let rounded = ((u + half + ((u >> sh) & 1)).wrapping_sub(1) >> sh) as u32;
        ((e - 1) << 23).wrapping_add(rounded)
    };
    sign | if u < 1 << 24 { small } else { big }
}

/// float32 bits to an integer in [lo, hi]: truncate, saturate, NaN to 0.
#[inline(always)]
pub fn to_int(a: u32, lo: i32, hi: i32) -> i32 {
    // `as` truncates, saturates and maps NaN to 0.
    (f32::from_bits(a) as i32).clamp(lo, hi)
}

/// An integer of at most 24 bits as float32 bits (exact).
#[inline(always)]
pub fn of_int(v: i32) -> u32 {
    (v as f32).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (found by fuzz/kernels with overflow checks on): for
    /// magnitudes below 2^24 the unused rounding arm computed `u - 1` and
    /// `+ rounded` unchecked, an overflow panic in a build with overflow
    /// checks (`cargo test` without --release, the fuzz build). Every small
    /// magnitude, both roundings, must give Rust's own (exact) conversion.
    #[test]
    fn int_to_f32_small_magnitudes_do_not_overflow() {
        for u in (0..1u32 << 12).chain([(1 << 24) - 1, 1 << 24, u32::MAX]) {
            for odd in [false, true] {
                let got = int_to_f32(false, u, odd);
                if u <= 1 << 24 {
                    assert_eq!(got, (u as f32).to_bits(), "{u}");
                }
                assert_eq!(int_to_f32(true, u, odd), got | 1 << 31);
            }
        }
    }
}

//! The digit engine: the shortest decimal in a value's rounding interval,
//! the nearest of those, ties to an even last digit. Schubfach (R. Giulietti,
//! "The Schubfach way to render doubles", 2020), generic over the format: a
//! value is `c * 2^q` with its interval's half-widths, and every format's
//! `(c, q)` lies inside float64's (c < 2^53, -1074 <= q <= 971), where one
//! table of 128-bit powers of ten serves them all. Integer arithmetic only.
//!
//! The interval is always `[c - 1/2, c + 1/2] * 2^q` (`c - 1/4` below a power
//! of two): the exponent is unbounded above, so the largest finite value's
//! upper boundary is the half step past it, whatever the format does there.
//!
//! Giulietti proves the 128-bit products exact enough for float64's (c, q);
//! the narrower formats' pairs are checked instead: every value of every
//! format of at most 16 bits against an exact-rational reference
//! (tests/print.rs), and every float32 by `--ignored every_float32`.

use super::pow10::{POW10, POW10_MIN};

/// A positive decimal `digits * 10^exp`; `digits` has no trailing zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub digits: u64,
    pub exp: i32,
}

/// floor(e * log10(2)), exact for |e| <= 1500 (checked in tests/print.rs).
const fn floor_log10_pow2(e: i32) -> i32 {
    (e * 1262611) >> 22
}

/// floor(log10(3/4 * 2^e)), exact for |e| <= 1500.
const fn floor_log10_three_quarters_pow2(e: i32) -> i32 {
    (e * 1262611 - 524031) >> 22
}

/// floor(log2(10^e)), exact for |e| <= 400.
const fn floor_log2_pow10(e: i32) -> i32 {
    (e * 1741647) >> 19
}

/// The top 64 bits of `g * cp / 2^64`, rounded to odd: the exact quotient
/// when it is an integer, otherwise an odd number next to it. Comparing it
/// with even numbers is then exact (Schubfach's key step).
#[inline(always)]
fn round_to_odd(g: u128, cp: u64) -> u64 {
    let x = (g as u64 as u128) * cp as u128;
    let y = ((g >> 64) as u64 as u128) * cp as u128;
    let y0 = y as u64;
    let z = y0.wrapping_add((x >> 64) as u64);
    let carry = u64::from(z < y0);
    let vbp = (y >> 64) as u64 + carry;
    vbp | u64::from(z > 1)
}

/// The decimal pp_value prints for the positive value `c * 2^q` (c >= 1),
/// whose lower neighbour is a quarter step away when `lower_closer` (the
/// value is a power of two above the least normal), else half a step.
#[inline(always)]
pub fn shortest(c: u64, q: i32, lower_closer: bool) -> Decimal {
    // Ties-to-even rounds a boundary to the value iff c is even.
    let open = c & 1;
    let cb = c << 2;
    let cbr = cb + 2;
    let cbl = cb - 2 + u64::from(lower_closer);
    // 10^k is at most the interval's width, which is then under 10 * 10^k.
    let k = if lower_closer {
        floor_log10_three_quarters_pow2(q)
    } else {
        floor_log10_pow2(q)
    };
    // cb * 2^q / 10^k = (cb << h) * g / 2^128, with h in 1..=4.
    let h = q + floor_log2_pow10(-k) + 1;
    let g = match POW10.get((-k - POW10_MIN) as usize) {
        Some(&g) => g,
        // Unreachable for (c, q) of any format here; a wrong but harmless
        // answer beats a panic at the C boundary.
        None => return Decimal { digits: c, exp: 0 },
    };
    let vbl = round_to_odd(g, cbl << h);
    let vb = round_to_odd(g, cb << h);
    let vbr = round_to_odd(g, cbr << h);
    // In quarters of 10^k: the interval is [lower, upper].
    let lower = vbl + open;
    let upper = vbr - open;
    let s = vb >> 2;
    if s >= 10 {
        // One digit fewer, if exactly one multiple of 10^(k+1) fits (two
        // cannot: the interval is narrower than 10^(k+1)). Below 10 it has
        // no fewer: 0.1 and 0.09 both have one digit, and the nearer of the
        // two is chosen below.
        let sp = s / 10;
        let up_in = lower <= 40 * sp;
        let wp_in = 40 * sp + 40 <= upper;
        if up_in != wp_in {
            return trim(sp + u64::from(wp_in), k + 1);
        }
    }
    // Otherwise s or s + 1 (the two multiples of 10^k around the value, at
    // least one of which fits): the one inside, or the nearer, ties even.
    let u_in = lower <= 4 * s;
    let w_in = 4 * s + 4 <= upper;
    let mid = 4 * s + 2;
    let nearer_up = vb > mid || (vb == mid && s & 1 != 0);
    let up = if u_in != w_in { w_in } else { nearer_up };
    trim(s + u64::from(up), k)
}

/// Strip trailing zeros, moving them into the exponent: most results have
/// none; the others (up to 17, as for 0.1) go in halving steps.
#[inline(always)]
fn trim(mut digits: u64, mut exp: i32) -> Decimal {
    if digits == 0 || digits % 10 != 0 {
        return Decimal { digits, exp };
    }
    for (p, k) in [
        (10_000_000_000_000_000, 16),
        (100_000_000, 8),
        (10_000, 4),
        (100, 2),
        (10, 1),
    ] {
        if digits % p == 0 {
            digits /= p;
            exp += k;
        }
    }
    Decimal { digits, exp }
}

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
//!
//! Most values take `fast`, one product and a margin test, and only the
//! few that fall near a boundary take Schubfach's exact three-product
//! decision (`exact`); tests/print.rs checks that the two agree wherever
//! `fast` answers, on every float32 (`--ignored fast_path_every_float32`),
//! every value of the 16-bit formats and millions of float64 values.

use super::pow10::{POW10, POW10_MIN};

/// A positive decimal `digits * 10^exp`; `digits` has no trailing zero
/// and `len` digits (known before `digits` on the fast path, which lets
/// the layout start early).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub digits: u64,
    pub exp: i32,
    pub len: u32,
}

impl Decimal {
    #[inline(always)]
    fn new(digits: u64, exp: i32) -> Self {
        let len = count_digits(digits);
        Decimal { digits, exp, len }
    }
}

/// 10^k for k in 0..20.
pub(super) const POWERS: [u64; 20] = [
    1,
    10,
    100,
    1000,
    10000,
    100000,
    1000000,
    10000000,
    100000000,
    1000000000,
    10000000000,
    100000000000,
    1000000000000,
    10000000000000,
    100000000000000,
    1000000000000000,
    10000000000000000,
    100000000000000000,
    1000000000000000000,
    10000000000000000000,
];

/// The number of decimal digits of n (1 for 0), without branches: from the
/// bit length (1233 / 4096 ~ log10 2), then one comparison.
#[inline(always)]
pub(super) fn count_digits(n: u64) -> u32 {
    let bits = 64 - (n | 1).leading_zeros();
    let t = (bits * 1233) >> 12;
    (t + u32::from(n >= POWERS.get(t as usize).copied().unwrap_or(u64::MAX))).max(1)
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
    if !lower_closer {
        if let Some(d) = fast(c, q) {
            return d;
        }
    }
    exact(c, q, lower_closer)
}

/// Fixed-point numbers below carry 64 fraction bits; each computed one is
/// within this many units of the last place of the exact quantity it
/// stands for (see `fast`), so a decision farther than that from a
/// boundary is the exact decision.
const SLACK: u64 = 4;

/// Whether the fraction of fixed-point `x` lies within SLACK of an integer.
#[inline(always)]
fn near_integer(x: u128) -> bool {
    (x as u64).wrapping_add(SLACK) <= 2 * SLACK
}

/// `shortest` for a value whose neighbours are both half a step away, from
/// one 128 x 64-bit product instead of Schubfach's three; `None` when a
/// decision falls too close to a boundary to be made this way, which
/// `exact` then makes: the ties, and the values whose bounds are exactly
/// integers (few fraction bits in units of 10^k; 0.3% of random float64
/// values, 2% of float32, more in the narrow formats).
///
/// With 10^k <= 2^q < 10^(k+1) and g = ceil(2^128 * 2^(q-h) / 10^k) (the
/// table's entry, h in 1..=4): the value in units of 10^k is
/// P = c * 2^q / 10^k = g * (c << h) / 2^128 and the interval's half-width
/// is D = 2^(q-1) / 10^k = g * 2^(h-1) / 2^128, with D >= 1/2. Computed as
/// floor(g * (c << h) / 2^64) and floor(g / 2^(65-h)), both are within one
/// unit of 2^-64 of the truth (g exceeds the real factor by under one, times
/// c << h < 2^57 that is under 2^-71 after the scaling; the floors lose under
/// one unit), so P - D and P + D are within two.
///
/// When neither bound is within SLACK of an integer, the bounds' integer
/// parts are exact and no boundary is a candidate, so which boundaries the
/// interval includes never matters. The candidates are Schubfach's: the
/// multiple of ten below the upper bound, if at least the lower bound (one
/// digit fewer; two cannot fit, as 2D < 10); else the integer nearest P,
/// which is inside as it is within 1/2 <= D. Its tie (the fraction of P
/// within SLACK of 1/2) is left to `exact`.
#[inline(always)]
pub fn fast(c: u64, q: i32) -> Option<Decimal> {
    let k = floor_log10_pow2(q);
    let h = q + floor_log2_pow10(-k) + 1;
    let g = *POW10.get((-k - POW10_MIN) as usize)?;
    let m = u128::from(c << h);
    let p = ((g >> 64) * m) + (((g as u64 as u128) * m) >> 64);
    let d = g >> (65 - h);
    let (upper, lower) = (p + d, p - d);
    let frac = p as u64;
    let tie = near_integer(u128::from(frac ^ 1 << 63));
    if near_integer(upper) | near_integer(lower) | tie {
        return None;
    }
    let s = (p >> 64) as u64;
    let len = count_digits(s);
    // The multiple of ten below the upper bound is 10 * tens; it is inside
    // iff above the lower bound's integer part. Below 10 there is no fewer
    // digit: 0.1 and 0.09 both have one, and the nearer wins.
    let tens = (upper >> 64) as u64 / 10;
    let shorter = s >= 10 && 10 * tens > (lower >> 64) as u64;
    let nearest = s + u64::from(frac > 1 << 63);
    let digits = select(shorter, tens, nearest);
    let exp = k + i32::from(shorter);
    // Only the shorter answer (or 10 for s = 9) can end in 0; rarely.
    if digits.is_multiple_of(10) {
        return Some(trim(digits, exp));
    }
    // s + 1 has s's length and the shorter answer one less, unless they
    // are powers of ten, which end in 0.
    let len = len - u32::from(shorter);
    Some(Decimal { digits, exp, len })
}

/// Schubfach's exact decision (see the module comment): three products
/// rounded to odd, so every comparison with an even number is exact.
#[inline(always)]
pub fn exact(c: u64, q: i32, lower_closer: bool) -> Decimal {
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
        None => return Decimal::new(c, 0),
    };
    let vbl = round_to_odd(g, cbl << h);
    let vb = round_to_odd(g, cb << h);
    let vbr = round_to_odd(g, cbr << h);
    // In quarters of 10^k: the interval is [lower, upper].
    let lower = vbl + open;
    let upper = vbr - open;
    let s = vb >> 2;
    // Both answers are computed and one is picked without a branch: which
    // one wins is as good as random, and a mispredicted jump costs more than
    // the arithmetic of the loser.
    //
    // One digit fewer, if exactly one multiple of 10^(k+1) fits (two cannot:
    // the interval is narrower than 10^(k+1)). Below 10 it has no fewer: 0.1
    // and 0.09 both have one digit, and the nearer of the two is chosen below.
    let sp = s / 10;
    let up_in = lower <= 40 * sp;
    let wp_in = 40 * sp + 40 <= upper;
    let shorter = s >= 10 && up_in != wp_in;
    // Otherwise s or s + 1 (the two multiples of 10^k around the value, at
    // least one of which fits): the one inside, or the nearer, ties even.
    let u_in = lower <= 4 * s;
    let w_in = 4 * s + 4 <= upper;
    let mid = 4 * s + 2;
    let nearer_up = (vb > mid) | ((vb == mid) & (s & 1 != 0));
    let up = (w_in & !u_in) | (nearer_up & (u_in == w_in));
    let digits = select(shorter, sp + u64::from(wp_in), s + u64::from(up));
    let exp = k + i32::from(shorter);
    // A shorter answer, or s + 1 = 10 for s = 9, can end in 0; rarely.
    if digits.is_multiple_of(10) {
        return trim(digits, exp);
    }
    Decimal::new(digits, exp)
}

/// `a` if `c` else `b`, as arithmetic (a conditional move, not a jump).
#[inline(always)]
fn select(c: bool, a: u64, b: u64) -> u64 {
    let m = u64::from(c).wrapping_neg();
    (a & m) | (b & !m)
}

/// Strip trailing zeros, moving them into the exponent: most results have
/// none; the others (up to 17, as for 0.1) go in halving steps.
#[inline(always)]
fn trim(mut digits: u64, mut exp: i32) -> Decimal {
    for (p, k) in [
        (10_000_000_000_000_000, 16),
        (100_000_000, 8),
        (10_000, 4),
        (100, 2),
        (10, 1),
    ] {
        if digits.is_multiple_of(p) {
            digits /= p;
            exp += k;
        }
    }
    Decimal::new(digits, exp)
}

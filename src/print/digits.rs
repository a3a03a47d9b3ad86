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
//! Normal values that are not powers of two (nearly all) take `fast`, one
//! product from a table per binary exponent and a margin test; the others,
//! and the few that fall near a boundary, take Schubfach's exact
//! three-product decision (`exact`). tests/print.rs checks that the two
//! agree wherever `fast` answers, on every float32
//! (`--ignored fast_path_every_float32`), every value of the 16-bit formats
//! and millions of float64 values.

use super::pow10::{POW10, POW10_MIN};
use crate::format::{Format, F32};

/// A positive decimal `digits * 10^exp` (`exact`'s answer); `digits` has no
/// trailing zero and `len` digits. `placed` gives the layout's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub digits: u64,
    pub exp: i32,
    pub len: u32,
}

impl Decimal {
    #[inline(always)]
    fn new(digits: u64, exp: i32) -> Self {
        Decimal {
            digits,
            exp,
            len: count_digits(digits),
        }
    }
}

/// 10^k for k in 0..20.
// Indexing in a constant initialiser: out of range would fail the build.
#[allow(clippy::indexing_slicing)]
pub(super) const POWERS: [u64; 20] = {
    let mut p = [1; 20];
    let mut k = 1;
    while k < 20 {
        p[k] = p[k - 1] * 10;
        k += 1;
    }
    p
};

/// Per bit length: the least power of ten that length may reach, and the
/// digit count below it.
#[derive(Clone, Copy)]
struct ByLength {
    power: u64,
    below: u32,
}

#[allow(clippy::indexing_slicing)] // only in constants, or at len <= 17
const fn scale_of(len: u32) -> u64 {
    if len <= 17 {
        POWERS[17 - len as usize]
    } else {
        1
    }
}

// Indexing in a constant initialiser: out of range would fail the build.
#[allow(clippy::indexing_slicing)]
static BY_LENGTH: [ByLength; 65] = {
    let mut t = [ByLength { power: 0, below: 0 }; 65];
    let mut bits = 1;
    while bits <= 64 {
        // 10^j <= 2^(bits-1) for j = floor((bits - 1) * log10 2): the
        // numbers of this length have j + 1 digits, or j + 2 from 10^(j+1).
        let j = ((bits - 1) * 1233) >> 12;
        t[bits as usize] = ByLength {
            power: if j + 1 < 20 {
                POWERS[j as usize + 1]
            } else {
                u64::MAX
            },
            below: j + 1,
        };
        bits += 1;
    }
    t
};

/// The number of decimal digits of n (1 for 0): one table entry by bit
/// length, one comparison.
#[inline(always)]
pub(super) fn count_digits(n: u64) -> u32 {
    let bits = 64 - (n | 1).leading_zeros();
    match BY_LENGTH.get(bits as usize) {
        Some(e) => e.below + u32::from(n >= e.power),
        None => 1,
    }
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

/// The binary exponents of normal values, in every format here (float64's
/// q = e - 1075 for e in 1..=2046; the others' lie inside).
const Q_MIN: i32 = -1074;
const Q_MAX: i32 = 971;

/// Per binary exponent q of a normal value: POW10's entry for k =
/// floor(log10(2^q)) shifted so that the value's significand always takes
/// the same shift (4) in `fast`, rounded up: ceil(g / 2^(4 - h)) is
/// ceil(2^128 * 2^(q-4) / 10^k), as ceil(ceil(x) / n) = ceil(x / n). One
/// load then replaces finding h and two variable shifts per value.
// Indexing in a constant initialiser: out of range would fail the build.
#[allow(clippy::indexing_slicing)]
static BY_EXPONENT: [u128; (Q_MAX - Q_MIN + 1) as usize] = {
    let mut t = [0; (Q_MAX - Q_MIN + 1) as usize];
    let mut q = Q_MIN;
    while q <= Q_MAX {
        let k = floor_log10_pow2(q);
        let h = q + floor_log2_pow10(-k) + 1;
        let g = POW10[(-k - POW10_MIN) as usize];
        let shift = 4 - h;
        t[(q - Q_MIN) as usize] = (g >> shift) + (g & ((1 << shift) - 1) != 0) as u128;
        q += 1;
    }
    t
};

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

/// A decimal as the layout takes it: its digits left-aligned in
/// `places(fmt)` places (trailing zeros included), and the exponent of its
/// first digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub scaled: u64,
    pub x: i32,
}

/// The places `Placed::scaled` has in `fmt`: float64's decimals have up to
/// 17 digits, every other format's at most 9.
pub const fn places(fmt: Format) -> u32 {
    if fmt.fraction_bits > F32.fraction_bits {
        17
    } else {
        9
    }
}

impl Decimal {
    /// This decimal placed for `fmt`'s layout.
    #[inline(always)]
    pub fn placed(self, fmt: Format) -> Placed {
        Placed {
            scaled: self
                .digits
                .wrapping_mul(scale_of(17 + self.len - places(fmt))),
            x: self.exp + self.len as i32 - 1,
        }
    }
}

/// The digit count of n (1 for 0), in constants.
const fn digits_const(mut n: u64) -> u32 {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}

/// The digit counts a normal value's candidate can have (see `fast`): it
/// lies within 5 of [c, 10c) in units of 10^k, for c of f + 1 bits.
const fn count_range(fmt: Format) -> (u32, u32) {
    let w = fmt.fraction_bits + 1;
    (
        digits_const((1u64 << (w - 1)).saturating_sub(5)),
        digits_const((10u64 << w) + 5),
    )
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

/// The decimal pp_value prints for a normal value `c * 2^q` of `fmt` that
/// is not a power of two (its neighbours are both half a step away), from
/// one 128 x 64-bit product instead of Schubfach's three; `None` when a
/// decision falls too close to a boundary to be made this way, which
/// `exact` then makes: the ties, and the values whose bounds are exactly
/// integers (few fraction bits in units of 10^k; 0.3% of random float64
/// values, 2% of float32, more in the narrow formats).
///
/// With 10^k <= 2^q < 10^(k+1) and g = ceil(2^128 * 2^(q-4) / 10^k)
/// (`BY_EXPONENT`): the value in units of 10^k is
/// P = c * 2^q / 10^k = g * (c << 4) / 2^128 and the interval's half-width
/// is D = 2^(q-1) / 10^k = g * 2^3 / 2^128, with 1/2 <= D < 5. Computed as
/// floor(g * (c << 4) / 2^64) and floor(g / 2^61), both are within one unit
/// of 2^-64 of the truth (g exceeds the real factor by under one, times
/// c << 4 < 2^57 that is under 2^-71 after the scaling; the floors lose
/// under one unit), so P - D and P + D are within two.
///
/// When neither bound is within SLACK of an integer, the bounds' integer
/// parts are exact and no boundary is a candidate, so which boundaries the
/// interval includes never matters. The candidates are Schubfach's: the
/// multiple of ten below the upper bound, if at least the lower bound (one
/// digit fewer; two cannot fit, as 2D < 10); else the integer nearest P,
/// which is inside as it is within 1/2 <= D. Its tie (the fraction of P
/// within SLACK of 1/2) is left to `exact`.
///
/// The answer is placed as it is, trailing zeros and all: the layout counts
/// the digits that matter from the text, so nothing here divides them out.
#[inline(always)]
pub fn fast(fmt: Format, c: u64, q: i32) -> Option<Placed> {
    decide::<false>(fmt, c, q)
}

/// `fast`, settling the decisions near a boundary where `near_boundary`
/// can: every value `fast` takes but a few that no test has met. Apart
/// from `fast` so that its common path keeps no registers for this one.
#[inline(always)]
pub fn fast_settled(fmt: Format, c: u64, q: i32) -> Option<Placed> {
    decide::<true>(fmt, c, q)
}

/// `fast` (SETTLE false: `None` near a boundary) or `fast_settled`.
#[inline(always)]
fn decide<const SETTLE: bool>(fmt: Format, c: u64, q: i32) -> Option<Placed> {
    let k = floor_log10_pow2(q);
    let g = *BY_EXPONENT.get(q.wrapping_sub(Q_MIN) as usize)?;
    let (g_hi, g_lo) = ((g >> 64) as u64, g as u64);
    let m = c << 4;
    let p = u128::from(g_hi) * u128::from(m) + ((u128::from(g_lo) * u128::from(m)) >> 64);
    let d = g >> 61;
    let (upper, lower) = (p + d, p - d);
    let frac = p as u64;
    let s = (p >> 64) as u64;
    let (near_upper, near_lower) = (near_integer(upper), near_integer(lower));
    let tie = near_integer(u128::from(frac ^ 1 << 63));
    // In units of 10^k: the greatest integer inside the interval, the
    // least, and the nearest to the value. Away from the boundaries they
    // come straight from the fixed-point numbers.
    let (most_in, least_in, nearest) = if near_upper | near_lower | tie {
        if !SETTLE {
            return None;
        }
        near_boundary(c, q, k, (upper, lower, p), (near_upper, near_lower, tie))?
    } else {
        (
            (upper >> 64) as u64,
            (lower >> 64) as u64 + 1,
            s + u64::from(frac > 1 << 63),
        )
    };
    let (fewest, most) = count_range(fmt);
    // The greatest multiple of ten inside, if any (one digit fewer). Below
    // 10 there is no fewer digit: 0.1 and 0.09 both have one, and the
    // nearer wins.
    let tens = most_in / 10 * 10;
    let shorter = tens >= least_in && (fewest > 1 || s >= 10);
    let cand = select(shorter, tens, nearest);
    // The count is one of fewest..=most (two values for float64, three for
    // float32): comparisons, and the scalings side by side with a select
    // each, not a table load and a multiplication after the count.
    let mut count = fewest;
    let mut scaled = cand * scale_of(17 + fewest - places(fmt));
    let mut j = fewest;
    while j < most {
        let longer = cand >= scale_of(17 - j);
        count += u32::from(longer);
        scaled = select(longer, cand * scale_of(18 + j - places(fmt)), scaled);
        j += 1;
    }
    Some(Placed {
        scaled,
        x: k + count as i32 - 1,
    })
}

/// `fast_settled`'s integers when a bound or the value's fraction lies within
/// SLACK of a decision point, where the fixed-point numbers alone cannot
/// tell on which side the exact quantity is. Often the exact quantity's
/// form settles it:
///
/// - For q >= 1 (so k >= 0 and q - 1 >= k) the bounds (2c ± 1) * 2^(q-1) /
///   10^k are multiples of 1/5^k; with k <= 23 that grain (over 2^-54)
///   dwarfs the error, so a bound near an integer is that integer. It is
///   inside the interval iff c is even.
/// - For q <= 0 the value c * 2^q / 10^k is c * 5^-k / 2^(k-q) with k <= 0,
///   a multiple of 2^-(k-q); with k - q <= 60 that grain dwarfs the error,
///   so a fraction near a half is exactly a half, a tie, which goes to the
///   even integer. (Its bounds are odd multiples of 2^-(k-q+1), never near
///   an integer at that grain.)
///
/// Anything else near a decision point (a grain finer than the error,
/// which random values almost never meet) is left to `exact`.
#[inline(always)]
fn near_boundary(
    c: u64,
    q: i32,
    k: i32,
    (upper, lower, p): (u128, u128, u128),
    (near_upper, near_lower, tie): (bool, bool, bool),
) -> Option<(u64, u64, u64)> {
    let exact_bounds = q >= 1 && k <= 23;
    if (near_upper || near_lower) && !exact_bounds {
        return None;
    }
    if tie && !(q <= 0 && k - q <= 60) {
        return None;
    }
    let round = |x: u128| ((x + (1 << 63)) >> 64) as u64;
    let excluded = c & 1;
    let most_in = if near_upper {
        round(upper) - excluded
    } else {
        (upper >> 64) as u64
    };
    let least_in = if near_lower {
        round(lower) + excluded
    } else {
        (lower >> 64) as u64 + 1
    };
    let s = (p >> 64) as u64;
    let nearest = if tie {
        s + (s & 1)
    } else {
        s + u64::from(p as u64 > 1 << 63)
    };
    Some((most_in, least_in, nearest))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_counts() {
        let mut cases = vec![0, 1, u64::MAX];
        for k in 0..64 {
            cases.extend([1u64 << k, (1u64 << k) - 1, (1u64 << k) + 1]);
        }
        for p in POWERS {
            cases.extend([p - 1, p, p + 1]);
        }
        for n in cases {
            assert_eq!(count_digits(n), n.to_string().len() as u32, "{n}");
        }
    }
}

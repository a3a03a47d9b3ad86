//! Layout: a `Decimal`, an integer or a word, written into a fixed buffer of
//! `FORMAT_MAX` bytes. Writes past the end are dropped rather than panicking;
//! no text here comes near the end (the longest is a complex128, 2 * 24 + 2).
//! Digits go straight to their final place, eight per word store, with no
//! scratch copy.

use super::digits::{count_digits, Placed};
use super::FORMAT_MAX;

/// The text being written into the caller's buffer. Every method inlines
/// into `format_elem`, where the buffer is a `&mut` argument: the compiler
/// then keeps the length in a register instead of reloading it after each
/// byte stored (a `u8` store may alias anything behind a pointer).
pub struct Writer<'a> {
    buf: &'a mut [u8; FORMAT_MAX],
    pub len: usize,
}

const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The eight ASCII digits of `v` < 10^8, first digit in the low byte: the
/// halves, quarters and digits split in lanes of one word. Each split takes
/// the quotient q by a multiplication (exact in these ranges) and puts the
/// remainder in the next lane as x + q * (2^w - d) (one multiply-add, not
/// x - q * d then a shift and an add): the chain of dependent operations
/// is most of a text's time.
#[inline(always)]
fn eight_digits(v: u32) -> u64 {
    let v = u64::from(v);
    let halves = v + (v / 10_000) * ((1 << 32) - 10_000);
    let hundreds = ((halves * 10486) >> 20) & 0x0000_007F_0000_007F;
    let quarters = halves + hundreds * ((1 << 16) - 100);
    let tens = ((quarters * 103) >> 10) & 0x000F_000F_000F_000F;
    let digits = quarters + tens * ((1 << 8) - 10);
    // The quotients now sit in the high lanes: reverse to first-digit-low.
    digits.swap_bytes() + 0x3030_3030_3030_3030
}

impl<'a> Writer<'a> {
    #[inline(always)]
    pub fn new(buf: &'a mut [u8; FORMAT_MAX]) -> Self {
        Writer { buf, len: 0 }
    }

    /// Hand a writer at this one's end to `f`, by value (its two fields
    /// travel in registers through a call, not through memory), and
    /// continue from where it finished.
    #[inline(always)]
    pub fn pass(&mut self, f: impl FnOnce(Writer) -> usize) {
        self.len = f(Writer {
            buf: &mut *self.buf,
            len: self.len,
        });
    }

    /// The text's length.
    #[inline(always)]
    pub fn finish(self) -> usize {
        self.len
    }

    #[inline(always)]
    fn put(&mut self, at: usize, b: u8) {
        if let Some(slot) = self.buf.get_mut(at) {
            *slot = b;
        }
    }

    #[inline(always)]
    pub fn byte(&mut self, b: u8) {
        self.put(self.len, b);
        self.len += 1;
    }

    /// A "-" iff `neg`, without a jump: the sign of random data is a coin
    /// toss that a branch predictor loses half the time.
    #[inline(always)]
    pub fn minus_if(&mut self, neg: bool) {
        self.put(self.len, b'-');
        self.len += usize::from(neg);
    }

    #[inline(always)]
    pub fn bytes(&mut self, s: &[u8]) {
        for &b in s {
            self.byte(b);
        }
    }

    /// Two digits of `v` < 100 at `at`.
    #[inline(always)]
    fn pair(&mut self, at: usize, v: u32) {
        let r = v as usize * 2;
        self.put(at, PAIRS.get(r).copied().unwrap_or(b'0'));
        self.put(at + 1, PAIRS.get(r + 1).copied().unwrap_or(b'0'));
    }

    /// Exactly eight digits of `v` < 10^8 at `at`, stored at once.
    #[inline(always)]
    fn eight(&mut self, at: usize, v: u32) {
        if let Some(dst) = self.buf.get_mut(at..at + 8) {
            dst.copy_from_slice(&eight_digits(v).to_le_bytes());
        }
    }

    /// The `n` digits of `v` (n = count_digits(v) <= 8) at `at`.
    #[inline(always)]
    fn small(&mut self, at: usize, n: usize, mut v: u32) {
        // All eight at once, leading zeros shifted out; the bytes past the
        // n digits are scratch that later writes cover or `len` excludes.
        if let Some(dst) = self.buf.get_mut(at..at + 8) {
            let shift = 8 * (8 - n.clamp(1, 8)) as u32;
            dst.copy_from_slice(&(eight_digits(v) >> shift).to_le_bytes());
            return;
        }
        let mut end = at + n;
        while v >= 100 {
            end -= 2;
            self.pair(end, v % 100);
            v /= 100;
        }
        if v >= 10 {
            self.pair(end - 2, v);
        } else {
            self.put(end - 1, b'0' + v as u8);
        }
    }

    /// The `n` digits of `v` (n = count_digits(v)) at `at .. at + n`.
    #[inline(always)]
    fn digits_at(&mut self, at: usize, n: usize, v: u64) {
        if n <= 8 {
            self.small(at, n, v as u32);
        } else if n <= 16 {
            self.small(at, n - 8, (v / 100_000_000) as u32);
            self.eight(at + n - 8, (v % 100_000_000) as u32);
        } else {
            let (hi, lo) = (v / 100_000_000, (v % 100_000_000) as u32);
            self.small(at, n - 16, (hi / 100_000_000) as u32);
            self.eight(at + n - 16, (hi % 100_000_000) as u32);
            self.eight(at + n - 8, lo);
        }
    }

    /// Append the digits of `v`.
    #[inline(always)]
    fn uint(&mut self, v: u64) {
        let n = count_digits(v) as usize;
        self.digits_at(self.len, n, v);
        self.len += n;
    }

    /// An integer in decimal, with a "-" if negative.
    pub fn int(&mut self, n: i128) {
        if n < 0 {
            self.byte(b'-');
        }
        // Every integer dtype's magnitudes fit in 64 bits.
        self.uint(u64::try_from(n.unsigned_abs()).unwrap_or(u64::MAX));
    }

    /// A positive decimal by SEMANTICS.md's rule: positionally iff its first
    /// digit's exponent X is in -4..16, else as d.ddde±XX. `WIDE` is whether
    /// it has 17 places (float64's) or 9 (see `digits::places`).
    ///
    /// The digits, trailing zeros and all, are written as a first digit and
    /// one word at fixed offsets: the text's shape moves where they go and
    /// where it ends, but the digit count never steers a jump, and the
    /// trailing zeros are an integer's last digits or scratch past the end.
    #[inline(always)]
    pub fn decimal<const WIDE: bool>(&mut self, d: Placed) {
        let x = d.x;
        let (first, rest, more) = split::<WIDE>(d.scaled);
        let n = 1 + more;
        let at = self.len;
        // Every offset below is under WINDOW (longest: 17 digits and a "."
        // in the middle shape), and no text here starts past 26.
        let Some(win) = self.buf.get_mut(at..).and_then(|b| b.first_chunk_mut()) else {
            return;
        };
        let end = if !(-4..16).contains(&x) {
            // d, ".", the other n - 1 digits ("." dropped when none), e±XX.
            put(win, 0, first);
            put(win, 1, b'.');
            word(win, 2, rest.to_le_bytes());
            let p = n + usize::from(more > 0);
            let (e, len) = exponent(x);
            word(win, p, e);
            p + len
        } else if x < 0 {
            // "0.", -x - 1 zeros (at most 3), the digits.
            let at_digits = (1 - x) as usize;
            word(win, 0, *b"0.000000");
            put(win, at_digits, first);
            word(win, at_digits + 1, rest.to_le_bytes());
            at_digits + n
        } else if x as usize >= n - 1 {
            // An integer of x + 1 <= 16 digits, zeros appended included.
            put(win, 0, first);
            word(win, 1, rest.to_le_bytes());
            x as usize + 1
        } else {
            // x + 1 integer digits, ".", the rest: all the digits, then the
            // ones after the point again, one place right.
            let int = x as usize + 1;
            put(win, 0, first);
            word(win, 1, rest.to_le_bytes());
            put(win, int, b'.');
            word(win, int + 1, (rest >> (8 * (int - 1))).to_le_bytes());
            n + 1
        };
        self.len = at + end;
    }
}

/// The bytes a decimal's text may touch, from its start.
const WINDOW: usize = 34;

#[inline(always)]
fn put(win: &mut [u8; WINDOW], at: usize, b: u8) {
    if let Some(slot) = win.get_mut(at) {
        *slot = b;
    }
}

/// Bytes past the text's final end are scratch that its length excludes.
#[inline(always)]
fn word<const N: usize>(win: &mut [u8; WINDOW], at: usize, w: [u8; N]) {
    if let Some(dst) = win.get_mut(at..at + N) {
        dst.copy_from_slice(&w);
    }
}

/// Digits left-aligned in 17 places (9 unless WIDE): the first in ASCII,
/// the next 16 (or 8, then '0's) in ASCII from the low byte, and how many
/// of those come up to the last that is not 0 (the decimal's length - 1).
/// Both widths take `sixteen` (the SIMD digits where there are): for 9
/// places the second half is 0, and that is still faster than the
/// word-at-a-time eight.
#[inline(always)]
fn split<const WIDE: bool>(v: u64) -> (u8, u128, usize) {
    if WIDE {
        // The low eight first: they need one division, the others two.
        let (top, lo) = (v / 100_000_000, v % 100_000_000);
        // top / 10^8 for top < 10^9, from top: written as a division, it
        // would be folded into v / 10^16, a second wide multiplication.
        let first = (top * 1_441_151_881) >> 57;
        let hi = top - first * 100_000_000;
        let (rest, more) = sixteen(hi as u32, lo as u32);
        (b'0' + first as u8, rest, more as usize)
    } else {
        let (first, rest) = (v / 100_000_000, v % 100_000_000);
        let (rest, more) = sixteen(rest as u32, 0);
        (b'0' + first as u8, rest, more as usize)
    }
}

/// How many of the eight ASCII digits in `w` come up to the last that is not 0.
#[inline(always)]
fn significant(w: u64) -> u32 {
    (64 - (w ^ 0x3030_3030_3030_3030).leading_zeros()).div_ceil(8)
}

/// `sse2::sixteen` for every machine, word by word; the tests hold the SIMD
/// version to this one.
// On x86-64 only the tests use it.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
fn sixteen_scalar(hi: u32, lo: u32) -> (u128, u32) {
    let (hi, lo) = (eight_digits(hi), eight_digits(lo));
    let n = if lo == 0x3030_3030_3030_3030 {
        significant(hi)
    } else {
        8 + significant(lo)
    };
    (u128::from(hi) | u128::from(lo) << 64, n)
}

#[cfg(target_arch = "x86_64")]
use super::sse2::sixteen;
#[cfg(not(target_arch = "x86_64"))]
use sixteen_scalar as sixteen;

/// "e±XX" or "e±XXX" for the exponent x in the low bytes of a word, and
/// that length in its top byte.
const fn exponent_word(x: i32) -> u64 {
    let e = x.unsigned_abs() as u64;
    let sign = if x < 0 { b'-' } else { b'+' } as u64;
    let (h, t, u) = (e / 100 % 10, e / 10 % 10, e % 10);
    let head = b'e' as u64 | sign << 8;
    if h == 0 {
        head | (b'0' as u64 + t) << 16 | (b'0' as u64 + u) << 24 | 4 << 56
    } else {
        head | (b'0' as u64 + h) << 16 | (b'0' as u64 + t) << 24 | (b'0' as u64 + u) << 32 | 5 << 56
    }
}

/// Every exponent a text can have (float64's reach -324 and 308) and
/// more, as `exponent_word`s indexed by the exponent's low ten bits: one
/// load per text, with no bound to check.
const EXP_SPAN: usize = 1024;
// Indexing in a constant initialiser: out of range would fail the build.
#[allow(clippy::indexing_slicing)]
static EXPONENTS: [u64; EXP_SPAN] = {
    let mut t = [0; EXP_SPAN];
    let mut x = -(EXP_SPAN as i32) / 2;
    while x < EXP_SPAN as i32 / 2 {
        t[x as usize % EXP_SPAN] = exponent_word(x);
        x += 1;
    }
    t
};

/// The exponent's text in the first bytes of a word (the rest is scratch
/// that the text's length excludes), and its length.
#[inline(always)]
fn exponent(x: i32) -> ([u8; 8], usize) {
    let w = EXPONENTS.get(x as usize % EXP_SPAN).copied().unwrap_or(0);
    (w.to_le_bytes(), (w >> 56) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_digits_at_every_step() {
        let mut v = 0u32;
        while v < 100_000_000 {
            let want = format!("{v:08}");
            assert_eq!(&eight_digits(v).to_le_bytes(), want.as_bytes(), "{v}");
            v += 997;
        }
        for v in [0, 9, 10, 99, 100, 9999, 10_000, 99_999_999] {
            assert_eq!(&eight_digits(v).to_le_bytes(), format!("{v:08}").as_bytes());
        }
    }

    /// Every value below 10^8 in each half (the halves are independent
    /// lanes), the other half walking through lengths and zeros: the SIMD
    /// digits and their count against the word-by-word twin.
    #[test]
    fn sixteen_digits_every_half() {
        let others = [0, 99_999_999, 10_000_001];
        let mut v = 0u32;
        while v < 100_000_000 {
            for &o in &others {
                assert_eq!(sixteen(v, o), sixteen_scalar(v, o), "{v} {o}");
                assert_eq!(sixteen(o, v), sixteen_scalar(o, v), "{o} {v}");
            }
            // All of them in release builds, a stride in debug ones.
            v += if cfg!(debug_assertions) { 9973 } else { 1 };
        }
        let (text, more) = sixteen_scalar(12_345_678, 90_000_000);
        assert_eq!(&text.to_le_bytes(), b"1234567890000000");
        assert_eq!(more, 9);
    }

    /// The first digit, the rest and their count at every first digit and
    /// around every power of ten, both widths.
    #[test]
    fn split_at_boundaries() {
        let mut cases = vec![1, 9, 99_999_999_999_999_999];
        for first in 1..10u64 {
            for k in 0..17 {
                let p = 10u64.pow(k);
                let base = first * 10u64.pow(16);
                cases.extend([base, base + p, base + p - 1, base - 1]);
            }
        }
        for v in cases {
            let v = v.min(99_999_999_999_999_999);
            let text = format!("{v:017}");
            let (first, rest, more) = split::<true>(v);
            assert_eq!(first, text.as_bytes()[0], "{v}");
            assert_eq!(&rest.to_le_bytes(), &text.as_bytes()[1..], "{v}");
            assert_eq!(more, text[1..].trim_end_matches('0').len(), "{v}");
            let narrow = v / 100_000_000;
            let text = format!("{narrow:09}");
            let (first, rest, more) = split::<false>(narrow);
            assert_eq!(first, text.as_bytes()[0], "{narrow}");
            assert_eq!(&rest.to_le_bytes()[..8], &text.as_bytes()[1..], "{narrow}");
            assert_eq!(more, text[1..].trim_end_matches('0').len(), "{narrow}");
        }
    }

    #[test]
    fn exponents() {
        for x in -512..=511 {
            let (w, len) = exponent(x);
            let want = format!("e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs());
            assert_eq!(&w[..len], want.as_bytes(), "{x}");
        }
    }
}

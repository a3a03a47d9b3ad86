//! Layout: a `Decimal`, an integer or a word, written into a fixed buffer of
//! `FORMAT_MAX` bytes. Writes past the end are dropped rather than panicking;
//! no text here comes near the end (the longest is a complex128, 2 * 24 + 2).
//! Digits go straight to their final place, eight per word store, with no
//! scratch copy.

use super::digits::Decimal;
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

/// 10^k for k in 0..20.
const POWERS: [u64; 20] = [
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
fn count_digits(n: u64) -> usize {
    let bits = 64 - (n | 1).leading_zeros() as usize;
    let t = (bits * 1233) >> 12;
    (t + usize::from(n >= POWERS.get(t).copied().unwrap_or(u64::MAX))).max(1)
}

/// The eight ASCII digits of `v` < 10^8, first digit in the low byte: the
/// halves, quarters and digits split in lanes of one word (the divisions
/// by 100 and 10 as multiplications, exact in these ranges).
#[inline(always)]
fn eight_digits(v: u32) -> u64 {
    let v = u64::from(v);
    let halves = v / 10_000 + ((v % 10_000) << 32);
    let hundreds = ((halves * 10486) >> 20) & 0x0000_007F_0000_007F;
    let quarters = hundreds + ((halves - hundreds * 100) << 16);
    let tens = ((quarters * 103) >> 10) & 0x000F_000F_000F_000F;
    let digits = tens + ((quarters - tens * 10) << 8);
    digits + 0x3030_3030_3030_3030
}

impl<'a> Writer<'a> {
    #[inline(always)]
    pub fn new(buf: &'a mut [u8; FORMAT_MAX]) -> Self {
        Writer { buf, len: 0 }
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

    #[inline(always)]
    pub fn bytes(&mut self, s: &[u8]) {
        for &b in s {
            self.byte(b);
        }
    }

    #[inline(always)]
    fn zeros(&mut self, n: usize) {
        for _ in 0..n {
            self.byte(b'0');
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
        let n = count_digits(v);
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
    /// digit's exponent X is in -4..16, else as d.ddde±XX.
    #[inline(always)]
    pub fn decimal(&mut self, d: Decimal) {
        let n = count_digits(d.digits);
        let x = d.exp + n as i32 - 1;
        let at = self.len;
        if !(-4..16).contains(&x) {
            if n == 1 {
                self.put(at, b'0' + d.digits as u8);
                self.len += 1;
            } else {
                // The digits one place right, then the first moved before ".".
                self.digits_at(at + 1, n, d.digits);
                let first = self.buf.get(at + 1).copied().unwrap_or(b'0');
                self.put(at, first);
                self.put(at + 1, b'.');
                self.len += n + 1;
            }
            self.byte(b'e');
            self.byte(if x < 0 { b'-' } else { b'+' });
            let e = u64::from(x.unsigned_abs());
            if e < 10 {
                self.byte(b'0');
            }
            self.uint(e);
        } else if x < 0 {
            self.bytes(b"0.");
            self.zeros((-x - 1) as usize);
            self.uint(d.digits);
        } else if x as usize >= n - 1 {
            self.uint(d.digits);
            self.zeros(x as usize + 1 - n);
        } else {
            // x + 1 integer digits, ".", the rest: write all one place right,
            // then shift the integer digits left over the gap.
            let int = x as usize + 1;
            self.digits_at(at + 1, n, d.digits);
            for i in at..at + int {
                let b = self.buf.get(i + 1).copied().unwrap_or(b'0');
                self.put(i, b);
            }
            self.put(at + int, b'.');
            self.len += n + 1;
        }
    }
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

    #[test]
    fn digit_counts() {
        let mut p = 1u64;
        for k in 1..20 {
            assert_eq!(count_digits(p), k);
            assert_eq!(count_digits(p * 10 - 1), k);
            p = p.saturating_mul(10);
        }
        assert_eq!(count_digits(0), 1);
        assert_eq!(count_digits(u64::MAX), 20);
    }
}

//! Layout: a `Decimal`, an integer or a word, written into a fixed buffer of
//! `FORMAT_MAX` bytes. Writes past the end are dropped rather than panicking;
//! no text here comes near the end (the longest is a complex128, 2 * 24 + 2).

use super::digits::Decimal;
use super::FORMAT_MAX;

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

/// The decimal digits of `n`, right-aligned in a 40-byte scratch; returns
/// the scratch and the index of the first digit.
#[inline]
fn decimal_digits(mut n: u128) -> ([u8; 40], usize) {
    let mut tmp = [b'0'; 40];
    let mut i = tmp.len();
    while n >= 100 {
        let r = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        if let (Some(dst), Some(src)) = (tmp.get_mut(i..i + 2), PAIRS.get(r..r + 2)) {
            dst.copy_from_slice(src);
        }
    }
    if n >= 10 {
        let r = n as usize * 2;
        i -= 2;
        if let (Some(dst), Some(src)) = (tmp.get_mut(i..i + 2), PAIRS.get(r..r + 2)) {
            dst.copy_from_slice(src);
        }
    } else {
        i -= 1;
        if let Some(d) = tmp.get_mut(i) {
            *d = b'0' + n as u8;
        }
    }
    (tmp, i)
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut [u8; FORMAT_MAX]) -> Self {
        Writer { buf, len: 0 }
    }

    #[inline]
    pub fn byte(&mut self, b: u8) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    #[inline]
    pub fn bytes(&mut self, s: &[u8]) {
        if let Some(dst) = self.buf.get_mut(self.len..self.len + s.len()) {
            dst.copy_from_slice(s);
            self.len += s.len();
        }
    }

    #[inline]
    fn zeros(&mut self, n: usize) {
        for _ in 0..n {
            self.byte(b'0');
        }
    }

    /// An integer in decimal, with a "-" if negative.
    pub fn int(&mut self, n: i128) {
        if n < 0 {
            self.byte(b'-');
        }
        let (tmp, i) = decimal_digits(n.unsigned_abs());
        self.bytes(tmp.get(i..).unwrap_or(&[]));
    }

    /// A positive decimal by SEMANTICS.md's rule: positionally iff its first
    /// digit's exponent X is in -4..16, else as d.ddde±XX.
    pub fn decimal(&mut self, d: Decimal) {
        let (tmp, i) = decimal_digits(u128::from(d.digits));
        let digits = tmp.get(i..).unwrap_or(&[]);
        let n = digits.len() as i32;
        let x = d.exp + n - 1;
        if !(-4..16).contains(&x) {
            let (first, rest) = digits.split_at_checked(1).unwrap_or((digits, &[]));
            self.bytes(first);
            if !rest.is_empty() {
                self.byte(b'.');
                self.bytes(rest);
            }
            self.byte(b'e');
            self.byte(if x < 0 { b'-' } else { b'+' });
            let e = x.unsigned_abs();
            if e < 10 {
                self.byte(b'0');
            }
            let (tmp, i) = decimal_digits(u128::from(e));
            self.bytes(tmp.get(i..).unwrap_or(&[]));
        } else if x < 0 {
            self.bytes(b"0.");
            self.zeros((-x - 1) as usize);
            self.bytes(digits);
        } else if x >= n - 1 {
            self.bytes(digits);
            self.zeros((x - (n - 1)) as usize);
        } else {
            let (int, frac) = digits
                .split_at_checked((x + 1) as usize)
                .unwrap_or((digits, &[]));
            self.bytes(int);
            self.byte(b'.');
            self.bytes(frac);
        }
    }
}

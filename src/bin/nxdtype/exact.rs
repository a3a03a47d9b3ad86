//! Exact decimal arithmetic, just enough for `nxdtype store`: the exact
//! expansion of a stored value and its difference from the decimal typed.
//! A number is ±digits × 10^exp, digits a natural number in base 10^9 limbs
//! (least significant first), so printing it in decimal is direct.

use std::cmp::Ordering;

const BASE: u64 = 1_000_000_000;

/// A natural number in base 10^9, least significant limb first, no
/// leading zero limbs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Nat(Vec<u32>);

impl Nat {
    fn from_u128(mut x: u128) -> Nat {
        let mut limbs = Vec::new();
        while x > 0 {
            limbs.push((x % u128::from(BASE)) as u32);
            x /= u128::from(BASE);
        }
        Nat(limbs)
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn mul_add_small(&mut self, m: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 {
            self.0.push((carry % BASE) as u32);
            carry /= BASE;
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// self × base^k, in chunks that keep each multiplier below 2^32.
    fn mul_pow(&mut self, base: u32, mut k: u32, chunk: u32) {
        while k > 0 {
            let step = k.min(chunk);
            self.mul_add_small(base.pow(step), 0);
            k -= step;
        }
    }

    fn cmp(&self, other: &Nat) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// self - other, for self >= other.
    fn sub(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &a) in self.0.iter().enumerate() {
            let b = other.0.get(i).copied().unwrap_or(0);
            let mut v = i64::from(a) - i64::from(b) - borrow;
            borrow = i64::from(v < 0);
            if v < 0 {
                v += BASE as i64;
            }
            out.push(v as u32);
        }
        let mut n = Nat(out);
        n.trim();
        n
    }

    fn add(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let v = u64::from(self.0.get(i).copied().unwrap_or(0))
                + u64::from(other.0.get(i).copied().unwrap_or(0))
                + carry;
            out.push((v % BASE) as u32);
            carry = v / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Nat(out)
    }

    fn digits(&self) -> String {
        let mut limbs = self.0.iter().rev();
        let mut s = limbs.next().map_or(String::from("0"), |l| l.to_string());
        for l in limbs {
            s.push_str(&format!("{l:09}"));
        }
        s
    }
}

/// ±digits × 10^exp, exactly.
#[derive(Clone, Debug)]
pub struct Dec {
    neg: bool,
    digits: Nat,
    exp: i64,
}

/// Input exponents beyond this are refused: no value of any dtype needs them.
const MAX_EXP: i64 = 100_000;

impl Dec {
    pub fn from_i128(x: i128) -> Dec {
        Dec {
            neg: x < 0,
            digits: Nat::from_u128(x.unsigned_abs()),
            exp: 0,
        }
    }

    /// The exact value of a finite double: m × 2^e = m × 5^-e × 10^e.
    pub fn from_f64(x: f64) -> Option<Dec> {
        if !x.is_finite() {
            return None;
        }
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if biased == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), biased - 1075)
        };
        let mut digits = Nat::from_u128(u128::from(m));
        let e_abs = u32::try_from(e.unsigned_abs()).ok()?;
        if e >= 0 {
            digits.mul_pow(2, e_abs, 31);
            Some(Dec {
                neg: x.is_sign_negative(),
                digits,
                exp: 0,
            })
        } else {
            digits.mul_pow(5, e_abs, 13);
            Some(Dec {
                neg: x.is_sign_negative(),
                digits,
                exp: e,
            })
        }
    }

    /// A decimal as Rust reads a float: [+-] digits [. digits] [e [+-] digits],
    /// with digits on at least one side of the point. None otherwise (inf,
    /// nan, hex, junk) or when the exponent is absurd.
    pub fn parse(s: &str) -> Option<Dec> {
        let (neg, body) = match s.as_bytes().first() {
            Some(b'-') => (true, s.get(1..)?),
            Some(b'+') => (false, s.get(1..)?),
            _ => (false, s),
        };
        let (mantissa, exp) = match body.find(['e', 'E']) {
            Some(i) => (body.get(..i)?, body.get(i + 1..)?),
            None => (body, "0"),
        };
        let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let exp: i64 = exp.parse().ok().filter(|e: &i64| e.abs() <= MAX_EXP)?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all = int.bytes().chain(frac.bytes());
        if int.len() + frac.len() == 0 || !all.clone().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits = Nat::default();
        for b in all {
            digits.mul_add_small(10, u32::from(b - b'0'));
        }
        let exp = exp - i64::try_from(frac.len()).ok()?;
        Some(Dec { neg, digits, exp })
    }

    /// The digits scaled to exponent `exp` (<= self.exp).
    fn scaled(&self, exp: i64) -> Nat {
        let mut d = self.digits.clone();
        d.mul_pow(10, u32::try_from(self.exp - exp).unwrap_or(0), 9);
        d
    }

    /// self - other, exactly.
    pub fn sub(&self, other: &Dec) -> Dec {
        let exp = self.exp.min(other.exp);
        let (a, b) = (self.scaled(exp), other.scaled(exp));
        let (neg, digits) = if self.neg != other.neg {
            (self.neg, a.add(&b))
        } else if a.cmp(&b) != Ordering::Less {
            (self.neg, a.sub(&b))
        } else {
            (!self.neg, b.sub(&a))
        };
        Dec {
            neg: neg && !digits.is_zero(),
            digits,
            exp,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_zero()
    }

    /// Plain decimal notation, every digit, no trailing zeros after a point.
    pub fn plain(&self) -> String {
        let digits = self.digits.digits();
        let mut s = String::from(if self.neg { "-" } else { "" });
        if self.exp >= 0 {
            s.push_str(&digits);
            if !self.digits.is_zero() {
                s.extend(std::iter::repeat_n('0', self.exp as usize));
            }
            return s;
        }
        let point = self.exp.unsigned_abs() as usize;
        let padded = if digits.len() <= point {
            format!("{}{digits}", "0".repeat(point + 1 - digits.len()))
        } else {
            digits
        };
        let (int, frac) = padded.split_at(padded.len() - point);
        let frac = frac.trim_end_matches('0');
        s.push_str(int);
        if !frac.is_empty() {
            s.push('.');
            s.push_str(frac);
        }
        s
    }

    /// Three significant digits in scientific notation (truncated), for
    /// reading the size of an error at a glance.
    pub fn approx(&self) -> String {
        let d = self.digits.digits();
        if self.digits.is_zero() {
            return String::from("0");
        }
        let e = self.exp + d.len() as i64 - 1;
        let head: String = d.chars().take(3).collect();
        let (first, rest) = head.split_at(1);
        let sign = if self.neg { "-" } else { "" };
        if rest.is_empty() {
            format!("{sign}{first}e{e:+03}")
        } else {
            format!("{sign}{first}.{rest}e{e:+03}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_expansions() {
        let tenth = Dec::from_f64(0.1).map(|d| d.plain());
        assert_eq!(
            tenth.as_deref(),
            Some("0.1000000000000000055511151231257827021181583404541015625")
        );
        assert_eq!(
            Dec::from_f64(65504.0).map(|d| d.plain()).as_deref(),
            Some("65504")
        );
        assert_eq!(
            Dec::from_f64(-0.0).map(|d| d.plain()).as_deref(),
            Some("-0")
        );
        let tiny = Dec::from_f64(f64::from_bits(1)).map(|d| d.plain());
        // 2^-1074 has 1074 decimal places, the first 323 of them zero.
        assert!(tiny.is_some_and(
            |t| t.len() == 1076 && t.starts_with(&format!("0.{}494", "0".repeat(323)))
        ));
    }

    #[test]
    fn differences() {
        let (a, b) = (Dec::parse("0.1"), Dec::from_f64(0.1));
        let err = a.zip(b).map(|(a, b)| b.sub(&a));
        assert_eq!(
            err.as_ref().map(|e| e.plain()).as_deref(),
            Some("0.0000000000000000055511151231257827021181583404541015625")
        );
        assert_eq!(err.map(|e| e.approx()).as_deref(), Some("5.55e-18"));
        let d = Dec::parse("-1.5e3")
            .zip(Dec::parse("250"))
            .map(|(a, b)| a.sub(&b));
        assert_eq!(d.map(|d| d.plain()).as_deref(), Some("-1750"));
        assert!(Dec::parse("1e").is_none() && Dec::parse(".").is_none());
        assert!(Dec::parse("inf").is_none() && Dec::parse("1e999999").is_none());
    }
}

//! Printing (pp_value), judged by an exact-rational reference written here:
//! for every value of every float format of at most 16 bits (and random
//! float32/float64 values), the shortest decimal inside the value's rounding
//! interval (exponent unbounded above, boundaries in iff the significand is
//! even), the nearest of those, ties to an even last digit; then the layout.

use nx_dtype::format::{Format, F32, F64};
use nx_dtype::print::digits::{exact, fast, fast_settled};
use nx_dtype::print::pow10::{POW10, POW10_MAX, POW10_MIN};
use nx_dtype::print::{format_elem, format_f64, PrintError, FORMAT_MAX};
use nx_dtype::store::store_f64;
use nx_dtype::table::Dtype;
use std::cmp::Ordering;

mod common;
use common::{dt, Rng};

// ---------------------------------------------------------------- bignum

/// An unsigned big integer, little-endian 64-bit limbs.
#[derive(Clone, Debug)]
struct Big(Vec<u64>);

impl Big {
    fn from(n: u128) -> Big {
        Big(vec![n as u64, (n >> 64) as u64])
    }
    fn mul_small(&mut self, m: u64) {
        let mut carry = 0u128;
        for l in self.0.iter_mut() {
            let p = *l as u128 * m as u128 + carry;
            *l = p as u64;
            carry = p >> 64;
        }
        if carry != 0 {
            self.0.push(carry as u64);
        }
    }
    fn mul_pow10(&mut self, mut k: u32) {
        while k >= 19 {
            self.mul_small(10u64.pow(19));
            k -= 19;
        }
        self.mul_small(10u64.pow(k));
    }
    fn mul_pow5(&mut self, mut k: u32) {
        while k >= 27 {
            self.mul_small(5u64.pow(27));
            k -= 27;
        }
        self.mul_small(5u64.pow(k));
    }
    /// Divide by m (floor); returns the remainder.
    fn div_small(&mut self, m: u64) -> u64 {
        let mut rem = 0u128;
        for l in self.0.iter_mut().rev() {
            let cur = (rem << 64) | *l as u128;
            *l = (cur / m as u128) as u64;
            rem = cur % m as u128;
        }
        rem as u64
    }
    fn div_pow10(&mut self, mut k: u32) {
        while k >= 19 {
            self.div_small(10u64.pow(19));
            k -= 19;
        }
        self.div_small(10u64.pow(k));
    }
    fn shl(&mut self, k: u32) {
        let (words, bits) = ((k / 64) as usize, k % 64);
        if bits != 0 {
            let mut carry = 0u64;
            for l in self.0.iter_mut() {
                let n = (*l << bits) | carry;
                carry = *l >> (64 - bits);
                *l = n;
            }
            self.0.push(carry);
        }
        let mut v = vec![0u64; words];
        v.extend_from_slice(&self.0);
        self.0 = v;
    }
    fn add_one(&mut self) {
        for l in self.0.iter_mut() {
            let (n, c) = l.overflowing_add(1);
            *l = n;
            if !c {
                return;
            }
        }
        self.0.push(1);
    }
    /// self - other, for self >= other.
    fn sub(&self, other: &Big) -> Big {
        let mut out = self.0.clone();
        let mut borrow = 0u64;
        for (i, l) in out.iter_mut().enumerate() {
            let o = other.0.get(i).copied().unwrap_or(0);
            let (a, b1) = l.overflowing_sub(o);
            let (a, b2) = a.overflowing_sub(borrow);
            *l = a;
            borrow = u64::from(b1 || b2);
        }
        assert_eq!(borrow, 0);
        Big(out)
    }
    fn trimmed(&self) -> &[u64] {
        let mut n = self.0.len();
        while n > 0 && self.0[n - 1] == 0 {
            n -= 1;
        }
        &self.0[..n]
    }
    fn cmp(&self, other: &Big) -> Ordering {
        let (a, b) = (self.trimmed(), other.trimmed());
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }
    fn bit_len(&self) -> u32 {
        let a = self.trimmed();
        match a.last() {
            None => 0,
            Some(top) => 64 * (a.len() as u32 - 1) + (64 - top.leading_zeros()),
        }
    }
    fn to_u128(&self) -> u128 {
        let a = self.trimmed();
        assert!(a.len() <= 2);
        a.iter()
            .rev()
            .fold(0u128, |acc, &l| (acc << 64) | l as u128)
    }
}

/// Compare t * 10^j with n * 2^p exactly.
fn cmp_dec_bin(t: u128, j: i32, n: u128, p: i32) -> Ordering {
    let mut l = Big::from(t);
    let mut r = Big::from(n);
    if j >= 0 {
        l.mul_pow10(j as u32)
    } else {
        r.mul_pow10((-j) as u32)
    }
    if p >= 0 {
        r.shl(p as u32)
    } else {
        l.shl((-p) as u32)
    }
    l.cmp(&r)
}

// ---------------------------------------------------------------- reference

/// A finite non-zero float as c * 2^q, its interval's bounds in quarter
/// steps cbl, cbr (units of 2^(q-2)), and whether they belong to it.
#[derive(Clone, Copy, Debug)]
struct Val {
    c: u64,
    q: i32,
    cbl: u64,
    cbr: u64,
    closed: bool,
}

fn val_of(fmt: Format, mag: u64) -> Val {
    let f = fmt.fraction_bits;
    let e = (mag >> f) as i32;
    let frac = mag & ((1 << f) - 1);
    let (c, q) = if e == 0 {
        (frac, 1 - fmt.bias - f as i32)
    } else {
        (frac | 1 << f, e - fmt.bias - f as i32)
    };
    // The neighbours: the next value up is always half a step away (the
    // exponent is unbounded above); the one below is a quarter step away at
    // a power of two, unless it is the largest subnormal.
    let quarter_below = frac == 0 && e > 1;
    Val {
        c,
        q,
        cbl: 4 * c - if quarter_below { 1 } else { 2 },
        cbr: 4 * c + 2,
        closed: c % 2 == 0,
    }
}

/// The value and its interval as integers over one power of ten 10^d.
struct Scaled {
    lo: Big,
    v: Big,
    hi: Big,
    d: i32,
    closed: bool,
}

fn scaled(v: &Val) -> Scaled {
    // x * 2^(q-2) = x * 5^(2-q) / 10^(2-q) when q < 2.
    let d = (2 - v.q).max(0);
    let up = |x: u64| {
        let mut b = Big::from(x as u128);
        if d > 0 {
            b.mul_pow5(d as u32)
        } else {
            b.shl((v.q - 2) as u32)
        }
        b
    };
    Scaled {
        lo: up(v.cbl),
        v: up(4 * v.c),
        hi: up(v.cbr),
        d,
        closed: v.closed,
    }
}

impl Scaled {
    fn inside(&self, x: &Big) -> bool {
        let (lo, hi) = (x.cmp(&self.lo), x.cmp(&self.hi));
        if self.closed {
            lo != Ordering::Less && hi != Ordering::Greater
        } else {
            lo == Ordering::Greater && hi == Ordering::Less
        }
    }
    /// Whether some positive multiple of 10^p lies in the interval.
    fn any_at(&self, p: u32) -> bool {
        let mut m = self.hi.clone();
        m.div_pow10(p);
        // The largest multiple at most hi, and the one below it.
        let mut cands = vec![m.clone()];
        if !m.trimmed().is_empty() {
            cands.push(m.sub(&Big::from(1)));
        }
        cands.into_iter().any(|t| {
            let mut x = t.clone();
            x.mul_pow10(p);
            !t.trimmed().is_empty() && self.inside(&x)
        })
    }
}

/// The reference answer (t, j), value t * 10^j with t not a multiple of 10,
/// and whether the nearest was a tie.
fn reference(v: &Val) -> (u128, i32, bool) {
    let s = scaled(v);
    // Candidates exist at precision 10^p, then at every finer one: search
    // for the coarsest (it has the fewest significant digits, or as few as
    // any: a decimal just below a power of ten at the next finer precision
    // can have as few, as 0.09 beside 0.1).
    let (mut lo, mut hi) = (0u32, s.hi.bit_len() / 3 + 2);
    assert!(s.any_at(0) && !s.any_at(hi));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if s.any_at(mid) {
            lo = mid
        } else {
            hi = mid
        }
    }
    let p = lo;
    // Around the value at precisions p and p - 1: the floor and the next.
    let mut cands: Vec<(Big, Big, u32)> = vec![]; // (t, t * 10^p, p)
    for pp in [Some(p), p.checked_sub(1)].into_iter().flatten() {
        let mut t = s.v.clone();
        t.div_pow10(pp);
        for _ in 0..2 {
            let mut x = t.clone();
            x.mul_pow10(pp);
            if !t.trimmed().is_empty() && s.inside(&x) {
                cands.push((t.clone(), x, pp));
            }
            t.add_one();
        }
    }
    assert!(!cands.is_empty());
    // Fewest significant digits, then nearest, then an even last digit.
    let key = |(t, _, pp): &(Big, Big, u32)| {
        let (mut t, mut j) = (t.to_u128(), *pp as i32 - s.d);
        while t % 10 == 0 {
            t /= 10;
            j += 1;
        }
        (t.to_string().len(), t, j)
    };
    let dist = |x: &Big| match x.cmp(&s.v) {
        Ordering::Less => s.v.sub(x),
        _ => x.sub(&s.v),
    };
    let fewest = cands.iter().map(|c| key(c).0).min().unwrap();
    let mut best: Vec<&(Big, Big, u32)> = cands.iter().filter(|c| key(c).0 == fewest).collect();
    best.sort_by(|a, b| dist(&a.1).cmp(&dist(&b.1)));
    best.dedup_by(|a, b| a.1.cmp(&b.1) == Ordering::Equal);
    let (_, t, j) = key(best[0]);
    let tie = best.len() > 1 && dist(&best[0].1).cmp(&dist(&best[1].1)) == Ordering::Equal;
    if tie {
        let (_, t2, j2) = key(best[1]);
        // Two nearest at one precision differ by one in the last digit.
        assert_eq!(j, j2, "{v:?}: a tie across precisions");
        let even = if t % 2 == 0 { t } else { t2 };
        assert!(even % 2 == 0);
        return (even, j, true);
    }
    (t, j, false)
}

/// SEMANTICS.md's layout of (-1)^neg * t * 10^j, written independently.
fn layout(neg: bool, t: u128, j: i32) -> String {
    let digits = t.to_string();
    let n = digits.len() as i32;
    let x = j + n - 1;
    let body = if !(-4..16).contains(&x) {
        let mant = if n == 1 {
            digits.clone()
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        format!("{mant}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
    } else if x < 0 {
        format!("0.{}{}", "0".repeat((-x - 1) as usize), digits)
    } else if j >= 0 {
        format!("{digits}{}", "0".repeat(j as usize))
    } else {
        let split = (x + 1) as usize;
        format!("{}.{}", &digits[..split], &digits[split..])
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

fn text_elem(d: Dtype, raw: u128) -> String {
    let mut out = [0u8; FORMAT_MAX];
    let n = format_elem(d, raw, &mut out);
    assert!(n < FORMAT_MAX);
    String::from_utf8(out[..n].to_vec()).unwrap()
}

fn text_f64(d: Dtype, x: f64) -> Result<String, PrintError> {
    let mut out = [0u8; FORMAT_MAX];
    let n = format_f64(d, x, &mut out)?;
    Ok(String::from_utf8(out[..n].to_vec()).unwrap())
}

/// Check one finite value against the reference; returns whether it tied.
fn check_float(d: Dtype, fmt: Format, bits: u64) -> bool {
    let text = text_elem(d, bits as u128);
    // Again: the formats of at most 16 bits now copy the remembered text.
    assert_eq!(text_elem(d, bits as u128), text);
    let neg = bits & fmt.sign_mask() != 0;
    let mag = bits & fmt.magnitude_mask();
    // Reads back as the same value.
    let back: f64 = text.parse().unwrap();
    assert_eq!(
        store_f64(fmt, back.to_bits()),
        bits,
        "{} {bits:#x} {text}",
        d.name()
    );
    if mag == 0 {
        assert_eq!(text, if neg { "-0" } else { "0" });
        return false;
    }
    let (t, j, tie) = reference(&val_of(fmt, mag));
    assert_eq!(text, layout(neg, t, j), "{} bits {bits:#x}", d.name());
    tie
}

fn exhaustive(code: i32) -> (u32, u32) {
    let d = dt(code);
    let fmt = d.float_format().unwrap();
    let (mut n, mut ties) = (0, 0);
    for bits in 0..1u64 << fmt.bits() {
        if fmt.is_nan(bits) {
            assert_eq!(text_elem(d, bits as u128), "nan");
        } else if fmt.is_infinite(bits) {
            let want = if bits & fmt.sign_mask() != 0 {
                "-inf"
            } else {
                "inf"
            };
            assert_eq!(text_elem(d, bits as u128), want);
        } else {
            ties += u32::from(check_float(d, fmt, bits));
            n += 1;
        }
    }
    (n, ties)
}

#[test]
fn every_float16() {
    let (n, ties) = exhaustive(2);
    assert_eq!(n, 63488);
    // 1,024 positive float16 values (and their negatives) lie exactly
    // halfway between their two nearest shortest decimals.
    assert_eq!(ties, 2 * 1024);
}

#[test]
fn every_bfloat16() {
    let (n, _) = exhaustive(3);
    // 254 NaNs and 2 infinities.
    assert_eq!(n, 65536 - 256);
}

#[test]
fn every_float8_and_float4() {
    assert_eq!(exhaustive(4).0, 254);
    assert_eq!(exhaustive(5).0, 256 - 8);
    assert_eq!(exhaustive(6).0, 16);
}

/// Powers of two and each binade's ends, in every float format.
fn binade_edges(fmt: Format) -> Vec<u64> {
    let f = fmt.fraction_bits;
    let mut v = vec![1, 2, 3, fmt.fraction_mask(), fmt.fraction_mask() + 1];
    for e in 1..=fmt.exponent_all_ones() {
        let top = e << f;
        v.extend([top, top + 1, top - 1]);
    }
    v.retain(|&b| b <= fmt.max_finite_bits());
    v
}

#[test]
fn float32_float64_against_reference() {
    let mut rng = Rng(0x9E3779B97F4A7C15);
    for (code, fmt, mask) in [(1, F32, 0xFFFF_FFFFu64), (0, F64, u64::MAX)] {
        let d = dt(code);
        let mut cases = binade_edges(fmt);
        cases.extend((0..20_000).map(|_| rng.next() & mask));
        for bits in cases {
            if fmt.is_nan(bits) || fmt.is_infinite(bits) {
                continue;
            }
            check_float(d, fmt, bits);
        }
    }
}

/// Values printed positionally (first digit's exponent in -4..16) with
/// every digit count: random significands scaled into that range.
#[test]
fn float32_float64_positional_against_reference() {
    let mut rng = Rng(0x2545F4914F6CDD1D);
    for _ in 0..20_000 {
        let r = rng.next();
        // A random significand, times 10^j for j in -5..16.
        let j = (r >> 59) as i32 % 21 - 5;
        let x = (1.0 + (r & ((1 << 52) - 1)) as f64 / (1u64 << 52) as f64) * 10f64.powi(j);
        let x = if r & 1 << 58 != 0 { -x } else { x };
        check_float(dt(0), F64, x.to_bits());
        check_float(dt(1), F32, (x as f32).to_bits() as u64);
        // Integers of every length up to 16 digits, which end in zeros.
        let n = (r >> 8) % 10u64.pow((r % 16) as u32 + 1);
        check_float(dt(0), F64, (n as f64).to_bits());
        check_float(dt(0), F64, (n as f64 * 1000.0).to_bits());
    }
}

/// The (c, q) and lower-closer flag of a positive finite float's bits.
fn parts(fmt: Format, mag: u64) -> (u64, i32, bool) {
    let f = fmt.fraction_bits;
    let (exp, frac) = ((mag >> f) as i32, mag & fmt.fraction_mask());
    if exp == 0 {
        (frac, fmt.emin() - f as i32, false)
    } else {
        (
            frac | 1 << f,
            exp - fmt.bias - f as i32,
            frac == 0 && exp > 1,
        )
    }
}

/// The one-product fast path against Schubfach's exact decision, which
/// the reference judges above: wherever `fast_settled` answers (normal
/// values that are not powers of two), the same placed decimal (digits and
/// the first one's exponent), and `fast` answers the same or leaves the
/// value (near a boundary). The values both leave to `exact` (decisions
/// within the error of a boundary that the numbers' form does not settle)
/// are counted, and those `fast` alone leaves.
fn fast_against_exact(fmt: Format, mags: impl Iterator<Item = u64>) -> (u64, u64) {
    let (mut n, mut refused, mut settled) = (0, 0, 0);
    for mag in mags {
        let (c, q, closer) = parts(fmt, mag);
        if mag >> fmt.fraction_bits == 0 || closer || c == 1 << fmt.fraction_bits {
            continue;
        }
        n += 1;
        let hot = fast(fmt, c, q);
        match fast_settled(fmt, c, q) {
            Some(d) => {
                assert_eq!(d, exact(c, q, false).placed(fmt), "{mag:#x}");
                assert!(hot.is_none() || hot == Some(d), "{mag:#x}");
                settled += u64::from(hot.is_none());
            }
            None => {
                assert!(hot.is_none(), "{mag:#x}");
                refused += 1;
            }
        }
    }
    eprintln!("{n} values: {settled} settled near a boundary, {refused} left to exact");
    (n, refused)
}

#[test]
fn fast_path_float64() {
    let mut rng = Rng(0xA0761D6478BD642F);
    let random = (0..2_000_000).map(|_| rng.next() & F64.magnitude_mask());
    let (n, refused) = fast_against_exact(F64, random.filter(|&m| m <= F64.max_finite_bits()));
    // Refused: only decisions within the error of a boundary that the
    // numbers' form does not settle (none expected among random values).
    assert!(n > 1_900_000 && refused < n / 100_000, "{n} {refused}");
    // Structured values: small integers and halves (exact ties nearby),
    // powers of ten and their neighbours, every binade's edges.
    let mut cases = binade_edges(F64);
    for i in 1..200_000u64 {
        cases.push((i as f64).to_bits());
        cases.push((i as f64 + 0.5).to_bits());
        cases.push((i as f64 / 1024.0).to_bits());
    }
    for j in -300..300 {
        let b = 10f64.powi(j).to_bits();
        cases.extend([b - 1, b, b + 1]);
    }
    let (n, refused) = fast_against_exact(F64, cases.into_iter());
    assert!(refused < n / 100_000, "{n} {refused}");
    // Bounds that are exactly integers (q >= 1, 5^k dividing 2c + 1 or
    // 2c - 1) and values exactly halfway between integers (q <= 0, c with
    // k - q - 1 trailing zero bits): the fast path decides them from the
    // numbers' form, each one against the exact decision.
    let mut cases = Vec::new();
    for q in -80i32..=90 {
        let k = (q as f64 * 2f64.log10()).floor() as i32;
        for _ in 0..500 {
            let r = rng.next();
            let c = if q >= 1 && k <= 23 {
                let five = 5u64.pow(k as u32);
                // An odd multiple of 5^k in 2c +- 1's range.
                let t = ((1u64 << 53) / five + r % ((1u64 << 53) / five).max(1)) | 1;
                let n = five * t;
                if r >> 63 == 0 {
                    (n - 1) / 2
                } else {
                    n.div_ceil(2)
                }
            } else if q <= 0 {
                // c with k - q - 1 trailing zeros makes c * 5^-k / 2^(k-q)
                // exactly a half.
                (r | 1) << (k - q - 1).clamp(0, 52)
            } else {
                r
            };
            let c = (c & ((1 << 52) - 1)) | 1 << 52;
            cases.push(((q + 1075) as u64) << 52 | (c & ((1 << 52) - 1)));
        }
    }
    let (n, refused) = fast_against_exact(F64, cases.into_iter());
    assert_eq!(refused, 0, "{n}");
}

/// Every float32 and every value of the narrow formats through both paths
/// (the narrow ones also against the reference, above); float32 in full
/// with `--ignored` (a minute or two), a stride of it here.
#[test]
fn fast_path_narrow_formats() {
    for fmt in [nx_dtype::format::F16, nx_dtype::format::BF16] {
        let (n, refused) = fast_against_exact(fmt, 1..fmt.max_finite_bits() + 1);
        assert!(refused < n / 100, "{n} {refused}");
    }
    let (n, refused) = fast_against_exact(F32, (1..=F32.max_finite_bits()).step_by(997));
    assert!(refused < n / 100, "{n} {refused}");
}

#[test]
#[ignore]
fn fast_path_every_float32() {
    let (n, refused) = fast_against_exact(F32, 1..=F32.max_finite_bits());
    assert_eq!(refused, 0, "{n}");
}

/// Digits and decimal exponent of a shortest text (std's `{:e}` layout or ours).
fn digits_of(text: &str) -> (String, i32) {
    let text = text.trim_start_matches('-');
    let (mant, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (text, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_string();
    // Exponent of the first significant digit.
    let x = exp + int.len() as i32 - 1 - lead as i32;
    (digits, x)
}

/// 10^7 random float64 and float32 values against Rust's own shortest
/// formatting (Grisu with a Dragon4 fallback: shortest, then nearest), fast
/// enough for that many. It breaks ties upwards, not to even: where it
/// disagrees, the exact reference decides, and it must be a tie.
#[test]
fn float32_float64_random_against_std() {
    let n: usize = std::env::var("NX_PRINT_RANDOM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let mut rng = Rng(0xD1B54A32D192ED03);
    let (f64d, f32d) = (dt(0), dt(1));
    let mut out = [0u8; FORMAT_MAX];
    let mut ties = 0;
    for _ in 0..n {
        let r = rng.next();
        let x = f64::from_bits(r);
        if x.is_finite() && x != 0.0 {
            let len = format_elem(f64d, r as u128, &mut out);
            let ours = std::str::from_utf8(&out[..len]).unwrap();
            if digits_of(ours) != digits_of(&format!("{x:e}")) {
                assert!(check_float(f64d, F64, r), "{x:e} {ours}");
                ties += 1;
            }
        }
        let y = f32::from_bits((r >> 32) as u32);
        if y.is_finite() && y != 0.0 {
            let len = format_elem(f32d, (r >> 32) as u128, &mut out);
            let ours = std::str::from_utf8(&out[..len]).unwrap();
            if digits_of(ours) != digits_of(&format!("{y:e}")) {
                assert!(check_float(f32d, F32, r >> 32), "{y:e} {ours}");
                ties += 1;
            }
        }
    }
    eprintln!("{n} random: {ties} ties where std rounds up, confirmed exactly");
}

#[test]
fn seed_examples() {
    let f = |code, x| text_f64(dt(code), x).unwrap();
    assert_eq!(f(1, 0.1f32 as f64), "0.1");
    assert_eq!(f(2, 65504.0), "65500");
    assert_eq!(f(4, 448.0), "450");
    assert_eq!(f(5, 57344.0), "60000");
    assert_eq!(f(2, 0.015625), "0.01563");
    assert_eq!(f(1, 1.59e29f32 as f64), "1.59e+29");
    assert_eq!(f(0, 1.59e29), "1.59e+29");
    assert_eq!(f(0, 1e16), "1e+16");
    assert_eq!(f(0, 1e-5), "1e-05");
    assert_eq!(f(0, 0.0001), "0.0001");
    let c64 = |re: f32, im: f32| (re.to_bits() as u128) | ((im.to_bits() as u128) << 32);
    assert_eq!(text_elem(dt(18), c64(0.5, -2.0)), "0.5-2i");
    assert_eq!(text_elem(dt(10), 0xFFFF_FFFF), "4294967295");
    // Specials and the complex sign rule (SEMANTICS.md).
    assert_eq!(f(0, 0.0), "0");
    assert_eq!(f(0, -0.0), "-0");
    assert_eq!(f(4, f64::NAN), "nan");
    assert_eq!(f(6, f64::INFINITY), "inf");
    assert_eq!(f(2, f64::NEG_INFINITY), "-inf");
    assert_eq!(text_elem(dt(18), c64(1.0, f32::INFINITY)), "1+infi");
    assert_eq!(text_elem(dt(18), c64(0.0, -0.0)), "0-0i");
    assert_eq!(text_elem(dt(18), c64(0.0, -f32::NAN)), "0+nani");
    assert_eq!(text_elem(dt(18), c64(f32::NAN, -1.5)), "nan-1.5i");
    let c128 = (1e300f64.to_bits() as u128) | ((-2.5e-300f64).to_bits() as u128) << 64;
    assert_eq!(text_elem(dt(17), c128), "1e+300-2.5e-300i");
    assert_eq!(text_elem(dt(19), 1), "true");
    assert_eq!(text_elem(dt(19), 0), "false");
    assert_eq!(text_elem(dt(20), 1), "true");
    assert_eq!(text_elem(dt(7), 1u128 << 63), "-9223372036854775808");
    assert_eq!(text_elem(dt(8), u64::MAX as u128), "18446744073709551615");
}

#[test]
fn errors() {
    assert_eq!(text_f64(dt(1), 0.1), Err(PrintError::NotValue));
    assert_eq!(text_f64(dt(4), 449.0), Err(PrintError::NotValue));
    assert_eq!(text_f64(dt(2), 1e-30), Err(PrintError::NotValue));
    for code in 7..=20 {
        assert_eq!(text_f64(dt(code), 1.0), Err(PrintError::Kind));
    }
}

#[test]
fn every_small_integer_and_boolean() {
    for code in 9..=16 {
        let d = dt(code);
        if d.bits() > 16 {
            continue;
        }
        let (lo, hi) = d.int_range().unwrap();
        for raw in 0..1u128 << d.bits() {
            let text = text_elem(d, raw);
            let n: i128 = text.parse().unwrap();
            assert!(lo <= n && n <= hi, "{} {raw}", d.name());
            // The number read back has the same bits, and the text is canonical.
            assert_eq!((n as u128) & ((1 << d.bits()) - 1), raw);
            assert_eq!(n.to_string(), text);
        }
    }
    for (code, raws) in [(19, 0..256u128), (20, 0..2)] {
        for raw in raws {
            let want = if raw != 0 { "true" } else { "false" };
            assert_eq!(text_elem(dt(code), raw), want);
        }
    }
}

#[test]
fn every_text_fits() {
    // The longest texts: complex128 with two 17-digit negative exponents.
    let x = f64::from_bits(0x8000_0000_0000_0001 | (0x0010_0000_0000_0000 - 2));
    let raw = (x.to_bits() as u128) | (x.to_bits() as u128) << 64;
    let t = text_elem(dt(17), raw);
    assert!(t.len() < FORMAT_MAX, "{t}");
    let y = -1.2345678901234567e-100f64;
    let raw = (y.to_bits() as u128) | (y.to_bits() as u128) << 64;
    assert!(text_elem(dt(17), raw).len() < FORMAT_MAX);
}

#[test]
fn pow10_table_is_exact() {
    assert_eq!(POW10.len() as i32, POW10_MAX - POW10_MIN + 1);
    for (i, &g) in POW10.iter().enumerate() {
        let j = POW10_MIN + i as i32;
        assert!(g >> 127 == 1);
        // 2^e is the scale: e = bit length of 10^j, less 128.
        let e = if j >= 0 {
            let mut p = Big::from(1);
            p.mul_pow10(j as u32);
            p.bit_len() as i32 - 128
        } else {
            let mut p = Big::from(1);
            p.mul_pow10((-j) as u32);
            -(p.bit_len() as i32) + 1 - 128
        };
        // (g - 1) * 2^e < 10^j <= g * 2^e.
        assert_eq!(cmp_dec_bin(1, j, g - 1, e), Ordering::Greater, "{j}");
        assert_ne!(cmp_dec_bin(1, j, g, e), Ordering::Greater, "{j}");
    }
}

/// Every float32 (4.3 * 10^9 values, minutes): `cargo test --release --test
/// print -- --ignored`. Against std, and the exact reference where they differ.
#[test]
#[ignore]
fn every_float32() {
    let f32d = dt(1);
    let mut out = [0u8; FORMAT_MAX];
    let mut ties = 0u64;
    for b in 0..=u32::MAX {
        let y = f32::from_bits(b);
        if !y.is_finite() || y == 0.0 {
            continue;
        }
        let len = format_elem(f32d, b as u128, &mut out);
        let ours = std::str::from_utf8(&out[..len]).unwrap();
        if digits_of(ours) != digits_of(&format!("{y:e}")) {
            assert!(check_float(f32d, F32, b as u64), "{y:e} {ours}");
            ties += 1;
        }
    }
    eprintln!("every float32: {ties} ties where std rounds up, confirmed exactly");
}

/// Threads racing to fill the remembered texts all print the same.
#[test]
fn remembered_texts_under_threads() {
    let d = dt(3);
    let texts: Vec<Vec<String>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|k| {
                s.spawn(move || {
                    (0..1u128 << 16)
                        .map(|i| text_elem(d, i ^ (k * 0x5555)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (k, t) in texts.iter().enumerate() {
        for (i, text) in t.iter().enumerate() {
            let j = i ^ (k * 0x5555);
            assert_eq!(text, &texts[0][j], "{j:#x}");
        }
    }
}

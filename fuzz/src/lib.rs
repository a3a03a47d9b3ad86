//! Shared pieces of the fuzz targets: the dtype table as the ABI spec states
//! it (written again here, not read from the library, so that a wrong table
//! row cannot agree with itself), an independent store reference, an input
//! reader, and buffers that end where an inaccessible page begins.
#![allow(clippy::missing_safety_doc)]

use std::cmp::Ordering;

/// Bits per element, by code (ABI.md "Codes").
pub const BITS: [u32; 21] = [
    64, 32, 16, 16, 8, 8, 4, 64, 64, 32, 32, 16, 16, 8, 8, 4, 4, 128, 64, 8, 1,
];
/// Kind by code: 0 float, 1 complex, 2 signed, 3 unsigned, 4 boolean.
pub const KIND: [i32; 21] = [
    0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 1, 1, 4, 4,
];

/// `ceil(n * bits / 8)`: nx_dtype_bytes computed independently.
pub fn bytes(dt: usize, n: i128) -> i128 {
    (n * i128::from(BITS[dt]) + 7) / 8
}

/// What happens past the largest finite value, and to NaN.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Special {
    /// IEEE: infinities and NaNs.
    Ieee,
    /// float8_e4m3fn: no infinity (saturate), one NaN per sign (S.1111.111).
    Fn,
    /// float4_e2m1fn: neither (saturate; NaN stores as +0).
    None,
}

#[derive(Clone, Copy, Debug)]
pub struct Fmt {
    pub ebits: u32,
    pub fbits: u32,
    pub special: Special,
}

/// The float format of a float code (0..=6), from the format names.
pub fn fmt(dt: usize) -> Option<Fmt> {
    let f = |ebits, fbits, special| {
        Some(Fmt {
            ebits,
            fbits,
            special,
        })
    };
    match dt {
        0 => f(11, 52, Special::Ieee),
        1 => f(8, 23, Special::Ieee),
        2 => f(5, 10, Special::Ieee),
        3 => f(8, 7, Special::Ieee),
        4 => f(4, 3, Special::Fn),
        5 => f(5, 2, Special::Ieee),
        6 => f(2, 1, Special::None),
        _ => None,
    }
}

/// 2^n exactly, for n in the f64 range including subnormals.
fn pow2(n: i32) -> f64 {
    if n >= -1022 {
        f64::from_bits(((n + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (n + 1074))
    }
}

impl Fmt {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    /// The largest encoding (sign clear) of a finite value.
    pub fn max_code(self) -> u64 {
        match self.special {
            Special::Ieee => (((1u64 << self.ebits) - 1) << self.fbits) - 1,
            Special::Fn => (1u64 << (self.ebits + self.fbits)) - 2,
            Special::None => (1u64 << (self.ebits + self.fbits)) - 1,
        }
    }
    /// The value of the non-negative encoding `k` read with the exponent
    /// unbounded above (so `max_code() + 1` is the next power-of-two step,
    /// which is where overflow rounds to). Exact in f64 for formats below
    /// float64.
    pub fn value(self, k: u64) -> f64 {
        let e = (k >> self.fbits) as i32;
        let f = k & ((1u64 << self.fbits) - 1);
        let scale = 1 - self.bias() - self.fbits as i32;
        if e == 0 {
            f as f64 * pow2(scale)
        } else {
            ((1u64 << self.fbits) + f) as f64 * pow2(e - 1 + scale)
        }
    }
    pub fn sign_bit(self) -> u64 {
        1u64 << (self.ebits + self.fbits)
    }
    /// The encoding of a NaN with the given sign and float64 payload bits
    /// (the 51 bits below float64's quiet bit), by SEMANTICS.md "NaN".
    pub fn nan(self, neg: bool, payload51: u64) -> u64 {
        let sign = if neg { self.sign_bit() } else { 0 };
        match self.special {
            Special::Ieee => {
                let exp = ((1u64 << self.ebits) - 1) << self.fbits;
                let quiet = 1u64 << (self.fbits - 1);
                sign | exp | quiet | (payload51 >> (51 - (self.fbits - 1)))
            }
            Special::Fn => sign | (self.sign_bit() - 1),
            Special::None => 0,
        }
    }
    /// Round a non-NaN magnitude to this format, nearest, ties to even,
    /// exponent unbounded above; `cmp(v)` orders the magnitude against the
    /// f64 `v` exactly, `inf` says the magnitude is infinite. Returns the
    /// encoding without sign. Not for float64 (its overflow midpoint is not
    /// an f64).
    pub fn round(self, inf: bool, cmp: impl Fn(f64) -> Ordering) -> u64 {
        let top = self.max_code() + 1;
        let k = if inf {
            top
        } else {
            // The largest k in 0..=top whose value is <= the magnitude.
            let (mut lo, mut hi) = (0u64, top + 1);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if cmp(self.value(mid)) != Ordering::Less {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if lo >= top || cmp(self.value(lo)) == Ordering::Equal {
                lo
            } else {
                let mid = (self.value(lo) + self.value(lo + 1)) / 2.0;
                match cmp(mid) {
                    Ordering::Less => lo,
                    Ordering::Greater => lo + 1,
                    Ordering::Equal => lo + (lo & 1),
                }
            }
        };
        match self.special {
            Special::Ieee => k.min(top),
            _ => k.min(top - 1),
        }
    }
}

/// Order the integer `x` against the f64 `v` exactly.
pub fn cmp_int_f64(x: i128, v: f64) -> Ordering {
    if v >= 2f64.powi(126) {
        return Ordering::Less;
    }
    if v <= -(2f64.powi(126)) {
        return Ordering::Greater;
    }
    let t = v.trunc();
    match x.cmp(&(t as i128)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(v - t)).unwrap_or(Ordering::Equal),
        o => o,
    }
}

/// Integer range of an integer code: (min, max).
pub fn int_range(dt: usize) -> (i128, i128) {
    let b = BITS[dt];
    if KIND[dt] == 2 {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    }
}

/// Element bits (low `BITS[dt]` bits of the result) of nx_store_f64(dt, x).
pub fn ref_store_f64(dt: usize, x: f64) -> u128 {
    match dt {
        0 => u128::from(if x.is_nan() {
            x.to_bits() | (1 << 51)
        } else {
            x.to_bits()
        }),
        1..=6 => {
            let f = fmt(dt).unwrap();
            let neg = x.is_sign_negative();
            if x.is_nan() {
                return u128::from(f.nan(neg, x.to_bits() & ((1 << 51) - 1)));
            }
            let a = x.abs();
            let k = f.round(a.is_infinite(), |v| a.partial_cmp(&v).unwrap());
            let sign = if neg { f.sign_bit() } else { 0 };
            let bits = u128::from(sign | k);
            if dt == 1 {
                // A second, unrelated reference: Rust's own f64 -> f32.
                assert_eq!(bits as u32, (x as f32).to_bits(), "f32 reference of {x:e}");
            }
            bits
        }
        7..=16 => {
            let (lo, hi) = int_range(dt);
            // `as` truncates toward zero, saturates, and maps NaN to 0.
            let v = (x as i128).clamp(lo, hi);
            (v as u128) & mask(dt)
        }
        17 => ref_store_f64(0, x),
        18 => ref_store_f64(1, x),
        19 | 20 => u128::from(x != 0.0 || x.is_nan()),
        _ => unreachable!(),
    }
}

/// Element bits of nx_store_i64 / nx_store_u64 (the exact integer x).
pub fn ref_store_int(dt: usize, x: i128) -> u128 {
    match dt {
        0 => u128::from(if x < 0 {
            (x as i64 as f64).to_bits()
        } else {
            (x as u64 as f64).to_bits()
        }),
        1 => u128::from(if x < 0 {
            (x as i64 as f32).to_bits()
        } else {
            (x as u64 as f32).to_bits()
        }),
        2..=6 => {
            let f = fmt(dt).unwrap();
            let a = x.abs();
            let k = f.round(false, |v| cmp_int_f64(a, v));
            u128::from(if x < 0 { f.sign_bit() | k } else { k })
        }
        7..=16 => {
            let (lo, hi) = int_range(dt);
            (x.clamp(lo, hi) as u128) & mask(dt)
        }
        17 => ref_store_int(0, x),
        18 => ref_store_int(1, x),
        19 | 20 => u128::from(x != 0),
        _ => unreachable!(),
    }
}

/// All-ones over the element's bits.
pub fn mask(dt: usize) -> u128 {
    if BITS[dt] == 128 {
        u128::MAX
    } else {
        (1u128 << BITS[dt]) - 1
    }
}

/// Element bits from the low bytes of a buffer (a sub-byte element in the
/// low bits of byte 0).
pub fn elem_bits(dt: usize, b: &[u8]) -> u128 {
    let mut v = 0u128;
    for (i, &x) in b.iter().enumerate().take(BITS[dt].div_ceil(8) as usize) {
        v |= u128::from(x) << (8 * i);
    }
    v & mask(dt)
}

/// A simple reader over the fuzzer's bytes: zeros once they run out.
pub struct Input<'a>(pub &'a [u8]);

impl Input<'_> {
    pub fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0, |a, i| a | (u64::from(self.u8()) << (8 * i)))
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }
    /// A dtype code: usually valid, sometimes anything.
    pub fn code(&mut self) -> i32 {
        match self.u8() {
            b @ 0..=209 => i32::from(b % 21),
            210..=239 => {
                [-1, 21, 22, i32::MIN, i32::MAX, 255, -21, 1 << 16][usize::from(self.u8() % 8)]
            }
            _ => self.u64() as i32,
        }
    }
    /// A count-like i64: small most of the time, edges otherwise.
    pub fn count(&mut self) -> i64 {
        match self.u8() {
            0..=199 => i64::from(self.u8() % 80),
            200..=219 => -i64::from(self.u8() % 8),
            220..=239 => {
                let e = [
                    i64::MAX,
                    i64::MIN,
                    i64::MAX / 2,
                    i64::MAX / 8,
                    i64::MAX / 16 + 1,
                    1 << 62,
                    1 << 32,
                    -(1 << 40),
                ];
                let d = i64::from(self.u8() % 3) - 1;
                e[usize::from(self.u8() % 8)].wrapping_add(d)
            }
            _ => self.u64() as i64,
        }
    }
}

/// A read-write buffer of `len` bytes whose next byte is on an inaccessible
/// page (`tail`), or whose previous byte is (`!tail`): a read or write one
/// byte outside faults. Freed on drop.
pub struct Guarded {
    map: *mut u8,
    map_len: usize,
    pub ptr: *mut u8,
    pub len: usize,
}

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

impl Guarded {
    pub fn new(len: usize, tail: bool) -> Guarded {
        let pg = page();
        let data = len.div_ceil(pg).max(1) * pg;
        let map_len = data + 2 * pg;
        // SAFETY: a fresh anonymous mapping; the two outer pages are then
        // made inaccessible, the data pages stay read-write.
        unsafe {
            let map = libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert!(map != libc::MAP_FAILED, "mmap");
            let map = map.cast::<u8>();
            assert_eq!(libc::mprotect(map.cast(), pg, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(map.add(pg + data).cast(), pg, libc::PROT_NONE),
                0
            );
            let ptr = if tail {
                map.add(pg + data - len)
            } else {
                map.add(pg)
            };
            Guarded {
                map,
                map_len,
                ptr,
                len,
            }
        }
    }
    pub fn slice(&self) -> &[u8] {
        // SAFETY: `len` read-write bytes at `ptr`, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    pub fn slice_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `slice`, exclusively borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

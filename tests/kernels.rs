//! Bulk conversion kernels: the scalar reference (`value::convert`) against
//! an exact reference written here (integer arithmetic on sign, significand
//! and exponent, sharing no code with `store.rs`), then every kernel level
//! against the scalar reference, bit for bit, through the driver (lengths,
//! offsets, strides, neighbours), and every status of the C functions.

use nx_dtype::ffi::*;
use nx_dtype::format::{Format, Specials};
use nx_dtype::kernels::{self, Isa, Kernel, Side};
use nx_dtype::table::{Class, Dtype};
use nx_dtype::value::convert;
use std::ffi::c_void;

mod common;
use common::{dt, Rng};

// ---------------------------------------------------------------- helpers

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Element at bit `bit` of `buf` (written independently of `pack.rs`).
fn get(buf: &[u8], bit: usize, bits: u32) -> u128 {
    let mut v = 0u128;
    for k in 0..bits as usize {
        let b = bit + k;
        v |= u128::from((buf[b / 8] >> (b % 8)) & 1) << k;
    }
    v
}

fn put(buf: &mut [u8], bit: usize, bits: u32, v: u128) {
    for k in 0..bits as usize {
        let b = bit + k;
        let x = ((v >> k) & 1) as u8;
        buf[b / 8] = (buf[b / 8] & !(1 << (b % 8))) | (x << (b % 8));
    }
}

fn pack_all(d: Dtype, vals: &[u128]) -> Vec<u8> {
    let bits = d.bits();
    let mut buf = vec![0u8; (vals.len() * bits as usize).div_ceil(8)];
    for (i, &v) in vals.iter().enumerate() {
        put(&mut buf, i * bits as usize, bits, v);
    }
    buf
}

/// Convert through the driver at level `isa` (the C functions' checks are
/// tested separately): returns the status.
#[allow(clippy::too_many_arguments)]
fn conv(
    isa: Isa,
    s: Dtype,
    src: &[u8],
    so: i64,
    ss: i64,
    d: Dtype,
    dst: &mut [u8],
    doff: i64,
    ds: i64,
    n: i64,
) -> i32 {
    let side = |dt, offset, stride| Side { dt, offset, stride };
    match kernels::plan(side(s, so, ss), side(d, doff, ds), n) {
        Err(e) => e,
        Ok(None) => NX_OK,
        Ok(Some((sp, dp))) => kernels::run(
            isa,
            &sp,
            &dp,
            &src[sp.lo..sp.lo + sp.len],
            &mut dst[dp.lo..dp.lo + dp.len],
            n as usize,
        ),
    }
}

// ------------------------------------------------- the exact reference

/// A number, exactly: (-1)^neg * m * 2^e, an infinity, or a NaN whose
/// payload (the bits below the quiet bit) is left-aligned in 51 bits.
#[derive(Clone, Copy, Debug)]
enum Num {
    Fin { neg: bool, m: u128, e: i32 },
    Inf(bool),
    Nan(bool, u64),
}

fn float_num(f: Format, bits: u64) -> Num {
    let fb = f.fraction_bits;
    let eb = f.exponent_bits;
    let neg = bits >> (fb + eb) & 1 == 1;
    let exp = (bits >> fb) & ((1 << eb) - 1);
    let frac = bits & ((1 << fb) - 1);
    let top = exp == (1 << eb) - 1;
    match f.specials {
        Specials::Ieee if top && frac == 0 => return Num::Inf(neg),
        Specials::Ieee if top => {
            let payload = frac & ((1 << (fb - 1)) - 1);
            return Num::Nan(neg, payload << (51 - (fb - 1)));
        }
        Specials::FnNan if top && frac == (1 << fb) - 1 => return Num::Nan(neg, 0),
        _ => {}
    }
    let bias = (1i32 << (eb - 1)) - 1;
    if exp == 0 {
        Num::Fin {
            neg,
            m: frac.into(),
            e: 1 - bias - fb as i32,
        }
    } else {
        Num::Fin {
            neg,
            m: (frac | 1 << fb).into(),
            e: exp as i32 - bias - fb as i32,
        }
    }
}

/// Round `x` into `f` once, nearest, ties to even, exponent unbounded above.
fn float_of_num(f: Format, x: Num) -> u64 {
    let fb = f.fraction_bits;
    let eb = f.exponent_bits;
    let bias = (1i32 << (eb - 1)) - 1;
    let sign = |neg: bool| if neg { 1u64 << (fb + eb) } else { 0 };
    let top: u64 = ((1 << eb) - 1) << fb;
    let max = match f.specials {
        Specials::Ieee => top - 1,
        Specials::FnNan => top | ((1 << fb) - 2),
        Specials::Finite => top | ((1 << fb) - 1),
    };
    let over = |neg| {
        sign(neg)
            | if f.specials == Specials::Ieee {
                top
            } else {
                max
            }
    };
    match x {
        Num::Nan(neg, p) => match f.specials {
            Specials::Ieee => sign(neg) | top | 1 << (fb - 1) | (p >> (51 - (fb - 1))),
            Specials::FnNan => sign(neg) | top | ((1 << fb) - 1),
            Specials::Finite => 0,
        },
        Num::Inf(neg) => over(neg),
        Num::Fin { neg, m: 0, .. } => sign(neg),
        Num::Fin { neg, m, e } => {
            let lead = 127 - m.leading_zeros() as i32 + e; // exponent of m's top bit
            let emin = 1 - bias;
            if lead > 4 * bias + 64 {
                return over(neg);
            }
            let q = lead.max(emin) - fb as i32; // the quantum's exponent
            let mut n: u128 = if e >= q {
                m << (e - q)
            } else {
                let s = (q - e) as u32;
                if s > 128 {
                    0
                } else {
                    let kept = if s == 128 { 0 } else { m >> s };
                    let rem = if s == 128 { m } else { m & ((1 << s) - 1) };
                    let half = 1u128 << (s - 1);
                    if rem > half || (rem == half && kept & 1 == 1) {
                        kept + 1
                    } else {
                        kept
                    }
                }
            };
            let mut q = q;
            if n >> (fb + 1) != 0 {
                n >>= 1;
                q += 1;
            }
            let bits = if n >> fb == 0 {
                n as u64
            } else {
                (((q + fb as i32 - emin + 1) as u64) << fb) | (n as u64 & ((1 << fb) - 1))
            };
            if bits > max {
                over(neg)
            } else {
                sign(neg) | bits
            }
        }
    }
}

fn int_of_num(x: Num, lo: i128, hi: i128) -> i128 {
    match x {
        Num::Nan(..) => 0,
        Num::Inf(neg) => {
            if neg {
                lo
            } else {
                hi
            }
        }
        Num::Fin { neg, m, e } => {
            let t: i128 = if e >= 0 {
                if e > 64 || (m << e) >> 100 != 0 {
                    i128::MAX
                } else {
                    (m << e) as i128
                }
            } else if -e >= 128 {
                0
            } else {
                (m >> -e) as i128
            };
            (if neg { -t } else { t }).clamp(lo, hi)
        }
    }
}

fn nonzero(x: Num) -> bool {
    !matches!(x, Num::Fin { m: 0, .. })
}

/// The components of element `raw` of `d` as numbers (one, or two for
/// complex); integers and booleans exactly.
fn nums(d: Dtype, raw: u128) -> (Num, Num) {
    let zero = Num::Fin {
        neg: false,
        m: 0,
        e: 0,
    };
    let int = |v: i128| Num::Fin {
        neg: v < 0,
        m: v.unsigned_abs(),
        e: 0,
    };
    match d.class() {
        Class::Float(f) => (float_num(f, raw as u64), zero),
        Class::Complex(f) => (
            float_num(f, (raw & mask(f.bits())) as u64),
            float_num(f, (raw >> f.bits()) as u64),
        ),
        Class::Signed => {
            let sh = 128 - d.bits();
            (int(((raw << sh) as i128) >> sh), zero)
        }
        Class::Unsigned => (int(raw as i128), zero),
        Class::Bool | Class::Bit => (int(i128::from(raw != 0)), zero),
    }
}

/// What converting element `raw` of `s` to `d` must give (SEMANTICS.md).
fn expect(s: Dtype, d: Dtype, raw: u128) -> u128 {
    let raw = raw & mask(s.bits());
    if s == d {
        return raw;
    }
    let (re, im) = nums(s, raw);
    let complex_src = matches!(s.class(), Class::Complex(_));
    match d.class() {
        Class::Float(f) => float_of_num(f, re).into(),
        Class::Complex(f) => {
            u128::from(float_of_num(f, re)) | u128::from(float_of_num(f, im)) << f.bits()
        }
        Class::Signed | Class::Unsigned => {
            let (lo, hi) = d.int_range().expect("int");
            (int_of_num(re, lo, hi) as u128) & mask(d.bits())
        }
        Class::Bool | Class::Bit => u128::from(nonzero(re) || (complex_src && nonzero(im))),
    }
}

// ------------------------------------------------------ test vectors

/// float64 values at every boundary of destination `d`: each value of its
/// format (float32: a sample and the extremes) and each midpoint between
/// neighbours, past the largest finite too; integer range ends; with their
/// float64 neighbours and both signs.
fn boundaries(d: Dtype, rng: &mut Rng) -> Vec<f64> {
    let mut v: Vec<f64> = vec![
        0.0,
        f64::INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        1.0,
        0.5,
    ];
    match d.component_format() {
        Some(f) if f.bits() <= 16 => {
            let vals = values_and_one_past(f);
            for w in vals.windows(2) {
                v.push(w[0]);
                v.push((w[0] + w[1]) / 2.0); // exact: both are narrow floats
            }
            v.push(vals[vals.len() - 1]);
        }
        Some(f) if f.bits() == 32 => {
            let mut bs = vec![
                0x0000_0001u32,
                0x007F_FFFF,
                0x0080_0000,
                0x7F7F_FFFF,
                0x3F80_0000,
                0x3380_0000,
            ];
            bs.extend((0..20_000).map(|_| rng.next() as u32 & 0x7F7F_FFFF));
            for b in bs {
                let x = f64::from(f32::from_bits(b));
                let up = f64::from(f32::from_bits(b + 1));
                v.push(x);
                v.push((x + up) / 2.0);
            }
        }
        _ => {}
    }
    if let Some((lo, hi)) = d.int_range() {
        for x in [lo, hi] {
            for k in -2..=2 {
                v.push((x + k) as f64);
                v.push((x + k) as f64 + 0.5);
            }
        }
    }
    let mut out = Vec::new();
    for x in v {
        for y in [x, -x] {
            out.push(y);
            out.push(f64::from_bits(y.to_bits().wrapping_add(1)));
            out.push(f64::from_bits(y.to_bits().wrapping_sub(1)));
        }
    }
    out.retain(|x| !x.is_nan());
    out
}

/// Source elements to test `s -> d` with: every bit pattern up to 16 bits;
/// else `d`'s boundaries (as `s` holds them, with neighbours), NaNs with
/// payloads, and random patterns.
fn sources(s: Dtype, d: Dtype, random: usize) -> Vec<u128> {
    let bits = s.bits();
    if bits <= 16 {
        return (0..1u128 << bits).collect();
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(bits) ^ (d.code() as u64) << 32);
    let mut out = Vec::new();
    let nans = [
        0x7FF8_0000_0000_0000u64,
        0x7FF0_0000_0000_0001,
        0x7FF4_0000_0000_0000,
        0xFFFA_AAAA_AAAA_AAAA,
    ];
    for x in boundaries(d, &mut rng) {
        match s.class() {
            Class::Float(f) | Class::Complex(f) if f.bits() == 64 => {
                out.push(u128::from(x.to_bits()))
            }
            Class::Float(_) | Class::Complex(_) => {
                let b = (x as f32).to_bits();
                for y in [b, b.wrapping_add(1), b.wrapping_sub(1)] {
                    out.push(u128::from(y));
                }
            }
            Class::Signed | Class::Unsigned => {
                let (lo, hi) = s.int_range().expect("int");
                let t = x.trunc();
                if t.abs() < 1.8e38 {
                    for k in -1..=1 {
                        out.push(((t as i128 + k).clamp(lo, hi) as u128) & mask(bits));
                    }
                }
            }
            _ => {}
        }
    }
    for n in nans {
        out.push(match s.component_format() {
            Some(f) if f.bits() == 32 => u128::from(((n >> 32) as u32) | 1 << 21),
            _ => u128::from(n),
        });
    }
    for _ in 0..random {
        out.push((u128::from(rng.next()) << 64 | u128::from(rng.next())) & mask(bits));
    }
    if let Class::Complex(f) = s.class() {
        // Both parts from the list: shuffle pairs.
        let h = f.bits();
        let n = out.len();
        for i in 0..n {
            let j = rng.below(n as u64) as usize;
            out[i] = (out[i] & mask(h)) | (out[j] & mask(h)) << h;
        }
    }
    out
}

fn levels() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|i| i.supported()).collect()
}

fn hex(v: u128) -> String {
    format!("{v:#x}")
}

// ------------------------------------------------------------- tests

#[test]
fn exact_reference_agrees_with_known_values() {
    // A few answers worked by hand, so the reference itself can fail.
    let f32_ = dt(NX_FLOAT32);
    assert_eq!(
        expect(dt(NX_FLOAT64), f32_, 0x3FB9_9999_9999_999A),
        0x3DCC_CCCD
    ); // 0.1
    assert_eq!(expect(f32_, dt(NX_FLOAT16), 0x477F_EFFF), 0x7BFF); // just below 65520 -> 65504
    assert_eq!(expect(f32_, dt(NX_FLOAT16), 0x477F_F000), 0x7C00); // 65520 -> inf
    assert_eq!(expect(f32_, dt(NX_FLOAT8_E4M3FN), 0x43E8_0000), 0x7E); // 464 -> 448
    assert_eq!(expect(f32_, dt(NX_FLOAT8_E4M3FN), 0x7F80_0000), 0x7E); // inf saturates
    assert_eq!(expect(f32_, dt(NX_FLOAT4_E2M1FN), 0x40E0_0000), 0x7); // 7 -> 6
    assert_eq!(expect(f32_, dt(NX_FLOAT4_E2M1FN), 0x3E80_0000), 0x0); // 0.25 -> 0 (tie, even)
    assert_eq!(expect(f32_, dt(NX_FLOAT4_E2M1FN), 0xFFC0_0000), 0x0); // NaN -> +0
    assert_eq!(expect(f32_, dt(NX_INT8), 0xC3000000 + 0x10000), 0x80); // -128.5 -> -128
    assert_eq!(
        expect(dt(NX_UINT32), dt(NX_INT32), 0xFFFF_FFFF),
        0x7FFF_FFFF
    );
    assert_eq!(expect(dt(NX_INT8), dt(NX_UINT8), 0xFB), 0);
    // float64 -> float16 must not round twice through float32:
    // 1 + 2^-11 + 2^-40 is above the float16 midpoint, float32 would drop it.
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(
        expect(dt(NX_FLOAT64), dt(NX_FLOAT16), x.to_bits().into()),
        0x3C01
    );
    assert_eq!(
        convert(dt(NX_FLOAT64), dt(NX_FLOAT16), x.to_bits().into()),
        0x3C01
    );
    // A signalling float16 NaN widens to the quiet NaN keeping its payload.
    assert_eq!(
        expect(dt(NX_FLOAT16), f32_, 0x7D01),
        0x7FA0_2000 | 0x40_0000
    );
}

#[test]
fn scalar_reference_is_exact() {
    let mut checked = 0u64;
    for s in Dtype::all() {
        for d in Dtype::all() {
            for &raw in &sources(s, d, 20_000) {
                let (got, want) = (convert(s, d, raw), expect(s, d, raw));
                assert_eq!(got, want, "{} -> {}: {}", s.name(), d.name(), hex(raw));
                checked += 1;
            }
        }
    }
    assert!(checked > 5_000_000, "{checked}");
}

/// Contiguous conversion of every pair at every level, against the scalar
/// reference element by element.
#[test]
fn every_level_matches_scalar_reference() {
    for s in Dtype::all() {
        for d in Dtype::all() {
            let mut vals = sources(s, d, 100_000);
            if s.bits() <= 16 {
                // Every pattern again, shuffled: in order, neighbours
                // mostly share a result, which hides misplaced elements.
                let mut rng = Rng(u64::from(s.bits()) << 8 ^ d.code() as u64);
                let mut more = vals.clone();
                for i in (1..more.len()).rev() {
                    more.swap(i, rng.below(i as u64 + 1) as usize);
                }
                vals.extend(more);
            }
            let src = pack_all(s, &vals);
            let want: Vec<u128> = vals.iter().map(|&r| convert(s, d, r)).collect();
            let want = pack_all(d, &want);
            for isa in levels() {
                let mut got = vec![0u8; want.len()];
                let n = vals.len() as i64;
                assert_eq!(conv(isa, s, &src, 0, 1, d, &mut got, 0, 1, n), NX_OK);
                if got != want {
                    let bits = d.bits() as usize;
                    let i = (0..vals.len())
                        .find(|&i| get(&got, i * bits, d.bits()) != get(&want, i * bits, d.bits()))
                        .unwrap_or(0);
                    panic!(
                        "{:?} {} -> {}: source {} gives {}, want {}",
                        isa,
                        s.name(),
                        d.name(),
                        hex(vals[i]),
                        hex(get(&got, i * bits, d.bits())),
                        hex(get(&want, i * bits, d.bits()))
                    );
                }
            }
        }
    }
}

/// The finite non-negative values of a format of at most 16 bits, in
/// order, and one step past the largest.
fn values_and_one_past(f: Format) -> Vec<f64> {
    let mut vals: Vec<f64> = (0..1u64 << (f.bits() - 1))
        .filter_map(|b| match float_num(f, b) {
            Num::Fin { m, e, .. } => Some(m as f64 * 2f64.powi(e)),
            _ => None,
        })
        .collect();
    vals.sort_by(f64::total_cmp);
    let top = vals[vals.len() - 1];
    vals.push(top + (top - vals[vals.len() - 2]));
    vals
}

/// float32 and float64 into the float8 and float4 formats (which the AVX-512
/// kernels round through float16, made odd where a tested source bit is set):
/// every value and midpoint of the format, past the largest finite too, and
/// its least subnormal halved down through the float16 subnormal binades,
/// each with one source fraction bit at every position added, removed or
/// flipped, both signs, at every level equal to the scalar reference.
#[test]
fn narrow_floats_every_midpoint_and_dropped_bit() {
    for d in [NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN] {
        let d = dt(d);
        let f = d.component_format().expect("float");
        let vals = values_and_one_past(f);
        let mut xs: Vec<f64> = vals
            .windows(2)
            .flat_map(|w| [w[0], (w[0] + w[1]) / 2.0])
            .collect();
        xs.push(vals[vals.len() - 1]); // past the largest finite
        let least = vals[1];
        for k in 1..20 {
            xs.extend([least * 2f64.powi(-k), 1.5 * least * 2f64.powi(-k)]);
        }
        for s in [NX_FLOAT32, NX_FLOAT64] {
            let s = dt(s);
            let fraction = if s.bits() == 64 { 52 } else { 23 };
            let mut raw: Vec<u128> = Vec::new();
            for x in xs.iter().flat_map(|&x| [x, -x]) {
                let b = if s.bits() == 64 {
                    x.to_bits()
                } else {
                    u64::from((x as f32).to_bits())
                };
                raw.push(b.into());
                for j in 0..fraction {
                    for y in [b ^ 1 << j, b.wrapping_add(1 << j), b.wrapping_sub(1 << j)] {
                        raw.push(u128::from(y) & mask(s.bits()));
                    }
                }
            }
            let src = pack_all(s, &raw);
            let want = pack_all(
                d,
                &raw.iter().map(|&r| convert(s, d, r)).collect::<Vec<_>>(),
            );
            for isa in levels() {
                let mut got = vec![0u8; want.len()];
                let n = raw.len() as i64;
                assert_eq!(conv(isa, s, &src, 0, 1, d, &mut got, 0, 1, n), NX_OK);
                let bits = d.bits() as usize;
                if let Some(i) = (0..raw.len())
                    .find(|&i| get(&got, i * bits, d.bits()) != get(&want, i * bits, d.bits()))
                {
                    panic!(
                        "{isa:?} {} -> {}: source {} gives {}, want {}",
                        s.name(),
                        d.name(),
                        hex(raw[i]),
                        hex(get(&got, i * bits, d.bits())),
                        hex(get(&want, i * bits, d.bits()))
                    );
                }
            }
        }
    }
}

/// One strided call against the element-by-element reference on the same
/// random destination bytes: the written elements match, the rest is
/// untouched.
#[allow(clippy::too_many_arguments)]
fn check_layout(
    isa: Isa,
    s: Dtype,
    d: Dtype,
    n: usize,
    so: i64,
    ss: i64,
    doff: i64,
    ds: i64,
    rng: &mut Rng,
) {
    let (sb, db) = (s.bits() as usize, d.bits() as usize);
    let s_elems = (so + ss.max(0) * n as i64 + 1) as usize;
    let d_elems = (doff + ds * n as i64 + 1) as usize;
    let src: Vec<u8> = (0..(s_elems * sb).div_ceil(8) + 1)
        .map(|_| rng.next() as u8)
        .collect();
    let dst0: Vec<u8> = (0..(d_elems * db).div_ceil(8) + 1)
        .map(|_| rng.next() as u8)
        .collect();
    let mut want = dst0.clone();
    for i in 0..n {
        let si = (so + i as i64 * ss) as usize;
        let di = (doff + i as i64 * ds) as usize;
        put(
            &mut want,
            di * db,
            d.bits(),
            convert(s, d, get(&src, si * sb, s.bits())),
        );
    }
    let mut got = dst0.clone();
    assert_eq!(
        conv(isa, s, &src, so, ss, d, &mut got, doff, ds, n as i64),
        NX_OK
    );
    assert!(
        got == want,
        "{isa:?} {} -> {}: n {n} src {so}+{ss}i dst {doff}+{ds}i",
        s.name(),
        d.name()
    );
}

/// The pairs users move in bulk (and that have SIMD kernels).
const MAIN: [(i32, i32); 24] = [
    (NX_FLOAT32, NX_FLOAT16),
    (NX_FLOAT16, NX_FLOAT32),
    (NX_FLOAT32, NX_BFLOAT16),
    (NX_BFLOAT16, NX_FLOAT32),
    (NX_FLOAT32, NX_FLOAT8_E4M3FN),
    (NX_FLOAT8_E4M3FN, NX_FLOAT32),
    (NX_FLOAT32, NX_FLOAT8_E5M2),
    (NX_FLOAT8_E5M2, NX_FLOAT32),
    (NX_FLOAT32, NX_FLOAT4_E2M1FN),
    (NX_FLOAT4_E2M1FN, NX_FLOAT32),
    (NX_FLOAT64, NX_FLOAT32),
    (NX_FLOAT32, NX_FLOAT64),
    (NX_FLOAT64, NX_FLOAT16),
    (NX_FLOAT64, NX_BFLOAT16),
    (NX_FLOAT64, NX_FLOAT8_E4M3FN),
    (NX_FLOAT64, NX_FLOAT4_E2M1FN),
    (NX_FLOAT16, NX_FLOAT8_E5M2),
    (NX_FLOAT8_E4M3FN, NX_BFLOAT16),
    (NX_INT8, NX_FLOAT32),
    (NX_FLOAT32, NX_UINT8),
    (NX_INT4, NX_BFLOAT16),
    (NX_FLOAT16, NX_UINT4),
    (NX_FLOAT4_E2M1FN, NX_FLOAT4_E2M1FN),
    (NX_BIT, NX_FLOAT4_E2M1FN),
];

#[test]
fn layouts_main_pairs() {
    let mut rng = Rng(7);
    for isa in levels() {
        for (s, d) in MAIN {
            let (s, d) = (dt(s), dt(d));
            for n in (0..=130).chain([1000, 4099]) {
                for so in 0..8 {
                    for doff in [0, so, 7 - so, (so + 1) % 8] {
                        check_layout(isa, s, d, n, so, 1, doff, 1, &mut rng);
                    }
                }
            }
            for n in [0, 1, 2, 5, 8, 17, 64, 65, 130, 300] {
                for ss in [1, 2, 3, 4, -1, -2, -3, -4, 0] {
                    for ds in 1..=4 {
                        let so = if ss < 0 {
                            -ss * n as i64 + rng.below(3) as i64
                        } else {
                            rng.below(9) as i64
                        };
                        check_layout(isa, s, d, n, so, ss, rng.below(9) as i64, ds, &mut rng);
                    }
                }
            }
        }
    }
}

#[test]
fn layouts_every_pair() {
    let mut rng = Rng(11);
    for isa in levels() {
        for s in Dtype::all() {
            for d in Dtype::all() {
                // Every length up to two bytes of bits, so that a sub-byte
                // side ends at every bit of its last byte.
                for n in (0..=17).chain([63, 64, 65, 130]) {
                    for so in 0..8 {
                        check_layout(isa, s, d, n, so, 1, rng.below(8) as i64, 1, &mut rng);
                    }
                    for (ss, ds) in [(2, 1), (-1, 1), (0, 3), (3, 2), (-2, 4)] {
                        let so = if ss < 0 { -ss * n as i64 + 1 } else { 1 };
                        check_layout(isa, s, d, n, so, ss, 2, ds, &mut rng);
                    }
                }
            }
        }
    }
}

/// Strided calls whose wider side spans `BIG_CALL` bytes and more (the
/// large blocks, many of them), every pair at every level, source strides
/// 2, -1, 3 and -4 and destination strides 1 to 4.
#[test]
fn layouts_big_strided_every_pair() {
    let mut rng = Rng(19);
    for isa in levels() {
        for s in Dtype::all() {
            for d in Dtype::all() {
                let n = kernels::BIG_CALL * 8 / s.bits().max(d.bits()) as usize + 37;
                for (ss, ds) in [(2, 1), (-1, 1), (1, 2), (3, 3), (-4, 4)] {
                    let so = if ss < 0 { -ss * n as i64 + 1 } else { 3 };
                    check_layout(isa, s, d, n, so, ss, 1, ds, &mut rng);
                }
            }
        }
    }
}

/// Contiguous bodies long enough to get an aligning head (`ALIGN_MIN`
/// elements, or `ALIGN_DST_BYTES` of destination, and more), from many
/// element offsets: the head stays within the body.
#[test]
fn aligning_heads_every_pair() {
    let mut rng = Rng(13);
    for isa in levels() {
        for s in Dtype::all() {
            for d in Dtype::all() {
                // The least body that the destination's bound gives a head,
                // where it is less than `ALIGN_MIN`.
                let by_dst = kernels::ALIGN_DST_BYTES * 8 / d.bits() as usize;
                let least = (by_dst < kernels::ALIGN_MIN).then_some(by_dst);
                for n in [kernels::ALIGN_MIN].into_iter().chain(least) {
                    for (so, doff) in [(0, 0), (3, 0), (0, 5), (9, 1), (64, 63)] {
                        check_layout(isa, s, d, n + 37, so, 1, doff, 1, &mut rng);
                    }
                }
            }
        }
    }
}

/// Source and destination ending at each distance 0..=64 bytes before a
/// 4 KiB page boundary (with accessible pages beyond), so that a kernel's
/// last partial vector lies within one page or reaches into the next:
/// AVX-512 moves it under a byte mask in the first case and by a copy in
/// the second. Every pair at every level, against the scalar reference,
/// bytes past the end untouched.
#[test]
fn tails_beside_page_boundaries() {
    let mut rng = Rng(17);
    let src: Vec<u8> = (0..3 * 4096).map(|_| rng.next() as u8).collect();
    let mut dst = vec![0u8; 3 * 4096];
    // The first page boundary at least 2 KiB in (a call here spans at most
    // 70 complex128, 1120 bytes).
    let edge = |p: *const u8| (p as usize + 2048).next_multiple_of(4096) - p as usize;
    let (se, de) = (edge(src.as_ptr()), edge(dst.as_ptr()));
    for isa in levels() {
        for s in Dtype::all() {
            for d in Dtype::all() {
                for n in [1, 5, 31, 33, 70] {
                    let sl = (n * s.bits() as usize).div_ceil(8);
                    let dl = (n * d.bits() as usize).div_ceil(8);
                    for gap in (0..=64).step_by(3) {
                        let (s0, d0) = (se - gap - sl, de - (64 - gap) - dl);
                        // The destination and 16 bytes either side.
                        let w = d0 - 16..d0 + dl + 16;
                        for b in &mut dst[w.clone()] {
                            *b = rng.next() as u8;
                        }
                        let mut want = dst[w.clone()].to_vec();
                        for i in 0..n {
                            let raw = get(&src[s0..], i * s.bits() as usize, s.bits());
                            put(
                                &mut want[16..],
                                i * d.bits() as usize,
                                d.bits(),
                                convert(s, d, raw),
                            );
                        }
                        let (from, to) = (&src[s0..s0 + sl], &mut dst[d0..d0 + dl]);
                        assert_eq!(conv(isa, s, from, 0, 1, d, to, 0, 1, n as i64), NX_OK);
                        assert!(
                            dst[w] == want[..],
                            "{isa:?} {} -> {} n {n} gap {gap}",
                            s.name(),
                            d.name()
                        );
                    }
                }
            }
        }
    }
}

/// Every level has SIMD kernels for the pairs the performance targets list
/// (bench/targets.py).
#[test]
fn simd_kernels_cover_the_listed_pairs() {
    for isa in levels().into_iter().filter(|&i| i != Isa::Scalar) {
        for (s, d) in MAIN.iter().take(22) {
            assert!(Kernel::is_simd(isa, dt(*s), dt(*d)), "{isa:?} {s} -> {d}");
        }
        let f = [NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16];
        for i in [NX_INT8, NX_UINT8, NX_INT4, NX_UINT4] {
            for x in f {
                assert!(Kernel::is_simd(isa, dt(i), dt(x)) && Kernel::is_simd(isa, dt(x), dt(i)));
            }
        }
        for x in [NX_FLOAT16, NX_BFLOAT16] {
            for e in [NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2] {
                assert!(Kernel::is_simd(isa, dt(x), dt(e)) && Kernel::is_simd(isa, dt(e), dt(x)));
            }
        }
    }
}

/// Every SIMD level has a kernel for every pair of two dtypes: none is left
/// to the scalar reference, 10-50 times slower where it must go through
/// i128 (the 64-bit integers at AVX2 were, before `native.rs`).
#[test]
fn simd_levels_cover_every_pair() {
    for isa in levels().into_iter().filter(|&i| i != Isa::Scalar) {
        for s in Dtype::all() {
            for d in Dtype::all().filter(|&d| d != s) {
                assert!(
                    Kernel::is_simd(isa, s, d),
                    "{isa:?} {} -> {}",
                    s.name(),
                    d.name()
                );
            }
        }
    }
}

/// `docs/kernels.txt` holds what the dispatch rules give every pair at
/// every level of this architecture (`nxdtype kernels`), so that a review
/// shows in a diff which pairs a change of the rules moves. Regenerate it
/// with `make kernels-table`.
#[test]
fn kernels_table_is_documented() {
    let Some(listing) = kernels::listing(None) else {
        return;
    };
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/kernels.txt"))
        .expect("docs/kernels.txt");
    let arch = std::env::consts::ARCH;
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with(arch))
        .unwrap_or_else(|| panic!("docs/kernels.txt has no section for {arch}"));
    let body = section.split_once("\n\n").map_or("", |(_, b)| b);
    if body.trim_end() != listing.trim_end() {
        let first = body
            .lines()
            .zip(listing.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("\n  documented: {a}\n  resolved:   {b}"))
            .unwrap_or_default();
        panic!("docs/kernels.txt differs from the dispatch rules (make kernels-table){first}");
    }
}

// ------------------------------------------------------------ statuses

#[allow(clippy::too_many_arguments)]
fn call(
    s: i32,
    src: *const c_void,
    so: i64,
    ss: i64,
    d: i32,
    dst: *mut c_void,
    doff: i64,
    ds: i64,
    n: i64,
) -> i32 {
    // SAFETY: every call below passes buffers that hold what it addresses,
    // or arguments the function must refuse before touching memory.
    unsafe { nx_convert_strided(s, src, so, ss, d, dst, doff, ds, n) }
}

#[test]
fn statuses_in_order_and_nothing_written() {
    let src = [0x3Cu8; 64];
    let mut dst = [0xA5u8; 64];
    let sp = src.as_ptr().cast::<c_void>();
    let dp = dst.as_mut_ptr().cast::<c_void>();
    let null = std::ptr::null_mut::<c_void>();
    let f = NX_FLOAT32;
    // (src_dt, dst_dt, so, ss, doff, ds, n, null src, status)
    type Case = (i32, i32, i64, i64, i64, i64, i64, bool, i32);
    let cases: &[Case] = &[
        (-1, f, 0, 1, 0, 1, 1, false, NX_ERR_DTYPE),
        (21, f, 0, 1, 0, 1, 1, false, NX_ERR_DTYPE),
        (i32::MIN, f, 0, 1, 0, 1, 1, false, NX_ERR_DTYPE),
        (f, 21, 0, 1, 0, 1, 1, false, NX_ERR_DTYPE),
        (f, -1, -1, 1, 0, 1, -1, true, NX_ERR_DTYPE), // codes first
        (f, f, 0, 1, 0, 1, -1, false, NX_ERR_RANGE),
        (f, f, -1, 1, 0, 1, 1, false, NX_ERR_RANGE),
        (f, f, 0, 1, -1, 1, 1, false, NX_ERR_RANGE),
        (f, f, 0, 1, 0, 0, 1, false, NX_ERR_RANGE),
        (f, f, 0, 1, 0, -1, 1, false, NX_ERR_RANGE),
        (f, f, 0, 1, 0, 0, 0, true, NX_ERR_RANGE), // strides checked even for n = 0
        (f, f, 0, -1, 0, 1, 2, false, NX_ERR_RANGE), // source index -1
        (f, f, 3, -2, 0, 1, 3, false, NX_ERR_RANGE),
        (f, f, 0, i64::MAX, 0, 1, 3, false, NX_ERR_RANGE), // overflow
        (f, f, 0, 1, 0, i64::MAX, 3, false, NX_ERR_RANGE),
        (f, f, i64::MAX, 1, 0, 1, 2, false, NX_ERR_RANGE),
        (f, f, 0, i64::MIN, 0, 1, 2, false, NX_ERR_RANGE),
        (
            NX_COMPLEX128,
            f,
            i64::MAX / 2,
            1,
            0,
            1,
            1,
            false,
            NX_ERR_RANGE,
        ), // bytes overflow
        (f, f, 0, 1, 0, 1, 1, true, NX_ERR_NULL),
        (f, f, -1, 1, 0, 1, 1, true, NX_ERR_RANGE), // range before NULL
        (f, f, 0, 1, 0, 1, 0, true, NX_OK),         // n = 0, any pointers
        (f, f, 5, -1, 0, 1, 6, false, NX_OK),
        (NX_BIT, NX_INT4, 0, 1, 0, 1, 100, false, NX_OK),
    ];
    for &(s, d, so, ss, doff, ds, n, null_src, want) in cases {
        let before = dst;
        let p = if null_src { null } else { sp.cast_mut() };
        let got = call(s, p, so, ss, d, dp, doff, ds, n);
        assert_eq!(got, want, "{s} {d} {so} {ss} {doff} {ds} {n}");
        if want != NX_OK {
            assert_eq!(dst, before, "written on failure");
        }
    }
    // NULL destination, and both NULL with n = 0.
    assert_eq!(call(f, sp, 0, 1, f, null, 0, 1, 1), NX_ERR_NULL);
    assert_eq!(call(f, null, 0, 1, f, null, 0, 1, 0), NX_OK);
    // SAFETY: n = 0 and NULL pointers: nothing is touched.
    assert_eq!(unsafe { nx_convert(f, null, f, null, 0) }, NX_OK);
    // SAFETY: a bad code is refused first.
    assert_eq!(unsafe { nx_convert(22, null, f, null, 0) }, NX_ERR_DTYPE);
    // SAFETY: n < 0 is refused before pointers are looked at.
    assert_eq!(unsafe { nx_convert(f, null, f, null, -5) }, NX_ERR_RANGE);
}

/// `kernels::plan` against exact arithmetic written here: for every dtype,
/// offsets, strides and counts around the powers of two where an index, a
/// byte or a bit count crosses 2^63, and the ends of int64, each side's
/// span (or NX_ERR_RANGE) as 128-bit integers give it: the elements' lowest
/// and highest index, the bytes they touch, and bit positions within them
/// in int64.
#[test]
fn plans_are_exact() {
    let exact = |side: Side, n: i64| -> Result<kernels::Span, i32> {
        let (o, s, n) = (
            i128::from(side.offset),
            i128::from(side.stride),
            i128::from(n),
        );
        let last = o + (n - 1) * s;
        let (lo_i, hi_i) = (o.min(last), o.max(last));
        let bits = i128::from(side.dt.bits());
        let (lo, end) = (lo_i * bits / 8, ((hi_i + 1) * bits + 7) / 8);
        let fits = lo_i >= 0 && hi_i <= i64::MAX.into() && end <= isize::MAX as i128;
        if !fits || (end - lo) * 8 > i64::MAX.into() {
            return Err(NX_ERR_RANGE);
        }
        Ok(kernels::Span {
            dt: side.dt,
            lo: lo as usize,
            len: (end - lo) as usize,
            first: (o * bits - lo * 8) as i64,
            // Two's complement: the low 64 bits of the product.
            step: (s * bits) as i64,
            bits: side.dt.bits(),
        })
    };
    // Around the powers of two where a product or a sum crosses 2^63 for
    // some dtype's 2^k bits, and the ends of int64.
    let mut edges: Vec<i64> = vec![0, 1, 2, 3, 7, 8, 9, i64::MAX, i64::MAX - 1];
    for k in [4, 8, 16, 31, 32, 48, 55, 56, 57, 58, 59, 60, 61, 62] {
        let p = 1i64 << k;
        edges.extend([p - 1, p, p + 1, i64::MAX / (p >> 2)]);
    }
    let signed: Vec<i64> = edges
        .iter()
        .flat_map(|&e| [e, -e])
        .chain([i64::MIN])
        .collect();
    let check = |side: Side, n: i64| {
        let plain = Side {
            dt: side.dt,
            offset: 0,
            stride: 1,
        };
        let both = |a: Side, b: Side| Ok(Some((exact(a, n)?, exact(b, n)?)));
        assert_eq!(
            kernels::plan(side, plain, n),
            both(side, plain),
            "{side:?} {n}"
        );
        if side.stride >= 1 {
            assert_eq!(
                kernels::plan(plain, side, n),
                both(plain, side),
                "{side:?} {n}"
            );
        }
    };
    for code in 0..21 {
        let dt = dt(code);
        for &offset in &edges {
            for &stride in &signed {
                for &n in edges.iter().filter(|&&n| n >= 1) {
                    check(Side { dt, offset, stride }, n);
                }
            }
        }
    }
    // And a million near those, a few elements either side.
    let mut rng = Rng(0x5EED_0F5B_A2A2);
    let near = |rng: &mut Rng, v: &[i64]| {
        v[rng.below(v.len() as u64) as usize].saturating_add(rng.below(9) as i64 - 4)
    };
    for _ in 0..1_000_000 {
        let code = rng.below(21) as i32;
        let (offset, stride, n) = (
            near(&mut rng, &edges),
            near(&mut rng, &signed),
            near(&mut rng, &edges),
        );
        if offset >= 0 && n >= 1 {
            check(
                Side {
                    dt: dt(code),
                    offset,
                    stride,
                },
                n,
            );
        }
    }
}

#[test]
fn overlap_is_refused() {
    let mut buf = [0x11u8; 64];
    let before = buf;
    let p = buf.as_mut_ptr();
    let f16 = NX_FLOAT16;
    let f32_ = NX_FLOAT32;
    // SAFETY: all pointers are inside `buf`, which holds every addressed byte.
    unsafe {
        let v = |o: usize| p.add(o).cast::<c_void>();
        assert_eq!(nx_convert(f32_, v(0), f16, v(0), 4), NX_ERR_OVERLAP);
        assert_eq!(nx_convert(f32_, v(0), f16, v(15), 4), NX_ERR_OVERLAP); // src 0..16
        assert_eq!(nx_convert(f32_, v(8), f16, v(0), 5), NX_ERR_OVERLAP); // dst 0..10
                                                                          // A strided destination spanning across the source.
        assert_eq!(
            nx_convert_strided(f16, v(20), 0, 1, f16, v(0), 0, 20, 3),
            NX_ERR_OVERLAP
        );
        // Sub-byte: element 1 of bytes shares byte 0 with element 0.
        assert_eq!(
            nx_convert_strided(NX_INT4, v(0), 1, 1, NX_INT4, v(0), 0, 1, 1),
            NX_ERR_OVERLAP
        );
        assert_eq!(buf, before);
        // Adjacent ranges do not overlap.
        assert_eq!(nx_convert(f32_, v(0), f16, v(16), 4), NX_OK);
        assert_eq!(
            nx_convert_strided(f16, v(40), 2, -1, f16, v(30), 0, 1, 3),
            NX_OK
        );
    }
}

/// `nx_kernel_isa` names the level `NX_DTYPE_ISA` caps the CPU's best at:
/// a level of this architecture caps it, any other value (a level of
/// another architecture, a typo) caps nothing.
#[test]
fn kernel_isa_follows_environment() {
    // SAFETY: the returned string is static and NUL-terminated.
    let name = unsafe { std::ffi::CStr::from_ptr(nx_kernel_isa()) }
        .to_str()
        .expect("ascii");
    let here = Isa::here();
    let best = *here
        .iter()
        .rfind(|i| i.supported())
        .expect("scalar at least");
    let cap = std::env::var("NX_DTYPE_ISA").ok();
    let want = match cap.as_deref().map(str::trim).and_then(Isa::of_name) {
        Some(c) if here.contains(&c) => {
            let top = here.iter().position(|&i| i == c).expect("here");
            *here[..=top]
                .iter()
                .rfind(|i| i.supported())
                .expect("scalar")
        }
        _ => best,
    };
    assert_eq!(name, want.name().to_str().expect("ascii"));
    assert_eq!(kernels::isa(), want);
    // Every level here caps at itself or below; scalar and portable are
    // always granted; a level of no architecture here caps nothing.
    for (k, &i) in here.iter().enumerate() {
        let got = Isa::best(i);
        assert!(here[..=k].contains(&got), "{i:?} gave {got:?}");
        assert_eq!(got == i, i.supported(), "{i:?}");
    }
    assert_eq!(Isa::best(Isa::Scalar), Isa::Scalar);
    assert_eq!(Isa::best(Isa::Portable), Isa::Portable);
    for i in Isa::ALL.into_iter().filter(|i| !here.contains(i)) {
        assert_eq!(Isa::best(i), best, "{i:?} is not a level here");
    }
}

/// A caller's floating-point environment changes no result at any level,
/// for any pair, and comes back exactly as it was, sticky flags included.
/// x86: MXCSR with flush-to-zero, denormals-are-zero and round toward
/// zero, masked and unmasked (with every exception unmasked nothing traps:
/// the kernels round inexactly and meet signalling NaNs), with no flag and
/// every flag raised, and the default. aarch64: FPCR with flush-to-zero
/// (FZ, FZ16), default NaN, alternative half precision and each rounding
/// mode, FPSR's flags clear or all raised.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn immune_to_fp_environment() {
    let all: Vec<(i32, i32)> = (0..NX_DTYPE_COUNT as i32)
        .flat_map(|s| (0..NX_DTYPE_COUNT as i32).map(move |d| (s, d)))
        .filter(|(s, d)| s != d)
        .collect();
    for (s, d) in all {
        let (s, d) = (dt(s), dt(d));
        let mut vals = sources(s, d, 2_000);
        // Under qemu every element costs: the 16-bit sources' subnormals,
        // specials and a stride through the rest.
        if cfg!(target_arch = "aarch64") && s.bits() == 16 {
            vals.retain(|&v| {
                v & 0x7C00 == 0 || v & 0x7F80 == 0 || v & 0x7C00 == 0x7C00 || v % 61 == 0
            });
        }
        let src = pack_all(s, &vals);
        let want = pack_all(
            d,
            &vals.iter().map(|&r| convert(s, d, r)).collect::<Vec<_>>(),
        );
        for isa in levels() {
            for &env in FP_ENVS {
                let mut got = vec![0u8; want.len()];
                let old = fp_set(env);
                let st = conv(isa, s, &src, 0, 1, d, &mut got, 0, 1, vals.len() as i64);
                let after = fp_set(old);
                assert_eq!(st, NX_OK);
                assert_eq!(
                    after,
                    env,
                    "{isa:?} {} -> {}: environment",
                    s.name(),
                    d.name()
                );
                assert!(
                    got == want,
                    "{isa:?} {} -> {} under environment {env:#x}",
                    s.name(),
                    d.name()
                );
                // Strided too (destination stride 2): the block path and
                // the one-pass strided maps set the environment of their own.
                if d.bits() % 8 == 0 {
                    let w = d.bits() as usize / 8;
                    let mut wide = vec![0u8; 2 * want.len()];
                    let old = fp_set(env);
                    let st = conv(isa, s, &src, 0, 1, d, &mut wide, 0, 2, vals.len() as i64);
                    let after = fp_set(old);
                    assert_eq!((st, after), (NX_OK, env));
                    let got: Vec<u8> = wide.chunks(2 * w).flat_map(|c| c[..w].to_vec()).collect();
                    assert!(
                        got == want,
                        "{isa:?} {} -> {} strided under environment {env:#x}",
                        s.name(),
                        d.name()
                    );
                }
            }
        }
    }
}

/// MXCSR values: FTZ, DAZ and round toward zero, exceptions masked or
/// not, flags clear or raised; and the default.
#[cfg(target_arch = "x86_64")]
const FP_ENVS: &[u64] = &[
    0x8040 | 0x6000 | 0x1F80,
    0x8040 | 0x6000,
    0x8040 | 0x6000 | 0x3F,
    0x1F80,
    0x1F80 | 0x3F,
];

#[cfg(target_arch = "x86_64")]
fn fp_set(v: u64) -> u64 {
    let mut old = 0u32;
    let new = v as u32;
    // SAFETY: stmxcsr/ldmxcsr read and write the SSE control register only;
    // the kernels never trap on the values written here (see the test).
    unsafe {
        std::arch::asm!("stmxcsr [{0}]", in(reg) &mut old);
        std::arch::asm!("ldmxcsr [{0}]", in(reg) &new);
    }
    u64::from(old)
}

/// FPCR (high word) and FPSR (low word): FZ, FZ16, DN, AHP with round
/// toward zero, up and down, FPSR's flags (IDC, IXC, UFC, OFC, DZC, IOC)
/// clear or raised; and the default.
#[cfg(target_arch = "aarch64")]
const FP_ENVS: &[u64] = &[
    (1 << 24 | 1 << 19 | 1 << 25 | 1 << 26 | 3 << 22) << 32 | 0x9F,
    (1 << 24 | 1 << 19 | 1 << 22) << 32,
    (1 << 25 | 2 << 22) << 32 | 0x9F,
    0,
];

#[cfg(target_arch = "aarch64")]
fn fp_set(v: u64) -> u64 {
    let (fpcr, fpsr): (u64, u64);
    // SAFETY: mrs/msr of FPCR and FPSR; no trap is enabled by the values
    // written (the trap enable bits 8-15 stay clear).
    unsafe {
        std::arch::asm!("mrs {0}, fpcr", "mrs {1}, fpsr", out(reg) fpcr, out(reg) fpsr);
        std::arch::asm!("msr fpcr, {0}", "msr fpsr, {1}", in(reg) v >> 32, in(reg) v & 0xFFFF_FFFF);
    }
    fpcr << 32 | fpsr
}

/// `Store::Stream` (non-temporal stores of whole vectors into a 64-byte
/// aligned destination) and `Store::Fetch` (the same, with the source
/// prefetched 2 KiB ahead) write exactly what `Store::Plain` writes, for
/// every SIMD kernel at every level, at lengths around every vector step,
/// and nothing past the last element's byte; a misaligned destination is
/// converted right too (with ordinary stores).
#[test]
fn streaming_stores_match_plain() {
    let mut rng = Rng(5);
    for isa in levels().into_iter().filter(|&i| i != Isa::Scalar) {
        for s in Dtype::all() {
            for d in Dtype::all() {
                if !Kernel::is_simd(isa, s, d) {
                    continue;
                }
                let k = Kernel::of(isa, s, d);
                for n in [1, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 200, 513] {
                    let sl = (n * s.bits() as usize).div_ceil(8);
                    let dl = (n * d.bits() as usize).div_ceil(8);
                    let src: Vec<u8> = (0..sl).map(|_| rng.next() as u8).collect();
                    let mut want = vec![0xA5u8; dl + 64];
                    k.run(&src, &mut want[..dl], n);
                    for (shift, store) in [0, 16].into_iter().flat_map(|k| {
                        [
                            (k, kernels::Store::Stream),
                            (k, kernels::Store::Fetch(2048)),
                        ]
                    }) {
                        let mut buf = vec![0xA5u8; dl + 256];
                        let at = buf.as_ptr().align_offset(64) + shift;
                        k.run_as(&src, &mut buf[at..at + dl], n, 0, store);
                        kernels::stream_end();
                        assert!(
                            buf[at..at + dl + 64] == want[..],
                            "{isa:?} {} -> {} n {n} shift {shift} {store:?}",
                            s.name(),
                            d.name()
                        );
                        assert!(buf[..at].iter().all(|&b| b == 0xA5));
                    }
                }
            }
        }
    }
}

/// A streamed body in pieces (`kernels::streamed`, pieces of 512 and 1536
/// elements here, of about 1 MiB of source in a call): with and without
/// the prefetch trial (fewer than 10 pieces, and more, with a last piece
/// cut short or not), after a head that brings the destination to a cache
/// line or none, every element as the kernel writes it in one plain call,
/// no byte past the last element's written. Sources and destinations of 1,
/// 4, 8, 16, 32 and 64 bits, so that each piece must start on whole bytes
/// of both sides.
#[test]
fn streamed_pieces_match_one_call() {
    let mut rng = Rng(11);
    let pairs = [
        (NX_FLOAT16, NX_FLOAT8_E4M3FN),
        (NX_BFLOAT16, NX_UINT8),
        (NX_FLOAT32, NX_FLOAT16),
        (NX_FLOAT32, NX_BFLOAT16),
        (NX_FLOAT32, NX_FLOAT4_E2M1FN),
        (NX_FLOAT64, NX_FLOAT8_E5M2),
        (NX_FLOAT32, NX_BIT),
        (NX_INT4, NX_FLOAT32),
        (NX_FLOAT8_E4M3FN, NX_FLOAT16),
        (NX_FLOAT8_E4M3FN, NX_FLOAT4_E2M1FN),
        (NX_UINT8, NX_FLOAT8_E4M3FN),
        (NX_INT16, NX_INT8),
        (NX_INT32, NX_INT4),
    ];
    // The real pieces: whole 512 elements, 1 MiB of source or a little less.
    for b in [1, 4, 8, 16, 32, 64, 128] {
        let p = kernels::piece_of(b);
        assert!(p.is_multiple_of(512) && p * b / 8 <= 1 << 20 && p * b / 8 > 1 << 19);
    }
    for isa in levels().into_iter().filter(|&i| i != Isa::Scalar) {
        for (s, d) in pairs {
            let (s, d) = (dt(s), dt(d));
            let (sb, db) = (s.bits() as usize, d.bits() as usize);
            let k = Kernel::of(isa, s, d);
            for m in [512, 1536] {
                for n in [3 * m + 5, 8 * m, 9 * m + 100, 12 * m + 511] {
                    // A head of 0, or of the elements before the next cache
                    // line of a destination 8 bytes past one (if whole).
                    for head in [0, 56 * 8 / db] {
                        let src: Vec<u8> = (0..(n * sb).div_ceil(8))
                            .map(|_| rng.next() as u8)
                            .collect();
                        let dl = (n * db).div_ceil(8);
                        let mut want = vec![0u8; dl];
                        k.run(&src, &mut want, n);
                        let mut buf = vec![0x5Au8; dl + 256];
                        let at = buf.as_ptr().align_offset(64) + if head > 0 { 8 } else { 0 };
                        kernels::streamed(k, &src, &mut buf[at..at + dl], n, head, (sb, db), m);
                        kernels::stream_end();
                        assert!(
                            buf[at..at + dl] == want[..],
                            "{isa:?} {} -> {} n {n} m {m} head {head}",
                            s.name(),
                            d.name()
                        );
                        assert!(buf[..at].iter().chain(&buf[at + dl..]).all(|&b| b == 0x5A));
                    }
                }
            }
        }
    }
}

/// Calls moving at least `STREAM_MIN` bytes are streamed: same bits,
/// neighbours untouched, unaligned destinations too.
#[test]
fn large_destinations() {
    let mut rng = Rng(3);
    let big = kernels::STREAM_MIN;
    for (s, d, n) in [
        (NX_FLOAT32, NX_FLOAT64, big / 8 + 1001),
        (NX_FLOAT8_E4M3FN, NX_FLOAT32, big / 4 + 8),
        (NX_FLOAT32, NX_FLOAT16, big / 2 + 77),
    ] {
        let (s, d) = (dt(s), dt(d));
        let (sb, db) = (s.bits() as usize / 8, d.bits() as usize / 8);
        let src: Vec<u8> = (0..n * sb).map(|_| rng.next() as u8).collect();
        let want: Vec<u8> = (0..n)
            .flat_map(|i| {
                let raw = get(&src, i * sb * 8, s.bits());
                let v = convert(s, d, raw);
                (0..db).map(move |k| (v >> (8 * k)) as u8)
            })
            .collect();
        // At 3 bytes past the buffer's start no element lines up with a
        // cache line (ordinary stores); at 8 the head aligns it (streaming).
        for at in [3, 8] {
            for isa in levels() {
                let mut got = vec![0x5Au8; n * db + 16];
                assert_eq!(
                    conv(isa, s, &src, 0, 1, d, &mut got[at..], 0, 1, n as i64),
                    NX_OK
                );
                assert!(
                    got[at..at + n * db] == want[..],
                    "{isa:?} {} -> {}",
                    s.name(),
                    d.name()
                );
                assert!(got[..at]
                    .iter()
                    .chain(&got[at + n * db..])
                    .all(|&b| b == 0x5A));
            }
        }
    }
}

//! Stores: the documented examples, double-rounding traps, and every rounding
//! boundary of every float format of at most 16 bits, judged by an exact
//! reference written here (rationals as i128 numerator over a power of two).

use nx_dtype::format::{Format, BF16, E2M1FN, E4M3FN, E5M2, F16, F32, F64};
use nx_dtype::store::{load_f64, store_f64, store_int};

fn st(f: Format, x: f64) -> u64 {
    store_f64(f, x.to_bits())
}
fn ld(f: Format, b: u64) -> f64 {
    f64::from_bits(load_f64(f, b))
}

#[test]
fn seed_examples() {
    // of_float Float16 0.1 is 0x1.998p-4.
    assert_eq!(ld(F16, st(F16, 0.1)), f64::from_bits(0x3FB9980000000000));
    assert_eq!(st(F16, 0.1), 0x2E66);
    assert_eq!(ld(F16, st(F16, 65519.0)), 65504.0);
    assert_eq!(st(F16, 65520.0), 0x7C00);
    assert_eq!(st(E5M2, 61440.0), 0x7C);
    assert_eq!(st(E5M2, 57344.0), 0x7B);
    for x in [448.0, 464.0, 465.0, 480.0, 1e9, f64::INFINITY] {
        assert_eq!(st(E4M3FN, x), 0x7E, "{x}");
        assert_eq!(st(E4M3FN, -x), 0xFE, "{x}");
    }
    assert_eq!(st(E2M1FN, f64::NAN), 0);
    assert_eq!(st(E2M1FN, -f64::NAN), 0);
    assert_eq!(st(E2M1FN, 1e300), 0x7);
    assert_eq!(st(E2M1FN, f64::NEG_INFINITY), 0xF);
    assert_eq!(st(E4M3FN, f64::NAN), 0x7F);
    assert_eq!(st(E4M3FN, -f64::NAN), 0xFF);
}

#[test]
fn nan_payloads() {
    // A signalling float64 NaN with payload top bits 101... keeps them, quiet.
    let snan = 0x7FF5_0000_0000_0001u64; // quiet bit clear, payload 0b0101...
    assert_eq!(
        store_f64(F32, snan),
        0x7FC0_0000 | (0x5_0000_0000_0001u64 >> 29)
    );
    assert_eq!(store_f64(F16, snan), 0x7E00 | (0x5_0000_0000_0001u64 >> 42));
    assert_eq!(store_f64(F16, snan | 1 << 63), 0xFE00 | 0x140);
    assert_eq!(store_f64(E5M2, 0x7FF4_0000_0000_0000), 0x7F);
    assert_eq!(store_f64(E5M2, 0x7FF8_0000_0000_0000), 0x7E);
    assert_eq!(store_f64(F64, snan), snan | 1 << 51);
    // Widening keeps the whole payload and quiets: float16 sNaN 0x7C01.
    assert_eq!(load_f64(F16, 0x7C01), 0x7FF8_0000_0000_0000 | 1 << 42);
    assert_eq!(
        store_f64(F32, load_f64(F16, 0x7D23)),
        0x7FC0_0000 | 0x123 << 13
    );
    assert_eq!(load_f64(E4M3FN, 0xFF), 0xFFF8_0000_0000_0000);
}

#[test]
fn double_rounding_traps() {
    assert_eq!(st(BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-40)), 0x3F81);
    assert_eq!(ld(F16, st(F16, 2047.4999999850988)), 2047.0);
    assert_eq!(ld(E2M1FN, st(E2M1FN, 5.0 + 2f64.powi(-30))), 6.0);
    assert_eq!(st(F16, 2f64.powi(-25) * (1.0 + 2f64.powi(-40))), 0x0001);
    assert_eq!(st(F16, 2f64.powi(-25)), 0x0000);
    assert_eq!(ld(BF16, store_int(BF16, 16842753)), 16908288.0);
    let n = (1i128 << 62) + (1 << 54) + 1;
    assert_eq!(ld(BF16, store_int(BF16, n)), 2f64.powi(62) + 2f64.powi(55));
    let n = (1i128 << 60) + (1 << 36) + 1;
    assert_eq!(ld(F32, store_int(F32, n)), 1152921642045800448.0);
    assert_eq!(ld(F64, store_int(F64, u64::MAX as i128)), 2f64.powi(64));
    assert_eq!(ld(F64, store_int(F64, i64::MIN as i128)), -(2f64.powi(63)));
}

/// Exact reference: the value of float64 x as (numerator, exponent of 2).
fn exact_of(x: f64) -> (i128, i32) {
    let b = x.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = (b & ((1 << 52) - 1)) as i128;
    let (m, e) = match (e, f) {
        (0, 0) => (0, 0), // zero: any exponent, and 0 keeps shifts small
        (0, _) => (f, -1074),
        _ => (f | 1 << 52, e - 1075),
    };
    (if b >> 63 == 1 { -m } else { m }, e)
}

/// Every finite value of format `f` (non-negative bits), ascending.
fn finite_values(f: Format) -> Vec<(u64, f64)> {
    (0..=f.magnitude_mask())
        .filter(|&b| !f.is_nan(b) && !f.is_infinite(b))
        .map(|b| (b, ld(f, b)))
        .collect()
}

/// Compare two exact values a*2^ea and b*2^eb (both positive).
fn cmp_exact(a: (i128, i32), b: (i128, i32)) -> std::cmp::Ordering {
    let e = a.1.min(b.1);
    let sa = (a.1 - e) as u32;
    let sb = (b.1 - e) as u32;
    // Values here are within 2^17 of each other in exponent.
    (a.0 << sa).cmp(&(b.0 << sb))
}

/// Every adjacent pair of values of `f`: the lower one, the midpoint, and
/// the midpoint's float64 neighbours; then the half step past the largest
/// finite value. Each expected result is derived here from exact integers.
fn boundaries_of(f: Format) {
    let vals = finite_values(f);
    let mut checked = 0;
    for w in vals.windows(2) {
        let ((lb, lo), (hb, hi)) = (w[0], w[1]);
        let mid = (lo + hi) / 2.0;
        // The midpoint is exact: 2*mid == lo + hi in exact integers.
        let (a, ea) = exact_of(lo);
        let (b, eb) = exact_of(hi);
        let (m, em) = exact_of(mid);
        let e = ea.min(eb).min(em - 1);
        assert_eq!((a << (ea - e)) + (b << (eb - e)), (m << (em - e)) * 2);
        assert_eq!(cmp_exact((a, ea), (m, em)), std::cmp::Ordering::Less);
        let below = f64::from_bits(mid.to_bits() - 1);
        let above = f64::from_bits(mid.to_bits() + 1);
        let even = if lb & 1 == 0 { lb } else { hb };
        for s in [0u64, f.sign_mask()] {
            let sg = |x: f64| if s != 0 { -x } else { x };
            assert_eq!(st(f, sg(lo)), s | lb, "{f:?} value {lo}");
            assert_eq!(st(f, sg(below)), s | lb, "{f:?} below {mid}");
            assert_eq!(st(f, sg(mid)), s | even, "{f:?} mid {mid}");
            assert_eq!(st(f, sg(above)), s | hb, "{f:?} above {mid}");
            checked += 4;
        }
    }
    // Past the largest finite value only the next half step rounds down to
    // it (ties to even: the max's significand parity decides).
    let maxb = f.max_finite_bits();
    let max = ld(f, maxb);
    let half_step = max + 2f64.powi(f.emax() - f.fraction_bits as i32) / 2.0;
    let over = if f.has_infinity() {
        f.infinity_bits()
    } else {
        maxb
    };
    let tie = if maxb & 1 == 0 { maxb } else { over };
    assert_eq!(st(f, f64::from_bits(half_step.to_bits() - 1)), maxb);
    assert_eq!(st(f, half_step), tie, "{f:?} half step {half_step}");
    assert_eq!(st(f, f64::from_bits(half_step.to_bits() + 1)), over);
    // Below the least subnormal: half of it ties to zero, just above goes up.
    let tiny = ld(f, 1);
    assert_eq!(st(f, tiny / 2.0), 0);
    assert_eq!(st(f, f64::from_bits((tiny / 2.0).to_bits() + 1)), 1);
    assert_eq!(st(f, -tiny / 2.0), f.sign_mask());
    assert!(checked >= 4 * (vals.len() - 1));
}

#[test]
fn every_boundary_of_small_formats() {
    for f in [F16, BF16, E4M3FN, E5M2, E2M1FN] {
        boundaries_of(f);
    }
}

#[test]
fn loads_are_exact_and_round_trip() {
    for f in [F16, BF16, E4M3FN, E5M2, E2M1FN] {
        for b in 0..=(f.sign_mask() | f.magnitude_mask()) {
            let x = load_f64(f, b);
            if f.is_nan(b) {
                assert!(f64::from_bits(x).is_nan());
                continue;
            }
            assert_eq!(store_f64(f, x), b, "{f:?} {b:#x}");
        }
    }
    // e4m3fn: the exponent-all-ones binade holds 256..448.
    assert_eq!(ld(E4M3FN, 0x78), 256.0);
    assert_eq!(ld(E4M3FN, 0x7E), 448.0);
    assert_eq!(ld(E2M1FN, 0x1), 0.5);
    assert_eq!(ld(E2M1FN, 0x7), 6.0);
    assert_eq!(ld(E5M2, 0x7B), 57344.0);
}

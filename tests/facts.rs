//! Every fact derived from the table, checked against an independent source:
//! brute force over the format's bit patterns, Rust's own f32/f64
//! constants, and the definitions in ocaml/nx_array.mli.

use nx_dtype::facts::{exact, extreme};
use nx_dtype::format::{Format, F32, F64};
use nx_dtype::store::{load_f64, store_f64};
use nx_dtype::table::{Class, Dtype, Kind, COUNT};
use nx_dtype::value::{convert, decode, Value};

fn dt(name: &str) -> Dtype {
    Dtype::of_name(name.as_bytes()).expect(name)
}

#[test]
fn names_codes_bits_kinds() {
    let expect = [
        ("float64", 64, Kind::Float),
        ("float32", 32, Kind::Float),
        ("float16", 16, Kind::Float),
        ("bfloat16", 16, Kind::Float),
        ("float8_e4m3fn", 8, Kind::Float),
        ("float8_e5m2", 8, Kind::Float),
        ("float4_e2m1fn", 4, Kind::Float),
        ("int64", 64, Kind::Signed),
        ("uint64", 64, Kind::Unsigned),
        ("int32", 32, Kind::Signed),
        ("uint32", 32, Kind::Unsigned),
        ("int16", 16, Kind::Signed),
        ("uint16", 16, Kind::Unsigned),
        ("int8", 8, Kind::Signed),
        ("uint8", 8, Kind::Unsigned),
        ("int4", 4, Kind::Signed),
        ("uint4", 4, Kind::Unsigned),
        ("complex128", 128, Kind::Complex),
        ("complex64", 64, Kind::Complex),
        ("bool", 8, Kind::Boolean),
        ("bit", 1, Kind::Boolean),
    ];
    assert_eq!(COUNT, expect.len());
    for (code, (name, bits, kind)) in expect.iter().enumerate() {
        let d = Dtype::from_code(code as i32).unwrap();
        assert_eq!(d.name(), *name);
        assert_eq!(d.bits(), *bits);
        assert_eq!(d.kind(), *kind);
        assert_eq!(dt(name), d);
        // A float format's width adds up to the dtype's.
        if let Class::Float(f) = d.class() {
            assert_eq!(f.bits(), d.bits());
        }
        if let Class::Complex(f) = d.class() {
            assert_eq!(2 * f.bits(), d.bits());
        }
    }
    assert!(Dtype::from_code(-1).is_none() && Dtype::from_code(21).is_none());
    assert!(Dtype::of_name(b"Float32").is_none() && Dtype::of_name(b"").is_none());
}

#[test]
fn ffi_constants_are_the_codes() {
    use nx_dtype::ffi::*;
    let consts = [
        NX_FLOAT64,
        NX_FLOAT32,
        NX_FLOAT16,
        NX_BFLOAT16,
        NX_FLOAT8_E4M3FN,
        NX_FLOAT8_E5M2,
        NX_FLOAT4_E2M1FN,
        NX_INT64,
        NX_UINT64,
        NX_INT32,
        NX_UINT32,
        NX_INT16,
        NX_UINT16,
        NX_INT8,
        NX_UINT8,
        NX_INT4,
        NX_UINT4,
        NX_COMPLEX128,
        NX_COMPLEX64,
        NX_BOOL,
        NX_BIT,
    ];
    let names = [
        "float64",
        "float32",
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float4_e2m1fn",
        "int64",
        "uint64",
        "int32",
        "uint32",
        "int16",
        "uint16",
        "int8",
        "uint8",
        "int4",
        "uint4",
        "complex128",
        "complex64",
        "bool",
        "bit",
    ];
    assert_eq!(NX_DTYPE_COUNT, COUNT);
    for (c, n) in consts.iter().zip(names) {
        assert_eq!(dt(n).code(), *c);
        let row = &nx_dtype_table[*c as usize];
        // SAFETY: the table's names are static C strings.
        let name = unsafe { std::ffi::CStr::from_ptr(row.name) };
        assert_eq!(name.to_str().unwrap(), n);
        assert_eq!(row.bits as u32, dt(n).bits());
        assert_eq!(row.kind, dt(n).kind() as i32);
    }
    assert_eq!(
        [
            NX_KIND_FLOAT,
            NX_KIND_COMPLEX,
            NX_KIND_SIGNED,
            NX_KIND_UNSIGNED,
            NX_KIND_BOOLEAN
        ],
        [
            Kind::Float as i32,
            Kind::Complex as i32,
            Kind::Signed as i32,
            Kind::Unsigned as i32,
            Kind::Boolean as i32
        ]
    );
    let v: Vec<u32> = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(
        v,
        [
            NX_DTYPE_VERSION_MAJOR,
            NX_DTYPE_VERSION_MINOR,
            NX_DTYPE_VERSION_PATCH
        ]
    );
    assert_eq!(NX_DTYPE_ABI_VERSION, NX_DTYPE_VERSION_MAJOR);
}

/// Finite values of a small format by brute force over its bit patterns.
fn brute_values(f: Format) -> Vec<f64> {
    (0..=f.magnitude_mask())
        .filter(|&b| !f.is_nan(b) && !f.is_infinite(b))
        .map(|b| f64::from_bits(load_f64(f, b)))
        .collect()
}

#[test]
fn float_facts_by_brute_force() {
    for d in Dtype::all() {
        let Some(f) = d.float_format() else { continue };
        if f.bits() > 16 {
            continue;
        }
        let vals = brute_values(f);
        let max = vals.iter().cloned().fold(0.0, f64::max);
        assert_eq!(f.max_finite(), max, "{}", d.name());
        let one = vals.iter().position(|&v| v == 1.0).unwrap();
        assert_eq!(f.epsilon(), vals[one + 1] - 1.0, "{}", d.name());
        // The least normal: the least positive value whose successor gap is
        // no finer than its own spacing at exponent field 1.
        let least_normal = f64::from_bits(load_f64(f, 1 << f.fraction_bits));
        assert_eq!(f.min_normal(), least_normal);
        let has_inf =
            (0..=f.magnitude_mask()).any(|b| f64::from_bits(load_f64(f, b)).is_infinite());
        let has_nan = (0..=f.magnitude_mask()).any(|b| f64::from_bits(load_f64(f, b)).is_nan());
        assert_eq!(
            (f.has_infinity(), f.has_nan()),
            (has_inf, has_nan),
            "{}",
            d.name()
        );
    }
    // The figures nx_array.mli states.
    assert_eq!(
        dt("float8_e4m3fn").float_format().unwrap().max_finite(),
        448.0
    );
    assert_eq!(
        dt("float8_e5m2").float_format().unwrap().max_finite(),
        57344.0
    );
    assert_eq!(
        dt("float4_e2m1fn").float_format().unwrap().max_finite(),
        6.0
    );
    let e2m1: Vec<f64> = brute_values(dt("float4_e2m1fn").float_format().unwrap());
    assert_eq!(e2m1, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
    // Wide formats against Rust's own constants.
    assert_eq!(F32.epsilon(), f32::EPSILON as f64);
    assert_eq!(F32.min_normal(), f32::MIN_POSITIVE as f64);
    assert_eq!(F32.max_finite(), f32::MAX as f64);
    assert_eq!(F64.epsilon(), f64::EPSILON);
    assert_eq!(F64.min_normal(), f64::MIN_POSITIVE);
    assert_eq!(F64.max_finite(), f64::MAX);
}

#[test]
fn min_max_values() {
    let as_f64 = |d: Dtype, raw: u128| match decode(d, raw) {
        Value::Float(x) => f64::from_bits(x),
        Value::Int(n) => n as f64,
        Value::Bool(b) => b as u8 as f64,
        Value::Complex(..) => unreachable!(),
    };
    let cases: [(&str, f64, f64); 19] = [
        ("float64", f64::NEG_INFINITY, f64::INFINITY),
        ("float32", f64::NEG_INFINITY, f64::INFINITY),
        ("float16", f64::NEG_INFINITY, f64::INFINITY),
        ("bfloat16", f64::NEG_INFINITY, f64::INFINITY),
        ("float8_e4m3fn", -448.0, 448.0),
        ("float8_e5m2", f64::NEG_INFINITY, f64::INFINITY),
        ("float4_e2m1fn", -6.0, 6.0),
        ("int64", i64::MIN as f64, i64::MAX as f64),
        ("uint64", 0.0, u64::MAX as f64),
        ("int32", i32::MIN as f64, i32::MAX as f64),
        ("uint32", 0.0, u32::MAX as f64),
        ("int16", -32768.0, 32767.0),
        ("uint16", 0.0, 65535.0),
        ("int8", -128.0, 127.0),
        ("uint8", 0.0, 255.0),
        ("int4", -8.0, 7.0),
        ("uint4", 0.0, 15.0),
        ("bool", 0.0, 1.0),
        ("bit", 0.0, 1.0),
    ];
    for (name, lo, hi) in cases {
        let d = dt(name);
        assert_eq!(as_f64(d, extreme(d, false).unwrap()), lo, "{name}");
        assert_eq!(as_f64(d, extreme(d, true).unwrap()), hi, "{name}");
    }
    // Unsigned maxima are all ones; int64's range exactly.
    assert_eq!(extreme(dt("uint64"), true), Some(u64::MAX as u128));
    assert_eq!(extreme(dt("uint32"), true), Some(u32::MAX as u128));
    assert_eq!(
        decode(dt("int64"), extreme(dt("int64"), false).unwrap()),
        Value::Int(i64::MIN as i128)
    );
    assert!(extreme(dt("complex64"), true).is_none() && extreme(dt("complex128"), false).is_none());
}

/// The numbers an element can hold, for the brute-force exactness check:
/// (value, is_nan, is complex with a non-zero imaginary part).
fn number(d: Dtype, raw: u128) -> (Option<f64>, bool) {
    match decode(d, raw) {
        Value::Float(x) => (Some(f64::from_bits(x)), false),
        Value::Int(n) => (Some(n as f64), false),
        Value::Bool(b) => (Some(b as u8 as f64), false),
        Value::Complex(re, im) => (Some(f64::from_bits(re)), f64::from_bits(im) != 0.0),
    }
}

/// exact(a, b) by its definition, over every element of a source of at most
/// 16 bits: each element converts to b and back to the same number (NaN to
/// a NaN, infinity to the same infinity), booleans only into booleans.
#[test]
fn exact_by_definition_for_small_sources() {
    let mut checked = 0;
    for a in Dtype::all().filter(|a| a.bits() <= 16) {
        for b in Dtype::all() {
            let is_bool = |d: Dtype| d.kind() == Kind::Boolean;
            let holds_all = if is_bool(b) && !is_bool(a) {
                false // only a boolean holds a boolean
            } else {
                (0..(1u128 << a.bits())).all(|raw| {
                    let (x, _) = number(a, raw);
                    let back = convert(b, a, convert(a, b, raw));
                    let (y, _) = number(a, back);
                    let (x, y) = (x.unwrap(), y.unwrap());
                    let (z, zi) = number(b, convert(a, b, raw));
                    let z = z.unwrap();
                    !zi && if x.is_nan() {
                        y.is_nan() && z.is_nan()
                    } else {
                        x == y && x == z
                    }
                })
            };
            assert_eq!(exact(a, b), holds_all, "exact {} {}", a.name(), b.name());
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        21 * Dtype::all().filter(|a| a.bits() <= 16).count()
    );
}

#[test]
fn exact_for_wide_sources() {
    let t = |a: &str, b: &str| exact(dt(a), dt(b));
    // The sentences of nx_array.mli on `exact`.
    assert!(t("int8", "bfloat16") && t("int16", "float32") && t("int32", "float64"));
    assert!(
        !Dtype::all().any(|b| b != dt("int64") && t("int64", b.name()) && b.kind() != Kind::Signed)
    );
    assert!(t("float16", "float32") && t("bfloat16", "float32"));
    assert!(t("float8_e4m3fn", "float16") && t("float8_e5m2", "float16"));
    assert!(t("complex64", "complex128") && !t("complex128", "complex64"));
    assert!(t("float32", "complex64") && t("float64", "complex128") && !t("complex64", "float64"));
    assert!(!t("int32", "float32") && !t("uint32", "float32") && t("uint32", "float64"));
    assert!(!t("int64", "float64") && !t("uint64", "float64") && t("int32", "int64"));
    assert!(!t("uint64", "int64") && !t("int64", "uint64") && t("uint32", "int64"));
    assert!(!t("float32", "int64") && !t("float32", "bool") && t("bit", "float4_e2m1fn"));
    // Witnesses for every "no" among wide float sources into floats: a value
    // that does not survive the round trip.
    let witnesses = |f: Format| {
        let e = (f.emin() - f.fraction_bits as i32) as f64;
        [
            f.max_finite(),
            2f64.powf(e),
            1.0 + f.epsilon(),
            f64::INFINITY,
            f64::NAN,
        ]
    };
    for a in ["float32", "float64"] {
        let fa = dt(a).float_format().unwrap();
        for b in Dtype::all().filter(|b| b.kind() == Kind::Float) {
            let fb = b.float_format().unwrap();
            let survives = witnesses(fa).iter().all(|x| {
                let y = f64::from_bits(load_f64(fb, store_f64(fb, x.to_bits())));
                (x.is_nan() && y.is_nan()) || *x == y
            });
            assert_eq!(exact(dt(a), b), survives, "{a} {}", b.name());
        }
    }
}

#[test]
fn bytes_counts() {
    for d in Dtype::all() {
        for n in [0i64, 1, 2, 3, 7, 8, 9, 1000] {
            assert_eq!(d.bytes(n), Some((n * d.bits() as i64 + 7) / 8));
        }
        assert_eq!(d.bytes(-1), None);
        // The largest n whose byte count fits, and the first that does not.
        let max_n = ((i64::MAX as i128 * 8) / d.bits() as i128).min(i64::MAX as i128) as i64;
        assert!(d.bytes(max_n).is_some(), "{}", d.name());
        if max_n < i64::MAX {
            assert_eq!(d.bytes(max_n + 1), None, "{}", d.name());
        }
    }
    assert_eq!(dt("bit").bytes(i64::MAX), Some(i64::MAX / 8 + 1));
    assert_eq!(dt("complex128").bytes(i64::MAX), None);
}

//! SEMANTICS.md's conversion table, one element at a time (value::convert,
//! the reference the kernels are tested against).

use nx_dtype::table::Dtype;
use nx_dtype::value::{convert, decode, encode, Value};

fn dt(name: &str) -> Dtype {
    Dtype::of_name(name.as_bytes()).unwrap()
}
fn f(x: f64) -> Value {
    Value::Float(x.to_bits())
}
fn int_of(d: &str, v: Value) -> i128 {
    match decode(dt(d), encode(dt(d), v)) {
        Value::Int(n) => n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn integers_saturate_never_wrap() {
    assert_eq!(int_of("int8", Value::Int(300)), 127);
    assert_eq!(int_of("int32", Value::Int(4294967295)), 2147483647);
    assert_eq!(int_of("uint8", Value::Int(-5)), 0);
    assert_eq!(int_of("uint4", Value::Int(16)), 15);
    assert_eq!(int_of("int4", Value::Int(-9)), -8);
    assert_eq!(int_of("uint64", Value::Int(-1)), 0);
    assert_eq!(
        int_of("int64", Value::Int(u64::MAX as i128)),
        i64::MAX as i128
    );
    // Through the element bits too: uint32 all ones into int32.
    assert_eq!(convert(dt("uint32"), dt("int32"), 0xFFFF_FFFF), 0x7FFF_FFFF);
    assert_eq!(convert(dt("int64"), dt("int8"), 300), 127);
    assert_eq!(convert(dt("int8"), dt("uint8"), (-5i8) as u8 as u128), 0);
}

#[test]
fn floats_into_integers_truncate_and_saturate() {
    assert_eq!(int_of("int8", f(-3.99)), -3);
    assert_eq!(int_of("int8", f(3.99)), 3);
    assert_eq!(int_of("int8", f(1e10)), 127);
    assert_eq!(int_of("int8", f(f64::NEG_INFINITY)), -128);
    assert_eq!(int_of("uint16", f(-0.5)), 0);
    assert_eq!(int_of("uint16", f(-7.0)), 0);
    assert_eq!(int_of("int32", f(f64::NAN)), 0);
    assert_eq!(int_of("uint64", f(1.8446744073709552e19)), u64::MAX as i128);
    assert_eq!(int_of("int64", f(-(2f64.powi(63)))), i64::MIN as i128);
    assert_eq!(int_of("int64", f(2f64.powi(63))), i64::MAX as i128);
    // A complex number's real part, truncated.
    let c = convert(dt("float64"), dt("complex128"), (-2.5f64).to_bits() as u128);
    assert_eq!(
        convert(dt("complex128"), dt("int16"), c),
        (-2i16) as u16 as u128
    );
}

#[test]
fn booleans() {
    let b = |src: &str, raw: u128| convert(dt(src), dt("bool"), raw);
    assert_eq!(b("float64", f64::NAN.to_bits() as u128), 1);
    assert_eq!(b("float64", (-0.0f64).to_bits() as u128), 0);
    assert_eq!(b("float32", 0x8000_0000), 0);
    assert_eq!(b("float32", 0x0000_0001), 1);
    assert_eq!(b("int4", 0x8), 1);
    assert_eq!(b("uint8", 0), 0);
    // complex: re != 0 or im != 0.
    assert_eq!(b("complex64", (1.0f32.to_bits() as u128) << 32), 1);
    assert_eq!(b("complex64", 0x8000_0000 << 32 | 0x8000_0000), 0);
    assert_eq!(convert(dt("bool"), dt("bit"), 0x40), 1);
    assert_eq!(convert(dt("bit"), dt("float16"), 1), 0x3C00);
    assert_eq!(
        convert(dt("bool"), dt("complex64"), 7),
        1.0f32.to_bits() as u128
    );
    // Every store writes 0 or 1; a move of the same dtype copies.
    assert_eq!(encode(dt("bool"), f(-2.0)), 1);
    assert_eq!(convert(dt("bool"), dt("bool"), 0x40), 0x40);
}

#[test]
fn complex_components_and_same_dtype_moves() {
    let c = convert(dt("float64"), dt("complex64"), 0.1f64.to_bits() as u128);
    assert_eq!(c, 0.1f32.to_bits() as u128); // imaginary +0
    let z = (2.0f64.to_bits() as u128) << 64 | 1.5f64.to_bits() as u128;
    assert_eq!(
        convert(dt("complex128"), dt("complex64"), z),
        (2.0f32.to_bits() as u128) << 32 | 1.5f32.to_bits() as u128
    );
    assert_eq!(convert(dt("complex128"), dt("float16"), z), 0x3E00);
    // A signalling NaN moves unchanged within its dtype, and is quieted by
    // any store into another format (its payload kept).
    let snan16 = 0x7C01u128;
    assert_eq!(convert(dt("float16"), dt("float16"), snan16), snan16);
    assert_eq!(convert(dt("float16"), dt("float32"), snan16), 0x7FC0_2000);
    assert_eq!(convert(dt("float32"), dt("float16"), 0x7FC0_2000), 0x7E01);
    let snan64 = 0x7FF0_0000_0000_0001u128;
    assert_eq!(convert(dt("float64"), dt("float64"), snan64), snan64);
    // e4m3fn's NaN reads as the quiet NaN of its sign, payload 0.
    assert_eq!(convert(dt("float8_e4m3fn"), dt("float16"), 0xFF), 0xFE00);
    assert_eq!(convert(dt("float8_e4m3fn"), dt("float4_e2m1fn"), 0x7F), 0);
    assert_eq!(convert(dt("float16"), dt("float8_e4m3fn"), 0xFC00), 0xFE); // -inf saturates
}

#[test]
fn integers_into_floats_round_once() {
    let i = |n: i128, d: &str| encode(dt(d), Value::Int(n));
    assert_eq!(i(16842753, "bfloat16"), 0x4B81); // 16908288
    assert_eq!(i(2049, "float16"), 0x6800); // tie to even: 2048
    assert_eq!(i(2051, "float16"), 0x6802); // tie to even: 2052
    assert_eq!(i(65520, "float16"), 0x7C00);
    assert_eq!(i(7, "float4_e2m1fn"), 0x7); // 7 -> 6 (nearest even is 8, past max: saturate)
    assert_eq!(i(5, "float4_e2m1fn"), 0x6); // tie between 4 and 6: even significand is 4
    assert_eq!(i(-1000, "float8_e4m3fn"), 0xFE);
    assert_eq!(i(u64::MAX as i128, "float32"), 0x5F80_0000);
}

//! nx_store_f64 / nx_store_i64 / nx_store_u64 against the independent
//! reference in the fuzz crate (binary search over the format's encodings,
//! Rust's saturating `as` for integers), for every dtype, into an element of
//! exactly nx_dtype_bytes(dt, 1) bytes before a guard page. Also: the other
//! bits of a sub-byte element's byte are cleared, and nx_load_f64 of what was
//! stored into a float format gives the stored value back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nx_dtype::ffi::*;
use nx_dtype_fuzz::*;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let dt = usize::from(inp.u8() % 21);
    let raw = inp.u64();
    // Half the time a raw bit pattern; otherwise a value near a format's
    // interesting region (small exponents make ties and subnormals likely).
    let x = match inp.u8() % 4 {
        0 | 1 => f64::from_bits(raw),
        2 => (raw as i64 as f64) * 2f64.powi(i32::from(inp.u8() as i8) / 2),
        _ => f64::from_bits((raw & 0x800F_FFFF_FFFF_FFFF) | (u64::from(inp.u8()) + 0x3C0u64) << 52),
    };
    let nbytes = BITS[dt].div_ceil(8) as usize;
    let mut g = Guarded::new(nbytes, true);
    g.slice_mut().fill(0xA5);
    // SAFETY: exactly nx_dtype_bytes(dt, 1) writable bytes.
    assert_eq!(unsafe { nx_store_f64(dt as i32, x, g.ptr.cast()) }, NX_OK);
    let got = elem_bits(dt, g.slice());
    let want = ref_store_f64(dt, x);
    assert_eq!(got, want, "store_f64 dt {dt} x {x:e} ({:#x})", x.to_bits());
    if BITS[dt] < 8 {
        assert_eq!(g.slice()[0] as u128 & !mask(dt), 0, "other bits cleared");
    }
    if dt <= 6 && !x.is_nan() {
        let mut back = 0f64;
        // SAFETY: the element just written; `back` is a double.
        assert_eq!(
            unsafe { nx_load_f64(dt as i32, g.ptr.cast(), &mut back) },
            NX_OK
        );
        let f = fmt(dt).unwrap();
        let mag = (got as u64) & (f.sign_bit() - 1);
        if mag <= f.max_code() {
            let v = if dt == 0 {
                f64::from_bits(got as u64)
            } else if got as u64 & f.sign_bit() != 0 {
                -f.value(mag)
            } else {
                f.value(mag)
            };
            assert_eq!(back.to_bits(), v.to_bits(), "load_f64 dt {dt}");
        }
    }
    let i = inp.u64();
    for (v, signed) in [(i128::from(i as i64), true), (i128::from(i), false)] {
        g.slice_mut().fill(0x5A);
        // SAFETY: as above.
        let st = unsafe {
            if signed {
                nx_store_i64(dt as i32, v as i64, g.ptr.cast())
            } else {
                nx_store_u64(dt as i32, v as u64, g.ptr.cast())
            }
        };
        assert_eq!(st, NX_OK);
        assert_eq!(
            elem_bits(dt, g.slice()),
            ref_store_int(dt, v),
            "store int dt {dt} x {v}"
        );
    }
});

//! Printing round trip: any element bit pattern of any dtype formats (into
//! a buffer of exactly NX_FORMAT_MAX bytes before a guard page) to text
//! shorter than NX_FORMAT_MAX; parsing the text back and storing it gives
//! the same element bits (NaN: a NaN; bool: the same truth). A short `cap`
//! gives the prefix and a NUL, and never a byte past `cap`. nx_format_f64 of
//! any double: the same text as nx_format of its stored element, or
//! NX_ERR_NOT_VALUE with the buffer untouched.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nx_dtype::ffi::*;
use nx_dtype_fuzz::*;

/// Store the number written in `t` into `dt`; None for "nan".
fn store_text(dt: usize, t: &str) -> Option<u128> {
    if t.ends_with("nan") {
        return None;
    }
    let pf = |s: &str| -> f64 {
        match s {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => s
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("unparsable {s:?}")),
        }
    };
    Some(match dt {
        // float32 parses directly (no double rounding through float64);
        // the smaller formats' shortest texts have few digits, far from any
        // midpoint at float64 precision, so parse-then-store rounds once.
        1 => u128::from(
            match t {
                "inf" => f32::INFINITY,
                "-inf" => f32::NEG_INFINITY,
                _ => t.parse::<f32>().unwrap(),
            }
            .to_bits(),
        ),
        0 | 2..=6 => ref_store_f64(dt, pf(t)),
        7..=16 => {
            let v: i128 = t.parse().unwrap_or_else(|_| panic!("int {t:?}"));
            let (lo, hi) = int_range(dt);
            assert!(lo <= v && v <= hi, "{t} in range");
            ref_store_int(dt, v)
        }
        17 | 18 => {
            let body = t.strip_suffix('i').expect("complex ends in i");
            // The sign between the parts: the last '+'/'-' not at the start
            // and not after an 'e'.
            let b = body.as_bytes();
            let cut = (1..b.len())
                .rev()
                .find(|&i| (b[i] == b'+' || b[i] == b'-') && b[i - 1] != b'e')
                .expect("complex sign");
            let (re, im) = (&body[..cut], &body[cut..]);
            let im = im.strip_prefix('+').unwrap_or(im);
            let comp = if dt == 17 { 0 } else { 1 };
            let w = BITS[dt] / 2;
            let part = |s: &str| store_text(comp, s);
            // NaN parts: checked by the caller through the component bits.
            let r = part(re).unwrap_or(u128::MAX);
            let i = part(im).unwrap_or(u128::MAX);
            (r & ((1u128 << w) - 1)) | ((i & ((1u128 << w) - 1)) << w)
        }
        19 | 20 => match t {
            "true" => 1,
            "false" => 0,
            _ => panic!("bool text {t:?}"),
        },
        _ => unreachable!(),
    })
}

fn is_nan(dt: usize, bits: u128) -> bool {
    match fmt(dt) {
        Some(f) => {
            let mag = bits as u64 & (f.sign_bit() - 1);
            f.special != Special::None && mag > f.max_code() + u64::from(f.special == Special::Ieee)
        }
        None => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let dt = usize::from(inp.u8() % 21);
    let nbytes = BITS[dt].div_ceil(8) as usize;
    let mut e = Guarded::new(nbytes, true);
    let src = inp.bytes(nbytes);
    e.slice_mut().copy_from_slice(&src);
    let mut b = Guarded::new(NX_FORMAT_MAX, true);
    // SAFETY: elem has nx_dtype_bytes(dt, 1) bytes, buf NX_FORMAT_MAX bytes.
    let len = unsafe { nx_format(dt as i32, e.ptr.cast(), b.ptr.cast(), NX_FORMAT_MAX) };
    assert!(len >= 0 && (len as usize) < NX_FORMAT_MAX, "length {len}");
    let len = len as usize;
    assert_eq!(b.slice()[len], 0);
    let text = std::str::from_utf8(&b.slice()[..len])
        .expect("ascii")
        .to_owned();
    assert!(!text.contains('\0'));
    let bits = elem_bits(dt, e.slice());
    match dt {
        17 | 18 => {
            let w = BITS[dt] / 2;
            let c = if dt == 17 { 0 } else { 1 };
            let (re, im) = (bits & ((1u128 << w) - 1), bits >> w);
            let back = store_text(dt, &text).unwrap();
            let (bre, bim) = (back & ((1u128 << w) - 1), back >> w);
            for (orig, got) in [(re, bre), (im, bim)] {
                if is_nan(c, orig) {
                    assert_eq!(got, (1u128 << w) - 1, "{text}: NaN part prints nan");
                } else {
                    assert_eq!(orig, got, "{text}: complex part round trip");
                }
            }
        }
        19 | 20 => assert_eq!(store_text(dt, &text), Some(u128::from(bits != 0)), "{text}"),
        _ => match store_text(dt, &text) {
            None => assert!(is_nan(dt, bits), "{text} for a non-NaN {bits:#x}"),
            Some(back) => assert_eq!(back, bits, "dt {dt}: {text:?} round trip"),
        },
    }
    // snprintf's contract with a short cap: prefix and NUL, nothing after.
    let cap = usize::from(inp.u8()) % (len + 2);
    let mut s = Guarded::new(cap, true);
    s.slice_mut().fill(0xEE);
    let p = if cap == 0 && inp.u8() & 1 == 0 {
        std::ptr::null_mut()
    } else {
        s.ptr.cast()
    };
    // SAFETY: `cap` writable bytes at `p` (or NULL with cap 0).
    let l2 = unsafe { nx_format(dt as i32, e.ptr.cast(), p, cap) };
    assert_eq!(l2 as usize, len);
    if cap > 0 {
        let k = len.min(cap - 1);
        assert_eq!(&s.slice()[..k], &text.as_bytes()[..k]);
        assert_eq!(s.slice()[k], 0);
    }
    // nx_format_f64 of any double into a float dtype.
    if dt <= 6 {
        let x = f64::from_bits(inp.u64());
        b.slice_mut().fill(0xEE);
        // SAFETY: NX_FORMAT_MAX writable bytes.
        let l = unsafe { nx_format_f64(dt as i32, x, b.ptr.cast(), NX_FORMAT_MAX) };
        let stored = ref_store_f64(dt, x);
        let exact = !x.is_finite() || {
            let f = fmt(dt).unwrap();
            let m = stored as u64 & (f.sign_bit() - 1);
            dt == 0 || (m <= f.max_code() && f.value(m) == x.abs())
        };
        if exact {
            assert!(l >= 0, "format_f64 {x:e}: {l}");
            let t = std::str::from_utf8(&b.slice()[..l as usize]).unwrap();
            match store_text(dt, t) {
                None => assert!(x.is_nan()),
                Some(back) => assert_eq!(back, stored, "format_f64 {x:e}: {t}"),
            }
        } else {
            assert_eq!(l, i64::from(NX_ERR_NOT_VALUE), "format_f64 {x:e}");
            assert!(
                b.slice().iter().all(|&c| c == 0xEE),
                "nothing written on failure"
            );
        }
    }
});

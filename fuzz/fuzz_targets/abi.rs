//! The ABI fuzzer: every exported function called with arbitrary codes,
//! counts, offsets, strides, NULL or non-NULL pointers and bit patterns.
//! Every pointer handed over points into a buffer of exactly the size the
//! call may touch, with an inaccessible page right after it (or right
//! before it), so a byte too far faults. The expected status is computed
//! here, independently, in the ABI's check order; a failing call must leave
//! every output byte as it was; a successful conversion must equal
//! converting element by element.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nx_dtype::ffi::*;
use nx_dtype_fuzz::*;
use std::ffi::CStr;

fn valid(dt: i32) -> bool {
    (0..21).contains(&dt)
}

/// The expected status of a conversion, and the byte spans [lo, hi) of both
/// sides relative to their pointers when it succeeds with n > 0.
#[allow(clippy::too_many_arguments)]
fn expect_convert(
    s: i32,
    so: i64,
    ss: i64,
    d: i32,
    doff: i64,
    ds: i64,
    n: i64,
) -> Result<Option<((i128, i128), (i128, i128))>, i32> {
    if !valid(s) || !valid(d) {
        return Err(NX_ERR_DTYPE);
    }
    if n < 0 || so < 0 || doff < 0 || ds < 1 {
        return Err(NX_ERR_RANGE);
    }
    if n == 0 {
        return Ok(None);
    }
    let span = |dt: i32, off: i64, st: i64| -> Result<(i128, i128), i32> {
        let last = i128::from(off) + i128::from(n - 1) * i128::from(st);
        let (a, b) = (last.min(off.into()), last.max(off.into()));
        if a < 0 || b > i64::MAX.into() {
            return Err(NX_ERR_RANGE);
        }
        let bits = i128::from(BITS[dt as usize]);
        let (lo, hi) = (a * bits / 8, ((b + 1) * bits + 7) / 8);
        // A span whose size in bytes, or in bits, does not fit in int64.
        if hi > i64::MAX.into() || (hi - lo) * 8 > i64::MAX.into() {
            return Err(NX_ERR_RANGE);
        }
        Ok((lo, hi))
    };
    Ok(Some((span(s, so, ss)?, span(d, doff, ds)?)))
}

/// Largest buffer this fuzzer maps for one side.
const MAX_SPAN: i128 = 1 << 20;

fn convert_case(inp: &mut Input) {
    let (s, d) = (inp.code(), inp.code());
    let n = inp.count();
    let (so, ss, doff, ds) = (
        inp.count(),
        inp.count().wrapping_sub(40),
        inp.count(),
        inp.count().wrapping_sub(40),
    );
    let null_src = inp.u8() % 16 == 0;
    let null_dst = inp.u8() % 16 == 0;
    let shared = inp.u8() % 4 == 0; // both sides in one buffer: overlap cases
    let tail = inp.u8() & 1 == 0;
    let strided = !(so == 0 && ss == 1 && doff == 0 && ds == 1) || inp.u8() & 1 == 0;
    let exp = expect_convert(s, so, ss, d, doff, ds, n);
    // Spans the call would touch if it goes ahead (n > 0, arguments valid).
    let spans = match exp {
        Ok(Some(sp)) => Some(sp),
        _ => None,
    };
    if let Some(((sl, sh), (dl, dh))) = spans {
        if sh > MAX_SPAN || dh > MAX_SPAN {
            // A call that would legitimately touch more than we mapped
            // cannot be made without lying to the library; try it with the
            // NULL check instead (must fail before touching anything).
            let st = if strided {
                // SAFETY: NULL source and destination; the call must refuse.
                unsafe {
                    nx_convert_strided(
                        s,
                        std::ptr::null(),
                        so,
                        ss,
                        d,
                        std::ptr::null_mut(),
                        doff,
                        ds,
                        n,
                    )
                }
            } else {
                // SAFETY: as above.
                unsafe { nx_convert(s, std::ptr::null(), d, std::ptr::null_mut(), n) }
            };
            assert_eq!(st, NX_ERR_NULL);
            return;
        }
        let _ = (sl, dl);
    }
    // Buffers: exactly up to the span's end (tail guard) or from byte 0
    // (head guard); a side whose call fails early still gets a buffer.
    let (sh, dh) = spans.map_or((16, 16), |((_, a), (_, b))| (a as usize, b as usize));
    let shift = usize::from(inp.u8() % 64);
    let (mut gs, mut gd);
    let (sp, dp): (*const u8, *mut u8);
    if shared {
        // One buffer: the destination starts `shift` bytes in.
        gs = Guarded::new(sh.max(dh + shift), tail);
        gd = Guarded::new(0, tail);
        sp = gs.ptr;
        // SAFETY: inside gs (shift <= len - dh).
        dp = unsafe { gs.ptr.add(gs.len - dh - shift.min(gs.len - dh)) };
    } else {
        gs = Guarded::new(sh, tail);
        gd = Guarded::new(dh, tail);
        sp = gs.ptr;
        dp = gd.ptr;
    }
    let src_init = inp.bytes(gs.len);
    gs.slice_mut().copy_from_slice(&src_init);
    let fill = inp.u8();
    gd.slice_mut().fill(fill);
    let sp = if null_src { std::ptr::null() } else { sp };
    let dp = if null_dst { std::ptr::null_mut() } else { dp };
    let mut want = exp.map(|_| ());
    if let (Ok(()), Some(((sl, sh2), (dl, dh2)))) = (want, spans) {
        if sp.is_null() || dp.is_null() {
            want = Err(NX_ERR_NULL);
        } else {
            let (a, b) = (sp as i128 + sl, sp as i128 + sh2);
            let (c, e) = (dp as i128 + dl, dp as i128 + dh2);
            if a < e && c < b {
                want = Err(NX_ERR_OVERLAP);
            }
        }
    }
    let before_s = gs.slice().to_vec();
    let before_d = gd.slice().to_vec();
    // SAFETY: every pointer is NULL or has the bytes the arguments address.
    let st = unsafe {
        if strided {
            nx_convert_strided(s, sp.cast(), so, ss, d, dp.cast(), doff, ds, n)
        } else {
            nx_convert(s, sp.cast(), d, dp.cast(), n)
        }
    };
    assert_eq!(
        st,
        want.err().unwrap_or(NX_OK),
        "convert {s}->{d} n {n} {so}/{ss} {doff}/{ds}"
    );
    if st != NX_OK || n == 0 {
        assert!(
            gs.slice() == before_s && gd.slice() == before_d,
            "written on failure / n = 0"
        );
        return;
    }
    if shared {
        return; // overlapping cases were refused above; disjoint ones pass
    }
    // Element by element (n = 1 calls) into a copy of the old destination.
    let mut r = Guarded::new(gd.len, true);
    r.slice_mut().copy_from_slice(&before_d);
    for i in 0..n {
        // SAFETY: single elements inside the same spans.
        let st1 = unsafe {
            nx_convert_strided(
                s,
                gs.ptr.cast(),
                so + i * ss,
                1,
                d,
                r.ptr.cast(),
                doff + i * ds,
                1,
                1,
            )
        };
        assert_eq!(st1, NX_OK);
    }
    assert!(
        gd.slice() == r.slice(),
        "bulk differs from element by element {s}->{d} n {n}"
    );
}

/// Status and write checks for the one-element functions.
fn scalar_case(inp: &mut Input) {
    let dt = inp.code();
    let ok = valid(dt);
    let nb = if ok {
        BITS[dt as usize].div_ceil(8) as usize
    } else {
        16
    };
    let null = inp.u8() % 8 == 0;
    let tail = inp.u8() & 1 == 0;
    let mut g = Guarded::new(nb, tail);
    let init = inp.bytes(nb);
    g.slice_mut().copy_from_slice(&init);
    let p = if null { std::ptr::null_mut() } else { g.ptr };
    let x = f64::from_bits(inp.u64());
    let i = inp.u64();
    let kind = if ok { KIND[dt as usize] } else { -1 };
    let base = if !ok {
        NX_ERR_DTYPE
    } else if null {
        NX_ERR_NULL
    } else {
        NX_OK
    };
    let op = inp.u8() % 8;
    // SAFETY (all calls below): `p` is NULL or has nx_dtype_bytes(dt, 1)
    // bytes; `out` pointers are NULL or point to guarded objects.
    let (st, want) = unsafe {
        match op {
            0 => (nx_store_f64(dt, x, p.cast()), base),
            1 => (nx_store_i64(dt, i as i64, p.cast()), base),
            2 => (nx_store_u64(dt, i, p.cast()), base),
            3 | 4 => {
                let w = if base == NX_OK && kind == 1 {
                    NX_ERR_KIND
                } else {
                    base
                };
                let f = if op == 3 {
                    nx_dtype_min_value
                } else {
                    nx_dtype_max_value
                };
                (f(dt, p.cast()), w)
            }
            5 => {
                let mut o = Guarded::new(8, tail);
                o.slice_mut().fill(0x77);
                let onull = inp.u8() % 8 == 0;
                let op = if onull {
                    std::ptr::null_mut()
                } else {
                    o.ptr.cast::<f64>()
                };
                let w = if base == NX_OK && onull {
                    NX_ERR_NULL
                } else {
                    base
                };
                let st = nx_load_f64(dt, p.cast(), op);
                if st != NX_OK {
                    assert!(
                        o.slice().iter().all(|&c| c == 0x77),
                        "load wrote on failure"
                    );
                }
                assert!(g.slice() == init, "load wrote its input");
                (st, w)
            }
            6 => {
                // nx_format: cap 0..=64, buf of exactly cap bytes.
                let cap = usize::from(inp.u8() % 65);
                let mut b = Guarded::new(cap, tail);
                b.slice_mut().fill(0x66);
                let bnull = inp.u8() % 4 == 0;
                let bp = if bnull {
                    std::ptr::null_mut()
                } else {
                    b.ptr.cast()
                };
                let w = if base == NX_OK && bnull && cap > 0 {
                    NX_ERR_NULL
                } else {
                    base
                };
                let l = nx_format(dt, p.cast_const().cast(), bp, cap);
                if l < 0 {
                    assert!(
                        b.slice().iter().all(|&c| c == 0x66),
                        "format wrote on failure"
                    );
                    (l as i32, w)
                } else {
                    assert!((l as usize) < NX_FORMAT_MAX);
                    (NX_OK, w)
                }
            }
            _ => {
                let cap = usize::from(inp.u8() % 65);
                let mut b = Guarded::new(cap, tail);
                b.slice_mut().fill(0x66);
                let bnull = inp.u8() % 4 == 0;
                let bp = if bnull {
                    std::ptr::null_mut()
                } else {
                    b.ptr.cast()
                };
                let mut w = if !ok {
                    NX_ERR_DTYPE
                } else if bnull && cap > 0 {
                    NX_ERR_NULL
                } else {
                    NX_OK
                };
                if w == NX_OK && kind != 0 {
                    w = NX_ERR_KIND;
                }
                if w == NX_OK {
                    let s = ref_store_f64(dt as usize, x);
                    let f = fmt(dt as usize).unwrap();
                    let m = s as u64 & (f.sign_bit() - 1);
                    if x.is_finite() && dt != 0 && !(m <= f.max_code() && f.value(m) == x.abs()) {
                        w = NX_ERR_NOT_VALUE;
                    }
                }
                let l = nx_format_f64(dt, x, bp, cap);
                if l < 0 {
                    assert!(
                        b.slice().iter().all(|&c| c == 0x66),
                        "format_f64 wrote on failure"
                    );
                    (l as i32, w)
                } else {
                    (NX_OK, w)
                }
            }
        }
    };
    assert_eq!(st, want, "op {op} dt {dt} null {null}");
    if st != NX_OK && op <= 4 {
        assert!(g.slice() == init, "op {op} wrote on failure");
    }
}

fn facts_case(inp: &mut Input) {
    let dt = inp.code();
    let ok = valid(dt);
    let tail = inp.u8() & 1 == 0;
    // SAFETY (all calls): pointers are NULL or to guarded objects of the
    // size the function writes or reads.
    unsafe {
        assert_eq!(
            nx_dtype_bits(dt),
            if ok {
                BITS[dt as usize] as i32
            } else {
                NX_ERR_DTYPE
            }
        );
        assert_eq!(
            nx_dtype_kind(dt),
            if ok { KIND[dt as usize] } else { NX_ERR_DTYPE }
        );
        let name = nx_dtype_name(dt);
        assert_eq!(name.is_null(), !ok);
        if ok {
            let s = CStr::from_ptr(name).to_bytes();
            // The name, given without its NUL and ending at a guard page.
            let mut g = Guarded::new(s.len(), true);
            g.slice_mut().copy_from_slice(s);
            assert_eq!(nx_dtype_of_name(g.ptr.cast(), s.len()), dt);
        }
        // Arbitrary names of exactly `len` bytes.
        let len = usize::from(inp.u8() % 24);
        let mut g = Guarded::new(len, tail);
        let name_bytes = inp.bytes(len);
        g.slice_mut().copy_from_slice(&name_bytes);
        let c = nx_dtype_of_name(g.ptr.cast(), len);
        let known =
            (0..21).find(|&k| CStr::from_ptr(nx_dtype_name(k)).to_bytes() == name_bytes.as_slice());
        assert_eq!(c, known.unwrap_or(NX_ERR_DTYPE), "of_name {name_bytes:?}");
        let _ = nx_dtype_of_name(std::ptr::null(), len);
        // nx_dtype_bytes with any n; out NULL or exactly 8 bytes.
        let n = inp.count();
        let mut o = Guarded::new(8, tail);
        o.slice_mut().fill(0x55);
        let onull = inp.u8() % 8 == 0;
        let op = if onull {
            std::ptr::null_mut()
        } else {
            o.ptr.cast::<i64>()
        };
        let st = nx_dtype_bytes(dt, n, op);
        let want_v = if ok && n >= 0 {
            Some(bytes(dt as usize, n.into()))
        } else {
            None
        };
        let want = if !ok {
            NX_ERR_DTYPE
        } else if n < 0 || want_v.unwrap() > i64::MAX.into() {
            NX_ERR_RANGE
        } else if onull {
            NX_ERR_NULL
        } else {
            NX_OK
        };
        assert_eq!(st, want, "bytes dt {dt} n {n}");
        if st == NX_OK {
            assert_eq!(
                i128::from(i64::from_le_bytes(o.slice().try_into().unwrap())),
                want_v.unwrap()
            );
        } else {
            assert!(o.slice().iter().all(|&c| c == 0x55));
        }
        let to = inp.code();
        let e = nx_dtype_exact(dt, to);
        assert!(if ok && valid(to) {
            e == 0 || e == 1
        } else {
            e == NX_ERR_DTYPE
        });
        let mut f = Guarded::new(std::mem::size_of::<NxFloatFormat>(), tail);
        f.slice_mut().fill(0x44);
        let fnull = inp.u8() % 8 == 0;
        let fp = if fnull {
            std::ptr::null_mut()
        } else {
            f.ptr.cast::<NxFloatFormat>()
        };
        let st = nx_dtype_float_format(dt, fp);
        let want = if !ok {
            NX_ERR_DTYPE
        } else if fnull {
            NX_ERR_NULL
        } else if KIND[dt as usize] != 0 {
            NX_ERR_KIND
        } else {
            NX_OK
        };
        assert_eq!(st, want, "float_format {dt}");
        if st != NX_OK {
            assert!(f.slice().iter().all(|&c| c == 0x44));
        }
        let x = f64::from_bits(inp.u64());
        let v = nx_is_value_f64(dt, x);
        assert!(if !ok {
            v == NX_ERR_DTYPE
        } else if KIND[dt as usize] > 1 {
            v == NX_ERR_KIND
        } else {
            v == 0 || v == 1
        });
        let m = nx_status_message(inp.u64() as i32);
        assert!(!m.is_null() && !CStr::from_ptr(m).to_bytes().is_empty());
        assert!(!nx_version().is_null() && !nx_kernel_isa().is_null());
        assert_eq!(nx_abi_version(), 1);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    for _ in 0..4 {
        match inp.u8() % 3 {
            0 => convert_case(&mut inp),
            1 => scalar_case(&mut inp),
            _ => facts_case(&mut inp),
        }
        if inp.0.is_empty() {
            break;
        }
    }
});

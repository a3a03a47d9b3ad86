//! Kernels: every level this CPU runs (scalar, avx2, avx512) against the
//! element-by-element reference (value::convert, one element at a time),
//! over random dtype pairs, lengths, offsets, strides (negative source
//! strides included) and source bit patterns. The destination starts with
//! random bytes; every bit outside the written elements must survive.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nx_dtype::kernels::{self, pack, Isa, Side};
use nx_dtype::table::Dtype;
use nx_dtype::value::convert;
use nx_dtype_fuzz::*;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let (s, d) = (usize::from(inp.u8() % 21), usize::from(inp.u8() % 21));
    // Lengths past the 256-element block and the 8-element head matter.
    let n = match inp.u8() % 4 {
        0 => usize::from(inp.u8() % 20),
        1 | 2 => usize::from(inp.u8()),
        _ => usize::from(inp.u8()) * 4 + usize::from(inp.u8() % 4),
    };
    let s_stride = i64::from(inp.u8() % 9) - 4;
    let d_stride = i64::from(inp.u8() % 4) + 1;
    let d_off = i64::from(inp.u8() % 17);
    let mut s_off = i64::from(inp.u8() % 17);
    if s_stride < 0 && n > 0 {
        s_off += (n as i64 - 1) * -s_stride;
    }
    let (sd, dd) = (
        Dtype::from_code(s as i32).unwrap(),
        Dtype::from_code(d as i32).unwrap(),
    );
    let side = |dt, offset, stride| Side { dt, offset, stride };
    let plan = kernels::plan(
        side(sd, s_off, s_stride),
        side(dd, d_off, d_stride),
        n as i64,
    );
    let Ok(Some((sp, dp))) = plan else {
        assert!(n == 0, "a valid call was refused");
        return;
    };
    let src: Vec<u8> = inp.bytes(sp.len);
    let init: Vec<u8> = (0..dp.len)
        .map(|i| inp.u8() ^ (i as u8).wrapping_mul(37))
        .collect();
    // The reference: one element at a time, positions computed here.
    let mut want = init.clone();
    let (sb, db) = (BITS[s] as i64, BITS[d] as i64);
    let s_base = (sp.lo as i64) * 8;
    let d_base = (dp.lo as i64) * 8;
    for i in 0..n as i64 {
        let sbit = (s_off + i * s_stride) * sb - s_base;
        let dbit = (d_off + i * d_stride) * db - d_base;
        let raw = pack::read(&src, sbit as usize, sb as u32);
        pack::write(&mut want, dbit as usize, db as u32, convert(sd, dd, raw));
    }
    for isa in Isa::ALL {
        if !isa.supported() {
            continue;
        }
        let mut got = init.clone();
        kernels::run(isa, &sp, &dp, &src, &mut got, n);
        assert!(
            got == want,
            "{isa:?} {s}->{d} n {n} src {s_off}/{s_stride} dst {d_off}/{d_stride}"
        );
    }
});

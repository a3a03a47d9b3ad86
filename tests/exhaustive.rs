//! `make test-exhaustive` (not part of `make test`): every one of the 2^32
//! float32 bit patterns, and every int32 and uint32, into each destination
//! that has a kernel at some level above the scalar reference (float16,
//! bfloat16, float8_e4m3fn, float8_e5m2 and float4_e2m1fn among them, the
//! narrow floats, and the integers, bool, float64, the 64-bit integers and
//! complex64), each such level this CPU runs (`portable`, `avx2`,
//! `avx512`; only those named in `NX_EXHAUSTIVE_LEVELS=a,b` when set)
//! against the scalar reference, bit for bit; and the reference's decode of
//! every float32 (`store::load_f64`) against the hardware's.

use nx_dtype::ffi::*;
use nx_dtype::kernels::{Isa, Kernel};
use nx_dtype::table::Dtype;

const CHUNK: u64 = 1 << 16;

/// The levels swept: every level of this architecture above the scalar
/// reference that the CPU runs, or those `NX_EXHAUSTIVE_LEVELS` names.
fn levels() -> Vec<Isa> {
    let only = std::env::var("NX_EXHAUSTIVE_LEVELS").ok();
    Isa::here()
        .iter()
        .copied()
        .filter(|&i| i != Isa::Scalar && i.supported())
        .filter(|i| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|n| Isa::of_name(n.trim()) == Some(*i)))
        })
        .collect()
}

fn sweep(s: i32, d: i32) {
    let (s, d) = (
        Dtype::from_code(s).expect("s"),
        Dtype::from_code(d).expect("d"),
    );
    let levels = levels();
    let out_bytes = (CHUNK as usize * d.bits() as usize).div_ceil(8);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let chunks = (1u64 << 32) / CHUNK;
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let levels = &levels;
            scope.spawn(move || {
                let mut src = vec![0u8; CHUNK as usize * 4];
                let mut want = vec![0u8; out_bytes];
                let mut got = vec![0u8; out_bytes];
                for c in (t..chunks).step_by(threads as usize) {
                    for (i, b) in src.chunks_exact_mut(4).enumerate() {
                        b.copy_from_slice(&((c * CHUNK + i as u64) as u32).to_le_bytes());
                    }
                    Kernel::Scalar(s, d).run(&src, &mut want, CHUNK as usize);
                    for &isa in levels {
                        Kernel::of(isa, s, d).run(&src, &mut got, CHUNK as usize);
                        assert!(
                            got == want,
                            "{isa:?} {} -> {}: chunk {c:#x} differs",
                            s.name(),
                            d.name()
                        );
                    }
                }
            });
        }
    });
    println!(
        "{} -> {}: 2^32 sources, levels {:?} equal to scalar ({:.0?})",
        s.name(),
        d.name(),
        levels,
        start.elapsed()
    );
}

/// Every destination with a kernel for `s` at some level swept.
fn simd_destinations(s: i32) -> Vec<i32> {
    let s = Dtype::from_code(s).expect("s");
    let levels = levels();
    Dtype::all()
        .filter(|&d| d != s)
        .filter(|&d| levels.iter().any(|&i| Kernel::is_simd(i, s, d)))
        .map(|d| d.code())
        .collect()
}

#[test]
#[ignore = "2^32 elements per pair: make test-exhaustive"]
fn exhaustive_float32() {
    let ds = simd_destinations(NX_FLOAT32);
    // The five narrow float formats at least.
    for d in [
        NX_FLOAT16,
        NX_BFLOAT16,
        NX_FLOAT8_E4M3FN,
        NX_FLOAT8_E5M2,
        NX_FLOAT4_E2M1FN,
    ] {
        assert!(ds.contains(&d) || levels().is_empty(), "{d}");
    }
    for d in ds {
        sweep(NX_FLOAT32, d);
    }
}

#[test]
#[ignore = "2^32 elements per pair: make test-exhaustive"]
fn exhaustive_int32_uint32() {
    for s in [NX_INT32, NX_UINT32] {
        for d in simd_destinations(s) {
            sweep(s, d);
        }
    }
}

/// `store::load_f64` of every float32 bit pattern: the float64 the hardware
/// widens it to for a number (exact, and an oracle no one here wrote); a
/// NaN the quiet NaN of its sign with its whole payload, checked by the
/// rule itself (Rust leaves a cast NaN's payload unspecified). Normal
/// values rebias in `load_f64`, subnormals normalise through `round_parts`.
#[test]
#[ignore = "2^32 values: make test-exhaustive"]
fn every_float32_loads_exactly() {
    use nx_dtype::format::F32;
    use nx_dtype::store::load_f64;
    let start = std::time::Instant::now();
    for x in 0..=u32::MAX {
        let v = f32::from_bits(x);
        let want = if v.is_nan() {
            u64::from(x >> 31) << 63 | 0x7FF8 << 48 | u64::from(x & 0x3F_FFFF) << 29
        } else {
            f64::from(v).to_bits()
        };
        let got = load_f64(F32, u64::from(x));
        assert_eq!(
            got, want,
            "float32 {x:#010x}: {got:#018x}, want {want:#018x}"
        );
    }
    println!(
        "float32 -> float64 load: 2^32 patterns ({:.0?})",
        start.elapsed()
    );
}

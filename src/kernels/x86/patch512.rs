//! The table entries of the hand-written AVX-512 kernels (`avx512.rs`); the
//! AVX2 level's come from `avx2.rs`, put in by `build`.

use super::avx512::{E2m1, E4m3, E5m2};
use super::{avx512, entry, Table};

entry!(z_f16_to_f32, avx512::f16_to_f32, 16, 32);
entry!(z_f32_to_f16, avx512::f32_to_f16, 32, 16);
entry!(z_f32_to_e4m3, avx512::to_narrow[E4m3, false], 32, 8);
entry!(z_f32_to_e5m2, avx512::to_narrow[E5m2, false], 32, 8);
entry!(z_f32_to_e2m1, avx512::to_narrow[E2m1, false], 32, 4);
entry!(z_e4m3_to_f32, avx512::e4m3_to_f32, 8, 32);
entry!(z_e5m2_to_f32, avx512::e5m2_to_f32, 8, 32);
entry!(z_e2m1_to_f32, avx512::e2m1_to_f32, 4, 32);
entry!(z_bf16_to_f32, avx512::bf16_to_f32, 16, 32);
entry!(z_f32_to_bf16, avx512::f32_to_bf16, 32, 16);
// The two below need AVX512-BF16 too (checked where they are put).
entry!(z_f32_to_bf16_ne, avx512::f32_to_bf16_ne, 32, 16);
entry!(z_s8_to_f32, avx512::i8_to_f32[true], 8, 32);
entry!(z_u8_to_f32, avx512::i8_to_f32[false], 8, 32);
entry!(z_f32_to_s8, avx512::f32_to_i8[true], 32, 8);
entry!(z_f32_to_u8, avx512::f32_to_i8[false], 32, 8);
entry!(z_f64_to_f32, avx512::f64_to_f32, 64, 32);
entry!(z_f32_to_f64, avx512::f32_to_f64, 32, 64);
entry!(z_f64_to_f16, avx512::f64_to_f16, 64, 16);
entry!(z_f64_to_bf16, avx512::f64_to_bf16, 64, 16);
entry!(z_f64_to_bf16_ne, avx512::f64_to_bf16_ne, 64, 16);
entry!(z_f64_to_e4m3, avx512::to_narrow[E4m3, true], 64, 8);
entry!(z_f64_to_e5m2, avx512::to_narrow[E5m2, true], 64, 8);
entry!(z_f64_to_e2m1, avx512::to_narrow[E2m1, true], 64, 4);

/// Put the hand-written kernels in the AVX-512 level's table, over the
/// generic ones.
pub fn patch(t: &mut Table) {
    use crate::ffi::*;
    let mut set = |s: i32, d: i32, k: super::SimdKernel| {
        if let Some(cell) = t.get_mut(s as usize).and_then(|r| r.get_mut(d as usize)) {
            *cell = Some(k);
        }
    };
    // VCVTNEPS2BF16 where the CPU has AVX512-BF16.
    let ne = is_x86_feature_detected!("avx512bf16");
    set(NX_FLOAT16, NX_FLOAT32, z_f16_to_f32);
    set(NX_FLOAT32, NX_FLOAT16, z_f32_to_f16);
    set(NX_FLOAT32, NX_FLOAT8_E4M3FN, z_f32_to_e4m3);
    set(NX_FLOAT32, NX_FLOAT8_E5M2, z_f32_to_e5m2);
    set(NX_FLOAT32, NX_FLOAT4_E2M1FN, z_f32_to_e2m1);
    set(NX_FLOAT8_E4M3FN, NX_FLOAT32, z_e4m3_to_f32);
    set(NX_FLOAT8_E5M2, NX_FLOAT32, z_e5m2_to_f32);
    set(NX_FLOAT4_E2M1FN, NX_FLOAT32, z_e2m1_to_f32);
    set(NX_BFLOAT16, NX_FLOAT32, z_bf16_to_f32);
    set(
        NX_FLOAT32,
        NX_BFLOAT16,
        if ne { z_f32_to_bf16_ne } else { z_f32_to_bf16 },
    );
    set(NX_INT8, NX_FLOAT32, z_s8_to_f32);
    set(NX_UINT8, NX_FLOAT32, z_u8_to_f32);
    set(NX_FLOAT32, NX_INT8, z_f32_to_s8);
    set(NX_FLOAT32, NX_UINT8, z_f32_to_u8);
    set(NX_FLOAT64, NX_FLOAT32, z_f64_to_f32);
    set(NX_FLOAT32, NX_FLOAT64, z_f32_to_f64);
    set(NX_FLOAT64, NX_FLOAT16, z_f64_to_f16);
    set(
        NX_FLOAT64,
        NX_BFLOAT16,
        if ne { z_f64_to_bf16_ne } else { z_f64_to_bf16 },
    );
    set(NX_FLOAT64, NX_FLOAT8_E4M3FN, z_f64_to_e4m3);
    set(NX_FLOAT64, NX_FLOAT8_E5M2, z_f64_to_e5m2);
    set(NX_FLOAT64, NX_FLOAT4_E2M1FN, z_f64_to_e2m1);
}

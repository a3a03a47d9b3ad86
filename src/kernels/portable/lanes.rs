//! Pairs that meet in float32 bits: a source decoded into a step of
//! float32 bits (`Dec`: exactly, or for the sources wider than float32
//! rounded so that the narrow formats round it as they would the source),
//! then encoded from them (`Enc`: the narrow formats rounded in the
//! integers, `floats::narrow`; the machine types by `Cast` from float32).
//! Each stage is its own pass over the step's array, so that each is
//! vectorized at its own width (a float64 source's two a vector, float32
//! bits' four).

use super::elems::{Bf16, Cast, E2m1, E4m3, E5m2, Elem, C128, C64, F16, I4, U4};
use super::floats::{bf16_bits, f16_bits, fold, narrow, odd64, Narrow};
use super::{Pair, Step, STEP};
use crate::format::{Format, BF16, E2M1FN, E4M3FN, E5M2, F16 as F16_FORMAT};

/// A source decoded into float32 bits.
pub(crate) trait Dec: Elem {
    /// Whether `dec` does float arithmetic (`Step::FLOATS`).
    const FLOATS: bool;
    fn dec(self) -> u32;
}

/// A destination encoded from float32 bits.
pub(crate) trait Enc: Elem {
    /// Whether `enc` does float arithmetic (`Step::FLOATS`).
    const FLOATS: bool;
    fn enc(x: u32) -> Self;
}

/// The family of kernels that meet in float32 bits.
pub(crate) struct Lanes;

impl<S: Dec, D: Enc> Step for Pair<Lanes, S, D> {
    const SB: usize = S::BITS;
    const DB: usize = D::BITS;
    const FLOATS: bool = <S as Dec>::FLOATS || <D as Enc>::FLOATS;
    #[inline(always)]
    fn step(src: &[u8], dst: &mut [u8]) {
        let (sw, dw) = (STEP * S::BITS / 8, STEP * D::BITS / 8);
        for (s, d) in src.chunks_exact(sw).zip(dst.chunks_exact_mut(dw)) {
            let mut lanes = [0u32; STEP];
            for (l, x) in lanes.iter_mut().zip(S::read(s)) {
                *l = x.dec();
            }
            D::write(d, lanes.iter().map(|&l| D::enc(l)));
        }
    }
}

macro_rules! dec {
    ($($t:ty: $floats:literal, |$x:ident| $e:expr;)*) => {$(
        impl Dec for $t {
            const FLOATS: bool = $floats;
            #[inline(always)]
            fn dec(self) -> u32 {
                let $x = self;
                $e
            }
        }
    )*};
}

dec! {
    f32: false, |x| x.to_bits();
    F16: true, |x| f16_bits(x.0);
    Bf16: false, |x| bf16_bits(x.0);
    // Exact: at most 16 significant bits.
    i16: false, |x| f32::from(x).to_bits();
    u16: false, |x| f32::from(x).to_bits();
    f64: true, |x| fold(x.to_bits());
    C128: true, |x| fold(x.0[0].to_bits());
    C64: false, |x| x.0[0].to_bits();
    // float64 holds every 32-bit integer.
    i32: true, |x| fold(f64::from(x).to_bits());
    u32: true, |x| fold(f64::from(x).to_bits());
    i64: false, |x| odd64(x.unsigned_abs(), x < 0);
    u64: false, |x| odd64(x, false);
}

macro_rules! narrow_format {
    ($($t:ty = $f:expr, $floats:literal;)*) => {$(
        impl Narrow for $t {
            const F: Format = $f;
        }
        impl Enc for $t {
            const FLOATS: bool = $floats;
            #[inline(always)]
            fn enc(x: u32) -> Self {
                Self(narrow::<Self>(x) as _)
            }
        }
    )*};
}

// bfloat16 rounds in the integers alone (`narrow`).
narrow_format! {
    F16 = F16_FORMAT, true;
    Bf16 = BF16, false;
    E4m3 = E4M3FN, true;
    E5m2 = E5M2, true;
    E2m1 = E2M1FN, true;
}

/// Machine types from float32 bits that hold their source's number
/// exactly (float16's and bfloat16's): `Cast` from float32.
macro_rules! enc_cast {
    ($($t:ty),*) => {$(
        impl Enc for $t {
            const FLOATS: bool = <f32 as Cast<$t>>::FLOATS;
            #[inline(always)]
            fn enc(x: u32) -> Self {
                f32::from_bits(x).cast()
            }
        }
    )*};
}

enc_cast!(f64, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4, C128);

impl Enc for f32 {
    const FLOATS: bool = false;
    #[inline(always)]
    fn enc(x: u32) -> Self {
        f32::from_bits(x)
    }
}

impl Enc for C64 {
    const FLOATS: bool = false;
    #[inline(always)]
    fn enc(x: u32) -> Self {
        C64([f32::from_bits(x), 0.0])
    }
}

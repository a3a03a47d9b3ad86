//! Every dtype as a machine type (`Elem`: a step of its elements read from
//! and written to bytes, sub-byte ones unpacked and packed), and `Cast`: one
//! element converted by the hardware's own conversions where they are the
//! rule (SEMANTICS.md), so that the compiler vectorizes them:
//!
//! - integer -> integer: clamped into the range both hold, then converted
//!   (exactly, now);
//! - float -> integer: as Rust's `as`, which truncates, saturates and takes
//!   NaN to 0 (`trunc.rs`); into int4 and uint4, then clamped;
//! - integer -> float: `as`, one rounding (nearest-even, under the
//!   environment `Arch::under` sets), or exact;
//! - float32 <-> float64: `as`, which makes a NaN quiet keeping its payload
//!   where the target's conversion does (`floats::KEEPS_NAN`); elsewhere
//!   the NaN is built from its bits;
//! - complex: a complex converts as its real part, into a complex part by
//!   part; a real becomes (the real, +0);
//! - bool and bit: "not zero" (a float's magnitude bits, so a NaN is true),
//!   and from them 0 or 1 in the destination's encoding.

use super::floats::{nan32, nan64};
use super::trunc::Trunc;
use super::{Pair, Step, STEP};
use crate::codes::*;
use crate::kernels::lanes::Side;

/// A dtype whose elements are read from and written to their bytes: as the
/// elements are used and made, where they fill whole bytes each (any
/// number of them), so that the compiler fuses a kernel's work into one
/// loop; a step's (`STEP * BITS / 8` bytes) through an array unpacked or
/// packed after, where they share bytes.
pub(crate) trait Elem: Copy + Default + Side {
    fn read(src: &[u8]) -> impl Iterator<Item = Self>;
    fn write(dst: &mut [u8], v: impl Iterator<Item = Self>);
}

/// float16 bits.
#[derive(Clone, Copy, Default)]
pub(crate) struct F16(pub u16);
/// bfloat16 bits.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bf16(pub u16);
/// float8_e4m3fn bits.
#[derive(Clone, Copy, Default)]
pub(crate) struct E4m3(pub u8);
/// float8_e5m2 bits.
#[derive(Clone, Copy, Default)]
pub(crate) struct E5m2(pub u8);
/// float4_e2m1fn bits (the low 4).
#[derive(Clone, Copy, Default)]
pub(crate) struct E2m1(pub u8);
/// int4, as its value.
#[derive(Clone, Copy, Default)]
pub(crate) struct I4(pub i8);
/// uint4, as its value.
#[derive(Clone, Copy, Default)]
pub(crate) struct U4(pub u8);
/// complex128: real part, then imaginary.
#[derive(Clone, Copy, Default)]
pub(crate) struct C128(pub [f64; 2]);
/// complex64: real part, then imaginary.
#[derive(Clone, Copy, Default)]
pub(crate) struct C64(pub [f32; 2]);
/// bool: a byte, true when not zero.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bool(pub u8);
/// bit: false or true.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bit(pub bool);

/// `Elem` for types of whole bytes: `$t: width, code, |bytes| value, |value|
/// bytes;`.
macro_rules! words {
    ($($t:ty: $w:literal, $dt:expr, |$b:ident| $get:expr, |$x:ident| $put:expr;)*) => {$(
        impl Side for $t {
            const DT: i32 = $dt;
        }
        impl Elem for $t {
            #[inline(always)]
            fn read(src: &[u8]) -> impl Iterator<Item = Self> {
                src.as_chunks::<$w>().0.iter().map(|&$b| $get)
            }
            #[inline(always)]
            fn write(dst: &mut [u8], v: impl Iterator<Item = Self>) {
                for (b, $x) in dst.as_chunks_mut::<$w>().0.iter_mut().zip(v) {
                    *b = $put;
                }
            }
        }
    )*};
}

words! {
    f64: 8, NX_FLOAT64, |b| f64::from_le_bytes(b), |x| x.to_le_bytes();
    f32: 4, NX_FLOAT32, |b| f32::from_le_bytes(b), |x| x.to_le_bytes();
    i64: 8, NX_INT64, |b| i64::from_le_bytes(b), |x| x.to_le_bytes();
    u64: 8, NX_UINT64, |b| u64::from_le_bytes(b), |x| x.to_le_bytes();
    i32: 4, NX_INT32, |b| i32::from_le_bytes(b), |x| x.to_le_bytes();
    u32: 4, NX_UINT32, |b| u32::from_le_bytes(b), |x| x.to_le_bytes();
    i16: 2, NX_INT16, |b| i16::from_le_bytes(b), |x| x.to_le_bytes();
    u16: 2, NX_UINT16, |b| u16::from_le_bytes(b), |x| x.to_le_bytes();
    i8: 1, NX_INT8, |b| i8::from_le_bytes(b), |x| x.to_le_bytes();
    u8: 1, NX_UINT8, |b| u8::from_le_bytes(b), |x| x.to_le_bytes();
    F16: 2, NX_FLOAT16, |b| F16(u16::from_le_bytes(b)), |x| x.0.to_le_bytes();
    Bf16: 2, NX_BFLOAT16, |b| Bf16(u16::from_le_bytes(b)), |x| x.0.to_le_bytes();
    E4m3: 1, NX_FLOAT8_E4M3FN, |b| E4m3(u8::from_le_bytes(b)), |x| x.0.to_le_bytes();
    E5m2: 1, NX_FLOAT8_E5M2, |b| E5m2(u8::from_le_bytes(b)), |x| x.0.to_le_bytes();
    Bool: 1, NX_BOOL, |b| Bool(u8::from_le_bytes(b)), |x| x.0.to_le_bytes();
    C128: 16, NX_COMPLEX128,
        |b| {
            let w = u128::from_le_bytes(b);
            C128([f64::from_bits(w as u64), f64::from_bits((w >> 64) as u64)])
        },
        |x| (u128::from(x.0[0].to_bits()) | u128::from(x.0[1].to_bits()) << 64).to_le_bytes();
    C64: 8, NX_COMPLEX64,
        |b| {
            let w = u64::from_le_bytes(b);
            C64([f32::from_bits(w as u32), f32::from_bits((w >> 32) as u32)])
        },
        |x| (u64::from(x.0[0].to_bits()) | u64::from(x.0[1].to_bits()) << 32).to_le_bytes();
}

/// The step's elements of `v`, in an array (for packing).
#[inline(always)]
fn gather<T: Copy + Default>(v: impl Iterator<Item = T>) -> [T; STEP] {
    let mut a = [T::default(); STEP];
    for (a, x) in a.iter_mut().zip(v) {
        *a = x;
    }
    a
}

/// `Elem` for the 4-bit dtypes, two a byte, low nibble first: `$t, code,
/// |nibble| value, |value| nibble;`.
macro_rules! nibbles {
    ($($t:ident, $dt:expr, |$c:ident| $get:expr, |$x:ident| $put:expr;)*) => {$(
        impl Side for $t {
            const DT: i32 = $dt;
        }
        impl Elem for $t {
            #[inline(always)]
            fn read(src: &[u8]) -> impl Iterator<Item = Self> {
                let mut v = [Self::default(); STEP];
                for (p, &b) in v.as_chunks_mut::<2>().0.iter_mut().zip(src) {
                    *p = [b & 15, b >> 4].map(|$c| $get);
                }
                v.into_iter()
            }
            #[inline(always)]
            fn write(dst: &mut [u8], v: impl Iterator<Item = Self>) {
                let v = gather(v);
                for (p, b) in v.as_chunks::<2>().0.iter().zip(dst) {
                    let [lo, hi] = p.map(|$x| ($put) & 15);
                    *b = lo | hi << 4;
                }
            }
        }
    )*};
}

nibbles! {
    E2m1, NX_FLOAT4_E2M1FN, |c| E2m1(c), |x| x.0;
    I4, NX_INT4, |c| I4(((c << 4) as i8) >> 4), |x| x.0 as u8;
    U4, NX_UINT4, |c| U4(c), |x| x.0;
}

impl Side for Bit {
    const DT: i32 = NX_BIT;
}

impl Elem for Bit {
    #[inline(always)]
    fn read(src: &[u8]) -> impl Iterator<Item = Self> {
        let mut v = [Bit(false); STEP];
        for (o, &b) in v.as_chunks_mut::<8>().0.iter_mut().zip(src) {
            for (k, x) in o.iter_mut().enumerate() {
                *x = Bit((b >> k) & 1 != 0);
            }
        }
        v.into_iter()
    }
    #[inline(always)]
    fn write(dst: &mut [u8], v: impl Iterator<Item = Self>) {
        // Eight bits from eight bytes of 0 or 1 by one multiplication: byte
        // k's bit lands on bit 56 + k, every other product on a bit of its
        // own below.
        let v = gather(v);
        for (o, b) in v.as_chunks::<8>().0.iter().zip(dst) {
            let w = u64::from_le_bytes(o.map(|x| u8::from(x.0)));
            *b = (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
        }
    }
}

/// `f` on all of `src` and `dst` (whole steps of `S` and `D`) where both
/// sides are whole bytes, else on each step.
#[inline(always)]
pub(crate) fn by_steps<S: Side, D: Side>(src: &[u8], dst: &mut [u8], f: impl Fn(&[u8], &mut [u8])) {
    if S::BITS.is_multiple_of(8) && D::BITS.is_multiple_of(8) {
        f(src, dst);
    } else {
        let (sw, dw) = (STEP * S::BITS / 8, STEP * D::BITS / 8);
        for (s, d) in src.chunks_exact(sw).zip(dst.chunks_exact_mut(dw)) {
            f(s, d);
        }
    }
}

/// The family of kernels by `Cast`.
pub(crate) struct Casts;

impl<S: Elem + Cast<D>, D: Elem> Step for Pair<Casts, S, D> {
    const SB: usize = S::BITS;
    const DB: usize = D::BITS;
    const FLOATS: bool = <S as Cast<D>>::FLOATS;
    #[inline(always)]
    fn step(src: &[u8], dst: &mut [u8]) {
        by_steps::<S, D>(src, dst, |s, d| D::write(d, S::read(s).map(Cast::cast)));
    }
}

/// One element converted to `D` (the module doc says how).
pub(crate) trait Cast<D>: Copy {
    /// Whether the conversion does float arithmetic (see `Step::FLOATS`).
    const FLOATS: bool = false;
    fn cast(self) -> D;
}

/// `$m!(s, d)` for every `s` of the first list and `d` of the second.
macro_rules! cross {
    ($m:ident; [$($s:ty),*]; $ds:tt) => {
        $(cross!(@row $m; $s; $ds);)*
    };
    (@row $m:ident; $s:ty; [$($d:ty),*]) => {
        $($m!($s, $d);)*
    };
}

/// The bounds of `a` and `b`'s common range (integer types' `MIN`/`MAX`
/// as i128), for clamping.
const fn tighter(a: i128, b: i128, low: bool) -> i128 {
    if (a > b) == low {
        a
    } else {
        b
    }
}

/// Integer -> integer: clamped into the range both hold, then converted.
macro_rules! saturate {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            #[inline(always)]
            fn cast(self) -> $d {
                const LO: i128 = tighter(<$s>::MIN as i128, <$d>::MIN as i128, true);
                const HI: i128 = tighter(<$s>::MAX as i128, <$d>::MAX as i128, false);
                self.clamp(LO as $s, HI as $s) as $d
            }
        }
    };
}

/// Integer -> int4, uint4.
macro_rules! to_nibble {
    ($($s:ty),*) => {$(
        impl Cast<I4> for $s {
            #[inline(always)]
            fn cast(self) -> I4 {
                const LO: i128 = tighter(<$s>::MIN as i128, -8, true);
                I4(self.clamp(LO as $s, 7) as i8)
            }
        }
        impl Cast<U4> for $s {
            #[inline(always)]
            fn cast(self) -> U4 {
                U4(self.clamp(0, 15) as u8)
            }
        }
    )*};
}

/// Float -> integer: as `as` (truncated, saturated, NaN 0), by `Trunc`
/// into 32 bits and fewer, where `as` is not vectorized everywhere.
macro_rules! truncate {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            const FLOATS: bool = true;
            #[inline(always)]
            fn cast(self) -> $d {
                Trunc::<$d>::trunc(self)
            }
        }
    };
}

/// Float -> int64, uint64: `as` (no target converts them a vector at a
/// time before AVX-512).
macro_rules! truncate64 {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            const FLOATS: bool = true;
            #[inline(always)]
            fn cast(self) -> $d {
                self as $d
            }
        }
    };
}

/// Float -> int4, uint4: into 8 bits, then clamped.
macro_rules! float_to_nibble {
    ($($s:ty),*) => {$(
        impl Cast<I4> for $s {
            const FLOATS: bool = true;
            #[inline(always)]
            fn cast(self) -> I4 {
                I4(Trunc::<i8>::trunc(self).clamp(-8, 7))
            }
        }
        impl Cast<U4> for $s {
            const FLOATS: bool = true;
            #[inline(always)]
            fn cast(self) -> U4 {
                U4(Trunc::<u8>::trunc(self).min(15))
            }
        }
    )*};
}

/// Integer -> float: `as`; `$exact`: whether every value converts exactly
/// (then no environment is needed).
macro_rules! to_float {
    ($exact:literal; $($s:ty),* => $d:ty) => {$(
        impl Cast<$d> for $s {
            const FLOATS: bool = !$exact;
            #[inline(always)]
            fn cast(self) -> $d {
                self as $d
            }
        }
    )*};
}

/// To bool and bit: not zero. `floats`: the source is a machine float,
/// whose test LLVM may turn from its bits into a float comparison (one
/// that a flushing environment answers wrongly for subnormals): it runs
/// under the level's environment.
macro_rules! truth {
    ($(|$x:ident: $s:ty| $nonzero:expr, $floats:literal;)*) => {$(
        impl Cast<Bool> for $s {
            const FLOATS: bool = $floats;
            #[inline(always)]
            fn cast(self) -> Bool {
                let $x = self;
                Bool(u8::from($nonzero))
            }
        }
        impl Cast<Bit> for $s {
            const FLOATS: bool = $floats;
            #[inline(always)]
            fn cast(self) -> Bit {
                let $x = self;
                Bit($nonzero)
            }
        }
    )*};
}

/// From bool and bit: 0 or 1, as the destination encodes them.
macro_rules! from_truth {
    ($(|$t:ident| $d:ty = $one:expr;)*) => {$(
        impl Cast<$d> for Bool {
            #[inline(always)]
            fn cast(self) -> $d {
                let $t = self.0 != 0;
                $one
            }
        }
        impl Cast<$d> for Bit {
            #[inline(always)]
            fn cast(self) -> $d {
                let $t = self.0;
                $one
            }
        }
    )*};
}

/// A complex's real part converted (`$f`'s conversion), a real as a complex
/// with imaginary part +0.
macro_rules! complex {
    ($c:ident, $f:ty, [$($d:ty),*]) => {$(
        impl Cast<$d> for $c {
            const FLOATS: bool = <$f as Cast<$d>>::FLOATS;
            #[inline(always)]
            fn cast(self) -> $d {
                self.0[0].cast()
            }
        }
        impl Cast<$c> for $d {
            const FLOATS: bool = <$d as Cast<$f>>::FLOATS;
            #[inline(always)]
            fn cast(self) -> $c {
                $c([Cast::<$f>::cast(self), 0.0])
            }
        }
    )*};
}

cross!(saturate; [i64, u64, i32, u32, i16, u16, i8, u8]; [i64, u64, i32, u32, i16, u16, i8, u8]);
to_nibble!(i64, u64, i32, u32, i16, u16, i8, u8);
cross!(truncate; [f64, f32]; [i32, u32, i16, u16, i8, u8]);
cross!(truncate64; [f64, f32]; [i64, u64]);
float_to_nibble!(f64, f32);
to_float!(true; i32, u32, i16, u16, i8, u8 => f64);
to_float!(false; i64, u64 => f64);
to_float!(true; i16, u16, i8, u8 => f32);
to_float!(false; i64, u64, i32, u32 => f32);
complex!(C128, f64, [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8]);
complex!(C64, f32, [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8]);

impl Cast<I4> for C128 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> I4 {
        self.0[0].cast()
    }
}
impl Cast<U4> for C128 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> U4 {
        self.0[0].cast()
    }
}
impl Cast<I4> for C64 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> I4 {
        self.0[0].cast()
    }
}
impl Cast<U4> for C64 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> U4 {
        self.0[0].cast()
    }
}

/// float64 -> float32: rounded once to nearest-even; a NaN quiet with the
/// top 22 bits of its payload.
impl Cast<f32> for f64 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> f32 {
        f32::from_bits(nan32(self.to_bits(), self as f32))
    }
}

/// float32 -> float64: exact; a NaN quiet with its whole payload.
impl Cast<f64> for f32 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> f64 {
        f64::from_bits(nan64(self.to_bits(), (self as f64).to_bits()))
    }
}

impl Cast<C64> for C128 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> C64 {
        C64(self.0.map(Cast::<f32>::cast))
    }
}

impl Cast<C128> for C64 {
    const FLOATS: bool = true;
    #[inline(always)]
    fn cast(self) -> C128 {
        C128(self.0.map(Cast::<f64>::cast))
    }
}

truth! {
    |x: f64| x.to_bits() << 1 != 0, true;
    |x: f32| x.to_bits() << 1 != 0, true;
    |x: i64| x != 0, false;
    |x: u64| x != 0, false;
    |x: i32| x != 0, false;
    |x: u32| x != 0, false;
    |x: i16| x != 0, false;
    |x: u16| x != 0, false;
    |x: i8| x != 0, false;
    |x: u8| x != 0, false;
    |x: F16| x.0 << 1 != 0, false;
    |x: Bf16| x.0 << 1 != 0, false;
    |x: C128| (x.0[0].to_bits() | x.0[1].to_bits()) << 1 != 0, true;
    |x: C64| (x.0[0].to_bits() | x.0[1].to_bits()) << 1 != 0, true;
}

/// A float into its own format (a complex's part): a NaN made quiet, as
/// every conversion makes it.
impl Cast<f64> for f64 {
    #[inline(always)]
    fn cast(self) -> f64 {
        let b = self.to_bits();
        f64::from_bits(
            b | if b << 1 > 0xFFE0_0000_0000_0000 {
                1 << 51
            } else {
                0
            },
        )
    }
}

impl Cast<f32> for f32 {
    #[inline(always)]
    fn cast(self) -> f32 {
        let b = self.to_bits();
        f32::from_bits(b | if b << 1 > 0xFF00_0000 { 1 << 22 } else { 0 })
    }
}

/// Same-type pairs never reach a table (`Kernel::of` copies them), but the
/// rules name them.
macro_rules! same {
    ($($t:ty),*) => {$(
        impl Cast<$t> for $t {
            #[inline(always)]
            fn cast(self) -> $t {
                self
            }
        }
    )*};
}

same!(C128, C64, Bool, Bit);

impl Cast<Bit> for Bool {
    #[inline(always)]
    fn cast(self) -> Bit {
        Bit(self.0 != 0)
    }
}

impl Cast<Bool> for Bit {
    #[inline(always)]
    fn cast(self) -> Bool {
        Bool(u8::from(self.0))
    }
}

// The floats by their bits: a select, which vectorizes better than an
// integer converted.
from_truth! {
    |t| f64 = f64::from_bits(if t { 0x3FF0_0000_0000_0000 } else { 0 });
    |t| f32 = f32::from_bits(if t { 0x3F80_0000 } else { 0 });
    |t| i64 = i64::from(t);
    |t| u64 = u64::from(t);
    |t| i32 = i32::from(t);
    |t| u32 = u32::from(t);
    |t| i16 = i16::from(t);
    |t| u16 = u16::from(t);
    |t| i8 = i8::from(t);
    |t| u8 = u8::from(t);
    |t| I4 = I4(i8::from(t));
    |t| U4 = U4(u8::from(t));
    |t| F16 = F16(if t { 0x3C00 } else { 0 });
    |t| Bf16 = Bf16(if t { 0x3F80 } else { 0 });
    |t| E4m3 = E4m3(if t { 0x38 } else { 0 });
    |t| E5m2 = E5m2(if t { 0x3C } else { 0 });
    |t| E2m1 = E2m1(if t { 0x2 } else { 0 });
    |t| C128 = C128([f64::from_bits(if t { 0x3FF0_0000_0000_0000 } else { 0 }), 0.0]);
    |t| C64 = C64([f32::from_bits(if t { 0x3F80_0000 } else { 0 }), 0.0]);
}

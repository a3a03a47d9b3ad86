//! The NEON forms of the lanes framework's sides (`kernels::lanes`), 32
//! elements a step in 128-bit vectors: float32 bits (`Quad`), where most
//! pairs meet; float16 codes (`F16Codes`) and bfloat16 codes
//! (`Bf16Codes`), where the float8 and float4 sources decode by table
//! lookups (TBL) without float32, and float16 rounds to float8_e5m2 in its
//! own codes. The tests hold every pair to the scalar reference.
//!
//! Float instructions run under the FPCR that `super::call` sets: round to
//! nearest-even (toward zero for `Narrow16`), no flushing, no default NaN,
//! IEEE half precision. Under it:
//! - FCVTL (float16 -> float32, float32 -> float64) widens exactly, a NaN
//!   made quiet keeping its payload, as SEMANTICS.md's widening does;
//! - FCVTN (float32 -> float16, float64 -> float32) rounds as FPCR says and
//!   BFCVTN (float32 -> bfloat16) to nearest-even, a NaN made quiet keeping
//!   its top payload bits;
//! - FCVTXN rounds float64 to odd in float32, whatever FPCR's rounding mode
//!   (`ToOdd`);
//! - SCVTF and UCVTF of at most 24 bits are exact; FCVTZS and FCVTZU
//!   truncate, saturate and give 0 for a NaN, whatever FPCR says;
//! - FMUL by a power of two is exact unless the product falls below
//!   float32's normals (`Narrow16`, where that changes no result), and FADD
//!   of -0 changes nothing but a signalling NaN, made quiet (`quiet32`).
//!
//! The conversions between float16 and float32 have stable intrinsics only
//! through the unstable `f16` type, and BFCVTN none: they are inline
//! assembly here (`f16_pair`, `f32_of_f16`, `bf16_pair`).

use crate::codes::{NX_BFLOAT16, NX_FLOAT64};
use crate::format::{Format, Specials, BF16, E4M3FN, E5M2, F16};
use crate::kernels::lanes::*;
use crate::kernels::Raw;
use std::arch::aarch64::*;
use std::arch::asm;

type V = uint32x4_t;
type H = uint16x8_t;
type B = uint8x16_t;

/// 32 elements as float32 bits, element j in lane j % 4 of vector j / 4:
/// where most pairs meet.
#[derive(Clone, Copy)]
pub struct Quad([V; 8]);

/// 32 elements as float16 codes, element j in lane j % 8 of vector j / 8.
#[derive(Clone, Copy)]
pub struct F16Codes([H; 4]);

/// 32 elements as bfloat16 codes, element j in lane j % 8 of vector j / 8.
#[derive(Clone, Copy)]
pub struct Bf16Codes([H; 4]);

/// float64 rounded to odd in float32 by FCVTXN (`F64Odd`'s comment says
/// why rounding to odd, then to nearest-even in a narrower format, rounds
/// once): the same float32 as `F64Odd`, largest finite past float32's range
/// included, but whatever FPCR's rounding mode, so it needs no round toward
/// zero and the float16 encoder after it (FCVTN) rounds to nearest.
pub struct ToOdd;
impl Side for ToOdd {
    const DT: i32 = NX_FLOAT64;
}

/// float32 -> bfloat16 by BFCVTN (FEAT_BF16): `Bf16Out`'s rounding, as the
/// kernels' FPCR asks (nearest-even, subnormals kept, a NaN quiet keeping
/// its top payload bits).
pub struct Bf16Cvt;
impl Side for Bf16Cvt {
    const DT: i32 = NX_BFLOAT16;
}

/// The step loop with this level's features.
///
/// # Safety
/// As `steps`, on a CPU with Advanced SIMD (and FEAT_BF16 for `Bf16Cvt`).
#[target_feature(enable = "neon")]
unsafe fn run<L: Lanes, S: VSrc<L>, D: VDst<L>, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { steps::<L, S, D, NT>(src, dst, n, ahead) }
}

macro_rules! lanes_type {
    ($($t:ty),*) => {$(
        impl Lanes for $t {
            const UNROLL: usize = 1;
            fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw {
                run::<Self, S, D, NT>
            }
        }
    )*};
}
lanes_type!(Quad, F16Codes, Bf16Codes);

// ------------------------------------------------------------- helpers

/// The `k`th 16 bytes at `p`.
///
/// # Safety
/// `p` is readable for `16 (k + 1)` bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn ld(p: *const u8, k: usize) -> B {
    // SAFETY: the caller's bytes; byte loads have no alignment.
    unsafe { vld1q_u8(p.add(16 * k)) }
}

/// The `N` vectors of 16 bytes at `p`.
///
/// # Safety
/// `p` is readable for `16 N` bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn lds<const N: usize>(p: *const u8) -> [B; N] {
    // SAFETY: the caller's bytes, 16 a vector.
    std::array::from_fn(|k| unsafe { ld(p, k) })
}

/// Store 16 bytes as the `k`th 16 at `p`.
///
/// # Safety
/// `p` is writable for `16 (k + 1)` bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn st(p: *mut u8, k: usize, v: B) {
    // SAFETY: the caller's bytes.
    unsafe { vst1q_u8(p.add(16 * k), v) }
}

/// Four vectors of 16-bit codes, each widened by `f` into two of float32
/// bits, in element order.
#[inline]
#[target_feature(enable = "neon")]
fn widen(h: [H; 4], f: impl Fn(H) -> [V; 2]) -> Quad {
    let [[a0, a1], [b0, b1], [c0, c1], [d0, d1]] = h.map(f);
    Quad([a0, a1, b0, b1, c0, c1, d0, d1])
}

/// Eight vectors of float32 lanes, each two narrowed by `f` into one of
/// 16-bit codes, in element order.
#[inline]
#[target_feature(enable = "neon")]
fn pairs(x: Quad, f: impl Fn(V, V) -> H) -> [H; 4] {
    let [a0, a1, b0, b1, c0, c1, d0, d1] = x.0;
    [f(a0, a1), f(b0, b1), f(c0, c1), f(d0, d1)]
}

/// The top 16 bits of eight lanes, in order.
#[inline]
#[target_feature(enable = "neon")]
fn top_halves(a: V, b: V) -> H {
    vuzp2q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b))
}

/// 32 codes in 16-bit lanes (each < 256) as 32 bytes, in order.
#[inline]
#[target_feature(enable = "neon")]
fn bytes_of(h: [H; 4]) -> [B; 2] {
    let [a, b, c, d] = h.map(|v| vreinterpretq_u8_u16(v));
    [vuzp1q_u8(a, b), vuzp1q_u8(c, d)]
}

/// 16-bit codes from their low and high bytes (16 of each), in order.
#[inline]
#[target_feature(enable = "neon")]
fn words(lo: B, hi: B) -> [H; 2] {
    [vzip1q_u8(lo, hi), vzip2q_u8(lo, hi)].map(|v| vreinterpretq_u16_u8(v))
}

/// Eight bfloat16 codes as float32 bits: their top halves.
#[inline]
#[target_feature(enable = "neon")]
fn f32_of_bf16(h: H) -> [V; 2] {
    [
        vshll_n_u16::<16>(vget_low_u16(h)),
        vshll_high_n_u16::<16>(h),
    ]
}

/// Four float32 with a NaN made quiet: plus -0 (FADD), which keeps its
/// payload (FPCR.DN is off) and every other value as it is, subnormals too
/// (FPCR.FZ is off). In assembly: the compiler takes the addition for the
/// identity and would drop it.
#[inline]
#[target_feature(enable = "neon")]
fn quiet32(mut x: V) -> V {
    let z = vreinterpretq_u32_f32(vdupq_n_f32(-0.0));
    // SAFETY: an Advanced SIMD instruction on registers only.
    unsafe {
        asm!(
            "fadd {x:v}.4s, {x:v}.4s, {z:v}.4s",
            x = inout(vreg) x,
            z = in(vreg) z,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    x
}

/// Eight float16 codes as float32 bits, exactly (FCVTL, FCVTL2).
#[inline(always)]
fn f32_of_f16(h: H) -> [V; 2] {
    let (lo, hi): (V, V);
    // SAFETY: Advanced SIMD instructions (the aarch64 baseline) on
    // registers only; `lo` is not `h`'s register (`out`), which the second
    // instruction reads.
    unsafe {
        asm!(
            "fcvtl {lo:v}.4s, {h:v}.4h",
            "fcvtl2 {hi:v}.4s, {h:v}.8h",
            h = in(vreg) h,
            lo = out(vreg) lo,
            hi = out(vreg) hi,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    [lo, hi]
}

/// Eight float32 (`a` then `b`) as float16 codes, rounded as FPCR says
/// (FCVTN, FCVTN2).
#[inline(always)]
fn f16_pair(a: V, b: V) -> H {
    let out: H;
    // SAFETY: Advanced SIMD instructions on registers only; `out` is not
    // `b`'s register, which the second instruction reads.
    unsafe {
        asm!(
            "fcvtn {o:v}.4h, {a:v}.4s",
            "fcvtn2 {o:v}.8h, {b:v}.4s",
            a = in(vreg) a,
            b = in(vreg) b,
            o = out(vreg) out,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    out
}

/// Eight float32 (`a` then `b`) as bfloat16 codes, rounded as FPCR says
/// (BFCVTN, BFCVTN2).
///
/// # Safety
/// The CPU has FEAT_BF16.
#[inline(always)]
unsafe fn bf16_pair(a: V, b: V) -> H {
    let out: H;
    // SAFETY: FEAT_BF16 instructions (the caller's promise) on registers
    // only; `out` is not `b`'s register. `.arch_extension` lets the
    // assembler take them in a function built without the feature.
    unsafe {
        asm!(
            ".arch_extension bf16",
            "bfcvtn {o:v}.4h, {a:v}.4s",
            "bfcvtn2 {o:v}.8h, {b:v}.4s",
            a = in(vreg) a,
            b = in(vreg) b,
            o = out(vreg) out,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    out
}

// ------------------------------------------------- float8, float4 tables

/// `to`'s code (float16 or bfloat16) of the magnitude `k` of the float8
/// format `fmt`, exactly: `widen_code` for the finite values, and
/// float8_e5m2's infinity and NaNs (made quiet, the payload on top of
/// `to`'s fraction). `to` has more exponent bits than `fmt` where `fmt` has
/// subnormals (not float8_e5m2 into float16, whose codes are a shift).
const fn widen8(fmt: Format, k: u32, to: Format) -> u32 {
    if fmt.is_infinite(k as u64) {
        return to.infinity_bits() as u32;
    }
    if fmt.is_nan(k as u64) && matches!(fmt.specials, Specials::Ieee) {
        let payload = k & fmt.fraction_mask() as u32;
        return to.infinity_bits() as u32
            | 1 << (to.fraction_bits - 1)
            | payload << (to.fraction_bits - fmt.fraction_bits);
    }
    widen_code(fmt, k, to)
}

/// The codes in `to` of the 128 magnitudes of `fmt` as two byte tables
/// for TBL: their low bytes, then their high bytes.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
const fn byte_table(fmt: Format, to: Format) -> [[u8; 128]; 2] {
    let mut t = [[0u8; 128]; 2];
    let mut k = 0;
    while k < 128 {
        let c = widen8(fmt, k as u32, to);
        t[0][k] = c as u8;
        t[1][k] = (c >> 8) as u8;
        k += 1;
    }
    t
}

/// The 32 float8 elements at `p` as 16-bit codes, by table lookups of
/// their magnitudes (`byte_table`), the sign put on top: eight 64-byte
/// lookups (TBL, TBX) of 16 elements each.
///
/// # Safety
/// `p` is readable for 32 bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn float8_codes(p: *const u8, t: &[[u8; 128]; 2]) -> [H; 4] {
    let [lo, hi] = t;
    // SAFETY: each table is 128 bytes.
    let tab = |r: &[u8; 128]| unsafe {
        let q = r.as_ptr();
        (vld1q_u8_x4(q), vld1q_u8_x4(q.add(64)))
    };
    let (lo, hi) = (tab(lo), tab(hi));
    let code = |x: B| {
        let m = vandq_u8(x, vdupq_n_u8(0x7F));
        // Magnitudes 0..63 from the first 64 bytes (TBL gives 0 for the
        // others), 64..127 from the second (the index's bit 6 flipped:
        // out of TBX's range, which keeps what it has, for 0..63).
        let m2 = veorq_u8(m, vdupq_n_u8(0x40));
        let look = |(a, b): (uint8x16x4_t, uint8x16x4_t)| vqtbx4q_u8(vqtbl4q_u8(a, m), b, m2);
        let top = vbslq_u8(vdupq_n_u8(0x80), x, look(hi));
        words(look(lo), top)
    };
    // SAFETY: the caller's 32 bytes.
    let [x0, x1] = unsafe { lds::<2>(p) };
    let ([a, b], [c, d]) = (code(x0), code(x1));
    [a, b, c, d]
}

/// The 32 nibbles at `p` (low nibble first) as 16-bit codes, by table
/// lookups (`nibble_table`: low bytes, high bytes).
///
/// # Safety
/// `p` is readable for 16 bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn nibble_codes(p: *const u8, t: &[[u8; 16]; 2]) -> [H; 4] {
    let [lo, hi] = t;
    // SAFETY: the caller's 16 bytes; each table row is 16 bytes.
    let (v, lo, hi) = unsafe { (ld(p, 0), vld1q_u8(lo.as_ptr()), vld1q_u8(hi.as_ptr())) };
    let even = vandq_u8(v, vdupq_n_u8(0x0F));
    let odd = vshrq_n_u8::<4>(v);
    let code = |e: B| words(vqtbl1q_u8(lo, e), vqtbl1q_u8(hi, e));
    let ([a, b], [c, d]) = (code(vzip1q_u8(even, odd)), code(vzip2q_u8(even, odd)));
    [a, b, c, d]
}

// ------------------------------------------------------------- sources

impl VSrc<Quad> for F32In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's 128 bytes.
        Quad(unsafe { lds::<8>(p) }.map(|b| vreinterpretq_u32_u8(b)))
    }
}

impl VSrc<Quad> for F16In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's 64 bytes.
        let h = unsafe { lds::<4>(p) }.map(|b| vreinterpretq_u16_u8(b));
        widen(h, f32_of_f16)
    }
}

/// bfloat16 is float32's top half: a shift, and (`QUIET`) a NaN made quiet.
impl<const QUIET: bool> VSrc<Quad> for Bf16In<QUIET> {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's 64 bytes.
        let h = unsafe { lds::<4>(p) }.map(|b| vreinterpretq_u16_u8(b));
        let x = widen(h, |h| f32_of_bf16(h));
        if QUIET {
            Quad(x.0.map(|v| quiet32(v)))
        } else {
            x
        }
    }
}

/// Every float8 and float4 value is a bfloat16 value: its code, widened.
macro_rules! via_bf16 {
    ($($s:ty),*) => {$(
        impl VSrc<Quad> for $s {
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn get(p: *const u8) -> Quad {
                // SAFETY: the caller's step.
                let Bf16Codes(h) = unsafe { <$s as VSrc<Bf16Codes>>::get(p) };
                widen(h, |h| f32_of_bf16(h))
            }
        }
    )*};
}
via_bf16!(E4m3In, E5m2In, E2m1In);

impl<const SIGNED: bool> VSrc<Quad> for I8In<SIGNED> {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's 32 bytes.
        let [a, b] = unsafe { lds::<2>(p) };
        let f = |w: H| -> [V; 2] {
            if SIGNED {
                let w = vreinterpretq_s16_u16(w);
                [vmovl_s16(vget_low_s16(w)), vmovl_high_s16(w)]
                    .map(|d| vreinterpretq_u32_f32(vcvtq_f32_s32(d)))
            } else {
                [vmovl_u16(vget_low_u16(w)), vmovl_high_u16(w)]
                    .map(|d| vreinterpretq_u32_f32(vcvtq_f32_u32(d)))
            }
        };
        let w = |b: B| -> [H; 2] {
            if SIGNED {
                let b = vreinterpretq_s8_u8(b);
                [vmovl_s8(vget_low_s8(b)), vmovl_high_s8(b)].map(|v| vreinterpretq_u16_s16(v))
            } else {
                [vmovl_u8(vget_low_u8(b)), vmovl_high_u8(b)]
            }
        };
        let ([h0, h1], [h2, h3]) = (w(a), w(b));
        widen([h0, h1, h2, h3], f)
    }
}

/// The 32 float64 at `p` in float32 lanes, two at a time by `f` (a
/// narrowing of the low two and one of the high two).
///
/// # Safety
/// `p` is readable for 256 bytes.
#[inline]
#[target_feature(enable = "neon")]
unsafe fn f64s(
    p: *const u8,
    lo: impl Fn(float64x2_t) -> float32x2_t,
    hi: impl Fn(float32x2_t, float64x2_t) -> float32x4_t,
) -> Quad {
    Quad(std::array::from_fn(|k| {
        // SAFETY: the caller's 256 bytes, 32 a vector of four.
        let [a, b] = [2 * k, 2 * k + 1].map(|j| vreinterpretq_f64_u8(unsafe { ld(p, j) }));
        vreinterpretq_u32_f32(hi(lo(a), b))
    }))
}

/// float64 rounded to nearest-even (FCVTN): for float32 destinations.
impl VSrc<Quad> for F64Near {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's step.
        unsafe { f64s(p, |a| vcvt_f32_f64(a), |l, b| vcvt_high_f32_f64(l, b)) }
    }
}

impl VSrc<Quad> for ToOdd {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Quad {
        // SAFETY: the caller's step.
        unsafe { f64s(p, |a| vcvtx_f32_f64(a), |l, b| vcvtx_high_f32_f64(l, b)) }
    }
}

impl VSrc<F16Codes> for F16In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> F16Codes {
        // SAFETY: the caller's 64 bytes.
        F16Codes(unsafe { lds::<4>(p) }.map(|b| vreinterpretq_u16_u8(b)))
    }
}

/// float8_e5m2 is float16's top byte: shifted into place, a NaN made
/// quiet (as FCVTL would).
impl VSrc<F16Codes> for E5m2In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> F16Codes {
        // SAFETY: the caller's 32 bytes.
        let [x0, x1] = unsafe { lds::<2>(p) };
        let z = vdupq_n_u8(0);
        let ([a, b], [c, d]) = (words(z, x0), words(z, x1));
        F16Codes([a, b, c, d].map(|h| {
            let nan = vcgtq_u16(vandq_u16(h, vdupq_n_u16(0x7FFF)), vdupq_n_u16(0x7C00));
            vorrq_u16(h, vandq_u16(nan, vdupq_n_u16(0x0200)))
        }))
    }
}

impl VSrc<F16Codes> for E4m3In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> F16Codes {
        // SAFETY: the caller's 32 bytes.
        F16Codes(unsafe { float8_codes(p, &const { byte_table(E4M3FN, F16) }) })
    }
}

impl VSrc<F16Codes> for E2m1In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> F16Codes {
        // SAFETY: the caller's 16 bytes.
        F16Codes(unsafe { nibble_codes(p, &const { nibble_table(<E2m1In>::DT, F16) }) })
    }
}

impl VSrc<Bf16Codes> for E4m3In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Bf16Codes {
        // SAFETY: the caller's 32 bytes.
        Bf16Codes(unsafe { float8_codes(p, &const { byte_table(E4M3FN, BF16) }) })
    }
}

impl VSrc<Bf16Codes> for E5m2In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Bf16Codes {
        // SAFETY: the caller's 32 bytes.
        Bf16Codes(unsafe { float8_codes(p, &const { byte_table(E5M2, BF16) }) })
    }
}

impl VSrc<Bf16Codes> for E2m1In {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn get(p: *const u8) -> Bf16Codes {
        // SAFETY: the caller's 16 bytes.
        Bf16Codes(unsafe { nibble_codes(p, &const { nibble_table(<E2m1In>::DT, BF16) }) })
    }
}

// -------------------------------------------------------- destinations

impl VDst<Quad> for F32Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        for (k, v) in x.0.into_iter().enumerate() {
            // SAFETY: the caller's 128 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u32(v)) }
        }
    }
}

impl VDst<Quad> for F64Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        for (k, v) in x.0.into_iter().enumerate() {
            let f = vreinterpretq_f32_u32(v);
            let (lo, hi) = (vcvt_f64_f32(vget_low_f32(f)), vcvt_high_f64_f32(f));
            // SAFETY: the caller's 256 bytes.
            unsafe {
                st(p, 2 * k, vreinterpretq_u8_f64(lo));
                st(p, 2 * k + 1, vreinterpretq_u8_f64(hi));
            }
        }
    }
}

impl VDst<Quad> for F16Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        for (k, h) in pairs(x, f16_pair).into_iter().enumerate() {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

/// On the integer bits: x + 0x7FFF + (bit 16 of x), the top half; a NaN
/// keeps its top payload bits, quiet.
impl VDst<Quad> for Bf16Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        let r = |a: V| {
            // Bit 16 added as (x << 15) >> 31, by a shift-and-accumulate.
            let up = vsraq_n_u32::<31>(vaddq_u32(a, vdupq_n_u32(0x7FFF)), vshlq_n_u32::<15>(a));
            let nan = vcgtq_u32(
                vandq_u32(a, vdupq_n_u32(0x7FFF_FFFF)),
                vdupq_n_u32(0x7F80_0000),
            );
            vbslq_u32(nan, vorrq_u32(a, vdupq_n_u32(1 << 22)), up)
        };
        for (k, h) in pairs(x, |a, b| top_halves(r(a), r(b)))
            .into_iter()
            .enumerate()
        {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

impl VDst<Quad> for Bf16Cvt {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        // SAFETY: the rules put this encoder only in the tables of CPUs
        // with FEAT_BF16.
        let h = pairs(x, |a, b| unsafe { bf16_pair(a, b) });
        for (k, h) in h.into_iter().enumerate() {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

impl VDst<Quad> for Bf16Top {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        for (k, h) in pairs(x, |a, b| top_halves(a, b)).into_iter().enumerate() {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

/// Four float32 folded and scaled for `Narrow16`: bit 11 + d set where any
/// bit below it is (d = 10 - f), then times 2^(bias - 15).
#[inline]
#[target_feature(enable = "neon")]
fn fold<const FMT: u8>(x: V) -> V {
    let fmt = const { narrow_format(FMT) };
    let bit = 1u32 << (21 - fmt.fraction_bits);
    let x = vorrq_u32(
        x,
        vandq_u32(vtstq_u32(x, vdupq_n_u32(bit - 1)), vdupq_n_u32(bit)),
    );
    if fmt.bias == 15 {
        x
    } else {
        let scale = f32::from_bits(((127 + fmt.bias - 15) as u32) << 23);
        vreinterpretq_u32_f32(vmulq_f32(vreinterpretq_f32_u32(x), vdupq_n_f32(scale)))
    }
}

/// The codes of `fmt` nearest eight float16 codes `h` (`fold`ed and
/// truncated, `Narrow16`), in 16-bit lanes: rounded to nearest-even at bit
/// d (a halving add, URHADD, of m and 2^(d - 1) - 2 + the last kept bit,
/// shifted by d - 1: no lane overflows); float8_e4m3fn and float4_e2m1fn
/// clamped to their largest finite first, float8_e5m2 (float16's exponent)
/// rounded with the sign riding along, its carry making infinity.
#[inline]
#[target_feature(enable = "neon")]
fn round16<const FMT: u8>(h: H) -> H {
    let fmt = const { narrow_format(FMT) };
    let d = 10 - fmt.fraction_bits;
    let sign_at = 16 - fmt.bits();
    let w = vdupq_n_u16;
    let right = |v: H, k: u32| vshlq_u16(v, vdupq_n_s16(-(k as i16)));
    let a = vandq_u16(h, w(0x7FFF));
    let m = if sign_at == d {
        h
    } else {
        vminq_u16(a, w((fmt.max_finite_bits() << d) as u16))
    };
    let last = vandq_u16(right(m, d), w(1));
    let c = vorrq_u16(last, w((1 << (d - 1)) - 2));
    let r = right(vrhaddq_u16(m, c), d - 1);
    let top = right(h, sign_at);
    let nan = vcgtq_u16(a, w(0x7C00));
    let sign = w(fmt.sign_mask() as u16);
    match fmt.specials {
        // The sign rode along; a NaN keeps its top payload bits, quiet.
        Specials::Ieee => vbslq_u16(nan, vorrq_u16(top, w(1 << (fmt.fraction_bits - 1))), r),
        // NaN: the format's NaN of x's sign.
        Specials::FnNan => vorrq_u16(
            vbslq_u16(nan, w(fmt.magnitude_mask() as u16), r),
            vandq_u16(top, sign),
        ),
        // NaN: +0.
        Specials::Finite => vbicq_u16(vorrq_u16(r, vandq_u16(top, sign)), nan),
    }
}

/// A float8 or float4 (`FMT` as `NarrowOut`'s), rounded once through
/// float16 as the x86 levels do (`narrow16` in `x86/avx512/mod.rs` has the
/// proof): x with the sticky bit folded in (`fold`), scaled, converted to
/// float16 toward zero (FCVTN under the round-toward-zero FPCR this side
/// asks for), then rounded in the float16 codes (`round16`). Every source
/// with these lanes is exact in them, or rounded to odd by FCVTXN, which
/// the rounding mode does not touch. The scaled product is exact unless it
/// falls below float32's normals, where the result is a zero of x's sign
/// either way.
pub struct Narrow16<const FMT: u8>;
impl<const FMT: u8> Side for Narrow16<FMT> {
    const DT: i32 = NarrowOut::<FMT>::DT;
    const FP: Fp = Fp::TOWARD_ZERO;
}

impl<const FMT: u8> VDst<Quad> for Narrow16<FMT> {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        let h = pairs(x, |a, b| f16_pair(fold::<FMT>(a), fold::<FMT>(b)));
        let [a, b] = bytes_of(h.map(|h| round16::<FMT>(h)));
        // SAFETY: the caller's 32 (float4: 16) bytes.
        unsafe {
            if Self::BITS == 4 {
                // Element 2i in byte i's low nibble, 2i + 1 in its high one.
                st(p, 0, vsliq_n_u8::<4>(vuzp1q_u8(a, b), vuzp2q_u8(a, b)));
            } else {
                st(p, 0, a);
                st(p, 1, b);
            }
        }
    }
}

/// int8: truncated and saturated in int32 (FCVTZS, NaN 0), then narrowed
/// with saturation (SQXTN).
impl VDst<Quad> for I8Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        let [a, b, c, d, e, f, g, h] = x.0.map(|v| vcvtq_s32_f32(vreinterpretq_f32_u32(v)));
        let w = |a, b| vqmovn_high_s32(vqmovn_s32(a), b);
        let by = |a, b| vreinterpretq_u8_s8(vqmovn_high_s16(vqmovn_s16(a), b));
        // SAFETY: the caller's 32 bytes.
        unsafe {
            st(p, 0, by(w(a, b), w(c, d)));
            st(p, 1, by(w(e, f), w(g, h)));
        }
    }
}

/// uint8: truncated and saturated in uint32 (FCVTZU: negatives and NaN 0),
/// then narrowed with saturation (UQXTN).
impl VDst<Quad> for U8Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Quad, p: *mut u8) {
        let [a, b, c, d, e, f, g, h] = x.0.map(|v| vcvtq_u32_f32(vreinterpretq_f32_u32(v)));
        let w = |a, b| vqmovn_high_u32(vqmovn_u32(a), b);
        let by = |a, b| vqmovn_high_u16(vqmovn_u16(a), b);
        // SAFETY: the caller's 32 bytes.
        unsafe {
            st(p, 0, by(w(a, b), w(c, d)));
            st(p, 1, by(w(e, f), w(g, h)));
        }
    }
}

impl VDst<F16Codes> for F16Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: F16Codes, p: *mut u8) {
        for (k, h) in x.0.into_iter().enumerate() {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

/// float16 codes rounded at bit 8 to nearest-even (adding 0x7F plus the
/// last kept bit; the sign rides along, no carry reaches it), the top
/// byte; a NaN keeps its top payload bits, quiet.
impl VDst<F16Codes> for E5m2Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: F16Codes, p: *mut u8) {
        let r = |h: H| {
            let lsb = vandq_u16(vshrq_n_u16::<8>(h), vdupq_n_u16(1));
            let up = vaddq_u16(vaddq_u16(h, vdupq_n_u16(0x7F)), lsb);
            let nan = vcgtq_u16(vandq_u16(h, vdupq_n_u16(0x7FFF)), vdupq_n_u16(0x7C00));
            vbslq_u16(nan, vorrq_u16(h, vdupq_n_u16(0x0200)), up)
        };
        let [a, b, c, d] = x.0.map(r);
        let by = |a, b| vshrn_high_n_u16::<8>(vshrn_n_u16::<8>(a), b);
        // SAFETY: the caller's 32 bytes.
        unsafe {
            st(p, 0, by(a, b));
            st(p, 1, by(c, d));
        }
    }
}

impl VDst<Bf16Codes> for Bf16Out {
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn put<const NT: bool>(x: Bf16Codes, p: *mut u8) {
        for (k, h) in x.0.into_iter().enumerate() {
            // SAFETY: the caller's 64 bytes.
            unsafe { st(p, k, vreinterpretq_u8_u16(h)) }
        }
    }
}

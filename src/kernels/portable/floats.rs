//! Float formats by their bits, without a branch: rounding float32 bits
//! into the narrow formats (`narrow`), and the decoders into float32 bits
//! (`f16_bits`, `bf16_bits`, `fold`, `odd64`). Each is written for whole
//! arrays of lanes: every case computed, the right one selected.

use crate::format::{Format, Specials};

/// Whether this target's conversions between float32 and float64 make a
/// NaN quiet, keeping its sign and its payload's top bits, as SEMANTICS.md
/// asks and IEEE 754 recommends: x86's SSE, and aarch64 while FPCR.DN is
/// clear (`Arch::under` clears it). Elsewhere (RISC-V gives its canonical
/// NaN, for one) the NaN is built from the source's bits.
pub(crate) const KEEPS_NAN: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// A format float32 bits round into (`narrow`), and the constants of that
/// rounding, derived from the format.
pub(crate) trait Narrow {
    const F: Format;
    /// float32 bits dropped.
    const SH: u32 = 23 - Self::F.fraction_bits;
    /// float32 bits of the format's least normal.
    const MIN_NORMAL: u32 = ((Self::F.emin() + 127) as u32) << 23;
    /// float32 bits of the largest finite value plus half its ulp: from
    /// there up, the result is `OVER`.
    const LIMIT: u32 = {
        let max = Self::F.max_finite_bits() as u32;
        let e = (max >> Self::F.fraction_bits) as i32 - Self::F.bias + 127;
        ((e as u32) << 23)
            | (max & Self::F.fraction_mask() as u32) << Self::SH
            | 1 << (Self::SH - 1)
    };
    /// What a number past `LIMIT` becomes: infinity, or the largest finite
    /// value where the format has no infinity (it saturates).
    const OVER: u32 = if Self::F.has_infinity() {
        Self::F.infinity_bits() as u32
    } else {
        Self::F.max_finite_bits() as u32
    };
    /// Added to the float32 bits of a normal result's magnitude: half an
    /// ulp less one, less the difference of the biases (wrapping).
    const ROUND: u32 =
        ((1u32 << (Self::SH - 1)) - 1).wrapping_sub(((127 - Self::F.bias) as u32) << 23);
    /// A float32 whose ulp is the format's least subnormal: adding a
    /// magnitude below `MIN_NORMAL` to it rounds that magnitude to the
    /// format's subnormals, and the sum's low bits are the code.
    const MAGIC: u32 = ((Self::F.emin() - Self::F.fraction_bits as i32 + 23 + 127) as u32) << 23;
}

/// float32 bits `x` rounded once into `N`'s format, nearest-even (the
/// code, in the low bits). Overflow gives `N::OVER`; a NaN the quiet NaN
/// of its sign keeping its payload's top bits, float8_e4m3fn's NaN of its
/// sign, or float4_e2m1fn's +0.
///
/// A normal result is the magnitude's bits plus half an ulp less one plus
/// the dropped bits' last kept bit (a tie rounds to even), shifted; the
/// exponent's bias changes by the subtraction folded into `ROUND`. A
/// subnormal one, by the float addition `MAGIC` (under round to
/// nearest-even, which `Arch::under` sets): exact but for that one rounding,
/// at the right bit. A format with float32's exponent range (bfloat16)
/// needs neither the second case nor the sign taken apart: its subnormals
/// are float32's, and the rounding carries into the exponent, up to
/// infinity, as it should.
#[inline(always)]
pub(crate) fn narrow<N: Narrow>(x: u32) -> u32 {
    let a = x & 0x7FFF_FFFF;
    let nan = a > 0x7F80_0000;
    let (fb, fm) = (N::F.fraction_bits, N::F.fraction_mask() as u32);
    if N::MIN_NORMAL == 0x0080_0000 {
        let odd = (x >> N::SH) & 1;
        let code = x.wrapping_add(N::ROUND).wrapping_add(odd) >> N::SH;
        return if nan {
            x >> N::SH | 1 << (fb - 1)
        } else {
            code
        };
    }
    let sign = (x >> 31) << (N::F.bits() - 1);
    let odd = (a >> N::SH) & 1;
    let normal = a.wrapping_add(N::ROUND).wrapping_add(odd) >> N::SH;
    let magic = f32::from_bits(N::MAGIC);
    let sub = (f32::from_bits(a) + magic).to_bits().wrapping_sub(N::MAGIC);
    let code = if a < N::MIN_NORMAL { sub } else { normal };
    let special = match N::F.specials {
        Specials::Ieee => {
            N::OVER
                | if nan {
                    1 << (fb - 1) | (a >> N::SH) & fm
                } else {
                    0
                }
        }
        Specials::FnNan => N::OVER | u32::from(nan),
        Specials::Finite => N::OVER,
    };
    let code = sign | if a < N::LIMIT { code } else { special };
    if N::F.specials == Specials::Finite && nan {
        0
    } else {
        code
    }
}

/// float16 bits widened to float32 bits, exactly; a NaN made quiet, keeping
/// its payload. The magnitude's bits, placed where float32's are, read as a
/// float32 2^112 times too small (a subnormal one a float32 subnormal): the
/// product by 2^112 is exact, and needs subnormal inputs kept (no DAZ,
/// which `Arch::under` clears). Infinity and NaN come from the exponent
/// 31, as finite values the product leaves 2^16 times larger, whose
/// exponent field all ones covers.
#[inline(always)]
pub(crate) fn f16_bits(h: u16) -> u32 {
    let a = u32::from(h & 0x7FFF);
    let sign = u32::from(h & 0x8000) << 16;
    let scaled = (f32::from_bits(a << 13) * f32::from_bits((127 + 112) << 23)).to_bits();
    let special = if a > 0x7BFF { 0x7F80_0000 } else { 0 };
    let quiet = if a > 0x7C00 { 0x40_0000 } else { 0 };
    scaled | sign | special | quiet
}

/// bfloat16 bits widened to float32 bits (float32's top half); a NaN made
/// quiet.
#[inline(always)]
pub(crate) fn bf16_bits(h: u16) -> u32 {
    let quiet = if h & 0x7FFF > 0x7F80 { 0x40_0000 } else { 0 };
    u32::from(h) << 16 | quiet
}

/// float64 bits -> float32 bits that round into every narrow format
/// (`Narrow`) as the float64 does: where any bit below bit 40 is set, set
/// bit 40, clear those below, and convert (exactly, where float32 is
/// normal). A NaN keeps its sign and top payload bits (`nan32`).
///
/// Why: the narrow formats keep at most 10 fraction bits, and round at
/// float64 bit 41 or above: bit 40 set where anything below it was is a
/// sticky bit under every round bit, so each rounds alike (the tie and
/// above-tie cases stay apart). Where float32 is normal every kept bit is
/// float32's (its last is float64 bit 29), so the conversion is exact. Below
/// float32's normals (|x| < 2^-126) it is exact down to 2^-137 (12
/// significant bits, float32's quantum 2^-149 there): bfloat16's subnormals
/// (quantum 2^-133) round as the float64 would, and what lies below 2^-137
/// rounds, however the conversion rounds it, to a zero of x's sign in every
/// format. Past float32's range the conversion gives infinity, past every
/// format's. Not for integer destinations, which need float32's 24 bits.
#[inline(always)]
pub(crate) fn fold(b: u64) -> u32 {
    const LOW: u64 = (1 << 40) - 1;
    // Bit 40 of the low bits plus LOW: set by the carry where any is.
    let sticky = ((b & LOW) + LOW) & (1 << 40);
    let x = f64::from_bits((b & !LOW) | sticky) as f32;
    nan32(b, x)
}

/// float64 bits `b` converted to the float32 `x`: `x`'s bits, or where `b`
/// is a NaN and the target's conversion may not keep it (`KEEPS_NAN`), the
/// quiet NaN of its sign with its payload's top 22 bits.
#[inline(always)]
pub(crate) fn nan32(b: u64, x: f32) -> u32 {
    let q = (b >> 32) as u32 & 0x8000_0000 | 0x7FC0_0000 | (b >> 29) as u32 & 0x3F_FFFF;
    if !KEEPS_NAN && f64::from_bits(b).is_nan() {
        q
    } else {
        x.to_bits()
    }
}

/// float32 bits `x` converted to the float64 bits `y`: `y`, or where `x`
/// is a NaN and the target's conversion may not keep it (`KEEPS_NAN`), the
/// quiet NaN of its sign with its whole payload.
#[inline(always)]
pub(crate) fn nan64(x: u32, y: u64) -> u64 {
    let q =
        u64::from(x & 0x8000_0000) << 32 | 0x7FF8_0000_0000_0000 | u64::from(x & 0x3F_FFFF) << 29;
    if !KEEPS_NAN && x & 0x7FFF_FFFF > 0x7F80_0000 {
        q
    } else {
        y
    }
}

/// A 64-bit integer's magnitude `m` and sign (`neg`) -> float32 bits
/// rounded to odd (truncated to 24 significant bits, the last set where a
/// dropped bit was), in the integers: the narrow formats round it as they
/// would the integer (`F64Odd`'s argument in `kernels::lanes`).
#[inline(always)]
pub(crate) fn odd64(m: u64, neg: bool) -> u32 {
    let lz = m.leading_zeros();
    let norm = m.checked_shl(lz).unwrap_or(0);
    let top = (norm >> 40) as u32 | u32::from(norm << 24 != 0);
    // The leading bit (bit 23 of `top`) adds one to the exponent field.
    let bits = ((189u32.wrapping_sub(lz)) << 23).wrapping_add(top);
    let sign = u32::from(neg) << 31;
    if m == 0 {
        0
    } else {
        sign | bits
    }
}

//! The lanes framework, shared by every architecture: a kernel as a source
//! decoder and a destination encoder that meet in lanes, 32 elements a
//! step. The dtypes' markers (`F16In`, `NarrowOut`, ...) name conversions,
//! not instructions: `F64Fold<40>` is "float64 with the sticky bit folded at
//! bit 40, truncated to float32" on every level, so the levels' kernels for
//! one pair compute the same thing, which the kernel tests hold to the
//! scalar reference. Each level implements `VSrc` and `VDst` for its lane
//! type (x86: `avx2.rs`, `avx512/steps.rs`).
//!
//! `each` is the one loop of every kernel: whole steps, the source
//! prefetched ahead when a streamed call asks, then the last partial step.

use super::Raw;
use crate::codes::*;
use crate::format::{Format, E2M1FN};
use crate::table::Dtype;
use std::mem::MaybeUninit;

/// Elements a step.
pub(crate) const STEP: usize = 32;

/// What a kernel's float instructions need from the floating-point
/// environment beyond the default (round to nearest-even, subnormals kept,
/// every exception masked). Each architecture turns it into its own control
/// register (`x86::mxcsr`), so that the caller's environment changes no
/// result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fp(u8);

impl Fp {
    pub const DEFAULT: Fp = Fp(0);
    /// Round toward zero (the sources rounded to odd).
    pub const TOWARD_ZERO: Fp = Fp(1);
    /// Subnormal inputs and results may be flushed to zero: only where
    /// they round to a zero of their sign anyway (`NarrowOut`), and it
    /// spares the slow path such values take on x86.
    pub const FLUSH: Fp = Fp(2);

    pub const fn with(self, other: Fp) -> Fp {
        Fp(self.0 | other.0)
    }

    pub const fn has(self, other: Fp) -> bool {
        self.0 & other.0 == other.0
    }
}

/// One side of a conversion: its dtype code, bits per element (the
/// dtype's, from the table), and what its conversions need of the
/// floating-point environment.
pub trait Side {
    const DT: i32;
    const BITS: usize = dtype_bits(Self::DT);
    const FP: Fp = Fp::DEFAULT;
}

/// The bits of the dtype whose code is `dt`.
// Only evaluated in constants (`Side::BITS`, `avx512::patch`): a bad code
// fails the build.
#[allow(clippy::panic)]
pub(crate) const fn dtype_bits(dt: i32) -> usize {
    match Dtype::from_code(dt) {
        Some(d) => d.bits() as usize,
        None => panic!("no such dtype code"),
    }
}

/// A source in lanes `L`: `get` widens the `STEP` elements at `p` to
/// float32 bits (float16 codes, for the code lanes), exactly, or rounded as
/// the marker says (float64, the 32-bit integers), reading those elements'
/// bytes and no others (`steps`' last step relies on it).
pub trait VSrc<L>: Side {
    /// # Safety
    /// `p` is readable for `STEP * BITS / 8` bytes; the CPU has the
    /// features of the level `L` belongs to, and the MXCSR is `env::<S, D>`.
    unsafe fn get(p: *const u8) -> L;
}

/// A destination in lanes `L`: `put` rounds `STEP` elements once into its
/// elements at `p` (non-temporal stores when `NT`), writing every byte of
/// them (`steps`' last step copies them out).
pub trait VDst<L>: Side {
    /// # Safety
    /// `p` is writable for `STEP * BITS / 8` bytes, and aligned to the
    /// smaller of that and 64 when `NT`; CPU and MXCSR as `VSrc::get`.
    unsafe fn put<const NT: bool>(x: L, p: *mut u8);

    /// Whether the step loop hands this encoder two steps at once (`put2`),
    /// where the level unrolls by two.
    const PAIRED: bool = false;

    /// Two steps, `x1`'s elements after `x0`'s: for encoders that pack two
    /// steps' results in fewer operations than one each (`PAIRED`). The
    /// default is never called by the step loop: it would keep `put` from
    /// being inlined (this body has no CPU features), which halves the
    /// light pairs.
    ///
    /// # Safety
    /// As `put`, for two steps (`p` aligned to the smaller of their width
    /// and 64 when `NT`).
    #[inline(always)]
    unsafe fn put2<const NT: bool>(x0: L, x1: L, p: *mut u8) {
        // SAFETY: the caller's two steps.
        unsafe {
            Self::put::<NT>(x0, p);
            Self::put::<NT>(x1, p.add(STEP * Self::BITS / 8));
        }
    }
}

/// The lanes of one level: `raw` is the step loop over `S` and `D`
/// compiled with that level's CPU features (`steps` in a
/// `#[target_feature]` function).
pub trait Lanes: Sized {
    /// Steps a loop iteration: two where the level has registers for two
    /// steps in flight (AVX-512's 32), else one (AVX2's 16: two steps of
    /// the heavier decoders spill).
    const UNROLL: usize;
    fn raw<S: VSrc<Self>, D: VDst<Self>, const NT: bool>() -> Raw;

    /// The last partial step's `len` source bytes from `src` into `buf`,
    /// its other bytes up to `cap` zeroed.
    ///
    /// # Safety
    /// `src` readable for `len` bytes, `buf` writable for 512, `len <=
    /// cap <= 512`; the CPU as the level's.
    #[inline(always)]
    unsafe fn tail_in(src: *const u8, buf: *mut u8, len: usize, cap: usize) {
        // SAFETY: the caller's.
        unsafe {
            std::ptr::copy_nonoverlapping(src, buf, len);
            std::ptr::write_bytes(buf.add(len), 0, cap - len);
        }
    }

    /// The last partial step's `len` destination bytes from `buf` to `dst`.
    ///
    /// # Safety
    /// `buf` readable (and initialised) and `dst` writable for `len` bytes;
    /// the CPU as the level's.
    #[inline(always)]
    unsafe fn tail_out(buf: *const u8, dst: *mut u8, len: usize) {
        // SAFETY: the caller's.
        unsafe { std::ptr::copy_nonoverlapping(buf, dst, len) }
    }
}

/// The environment a kernel from `S` to `D` runs under.
pub const fn fp<S: Side, D: Side>() -> Fp {
    S::FP.with(D::FP)
}

/// Software prefetch of a kernel's source for `each`: the bytes a step
/// reads, `ahead` bytes past them (none when `ahead` is 0: every call but
/// a streamed one that found it paying, `driver::streamed`).
#[derive(Clone, Copy)]
pub struct Fetch {
    src: *const u8,
    bits: usize,
    ahead: usize,
}

impl Fetch {
    /// For a source at `src` of `bits` per element; `NT`: the kernel's
    /// non-temporal form, the only one that prefetches.
    #[inline(always)]
    pub fn new<const NT: bool>(src: *const u8, bits: usize, ahead: usize) -> Fetch {
        let ahead = if NT { ahead } else { 0 };
        Fetch { src, bits, ahead }
    }

    /// No prefetch.
    pub const NONE: Fetch = Fetch {
        src: std::ptr::null(),
        bits: 0,
        ahead: 0,
    };

    #[inline(always)]
    fn step(self, i: usize, g: usize) {
        if self.ahead > 0 {
            let p = self
                .src
                .wrapping_add(i * self.bits / 8)
                .wrapping_add(self.ahead);
            for o in (0..g * self.bits / 8).step_by(64) {
                <super::Native as super::Arch>::prefetch(p.wrapping_add(o));
            }
        }
    }
}

/// The loop of every kernel: `step(i)` converts elements `i .. i + g`
/// (whole vectors), then `part(i, left)` the rest, `t` elements at a time,
/// `left` of them (at most `t`) in the call's range.
#[inline(always)]
pub fn each(
    n: usize,
    g: usize,
    t: usize,
    fetch: Fetch,
    mut step: impl FnMut(usize),
    mut part: impl FnMut(usize, usize),
) {
    // (A count of steps, not `i + g <= n`: the loop the compiler makes of
    // it keeps one induction variable.)
    let steps = n / g.max(1);
    for k in 0..steps {
        fetch.step(k * g, g);
        step(k * g);
    }
    let mut i = steps * g;
    if g == t {
        // At most one partial step (the common case: no loop to unroll).
        if i < n {
            part(i, n - i);
        }
        return;
    }
    while i < n {
        part(i, (n - i).min(t));
        i += t;
    }
}

/// The lanes kernel from `S` to `D`: `UNROLL` steps at a time, then single
/// steps; the last partial step as the last STEP elements again (some
/// converted twice, the same bytes) where there is a whole step before it,
/// else through stack buffers (reading and writing only the caller's
/// bytes).
///
/// # Safety
/// As `Raw`: `src` readable for ceil(n * S::BITS / 8) bytes, `dst` writable
/// for ceil(n * D::BITS / 8) (64-byte aligned when `NT`), the CPU and the
/// floating-point environment as `VSrc::get`.
#[inline(always)]
pub unsafe fn steps<L: Lanes, S: VSrc<L>, D: VDst<L>, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    let (sb, db) = (STEP * S::BITS / 8, STEP * D::BITS / 8);
    let fetch = Fetch::new::<NT>(src, S::BITS, ahead);
    let whole = |i: usize| {
        // SAFETY: steps i .. i + UNROLL STEP lie within the first n elements
        // of both arrays, at a multiple of their width from the (aligned,
        // when NT) start; of twice their width where UNROLL is 2.
        unsafe {
            let (s, d) = (src.add(byte_of::<S>(i)), dst.add(byte_of::<D>(i)));
            if L::UNROLL == 2 && D::PAIRED {
                D::put2::<NT>(S::get(s), S::get(s.add(sb)), d);
            } else {
                for j in 0..L::UNROLL {
                    D::put::<NT>(S::get(s.add(j * sb)), d.add(j * db));
                }
            }
        }
    };
    // What the unrolled steps leave, fewer than UNROLL steps: whole single
    // steps, then the last partial one.
    let last = |mut i: usize, mut rest: usize| {
        while L::UNROLL > 1 && rest >= STEP {
            // SAFETY: as above, one step.
            unsafe { D::put::<NT>(S::get(src.add(byte_of::<S>(i))), dst.add(byte_of::<D>(i))) };
            (i, rest) = (i + STEP, rest - STEP);
        }
        let bytes = (n * S::BITS).is_multiple_of(8) && (n * D::BITS).is_multiple_of(8);
        if rest > 0 && n >= STEP && bytes {
            // The last STEP elements as one step, in place of the stack
            // buffers below, whose copies a vector load cannot be
            // forwarded from.
            let j = n - STEP;
            // SAFETY: elements j .. n lie within both arrays, on whole bytes.
            unsafe { D::put::<false>(S::get(src.add(byte_of::<S>(j))), dst.add(byte_of::<D>(j))) }
        } else if rest > 0 {
            // SAFETY: `rest` elements remain past i, on whole bytes.
            unsafe { tail::<L, S, D>(src.add(byte_of::<S>(i)), dst.add(byte_of::<D>(i)), rest) }
        }
    };
    let g = STEP * L::UNROLL;
    each(n, g, g, fetch, whole, last);
}

/// The byte of element `i` (on a whole byte) of side `X`: a shift or a
/// multiplication by a constant, not `i * BITS / 8` (whose wrapping costs
/// a mask in the loop).
#[inline(always)]
fn byte_of<X: Side>(i: usize) -> usize {
    if X::BITS >= 8 {
        i * (X::BITS / 8)
    } else {
        i / (8 / X::BITS)
    }
}

/// A partial step of `rest` elements through stack buffers.
///
/// # Safety
/// `src` readable for the `rest` elements' bytes, `dst` writable for
/// theirs; the CPU and environment as `VSrc::get`.
#[inline(always)]
unsafe fn tail<L: Lanes, S: VSrc<L>, D: VDst<L>>(src: *const u8, dst: *mut u8, rest: usize) {
    // A step of the widest dtype, complex128 (a build error past it).
    const { assert!(S::BITS <= 128 && D::BITS <= 128) };
    let (sb, _) = (STEP * S::BITS / 8, STEP * D::BITS / 8);
    // Only the step's bytes are initialised (the source's rest zeroed, the
    // destination written by `put`), not the whole buffers.
    let mut sbuf = [MaybeUninit::<u8>::uninit(); STEP * 16];
    let mut dbuf = [MaybeUninit::<u8>::uninit(); STEP * 16];
    let (sl, dl) = ((rest * S::BITS).div_ceil(8), (rest * D::BITS).div_ceil(8));
    let (s, d) = (
        sbuf.as_mut_ptr().cast::<u8>(),
        dbuf.as_mut_ptr().cast::<u8>(),
    );
    // SAFETY: sl and dl bytes remain in the caller's arrays; the buffers
    // hold a step of any width, and `get` reads sb bytes of `sbuf` (all
    // written here: sl <= sb), `put` writes db of `dbuf`, of which dl <= db
    // are copied out.
    unsafe {
        L::tail_in(src, s, sl, sb);
        D::put::<false>(S::get(s), d);
        L::tail_out(d, dst, dl);
    }
}

/// The bits in `to` (float16, bfloat16 or float32: wider in both fields)
/// of the magnitude `k` of `fmt` (float8_e4m3fn or float4_e2m1fn),
/// exactly; the NaN is `to`'s quiet NaN. Evaluated at compile time, for
/// the levels' tables.
pub(crate) const fn widen_code(fmt: Format, k: u32, to: Format) -> u32 {
    let (f, tf) = (fmt.fraction_bits, to.fraction_bits);
    if fmt.is_nan(k as u64) {
        return (to.infinity_bits() | 1 << (tf - 1)) as u32;
    }
    let exp = k >> f;
    let frac = k & fmt.fraction_mask() as u32;
    if exp == 0 {
        if frac == 0 {
            return 0;
        }
        // frac * 2^(emin - f): its leading bit p is the binade.
        let p = 31 - frac.leading_zeros();
        let e = fmt.emin() - f as i32 + p as i32;
        return (((e + to.bias) as u32) << tf) | ((frac - (1 << p)) << (tf - p));
    }
    (((exp as i32 - fmt.bias + to.bias) as u32) << tf) | (frac << (tf - f))
}

/// The bits in `to` of the 4-bit code `k` of the dtype `dt` (int4, uint4
/// or float4_e2m1fn), exactly: every such value has at most 4 significant
/// bits, which float16, bfloat16 and float32 all hold. For tables, at
/// compile time.
pub(crate) const fn nibble_code(dt: i32, k: u32, to: Format) -> u32 {
    let sign = 1 << (to.bits() - 1);
    if dt == NX_FLOAT4_E2M1FN {
        return widen_code(E2M1FN, k & 7, to) | if k & 8 != 0 { sign } else { 0 };
    }
    let v = if dt == NX_INT4 {
        (k as i32 ^ 8) - 8
    } else {
        k as i32
    };
    let code = int_code(v.unsigned_abs(), to);
    if v < 0 {
        code | sign
    } else {
        code
    }
}

/// The bits in `to` of the integer `m`, whose significant bits `to` holds
/// (at most its fraction bits + 1), exactly. For tables and bounds, at
/// compile time.
pub(crate) const fn int_code(m: u32, to: Format) -> u32 {
    if m == 0 {
        return 0;
    }
    let p = 31 - m.leading_zeros();
    ((p as i32 + to.bias) as u32) << to.fraction_bits | (m - (1 << p)) << (to.fraction_bits - p)
}

/// `to`'s codes (16 bits wide) of the 16 codes of the 4-bit dtype `dt`
/// (`nibble_code`), in code order: what each level's lookup tables lay out.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
pub(crate) const fn nibble_codes(dt: i32, to: Format) -> [u16; 16] {
    let mut t = [0u16; 16];
    let mut k = 0;
    while k < 16 {
        t[k] = nibble_code(dt, k as u32, to) as u16;
        k += 1;
    }
    t
}

/// The low bytes, then the high bytes, of `nibble_codes`: two byte-lookup
/// tables.
#[allow(clippy::indexing_slicing)] // only in constant blocks: would fail the build
pub(crate) const fn nibble_table(dt: i32, to: Format) -> [[u8; 16]; 2] {
    let c = nibble_codes(dt, to);
    let mut t = [[0u8; 16]; 2];
    let mut k = 0;
    while k < 16 {
        t[0][k] = c[k] as u8;
        t[1][k] = (c[k] >> 8) as u8;
        k += 1;
    }
    t
}

/// `Side` for a marker, or for one with a `bool` parameter `$g` that its
/// code may depend on (signed or not, complex or not).
macro_rules! side {
    ($t:ident<$g:ident>, $dt:expr $(, $env:expr)?) => {
        impl<const $g: bool> Side for $t<$g> {
            const DT: i32 = $dt;
            $(const FP: Fp = $env;)?
        }
    };
    ($t:ty, $dt:expr $(, $env:expr)?) => {
        impl Side for $t {
            const DT: i32 = $dt;
            $(const FP: Fp = $env;)?
        }
    };
}

// ------------------------------------------------------------- sources

pub struct F32In;
side!(F32In, NX_FLOAT32);

/// float16, widened exactly (a NaN made quiet, keeping its payload).
pub struct F16In;
side!(F16In, NX_FLOAT16);

/// bfloat16 is float32's top half. `QUIET = false` leaves a signaling NaN
/// signaling, for every destination but float32 (which would keep it so):
/// they quiet a NaN themselves (VCVTPS2PH, VCVTPS2PD, the float8 rounding)
/// or drop its bits (integers, bool).
pub struct Bf16In<const QUIET: bool>;
side!(Bf16In<QUIET>, NX_BFLOAT16);

/// float8_e4m3fn: 0x7F and 0xFF are NaN (widened to the quiet NaN of the
/// sign).
pub struct E4m3In;
side!(E4m3In, NX_FLOAT8_E4M3FN);

/// float8_e5m2 is float16's top byte (a NaN made quiet).
pub struct E5m2In;
side!(E5m2In, NX_FLOAT8_E5M2);

pub struct E2m1In;
side!(E2m1In, NX_FLOAT4_E2M1FN);

pub struct I8In<const SIGNED: bool>;
side!(I8In<SIGNED>, if SIGNED { NX_INT8 } else { NX_UINT8 });

pub struct I4In<const SIGNED: bool>;
side!(I4In<SIGNED>, if SIGNED { NX_INT4 } else { NX_UINT4 });

pub struct I16In<const SIGNED: bool>;
side!(I16In<SIGNED>, if SIGNED { NX_INT16 } else { NX_UINT16 });

/// bool: any byte but 0 is true (1.0).
pub struct BoolIn;
side!(BoolIn, NX_BOOL);

/// bit: one a bit, low bit first (1.0 or 0).
pub struct BitIn;
side!(BitIn, NX_BIT);

/// float64 rounded to nearest-even (VCVTPD2PS): for float32 destinations.
/// `C` (in each of the float64 markers): complex128's real parts instead
/// (SEMANTICS.md: a complex converts to a real type as its real part).
pub struct F64Near<const C: bool = false>;
side!(F64Near<C>, if C { NX_COMPLEX128 } else { NX_FLOAT64 });

/// float64 rounded to odd: VCVTPD2PS under round-toward-zero, then the
/// last bit set where that was inexact (the float32 widened back differs;
/// never for a NaN, which an ordered compare leaves alone). Past float32's
/// range that gives its largest finite value (odd), infinities stay, NaNs
/// keep their top payload bits. Exact down to float32's least subnormal,
/// for bool.
///
/// Why rounding to odd first and then to nearest-even in a format F of q
/// significand bits gives the single rounding of x into F, when float32 has
/// at least q + 2 bits at x's magnitude: every value of F and every midpoint
/// between two neighbours of F is then an *even* multiple of float32's
/// quantum there. Rounding to odd maps x to itself if it is on float32's
/// grid, else to the odd grid point strictly between x's two grid
/// neighbours, so x and its image lie on the same side of (or both on) every
/// value and midpoint of F, and round alike. The precondition holds for
/// every F used (q <= 11 < 24 - 2 in the normal range; F's subnormal quantum
/// 2^-24 (float16) or 2^-133 (bfloat16) is at least 4 times float32's
/// 2^-149; values below all of that round to 0 in F either way). Past
/// float32's range rounding to odd gives float32's largest finite value
/// (odd), which is past every F's overflow threshold, so it overflows alike.
/// An integer destination truncates the odd float32 as it would x: below
/// 2^24 the two are one number, above they saturate alike.
pub struct F64Odd<const C: bool = false>;
side!(
    F64Odd<C>,
    if C { NX_COMPLEX128 } else { NX_FLOAT64 },
    Fp::TOWARD_ZERO
);

/// float64 -> float32 bits that round into the destination as float64
/// would, by integer work in place of `F64Odd`'s widening back and compare:
/// where any bit of x below bit `B` is set, set bit `B`, then truncate
/// (VCVTPD2PS under round-toward-zero). The bit stays in x's binade, and a
/// NaN stays a NaN (its float32 payload's bit B - 29 maybe set, which no
/// destination here keeps).
///
/// `B = 29`, for float16, float8, float4 and the integers: float32's last
/// bit is float64's bit 29 wherever float32 is normal, so this is rounding
/// to odd there (a truncation ending in 0 steps to its odd neighbour, one
/// ending in 1 is it), and past float32's range it gives the largest finite
/// value, as `F64Odd`. Below float32's normals (|x| < 2^-126) it only
/// truncates, which is enough: every value and midpoint of these
/// destinations lies far above, and all of that rounds to a zero of x's sign
/// either way.
///
/// `B = 40`, for bfloat16 (whose subnormals reach 2^-133, so the above is
/// not enough): bfloat16 rounds float32 bits at its round bit, float32 bit
/// 15, with a sticky bit standing for bits 14..0. Where float32 is normal
/// (or overflows) those are float64 bits 44 and 43..29, and bit 40, set
/// where any bit below it is, survives the truncation at bit 29 inside
/// the sticky range. For 2^-134 <= |x| < 2^-126 (exponent e from -134 to
/// -127), float32's last bit (2^-149) is float64 bit -97 - e <= 37 and
/// bfloat16's round bit (2^-134) is bit -82 - e >= 45: bit 40 again survives
/// the truncation and stands below the round bit. Below 2^-134 both x and
/// the result round to a zero of x's sign. (Any B from 37 to 43 would do;
/// the kernel tests fail at 36 and at 44.) Bool still needs `F64Odd` (the
/// least float64 is true).
///
/// `B = 40 + d` for a float8 or float4 destination (`narrow16`'s d: 10
/// less its fraction bits): float32 bit 11 + d, where `narrow16` would fold
/// the float32 of `B = 29` (the same bits below and the same sticky), so
/// it need not (`NarrowOut<_, true>`).
pub struct F64Fold<const B: u32, const C: bool = false>;
impl<const B: u32, const C: bool> Side for F64Fold<B, C> {
    const DT: i32 = if C { NX_COMPLEX128 } else { NX_FLOAT64 };
    const FP: Fp = Fp::TOWARD_ZERO;
}

/// int32 and uint32 (`SIGNED`), rounded to nearest-even (VCVTDQ2PS): for
/// float32 destinations.
pub struct I32Near<const SIGNED: bool>;
side!(I32Near<SIGNED>, if SIGNED { NX_INT32 } else { NX_UINT32 });

/// int32 and uint32 rounded to odd (as `F64Odd`, whose comment says why):
/// converted under round-toward-zero, the last bit set where converting
/// back (truncating) gives another integer; for the destinations narrower
/// than float32, the integers and bool.
pub struct I32Odd<const SIGNED: bool>;
side!(
    I32Odd<SIGNED>,
    if SIGNED { NX_INT32 } else { NX_UINT32 },
    Fp::TOWARD_ZERO
);

/// int64 and uint64 rounded to odd in float32 (as `I32Odd`).
pub struct I64Odd<const SIGNED: bool>;
side!(
    I64Odd<SIGNED>,
    if SIGNED { NX_INT64 } else { NX_UINT64 },
    Fp::TOWARD_ZERO
);

/// complex64's real parts (exact): what a complex64 converts to, but for
/// the complex destinations and bool (SEMANTICS.md: the imaginary part is
/// dropped).
pub struct C64In;
side!(C64In, NX_COMPLEX64);

/// complex64 for bool: lanes whose magnitude bits are the two parts'
/// magnitude bits or'ed, nonzero where either part is (a NaN is nonzero).
pub struct C64Any;
side!(C64Any, NX_COMPLEX64);

/// complex128 for bool: float32 lanes 1.0 where either part is nonzero (a
/// NaN is), else 0.
pub struct C128Any;
side!(C128Any, NX_COMPLEX128);

// -------------------------------------------------------- destinations

pub struct F32Out;
side!(F32Out, NX_FLOAT32);

pub struct F64Out;
side!(F64Out, NX_FLOAT64);

pub struct F16Out;
side!(F16Out, NX_FLOAT16);

/// float32 -> bfloat16, rounded to nearest-even (a NaN quiet, keeping its
/// top payload bits).
pub struct Bf16Out;
side!(Bf16Out, NX_BFLOAT16);

/// `Bf16Out` by AVX512-BF16's VCVTNE2PS2BF16 (AVX-512 only): the same
/// rounding, whatever MXCSR says, but subnormal inputs flushed to zero; a
/// step holding one (only those have subnormal results: bfloat16 has
/// float32's exponent range) takes `Bf16Out`'s rounding instead. `SUB`:
/// whether the source's lanes can be subnormal (not an integer's, nor
/// float16's, whose subnormals are float32 normals); if not, no step is
/// tested for them.
pub struct Bf16Ne<const SUB: bool>;
side!(Bf16Ne<SUB>, NX_BFLOAT16);

/// bfloat16 from float32 lanes that are bfloat16 values already, NaNs
/// quiet (sources of at most 8 significant bits in bfloat16's range: the
/// float8 and float4 formats, the 8- and 4-bit integers, bool), where
/// `Bf16Out` would round nothing: the top halves.
pub struct Bf16Top;
side!(Bf16Top, NX_BFLOAT16);

/// A float8 or float4 (`FMT`: 0 float8_e4m3fn, 1 float8_e5m2, 2
/// float4_e2m1fn), rounded once through float16 (`avx2::narrow16`, whose
/// comment has the proof). `FOLDED`: for sources that fold the sticky bit
/// themselves (`F64Fold<{40 + d}>`). Runs with FTZ and DAZ: the product
/// that scales float32 into float16's range falls below float32's normals,
/// and a float32 below them is, only where the code rounds to a zero of x's
/// sign anyway. Without them, such a product or factor takes a slow path
/// on x86 (a microcode assist) for its whole vector, twenty times slower.
pub struct NarrowOut<const FMT: u8, const FOLDED: bool = false>;
impl<const FMT: u8, const FOLDED: bool> Side for NarrowOut<FMT, FOLDED> {
    const DT: i32 = NX_FLOAT8_E4M3FN + FMT as i32;
    const FP: Fp = Fp::FLUSH;
}

/// `NarrowOut`'s formats by number (a const generic cannot be a `Format`).
pub const fn narrow_format(k: u8) -> crate::format::Format {
    use crate::format::{E2M1FN, E4M3FN, E5M2};
    match k {
        0 => E4M3FN,
        1 => E5M2,
        _ => E2M1FN,
    }
}
pub type E4m3Out = NarrowOut<0>;
pub type E5m2Out = NarrowOut<1>;
pub type E2m1Out = NarrowOut<2>;
pub type E4m3Folded = NarrowOut<0, true>;
pub type E5m2Folded = NarrowOut<1, true>;
pub type E2m1Folded = NarrowOut<2, true>;

/// Integers in [LO, HI] (at most 16 bits): truncated, saturated, NaN 0
/// (SEMANTICS.md), in `BITS`-bit elements.
pub struct IntOut<const LO: i32, const HI: i32, const BITS: usize>;
impl<const LO: i32, const HI: i32, const BITS: usize> Side for IntOut<LO, HI, BITS> {
    const DT: i32 = match (BITS, LO < 0) {
        (16, true) => NX_INT16,
        (16, false) => NX_UINT16,
        (8, true) => NX_INT8,
        (8, false) => NX_UINT8,
        (_, true) => NX_INT4,
        (_, false) => NX_UINT4,
    };
}
pub type I16Out = IntOut<-32768, 32767, 16>;
pub type U16Out = IntOut<0, 65535, 16>;
pub type I8Out = IntOut<-128, 127, 8>;
pub type U8Out = IntOut<0, 255, 8>;
pub type I4Out = IntOut<-8, 7, 4>;
pub type U4Out = IntOut<0, 15, 4>;

/// int32 and uint32 (`SIGNED`) from float32 lanes that hold the source's
/// values exactly (so not from float64 or the 32-bit integers): truncated,
/// saturated, NaN 0 (SEMANTICS.md).
pub struct I32Out<const SIGNED: bool>;
side!(I32Out<SIGNED>, if SIGNED { NX_INT32 } else { NX_UINT32 });

/// int64 and uint64 from float32 lanes that hold the source's values
/// exactly (as `I32Out`).
pub struct I64Out<const SIGNED: bool>;
side!(I64Out<SIGNED>, if SIGNED { NX_INT64 } else { NX_UINT64 });

/// complex64 from float32 lanes that are the float32 results already (the
/// float32 destination's sources), imaginary parts +0.
pub struct C64Out;
side!(C64Out, NX_COMPLEX64);

/// complex128 from float32 lanes that hold the source's values exactly
/// (widened exactly, NaN quiet), imaginary parts +0.
pub struct C128Out;
side!(C128Out, NX_COMPLEX128);

/// bool: 1 for anything but ±0 (a NaN is true).
pub struct BoolOut;
side!(BoolOut, NX_BOOL);

/// bit: as bool, one a bit, low bit first.
pub struct BitOut;
side!(BitOut, NX_BIT);

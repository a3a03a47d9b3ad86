//! Whole kernels between the dtypes the CPU holds as machine types
//! (float64, float32, the 8- to 64-bit integers, bool, and complex128 and
//! complex64 as pairs of floats), compiled for each SIMD level, for the
//! pairs a level's lanes leave without a kernel or run slower: the
//! integers among themselves, and at AVX2 also the
//! 64-bit integers with the other machine types, float64 <-> the 32-bit
//! integers and complex128 with those. Each is a map of one `Cast` per
//! element that the compiler vectorizes (where AVX2 has no instruction,
//! as for 64-bit integer <-> float, the casts are written in ones it
//! has). The scalar reference, which goes through i128 and the one
//! rounding routine, is many times slower on these pairs.
//!
//! The casts follow SEMANTICS.md under the kernel's MXCSR (`super::call`:
//! round to nearest-even, exceptions masked; FTZ and DAZ for `trunc64`,
//! where they change no result): int -> float rounds once (a
//! 64-bit conversion is one instruction, or for uint64 a halving whose
//! dropped bit is kept as a sticky bit); float -> int truncates, saturates
//! and takes NaN to 0, as Rust's `as` does (`truncate`, `wide_truncate`);
//! float -> float widens exactly, quieting a NaN, or rounds once; int ->
//! int saturates; bool is "not zero" (a NaN is not zero). A complex
//! converts as its real part, but to bool (either part) and to complex
//! (part by part); a real becomes a complex with imaginary part +0. The
//! kernel tests hold every pair to the scalar reference.

use super::{call, put256};
use crate::codes::*;
use crate::kernels::lanes::{each, Fetch, Fp};
use crate::kernels::{Isa, Store, Strided};
use std::arch::x86_64::*;
use std::mem::size_of;

/// A dtype held as the machine type `Self`, and its code.
pub trait Machine: Copy {
    const DT: i32;
}

/// bool: a byte, true when not zero.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Bool(u8);

/// complex128: real part, then imaginary.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct C128([f64; 2]);

/// complex64: real part, then imaginary.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct C64([f32; 2]);

macro_rules! machine {
    ($($t:ty = $dt:expr),* $(,)?) => {
        $(impl Machine for $t {
            const DT: i32 = $dt;
        })*
    };
}
machine!(
    f64 = NX_FLOAT64,
    f32 = NX_FLOAT32,
    i64 = NX_INT64,
    u64 = NX_UINT64,
    i32 = NX_INT32,
    u32 = NX_UINT32,
    i16 = NX_INT16,
    u16 = NX_UINT16,
    i8 = NX_INT8,
    u8 = NX_UINT8,
    Bool = NX_BOOL,
    C128 = NX_COMPLEX128,
    C64 = NX_COMPLEX64
);

/// One element converted to `D`, as SEMANTICS.md says (the module doc),
/// under the environment `FP`.
pub trait Cast<D> {
    const FP: Fp = Fp::DEFAULT;
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

/// Integer -> integer: clamped into the range both hold, then converted
/// (exactly, now).
macro_rules! saturate {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            #[inline(always)]
            fn cast(self) -> $d {
                const LO: i128 = if (<$s>::MIN as i128) > (<$d>::MIN as i128) {
                    <$s>::MIN as i128
                } else {
                    <$d>::MIN as i128
                };
                const HI: i128 = if (<$s>::MAX as i128) < (<$d>::MAX as i128) {
                    <$s>::MAX as i128
                } else {
                    <$d>::MAX as i128
                };
                self.clamp(LO as $s, HI as $s) as $d
            }
        }
    };
}

/// Conversions the hardware does as SEMANTICS.md asks (the module doc).
macro_rules! hardware {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            #[inline(always)]
            fn cast(self) -> $d {
                self as $d
            }
        }
    };
}

/// Float -> integer: Rust's `as` (truncate, saturate, NaN -> 0) written
/// so that the compiler can use the vector truncations: a NaN made 0 and
/// the value clamped into the range first, where the range's ends are
/// floats of `$s` (then the truncation cannot overflow); else `as`.
macro_rules! truncate {
    ($s:ty, $d:ty) => {
        impl Cast<$d> for $s {
            #[inline(always)]
            fn cast(self) -> $d {
                let (lo, hi) = (<$d>::MIN as $s, <$d>::MAX as $s);
                if lo as i128 == <$d>::MIN as i128 && hi as i128 == <$d>::MAX as i128 {
                    let x = if self.is_nan() {
                        0.0
                    } else {
                        self.clamp(lo, hi)
                    };
                    // SAFETY: x is a number within the range of $d.
                    unsafe { x.to_int_unchecked::<$d>() }
                } else {
                    self as $d
                }
            }
        }
    };
}

/// Float -> int64 and uint64 as `truncate` does, for the destinations
/// whose ends no float holds, in vector operations AVX2 has (it converts
/// no 64-bit integer): float64 x = hi 2^32 + r with hi = trunc(x 2^-32)
/// and r = x - hi 2^32 (exact, one FMA; r has x's sign and |r| < 2^32),
/// so trunc(x) = hi 2^32 + trunc(r), two integers of at most 32 bits,
/// which adding 1.5 x 2^52 puts in the low bits of a float64's bits. The
/// ends, NaN and (uint64) the negatives are selected after.
///
/// Run with FTZ and DAZ (`TRUNC64_FP`), which change no result: x below
/// the normals reads as a zero of its sign and truncates to 0 as it should,
/// and x 2^-32 falls below them only where |x| < 2^-990, whose hi is 0
/// anyway (then r = x, exactly). Without them such a factor or product
/// takes a slow path (a microcode assist) for its whole vector, twenty
/// times slower.
#[inline(always)]
fn trunc64(x: f64) -> u64 {
    const TWO32: f64 = 4294967296.0;
    const M: f64 = 6755399441055744.0;
    let hi = (x * (1.0 / TWO32)).trunc();
    let r = hi.mul_add(-TWO32, x).trunc();
    let int = |v: f64| (v + M).to_bits().wrapping_sub(M.to_bits());
    (int(hi) << 32).wrapping_add(int(r))
}

/// `trunc64`'s environment.
const TRUNC64_FP: Fp = Fp::FLUSH;

macro_rules! wide_truncate {
    ($($s:ty),*) => {
        $(
            impl Cast<i64> for $s {
                const FP: Fp = TRUNC64_FP;
                #[inline(always)]
                fn cast(self) -> i64 {
                    const END: f64 = 9223372036854775808.0;
                    let x = f64::from(self);
                    if x.is_nan() {
                        0
                    } else if x >= END {
                        i64::MAX
                    } else if x < -END {
                        i64::MIN
                    } else {
                        trunc64(x) as i64
                    }
                }
            }
            impl Cast<u64> for $s {
                const FP: Fp = TRUNC64_FP;
                #[inline(always)]
                fn cast(self) -> u64 {
                    let x = f64::from(self);
                    if x.is_nan() || x <= -1.0 {
                        0
                    } else if x >= 18446744073709551616.0 {
                        u64::MAX
                    } else {
                        trunc64(x)
                    }
                }
            }
        )*
    };
}

/// To bool: not zero (a NaN is not zero).
macro_rules! truth {
    ($zero:expr; $($s:ty),*) => {
        $(impl Cast<Bool> for $s {
            #[inline(always)]
            fn cast(self) -> Bool {
                Bool(u8::from(self != $zero))
            }
        })*
    };
}

/// From bool: 0 or 1 (any byte but 0 is true).
macro_rules! from_bool {
    ($($d:ty),*) => {
        $(impl Cast<$d> for Bool {
            #[inline(always)]
            fn cast(self) -> $d {
                u8::from(self.0 != 0) as $d
            }
        })*
    };
}

/// A complex's real part converted; a real as a complex with imaginary
/// part +0.
macro_rules! complex {
    ($c:ident, $f:ty, [$($d:ty),*]) => {
        $(
            impl Cast<$d> for $c {
                const FP: Fp = <$f as Cast<$d>>::FP;
                #[inline(always)]
                fn cast(self) -> $d {
                    self.0[0].cast()
                }
            }
            impl Cast<$c> for $d {
                #[inline(always)]
                fn cast(self) -> $c {
                    $c([Cast::<$f>::cast(self), 0.0])
                }
            }
        )*
        impl Cast<Bool> for $c {
            #[inline(always)]
            fn cast(self) -> Bool {
                Bool(u8::from(self.0[0] != 0.0 || self.0[1] != 0.0))
            }
        }
        impl Cast<$c> for Bool {
            #[inline(always)]
            fn cast(self) -> $c {
                $c([Cast::<$f>::cast(self), 0.0])
            }
        }
    };
}

/// A float into its own format (a complex's part): a NaN made quiet, as
/// every conversion makes it.
macro_rules! quiet {
    ($t:ty, $q:expr) => {
        impl Cast<$t> for $t {
            #[inline(always)]
            fn cast(self) -> $t {
                <$t>::from_bits(self.to_bits() | if self.is_nan() { $q } else { 0 })
            }
        }
    };
}
cross!(saturate; [i64, u64, i32, u32, i16, u16, i8, u8]; [i64, u64, i32, u32, i16, u16, i8, u8]);
cross!(hardware; [i64, u64, i32, u32, i16, u16, i8, u8]; [f64, f32]);
cross!(truncate; [f64, f32]; [i32, u32, i16, u16, i8, u8]);
wide_truncate!(f64, f32);
hardware!(f64, f32);
hardware!(f32, f64);
quiet!(f64, 1 << 51);
quiet!(f32, 1 << 22);
truth!(0.0; f64, f32);
truth!(0; i64, u64, i32, u32, i16, u16, i8, u8);
from_bool!(f64, f32, i64, u64, i32, u32, i16, u16, i8, u8);
complex!(C128, f64, [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8]);
complex!(C64, f32, [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8]);

/// Same-type pairs never reach a table (`Kernel::of` moves them), but
/// `fill` names them.
macro_rules! same {
    ($($t:ty),*) => {
        $(impl Cast<$t> for $t {
            #[inline(always)]
            fn cast(self) -> $t {
                self
            }
        })*
    };
}
same!(Bool, C128, C64);

impl Cast<C64> for C128 {
    #[inline(always)]
    fn cast(self) -> C64 {
        C64(self.0.map(|x| x as f32))
    }
}

impl Cast<C128> for C64 {
    #[inline(always)]
    fn cast(self) -> C128 {
        C128(self.0.map(f64::from))
    }
}

/// `n` elements of `S` at `src` converted into `D` at `dst`, one `Cast`
/// each, over byte slices (no alignment needed, and no aliasing for the
/// compiler to fear).
///
/// # Safety
/// `src` readable for `n` elements of `S`, `dst` writable for `n` of `D`.
#[inline(always)]
unsafe fn map<S: Machine + Cast<D>, D: Machine>(src: *const u8, dst: *mut u8, n: usize) {
    let (sw, dw) = (size_of::<S>(), size_of::<D>());
    // SAFETY: the caller's spans.
    let (from, to) = unsafe {
        (
            std::slice::from_raw_parts(src, n * sw),
            std::slice::from_raw_parts_mut(dst, n * dw),
        )
    };
    for (i, o) in from.chunks_exact(sw).zip(to.chunks_exact_mut(dw)) {
        // SAFETY: each chunk holds one element; unaligned accesses.
        unsafe {
            let x = i.as_ptr().cast::<S>().read_unaligned();
            o.as_mut_ptr().cast::<D>().write_unaligned(x.cast());
        }
    }
}

/// Destination bytes a block of the non-temporal form: a multiple of every
/// element size and of 64, small enough for L1.
const BLOCK: usize = 2048;

#[repr(C, align(64))]
struct Block([u8; BLOCK]);

/// Elements `i .. i + k` of the non-temporal form: `map`ped into the L1
/// block `b`, then streamed out whole vectors at a time (block starts are
/// 64-byte aligned in `dst`: BLOCK is a multiple of 64), the rest of a
/// short last block copied.
///
/// # Safety
/// Elements `i .. i + k` of both arrays; `b` holds BLOCK bytes, `k` at most
/// BLOCK / (D's bytes); AVX2.
#[inline(always)]
unsafe fn block<S: Machine + Cast<D>, D: Machine>(
    src: *const u8,
    dst: *mut u8,
    b: *mut u8,
    i: usize,
    k: usize,
) {
    let (sw, dw) = (size_of::<S>(), size_of::<D>());
    let bytes = k * dw;
    // SAFETY: the caller's elements and block.
    unsafe {
        map::<S, D>(src.add(i * sw), b, k);
        let out = dst.add(i * dw);
        let whole = bytes / 32 * 32;
        for j in (0..whole).step_by(32) {
            let v = _mm256_load_si256(b.add(j).cast());
            put256::<true>(out.add(j), v);
        }
        std::ptr::copy_nonoverlapping(b.add(whole), out.add(whole), bytes - whole);
    }
}

/// The kernel: `map`, or when `NT` (`dst` 64-byte aligned) a block at a
/// time (`block`). The body of `native2` and `native512`, which compile it
/// for their level.
///
/// # Safety
/// As `Raw`, on a CPU with AVX2.
#[inline(always)]
unsafe fn native<S: Machine + Cast<D>, D: Machine, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    if !NT {
        // SAFETY: forwarded.
        return unsafe { map::<S, D>(src, dst, n) };
    }
    let mut buf = Block([0; BLOCK]);
    let (b, per) = (buf.0.as_mut_ptr(), BLOCK / size_of::<D>());
    // SAFETY: blocks of at most `per` elements within n; AVX2 is the
    // caller's promise.
    let run = |i: usize, k: usize| unsafe { block::<S, D>(src, dst, b, i, k) };
    // One copy of the block's code for the whole blocks and the last, out of
    // the compiler's sight (an indirect call a block of 2 KiB costs nothing
    // beside it; LLVM would inline a known closure at both calls).
    let run: &dyn Fn(usize, usize) = std::hint::black_box(&run);
    let fetch = Fetch::new::<NT>(src, 8 * size_of::<S>(), ahead);
    each(n, per, per, fetch, |i| run(i, per), run);
}

/// `native` compiled for the AVX2 level.
///
/// # Safety
/// As `native`.
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn native2<S: Machine + Cast<D>, D: Machine, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { native::<S, D, NT>(src, dst, n, ahead) }
}

/// `native` compiled for the AVX-512 level, where the compiler has the
/// saturating narrowings (VPMOVS*) and the 64-bit integer conversions.
///
/// # Safety
/// As `native`, on a CPU with AVX-512 F/BW/VL/DQ.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")]
unsafe fn native512<S: Machine + Cast<D>, D: Machine, const NT: bool>(
    src: *const u8,
    dst: *mut u8,
    n: usize,
    ahead: usize,
) {
    // SAFETY: forwarded.
    unsafe { native::<S, D, NT>(src, dst, n, ahead) }
}

/// The table entry for `S -> D` at the AVX-512 level (`WIDE`) or AVX2.
/// The widenings keep AVX2's form at AVX-512: they are bound by their
/// stores, and 256-bit ones sustain more.
pub fn entry<S: Machine + Cast<D>, D: Machine, const WIDE: bool>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    let bits = (8 * size_of::<S>(), 8 * size_of::<D>());
    let (plain, nt): (crate::kernels::Raw, crate::kernels::Raw) =
        if WIDE && size_of::<D>() <= size_of::<S>() {
            (native512::<S, D, false>, native512::<S, D, true>)
        } else {
            (native2::<S, D, false>, native2::<S, D, true>)
        };
    // SAFETY: the two forms of one kernel; only put in the tables of their
    // level (`dispatch.rs`).
    unsafe {
        call(
            src,
            dst,
            n,
            head,
            store,
            bits,
            <S as Cast<D>>::FP,
            plain,
            nt,
        )
    }
}

/// A 64-bit integer (`hi` 2^32 + `lo`, given as float64s, both exact:
/// float64 holds every 32-bit integer) as float32 bits rounded to odd, for
/// `I64Odd` at AVX2, which converts no 64-bit integer: under the MXCSR's
/// round toward zero the float64 sum truncates x to 53 bits, and float32
/// then to 24; the last bit is set where either dropped a bit: where the
/// sum less `hi` (exact: an integer under 2^33) is not `lo`, or float32
/// widened back is not the sum.
#[inline(always)]
fn odd32(hi: f64, lo: f64) -> u32 {
    let d = hi + lo;
    let f = d as f32;
    let exact = d - hi == lo && f64::from(f) == d;
    f.to_bits() | u32::from(!exact)
}

/// `odd32` of an int64.
#[inline(always)]
pub(super) fn odd32_i64(x: i64) -> u32 {
    odd32(
        f64::from((x >> 32) as i32) * 4294967296.0,
        f64::from(x as u32),
    )
}

/// `odd32` of a uint64.
#[inline(always)]
pub(super) fn odd32_u64(x: u64) -> u32 {
    odd32(
        f64::from((x >> 32) as u32) * 4294967296.0,
        f64::from(x as u32),
    )
}

/// The one-pass strided conversion `s -> d` where it beats the block path
/// (gather, kernel, scatter: a copy on each strided side, a kernel call a
/// block): element j read at byte `sa + j ss` of the source slice and
/// written at `da + j ds` of the destination's, a `Cast` each, as numpy's
/// strided loops go: into complex128, into float64 (but from uint64, bool
/// and complex128), the integers and bool into int64, and float64, int64
/// and complex128 into float32. Float -> integer keeps the blocks: the
/// saturating casts cost more than the SIMD kernels' (BENCHMARKS.md,
/// "Kernel choices"). None below AVX2 (the maps need it).
pub fn strided(isa: Isa, s: i32, d: i32) -> Option<Strided> {
    if !matches!(isa, Isa::Avx2 | Isa::Avx512) || !isa.supported() {
        return None;
    }
    macro_rules! one {
        ($s:ty, $d:ty) => {
            if s == <$s as Machine>::DT && d == <$d as Machine>::DT {
                return Some(strided_entry::<$s, $d>);
            }
        };
    }
    // The chosen pairs, and only those instantiated.
    cross!(one; [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, Bool, C64]; [C128]);
    cross!(one; [f32, i64, i32, u32, i16, u16, i8, u8, C64]; [f64]);
    cross!(one; [u64, i32, u32, i16, u16, i8, u8, Bool]; [i64]);
    cross!(one; [f64, i64, C128]; [f32]);
    None
}

/// `strided`'s `S -> D`: nothing written unless every element's bytes lie
/// within the slices.
fn strided_entry<S: Machine + Cast<D>, D: Machine>(
    src: &[u8],
    sa: usize,
    ss: i64,
    dst: &mut [u8],
    da: usize,
    ds: i64,
    n: usize,
) {
    let (sw, dw) = (size_of::<S>(), size_of::<D>());
    if super::reach(src.len(), sa, ss, sw, n).is_none()
        || super::reach(dst.len(), da, ds, dw, n).is_none()
    {
        return;
    }
    let k = strided_map::<S, D> as unsafe fn(*const u8, i64, *mut u8, i64, usize);
    // SAFETY: every element's bytes lie within the slices (`reach`;
    // offsets within a slice fit an isize); AVX2 is there (`strided` hands
    // this out only then). Through an opaque pointer, so that no float
    // operation moves across the MXCSR writes.
    super::under(super::mxcsr_of(<S as Cast<D>>::FP), || unsafe {
        std::hint::black_box(k)(src.as_ptr().add(sa), ss, dst.as_mut_ptr().add(da), ds, n)
    });
}

/// # Safety
/// AVX2; element j of `S` readable at `src + j ss` and of `D` writable at
/// `dst + j ds` for j < n.
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn strided_map<S: Machine + Cast<D>, D: Machine>(
    src: *const u8,
    ss: i64,
    dst: *mut u8,
    ds: i64,
    n: usize,
) {
    let (mut p, mut q) = (src, dst);
    for _ in 0..n {
        // SAFETY: the caller's elements; unaligned accesses. The pointers
        // step past the last element at most once, by wrapping arithmetic.
        unsafe {
            let x = p.cast::<S>().read_unaligned();
            q.cast::<D>().write_unaligned(x.cast());
        }
        p = p.wrapping_offset(ss as isize);
        q = q.wrapping_offset(ds as isize);
    }
}

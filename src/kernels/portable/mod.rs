//! The `portable` level: a kernel for every pair of two dtypes, in safe
//! Rust over machine integers and floats, with no instruction set named,
//! so that the compiler vectorizes it for the target it builds for (SSE2
//! on baseline x86-64, NEON on aarch64, RVV). It is what runs where no
//! hand-written level does, and `NX_DTYPE_ISA=portable` selects it
//! anywhere.
//!
//! A kernel converts `STEP` elements at a time as fixed-size arrays, one
//! pass over the array per stage, each without a branch per element:
//!
//! - `casts` (`elems.rs`): one conversion a element between two machine
//!   types, where the hardware's conversion is the rule (an integer
//!   clamped, a float truncated into an integer, an integer rounded once
//!   into a float, float32 and float64 with their NaNs fixed);
//! - `lanes` (`lanes.rs`): a decoder into float32 bits (exact, or rounded
//!   to odd for the wider sources) and an encoder from them that rounds in
//!   the integers (`floats.rs`), for the formats no machine type holds;
//! - `lookup` (`lookup.rs`): the 8- and 4-bit sources, whose results are
//!   tables made once from the scalar reference.
//!
//! Which family converts each pair is in `dispatch.rs`, as rules. The
//! float operations of a kernel run under the environment `Arch::under`
//! sets (round to nearest-even, subnormals kept, exceptions masked): the
//! caller's changes no result. Integer-only kernels skip it.

mod dispatch;
mod elems;
mod floats;
mod lanes;
mod lookup;
#[allow(unsafe_code)] // one conversion that cannot overflow, by construction
mod trunc;

pub use dispatch::{kernel, LEVEL};

use super::lanes::{each, Fetch, Fp};
use super::{Arch, Native, Store};

/// Elements a step: a multiple of 8 (a bit side fills whole bytes), large
/// enough that the compiler unrolls a step's stages into whole vectors.
pub(crate) const STEP: usize = 32;

/// A kernel: whole steps of `STEP` elements of `SB` bits from `src` into
/// elements of `DB` bits in `dst` (the slices hold the same number of
/// steps).
pub(crate) trait Step {
    const SB: usize;
    const DB: usize;
    /// Whether the step does float arithmetic (then it runs under
    /// `Arch::under`); integer-only steps and exact integer-to-float
    /// conversions need no environment.
    const FLOATS: bool;
    /// Steps a call of `step` converts in `run`'s loop: enough that the
    /// loop's own work is small beside the conversion's.
    const GROUP: usize = 8;
    fn step(src: &[u8], dst: &mut [u8]);
}

/// A kernel of family `F` (`elems::Casts`, `lanes::Lanes`,
/// `lookup::Lookup`) from `S` to `D`.
pub(crate) struct Pair<F, S, D>(std::marker::PhantomData<(F, S, D)>);

/// The largest step, in bytes (complex128).
const STEP_MAX: usize = STEP * 16;

/// `n` elements of `K` from `src` into `dst` (their first bytes): `GROUP`
/// steps at a time in place, then single steps, then the last partial
/// step as the last `STEP` elements again where there are that many on
/// whole bytes (some converted twice, to the same bytes), else through
/// stack buffers (the source's bytes past the elements zeroed; the
/// destination's last byte written whole). `ahead`: how far ahead to
/// prefetch the source (0: not).
#[inline(never)]
fn run<K: Step>(src: &[u8], dst: &mut [u8], n: usize, ahead: usize) {
    let fetch = Fetch::new::<true>(src.as_ptr(), K::SB, ahead);
    let dst = std::cell::RefCell::new(dst);
    // Elements i .. i + m, m a multiple of STEP, in place.
    let steps = |i: usize, m: usize| {
        let (s, d) = (i * K::SB / 8, i * K::DB / 8);
        let mut dst = dst.borrow_mut();
        let to = dst.get_mut(d..d + m * K::DB / 8);
        if let (Some(s), Some(d)) = (src.get(s..s + m * K::SB / 8), to) {
            K::step(s, d);
        }
    };
    let group = K::GROUP * STEP;
    let whole = |n: usize| (n * K::SB).is_multiple_of(8) && (n * K::DB).is_multiple_of(8);
    let part = |i: usize, left: usize| {
        if left == STEP {
            steps(i, STEP);
        } else if n >= STEP && whole(n - STEP) {
            steps(n - STEP, STEP);
        } else {
            let (sw, dw) = (STEP * K::SB / 8, STEP * K::DB / 8);
            let (sl, dl) = ((left * K::SB).div_ceil(8), (left * K::DB).div_ceil(8));
            let (mut sbuf, mut dbuf) = ([0u8; STEP_MAX], [0u8; STEP_MAX]);
            let s = i * K::SB / 8;
            if let (Some(s), Some(b)) = (src.get(s..s + sl), sbuf.get_mut(..sl)) {
                b.copy_from_slice(s);
            }
            if let (Some(s), Some(d)) = (sbuf.get(..sw), dbuf.get_mut(..dw)) {
                K::step(s, d);
            }
            let d = i * K::DB / 8;
            if let (Some(d), Some(b)) = (dst.borrow_mut().get_mut(d..d + dl), dbuf.get(..dl)) {
                d.copy_from_slice(b);
            }
        }
    };
    each(n, group, STEP, fetch, |i| steps(i, group), part);
}

/// `K` as a table's kernel (`SimdKernel`): nothing unless the slices hold
/// `n` elements; a head converts as the rest does, and non-temporal stores
/// are not this level's (a source is prefetched when `Store::Fetch` asks).
/// A step with float arithmetic runs under the environment `Arch::under`
/// sets, reached through a pointer so that none of its operations moves
/// across the environment's writes; within a strided call's blocks
/// (`Store::Held`) the caller's state is already read.
pub(crate) fn entry<K: Step>(src: &[u8], dst: &mut [u8], n: usize, _head: usize, store: Store) {
    if src.len() < (n * K::SB).div_ceil(8) || dst.len() < (n * K::DB).div_ceil(8) {
        return;
    }
    let ahead = match store {
        Store::Fetch(d) => d,
        _ => 0,
    };
    if !K::FLOATS {
        return run::<K>(src, dst, n, ahead);
    }
    let k = std::hint::black_box(run::<K> as fn(&[u8], &mut [u8], usize, usize));
    match store {
        Store::Held(state) => Native::enter(state, Fp::DEFAULT, || k(src, dst, n, ahead)),
        _ => Native::under(Fp::DEFAULT, || k(src, dst, n, ahead)),
    }
}

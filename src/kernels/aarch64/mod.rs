//! aarch64: the `neon` level (`neon.rs`, the lanes framework's sides in
//! 128-bit Advanced SIMD vectors), its rules (`dispatch.rs`), and what the
//! driver needs of aarch64 (`Aarch64`: FPCR and FPSR).
//!
//! Every kernel runs under an FPCR of its own (`call`): round to nearest
//! (toward zero where a marker asks), no flush to zero, no default NaN (so
//! that NaN payloads survive), IEEE half precision, no exception trapped.
//! The caller's FPCR and FPSR, the flags included, are back when the call
//! returns.
//!
//! Non-temporal stores are not used: every store form runs the ordinary
//! one (`Store::Stream` and `Store::Fetch` are taken as `Store::Plain`), as
//! no gain of STNP or of software prefetch could be measured without an
//! aarch64 machine.

pub mod dispatch;
mod neon;

use super::lanes::{self, Fp};
use super::{Arch, Entry, Isa, Raw, Store};
use crate::table::Dtype;
use std::arch::asm;

/// The caller's floating-point state: its control register (rounding mode,
/// flushing, default NaN, traps) and its status register (the cumulative
/// exception flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpEnv {
    fpcr: u64,
    fpsr: u64,
}

/// FPCR.RMode: round toward zero.
const TOWARD_ZERO: u64 = 3 << 22;

/// The FPCR a kernel needing `fp` runs under: every other field 0 (round to
/// nearest-even, FZ, FZ16, DN, AHP, AH off, no trap enabled). `Fp::FLUSH`
/// only permits flushing (which spares x86 a slow path): it stays off.
pub const fn fpcr_of(fp: Fp) -> u64 {
    if fp.has(Fp::TOWARD_ZERO) {
        TOWARD_ZERO
    } else {
        0
    }
}

#[inline(always)]
fn fpcr() -> u64 {
    let v: u64;
    // SAFETY: reads the floating-point control register (no memory).
    unsafe { asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags)) };
    v
}

#[inline(always)]
fn fpsr() -> u64 {
    let v: u64;
    // SAFETY: reads the floating-point status register (no memory).
    unsafe { asm!("mrs {}, fpsr", out(reg) v, options(nomem, nostack, preserves_flags)) };
    v
}

// The writes have no `nomem`: the compiler keeps memory accesses on their
// side of them (the kernels' float operations are reached through
// pointers, see `Arch::under`).
#[inline(always)]
fn set_fpcr(v: u64) {
    // SAFETY: writes the floating-point control register; the values are
    // `fpcr_of`'s or the caller's own.
    unsafe { asm!("msr fpcr, {}", in(reg) v, options(nostack, preserves_flags)) };
}

#[inline(always)]
fn set_fpsr(v: u64) {
    // SAFETY: writes the floating-point status register: the caller's own.
    unsafe { asm!("msr fpsr, {}", in(reg) v, options(nostack, preserves_flags)) };
}

/// Run `run(env)` with the caller's FPCR and FPSR read once, and restored
/// when it returns (each written only where it changed): the scope of
/// kernel calls made with `Store::Held(env)`, which neither read nor
/// restore them.
#[inline(always)]
fn hold(run: impl FnOnce(FpEnv)) {
    let caller = FpEnv {
        fpcr: fpcr(),
        fpsr: fpsr(),
    };
    run(caller);
    if fpcr() != caller.fpcr {
        set_fpcr(caller.fpcr);
    }
    if fpsr() != caller.fpsr {
        set_fpsr(caller.fpsr);
    }
}

/// `run` under FPCR `env` within a scope whose FPCR is `caller`'s, which
/// restores it: `env` set only where it differs.
#[inline(always)]
fn enter(caller: FpEnv, env: u64, run: impl FnOnce()) {
    if caller.fpcr != env {
        set_fpcr(env);
    }
    run();
}

/// `run` under FPCR `env`, the caller's state restored after.
#[inline(always)]
fn under(env: u64, run: impl FnOnce()) {
    hold(|caller| enter(caller, env, run));
}

/// Run the raw kernel `k` of `sb` -> `db` bits per element on the slices,
/// when they hold `n` elements of each side, under the FPCR for `fp`: the
/// first `head` elements by themselves (see `SimdKernel`), then the rest.
///
/// # Safety
/// `k` is a kernel of that shape whose instructions the CPU has.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn call(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
    bits: (usize, usize),
    fp: Fp,
    k: Raw,
) {
    let (sb, db) = bits;
    let whole = head <= n && (head * sb).is_multiple_of(8) && (head * db).is_multiple_of(8);
    let head = if whole { head } else { 0 };
    let (hs, hd) = (head * sb / 8, head * db / 8);
    if src.len() >= (n * sb).div_ceil(8) && dst.len() >= (n * db).div_ceil(8) {
        // SAFETY: the lengths were checked (the head's and the rest's bytes
        // lie within them, on whole bytes); the CPU is the caller's
        // promise. The kernel is reached through a pointer, so no float
        // operation of its moves across the FPCR writes.
        let run = || unsafe {
            if head > 0 {
                k(src.as_ptr(), dst.as_mut_ptr(), head, 0);
            }
            k(src.as_ptr().add(hs), dst.as_mut_ptr().add(hd), n - head, 0);
        };
        match store {
            Store::Held(caller) => enter(caller, fpcr_of(fp), run),
            _ => under(fpcr_of(fp), run),
        }
    }
}

/// A kernel that meets in lanes `L` (`kernels::lanes`).
fn k_lanes<L: lanes::Lanes, S: lanes::VSrc<L>, D: lanes::VDst<L>>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    head: usize,
    store: Store,
) {
    let bits = (<S as lanes::Side>::BITS, <D as lanes::Side>::BITS);
    // SAFETY: only handed out by the neon level's table, on CPUs with
    // Advanced SIMD (and BF16 for the rules that need it).
    unsafe {
        call(
            src,
            dst,
            n,
            head,
            store,
            bits,
            lanes::fp::<S, D>(),
            L::raw::<S, D, false>(),
        )
    }
}

/// Whether the CPU has FEAT_BF16 (BFCVTN).
fn has_bf16() -> bool {
    std::arch::is_aarch64_feature_detected!("bf16")
}

/// aarch64's levels with rules: the portable level's, then its own.
static LEVELS: [super::rules::Level; 2] = [super::portable::LEVEL, dispatch::LEVELS[0]];

/// aarch64 for the driver.
pub struct Aarch64;

impl Arch for Aarch64 {
    type FpState = FpEnv;

    const LEVELS: &'static [Isa] = &[Isa::Scalar, Isa::Portable, Isa::Neon];

    fn cpu() -> Isa {
        if std::arch::is_aarch64_feature_detected!("neon") {
            Isa::Neon
        } else {
            Isa::Portable
        }
    }

    fn levels() -> &'static [super::rules::Level] {
        &LEVELS
    }

    fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<Entry> {
        match isa {
            // A pair no neon rule lists runs the portable level's kernel
            // (`Level::otherwise`).
            Isa::Neon => dispatch::kernel(s, d).or_else(|| super::portable::kernel(s, d)),
            Isa::Portable => super::portable::kernel(s, d),
            _ => None,
        }
    }

    #[inline(always)]
    fn hold(run: impl FnOnce(FpEnv)) {
        hold(run)
    }

    #[inline(always)]
    fn under(fp: Fp, run: impl FnOnce()) {
        under(fpcr_of(fp), run)
    }

    #[inline(always)]
    fn keep_flags(run: impl FnOnce()) {
        let caller = fpsr();
        run();
        if fpsr() != caller {
            set_fpsr(caller);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::NX_DTYPE_COUNT;
    use crate::kernels::{plan, run, scalar, Kernel, Side};

    const FIZ: u64 = 1 << 0;
    const AH: u64 = 1 << 1;
    const NEP: u64 = 1 << 2;
    const FZ16: u64 = 1 << 19;
    const UP: u64 = 1 << 22;
    const DOWN: u64 = 2 << 22;
    const FZ: u64 = 1 << 24;
    const DN: u64 = 1 << 25;
    const AHP: u64 = 1 << 26;
    /// FPSR's cumulative flags (IDC, IXC, UFC, OFC, DZC, IOC) and QC.
    const FLAGS: u64 = 0x9F | 1 << 27;

    /// Sources for a side of `bits`: every code up to 16 bits; else every
    /// float32 top half with low halves around bfloat16's rounding bit, or
    /// every float64 top word with low words around float32's last bit and
    /// the sticky bits below (subnormals, NaN payloads, ties among them).
    fn sources(bits: u32) -> Vec<u8> {
        match bits {
            4 | 8 => (0..=u8::MAX).collect(),
            16 => (0..=u16::MAX).flat_map(u16::to_le_bytes).collect(),
            32 => (0..=u16::MAX)
                .flat_map(|c| [0u32, 1, 0x8000, 0xFFFF].map(|l| u32::from(c) << 16 | l))
                .flat_map(u32::to_le_bytes)
                .collect(),
            _ => (0..=u16::MAX)
                .flat_map(|c| [0u64, 1, 1 << 28, 3 << 28].map(|l| u64::from(c) << 48 | l))
                .flat_map(u64::to_le_bytes)
                .collect(),
        }
    }

    /// A caller's FPCR changes no result of any neon kernel, and FPCR and
    /// FPSR come back exactly as the caller left them, flags included:
    /// rounding toward zero, up and down; flush to zero (FZ, FZ16, FIZ);
    /// default NaN; alternative half precision; FEAT_AFP's AH and NEP (the
    /// fields a CPU lacks read as 0 and are skipped); FPSR with no flag and
    /// every flag raised. Each kernel on its own (`Store::Plain`) and
    /// through the driver's strided blocks (`Store::Held`: the state read
    /// once for the call).
    #[test]
    fn immune_to_fpcr() {
        if !Isa::Neon.supported() {
            return;
        }
        let fpcr0 = fpcr();
        let envs = [
            (TOWARD_ZERO | FZ | FZ16 | DN | AHP, 0),
            (UP | FZ, FLAGS),
            (DOWN | DN, 0),
            (AH | FIZ | NEP | FZ, FLAGS),
            (TOWARD_ZERO | AHP, FLAGS),
        ];
        let mut checked = 0;
        for s in (0..NX_DTYPE_COUNT as i32).filter_map(Dtype::from_code) {
            for d in (0..NX_DTYPE_COUNT as i32).filter_map(Dtype::from_code) {
                if dispatch::kernel(s, d).is_none() {
                    continue;
                }
                let src = sources(s.bits());
                let n = src.len() * 8 / s.bits() as usize;
                let mut want = vec![0u8; (n * d.bits() as usize).div_ceil(8)];
                scalar::run(s, d, &src, &mut want, n);
                let k = Kernel::of(Isa::Neon, s, d);
                for (cr, sr) in envs {
                    set_fpcr(fpcr0 | cr);
                    set_fpsr(sr);
                    let env = (fpcr(), fpsr());
                    if env.0 & cr != cr {
                        set_fpcr(fpcr0);
                        continue;
                    }
                    let mut got = vec![0u8; want.len()];
                    k.run(&src, &mut got, n);
                    let plain = (fpcr(), fpsr());
                    // Strided: every other destination element.
                    let w = (d.bits() as usize).div_ceil(8);
                    let mut wide = vec![0u8; 2 * n * w];
                    let side = |dt, stride| Side {
                        dt,
                        offset: 0,
                        stride,
                    };
                    let st = match plan(side(s, 1), side(d, 2), n as i64) {
                        Ok(Some((sp, dp))) => run(
                            Isa::Neon,
                            &sp,
                            &dp,
                            &src,
                            &mut wide[dp.lo..dp.lo + dp.len],
                            n,
                        ),
                        _ => -1,
                    };
                    let strided = (fpcr(), fpsr());
                    set_fpcr(fpcr0);
                    set_fpsr(0);
                    let (sn, dn) = (s.name(), d.name());
                    assert_eq!(plain, env, "{sn} -> {dn}: FPCR, FPSR after under {cr:#x}");
                    assert_eq!(
                        strided, env,
                        "{sn} -> {dn} strided: FPCR, FPSR after {cr:#x}"
                    );
                    assert!(got == want, "{sn} -> {dn} under FPCR {cr:#x}");
                    assert_eq!(st, crate::codes::NX_OK);
                    if d.bits() % 8 == 0 {
                        let got: Vec<u8> =
                            wide.chunks(2 * w).flat_map(|c| c[..w].to_vec()).collect();
                        assert!(got == want, "{sn} -> {dn} strided under FPCR {cr:#x}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
    }
}

//! Architectures without kernels of their own: the scalar reference and the
//! portable level.

use super::{Arch, Entry, Isa};
use crate::table::Dtype;

pub struct Generic;

impl Arch for Generic {
    type FpState = ();

    const LEVELS: &'static [Isa] = &[Isa::Scalar, Isa::Portable];

    fn cpu() -> Isa {
        Isa::Portable
    }

    fn levels() -> &'static [super::rules::Level] {
        &[super::portable::LEVEL]
    }

    fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<Entry> {
        match isa {
            Isa::Portable => super::portable::kernel(s, d),
            _ => None,
        }
    }

    fn hold(run: impl FnOnce(())) {
        run(())
    }

    // No control of the floating-point environment here: portable code
    // on such targets must not depend on it.
    fn under(_fp: super::lanes::Fp, run: impl FnOnce()) {
        run()
    }
}

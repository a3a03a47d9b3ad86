//! Architectures without kernels of their own: the scalar reference only.

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
        &[]
    }

    fn kernel(_isa: Isa, _s: Dtype, _d: Dtype) -> Option<Entry> {
        None
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

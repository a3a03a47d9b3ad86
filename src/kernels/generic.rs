//! Architectures without kernels of their own: the scalar reference only.

use super::{Arch, Entry, Isa};
use crate::table::Dtype;

pub struct Generic;

impl Arch for Generic {
    type FpState = ();

    fn cpu() -> Isa {
        Isa::Scalar
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
}

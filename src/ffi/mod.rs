//! The C ABI (ABI.md). Every exported function follows one rulebook:
//! check dtype codes, then counts, then pointers, then the kind, then
//! overlap; compute the result; write the outputs only on success; and run
//! inside `guard`, so that a bug (a Rust panic) becomes NX_ERR_INTERNAL
//! instead of unwinding into C. No numeric logic lives here.

mod convert;
mod facts;
mod print;

pub use convert::*;
pub use facts::*;
pub use print::*;

use crate::table::Dtype;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use crate::codes::*;

/// Run `f`, turning a panic into `on_panic`. Every exported function that
/// does more than read a constant goes through here.
pub(crate) fn guard<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// Collapse a `Result` whose error is a status into a C return value.
pub(crate) fn status<T: Into<i64>>(r: Result<T, Status>) -> i64 {
    match r {
        Ok(v) => v.into(),
        Err(s) => i64::from(s),
    }
}

/// A dtype code checked against the table.
pub(crate) fn dtype(code: i32) -> Result<Dtype, Status> {
    Dtype::from_code(code).ok_or(NX_ERR_DTYPE)
}

/// A pointer that must not be NULL.
pub(crate) fn non_null<T>(p: *const T) -> Result<*const T, Status> {
    if p.is_null() {
        Err(NX_ERR_NULL)
    } else {
        Ok(p)
    }
}

/// A mutable pointer that must not be NULL.
pub(crate) fn non_null_mut<T>(p: *mut T) -> Result<*mut T, Status> {
    if p.is_null() {
        Err(NX_ERR_NULL)
    } else {
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_nx_err_internal() {
        // Silence the default hook's message for this deliberate panic.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let status = guard(NX_ERR_INTERNAL, || -> i32 { panic!("a bug") });
        std::panic::set_hook(hook);
        assert_eq!(status, NX_ERR_INTERNAL);
        assert_eq!(guard(NX_ERR_INTERNAL, || NX_OK), NX_OK);
    }
}

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

/// The ABI version, also the soname's major number.
pub const NX_DTYPE_ABI_VERSION: u32 = 1;
/// The library version, as in Cargo.toml (a test checks they agree).
pub const NX_DTYPE_VERSION_MAJOR: u32 = 1;
pub const NX_DTYPE_VERSION_MINOR: u32 = 0;
pub const NX_DTYPE_VERSION_PATCH: u32 = 0;

/// Dtype codes: the constructor order of the OCaml type, the index in
/// `nx_dtype_table`.
pub const NX_FLOAT64: i32 = 0;
pub const NX_FLOAT32: i32 = 1;
pub const NX_FLOAT16: i32 = 2;
pub const NX_BFLOAT16: i32 = 3;
pub const NX_FLOAT8_E4M3FN: i32 = 4;
pub const NX_FLOAT8_E5M2: i32 = 5;
pub const NX_FLOAT4_E2M1FN: i32 = 6;
pub const NX_INT64: i32 = 7;
pub const NX_UINT64: i32 = 8;
pub const NX_INT32: i32 = 9;
pub const NX_UINT32: i32 = 10;
pub const NX_INT16: i32 = 11;
pub const NX_UINT16: i32 = 12;
pub const NX_INT8: i32 = 13;
pub const NX_UINT8: i32 = 14;
pub const NX_INT4: i32 = 15;
pub const NX_UINT4: i32 = 16;
pub const NX_COMPLEX128: i32 = 17;
pub const NX_COMPLEX64: i32 = 18;
pub const NX_BOOL: i32 = 19;
pub const NX_BIT: i32 = 20;
/// The number of dtypes; valid codes are 0 .. NX_DTYPE_COUNT - 1.
pub const NX_DTYPE_COUNT: usize = 21;

/// Kinds of number, as returned by nx_dtype_kind.
pub const NX_KIND_FLOAT: i32 = 0;
pub const NX_KIND_COMPLEX: i32 = 1;
pub const NX_KIND_SIGNED: i32 = 2;
pub const NX_KIND_UNSIGNED: i32 = 3;
pub const NX_KIND_BOOLEAN: i32 = 4;

/// Status: success.
pub const NX_OK: i32 = 0;
/// Status: a dtype code outside 0 .. NX_DTYPE_COUNT - 1.
pub const NX_ERR_DTYPE: i32 = -1;
/// Status: a required pointer is NULL.
pub const NX_ERR_NULL: i32 = -2;
/// Status: a count is negative, or a size does not fit in int64_t.
pub const NX_ERR_RANGE: i32 = -3;
/// Status: the operation is not defined for this dtype's kind.
pub const NX_ERR_KIND: i32 = -4;
/// Status: a finite double that is not a value of the dtype's format.
pub const NX_ERR_NOT_VALUE: i32 = -5;
/// Status: the source and destination byte ranges of a conversion overlap.
pub const NX_ERR_OVERLAP: i32 = -6;
/// Status: a bug caught at the boundary; nothing was written.
pub const NX_ERR_INTERNAL: i32 = -7;

/// A buffer of NX_FORMAT_MAX bytes holds any text nx_format writes.
pub const NX_FORMAT_MAX: usize = 64;

/// An internal failure, carried as its status.
pub(crate) type Status = i32;

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

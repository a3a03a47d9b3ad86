//! libnx_dtype: the element formats of an n-dimensional array library.
//!
//! `codes` holds the numbers the C ABI shares (dtype codes, statuses);
//! `table` holds the 21 dtypes; `format` describes float formats as data;
//! `store` has the one rounding routine; `value` converts one element between
//! any two dtypes; `facts` derives `exact` and min/max; `ffi` is the C ABI.
#![deny(unsafe_op_in_unsafe_fn)]
// Every unsafe block says why it is sound (checked by `make lint`, which
// runs clippy with -D warnings; deny keeps it an error without that flag).
#![deny(clippy::undocumented_unsafe_blocks)]
// Library code never panics on any input: no unwrap, expect or indexing.
#![cfg_attr(
    not(test),
    warn(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

// `unsafe` lives only in `ffi` (the C boundary), `kernels::x86` and
// `print::sse2` (SIMD intrinsics), `kernels::lanes` (the kernels' loop
// over raw pointers) and `kernels::portable::trunc` (a float-to-integer
// conversion that cannot overflow): the compiler refuses it anywhere else (`make
// check-unsafe` greps for the same, in case a new module forgets these
// attributes).
#[forbid(unsafe_code)]
pub mod codes;
#[forbid(unsafe_code)]
pub mod facts;
#[allow(unsafe_code)]
pub mod ffi;
#[forbid(unsafe_code)]
pub mod format;
/// cbindgen:ignore
#[deny(unsafe_code)] // kernels::x86 and kernels::lanes allow it again
pub mod kernels;
#[deny(unsafe_code)] // print::sse2 allows it again
pub mod print;
#[forbid(unsafe_code)]
pub mod store;
#[forbid(unsafe_code)]
pub mod table;
#[forbid(unsafe_code)]
pub mod value;

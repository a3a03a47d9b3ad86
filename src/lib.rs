//! libnx_dtype: the element formats of an n-dimensional array library.
//!
//! `table` holds the 21 dtypes; `format` describes float formats as data;
//! `store` has the one rounding routine; `value` converts one element between
//! any two dtypes; `facts` derives `exact` and min/max; `ffi` is the C ABI.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
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

pub mod facts;
pub mod ffi;
pub mod format;
pub mod kernels;
pub mod print;
pub mod store;
pub mod table;
pub mod value;

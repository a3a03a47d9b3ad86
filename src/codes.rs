//! The numbers the C ABI and the core share: versions, dtype codes, kinds
//! and statuses. Defined once here; `ffi` re-exports them under the same names
//! (the header is generated from these definitions).

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

/// A status: NX_OK or one of the NX_ERR_* values.
pub type Status = i32;

//! Facts and scalar stores (docs/ABI.md, "Facts" and "Scalars").

use super::*;
use crate::facts::{exact, extreme};
use crate::store::is_value;
use crate::table::{Class, Kind, Row, TABLE};
use crate::value::{encode, write_elem, Raw, Value, LOAD_F64, STORE_F64};
use std::ffi::{c_char, c_void, CStr};

/// The facts of a float format (or of a complex dtype's components).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NxFloatFormat {
    /// Width of the exponent field.
    pub exponent_bits: i32,
    /// Width of the fraction field, without the implicit bit.
    pub fraction_bits: i32,
    /// Whether the format has infinities.
    pub infinities: bool,
    /// Whether the format has NaNs.
    pub nans: bool,
    /// The gap between 1 and the next value, 2^-fraction_bits.
    pub epsilon: f64,
    /// The least positive normal value.
    pub min_normal: f64,
    /// The largest finite value.
    pub max_finite: f64,
}

/// One row of the dtype table; `nx_dtype_table[code]` describes dtype `code`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NxDtypeRow {
    /// The dtype's name, as "float32": NUL-terminated, static.
    pub name: *const c_char,
    /// Width of one element in bits (1 .. 128).
    pub bits: i32,
    /// One of NX_KIND_*.
    pub kind: i32,
    /// Whether float_format is meaningful (float dtypes only).
    pub is_float: bool,
    /// The float format; all zero when !is_float.
    pub float_format: NxFloatFormat,
}

// SAFETY: the only pointer in a row is to a static, immutable C string, so
// rows may be shared between threads.
unsafe impl Sync for NxDtypeRow {}

const NO_FORMAT: NxFloatFormat = NxFloatFormat {
    exponent_bits: 0,
    fraction_bits: 0,
    infinities: false,
    nans: false,
    epsilon: 0.0,
    min_normal: 0.0,
    max_finite: 0.0,
};

const fn c_format(f: crate::format::Format) -> NxFloatFormat {
    NxFloatFormat {
        exponent_bits: f.exponent_bits as i32,
        fraction_bits: f.fraction_bits as i32,
        infinities: f.has_infinity(),
        nans: f.has_nan(),
        epsilon: f.epsilon(),
        min_normal: f.min_normal(),
        max_finite: f.max_finite(),
    }
}

const fn c_row(r: &Row) -> NxDtypeRow {
    let (kind, float_format) = match r.class {
        Class::Float(f) => (Kind::Float, Some(f)),
        Class::Complex(_) => (Kind::Complex, None),
        Class::Signed => (Kind::Signed, None),
        Class::Unsigned => (Kind::Unsigned, None),
        Class::Bool | Class::Bit => (Kind::Boolean, None),
    };
    NxDtypeRow {
        name: r.name.as_ptr(),
        bits: r.bits as i32,
        kind: kind as i32,
        is_float: float_format.is_some(),
        float_format: match float_format {
            Some(f) => c_format(f),
            None => NO_FORMAT,
        },
    }
}

/// The dtype table, indexed by code: the same rows the functions read.
#[no_mangle]
// Evaluated at compile time: an index out of range is a build error.
#[allow(clippy::indexing_slicing)]
pub static nx_dtype_table: [NxDtypeRow; NX_DTYPE_COUNT] = {
    let mut rows = [c_row(&TABLE[0]); NX_DTYPE_COUNT];
    let mut i = 1;
    while i < NX_DTYPE_COUNT {
        rows[i] = c_row(&TABLE[i]);
        i += 1;
    }
    rows
};

/// Returns NX_DTYPE_ABI_VERSION, the ABI this library implements.
#[no_mangle]
pub extern "C" fn nx_abi_version() -> u32 {
    NX_DTYPE_ABI_VERSION
}

/// Returns the library version, "MAJOR.MINOR.PATCH" (static, never NULL).
#[no_mangle]
pub extern "C" fn nx_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(s) => s,
            Err(_) => c"",
        };
    VERSION.as_ptr()
}

/// Returns a static English sentence for any status, unknown ones included.
#[no_mangle]
pub extern "C" fn nx_status_message(status: i32) -> *const c_char {
    let text: &'static CStr = match status {
        NX_OK => c"success",
        NX_ERR_DTYPE => c"a dtype code outside 0 .. NX_DTYPE_COUNT - 1",
        NX_ERR_NULL => c"a required pointer is NULL",
        NX_ERR_RANGE => {
            c"a count, offset or stride is out of range, or a size does not fit in int64_t"
        }
        NX_ERR_KIND => c"the operation is not defined for this dtype's kind",
        NX_ERR_NOT_VALUE => c"a finite double that is not a value of the dtype's format",
        NX_ERR_OVERLAP => c"the source and destination byte ranges of a conversion overlap",
        NX_ERR_INTERNAL => c"an internal error (a bug) was caught; nothing was written",
        s if s > 0 => c"success (a non-negative result)",
        _ => c"an unknown status",
    };
    text.as_ptr()
}

/// Width of one element of `dt` in bits, or NX_ERR_DTYPE.
#[no_mangle]
pub extern "C" fn nx_dtype_bits(dt: i32) -> i32 {
    dtype(dt).map_or_else(|e| e, |d| d.bits() as i32)
}

/// The kind of `dt` (NX_KIND_*), or NX_ERR_DTYPE.
#[no_mangle]
pub extern "C" fn nx_dtype_kind(dt: i32) -> i32 {
    dtype(dt).map_or_else(|e| e, |d| d.kind() as i32)
}

/// The name of `dt`, as "float32" (static, NUL-terminated); NULL for a bad code.
#[no_mangle]
pub extern "C" fn nx_dtype_name(dt: i32) -> *const c_char {
    dtype(dt).map_or(std::ptr::null(), |d| d.row().name.as_ptr())
}

/// The code of the dtype named by the `len` bytes at `name` (which need not
/// end in NUL), or NX_ERR_DTYPE if none is; NX_ERR_NULL if `name` is NULL and
/// `len` > 0.
///
/// # Safety
/// `name` points to `len` readable bytes, or `len` is 0.
#[no_mangle]
pub unsafe extern "C" fn nx_dtype_of_name(name: *const c_char, len: usize) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        // No name is longer than 16 bytes: longer input is not read at all.
        if len == 0 || len > 16 {
            return NX_ERR_DTYPE;
        }
        let Ok(name) = non_null(name) else {
            return NX_ERR_NULL;
        };
        // SAFETY: the caller guarantees `len` readable bytes at `name`.
        let bytes = unsafe { std::slice::from_raw_parts(name.cast::<u8>(), len) };
        Dtype::of_name(bytes).map_or(NX_ERR_DTYPE, |d| d.code())
    })
}

/// Writes to `*out` the number of bytes `n` elements of `dt` fill,
/// ceil(n * bits / 8). NX_ERR_RANGE if n < 0 or the count does not fit in
/// int64_t.
///
/// # Safety
/// `out` is NULL or points to a writable int64_t.
#[no_mangle]
pub unsafe extern "C" fn nx_dtype_bytes(dt: i32, n: i64, out: *mut i64) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let run = || -> Result<i64, Status> {
            let d = dtype(dt)?;
            let bytes = d.bytes(n).ok_or(NX_ERR_RANGE)?;
            non_null_mut(out)?;
            Ok(bytes)
        };
        match run() {
            Ok(bytes) => {
                // SAFETY: `out` was checked non-NULL; the caller guarantees it is writable.
                unsafe { out.write_unaligned(bytes) };
                NX_OK
            }
            Err(e) => e,
        }
    })
}

/// 1 if every value of `from` is a value of `to` (`exact` in
/// ocaml/nx_array.mli), else 0; NX_ERR_DTYPE for a bad code.
#[no_mangle]
pub extern "C" fn nx_dtype_exact(from: i32, to: i32) -> i32 {
    guard(NX_ERR_INTERNAL, || match (dtype(from), dtype(to)) {
        (Ok(a), Ok(b)) => i32::from(exact(a, b)),
        _ => NX_ERR_DTYPE,
    })
}

/// Writes to `*out` the facts of float dtype `dt`'s format; NX_ERR_KIND for
/// the other kinds.
///
/// # Safety
/// `out` is NULL or points to a writable nx_float_format.
#[no_mangle]
pub unsafe extern "C" fn nx_dtype_float_format(dt: i32, out: *mut NxFloatFormat) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let run = || -> Result<NxFloatFormat, Status> {
            let d = dtype(dt)?;
            non_null_mut(out)?;
            d.float_format().map(c_format).ok_or(NX_ERR_KIND)
        };
        match run() {
            Ok(f) => {
                // SAFETY: `out` was checked non-NULL; the caller guarantees it is writable.
                unsafe { out.write_unaligned(f) };
                NX_OK
            }
            Err(e) => e,
        }
    })
}

/// Write element bits to `elem` after the checks in `check` pass.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
unsafe fn write_out(
    dt: i32,
    elem: *mut c_void,
    compute: impl FnOnce(Dtype) -> Result<Raw, Status>,
) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let run = || -> Result<(Dtype, Raw), Status> {
            let d = dtype(dt)?;
            non_null_mut(elem)?;
            Ok((d, compute(d)?))
        };
        match run() {
            Ok((d, raw)) => {
                // SAFETY: checked non-NULL; the caller guarantees elem_bytes writable bytes.
                let bytes =
                    unsafe { std::slice::from_raw_parts_mut(elem.cast::<u8>(), d.elem_bytes()) };
                write_elem(d, raw, bytes);
                NX_OK
            }
            Err(e) => e,
        }
    })
}

/// Writes the least value of `dt` to `elem` (nx_dtype_bytes(dt, 1) bytes):
/// -inf, -448 (float8_e4m3fn), -6 (float4_e2m1fn), the integer minimum,
/// false. NX_ERR_KIND for complex dtypes.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_dtype_min_value(dt: i32, elem: *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { write_out(dt, elem, |d| extreme(d, false).ok_or(NX_ERR_KIND)) }
}

/// Writes the greatest value of `dt` to `elem`: inf, 448, 6, the integer
/// maximum (all ones for unsigned dtypes), true. NX_ERR_KIND for complex.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_dtype_max_value(dt: i32, elem: *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { write_out(dt, elem, |d| extreme(d, true).ok_or(NX_ERR_KIND)) }
}

/// Stores the double `x` into one element of `dt` at `elem` (`of_float` in
/// ocaml/nx_array.mli): floats round once to nearest, ties to even;
/// integers truncate and saturate (NaN gives 0); complex gets (x, +0);
/// booleans x != 0.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_store_f64(dt: i32, x: f64, elem: *mut c_void) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let d = match dtype(dt) {
            Ok(d) => d,
            Err(e) => return e,
        };
        if elem.is_null() {
            return NX_ERR_NULL;
        }
        // SAFETY: checked non-NULL; the caller guarantees elem_bytes writable bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(elem.cast::<u8>(), d.elem_bytes()) };
        // The per-dtype specialisation of encode(d, Value::Float(x)).
        if let Some(store) = STORE_F64.get(d.code() as usize) {
            store(x.to_bits(), out);
        }
        NX_OK
    })
}

/// Stores the exact integer `x` into one element of `dt`, rounding once
/// (never through a double) and saturating integers.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_store_i64(dt: i32, x: i64, elem: *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { write_out(dt, elem, |d| Ok(encode(d, Value::Int(i128::from(x))))) }
}

/// Stores the exact unsigned integer `x` into one element of `dt`.
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_store_u64(dt: i32, x: u64, elem: *mut c_void) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { write_out(dt, elem, |d| Ok(encode(d, Value::Int(i128::from(x))))) }
}

/// Writes to `*out` element `elem` of `dt` converted to float64 (integers
/// round once; complex gives its real part; booleans 0 or 1).
///
/// # Safety
/// `elem` is NULL or points to `nx_dtype_bytes(dt, 1)` readable bytes; `out`
/// is NULL or points to a writable double.
#[no_mangle]
pub unsafe extern "C" fn nx_load_f64(dt: i32, elem: *const c_void, out: *mut f64) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let run = || -> Result<f64, Status> {
            let d = dtype(dt)?;
            let elem = non_null(elem)?;
            non_null_mut(out)?;
            // SAFETY: checked non-NULL; the caller guarantees elem_bytes readable bytes.
            let bytes = unsafe { std::slice::from_raw_parts(elem.cast::<u8>(), d.elem_bytes()) };
            // The per-dtype specialisation of to_f64(d, read_elem(d, bytes)).
            let load = LOAD_F64.get(d.code() as usize).ok_or(NX_ERR_INTERNAL)?;
            Ok(f64::from_bits(load(bytes)))
        };
        match run() {
            Ok(x) => {
                // SAFETY: `out` was checked non-NULL; the caller guarantees it is writable.
                unsafe { out.write_unaligned(x) };
                NX_OK
            }
            Err(e) => e,
        }
    })
}

/// For float and complex dtypes: 1 if `x` is not finite or is a value of the
/// format (of the components, for complex), else 0. NX_ERR_KIND otherwise.
#[no_mangle]
pub extern "C" fn nx_is_value_f64(dt: i32, x: f64) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let d = match dtype(dt) {
            Ok(d) => d,
            Err(e) => return e,
        };
        match d.component_format() {
            Some(f) => i32::from(is_value(f, x.to_bits())),
            None => NX_ERR_KIND,
        }
    })
}

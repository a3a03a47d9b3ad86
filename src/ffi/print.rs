//! Printing at the C boundary (docs/ABI.md, "Printing"): pp_value
//! (docs/SEMANTICS.md) with snprintf's contract.

use super::*;
use crate::print::{format_elem, format_f64, PrintError, FORMAT_MAX};
use crate::value::read_elem;
use std::ffi::{c_char, c_void};

/// `buf` must be non-NULL when something will be written to it (cap > 0).
fn check_buf(buf: *mut c_char, cap: usize) -> Result<(), Status> {
    if cap > 0 {
        non_null_mut(buf)?;
    }
    Ok(())
}

/// Copy `text` to `buf` as snprintf does: at most `cap - 1` bytes and a NUL
/// when `cap > 0`; returns the whole text's length.
///
/// # Safety
/// `buf` points to `cap` writable bytes, or `cap` is 0.
unsafe fn emit(text: &[u8; FORMAT_MAX], len: usize, buf: *mut c_char, cap: usize) -> i64 {
    if cap > 0 {
        let n = len.min(cap - 1).min(FORMAT_MAX);
        // SAFETY: the caller guarantees `cap` writable bytes at `buf` (checked
        // non-NULL), and n < cap; `text` holds at least n bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
            buf.add(n).write(0);
        }
    }
    len as i64
}

/// Formats one element of dtype `dt` at `elem` (nx_dtype_bytes(dt, 1) bytes;
/// a sub-byte element in the low bits of `elem[0]`) as pp_value does:
/// floats as the shortest decimal that reads back as the same value of the
/// format ("0.1", "65500", "1e+16", "2e-05"), "nan", "inf", "-inf", "-0";
/// integers in decimal (unsigned ones unsigned); complex as "0.5-2i";
/// booleans as "true" / "false".
///
/// Like snprintf: returns the length of the whole text (without its NUL), or
/// a negative status; when `cap` > 0 writes at most `cap - 1` bytes of it and
/// a NUL to `buf`. No text is longer than NX_FORMAT_MAX - 1 bytes. Errors:
/// NX_ERR_DTYPE for a bad code; NX_ERR_NULL if `elem` is NULL, or `buf` is
/// NULL with `cap` > 0. Nothing is written on failure.
///
/// # Safety
/// `elem` is NULL or points to nx_dtype_bytes(dt, 1) readable bytes; `buf` is
/// NULL or points to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_format(
    dt: i32,
    elem: *const c_void,
    buf: *mut c_char,
    cap: usize,
) -> i64 {
    guard(i64::from(NX_ERR_INTERNAL), || {
        let run = || -> Result<([u8; FORMAT_MAX], usize), Status> {
            let d = dtype(dt)?;
            let elem = non_null(elem)?;
            check_buf(buf, cap)?;
            // SAFETY: checked non-NULL; the caller guarantees elem_bytes readable bytes.
            let bytes = unsafe { std::slice::from_raw_parts(elem.cast::<u8>(), d.elem_bytes()) };
            let mut text = [0u8; FORMAT_MAX];
            let len = format_elem(d, read_elem(d, bytes), &mut text);
            Ok((text, len))
        };
        match run() {
            // SAFETY: `buf` was checked; the caller guarantees `cap` writable bytes.
            Ok((text, len)) => unsafe { emit(&text, len, buf, cap) },
            Err(e) => i64::from(e),
        }
    })
}

/// Formats the double `x` as a value of float dtype `dt`, as nx_format
/// formats an element holding it: `x` = 0.1 prints "0.1" as a float64 and
/// NX_ERR_NOT_VALUE as a float32 (0.1 is not a float32). NaN and infinities
/// print "nan", "inf", "-inf" whatever the format.
///
/// Returns like snprintf (see nx_format). Errors, in this order: NX_ERR_DTYPE
/// for a bad code; NX_ERR_NULL if `buf` is NULL with `cap` > 0; NX_ERR_KIND
/// unless `dt` is a float dtype (complex ones included: pass an element to
/// nx_format); NX_ERR_NOT_VALUE if `x` is finite and not a value of the
/// format. Nothing is written on failure.
///
/// # Safety
/// `buf` is NULL or points to `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn nx_format_f64(dt: i32, x: f64, buf: *mut c_char, cap: usize) -> i64 {
    guard(i64::from(NX_ERR_INTERNAL), || {
        let run = || -> Result<([u8; FORMAT_MAX], usize), Status> {
            let d = dtype(dt)?;
            check_buf(buf, cap)?;
            let mut text = [0u8; FORMAT_MAX];
            let len = format_f64(d, x, &mut text).map_err(|e| match e {
                PrintError::Kind => NX_ERR_KIND,
                PrintError::NotValue => NX_ERR_NOT_VALUE,
            })?;
            Ok((text, len))
        };
        match run() {
            // SAFETY: `buf` was checked; the caller guarantees `cap` writable bytes.
            Ok((text, len)) => unsafe { emit(&text, len, buf, cap) },
            Err(e) => i64::from(e),
        }
    })
}

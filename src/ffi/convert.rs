//! Bulk conversion at the C boundary (docs/ABI.md, "Bulk conversion").
//! Thin: check the arguments in the ABI's order, turn the two spans into
//! slices, and let `kernels` do the work.

use super::*;
use crate::kernels::{self, Side, Span};
use std::ffi::{c_char, c_void};

/// The byte range a span covers at `base`, as addresses; NX_ERR_RANGE if it
/// wraps the address space.
fn addresses(base: usize, sp: &Span) -> Result<(usize, usize), Status> {
    let lo = base.checked_add(sp.lo).ok_or(NX_ERR_RANGE)?;
    let hi = lo.checked_add(sp.len).ok_or(NX_ERR_RANGE)?;
    Ok((lo, hi))
}

/// Converts `n` elements of dtype `src_dt` at `src` into dtype `dst_dt` at
/// `dst`, element `i` to element `i` (SEMANTICS.md: each element rounded
/// once from its exact value; the same dtype copies bits exactly). Both
/// arrays are contiguous; sub-byte dtypes start at bit 0 of the pointer.
///
/// Returns NX_OK; NX_ERR_DTYPE for a bad code; NX_ERR_RANGE if `n` < 0 or
/// the size overflows; NX_ERR_NULL if a pointer is NULL and `n` > 0;
/// NX_ERR_OVERLAP if the two byte ranges overlap. Nothing is written on
/// failure. `n` = 0 succeeds whatever the pointers.
///
/// # Safety
/// When `n` > 0, `src` points to `nx_dtype_bytes(src_dt, n)` readable bytes
/// and `dst` to `nx_dtype_bytes(dst_dt, n)` writable bytes; no alignment is
/// required.
#[no_mangle]
pub unsafe extern "C" fn nx_convert(
    src_dt: i32,
    src: *const c_void,
    dst_dt: i32,
    dst: *mut c_void,
    n: i64,
) -> i32 {
    // SAFETY: the caller's contract is nx_convert_strided's with offsets 0
    // and strides 1.
    unsafe { nx_convert_strided(src_dt, src, 0, 1, dst_dt, dst, 0, 1, n) }
}

/// Converts `n` elements: source element `i` is element
/// `src_offset + i * src_stride` of the array at `src`, destination element
/// `i` is element `dst_offset + i * dst_stride` of the array at `dst`
/// (offsets and strides count elements; sub-byte element `k` sits at bit
/// `k * bits` from bit 0 of the pointer). Each element converts as in
/// nx_convert. Bits of the destination outside the written elements, the
/// other bits of a shared byte included, are left as they were.
///
/// Returns NX_OK, or the first failing check in this order: NX_ERR_DTYPE
/// (a bad code); NX_ERR_RANGE (`n` < 0, an offset < 0, `dst_stride` < 1, a
/// source index < 0, or index arithmetic overflowing int64_t); NX_ERR_NULL (a
/// NULL pointer with `n` > 0); NX_ERR_OVERLAP (the spanned byte ranges of
/// source and destination overlap). Nothing is written on failure. `n` = 0
/// succeeds whatever the pointers.
///
/// # Safety
/// When `n` > 0, every addressed source element is readable and every
/// addressed destination element writable, with the bytes between them
/// (the spanned ranges) belonging to the same objects; no alignment is
/// required.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn nx_convert_strided(
    src_dt: i32,
    src: *const c_void,
    src_offset: i64,
    src_stride: i64,
    dst_dt: i32,
    dst: *mut c_void,
    dst_offset: i64,
    dst_stride: i64,
    n: i64,
) -> i32 {
    guard(NX_ERR_INTERNAL, || {
        let run = || -> Result<(), Status> {
            let (s, d) = (dtype(src_dt)?, dtype(dst_dt)?);
            let side = |dt, offset, stride| Side { dt, offset, stride };
            let Some((sp, dp)) = kernels::plan(
                side(s, src_offset, src_stride),
                side(d, dst_offset, dst_stride),
                n,
            )?
            else {
                return Ok(());
            };
            let src = non_null(src)?.cast::<u8>();
            let dst = non_null_mut(dst)?.cast::<u8>();
            // Every pair of dtypes converts: no kind check. Overlap of the spanned
            // byte ranges is refused (a conversion reads and writes in blocks).
            let (s_lo, s_hi) = addresses(src as usize, &sp)?;
            let (d_lo, d_hi) = addresses(dst as usize, &dp)?;
            if s_lo < d_hi && d_lo < s_hi {
                return Err(NX_ERR_OVERLAP);
            }
            // SAFETY: the caller guarantees the spanned elements are readable at
            // `src` and writable at `dst` (the spans are exactly their byte ranges,
            // whose addresses do not wrap); the ranges do not overlap, so a shared
            // and a mutable slice over them may coexist.
            let (from, to) = unsafe {
                (
                    std::slice::from_raw_parts(src.add(sp.lo), sp.len),
                    std::slice::from_raw_parts_mut(dst.add(dp.lo), dp.len),
                )
            };
            kernels::run(kernels::isa(), &sp, &dp, from, to, n as usize);
            Ok(())
        };
        status(run().map(|()| NX_OK)) as i32
    })
}

/// The name of the kernel level in use, chosen at first use from the CPU and
/// capped by the environment variable NX_DTYPE_ISA: "scalar", "portable",
/// "avx2", "avx512" or "neon" (static, NUL-terminated, never NULL).
#[no_mangle]
pub extern "C" fn nx_kernel_isa() -> *const c_char {
    guard(c"scalar".as_ptr(), || kernels::isa().name().as_ptr())
}

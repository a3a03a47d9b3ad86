//! Safe wrappers over the exported `nx_*` functions: the command's only door
//! into the library, so that it uses the public C ABI and nothing else.
//! Every wrapper sizes its buffers with `nx_dtype_bytes` before the call.

use nx_dtype::ffi as nx;
use std::ffi::{c_char, c_void, CStr};

pub use nx::NxFloatFormat as FloatFormat;

/// A checked dtype code.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Dt(i32);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Float,
    Complex,
    Signed,
    Unsigned,
    Boolean,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Complex => "complex",
            Kind::Signed => "signed",
            Kind::Unsigned => "unsigned",
            Kind::Boolean => "boolean",
        }
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the library returns static NUL-terminated strings (ABI.md).
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

pub fn version() -> String {
    text(nx::nx_version())
}

pub fn status_message(status: i64) -> String {
    text(nx::nx_status_message(
        i32::try_from(status).unwrap_or(nx::NX_ERR_INTERNAL),
    ))
}

pub fn kernel_isa() -> String {
    text(nx::nx_kernel_isa())
}

fn ok(status: i32) -> Result<(), String> {
    if status == nx::NX_OK {
        Ok(())
    } else {
        Err(status_message(i64::from(status)))
    }
}

impl Dt {
    pub fn all() -> impl Iterator<Item = Dt> {
        (0..nx::NX_DTYPE_COUNT as i32).map(Dt)
    }

    pub fn of_name(name: &str) -> Option<Dt> {
        // SAFETY: the pointer and length describe `name`'s bytes.
        let code = unsafe { nx::nx_dtype_of_name(name.as_ptr().cast(), name.len()) };
        (code >= 0).then_some(Dt(code))
    }

    pub fn code(self) -> i32 {
        self.0
    }

    pub fn name(self) -> String {
        text(nx::nx_dtype_name(self.0))
    }

    pub fn bits(self) -> u32 {
        u32::try_from(nx::nx_dtype_bits(self.0)).unwrap_or(0)
    }

    pub fn kind(self) -> Kind {
        match nx::nx_dtype_kind(self.0) {
            nx::NX_KIND_FLOAT => Kind::Float,
            nx::NX_KIND_COMPLEX => Kind::Complex,
            nx::NX_KIND_SIGNED => Kind::Signed,
            nx::NX_KIND_UNSIGNED => Kind::Unsigned,
            _ => Kind::Boolean,
        }
    }

    /// Bytes `n` elements fill; None if that does not fit in int64_t.
    pub fn bytes(self, n: u64) -> Option<usize> {
        let n = i64::try_from(n).ok()?;
        let mut out = 0i64;
        // SAFETY: `out` is a writable int64_t.
        let status = unsafe { nx::nx_dtype_bytes(self.0, n, &mut out) };
        (status == nx::NX_OK).then(|| usize::try_from(out).ok())?
    }

    /// Bytes of one element (a sub-byte element sits in one byte).
    pub fn elem_len(self) -> usize {
        self.bytes(1).unwrap_or(16)
    }

    pub fn float_format(self) -> Option<FloatFormat> {
        let mut f = FloatFormat {
            exponent_bits: 0,
            fraction_bits: 0,
            infinities: false,
            nans: false,
            epsilon: 0.0,
            min_normal: 0.0,
            max_finite: 0.0,
        };
        // SAFETY: `f` is a writable nx_float_format.
        let status = unsafe { nx::nx_dtype_float_format(self.0, &mut f) };
        (status == nx::NX_OK).then_some(f)
    }

    /// The float dtype of a complex dtype's components (ABI.md: two
    /// components of half the width, real first).
    pub fn component(self) -> Option<Dt> {
        (self.kind() == Kind::Complex)
            .then(|| Dt::of_name(&format!("float{}", self.bits() / 2)))
            .flatten()
    }

    fn write_elem(self, f: impl FnOnce(*mut c_void) -> i32) -> Result<Vec<u8>, String> {
        let mut elem = vec![0u8; self.elem_len()];
        ok(f(elem.as_mut_ptr().cast()))?;
        Ok(elem)
    }

    pub fn min_value(self) -> Option<Vec<u8>> {
        // SAFETY: `p` points to one element's bytes.
        self.write_elem(|p| unsafe { nx::nx_dtype_min_value(self.0, p) })
            .ok()
    }

    pub fn max_value(self) -> Option<Vec<u8>> {
        // SAFETY: as in min_value.
        self.write_elem(|p| unsafe { nx::nx_dtype_max_value(self.0, p) })
            .ok()
    }

    pub fn store_f64(self, x: f64) -> Result<Vec<u8>, String> {
        // SAFETY: as in min_value.
        self.write_elem(|p| unsafe { nx::nx_store_f64(self.0, x, p) })
    }

    pub fn store_i64(self, x: i64) -> Result<Vec<u8>, String> {
        // SAFETY: as in min_value.
        self.write_elem(|p| unsafe { nx::nx_store_i64(self.0, x, p) })
    }

    pub fn store_u64(self, x: u64) -> Result<Vec<u8>, String> {
        // SAFETY: as in min_value.
        self.write_elem(|p| unsafe { nx::nx_store_u64(self.0, x, p) })
    }

    /// One element as a float64; None if `elem` is too short.
    pub fn load_f64(self, elem: &[u8]) -> Option<f64> {
        if elem.len() < self.elem_len() {
            return None;
        }
        let mut out = 0.0;
        // SAFETY: `elem` holds one element; `out` is a writable double.
        let status = unsafe { nx::nx_load_f64(self.0, elem.as_ptr().cast(), &mut out) };
        (status == nx::NX_OK).then_some(out)
    }

    /// One element printed as pp_value.
    pub fn format(self, elem: &[u8]) -> String {
        if elem.len() < self.elem_len() {
            return String::from("?");
        }
        let mut buf = [0u8; nx::NX_FORMAT_MAX];
        // SAFETY: `elem` holds one element; `buf` has NX_FORMAT_MAX bytes.
        let n = unsafe {
            nx::nx_format(
                self.0,
                elem.as_ptr().cast(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        printed(&buf, n)
    }

    /// A double printed as a value of float dtype `self`.
    pub fn format_f64(self, x: f64) -> String {
        let mut buf = [0u8; nx::NX_FORMAT_MAX];
        // SAFETY: `buf` has NX_FORMAT_MAX bytes.
        let n = unsafe { nx::nx_format_f64(self.0, x, buf.as_mut_ptr().cast(), buf.len()) };
        printed(&buf, n)
    }
}

fn printed(buf: &[u8], n: i64) -> String {
    match usize::try_from(n).ok().and_then(|n| buf.get(..n)) {
        Some(t) => String::from_utf8_lossy(t).into_owned(),
        None => status_message(n),
    }
}

/// Converts `n` elements of `from` in `src` to `to` in `dst`.
pub fn convert(from: Dt, src: &[u8], to: Dt, dst: &mut [u8], n: usize) -> Result<(), String> {
    let n64 = u64::try_from(n).map_err(|e| e.to_string())?;
    let fits = |dt: Dt, len: usize| dt.bytes(n64).is_some_and(|b| b <= len);
    if !fits(from, src.len()) || !fits(to, dst.len()) {
        return Err(String::from("conversion buffer too small"));
    }
    let n = i64::try_from(n).map_err(|e| e.to_string())?;
    // SAFETY: both buffers hold at least nx_dtype_bytes(dt, n) bytes (checked
    // above) and are distinct borrows, so they do not overlap.
    ok(unsafe {
        nx::nx_convert(
            from.0,
            src.as_ptr().cast(),
            to.0,
            dst.as_mut_ptr().cast(),
            n,
        )
    })
}

//! The .npy header (numpy's format.py, versions 1.0 to 3.0): read the
//! dtype, order and shape; write one for the dtypes numpy has.

use crate::abi::Dt;
use std::io::Read;

const MAGIC: &[u8] = b"\x93NUMPY";

/// What a .npy header says about its array.
#[derive(Debug)]
pub struct Header {
    /// The dtype, when the descr names one of ours; None for `<Vk`, bytes
    /// without a type (how ml_dtypes arrays are saved).
    pub dt: Option<Dt>,
    /// Bytes per element of a `<Vk` descr.
    pub void_size: Option<usize>,
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
    /// Bytes before the data.
    pub len: usize,
}

/// numpy's descr for the dtypes numpy has (little-endian), or None.
pub fn descr(dt: Dt) -> Option<&'static str> {
    Some(match dt.name().as_str() {
        "float64" => "<f8",
        "float32" => "<f4",
        "float16" => "<f2",
        "int64" => "<i8",
        "uint64" => "<u8",
        "int32" => "<i4",
        "uint32" => "<u4",
        "int16" => "<i2",
        "uint16" => "<u2",
        "int8" => "|i1",
        "uint8" => "|u1",
        "complex128" => "<c16",
        "complex64" => "<c8",
        "bool" => "|b1",
        _ => return None,
    })
}

fn dt_of_descr(d: &str) -> Option<Dt> {
    // One-byte types may carry any byte-order mark.
    let canon = match d.as_bytes() {
        [b'<' | b'|' | b'=', rest @ ..] if rest.ends_with(b"1") => format!("|{}", d.get(1..)?),
        [b'=', ..] => format!("<{}", d.get(1..)?),
        _ => d.to_string(),
    };
    Dt::all().find(|&dt| descr(dt) == Some(canon.as_str()))
}

/// Reads and checks the header at the start of `r`.
pub fn read_header(r: &mut impl Read) -> Result<Header, String> {
    let mut pre = [0u8; 8];
    r.read_exact(&mut pre)
        .map_err(|_| String::from("truncated .npy header"))?;
    let (magic, version) = pre.split_at(6);
    if magic != MAGIC {
        return Err(String::from("not a .npy file (bad magic)"));
    }
    let size_len = match version {
        [1, 0] => 2,
        [2 | 3, 0] => 4,
        [a, b] => return Err(format!("unsupported .npy version {a}.{b}")),
        _ => return Err(String::from("truncated .npy header")),
    };
    let mut size = [0u8; 4];
    let size_bytes = size.get_mut(..size_len).ok_or("truncated .npy header")?;
    r.read_exact(size_bytes)
        .map_err(|_| String::from("truncated .npy header"))?;
    let hlen = u32::from_le_bytes(size) as usize;
    let mut text = vec![0u8; hlen];
    r.read_exact(&mut text)
        .map_err(|_| String::from("truncated .npy header"))?;
    let text = String::from_utf8(text).map_err(|_| String::from("bad .npy header (not UTF-8)"))?;
    let mut p = Parser {
        s: text.trim_end(),
        i: 0,
    };
    let (descr, fortran_order, shape) = p
        .dict()
        .ok_or_else(|| format!("unsupported .npy header: {}", text.trim_end()))?;
    let dt = dt_of_descr(&descr);
    let void_size = descr
        .strip_prefix(['<', '|', '='])
        .and_then(|d| d.strip_prefix('V'))
        .and_then(|k| k.parse().ok());
    if dt.is_none() && void_size.is_none() {
        return Err(format!("unsupported .npy dtype '{descr}'"));
    }
    Ok(Header {
        dt,
        void_size,
        descr,
        fortran_order,
        shape,
        len: 6 + 2 + size_len + hlen,
    })
}

/// The header of a .npy file (version 1.0) holding `shape` of `descr`,
/// padded with spaces to a multiple of 64 bytes, as numpy writes it.
pub fn header(descr: &str, fortran_order: bool, shape: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let order = if fortran_order { "True" } else { "False" };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// A parser for the one dict literal a .npy header holds.
struct Parser<'a> {
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        self.s.get(self.i..).unwrap_or("")
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.i += r.len() - r.trim_start().len();
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        let hit = self.rest().starts_with(t);
        if hit {
            self.i += t.len();
        }
        hit
    }

    fn string(&mut self) -> Option<String> {
        self.ws();
        let q = self
            .rest()
            .chars()
            .next()
            .filter(|c| *c == '\'' || *c == '"')?;
        let body = self.rest().get(1..)?;
        let end = body.find(q)?;
        let s = body.get(..end)?.to_string();
        self.i += end + 2;
        Some(s)
    }

    fn int(&mut self) -> Option<u64> {
        self.ws();
        let r = self.rest();
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        let v = r.get(..n)?.parse().ok()?;
        self.i += n;
        Some(v)
    }

    fn dict(&mut self) -> Option<(String, bool, Vec<u64>)> {
        let (mut descr, mut order, mut shape) = (None, None, None);
        if !self.eat("{") {
            return None;
        }
        while !self.eat("}") {
            let key = self.string()?;
            if !self.eat(":") {
                return None;
            }
            match key.as_str() {
                // A list descr is a structured dtype: unsupported (None).
                "descr" => descr = Some(self.string()?),
                "fortran_order" => {
                    order = Some(if self.eat("True") {
                        true
                    } else if self.eat("False") {
                        false
                    } else {
                        return None;
                    })
                }
                "shape" => {
                    let mut dims = Vec::new();
                    if !self.eat("(") {
                        return None;
                    }
                    while !self.eat(")") {
                        dims.push(self.int()?);
                        if !self.eat(",") && !self.rest().trim_start().starts_with(')') {
                            return None;
                        }
                    }
                    shape = Some(dims);
                }
                _ => return None,
            }
            if !self.eat(",") && !self.rest().trim_start().starts_with('}') {
                return None;
            }
        }
        Some((descr?, order?, shape?))
    }
}

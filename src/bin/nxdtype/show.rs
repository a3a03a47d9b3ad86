//! `nxdtype table`, `values` and `store`: the facts, values and stores of
//! the dtypes, printed with the library's own printer (nx_format).

use crate::abi::{Dt, Kind};
use crate::exact::Dec;
use crate::{dtype, out, usage, wants_help, R};
use std::io::{self, BufWriter, Write};

const TABLE_HELP: &str = "\
usage: nxdtype table

Every dtype, one per line, with its facts (numpy's finfo and iinfo in one
table): code, name, kind, bits; for floats (and the components of complex
dtypes) exponent and fraction bits, whether the format has inf and NaN,
epsilon, the least normal and least subnormal values; the least and
greatest finite values. Numbers are float64 shortest round-trip texts, so
they read back exactly; '-' marks a fact that does not apply.
";

const VALUES_HELP: &str = "\
usage: nxdtype values FMT [--from A] [--to B]

Every value of FMT (a dtype of at most 16 bits), one per line, in order of
bit pattern: the bits in hex, the value as printed, its class (zero,
subnormal, normal, inf, nan for floats; zero, nonzero otherwise).
--from and --to bound the list (inclusive): a bit pattern when written in
hex (0x3c00), else a value (1.5; NaN never lies within value bounds).
";

const STORE_HELP: &str = "\
usage: nxdtype store FMT X...

For each X, what storing it into FMT holds: the bits in hex, the value as
printed, its exact decimal expansion and the rounding error (stored - X,
exactly, and to 3 digits). X is a decimal integer (stored exactly, as
nx_store_i64/u64 do), a decimal (read as the nearest float64, then stored
as nx_store_f64 does: the library's of_float), inf, -inf or nan; for
complex dtypes, also re+imi or imi (1.5-2i).
";

fn hex(dt: Dt, elem: &[u8]) -> String {
    // Little-endian bytes as one number, as many hex digits as the bits need.
    let digits = dt.bits().div_ceil(4) as usize;
    let mut v = 0u128;
    for (i, b) in elem.iter().enumerate().take(16) {
        v |= u128::from(*b) << (8 * i);
    }
    if dt.bits() < 128 {
        v &= (1u128 << dt.bits()) - 1;
    }
    format!("0x{v:0digits$x}")
}

/// Prints rows of columns, left-aligned, two spaces apart.
fn columns(w: &mut impl Write, rows: &[Vec<String>]) -> R<()> {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            match widths.get_mut(i) {
                Some(wd) => *wd = (*wd).max(cell.len()),
                None => widths.push(cell.len()),
            }
        }
    }
    for row in rows {
        let mut line = String::new();
        for (cell, wd) in row.iter().zip(&widths) {
            line.push_str(&format!("{cell:wd$}  "));
        }
        out(w, format_args!("{}\n", line.trim_end()))?;
    }
    Ok(())
}

pub fn table(args: &[String]) -> R<()> {
    if wants_help(args, TABLE_HELP) {
        return Ok(());
    }
    if let Some(a) = args.first() {
        return usage(format!("table takes no argument, not '{a}'"));
    }
    let f64_dt = dtype("float64")?;
    let num = |x: f64| f64_dt.format_f64(x);
    let dash = || String::from("-");
    let mut rows = vec![[
        "code",
        "name",
        "kind",
        "bits",
        "exp",
        "frac",
        "inf",
        "nan",
        "epsilon",
        "min_normal",
        "min_subnormal",
        "min",
        "max",
    ]
    .map(String::from)
    .to_vec()];
    for dt in Dt::all() {
        let mut row = vec![
            dt.code().to_string(),
            dt.name(),
            dt.kind().name().to_string(),
            dt.bits().to_string(),
        ];
        let float = dt.component().unwrap_or(dt);
        match float.float_format() {
            Some(f) => {
                // Pattern 1 is the least subnormal of every float format.
                let tiny = float.load_f64(&1u64.to_le_bytes()).unwrap_or(f64::NAN);
                let yes_no = |b: bool| String::from(if b { "yes" } else { "no" });
                row.extend([
                    f.exponent_bits.to_string(),
                    f.fraction_bits.to_string(),
                    yes_no(f.infinities),
                    yes_no(f.nans),
                    num(f.epsilon),
                    num(f.min_normal),
                    num(tiny),
                    num(-f.max_finite),
                    num(f.max_finite),
                ]);
            }
            None => {
                row.extend((0..7).map(|_| dash()));
                let show = |e: Option<Vec<u8>>| e.map_or_else(dash, |e| dt.format(&e));
                row.extend([show(dt.min_value()), show(dt.max_value())]);
            }
        }
        rows.push(row);
    }
    columns(&mut BufWriter::new(io::stdout().lock()), &rows)
}

/// zero, subnormal, normal, inf, nan for floats; zero, nonzero otherwise.
fn class(dt: Dt, elem: &[u8], min_normal: Option<f64>) -> &'static str {
    let v = dt.load_f64(elem).unwrap_or(f64::NAN);
    match min_normal {
        _ if v == 0.0 => "zero",
        None => "nonzero",
        Some(_) if v.is_nan() => "nan",
        Some(_) if v.is_infinite() => "inf",
        Some(m) if v.abs() < m => "subnormal",
        Some(_) => "normal",
    }
}

/// A bound of `values`: a bit pattern (hex) or a value.
enum Bound {
    Bits(u64),
    Value(f64),
}

fn bound(s: &str) -> R<Bound> {
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
    match hex {
        Some(h) => u64::from_str_radix(h, 16)
            .map(Bound::Bits)
            .or_else(|_| usage(format!("bad bit pattern '{s}'"))),
        None => s
            .parse()
            .map(Bound::Value)
            .or_else(|_| usage(format!("bad bound '{s}' (a value, or bits in hex)"))),
    }
}

/// Options given as `--name value`, in order.
pub type Opts<'a> = Vec<(String, &'a str)>;

/// Splits `--name V` options off the positional arguments.
pub fn options<'a>(args: &'a [String], names: &[&str]) -> R<(Opts<'a>, Vec<&'a str>)> {
    let (mut opts, mut pos) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(name) = names.iter().find(|n| **n == a.as_str()) {
            match it.next() {
                Some(v) => opts.push((name.to_string(), v.as_str())),
                None => return usage(format!("{a} needs a value")),
            }
        } else if a.starts_with("--") {
            return usage(format!("unknown option '{a}'"));
        } else {
            pos.push(a.as_str());
        }
    }
    Ok((opts, pos))
}

pub fn values(args: &[String]) -> R<()> {
    if wants_help(args, VALUES_HELP) {
        return Ok(());
    }
    let (opts, pos) = options(args, &["--from", "--to"])?;
    let dt = match pos.as_slice() {
        [fmt] => dtype(fmt)?,
        _ => return usage("values takes one dtype (nxdtype values --help)"),
    };
    if dt.bits() > 16 || dt.kind() == Kind::Complex {
        return usage(format!(
            "{} has {} bits: values lists formats of at most 16",
            dt.name(),
            dt.bits()
        ));
    }
    let mut lo = Bound::Bits(0);
    let mut hi = Bound::Bits((1u64 << dt.bits()) - 1);
    for (name, v) in opts {
        if name == "--from" {
            lo = bound(v)?;
        } else {
            hi = bound(v)?;
        }
    }
    let min_normal = dt.float_format().map(|f| f.min_normal);
    let mut w = BufWriter::new(io::stdout().lock());
    out(&mut w, format_args!("bits\tvalue\tclass\n"))?;
    for p in 0..1u64 << dt.bits() {
        let elem = p.to_le_bytes();
        let elem = elem.get(..dt.elem_len()).unwrap_or(&elem);
        let v = dt.load_f64(elem).unwrap_or(f64::NAN);
        let inside = |b: &Bound, above: bool| match *b {
            Bound::Bits(x) => (p >= x) == above || p == x,
            Bound::Value(x) => (v >= x) == above && !v.is_nan() || v == x,
        };
        if inside(&lo, true) && inside(&hi, false) {
            let text = dt.format(elem);
            let c = class(dt, elem, min_normal);
            out(&mut w, format_args!("{}\t{text}\t{c}\n", hex(dt, elem)))?;
        }
    }
    w.flush()
        .or_else(|e| crate::run_err(format!("cannot write to stdout: {e}")))
}

/// One number typed by the user, stored into `dt`.
fn store_real(dt: Dt, x: &str) -> R<(Vec<u8>, Option<Dec>)> {
    // "-0" is the float -0, not the integer 0.
    let stored = if let Ok(i) = x.parse::<i64>().map_err(drop).and_then(|i| match i {
        0 if x.starts_with('-') => Err(()),
        i => Ok(i),
    }) {
        dt.store_i64(i).map(|e| (e, Some(Dec::from_i128(i.into()))))
    } else if let Ok(u) = x.parse::<u64>() {
        dt.store_u64(u).map(|e| (e, Some(Dec::from_i128(u.into()))))
    } else {
        match x.parse::<f64>() {
            Ok(f) => dt.store_f64(f).map(|e| (e, Dec::parse(x))),
            Err(_) => return usage(format!("'{x}' is not a number")),
        }
    };
    stored.or_else(|e| crate::run_err(format!("storing {x} into {}: {e}", dt.name())))
}

/// The exact value an element holds (None for inf and NaN).
fn exact(dt: Dt, elem: &[u8]) -> Option<Dec> {
    let word = |n: usize| {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(elem.iter().take(n)) {
            *d = *s;
        }
        b
    };
    // 64-bit integers do not fit a double: read their bytes (ABI.md layout).
    match (dt.kind(), dt.bits()) {
        (Kind::Signed, 64) => Some(Dec::from_i128(i64::from_le_bytes(word(8)).into())),
        (Kind::Unsigned, 64) => Some(Dec::from_i128(u64::from_le_bytes(word(8)).into())),
        _ => dt.load_f64(elem).and_then(Dec::from_f64),
    }
}

/// Splits a complex literal "a+bi" / "bi" / "a" into its parts.
fn complex_parts(x: &str) -> (&str, Option<&str>) {
    let Some(body) = x.strip_suffix(['i', 'j']) else {
        return (x, None);
    };
    let bytes = body.as_bytes();
    let split = (1..bytes.len()).rev().find(|&i| {
        matches!(bytes.get(i), Some(b'+' | b'-')) && !matches!(bytes.get(i - 1), Some(b'e' | b'E'))
    });
    match split {
        Some(i) => (body.get(..i).unwrap_or(""), body.get(i..)),
        None => ("0", Some(body)),
    }
}

pub fn store(args: &[String]) -> R<()> {
    if wants_help(args, STORE_HELP) {
        return Ok(());
    }
    let (_, pos) = options(args, &[])?;
    let (dt, xs) = match pos.split_first() {
        Some((fmt, xs)) if !xs.is_empty() => (dtype(fmt)?, xs),
        _ => return usage("store takes a dtype and numbers (nxdtype store --help)"),
    };
    let mut w = BufWriter::new(io::stdout().lock());
    for x in xs {
        // A complex element is two float elements, real first (ABI.md).
        let (elem, parts) = match dt.component() {
            Some(c) => {
                let (re, im) = complex_parts(x);
                let (re_e, re_x) = store_real(c, re)?;
                let (im_e, im_x) = store_real(c, im.unwrap_or("0"))?;
                let parts = vec![(c, re_e.clone(), re_x), (c, im_e.clone(), im_x)];
                ([re_e, im_e].concat(), parts)
            }
            None => {
                let (e, xd) = store_real(dt, x)?;
                (e.clone(), vec![(dt, e, xd)])
            }
        };
        out(&mut w, format_args!("{} {x}\n", dt.name()))?;
        let bits: Vec<String> = parts.iter().map(|(c, e, _)| hex(*c, e)).collect();
        out(&mut w, format_args!("  bits   {}\n", bits.join(" ")))?;
        out(&mut w, format_args!("  value  {}\n", dt.format(&elem)))?;
        let (mut exacts, mut errors) = (Vec::new(), Vec::new());
        for (c, e, typed) in &parts {
            let held = exact(*c, e);
            exacts.push(held.as_ref().map_or_else(|| c.format(e), Dec::plain));
            errors.push(match (held, typed) {
                (Some(h), Some(t)) => {
                    let d = h.sub(t);
                    if d.is_zero() {
                        String::from("0")
                    } else {
                        format!("{} ({})", d.plain(), d.approx())
                    }
                }
                _ => String::from("-"),
            });
        }
        out(&mut w, format_args!("  exact  {}\n", exacts.join(" ")))?;
        out(&mut w, format_args!("  error  {}\n", errors.join(" ")))?;
    }
    w.flush()
        .or_else(|e| crate::run_err(format!("cannot write to stdout: {e}")))
}

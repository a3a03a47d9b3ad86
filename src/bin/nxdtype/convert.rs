//! `nxdtype convert`: a raw little-endian or .npy file to another dtype, in
//! blocks (never the whole file in memory), into a temporary file beside
//! OUT that is renamed onto OUT only when everything succeeded.

use crate::abi::{self, Dt};
use crate::npy;
use crate::show::options;
use crate::{dtype, run_err, usage, wants_help, Fail, R};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const HELP: &str = "\
usage: nxdtype convert [--from A] --to B [--isa LEVEL] IN OUT

Converts every element of IN, of dtype A, to dtype B in OUT, each rounded
once as the library does (nx_convert).

A file named *.npy is a numpy .npy file: its header gives the dtype (so
--from may be left out; it must agree when given) and the shape. numpy
saves ml_dtypes arrays (bfloat16, float8_*) as raw bytes ('<V2'); name the
dtype with --from then. Any other file is raw little-endian elements of A
(--from needed); int4, uint4, float4_e2m1fn and bit are packed, low bits
first.

OUT named *.npy gets a .npy header with the same shape when numpy has the
dtype B; otherwise OUT holds raw elements and a note says so.

--isa LEVEL  caps the kernel level (scalar, or the library's own levels
             such as avx2, avx512), as NX_DTYPE_ISA does.

Prints one summary line. On any error nothing is left at OUT.
";

/// Elements per block: a multiple of 8, so that packed blocks end on a byte.
const BLOCK: u64 = 1 << 18;
/// Files at least this large get a progress bar (on a terminal).
const PROGRESS_MIN: u64 = 64 << 20;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Ctrl-C or a kill during a conversion stops it between blocks, so that the
/// temporary file is removed rather than left behind.
fn catch_signals() {
    let handler = on_signal as extern "C" fn(libc::c_int);
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

/// A temporary file beside OUT, removed unless `commit` renames it onto OUT.
struct Temp {
    path: PathBuf,
    file: Option<File>,
}

impl Temp {
    fn create(out: &Path) -> R<Temp> {
        let dir = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = out
            .file_name()
            .map_or_else(|| String::from("out"), |n| n.to_string_lossy().into_owned());
        let path = dir.join(format!(".{name}.nxdtype-{}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => Ok(Temp {
                path,
                file: Some(f),
            }),
            Err(e) => run_err(format!("cannot write {}: {}", out.display(), plain(&e))),
        }
    }

    fn commit(mut self, out: &Path) -> R<()> {
        if let Some(f) = self.file.take() {
            f.sync_all()
                .or_else(|e| run_err(format!("cannot write {}: {}", out.display(), plain(&e))))?;
        }
        fs::rename(&self.path, out)
            .or_else(|e| run_err(format!("cannot write {}: {}", out.display(), plain(&e))))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// An io::Error without Rust's "(os error 13)" suffix.
fn plain(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s.get(..i).unwrap_or(&s).to_string(),
        None => s,
    }
}

fn is_npy(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

/// What IN holds: dtype, element count, shape, where the data starts.
struct Input {
    dt: Dt,
    n: u64,
    shape: Vec<u64>,
    fortran_order: bool,
    offset: usize,
}

fn input(path: &Path, file: &mut File, from: Option<Dt>) -> R<Input> {
    let name = path.display();
    let size = file
        .metadata()
        .map_err(|e| Fail::Run(format!("cannot read {name}: {}", plain(&e))))?
        .len();
    if !is_npy(path) {
        let Some(dt) = from else {
            return usage("--from is needed for a raw input (only .npy files name their dtype)");
        };
        let bits = u64::from(dt.bits());
        if (size * 8) % bits != 0 {
            return run_err(format!(
                "{name}: {size} bytes is not a whole number of {} elements ({} bytes each)",
                dt.name(),
                bits / 8
            ));
        }
        let n = size * 8 / bits;
        return Ok(Input {
            dt,
            n,
            shape: vec![n],
            fortran_order: false,
            offset: 0,
        });
    }
    let h = npy::read_header(&mut BufReader::new(&mut *file))
        .map_err(|e| Fail::Run(format!("{name}: {e}")))?;
    let dt = match (h.dt, from, h.void_size) {
        (Some(d), None, _) => d,
        (Some(d), Some(f), _) if d == f => d,
        (Some(d), Some(f), _) => {
            return run_err(format!(
                "{name} holds {} (its .npy header says '{}'), not {}",
                d.name(),
                h.descr,
                f.name()
            ))
        }
        (None, Some(f), Some(k)) if f.bits() as usize == 8 * k => f,
        (None, None, _) => {
            return usage(format!(
                "{name} holds untyped '{}' elements: name their dtype with --from",
                h.descr
            ))
        }
        (None, Some(f), _) => {
            return run_err(format!(
                "{name} holds '{}' elements, which are not {}",
                h.descr,
                f.name()
            ))
        }
    };
    let n = h
        .shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .filter(|&n| dt.bytes(n).is_some())
        .ok_or_else(|| Fail::Run(format!("{name}: .npy shape too large")))?;
    let want = dt.bytes(n).unwrap_or(usize::MAX) as u64;
    let have = size.saturating_sub(h.len as u64);
    if have != want {
        return run_err(format!(
            "{name}: the .npy header promises {want} bytes of data, the file has {have}{}",
            if have < want { " (truncated)" } else { "" }
        ));
    }
    Ok(Input {
        dt,
        n,
        shape: h.shape,
        fortran_order: h.fortran_order,
        offset: h.len,
    })
}

/// A progress bar on stderr, redrawn at most ten times a second.
struct Progress {
    total: u64,
    last: Instant,
    on: bool,
}

impl Progress {
    fn new(total_bytes: u64) -> Progress {
        let on = total_bytes >= PROGRESS_MIN && io::stderr().is_terminal();
        Progress {
            total: total_bytes,
            last: Instant::now(),
            on,
        }
    }

    fn show(&mut self, done: u64, last: bool) {
        if !self.on || (!last && self.last.elapsed() < Duration::from_millis(100)) {
            return;
        }
        self.last = Instant::now();
        let frac = done as f64 / self.total.max(1) as f64;
        let filled = (frac * 30.0) as usize;
        let mib = |b: u64| b as f64 / f64::from(1 << 20);
        eprint!(
            "\r[{}{}] {:3.0}% {:.0}/{:.0} MiB{}",
            "#".repeat(filled),
            " ".repeat(30 - filled.min(30)),
            frac * 100.0,
            mib(done),
            mib(self.total),
            if last { "\n" } else { "" }
        );
    }
}

fn read_err(path: &Path, e: &io::Error) -> Fail {
    Fail::Run(format!("cannot read {}: {}", path.display(), plain(e)))
}

pub fn main(args: &[String]) -> R<()> {
    if wants_help(args, HELP) {
        return Ok(());
    }
    let (opts, pos) = options(args, &["--from", "--to", "--isa"])?;
    let (mut from, mut to, mut isa) = (None, None, None);
    for (name, v) in opts {
        match name.as_str() {
            "--from" => from = Some(dtype(v)?),
            "--to" => to = Some(dtype(v)?),
            _ => isa = Some(v),
        }
    }
    let Some(to) = to else {
        return usage("convert needs --to (nxdtype convert --help)");
    };
    let (inp, outp) = match pos.as_slice() {
        [i, o] => (Path::new(i), Path::new(o)),
        _ => return usage("convert takes IN and OUT (nxdtype convert --help)"),
    };
    if let Some(level) = isa {
        // Read by the library at the first conversion, which comes below.
        std::env::set_var("NX_DTYPE_ISA", level);
    }
    let mut file = File::open(inp).map_err(|e| read_err(inp, &e))?;
    let src = input(inp, &mut file, from)?;
    let descr = if is_npy(outp) { npy::descr(to) } else { None };
    if is_npy(outp) && descr.is_none() {
        eprintln!(
            "nxdtype: note: numpy has no {} dtype: {} holds raw little-endian {} elements, no .npy header",
            to.name(),
            outp.display(),
            to.name()
        );
    }
    catch_signals();
    let tmp = Temp::create(outp)?;
    let write_err =
        |e: io::Error| Fail::Run(format!("cannot write {}: {}", outp.display(), plain(&e)));
    let mut w = io::BufWriter::with_capacity(
        1 << 20,
        tmp.file
            .as_ref()
            .ok_or_else(|| Fail::Run(String::from("internal: no temporary file")))?,
    );
    if let Some(d) = descr {
        w.write_all(&npy::header(d, src.fortran_order, &src.shape))
            .map_err(write_err)?;
    }
    // The header was read through a buffer: seek to the data explicitly.
    file.seek(SeekFrom::Start(src.offset as u64))
        .map_err(|e| read_err(inp, &e))?;
    let mut r = BufReader::with_capacity(1 << 20, &mut file);
    let bytes = |dt: Dt, n: u64| dt.bytes(n).unwrap_or(0);
    let mut sbuf = vec![0u8; bytes(src.dt, BLOCK.min(src.n))];
    let mut dbuf = vec![0u8; bytes(to, BLOCK.min(src.n))];
    let total_in = bytes(src.dt, src.n) as u64;
    let mut progress = Progress::new(total_in);
    let mut done = 0u64;
    while done < src.n {
        if INTERRUPTED.load(Ordering::Relaxed) {
            return run_err(format!("interrupted: {} not written", outp.display()));
        }
        let k = BLOCK.min(src.n - done);
        let (sb, db) = (bytes(src.dt, k), bytes(to, k));
        let (Some(s), Some(d)) = (sbuf.get_mut(..sb), dbuf.get_mut(..db)) else {
            return run_err("internal: block sizes");
        };
        r.read_exact(s).map_err(|e| read_err(inp, &e))?;
        // Padding bits of a last packed byte are zero, not a stale block's.
        d.fill(0);
        abi::convert(src.dt, s, to, d, k as usize)
            .or_else(|e| run_err(format!("converting: {e}")))?;
        w.write_all(d).map_err(write_err)?;
        done += k;
        progress.show(bytes(src.dt, done) as u64, done == src.n);
    }
    w.flush().map_err(write_err)?;
    drop(w);
    tmp.commit(outp)?;
    let used = abi::kernel_isa();
    if let Some(level) = isa.filter(|l| *l != used) {
        eprintln!(
            "nxdtype: note: --isa {level}: the library uses {used} (unknown or unsupported level)"
        );
    }
    println!(
        "{} -> {}: {} elements {} -> {} ({}, kernels {used})",
        inp.display(),
        outp.display(),
        src.n,
        src.dt.name(),
        to.name(),
        if descr.is_some() { ".npy" } else { "raw" }
    );
    Ok(())
}

//! nxdtype: look at the dtypes of libnx_dtype and convert files between
//! them. It uses only the library's public C ABI (the exported `nx_*`
//! functions, through `abi`), so it shows what any C caller gets.
// A command must not panic on bad input: no unwrap, expect or indexing.
#![warn(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod abi;
mod convert;
mod exact;
mod kernels;
mod npy;
mod show;

use abi::Dt;
use std::io::{self, Write};
use std::process::ExitCode;

const HELP: &str = "\
nxdtype: the element formats (dtypes) of libnx_dtype

usage: nxdtype COMMAND [ARGS...]

commands:
  table                         every dtype with its facts
  values FMT [--from A --to B]  every value of a format of at most 16 bits
  store FMT X...                what storing each decimal X into FMT holds
  convert [--from A] --to B IN OUT
                                convert a raw little-endian or .npy file
  version                       the library's version and kernel level
  kernels [--isa LEVEL]         which kernel converts each pair, per level

`nxdtype COMMAND --help` explains each. Exit status: 0 on success, 1 when
the work fails (a bad file, an unwritable output), 2 for a usage error.
";

/// Why the command stopped: a usage error (exit 2) or a failure (exit 1).
pub enum Fail {
    Usage(String),
    Run(String),
}

pub type R<T> = Result<T, Fail>;

pub fn usage<T>(msg: impl Into<String>) -> R<T> {
    Err(Fail::Usage(msg.into()))
}

pub fn run_err<T>(msg: impl Into<String>) -> R<T> {
    Err(Fail::Run(msg.into()))
}

/// A dtype named on the command line.
pub fn dtype(name: &str) -> R<Dt> {
    Dt::of_name(name).map_or_else(
        || usage(format!("unknown dtype '{name}' (nxdtype table lists them)")),
        Ok,
    )
}

/// Writes to stdout; a closed pipe (`nxdtype values float16 | head`) ends
/// the command quietly.
pub fn out(w: &mut impl Write, text: std::fmt::Arguments) -> R<()> {
    match w.write_fmt(text) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(Fail::Run(String::new())),
        Err(e) => run_err(format!("cannot write to stdout: {e}")),
    }
}

/// Whether `--help` or `-h` is among the arguments: print `help` then.
pub fn wants_help(args: &[String], help: &str) -> bool {
    let asked = args.iter().any(|a| a == "--help" || a == "-h");
    if asked {
        print!("{help}");
    }
    asked
}

fn run(args: &[String]) -> R<()> {
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{HELP}");
            return Err(Fail::Usage(String::new()));
        }
    };
    match cmd {
        "--help" | "-h" | "help" => {
            print!("{HELP}");
            Ok(())
        }
        "--version" | "version" => {
            if wants_help(
                rest,
                "usage: nxdtype version\n\nThe library's version and kernel level.\n",
            ) {
                return Ok(());
            }
            println!(
                "nxdtype {} (kernels: {})",
                abi::version(),
                abi::kernel_isa()
            );
            kernels::note_cap();
            Ok(())
        }
        "table" => show::table(rest),
        "values" => show::values(rest),
        "store" => show::store(rest),
        "convert" => convert::main(rest),
        "kernels" => kernels::main(rest),
        _ => usage(format!(
            "unknown command '{cmd}' (nxdtype --help lists them)"
        )),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = run(&args);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Usage(msg)) => {
            if !msg.is_empty() {
                eprintln!("nxdtype: {msg}");
            }
            ExitCode::from(2)
        }
        // An empty message is a closed stdout: nothing to say.
        Err(Fail::Run(msg)) if msg.is_empty() => ExitCode::SUCCESS,
        Err(Fail::Run(msg)) => {
            eprintln!("nxdtype: {msg}");
            ExitCode::from(1)
        }
    }
}

//! `nxdtype kernels`: which kernel converts each pair at each level. The
//! dispatch table is not part of the C ABI, so this one command reads the
//! library's Rust side (`nx_dtype::kernels::listing`).

use crate::{out, usage, wants_help, R};
use nx_dtype::kernels;
use std::io;

const HELP: &str = "\
usage: nxdtype kernels [--isa LEVEL | --arch]

For every pair of dtypes, the rule that picks its kernel at each of this
architecture's levels (or at LEVEL alone), as the dispatch rules resolve on
a CPU with every extension; `[no X: rule]` is what runs without extension
X. `scalar` is the reference (no kernel of the level takes the pair).
--arch prints the architecture whose rules these are.
";

pub fn main(args: &[String]) -> R<()> {
    if wants_help(args, HELP) {
        return Ok(());
    }
    let level = match args {
        [] => None,
        [flag] if flag == "--arch" => {
            return out(
                &mut io::stdout().lock(),
                format_args!("{}\n", std::env::consts::ARCH),
            )
        }
        [flag, name] if flag == "--isa" => Some(name.as_str()),
        _ => return usage("kernels takes no arguments but --isa LEVEL"),
    };
    let Some(text) = kernels::listing(level) else {
        let names = kernels::listed_levels().join(", ");
        return usage(format!(
            "no dispatch rules for level '{}' here (levels with rules: {names})",
            level.unwrap_or("")
        ));
    };
    out(&mut io::stdout().lock(), format_args!("{text}"))
}

/// Says on stderr when `NX_DTYPE_ISA` names no level of this architecture
/// (which then caps nothing), so that a typo or a foreign level is seen.
pub fn note_cap() {
    let Ok(cap) = std::env::var("NX_DTYPE_ISA") else {
        return;
    };
    let here = kernels::Isa::here();
    let known = kernels::Isa::of_name(cap.trim()).is_some_and(|i| here.contains(&i));
    if !known {
        let names: Vec<&str> = here.iter().filter_map(|i| i.name().to_str().ok()).collect();
        eprintln!(
            "nxdtype: NX_DTYPE_ISA={cap} is not a level on {} ({}): it caps nothing",
            std::env::consts::ARCH,
            names.join(", ")
        );
    }
}

//! Dispatch as data: a level's kernels are an ordered list of rules, each a
//! pattern of pairs and the kernel family that converts them, and the first
//! rule that lists a pair (and whose CPU extensions are present) gives its
//! kernel. Each architecture writes its levels' rules in one file
//! (`x86/dispatch.rs`) with `rules!`, which also compiles each rule's
//! kernels only for the pairs the rule can win: a pair taken by an earlier
//! rule that needs no extension is never instantiated for a later one.
//!
//! The same data answers "which kernel runs this pair" without a CPU
//! (`chosen`, `listing`), and the tests hold the resolved tables to it.

use super::{Entry, Isa};
use crate::codes::NX_DTYPE_COUNT;
use crate::table::{Dtype, TABLE};

/// CPU extensions a rule needs beyond its level's baseline, as bits (each
/// architecture names its own: `x86::VBMI`, ...).
pub type Features = u32;

/// A cross product of source and destination dtype codes.
#[derive(Clone, Copy, Debug)]
pub struct Pat {
    pub src: &'static [i32],
    pub dst: &'static [i32],
}

/// One rule: a name (what `nxdtype kernels` prints), the extensions its
/// kernels need, whether the driver aligns their destination (`Entry`),
/// and its pairs.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub name: &'static str,
    pub needs: Features,
    pub align_dst: bool,
    pub pats: &'static [Pat],
}

/// A level's rules, top to bottom.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    pub isa: Isa,
    /// Every extension the level's rules name, with its name.
    pub extensions: &'static [(Features, &'static str)],
    pub rules: &'static [Rule],
    /// What runs a pair no rule lists: "scalar" (the reference) or
    /// "portable" (the portable level's kernel, where a level defers to it).
    pub otherwise: &'static str,
}

// (The functions below run in constants too, hence the loops over
// `split_first`.)
const fn contains(mut xs: &[i32], x: i32) -> bool {
    while let Some((&y, rest)) = xs.split_first() {
        if y == x {
            return true;
        }
        xs = rest;
    }
    false
}

impl Rule {
    /// Whether the rule lists `s -> d`.
    pub const fn lists(&self, s: i32, d: i32) -> bool {
        let mut pats = self.pats;
        while let Some((p, rest)) = pats.split_first() {
            if contains(p.src, s) && contains(p.dst, d) {
                return true;
            }
            pats = rest;
        }
        false
    }
}

/// The index of the rule named `name` (a build error if there is none).
#[allow(clippy::panic)] // only in constants: fails the build
pub const fn index(mut rules: &[Rule], name: &str) -> usize {
    let mut r = 0;
    while let Some((rule, rest)) = rules.split_first() {
        if eq(rule.name, name) {
            return r;
        }
        r += 1;
        rules = rest;
    }
    panic!("no rule of that name")
}

const fn eq(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.split_first(), b.split_first()) {
            (None, None) => return true,
            (Some((x, ra)), Some((y, rb))) if *x == *y => (a, b) = (ra, rb),
            _ => return false,
        }
    }
}

/// Whether rule `r` can give `s -> d` its kernel on some CPU: it lists the
/// pair, the pair is of two dtypes (a dtype to itself is a copy, never a
/// kernel), and no earlier rule that needs no extension lists it. Only
/// then are its kernels for the pair compiled.
pub const fn reachable(mut rules: &[Rule], r: usize, s: i32, d: i32) -> bool {
    if s == d {
        return false;
    }
    let mut e = 0;
    while let Some((rule, rest)) = rules.split_first() {
        if e == r {
            return rule.lists(s, d);
        }
        if rule.needs == 0 && rule.lists(s, d) {
            return false;
        }
        e += 1;
        rules = rest;
    }
    false
}

/// The rule that gives `s -> d` its kernel on a CPU with `have`: the first
/// that lists it and whose extensions are all there.
pub fn chosen(rules: &[Rule], have: Features, s: i32, d: i32) -> Option<usize> {
    (s != d)
        .then(|| {
            rules
                .iter()
                .position(|r| r.needs & !have == 0 && r.lists(s, d))
        })
        .flatten()
}

/// A level's resolved kernels, by source and destination code.
pub type Table = [[Option<Entry>; NX_DTYPE_COUNT]; NX_DTYPE_COUNT];

/// An empty table.
pub const EMPTY: Table = [[None; NX_DTYPE_COUNT]; NX_DTYPE_COUNT];

/// A rule's kernel for one pair: `(s, d, kernel)`, the kernel `None` where
/// the rule cannot win the pair (so that it is never built).
pub type Cell = (i32, i32, Option<super::SimdKernel>);

/// Give each pair of `cells` the kernel of rule `rule` unless an earlier
/// rule gave it one, or the CPU lacks the rule's extensions (`have`).
/// Rules are put in their order, so this is the first match; nothing is
/// overwritten.
pub fn put(t: &mut Table, have: Features, rule: &Rule, cells: &[&[Cell]]) {
    if rule.needs & !have != 0 {
        return;
    }
    for &(s, d, kernel) in cells.iter().flat_map(|row| row.iter()) {
        let Some(kernel) = kernel else { continue };
        if let Some(cell) = t
            .get_mut(s as usize)
            .and_then(|row| row.get_mut(d as usize))
        {
            if cell.is_none() {
                *cell = Some(Entry {
                    kernel,
                    rule: rule.name,
                    align_dst: rule.align_dst,
                });
            }
        }
    }
}

/// The rules for one level's kernels, in the order they are tried, and the
/// function that resolves them into a table: `rules! { LEVEL_RULES,
/// fill_level; "name" needs FEATURES, align BOOL, kind { ... } ... }` (see
/// `x86/dispatch.rs`). Each rule's kernels become a constant list of
/// cells, and a kernel is compiled only where `reachable` says the rule can
/// win its pair.
macro_rules! rules {
    ($rules:ident, $fill:ident;
     $( $(#[$doc:meta])* $name:literal needs $needs:expr, align $align:literal, $kind:ident $(<$($g:ty),*>)? { $($body:tt)* } )*) => {
        pub const $rules: &[$crate::kernels::rules::Rule] = &[
            $( $crate::kernels::rules::Rule {
                name: $name,
                needs: $needs,
                align_dst: $align,
                pats: &$kind!(@pats $($body)*),
            }, )*
        ];
        /// Resolve the rules into `t` for a CPU with the extensions `have`.
        fn $fill(t: &mut $crate::kernels::rules::Table, have: $crate::kernels::rules::Features) {
            $( {
                const R: usize = $crate::kernels::rules::index($rules, $name);
                const CELLS: &[&[$crate::kernels::rules::Cell]] =
                    &$kind!(@cells $rules, R, [$($($g),*)?], $($body)*);
                #[allow(clippy::indexing_slicing)] // a constant index
                $crate::kernels::rules::put(t, have, &$rules[R], CELLS);
            } )*
        }
    };
}
pub(crate) use rules;

/// A pair's cell, for a rule kind's `@cells`: its kernel `k` where the rule
/// can win the pair (`reachable`), else none, so that it is never built.
macro_rules! cell {
    ($rules:ident, $r:ident, $s:expr, $d:expr, $k:expr) => {
        (
            $s,
            $d,
            if $crate::kernels::rules::reachable($rules, $r, $s, $d) {
                Some($k as $crate::kernels::SimdKernel)
            } else {
                None
            },
        )
    };
}
pub(crate) use cell;

/// The rule kind of the scalar reference, where it beats a level's
/// kernels: `S -> D D ...;` lines of dtype codes.
macro_rules! reference {
    (@pats $( $s:ident -> $($d:ident)* );* $(;)?) => {
        [ $( $crate::kernels::rules::Pat { src: &[$s], dst: &[$($d),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], $( $s:ident -> $($d:ident)* );* $(;)?) => {
        [ $( &[ $( $crate::kernels::rules::cell!(
            $rules, $r, $s, $d, $crate::kernels::scalar::kernel::<$s, $d>) ),* ], )* ]
    };
}
pub(crate) use reference;

/// The dtype code's name.
fn name(code: i32) -> &'static str {
    usize::try_from(code)
        .ok()
        .and_then(|c| TABLE.get(c))
        .and_then(|row| row.name.to_str().ok())
        .unwrap_or("?")
}

/// What runs `s -> d` at a level, from its rules alone: the rule chosen on
/// a CPU with every extension, then (in brackets) the rules chosen as
/// extensions go missing, or the level's `otherwise` where no rule lists
/// the pair.
pub fn describe(level: &Level, s: i32, d: i32) -> String {
    let mut seen: Vec<usize> = Vec::new();
    let mut out = String::new();
    for have in subsets(level) {
        let r = chosen(level.rules, have, s, d);
        let key = r.unwrap_or(usize::MAX);
        if seen.contains(&key) {
            continue;
        }
        let rule = r.and_then(|r| level.rules.get(r));
        let what = rule.map_or(level.otherwise, |r| r.name);
        if seen.is_empty() {
            out.push_str(what);
        } else {
            let missing: Vec<&str> = level
                .extensions
                .iter()
                .filter(|(f, _)| have & f == 0)
                .map(|(_, n)| *n)
                .collect();
            out.push_str(&format!(" [no {}: {}]", missing.join("+"), what));
        }
        seen.push(key);
    }
    out
}

/// Every subset of `level`'s extensions: all of them first, none last.
pub fn subsets(level: &Level) -> Vec<Features> {
    let all = level.extensions.iter().fold(0, |a, (f, _)| a | f);
    (0..=all).rev().filter(|h| h & !all == 0).collect()
}

/// Every pair of dtype codes, a dtype to itself included.
#[cfg(test)]
pub fn pairs() -> impl Iterator<Item = (i32, i32)> {
    let n = NX_DTYPE_COUNT as i32;
    (0..n).flat_map(move |s| (0..n).map(move |d| (s, d)))
}

/// The check of a level's tables (each `dispatch.rs` runs it): the table
/// `build` makes for each subset of the extensions holds, for every pair,
/// the kernel of the rule the rules' data choose, a rule that needs only
/// extensions the CPU has: what `nxdtype kernels` prints is what runs.
#[cfg(test)]
pub fn check_tables(level: &Level, build: impl Fn(Features) -> Table) {
    for have in subsets(level) {
        let t = build(have);
        for (s, d) in pairs() {
            let got = t[s as usize][d as usize].map(|e| e.rule);
            let r = chosen(level.rules, have, s, d);
            let want = r.map(|r| level.rules[r].name);
            assert_eq!(got, want, "{:?} with {have:#x}: {s} -> {d}", level.isa);
            assert!(r.is_none_or(|r| level.rules[r].needs & !have == 0));
        }
    }
}

/// The check of a level's rules (each `dispatch.rs` runs it): names are
/// unique; every rule wins at least one pair on some CPU (none is shadowed
/// whole by the rules above it); no rule lists a pair twice (its second
/// kernel would never run).
#[cfg(test)]
pub fn check_rules(level: &Level) {
    for (r, rule) in level.rules.iter().enumerate() {
        let same = level.rules.iter().filter(|o| o.name == rule.name).count();
        assert_eq!(same, 1, "{:?}: two rules named {}", level.isa, rule.name);
        let wins = subsets(level)
            .into_iter()
            .any(|have| pairs().any(|(s, d)| chosen(level.rules, have, s, d) == Some(r)));
        assert!(
            wins,
            "{:?}: rule {} is shadowed whole",
            level.isa, rule.name
        );
        for (s, d) in pairs() {
            let listed = rule
                .pats
                .iter()
                .filter(|p| p.src.contains(&s) && p.dst.contains(&d))
                .count();
            assert!(
                listed <= 1,
                "{:?}: {} lists {s} -> {d} twice",
                level.isa,
                rule.name
            );
        }
    }
}

/// The listing of every pair at the given levels: a line a pair, the rule
/// that runs it at each level (`describe`), columns aligned.
pub fn listing(levels: &[Level]) -> String {
    let mut rows = vec![std::iter::once("pair".to_string())
        .chain(
            levels
                .iter()
                .map(|l| l.isa.name().to_str().unwrap_or("?").to_string()),
        )
        .collect::<Vec<_>>()];
    for s in 0..NX_DTYPE_COUNT as i32 {
        for d in 0..NX_DTYPE_COUNT as i32 {
            if s == d {
                continue;
            }
            let mut row = vec![format!("{} -> {}", name(s), name(d))];
            row.extend(levels.iter().map(|l| describe(l, s, d)));
            rows.push(row);
        }
    }
    let cols = levels.len() + 1;
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, String::len))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A dtype by its code, for the rules' kernels (codes come from the
/// markers, so they are valid).
pub fn dtype(code: i32) -> Option<Dtype> {
    Dtype::from_code(code)
}

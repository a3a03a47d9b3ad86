//! Which family converts each pair at the `portable` level: an ordered
//! list of rules (`rules.rs`), the first that lists a pair giving its
//! kernel. Every pair of two dtypes has one. `nxdtype kernels` prints the
//! result, and `docs/kernels.txt` keeps it.

use super::elems::{Bf16, Bit, Bool, Casts, E2m1, E4m3, E5m2, C128, C64, F16, I4, U4};
use super::lanes::Lanes;
use super::lookup::{Lookup, Nibbles, Octets};
use super::{entry, Pair};
use crate::codes::*;
use crate::kernels::lanes::Side;
use crate::kernels::rules::{self, reachable, reference, rules, Level, Pat, Table};
use crate::kernels::{Entry, Isa, SimdKernel};
use crate::table::Dtype;
use std::sync::OnceLock;

/// `[S, ...] => [D, ...];` lines of dtypes (`elems.rs`'s types), each pair
/// the kernel `entry::<Pair<F, S, D>>` of the family `F` the rule names
/// (`steps<F>`). As `rules!` asks: `@pats` lists the rule's pairs as data,
/// `@cells` each pair's kernel, `Some` only where the rule can win the pair
/// (`reachable`): a constant, so the kernels of the other pairs are never
/// built.
macro_rules! steps {
    (@pats $( [$($S:ty),*] => [$($D:ty),*] );* $(;)?) => {
        [ $( Pat { src: &[$(<$S as Side>::DT),*], dst: &[$(<$D as Side>::DT),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [$F:ty], $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        [ $( $( steps!(@row $rules, $r, $F, $S => $ds), )* )* ]
    };
    (@row $rules:ident, $r:ident, $F:ty, $S:ty => [$($D:ty),*]) => {
        &[ $( {
            let (s, d) = (<$S as Side>::DT, <$D as Side>::DT);
            let k = if reachable($rules, $r, s, d) {
                Some(entry::<Pair<$F, $S, $D>> as SimdKernel)
            } else {
                None
            };
            (s, d, k)
        } ),* ]
    };
}

rules! { PORTABLE_RULES, fill;
    /// The scalar reference where it beats this level's kernels: the
    /// wide integers narrowed to 8 and 16 bits, which the compiler does
    /// not vectorize for baseline x86-64, and some tests of truth.
    "reference" needs 0, align false, reference {
        NX_INT32 -> NX_BIT;
        NX_UINT32 -> NX_BIT;
        NX_FLOAT64 -> NX_BIT;
        NX_COMPLEX128 -> NX_BOOL;
        NX_INT64 -> NX_INT16 NX_UINT16 NX_INT8 NX_UINT8;
    }
    /// The sub-byte sources by table, a source byte's elements at once
    /// (but for 4 bits into bit, which takes four source bytes a byte).
    "lookup.pairs" needs 0, align false, steps<Nibbles> {
        [E2m1, I4, U4] =>
            [f64, f32, F16, Bf16, E4m3, E5m2, E2m1, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4,
             C128, C64, Bool];
    }
    "lookup.octets" needs 0, align false, steps<Octets> {
        [Bit] =>
            [f64, f32, F16, Bf16, E4m3, E5m2, E2m1, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4,
             C128, C64, Bool];
    }
    /// The 8-bit floats by table, and the 8-bit integers into the formats
    /// no machine type holds (into the others a cast is cheaper than a
    /// load).
    "lookup" needs 0, align false, steps<Lookup> {
        [E4m3, E5m2] =>
            [f64, f32, F16, Bf16, E4m3, E5m2, E2m1, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4,
             C128, C64, Bool, Bit];
        [i8, u8] => [F16, Bf16, E4m3, E5m2, E2m1];
        [E2m1, I4, U4] => [Bit];
    }
    /// Into the formats no machine type holds, and from float16 and
    /// bfloat16: through float32 bits.
    "lanes" needs 0, align false, steps<Lanes> {
        [f64, f32, F16, Bf16, i64, u64, i32, u32, i16, u16, C128, C64] =>
            [F16, Bf16, E4m3, E5m2, E2m1];
        [F16, Bf16] => [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4, C128, C64];
    }
    /// Every other pair: one conversion a element between machine types.
    "cast" needs 0, align false, steps<Casts> {
        [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, C128, C64] =>
            [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4, C128, C64, Bool, Bit];
        [F16, Bf16] => [Bool, Bit];
        [Bool] =>
            [f64, f32, F16, Bf16, E4m3, E5m2, E2m1, i64, u64, i32, u32, i16, u16, i8, u8, I4, U4,
             C128, C64, Bool, Bit];
    }
}

/// The `portable` level's rules, for `nxdtype kernels`, `docs/kernels.txt`
/// and the tests. It needs no extension.
pub const LEVEL: Level = Level {
    isa: Isa::Portable,
    extensions: &[],
    rules: PORTABLE_RULES,
    otherwise: "scalar",
};

/// The level's table.
fn build() -> Table {
    let mut t = rules::EMPTY;
    fill(&mut t, 0);
    t
}

static TABLE: OnceLock<Table> = OnceLock::new();

/// The portable kernel of `s -> d` (None for a dtype to itself, a copy).
pub fn kernel(s: Dtype, d: Dtype) -> Option<Entry> {
    let t = TABLE.get_or_init(build);
    *t.get(s.code() as usize)?.get(d.code() as usize)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::rules::pairs;

    /// The table holds the kernels of the rules the rules' data choose
    /// (`rules::check_tables`).
    #[test]
    fn table_follows_the_rules() {
        rules::check_tables(&LEVEL, |_| build());
    }

    /// No rule shadowed whole, none listing a pair twice, names unique
    /// (`rules::check_rules`).
    #[test]
    fn every_rule_wins_a_pair_and_lists_each_once() {
        rules::check_rules(&LEVEL);
    }

    /// Every pair of two dtypes has a kernel, of the rule that lists it
    /// first; a dtype to itself has none.
    #[test]
    fn every_pair_has_one_kernel() {
        let t = build();
        for (s, d) in pairs() {
            let e = t[s as usize][d as usize];
            assert_eq!(e.is_some(), s != d, "{s} -> {d}");
        }
    }
}

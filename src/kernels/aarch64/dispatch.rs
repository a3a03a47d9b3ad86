//! Which kernel converts each pair at the neon level: an ordered list of
//! rules, read top to bottom; the first rule that lists a pair, and whose
//! CPU extensions are present, gives the pair its kernel (`rules.rs`). A
//! pair no rule lists runs the portable level's kernel (`Aarch64::kernel`).
//! `nxdtype kernels` prints the result for all 441 pairs, and
//! `docs/kernels.txt` keeps it.
//!
//! The pairs are those users move in bulk: float32 with float16 and
//! bfloat16, every float into and out of the float8 and float4 formats,
//! float64 into the 16- and 32-bit floats, and int8 and uint8 with float32,
//! with every other pair the same decoders and encoders meet in.

use super::k_lanes;
use super::neon::{Bf16Codes, Bf16Cvt, F16Codes, Narrow16, Quad, ToOdd};
use crate::kernels::lanes::{Side, *};
use crate::kernels::rules::{self, reachable, rules, Features, Level, Pat, Table};
use crate::kernels::{Entry, Isa, SimdKernel};
use crate::table::Dtype;
use std::sync::OnceLock;

/// FEAT_BF16: BFCVTN.
pub const BF16: Features = 1;

/// `[S, ...] => [D, ...];` lines of lanes markers: `k_lanes::<L, S, D>`,
/// for the `rules!` macro (`@pats`: the rule's pairs as data; `@cells`:
/// each pair's kernel, `Some` only where the rule can win it, so that the
/// kernels of the other pairs are never built).
macro_rules! lanes {
    (@pats $( [$($S:ty),*] => [$($D:ty),*] );* $(;)?) => {
        [ $( Pat { src: &[$(<$S as Side>::DT),*], dst: &[$(<$D as Side>::DT),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [$L:ty], $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        [ $( $( lanes!(@row $rules, $r, $L, $S => $ds), )* )* ]
    };
    (@row $rules:ident, $r:ident, $L:ty, $S:ty => [$($D:ty),*]) => {
        &[ $( {
            let (s, d) = (<$S as Side>::DT, <$D as Side>::DT);
            let k = if reachable($rules, $r, s, d) {
                Some(k_lanes::<$L, $S, $D> as SimdKernel)
            } else {
                None
            };
            (s, d, k)
        } ),* ]
    };
}

rules! { NEON_RULES, fill_neon;
    /// The float8 and float4 sources into float16 codes by table lookups
    /// (float8_e5m2: a shift), without float32; float16 rounded to
    /// float8_e5m2 in its codes (one exponent: a shift and a rounding).
    "lanes.codes16" needs 0, align false, lanes<F16Codes> {
        [E4m3In, E5m2In, E2m1In] => [F16Out];
        [F16In] => [E5m2Out];
    }
    /// The float8 and float4 sources into bfloat16 codes by table lookups.
    "lanes.bf16codes" needs 0, align false, lanes<Bf16Codes> {
        [E4m3In, E5m2In, E2m1In] => [Bf16Out];
    }
    /// Into bfloat16 by BFCVTN.
    "lanes.bfcvtn" needs BF16, align false, lanes<Quad> {
        [F32In, F16In, ToOdd] => [Bf16Cvt];
    }
    /// The general case: decoded into float32 lanes, encoded from them.
    "lanes" needs 0, align false, lanes<Quad> {
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, ToOdd] =>
            [F16Out, Narrow16<0>, Narrow16<1>, Narrow16<2>, I8Out, U8Out];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>] =>
            [F64Out];
        [F16In, Bf16In<true>, E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, F64Near] =>
            [F32Out];
        [F32In, F16In, ToOdd] => [Bf16Out];
        [I8In<true>, I8In<false>] => [Bf16Top];
    }
}

/// aarch64's levels with rules, for `nxdtype kernels`, `docs/kernels.txt`
/// and the tests.
pub const LEVELS: [Level; 1] = [Level {
    isa: Isa::Neon,
    extensions: &[(BF16, "bf16")],
    rules: NEON_RULES,
    otherwise: "portable",
}];

/// The neon level's table on a CPU with the extensions `have`.
pub fn build(have: Features) -> Table {
    let mut t = rules::EMPTY;
    fill_neon(&mut t, have);
    t
}

/// This CPU's extensions.
fn extensions() -> Features {
    if super::has_bf16() {
        BF16
    } else {
        0
    }
}

static NEON: OnceLock<Table> = OnceLock::new();

/// The neon level's kernel for `s -> d`, if a rule gives it one.
pub fn kernel(s: Dtype, d: Dtype) -> Option<Entry> {
    let t = NEON.get_or_init(|| build(extensions()));
    *t.get(s.code() as usize)?.get(d.code() as usize)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::rules::{pairs, subsets};
    use crate::kernels::{scalar, Store};

    /// The tables hold the kernels of the rules the rules' data choose, on
    /// CPUs with and without BF16 (`rules::check_tables`).
    #[test]
    fn tables_follow_the_rules() {
        rules::check_tables(&LEVELS[0], build);
    }

    /// No rule shadowed whole, none listing a pair twice, names unique
    /// (`rules::check_rules`).
    #[test]
    fn every_rule_wins_a_pair_and_lists_each_once() {
        rules::check_rules(&LEVELS[0]);
    }

    /// The pairs the level is for have a kernel with and without BF16.
    #[test]
    fn the_bulk_pairs_have_kernels() {
        use crate::codes::*;
        let floats = [NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_FLOAT64];
        let narrow = [NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN];
        let mut want = vec![
            (NX_FLOAT32, NX_FLOAT16),
            (NX_FLOAT16, NX_FLOAT32),
            (NX_FLOAT32, NX_BFLOAT16),
            (NX_BFLOAT16, NX_FLOAT32),
            (NX_FLOAT64, NX_FLOAT32),
            (NX_FLOAT64, NX_FLOAT16),
            (NX_FLOAT64, NX_BFLOAT16),
            (NX_INT8, NX_FLOAT32),
            (NX_UINT8, NX_FLOAT32),
            (NX_FLOAT32, NX_INT8),
            (NX_FLOAT32, NX_UINT8),
        ];
        for f in floats {
            for e in narrow {
                want.extend([(f, e), (e, f)]);
            }
        }
        for have in subsets(&LEVELS[0]) {
            let t = build(have);
            for &(s, d) in &want {
                assert!(t[s as usize][d as usize].is_some(), "{have:#x}: {s} -> {d}");
            }
        }
    }

    /// The kernels that BFCVTN replaces still serve the CPUs without it:
    /// each pair whose kernel differs with and without BF16, each kernel
    /// the CPU can run against the scalar reference, nothing written past
    /// the elements, at every length mod 64 up to the end of the sources:
    /// every float16 code; every float32 top half with low halves around
    /// bfloat16's rounding bit; every float64 top word with low 48 bits
    /// around float32's last bit and below; three ones first, so that the
    /// binades' bounds do not fall on a step's first lane.
    #[test]
    fn kernels_with_and_without_bf16() {
        if !Isa::Neon.supported() {
            return;
        }
        let codes16: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let f32s: Vec<u8> = [1f32.to_bits(); 3]
            .into_iter()
            .chain((0..=u16::MAX).flat_map(|c| {
                [0u32, 1, 0x7FFF, 1 << 15, 0x8001, 0xFFFF].map(|l| (u32::from(c) << 16) | l)
            }))
            .flat_map(u32::to_le_bytes)
            .collect();
        let low = [
            0,
            1,
            1 << 28,
            1 << 29,
            (1 << 29) - 1,
            1 << 44,
            (1 << 45) - 1,
        ];
        let f64s: Vec<u8> = [1f64.to_bits(); 3]
            .into_iter()
            .chain((0..=u16::MAX).flat_map(|c| low.map(|l| (u64::from(c) << 48) | l)))
            .flat_map(u64::to_le_bytes)
            .collect();
        let tables: Vec<Table> = subsets(&LEVELS[0])
            .into_iter()
            .filter(|h| h & !extensions() == 0)
            .map(build)
            .collect();
        let mut checked = 0;
        for (s, d) in pairs().filter(|(s, d)| s != d) {
            let mut ks: Vec<Entry> = Vec::new();
            for t in &tables {
                if let Some(e) = t[s as usize][d as usize] {
                    if !ks.iter().any(|k| k.rule == e.rule) {
                        ks.push(e);
                    }
                }
            }
            if ks.len() < 2 {
                continue;
            }
            let dt = |c: i32| Dtype::from_code(c).expect("a dtype");
            let (sb, db) = (dt(s).bits() as usize, dt(d).bits() as usize);
            assert_eq!(db, 16, "{s} -> {d}: only bfloat16 destinations here");
            let src: &[u8] = match sb {
                16 => &codes16,
                32 => &f32s,
                64 => &f64s,
                _ => panic!("{s} -> {d}: no sources of {sb} bits here"),
            };
            let all = src.len() * 8 / sb;
            let mut want = vec![0u8; all * 2];
            scalar::run(dt(s), dt(d), src, &mut want, all);
            for n in all - 64..=all {
                for k in &ks {
                    let mut got = vec![0xA5u8; want.len()];
                    (k.kernel)(src, &mut got, n, 0, Store::Plain);
                    let bad = (0..n).find(|&i| got[2 * i..2 * i + 2] != want[2 * i..2 * i + 2]);
                    assert_eq!(bad, None, "{s} -> {d} by {}, n {n}", k.rule);
                    assert!(
                        got[2 * n..].iter().all(|&b| b == 0xA5),
                        "{s} -> {d} by {}, n {n}: a byte past the elements written",
                        k.rule
                    );
                }
            }
            checked += 1;
        }
        if extensions() == BF16 {
            assert_eq!(checked, 3, "float32, float16 and float64 into bfloat16");
        }
    }
}

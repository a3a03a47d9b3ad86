//! Which kernel converts each pair on x86, per level: an ordered list of
//! rules, read top to bottom; the first rule that lists a pair, and whose
//! CPU extensions are present, gives the pair its kernel (`rules.rs`). A
//! pair no rule lists runs the scalar reference. `nxdtype kernels` prints
//! the result for all 441 pairs, and `docs/kernels.txt` keeps it.
//!
//! The order is the performance order: whole kernels first where they beat
//! the lanes, the lanes framework as the general case, and maps between
//! machine types last. The figures behind each choice are in BENCHMARKS.md
//! ("Kernel choices").

use super::avx2::{Bf16Words, Four, Words};
use super::avx512::{self, lookup, wide, Bf16Codes, Codes, E2m1, E4m3, E5m2, Two};
use super::{bits, entry, k_lanes, k_lanes_streamed_by, native, parts};
use crate::codes::*;
use crate::kernels::lanes::{dtype_bits, fp, Fp, Side, *};
use crate::kernels::rules::{self, cell, reference, rules, Features, Level, Pat, Table};
use crate::kernels::{Entry, Isa};
use crate::table::Dtype;
use native::{Bool, C128, C64};
use std::sync::OnceLock;

/// AVX512-VBMI: byte permutes across a whole vector (the lookups).
pub const VBMI: Features = 1;
/// AVX512-BF16: VCVTNE2PS2BF16.
pub const BF16: Features = 2;

// ------------------------------------------------------------ rule kinds
//
// Each kind is a macro with two arms used by `rules!`: `@pats` lists the
// rule's pairs as data, `@cells` each pair's kernel, `Some` only where the
// rule can win the pair (`reachable`): a constant, so the kernels of the
// other pairs are never built.

/// `[S, ...] => [D, ...];` lines of lanes markers: `k_lanes::<L, S, D>`
/// (`lanes<L, T>`: `T`'s lanes for the non-temporal form).
macro_rules! lanes {
    (@pats $( [$($S:ty),*] => [$($D:ty),*] );* $(;)?) => {
        [ $( Pat { src: &[$(<$S as Side>::DT),*], dst: &[$(<$D as Side>::DT),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, $g:tt, $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        [ $( $( lanes!(@row $rules, $r, $g, $S => $ds), )* )* ]
    };
    (@row $rules:ident, $r:ident, $g:tt, $S:ty => [$($D:ty),*]) => {
        &[ $( cell!($rules, $r, <$S as Side>::DT, <$D as Side>::DT, lanes!(@k $g, $S, $D)) ),* ]
    };
    (@k [$L:ty], $S:ty, $D:ty) => { k_lanes::<$L, $S, $D> };
    (@k [$L:ty, $T:ty], $S:ty, $D:ty) => { k_lanes_streamed_by::<$L, $T, $S, $D> };
}

/// Complex pairs as their parts' pair: `S -> D: SMarker => DMarker;`.
macro_rules! parts {
    (@pats $( $s:ident -> $d:ident: $S:ty => $D:ty );* $(;)?) => {
        [ $( Pat { src: &[$s], dst: &[$d] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [$L:ty], $( $s:ident -> $d:ident: $S:ty => $D:ty );* $(;)?) => {
        [ &[ $( cell!($rules, $r, $s, $d, parts::<$L, $S, $D>) ),* ] ]
    };
}

/// Whole kernels, one a pair: `fp ENV; S -> D: path[generic args];` (the
/// kernel `path::<args, NT>`, run under the environment `ENV`).
macro_rules! whole {
    (@pats fp $env:expr; $( $s:ident -> $d:ident: $($f:ident)::+ $([$($g:tt),*])? );* $(;)?) => {
        [ $( Pat { src: &[$s], dst: &[$d] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], fp $env:expr; $( $s:ident -> $d:ident: $($f:ident)::+ $([$($g:tt),*])? );* $(;)?) => {
        [ &[ $( cell!($rules, $r, $s, $d, {
            entry!(k, $($f)::+ $([$($g),*])?, dtype_bits($s), dtype_bits($d), $env);
            k
        }) ),* ] ]
    };
}

/// Whole kernels generic in both dtypes: `fp ENV; path; S -> D D ...;`
/// (the kernel `path::<{S}, {D}, NT>`).
macro_rules! each_pair {
    (@pats fp $env:expr; $($f:ident)::+; $( $s:ident -> $($d:ident)* );* $(;)?) => {
        [ $( Pat { src: &[$s], dst: &[$($d),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], fp $env:expr; $($f:ident)::+; $($rest:tt)*) => {
        each_pair!(@go $rules, $r, $env, [$($f)::+], $($rest)*)
    };
    (@go $rules:ident, $r:ident, $env:expr, $k:tt, $( $s:ident -> $($d:ident)* );* $(;)?) => {
        [ $( &[ $( each_pair!(@one $rules, $r, $env, $k, $s, $d) ),* ], )* ]
    };
    (@one $rules:ident, $r:ident, $env:expr, [$($f:ident)::+], $s:ident, $d:ident) => {
        cell!($rules, $r, $s, $d, {
            entry!(k, $($f)::+[{ $s }, { $d }], dtype_bits($s), dtype_bits($d), $env);
            k
        })
    };
}

/// Whole kernels generic in the source: `fp ENV; path; S S ... -> D;` (the
/// kernel `path::<{S}, NT>`).
macro_rules! each_src {
    (@pats fp $env:expr; $($f:ident)::+; $( $($s:ident)* -> $d:ident );* $(;)?) => {
        [ $( Pat { src: &[$($s),*], dst: &[$d] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], fp $env:expr; $($f:ident)::+; $($rest:tt)*) => {
        each_src!(@go $rules, $r, $env, [$($f)::+], $($rest)*)
    };
    (@go $rules:ident, $r:ident, $env:expr, $k:tt, $( $($s:ident)* -> $d:ident );* $(;)?) => {
        [ $( &[ $( each_src!(@one $rules, $r, $env, $k, $s, $d) ),* ], )* ]
    };
    (@one $rules:ident, $r:ident, $env:expr, [$($f:ident)::+], $s:ident, $d:ident) => {
        cell!($rules, $r, $s, $d, {
            entry!(k, $($f)::+[{ $s }], dtype_bits($s), dtype_bits($d), $env);
            k
        })
    };
}

/// The table lookups among the 8- and 4-bit dtypes, by their index in
/// `lookup::PAIRS`: `k k ...` (the kernel `lookup::bytes::<k, NT>`).
macro_rules! lookups {
    (@pats $($k:literal)*) => {
        [ $( Pat { src: &[lookup::PAIRS[$k].0], dst: &[lookup::PAIRS[$k].1] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], $($k:literal)*) => {
        [ &[ $( cell!($rules, $r, lookup::PAIRS[$k].0, lookup::PAIRS[$k].1, {
            const P: (i32, i32) = lookup::PAIRS[$k];
            entry!(k, lookup::bytes[$k], dtype_bits(P.0), dtype_bits(P.1), Fp::DEFAULT);
            k
        }) ),* ] ]
    };
}

/// A lookup into 16 bits widened further: `S -> W: D D ...;` (the kernel
/// `lookup::ints::<{index of S -> W}, {D}, NT>`).
macro_rules! widened_lookups {
    (@pats $( $s:ident -> $w:ident: $($d:ident)* );* $(;)?) => {
        [ $( Pat { src: &[$s], dst: &[$($d),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], $( $s:ident -> $w:ident: $($d:ident)* );* $(;)?) => {
        [ $( &[ $( cell!($rules, $r, $s, $d, {
            const K: usize = lookup::pair_index($s, $w);
            entry!(k, lookup::ints[K, $d], dtype_bits($s), dtype_bits($d), Fp::DEFAULT);
            k
        }) ),* ], )* ]
    };
}

/// Into bfloat16 by VCVTNE2PS2BF16 from lanes markers: `SUB: S, ...;`,
/// `SUB` whether the source's float32 lanes can be subnormal.
macro_rules! bf16ne {
    (@pats $( $sub:literal: $($S:ty),* );* $(;)?) => {
        [ $( Pat { src: &[$(<$S as Side>::DT),*], dst: &[{ let _ = $sub; NX_BFLOAT16 }] } ),* ]
    };
    (@cells $rules:ident, $r:ident, [], $( $sub:literal: $($S:ty),* );* $(;)?) => {
        [ $( &[ $( cell!($rules, $r, <$S as Side>::DT, NX_BFLOAT16, {
            entry!(k, avx512::steps::run_bf16[$S, $sub], <$S>::BITS, 16, fp::<$S, Bf16Ne<$sub>>());
            k
        }) ),* ], )* ]
    };
}

/// Maps between machine types (`native.rs`): `[S, ...] => [D, ...];`, the
/// AVX2 form (`native256`) or the AVX-512 form of the narrowings
/// (`native512`).
macro_rules! native256 {
    (@pats $($body:tt)*) => { native_maps!(@pats $($body)*) };
    (@cells $rules:ident, $r:ident, [], $($body:tt)*) => {
        native_maps!(@cells $rules, $r, false, $($body)*)
    };
}
macro_rules! native512 {
    (@pats $($body:tt)*) => { native_maps!(@pats $($body)*) };
    (@cells $rules:ident, $r:ident, [], $($body:tt)*) => {
        native_maps!(@cells $rules, $r, true, $($body)*)
    };
}
macro_rules! native_maps {
    (@pats $( [$($S:ty),*] => [$($D:ty),*] );* $(;)?) => {
        [ $( Pat { src: &[$(<$S as native::Machine>::DT),*], dst: &[$(<$D as native::Machine>::DT),*] } ),* ]
    };
    (@cells $rules:ident, $r:ident, $w:literal, $( [$($S:ty),*] => $ds:tt );* $(;)?) => {
        [ $( $( native_maps!(@row $rules, $r, $w, $S => $ds), )* )* ]
    };
    (@row $rules:ident, $r:ident, $w:literal, $S:ty => [$($D:ty),*]) => {
        &[ $( cell!($rules, $r, <$S as native::Machine>::DT, <$D as native::Machine>::DT,
            native::entry::<$S, $D, $w>) ),* ]
    };
}

// ------------------------------------------------------------------ AVX2

rules! { AVX2_RULES, fill_avx2;
    /// Into and from the 64-bit integers the lanes reach through float64
    /// pieces, where the reference looks a small source up by byte; and two
    /// of the maps.
    "reference" needs 0, align true, reference {
        NX_BIT -> NX_INT64 NX_UINT64;
        NX_INT4 -> NX_INT64 NX_UINT64 NX_FLOAT8_E4M3FN;
        NX_UINT4 -> NX_INT64 NX_UINT64;
        NX_FLOAT4_E2M1FN -> NX_INT64 NX_UINT64 NX_FLOAT8_E4M3FN;
        NX_FLOAT8_E4M3FN -> NX_INT64 NX_UINT64;
        NX_FLOAT8_E5M2 -> NX_INT64 NX_UINT64;
        NX_INT64 -> NX_INT4 NX_UINT4;
        NX_UINT64 -> NX_INT4 NX_UINT4 NX_UINT8;
        NX_INT16 -> NX_BOOL;
        NX_UINT16 -> NX_BOOL;
    }
    /// The integers and bool among themselves, float64 -> bool and
    /// complex64, complex64 -> float64: their lanes go through float32.
    "native" needs 0, align true, native256 {
        [i64, u64, i32, u32, i16, u16, i8, u8, Bool] => [i64, u64, i32, u32, i16, u16, i8, u8, Bool];
        [f64] => [Bool, C64];
        [C64] => [f64];
    }
    /// bit with the dtypes of 4 to 16 bits by masks, and bit from those of
    /// 32 and 64 bits but float32 and complex64; bool into the formats no
    /// machine type holds.
    "masks" needs 0, align true, each_pair {
        fp Fp::DEFAULT; bits::from_truth2;
        NX_BIT -> NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT8 NX_UINT8 NX_INT4 NX_UINT4
            NX_BOOL NX_FLOAT16 NX_BFLOAT16 NX_INT16 NX_UINT16;
        NX_BOOL -> NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT4 NX_UINT4 NX_FLOAT16
            NX_BFLOAT16;
    }
    "masks.to_bit" needs 0, align true, each_src {
        fp Fp::DEFAULT; bits::to_bit2;
        NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT8 NX_UINT8 NX_INT4 NX_UINT4 NX_BOOL
            NX_FLOAT16 NX_BFLOAT16 NX_INT16 NX_UINT16 NX_INT32 NX_UINT32 NX_FLOAT64 NX_INT64
            NX_UINT64 -> NX_BIT;
    }
    /// The 4-bit sources (and float8_e4m3fn into bfloat16) decoded into
    /// 16-bit codes by table lookups, without float32 conversions.
    "lanes.codes16" needs 0, align true, lanes<Words> {
        [I4In<true>, I4In<false>, E2m1In] => [F16Out];
    }
    "lanes.bf16codes" needs 0, align true, lanes<Bf16Words> {
        [I4In<true>, I4In<false>, E2m1In, E4m3In] => [Bf16Out];
    }
    /// The 64-bit integers with the formats no machine type holds.
    "lanes.int64" needs 0, align true, lanes<Four> {
        [I64Odd<true>, I64Odd<false>] =>
            [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I4Out, U4Out, BitOut];
        [F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I4In<true>, I4In<false>, BitIn] =>
            [I64Out<true>, I64Out<false>];
    }
    /// float16 and float8_e5m2 share an exponent: a shift, no float32.
    "lanes.codes16.shift" needs 0, align true, lanes<Words> {
        [F16In] => [E5m2Out];
        [E5m2In, E4m3In] => [F16Out];
    }
    /// Sources whose values are all bfloat16 values: the top halves.
    "lanes.bf16top" needs 0, align true, lanes<Four> {
        [E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] =>
            [Bf16Top];
    }
    /// The general case: decoded into float32 lanes, encoded from them.
    "lanes" needs 0, align true, lanes<Four> {
        [F32In, F16In, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>, I8In<true>, I8In<false>,
         I4In<true>, I4In<false>, BoolIn, BitIn] =>
            [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out,
             U8Out, I4Out, U4Out, BoolOut, BitOut];
        [Bf16In<true>] => [F32Out];
        [Bf16In<false>] =>
            [F64Out, F16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out,
             BoolOut, BitOut];
        [F64Fold<29>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [F64Fold<47>] => [E4m3Folded];
        [F64Fold<48>] => [E5m2Folded];
        [F64Fold<49>] => [E2m1Folded];
        [F64Fold<40>] => [Bf16Out];
        [F64Odd] => [BoolOut, BitOut];
        [F64Near] => [F32Out];
        [F64Fold<29, true>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [F64Fold<47, true>] => [E4m3Folded];
        [F64Fold<48, true>] => [E5m2Folded];
        [F64Fold<49, true>] => [E2m1Folded];
        [F64Fold<40, true>] => [Bf16Out];
        [F64Near<true>] => [F32Out];
        [C128Any] => [BoolOut, BitOut];
        [I32Odd<true>, I32Odd<false>] =>
            [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
             U4Out, BoolOut, BitOut];
        [I32Near<true>, I32Near<false>] => [F32Out];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I4In<true>, I4In<false>, BitIn] =>
            [I32Out<true>, I32Out<false>];
        [C64In] =>
            [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I32Out<true>,
             I32Out<false>, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [C64Any] => [BoolOut, BitOut];
        [F32In, F16In, Bf16In<true>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
         I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn, F64Near, I32Near<true>,
         I32Near<false>] => [C64Out];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
         I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] => [C128Out];
    }
    "lanes.complex" needs 0, align true, parts<Four> {
        NX_COMPLEX128 -> NX_COMPLEX64: F64Near => F32Out;
        NX_COMPLEX64 -> NX_COMPLEX128: F32In => F64Out;
    }
    /// Every other pair of machine types.
    "native.fill" needs 0, align true, native256 {
        [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, Bool, C128, C64] =>
            [f64, f32, i64, u64, i32, u32, i16, u16, i8, u8, Bool, C128, C64];
    }
}

// --------------------------------------------------------------- AVX-512

rules! { AVX512_RULES, fill_avx512;
    /// float32 -> float16: AVX2's lanes (F16C's VCVTPS2PH and 128-bit
    /// stores), but AVX-512's wider non-temporal stores when streaming.
    "avx2.lanes.f32_f16" needs 0, align true, lanes<Four, Two> {
        [F32In] => [F16Out];
    }
    /// Pairs whose AVX2 kernels beat AVX-512's: the halvings by 256-bit
    /// stores, the widenings by stores that sustain more once the
    /// destination leaves L1.
    "avx2.lanes" needs 0, align true, lanes<Four> {
        [Bf16In<false>] => [F16Out, C128Out];
        [F32In] => [F64Out, C128Out];
        [BoolIn] => [F64Out, C128Out];
    }
    "avx2.complex" needs 0, align true, parts<Four> {
        NX_COMPLEX64 -> NX_COMPLEX128: F32In => F64Out;
    }
    "avx2.native" needs 0, align true, native256 {
        [i16] => [i8, u8];
        [i32] => [i16, u16, f64, C128];
        [u32] => [f64, C128];
        [u64] => [C128];
        [f64] => [C64];
        [C64] => [f64];
    }
    /// Among the wide dtypes: VCVTQQ2PD and kin, the complex parts.
    "wide" needs 0, align false, whole {
        fp Fp::DEFAULT;
        NX_FLOAT64 -> NX_INT64: wide::f64_to_i64;
        NX_FLOAT64 -> NX_UINT64: wide::f64_to_u64;
        NX_FLOAT64 -> NX_INT32: wide::f64_to_i32;
        NX_FLOAT64 -> NX_UINT32: wide::f64_to_u32;
        NX_INT64 -> NX_FLOAT64: wide::i64_to_f64;
        NX_UINT64 -> NX_FLOAT64: wide::u64_to_f64;
        NX_INT64 -> NX_FLOAT32: wide::i64_to_f32;
        NX_INT32 -> NX_FLOAT16: wide::i32_to_f16;
        NX_UINT32 -> NX_FLOAT16: wide::u32_to_f16;
        NX_INT64 -> NX_FLOAT16: wide::i64_to_f16;
        NX_UINT64 -> NX_FLOAT16: wide::u64_to_f16;
        NX_UINT64 -> NX_FLOAT32: wide::u64_to_f32;
        NX_INT64 -> NX_INT32: wide::i64_to_i32;
        NX_INT64 -> NX_UINT32: wide::i64_to_u32;
        NX_UINT64 -> NX_INT32: wide::u64_to_i32;
        NX_UINT64 -> NX_UINT32: wide::u64_to_u32;
        NX_INT64 -> NX_UINT64: wide::i64_to_u64;
        NX_UINT64 -> NX_INT64: wide::u64_to_i64;
        NX_INT32 -> NX_INT64: wide::i32_to_i64;
        NX_INT32 -> NX_UINT64: wide::i32_to_u64;
        NX_UINT32 -> NX_INT64: wide::u32_to_i64;
        NX_UINT32 -> NX_UINT64: wide::u32_to_i64;
        NX_COMPLEX128 -> NX_FLOAT64: wide::c128_to_f64;
        NX_FLOAT64 -> NX_COMPLEX128: wide::f64_to_c128;
        NX_COMPLEX128 -> NX_INT64: wide::c128_to_i64;
        NX_COMPLEX128 -> NX_UINT64: wide::c128_to_u64;
        NX_COMPLEX128 -> NX_INT32: wide::c128_to_i32;
        NX_COMPLEX128 -> NX_UINT32: wide::c128_to_u32;
        NX_INT64 -> NX_COMPLEX128: wide::i64_to_c128;
        NX_INT64 -> NX_COMPLEX64: wide::i64_to_c64;
        NX_UINT64 -> NX_COMPLEX64: wide::u64_to_c64;
    }
    /// Into bfloat16 by VCVTNE2PS2BF16 from the float32 lanes of the
    /// sources that round into bfloat16.
    "lanes.bf16ne" needs BF16, align false, bf16ne {
        true: F32In, F64Fold<40>, F64Fold<40, true>, C64In;
        false: F16In, I16In<true>, I16In<false>, I32Odd<true>, I32Odd<false>, I64Odd<true>,
            I64Odd<false>;
    }
    /// The integers of 16 to 64 bits into int4, uint4 and float4_e2m1fn,
    /// and into 8 and 16 bits where VPMOVS*/VPMOVUS* beat the maps.
    "wide.narrow_ints" needs 0, align false, each_pair {
        fp Fp::DEFAULT; wide::narrow_ints;
        NX_INT16 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN;
        NX_UINT16 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN;
        NX_INT32 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN NX_UINT8;
        NX_UINT32 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN NX_INT8 NX_INT16 NX_UINT16;
        NX_INT64 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN;
        NX_UINT64 -> NX_INT4 NX_UINT4 NX_FLOAT4_E2M1FN NX_INT8 NX_INT16;
    }
    /// The 4-bit dtypes into 16, 32 and 64 bits by a table of 16 codes.
    "lookup.widen4" needs 0, align false, each_pair {
        fp Fp::DEFAULT; lookup::widen4;
        NX_INT4 -> NX_INT16 NX_UINT16 NX_FLOAT16 NX_BFLOAT16 NX_INT32 NX_UINT32 NX_FLOAT32 NX_INT64
            NX_UINT64 NX_FLOAT64 NX_COMPLEX128;
        NX_UINT4 -> NX_INT16 NX_UINT16 NX_FLOAT16 NX_BFLOAT16 NX_INT32 NX_UINT32 NX_FLOAT32 NX_INT64
            NX_UINT64 NX_FLOAT64 NX_COMPLEX128;
        NX_FLOAT4_E2M1FN -> NX_INT16 NX_UINT16 NX_FLOAT16 NX_BFLOAT16 NX_INT32 NX_UINT32 NX_FLOAT32
            NX_INT64 NX_UINT64 NX_FLOAT64 NX_COMPLEX128;
    }
    /// bit and bool by masks.
    "masks" needs 0, align false, each_pair {
        fp Fp::DEFAULT; avx512::bits::from_truth;
        NX_BOOL -> NX_FLOAT64 NX_FLOAT16 NX_BFLOAT16 NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN
            NX_INT16 NX_UINT16 NX_INT4 NX_UINT4;
        NX_BIT -> NX_FLOAT64 NX_FLOAT32 NX_FLOAT16 NX_BFLOAT16 NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2
            NX_FLOAT4_E2M1FN NX_UINT64 NX_INT32 NX_UINT32 NX_INT16 NX_UINT16 NX_INT8 NX_UINT8 NX_INT4
            NX_UINT4 NX_COMPLEX128 NX_BOOL;
    }
    "masks.to_bit" needs 0, align false, each_src {
        fp Fp::DEFAULT; avx512::bits::to_bit;
        NX_FLOAT64 NX_FLOAT8_E4M3FN NX_FLOAT8_E5M2 NX_FLOAT4_E2M1FN NX_INT64 NX_UINT64 NX_INT32
            NX_UINT32 NX_BOOL -> NX_BIT;
    }
    /// The integers of 32 and 64 bits as float32 into float8, in bytes.
    "narrow_bytes.ints" needs VBMI, align false, whole {
        fp Fp::DEFAULT;
        NX_INT32 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_INT32 }];
        NX_INT32 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_INT32 }];
        NX_UINT32 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_UINT32 }];
        NX_UINT32 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_UINT32 }];
        NX_INT64 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_INT64 }];
        NX_INT64 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_INT64 }];
        NX_UINT64 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_UINT64 }];
        NX_UINT64 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_UINT64 }];
    }
    /// The floats into float8 in byte lanes (float64 read by its words: no
    /// float instruction), and into float4 and the 4-bit integers by lookup.
    "narrow_bytes" needs VBMI, align false, whole {
        fp Fp::DEFAULT;
        NX_FLOAT32 -> NX_FLOAT4_E2M1FN: lookup::to_e2m1[{ NX_FLOAT32 }];
        NX_FLOAT32 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_FLOAT32 }];
        NX_BFLOAT16 -> NX_FLOAT4_E2M1FN: lookup::to_e2m1[{ NX_BFLOAT16 }];
        NX_FLOAT16 -> NX_FLOAT4_E2M1FN: lookup::to_e2m1[{ NX_FLOAT16 }];
        NX_FLOAT16 -> NX_INT4: lookup::f16_to_4bit[{ NX_INT4 }];
        NX_FLOAT16 -> NX_UINT4: lookup::f16_to_4bit[{ NX_UINT4 }];
        NX_FLOAT64 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_FLOAT64 }];
        NX_FLOAT64 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_FLOAT64 }];
        NX_FLOAT64 -> NX_FLOAT4_E2M1FN: lookup::to_e2m1[{ NX_FLOAT64 }];
    }
    /// float8_e4m3fn into the integers of 32 and 64 bits: its lookups into
    /// int16 and uint16, extended.
    "lookup.ints" needs VBMI, align false, widened_lookups {
        NX_FLOAT8_E4M3FN -> NX_INT16: NX_INT32 NX_INT64;
        NX_FLOAT8_E4M3FN -> NX_UINT16: NX_UINT32 NX_UINT64;
    }
    /// Among the 8- and 4-bit dtypes, and from them into 16 bits, by
    /// lookups of whole vectors.
    "lookup" needs VBMI, align false, lookups {
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57
    }
    /// bfloat16 and float16 -> float8 in byte lanes.
    "narrow_bytes.16" needs VBMI, align false, whole {
        fp Fp::DEFAULT;
        NX_BFLOAT16 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_BFLOAT16 }];
        NX_BFLOAT16 -> NX_FLOAT8_E5M2: avx512::narrow_bytes[E5m2, { NX_BFLOAT16 }];
        NX_FLOAT16 -> NX_FLOAT8_E4M3FN: avx512::narrow_bytes[E4m3, { NX_FLOAT16 }];
    }
    /// float32 -> float8 and float4: two lane groups packed by one
    /// VPACKUSWB a step.
    "to_narrow" needs 0, align false, whole {
        fp fp::<F32In, E4m3Out>();
        NX_FLOAT32 -> NX_FLOAT8_E4M3FN: avx512::to_narrow[E4m3];
        NX_FLOAT32 -> NX_FLOAT8_E5M2: avx512::to_narrow[E5m2];
        NX_FLOAT32 -> NX_FLOAT4_E2M1FN: avx512::to_narrow[E2m1];
    }
    /// The integers and bool among themselves, float64 -> bool and
    /// complex64, complex64 -> float64 (the saturating narrowings VPMOVS*).
    "native" needs 0, align false, native512 {
        [i64, u64, i32, u32, i16, u16, i8, u8, Bool] => [i64, u64, i32, u32, i16, u16, i8, u8, Bool];
        [f64] => [Bool, C64];
        [C64] => [f64];
    }
    /// int8 and uint8 into float16: AVX2's kernel.
    "avx2.lanes.i8_f16" needs 0, align false, lanes<Four> {
        [I8In<true>, I8In<false>] => [F16Out];
    }
    /// float16 and bfloat16 rounded or truncated in their codes (VPSRLVW),
    /// without widening to float32; bool and bit tested in them.
    "lanes.codes16" needs 0, align false, lanes<Codes> {
        [F16In] => [I16Out, U16Out, E4m3Out, E2m1Out];
        [F16In, E4m3In, E5m2In] => [I8Out, U8Out, I4Out, U4Out, BoolOut, BitOut];
        [I4In<true>, I4In<false>, E2m1In] => [F16Out];
    }
    "lanes.bf16codes" needs 0, align false, lanes<Bf16Codes> {
        [Bf16In<false>] =>
            [I16Out, U16Out, I8Out, U8Out, I4Out, U4Out, E4m3Out, E5m2Out, E2m1Out, BoolOut,
             BitOut];
        [I4In<true>, I4In<false>, E2m1In] => [Bf16Out];
    }
    /// The 64-bit integers, which only AVX-512 DQ converts.
    "lanes.int64" needs 0, align false, lanes<Two> {
        [I64Odd<true>, I64Odd<false>] =>
            [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
             U4Out, BoolOut, BitOut];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, C64In, I8In<true>, I8In<false>,
         I4In<true>, I4In<false>, BitIn] => [I64Out<true>, I64Out<false>];
    }
    /// float16 and float8_e5m2 share an exponent: a shift, no float32.
    "lanes.codes16.shift" needs 0, align false, lanes<Codes> {
        [F16In] => [E5m2Out];
        [E5m2In, E4m3In] => [F16Out];
    }
    /// Sources whose values are all bfloat16 values: the top halves.
    "lanes.bf16top" needs 0, align false, lanes<Two> {
        [E4m3In, E5m2In, E2m1In, I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] =>
            [Bf16Top];
    }
    /// The general case: decoded into float32 lanes, encoded from them.
    "lanes" needs 0, align false, lanes<Two> {
        [F32In, F16In, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>, I8In<true>, I8In<false>,
         I4In<true>, I4In<false>, BoolIn, BitIn] =>
            [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out,
             U8Out, I4Out, U4Out, BoolOut, BitOut];
        [Bf16In<true>] => [F32Out];
        [Bf16In<false>] =>
            [F64Out, F16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out,
             BoolOut, BitOut];
        [F64Fold<29>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [F64Fold<47>] => [E4m3Folded];
        [F64Fold<48>] => [E5m2Folded];
        [F64Fold<49>] => [E2m1Folded];
        [F64Fold<40>] => [Bf16Out];
        [F64Odd] => [BoolOut, BitOut];
        [F64Near] => [F32Out];
        [F64Fold<29, true>] => [F16Out, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [F64Fold<47, true>] => [E4m3Folded];
        [F64Fold<48, true>] => [E5m2Folded];
        [F64Fold<49, true>] => [E2m1Folded];
        [F64Fold<40, true>] => [Bf16Out];
        [F64Near<true>] => [F32Out];
        [C128Any] => [BoolOut, BitOut];
        [I32Odd<true>, I32Odd<false>] =>
            [F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I16Out, U16Out, I8Out, U8Out, I4Out,
             U4Out, BoolOut, BitOut];
        [I32Near<true>, I32Near<false>] => [F32Out];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I4In<true>, I4In<false>, BitIn] =>
            [I32Out<true>, I32Out<false>];
        [C64In] =>
            [F32Out, F64Out, F16Out, Bf16Out, E4m3Out, E5m2Out, E2m1Out, I32Out<true>,
             I32Out<false>, I16Out, U16Out, I8Out, U8Out, I4Out, U4Out];
        [C64Any] => [BoolOut, BitOut];
        [F32In, F16In, Bf16In<true>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
         I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn, F64Near, I32Near<true>,
         I32Near<false>] => [C64Out];
        [F32In, F16In, Bf16In<false>, E4m3In, E5m2In, E2m1In, I16In<true>, I16In<false>,
         I8In<true>, I8In<false>, I4In<true>, I4In<false>, BoolIn, BitIn] => [C128Out];
    }
    "lanes.complex" needs 0, align false, parts<Two> {
        NX_COMPLEX128 -> NX_COMPLEX64: F64Near => F32Out;
        NX_COMPLEX64 -> NX_COMPLEX128: F32In => F64Out;
    }
}

/// x86's levels, for `nxdtype kernels`, `docs/kernels.txt` and the tests.
pub const LEVELS: [Level; 2] = [
    Level {
        isa: Isa::Avx2,
        extensions: &[],
        rules: AVX2_RULES,
        otherwise: "scalar",
    },
    Level {
        isa: Isa::Avx512,
        extensions: &[(VBMI, "vbmi"), (BF16, "bf16")],
        rules: AVX512_RULES,
        otherwise: "scalar",
    },
];

/// The table of `isa`'s kernels on a CPU with the extensions `have`.
pub fn build(isa: Isa, have: Features) -> Table {
    let mut t = rules::EMPTY;
    match isa {
        Isa::Avx2 => fill_avx2(&mut t, have),
        Isa::Avx512 => fill_avx512(&mut t, have),
        _ => {}
    }
    t
}

/// This CPU's extensions.
fn extensions() -> Features {
    let mut have = 0;
    if is_x86_feature_detected!("avx512vbmi") {
        have |= VBMI;
    }
    if is_x86_feature_detected!("avx512bf16") {
        have |= BF16;
    }
    have
}

static AVX2: OnceLock<Table> = OnceLock::new();
static AVX512: OnceLock<Table> = OnceLock::new();

/// The kernel for `s -> d` at `isa` (a level the CPU runs), if it has one.
pub fn kernel(isa: Isa, s: Dtype, d: Dtype) -> Option<Entry> {
    let t = match isa {
        Isa::Avx2 => AVX2.get_or_init(|| build(Isa::Avx2, extensions())),
        Isa::Avx512 => AVX512.get_or_init(|| build(Isa::Avx512, extensions())),
        _ => return None,
    };
    *t.get(s.code() as usize)?.get(d.code() as usize)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::rules::{chosen, pairs, subsets};
    use crate::kernels::{scalar, Store};

    /// The tables hold the kernels of the rules the rules' data choose,
    /// on CPUs with every subset of the extensions (`rules::check_tables`).
    #[test]
    fn tables_follow_the_rules() {
        for level in &LEVELS {
            rules::check_tables(level, |have| build(level.isa, have));
        }
    }

    /// No rule shadowed whole, none listing a pair twice, names unique
    /// (`rules::check_rules`).
    #[test]
    fn every_rule_wins_a_pair_and_lists_each_once() {
        for level in &LEVELS {
            rules::check_rules(level);
        }
    }

    /// At both levels every pair of two dtypes has a kernel, whatever the
    /// extensions; a kernel needs only extensions the CPU has.
    #[test]
    fn every_pair_has_one_kernel_within_the_cpus_extensions() {
        for level in &LEVELS {
            for have in subsets(level) {
                let t = build(level.isa, have);
                for (s, d) in pairs().filter(|(s, d)| s != d) {
                    let e = t[s as usize][d as usize];
                    assert!(e.is_some(), "{:?} with {have:#x}: {s} -> {d}", level.isa);
                    let r = chosen(level.rules, have, s, d).map(|r| level.rules[r]);
                    assert!(r.is_some_and(|r| r.needs & !have == 0));
                }
            }
        }
    }

    /// The kernels that those needing AVX512-VBMI or AVX512-BF16 replace
    /// still serve the CPUs without them: every pair whose kernel differs
    /// between the AVX-512 tables with and without the extensions, each
    /// kernel the CPU can run against the scalar reference, nothing written
    /// past the elements, at every length mod 64 up to the end of the
    /// sources: every code of a source of 4, 8 or 16 bits; every float32
    /// top half with low halves around the sticky folds; every float64 top
    /// word with low 48 bits around the folds (complex128: those as real
    /// parts, the imaginary parts rotated); the 32- and 64-bit ones after
    /// three ones, so that the binades' bounds do not fall on a step's
    /// first lane.
    #[test]
    fn kernels_with_and_without_extensions() {
        if !crate::kernels::Isa::Avx512.supported() {
            return;
        }
        let level = &LEVELS[1];
        let cpu = extensions();
        let bytes: Vec<u8> = (0..=u8::MAX).collect();
        let codes16: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let low = [
            0,
            1,
            1 << 39,
            1 << 40,
            1 << 41,
            1 << 44,
            1 << 45,
            1 << 46,
            1 << 47,
            (1 << 48) - 1,
        ];
        let f64s: Vec<u64> = [1f64.to_bits(); 3]
            .into_iter()
            .chain((0..=u16::MAX).flat_map(|c| low.map(|l| (u64::from(c) << 48) | l)))
            .collect();
        let c128s: Vec<u8> = f64s
            .iter()
            .flat_map(|&x| [x, x.rotate_left(17)])
            .flat_map(u64::to_le_bytes)
            .collect();
        let f64s: Vec<u8> = f64s.into_iter().flat_map(u64::to_le_bytes).collect();
        let f32s: Vec<u8> = [1f32.to_bits(); 3]
            .into_iter()
            .chain((0..=u16::MAX).flat_map(|c| {
                [0, 1, 1 << 15, u16::MAX].map(|l| (u32::from(c) << 16) | u32::from(l))
            }))
            .flat_map(u32::to_le_bytes)
            .collect();
        let tables: Vec<(Features, Table)> = subsets(level)
            .into_iter()
            .filter(|h| h & !cpu == 0)
            .map(|h| (h, build(Isa::Avx512, h)))
            .collect();
        let mut checked = 0;
        for (s, d) in pairs().filter(|(s, d)| s != d) {
            let mut ks: Vec<Entry> = Vec::new();
            for (_, t) in &tables {
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
            let src: &[u8] = match sb {
                4 | 8 => &bytes,
                16 => &codes16,
                32 => &f32s,
                64 => &f64s,
                128 => &c128s,
                _ => panic!("{s} -> {d}: no sources of {sb} bits here"),
            };
            let all = src.len() * 8 / sb;
            let mut want = vec![0u8; (all * db).div_ceil(8)];
            scalar::run(dt(s), dt(d), src, &mut want, all);
            assert!(db <= 64, "{s} -> {d}: no destinations of {db} bits here");
            let at = |b: &[u8], i: usize| {
                let (byte, bit) = (i * db / 8, i * db % 8);
                let w = (0..(bit + db).div_ceil(8)).fold(0u128, |w, k| {
                    w | u128::from(b.get(byte + k).copied().unwrap_or(0)) << (8 * k)
                });
                (w >> bit) & (u128::MAX >> (128 - db))
            };
            // Even lengths for a 4-bit destination: the kernels write whole
            // bytes (the driver packs a last odd element).
            for n in (all - 64..=all).filter(|n| db >= 8 || n % 2 == 0) {
                for k in &ks {
                    let mut got = vec![0xA5u8; want.len()];
                    (k.kernel)(src, &mut got, n, 0, Store::Plain);
                    let bad = (0..n).find(|&i| at(&got, i) != at(&want, i));
                    assert_eq!(
                        bad, None,
                        "{s} -> {d} by {}, n {n}: first difference",
                        k.rule
                    );
                    assert!(
                        got[(n * db).div_ceil(8)..].iter().all(|&b| b == 0xA5),
                        "{s} -> {d} by {}, n {n}: a byte past the elements written",
                        k.rule
                    );
                }
            }
            checked += 1;
        }
        // On a CPU with both extensions: the pairs of the rules that need
        // them, less those an extension-free rule above takes.
        if cpu == VBMI | BF16 {
            let conditional = pairs()
                .filter(|&(s, d)| {
                    let r = chosen(level.rules, cpu, s, d);
                    r.is_some_and(|r| level.rules[r].needs != 0)
                })
                .count();
            assert_eq!(checked, conditional);
        }
    }

    /// Writes the listing the old and new tables are compared by (run by
    /// hand: `cargo test --release --lib dump_rules -- --ignored`).
    #[test]
    #[ignore]
    fn dump_rules() {
        let mut out = String::new();
        for (name, level, have) in [
            ("avx2", &LEVELS[0], 0),
            ("avx512", &LEVELS[1], VBMI | BF16),
            ("avx512-novbmi", &LEVELS[1], BF16),
            ("avx512-nobf16", &LEVELS[1], VBMI),
            ("avx512-none", &LEVELS[1], 0),
        ] {
            for (s, d) in pairs() {
                let r = chosen(level.rules, have, s, d).map_or("-", |r| level.rules[r].name);
                out.push_str(&format!("{name} {s} {d} {r}\n"));
            }
        }
        std::fs::write("/tmp/new_table.txt", out).expect("written");
    }
}

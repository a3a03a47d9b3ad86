//! Float -> integer as Rust's `as` converts (truncated toward zero,
//! saturated, NaN 0), in operations every target vectorizes: `as` itself
//! is a conversion a lane on x86 before AVX-512 (LLVM has no vector form of
//! its saturating conversion there), a few times slower than the whole
//! kernel around it. Here the float is clamped into the destination's
//! range first (a NaN made 0), after which the plain truncating conversion
//! (one vector instruction: CVTTPS2DQ, CVTTPD2DQ, FCVTZS) cannot overflow.
//! The one `unsafe` of the portable level, for that conversion.

/// `x as I`, by clamping first (the module doc).
pub(crate) trait Trunc<I> {
    fn trunc(self) -> I;
}

/// `$f -> $i` clamped into [$lo, $hi] (floats of `$f`, integers of `$i`:
/// a build error if not), then, where `$top` is given, the numbers from
/// `$top` up (past `$hi`, which is the largest `$f` below `$i::MAX`)
/// saturated to `$i::MAX`.
macro_rules! trunc {
    ($($f:ty => $i:ty: [$lo:expr, $hi:expr] $(, from $top:expr)?;)*) => {$(
        impl Trunc<$i> for $f {
            #[inline(always)]
            fn trunc(self) -> $i {
                const LO: $f = $lo;
                const HI: $f = $hi;
                const {
                    assert!(LO as i128 >= <$i>::MIN as i128 && HI as i128 <= <$i>::MAX as i128);
                    assert!(LO == LO as i128 as $f && HI == HI as i128 as $f);
                };
                let c = if self.is_nan() { 0.0 } else { self.clamp(LO, HI) };
                // SAFETY: `c` is a number within [LO, HI], integers of `$i`
                // (checked above), so truncating it cannot overflow.
                let t = unsafe { c.to_int_unchecked::<$i>() };
                $(if self >= $top { return <$i>::MAX; })?
                t
            }
        }
    )*};
}

trunc! {
    f32 => i32: [-2147483648.0, 2147483520.0], from 2147483648.0;
    f32 => u32: [0.0, 4294967040.0], from 4294967296.0;
    f32 => i16: [-32768.0, 32767.0];
    f32 => u16: [0.0, 65535.0];
    f32 => i8: [-128.0, 127.0];
    f32 => u8: [0.0, 255.0];
    f64 => i32: [-2147483648.0, 2147483647.0];
    f64 => u32: [0.0, 4294967295.0];
    f64 => i16: [-32768.0, 32767.0];
    f64 => u16: [0.0, 65535.0];
    f64 => i8: [-128.0, 127.0];
    f64 => u8: [0.0, 255.0];
}

//! Float formats as data: one descriptor per format, from which every fact
//! (epsilon, least normal, largest finite, the bit layout of specials) is
//! derived. The rounding routine in `store.rs` reads only this descriptor.

/// How a format spends its top exponent field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: exponent all ones is infinity (fraction 0) or NaN (fraction
    /// non-zero, quiet iff the fraction's top bit is set).
    Ieee,
    /// "FN" formats with one NaN per sign (S.1111.111) and no infinity:
    /// the top exponent holds finite values except for the all-ones pattern.
    FnNan,
    /// "FN" formats with neither NaN nor infinity: every pattern is finite.
    Finite,
}

/// A binary floating-point format: sign, `exponent_bits`, `fraction_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub exponent_bits: u32,
    pub fraction_bits: u32,
    pub bias: i32,
    pub specials: Specials,
}

pub const F64: Format = Format::new(11, 52, 1023, Specials::Ieee);
pub const F32: Format = Format::new(8, 23, 127, Specials::Ieee);
pub const F16: Format = Format::new(5, 10, 15, Specials::Ieee);
pub const BF16: Format = Format::new(8, 7, 127, Specials::Ieee);
pub const E4M3FN: Format = Format::new(4, 3, 7, Specials::FnNan);
pub const E5M2: Format = Format::new(5, 2, 15, Specials::Ieee);
pub const E2M1FN: Format = Format::new(2, 1, 1, Specials::Finite);

/// `2^k` as a double, built from bits so it is exact and usable in `const`.
/// Valid for the normal range -1022 ..= 1023, which covers every fact here.
pub const fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

impl Format {
    pub const fn new(
        exponent_bits: u32,
        fraction_bits: u32,
        bias: i32,
        specials: Specials,
    ) -> Self {
        Format {
            exponent_bits,
            fraction_bits,
            bias,
            specials,
        }
    }

    /// Width of one element in bits.
    pub const fn bits(&self) -> u32 {
        1 + self.exponent_bits + self.fraction_bits
    }

    pub const fn sign_mask(&self) -> u64 {
        1 << (self.exponent_bits + self.fraction_bits)
    }

    /// All bits but the sign.
    pub const fn magnitude_mask(&self) -> u64 {
        self.sign_mask() - 1
    }

    pub const fn fraction_mask(&self) -> u64 {
        (1 << self.fraction_bits) - 1
    }

    /// The top exponent field value, all ones.
    pub const fn exponent_all_ones(&self) -> u64 {
        (1 << self.exponent_bits) - 1
    }

    /// Least exponent of a normal value (the exponent of subnormals too).
    pub const fn emin(&self) -> i32 {
        1 - self.bias
    }

    pub const fn has_infinity(&self) -> bool {
        matches!(self.specials, Specials::Ieee)
    }

    pub const fn has_nan(&self) -> bool {
        !matches!(self.specials, Specials::Finite)
    }

    /// Bits (sign clear) of the largest finite value.
    pub const fn max_finite_bits(&self) -> u64 {
        let top = self.exponent_all_ones() << self.fraction_bits;
        match self.specials {
            Specials::Ieee => top - 1,
            Specials::FnNan => top | (self.fraction_mask() - 1),
            Specials::Finite => top | self.fraction_mask(),
        }
    }

    /// Bits (sign clear) of infinity, in formats that have one.
    pub const fn infinity_bits(&self) -> u64 {
        self.exponent_all_ones() << self.fraction_bits
    }

    /// The exponent of the largest finite value.
    pub const fn emax(&self) -> i32 {
        (self.max_finite_bits() >> self.fraction_bits) as i32 - self.bias
    }

    /// Whether `bits` (sign included) encodes a NaN.
    pub const fn is_nan(&self, bits: u64) -> bool {
        let mag = bits & self.magnitude_mask();
        match self.specials {
            Specials::Ieee => mag > self.infinity_bits(),
            Specials::FnNan => mag == self.magnitude_mask(),
            Specials::Finite => false,
        }
    }

    /// Whether `bits` (sign included) encodes an infinity.
    pub const fn is_infinite(&self, bits: u64) -> bool {
        self.has_infinity() && bits & self.magnitude_mask() == self.infinity_bits()
    }

    /// 2^-fraction_bits, the gap between 1 and the next value.
    pub const fn epsilon(&self) -> f64 {
        pow2(-(self.fraction_bits as i32))
    }

    pub const fn min_normal(&self) -> f64 {
        pow2(self.emin())
    }

    /// (2 - 2^-f') * 2^emax, where f' counts the fraction bits in use at the
    /// top exponent (one fewer value in FnNan formats).
    pub const fn max_finite(&self) -> f64 {
        let frac = self.max_finite_bits() & self.fraction_mask();
        // 1.frac * 2^emax = (2^f + frac) * 2^(emax - f), exact in f64.
        let sig = ((1u64 << self.fraction_bits) + frac) as f64;
        sig * pow2(self.emax() - self.fraction_bits as i32)
    }
}

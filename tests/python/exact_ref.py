"""An exact-rational reference for stores into float formats, written from
the Stores rule of ocaml/nx_array.mli with Python's fractions (nothing from the library).

A format is (exponent_bits, fraction_bits, bias, specials) with specials one
of "ieee", "fn_nan" (one NaN per sign, no infinity) or "finite"."""
from fractions import Fraction
import math
import struct

FORMATS = {
    "float64": (11, 52, 1023, "ieee"),
    "float32": (8, 23, 127, "ieee"),
    "float16": (5, 10, 15, "ieee"),
    "bfloat16": (8, 7, 127, "ieee"),
    "float8_e4m3fn": (4, 3, 7, "fn_nan"),
    "float8_e5m2": (5, 2, 15, "ieee"),
    "float4_e2m1fn": (2, 1, 1, "finite"),
}


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def value_of(fmt, bits):
    """The Fraction (or 'inf'/'nan' string) of element `bits` of `fmt`."""
    e, f, bias, sp = FORMATS[fmt]
    sign = -1 if bits >> (e + f) & 1 else 1
    ef = bits >> f & ((1 << e) - 1)
    fr = bits & ((1 << f) - 1)
    top = (1 << e) - 1
    if sp == "ieee" and ef == top:
        return ("-inf" if sign < 0 else "inf") if fr == 0 else "nan"
    if sp == "fn_nan" and ef == top and fr == (1 << f) - 1:
        return "nan"
    if ef == 0:
        return sign * Fraction(fr, 1 << f) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(fr, 1 << f)) * Fraction(2) ** (ef - bias)


def max_finite_bits(fmt):
    e, f, bias, sp = FORMATS[fmt]
    top = (1 << e) - 1
    if sp == "ieee":
        return ((top - 1) << f) | ((1 << f) - 1)
    if sp == "fn_nan":
        return (top << f) | ((1 << f) - 2)
    return (top << f) | ((1 << f) - 1)


def store(fmt, x):
    """Bits of a store of float x into `fmt`: round once to nearest, ties to
    even, exponent unbounded above, then infinity or saturation. NaN: the
    quiet NaN of x's sign with the top payload bits (ieee), S.1111.111
    (fn_nan), or +0 (finite)."""
    e, f, bias, sp = FORMATS[fmt]
    sign_bit = 1 << (e + f)
    xb = f64_bits(x)
    neg = xb >> 63 == 1
    s = sign_bit if neg else 0
    top = (1 << e) - 1
    if math.isnan(x):
        if sp == "ieee":
            payload = xb & ((1 << 51) - 1)
            return s | (top << f) | (1 << (f - 1)) | (payload >> (52 - f))
        if sp == "fn_nan":
            return s | (sign_bit - 1)
        return 0
    mx = max_finite_bits(fmt)
    over = s | ((top << f) if sp == "ieee" else mx)
    if math.isinf(x):
        return over
    a = abs(Fraction(x))
    if a == 0:
        return s
    emin = 1 - bias
    # Exponent of a's leading bit, then the quantum at that exponent.
    E = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** E > a:
        E -= 1
    q = Fraction(2) ** (max(E, emin) - f)
    k, r = divmod(a, q)  # a = k*q + r, 0 <= r < q
    k = int(k)
    if r * 2 > q or (r * 2 == q and k % 2 == 1):
        k += 1
    mag = ((max(E, emin) - emin) << f) + k
    if mag > mx:
        return over
    return s | mag

"""The dtypes' facts, from the library: dtypes(), exact(), finfo(), iinfo().

finfo and iinfo have the attributes numpy's have. Their values come from
the library's float format and its elements (the least subnormal is the
element of bits 1, epsneg is 1 minus the element below 1.0); the exponents
are those of these exact values."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ._binding import BY_NAME, DTYPES, Dtype, fail, ffi, lib, resolve
from ._scalar import load, store


def dtypes() -> tuple[str, ...]:
    """The names of the library's 21 dtypes, in code order."""
    return tuple(d.name for d in DTYPES)


def exact(a: Any, b: Any) -> bool:
    """Whether every value of dtype `a` is a value of dtype `b`, so that a
    conversion from a to b never rounds, saturates or loses a sign."""
    return lib.nxpy_dtype_exact(resolve(a, "exact: a").code, resolve(b, "exact: b").code) == 1


def _float_of(d: Dtype) -> Dtype:
    """The float dtype finfo describes for `d`: itself, or a complex dtype's
    component (as numpy's finfo does)."""
    if d.kind == lib.NX_KIND_FLOAT:
        return d
    if d.kind == lib.NX_KIND_COMPLEX:
        return BY_NAME["float64" if d.bits == 128 else "float32"]
    raise TypeError(f"finfo: dtype: {d.name} is not a float or complex dtype (iinfo describes integers)")


class finfo:
    """Facts of a float dtype's format (or a complex dtype's components),
    shaped like numpy.finfo. Values are scalars of the format's numpy or
    ml_dtypes type; exponents and counts are ints."""

    name: str
    dtype: np.dtype
    bits: int
    eps: Any
    epsneg: Any
    max: Any
    min: Any
    tiny: Any
    smallest_normal: Any
    smallest_subnormal: Any
    resolution: Any
    nmant: int
    nexp: int
    iexp: int
    machep: int
    negep: int
    minexp: int
    maxexp: int
    precision: int
    has_infinity: bool
    has_nan: bool

    def __init__(self, dtype: Any) -> None:
        d = _float_of(resolve(dtype, "finfo: dtype"))
        f = ffi.new("nx_float_format *")
        st = lib.nxpy_dtype_float_format(d.code, f)
        if st:
            fail(st, "finfo")
        one = store(1.0, d)
        below_one = load((int.from_bytes(one, "little") - 1).to_bytes(len(one), "little"), d)
        subnormal = load((1).to_bytes(len(one), "little"), d)

        def value(x: float) -> Any:
            return np.frombuffer(store(x, d), d.numpy)[0]

        self.name = d.name
        self.dtype = d.numpy
        self.bits = d.bits
        self.nmant = f.fraction_bits
        self.nexp = self.iexp = f.exponent_bits
        self.has_infinity = bool(f.infinities)
        self.has_nan = bool(f.nans)
        self.eps = value(f.epsilon)
        self.epsneg = value(1.0 - below_one)
        self.max = value(f.max_finite)
        self.min = value(-f.max_finite)
        self.tiny = self.smallest_normal = value(f.min_normal)
        self.smallest_subnormal = value(subnormal)
        self.machep = _exponent(f.epsilon)
        self.negep = _exponent(1.0 - below_one)
        self.minexp = _exponent(f.min_normal)
        # The least power of two past the largest finite value.
        self.maxexp = math.frexp(f.max_finite)[1]
        # numpy's: the decimal digits eps resolves, and 10**-precision in the format.
        self.precision = int(-math.log10(f.epsilon))
        self.resolution = value(10.0**-self.precision)

    def __repr__(self) -> str:
        return (f"nx_dtype.finfo({self.name}: bits={self.bits}, eps={self.eps}, max={self.max}, "
                f"smallest_normal={self.smallest_normal}, smallest_subnormal={self.smallest_subnormal})")


def _exponent(power_of_two: float) -> int:
    """e for the exact power of two 2**e."""
    m, e = math.frexp(power_of_two)
    if m != 0.5:
        raise ValueError(f"{power_of_two} is not a power of two")
    return e - 1


class iinfo:
    """Facts of an integer dtype, shaped like numpy.iinfo: bits, min, max
    (ints), kind ("i" or "u") and dtype (numpy's or ml_dtypes')."""

    name: str
    dtype: np.dtype
    bits: int
    kind: str
    min: int
    max: int

    def __init__(self, dtype: Any) -> None:
        d = resolve(dtype, "iinfo: dtype")
        if d.kind not in (lib.NX_KIND_SIGNED, lib.NX_KIND_UNSIGNED):
            raise TypeError(f"iinfo: dtype: {d.name} is not an integer dtype (finfo describes floats)")
        self.name = d.name
        self.dtype = d.numpy
        self.bits = d.bits
        self.kind = "i" if d.kind == lib.NX_KIND_SIGNED else "u"
        self.min = _extreme(d, lib.nxpy_dtype_min_value)
        self.max = _extreme(d, lib.nxpy_dtype_max_value)

    def __repr__(self) -> str:
        return f"nx_dtype.iinfo({self.name}: bits={self.bits}, min={self.min}, max={self.max})"


def _extreme(d: Dtype, fn: Any) -> Optional[int]:
    elem = ffi.new("unsigned char[]", (d.bits + 7) // 8)
    st = fn(d.code, elem)
    if st:
        fail(st, "iinfo")
    value = load(ffi.buffer(elem)[:], d)
    assert isinstance(value, int)
    return value

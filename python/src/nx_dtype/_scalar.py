"""Single values: store, load and format_value. A Python number goes to the
library as an element of the dtype that holds it exactly (float64,
complex128, int64, uint64 or bool, or a numpy scalar's own dtype), and the
library converts that element: every rule is the library's."""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from ._binding import SOURCES, Dtype, fail, ffi, lib, message, resolve, type_name

Number = Union[bool, int, float, complex, np.generic]

_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)


def _exact_array(x: Any, func: str) -> np.ndarray:
    """x as a 0-d array of a dtype that holds it exactly."""
    if isinstance(x, np.generic):
        if x.dtype not in SOURCES:
            raise TypeError(f"{func}: x: numpy {x.dtype} is not one of nx_dtype's dtypes")
        return np.asarray(x)
    if isinstance(x, bool):
        return np.asarray(x, np.bool_)
    if isinstance(x, int):
        if -(1 << 63) <= x < (1 << 63):
            return np.asarray(x, np.int64)
        if 0 <= x < (1 << 64):
            return np.asarray(x, np.uint64)
        raise ValueError(f"{func}: x: {x} is outside int64 and uint64, the integers the library reads exactly")
    if isinstance(x, float):
        return np.asarray(x, np.float64)
    if isinstance(x, complex):
        return np.asarray(x, np.complex128)
    raise TypeError(f"{func}: x: expected a number, got {type_name(x)}")


def _element(d: Dtype) -> Any:
    """A zeroed buffer for one element of `d` (the C ABI's size)."""
    return ffi.new("unsigned char[]", (d.bits + 7) // 8)


def _convert_one(src: np.ndarray, d: Dtype, func: str) -> Any:
    s = SOURCES[src.dtype]
    elem = _element(d)
    st = lib.nxpy_convert(s.code, ffi.from_buffer(src), d.code, elem, 1)
    if st:
        fail(st, func)
    return elem


def store(x: Number, dtype: Any) -> bytes:
    """The bytes of one element of `dtype` holding x, as the library stores
    it (rounded once, ties to even; saturating or infinite past the range,
    as the dtype's rules say). A 4-bit or bit element sits in the low bits
    of its byte, the other bits clear."""
    d = resolve(dtype, "store: dtype")
    return bytes(_convert_one(_exact_array(x, "store"), d, "store"))


def _load_as(elem: Any, d: Dtype, target: np.dtype) -> Any:
    out = np.zeros((), target)
    st = lib.nxpy_convert(d.code, elem, SOURCES[target].code, ffi.from_buffer(out), 1)
    if st:
        fail(st, "load")
    return out[()]


def load(b: Union[bytes, bytearray, memoryview], dtype: Any) -> Union[float, complex, int, bool]:
    """The value one element of `dtype` (its bytes `b`) holds: a float for
    the float dtypes, complex, int (unsigned ones unsigned) or bool."""
    d = resolve(dtype, "load: dtype")
    try:
        raw = bytes(b)
    except TypeError:
        raise TypeError(f"load: b: expected bytes, got {type_name(b)}") from None
    size = (d.bits + 7) // 8
    if len(raw) != size:
        raise ValueError(f"load: b: {len(raw)} bytes, but an element of {d.name} takes {size}")
    elem = ffi.new("unsigned char[]", raw)
    if d.kind == lib.NX_KIND_FLOAT:
        out = ffi.new("double *")
        st = lib.nxpy_load_f64(d.code, elem, out)
        if st:
            fail(st, "load")
        return float(out[0])
    if d.kind == lib.NX_KIND_COMPLEX:
        return complex(_load_as(elem, d, np.dtype(np.complex128)))
    if d.kind == lib.NX_KIND_SIGNED:
        return int(_load_as(elem, d, _INT64))
    if d.kind == lib.NX_KIND_UNSIGNED:
        return int(_load_as(elem, d, _UINT64))
    return bool(_load_as(elem, d, np.dtype(np.bool_)))


def _text(n: int, buf: Any, func: str) -> str:
    if n < 0:
        fail(n, func)
    return ffi.string(buf, n).decode()


def format_value(x: Number, dtype: Any) -> str:
    """The library's text (pp_value) of x as a value of `dtype`: "0.1" for
    float16 0.1's value 0.0999755859375, "450" for float8_e4m3fn's 448.
    x must be a value of the dtype, not rounded to one: format_value(0.1,
    "float32") raises ValueError (store x first to round it)."""
    d = resolve(dtype, "format_value: dtype")
    buf = ffi.new("char[]", lib.NX_FORMAT_MAX)
    src = _exact_array(x, "format_value")
    kind = SOURCES[src.dtype].kind
    if kind == lib.NX_KIND_COMPLEX and d.kind != lib.NX_KIND_COMPLEX:
        raise ValueError(f"format_value: x: {x!r} is complex, not a value of {d.name}")
    if d.kind in (lib.NX_KIND_FLOAT, lib.NX_KIND_COMPLEX):
        z = src[()]
        values = [float(z.real), float(z.imag)] if kind == lib.NX_KIND_COMPLEX else [_float_exactly(z, kind)]
        if values[0] is None:
            raise ValueError(f"format_value: x: {x!r} is not a value of {d.name}")
        # The library decides what is a value of the format.
        for v in values:
            if lib.nxpy_is_value_f64(d.code, v) != 1:
                raise ValueError(f"format_value: x: {x!r} is not a value of {d.name}: "
                                 f"{message(lib.NX_ERR_NOT_VALUE)}")
        if d.kind == lib.NX_KIND_FLOAT:
            return _text(lib.nxpy_format_f64(d.code, values[0], buf, len(buf)), buf, "format_value")
    elif kind not in (lib.NX_KIND_SIGNED, lib.NX_KIND_UNSIGNED, lib.NX_KIND_BOOLEAN) or load(store(x, d), d) != x:
        # An integer or boolean is a value iff it comes back unchanged.
        raise ValueError(f"format_value: x: {x!r} is not a value of {d.name}")
    elem = _convert_one(src, d, "format_value")
    return _text(lib.nxpy_format(d.code, elem, buf, len(buf)), buf, "format_value")


def _float_exactly(v: Any, kind: int) -> Any:
    """The float64 equal to v (a numpy or ml_dtypes scalar of `kind`), or
    None if there is none (an integer past 2**53 between two doubles)."""
    if kind == lib.NX_KIND_FLOAT:
        return float(v)  # every float dtype here is exact in float64
    i = int(v)
    return float(i) if float(i) == i else None

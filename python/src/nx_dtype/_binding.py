"""The library inside the package, its dtypes, and how their names, numpy's
dtypes and ml_dtypes' types map to them.

The dtypes' facts (names, bits, kinds) are the library's own: it is asked
for them once, at import. What this file adds is the table of the numpy or
ml_dtypes dtype that holds each, and the resolution of a `dtype` argument."""

from __future__ import annotations

import os
import sysconfig
from typing import Any, NamedTuple, NoReturn, Optional

import ml_dtypes
import numpy as np

from ._ffi import ffi, lib

LIB_PATH = os.path.join(os.path.dirname(__file__), "_libnx_dtype" + sysconfig.get_config_var("EXT_SUFFIX"))


def _open() -> None:
    err = ffi.new("char[]", 512)
    if lib.nxpy_open(LIB_PATH.encode(), err, len(err)) != 0:
        raise ImportError(f"nx_dtype: {ffi.string(err).decode()}")


_open()


class Dtype(NamedTuple):
    """One of the library's dtypes, and the numpy dtype that holds it."""

    code: int
    name: str
    bits: int
    kind: int
    # numpy's or ml_dtypes' dtype for it; None for bit, which neither has.
    numpy: Optional[np.dtype]
    # numpy keeps int4, uint4 and float4_e2m1fn one element a byte (in the
    # low nibble), where the C ABI packs two a byte.
    nibbles: bool
    # Bytes an element takes in a numpy array (1 for the 4-bit dtypes).
    itemsize: int


# The numpy or ml_dtypes type holding each dtype, by the library's names.
_NUMPY_TYPES = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2, "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "int64": np.int64, "uint64": np.uint64, "int32": np.int32, "uint32": np.uint32,
    "int16": np.int16, "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8,
    "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4,
    "complex128": np.complex128, "complex64": np.complex64, "bool": np.bool_,
}


def _make_dtypes() -> tuple[Dtype, ...]:
    out = []
    for code in range(lib.NX_DTYPE_COUNT):
        name = ffi.string(lib.nxpy_dtype_name(code)).decode()
        bits = lib.nxpy_dtype_bits(code)
        t = _NUMPY_TYPES.get(name)
        npdt = None if t is None else np.dtype(t)
        nibbles = bits == 4
        if npdt is not None and npdt.itemsize * 8 != bits and not (nibbles and npdt.itemsize == 1):
            raise ImportError(f"nx_dtype: {npdt} does not hold {name} ({bits} bits)")
        itemsize = npdt.itemsize if npdt is not None else 0
        out.append(Dtype(code, name, bits, lib.nxpy_dtype_kind(code), npdt, nibbles, itemsize))
    return tuple(out)


DTYPES = _make_dtypes()
BY_NAME = {d.name: d for d in DTYPES}

# Source arrays: numpy dtype -> Dtype. numpy's other spellings of the same
# native types ('q' and 'l', 'i' and 'intc', ...) are listed too.
SOURCES: dict[np.dtype, Dtype] = {}
for _d in DTYPES:
    if _d.numpy is not None:
        SOURCES[_d.numpy] = _d
for _c in np.typecodes["AllInteger"] + np.typecodes["AllFloat"] + "?":
    _t = np.dtype(_c)
    for _d in DTYPES:
        _n = _d.numpy
        if _n is not None and _n.kind == _t.kind and _n.itemsize == _t.itemsize and _t.isnative:
            SOURCES.setdefault(_t, _d)

# `dtype` arguments: names, numpy dtypes and the types numpy and ml_dtypes
# name them by (np.float32, ml_dtypes.bfloat16, float, ...).
TARGETS: dict[Any, Dtype] = dict(BY_NAME)
for _t, _d in SOURCES.items():
    TARGETS.setdefault(_t, _d)
    TARGETS.setdefault(_t.type, _d)
for _t, _d in ((float, BY_NAME["float64"]), (complex, BY_NAME["complex128"]), (bool, BY_NAME["bool"]),
               (int, SOURCES[np.dtype(int)])):
    TARGETS[_t] = _d
del _c, _d, _n, _t


def message(status: int) -> str:
    """The library's sentence for a status."""
    return ffi.string(lib.nxpy_status_message(status)).decode()


def fail(status: int, where: str) -> NoReturn:
    """Raises ValueError for a failed library call: where it failed (the
    function and argument) and the library's message."""
    raise ValueError(f"{where}: {message(status)}")


def type_name(x: Any) -> str:
    return type(x).__name__


def resolve(dtype: Any, arg: str = "dtype") -> Dtype:
    """The Dtype a `dtype` argument names: one of the library's names, a
    numpy dtype, or anything np.dtype() takes for one (np.float32,
    ml_dtypes.bfloat16, "f4", float)."""
    try:
        return TARGETS[dtype]
    except (KeyError, TypeError):
        pass
    if isinstance(dtype, Dtype):
        return dtype
    try:
        npdt = np.dtype(dtype)
    except (TypeError, ValueError):
        names = ", ".join(BY_NAME)
        raise TypeError(f"{arg}: {dtype!r} names no dtype of nx_dtype (its names: {names})") from None
    return numpy_dtype(npdt, arg)


def numpy_dtype(npdt: np.dtype, arg: str) -> Dtype:
    """The Dtype a numpy dtype holds, or a TypeError naming `arg`."""
    d = SOURCES.get(npdt)
    if d is not None:
        return d
    if not npdt.isnative and SOURCES.get(npdt.newbyteorder("=")) is not None:
        raise TypeError(
            f"{arg}: dtype {npdt.str} is byte-swapped; nx_dtype reads native (little-endian) elements only: "
            f"convert with .astype({npdt.newbyteorder('=').str!r}) first"
        )
    raise TypeError(f"{arg}: numpy dtype {npdt} is not one of nx_dtype's dtypes")

"""Arrays: astype, Packed and format. Every element is converted or printed
by the library; this file only describes the arrays' memory to it."""

from __future__ import annotations

import builtins
import os
from typing import Any, Optional, Sequence, Union

import numpy as np

from ._binding import BY_NAME, SOURCES, TARGETS, Dtype, fail, lib, ffi, message, numpy_dtype, resolve, type_name

# Default threads: one below this much work (bytes read + written), every
# core the process may run on above it.
PARALLEL_BYTES = 1 << 20
MAX_THREADS = lib.NXPY_MAX_THREADS


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


CPUS = _cpus()


def _flat_code(d: Dtype, nibbles: bool) -> int:
    """d's code for nxpy_run_flat, flagged when the side is in ml_dtypes' 4-bit layout."""
    return d.code | (lib.NXPY_NIBBLES if nibbles else 0)


# astype's common call by (id(a.dtype), dtype argument): the two codes for
# nxpy_run_flat, the result's numpy dtype and the bytes an element moves.
# By id: hashing a numpy dtype costs more than the rest of the lookup, and
# the arrays of a dtype share its object (SOURCES keeps these alive). An
# equal dtype that is another object takes the general path.
_FAST = {(id(sn), key): (_flat_code(s, s.nibbles), _flat_code(d, d.nibbles), d.numpy, s.itemsize + d.itemsize)
         for sn, s in SOURCES.items() for key, d in TARGETS.items() if d.numpy is not None}
_ndarray = np.ndarray
_empty = np.empty
_from_buffer = ffi.from_buffer
_run_flat = lib.nxpy_run_flat


class Packed:
    """Elements of one dtype in the C ABI's packed layout, held in a uint8
    array: element i takes bits [i*bits, (i+1)*bits) of the buffer, counted
    from bit 0 of byte 0, low bits first. For the 4-bit dtypes that is two
    elements a byte, the first in the low nibble; for bit, eight a byte, the
    first in bit 0. For the dtypes of a byte or more it is numpy's layout.

    `shape` (default: as many elements as the bytes hold) gives the
    elements' shape, in C order; `data` must hold exactly
    ceil(count * bits / 8) bytes. astype(Packed(...), dtype) reads it;
    astype(a, dtype, packed=True) writes it."""

    __slots__ = ("data", "dtype", "shape")

    def __init__(self, data: Any, dtype: Any, shape: Optional[Union[int, Sequence[int]]] = None) -> None:
        d = resolve(dtype)
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = np.frombuffer(data, np.uint8)
        if not isinstance(data, _ndarray) or data.dtype != np.uint8:
            raise TypeError(f"Packed: data: expected a uint8 numpy array or bytes, got {_describe(data)}")
        if not data.flags.c_contiguous:
            raise ValueError("Packed: data: must be C-contiguous")
        data = data.reshape(-1)
        if shape is None:
            shape = (data.size * 8 // d.bits,)
        shape = _shape(shape, "Packed: shape")
        need = _nbytes(d, _count(shape))
        if need != data.size:
            raise ValueError(f"Packed: data: {data.size} bytes, but {_count(shape)} elements of {d.name} "
                             f"packed take {need}")
        self.data: np.ndarray = data
        self.dtype: str = d.name
        self.shape: tuple[int, ...] = shape

    def __repr__(self) -> str:
        return f"Packed(<{self.data.size} bytes>, {self.dtype!r}, shape={self.shape})"


def astype(a: Union[np.ndarray, Packed], dtype: Any, *, out: Optional[np.ndarray] = None,
           threads: Optional[int] = None, packed: bool = False) -> np.ndarray:
    """`a`'s elements converted to `dtype`, each rounded once from its exact
    value (see the package's README for the rules).

    a: a numpy array of one of the library's dtypes (numpy's, or ml_dtypes'
       bfloat16, float8_e4m3fn, float8_e5m2, float4_e2m1fn, int4, uint4),
       of any shape and strides; or a Packed.
    dtype: a name ("float8_e4m3fn"), a numpy dtype, or a type numpy takes
       for one (np.float16, ml_dtypes.bfloat16).
    out: an array to write into (the result's dtype and a's shape; with
       packed=True, a C-contiguous uint8 array of the packed size). It is
       left untouched on any error.
    threads: how many threads convert (default: one below about 1 MiB of
       work, every core above). The bytes are the same for every count.
    packed: return the elements in the C ABI's packed layout (see Packed)
       as a flat uint8 array, in a's C order; `bit` needs it.

    Returns a numpy array of numpy's or ml_dtypes' dtype for `dtype`, of
    a's shape (with packed=True, the uint8 array)."""
    # The common call, a C-contiguous array into a new one: one lookup.
    if out is None and packed is False and type(a) is _ndarray and a.flags.c_contiguous:
        try:
            src, dst, result_dtype, width = _FAST[id(a.dtype), dtype]
        except (KeyError, TypeError):
            pass
        else:
            n = a.size
            if threads is None:
                threads = 1 if n * width < PARALLEL_BYTES else CPUS
            elif type(threads) is not int or threads < 1:
                return _astype(a, dtype, out, threads, packed)  # raises, naming it
            r = _empty(a.shape, result_dtype)
            st = _run_flat(src, _from_buffer(a), dst, _from_buffer(r), n, threads)
            if st:
                fail(st, "astype")
            return r
    return _astype(a, dtype, out, threads, packed)


def _astype(a: Any, dtype: Any, out: Optional[np.ndarray], threads: Any, packed: Any) -> np.ndarray:
    """astype's every other call: arguments checked, then one job."""
    if type(packed) is not bool:
        raise TypeError(f"astype: packed: expected True or False, got {_describe(packed)}")
    d = resolve(dtype)
    if isinstance(a, Packed):
        s, shape = BY_NAME[a.dtype], a.shape
    elif isinstance(a, _ndarray):
        s, shape = numpy_dtype(a.dtype, "astype: a"), a.shape
    else:
        raise TypeError(f"astype: a: expected a numpy array or nx_dtype.Packed, got {_describe(a)}")
    if d.numpy is None and not packed:
        raise ValueError(f"astype: dtype: {d.name} has no numpy dtype; pass packed=True for its packed bytes")
    n = _count(shape)
    if threads is not None:
        if type(threads) is not int:
            raise TypeError(f"astype: threads: expected an int or None, got {_describe(threads)}")
        if threads < 1:
            raise ValueError(f"astype: threads: must be at least 1, got {threads}")
    source = a.data if isinstance(a, Packed) else a

    if packed:
        nbytes = _nbytes(d, n)
        if out is None:
            # Zeroed: bits past the last element are then zero too.
            result = np.zeros(nbytes, np.uint8)
        else:
            _check_out(out, source)
            if out.dtype != np.uint8 or not out.flags.c_contiguous or out.size != nbytes:
                raise ValueError(f"astype: out: expected a C-contiguous uint8 array of {nbytes} bytes for "
                                 f"{n} packed {d.name}, got {out.dtype} of {out.size} elements")
            result = out
    else:
        if out is None:
            fortran = isinstance(a, _ndarray) and a.flags.f_contiguous and not a.flags.c_contiguous
            result = np.empty(shape, d.numpy, order="F" if fortran else "C")
        else:
            _check_out(out, source)
            if out.dtype != d.numpy:
                raise TypeError(f"astype: out: dtype {out.dtype} is not {d.name}'s ({d.numpy})")
            if out.shape != shape:
                raise ValueError(f"astype: out: shape {out.shape} is not a's {shape}")
            if any(s_ == 0 and n_ > 1 for s_, n_ in zip(out.strides, out.shape)):
                raise ValueError("astype: out: elements overlap (a zero stride)")
            result = out
    if n == 0:
        return result

    if threads is None:
        threads = CPUS if source.nbytes + result.nbytes >= PARALLEL_BYTES else 1
    threads = min(threads, MAX_THREADS)
    src_nibbles = s.nibbles and not isinstance(a, Packed)
    dst_nibbles = d.nibbles and not packed

    # Both sides in one memory order (C, or Fortran for two numpy arrays):
    # one flat run.
    src_c = isinstance(a, Packed) or source.flags.c_contiguous
    dst_c = packed or result.flags.c_contiguous
    if (src_c and dst_c) or (not packed and not isinstance(a, Packed)
                             and source.flags.f_contiguous and result.flags.f_contiguous):
        st = _run_flat(_flat_code(s, src_nibbles), _pointer(source), _flat_code(d, dst_nibbles), _pointer(result), n,
                       threads)
        if st:
            fail(st, "astype")
        return result

    job = ffi.new("nxpy_job *")
    src_strides = _side(job.src, s, source, shape, isinstance(a, Packed))
    if src_strides is None:
        # Strides numpy allows and the C ABI cannot count in elements (not
        # a multiple of the element size): numpy copies the bytes first.
        source = np.ascontiguousarray(source)
        src_strides = _side(job.src, s, source, shape, False)
    dst_strides = _side(job.dst, d, result, shape, packed)
    if dst_strides is None:
        raise ValueError("astype: out: strides are not a multiple of the element size")
    dims = _collapse(shape, src_strides, dst_strides)
    job.ndim = len(dims)
    for k, (extent, ss, ds) in enumerate(dims):
        job.shape[k] = extent
        job.src.strides[k] = ss
        job.dst.strides[k] = ds
    st = lib.nxpy_run(job, threads)
    if st:
        fail(st, "astype")
    return result


def _pointer(arr: np.ndarray) -> Any:
    """The address of a contiguous array's first byte, for the library."""
    if arr.flags.c_contiguous:
        return _from_buffer(arr)
    return ffi.cast("void *", arr.__array_interface__["data"][0])


def _check_out(out: Any, source: np.ndarray) -> None:
    if not isinstance(out, _ndarray):
        raise TypeError(f"astype: out: expected a numpy array, got {_describe(out)}")
    if not out.flags.writeable:
        raise ValueError("astype: out: is read-only")
    if np.may_share_memory(out, source):
        raise ValueError(f"astype: out: overlaps a: {message(lib.NX_ERR_OVERLAP)}")


def _side(side: Any, d: Dtype, arr: np.ndarray, shape: tuple[int, ...], flat: bool) -> Optional[list[int]]:
    """Fills `side` for `arr` holding elements of `d` with `shape`: flat (the
    C ABI's packed layout, in C order) or numpy's own layout. Returns the
    strides in the side's units, or None when numpy's strides are not a
    whole number of elements."""
    side.dt = d.code
    ptr = arr.__array_interface__["data"][0]
    if flat:
        side.nibbles = 0
        side.base = ffi.cast("void *", ptr)
        side.offset = 0
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= extent
        return strides[::-1]
    item = arr.itemsize
    if any(st % item for st in arr.strides):
        return None
    # The lowest byte an element occupies: negative strides start high.
    low = builtins.sum((extent - 1) * st for extent, st in zip(arr.shape, arr.strides) if st < 0)
    side.nibbles = int(d.nibbles)
    side.base = ffi.cast("void *", ptr + low)
    side.offset = -low // item
    return [st // item for st in arr.strides]


def _collapse(shape: tuple[int, ...], src: list[int], dst: list[int]) -> list[tuple[int, int, int]]:
    """(extent, source stride, destination stride) of each axis, with axes of
    extent 1 dropped and an axis merged into the next where both sides step
    over it as one: fewer, longer runs for the library."""
    dims = [(e, s, d) for e, s, d in zip(shape, src, dst) if e != 1]
    out: list[tuple[int, int, int]] = []
    for e, s, d in dims:
        if out:
            pe, ps, pd = out[-1]
            if ps == s * e and pd == d * e:
                out[-1] = (pe * e, s, d)
                continue
        out.append((e, s, d))
    return out or [(1, 1, 1)]


def format(a: np.ndarray) -> np.ndarray:
    """The library's text (pp_value) of each element of `a`, as a numpy array
    of str of a's shape: the shortest decimal that reads back as the same
    value in the element's own format ("0.1" for a float16 0.1, "450" for
    float8_e4m3fn's 448), integers in decimal, complex as "0.5-2i",
    booleans as "true" / "false"."""
    if not isinstance(a, _ndarray):
        raise TypeError(f"format: a: expected a numpy array, got {_describe(a)}")
    d = numpy_dtype(a.dtype, "format: a")
    c = np.ascontiguousarray(a)
    n = c.size
    texts = np.zeros(n, f"S{lib.NX_FORMAT_MAX}")
    if n == 0:
        return texts.astype("U1").reshape(a.shape)
    longest = lib.nxpy_format_many(d.code, _from_buffer(c), c.itemsize, n, _from_buffer("char[]", texts))
    if longest < 0:
        fail(longest, "format")
    return texts.astype(f"U{max(longest, 1)}").reshape(a.shape)


def _describe(x: Any) -> str:
    if isinstance(x, _ndarray):
        return f"array of {x.dtype}"
    return type_name(x)


def _shape(shape: Any, arg: str) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(int(e) for e in shape if not isinstance(e, bool) and int(e) == e)
    except (TypeError, ValueError):
        dims = ()
    if len(dims) != len(shape) or any(e < 0 for e in dims):
        raise ValueError(f"{arg}: expected a tuple of non-negative ints, got {shape!r}")
    return dims


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for e in shape:
        n *= e
    return n


def _nbytes(d: Dtype, n: int) -> int:
    out = ffi.new("int64_t *")
    st = lib.nxpy_dtype_bytes(d.code, n, out)
    if st:
        fail(st, f"{n} elements of {d.name}")
    return out[0]

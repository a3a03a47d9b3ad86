"""libnx_dtype from Python through ctypes: dtype facts, stores, printing and
converting numpy arrays. A short example, not a binding: see ABI.md.

    >>> import nx_dtype
    >>> nx = nx_dtype.load()
    >>> nx.store("float16", 0.1).hex(), nx.format("float16", nx.store("float16", 0.1))
    ('662e', '0.1')
    >>> nx.convert(numpy.array([1.0, 1e6]), "float8_e5m2")   # raw bytes: numpy has no float8
"""
import ctypes as C
import ctypes.util
import os

import numpy as np

FORMAT_MAX = 64  # NX_FORMAT_MAX
# numpy's dtype for each of ours that numpy has.
NUMPY = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "int64": "<i8",
         "uint64": "<u8", "int32": "<i4", "uint32": "<u4", "int16": "<i2",
         "uint16": "<u2", "int8": "i1", "uint8": "u1", "complex128": "<c16",
         "complex64": "<c8", "bool": "?"}
KINDS = ["float", "complex", "signed", "unsigned", "boolean"]


class FloatFormat(C.Structure):
    _fields_ = [("exponent_bits", C.c_int32), ("fraction_bits", C.c_int32),
                ("infinities", C.c_bool), ("nans", C.c_bool), ("epsilon", C.c_double),
                ("min_normal", C.c_double), ("max_finite", C.c_double)]


class Error(Exception):
    """A negative status from the library, with its message."""


class NxDtype:
    def __init__(self, path=None):
        path = path or os.environ.get("NX_DTYPE_LIB") or ctypes.util.find_library("nx_dtype") \
            or "libnx_dtype.so.1"
        self.lib = lib = C.CDLL(path)
        for name, res, args in [
            ("nx_version", C.c_char_p, []),
            ("nx_status_message", C.c_char_p, [C.c_int32]),
            ("nx_dtype_name", C.c_char_p, [C.c_int32]),
            ("nx_dtype_of_name", C.c_int32, [C.c_char_p, C.c_size_t]),
            ("nx_dtype_bits", C.c_int32, [C.c_int32]),
            ("nx_dtype_kind", C.c_int32, [C.c_int32]),
            ("nx_dtype_bytes", C.c_int32, [C.c_int32, C.c_int64, C.POINTER(C.c_int64)]),
            ("nx_dtype_float_format", C.c_int32, [C.c_int32, C.POINTER(FloatFormat)]),
            ("nx_store_f64", C.c_int32, [C.c_int32, C.c_double, C.c_void_p]),
            ("nx_format", C.c_int64, [C.c_int32, C.c_void_p, C.c_char_p, C.c_size_t]),
            ("nx_convert", C.c_int32, [C.c_int32, C.c_void_p, C.c_int32, C.c_void_p, C.c_int64]),
        ]:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        self.version = lib.nx_version().decode()

    def _ok(self, status):
        if status < 0:
            raise Error(self.lib.nx_status_message(status).decode())
        return status

    def code(self, name):
        return self._ok(self.lib.nx_dtype_of_name(name.encode(), len(name)))

    def names(self):
        return [self.lib.nx_dtype_name(i).decode() for i in range(21)]

    def nbytes(self, name, n):
        out = C.c_int64()
        self._ok(self.lib.nx_dtype_bytes(self.code(name), n, C.byref(out)))
        return out.value

    def facts(self, name):
        dt = self.code(name)
        facts = {"bits": self.lib.nx_dtype_bits(dt), "kind": KINDS[self.lib.nx_dtype_kind(dt)]}
        f = FloatFormat()
        if self.lib.nx_dtype_float_format(dt, C.byref(f)) == 0:
            facts.update({k: getattr(f, k) for k, _ in FloatFormat._fields_})
        return facts

    def store(self, name, x):
        """The bytes of one element of `name` holding float x (of_float)."""
        elem = C.create_string_buffer(self.nbytes(name, 1))
        self._ok(self.lib.nx_store_f64(self.code(name), x, elem))
        return elem.raw

    def format(self, name, elem):
        """One element's bytes printed as the library prints it."""
        buf = C.create_string_buffer(FORMAT_MAX)
        n = self._ok(self.lib.nx_format(self.code(name), elem, buf, FORMAT_MAX))
        return buf.raw[:n].decode()

    def convert(self, array, to, frm=None):
        """A numpy array converted to dtype `to` (numpy array when numpy has
        `to`, else packed little-endian bytes). `frm` defaults to the
        array's own dtype and must be given for raw-byte (uint8) inputs."""
        src = np.ascontiguousarray(array)
        frm = frm or next(k for k, v in NUMPY.items() if np.dtype(v) == src.dtype)
        n = src.size if frm in NUMPY else src.nbytes * 8 // self.facts(frm)["bits"]
        out = np.empty(self.nbytes(to, n), np.uint8)
        self._ok(self.lib.nx_convert(self.code(frm), src.ctypes.data, self.code(to),
                                     out.ctypes.data, n))
        if to not in NUMPY:
            return out.tobytes()
        return out.view(NUMPY[to]).reshape(src.shape if frm in NUMPY else (n,))


def load(path=None):
    return NxDtype(path)

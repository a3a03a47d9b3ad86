"""nx_dtype: exact conversions between 21 element formats ("dtypes") of
numpy and ml_dtypes arrays (float64 ... float4_e2m1fn, int64 ... uint4,
complex128/64, bool, bit), the formats' facts, and their shortest printing,
over the C library libnx_dtype built into this package.

    >>> import numpy as np, nx_dtype
    >>> x = np.array([0.1, 448.0, 1e9], np.float32)
    >>> nx_dtype.astype(x, "float8_e4m3fn")      # an ml_dtypes float8_e4m3fn array
    array([0.101562, 448, 448], dtype='float8_e4m3fn')
    >>> nx_dtype.format(nx_dtype.astype(x, "float16")).tolist()
    ['0.1', '448', 'inf']

Every element is rounded once from its exact value, ties to even; see the
package's README for the rules, the packed layout, errors and threads."""

from ._array import Packed, astype, format
from ._binding import ffi as _ffi
from ._binding import lib as _lib
from ._facts import dtypes, exact, finfo, iinfo
from ._scalar import format_value, load, store

__all__ = ["Packed", "astype", "dtypes", "exact", "finfo", "format", "format_value", "iinfo",
           "kernel_isa", "load", "store", "__version__"]

# The library's version, which is the package's (both are Cargo.toml's).
__version__: str = _ffi.string(_lib.nxpy_version()).decode()


def kernel_isa() -> str:
    """The conversion kernels' level in use: "scalar", "avx2" or "avx512"
    (the environment variable NX_DTYPE_ISA, read at first use, caps it)."""
    return _ffi.string(_lib.nxpy_kernel_isa()).decode()

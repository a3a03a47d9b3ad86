"""Load libnx_dtype with ctypes, as any dlopen user would.

The Makefile passes the library's path in NX_DTYPE_LIB."""
import ctypes as C
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_library():
    path = os.environ.get("NX_DTYPE_LIB", str(ROOT / "target/release/libnx_dtype.so"))
    lib = C.CDLL(path)
    sig = {
        "nx_abi_version": (C.c_uint32, []),
        "nx_version": (C.c_char_p, []),
        "nx_status_message": (C.c_char_p, [C.c_int32]),
        "nx_dtype_bits": (C.c_int32, [C.c_int32]),
        "nx_dtype_kind": (C.c_int32, [C.c_int32]),
        "nx_dtype_name": (C.c_char_p, [C.c_int32]),
        "nx_dtype_of_name": (C.c_int32, [C.c_char_p, C.c_size_t]),
        "nx_dtype_bytes": (C.c_int32, [C.c_int32, C.c_int64, C.POINTER(C.c_int64)]),
        "nx_dtype_exact": (C.c_int32, [C.c_int32, C.c_int32]),
        "nx_dtype_min_value": (C.c_int32, [C.c_int32, C.c_void_p]),
        "nx_dtype_max_value": (C.c_int32, [C.c_int32, C.c_void_p]),
        "nx_store_f64": (C.c_int32, [C.c_int32, C.c_double, C.c_void_p]),
        "nx_store_i64": (C.c_int32, [C.c_int32, C.c_int64, C.c_void_p]),
        "nx_store_u64": (C.c_int32, [C.c_int32, C.c_uint64, C.c_void_p]),
        "nx_load_f64": (C.c_int32, [C.c_int32, C.c_void_p, C.POINTER(C.c_double)]),
        "nx_is_value_f64": (C.c_int32, [C.c_int32, C.c_double]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


@pytest.fixture(scope="session")
def lib():
    return load_library()

"""The dtype table through dlopen, against numpy's and ml_dtypes' own facts
(finfo / iinfo), and the exported table against the functions."""
import ctypes as C

import ml_dtypes as md
import numpy as np


class FloatFormat(C.Structure):
    _fields_ = [("exponent_bits", C.c_int32), ("fraction_bits", C.c_int32),
                ("infinities", C.c_bool), ("nans", C.c_bool), ("epsilon", C.c_double),
                ("min_normal", C.c_double), ("max_finite", C.c_double)]


class Row(C.Structure):
    _fields_ = [("name", C.c_char_p), ("bits", C.c_int32), ("kind", C.c_int32),
                ("is_float", C.c_bool), ("float_format", FloatFormat)]


FLOATS = {"float64": np.float64, "float32": np.float32, "float16": np.float16,
          "bfloat16": md.bfloat16, "float8_e4m3fn": md.float8_e4m3fn,
          "float8_e5m2": md.float8_e5m2, "float4_e2m1fn": md.float4_e2m1fn}
INTS = {"int64": np.int64, "uint64": np.uint64, "int32": np.int32, "uint32": np.uint32,
        "int16": np.int16, "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8,
        "int4": md.int4, "uint4": md.uint4}


def table(lib):
    return (Row * 21).in_dll(lib, "nx_dtype_table")


def test_table_matches_functions(lib):
    rows = table(lib)
    for code, row in enumerate(rows):
        assert lib.nx_dtype_name(code) == row.name
        assert lib.nx_dtype_bits(code) == row.bits
        assert lib.nx_dtype_kind(code) == row.kind
        assert lib.nx_dtype_of_name(row.name, len(row.name)) == code
    assert lib.nx_dtype_name(21) is None and lib.nx_dtype_bits(-1) == -1
    assert lib.nx_abi_version() == 1 and lib.nx_version().count(b".") == 2


def test_float_facts_against_finfo(lib):
    rows = {r.name.decode(): r for r in table(lib)}
    for name, t in FLOATS.items():
        fi = md.finfo(t) if t in (md.bfloat16, md.float8_e4m3fn, md.float8_e5m2,
                                  md.float4_e2m1fn) else np.finfo(t)
        f = rows[name].float_format
        assert rows[name].is_float and rows[name].kind == 0
        assert rows[name].bits == fi.bits, name
        assert f.exponent_bits == fi.nexp and f.fraction_bits == fi.nmant, name
        assert f.epsilon == float(fi.eps), name
        assert f.min_normal == float(fi.smallest_normal), name
        assert f.max_finite == float(fi.max), name
        assert -f.max_finite == float(fi.min), name


def test_integer_ranges_against_iinfo(lib):
    buf = (C.c_uint8 * 16)()
    rows = {r.name.decode(): (i, r) for i, r in enumerate(table(lib))}
    for name, t in INTS.items():
        code, row = rows[name]
        ii = md.iinfo(t) if t in (md.int4, md.uint4) else np.iinfo(t)
        assert row.bits == ii.bits and row.kind == (2 if ii.min < 0 else 3), name
        for fn, want in ((lib.nx_dtype_min_value, ii.min), (lib.nx_dtype_max_value, ii.max)):
            assert fn(code, buf) == 0
            nbytes = (row.bits + 7) // 8
            raw = int.from_bytes(bytes(buf[:nbytes]), "little")
            if ii.min < 0 and raw >> (row.bits - 1):
                raw -= 1 << row.bits
            assert raw == want, (name, raw, want)


def test_bytes_overflow(lib):
    out = C.c_int64(-5)
    assert lib.nx_dtype_bytes(17, 2**63 - 1, C.byref(out)) == -3 and out.value == -5
    assert lib.nx_dtype_bytes(20, 2**63 - 1, C.byref(out)) == 0 and out.value == 2**60
    assert lib.nx_dtype_bytes(6, 5, C.byref(out)) == 0 and out.value == 3

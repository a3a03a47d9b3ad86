"""Printing (nx_format, nx_format_f64) against numpy's and Python's shortest
reprs: every float16, random and edge float32, random float64 (Python repr
minus a trailing ".0"), and the ml_dtypes formats where their rule agrees.

NX_PRINT_LONG=1 (make test-print-long) raises the random counts to 10^7."""
import ctypes as C
import os
from pathlib import Path

import ml_dtypes
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("NX_PRINT_LONG") == "1"
N_RANDOM = 10_000_000 if LONG else 1_000_000

NX_FLOAT64, NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16 = 0, 1, 2, 3
NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2, NX_FLOAT4_E2M1FN = 4, 5, 6
NX_ERR_DTYPE, NX_ERR_NULL, NX_ERR_KIND, NX_ERR_NOT_VALUE = -1, -2, -4, -5
NX_FORMAT_MAX = 64


def _load():
    path = os.environ.get("NX_DTYPE_LIB", str(ROOT / "target/release/libnx_dtype.so"))
    lib = C.CDLL(path)
    lib.nx_format.argtypes = [C.c_int32, C.c_void_p, C.c_char_p, C.c_size_t]
    lib.nx_format.restype = C.c_int64
    lib.nx_format_f64.argtypes = [C.c_int32, C.c_double, C.c_char_p, C.c_size_t]
    lib.nx_format_f64.restype = C.c_int64
    return lib


LIB = _load()
BUF = C.create_string_buffer(NX_FORMAT_MAX)


def fmt_bits(dt, bits, ctype):
    """nx_format of the element with these bits."""
    elem = ctype(bits)
    n = LIB.nx_format(dt, C.byref(elem), BUF, NX_FORMAT_MAX)
    assert 0 < n < NX_FORMAT_MAX
    return BUF.value.decode()


def many(dt, bits_array, ctype):
    """nx_format of each element: one ctypes call per value, kept lean."""
    f, buf, byref = LIB.nx_format, BUF, C.byref
    elem = ctype()
    out = []
    for b in bits_array.tolist():
        elem.value = b
        f(dt, byref(elem), buf, NX_FORMAT_MAX)
        out.append(buf.value)
    return out


def digits(text):
    """(significant digits, exponent of the first) of a decimal text."""
    t = text.lstrip("-")
    m, _, e = t.partition("e")
    i, _, f = m.partition(".")
    a = i + f
    lead = len(a) - len(a.lstrip("0"))
    return a.strip("0"), int(e or 0) + len(i) - 1 - lead


def py_repr(x):
    r = repr(x)
    return r[:-2] if r.endswith(".0") else r


def test_every_float16_against_numpy():
    bits = np.arange(1 << 16, dtype=np.uint16)
    vals = bits.view(np.float16)
    ours = many(NX_FLOAT16, bits, C.c_uint16)
    bad = []
    for b, x, t in zip(bits.tolist(), vals.tolist(), ours):
        t = t.decode()
        if not np.isfinite(x):
            assert t == ("nan" if np.isnan(x) else ("-inf" if x < 0 else "inf"))
            continue
        if x == 0:
            assert t == ("-0" if b >> 15 else "0")
            continue
        want = np.format_float_positional(np.float16(x), unique=True)
        if digits(t) != digits(want):
            bad.append((hex(b), t, want))
        # Reads back (numpy's float16 rounds to nearest even).
        assert np.float16(float(t)).view(np.uint16) == b
    assert bad == []


def _float32_edges():
    edges = []
    for e in range(256):
        for frac in (0, 1, 2, (1 << 23) - 1, (1 << 23) - 2):
            edges.append((e << 23) | frac)
    edges += [(e << 23) - 1 for e in range(1, 256)]
    return np.array(sorted(set(edges)), dtype=np.uint32)


def _check_float32(bits):
    vals = bits.view(np.float32)
    finite = np.isfinite(vals) & (vals != 0)
    bits, vals = bits[finite], vals[finite]
    ours = many(NX_FLOAT32, bits, C.c_uint32)
    fmt = np.format_float_scientific
    bad = [
        (hex(b), t, w)
        for b, x, t in zip(bits.tolist(), vals, ours)
        if digits(t.decode()) != digits(w := fmt(x, unique=True))
    ]
    assert bad == [], bad[:10]


def test_float32_powers_of_two_and_binade_edges_against_numpy():
    bits = _float32_edges()
    bits = np.concatenate([bits, bits | np.uint32(1 << 31)])
    _check_float32(bits)


def test_float32_random_against_numpy():
    rng = np.random.default_rng(20261201)
    _check_float32(rng.integers(0, 1 << 32, size=N_RANDOM, dtype=np.uint64).astype(np.uint32))


def test_float64_random_against_python_repr():
    rng = np.random.default_rng(64)
    bits = rng.integers(0, 1 << 64, size=N_RANDOM, dtype=np.uint64, endpoint=False)
    vals = bits.view(np.float64)
    ours = many(NX_FLOAT64, bits, C.c_uint64)
    bad = [(x, t) for x, t in zip(vals.tolist(), ours) if t.decode() != py_repr(x)]
    assert bad == [], bad[:10]


def test_float64_layout_edges_against_python_repr():
    xs = [1e16, 1e-5, 1e-4, 0.0001, 9999999999999998.0, 1e15, 123456789012345678.0,
          5e-324, 1.7976931348623157e308, 2.0**-1022, 0.1, 100.0, -0.0, 0.0,
          float("inf"), float("-inf"), float("nan"), 1.5e300, 2.5e-300]
    xs += [2.0**e for e in range(-1074, 1024)]
    xs += [10.0**e for e in range(-300, 300)]
    for x in xs:
        n = LIB.nx_format_f64(NX_FLOAT64, x, BUF, NX_FORMAT_MAX)
        assert n == len(BUF.value)
        assert BUF.value.decode() == py_repr(x), x


ML = [
    (NX_BFLOAT16, ml_dtypes.bfloat16, np.uint16, C.c_uint16, 16),
    (NX_FLOAT8_E4M3FN, ml_dtypes.float8_e4m3fn, np.uint8, C.c_uint8, 8),
    (NX_FLOAT8_E5M2, ml_dtypes.float8_e5m2, np.uint8, C.c_uint8, 8),
    (NX_FLOAT4_E2M1FN, ml_dtypes.float4_e2m1fn, np.uint8, C.c_uint8, 4),
]


def test_ml_dtypes_formats():
    """ml_dtypes prints through float32, so its digits are a float32's
    shortest: ours read back through ml_dtypes' own rounding to the same
    value, are never longer, and equal its digits wherever the float32
    digits are also the shortest in the narrow format (checked by the Rust
    suite exactly: here, where both have the same length)."""
    for dt, mt, ut, ct, width in ML:
        bits = np.arange(1 << width, dtype=ut)
        vals = bits.view(mt) if width >= 8 else bits.astype(np.uint8).view(mt)
        same = 0
        for b, x in zip(bits.tolist(), vals):
            t = fmt_bits(dt, b, ct)
            f = float(x)
            if np.isnan(f):
                assert t == "nan"
                continue
            if np.isinf(f):
                assert t == ("-inf" if f < 0 else "inf")
                continue
            back = np.array([float(t)]).astype(mt)
            assert float(back[0]) == f and (f != 0 or t == ("-0" if b >> (width - 1) else "0")), (b, t)
            theirs = repr(np.float32(x).item())
            d_ours, d_theirs = digits(t), digits(theirs)
            assert len(d_ours[0]) <= len(d_theirs[0]), (hex(b), t, theirs)
            if len(d_ours[0]) == len(d_theirs[0]) and f != 0:
                same += 1
                # The same length: the same nearest decimal, unless theirs is
                # outside the narrow format's interval (a float32 reads it).
                if d_ours != d_theirs:
                    assert float(np.array([float(theirs)]).astype(mt)[0]) != f or (
                        abs(float(t) - f) <= abs(float(theirs) - f)
                    ), (hex(b), t, theirs)
        assert same > 0


def test_seed_examples_and_errors():
    def f64(dt, x):
        n = LIB.nx_format_f64(dt, x, BUF, NX_FORMAT_MAX)
        return BUF.value.decode() if n >= 0 else n

    assert f64(NX_FLOAT32, float(np.float32(0.1))) == "0.1"
    assert f64(NX_FLOAT16, 65504.0) == "65500"
    assert f64(NX_FLOAT8_E4M3FN, 448.0) == "450"
    assert f64(NX_FLOAT8_E5M2, 57344.0) == "60000"
    assert f64(NX_FLOAT16, 0.015625) == "0.01563"
    assert f64(NX_FLOAT32, float(np.float32(1.59e29))) == "1.59e+29"
    assert f64(NX_FLOAT32, 0.1) == NX_ERR_NOT_VALUE
    assert f64(9, 1.0) == NX_ERR_KIND
    assert f64(21, 1.0) == NX_ERR_DTYPE
    assert LIB.nx_format_f64(NX_FLOAT64, 1.0, None, 1) == NX_ERR_NULL
    assert LIB.nx_format_f64(NX_FLOAT64, 0.0001, None, 0) == 6
    c = np.array([0.5, -2.0], dtype=np.float32)
    assert LIB.nx_format(18, c.ctypes.data, BUF, NX_FORMAT_MAX) == 6
    assert BUF.value == b"0.5-2i"
    assert fmt_bits(10, 0xFFFFFFFF, C.c_uint32) == "4294967295"

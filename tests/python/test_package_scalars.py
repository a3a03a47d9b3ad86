"""nx_dtype's facts, printing and scalars (the Python package, python/):
finfo against numpy's and ml_dtypes' finfo, iinfo against theirs, exact,
dtypes, format / format_value against Python's repr and the C library,
store / load against numpy, ml_dtypes and the exact reference.

Run by `make test-python-package` (NX_PACKAGE_TESTS=1), skipped elsewhere."""

import ctypes
import math
import os

import ml_dtypes
import numpy as np
import pytest

if not os.environ.get("NX_PACKAGE_TESTS"):
    pytest.skip("the nx_dtype package's tests run in its own venv (make test-python-package)",
                allow_module_level=True)

import nx_dtype as nx  # noqa: E402
from nx_dtype import _binding  # noqa: E402

import exact_ref  # noqa: E402

LIB = ctypes.CDLL(_binding.LIB_PATH)
LIB.nx_format.restype = ctypes.c_int64
LIB.nx_format.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]

NAMES = ("float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int64",
         "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8", "int4", "uint4", "complex128",
         "complex64", "bool", "bit")
ML = {"bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
      "float8_e5m2": ml_dtypes.float8_e5m2, "float4_e2m1fn": ml_dtypes.float4_e2m1fn}
FINFO_ATTRS = ("bits", "eps", "epsneg", "max", "min", "tiny", "smallest_normal", "smallest_subnormal", "resolution",
               "nmant", "nexp", "iexp", "machep", "negep", "minexp", "maxexp", "precision", "dtype")


def test_dtypes_in_code_order():
    assert nx.dtypes() == NAMES
    assert nx.__version__.count(".") == 2


@pytest.mark.parametrize("name", ["float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                  "float4_e2m1fn", "complex128", "complex64"])
def test_finfo_against_numpy_and_ml_dtypes(name):
    ours = nx.finfo(name)
    theirs = ml_dtypes.finfo(ML[name]) if name in ML else np.finfo(np.dtype(name))
    for attr in FINFO_ATTRS:
        a, b = getattr(ours, attr), getattr(theirs, attr)
        if name.startswith("float8") and attr in ("precision", "resolution"):
            # ml_dtypes sets 1 and its 0.1 for the float8 formats; ours is
            # numpy's definition, int(-log10(eps)), as for every format.
            assert (ours.precision, float(ours.resolution), b) == (0, 1.0, 1 if attr == "precision" else b)
            continue
        assert a == b, (name, attr, a, b)
        if not (name == "float4_e2m1fn" and attr in ("eps", "epsneg")):
            assert type(a) is type(b), (name, attr, type(a), type(b))
        else:
            # ml_dtypes gives these two as Python floats; ours are the format's scalars, as for the others.
            assert type(a) is ml_dtypes.float4_e2m1fn
    assert ours.has_infinity == (name not in ("float8_e4m3fn", "float4_e2m1fn"))
    assert ours.has_nan == (name != "float4_e2m1fn")
    # One dtype argument per spelling.
    assert nx.finfo(np.dtype(name) if name not in ML else ML[name]).eps == ours.eps


@pytest.mark.parametrize("name", ["int64", "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8",
                                  "int4", "uint4"])
def test_iinfo_against_numpy_and_ml_dtypes(name):
    ours = nx.iinfo(name)
    theirs = ml_dtypes.iinfo(getattr(ml_dtypes, name)) if name.endswith("int4") else np.iinfo(np.dtype(name))
    for attr in ("bits", "min", "max", "kind", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), (name, attr)
    assert type(ours.min) is int and type(ours.max) is int


@pytest.mark.parametrize("name", ["bool", "bit", "int8"])
def test_finfo_iinfo_where_they_do_not_apply(name):
    with pytest.raises(TypeError, match="finfo: dtype: .* is not a float or complex dtype"):
        nx.finfo(name)
    if name != "int8":
        with pytest.raises(TypeError, match="iinfo: dtype: .* is not an integer dtype"):
            nx.iinfo(name)
    with pytest.raises(TypeError, match="iinfo: dtype: float32 is not an integer"):
        nx.iinfo("float32")


def test_exact():
    # The rules' consequences, as the library's facts state them.
    assert nx.exact("int8", "bfloat16") and nx.exact("float4_e2m1fn", "float8_e4m3fn")
    assert not nx.exact("float8_e4m3fn", "float8_e5m2") and not nx.exact("int64", "float64")
    assert nx.exact(np.float16, ml_dtypes.bfloat16) is False and nx.exact("bit", "complex64") is True
    for a in NAMES:
        assert nx.exact(a, a)
    with pytest.raises(TypeError, match="exact: b: 'x' names no dtype"):
        nx.exact("int8", "x")


# ---- Printing --------------------------------------------------------------

def c_format(name, elem):
    buf = ctypes.create_string_buffer(64)
    n = LIB.nx_format(NAMES.index(name), elem, buf, 64)
    assert n >= 0
    return buf.raw[:n].decode()


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4",
                                  "uint4", "int8", "uint16", "bool"])
def test_format_every_pattern_against_the_library(name):
    bits = 4 if name.endswith("4") or name == "float4_e2m1fn" else np.dtype(
        ml_dtypes.__dict__.get(name, name)).itemsize * 8
    raw = np.arange(2**bits, dtype=np.uint16 if bits == 16 else np.uint8)
    a = raw.view(ml_dtypes.__dict__.get(name, name))
    texts = nx.format(a)
    assert texts.shape == a.shape and texts.dtype.kind == "U"
    for r, t in zip(raw.tolist(), texts.tolist()):
        elem = r.to_bytes(2 if bits == 16 else 1, "little")
        assert t == c_format(name, elem), (name, r)


def test_format_against_repr():
    # float64 and float32: the shortest text that reads back (Python's repr, minus ".0").
    x = np.random.default_rng(0).standard_normal(2000) * 10.0 ** np.random.default_rng(1).integers(-30, 30, 2000)
    for v, t in zip(x.tolist(), nx.format(x).tolist()):
        r = repr(v)
        assert t == (r[:-2] if r.endswith(".0") else r)
    # float32: reads back, with the digits of numpy's shortest unique text.
    y = x.astype(np.float32)

    def digits(text):
        return text.split("e")[0].replace("-", "").replace(".", "").strip("0")

    for v, t in zip(y, nx.format(y)):
        assert np.float32(t) == v and digits(t) == digits(np.format_float_scientific(v, unique=True)), (v, t)


def test_format_shapes_and_examples():
    a = np.array([[0.1, 65504.0], [np.nan, -np.inf]], np.float16)
    assert nx.format(a).tolist() == [["0.1", "65500"], ["nan", "-inf"]]
    assert nx.format(np.array([448.0], ml_dtypes.float8_e4m3fn)).tolist() == ["450"]
    assert nx.format(np.array([0.5 - 2j], np.complex64)).tolist() == ["0.5-2i"]
    assert nx.format(np.array([True, False])).tolist() == ["true", "false"]
    assert nx.format(np.array(-7, ml_dtypes.int4)).shape == ()
    assert nx.format(np.zeros((2, 0))).shape == (2, 0)
    assert nx.format(np.arange(10.0)[::-3]).tolist() == ["9", "6", "3", "0"]


def test_format_value():
    assert nx.format_value(448.0, "float8_e4m3fn") == "450"
    assert nx.format_value(float(np.float16(0.1)), np.float16) == "0.1"
    assert nx.format_value(np.float16(0.1), "float16") == "0.1"
    assert nx.format_value(ml_dtypes.bfloat16(3.140625), "bfloat16") == "3.14"
    assert nx.format_value(float("nan"), "float4_e2m1fn") == "nan"
    assert nx.format_value(-8, "int4") == "-8" and nx.format_value(2**64 - 1, "uint64") == "18446744073709551615"
    assert nx.format_value(0.5 - 2j, "complex64") == "0.5-2i"
    assert nx.format_value(True, "bit") == "true"
    assert nx.format_value(3, "float8_e4m3fn") == "3"
    for x, dt in ((0.1, "float32"), (9, "int4"), (2**53 + 1, "float64"), (0.1 + 1j, "complex64"), (1j, "float64"),
                  (2.5, "int8"), (2, "bool")):
        with pytest.raises(ValueError, match="format_value: x: .* not a value of"):
            nx.format_value(x, dt)
    with pytest.raises(TypeError, match="format_value: x: expected a number, got str"):
        nx.format_value("1", "float32")


# ---- Scalars -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
def test_store_floats_against_the_exact_reference(name):
    rng = np.random.default_rng(2)
    xs = list(rng.standard_normal(500) * 10.0 ** rng.integers(-10, 10, 500))
    xs += [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1e300, 5e-324, 65519.0, 65520.0, 448.0, 464.0, 7.0]
    size = (exact_ref.FORMATS[name][0] + exact_ref.FORMATS[name][1] + 1 + 7) // 8
    for x in xs:
        want = exact_ref.store(name, x).to_bytes(size, "little")
        assert nx.store(x, name) == want, (name, x)
    if name in ("float32", "float16") or name in ML:
        # numpy / ml_dtypes agree for finite values in range (no saturation).
        finite = [x for x in xs if math.isfinite(x) and abs(x) < float(nx.finfo(name).max)]
        t = ML.get(name, name)
        for x in finite:
            assert nx.store(x, name) == np.array(x).astype(t).tobytes()[:size] or name == "float4_e2m1fn"


def test_store_and_load():
    assert nx.store(0.1, "float16") == np.float16(0.1).tobytes()
    assert nx.load(nx.store(0.1, "float16"), "float16") == 0.0999755859375
    assert nx.store(1e9, "float8_e4m3fn") == b"\x7e" and nx.store(float("nan"), "float4_e2m1fn") == b"\x00"
    assert nx.store(-1, "int4") == b"\x0f" and nx.load(b"\x0f", "int4") == -1 and nx.load(b"\xf7", "int4") == 7
    assert nx.store(2**63, "uint64") == (2**63).to_bytes(8, "little")
    assert nx.store(2**64 - 1, "float32") == np.float32(2**64).tobytes()  # rounds once from the exact integer
    assert nx.store(2**53 + 1, "float64") == np.float64(2**53).tobytes()  # the tie goes to even
    # Just past a float32 tie; through float64 it would be the tie, and round down.
    assert nx.store(2**60 + 2**36 + 1, "float32") == np.float32(2**60 + 2**37).tobytes()
    assert nx.store(300, "int8") == b"\x7f" and nx.store(-1, "uint8") == b"\x00"
    assert nx.store(1.5 - 2j, "complex64") == np.complex64(1.5 - 2j).tobytes()
    assert nx.store(1.5 - 2j, "float16") == np.float16(1.5).tobytes()  # the real part
    assert nx.store(True, "bit") == b"\x01" and nx.store(0.0, "bool") == b"\x00"
    assert nx.store(np.float16(0.1), "float32") == np.float32(np.float16(0.1)).tobytes()
    assert nx.store(ml_dtypes.bfloat16(3.140625), "float64") == np.float64(3.140625).tobytes()
    assert nx.load(nx.store(2**64 - 1, "uint64"), "uint64") == 2**64 - 1
    assert nx.load(nx.store(-2**63, "int64"), np.int64) == -2**63
    assert nx.load(nx.store(1 + 2j, "complex128"), "complex128") == 1 + 2j
    assert nx.load(b"\x02", "bool") is True and nx.load(b"\xfe", "bit") is False
    for name in NAMES:
        v = nx.load(nx.store(1, name), name)
        assert v == 1 and type(v) is {"f": float, "c": complex, "b": bool}.get(
            "b" if name in ("bool", "bit") else "c" if name.startswith("complex") else
            "f" if name.startswith(("float", "bfloat")) else "i", int)


SCALAR_ERRORS = [
    (lambda: nx.store(2**64, "uint64"), ValueError, "store: x: 18446744073709551616 is outside int64 and uint64"),
    (lambda: nx.store("1", "float32"), TypeError, "store: x: expected a number, got str"),
    (lambda: nx.store(np.datetime64(1, "s"), "float32"), TypeError, "store: x: numpy datetime64"),
    (lambda: nx.store(1.0, "float17"), TypeError, "store: dtype: 'float17' names no dtype"),
    (lambda: nx.load(b"\x00", "float16"), ValueError, "load: b: 1 bytes, but an element of float16 takes 2"),
    (lambda: nx.load(1.0, "float16"), TypeError, "load: b: expected bytes, got float"),
    (lambda: nx.load(b"", "int3"), TypeError, "load: dtype: 'int3' names no dtype"),
]


@pytest.mark.parametrize("call,exc,match", SCALAR_ERRORS)
def test_scalar_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_the_documentation_runs():
    """The examples in python/README.md and the package's docstring."""
    import doctest
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "python" / "README.md"
    globs = {"np": np, "ml_dtypes": ml_dtypes, "nx_dtype": nx}
    flags = doctest.NORMALIZE_WHITESPACE
    r = doctest.testfile(str(readme), module_relative=False, globs=globs, optionflags=flags)
    assert r.attempted >= 6 and r.failed == 0
    r = doctest.testmod(nx, optionflags=flags)
    assert r.attempted >= 3 and r.failed == 0

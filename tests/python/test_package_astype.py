"""nx_dtype.astype (the Python package, python/): every pair of the 21 dtypes
against the library's own results (nx_convert through ctypes on packed
buffers) and against ml_dtypes / numpy, with our rule asserted where they
depart from it; layouts, strides, out=, threads, errors.

Run by `make test-python-package` in the venv the package is installed in
(NX_PACKAGE_TESTS=1); `make test-python` collects this file without the
package and skips it."""

import ctypes
import math
import os
import struct
import sys
import threading
import warnings

import ml_dtypes
import numpy as np
import pytest

if not os.environ.get("NX_PACKAGE_TESTS"):
    pytest.skip("the nx_dtype package's tests run in its own venv (make test-python-package)",
                allow_module_level=True)

import nx_dtype as nx  # noqa: E402
from nx_dtype import _binding  # noqa: E402

import exact_ref  # noqa: E402

# The library inside the package, called directly: the reference bytes.
LIB = ctypes.CDLL(_binding.LIB_PATH)
LIB.nx_convert.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64]
LIB.nx_dtype_bits.argtypes = [ctypes.c_int32]

NAMES = list(nx.dtypes())
CODE = {n: i for i, n in enumerate(NAMES)}
BITS = {n: LIB.nx_dtype_bits(CODE[n]) for n in NAMES}
NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
      "float4_e2m1fn": ml_dtypes.float4_e2m1fn, "int64": np.int64, "uint64": np.uint64, "int32": np.int32,
      "uint32": np.uint32, "int16": np.int16, "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8,
      "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4, "complex128": np.complex128, "complex64": np.complex64,
      "bool": np.bool_}
FLOATS = ["float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]
INTS = ["int64", "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8", "int4", "uint4"]
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning")


# ---- Layouts ---------------------------------------------------------------

def packed_bytes(a, name):
    """The C ABI's packed bytes of numpy array `a` (numpy's or ml_dtypes'
    layout, C order): 4-bit elements two a byte, low nibble first, read
    from each byte's low nibble as ml_dtypes reads them."""
    raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    if BITS[name] != 4:
        return raw.copy()
    nib = raw & 15
    if nib.size % 2:
        nib = np.append(nib, 0)
    return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)


def c_convert(src_packed, s, d, n):
    out = np.zeros((n * BITS[d] + 7) // 8, np.uint8)
    st = LIB.nx_convert(CODE[s], src_packed.ctypes.data, CODE[d], out.ctypes.data, n)
    assert st == 0
    return out


def elements(packed, name, n):
    """The n elements of packed bytes, each as a Python int of its bits."""
    b = BITS[name]
    if b >= 8:
        raw = packed.view(UINT[b // 8] if b <= 64 else np.uint64)
        if b == 128:
            return [int(raw[2 * i]) | int(raw[2 * i + 1]) << 64 for i in range(n)]
        return [int(v) for v in raw[:n]]
    bits = np.unpackbits(packed, bitorder="little")
    return [int(sum(int(bits[i * b + k]) << k for k in range(b))) for i in range(n)]


# ---- Sources ---------------------------------------------------------------

def source(name, rng):
    """An odd number of elements of `name` in numpy's layout (bit: a Packed):
    every pattern up to 16 bits (4-bit elements also with their high nibble
    set, which ml_dtypes ignores), specials and random patterns above."""
    b = BITS[name]
    if name == "bit":
        return nx.Packed(rng.integers(0, 256, 5, dtype=np.uint8), "bit", 37)
    if b == 4:
        raw = np.concatenate([np.arange(16), np.arange(16, 256, 7)]).astype(np.uint8)
        return raw.view(NP[name])
    if name == "bool":
        return np.arange(255, dtype=np.uint8).view(np.bool_)
    if b <= 16:
        return np.arange(2**b - 1, dtype=UINT[b // 8]).view(NP[name])
    words = b // 8 if b <= 64 else 8
    u = UINT[words]
    rand = rng.integers(0, np.iinfo(u).max, 3001 * (2 if b == 128 else 1), dtype=u, endpoint=True)
    if name in FLOATS or name.startswith("complex"):
        comp = np.float64 if words == 8 else np.float32
        special = np.array([0.0, -0.0, 1.0, -1.0, 0.1, 448, 464, 57344, 61440, 65504, 65520, 6.0, 7.0, 1e300,
                            -1e-300, 5e-324, np.inf, -np.inf, np.nan, -np.nan, 2**24 + 1, 2**53 + 1], comp)
        special = np.concatenate([special.view(u), np.array([np.iinfo(u).max, 1 << (8 * words - 1) | 1], u)])
        raw = np.concatenate([special, rand])
    else:
        info = np.iinfo(NP[name])
        raw = np.concatenate([np.array([0, 1, info.max, info.min, 127, 128, 255, 256, 2**24 + 1], u)
                              if name.startswith("u") else
                              np.array([0, 1, -1, info.max, info.min, 127, -129, 300, 2**24 + 1], np.int64).astype(u),
                              rand])
    if b == 128 and raw.size % 2:
        raw = raw[:-1]
    return raw.view(NP[name])


def source_packed(a, name):
    if isinstance(a, nx.Packed):
        return a.data, int(np.prod(a.shape))
    return packed_bytes(a, name), a.size


# ---- Every pair against the library ------------------------------------------

@pytest.mark.parametrize("s", NAMES)
def test_every_pair_gives_the_library_bytes(s):
    """astype into each of the 21 dtypes: the bytes nx_convert writes, in
    numpy's or ml_dtypes' dtype and layout (packed=True for bit)."""
    rng = np.random.default_rng(CODE[s])
    a = source(s, rng)
    src, n = source_packed(a, s)
    for d in NAMES:
        want = c_convert(src, s, d, n)
        if d == "bit":
            got = nx.astype(a, d, packed=True)
            assert got.dtype == np.uint8 and got.shape == want.shape
        else:
            got = nx.astype(a, d)
            assert got.dtype == np.dtype(NP[d]), (s, d)
            assert got.shape == (a.shape if isinstance(a, np.ndarray) else (n,))
            if BITS[d] == 4:
                # ml_dtypes' layout: the element in the low nibble, the high one clear.
                assert not (got.view(np.uint8) >> 4).any(), (s, d)
            got = packed_bytes(got, d)
        assert np.array_equal(got, want), (s, d)
        if BITS[d] <= 4:
            # Packed, as the C ABI stores it.
            assert np.array_equal(nx.astype(a, d, packed=True), want), (s, d)


# ---- Against ml_dtypes and numpy, and our rule where they depart ------------

# (exponent bits, fraction bits) of each float format.
FMT = {n: exact_ref.FORMATS[n][:2] for n in FLOATS}


def read(name, bits):
    """('nan', negative, payload, payload bits) or ('num', exact value,
    negative) or ('inf', negative) or ('int', n) for element `bits`."""
    if name in FLOATS:
        e, f = FMT[name]
        v = exact_ref.value_of(name, bits)
        neg = bool(bits >> (e + f) & 1)
        if v == "nan":
            if name == "float8_e4m3fn":
                return ("nan", neg, 0, 0)  # its one NaN reads as quiet, payload 0
            return ("nan", neg, bits & ((1 << (f - 1)) - 1), f - 1)
        if v in ("inf", "-inf"):
            return ("inf", neg)
        return ("num", v, neg)
    if name in ("bool", "bit"):
        return ("int", int(bits != 0))
    b = BITS[name]
    if name.startswith("int") and bits >> (b - 1):
        bits -= 1 << b
    return ("int", bits)


def as_double(x):
    """A float64 with the same value (exact for every float format here) and,
    for a NaN, the same sign and payload top bits."""
    if x[0] == "nan":
        _, neg, payload, width = x
        bits = (neg << 63) | (0x7FF << 52) | (1 << 51) | (payload << (51 - width) if width else 0)
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if x[0] == "inf":
        return -math.inf if x[1] else math.inf
    if x[0] == "num":
        return -0.0 if x[1] == 0 and x[2] else float(x[1])
    return x[1]


def rule(x, d):
    """The destination bits the conversion rules give for source value x
    (from read(); complex sources as (re, im) of read() values)."""
    if isinstance(x, list):  # complex source
        re, im = x
        if d in ("bool", "bit"):
            return int(as_double(re) != 0 or as_double(im) != 0 or re[0] == "nan" or im[0] == "nan")
        if d.startswith("complex"):
            c = "float64" if d == "complex128" else "float32"
            w = 64 if c == "float64" else 32
            return exact_ref.store(c, as_double(re)) | exact_ref.store(c, as_double(im)) << w
        x = re
    if d in FLOATS:
        return exact_ref.store(d, as_double(x))
    if d.startswith("complex"):
        c = "float64" if d == "complex128" else "float32"
        return exact_ref.store(c, as_double(x))  # imaginary part +0
    if d in ("bool", "bit"):
        return int(x[0] == "nan" or as_double(x) != 0)
    b = BITS[d]
    lo, hi = (-(1 << (b - 1)), (1 << (b - 1)) - 1) if d.startswith("int") else (0, (1 << b) - 1)
    if x[0] == "nan":
        n = 0
    elif x[0] == "inf":
        n = lo if x[1] else hi
    elif x[0] == "num":
        n = max(lo, min(hi, int(x[1])))  # int() truncates a Fraction toward zero
    else:
        n = max(lo, min(hi, x[1]))
    return n & ((1 << b) - 1)


def values(a, s, n):
    """read() of each source element."""
    packed, _ = source_packed(a, s)
    bits = elements(packed, s, n)
    if s.startswith("complex"):
        c, w = ("float64", 64) if s == "complex128" else ("float32", 32)
        return [[read(c, v & ((1 << w) - 1)), read(c, v >> w)] for v in bits]
    return [read(s, v) for v in bits]


NUMPY_NAMES = [n for n in NAMES if n != "bit"]


@pytest.mark.parametrize("s", NUMPY_NAMES)
def test_every_pair_against_ml_dtypes_and_numpy(s):
    """astype against ml_dtypes' / numpy's astype of the same array: equal
    bits wherever they agree with our rule, and where they do not (e4m3fn
    saturates where ml_dtypes gives NaN, float4 NaN is +0, NaN payloads,
    integers saturate where numpy wraps, one rounding from float64 and the
    wide integers where ml_dtypes and numpy round twice) the rule's bits."""
    rng = np.random.default_rng(100 + CODE[s])
    a = source(s, rng)
    n = a.size
    xs = values(a, s, n)
    raw = elements(source_packed(a, s)[0], s, n)
    # A move to the same dtype copies bits (signalling NaNs, bool bytes past 1).
    want = lambda i, d: raw[i] if d == s else rule(xs[i], d)  # noqa: E731
    # Our rule itself, on a sample of every pair (the departures are checked below).
    sample = rng.choice(n, min(n, 300), replace=False)
    departures = {}
    for d in NUMPY_NAMES:
        ours = elements(packed_bytes(nx.astype(a, d), d), d, n)
        for i in sample:
            assert ours[i] == want(i, d), (s, d, i, hex(ours[i]), hex(want(i, d)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                theirs = elements(packed_bytes(a.astype(NP[d]), d), d, n)
            except TypeError:  # ml_dtypes has no int4 <-> uint4 cast: the rule everywhere
                theirs = [None] * n
        differ = [i for i in range(n) if ours[i] != theirs[i]]
        for i in differ:
            assert ours[i] == want(i, d), (s, d, i, hex(ours[i]), hex(theirs[i]), hex(want(i, d)))
        departures[d] = len(differ)
        assert len(differ) < n or theirs[0] is None, (s, d)  # they agree somewhere: the comparison compares
    # The named departures show up where the rule says they must.
    if s == "float32":
        assert departures["float8_e4m3fn"] > 0 and departures["int8"] > 0
    if s == "float64":
        assert departures["bfloat16"] > 0  # ml_dtypes rounds through float32


def test_rules_named():
    """The departures from ml_dtypes and numpy, spelled out."""
    x = np.array([1e9, -500.0, np.inf, np.nan, 464.0], np.float32)
    e4 = nx.astype(x, "float8_e4m3fn")
    assert e4.view(np.uint8).tolist() == [0x7E, 0xFE, 0x7E, 0x7F, 0x7E]  # saturates to +-448
    assert np.isnan(x.astype(ml_dtypes.float8_e4m3fn)[[0, 1, 2]].astype(np.float32)).all()
    assert nx.astype(x, "float4_e2m1fn").view(np.uint8).tolist() == [0x7, 0xF, 0x7, 0x0, 0x7]  # NaN -> +0
    # A signalling float32 NaN: made quiet, its sign and the top bits of its
    # 22-bit payload (0x201234) kept below the quiet bit.
    nan = np.array([0xFFA0_1234], np.uint32).view(np.float32)
    assert nx.astype(nan, "float16").view(np.uint16)[0] == 0xFC00 | 0x200 | 0x201234 >> 13
    assert nx.astype(nan, "bfloat16").view(np.uint16)[0] == 0xFF80 | 0x40 | 0x201234 >> 16
    # One rounding from float64: 1 + 2^-8 + 2^-30 is just above a bfloat16 tie.
    y = np.array([1 + 2**-8 + 2**-30])
    assert nx.astype(y, "bfloat16").view(np.uint16)[0] == 0x3F81
    assert y.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0] == 0x3F80  # twice: the tie
    # and from int64: just past a float32 tie; through float64 it would be the tie, rounded down.
    z = np.array([2**60 + 2**36 + 1])
    assert nx.astype(z, "float32")[0] == np.float32(2**60 + 2**37)
    assert z.astype(np.float64).astype(np.float32)[0] == np.float32(2**60)
    # Integers saturate; numpy wraps.
    assert nx.astype(np.array([300, -300, 70000]), "int8").tolist() == [127, -128, 127]
    assert nx.astype(np.array([-5, 20]), "uint4").view(np.uint8).tolist() == [0, 15]


# ---- ml_dtypes arrays in and out, views, strides, shapes --------------------

@pytest.mark.parametrize("d", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4",
                               ml_dtypes.bfloat16, np.dtype(ml_dtypes.float8_e5m2), np.float16, "f4", float])
def test_dtype_arguments_and_ml_dtypes_round_trip(d):
    x = np.random.default_rng(1).standard_normal(1001).astype(np.float32) * 4
    y = nx.astype(x, d)
    want = np.dtype(d if not isinstance(d, str) or d == "f4" else NP[d])
    assert y.dtype == want
    # ml_dtypes reads it back: its own values, and ours into float32 match.
    assert np.array_equal(nx.astype(y, np.float32), y.astype(np.float32), equal_nan=True)


def test_views_and_negative_strides():
    rng = np.random.default_rng(2)
    base = rng.standard_normal((6, 7, 8))
    for view in (base[::2, ::-1, 1::3], base[:, 3], base.T, base[::-1, ::-2, ::-1], base[1:5, 2:6].T[::-1],
                 np.broadcast_to(base[0, 0], (5, 8)), base.reshape(-1)[::-7]):
        for d in ("float16", "bfloat16", "float8_e4m3fn", "float4_e2m1fn", "int4", "complex64"):
            got = nx.astype(view, d)
            want = nx.astype(np.ascontiguousarray(view), d)
            assert got.shape == view.shape
            assert np.array_equal(got.view(np.uint8) if got.itemsize == 1 else got, want.view(np.uint8)
                                  if want.itemsize == 1 else want, equal_nan=True), (d, view.strides)
            # and from an ml_dtypes view back
            ml = want[tuple(slice(None, None, -1) for _ in want.shape)]
            back = nx.astype(ml, np.float64)
            assert np.array_equal(back, nx.astype(np.ascontiguousarray(ml), np.float64), equal_nan=True)


def test_fortran_order_is_kept():
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    y = nx.astype(a, "float16")
    assert y.flags.f_contiguous and np.array_equal(y, a.astype(np.float16))


def test_zero_d_and_empty():
    z = nx.astype(np.array(0.1), "float16")
    assert z.shape == () and z == np.float16(0.1)
    for shape in ((0,), (3, 0), (0, 5, 2)):
        for d in ("float8_e4m3fn", "int4", "bool"):
            e = nx.astype(np.zeros(shape, np.float32), d)
            assert e.shape == shape and e.dtype == np.dtype(NP[d])
        assert nx.astype(np.zeros(shape), "bit", packed=True).shape == (0,)


def test_strides_not_a_whole_element():
    rec = np.zeros(5, dtype=[("a", np.uint8), ("x", np.float32)])  # x's stride is 5 bytes
    rec["x"] = [0.1, 1, 2, 3, 1e9]
    assert np.array_equal(nx.astype(rec["x"], "float16"), rec["x"].astype(np.float16))
    out = np.zeros(5, dtype=[("a", np.uint8), ("y", np.float16)])
    with pytest.raises(ValueError, match="out: strides"):
        nx.astype(rec["x"], "float16", out=out["y"])


def test_packed_layout_documented():
    # Two 4-bit elements a byte, the first in the low nibble; 8 bits a byte, the first in bit 0.
    assert nx.astype(np.array([1.0, -6.0, 0.5]), "float4_e2m1fn", packed=True).tolist() == [0xF2, 0x01]
    assert nx.astype(np.array([1, 0, 0, 1, 1, 0, 0, 0, 1]), "bit", packed=True).tolist() == [0x19, 0x01]
    p = nx.Packed(np.array([0xF2, 0x01], np.uint8), "float4_e2m1fn", 3)
    assert nx.astype(p, np.float32).tolist() == [1.0, -6.0, 0.5]
    assert nx.astype(nx.Packed(bytes([0x19, 0x01]), "bit", (3, 3)), "bool").tolist() == \
        [[True, False, False], [True, True, False], [False, False, True]]
    # 2-D sources pack in C order.
    m = np.array([[1.0, 2.0, 3.0], [4.0, 6.0, 0.0]])
    assert nx.astype(m, "uint4", packed=True).tolist() == [0x21, 0x43, 0x06]
    assert nx.astype(m.T, "uint4", packed=True).tolist() == [0x41, 0x62, 0x03]


# ---- out= ----------------------------------------------------------------

def test_out():
    x = np.linspace(-10, 10, 1000).reshape(10, 100)
    for d in ("float16", "float8_e5m2", "int4", "complex64"):
        out = np.empty((10, 100), NP[d])
        r = nx.astype(x, d, out=out)
        assert r is out and np.array_equal(out.view(np.uint8), nx.astype(x, d).view(np.uint8))
    # A strided out (every other column of a wider array): only those elements change.
    big = np.full((10, 200), 7, ml_dtypes.float8_e4m3fn)
    nx.astype(x, "float8_e4m3fn", out=big[:, ::2])
    assert np.array_equal(big[:, ::2].view(np.uint8), nx.astype(x, "float8_e4m3fn").view(np.uint8))
    assert (big[:, 1::2].astype(np.float32) == 7).all()
    # packed out
    pk = np.zeros(500, np.uint8)
    assert nx.astype(x, "int4", out=pk, packed=True) is pk
    assert np.array_equal(pk, nx.astype(x, "int4", packed=True))


OUT_ERRORS = [
    (lambda x: np.empty(10, np.float32), dict(dtype="float16"), TypeError, "out: dtype float32"),
    (lambda x: np.empty(9, np.float16), dict(dtype="float16"), ValueError, "out: shape"),
    (lambda x: x.view(np.float16)[::4], dict(dtype="float16"), ValueError, "out: overlaps a"),
    (lambda x: np.empty(10, np.uint8), dict(dtype="int4", packed=True), ValueError, "out: expected a C-contiguous"),
    (lambda x: np.lib.stride_tricks.as_strided(np.empty(1, np.float16), (10,), (0,), writeable=True),
     dict(dtype="float16"), ValueError, "out: elements overlap"),
]


@pytest.mark.parametrize("make_out,kw,exc,match", OUT_ERRORS)
def test_out_untouched_after_an_error(make_out, kw, exc, match):
    x = np.linspace(-1, 1, 10)
    out = make_out(x)
    before, xbefore = out.tobytes(), x.tobytes()
    with pytest.raises(exc, match=match):
        nx.astype(x, out=out, **kw)
    assert out.tobytes() == before and x.tobytes() == xbefore


def test_out_read_only():
    out = np.zeros(3, np.float16)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out: is read-only"):
        nx.astype(np.ones(3), "float16", out=out)
    assert not out.any()


# ---- threads -------------------------------------------------------------

@pytest.mark.parametrize("s,d", [("float32", "float8_e4m3fn"), ("float64", "bfloat16"), ("float32", "float4_e2m1fn"),
                                 ("float4_e2m1fn", "float32"), ("int4", "float16"), ("float32", "bit")])
def test_threads_give_the_same_bytes(s, d):
    rng = np.random.default_rng(3)
    n = 3 * 65536 + 1001  # several pieces per thread, an odd tail
    a = nx.astype((rng.standard_normal(n) * 3).astype(np.float64), s)
    packed = d == "bit"
    runs = [nx.astype(a, d, threads=t, packed=packed) for t in (1, 2, 7)]
    runs.append(nx.astype(a, d, packed=packed))  # the default: every core past 1 MiB
    for r in runs[1:]:
        assert np.array_equal(r.view(np.uint8), runs[0].view(np.uint8))
    src, count = source_packed(a, s)
    assert np.array_equal(runs[0] if packed else packed_bytes(runs[0], d), c_convert(src, s, d, count))
    # Strided: n-dimensional runs split between threads.
    for view in (a[::-1], a[: n - 1001].reshape(-1, 1024)[:, ::-3]):
        one = nx.astype(view, d, threads=1, packed=packed)
        for t in (2, 7):
            assert np.array_equal(nx.astype(view, d, threads=t, packed=packed).view(np.uint8), one.view(np.uint8))
        assert np.array_equal(one.view(np.uint8),
                              nx.astype(np.ascontiguousarray(view), d, threads=1, packed=packed).view(np.uint8))


def test_threads_from_python_threads():
    """Conversions from several Python threads at once (the pool is busy
    for all but one: the others run alone) give each its own bytes."""
    x = np.random.default_rng(4).standard_normal((8, 300_000)).astype(np.float32)
    want = [nx.astype(row, "float8_e5m2", threads=1) for row in x]
    got = [None] * len(x)

    def work(i):
        got[i] = nx.astype(x[i], "float8_e5m2", threads=3)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(x))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for w, g in zip(want, got):
        assert np.array_equal(w.view(np.uint8), g.view(np.uint8))


def test_the_gil_is_released():
    """While one thread converts, another runs Python code. With the GIL
    held through the call, the counter could move only at the switch
    interval, set here far past the call's length."""
    x = np.random.default_rng(5).standard_normal(8 << 20)
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    t = threading.Thread(target=spin)
    t.start()
    try:
        moved = []
        for _ in range(3):
            c0 = count[0]
            nx.astype(x, "float16", threads=1)
            moved.append(count[0] - c0)
    finally:
        stop.set()
        sys.setswitchinterval(old)
        t.join()
    assert max(moved) > 1000, moved


# ---- Errors ----------------------------------------------------------------

ERRORS = [
    (lambda: nx.astype([1.0, 2.0], "float16"), TypeError, "astype: a: expected a numpy array"),
    (lambda: nx.astype(np.ones(2), "float17"), TypeError, "dtype: 'float17' names no dtype"),
    (lambda: nx.astype(np.ones(2), [1]), TypeError, "dtype: \\[1\\] names no dtype"),
    (lambda: nx.astype(np.ones(2), np.float128), TypeError, "numpy dtype float128 is not one of"),
    (lambda: nx.astype(np.ones(2), ml_dtypes.float8_e4m3fnuz), TypeError, "float8_e4m3fnuz is not one of"),
    (lambda: nx.astype(np.array(["a"]), "float16"), TypeError, "astype: a: numpy dtype <U1 is not one of"),
    (lambda: nx.astype(np.ones(2, ">f4"), "float16"), TypeError, "astype: a: dtype >f4 is byte-swapped"),
    (lambda: nx.astype(np.ones(2, np.dtype(ml_dtypes.bfloat16).newbyteorder(">")), "float16"), TypeError,
     "byte-swapped"),
    (lambda: nx.astype(np.ones(2), ">f2"), TypeError, "dtype: dtype >f2 is byte-swapped"),
    (lambda: nx.astype(np.ones(2), "bit"), ValueError, "bit has no numpy dtype; pass packed=True"),
    (lambda: nx.astype(np.ones(2), "float16", packed=1), TypeError, "packed: expected True or False"),
    (lambda: nx.astype(np.ones(2), "float16", threads=0), ValueError, "threads: must be at least 1"),
    (lambda: nx.astype(np.ones(2), "float16", threads=2.0), TypeError, "threads: expected an int"),
    (lambda: nx.astype(np.ones(2), "float16", out=[0, 0]), TypeError, "out: expected a numpy array"),
    (lambda: nx.Packed(np.zeros(3, np.uint8), "int4", 7), ValueError, "3 bytes, but 7 elements of int4 packed take 4"),
    (lambda: nx.Packed(np.zeros(3, np.int8), "int4"), TypeError, "data: expected a uint8"),
    (lambda: nx.Packed(np.zeros((4, 4), np.uint8)[:, 0], "int4"), ValueError, "C-contiguous"),
    (lambda: nx.Packed(np.zeros(3, np.uint8), "int4", (2, -1)), ValueError, "shape: expected a tuple"),
    (lambda: nx.Packed(np.zeros(3, np.uint8), "int5"), TypeError, "'int5' names no dtype"),
    (lambda: nx.format([1]), TypeError, "format: a: expected a numpy array"),
    (lambda: nx.format(np.ones(1, "<M8[s]")), TypeError, "format: a: numpy dtype datetime64"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()

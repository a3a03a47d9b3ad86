"""Bulk conversion through ctypes, against numpy / ml_dtypes where they agree
with SEMANTICS.md, and against an exact reference (fractions) written here;
where our rule departs from theirs (float8_e4m3fn saturates, float4_e2m1fn
NaN -> +0, NaN payloads, integer saturation, single rounding from float64)
the rule is asserted explicitly."""

import bisect
import ctypes
import os
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

lib = ctypes.CDLL(os.environ["NX_DTYPE_LIB"])
lib.nx_convert.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64]
lib.nx_convert_strided.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                   ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]
lib.nx_kernel_isa.restype = ctypes.c_char_p

# Out-of-range casts on the numpy side are compared only where defined.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in cast:RuntimeWarning")

CODE = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3, "float8_e4m3fn": 4, "float8_e5m2": 5,
        "float4_e2m1fn": 6, "int64": 7, "uint64": 8, "int32": 9, "uint32": 10, "int16": 11, "uint16": 12,
        "int8": 13, "uint8": 14, "int4": 15, "uint4": 16}
NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
      "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
      "int32": np.int32, "uint32": np.uint32, "int16": np.int16, "uint16": np.uint16, "int8": np.int8,
      "uint8": np.uint8, "int64": np.int64, "uint64": np.uint64}
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
# (exponent bits, fraction bits, specials) as in SEMANTICS.md
FMT = {"float32": (8, 23, "ieee"), "float16": (5, 10, "ieee"), "bfloat16": (8, 7, "ieee"),
       "float8_e4m3fn": (4, 3, "fn"), "float8_e5m2": (5, 2, "ieee"), "float4_e2m1fn": (2, 1, "finite")}


def convert(src, src_name, dst_name):
    """Convert a numpy array of src_name elements (bytes for sub-byte dtypes
    given as one element per uint8) with nx_convert; returns raw bits."""
    n = len(src)
    if src_name in ("float4_e2m1fn", "int4", "uint4"):
        src = pack4(src)
    src = np.ascontiguousarray(src)
    if dst_name in ("float4_e2m1fn", "int4", "uint4"):
        out = np.zeros((n + 1) // 2, np.uint8)
    else:
        out = np.zeros(n, NP[dst_name])
    st = lib.nx_convert(CODE[src_name], src.ctypes.data, CODE[dst_name], out.ctypes.data, n)
    assert st == 0
    if dst_name in ("float4_e2m1fn", "int4", "uint4"):
        return unpack4(out, n)
    return out.view(UINT[out.itemsize * 8])


def pack4(v):
    v = np.asarray(v, np.uint8) & 15
    if len(v) % 2:
        v = np.append(v, 0)
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)


def unpack4(b, n):
    out = np.empty(2 * len(b), np.uint8)
    out[0::2] = b & 15
    out[1::2] = b >> 4
    return out[:n]


def value(name, bits):
    """The exact value of a float element: Fraction, 'inf', '-inf' or 'nan'."""
    e, f, sp = FMT[name]
    sign = -1 if bits >> (e + f) & 1 else 1
    exp = (bits >> f) & ((1 << e) - 1)
    frac = bits & ((1 << f) - 1)
    top = exp == (1 << e) - 1
    if sp == "ieee" and top:
        return ("inf" if sign > 0 else "-inf") if frac == 0 else "nan"
    if sp == "fn" and top and frac == (1 << f) - 1:
        return "nan"
    bias = (1 << (e - 1)) - 1
    if exp == 0:
        return sign * Fraction(frac, 1 << f) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(frac, 1 << f)) * Fraction(2) ** (exp - bias)


def finite_table(name):
    e, f, sp = FMT[name]
    vals, bits = [], []
    for b in range(1 << (e + f)):
        v = value(name, b)
        if isinstance(v, Fraction):
            vals.append(v)
            bits.append(b)
    # the next value past the largest, exponent unbounded: its pattern is the
    # largest finite one plus one, so ties break by that parity
    ulp = vals[-1] - vals[-2]
    vals.append(vals[-1] + ulp)
    bits.append(None)
    return vals, bits


FINITE = {n: finite_table(n) for n in ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn")}


def round_exact_fixed(name, x, neg=None):
    """Bits of the Fraction x (of sign `neg`, for zeros) rounded once into
    `name`: nearest, ties to the even pattern; past the largest finite value
    (the next value of the unbounded exponent) infinity or saturation."""
    vals, bits = FINITE[name]
    e, f, sp = FMT[name]
    sign = 1 << (e + f) if (x < 0 if neg is None else neg) else 0
    a = abs(x)
    i = bisect.bisect_right(vals, a) - 1
    if i == len(vals) - 1:
        pick = i
    elif vals[i] == a:
        pick = i
    else:
        d0, d1 = a - vals[i], vals[i + 1] - a
        even_i = bits[i] % 2 == 0  # i < len - 1: a real pattern
        pick = i if d0 < d1 or (d0 == d1 and even_i) else i + 1
    b = bits[pick]
    if b is None:
        top_finite = bits[pick - 1]
        b = ((1 << e) - 1) << f if sp == "ieee" else top_finite
    return sign | b


def nan_rule(name, neg, payload_bits, payload_width):
    """SEMANTICS.md's NaN: quiet, sign kept, top payload bits kept."""
    e, f, sp = FMT[name]
    if sp == "finite":
        return 0
    sign = (1 << (e + f)) if neg else 0
    if sp == "fn":
        return sign | ((1 << (e + f)) - 1)
    keep = f - 1
    top = payload_bits >> (payload_width - keep) if payload_width >= keep else payload_bits << (keep - payload_width)
    return sign | (((1 << e) - 1) << f) | (1 << (f - 1)) | top


def f32_samples():
    rng = np.random.default_rng(5)
    r = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    # every bfloat16 and float16 value as float32, and their midpoints' neighbours
    h = np.arange(2**16, dtype=np.uint16)
    hf = h.view(np.float16).astype(np.float32).view(np.uint32)
    bf = h.astype(np.uint32) << 16
    extra = np.concatenate([hf, hf + 1, hf - 1, bf, bf + 0x8000, bf + 0x7FFF, bf + 0x8001])
    return np.concatenate([r, extra]).astype(np.uint32)


def test_isa_is_named():
    isa = lib.nx_kernel_isa().decode()
    assert isa in ("scalar", "portable", "avx2", "avx512", "neon")
    cap = os.environ.get("NX_DTYPE_ISA")
    if cap in ("scalar", "portable"):
        assert isa == cap


@pytest.mark.parametrize("dst", ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_float32_to_narrow_vs_ml_dtypes(dst):
    bits = f32_samples()
    x = bits.view(np.float32)
    got = convert(x, "float32", dst)
    theirs = x.astype(NP[dst]).view(UINT[16 if dst in ("float16", "bfloat16") else 8])
    e, f, sp = FMT[dst]
    maxv = float(max(v for v in FINITE[dst][0][:-1]))
    finite = np.isfinite(x)
    in_range = finite & (np.abs(x) <= maxv)
    np.testing.assert_array_equal(got[in_range], theirs[in_range])
    # Past the range: infinity, or saturation in e4m3fn (ml_dtypes gives NaN).
    big = ~np.isnan(x) & ~in_range
    for b, g in zip(bits[big][:5000], got[big][:5000]):
        want = round_exact_fixed(dst, Fraction(float(np.float32(b.view(np.float32))))) \
            if np.isfinite(b.view(np.float32)) else (
                (1 << (e + f) if b >> 31 else 0) | (((1 << e) - 1) << f if sp == "ieee" else 0x7E))
        assert g == want, (hex(b), hex(g), hex(want))
    # NaNs: the rule, explicitly.
    nans = np.isnan(x)
    for b, g in zip(bits[nans][:3000], got[nans][:3000]):
        want = nan_rule(dst, bool(b >> 31), int(b) & ((1 << 22) - 1), 22)
        assert g == want, (hex(b), hex(g), hex(want))


def test_float32_to_float4_exact():
    bits = f32_samples()[:60_000]
    x = bits.view(np.float32)
    got = convert(x, "float32", "float4_e2m1fn")
    for b, v, g in zip(bits, x, got):
        if np.isnan(v):
            assert g == 0  # no NaN in e2m1fn: +0
        elif np.isinf(v):
            assert g == (0xF if v < 0 else 0x7)  # saturates at -6 / 6
        else:
            assert g == round_exact_fixed("float4_e2m1fn", Fraction(float(v)), bool(np.signbit(v))), hex(b)
    # ml_dtypes agrees on the finite values in range.
    ok = np.isfinite(x) & (np.abs(x) <= 6)
    theirs = x[ok].astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 15
    np.testing.assert_array_equal(got[ok], theirs)


@pytest.mark.parametrize("dst", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
@pytest.mark.parametrize("src", ["float16", "bfloat16"])
def test_sixteen_bits_to_narrow_every_pattern(src, dst):
    """Every float16/bfloat16 pattern into the float8/float4 formats (the
    AVX-512 level rounds these in their 16-bit codes): ml_dtypes where it
    agrees with our rule, the rule itself past the range and for NaNs."""
    e, f, sp = FMT[dst]
    raw = np.arange(2**16, dtype=np.uint32)
    x = raw.astype(np.uint16).view(NP[src])
    got = convert(x, src, dst)
    wide = x.astype(np.float32)
    maxv = float(max(v for v in FINITE[dst][0][:-1]))
    in_range = np.isfinite(wide) & (np.abs(wide) <= maxv)
    theirs = x[in_range].astype(NP[dst]).view(np.uint8)
    np.testing.assert_array_equal(got[in_range], theirs & (15 if f == 1 else 255))
    for b in raw[~in_range]:
        v, neg = wide[b], bool(b >> 15)
        if np.isnan(v):
            pw = 9 if src == "float16" else 6  # payload bits below the quiet bit
            want = nan_rule(dst, neg, int(b) & ((1 << pw) - 1), pw)
        elif np.isinf(v):
            want = (1 << (e + f) if neg else 0) | (((1 << e) - 1) << f if sp == "ieee" else FINITE[dst][1][-2])
        else:
            want = round_exact_fixed(dst, Fraction(float(v)))
        assert got[b] == want, (src, hex(b), hex(got[b]), hex(want))


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"])
def test_narrow_to_float32_every_pattern(src):
    e, f, sp = FMT[src]
    n = 1 << (1 + e + f)
    raw = np.arange(n, dtype=np.uint32)
    if src == "float4_e2m1fn":
        arr = raw.astype(np.uint8)
    else:
        arr = raw.astype(UINT[1 + e + f]).view(NP[src])
    got = convert(arr, src, "float32")
    for b, g in zip(raw, got):
        v = value(src, int(b))
        if v == "nan":
            neg = bool(b >> (e + f))
            payload = int(b) & ((1 << (f - 1)) - 1) if sp == "ieee" else 0
            want = (0x80000000 if neg else 0) | 0x7FC00000 | (payload << (22 - (f - 1)) if sp == "ieee" else 0)
            assert g == want, (hex(b), hex(g))
        elif isinstance(v, str):
            assert g == (0xFF800000 if v == "-inf" else 0x7F800000)
        else:
            assert Fraction(float(np.uint32(g).view(np.float32))) == v
            assert (g >> 31) == (b >> (e + f))  # the sign of zero too
    if src != "float4_e2m1fn":
        theirs = arr.astype(np.float32)
        ok = ~np.isnan(theirs)
        np.testing.assert_array_equal(got[ok], theirs.view(np.uint32)[ok])


@pytest.mark.parametrize("dst", ["float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                 "float4_e2m1fn"])
def test_float64_single_rounding(dst):
    rng = np.random.default_rng(9)
    vals, _ = FINITE.get(dst, (None, None))
    xs = []
    if vals is not None:
        pts = [float(v) for v in vals[:-1]]
        for a, b in zip(pts, pts[1:]):
            mid = (a + b) / 2
            xs += [a, mid, np.nextafter(mid, 0), np.nextafter(mid, 1e300)]
        # double-rounding traps: just above a midpoint by less than a float32 ulp
        xs += [m + abs(m) * 2.0 ** -40 for m in xs[1::4]]
    xs += list(rng.standard_normal(20_000) * 10.0 ** rng.integers(-45, 40, 20_000))
    x = np.array(xs + [-v for v in xs], np.float64)
    got = convert(x, "float64", dst)
    for v, g in zip(x, got):
        if dst == "float32":
            want = np.float32(v).view(np.uint32)  # numpy's float64 -> float32 rounds once
        else:
            want = round_exact_fixed(dst, Fraction(float(v)), bool(np.signbit(v))) if abs(v) < 1e300 else None
        if want is not None:
            assert g == want, (v, hex(g), hex(want))
    if dst == "float16":
        # numpy converts float64 -> float16 directly (one rounding) too.
        ok = np.abs(x) < 65504
        np.testing.assert_array_equal(got[ok], x[ok].astype(np.float16).view(np.uint16))


def test_integers_saturate_and_truncate():
    x = np.array([-1e10, -129.5, -128.9, -0.9, -0.0, 0.9, 127.9, 128.0, 1e10, np.inf, -np.inf, np.nan], np.float32)
    assert list(convert(x, "float32", "int8").view(np.int8)) == [-128, -128, -128, 0, 0, 0, 127, 127, 127, 127,
                                                                 -128, 0]
    assert list(convert(x, "float32", "uint8")) == [0, 0, 0, 0, 0, 0, 127, 128, 255, 255, 0, 0]
    assert list(convert(x, "float32", "int4")) == [8, 8, 8, 0, 0, 0, 7, 7, 7, 7, 8, 0]  # -8 is 0b1000
    i = np.array([-2**31, -5, 0, 300, 2**31 - 1], np.int32)
    assert list(convert(i, "int32", "uint8")) == [0, 0, 0, 255, 255]
    # in range numpy agrees (truncation)
    r = np.random.default_rng(3).uniform(-127, 127, 10_000).astype(np.float32)
    np.testing.assert_array_equal(convert(r, "float32", "int8").view(np.int8), r.astype(np.int8))


@pytest.mark.parametrize("dst", ["float16", "bfloat16"])
def test_int32_rounds_once(dst):
    rng = np.random.default_rng(1)
    i = np.concatenate([rng.integers(-2**31, 2**31, 50_000), [2**31 - 1, -2**31, 65519, 65520, 16777217,
                                                              2**24 + 2**13 + 1]]).astype(np.int32)
    got = convert(i, "int32", dst)
    for v, g in zip(i[:5000], got[:5000]):
        assert g == round_exact_fixed(dst, Fraction(int(v))), (v, hex(g))
    if dst == "float16":
        np.testing.assert_array_equal(got, i.astype(np.float64).astype(np.float16).view(np.uint16))


def test_strided_views():
    x = np.arange(-50, 50, dtype=np.float32) / 7
    out = np.full(300, 0x7777, np.uint16)
    st = lib.nx_convert_strided(CODE["float32"], x.ctypes.data, 99, -1, CODE["bfloat16"], out.ctypes.data, 1, 3, 100)
    assert st == 0
    want = x[::-1].astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(out[1:300:3], want)
    untouched = np.ones(300, bool)
    untouched[1:300:3] = False
    assert (out[untouched] == 0x7777).all()


def test_statuses():
    x = np.zeros(8, np.float32)
    y = np.zeros(8, np.float16)
    assert lib.nx_convert(-1, x.ctypes.data, 2, y.ctypes.data, 8) == -1
    assert lib.nx_convert(1, x.ctypes.data, 2, y.ctypes.data, -1) == -3
    assert lib.nx_convert(1, None, 2, y.ctypes.data, 8) == -2
    assert lib.nx_convert(1, None, 2, None, 0) == 0
    assert lib.nx_convert(1, x.ctypes.data, 2, x.ctypes.data + 4, 4) == -6


WIDE = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "uint64": np.uint64,
        "int32": np.int32, "uint32": np.uint32, "complex128": np.complex128, "complex64": np.complex64,
        "bool": np.bool_}
WIDE_CODE = {**CODE, "complex128": 17, "complex64": 18, "bool": 19}


def convert_wide(src, src_name, dst_name):
    """nx_convert of a numpy array into a new array of the destination dtype."""
    src = np.ascontiguousarray(src, WIDE[src_name])
    out = np.zeros(len(src), WIDE[dst_name])
    assert lib.nx_convert(WIDE_CODE[src_name], src.ctypes.data, WIDE_CODE[dst_name], out.ctypes.data, len(src)) == 0
    return out


def wide_source(name, rng, n=20_000):
    """Random values spanning the type, its range ends and (floats) the
    other types' range ends with their neighbours, NaN and infinities."""
    if name in ("float64", "float32", "complex128", "complex64"):
        part = np.float64 if name in ("float64", "complex128") else np.float32
        ends = [2.0**k for k in (31, 32, 52, 53, 63, 64)]
        # The integer types' range ends, and a few integers and halves inside.
        ints = [float(e) + d for t in (np.int32, np.uint32, np.int64, np.uint64)
                for e in (np.iinfo(t).min, np.iinfo(t).max) for d in (-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2)]
        edges = [e for k in ends for e in (k, -k)] + ints + [np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5, -0.5, 1.5]
        edges = np.array(edges, part)
        edges = np.concatenate([edges, np.nextafter(edges, part(np.inf)), np.nextafter(edges, part(-np.inf))])
        x = np.concatenate([edges, (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 22, n)).astype(part)])
        if name.startswith("complex"):
            c = np.empty(len(x), WIDE[name])
            c.real, c.imag = x, rng.permutation(x)
            return c
        return x
    if name == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    info = np.iinfo(WIDE[name])
    ends = np.array([info.min, info.min + 1, info.max - 1, info.max, 0, 1], WIDE[name])
    x = rng.integers(info.min, info.max, n, dtype=WIDE[name], endpoint=True)
    # Integers near powers of two, where rounding into a float is decided.
    near = np.array([(1 << k) + d for k in range(20, info.bits - (info.min < 0)) for d in (-1, 0, 1)], np.uint64)
    return np.concatenate([ends, x, near.astype(WIDE[name])])


@pytest.mark.parametrize("s,d", [(s, d) for s in ("float64", "float32", "complex128", "complex64")
                                 for d in ("int64", "uint64", "int32", "uint32")])
def test_wide_float_to_int_vs_numpy(s, d):
    """Truncation agrees with numpy in range; past it our integers saturate
    and NaN is 0 (SEMANTICS.md), where numpy's result is undefined."""
    x = wide_source(s, np.random.default_rng(7))
    got = convert_wide(x, s, d)
    re = np.real(x).astype(np.float64)
    info = np.iinfo(WIDE[d])
    inside = np.isfinite(re) & (re > float(info.min) - 1) & (re < float(info.max) + 1) & (np.abs(re) < 2.0**63)
    with np.errstate(invalid="ignore"):
        want = np.trunc(re[inside]).astype(WIDE[d])
    np.testing.assert_array_equal(got[inside], want)
    assert (got[np.isnan(re)] == 0).all()
    assert (got[~np.isnan(re) & (re >= float(info.max))] == info.max).all()
    assert (got[~np.isnan(re) & (re <= float(info.min))] == info.min).all()


@pytest.mark.parametrize("s,d", [(s, d) for s in ("int64", "uint64", "int32", "uint32")
                                 for d in ("float64", "float32", "complex128", "complex64")
                                 if not (s.endswith("32") and d in ("float64", "complex128"))] +
                         [("int32", "float64"), ("uint32", "complex128")])
def test_wide_int_to_float_vs_numpy(s, d):
    """numpy's int -> float casts round once to nearest-even, as ours must."""
    x = wide_source(s, np.random.default_rng(8))
    got = convert_wide(x, s, d)
    np.testing.assert_array_equal(got, x.astype(WIDE[d]))


@pytest.mark.parametrize("s,d", [("int64", "int32"), ("int64", "uint32"), ("uint64", "int32"), ("uint64", "uint32"),
                                 ("int64", "uint64"), ("uint64", "int64"), ("int32", "int64"), ("int32", "uint64"),
                                 ("uint32", "int64"), ("uint32", "uint64")])
def test_wide_int_to_int_saturates(s, d):
    x = wide_source(s, np.random.default_rng(9))
    got = convert_wide(x, s, d)
    info = np.iinfo(WIDE[d])
    want = [min(max(int(v), info.min), info.max) for v in x]
    assert [int(v) for v in got] == want


@pytest.mark.parametrize("s,d", [("complex128", "complex64"), ("complex64", "complex128"), ("float64", "complex128"),
                                 ("float32", "complex64"), ("complex128", "float64"), ("complex64", "float32"),
                                 ("complex128", "float32"), ("float64", "complex64"), ("complex64", "bool"),
                                 ("complex128", "bool"), ("bool", "complex128")])
def test_complex_vs_numpy(s, d):
    """Complex casts: parts rounded once (numpy agrees), a complex to a real
    type is its real part, to bool nonzero if either part is; NaN stays NaN."""
    x = wide_source(s, np.random.default_rng(10))
    got = convert_wide(x, s, d)
    with np.errstate(invalid="ignore", over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        want = x.astype(WIDE[d])
    if d == "bool":
        np.testing.assert_array_equal(got, (np.real(x) != 0) | (np.imag(x) != 0))
        return
    for part in ((np.real, np.imag) if d.startswith("complex") else (np.real,)):
        g, w = part(got), part(want)
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.isnan(g), nan)
        np.testing.assert_array_equal(g[~nan], w[~nan])

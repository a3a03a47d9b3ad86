"""make bench-portable: the portable kernel level against the scalar
reference and numpy / ml_dtypes, for every pair numpy and ml_dtypes have,
at 64 Ki and 1 Mi elements, one thread. Writes a markdown table and the
tally of the level's targets to the path given (bench/results/portable.md).

The library is loaded twice, from two copies of its file, one choosing the
level `portable` and the other `scalar` (NX_DTYPE_ISA is read at a copy's
first conversion), so that both levels run in one process and their calls
are timed in turn with numpy's, as bench_convert.py times its columns: the
arguments built once as ctypes objects, each column's batches alternated.
Beside them, one read of the source and one write of the destination
(bench/floors.c): no conversion is faster than either, so their slower
one bounds every rate of the row ("floor")."""

import ctypes
import os
import shutil
import sys
import tempfile

import ml_dtypes
import numpy as np
from timing import best_times, host

LIB = os.environ["NX_DTYPE_LIB"]
FLOORS = ctypes.CDLL(os.environ["NX_BENCH_FLOORS_LIB"])
FLOORS.nx_bench_read.restype = ctypes.c_uint64

CODE = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3, "float8_e4m3fn": 4, "float8_e5m2": 5,
        "float4_e2m1fn": 6, "int64": 7, "uint64": 8, "int32": 9, "uint32": 10, "int16": 11, "uint16": 12,
        "int8": 13, "uint8": 14, "int4": 15, "uint4": 16, "complex128": 17, "complex64": 18, "bool": 19}
NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
      "float4_e2m1fn": ml_dtypes.float4_e2m1fn, "int64": np.int64, "uint64": np.uint64, "int32": np.int32,
      "uint32": np.uint32, "int16": np.int16, "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8,
      "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4, "complex128": np.complex128,
      "complex64": np.complex64, "bool": np.bool_}
NUMPY_OWN = {"float64", "float32", "float16", "int64", "uint64", "int32", "uint32", "int16", "uint16", "int8",
             "uint8", "complex128", "complex64", "bool"}
INTS = {"int64", "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8", "int4", "uint4"}
SIZES = (64 << 10, 1 << 20)

# The pairs the level must run at 10x the scalar reference's rate in cache.
HOT = [("float32", "float16"), ("float16", "float32"), ("float32", "bfloat16"), ("bfloat16", "float32"),
       ("float32", "float8_e4m3fn"), ("float32", "float8_e5m2"), ("float32", "float4_e2m1fn"),
       ("float64", "float32"), ("float64", "float16"), ("float64", "bfloat16"), ("int8", "float32"),
       ("float32", "int8")]


def load(level, tmp):
    """The library, from a copy of its own, running `level`."""
    path = os.path.join(tmp, f"libnx_dtype_{level}.so")
    shutil.copy(LIB, path)
    os.environ["NX_DTYPE_ISA"] = level
    lib = ctypes.CDLL(path)
    lib.nx_convert.restype = ctypes.c_int32
    lib.nx_kernel_isa.restype = ctypes.c_char_p
    got = lib.nx_kernel_isa().decode()
    if got != level:
        sys.exit(f"asked for level {level}, the library runs {got}")
    return lib


def bits(name):
    return np.dtype(NP[name]).itemsize * 8 if name not in ("int4", "uint4", "float4_e2m1fn") else 4


def make_source(name, n, rng):
    """Standard normal values, or integers in range, or random bools."""
    if name in INTS:
        b = bits(name)
        lo, hi = (-(1 << (b - 1)), 1 << (b - 1)) if name.startswith("int") else (0, 1 << b)
        return rng.integers(lo, hi, n, dtype=np.int64 if b < 64 else NP[name]).astype(NP[name])
    if name == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    x = rng.standard_normal(n)
    if name.startswith("complex"):
        x = x + 1j * rng.standard_normal(n)
    return x.astype(NP[name])


def packed(name, src):
    """The library's bytes of `src`: two 4-bit elements a byte, low first."""
    if bits(name) != 4:
        return src
    raw = np.ascontiguousarray(src).view(np.uint8) & 15
    return (raw[0::2] | (raw[1::2] << 4)).astype(np.uint8)


def target(s, d):
    """(other library, the least portable / other rate wanted): as fast as
    ml_dtypes, and as numpy where numpy's loop is scalar (its float16
    casts); half numpy's rate where numpy's loop is vectorized."""
    if s in NUMPY_OWN and d in NUMPY_OWN:
        return "numpy", 1.0 if "float16" in (s, d) else 0.5
    return "ml_dtypes", 1.0


def measure(libs, s, d, n, rng):
    """A row: the best seconds a call of each level, of numpy or ml_dtypes
    (None where it has no such cast), of a read and of a write."""
    src = make_source(s, n, rng)
    ours = packed(s, src)
    out_bytes = (n * bits(d) + 7) // 8
    out = np.zeros(out_bytes, np.uint8)
    fns = []
    for lib in libs:
        args = (ctypes.c_int32(CODE[s]), ctypes.c_void_p(ours.ctypes.data), ctypes.c_int32(CODE[d]),
                ctypes.c_void_p(out.ctypes.data), ctypes.c_int64(n))
        if lib.nx_convert(*args) != 0:
            sys.exit(f"{s} -> {d}: nx_convert failed")
        fns.append(lambda f=lib.nx_convert, a=args: f(*a))
    theirs = np.empty(n, NP[d])
    try:
        np.copyto(theirs, src, casting="unsafe")
        fns.append(lambda: np.copyto(theirs, src, casting="unsafe"))
    except (TypeError, ValueError):
        fns.append(None)
    rargs = (ctypes.c_void_p(ours.ctypes.data), ctypes.c_size_t(ours.nbytes))
    wargs = (ctypes.c_void_p(out.ctypes.data), ctypes.c_size_t(out_bytes))
    fns += [lambda: FLOORS.nx_bench_read(*rargs), lambda: FLOORS.nx_bench_write(*wargs)]
    timed = best_times([f for f in fns if f is not None], ours.nbytes + out_bytes)
    t = iter(timed)
    portable, scalar = next(t), next(t)
    them = next(t) if fns[2] is not None else None
    read, write = next(t), next(t)
    return dict(s=s, d=d, n=n, portable=portable, scalar=scalar, them=them, floor=max(read, write))


def rate(r, key):
    return r["n"] / r[key] / 1e9


def main(out_path):
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        libs = [load("portable", tmp), load("scalar", tmp)]
        only = os.environ.get("BENCH_ONLY")
        pairs = ([tuple(p.split("->")) for p in only.split(",")] if only else
                 [(s, d) for s in CODE for d in CODE if s != d])
        rows = []
        for s, d in pairs:
            for n in SIZES:
                r = measure(libs, s, d, n, rng)
                rows.append(r)
                other, want = target(s, d)
                them = f"{other} {rate(r, 'them'):7.3f}" if r["them"] else f"{other}    none"
                print(f"{s:>14} -> {d:<14} {n >> 10:>5} Ki  portable {rate(r, 'portable'):7.3f}  "
                      f"scalar {rate(r, 'scalar'):7.3f}  {them}  floor {rate(r, 'floor'):7.3f} Gelem/s",
                      flush=True)
    write(out_path, rows)
    print("wrote", out_path)


def write(out_path, rows):
    lines = ["# The portable level against the scalar reference, numpy and ml_dtypes", "",
             f"`make bench-portable`, one thread, {host()}, numpy {np.__version__}, ml_dtypes "
             f"{ml_dtypes.__version__}. Gelem/s of `nx_convert` at the levels `portable` and `scalar` "
             "(two copies of the library in one process, called through ctypes with prebuilt arguments), "
             "of `np.copyto(out, src, casting='unsafe')` into a preallocated array, and the floor: one read "
             "of the source or one write of the destination (`bench/floors.c`), whichever is slower, the "
             "most any conversion could reach. Sources: standard normal values, integers in range. The "
             "columns of a row are timed in turn, batch by batch, best of 5 batches. \"want\" is the "
             "portable / other ratio the level aims at: 1 against ml_dtypes and numpy's scalar float16 "
             "loops, 0.5 against numpy's vectorized ones.", ""]
    lines += tally(rows) + [""] + hot(rows) + [""]
    lines += ["## Every pair", "",
              "| pair | elements | portable | scalar | portable / scalar | other | other Gelem/s | "
              "portable / other | want | floor |", "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        other, want = target(r["s"], r["d"])
        them = f"{rate(r, 'them'):.3f} | {r['them'] / r['portable']:.2f}" if r["them"] else "none | -"
        lines.append(f"| {r['s']} -> {r['d']} | {r['n'] >> 10} Ki | {rate(r, 'portable'):.3f} | "
                     f"{rate(r, 'scalar'):.3f} | {r['scalar'] / r['portable']:.1f} | {other} | {them} | "
                     f"{want:g} | {rate(r, 'floor'):.3f} |")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


def tally(rows):
    """The rows that meet their ratio to numpy or ml_dtypes, and those that
    miss it, by target and size."""
    out = ["## Against numpy and ml_dtypes", "",
           "| target | elements | met | missed (portable / other; floor / other) |", "|---|---:|---:|---|"]
    groups = [("1x ml_dtypes", lambda s, d: target(s, d) == ("ml_dtypes", 1.0)),
              ("1x numpy, float16 casts", lambda s, d: target(s, d) == ("numpy", 1.0)),
              ("0.5x numpy, vectorized casts", lambda s, d: target(s, d) == ("numpy", 0.5))]
    for name, member in groups:
        for n in SIZES:
            cells = [r for r in rows if member(r["s"], r["d"]) and r["n"] == n and r["them"]]
            if not cells:
                continue
            want = target(cells[0]["s"], cells[0]["d"])[1]
            missed = [r for r in cells if r["them"] / r["portable"] < want]
            notes = ", ".join(f"{r['s']} -> {r['d']} {r['them'] / r['portable']:.2f} "
                              f"({r['them'] / r['floor']:.2f})" for r in missed)
            out.append(f"| {name} | {n >> 10} Ki | {len(cells) - len(missed)} of {len(cells)} | {notes} |")
    return out


def hot(rows):
    """The hot pairs: portable over scalar in cache (64 Ki), against 10x."""
    out = ["## The hot pairs against 10x the scalar reference", "",
           "At 64 Ki elements. \"floor / scalar\" is the most any conversion could show over the scalar "
           "reference in this run: a row whose floor is under 10 is out of reach by memory alone.", "",
           "| pair | portable | scalar | portable / scalar | floor / scalar |", "|---|---:|---:|---:|---:|"]
    for s, d in HOT:
        for r in rows:
            if (r["s"], r["d"]) == (s, d) and r["n"] == SIZES[0]:
                out.append(f"| {s} -> {d} | {rate(r, 'portable'):.3f} | {rate(r, 'scalar'):.3f} | "
                           f"{r['scalar'] / r['portable']:.1f} | {r['scalar'] / r['floor']:.1f} |")
    return out


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/portable.md")

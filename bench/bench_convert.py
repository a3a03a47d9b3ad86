"""make bench: nx_convert (through ctypes on numpy arrays) against memcpy of
the same bytes, numpy and ml_dtypes, same sizes, same run, one thread.
Writes a markdown table to the path given (bench/results/convert.md) and
writes what BENCHMARKS.md shows of it beside (convert_report.py)."""

import ctypes
import os
import sys

import ml_dtypes
import numpy as np
import convert_report
from targets import LISTED_FLOAT, LISTED_INT, SIZES, report, size_label
from timing import best_times, host

lib = ctypes.CDLL(os.environ["NX_DTYPE_LIB"])
# Arguments are built once as ctypes objects and the call has no argtypes:
# the cheapest ctypes call, so small sizes measure the library, not ctypes.
lib.nx_convert.restype = ctypes.c_int32
lib.nx_kernel_isa.restype = ctypes.c_char_p
libc = ctypes.CDLL(None)
libc.memcpy.restype = ctypes.c_void_p
libc.memset.restype = ctypes.c_void_p
# bench/floors.c: one read of the source and one write of the destination
# (times no conversion can beat), and plain copy loops (memcpy's column is
# the fastest of glibc's and these).
floor_lib = ctypes.CDLL(os.environ["NX_BENCH_FLOORS_LIB"])
COPIES = (libc.memcpy, floor_lib.nx_bench_copy, floor_lib.nx_bench_copy_prefetch, floor_lib.nx_bench_copy_stream)
READS = (floor_lib.nx_bench_read, floor_lib.nx_bench_read_prefetch)
for f in READS:
    f.restype = ctypes.c_uint64
WRITES = (floor_lib.nx_bench_write, floor_lib.nx_bench_write_stream)

CODE = {"float64": 0, "float32": 1, "float16": 2, "bfloat16": 3, "float8_e4m3fn": 4, "float8_e5m2": 5,
        "float4_e2m1fn": 6, "int64": 7, "uint64": 8, "int32": 9, "uint32": 10, "int16": 11, "uint16": 12, "int8": 13, "uint8": 14, "int4": 15,
        "uint4": 16, "complex128": 17, "complex64": 18, "bool": 19}
NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
      "float4_e2m1fn": ml_dtypes.float4_e2m1fn, "int8": np.int8, "uint8": np.uint8, "int4": ml_dtypes.int4,
      "uint4": ml_dtypes.uint4, "int64": np.int64, "uint64": np.uint64, "int32": np.int32, "uint32": np.uint32,
      "int16": np.int16, "uint16": np.uint16,
      "complex128": np.complex128, "complex64": np.complex64, "bool": np.bool_}
# Bits an element, from the library's own table of dtypes.
lib.nx_dtype_bits.restype = ctypes.c_int32
BITS = {name: lib.nx_dtype_bits(ctypes.c_int32(code)) for name, code in CODE.items()}
PAIRS = [("float32", "float16"), ("float16", "float32"), ("float32", "bfloat16"), ("bfloat16", "float32"),
         ("float32", "float8_e4m3fn"), ("float8_e4m3fn", "float32"), ("float32", "float8_e5m2"),
         ("float8_e5m2", "float32"), ("float32", "float4_e2m1fn"), ("float4_e2m1fn", "float32"),
         ("float64", "float32"), ("float32", "float64"), ("float64", "float16"), ("float64", "bfloat16"),
         ("float64", "float8_e4m3fn"), ("float64", "float4_e2m1fn"), ("int8", "float32"), ("float32", "int8")]
# The rest of the listed pairs (targets.py): float64 -> float8_e5m2, float16/bfloat16 <-> float8, and the small
# integers <-> float32/float16/bfloat16.
PAIRS += [("float64", "float8_e5m2")]
PAIRS += [(a, b) for h in ("float16", "bfloat16") for f in ("float8_e4m3fn", "float8_e5m2") for a, b in ((h, f), (f, h))]
PAIRS += [(a, b) for i in ("int8", "uint8", "int4", "uint4") for f in ("float32", "float16", "bfloat16")
          for a, b in ((i, f), (f, i)) if (i, f) != ("int8", "float32")]
# Beyond the listed pairs: 16-bit floats quantized to float4 (as model weights are), and pairs numpy
# users move, numpy's own dtypes (so numpy is the comparison).
PAIRS += [("bfloat16", "float4_e2m1fn"), ("float16", "float4_e2m1fn")]
PAIRS += [("float32", "int32"), ("int32", "float32"), ("float64", "int64"), ("int64", "float64"),
          ("float64", "int32"), ("int32", "float64"), ("int64", "int32"), ("uint8", "int32"),
          ("complex64", "complex128"), ("complex128", "complex64"), ("float32", "complex64"),
          ("float64", "bool"), ("bool", "float32")]
# Among the float8 and float4 formats (by table lookup where AVX512-VBMI is), against ml_dtypes.
PAIRS += [("float8_e4m3fn", "float8_e5m2"), ("float8_e4m3fn", "float4_e2m1fn")]
assert set(LISTED_FLOAT + LISTED_INT) <= set(PAIRS), "a listed pair is not benchmarked"


def make_source(name, n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    if name in ("int8", "uint8", "int4", "uint4", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        bits = BITS[name]
        lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if name.startswith("int") else (0, 1 << bits)
        return rng.integers(lo, hi, n, dtype=np.int64 if bits < 64 else NP[name]).astype(NP[name])
    if name == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if name in ("float64", "complex128", "complex64"):
        y = rng.standard_normal(n)
        if name.startswith("complex"):
            y = y + 1j * rng.standard_normal(n)
        return y.astype(NP[name])
    return x.astype(NP[name])


def call_costs():
    """Seconds per call that moves nothing (n = 0, empty arrays): what a
    Python caller pays per call before any element is converted."""
    a = np.zeros(64, np.float64)
    b = np.zeros(64, np.float32)
    args = (ctypes.c_int32(0), ctypes.c_void_p(a.ctypes.data), ctypes.c_int32(1),
            ctypes.c_void_p(b.ctypes.data), ctypes.c_int64(0))
    conv = lib.nx_convert
    ea, eb = a[:0], b[:0]
    ours, theirs = best_times([lambda: conv(*args), lambda: np.copyto(eb, ea, casting="unsafe")], 0)
    return ours, theirs


def figures(r):
    """A row's columns from its times: Gelem/s, GB/s, x memcpy, x read, x
    write, the other library's Gelem/s, our speedup over it."""
    return (r["n"] / r["ours"] / 1e9, r["moved"] / r["ours"] / 1e9, r["memcpy"] / r["ours"], r["read"] / r["ours"],
            r["write"] / r["ours"], r["n"] / r["them"] / 1e9, r["them"] / r["ours"])


def main(out_path):
    rng = np.random.default_rng(0)
    isa = lib.nx_kernel_isa().decode()
    # The run's times, a dict a row: the table's columns (`figures`) and
    # the targets' tally (targets.py) both come from them.
    timed = []
    cost_ours, cost_numpy = call_costs()
    # BENCH_ONLY="float32->float16,..." (any pairs, listed or not) and BENCH_SIZES="4096,..." narrow a run.
    only = os.environ.get("BENCH_ONLY")
    pairs = [tuple(p.split("->")) for p in only.split(",")] if only else PAIRS
    sizes = [int(x) for x in os.environ["BENCH_SIZES"].split(",")] if os.environ.get("BENCH_SIZES") else SIZES
    for s, d in pairs:
        for size in sizes:
            n = size * 8 // BITS[s]
            src = make_source(s, n, rng)
            if BITS[s] == 4:
                raw = np.ascontiguousarray(src).view(np.uint8) & 15
                packed = (raw[0::2] | (raw[1::2] << 4)).astype(np.uint8)
            else:
                packed = src
            out_bytes = (n * BITS[d] + 7) // 8
            out = np.zeros(out_bytes, np.uint8)
            args = (ctypes.c_int32(CODE[s]), ctypes.c_void_p(packed.ctypes.data), ctypes.c_int32(CODE[d]),
                    ctypes.c_void_p(out.ctypes.data), ctypes.c_int64(n))
            conv = lib.nx_convert
            assert conv(*args) == 0
            moved = size + out_bytes
            half = moved // 2
            a = np.ones(half, np.uint8)
            b = np.zeros(half, np.uint8)
            margs = (ctypes.c_void_p(b.ctypes.data), ctypes.c_void_p(a.ctypes.data), ctypes.c_size_t(half))
            rargs = (ctypes.c_void_p(packed.ctypes.data), ctypes.c_size_t(size))
            theirs = np.empty(n, NP[d])
            numpy_own = ("float64", "float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                         "int64", "uint64", "complex64", "complex128", "bool")
            other = "numpy" if s in numpy_own and d in numpy_own else "ml_dtypes"
            # Default arguments bind each function now, not at the call.
            wargs = (ctypes.c_void_p(out.ctypes.data), ctypes.c_size_t(out_bytes))
            memset_args = (ctypes.c_void_p(out.ctypes.data), ctypes.c_int(0x5A), ctypes.c_size_t(out_bytes))
            groups = ([lambda: conv(*args)], [lambda f=f: f(*margs) for f in COPIES],
                      [lambda f=f: f(*rargs) for f in READS],
                      [lambda f=f: f(*wargs) for f in WRITES] + [lambda: libc.memset(*memset_args)],
                      [lambda: np.copyto(theirs, src, casting="unsafe")])
            t = iter(best_times([f for g in groups for f in g], size))
            # The fastest of each group.
            t_ours, t_memcpy, t_read, t_write, t_them = (min(next(t) for _ in g) for g in groups)
            del a, b, theirs
            timed.append(dict(s=s, d=d, size=size, n=n, moved=moved, ours=t_ours, memcpy=t_memcpy, read=t_read,
                              write=t_write, other=other, them=t_them))
            ge, gb, xm, xr, xw, gt, sp = figures(timed[-1])
            print(f"{s:>14} -> {d:<14} {size:>10} B  {ge:7.3f} Gelem/s {gb:6.1f} GB/s  "
                  f"{xm:5.2f}x memcpy  {xr:5.2f}x read  {xw:5.2f}x write  {other} {gt:7.3f} Gelem/s  "
                  f"{sp:6.1f}x", flush=True)
            del src, packed, out
    with open(out_path, "w") as f:
        f.write(f"# Bulk conversion: nx_convert vs memcpy, numpy, ml_dtypes\n\n")
        f.write(f"`make bench`, one thread, level `{isa}`, {host()}, "
                f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}. Source: standard normal values "
                f"(random integers for the integer sources). GB/s counts bytes read + written; \"x memcpy\" is memcpy's time "
                f"for the same number of bytes moved (half read, half written) over ours, memcpy being the "
                f"fastest of glibc's and three copy loops (`bench/floors.c`: plain, prefetching, streaming); numpy / ml_dtypes "
                f"run `np.copyto(out, src, casting='unsafe')` into a preallocated array; nx_convert and memcpy "
                f"are called through ctypes with prebuilt arguments; the columns of a row are timed in turn, batch "
                f"by batch (best of 5 batches, 3 at 256 MiB). \"x read\" is the time of one read of "
                f"the source alone (`bench/floors.c`, the faster of with and without prefetch) over ours: "
                f"a conversion at the read floor shows 1.00. \"x write\" is the same for one write of the "
                f"destination alone (the fastest of glibc's memset and `bench/floors.c`'s loops with ordinary "
                f"and non-temporal stores).\n\n"
                f"A call that moves nothing (n = 0) costs {cost_ours * 1e9:.0f} ns through ctypes; "
                f"`np.copyto` of empty arrays costs {cost_numpy * 1e9:.0f} ns.\n\n")
        f.write("| pair | source bytes | Gelem/s | GB/s | x memcpy | x read | x write | other | other Gelem/s "
                "| speedup |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
        for r in timed:
            ge, gb, xm, xr, xw, gt, sp = figures(r)
            f.write(f"| {r['s']} -> {r['d']} | {size_label(r['size'])} | {ge:.3f} | {gb:.1f} | {xm:.2f} | {xr:.2f} | "
                    f"{xw:.2f} | {r['other']} | {gt:.3f} | {sp:.1f}x |\n")
        f.write("\n" + "\n".join(report(timed, cost_ours)) + "\n")
    print("wrote", out_path)
    convert_report.main(out_path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/convert.md")

"""make bench-python: nx_dtype.astype (the Python package) against ml_dtypes'
and numpy's astype, and torch's .to() where torch is installed, for float32 /
float64 to and from float16, bfloat16, float8_e4m3fn, float8_e5m2 and
float4_e2m1fn; the cost of a call on one element and what bounds it; threads.
Writes a markdown report, with a tally against the targets, to the path given
(bench/results/python.md). Run it in the venv the package is installed in."""

import ctypes
import os
import platform
import sys
import time

import ml_dtypes
import numpy as np
from cffi import FFI
from timing import best_times

import nx_dtype
from nx_dtype import _binding

try:
    import torch
except ImportError:
    torch = None

NARROW = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]
WIDE = ["float32", "float64"]
PAIRS = [(w, n) for n in NARROW for w in WIDE] + [(n, w) for n in NARROW for w in WIDE]
NP = {"uint8": np.uint8, "float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
      "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
      "float4_e2m1fn": ml_dtypes.float4_e2m1fn}
TORCH = {} if torch is None else {
    "float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float8_e4m3fn": getattr(torch, "float8_e4m3fn", None), "float8_e5m2": getattr(torch, "float8_e5m2", None)}
# The size of a row: the bytes of its float32 / float64 side, so that a pair
# and its way back move the same elements.
SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]
ML_SPEEDUP, NUMPY_SPEEDUP, THREADS_SPEEDUP, CALL_NS = 20.0, 8.0, 1.6, 1000.0


def label(size):
    return f"{size >> 10} KiB" if size < (1 << 20) else f"{size >> 20} MiB"


def other_of(s, d):
    """numpy converts to and from float16 itself; ml_dtypes the others."""
    return "numpy" if "float16" in (s, d) else "ml_dtypes"


def host():
    model = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
                 platform.processor())
    return f"{platform.node()}, {model}, {os.cpu_count()} CPUs, Linux {platform.release()}"


def load():
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def call_costs():
    """ns a call on a one-element array, and the parts that bound it."""
    a = np.ones(1, np.float32)
    r = np.empty(1, ml_dtypes.float8_e4m3fn)
    f8 = ml_dtypes.float8_e4m3fn
    ffi, lib = _binding.ffi, _binding.lib
    pa, pr = ffi.from_buffer(a), ffi.from_buffer(r)
    ia, ir = a.ctypes.data, r.ctypes.data
    # The same library through ctypes and through cffi's ABI mode, to compare the bindings.
    cl = ctypes.CDLL(_binding.LIB_PATH)
    cl.nx_convert.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64]
    cl.nx_convert.restype = ctypes.c_int32
    abi = FFI()
    abi.cdef("int32_t nx_convert(int32_t, const void *, int32_t, void *, int64_t);")
    al = abi.dlopen(_binding.LIB_PATH)
    qa, qr = abi.cast("void *", ia), abi.cast("void *", ir)
    rows = [
        ("nx_dtype.astype(a, 'float8_e4m3fn')", lambda: nx_dtype.astype(a, "float8_e4m3fn")),
        ("nx_dtype.astype(a, 'float16')", lambda: nx_dtype.astype(a, "float16")),
        ("a.astype(ml_dtypes.float8_e4m3fn)", lambda: a.astype(f8)),
        ("a.astype(np.float16)", lambda: a.astype(np.float16)),
        ("np.empty(a.shape, float8_e4m3fn) (part of ours)", lambda: np.empty(a.shape, f8)),
        ("ffi.from_buffer(a) (part of ours, twice)", lambda: ffi.from_buffer(a)),
        ("cffi API-mode call, n = 1 (ours)", lambda: lib.nxpy_convert(1, pa, 4, pr, 1)),
        ("cffi ABI-mode call, n = 1", lambda: al.nx_convert(1, qa, 4, qr, 1)),
        ("ctypes call with argtypes, n = 1", lambda: cl.nx_convert(1, ia, 4, ir, 1)),
        ("a.ctypes.data (ctypes' way to the pointer)", lambda: a.ctypes.data),
        ("a.__array_interface__['data'][0]", lambda: a.__array_interface__["data"][0]),
    ]
    times = best_times([f for _, f in rows], 0)
    return [(name, t * 1e9) for (name, _), t in zip(rows, times)]


def source(name, n, rng):
    return (rng.standard_normal(n) * 3).astype(NP[name])


def bench_rows(only, sizes):
    rng = np.random.default_rng(0)
    out = []
    for s, d in PAIRS:
        if only and f"{s}->{d}" not in only:
            continue
        wide = s if s in WIDE else d
        for size in sizes:
            n = size // np.dtype(wide).itemsize
            a = source(s, n, rng)
            other = other_of(s, d)
            # Default arguments bind each function to this row's arrays now.
            fns = [lambda a=a, d=d: nx_dtype.astype(a, d), lambda a=a, d=d: nx_dtype.astype(a, d, threads=1),
                   lambda a=a, t=NP[d]: a.astype(t)]
            ts, td = TORCH.get(s), TORCH.get(d)
            ta = None
            if ts is not None and td is not None:
                # torch reads numpy's own dtypes; ml_dtypes' go over as their raw bits.
                raw = a if s in ("float64", "float32", "float16") else a.view(np.uint16 if a.itemsize == 2 else np.uint8)
                ta = torch.from_numpy(raw).view(ts)
                fns.append(lambda ta=ta, td=td: ta.to(td))
            # Same bytes as the other library, where it follows the same rules, is tested elsewhere;
            # here only that both produce an array of the same dtype.
            assert nx_dtype.astype(a, d).dtype == a.astype(NP[d]).dtype
            t = best_times(fns, max(size, n * np.dtype(NP[d]).itemsize))
            row = dict(s=s, d=d, size=size, n=n, ours=t[0], one=t[1], them=t[2], other=other,
                       torch=t[3] if ta is not None else None)
            out.append(row)
            print(f"{s:>14} -> {d:<14} {label(size):>8}  ours {n / t[0] / 1e9:7.3f} Gelem/s "
                  f"(1 thread {n / t[1] / 1e9:7.3f})  {other} {n / t[2] / 1e9:7.3f}  x{t[2] / t[0]:7.1f}", flush=True)
            del a, ta
    return out


def threads_rows():
    """threads=2 against threads=1 at 1 Mi elements, into a preallocated
    array (out=), the same arrays each call: in cache, no page faults."""
    rng = np.random.default_rng(1)
    n = 1 << 20
    out = []
    # The last row bounds the others: a copy (a move to the same dtype) of
    # the bytes float32 -> float16 moves, 3 MiB each way.
    for s, d in [("float32", x) for x in NARROW] + [(x, "float32") for x in NARROW] + [("uint8", "uint8")]:
        count = 3 * n if s == "uint8" else n
        a = source(s, count, rng) if s != "uint8" else np.ones(count, np.uint8)
        o = np.empty(count, NP.get(d, np.uint8))
        t1, t2 = best_times([lambda: nx_dtype.astype(a, d, out=o, threads=1),
                             lambda: nx_dtype.astype(a, d, out=o, threads=2)], n * 4)
        out.append(dict(s=s, d=d, one=t1, two=t2))
        print(f"threads {s:>14} -> {d:<14} 1: {t1 * 1e6:8.1f} us  2: {t2 * 1e6:8.1f} us  x{t1 / t2:.2f}", flush=True)
    return out


def tally(rows, costs, trows):
    """Each target: its cells, the met ones, and each miss."""
    lines = ["## Against the targets", "",
             "A miss's \"ceiling of a call\" is the other library's time over the cost of our call on one element "
             "(above): the speedup a call of ours would show were its conversion free.", ""]
    ours_ns = costs[0][1]
    lines.append(f"- A call on a one-element array <= {CALL_NS:.0f} ns: {ours_ns:.0f} ns, "
                 f"{'met' if ours_ns <= CALL_NS else 'missed'} (ml_dtypes' own astype: {costs[2][1]:.0f} ns, "
                 f"numpy's: {costs[3][1]:.0f} ns, this run).")
    for what, pick, want in (
            (f">= {ML_SPEEDUP:.0f}x ml_dtypes on the float8 / float4 pairs from 64 KiB up",
             lambda r: ("float8" in r["s"] + r["d"] or "float4" in r["s"] + r["d"]) and r["size"] >= 64 << 10,
             ML_SPEEDUP),
            (f">= {NUMPY_SPEEDUP:.0f}x numpy on the float16 pairs from 64 KiB up",
             lambda r: r["other"] == "numpy" and r["size"] >= 64 << 10, NUMPY_SPEEDUP),
            ("never slower than numpy or ml_dtypes (every size, every pair)", lambda r: True, 1.0)):
        cells = [r for r in rows if pick(r)]
        misses = [r for r in cells if r["them"] / r["ours"] < want]
        lines.append(f"- {what}: {len(cells) - len(misses)} of {len(cells)} cells met.")
        for r in misses:
            # The most any call of ours could show, were its conversion free.
            ceiling = r["them"] / (ours_ns * 1e-9)
            lines.append(f"  - missed: {r['s']} -> {r['d']} at {label(r['size'])}: {r['them'] / r['ours']:.2f}x "
                         f"(one thread: {r['them'] / r['one']:.2f}x; ceiling of a call: {ceiling:.1f}x"
                         f"{', out of reach' if ceiling < want else ''})")
    *pairs, copy = trows
    ok = [r for r in pairs if r["one"] / r["two"] >= THREADS_SPEEDUP]
    lines.append(f"- threads=2 >= {THREADS_SPEEDUP}x threads=1 at 1 Mi elements in cache: {len(ok)} of {len(pairs)} "
                 f"pairs met; a copy of float32 -> float16's bytes (uint8 -> uint8, 3 MiB each way), which bounds "
                 f"them, gains {copy['one'] / copy['two']:.2f}x from the second thread.")
    for r in pairs:
        if r not in ok:
            lines.append(f"  - missed: {r['s']} -> {r['d']}: {r['one'] / r['two']:.2f}x")
    return lines


def main(path):
    start_load = load()
    t0 = time.time()
    only = set(os.environ["BENCH_ONLY"].split(",")) if os.environ.get("BENCH_ONLY") else None
    costs = call_costs()
    for name, ns in costs:
        print(f"{ns:8.0f} ns  {name}", flush=True)
    trows = threads_rows()
    # BENCH_ONLY="float32->float16,..." and BENCH_SIZES="4096,..." narrow a run.
    sizes = [int(x) for x in os.environ["BENCH_SIZES"].split(",")] if os.environ.get("BENCH_SIZES") else SIZES
    rows = bench_rows(only, sizes)
    lines = [
        "# nx_dtype.astype against ml_dtypes, numpy and torch",
        "",
        f"`make bench-python`, one run: {host()}; kernel level `{nx_dtype.kernel_isa()}`; nx_dtype "
        f"{nx_dtype.__version__}, numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, "
        f"{'torch ' + torch.__version__ if torch else 'torch not installed'}; Python {platform.python_version()}. "
        f"Load average (1 / 5 / 15 min) {start_load} at the start, {load()} at the end "
        f"({time.time() - t0:.0f} s).",
        "",
        "Each cell is the best of a few batches (`bench/timing.py`), the columns of a row taken in turn. "
        "`astype` allocates its result, as `a.astype` does. \"ours\" is `nx_dtype.astype(a, dtype)` with its "
        "default threads (one below 1 MiB of work, every core above); \"1 thread\" is `threads=1`; "
        "\"other\" is `a.astype(dtype)`, which numpy runs for the float16 pairs and ml_dtypes for the others. "
        "A size is the bytes of the row's float32 / float64 array, so a pair and its way back move the same "
        "elements.",
        "",
        "## A call on one element",
        "",
        "| call | ns |",
        "|---|---:|",
    ]
    lines += [f"| `{name}` | {ns:.0f} |" for name, ns in costs]
    lines += ["", "## Threads: 1 Mi elements into a preallocated array", "",
              "The last row is a copy (uint8 -> uint8) of the bytes float32 -> float16 moves: what two threads "
              "gain on moving these bytes at all bounds what they gain on converting them.", "",
              "| pair | threads=1 us | threads=2 us | speedup |", "|---|---:|---:|---:|"]
    lines += [f"| {r['s']} -> {r['d']} | {r['one'] * 1e6:.1f} | {r['two'] * 1e6:.1f} | {r['one'] / r['two']:.2f}x |"
              for r in trows]
    head = "| pair | size | ours Gelem/s | 1 thread Gelem/s | other | other Gelem/s | speedup | 1-thread speedup |"
    rule = "|---|---:|---:|---:|---|---:|---:|---:|"
    if torch:
        head += " torch Gelem/s |"
        rule += "---:|"
    lines += ["", "## Conversions", "", head, rule]
    for r in rows:
        n = r["n"]
        line = (f"| {r['s']} -> {r['d']} | {label(r['size'])} | {n / r['ours'] / 1e9:.3f} | {n / r['one'] / 1e9:.3f} "
                f"| {r['other']} | {n / r['them'] / 1e9:.3f} | {r['them'] / r['ours']:.1f}x | "
                f"{r['them'] / r['one']:.1f}x |")
        if torch:
            line += f" {n / r['torch'] / 1e9:.3f} |" if r["torch"] else " - |"
        lines.append(line)
    lines += [""] + tally(rows, costs, trows)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/python.md")

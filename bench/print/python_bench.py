"""Context for make bench-print: Python's repr (float64) and numpy's shortest
repr (float32, float16) per value, and nx_format through ctypes, on random
finite values. Prints a markdown table (ns per value)."""
import ctypes as C
import os
import time

import numpy as np

N = 200_000
lib = C.CDLL(os.environ["NX_DTYPE_LIB"])
lib.nx_format.argtypes = [C.c_int32, C.c_void_p, C.c_char_p, C.c_size_t]
lib.nx_format.restype = C.c_int64
buf = C.create_string_buffer(64)


def best(f, n, rounds=3):
    t = min(_once(f) for _ in range(rounds))
    return t / n * 1e9


def _once(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


rng = np.random.default_rng(1)
rows = []
for name, code, ut, ft, ct in [
    ("float64", 0, np.uint64, np.float64, C.c_uint64),
    ("float32", 1, np.uint32, np.float32, C.c_uint32),
    ("float16", 2, np.uint16, np.float16, C.c_uint16),
]:
    bits = rng.integers(0, np.iinfo(ut).max, size=3 * N, dtype=ut, endpoint=True)
    vals = bits.view(ft)
    keep = np.isfinite(vals)
    bits, vals = bits[keep][:N], vals[keep][:N]
    if code == 0:
        xs = vals.tolist()
        py = best(lambda: [repr(x) for x in xs], N)
    else:
        py = None
    nv = list(vals[: N // 10])
    npy = best(lambda: [np.format_float_positional(x, unique=True) for x in nv], len(nv))
    elem = ct()
    bl = bits.tolist()

    def ours():
        for b in bl:
            elem.value = b
            lib.nx_format(code, C.byref(elem), buf, 64)

    ct_ns = best(ours, N)
    rows.append((name, py, npy, ct_ns))

print()
print("| format | Python repr | numpy format_float_positional(unique) | nx_format via ctypes |")
print("|---|---:|---:|---:|")
for name, py, npy, ct_ns in rows:
    pys = f"{py:.0f}" if py is not None else "n/a"
    print(f"| {name} | {pys} | {npy:.0f} | {ct_ns:.0f} |")
print()
print("ns per value from Python, interpreter overhead included (context only).")

"""make bench-strided: nx_convert_strided (through ctypes) against numpy's
copyto of the same strided views, numpy's own dtypes, same run, one thread,
the two timed in turn batch by batch. Writes a markdown table to the path
given (bench/results/strided_numpy.md)."""

import ctypes
import math
import os
import sys

import numpy as np
from timing import best_times, host

lib = ctypes.CDLL(os.environ["NX_DTYPE_LIB"])
lib.nx_convert_strided.restype = ctypes.c_int32
lib.nx_kernel_isa.restype = ctypes.c_char_p

CODE = {"float64": 0, "float32": 1, "float16": 2, "int64": 7, "int32": 9, "int8": 13, "uint8": 14,
        "complex128": 17, "complex64": 18, "bool": 19}
PAIRS = [("float32", "float64"), ("float64", "float32"), ("float32", "float16"), ("float16", "float32"),
         ("int8", "float32"), ("float32", "int8"), ("float32", "int32"), ("int32", "float32"),
         ("int32", "float64"), ("float64", "int32"), ("int64", "float64"), ("float64", "int64"),
         ("uint8", "int32"), ("complex64", "complex128"), ("complex128", "complex64"),
         ("float32", "complex64"), ("bool", "float32")]
# (source stride, destination stride), in elements.
LAYOUTS = [(2, 1), (1, 2), (-1, 1), (2, 2)]
SIZES = [1024, 65536]


def source(name, count, rng):
    if name == "bool":
        return rng.integers(0, 2, count).astype(np.bool_)
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return rng.integers(max(info.min, -100), min(info.max, 100), count).astype(name)
    if name.startswith("complex"):
        return (rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(name)
    return rng.standard_normal(count).astype(name)


def main(out_path):
    rng = np.random.default_rng(7)
    rows, ratios = [], []
    for n in SIZES:
        for ss, ds in LAYOUTS:
            for s, d in PAIRS:
                base = source(s, n * abs(ss), rng)
                src = base[::ss]
                out_base = np.zeros(n * ds, dtype=d)
                out = out_base[::ds]
                # Element 0 of the view is element `first` of the buffer.
                first = 0 if ss > 0 else n - 1
                args = [ctypes.c_int32(CODE[s]), ctypes.c_void_p(base.ctypes.data), ctypes.c_int64(first),
                        ctypes.c_int64(ss), ctypes.c_int32(CODE[d]), ctypes.c_void_p(out_base.ctypes.data),
                        ctypes.c_int64(0), ctypes.c_int64(ds), ctypes.c_int64(n)]
                if lib.nx_convert_strided(*args) != 0:
                    sys.exit(f"nx_convert_strided failed: {s} -> {d}, strides {ss}, {ds}")
                ours_out = out.copy()
                np.copyto(out, src, casting="unsafe")
                # Same values where numpy's cast is ours (the floats and the integers in range here;
                # NaN compared as NaN): a check that the two move the same elements.
                if not np.array_equal(ours_out, out, equal_nan=d.startswith(("float", "complex"))):
                    sys.exit(f"results differ: {s} -> {d}, strides {ss}, {ds}")
                t_ours, t_np = best_times([lambda: lib.nx_convert_strided(*args),
                                           lambda: np.copyto(out, src, casting="unsafe")], 0)
                ratios.append(t_np / t_ours)
                rows.append(f"| {s} -> {d} | {ss} | {ds} | {n} | {n / t_ours * 1e-9:.3f} | "
                            f"{n / t_np * 1e-9:.3f} | {t_np / t_ours:.2f}x |")
    below = sum(r < 1.0 for r in ratios)
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    with open(out_path, "w") as f:
        f.write("# Strided conversion: nx_convert_strided vs numpy copyto\n\n")
        f.write(f"`make bench-strided`, one thread, level `{lib.nx_kernel_isa().decode()}`, "
                f"{host()}, numpy {np.__version__}. Strides in elements (a view's "
                "`[::k]`); the other side contiguous unless given; each cell the best of 5 batches "
                "of about 0.05 s, ours and numpy's in turn. Speedup: numpy's time over ours. "
                f"Geometric mean {geo:.2f}x over {len(ratios)} cells; {below} below 1.0x.\n\n")
        f.write("| pair | source stride | destination stride | elements | ours Gelem/s | "
                "numpy Gelem/s | speedup |\n|---|---:|---:|---:|---:|---:|---:|\n")
        f.write("\n".join(rows) + "\n")
    print(f"geometric mean {geo:.2f}x, {below} of {len(ratios)} below 1.0x")


if __name__ == "__main__":
    main(sys.argv[1])

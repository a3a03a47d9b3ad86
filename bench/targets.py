"""The performance targets of the bulk conversions (BENCHMARKS.md), tallied
from one `make bench` run, with the bound that limits each missed cell.
Used by bench_convert.py; its logic is tested by
tests/python/test_bench_targets.py.

A row is a dict: the pair (`s`, `d`), `size` (source bytes) and the best
times in seconds of the same run: `ours`, `memcpy` (the same bytes moved),
`read` (the source read once), `write` (the destination written once),
`them` (numpy or ml_dtypes, named by `other`). `empty` is what a call of
ours that converts nothing costs through ctypes in that run."""

import math

# The pairs the targets list. The 1.0x / 0.5x memcpy targets name the float
# pairs; the integer pairs are tallied against the same figures apart.
LISTED_FLOAT = [
    ("float32", "float16"), ("float16", "float32"), ("float32", "bfloat16"), ("bfloat16", "float32"),
    ("float32", "float8_e4m3fn"), ("float8_e4m3fn", "float32"), ("float32", "float8_e5m2"),
    ("float8_e5m2", "float32"), ("float32", "float4_e2m1fn"), ("float4_e2m1fn", "float32"),
    ("float64", "float32"), ("float32", "float64"), ("float64", "float16"), ("float64", "bfloat16"),
    ("float64", "float8_e4m3fn"), ("float64", "float8_e5m2"), ("float64", "float4_e2m1fn"),
] + [(a, b) for h in ("float16", "bfloat16") for f in ("float8_e4m3fn", "float8_e5m2")
     for a, b in ((h, f), (f, h))]
LISTED_INT = [(a, b) for i in ("int8", "uint8", "int4", "uint4") for f in ("float32", "float16", "bfloat16")
              for a, b in ((i, f), (f, i))]

IN_CACHE = (4 << 10, 256 << 10)
SIZES = IN_CACHE + (16 << 20, 256 << 20)
ML_DTYPES_SPEEDUP = 20.0
NUMPY_FLOAT16_SPEEDUP = 8.0


def size_label(size):
    return f"{size >> 10} KiB" if size < (1 << 20) else f"{size >> 20} MiB"


def memcpy_target(size):
    """The ratio to memcpy a listed pair must reach at `size`."""
    return 0.5 if size in IN_CACHE else 1.0


def floor_ceiling(r):
    """The most `x memcpy` any conversion could show: none takes less time
    than reading its source once or writing its destination once."""
    return r["memcpy"] / max(r["read"], r["write"])


def ctypes_ceiling(r, empty):
    """The most speedup over numpy / ml_dtypes a call of ours could show
    through ctypes: none takes less time than a call converting nothing."""
    return r["them"] / empty


def is_small_float(name):
    return name.startswith(("float8", "float4"))


def memcpy_misses(rows, pairs, size):
    """(cells, misses) of `pairs` at `size`; a miss is (row, x memcpy)."""
    cells = [r for r in rows if (r["s"], r["d"]) in pairs and r["size"] == size]
    ratios = [(r, r["memcpy"] / r["ours"]) for r in cells]
    return cells, [(r, x) for r, x in ratios if x < memcpy_target(size)]


def in_cache_rate(rows, r):
    """The pair's best rate (elements a second) at the in-cache sizes of this run, if any."""
    rates = [q["n"] / q["ours"] for q in rows if (q["s"], q["d"]) == (r["s"], r["d"]) and q["size"] in IN_CACHE]
    return max(rates, default=None)


def speedup_cells(rows):
    """(label, target, cells): the speedup targets and the rows each covers."""
    return [
        (f"{ML_DTYPES_SPEEDUP:g}x ml_dtypes, float8 and float4 pairs", ML_DTYPES_SPEEDUP,
         [r for r in rows if r["other"] == "ml_dtypes" and (is_small_float(r["s"]) or is_small_float(r["d"]))]),
        (f"{NUMPY_FLOAT16_SPEEDUP:g}x numpy, float16 pairs", NUMPY_FLOAT16_SPEEDUP,
         [r for r in rows if r["other"] == "numpy" and "float16" in (r["s"], r["d"])]),
        ("1x numpy or ml_dtypes, every pair", 1.0, rows),
    ]


def pair_label(r):
    return f"{r['s']} -> {r['d']}"


def down(x, places):
    """`x` rounded down to `places` decimals, so that no figure below its
    target prints as the target (0.996x as 0.99x, not 1.00x)."""
    return f"{math.floor(x * 10**places) / 10**places:.{places}f}"


def times(x):
    """A speedup, with two decimals below 10."""
    return down(x, 2 if x < 10 else 1) + "x"


def report(rows, empty):
    """Markdown lines: each target's met and missed cells, a missed cell
    with the ceiling that bounds it."""
    out = ["## Against the targets", "",
           "Each missed cell with its ceilings: \"floors\" is the most x memcpy any conversion could show "
           "(none takes less time than one read of its source or one write of its destination, both "
           "measured in this run); \"in cache\" is the cell's rate over the same pair's best rate at 4 KiB "
           "or 256 KiB (near 1.00: bound by its computation, not by memory); \"ctypes\" is the most speedup "
           "a call of ours could show, were its conversion free (an empty call costs "
           f"{empty * 1e9:.0f} ns this run). A ceiling under its target marks the cell out of reach.", "",
           "| target | size | met | missed (x memcpy or speedup; ceilings) |", "|---|---|---:|---|"]
    for name, pairs in (("listed float pairs", LISTED_FLOAT), ("listed integer pairs", LISTED_INT)):
        for size in SIZES:
            cells, misses = memcpy_misses(rows, pairs, size)
            if not cells:
                continue
            target = memcpy_target(size)
            notes = []
            for r, x in misses:
                ceil = floor_ceiling(r)
                rate = None if size in IN_CACHE else in_cache_rate(rows, r)
                cache = "" if rate is None else f", in cache {r['n'] / r['ours'] / rate:.2f}"
                out_of_reach = " (out of reach)" if ceil < target else ""
                notes.append(f"{pair_label(r)} {down(x, 2)} (floors {down(ceil, 2)}{out_of_reach}{cache})")
            out.append(f"| {target:g}x memcpy, {name} | {size_label(size)} | {len(cells) - len(misses)} of "
                       f"{len(cells)} | {'; '.join(notes)} |")
    for label, target, cells in speedup_cells(rows):
        for size in SIZES:
            here = [r for r in cells if r["size"] == size]
            if not here:
                continue
            notes = []
            for r in here:
                x = r["them"] / r["ours"]
                if x < target:
                    ceil = ctypes_ceiling(r, empty)
                    out_of_reach = " (out of reach)" if ceil < target else ""
                    notes.append(f"{pair_label(r)} {times(x)} (ctypes {times(ceil)}{out_of_reach})")
            out.append(f"| {label} | {size_label(size)} | {len(here) - len(notes)} of {len(here)} | "
                       f"{'; '.join(notes)} |")
    return out

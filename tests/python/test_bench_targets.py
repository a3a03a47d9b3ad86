"""bench/targets.py, the tally of `make bench` against the performance
targets (BENCHMARKS.md): its thresholds, its ceilings and which cells each
target covers, on rows made up here (no library needed)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import targets  # noqa: E402

KIB, MIB = 1 << 10, 1 << 20


def row(s, d, size, x_memcpy, speedup=100.0, other="ml_dtypes", read=0.1, write=0.1, n=1000):
    """A row whose conversion takes 1 s: memcpy `x_memcpy` s, the read and the
    write of that many seconds, the other library `speedup` s."""
    return dict(s=s, d=d, size=size, n=n, ours=1.0, memcpy=x_memcpy, read=read, write=write, other=other,
                them=speedup)


def line(lines, start):
    hits = [x for x in lines if x.startswith(start)]
    assert len(hits) == 1, (start, lines)
    return hits[0]


def test_listed_pairs_are_the_targets():
    # float32 <-> 5 formats, float64 <-> float32, float64 -> 5 narrower, float16/bfloat16 <-> 2 float8s.
    assert len(targets.LISTED_FLOAT) == 10 + 2 + 5 + 8 == len(set(targets.LISTED_FLOAT))
    assert len(targets.LISTED_INT) == 4 * 3 * 2 == len(set(targets.LISTED_INT))
    assert not set(targets.LISTED_FLOAT) & set(targets.LISTED_INT)
    assert ("float64", "float8_e5m2") in targets.LISTED_FLOAT
    assert ("float32", "float64") in targets.LISTED_FLOAT and ("float16", "float64") not in targets.LISTED_FLOAT


def test_memcpy_thresholds_at_each_size():
    p, q = ("float32", "float16"), ("float16", "float32")
    # 0.998x at 16 MiB: a miss, printed as one.
    rows = [row(*p, 256 * KIB, 0.5), row(*q, 256 * KIB, 0.49), row(*p, 16 * MIB, 1.0), row(*q, 16 * MIB, 0.998),
            row(*p, 4 * KIB, 0.2), row(*q, 4 * KIB, 0.7)]
    out = targets.report(rows, 1e-6)
    assert line(out, "| 0.5x memcpy, listed float pairs | 256 KiB |").startswith(
        "| 0.5x memcpy, listed float pairs | 256 KiB | 1 of 2 | float16 -> float32 0.49 ")
    assert "| 1 of 2 | float16 -> float32 0.99 " in line(out, "| 1x memcpy, listed float pairs | 16 MiB |")
    assert "| 1 of 2 | float32 -> float16 0.20 " in line(out, "| 0.5x memcpy, listed float pairs | 4 KiB |")
    # No integer pair in the run: no integer line.
    assert not [x for x in out if "integer" in x and x.startswith("| ")]


def test_floor_ceiling_marks_what_no_conversion_reaches():
    # memcpy 0.8 s; a write of the destination alone 1.0 s: at most 0.8x memcpy.
    slow = row("float8_e4m3fn", "float16", 16 * MIB, 0.8, write=1.0)
    # A read alone 0.5 s: at most 1.6x, so the miss is not out of reach.
    near = row("float8_e5m2", "float16", 16 * MIB, 0.8, read=0.5)
    # A write alone 0.8 s: at most 1.0x, the target itself, within reach.
    edge = row("float8_e4m3fn", "bfloat16", 16 * MIB, 0.8, write=0.8)
    assert targets.floor_ceiling(slow) == 0.8 and targets.floor_ceiling(near) == 1.6
    text = line(targets.report([slow, near, edge], 1e-6), "| 1x memcpy, listed float pairs | 16 MiB |")
    assert "float8_e4m3fn -> float16 0.80 (floors 0.80 (out of reach)" in text
    assert "float8_e5m2 -> float16 0.80 (floors 1.60)" in text
    assert "float8_e4m3fn -> bfloat16 0.80 (floors 1.00)" in text


def test_in_cache_share_names_a_computation_bound_cell():
    # 1000 elements in 1 s at 16 MiB; in 0.5 s at 256 KiB: half the in-cache rate.
    rows = [row("float32", "float8_e4m3fn", 16 * MIB, 0.9), row("float32", "float8_e4m3fn", 256 * KIB, 1.0)]
    rows[1]["ours"] = 0.5
    text = line(targets.report(rows, 1e-6), "| 1x memcpy, listed float pairs | 16 MiB |")
    assert "in cache 0.50)" in text
    # In cache itself: no share.
    assert "in cache" not in line(targets.report(rows, 1e-6), "| 0.5x memcpy, listed float pairs | 256 KiB |")


def test_speedup_targets_cover_their_pairs_and_ctypes_bounds_them():
    empty = 0.5
    rows = [
        row("float32", "float8_e4m3fn", 4 * KIB, 1.0, speedup=9.0),  # at most 18x through ctypes
        row("bfloat16", "float4_e2m1fn", 4 * KIB, 1.0, speedup=19.0),  # at most 38x
        row("float8_e5m2", "bfloat16", 4 * KIB, 1.0, speedup=20.0),
        row("float8_e4m3fn", "float4_e2m1fn", 4 * KIB, 1.0, speedup=10.0),  # at most 20x: within reach
        row("bfloat16", "float32", 4 * KIB, 1.0, speedup=2.0),  # not a float8/float4 pair
        row("float16", "float32", 4 * KIB, 1.0, speedup=7.9, other="numpy"),
        row("int8", "float32", 4 * KIB, 1.0, speedup=0.9, other="numpy"),  # not float16; slower than numpy
        row("int16", "float32", 4 * KIB, 1.0, speedup=0.996, other="numpy"),  # slower, if by less than 1%
    ]
    out = targets.report(rows, empty)
    ml = line(out, "| 20x ml_dtypes, float8 and float4 pairs | 4 KiB |")
    assert "| 1 of 4 |" in ml
    assert "float8_e4m3fn -> float4_e2m1fn 10.0x (ctypes 20.0x) |" in ml
    assert "float32 -> float8_e4m3fn 9.00x (ctypes 18.0x (out of reach))" in ml
    assert "bfloat16 -> float4_e2m1fn 19.0x (ctypes 38.0x)" in ml
    npy = line(out, "| 8x numpy, float16 pairs | 4 KiB |")
    assert "| 0 of 1 | float16 -> float32 7.90x (ctypes 15.8x)" in npy
    any_peer = line(out, "| 1x numpy or ml_dtypes, every pair | 4 KiB |")
    assert "| 6 of 8 | int8 -> float32 0.90x (ctypes 1.80x); int16 -> float32 0.99x (ctypes 1.99x) |" in any_peer

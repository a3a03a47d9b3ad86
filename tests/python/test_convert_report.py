"""bench/convert_report.py, what BENCHMARKS.md shows of `make bench`'s
table: the figures the picture draws and the table by pair, from a table
made up here (no library, no matplotlib needed)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import convert_report  # noqa: E402
import targets  # noqa: E402

TABLE = """# Bulk conversion: nx_convert vs memcpy, numpy, ml_dtypes

`make bench`, one thread, level `avx512`, Some CPU, 2 CPUs, x86_64, numpy 2.4.6, ml_dtypes 0.6.0. Source: standard normal values.

| pair | source bytes | Gelem/s | GB/s | x memcpy | x read | x write | other | other Gelem/s | speedup |
|---|---:|---:|---:|---:|---:|---:|---|---:|---:|
| float32 -> float16 | 4 KiB | 2.000 | 12.0 | 0.50 | 0.56 | 0.49 | numpy | 0.500 | 4.0x |
| float32 -> float16 | 256 MiB | 6.000 | 36.0 | 1.25 | 0.84 | 0.44 | numpy | 0.400 | 15.0x |
| float8_e4m3fn -> float32 | 16 MiB | 5.000 | 25.0 | 0.80 | 0.10 | 0.88 | ml_dtypes | 0.250 | 20.0x |

## Against the targets

| target | size | met | missed (x memcpy or speedup; ceilings) |
|---|---|---:|---|
| 0.5x memcpy, listed float pairs | 4 KiB | 25 of 25 |  |
"""


def test_rows_and_their_figures():
    rows = convert_report.parse(TABLE)
    assert [(r["s"], r["d"], r["size"]) for r in rows] == [
        ("float32", "float16", 4 << 10), ("float32", "float16", 256 << 20), ("float8_e4m3fn", "float32", 16 << 20)]
    small, large, fp8 = rows
    # Ours: the GB/s column. "x memcpy" is memcpy's time over ours: ours at
    # 12 GB/s and 0.5x memcpy is memcpy at 24 GB/s; 36 at 1.25x, memcpy at 28.8.
    assert small["ours"] == 12.0 and small["memcpy"] == pytest.approx(24.0)
    assert large["memcpy"] == pytest.approx(28.8)
    # The other library moves the same 6 bytes an element at its own rate:
    # 0.5 Gelem/s is 3 GB/s; 0.25 Gelem/s of 5-byte elements is 1.25 GB/s.
    assert small["them"] == pytest.approx(3.0) and small["other"] == "numpy"
    assert fp8["them"] == pytest.approx(1.25) and fp8["other"] == "ml_dtypes"


def test_caption_names_command_level_and_host():
    assert convert_report.host_line(TABLE) == (
        "`make bench`, one thread, level `avx512`, Some CPU, 2 CPUs, x86_64, numpy 2.4.6, ml_dtypes 0.6.0")


def test_hot_pairs_are_measured_by_every_make_bench():
    # make bench runs every listed pair at every size, so the picture is never short of a line.
    assert set(convert_report.HOT) <= set(targets.LISTED_FLOAT)


def test_by_pair_puts_every_size_of_a_pair_on_its_line():
    out = convert_report.by_pair(convert_report.parse(TABLE))
    assert out[0] == "| pair | 4 KiB | 16 MiB | 256 MiB | against | speedup 4 KiB / 16 MiB / 256 MiB |"
    assert out[1] == "|---|---:|---:|---:|---|---:|"
    # Sizes a pair was not run at stay empty; the figures are the table's own.
    assert out[2:] == [
        "| float32 -> float16 | 2.00 (0.50) |  | 6.00 (1.25) | numpy | 4.0x / - / 15.0x |",
        "| float8_e4m3fn -> float32 |  | 5.00 (0.80) |  | ml_dtypes | - / 20.0x / - |",
    ]

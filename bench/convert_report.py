"""What BENCHMARKS.md shows of `make bench`'s table (bench/results/
convert.md): the table by pair (convert_by_pair.md: one line a pair, every
size in it) and the picture (convert.svg: throughput against array size
for the hot pairs, ours beside memcpy of the same bytes and numpy or
ml_dtypes). bench_convert.py writes both after its table;

    python bench/convert_report.py [TABLE]         # make bench-report

writes them again from the table alone, without measuring.

Every figure comes from the table's columns: ours is its GB/s (bytes read
+ written); "x memcpy" is memcpy's time for the same bytes over ours, so
memcpy's GB/s is ours over it; the other library converts the same
elements at its own Gelem/s. Parsing and these figures need only the
standard library (tests/python/test_convert_report.py checks them);
drawing needs matplotlib, which the benchmarks' venv adds
(bench/requirements.txt)."""

import re
import sys
from pathlib import Path

from targets import SIZES, size_label

# The pairs of the picture: the widths most used in machine learning, both
# ways where both are listed.
HOT = [
    ("float32", "float16"), ("float16", "float32"), ("float32", "bfloat16"),
    ("float32", "float8_e4m3fn"), ("float8_e4m3fn", "float32"), ("float32", "float4_e2m1fn"),
]
# A row of the table (targets.size_label writes its sizes).
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20}
ROW = re.compile(r"^\|\s*(\w+) -> (\w+)\s*\|\s*(\d+) (KiB|MiB)\s*\|(.*)\|\s*$")


def parse(text):
    """The table's rows as dicts: pair, size (source bytes), our Gelem/s and
    x memcpy as printed, and the three throughputs the picture shows, in
    GB/s of bytes moved (read + written)."""
    rows = []
    for line in text.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        s, d, count, unit, rest = m.groups()
        cells = [c.strip() for c in rest.split("|")]
        # Gelem/s, GB/s, x memcpy, x read, x write, other, other Gelem/s, speedup
        gelem, gbs, x_memcpy = float(cells[0]), float(cells[1]), float(cells[2])
        other, other_gelem, speedup = cells[5], float(cells[6]), cells[7]
        rows.append(dict(
            s=s, d=d, size=int(count) * UNITS[unit], gelem=gelem, x_memcpy=cells[2], speedup=speedup,
            ours=gbs, memcpy=gbs / x_memcpy,
            # The same bytes an element, at the other library's element rate.
            other=other, them=gbs / gelem * other_gelem,
        ))
    return rows


def host_line(text):
    """The table's first sentence after its title: command, level, host, versions."""
    for line in text.splitlines():
        if line.startswith("`make bench`"):
            return line.split(". Source:")[0]
    return ""


def gelem(x):
    """Three significant figures: 0.654, 2.00, 13.3."""
    return f"{x:#.3g}" if x < 100 else f"{x:.0f}"


def by_pair(rows):
    """Markdown lines: one a pair, in the table's order; each size's cell is
    Gelem/s (x memcpy), then the speedups over the other library."""
    sizes = [s for s in SIZES if any(r["size"] == s for r in rows)]
    pairs = list(dict.fromkeys((r["s"], r["d"]) for r in rows))
    at = {(r["s"], r["d"], r["size"]): r for r in rows}
    out = ["| pair | " + " | ".join(size_label(s) for s in sizes) + " | against | speedup " +
           " / ".join(size_label(s) for s in sizes) + " |",
           "|---|" + "---:|" * len(sizes) + "---|---:|"]
    for s, d in pairs:
        cells = [at.get((s, d, z)) for z in sizes]
        first = next(c for c in cells if c)
        out.append(f"| {s} -> {d} | " + " | ".join(
            f"{gelem(c['gelem'])} ({c['x_memcpy']})" if c else "" for c in cells) +
            f" | {first['other']} | " + " / ".join(c["speedup"] if c else "-" for c in cells) + " |")
    return out


def draw(rows, caption, path):
    """Small multiples, one a hot pair present in `rows`, on one log-log
    scale, so that a 100x gap and a 1.2x one both read at a glance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # A byte-identical SVG for identical data: no date, fixed ids.
    plt.rcParams["svg.hashsalt"] = "nx_dtype"
    # Text as text, not glyph outlines: a third of the size, and searchable.
    plt.rcParams["svg.fonttype"] = "none"
    pairs = [p for p in HOT if any((r["s"], r["d"]) == p for r in rows)]
    if not pairs:
        print(f"convert_report: no hot pair in the table, {path} not drawn")
        return False
    cols = 3
    nrows = (len(pairs) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.0 * cols, 3.2 * nrows + 0.6), sharex=True,
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(pairs):]:
        ax.set_visible(False)
    for ax, (s, d) in zip(axes.flat, pairs):
        mine = sorted((r for r in rows if (r["s"], r["d"]) == (s, d)), key=lambda r: r["size"])
        x = [r["size"] for r in mine]
        ax.plot(x, [r["memcpy"] for r in mine], color="0.55", ls="--", marker="s", ms=4, label="memcpy, same bytes")
        ax.plot(x, [r["them"] for r in mine], color="tab:orange", ls=":", marker="^", ms=5,
                label="numpy / ml_dtypes")
        ax.plot(x, [r["ours"] for r in mine], color="tab:blue", lw=2.2, marker="o", ms=5, label="nx_convert")
        ax.set_title(f"{s} \u2192 {d}  (vs {mine[0]['other']})", fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(x, [size_label(v) for v in x], fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.tick_params(axis="y", labelsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("GB/s moved (read + written)", fontsize=9)
    for ax in axes[-1, :]:
        ax.set_xlabel("source array size", fontsize=9)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="upper center", ncol=3, fontsize=9, frameon=False)
    fig.text(0.5, 0.005, caption.replace("`", ""), ha="center", va="bottom", fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 0.94))
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    print("wrote", path)
    return True


def main(table="bench/results/convert.md"):
    text = Path(table).read_text()
    rows = parse(text)
    summary = Path(table).with_name(Path(table).stem + "_by_pair.md")
    summary.write_text(
        f"{host_line(text)}. Each cell: Gelem/s (x memcpy), from {Path(table).name}.\n\n" + "\n".join(by_pair(rows)) + "\n")
    print("wrote", summary)
    draw(rows, host_line(text), str(Path(table).with_suffix(".svg")))


if __name__ == "__main__":
    main(*sys.argv[1:])

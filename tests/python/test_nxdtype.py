"""The nxdtype command, driven as a user would: subprocess on the built
binary (NXDTYPE, else target/release/nxdtype), outputs checked against
numpy and ml_dtypes, .npy files through numpy.load / numpy.save."""
import math
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

# numpy warns when a cast meets NaN or overflows: here that is the point.
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in cast:RuntimeWarning")

ROOT = Path(__file__).resolve().parents[2]
NXDTYPE = os.environ.get("NXDTYPE", str(ROOT / "target/release/nxdtype"))

NUMPY = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2, "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "int64": np.int64, "uint64": np.uint64, "int32": np.int32, "uint32": np.uint32,
    "int16": np.int16, "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8,
    "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4,
    "complex128": np.complex128, "complex64": np.complex64, "bool": np.bool_,
}


def run(*args, ok=True):
    p = subprocess.run([NXDTYPE, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
        assert p.stderr == "", p.stderr
    return p


def fails(code, *args):
    """A failure: exit code, and exactly one line on stderr."""
    p = run(*args, ok=False)
    assert p.returncode == code, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nxdtype: "), p.stderr
    return lines[0]


# --- table -----------------------------------------------------------------

def table():
    lines = run("table").stdout.splitlines()
    head = lines[0].split()
    return {r[1]: dict(zip(head, r)) for r in (l.split() for l in lines[1:])}


def test_table_has_every_dtype_in_code_order():
    rows = table()
    assert list(rows) == [*NUMPY, "bit"]
    assert [int(r["code"]) for r in rows.values()] == list(range(21))
    assert rows["bit"]["bits"] == "1" and rows["int4"]["bits"] == "4"


def test_table_float_facts_are_finfo():
    for name, row in table().items():
        if row["kind"] not in ("float", "complex"):
            continue
        fi = ml_dtypes.finfo(NUMPY[name]) if row["kind"] == "float" else np.finfo(NUMPY[name])
        assert float(row["epsilon"]) == float(fi.eps), name
        assert float(row["min_normal"]) == float(fi.smallest_normal), name
        assert float(row["min_subnormal"]) == float(fi.smallest_subnormal), name
        assert float(row["max"]) == float(fi.max) and float(row["min"]) == float(fi.min), name
        assert int(row["exp"]) == fi.nexp and int(row["frac"]) == fi.nmant, name


def test_table_integer_facts_are_iinfo():
    for name, row in table().items():
        if row["kind"] in ("signed", "unsigned"):
            ii = ml_dtypes.iinfo(NUMPY[name])
            assert (int(row["min"]), int(row["max"])) == (ii.min, ii.max), name
    assert (table()["bool"]["min"], table()["bool"]["max"]) == ("false", "true")


# --- values ----------------------------------------------------------------

SMALL = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn",
         "int16", "uint16", "int8", "uint8", "int4", "uint4"]


def np_values(name):
    bits = np.dtype(NUMPY[name]).itemsize * 8 if name not in ("int4", "uint4", "float4_e2m1fn") else 4
    pats = np.arange(2 ** bits, dtype=np.uint32)
    if bits == 4:
        # ml_dtypes keeps a 4-bit element in the low bits of a byte.
        return pats, pats.astype(np.uint8).view(NUMPY[name]).astype(np.float64)
    return pats, pats.astype(f"<u{bits // 8}").view(NUMPY[name]).astype(np.float64)


@pytest.mark.parametrize("name", SMALL)
def test_values_lists_every_value(name):
    lines = run("values", name).stdout.splitlines()
    assert lines[0].split("\t") == ["bits", "value", "class"]
    pats, want = np_values(name)
    rows = [l.split("\t") for l in lines[1:]]
    assert len(rows) == len(pats)
    fi = ml_dtypes.finfo(NUMPY[name]) if name.startswith(("float", "bfloat")) else None
    for (h, text, cls), p, v in zip(rows, pats, want):
        assert int(h, 16) == p
        # The shortest text that reads back as the same value of the format.
        got = float(np.array([float(text)]).astype(NUMPY[name]).astype(np.float64)[0])
        assert got == v or (math.isnan(got) and math.isnan(v)), (h, text, v)
        if fi is None:
            expect = "zero" if v == 0 else "nonzero"
        elif math.isnan(v):
            expect = "nan"
        elif math.isinf(v):
            expect = "inf"
        elif v == 0:
            expect = "zero"
        else:
            expect = "subnormal" if abs(v) < float(fi.smallest_normal) else "normal"
        assert cls == expect, (h, text, cls)


def test_values_bounds():
    rows = run("values", "float16", "--from", "0x3c00", "--to", "0x3c03").stdout.splitlines()[1:]
    assert [r.split("\t")[0] for r in rows] == ["0x3c00", "0x3c01", "0x3c02", "0x3c03"]
    rows = run("values", "float8_e4m3fn", "--from", "1", "--to", "2").stdout.splitlines()[1:]
    assert [int(r.split("\t")[0], 16) for r in rows] == list(range(0x38, 0x41))
    rows = run("values", "int4", "--from", "-2.5", "--to", "1").stdout.splitlines()[1:]
    assert [r.split("\t")[1] for r in rows] == ["0", "1", "-2", "-1"]
    assert "at most 16" in fails(2, "values", "float32")


# --- store -----------------------------------------------------------------

def store(name, *xs):
    blocks = run("store", name, *xs).stdout.split(f"{name} ")[1:]
    out = []
    for b in blocks:
        lines = b.splitlines()
        out.append({"x": lines[0], **{l.split()[0]: l.split(None, 1)[1] for l in lines[1:]}})
    return out


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "float8_e5m2", "float64"])
def test_store_matches_numpy(name):
    rng = np.random.default_rng(7)
    xs = [repr(float(x)) for x in rng.standard_normal(20) * 10.0 ** rng.integers(-6, 6, 20)]
    xs += ["0.1", "1e-7", "65519.99", "-2.5"]
    for r in store(name, *xs):
        x = float(r["x"])
        want = np.array([x]).astype(NUMPY[name])
        assert int(r["bits"], 16) == int.from_bytes(want.tobytes(), "little"), r
        assert np.array([float(r["value"])]).astype(NUMPY[name]).tobytes() == want.tobytes()
        if math.isfinite(float(want[0])):
            assert Fraction(r["exact"]) == Fraction(float(want[0]))
            err = r["error"].split()[0]
            assert Fraction(err) == Fraction(float(want[0])) - Fraction(r["x"]), r


def test_store_integers_complex_bool():
    # Integers are stored exactly (not through a double) and saturate.
    [big, sat, trunc] = [*store("int64", "9007199254740993"), *store("int8", "300", "-2.7")]
    assert big["exact"] == "9007199254740993" and big["error"] == "0"
    assert (sat["value"], sat["error"].split()[0]) == ("127", "-173")
    assert (trunc["value"], trunc["error"].split()[0]) == ("-2", "0.7")
    [f32] = store("float32", "16777217")
    assert f32["value"] == "16777216" and f32["error"].split()[0] == "-1"
    [c] = store("complex64", "1.1-2i")
    assert c["value"] == "1.1-2i"
    assert c["bits"] == "0x3f8ccccd 0xc0000000"
    want = np.complex64(1.1 - 2j)
    assert [Fraction(e) for e in c["exact"].split()] == [Fraction(float(want.real)), -2]
    [b] = store("bool", "0.5")
    assert (b["bits"], b["value"]) == ("0x01", "true")
    [z] = store("float16", "-0")
    assert (z["bits"], z["value"]) == ("0x8000", "-0")
    assert "not a number" in fails(2, "store", "float16", "abc")


# --- convert ---------------------------------------------------------------

def test_convert_raw_and_npy(tmp_path):
    x = np.random.default_rng(1).standard_normal(600_001).astype(np.float32)  # 3 blocks
    (tmp_path / "x.f32").write_bytes(x.tobytes())
    out = run("convert", "--from", "float32", "--to", "bfloat16", tmp_path / "x.f32", tmp_path / "y.bf16").stdout
    assert "600001 elements float32 -> bfloat16 (raw" in out
    assert (tmp_path / "y.bf16").read_bytes() == x.astype(ml_dtypes.bfloat16).tobytes()

    a = (np.random.default_rng(2).standard_normal((30, 7)) * 100).astype(np.float64)
    np.save(tmp_path / "a.npy", np.asfortranarray(a))
    run("convert", "--to", "float16", tmp_path / "a.npy", tmp_path / "b.npy")
    b = np.load(tmp_path / "b.npy")
    assert b.dtype == np.float16 and b.shape == (30, 7) and b.flags.f_contiguous
    assert np.array_equal(b, a.astype(np.float16))

    ints = np.arange(-300, 300, dtype=np.int16)
    np.save(tmp_path / "i.npy", ints)
    run("convert", "--to", "complex64", tmp_path / "i.npy", tmp_path / "c.npy")
    assert np.array_equal(np.load(tmp_path / "c.npy"), ints.astype(np.complex64))


def test_convert_non_numpy_destination_is_raw(tmp_path):
    x = np.linspace(-8, 8, 11, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    p = run("convert", "--to", "bfloat16", tmp_path / "x.npy", tmp_path / "y.npy", ok=False)
    assert p.returncode == 0 and "numpy has no bfloat16" in p.stderr
    assert (tmp_path / "y.npy").read_bytes() == x.astype(ml_dtypes.bfloat16).tobytes()
    # ml_dtypes arrays are saved untyped ('<V2'): --from names them.
    np.save(tmp_path / "bf.npy", x.astype(ml_dtypes.bfloat16))
    assert "--from" in fails(2, "convert", "--to", "float32", tmp_path / "bf.npy", tmp_path / "z.npy")
    run("convert", "--from", "bfloat16", "--to", "float32", tmp_path / "bf.npy", tmp_path / "z.npy")
    assert np.array_equal(np.load(tmp_path / "z.npy"), x.astype(ml_dtypes.bfloat16).astype(np.float32))
    # int4 is packed, two per byte, low nibble first.
    (tmp_path / "i.i8").write_bytes(np.array([1, -2, 7], np.int8).tobytes())
    run("convert", "--from", "int8", "--to", "int4", tmp_path / "i.i8", tmp_path / "i.i4")
    assert (tmp_path / "i.i4").read_bytes() == bytes([0xE1, 0x07])


def test_convert_isa_levels_agree(tmp_path):
    x = np.random.default_rng(3).standard_normal(5000).astype(np.float64)
    (tmp_path / "x").write_bytes(x.tobytes())
    outs = []
    for isa in ("scalar", None):
        extra = ["--isa", isa] if isa else []
        out = run("convert", *extra, "--from", "float64", "--to", "float8_e5m2", tmp_path / "x", tmp_path / "y").stdout
        if isa:
            assert out.rstrip().endswith("kernels scalar)")
        outs.append((tmp_path / "y").read_bytes())
    assert outs[0] == outs[1]


def no_leftovers(d, *allowed):
    assert sorted(p.name for p in d.iterdir()) == sorted(allowed)


def test_convert_errors_leave_nothing(tmp_path):
    (tmp_path / "odd").write_bytes(b"\x00" * 10)
    np.save(tmp_path / "be.npy", np.arange(4, dtype=">f4"))
    np.save(tmp_path / "ok.npy", np.arange(8, dtype=np.float32))
    data = (tmp_path / "ok.npy").read_bytes()
    (tmp_path / "short.npy").write_bytes(data[:50])
    (tmp_path / "cut.npy").write_bytes(data[:-3])
    (tmp_path / "out").write_bytes(b"before")
    names = ["odd", "be.npy", "ok.npy", "short.npy", "cut.npy", "out"]

    def check(code, words, *args):
        line = fails(code, "convert", *args)
        assert words in line, line
        assert (tmp_path / "out").read_bytes() == b"before"
        no_leftovers(tmp_path, *names)

    out = tmp_path / "out"
    check(2, "unknown dtype 'float17'", "--from", "float17", "--to", "float16", tmp_path / "odd", out)
    check(1, "not a whole number of float32", "--from", "float32", "--to", "float16", tmp_path / "odd", out)
    check(1, "truncated .npy header", "--to", "float16", tmp_path / "short.npy", out)
    check(1, "truncated", "--to", "float16", tmp_path / "cut.npy", out)
    check(1, "unsupported .npy dtype '>f4'", "--to", "float16", tmp_path / "be.npy", out)
    check(1, "holds float32", "--from", "float64", "--to", "float16", tmp_path / "ok.npy", out)
    check(1, "cannot read", "--from", "float32", "--to", "float16", tmp_path / "missing", out)
    check(2, "needs --to", "--from", "float32", tmp_path / "odd", out)
    line = fails(1, "convert", "--to", "float16", tmp_path / "ok.npy", tmp_path / "no/such/dir/y.npy")
    assert "cannot write" in line
    no_leftovers(tmp_path, *names)


# --- the command as a whole --------------------------------------------------

@pytest.mark.parametrize("cmd", [[], ["table"], ["values"], ["store"], ["convert"], ["version"]])
def test_help(cmd):
    out = run(*cmd, "--help").stdout
    assert out.startswith(("usage: nxdtype", "nxdtype: "))
    assert "usage: nxdtype " + (cmd[0] if cmd else "COMMAND") in out


def test_usage_errors():
    assert "unknown command" in fails(2, "tabel")
    assert "unknown dtype" in fails(2, "values", "float3")
    assert run(ok=False).returncode == 2


def test_closed_pipe_is_quiet():
    p = subprocess.run(f"'{NXDTYPE}' values float16 | head -1", shell=True, capture_output=True, text=True)
    assert p.stdout == "bits\tvalue\tclass\n" and p.stderr == ""


def test_version_agrees_with_library(lib):
    out = run("version").stdout
    assert out.startswith(f"nxdtype {lib.nx_version().decode()} (kernels: ")


def test_progress_bar_only_on_a_terminal(tmp_path):
    import pty
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(64 << 20)  # the size from which a bar is drawn
    master, slave = pty.openpty()
    p = subprocess.run([NXDTYPE, "convert", "--from", "uint8", "--to", "bool", big, tmp_path / "o"],
                       stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    bar = os.read(master, 4096).decode()
    os.close(master)
    assert p.returncode == 0 and "100% 64/64 MiB" in bar, bar
    assert "elements uint8 -> bool" in p.stdout.decode()
    # Off a terminal, nothing but the summary.
    assert run("convert", "--from", "uint8", "--to", "bool", big, tmp_path / "o").stderr == ""

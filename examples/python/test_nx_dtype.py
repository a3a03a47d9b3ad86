"""The example module against numpy and ml_dtypes (run by make test-package
on the installed library: NX_DTYPE_LIB)."""
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import nx_dtype  # noqa: E402


@pytest.fixture(scope="module")
def nx():
    return nx_dtype.load()


def test_facts(nx):
    assert len(nx.names()) == 21 and nx.names()[3] == "bfloat16"
    f = nx.facts("bfloat16")
    fi = ml_dtypes.finfo(ml_dtypes.bfloat16)
    assert (f["bits"], f["kind"], f["fraction_bits"]) == (16, "float", fi.nmant)
    assert (f["epsilon"], f["max_finite"]) == (float(fi.eps), float(fi.max))
    assert nx.facts("int4") == {"bits": 4, "kind": "signed"}
    with pytest.raises(nx_dtype.Error):
        nx.code("float17")


def test_store_and_format(nx):
    assert nx.store("float16", 0.1) == np.float16(0.1).tobytes()
    assert nx.format("float16", nx.store("float16", 0.1)) == "0.1"
    # Saturates to 448 = 0x7e, printed as the shortest text that reads back.
    assert nx.store("float8_e4m3fn", 1e9) == b"\x7e"
    assert nx.format("float8_e4m3fn", b"\x7e") == "450"
    assert nx.format("complex64", nx.store("complex64", -2.5)) == "-2.5+0i"


def test_convert(nx):
    x = np.random.default_rng(0).standard_normal((4, 250)).astype(np.float32)
    y = nx.convert(x, "float16")
    assert y.dtype == np.float16 and y.shape == x.shape and np.array_equal(y, x.astype(np.float16))
    bf = nx.convert(x, "bfloat16")
    assert bf == x.astype(ml_dtypes.bfloat16).tobytes()
    back = nx.convert(np.frombuffer(bf, np.uint8), "float32", frm="bfloat16")
    assert np.array_equal(back, x.ravel().astype(ml_dtypes.bfloat16).astype(np.float32))

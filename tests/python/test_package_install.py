"""`pip install ./python` into a venv this test makes, then the package used
from it with nothing else on the library path: no LD_LIBRARY_PATH, no
NX_DTYPE_LIB, not from the repository. Also the installed metadata.

Run by `make test-python-package` (NX_PACKAGE_TESTS=1), skipped elsewhere.
Dependencies come from PyPI (pip's cache), pinned by the test suite's
requirements; cargo reuses the build the suite's own venv made
(target/python), so the cost is pip's and cffi's, not the Rust build's."""

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

if not os.environ.get("NX_PACKAGE_TESTS"):
    pytest.skip("the nx_dtype package's tests run in its own venv (make test-python-package)",
                allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]

CHECK = r"""
import importlib.metadata as md, json, os, sys
import numpy as np
import nx_dtype
from nx_dtype import _binding
x = np.array([0.1, 448.0, 1e9, -3.0], np.float32)
print(json.dumps(dict(
    file=nx_dtype.__file__, lib=_binding.LIB_PATH, version=nx_dtype.__version__,
    # Every file of the process whose name mentions the library or the package.
    maps=sorted({l.split()[-1] for l in open("/proc/self/maps") if "nx_dtype" in l}),
    name=md.metadata("nx_dtype")["Name"], meta_version=md.version("nx_dtype"),
    requires=md.requires("nx_dtype"), files=[str(f) for f in md.files("nx_dtype")],
    e4m3=nx_dtype.astype(x, "float8_e4m3fn").view(np.uint8).tolist(),
    f4=nx_dtype.astype(x, "float4_e2m1fn", packed=True).tolist(),
    environ=sorted(os.environ), path=sys.path)))
"""


def test_pip_install_into_a_new_venv(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    pip_env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1",
                   PIP_CONSTRAINT=str(ROOT / "tests/python/requirements.txt"))
    pip_env.pop("PYTHONPATH", None)
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(ROOT / "python")], env=pip_env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    home = tmp_path / "home"
    home.mkdir()
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    r = subprocess.run([str(py), "-c", CHECK], env=clean, cwd=home, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)

    site = next(p for p in got["path"] if p.endswith("site-packages"))
    pkg = str(Path(site) / "nx_dtype")
    assert site.startswith(str(env_dir)) and got["file"] == pkg + "/__init__.py"
    assert Path(got["lib"]).parent == Path(pkg) and Path(got["lib"]).is_file()
    # The library and the cffi module, both from inside the installed package.
    assert [Path(m).parent for m in got["maps"]] == [Path(pkg)] * 2, got["maps"]
    assert Path(got["lib"]) in [Path(m) for m in got["maps"]]
    assert not {"LD_LIBRARY_PATH", "NX_DTYPE_LIB", "PYTHONPATH"} & set(got["environ"])
    assert not any(str(ROOT) in p for p in got["path"])

    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert got["name"] == "nx_dtype" and got["meta_version"] == version == got["version"]
    requires = {re.split(r"[<>=;\[ ]", q)[0] for q in got["requires"]}
    assert {"numpy", "ml_dtypes"} <= requires
    assert "nx_dtype/py.typed" in got["files"]

    assert got["e4m3"] == [0x1D, 0x7E, 0x7E, 0xC4]
    assert got["f4"] == [0x70, 0xD7]


def test_the_suites_own_package_is_installed():
    """The suite tests the installed package, not a copy of the sources."""
    import nx_dtype

    assert "site-packages" in nx_dtype.__file__ and sys.prefix in nx_dtype.__file__

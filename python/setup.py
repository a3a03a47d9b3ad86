"""Builds the package: the Rust library (the repository's Cargo.toml, one
directory up) with cargo into nx_dtype/, and the cffi extension module that
calls it. pip builds this directory in place, so the crate is found."""

import os
import re
from pathlib import Path

from setuptools import setup
from setuptools_rust import Binding, RustExtension

HERE = Path(__file__).resolve().parent
CRATE = HERE.parent / "Cargo.toml"


def crate_version() -> str:
    """The [package] version of Cargo.toml."""
    text = CRATE.read_text()
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', package, re.M)
    if match is None:
        raise RuntimeError(f"no version in {CRATE}")
    return match.group(1)


# cargo's own default would share target/ with `make`, whose build of the
# same crate has other crate types: each would rebuild the other's. A
# CARGO_TARGET_DIR set by the caller wins.
env = dict(os.environ)
env.setdefault("CARGO_TARGET_DIR", str(HERE.parent / "target" / "python"))

setup(
    version=crate_version(),
    rust_extensions=[
        # The C ABI's shared library, as nx_dtype/_libnx_dtype<EXT_SUFFIX>;
        # nx_dtype/_binding.py opens it by that path.
        RustExtension("nx_dtype._libnx_dtype", path=str(CRATE), binding=Binding.NoBinding, env=env),
    ],
    cffi_modules=["build_ffi.py:ffibuilder"],
    zip_safe=False,
)

# The Python package (python/): pip builds it (the library with cargo,
# the cffi module with the C compiler) into a venv of its own under
# build/, and its tests and benchmark run there.
#
#   make python-package        build and install it into that venv
#   make test-python-package   its tests (part of make test), among them a
#                              pip install into a new venv made by the test
#   make bench-python          nx_dtype.astype against ml_dtypes, numpy (and
#                              torch where installed): bench/results/python.md

PKG_VENV := $(abspath $(BUILD))/python-package/venv
PKG_PYTHON := $(PKG_VENV)/bin/python
PKG_PIP := $(PKG_PYTHON) -m pip --quiet --disable-pip-version-check
# What the installed package is built from.
PKG_SOURCES := $(shell find python -path python/build -prune -o -type f \( -name '*.py' -o -name '*.c' \
  -o -name '*.toml' -o -name py.typed \) -print) $(shell find src -name '*.rs') Cargo.toml Cargo.lock \
  build.rs include/nx_dtype.h

.PHONY: python-package test-python-package bench-python

$(PKG_VENV)/.requirements: tests/python/requirements.txt
	rm -rf $(PKG_VENV)
	python3 -m venv $(PKG_VENV)
	$(PKG_PIP) install -r $<
	touch $@

# The package's runtime dependencies are the requirements' pinned ones.
$(PKG_VENV)/.installed: $(PKG_VENV)/.requirements $(PKG_SOURCES)
	$(PKG_PIP) install --force-reinstall --no-deps ./python
	touch $@

python-package: $(PKG_VENV)/.installed

# NX_PACKAGE_TESTS: the package must import (test-python, which collects
# the same files without the package, skips them).
test-python-package: $(PKG_VENV)/.installed
	@# The package's C, under the project's warnings (cffi compiles it with its own flags).
	$(CC) -std=c99 $(WARN) -Iinclude -fsyntax-only python/src/nx_dtype/_shim.c
	NX_PACKAGE_TESTS=1 $(PKG_PYTHON) -m pytest -q -p no:cacheprovider tests/python/test_package*.py

bench-python: $(PKG_VENV)/.installed
	$(PKG_PYTHON) bench/bench_python.py bench/results/python.md

TEST_TARGETS += test-python-package

# libnx_dtype: `make` builds the library and header; `make demo` shows it
# working; `make test` runs every test. Tools are installed on first use
# into $(CACHE), outside the repository, and reused.

CARGO   ?= cargo
CC      ?= cc
# Every tool installed on first use lives here (NX_CACHE), outside the repo.
export NX_CACHE ?= $(HOME)/.cache/nx_dtype
CACHE   := $(NX_CACHE)
CBINDGEN_VERSION := 0.29.4
CBINDGEN := $(CACHE)/cbindgen-$(CBINDGEN_VERSION)/bin/cbindgen
LIBDIR  := target/release
BUILD   := build
ABS_LIBDIR := $(abspath $(LIBDIR))

WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  ?= -O2 -g
C_STD   := -std=c99
C_FLAGS  = $(C_STD) $(WARN) $(CFLAGS) -Iinclude
C_LIBS   = -L$(LIBDIR) -lnx_dtype -Wl,-rpath,$(ABS_LIBDIR) -lm

# The shared library's names, and the variable the loader searches, per
# system: Linux's soname libnx_dtype.so.1, macOS's install name
# @rpath/libnx_dtype.1.dylib (build.rs sets both).
OS := $(shell uname -s)
ifeq ($(OS),Darwin)
LIB_SO      := $(LIBDIR)/libnx_dtype.dylib
LIB_SO_ABI  := libnx_dtype.1.dylib
LIB_PATH_VAR := DYLD_LIBRARY_PATH
else
LIB_SO      := $(LIBDIR)/libnx_dtype.so
LIB_SO_ABI  := libnx_dtype.so.1
LIB_PATH_VAR := LD_LIBRARY_PATH
endif

C_TESTS := $(patsubst c_tests/%.c,$(BUILD)/c_tests/%,$(wildcard c_tests/test_*.c))

.PHONY: all lib header check-header demo test test-rust test-c test-python lint clean
.DEFAULT_GOAL := all

all: lib header

# Cargo knows when to rebuild; programs linked with the library ask the
# loader for its soname (install name), so that name goes beside it too.
lib:
	$(CARGO) build --release --lib --quiet
	@ln -sf $(notdir $(LIB_SO)) $(LIBDIR)/$(LIB_SO_ABI)

$(CBINDGEN):
	$(CARGO) install --locked --quiet cbindgen --version $(CBINDGEN_VERSION) --root $(CACHE)/cbindgen-$(CBINDGEN_VERSION)

header: $(CBINDGEN)
	$(CBINDGEN) --config cbindgen.toml --crate nx_dtype --output include/nx_dtype.h --quiet

# Fails when the committed header is not what the source generates.
check-header: $(CBINDGEN)
	@mkdir -p $(BUILD)
	$(CBINDGEN) --config cbindgen.toml --crate nx_dtype --output $(BUILD)/nx_dtype.h --quiet
	@diff -u include/nx_dtype.h $(BUILD)/nx_dtype.h || { echo "include/nx_dtype.h drifted: run make header"; exit 1; }
	@# Every name the header defines is the library's: NX_ / nx_ prefixed.
	@! grep -E '^#define ' include/nx_dtype.h | grep -vE '^#define (NX_|nx_)' || { echo "a header macro without the NX_ prefix"; exit 1; }
	@! grep -E '^(typedef|extern|[a-z].*\()' include/nx_dtype.h | grep -vE 'nx_|NX_|^extern "C"' || { echo "a header name without the nx_ prefix"; exit 1; }
	@# The header compiles alone as C99 and as C++.
	printf '#include "nx_dtype.h"\nint main(void){return NX_DTYPE_COUNT == 21 ? 0 : 1;}\n' > $(BUILD)/header_alone.c
	$(CC) -std=c99 $(WARN) -Iinclude -fsyntax-only $(BUILD)/header_alone.c
	$(CXX) -x c++ -std=c++11 $(WARN) -Iinclude -fsyntax-only $(BUILD)/header_alone.c
	@echo "header: 1 passed, 0 failed"

$(BUILD)/c_tests/%: c_tests/%.c c_tests/check.h include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) $(C_FLAGS) -Ic_tests $< -o $@ $(C_LIBS) -lpthread

$(BUILD)/examples/%: examples/%.c include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) $(C_FLAGS) $< -o $@ $(C_LIBS)

demo: lib
	@$(MAKE) --no-print-directory $(BUILD)/examples/table
	./$(BUILD)/examples/table

PYTHON = $(shell NX_CACHE=$(NX_CACHE) scripts/python-env)

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets --quiet -- -D warnings

test-rust:
	$(CARGO) test --release --quiet

test-c: lib
	@$(MAKE) --no-print-directory $(C_TESTS)
	@fail=0; for t in $(C_TESTS); do echo "== $$t"; ./$$t || fail=1; done; exit $$fail

test-python: lib
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) -m pytest -q tests/python

# Each part's rules (kernels, printing, OCaml, ...) add to TEST_TARGETS.
TEST_TARGETS := lint test-rust check-header test-c test-python
-include $(sort $(wildcard mk/*.mk))

test: $(TEST_TARGETS)
	@echo "make test: every suite passed"

clean:
	$(CARGO) clean
	rm -rf $(BUILD)

# Benchmarks (not tests): figures go to BENCHMARKS.md.
bench-store: lib
	@mkdir -p $(BUILD)/bench
	$(CC) -std=c11 $(WARN) -O2 -Iinclude bench/bench_store.c -o $(BUILD)/bench/bench_store $(C_LIBS)
	./$(BUILD)/bench/bench_store

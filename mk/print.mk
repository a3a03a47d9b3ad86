# Printing (pp_value): nx_format / nx_format_f64. `make test` runs its Rust,
# C and Python suites through the main rules (tests/print.rs, c_tests/
# test_print.c, tests/python/test_print.py); these rules add the long run
# and the benchmark.

.PHONY: test-print test-print-long bench-print

# The print suites alone.
test-print: lib $(BUILD)/c_tests/test_print
	$(CARGO) test --release --quiet --test print
	./$(BUILD)/c_tests/test_print
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) -m pytest -q tests/python/test_print.py

# 10^7 random float32 and float64 against numpy / Python repr (make test
# runs 10^6 there; the Rust suite runs 10^7 against std and the exact
# reference in make test already).
test-print-long: lib
	$(CARGO) test --release --quiet --test print fast_path_every_float32 -- --ignored
	NX_PRINT_LONG=1 NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) -m pytest -q tests/python/test_print.py

# ns per value for every float format, beside ryu, dragonbox and zmij
# (float32, float64) and, as context, Python repr and numpy. Writes
# bench/results/print.md.
bench-print: lib
	cd bench/print && CARGO_TARGET_DIR=$(abspath $(BUILD))/bench-print $(CARGO) run --release --quiet > ../results/print.rust.md
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) bench/print/python_bench.py > bench/results/print.python.md
	cat bench/results/print.rust.md bench/results/print.python.md > bench/results/print.md
	rm -f bench/results/print.rust.md bench/results/print.python.md
	cat bench/results/print.md

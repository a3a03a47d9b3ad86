# Bulk conversion kernels: the kernel tests under every level that
# NX_DTYPE_ISA can name, the exhaustive SIMD-vs-scalar sweep, the benchmark.

KERNEL_ISAS := scalar portable avx2 avx512

.PHONY: test-kernels-isa test-exhaustive bench bench-strided bench-levels bench-portable bench-isa bench-read bench-write kernels-table

# The Rust suite compares every level with the scalar reference in one
# process; here the C and Python suites and the level choice itself run once
# per NX_DTYPE_ISA value.
test-kernels-isa: lib $(BUILD)/c_tests/test_convert
	@set -e; for isa in $(KERNEL_ISAS); do \
	  echo "== NX_DTYPE_ISA=$$isa"; \
	  NX_DTYPE_ISA=$$isa $(CARGO) test --release --quiet --test kernels kernel_isa_follows_environment; \
	  NX_DTYPE_ISA=$$isa ./$(BUILD)/c_tests/test_convert; \
	  NX_DTYPE_ISA=$$isa NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) -m pytest -q -W ignore::RuntimeWarning tests/python/test_convert.py; \
	done

TEST_TARGETS += test-kernels-isa

# All 2^32 float32 patterns, and all int32 / uint32, into every
# destination with a kernel above the scalar reference (float16, bfloat16,
# float8_e4m3fn, float8_e5m2, float4_e2m1fn among them): every such level
# the CPU runs against the scalar reference (NX_EXHAUSTIVE_LEVELS=portable
# sweeps that one alone).
test-exhaustive:
	$(CARGO) test --release --test exhaustive -- --ignored --nocapture --test-threads=1

$(BUILD)/bench/floors.so: bench/floors.c
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -O3 -march=native -shared -fPIC $< -o $@

bench: lib $(BUILD)/bench/floors.so
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) NX_BENCH_FLOORS_LIB=$(abspath $(BUILD)/bench/floors.so) \
	  $(PYTHON) bench/bench_convert.py bench/results/convert.md

# Strided views (numpy's dtypes) against numpy's copyto of the same views.
bench-strided: lib
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) $(PYTHON) bench/bench_strided.py bench/results/strided_numpy.md

# Every pair at each kernel level, in cache (16384 elements), the levels
# alternated in one sitting (scripts/bench-levels; ROUNDS=3 by default),
# with each level's speed-up over the one below it.
$(BUILD)/bench/bench_levels: bench/bench_levels.c bench/bench.h include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -Iinclude $< -o $@ $(C_LIBS)

bench-levels: lib $(BUILD)/bench/bench_levels
	RATIOS="portable/scalar avx2/portable avx512/avx2" \
	  scripts/bench-levels $(BUILD)/bench/bench_levels 16384 normal scalar portable avx2 avx512 > bench/results/levels.txt
	@head -3 bench/results/levels.txt

# The portable level against the scalar reference, numpy and ml_dtypes:
# every pair they have, at 64 Ki and 1 Mi elements (bench/bench_portable.py).
bench-portable: lib $(BUILD)/bench/floors.so
	NX_DTYPE_LIB=$(abspath $(LIB_SO)) NX_BENCH_FLOORS_LIB=$(abspath $(BUILD)/bench/floors.so) \
	  $(PYTHON) bench/bench_portable.py bench/results/portable.md

# Rates of single 512-bit instructions (bench/isa_rates.c): context for the
# kernels' instruction choices, on CPUs with AVX512-VBMI.
$(BUILD)/bench/isa_rates: bench/isa_rates.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -mavx512f -mavx512bw -mavx512vbmi -mf16c $< -o $@

bench-isa: $(BUILD)/bench/isa_rates
	./$(BUILD)/bench/isa_rates | tee bench/results/isa_rates.txt

# Memory-level parallelism against work between loads (bench/read_work.c):
# context for the narrowings at 256 MiB.
$(BUILD)/bench/read_work: bench/read_work.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -mavx512f -mavx512bw $< -o $@

bench-read: $(BUILD)/bench/read_work
	./$(BUILD)/bench/read_work | tee bench/results/read_work.txt

# The write floor of a 1:2 widening at 16 MiB of source (bench/write_floor.c):
# context for the 16 MiB widenings.
$(BUILD)/bench/write_floor: bench/write_floor.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -mavx512f -mavx512bw $< -o $@

bench-write: $(BUILD)/bench/write_floor
	./$(BUILD)/bench/write_floor | tee bench/results/write_floor.txt

# docs/kernels.txt: every pair's kernel at every level (nxdtype kernels);
# the kernel tests fail when it and the dispatch rules disagree.
kernels-table: nxdtype
	scripts/kernels-table $(NXDTYPE)

# Hardening: sanitizers, valgrind, ThreadSanitizer, the
# unsafe-code fence, and the cargo-fuzz targets. The guard-page and thread
# tests (c_tests/test_guard.c, c_tests/test_threads.c) are ordinary C tests,
# so `make test-c` runs them too; here they run again under the tools.

.PHONY: test-asan test-valgrind test-tsan check-unsafe fuzz fuzz-smoke fuzz-build

# The C tests again, built with ASan + UBSan. Building the executable with
# -fsanitize=address makes the ASan runtime the first DSO, ahead of the Rust
# library. Any report is fatal (-fno-sanitize-recover, halt_on_error).
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_TESTS := $(patsubst c_tests/%.c,$(BUILD)/asan/%,$(wildcard c_tests/test_*.c))

$(BUILD)/asan/%: c_tests/%.c c_tests/check.h include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) $(C_STD) $(WARN) -O1 -g $(SAN_FLAGS) -Iinclude -Ic_tests $< -o $@ $(C_LIBS) -lpthread

test-asan: lib
	@$(MAKE) --no-print-directory $(ASAN_TESTS)
	@fail=0; for t in $(ASAN_TESTS); do echo "== asan $$t"; \
	  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ./$$t || fail=1; done; exit $$fail

# The plain C tests under memcheck; any error fails (--error-exitcode=1).
# valgrind does not emulate AVX-512, so the library picks AVX2 there (the
# tests read nx_kernel_isa, nothing is skipped). test_guard runs its quick
# mode (every pair and mode, n in 0..24 and one large n instead of 0..64
# and three, no 32 MiB streaming case): the full mode runs natively and
# under ASan. Fork children in the guard self-check die by SIGSEGV on
# purpose; valgrind reports that as the child's fate, not an error.
VALGRIND := valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
test-valgrind: lib
	@$(MAKE) --no-print-directory $(C_TESTS)
	@fail=0; for t in $(C_TESTS); do echo "== valgrind $$t"; \
	  NX_GUARD_QUICK=1 $(VALGRIND) ./$$t || fail=1; done; exit $$fail

# test_threads under ThreadSanitizer. Only the C side is instrumented: TSan
# sees the library's accesses to caller memory only through the C code, not
# the Rust core's own (e.g. the one-time kernel choice, a std OnceLock). A
# second run at the scalar level races the first use of its lookup tables
# (kernels/scalar.rs): every thread must still get the lone thread's bytes.
$(BUILD)/tsan/test_threads: c_tests/test_threads.c c_tests/check.h include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) $(C_STD) $(WARN) -O1 -g -fsanitize=thread -Iinclude -Ic_tests $< -o $@ $(C_LIBS) -lpthread

test-tsan: lib $(BUILD)/tsan/test_threads
	TSAN_OPTIONS=halt_on_error=1 ./$(BUILD)/tsan/test_threads
	NX_DTYPE_ISA=scalar TSAN_OPTIONS=halt_on_error=1 ./$(BUILD)/tsan/test_threads

# `unsafe` only under src/ffi, src/kernels/x86, src/kernels/aarch64,
# src/kernels/lanes.rs (the kernels' one loop over raw pointers),
# src/kernels/portable/trunc.rs (a float-to-integer conversion that cannot
# overflow) and src/print/sse2.rs (lib.rs's lint attributes name it without
# using it). The compiler enforces the same through
# `unsafe_code` lints in lib.rs; this check also catches a new module that
# forgot them. src/bin (the nxdtype command) is a separate crate, a client
# of the C ABI: calling an `extern "C"` function is unsafe there by nature,
# so it is outside this fence (its blocks carry SAFETY comments too).
check-unsafe:
	@bad=$$(grep -rnw unsafe src --include=*.rs | grep -v -e '^src/ffi/' -e '^src/kernels/x86/' -e '^src/kernels/aarch64/' -e '^src/kernels/lanes.rs' -e '^src/kernels/portable/trunc.rs' -e '^src/print/sse2.rs' -e '^src/bin/' \
	  | grep -v -e '^src/lib.rs:[0-9]*:#!\[' -e '^src/lib.rs:[0-9]*:\s*//' -e '^src/lib.rs:[0-9]*:#\[' ); \
	if [ -n "$$bad" ]; then echo "unsafe outside src/ffi, src/kernels/x86, src/kernels/aarch64, src/kernels/lanes.rs, src/kernels/portable/trunc.rs and src/print/sse2.rs:"; echo "$$bad"; exit 1; fi; \
	echo "check-unsafe: unsafe only in src/ffi, src/kernels/x86, src/kernels/aarch64, src/kernels/lanes.rs, src/kernels/portable/trunc.rs and src/print/sse2.rs"

# cargo-fuzz (nightly toolchain; cargo-fuzz installed into NX_CACHE on first
# use). Targets: store, print, kernels, abi (fuzz/fuzz_targets/*.rs).
CARGO_FUZZ_VERSION := 0.13.2
CARGO_FUZZ := $(CACHE)/cargo-fuzz/bin/cargo-fuzz
FUZZ_TARGETS := store print kernels abi
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
# cargo-fuzz runs as a cargo subcommand: put its directory on PATH.
FUZZ_CARGO = cd fuzz && PATH=$(dir $(CARGO_FUZZ)):$$PATH $(CARGO) +nightly fuzz

$(CARGO_FUZZ):
	$(CARGO) install --locked --quiet cargo-fuzz --version $(CARGO_FUZZ_VERSION) --root $(CACHE)/cargo-fuzz

# `+`: cargo shares make's jobserver instead of warning about it.
fuzz-build: $(CARGO_FUZZ)
	+$(FUZZ_CARGO) build

# Each target for FUZZ_SECONDS (default 60), two at a time (one per core).
# A crash, a failed assertion (mismatch with the reference) or an ASan
# report stops the target with a non-zero status and fails the rule;
# the reproducer is left in fuzz/artifacts/<target>/.
define fuzz_run
	@mkdir -p fuzz/corpus/$(1) $(BUILD)/fuzz
	$(FUZZ_CARGO) run $(1) corpus/$(1) -- -max_total_time=$(2) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	  > $(abspath $(BUILD))/fuzz/$(1).log 2>&1 || { tail -40 $(abspath $(BUILD))/fuzz/$(1).log; exit 1; }
	@grep -h 'stat::number_of_executed_units' $(BUILD)/fuzz/$(1).log | sed 's/^/$(1): /'
endef

fuzz-store fuzz-print fuzz-kernels fuzz-abi: fuzz-%: fuzz-build
	$(call fuzz_run,$*,$(FUZZ_SECONDS))
fuzz-smoke-store fuzz-smoke-print fuzz-smoke-kernels fuzz-smoke-abi: fuzz-smoke-%: fuzz-build
	$(call fuzz_run,$*,$(FUZZ_SMOKE_SECONDS))

fuzz:
	@$(MAKE) --no-print-directory -j2 $(addprefix fuzz-,$(FUZZ_TARGETS))
# cargo-fuzz needs the nightly toolchain, which this machine image ships and
# which cannot be downloaded here: without it the smoke says so loudly and
# skips, rather than failing every other suite's run.
fuzz-smoke:
	@if ! $(CARGO) +nightly --version >/dev/null 2>&1; then \
	  echo "fuzz-smoke: SKIPPED: no nightly toolchain (rustup toolchain list)"; \
	else $(MAKE) --no-print-directory -j2 $(addprefix fuzz-smoke-,$(FUZZ_TARGETS)); fi

TEST_TARGETS += check-unsafe test-asan test-valgrind test-tsan fuzz-smoke

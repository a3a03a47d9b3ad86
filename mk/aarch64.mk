# aarch64 Linux, tested on this x86-64 machine: the library cross-built for
# aarch64-unknown-linux-gnu (rustup's target, Debian's cross gcc and C
# library) with warnings as errors, its Rust tests and the C tests run under
# qemu-user. scripts/cross-env installs what is missing, once.
#
#   make test-aarch64   everything below (part of make test): clippy for the
#                       target, the build, the tests under qemu
#   make kernels-table-aarch64   docs/kernels.txt's aarch64 section
#   make bench-neon     the NEON loops' instructions and estimated cycles
#
# The Rust tests that do not depend on the kernel level (stores, printing,
# facts, single conversions, the unit tests) run once. The kernel tests hold
# every level the CPU runs to the scalar reference in one process: they run
# once per CPU model, AARCH64_CPU and AARCH64_CPU_NO_BF16 (the neon level
# picks its BF16 rules by the CPU). The C tests, and the kernel test of the
# level choice, run once per level in AARCH64_ISAS with NX_DTYPE_ISA set to
# it on AARCH64_CPU, and once per level in AARCH64_ISAS_NO_BF16 on
# AARCH64_CPU_NO_BF16. Each run first checks that the library reports the
# level it was asked for: a level silently capped to a weaker one would
# test the weaker one twice.

AARCH64_TARGET := aarch64-unknown-linux-gnu
AARCH64_LIBDIR := target/$(AARCH64_TARGET)/release
AARCH64_CC     := aarch64-linux-gnu-gcc
# Debian's aarch64 C library, for qemu's loader and every absolute path the
# program opens (qemu -L looks there first).
AARCH64_SYSROOT := /usr/aarch64-linux-gnu

# The levels to test, by NX_DTYPE_ISA name.
AARCH64_ISAS := scalar portable neon
# qemu's "max" CPU has every feature qemu emulates, FEAT_BF16 and FEAT_FP16
# among them. qemu 7.2 (Debian 12) has no bf16=off property; cortex-a76 (and
# neoverse-n1) is ARMv8.2 with NEON and FP16 arithmetic but no BF16;
# cortex-a72 is ARMv8.0 without either.
AARCH64_CPU          := max
AARCH64_CPU_NO_BF16  := cortex-a76
AARCH64_ISAS_NO_BF16 := neon
# NX_DTYPE_ISA values that name no level of this CPU (the x86 levels) or
# none at all: the library must then report one of AARCH64_ISAS.
AARCH64_FOREIGN_ISAS := avx2 avx512 no-such-level

AARCH64_QEMU = qemu-aarch64 -L $(AARCH64_SYSROOT) -cpu $(1)
# cargo for the target, running what it builds under qemu with CPU $(1).
# The RUSTFLAGS apply to this target only (not to build scripts, not to the
# host builds), so its artifacts never rebuild the native ones.
AARCH64_CARGO = CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$(AARCH64_CC) \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS=-Dwarnings \
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="$(call AARCH64_QEMU,$(1))" \
  $(CARGO)

AARCH64_C_TESTS := $(patsubst c_tests/%.c,$(BUILD)/aarch64/c_tests/%,$(wildcard c_tests/test_*.c))

.PHONY: aarch64-env aarch64-lib lint-aarch64 test-aarch64 test-aarch64-rust test-aarch64-levels \
  kernels-table-aarch64 bench-neon

aarch64-env:
	@scripts/cross-env aarch64

# clippy sees the code compiled for aarch64 only (the native lint rule
# never does).
lint-aarch64: aarch64-env
	$(CARGO) clippy --target $(AARCH64_TARGET) --all-targets --quiet -- -D warnings

# The soname is libnx_dtype.so.1: the loader needs that name beside it.
aarch64-lib: aarch64-env
	$(call AARCH64_CARGO,$(AARCH64_CPU)) build --release --lib --target $(AARCH64_TARGET) --quiet
	@ln -sf libnx_dtype.so $(AARCH64_LIBDIR)/libnx_dtype.so.1

$(BUILD)/aarch64/c_tests/%: c_tests/%.c c_tests/check.h include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(C_FLAGS) -Ic_tests $< -o $@ \
	  -L$(AARCH64_LIBDIR) -lnx_dtype -Wl,-rpath,$(abspath $(AARCH64_LIBDIR)) -lm -lpthread

test-aarch64-rust: aarch64-lib
	$(call AARCH64_CARGO,$(AARCH64_CPU)) test --release --target $(AARCH64_TARGET) --quiet \
	  --lib --test store --test print --test facts --test convert_one

# The kernel tests on one CPU model, $(1), every level it runs.
define aarch64_kernels
	@echo "== aarch64 -cpu $(1): the kernel tests, every level"
	$(call AARCH64_CARGO,$(1)) test --release --target $(AARCH64_TARGET) --quiet --test kernels

endef

# One level on one CPU model: $(1) CPU, $(2) NX_DTYPE_ISA. test_convert
# prints the level in use ("nx_kernel_isa: NAME"). test_guard's self-check
# children die by SIGSEGV on purpose, and qemu says so for each ("uncaught
# target signal 11"); no core files (qemu would write them into the
# current directory).
define aarch64_level
	@echo "== aarch64 -cpu $(1), NX_DTYPE_ISA=$(2)"
	@got=$$(NX_DTYPE_ISA=$(2) $(call AARCH64_QEMU,$(1)) $(BUILD)/aarch64/c_tests/test_convert | sed -n 's/^nx_kernel_isa: //p'); \
	  test "$$got" = "$(2)" || { echo "NX_DTYPE_ISA=$(2) on -cpu $(1): the library runs level '$$got'"; exit 1; }
	NX_DTYPE_ISA=$(2) $(call AARCH64_CARGO,$(1)) test --release --target $(AARCH64_TARGET) --quiet --test kernels kernel_isa_follows_environment
	@ulimit -c 0; fail=0; for t in $(AARCH64_C_TESTS); do echo "== $$t (-cpu $(1), NX_DTYPE_ISA=$(2))"; \
	  NX_DTYPE_ISA=$(2) $(call AARCH64_QEMU,$(1)) ./$$t || fail=1; done; exit $$fail

endef

# A foreign or unknown NX_DTYPE_ISA value: the level the library reports
# instead must be one this CPU has.
define aarch64_foreign
	@got=$$(NX_DTYPE_ISA=$(1) $(call AARCH64_QEMU,$(AARCH64_CPU)) $(BUILD)/aarch64/c_tests/test_convert | sed -n 's/^nx_kernel_isa: //p'); \
	  case " $(AARCH64_ISAS) " in *" $$got "*) echo "NX_DTYPE_ISA=$(1) on aarch64: level $$got";; \
	  *) echo "NX_DTYPE_ISA=$(1) on aarch64: the library reports '$$got', not one of $(AARCH64_ISAS)"; exit 1;; esac

endef

test-aarch64-levels: aarch64-lib
	@$(MAKE) --no-print-directory $(AARCH64_C_TESTS)
	$(call aarch64_kernels,$(AARCH64_CPU))
	$(call aarch64_kernels,$(AARCH64_CPU_NO_BF16))
	$(foreach isa,$(AARCH64_ISAS),$(call aarch64_level,$(AARCH64_CPU),$(isa)))
	$(foreach isa,$(AARCH64_ISAS_NO_BF16),$(call aarch64_level,$(AARCH64_CPU_NO_BF16),$(isa)))
	$(foreach isa,$(AARCH64_FOREIGN_ISAS),$(call aarch64_foreign,$(isa)))

# docs/kernels.txt's aarch64 section, from the aarch64 nxdtype under qemu
# (make kernels-table writes the section of the machine it runs on).
kernels-table-aarch64: aarch64-env
	$(call AARCH64_CARGO,$(AARCH64_CPU)) build --release --target $(AARCH64_TARGET) --bin nxdtype --quiet
	scripts/kernels-table $(AARCH64_LIBDIR)/nxdtype $(call AARCH64_QEMU,$(AARCH64_CPU))

# The NEON kernels' step loops counted in the disassembly beside the x86
# AVX-512 level's, with llvm-mca's cycle estimates for Arm server cores
# (bench/neon_loops.py): bench/results/neon.md. NEON cannot be timed here.
# Both libraries are built in target/loops with v0 symbol names, whose
# generic arguments name each pair's loop. Needs Debian's llvm-19 (for
# llvm-mca's Neoverse models), installed on first use.
LLVM_MCA := llvm-mca-19
LOOPS_DIR := target/loops

bench-neon: aarch64-env
	@command -v $(LLVM_MCA) >/dev/null || { [ "$$(id -u)" -eq 0 ] || \
	  { echo "bench-neon: needs Debian's llvm-19 (apt-get install, as root)"; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm-19 >/dev/null; }
	RUSTFLAGS=-Csymbol-mangling-version=v0 CARGO_TARGET_DIR=$(LOOPS_DIR) $(CARGO) build --release --lib --quiet
	RUSTFLAGS=-Csymbol-mangling-version=v0 CARGO_TARGET_DIR=$(LOOPS_DIR) \
	  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$(AARCH64_CC) \
	  $(CARGO) build --release --lib --target $(AARCH64_TARGET) --quiet
	python3 bench/neon_loops.py $(LOOPS_DIR)/$(AARCH64_TARGET)/release/libnx_dtype.so \
	  $(LOOPS_DIR)/release/libnx_dtype.so bench/results/neon.md

test-aarch64: lint-aarch64 test-aarch64-rust test-aarch64-levels
	@echo "test-aarch64: every aarch64 suite passed"

TEST_TARGETS += test-aarch64

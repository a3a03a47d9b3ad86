# The OCaml binding (ocaml/): the library nx_array, modules Nx_array.Dtype
# and Nx_array.Convert, built by dune (dune-project, ocaml/dune) as OCaml
# users build it.
#
#   make ocaml                   build it (in build/dune)
#   make test-ocaml              its tests, native and bytecode, and the
#                                install tests (part of make test)
#   make bench-ocaml             of_float / pp_value per call beside C, and
#                                Convert.blit against a loop of of_float and
#                                a byte copy (bench/results/ocaml_convert.md)
#   make install-ocaml PREFIX=P  P/lib/ocaml/nx_array with its META, and the
#                                bytecode stubs in P/lib/ocaml/stublibs,
#                                linked against P/lib's libnx_dtype
#
# OCaml 5.3.0 comes from scripts/ocaml-env (built once into the cache), dune
# from scripts/ocaml-dune (Debian's ocaml-dune when it is missing). dune
# compiles with the first ocamlc on PATH, ocaml-env's: Debian's OCaml 4.13
# is never used, and the tests check the version they were built by.

OCAML_VERSION := 5.3.0
OCAML_ENV = eval "$$(scripts/ocaml-env)" && scripts/ocaml-dune

# The run-time loader's search path, for the install test's run without
# the recorded path.
LIBPATH_VAR := $(if $(filter Darwin,$(shell uname -s)),DYLD_LIBRARY_PATH,LD_LIBRARY_PATH)

# dune 2.9 does not lock its build directory: two builds in one at once
# (make -j, two makes) clobber each other's files. Where there is flock,
# they take turns: $(call dune_lock,DIR) holds DIR.lock until the recipe
# line's shell exits.
dune_lock = mkdir -p $(BUILD) && if command -v flock >/dev/null; then exec 9>"$(1).lock" && flock 9; fi

# The tree's own build, against the tree's libnx_dtype (ocaml/config/
# discover.sh reads NX_DTYPE_*; the library directory is recorded as the
# programs' run-time path).
DUNE_DIR := $(abspath $(BUILD))/dune
OCAML_OUT := $(DUNE_DIR)/default/ocaml
# The profile nx (ocaml/dune): warnings as errors, no -opaque.
DUNE_TREE = $(call dune_lock,$(DUNE_DIR)) && NX_DTYPE_INCLUDE=$(abspath include) NX_DTYPE_LIBDIR=$(ABS_LIBDIR) \
  dune build --root $(CURDIR) --build-dir $(DUNE_DIR) --profile nx --display quiet

OCAML_TESTS := test_dtype test_convert

PREFIX ?= /usr/local
OCAML_PREFIX_ABS = $(abspath $(PREFIX))

.PHONY: ocaml test-ocaml test-ocaml-install bench-ocaml install-ocaml uninstall-ocaml

ocaml: lib
	$(OCAML_ENV) && $(DUNE_TREE) @install

# Each test native, native with the portable kernels (the results must not
# depend on the level), and in bytecode (the bytecode twins of the unboxed
# externals, and the stubs loaded as shared objects).
test-ocaml: lib
	$(OCAML_ENV) && $(DUNE_TREE) @install $(foreach t,$(OCAML_TESTS),ocaml/test/$(t).exe ocaml/test/$(t).bc)
	@set -e; $(OCAML_ENV); for t in $(OCAML_TESTS); do \
	  echo "== ocaml $$t native"; NX_OCAML_VERSION=$(OCAML_VERSION) $(OCAML_OUT)/test/$$t.exe; \
	  echo "== ocaml $$t native, NX_DTYPE_ISA=scalar"; NX_DTYPE_ISA=scalar $(OCAML_OUT)/test/$$t.exe; \
	  echo "== ocaml $$t bytecode"; \
	  CAML_LD_LIBRARY_PATH=$(OCAML_OUT):$(OCAML_OUT)/test ocamlrun $(OCAML_OUT)/test/$$t.bc; \
	done
	@# One version: Cargo.toml's, which dune-project repeats for dune's META.
	@v=$$(sed -n 's/^(version \(.*\))$$/\1/p' dune-project); test "$$v" = "$(VERSION)" || \
	  { echo "dune-project has version '$$v', Cargo.toml $(VERSION)"; exit 1; }
	@$(MAKE) --no-print-directory test-ocaml-install

bench-ocaml: lib $(BUILD)/bench/ocaml_bench_c
	$(OCAML_ENV) && $(DUNE_TREE) ocaml/bench/bench.exe ocaml/bench/bench_convert.exe
	./$(BUILD)/bench/ocaml_bench_c
	$(OCAML_OUT)/bench/bench.exe
	$(OCAML_OUT)/bench/bench_convert.exe | tee bench/results/ocaml_convert.md

$(BUILD)/bench/ocaml_bench_c: ocaml/bench/bench_c.c include/nx_dtype.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -Iinclude $< -o $@ $(C_LIBS)

# A build of its own for the prefix, which every program linked against the
# installed library records: -L P/lib and the run-time path P/lib. The
# bytecode stubs link against the tree's libnx_dtype (LIBRARY_PATH, not
# recorded), so that neither DESTDIR nor the order of make install's parts
# matters. The profile is release, as opam builds: modules compiled without
# -opaque, so that users' calls inline. dune installs what ocaml/dune
# declares, META included; it reads DESTDIR itself, and an empty one would
# make every path relative.
OCAML_INSTALL_DIR := $(abspath $(BUILD))/dune-install
install-ocaml: lib
	$(OCAML_ENV) && $(call dune_lock,$(OCAML_INSTALL_DIR)) && \
	  NX_DTYPE_INCLUDE=$(abspath include) NX_DTYPE_LIBDIR=$(OCAML_PREFIX_ABS)/lib \
	  LIBRARY_PATH=$(ABS_LIBDIR)$${LIBRARY_PATH:+:$$LIBRARY_PATH} \
	  dune build --root $(CURDIR) --build-dir $(OCAML_INSTALL_DIR) --profile release --display quiet @install && \
	  env -u DESTDIR dune install --root $(CURDIR) --build-dir $(OCAML_INSTALL_DIR) --display quiet \
	    --prefix $(OCAML_PREFIX_ABS) --libdir $(OCAML_PREFIX_ABS)/lib/ocaml \
	    $(if $(DESTDIR),--destdir $(abspath $(DESTDIR))) --sections lib,stublibs nx_array

# `make install` (mk/package.mk) adds the OCaml library when it is built
# (make ocaml, make test); it does not build OCaml itself.
INSTALL_EXTRA += $(if $(wildcard $(OCAML_OUT)/nx_array.cmxa),install-ocaml)
UNINSTALL_EXTRA += uninstall-ocaml

uninstall-ocaml:
	rm -rf $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml/nx_array
	rm -f $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml/stublibs/dllnx_array_stubs.so
	rmdir $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml/stublibs $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml 2>/dev/null || true

# Install into a scratch prefix, then build a user's program both ways:
# a dune project outside the repository with (libraries nx_array), found
# through OCAMLPATH=P/lib/ocaml; and ocamlopt -I P/lib/ocaml/nx_array
# nx_array.cmxa prog.ml, run by its recorded path and by the loader's
# search path; and the latter in bytecode, with the stubs found, as
# findlib's stublibs are, through CAML_LD_LIBRARY_PATH. And the example of
# ocaml/README.md, which asserts what it shows.
OCAML_SMOKE := $(abspath $(BUILD))/ocaml-install
test-ocaml-install: ocaml
	rm -rf $(OCAML_SMOKE) && mkdir -p $(OCAML_SMOKE)
	$(MAKE) --no-print-directory install PREFIX=$(OCAML_SMOKE)/prefix >/dev/null
	@set -e; $(OCAML_ENV); P=$(OCAML_SMOKE)/prefix; \
	user=$$(mktemp -d); trap 'rm -rf "$$user"' EXIT; \
	cp ocaml/test/install/dune-project ocaml/test/install/dune ocaml/test/install/prog.ml "$$user"/; \
	sed -n '/^```ocaml$$/,/^```$$/p' ocaml/README.md | sed '1d;$$d' > "$$user"/readme.ml; \
	cd "$$user"; \
	echo "== dune build, OCAMLPATH=$$P/lib/ocaml"; \
	OCAMLPATH=$$P/lib/ocaml dune build --root . --display quiet ./prog.exe; ./_build/default/prog.exe; \
	echo "== ocamlopt -I $$P/lib/ocaml/nx_array nx_array.cmxa prog.ml"; \
	ocamlopt -I $$P/lib/ocaml/nx_array nx_array.cmxa prog.ml -o prog; \
	./prog; env $(LIBPATH_VAR)=$$P/lib ./prog; \
	echo "== ocamlc -I $$P/lib/ocaml/nx_array nx_array.cma prog.ml"; \
	export CAML_LD_LIBRARY_PATH=$$P/lib/ocaml/stublibs; \
	ocamlc -I $$P/lib/ocaml/nx_array nx_array.cma prog.ml -o prog.byte; ocamlrun ./prog.byte; \
	echo "== ocaml/README.md's example"; \
	ocamlopt -I $$P/lib/ocaml/nx_array nx_array.cmxa readme.ml -o readme; ./readme
	@echo "ocaml install: 5 passed, 0 failed"

TEST_TARGETS += test-ocaml

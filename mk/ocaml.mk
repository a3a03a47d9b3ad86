# The OCaml binding (ocaml/): the library nx_array, module Nx_array.Dtype.
#
#   make ocaml                 build it (ocaml/_build)
#   make test-ocaml            its tests, native and bytecode, and an install
#                              smoke test (part of make test)
#   make bench-ocaml           of_float / pp_value per call, OCaml beside C
#   make install-ocaml PREFIX=P  the OCaml library in P/lib/ocaml/nx_array,
#                              linked against P/lib/libnx_dtype.so
#
# OCaml 5.3.0 comes from scripts/ocaml-env (built once into a cache outside
# the repository); Debian's /usr/bin OCaml 4.13 is never used: ocaml/Makefile
# refuses any other version.

OCAML_ENV = eval "$$(scripts/ocaml-env)"
OCAML_MAKE = $(OCAML_ENV) && $(MAKE) -C ocaml NX_LIBDIR=$(ABS_LIBDIR) \
  NX_INCLUDE=$(abspath include) CC="$(CC)"

PREFIX ?= /usr/local
OCAML_PREFIX_ABS = $(abspath $(PREFIX))

.PHONY: ocaml test-ocaml test-ocaml-install bench-ocaml install-ocaml uninstall-ocaml

ocaml: lib
	$(OCAML_MAKE)

test-ocaml: lib
	$(OCAML_MAKE) test
	$(MAKE) --no-print-directory test-ocaml-install

bench-ocaml: lib
	$(OCAML_MAKE) bench

install-ocaml: lib
	$(OCAML_MAKE) install PREFIX=$(OCAML_PREFIX_ABS)

# `make install` (mk/package.mk) adds the OCaml library when it is built
# (make ocaml, make test); it does not build OCaml itself.
INSTALL_EXTRA += $(if $(wildcard ocaml/_build/nx_array.cmxa),install-ocaml)
UNINSTALL_EXTRA += uninstall-ocaml

uninstall-ocaml:
	rm -rf $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml/nx_array
	rmdir $(DESTDIR)$(OCAML_PREFIX_ABS)/lib/ocaml 2>/dev/null || true

# Install into a scratch prefix, then build a user's program exactly as the
# issue states: ocamlopt -I P/lib/ocaml/nx_array nx_array.cmxa prog.ml, and
# run it (by its rpath, and with LD_LIBRARY_PATH); the same in bytecode.
OCAML_SMOKE := $(abspath $(BUILD))/ocaml-install
test-ocaml-install:
	rm -rf $(OCAML_SMOKE) && mkdir -p $(OCAML_SMOKE)/src
	$(MAKE) --no-print-directory install PREFIX=$(OCAML_SMOKE)/prefix >/dev/null
	cp ocaml/test/install_smoke.ml $(OCAML_SMOKE)/src/prog.ml
	$(OCAML_ENV) && cd $(OCAML_SMOKE)/src && \
	  ocamlopt -I $(OCAML_SMOKE)/prefix/lib/ocaml/nx_array nx_array.cmxa prog.ml -o prog && \
	  ./prog && LD_LIBRARY_PATH=$(OCAML_SMOKE)/prefix/lib ./prog && \
	  ocamlc -I $(OCAML_SMOKE)/prefix/lib/ocaml/nx_array nx_array.cma prog.ml -o prog.byte && \
	  CAML_LD_LIBRARY_PATH=$(OCAML_SMOKE)/prefix/lib/ocaml/nx_array ocamlrun ./prog.byte
	@echo "ocaml install: 1 passed, 0 failed"

TEST_TARGETS += test-ocaml

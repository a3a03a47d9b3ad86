# Packaging: `make install PREFIX=P [DESTDIR=D]`, `make uninstall`, the
# `nxdtype` command, and `make test-package` (part of make test).
#
#   P/lib/libnx_dtype.so.MAJOR.MINOR.PATCH, libnx_dtype.so.1, libnx_dtype.so
#   (on macOS libnx_dtype.MAJOR.MINOR.PATCH.dylib, libnx_dtype.1.dylib,
#   libnx_dtype.dylib), P/lib/libnx_dtype.a, P/lib/pkgconfig/nx_dtype.pc,
#   P/include/nx_dtype.h, P/bin/nxdtype, and the OCaml library
#   (INSTALL_EXTRA, from mk/ocaml.mk).

PREFIX  ?= /usr/local
DESTDIR ?=
# The one version: Cargo.toml's (nx_version() and the header's macros are
# checked against it by test-package).
VERSION    := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
SOMAJOR    := $(firstword $(subst ., ,$(VERSION)))
# What a static link needs besides libnx_dtype.a is Rust's std's native
# libraries (`rustc --print native-static-libs`); test-package links
# statically with them. On macOS the install name is @rpath/SONAME (build.rs),
# so the .pc also gives programs an rpath to the installed library.
SONAME_DARWIN := libnx_dtype.$(SOMAJOR).dylib
ifeq ($(OS),Darwin)
SONAME     := $(SONAME_DARWIN)
SOFILE     := libnx_dtype.$(VERSION).dylib
STATIC_LIBS := -lSystem -lc -lm
PC_RPATH   := -Wl,-rpath,$${libdir}
else
SONAME     := libnx_dtype.so.$(SOMAJOR)
SOFILE     := libnx_dtype.so.$(VERSION)
STATIC_LIBS := -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
PC_RPATH   :=
endif
SOLINK     := $(notdir $(LIB_SO))
NXDTYPE    := $(LIBDIR)/nxdtype

I_LIB := $(DESTDIR)$(PREFIX)/lib
I_INC := $(DESTDIR)$(PREFIX)/include
I_BIN := $(DESTDIR)$(PREFIX)/bin
I_PC  := $(I_LIB)/pkgconfig

INSTALLED := $(I_LIB)/$(SOFILE) $(I_LIB)/$(SONAME) $(I_LIB)/$(SOLINK) \
  $(I_LIB)/libnx_dtype.a $(I_INC)/nx_dtype.h $(I_PC)/nx_dtype.pc $(I_BIN)/nxdtype

.PHONY: install install-c uninstall uninstall-c nxdtype test-package

nxdtype: lib
	$(CARGO) build --release --bin nxdtype --quiet

install: install-c $(INSTALL_EXTRA)

install-c: lib nxdtype
	install -d $(I_LIB) $(I_INC) $(I_BIN) $(I_PC)
	install -m 755 $(LIB_SO) $(I_LIB)/$(SOFILE)
	ln -sf $(SOFILE) $(I_LIB)/$(SONAME)
	ln -sf $(SONAME) $(I_LIB)/$(SOLINK)
	install -m 644 $(LIBDIR)/libnx_dtype.a $(I_LIB)/libnx_dtype.a
	install -m 644 include/nx_dtype.h $(I_INC)/nx_dtype.h
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(VERSION)|' \
	  -e 's|@STATIC_LIBS@|$(STATIC_LIBS)|' $(if $(PC_RPATH),-e 's|^Libs: .*|& $(PC_RPATH)|') \
	  pkg/nx_dtype.pc.in > $(I_PC)/nx_dtype.pc
	install -m 755 $(NXDTYPE) $(I_BIN)/nxdtype

uninstall: uninstall-c $(UNINSTALL_EXTRA)

# Only what install-c wrote, and the pkgconfig directory if it is left empty.
uninstall-c:
	rm -f $(INSTALLED)
	rmdir $(I_PC) 2>/dev/null || true

# Everything runs in a scratch prefix under build/, never in the system.
PKG_T := $(abspath $(BUILD))/package
test-package: lib nxdtype
	T=$(PKG_T) VERSION=$(VERSION) SONAME=$(SONAME) SOFILE=$(SOFILE) SOLINK=$(SOLINK) \
	  LIB_PATH_VAR=$(LIB_PATH_VAR) \
	  MAKE="$(MAKE) --no-print-directory" CC="$(CC)" WARN="$(WARN)" \
	  PYTHON=$(PYTHON) scripts/test-package

# tests/python/test_nxdtype.py (in test-python) runs the built command.
test-python: nxdtype

TEST_TARGETS += test-package

# macOS, as far as it can be checked without an Apple linker: the library,
# the command and the tests type-check and pass clippy for both Apple
# targets, and build.rs gives the library its install name there.
DARWIN_TARGETS := aarch64-apple-darwin x86_64-apple-darwin
.PHONY: check-darwin
check-darwin:
	@scripts/cross-env darwin
	@set -e; for t in $(DARWIN_TARGETS); do \
	  echo "== cargo clippy --target $$t"; \
	  $(CARGO) clippy --target $$t --all-targets --quiet -- -D warnings; \
	  out=$$(ls -t target/$$t/debug/build/nx_dtype-*/output | head -1); \
	  grep -qx 'cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/$(SONAME_DARWIN)' $$out || \
	    { echo "build.rs gives no install name @rpath/$(SONAME_DARWIN) for $$t ($$out)"; exit 1; }; \
	done; echo "darwin: $(words $(DARWIN_TARGETS)) passed, 0 failed"

TEST_TARGETS += check-darwin

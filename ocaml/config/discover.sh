#!/bin/sh
# Where libnx_dtype and its header are, for ocaml/dune: writes the C flags
# of the stubs (c_flags.sexp) and the link flags every program using
# nx_array records (c_library_flags.sexp).
#
#   NX_DTYPE_INCLUDE  directory of nx_dtype.h
#   NX_DTYPE_LIBDIR   directory of libnx_dtype, searched at link time and
#                     recorded as the programs' run-time path
#
# Unset, both come from pkg-config (an installed libnx_dtype). The run-time
# path is what lets a program run without LD_LIBRARY_PATH (DYLD_LIBRARY_PATH
# on macOS); both linkers take -rpath.
#
# Warnings are errors in the profile make builds with (nx, ocaml/dune),
# not in others (dune build -p, as opam builds), where a newer compiler's
# new warning must not stop an install.
#
# Usage: discover.sh OCAML_WHERE PROFILE (dune's %{ocaml_where} %{profile})
set -eu
where="$1"
werror=""
[ "$2" = nx ] && werror="-Werror"
inc="${NX_DTYPE_INCLUDE:-}"
lib="${NX_DTYPE_LIBDIR:-}"
if [ -z "$inc" ] || [ -z "$lib" ]; then
  if pkg-config --exists nx_dtype 2>/dev/null; then
    [ -n "$inc" ] || inc="$(pkg-config --variable=includedir nx_dtype)"
    [ -n "$lib" ] || lib="$(pkg-config --variable=libdir nx_dtype)"
  else
    echo "nx_array: libnx_dtype not found: set NX_DTYPE_INCLUDE and NX_DTYPE_LIBDIR," >&2
    echo "or install it (make install PREFIX=P) and put P/lib/pkgconfig on PKG_CONFIG_PATH" >&2
    exit 1
  fi
fi
[ -f "$inc/nx_dtype.h" ] || { echo "nx_array: no nx_dtype.h in $inc" >&2; exit 1; }
# OCaml's headers as system headers: their extensions stay out of -Wpedantic.
printf '(-std=c11 -Wall -Wextra -Wpedantic %s -isystem "%s" "-I%s")\n' "$werror" "$where" "$inc" > c_flags.sexp
printf '("-L%s" -lnx_dtype "-Wl,-rpath,%s")\n' "$lib" "$lib" > c_library_flags.sexp

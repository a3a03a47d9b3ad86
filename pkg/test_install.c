/* Built by scripts/test-package against an installed tree with nothing but
 * `pkg-config --cflags --libs nx_dtype`: the header and the library agree
 * on the version (argv[1] is Cargo.toml's), and a store prints as it should. */
#include <stdio.h>
#include <string.h>
#include <nx_dtype.h>
#include "../c_tests/check.h"

int main(int argc, char **argv) {
  char macros[64], text[NX_FORMAT_MAX];
  unsigned char h[2] = {0, 0};
  double back = 0;
  snprintf(macros, sizeof macros, "%d.%d.%d", NX_DTYPE_VERSION_MAJOR,
           NX_DTYPE_VERSION_MINOR, NX_DTYPE_VERSION_PATCH);
  CHECKF(strcmp(macros, nx_version()) == 0, "header %s, library %s", macros, nx_version());
  CHECKF(argc > 1 && strcmp(argv[1], nx_version()) == 0, "Cargo.toml %s, library %s",
         argc > 1 ? argv[1] : "?", nx_version());
  CHECK(nx_abi_version() == NX_DTYPE_ABI_VERSION);
  CHECK(nx_store_f64(NX_FLOAT16, 0.1, h) == NX_OK);
  CHECK(h[0] == 0x66 && h[1] == 0x2E);
  CHECK(nx_load_f64(NX_FLOAT16, h, &back) == NX_OK && back == 0x1.998p-4);
  CHECK(nx_format(NX_FLOAT16, h, text, sizeof text) == 3 && strcmp(text, "0.1") == 0);
  return check_report("installed");
}

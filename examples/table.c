/* The demo: every dtype's facts, and what a store of a few doubles holds in
 * each float format, all through the public C ABI. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nx_dtype.h"

static const char *KINDS[] = {"float", "complex", "signed", "unsigned", "boolean"};

/* Print one element of dt (as float64) into buf. */
static const char *show(int32_t dt, const void *elem, char *buf, size_t cap) {
  double x;
  if (nx_load_f64(dt, elem, &x) != NX_OK) return "?";
  snprintf(buf, cap, "%.17g", x);
  return buf;
}

int main(void) {
  char lo[64], hi[64];
  unsigned char e[16];
  printf("libnx_dtype %s (ABI %u)\n\n", nx_version(), nx_abi_version());
  printf("%-4s %-14s %4s %-8s %-22s %-22s %-9s %-12s %s\n", "code", "name", "bits", "kind",
         "min", "max", "epsilon", "min_normal", "max_finite");
  for (int32_t dt = 0; dt < NX_DTYPE_COUNT; dt++) {
    const nx_dtype_row *row = &nx_dtype_table[dt];
    if (nx_dtype_min_value(dt, e) == NX_OK) show(dt, e, lo, sizeof lo);
    else snprintf(lo, sizeof lo, "-");
    if (nx_dtype_max_value(dt, e) == NX_OK) show(dt, e, hi, sizeof hi);
    else snprintf(hi, sizeof hi, "-");
    printf("%-4d %-14s %4d %-8s %-22s %-22s", dt, row->name, row->bits, KINDS[row->kind], lo, hi);
    if (row->is_float)
      printf(" %-9.3g %-12.6g %.17g\n", row->float_format.epsilon, row->float_format.min_normal,
             row->float_format.max_finite);
    else
      printf("\n");
  }

  {
    const double xs[] = {0.1, 65519.0, 65520.0, 448.0, 1e9, NAN};
    const char *labels[] = {"0.1", "65519", "65520", "448", "1e9", "NaN"};
    printf("\nA store of x into each float format: element bits = value held\n%-14s", "");
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) printf(" %-24s", labels[i]);
    printf("\n");
    for (int32_t dt = 0; dt < NX_DTYPE_COUNT; dt++) {
      if (nx_dtype_kind(dt) != NX_KIND_FLOAT) continue;
      printf("%-14s", nx_dtype_name(dt));
      for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char cell[64], v[40];
        unsigned long long bits = 0;
        int nbytes = (nx_dtype_bits(dt) + 7) / 8;
        memset(e, 0, sizeof e);
        nx_store_f64(dt, xs[i], e);
        for (int b = nbytes - 1; b >= 0; b--) bits = bits << 8 | e[b];
        snprintf(cell, sizeof cell, "0x%0*llX = %s", nx_dtype_bits(dt) <= 4 ? 1 : nbytes * 2, bits,
                 show(dt, e, v, sizeof v));
        printf(" %-24s", cell);
      }
      printf("\n");
    }
  }
  return 0;
}

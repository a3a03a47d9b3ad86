/* The demo: every dtype's facts, and what a store of a few doubles holds in
 * each float format, all through the public C ABI. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nx_dtype.h"

static const char *KINDS[] = {"float", "complex", "signed", "unsigned", "boolean"};

/* Print one element of dt as the library does (pp_value, docs/SEMANTICS.md). */
static const char *show(int32_t dt, const void *elem, char *buf, size_t cap) {
  if (nx_format(dt, elem, buf, cap) < 0) return "?";
  return buf;
}

int main(void) {
  char lo[NX_FORMAT_MAX], hi[NX_FORMAT_MAX];
  unsigned char e[16];
  printf("libnx_dtype %s (ABI %u)\n\n", nx_version(), nx_abi_version());
  printf("%-4s %-14s %4s %-8s %-22s %-22s %-22s %-23s %s\n", "code", "name", "bits", "kind",
         "min", "max", "epsilon", "min_normal", "max_finite");
  for (int32_t dt = 0; dt < NX_DTYPE_COUNT; dt++) {
    const nx_dtype_row *row = &nx_dtype_table[dt];
    if (nx_dtype_min_value(dt, e) == NX_OK) show(dt, e, lo, sizeof lo);
    else snprintf(lo, sizeof lo, "-");
    if (nx_dtype_max_value(dt, e) == NX_OK) show(dt, e, hi, sizeof hi);
    else snprintf(hi, sizeof hi, "-");
    printf("%-4d %-14s %4d %-8s %-22s %-22s", dt, row->name, row->bits, KINDS[row->kind], lo, hi);
    if (row->is_float) {
      char eps[NX_FORMAT_MAX], mn[NX_FORMAT_MAX], mx[NX_FORMAT_MAX];
      /* The facts are float64 values: print them as float64. */
      nx_format_f64(NX_FLOAT64, row->float_format.epsilon, eps, sizeof eps);
      nx_format_f64(NX_FLOAT64, row->float_format.min_normal, mn, sizeof mn);
      nx_format_f64(NX_FLOAT64, row->float_format.max_finite, mx, sizeof mx);
      printf(" %-22s %-23s %s\n", eps, mn, mx);
    } else
      printf("\n");
  }

  {
    const double xs[] = {0.1, 65519.0, 65520.0, 448.0, 1e9, NAN};
    const char *labels[] = {"0.1", "65519", "65520", "448", "1e9", "NaN"};
    printf("\nA store of x into each float format: the element's bits, how it prints, and\n"
           "the value it holds (as float64, %%.17g)\n\n");
    printf("%-14s %-6s %-18s %-11s %s\n", "format", "x", "bits", "prints", "holds");
    for (int32_t dt = 0; dt < NX_DTYPE_COUNT; dt++) {
      if (nx_dtype_kind(dt) != NX_KIND_FLOAT) continue;
      for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char v[NX_FORMAT_MAX];
        unsigned long long bits = 0;
        double held;
        int nbytes = (nx_dtype_bits(dt) + 7) / 8;
        memset(e, 0, sizeof e);
        nx_store_f64(dt, xs[i], e);
        nx_load_f64(dt, e, &held);
        for (int b = nbytes - 1; b >= 0; b--) bits = bits << 8 | e[b];
        printf("%-14s %-6s 0x%0*llX%*s %-11s %.17g\n", i == 0 ? nx_dtype_name(dt) : "", labels[i],
               nx_dtype_bits(dt) <= 4 ? 1 : nbytes * 2, bits,
               16 - (nx_dtype_bits(dt) <= 4 ? 1 : nbytes * 2), "", show(dt, e, v, sizeof v), held);
      }
    }
  }
  return 0;
}

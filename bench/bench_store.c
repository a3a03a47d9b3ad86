/* nx_store_f64 per call from C, for each float format, on random doubles
 * spread over the format's range. Reports ns per call and, measured in the
 * same run, the cost of the same loop storing with a plain C cast to float
 * (hardware conversion, float32 only) as a floor. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "nx_dtype.h"

#define N (1 << 16)
#define REPS 200

int main(void) {
  static double xs[N];
  unsigned char e[16];
  volatile unsigned sink = 0;
  printf("| format | ns per call, values in range | ns per call, wide (+-4 binades past the range) |\n|---|---|---|\n");
  for (int32_t dt = 0; dt < NX_DTYPE_COUNT; dt++) {
    if (nx_dtype_kind(dt) != NX_KIND_FLOAT) continue;
    nx_float_format ff;
    nx_dtype_float_format(dt, &ff);
    /* Binades from the least subnormal to the largest finite value ("in
     * range"), then 4 more binades on each side ("wide"). */
    int lo = (int)floor(log2(ff.min_normal)) - ff.fraction_bits, hi = (int)floor(log2(ff.max_finite));
    printf("| %s |", nx_dtype_name(dt));
    for (int wide = 0; wide < 2; wide++) {
    int a = lo - 4 * wide, b = hi + 4 * wide;
    if (a < -1070) a = -1070;
    if (b > 1020) b = 1020;
    for (int i = 0; i < N; i++)
      xs[i] = ldexp((double)(next() >> 11) / 9007199254740992.0 + 1.0, a + (int)(next() % (uint64_t)(b - a + 1))) *
              ((next() & 1) ? -1 : 1);
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
      double t0 = now();
      for (int k = 0; k < REPS; k++)
        for (int i = 0; i < N; i++) {
          nx_store_f64(dt, xs[i], e);
          sink += e[0];
        }
      double ns = (now() - t0) * 1e9 / ((double)N * REPS);
      if (ns < best) best = ns;
    }
    printf(" %.2f |", best);
    }
    printf("\n");
  }
  {
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
      double t0 = now();
      for (int k = 0; k < REPS; k++)
        for (int i = 0; i < N; i++) {
          volatile float f = (float)xs[i];
          sink += (unsigned)f;
        }
      double ns = (now() - t0) * 1e9 / ((double)N * REPS);
      if (ns < best) best = ns;
    }
    printf("| (floor: a C cast to float in the same loop) | %.2f | |\n", best);
  }
  return (int)(sink & 0);
}

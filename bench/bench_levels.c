/* make bench-levels: Gelem/s of nx_convert for every pair of the dtypes
 * below, at the level NX_DTYPE_ISA picks, one line per pair:
 *
 *     <src code> <dst code> <Gelem/s>
 *
 * scripts/bench-levels runs it under each level in turn, several times,
 * and prints the best of each beside the others: levels are compared in
 * one sitting, alternated, because the host is shared and drifts.
 *
 * Usage: bench_levels [elements [source pattern [pairs]]]
 *   elements  per call (default 16384: in L1/L2 for every pair);
 *   pattern   "normal" (default: values around 1, and integers in range
 *             for the integer sources) or "bits" (random bit patterns);
 *   pairs     only these, as "s:d,s:d" (dtype codes). */

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "nx_dtype.h"

/* Source elements: random bits, or a store of a value near 1 (a sum of
 * uniforms, roughly normal) for floats (both parts of a complex) and of an
 * in-range integer for the integer dtypes, through the library's own
 * store. */
static void fill(int32_t dt, unsigned char *p, int64_t n, int bits_only) {
  int32_t width = nx_dtype_bits(dt);
  size_t bytes = (size_t)((n * width + 7) / 8);
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)next();
  if (bits_only || width < 8) return; /* sub-byte: every pattern is in range */
  int32_t kind = nx_dtype_kind(dt);
  /* A complex element is two floats of its part's format. */
  int32_t part = dt == NX_COMPLEX128 ? NX_FLOAT64 : dt == NX_COMPLEX64 ? NX_FLOAT32 : dt;
  size_t w = (size_t)nx_dtype_bits(part) / 8;
  int64_t parts = kind == NX_KIND_COMPLEX ? 2 * n : n;
  for (int64_t i = 0; i < parts; i++) {
    double x;
    if (kind == NX_KIND_FLOAT || kind == NX_KIND_COMPLEX) {
      x = 0;
      for (int k = 0; k < 4; k++) x += (double)(next() >> 11) / 9007199254740992.0 - 0.5;
      x *= 3.0;
    } else {
      x = (double)(int64_t)(next() % 200) - (kind == NX_KIND_UNSIGNED ? 0 : 100);
    }
    unsigned char tmp[16];
    if (nx_store_f64(part, x, tmp) == NX_OK) memcpy(p + (size_t)i * w, tmp, w);
  }
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 16384;
  int bits_only = argc > 2 && strcmp(argv[2], "bits") == 0;
  const char *only = argc > 3 ? argv[3] : NULL;
  const int count = NX_DTYPE_COUNT;
  /* 64-byte aligned plus 16, as numpy's arrays sit. */
  size_t room = ((size_t)n * 16 + 128 + 63) / 64 * 64; /* aligned_alloc wants a multiple */
  unsigned char *src = aligned_alloc(64, room);
  unsigned char *dst = aligned_alloc(64, room);
  if (!src || !dst || n <= 0) return 1;
  src += 16;
  dst += 16;
  printf("# level %s, %lld elements, %s\n", nx_kernel_isa(), (long long)n,
         bits_only ? "random bits" : "normal values");
  for (int a = 0; a < count; a++) {
    fill(a, src, n, bits_only);
    for (int b = 0; b < count; b++) {
      if (a == b) continue;
      if (only) {
        char key[16];
        snprintf(key, sizeof key, "%d:%d", a, b);
        /* A match bounded by the list's commas. */
        const char *m = strstr(only, key);
        size_t len = strlen(key);
        while (m && !((m == only || m[-1] == ',') && (m[len] == ',' || m[len] == 0))) m = strstr(m + 1, key);
        if (!m) continue;
      }
      double best = 1e30;
      /* About 2 ms a batch, best of 7 batches. */
      double t0 = now();
      if (nx_convert(a, src, b, dst, n) != NX_OK) return 2;
      double one = now() - t0;
      long reps = (long)(2e-3 / (one > 1e-7 ? one : 1e-7));
      if (reps < 1) reps = 1;
      for (int k = 0; k < 7; k++) {
        t0 = now();
        for (long r = 0; r < reps; r++) nx_convert(a, src, b, dst, n);
        double t = (now() - t0) / (double)reps;
        if (t < best) best = t;
      }
      printf("%d %d %.3f\n", a, b, (double)n / best * 1e-9);
    }
  }
  return 0;
}

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
 *             for the integer sources), "bits" (random bit patterns) or
 *             "subnormal" (floats below their format's normals: random
 *             bits with the exponent field cleared; integers as "normal");
 *   pairs     only these, as "s:d,s:d" (dtype codes).
 * Environment BENCH_STRIDE=k (default 1) reads every k-th source element,
 * BENCH_DST_STRIDE=k writes every k-th destination element
 * (nx_convert_strided). */

#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "nx_dtype.h"

enum pattern { NORMAL, BITS, SUBNORMAL };

/* The bits of a float part that are its exponent field. */
static uint64_t exponent_mask(int32_t part) {
  nx_float_format f;
  if (nx_dtype_float_format(part, &f) != NX_OK) return 0;
  return ((UINT64_C(1) << f.exponent_bits) - 1) << f.fraction_bits;
}

/* Source elements: random bits, or a store of a value near 1 (a sum of
 * uniforms, roughly normal) for floats (both parts of a complex) and of an
 * in-range integer for the integer dtypes, through the library's own
 * store; or for SUBNORMAL, floats of random bits without their exponent
 * (subnormals and zeros of the format). */
static void fill(int32_t dt, unsigned char *p, int64_t n, enum pattern pat) {
  int32_t width = nx_dtype_bits(dt);
  size_t bytes = (size_t)((n * width + 7) / 8);
  for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)next();
  int32_t kind = nx_dtype_kind(dt);
  /* A complex element is two floats of its part's format. */
  int32_t part = dt == NX_COMPLEX128 ? NX_FLOAT64 : dt == NX_COMPLEX64 ? NX_FLOAT32 : dt;
  int floats = kind == NX_KIND_FLOAT || kind == NX_KIND_COMPLEX;
  if (pat == SUBNORMAL && floats) {
    /* Parts of 4 bits and more, little-endian: clear each one's exponent. */
    int32_t w = nx_dtype_bits(part);
    uint64_t field = exponent_mask(part);
    for (size_t bit = 0; bit + (size_t)w <= bytes * 8; bit += (size_t)w) {
      size_t at = bit / 8, len = ((size_t)w + 7) / 8;
      uint64_t v = 0;
      memcpy(&v, p + at, len);
      v &= ~(field << (bit % 8));
      memcpy(p + at, &v, len);
    }
    return;
  }
  if (pat == BITS || width < 8) return; /* sub-byte: every pattern is in range */
  size_t w = (size_t)nx_dtype_bits(part) / 8;
  int64_t parts = kind == NX_KIND_COMPLEX ? 2 * n : n;
  for (int64_t i = 0; i < parts; i++) {
    double x;
    if (floats) {
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

/* Whether a -> b is in the list "s:d,s:d" (every pair without a list). */
static int listed(const char *only, int a, int b) {
  if (!only) return 1;
  char key[16];
  snprintf(key, sizeof key, "%d:%d", a, b);
  /* A match bounded by the list's commas. */
  const char *m = strstr(only, key);
  size_t len = strlen(key);
  while (m && !((m == only || m[-1] == ',') && (m[len] == ',' || m[len] == 0))) m = strstr(m + 1, key);
  return m != NULL;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 16384;
  const char *pname = argc > 2 ? argv[2] : "normal";
  enum pattern pat = strcmp(pname, "bits") == 0 ? BITS : strcmp(pname, "subnormal") == 0 ? SUBNORMAL : NORMAL;
  const char *only = argc > 3 ? argv[3] : NULL;
  const int count = NX_DTYPE_COUNT;
  /* 64-byte aligned plus 16, as numpy's arrays sit. */
  const char *st = getenv("BENCH_STRIDE");
  int64_t stride = st ? atoll(st) : 1;
  const char *dt = getenv("BENCH_DST_STRIDE");
  int64_t dstride = dt ? atoll(dt) : 1;
  if (stride < 1 || dstride < 1) return 1;
  int64_t wide = stride > dstride ? stride : dstride;
  size_t room = ((size_t)(n * wide) * 16 + 128 + 63) / 64 * 64; /* aligned_alloc wants a multiple */
  unsigned char *src = aligned_alloc(64, room);
  unsigned char *dst = aligned_alloc(64, room);
  if (!src || !dst || n <= 0) return 1;
  src += 16;
  dst += 16;
  printf("# level %s, %lld elements, source stride %lld, destination stride %lld, %s\n", nx_kernel_isa(),
         (long long)n, (long long)stride, (long long)dstride,
         pat == BITS ? "random bits" : pat == SUBNORMAL ? "subnormal floats" : "normal values");
  for (int a = 0; a < count; a++) {
    int filled = 0;
    for (int b = 0; b < count; b++) {
      if (a == b || !listed(only, a, b)) continue;
      /* Filled once a source, and only if one of its pairs is measured. */
      if (!filled) fill(a, src, n * stride, pat);
      filled = 1;
      double best = 1e30;
      /* About 2 ms a batch, best of 7 batches. */
      double t0 = now();
      if (nx_convert_strided(a, src, 0, stride, b, dst, 0, dstride, n) != NX_OK) return 2;
      double one = now() - t0;
      long reps = (long)(2e-3 / (one > 1e-7 ? one : 1e-7));
      if (reps < 1) reps = 1;
      for (int k = 0; k < 7; k++) {
        t0 = now();
        for (long r = 0; r < reps; r++) nx_convert_strided(a, src, 0, stride, b, dst, 0, dstride, n);
        double t = (now() - t0) / (double)reps;
        if (t < best) best = t;
      }
      printf("%d %d %.3f\n", a, b, (double)n / best * 1e-9);
    }
  }
  return 0;
}

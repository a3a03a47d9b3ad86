/* What the C benchmarks share: a monotonic clock and a xorshift generator
 * (fixed seed: every run measures the same inputs). Define
 * _POSIX_C_SOURCE before including. */
#ifndef NX_BENCH_H
#define NX_BENCH_H

#include <stdint.h>
#include <time.h>

static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static inline uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

#endif

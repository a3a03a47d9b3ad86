/* make bench: the read floor. One pass that reads n bytes and folds them
 * into one word, with four independent 64-byte accumulators so that the
 * loads, not the folding, set the pace. No conversion can take less time
 * than reading its source once, so a kernel's time against this one says
 * how close it runs to the machine's one-thread read bandwidth. Two forms,
 * with and without software prefetch 2 KiB ahead (as the kernels do past
 * 512 KiB); the benchmark keeps the faster. Built with -O3 -march=native
 * by `make bench` and loaded through ctypes. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static uint64_t fold(const unsigned char *b, size_t n, int prefetch) {
  uint64_t acc[32] = {0};
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    if (prefetch) {
      for (int k = 0; k < 4; k++) __builtin_prefetch(b + i + 2048 + 64 * k);
    }
    for (int j = 0; j < 32; j++) {
      uint64_t w;
      memcpy(&w, b + i + 8 * j, 8);
      acc[j] |= w;
    }
  }
  uint64_t r = 0;
  for (; i < n; i++) r |= b[i];
  for (int j = 0; j < 32; j++) r |= acc[j];
  return r;
}

uint64_t nx_bench_read(const void *p, size_t n) { return fold(p, n, 0); }

uint64_t nx_bench_read_prefetch(const void *p, size_t n) { return fold(p, n, 1); }

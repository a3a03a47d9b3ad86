/* The write floor of a 1:2 widening at 16 MiB of source (make
 * bench-write): what bounds float8 -> float16 there. Each line runs one
 * loop again and again over the same buffers, as `make bench` does, and
 * prints its best time as GB/s written and GB/s moved (read + written):
 *   - the destination (32 MiB) written alone with non-temporal stores;
 *   - the widening (VPMOVZXBW, a 64-byte non-temporal store a 32 source
 *     bytes; the source stays in L3 from one call to the next);
 *   - the same with ordinary stores.
 * A widening that does no more than widen runs at the floor: the rate of
 * the kernels' 1:2 widenings at 16 MiB cannot pass it. Context for the
 * 16 MiB widenings (BENCHMARKS.md), not a test. Needs AVX512-F/BW. */
#define _DEFAULT_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"

enum { NT_WRITE, WIDEN_NT, WIDEN_PLAIN, KINDS };

static void run(int kind, const unsigned char *s, unsigned char *d, size_t n) {
  switch (kind) {
  case NT_WRITE:
    for (size_t i = 0; i < 2 * n; i += 64) _mm512_stream_si512((void *)(d + i), _mm512_set1_epi8(1));
    _mm_sfence();
    break;
  default:
    for (size_t i = 0; i < n; i += 32) {
      __m512i v = _mm512_cvtepu8_epi16(_mm256_load_si256((const void *)(s + i)));
      if (kind == WIDEN_NT)
        _mm512_stream_si512((void *)(d + 2 * i), v);
      else
        _mm512_store_si512((void *)(d + 2 * i), v);
    }
    _mm_sfence();
  }
}

int main(int argc, char **argv) {
  size_t n = (size_t)(argc > 1 ? atol(argv[1]) : 16) << 20; /* source bytes */
  /* In huge pages where the kernel grants them, as numpy's large arrays
   * are (`make bench`'s buffers): in 4 KiB pages the ordinary stores
   * write markedly slower, which would not be the floor make bench meets. */
  unsigned char *buf[2];
  size_t len[2] = {n, 2 * n};
  for (int k = 0; k < 2; k++) {
    size_t bytes = (len[k] + (2u << 20) - 1) / (2u << 20) * (2u << 20);
    buf[k] = aligned_alloc(2u << 20, bytes);
    if (!buf[k]) return 1;
    madvise(buf[k], bytes, MADV_HUGEPAGE);
  }
  unsigned char *s = buf[0], *d = buf[1];
  for (size_t i = 0; i < n; i++) s[i] = (unsigned char)next();
  memset(d, 0, 2 * n);
  static const char *names[KINDS] = {"non-temporal write alone", "widening, non-temporal",
                                     "widening, ordinary stores"};
  static const double moved[KINDS] = {2, 3, 3};
  double best[KINDS];
  for (int k = 0; k < KINDS; k++) best[k] = 1e9;
  /* Rounds alternate the kinds, so a drift in the host touches each alike;
   * within a round a kind runs 8 times, its first 2 untimed (steady state). */
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < KINDS; k++)
      for (int r = 0; r < 8; r++) {
        double t = now();
        run(k, s, d, n);
        t = now() - t;
        if (r >= 2 && t < best[k]) best[k] = t;
      }
  printf("# %zu MiB of source, best of 18 calls each, GB/s\n", n >> 20);
  printf("%-28s %8s %8s\n", "loop", "written", "moved");
  for (int k = 0; k < KINDS; k++)
    printf("%-28s %8.1f %8.1f\n", names[k], 2 * (double)n / best[k] / 1e9,
           moved[k] * (double)n / best[k] / 1e9);
  return d[1] == 0xFF; /* keep the stores */
}

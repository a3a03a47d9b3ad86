/* Memory-level parallelism against work between loads (make bench-read):
 * a 2:1 narrowing shaped like the kernels' (two 512-bit loads, a pack, one
 * 64-byte non-temporal store a 128 source bytes) over 256 MiB, with K
 * dependent VPMINUW a vector between the loads and the pack, without and
 * with a prefetch 4 KiB ahead. Prints the source's read rate (GB/s) for
 * each. Context for the 256 MiB narrowings (BENCHMARKS.md), not a test.
 * Needs AVX512-F/BW. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static double rate(const char *s, char *d, size_t bytes, int k, size_t ahead) {
  const __m512i lim = _mm512_set1_epi16(3);
  double best = 1e9;
  for (int r = 0; r < 5; r++) {
    double t = now();
    for (size_t i = 0; i < bytes; i += 128) {
      if (ahead)
        _mm_prefetch(s + i + ahead, _MM_HINT_T0);
      __m512i a = _mm512_load_si512(s + i), b = _mm512_load_si512(s + i + 64);
      for (int j = 0; j < k; j++) {
        a = _mm512_min_epu16(a, lim);
        b = _mm512_min_epu16(b, lim);
        __asm__ volatile("" : "+v"(a), "+v"(b));
      }
      __m512i c = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
      _mm512_stream_si512((void *)(d + i / 2), c);
    }
    _mm_sfence();
    t = now() - t;
    if (t < best)
      best = t;
  }
  return bytes / best * 1e-9;
}

int main(void) {
  size_t bytes = (size_t)256 << 20;
  char *s = aligned_alloc(4096, bytes), *d = aligned_alloc(4096, bytes / 2);
  if (!s || !d)
    return 1;
  memset(s, 1, bytes);
  memset(d, 0, bytes / 2);
  printf("%-28s %12s %20s\n", "VPMINUW a vector", "read GB/s", "prefetch 4 KiB, GB/s");
  const int ks[] = {0, 4, 8, 16};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    printf("%-28d %12.1f %20.1f\n", ks[i], rate(s, d, bytes, ks[i], 0), rate(s, d, bytes, ks[i], 4096));
  free(s);
  free(d);
  return 0;
}

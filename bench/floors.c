/* make bench: the floors a conversion is measured against, loaded through
 * ctypes (built with -O3 -march=native by `make bench`).
 *
 * Read floor: one pass that reads n bytes and folds them into one word,
 * with 32 independent accumulators so that the loads, not the folding, set
 * the pace. No conversion can take less time than reading its source once.
 *
 * Write floor: one pass that stores n bytes, with ordinary or with
 * non-temporal stores (beside glibc's memset). No conversion can take less
 * time than writing its destination once: a widening whose destination
 * leaves the last-level cache is bound by it.
 *
 * Copy floor: a plain copy loop, beside glibc's memcpy. On some CPUs
 * glibc's choice for a size is far from the machine's copy rate (on an
 * AMD Zen 3, `rep movsb` at a few hundred KiB ran at a tenth of it), so the
 * benchmark's memcpy is the fastest of glibc's and these.
 *
 * The read and the copy each come with and without software prefetch 2 KiB
 * ahead; the copy also with non-temporal stores. */

#include <immintrin.h>
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

/* 128 bytes a step with 32-byte vectors, from p's first 32-byte boundary
 * when `nt` (non-temporal stores want aligned addresses). */
static void fill(unsigned char *p, size_t n, int nt) {
  const __m256i v = _mm256_set1_epi8(0x5A);
  size_t i = nt ? (32 - (uintptr_t)p % 32) % 32 : 0;
  if (i > n) i = n;
  memset(p, 0x5A, i);
  for (; i + 128 <= n; i += 128) {
    for (int k = 0; k < 4; k++) {
      if (nt) {
        _mm256_stream_si256((__m256i *)(p + i + 32 * k), v);
      } else {
        _mm256_storeu_si256((__m256i *)(p + i + 32 * k), v);
      }
    }
  }
  if (nt) _mm_sfence();
  memset(p + i, 0x5A, n - i);
}

void nx_bench_write(void *p, size_t n) { fill(p, n, 0); }

void nx_bench_write_stream(void *p, size_t n) { fill(p, n, 1); }

/* 128 bytes a step with 32-byte vectors; `nt` streams when dst is aligned. */
static void copy(unsigned char *d, const unsigned char *s, size_t n, int prefetch, int nt) {
  size_t i = 0;
  nt = nt && ((uintptr_t)d % 32 == 0);
  for (; i + 128 <= n; i += 128) {
    if (prefetch) {
      __builtin_prefetch(s + i + 2048);
      __builtin_prefetch(s + i + 2048 + 64);
    }
    __m256i v[4];
    for (int k = 0; k < 4; k++) v[k] = _mm256_loadu_si256((const __m256i *)(s + i + 32 * k));
    for (int k = 0; k < 4; k++) {
      if (nt) {
        _mm256_stream_si256((__m256i *)(d + i + 32 * k), v[k]);
      } else {
        _mm256_storeu_si256((__m256i *)(d + i + 32 * k), v[k]);
      }
    }
  }
  if (nt) _mm_sfence();
  memcpy(d + i, s + i, n - i);
}

void nx_bench_copy(void *d, const void *s, size_t n) { copy(d, s, n, 0, 0); }

void nx_bench_copy_prefetch(void *d, const void *s, size_t n) { copy(d, s, n, 1, 0); }

void nx_bench_copy_stream(void *d, const void *s, size_t n) { copy(d, s, n, 1, 1); }

/* Threads: NTHREADS threads released together by a barrier all call
 * nx_convert first thing (so the one-time kernel selection races), then
 * convert every dtype pair at several lengths and strides and format every
 * source element, each thread into its own buffers. After joining, the main
 * thread computes the same results alone; every thread's answers must be
 * identical to them, and every thread must have seen the same kernel level.
 *
 * The main thread calls nothing in the library before the threads start:
 * the first use really happens concurrently. `make test-tsan` runs this
 * under ThreadSanitizer (the C side is instrumented; the Rust library is
 * not, so TSan sees its memory accesses only through the C caller). */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nx_dtype.h"

#define NTHREADS 8
#define NMAX 300 /* past the 256-element block */
#define SRC_BYTES (16 * 2 * NMAX + 64)
#define DST_BYTES (16 * 3 * NMAX + 64)
#define PAIRS (NX_DTYPE_COUNT * NX_DTYPE_COUNT)

static unsigned char source[SRC_BYTES];
static pthread_barrier_t start;

/* Per thread: a digest of every conversion result, and of every text. */
typedef struct {
  int id;
  int32_t first_status;
  const char *isa;
  uint64_t conv[PAIRS];
  uint64_t text[NX_DTYPE_COUNT];
  long failures;
} work;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3u;
  return h;
}

static void run(work *w) {
  static const int64_t lens[] = {1, 7, 8, 33, 255, NMAX};
  unsigned char *dst = malloc(DST_BYTES);
  int32_t s, d;
  size_t k;
  if (dst == NULL) { w->failures++; return; }
  for (s = 0; s < NX_DTYPE_COUNT; s++)
    for (d = 0; d < NX_DTYPE_COUNT; d++) {
      uint64_t h = 0xCBF29CE484222325u;
      for (k = 0; k < sizeof lens / sizeof *lens; k++) {
        int64_t n = lens[k];
        memset(dst, 0x5A, DST_BYTES);
        if (nx_convert(s, source, d, dst, n) != NX_OK) w->failures++;
        h = fnv(h, dst, DST_BYTES);
        memset(dst, 0x5A, DST_BYTES);
        if (nx_convert_strided(s, source, 2 * (n - 1) + 1, -2, d, dst, 3, 3, n) != NX_OK) w->failures++;
        h = fnv(h, dst, DST_BYTES);
      }
      w->conv[s * NX_DTYPE_COUNT + d] = h;
    }
  for (s = 0; s < NX_DTYPE_COUNT; s++) {
    uint64_t h = 0xCBF29CE484222325u;
    int64_t bytes = 0, i;
    int bits = nx_dtype_bits(s);
    unsigned char elem[16];
    char buf[NX_FORMAT_MAX];
    for (i = 0; i < 200; i++) {
      int64_t len;
      memset(elem, 0, sizeof elem);
      /* element i of the source, moved to bit 0 by a one-element convert */
      if (nx_convert_strided(s, source, i, 1, s, elem, 0, 1, 1) != NX_OK) w->failures++;
      len = nx_format(s, elem, buf, sizeof buf);
      if (len < 0) w->failures++;
      else h = fnv(h, buf, (size_t)len);
      if (nx_dtype_kind(s) == NX_KIND_FLOAT) {
        double x;
        if (nx_load_f64(s, elem, &x) != NX_OK) w->failures++;
        len = nx_format_f64(s, x, buf, sizeof buf);
        if (len < 0) w->failures++;
        else h = fnv(h, buf, (size_t)len);
        if (nx_store_f64(s, x, elem) != NX_OK) w->failures++;
        h = fnv(h, elem, (size_t)(bits + 7) / 8);
      }
    }
    (void)bytes;
    w->text[s] = h;
  }
  free(dst);
}

static void *thread_main(void *arg) {
  work *w = arg;
  float a[4] = {1.5f, -2.25f, 3.0f, 65504.0f};
  uint16_t b[4];
  pthread_barrier_wait(&start);
  /* The first library call of the process, in every thread at once. */
  w->first_status = nx_convert(NX_FLOAT32, a, NX_FLOAT16, b, 4);
  w->isa = nx_kernel_isa();
  run(w);
  return NULL;
}

int main(void) {
  pthread_t t[NTHREADS];
  static work w[NTHREADS], solo;
  int i, rounds = 3, r;
  uint64_t x = 0x243F6A8885A308D3u;
  for (i = 0; i < SRC_BYTES; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    source[i] = (unsigned char)(x >> 32);
  }
  pthread_barrier_init(&start, NULL, NTHREADS);
  for (i = 0; i < NTHREADS; i++) {
    w[i].id = i;
    CHECK(pthread_create(&t[i], NULL, thread_main, &w[i]) == 0);
  }
  for (i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
  /* Later rounds: the level is chosen; the threads still race each other. */
  static work later[NTHREADS];
  for (r = 1; r < rounds; r++) {
    for (i = 0; i < NTHREADS; i++) CHECK(pthread_create(&t[i], NULL, thread_main, &later[i]) == 0);
    for (i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
    for (i = 0; i < NTHREADS; i++) {
      CHECK(memcmp(later[i].conv, w[i].conv, sizeof later[i].conv) == 0);
      CHECK(memcmp(later[i].text, w[i].text, sizeof later[i].text) == 0);
    }
  }
  /* The single-threaded answer, computed after the threads are gone. */
  run(&solo);
  CHECK(solo.failures == 0);
  for (i = 0; i < NTHREADS; i++) {
    int p;
    CHECK(w[i].first_status == NX_OK);
    CHECKF(strcmp(w[i].isa, nx_kernel_isa()) == 0, "thread %d saw %s", i, w[i].isa);
    CHECK(w[i].failures == 0);
    for (p = 0; p < PAIRS; p++)
      CHECKF(w[i].conv[p] == solo.conv[p], "thread %d pair %d->%d", i, p / NX_DTYPE_COUNT,
             p % NX_DTYPE_COUNT);
    for (p = 0; p < NX_DTYPE_COUNT; p++) CHECKF(w[i].text[p] == solo.text[p], "thread %d text %d", i, p);
  }
  /* The digests are not all equal to a constant: they do depend on data. */
  CHECK(solo.conv[0] != solo.conv[1] && solo.text[0] != solo.text[1]);
  printf("threads: %d threads x %d rounds, level %s\n", NTHREADS, rounds, nx_kernel_isa());
  pthread_barrier_destroy(&start);
  return check_report("threads");
}

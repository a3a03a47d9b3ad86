/* Guard pages: every buffer handed to the library has exactly the bytes the
 * call may touch, and an inaccessible page (mmap + mprotect PROT_NONE)
 * starts right after its last byte (over-reads/writes) or ends right before
 * its first (under-reads). A byte too far kills the test with SIGSEGV.
 *
 * Conversions: every pair, every n in 0..64 and a few large n, forward,
 * with negative source strides, with strides > 1 and offsets; the result
 * must also equal converting element by element (n = 1 calls, each a
 * kernel's partial last step alone; the kernel tests hold both to the
 * scalar reference). Formatting: buf of exactly cap bytes for cap 0..64.
 * Scalars: elem of exactly nx_dtype_bytes(dt, 1).
 *
 * The self-checks at the start fork a child that touches one byte past a
 * guarded buffer, one byte before, and that asks the library to convert one
 * element more than the buffer holds: each must die by SIGSEGV, or this test
 * could not catch anything.
 *
 * NX_GUARD_QUICK=1 (valgrind) keeps every pair and mode but n in 0..24 plus
 * one large n, skipping the 49 MiB streaming case. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "nx_dtype.h"

static size_t page;

/* A mapping with a PROT_NONE page on each side of `data` read-write bytes. */
typedef struct {
  unsigned char *map, *lo, *hi; /* lo .. hi: the accessible bytes */
  size_t map_len;
} region;

static region region_new(size_t data) {
  region r;
  data = (data + page - 1) / page * page;
  if (data == 0) data = page;
  r.map_len = data + 2 * page;
  r.map = mmap(NULL, r.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (r.map == MAP_FAILED) { perror("mmap"); exit(2); }
  if (mprotect(r.map, page, PROT_NONE) || mprotect(r.map + page + data, page, PROT_NONE)) {
    perror("mprotect");
    exit(2);
  }
  r.lo = r.map + page;
  r.hi = r.lo + data;
  return r;
}

static void region_free(region *r) { munmap(r->map, r->map_len); }

/* `len` bytes ending at the upper guard (tail) or starting at the lower. */
static unsigned char *place(const region *r, size_t len, int tail) {
  return tail ? r->hi - len : r->lo;
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static unsigned char rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (unsigned char)(rng >> 24);
}

static int64_t nbytes(int32_t dt, int64_t n) {
  int64_t b = -1;
  if (nx_dtype_bytes(dt, n, &b) != NX_OK) { fprintf(stderr, "bytes\n"); exit(2); }
  return b;
}

/* Run `fn` in a child; 1 iff the child died by SIGSEGV (or SIGBUS). */
static int faults(void (*fn)(void *), void *arg) {
  pid_t pid;
  int st;
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    /* Default action, whatever a sanitizer installed: die by the signal. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    fn(arg);
    _exit(0); /* survived: the guard did not work */
  }
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return 0;
  return WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGBUS);
}

static region R_SRC, R_DST, R_REF;

static void touch_after(void *p) { *(volatile unsigned char *)((unsigned char *)p + 16) = 1; }
static void touch_before(void *p) { *(volatile unsigned char *)((unsigned char *)p - 1) = 1; }
/* Ask for one float32 element more than the 16 bytes before the guard. */
static void convert_one_too_many(void *p) {
  static float dst[8];
  (void)nx_convert(NX_FLOAT32, p, NX_FLOAT32, dst, 5);
}
static void convert_write_one_too_many(void *p) {
  static float src[8];
  (void)nx_convert(NX_FLOAT32, src, NX_FLOAT32, p, 5);
}

static void self_check(void) {
  /* Under valgrind each child below is reported ("Process terminating with
   * default action of signal 11"): that is the fault this check wants. */
  unsigned char *end = place(&R_SRC, 16, 1), *start = place(&R_SRC, 16, 0);
  CHECKF(faults(touch_after, end), "a write one byte past the buffer did not fault");
  CHECKF(faults(touch_before, start), "a write one byte before the buffer did not fault");
  CHECKF(faults(convert_one_too_many, end), "an over-read by the library did not fault");
  CHECKF(faults(convert_write_one_too_many, end), "an over-write by the library did not fault");
  /* ... while exactly 16 bytes are fine (the call the faults differ from). */
  {
    float d[8];
    CHECK(nx_convert(NX_FLOAT32, end, NX_FLOAT32, d, 4) == NX_OK);
  }
}

static long conversions;

/* One strided conversion with both buffers exactly their spans' size
 * (from the pointer to the last element's last byte), placed against the
 * guards; then the same elements one by one into a plain copy. */
static void one_case(int32_t s, int32_t d, int64_t n, int64_t so, int64_t ss, int64_t doff,
                     int64_t ds, int stail, int dtail) {
  int64_t smax = so, dmax = doff + (n > 0 ? (n - 1) * ds : 0), i;
  size_t sb, db;
  unsigned char *src, *dst, *ref;
  int32_t st;
  if (n > 0 && so + (n - 1) * ss > smax) smax = so + (n - 1) * ss;
  sb = (size_t)nbytes(s, n > 0 ? smax + 1 : 0);
  db = (size_t)nbytes(d, n > 0 ? dmax + 1 : 0);
  src = place(&R_SRC, sb, stail);
  dst = place(&R_DST, db, dtail);
  ref = place(&R_REF, db, 1);
  for (i = 0; i < (int64_t)sb; i++) src[i] = rnd();
  for (i = 0; i < (int64_t)db; i++) dst[i] = ref[i] = rnd();
  st = nx_convert_strided(s, src, so, ss, d, dst, doff, ds, n);
  CHECKF(st == NX_OK, "%d->%d n %lld: status %d", s, d, (long long)n, st);
  conversions++;
  for (i = 0; i < n; i++)
    if (nx_convert_strided(s, src, so + i * ss, 1, d, ref, doff + i * ds, 1, 1) != NX_OK) break;
  CHECKF(memcmp(dst, ref, db) == 0, "%d->%d n %lld src %lld/%lld dst %lld/%lld: differs from one by one",
         s, d, (long long)n, (long long)so, (long long)ss, (long long)doff, (long long)ds);
  /* nx_convert itself (offsets 0, strides 1) into exactly n elements. */
  if (so == 0 && ss == 1 && doff == 0 && ds == 1) {
    CHECK(nx_convert(s, src, d, dst, n) == NX_OK);
    CHECK(memcmp(dst, ref, db) == 0);
  }
}

static void conversions_all(int quick) {
  static const int64_t big[] = {257, 1000, 4099};
  int32_t s, d;
  int64_t n, nmax = quick ? 24 : 64;
  size_t k;
  for (s = 0; s < NX_DTYPE_COUNT; s++)
    for (d = 0; d < NX_DTYPE_COUNT; d++) {
      for (n = 0; n <= nmax + (int64_t)(quick ? 1 : 3); n++) {
        int64_t m = n <= nmax ? n : big[n - nmax - 1];
        int tail;
        for (tail = 0; tail < 2; tail++) {
          one_case(s, d, m, 0, 1, 0, 1, tail, tail);                           /* forward */
          one_case(s, d, m, m > 0 ? m - 1 : 0, -1, 0, 1, tail, !tail);          /* reversed */
          one_case(s, d, m, m > 0 ? 3 * (m - 1) + 1 : 1, -3, 3, 2, !tail, tail); /* gathers */
          one_case(s, d, m, 1, 1, 5, 1, tail, tail); /* sub-byte misalignment */
        }
      }
    }
  if (!quick) {
    /* Past STREAM_MIN (16 MiB read + written): the non-temporal path. */
    static const int32_t pairs[][2] = {{NX_FLOAT32, NX_FLOAT64}, {NX_FLOAT64, NX_FLOAT32}};
    for (k = 0; k < 2; k++) {
      int64_t m = ((int64_t)49 << 20) * 8 / nx_dtype_bits(pairs[k][1]) + 3;
      region a = R_SRC, b = R_DST, c = R_REF;
      R_SRC = region_new((size_t)nbytes(pairs[k][0], m));
      R_DST = region_new((size_t)nbytes(pairs[k][1], m));
      R_REF = region_new((size_t)nbytes(pairs[k][1], m));
      one_case(pairs[k][0], pairs[k][1], m, 0, 1, 0, 1, 1, 1);
      region_free(&R_SRC), region_free(&R_DST), region_free(&R_REF);
      R_SRC = a, R_DST = b, R_REF = c;
    }
  }
}

/* nx_format / nx_format_f64 into exactly `cap` bytes; the scalar functions
 * on an element of exactly nx_dtype_bytes(dt, 1) bytes. */
static void scalars_all(void) {
  int32_t dt;
  for (dt = 0; dt < NX_DTYPE_COUNT; dt++) {
    size_t eb = (size_t)nbytes(dt, 1), cap, i;
    int tail, rep;
    for (tail = 0; tail < 2; tail++)
      for (rep = 0; rep < 16; rep++) {
        unsigned char *e = place(&R_SRC, eb, tail);
        char full[NX_FORMAT_MAX];
        int64_t len;
        double x = 0;
        for (i = 0; i < eb; i++) e[i] = rnd();
        len = nx_format(dt, e, full, sizeof full);
        CHECK(len >= 0 && len < NX_FORMAT_MAX);
        for (cap = 0; cap <= NX_FORMAT_MAX; cap++) {
          char *b = (char *)place(&R_DST, cap, tail);
          size_t k = (size_t)len < cap ? (size_t)len : cap - 1;
          CHECK(nx_format(dt, e, b, cap) == len);
          if (cap > 0) CHECK(memcmp(b, full, k) == 0 && b[k] == 0);
        }
        CHECK(nx_load_f64(dt, e, (double *)(void *)place(&R_DST, sizeof(double), tail)) == NX_OK);
        memcpy(&x, place(&R_DST, sizeof(double), tail), sizeof x);
        if (nx_dtype_kind(dt) == NX_KIND_FLOAT) {
          char *b = (char *)place(&R_DST, NX_FORMAT_MAX, tail);
          CHECK(nx_format_f64(dt, x, b, NX_FORMAT_MAX) == len);
        }
        e = place(&R_SRC, eb, tail);
        CHECK(nx_store_f64(dt, x, e) == NX_OK);
        CHECK(nx_store_i64(dt, (int64_t)(rng >> 1) * (rep & 1 ? -1 : 1), e) == NX_OK);
        CHECK(nx_store_u64(dt, rng, e) == NX_OK);
        CHECK(nx_dtype_min_value(dt, e) == (nx_dtype_kind(dt) == NX_KIND_COMPLEX ? NX_ERR_KIND : NX_OK));
        CHECK(nx_dtype_max_value(dt, e) == (nx_dtype_kind(dt) == NX_KIND_COMPLEX ? NX_ERR_KIND : NX_OK));
      }
    /* The name without its NUL, ending at the guard. */
    {
      const char *name = nx_dtype_name(dt);
      size_t n = strlen(name);
      char *b = (char *)place(&R_SRC, n, 1);
      memcpy(b, name, n);
      CHECK(nx_dtype_of_name(b, n) == dt);
    }
    {
      nx_float_format *f = (nx_float_format *)(void *)place(&R_DST, sizeof *f, 1);
      CHECK(nx_dtype_float_format(dt, f) == (nx_dtype_kind(dt) == NX_KIND_FLOAT ? NX_OK : NX_ERR_KIND));
    }
  }
}

int main(void) {
  const char *q = getenv("NX_GUARD_QUICK");
  int quick = q != NULL && q[0] == '1';
  page = (size_t)sysconf(_SC_PAGESIZE);
  /* Largest small case: 4099 elements of 16 bytes at stride 3, plus offset. */
  R_SRC = region_new(16 * (3 * 4099 + 8));
  R_DST = region_new(16 * (2 * 4099 + 8));
  R_REF = region_new(16 * (2 * 4099 + 8));
  self_check();
  conversions_all(quick);
  scalars_all();
  printf("guard: %ld guarded conversions (%s)\n", conversions, quick ? "quick" : "full");
  return check_report("guard");
}

/*
 * The C side of the nx_dtype package, compiled by cffi into the package's
 * extension module `nx_dtype._ffi` (build_ffi.py holds its declarations).
 *
 * It holds no numeric logic. It opens the copy of libnx_dtype that pip
 * built into the package (dlopen by path: no loader path, no rpath, no
 * clash with another copy in the process), forwards calls to it, and runs
 * one conversion of an n-dimensional array as 1-D runs of
 * nx_convert_strided, on a pool of threads when asked. cffi releases the
 * GIL around every call into this file.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nx_dtype.h"

#define NXPY_MAX_DIMS 64
#define NXPY_MAX_THREADS 64

/* One side of a conversion. `nibbles` = 0: the C ABI's layout, positions
 * and strides count elements from `base`. `nibbles` = 1: one 4-bit element
 * a byte, in its low nibble (ml_dtypes' layout), positions and strides
 * count bytes. `base` is the lowest byte any element occupies, so that
 * every position is >= 0 whatever the strides' signs. */
typedef struct nxpy_side {
  int32_t dt;
  int32_t nibbles;
  void *base;
  int64_t offset;
  int64_t strides[NXPY_MAX_DIMS];
} nxpy_side;

/* Element (i0, ..., ik) of the source goes to element (i0, ..., ik) of the
 * destination, for every index below `shape`. */
typedef struct nxpy_job {
  int32_t ndim;
  int64_t shape[NXPY_MAX_DIMS];
  nxpy_side src;
  nxpy_side dst;
} nxpy_job;

/* The library's functions this module calls: NXPY_CALL(return type, name
 * without "nx_", parameters, arguments). Each gets a pointer of the
 * header's own type, resolved by nxpy_open, and a wrapper nxpy_<name>. */
#define NXPY_CALLS(X)                                                                              \
  X(uint32_t, abi_version, (void), ())                                                             \
  X(const char *, version, (void), ())                                                             \
  X(const char *, kernel_isa, (void), ())                                                          \
  X(const char *, status_message, (int32_t status), (status))                                      \
  X(int32_t, dtype_bits, (int32_t dt), (dt))                                                       \
  X(int32_t, dtype_kind, (int32_t dt), (dt))                                                       \
  X(const char *, dtype_name, (int32_t dt), (dt))                                                  \
  X(int32_t, dtype_bytes, (int32_t dt, int64_t n, int64_t *out), (dt, n, out))                     \
  X(int32_t, dtype_exact, (int32_t from, int32_t to), (from, to))                                  \
  X(int32_t, dtype_float_format, (int32_t dt, nx_float_format *out), (dt, out))                    \
  X(int32_t, dtype_min_value, (int32_t dt, void *elem), (dt, elem))                                \
  X(int32_t, dtype_max_value, (int32_t dt, void *elem), (dt, elem))                                \
  X(int32_t, load_f64, (int32_t dt, const void *elem, double *out), (dt, elem, out))               \
  X(int32_t, is_value_f64, (int32_t dt, double x), (dt, x))                                        \
  X(int64_t, format, (int32_t dt, const void *elem, char *buf, size_t cap), (dt, elem, buf, cap))  \
  X(int64_t, format_f64, (int32_t dt, double x, char *buf, size_t cap), (dt, x, buf, cap))         \
  X(int32_t, convert, (int32_t sdt, const void *src, int32_t ddt, void *dst, int64_t n),          \
    (sdt, src, ddt, dst, n))                                                                       \
  X(int32_t, convert_strided,                                                                      \
    (int32_t sdt, const void *src, int64_t soff, int64_t sstride, int32_t ddt, void *dst,          \
     int64_t doff, int64_t dstride, int64_t n),                                                    \
    (sdt, src, soff, sstride, ddt, dst, doff, dstride, n))

#define NXPY_POINTER(ret, name, params, args) static __typeof__(&nx_##name) p_##name;
NXPY_CALLS(NXPY_POINTER)

#define NXPY_WRAPPER(ret, name, params, args)                                                      \
  ret nxpy_##name params;                                                                          \
  ret nxpy_##name params { return p_##name args; }
NXPY_CALLS(NXPY_WRAPPER)

/* Opens the library at `path` and resolves every function above. Returns 0,
 * or -1 with a sentence in `err` (cap bytes, NUL-terminated). On failure the
 * module stays unusable: the Python side raises ImportError. */
int nxpy_open(const char *path, char *err, size_t cap);
int nxpy_open(const char *path, char *err, size_t cap) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    snprintf(err, cap, "cannot load %s: %s", path, dlerror());
    return -1;
  }
#define NXPY_RESOLVE(ret, name, params, args)                                                      \
  {                                                                                                \
    void *sym = dlsym(h, "nx_" #name);                                                             \
    if (sym == NULL) {                                                                             \
      snprintf(err, cap, "%s lacks nx_" #name, path);                                              \
      return -1;                                                                                   \
    }                                                                                              \
    memcpy(&p_##name, &sym, sizeof sym);                                                           \
  }
  NXPY_CALLS(NXPY_RESOLVE)
  if (p_abi_version() != NX_DTYPE_ABI_VERSION) {
    snprintf(err, cap, "%s implements ABI %u, this package needs %d", path,
             (unsigned)p_abi_version(), NX_DTYPE_ABI_VERSION);
    return -1;
  }
  return 0;
}

/* Writes the pp_value text of n elements of dt, element i at byte
 * i * stride of `src` (a 4-bit element in the low nibble of its byte), into
 * slots of NX_FORMAT_MAX bytes at `out`. Returns the longest text's length,
 * or the first negative status. */
int64_t nxpy_format_many(int32_t dt, const void *src, int64_t stride, int64_t n, char *out);
int64_t nxpy_format_many(int32_t dt, const void *src, int64_t stride, int64_t n, char *out) {
  int64_t longest = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = p_format(dt, (const unsigned char *)src + i * stride, out + i * NX_FORMAT_MAX,
                           NX_FORMAT_MAX);
    if (len < 0) return len;
    if (len > longest) longest = len;
  }
  return longest;
}

/* ---- One conversion of a job ------------------------------------------ */

/* A side in ml_dtypes' 4-bit layout goes through packed blocks of this many
 * elements on the stack: the library's kernels read and write packed
 * 4-bit data at full speed, strided nibbles element by element. */
enum { BLOCK = 4096 };

/* Converts n elements along the last axis, from position sp of the source
 * and dp of the destination (each in its side's units). */
static int32_t run_segment(const nxpy_job *j, int64_t sp, int64_t dp, int64_t n) {
  const nxpy_side *s = &j->src, *d = &j->dst;
  int64_t ss = s->strides[j->ndim - 1], ds = d->strides[j->ndim - 1];
  if (!s->nibbles && !d->nibbles)
    return p_convert_strided(s->dt, s->base, sp, ss, d->dt, d->base, dp, ds, n);
  unsigned char low[BLOCK], src4[BLOCK / 2], dst4[BLOCK / 2];
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t m = n - i < BLOCK ? n - i : BLOCK;
    const void *src = s->base;
    int64_t soff = sp + i * ss, sstride = ss;
    int32_t st;
    if (s->nibbles) {
      /* The low nibbles, as ml_dtypes reads them (it ignores the high
       * ones), packed by the library: uint8 -> uint4 keeps 0 .. 15. */
      const unsigned char *b = (const unsigned char *)s->base + soff;
      int64_t k = 0;
      if (ss == 1) {
        /* Eight bytes at a time: the common, contiguous case. */
        for (; k + 8 <= m; k += 8) {
          uint64_t w;
          memcpy(&w, b + k, 8);
          w &= UINT64_C(0x0F0F0F0F0F0F0F0F);
          memcpy(low + k, &w, 8);
        }
      }
      for (; k < m; k++) low[k] = b[k * ss] & 0x0F;
      if ((st = p_convert(NX_UINT8, low, NX_UINT4, src4, m)) != NX_OK) return st;
      src = src4;
      soff = 0;
      sstride = 1;
    }
    if (d->nibbles) {
      /* Packed into dst4, then each nibble's bits into a byte of its own
       * (uint4 -> uint8): the byte ml_dtypes writes, high nibble clear. */
      st = p_convert_strided(s->dt, src, soff, sstride, d->dt, dst4, 0, 1, m);
      if (st == NX_OK) st = p_convert_strided(NX_UINT4, dst4, 0, 1, NX_UINT8, d->base, dp + i * ds, ds, m);
    } else {
      st = p_convert_strided(s->dt, src, soff, sstride, d->dt, d->base, dp + i * ds, ds, m);
    }
    if (st != NX_OK) return st;
  }
  return NX_OK;
}

/* Converts the elements of flat (C-order) indices [f0, f1). */
static int32_t run_range(const nxpy_job *j, int64_t f0, int64_t f1) {
  int32_t nd = j->ndim;
  int64_t len = j->shape[nd - 1];
  int64_t idx[NXPY_MAX_DIMS];
  int64_t row = f0 / len, col = f0 % len;
  for (int32_t k = nd - 2; k >= 0; k--) {
    idx[k] = row % j->shape[k];
    row /= j->shape[k];
  }
  while (f0 < f1) {
    int64_t m = len - col < f1 - f0 ? len - col : f1 - f0;
    int64_t sp = j->src.offset + col * j->src.strides[nd - 1];
    int64_t dp = j->dst.offset + col * j->dst.strides[nd - 1];
    for (int32_t k = 0; k < nd - 1; k++) {
      sp += idx[k] * j->src.strides[k];
      dp += idx[k] * j->dst.strides[k];
    }
    int32_t st = run_segment(j, sp, dp, m);
    if (st != NX_OK) return st;
    f0 += m;
    col = 0;
    for (int32_t k = nd - 2; k >= 0 && ++idx[k] == j->shape[k]; k--) idx[k] = 0;
  }
  return NX_OK;
}

/* ---- The pool ----------------------------------------------------------
 * Workers started on first need and kept, so that a call pays a wake-up,
 * not a thread creation. One batch runs at a time; a call that finds the
 * pool busy (another Python thread's conversion) runs on its own thread,
 * which gives the same bytes. */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t pool_busy = PTHREAD_MUTEX_INITIALIZER;
static int pool_workers;
static int pool_atfork;

static struct {
  const nxpy_job *job;
  uint64_t generation;
  int64_t total, piece, pieces, next, finished;
  int joined, wanted;
  int32_t status;
} batch;

/* Takes pieces of the current batch until none is left. Called with pool_mu
 * held; returns with it held. */
static void take_pieces(void) {
  while (batch.next < batch.pieces) {
    int64_t k = batch.next++;
    const nxpy_job *job = batch.job;
    int64_t f0 = k * batch.piece;
    int64_t f1 = f0 + batch.piece < batch.total ? f0 + batch.piece : batch.total;
    int skip = batch.status != NX_OK;
    pthread_mutex_unlock(&pool_mu);
    int32_t st = skip ? NX_OK : run_range(job, f0, f1);
    pthread_mutex_lock(&pool_mu);
    if (st != NX_OK && batch.status == NX_OK) batch.status = st;
    if (++batch.finished == batch.pieces) pthread_cond_signal(&pool_done);
  }
}

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&pool_mu);
  uint64_t seen = batch.generation;
  for (;;) {
    while (batch.generation == seen) pthread_cond_wait(&pool_wake, &pool_mu);
    seen = batch.generation;
    if (batch.joined < batch.wanted) {
      batch.joined++;
      take_pieces();
    }
  }
  return NULL;
}

/* fork: the child has none of the workers; hold the locks across the fork
 * so that it inherits them in a known state. */
static void before_fork(void) {
  pthread_mutex_lock(&pool_busy);
  pthread_mutex_lock(&pool_mu);
}
static void after_fork_parent(void) {
  pthread_mutex_unlock(&pool_mu);
  pthread_mutex_unlock(&pool_busy);
}
static void after_fork_child(void) {
  pool_workers = 0;
  pthread_cond_init(&pool_wake, NULL);
  pthread_cond_init(&pool_done, NULL);
  pthread_mutex_unlock(&pool_mu);
  pthread_mutex_unlock(&pool_busy);
}

/* Starts workers until there are `want`, or as many as the system gives. */
static void start_workers(int want) {
  if (!pool_atfork) {
    pool_atfork = pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
  }
  while (pool_workers < want) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) break;
    pthread_detach(t);
    pool_workers++;
  }
}

/* Pieces: at least this many elements, and a multiple of 64, so that
 * every piece starts on a byte of any packed side (8 bits a byte, 1 or 4
 * bits an element) and two threads never write one byte. */
enum { MIN_PIECE = 16384, ALIGN = 64 };

/* Runs `job` on `threads` threads (the caller's among them). Returns NX_OK
 * or the first failing status of a library call. */
int32_t nxpy_run(const nxpy_job *job, int32_t threads);
int32_t nxpy_run(const nxpy_job *job, int32_t threads) {
  int64_t total = 1;
  for (int32_t k = 0; k < job->ndim; k++) total *= job->shape[k];
  if (total == 0) return NX_OK;
  if (threads > NXPY_MAX_THREADS) threads = NXPY_MAX_THREADS;
  /* Four pieces a thread, so that a thread the scheduler delays holds up
   * a quarter of its share, not all of it. */
  int64_t piece = (total + 4 * (int64_t)threads - 1) / (4 * (int64_t)threads);
  if (piece < MIN_PIECE) piece = MIN_PIECE;
  piece = (piece + ALIGN - 1) / ALIGN * ALIGN;
  int64_t pieces = (total + piece - 1) / piece;
  if (threads <= 1 || pieces <= 1 || pthread_mutex_trylock(&pool_busy) != 0)
    return run_range(job, 0, total);
  pthread_mutex_lock(&pool_mu);
  start_workers(threads - 1);
  batch.job = job;
  batch.total = total;
  batch.piece = piece;
  batch.pieces = pieces;
  batch.next = batch.finished = 0;
  batch.joined = 0;
  batch.wanted = threads - 1;
  batch.status = NX_OK;
  batch.generation++;
  pthread_cond_broadcast(&pool_wake);
  take_pieces();
  while (batch.finished < batch.pieces) pthread_cond_wait(&pool_done, &pool_mu);
  int32_t st = batch.status;
  batch.job = NULL;
  pthread_mutex_unlock(&pool_mu);
  pthread_mutex_unlock(&pool_busy);
  return st;
}

/* nxpy_run for two contiguous 1-D arrays of n elements: the common call,
 * without building a job in Python. A dtype code with NXPY_NIBBLES added
 * names that side in ml_dtypes' 4-bit layout. */
#define NXPY_NIBBLES 0x100
int32_t nxpy_run_flat(int32_t src_dt, const void *src, int32_t dst_dt, void *dst, int64_t n, int32_t threads);
int32_t nxpy_run_flat(int32_t src_dt, const void *src, int32_t dst_dt, void *dst, int64_t n, int32_t threads) {
  nxpy_job job;
  job.ndim = 1;
  job.shape[0] = n;
  job.src.dt = src_dt & ~NXPY_NIBBLES;
  job.src.nibbles = (src_dt & NXPY_NIBBLES) != 0;
  job.src.base = (void *)(uintptr_t)src;
  job.src.offset = 0;
  job.src.strides[0] = 1;
  job.dst.dt = dst_dt & ~NXPY_NIBBLES;
  job.dst.nibbles = (dst_dt & NXPY_NIBBLES) != 0;
  job.dst.base = dst;
  job.dst.offset = 0;
  job.dst.strides[0] = 1;
  return nxpy_run(&job, threads);
}

/* A caller's floating-point environment, from C: with every exception
 * trapping (feenableexcept) and flush-to-zero, denormals-are-zero and round
 * toward zero set, conversions and stores give the same bytes as in the
 * default environment, nothing traps (a trap would end this program with
 * SIGFPE), and the raised-exception flags the caller had are still what it
 * had afterwards. x86-64 with glibc; elsewhere it checks nothing but says so. */
#define _GNU_SOURCE
#include "check.h"
#include "nx_dtype.h"

#include <fenv.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GLIBC__)
#include <xmmintrin.h>

enum { N = 64 };

/* Sources that raise every exception a conversion can: NaNs (quiet and
 * signalling), infinities, values that round, overflow and underflow in the
 * narrow formats, float32 subnormals. */
static void fill(double *x, float *f) {
  static const uint64_t special[] = {
      0x7FF8000000000000u, 0x7FF0000000000001u, 0xFFF4000000000000u, 0x7FF0000000000000u,
      0xFFF0000000000000u, 0x0000000000000001u, 0x3FB999999999999Au, 0x47EFFFFFFFFFFFFFu,
      0x40F0000000000001u, 0xC0E0000000000001u, 0x3810000000000001u, 0x8000000000000000u,
  };
  for (int i = 0; i < N; i++) {
    uint64_t b = i < 12 ? special[i] : 0x3FF0000000000000u + (uint64_t)i * 0x0000123456789ABCu;
    memcpy(&x[i], &b, 8);
    uint32_t w = (uint32_t)(b >> 32) | (i & 1); /* float32 from the top half, odd low bit */
    if (i == 20) w = 0x00000003u;               /* a float32 subnormal */
    memcpy(&f[i], &w, 4);
  }
}

typedef struct {
  unsigned char conv[8][N * 8];
  unsigned char store[7][N][8];
} Out;

static const int32_t DSTS[8] = {NX_FLOAT32, NX_FLOAT16, NX_BFLOAT16, NX_FLOAT8_E4M3FN,
                                NX_FLOAT4_E2M1FN, NX_INT16, NX_UINT8, NX_BOOL};

/* Everything the test compares, into `o` (memset first: every byte known). */
static void run(const double *x, const float *f, Out *o) {
  memset(o, 0, sizeof *o);
  for (int k = 0; k < 8; k++) {
    int32_t d = DSTS[k];
    int32_t st = d == NX_FLOAT32 ? nx_convert(NX_FLOAT64, x, d, o->conv[k], N)
                                 : nx_convert(NX_FLOAT32, f, d, o->conv[k], N);
    CHECK(st == NX_OK);
  }
  for (int32_t d = 0; d < 7; d++) {
    for (int i = 0; i < N; i++) CHECK(nx_store_f64(d, x[i], o->store[d][i]) == NX_OK);
  }
}

static Out want, got;

int main(void) {
  static double x[N];
  static float f[N];
  fill(x, f);
  run(x, f, &want);

  feclearexcept(FE_ALL_EXCEPT);
  unsigned int csr = _mm_getcsr();
  /* FTZ, DAZ, round toward zero, and the inexact flag as if the caller had
   * raised it before (set in MXCSR alone: a pending x87 flag would trap at
   * the next x87 instruction once unmasked). */
  _mm_setcsr(csr | 0x8040u | 0x6000u | 0x20u);
  feenableexcept(FE_ALL_EXCEPT);
  unsigned int before = _mm_getcsr();
  run(x, f, &got);
  unsigned int after = _mm_getcsr();
  fedisableexcept(FE_ALL_EXCEPT);
  _mm_setcsr(csr);

  CHECK(after == before);
  CHECK(memcmp(&want, &got, sizeof want) == 0);
  return check_report("test_fenv");
}

#else
int main(void) {
  printf("test_fenv: x86-64 glibc only; nothing checked here\n");
  return check_report("test_fenv");
}
#endif

/* A caller's floating-point environment, from C: conversions and stores give
 * the same bytes as in the default environment, and every call leaves the
 * environment exactly as the caller set it, raised-exception flags included
 * (checked after each call, not only at the end).
 *
 * x86-64 with glibc: every exception trapping (feenableexcept; a trap would
 * end this program with SIGFPE), flush-to-zero, denormals-are-zero, round
 * toward zero, and the inexact flag raised; MXCSR must come back.
 *
 * aarch64: FPCR's rounding mode (fesetround, all four), FZ (bit 24), FZ16
 * (bit 19), DN (default NaN, bit 25), AHP (alternative half precision, bit
 * 26) and FEAT_AFP's FIZ, AH and NEP (bits 0-2, where the CPU has them) in
 * several combinations, with no flag and with every cumulative flag raised
 * in FPSR; FPCR and FPSR must come back. Exception traps are not enabled:
 * most aarch64 cores, and qemu, do not implement them.
 *
 * The conversions are those the SIMD kernels of both architectures run
 * (float32 with float16 and bfloat16, the float8 and float4 formats, float64
 * narrowed, int8 and uint8), over NaNs with payloads, infinities,
 * subnormals and values that round.
 *
 * Elsewhere it checks nothing but says so. */
#define _GNU_SOURCE
#include "check.h"
#include "nx_dtype.h"

#include <fenv.h>
#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) && defined(__GLIBC__)) || defined(__aarch64__)

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

enum { N = 64 };

/* The environment a call must leave as it found it. */
static uint64_t env_read(void) {
#if defined(__x86_64__)
  return _mm_getcsr();
#else
  uint64_t fpcr, fpsr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  __asm__ __volatile__("mrs %0, fpsr" : "=r"(fpsr));
  return fpcr << 32 | (fpsr & 0xFFFFFFFFu);
#endif
}

/* Sources that raise every exception a conversion can: NaNs (quiet and
 * signalling, with payloads), infinities, values that round, overflow and
 * underflow in the narrow formats, subnormals. `h` holds float16 and
 * bfloat16 codes, `b` bytes (float8, float4 pairs, int8, uint8). */
static void fill(double *x, float *f, uint16_t *h, uint8_t *b) {
  static const uint64_t special[] = {
      0x7FF8000000000000u, 0x7FF0000000000001u, 0xFFF4000000000000u, 0x7FF0000000000000u,
      0xFFF0000000000000u, 0x0000000000000001u, 0x3FB999999999999Au, 0x47EFFFFFFFFFFFFFu,
      0x40F0000000000001u, 0xC0E0000000000001u, 0x3810000000000001u, 0x8000000000000000u,
  };
  static const uint16_t special16[] = {0x7C01, 0xFE01, 0x7C00, 0x0001, 0x83FF, 0x7F81,
                                       0xFFC1, 0x7F80, 0x0081, 0x3C01, 0x7BFF, 0x8000};
  static const uint8_t special8[] = {0x7F, 0xFF, 0x7D, 0xFE, 0x7C, 0xFC,
                                     0x01, 0x81, 0x80, 0x07, 0x78, 0x7B};
  for (int i = 0; i < N; i++) {
    uint64_t v = i < 12 ? special[i] : 0x3FF0000000000000u + (uint64_t)i * 0x0000123456789ABCu;
    memcpy(&x[i], &v, 8);
    uint32_t w = (uint32_t)(v >> 32) | (i & 1); /* float32 from the top half, odd low bit */
    if (i == 20) w = 0x00000003u;               /* a float32 subnormal */
    memcpy(&f[i], &w, 4);
    h[i] = i < 12 ? special16[i] : (uint16_t)(0x3555u + (unsigned)i * 0x0A37u);
    b[i] = i < 12 ? special8[i] : (uint8_t)(11u + (unsigned)i * 37u);
  }
}

/* The conversions compared: those of the SIMD kernels, and a few the
 * kernels do not have (int16, bool). */
static const int32_t PAIRS[][2] = {
    {NX_FLOAT64, NX_FLOAT32},       {NX_FLOAT64, NX_FLOAT16},
    {NX_FLOAT64, NX_BFLOAT16},      {NX_FLOAT64, NX_FLOAT8_E4M3FN},
    {NX_FLOAT32, NX_FLOAT16},       {NX_FLOAT32, NX_BFLOAT16},
    {NX_FLOAT32, NX_FLOAT8_E4M3FN}, {NX_FLOAT32, NX_FLOAT8_E5M2},
    {NX_FLOAT32, NX_FLOAT4_E2M1FN}, {NX_FLOAT32, NX_FLOAT64},
    {NX_FLOAT32, NX_INT16},         {NX_FLOAT32, NX_UINT8},
    {NX_FLOAT32, NX_INT8},          {NX_FLOAT32, NX_BOOL},
    {NX_FLOAT16, NX_FLOAT32},       {NX_FLOAT16, NX_FLOAT8_E5M2},
    {NX_FLOAT16, NX_BFLOAT16},      {NX_BFLOAT16, NX_FLOAT32},
    {NX_BFLOAT16, NX_FLOAT8_E4M3FN}, {NX_FLOAT8_E4M3FN, NX_FLOAT32},
    {NX_FLOAT8_E5M2, NX_FLOAT16},   {NX_FLOAT8_E5M2, NX_FLOAT64},
    {NX_FLOAT4_E2M1FN, NX_BFLOAT16}, {NX_INT8, NX_FLOAT32},
    {NX_UINT8, NX_FLOAT16},
};
enum { NPAIRS = sizeof PAIRS / sizeof PAIRS[0] };

typedef struct {
  unsigned char conv[NPAIRS][N * 8];
  unsigned char store[7][N][8];
} Out;

typedef struct {
  double x[N];
  float f[N];
  uint16_t h[N];
  uint8_t b[N];
} In;

/* The source array of a dtype of `bits`. */
static const void *source(const In *in, int bits) {
  switch (bits) {
  case 64: return in->x;
  case 32: return in->f;
  case 16: return in->h;
  default: return in->b;
  }
}

/* Calls that left the environment changed, counted rather than CHECKed
 * one by one (a broken kernel would report hundreds of lines). */
static long env_changed;

/* Everything the test compares, into `o` (memset first: every byte known);
 * after each call the environment must still be `env`. */
static void run(const In *in, Out *o, uint64_t env) {
  memset(o, 0, sizeof *o);
  for (int k = 0; k < NPAIRS; k++) {
    int32_t s = PAIRS[k][0], d = PAIRS[k][1];
    CHECK(nx_convert(s, source(in, nx_dtype_bits(s)), d, o->conv[k], N) == NX_OK);
    if (env_read() != env) env_changed++;
  }
  for (int32_t d = 0; d < 7; d++) {
    for (int i = 0; i < N; i++) {
      CHECK(nx_store_f64(d, in->x[i], o->store[d][i]) == NX_OK);
      if (env_read() != env) env_changed++;
    }
  }
}

static Out want, got;

#if defined(__x86_64__)
int main(void) {
  static In in;
  fill(in.x, in.f, in.h, in.b);
  run(&in, &want, env_read());
  CHECKF(env_changed == 0, "default environment: %ld calls changed MXCSR", env_changed);

  feclearexcept(FE_ALL_EXCEPT);
  unsigned int csr = _mm_getcsr();
  /* FTZ, DAZ, round toward zero, and the inexact flag as if the caller had
   * raised it before (set in MXCSR alone: a pending x87 flag would trap at
   * the next x87 instruction once unmasked). */
  _mm_setcsr(csr | 0x8040u | 0x6000u | 0x20u);
  feenableexcept(FE_ALL_EXCEPT);
  uint64_t before = env_read();
  run(&in, &got, before);
  uint64_t after = env_read();
  fedisableexcept(FE_ALL_EXCEPT);
  _mm_setcsr(csr);

  CHECK(after == before);
  CHECKF(env_changed == 0, "%ld calls changed MXCSR", env_changed);
  CHECK(memcmp(&want, &got, sizeof want) == 0);
  return check_report("test_fenv");
}

#else /* aarch64 */
static void fpcr_write(uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
static void fpsr_write(uint64_t v) { __asm__ __volatile__("msr fpsr, %0" : : "r"(v)); }

enum {
  FZ = 1u << 24,    /* flush single and double subnormals to zero */
  FZ16 = 1u << 19,  /* the same for half precision (FEAT_FP16; RES0 without it) */
  DN = 1u << 25,    /* default NaN: a NaN result loses its payload */
  AHP = 1u << 26,   /* alternative half precision: no infinities or NaNs */
  AFP = 7u,         /* FEAT_AFP's FIZ, AH, NEP (RES0 without it) */
  RMODE = 3u << 22, /* the rounding mode */
  FLAGS = 0x9F      /* FPSR's cumulative flags: IDC, IXC, UFC, OFC, DZC, IOC */
};

int main(void) {
  static In in;
  fill(in.x, in.f, in.h, in.b);
  const uint64_t fpcr0 = env_read() >> 32;
  fpsr_write(0);
  run(&in, &want, env_read());
  CHECKF(env_changed == 0, "default environment: %ld calls changed FPCR or FPSR", env_changed);

  static const struct {
    int round;
    uint32_t bits, flags;
  } envs[] = {
      {FE_TOWARDZERO, FZ | FZ16, 0},    {FE_TOWARDZERO, FZ | FZ16 | DN | AHP, FLAGS},
      {FE_UPWARD, FZ, 0},               {FE_DOWNWARD, FZ16 | DN, FLAGS},
      {FE_TONEAREST, FZ | FZ16, FLAGS}, {FE_UPWARD, AHP, FLAGS},
      {FE_TONEAREST, AFP | FZ, 0},      {FE_DOWNWARD, AFP | DN | AHP, FLAGS},
  };
  for (size_t e = 0; e < sizeof envs / sizeof envs[0]; e++) {
    CHECK(fesetround(envs[e].round) == 0);
    fpcr_write((env_read() >> 32) | envs[e].bits);
    fpsr_write(envs[e].flags);
    /* What stuck (FZ16 and FEAT_AFP's bits read as 0 on a core without
     * them): glibc's FE_* rounding values are FPCR's RMode field itself. */
    uint64_t before = env_read();
    CHECK((before >> 32 & RMODE) == (uint64_t)envs[e].round);
    CHECK((before >> 32 & (FZ | DN | AHP)) == (envs[e].bits & (FZ | DN | AHP)));
    long changed = env_changed;
    run(&in, &got, before);
    uint64_t after = env_read();
    fpcr_write(fpcr0);
    fpsr_write(0);
    CHECKF(after == before, "environment %zu: FPCR:FPSR %#llx before, %#llx after", e,
           (unsigned long long)before, (unsigned long long)after);
    CHECKF(env_changed == changed, "environment %zu: %ld calls changed FPCR or FPSR", e,
           env_changed - changed);
    for (int k = 0; k < NPAIRS; k++)
      CHECKF(memcmp(want.conv[k], got.conv[k], sizeof want.conv[k]) == 0,
             "environment %zu: dtype %d -> %d differs", e, (int)PAIRS[k][0], (int)PAIRS[k][1]);
    CHECKF(memcmp(want.store, got.store, sizeof want.store) == 0, "environment %zu: stores differ",
           e);
  }
  fpcr_write(fpcr0 | FZ16 | AFP);
  uint64_t held = env_read() >> 32;
  printf("test_fenv: FPCR.FZ16 %s, FEAT_AFP's bits %s on this CPU\n",
         held & FZ16 ? "holds" : "reads as 0", held & AFP ? "hold" : "read as 0");
  fpcr_write(fpcr0);
  return check_report("test_fenv");
}
#endif

#else
int main(void) {
  printf("test_fenv: x86-64 glibc and aarch64 only; nothing checked here\n");
  return check_report("test_fenv");
}
#endif

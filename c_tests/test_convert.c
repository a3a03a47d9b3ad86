/* Bulk conversion from C: nx_convert, nx_convert_strided, nx_kernel_isa.
 * Results are checked against the scalar stores (nx_store_f64/nx_load_f64),
 * sub-byte neighbours and every status. */
#include "check.h"
#include "nx_dtype.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

static float f32_of(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* Every float32 -> float16 of a sweep of bit patterns matches the scalar
 * store of the same (exact) double. */
static void sweep_float32_to(int32_t dt) {
  enum { N = 4099 };
  static float src[N];
  static uint8_t dst[N * 2 + 1];
  uint32_t u = 0x12345u;
  int i;
  for (i = 0; i < N; i++) {
    u = u * 1664525u + 1013904223u;
    src[i] = f32_of(u);
  }
  src[0] = 65520.0f;
  src[1] = -448.0f * 1.04f;
  src[2] = f32_of(0x00000001u);
  CHECK(nx_convert(NX_FLOAT32, src, dt, dst, N) == NX_OK);
  int bits = nx_dtype_bits(dt);
  long bad = 0;
  for (i = 0; i < N; i++) {
    uint8_t one[2] = {0, 0};
    CHECK(nx_store_f64(dt, (double)src[i], one) == NX_OK);
    uint32_t want = one[0] | (uint32_t)one[1] << 8, got;
    if (bits == 16)
      got = dst[2 * i] | (uint32_t)dst[2 * i + 1] << 8;
    else if (bits == 8)
      got = dst[i];
    else
      got = (dst[i / 2] >> (4 * (i % 2))) & 15;
    if (got != want && bad++ < 5)
      fprintf(stderr, "float32 %08x -> %s: got %x want %x\n", (unsigned)f32_bits(src[i]), nx_dtype_name(dt),
              (unsigned)got, (unsigned)want);
  }
  CHECKF(bad == 0, "%ld mismatches into %s", bad, nx_dtype_name(dt));
}

/* Strided, offset int4 destination: neighbours untouched. */
static void strided_nibbles(void) {
  float src[10];
  uint8_t dst[16];
  int i;
  for (i = 0; i < 10; i++) src[i] = (float)i - 4.6f; /* -4.6 .. 4.4 */
  memset(dst, 0xAB, sizeof dst);
  /* source backwards (offset 9, stride -1), destination elements 3, 6, ... */
  CHECK(nx_convert_strided(NX_FLOAT32, src, 9, -1, NX_INT4, dst, 3, 3, 10) == NX_OK);
  for (i = 0; i < 32; i++) {
    int v = (dst[i / 2] >> (4 * (i % 2))) & 15;
    if (i >= 3 && (i - 3) % 3 == 0 && (i - 3) / 3 < 10) {
      int k = (i - 3) / 3;
      int want = (int)truncf(src[9 - k]); /* truncate toward zero */
      CHECKF(v == (want & 15), "element %d: %d want %d", k, v, want);
    } else {
      CHECKF(v == ((i % 2) ? 0xA : 0xB), "neighbour nibble %d changed", i);
    }
  }
}

static void statuses(void) {
  float src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint16_t dst[8];
  memset(dst, 0x5A, sizeof dst);
  CHECK(nx_convert(-1, src, NX_FLOAT16, dst, 8) == NX_ERR_DTYPE);
  CHECK(nx_convert(NX_FLOAT32, src, 21, dst, 8) == NX_ERR_DTYPE);
  CHECK(nx_convert(INT32_MIN, src, NX_FLOAT16, dst, 8) == NX_ERR_DTYPE);
  CHECK(nx_convert(NX_FLOAT32, src, NX_FLOAT16, dst, -1) == NX_ERR_RANGE);
  CHECK(nx_convert(NX_FLOAT32, NULL, NX_FLOAT16, dst, 8) == NX_ERR_NULL);
  CHECK(nx_convert(NX_FLOAT32, src, NX_FLOAT16, NULL, 8) == NX_ERR_NULL);
  CHECK(nx_convert(NX_FLOAT32, NULL, NX_FLOAT16, NULL, 0) == NX_OK);
  CHECK(nx_convert_strided(NX_FLOAT32, src, -1, 1, NX_FLOAT16, dst, 0, 1, 1) == NX_ERR_RANGE);
  CHECK(nx_convert_strided(NX_FLOAT32, src, 0, 1, NX_FLOAT16, dst, 0, 0, 1) == NX_ERR_RANGE);
  CHECK(nx_convert_strided(NX_FLOAT32, src, 2, -1, NX_FLOAT16, dst, 0, 1, 4) == NX_ERR_RANGE);
  CHECK(nx_convert_strided(NX_FLOAT32, src, 0, INT64_MAX, NX_FLOAT16, dst, 0, 1, 2) == NX_ERR_RANGE);
  CHECK(nx_convert_strided(NX_FLOAT32, NULL, -1, 1, NX_FLOAT16, NULL, 0, 1, 1) == NX_ERR_RANGE);
  CHECK(nx_convert(NX_FLOAT32, src, NX_FLOAT16, (char *)src + 30, 8) == NX_ERR_OVERLAP);
  CHECK(nx_convert(NX_FLOAT32, src, NX_FLOAT32, src, 8) == NX_ERR_OVERLAP);
  for (int i = 0; i < 8; i++) CHECK(dst[i] == 0x5A5A);
  CHECK(nx_convert(NX_FLOAT32, src, NX_FLOAT16, dst, 8) == NX_OK);
  CHECK(dst[0] == 0x3C00 && dst[7] == 0x4800);
}

static void isa_name(void) {
  const char *isa = nx_kernel_isa();
  const char *cap = getenv("NX_DTYPE_ISA");
  CHECK(isa != NULL);
  CHECK(strcmp(isa, "scalar") == 0 || strcmp(isa, "portable") == 0 || strcmp(isa, "avx2") == 0 ||
        strcmp(isa, "avx512") == 0 || strcmp(isa, "neon") == 0);
  /* The two levels every architecture has are always granted. */
  if (cap && strcmp(cap, "scalar") == 0) CHECK(strcmp(isa, "scalar") == 0);
  if (cap && strcmp(cap, "portable") == 0) CHECK(strcmp(isa, "portable") == 0);
  if (cap && strcmp(cap, "avx2") == 0) CHECK(strcmp(isa, "avx512") != 0);
  printf("nx_kernel_isa: %s\n", isa);
}

int main(void) {
  sweep_float32_to(NX_FLOAT16);
  sweep_float32_to(NX_BFLOAT16);
  sweep_float32_to(NX_FLOAT8_E4M3FN);
  sweep_float32_to(NX_FLOAT8_E5M2);
  sweep_float32_to(NX_FLOAT4_E2M1FN);
  strided_nibbles();
  statuses();
  isa_name();
  return check_report("test_convert");
}

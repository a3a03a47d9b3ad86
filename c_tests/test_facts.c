/* Facts, scalar stores and every status of the facts/scalar functions,
 * through the C ABI exactly as a C caller sees it. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "nx_dtype.h"

struct expect {
  int32_t code;
  const char *name;
  int32_t bits, kind;
  int32_t exp_bits, frac_bits; /* floats only */
  int bias, inf, nan;
  double max_finite;
};

/* The dtype table (docs/ABI.md's codes, the formats of ocaml/nx_array.mli). */
static const struct expect EXPECT[NX_DTYPE_COUNT] = {
    {NX_FLOAT64, "float64", 64, NX_KIND_FLOAT, 11, 52, 1023, 1, 1, DBL_MAX},
    {NX_FLOAT32, "float32", 32, NX_KIND_FLOAT, 8, 23, 127, 1, 1, FLT_MAX},
    {NX_FLOAT16, "float16", 16, NX_KIND_FLOAT, 5, 10, 15, 1, 1, 65504.0},
    {NX_BFLOAT16, "bfloat16", 16, NX_KIND_FLOAT, 8, 7, 127, 1, 1, 0x1.fep127},
    {NX_FLOAT8_E4M3FN, "float8_e4m3fn", 8, NX_KIND_FLOAT, 4, 3, 7, 0, 1, 448.0},
    {NX_FLOAT8_E5M2, "float8_e5m2", 8, NX_KIND_FLOAT, 5, 2, 15, 1, 1, 57344.0},
    {NX_FLOAT4_E2M1FN, "float4_e2m1fn", 4, NX_KIND_FLOAT, 2, 1, 1, 0, 0, 6.0},
    {NX_INT64, "int64", 64, NX_KIND_SIGNED, 0, 0, 0, 0, 0, 0},
    {NX_UINT64, "uint64", 64, NX_KIND_UNSIGNED, 0, 0, 0, 0, 0, 0},
    {NX_INT32, "int32", 32, NX_KIND_SIGNED, 0, 0, 0, 0, 0, 0},
    {NX_UINT32, "uint32", 32, NX_KIND_UNSIGNED, 0, 0, 0, 0, 0, 0},
    {NX_INT16, "int16", 16, NX_KIND_SIGNED, 0, 0, 0, 0, 0, 0},
    {NX_UINT16, "uint16", 16, NX_KIND_UNSIGNED, 0, 0, 0, 0, 0, 0},
    {NX_INT8, "int8", 8, NX_KIND_SIGNED, 0, 0, 0, 0, 0, 0},
    {NX_UINT8, "uint8", 8, NX_KIND_UNSIGNED, 0, 0, 0, 0, 0, 0},
    {NX_INT4, "int4", 4, NX_KIND_SIGNED, 0, 0, 0, 0, 0, 0},
    {NX_UINT4, "uint4", 4, NX_KIND_UNSIGNED, 0, 0, 0, 0, 0, 0},
    {NX_COMPLEX128, "complex128", 128, NX_KIND_COMPLEX, 0, 0, 0, 0, 0, 0},
    {NX_COMPLEX64, "complex64", 64, NX_KIND_COMPLEX, 0, 0, 0, 0, 0, 0},
    {NX_BOOL, "bool", 8, NX_KIND_BOOLEAN, 0, 0, 0, 0, 0, 0},
    {NX_BIT, "bit", 1, NX_KIND_BOOLEAN, 0, 0, 0, 0, 0, 0},
};

static const int32_t BAD_CODES[] = {-1, NX_DTYPE_COUNT, INT32_MIN, INT32_MAX};
#define NBAD (sizeof BAD_CODES / sizeof BAD_CODES[0])

static uint64_t bits_of(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* Store x into dt and return the element's bits (low bytes first). */
static uint64_t store(int32_t dt, double x) {
  unsigned char e[16];
  uint64_t b = 0;
  memset(e, 0xAA, sizeof e);
  CHECK(nx_store_f64(dt, x, e) == NX_OK);
  memcpy(&b, e, 8);
  if (nx_dtype_bits(dt) < 64) b &= (UINT64_C(1) << nx_dtype_bits(dt)) - 1;
  return b;
}

static double load(int32_t dt, uint64_t bits) {
  unsigned char e[16] = {0};
  double x = -12345.0;
  memcpy(e, &bits, 8);
  CHECK(nx_load_f64(dt, e, &x) == NX_OK);
  return x;
}

static void test_facts(void) {
  CHECK(nx_abi_version() == NX_DTYPE_ABI_VERSION && NX_DTYPE_ABI_VERSION == 1);
  {
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", NX_DTYPE_VERSION_MAJOR, NX_DTYPE_VERSION_MINOR,
             NX_DTYPE_VERSION_PATCH);
    CHECK(strcmp(nx_version(), v) == 0);
  }
  for (int i = 0; i < NX_DTYPE_COUNT; i++) {
    const struct expect *x = &EXPECT[i];
    const nx_dtype_row *row = &nx_dtype_table[x->code];
    nx_float_format ff;
    int64_t nb;
    CHECK(x->code == i);
    CHECKF(strcmp(nx_dtype_name(i), x->name) == 0, "%s", x->name);
    CHECK(nx_dtype_name(i) == row->name);
    CHECK(nx_dtype_bits(i) == x->bits && row->bits == x->bits);
    CHECK(nx_dtype_kind(i) == x->kind && row->kind == x->kind);
    CHECK(nx_dtype_of_name(x->name, strlen(x->name)) == i);
    CHECK(nx_dtype_bytes(i, 1, &nb) == NX_OK && nb == (x->bits + 7) / 8);
    CHECK(nx_dtype_bytes(i, 3, &nb) == NX_OK && nb == (3 * x->bits + 7) / 8);
    CHECK(nx_dtype_exact(i, i) == 1);
    CHECK(nx_dtype_exact(NX_BOOL, i) == 1 && nx_dtype_exact(NX_BIT, i) == 1);
    if (x->kind == NX_KIND_FLOAT) {
      memset(&ff, 0, sizeof ff);
      CHECK(nx_dtype_float_format(i, &ff) == NX_OK);
      CHECK(row->is_float);
      CHECK(memcmp(&ff, &row->float_format, sizeof ff) == 0);
      CHECKF(ff.exponent_bits == x->exp_bits && ff.fraction_bits == x->frac_bits, "%s", x->name);
      CHECK(ff.infinities == (x->inf != 0) && ff.nans == (x->nan != 0));
      CHECK(ff.epsilon == ldexp(1.0, -x->frac_bits));
      CHECKF(ff.min_normal == ldexp(1.0, 1 - x->bias), "%s", x->name);
      CHECKF(ff.max_finite == x->max_finite, "%s %g", x->name, ff.max_finite);
    } else {
      nx_float_format zero;
      memset(&zero, 0, sizeof zero);
      CHECK(!row->is_float);
      CHECK(row->float_format.exponent_bits == 0 && row->float_format.max_finite == 0.0);
      memset(&ff, 0x5A, sizeof ff);
      CHECK(nx_dtype_float_format(i, &ff) == NX_ERR_KIND);
      CHECK(((unsigned char *)&ff)[0] == 0x5A); /* untouched */
      (void)zero;
    }
  }
  /* Names need no NUL and are exact. */
  CHECK(nx_dtype_of_name("float16xyz", 7) == NX_FLOAT16);
  CHECK(nx_dtype_of_name("float1", 6) == NX_ERR_DTYPE);
  CHECK(nx_dtype_of_name("Float16", 7) == NX_ERR_DTYPE);
  CHECK(nx_dtype_of_name("bit", 0) == NX_ERR_DTYPE);
  CHECK(nx_dtype_of_name("a_name_far_longer_than_any", 26) == NX_ERR_DTYPE);
  CHECK(nx_dtype_of_name(NULL, 3) == NX_ERR_NULL);
  /* bytes: sub-byte packing, and overflow. */
  {
    int64_t nb = 77;
    CHECK(nx_dtype_bytes(NX_BIT, 9, &nb) == NX_OK && nb == 2);
    CHECK(nx_dtype_bytes(NX_INT4, 3, &nb) == NX_OK && nb == 2);
    CHECK(nx_dtype_bytes(NX_BIT, INT64_MAX, &nb) == NX_OK && nb == INT64_MAX / 8 + 1);
    CHECK(nx_dtype_bytes(NX_UINT8, INT64_MAX, &nb) == NX_OK && nb == INT64_MAX);
    nb = 77;
    CHECK(nx_dtype_bytes(NX_COMPLEX128, INT64_MAX, &nb) == NX_ERR_RANGE && nb == 77);
    CHECK(nx_dtype_bytes(NX_INT16, INT64_MAX / 2 + 1, &nb) == NX_ERR_RANGE && nb == 77);
    CHECK(nx_dtype_bytes(NX_INT16, INT64_MAX / 2, &nb) == NX_OK && nb == INT64_MAX - 1);
    nb = 77;
    CHECK(nx_dtype_bytes(NX_INT8, -1, &nb) == NX_ERR_RANGE && nb == 77);
    CHECK(nx_dtype_bytes(NX_INT8, 0, &nb) == NX_OK && nb == 0);
    CHECK(nx_dtype_bytes(NX_INT8, 5, NULL) == NX_ERR_NULL);
    CHECK(nx_dtype_bytes(NX_INT8, -1, NULL) == NX_ERR_RANGE); /* range before NULL */
  }
}

static void test_exact(void) {
  /* nx_array.mli's sentences on `exact` and docs/SEMANTICS.md's consequences. */
  CHECK(nx_dtype_exact(NX_INT8, NX_BFLOAT16) == 1);
  CHECK(nx_dtype_exact(NX_INT16, NX_FLOAT32) == 1);
  CHECK(nx_dtype_exact(NX_INT32, NX_FLOAT64) == 1);
  CHECK(nx_dtype_exact(NX_INT16, NX_BFLOAT16) == 0);
  CHECK(nx_dtype_exact(NX_INT32, NX_FLOAT32) == 0);
  for (int i = 0; i < NX_DTYPE_COUNT; i++)
    if (i != NX_INT64) CHECKF(nx_dtype_exact(NX_INT64, i) == 0 || nx_dtype_kind(i) == NX_KIND_SIGNED, "%d", i);
  CHECK(nx_dtype_exact(NX_FLOAT16, NX_FLOAT32) == 1 && nx_dtype_exact(NX_BFLOAT16, NX_FLOAT32) == 1);
  CHECK(nx_dtype_exact(NX_FLOAT16, NX_BFLOAT16) == 0 && nx_dtype_exact(NX_BFLOAT16, NX_FLOAT16) == 0);
  CHECK(nx_dtype_exact(NX_FLOAT8_E4M3FN, NX_FLOAT16) == 1 && nx_dtype_exact(NX_FLOAT8_E5M2, NX_FLOAT16) == 1);
  CHECK(nx_dtype_exact(NX_FLOAT8_E4M3FN, NX_BFLOAT16) == 1 && nx_dtype_exact(NX_FLOAT8_E5M2, NX_BFLOAT16) == 1);
  CHECK(nx_dtype_exact(NX_FLOAT8_E4M3FN, NX_FLOAT8_E5M2) == 0 && nx_dtype_exact(NX_FLOAT8_E5M2, NX_FLOAT8_E4M3FN) == 0);
  for (int i = 0; i < 7; i++) CHECK(nx_dtype_exact(NX_FLOAT4_E2M1FN, i) == 1);
  CHECK(nx_dtype_exact(NX_INT8, NX_FLOAT16) == 1 && nx_dtype_exact(NX_UINT8, NX_BFLOAT16) == 1);
  CHECK(nx_dtype_exact(NX_INT4, NX_FLOAT8_E4M3FN) == 1 && nx_dtype_exact(NX_UINT4, NX_FLOAT8_E4M3FN) == 1);
  CHECK(nx_dtype_exact(NX_INT4, NX_FLOAT8_E5M2) == 1 && nx_dtype_exact(NX_UINT4, NX_FLOAT8_E5M2) == 0);
  for (int i = 0; i < 7; i++)
    for (int j = NX_INT64; j <= NX_UINT4; j++) CHECK(nx_dtype_exact(i, j) == 0);
  CHECK(nx_dtype_exact(NX_COMPLEX64, NX_COMPLEX128) == 1 && nx_dtype_exact(NX_COMPLEX128, NX_COMPLEX64) == 0);
  CHECK(nx_dtype_exact(NX_FLOAT32, NX_COMPLEX64) == 1 && nx_dtype_exact(NX_COMPLEX64, NX_FLOAT32) == 0);
  CHECK(nx_dtype_exact(NX_INT8, NX_BOOL) == 0 && nx_dtype_exact(NX_BIT, NX_BOOL) == 1);
  for (size_t k = 0; k < NBAD; k++) {
    CHECK(nx_dtype_exact(BAD_CODES[k], NX_INT8) == NX_ERR_DTYPE);
    CHECK(nx_dtype_exact(NX_INT8, BAD_CODES[k]) == NX_ERR_DTYPE);
  }
}

static void test_seed_stores(void) {
  CHECK(store(NX_FLOAT16, 0.1) == 0x2E66 && load(NX_FLOAT16, 0x2E66) == 0x1.998p-4);
  CHECK(load(NX_FLOAT16, store(NX_FLOAT16, 65519.0)) == 65504.0);
  CHECK(store(NX_FLOAT16, 65520.0) == 0x7C00);
  CHECK(isinf(load(NX_FLOAT8_E5M2, store(NX_FLOAT8_E5M2, 61440.0))));
  {
    const double sat[] = {448.0, 464.0, 465.0, 480.0, 1e9, INFINITY};
    for (size_t i = 0; i < sizeof sat / sizeof sat[0]; i++) {
      CHECK(store(NX_FLOAT8_E4M3FN, sat[i]) == 0x7E);
      CHECK(store(NX_FLOAT8_E4M3FN, -sat[i]) == 0xFE);
    }
  }
  CHECK(store(NX_FLOAT4_E2M1FN, NAN) == 0 && store(NX_FLOAT4_E2M1FN, -NAN) == 0);
  CHECK(store(NX_FLOAT8_E4M3FN, NAN) == 0x7F && store(NX_FLOAT8_E4M3FN, -NAN) == 0xFF);
  /* NaN payload: a float64 sNaN keeps its top payload bits, quieted. */
  {
    uint64_t s = UINT64_C(0x7FF5000000000000);
    double x;
    memcpy(&x, &s, 8);
    CHECK(store(NX_FLOAT32, x) == 0x7FE80000);
    CHECK(store(NX_FLOAT16, x) == 0x7F40);
    CHECK(store(NX_BFLOAT16, x) == 0x7FE8);
    CHECK(store(NX_FLOAT64, x) == UINT64_C(0x7FFD000000000000));
  }
  /* Integers: truncate, saturate, NaN -> 0; unsigned carries its bits. */
  CHECK(store(NX_INT8, 1e9) == 0x7F && store(NX_INT8, -1e9) == 0x80);
  CHECK(store(NX_INT8, -2.9) == 0xFE && store(NX_UINT8, -2.9) == 0);
  CHECK(store(NX_INT32, NAN) == 0 && store(NX_UINT4, 99.0) == 0xF && store(NX_INT4, -99.0) == 0x8);
  CHECK(store(NX_UINT32, 4294967295.0) == 0xFFFFFFFF && store(NX_UINT64, 1e300) == UINT64_MAX);
  CHECK(store(NX_BOOL, NAN) == 1 && store(NX_BOOL, -0.0) == 0 && store(NX_BIT, 0.5) == 1);
  /* Complex: (x, +0). */
  {
    unsigned char e[16];
    double re, im;
    memset(e, 0xAA, sizeof e);
    CHECK(nx_store_f64(NX_COMPLEX128, -0.1, e) == NX_OK);
    memcpy(&re, e, 8);
    memcpy(&im, e + 8, 8);
    CHECK(re == -0.1 && im == 0.0 && !signbit(im));
    memset(e, 0xAA, sizeof e);
    CHECK(nx_store_f64(NX_COMPLEX64, 0.1, e) == NX_OK);
    CHECK(e[8] == 0xAA); /* 8 bytes written, no more */
    {
      float fr;
      memcpy(&fr, e, 4);
      CHECK(fr == 0.1f);
    }
  }
  /* A sub-byte element clears the other bits of its byte. */
  {
    unsigned char e = 0xFF;
    CHECK(nx_store_f64(NX_INT4, -1.0, &e) == NX_OK && e == 0x0F);
    e = 0xFF;
    CHECK(nx_store_f64(NX_BIT, 0.0, &e) == NX_OK && e == 0);
  }
  /* Exact integers round once: never through double. */
  {
    unsigned char e[8];
    uint32_t f;
    CHECK(nx_store_i64(NX_FLOAT32, (INT64_C(1) << 60) + (INT64_C(1) << 36) + 1, e) == NX_OK);
    memcpy(&f, e, 4);
    CHECK(f == 0x5D800001); /* 1152921642045800448 */
    CHECK(nx_store_i64(NX_BFLOAT16, 16842753, e) == NX_OK && e[0] == 0x81 && e[1] == 0x4B);
    CHECK(nx_store_u64(NX_INT64, UINT64_MAX, e) == NX_OK && e[7] == 0x7F && e[0] == 0xFF);
    CHECK(nx_store_i64(NX_UINT16, -5, e) == NX_OK && e[0] == 0 && e[1] == 0);
    CHECK(nx_store_u64(NX_FLOAT64, UINT64_MAX, e) == NX_OK);
    {
      double d;
      memcpy(&d, e, 8);
      CHECK(d == 18446744073709551616.0);
    }
  }
  /* Loads: integers and booleans to float64, complex's real part. */
  CHECK(load(NX_UINT32, 0xFFFFFFFF) == 4294967295.0);
  CHECK(load(NX_INT4, 0x8) == -8.0 && load(NX_INT4, 0xF8) == -8.0);
  CHECK(load(NX_BOOL, 0x40) == 1.0 && load(NX_BIT, 0xFE) == 0.0);
  CHECK(load(NX_UINT64, UINT64_MAX) == 18446744073709551616.0);
  CHECK(bits_of(load(NX_FLOAT16, 0x7C01)) == UINT64_C(0x7FF8040000000000));
  /* is_value */
  CHECK(nx_is_value_f64(NX_FLOAT32, 0.1) == 0 && nx_is_value_f64(NX_FLOAT64, 0.1) == 1);
  CHECK(nx_is_value_f64(NX_FLOAT32, 0.5) == 1 && nx_is_value_f64(NX_FLOAT8_E4M3FN, 480.0) == 0);
  CHECK(nx_is_value_f64(NX_FLOAT4_E2M1FN, INFINITY) == 1 && nx_is_value_f64(NX_FLOAT16, NAN) == 1);
  CHECK(nx_is_value_f64(NX_COMPLEX64, 0.1) == 0 && nx_is_value_f64(NX_COMPLEX128, 0.1) == 1);
  CHECK(nx_is_value_f64(NX_INT8, 1.0) == NX_ERR_KIND && nx_is_value_f64(NX_BOOL, 1.0) == NX_ERR_KIND);
}

static void test_min_max(void) {
  unsigned char e[16];
  for (int i = 0; i < NX_DTYPE_COUNT; i++) {
    int kind = nx_dtype_kind(i);
    memset(e, 0xAA, sizeof e);
    if (kind == NX_KIND_COMPLEX) {
      CHECK(nx_dtype_min_value(i, e) == NX_ERR_KIND && nx_dtype_max_value(i, e) == NX_ERR_KIND);
      CHECK(e[0] == 0xAA);
      continue;
    }
    CHECK(nx_dtype_min_value(i, e) == NX_OK);
    {
      double lo = 0, hi = 0;
      CHECK(nx_load_f64(i, e, &lo) == NX_OK);
      CHECK(nx_dtype_max_value(i, e) == NX_OK);
      CHECK(nx_load_f64(i, e, &hi) == NX_OK);
      if (kind == NX_KIND_FLOAT) {
        nx_float_format ff;
        CHECK(nx_dtype_float_format(i, &ff) == NX_OK);
        CHECK(hi == (ff.infinities ? INFINITY : ff.max_finite) && lo == -hi);
      } else if (kind == NX_KIND_SIGNED) {
        int b = nx_dtype_bits(i);
        CHECKF(lo == -ldexp(1, b - 1) && hi == ldexp(1, b - 1) - 1 + (b == 64), "%d", i);
      } else if (kind == NX_KIND_UNSIGNED) {
        int b = nx_dtype_bits(i);
        CHECKF(lo == 0 && hi == ldexp(1, b) - 1 + (b == 64), "%d", i);
        CHECK(e[0] == (b == 4 ? 0x0F : 0xFF)); /* all ones */
      } else {
        CHECK(lo == 0 && hi == 1 && e[0] == 1);
      }
    }
  }
  memset(e, 0xAA, sizeof e);
  CHECK(nx_dtype_max_value(NX_FLOAT8_E4M3FN, e) == NX_OK && e[0] == 0x7E && e[1] == 0xAA);
  CHECK(nx_dtype_min_value(NX_FLOAT4_E2M1FN, e) == NX_OK && e[0] == 0x0F);
  CHECK(nx_dtype_max_value(NX_UINT64, NULL) == NX_ERR_NULL);
  CHECK(nx_dtype_min_value(NX_COMPLEX64, NULL) == NX_ERR_NULL); /* NULL before kind */
}

/* Every status of every facts/scalar function; nothing written on failure. */
static void test_statuses(void) {
  unsigned char e[16];
  double out;
  int64_t nb;
  nx_float_format ff;
  for (size_t k = 0; k < NBAD; k++) {
    int32_t c = BAD_CODES[k];
    memset(e, 0xAA, sizeof e);
    out = 7.0;
    nb = 7;
    CHECK(nx_dtype_bits(c) == NX_ERR_DTYPE);
    CHECK(nx_dtype_kind(c) == NX_ERR_DTYPE);
    CHECK(nx_dtype_name(c) == NULL);
    CHECK(nx_dtype_bytes(c, 1, &nb) == NX_ERR_DTYPE && nb == 7);
    CHECK(nx_dtype_bytes(c, -1, NULL) == NX_ERR_DTYPE); /* code checked first */
    CHECK(nx_dtype_float_format(c, &ff) == NX_ERR_DTYPE);
    CHECK(nx_dtype_min_value(c, e) == NX_ERR_DTYPE && nx_dtype_max_value(c, NULL) == NX_ERR_DTYPE);
    CHECK(nx_store_f64(c, 1.0, e) == NX_ERR_DTYPE && nx_store_i64(c, 1, NULL) == NX_ERR_DTYPE);
    CHECK(nx_store_u64(c, 1, e) == NX_ERR_DTYPE);
    CHECK(nx_load_f64(c, e, &out) == NX_ERR_DTYPE && out == 7.0);
    CHECK(nx_is_value_f64(c, 1.0) == NX_ERR_DTYPE);
    CHECK(e[0] == 0xAA);
  }
  CHECK(nx_dtype_float_format(NX_FLOAT32, NULL) == NX_ERR_NULL);
  CHECK(nx_dtype_float_format(NX_INT8, NULL) == NX_ERR_NULL);
  CHECK(nx_store_f64(NX_FLOAT32, 1.0, NULL) == NX_ERR_NULL);
  CHECK(nx_store_i64(NX_FLOAT32, 1, NULL) == NX_ERR_NULL);
  CHECK(nx_store_u64(NX_FLOAT32, 1, NULL) == NX_ERR_NULL);
  CHECK(nx_load_f64(NX_FLOAT32, NULL, &out) == NX_ERR_NULL);
  CHECK(nx_load_f64(NX_FLOAT32, e, NULL) == NX_ERR_NULL);
  /* Every status has its own sentence; unknown ones too. */
  {
    const int32_t st[] = {NX_OK, NX_ERR_DTYPE, NX_ERR_NULL, NX_ERR_RANGE, NX_ERR_KIND,
                          NX_ERR_NOT_VALUE, NX_ERR_OVERLAP, NX_ERR_INTERNAL};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
      CHECK(nx_status_message(st[i]) != NULL && strlen(nx_status_message(st[i])) > 5);
      for (size_t j = 0; j < i; j++) CHECK(strcmp(nx_status_message(st[i]), nx_status_message(st[j])) != 0);
    }
    CHECK(nx_status_message(-99) != NULL && nx_status_message(INT32_MIN) != NULL);
    CHECK(nx_status_message(12) != NULL);
  }
}

int main(void) {
  test_facts();
  test_exact();
  test_seed_stores();
  test_min_max();
  test_statuses();
  return check_report("test_facts");
}

/* Printing (nx_format, nx_format_f64): snprintf's contract, the examples
 * of pp_value's documentation (ocaml/nx_array.mli), and the errors, in
 * their order. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "nx_dtype.h"

/* Format double x as dtype dt into a NX_FORMAT_MAX buffer; 1 iff it gives
 * exactly `want` with its length returned. */
static int prints(int32_t dt, double x, const char *want) {
  char buf[NX_FORMAT_MAX];
  int64_t n = nx_format_f64(dt, x, buf, sizeof buf);
  if (n != (int64_t)strlen(want) || strcmp(buf, want) != 0) {
    fprintf(stderr, "dt %d: %.17g printed \"%s\" (%lld), want \"%s\"\n", (int)dt, x,
            n >= 0 ? buf : "", (long long)n, want);
    return 0;
  }
  return 1;
}

static int elem_prints(int32_t dt, const void *elem, const char *want) {
  char buf[NX_FORMAT_MAX];
  int64_t n = nx_format(dt, elem, buf, sizeof buf);
  if (n != (int64_t)strlen(want) || strcmp(buf, want) != 0) {
    fprintf(stderr, "dt %d printed \"%s\" (%lld), want \"%s\"\n", (int)dt, n >= 0 ? buf : "",
            (long long)n, want);
    return 0;
  }
  return 1;
}

/* Whether the `len` bytes at p all equal c. */
static int all(const char *p, size_t len, char c) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != c) return 0;
  return 1;
}

int main(void) {
  /* pp_value's documented examples. */
  CHECK(prints(NX_FLOAT32, (double)0.1f, "0.1"));
  CHECK(prints(NX_FLOAT16, 65504.0, "65500"));
  CHECK(prints(NX_FLOAT8_E4M3FN, 448.0, "450"));
  CHECK(prints(NX_FLOAT8_E5M2, 57344.0, "60000"));
  CHECK(prints(NX_FLOAT16, 0.015625, "0.01563"));
  CHECK(prints(NX_FLOAT32, (double)1.59e29f, "1.59e+29"));
  CHECK(prints(NX_FLOAT64, 1e16, "1e+16"));
  CHECK(prints(NX_FLOAT64, 1e-5, "1e-05"));
  CHECK(prints(NX_FLOAT64, 0.0001, "0.0001"));
  CHECK(prints(NX_FLOAT64, -0.0, "-0"));
  CHECK(prints(NX_FLOAT4_E2M1FN, -6.0, "-6"));
  {
    float c[2] = {0.5f, -2.0f};
    uint32_t u = 0xFFFFFFFFu;
    uint8_t b = 1, i4 = 0x0F, u4 = 0xFF; /* sub-byte: only the low bits count */
    CHECK(elem_prints(NX_COMPLEX64, c, "0.5-2i"));
    CHECK(elem_prints(NX_UINT32, &u, "4294967295"));
    CHECK(elem_prints(NX_INT32, &u, "-1"));
    CHECK(elem_prints(NX_BOOL, &b, "true"));
    CHECK(elem_prints(NX_INT4, &i4, "-1"));
    CHECK(elem_prints(NX_UINT4, &u4, "15"));
    CHECK(elem_prints(NX_BIT, &u4, "true"));
  }

  /* snprintf's contract: the whole length, at most cap - 1 bytes and a NUL,
   * nothing beyond cap. */
  {
    char buf[16];
    int64_t n;
    memset(buf, 'x', sizeof buf);
    n = nx_format_f64(NX_FLOAT64, 0.0001, buf, 4);
    CHECK(n == 6);
    CHECK(memcmp(buf, "0.0", 3) == 0 && buf[3] == '\0');
    CHECK(all(buf + 4, sizeof buf - 4, 'x'));

    memset(buf, 'x', sizeof buf);
    n = nx_format_f64(NX_FLOAT64, 123.0, buf, 1);
    CHECK(n == 3 && buf[0] == '\0' && all(buf + 1, sizeof buf - 1, 'x'));

    memset(buf, 'x', sizeof buf);
    n = nx_format_f64(NX_FLOAT64, 123.0, buf, 0);
    CHECK(n == 3 && all(buf, sizeof buf, 'x'));
    CHECK(nx_format_f64(NX_FLOAT64, 123.0, NULL, 0) == 3);
    {
      double d = -1.5;
      CHECK(nx_format(NX_FLOAT64, &d, NULL, 0) == 4);
    }

    /* Exactly fitting: length 3 needs cap 4. */
    memset(buf, 'x', sizeof buf);
    n = nx_format_f64(NX_FLOAT64, 123.0, buf, 4);
    CHECK(n == 3 && strcmp(buf, "123") == 0 && all(buf + 4, sizeof buf - 4, 'x'));
    memset(buf, 'x', sizeof buf);
    n = nx_format_f64(NX_FLOAT64, 123.0, buf, 3);
    CHECK(n == 3 && strcmp(buf, "12") == 0 && all(buf + 3, sizeof buf - 3, 'x'));
  }

  /* The longest texts fit in NX_FORMAT_MAX. */
  {
    double c[2] = {-2.2250738585072009e-308, -1.2345678901234567e-100};
    char buf[NX_FORMAT_MAX];
    int64_t n = nx_format(NX_COMPLEX128, c, buf, sizeof buf);
    CHECK(n > 0 && n < NX_FORMAT_MAX && (size_t)n == strlen(buf));
  }

  /* Errors, in the ABI's order; nothing written. */
  {
    char buf[8];
    double d = 1.0;
    memset(buf, 'x', sizeof buf);
    CHECK(nx_format_f64(NX_FLOAT32, 0.1, buf, sizeof buf) == NX_ERR_NOT_VALUE);
    CHECK(nx_format_f64(NX_FLOAT16, 1e-30, buf, sizeof buf) == NX_ERR_NOT_VALUE);
    CHECK(nx_format_f64(NX_INT32, 1.0, buf, sizeof buf) == NX_ERR_KIND);
    CHECK(nx_format_f64(NX_BOOL, 1.0, buf, sizeof buf) == NX_ERR_KIND);
    CHECK(nx_format_f64(NX_COMPLEX128, 1.0, buf, sizeof buf) == NX_ERR_KIND);
    CHECK(nx_format_f64(-1, 1.0, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format_f64(21, 1.0, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format_f64(INT32_MIN, 1.0, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format(-1, &d, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format(21, &d, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format(INT32_MIN, &d, buf, sizeof buf) == NX_ERR_DTYPE);
    CHECK(nx_format(NX_FLOAT64, NULL, buf, sizeof buf) == NX_ERR_NULL);
    CHECK(nx_format(NX_FLOAT64, &d, NULL, 1) == NX_ERR_NULL);
    CHECK(nx_format_f64(NX_FLOAT64, 1.0, NULL, 1) == NX_ERR_NULL);
    /* Order: the dtype before NULL, NULL before the kind, the kind before
     * the value. */
    CHECK(nx_format(21, NULL, NULL, 1) == NX_ERR_DTYPE);
    CHECK(nx_format_f64(21, 0.1, NULL, 1) == NX_ERR_DTYPE);
    CHECK(nx_format_f64(NX_INT8, 0.1, NULL, 1) == NX_ERR_NULL);
    CHECK(nx_format_f64(NX_INT8, 0.1, buf, sizeof buf) == NX_ERR_KIND);
    CHECK(all(buf, sizeof buf, 'x'));
  }
  return check_report("test_print");
}

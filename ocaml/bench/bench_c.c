/* The C side of bench.ml: the same library calls, timed from C.
   of_float is nx_store_f64 then nx_load_f64 (what the OCaml stub does);
   pp_value is nx_format_f64 into a stack buffer. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "nx_dtype.h"

static double inputs[1024];
static volatile double sink;
static volatile int64_t isink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void of_float(const char *name, int32_t dt, long n) {
  unsigned char e[16] = {0};
  double t0 = now(), y = 0.0;
  for (long i = 0; i < n; i++) {
    nx_store_f64(dt, inputs[i & 1023], e);
    nx_load_f64(dt, e, &y);
    sink = y;
  }
  printf("C     of_float %-25s %7.1f ns/call\n", name, (now() - t0) * 1e9 / (double)n);
}

static void store(const char *name, int32_t dt, long n) {
  unsigned char e[16] = {0};
  double t0 = now();
  for (long i = 0; i < n; i++) {
    nx_store_f64(dt, inputs[i & 1023], e);
    isink = e[0];
  }
  printf("C     nx_store_f64 %-21s %7.1f ns/call\n", name, (now() - t0) * 1e9 / (double)n);
}

static void format(const char *name, int32_t dt, long n) {
  char buf[NX_FORMAT_MAX];
  double values[1024];
  unsigned char e[16];
  for (int i = 0; i < 1024; i++) {
    nx_store_f64(dt, inputs[i], e);
    nx_load_f64(dt, e, &values[i]);
  }
  double t0 = now();
  for (long i = 0; i < n; i++) isink = nx_format_f64(dt, values[i & 1023], buf, sizeof buf);
  printf("C     nx_format_f64 %-20s %7.1f ns/call\n", name, (now() - t0) * 1e9 / (double)n);
}

int main(void) {
  for (int i = 0; i < 1024; i++)
    inputs[i] = ldexp((double)(i * 7919 % 1024) - 512.0, i % 40 - 20) + 0.1;
  printf("libnx_dtype %s, kernels: %s\n", nx_version(), nx_kernel_isa());
  of_float("Float16", NX_FLOAT16, 20000000);
  of_float("Bfloat16", NX_BFLOAT16, 20000000);
  of_float("Float8_e4m3fn", NX_FLOAT8_E4M3FN, 20000000);
  of_float("Float32", NX_FLOAT32, 20000000);
  of_float("Int8", NX_INT8, 20000000);
  store("Float16", NX_FLOAT16, 20000000);
  store("Bfloat16", NX_BFLOAT16, 20000000);
  store("Float32", NX_FLOAT32, 20000000);
  store("Int8", NX_INT8, 20000000);
  store("Uint32", NX_UINT32, 20000000);
  store("Bool", NX_BOOL, 20000000);
  format("Float16", NX_FLOAT16, 2000000);
  format("Float32", NX_FLOAT32, 2000000);
  return 0;
}

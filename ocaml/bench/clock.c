/* The benchmarks' clock and the kernel level, for bench_convert.ml. */
#define _POSIX_C_SOURCE 199309L
#define CAML_NAME_SPACE
#include <caml/alloc.h>
#include <caml/mlvalues.h>
#include <time.h>

#include "nx_dtype.h"

/* Seconds on the monotonic clock. */
double nx_bench_now(value unit) {
  struct timespec t;
  (void)unit;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
value nx_bench_now_byte(value unit) { return caml_copy_double(nx_bench_now(unit)); }

value nx_bench_isa(value unit) {
  (void)unit;
  return caml_copy_string(nx_kernel_isa());
}

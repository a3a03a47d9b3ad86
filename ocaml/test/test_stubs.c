/* The C library called directly, for the OCaml tests to compare
   Nx_array.Dtype against: raw statuses and element bytes, no decoding.
   These stubs are plain (boxed, allocating) so they share nothing with the
   binding under test. */

#define CAML_NAME_SPACE
#include <caml/alloc.h>
#include <caml/bigarray.h>
#include <caml/memory.h>
#include <caml/mlvalues.h>

#include <stdint.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "nx_dtype.h"

static value pair(int64_t status, value v) {
  CAMLparam1(v);
  CAMLlocal1(r);
  r = caml_alloc_tuple(2);
  Store_field(r, 0, Val_long(status));
  Store_field(r, 1, v);
  CAMLreturn(r);
}

value t_count(value unit) {
  (void)unit;
  return Val_int(NX_DTYPE_COUNT);
}
value t_bits(value dt) { return Val_long(nx_dtype_bits(Int_val(dt))); }
value t_kind(value dt) { return Val_long(nx_dtype_kind(Int_val(dt))); }
value t_name(value dt) {
  const char *s = nx_dtype_name(Int_val(dt));
  return caml_copy_string(s ? s : "<NULL>");
}
value t_of_name(value s) {
  return Val_long(nx_dtype_of_name(String_val(s), caml_string_length(s)));
}
value t_exact(value a, value b) {
  return Val_long(nx_dtype_exact(Int_val(a), Int_val(b)));
}
/* (status, bytes as int64) */
value t_bytes(value dt, value n) {
  int64_t out = -1;
  int32_t st = nx_dtype_bytes(Int_val(dt), Int64_val(n), &out);
  return pair(st, caml_copy_int64(out));
}

/* (status, [| exponent_bits; fraction_bits; infinities; nans |],
   [| epsilon; min_normal; max_finite |]) */
value t_float_format(value dt) {
  CAMLparam1(dt);
  CAMLlocal3(r, ints, floats);
  nx_float_format f;
  int32_t st;
  memset(&f, 0, sizeof f);
  st = nx_dtype_float_format(Int_val(dt), &f);
  ints = caml_alloc_tuple(4);
  Store_field(ints, 0, Val_int(f.exponent_bits));
  Store_field(ints, 1, Val_int(f.fraction_bits));
  Store_field(ints, 2, Val_int(f.infinities));
  Store_field(ints, 3, Val_int(f.nans));
  floats = caml_alloc_float_array(3);
  Store_double_flat_field(floats, 0, f.epsilon);
  Store_double_flat_field(floats, 1, f.min_normal);
  Store_double_flat_field(floats, 2, f.max_finite);
  r = caml_alloc_tuple(3);
  Store_field(r, 0, Val_long(st));
  Store_field(r, 1, ints);
  Store_field(r, 2, floats);
  CAMLreturn(r);
}

/* An element's bytes: nx_dtype_bytes(dt, 1) of them. */
static value elem_string(int32_t dt, const unsigned char *e) {
  int64_t n = 0;
  nx_dtype_bytes(dt, 1, &n);
  return caml_alloc_initialized_string((mlsize_t)n, (const char *)e);
}

/* (status, element bytes) of nx_dtype_min_value / max_value */
value t_extreme(value dt, value greatest) {
  CAMLparam2(dt, greatest);
  CAMLlocal1(s);
  unsigned char e[16] = {0};
  int32_t st = Bool_val(greatest) ? nx_dtype_max_value(Int_val(dt), e)
                                  : nx_dtype_min_value(Int_val(dt), e);
  s = elem_string(Int_val(dt), e);
  CAMLreturn(pair(st, s));
}

/* (status, element bytes) of nx_store_f64 */
value t_store(value dt, value x) {
  CAMLparam2(dt, x);
  CAMLlocal1(s);
  unsigned char e[16] = {0};
  int32_t st = nx_store_f64(Int_val(dt), Double_val(x), e);
  s = elem_string(Int_val(dt), e);
  CAMLreturn(pair(st, s));
}

/* (status, element bytes) of nx_store_i64 */
value t_store_i64(value dt, value x) {
  CAMLparam2(dt, x);
  CAMLlocal1(s);
  unsigned char e[16] = {0};
  int32_t st = nx_store_i64(Int_val(dt), Int64_val(x), e);
  s = elem_string(Int_val(dt), e);
  CAMLreturn(pair(st, s));
}

/* (status, double) of nx_load_f64 on element bytes */
value t_load(value dt, value bytes) {
  CAMLparam2(dt, bytes);
  unsigned char e[16] = {0};
  double x = 0.0;
  int32_t st;
  memcpy(e, String_val(bytes),
         caml_string_length(bytes) < 16 ? caml_string_length(bytes) : 16);
  st = nx_load_f64(Int_val(dt), e, &x);
  CAMLreturn(pair(st, caml_copy_double(x)));
}

value t_is_value(value dt, value x) {
  return Val_long(nx_is_value_f64(Int_val(dt), Double_val(x)));
}

static value text(int64_t n, const char *buf) {
  return pair(n, caml_copy_string(n >= 0 ? buf : ""));
}

/* (length or status, text) of nx_format on element bytes */
value t_format(value dt, value bytes) {
  CAMLparam2(dt, bytes);
  unsigned char e[16] = {0};
  char buf[NX_FORMAT_MAX];
  memcpy(e, String_val(bytes),
         caml_string_length(bytes) < 16 ? caml_string_length(bytes) : 16);
  CAMLreturn(text(nx_format(Int_val(dt), e, buf, sizeof buf), buf));
}

/* (length or status, text) of nx_format_f64 */
value t_format_f64(value dt, value x) {
  CAMLparam2(dt, x);
  char buf[NX_FORMAT_MAX];
  CAMLreturn(text(nx_format_f64(Int_val(dt), Double_val(x), buf, sizeof buf),
                  buf));
}

/* nx_convert between the data of two bigarrays: n elements. */
value t_convert(value src_dt, value src, value dst_dt, value dst, value n) {
  return Val_long(nx_convert(Int_val(src_dt), Caml_ba_data_val(src),
                             Int_val(dst_dt), Caml_ba_data_val(dst),
                             Long_val(n)));
}

/* Every large block malloc'd from now on mapped on its own, and unmapped
   when freed: glibc otherwise raises its threshold past a large block once
   one is freed, and serves the next from memory that stays mapped after a
   free, where a conversion reading freed data would not fault. (Other
   systems' allocators unmap large blocks as they are freed.) */
value t_unmap_large_frees(value unit) {
  (void)unit;
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  return Val_unit;
}

/* C stubs of Nx_array.Dtype over libnx_dtype.

   The OCaml side checks every argument it can (codes come from constructors,
   so they are always valid), so most stubs are unchecked and allocate
   nothing: they are declared [@@noalloc] with [@unboxed]/[@untagged]
   arguments in native code. Each such stub has a bytecode twin
   (`..._byte`) that unboxes its arguments, calls it and boxes the result.
   Stubs that report a library failure return its negative status; none of
   them raises. */

#define CAML_NAME_SPACE
#include <caml/alloc.h>
#include <caml/bigarray.h>
#include <caml/memory.h>
#include <caml/mlvalues.h>
#include <caml/threads.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "nx_dtype.h"

/* One element of any dtype: 16 bytes (complex128) at most. */
typedef union {
  unsigned char b[16];
  uint64_t u;
  double d[2];
} elem_t;

/* The element's bits, read little-endian (the host's order) and extended by
   its kind: sign-extended for signed integers, zero-extended otherwise.
   Every caller zeroed e->u before the library wrote the element, so all 8
   bytes are defined; bits past the element's are masked off. */
static int64_t elem_bits(int32_t dt, const elem_t *e) {
  int32_t bits = nx_dtype_table[dt].bits;
  uint64_t u = e->u;
  if (bits < 64) {
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    u &= mask;
    if (nx_dtype_table[dt].kind == NX_KIND_SIGNED && (u >> (bits - 1)) != 0)
      u |= ~mask;
  }
  return (int64_t)u;
}

/* ---- Facts ---- */

intnat nx_ml_bits(intnat dt) { return nx_dtype_bits((int32_t)dt); }
value nx_ml_bits_byte(value dt) { return Val_long(nx_ml_bits(Long_val(dt))); }

/* The code of the name, or a negative status. */
intnat nx_ml_of_name(value s) {
  return nx_dtype_of_name(String_val(s), caml_string_length(s));
}
value nx_ml_of_name_byte(value s) { return Val_long(nx_ml_of_name(s)); }

/* The byte count, or -1 when the library refuses n or the count exceeds an
   OCaml int. */
intnat nx_ml_bytes(intnat dt, intnat n) {
  int64_t out;
  if (nx_dtype_bytes((int32_t)dt, (int64_t)n, &out) != NX_OK || out > Max_long)
    return -1;
  return (intnat)out;
}
value nx_ml_bytes_byte(value dt, value n) {
  return Val_long(nx_ml_bytes(Long_val(dt), Long_val(n)));
}

value nx_ml_exact(intnat a, intnat b) {
  return Val_bool(nx_dtype_exact((int32_t)a, (int32_t)b) == 1);
}
value nx_ml_exact_byte(value a, value b) {
  return nx_ml_exact(Long_val(a), Long_val(b));
}

/* Allocates: called once per dtype, when the module is initialised. */
value nx_ml_name(value dt) {
  const char *s = nx_dtype_name((int32_t)Long_val(dt));
  return caml_copy_string(s != NULL ? s : "");
}

/* The OCaml record float_format, or the all-zero one for a non-float
   dtype. Allocates: called once per dtype at initialisation. */
value nx_ml_float_format(value dt) {
  CAMLparam1(dt);
  CAMLlocal1(r);
  nx_float_format f;
  if (nx_dtype_float_format((int32_t)Long_val(dt), &f) != NX_OK)
    memset(&f, 0, sizeof f);
  r = caml_alloc_tuple(7);
  Store_field(r, 0, Val_int(f.exponent_bits));
  Store_field(r, 1, Val_int(f.fraction_bits));
  Store_field(r, 2, Val_bool(f.infinities));
  Store_field(r, 3, Val_bool(f.nans));
  Store_field(r, 4, caml_copy_double(f.epsilon));
  Store_field(r, 5, caml_copy_double(f.min_normal));
  Store_field(r, 6, caml_copy_double(f.max_finite));
  CAMLreturn(r);
}

/* ---- Least and greatest values (never called for complex) ---- */

static elem_t extreme(intnat dt, value greatest) {
  elem_t e;
  memset(&e, 0, sizeof e);
  if (Bool_val(greatest))
    nx_dtype_max_value((int32_t)dt, e.b);
  else
    nx_dtype_min_value((int32_t)dt, e.b);
  return e;
}

double nx_ml_extreme_float(intnat dt, value greatest) {
  elem_t e = extreme(dt, greatest);
  double x = 0.0;
  nx_load_f64((int32_t)dt, e.b, &x);
  return x;
}
value nx_ml_extreme_float_byte(value dt, value greatest) {
  return caml_copy_double(nx_ml_extreme_float(Long_val(dt), greatest));
}

intnat nx_ml_extreme_int(intnat dt, value greatest) {
  elem_t e = extreme(dt, greatest);
  return (intnat)elem_bits((int32_t)dt, &e);
}
value nx_ml_extreme_int_byte(value dt, value greatest) {
  return Val_long(nx_ml_extreme_int(Long_val(dt), greatest));
}

int32_t nx_ml_extreme_int32(intnat dt, value greatest) {
  elem_t e = extreme(dt, greatest);
  return (int32_t)elem_bits((int32_t)dt, &e);
}
value nx_ml_extreme_int32_byte(value dt, value greatest) {
  return caml_copy_int32(nx_ml_extreme_int32(Long_val(dt), greatest));
}

int64_t nx_ml_extreme_int64(intnat dt, value greatest) {
  elem_t e = extreme(dt, greatest);
  return elem_bits((int32_t)dt, &e);
}
value nx_ml_extreme_int64_byte(value dt, value greatest) {
  return caml_copy_int64(nx_ml_extreme_int64(Long_val(dt), greatest));
}

value nx_ml_extreme_bool(intnat dt, value greatest) {
  elem_t e = extreme(dt, greatest);
  return Val_bool(elem_bits((int32_t)dt, &e) != 0);
}
value nx_ml_extreme_bool_byte(value dt, value greatest) {
  return nx_ml_extreme_bool(Long_val(dt), greatest);
}

/* ---- Stores: of_float is nx_store_f64, read back by the value type ---- */

static elem_t store(intnat dt, double x) {
  elem_t e;
  e.u = 0;
  nx_store_f64((int32_t)dt, x, e.b);
  return e;
}

/* Reading a stored float back: the one hot path besides the store itself.
   float64 is its own value and a float32 widens exactly in C (NaNs quiet,
   with their payload, as nx_load_f64 reads them); the formats of at most 16
   bits read through tables that nx_load_f64 fills once, on first use, so
   every value still comes from the library. */
static double dec_f16[1 << 16], dec_bf16[1 << 16], dec_e4m3[256], dec_e5m2[256],
    dec_e2m1[16];
static pthread_once_t once_f16 = PTHREAD_ONCE_INIT, once_bf16 = PTHREAD_ONCE_INIT,
                      once_e4m3 = PTHREAD_ONCE_INIT, once_e5m2 = PTHREAD_ONCE_INIT,
                      once_e2m1 = PTHREAD_ONCE_INIT;

static void fill(int32_t dt, double *table, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    unsigned char e[2] = {(unsigned char)(i & 0xff), (unsigned char)(i >> 8)};
    table[i] = 0.0;
    nx_load_f64(dt, e, &table[i]);
  }
}
#define FILLER(name, dt, table)                                   \
  static void name(void) {                                        \
    fill(dt, table, (uint32_t)(sizeof table / sizeof table[0]));  \
  }
FILLER(fill_f16, NX_FLOAT16, dec_f16)
FILLER(fill_bf16, NX_BFLOAT16, dec_bf16)
FILLER(fill_e4m3, NX_FLOAT8_E4M3FN, dec_e4m3)
FILLER(fill_e5m2, NX_FLOAT8_E5M2, dec_e5m2)
FILLER(fill_e2m1, NX_FLOAT4_E2M1FN, dec_e2m1)

static double load_float(intnat dt, const elem_t *e) {
  float f;
  double y = 0.0;
  switch (dt) {
    case NX_FLOAT64:
      return e->d[0];
    case NX_FLOAT32:
      memcpy(&f, e->b, sizeof f);
      return (double)f;
    case NX_FLOAT16:
      pthread_once(&once_f16, fill_f16);
      return dec_f16[e->b[0] | (e->b[1] << 8)];
    case NX_BFLOAT16:
      pthread_once(&once_bf16, fill_bf16);
      return dec_bf16[e->b[0] | (e->b[1] << 8)];
    case NX_FLOAT8_E4M3FN:
      pthread_once(&once_e4m3, fill_e4m3);
      return dec_e4m3[e->b[0]];
    case NX_FLOAT8_E5M2:
      pthread_once(&once_e5m2, fill_e5m2);
      return dec_e5m2[e->b[0]];
    case NX_FLOAT4_E2M1FN:
      pthread_once(&once_e2m1, fill_e2m1);
      return dec_e2m1[e->b[0] & 0xf];
    default:
      nx_load_f64((int32_t)dt, e->b, &y);
      return y;
  }
}

double nx_ml_store_float(intnat dt, double x) {
  elem_t e = store(dt, x);
  return load_float(dt, &e);
}
value nx_ml_store_float_byte(value dt, value x) {
  return caml_copy_double(nx_ml_store_float(Long_val(dt), Double_val(x)));
}

intnat nx_ml_store_int(intnat dt, double x) {
  elem_t e = store(dt, x);
  return (intnat)elem_bits((int32_t)dt, &e);
}
value nx_ml_store_int_byte(value dt, value x) {
  return Val_long(nx_ml_store_int(Long_val(dt), Double_val(x)));
}

int32_t nx_ml_store_int32(intnat dt, double x) {
  elem_t e = store(dt, x);
  return (int32_t)elem_bits((int32_t)dt, &e);
}
value nx_ml_store_int32_byte(value dt, value x) {
  return caml_copy_int32(nx_ml_store_int32(Long_val(dt), Double_val(x)));
}

int64_t nx_ml_store_int64(intnat dt, double x) {
  elem_t e = store(dt, x);
  return elem_bits((int32_t)dt, &e);
}
value nx_ml_store_int64_byte(value dt, value x) {
  return caml_copy_int64(nx_ml_store_int64(Long_val(dt), Double_val(x)));
}

value nx_ml_store_bool(intnat dt, double x) {
  elem_t e = store(dt, x);
  return Val_bool(elem_bits((int32_t)dt, &e) != 0);
}
value nx_ml_store_bool_byte(value dt, value x) {
  return nx_ml_store_bool(Long_val(dt), Double_val(x));
}

/* Complex.t is a float record: allocates. The components are read as the
   library reads them: binary64 directly, binary32 through nx_load_f64. */
value nx_ml_store_complex(intnat dt, double x) {
  CAMLparam0();
  CAMLlocal1(r);
  elem_t e = store(dt, x);
  double re = e.d[0], im = e.d[1];
  if (dt == NX_COMPLEX64) {
    nx_load_f64(NX_FLOAT32, e.b, &re);
    nx_load_f64(NX_FLOAT32, e.b + 4, &im);
  }
  r = caml_alloc_small(2 * Double_wosize, Double_array_tag);
  Store_double_flat_field(r, 0, re);
  Store_double_flat_field(r, 1, im);
  CAMLreturn(r);
}
value nx_ml_store_complex_byte(value dt, value x) {
  return nx_ml_store_complex(Long_val(dt), Double_val(x));
}

/* ---- Printing into an OCaml bytes buffer of NX_FORMAT_MAX bytes ---- */

/* The text's length, or a negative status. */
intnat nx_ml_format_f64(intnat dt, double x, value buf) {
  return (intnat)nx_format_f64((int32_t)dt, x, (char *)Bytes_val(buf),
                               caml_string_length(buf));
}
value nx_ml_format_f64_byte(value dt, value x, value buf) {
  return Val_long(nx_ml_format_f64(Long_val(dt), Double_val(x), buf));
}

/* An integer or boolean element given by its bits (two's complement, the
   low bits of x): its low bytes are the element, sub-byte ones masked. */
intnat nx_ml_format_bits(intnat dt, int64_t x, value buf) {
  elem_t e;
  int32_t bits = nx_dtype_table[dt].bits;
  uint64_t u = (uint64_t)x;
  if (bits < 64) u &= (UINT64_C(1) << bits) - 1;
  e.u = 0;
  memcpy(e.b, &u, sizeof u);
  return (intnat)nx_format((int32_t)dt, e.b, (char *)Bytes_val(buf),
                           caml_string_length(buf));
}
value nx_ml_format_bits_byte(value dt, value x, value buf) {
  return Val_long(nx_ml_format_bits(Long_val(dt), Int64_val(x), buf));
}

/* A complex element from its components, each of which must be a value of
   the component format (nx_is_value_f64 of the complex dtype checks it). */
intnat nx_ml_format_complex(intnat dt, double re, double im, value buf) {
  elem_t e;
  int32_t ok;
  ok = nx_is_value_f64((int32_t)dt, re);
  if (ok == 1) ok = nx_is_value_f64((int32_t)dt, im);
  if (ok != 1) return ok < 0 ? ok : NX_ERR_NOT_VALUE;
  if (dt == NX_COMPLEX64) {
    /* Exact: both components are binary32 values (or NaN/inf). */
    nx_store_f64(NX_FLOAT32, re, e.b);
    nx_store_f64(NX_FLOAT32, im, e.b + 4);
  } else {
    e.d[0] = re;
    e.d[1] = im;
  }
  return (intnat)nx_format((int32_t)dt, e.b, (char *)Bytes_val(buf),
                           caml_string_length(buf));
}
value nx_ml_format_complex_byte(value dt, value re, value im, value buf) {
  return Val_long(nx_ml_format_complex(Long_val(dt), Double_val(re),
                                       Double_val(im), buf));
}

/* ---- Bulk conversion (Nx_array.Convert) ---- */

/* Conversions spanning fewer bytes (source and destination together) keep
   the runtime lock. Releasing it costs next to nothing by itself
   (bench/results/ocaml_convert.md), but taking it back waits for whichever
   thread took it meanwhile: a call this small converts in a few
   microseconds, far less than that wait can be. */
#define RELEASE_BYTES ((uintnat)1 << 16)

/* Statuses of our own, beside the library's negative ones: the argument at
   fault, which Convert names in its message. */
#define ML_NEGATIVE_COUNT 1
#define ML_SRC_SHORT 2
#define ML_DST_SHORT 3

/* Whether n elements of dt fit in the bigarray ba's bytes. */
static int fits(int32_t dt, int64_t n, value ba, uintnat *bytes) {
  int64_t need;
  uintnat have = caml_ba_byte_size(Caml_ba_array_val(ba));
  if (nx_dtype_bytes(dt, n, &need) != NX_OK || (uint64_t)need > have) return 0;
  *bytes = (uintnat)need;
  return 1;
}

/* nx_convert of n elements from the data of the bigarray src into that of
   dst, every size checked first: NX_OK, a library status, or ML_*. Above
   RELEASE_BYTES the runtime lock is released during the conversion, so
   other domains and threads run meanwhile (their collections too). The
   CAMLparam roots keep both bigarrays, and so their data, alive; the data
   of a bigarray never moves, and the pointers are read before the lock is
   released, since the bigarrays' own blocks may move. */
value nx_ml_convert(value src_dt, value src, value dst_dt, value dst, value vn) {
  CAMLparam2(src, dst);
  int32_t sdt = (int32_t)Long_val(src_dt), ddt = (int32_t)Long_val(dst_dt);
  int64_t n = (int64_t)Long_val(vn);
  uintnat sbytes, dbytes;
  const void *s;
  void *d;
  int32_t st;
  if (n < 0) CAMLreturn(Val_int(ML_NEGATIVE_COUNT));
  if (!fits(sdt, n, src, &sbytes)) CAMLreturn(Val_int(ML_SRC_SHORT));
  if (!fits(ddt, n, dst, &dbytes)) CAMLreturn(Val_int(ML_DST_SHORT));
  s = Caml_ba_data_val(src);
  d = Caml_ba_data_val(dst);
  if (sbytes + dbytes < RELEASE_BYTES) {
    st = nx_convert(sdt, s, ddt, d, n);
  } else {
    caml_release_runtime_system();
    st = nx_convert(sdt, s, ddt, d, n);
    caml_acquire_runtime_system();
  }
  CAMLreturn(Val_int(st));
}

/* The library's sentence for a status: static, never NULL. */
value nx_ml_status_message(value st) {
  return caml_copy_string(nx_status_message((int32_t)Long_val(st)));
}

/* RELEASE_BYTES, for the benchmark that measures what releasing costs. */
value nx_ml_release_bytes(value unit) {
  (void)unit;
  return Val_long(RELEASE_BYTES);
}

"""cffi's description of nx_dtype._ffi, the package's extension module: the
declarations Python may call (checked by the compiler against
src/nx_dtype/_shim.c, which defines them) and how to build it.

setup.py hands `ffibuilder` to cffi (cffi_modules); cffi compiles the module
in API mode, whose calls cost a fraction of a ctypes call's."""

from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
# The C ABI's header, from the repository this directory is part of.
INCLUDE = HERE.parent / "include"

CDEF = """
#define NXPY_MAX_DIMS ...
#define NXPY_MAX_THREADS ...
#define NXPY_NIBBLES ...
#define NX_FORMAT_MAX ...
#define NX_DTYPE_COUNT ...
#define NX_KIND_FLOAT ...
#define NX_KIND_COMPLEX ...
#define NX_KIND_SIGNED ...
#define NX_KIND_UNSIGNED ...
#define NX_KIND_BOOLEAN ...
#define NX_ERR_OVERLAP ...
#define NX_ERR_NOT_VALUE ...

typedef struct nx_float_format {
  int32_t exponent_bits;
  int32_t fraction_bits;
  bool infinities;
  bool nans;
  double epsilon;
  double min_normal;
  double max_finite;
} nx_float_format;

typedef struct nxpy_side {
  int32_t dt;
  int32_t nibbles;
  void *base;
  int64_t offset;
  int64_t strides[64];
} nxpy_side;

typedef struct nxpy_job {
  int32_t ndim;
  int64_t shape[64];
  nxpy_side src;
  nxpy_side dst;
} nxpy_job;

int nxpy_open(const char *path, char *err, size_t cap);
uint32_t nxpy_abi_version(void);
const char *nxpy_version(void);
const char *nxpy_kernel_isa(void);
const char *nxpy_status_message(int32_t status);
int32_t nxpy_dtype_bits(int32_t dt);
int32_t nxpy_dtype_kind(int32_t dt);
const char *nxpy_dtype_name(int32_t dt);
int32_t nxpy_dtype_bytes(int32_t dt, int64_t n, int64_t *out);
int32_t nxpy_dtype_exact(int32_t from, int32_t to);
int32_t nxpy_dtype_float_format(int32_t dt, nx_float_format *out);
int32_t nxpy_dtype_min_value(int32_t dt, void *elem);
int32_t nxpy_dtype_max_value(int32_t dt, void *elem);
int32_t nxpy_load_f64(int32_t dt, const void *elem, double *out);
int32_t nxpy_is_value_f64(int32_t dt, double x);
int64_t nxpy_format(int32_t dt, const void *elem, char *buf, size_t cap);
int64_t nxpy_format_f64(int32_t dt, double x, char *buf, size_t cap);
int32_t nxpy_convert(int32_t sdt, const void *src, int32_t ddt, void *dst, int64_t n);
int32_t nxpy_convert_strided(int32_t sdt, const void *src, int64_t soff, int64_t sstride,
                             int32_t ddt, void *dst, int64_t doff, int64_t dstride, int64_t n);
int64_t nxpy_format_many(int32_t dt, const void *src, int64_t stride, int64_t n, char *out);
int32_t nxpy_run(const nxpy_job *job, int32_t threads);
int32_t nxpy_run_flat(int32_t src_dt, const void *src, int32_t dst_dt, void *dst, int64_t n, int32_t threads);
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
ffibuilder.set_source(
    "nx_dtype._ffi",
    (HERE / "src" / "nx_dtype" / "_shim.c").read_text(),
    include_dirs=[str(INCLUDE)],
    libraries=["dl", "pthread"],
    extra_compile_args=["-O2"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)

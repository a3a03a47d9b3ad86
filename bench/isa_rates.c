/* Rates of single 512-bit instructions on this CPU (make bench-isa): eight
 * independent chains of one instruction kind, or of two kinds alternated,
 * timed by the time-stamp counter. Prints TSC ticks per instruction and
 * the ratio to VPANDD's, so the figures compare kinds without knowing the
 * core clock. Context for the kernels' instruction choices (BENCHMARKS.md),
 * not a test. Needs AVX512-F/BW/VBMI and F16C. */
#include <immintrin.h>
#include <stdio.h>
#include <x86intrin.h>

#define N 40000000L
typedef __m512i V;

/* Eight chains; even ones apply E1, odd ones E2 (x is the chain's value). */
#define RATE(name, E1, E2)                                                      \
  static double rate_##name(void) {                                            \
    V a0 = _mm512_set1_epi32(1), a1 = _mm512_set1_epi32(2);                    \
    V a2 = _mm512_set1_epi32(3), a3 = _mm512_set1_epi32(4);                    \
    V a4 = _mm512_set1_epi32(5), a5 = _mm512_set1_epi32(6);                    \
    V a6 = _mm512_set1_epi32(7), a7 = _mm512_set1_epi32(8);                    \
    V b = _mm512_set1_epi16(0x1234), c = _mm512_set1_epi8(3);                  \
    __asm__ volatile("" : "+v"(b), "+v"(c));                                   \
    unsigned long long t0 = __rdtsc();                                         \
    for (long it = 0; it < N / 8; it++) {                                      \
      { V x = a0; a0 = E1; } { V x = a1; a1 = E2; }                            \
      { V x = a2; a2 = E1; } { V x = a3; a3 = E2; }                            \
      { V x = a4; a4 = E1; } { V x = a5; a5 = E2; }                            \
      { V x = a6; a6 = E1; } { V x = a7; a7 = E2; }                            \
      __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4),  \
                       "+v"(a5), "+v"(a6), "+v"(a7));                          \
    }                                                                          \
    return (double)(__rdtsc() - t0) / N;                                       \
  }

#define AND(x) _mm512_and_si512(x, b)
#define ADDW(x) _mm512_add_epi16(x, b)
#define MINUW(x) _mm512_min_epu16(x, b)
#define MAXUB(x) _mm512_max_epu8(x, b)
#define TERNLOG(x) _mm512_ternarylogic_epi32(x, b, c, 0xF8)
#define SUBUSW(x) _mm512_subs_epu16(x, b)
#define SRLW(x) _mm512_srli_epi16(x, 3)
#define MULTISHIFT(x) _mm512_multishift_epi64_epi8(b, x)
#define PERMB(x) _mm512_permutexvar_epi8(x, b)
#define PERMT2B(x) _mm512_permutex2var_epi8(x, c, b)
#define PERMT2W(x) _mm512_permutex2var_epi16(x, c, b)
#define CVTPD2PS(x)                                                            \
  _mm512_castps_si512(_mm512_castps256_ps512(_mm512_cvt_roundpd_ps(            \
      _mm512_castsi512_pd(x), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)))
#define CVTPS2PH(x)                                                            \
  _mm512_castsi256_si512(_mm512_cvtps_ph(_mm512_castsi512_ps(x), 0))
#define CMP_MIN(x)                                                             \
  _mm512_mask_min_epu16(b, _mm512_cmplt_epu16_mask(x, c), x, c)
#define PACKUSWB(x) _mm512_packus_epi16(x, b)
#define PERMW(x) _mm512_permutexvar_epi16(x, b)
#define MOVWB(x) _mm512_castsi256_si512(_mm512_cvtepi16_epi8(x))

RATE(vpandd, AND(x), AND(x))
RATE(vpaddw, ADDW(x), ADDW(x))
RATE(vpminuw, MINUW(x), MINUW(x))
RATE(vpmaxub, MAXUB(x), MAXUB(x))
RATE(vpternlogd, TERNLOG(x), TERNLOG(x))
RATE(vpsubusw, SUBUSW(x), SUBUSW(x))
RATE(vpsrlw, SRLW(x), SRLW(x))
RATE(vpmultishiftqb, MULTISHIFT(x), MULTISHIFT(x))
RATE(vpermb, PERMB(x), PERMB(x))
RATE(vpermt2b, PERMT2B(x), PERMT2B(x))
RATE(vpermt2w, PERMT2W(x), PERMT2W(x))
RATE(vcvtpd2ps, CVTPD2PS(x), CVTPD2PS(x))
RATE(vcvtps2ph, CVTPS2PH(x), CVTPS2PH(x))
RATE(vpermt2b_vpternlogd, PERMT2B(x), TERNLOG(x))
RATE(vpermt2b_vpandd, PERMT2B(x), AND(x))
RATE(vpermt2b_vpmultishiftqb, PERMT2B(x), MULTISHIFT(x))
RATE(vpackuswb, PACKUSWB(x), PACKUSWB(x))
RATE(vpermw, PERMW(x), PERMW(x))
RATE(vpmovwb, MOVWB(x), MOVWB(x))
RATE(cmp_min, CMP_MIN(x), CMP_MIN(x))
RATE(vpermb_vpsrlw, PERMB(x), SRLW(x))
RATE(vpermb_vpackuswb, PERMB(x), PACKUSWB(x))
RATE(vpermb_vpminuw, PERMB(x), MINUW(x))
RATE(vpminuw_vpsrlw, MINUW(x), SRLW(x))
RATE(vpminuw_vpsubusw, MINUW(x), SUBUSW(x))

int main(void) {
  struct {
    const char *name;
    double (*f)(void);
  } t[] = {
      {"vpandd", rate_vpandd},
      {"vpaddw", rate_vpaddw},
      {"vpminuw", rate_vpminuw},
      {"vpmaxub", rate_vpmaxub},
      {"vpternlogd", rate_vpternlogd},
      {"vpsubusw", rate_vpsubusw},
      {"vpsrlw", rate_vpsrlw},
      {"vpmultishiftqb", rate_vpmultishiftqb},
      {"vpermb", rate_vpermb},
      {"vpermt2b", rate_vpermt2b},
      {"vpermt2w", rate_vpermt2w},
      {"vcvtpd2ps", rate_vcvtpd2ps},
      {"vcvtps2ph", rate_vcvtps2ph},
      {"vpermt2b + vpternlogd", rate_vpermt2b_vpternlogd},
      {"vpermt2b + vpandd", rate_vpermt2b_vpandd},
      {"vpermt2b + vpmultishiftqb", rate_vpermt2b_vpmultishiftqb},
      {"vpackuswb", rate_vpackuswb},
      {"vpermw", rate_vpermw},
      {"vpmovwb", rate_vpmovwb},
      {"vpcmpuw (mask) + vpminuw{k}", rate_cmp_min},
      {"vpermb + vpsrlw", rate_vpermb_vpsrlw},
      {"vpermb + vpackuswb", rate_vpermb_vpackuswb},
      {"vpermb + vpminuw", rate_vpermb_vpminuw},
      {"vpminuw + vpsrlw", rate_vpminuw_vpsrlw},
      {"vpminuw + vpsubusw", rate_vpminuw_vpsubusw},
  };
  size_t k = sizeof t / sizeof t[0];
  double base = 0;
  printf("%-28s %10s %14s\n", "instruction(s)", "ticks/ins", "x vpandd's");
  for (size_t i = 0; i < k; i++) {
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
      double v = t[i].f();
      if (v < best)
        best = v;
    }
    if (i == 0)
      base = best;
    printf("%-28s %10.3f %14.2f\n", t[i].name, best, best / base);
  }
  return 0;
}

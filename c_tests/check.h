/* A counting CHECK for the C tests: each failure is reported with its line,
 * counting goes on, and check_report() prints "N passed, N failed" and gives
 * the exit status. Not assert.h: one failure must not hide the others. */
#ifndef NX_CHECK_H
#define NX_CHECK_H

#include <stdio.h>

static long check_passed, check_failed;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (cond) {                                                              \
      check_passed++;                                                        \
    } else {                                                                 \
      check_failed++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

/* CHECK with a formatted explanation on failure. */
#define CHECKF(cond, ...)                                                    \
  do {                                                                       \
    if (cond) {                                                              \
      check_passed++;                                                        \
    } else {                                                                 \
      check_failed++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                          \
      fputc('\n', stderr);                                                   \
    }                                                                        \
  } while (0)

static int check_report(const char *suite) {
  printf("%s: %ld passed, %ld failed\n", suite, check_passed, check_failed);
  return check_failed == 0 ? 0 : 1;
}

#endif

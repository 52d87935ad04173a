/* SPDX-License-Identifier: MIT */
/* Test assertion bookkeeping. */
#include "check.h"

#include <stdarg.h>

int check_pass, check_fail;

void check_report(int ok, const char *file, int line, const char *fmt, ...) {
  if (ok) {
    check_pass++;
    return;
  }
  check_fail++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d: check failed: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int check_summary(const char *name) {
  printf("%s: %d checks passed, %d failed\n", name, check_pass, check_fail);
  return check_fail ? 1 : 0;
}

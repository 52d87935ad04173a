/* SPDX-License-Identifier: MIT */
/* Inline test scenes written with ' for " to stay readable, printf-style (one static buffer:
   use the text before the next call). */
#ifndef SIM_TEST_JSON_FMT_H
#define SIM_TEST_JSON_FMT_H
#include <stdarg.h>
#include <stdio.h>

static inline const char *json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *json(const char *fmt, ...) {
  static char buf[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (char *p = buf; *p; p++)
    if (*p == '\'') *p = '"';
  return buf;
}

#endif

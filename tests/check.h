/* SPDX-License-Identifier: MIT */
/* Minimal test assertions: each failure prints file:line and the values; main returns
   check_summary(), which prints "N passed, N failed" and exits non-zero on failure. */
#ifndef SIM_CHECK_H
#define SIM_CHECK_H
#include <math.h>
#include <stdio.h>

extern int check_pass, check_fail;
void check_report(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int check_summary(const char *name);

#define CHECK(cond) check_report(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define CHECK_INT(a, b)                                                                   \
  do {                                                                                    \
    long long a_ = (long long)(a), b_ = (long long)(b);                                   \
    check_report(a_ == b_, __FILE__, __LINE__, "%s == %s (%lld vs %lld)", #a, #b, a_, b_); \
  } while (0)
#define CHECK_NEAR(a, b, tol)                                                             \
  do {                                                                                    \
    double a_ = (a), b_ = (b), t_ = (tol);                                                \
    check_report(fabs(a_ - b_) <= t_, __FILE__, __LINE__, "|%s - %s| <= %g (%.17g vs %.17g)", \
                 #a, #b, t_, a_, b_);                                                     \
  } while (0)
#define CHECK_STR_CONTAINS(hay, needle) \
  check_report(strstr((hay), (needle)) != NULL, __FILE__, __LINE__, "\"%s\" contains \"%s\"", (hay), (needle))

#endif

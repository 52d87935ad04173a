/* SPDX-License-Identifier: MIT */
/* Wall-clock timer in milliseconds (monotonic). */
#ifndef SIM_TIMER_H
#define SIM_TIMER_H
#include <time.h>

static inline double sim_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

#endif

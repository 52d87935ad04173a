/* SPDX-License-Identifier: MIT */
/* Status recording. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

int sim_fail(sim_status *st, int code, const char *fmt, ...) {
  if (!st) return code;
  if (st->code != SIM_OK) return st->code; /* keep the first failure */
  st->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->msg, sizeof st->msg, fmt, ap);
  va_end(ap);
  return code;
}

void sim_status_clear(sim_status *st) {
  st->code = SIM_OK;
  st->msg[0] = '\0';
}

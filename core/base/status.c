/* SPDX-License-Identifier: MIT */
/* Status recording. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int sim_status_prefix(sim_status *st, const char *who) {
  size_t n = strlen(who);
  if (st->code == SIM_OK || !n || (!strncmp(st->msg, who, n) && st->msg[n] == ':')) return st->code;
  char was[SIM_MSG_MAX];
  memcpy(was, st->msg, sizeof was);
  int w = snprintf(st->msg, sizeof st->msg, "%s: ", who);
  if (w > 0 && (size_t)w < sizeof st->msg) { /* then as much of the message as fits */
    size_t len = strnlen(was, sizeof st->msg - (size_t)w - 1);
    memcpy(st->msg + w, was, len);
    st->msg[(size_t)w + len] = '\0';
  }
  return st->code;
}

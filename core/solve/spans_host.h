/* SPDX-License-Identifier: MIT */
/* The backend seam's timing spans (backend.h mark and settle) for a backend whose operations
   finish before they return: host clock readings. */
#ifndef SIM_SPANS_HOST_H
#define SIM_SPANS_HOST_H
#include "../base/timer.h"
#include "backend.h"

typedef struct sim_host_spans {
  double open[SIM_SPAN_COUNT]; /* when the bucket's open span began (ms) */
  double ms[SIM_SPAN_COUNT];   /* closed spans not yet settled */
} sim_host_spans;

static inline void sim_host_span_mark(sim_host_spans *s, sim_span_id id, int close) {
  double now = sim_now_ms();
  if (close)
    s->ms[id] += now - s->open[id];
  else
    s->open[id] = now;
}

static inline void sim_host_spans_settle(sim_host_spans *s, double ms[SIM_SPAN_COUNT]) {
  for (int i = 0; i < SIM_SPAN_COUNT; i++) ms[i] += s->ms[i], s->ms[i] = 0.0;
}

#endif

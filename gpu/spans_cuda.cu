// SPDX-License-Identifier: MIT
// The CUDA backend's timing spans (core/solve/backend.h mark and settle): a CUDA event recorded
// on the backend's stream at each mark, read after one synchronisation per frame, so the
// elastic operations queue their kernels without waiting for them. Events are created as the
// frame needs them and reused frame after frame.
#include <stdlib.h>
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/alloc.h"
}

// Room for one more event: grows the arrays and creates the event on first use.
static int reserve(cuda_spans *s, sim_status *st) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    cudaEvent_t *ev = (cudaEvent_t *)sim_realloc(s->ev, sizeof *ev * (size_t)cap);
    if (ev) s->ev = ev;
    int *opened = ev ? (int *)sim_realloc(s->opened_by, sizeof(int) * (size_t)cap) : NULL;
    if (opened) s->opened_by = opened;
    unsigned char *b = opened ? (unsigned char *)sim_realloc(s->bucket, (size_t)cap) : NULL;
    if (!b) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (timing events)");
    s->bucket = b;
    s->cap = cap;
  }
  if (s->n == s->created) {
    SIM_CU(cudaEventCreate(&s->ev[s->n]), st);
    s->created++;
  }
  return SIM_OK;
}

int sim_cuda_mark(sim_backend *be, sim_span_id id, int close, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_spans *s = &c->spans;
  if ((int)id < 0 || id >= SIM_SPAN_COUNT)
    return sim_fail(st, SIM_ERR_USAGE, "timing span %d: no such bucket", (int)id);
  int rc = reserve(s, st);
  if (rc) return rc;
  SIM_CU(cudaEventRecord(s->ev[s->n], c->stream), st);
  s->bucket[s->n] = (unsigned char)id;
  s->opened_by[s->n] = close ? s->open[id] : -1;
  s->open[id] = close ? -1 : s->n;
  s->n++;
  return SIM_OK;
}

int sim_cuda_settle(sim_backend *be, double ms[SIM_SPAN_COUNT], sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_spans *s = &c->spans;
  SIM_CU(cudaGetLastError(), st);
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  int n = s->n;
  s->n = 0;
  for (int b = 0; b < SIM_SPAN_COUNT; b++) s->open[b] = -1;
  for (int i = 0; i < n; i++) {
    int o = s->opened_by[i];
    if (o < 0) continue;
    float t = 0.0f;
    SIM_CU(cudaEventElapsedTime(&t, s->ev[o], s->ev[i]), st);
    ms[s->bucket[i]] += t;
  }
  return SIM_OK;
}

void sim_cuda_spans_destroy(cuda_spans *s) {
  for (int i = 0; i < s->created; i++) cudaEventDestroy(s->ev[i]);
  sim_free(s->ev);
  sim_free(s->opened_by);
  sim_free(s->bucket);
  memset(s, 0, sizeof *s);
}

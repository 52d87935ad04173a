// SPDX-License-Identifier: MIT
// CUDA timing events: a pool recorded in turn and read after a synchronisation, and on it the
// CUDA backend's timing spans (core/solve/backend.h mark and settle): an event on the backend's
// stream at each mark, read after one synchronisation per frame, so the elastic operations
// queue their kernels without waiting for them. Events are created as needed and reused. The
// elastic L-G iterations' graph (lg_graph.cu) keeps spans of its own, read at the same settle.
#include <stdio.h>
#include <string.h>

#include "cuda_ctx.h"
#include "range_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
}

int sim_cuda_events_reserve(cuda_events *p, int n, sim_status *st) {
  if (n > p->cap) {
    int cap = p->cap ? p->cap : 64;
    while (cap < n) cap *= 2;
    cudaEvent_t *ev = (cudaEvent_t *)sim_realloc(p->ev, sizeof *ev * (size_t)cap);
    if (ev) p->ev = ev;
    int *t = ev ? (int *)sim_realloc(p->tag, sizeof(int) * (size_t)cap) : NULL;
    if (!t) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (timing events)");
    p->tag = t;
    p->cap = cap;
  }
  for (; p->created < n; p->created++) SIM_CU(cudaEventCreate(&p->ev[p->created]), st);
  return SIM_OK;
}

int sim_cuda_event_record(cuda_events *p, cudaStream_t s, int tag, sim_status *st) {
  int rc = sim_cuda_events_reserve(p, p->used + 1, st);
  if (rc) return rc;
  if (p->external) /* inside a capture: a node that records it at each launch of the graph */
    SIM_CU(cudaEventRecordWithFlags(p->ev[p->used], s, cudaEventRecordExternal), st);
  else
    SIM_CU(cudaEventRecord(p->ev[p->used], s), st);
  p->tag[p->used++] = tag;
  return SIM_OK;
}

int sim_cuda_event_ms(const cuda_events *p, int a, int b, double *ms, sim_status *st) {
  float t = 0.0f;
  SIM_CU(cudaEventElapsedTime(&t, p->ev[a], p->ev[b]), st);
  *ms = t;
  return SIM_OK;
}

void sim_cuda_events_free(cuda_events *p) {
  for (int i = 0; i < p->created; i++) cudaEventDestroy(p->ev[i]);
  sim_free(p->ev);
  sim_free(p->tag);
  memset(p, 0, sizeof *p);
}

int sim_cuda_graph_capture(cuda_ctx *c, cudaGraphExec_t *exec, cuda_events *ev,
                           int (*queue)(void *arg, sim_status *st), void *arg, const char *what,
                           sim_status *st) {
  cudaStream_t sm = c->stream;
  cudaGraph_t g = NULL;
  int rc = SIM_OK;
  cudaError_t e = cudaStreamBeginCapture(sm, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess) {
    if (ev) ev->external = 1;
    rc = queue(arg, st);
    if (ev) ev->external = 0;
    e = cudaStreamEndCapture(sm, &g); /* ends it whatever happened inside */
  }
  if (!rc && e == cudaSuccess && c->pdl) rc = sim_cuda_graph_pdl(g, st);
  if (!rc && e == cudaSuccess && *exec && c->pdl) { /* instantiated anew: an update may not */
    cudaGraphExecDestroy(*exec); /* compare its edges' types, which follow its kernels' names */
    *exec = NULL;
  }
  if (!rc && e == cudaSuccess && *exec) {
    cudaGraphExecUpdateResultInfo info;
    if (cudaGraphExecUpdate(*exec, g, &info) != cudaSuccess) {
      cudaGetLastError(); /* not an error: instantiated anew below */
      cudaGraphExecDestroy(*exec);
      *exec = NULL;
    }
  }
  if (!rc && e == cudaSuccess && !*exec) e = cudaGraphInstantiateWithFlags(exec, g, 0);
  if (g) cudaGraphDestroy(g);
  if (!rc && e == cudaSuccess) return SIM_OK;
  char why[SIM_MSG_MAX]; /* a call the capture refused, or the graph */
  snprintf(why, sizeof why, "%.900s", rc ? st->msg : cudaGetErrorString(e));
  sim_status_clear(st); /* the capture's failure replaces the call's (sim_fail keeps a first) */
  cudaGetLastError();
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = NULL;
  return sim_fail(st, SIM_ERR_DEVICE, "CUDA: capturing %s into a graph failed (%s)", what, why);
}

int sim_cuda_graph_fallback(cuda_ctx *c, int *on, sim_status *st) {
  cudaGetLastError();
  cudaError_t e = cudaStreamSynchronize(c->stream); /* the work queued before the capture */
  if (e != cudaSuccess) {
    size_t n = strlen(st->msg);
    if (n + 1 < sizeof st->msg)
      snprintf(st->msg + n, sizeof st->msg - n, ", and then the device failed (%.200s)",
               cudaGetErrorString(e));
    return st->code;
  }
  *on = 0;
  c->be->notes++;
  snprintf(c->be->note, sizeof c->be->note,
           "%.900s; its kernels are launched one by one from here on (SIMCTL_CUDA_GRAPH=off "
           "skips the capture)",
           st->msg);
  sim_status_clear(st);
  return SIM_OK;
}

int sim_cuda_span_mark(cuda_spans *s, cudaStream_t stream, sim_span_id id, int close,
                       sim_status *st) {
  if ((int)id < 0 || id >= SIM_SPAN_COUNT)
    return sim_fail(st, SIM_ERR_USAGE, "timing span %d: no such bucket", (int)id);
  int at = s->pool.used, opened = s->open[id];
  int tag = close && opened >= 0 ? opened * SIM_SPAN_COUNT + (int)id : -1;
  int rc = sim_cuda_event_record(&s->pool, stream, tag, st);
  if (!rc) s->open[id] = close ? -1 : at;
  return rc;
}

int sim_cuda_spans_read(const cuda_spans *s, double ms[SIM_SPAN_COUNT], sim_status *st) {
  for (int i = 0; i < s->pool.used; i++) {
    int tag = s->pool.tag[i];
    double t = 0.0;
    if (tag < 0) continue;
    int rc = sim_cuda_event_ms(&s->pool, tag / SIM_SPAN_COUNT, i, &t, st);
    if (rc) return rc;
    ms[tag % SIM_SPAN_COUNT] += t;
  }
  return SIM_OK;
}

int sim_cuda_mark(sim_backend *be, sim_span_id id, int close, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  /* detection's span is the host's work between its marks: a range of its own (range_cuda.h) */
  if (id == SIM_SPAN_CD && !close) sim_cuda_range_push("cd: collision detection");
  if (id == SIM_SPAN_CD && close) sim_cuda_range_pop();
  return sim_cuda_span_mark(&c->spans, c->stream, id, close, st);
}

int sim_cuda_settle(sim_backend *be, double ms[SIM_SPAN_COUNT], sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_spans *s = &c->spans;
  sim_cuda_range range("settle: wait for the frame");
  SIM_CU(cudaGetLastError(), st);
  int rc = sim_cuda_contact_settle(c, 0, st); /* the device Newton solve's results: queued */
  if (rc) return rc;
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  rc = sim_cuda_contact_settle(c, 1, st); /* and taken */
  if (!rc) rc = sim_cuda_spans_read(s, ms, st);
  s->pool.used = 0;
  for (int b = 0; b < SIM_SPAN_COUNT; b++) s->open[b] = -1;
  if (!rc && c->lg.pending) rc = sim_cuda_spans_read(&c->lg.spans, ms, st); /* lg_graph.cu */
  c->lg.pending = 0;
  return rc;
}

// SPDX-License-Identifier: MIT
// A step's elastic L-G iterations (no contact) as one CUDA graph: the local and global steps'
// kernels of all k iterations, with the events of their LOCAL and GLOBAL spans, captured at the
// second step and launched again at every later one (one launch instead of some 10 launches and
// 4 event records per iteration). The first step launches them one by one, so that what the
// libraries and the driver set up at a first call (cuSPARSE's products and triangular solves)
// happens outside a capture, which would refuse an allocation or a synchronisation. Every
// kernel argument is a device pointer or a constant of the model, the same at every step,
// except Chebyshev's weights, which the host computes from its count: the count starts at 0
// after predict, so the weights are the same at every step; a graph captured from another
// count is captured again. The graph's spans are its own events,
// recorded by each launch (cudaEventRecordExternal) and read at the next settle. With
// SIMCTL_CUDA_GRAPH=off the same kernels and marks are launched one by one, as they are for
// the rest of a run after a capture the driver refused (a backend note says so).
#include "cuda_ctx.h"

extern "C" {
#include "../core/solve/backend.h"
}

// k iterations queued on the stream, their spans marked in s.
static int queue(sim_backend *be, int k, cuda_spans *s, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  int rc = SIM_OK;
  for (int i = 0; !rc && i < k; i++) {
    rc = sim_cuda_span_mark(s, c->stream, SIM_SPAN_LOCAL, 0, st);
    if (!rc) rc = sim_cuda_local_step(be, st);
    if (!rc) rc = sim_cuda_span_mark(s, c->stream, SIM_SPAN_LOCAL, 1, st);
    if (!rc) rc = sim_cuda_span_mark(s, c->stream, SIM_SPAN_GLOBAL, 0, st);
    if (!rc) rc = sim_cuda_global_step(be, st);
    if (!rc) rc = sim_cuda_span_mark(s, c->stream, SIM_SPAN_GLOBAL, 1, st);
  }
  return rc;
}

typedef struct lg_capture {
  sim_backend *be;
  int k;
} lg_capture;

static int queue_graphed(void *arg, sim_status *st) {
  lg_capture *a = (lg_capture *)arg;
  return queue(a->be, a->k, &CCTX(a->be)->lg.spans, st);
}

// The k iterations captured into c->lg.exec; nothing runs until it is launched. The capture
// advances Chebyshev's count on the host as each launch will: kept as the launches' outcome,
// then undone.
static int capture(sim_backend *be, int k, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_lg *L = &c->lg;
  /* the events exist before the capture, which records them at each launch */
  int rc = sim_cuda_events_reserve(&L->spans.pool, 4 * k, st);
  if (rc) return rc;
  L->spans.pool.used = 0;
  for (int b = 0; b < SIM_SPAN_COUNT; b++) L->spans.open[b] = -1;
  L->iter0 = c->gs.iter;
  double omega0 = c->gs.omega;
  lg_capture arg = {be, k};
  rc = sim_cuda_graph_capture(c, &L->exec, &L->spans.pool, queue_graphed, &arg,
                              "the L-G iterations", st);
  L->iter1 = c->gs.iter, L->omega1 = c->gs.omega;
  c->gs.iter = L->iter0, c->gs.omega = omega0;
  L->k = rc ? 0 : k;
  return rc;
}

int sim_cuda_lg_iterations(sim_backend *be, int k, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_lg *L = &c->lg;
  if (k <= 0) return SIM_OK;
  /* launched one by one: graphs off, the first step, or the graph's spans not yet read (a
     second call before a settle, which the stepper never makes) */
  if (!L->on || !L->warm || L->pending) {
    L->warm = 1;
    return queue(be, k, &c->spans, st);
  }
  if (!L->exec || L->k != k || L->iter0 != c->gs.iter) {
    int rc = capture(be, k, st);
    /* refused (nothing of it ran): launched one by one, now and at every later step */
    if (rc) return sim_cuda_graph_fallback(c, &L->on, st) ? st->code : queue(be, k, &c->spans, st);
  }
  SIM_CU(cudaGraphLaunch(L->exec, c->stream), st);
  c->gs.iter = L->iter1, c->gs.omega = L->omega1;
  L->pending = 1;
  return SIM_OK;
}

int sim_cuda_lg_create(cuda_ctx *c, sim_status *st) {
  for (int b = 0; b < SIM_SPAN_COUNT; b++) c->lg.spans.open[b] = -1;
  return sim_cuda_env_choice("SIMCTL_CUDA_GRAPH", "off", "on", 1, &c->lg.on, st);
}

void sim_cuda_lg_destroy(cuda_ctx *c) {
  if (c->lg.exec) cudaGraphExecDestroy(c->lg.exec);
  sim_cuda_events_free(&c->lg.spans.pool);
  c->lg.exec = NULL;
}

// SPDX-License-Identifier: MIT
// SIMCTL_CUDA_TUNE=on: the global step's two gathers tuned on the device at the backend's
// creation. Each product has variants that add the same terms in the same order, so give the
// same bits (test_gpu_backend): S's rows read through their column indices or as intervals of
// P b (SIMCTL_CUDA_S_ROWS), its columns through their row indices or as runs (SIMCTL_CUDA_S_COLS),
// and each thread's loads issued 1, 4 or 8 entries at a time (SIMCTL_CUDA_GATHER_BATCH). Which is
// fastest depends on the GPU and on S (a thread's chain of dependent loads against the bytes
// moved: scripts/kernel_sass.sh), so each product's variants are timed here, on this S, and the
// fastest kept: whatever is picked, the run's results are the same. A dimension set in the
// environment is left as set. The row chunk and the column warps are not tuned: they change
// how a row's or a column's sum is split, so the last bits.
#include <math.h>
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/timer.h"
}

// The timing: SIM_TUNE_WARM_MS of calls first (a device idle until now may still be raising
// its clocks: the first variant timed would pay for it), then each variant's call alone, once
// its kernel is loaded, to size its rounds (SIM_TUNE_ROUND_MS of calls each, at most
// SIM_TUNE_REPS), then SIM_TUNE_ROUNDS rounds that take every variant in turn (a drift of the
// clocks falls on all alike), each variant's time the least of its rounds' means.
#define SIM_TUNE_WARM_MS 5.0
#define SIM_TUNE_ROUND_MS 2.0
#define SIM_TUNE_REPS 10
#define SIM_TUNE_ROUNDS 3

// The mean milliseconds of `calls` back-to-back calls of product `which`, by events ev.
static int time_calls(cuda_ctx *c, const cudaEvent_t ev[2], int which, double *dst, int calls,
                      double *ms, sim_status *st) {
  cudaEventRecord(ev[0], c->stream);
  for (int k = 0; k < calls; k++) {
    int rc = sim_cuda_S_queue(c, which, dst, st);
    if (rc) return rc;
  }
  cudaEventRecord(ev[1], c->stream);
  float f = 0.0f;
  if (cudaEventSynchronize(ev[1]) != cudaSuccess ||
      cudaEventElapsedTime(&f, ev[0], ev[1]) != cudaSuccess)
    return sim_fail(st, SIM_ERR_DEVICE, "CUDA: tuning the global step: %s",
                    cudaGetErrorString(cudaGetLastError()));
  *ms = (double)f / calls;
  return SIM_OK;
}

// Sets S to variant v (its product's layout and batch).
static void set_variant(cuda_S *S, const sim_gather_variant *v) {
  if (v->product == 0) {
    S->row_interval = v->layout;
    S->row_batch = v->batch;
  } else {
    S->col_runs = v->layout;
    S->col_batch = v->batch;
  }
}

// Whether variant (product, layout, batch) can run on this S and is free to be tried.
static int can_try(const cuda_S *S, int product, int layout, int batch) {
  const int fix_layout = S->tune_fixed & (product == 0 ? SIM_TUNE_FIX_ROWS : SIM_TUNE_FIX_COLS);
  const int now_layout = product == 0 ? S->row_interval : S->col_runs,
            now_batch = product == 0 ? S->row_batch : S->col_batch;
  if (fix_layout && layout != now_layout) return 0;
  if ((S->tune_fixed & SIM_TUNE_FIX_BATCH) && batch != now_batch) return 0;
  if (product == 0) return layout ? S->perm != NULL : S->row_col != NULL;
  if (layout && !S->runs) return 0; /* runs not built (tune: not exact for this S) */
  return !(layout && batch > 1 && S->runs_most > SIM_CUDA_RUNS_SHARED);
}

// The arrays of the layouts not kept, freed (and off the device's count).
static void release_unkept(cuda_ctx *c) {
  cuda_S *S = &c->S;
  const size_t n = (size_t)S->n;
  if (S->row_interval) {
    sim_cuda_release(c, S->row_col, sizeof(int) * (size_t)S->nnz);
    S->row_col = NULL;
  } else {
    sim_cuda_release(c, S->perm, sizeof(int) * n);
    sim_cuda_release(c, S->iperm, sizeof(int) * n);
    sim_cuda_release(c, S->bp, sizeof(double) * 3 * n);
    sim_cuda_release(c, S->bp_rhs, sizeof(double) * 3 * n);
    S->perm = S->iperm = NULL;
    S->bp = S->bp_rhs = NULL;
  }
  if (!S->col_runs && S->runs) {
    sim_cuda_release(c, S->col_top, sizeof(int) * n);
    sim_cuda_release(c, S->run_ptr, sizeof(int) * (n + 1));
    sim_cuda_release(c, S->runs, sizeof(int) * 2 * (size_t)S->nruns);
    S->col_top = S->run_ptr = S->runs = NULL;
    S->nruns = 0;
  }
}

// The variants of product p that can be tried, into t->v from t->n on; how many.
static int list_variants(const cuda_S *S, int p, sim_gather_tuning *t) {
  static const int batches[3] = {1, 4, 8};
  int n = 0;
  for (int layout = 0; layout < 2; layout++)
    for (int b = 0; b < 3; b++)
      if (can_try(S, p, layout, batches[b]) && t->n < SIM_GATHER_VARIANTS) {
        sim_gather_variant *v = &t->v[t->n++];
        v->product = p, v->layout = layout, v->batch = batches[b], v->us = HUGE_VAL;
        n++;
      }
  return n;
}

// S set to variant v and what its product reads queued: with interval rows, P rhs (rhs's copy,
// as its writers keep it).
static int take_variant(cuda_ctx *c, const sim_gather_variant *v, sim_status *st) {
  set_variant(&c->S, v);
  return v->product == 0 ? sim_cuda_S_permute_rhs(c, st) : SIM_OK;
}

// Product p's variants v[0 .. n) timed (warm-up, sizing, interleaved rounds); its fastest kept.
static int tune_product(cuda_ctx *c, const cudaEvent_t ev[2], sim_gather_variant *v, int n,
                        double *dst, int *pick, sim_status *st) {
  int reps[SIM_GATHER_VARIANTS];
  double ms = 0.0;
  const int which = v[0].product + 1;
  int rc = take_variant(c, &v[0], st);
  if (!rc) rc = time_calls(c, ev, which, dst, 1, &ms, st); /* loads the kernel */
  if (!rc) rc = time_calls(c, ev, which, dst, 1, &ms, st);
  if (!rc && ms > 0.0) { /* a burst of calls: the device's clocks up before any is timed */
    const double k = SIM_TUNE_WARM_MS / ms;
    rc = time_calls(c, ev, which, dst, k > 200.0 ? 200 : k < 1.0 ? 1 : (int)k, &ms, st);
  }
  for (int i = 0; i < n && !rc; i++) { /* each loaded, then alone: its rounds' length */
    rc = take_variant(c, &v[i], st);
    if (!rc) rc = time_calls(c, ev, which, dst, 1, &ms, st);
    if (!rc) rc = time_calls(c, ev, which, dst, 1, &ms, st);
    const double r = ms > 0.0 ? SIM_TUNE_ROUND_MS / ms : SIM_TUNE_REPS;
    reps[i] = r < 1.0 ? 1 : r > SIM_TUNE_REPS ? SIM_TUNE_REPS : (int)r;
  }
  for (int round = 0; round < SIM_TUNE_ROUNDS && !rc; round++)
    for (int i = 0; i < n && !rc; i++) {
      rc = take_variant(c, &v[i], st);
      if (!rc) rc = time_calls(c, ev, which, dst, reps[i], &ms, st);
      if (!rc) v[i].us = fmin(v[i].us, 1e3 * ms);
    }
  for (int i = 0; i < n && !rc; i++)
    if (*pick < 0 || v[i].us < v[*pick].us) *pick = i;
  return rc;
}

int sim_cuda_global_tune(cuda_ctx *c, sim_status *st) {
  cuda_S *S = &c->S;
  sim_gather_tuning *t = &S->tuned;
  memset(t, 0, sizeof *t);
  t->on = 1;
  t->pick[0] = t->pick[1] = -1;
  if (S->n == 0) return SIM_OK;
  const double t0 = sim_now_ms();
  double *dst = NULL; /* S^T y's output: the vertices' 3 columns, not the state's q */
  int rc = sim_cuda_new<double>(c, &dst, 3 * (size_t)c->m->n, NULL, st);
  cudaEvent_t ev[2] = {NULL, NULL};
  for (int i = 0; i < 2 && !rc; i++)
    if (cudaEventCreate(&ev[i]) != cudaSuccess)
      rc = sim_fail(st, SIM_ERR_DEVICE, "CUDA: cannot make events to tune the global step");
  for (int p = 0; p < 2 && !rc; p++) {
    const int first = t->n, n = list_variants(S, p, t);
    int pick = -1;
    rc = n > 0 ? tune_product(c, ev, &t->v[first], n, dst, &pick, st) : SIM_OK;
    if (!rc && pick >= 0) {
      t->pick[p] = first + pick;
      set_variant(S, &t->v[t->pick[p]]);
    }
  }
  for (int i = 0; i < 2; i++)
    if (ev[i]) cudaEventDestroy(ev[i]);
  sim_cuda_release(c, dst, sizeof(double) * 3 * (size_t)c->m->n);
  if (rc) return rc;
  release_unkept(c);
  t->ms = sim_now_ms() - t0;
  return SIM_OK;
}

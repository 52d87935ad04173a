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

// A product's call timed: one call to warm up (and load the kernel), one alone to size the
// rounds (SIM_TUNE_ROUND_MS each, at most SIM_TUNE_REPS calls), then the least of
// SIM_TUNE_ROUNDS rounds' means, microseconds, by events on the backend's stream.
#define SIM_TUNE_ROUND_MS 2.0
#define SIM_TUNE_REPS 10
#define SIM_TUNE_ROUNDS 3

static int time_call(cuda_ctx *c, int which, double *dst, double *us, sim_status *st) {
  cudaEvent_t ev[2] = {NULL, NULL};
  int rc = SIM_OK;
  for (int i = 0; i < 2 && !rc; i++)
    if (cudaEventCreate(&ev[i]) != cudaSuccess)
      rc = sim_fail(st, SIM_ERR_DEVICE, "CUDA: cannot make events to tune the global step");
  double best = HUGE_VAL;
  int reps = 1;
  for (int round = -2; !rc && round < SIM_TUNE_ROUNDS; round++) {
    const int calls = round < 0 ? 1 : reps;
    cudaEventRecord(ev[0], c->stream);
    for (int k = 0; k < calls && !rc; k++) rc = sim_cuda_S_queue(c, which, dst, st);
    cudaEventRecord(ev[1], c->stream);
    float ms = 0.0f;
    if (!rc && (cudaEventSynchronize(ev[1]) != cudaSuccess ||
                cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess))
      rc = sim_fail(st, SIM_ERR_DEVICE, "CUDA: tuning the global step: %s",
                    cudaGetErrorString(cudaGetLastError()));
    if (rc) break;
    if (round == -1) { /* the call alone: the rounds' length */
      const double r = ms > 0.0f ? SIM_TUNE_ROUND_MS / ms : SIM_TUNE_REPS;
      reps = r < 1.0 ? 1 : r > SIM_TUNE_REPS ? SIM_TUNE_REPS : (int)r;
    } else if (round >= 0) {
      best = fmin(best, 1e3 * ms / calls);
    }
  }
  for (int i = 0; i < 2; i++)
    if (ev[i]) cudaEventDestroy(ev[i]);
  *us = best;
  return rc;
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
  static const int batches[3] = {1, 4, 8};
  for (int p = 0; p < 2 && !rc; p++) {
    for (int layout = 0; layout < 2 && !rc; layout++)
      for (int b = 0; b < 3 && !rc; b++) {
        if (!can_try(S, p, layout, batches[b]) || t->n >= SIM_GATHER_VARIANTS) continue;
        sim_gather_variant *v = &t->v[t->n];
        v->product = p, v->layout = layout, v->batch = batches[b];
        set_variant(S, v);
        /* the row gather reads P rhs with interval rows: rhs's copy, as its writers keep it */
        if (p == 0) rc = sim_cuda_S_permute_rhs(c, st);
        if (!rc) rc = time_call(c, p + 1, dst, &v->us, st);
        if (!rc && (t->pick[p] < 0 || v->us < t->v[t->pick[p]].us)) t->pick[p] = t->n;
        t->n++;
      }
    if (!rc && t->pick[p] >= 0) set_variant(S, &t->v[t->pick[p]]);
  }
  sim_cuda_release(c, dst, sizeof(double) * 3 * (size_t)c->m->n);
  if (rc) return rc;
  release_unkept(c);
  t->ms = sim_now_ms() - t0;
  return SIM_OK;
}

// SPDX-License-Identifier: MIT
// The CUDA backend's contact stage: the shared stage (core/contact/stage.h: warm start, W from
// the host's S, the non-smooth Newton steps on 3 nc host vectors) with device operations for
// what touches the state: H q (a thread per contact), H^T lambda gathered per free unknown (in
// contact order, so each sum adds the CPU's terms in the CPU's order), the unconstrained solve
// and the correction with S on the device, and the matrix-free W x = H A^{-1} H^T x. The rows
// are built on the device each step from the contacts, gathered there from the detector's lists
// where it found them (rows_cuda.cu).
// Only 3 nc vectors cross to the host (H q, W x), and once per step a dense W to the device.
#include <stdlib.h>
#include <string.h>

#include "contact_cuda.h"
#include "nsn_state.h"
#include "pdl.cuh"
#include "range_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
}

// out[r] = H_{3j+r} x for contact j's row r (x by vertex; free_only skips pinned terms, as H_free
// does). The CPU's arithmetic (rows.c): y = sum_a beta_a x_a, then c_r . y; a cable's
// sum_t g_t . x_t in its first row, 0 in the others.
static __device__ void h_row(const cuda_row &r, const int *tvert, const int *tfree,
                             const double *tcoef, int free_only, const double *x, double out[3]) {
  if (r.cable) {
    double acc = 0.0;
    for (int t = r.t0; t < r.t1; t++) {
      if (free_only && tfree[t] < 0) continue;
      const double *xv = x + 3 * (size_t)tvert[t];
      for (int d = 0; d < 3; d++) acc += tcoef[3 * (size_t)t + d] * xv[d];
    }
    out[0] = acc;
    out[1] = out[2] = 0.0;
    return;
  }
  double y[3] = {0.0, 0.0, 0.0};
  for (int t = r.t0; t < r.t1; t++) {
    if (free_only && tfree[t] < 0) continue;
    const double *xv = x + 3 * (size_t)tvert[t];
    double b = tcoef[3 * (size_t)t];
    for (int d = 0; d < 3; d++) y[d] += b * xv[d];
  }
  for (int k = 0; k < 3; k++)
    out[k] = r.c[3 * k] * y[0] + r.c[3 * k + 1] * y[1] + r.c[3 * k + 2] * y[2];
}

// h_row for each contact and K vectors x_t = x + t xs into out + t os, each row ended as
// sr says (cuda_sys_rows post; K 1); nothing where *gate is 0 (NULL: always).
static __global__ void k_h_apply(const int *nc, const cuda_row *rows, const int *tvert,
                                 const int *tfree, const double *tcoef, int free_only,
                                 const double *x, size_t xs, double *out, size_t os, int K,
                                 const int *gate, cuda_sys_rows sr, nsn_stamp_at at) {
  SIM_PDL_WAIT();
  nsn_stamp_first(at);
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= *nc || (gate && !*gate)) return;
  const cuda_row r = rows[j];
  for (int t = 0; t < K; t++) {
    double a[3];
    h_row(r, tvert, tfree, tcoef, free_only, x + t * xs, a);
    for (int k = 0; k < 3; k++) {
      const size_t i = 3 * (size_t)j + k;
      out[t * os + i] = sr.post ? sys_row_end(sr.paper, sr.om[i], sr.e[i], sr.sx[i], a[k]) : a[k];
    }
  }
}

// Row i of what H_free^T gathers: x_i, or as sr says (cuda_sys_rows mul, mask).
static __device__ inline double gather_in(const cuda_sys_rows &sr, size_t i, double x) {
  return sr.mul ? sr.mul[i] * x : sr.mask ? (sim_nsn_coupled(sr.mask[i]) ? x : 0.0) : x;
}

// g[f] = (H_free^T lambda)_f: the free unknown's terms in contact order (rows.c's scatter
// order), for K vectors lambda_t = lam + t ls (each row as sr says) into g + 3 nfree t;
// nothing where *gate is 0.
static __global__ void k_ht_gather(int nfree, const int *iptr, const int *iterm, const int *irow,
                                   const cuda_row *rows, const double *tcoef, const double *lam,
                                   size_t ls, double *g, int K, const int *gate, cuda_sys_rows sr,
                                   nsn_stamp_at at) {
  SIM_PDL_WAIT();
  nsn_stamp_first(at);
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nfree || (gate && !*gate)) return;
  for (int v = 0; v < K; v++) {
    double acc[3] = {0.0, 0.0, 0.0};
    for (int p = iptr[f]; p < iptr[f + 1]; p++) {
      int t = iterm[p], j = irow[p];
      const cuda_row *r = &rows[j];
      const size_t i0 = 3 * (size_t)j;
      const double *l = lam + v * ls + i0;
      if (r->cable) {
        const double l0 = gather_in(sr, i0, l[0]);
        for (int d = 0; d < 3; d++) acc[d] += l0 * tcoef[3 * (size_t)t + d];
        continue;
      }
      double gj[3] = {0.0, 0.0, 0.0};
      for (int k = 0; k < 3; k++) {
        const double lk = gather_in(sr, i0 + k, l[k]);
        for (int d = 0; d < 3; d++) gj[d] += lk * r->c[3 * k + d];
      }
      double b = tcoef[3 * (size_t)t];
      for (int d = 0; d < 3; d++) acc[d] += b * gj[d];
    }
    for (int d = 0; d < 3; d++) g[3 * ((size_t)nfree * v + f) + d] = acc[d];
  }
}

// out_t = W x_t for a dense row-major W (m x m, m = 3 *nc) and K <= SIM_W_BATCH vectors
// x_t = x + t xs (out likewise): a warp per row, which it reads once (sim_dense_row_dots).
// Nothing where *gate is 0 (gate NULL: always). KB: the most vectors (1: a single product's
// loop, nothing to skip). T: W's values (float: contact.cr_precision's copy).
// With b.on, W is G of W's block form, and x has been prepared into b (k_blk_cols).
template <int KB, typename T>
static __global__ void k_gemv(const int *nc, const T *W, cuda_wblk b, const double *x, double *out,
                              int K, size_t xs, const int *gate) {
  SIM_PDL_WAIT();
  int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int m = 3 * *nc;
  if (i >= m || (gate && !*gate)) return; /* whole warps: i and *gate are the warp's */
  double a[KB];
  if (b.on)
    sim_blk_row_dots<KB>(*nc, W, b, i, K, lane, a);
  else
    sim_dense_row_dots<KB>(m, W + (size_t)i * (size_t)m, x, K, xs, lane, a);
  for (int t = 0; lane == 0 && t < K; t++) out[t * xs + (size_t)i] = a[t];
}

// The step's rows, built on the device from its contacts (rows_cuda.cu).
static int cuda_set_rows(void *ctx, const sim_contact *c, int nc, sim_status *st) {
  return sim_cuda_rows_set((cuda_contact *)ctx, c, nc, st);
}

// H over K vectors (h_apply_k) and H_free^T over K (ht_gather_k), as the kernels above say.
static int h_apply_k(cuda_contact *k, const double *x, size_t xs, int free_only, double *out,
                     size_t os, int K, const int *gate, const cuda_sys_rows &sr, nsn_stamp_at at,
                     sim_status *st) {
  if (k->stage.nc > 0 || at.n || gate) { /* a thread per contact the arrays hold (dnc) */
    const unsigned g = sim_cuda_blocks(k->nc_cap > 0 ? k->nc_cap : 1);
    k_h_apply<<<g, SIM_CUDA_BLOCK, 0, k->cx->stream>>>(
        k->dnc, k->rows, k->tvert, k->tfree, k->tcoef, free_only, x, xs, out, os, K, gate, sr, at);
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

static int ht_gather_k(cuda_contact *k, const double *lam, size_t ls, int K, const int *gate,
                       const cuda_sys_rows &sr, nsn_stamp_at at, sim_status *st) {
  int nfree = k->cx->m->nfree;
  if (nfree > 0 || at.n) {
    const unsigned g = sim_cuda_blocks(nfree > 0 ? nfree : 1);
    k_ht_gather<<<g, SIM_CUDA_BLOCK, 0, k->cx->stream>>>(nfree, k->iptr, k->iterm, k->irow, k->rows,
                                                         k->tcoef, lam, ls, k->g, K, gate, sr, at);
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

int sim_cuda_h_apply_at(cuda_contact *k, const double *x, int free_only, double *out,
                        nsn_stamp_at at, sim_status *st) {
  return h_apply_k(k, x, 0, free_only, out, 0, 1, NULL, cuda_sys_rows{}, at, st);
}

int sim_cuda_h_apply(cuda_contact *k, const double *x, int free_only, double *out, sim_status *st) {
  return sim_cuda_h_apply_at(k, x, free_only, out, nsn_no_stamp(), st);
}

int sim_cuda_ht_gather_at(cuda_contact *k, const double *lam, nsn_stamp_at at, sim_status *st) {
  return ht_gather_k(k, lam, 0, 1, NULL, cuda_sys_rows{}, at, st);
}

int sim_cuda_ht_gather(cuda_contact *k, const double *lam, sim_status *st) {
  return sim_cuda_ht_gather_at(k, lam, nsn_no_stamp(), st);
}

int sim_cuda_blk_cols(const cuda_contact *k, const double *x, int K, size_t xs, const double *mul,
                      const double *mask, const int *gate, sim_status *st) {
  const unsigned g = sim_cuda_blocks(k->blk.cap > 0 ? k->blk.cap : 1);
  cudaStream_t sm = k->cx->stream;
  const cuda_wblk &b = k->blk;
  k_blk_cols<col_of><<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, b, col_of{x}, K, xs, mul, mask, gate);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

int sim_cuda_w_apply_dense(cuda_contact *k, const float *wf, const double *x, double *out, int K,
                           size_t xs, const int *gate, sim_status *st) {
  int m = 3 * k->stage.nc;
  if (!k->w_dense || K < 1 || K > (wf ? 1 : SIM_W_BATCH) || (!x && !k->blk.on))
    return sim_fail(st, SIM_ERR_DEVICE, "CUDA: %d products with %s W%s", K,
                    k->w_dense ? "a dense" : "no dense", x ? "" : " and no vectors");
  if (m == 0) return SIM_OK;
  const unsigned g = sim_cuda_blocks(32LL * 3 * k->nc_cap); /* a warp per row the arrays hold */
  cudaStream_t sm = k->cx->stream;
  const int *nc = k->dnc;
  const cuda_wblk &b = k->blk;
  int rc = b.on && x ? sim_cuda_blk_cols(k, x, K, xs, NULL, NULL, gate, st) : SIM_OK;
  if (rc) return rc;
  const double *W = sim_cuda_w_of(k);
  if (wf)
    k_gemv<1, float><<<g, SIM_CUDA_BLOCK, 0, sm>>>(nc, wf, b, x, out, K, xs, gate);
  else if (K == 1)
    k_gemv<1, double><<<g, SIM_CUDA_BLOCK, 0, sm>>>(nc, W, b, x, out, K, xs, gate);
  else
    k_gemv<SIM_W_BATCH, double><<<g, SIM_CUDA_BLOCK, 0, sm>>>(nc, W, b, x, out, K, xs, gate);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// The matrix-free product through the contact vertices' columns of S (k->wcols.m >= 0), the
// Newton system's rows around it as sr says.
static int w_apply_cols(cuda_contact *k, const double *x, double *out, int K, size_t xs,
                        const int *gate, const cuda_sys_rows &sr, sim_status *st) {
  cuda_ctx *c = k->cx;
  if (K < 1 || K > k->w_batch || k->w_dense || k->wcols.m < 0 ||
      (K > 1 && (sr.mul || sr.mask || sr.post)))
    return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: %d products with the matrix-free W", K);
  if (3 * k->stage.nc == 0 && !gate) return SIM_OK; /* gated: queued all the same (a graph) */
  const size_t gs = 3 * (size_t)c->m->nfree, ws = 3 * (size_t)c->m->n;
  int rc = ht_gather_k(k, x, xs, K, gate, sr, nsn_no_stamp(), st);
  if (!rc) rc = sim_cuda_wcols_apply(c, &k->wcols, k->g, gs, c->free_vert, k->wq, ws, K, gate, st);
  if (!rc) rc = h_apply_k(k, k->wq, ws, 1, out, xs, K, gate, sr, nsn_no_stamp(), st);
  return rc;
}

int sim_cuda_w_apply(cuda_contact *k, const double *x, double *out, int K, size_t xs,
                     const int *gate, sim_status *st) {
  if (k->w_dense) return sim_cuda_w_apply_dense(k, NULL, x, out, K, xs, gate, st);
  if (k->wcols.m >= 0) return w_apply_cols(k, x, out, K, xs, gate, cuda_sys_rows{}, st);
  /* through all of S: one vector, ungated (the host reads the decisions) */
  if (K != 1 || gate)
    return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: %d gated products through all of S", K);
  if (3 * k->stage.nc == 0) return SIM_OK;
  int rc = sim_cuda_ht_gather(k, x, st);
  if (!rc) rc = sim_cuda_solve_into(k->cx, k->g, k->wq, 1.0, 0, st);
  if (!rc) rc = sim_cuda_h_apply(k, k->wq, 1, out, st);
  return rc;
}

int sim_cuda_w_apply_sys(cuda_contact *k, const double *x, double *out, const int *gate,
                         const cuda_sys_rows &r, sim_status *st) {
  return w_apply_cols(k, x, out, 1, 0, gate, r, st);
}

// 3 nc doubles between the host and k->x / k->out around a device operation.
static int to_device(cuda_contact *k, const double *host, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(k->x, host, sizeof(double) * 3 * (size_t)k->stage.nc,
                         cudaMemcpyHostToDevice, k->cx->stream),
         st);
  return SIM_OK;
}

// A host vector nothing may read (what the device solve keeps, or a failed product's): NaN.
static void nan_fill(double *x, int n) {
  for (int i = 0; i < n; i++) x[i] = NAN;
}

static int to_host(cuda_contact *k, double *host, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(host, k->out, sizeof(double) * 3 * (size_t)k->stage.nc,
                         cudaMemcpyDeviceToHost, k->cx->stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->cx->stream), st);
  return SIM_OK;
}

// H x for the host solver; H q_t for the device one goes straight into its array (the host's
// copy, which nothing then reads, is NaN).
static int cuda_h_state(void *ctx, sim_vec_id id, double *out, sim_status *st) {
  cuda_contact *k = (cuda_contact *)ctx;
  if (k->dn && id == SIM_VEC_QT) {
    nan_fill(out, 3 * k->stage.nc);
    return sim_cuda_nsn_hqt(k, st);
  }
  int rc = sim_cuda_h_apply(k, k->cx->vec[id], 0, k->out, st);
  return rc ? rc : to_host(k, out, st);
}

static int cuda_unconstrained(void *ctx, sim_status *st) {
  cuda_ctx *c = ((cuda_contact *)ctx)->cx;
  int rc = sim_cuda_solve_into(c, c->rhs, c->vec[SIM_VEC_Q], 1.0, 0, st);
  if (rc) return rc;
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  return SIM_OK;
}

static int cuda_correct(void *ctx, const double *f, sim_status *st) {
  cuda_contact *k = (cuda_contact *)ctx;
  cuda_ctx *c = k->cx;
  int rc = to_device(k, f, st);
  if (!rc) rc = sim_cuda_ht_gather(k, k->x, st);
  if (!rc) rc = sim_cuda_solve_into(c, k->g, c->vec[SIM_VEC_Q], c->m->h * c->m->h, 1, st);
  if (rc) return rc;
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  return SIM_OK;
}

// This step's dense W on the device: its products cost a pass over W there instead of on the host.
static int cuda_set_w(void *ctx, const double *W, int m, sim_status *st) {
  cuda_contact *k = (cuda_contact *)ctx;
  size_t n = (size_t)m * (size_t)m;
  if (n > k->W_cap) {
    sim_cuda_release(k->cx, k->W, sizeof(double) * k->W_cap);
    k->W = NULL;
    k->W_cap = 0;
    int rc = sim_cuda_new<double>(k->cx, &k->W, n, NULL, st);
    if (rc) return rc;
    k->W_cap = n;
  }
  SIM_CU(cudaMemcpyAsync(k->W, W, sizeof(double) * n, cudaMemcpyHostToDevice, k->cx->stream), st);
  SIM_CU(cudaStreamSynchronize(k->cx->stream), st);
  k->w_dense = 1;
  k->Wp = k->W;
  return SIM_OK;
}

// The matrix-free products' scratch (k->g, k->wq and the column products' z) for SIM_W_BATCH
// vectors, grown at the first step whose line search takes its trials at once (outside any
// graph's capture: the step's set-up). Until then they hold one vector: a dense W, the host's
// Newton solve and a solve through all of S never need more.
static int batch_room(cuda_contact *k, sim_status *st) {
  cuda_ctx *c = k->cx;
  int rc = sim_cuda_wcols_batch(c, &k->wcols, SIM_W_BATCH, st);
  if (rc || k->w_batch >= SIM_W_BATCH) return rc;
  const size_t gn = 3 * (size_t)c->m->nfree, wn = 3 * (size_t)c->m->n, b = k->w_batch;
  sim_cuda_release(c, k->g, sizeof(double) * gn * b);
  sim_cuda_release(c, k->wq, sizeof(double) * wn * b);
  k->g = k->wq = NULL, k->w_batch = 0;
  rc = sim_cuda_new<double>(c, &k->g, gn * SIM_W_BATCH, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &k->wq, wn * SIM_W_BATCH, NULL, st);
  if (!rc) k->w_batch = SIM_W_BATCH;
  return rc;
}

// This step's W (dense) or only its diagonal, formed on the device from S's columns there. For
// the device Newton solve a dense W takes its block form (wblocks.h: G, a ninth of W's bytes a
// product) where contact.delassus is "blocks", or "auto" above SIM_CUDA_BLOCK_ROWS; else W is
// formed.
static int cuda_delassus(void *ctx, const sim_contact *c, int nc, int dense, double *diag,
                         sim_status *st) {
  cuda_contact *k = (cuda_contact *)ctx;
  /* the device solve takes diag(W) on the device (sim_cuda_nsn_begin): the host's stays NaN */
  if (k->dn) nan_fill(diag, 3 * nc);
  const sim_scene_delassus form_asked = k->stage.delassus;
  const int blocks = dense && k->dn &&
                     (form_asked == SIM_SCENE_DELASSUS_BLOCKS ||
                      (form_asked == SIM_SCENE_DELASSUS_AUTO && 3 * nc > SIM_CUDA_BLOCK_ROWS));
  const int form = blocks ? SIM_CUDA_W_BLOCKS : dense ? SIM_CUDA_W_DENSE : SIM_CUDA_W_DIAG;
  /* the contacts set_rows copied up this step */
  int rc = sim_cuda_delassus_build_on(k->del, c, k->rd.c, k->rd.free_of, nc, k->cx->m->free_of,
                                      form, k->stage.max_W_bytes, k->dn ? NULL : diag, st);
  if (rc) return rc;
  k->w_dense = dense;
  k->Wp = dense && !blocks ? sim_cuda_delassus_W(k->del) : NULL;
  k->blk.on = 0;
  sim_cuda_wblocks B;
  if (blocks && sim_cuda_delassus_blocks(k->del, &B) == 0) {
    k->blk.on = 1, k->blk.ncab = B.ncab;
    k->blk.G = B.G, k->blk.frame = B.frame, k->blk.cab_j = B.cab_j, k->blk.cab_row = B.cab_row;
  }
  k->wcols.m = -1; /* matrix-free: through the contacts' columns of S where it can */
  if (!dense && k->wcols_on && (rc = sim_cuda_wcols_build(k->cx, &k->wcols, k->del, st)) > 0)
    return rc;
  /* the device solve queued on (sim_cuda_nsn_reads 0): its line search's batches */
  if (k->wcols.m >= 0 && k->dn && k->dn->mf_queue) return batch_room(k, st);
  return SIM_OK;
}

// This step's dense W, formed on the device, to the host (the stage keeps small ones there).
static int cuda_get_w(void *ctx, double *W, int m, sim_status *st) {
  cuda_contact *k = (cuda_contact *)ctx;
  if (!k->w_dense || !k->Wp)
    return sim_fail(st, SIM_ERR_DEVICE, "CUDA: no dense W on the device to copy (%d rows)", m);
  SIM_CU(cudaMemcpyAsync(W, k->Wp, sizeof(double) * (size_t)m * (size_t)m, cudaMemcpyDeviceToHost,
                         k->cx->stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->cx->stream), st);
  return SIM_OK;
}

int sim_cuda_delassus_on_host(int *on_host, sim_status *st) {
  int on_device = 1;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_DELASSUS", "host", "device", 1, &on_device, st);
  *on_host = !on_device;
  return rc;
}

// out = W x for host vectors. The stage's operator has no status; a device failure gives NaN,
// which the Newton solve and the run's state check turn into an error.
static void cuda_w_apply(void *ctx, const double *x, double *out) {
  cuda_contact *k = (cuda_contact *)ctx;
  sim_status st = {0};
  int rc = to_device(k, x, &st);
  if (!rc) rc = sim_cuda_w_apply(k, k->x, k->out, 1, 0, NULL, &st);
  if (!rc) rc = to_host(k, out, &st);
  if (rc) nan_fill(out, 3 * k->stage.nc);
}

int sim_cuda_contact_settle(cuda_ctx *c, int after, sim_status *st) {
  if (!c->cst || !c->cst->dn) return SIM_OK;
  return after ? sim_cuda_nsn_settle_end(c->cst, st) : sim_cuda_nsn_settle_begin(c->cst, st);
}

static int cuda_contact_begin(sim_backend *be, const sim_contact *c, int nc, sim_cst_times *t,
                              sim_status *st) {
  cuda_contact *k = CCTX(be)->cst;
  sim_cuda_range range("contact_begin: the step's contact stage set up");
  /* the device solve: its statistics, if not yet taken, and the last step's contacts and
     multipliers kept for the warm start before this step's replace them */
  int rc = k->dn ? sim_cuda_nsn_flush(k, st) : SIM_OK;
  if (!rc && k->dn) rc = sim_cuda_nsn_keep(k, st);
  if (!rc) rc = sim_contact_stage_begin(&k->stage, c, nc, t, st);
  if (!rc && k->dn && nc > 0) rc = sim_cuda_nsn_begin(k, st);
  return rc;
}

static int cuda_contact_global(sim_backend *be, sim_cst_times *t, sim_status *st) {
  cuda_contact *k = CCTX(be)->cst;
  return k->dn ? sim_cuda_nsn_global(k, t, st) : sim_contact_stage_global(&k->stage, t, st);
}

static int cuda_contact_finish(sim_backend *be, sim_cst_times *t, sim_status *st) {
  cuda_contact *k = CCTX(be)->cst;
  return k->dn ? sim_cuda_nsn_finish(k, t, st) : sim_contact_stage_finish(&k->stage, t, st);
}

static int cuda_contact_lambda(sim_backend *be, double *out, sim_status *st) {
  cuda_contact *k = CCTX(be)->cst;
  int rc = k->dn ? sim_cuda_nsn_results(k, st) : SIM_OK;
  if (!rc) sim_contact_stage_lambda(&k->stage, out);
  return rc;
}

static int cuda_contact_resume(sim_backend *be, const sim_contact *c, int nc, const double *lam,
                               sim_status *st) {
  cuda_contact *k = CCTX(be)->cst;
  return k->dn ? sim_cuda_nsn_resume(k, c, nc, lam, st)
               : sim_contact_stage_resume(&k->stage, c, nc, lam, st);
}

int sim_cuda_contact_create(sim_backend *be, const sim_backend_opts *o, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  cuda_contact *k = SIM_NEW0(cuda_contact, 1);
  c->cst = k;
  if (!k) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact)");
  k->cx = c;
  k->wcols.m = -1;
  k->w_batch = 1; /* batch_room grows g and wq where the line search's trials go at once */
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_WCOLS", "off", "on", 1, &k->wcols_on, st);
  if (!rc) rc = sim_cuda_new<int>(c, &k->iptr, (size_t)m->nfree + 1, NULL, st);
  if (!rc) rc = sim_cuda_rows_create(k, st);
  if (!rc) rc = sim_cuda_new<double>(c, &k->g, 3 * (size_t)m->nfree, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &k->wq, 3 * (size_t)m->n, NULL, st);
  if (rc) return rc;
  sim_contact_ops ops = {k,          cuda_set_rows, cuda_h_state, cuda_unconstrained, cuda_w_apply,
                         cuda_set_w, cuda_correct,  NULL,         NULL};
  int on_host = 0;
  rc = sim_cuda_delassus_on_host(&on_host, st);
  if (!rc && !on_host) {
    const cuda_S *S = &c->S;
    rc = sim_cuda_delassus_create(c->stream, &k->del, st);
    if (!rc)
      rc = sim_cuda_delassus_use_S(k->del, S->n, S->col_ptr, S->col_row, S->col_val, S->col_valf,
                                   c->host_perm, st);
    ops.delassus = cuda_delassus;
  }
  if (rc) return rc;
  rc = sim_contact_stage_init(&k->stage, m, &ops, on_host ? c->host_fac : NULL,
                              on_host ? &c->host_S : NULL, o->max_dense_bytes, st);
  if (rc) return rc;
  int nsn_on_device = 1, graphs = 1, fuse = 1, cr_step = 1, mf_queue = 1;
  rc = sim_cuda_env_choice("SIMCTL_CUDA_NSN", "host", "device", 1, &nsn_on_device, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_GRAPH", "off", "on", 1, &graphs, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_FUSE", "off", "on", 1, &fuse, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_CR_STEP", "apart", "merged", 1, &cr_step, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_MF_QUEUE", "off", "on", 1, &mf_queue, st);
  if (!rc && nsn_on_device) rc = sim_cuda_nsn_create(k, graphs, fuse, cr_step, mf_queue, st);
  if (rc) return rc;
  k->stage.backend_prepares = nsn_on_device; /* sim_cuda_nsn_begin forms the rest */
  if (nsn_on_device) k->stage.dense_rows = SIM_CUDA_DENSE_ROWS;
  if (!nsn_on_device) { /* the host's Newton solve: a small W on the host saves a round trip
                           per product (SIM_CUDA_HOST_W_ROWS) */
    k->stage.host_w_rows = SIM_CUDA_HOST_W_ROWS;
    if (k->stage.ops.delassus) k->stage.ops.get_w = cuda_get_w;
  }
  be->contact_clocked = nsn_on_device; /* sim_cuda_nsn_global times itself by events */
  be->contact_begin = cuda_contact_begin;
  be->contact_global = cuda_contact_global;
  be->contact_finish = cuda_contact_finish;
  be->contact_lambda = cuda_contact_lambda;
  be->contact_resume = cuda_contact_resume;
  return SIM_OK;
}

void sim_cuda_contact_destroy(cuda_ctx *c) {
  cuda_contact *k = c->cst;
  if (!k) return;
  sim_cuda_nsn_destroy(k);
  sim_cuda_wcols_free(c, &k->wcols);
  sim_cuda_delassus_destroy(k->del);
  sim_contact_stage_free(&k->stage);
  sim_cuda_rows_free(k);
  void *d[] = {k->iptr, k->g, k->wq, k->W};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) cudaFree(d[i]);
  sim_free(k);
  c->cst = NULL;
}

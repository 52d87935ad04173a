// SPDX-License-Identifier: MIT
// The non-smooth Newton contact solve on the device (SIMCTL_CUDA_NSN=device): the host solver's
// algorithm (core/contact/nsn.c, cr.c, stage.c's L-G iteration) step for step, with every
// 3 nc vector on the device and the per-contact and per-row formulas of nsn_row.h run a thread
// each. The solver's decisions are taken on the device too, by one thread (the last of the
// reduction they read, or a kernel of one thread): Conjugate Residual's (cr.c: breakdown,
// tolerance, iteration count), the Newton steps' convergence test (newton_tol) and the line
// search's acceptance; the kernels after a decision check its flag (a gate) and do nothing
// once it is closed. The host therefore queues an L-G iteration's Newton steps without
// waiting, and the line search tries its step lengths in batches of up to SIM_W_BATCH (their W
// products in one pass over W, or over the contact vertices' columns of S with W matrix-free),
// keeping the first that the host's order would have accepted; a step's iterations then run as
// a CUDA graph (SIMCTL_CUDA_GRAPH). Where W is matrix-free through all of S
// (SIMCTL_CUDA_WCOLS=off, or a tree not postordered), or with SIMCTL_CUDA_MF_QUEUE=off, the host
// reads each decision instead (a wait per Newton step and per line-search trial) and queues no
// step that would do nothing (sim_cuda_nsn_reads).
// Every reduction sums over a fixed partition (deterministic), and the results have the bits of
// the sequential order. A step's inputs are formed on the device too, from its contacts there
// (targets, coefficients, weights, H q_t, and the warm start from the previous step's
// multipliers, kept there: nsn_state.cu). Nothing comes back at an iteration's end: the
// statistics (summed on the device) and the time stamps of the buckets' boundaries (the
// device's global timer, written by one-thread kernels, since a graph launched at every
// iteration records the same CUDA events each time) are copied to the host at the backend's
// settle, within its wait (sim_cuda_nsn_settle_begin, _end); lambda and f only when asked
// (sim_cuda_nsn_results: contact_lambda).
#include <math.h>
#include <string.h>

#include <cmath>

#include "gmres_cuda.h"
#include "nsn_fused.cuh"
#include "pdl.cuh"

extern "C" {
#include "../core/base/alloc.h"
}

// ---- kernels ----

// NCP values (nsn_fused.cuh ncp_contact) for K vectors at once (phi, om, e only for K = 1): a
// thread per (contact, vector); *gate 0: nothing.
static __global__ void k_ncp(const int *dnc, int K, ncp_args a, const int *gate) {
  SIM_PDL_WAIT();
  long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int nc = *dnc;
  if (q >= (long long)nc * K || !*gate) return;
  ncp_contact(a, (int)(q % nc), (int)(q / nc));
}

// Row kernels: a thread per row of the 3 nc; nothing where the gate (a device int) is 0.
#define ROW_KERNEL_HEAD                          \
  const int m = 3 * *nc;                         \
  int i = blockIdx.x * blockDim.x + threadIdx.x; \
  if (i >= m || !*gate) return;

// hq = hab + h2 t; and *stale = 0 where given (reuse_wf: t is W f after the product before it,
// which read *stale, so no kernel reads it while it changes; without it, a step whose start met
// newton_tol made H q's product again at every later step of its L-G iteration, the gate `go`
// closed: it runs where *stale is 1 whatever `go`).
static __global__ void k_hq(const int *nc, const double *hab, double h2, const double *t,
                            double *hq, const int *gate, int *stale) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  hq[i] = hab[i] + h2 * t[i];
  if (stale && i == 0) *stale = 0;
}

// The line search's H q at each of K trials: out_t = hq + h2 (y_t - wl) (t at + t s3).
static __global__ void k_ls_hq(const int *nc, int K, size_t s3, const double *hq, double h2,
                               const double *y, const double *wl, double *out, const int *gate) {
  SIM_PDL_WAIT();
  long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int m = 3 * *nc;
  if (q >= (long long)m * K || !*gate) return;
  int i = (int)(q % m);
  size_t v = (q / m) * s3 + (size_t)i;
  out[v] = hq[i] + h2 * (y[v] - wl[i]);
}

static __global__ void k_rhs(const int *nc, int paper, double ih2, const double *om,
                             const double *hq, const double *hab, const double *phi,
                             const double *y, double *rhs, const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  rhs[i] = sim_nsn_row_rhs(paper, ih2, om[i], hq[i], hab[i], phi[i], y[i]);
}

// Compliance form: a decoupled row's dlambda = -phi / E is known (rhs / e); the others start at 0.
static __global__ void k_decoupled(const int *nc, int paper, const double *om, const double *e,
                                   const double *rhs, double *dlam, int *moved, const int *gate,
                                   nsn_stamp_at at) {
  SIM_PDL_WAIT();
  nsn_stamp_first(at);
  ROW_KERNEL_HEAD
  double v = !paper && !sim_nsn_coupled(om[i]) && e[i] > 0.0 ? rhs[i] / e[i] : 0.0;
  dlam[i] = v;
  if (v != 0.0) *moved = 1;
}

static __global__ void k_sub_coupled(const int *nc, const double *om, const double *y, double *rhs,
                                     const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  if (sim_nsn_coupled(om[i])) rhs[i] -= y[i];
}

static __global__ void k_jacobi(const int *nc, int paper, const double *om, const double *wd,
                                const double *e, double *pc, const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  double dg = sim_nsn_row_diag(paper, om[i], wd[i], e[i]);
  pc[i] = dg > 0.0 ? 1.0 / dg : 1.0;
}

// The Newton system (nsn.c system_apply): before W (tmp) and after it (y).
static __global__ void k_sys_pre(const int *nc, int paper, const double *om, const double *x,
                                 double *tmp, const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  tmp[i] = paper ? om[i] * x[i] : (sim_nsn_coupled(om[i]) ? x[i] : 0.0);
}

static __global__ void k_sys_post(const int *nc, int paper, const double *om, const double *e,
                                  const double *x, double *y, const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  y[i] = sys_row_end(paper, om[i], e[i], x[i], y[i]);
}

// Conjugate Residual's vector updates (cr.c).
static __global__ void k_cr_start(const int *nc, const double *b, const double *Mz, double *r,
                                  const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  r[i] = b[i] - Mz[i];
}

static __global__ void k_mul(const int *nc, const double *a, const double *b, double *out,
                             const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  out[i] = a[i] * b[i];
}

static __global__ void k_copy(const int *nc, const double *a, double *a2, const int *gate) {
  SIM_PDL_WAIT();
  ROW_KERNEL_HEAD
  a2[i] = a[i];
}

static __global__ void k_cr_step(const int *nc, const cr_dev *c, const double *p, const double *Mp,
                                 const double *dinv, double *x, double *r, double *z) {
  SIM_PDL_WAIT();
  const int *gate = &c->active;
  ROW_KERNEL_HEAD
  const double alpha = c->alpha;
  x[i] += alpha * p[i];
  r[i] -= alpha * Mp[i];
  if (dinv) z[i] -= alpha * dinv[i] * Mp[i];
}

static __global__ void k_cr_dir(const int *nc, const cr_dev *c, const double *z, const double *Mz,
                                double *p, double *Mp) {
  SIM_PDL_WAIT();
  const int *gate = &c->active;
  ROW_KERNEL_HEAD
  const double beta = c->beta;
  p[i] = z[i] + beta * p[i];
  Mp[i] = Mz[i] + beta * Mp[i];
}

// The line search's pick of a batch (nsn_reduce.cuh ls_pick; a launch of its own where the
// batch has more than one trial).
static __global__ void k_ls_pick(nsn_dev *n, const double *res, int K, int t0, int last) {
  SIM_PDL_WAIT();
  ls_pick(n, res, K, t0, last);
}

// The pick of the line search's batch before (k_ls_accept's work), taken by the next batch's
// update (k_update) before its own: lam's rows from ltry's pick where one was taken (n NULL:
// nothing). A pick closes the search, so the update it precedes does nothing else. With y
// (reuse_wf), the pick's W ltry (ytry) into y as well.
typedef struct ls_take {
  const nsn_dev *n;
  size_t s3;
  const double *ltry;
  double *lam;
  const double *ytry;
  double *y;
} ls_take;

// lambda += alpha dlambda, capped, in the cone (nsn_row.h) for K step lengths alpha = 2^-(t0 + t)
// at once (trial t at out + t s3; K = 1, t0 = 0, out = lam: the full step in place). First, CR's
// tally (after CR) or the batch before's pick (take; by trial 0's threads, whatever the gate).
static __global__ void k_update(const int *dnc, int K, int t0, size_t s3, const double *comp,
                                const double *mu, double max_force, const double *lam,
                                const double *dlam, double *out, const int *gate, cr_tally tally,
                                ls_take take) {
  SIM_PDL_WAIT();
  cr_tally_first(tally);
  long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int nc = *dnc;
  if (q >= (long long)nc * K) return;
  int j = (int)(q % nc), t = (int)(q / nc);
  if (t == 0) cr_last_step(tally, j);
  size_t i = 3 * (size_t)j;
  if (take.n && t == 0 && take.n->go && take.n->pick >= 0)
    for (int r = 0; r < 3; r++) {
      take.lam[i + r] = take.ltry[take.n->pick * take.s3 + i + r];
      if (take.y) take.y[i + r] = take.ytry[take.n->pick * take.s3 + i + r];
    }
  if (!*gate) return;
  sim_nsn_contact_update(comp[j], mu[j], max_force, lam + i, dlam + i, ldexp(1.0, -(t0 + t)),
                         out + t * s3 + i);
}

// The accepted trial (n->pick of the batch in ltry) becomes lambda. With y (reuse_wf), its W
// ltry (ytry) becomes y, so y is W f, and the last batch's (last) clears the flag that says
// it is not.
static __global__ void k_ls_accept(const int *nc, nsn_dev *n, size_t s3, const double *ltry,
                                   double *lam, const double *ytry, double *y, int last) {
  SIM_PDL_WAIT();
  const int *gate = &n->go; /* a pick implies go */
  ROW_KERNEL_HEAD
  if (n->pick >= 0) {
    lam[i] = ltry[n->pick * s3 + (size_t)i];
    if (y) y[i] = ytry[n->pick * s3 + (size_t)i];
  }
  if (y && last && i == 0) n->wf_stale = 0;
}

static __global__ void k_force(const int *nc, int paper, const double *om, const double *lam,
                               double *f) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * *nc) return;
  f[i] = paper ? om[i] * lam[i] : lam[i];
}

// ---- host orchestration ----

static cudaStream_t stream(const cuda_contact *k) { return k->cx->stream; }

static unsigned blocks_for(long long n) { return sim_cuda_blocks(n > 0 ? n : 1); }

// The grids follow the arrays' capacity (cuda_nsn.cap contacts, 3 cap rows), and the kernels
// read the step's contact count on the device (cuda_contact.dnc): the threads past it do
// nothing, so an L-G iteration's graph serves every count the arrays hold and is captured
// again only where they grow (graph_sig). The reductions keep their partition (a value a
// thread, block b's from SIM_CUDA_BLOCK b on); the blocks past the count add the +0.0 partials
// of their empty blocks, which leave every sum's bits as they were.

// The two passes queued: the sum of x d y over n = per nc values (per 1: a value a contact; 3:
// a row; d, y optional) and, with mx, its max into dst[0], dst[1]; `batches` of them (x and mx
// at + b xs, results at dst + 2 b). The first pass runs on the fewest blocks (a power of two,
// at most SIM_RED_BLOCKS) that give every thread at most one value of the capacity's, the
// second on one thread per block.
static unsigned reduce_blocks(long long n) { return sim_nsn_reduce_blocks(n); }

static int queue_reduce(cuda_contact *k, int per, const double *x, const double *d, const double *y,
                        const double *mx, int batches, size_t xs, double *dst, red_then then,
                        sim_status *st) {
  cuda_nsn *s = k->dn;
  const unsigned nb = reduce_blocks((long long)per * s->cap);
  dim3 g1(nb, (unsigned)batches), g2(1, (unsigned)batches);
  if (s->fuse) {
    k_reduce_last<<<g1, SIM_CUDA_BLOCK, 0, stream(k)>>>(k->dnc, per, x, d, y, mx, xs, s->part, dst,
                                                        s->count, then);
  } else {
    k_reduce<<<g1, SIM_CUDA_BLOCK, 0, stream(k)>>>(k->dnc, per, x, d, y, mx, xs, s->part);
    k_reduce_final<<<g2, nb, 0, stream(k)>>>(s->part, dst, then);
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// The sum of x d y (d, y optional) over the rows into dst[0], left on the device, then
// Conjugate Residual's decision `what` (THEN_*; THEN_NOTHING: none).
static red_then cr_then(const cuda_contact *k, int what) {
  const sim_nsn_options *o = &k->stage.nsn.opt;
  red_then t = {what, k->dn->crd, k->dn->ctl, &k->dn->ctl->go, o->cr_tol, o->cr_iters};
  return t;
}

static int reduce_to(cuda_contact *k, const double *x, const double *d, const double *y,
                     double *dst, int what, sim_status *st) {
  return queue_reduce(k, 3, x, d, y, NULL, 1, 0, dst, cr_then(k, what), st);
}

// An int of the device's decisions (nsn_dev, cr_dev) to the host: a wait.
static int read_flag(cuda_contact *k, const int *dev, int *out, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(out, dev, sizeof(int), cudaMemcpyDeviceToHost, stream(k)), st);
  SIM_CU(cudaStreamSynchronize(stream(k)), st);
  return SIM_OK;
}

// Whether the Newton steps' W f (H q's product, into y) is kept from the line search: where
// the host does not read the decisions (W dense, or matrix-free queued on), the compliance
// form (f = lambda) and a line search, whose accepted trial's W ltry
// (ytry, the same kernel's sums of the same values) is the next step's W f, and where none is
// accepted y (W f at the step's start) still is; the flag wf_stale says where y is not W f
// (a step's first iteration, before its first product), and the product runs there. Nothing
// else writes y in that form (the coupled rows' W dlam goes to tmp). It saves one of a Newton
// step's dozen products with W, every step but a time step's first.
static int reuse_wf(const cuda_contact *k) {
  const sim_nsn_options *o = &k->stage.nsn.opt;
  return !sim_cuda_nsn_reads(k) && o->form != SIM_NSN_FORM_PAPER && o->line_search > 0;
}

// out = W x, skipped where *gate is 0 (sim_cuda_w_gate: through all of S, not gated).
static int w_apply(cuda_contact *k, const double *x, double *out, const int *gate, sim_status *st) {
  return sim_cuda_w_apply(k, x, out, 1, 0, sim_cuda_w_gate(k, gate), st);
}

// out = W x, then row by row what E says (nsn_fused.cuh W_THEN_*: H q, the coupled rows'
// right-hand side, a trial's H q): one launch with a dense W and fused launches (k_w_then),
// else the product and the row kernel after it. stale (reuse_wf): where *stale is 0, out holds
// W x already and W is not read.
template <int E>
static int w_then(cuda_contact *k, const double *x, double *out, double h2, const double *u,
                  const double *v, double *w, const int *gate, sim_status *st,
                  const int *stale = NULL) {
  const int m = 3 * k->dn->cap; /* the rows the arrays hold: the grids' */
  cudaStream_t sm = stream(k);
  if (k->dn->fuse && k->w_dense) {
    const unsigned gw = blocks_for(32LL * m);
    const int *nc = k->dnc;
    int rc = k->blk.on ? sim_cuda_blk_cols(k, x, 1, 0, NULL, NULL, gate, st) : SIM_OK;
    if (rc) return rc;
    k_w_then<E, 1><<<gw, SIM_CUDA_BLOCK, 0, sm>>>(nc, sim_cuda_w_of(k), k->blk, x, out, 1, 0, h2, u,
                                                  v, w, gate, stale);
  } else { /* with stale, the product only where out is not W x yet */
    int rc = w_apply(k, x, out, stale ? stale : gate, st);
    if (rc) return rc;
    const unsigned g = blocks_for(m);
    if (E == W_THEN_HQ) /* out is W x after it, so stale is cleared there */
      k_hq<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, u, h2, out, w, gate,
                                         stale ? &k->dn->ctl->wf_stale : NULL);
    else if (E == W_THEN_SUB)
      k_sub_coupled<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, u, out, w, gate);
    else
      k_ls_hq<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, 1, 0, u, h2, out, v, w, gate);
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// The NCP evaluation's arguments at (hq, lam), with phi, Omega and E written where `values`.
static ncp_args ncp_at(const cuda_contact *k, const double *hq, const double *lam, int values) {
  const cuda_nsn *s = k->dn;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  ncp_args a = {o->ncp,
                o->h,
                o->max_force,
                s->comp,
                s->mu,
                s->d,
                s->hqt,
                s->w,
                hq,
                lam,
                NULL,
                NULL,
                NULL,
                s->mterm,
                s->pterm,
                3 * (size_t)s->cap,
                (size_t)s->cap};
  if (values) {
    a.phi = s->phi;
    a.om = s->om;
    a.e = s->e;
  }
  return a;
}

// NCP values into phi, Omega, E at (hq, lambda), its merit over the normal and bilateral rows
// and max |phi| into res (nsn.c ncp_eval), then the step's convergence test (k_nsn_judge) at
// tolerance tol (newton_tol; the end pass's: sim_cuda_nsn_finish, with max |phi| over the
// merit's rows alone, merit_max).
static int ncp_start(cuda_contact *k, double tol, int merit_max, sim_status *st) {
  cuda_nsn *s = k->dn;
  const int nc = s->cap; /* the contacts the arrays hold: the grids' */
  ncp_args a = ncp_at(k, s->hq, s->lam, 1);
  a.merit_max = merit_max;
  red_then judge = {THEN_NSN_JUDGE, s->crd, s->ctl, NULL, tol, 0};
  if (s->fuse) {
    k_ncp_reduce<<<reduce_blocks(nc), SIM_CUDA_BLOCK, 0, stream(k)>>>(
        k->dnc, a, &s->ctl->go, s->part, s->res, s->count, judge);
    SIM_CU(cudaGetLastError(), st);
    return SIM_OK;
  }
  k_ncp<<<blocks_for(nc), SIM_CUDA_BLOCK, 0, stream(k)>>>(k->dnc, 1, a, &s->ctl->go);
  return queue_reduce(k, 1, s->mterm, NULL, NULL, s->pterm, 1, 0, s->res, judge, st);
}

// W's float copy for CR's products (contact.cr_precision float with a dense W; sim_cuda_nsn_begin
// made it), or NULL.
static const float *cr_wf(const cuda_contact *k) {
  return k->w_dense && k->stage.nsn.opt.cr_float ? k->dn->Wf : NULL;
}

// Whether the Newton system's rows around a product with W matrix-free go inside the product's
// own launches (cuda_sys_rows): fused, through the contact vertices' columns of S.
static int fused_cols(const cuda_contact *k) {
  return k->dn->fuse && !k->w_dense && k->wcols.m >= 0;
}

// y = the Newton system times x (nsn.c system_apply), nothing where *gate is 0. x_zero: the
// host knows that what W multiplies (k_sys_pre's vector) is zero, so W's part of each row is
// the +0.0 that the product's sums of +-0.0 terms give, and W is not read: the memset and the row
// kernel after the product (matrix-free, one product with H A^-1 H^T, two passes over S, fewer).
// y has the same bits either way. Fused with a dense W, sys_apply_dot takes the product and its
// sum in one launch (k_sys_gemv_dot) where the rows the arrays hold fit its reduction (under
// 21,846 contacts) and comes here above that: the separate launches, whose bits the fused
// kernels' are (test_gpu_contact_ops). (A fused kernel for that case alone, k_sys_gemv, ran in
// no test: scripts/emu_coverage.sh.)
static int sys_apply(cuda_contact *k, const double *x, double *y, const int *gate, int x_zero,
                     sim_status *st) {
  cuda_nsn *s = k->dn;
  const int m = 3 * s->cap, paper = k->stage.nsn.opt.form == SIM_NSN_FORM_PAPER; /* grids */
  const float *wf = cr_wf(k);
  cudaStream_t sm = stream(k);
  if (fused_cols(k) && !x_zero) { /* k_sys_pre and k_sys_post in the product's launches */
    const cuda_sys_rows r = {paper ? s->om : NULL, paper ? NULL : s->om, 1, paper, s->om, s->e, x};
    return sim_cuda_w_apply_sys(k, x, y, gate, r, st);
  }
  if (x_zero) {
    SIM_CU(cudaMemsetAsync(y, 0, sizeof(double) * (size_t)m, sm), st);
  } else if (k->blk.on) { /* W's block form: k_sys_pre's vector prepared in its place */
    int rc = sim_cuda_blk_cols(k, x, 1, 0, paper ? s->om : NULL, paper ? NULL : s->om, gate, st);
    if (!rc) rc = sim_cuda_w_apply_dense(k, wf, NULL, y, 1, 0, gate, st);
    if (rc) return rc;
  } else {
    k_sys_pre<<<blocks_for(m), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, x, s->tmp, gate);
    int rc = wf ? sim_cuda_w_apply_dense(k, wf, s->tmp, y, 1, 0, gate, st)
                : w_apply(k, s->tmp, y, gate, st);
    if (rc) return rc;
  }
  k_sys_post<<<blocks_for(m), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, s->e, x, y, gate);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// Whether sys_apply_dot runs as one launch (k_sys_gemv_dot): a dense W, fused launches and a
// reduction of at most one value per thread (m <= SIM_RED_BLOCKS SIM_CUDA_BLOCK).
static int dot_fused(const cuda_contact *k) {
  return k->dn->fuse && k->w_dense && 3 * k->dn->cap <= SIM_RED_BLOCKS * SIM_CUDA_BLOCK;
}

// y = the Newton system times x, then the sum of x y into dst with CR's decision `what`
// (reduce_to): one launch (k_sys_gemv_dot) where dot_fused, with CR's first direction in it
// where `first` is given (its c set), or CR's step before it where `step` is, else sys_apply and
// reduce_to (first and step must be none).
static int sys_apply_dot(cuda_contact *k, const double *x, double *y, const int *gate, double *dst,
                         int what, sim_status *st, cr_first first = cr_first{},
                         cr_step step = cr_step{}) {
  cuda_nsn *s = k->dn;
  const int m = 3 * s->cap, paper = k->stage.nsn.opt.form == SIM_NSN_FORM_PAPER; /* grids */
  if (!dot_fused(k)) {
    if (first.c || step.c) return sim_fail(st, SIM_ERR_DEVICE, "CUDA: CR's updates unfused");
    int rc = sys_apply(k, x, y, gate, 0, st);
    return rc ? rc : reduce_to(k, x, NULL, y, dst, what, st);
  }
  const unsigned g = blocks_for(32LL * m), nb = reduce_blocks(m);
  const red_then then = cr_then(k, what);
  const float *wf = cr_wf(k);
  cudaStream_t sm = stream(k);
  if (k->blk.on) { /* k_sys_pre's vector of x, or of z after CR's step, prepared */
    const double *mul = paper ? s->om : NULL, *mask = paper ? NULL : s->om;
    if (step.c) {
      const col_stepped_at z = {x, step.dinv, step.Mp, &step.c->alpha};
      const unsigned gc = blocks_for(s->cap);
      const cuda_wblk &b = k->blk;
      k_blk_cols<col_stepped_at>
          <<<gc, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, b, z, 1, 0, mul, mask, gate);
    } else {
      int rc = sim_cuda_blk_cols(k, x, 1, 0, mul, mask, gate, st);
      if (rc) return rc;
    }
  }
  const cuda_wblk &b = k->blk;
  if (wf)
    k_sys_gemv_dot<float><<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, nb, paper, wf, b, s->om, s->e, x, y,
                                                        gate, s->part, dst, s->gcount, then, first,
                                                        step);
  else
    k_sys_gemv_dot<double><<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, nb, paper, sim_cuda_w_of(k), b,
                                                         s->om, s->e, x, y, gate, s->part, dst,
                                                         s->gcount, then, first, step);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// Jacobi-preconditioned Conjugate Residual on the system from x = dlam (cr.c
// sim_cr_solve_pc, the same decisions taken on the device: cr_dev), its iterations added to
// nsn_dev's total; nothing once the Newton steps stopped. With no tolerance (the default: a
// fixed count) the iterations queue without a synchronisation; with one, the host reads whether
// to go on once per iteration. The start's product never reads W (sys_apply's x_zero): x = dlam
// is zero on every coupled row, and the compliance form's product passes only those rows' x to
// W (k_sys_pre, sys_row); the paper's form starts from zero. The host's CR (cr.c) multiplies
// and gets the same +0.0. Until 2026-11-28 W was read there at every Newton step; until
// 2026-11-29 wherever a decoupled row moved (one Newton step in 30 at most on the CPU over
// Table 3's first frames with contact), and matrix-free at every step. Fused, the start's
// product is no launch of its own: k_cr_start_bb_rr forms each row's from x (since 2026-12-02;
// one launch fewer a Newton step with a dense W, a memset and a launch fewer matrix-free).
static int cr_solve(cuda_contact *k, const double *dinv, const double *b, double *x,
                    cr_tally *tally, sim_status *st) {
  cuda_nsn *s = k->dn;
  cr_dev *c = s->crd;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  const int *go = &s->ctl->go, *on = &c->active;
  int m = 3 * s->cap, rc; /* the rows the arrays hold: the grids' */
  unsigned g = blocks_for(m);
  double *r = s->cr[0], *p = s->cr[1], *Mz = s->cr[2], *Mp = s->cr[3];
  double *z = dinv ? s->cr[4] : r;
  cudaStream_t sm = stream(k);
  if (s->fuse) { /* b b, Mz, r, its sum of squares and z in one launch (k_cr_start_bb_rr) */
    const dim3 gs(reduce_blocks(m), 2);
    const int paper = o->form == SIM_NSN_FORM_PAPER;
    k_cr_start_bb_rr<<<gs, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, c, paper, s->om, s->e, x, b, Mz, dinv,
                                                    r, z, go, s->part, s->count,
                                                    cr_then(k, THEN_CR_INIT));
  } else {
    if ((rc = sys_apply(k, x, Mz, go, 1, st))) return rc;
    k_cr_start<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, b, Mz, r, go);
    if ((rc = reduce_to(k, b, NULL, b, c->red[CR_BB], THEN_NOTHING, st)) ||
        (rc = reduce_to(k, r, NULL, r, c->red[CR_RR], THEN_CR_INIT, st)))
      return rc;
  }
  const double *last_p = NULL; /* fused: CR's last step left to the update after it */
  int active = o->cr_iters > 0;
  if (active && o->cr_tol > 0.0 && (rc = read_flag(k, on, &active, st))) return rc;
  if (active) {
    if (dinv && !s->fuse) k_mul<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, dinv, r, z, on);
    /* fused in one launch: with CR's first direction (p = z, Mp = Mz, its step length) */
    const int merged = dot_fused(k);
    const cr_first first = merged ? cr_first{c, p, Mp, c->red[CR_MPD], dinv} : cr_first{};
    if ((rc = sys_apply_dot(k, z, Mz, on, c->red[CR_ZMZ], THEN_CR_ZMZ, st, first))) return rc;
    if (!s->fuse) { /* fused: in k_cr_dir_mpd's first launch */
      k_copy<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, z, p, on);
      k_copy<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, Mz, Mp, on);
    }
    const unsigned nb = reduce_blocks(m);
    /* merged with a fixed count (nothing read between the step and the next product) and
       Jacobi's z: each step in the next product's launch, z in two arrays by turns (zc: z
       before this iteration's step), unless SIMCTL_CUDA_CR_STEP=apart */
    const int stepped = merged && dinv && !(o->cr_tol > 0.0) && s->cr_step_merged;
    double *zc = z;
    for (int it = 0; it < o->cr_iters; it++) {
      if (s->fuse) { /* the direction, then the step, each with the reduction it feeds */
        if (!(merged && it == 0))
          k_cr_dir_mpd<<<nb, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, c, it == 0, zc, Mz, dinv, p, Mp,
                                                      s->part, s->count, cr_then(k, THEN_CR_ALPHA));
        if (it + 1 >= o->cr_iters) /* the last step: the update after CR (cr_last_step) */
          last_p = p;
        else if (!stepped)
          k_cr_step_rr<<<nb, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, c, p, Mp, dinv, x, r, zc, s->part,
                                                      s->count, cr_then(k, THEN_CR_CHECK));
      } else {
        if ((rc = reduce_to(k, Mp, dinv, Mp, c->red[CR_MPD], THEN_CR_ALPHA, st))) return rc;
        k_cr_step<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, c, p, Mp, dinv, x, r, z);
        if ((rc = reduce_to(k, r, NULL, r, c->red[CR_RR], THEN_CR_CHECK, st))) return rc;
      }
      if (it + 1 >= o->cr_iters) break;
      if (o->cr_tol > 0.0) {
        if ((rc = read_flag(k, on, &active, st))) return rc;
        if (!active) break;
      }
      if (stepped) { /* the step (k_cr_step_rr's), its stop test, then the product */
        double *zn = zc == z ? s->cr[5] : z;
        const cr_step step = {c, p, Mp, dinv, x, r, zn, o->cr_iters};
        rc = sys_apply_dot(k, zc, Mz, on, c->red[CR_ZMZ1], THEN_CR_BETA, st, cr_first{}, step);
        zc = zn;
      } else {
        rc = sys_apply_dot(k, z, Mz, on, c->red[CR_ZMZ1], THEN_CR_BETA, st);
      }
      if (rc) return rc;
      if (!s->fuse) k_cr_dir<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, c, z, Mz, p, Mp);
    }
  }
  /* its count (read with the rest at the iteration's end) and its end's stamp (cst_solve's
     end), for the update after it, and fused its last step */
  tally->c = c, tally->n = s->ctl, tally->p = last_p, tally->x = x;
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_CR1, &tally->end, st))) return rc;
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// Backtracking on the merit (nsn.c line_search): lambda + alpha dlambda for alpha = 1, 1/2, ...
// up to line_search halvings, the first whose merit is low enough becoming lambda (none:
// lambda stays). With a dense W the full step goes alone, the one taken most often (on the
// CPU, Table 3's frames: all 2,310 Newton steps of squeezing_ball, 2,827 of 2,865 of
// gingerbread_man, 1,063 of 1,183 of pulling_wooper), then the other step lengths in batches
// of SIM_W_BATCH, each batch's products in one pass over W, and the host does not wait: a
// batch after the accepting trial does nothing (the `search` gate). A batch's products read
// each of its vectors for every entry of W: with 9 trials at once (the default 8 halvings)
// the squeezing ball's Newton step took about 600 µs outside CR on an H200 (2026-11-28,
// assemble 8.9 ms over 15 steps; by the kernels' count mostly the batch, not profiled), where
// one product costs some 50. Matrix-free, one trial at a time, the host
// reading whether to go on where it reads the decisions (sim_cuda_nsn_reads), else as with a
// dense W, each batch's products in one pass over S's contact columns. Fused, a trial alone is
// its product with H q (k_w_then with a dense W), then its
// NCP values, merit and pick (k_ncp_reduce); a batch likewise (k_w_then over the batch,
// k_ncp_pick), and with a dense W the last batch's acceptance also forms f
// (k_ls_accept_force; *forced: it did). Unfused, a trial alone's pick is taken by its
// reduction's last block (THEN_LS_PICK), a batch's by k_ls_pick.
static int line_search(cuda_contact *k, cr_tally tally, int *forced, sim_status *st) {
  cuda_nsn *s = k->dn;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  int nc = s->cap, m = 3 * nc, rc, reads = sim_cuda_nsn_reads(k); /* the grids' */
  size_t s3 = 3 * (size_t)s->cap;
  const int *on = &s->ctl->search;
  double h2 = o->h * o->h;
  cudaStream_t sm = stream(k);
  ls_take take = {};
  double *y = reuse_wf(k) ? s->y : NULL; /* the accepted trial's W ltry kept as W f */
  *forced = 0;
  for (int t0 = 0; t0 <= o->line_search;) {
    /* the full step alone first, the one usually taken (the batch after it does nothing
       once it is), so that W's product is not made for every trial each step */
    int K = reads || t0 == 0 ? 1 : o->line_search + 1 - t0;
    if (K > SIM_W_BATCH) K = SIM_W_BATCH;
    k_update<<<blocks_for((long long)nc * K), SIM_CUDA_BLOCK, 0, sm>>>(
        k->dnc, K, t0, s3, s->comp, s->mu, o->max_force, s->lam, s->dlam, s->ltry, on, tally, take);
    tally = cr_tally{}, take = ls_take{};
    const ncp_args a = ncp_at(k, s->htry, s->ltry, 0);
    if (s->fuse && K == 1) {
      if ((rc = w_then<W_THEN_LS_HQ>(k, s->ltry, s->ytry, h2, s->hq, s->wl, s->htry, on, st)))
        return rc;
      red_then pick = {THEN_LS_PICK, NULL, s->ctl, NULL, 0.0, t0, t0 + K > o->line_search};
      k_ncp_reduce<<<reduce_blocks(nc), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, a, on, s->part, s->res,
                                                                 s->count, pick);
    } else if (s->fuse && k->w_dense) { /* a batch: products with their H q, NCP and pick */
      const unsigned gw = sim_cuda_blocks(32LL * m);
      const dim3 gp(reduce_blocks(nc), (unsigned)K);
      if (k->blk.on && (rc = sim_cuda_blk_cols(k, s->ltry, K, s3, NULL, NULL, on, st))) return rc;
      const double *W = sim_cuda_w_of(k);
      k_w_then<W_THEN_LS_HQ, SIM_W_BATCH>
          <<<gw, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, W, k->blk, s->ltry, s->ytry, K, s3, h2, s->hq,
                                          s->wl, s->htry, on, (const int *)NULL);
      k_ncp_pick<<<gp, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, a, on, s->part, s->res, s->count, s->ctl,
                                                t0, t0 + K > o->line_search);
    } else {
      rc = sim_cuda_w_apply(k, s->ltry, s->ytry, K, s3, sim_cuda_w_gate(k, on), st);
      if (rc) return rc;
      k_ls_hq<<<blocks_for((long long)m * K), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, K, s3, s->hq, h2,
                                                                       s->ytry, s->wl, s->htry, on);
      k_ncp<<<blocks_for((long long)nc * K), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, K, a, on);
      const int last = t0 + K > o->line_search;
      red_then then = {K == 1 ? THEN_LS_PICK : THEN_NOTHING, NULL, s->ctl, NULL, 0.0, t0, last};
      if ((rc = queue_reduce(k, 1, s->mterm, NULL, NULL, s->pterm, K, (size_t)s->cap, s->res, then,
                             st)))
        return rc;
      if (K > 1) k_ls_pick<<<1, 1, 0, sm>>>(s->ctl, s->res, K, t0, last);
    }
    if (s->fuse && !reads && t0 + K > o->line_search) { /* the last batch */
      k_ls_accept_force<<<blocks_for(m), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->ctl, s3, s->ltry,
                                                                  s->lam, s->f, s->ytry, y);
      *forced = 1;
    } else if (s->fuse && !reads) { /* taken by the next batch's update */
      take = ls_take{s->ctl, s3, s->ltry, s->lam, s->ytry, y};
    } else {
      k_ls_accept<<<blocks_for(m), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->ctl, s3, s->ltry, s->lam,
                                                            s->ytry, y, t0 + K > o->line_search);
    }
    SIM_CU(cudaGetLastError(), st);
    t0 += K;
    if (reads && t0 <= o->line_search) {
      int open = 0;
      if ((rc = read_flag(k, on, &open, st))) return rc;
      if (!open) break;
    }
  }
  return SIM_OK;
}

// The lagged system (the paper's friction rows) by Conjugate Residual: the right-hand side, the
// decoupled rows, the coupled rows' right-hand side less W dlam where one moved, Jacobi's
// preconditioner, then CR (nsn.c sim_nsn_iterate_w); *tally for the update after it.
static int lagged_system(cuda_contact *k, cr_tally *tally, sim_status *st) {
  cuda_nsn *s = k->dn;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  int m = 3 * s->cap, paper = o->form == SIM_NSN_FORM_PAPER, rc; /* the grids' */
  const int *go = &s->ctl->go;
  unsigned g = blocks_for(m);
  cudaStream_t sm = stream(k);
  double ih2 = 1.0 / (o->h * o->h);
  if (!s->fuse) { /* fused: in k_rhs_decoupled_jacobi, below */
    k_copy<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->y, s->wl, go);
    k_rhs<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, ih2, s->om, s->hq, s->hab, s->phi, s->y,
                                        s->rhs, go);
  }
  /* the coupled rows' right-hand side less W dlam when a decoupled row moved, as nsn.c (on
     the CPU over Table 3's first frames with contact one Newton step in 30 at most:
     cloth_on_knives 17 of 500, gingerbread_man 4 of 500, grabbing_raptor none). The paper's
     form has no decoupled rows. Where the host reads the decisions, it reads the flag;
     else the product is queued with the flag as its gate (until 2026-11-28 it ran at every Newton
     step, subtracting zeros: a product with W a step, some 50 µs on the squeezing ball). */
  const int read_moved = !paper && sim_cuda_nsn_reads(k);
  /* cst_solve as nsn.c counts it: decoupled rows, Jacobi, CR; its start stamped by the first
     kernel (fused, the right-hand side, in the same launch, counts to cst_solve). The flag
     is 0 here: the step's judge (ncp_start) cleared it, so no memset stands between the
     graph's kernels (2026-12-03: one a Newton step broke the programmatic edges' chain) */
  nsn_stamp_at cr0;
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_CR0, &cr0, st))) return rc;
  if (s->fuse) /* with the right-hand side and Jacobi's preconditioner, fused */
    k_rhs_decoupled_jacobi<<<g, SIM_CUDA_BLOCK, 0, sm>>>(
        k->dnc, paper, ih2, s->om, s->hq, s->hab, s->phi, s->y, s->wl, s->e, s->rhs, s->dlam,
        paper ? NULL : s->moved, s->wd, o->cr_jacobi ? s->pc : NULL, go, cr0);
  else
    k_decoupled<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, s->e, s->rhs, s->dlam, s->moved,
                                              go, cr0);
  int moved = !paper && !sim_cuda_nsn_reads(k);
  if (read_moved && (rc = read_flag(k, s->moved, &moved, st))) return rc;
  if (moved &&
      (rc = w_then<W_THEN_SUB>(k, s->dlam, s->tmp, 0.0, s->om, NULL, s->rhs, s->moved, st)))
    return rc;
  if (o->cr_jacobi && !s->fuse)
    k_jacobi<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, s->wd, s->e, s->pc, go);
  return cr_solve(k, o->cr_jacobi ? s->pc : NULL, s->rhs, s->dlam, tally, st);
}

// The exact system (contact.newton_jacobian "exact", compliance form) by GMRES (gmres_cuda.h),
// W lambda kept for the line search first (the lagged system's k_rhs_decoupled_jacobi keeps it).
static int exact_system(cuda_contact *k, cr_tally *tally, sim_status *st) {
  cuda_nsn *s = k->dn;
  k_copy<<<blocks_for(3 * s->cap), SIM_CUDA_BLOCK, 0, stream(k)>>>(k->dnc, s->y, s->wl,
                                                                   &s->ctl->go);
  nsn_stamp_at cr0;
  int rc = sim_cuda_nsn_stamp_at(k, NSN_AT_CR0, &cr0, st);
  if (!rc) rc = sim_cuda_gmres_step(k, cr0, st);
  if (rc) return rc;
  *tally = cr_tally{s->crd, s->ctl, {}, NULL, s->dlam};
  return sim_cuda_nsn_stamp_at(k, NSN_AT_CR1, &tally->end, st);
}

// One Newton step at hq (nsn.c sim_nsn_iterate_w with W lambda in s->y), all of it skipped on
// the device once a step's start met newton_tol (the `go` gate). *stopped: the host knows that
// this step's start met it (where the host reads the decisions: sim_cuda_nsn_reads). The
// solve (decoupled rows, Jacobi, CR; or the exact system by GMRES) is timed by a pair of stamps.
// judged: the caller queued the step's start (ncp_start) and read that it goes on.
static int iterate(cuda_contact *k, int judged, int *stopped, sim_status *st) {
  cuda_nsn *s = k->dn;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  int nc = s->cap, m = 3 * nc, paper = o->form == SIM_NSN_FORM_PAPER, rc; /* the grids' */
  const int *go = &s->ctl->go;
  unsigned g = blocks_for(m);
  cudaStream_t sm = stream(k);
  int forced = 0; /* f formed with the update (fused) */
  *stopped = 0;
  if (!judged && (rc = ncp_start(k, o->newton_tol, 0, st))) return rc;
  if (!judged && sim_cuda_nsn_reads(k)) {
    int on = 0;
    if ((rc = read_flag(k, go, &on, st))) return rc;
    *stopped = !on;
  }
  if (!*stopped) {
    if (paper && s->fuse && k->w_dense) { /* y = W Omega lambda, Omega lambda formed as read */
      if (k->blk.on && (rc = sim_cuda_blk_cols(k, s->lam, 1, 0, s->om, NULL, go, st))) return rc;
      k_w_then<W_OF_U_X, 1><<<blocks_for(32LL * m), SIM_CUDA_BLOCK, 0, sm>>>(
          k->dnc, sim_cuda_w_of(k), k->blk, s->lam, s->y, 1, 0, 0.0, s->om, NULL, NULL, go, NULL);
    } else if (paper && k->blk.on) { /* W's block form: Omega lambda prepared in k_mul's place */
      if ((rc = sim_cuda_blk_cols(k, s->lam, 1, 0, s->om, NULL, go, st)) ||
          (rc = sim_cuda_w_apply_dense(k, NULL, NULL, s->y, 1, 0, go, st)))
        return rc;
    } else if (paper && fused_cols(k)) { /* Omega lambda formed as H^T's gather reads it */
      const cuda_sys_rows r = {s->om, NULL, 0, 0, NULL, NULL, NULL};
      if ((rc = sim_cuda_w_apply_sys(k, s->lam, s->y, go, r, st))) return rc;
    } else if (paper) { /* the same in two launches (the compliance form's W lambda is in y) */
      k_mul<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->om, s->lam, s->tmp, go);
      if ((rc = w_apply(k, s->tmp, s->y, go, st))) return rc;
    }
    cr_tally tally; /* the solve's count and end stamp, made by the update after it */
    rc = o->friction_exact ? exact_system(k, &tally, st) : lagged_system(k, &tally, st);
    if (rc) return rc;
    if (!paper && o->line_search > 0) {
      rc = line_search(k, tally, &forced, st);
    } else if (s->fuse) {
      k_update_force<<<blocks_for(nc), SIM_CUDA_BLOCK, 0, sm>>>(
          k->dnc, paper, s->comp, s->mu, o->max_force, s->om, s->lam, s->dlam, s->f, go, tally);
      forced = 1;
    } else {
      k_update<<<blocks_for(nc), SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, 1, 0, 0, s->comp, s->mu,
                                                          o->max_force, s->lam, s->dlam, s->lam, go,
                                                          tally, ls_take{});
    }
    if (rc) return rc;
  }
  /* f = F lambda: after the update, or lambda standing (a step's start has f = 0, as nsn.c);
     once the steps stopped, the same values again */
  if (!forced) k_force<<<g, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, s->lam, s->f);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// An L-G iteration's contact stage queued on the stream, its boundaries stamped: the
// unconstrained solve, H A^{-1} b, the Newton steps from f (the first L-G iteration of a step
// linearises at the warm start, later ones at f: stage.c; the caller copies the warm start into
// f first), the correction; then its statistics added to the sums.
static int queue_iteration(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  cuda_ctx *c = k->cx;
  int rc;
  double h2 = c->m->h * c->m->h;
  /* the buckets are timed by stamps (no wait for the host's timers): global, assemble and
     cst_solve, corr; the first with the decisions' reset, the last with the tally */
  nsn_stamp_at start;
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_START, &start, st))) return rc;
  k_nsn_reset<<<1, 1, 0, c->stream>>>(s->ctl, start, nsn_no_stamp());
  if ((rc = sim_cuda_solve_into(c, c->rhs, c->vec[SIM_VEC_Q], 1.0, 0, st))) return rc;
  nsn_stamp_at solved, newton; /* stamped by H's product and H^T's gather */
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_SOLVED, &solved, st))) return rc;
  if ((rc = sim_cuda_h_apply_at(k, c->vec[SIM_VEC_Q], 0, s->hab, solved, st))) return rc;
  const int *stale = reuse_wf(k) ? &s->ctl->wf_stale : NULL;
  for (int step = 0; step < k->stage.newton_steps; step++) {
    int stopped = 0;
    rc = w_then<W_THEN_HQ>(k, s->f, s->y, h2, s->hab, NULL, s->hq, &s->ctl->go, st, stale);
    if (rc || (rc = iterate(k, 0, &stopped, st))) return rc;
    if (stopped) break;
  }
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_NEWTON, &newton, st))) return rc;
  rc = sim_cuda_ht_gather_at(k, s->f, newton, st);
  if (!rc) rc = sim_cuda_solve_into(c, k->g, c->vec[SIM_VEC_Q], h2, 1, st);
  if (rc) return rc;
  return sim_cuda_nsn_tally(k, 0, st); /* and the end's stamp */
}

// Whether this step's L-G iterations run as a CUDA graph: where the host reads no decision (W
// dense, or matrix-free queued on) and there is no CR tolerance (or the exact system, whose
// GMRES then reads none, tolerance or not), the host reads nothing inside one
// (SIMCTL_CUDA_GRAPH=on, the default; off: launches one by one); the run's first such iteration
// is launched one by one all the same (cuda_nsn.warm).
static int graphed(const cuda_contact *k) {
  const sim_nsn_options *o = &k->stage.nsn.opt;
  return k->dn->graph_on && !sim_cuda_nsn_reads(k) && (!(o->cr_tol > 0.0) || o->friction_exact);
}

// The iteration captured into a graph (kept in s->exec, with its stamps' count) at a step's
// first L-G iteration; the same kernels with the same arguments at its later ones. The graph
// of the step before is updated in place where the driver can (the same kernels in the same
// order, other sizes and arguments: cudaGraphExecUpdate), else instantiated anew.
static int queue_graphed(void *arg, sim_status *st) {
  return queue_iteration((cuda_contact *)arg, st);
}

// What the iteration's kernels take as arguments besides the model's constants, the options
// and arrays that live as long as the solve: the arrays that grow with the contacts, which
// move only when their capacities grow (the grids follow those capacities: the kernels read
// the count itself on the device, cuda_contact.dnc), whether there are contacts at all, and
// the dense W, or the matrix-free W's arrays. A step whose signature is the graph's launches
// the graph as it is, without a
// capture: the contact count alone changing costs none (a capture of the default settings'
// iteration, some 440 kernels, cost about 0.3 ms on an H200: docs/gpu_checklist.md).
static nsn_graph_sig graph_sig(const cuda_contact *k) {
  nsn_graph_sig g = {};
  g.any = k->stage.nc > 0, g.nc_cap = k->nc_cap, g.nt_cap = k->nt_cap, g.cap = k->dn->cap;
  g.W = sim_cuda_w_of(k), g.Wf = cr_wf(k);
  if (k->blk.on) g.blk = k->blk;
  const cuda_wcols &w = k->wcols;
  if (!k->w_dense) g.ycol = w.ycol, g.first = w.first, g.m_cap = w.m_cap, g.wn = w.n, g.z = w.z;
  g.g = k->g, g.wq = k->wq; /* the correction's H^T f too, W dense or not */
  return g;
}

static int same_sig(const nsn_graph_sig *a, const nsn_graph_sig *b) {
  const cuda_wblk &p = a->blk, &q = b->blk;
  return a->any == b->any && a->nc_cap == b->nc_cap && a->nt_cap == b->nt_cap && a->cap == b->cap &&
         a->W == b->W && a->Wf == b->Wf && p.on == q.on && p.cap == q.cap && p.ncab == q.ncab &&
         p.G == q.G && p.frame == q.frame && p.cab_row == q.cab_row && p.cab_j == q.cab_j &&
         p.t == q.t && p.xp == q.xp && a->ycol == b->ycol && a->first == b->first &&
         a->m_cap == b->m_cap && a->wn == b->wn && a->g == b->g && a->wq == b->wq && a->z == b->z;
}

// The stamps the capture counts are its launches'; none is queued by the capture itself.
static int capture(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  const int before = s->queued;
  int rc = sim_cuda_graph_capture(k->cx, &s->exec, NULL, queue_graphed, k,
                                  "the device Newton solve", st);
  s->graph_stamps = s->queued - before;
  s->queued = before;
  if (!rc) s->sig = graph_sig(k);
  return rc;
}

int sim_cuda_nsn_global(cuda_contact *k, sim_cst_times *t, sim_status *st) {
  cuda_nsn *s = k->dn;
  cuda_ctx *c = k->cx;
  int m = 3 * k->stage.nc;
  const int first = k->stage.first;
  k->stage.first = 0;
  s->t = t;
  s->pending = 1;
  if (first) { /* the step's first iteration linearises at the warm start: f = lambda for it */
    SIM_CU(cudaMemcpyAsync(s->f, s->lam, sizeof(double) * (size_t)m, cudaMemcpyDeviceToDevice,
                           c->stream),
           st);
    SIM_CU(cudaMemsetAsync(&s->ctl->wf_stale, 1, sizeof(int), c->stream), st); /* y is not W f */
  }
  int launch = graphed(k) && s->warm;
  const nsn_graph_sig sig = graph_sig(k);
  if (launch && !(s->exec && same_sig(&s->sig, &sig)) && capture(k, st)) {
    /* refused (nothing of it ran): launched one by one, now and for the rest of the run */
    if (sim_cuda_graph_fallback(c, &s->graph_on, st)) return st->code;
    launch = 0;
  }
  if (launch) {
    int rc = sim_cuda_nsn_room(k, s->graph_stamps, st);
    if (rc) return rc;
    SIM_CU(cudaGraphLaunch(s->exec, c->stream), st);
    s->queued += s->graph_stamps;
    return SIM_OK;
  }
  /* the run's first graphable iteration is launched one by one, so that what the libraries
     and the driver set up at a first call (cuSPARSE's triangular solves with Cholesky)
     happens outside a capture; the next one captures */
  s->warm |= graphed(k);
  return queue_iteration(k, st);
}

// fend = f - fend: the end pass's change of f (f before it in fend).
static __global__ void k_fchange(const int *nc, const double *f, double *fend) {
  SIM_PDL_WAIT();
  const int m = 3 * *nc;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) fend[i] = f[i] - fend[i];
}

// The device's decisions to the host: a wait.
static int read_ctl(cuda_contact *k, nsn_dev *out, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(out, k->dn->ctl, sizeof *out, cudaMemcpyDeviceToHost, stream(k)), st);
  SIM_CU(cudaStreamSynchronize(stream(k)), st);
  return SIM_OK;
}

int sim_cuda_nsn_finish(cuda_contact *k, sim_cst_times *t, sim_status *st) {
  const sim_contact_stage *g = &k->stage;
  if (g->nc == 0 || !(g->end_tol > 0.0)) return SIM_OK;
  cuda_nsn *s = k->dn;
  cuda_ctx *c = k->cx;
  const sim_nsn_options *o = &g->nsn.opt;
  const double h2 = c->m->h * c->m->h;
  const int paper = o->form == SIM_NSN_FORM_PAPER;
  cudaStream_t sm = stream(k);
  s->t = t;
  s->pending = 1;
  nsn_stamp_at start, solved, newton;
  int rc = sim_cuda_nsn_stamp_at(k, NSN_AT_START, &start, st);
  if (!rc) rc = sim_cuda_nsn_stamp_at(k, NSN_AT_SOLVED, &solved, st); /* no A^{-1} b: hab stands */
  if (rc) return rc;
  k_nsn_reset<<<1, 1, 0, sm>>>(s->ctl, start, solved);
  SIM_CU(cudaMemcpyAsync(s->fend, s->f, sizeof(double) * 3 * (size_t)g->nc,
                         cudaMemcpyDeviceToDevice, sm),
         st);
  /* y is W f where the iterations kept it (reuse_wf), so the first product is skipped there */
  const int *stale = reuse_wf(k) ? &s->ctl->wf_stale : NULL;
  int steps = 0;
  nsn_dev now;
  for (;;) { /* at hab + h^2 W f; the last start past end_newton_steps only evaluates */
    rc = w_then<W_THEN_HQ>(k, s->f, s->y, h2, s->hab, NULL, s->hq, &s->ctl->go, st, stale);
    /* max |phi| over the merit's rows decides; past end_newton_steps it only evaluates */
    if (!rc) rc = ncp_start(k, steps == g->end_steps ? HUGE_VAL : g->end_tol, 1, st);
    if (!rc) rc = read_ctl(k, &now, st);
    if (rc) return rc;
    if (!now.go) break;
    const int none = now.ls.none;
    int stopped = 0;
    if ((rc = iterate(k, 1, &stopped, st)) || (rc = read_ctl(k, &now, st))) return rc;
    steps++;
    if (now.ls.none > none) break; /* lambda stood: every further step would be this one */
  }
  t->end_phi = fmax(t->end_phi, now.pmax0);
  t->end_steps += steps;
  t->end_unmet += !(now.pmax0 <= g->end_tol);
  t->nonfinite |= !std::isfinite(now.merit0);
  if (steps == 0) return sim_cuda_nsn_tally(k, 1, st); /* f stands */
  /* f = F lambda at the last start (nsn.c's stop), and its change through the correction */
  const unsigned gr = blocks_for(3 * s->cap);
  k_force<<<gr, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, paper, s->om, s->lam, s->f);
  k_fchange<<<gr, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->f, s->fend);
  SIM_CU(cudaGetLastError(), st);
  if ((rc = sim_cuda_nsn_stamp_at(k, NSN_AT_NEWTON, &newton, st))) return rc;
  rc = sim_cuda_ht_gather_at(k, s->fend, newton, st);
  if (!rc) rc = sim_cuda_solve_into(c, k->g, c->vec[SIM_VEC_Q], h2, 1, st);
  return rc ? rc : sim_cuda_nsn_tally(k, 0, st);
}

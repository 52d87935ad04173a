// SPDX-License-Identifier: MIT
// The device Newton solve's fused kernels (SIMCTL_CUDA_FUSE=on): each does in one launch what
// two or three of gpu/nsn_cuda.cu's separate launches do, with the same products and sums in
// the same order, so the same bits; and the per-contact NCP evaluation both share. Included by
// gpu/nsn_cuda.cu alone (no launch here). A launch costs the device solve about 2.5 us on an
// H200 whatever its size (docs/cuda_backend.md), and a Newton step on a small W is made of them.
#ifndef SIM_GPU_NSN_FUSED_CUH
#define SIM_GPU_NSN_FUSED_CUH
#include "nsn_reduce.cuh"
#include "pdl.cuh"

extern "C" {
#include "../core/contact/nsn_row.h"
}

// What the NCP evaluation reads and writes (k_ncp, k_ncp_reduce): the point (hq, lam; vector t
// at + t s3), the step's per-contact data, and the values (phi, om, e: each optional, one
// vector only; a contact's merit term and max |phi| at mterm, pterm + t s1).
typedef struct ncp_args {
  sim_ncp_kind kind;
  double h, max_force;
  const double *comp, *mu, *d, *hqt, *w, *hq, *lam;
  double *phi, *om, *e, *mterm, *pterm;
  size_t s3, s1;
  int merit_max;  // max |phi| over the merit's rows alone (nsn.h merit_max: the end pass)
} ncp_args;

// Contact j's NCP values at vector t (nsn.c ncp_eval): its merit term, over the normal and
// bilateral rows, and its max |phi| (over those alone with a.merit_max).
static __device__ void ncp_contact(const ncp_args &a, int j, int t) {
  size_t i = 3 * (size_t)j, v = t * a.s3 + i;
  double o[3], ee[3], ph[3], mt = 0.0, pm = 0.0;
  sim_nsn_contact_ncp(a.kind, a.h, a.comp[j], a.mu[j], a.max_force, a.d + i, a.hq + v, a.hqt + i,
                      a.w + i, a.lam + v, ph, o, ee);
  for (int r = 0; r < 3; r++) {
    if (a.phi) a.phi[i + r] = ph[r];
    if (a.om) a.om[i + r] = o[r];
    if (a.e) a.e[i + r] = ee[r];
    const int in_merit = r == 0 || a.comp[j] >= 0.0;
    if (in_merit || !a.merit_max) pm = fmax(pm, fabs(ph[r]));
    if (in_merit) mt += 0.5 * ph[r] * ph[r];
  }
  a.mterm[t * a.s1 + j] = mt;
  a.pterm[t * a.s1 + j] = pm;
}

// k_ncp (one vector) and the reduction of its merit terms and max |phi| (k_reduce_last) in one
// launch, on the reduction's blocks for nc: a thread evaluates its contacts where *gate is
// open and adds what mterm and pterm hold (where it is closed, what the separate reduction
// would find there); the last block takes `then` (the Newton step's judge, a trial's pick).
static __global__ void k_ncp_reduce(const int *nc, ncp_args a, const int *gate, double *part,
                                    double *res, int *count, red_then then) {
  SIM_PDL_WAIT();
  const int open = *gate;
  update_reduce_max(
      *nc,
      [=](long long j) {
        if (open) ncp_contact(a, (int)j, 0);
        return sum_max{a.mterm[j], a.pterm[j]};
      },
      part, res, count, then);
}

// K line-search trials' NCP values (k_ncp) and their merits' reductions (k_reduce_last's K
// batches) in one launch, grid (the reduction's blocks for nc, K): trial blockIdx.y's
// contacts evaluated where *gate is open, its batch's last block adding its blocks' partials
// into res + 2 t; the last of those batches (count[SIM_W_BATCH]) picks among the K trials
// t0 .. t0 + K - 1 as k_ls_pick does (last: the search's last batch).
static __global__ void k_ncp_pick(const int *nc, ncp_args a, const int *gate, double *part,
                                  double *res, int *count, nsn_dev *n, int t0, int last) {
  SIM_PDL_WAIT();
  const int open = *gate, t = (int)blockIdx.y, K = (int)gridDim.y;
  if (!reduce_batches_last(
          *nc,
          [=](long long j) {
            if (open) ncp_contact(a, (int)j, t);
            return sum_max{a.mterm[t * a.s1 + j], a.pterm[t * a.s1 + j]};
          },
          part, [=](int y) { return res + 2 * y; }, count))
    return;
  const volatile double *vr = res; /* the other batches' last blocks wrote theirs */
  double r[2 * SIM_W_BATCH];
  for (int q = 0; q < 2 * K; q++) r[q] = vr[q];
  ls_pick(n, r, K, t0, last);
}

// What k_w_then does with a row's product, as the separate launch after the product did.
enum {
  W_THEN_HQ,     // w = u + h2 out                    (k_hq: u = H A^-1 b, w = H q)
  W_THEN_SUB,    // w -= out where u couples the row  (k_sub_coupled: u = Omega, w = rhs)
  W_THEN_LS_HQ,  // w = u + h2 (out - v)              (k_ls_hq for one trial: u = H q, v = W lambda)
  W_OF_U_X       // out = W (u x), u x formed as W's row is read (k_mul: u = Omega, x = lambda)
};

// out_t = W x_t for a dense row-major W (m x m) in double and K <= KB vectors (x_t = x + t xs,
// out and w likewise; k_gemv<KB, double>'s loop and sums), then row i's `E` (W_THEN_*) for
// each by the lane that holds its sums (W_THEN_LS_HQ: a line search's batch of trials, KB
// SIM_W_BATCH, as k_ls_hq after the batch's product); nothing where *gate is 0. Where stale is
// given and *stale is 0, out holds W x already (K 1: the line search's accepted trial's) and W
// is not read.
// With b.on, W is G of W's block form and x has been prepared into b (k_blk_cols, with u
// for W_OF_U_X).
template <int E, int KB>
static __global__ void k_w_then(const int *nc, const double *W, cuda_wblk b, const double *x,
                                double *out, int K, size_t xs, double h2, const double *u,
                                const double *v, double *w, const int *gate, const int *stale) {
  SIM_PDL_WAIT();
  int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int m = 3 * *nc;
  if (i >= m || !*gate) return; /* whole warps: i and *gate are the warp's */
  double a[KB];
  if (stale && !*stale)
    a[0] = out[i];
  else if (b.on)
    sim_blk_row_dots<KB>(*nc, W, b, i, K, lane, a);
  else
    sim_dense_row_dots<KB>(m, W + (size_t)i * (size_t)m, x, K, xs, lane, a,
                           E == W_OF_U_X ? u : NULL);
  for (int t = 0; lane == 0 && t < K; t++) {
    const size_t o = t * xs + (size_t)i;
    out[o] = a[t];
    if (E == W_THEN_HQ)
      w[o] = u[i] + h2 * a[t];
    else if (E == W_THEN_SUB && sim_nsn_coupled(u[i]))
      w[o] -= a[t];
    else if (E == W_THEN_LS_HQ)
      w[o] = u[i] + h2 * (a[t] - v[i]);
  }
}

// What the Newton system multiplies, column by column: x's values (col_of, contact_cuda.h), or
// Conjugate Residual's z after a step that no launch of its own has taken (col_stepped:
// k_cr_step's expression, so the same bits; col_stepped_at reads the step length on the
// device, for W's block form's vectors prepared before the launch that takes the step).
struct col_stepped {
  const double *z, *dinv, *Mp;
  double alpha;
  __device__ double operator()(int j) const { return z[j] - alpha * dinv[j] * Mp[j]; }
};
struct col_stepped_at {
  const double *z, *dinv, *Mp;
  const double *alpha;
  __device__ double operator()(int j) const {
    const double a = *alpha;
    return z[j] - a * dinv[j] * Mp[j];
  }
  __device__ col_stepped_at shifted(size_t) const { return *this; } /* one vector */
};

// Row i of the Newton system times x with a dense W (k_sys_pre, k_gemv<1> and k_sys_post in
// one pass) into y[i], by the warp of lane `lane`: each lane forms its strided part of
// k_sys_pre's vector as it reads the row. T: W's values (float: contact.cr_precision's copy,
// each widened to double). Returns x(i). With b.on, W is G of W's block form, and k_sys_pre's
// vector has been prepared into b (k_blk_cols).
template <typename T, class X>
static __device__ double sys_row(int m, int paper, const T *W, const cuda_wblk &b, const double *om,
                                 const double *e, X x, double *y, int i, int lane) {
  double a = 0.0;
  if (b.on) {
    double q[1];
    sim_blk_row_dots<1, T>(m / 3, W, b, i, 1, lane, q);
    a = q[0];
  } else {
    const T *row = W + (size_t)i * (size_t)m;
    for (int j = lane; j < m; j += 32) {
      const double xj = x(j);
      const double t = paper ? om[j] * xj : (sim_nsn_coupled(om[j]) ? xj : 0.0);
      a += (double)row[j] * t;
    }
    for (int off = 16; off > 0; off /= 2) a += __shfl_down_sync(0xffffffffu, a, off);
  }
  const double xi = x(i);
  if (lane == 0) y[i] = sys_row_end(paper, om[i], e[i], xi, a);
  return xi;
}

// y = the Newton system times x, a warp per row (sys_row), then the sum of x y over the m rows with
// its decision `then` (reduce_to's k_reduce_last, on its partition: reduction block b adds rows
// SIM_CUDA_BLOCK b .. + 255 by block_sum_max's tree, nb >= the grid's reduction blocks), in one
// launch. The blocks of a warp per row that hold reduction block b's rows count themselves in
// gcount[b]; the last of them adds those rows into part[b]; the last of those
// (gcount[SIM_RED_BLOCKS]) adds the parts and decides. Every block with a row below m counts, also
// where *gate is 0 (the separate reduction runs ungated, over what x and y hold then); the blocks
// past m (the grid follows the arrays' capacity) leave at once, and the reduction blocks they would
// have made get +0.0 in the last sum, the partials that the separate reduction's blocks past m
// leave, so the sum has the same bits (until 2026-12-03 they counted too: on the emulation, where
// each barrier switches every thread, some 400 million of `test_emu_contact_ops device`'s 1.13
// billion switches were these blocks' two barriers). With first (Conjugate Residual's first
// direction, k_cr_dir_mpd's first launch, in this one): each row's warp also sets p = x and Mp = y
// where *gate is open, the sum of Mp dinv Mp (dinv optional) goes to first->mpd on the same
// partition and trees (its partials at part + 2 SIM_RED_BLOCKS), and after `then` the last thread
// takes the step length (cr_alpha).
typedef struct cr_first {
  cr_dev *c;
  double *p, *Mp, *mpd;
  const double *dinv;
} cr_first;

// With step (Conjugate Residual's step, k_cr_step_rr, in this launch: gate is &c->active and
// `then` the next direction's weight, THEN_CR_BETA): x is z before the step, and what the
// system multiplies is z after it, each column's formed as the row is read (col_stepped); each
// row's warp also takes its row's step (x += alpha p, r -= alpha Mp, and zn = z after it: another
// array than z, which other warps read while it is written); the sum is zn y, the sum of r r
// goes to c->red[CR_RR] on the same partition and trees (at part + 2 SIM_RED_BLOCKS), and the
// stop test (cr_check) comes before `then`, as in the separate launches. Where the stop test
// ends CR, the product was made all the same, and nothing reads it; where the gate is closed
// (CR stopped before), zn is left as it was: the sums that read it then decide nothing, and
// CR's next start writes z anew.
typedef struct cr_step {
  cr_dev *c;
  const double *p, *Mp, *dinv;
  double *x, *r, *zn;
  int iters;  // cr_iters
} cr_step;

template <typename T>
static __global__ void k_sys_gemv_dot(const int *nc, int nb, int paper, const T *W, cuda_wblk wb,
                                      const double *om, const double *e, const double *x, double *y,
                                      const int *gate, double *part, double *res, int *gcount,
                                      red_then then, cr_first first, cr_step step) {
  SIM_PDL_WAIT();
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int m = 3 * *nc, open = *gate; /* every read of the gate before the last decision */
  if (i < m && open && step.c) {
    const double alpha = step.c->alpha;
    const double zi =
        sys_row(m, paper, W, wb, om, e, col_stepped{x, step.dinv, step.Mp, alpha}, y, i, lane);
    if (lane == 0) {
      step.x[i] += alpha * step.p[i];
      step.r[i] -= alpha * step.Mp[i];
      step.zn[i] = zi;
    }
  } else if (i < m && open) {
    sys_row(m, paper, W, wb, om, e, col_of{x}, y, i, lane);
    if (first.c && lane == 0) first.p[i] = x[i], first.Mp[i] = y[i];
  }
  const int rows = (int)(blockDim.x >> 5), active = blocks_holding(m, rows); /* a row a warp */
  if ((int)blockIdx.x >= active) return; /* the whole block */
  const int per = SIM_CUDA_BLOCK / rows; /* blocks per reduction block */
  const int b = (int)blockIdx.x / per, at = b * per;
  const int of = active - at < per ? active - at : per;
  if (!last_to_count(&gcount[b], of)) return;
  const volatile double *vy = y, *vx = step.c ? step.zn : x, *vr = step.r;
  const long long r = (long long)b * blockDim.x + threadIdx.x;
  double s = 0.0, s2 = 0.0;
  if (r < m) {
    double v = vx[r];
    v *= vy[r];
    s += v;
    if (first.c) { /* k_cr_dir_mpd's value: Mp dinv Mp, Mp = y (where the gate was closed,
                      what Mp held, which nothing reads then: CR does not iterate) */
      double w = open ? vy[r] : first.Mp[r];
      double u = w;
      if (first.dinv) u *= first.dinv[r];
      s2 += u * w;
    }
    if (step.c) s2 += vr[r] * vr[r]; /* k_cr_step_rr's value */
  }
  block_sum_max(blockDim.x, s, 0.0, &part[b], &part[SIM_RED_BLOCKS + b]);
  double *part2 = part + 2 * SIM_RED_BLOCKS;
  if (first.c || step.c) block_sum_max(blockDim.x, s2, 0.0, &part2[b], &part2[SIM_RED_BLOCKS + b]);
  const int blocks = (active + per - 1) / per;
  if (!last_to_count(&gcount[SIM_RED_BLOCKS], blocks)) return;
  /* the last block: both sums by the same tree, then the decisions in the separate launches'
     order */
  sum_parts(blocks, nb, part, res);
  if (first.c) sum_parts(blocks, nb, part2, first.mpd);
  if (step.c) sum_parts(blocks, nb, part2, step.c->red[CR_RR]);
  if (threadIdx.x != 0) return;
  if (step.c) cr_check(step.c, step.iters);
  if (then.what != THEN_NOTHING) decide(&then, res);
  if (first.c) cr_alpha(first.c);
}

// k_copy of W lambda into wl, k_rhs, k_decoupled and k_jacobi (pc given) in one launch, a thread
// a row (the right-hand side the row's own); moved NULL where nothing reads it (the paper's
// form). Stamped at its start as cst_solve's (so the right-hand side, a few operations a row,
// counts to cst_solve here, to assemble with the separate launches).
static __global__ void k_rhs_decoupled_jacobi(const int *nc, int paper, double ih2,
                                              const double *om, const double *hq, const double *hab,
                                              const double *phi, const double *y, double *wl,
                                              const double *e, double *rhs, double *dlam,
                                              int *moved, const double *wd, double *pc,
                                              const int *gate, nsn_stamp_at at) {
  SIM_PDL_WAIT();
  nsn_stamp_first(at);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * *nc || !*gate) return;
  wl[i] = y[i];
  const double b = sim_nsn_row_rhs(paper, ih2, om[i], hq[i], hab[i], phi[i], y[i]);
  rhs[i] = b;
  double v = !paper && !sim_nsn_coupled(om[i]) && e[i] > 0.0 ? b / e[i] : 0.0;
  dlam[i] = v;
  if (moved && v != 0.0) *moved = 1;
  if (!pc) return;
  double dg = sim_nsn_row_diag(paper, om[i], wd[i], e[i]);
  pc[i] = dg > 0.0 ? 1.0 / dg : 1.0;
}

// Conjugate Residual's start: the sum of b b (reduce_to's), and Mz, the Newton system times x
// where what W multiplies is zero (sys_apply's x_zero: W's part of each row the +0.0 its sum
// gives, so no product), k_cr_start (r = b - Mz where the Newton steps go on) with the sum of
// r r, and z = dinv r (dinv given), in one launch: a grid of the reduction's blocks by 2 (batch 0
// b b, batch 1 the rest), each batch's last block adding its blocks' partials by the reduction's
// tree, the last of the two taking THEN_CR_INIT's decision from both sums (`then`). z is written
// whether or not the decision lets CR iterate (the separate k_mul waits for it): nothing reads z
// before CR's next start writes it again where CR does not iterate.
static __global__ void k_cr_start_bb_rr(const int *nc, cr_dev *c, int paper, const double *om,
                                        const double *e, const double *x, const double *b,
                                        double *Mz, const double *dinv, double *r, double *z,
                                        const int *gate, double *part, int *count, red_then then) {
  SIM_PDL_WAIT();
  const int open = *gate, rr = (int)blockIdx.y;
  if (!reduce_batches_last(
          3LL * *nc,
          [=](long long i) {
            if (rr && open) {
              const double mz = sys_row_end(paper, om[i], e[i], x[i], 0.0);
              Mz[i] = mz;
              r[i] = b[i] - mz;
              if (dinv) z[i] = dinv[i] * r[i];
            }
            return sum_max{rr ? r[i] * r[i] : b[i] * b[i], 0.0};
          },
          part, [=](int y) { return c->red[y ? CR_RR : CR_BB]; }, count))
    return;
  const volatile double *vb = c->red[CR_BB], *vr = c->red[CR_RR]; /* one is the other block's */
  cr_init(c, vb[0], vr[0], then.tol, then.iters, then.go);
}

// The full step (k_update with K = 1 in place, where *gate is open) and k_force in one launch:
// a thread per contact.
static __global__ void k_update_force(const int *nc, int paper, const double *comp,
                                      const double *mu, double max_force, const double *om,
                                      double *lam, const double *dlam, double *f, const int *gate,
                                      cr_tally tally) {
  SIM_PDL_WAIT();
  cr_tally_first(tally);
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= *nc) return;
  cr_last_step(tally, j);
  size_t i = 3 * (size_t)j;
  if (*gate) sim_nsn_contact_update(comp[j], mu[j], max_force, lam + i, dlam + i, 1.0, lam + i);
  for (int r = 0; r < 3; r++) f[i + r] = paper ? om[i + r] * lam[i + r] : lam[i + r];
}

// The last batch's k_ls_accept and k_force in one launch: a thread per row (the line search
// runs in the compliance form alone, where f = lambda). With y (reuse_wf), the pick's W ltry
// (ytry) too, so y is W f, and its flag cleared.
static __global__ void k_ls_accept_force(const int *nc, nsn_dev *n, size_t s3, const double *ltry,
                                         double *lam, double *f, const double *ytry, double *y) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 3 * *nc) return;
  if (n->go && n->pick >= 0) {
    lam[i] = ltry[n->pick * s3 + (size_t)i];
    if (y) y[i] = ytry[n->pick * s3 + (size_t)i];
  }
  f[i] = lam[i];
  if (y && i == 0 && n->go) n->wf_stale = 0;
}

#endif

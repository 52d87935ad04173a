// SPDX-License-Identifier: MIT
// The device Newton solve's reductions and the decisions their last thread takes (Conjugate
// Residual's, the Newton steps'): included by gpu/nsn_cuda.cu and, for its sums, by
// gpu/gmres_cuda.cu (no launch here).
//
// A reduction is two passes over a fixed partition (deterministic): a first pass of nb blocks
// (a power of two), each thread adding its stride's values and each block its threads' by a
// tree, and a second of one block of nb threads adding the blocks' by the same tree. Launched
// as two kernels (k_reduce, k_reduce_final), or fused into one (SIMCTL_CUDA_FUSE=on): the
// first pass, then the block that finishes last (a counter per batch, which it sets back to 0)
// runs the second over the partials the others left in memory; the vector update whose result
// it reads can run in the first pass's loop (k_cr_dir_mpd, k_cr_step_rr). Both give the same
// bits: the same values added by the same trees in the same order.
#ifndef SIM_GPU_NSN_REDUCE_CUH
#define SIM_GPU_NSN_REDUCE_CUH
#include "last_block.cuh"
#include "nsn_state.h"
#include "pdl.cuh"
extern "C" {
#include "../core/contact/cr.h"
}

// The (sum, max) of the first n threads' (s, m) into (out[0], out[1]) by a tree in shared
// memory (n a power of two, at most blockDim.x <= SIM_CUDA_BLOCK; every thread calls it).
static __device__ void block_sum_max(int n, double s, double m, double *out_s, double *out_m) {
  __shared__ double ss[SIM_CUDA_BLOCK], sm[SIM_CUDA_BLOCK];
  ss[threadIdx.x] = s;
  sm[threadIdx.x] = m;
  __syncthreads();
  for (int w = n / 2; w > 0; w /= 2) {
    if ((int)threadIdx.x < w) {
      ss[threadIdx.x] += ss[threadIdx.x + w];
      sm[threadIdx.x] = fmax(sm[threadIdx.x], sm[threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *out_s = ss[0];
    *out_m = sm[0];
  }
}

// First pass: block b adds (sum of a; max of mx, when given) over its fixed stride into
// part[b] and part[SIM_RED_BLOCKS + b]. a_i is x_i d_i y_i (d, y optional: 1). Batches along y
// (the merits of a line search's trials): x and mx at + blockIdx.y xs, part at
// + 2 SIM_RED_BLOCKS blockIdx.y.
static __device__ void reduce_first(long long n, const double *x, const double *d,
                                    const double *y, const double *mx, size_t xs, double *part) {
  double s = 0.0, m = 0.0;
  x += blockIdx.y * xs;
  if (mx) mx += blockIdx.y * xs;
  part += 2 * SIM_RED_BLOCKS * (size_t)blockIdx.y;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    double v = x[i];
    if (d) v *= d[i];
    if (y) v *= y[i];
    s += v;
    if (mx) m = fmax(m, mx[i]);
  }
  block_sum_max(blockDim.x, s, m, &part[blockIdx.x], &part[SIM_RED_BLOCKS + blockIdx.x]);
}

// n = per *nc values (the step's contact count on the device, cuda_contact.dnc).
static __global__ void k_reduce(const int *nc, int per, const double *x, const double *d,
                                const double *y, const double *mx, size_t xs, double *part) {
  SIM_PDL_WAIT();
  reduce_first((long long)per * *nc, x, d, y, mx, xs, part);
}

// cr.c's decisions, taken by the thread that finishes the reduction they read (k_reduce_final):
// the start (tolerance, whether to iterate at all: not where the Newton steps have stopped) ...
// (bb, rr: the sums of b b and r r) ...
static __device__ void cr_init(cr_dev *c, double bb, double rr, double cr_tol, int cr_iters,
                               const int *go) {
  c->tol = fmax(cr_tol, SIM_CR_FLOOR) * sqrt(bb);
  c->rn = sqrt(rr);
  c->iters = 0;
  c->active = *go && c->rn > c->tol && cr_iters > 0;
}

static __device__ void cr_zmz(cr_dev *c) { c->zMz = c->red[CR_ZMZ][0]; }

// ... the step length, or a breakdown (no step) ...
static __device__ void cr_alpha(cr_dev *c) {
  if (!c->active) return;
  const double z = c->zMz, d = c->red[CR_MPD][0];
  if (!(z > 0.0) || !(d > 0.0)) {
    c->active = 0;
    return;
  }
  c->alpha = z / d;
  c->iters++;
}

// ... the stop after a step (iteration count, residual within the tolerance) ...
static __device__ void cr_check(cr_dev *c, int cr_iters) {
  if (!c->active) return;
  c->rn = sqrt(c->red[CR_RR][0]);
  if (c->iters >= cr_iters || c->rn <= c->tol) c->active = 0;
}

// ... the next direction's weight ...
static __device__ void cr_beta(cr_dev *c) {
  if (!c->active) return;
  const double z1 = c->red[CR_ZMZ1][0];
  c->beta = z1 / c->zMz;
  c->zMz = z1;
}

// ... and the count: CR's iterations added to the iteration's count and its end stamped
// (NSN_AT_CR1), by the first thread of the kernel after CR (the update's, k_update or
// k_update_force) before its work; c NULL: nothing (the other launches of those kernels).
// Fused, that kernel also takes CR's last step: x += alpha p where CR was still active
// (k_cr_step_rr's x, the same bits; its r, z and the sum of r r, which only the next iteration
// and the stop test read, are not needed after the last), each thread for the rows of its
// contact before it reads them (cr_last_step; p NULL: the step ran).
typedef struct cr_tally {
  const cr_dev *c;
  nsn_dev *n;
  nsn_stamp_at end;
  const double *p;
  double *x;
} cr_tally;

static __device__ inline void cr_tally_first(const cr_tally &t) {
  if (!t.c || blockIdx.x != 0 || threadIdx.x != 0) return;
  nsn_stamp_write(t.end);
  t.n->cr_total += t.c->iters;
}

static __device__ inline void cr_last_step(const cr_tally &t, int j) {
  if (!t.p || !t.c->active) return;
  const double alpha = t.c->alpha;
  for (int r = 0; r < 3; r++) t.x[3 * (size_t)j + r] += alpha * t.p[3 * (size_t)j + r];
}

// The Newton steps' decisions (nsn.c sim_nsn_iterate_w, stage.c's loop), one thread each: an
// L-G iteration's start (a launch; `then`, where its n is not NULL, a second stamp right after
// `start`: the end pass, nsn_cuda.cu sim_cuda_nsn_finish, has no unconstrained solve) ...
static __global__ void k_nsn_reset(nsn_dev *n, nsn_stamp_at start, nsn_stamp_at then) {
  SIM_PDL_WAIT();
  nsn_stamp_write(start);
  if (then.n) nsn_stamp_write(then);
  n->go = 1;
  n->search = 0;
  n->pick = -1;
  n->moved = 0;
  n->steps = n->worked = n->converged = n->cr_total = 0;
  n->ls.full = n->ls.shorter = n->ls.none = 0;
  n->merit0 = n->pmax0 = 0.0;
}

// ... a step's start, its merit and max |phi| in res[0], res[1]: stop within newton_tol (by
// the merit's reduction) ...
static __device__ void nsn_judge(nsn_dev *n, const double *res, double newton_tol) {
  n->moved = 0; /* whether or not the step goes on: its gated kernels then leave it at 0 */
  if (!n->go) return;
  n->steps++;
  n->merit0 = res[0];
  n->pmax0 = res[1];
  n->converged = newton_tol > 0.0 && res[1] <= newton_tol;
  if (n->converged)
    n->go = 0;
  else
    n->worked++;
  n->search = n->go;
  n->pick = -1;
}

// ... and a line search's pick among trials t0 .. t0 + K - 1 (merits in res[2 t]): the first
// whose merit is below (1 - 2 sigma alpha) merit0, alpha = 2^-t (nsn.c line_search), closes
// the search; counted as the full step, a shorter one, or (at the last batch, none) no step.
static __device__ void ls_pick(nsn_dev *n, const double *res, int K, int t0, int last) {
  n->pick = -1;
  if (!n->search) return;
  for (int t = 0; t < K; t++) {
    double alpha = ldexp(1.0, -(t0 + t));
    if (res[2 * t] <= (1.0 - 2e-4 * alpha) * n->merit0) {
      n->pick = t;
      n->search = 0;
      if (t0 + t == 0)
        n->ls.full++;
      else
        n->ls.shorter++;
      return;
    }
  }
  if (last) n->ls.none++;
}

// What the thread that finishes a reduction decides next, with no launch of its own.
enum {
  THEN_NOTHING,
  THEN_CR_INIT,
  THEN_CR_ZMZ,
  THEN_CR_ALPHA,
  THEN_CR_CHECK,
  THEN_CR_BETA,
  THEN_NSN_JUDGE,
  THEN_LS_PICK  // a line search's batch of one trial, trial `iters`
};
typedef struct red_then {
  int what;
  cr_dev *c;
  nsn_dev *n;
  const int *go;  // THEN_CR_INIT
  double tol;     // THEN_CR_INIT: cr_tol; THEN_NSN_JUDGE: newton_tol
  int iters;      // THEN_CR_INIT, THEN_CR_CHECK: cr_iters; THEN_LS_PICK: the trial
  int last;       // THEN_LS_PICK: the search's last trial
} red_then;

static __device__ void decide(const red_then *t, const double *res) {
  switch (t->what) {
    case THEN_CR_INIT:
      cr_init(t->c, t->c->red[CR_BB][0], t->c->red[CR_RR][0], t->tol, t->iters, t->go);
      break;
    case THEN_CR_ZMZ:
      cr_zmz(t->c);
      break;
    case THEN_CR_ALPHA:
      cr_alpha(t->c);
      break;
    case THEN_CR_CHECK:
      cr_check(t->c, t->iters);
      break;
    case THEN_CR_BETA:
      cr_beta(t->c);
      break;
    case THEN_NSN_JUDGE:
      nsn_judge(t->n, res, t->tol);
      break;
    case THEN_LS_PICK:
      ls_pick(t->n, res, 1, t->iters, t->last);
      break;
  }
}

// Second pass: one block per batch, a thread per block of the first: res[0] = sum, res[1] =
// max (batch b's at + 2 b); then the decision that reads it (one batch only).
static __global__ void k_reduce_final(const double *part, double *res, red_then then) {
  SIM_PDL_WAIT();
  part += 2 * SIM_RED_BLOCKS * (size_t)blockIdx.y;
  res += 2 * (size_t)blockIdx.y;
  block_sum_max(blockDim.x, part[threadIdx.x], part[SIM_RED_BLOCKS + threadIdx.x], &res[0],
                &res[1]);
  if (then.what != THEN_NOTHING && threadIdx.x == 0) decide(&then, res);
}

// ---- the fused reductions (SIMCTL_CUDA_FUSE=on) ----

// (last_to_count: last_block.cuh)

// (res[0], res[1]) = the (sum, max) of `blocks` blocks' partials (block b's in part[b],
// part[SIM_RED_BLOCKS + b]) by k_reduce_final's tree over nb threads (nb >= blocks, a power of
// two; the others' zeros), in the block that counted last (the partials other blocks wrote are
// read through volatile). Every thread of the block calls it.
static __device__ void sum_parts(int blocks, int nb, const double *part, double *res) {
  const volatile double *vp = part;
  const int t = (int)threadIdx.x;
  block_sum_max(nb, t < blocks ? vp[t] : 0.0, t < blocks ? vp[SIM_RED_BLOCKS + t] : 0.0, &res[0],
                &res[1]);
}

// The end of a fused reduction's first pass over `blocks` blocks: the block that counts last
// adds every block's partials (sum_parts) into res and takes `then`'s decision; returns whether
// this block was that one. Every thread of every block calls it.
static __device__ int finish_last_of(int blocks, int nb, double *part, double *res, int *count,
                                     const red_then &then) {
  if (!last_to_count(count, blocks)) return 0;
  sum_parts(blocks, nb, part, res);
  if (threadIdx.x == 0 && then.what != THEN_NOTHING) decide(&then, res);
  return 1;
}

// The blocks of the grid that hold one of n items, `per` a block (at least one block). In a
// fused reduction the others, past the count in a grid that follows the arrays' capacity,
// leave at once: their partials were +0.0, which sum_parts gives the blocks past those, so the
// sums keep their bits (until 2026-12-03 they counted too, two barriers each: on the emulation
// every thread switches at a barrier).
static __device__ int blocks_holding(long long n, int per) {
  const long long b = (n + per - 1) / per;
  return b <= 1 ? 1 : b < (long long)gridDim.x ? (int)b : (int)gridDim.x;
}

// The blocks of a first pass over n values, a value a thread (blocks_holding).
static __device__ int blocks_with_values(long long n) { return blocks_holding(n, (int)blockDim.x); }

// k_reduce and k_reduce_final in one launch (batch blockIdx.y's counter at count + blockIdx.y).
static __global__ void k_reduce_last(const int *nc, int per, const double *x, const double *d,
                                     const double *y, const double *mx, size_t xs, double *part,
                                     double *res, int *count, red_then then) {
  SIM_PDL_WAIT();
  const long long n = (long long)per * *nc;
  const int blocks = blocks_with_values(n);
  if ((int)blockIdx.x >= blocks) return; /* the whole block */
  reduce_first(n, x, d, y, mx, xs, part);
  part += 2 * SIM_RED_BLOCKS * (size_t)blockIdx.y;
  res += 2 * (size_t)blockIdx.y;
  finish_last_of(blocks, (int)gridDim.x, part, res, count + blockIdx.y, then);
}

// A value and the one to take the max of, as k_reduce's x d y and mx.
typedef struct sum_max {
  double s, m;
} sum_max;

// A fused reduction whose values are updated in its first pass: v(i) updates element i and
// returns the values it adds and takes the max of (what k_reduce's x d y and mx would read
// after the update's own launch), on k_reduce's partition (queue_reduce's blocks for n).
template <class Value>
static __device__ void reduce_values(long long n, Value v, double *part) {
  double s = 0.0, m = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    const sum_max q = v(i);
    s += q.s;
    m = fmax(m, q.m);
  }
  block_sum_max(blockDim.x, s, m, &part[blockIdx.x], &part[SIM_RED_BLOCKS + blockIdx.x]);
}

template <class Value>
static __device__ void update_reduce_max(long long n, Value v, double *part, double *res,
                                         int *count, const red_then &then) {
  const int blocks = blocks_with_values(n);
  if ((int)blockIdx.x >= blocks) return; /* the whole block */
  reduce_values(n, v, part);
  finish_last_of(blocks, (int)gridDim.x, part, res, count, then);
}

// The same in batches along y, each its own reduction (batch y's values v(i), which read
// blockIdx.y; its partials at part + 2 SIM_RED_BLOCKS y, its counter at count + y, its (sum,
// max) into res(y)), then the batches counted at count[SIM_W_BATCH]: true in thread 0 of the
// block that finished last of all, which then sees every batch's result (read them through
// volatile: other blocks wrote them). Every thread of every block calls it.
template <class Value, class Res>
static __device__ int reduce_batches_last(long long n, Value v, double *part, Res res, int *count) {
  const int y = (int)blockIdx.y, blocks = blocks_with_values(n);
  if ((int)blockIdx.x >= blocks) return 0; /* the whole block */
  part += 2 * SIM_RED_BLOCKS * (size_t)y;
  reduce_values(n, v, part);
  const red_then none = {THEN_NOTHING, NULL, NULL, NULL, 0.0, 0, 0};
  if (!finish_last_of(blocks, (int)gridDim.x, part, res(y), count + y, none)) return 0;
  return last_to_count(count + SIM_W_BATCH, (int)gridDim.y) && threadIdx.x == 0;
}

// The same with a sum alone (v(i) returns the value it adds; the max is 0).
template <class Value>
static __device__ void update_reduce(long long n, Value v, double *part, double *res, int *count,
                                     const red_then &then) {
  update_reduce_max(
      n,
      [=](long long i) {
        return sum_max{v(i), 0.0};
      },
      part, res, count, then);
}

// Conjugate Residual's next direction (k_cr_dir; first: p = z, Mp = Mz, the copies before the
// loop), where c->active, then the sum of Mp dinv Mp (dinv optional) and the step length.
static __global__ void k_cr_dir_mpd(const int *nc, cr_dev *c, int first, const double *z,
                                    const double *Mz, const double *dinv, double *p, double *Mp,
                                    double *part, int *count, red_then then) {
  SIM_PDL_WAIT();
  const long long n = 3LL * *nc;
  const int on = c->active;
  const double beta = c->beta;
  update_reduce(
      n,
      [=](long long i) {
        if (on) {
          p[i] = first ? z[i] : z[i] + beta * p[i];
          Mp[i] = first ? Mz[i] : Mz[i] + beta * Mp[i];
        }
        double v = Mp[i];
        if (dinv) v *= dinv[i];
        return v * Mp[i];
      },
      part, c->red[CR_MPD], count, then);
}

// Conjugate Residual's step (k_cr_step) where c->active, then the sum of r r and the stop test.
static __global__ void k_cr_step_rr(const int *nc, cr_dev *c, const double *p, const double *Mp,
                                    const double *dinv, double *x, double *r, double *z,
                                    double *part, int *count, red_then then) {
  SIM_PDL_WAIT();
  const long long n = 3LL * *nc;
  const int on = c->active;
  const double alpha = c->alpha;
  update_reduce(
      n,
      [=](long long i) {
        if (on) {
          x[i] += alpha * p[i];
          r[i] -= alpha * Mp[i];
          if (dinv) z[i] -= alpha * dinv[i] * Mp[i];
        }
        return r[i] * r[i];
      },
      part, c->red[CR_RR], count, then);
}

#endif

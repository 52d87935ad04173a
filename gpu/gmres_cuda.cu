// SPDX-License-Identifier: MIT
// The exact Newton step on the device: the system's blocks and GMRES (gmres_cuda.h). Every
// kernel's grid follows the arrays' capacity and reads the contact count on the device
// (cuda_contact.dnc), as the rest of the device Newton solve, so the L-G iteration's graph
// serves every count; the vector kernels do nothing once GMRES has stopped (gm_dev.active, a
// gate) or the Newton steps have (nsn_dev.go).
#include <math.h>
#include <string.h>

#include "gmres_cuda.h"
#include "nsn_reduce.cuh"
#include "pdl.cuh"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/gmres.h"
#include "../core/contact/nsn_exact.h"
}

static cudaStream_t stream(const cuda_contact *k) { return k->cx->stream; }

static unsigned blocks_for(long long n) { return sim_cuda_blocks(n > 0 ? n : 1); }

#define GM_ROWS(nc) (3 * *(nc))

// ---- a contact a thread ----

// The contact's blocks of J (jac) at (hq, lambda) from the NCP evaluation's Omega and E (om,
// e), scaled, with its right-hand side, preconditioner and start (x0; *moved set where a row
// starts away from 0): nsn.c exact_step's loop body.
static __global__ void k_gm_prepare(const int *dnc, sim_ncp_kind kind, double h, const double *comp,
                                    const double *mu, const double *d, const double *hq,
                                    const double *hqt, const double *w, const double *lam,
                                    const double *om, const double *e, const double *wd, int jacobi,
                                    const double *phi, double *rhs, double *pc, double *x0,
                                    double *jac, int *moved, const int *go, nsn_stamp_at at) {
  SIM_PDL_WAIT();
  nsn_stamp_first(at);
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= *dnc || !*go) return;
  const size_t i = 3 * (size_t)j;
  double *J = jac + SIM_NSN_JAC * (size_t)j;
  sim_nsn_exact_contact(kind, h, comp[j], mu[j], d + i, hq + i, hqt + i, w + i, lam + i, om + i,
                        e + i, J);
  sim_nsn_exact_prepare(J, h * h, wd + i, comp[j] < 0.0, jacobi, phi + i, rhs + i, pc + i, x0 + i);
  if (x0[i] != 0.0 || x0[i + 1] != 0.0 || x0[i + 2] != 0.0) *moved = 1;
}

// out = J x from t = W x (sim_nsn_exact_rows), where *go and *gate.
static __global__ void k_gm_rows(const int *dnc, const double *jac, double h2, const double *t,
                                 const double *x, double *out, const int *go, const int *gate) {
  SIM_PDL_WAIT();
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= *dnc || !*go || !*gate) return;
  const size_t i = 3 * (size_t)j;
  sim_nsn_exact_rows(jac + SIM_NSN_JAC * (size_t)j, h2, t + i, x + i, out + i);
}

// ---- a row a thread ----

#define GM_ROW_HEAD(gate)                              \
  const int i = blockIdx.x * blockDim.x + threadIdx.x; \
  if (i >= GM_ROWS(dnc) || !*go || !*(gate)) return;

// v_1 = r = b - J x0, or b where no row starts away from 0 (gmres.c: no product from 0).
static __global__ void k_gm_start(const int *dnc, const double *b, const double *jx,
                                  const int *moved, double *v, const int *go) {
  SIM_PDL_WAIT();
  GM_ROW_HEAD(go)
  v[i] = *moved ? b[i] - jx[i] : b[i];
}

// An iteration's start: its basis vector v normalised (v /= *by where *by is not 0: the norm
// that the iteration before found, or |r| for the first), then z = D v (D = pc, or the
// identity). gmres.c divides at the end of the iteration before; the next iteration is the
// first to read v, and where GMRES stopped there no iteration reads it.
static __global__ void k_gm_next(const int *dnc, const double *by, const double *pc, double *v,
                                 double *z, const int *go, const int *on) {
  SIM_PDL_WAIT();
  GM_ROW_HEAD(on)
  if (*by != 0.0) v[i] /= *by;
  z[i] = pc ? pc[i] * v[i] : v[i];
}

// x += D (V y) over the columns the cycle built (gmres.c: w = sum_q y_q v_q from 0, then D w)
static __global__ void k_gm_update(const int *dnc, const gm_dev *c, const double *y,
                                   const double *V, size_t vs, const double *pc, double *x,
                                   const int *go) {
  SIM_PDL_WAIT();
  GM_ROW_HEAD(go)
  double w = 0.0;
  for (int q = 0; q < c->it; q++) w += y[q] * V[(size_t)q * vs + (size_t)i];
  x[i] += pc ? pc[i] * w : w;
}

// ---- the reductions and the decisions ----

// What the thread that finishes a sum does with it: |b|^2 kept (GM_BB); the start (GM_INIT:
// beta = |r|, the tolerance, whether to iterate); H's entry (j, i) (GM_H); H's entry (j, j + 1)
// as the norm (GM_NORM).
enum { GM_BB, GM_INIT, GM_H, GM_NORM };
typedef struct gm_then {
  int what, j, i, K, iters;  // K: H's layout (cuda_gmres.K); iters: cr_iters (may be 0)
  double cr_tol;
} gm_then;

typedef struct gm_small {
  double *H, *g, *part, *res;
} gm_small;

static __device__ void gm_decide(const gm_then &t, double sum, gm_dev *c, const gm_small &s,
                                 const int *go) {
  const int ld = t.K + 1;
  if (t.what == GM_BB) {
    c->bb = sum;
  } else if (t.what == GM_INIT) {
    const double beta = sqrt(sum);
    c->tol = fmax(t.cr_tol, SIM_CR_FLOOR) * sqrt(c->bb);
    c->it = 0;
    /* gmres.c stops where rnorm <= tol: a NaN residual iterates there, and here */
    c->active = *go && !(beta <= c->tol) && t.iters > 0;
    for (int q = 0; q <= t.K; q++) s.g[q] = 0.0;
    s.g[0] = beta;
  } else if (t.what == GM_H) {
    s.H[(size_t)t.j * ld + t.i] = sum;
  } else {
    s.H[(size_t)t.j * ld + t.j + 1] = sqrt(sum);
  }
}

// v -= (*h) u where h is given (modified Gram-Schmidt's update for the basis vector before),
// then the sum of a v over the step's rows (the next basis vector's product, or with a = v the
// norm's square), each thread's rows updated before it reads them: the device Newton solve's
// fused reduction (nsn_reduce.cuh reduce_values, the block that finishes last adding the
// partials, sum_parts), then gm_decide. One launch where gmres.c's update and product are two
// loops, the same values. GM_H and GM_NORM do nothing where GMRES has stopped (every block
// alike: the flag changes only between launches).
static __global__ void k_gm_dot(const int *dnc, const double *h, const double *u, double *v,
                                const double *a, gm_dev *c, gm_small s, gm_then then,
                                const int *go) {
  SIM_PDL_WAIT();
  if (then.what >= GM_H && !c->active) return;
  const long long n = GM_ROWS(dnc);
  const int blocks = blocks_with_values(n); /* those past the rows leave (nsn_reduce.cuh) */
  if ((int)blockIdx.x >= blocks) return;
  reduce_values(
      n,
      [=](long long i) {
        if (h) v[i] -= *h * u[i];
        return sum_max{a[i] * v[i], 0.0};
      },
      s.part);
  if (!last_to_count(&c->count, blocks)) return;
  sum_parts(blocks, (int)gridDim.x, s.part, s.res);
  if (threadIdx.x == 0) gm_decide(then, s.res[0], c, s, go);
}

// Iteration j's end (gmres.c): the earlier rotations on H's column j, the new rotation, the
// residual's estimate |g_{j+1}|; a breakdown, the tolerance or the iteration count stop it.
static __global__ void k_gm_rotate(gm_dev *c, double *H, double *g, double *cs, double *sn, int K,
                                   int j) {
  SIM_PDL_WAIT();
  if (!c->active) return;
  double *hj = H + (size_t)j * (K + 1);
  const double hn = c->hn = hj[j + 1]; /* the next iteration divides its vector by it */
  if (!sim_gmres_rotate(j, hj, cs, sn, g)) { /* a breakdown: nothing more to gain */
    c->active = 0;
    return;
  }
  c->it++;
  if (hn == 0.0 || fabs(g[j + 1]) <= c->tol || c->it >= K) c->active = 0;
}

// H y = g over the columns built (H upper triangular), and the count for the tally (cr_tally:
// the update after the solve adds crd->iters to the iteration's).
static __global__ void k_gm_solve(const gm_dev *c, const double *H, const double *g, double *y,
                                  int K, cr_dev *cr) {
  SIM_PDL_WAIT();
  const int j = c->it;
  sim_gmres_back_solve(j, H, K + 1, g, y);
  cr->iters = j;
  cr->active = 0;
}

// ---- the host's side ----

static int parts(void *arg, size_t cap, cuda_part *p) {
  cuda_gmres *gm = (cuda_gmres *)arg;
  const size_t c3 = 3 * cap;
  p[0] = sim_cuda_part(&gm->V, (size_t)(gm->K + 1) * c3);
  p[1] = sim_cuda_part(&gm->z, c3);
  p[2] = sim_cuda_part(&gm->t, c3);
  p[3] = sim_cuda_part(&gm->jac, SIM_NSN_JAC * cap);
  return 4;
}

int sim_cuda_gmres_create(cuda_contact *k, sim_status *st) {
  cuda_gmres *gm = SIM_NEW0(cuda_gmres, 1);
  if (!gm) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device GMRES)");
  k->dn->gm = gm;
  const int K = k->stage.nsn.opt.cr_iters > 0 ? k->stage.nsn.opt.cr_iters : 1;
  gm->K = K;
  gm->small_n = (size_t)(K + 1) * (size_t)K + 4 * (size_t)(K + 1) + 2 * SIM_RED_BLOCKS + 2;
  static const gm_dev zero = {0, 0, 0, 0.0, 0.0, 0.0};
  int rc = sim_cuda_new<gm_dev>(k->cx, &gm->ctl, 1, &zero, st);
  if (!rc) rc = sim_cuda_new<double>(k->cx, &gm->small, gm->small_n, NULL, st);
  if (rc) return rc;
  gm->H = gm->small;
  gm->g = gm->H + (size_t)(K + 1) * K;
  gm->cs = gm->g + K + 1, gm->sn = gm->cs + K + 1, gm->y = gm->sn + K + 1;
  gm->part = gm->y + K + 1;
  gm->res = gm->part + 2 * SIM_RED_BLOCKS;
  return SIM_OK;
}

int sim_cuda_gmres_grow(cuda_contact *k, sim_status *st) {
  cuda_gmres *gm = k->dn->gm;
  return sim_cuda_group_grow(k->cx, &gm->arrays, (size_t)k->dn->cap, 0, parts, gm, st);
}

void sim_cuda_gmres_destroy(cuda_contact *k) {
  cuda_gmres *gm = k->dn ? k->dn->gm : NULL;
  if (!gm) return;
  sim_cuda_group_free(k->cx, &gm->arrays);
  sim_cuda_release(k->cx, gm->ctl, sizeof(gm_dev));
  sim_cuda_release(k->cx, gm->small, sizeof(double) * gm->small_n);
  sim_free(gm);
  k->dn->gm = NULL;
}

// t = W x, then out = J x (t: W x's workspace); nothing where *gate is 0 (through all of S the
// product runs and the rows' kernel skips: sim_cuda_w_gate).
static int j_apply(cuda_contact *k, const double *x, double *out, const int *gate, sim_status *st) {
  cuda_gmres *gm = k->dn->gm;
  int rc = sim_cuda_w_apply(k, x, gm->t, 1, 0, sim_cuda_w_gate(k, gate), st);
  if (rc) return rc;
  const double h = k->stage.nsn.opt.h;
  k_gm_rows<<<blocks_for(k->dn->cap), SIM_CUDA_BLOCK, 0, stream(k)>>>(
      k->dnc, gm->jac, h * h, gm->t, x, out, &k->dn->ctl->go, gate);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// An int of the device's to the host: a wait (only where the host reads the decisions).
static int read_int(cuda_contact *k, const int *dev, int *out, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(out, dev, sizeof(int), cudaMemcpyDeviceToHost, stream(k)), st);
  SIM_CU(cudaStreamSynchronize(stream(k)), st);
  return SIM_OK;
}

int sim_cuda_gmres_step(cuda_contact *k, nsn_stamp_at cr0, sim_status *st) {
  cuda_nsn *s = k->dn;
  cuda_gmres *gm = s->gm;
  const sim_nsn_options *o = &k->stage.nsn.opt;
  const int K = gm->K, m = 3 * s->cap; /* the rows the arrays hold: the grids' */
  const size_t vs = (size_t)m;
  const int *go = &s->ctl->go, *on = &gm->ctl->active;
  const double *pc = o->cr_jacobi ? s->pc : NULL;
  const unsigned gr = blocks_for(m), nb = sim_nsn_reduce_blocks(m);
  const gm_small sm_ = {gm->H, gm->g, gm->part, gm->res};
  cudaStream_t sm = stream(k);
  int rc;
  /* s->moved is 0: the step's judge (ncp_start, before this) cleared it */
  k_gm_prepare<<<blocks_for(s->cap), SIM_CUDA_BLOCK, 0, sm>>>(
      k->dnc, o->ncp, o->h, s->comp, s->mu, s->d, s->hq, s->hqt, s->w, s->lam, s->om, s->e, s->wd,
      o->cr_jacobi, s->phi, s->rhs, s->pc, s->dlam, gm->jac, s->moved, go, cr0);
  SIM_CU(cudaGetLastError(), st);
  /* r = b - J x0 where a row starts away from 0 (sim_cuda_nsn_reads: the host reads whether one
     does) */
  int moved = 1;
  const int reads = sim_cuda_nsn_reads(k);
  if (reads && (rc = read_int(k, s->moved, &moved, st))) return rc;
  if (moved && (rc = j_apply(k, s->dlam, s->tmp, s->moved, st))) return rc;
  k_gm_start<<<gr, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, s->rhs, s->tmp, s->moved, gm->V, go);
  gm_then t = {GM_BB, 0, 0, K, o->cr_iters, o->cr_tol};
  k_gm_dot<<<nb, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, NULL, NULL, s->rhs, s->rhs, gm->ctl, sm_, t, go);
  t.what = GM_INIT;
  k_gm_dot<<<nb, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, NULL, NULL, gm->V, gm->V, gm->ctl, sm_, t, go);
  SIM_CU(cudaGetLastError(), st);
  for (int j = 0; j < K; j++) {
    if (reads && o->cr_tol > 0.0) { /* no product GMRES would not use */
      int active = 0;
      if ((rc = read_int(k, on, &active, st))) return rc;
      if (!active) break;
    }
    double *vj = gm->V + (size_t)j * vs, *vn = vj + vs, *hj = gm->H + (size_t)j * (K + 1);
    const double *by = j == 0 ? gm->g : &gm->ctl->hn; /* |r|, or the norm iteration j - 1 found */
    k_gm_next<<<gr, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, by, pc, vj, gm->z, go, on);
    if ((rc = j_apply(k, gm->z, vn, on, st))) return rc;
    /* modified Gram-Schmidt: launch i subtracts v_{i-1}'s part and sums v_i's; the last,
       v_j's part, then the norm's square */
    for (int i = 0; i <= j + 1; i++) {
      t.what = i <= j ? GM_H : GM_NORM, t.j = j, t.i = i;
      const double *h = i > 0 ? hj + i - 1 : NULL;
      const double *u = i > 0 ? gm->V + (size_t)(i - 1) * vs : NULL;
      const double *a = i <= j ? gm->V + (size_t)i * vs : vn;
      k_gm_dot<<<nb, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, h, u, vn, a, gm->ctl, sm_, t, go);
    }
    k_gm_rotate<<<1, 1, 0, sm>>>(gm->ctl, gm->H, gm->g, gm->cs, gm->sn, K, j);
    SIM_CU(cudaGetLastError(), st);
  }
  k_gm_solve<<<1, 1, 0, sm>>>(gm->ctl, gm->H, gm->g, gm->y, K, s->crd);
  k_gm_update<<<gr, SIM_CUDA_BLOCK, 0, sm>>>(k->dnc, gm->ctl, gm->y, gm->V, vs, pc, s->dlam, go);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// SPDX-License-Identifier: MIT
// The device Newton solve's arrays (grown with the contacts, kept across steps), its start of a
// step (H q_t, the targets, coefficients, weights and warm start from the contacts and the
// previous step's multipliers on the device), the time stamps that time its buckets and its
// statistics' way back to the host at the backend's settle, and its multipliers' on demand
// (contact_cuda.h).
#include <string.h>

#include <cmath>

#include "gmres_cuda.h"
#include "nsn_state.h"
#include "pdl.cuh"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/nsn_row.h"
#include "../core/contact/rows.h"
}

// An L-G iteration's end: its counts added to the sums since the last settle, its last step's
// merit, max |phi| and convergence kept.
static __global__ void k_nsn_tally(const nsn_dev *n, nsn_dev *acc, nsn_stamp_at before,
                                   nsn_stamp_at end) {
  SIM_PDL_WAIT();
  if (before.n) nsn_stamp_write(before);
  nsn_stamp_write(end);
  acc->steps += n->steps;
  acc->worked += n->worked;
  acc->cr_total += n->cr_total;
  acc->ls.full += n->ls.full;
  acc->ls.shorter += n->ls.shorter;
  acc->ls.none += n->ls.none;
  acc->converged = n->converged;
  acc->merit0 = n->merit0;
  acc->pmax0 = n->pmax0;
}

int sim_cuda_nsn_room(const cuda_contact *k, int n, sim_status *st) {
  const cuda_nsn *s = k->dn;
  if (s->queued + n <= s->stamp_cap) return SIM_OK;
  return sim_fail(st, SIM_ERR_INTERNAL,
                  "CUDA: more than %d timing stamps of the device Newton solve in a frame",
                  s->stamp_cap);
}

int sim_cuda_nsn_stamp_at(cuda_contact *k, int tag, nsn_stamp_at *at, sim_status *st) {
  cuda_nsn *s = k->dn;
  int rc = sim_cuda_nsn_room(k, 1, st);
  if (rc) return rc;
  at->s = s->stamps, at->n = s->nstamp, at->cap = s->stamp_cap, at->tag = tag;
  s->queued++;
  return SIM_OK;
}

int sim_cuda_nsn_tally(cuda_contact *k, int newton, sim_status *st) {
  nsn_stamp_at before = nsn_no_stamp(), end;
  int rc = newton ? sim_cuda_nsn_stamp_at(k, NSN_AT_NEWTON, &before, st) : SIM_OK;
  if (!rc) rc = sim_cuda_nsn_stamp_at(k, NSN_AT_END, &end, st);
  if (rc) return rc;
  k_nsn_tally<<<1, 1, 0, k->cx->stream>>>(k->dn->ctl, k->dn->acc, before, end);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// The pending iterations' statistics to the host, queued before the settle's wait: their sums,
// the stamps and their count.
int sim_cuda_nsn_settle_begin(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  if (!s || !s->pending || s->back_queued) return SIM_OK;
  cudaStream_t sm = k->cx->stream;
  /* tback: the sums (nsn_dev), the count, then the stamps */
  char *tb = (char *)s->tback;
  SIM_CU(cudaMemcpyAsync(tb, s->acc, sizeof(nsn_dev), cudaMemcpyDeviceToHost, sm), st);
  SIM_CU(cudaMemcpyAsync(tb + sizeof(nsn_dev), s->nstamp, sizeof(int), cudaMemcpyDeviceToHost, sm),
         st);
  if (s->queued > 0)
    SIM_CU(cudaMemcpyAsync(tb + sizeof(nsn_dev) + sizeof(nsn_stamp), s->stamps,
                           sizeof(nsn_stamp) * (size_t)s->queued, cudaMemcpyDeviceToHost, sm),
           st);
  s->back_queued = 1;
  return SIM_OK;
}

// ... and taken after it: the counts and the buckets' milliseconds into the stepper's times,
// then the sums and the count zeroed on the device for the next iterations.
int sim_cuda_nsn_settle_end(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  if (!s || !s->back_queued) return SIM_OK;
  sim_nsn *hs = &k->stage.nsn;
  const char *tb = (const char *)s->tback;
  nsn_dev acc;
  int count;
  memcpy(&acc, tb, sizeof acc);
  memcpy(&count, tb + sizeof(nsn_dev), sizeof count);
  const nsn_stamp *sp = (const nsn_stamp *)(tb + sizeof(nsn_dev) + sizeof(nsn_stamp));
  s->pending = s->back_queued = 0;
  if (count != s->queued)
    return sim_fail(st, SIM_ERR_INTERNAL,
                    "CUDA: the device Newton solve made %d timing stamps, %d were queued", count,
                    s->queued);
  /* per iteration: START, SOLVED, (CR0, CR1) per Newton step, NEWTON, END */
  double global = 0.0, newton = 0.0, cr = 0.0, corr = 0.0;
  long long at[NSN_AT_CR1 + 1] = {0};
  for (int i = 0; i < count; i++) {
    const int tag = sp[i].tag;
    const long long ns = sp[i].ns;
    if (tag < NSN_AT_START || tag > NSN_AT_CR1)
      return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: timing stamp %d has tag %d", i, tag);
    if (tag == NSN_AT_SOLVED) global += (double)(ns - at[NSN_AT_START]);
    if (tag == NSN_AT_NEWTON) newton += (double)(ns - at[NSN_AT_SOLVED]);
    if (tag == NSN_AT_END) corr += (double)(ns - at[NSN_AT_NEWTON]);
    if (tag == NSN_AT_CR1) cr += (double)(ns - at[NSN_AT_CR0]);
    at[tag] = ns;
  }
  s->queued = 0;
  SIM_CU(cudaMemsetAsync(s->acc, 0, sizeof(nsn_dev), k->cx->stream), st);
  SIM_CU(cudaMemsetAsync(s->nstamp, 0, sizeof(int), k->cx->stream), st);
  hs->stats.newton_steps += acc.steps; /* as stage.c's loop and nsn.c count them */
  hs->stats.phi_max = acc.pmax0;
  hs->stats.merit = acc.merit0;
  hs->stats.converged = acc.converged;
  hs->stats.cr_iters += acc.cr_total;
  sim_ls_counts_add(&hs->stats.ls, &acc.ls, NULL);
  hs->stats.assemble_ms += (newton - cr) * 1e-6;
  hs->stats.cst_solve_ms += cr * 1e-6;
  sim_cst_times *t = s->t;
  if (t) {
    t->newton_steps += acc.worked;
    t->global_ms += global * 1e-6;
    t->assemble_ms += (newton - cr) * 1e-6;
    t->cst_solve_ms += cr * 1e-6;
    t->corr_ms += corr * 1e-6;
    t->cr_iters += acc.cr_total;
    t->nonfinite |= !std::isfinite(acc.merit0);
    sim_ls_counts_add(&t->ls, &acc.ls, NULL);
  }
  s->t = NULL;
  return SIM_OK;
}

int sim_cuda_nsn_flush(cuda_contact *k, sim_status *st) {
  if (!k->dn || !k->dn->pending) return SIM_OK;
  int rc = sim_cuda_nsn_settle_begin(k, st);
  if (rc) return rc;
  SIM_CU(cudaStreamSynchronize(k->cx->stream), st);
  return sim_cuda_nsn_settle_end(k, st);
}

int sim_cuda_nsn_results(cuda_contact *k, sim_status *st) {
  int rc = sim_cuda_nsn_flush(k, st);
  size_t m = 3 * (size_t)k->stage.nc;
  if (rc || m == 0) return rc;
  sim_nsn *hs = &k->stage.nsn;
  cudaStream_t sm = k->cx->stream;
  SIM_CU(cudaMemcpyAsync(hs->lambda, k->dn->lam, sizeof(double) * m, cudaMemcpyDeviceToHost, sm),
         st);
  SIM_CU(cudaMemcpyAsync(hs->f, k->dn->f, sizeof(double) * m, cudaMemcpyDeviceToHost, sm), st);
  SIM_CU(cudaStreamSynchronize(sm), st);
  return SIM_OK;
}

// The arrays for cap contacts (sim_cuda_group_grow's parts), arg a cuda_nsn.
static int parts(void *arg, size_t cap, cuda_part *p) {
  cuda_nsn *s = (cuda_nsn *)arg;
  const size_t c3 = 3 * cap, b3 = SIM_W_BATCH * c3;
  double **v3[] = {&s->d,     &s->hqt,   &s->w,     &s->wd,    &s->lam,   &s->f,
                   &s->om,    &s->e,     &s->phi,   &s->rhs,   &s->dlam,  &s->y,
                   &s->tmp,   &s->pc,    &s->wl,    &s->hab,   &s->hq,    &s->cr[0],
                   &s->cr[1], &s->cr[2], &s->cr[3], &s->cr[4], &s->cr[5], &s->fend};
  double **vt[] = {&s->ltry, &s->ytry, &s->htry, &s->bt, &s->bx}; /* a line-search batch */
  double **v1[] = {&s->mu, &s->comp}, **vb[] = {&s->mterm, &s->pterm};
  static_assert(sizeof v3 / sizeof *v3 + 5 + 2 + 2 <= SIM_CUDA_GROUP_PARTS, "cuda_nsn's arrays");
  int n = 0;
  for (double **v : v3) p[n++] = sim_cuda_part(v, c3);
  for (double **v : vt) p[n++] = sim_cuda_part(v, b3);
  for (double **v : v1) p[n++] = sim_cuda_part(v, cap);
  for (double **v : vb) p[n++] = sim_cuda_part(v, SIM_W_BATCH * cap);
  return n;
}

static void free_arrays(cuda_contact *k) {
  sim_cuda_group_free(k->cx, &k->dn->arrays);
  k->dn->cap = 0;
}

// Arrays for nc contacts (kept across steps, grown by half again when short), in one block.
static int grow(cuda_contact *k, int nc, sim_status *st) {
  cuda_nsn *s = k->dn;
  int rc = sim_cuda_group_grow(k->cx, &s->arrays, (size_t)nc, 16, parts, s, st);
  s->cap = (int)s->arrays.cap;
  if (!rc && s->gm) rc = sim_cuda_gmres_grow(k, st);
  k->blk.cap = s->cap, k->blk.t = s->bt, k->blk.xp = s->bx; /* W's block form's workspace */
  return rc;
}

int sim_cuda_nsn_hqt(cuda_contact *k, sim_status *st) {
  int rc = grow(k, k->stage.nc, st);
  return rc ? rc : sim_cuda_h_apply(k, k->cx->vec[SIM_VEC_QT], 0, k->dn->hqt, st);
}

// A step's start of the solve from its contacts on the device (rows_cuda.cu's copy): their
// friction coefficients, compliances (-1: not bilateral) and targets, as the shared stage forms
// them on the host (core/contact/stage.c, rows.h sim_rows_target), and f = 0.
static __global__ void k_nsn_prep(int nc, const sim_contact *c, double min_sep,
                                  const double *cab_target, double *mu, double *comp, double *d,
                                  double *f) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const sim_contact *cj = &c[j];
  const int cable = cj->kind == SIM_CONTACT_CABLE;
  mu[j] = cj->mu;
  comp[j] = cj->kind == SIM_CONTACT_BILATERAL || cable ? cj->compliance : -1.0;
  sim_rows_target(cj, min_sep, cable ? cab_target[cj->source] : 0.0, d + 3 * (size_t)j);
  for (int r = 0; r < 3; r++) f[3 * (size_t)j + r] = 0.0;
}

// The step's contacts' keys and tangents, and its multipliers, as the next step's warm start
// reads them (stage.c keep_previous).
static __global__ void k_keep(int nc, const sim_contact *c, const double *lam,
                              sim_contact_key *pkey, double *ptan, double *plam) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const sim_contact *cj = &c[j];
  pkey[j].v = cj->v, pkey[j].kind = (int)cj->kind, pkey[j].source = cj->source;
  for (int r = 0; r < 3; r++) {
    ptan[6 * (size_t)j + r] = cj->t1[r];
    ptan[6 * (size_t)j + 3 + r] = cj->t2[r];
    plam[3 * (size_t)j + r] = lam[3 * (size_t)j + r];
  }
}

// The previous step's arrays for cap contacts (keys, tangents, multipliers), arg a cuda_nsn.
static int prev_parts(void *arg, size_t cap, cuda_part *p) {
  cuda_nsn *s = (cuda_nsn *)arg;
  p[0] = sim_cuda_part(&s->pkey, cap), p[1] = sim_cuda_part(&s->ptan, 6 * cap);
  p[2] = sim_cuda_part(&s->plam, 3 * cap);
  return 3;
}

int sim_cuda_nsn_keep(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  const int nc = k->stage.nc;
  if (s->resumed) { /* sim_cuda_nsn_resume's are the previous step's */
    s->resumed = 0;
    return SIM_OK;
  }
  s->pnc = 0;
  if (!k->stage.warm || nc == 0) return SIM_OK;
  cuda_ctx *c = k->cx;
  int rc = sim_cuda_group_grow(c, &s->prev, (size_t)nc, 16, prev_parts, s, st);
  if (rc) return rc;
  k_keep<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, c->stream>>>(nc, k->rd.c, s->lam, s->pkey,
                                                                s->ptan, s->plam);
  SIM_CU(cudaGetLastError(), st);
  s->pnc = nc;
  return SIM_OK;
}

// The previous step's arrays from the host's (pageable memory: staged before each copy
// returns, so the caller's arrays may go).
static int upload_prev(cuda_nsn *s, cudaStream_t sm, int nc, const sim_contact_key *key,
                       const double *tan, const double *lam, sim_status *st) {
  SIM_CU(cudaMemcpyAsync(s->pkey, key, sizeof *key * nc, cudaMemcpyHostToDevice, sm), st);
  SIM_CU(cudaMemcpyAsync(s->ptan, tan, sizeof *tan * 6 * nc, cudaMemcpyHostToDevice, sm), st);
  SIM_CU(cudaMemcpyAsync(s->plam, lam, sizeof *lam * 3 * nc, cudaMemcpyHostToDevice, sm), st);
  return SIM_OK;
}

int sim_cuda_nsn_resume(cuda_contact *k, const sim_contact *c, int nc, const double *lam,
                        sim_status *st) {
  cuda_nsn *s = k->dn;
  cuda_ctx *cx = k->cx;
  s->pnc = 0;
  s->resumed = 1;
  if (!k->stage.warm || nc == 0) return SIM_OK;
  sim_contact_key *key = SIM_NEW(sim_contact_key, nc);
  double *tan = SIM_NEW(double, 6 * (size_t)nc);
  int rc = key && tan ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", nc);
  if (!rc) rc = sim_cuda_group_grow(cx, &s->prev, (size_t)nc, 16, prev_parts, s, st);
  for (int j = 0; !rc && j < nc; j++) { /* k_keep's layout */
    key[j] = sim_contact_key_of(&c[j]);
    for (int r = 0; r < 3; r++)
      tan[6 * (size_t)j + r] = c[j].t1[r], tan[6 * (size_t)j + 3 + r] = c[j].t2[r];
  }
  if (!rc) rc = upload_prev(s, cx->stream, nc, key, tan, lam, st);
  if (!rc) s->pnc = nc;
  sim_free(key);
  sim_free(tan);
  return rc;
}

// A contact's warm start (stage.c warm_start): the multipliers of the previous step's contact
// with its key, found by bisection in the sorted keys (detect.h's order: v, kind, source),
// re-expressed in its tangents; 0 where it is new.
static __global__ void k_warm(int nc, const sim_contact *c, int pnc, const sim_contact_key *pkey,
                              const double *ptan, const double *plam, double *lam) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const sim_contact *cj = &c[j];
  const int v = cj->v, kind = (int)cj->kind, src = cj->source;
  int a = 0, b = pnc; /* the first key not below cj's */
  while (a < b) {
    const int mid = a + (b - a) / 2;
    const sim_contact_key *p = &pkey[mid];
    const int below = p->v != v ? p->v < v : p->kind != kind ? p->kind < kind : p->source < src;
    if (below)
      a = mid + 1;
    else
      b = mid;
  }
  double *l = lam + 3 * (size_t)j;
  if (a < pnc && pkey[a].v == v && pkey[a].kind == kind && pkey[a].source == src) {
    const double *t = ptan + 6 * (size_t)a;
    sim_nsn_warm_lambda(plam + 3 * (size_t)a, t, t + 3, cj->t1, cj->t2, l);
  } else {
    l[0] = l[1] = l[2] = 0.0;
  }
}

// The mass preconditioner's weights [H M^-1 H^T]_jj from the step's rows (stage.c
// mass_inverse_diag, in its order): beta^2 / m over a contact's free terms on its three rows; a
// cable's |g|^2 / m on its row 0, 0 on the others.
static __global__ void k_minv(int nc, const cuda_row *rows, const int *tvert, const int *tfree,
                              const double *tcoef, const double *mass, double *w) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const cuda_row r = rows[j];
  double s = 0.0;
  for (int t = r.t0; t < r.t1; t++) {
    if (tfree[t] < 0) continue;
    const double *g = tcoef + 3 * (size_t)t;
    if (r.cable)
      s += (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) / mass[tvert[t]];
    else
      s += g[0] * g[0] / mass[tvert[t]];
  }
  w[3 * (size_t)j] = s;
  w[3 * (size_t)j + 1] = w[3 * (size_t)j + 2] = r.cable ? 0.0 : s;
}

static __global__ void k_round(long long n, const double *W, float *Wf) {
  SIM_PDL_WAIT();
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) Wf[i] = (float)W[i];
}

int sim_cuda_nsn_begin(cuda_contact *k, sim_status *st) {
  cuda_nsn *s = k->dn;
  const sim_contact_stage *sg = &k->stage;
  int nc = sg->nc;
  size_t m = 3 * (size_t)nc;
  int rc = grow(k, nc, st);
  if (rc) return rc;
  cudaStream_t sm = k->cx->stream;
  const unsigned blocks = sim_cuda_blocks(nc);
  k_nsn_prep<<<blocks, SIM_CUDA_BLOCK, 0, sm>>>(nc, k->rd.c, sg->min_sep, k->rd.cab_target, s->mu,
                                               s->comp, s->d, s->f);
  SIM_CU(cudaGetLastError(), st);
  if (sg->warm) {
    k_warm<<<blocks, SIM_CUDA_BLOCK, 0, sm>>>(nc, k->rd.c, s->pnc, s->pkey, s->ptan, s->plam,
                                              s->lam);
    SIM_CU(cudaGetLastError(), st);
  } else {
    SIM_CU(cudaMemsetAsync(s->lam, 0, sizeof(double) * m, sm), st);
  }
  /* diag(W): the device's where it formed W, else the host's (the stage's wdiag; pageable:
     staged at the call, no wait needed); the weights w are diag(W) too, or with the mass
     preconditioner [H M^-1 H^T]_jj from the rows */
  const double *dw = k->del ? sim_cuda_delassus_diag(k->del) : NULL;
  if (dw)
    SIM_CU(cudaMemcpyAsync(s->wd, dw, sizeof(double) * m, cudaMemcpyDeviceToDevice, sm), st);
  else
    SIM_CU(cudaMemcpyAsync(s->wd, sg->wdiag, sizeof(double) * m, cudaMemcpyHostToDevice, sm), st);
  if (k->w_dense && sg->nsn.opt.cr_float) { /* CR's float copy of W or G (nsn.c round_w) */
    const size_t n = k->blk.on ? (size_t)nc * (size_t)nc : m * m;
    const double *W = sim_cuda_w_of(k);
    if ((rc = sim_cuda_grow<float>(k->cx, &s->Wf, &s->wf_cap, n, st))) return rc;
    k_round<<<sim_cuda_blocks((long long)n), SIM_CUDA_BLOCK, 0, sm>>>((long long)n, W, s->Wf);
    SIM_CU(cudaGetLastError(), st);
  }
  if (sg->nsn.opt.precond == SIM_NSN_PRECOND_MASS_INVERSE) {
    k_minv<<<blocks, SIM_CUDA_BLOCK, 0, sm>>>(nc, k->rows, k->tvert, k->tfree, k->tcoef,
                                              k->cx->mass, s->w);
    SIM_CU(cudaGetLastError(), st);
  } else {
    SIM_CU(cudaMemcpyAsync(s->w, s->wd, sizeof(double) * m, cudaMemcpyDeviceToDevice, sm), st);
  }
  return SIM_OK;
}

int sim_cuda_nsn_create(cuda_contact *k, int graphs, int fuse, int cr_step, int mf_queue,
                        sim_status *st) {
  k->dn = SIM_NEW0(cuda_nsn, 1);
  if (!k->dn) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device contact solver)");
  cuda_nsn *s = k->dn;
  s->graph_on = graphs;
  s->fuse = fuse;
  s->cr_step_merged = cr_step;
  s->mf_queue = mf_queue;
  static const int zeros[SIM_RED_BLOCKS + 1] = {0};
  static_assert(SIM_W_BATCH + 1 <= SIM_RED_BLOCKS + 1, "the counters' zeros");
  int rc = sim_cuda_new<double>(k->cx, &s->part, SIM_W_BATCH * 2 * SIM_RED_BLOCKS, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &s->count, SIM_W_BATCH + 1, zeros, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &s->gcount, SIM_RED_BLOCKS + 1, zeros, st);
  if (!rc) rc = sim_cuda_new<double>(k->cx, &s->res, SIM_W_BATCH * 2, NULL, st);
  if (!rc) rc = sim_cuda_new<cr_dev>(k->cx, &s->crd, 1, NULL, st);
  if (!rc) rc = sim_cuda_new<nsn_dev>(k->cx, &s->ctl, 1, NULL, st);
  if (!rc) s->moved = &s->ctl->moved;
  if (!rc) rc = sim_cuda_new<nsn_dev>(k->cx, &s->acc, 1, NULL, st);
  /* a frame's stamps at most: its L-G iterations and its end pass (contact.end_tolerance),
     again per re-detection pass, each with 4 boundaries and 2 per Newton step */
  const sim_scene *sc = k->cx->m->scene;
  const sim_contact_def *cd = &sc->contact;
  const int end_pass = cd->end_tolerance > 0.0 ? 4 + 2 * cd->end_newton_steps : 0;
  s->stamp_cap =
      (1 + cd->redetect) * (sc->solver.lg_iterations * (4 + 2 * cd->newton_steps) + end_pass);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &s->nstamp, 1, NULL, st);
  if (!rc) rc = sim_cuda_new<nsn_stamp>(k->cx, &s->stamps, (size_t)s->stamp_cap, NULL, st);
  if (!rc)
    rc = sim_cuda_host_alloc((void **)&s->tback,
                             sizeof(nsn_dev) + sizeof(nsn_stamp) * (1 + (size_t)s->stamp_cap),
                             &s->tback_pageable, st);
  if (!rc && k->stage.nsn.opt.friction_exact) rc = sim_cuda_gmres_create(k, st);
  return rc;
}

void sim_cuda_nsn_destroy(cuda_contact *k) {
  if (!k->dn) return;
  sim_cuda_gmres_destroy(k);
  free_arrays(k);
  sim_cuda_release(k->cx, k->dn->part, SIM_W_BATCH * 2 * SIM_RED_BLOCKS * sizeof(double));
  sim_cuda_release(k->cx, k->dn->res, SIM_W_BATCH * 2 * sizeof(double));
  sim_cuda_release(k->cx, k->dn->count, (SIM_W_BATCH + 1) * sizeof(int));
  sim_cuda_release(k->cx, k->dn->gcount, (SIM_RED_BLOCKS + 1) * sizeof(int));
  sim_cuda_release(k->cx, k->dn->Wf, sizeof(float) * k->dn->wf_cap);
  sim_cuda_release(k->cx, k->dn->crd, sizeof(cr_dev));
  sim_cuda_release(k->cx, k->dn->ctl, sizeof(nsn_dev));
  sim_cuda_release(k->cx, k->dn->acc, sizeof(nsn_dev));
  sim_cuda_release(k->cx, k->dn->nstamp, sizeof(int));
  sim_cuda_release(k->cx, k->dn->stamps, sizeof(nsn_stamp) * (size_t)k->dn->stamp_cap);
  sim_cuda_group_free(k->cx, &k->dn->prev);
  sim_cuda_host_free(k->dn->tback, k->dn->tback_pageable);
  if (k->dn->exec) cudaGraphExecDestroy(k->dn->exec);
  sim_free(k->dn);
  k->dn = NULL;
}

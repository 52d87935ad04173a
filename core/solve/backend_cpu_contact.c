/* SPDX-License-Identifier: MIT */
/* CPU backend, contact stage (Algorithm 4; DESIGN.md Sec. 6): the shared stage
   (core/contact/stage.h) with this backend's operations: H on the host state, the
   unconstrained solve and the correction by the global solver (S or CHOLMOD), and the
   matrix-free W through the contacts' columns of S (core/contact/delassus_op.h; a scatter, a
   solve and a gather where that operator could not be built). W and diag(W) come from S. */
#include <string.h>

#include "../base/alloc.h"
#include "../contact/delassus_op.h"
#include "../contact/rows.h"
#include "../contact/stage.h"
#include "../contact/world.h"
#include "backend_cpu.h"

/* contact.delassus "auto" with the operator through S's contact columns: W dense up to this
   many rows (and where stage.c's weighing of the two says so). Per frame of the contact stage
   against the operator's (scripts/table3.sh runs of pulling_wooper and grabbing_raptor, by
   their frames' rows): dense 0.58-0.89 of it at 150-600 rows (1.26 on the wooper's 3 frames
   below 150), 0.85-1.08 at 600-750, 1.32-1.96 above 750, with W formed. In its block form
   (2026-12-02) and with K's path dot products in eight sums (2026-12-03), 1,500 took 0.86-0.93
   of 700's contact stage on pulling_wooper (250 frames) and grabbing_raptor (60, 100), 0.99-1.01
   on cloth_on_knives (100; scripts/bench_delassus.sh --forms auto, two builds in turns). */
#define SIM_CPU_DENSE_ROWS 1500

typedef struct cpu_contact {
  sim_contact_stage stage;
  cpu_ctx *cx;
  sim_sparse_inverse S;         /* for W when the global solver has none (S.n == 0 otherwise) */
  sim_delassus_op op;           /* the matrix-free W of this step's contacts */
  const sim_contact *op_c; /* its contacts (the stage's copy), NULL where it could not be built */
  int op_nc;
  double *g, *xc;       /* 3 nfree */
} cpu_contact;

/* W x = H_free A^{-1} H_free^T x: a scatter, one solve, a gather (the matrix-free W). */
/* k->xc = A^{-1} H_free^T lam on the free unknowns (a scatter and a solve). */
static int ht_solve(cpu_contact *k, const double *lam, sim_status *st) {
  const sim_model *m = k->cx->m;
  memset(k->g, 0, sizeof(double) * 3 * (size_t)m->nfree);
  sim_rows_apply_T(k->stage.c, k->stage.nc, m->free_of, lam, k->g);
  return sim_cpu_solve(k->cx, k->g, k->xc, st);
}

static void w_operator(void *ctx, const double *x, double *out) {
  cpu_contact *k = (cpu_contact *)ctx;
  if (k->op_c) {
    sim_delassus_op_apply(&k->op, k->op_c, k->op_nc, x, out);
    return;
  }
  sim_status ignore = {0}; /* the factor solved this system before: it cannot fail now */
  ht_solve(k, x, &ignore);
  sim_rows_apply(k->stage.c, k->stage.nc, k->cx->m->free_of, k->xc, out);
}

/* The step's matrix-free W through the contacts' columns of S. Where its buffers cannot grow,
   the products go through all of S or the factor instead (the same values to rounding, no
   workspace) and "auto" is told of no operator. */
static int cpu_prepare_w(void *ctx, const sim_contact *c, int nc, long long *entries,
                         sim_status *st) {
  cpu_contact *k = (cpu_contact *)ctx;
  (void)st;
  sim_status ignore = {0};
  *entries = 0;
  if (sim_delassus_op_build(&k->op, c, nc, k->cx->m->free_of, k->stage.S, &ignore)) return SIM_OK;
  k->op_c = c;
  k->op_nc = nc;
  *entries = k->op.nnz;
  return SIM_OK;
}

/* A new step: its matrix-free W, if any, comes with prepare_w. */
static int cpu_set_rows(void *ctx, const sim_contact *c, int nc, sim_status *st) {
  (void)c, (void)nc, (void)st;
  ((cpu_contact *)ctx)->op_c = NULL;
  return SIM_OK;
}

static int cpu_h_state(void *ctx, sim_vec_id id, double *out, sim_status *st) {
  cpu_contact *k = (cpu_contact *)ctx;
  sim_rows_apply(k->stage.c, k->stage.nc, NULL, k->cx->vec[id], out);
  return SIM_OK;
}

/* q_free = A^{-1} rhs into q. */
static int cpu_unconstrained(void *ctx, sim_status *st) {
  cpu_ctx *cx = ((cpu_contact *)ctx)->cx;
  const sim_model *m = cx->m;
  double *q = cx->vec[SIM_VEC_Q];
  if (sim_cpu_solve(cx, cx->rhs, cx->xfree, st)) return st->code;
#pragma omp parallel for schedule(static)
  for (int f = 0; f < m->nfree; f++)
    for (int d = 0; d < 3; d++) q[3 * m->free_vert[f] + d] = cx->xfree[3 * f + d];
  return SIM_OK;
}

/* q_free += h^2 A^{-1} H_free^T f. */
static int cpu_correct(void *ctx, const double *f, sim_status *st) {
  cpu_contact *k = (cpu_contact *)ctx;
  const sim_model *m = k->cx->m;
  double *q = k->cx->vec[SIM_VEC_Q], h2 = m->h * m->h;
  if (ht_solve(k, f, st)) return st->code;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m->nfree; i++)
    for (int d = 0; d < 3; d++) q[3 * m->free_vert[i] + d] += h2 * k->xc[3 * i + d];
  return SIM_OK;
}

static int cpu_contact_begin(sim_backend *be, const sim_contact *c, int nc, sim_cst_times *t,
                             sim_status *st) {
  return sim_contact_stage_begin(&CTX(be)->cst->stage, c, nc, t, st);
}

static int cpu_contact_global(sim_backend *be, sim_cst_times *t, sim_status *st) {
  return sim_contact_stage_global(&CTX(be)->cst->stage, t, st);
}

static int cpu_contact_finish(sim_backend *be, sim_cst_times *t, sim_status *st) {
  return sim_contact_stage_finish(&CTX(be)->cst->stage, t, st);
}

static int cpu_contact_lambda(sim_backend *be, double *out, sim_status *st) {
  sim_contact_stage_lambda(&CTX(be)->cst->stage, out);
  return SIM_OK;
}

static int cpu_contact_resume(sim_backend *be, const sim_contact *c, int nc, const double *lam,
                              sim_status *st) {
  return sim_contact_stage_resume(&CTX(be)->cst->stage, c, nc, lam, st);
}

/* W and diag(W) come from S (K_ab are path dot products, delassus.h: several times faster than
   CHOLMOD solves). When the global solver keeps no S (cholesky, dense_inverse), build one from
   a simplicial factor of A_s for the contact stage alone; the global solver keeps its own. */
static int contact_S(cpu_ctx *cx, cpu_contact *k, sim_status *st) {
  if (cx->use_S) return SIM_OK;
  const sim_model *m = cx->m;
  sim_factor *f = NULL;
  int rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, cx->opts.ordering, 1,
                             &f, st);
  if (!rc) rc = sim_sparse_inverse_build(f, SIM_PREC_DOUBLE, cx->opts.max_S_bytes, &k->S, st);
  sim_factor_destroy(f);
  if (!rc) cx->stats.S_contact_bytes = sim_sparse_inverse_bytes(k->S.nnz, k->S.n, SIM_PREC_DOUBLE);
  return rc;
}

int sim_cpu_contact_create(sim_backend *be, sim_status *st) {
  cpu_ctx *cx = CTX(be);
  if (!sim_world_needed(cx->m)) return SIM_OK;
  if (sim_contact_stage_check_solver(cx->m, be->global, cx->rho, st)) return st->code;
  cpu_contact *k = SIM_NEW0(cpu_contact, 1);
  size_t f3 = 3 * (size_t)cx->m->nfree + 3;
  if (k) {
    k->g = SIM_NEW(double, f3);
    k->xc = SIM_NEW(double, f3);
  }
  cx->cst = k;
  if (!k || !k->g || !k->xc) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact)");
  k->cx = cx;
  if (contact_S(cx, k, st)) return st->code;
  const sim_sparse_inverse *S = cx->use_S ? &cx->S : k->S.n > 0 ? &k->S : NULL;
  sim_contact_ops ops = {
      k,           cpu_set_rows, cpu_h_state, cpu_unconstrained,       w_operator, NULL,
      cpu_correct, NULL,         NULL,        S ? cpu_prepare_w : NULL};
  if (sim_contact_stage_init(&k->stage, cx->m, &ops, cx->fac, S, cx->max_W_bytes, st))
    return st->code;
  if (S) k->stage.dense_rows = SIM_CPU_DENSE_ROWS;
  be->contact_begin = cpu_contact_begin;
  be->contact_global = cpu_contact_global;
  be->contact_finish = cpu_contact_finish;
  be->contact_lambda = cpu_contact_lambda;
  be->contact_resume = cpu_contact_resume;
  return SIM_OK;
}

void sim_cpu_contact_destroy(cpu_ctx *cx) {
  cpu_contact *k = cx->cst;
  if (!k) return;
  sim_contact_stage_free(&k->stage);
  sim_sparse_inverse_free(&k->S);
  sim_delassus_op_free(&k->op);
  sim_free(k->g), sim_free(k->xc);
  sim_free(k);
  cx->cst = NULL;
}

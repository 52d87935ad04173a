/* SPDX-License-Identifier: MIT */
/* CPU backend, contact stage (Algorithm 4; DESIGN.md Sec. 6): W once per step from S (or
   CHOLMOD solves), then per L-G iteration the unconstrained solve, up to contact.newton_steps
   non-smooth Newton steps (core/contact/nsn.h), each linearised at H A^{-1} b + h^2 W f, and the
   correction solve. */
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "../contact/delassus.h"
#include "../contact/nsn.h"
#include "../contact/rows.h"
#include "backend_cpu.h"

/* "auto": W dense up to this many rows (3 per contact), the operator above (measured on
   sharp_corner, README: the dense build and its products grow as rows^2). */
#define SIM_DELASSUS_DENSE_ROWS 1500

typedef struct cpu_contact {
  sim_nsn nsn;
  sim_scene_delassus delassus;
  cpu_ctx *cx;
  sim_sparse_inverse S; /* for W when the global solver has none (S.n == 0 otherwise) */
  double *wdiag;        /* 3 nc: diag(W) for the operator */
  double min_sep;
  int warm;
  int newton_steps; /* per L-G iteration */
  sim_contact *c, *pc; /* this step's contacts and the previous step's */
  int nc, pnc, cap, pcap;
  int first; /* the step's first L-G iteration is next */
  double *plam; /* previous step's multipliers (3 pnc) */
  double *W;
  size_t W_cap;
  double *d, *mu, *comp, *hqt, *hq, *hab, *minv, *tmp; /* 3 nc (mu, comp: nc) */
  double *g, *xc;                         /* 3 nfree */
} cpu_contact;

static int grow(cpu_contact *k, int nc) {
  if (nc <= k->cap) return 0;
  int cap = nc + nc / 2 + 16;
  sim_contact *c = SIM_NEW(sim_contact, cap);
  double *b[9];
  size_t sz[9] = {3, 1, 3, 3, 3, 3, 3, 3, 1};
  int ok = c != NULL;
  for (int i = 0; i < 9; i++) ok &= (b[i] = SIM_NEW(double, sz[i] * (size_t)cap)) != NULL;
  if (!ok) {
    sim_free(c);
    for (int i = 0; i < 9; i++) sim_free(b[i]);
    return -1;
  }
  sim_free(k->c), sim_free(k->d), sim_free(k->mu), sim_free(k->hqt), sim_free(k->hq);
  sim_free(k->hab), sim_free(k->minv), sim_free(k->wdiag), sim_free(k->tmp), sim_free(k->comp);
  k->c = c, k->d = b[0], k->mu = b[1], k->hqt = b[2], k->hq = b[3], k->hab = b[4];
  k->minv = b[5], k->wdiag = b[6], k->tmp = b[7], k->comp = b[8];
  k->cap = cap;
  return 0;
}

/* Keep this step's contacts and multipliers for the next step's warm start. */
static int keep_previous(cpu_contact *k) {
  if (k->nc > k->pcap) {
    int cap = k->nc + k->nc / 2 + 16;
    sim_free(k->pc), sim_free(k->plam);
    k->pc = SIM_NEW(sim_contact, cap);
    k->plam = SIM_NEW(double, 3 * (size_t)cap);
    k->pcap = k->pc && k->plam ? cap : 0;
    if (!k->pcap) return -1;
  }
  k->pnc = k->nc;
  if (k->nc > 0) {
    memcpy(k->pc, k->c, sizeof(sim_contact) * (size_t)k->nc);
    memcpy(k->plam, sim_nsn_lambda(&k->nsn), sizeof(double) * 3 * (size_t)k->nc);
  }
  return 0;
}

/* Warm start: a contact with the same (vertex, kind, source) as one of the previous step
   takes its multipliers, the friction part re-expressed in the new tangents. Both lists are
   sorted by that key (core/contact/detect.h). */
static void warm_start(cpu_contact *k, double *lam) {
  int i = 0;
  for (int j = 0; j < k->nc; j++) {
    const sim_contact *c = &k->c[j];
    double *l = lam + 3 * (size_t)j;
    l[0] = l[1] = l[2] = 0.0;
    while (i < k->pnc && sim_contact_key_cmp(&k->pc[i], c) < 0) i++;
    if (i >= k->pnc || sim_contact_key_cmp(&k->pc[i], c) != 0) continue;
    const sim_contact *p = &k->pc[i];
    const double *pl = k->plam + 3 * (size_t)i;
    double F[3];
    for (int r = 0; r < 3; r++) F[r] = pl[1] * p->t1[r] + pl[2] * p->t2[r];
    l[0] = pl[0];
    l[1] = F[0] * c->t1[0] + F[1] * c->t1[1] + F[2] * c->t1[2];
    l[2] = F[0] * c->t2[0] + F[1] * c->t2[1] + F[2] * c->t2[2];
  }
}

/* [H M^{-1} H^T]_jj (Macklin et al. 2019): sum of beta^2 / m over the row's free vertices
   (a cable's: |g|^2 / m over its terms, on its row 0; 0 on its empty rows). */
static void mass_inverse_diag(const cpu_ctx *cx, const cpu_contact *k) {
  const sim_model *m = cx->m;
  for (int j = 0; j < k->nc; j++) {
    if (k->c[j].kind == SIM_CONTACT_CABLE) {
      const sim_cable_row *row = k->c[j].cable;
      double s = 0.0;
      for (int t = 0; t < row->nt; t++)
        if (m->free_of[row->vert[t]] >= 0)
          s += (row->g[t][0] * row->g[t][0] + row->g[t][1] * row->g[t][1] +
                row->g[t][2] * row->g[t][2]) / m->mass[row->vert[t]];
      k->minv[3 * j] = s;
      k->minv[3 * j + 1] = k->minv[3 * j + 2] = 0.0;
      continue;
    }
    int vert[4];
    double beta[4], s = 0.0;
    int nt = sim_rows_terms(&k->c[j], vert, beta);
    for (int a = 0; a < nt; a++)
      if (m->free_of[vert[a]] >= 0) s += beta[a] * beta[a] / m->mass[vert[a]];
    for (int r = 0; r < 3; r++) k->minv[3 * j + r] = s;
  }
}

/* W x = H_free A^{-1} H_free^T x: a scatter, one solve, a gather (the matrix-free W). */
static void w_operator(void *ctx, const double *x, double *out) {
  cpu_contact *k = (cpu_contact *)ctx;
  const sim_model *m = k->cx->m;
  sim_status ignore = {0}; /* the factor solved this system before: it cannot fail now */
  memset(k->g, 0, sizeof(double) * 3 * (size_t)m->nfree);
  sim_rows_apply_T(k->c, k->nc, m->free_of, x, k->g);
  sim_cpu_solve(k->cx, k->g, k->xc, &ignore);
  sim_rows_apply(k->c, k->nc, m->free_of, k->xc, out);
}

static int use_dense(const cpu_contact *k, int nc) {
  return k->delassus == SIM_SCENE_DELASSUS_DENSE ||
         (k->delassus == SIM_SCENE_DELASSUS_AUTO && 3 * nc <= SIM_DELASSUS_DENSE_ROWS);
}

static int cpu_contact_begin(sim_backend *be, const sim_contact *c, int nc, sim_cst_times *t,
                             sim_status *st) {
  cpu_ctx *cx = CTX(be);
  cpu_contact *k = cx->cst;
  if (k->warm && keep_previous(k)) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contacts)");
  if (grow(k, nc)) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", nc);
  k->nc = nc;
  if (nc == 0) {
    sim_nsn_begin_step(&k->nsn, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    return SIM_OK;
  }
  memcpy(k->c, c, sizeof(sim_contact) * (size_t)nc);
  double t0 = sim_now_ms();
  sim_delassus_info info;
  const sim_sparse_inverse *S = cx->use_S ? &cx->S : k->S.n > 0 ? &k->S : NULL;
  int dense = use_dense(k, nc);
  int rc = dense ? sim_delassus_build(k->c, nc, cx->m->free_of, cx->fac, S, SIM_DELASSUS_AUTO,
                                      cx->max_W_bytes, &k->W, &k->W_cap, &info, st)
                 : sim_delassus_diag(k->c, nc, cx->m->free_of, cx->fac, S, k->wdiag, st);
  if (rc) return rc;
  t->schur_ms += sim_now_ms() - t0;
  sim_rows_targets(k->c, nc, k->min_sep, k->d);
  sim_rows_apply(k->c, nc, NULL, cx->vec[SIM_VEC_QT], k->hqt);
  for (int j = 0; j < nc; j++) { /* bilateral rows (pins, cables) are told by compliance >= 0 */
    k->mu[j] = k->c[j].mu;
    int bilateral = k->c[j].kind == SIM_CONTACT_BILATERAL || k->c[j].kind == SIM_CONTACT_CABLE;
    k->comp[j] = bilateral ? k->c[j].compliance : -1.0;
  }
  if (k->nsn.opt.precond == SIM_NSN_PRECOND_MASS_INVERSE) mass_inverse_diag(cx, k);
  rc = dense ? sim_nsn_begin_step(&k->nsn, nc, k->W, k->mu, k->comp, k->d, k->hqt, k->minv)
             : sim_nsn_begin_step_op(&k->nsn, nc, w_operator, k, k->wdiag, k->mu, k->comp, k->d,
                                     k->hqt, k->minv);
  if (rc)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact solver, %d contacts)", nc);
  if (k->warm) warm_start(k, sim_nsn_lambda(&k->nsn));
  k->first = 1;
  return SIM_OK;
}

static int cpu_contact_global(sim_backend *be, sim_cst_times *t, sim_status *st) {
  cpu_ctx *cx = CTX(be);
  cpu_contact *k = cx->cst;
  const sim_model *m = cx->m;
  double *q = cx->vec[SIM_VEC_Q], h2 = m->h * m->h;
  double t1 = sim_now_ms();
  if (sim_cpu_solve(cx, cx->rhs, cx->xfree, st)) return st->code;
#pragma omp parallel for schedule(static)
  for (int f = 0; f < m->nfree; f++)
    for (int d = 0; d < 3; d++) q[3 * m->free_vert[f] + d] = cx->xfree[3 * f + d];
  double t2 = sim_now_ms();
  sim_rows_apply(k->c, k->nc, NULL, q, k->hab); /* H A^{-1} b (pinned rows at their targets) */
  /* Linearise at the point consistent with this iteration's b and the current force,
     q^k = A^{-1}(b + h^2 H^T f^k): H q^k = H A^{-1} b + h^2 W f^k (f^k = lambda_warm, or 0, at
     the step's first iteration). Not the paper's previous iterate A^{-1}(b^{k-1} + ...): a row
     inactive there (FB Omega = 0) is blind to where this iteration's b puts its vertex. */
  const double *f0 = k->first ? sim_nsn_lambda(&k->nsn) : sim_nsn_force(&k->nsn);
  k->first = 0;
  double s0 = k->nsn.stats.cst_solve_ms;
  double t3 = sim_now_ms();
  int it = 0;
  for (int s = 0; s < k->newton_steps; s++) {
    sim_nsn_w_apply(&k->nsn, s == 0 ? f0 : sim_nsn_force(&k->nsn), k->tmp);
    for (int i = 0; i < 3 * k->nc; i++) k->hq[i] = k->hab[i] + h2 * k->tmp[i];
    /* compliance form: f = lambda, so k->tmp = W lambda is the solver's y as well */
    int its = sim_nsn_iterate_w(&k->nsn, k->hq, k->hab, k->tmp);
    if (its < 0) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Conjugate Residual)");
    if (k->nsn.stats.converged) break;
    it += its;
    t->newton_steps++;
  }
  double t4 = sim_now_ms();
  memset(k->g, 0, sizeof(double) * 3 * (size_t)m->nfree);
  sim_rows_apply_T(k->c, k->nc, m->free_of, sim_nsn_force(&k->nsn), k->g);
  if (sim_cpu_solve(cx, k->g, k->xc, st)) return st->code;
#pragma omp parallel for schedule(static)
  for (int f = 0; f < m->nfree; f++)
    for (int d = 0; d < 3; d++) q[3 * m->free_vert[f] + d] += h2 * k->xc[3 * f + d];
  double t5 = sim_now_ms();
  double nsn_ms = t4 - t3, solve_ms = k->nsn.stats.cst_solve_ms - s0;
  t->global_ms += t2 - t1;
  t->assemble_ms += (t3 - t2) + (nsn_ms - solve_ms);
  t->cst_solve_ms += solve_ms;
  t->corr_ms += t5 - t4;
  t->cr_iters += it;
  return SIM_OK;
}

static int cpu_contact_lambda(sim_backend *be, double *out, sim_status *st) {
  cpu_contact *k = CTX(be)->cst;
  if (k->nc > 0) memcpy(out, sim_nsn_lambda(&k->nsn), sizeof(double) * 3 * (size_t)k->nc);
  return SIM_OK;
}

/* Obstacles, body-body contact, constraint pins or cables (bilateral rows, core/contact/world.h). */
static int needs_contact(const sim_model *m) {
  const sim_scene *sc = m->scene;
  return sc->nobstacles > 0 || (sc->nbodies > 1 && sc->contact.bodies) ||
         sc->contact.self_collision || m->ncpin > 0 || m->ncable > 0;
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
  const sim_scene *sc = cx->m->scene;
  if (!needs_contact(cx->m)) return SIM_OK;
  if (be->global == SIM_GLOBAL_JACOBI || cx->rho > 0)
    return sim_fail(
        st, SIM_ERR_SCENE,
        "%s: contact, constraint pins and cables need an exact global solver (solver.global "
        "sparse_inverse, cholesky or dense_inverse, and solver.chebyshev_rho 0), got %s%s",
        sc->file, sim_global_name(be->global), cx->rho > 0 ? " with Chebyshev" : "");
  cpu_contact *k = SIM_NEW0(cpu_contact, 1);
  size_t f3 = 3 * (size_t)cx->m->nfree + 3;
  if (k) {
    k->g = SIM_NEW(double, f3);
    k->xc = SIM_NEW(double, f3);
  }
  cx->cst = k;
  if (!k || !k->g || !k->xc) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact)");
  const sim_contact_def *cd = &sc->contact;
  sim_nsn_options o = sim_default_nsn_options();
  o.ncp = cd->ncp == SIM_SCENE_NCP_MIN_MAP ? SIM_NCP_MIN_MAP : SIM_NCP_FISCHER_BURMEISTER;
  o.precond = cd->preconditioner == SIM_SCENE_PRECOND_MASS ? SIM_NSN_PRECOND_MASS_INVERSE
                                                           : SIM_NSN_PRECOND_DELASSUS;
  o.cr_iters = cd->cr_iterations;
  o.cr_tol = cd->cr_tolerance;
  o.max_force = cd->max_force;
  o.h = cx->m->h;
  o.warm_start = cd->warm_start;
  o.form = cd->formulation == SIM_SCENE_FORM_PAPER ? SIM_NSN_FORM_PAPER : SIM_NSN_FORM_COMPLIANCE;
  o.cr_jacobi = cd->cr_preconditioner == SIM_SCENE_CR_JACOBI;
  o.newton_tol = cd->newton_tolerance;
  o.line_search = cd->line_search;
  if (sim_nsn_init(&k->nsn, &o))
    return sim_fail(st, SIM_ERR_SCENE, "%s: bad contact solver options", sc->file);
  if (contact_S(cx, k, st)) return st->code;
  k->min_sep = cd->min_separation;
  k->delassus = cd->delassus;
  k->cx = cx;
  k->warm = cd->warm_start;
  k->newton_steps = cd->newton_steps;
  be->contact_begin = cpu_contact_begin;
  be->contact_global = cpu_contact_global;
  be->contact_lambda = cpu_contact_lambda;
  return SIM_OK;
}

void sim_cpu_contact_destroy(cpu_ctx *cx) {
  cpu_contact *k = cx->cst;
  if (!k) return;
  sim_nsn_destroy(&k->nsn);
  sim_sparse_inverse_free(&k->S);
  sim_free(k->c), sim_free(k->pc), sim_free(k->plam), sim_free(k->W);
  sim_free(k->d), sim_free(k->mu), sim_free(k->hqt), sim_free(k->hq), sim_free(k->hab);
  sim_free(k->minv), sim_free(k->g), sim_free(k->xc), sim_free(k->wdiag), sim_free(k->tmp);
  sim_free(k->comp);
  sim_free(k);
  cx->cst = NULL;
}

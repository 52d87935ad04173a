/* SPDX-License-Identifier: MIT */
/* The contact stage shared by the backends (stage.h): contacts and warm start, W once per step,
   the Newton steps of each L-G iteration around the backend's solves. Workspace: 9 arrays of
   3 nc doubles and the contact lists, grown on demand; fails on allocation, a W over its limit,
   or a backend operation's failure. */
#include "stage.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "delassus.h"
#include "nsn_row.h"
#include "rows.h"
#include "world.h"

/* "auto": W dense up to this many rows (3 per contact), the operator above, unless the backend
   sets its own bound (dense_rows; measured on sharp_corner with the operator as one global
   solve a product, docs/method.md, Delassus operator: the dense build and its products grow as
   rows^2; the CPU backend's operator through S's contact columns sets 700). */
#define SIM_DELASSUS_DENSE_ROWS 1500

static int grow(sim_contact_stage *k, int nc) {
  if (nc <= k->cap) return 0;
  int cap = nc + nc / 2 + 16;
  sim_contact *c = SIM_NEW(sim_contact, cap);
  double *b[10];
  size_t sz[10] = {3, 1, 3, 3, 3, 3, 3, 3, 1, 3};
  int ok = c != NULL;
  for (int i = 0; i < 10; i++) ok &= (b[i] = SIM_NEW(double, sz[i] * (size_t)cap)) != NULL;
  if (!ok) {
    sim_free(c);
    for (int i = 0; i < 10; i++) sim_free(b[i]);
    return -1;
  }
  sim_free(k->c), sim_free(k->d), sim_free(k->mu), sim_free(k->hqt), sim_free(k->hq);
  sim_free(k->hab), sim_free(k->minv), sim_free(k->wdiag), sim_free(k->tmp), sim_free(k->comp);
  sim_free(k->fend);
  k->c = c, k->d = b[0], k->mu = b[1], k->hqt = b[2], k->hq = b[3], k->hab = b[4];
  k->minv = b[5], k->wdiag = b[6], k->tmp = b[7], k->comp = b[8], k->fend = b[9];
  k->cap = cap;
  return 0;
}

/* Keep this step's contacts and multipliers for the next step's warm start. */
static int keep_previous(sim_contact_stage *k) {
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

int sim_contact_stage_resume(sim_contact_stage *k, const sim_contact *c, int nc, const double *lam,
                             sim_status *st) {
  if (nc > k->pcap) {
    sim_free(k->pc), sim_free(k->plam);
    k->pc = SIM_NEW(sim_contact, nc);
    k->plam = SIM_NEW(double, 3 * (size_t)nc);
    k->pcap = k->pc && k->plam ? nc : 0;
    if (!k->pcap) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", nc);
  }
  k->pnc = nc;
  if (nc > 0) {
    memcpy(k->pc, c, sizeof(sim_contact) * (size_t)nc);
    memcpy(k->plam, lam, sizeof(double) * 3 * (size_t)nc);
  }
  k->resumed = 1;
  return SIM_OK;
}

/* Warm start: a contact with the same (vertex, kind, source) as one of the previous step
   takes its multipliers, the friction part re-expressed in the new tangents. Both lists are
   sorted by that key (core/contact/detect.h). */
static void warm_start(sim_contact_stage *k, double *lam) {
  int i = 0;
  for (int j = 0; j < k->nc; j++) {
    const sim_contact *c = &k->c[j];
    double *l = lam + 3 * (size_t)j;
    l[0] = l[1] = l[2] = 0.0;
    while (i < k->pnc && sim_contact_key_cmp(&k->pc[i], c) < 0) i++;
    if (i >= k->pnc || sim_contact_key_cmp(&k->pc[i], c) != 0) continue;
    const sim_contact *p = &k->pc[i];
    sim_nsn_warm_lambda(k->plam + 3 * (size_t)i, p->t1, p->t2, c->t1, c->t2, l);
  }
}

/* [H M^{-1} H^T]_jj (Macklin et al. 2019): sum of beta^2 / m over the row's free vertices
   (a cable's: |g|^2 / m over its terms, on its row 0; 0 on its empty rows). */
static void mass_inverse_diag(sim_contact_stage *k) {
  const sim_model *m = k->m;
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

/* "auto" with a backend's matrix-free product of `entries` entries (prepare_w): W dense only
   where its 9 nc^2 doubles are at most this many times the product's 3 entries' worth (an
   index and a double, read twice). Measured on the CPU (docs/method.md, Delassus operator): the
   operator won at 3 nc^2 / entries 6.2 (pushing_wall, 291 rows), 10.5 (soft_box_on_slab, 1,506)
   and above; dense at 3.1 (box_on_trampoline, 321 rows). */
#define SIM_DELASSUS_DENSE_OVER_OPERATOR 4.0

static int use_dense(const sim_contact_stage *k, int nc, long long entries) {
  if (k->delassus != SIM_SCENE_DELASSUS_AUTO) return k->delassus != SIM_SCENE_DELASSUS_OPERATOR;
  if (3 * nc > k->dense_rows) return 0;
  return entries <= 0 || 3.0 * nc * nc <= SIM_DELASSUS_DENSE_OVER_OPERATOR * (double)entries;
}

int sim_contact_stage_begin(sim_contact_stage *k, const sim_contact *c, int nc, sim_cst_times *t,
                            sim_status *st) {
  /* after sim_contact_stage_resume the previous step's are in place already */
  const int resumed = k->resumed;
  k->resumed = 0;
  if (k->warm && !k->backend_prepares && !resumed && keep_previous(k))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contacts)");
  if (grow(k, nc)) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", nc);
  k->nc = nc;
  if (nc == 0) {
    sim_nsn_begin_step(&k->nsn, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    return SIM_OK;
  }
  memcpy(k->c, c, sizeof(sim_contact) * (size_t)nc);
  int rc = k->ops.set_rows ? k->ops.set_rows(k->ops.ctx, k->c, nc, st) : SIM_OK;
  if (rc) return rc;
  double t0 = sim_now_ms();
  sim_delassus_info info;
  const int *free_of = k->m->free_of;
  long long entries = 0;
  if (!k->ops.delassus && k->ops.prepare_w && k->delassus != SIM_SCENE_DELASSUS_DENSE &&
      k->delassus != SIM_SCENE_DELASSUS_BLOCKS &&
      (rc = k->ops.prepare_w(k->ops.ctx, k->c, nc, &entries, st)))
    return rc;
  int dense = use_dense(k, nc, entries), m3 = 3 * nc, host_w = dense && m3 <= k->host_w_rows;
  /* W formed here and applied here: its block form (wblocks.h), a ninth of the bytes, unless
     "dense" asks for W itself */
  int blocks = dense && k->delassus != SIM_SCENE_DELASSUS_DENSE && !k->ops.delassus &&
               (!k->ops.set_w || host_w) && !k->backend_prepares;
  if (k->ops.delassus) { /* formed by the backend: the solver reads its diagonal */
    rc = k->ops.delassus(k->ops.ctx, k->c, nc, dense, k->wdiag, st);
    if (!rc && host_w && k->ops.get_w) { /* small: the host applies it (no round trips) */
      size_t nn = (size_t)m3 * (size_t)m3;
      if (k->W_cap < nn) {
        sim_free(k->W);
        k->W_cap = (k->W = SIM_NEW(double, nn)) ? nn : 0;
      }
      rc = k->W ? k->ops.get_w(k->ops.ctx, k->W, m3, st)
                : sim_fail(st, SIM_ERR_MEMORY, "out of memory (W, %d contacts)", nc);
    } else {
      dense = 0;
    }
  } else {
    rc = blocks  ? sim_delassus_build_blocks(k->c, nc, free_of, k->fac, k->S, SIM_DELASSUS_AUTO,
                                             k->max_W_bytes, &k->wb, &info, st)
         : dense ? sim_delassus_build(k->c, nc, free_of, k->fac, k->S, SIM_DELASSUS_AUTO,
                                      k->max_W_bytes, &k->W, &k->W_cap, &info, st)
                 : sim_delassus_diag(k->c, nc, free_of, k->fac, k->S, k->wdiag, st);
    /* the backend applies W (small ones stay here); the solver reads its diagonal */
    if (!rc && dense && !blocks && k->ops.set_w && !host_w) {
      rc = k->ops.set_w(k->ops.ctx, k->W, m3, st);
      for (int i = 0; i < m3; i++) k->wdiag[i] = k->W[(size_t)i * (size_t)m3 + (size_t)i];
      dense = 0;
    }
  }
  if (rc) return rc;
  t->schur_ms += sim_now_ms() - t0;
  rc = k->ops.h_state(k->ops.ctx, SIM_VEC_QT, k->hqt, st);
  if (rc) return rc;
  k->first = 1;
  if (k->backend_prepares)
    return sim_nsn_hold(&k->nsn, nc)
               ? sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact solver, %d contacts)", nc)
               : SIM_OK;
  sim_rows_targets(k->c, nc, k->min_sep, k->d);
  for (int j = 0; j < nc; j++) { /* bilateral rows (pins, cables) are told by compliance >= 0 */
    k->mu[j] = k->c[j].mu;
    int bilateral = k->c[j].kind == SIM_CONTACT_BILATERAL || k->c[j].kind == SIM_CONTACT_CABLE;
    k->comp[j] = bilateral ? k->c[j].compliance : -1.0;
  }
  if (k->nsn.opt.precond == SIM_NSN_PRECOND_MASS_INVERSE) mass_inverse_diag(k);
  rc = blocks
           ? sim_nsn_begin_step_blocks(&k->nsn, nc, &k->wb, k->mu, k->comp, k->d, k->hqt, k->minv)
       : dense ? sim_nsn_begin_step(&k->nsn, nc, k->W, k->mu, k->comp, k->d, k->hqt, k->minv)
               : sim_nsn_begin_step_op(&k->nsn, nc, k->ops.w_apply, k->ops.ctx, k->wdiag, k->mu,
                                       k->comp, k->d, k->hqt, k->minv);
  if (rc)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact solver, %d contacts)", nc);
  if (k->warm) warm_start(k, sim_nsn_lambda(&k->nsn));
  return SIM_OK;
}

int sim_contact_stage_global(sim_contact_stage *k, sim_cst_times *t, sim_status *st) {
  double h2 = k->m->h * k->m->h;
  double t1 = sim_now_ms();
  int rc = k->ops.unconstrained(k->ops.ctx, st);
  double t2 = sim_now_ms();
  /* H A^{-1} b (pinned rows at their targets) */
  if (!rc) rc = k->ops.h_state(k->ops.ctx, SIM_VEC_Q, k->hab, st);
  if (rc) return rc;
  /* Linearise at the point consistent with this iteration's b and the current force,
     q^k = A^{-1}(b + h^2 H^T f^k): H q^k = H A^{-1} b + h^2 W f^k (f^k = lambda_warm, or 0, at
     the step's first iteration). Not the paper's previous iterate A^{-1}(b^{k-1} + ...): a row
     inactive there (FB Omega = 0) is blind to where this iteration's b puts its vertex. */
  const double *f0 = k->first ? sim_nsn_lambda(&k->nsn) : sim_nsn_force(&k->nsn);
  k->first = 0;
  double s0 = k->nsn.stats.cst_solve_ms;
  const sim_ls_counts ls0 = k->nsn.stats.ls;
  double t3 = sim_now_ms();
  int it = 0;
  for (int s = 0; s < k->newton_steps; s++) {
    sim_nsn_w_apply(&k->nsn, s == 0 ? f0 : sim_nsn_force(&k->nsn), k->tmp);
    for (int i = 0; i < 3 * k->nc; i++) k->hq[i] = k->hab[i] + h2 * k->tmp[i];
    /* compliance form: f = lambda, so k->tmp = W lambda is the solver's y as well */
    int its = sim_nsn_iterate_w(&k->nsn, k->hq, k->hab, k->tmp);
    if (its < 0) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Conjugate Residual)");
    t->nonfinite |= !isfinite(k->nsn.stats.merit);
    if (k->nsn.stats.converged) break;
    it += its;
    t->newton_steps++;
  }
  double t4 = sim_now_ms();
  rc = k->ops.correct(k->ops.ctx, sim_nsn_force(&k->nsn), st);
  if (rc) return rc;
  double t5 = sim_now_ms();
  double nsn_ms = t4 - t3, solve_ms = k->nsn.stats.cst_solve_ms - s0;
  t->global_ms += t2 - t1;
  t->assemble_ms += (t3 - t2) + (nsn_ms - solve_ms);
  t->cst_solve_ms += solve_ms;
  t->corr_ms += t5 - t4;
  t->cr_iters += it;
  sim_ls_counts_add(&t->ls, &k->nsn.stats.ls, &ls0);
  return SIM_OK;
}

int sim_contact_stage_finish(sim_contact_stage *k, sim_cst_times *t, sim_status *st) {
  if (k->nc == 0 || !(k->end_tol > 0.0)) return SIM_OK;
  sim_nsn *n = &k->nsn;
  const int m = 3 * k->nc;
  const double h2 = k->m->h * k->m->h, tol0 = n->opt.newton_tol;
  const sim_ls_counts ls0 = n->stats.ls;
  double s0 = n->stats.cst_solve_ms, t0 = sim_now_ms();
  double *f = n->f;
  memcpy(k->fend, f, sizeof(double) * (size_t)m); /* the force the last correction applied */
  int steps = 0, its_sum = 0, none = ls0.none;
  for (;;) { /* at q = hab + h^2 W f, where the last correction left it */
    if (n->y_wf) /* the accepted line-search trial's product is W f already */
      memcpy(k->tmp, n->y, sizeof(double) * (size_t)m);
    else
      sim_nsn_w_apply(n, f, k->tmp);
    for (int i = 0; i < m; i++) k->hq[i] = k->hab[i] + h2 * k->tmp[i];
    /* max |phi| over the merit's rows decides; the last call only evaluates */
    n->opt.newton_tol = steps == k->end_steps ? HUGE_VAL : k->end_tol;
    n->opt.merit_max = 1;
    int its = sim_nsn_iterate_w(n, k->hq, k->hab, k->tmp);
    n->opt.newton_tol = tol0, n->opt.merit_max = 0;
    if (its < 0) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Conjugate Residual)");
    t->nonfinite |= !isfinite(n->stats.merit);
    if (n->stats.converged) break;
    its_sum += its;
    steps++;
    /* its line search took no step: lambda stood, and every further step would be this one */
    if (n->stats.ls.none > none) break;
  }
  t->end_phi = fmax(t->end_phi, n->stats.phi_max);
  t->end_steps += steps;
  t->end_unmet += !(n->stats.phi_max <= k->end_tol);
  t->newton_steps += steps;
  t->cr_iters += its_sum;
  sim_ls_counts_add(&t->ls, &n->stats.ls, &ls0);
  double t1 = sim_now_ms(), solve_ms = n->stats.cst_solve_ms - s0;
  t->assemble_ms += (t1 - t0) - solve_ms;
  t->cst_solve_ms += solve_ms;
  if (steps == 0) { /* nothing moves (the paper's form re-read Omega into f: the old one stands) */
    memcpy(f, k->fend, sizeof(double) * (size_t)m);
    return SIM_OK;
  }
  /* q = A^{-1} b + h^2 A^{-1} H^T f is linear in f: the change alone is applied */
  for (int i = 0; i < m; i++) k->tmp[i] = f[i] - k->fend[i];
  int rc = k->ops.correct(k->ops.ctx, k->tmp, st);
  t->corr_ms += sim_now_ms() - t1;
  return rc;
}

void sim_contact_stage_lambda(sim_contact_stage *k, double *out) {
  if (k->nc > 0) memcpy(out, sim_nsn_lambda(&k->nsn), sizeof(double) * 3 * (size_t)k->nc);
}

int sim_contact_stage_check_solver(const sim_model *m, sim_global_kind global, double rho,
                                   sim_status *st) {
  if (!sim_world_needed(m) || (global != SIM_GLOBAL_JACOBI && !(rho > 0))) return SIM_OK;
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: contact, constraint pins and cables need an exact global solver "
                  "(solver.global sparse_inverse, cholesky or dense_inverse, and "
                  "solver.chebyshev_rho 0), got %s%s",
                  m->scene->file, sim_global_name(global), rho > 0 ? " with Chebyshev" : "");
}

int sim_contact_stage_init(sim_contact_stage *k, const sim_model *m, const sim_contact_ops *ops,
                           sim_factor *fac, const sim_sparse_inverse *S, size_t max_W_bytes,
                           sim_status *st) {
  memset(k, 0, sizeof *k);
  const sim_contact_def *cd = &m->scene->contact;
  sim_nsn_options o = sim_default_nsn_options();
  o.ncp = cd->ncp == SIM_SCENE_NCP_MIN_MAP ? SIM_NCP_MIN_MAP : SIM_NCP_FISCHER_BURMEISTER;
  o.precond = cd->preconditioner == SIM_SCENE_PRECOND_MASS ? SIM_NSN_PRECOND_MASS_INVERSE
                                                           : SIM_NSN_PRECOND_DELASSUS;
  o.cr_iters = cd->cr_iterations;
  o.cr_tol = cd->cr_tolerance;
  o.max_force = cd->max_force;
  o.h = m->h;
  o.warm_start = cd->warm_start;
  o.form = cd->formulation == SIM_SCENE_FORM_PAPER ? SIM_NSN_FORM_PAPER : SIM_NSN_FORM_COMPLIANCE;
  o.cr_jacobi = cd->cr_preconditioner == SIM_SCENE_CR_JACOBI;
  o.cr_float = cd->cr_precision == SIM_PREC_FLOAT;
  o.newton_tol = cd->newton_tolerance;
  o.line_search = cd->line_search;
  o.friction_exact = cd->newton_jacobian == SIM_SCENE_FJAC_EXACT;
  if (sim_nsn_init(&k->nsn, &o))
    return sim_fail(st, SIM_ERR_SCENE, "%s: bad contact solver options", m->scene->file);
  k->m = m;
  k->ops = *ops;
  k->fac = fac;
  k->S = S;
  k->max_W_bytes = max_W_bytes;
  k->dense_rows = SIM_DELASSUS_DENSE_ROWS;
  k->min_sep = cd->min_separation;
  k->delassus = cd->delassus;
  k->warm = cd->warm_start;
  k->newton_steps = cd->newton_steps;
  k->end_steps = cd->end_newton_steps;
  k->end_tol = cd->end_tolerance;
  return SIM_OK;
}

void sim_contact_stage_free(sim_contact_stage *k) {
  sim_nsn_destroy(&k->nsn);
  sim_free(k->c), sim_free(k->pc), sim_free(k->plam), sim_free(k->W);
  sim_wblocks_free(&k->wb);
  sim_free(k->d), sim_free(k->mu), sim_free(k->hqt), sim_free(k->hq), sim_free(k->hab);
  sim_free(k->minv), sim_free(k->wdiag), sim_free(k->tmp), sim_free(k->comp), sim_free(k->fend);
  memset(k, 0, sizeof *k);
}

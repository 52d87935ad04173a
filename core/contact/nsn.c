/* SPDX-License-Identifier: MIT */
/* Non-smooth Newton contact stage (nsn.h): inputs W (borrowed), mu, compliance, d, H q_t,
   H q^k, H A^{-1} b^k; workspace 14 x 3nc doubles plus CR's 5 x 3nc, and with cr_float a
   float copy of a dense W, with friction_exact 18 doubles a contact and GMRES's workspace
   (about cr_iters + 3 vectors of 3nc), grown on demand; fails only on allocation. */
#include "nsn.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "cr.h"
#include "gmres.h"
#include "lane_dot.h"
#include "nsn_exact.h"

sim_nsn_options sim_default_nsn_options(void) {
  sim_nsn_options o;
  o.form = SIM_NSN_FORM_COMPLIANCE;
  o.ncp = SIM_NCP_FISCHER_BURMEISTER;
  o.precond = SIM_NSN_PRECOND_DELASSUS;
  o.cr_iters = 10;
  o.cr_tol = 0.0;
  o.cr_jacobi = 1;
  o.cr_float = 0;
  o.newton_tol = 0.0;
  o.max_force = 0.0;
  o.h = 0.01;
  o.warm_start = 1;
  o.line_search = 0;
  o.friction_exact = 0;
  return o;
}

int sim_nsn_init(sim_nsn *s, const sim_nsn_options *opt) {
  memset(s, 0, sizeof(*s));
  s->opt = opt ? *opt : sim_default_nsn_options();
  if (!(s->opt.h > 0.0) || s->opt.cr_iters < 1) return -1;
  if (s->opt.friction_exact && s->opt.form != SIM_NSN_FORM_COMPLIANCE) return -1;
  return 0;
}

static void free_buffers(sim_nsn *s) {
  double **b[] = {&s->mu,     &s->comp, &s->d,       &s->hqt, &s->w,   &s->wd,   &s->pc,
                  &s->lambda, &s->f,    &s->omega,   &s->e,   &s->rhs, &s->dlam, &s->y,
                  &s->tmp,    &s->work, &s->lam_try, &s->wl,  &s->wt,  &s->jac,  &s->gwork};
  for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
    sim_free(*b[i]);
    *b[i] = NULL;
  }
  s->cap = 0;
}

void sim_nsn_destroy(sim_nsn *s) {
  free_buffers(s);
  sim_free(s->Wf);
  s->Wf = NULL, s->wf_cap = 0;
  s->nc = 0;
}

static int grow(sim_nsn *s, int nc) {
  if (nc <= s->cap) return 0;
  free_buffers(s);
  size_t m = 3 * (size_t)nc;
  struct {
    double **p;
    size_t n;
  } b[] = {{&s->mu, (size_t)nc},
           {&s->comp, (size_t)nc},
           {&s->d, m},
           {&s->wd, m},
           {&s->pc, m},
           {&s->hqt, m},
           {&s->w, m},
           {&s->lambda, m},
           {&s->f, m},
           {&s->omega, m},
           {&s->e, m},
           {&s->rhs, m},
           {&s->dlam, m},
           {&s->y, m},
           {&s->tmp, m},
           {&s->lam_try, m},
           {&s->wl, m},
           {&s->wt, m},
           {&s->work, (size_t)sim_cr_work_size((int)m)},
           {&s->jac, s->opt.friction_exact ? SIM_NSN_JAC * (size_t)nc : 1},
           {&s->gwork, s->opt.friction_exact ? sim_gmres_work_size((int)m, s->opt.cr_iters) : 1}};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
    if (!(*b[i].p = SIM_NEW0(double, b[i].n))) {
      free_buffers(s);
      return -1;
    }
  s->cap = nc;
  return 0;
}

/* Room for nc contacts, and the step's W (dense, or the operator). */
static int hold(sim_nsn *s, int nc, const double *W, sim_nsn_wfn wfn, void *wctx) {
  if (nc < 0 || grow(s, nc)) {
    s->nc = 0;
    return -1;
  }
  s->nc = nc;
  s->W = W;
  s->B = NULL;
  s->wfn = wfn;
  s->wctx = wctx;
  return 0;
}

/* W (or B's G) rounded to float for CR's products (cr_float with a dense W or B): m x m (nc x
   nc) floats, grown on demand and kept. */
static int round_w(sim_nsn *s, int m) {
  const size_t n = s->B ? (size_t)s->nc * (size_t)s->nc : (size_t)m * (size_t)m;
  if (n > s->wf_cap) {
    sim_free(s->Wf);
    s->wf_cap = 0;
    if (!(s->Wf = SIM_NEW(float, n))) return -1;
    s->wf_cap = n;
  }
  const double *W = s->W;
  float *Wf = s->Wf;
  if (s->B) {
    sim_wblocks_round(s->B, Wf);
    return 0;
  }
#pragma omp parallel for schedule(static) if (m > 256)
  for (int i = 0; i < m; i++)
    for (size_t j = (size_t)i * (size_t)m; j < (size_t)(i + 1) * (size_t)m; j++)
      Wf[j] = (float)W[j];
  return 0;
}

static int begin(sim_nsn *s, int nc, const double *W, const sim_wblocks *B, sim_nsn_wfn wfn,
                 void *wctx, const double *wdiag, const double *mu, const double *comp,
                 const double *d, const double *hqt, const double *minv_diag) {
  int keep = s->opt.warm_start && nc == s->nc && nc <= s->cap;
  int m = 3 * nc, mass = s->opt.precond == SIM_NSN_PRECOND_MASS_INVERSE;
  if (mass && nc > 0 && !minv_diag) return -1;
  if (hold(s, nc, W, wfn, wctx)) return -1;
  if (nc == 0) return 0;
  s->B = B;
  if ((W || B) && s->opt.cr_float && round_w(s, m)) return -1;
  if (B) sim_wblocks_diag(B, s->wd);
  memcpy(s->mu, mu, sizeof(double) * (size_t)nc);
  for (int j = 0; j < nc; j++) s->comp[j] = comp ? comp[j] : -1.0;
  memcpy(s->d, d, sizeof(double) * (size_t)m);
  memcpy(s->hqt, hqt, sizeof(double) * (size_t)m);
  for (int i = 0; i < m; i++) {
    if (!B) s->wd[i] = W ? W[(size_t)i * (size_t)m + (size_t)i] : wdiag[i];
    s->w[i] = mass ? minv_diag[i] : s->wd[i];
    s->f[i] = 0.0;
    if (!keep) s->lambda[i] = 0.0;
  }
  return 0;
}

int sim_nsn_begin_step(sim_nsn *s, int nc, const double *W, const double *mu,
                       const double *compliance, const double *d, const double *hqt,
                       const double *minv_diag) {
  return begin(s, nc, W, NULL, NULL, NULL, NULL, mu, compliance, d, hqt, minv_diag);
}

int sim_nsn_begin_step_blocks(sim_nsn *s, int nc, const sim_wblocks *B, const double *mu,
                              const double *compliance, const double *d, const double *hqt,
                              const double *minv_diag) {
  if (nc > 0 && (!B || B->nc != nc)) return -1;
  return begin(s, nc, NULL, B, NULL, NULL, NULL, mu, compliance, d, hqt, minv_diag);
}

int sim_nsn_begin_step_op(sim_nsn *s, int nc, sim_nsn_wfn wfn, void *wctx, const double *wdiag,
                          const double *mu, const double *compliance, const double *d,
                          const double *hqt, const double *minv_diag) {
  if (nc > 0 && (!wfn || !wdiag)) return -1;
  return begin(s, nc, NULL, NULL, wfn, wctx, wdiag, mu, compliance, d, hqt, minv_diag);
}

int sim_nsn_hold(sim_nsn *s, int nc) { return hold(s, nc, NULL, NULL, NULL); }

/* out = W x with the step's dense W (Wf NULL) or its float copy (each entry widened to double,
   the sums in double): rows in parallel, independent, so the result is the same for any
   thread count */
static void dense_apply(const sim_nsn *s, const float *Wf, const double *x, double *out) {
  const int m = 3 * s->nc;
#pragma omp parallel for schedule(static) if (m > 256)
  for (int i = 0; i < m; i++) {
    const size_t r = (size_t)i * (size_t)m;
    out[i] = sim_lane_dot(s->W + r, Wf ? Wf + r : NULL, x, m);
  }
}

/* out = W x: the dense rows, the blocks or the caller's operator */
void sim_nsn_w_apply(const sim_nsn *s, const double *x, double *out) {
  if (s->W)
    dense_apply(s, NULL, x, out);
  else if (s->B)
    sim_wblocks_apply(s->B, NULL, x, out, s->wt);
  else
    s->wfn(s->wctx, x, out);
}

/* out = W x as Conjugate Residual's products read it (nsn.h) */
void sim_nsn_w_apply_cr(const sim_nsn *s, const double *x, double *out) {
  if (s->W && s->opt.cr_float)
    dense_apply(s, s->Wf, x, out);
  else if (s->B && s->opt.cr_float)
    sim_wblocks_apply(s->B, s->Wf, x, out, s->wt);
  else
    sim_nsn_w_apply(s, x, out);
}

static int coupled(const sim_nsn *s, int i) { return sim_nsn_coupled(s->omega[i]); }

/* paper form: y = Omega W (Omega x) + (E / h^2) x;
   compliance form: y = W x + (Omega^{-1} E / h^2) x on the coupled rows (x restricted to
   them), y = (E / h^2) x on the decoupled ones (Omega ~ 0) */
static void system_apply(void *ctx, const double *x, double *y) {
  sim_nsn *s = (sim_nsn *)ctx;
  int m = 3 * s->nc;
  if (s->opt.form == SIM_NSN_FORM_PAPER) {
    for (int i = 0; i < m; i++) s->tmp[i] = s->omega[i] * x[i];
    sim_nsn_w_apply_cr(s, s->tmp, y);
    for (int i = 0; i < m; i++) y[i] = s->omega[i] * y[i] + s->e[i] * x[i];
    return;
  }
  for (int i = 0; i < m; i++) s->tmp[i] = coupled(s, i) ? x[i] : 0.0;
  sim_nsn_w_apply_cr(s, s->tmp, y);
  for (int i = 0; i < m; i++)
    y[i] = coupled(s, i) ? y[i] + s->e[i] / s->omega[i] * x[i] : s->e[i] * x[i];
}

/* diag of the system above, inverted (CR's Jacobi preconditioner) */
static void jacobi(sim_nsn *s) {
  int m = 3 * s->nc, paper = s->opt.form == SIM_NSN_FORM_PAPER;
  for (int i = 0; i < m; i++) {
    double dg = sim_nsn_row_diag(paper, s->omega[i], s->wd[i], s->e[i]);
    s->pc[i] = dg > 0.0 ? 1.0 / dg : 1.0;
  }
}

/* NCP values phi (length units) at (hq, lam), and Omega, E / h^2 where omega, e are not NULL;
   returns the merit 1/2 |phi|^2 over the normal and bilateral rows and max |phi| (all rows) in
   *phi_max. The friction rows stay out of the merit: their Newton rows hold lambda_n fixed, so
   their step need not descend on a merit that includes them (with them in it the line search
   rejected most steps of a sliding box, which then decelerated at 0.61 mu g). With the exact
   Jacobian (friction_exact) they stay out too: in it the line search shortened or refused the
   steps that the normal rows needed (soft_box_on_slab 0.54 mm deep against 0.02 mm). */
static double ncp_eval(const sim_nsn *s, const double *hq, const double *lambda, double *phi,
                       double *omega, double *e, double *phi_max) {
  int nc = s->nc;
  double h = s->opt.h, pmax = 0.0, merit = 0.0;
  for (int j = 0; j < nc; j++) {
    int i = 3 * j;
    double om[3], ee[3];
    sim_nsn_contact_ncp(s->opt.ncp, h, s->comp[j], s->mu[j], s->opt.max_force, s->d + i, hq + i,
                        s->hqt + i, s->w + i, lambda + i, phi + i, om, ee);
    for (int a = 0; a < 3; a++) {
      if (omega) omega[i + a] = om[a];
      if (e) e[i + a] = ee[a];
      const int in_merit = a == 0 || s->comp[j] >= 0.0;
      if (in_merit || !s->opt.merit_max) pmax = fmax(pmax, fabs(phi[i + a]));
      if (in_merit) merit += 0.5 * phi[i + a] * phi[i + a];
    }
  }
  *phi_max = pmax;
  return merit;
}

/* lambda + alpha dlambda into out, capped and in the cone (frictional contacts only). */
static void update(const sim_nsn *s, double alpha, double *out) {
  for (int j = 0; j < s->nc; j++)
    sim_nsn_contact_update(s->comp[j], s->mu[j], s->opt.max_force, s->lambda + 3 * j,
                           s->dlam + 3 * j, alpha, out + 3 * j);
}

/* Backtracking on ncp_eval's merit (compliance form): lambda + alpha dlambda for the first
   alpha = 1, 1/2, ... whose merit is below (1 - 2 sigma alpha) merit0, trying line_search
   halvings at most; none: lambda stays. hq(lambda') = hq - h^2 W lambda + h^2 W lambda' with
   wlam = W lambda. Returns alpha (0: rejected). */
static double line_search(sim_nsn *s, const double *hq, const double *wlam, double merit0) {
  int m = 3 * s->nc;
  double h2 = s->opt.h * s->opt.h, alpha = 1.0, pmax;
  for (int t = 0; t <= s->opt.line_search; t++, alpha *= 0.5) {
    update(s, alpha, s->lam_try);
    sim_nsn_w_apply(s, s->lam_try, s->y);
    for (int i = 0; i < m; i++) s->tmp[i] = hq[i] + h2 * (s->y[i] - wlam[i]);
    double merit = ncp_eval(s, s->tmp, s->lam_try, s->rhs, NULL, NULL, &pmax);
    if (merit <= (1.0 - 2e-4 * alpha) * merit0) {
      memcpy(s->lambda, s->lam_try, sizeof(double) * (size_t)m);
      s->y_wf = 1; /* f = lambda in this form: y = W f */
      return alpha;
    }
  }
  return 0.0;
}

/* Step 4: lambda += dlambda (or alpha dlambda after the line search, which reads W lambda^k in
   s->wl), cap and cone (frictional contacts only); f = F lambda for q = A^{-1}(b + h^2 H^T f).
   Adds the time since t2 to assemble; returns it. */
static int finish_step(sim_nsn *s, const double *hq, double merit, double t2, int it) {
  const int m = 3 * s->nc, paper = s->opt.form == SIM_NSN_FORM_PAPER;
  if (!paper && s->opt.line_search > 0) {
    double alpha = line_search(s, hq, s->wl, merit);
    s->stats.ls.full += alpha == 1.0;
    s->stats.ls.shorter += alpha > 0.0 && alpha < 1.0;
    s->stats.ls.none += alpha == 0.0;
  } else {
    update(s, 1.0, s->lam_try);
    memcpy(s->lambda, s->lam_try, sizeof(double) * (size_t)m);
  }
  for (int i = 0; i < m; i++) s->f[i] = paper ? s->omega[i] * s->lambda[i] : s->lambda[i];
  s->stats.assemble_ms += sim_now_ms() - t2;
  return it;
}

/* y = J x, the exact Newton system (nsn_exact.h), from s->jac */
static void exact_apply(void *ctx, const double *x, double *y) {
  sim_nsn *s = (sim_nsn *)ctx;
  const double h2 = s->opt.h * s->opt.h;
  sim_nsn_w_apply(s, x, s->tmp);
  for (int j = 0; j < s->nc; j++)
    sim_nsn_exact_rows(s->jac + SIM_NSN_JAC * (size_t)j, h2, s->tmp + 3 * j, x + 3 * j, y + 3 * j);
}

/* The Newton step with the exact Jacobian: J at (hq, lambda^k) from ncp_eval's phi (in
   s->dlam), Omega and E / h^2 there, then J dlambda = -phi by GMRES, its rows scaled, its
   preconditioner and its start (the decoupled rows' own solutions) as sim_nsn_exact_prepare
   says. Returns its iterations, or -1 (no workspace). */
static int exact_step(sim_nsn *s, const double *hq) {
  const int nc = s->nc, m = 3 * nc;
  const double h = s->opt.h, h2 = h * h;
  for (int j = 0; j < nc; j++) {
    const int i = 3 * j;
    double *jac = s->jac + SIM_NSN_JAC * (size_t)j;
    sim_nsn_exact_contact(s->opt.ncp, h, s->comp[j], s->mu[j], s->d + i, hq + i, s->hqt + i,
                          s->w + i, s->lambda + i, s->omega + i, s->e + i, jac);
    sim_nsn_exact_prepare(jac, h2, s->wd + i, s->comp[j] < 0.0, s->opt.cr_jacobi, s->dlam + i,
                          s->rhs + i, s->pc + i, s->dlam + i);
  }
  return sim_gmres_solve(m, exact_apply, s, s->opt.cr_jacobi ? s->pc : NULL, s->rhs, s->dlam,
                         s->opt.cr_iters, s->opt.cr_iters, s->opt.cr_tol, s->gwork, NULL);
}

int sim_nsn_iterate_w(sim_nsn *s, const double *hq, const double *hab, const double *wlam) {
  int nc = s->nc, m = 3 * nc;
  double h = s->opt.h, ih2 = 1.0 / (h * h), t0 = sim_now_ms();
  double *phi = s->dlam; /* phi is held in dlam until the solve starts */
  s->stats.newton_steps++;
  s->y_wf = 0;
  if (nc == 0) return 0;
  /* Step 2: NCP values and the diagonal Omega, E (Appendix B) at (H q^k, lambda^k). */
  double phi_max, merit = ncp_eval(s, hq, s->lambda, phi, s->omega, s->e, &phi_max);
  s->stats.phi_max = phi_max;
  s->stats.merit = merit;
  s->stats.converged = s->opt.newton_tol > 0.0 && phi_max <= s->opt.newton_tol;
  if (s->stats.converged) { /* lambda stands; f = F lambda (a step's start has f = 0) */
    int paper = s->opt.form == SIM_NSN_FORM_PAPER;
    for (int i = 0; i < m; i++) s->f[i] = paper ? s->omega[i] * s->lambda[i] : s->lambda[i];
    s->stats.assemble_ms += sim_now_ms() - t0;
    return 0;
  }
  if (s->opt.friction_exact) { /* Newton's own step on every row; hq is the linearisation */
    if (wlam) {
      memcpy(s->wl, wlam, sizeof(double) * (size_t)m);
    } else {
      sim_nsn_w_apply(s, s->lambda, s->wl);
    }
    double t1 = sim_now_ms();
    s->stats.assemble_ms += t1 - t0;
    int it = exact_step(s, hq);
    double t2 = sim_now_ms();
    s->stats.cst_solve_ms += t2 - t1;
    if (it < 0) return -1;
    s->stats.cr_iters += it;
    return finish_step(s, hq, merit, t2, it);
  }
  /* y = W F(lambda^k), F = Omega (paper) or the identity (compliance): H A^{-1} g = hab + h^2 y
     (g = b^k + h^2 H^T F lambda^k) */
  int paper = s->opt.form == SIM_NSN_FORM_PAPER;
  if (!paper && wlam) {
    memcpy(s->y, wlam, sizeof(double) * (size_t)m);
  } else {
    for (int i = 0; i < m; i++) s->tmp[i] = paper ? s->omega[i] * s->lambda[i] : s->lambda[i];
    sim_nsn_w_apply(s, s->tmp, s->y);
  }
  memcpy(s->wl, s->y, sizeof(double) * (size_t)m); /* W F lambda^k, for the line search */
  /* Step 3 right-hand side. Paper: (1/h^2)(h_vec - J A^{-1} g), h_vec = Omega H q^k - phi.
     Compliance: the same row divided by Omega (coupled rows), or -phi / h^2 (decoupled). */
  for (int i = 0; i < m; i++)
    s->rhs[i] = sim_nsn_row_rhs(paper, ih2, s->omega[i], hq[i], hab[i], phi[i], s->y[i]);
  double t1 = sim_now_ms();
  s->stats.assemble_ms += t1 - t0;
  /* Compliance form: a decoupled row's dlambda = -phi / E is known; CR starts there (its rows
     are then solved) and the coupled rows see it through W on the right-hand side. */
  int moved = 0;
  for (int i = 0; i < m; i++) {
    s->dlam[i] = !paper && !coupled(s, i) && s->e[i] > 0.0 ? s->rhs[i] / s->e[i] : 0.0;
    moved |= s->dlam[i] != 0.0;
  }
  if (moved) {
    sim_nsn_w_apply(s, s->dlam, s->y);
    for (int i = 0; i < m; i++)
      if (coupled(s, i)) s->rhs[i] -= s->y[i];
  }
  if (s->opt.cr_jacobi) jacobi(s);
  int it = sim_cr_solve_pc(m, system_apply, s, s->opt.cr_jacobi ? s->pc : NULL, s->rhs, s->dlam,
                           s->opt.cr_iters, s->opt.cr_tol, s->work, NULL);
  double t2 = sim_now_ms();
  s->stats.cst_solve_ms += t2 - t1;
  if (it < 0) return -1;
  s->stats.cr_iters += it;
  return finish_step(s, hq, merit, t2, it);
}

int sim_nsn_iterate(sim_nsn *s, const double *hq, const double *hab) {
  return sim_nsn_iterate_w(s, hq, hab, NULL);
}

/* SPDX-License-Identifier: MIT */
/* Non-smooth Newton contact stage (core/contact/nsn.h) on free particles: A = M (mass units,
   A^{-1} = M^{-1} exact), b = M q~, q = A^{-1}(b + h^2 H^T f), several Newton steps per time
   step; resting, sliding, slope stick/slip at mu* +- 0.01, a moving belt, warm start, force
   cap; both NCP functions and both preconditioners; bilateral rows (hard and compliant). The
   exact Newton system (nsn_exact.h) against central differences of phi, the solver with it
   (friction_exact) on the slope, and without friction against the lagged solver step for
   step. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/base/cpu_simd.h"
#include "../core/contact/lane_dot.h"
#include "../core/contact/nsn.h"
#include "../core/contact/nsn_exact.h"
#include "check.h"

#define G 9.81
#define MAXP 2

typedef struct world {
  int np, nc;
  double m[MAXP], q[3 * MAXP], v[3 * MAXP];
  int part[MAXP];                /* contact -> particle */
  double c[MAXP][3][3];          /* contact rows: n, t1, t2 */
  double p[MAXP][3], u[MAXP][3]; /* plane point, surface velocity */
  double mu[MAXP];
  double W[9 * MAXP * MAXP], d[3 * MAXP], hqt[3 * MAXP], minv[3 * MAXP];
} world;

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void apply_h(const world *w, const double *q, double *out) {
  for (int j = 0; j < w->nc; j++)
    for (int r = 0; r < 3; r++) out[3 * j + r] = dot3(w->c[j][r], q + 3 * w->part[j]);
}

/* adds a contact of particle i with a plane through p with normal n (t1, t2, n right-handed) */
static void add_contact(world *w, int i, const double n[3], const double t1[3], double mu,
                        const double p[3], const double u[3]) {
  int j = w->nc++;
  w->part[j] = i;
  w->mu[j] = mu;
  memcpy(w->c[j][0], n, sizeof(double) * 3);
  memcpy(w->c[j][1], t1, sizeof(double) * 3);
  double t2[3] = {n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2],
                  n[0] * t1[1] - n[1] * t1[0]}; /* n x t1 = t2 */
  memcpy(w->c[j][2], t2, sizeof(double) * 3);
  memcpy(w->p[j], p, sizeof(double) * 3);
  memcpy(w->u[j], u, sizeof(double) * 3);
}

/* One time step with `iters` Newton steps; returns lambda_n of contact 0. */
static double step(world *w, sim_nsn *s, double h, int iters) {
  int m = 3 * w->nc;
  double qt[3 * MAXP], qs[3 * MAXP], hab[3 * MAXP], hq[3 * MAXP];
  memcpy(qt, w->q, sizeof(double) * 3 * (size_t)w->np);
  for (int i = 0; i < 3 * w->np; i++)
    qs[i] = w->q[i] + h * w->v[i] - (i % 3 == 1 ? h * h * G : 0.0);
  memset(w->W, 0, sizeof(w->W));
  for (int j = 0; j < w->nc; j++)
    for (int r = 0; r < 3; r++) {
      w->d[3 * j + r] = dot3(w->c[j][r], r == 0 ? w->p[j] : w->u[j]);
      for (int s2 = 0; s2 < w->nc; s2++)
        for (int r2 = 0; r2 < 3; r2++)
          if (w->part[j] == w->part[s2])
            w->W[(3 * j + r) * m + 3 * s2 + r2] = dot3(w->c[j][r], w->c[s2][r2]) / w->m[w->part[j]];
      w->minv[3 * j + r] = 1.0 / w->m[w->part[j]];
    }
  apply_h(w, qt, w->hqt);
  apply_h(w, qs, hab); /* A^{-1} b = q~ */
  CHECK(sim_nsn_begin_step(s, w->nc, w->W, w->mu, NULL, w->d, w->hqt, w->minv) == 0);
  /* q^0 = A^{-1}(b + h^2 H^T lambda_warm): the warm start's linearisation point */
  const double *f = sim_nsn_lambda(s);
  int cone_ok = 1;
  for (int k = 0; k <= iters; k++) {
    memcpy(w->q, qs, sizeof(double) * 3 * (size_t)w->np);
    for (int j = 0; j < w->nc; j++) /* q = q~ + h^2 M^{-1} H^T f */
      for (int r = 0; r < 3; r++)
        for (int a = 0; a < 3; a++)
          w->q[3 * w->part[j] + a] += h * h * w->c[j][r][a] * f[3 * j + r] / w->m[w->part[j]];
    if (k == iters) break;
    apply_h(w, w->q, hq);
    sim_nsn_iterate(s, hq, hab);
    f = sim_nsn_force(s);
    for (int j = 0; j < w->nc; j++) { /* lambda stays in the (capped) cone */
      const double *l = sim_nsn_lambda(s) + 3 * j;
      double cap = s->opt.max_force > 0.0 ? s->opt.max_force : INFINITY;
      cone_ok &= l[0] >= 0.0 && l[0] <= cap && hypot(l[1], l[2]) <= w->mu[j] * l[0] * (1 + 1e-12);
    }
  }
  CHECK(cone_ok);
  for (int i = 0; i < 3 * w->np; i++) w->v[i] = (w->q[i] - qt[i]) / h;
  return sim_nsn_lambda(s)[0];
}

static sim_nsn_options opts(int ncp, int pre, double h) {
  sim_nsn_options o = sim_default_nsn_options();
  o.ncp = (sim_ncp_kind)ncp;
  o.precond = (sim_nsn_precond)pre;
  o.h = h;
  return o;
}

static const double N_UP[3] = {0, 1, 0}, T_X[3] = {1, 0, 0}, ZERO[3] = {0, 0, 0};

/* One particle of mass m on the floor y = 0 (mu 0.5), at rest. */
static void resting_world(world *w, double m) {
  memset(w, 0, sizeof *w);
  w->np = 1;
  w->m[0] = m;
  add_contact(w, 0, N_UP, T_X, 0.5, ZERO, ZERO);
}

static void test_resting(int ncp, int pre, int warm, double *err) {
  double h = 0.01, m = 2.0;
  world w;
  resting_world(&w, m);
  sim_nsn_options o = opts(ncp, pre, h);
  o.warm_start = warm;
  sim_nsn s;
  CHECK(sim_nsn_init(&s, &o) == 0);
  double worst = 0.0, drift = 0.0;
  for (int t = 0; t < 50; t++) {
    double ln = step(&w, &s, h, 10);
    if (t >= 2 && fabs(ln - m * G) > worst) worst = fabs(ln - m * G);
    drift = fmax(drift, fmax(fabs(w.q[0]), fabs(w.q[1])));
  }
  CHECK_NEAR(worst, 0.0, 1e-6);
  CHECK_NEAR(drift, 0.0, 1e-9);
  CHECK(s.stats.cr_iters > 0 && s.stats.newton_steps == 500);
  *err = fmax(*err, worst);
  sim_nsn_destroy(&s);
}

static void test_sliding(int ncp, int pre, double *err) {
  double h = 0.01, mu = 0.3, v0 = 1.0;
  world w = {0};
  w.np = 1;
  w.m[0] = 1.0;
  w.v[0] = v0;
  add_contact(&w, 0, N_UP, T_X, mu, ZERO, ZERO);
  sim_nsn_options o = opts(ncp, pre, h);
  sim_nsn s;
  sim_nsn_init(&s, &o);
  double worst = 0.0;
  for (int k = 1; k <= 60; k++) {
    step(&w, &s, h, 10);
    double want = fmax(v0 - mu * G * k * h, 0.0);
    worst = fmax(worst, fabs(w.v[0] - want));
  }
  CHECK_NEAR(worst, 0.0, 1e-6);
  CHECK_NEAR(w.v[0], 0.0, 1e-9);
  *err = fmax(*err, worst);
  sim_nsn_destroy(&s);
}

/* returns the displacement along the slope after 1 s (positive: downhill) */
static double slope_run_with(int ncp, int pre, int exact, double mu, double *accel) {
  double h = 0.01, th = 10.0 * SIM_PI / 180.0;
  double n[3] = {sin(th), cos(th), 0}, t1[3] = {cos(th), -sin(th), 0}; /* t1 downhill */
  world w = {0};
  w.np = 1;
  w.m[0] = 1.5;
  add_contact(&w, 0, n, t1, mu, ZERO, ZERO);
  sim_nsn_options o = opts(ncp, pre, h);
  o.cr_iters = 24;
  o.friction_exact = exact;
  sim_nsn s;
  sim_nsn_init(&s, &o);
  for (int k = 0; k < 100; k++) step(&w, &s, h, 10);
  *accel = dot3(w.v, t1) / 1.0; /* v after 1 s = a * 1 s */
  double x = dot3(w.q, t1);
  CHECK_NEAR(dot3(w.q, n), 0.0, 1e-9); /* stays on the plane */
  sim_nsn_destroy(&s);
  return x;
}

static double slope_run(int ncp, int pre, double mu, double *accel) {
  return slope_run_with(ncp, pre, 0, mu, accel);
}

static double slope_run_exact(double mu, double *accel) {
  return slope_run_with(SIM_NCP_FISCHER_BURMEISTER, SIM_NSN_PRECOND_DELASSUS, 1, mu, accel);
}

static void test_belt(int ncp, int pre, double *err) {
  double h = 0.01, U = 0.1;
  world w = {0};
  w.np = 2;
  w.m[0] = 1.0;
  w.m[1] = 2.0;
  w.q[3] = 1.0; /* particle 1 at x = 1 */
  double belt[3] = {U, 0, 0}, p1[3] = {1, 0, 0};
  add_contact(&w, 0, N_UP, T_X, 0.5, ZERO, ZERO);
  add_contact(&w, 1, N_UP, T_X, 0.5, p1, belt);
  sim_nsn_options o = opts(ncp, pre, h);
  sim_nsn s;
  sim_nsn_init(&s, &o);
  for (int k = 0; k < 30; k++) step(&w, &s, h, 10);
  double e = fmax(fabs(w.v[3] - U), fabs(w.v[0]));
  e = fmax(e, fabs(sim_nsn_lambda(&s)[3] - w.m[1] * G));
  CHECK_NEAR(w.v[3], U, 1e-6);
  CHECK_NEAR(w.v[0], 0.0, 1e-9);
  CHECK_NEAR(fabs(w.q[1]) + fabs(w.q[4]), 0.0, 1e-9);
  CHECK_NEAR(sim_nsn_lambda(&s)[3], w.m[1] * G, 1e-6);
  CHECK_NEAR(sim_nsn_lambda(&s)[4], 0.0, 1e-6); /* dragged at the belt speed: no force left */
  *err = fmax(*err, e);
  sim_nsn_destroy(&s);
}

/* A particle on the floor whose contact may push with half its weight: it sinks, held at the
   cap, and the solve counts that as solved (the box complementarity, ncp.h
   sim_ncp_normal_capped): max |phi| 0 at the last Newton step, where the plain NCP kept
   |phi(delta, r cap)| of the sinking contact (0.054 m with FB, 0.027 m with the min map here),
   which no step could lower. */
static void test_cap(int ncp) {
  double h = 0.01, cap = 0.5 * G;
  world w = {0};
  w.np = 1;
  w.m[0] = 1.0;
  add_contact(&w, 0, N_UP, T_X, 0.5, ZERO, ZERO);
  sim_nsn_options o = opts(ncp, 0, h);
  o.max_force = cap;
  sim_nsn s;
  sim_nsn_init(&s, &o);
  double ln = 0.0;
  for (int k = 0; k < 10; k++) ln = step(&w, &s, h, 10);
  printf("cap (%s): lambda_n %.6g N (cap %.6g), y %.3g m, max |phi| %.3g at the last step\n",
         ncp ? "min map" : "FB", ln, cap, w.q[1], s.stats.phi_max);
  CHECK_NEAR(ln, cap, 1e-12);
  CHECK(w.q[1] < -1e-4); /* sinks under half its weight */
  CHECK(s.stats.phi_max <= 1e-12);
  sim_nsn_destroy(&s);
}

/* A bilateral contact (compliance E >= 0) on a free particle: three linear rows
   q - p + E lambda = 0 with q = q~ + h^2 lambda / m, so one Newton step gives
   lambda = (p - q~) / (h^2 / m + E) exactly, of either sign, with mu = 0 and a force cap that
   would clip a frictional contact; returns the largest relative error of lambda and the largest
   row residual |q - p + E lambda|. */
static void test_bilateral(int form, double E, double *lam_err, double *resid) {
  const double h = 0.01, m = 2.0, qs[3] = {0.1, -0.2, 0.3}, p[3] = {0.15, -0.25, 0.3};
  double W[9] = {1 / m, 0, 0, 0, 1 / m, 0, 0, 0, 1 / m}, mu = 0.0, hqt[3] = {0, 0, 0};
  double minv[3] = {1 / m, 1 / m, 1 / m}, hq[3], q[3];
  sim_nsn_options o = opts(SIM_NCP_FISCHER_BURMEISTER, 0, h);
  o.form = (sim_nsn_form)form;
  o.max_force = 1e-6;
  sim_nsn s;
  sim_nsn_init(&s, &o);
  CHECK(sim_nsn_begin_step(&s, 1, W, &mu, &E, p, hqt, minv) == 0);
  memcpy(hq, qs, sizeof hq); /* lambda^0 = 0: H q^0 = H A^{-1} b = q~ */
  CHECK(sim_nsn_iterate(&s, hq, qs) >= 1);
  const double *f = sim_nsn_force(&s), *lam = sim_nsn_lambda(&s);
  for (int r = 0; r < 3; r++) {
    double want = (p[r] - qs[r]) / (h * h / m + E);
    q[r] = qs[r] + h * h * f[r] / m;
    if (want != 0)
      *lam_err = fmax(*lam_err, fabs(lam[r] / want - 1.0));
    else
      *lam_err = fmax(*lam_err, fabs(lam[r]));
    *resid = fmax(*resid, fabs(q[r] - p[r] + E * lam[r]));
  }
  CHECK(lam[0] > 1.0 && lam[1] < -1.0); /* both signs, far past the cap */
  sim_nsn_destroy(&s);
}

/* a resting particle (warm lambda = m g) kicked upwards and sideways leaves the plane: free
   flight from the first step, lambda = 0 */
static void test_liftoff(int ncp) {
  double h = 0.01, vy = 0.5, vx = 0.3;
  world w = {0};
  w.np = 1;
  w.m[0] = 1.0;
  add_contact(&w, 0, N_UP, T_X, 0.5, ZERO, ZERO);
  sim_nsn_options o = opts(ncp, 0, h);
  sim_nsn s;
  sim_nsn_init(&s, &o);
  for (int k = 0; k < 5; k++) step(&w, &s, h, 10);
  w.v[0] = vx;
  w.v[1] = vy;
  step(&w, &s, h, 10);
  CHECK_NEAR(w.q[1], vy * h - G * h * h, 1e-12);
  CHECK_NEAR(w.q[0], vx * h, 1e-12);
  CHECK(sim_nsn_lambda(&s)[0] == 0.0 && sim_nsn_lambda(&s)[1] == 0.0);
  sim_nsn_destroy(&s);
}

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* One Newton step on a random coupled system (4 contacts, W = B B^T + I/2 in 1/kg): where no
   clamp acted, the step solves the linearisation of step 3 in either form,
     phi + Omega (H q^{k+1} - H q^k) + E_phi dlambda = 0,  H q^{k+1} = hab + h^2 W f,
   f = Omega lambda (paper) or lambda (compliance),
   with phi, Omega, E_phi recomputed here from ncp.h (r = h^2 w, friction in displacements). */
/* W = B B^T / m + shift I (m x m) with B's entries uniform in [-1, 1] (B: m x m scratch). */
static void random_delassus(int m, double shift, double *B, double *W) {
  for (int i = 0; i < m * m; i++) B[i] = urand();
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double acc = i == j ? shift : 0.0;
      for (int k = 0; k < m; k++) acc += B[i * m + k] * B[j * m + k] / m;
      W[i * m + j] = acc;
    }
}

static void test_linearisation(int ncp, int pre, int form, double *lin_err) {
  enum { NC = 4, M = 12 };
  double h = 0.01, W[M * M], B[M * M], mu[NC], d[M], hqt[M], hq[M], hab[M], minv[M], lam0[M];
  random_delassus(M, 0.5, B, W);
  for (int i = 0; i < M; i++) {
    d[i] = 1e-3 * urand();
    hqt[i] = 1e-3 * urand();
    hq[i] = hqt[i] + 1e-3 * urand();
    hab[i] = hq[i] + 1e-3 * urand();
    minv[i] = 0.7 + 0.5 * rand() / (double)RAND_MAX;
  }
  for (int j = 0; j < NC; j++) {
    mu[j] = 0.4 + 0.2 * j;
    lam0[3 * j] = j == 0 ? 0.0 : 5.0 + rand() % 5;
    lam0[3 * j + 1] = 0.3 * mu[j] * lam0[3 * j] * urand();
    lam0[3 * j + 2] = 0.3 * mu[j] * lam0[3 * j] * urand();
  }
  sim_nsn_options o = opts(ncp, pre, h);
  o.cr_iters = 200;
  o.cr_tol = 1e-14;
  o.form = (sim_nsn_form)form;
  sim_nsn s;
  sim_nsn_init(&s, &o);
  CHECK(sim_nsn_begin_step(&s, NC, W, mu, NULL, d, hqt, minv) == 0);
  memcpy(sim_nsn_lambda(&s), lam0, sizeof(lam0));
  CHECK(sim_nsn_iterate(&s, hq, hab) > 0);
  /* Omega at (H q^k, lambda^k), then the unclamped prediction hab + h^2 W Omega (lambda + dl) */
  double om[M], phi[M], ee[M], x[M], hq1[M], w[M];
  for (int i = 0; i < M; i++) w[i] = pre ? minv[i] : W[i * M + i];
  for (int j = 0; j < NC; j++) {
    const double *l0 = lam0 + 3 * j;
    int i = 3 * j;
    phi[i] = sim_ncp_normal((sim_ncp_kind)ncp, hq[i] - d[i], l0[0], h * h * w[i], om + i, ee + i);
    double u[2] = {hq[i + 1] - hqt[i + 1] - h * d[i + 1], hq[i + 2] - hqt[i + 2] - h * d[i + 2]};
    sim_ncp_fric fr = sim_ncp_friction((sim_ncp_kind)ncp, u, l0 + 1, l0[0], mu[j],
                                       h * h * 0.5 * (w[i + 1] + w[i + 2]));
    for (int a = 1; a < 3; a++) {
      phi[i + a] = fr.phi[a - 1];
      om[i + a] = fr.omega;
      ee[i + a] = fr.omega > 0.0 ? fr.e : 1.0; /* inactive: lambda_f + dl_f = 0 */
    }
  }
  /* the force: J^T lambda (paper) or H^T lambda (compliance) */
  for (int i = 0; i < M; i++) x[i] = (form == SIM_NSN_FORM_PAPER ? om[i] : 1.0) * (lam0[i] + s.dlam[i]);
  double worst = 0.0;
  for (int i = 0; i < M; i++) {
    hq1[i] = hab[i];
    for (int k = 0; k < M; k++) hq1[i] += h * h * W[i * M + k] * x[k];
    double res = phi[i] + om[i] * (hq1[i] - hq[i]) + ee[i] * s.dlam[i];
    worst = fmax(worst, fabs(res) / (1e-3 + fabs(phi[i])));
  }
  CHECK_NEAR(worst, 0.0, 1e-9);
  *lin_err = fmax(*lin_err, worst);
  sim_nsn_destroy(&s);
}

/* A Newton step that finds the warm-started multipliers already converged (newton_tol) keeps
   their force, f = lambda, rather than the f = 0 a step starts with: a box at rest, one
   Newton step per time step, stays put (with f = 0 it fell g h^2 = 1 mm per step). The paper's
   form does not reach the tolerance at rest here, so this checks the compliance form. */
static void test_converged_force(void) {
  double h = 0.01, m = 2.0;
  world w;
  resting_world(&w, m);
  sim_nsn_options o = opts(SIM_NCP_FISCHER_BURMEISTER, SIM_NSN_PRECOND_DELASSUS, h);
  o.newton_tol = 1e-6;
  sim_nsn s;
  CHECK(sim_nsn_init(&s, &o) == 0);
  for (int t = 0; t < 20; t++) step(&w, &s, h, 10); /* to rest: lambda_n = m g */
  double ln = step(&w, &s, h, 1);
  CHECK(s.stats.converged);
  CHECK_NEAR(ln, m * G, 1e-3);
  CHECK_NEAR(w.q[1], 0.0, 1e-6);
  CHECK_NEAR(sim_nsn_force(&s)[0] / ln, 1.0, 1e-12);
  sim_nsn_destroy(&s);
}

/* W x with a dense W (sim_nsn_w_apply) adds each row in the order of the CUDA backend's warp per
   row (sim_dense_row_dots): lane l's columns l, l + 32, ... in turn, then the lanes' sums
   pairwise as the shuffles add them; so the two backends' products have the same bits. Against
   that order written out here, to the bit, on sizes around multiples of 32, in the baseline's
   build of the loop and AVX2's (base/cpu_simd.h), and with W's float copy (sim_lane_dot's wf,
   each entry widened); and not the plain left-to-right sum (which the CPU used until
   2026-12-02), on the largest. */
static void test_dense_order(void) {
  static const int sizes[] = {1, 4, 31, 32, 33, 67, 96, 130};
  const int was = sim_cpu_avx2();
  printf("dense order: AVX2 build %s\n",
         was ? "checked too" : "not run (off: no AVX2 here, or SIMCTL_CPU_AVX2=off)");
  for (int v = 0; v <= was; v++) {
    sim_cpu_avx2_set(v);
    for (int t = 0; t < (int)(sizeof sizes / sizeof sizes[0]); t++) {
      const int nc = sizes[t], m = 3 * nc;
      double *W = SIM_NEW(double, (size_t)m *m), *x = SIM_NEW(double, m), *y = SIM_NEW(double, m);
      double *mu = SIM_NEW(double, nc), *d = SIM_NEW(double, m), *hqt = SIM_NEW(double, m);
      float *Wf = SIM_NEW(float, (size_t)m *m);
      for (int i = 0; i < m * m; i++) Wf[i] = (float)(W[i] = urand() * pow(10.0, 4 * urand()));
      for (int i = 0; i < m; i++) x[i] = urand() * pow(10.0, 4 * urand()), d[i] = hqt[i] = 0.0;
      for (int j = 0; j < nc; j++) mu[j] = 0.5;
      sim_nsn_options o = opts(0, 0, 0.01);
      sim_nsn s;
      sim_nsn_init(&s, &o);
      CHECK(sim_nsn_begin_step(&s, nc, W, mu, NULL, d, hqt, NULL) == 0);
      sim_nsn_w_apply(&s, x, y);
      long same = 0, plain_same = 0, same_f = 0;
      for (int i = 0; i < m; i++) {
        const double *row = W + (size_t)i * m;
        const float *rowf = Wf + (size_t)i * m;
        double a[32] = {0.0}, af[32] = {0.0}, p = 0.0;
        for (int j = 0; j < m; j++)
          a[j % 32] += row[j] * x[j], af[j % 32] += (double)rowf[j] * x[j];
        for (int off = 16; off > 0; off /= 2)
          for (int l = 0; l < off; l++) a[l] += a[l + off], af[l] += af[l + off];
        for (int j = 0; j < m; j++) p += row[j] * x[j];
        same += y[i] == a[0];
        plain_same += y[i] == p;
        same_f += sim_lane_dot(NULL, rowf, x, m) == af[0];
      }
      CHECK_INT(same, m);
      CHECK_INT(same_f, m);
      if (m == 390) CHECK(plain_same < m / 2);
      sim_nsn_destroy(&s);
      sim_free(W), sim_free(Wf), sim_free(x), sim_free(y), sim_free(mu), sim_free(d);
      sim_free(hqt);
    }
  }
  sim_cpu_avx2_set(was);
}

static double urand1(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* phi(lambda) of nc contacts with hq = hq0 + h^2 W (lambda - lam0), as the Newton step sees it */
static void phi_of(sim_ncp_kind kind, double h, int nc, const double *W, const double *comp,
                   const double *mu, double cap, const double *d, const double *hq0,
                   const double *hqt, const double *w, const double *lam0, const double *lam,
                   double *phi) {
  const int m = 3 * nc;
  double hq[12], om[3], ee[3];
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int k = 0; k < m; k++) s += W[i * m + k] * (lam[k] - lam0[k]);
    hq[i] = hq0[i] + h * h * s;
  }
  for (int j = 0; j < nc; j++)
    sim_nsn_contact_ncp(kind, h, comp[j], mu[j], cap, d + 3 * j, hq + 3 * j, hqt + 3 * j, w + 3 * j,
                        lam + 3 * j, phi + 3 * j, om, ee);
}

/* J x (sim_nsn_exact_contact, sim_nsn_exact_rows) against central differences of phi along x,
   at points away from the kinks: four contacts, sliding inside the cone, sliding with its
   normal force capped, with no normal force (inactive friction), and bilateral (E = 1e-3). */
static void test_exact_jacobian(double *worst) {
  enum { NC = 4, M = 12 };
  const double h = 0.01;
  double W[M * M], B[M * M], d[M], hq0[M], hqt[M], w[M], lam0[M], x[M], jx[M], t[M];
  double comp[NC] = {-1, -1, -1, 1e-3}, mu[NC] = {0.5, 0.4, 0.6, 0}, phi[3], jac[SIM_NSN_JAC];
  for (int i = 0; i < M * M; i++) B[i] = urand1();
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      double s = 0.0;
      for (int k = 0; k < M; k++) s += B[i * M + k] * B[j * M + k];
      W[i * M + j] = s / M + (i == j ? 0.5 : 0.0);
    }
  for (int i = 0; i < M; i++) {
    w[i] = W[i * M + i];
    d[i] = 1e-4 * urand1();
    hqt[i] = 1e-4 * urand1();
    hq0[i] = hqt[i] + 2e-4 * urand1();
    x[i] = urand1();
  }
  for (int j = 0; j < NC; j++) { /* lambda_n 1..3, |lambda_f| 0.3..0.8 mu lambda_n */
    double ln = 2.0 + urand1(), l = (0.55 + 0.25 * urand1()) * mu[j] * ln, ang = 3.0 * urand1();
    lam0[3 * j] = j == 2 ? -0.5 : ln;
    lam0[3 * j + 1] = l * cos(ang), lam0[3 * j + 2] = l * sin(ang);
    if (comp[j] >= 0.0) lam0[3 * j + 1] = urand1(), lam0[3 * j + 2] = urand1();
  }
  for (int kind = 0; kind < 2; kind++) {
    const double cap = 5.0; /* above every lambda_n: the capped form, smooth there */
    for (int i = 0; i < M; i++) {
      double s = 0.0;
      for (int k = 0; k < M; k++) s += W[i * M + k] * x[k];
      t[i] = s;
    }
    for (int j = 0; j < NC; j++) {
      double om[3], ee[3];
      sim_nsn_contact_ncp((sim_ncp_kind)kind, h, comp[j], mu[j], cap, d + 3 * j, hq0 + 3 * j,
                          hqt + 3 * j, w + 3 * j, lam0 + 3 * j, phi, om, ee);
      sim_nsn_exact_contact((sim_ncp_kind)kind, h, comp[j], mu[j], d + 3 * j, hq0 + 3 * j,
                            hqt + 3 * j, w + 3 * j, lam0 + 3 * j, om, ee, jac);
      sim_nsn_exact_rows(jac, h * h, t + 3 * j, x + 3 * j, jx + 3 * j);
    }
    double lp[M], lm[M], fp[M], fm[M], eps = 1e-7, scale = 0.0, err = 0.0;
    for (int i = 0; i < M; i++) lp[i] = lam0[i] + eps * x[i], lm[i] = lam0[i] - eps * x[i];
    phi_of((sim_ncp_kind)kind, h, NC, W, comp, mu, cap, d, hq0, hqt, w, lam0, lp, fp);
    phi_of((sim_ncp_kind)kind, h, NC, W, comp, mu, cap, d, hq0, hqt, w, lam0, lm, fm);
    for (int i = 0; i < M; i++) scale = fmax(scale, fabs(jx[i]));
    for (int i = 0; i < M; i++) err = fmax(err, fabs((fp[i] - fm[i]) / (2 * eps) - jx[i]));
    CHECK(scale > 0.0);
    *worst = fmax(*worst, err / scale);
  }
}

/* The slope with the exact Jacobian: the same stick and slip as the lagged system's. */
static void test_exact_slope(double mus, double th) {
  double a_stick, a_slip;
  double x_stick = slope_run_exact(mus + 0.01, &a_stick);
  double x_slip = slope_run_exact(mus - 0.01, &a_slip);
  double a_want = G * (sin(th) - (mus - 0.01) * cos(th));
  printf("exact friction Jacobian: slope stick x %.2e m, slip a rel err %.2e\n", fabs(x_stick),
         fabs(a_slip / a_want - 1.0));
  CHECK_NEAR(x_stick, 0.0, 1e-6);
  CHECK_NEAR(a_slip / a_want - 1.0, 0.0, 1e-3);
  CHECK_NEAR(x_slip / (a_want * 0.01 * 0.01 * 100 * 101 / 2) - 1.0, 0.0, 1e-3);
}

/* Without friction (mu 0) the exact and lagged Newton systems are the same up to the rows'
   factors, and GMRES on the exact one, scaled and started as sim_nsn_exact_prepare says, takes
   Conjugate Residual's steps: three Newton steps of 4 iterations each (far from converged on
   36 rows) from the same state, on separating, penetrating and bilateral (hard and compliant)
   contacts, both NCP functions, with and without the Jacobi preconditioner. Returns the largest
   difference of the multipliers, relative to the largest multiplier. */
static double frictionless_exact_vs_lagged(int ncp, int jacobi) {
  enum { NC = 12, M = 36 };
  const double h = 0.01;
  double W[M * M], B[M * M], mu[NC], comp[NC], d[M], hqt[M], hq0[M], lam0[M], out[2][M];
  random_delassus(M, 0.05, B, W);
  for (int j = 0; j < NC; j++) {
    const int i = 3 * j, sep = j % 4 == 0;
    mu[j] = 0.0;
    comp[j] = j % 4 == 1 ? (j % 8 == 1 ? 0.0 : 1e-3) : -1.0;
    for (int a = 0; a < 3; a++) {
      d[i + a] = 1e-3 * urand();
      hqt[i + a] = 1e-3 * urand();
      hq0[i + a] = hqt[i + a] + 1e-3 * urand();
      lam0[i + a] = comp[j] >= 0.0 ? urand() : 0.0;
    }
    if (comp[j] < 0.0) {
      hq0[i] = d[i] + (sep ? 2e-3 : -1e-3 * (1.0 + urand()));
      lam0[i] = sep ? 0.0 : 3.0 + urand();
    }
  }
  for (int exact = 0; exact < 2; exact++) {
    sim_nsn_options o = opts(ncp, SIM_NSN_PRECOND_DELASSUS, h);
    o.cr_iters = 4;
    o.cr_tol = 0.0;
    o.cr_jacobi = jacobi;
    o.friction_exact = exact;
    sim_nsn s;
    CHECK(sim_nsn_init(&s, &o) == 0);
    CHECK(sim_nsn_begin_step(&s, NC, W, mu, comp, d, hqt, NULL) == 0);
    double *lam = sim_nsn_lambda(&s), hq[M], hab[M];
    memcpy(lam, lam0, sizeof lam0);
    memcpy(hq, hq0, sizeof hq0);
    for (int k = 0; k < 3; k++) { /* hq = hab + h^2 W lambda: the state the step linearises */
      for (int i = 0; i < M; i++) {
        double acc = 0.0;
        for (int c = 0; c < M; c++) acc += W[i * M + c] * lam[c];
        if (k == 0) hab[i] = hq0[i] - h * h * acc;
        hq[i] = hab[i] + h * h * acc;
      }
      CHECK(sim_nsn_iterate(&s, hq, hab) >= 0);
    }
    memcpy(out[exact], lam, sizeof lam0);
    sim_nsn_destroy(&s);
  }
  double diff = 0.0, scale = 0.0;
  for (int i = 0; i < M; i++) {
    diff = fmax(diff, fabs(out[1][i] - out[0][i]));
    scale = fmax(scale, fabs(out[0][i]));
  }
  CHECK(scale > 0.0);
  return diff / scale;
}

static void test_exact_frictionless(void) {
  double worst[2] = {0.0, 0.0};
  for (int ncp = 0; ncp < 2; ncp++)
    for (int jacobi = 0; jacobi < 2; jacobi++)
      for (int rep = 0; rep < 10; rep++)
        worst[jacobi] = fmax(worst[jacobi], frictionless_exact_vs_lagged(ncp, jacobi));
  printf(
      "mu 0: exact (GMRES) against lagged (CR) multipliers after 3 Newton steps of 4 "
      "iterations: %.2e of the largest (Jacobi), %.2e (none)\n",
      worst[1], worst[0]);
  /* Unscaled (GMRES on J, right-preconditioned by 1 / |J_ii|) they differed by up to 2.1e-3
     (Jacobi) and 2.4e-2 (none). Without the preconditioner a row of small Omega (3e-5) makes the system
     ill-conditioned, and rounding alone reached 6e-7. */
  CHECK(worst[1] < 1e-12);
  CHECK(worst[0] < 1e-5);
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  const char *nn[2] = {"FB", "min"}, *pn[2] = {"delassus", "mass-inverse"};
  double th = 10.0 * SIM_PI / 180.0, mus = tan(th);
  for (int ncp = 0; ncp < 2; ncp++)
    for (int pre = 0; pre < 2; pre++) {
      double e_rest = 0.0, e_slide = 0.0, e_belt = 0.0, a_stick, a_slip;
      for (int warm = 0; warm < 2; warm++) test_resting(ncp, pre, warm, &e_rest);
      test_sliding(ncp, pre, &e_slide);
      test_belt(ncp, pre, &e_belt);
      double x_stick = slope_run(ncp, pre, mus + 0.01, &a_stick);
      double x_slip = slope_run(ncp, pre, mus - 0.01, &a_slip);
      double a_want = G * (sin(th) - (mus - 0.01) * cos(th));
      CHECK_NEAR(x_stick, 0.0, 1e-6);
      CHECK_NEAR(a_slip / a_want - 1.0, 0.0, 1e-3);
      CHECK_NEAR(x_slip / (a_want * 0.01 * 0.01 * 100 * 101 / 2) - 1.0, 0.0, 1e-3);
      printf(
          "%s/%s: rest |lambda_n - m g| %.2e, slide |v - v_exact| %.2e, belt %.2e, "
          "slope stick x %.2e m, slip a rel err %.2e\n",
          nn[ncp], pn[pre], e_rest, e_slide, e_belt, fabs(x_stick), fabs(a_slip / a_want - 1.0));
    }
  double jac_err = 0.0;
  for (int rep = 0; rep < 20; rep++) test_exact_jacobian(&jac_err);
  printf("exact Newton system J x vs central differences of phi (relative): %.2e\n", jac_err);
  CHECK(jac_err < 1e-6);
  test_exact_slope(mus, th);
  test_exact_frictionless();
  test_cap(SIM_NCP_FISCHER_BURMEISTER);
  test_cap(SIM_NCP_MIN_MAP);
  test_converged_force();
  test_dense_order();
  double lin_err = 0.0;
  for (int ncp = 0; ncp < 2; ncp++)
    for (int pre = 0; pre < 2; pre++)
      for (int form = 0; form < 2; form++)
        for (int rep = 0; rep < 20; rep++) test_linearisation(ncp, pre, form, &lin_err);
  printf("one Newton step vs its linearisation (relative): %.2e\n", lin_err);
  test_liftoff(SIM_NCP_FISCHER_BURMEISTER);
  test_liftoff(SIM_NCP_MIN_MAP);
  double b_lam = 0.0, b_res = 0.0;
  for (int form = 0; form < 2; form++) {
    test_bilateral(form, 0.0, &b_lam, &b_res);
    test_bilateral(form, 1e-3, &b_lam, &b_res);
  }
  printf(
      "bilateral rows (hard and E = 1e-3 m/N, both forms): lambda rel err %.2e, "
      "|q - p + E lambda| %.2e m\n",
      b_lam, b_res);
  CHECK(b_lam < 1e-10);
  CHECK(b_res < 1e-14);
  CHECK_INT(sim_mem_in_use(), mem0);
  return check_summary("test_nsn");
}

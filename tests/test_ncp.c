/* SPDX-License-Identifier: MIT */
/* NCP functions of core/contact/ncp.h: every derivative against central finite differences for
   both NCP functions (normal and friction rows), the values chosen at the kinks, exact zeros at
   complementary / sticking / sliding points, scale invariances, the paper's Eq. 51 and 57 forms,
   the preconditioners and the two cone projections. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/ncp.h"
#include "check.h"

static const sim_ncp_kind KINDS[2] = {SIM_NCP_FISCHER_BURMEISTER, SIM_NCP_MIN_MAP};
static const char *KNAME[2] = {"fb", "min"};
#define NSAMPLE 2000
#define FD_TOL 1e-6 /* relative to 1 + |derivative| (variables are O(1)) */

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }
static double urange(double a, double b) { return a + (b - a) * 0.5 * (urand() + 1.0); }
static double logrange(double a, double b) { return exp(urange(log(a), log(b))); }

/* Largest FD error seen per check, printed at the end for the report. */
static double fd_max[2][6];
static const char *FD_NAME[6] = {"phi(a,b)", "normal", "fric e", "fric du", "fric dlf", "fric dln"};

static void fd_check(int k, int which, double an, double fd, const char *what, int sample) {
  double err = fabs(an - fd) / (1.0 + fabs(an));
  if (err > fd_max[k][which]) fd_max[k][which] = err;
  if (err > FD_TOL)
    check_report(0, __FILE__, __LINE__, "%s %s sample %d: analytic %.12g vs fd %.12g", KNAME[k],
                 what, sample, an, fd);
  else
    check_pass++;
}

/* ---- scalar NCP functions ---- */
static void test_phi_fd(void) {
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < NSAMPLE; n++) {
      double a = 2.0 * urand(), b = 2.0 * urand();
      if (KINDS[k] == SIM_NCP_MIN_MAP ? fabs(a - b) < 1e-3 : hypot(a, b) < 0.1) continue;
      double da, db, eps = 1e-6;
      sim_ncp_phi(KINDS[k], a, b, &da, &db);
      double fa =
          (sim_ncp_phi(KINDS[k], a + eps, b, 0, 0) - sim_ncp_phi(KINDS[k], a - eps, b, 0, 0)) /
          (2 * eps);
      double fb =
          (sim_ncp_phi(KINDS[k], a, b + eps, 0, 0) - sim_ncp_phi(KINDS[k], a, b - eps, 0, 0)) /
          (2 * eps);
      fd_check(k, 0, da, fa, "dphi/da", n);
      fd_check(k, 0, db, fb, "dphi/db", n);
    }
  /* FB against the textbook form, and its sign: > 0 in the open positive quadrant, < 0 when
     either argument is negative. */
  for (int n = 0; n < NSAMPLE; n++) {
    double a = 3.0 * urand(), b = 3.0 * urand();
    double p = sim_ncp_fb(a, b, 0, 0);
    CHECK_NEAR(p, a + b - sqrt(a * a + b * b), 1e-14);
    if (a > 0 && b > 0) CHECK(p > 0);
    if (a < 0 || b < 0) CHECK(p < 0);
    CHECK(sim_ncp_min(a, b, 0, 0) == fmin(a, b));
  }
  /* no cancellation: a = 1 >> b > 0 gives phi = b - b^2/2 + O(b^3), da = b^2/2 + O(b^4)
     (the textbook form returns b and 0: relative errors 5e-10 and 1) */
  double da, db, p = sim_ncp_fb(1.0, 1e-9, &da, &db);
  CHECK_NEAR(p, 1e-9 - 0.5e-18, 1e-25);
  CHECK_NEAR(da, 0.5e-18, 1e-30);
  CHECK_NEAR(db, 1.0 - 1e-9, 4e-16);
}

/* ---- normal row ---- */
static void test_normal(void) {
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < NSAMPLE; n++) {
      double r = logrange(0.05, 20.0), d = urand(), lam = urand() / r;
      if (KINDS[k] == SIM_NCP_MIN_MAP ? fabs(d - r * lam) < 1e-3 : hypot(d, r * lam) < 0.1)
        continue;
      double om, e, eps = 1e-6;
      sim_ncp_normal(KINDS[k], d, lam, r, &om, &e);
      double fd_d = (sim_ncp_normal(KINDS[k], d + eps, lam, r, 0, 0) -
                     sim_ncp_normal(KINDS[k], d - eps, lam, r, 0, 0)) /
                    (2 * eps);
      double el = eps / r; /* step in lambda of the same size in r lambda */
      double fd_l = (sim_ncp_normal(KINDS[k], d, lam + el, r, 0, 0) -
                     sim_ncp_normal(KINDS[k], d, lam - el, r, 0, 0)) /
                    (2 * el);
      fd_check(k, 1, om, fd_d, "omega_n", n);
      fd_check(k, 1, e / r, fd_l / r, "e_n / r", n);
      /* FB: (omega, e/r) = (1 - xi, 1 - eta) with xi^2 + eta^2 = 1, so both lie in [0, 2] and
         omega + e/r >= 2 - sqrt2 (the Newton row never vanishes); min map: one of them is 1 */
      CHECK(om >= 0.0 && om <= 2.0 && e >= 0.0 && e <= 2.0 * r);
      if (KINDS[k] == SIM_NCP_FISCHER_BURMEISTER)
        CHECK(om + e / r >= (2.0 - sqrt(2.0)) * (1.0 - 1e-15));
      else
        CHECK(om + e / r == 1.0 && om * e == 0.0);
    }
  /* complementary points give exactly 0; points off the complementarity set do not */
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 200; n++) {
      double r = logrange(1e-8, 1e3), d = logrange(1e-12, 1e3), lam = logrange(1e-12, 1e6);
      CHECK(sim_ncp_normal(KINDS[k], d, 0.0, r, 0, 0) == 0.0);
      CHECK(sim_ncp_normal(KINDS[k], 0.0, lam, r, 0, 0) == 0.0);
      CHECK(sim_ncp_normal(KINDS[k], d, lam, r, 0, 0) > 0.0);
      CHECK(sim_ncp_normal(KINDS[k], -d, lam, r, 0, 0) < 0.0);
      CHECK(sim_ncp_normal(KINDS[k], d, -lam, r, 0, 0) < 0.0);
      /* homogeneity: phi_n(t delta, lambda, t r) = t phi_n(delta, lambda, r) */
      double t = logrange(1e-3, 1e3), dd = urand(), ll = urand() / r;
      double p1 = sim_ncp_normal(KINDS[k], dd, ll, r, 0, 0);
      double p2 = sim_ncp_normal(KINDS[k], t * dd, ll, t * r, 0, 0);
      CHECK_NEAR(p2, t * p1, 1e-13 * t * (fabs(dd) + fabs(r * ll)));
    }
  /* the kinks */
  double r = 0.37, om, e;
  double p = sim_ncp_normal(SIM_NCP_FISCHER_BURMEISTER, 0.0, 0.0, r, &om, &e);
  CHECK(p == 0.0);
  CHECK_NEAR(om, 1.0 - sqrt(0.5), 1e-16);
  CHECK_NEAR(e, r * (1.0 - sqrt(0.5)), 1e-16);
  /* the chosen element is the directional derivative along delta = r lambda (t > 0) */
  for (double t = 1e-3; t < 2.0; t *= 3.0)
    CHECK_NEAR(sim_ncp_normal(SIM_NCP_FISCHER_BURMEISTER, t, t / r, r, 0, 0) / t, om + e / r,
               1e-14);
  /* min map tie delta = r lambda = 0.2: the delta branch (J_n = H_n, E_n = 0), which matches
     the one-sided slopes for decreasing delta and increasing lambda */
  double lam = 0.2 / r, tt = 1e-4;
  p = sim_ncp_normal(SIM_NCP_MIN_MAP, 0.2, lam, r, &om, &e);
  CHECK(p == 0.2 && om == 1.0 && e == 0.0);
  CHECK_NEAR((sim_ncp_normal(SIM_NCP_MIN_MAP, 0.2 - tt, lam, r, 0, 0) - p) / -tt, om, 1e-10);
  CHECK_NEAR((sim_ncp_normal(SIM_NCP_MIN_MAP, 0.2, lam + tt, r, 0, 0) - p) / tt, e, 1e-10);
  sim_ncp_normal(SIM_NCP_MIN_MAP, 0.0, 0.0, r, &om, &e);
  CHECK(om == 1.0 && e == 0.0);
}

/* ---- normal row with a force cap (box complementarity) ---- */
static void test_normal_capped(void) {
  for (int k = 0; k < 2; k++) {
    sim_ncp_kind K = KINDS[k];
    /* no cap: sim_ncp_normal's bits */
    for (int n = 0; n < 200; n++) {
      double r = logrange(0.05, 20.0), d = urand(), lam = urand() / r, o1, e1, o2, e2;
      double p1 = sim_ncp_normal(K, d, lam, r, &o1, &e1);
      double p2 = sim_ncp_normal_capped(K, d, lam, r, n % 2 ? 0.0 : -1.0, &o2, &e2);
      CHECK(p1 == p2 && o1 == o2 && e1 == e2);
    }
    /* derivatives against finite differences, lambda_n inside (0, U), away from the kinks */
    for (int n = 0; n < NSAMPLE; n++) {
      double r = logrange(0.05, 20.0), U = logrange(0.5, 2.0) / r, d = urand(),
             lam = urange(0.0, 1.0) * U;
      double inner = K == SIM_NCP_MIN_MAP ? fabs(r * (U - lam) + d) : hypot(r * (U - lam), d);
      if (inner < 0.1) continue;
      double g = -sim_ncp_phi(K, r * (U - lam), -d, 0, 0);
      if (K == SIM_NCP_MIN_MAP ? fabs(g - r * lam) < 1e-3 : hypot(g, r * lam) < 0.1) continue;
      double om, e, eps = 1e-6, el = eps / r;
      sim_ncp_normal_capped(K, d, lam, r, U, &om, &e);
      double fd_d = (sim_ncp_normal_capped(K, d + eps, lam, r, U, 0, 0) -
                     sim_ncp_normal_capped(K, d - eps, lam, r, U, 0, 0)) /
                    (2 * eps);
      double fd_l = (sim_ncp_normal_capped(K, d, lam + el, r, U, 0, 0) -
                     sim_ncp_normal_capped(K, d, lam - el, r, U, 0, 0)) /
                    (2 * el);
      fd_check(k, 1, om, fd_d, "capped omega_n", n);
      fd_check(k, 1, e / r, fd_l / r, "capped e_n / r", n);
      CHECK(om >= 0.0 && om <= 4.0 && e >= 0.0 && e <= 4.0 * r);
    }
    /* exact zeros where the box conditions hold, none where they fail */
    for (int n = 0; n < 200; n++) {
      double r = logrange(1e-8, 1e3), d = logrange(1e-12, 1e3), U = logrange(1e-6, 1e6),
             lam = urange(0.01, 0.99) * U, om, e;
      CHECK(sim_ncp_normal_capped(K, d, 0.0, r, U, 0, 0) == 0.0);   /* open, no force */
      CHECK(sim_ncp_normal_capped(K, 0.0, lam, r, U, 0, 0) == 0.0); /* closed, in between */
      /* held at the cap while closing further: solved, and decoupled (lambda_n stays) */
      CHECK(sim_ncp_normal_capped(K, -d, U, r, U, &om, &e) == 0.0);
      CHECK(om == 0.0 && e > 0.0);
      CHECK(sim_ncp_normal_capped(K, -d, 0.0, r, U, 0, 0) < 0.0); /* inside, no force */
      CHECK(sim_ncp_normal_capped(K, d, lam, r, U, 0, 0) > 0.0);  /* open, pushing */
      CHECK(sim_ncp_normal_capped(K, -d, lam, r, U, 0, 0) < 0.0); /* inside, below the cap */
      CHECK(sim_ncp_normal_capped(K, d, U, r, U, 0, 0) != 0.0);   /* open, at the cap */
    }
  }
  /* a cap far above the force: the uncapped value (FB: to O(delta^2 / (r (U - lambda_n)))) */
  for (int n = 0; n < 200; n++) {
    double r = logrange(0.05, 20.0), d = urand(), lam = urange(0.0, 1.0) / r, U = 1e9 / r;
    double p0 = sim_ncp_normal(SIM_NCP_FISCHER_BURMEISTER, d, lam, r, 0, 0);
    CHECK_NEAR(sim_ncp_normal_capped(SIM_NCP_FISCHER_BURMEISTER, d, lam, r, U, 0, 0), p0, 1e-8);
    CHECK(sim_ncp_normal_capped(SIM_NCP_MIN_MAP, d, lam, r, U, 0, 0) ==
          sim_ncp_normal(SIM_NCP_MIN_MAP, d, lam, r, 0, 0));
  }
}

/* ---- friction rows ---- */
typedef struct fpoint {
  double u[2], lf[2], ln, mu, r;
} fpoint;

/* A random active contact; region 0: inside the cone, 1: outside (exercises the clamp). The
   slip is of the size of b = r (mu lambda_n - l) so that sticking and sliding both occur. */
static fpoint random_active(int region) {
  fpoint p;
  p.r = logrange(0.1, 10.0);
  p.ln = logrange(0.1, 10.0);
  p.mu = urange(0.1, 1.5);
  double lim = p.mu * p.ln, l = region ? urange(1.05, 3.0) * lim : urange(0.05, 0.95) * lim;
  double th = SIM_PI * urand(), ph = SIM_PI * urand(), a = urange(0.0, 2.0) * p.r * lim;
  p.lf[0] = l * cos(th);
  p.lf[1] = l * sin(th);
  p.u[0] = a * cos(ph);
  p.u[1] = a * sin(ph);
  return p;
}

/* Far enough from the kinks for a central difference of step ~1e-6 (relative). */
static int away_from_kinks(sim_ncp_kind kind, const fpoint *p) {
  double a = hypot(p->u[0], p->u[1]), l = hypot(p->lf[0], p->lf[1]), lim = p->mu * p->ln;
  double b = p->r * (lim - fmin(l, lim)), c = p->r * lim;
  if (fabs(l - lim) < 1e-3 * lim || a < 1e-2 * c) return 0;
  if (kind == SIM_NCP_MIN_MAP && fabs(a - b) < 1e-3 * c) return 0;
  return 1;
}

static void fric_phi(sim_ncp_kind kind, const fpoint *p, double phi[2]) {
  sim_ncp_fric f = sim_ncp_friction(kind, p->u, p->lf, p->ln, p->mu, p->r);
  phi[0] = f.phi[0];
  phi[1] = f.phi[1];
}

static void test_friction_fd(void) {
  int done[2] = {0, 0};
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 2 * NSAMPLE; n++) {
      fpoint p = random_active(n % 4 == 3);
      if (!away_from_kinks(KINDS[k], &p)) continue;
      done[k]++;
      double a = hypot(p.u[0], p.u[1]), l = hypot(p.lf[0], p.lf[1]), de[3];
      double e = sim_ncp_friction_e(KINDS[k], a, l, p.ln, p.mu, p.r, de);
      /* e and its partials (e has the units of r: compare e / r) */
      double x[3] = {a, l, p.ln}, sc[3] = {p.r * p.mu * p.ln, p.mu * p.ln, p.ln};
      for (int v = 0; v < 3; v++) {
        double hs = 1e-6 * sc[v], xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[v] += hs;
        xm[v] -= hs;
        double fd = (sim_ncp_friction_e(KINDS[k], xp[0], xp[1], xp[2], p.mu, p.r, 0) -
                     sim_ncp_friction_e(KINDS[k], xm[0], xm[1], xm[2], p.mu, p.r, 0)) /
                    (2 * hs);
        fd_check(k, 2, de[v] * sc[v] / p.r, fd * sc[v] / p.r, "de", n);
      }
      CHECK(e >= 0.0);
      /* exact Jacobians of phi_f */
      double du[4], dlf[4], dln[2], pp[2], pm[2];
      sim_ncp_friction_jac(KINDS[k], p.u, p.lf, p.ln, p.mu, p.r, du, dlf, dln);
      for (int j = 0; j < 2; j++) {
        double hs = 1e-6 * sc[0];
        fpoint q = p, w = p;
        q.u[j] += hs;
        w.u[j] -= hs;
        fric_phi(KINDS[k], &q, pp);
        fric_phi(KINDS[k], &w, pm);
        for (int i = 0; i < 2; i++)
          fd_check(k, 3, du[2 * i + j], (pp[i] - pm[i]) / (2 * hs), "du", n);
        hs = 1e-6 * sc[1];
        q = p;
        w = p;
        q.lf[j] += hs;
        w.lf[j] -= hs;
        fric_phi(KINDS[k], &q, pp);
        fric_phi(KINDS[k], &w, pm);
        for (int i = 0; i < 2; i++)
          fd_check(k, 4, dlf[2 * i + j] / p.r, (pp[i] - pm[i]) / (2 * hs) / p.r, "dlf", n);
      }
      double hs = 1e-6 * sc[2];
      fpoint q = p, w = p;
      q.ln += hs;
      w.ln -= hs;
      fric_phi(KINDS[k], &q, pp);
      fric_phi(KINDS[k], &w, pm);
      for (int i = 0; i < 2; i++)
        fd_check(k, 5, dln[i] * sc[2] / sc[0], (pp[i] - pm[i]) / (2 * hs) * sc[2] / sc[0], "dln",
                 n);
    }
  CHECK(done[0] > NSAMPLE / 2 && done[1] > NSAMPLE / 2);
}

/* e against the paper's own forms: Eq. 51 (minimum map) and Eq. 57 (Fischer-Burmeister). */
static void test_friction_paper_forms(void) {
  int stick = 0, slide = 0;
  for (int n = 0; n < NSAMPLE; n++) {
    fpoint p = random_active(0);
    double a = hypot(p.u[0], p.u[1]), l = hypot(p.lf[0], p.lf[1]), m = p.mu * p.ln - l;
    double e51 = a <= p.r * m ? 0.0 : (a - p.r * m) / (p.mu * p.ln);
    double sq = sqrt(a * a + p.r * p.r * m * m);
    double e57 = (sq - p.r * m) / (a + p.mu * p.r * p.ln - sq) * p.r;
    double emin = sim_ncp_friction_e(SIM_NCP_MIN_MAP, a, l, p.ln, p.mu, p.r, 0);
    double efb = sim_ncp_friction_e(SIM_NCP_FISCHER_BURMEISTER, a, l, p.ln, p.mu, p.r, 0);
    CHECK_NEAR(emin, e51, 1e-12 * (1.0 + e51));
    CHECK_NEAR(efb, e57, 1e-9 * (1.0 + e57));
    if (e51 == 0.0)
      stick++;
    else
      slide++;
  }
  CHECK(stick > 100 && slide > 100);
}

static void test_friction_states(void) {
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 500; n++) {
      fpoint p = random_active(0);
      double lim = p.mu * p.ln;
      /* sticking: u = 0 inside the cone (and at lambda_f = 0): phi_f == 0 exactly, e = 0 */
      fpoint s = p;
      s.u[0] = s.u[1] = 0.0;
      if (n % 5 == 0) s.lf[0] = s.lf[1] = 0.0;
      sim_ncp_fric f = sim_ncp_friction(KINDS[k], s.u, s.lf, s.ln, s.mu, s.r);
      CHECK(f.phi[0] == 0.0 && f.phi[1] == 0.0 && f.e == 0.0 && f.omega == 1.0);
      /* sliding: lambda_f = -mu lambda_n u/|u|: phi_f = 0 to rounding, e = |u| / |lambda_f| */
      double a = sim_hypot(p.u[0], p.u[1]); /* the NCP's own norm */
      if (a < 1e-3) continue;
      fpoint d = p;
      d.lf[0] = -lim * p.u[0] / a;
      d.lf[1] = -lim * p.u[1] / a;
      f = sim_ncp_friction(KINDS[k], d.u, d.lf, d.ln, d.mu, d.r);
      CHECK(hypot(f.phi[0], f.phi[1]) <= 1e-13 * a);
      CHECK_NEAR(f.e, a / lim, 1e-12 * a / lim);
      /* not solutions: slipping while strictly inside the cone, or friction along the slip */
      f = sim_ncp_friction(KINDS[k], p.u, p.lf, p.ln, p.mu, p.r);
      CHECK(hypot(f.phi[0], f.phi[1]) > 1e-6 * a);
      d.lf[0] = -d.lf[0];
      d.lf[1] = -d.lf[1];
      f = sim_ncp_friction(KINDS[k], d.u, d.lf, d.ln, d.mu, d.r);
      CHECK(hypot(f.phi[0], f.phi[1]) > a);
    }
  /* outside the cone e is that of the same slip with |lambda_f| = mu lambda_n (the documented
     clamp), so de/dl = 0 there and e >= 0 */
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 500; n++) {
      fpoint p = random_active(1);
      double a = hypot(p.u[0], p.u[1]), l = hypot(p.lf[0], p.lf[1]), lim = p.mu * p.ln, de[3];
      double e = sim_ncp_friction_e(KINDS[k], a, l, p.ln, p.mu, p.r, de);
      CHECK(e == sim_ncp_friction_e(KINDS[k], a, lim, p.ln, p.mu, p.r, 0));
      CHECK(de[1] == 0.0 && e >= 0.0);
    }
  /* the FB 0/0 point (u = 0, lambda_f = 0) takes its limit e = 0, and e -> 0 approaching it */
  double de[3];
  CHECK(sim_ncp_friction_e(SIM_NCP_FISCHER_BURMEISTER, 0.0, 0.0, 1.0, 0.5, 2.0, de) == 0.0);
  CHECK(sim_ncp_friction_e(SIM_NCP_FISCHER_BURMEISTER, 1e-8, 1e-8, 1.0, 0.5, 2.0, 0) < 1e-7);
  CHECK(sim_ncp_friction_e(SIM_NCP_FISCHER_BURMEISTER, 1e-8, 0.0, 1.0, 0.5, 2.0, 0) < 1e-7);
  /* inactive (lambda_n <= 0) and frictionless (mu = 0): phi_f = lambda_f, J_f = 0, E_f = I */
  double u[2] = {0.3, -0.2}, lf[2] = {0.7, 0.1}, du[4], dlf[4], dln[2];
  double lns[3] = {0.0, -1.0, 2.0}, mus[3] = {0.5, 0.5, 0.0};
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 3; c++) {
      sim_ncp_fric f = sim_ncp_friction(KINDS[k], u, lf, lns[c], mus[c], 0.5);
      CHECK(f.phi[0] == lf[0] && f.phi[1] == lf[1] && f.omega == 0.0 && f.e == 1.0);
      sim_ncp_friction_jac(KINDS[k], u, lf, lns[c], mus[c], 0.5, du, dlf, dln);
      CHECK(du[0] == 0 && du[1] == 0 && du[2] == 0 && du[3] == 0);
      CHECK(dlf[0] == 1 && dlf[1] == 0 && dlf[2] == 0 && dlf[3] == 1 && dln[0] == 0);
    }
}

/* On the cone's edge to rounding (|lambda_f| a few ulps either side of mu lambda_n, as
   sim_ncp_cone_clamp leaves it) the partials are the inside's on both sides: one Jacobian, not
   one chosen by the last bit of |lambda_f| (SIM_NCP_CONE_EDGE). Beyond the edge dlf carries no
   e_l lambda_f lambda_f^T / l term, which is of the order of dlf itself, and that branch
   taken from one ulp beyond (the rule before) failed this check in 24,528 entries. */
static void test_friction_cone_edge(void) {
  int sliding = 0;
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 500; n++) {
      fpoint p = random_active(0);
      const double lim = p.mu * p.ln, l0 = hypot(p.lf[0], p.lf[1]);
      double ref[10], out[10];
      for (int side = -4; side <= 4; side++) { /* side -4: 4 ulps inside, the reference */
        const double f = 1.0 + side * DBL_EPSILON;
        fpoint q = p;
        q.lf[0] = p.lf[0] / l0 * lim * f;
        q.lf[1] = p.lf[1] / l0 * lim * f;
        sim_ncp_friction_jac(KINDS[k], q.u, q.lf, q.ln, q.mu, q.r, out, out + 4, out + 8);
        if (side == -4) memcpy(ref, out, sizeof ref);
        /* du is dimensionless; dlf has the units of r, dln those of r mu */
        for (int i = 0; i < 10; i++) {
          const double sc = i < 4 ? 1.0 : (i < 8 ? p.r : p.r * p.mu);
          CHECK_NEAR(out[i], ref[i], 1e-7 * sc);
        }
      }
      sliding += hypot(p.u[0], p.u[1]) > 1e-3 * p.r * lim;
    }
  CHECK(sliding > 500);
}

/* phi_f(t u, t r) = t phi_f(u, r) (velocity vs displacement form); phi_f(u, t lambda, r / t)
   = phi_f(u, lambda, r) (force units). e >= 0 everywhere, also outside the cone. */
static void test_friction_scaling(void) {
  for (int k = 0; k < 2; k++)
    for (int n = 0; n < 500; n++) {
      fpoint p = random_active(n % 3 == 2);
      double t = logrange(1e-4, 1e2);
      sim_ncp_fric f = sim_ncp_friction(KINDS[k], p.u, p.lf, p.ln, p.mu, p.r);
      double tu[2] = {t * p.u[0], t * p.u[1]}, tl[2] = {t * p.lf[0], t * p.lf[1]};
      sim_ncp_fric g = sim_ncp_friction(KINDS[k], tu, p.lf, p.ln, p.mu, t * p.r);
      sim_ncp_fric q = sim_ncp_friction(KINDS[k], p.u, tl, t * p.ln, p.mu, p.r / t);
      double sc = hypot(p.u[0], p.u[1]) + f.e * hypot(p.lf[0], p.lf[1]) + 1e-300;
      for (int i = 0; i < 2; i++) {
        CHECK_NEAR(g.phi[i], t * f.phi[i], 1e-11 * t * sc);
        CHECK_NEAR(q.phi[i], f.phi[i], 1e-11 * sc);
      }
      CHECK_NEAR(g.e, t * f.e, 1e-11 * t * (f.e + p.r));
      CHECK(f.e >= 0.0 && g.omega == f.omega);
    }
}

/* ---- cone projections ---- */
static int in_cone(double mu, const double x[3]) {
  return x[0] >= 0.0 && hypot(x[1], x[2]) <= mu * x[0] * (1.0 + 1e-14) + 1e-300;
}

static void test_cone(void) {
  for (int n = 0; n < NSAMPLE; n++) {
    double mu = n % 10 == 0 ? 0.0 : urange(0.05, 2.0);
    double x[3] = {2.0 * urand(), 2.0 * urand(), 2.0 * urand()};
    double c[3] = {x[0], x[1], x[2]}, e[3] = {x[0], x[1], x[2]};
    int inside = in_cone(mu, x) && hypot(x[1], x[2]) <= mu * x[0];
    sim_ncp_cone_clamp(mu, c);
    sim_ncp_cone_project(mu, e);
    CHECK(in_cone(mu, c));
    CHECK(in_cone(mu, e));
    if (inside) { /* unchanged, bit for bit */
      CHECK(c[0] == x[0] && c[1] == x[1] && c[2] == x[2]);
      CHECK(e[0] == x[0] && e[1] == x[1] && e[2] == x[2]);
    }
    /* clamp: lambda_n = max(lambda_n, 0); lambda_f keeps its direction, only shrinks */
    CHECK(c[0] == fmax(x[0], 0.0));
    CHECK(c[1] * x[1] >= 0.0 && c[2] * x[2] >= 0.0 && fabs(c[1]) <= fabs(x[1]));
    CHECK(fabs(c[1] * x[2] - c[2] * x[1]) <= 1e-15);
    if (!inside && x[0] > 0.0) CHECK_NEAR(hypot(c[1], c[2]), mu * x[0], 1e-14);
    /* idempotent */
    double c2[3] = {c[0], c[1], c[2]}, e2[3] = {e[0], e[1], e[2]};
    sim_ncp_cone_clamp(mu, c2);
    sim_ncp_cone_project(mu, e2);
    for (int i = 0; i < 3; i++) {
      CHECK_NEAR(c2[i], c[i], 1e-15);
      CHECK_NEAR(e2[i], e[i], 1e-15);
    }
    /* Euclidean projection: (x - P) . (y - P) <= 0 and |x - P| <= |x - y| for y in the cone */
    double dP = sqrt((x[0] - e[0]) * (x[0] - e[0]) + (x[1] - e[1]) * (x[1] - e[1]) +
                     (x[2] - e[2]) * (x[2] - e[2]));
    for (int j = 0; j < 20; j++) {
      double yn = urange(0.0, 2.0), yl = mu * yn * urange(0.0, 1.0), th = SIM_PI * urand();
      double y[3] = {yn, yl * cos(th), yl * sin(th)}, vi = 0.0, dy = 0.0;
      for (int i = 0; i < 3; i++) {
        vi += (x[i] - e[i]) * (y[i] - e[i]);
        dy += (x[i] - y[i]) * (x[i] - y[i]);
      }
      CHECK(vi <= 1e-14);
      CHECK(dP <= sqrt(dy) + 1e-14);
    }
  }
  /* polar cone -> 0; the known projection of a point outside */
  double p[3] = {-1.0, 0.1, 0.0};
  sim_ncp_cone_project(0.5, p);
  CHECK(p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0);
  double q[3] = {1.0, 2.0, 0.0}; /* mu = 1: onto the 45-degree line, (1.5, 1.5, 0) */
  sim_ncp_cone_project(1.0, q);
  CHECK_NEAR(q[0], 1.5, 1e-15);
  CHECK_NEAR(q[1], 1.5, 1e-15);
  double z[3] = {-2.0, 0.0, 0.0};
  sim_ncp_cone_project(0.0, z);
  CHECK(z[0] == 0.0);
  double w[3] = {1.0, 3.0, 4.0}; /* clamp: |lambda_f| 5 -> 0.5 */
  sim_ncp_cone_clamp(0.5, w);
  CHECK(w[0] == 1.0);
  CHECK_NEAR(w[1], 0.3, 1e-15);
  CHECK_NEAR(w[2], 0.4, 1e-15);
}

static void test_precond(void) {
  CHECK_NEAR(sim_ncp_precond_normal(0.01, 3.0), 3e-4, 1e-18);
  CHECK_NEAR(sim_ncp_precond_friction(0.01, 3.0), 3e-2, 1e-16);
}

/* sim_hypot (the NCP functions' norm, core/base/mathx.h) against glibc's hypot: within 1 ulp at
   every scale, subnormal to near overflow, ratios 1 to 1e-20; exact where one argument is 0;
   0, NaN and infinity as hypot gives them (but for (inf, NaN), NaN). */
static void test_hypot(void) {
  long off = 0, far = 0;
  for (int n = 0; n < 200000; n++) {
    const double a = ldexp(urand(), rand() % 2090 - 1070);
    const double b = a * urand() * pow(10.0, -20.0 * (0.5 * urand() + 0.5));
    const double h = hypot(a, b), s = sim_hypot(n % 2 ? a : b, n % 2 ? b : a);
    off += s != h;
    far += fabs(s - h) > (nextafter(h, INFINITY) - h);
  }
  printf("sim_hypot: %ld of 200000 differ from hypot, %ld by more than 1 ulp\n", off, far);
  CHECK_INT(far, 0);
  for (int e = -1074; e <= 1023; e += 7) {
    const double a = ldexp(-1.0 - 0.37 * (e & 1), e);
    CHECK(sim_hypot(a, 0.0) == fabs(a) && sim_hypot(0.0, a) == fabs(a));
  }
  CHECK(sim_hypot(0.0, -0.0) == 0.0 && isnan(sim_hypot(NAN, 1.0)) && isnan(sim_hypot(0.0, NAN)));
  CHECK(sim_hypot(INFINITY, 1.0) == INFINITY && sim_hypot(-3.0, -INFINITY) == INFINITY);
  CHECK(sim_hypot(3.0, 4.0) == 5.0 && sim_hypot(DBL_MAX, DBL_MAX) == INFINITY);
}

int main(void) {
  srand(12345);
  test_hypot();
  test_phi_fd();
  test_normal();
  test_normal_capped();
  test_friction_fd();
  test_friction_paper_forms();
  test_friction_states();
  test_friction_scaling();
  test_friction_cone_edge();
  test_cone();
  test_precond();
  for (int k = 0; k < 2; k++) {
    printf("fd max rel err %-3s:", KNAME[k]);
    for (int w = 0; w < 6; w++) printf(" %s %.1e", FD_NAME[w], fd_max[k][w]);
    printf("\n");
  }
  return check_summary("test_ncp");
}

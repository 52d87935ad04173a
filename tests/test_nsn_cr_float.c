/* SPDX-License-Identifier: MIT */
/* Conjugate Residual's products with a float copy of a dense W (core/contact/nsn.c,
   contact.cr_precision "float"): only the Newton step's direction reads it, the residual, the
   line search and f keep W in double. On random coupled frictional problems (W = B B^T / M +
   I / 2 in 1/kg, 40 contacts, a share of them penetrating), solved as the stage solves them
   (hq = hab + h^2 W lambda before each Newton step), with CR run to 1e-14:
   - one Newton step differs from the double one (the copy is read), by at most 1e-5 of the
     step;
   - where both solves converge within 40 Newton steps (max |phi| <= 1e-12 m; at least 5 of the
     8 problems: a few stall on friction rows either way, whose steps the line search does not
     judge), they reach the same multipliers, within 1e-10 of their largest: the float copy
     changes the path, not the solution;
   - with W given as an operator the option changes nothing (no copy to read): the same bits. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/contact/nsn.h"
#include "check.h"

#define NC 40
#define M (3 * NC)

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

typedef struct problem {
  double W[M * M], hab[M], d[M], hqt[M], mu[NC], minv[M];
} problem;

static void make(problem *p, unsigned seed) {
  static double B[M * M];
  for (int i = 0; i < M * M; i++) B[i] = 2.0 * rnd(&seed) - 1.0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      double acc = i == j ? 0.5 : 0.0;
      for (int k = 0; k < M; k++) acc += B[i * M + k] * B[j * M + k] / M;
      p->W[i * M + j] = acc;
    }
  for (int j = 0; j < NC; j++) {
    p->mu[j] = 0.2 + 0.6 * rnd(&seed);
    for (int r = 0; r < 3; r++) {
      int i = 3 * j + r;
      p->d[i] = r == 0 ? 0.0 : 0.05 * (rnd(&seed) - 0.5); /* belt speeds on the tangents */
      p->hqt[i] = 1e-3 * (rnd(&seed) - 0.5);
      /* normals: a third penetrating by up to 5 mm, the rest up to 5 mm clear */
      p->hab[i] = r == 0 ? (j % 3 == 0 ? -5e-3 : 5e-3) * rnd(&seed) : p->hqt[i] + 1e-3 * rnd(&seed);
      p->minv[i] = 1.0;
    }
  }
}

static void w_op(void *ctx, const double *x, double *out) {
  const problem *p = (const problem *)ctx;
  for (int i = 0; i < M; i++) {
    double acc = 0.0;
    for (int j = 0; j < M; j++) acc += p->W[i * M + j] * x[j];
    out[i] = acc;
  }
}

/* `steps` Newton steps from lambda = 0, CR's W in float or not (op: W as an operator); lambda
   into lam; returns max |phi| at the last step's start. */
static double solve(const problem *p, int cr_float, int op, int steps, double *lam) {
  sim_nsn_options o = sim_default_nsn_options();
  o.h = 0.01;
  o.cr_iters = 300;
  o.cr_tol = 1e-14;
  o.line_search = 8;
  o.cr_float = cr_float;
  sim_nsn s;
  CHECK(sim_nsn_init(&s, &o) == 0);
  double wd[M];
  for (int i = 0; i < M; i++) wd[i] = p->W[i * M + i];
  int rc = op ? sim_nsn_begin_step_op(&s, NC, w_op, (void *)p, wd, p->mu, NULL, p->d, p->hqt, NULL)
              : sim_nsn_begin_step(&s, NC, p->W, p->mu, NULL, p->d, p->hqt, NULL);
  CHECK(rc == 0);
  CHECK(cr_float && !op ? s.Wf != NULL : 1);
  double hq[M], wl[M];
  for (int k = 0; k < steps; k++) {
    sim_nsn_w_apply(&s, sim_nsn_force(&s), wl); /* the stage's linearisation point */
    for (int i = 0; i < M; i++) hq[i] = p->hab[i] + o.h * o.h * wl[i];
    CHECK(sim_nsn_iterate_w(&s, hq, p->hab, wl) > 0);
  }
  memcpy(lam, sim_nsn_lambda(&s), sizeof(double) * M);
  double pm = s.stats.phi_max;
  sim_nsn_destroy(&s);
  return pm;
}

/* max |a - b| / max |b| */
static double rel(const double *a, const double *b) {
  double d = 0.0, n = 0.0;
  for (int i = 0; i < M; i++) d = fmax(d, fabs(a[i] - b[i])), n = fmax(n, fabs(b[i]));
  return n > 0.0 ? d / n : d;
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  static problem p;
  double ld[M], lf[M], worst1 = 0.0, least1 = INFINITY, worst = 0.0;
  int converged = 0;
  for (unsigned seed = 1; seed <= 8; seed++) {
    make(&p, seed);
    solve(&p, 0, 0, 1, ld);
    solve(&p, 1, 0, 1, lf);
    double d1 = rel(lf, ld);
    worst1 = fmax(worst1, d1), least1 = fmin(least1, d1);
    double pd = solve(&p, 0, 0, 40, ld), pf = solve(&p, 1, 0, 40, lf);
    printf("problem %u: max |phi| after 40 Newton steps %.2e m (double), %.2e m (float)\n", seed,
           pd, pf);
    if (pd <= 1e-12 && pf <= 1e-12) worst = fmax(worst, rel(lf, ld)), converged++;
    double lo[M];
    solve(&p, 1, 1, 3, lo);
    solve(&p, 0, 1, 3, ld);
    CHECK(memcmp(lo, ld, sizeof lo) == 0);
  }
  printf("one Newton step, CR's W in float against double: rel diff %.2e .. %.2e\n", least1,
         worst1);
  printf("converged in both (%d of 8): multipliers rel diff %.2e\n", converged, worst);
  CHECK(least1 > 0.0);
  CHECK(worst1 <= 1e-5);
  CHECK(converged >= 5);
  CHECK(worst <= 1e-10);
  CHECK_INT(sim_mem_in_use(), mem0);
  return check_summary("test_nsn_cr_float");
}

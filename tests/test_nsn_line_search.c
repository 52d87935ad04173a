/* SPDX-License-Identifier: MIT */
/* The non-smooth Newton line search (core/contact/nsn.c, contact.line_search): on strongly
   coupled frictionless contact problems solved inexactly (few CR iterations), the full step can
   raise the merit 1/2 |phi|^2 (the failure that created energy in pulling_wooper); with the
   line search the merit never rises from one Newton step to the next and the multipliers stay
   finite. Problems: W = B B^T / n + 0.001 I (B uniform in [0, 1), so every contact pushes on
   every other, as on a body squeezed between two obstacles), H A^{-1} b random with a share of rows penetrating by up to 0.5 m.
   The solver's count of the outcomes (sim_nsn_stats ls) covers every
   step taken once, holds shortened steps here, and stays 0 without a line search. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/contact/nsn.h"
#include "check.h"

#define NC 24
#define M (3 * NC)
#define STEPS 12

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

typedef struct problem {
  double W[M * M], hab[M], d[M], hqt[M], mu[NC];
} problem;

/* frictionless contacts: W on the normal rows only (tangent rows and columns empty) */
static void make(problem *p, unsigned seed) {
  double B[NC][NC];
  memset(p, 0, sizeof *p);
  for (int i = 0; i < NC; i++)
    for (int k = 0; k < NC; k++) B[i][k] = rnd(&seed);
  for (int i = 0; i < NC; i++)
    for (int j = 0; j < NC; j++) {
      double acc = i == j ? 1e-3 : 0.0;
      for (int k = 0; k < NC; k++) acc += B[i][k] * B[j][k] / NC;
      p->W[(3 * i) * M + 3 * j] = acc * 1e-3; /* m/N: h^2 W ~ 0.1 mm per kN */
    }
  for (int i = 0; i < NC; i++) p->hab[3 * i] = rnd(&seed) < 0.6 ? -0.5 * rnd(&seed) : 0.2 * rnd(&seed);
}

/* Newton steps at a fixed b (hq = hab + h^2 W lambda); the merits before each step and the
   largest |lambda|; ls: the line searches' outcomes (full step, shorter, none: sim_nsn_stats),
   and the steps taken (not stopped by newton_tol). */
static double run(const problem *p, int line_search, int cr_iters, double merit[STEPS + 1],
                  int ls[4]) {
  sim_nsn_options o = sim_default_nsn_options();
  o.h = 0.01;
  o.cr_iters = cr_iters;
  o.line_search = line_search;
  o.warm_start = 0;
  sim_nsn s;
  double hq[M], wl[M], lmax = 0.0;
  CHECK_INT(sim_nsn_init(&s, &o), 0);
  CHECK_INT(sim_nsn_begin_step(&s, NC, p->W, p->mu, NULL, p->d, p->hqt, NULL), 0);
  for (int k = 0; k <= STEPS; k++) {
    sim_nsn_w_apply(&s, sim_nsn_force(&s), wl);
    for (int i = 0; i < M; i++) hq[i] = p->hab[i] + o.h * o.h * wl[i];
    CHECK(sim_nsn_iterate_w(&s, hq, p->hab, wl) >= 0);
    merit[k] = s.stats.merit;
    ls[3] += !s.stats.converged;
  }
  ls[0] += s.stats.ls.full;
  ls[1] += s.stats.ls.shorter;
  ls[2] += s.stats.ls.none;
  for (int i = 0; i < M; i++) lmax = fmax(lmax, fabs(sim_nsn_lambda(&s)[i]));
  sim_nsn_destroy(&s);
  return lmax;
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  static problem p;
  int rises_full = 0, rises_ls = 0, ls_off[4] = {0}, ls_on[4] = {0};
  double worst_full = 0.0, last_ls = 0.0, first = 0.0;
  for (unsigned seed = 1; seed <= 20; seed++) {
    make(&p, seed);
    double mf[STEPS + 1], ml[STEPS + 1];
    run(&p, 0, 2, mf, ls_off);
    double lmax = run(&p, 8, 2, ml, ls_on);
    CHECK(isfinite(lmax));
    for (int k = 1; k <= STEPS; k++) {
      rises_full += mf[k] > mf[k - 1] * (1.0 + 1e-9) + 1e-24; /* beyond rounding */
      rises_ls += ml[k] > ml[k - 1] * (1.0 + 1e-9) + 1e-24;
      worst_full = fmax(worst_full, mf[k] / mf[0]);
    }
    first += ml[0];
    last_ls += ml[STEPS];
  }
  printf("full step: merit rose in %d of %d Newton steps, up to %.3g x its start\n", rises_full,
         20 * STEPS, worst_full);
  printf("line search: merit rose in %d steps; summed merit %.3g -> %.3g after %d steps\n",
         rises_ls, first, last_ls, STEPS);
  printf("line search's outcomes: full step %d, shorter %d, none %d of %d steps\n", ls_on[0],
         ls_on[1], ls_on[2], ls_on[3]);
  CHECK(rises_full > 0); /* the problems are hard enough to need it */
  /* every step taken is counted once, and some were shortened; none without a search */
  CHECK_INT(ls_on[0] + ls_on[1] + ls_on[2], ls_on[3]);
  CHECK(ls_on[0] > 0 && ls_on[1] + ls_on[2] > 0);
  CHECK_INT(ls_off[0] + ls_off[1] + ls_off[2], 0);
  CHECK_INT(rises_ls, 0);
  CHECK(last_ls < 1e-8 * first);
  CHECK_INT(sim_mem_in_use(), mem0);
  return check_summary("test_nsn_line_search");
}

/* SPDX-License-Identifier: MIT */
/* The scaling of the exact Newton system (core/contact/nsn_exact.h sim_nsn_exact_prepare) at a
   sliding contact whose normal force is nearly 0. There the friction rows' e = |u| / |lambda_f|
   grows as 1 / lambda_n, and so does d phi_f / d lambda_n = e_n lambda_f, while the normal
   row's entries stay as they were. Scaled by |J_rr|^(-1/2) on both sides, as a Jacobi
   preconditioner scales a symmetric system, the friction row's entry in the normal column grew
   as lambda_n^(-1/2): 1.2e8 at lambda_n 2e-14 on squeezing_ball with
   contact.obstacle_edges, whose GMRES then left the residual where it started (relative
   residual 1.000) and the line search refused every step after (the ball went through a
   roller, docs/results.md *Edges against analytic obstacles*). Where Jacobi's scale would leave
   that entry above the diagonal's 1, the friction row's column now takes the scale that puts it
   at 1, and the row 1 / (|J_rr| times it).
   Checks, for lambda_n from 1 down to 1e-14 (mu 0.5, slip 1e-4 m in a step, lambda_f just
   inside the cone against the slip):
   - the contact's scaled 3 x 3 block (J's rows as GMRES sees them, times the right
     preconditioner) has a condition number (infinity norm) below 100;
   - the other contacts (lambda_n 1 to 1.5, lambda_f half the cone's) keep Jacobi's scale;
   - GMRES with as many iterations as rows solves J dlambda = -phi of 8 contacts coupled through
     a random W to a componentwise backward error below 1e-9: each row's residual
     |(J dlambda + phi)_i| at most 1e-9 of (|J| |dlambda| + |phi|)_i, a measure the rows' own
     scales (e about 1e10 at lambda_n 1e-14) leave alone.
   And with contact 0 separating instead (1 mm apart, lambda_n 1e-5 to 1e-9, still sliding: its
   normal row decoupled, Omega_n below 1e-9, its friction rows active): GMRES leaves that normal
   row at its own solution, bit for bit, and the update takes its lambda_n to 0 exactly. With
   the row's A entries kept GMRES moved it (squeezing_ball with contact.obstacle_edges: 985 of
   1,000 such rows, 107 of them to a lambda_n above 0, down to 2.8e-160 after a few steps). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/gmres.h"
#include "../core/contact/nsn_exact.h"
#include "check.h"

#define NC 8
#define M (3 * NC)

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

typedef struct system {
  double W[M * M], jac[NC * SIM_NSN_JAC], t[M];
  double h;
} system_t;

/* y = J x from the blocks (nsn.c exact_apply with a dense W) */
static void apply(void *ctx, const double *x, double *y) {
  system_t *s = (system_t *)ctx;
  for (int i = 0; i < M; i++) {
    double acc = 0.0;
    for (int k = 0; k < M; k++) acc += s->W[i * M + k] * x[k];
    s->t[i] = acc;
  }
  for (int j = 0; j < NC; j++)
    sim_nsn_exact_rows(s->jac + SIM_NSN_JAC * j, s->h * s->h, s->t + 3 * j, x + 3 * j, y + 3 * j);
}

/* y = |J| |x| entry by entry (|A| h^2 |W| |x| + |L| |x|), for the componentwise backward error */
static void apply_abs(const system_t *s, const double *x, double *y) {
  double t[M];
  for (int i = 0; i < M; i++) {
    double acc = 0.0;
    for (int k = 0; k < M; k++) acc += fabs(s->W[i * M + k] * x[k]);
    t[i] = acc;
  }
  for (int j = 0; j < NC; j++)
    for (int r = 0; r < 3; r++) {
      const double *J = s->jac + SIM_NSN_JAC * j + 3 * r;
      double acc = 0.0;
      for (int c = 0; c < 3; c++)
        acc += s->h * s->h * fabs(J[c]) * t[3 * j + c] + fabs(J[9 + c] * x[3 * j + c]);
      y[3 * j + r] = acc;
    }
}

/* infinity-norm condition number of a 3 x 3 matrix (0 if singular) */
static double cond3(const double a[9]) {
  double inv[9];
  if (sim_inv3(a, inv) == 0.0) return 0.0; /* base/mathx.h */
  double na = 0.0, ni = 0.0;
  for (int r = 0; r < 3; r++) {
    double sa = 0.0, si = 0.0;
    for (int c = 0; c < 3; c++) sa += fabs(a[3 * r + c]), si += fabs(inv[3 * r + c]);
    na = fmax(na, sa), ni = fmax(ni, si);
  }
  return na * ni;
}

/* One system with contact 0's lambda_n = ln, touching (sep 0) or 1 mm apart (sep 1): returns the
   scaled block's condition number of contact 0, GMRES's componentwise backward error in *rel,
   and (sep) whether its normal row kept its start and the update's lambda_n there in *ln_after. */
static double run(double ln, int sep, double *rel, int *kept, double *ln_after) {
  static system_t s;
  const double h = 0.01, mu = 0.5;
  double B[M * M], d[M], hq[M], hqt[M], w[M], lam[M], comp[NC], mus[NC];
  double phi[M], rhs[M], pc[M], x[M], jac0[NC * SIM_NSN_JAC], gwork[8 * M * M];
  s.h = h;
  for (int i = 0; i < M * M; i++) B[i] = urand();
  for (int i = 0; i < M; i++)
    for (int k = 0; k < M; k++) {
      double acc = 0.0;
      for (int l = 0; l < M; l++) acc += B[i * M + l] * B[k * M + l];
      s.W[i * M + k] = acc / M + (i == k ? 0.5 : 0.0);
    }
  for (int j = 0; j < NC; j++) {
    const int i = 3 * j;
    comp[j] = -1.0, mus[j] = mu;
    for (int a = 0; a < 3; a++) {
      w[i + a] = s.W[(i + a) * M + i + a];
      d[i + a] = 1e-4 * urand();
      hqt[i + a] = 1e-4 * urand();
    }
    /* the slip u = hq - hqt - h d on the tangent rows, 1e-4 m, any direction */
    const double ang = 3.0 * urand(), u[2] = {1e-4 * cos(ang), 1e-4 * sin(ang)};
    const double n = j == 0 ? ln : 1.0 + urand() * 0.5, k = j == 0 ? 0.999 : 0.5;
    hq[i] = d[i] + (j == 0 && sep ? 1e-3 : 1e-6 * urand()); /* touching, or apart */
    lam[i] = n;
    for (int a = 0; a < 2; a++) {
      hq[i + 1 + a] = hqt[i + 1 + a] + h * d[i + 1 + a] + u[a];
      lam[i + 1 + a] = -k * mu * n * u[a] / 1e-4;
    }
  }
  double blk = 0.0;
  for (int j = 0; j < NC; j++) {
    const int i = 3 * j;
    double om[3], ee[3], *J = s.jac + SIM_NSN_JAC * j;
    sim_nsn_contact_ncp(SIM_NCP_FISCHER_BURMEISTER, h, comp[j], mus[j], 0.0, d + i, hq + i, hqt + i,
                        w + i, lam + i, phi + i, om, ee);
    sim_nsn_exact_contact(SIM_NCP_FISCHER_BURMEISTER, h, comp[j], mus[j], d + i, hq + i, hqt + i,
                          w + i, lam + i, om, ee, J);
    memcpy(jac0 + SIM_NSN_JAC * j, J, sizeof(double) * SIM_NSN_JAC);
    sim_nsn_exact_prepare(J, h * h, w + i, comp[j] < 0.0, 1, phi + i, rhs + i, pc + i, x + i);
    for (int r = 0; j > 0 && r < 3; r++) { /* the others keep Jacobi's scale, |J_rr|^(-1/2) */
      const double *J0 = jac0 + SIM_NSN_JAC * j, a = J0[4 * r];
      const double dg = fabs(h * h * w[i + r] + J0[9 + 4 * r] / a); /* each row over A_rr */
      CHECK_NEAR(pc[i + r] * sqrt(dg), 1.0, 1e-12);
    }
    if (j == 0) { /* the block GMRES works on: (h^2 A W_jj + L) diag(pc) */
      double a[9];
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double acc = J[9 + 3 * r + c];
          for (int k = 0; k < 3; k++) acc += h * h * J[3 * r + k] * s.W[(i + k) * M + i + c];
          a[3 * r + c] = acc * pc[i + c];
        }
      blk = cond3(a);
    }
  }
  const double x0 = x[0];
  CHECK(sim_gmres_solve(M, apply, &s, pc, rhs, x, M, M, 0.0, gwork, NULL) >= 0);
  double out[3];
  sim_nsn_contact_update(comp[0], mu, 0.0, lam, x, 1.0, out);
  *kept = x[0] == x0;
  *ln_after = out[0];
  /* J's own rows, but for the decoupled rows' A entries, which the step drops (as the lagged
     system does): their Omega is second order in lambda_n and only moved the step off the root */
  for (int k = 0; k < NC * SIM_NSN_JAC; k += 3)
    if (k % SIM_NSN_JAC < 9 && s.jac[k] == 0.0 && s.jac[k + 1] == 0.0 && s.jac[k + 2] == 0.0)
      jac0[k] = jac0[k + 1] = jac0[k + 2] = 0.0;
  memcpy(s.jac, jac0, sizeof jac0);
  double r[M], ra[M];
  apply(&s, x, r);
  apply_abs(&s, x, ra);
  *rel = 0.0;
  for (int i = 0; i < M; i++) *rel = fmax(*rel, fabs(r[i] + phi[i]) / (ra[i] + fabs(phi[i])));
  return blk;
}

int main(void) {
  srand(7);
  const double lns[] = {1.0, 1e-4, 1e-8, 1e-12, 1e-14};
  double worst_cond = 0.0, worst_rel = 0.0, ln_after;
  int kept;
  for (size_t k = 0; k < sizeof lns / sizeof lns[0]; k++)
    for (int rep = 0; rep < 10; rep++) {
      double rel, c = run(lns[k], 0, &rel, &kept, &ln_after);
      CHECK(c > 0.0 && c < 100.0);
      CHECK(rel < 1e-9);
      worst_cond = fmax(worst_cond, c), worst_rel = fmax(worst_rel, rel);
      if (rep == 0)
        printf("lambda_n %.0e: scaled block's condition number %.3g, GMRES backward error %.2e\n",
               lns[k], c, rel);
    }
  printf("worst: condition number %.3g, backward error %.2e\n", worst_cond, worst_rel);
  const double seps[] = {1e-5, 1e-7, 1e-9};
  int moved = 0, above = 0;
  for (size_t k = 0; k < sizeof seps / sizeof seps[0]; k++)
    for (int rep = 0; rep < 10; rep++) {
      double rel;
      run(seps[k], 1, &rel, &kept, &ln_after);
      CHECK(kept);
      CHECK(ln_after == 0.0);
      CHECK(rel < 1e-9);
      worst_rel = fmax(worst_rel, rel);
      moved += !kept, above += ln_after != 0.0;
    }
  printf(
      "separating contact: normal row moved off its start in %d of 30, lambda_n left above 0 "
      "in %d; backward error %.2e at worst\n",
      moved, above, worst_rel);
  return check_summary("test_nsn_exact_scaling");
}

/* SPDX-License-Identifier: MIT */
/* 3x3 SVD and polar rotation on random, near-singular, degenerate and inverted matrices. */
#include <stdlib.h>

#include "../core/solve/svd3.h"
#include "check.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* max |A - B| entries */
static double maxdiff(const double *a, const double *b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static void check_rotation(const double R[9], double tol) {
  double RtR[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      RtR[3 * i + j] = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(maxdiff(RtR, I, 9) < tol);
  CHECK_NEAR(sim_det3(R), 1.0, tol);
}

/* F = U diag(s) V^T reconstructs, U and V are rotations, s sorted with the sign on s[2]. */
static void check_svd(const double F[9], double tol) {
  double U[9], s[3], V[9], G[9];
  sim_svd3(F, U, s, V);
  check_rotation(U, 1e-12);
  check_rotation(V, 1e-12);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      G[3 * i + j] = U[3 * i] * s[0] * V[3 * j] + U[3 * i + 1] * s[1] * V[3 * j + 1] +
                     U[3 * i + 2] * s[2] * V[3 * j + 2];
  double scale = 0;
  for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(F[i]));
  CHECK(maxdiff(F, G, 9) <= tol * (scale + 1e-300) || scale == 0);
  CHECK(s[0] >= s[1] && s[1] >= fabs(s[2]) - 1e-12 * (scale + 1e-300));
  double d = sim_det3(F);
  if (fabs(d) > 1e-9 * scale * scale * scale) CHECK((s[2] < 0) == (d < 0));
}

int main(void) {
  srand(42);
  for (int t = 0; t < 2000; t++) {
    double F[9];
    for (int i = 0; i < 9; i++) F[i] = urand();
    check_svd(F, 1e-11);
    double R[9];
    sim_polar_rotation(F, R);
    check_rotation(R, 1e-12);
  }
  /* near-singular and rank-deficient: rank 2, rank 1, zero, and tiny singular values */
  double rank2[9] = {1, 2, 3, 2, 4.5, 1, 3, 6.5, 4}; /* row 3 = row 1 + row 2 */
  double rank1[9] = {1, 2, 3, 2, 4, 6, -1, -2, -3};
  double zero[9] = {0};
  double tiny[9] = {1, 0, 0, 0, 1e-9, 0, 0, 0, 1e-14};
  check_svd(rank2, 1e-10);
  check_svd(rank1, 1e-10);
  check_svd(zero, 1e-12);
  check_svd(tiny, 1e-12);
  double R[9];
  sim_polar_rotation(rank1, R);
  check_rotation(R, 1e-12);
  sim_polar_rotation(zero, R);
  check_rotation(R, 1e-12);
  /* inverted: a reflection's closest rotation flips the smallest singular direction */
  double refl[9] = {1, 0, 0, 0, 1, 0, 0, 0, -0.5};
  check_svd(refl, 1e-12);
  sim_polar_rotation(refl, R);
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(maxdiff(R, I, 9) < 1e-12);
  /* a rotation times a stretch: the polar rotation recovers the rotation */
  double c = cos(0.7), s = sin(0.7);
  double Q[9] = {c, -s, 0, s, c, 0, 0, 0, 1}, P[9] = {2, 0.3, 0, 0.3, 1, 0.1, 0, 0.1, 0.5}, F[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      F[3 * i + j] = Q[3 * i] * P[j] + Q[3 * i + 1] * P[3 + j] + Q[3 * i + 2] * P[6 + j];
  sim_polar_rotation(F, R);
  CHECK(maxdiff(R, Q, 9) < 1e-12);
  /* inverted random matrices */
  for (int t = 0; t < 500; t++) {
    double G[9];
    for (int i = 0; i < 9; i++) G[i] = urand();
    if (sim_det3(G) > 0)
      for (int j = 0; j < 3; j++) G[j] = -G[j];
    check_svd(G, 1e-11);
  }
  return check_summary("test_svd3");
}

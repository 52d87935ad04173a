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

/* S = V diag(e) V^T for a symmetric S, V a rotation or reflection with orthonormal columns. */
static void check_eig(const double S[9], double tol) {
  double e[3], V[9];
  sim_sym_eig3(S, e, V);
  double scale = 0, VtV[9], I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 0; i < 9; i++) scale = fmax(scale, fabs(S[i]));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double r = 0;
      for (int k = 0; k < 3; k++) r += V[3 * i + k] * e[k] * V[3 * j + k];
      CHECK(fabs(r - S[3 * i + j]) <= tol * scale);
      VtV[3 * i + j] = V[i] * V[j] + V[3 + i] * V[3 + j] + V[6 + i] * V[6 + j];
    }
  CHECK(maxdiff(VtV, I, 9) < 1e-14);
}

/* 2^k F has F's SVD with s scaled by 2^k, to the bit: the rotations see F scaled to order 1. */
static void check_scaled(const double F[9], int k) {
  double G[9], U[9], s[3], V[9], Ug[9], sg[3], Vg[9];
  for (int i = 0; i < 9; i++) G[i] = ldexp(F[i], k);
  sim_svd3(F, U, s, V);
  sim_svd3(G, Ug, sg, Vg);
  CHECK(maxdiff(U, Ug, 9) == 0 && maxdiff(V, Vg, 9) == 0);
  for (int i = 0; i < 3; i++) CHECK(sg[i] == ldexp(s[i], k));
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
  /* the eigen-decomposition alone: random symmetric (indefinite) matrices, repeated and
     nearly repeated eigenvalues, equal diagonals (each rotation at 45 degrees), a zero
     diagonal */
  for (int t = 0; t < 2000; t++) {
    double S[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j <= i; j++) S[3 * i + j] = S[3 * j + i] = urand();
    check_eig(S, 1e-14);
  }
  double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1},
         near[9] = {1, 1e-9, 0, 1e-9, 1 + 1e-12, 1e-10, 0, 1e-10, 1};
  double equal[9] = {2, 1, -1, 1, 2, 0.5, -1, 0.5, 2}, hollow[9] = {0, 1, 2, 1, 0, 3, 2, 3, 0};
  check_eig(eye, 1e-15);
  check_eig(near, 1e-15);
  check_eig(equal, 1e-14);
  check_eig(hollow, 1e-14);
  /* any scale, to the bit, where a ratio of entries formed first would overflow or underflow */
  double Pm[9] = {1.5, 0.2, -0.1, 0.3, 0.9, 0.05, -0.2, 0.1, 1.1};
  for (int k = -1000; k <= 1000; k += 125) check_scaled(Pm, k);
  check_scaled(tiny, 600);
  double big[9];
  for (int i = 0; i < 9; i++) big[i] = ldexp(Pm[i], 1000);
  check_svd(big, 1e-11);
  /* a NaN or infinite entry: NaN out, not a finite answer */
  double bad[9] = {1, 0, 0, 0, 1, NAN, 0, NAN, 1}, ev[3], Vb[9];
  sim_sym_eig3(bad, ev, Vb);
  CHECK(isnan(ev[0]) && isnan(ev[1]) && isnan(ev[2]) && isnan(Vb[0]));
  bad[5] = bad[7] = INFINITY;
  sim_sym_eig3(bad, ev, Vb);
  CHECK(isnan(ev[0]) && isnan(Vb[4]));
  return check_summary("test_svd3");
}

/* SPDX-License-Identifier: MIT */
/* Robust 3x3 SVD and polar rotation for host and device (row-major double[9]).
   F = U diag(s) V^T with U, V proper rotations (det +1); s[0] >= s[1] >= |s[2]|, and s[2] < 0
   when det F < 0 (an inverted element): the sign is moved to the smallest singular value, so
   R = U V^T is the closest rotation to F (the ARAP projection, Eq. 5, zeta = rotations).
   Method: cyclic Jacobi on F^T F for V, then U's columns by Gram-Schmidt on F V, the third
   as a cross product, which stays orthonormal for rank-deficient F. */
#ifndef SIM_SVD3_H
#define SIM_SVD3_H
#include "../base/mathx.h"

/* Eigen-decomposition of a symmetric 3x3 S (row-major): S = V diag(e) V^T, V columns. */
SIM_HD void sim_sym_eig3(const double S[9], double e[3], double V[9]) {
  double a[9];
  for (int i = 0; i < 9; i++) a[i] = S[i];
  for (int i = 0; i < 9; i++) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 32; sweep++) {
    double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    double diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (off <= 1e-34 * diag || off == 0.0) break;
    for (int pq = 0; pq < 3; pq++) {
      int p = pq == 2 ? 1 : 0, q = pq == 0 ? 1 : 2;
      double apq = a[3 * p + q];
      if (apq == 0.0) continue;
      double app = a[3 * p + p], aqq = a[3 * q + q];
      double theta = (aqq - app) / (2.0 * apq);
      double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
      double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
      /* a <- J^T a J with J the Givens rotation in the (p, q) plane */
      for (int k = 0; k < 3; k++) {
        double akp = a[3 * k + p], akq = a[3 * k + q];
        a[3 * k + p] = c * akp - s * akq;
        a[3 * k + q] = s * akp + c * akq;
      }
      for (int k = 0; k < 3; k++) {
        double apk = a[3 * p + k], aqk = a[3 * q + k];
        a[3 * p + k] = c * apk - s * aqk;
        a[3 * q + k] = s * apk + c * aqk;
      }
      for (int k = 0; k < 3; k++) {
        double vkp = V[3 * k + p], vkq = V[3 * k + q];
        V[3 * k + p] = c * vkp - s * vkq;
        V[3 * k + q] = s * vkp + c * vkq;
      }
    }
  }
  e[0] = a[0];
  e[1] = a[4];
  e[2] = a[8];
}

/* Unit vector perpendicular to u (unit). */
SIM_HD void sim_any_perp3(const double u[3], double p[3]) {
  double ax = fabs(u[0]), ay = fabs(u[1]), az = fabs(u[2]);
  double t[3] = {0, 0, 0};
  if (ax <= ay && ax <= az) t[0] = 1;
  else if (ay <= az) t[1] = 1;
  else t[2] = 1;
  sim_cross3(u, t, p);
  double n = sim_norm3(p);
  for (int k = 0; k < 3; k++) p[k] /= n;
}

SIM_HD void sim_svd3(const double F[9], double U[9], double s[3], double V[9]) {
  double FtF[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      FtF[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
  double e[3];
  sim_sym_eig3(FtF, e, V);
  /* sort eigenpairs descending */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (e[j] < e[j + 1]) {
        double te = e[j];
        e[j] = e[j + 1];
        e[j + 1] = te;
        for (int k = 0; k < 3; k++) {
          double tv = V[3 * k + j];
          V[3 * k + j] = V[3 * k + j + 1];
          V[3 * k + j + 1] = tv;
        }
      }
  if (sim_det3(V) < 0)
    for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
  /* columns of F V */
  double fv[3][3];
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++)
      fv[j][i] = F[3 * i] * V[j] + F[3 * i + 1] * V[3 + j] + F[3 * i + 2] * V[6 + j];
  double scale = sqrt(e[0] > 0 ? e[0] : 0) + 1e-300;
  double u0[3], u1[3], u2[3];
  double n0 = sim_norm3(fv[0]);
  if (n0 > 1e-15 * scale && n0 > 0) {
    for (int k = 0; k < 3; k++) u0[k] = fv[0][k] / n0;
  } else {
    u0[0] = 1; u0[1] = 0; u0[2] = 0;
  }
  double d = sim_dot3(u0, fv[1]);
  for (int k = 0; k < 3; k++) u1[k] = fv[1][k] - d * u0[k];
  double n1 = sim_norm3(u1);
  if (n1 > 1e-12 * scale && n1 > 0) {
    for (int k = 0; k < 3; k++) u1[k] /= n1;
  } else {
    sim_any_perp3(u0, u1);
  }
  sim_cross3(u0, u1, u2);
  for (int k = 0; k < 3; k++) {
    U[3 * k] = u0[k];
    U[3 * k + 1] = u1[k];
    U[3 * k + 2] = u2[k];
  }
  s[0] = sim_dot3(u0, fv[0]);
  s[1] = sim_dot3(u1, fv[1]);
  s[2] = sim_dot3(u2, fv[2]); /* signed: negative for inverted F */
}

/* Closest rotation R = U V^T (det +1) to F. */
SIM_HD void sim_polar_rotation(const double F[9], double R[9]) {
  double U[9], s[3], V[9];
  sim_svd3(F, U, s, V);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = U[3 * i] * V[3 * j] + U[3 * i + 1] * V[3 * j + 1] + U[3 * i + 2] * V[3 * j + 2];
}

#endif

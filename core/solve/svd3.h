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

/* One Jacobi rotation of a symmetric 3x3 a, given by its entries a_pp, a_qq, a_pq and a_rp, a_rq
   (r the third index), in the (p, q) plane: the rotation J that zeroes b = a_pq, a <- J^T a J,
   accumulated into V's columns (V <- V J). The angle from d = a_qq - a_pp and b without dividing
   one by the other first: tan(phi) = 2 b sgn(d) / (|d| + sqrt(d^2 + 4 b^2)), the smaller of the
   two angles that zero a_pq (the classical theta = d / (2 b) form, Numerical Recipes Sec. 11.1),
   cos and sin from one division, so that a rotation waits on two square roots and a division in
   turn, not on five such operations. The diagonal moves by t b (the accurate form) and a_pq
   becomes 0 exactly. Nothing is done where b^2 <= b2min: an entry the sweep's convergence test
   already counts as zero (sim_jacobi3). The entries must be of order 1 (sim_sym_eig3 and
   sim_svd3 scale them) and b2min >= 1e-300, so that d^2 + 4 b^2 neither overflows nor
   underflows. */
SIM_HD void sim_jacobi_rot3(double *app, double *aqq, double *apq, double *arp, double *arq,
                            double V[9], int p, int q, double b2min) {
  const double b = *apq;
  if (!(b * b > b2min)) return;
  const double d = *aqq - *app, b2 = 2.0 * (d >= 0.0 ? b : -b);
  const double r2 = sqrt(d * d + b2 * b2), u = fabs(d) + r2; /* u >= r2 > 0 */
  const double iw = 1.0 / sqrt(u * u + b2 * b2);
  const double c = u * iw, s = b2 * iw, rp = *arp, rq = *arq;
  const double t = b2 / u; /* after c and s: a GPU then takes fewer registers */
  *app -= t * b;
  *aqq += t * b;
  *apq = 0.0;
  *arp = c * rp - s * rq;
  *arq = s * rp + c * rq;
  for (int k = 0; k < 3; k++) {
    const double vkp = V[3 * k + p], vkq = V[3 * k + q];
    V[3 * k + p] = c * vkp - s * vkq;
    V[3 * k + q] = s * vkp + c * vkq;
  }
}

/* Cyclic Jacobi on a symmetric 3x3 given by its six entries a (a00, a11, a22, a01, a02, a12; of
   order 1, overwritten): pairs (0,1), (0,2), (1,2) a sweep until the off-diagonal's sum of
   squares is at most 1e-34 of the diagonal's, at most 32 sweeps (2-3 on the squeezing ball's
   elements); within a sweep, an entry whose square is at most a third of that bound is not
   rotated away (the last sweep's entries are often that small already). V (9, row-major) gets
   the eigenvectors as columns, e the eigenvalues (a's diagonal at the end). A NaN entry ends it
   at the first test (e then carries NaN where the diagonal does). */
SIM_HD void sim_jacobi3(double a[6], double e[3], double V[9]) {
  double a00 = a[0], a11 = a[1], a22 = a[2], a01 = a[3], a02 = a[4], a12 = a[5];
  for (int i = 0; i < 9; i++) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 32; sweep++) {
    const double off = a01 * a01 + a02 * a02 + a12 * a12;
    const double diag = a00 * a00 + a11 * a11 + a22 * a22;
    if (!(off > 1e-34 * diag)) break; /* also where off == 0 */
    const double b2min = diag > 3e-266 ? 1e-34 / 3.0 * diag : 1e-300;
    sim_jacobi_rot3(&a00, &a11, &a01, &a02, &a12, V, 0, 1, b2min); /* r = 2 */
    sim_jacobi_rot3(&a00, &a22, &a02, &a01, &a12, V, 0, 2, b2min); /* r = 1: a10, a12 */
    sim_jacobi_rot3(&a11, &a22, &a12, &a01, &a02, V, 1, 2, b2min); /* r = 0: a01, a02 */
  }
  e[0] = a00;
  e[1] = a11;
  e[2] = a22;
}

/* Eigen-decomposition of a symmetric 3x3 S (row-major): S = V diag(e) V^T, V's columns the
   eigenvectors, by sim_jacobi3 on S scaled by a power of two (exact) that brings its largest
   entry into [1/2, 1), so that the rotations work at any scale; e is scaled back. An infinite or
   NaN entry gives NaN in every e and V. */
SIM_HD void sim_sym_eig3(const double S[9], double e[3], double V[9]) {
  double m = 0.0, sum = 0.0;
  for (int i = 0; i < 9; i++) {
    m = fabs(S[i]) > m ? fabs(S[i]) : m;
    sum += S[i];
  }
  if (!(m < INFINITY) || sum != sum) { /* an infinite or NaN entry */
    for (int i = 0; i < 9; i++) V[i] = NAN;
    e[0] = e[1] = e[2] = NAN;
    return;
  }
  double down, up;
  sim_pow2_scales(m, &down, &up);
  double a[6] = {S[0] * down, S[4] * down, S[8] * down, S[1] * down, S[2] * down, S[5] * down};
  sim_jacobi3(a, e, V);
  for (int k = 0; k < 3; k++) e[k] *= up;
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

SIM_HD void sim_svd3(const double F0[9], double U[9], double s[3], double V[9]) {
  /* F0 scaled by a power of two to entries of order 1 (exact), so that F^T F neither overflows
     nor underflows; s is scaled back at the end, so 2^k F0 has the SVD of F0 to the bit */
  double m = 0.0, F[9];
  for (int i = 0; i < 9; i++) m = fabs(F0[i]) > m ? fabs(F0[i]) : m;
  double down, up;
  sim_pow2_scales(m, &down, &up);
  for (int i = 0; i < 9; i++) F[i] = F0[i] * down;
  /* F^T F's six entries: (i, j) = (0,0), (1,1), (2,2), (0,1), (0,2), (1,2) */
  double a[6], e[3];
  for (int k = 0; k < 6; k++) {
    const int i = k < 3 ? k : k < 5 ? 0 : 1, j = k < 3 ? k : k < 4 ? 1 : 2;
    a[k] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
  }
  sim_jacobi3(a, e, V); /* of order 1 already (a NaN in F: NaN in s) */
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
  for (int k = 0; k < 3; k++) s[k] *= up;
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

/* SPDX-License-Identifier: MIT */
/* Hyperelastic materials for ADMM-PD (Overby et al. 2017) in the signed singular values,
   shared by host and device: energy densities, PK1 stress, the per-element ADMM local
   problem z_i = argmin V Psi(z) + w/2 |z - y|^2 (DESIGN Sec. 4) and the ADMM weight.
   Tetrahedra (dim 3): F is 3x3, signed SVD of svd3.h (the sign of an inverted element sits on
   the smallest singular value). Cloth triangles (dim 2): F is 3x2, stored row-major as 3x3 with
   a zero third column; its singular values are >= 0 (a 3x2 map has no orientation) and come from
   the thin SVD below, so V's third column is exactly e3 even for rank-deficient F.
   Models (Psi(I) = 0, P(I) = 0, and each matches linear elasticity
   mu eps:eps + lambda/2 tr(eps)^2 at small strain, mu and lambda the linear Lame parameters):
   - ARAP:         Psi = mu sum_i (s_i - 1)^2 = mu |F - R(F)|^2 (lambda unused).
   - corotational: Psi = mu sum_i (s_i - 1)^2 + lambda/2 (sum_i s_i - d)^2 (linear corotated).
   - Neo-Hookean:  stable Neo-Hookean of Smith, de Goes, Kim 2018 (Eq. 14 and Sec. 3.4),
       Psi = mu'/2 (I_C - d) + lambda'/2 (J - alpha)^2 - mu'/2 log((I_C + 1)/(d + 1)) - c0,
       I_C = sum s_i^2, J = prod s_i (signed), c0 = lambda'/2 (1 - alpha)^2 so that Psi(I) = 0.
       P(I) = 0 gives alpha = 1 + (d/(d+1)) mu'/lambda'; matching the rest Hessian
       2 mu I + lambda 11^T gives mu' = (d+1)/d mu, lambda' = lambda + (1 - 2/(d(d+1))) mu:
         d = 3: mu' = 4/3 mu, lambda' = lambda + 5/6 mu, alpha = 1 + 3/4 mu'/lambda' (the paper's);
         d = 2: mu' = 3/2 mu, lambda' = lambda + 2/3 mu, alpha = 1 + 2/3 mu'/lambda'.
       Expanded (finite for lambda' = 0, alpha never formed; (d/(d+1)) mu' = mu):
       Psi = mu'/2 [(I_C - d) - log(1 + (I_C - d)/(d+1))] + lambda'/2 (J - 1)^2 - mu (J - 1),
       smooth for every s, inverted (J <= 0) included, since I_C + 1 >= 1. */
#ifndef SIM_MATERIAL_H
#define SIM_MATERIAL_H
#include "../scene/scene.h"
#include "svd3.h"

#define SIM_ADMM_MAX_ITERS 64 /* iteration cap of the local problem (typically 1-5 are used) */
#define SIM_ADMM_GTOL 1e-12   /* stop when |grad| <= GTOL (w |sigma_Y| + V |grad Psi|) */
#define SIM_ADMM_LS_MAX 40    /* backtracking halvings per line search */

typedef struct sim_material {
  sim_material_model model;
  int dim;           /* 3: tetrahedron, F is 3x3; 2: cloth triangle, F is 3x2 stored row-major as
                        3x3 with a zero third column */
  double mu, lambda; /* Lame parameters (for dim 2 the plane-stress lambda) */
} sim_material;

/* Lame parameters from Young's modulus and Poisson ratio; dim 2 uses plane stress
   (lambda* = 2 mu lambda / (lambda + 2 mu) = E nu / (1 - nu^2)). */
SIM_HD void sim_material_lame(double E, double nu, int dim, double *mu, double *lambda) {
  *mu = E / (2.0 * (1.0 + nu));
  if (dim == 2)
    *lambda = E * nu / ((1.0 - nu) * (1.0 + nu));
  else
    *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

/* Stable Neo-Hookean constants mu', lambda' of the header comment for dimension d. */
SIM_HD void sim_snh_constants(const sim_material *m, double *mu_s, double *lambda_s) {
  double d = m->dim == 2 ? 2.0 : 3.0;
  *mu_s = (d + 1.0) / d * m->mu;
  *lambda_s = m->lambda + (1.0 - 2.0 / (d * (d + 1.0))) * m->mu;
}

/* Energy density Psi in the signed singular values s (dim entries used), optional gradient and
   Hessian (dim x dim in a 3x3 row-major array, zero elsewhere; NULL to skip). Computed from
   e_i = s_i - 1 so that Psi stays accurate near rest. */
SIM_HD double sim_psi_sigma(const sim_material *m, const double s[3], double grad[3],
                            double hess[9]) {
  int d = m->dim == 2 ? 2 : 3;
  double e[3] = {s[0] - 1.0, s[1] - 1.0, d == 3 ? s[2] - 1.0 : 0.0};
  double g[3] = {0, 0, 0}, H[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  double psi = 0.0;
  if (m->model == SIM_MAT_NEOHOOKEAN) {
    double mu_s, lam_s;
    sim_snh_constants(m, &mu_s, &lam_s);
    double x = e[0] * (2.0 + e[0]) + e[1] * (2.0 + e[1]) + e[2] * (2.0 + e[2]); /* I_C - d */
    double jm1, Ji[3], Jij[9]; /* J - 1, dJ/ds, d2J */
    if (d == 2) {
      jm1 = e[0] + e[1] + e[0] * e[1];
      Ji[0] = s[1];
      Ji[1] = s[0];
      Ji[2] = 0.0;
      for (int k = 0; k < 9; k++) Jij[k] = 0.0;
      Jij[1] = Jij[3] = 1.0;
    } else {
      jm1 = e[0] + e[1] + e[2] + e[0] * e[1] + e[0] * e[2] + e[1] * e[2] + e[0] * e[1] * e[2];
      Ji[0] = s[1] * s[2];
      Ji[1] = s[0] * s[2];
      Ji[2] = s[0] * s[1];
      Jij[0] = Jij[4] = Jij[8] = 0.0;
      Jij[1] = Jij[3] = s[2];
      Jij[2] = Jij[6] = s[1];
      Jij[5] = Jij[7] = s[0];
    }
    double ic1 = x + d + 1.0; /* I_C + 1 >= 1 */
    psi = 0.5 * mu_s * (x - log1p(x / (d + 1.0))) + 0.5 * lam_s * jm1 * jm1 - m->mu * jm1;
    double r = (x + d) / ic1;       /* 1 - 1/(I_C + 1) */
    double k = lam_s * jm1 - m->mu; /* dPsi/dJ = lambda' (J - alpha) */
    for (int i = 0; i < d; i++) {
      g[i] = mu_s * r * s[i] + k * Ji[i];
      for (int j = 0; j < d; j++)
        H[3 * i + j] = (i == j ? mu_s * r : 0.0) + 2.0 * mu_s * s[i] * s[j] / (ic1 * ic1) +
                       lam_s * Ji[i] * Ji[j] + k * Jij[3 * i + j];
    }
  } else {
    double lam = m->model == SIM_MAT_COROTATIONAL ? m->lambda : 0.0;
    double tr = e[0] + e[1] + e[2];
    psi = m->mu * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) + 0.5 * lam * tr * tr;
    for (int i = 0; i < d; i++) {
      g[i] = 2.0 * m->mu * e[i] + lam * tr;
      for (int j = 0; j < d; j++) H[3 * i + j] = (i == j ? 2.0 * m->mu : 0.0) + lam;
    }
  }
  if (grad)
    for (int i = 0; i < 3; i++) grad[i] = g[i];
  if (hess)
    for (int i = 0; i < 9; i++) hess[i] = H[i];
  return psi;
}

/* Thin SVD of the 3x2 block of F (third column ignored): F = U diag(s0, s1, 0) V^T with
   s0 >= s1 >= 0, U a rotation, V = [V2 0; 0 1] with V2 a 2x2 rotation. V2 diagonalises the 2x2
   F^T F = [a b; b c] in closed form: its first column (cos phi, sin phi), phi in (-pi/2, pi/2]
   the direction of the larger eigenvalue, tan(2 phi) = 2 b / (a - c), from square roots and a
   division alone (no atan2, cos, sin, whose last bits differ between glibc and a GPU's libm):
   tan(phi) = 2 b / (d + r) where d = a - c >= 0, else (r - d) / (2 b), r = sqrt(d^2 + 4 b^2),
   the form without cancellation. F is first scaled by a power of two (exact; s scaled back), so
   that its squares neither overflow nor underflow. U's columns by Gram-Schmidt on F V, the third
   as a cross product, so U stays orthonormal for rank-deficient F. */
SIM_HD void sim_svd32(const double F0[9], double U[9], double s[3], double V[9]) {
  double m = 0.0, F[9];
  for (int i = 0; i < 9; i++) m = (i % 3 < 2 && fabs(F0[i]) > m) ? fabs(F0[i]) : m;
  double down, up;
  sim_pow2_scales(m, &down, &up);
  for (int i = 0; i < 9; i++) F[i] = F0[i] * down;
  double a = 0, b = 0, c = 0;
  for (int k = 0; k < 3; k++) {
    a += F[3 * k] * F[3 * k];
    b += F[3 * k] * F[3 * k + 1];
    c += F[3 * k + 1] * F[3 * k + 1];
  }
  const double d = a - c, b2 = 2.0 * b, r = sqrt(d * d + b2 * b2);
  double cs = 1.0, sn = 0.0; /* r = 0: a = c, b = 0, every direction an eigenvector */
  if (r > 0.0) {
    const double u = fabs(d) + r, iw = 1.0 / sqrt(u * u + b2 * b2);
    if (d >= 0.0) { /* (cos, sin) along (u, 2 b) */
      cs = u * iw;
      sn = b2 * iw;
    } else { /* along (2 b, u), turned so that cos >= 0 */
      cs = (b2 >= 0.0 ? b2 : -b2) * iw;
      sn = (b2 >= 0.0 ? u : -u) * iw;
    }
  }
  double f0[3], f1[3], u0[3], u1[3], u2[3];
  for (int k = 0; k < 3; k++) {
    f0[k] = F[3 * k] * cs + F[3 * k + 1] * sn;
    f1[k] = -F[3 * k] * sn + F[3 * k + 1] * cs;
  }
  double scale = sqrt(a + c) + 1e-300;
  double n0 = sim_norm3(f0);
  if (n0 > 1e-15 * scale && n0 > 0) {
    for (int k = 0; k < 3; k++) u0[k] = f0[k] / n0;
  } else {
    u0[0] = 1;
    u0[1] = 0;
    u0[2] = 0;
  }
  double dd = sim_dot3(u0, f1);
  for (int k = 0; k < 3; k++) u1[k] = f1[k] - dd * u0[k];
  double n1 = sim_norm3(u1);
  if (n1 > 1e-12 * scale && n1 > 0) {
    for (int k = 0; k < 3; k++) u1[k] /= n1;
  } else {
    sim_any_perp3(u0, u1);
  }
  s[0] = sim_dot3(u0, f0);
  s[1] = sim_dot3(u1, f1);
  if (s[1] < 0) { /* rank-deficient: any perpendicular will do, pick the one with s1 >= 0 */
    for (int k = 0; k < 3; k++) u1[k] = -u1[k];
    s[1] = -s[1];
  }
  s[0] *= up;
  s[1] *= up;
  s[2] = 0.0;
  sim_cross3(u0, u1, u2);
  for (int k = 0; k < 3; k++) {
    U[3 * k] = u0[k];
    U[3 * k + 1] = u1[k];
    U[3 * k + 2] = u2[k];
  }
  V[0] = cs;
  V[1] = -sn;
  V[2] = 0;
  V[3] = sn;
  V[4] = cs;
  V[5] = 0;
  V[6] = 0;
  V[7] = 0;
  V[8] = 1;
}

/* The SVD a material of this dimension uses: signed 3x3 (dim 3) or thin 3x2 (dim 2). */
SIM_HD void sim_material_svd(int dim, const double F[9], double U[9], double s[3], double V[9]) {
  if (dim == 2)
    sim_svd32(F, U, s, V);
  else
    sim_svd3(F, U, s, V);
}

/* A = U diag(s) V^T; for dim 2 only s0, s1 count and A's third column is zero. */
SIM_HD void sim_usv(int dim, const double U[9], const double s[3], const double V[9], double A[9]) {
  double t[3] = {s[0], s[1], dim == 2 ? 0.0 : s[2]};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      A[3 * i + j] = U[3 * i] * t[0] * V[3 * j] + U[3 * i + 1] * t[1] * V[3 * j + 1] +
                     U[3 * i + 2] * t[2] * V[3 * j + 2];
  if (dim == 2) A[2] = A[5] = A[8] = 0.0;
}

/* Psi(F) (J/m^3) via the signed SVD; for dim 2 the zero third column is ignored.
   ARAP: mu |F - R(F)|^2, R the closest rotation (dim 2: closest 3x2 with orthonormal columns). */
SIM_HD double sim_psi_F(const sim_material *m, const double F[9]) {
  double U[9], s[3], V[9];
  sim_material_svd(m->dim, F, U, s, V);
  return sim_psi_sigma(m, s, 0, 0);
}

/* First Piola-Kirchhoff stress P = dPsi/dF = U diag(dPsi/ds) V^T (dim 2: third column zero). */
SIM_HD void sim_pk1(const sim_material *m, const double F[9], double P[9]) {
  double U[9], s[3], V[9], g[3];
  sim_material_svd(m->dim, F, U, s, V);
  sim_psi_sigma(m, s, g, 0);
  sim_usv(m->dim, U, g, V, P);
}

/* Coordinates of the chamber of signed singular values C = {s0 >= s1 >= |s2|} (dim 2:
   {s0 >= s1 >= 0}): t_k = a_k . s with the simple roots a = (e0 - e1, e1 - e2, e1 + e2) (dim 2:
   e0 - e1, e1), so that C is the box t >= 0 and s = T t (T row-major 3x3, zero beyond dim). */
SIM_HD void sim_chamber_T(int d, double T[9]) {
  int two = d == 2;
  T[0] = 1.0; /* s0 = t0 + (t1 + t2) / 2   (dim 2: t0 + t1) */
  T[1] = two ? 1.0 : 0.5;
  T[2] = two ? 0.0 : 0.5;
  T[3] = 0.0; /* s1 = (t1 + t2) / 2        (dim 2: t1) */
  T[4] = two ? 1.0 : 0.5;
  T[5] = two ? 0.0 : 0.5;
  T[6] = 0.0; /* s2 = (t2 - t1) / 2 */
  T[7] = two ? 0.0 : -0.5;
  T[8] = two ? 0.0 : 0.5;
}

/* t of the sorted signed singular values s (clamped at 0 against the SVD's roundoff). */
SIM_HD void sim_chamber_t(int d, const double s[3], double t[3]) {
  t[0] = s[0] - s[1];
  t[1] = d == 2 ? s[1] : s[1] - s[2];
  t[2] = d == 2 ? 0.0 : s[1] + s[2];
  for (int k = 0; k < 3; k++)
    if (t[k] < 0.0) t[k] = 0.0;
}

/* Objective of the local problem f = V Psi(s) + w/2 |s - sig|^2 at s = T t (returned in s), its
   gradient T^T g_s and, unless H is NULL, its Hessian T^T H_s T in t (the line search's trials
   need neither); *gscale = w |sig| + V |grad Psi(s)|, the scale of the stopping tolerance. */
SIM_HD double sim_admm_objective(const sim_material *m, double V, double w, const double sig[3],
                                 const double t[3], double s[3], double g[3], double H[9],
                                 double *gscale) {
  int d = m->dim == 2 ? 2 : 3;
  double T[9], gp[3], hp[9], gs[3], Hs[9];
  sim_chamber_T(d, T);
  for (int i = 0; i < 3; i++) s[i] = T[3 * i] * t[0] + T[3 * i + 1] * t[1] + T[3 * i + 2] * t[2];
  double f = V * sim_psi_sigma(m, s, gp, hp);
  double np = 0, ns = 0;
  for (int i = 0; i < 3; i++) {
    double r = i < d ? s[i] - sig[i] : 0.0;
    f += 0.5 * w * r * r;
    gs[i] = i < d ? V * gp[i] + w * r : 0.0;
    np += gp[i] * gp[i];
    ns += i < d ? sig[i] * sig[i] : 0.0;
    for (int j = 0; j < 3; j++)
      Hs[3 * i + j] = (i < d && j < d) ? V * hp[3 * i + j] + (i == j ? w : 0.0) : 0.0;
  }
  for (int k = 0; k < 3; k++) {
    g[k] = T[k] * gs[0] + T[3 + k] * gs[1] + T[6 + k] * gs[2];
    for (int l = 0; l < 3 && H; l++) {
      double h = 0;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) h += T[3 * i + k] * Hs[3 * i + j] * T[3 * j + l];
      H[3 * k + l] = h;
    }
  }
  if (gscale) *gscale = w * sqrt(ns) + V * sqrt(np);
  return f;
}

/* Norm of the projected gradient: components held by their bound (t_k = 0, g_k > 0) dropped. */
SIM_HD double sim_admm_pgrad(int d, const double t[3], const double g[3]) {
  double n = 0.0;
  for (int k = 0; k < d; k++)
    if (!(t[k] <= 0.0 && g[k] > 0.0)) n += g[k] * g[k];
  return sqrt(n);
}

/* Cholesky factor L (lower, row-major) of a symmetric 3x3 A; 0 unless every pivot exceeds
   1e-10 of the largest diagonal entry (A then counts as positive definite for Newton). */
SIM_HD int sim_admm_chol3(const double A[9], double L[9]) {
  double dmax = fmax(fabs(A[0]), fmax(fabs(A[4]), fabs(A[8])));
  double tol = 1e-10 * dmax + 1e-300;
  for (int i = 0; i < 9; i++) L[i] = 0.0;
  for (int j = 0; j < 3; j++) {
    double d = A[4 * j];
    for (int k = 0; k < j; k++) d -= L[3 * j + k] * L[3 * j + k];
    if (!(d > tol)) return 0;
    L[4 * j] = sqrt(d);
    for (int i = j + 1; i < 3; i++) {
      double v = A[3 * i + j];
      for (int k = 0; k < j; k++) v -= L[3 * i + k] * L[3 * j + k];
      L[3 * i + j] = v / L[4 * j];
    }
  }
  return 1;
}

/* x = A^{-1} b from sim_admm_chol3's factor. */
SIM_HD void sim_admm_chol3_solve(const double L[9], const double b[3], double x[3]) {
  double y[3];
  for (int i = 0; i < 3; i++) {
    double v = b[i];
    for (int k = 0; k < i; k++) v -= L[3 * i + k] * y[k];
    y[i] = v / L[4 * i];
  }
  for (int i = 2; i >= 0; i--) {
    double v = y[i];
    for (int k = i + 1; k < 3; k++) v -= L[3 * k + i] * x[k];
    x[i] = v / L[4 * i];
  }
}

/* The objective at a trial point with everything sim_admm_sv's next iteration needs, so that an
   accepted full step is not evaluated again: s, the gradient, the Hessian and *gscale of
   sim_admm_objective. The host keeps it; the CUDA kernels do not (holding it across the line
   search took k_project from 232 registers a thread to 255 with spills, and k_project_solve
   from none to 856 bytes of spill loads) and evaluate the point again, with the same bits. */
typedef struct sim_admm_point {
  double s[3], g[3], H[9], gscale;
} sim_admm_point;
#ifdef __CUDA_ARCH__
#define SIM_ADMM_KEEP_POINT 0
#else
#define SIM_ADMM_KEEP_POINT 1
#endif

/* Projected backtracking line search from t along dir (t stays >= 0). With strict = 0 it asks
   for Armijo decrease, with strict = 1 for a decrease of f beyond roundoff. Returns 1 and the new
   point tt, its objective *ft, on success; 2 where the full step (the first trial) was taken
   and full is not NULL, its objective's s, gradient and Hessian then in *full (the same bits as
   evaluating them again: f and g do not depend on whether H is asked for). */
SIM_HD int sim_admm_line_search(const sim_material *m, double V, double w, const double sig[3],
                                const double t[3], double f, const double g[3], const double dir[3],
                                int strict, double tt[3], double *ft, sim_admm_point *full) {
  int d = m->dim == 2 ? 2 : 3;
  double st[3], gt[3], a = 1.0;
  for (int ls = 0; ls < SIM_ADMM_LS_MAX; ls++, a *= 0.5) {
    double dec = 0.0;
    for (int k = 0; k < 3; k++) {
      tt[k] = k < d ? fmax(t[k] + a * dir[k], 0.0) : 0.0;
      dec += g[k] * (tt[k] - t[k]);
    }
    if (!strict && !(dec < 0.0)) continue;
    const int keep = ls == 0 && full;
    double fn = keep
                    ? sim_admm_objective(m, V, w, sig, tt, full->s, full->g, full->H, &full->gscale)
                    : sim_admm_objective(m, V, w, sig, tt, st, gt, NULL, 0);
    int ok = strict ? fn < f - 1e-12 * fabs(f) : fn <= f + 1e-4 * dec;
    if (ok && fn == fn) {
      *ft = fn;
      return keep ? 2 : 1;
    }
  }
  return 0;
}

/* ADMM-PD local problem: Z = argmin_Z V Psi(Z) + w/2 |Z - Y|_F^2 (Overby et al. 2017, Sec. 4).
   By isotropy Z = U diag(s) V^T with U, V from the SVD of Y = U diag(sig) V^T, and s minimises
   f(s) = V Psi(s) + w/2 |s - sig|^2 over the chamber C of signed singular values (Psi(F) is
   Psi(s) for s in C; outside C, U diag(s) V^T has other singular values, so minimising over all
   of R^d can return a saddle of the matrix problem). C is the box t >= 0 (sim_chamber_t).
   Projected Newton in t from t(sig): active set {t_k = 0, g_k > 0}; on the free variables the
   Hessian's eigenvalues (sim_sym_eig3) are replaced by their absolute values, floored at 1e-10 of
   the largest, so the step descends; Armijo backtracking, else a scaled gradient step; where the
   predicted decrease is below the roundoff of f, the full Newton step if it halves the projected
   gradient. Stops when the projected gradient is below SIM_ADMM_GTOL (w |sig| +
   V |grad Psi|), or none of these makes progress. A stationary point with negative curvature
   (Neo-Hookean from Y = -I stays on the symmetric s = (a, a, -a) otherwise) is left along the
   eigenvector, at most twice. The minimiser can sit on the boundary of C only for corotational
   (cloth: s1 = 0 under a strong one-sided stretch; tets: s1 = -s2), where Psi(F) is not
   differentiable. ARAP works the same way (Psi is quadratic: one step gives s = (2 mu V + w sig) /
   (2 mu V + w)). Returns the iterations used. For dim 2, Y's third column is ignored and Z's is
   zero. */
SIM_HD int sim_admm_sv(const sim_material *m, int d, double V, double w, const double sig[3],
                       double s[3]) {
  double t[3], g[3], H[9], gscale;
  sim_chamber_t(d, sig, t);
  double f = sim_admm_objective(m, V, w, sig, t, s, g, H, &gscale);
  int it = 0, escapes = 0;
  while (it < SIM_ADMM_MAX_ITERS) {
    int fr[3], taken = 0; /* the step: not taken, taken (1) or the full one (2, in full) */
    double gf[3], gn = 0.0, Hf[9], e[3], Q[9], dir[3], tt[3], ft, hd = 1e-300;
    sim_admm_point full, *fp = SIM_ADMM_KEEP_POINT ? &full : NULL;
    for (int k = 0; k < 3; k++) {
      fr[k] = k < d && !(t[k] <= 0.0 && g[k] > 0.0);
      gf[k] = fr[k] ? g[k] : 0.0;
      hd += fr[k] ? fabs(H[4 * k]) : 0.0;
    }
    gn = sim_admm_pgrad(d, t, g);
    /* the free block of H; fixed variables get a decoupled positive diagonal */
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++)
        Hf[3 * k + l] = (fr[k] && fr[l]) ? H[3 * k + l] : (k == l ? hd : 0.0);
    /* fast path: Hf positive definite (the usual case near rest), Newton's step by Cholesky;
       otherwise the eigen-decomposition below makes the step descend */
    double Lc[9], emax = 0.0;
    const int stationary = !(gn > SIM_ADMM_GTOL * gscale); /* (or NaN) */
    if (stationary) {
      /* a minimum where H over all variables is positive definite (the usual end): no direction
         of negative curvature, which the eigenvectors below would look for (a successful
         Cholesky puts H's least eigenvalue within roundoff of >= 0, far above their
         threshold of -1e-8 of the largest), so neither eigen-decomposition is needed. Built
         again below where it is not (kept, it costs the CUDA kernels 14 registers and spills) */
      double Ha[9];
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++)
          Ha[3 * k + l] = (k < d && l < d) ? H[3 * k + l] : (k == l ? hd : 0.0);
      if (sim_admm_chol3(Ha, Lc)) break;
    }
    int spd = !stationary && sim_admm_chol3(Hf, Lc);
    if (spd) {
      for (int k = 0; k < 3; k++)
        emax = fmax(emax, fabs(Hf[3 * k]) + fabs(Hf[3 * k + 1]) + fabs(Hf[3 * k + 2]));
    } else {
      sim_sym_eig3(Hf, e, Q);
      emax = fmax(fabs(e[0]), fmax(fabs(e[1]), fabs(e[2])));
    }
    if (stationary) {
      /* a feasible direction of negative curvature: combinations c in {-1, 0, 1}^3 of the
         eigenvectors with negative eigenvalues, clipped to d_k >= 0 where t_k = 0; the one of
         least Rayleigh quotient d^T H d / |d|^2 */
      double best = 0.0, db[3] = {0, 0, 0};
      for (int k = 0; k < 3; k++) /* all variables: g ~ 0, so none is held by its bound */
        for (int l = 0; l < 3; l++)
          Hf[3 * k + l] = (k < d && l < d) ? H[3 * k + l] : (k == l ? hd : 0.0);
      sim_sym_eig3(Hf, e, Q);
      for (int c = 0; c < 27 && escapes < 2; c++) {
        int cc[3] = {c % 3 - 1, (c / 3) % 3 - 1, c / 9 - 1};
        double dd[3] = {0, 0, 0}, q = 0, n2 = 0;
        for (int k = 0; k < 3; k++)
          if (cc[k] != 0 && e[k] < -1e-8 * emax)
            for (int i = 0; i < 3; i++) dd[i] += cc[k] * Q[3 * i + k];
        for (int i = 0; i < 3; i++) {
          if (i >= d || (t[i] <= 0.0 && dd[i] < 0.0)) dd[i] = 0.0;
          n2 += dd[i] * dd[i];
        }
        if (!(n2 > 1e-20)) continue;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) q += dd[i] * H[3 * i + j] * dd[j];
        if (q / n2 < best) {
          best = q / n2;
          for (int i = 0; i < 3; i++) db[i] = dd[i] / sqrt(n2);
        }
      }
      if (escapes >= 2 || !(best < -1e-8 * emax)) break;
      escapes++;
      double amp = 0.5 * (sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) + 1e-3);
      for (int k = 0; k < 3; k++) dir[k] = amp * db[k];
      taken = sim_admm_line_search(m, V, w, sig, t, f, g, dir, 1, tt, &ft, fp);
      if (!taken) break;
      for (int k = 0; k < 3; k++) t[k] = tt[k];
    } else {
      if (spd) {
        sim_admm_chol3_solve(Lc, gf, dir);
        for (int k = 0; k < 3; k++) dir[k] = fr[k] ? -dir[k] : 0.0;
      } else {
        double qg[3];
        for (int k = 0; k < 3; k++) {
          double ek = fmax(fabs(e[k]), 1e-10 * emax + 1e-300);
          qg[k] = (Q[k] * gf[0] + Q[3 + k] * gf[1] + Q[6 + k] * gf[2]) / ek;
        }
        for (int k = 0; k < 3; k++)
          dir[k] = fr[k] ? -(Q[3 * k] * qg[0] + Q[3 * k + 1] * qg[1] + Q[3 * k + 2] * qg[2]) : 0.0;
      }
      /* predicted decrease of the full step against the roundoff of f (its terms are
         ~ V (mu + |lambda|) |s - 1| near rest, where f itself is much smaller) */
      double dec = 0.0, fnoise = 0.0;
      for (int k = 0; k < 3; k++) {
        tt[k] = k < d ? fmax(t[k] + dir[k], 0.0) : 0.0;
        dec += g[k] * (tt[k] - t[k]);
        fnoise += k < d ? fabs(s[k] - 1.0) : 0.0;
      }
      fnoise = 1e-13 * (fabs(f) + V * (m->mu + fabs(m->lambda)) * fnoise);
      if (dec < 0.0 && -dec <= fnoise) { /* f cannot resolve the decrease: full step if it
                                             halves the gradient */
        double st[3], gt[3];
        ft = fp ? sim_admm_objective(m, V, w, sig, tt, fp->s, fp->g, fp->H, &fp->gscale)
                : sim_admm_objective(m, V, w, sig, tt, st, gt, NULL, 0);
        taken = sim_admm_pgrad(d, tt, fp ? fp->g : gt) < 0.5 * gn ? (fp ? 2 : 1) : 0;
      } else {
        taken = sim_admm_line_search(m, V, w, sig, t, f, g, dir, 0, tt, &ft, fp);
        if (!taken) { /* gradient step scaled by the largest curvature */
          for (int k = 0; k < 3; k++) dir[k] = -gf[k] / (emax + 1e-300);
          taken = sim_admm_line_search(m, V, w, sig, t, f, g, dir, 0, tt, &ft, fp);
        }
      }
      if (!taken) break;
      for (int k = 0; k < 3; k++) t[k] = tt[k];
    }
    if (taken == 2) { /* the full step: its objective is in hand */
      f = ft;
      for (int k = 0; k < 3; k++) s[k] = full.s[k], g[k] = full.g[k];
      for (int k = 0; k < 9; k++) H[k] = full.H[k];
      gscale = full.gscale;
    } else {
      f = sim_admm_objective(m, V, w, sig, t, s, g, H, &gscale);
    }
    it++;
  }
  return it;
}

/* The SVD the local problem starts from: Y = U diag(sig) V^T, sig[2] = 0 for dim 2. */
SIM_HD void sim_admm_svd(int d, const double Y[9], double U[9], double sig[3], double V[9]) {
  sim_material_svd(d, Y, U, sig, V);
  if (d == 2) sig[2] = 0.0;
}

SIM_HD int sim_admm_local(const sim_material *m, double V, double w, const double Y[9],
                          double Z[9]) {
  int d = m->dim == 2 ? 2 : 3;
  double U[9], sig[3], Vr[9], s[3];
  sim_admm_svd(d, Y, U, sig, Vr);
  int it = sim_admm_sv(m, d, V, w, sig, s);
  sim_usv(d, U, s, Vr, Z);
  return it;
}

/* The ADMM weight w_i for an element of rest measure V (volume, or area x thickness for cloth).
   ARAP: 2 mu V (PD, DESIGN Sec. 4). Corotational and Neo-Hookean: w = V sqrt(2 mu (2 mu + d
   lambda)), the geometric mean of the element's two rest stiffnesses (shear 2 mu, dilation 2 mu + d
   lambda: the nonzero eigenvalues of the rest Hessian, which both models match), which is the
   penalty that minimises the ADMM convergence factor for a quadratic objective (Ghadimi et al.
   2015, rho* = sqrt(lambda_min lambda_max)). It is 2 mu V, ARAP's A, at nu = 0 and grows only as
   sqrt(lambda) towards incompressibility, so neither the shear nor the volume mode lags. The
   dilation stiffness d K is > 0 for nu in (-1, 0.5) (plane-stress lambda for dim 2); it falls back
   to 2 mu V otherwise. */
SIM_HD double sim_material_weight(const sim_material *m, double V) {
  if (m->model == SIM_MAT_ARAP) return 2.0 * m->mu * V;
  double d = m->dim == 2 ? 2.0 : 3.0;
  double kd = 2.0 * m->mu + d * m->lambda;
  if (!(kd > 0.0)) return 2.0 * m->mu * V;
  return V * sqrt(2.0 * m->mu * kd);
}

#endif

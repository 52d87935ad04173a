/* SPDX-License-Identifier: MIT */
/* Hyperelastic materials: derivatives by finite differences, rest state, invariance, the ADMM
   local solve (optimality, inverted and degenerate input) and the linear-elastic limit. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/solve/material.h"
#include "check.h"

static const sim_material_model MODELS[3] = {SIM_MAT_ARAP, SIM_MAT_COROTATIONAL,
                                             SIM_MAT_NEOHOOKEAN};
static const char *NAMES[3] = {"arap", "corot", "neohookean"};

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }
static double urange(double a, double b) { return a + (b - a) * 0.5 * (urand() + 1.0); }

static sim_material make_mat(sim_material_model model, int dim, double E, double nu) {
  sim_material m;
  m.model = model;
  m.dim = dim;
  sim_material_lame(E, nu, dim, &m.mu, &m.lambda);
  return m;
}

static double fnorm(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

static void matmul(const double A[9], const double B[9], double C[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* Random rotation from a random unit quaternion. */
static void rand_rot(double R[9]) {
  double q[4], n;
  do {
    for (int i = 0; i < 4; i++) q[i] = urand();
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1.0);
  double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  for (int i = 0; i < 9; i++) R[i] = M[i];
}

/* Random rotation about z: a rotation of the 2D rest frame of a cloth triangle. */
static void rand_rot2(double R[9]) {
  double a = SIM_PI * urand(), c = cos(a), s = sin(a);
  double M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
  for (int i = 0; i < 9; i++) R[i] = M[i];
}

/* F = Q1 diag(s) Q2^T with random rotations (dim 2: Q2 about z and a zero third column). */
static void make_F(int dim, const double s[3], double F[9]) {
  double Q1[9], Q2[9], D[9] = {s[0], 0, 0, 0, s[1], 0, 0, 0, dim == 2 ? 0.0 : s[2]}, T[9], Q2t[9];
  rand_rot(Q1);
  if (dim == 2)
    rand_rot2(Q2);
  else
    rand_rot(Q2);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Q2t[3 * i + j] = Q2[3 * j + i];
  matmul(Q1, D, T);
  matmul(T, Q2t, F);
  if (dim == 2) F[2] = F[5] = F[8] = 0.0;
}

/* Sample singular values of a kind: 0 random, 1 near identity, 2 compressed, 3 stretched,
   4 inverted (the last one negative). */
static void sample_s(int kind, double s[3]) {
  for (int i = 0; i < 3; i++) {
    switch (kind) {
      case 0:
        s[i] = urange(0.2, 2.0);
        break;
      case 1:
        s[i] = 1.0 + 1e-3 * urand();
        break;
      case 2:
        s[i] = urange(0.05, 0.5);
        break;
      case 3:
        s[i] = urange(1.5, 4.0);
        break;
      default:
        s[i] = urange(0.3, 1.5);
        break;
    }
  }
  if (kind == 4) s[2] = -urange(0.05, 1.0);
}

/* d = 2 uses s[0], s[1]; put the inverted (negative) one there too. */
static void sample_s_dim(int kind, int dim, double s[3]) {
  sample_s(kind, s);
  if (dim == 2) {
    if (kind == 4) s[1] = s[2];
    s[2] = 0.0;
  }
}

/* Central differences of grad and hess of sim_psi_sigma. */
static void test_psi_sigma_fd(void) {
  const double nus[3] = {0.0, 0.3, 0.49};
  int bad = 0;
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++)
      for (int ni = 0; ni < 3; ni++)
        for (int kind = 0; kind < 5; kind++)
          for (int rep = 0; rep < 4; rep++) {
            sim_material m = make_mat(MODELS[mi], dim, 1e5, nus[ni]);
            double s[3], g[3], H[9];
            sample_s_dim(kind, dim, s);
            sim_psi_sigma(&m, s, g, H);
            double gscale = fmax(fnorm(g, 3), 1e-2 * (m.mu + fabs(m.lambda)));
            double hscale = fmax(fnorm(H, 9), m.mu);
            double gerr = 0, herr = 0, h = 1e-6;
            for (int j = 0; j < dim; j++) {
              double sp[3] = {s[0], s[1], s[2]}, sm[3] = {s[0], s[1], s[2]}, gp[3], gm[3];
              sp[j] += h;
              sm[j] -= h;
              double fp = sim_psi_sigma(&m, sp, gp, 0), fm = sim_psi_sigma(&m, sm, gm, 0);
              gerr = fmax(gerr, fabs((fp - fm) / (2 * h) - g[j]));
              for (int i = 0; i < dim; i++)
                herr = fmax(herr, fabs((gp[i] - gm[i]) / (2 * h) - H[3 * i + j]));
            }
            /* unused entries stay zero for dim 2 */
            if (dim == 2) herr = fmax(herr, fabs(H[2]) + fabs(H[5]) + fabs(H[8]) + fabs(g[2]));
            /* the Hessian is symmetric */
            for (int i = 0; i < 3; i++)
              for (int j = 0; j < 3; j++) herr = fmax(herr, fabs(H[3 * i + j] - H[3 * j + i]));
            if (!(gerr <= 1e-6 * gscale) || !(herr <= 1e-6 * hscale)) {
              if (bad++ < 5)
                printf(
                    "psi_sigma fd: %s dim %d nu %g kind %d: s = %g %g %g, grad err %.3g / %.3g, "
                    "hess err %.3g / %.3g\n",
                    NAMES[mi], dim, nus[ni], kind, s[0], s[1], s[2], gerr, gscale, herr, hscale);
            }
            CHECK(gerr <= 1e-6 * gscale);
            CHECK(herr <= 1e-6 * hscale);
          }
}

/* Central differences of sim_pk1 against sim_psi_F (dim 2: only the 3x2 block perturbed). */
static void test_pk1_fd(void) {
  const double nus[2] = {0.0, 0.4};
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++)
      for (int ni = 0; ni < 2; ni++)
        for (int rep = 0; rep < 20; rep++) {
          sim_material m = make_mat(MODELS[mi], dim, 2e4, nus[ni]);
          double F[9], P[9];
          for (int i = 0; i < 9; i++) F[i] = urand() + (i % 4 == 0 ? 0.5 : 0.0);
          if (rep % 3 == 0) { /* inverted */
            for (int i = 0; i < 3; i++) F[3 * i] = -F[3 * i];
          }
          if (dim == 2) F[2] = F[5] = F[8] = 0.0;
          sim_pk1(&m, F, P);
          double err = 0, h = 1e-6;
          for (int k = 0; k < 9; k++) {
            if (dim == 2 && k % 3 == 2) continue;
            double Fp[9], Fm[9];
            for (int i = 0; i < 9; i++) Fp[i] = Fm[i] = F[i];
            Fp[k] += h;
            Fm[k] -= h;
            err = fmax(err, fabs((sim_psi_F(&m, Fp) - sim_psi_F(&m, Fm)) / (2 * h) - P[k]));
          }
          double scale = fmax(fnorm(P, 9), 1e-2 * (m.mu + fabs(m.lambda)));
          if (!(err <= 1e-6 * scale))
            printf("pk1 fd: %s dim %d nu %g rep %d: err %.3g / %.3g\n", NAMES[mi], dim, nus[ni],
                   rep, err, scale);
          CHECK(err <= 1e-6 * scale);
          if (dim == 2) CHECK(P[2] == 0.0 && P[5] == 0.0 && P[8] == 0.0);
        }
}

/* Psi(I) = 0, P(I) = 0; Psi(R F) = Psi(F) = Psi(F Q) for rotations R and Q (Q about z for dim 2).
 */
static void test_rest_and_invariance(void) {
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++) {
      sim_material m = make_mat(MODELS[mi], dim, 1e6, 0.35);
      double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, dim == 2 ? 0.0 : 1.0}, P[9], one[3] = {1, 1, 1}, g[3];
      CHECK(fabs(sim_psi_F(&m, I)) <= 1e-12 * m.mu);
      CHECK(fabs(sim_psi_sigma(&m, one, g, 0)) <= 1e-12 * m.mu);
      CHECK(fnorm(g, 3) <= 1e-12 * m.mu);
      sim_pk1(&m, I, P);
      CHECK(fnorm(P, 9) <= 1e-12 * m.mu);
      /* a rigid rotation is also at rest */
      double R[9], RF[9];
      rand_rot(R);
      if (dim == 2) {
        double RI[9];
        matmul(R, I, RI);
        CHECK(fabs(sim_psi_F(&m, RI)) <= 1e-11 * m.mu);
      } else {
        CHECK(fabs(sim_psi_F(&m, R)) <= 1e-11 * m.mu);
      }
      double worst = 0;
      for (int rep = 0; rep < 50; rep++) {
        double s[3], F[9], Q[9], FQ[9];
        sample_s_dim(rep % 5, dim, s);
        make_F(dim, s, F);
        rand_rot(R);
        if (dim == 2)
          rand_rot2(Q);
        else
          rand_rot(Q);
        matmul(R, F, RF);
        matmul(F, Q, FQ);
        double p = sim_psi_F(&m, F), ps = sim_psi_sigma(&m, s, 0, 0);
        double tol = 1e-9 * (fabs(p) + 1e-6 * m.mu);
        worst = fmax(worst, fabs(sim_psi_F(&m, RF) - p) / tol);
        worst = fmax(worst, fabs(sim_psi_F(&m, FQ) - p) / tol);
        /* Psi(F) = Psi(s) when s are F's signed singular values (the sign on the smallest |s|;
           dim 2: s >= 0); their order does not matter, Psi is symmetric */
        double a0 = fabs(s[0]), a1 = fabs(s[1]), a2 = fabs(s[2]);
        int canonical = dim == 2
                            ? (s[0] >= 0 && s[1] >= 0)
                            : (s[0] >= 0 && s[1] >= 0) && (s[2] >= 0 || (a2 <= a0 && a2 <= a1));
        if (canonical) worst = fmax(worst, fabs(ps - p) / tol);
      }
      if (!(worst <= 1.0))
        printf("invariance: %s dim %d: worst err/tol %.3g\n", NAMES[mi], dim, worst);
      CHECK(worst <= 1.0);
    }
}

/* The local objective V Psi(Z) + w/2 |Z - Y|^2 (dim 2: Y's third column is zero). */
static double local_obj(const sim_material *m, double V, double w, const double Y[9],
                        const double Z[9]) {
  double r = 0;
  for (int i = 0; i < 9; i++) r += (Z[i] - Y[i]) * (Z[i] - Y[i]);
  return V * sim_psi_F(m, Z) + 0.5 * w * r;
}

/* Optimality of Z = sim_admm_local(Y): stationarity V P(Z) + w (Z - Y) ~ 0 relative to |w Y|
   (unless check_grad is 0: a corotational minimiser on the chamber boundary, where Psi(F) is not
   differentiable), f(Z) <= f(Y), and f(Z) below f at random nearby Z (steps 1e-3 and 1e-5 of
   |Z|). Returns 1 when all hold. */
static int check_local(const sim_material *m, double V, double w, const double Y[9], int check_grad,
                       const char *what) {
  double Z[9], P[9], r[9];
  int it = sim_admm_local(m, V, w, Y, Z);
  int ok = 1;
  for (int i = 0; i < 9; i++) ok &= isfinite(Z[i]);
  CHECK(ok);
  CHECK(it >= 0 && it <= SIM_ADMM_MAX_ITERS);
  if (m->dim == 2) CHECK(Z[2] == 0.0 && Z[5] == 0.0 && Z[8] == 0.0);
  double fz = local_obj(m, V, w, Y, Z), fy = local_obj(m, V, w, Y, Y);
  CHECK(isfinite(fz) && isfinite(sim_psi_F(m, Z)));
  double res = 0;
  if (check_grad) {
    sim_pk1(m, Z, P);
    for (int i = 0; i < 9; i++) r[i] = V * P[i] + w * (Z[i] - Y[i]);
    res = fnorm(r, 9) / (w * fnorm(Y, 9) + 1e-300);
    CHECK(res < 1e-8);
  }
  /* f(Y) > f(Z) unless Y is already the minimiser */
  CHECK(fz <= fy + 1e-14 * fabs(fy));
  double zn = fnorm(Z, 9), worst = 0;
  int lower = 1;
  for (int k = 0; k < 12; k++) {
    double Zp[9], eps = (k < 6 ? 1e-3 : 1e-5) * (zn + 1e-3);
    for (int i = 0; i < 9; i++) Zp[i] = Z[i] + (m->dim == 2 && i % 3 == 2 ? 0.0 : eps * urand());
    double fp = local_obj(m, V, w, Y, Zp);
    if (!(fz <= fp + 1e-13 * fabs(fz))) {
      lower = 0;
      worst = fmax(worst, fz - fp);
    }
  }
  CHECK(lower);
  int all =
      ok && isfinite(fz) && (!check_grad || res < 1e-8) && fz <= fy + 1e-14 * fabs(fy) && lower;
  if (!all)
    printf("local %s: %s dim %d: iters %d, residual %.3g, f(Z) %.17g, f(Y) %.17g, worse by %.3g\n",
           what, NAMES[m->model], m->dim, it, res, fz, fy, worst);
  return all;
}

static void test_local_random(void) {
  const double nus[3] = {0.0, 0.3, 0.45};
  const double wscale[3] = {0.1, 1.0, 10.0};
  int nbound = 0;
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++)
      for (int ni = 0; ni < 3; ni++)
        for (int rep = 0; rep < 30; rep++) {
          sim_material m = make_mat(MODELS[mi], dim, 1e5, nus[ni]);
          double V = urange(0.5e-3, 2e-3);
          double w = sim_material_weight(&m, V) * wscale[rep % 3];
          double s[3], Y[9];
          int kind = (rep / 3) % 5;
          sample_s_dim(kind, dim, s);
          if (rep >= 27) { /* near-degenerate: one singular value ~ 0 */
            if (dim == 2)
              s[1] = 1e-9;
            else
              s[2] = (rep == 29 ? -1e-9 : 1e-9);
          }
          make_F(dim, s, Y);
          /* a corotational minimiser may sit on the chamber boundary (cloth s1 = 0, tets
             s1 = -s2) where Psi(F) is not differentiable: stationarity is not expected there */
          int grad = MODELS[mi] != SIM_MAT_COROTATIONAL;
          if (!grad) {
            double Z[9], U[9], sz[3], Vz[9];
            sim_admm_local(&m, V, w, Y, Z);
            sim_material_svd(dim, Z, U, sz, Vz);
            grad = (dim == 2 ? sz[1] : sz[1] + sz[2]) > 1e-6 * sz[0];
            nbound += !grad;
          }
          if (dim == 3 && s[2] < 0) CHECK(sim_det3(Y) < 0);
          check_local(&m, V, w, Y, grad, "random");
        }
  CHECK(nbound <= 5); /* boundary minimisers are the exception */
}

/* Corotational cloth pulled hard along one axis: the unconstrained minimiser in s would have
   s1 < 0, the 3x2 one sits on s1 = 0; it must still beat every nearby Z. */
static void test_local_cloth_boundary(void) {
  sim_material m = make_mat(SIM_MAT_COROTATIONAL, 2, 1e5, 0.45);
  double V = 1e-3, w = sim_material_weight(&m, V);
  double s[3] = {6.0, 1e-3, 0}, Y[9], Z[9], U[9], sz[3], Vz[9];
  make_F(2, s, Y);
  check_local(&m, V, w, Y, 0, "cloth boundary");
  sim_admm_local(&m, V, w, Y, Z);
  sim_svd32(Z, U, sz, Vz);
  CHECK(sz[1] <= 1e-12 * sz[0]);
}

/* Neo-Hookean from inverted input: det Y < 0, Y = -I, flattened elements. */
static void test_local_nh_inverted(void) {
  const double nus[3] = {0.0, 0.3, 0.49};
  for (int ni = 0; ni < 3; ni++)
    for (int dim = 2; dim <= 3; dim++) {
      sim_material m = make_mat(SIM_MAT_NEOHOOKEAN, dim, 1e5, nus[ni]);
      double V = 1e-3, w = sim_material_weight(&m, V);
      for (int rep = 0; rep < 10; rep++) {
        double s[3] = {urange(0.3, 1.5), urange(0.3, 1.5), -urange(0.05, 1.0)}, Y[9];
        if (dim == 2) { /* a cloth triangle folded over: its 3x2 F is a reflection's block */
          s[1] = urange(0.3, 1.0);
          s[2] = 0;
        }
        make_F(dim, s, Y);
        if (dim == 2) { /* mirror the rest frame: F's 2x2 block has det < 0 in the plane */
          for (int i = 0; i < 3; i++) Y[3 * i + 1] = -Y[3 * i + 1];
        } else {
          CHECK(sim_det3(Y) < 0);
        }
        double Z[9];
        sim_admm_local(&m, V, w, Y, Z);
        int fin = 1;
        for (int i = 0; i < 9; i++) fin &= isfinite(Z[i]);
        CHECK(fin && isfinite(sim_psi_F(&m, Z)));
        CHECK(local_obj(&m, V, w, Y, Z) < local_obj(&m, V, w, Y, Y));
        check_local(&m, V, w, Y, 1, "nh inverted");
      }
      /* Y = -I (dim 2: the 3x2 block of -I) */
      double mI[9] = {-1, 0, 0, 0, -1, 0, 0, 0, dim == 2 ? 0.0 : -1.0};
      check_local(&m, V, w, mI, 1, "nh -I");
      /* flattened: a tet squashed into a plane, a triangle squashed onto a line, and a point */
      double flat3[9] = {1, 0.2, 0, 0, 1, 0, 0.3, 0, 0}, flat2[9] = {1, 2, 0, 0.5, 1, 0, 0, 0, 0};
      double zero[9] = {0};
      double Z[9];
      const double *Yf = dim == 2 ? flat2 : flat3;
      sim_admm_local(&m, V, w, Yf, Z);
      int fin = 1;
      for (int i = 0; i < 9; i++) fin &= isfinite(Z[i]);
      CHECK(fin && isfinite(sim_psi_F(&m, Z)));
      CHECK(local_obj(&m, V, w, Yf, Z) < local_obj(&m, V, w, Yf, Yf));
      if (dim == 3) CHECK(sim_det3(Z) > 0); /* the volume term pushes it back out of the plane */
      check_local(&m, V, w, Yf, 1, "nh flattened");
      sim_admm_local(&m, V, w, zero, Z); /* Y = 0 is a critical point: finite, no NaN */
      fin = 1;
      for (int i = 0; i < 9; i++) fin &= isfinite(Z[i]);
      CHECK(fin);
    }
}

/* Psi(I + eps) ~ mu eps:eps + lambda/2 tr(eps)^2 and P(I + eps) ~ 2 mu eps + lambda tr(eps) I. */
static void test_linear_limit(void) {
  const double nus[4] = {0.0, 0.25, 0.45, -0.2};
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++)
      for (int ni = 0; ni < 4; ni++) {
        if (MODELS[mi] == SIM_MAT_ARAP && ni > 0) continue; /* ARAP has no lambda: nu = 0 only */
        double worst = 0, pworst = 0;
        sim_material m = make_mat(MODELS[mi], dim, 3e5, nus[ni]);
        for (int rep = 0; rep < 10; rep++) {
          double eps[9] = {0}, F[9], P[9];
          for (int i = 0; i < dim; i++)
            for (int j = i; j < dim; j++) eps[3 * i + j] = eps[3 * j + i] = 1e-5 * urand();
          double ee = 0, tr = 0;
          for (int i = 0; i < 9; i++) ee += eps[i] * eps[i];
          for (int i = 0; i < dim; i++) tr += eps[4 * i];
          for (int i = 0; i < 9; i++) F[i] = eps[i] + ((i % 4 == 0 && i / 4 < dim) ? 1.0 : 0.0);
          double lin = m.mu * ee + 0.5 * m.lambda * tr * tr;
          worst = fmax(worst, fabs(sim_psi_F(&m, F) - lin) / lin);
          sim_pk1(&m, F, P);
          double dp = 0, pl = 0;
          for (int i = 0; i < 9; i++) {
            double sl = 2 * m.mu * eps[i] + ((i % 4 == 0 && i / 4 < dim) ? m.lambda * tr : 0.0);
            dp += (P[i] - sl) * (P[i] - sl);
            pl += sl * sl;
          }
          pworst = fmax(pworst, sqrt(dp / pl));
        }
        if (!(worst < 1e-3 && pworst < 1e-3))
          printf("linear limit: %s dim %d nu %g: psi rel err %.3g, P rel err %.3g\n", NAMES[mi],
                 dim, nus[ni], worst, pworst);
        CHECK(worst < 1e-3);
        CHECK(pworst < 1e-3);
      }
}

/* Lame parameters, plane stress, weights; the thin 3x2 SVD. */
static void test_lame_weight_svd32(void) {
  double mu, lam, mu2, lam2;
  sim_material_lame(1e6, 0.3, 3, &mu, &lam);
  CHECK_NEAR(mu, 1e6 / 2.6, 1e-6);
  CHECK_NEAR(lam, 1e6 * 0.3 / (1.3 * 0.4), 1e-6);
  sim_material_lame(1e6, 0.3, 2, &mu2, &lam2);
  CHECK_NEAR(mu2, mu, 1e-9);
  CHECK_NEAR(lam2, 2 * mu * lam / (lam + 2 * mu), 1e-6);
  for (int mi = 0; mi < 3; mi++)
    for (int dim = 2; dim <= 3; dim++) {
      sim_material m0 = make_mat(MODELS[mi], dim, 1e6, 0.0),
                   m4 = make_mat(MODELS[mi], dim, 1e6, 0.4);
      CHECK_NEAR(sim_material_weight(&m0, 2e-3), 2 * m0.mu * 2e-3, 1e-9); /* nu = 0: ARAP's */
      double w4 = sim_material_weight(&m4, 2e-3);
      if (MODELS[mi] == SIM_MAT_ARAP)
        CHECK_NEAR(w4, 2 * m4.mu * 2e-3, 1e-9);
      else { /* the geometric mean of the shear and dilation stiffnesses */
        CHECK_NEAR(w4, 2e-3 * sqrt(2 * m4.mu * (2 * m4.mu + dim * m4.lambda)), 1e-9 * w4);
        CHECK(w4 > 2 * m4.mu * 2e-3 && w4 < (2 * m4.mu + dim * m4.lambda) * 2e-3);
      }
    }
  /* sim_svd32: F = U diag(s) V^T, U rotation, V = [V2 0; 0 1], s0 >= s1 >= 0 */
  int bad = 0;
  for (int rep = 0; rep < 200; rep++) {
    double F[9], U[9], s[3], V[9], G[9], UtU[9], Ut[9];
    for (int i = 0; i < 9; i++) F[i] = (i % 3 == 2) ? 0.0 : urand();
    if (rep == 0) F[1] = F[4] = F[7] = 0; /* rank 1 */
    if (rep == 1) {
      F[1] = 2 * F[0];
      F[4] = 2 * F[3];
      F[7] = 2 * F[6];
    }
    if (rep == 2)
      for (int i = 0; i < 9; i++) F[i] = 0;
    sim_svd32(F, U, s, V);
    sim_usv(2, U, s, V, G);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Ut[3 * i + j] = U[3 * j + i];
    matmul(Ut, U, UtU);
    double e = 0;
    for (int i = 0; i < 9; i++) e = fmax(e, fabs(F[i] - G[i]) + fabs(UtU[i] - (i % 4 == 0)));
    int ok = e < 1e-12 && fabs(sim_det3(U) - 1) < 1e-12 && s[0] >= s[1] && s[1] >= 0 && s[2] == 0 &&
             V[2] == 0 && V[5] == 0 && V[6] == 0 && V[7] == 0 && V[8] == 1;
    bad += !ok;
  }
  CHECK_INT(bad, 0);
}

/* sim_svd32's V2 in closed form against the angle it stands for, phi = atan2(2 b, a - c) / 2 of
   F^T F = [a b; b c] (a - c of either sign, b of either sign or zero, a = c), and 2^k F gives F's
   U and V and 2^k s to the bit, at scales where F^T F itself would overflow or underflow. */
static void test_svd32_closed_form(void) {
  static const double cols[][6] = {{1.0, 0.2, 0.1, 0.3, 0.8, -0.2},   /* a > c, b > 0 */
                                   {0.3, 0.8, -0.2, 1.0, 0.2, 0.1},   /* a < c */
                                   {1.0, 0.0, 0.0, 0.0, 2.0, 0.0},    /* a < c, b = 0: phi = pi/2 */
                                   {1.0, 0.0, 0.0, 0.0, -1.0, 0.0},   /* a = c, b = 0 */
                                   {1.0, 1.0, 0.0, -1.0, 1.0, 0.0},   /* a = c, b = 0 */
                                   {0.6, -0.7, 0.1, -0.9, 0.3, 0.2},  /* b < 0 */
                                   {0.2, 0.1, 0.0, -1.1, -0.4, 0.3}}; /* a < c, b < 0 */
  for (int t = 0; t < (int)(sizeof cols / sizeof cols[0]); t++) {
    double F[9] = {0}, U[9], s[3], V[9];
    for (int k = 0; k < 3; k++) F[3 * k] = cols[t][k], F[3 * k + 1] = cols[t][3 + k];
    double a = 0, b = 0, c = 0;
    for (int k = 0; k < 3; k++)
      a += F[3 * k] * F[3 * k], b += F[3 * k] * F[3 * k + 1], c += F[3 * k + 1] * F[3 * k + 1];
    sim_svd32(F, U, s, V);
    const double phi = 0.5 * atan2(2.0 * b, a - c);
    if (a != c || b != 0) { /* distinct eigenvalues: the direction is unique, so is phi */
      CHECK_NEAR(V[0], cos(phi), 1e-15);
      CHECK_NEAR(V[3], sin(phi), 1e-15);
    }
    CHECK(V[0] >= 0.0 && fabs(V[0] * V[0] + V[3] * V[3] - 1.0) < 1e-15);
    for (int k = -1000; k <= 1000; k += 250) {
      double G[9], Ug[9], sg[3], Vg[9];
      for (int i = 0; i < 9; i++) G[i] = ldexp(F[i], k);
      sim_svd32(G, Ug, sg, Vg);
      CHECK(!memcmp(U, Ug, sizeof U) && !memcmp(V, Vg, sizeof V));
      CHECK(sg[0] == ldexp(s[0], k) && sg[1] == ldexp(s[1], k) && sg[2] == 0.0);
    }
  }
}

int main(void) {
  srand(7);
  test_lame_weight_svd32();
  test_svd32_closed_form();
  test_psi_sigma_fd();
  test_pk1_fd();
  test_rest_and_invariance();
  test_local_random();
  test_local_cloth_boundary();
  test_local_nh_inverted();
  test_linear_limit();
  CHECK(sim_mem_in_use() == 0);
  return check_summary("test_material");
}

/* SPDX-License-Identifier: MIT */
/* Conjugate Residual (core/contact/cr.h) against a dense LU solve on random SPD systems and on
   the contact system's shape Omega W Omega + E (W positive semidefinite, E > 0 diagonal); the
   fixed-count mode, tolerance mode, warm start, monotone residual, workspace and memory. GMRES
   (core/contact/gmres.h) against the same LU on random nonsymmetric systems of the exact
   friction Jacobian's shape, A (h^2 W) + L, in one cycle and restarted, with and without its
   diagonal preconditioner. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/contact/cr.h"
#include "../core/contact/gmres.h"
#include "check.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

typedef struct counted {
  sim_cr_dense d;
  int calls;
} counted;

static void counted_apply(void *ctx, const double *x, double *y) {
  counted *c = (counted *)ctx;
  c->calls++;
  sim_cr_dense_apply(&c->d, x, y);
}

/* x = A^{-1} b by Gaussian elimination with partial pivoting (A copied). */
static void dense_solve(int m, const double *A, const double *b, double *x) {
  double *T = malloc(sizeof(double) * (size_t)m * (size_t)(m + 1));
  for (int i = 0; i < m; i++) {
    memcpy(T + (size_t)i * (m + 1), A + (size_t)i * m, sizeof(double) * (size_t)m);
    T[(size_t)i * (m + 1) + m] = b[i];
  }
  for (int k = 0; k < m; k++) {
    int piv = k;
    for (int i = k + 1; i < m; i++)
      if (fabs(T[(size_t)i * (m + 1) + k]) > fabs(T[(size_t)piv * (m + 1) + k])) piv = i;
    for (int j = 0; j <= m; j++) {
      double t = T[(size_t)k * (m + 1) + j];
      T[(size_t)k * (m + 1) + j] = T[(size_t)piv * (m + 1) + j];
      T[(size_t)piv * (m + 1) + j] = t;
    }
    for (int i = k + 1; i < m; i++) {
      double f = T[(size_t)i * (m + 1) + k] / T[(size_t)k * (m + 1) + k];
      for (int j = k; j <= m; j++) T[(size_t)i * (m + 1) + j] -= f * T[(size_t)k * (m + 1) + j];
    }
  }
  for (int i = m - 1; i >= 0; i--) {
    double s = T[(size_t)i * (m + 1) + m];
    for (int j = i + 1; j < m; j++) s -= T[(size_t)i * (m + 1) + j] * x[j];
    x[i] = s / T[(size_t)i * (m + 1) + i];
  }
  free(T);
}

/* A = B B^T / m + shift I (SPD for shift > 0). */
static void random_spd(int m, double shift, double *A) {
  double *B = malloc(sizeof(double) * (size_t)m * m);
  for (int i = 0; i < m * m; i++) B[i] = urand();
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int k = 0; k < m; k++) s += B[i * m + k] * B[j * m + k];
      A[i * m + j] = s / m + (i == j ? shift : 0.0);
    }
  free(B);
}

/* The contact system's shape: Omega W Omega + E with W = Y^T Y (k x m, rank k < m), Omega in
   {1, 0.29, 0} and E > 0 (E = 1 where Omega = 0, as for inactive friction rows). */
static void random_contact_system(int m, int k, double *A) {
  double *Y = malloc(sizeof(double) * (size_t)k * m), om[256], e[256];
  for (int i = 0; i < k * m; i++) Y[i] = urand();
  for (int i = 0; i < m; i++) {
    int c = rand() % 3;
    om[i] = c == 0 ? 1.0 : c == 1 ? 0.29289321881345248 : 0.0;
    e[i] = c == 2 ? 1.0 : 1e-3 + 0.5 * (urand() + 1.0);
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int q = 0; q < k; q++) s += Y[q * m + i] * Y[q * m + j];
      A[i * m + j] = om[i] * s * om[j] + (i == j ? e[i] : 0.0);
    }
  free(Y);
}

static double max_abs_diff(int m, const double *a, const double *b) {
  double d = 0.0;
  for (int i = 0; i < m; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static double true_residual(int m, const double *A, const double *b, const double *x) {
  double s = 0.0;
  for (int i = 0; i < m; i++) {
    double r = b[i];
    for (int j = 0; j < m; j++) r -= A[i * m + j] * x[j];
    s += r * r;
  }
  return sqrt(s);
}

static void test_against_dense(void) {
  for (int t = 0; t < 12; t++) {
    int m = 5 + rand() % 60;
    double *A = malloc(sizeof(double) * (size_t)m * m), b[64], x[64], xs[64];
    if (t % 2 == 0)
      random_spd(m, 0.05, A);
    else
      random_contact_system(m, 1 + m / 3, A);
    for (int i = 0; i < m; i++) {
      b[i] = urand();
      x[i] = 0.0;
    }
    dense_solve(m, A, b, xs);
    sim_cr_dense d = {m, A};
    sim_cr_result res;
    int it = sim_cr_solve(m, sim_cr_dense_apply, &d, b, x, 20 * m, 1e-14, NULL, &res);
    CHECK(it > 0 && it < 20 * m && res.iters == it && !res.breakdown);
    double xn = 0.0;
    for (int i = 0; i < m; i++) xn = fmax(xn, fabs(xs[i]));
    CHECK_NEAR(max_abs_diff(m, x, xs) / xn, 0.0, 1e-10);
    CHECK(res.residual <= 1e-14 * res.bnorm);
    CHECK_NEAR(true_residual(m, A, b, x), res.residual, 1e-12 * res.bnorm);
    free(A);
  }
}

/* W = Y^T Y with Y random k x m: positive semidefinite of rank k < m. */
static void random_gram(int m, int k, double *W) {
  double *Y = malloc(sizeof(double) * (size_t)k * m);
  for (int i = 0; i < k * m; i++) Y[i] = urand();
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int q = 0; q < k; q++) s += Y[q * m + i] * Y[q * m + j];
      W[i * m + j] = s;
    }
  free(Y);
}

/* Singular PSD W with b in its range: CR still drives the residual to 0. */
static void test_singular_consistent(void) {
  int m = 30, k = 10;
  double A[900], b[30], z[30], x[30] = {0};
  random_gram(m, k, A);
  for (int i = 0; i < m; i++) z[i] = urand();
  sim_cr_dense d = {m, A};
  sim_cr_dense_apply(&d, z, b);
  sim_cr_result res;
  sim_cr_solve(m, sim_cr_dense_apply, &d, b, x, 200, 1e-12, NULL, &res);
  CHECK(true_residual(m, A, b, x) <= 1e-10 * res.bnorm);
}

static void test_modes(void) {
  int m = 40;
  double A[1600], b[40], x[40], xs[40], work[160];
  random_spd(m, 0.02, A);
  for (int i = 0; i < m; i++) b[i] = urand();
  dense_solve(m, A, b, xs);
  counted c = {{m, A}, 0};
  sim_cr_result res;

  /* fixed count: exactly N iterations and N + 1 products; residual non-increasing and equal to
     the true residual */
  double prev = INFINITY;
  for (int n = 1; n <= 12; n++) {
    memset(x, 0, sizeof x);
    c.calls = 0;
    int it = sim_cr_solve(m, counted_apply, &c, b, x, n, 0.0, work, &res);
    CHECK_INT(it, n);
    CHECK_INT(c.calls, n + 1);
    CHECK(res.residual <= prev * (1.0 + 1e-12));
    CHECK(res.residual < res.bnorm);
    CHECK_NEAR(true_residual(m, A, b, x), res.residual, 1e-12 * res.bnorm);
    prev = res.residual;
  }
  CHECK(prev < 0.5 * res.bnorm);

  /* tolerance mode stops at the first iterate with |r| <= tol |b| */
  double tol = 1e-6;
  memset(x, 0, sizeof x);
  int it = sim_cr_solve(m, counted_apply, &c, b, x, 1000, tol, work, &res);
  CHECK(it > 1 && it < 1000);
  CHECK(res.residual <= tol * res.bnorm);
  CHECK(true_residual(m, A, b, x) <= 1.001 * tol * res.bnorm);
  memset(x, 0, sizeof x);
  sim_cr_solve(m, counted_apply, &c, b, x, it - 1, 0.0, work, &res);
  CHECK(res.residual > tol * res.bnorm);
  /* a larger tolerance stops earlier */
  memset(x, 0, sizeof x);
  int it2 = sim_cr_solve(m, counted_apply, &c, b, x, 1000, 1e-2, work, &res);
  CHECK(it2 < it);

  /* warm start from the solution: returns at once, x untouched, one product */
  memcpy(x, xs, sizeof x);
  c.calls = 0;
  it = sim_cr_solve(m, counted_apply, &c, b, x, 100, 1e-10, work, &res);
  CHECK_INT(it, 0);
  CHECK_INT(c.calls, 1);
  CHECK(memcmp(x, xs, sizeof x) == 0);
  /* warm start near the solution needs fewer iterations than a cold start */
  for (int i = 0; i < m; i++) x[i] = xs[i] + 1e-4 * urand();
  int warm = sim_cr_solve(m, counted_apply, &c, b, x, 1000, 1e-10, work, &res);
  memset(x, 0, sizeof x);
  int cold = sim_cr_solve(m, counted_apply, &c, b, x, 1000, 1e-10, work, &res);
  CHECK(warm < cold);

  /* workspace: NULL (allocated once, freed) gives the same bits as the caller's; no leak */
  double x1[40] = {0}, x2[40] = {0};
  size_t before = sim_mem_in_use();
  sim_cr_solve(m, sim_cr_dense_apply, &c.d, b, x1, 15, 0.0, work, NULL);
  sim_cr_solve(m, sim_cr_dense_apply, &c.d, b, x2, 15, 0.0, NULL, NULL);
  CHECK(memcmp(x1, x2, sizeof x1) == 0);
  CHECK(sim_mem_in_use() == before);
  CHECK(sim_cr_work_size(m) == 5 * (size_t)m);

  /* zero right-hand side and zero size */
  double zb[40] = {0};
  memset(x, 0, sizeof x);
  CHECK_INT(sim_cr_solve(m, sim_cr_dense_apply, &c.d, zb, x, 10, 1e-8, work, &res), 0);
  CHECK(res.residual == 0.0);
  CHECK_INT(sim_cr_solve(0, sim_cr_dense_apply, &c.d, zb, x, 10, 1e-8, NULL, &res), 0);
}

/* The fixed count stops where the residual has reached rounding (SIM_CR_FLOOR |b|): a system
   the Jacobi preconditioner solves in one iteration (diagonal, as the Newton system is where
   every contact is separated) takes one iteration, not the count, whatever rounding left in r;
   a system it does not solve at once still takes the whole count. */
static void test_floor(void) {
  enum { m = 30 };
  double A[m * m] = {0}, dinv[m], b[m], x[m], work[5 * m];
  for (int i = 0; i < m; i++) {
    A[i * m + i] = 0.1 + 3.0 * fabs(urand()); /* > 0, not powers of two: the solve rounds */
    dinv[i] = 1.0 / A[i * m + i];
    b[i] = urand() - 0.5;
  }
  counted c = {{m, A}, 0};
  sim_cr_result res;
  int once = 0;
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < m; i++) x[i] = 0.0, b[i] = urand() - 0.5;
    int it = sim_cr_solve_pc(m, counted_apply, &c, dinv, b, x, 10, 0.0, work, &res);
    CHECK(res.residual <= SIM_CR_FLOOR * res.bnorm);
    once += it == 1;
    /* a rounding's worth of the exact solution, b_i / A_ii */
    for (int i = 0; i < m; i++) CHECK_NEAR(x[i], b[i] * dinv[i], 1e-14 * fabs(x[i]) + 1e-300);
  }
  CHECK_INT(once, 20);
  /* off the diagonal: the fixed count, as before */
  random_spd(m, 0.02, A);
  for (int i = 0; i < m; i++) dinv[i] = 1.0 / A[i * m + i], x[i] = 0.0;
  CHECK_INT(sim_cr_solve_pc(m, counted_apply, &c, dinv, b, x, 10, 0.0, work, &res), 10);
  CHECK(res.residual > SIM_CR_FLOOR * res.bnorm);
}

/* A W + L: W a contact system's Y^T Y (rank k), A and L random 3 x 3 blocks on the diagonal
   (the exact Jacobian's shape, core/contact/nsn_exact.h), L's diagonal kept away from 0. */
static void random_exact_system(int m, int k, double *M) {
  double *W = malloc(sizeof(double) * (size_t)m * m);
  random_gram(m, k, W);
  memset(M, 0, sizeof(double) * (size_t)m * m);
  for (int b = 0; b < m / 3; b++)
    for (int r = 0; r < 3; r++) {
      const int i = 3 * b + r;
      for (int c = 0; c < 3; c++) {
        const double a = (r == c ? 1.0 : 0.0) + 0.3 * urand();
        for (int j = 0; j < m; j++) M[i * m + j] += a * W[(3 * b + c) * m + j];
        M[i * m + 3 * b + c] += (r == c ? 0.5 + 0.5 * (urand() + 1.0) : 0.2 * urand());
      }
    }
  free(W);
}

static void test_gmres(void) {
  enum { M = 60 };
  static double A[M * M], b[M], x[M], xr[M], dinv[M];
  double worst_full = 0.0, worst_restart = 0.0, worst_pc = 0.0;
  for (int rep = 0; rep < 8; rep++) {
    random_exact_system(M, 20, A);
    for (int i = 0; i < M; i++) b[i] = urand(), dinv[i] = 1.0 / fabs(A[i * M + i]);
    dense_solve(M, A, b, xr);
    const double scale = fmax(1.0, max_abs_diff(M, xr, (double[M]){0}));
    counted c = {{M, A}, 0};
    memset(x, 0, sizeof x); /* one cycle of M: exact up to rounding */
    sim_cr_result res;
    int it = sim_gmres_solve(M, counted_apply, &c, NULL, b, x, M, M, 0.0, NULL, &res);
    CHECK(it > 0 && it <= M);
    CHECK(c.calls >= it && c.calls <= 2 * it + 2); /* iterations, and cycles' residuals */
    CHECK(res.residual <= 1e-10 * res.bnorm);
    CHECK(fabs(res.residual - true_residual(M, A, b, x)) <= 1e-12 * res.bnorm);
    worst_full = fmax(worst_full, max_abs_diff(M, x, xr) / scale);
    memset(x, 0, sizeof x); /* cycles of 15, to a tolerance */
    it = sim_gmres_solve(M, counted_apply, &c, NULL, b, x, 2000, 15, 1e-11, NULL, &res);
    CHECK(fabs(res.residual - true_residual(M, A, b, x)) <= 1e-12 * res.bnorm);
    CHECK(it > 15 && it < 2000);
    CHECK(true_residual(M, A, b, x) <= 2e-11 * res.bnorm);
    worst_restart = fmax(worst_restart, max_abs_diff(M, x, xr) / scale);
    memset(x, 0, sizeof x); /* the diagonal preconditioner: the true residual still falls */
    it = sim_gmres_solve(M, counted_apply, &c, dinv, b, x, M, M, 1e-12, NULL, &res);
    CHECK(true_residual(M, A, b, x) <= 2e-12 * res.bnorm);
    worst_pc = fmax(worst_pc, max_abs_diff(M, x, xr) / scale);
    /* a fixed count short of convergence: k products from x = 0, a residual that never rises
       and is the true one up to rounding */
    double last = res.bnorm;
    for (int k = 1; k <= 6; k++) {
      memset(x, 0, sizeof x);
      c.calls = 0;
      sim_gmres_solve(M, counted_apply, &c, NULL, b, x, k, M, 0.0, NULL, &res);
      CHECK_INT(c.calls, k);
      CHECK(res.residual <= last * (1 + 1e-12));
      CHECK(fabs(res.residual - true_residual(M, A, b, x)) <= 1e-12 * res.bnorm);
      last = res.residual;
    }
  }
  printf(
      "gmres (60 x 60, A W + L): |x - x_LU| / |x_LU| one cycle %.2e, restarted (15) %.2e, "
      "preconditioned %.2e\n",
      worst_full, worst_restart, worst_pc);
  CHECK(worst_full < 1e-8 && worst_restart < 1e-8 && worst_pc < 1e-8);
  size_t mem0 = sim_mem_in_use(); /* the call's own workspace is freed */
  memset(x, 0, sizeof x);
  counted c = {{M, A}, 0};
  sim_gmres_solve(M, counted_apply, &c, NULL, b, x, 10, 5, 0.0, NULL, NULL);
  CHECK_INT(sim_mem_in_use(), mem0);
}

int main(void) {
  srand(4242);
  test_against_dense();
  test_singular_consistent();
  test_modes();
  test_floor();
  test_gmres();
  return check_summary("test_cr");
}

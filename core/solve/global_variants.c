/* SPDX-License-Identifier: MIT */
/* Jacobi (Wang 2015) and dense-inverse global steps, for the complete-vs-incomplete study. */
#include "global_variants.h"

#include <string.h>

#include "../base/alloc.h"

int sim_jacobi_build(int n, const int *colptr, const int *rowidx, const double *val,
                     sim_jacobi *J, sim_status *st) {
  memset(J, 0, sizeof *J);
  long long nnz_up = colptr[n];
  long long nnz = 2 * nnz_up - n;
  J->n = n;
  J->ptr = SIM_NEW0(int, n + 1);
  J->col = SIM_NEW(int, nnz);
  J->val = SIM_NEW(double, nnz);
  J->dinv = SIM_NEW(double, n);
  int *next = SIM_NEW(int, n);
  if (!J->ptr || !J->col || !J->val || !J->dinv || !next) {
    sim_free(next);
    sim_jacobi_free(J);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Jacobi matrix)");
  }
  for (int j = 0; j < n; j++)
    for (int p = colptr[j]; p < colptr[j + 1]; p++) {
      int i = rowidx[p];
      J->ptr[i + 1]++;
      if (i != j) J->ptr[j + 1]++;
    }
  for (int i = 0; i < n; i++) J->ptr[i + 1] += J->ptr[i];
  memcpy(next, J->ptr, sizeof(int) * (size_t)n);
  for (int j = 0; j < n; j++)
    for (int p = colptr[j]; p < colptr[j + 1]; p++) {
      int i = rowidx[p];
      J->col[next[i]] = j;
      J->val[next[i]++] = val[p];
      if (i != j) {
        J->col[next[j]] = i;
        J->val[next[j]++] = val[p];
      } else {
        J->dinv[i] = 1.0 / val[p];
      }
    }
  sim_free(next);
  return SIM_OK;
}

void sim_jacobi_free(sim_jacobi *J) {
  sim_free(J->ptr);
  sim_free(J->col);
  sim_free(J->val);
  sim_free(J->dinv);
  memset(J, 0, sizeof *J);
}

void sim_jacobi_iterate(const sim_jacobi *J, const double *b, const double *x, double *x_out) {
#pragma omp parallel for schedule(static, 256)
  for (int i = 0; i < J->n; i++) {
    double r0 = b[3 * i], r1 = b[3 * i + 1], r2 = b[3 * i + 2];
    for (int p = J->ptr[i]; p < J->ptr[i + 1]; p++) {
      const double *xj = x + 3 * (size_t)J->col[p];
      r0 -= J->val[p] * xj[0];
      r1 -= J->val[p] * xj[1];
      r2 -= J->val[p] * xj[2];
    }
    x_out[3 * i] = x[3 * i] + J->dinv[i] * r0;
    x_out[3 * i + 1] = x[3 * i + 1] + J->dinv[i] * r1;
    x_out[3 * i + 2] = x[3 * i + 2] + J->dinv[i] * r2;
  }
}

double sim_chebyshev_omega(int k, double rho, double omega_prev) {
  if (k <= 1) return 1.0;
  if (k == 2) return 2.0 / (2.0 - rho * rho);
  return 4.0 / (4.0 - rho * rho * omega_prev);
}

size_t sim_dense_inverse_bytes(int n) { return (size_t)n * (size_t)n * sizeof(double); }

int sim_dense_inverse_build(sim_factor *f, int n, size_t max_bytes, sim_dense_inverse *D,
                            sim_status *st) {
  memset(D, 0, sizeof *D);
  size_t need = sim_dense_inverse_bytes(n);
  if (max_bytes > 0 && need > max_bytes)
    return sim_fail(st, SIM_ERR_MEMORY,
                    "solver.global: dense_inverse needs %.3g MiB for %d unknowns, over the limit "
                    "of %.3g MiB (raise solver.dense_max_mib or use sparse_inverse)",
                    need / 1048576.0, n, max_bytes / 1048576.0);
  D->n = n;
  D->inv = SIM_NEW(double, (size_t)n * n);
  double *b = SIM_NEW0(double, 3 * (size_t)n), *x = SIM_NEW(double, 3 * (size_t)n);
  int rc = (D->inv && b && x) ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (dense inverse)");
  /* three unit columns per solve (A_s^{-1} is symmetric: columns are rows) */
  for (int j = 0; !rc && j < n; j += 3) {
    int m = n - j < 3 ? n - j : 3;
    for (int c = 0; c < m; c++) b[3 * (j + c) + c] = 1.0;
    rc = sim_factor_solve3(f, b, x, st);
    for (int c = 0; c < m; c++) b[3 * (j + c) + c] = 0.0;
    for (int c = 0; !rc && c < m; c++)
      for (int i = 0; i < n; i++) D->inv[(size_t)(j + c) * n + i] = x[3 * i + c];
  }
  sim_free(b);
  sim_free(x);
  if (rc) sim_dense_inverse_free(D);
  return rc;
}

void sim_dense_inverse_free(sim_dense_inverse *D) {
  sim_free(D->inv);
  memset(D, 0, sizeof *D);
}

void sim_dense_inverse_apply(const sim_dense_inverse *D, const double *b, double *x) {
  int n = D->n;
#pragma omp parallel for schedule(static, 16)
  for (int i = 0; i < n; i++) {
    const double *row = D->inv + (size_t)i * n;
    double a0 = 0, a1 = 0, a2 = 0;
    for (int j = 0; j < n; j++) {
      a0 += row[j] * b[3 * j];
      a1 += row[j] * b[3 * j + 1];
      a2 += row[j] * b[3 * j + 2];
    }
    x[3 * i] = a0;
    x[3 * i + 1] = a1;
    x[3 * i + 2] = a2;
  }
}

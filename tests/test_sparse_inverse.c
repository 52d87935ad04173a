/* SPDX-License-Identifier: MIT */
/* Sparse inverse S = L^{-1} P: against CHOLMOD's solve, the elimination tree and a dense L^{-1}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/solve/factor_internal.h"
#include "check.h"
#include "grid_S.h"
#include "grid_matrix.h"

/* Elimination tree of P A P' by Liu's algorithm with path compression (independent of L). */
static long long etree_depth_sum(int n, const int *cp, const int *ri, const int *perm) {
  int *pinv = malloc(sizeof(int) * n), *parent = malloc(sizeof(int) * n);
  int *anc = malloc(sizeof(int) * n), *depth = malloc(sizeof(int) * n);
  /* full symmetric adjacency of the permuted matrix, column j of B = P A P' */
  int *deg = calloc(n + 1, sizeof(int));
  for (int i = 0; i < n; i++) pinv[perm[i]] = i;
  for (int c = 0; c < n; c++)
    for (int p = cp[c]; p < cp[c + 1]; p++) {
      int r = ri[p];
      if (r != c) {
        deg[pinv[c] + 1]++;
        deg[pinv[r] + 1]++;
      }
    }
  for (int i = 0; i < n; i++) deg[i + 1] += deg[i];
  int *adj = malloc(sizeof(int) * (deg[n] + 1)), *fill = malloc(sizeof(int) * n);
  memcpy(fill, deg, sizeof(int) * n);
  for (int c = 0; c < n; c++)
    for (int p = cp[c]; p < cp[c + 1]; p++) {
      int r = ri[p];
      if (r != c) {
        adj[fill[pinv[c]]++] = pinv[r];
        adj[fill[pinv[r]]++] = pinv[c];
      }
    }
  for (int j = 0; j < n; j++) {
    parent[j] = -1;
    anc[j] = -1;
    for (int p = deg[j]; p < deg[j + 1]; p++) {
      int i = adj[p];
      if (i >= j) continue;
      while (i != -1 && i < j) {
        int next = anc[i];
        anc[i] = j;
        if (next == -1) parent[i] = j;
        i = next;
      }
    }
  }
  long long sum = 0;
  for (int j = n - 1; j >= 0; j--) {
    depth[j] = parent[j] < 0 ? 1 : 1 + depth[parent[j]];
    sum += depth[j];
  }
  free(pinv), free(parent), free(anc), free(depth), free(deg), free(adj), free(fill);
  return sum;
}

static double rel_err(const double *a, const double *b, int m) {
  double num = 0, den = 0;
  for (int i = 0; i < m; i++) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return sqrt(num / den);
}

static void check_against_cholmod(int nx, int ny, int nz, sim_ordering ord) {
  int *cp, *ri;
  double *v;
  int n = grid_matrix(nx, ny, nz, &cp, &ri, &v);
  sim_status st = {0};
  sim_factor *fs = NULL, *fc = NULL;
  CHECK_INT(sim_factor_create(n, cp, ri, v, ord, 1, &fs, &st), SIM_OK);
  CHECK_INT(sim_factor_create(n, cp, ri, v, ord, 0, &fc, &st), SIM_OK);
  sim_sparse_inverse S;
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S, &st), SIM_OK);
  CHECK_INT(S.nnz, sim_sparse_inverse_count(fs));
  CHECK_INT(S.nnz, etree_depth_sum(n, cp, ri, S.perm));
  CHECK_INT(S.row_interval, 1); /* CHOLMOD postorders the tree in every ordering */
  double *b = malloc(sizeof(double) * 3 * n), *y = malloc(sizeof(double) * 3 * n);
  double *x1 = malloc(sizeof(double) * 3 * n), *x2 = malloc(sizeof(double) * 3 * n);
  srand(7);
  for (int i = 0; i < 3 * n; i++) b[i] = rand() / (double)RAND_MAX - 0.5;
  sim_sparse_inverse_apply(&S, b, y, x1);
  CHECK_INT(sim_factor_solve3(fc, b, x2, &st), SIM_OK);
  CHECK(rel_err(x1, x2, 3 * n) < 1e-10);
  sim_sparse_inverse Sf;
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_FLOAT, 0, &Sf, &st), SIM_OK);
  sim_sparse_inverse_apply(&Sf, b, y, x1);
  double ef = rel_err(x1, x2, 3 * n);
  CHECK(ef < 1e-5);
  CHECK(ef > 1e-12); /* float storage really is float */
  /* a memory limit below the need is refused before allocation, naming the size */
  sim_sparse_inverse S3;
  sim_status st2 = {0};
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 1000, &S3, &st2), SIM_ERR_MEMORY);
  CHECK_STR_CONTAINS(st2.msg, "over the limit");
  sim_sparse_inverse_free(&S);
  sim_sparse_inverse_free(&Sf);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  free(b), free(y), free(x1), free(x2), free(cp), free(ri), free(v);
}

/* S's columns equal the dense inverse of L, and S is zero off the tree paths. */
static void check_dense(void) {
  sim_factor *f = NULL;
  sim_sparse_inverse S;
  int n = grid_S(4, 3, 3, SIM_ORDER_METIS, &f, &S);
  double *Ld = calloc((size_t)n * n, sizeof(double)), *Xd = calloc((size_t)n * n, sizeof(double));
  const int *Lp = f->L->p, *Li = f->L->i;
  const double *Lx = f->L->x;
  for (int k = 0; k < n; k++)
    for (int p = Lp[k]; p < Lp[k + 1]; p++) Ld[Li[p] * n + k] = Lx[p];
  /* dense forward substitution for each column of the identity */
  for (int c = 0; c < n; c++)
    for (int i = 0; i < n; i++) {
      double s = (i == c) ? 1.0 : 0.0;
      for (int j = 0; j < i; j++) s -= Ld[i * n + j] * Xd[j * n + c];
      Xd[i * n + c] = s / Ld[i * n + i];
    }
  double *Sd = calloc((size_t)n * n, sizeof(double));
  for (int k = 0; k < n; k++)
    for (int p = S.col_ptr[k]; p < S.col_ptr[k + 1]; p++) Sd[S.col_row[p] * n + k] = S.col_val[p];
  double maxerr = 0, maxoff = 0;
  for (int i = 0; i < n * n; i++) {
    double e = fabs(Sd[i] - Xd[i]);
    if (e > maxerr) maxerr = e;
  }
  /* rows of S (CSR, original column numbering) agree with the columns; with interval rows entry
     p of row i is column p + i + 1 - row_ptr[i + 1] of L^{-1} */
  int interval_wrong = 0;
  for (int i = 0; i < n; i++)
    for (int p = S.row_ptr[i]; p < S.row_ptr[i + 1]; p++) {
      int k = -1;
      for (int t = 0; t < n; t++)
        if (S.perm[t] == S.row_col[p]) k = t;
      double e = fabs(S.row_val[p] - Xd[i * n + k]);
      if (e > maxoff) maxoff = e;
      interval_wrong += k != p + i + 1 - S.row_ptr[i + 1];
    }
  CHECK_INT(S.row_interval, 1);
  CHECK_INT(interval_wrong, 0);
  CHECK(maxerr < 1e-13);
  CHECK(maxoff < 1e-13);
  CHECK(n == 36 && S.nnz < (long long)n * (n + 1) / 2);
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(f);
  free(Ld), free(Xd), free(Sd);
}

/* S's columns as runs of consecutive rows (sim_path_runs): for each ordering, the runs give the
   stored rows of every column (the build checks it; a column read from the runs here as well),
   fewer runs than entries; a column whose rows are out of order, and one whose second row is
   not above it, are refused naming the column. */
static void check_runs(sim_ordering ord) {
  sim_factor *f = NULL;
  sim_sparse_inverse S;
  int n = grid_S(12, 10, 9, ord, &f, &S);
  sim_status st = {0};
  sim_path_runs R;
  CHECK_INT(sim_path_runs_build(&S, &R, &st), SIM_OK);
  long long wrong = 0;
  for (int k = 0; k < n; k++) { /* column k from its runs, against its stored rows */
    int t = S.col_ptr[k], h = R.top[k];
    for (int r = k; r <= h; r++) wrong += t >= S.col_ptr[k + 1] || S.col_row[t++] != r;
    for (int j = R.ptr[h]; j < R.ptr[h + 1]; j++)
      for (int r = 0; r < R.runs[2 * j + 1]; r++)
        wrong += t >= S.col_ptr[k + 1] || S.col_row[t++] != R.runs[2 * j] + r;
    wrong += t != S.col_ptr[k + 1];
  }
  CHECK_INT(wrong, 0);
  CHECK(R.nruns < S.nnz / 10 && R.most >= 2 && R.most <= S.etree_height);
  CHECK(R.mean >= 1.0 && R.mean <= R.most);
  printf("  %s: %lld runs listed for %lld entries, %.2f a column, at most %d\n",
         ord == SIM_ORDER_METIS ? "metis"
         : ord == SIM_ORDER_AMD ? "amd"
                                : "nesdis",
         R.nruns, S.nnz, R.mean, R.most);
  sim_path_runs_free(&R);
  /* the longest column, its third and fourth rows swapped */
  int k = 0;
  for (int j = 0; j < n; j++)
    if (S.col_ptr[j + 1] - S.col_ptr[j] > S.col_ptr[k + 1] - S.col_ptr[k]) k = j;
  int *c = S.col_row + S.col_ptr[k] + 2, keep = c[0];
  c[0] = c[1], c[1] = keep;
  sim_status st2 = {0};
  CHECK_INT(sim_path_runs_build(&S, &R, &st2), SIM_ERR_INTERNAL);
  char want[64];
  snprintf(want, sizeof want, "column %d ", k);
  CHECK_STR_CONTAINS(st2.msg, want);
  CHECK(R.top == NULL && R.runs == NULL);
  c[1] = c[0], c[0] = keep;
  /* its second row (the parent) below it */
  c = S.col_row + S.col_ptr[k] + 1;
  keep = c[0], c[0] = 0;
  sim_status st3 = {0};
  CHECK_INT(sim_path_runs_build(&S, &R, &st3), SIM_ERR_INTERNAL);
  CHECK_STR_CONTAINS(st3.msg, "not a parent above it");
  c[0] = keep;
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(f);
}

/* "best" keeps the ordering with the fewest nonzeros in S among metis, nesdis and amd. */
static void check_best(void) {
  int *cp, *ri;
  double *v;
  int n = grid_matrix(12, 10, 9, &cp, &ri, &v);
  sim_status st = {0};
  long long least = -1, got = 0;
  const sim_ordering ords[] = {SIM_ORDER_METIS, SIM_ORDER_NESDIS, SIM_ORDER_AMD};
  for (int t = 0; t < 3; t++) {
    sim_factor *f = NULL;
    CHECK_INT(sim_factor_create(n, cp, ri, v, ords[t], 1, &f, &st), SIM_OK);
    long long c = sim_sparse_inverse_count(f);
    if (least < 0 || c < least) least = c;
    sim_factor_destroy(f);
  }
  sim_factor *fb = NULL;
  CHECK_INT(sim_factor_create(n, cp, ri, v, SIM_ORDER_BEST, 1, &fb, &st), SIM_OK);
  got = sim_sparse_inverse_count(fb);
  CHECK(got == least);
  sim_factor_info fi;
  sim_factor_get_info(fb, &fi);
  CHECK(strcmp(fi.ordering, "metis") == 0 || strcmp(fi.ordering, "nesdis") == 0 ||
        strcmp(fi.ordering, "amd") == 0);
  sim_factor_destroy(fb);
  free(cp), free(ri), free(v);
}

static void check_not_spd(void) {
  int cp[3] = {0, 1, 3}, ri[3] = {0, 0, 1};
  double v[3] = {1.0, 2.0, 1.0}; /* [[1,2],[2,1]] is indefinite */
  sim_status st = {0};
  sim_factor *f = NULL;
  CHECK_INT(sim_factor_create(2, cp, ri, v, SIM_ORDER_AMD, 0, &f, &st), SIM_ERR_NUMERIC);
  CHECK_STR_CONTAINS(st.msg, "not positive definite");
  CHECK(f == NULL);
  sim_status st2 = {0};
  CHECK_INT(sim_factor_create(2, cp, ri, v, SIM_ORDER_METIS, 1, &f, &st2), SIM_ERR_NUMERIC);
  CHECK(f == NULL);
}

int main(void) {
  check_against_cholmod(12, 10, 9, SIM_ORDER_METIS);
  check_against_cholmod(12, 10, 9, SIM_ORDER_AMD);
  check_against_cholmod(12, 10, 9, SIM_ORDER_NESDIS);
  check_against_cholmod(12, 10, 9, SIM_ORDER_BEST);
  check_against_cholmod(30, 1, 20, SIM_ORDER_METIS);
  check_dense();
  check_runs(SIM_ORDER_METIS);
  check_runs(SIM_ORDER_AMD);
  check_runs(SIM_ORDER_NESDIS);
  check_best();
  check_not_spd();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_sparse_inverse");
}

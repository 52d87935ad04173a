/* SPDX-License-Identifier: MIT */
/* S = L^{-1} P from a simplicial CHOLMOD factor (paper Sec. 4, Theorem 1): column k of L^{-1}
   is nonzero exactly on the elimination-tree path from k to the root. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "backend.h"
#include "factor_internal.h"

/* path lengths len[k] = 1 + len[parent[k]] (parent > k after postordering) */
static long long path_lengths(const cholmod_factor *L, int *parent, int *len) {
  int n = (int)L->n;
  const int *Lp = L->p, *Li = L->i;
  long long total = 0;
  for (int k = n - 1; k >= 0; k--) {
    parent[k] = (Lp[k + 1] - Lp[k] > 1) ? Li[Lp[k] + 1] : -1;
    len[k] = parent[k] < 0 ? 1 : 1 + len[parent[k]];
    total += len[k];
  }
  return total;
}

long long sim_sparse_inverse_count(sim_factor *f) {
  if (f->L->is_super) return -1;
  int n = f->n;
  int *parent = SIM_NEW(int, n), *len = SIM_NEW(int, n);
  long long total = (parent && len) ? path_lengths(f->L, parent, len) : -1;
  sim_free(parent);
  sim_free(len);
  return total;
}

size_t sim_sparse_inverse_bytes(long long nnz, int n, sim_precision prec) {
  size_t v = prec == SIM_PREC_FLOAT ? sizeof(float) : sizeof(double);
  return (size_t)nnz * (v + sizeof(int)) + (size_t)(n + 1) * sizeof(int);
}

/* Column k of L^{-1}: x[0] = 1, then x -= L(i,k) X(:,i) aligned on the shared path tail. */
static void inverse_column(const cholmod_factor *L, const int *len, const long long *cp,
                           double *X, int k) {
  const int *Lp = L->p, *Li = L->i;
  const double *Lx = L->x;
  double *x = X + cp[k];
  int lk = len[k];
  x[0] = 1.0;
  for (int t = 1; t < lk; t++) x[t] = 0.0;
  for (int p = Lp[k] + 1; p < Lp[k + 1]; p++) {
    int i = Li[p];
    double lik = Lx[p];
    const double *xi = X + cp[i];
    double *dst = x + (lk - len[i]);
    for (int t = 0; t < len[i]; t++) dst[t] -= lik * xi[t];
  }
  double d = 1.0 / Lx[Lp[k]];
  for (int t = 0; t < lk; t++) x[t] *= d;
}

int sim_sparse_inverse_build(sim_factor *f, sim_precision prec, size_t max_bytes,
                             sim_sparse_inverse *S, sim_status *st) {
  memset(S, 0, sizeof *S);
  if (f->L->is_super || !f->L->is_ll)
    return sim_fail(st, SIM_ERR_INTERNAL, "sparse inverse needs a simplicial LL' factor");
  double t0 = sim_now_ms();
  int n = f->n;
  int *parent = SIM_NEW(int, n), *len = SIM_NEW(int, n);
  long long *cp = SIM_NEW(long long, n + 1);
  int *level_ptr = NULL, *level_cols = NULL;
  double *X = NULL;
  int rc = SIM_OK;
  if (!parent || !len || !cp) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (sparse inverse workspace)");
    goto done;
  }
  long long nnz = path_lengths(f->L, parent, len);
  if (nnz > 2147483647LL) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "S would have %lld entries: more than 32-bit indices hold",
                  nnz);
    goto done;
  }
  size_t need = 2 * sim_sparse_inverse_bytes(nnz, n, prec) + (size_t)nnz * sizeof(double);
  if (max_bytes > 0 && need > max_bytes) {
    rc = sim_fail(st, SIM_ERR_MEMORY,
                  "building S needs %.1f MB (nnz %lld), over the limit of %.1f MB", need / 1e6,
                  nnz, max_bytes / 1e6);
    goto done;
  }
  S->n = n;
  S->nnz = nnz;
  S->precision = prec;
  int height = 0;
  cp[0] = 0;
  for (int k = 0; k < n; k++) {
    cp[k + 1] = cp[k] + len[k];
    if (len[k] > height) height = len[k];
  }
  S->etree_height = height;
  /* columns grouped by path length: a level's columns never depend on each other */
  level_ptr = SIM_NEW0(int, height + 2);
  level_cols = SIM_NEW(int, n);
  X = SIM_NEW(double, nnz);
  S->perm = SIM_NEW(int, n);
  S->col_ptr = SIM_NEW(int, n + 1);
  S->col_row = SIM_NEW(int, nnz);
  S->row_ptr = SIM_NEW0(int, n + 1);
  S->row_col = SIM_NEW(int, nnz);
  if (!level_ptr || !level_cols || !X || !S->perm || !S->col_ptr || !S->col_row || !S->row_ptr ||
      !S->row_col) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory building S (%lld entries)", nnz);
    goto done;
  }
  for (int k = 0; k < n; k++) level_ptr[len[k] + 1]++;
  for (int l = 0; l <= height; l++) level_ptr[l + 1] += level_ptr[l];
  {
    int *fill = SIM_NEW(int, height + 1);
    if (!fill) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (levels)");
      goto done;
    }
    memcpy(fill, level_ptr, sizeof(int) * (size_t)(height + 1));
    for (int k = 0; k < n; k++) level_cols[fill[len[k]]++] = k;
    sim_free(fill);
  }
  for (int l = 1; l <= height; l++) {
    int a = level_ptr[l], b = level_ptr[l + 1];
#pragma omp parallel for schedule(dynamic, 16) if (b - a > 64)
    for (int j = a; j < b; j++) inverse_column(f->L, len, cp, X, level_cols[j]);
  }
  /* row pattern of column k: k, then the parent's pattern */
  for (int k = n - 1; k >= 0; k--) {
    S->col_ptr[k] = (int)cp[k];
    S->col_row[cp[k]] = k;
    if (parent[k] >= 0)
      memcpy(S->col_row + cp[k] + 1, S->col_row + cp[parent[k]], sizeof(int) * (size_t)(len[k] - 1));
  }
  S->col_ptr[n] = (int)nnz;
  memcpy(S->perm, f->L->Perm, sizeof(int) * (size_t)n);
  /* CSR of S = L^{-1} P: row i holds (perm[k], X(i,k)) for every k below i on a path */
  double *rv = SIM_NEW(double, nnz);
  if (!rv) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory building S rows");
    goto done;
  }
  for (long long t = 0; t < nnz; t++) S->row_ptr[S->col_row[t] + 1]++;
  for (int i = 0; i < n; i++) S->row_ptr[i + 1] += S->row_ptr[i];
  {
    int *next = SIM_NEW(int, n);
    if (!next) {
      sim_free(rv);
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory building S rows");
      goto done;
    }
    memcpy(next, S->row_ptr, sizeof(int) * (size_t)n);
    S->row_interval = 1;
    for (int k = 0; k < n; k++)
      for (long long t = cp[k]; t < cp[k + 1]; t++) {
        int i = S->col_row[t], dst = next[i]++;
        S->row_col[dst] = S->perm[k];
        rv[dst] = X[t];
        if ((long long)dst + i + 1 - S->row_ptr[i + 1] != k) S->row_interval = 0;
      }
    sim_free(next);
  }
  if (prec == SIM_PREC_FLOAT) {
    /* S's largest entry must be a float with its 24 bits (not past FLT_MAX, not a subnormal):
       else a stiffness near 1e60 or more turns S into zeros and the body collapses unseen */
    double big = 0;
    for (long long t = 0; t < nnz; t++) big = fmax(big, fabs(X[t]));
    if (!(big <= FLT_MAX && big >= FLT_MIN / FLT_EPSILON)) {
      sim_free(rv);
      rc = sim_fail(st, SIM_ERR_NUMERIC,
                    "solver.precision float: S's largest entry is %g, beyond what a float holds "
                    "to full precision (%g to %g); expected solver.precision double for this "
                    "stiffness and mass",
                    big, FLT_MIN / FLT_EPSILON, (double)FLT_MAX);
      goto done;
    }
    S->row_valf = SIM_NEW(float, nnz);
    S->col_valf = SIM_NEW(float, nnz);
    if (!S->row_valf || !S->col_valf) {
      sim_free(rv);
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (float S)");
      goto done;
    }
    for (long long t = 0; t < nnz; t++) {
      S->row_valf[t] = (float)rv[t];
      S->col_valf[t] = (float)X[t];
    }
    sim_free(rv);
  } else {
    S->row_val = rv;
    S->col_val = X;
    X = NULL;
  }
  S->build_ms = sim_now_ms() - t0;
done:
  sim_free(parent);
  sim_free(len);
  sim_free(cp);
  sim_free(level_ptr);
  sim_free(level_cols);
  sim_free(X);
  if (rc != SIM_OK) sim_sparse_inverse_free(S);
  return rc;
}

void sim_sparse_inverse_free(sim_sparse_inverse *S) {
  sim_free(S->perm);
  sim_free(S->row_ptr);
  sim_free(S->row_col);
  sim_free(S->col_ptr);
  sim_free(S->col_row);
  sim_free(S->row_val);
  sim_free(S->col_val);
  sim_free(S->row_valf);
  sim_free(S->col_valf);
  memset(S, 0, sizeof *S);
}

void sim_S_cache_free(sim_S_cache *c) {
  for (int p = 0; p < 2; p++) sim_sparse_inverse_free(&c->S[p]);
  sim_factor_destroy(c->fac);
  memset(c, 0, sizeof *c);
}

/* The runs' rows of column k, stored rows from col_row[t] on: 1 where they are all of them. */
static int runs_give_column(const sim_sparse_inverse *S, const sim_path_runs *R, int k) {
  long long t = S->col_ptr[k], end = S->col_ptr[k + 1];
  const int h = R->top[k];
  for (int r = -1; r < R->ptr[h + 1] - R->ptr[h]; r++) {
    const size_t at = 2 * ((size_t)R->ptr[h] + (size_t)(r < 0 ? 0 : r));
    const int lo = r < 0 ? k : R->runs[at], len = r < 0 ? h - k + 1 : R->runs[at + 1];
    for (int j = 0; j < len; j++, t++)
      if (t == end || S->col_row[t] != lo + j) return 0;
  }
  return t == end;
}

int sim_path_runs_build(const sim_sparse_inverse *S, sim_path_runs *R, sim_status *st) {
  memset(R, 0, sizeof *R);
  const int n = S->n;
  R->n = n;
  int *parent = SIM_NEW(int, (size_t)n + 1), *nr = SIM_NEW(int, (size_t)n + 1);
  R->top = SIM_NEW(int, (size_t)n + 1);
  R->ptr = SIM_NEW0(int, (size_t)n + 2);
  int rc = parent && nr && R->top && R->ptr
               ? SIM_OK
               : sim_fail(st, SIM_ERR_MEMORY, "out of memory (S's path runs)");
  long long total = 0, all = 0;
  for (int k = n - 1; !rc && k >= 0; k--) { /* a parent is numbered above its children */
    const int b = S->col_ptr[k], len = S->col_ptr[k + 1] - b;
    parent[k] = len > 1 ? S->col_row[b + 1] : -1;
    if (parent[k] >= 0 && (parent[k] <= k || parent[k] >= n)) {
      rc = sim_fail(st, SIM_ERR_INTERNAL,
                    "S's column %d: its second row %d is not a parent above it; expected the "
                    "elimination-tree path from the column to the root",
                    k, parent[k]);
      break;
    }
    R->top[k] = parent[k] == k + 1 ? R->top[k + 1] : k;
    const int up = parent[R->top[k]];
    nr[k] = 1 + (up >= 0 ? nr[up] : 0);
    all += nr[k];
    if (nr[k] > R->most) R->most = nr[k];
    if (R->top[k] == k && up >= 0) R->ptr[k + 1] = nr[up], total += nr[up];
  }
  if (!rc) { /* total < nnz: a top's path is longer than its parent's */
    for (int k = 0; k < n; k++) R->ptr[k + 1] += R->ptr[k];
    R->runs = SIM_NEW(int, 2 * (size_t)total + 1);
    if (!R->runs) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (S's path runs)");
  }
  for (int h = 0; !rc && h < n; h++) {
    int at = R->ptr[h];
    for (int q = R->top[h] == h ? parent[h] : -1; q >= 0; q = parent[R->top[q]], at++) {
      R->runs[2 * (size_t)at] = q;
      R->runs[2 * (size_t)at + 1] = R->top[q] - q + 1;
    }
  }
  for (int k = 0; !rc && k < n; k++)
    if (!runs_give_column(S, R, k))
      rc = sim_fail(st, SIM_ERR_INTERNAL,
                    "S's column %d is not the runs of its elimination-tree path (the rows its "
                    "parents give)",
                    k);
  R->nruns = total;
  R->mean = n > 0 ? (double)all / n : 0.0;
  sim_free(parent);
  sim_free(nr);
  if (rc) sim_path_runs_free(R);
  return rc;
}

void sim_path_runs_free(sim_path_runs *R) {
  sim_free(R->top);
  sim_free(R->ptr);
  sim_free(R->runs);
  memset(R, 0, sizeof *R);
}

/* One template for double and float values. */
#define SIM_APPLY(VT, rv, cv)                                                     \
  do {                                                                            \
    const VT *rvv = (rv), *cvv = (cv);                                            \
    _Pragma("omp parallel for schedule(static, 256)")                             \
    for (int i = 0; i < n; i++) {                                                 \
      double a0 = 0, a1 = 0, a2 = 0;                                              \
      for (int p = S->row_ptr[i]; p < S->row_ptr[i + 1]; p++) {                   \
        const double *bj = b + 3 * (size_t)S->row_col[p];                         \
        double s = (double)rvv[p];                                                \
        a0 += s * bj[0];                                                          \
        a1 += s * bj[1];                                                          \
        a2 += s * bj[2];                                                          \
      }                                                                           \
      y[3 * i] = a0;                                                              \
      y[3 * i + 1] = a1;                                                          \
      y[3 * i + 2] = a2;                                                          \
    }                                                                             \
    _Pragma("omp parallel for schedule(static, 256)")                             \
    for (int k = 0; k < n; k++) {                                                 \
      double a0 = 0, a1 = 0, a2 = 0;                                              \
      for (int p = S->col_ptr[k]; p < S->col_ptr[k + 1]; p++) {                   \
        const double *yi = y + 3 * (size_t)S->col_row[p];                         \
        double s = (double)cvv[p];                                                \
        a0 += s * yi[0];                                                          \
        a1 += s * yi[1];                                                          \
        a2 += s * yi[2];                                                          \
      }                                                                           \
      double *xk = x + 3 * (size_t)S->perm[k];                                    \
      xk[0] = a0;                                                                 \
      xk[1] = a1;                                                                 \
      xk[2] = a2;                                                                 \
    }                                                                             \
  } while (0)

void sim_sparse_inverse_apply(const sim_sparse_inverse *S, const double *b, double *y,
                              double *x) {
  int n = S->n;
  if (S->precision == SIM_PREC_FLOAT)
    SIM_APPLY(float, S->row_valf, S->col_valf);
  else
    SIM_APPLY(double, S->row_val, S->col_val);
}

/* SPDX-License-Identifier: MIT */
/* The matrix-free Delassus operator through the contacts' columns of S (delassus_op.h). */
#include "delassus_op.h"

#include <string.h>

#include "../base/alloc.h"
#include "../base/cpu_simd.h"

void sim_delassus_op_free(sim_delassus_op *op) {
  sim_delassus_terms_free(&op->T);
  void *p[] = {op->ycol, op->cptr, op->crow,   op->cval, op->rptr,  op->rcol,  op->rval, op->g,
               op->z,    op->w,    op->row_of, op->kcol, op->first, op->below, op->rows, op->ykc};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) sim_free(p[i]);
  memset(op, 0, sizeof *op);
}

/* *p holds at least `need` elements of `size` bytes (contents not kept). */
static int ensure(void **p, size_t need, size_t size) {
  void *q = sim_malloc((need > 0 ? need : 1) * size);
  if (!q) return -1;
  sim_free(*p);
  *p = q;
  return 0;
}

/* The arrays that follow S's order n: kept while n stays. */
static int per_order(sim_delassus_op *op, const sim_sparse_inverse *S, sim_status *st) {
  if (op->n == S->n && op->row_of) return SIM_OK;
  size_t n = (size_t)S->n;
  op->n = 0;
  if (ensure((void **)&op->row_of, n, sizeof(int)) || ensure((void **)&op->kcol, n, sizeof(int)) ||
      ensure((void **)&op->first, n, sizeof(int)) ||
      ensure((void **)&op->below, n + 1, sizeof(int)) ||
      ensure((void **)&op->rows, n, sizeof(int)) ||
      ensure((void **)&op->rptr, n + 1, sizeof(int)) ||
      ensure((void **)&op->z, SIM_OP_STRIDE * n, sizeof(double)))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (matrix-free W: S's order)");
  const sim_delassus_cols cols = {S->col_ptr, S->col_row, S->col_val, S->col_valf};
  if (sim_delassus_subtree_firsts(&cols, S->n, op->first, op->row_of)) /* row_of: scratch */
    return sim_fail(st, SIM_ERR_INTERNAL, "matrix-free W: S's elimination tree is not postordered");
  for (int i = 0; i < S->n; i++) op->kcol[S->perm[i]] = i;
  op->n = S->n;
  return SIM_OK;
}

static int per_vertices(sim_delassus_op *op, int m) {
  if ((size_t)m <= op->m_cap && op->g) return 0;
  size_t cap = (size_t)m + (size_t)m / 2 + 16;
  op->m_cap = 0;
  if (ensure((void **)&op->ycol, cap, sizeof(int)) || ensure((void **)&op->ykc, cap, sizeof(int)) ||
      ensure((void **)&op->cptr, cap + 1, sizeof(int)) ||
      ensure((void **)&op->g, SIM_OP_STRIDE * cap, sizeof(double)) ||
      ensure((void **)&op->w, 3 * cap, sizeof(double)))
    return -1;
  op->m_cap = cap;
  return 0;
}

static int per_entries(sim_delassus_op *op, long long nnz) {
  if ((size_t)nnz <= op->nnz_cap && op->crow) return 0;
  size_t cap = (size_t)nnz + (size_t)nnz / 2 + 64;
  op->nnz_cap = 0;
  if (ensure((void **)&op->crow, cap, sizeof(int)) ||
      ensure((void **)&op->rcol, cap, sizeof(int)) ||
      ensure((void **)&op->cval, cap, sizeof(double)) ||
      ensure((void **)&op->rval, cap, sizeof(double)))
    return -1;
  op->nnz_cap = cap;
  return 0;
}

static int refuse(sim_delassus_op *op, sim_status *st, const char *what) {
  sim_delassus_terms_free(&op->T);
  op->nr = 0;
  op->nnz = 0;
  return sim_fail(st, SIM_ERR_MEMORY, "out of memory (matrix-free W: %s)", what);
}

/* Y's columns are the local vertices ordered as their columns of L^{-1}: column p = below[k] is
   column ykc[p] = k of L^{-1}, below[k] counting the contact columns under k (row_of marks them
   for the scan: local vertex + 1, or 0). cptr: the columns' starts. */
static void order_columns(sim_delassus_op *op, const sim_sparse_inverse *S) {
  int m = op->T.m, n = op->n, *mark = op->row_of;
  memset(mark, 0, sizeof(int) * (size_t)n);
  for (int a = 0; a < m; a++) mark[op->kcol[op->T.unk[a]]] = a + 1;
  op->below[0] = 0;
  op->cptr[0] = 0;
  for (int k = 0, p = 0; k < n; k++) {
    op->below[k + 1] = op->below[k];
    if (!mark[k]) continue;
    op->ykc[p] = k;
    op->ycol[mark[k] - 1] = p;
    op->cptr[p + 1] = op->cptr[p] + S->col_ptr[k + 1] - S->col_ptr[k];
    op->below[k + 1]++;
    p++;
  }
}

/* Y's rows: the rows i whose subtree holds a contact column, in ascending order, row i holding
   the below[i + 1] - below[first[i]] contact columns of that subtree. */
static void number_rows(sim_delassus_op *op) {
  int nr = 0;
  op->rptr[0] = 0;
  for (int i = 0; i < op->n; i++) {
    int cnt = op->below[i + 1] - op->below[op->first[i]];
    op->row_of[i] = cnt > 0 ? nr : -1;
    if (cnt > 0) op->rows[nr] = i, op->rptr[nr + 1] = op->rptr[nr] + cnt, nr++;
  }
  op->nr = nr;
}

/* Y by columns, each a copy of its path; then by rows, each gathered from the columns: row i's
   columns are p = below[first[i]] onwards (ascending), and a column's path ends with row i's
   own path, so (i, p) is entry cptr[p + 1] - len(i) of the copy (len: a column's path length).
   Both passes write in order, the second reading the copy where the first read S. */
static void copy_columns(sim_delassus_op *op, const sim_sparse_inverse *S) {
  int m = op->T.m, nr = op->nr;
#pragma omp parallel for schedule(dynamic, 16) if (m > 256)
  for (int p = 0; p < m; p++) {
    int k = op->ykc[p], q = op->cptr[p];
    for (int t = S->col_ptr[k]; t < S->col_ptr[k + 1]; t++, q++) {
      op->crow[q] = op->row_of[S->col_row[t]];
      op->cval[q] = S->col_val ? S->col_val[t] : (double)S->col_valf[t];
    }
  }
#pragma omp parallel for schedule(dynamic, 64) if (nr > 512)
  for (int r = 0; r < nr; r++) {
    int i = op->rows[r], len = S->col_ptr[i + 1] - S->col_ptr[i];
    int p = op->below[op->first[i]];
    for (int e = op->rptr[r]; e < op->rptr[r + 1]; e++, p++) {
      op->rcol[e] = p;
      op->rval[e] = op->cval[op->cptr[p + 1] - len];
    }
  }
}

int sim_delassus_op_build(sim_delassus_op *op, const sim_contact *c, int nc, const int *free_of,
                          const sim_sparse_inverse *S, sim_status *st) {
  sim_delassus_terms_free(&op->T);
  op->nr = 0;
  op->nnz = 0;
  if (per_order(op, S, st)) return st->code;
  if (nc == 0) return SIM_OK;
  if (sim_delassus_terms_build(c, nc, free_of, S->n, &op->T, st)) return refuse(op, st, "terms");
  int m = op->T.m;
  if (per_vertices(op, m)) return refuse(op, st, "contact vertices");
  order_columns(op, S);
  long long nnz = op->cptr[m];
  if (per_entries(op, nnz)) return refuse(op, st, "columns of S");
  number_rows(op);
  copy_columns(op, S);
  op->nnz = nnz;
  return SIM_OK;
}

/* g = H_free^T x on Y's columns (stride SIM_OP_STRIDE, the pad 0): serial, in contact order, the
   sums of sim_rows_apply_T. */
static void h_transpose(const sim_delassus_op *op, const sim_contact *c, int nc, const double *x) {
  const sim_delassus_terms *T = &op->T;
  double *g = op->g;
  memset(g, 0, sizeof(double) * SIM_OP_STRIDE * (size_t)T->m);
  for (int j = 0, i = 0; j < nc; j++) {
    const double *lj = x + 3 * (size_t)j;
    if (c[j].kind == SIM_CONTACT_CABLE) {
      for (int t = T->cab_ptr[i]; t < T->cab_ptr[i + 1]; t++) {
        int a = T->cab_loc[t];
        if (a >= 0)
          for (int d = 0; d < 3; d++)
            g[SIM_OP_STRIDE * op->ycol[a] + d] += lj[0] * T->cab_g[3 * (size_t)t + d];
      }
      i++;
      continue;
    }
    double s[3] = {0, 0, 0};
    const double *dir[3] = {c[j].n, c[j].t1, c[j].t2};
    for (int r = 0; r < 3; r++)
      for (int d = 0; d < 3; d++) s[d] += lj[r] * dir[r][d];
    for (int t = 0; t < 4; t++) {
      int a = T->tloc[4 * j + t];
      if (a >= 0)
        for (int d = 0; d < 3; d++)
          g[SIM_OP_STRIDE * op->ycol[a] + d] += T->tbeta[4 * j + t] * s[d];
    }
  }
}

/* out's rows of contact j = H_free w (a cable's from h_cables): sim_rows_apply's sums. */
static inline void h_rows(const sim_delassus_op *op, const sim_contact *c, int j, double *out) {
  const sim_delassus_terms *T = &op->T;
  const double *w = op->w;
  double y[3] = {0, 0, 0};
  for (int t = 0; t < 4; t++) {
    int a = T->tloc[4 * j + t];
    if (a < 0) continue;
    for (int d = 0; d < 3; d++) y[d] += T->tbeta[4 * j + t] * w[3 * op->ycol[a] + d];
  }
  const double *dir[3] = {c[j].n, c[j].t1, c[j].t2};
  for (int r = 0; r < 3; r++)
    out[3 * j + r] = dir[r][0] * y[0] + dir[r][1] * y[1] + dir[r][2] * y[2];
}

static void h_cables(const sim_delassus_op *op, double *out) {
  const sim_delassus_terms *T = &op->T;
  const double *w = op->w;
  for (int i = 0; i < T->ncab; i++) {
    int j = T->cab_j[i];
    double acc = 0.0;
    for (int t = T->cab_ptr[i]; t < T->cab_ptr[i + 1]; t++) {
      int a = T->cab_loc[t];
      if (a >= 0)
        for (int d = 0; d < 3; d++) acc += T->cab_g[3 * (size_t)t + d] * w[3 * op->ycol[a] + d];
    }
    out[3 * j] = acc;
    out[3 * j + 1] = out[3 * j + 2] = 0.0;
  }
}

/* out[0..3] = sum over e in lo..hi-1 of val[e] v[4 idx[e] + 0..3] (v's pad 0, so out[3] is 0):
   the entries at even places from lo and those at odd places in two sums, added at the end.
   Each sum waits on its last addition, so two of them keep twice the additions in flight, and
   the four components side by side are two vector operations (one with AVX2). */
SIM_LOOP_BODY void sparse_dot4(int lo, int hi, const int *idx, const double *val, const double *v,
                               double out[SIM_OP_STRIDE]) {
  double a[SIM_OP_STRIDE] = {0, 0, 0, 0}, b[SIM_OP_STRIDE] = {0, 0, 0, 0};
  int e = lo;
  for (; e + 1 < hi; e += 2) {
    const double *va = v + SIM_OP_STRIDE * (size_t)idx[e], sa = val[e];
    const double *vb = v + SIM_OP_STRIDE * (size_t)idx[e + 1], sb = val[e + 1];
    for (int k = 0; k < SIM_OP_STRIDE; k++) a[k] += sa * va[k];
    for (int k = 0; k < SIM_OP_STRIDE; k++) b[k] += sb * vb[k];
  }
  if (e < hi) {
    const double *va = v + SIM_OP_STRIDE * (size_t)idx[e], sa = val[e];
    for (int k = 0; k < SIM_OP_STRIDE; k++) a[k] += sa * va[k];
  }
  for (int k = 0; k < SIM_OP_STRIDE; k++) out[k] = a[k] + b[k];
}

/* Rows lo..hi-1 of the compressed matrix (ptr, idx, val) times v: row r's first nk sums at
   out + os r. In the baseline's build and AVX2's (base/cpu_simd.h: the same bits). */
typedef struct dot4_rows_args {
  const int *ptr, *idx;
  const double *val, *v;
  double *out;
  int os, nk;
} dot4_rows_args;

SIM_LOOP_BODY void dot4_rows_in(const dot4_rows_args *a, int lo, int hi) {
  for (int r = lo; r < hi; r++) {
    double o[SIM_OP_STRIDE];
    sparse_dot4(a->ptr[r], a->ptr[r + 1], a->idx, a->val, a->v, o);
    for (int k = 0; k < a->nk; k++) a->out[(size_t)a->os * r + k] = o[k];
  }
}

static void dot4_rows_base(const dot4_rows_args *a, int lo, int hi) { dot4_rows_in(a, lo, hi); }

SIM_AVX2_FN static void dot4_rows_avx2(const dot4_rows_args *a, int lo, int hi) {
  dot4_rows_in(a, lo, hi);
}

/* rows lo..hi-1 (at most `hi`, held to n) */
static void dot4_rows(const dot4_rows_args *a, int lo, int hi, int n, int avx2) {
  if (hi > n) hi = n;
  if (avx2)
    dot4_rows_avx2(a, lo, hi);
  else
    dot4_rows_base(a, lo, hi);
}

void sim_delassus_op_apply(sim_delassus_op *op, const sim_contact *c, int nc, const double *x,
                           double *out) {
  int m = op->T.m, nr = op->nr;
  if (nc == 0) return;
  h_transpose(op, c, nc, x);
  const int avx2 = sim_cpu_avx2();
  const dot4_rows_args zg = {op->rptr, op->rcol,      op->rval,     op->g,
                             op->z,    SIM_OP_STRIDE, SIM_OP_STRIDE};           /* z = Y g */
  const dot4_rows_args wz = {op->cptr, op->crow, op->cval, op->z, op->w, 3, 3}; /* w = Y^T z */
  /* one team for the three passes (each waits for the last at its loop's end) */
#pragma omp parallel if (nr > 512 || m > 256 || nc > 512)
  {
#pragma omp for schedule(static, 1)
    for (int r = 0; r < nr; r += 64) dot4_rows(&zg, r, r + 64, nr, avx2);
#pragma omp for schedule(dynamic, 1)
    for (int p = 0; p < m; p += 16) dot4_rows(&wz, p, p + 16, m, avx2);
#pragma omp for schedule(static, 64)
    for (int j = 0; j < nc; j++) /* out = H_free w */
      if (c[j].kind != SIM_CONTACT_CABLE) h_rows(op, c, j, out);
  }
  h_cables(op, out);
}

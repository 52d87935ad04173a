/* SPDX-License-Identifier: MIT */
/* The scalar system A_s factored once by CHOLMOD (METIS or AMD ordering), and its sparse
   inverse factor S = L^{-1} P (Sec. 4 of the paper; DESIGN.md Sec. 5). */
#ifndef SIM_FACTOR_H
#define SIM_FACTOR_H
#include <stddef.h>
#include <stdint.h>

#include "../base/status.h"
#include "../scene/scene.h"

typedef struct sim_factor sim_factor; /* opaque: CHOLMOD objects */

/* Factor the SPD matrix given by its upper triangle in CSC (n x n). `simplicial` asks for an
   exact-pattern LL^T factor (needed for S); otherwise CHOLMOD picks supernodal. Fails with
   SIM_ERR_NUMERIC when A is not positive definite. */
int sim_factor_create(int n, const int *colptr, const int *rowidx, const double *val,
                      sim_ordering ord, int simplicial, sim_factor **out, sim_status *st);
void sim_factor_destroy(sim_factor *f);
/* x = A^{-1} b for 3 columns; b and x are n x 3 interleaved (x0 y0 z0 x1 ...). */
int sim_factor_solve3(sim_factor *f, const double *b, double *x, sim_status *st);

/* A simplicial LL^T factor's L (lower triangle, CSC, each column's diagonal entry first) and
   its fill-reducing permutation: L L^T = P A P^T with (P b)_k = b[perm[k]]. Borrowed: valid
   while f lives. SIM_ERR_INTERNAL for a supernodal factor. */
typedef struct sim_factor_csc {
  int n;
  const int *p, *i; /* n + 1 column starts, p[n] row indices */
  const double *x;  /* p[n] values */
  const int *perm;  /* n */
} sim_factor_csc;
int sim_factor_lower(const sim_factor *f, sim_factor_csc *out, sim_status *st);

typedef struct sim_factor_info {
  int n;
  long long nnz_A;  /* of the full symmetric matrix */
  long long nnz_L;  /* of the factor (including the diagonal) */
  double analyze_ms, factor_ms;
  const char *ordering; /* the ordering CHOLMOD used: "metis", "amd", ... */
  sim_ordering ordering_kind; /* the same as an option (never SIM_ORDER_BEST) */
  int supernodal;
} sim_factor_info;
void sim_factor_get_info(const sim_factor *f, sim_factor_info *info);

/* Sparse inverse factor, stored twice so both products are row gathers:
   - rows: CSR of L^{-1} with column indices mapped through P (S itself: y = S b);
   - cols: CSC of L^{-1} (column k holds the elimination-tree path from k to the root),
           whose column k is written to original index perm[k] (q = S^T y).
   Values in double, or float when precision is float. */
typedef struct sim_sparse_inverse {
  int n;
  long long nnz;
  sim_precision precision;
  int *perm;                  /* n: P */
  int *row_ptr, *row_col;     /* n + 1, nnz: CSR of S, columns in original numbering */
  int *col_ptr, *col_row;     /* n + 1, nnz: CSC of L^{-1}, rows in permuted numbering */
  double *row_val, *col_val;  /* double precision values (or NULL) */
  float *row_valf, *col_valf; /* float precision values (or NULL) */
  int etree_height;
  /* 1: row i of S holds exactly the columns k = i - len_i + 1, ..., i of L^{-1} (the descendants
     of i, an interval in the elimination tree's postorder), in that order, so that entry p of
     row i is column k = p + i + 1 - row_ptr[i + 1]: a product may read P b by k instead of b by
     row_col (the CUDA backend's SIMCTL_CUDA_S_ROWS=interval; the CPU, whose default is
     CHOLMOD's solve, reads row_col). CHOLMOD postorders the tree, so this holds for every
     ordering simctl asks of it; the build checks it entry by entry rather than assume it. */
  int row_interval;
  double build_ms;
} sim_sparse_inverse;

/* Build S from a simplicial factor by the recurrence
   L^{-1}(:,k) = (e_k - sum_{i > k, L(i,k) != 0} L(i,k) L^{-1}(:,i)) / L(k,k),
   level by level from the root of the elimination tree (columns on a level are independent).
   `max_bytes` > 0 refuses (SIM_ERR_MEMORY, naming the size) before allocating more. */
int sim_sparse_inverse_build(sim_factor *f, sim_precision prec, size_t max_bytes,
                             sim_sparse_inverse *S, sim_status *st);
void sim_sparse_inverse_free(sim_sparse_inverse *S);
/* nnz(S) from the elimination tree alone (sum of path lengths), without building S. */
long long sim_sparse_inverse_count(sim_factor *f);
/* Bytes of one copy of S (values + column indices + row pointers). */
size_t sim_sparse_inverse_bytes(long long nnz, int n, sim_precision prec);
/* Column k of L^{-1}, its elimination-tree path from k to the root, as runs of consecutive rows:
   [k, top[k]] (parent(j) = j + 1 along it), then, for h = top[k], the runs of the path from
   parent(h), (first row, length) pairs runs[2 ptr[h]] ... runs[2 ptr[h + 1] - 1] (listed once for
   each such h, none for the others). The CUDA backend's SIMCTL_CUDA_S_COLS=runs reads S's
   columns through them instead of col_row. */
typedef struct sim_path_runs {
  int n;
  int *top, *ptr, *runs; /* n, n + 1, 2 nruns */
  long long nruns;
  int most;    /* the most runs a column has */
  double mean; /* runs a column, on average */
} sim_path_runs;
/* Builds R from S's columns and checks that the runs give every column's stored rows, entry by
   entry: SIM_ERR_INTERNAL naming the first column they do not (R then empty). */
int sim_path_runs_build(const sim_sparse_inverse *S, sim_path_runs *R, sim_status *st);
void sim_path_runs_free(sim_path_runs *R);

/* y = S b, x = S^T y for 3 interleaved columns (one pass over S for x, y, z). */
void sim_sparse_inverse_apply(const sim_sparse_inverse *S, const double *b, double *y,
                              double *x);

#endif

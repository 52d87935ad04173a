/* SPDX-License-Identifier: MIT */
/* The matrix-free Delassus operator W x = H_free A^{-1} H_free^T x (DESIGN.md Sec. 6) through
   the contacts' own columns of S = L^{-1} P. With A^{-1} = S^T S and H_free^T x nonzero only at
   the m free contact vertices, W x = H_free Y^T Y H_free^T x where Y = S[:, contact vertices]:
   the columns' tree paths (delassus.h), whose union has nr rows. A product reads Y twice
   (nnz(Y) entries, 3 columns each), not all of S, and the vectors between H and Y have m or nr
   entries, not nfree. Y is copied out of S once per step, by columns (the path order of S's
   CSC) and by rows (columns of L^{-1} ascending, as in S's CSR): every sum adds the terms that
   the product through all of S adds (the terms the full product adds beside them are exact
   zeros, S's entries times unknowns outside the contacts), in two interleaved sums (entries at
   even and odd places, added at the end), so the result agrees with that product to rounding,
   not bit for bit. The copy is two parallel passes that write in order: the columns from S, then
   the rows from the columns. The elimination tree is postordered (CHOLMOD's; the build refuses
   one that is not), so the columns whose path holds a row i are the ones under i, columns
   first(i) .. i, and each ends with i's own path: where (i, k) lies is a subtraction.
   Workspace: 2 nnz(Y) (int, double), the term table, 6 arrays of n ints and 4 n doubles
   (kept while S stays), 4 m + 3 m doubles; all kept across steps and grown on demand. */
#ifndef SIM_CONTACT_DELASSUS_OP_H
#define SIM_CONTACT_DELASSUS_OP_H
#include "../base/status.h"
#include "../solve/factor.h"
#include "contact.h"
#include "delassus_terms.h"

/* g's and z's doubles a vertex: x, y, z and a 0, so that a term's three products are vector
   operations */
#define SIM_OP_STRIDE 4

typedef struct sim_delassus_op {
  sim_delassus_terms T; /* the step's contact terms on m local vertices (T.m) */
  int nr;               /* rows of Y: the union of the local vertices' paths */
  long long nnz;        /* entries of Y */
  int *ycol;            /* m: Y's column of local vertex a (columns ordered as L^{-1}'s) */
  int *cptr, *crow;     /* Y by columns (m + 1, nnz), rows as Y's row numbers (0 .. nr - 1) */
  double *cval;
  int *rptr, *rcol; /* Y by rows (nr + 1, nnz), Y's columns ascending */
  double *rval;
  double *g, *z, *w; /* 4 m (H^T x by Y's columns), 4 nr (Y g): SIM_OP_STRIDE a vertex, the
                        fourth 0; 3 m (Y^T z) */
  int *row_of;       /* n: Y's row of a row of L^{-1}, or -1 */
  int *kcol;         /* n: the column of L^{-1} that is column u of S (the inverse of P) */
  int *first;        /* n: the lowest column in i's elimination subtree (postordered: first .. i) */
  int *below;        /* n + 1: the contact columns below column k */
  int *rows;         /* n (nr used): Y's rows as rows of L^{-1} */
  int *ykc;          /* m: Y's columns' columns of L^{-1} */
  size_t nnz_cap, m_cap, nr_cap;
  int n; /* S's order (row_of and kcol hold n) */
} sim_delassus_op;

/* Y for the contacts c (nc; free_of: vertex -> unknown of A_s or -1, NULL: the identity) from
   S (double or float values: float ones widen exactly). op starts zeroed and is reused across
   steps with the same S. SIM_ERR_MEMORY where a buffer cannot grow, SIM_ERR_INTERNAL where S's
   elimination tree is not postordered: op then holds no operator (op->T.m == 0 and nr == 0)
   but stays valid for sim_delassus_op_free and another build. */
int sim_delassus_op_build(sim_delassus_op *op, const sim_contact *c, int nc, const int *free_of,
                          const sim_sparse_inverse *S, sim_status *st);

/* out (3 nc) = W x for the contacts of the last build (the same c and nc). Rows in parallel;
   every sum in a fixed order: deterministic whatever the threads. */
void sim_delassus_op_apply(sim_delassus_op *op, const sim_contact *c, int nc, const double *x,
                           double *out);

void sim_delassus_op_free(sim_delassus_op *op);

#endif

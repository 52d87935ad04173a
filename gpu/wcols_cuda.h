// SPDX-License-Identifier: MIT
// The matrix-free Delassus operator's solve through the contacts' own columns of S on the
// device (the CPU's core/contact/delassus_op.h): with A^{-1} = S^T S and H_free^T x nonzero only
// at the contact vertices, A^{-1} H_free^T x there is Y^T (Y g), Y = S[:, contact vertices],
// whose columns are their elimination-tree paths. Nothing is copied out of S: S's columns
// serve both passes. Row i of Y holds the contact columns under i in the (postordered)
// elimination tree, which are consecutive in Y's column order, and each of those columns ends
// with i's own path, so entry (i, p) of Y is S's value at (the end of column p) - len(i):
//   z_i = sum_p Y_ip g_p   a warp per row of L^{-1} with contact columns under it,
//   w_p = sum_i Y_ip z_i   a warp per contact column (S's column itself),
// each warp's lanes adding strided parts, then the shuffles (the device's order, not the CPU's
// left to right: the products agree to rounding). Per step (after the Delassus builder's build
// of the same contacts): the columns marked, a scan that orders them, their ends; per S once:
// each column's subtree's first column (a one-thread pass) and the tree's postorder checked.
// Private to gpu/.
#ifndef SIM_GPU_WCOLS_CUDA_H
#define SIM_GPU_WCOLS_CUDA_H
#include "cuda_ctx.h"
#include "delassus_cuda.h"
extern "C" {
#include "../core/contact/delassus_terms.h"
}

typedef struct cuda_wcols {
  sim_delassus_cols S;    // S's columns on the device (the Delassus builder's)
  int n, m;               // S's order; this step's contact vertices (-1: no operator this step)
  int postordered;        // S's elimination tree, checked once (-1: not yet)
  int *first;             // n: the lowest column of column i's subtree
  int *perm;              // n: the unknown of column k (S's P)
  int *mark;              // n + 1: contact columns (1), then scratch
  int *below;             // n + 1: contact columns below column k (mark's exclusive scan)
  int *ycol, *yu, *yend;  // m: Y's columns' columns of L^{-1}, unknowns, ends in S's columns
  double *z;              // 3 n kmax: Y g by row of L^{-1}, a vector after another
  int *ok;                // 1: the postorder check's result on the device
  void *scan;             // the scan's workspace
  size_t scan_bytes, n_cap, m_cap;
  int kmax;  // the vectors z holds (1 until sim_cuda_wcols_batch)
} cuda_wcols;

// This step's operator from the Delassus builder's last build (the same contacts). -1 where
// there is none to build (no build, a tree that is not postordered: the caller goes through
// all of S instead); SIM_OK, or a device error.
int sim_cuda_wcols_build(cuda_ctx *c, cuda_wcols *w, const sim_cuda_delassus *del, sim_status *st);
// The most vectors a product with W takes at once (dense, or matrix-free here): the line
// search's trials in one pass over W or S.
#define SIM_W_BATCH 16

// Room in z for K <= SIM_W_BATCH vectors (none is kept; once per S where K does not change).
int sim_cuda_wcols_batch(cuda_ctx *c, cuda_wcols *w, int K, sim_status *st);
// wq[3 free_vert[u] + d] = (A^{-1} g)_u at this step's contact unknowns u (g: 3 nfree by unknown;
// free_vert: unknown -> row of wq, on the device; the other entries of wq untouched), for K <=
// w->kmax vectors at once (g_t = g + t gs, wq_t = wq + t ws), reading S's entries once for
// all K; each product has a single one's bits. Nothing where the device int *gate is 0 (NULL:
// always). The kernels read this step's count of contact columns on the device and their grids
// follow the arrays' capacity, so the same launches serve every step the arrays hold (a graph).
// Queued on c's stream.
int sim_cuda_wcols_apply(cuda_ctx *c, cuda_wcols *w, const double *g, size_t gs,
                         const int *free_vert, double *wq, size_t ws, int K, const int *gate,
                         sim_status *st);
void sim_cuda_wcols_free(cuda_ctx *c, cuda_wcols *w);

#endif

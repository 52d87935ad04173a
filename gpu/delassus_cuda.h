/* SPDX-License-Identifier: MIT */
/* The Delassus operator W = H_free A^{-1} H_free^T on the device (core/contact/delassus.h states
   the formulas; core/contact/delassus_terms.h holds the per-entry arithmetic both sides run), from
   the columns of S = L^{-1} P resident there:
   - dense (up to contact.delassus's limit): K = Y^T Y over the m distinct free contact vertices
     (a thread per pair a <= b: the dot product of two elimination-tree paths' common tail),
     G = beta^T K beta per contact pair, W's 3 x 3 blocks g_js c_{j,r} . c_{s,r'}, the cables'
     rows; W stays on the device for the Newton solve's products, its diagonal comes back;
   - matrix-free: only diag(W), a thread per contact (its own terms' path products) and cable.
   The host builds the term table (which vertices, weights, cables: O(contacts)) and uploads it
   with the contacts, or the device forms it from the caller's device copy of them
   (sim_cuda_delassus_build_on); nothing of S crosses. The
   entries are the host's to the last bit (the same functions, the same order, no fused
   multiply-adds). Usable from C. In a build without CUDA, gpu/backend_none.c's versions of
   these functions report SIM_ERR_DEVICE (sim_cuda_delassus_build_on is the CUDA backend's
   alone). */
#ifndef SIM_GPU_DELASSUS_CUDA_H
#define SIM_GPU_DELASSUS_CUDA_H
#include <stddef.h>

#include "../core/contact/contact.h"
#include "../core/solve/factor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_cuda_delassus sim_cuda_delassus;

/* A builder queueing its work on `stream` (a cudaStream_t; NULL: one of its own). */
int sim_cuda_delassus_create(void *stream, sim_cuda_delassus **out, sim_status *st);
/* S's columns already on the device (borrowed: the CUDA backend's), n unknowns; perm (host, n)
   is S's permutation P (copied). */
int sim_cuda_delassus_use_S(sim_cuda_delassus *k, int n, const int *col_ptr, const int *col_row,
                            const double *col_val, const float *col_valf, const int *perm,
                            sim_status *st);
/* A device copy of host S's columns (for tests and standalone use). */
int sim_cuda_delassus_upload_S(sim_cuda_delassus *k, const sim_sparse_inverse *S,
                               sim_status *st);
/* The operator's forms (sim_cuda_delassus_build's `dense`): diag(W) alone (matrix-free), W
   itself, or W's block form (core/contact/wblocks.h: G, the frames and the cables' rows). */
enum { SIM_CUDA_W_DIAG = 0, SIM_CUDA_W_DENSE = 1, SIM_CUDA_W_BLOCKS = 2 };
/* This step's operator for the nc contacts (free_of: vertex -> unknown or -1) in the form
   `dense` (SIM_CUDA_W_*): W (3 nc x 3 nc, row-major) or its block form on the device, or
   neither; either way diag(W) goes to host `diag` (3 nc), or with diag NULL stays on the device
   alone (sim_cuda_delassus_diag), without a wait. max_bytes > 0 refuses a dense W whose build
   needs more (sim_delassus_bytes, sim_delassus_blocks_bytes), as the host does. */
int sim_cuda_delassus_build(sim_cuda_delassus *k, const sim_contact *c, int nc, const int *free_of,
                            int dense, size_t max_bytes, double *diag, sim_status *st);
/* The same where the nc contacts c and free_of are on the device already, at dev_c and
   dev_free_of (the CUDA backend's copies, rows_cuda.cu; both NULL: as above): the term table
   is formed there from them, and only the cables' terms go up; the host reads c for the number
   of contact vertices (the memory limit, K's size) and the cables. */
int sim_cuda_delassus_build_on(sim_cuda_delassus *k, const sim_contact *c,
                               const sim_contact *dev_c, const int *dev_free_of, int nc,
                               const int *free_of, int dense, size_t max_bytes, double *diag,
                               sim_status *st);
/* The last build's contact vertices (the CUDA backend's alone, gpu/wcols_cuda.cu): S's columns
   and order n, the m vertices' columns of L^{-1} kc (device, local number a -> column) and the
   host's inverse permutation ip (unknown -> column). -1 before a build (or without S). */
struct sim_delassus_cols;
int sim_cuda_delassus_vertices(const sim_cuda_delassus *k, struct sim_delassus_cols *S, int *n,
                               int *m, const int **kc, const int **ip);
/* x = A^{-1} g at the last build's contact unknowns (host vectors of 3 nfree by unknown; x's
   other entries kept): the matrix-free W's solve through their columns of S
   (gpu/wcols_cuda.cu), for tests and standalone use. -1 where the last build gives no such
   operator (S's elimination tree not postordered). */
int sim_cuda_delassus_solve_cols(sim_cuda_delassus *k, const double *g, double *x, sim_status *st);
/* diag(W) of the last build on the device (3 nc doubles, valid until the next build). */
const double *sim_cuda_delassus_diag(const sim_cuda_delassus *k);
/* The last dense W on the device (NULL before one), and a host copy of it (9 nc^2 doubles). */
const double *sim_cuda_delassus_W(const sim_cuda_delassus *k);
int sim_cuda_delassus_download(sim_cuda_delassus *k, double *W, sim_status *st);
/* The last build's block form on the device (SIM_CUDA_W_BLOCKS; wblocks.h's layout, its
   arrays valid until the next build), or -1 where the last build made none. */
typedef struct sim_cuda_wblocks {
  int nc, ncab;
  const double *G;       /* nc x nc, row-major */
  const double *frame;   /* 9 nc */
  const int *cab_j;      /* ncab */
  const double *cab_row; /* ncab x 3 nc */
} sim_cuda_wblocks;
int sim_cuda_delassus_blocks(const sim_cuda_delassus *k, sim_cuda_wblocks *B);
/* Host copies of the last block form's G, frames and cables' rows (sim_wblocks' sizes). */
int sim_cuda_delassus_download_blocks(sim_cuda_delassus *k, double *G, double *frame,
                                      double *cab_row, sim_status *st);
size_t sim_cuda_delassus_bytes(const sim_cuda_delassus *k); /* device memory it holds */
void sim_cuda_delassus_destroy(sim_cuda_delassus *k);

#ifdef __cplusplus
}
#endif
#endif

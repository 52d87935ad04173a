/* SPDX-License-Identifier: MIT */
/* The Delassus operator W = H_free A^{-1} H_free^T of the contact rows (DESIGN.md Sec. 6),
   dense 3 nc x 3 nc, row-major, exactly symmetric. With A = kron(A_s, I3) and row 3j + r
   equal to c_{j,r} times sum_a beta_a q_a (core/contact/rows.h):
     W_{3j+r, 3s+r'} = (c_{j,r} . c_{s,r'}) * sum_{a in j, b in s} beta_a beta_b K_ab,
     K_ab = [A_s^{-1}]_{ab} over the m distinct free contact vertices (pinned vertices have
   known positions: they contribute nothing). K comes from one of:
   - SPARSE_INVERSE: K = Y^T Y, Y = S[:, contact vertices], S = L^{-1} P. Column u of S is
     column k = P^{-1}(u) of L^{-1}, nonzero on the elimination-tree path from k to the root,
     so K_ab is a dot product over the two paths' common tail (from their lowest common
     ancestor up);
   - CHOLMOD: X = A_s^{-1} E_m by triangular solves, 3 unit right-hand sides per solve,
     K = E_m^T X.
   Both give W to rounding (tests/test_delassus.c). A cable's row (contact.h CABLE) is not a
   direction times a vertex combination: its entries are sum_{a, b} (g_a . coefficient_b) K_ab
   over its terms a (vertices in K too), and its empty rows 1 and 2 are 0. */
#ifndef SIM_CONTACT_DELASSUS_H
#define SIM_CONTACT_DELASSUS_H
#include <stddef.h>

#include "../base/status.h"
#include "../solve/factor.h"
#include "contact.h"
#include "wblocks.h"

typedef enum {
  /* SPARSE_INVERSE when S is given, CHOLMOD otherwise. On a 20^3 grid (n 8000) with 1000
     contact vertices, 2 cores: K by S 75-105 ms vs 540-600 ms by 334 CHOLMOD solves (the
     solves are sequential; the path dot products run in parallel). */
  SIM_DELASSUS_AUTO,
  SIM_DELASSUS_SPARSE_INVERSE, /* needs S (double or float values) */
  SIM_DELASSUS_CHOLMOD         /* needs the factor (simplicial or supernodal) */
} sim_delassus_method;

typedef struct sim_delassus_info {
  sim_delassus_method method; /* the method used */
  int m;                      /* distinct free contact vertices */
  double k_ms, w_ms;          /* time to form K, then W from K */
} sim_delassus_info;

/* Bytes the build needs: W (9 nc^2 doubles) plus workspace: g_js (nc^2), K (m^2), O(nfree). */
size_t sim_delassus_bytes(int nc, int m, int nfree);
/* The same for the block form (sim_delassus_build_blocks) with ncab cables: G, the frames and
   the cables' rows (sim_wblocks_bytes) in place of W. */
size_t sim_delassus_blocks_bytes(int nc, int m, int nfree, int ncab);

/* The refusal of a dense W (nc contacts, m contact vertices) that needs `need` bytes, over
   max_bytes (solver.dense_max_mib): SIM_ERR_MEMORY, one message for both backends. */
int sim_delassus_refuse(int nc, int m, size_t need, size_t max_bytes, sim_status *st);

/* Fills *W (3 nc x 3 nc). *W and *W_cap (doubles) are a buffer kept across steps: start with
   NULL and 0; it is (re)allocated when too small (free it with sim_free); fresh pages cost
   page faults on every touch, so reuse pays. free_of: vertex -> unknown of A_s or -1 (NULL:
   every vertex is its own unknown). f or S may be NULL where the method does not need them.
   max_bytes > 0 refuses (SIM_ERR_MEMORY, naming the size) before allocating more. On failure
   *W is freed (NULL, cap 0). info may be NULL. nc == 0 leaves *W as it is. */
int sim_delassus_build(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                       const sim_sparse_inverse *S, sim_delassus_method method, size_t max_bytes,
                       double **W, size_t *W_cap, sim_delassus_info *info, sim_status *st);

/* The same operator in its block form (wblocks.h): G, the contacts' frames and the cables'
   rows into *B, kept across steps (start with {0}; sim_wblocks_free). max_bytes, info and the
   failures as sim_delassus_build's (on failure B is freed); nc == 0 leaves B empty. */
int sim_delassus_build_blocks(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                              const sim_sparse_inverse *S, sim_delassus_method method,
                              size_t max_bytes, sim_wblocks *B, sim_delassus_info *info,
                              sim_status *st);

/* diag[i] = W_ii (3 nc) without forming W, for the complementarity preconditioner (Eq. 28):
   W_{3j+r,3j+r} = |c_r|^2 sum_{a,b in j} beta_a beta_b K_ab. With S: path dot products of the
   contact's own vertices only; without S (S == NULL): CHOLMOD solves on the m vertices. */
int sim_delassus_diag(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                      const sim_sparse_inverse *S, double *diag, sim_status *st);

#endif

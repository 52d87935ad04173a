/* SPDX-License-Identifier: MIT */
/* The dense Delassus operator in its block form (DESIGN.md Sec. 6): with A = kron(A_s, I3),
   W's 3 x 3 block between contacts j and s is g_js C_j C_s^T, where C_j holds the contact's
   directions (n, t1, t2) as rows and g_js = sum_{a in j, b in s} beta_a beta_b K_ab (G,
   nc x nc, symmetric; delassus.h). So
     W x = C u,  u_j = sum_s g_js t_s,  t_s = C_s^T x_s   (x_s, t_s, u_j: 3-vectors),
   a product that reads G's nc^2 entries where the formed W has 9 nc^2. A cable's row is not
   a direction times a vertex combination (delassus.h): its contact has a zero frame and a zero
   row of G, and its row of W is kept whole (3 nc entries), added to the other rows as W's
   column by symmetry. Built by sim_delassus_build_blocks (delassus.h). */
#ifndef SIM_CONTACT_WBLOCKS_H
#define SIM_CONTACT_WBLOCKS_H
#include <stddef.h>

#include "../base/mathx.h"

typedef struct sim_wblocks {
  int nc;          /* contacts */
  double *G;       /* nc x nc, row-major, exactly symmetric */
  double *frame;   /* 9 nc: contact j's n, t1, t2 at 9j, 9j + 3, 9j + 6 (a cable's: 0) */
  int ncab;        /* cables */
  int *cab_j;      /* ncab: a cable's contact */
  double *cab_row; /* ncab x 3 nc: row 3 cab_j[i] of W */
  size_t g_cap;    /* doubles G holds; the others grow with nc (contacts) and ncab */
  int nc_cap, cab_cap;
} sim_wblocks;

/* t = C_s^T x_s: contact s's frame f (its directions as rows: f[3r + d]) times its three rows'
   values x, the product's first half on both backends (gpu/contact_cuda.h k_blk_cols). */
SIM_HD void sim_wblocks_ct(const double f[9], const double x[3], double t[3]) {
  for (int d = 0; d < 3; d++) t[d] = f[d] * x[0] + f[3 + d] * x[1] + f[6 + d] * x[2];
}

/* diag(W) of a contact's three rows from g_jj and its frame f: g_jj c_{j,r} . c_{j,r} (W's own
   diagonal entries, sim_delassus_block's, to the bit; a cable's 0, its entry then from its row). */
SIM_HD void sim_wblocks_diag3(double g, const double f[9], double d[3]) {
  for (int r = 0; r < 3; r++) d[r] = g * sim_dot3(f + 3 * r, f + 3 * r);
}

void sim_wblocks_free(sim_wblocks *B);
/* Room for nc contacts and ncab cables (contents undefined); -1 on allocation failure, with B
   emptied. */
int sim_wblocks_reserve(sim_wblocks *B, int nc, int ncab);
/* Bytes B needs for nc contacts and ncab cables. */
size_t sim_wblocks_bytes(int nc, int ncab);
/* y = W x (3 nc each). Gf: G rounded to float (sim_wblocks_round), read in place of G and
   widened, the sums in double; NULL: G. t: 3 nc doubles of workspace. u_j's three sums add
   over s in the order of the CUDA backend's warp per row (lane_dot.h, as the CPU's dense W): lane l
   adds s = l, l + 32, ..., then the lanes pairwise. Contacts in parallel: the same bits for any
   thread count. */
void sim_wblocks_apply(const sim_wblocks *B, const float *Gf, const double *x, double *y,
                       double *t);
/* diag(W) (3 nc): the same bits as the formed W's diagonal. */
void sim_wblocks_diag(const sim_wblocks *B, double *diag);
/* Gf (nc^2 floats) = G rounded to float. */
void sim_wblocks_round(const sim_wblocks *B, float *Gf);

#endif

/* SPDX-License-Identifier: MIT */
/* The grid matrix's (grid_matrix.h) factor and S = L^{-1} P, for the sparse-inverse and Delassus
   tests. */
#ifndef SIM_TEST_GRID_S_H
#define SIM_TEST_GRID_S_H
#include <stdlib.h>

#include "../core/solve/factor.h"
#include "check.h"
#include "grid_matrix.h"

/* The nx x ny x nz grid's simplicial factor in ordering `ord` (*f, the caller's to destroy) and
   its S in double (the caller's to free), each checked to succeed; returns the unknowns. */
static inline int grid_S(int nx, int ny, int nz, sim_ordering ord, sim_factor **f,
                         sim_sparse_inverse *S) {
  int *cp, *ri;
  double *v;
  int n = grid_matrix(nx, ny, nz, &cp, &ri, &v);
  sim_status st = {0};
  *f = NULL;
  CHECK_INT(sim_factor_create(n, cp, ri, v, ord, 1, f, &st), SIM_OK);
  CHECK_INT(sim_sparse_inverse_build(*f, SIM_PREC_DOUBLE, 0, S, &st), SIM_OK);
  free(cp), free(ri), free(v);
  return n;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Global solvers for comparison with the complete solution (paper Sec. 7.3): one Jacobi
   iteration per L-G iteration (Wang 2015, optionally Chebyshev-accelerated) and a dense
   A_s^{-1} for small meshes. */
#ifndef SIM_GLOBAL_VARIANTS_H
#define SIM_GLOBAL_VARIANTS_H
#include <stddef.h>

#include "../base/status.h"
#include "factor.h"

/* A_s in full (both triangles) CSR, and the inverse of its diagonal. */
typedef struct sim_jacobi {
  int n;
  int *ptr, *col;
  double *val, *dinv;
} sim_jacobi;

/* From the upper triangle in CSC (as sim_model stores A_s). */
int sim_jacobi_build(int n, const int *colptr, const int *rowidx, const double *val,
                     sim_jacobi *J, sim_status *st);
void sim_jacobi_free(sim_jacobi *J);
/* x_out = x + D^{-1} (b - A x) for 3 interleaved columns (x_out != x). */
void sim_jacobi_iterate(const sim_jacobi *J, const double *b, const double *x, double *x_out);

/* Chebyshev weight of Wang 2015: omega_1 = 1, omega_2 = 2 / (2 - rho^2),
   omega_{k+1} = 4 / (4 - rho^2 omega_k); k counts iterations from 1 within a frame. */
double sim_chebyshev_omega(int k, double rho, double omega_prev);

typedef struct sim_dense_inverse {
  int n;
  double *inv; /* n x n, row-major */
} sim_dense_inverse;

/* Bytes a dense inverse of order n takes. */
size_t sim_dense_inverse_bytes(int n);
/* Builds A_s^{-1} column block by column block with the factor's solves; refuses with
   SIM_ERR_MEMORY, naming the size, when it needs more than max_bytes. */
int sim_dense_inverse_build(sim_factor *f, int n, size_t max_bytes, sim_dense_inverse *D,
                            sim_status *st);
void sim_dense_inverse_free(sim_dense_inverse *D);
void sim_dense_inverse_apply(const sim_dense_inverse *D, const double *b, double *x);

#endif

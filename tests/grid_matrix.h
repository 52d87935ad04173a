/* SPDX-License-Identifier: MIT */
/* A small SPD test matrix shared by the factor, sparse-inverse and Delassus tests. */
#ifndef SIM_TEST_GRID_MATRIX_H
#define SIM_TEST_GRID_MATRIX_H
#include <stdlib.h>

/* Upper triangle (CSC) of M + K, K the 7-point Laplacian of an nx x ny x nz grid. */
static inline int grid_matrix(int nx, int ny, int nz, int **cp, int **ri, double **v) {
  int n = nx * ny * nz;
  *cp = malloc(sizeof(int) * (n + 1));
  *ri = malloc(sizeof(int) * 4 * n);
  *v = malloc(sizeof(double) * 4 * n);
  int nnz = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int c = i + nx * (j + ny * k);
        (*cp)[c] = nnz;
        /* rows < c in increasing order: -z, -y, -x neighbours, then the diagonal */
        int nb[3] = {k > 0 ? c - nx * ny : -1, j > 0 ? c - nx : -1, i > 0 ? c - 1 : -1};
        for (int t = 0; t < 3; t++)
          if (nb[t] >= 0) {
            (*ri)[nnz] = nb[t];
            (*v)[nnz++] = -1.0 - 0.01 * ((c * 7 + t) % 5);
          }
        (*ri)[nnz] = c;
        (*v)[nnz++] = 6.5 + 0.1 * (c % 3);
      }
  (*cp)[n] = nnz;
  return n;
}

#endif

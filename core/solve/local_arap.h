/* SPDX-License-Identifier: MIT */
/* Per-element ARAP math shared by host and device (Eq. 5 with zeta = rotations). */
#ifndef SIM_LOCAL_ARAP_H
#define SIM_LOCAL_ARAP_H
#include "../model/model.h"
#include "svd3.h"

/* F = sum_a x_a g_a^T (row-major 3x3; a cloth triangle's third column is 0). */
SIM_HD void sim_elem_deformation(const sim_elem *t, const double *q, double F[9]) {
  for (int i = 0; i < 9; i++) F[i] = 0.0;
  for (int a = 0; a < t->nv; a++) {
    const double *x = q + 3 * (size_t)t->v[a];
    for (int c = 0; c < 3; c++)
      for (int d = 0; d < 3; d++) F[3 * c + d] += x[c] * t->g[a][d];
  }
}

/* p_i = closest rotation to F_i (for a triangle the first two columns are the closest 3x2
   matrix with orthonormal columns: F's zero third column is its smallest singular direction). */
SIM_HD void sim_arap_project(const sim_elem *t, const double *q, double R[9]) {
  double F[9];
  sim_elem_deformation(t, q, F);
  sim_polar_rotation(F, R);
}

/* b += h^2 w_i P g_a: corner a's share of h^2 w_i G_i^T p_i (P = R, or z - u for ADMM-PD). */
SIM_HD void sim_arap_rhs_add(const sim_elem *t, const double R[9], int a, double h2, double b[3]) {
  double s = h2 * t->w;
  for (int c = 0; c < 3; c++)
    b[c] += s * (R[3 * c] * t->g[a][0] + R[3 * c + 1] * t->g[a][1] + R[3 * c + 2] * t->g[a][2]);
}

/* w_i / 2 |F - R(F)|^2 = mu V |F - R|^2 (over F's dim columns). */
SIM_HD double sim_arap_energy(const sim_elem *t, const double *q) {
  double F[9], R[9];
  sim_elem_deformation(t, q, F);
  sim_polar_rotation(F, R);
  double s = 0;
  for (int c = 0; c < 3; c++)
    for (int d = 0; d < t->dim; d++) s += (F[3 * c + d] - R[3 * c + d]) * (F[3 * c + d] - R[3 * c + d]);
  return 0.5 * t->w * s;
}

#endif

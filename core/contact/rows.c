/* SPDX-License-Identifier: MIT */
/* Contact rows H (3 per contact): products H x and H^T lambda, and the targets (DESIGN.md
   Sec. 6; Eq. 40 for the friction targets). */
#include "rows.h"

#include <stddef.h>

static const double *dir(const sim_contact *c, int r) {
  return r == 0 ? c->n : (r == 1 ? c->t1 : c->t2);
}

/* index of vertex v in the vector, or -1 when it is pinned (free_of given) */
static int slot(const int *free_of, int v) { return free_of ? free_of[v] : v; }

void sim_rows_apply(const sim_contact *c, int nc, const int *free_of, const double *x,
                    double *out) {
#pragma omp parallel for schedule(static, 64) if (nc > 512)
  for (int j = 0; j < nc; j++) {
    if (c[j].kind == SIM_CONTACT_CABLE) {
      const sim_cable_row *row = c[j].cable;
      double acc = 0.0;
      for (int t = 0; t < row->nt; t++) {
        int s = slot(free_of, row->vert[t]);
        if (s >= 0)
          for (int d = 0; d < 3; d++) acc += row->g[t][d] * x[3 * (size_t)s + d];
      }
      out[3 * j] = acc;
      out[3 * j + 1] = out[3 * j + 2] = 0.0;
      continue;
    }
    int vert[4];
    double beta[4];
    int nt = sim_rows_terms(&c[j], vert, beta);
    /* C_j x = sum_a beta_a x_a, then H_{3j+r} x = c_r . (C_j x) */
    double y[3] = {0, 0, 0};
    for (int a = 0; a < nt; a++) {
      int s = slot(free_of, vert[a]);
      if (s < 0) continue;
      for (int d = 0; d < 3; d++) y[d] += beta[a] * x[3 * (size_t)s + d];
    }
    for (int r = 0; r < 3; r++) {
      const double *cr = dir(&c[j], r);
      out[3 * j + r] = cr[0] * y[0] + cr[1] * y[1] + cr[2] * y[2];
    }
  }
}

void sim_rows_apply_T(const sim_contact *c, int nc, const int *free_of, const double *lambda,
                      double *f) {
  for (int j = 0; j < nc; j++) {
    if (c[j].kind == SIM_CONTACT_CABLE) { /* row 0 only: f_vert += lambda g */
      const sim_cable_row *row = c[j].cable;
      for (int t = 0; t < row->nt; t++) {
        int s = slot(free_of, row->vert[t]);
        if (s >= 0)
          for (int d = 0; d < 3; d++) f[3 * (size_t)s + d] += lambda[3 * j] * row->g[t][d];
      }
      continue;
    }
    /* H_j^T lambda_j = C_j^T (sum_r lambda_{3j+r} c_r) */
    double g[3] = {0, 0, 0};
    for (int r = 0; r < 3; r++) {
      const double *cr = dir(&c[j], r);
      for (int d = 0; d < 3; d++) g[d] += lambda[3 * j + r] * cr[d];
    }
    int vert[4];
    double beta[4];
    int nt = sim_rows_terms(&c[j], vert, beta);
    for (int a = 0; a < nt; a++) {
      int s = slot(free_of, vert[a]);
      if (s < 0) continue;
      for (int d = 0; d < 3; d++) f[3 * (size_t)s + d] += beta[a] * g[d];
    }
  }
}

void sim_rows_targets(const sim_contact *c, int nc, double min_sep, double *d) {
  for (int j = 0; j < nc; j++)
    sim_rows_target(&c[j], min_sep, c[j].kind == SIM_CONTACT_CABLE ? c[j].cable->target : 0.0,
                    d + 3 * (size_t)j);
}

/* SPDX-License-Identifier: MIT */
/* The block form of the dense Delassus operator (wblocks.h): storage and the product. */
#include "wblocks.h"

#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "lane_dot.h"

void sim_wblocks_free(sim_wblocks *B) {
  sim_free(B->G), sim_free(B->frame), sim_free(B->cab_j), sim_free(B->cab_row);
  memset(B, 0, sizeof *B);
}

size_t sim_wblocks_bytes(int nc, int ncab) {
  return sizeof(double) * ((size_t)nc * (size_t)nc + 9 * (size_t)nc + 3 * (size_t)ncab * nc) +
         sizeof(int) * (size_t)ncab;
}

int sim_wblocks_reserve(sim_wblocks *B, int nc, int ncab) {
  const size_t nn = (size_t)nc * (size_t)nc;
  if (nn > B->g_cap) {
    sim_free(B->G);
    B->g_cap = (B->G = SIM_NEW(double, nn ? nn : 1)) ? nn : 0;
  }
  if (nc > B->nc_cap || ncab > B->cab_cap) { /* the cable rows grow with nc too */
    sim_free(B->frame), sim_free(B->cab_j), sim_free(B->cab_row);
    int n = nc > B->nc_cap ? nc : B->nc_cap, k = ncab > B->cab_cap ? ncab : B->cab_cap;
    B->frame = SIM_NEW(double, 9 * (size_t)n + 1);
    B->cab_j = SIM_NEW(int, (size_t)k + 1);
    B->cab_row = SIM_NEW(double, 3 * (size_t)k * (size_t)n + 1);
    B->nc_cap = n, B->cab_cap = k;
  }
  if (!B->G || !B->frame || !B->cab_j || !B->cab_row) {
    sim_wblocks_free(B);
    return -1;
  }
  B->nc = nc, B->ncab = ncab;
  return 0;
}

void sim_wblocks_apply(const sim_wblocks *B, const float *Gf, const double *x, double *y,
                       double *t) {
  const int nc = B->nc;
  const size_t n = (size_t)nc;
  for (int s = 0; s < nc; s++) { /* t_s = C_s^T x_s */
    double ts[3];
    sim_wblocks_ct(B->frame + 9 * (size_t)s, x + 3 * (size_t)s, ts);
    for (int d = 0; d < 3; d++) t[d * n + s] = ts[d];
  }
#pragma omp parallel for schedule(static) if (nc > 128)
  for (int j = 0; j < nc; j++) {
    double u[3]; /* a component at a time: G's row, read three times, stays in the cache */
    for (int d = 0; d < 3; d++)
      u[d] = sim_lane_dot(B->G + (size_t)j * n, Gf ? Gf + (size_t)j * n : NULL, t + d * n, nc);
    for (int r = 0; r < 3; r++)
      y[3 * (size_t)j + r] = sim_dot3(B->frame + 9 * (size_t)j + 3 * r, u);
  }
  for (int i = 0; i < B->ncab; i++) { /* a cable's row, and its column in the others' rows */
    const double *row = B->cab_row + 3 * (size_t)i * n;
    const size_t j = 3 * (size_t)B->cab_j[i];
    const double xj = x[j];
    for (size_t r = 0; r < 3 * n; r++) y[r] += row[r] * xj;
  }
  for (int i = 0; i < B->ncab; i++) { /* a cable's own row replaces the sums above */
    const double *row = B->cab_row + 3 * (size_t)i * n;
    y[3 * (size_t)B->cab_j[i]] = sim_lane_dot(row, NULL, x, 3 * nc);
  }
}

void sim_wblocks_diag(const sim_wblocks *B, double *diag) {
  const size_t n = (size_t)B->nc;
  for (size_t j = 0; j < n; j++) sim_wblocks_diag3(B->G[j * n + j], B->frame + 9 * j, diag + 3 * j);
  for (int i = 0; i < B->ncab; i++) {
    const size_t j = 3 * (size_t)B->cab_j[i];
    diag[j] = B->cab_row[3 * (size_t)i * n + j];
  }
}

void sim_wblocks_round(const sim_wblocks *B, float *Gf) {
  const size_t nn = (size_t)B->nc * (size_t)B->nc;
  for (size_t i = 0; i < nn; i++) Gf[i] = (float)B->G[i];
}

/* SPDX-License-Identifier: MIT */
/* A dot product added in the order of the CUDA backend's warp per row (sim_dense_row_dots,
   gpu/contact_cuda.h), shared by the CPU's dense W (nsn.c) and its block form (wblocks.c). */
#ifndef SIM_CONTACT_LANE_DOT_H
#define SIM_CONTACT_LANE_DOT_H

/* row (m entries; wf: its float copy, each entry widened to double, or NULL) times x: lane l
   adds columns l, l + 32, l + 64, ... in turn, then the lanes' sums are added pairwise as the
   warp's shuffles add them (lane l takes lane l + 16's, then l + 8's, 4, 2, 1), so that a
   product with the same values has the same bits on both backends. The 32 sums side by side
   are also independent chains, which the compiler vectorises: one chain waited for each
   addition. */
static inline double sim_lane_dot(const double *row, const float *wf, const double *x, int m) {
  double a[32] = {0.0};
  int j0 = 0;
  if (wf)
    for (; j0 + 32 <= m; j0 += 32)
      for (int l = 0; l < 32; l++) a[l] += (double)wf[j0 + l] * x[j0 + l];
  else
    for (; j0 + 32 <= m; j0 += 32)
      for (int l = 0; l < 32; l++) a[l] += row[j0 + l] * x[j0 + l];
  for (int l = 0; j0 + l < m; l++) a[l] += (wf ? (double)wf[j0 + l] : row[j0 + l]) * x[j0 + l];
  for (int off = 16; off > 0; off /= 2)
    for (int l = 0; l < off; l++) a[l] += a[l + off];
  return a[0];
}

#endif

/* SPDX-License-Identifier: MIT */
/* The warp-ordered dot product (lane_dot.h), in the baseline's build and AVX2's. */
#include "lane_dot.h"

#include "../base/cpu_simd.h"

SIM_LOOP_BODY double lane_dot(const double *row, const float *wf, const double *x, int m) {
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

static double lane_dot_base(const double *row, const float *wf, const double *x, int m) {
  return lane_dot(row, wf, x, m);
}

SIM_AVX2_FN static double lane_dot_avx2(const double *row, const float *wf, const double *x,
                                        int m) {
  return lane_dot(row, wf, x, m);
}

double sim_lane_dot(const double *row, const float *wf, const double *x, int m) {
  return sim_cpu_avx2() ? lane_dot_avx2(row, wf, x, m) : lane_dot_base(row, wf, x, m);
}

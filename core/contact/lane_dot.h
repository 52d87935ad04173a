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
   addition. Built for the baseline x86-64 and for AVX2 (the same bits, base/cpu_simd.h). */
double sim_lane_dot(const double *row, const float *wf, const double *x, int m);

#endif

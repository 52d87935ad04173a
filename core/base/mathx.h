/* SPDX-License-Identifier: MIT */
/* Small math helpers shared by host and device code (SIM_HD marks both). */
#ifndef SIM_MATHX_H
#define SIM_MATHX_H
#include <math.h>

#ifdef __CUDACC__
#define SIM_HD __host__ __device__ static inline
#else
#define SIM_HD static inline
#endif

#define SIM_PI 3.14159265358979323846

SIM_HD double sim_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
SIM_HD void sim_cross3(const double a[3], const double b[3], double c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
SIM_HD double sim_norm3(const double a[3]) { return sqrt(sim_dot3(a, a)); }
/* Powers of two that bring numbers of magnitude at most m to order 1 and back, exactly:
   *down = 2^-ex and *up = 2^ex, m / 2^ex in [1/2, 1) for a finite m > 0, ex held to [-1000, 1000]
   (a subnormal times 2^1000 is still exact; above 2^1000, at most 2^24 remains); both 1 where m
   is 0, infinite or NaN. */
SIM_HD void sim_pow2_scales(double m, double *down, double *up) {
  int ex = m > 0.0 && m < INFINITY ? ilogb(m) + 1 : 0;
  ex = ex < -1000 ? -1000 : ex > 1000 ? 1000 : ex;
  *down = ldexp(1.0, -ex);
  *up = ldexp(1.0, ex);
}
/* sqrt(a^2 + b^2) from *, + and sqrt alone, which a GPU rounds as the host does (hypot's last
   bits differ between glibc and a GPU's libm); a and b are first scaled by a power of two
   (exact) where the larger is outside [2^-500, 2^500], so nothing overflows or underflows.
   Within 1 ulp, as hypot; exactly |a| where b = 0 (sqrt of a rounded square is exact), and |b|
   where a = 0; 0 at (0, 0); NaN where either is NaN, else infinite where either is. */
SIM_HD double sim_hypot(double a, double b) {
  a = fabs(a), b = fabs(b);
  const double hi = a > b ? a : b;
  if (!(hi > 0.0) || !(a < INFINITY && b < INFINITY)) return a + b; /* 0, NaN, inf */
  if (hi > 0x1p500 || hi < 0x1p-500) {
    double down, up;
    sim_pow2_scales(hi, &down, &up);
    const double as = a * down, bs = b * down;
    return sqrt(as * as + bs * bs) * up;
  }
  return sqrt(a * a + b * b);
}
/* 3x3 matrices are row-major double[9]. */
SIM_HD double sim_det3(const double m[9]) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
         m[2] * (m[3] * m[7] - m[4] * m[6]);
}
/* Inverse; returns the determinant (the inverse is garbage when it is 0). */
SIM_HD double sim_inv3(const double m[9], double inv[9]) {
  double d = sim_det3(m);
  double id = 1.0 / d;
  inv[0] = (m[4] * m[8] - m[5] * m[7]) * id;
  inv[1] = (m[2] * m[7] - m[1] * m[8]) * id;
  inv[2] = (m[1] * m[5] - m[2] * m[4]) * id;
  inv[3] = (m[5] * m[6] - m[3] * m[8]) * id;
  inv[4] = (m[0] * m[8] - m[2] * m[6]) * id;
  inv[5] = (m[2] * m[3] - m[0] * m[5]) * id;
  inv[6] = (m[3] * m[7] - m[4] * m[6]) * id;
  inv[7] = (m[1] * m[6] - m[0] * m[7]) * id;
  inv[8] = (m[0] * m[4] - m[1] * m[3]) * id;
  return d;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Conjugate Residual (cr.h): inputs M by its product, b, the start x; workspace 4 m doubles,
   caller's or allocated once here; fails (-1) only when that allocation fails. */
#include "cr.h"

#include <math.h>

#include "../base/alloc.h"

size_t sim_cr_work_size(int m) { return 4 * (size_t)(m > 0 ? m : 0); }

static double dot(int m, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < m; i++) s += x[i] * y[i];
  return s;
}

int sim_cr_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *b, double *x, int max_iters,
                 double rel_tol, double *work, sim_cr_result *res) {
  sim_cr_result out = {0, 0.0, 0.0, 0};
  double *own = NULL;
  if (m <= 0) {
    if (res) *res = out;
    return 0;
  }
  if (!work) {
    own = SIM_NEW(double, sim_cr_work_size(m));
    if (!own) return -1;
    work = own;
  }
  double *r = work, *p = work + m, *Mr = work + 2 * (size_t)m, *Mp = work + 3 * (size_t)m;
  apply(ctx, x, Mr);
  for (int i = 0; i < m; i++) r[i] = b[i] - Mr[i];
  out.bnorm = sqrt(dot(m, b, b));
  double tol = rel_tol > 0.0 ? rel_tol * out.bnorm : 0.0;
  double rn = sqrt(dot(m, r, r));
  if (rn > tol && max_iters > 0) {
    apply(ctx, r, Mr);
    for (int i = 0; i < m; i++) {
      p[i] = r[i];
      Mp[i] = Mr[i];
    }
    double rMr = dot(m, r, Mr);
    while (out.iters < max_iters && rn > tol) {
      double MpMp = dot(m, Mp, Mp);
      if (!(rMr > 0.0) || !(MpMp > 0.0)) {
        out.breakdown = 1;
        break;
      }
      double alpha = rMr / MpMp;
      for (int i = 0; i < m; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * Mp[i];
      }
      out.iters++;
      rn = sqrt(dot(m, r, r));
      if (out.iters >= max_iters || rn <= tol) break;
      apply(ctx, r, Mr);
      double rMr1 = dot(m, r, Mr), beta = rMr1 / rMr;
      rMr = rMr1;
      for (int i = 0; i < m; i++) {
        p[i] = r[i] + beta * p[i];
        Mp[i] = Mr[i] + beta * Mp[i];
      }
    }
  }
  out.residual = rn;
  sim_free(own);
  if (res) *res = out;
  return out.iters;
}

void sim_cr_dense_apply(void *ctx, const double *x, double *y) {
  const sim_cr_dense *d = (const sim_cr_dense *)ctx;
  for (int i = 0; i < d->m; i++) {
    const double *row = d->a + (size_t)i * (size_t)d->m;
    double s = 0.0;
    for (int j = 0; j < d->m; j++) s += row[j] * x[j];
    y[i] = s;
  }
}

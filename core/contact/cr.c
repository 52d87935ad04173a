/* SPDX-License-Identifier: MIT */
/* Conjugate Residual (cr.h): inputs M by its product, b, the start x; workspace 5 m doubles,
   caller's or allocated once here; fails (-1) only when that allocation fails. */
#include "cr.h"

#include <math.h>

#include "../base/alloc.h"

size_t sim_cr_work_size(int m) { return 5 * (size_t)(m > 0 ? m : 0); }

static double dot(int m, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < m; i++) s += x[i] * y[i];
  return s;
}

/* (x, D y), D = diag(d) or the identity (d NULL) */
static double dot_d(int m, const double *x, const double *d, const double *y) {
  if (!d) return dot(m, x, y);
  double s = 0.0;
  for (int i = 0; i < m; i++) s += x[i] * d[i] * y[i];
  return s;
}

int sim_cr_solve_pc(int m, sim_cr_apply_fn apply, void *ctx, const double *dinv, const double *b,
                    double *x, int max_iters, double rel_tol, double *work, sim_cr_result *res) {
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
  double *r = work, *p = work + m, *Mz = work + 2 * (size_t)m, *Mp = work + 3 * (size_t)m;
  double *z = dinv ? work + 4 * (size_t)m : r; /* z = D r, the preconditioned residual */
  apply(ctx, x, Mz);
  for (int i = 0; i < m; i++) r[i] = b[i] - Mz[i];
  out.bnorm = sqrt(dot(m, b, b));
  double tol = fmax(rel_tol, SIM_CR_FLOOR) * out.bnorm;
  double rn = sqrt(dot(m, r, r));
  if (rn > tol && max_iters > 0) {
    if (dinv)
      for (int i = 0; i < m; i++) z[i] = dinv[i] * r[i];
    apply(ctx, z, Mz);
    for (int i = 0; i < m; i++) {
      p[i] = z[i];
      Mp[i] = Mz[i];
    }
    double zMz = dot(m, z, Mz);
    while (out.iters < max_iters && rn > tol) {
      double MpDMp = dot_d(m, Mp, dinv, Mp);
      if (!(zMz > 0.0) || !(MpDMp > 0.0)) {
        out.breakdown = 1;
        break;
      }
      double alpha = zMz / MpDMp;
      for (int i = 0; i < m; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * Mp[i];
      }
      if (dinv)
        for (int i = 0; i < m; i++) z[i] -= alpha * dinv[i] * Mp[i];
      out.iters++;
      rn = sqrt(dot(m, r, r));
      if (out.iters >= max_iters || rn <= tol) break;
      apply(ctx, z, Mz);
      double zMz1 = dot(m, z, Mz), beta = zMz1 / zMz;
      zMz = zMz1;
      for (int i = 0; i < m; i++) {
        p[i] = z[i] + beta * p[i];
        Mp[i] = Mz[i] + beta * Mp[i];
      }
    }
  }
  out.residual = rn;
  sim_free(own);
  if (res) *res = out;
  return out.iters;
}

int sim_cr_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *b, double *x, int max_iters,
                 double rel_tol, double *work, sim_cr_result *res) {
  return sim_cr_solve_pc(m, apply, ctx, NULL, b, x, max_iters, rel_tol, work, res);
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

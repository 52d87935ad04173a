/* SPDX-License-Identifier: MIT */
/* Restarted, right-preconditioned GMRES (gmres.h). */
#include "gmres.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"

size_t sim_gmres_work_size(int m, int restart) {
  size_t k = (size_t)(restart > 0 ? restart : 1);
  return (k + 1) * (size_t)m + 2 * (size_t)m + (k + 1) * k + 4 * (k + 1);
}

static double norm2(int m, const double *a) {
  double s = 0.0;
  for (int i = 0; i < m; i++) s += a[i] * a[i];
  return sqrt(s);
}

/* out = D v (D = dinv, or the identity) */
static void precondition(int m, const double *dinv, const double *v, double *out) {
  for (int i = 0; i < m; i++) out[i] = dinv ? dinv[i] * v[i] : v[i];
}

int sim_gmres_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *dinv, const double *b,
                    double *x, int max_iters, int restart, double rel_tol, double *work,
                    sim_cr_result *res) {
  const int k = restart > 0 ? restart : 1;
  double *own = NULL;
  if (!work) {
    own = SIM_NEW(double, sim_gmres_work_size(m, k));
    if (!own) return -1;
    work = own;
  }
  double *V = work, *z = V + (size_t)(k + 1) * m, *w = z + m, *H = w + m;
  double *cs = H + (size_t)(k + 1) * k, *sn = cs + k + 1, *g = sn + k + 1, *y = g + k + 1;
  const double bnorm = norm2(m, b), tol = fmax(rel_tol, SIM_CR_FLOOR) * bnorm;
  int it = 0, breakdown = 0, zero = 1;
  for (int i = 0; i < m && zero; i++) zero = x[i] == 0.0;
  double rnorm = 0.0;
  while (1) {
    if (zero) { /* r = b - M x, v_1 = r / |r|; from x = 0 without a product */
      memcpy(V, b, sizeof(double) * (size_t)m);
      zero = 0;
    } else {
      apply(ctx, x, w);
      for (int i = 0; i < m; i++) V[i] = b[i] - w[i];
    }
    rnorm = norm2(m, V);
    if (rnorm <= tol || it >= max_iters || breakdown) break;
    for (int i = 0; i < m; i++) V[i] /= rnorm;
    memset(g, 0, sizeof(double) * (size_t)(k + 1));
    g[0] = rnorm;
    int j = 0;
    for (; j < k && it < max_iters; j++, it++) {
      double *vj = V + (size_t)j * m, *vn = V + (size_t)(j + 1) * m, *hj = H + (size_t)j * (k + 1);
      precondition(m, dinv, vj, z);
      apply(ctx, z, vn);
      for (int i = 0; i <= j; i++) { /* modified Gram-Schmidt */
        const double *vi = V + (size_t)i * m;
        double d = 0.0;
        for (int l = 0; l < m; l++) d += vi[l] * vn[l];
        hj[i] = d;
        for (int l = 0; l < m; l++) vn[l] -= d * vi[l];
      }
      const double hn = hj[j + 1] = norm2(m, vn);
      if (!sim_gmres_rotate(j, hj, cs, sn, g)) { /* M D v_j = 0 within the space: no gain */
        breakdown = 1;
        break;
      }
      if (hn == 0.0) { /* the Krylov space is invariant: y solves the system exactly */
        j++, it++;
        breakdown = 1;
        break;
      }
      for (int l = 0; l < m; l++) vn[l] /= hn;
      if (fabs(g[j + 1]) <= tol) {
        j++, it++;
        break;
      }
    }
    sim_gmres_back_solve(j, H, k + 1, g, y);
    memset(w, 0, sizeof(double) * (size_t)m); /* x += D V y */
    for (int i = 0; i < j; i++)
      for (int l = 0; l < m; l++) w[l] += y[i] * V[(size_t)i * m + l];
    precondition(m, dinv, w, z);
    for (int l = 0; l < m; l++) x[l] += z[l];
    if (j == 0) break;
    if (it >= max_iters && !breakdown) { /* no further cycle: the rotations' residual, |g_j| */
      rnorm = fabs(g[j]);
      break;
    }
  }
  if (res) {
    res->iters = it;
    res->residual = rnorm;
    res->bnorm = bnorm;
    res->breakdown = breakdown;
  }
  sim_free(own);
  return it;
}

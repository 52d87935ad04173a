/* SPDX-License-Identifier: MIT */
/* Restarted GMRES for a nonsymmetric system M x = b given by its product: the Newton system of
   the contact solve with the friction rows' exact Jacobian (nsn.h, contact.newton_jacobian
   "exact"), which Conjugate Residual (cr.h) cannot solve. Right-preconditioned by a diagonal D
   (Saad 2003, Alg. 9.5): the Arnoldi basis V is built for M D, and x = x0 + D V y with y the
   least-squares solution of the Hessenberg system, kept triangular by Givens rotations, so the
   residual |b - M x| is the true one (not a preconditioned one) and never increases.
   One product per iteration; a cycle of at most `restart` iterations, then again from its x,
   until max_iters in all or |r| <= max(rel_tol, SIM_CR_FLOOR) |b|. x holds the start on entry
   and the result on exit. From x = 0 the first residual is b, without a product; a cycle that
   ends at max_iters reports the rotations' residual |g_j| (the true one up to rounding) instead
   of forming b - M x again, so a Newton step of the contact solve makes max_iters products. A
   breakdown (the new basis vector is 0) ends the cycle with the exact solution over the space built
   so far. Workspace: sim_gmres_work_size(m, restart) doubles. The CUDA backend's device Newton
   solve runs the same cycle on the device (gpu/gmres_cuda.cu). */
#ifndef SIM_GMRES_H
#define SIM_GMRES_H
#include "../base/mathx.h"
#include "cr.h"

/* Iteration j's rotations: the earlier j (cs, sn) on H's column hj (j + 2 entries), then the
   one that zeroes hj[j + 1], applied to the residual's vector g too (|g[j + 1]| is then the
   residual's norm). Returns 0, nothing of it done, where none exists (hj[j] = hj[j + 1] = 0
   after the earlier ones: a breakdown). Host and device (gpu/gmres_cuda.cu). */
SIM_HD int sim_gmres_rotate(int j, double *hj, double *cs, double *sn, double *g) {
  for (int i = 0; i < j; i++) {
    const double t = cs[i] * hj[i] + sn[i] * hj[i + 1];
    hj[i + 1] = -sn[i] * hj[i] + cs[i] * hj[i + 1];
    hj[i] = t;
  }
  const double den = sim_hypot(hj[j], hj[j + 1]);
  if (den == 0.0) return 0;
  const double hn = hj[j + 1];
  cs[j] = hj[j] / den;
  sn[j] = hn / den;
  hj[j] = den;
  hj[j + 1] = 0.0;
  g[j + 1] = -sn[j] * g[j];
  g[j] *= cs[j];
  return 1;
}

/* H y = g over the first j columns (H upper triangular there, column c at c ld). */
SIM_HD void sim_gmres_back_solve(int j, const double *H, int ld, const double *g, double *y) {
  for (int i = j - 1; i >= 0; i--) {
    double s = g[i];
    for (int l = i + 1; l < j; l++) s -= H[(size_t)l * ld + i] * y[l];
    y[i] = s / H[(size_t)i * ld + i];
  }
}

size_t sim_gmres_work_size(int m, int restart);

/* Returns the iterations done (>= 0), or -1 when work is NULL and could not be allocated. dinv
   (m entries > 0) may be NULL (no preconditioner); res may be NULL. */
int sim_gmres_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *dinv, const double *b,
                    double *x, int max_iters, int restart, double rel_tol, double *work,
                    sim_cr_result *res);

#endif

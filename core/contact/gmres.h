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
   so far. Workspace: sim_gmres_work_size(m, restart) doubles. */
#ifndef SIM_GMRES_H
#define SIM_GMRES_H
#include "cr.h"

size_t sim_gmres_work_size(int m, int restart);

/* Returns the iterations done (>= 0), or -1 when work is NULL and could not be allocated. dinv
   (m entries > 0) may be NULL (no preconditioner); res may be NULL. */
int sim_gmres_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *dinv, const double *b,
                    double *x, int max_iters, int restart, double rel_tol, double *work,
                    sim_cr_result *res);

#endif

/* SPDX-License-Identifier: MIT */
/* Conjugate Residual for a symmetric system M x = b given by its product (the contact solve
   (Omega W Omega + E) dlambda = rhs of Sec. 5.2, Eq. 22; Macklin et al. 2019 Sec. 6).
   Algorithm (Saad 2003, Alg. 6.20), one product per iteration:
     r = b - M x, p = r, Mr = M r, Mp = Mr
     repeat: alpha = (r, Mr) / (Mp, Mp); x += alpha p; r -= alpha Mp; Mr' = M r;
             beta = (r', Mr') / (r, Mr); p = r' + beta p; Mp = Mr' + beta Mp.
   CR minimises |b - M x| over x0 + K_k(M, r0): the residual norm never increases. M must be
   symmetric; for positive semidefinite M a breakdown ((r, Mr) <= 0 or Mp = 0 with r != 0) means
   r lies in M's null space (an inconsistent system) and the solve stops there.
   Stops after max_iters iterations or when |r| <= max(rel_tol, SIM_CR_FLOOR) |b| (rel_tol = 0:
   the fixed count, cut short only where |r| has reached rounding), whichever comes first; x
   holds the start (warm start) on entry and the result on exit.
   Workspace: 5 m doubles (sim_cr_work_size); NULL makes the call allocate it once and free it.
   |r| is the recurrence's residual (it drifts from b - M x only by rounding).
   Preconditioned (sim_cr_solve_pc, Saad 2003 Sec. 9.2 applied to CR; Macklin et al. 2019
   Sec. 6 use it with a diagonal preconditioner): with D = dinv (symmetric positive definite,
   here diagonal) the iteration runs on z = D r,
     alpha = (z, M z) / (M p, D M p); x += alpha p; r -= alpha M p; z -= alpha D M p;
     beta = (z', M z') / (z, M z); p = z' + beta p; M p = M z' + beta M p,
   which minimises |b - M x|_D over x0 + K_k(D M, D r0); the stopping test stays on |r|.
   dinv = NULL is the plain method above. */
#ifndef SIM_CR_H
#define SIM_CR_H
#include <float.h>
#include <stddef.h>

/* The relative residual at which CR stops whatever rel_tol says: a few roundings of |b|. Below
   it the recurrence only moves x by rounding noise. Without it, a fixed count ran on where a
   system was solved in one iteration (contacts all separated: a diagonal system), its residual
   exactly 0 or a rounding's worth by chance, so the two backends' counts differed (the grabbing
   raptor's first frames: 5 to 41 iterations a frame for 5). The CUDA backend's CR (gpu/
   nsn_reduce.cuh, cr_init) stops at the same place. */
#define SIM_CR_FLOOR (16.0 * DBL_EPSILON)

typedef void (*sim_cr_apply_fn)(void *ctx, const double *x, double *y); /* y = M x */

typedef struct sim_cr_result {
  int iters;       /* iterations done */
  double residual; /* |b - M x| at exit */
  double bnorm;    /* |b| */
  int breakdown;   /* 1 when a zero denominator stopped the iteration */
} sim_cr_result;

size_t sim_cr_work_size(int m); /* doubles of workspace */

/* Returns the iterations done (>= 0), or -1 when the workspace could not be allocated (x is
   then unchanged). res may be NULL. */
int sim_cr_solve(int m, sim_cr_apply_fn apply, void *ctx, const double *b, double *x, int max_iters,
                 double rel_tol, double *work, sim_cr_result *res);

/* The same with the diagonal preconditioner dinv (m entries > 0; NULL: none). */
int sim_cr_solve_pc(int m, sim_cr_apply_fn apply, void *ctx, const double *dinv, const double *b,
                    double *x, int max_iters, double rel_tol, double *work, sim_cr_result *res);

/* Dense symmetric M (row-major m x m), for tests and small systems: ctx is a sim_cr_dense. */
typedef struct sim_cr_dense {
  int m;
  const double *a;
} sim_cr_dense;
void sim_cr_dense_apply(void *ctx, const double *x, double *y);

#endif

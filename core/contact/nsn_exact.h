/* SPDX-License-Identifier: MIT */
/* The Newton system of the contact solve with the friction rows' exact Jacobian
   (contact.newton_jacobian "exact"; nsn.h). The lagged linearisation (nsn_row.h, the paper's)
   freezes a friction row's e in phi_f = u + e lambda_f, which keeps the system symmetric for
   Conjugate Residual; at the cone's edge that e = |u| / |lambda_f| holds for any slip |u|, so a
   contact there lets a steady slip through, and a stiff body resting on contacts at and inside
   the cone creeps (docs/results.md, *A sticking box creeps*). Here every row of phi(lambda) is
   linearised exactly (ncp.h sim_ncp_friction_jac for the friction rows): with
   hq(lambda + dl) = hq + h^2 W dl,
     J dl = A (h^2 W dl) + L dl,
   A and L block diagonal, a 3 x 3 block per contact (rows normal, t1, t2):
     bilateral (compliance c >= 0): A = I, L = c I (phi = hq - d + c lambda);
     frictional, normal row: A = (omega_n, 0, 0), L = (e_n, 0, 0) (ncp.h sim_ncp_normal_capped:
       d phi_n / d delta, d phi_n / d lambda_n);
     friction rows, active: A = d phi_f / d u on the two tangent rows, L = (d phi_f / d lambda_n,
       d phi_f / d lambda_f); where those partials overflow, the lagged rows A = I, L = e I.
       e = |u| / |lambda_f| grows as 1 / lambda_n: squeezing_ball with
       contact.obstacle_edges reached lambda_n 2.8e-160 (e 5.1e159), whose partials, about
       e / lambda_n, are beyond the doubles (NaN in GMRES, which then took no step). Such
       lambda_n came from GMRES moving separating contacts' decoupled normal rows, which it no
       longer does (sim_nsn_exact_prepare); the guard stays;
     friction rows, inactive (lambda_n <= 0 or mu = 0): A = 0, L = h^2 w I, as the lagged
       system's decoupled rows (phi = h^2 w lambda_f, nsn_row.h).
   J is not symmetric; GMRES (gmres.h) solves J dl = -phi. Host and device code (SIM_HD: the CUDA
   backend's device Newton solve forms the same blocks, gpu/gmres_cuda.cu). */
#ifndef SIM_CONTACT_NSN_EXACT_H
#define SIM_CONTACT_NSN_EXACT_H
#include "nsn_row.h"

#define SIM_NSN_JAC 18 /* doubles per contact: A (9, row-major), then L (9) */

/* The contact's blocks A, L into jac (SIM_NSN_JAC doubles), given the om and ee that
   sim_nsn_contact_ncp returned for it at (hq, lam) (the Newton step evaluated it already). */
SIM_HD void sim_nsn_exact_contact(sim_ncp_kind kind, double h, double comp, double mu,
                                  const double *d, const double *hq, const double *hqt,
                                  const double *w, const double *lam, const double om[3],
                                  const double ee[3], double *jac) {
  double *A = jac, *L = jac + 9, h2 = h * h;
  for (int k = 0; k < SIM_NSN_JAC; k++) jac[k] = 0.0;
  if (comp >= 0.0) {
    for (int a = 0; a < 3; a++) A[4 * a] = 1.0, L[4 * a] = comp;
    return;
  }
  A[0] = om[0];
  L[0] = ee[0] * h2;  /* ee = E / h^2 */
  if (om[1] == 0.0) { /* inactive friction */
    L[4] = h2 * ee[1], L[8] = h2 * ee[2];
    return;
  }
  double u[2], du[4], dlf[4], dln[2];
  const double r_f = sim_ncp_precond_normal(h, 0.5 * (w[1] + w[2]));
  for (int a = 0; a < 2; a++) u[a] = hq[1 + a] - hqt[1 + a] - h * d[1 + a];
  sim_ncp_friction_jac(kind, u, lam + 1, lam[0], mu, r_f, du, dlf, dln);
  int finite = 1;
  for (int k = 0; k < 4; k++) finite &= isfinite(du[k]) && isfinite(dlf[k]);
  if (!(finite && isfinite(dln[0]) && isfinite(dln[1]))) { /* the lagged rows (above) */
    du[0] = du[3] = 1.0, du[1] = du[2] = 0.0;
    dlf[0] = dlf[3] = h2 * ee[1], dlf[1] = dlf[2] = 0.0;
    dln[0] = dln[1] = 0.0;
  }
  for (int a = 0; a < 2; a++) {
    const int row = 3 * (1 + a);
    A[row + 1] = du[2 * a], A[row + 2] = du[2 * a + 1];
    L[row] = dln[a], L[row + 1] = dlf[2 * a], L[row + 2] = dlf[2 * a + 1];
  }
}

/* J's row r of the contact (A's and L's) times f. */
SIM_HD void sim_nsn_exact_row_scale(double *jac, int r, double f) {
  for (int c = 0; c < 3; c++) jac[3 * r + c] *= f, jac[9 + 3 * r + c] *= f;
}

/* The contact's rows of the system GMRES solves, from its blocks (jac, scaled in place), the
   diagonal of W at its rows (wd) and phi: the right-hand side rhs = -phi, the diagonal right
   preconditioner pc (jacobi; else 1) and the start x0, all three rows. Each row is scaled
   twice, which leaves the solution as it is but sets the norm GMRES minimises the residual in
   (right-preconditioned, it minimises the system's own residual):
   - by 1 / A_rr where that is coupled (sim_nsn_coupled: the normal row's Omega, an active
     friction row's d phi_f / d u), as the lagged system's coupled rows are divided by Omega
     (nsn_row.h sim_nsn_row_rhs);
   - with jacobi, by q_r = |J_rr|^(-1/2) (J_rr = h^2 A_rr W_rr + L_rr), q_r also the right
     preconditioner: GMRES then works on Q J Q, as Conjugate Residual with the Jacobi
     preconditioner on the lagged system. Except where that leaves a frictional contact's
     (frictional) coupled friction row's entry in its normal column, d phi_f / d lambda_n, above
     the diagonal's 1: that row's column then takes the scale that puts the entry at 1 and the
     row 1 / (|J_rr| times it), so the diagonal stays 1. At a sliding contact whose lambda_n is
     nearly 0, e = |u| / |lambda_f| and d phi_f / d lambda_n = e_n lambda_f grow as
     1 / lambda_n, and scaled by q_r on both sides the entry grew as lambda_n^(-1/2): 1.2e8 at
     lambda_n 2e-14 on squeezing_ball with contact.obstacle_edges, whose GMRES then left the
     residual where it started and whose line search refused every step after
     (tests/test_nsn_exact_scaling.c). Every other row keeps Jacobi's scale: the normal
     column's scale for all three, tried first, scales a friction row of a cloth, whose W is
     far smaller in its plane than across it, out of proportion with its neighbours'
     (box_on_trampoline's box 3.8 mm into the cloth, against 0.7).
   x0 is a row's own solution where it is decoupled (A's row within sim_nsn_coupled of 0, L's
   row only its diagonal, > 0: an inactive friction row, a separating contact's normal row), as
   the lagged solve starts there, else 0. A decoupled row's A entries are set to 0, as the
   lagged system drops them (nsn.c system_apply), and its rhs to L_rr x0 (a rounding's change):
   its residual is then exactly 0 at x0 and every Krylov vector is 0 there, so GMRES leaves it
   at x0, bit for bit. Omega_n there is Fischer-Burmeister's b^2 / (2 a^2) at a > 0 (b = r
   lambda_n), whose root in b is 0 for every a: the term only moved the step off it. With them kept
   (up to 1e-9), GMRES moved 985 of 1,000 separating contacts' normal rows off x0, where lambda_n +
   x0 <= 0 (Fischer-Burmeister's step from a separating contact's lambda_n lands about -r lambda_n^2
   / (2 delta) below 0, which the cone takes to 0), and 107 of them to a lambda_n above 0: tiny
   forces (31 below 1e-20 of the largest in 70 frames of squeezing_ball with contact.obstacle_edges,
   down to 2.8e-160) that warm start carried on, each a sliding contact with e = |u| / |lambda_f|
   about 1 / lambda_n (above). Where mu is 0 the two systems are the same and GMRES takes CR's steps
   (the same Krylov spaces, the same residual norm); without these scalings ten GMRES iterations let
   the gingerbread man 0.8 mm into a cylinder where ten CR iterations let it 0.2 mm. phi and x0 may
   be the same array (row r's phi is read before its x0 is written). */
SIM_HD void sim_nsn_exact_prepare(double *jac, double h2, const double wd[3], int frictional,
                                  int jacobi, const double phi[3], double rhs[3], double pc[3],
                                  double x0[3]) {
  double dg[3];
  for (int r = 0; r < 3; r++) {
    const double a = jac[4 * r];
    const double s = sim_nsn_coupled(fabs(a)) ? 1.0 / a : 1.0;
    sim_nsn_exact_row_scale(jac, r, s);
    rhs[r] = -s * phi[r];
    dg[r] = fabs(h2 * jac[4 * r] * wd[r] + jac[9 + 4 * r]);
    pc[r] = jacobi && dg[r] > 0.0 ? 1.0 / sqrt(dg[r]) : 1.0;
  }
  for (int r = 0; r < 3; r++) {
    double q = pc[r]; /* the row's second factor */
    if (jacobi && frictional && r > 0 && sim_nsn_coupled(fabs(jac[4 * r])) && dg[r] > 0.0) {
      const double c = fabs(jac[9 + 3 * r]) * pc[0] / dg[r]; /* d phi_f / d lambda_n at 1 */
      if (c > pc[r]) pc[r] = c, q = 1.0 / (dg[r] * c);
    }
    if (jacobi) {
      sim_nsn_exact_row_scale(jac, r, q);
      rhs[r] *= q;
    }
    double *A = jac + 3 * r, *L = jac + 9 + 3 * r;
    int own = L[r] > 0.0;
    for (int c = 0; c < 3; c++) own &= !sim_nsn_coupled(fabs(A[c])) && (c == r || L[c] == 0.0);
    x0[r] = own ? rhs[r] / L[r] : 0.0;
    if (own) { /* decoupled: its residual 0 at x0, exactly, so GMRES leaves it there */
      A[0] = A[1] = A[2] = 0.0;
      rhs[r] = L[r] * x0[r];
    }
  }
}

/* y_j = A_j (h^2 t_j) + L_j x_j for one contact (t = W x, 3 rows each). */
SIM_HD void sim_nsn_exact_rows(const double *jac, double h2, const double *t, const double *x,
                               double *y) {
  const double *A = jac, *L = jac + 9;
  for (int r = 0; r < 3; r++)
    y[r] = h2 * (A[3 * r] * t[0] + A[3 * r + 1] * t[1] + A[3 * r + 2] * t[2]) +
           (L[3 * r] * x[0] + L[3 * r + 1] * x[1] + L[3 * r + 2] * x[2]);
}

#endif

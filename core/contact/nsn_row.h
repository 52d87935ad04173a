/* SPDX-License-Identifier: MIT */
/* The non-smooth Newton solve's per-contact and per-row formulas (nsn.h), shared by host and
   device: a contact's NCP values with its diagonal Omega and E (Appendix B), its multipliers
   after a step (force cap, friction cone), and a row's Newton right-hand side and system
   diagonal in the paper's and the compliance form. nsn.c loops over them; a device solver
   runs the same formulas a thread per contact or row. Arguments that point at a contact's
   entries point at its three rows (normal, then the two tangents). */
#ifndef SIM_CONTACT_NSN_ROW_H
#define SIM_CONTACT_NSN_ROW_H
#include "ncp.h"

/* Rows with Omega at or below this are decoupled in the compliance form (Omega^{-1} E is
   infinite there): E dlambda = -phi alone (nsn.h). */
#define SIM_NSN_OMEGA_MIN 1e-9

SIM_HD int sim_nsn_coupled(double omega) { return omega > SIM_NSN_OMEGA_MIN; }

/* phi (length units), Omega and E / h^2 of one contact at (hq, lam). comp >= 0: bilateral,
   phi = hq - d + comp lam, Omega = 1, E = comp. Otherwise frictional: the normal row's NCP
   with the preconditioner r = h^2 w_n (Eq. 28), its force capped at max_force where that is
   > 0 (ncp.h sim_ncp_normal_capped), the friction rows in the displacement form
   u = H_f (q - q_t) - h d_f with r = h^2 (w_1 + w_2) / 2 (ncp.h on units); an inactive
   friction row (Omega 0) has phi = lambda_f scaled by E = w (or 1), relative to W. w is the
   preconditioner's diagonal (diag W, or the mass inverse's). */
SIM_HD void sim_nsn_contact_ncp(sim_ncp_kind kind, double h, double comp, double mu,
                                double max_force, const double *d, const double *hq,
                                const double *hqt, const double *w, const double *lam,
                                double phi[3], double om[3], double ee[3]) {
  double ih2 = 1.0 / (h * h);
  if (comp >= 0.0) {
    for (int a = 0; a < 3; a++) {
      phi[a] = hq[a] - d[a] + comp * lam[a];
      om[a] = 1.0;
      ee[a] = comp * ih2;
    }
    return;
  }
  double r_n = sim_ncp_precond_normal(h, w[0]), en;
  phi[0] = sim_ncp_normal_capped(kind, hq[0] - d[0], lam[0], r_n, max_force, &om[0], &en);
  ee[0] = en * ih2;
  double u[2], r_f = sim_ncp_precond_normal(h, 0.5 * (w[1] + w[2]));
  for (int a = 0; a < 2; a++) u[a] = hq[1 + a] - hqt[1 + a] - h * d[1 + a];
  sim_ncp_fric fr = sim_ncp_friction(kind, u, lam + 1, lam[0], mu, r_f);
  for (int a = 1; a < 3; a++) {
    phi[a] = fr.phi[a - 1];
    om[a] = fr.omega;
    ee[a] = fr.omega > 0.0 ? fr.e * ih2 : w[a] > 0.0 ? w[a] : 1.0;
    if (fr.omega == 0.0) phi[a] *= h * h * ee[a];
  }
}

/* out = lam + alpha dlam, then for a frictional contact (comp < 0) the cap on lambda_n
   (max_force > 0) and the friction cone; bilateral rows are free. */
SIM_HD void sim_nsn_contact_update(double comp, double mu, double max_force, const double *lam,
                                   const double *dlam, double alpha, double out[3]) {
  for (int a = 0; a < 3; a++) out[a] = lam[a] + alpha * dlam[a];
  if (comp < 0.0) {
    if (max_force > 0.0 && out[0] > max_force) out[0] = max_force;
    sim_ncp_cone_clamp(mu, out);
  }
}

/* A row's Newton right-hand side (Algorithm 4 step 3). Paper: (1/h^2)(Omega H q - phi -
   Omega H A^{-1} b) - Omega y with y = W Omega lambda; compliance: that row divided by Omega
   where it is coupled, -phi / h^2 where not (y = W lambda). */
SIM_HD double sim_nsn_row_rhs(int paper, double ih2, double om, double hq, double hab, double phi,
                              double y) {
  if (paper) return ih2 * (om * (hq - hab) - phi) - om * y;
  if (sim_nsn_coupled(om)) return ih2 * (hq - hab - phi / om) - y;
  return -ih2 * phi;
}

/* A row's diagonal of the Newton system: paper Omega^2 W_ii + E; compliance W_ii + E / Omega
   (coupled) or E (decoupled). */
SIM_HD double sim_nsn_row_diag(int paper, double om, double wd, double e) {
  if (paper) return om * om * wd + e;
  return sim_nsn_coupled(om) ? wd + e / om : e;
}

/* A contact's warm start from multipliers pl that the previous step's contact with the same
   key (vertex, kind, source) ended with, in its tangents (pt1, pt2): the normal part as it
   was, the friction force pl[1] pt1 + pl[2] pt2 re-expressed in the new tangents (t1, t2). */
SIM_HD void sim_nsn_warm_lambda(const double pl[3], const double pt1[3], const double pt2[3],
                                const double t1[3], const double t2[3], double l[3]) {
  double F[3];
  for (int r = 0; r < 3; r++) F[r] = pl[1] * pt1[r] + pl[2] * pt2[r];
  l[0] = pl[0];
  l[1] = F[0] * t1[0] + F[1] * t1[1] + F[2] * t1[2];
  l[2] = F[0] * t2[0] + F[1] * t2[1] + F[2] * t2[2];
}

#endif

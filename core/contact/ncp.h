/* SPDX-License-Identifier: MIT */
/* NCP functions of one frictional contact for the non-smooth Newton contact solve (paper Sec.
   5.2, Eqs. 12-19, 28; Appendix B; Macklin et al. 2019), shared by host and device; header
   only, no allocation. Notation (DESIGN.md Sec. 6): delta = H_n q - d_n >= 0 the gap of the
   normal row, u = dot(delta_f) (2-vector) the tangential slip velocity of the two friction rows
   (Eq. 31/40), lambda_n, lambda_f = (lambda_f1, lambda_f2) the multipliers, mu the friction
   coefficient, r > 0 the complementarity preconditioner of the row.

   Scalar NCP functions, phi(a, b) = 0  <=>  0 <= a _|_ b >= 0 (Eq. 12):
     minimum map (Eq. 13):        phi = min(a, b)
     Fischer-Burmeister (Eq. 14): phi = a + b - s,  s = sqrt(a^2 + b^2)
   Partials (phi_a, phi_b):
     min:  a <= b: (1, 0);  a > b: (0, 1)     (the tie a == b takes the a branch, Eqs. 46-48)
     FB:   (1 - a/s, 1 - b/s) for s > 0; at the kink a = b = 0 the element
           (1 - 1/sqrt2, 1 - 1/sqrt2) of the generalized Jacobian {(1 - xi, 1 - eta):
           xi^2 + eta^2 <= 1}, i.e. the directional derivative along a = b (as in Erleben's
           FB-Newton); it keeps both the row's Omega and E nonzero at the kink.
   Evaluated without cancellation: FB phi = 2ab / (a + b + s) when a + b > 0, so phi == 0
   exactly when a = 0 <= b or b = 0 <= a.

   Normal row (Eqs. 46-48, 52-54): the preconditioner scales the multiplier,
     phi_n(delta, lambda_n) = phi(delta, r lambda_n),    r = h^2 W_jj (Eq. 28a),
     omega_n = d phi_n / d delta    = phi_a   (J_n = omega_n H_n, the diagonal of Omega),
     e_n     = d phi_n / d lambda_n = r phi_b (the diagonal of E_n).
   In the system (Eq. 18, 22) the normal row's E entry is e_n / h^2 (h^2 dlambda unknowns).

   Friction rows (Appendix A.2 and B; isotropic cone |lambda_f| <= mu lambda_n over the two
   tangents). With a = |u|, l = |lambda_f|, b = r (mu lambda_n - l), g = phi(a, b):
     active (lambda_n > 0 and mu > 0):
       phi_f = u + e lambda_f,   J_f = H_f (omega_f = 1),   E_f = e I,
       e = r (a - g) / (g + r l)                                   (one formula for both NCPs)
     which is Eq. 51 for the minimum map (e = 0 when sticking, a <= b, and
     e = (a - r (mu lambda_n - l)) / (mu lambda_n) when sliding) and Eq. 57 for FB
     (e = r (s - b) / (a + r mu lambda_n - s), s = sqrt(a^2 + b^2)).
     At g = 0 (the cone complementarity 0 <= |u| _|_ mu lambda_n - |lambda_f| >= 0, Eq. 44)
     e = |u| / |lambda_f| and phi_f = 0 is the KKT condition u + |u|/|lambda_f| lambda_f = 0
     (Eq. 43): sticking (u = 0, e = 0) or sliding (lambda_f = -mu lambda_n u/|u|).
     inactive (lambda_n <= 0, Eqs. 50, 56): phi_f = lambda_f, omega_f = 0 (J_f = 0), e = 1
     (E_f = I), which drives lambda_f to 0. mu <= 0 (frictionless) is treated as inactive: the
     cone is {0} and e of the formula above would be infinite.
   e >= 0 always, so Omega W Omega + E stays symmetric positive semidefinite.
   Choices where the paper leaves a value undefined:
     - e uses l_c = min(l, mu lambda_n): inside the cone (the solver projects lambda after each
       update) this changes nothing; outside it keeps g + r l > 0 for FB and e >= 0;
     - at the FB point u = 0, lambda_f = 0 (0/0) e = 0, its limit (sticking);
     - with r <= 0 (no preconditioner, not a valid input) e = 0.
   The Newton system uses the paper's lagged linearization: J_f = omega_f H_f, E_f = e I with e
   frozen (not the derivative of e lambda_f), which keeps the system symmetric. The exact
   partial derivatives of phi_f are given too (sim_ncp_friction_jac):
     d phi_f/d u        = I + e_a lambda_f u^T / a             (the second term dropped at a = 0)
     d phi_f/d lambda_f = e I + e_l lambda_f lambda_f^T / l    (dropped at l = 0)
     d phi_f/d lambda_n = e_n lambda_f
   with e_x = (N_x D - N D_x) / D^2, N = r (a - g), D = g + r l_c and
     N_a = r (1 - g_a),  D_a = g_a;   N_l = r^2 g_b,  D_l = r (1 - g_b);
     N_n = -r^2 mu g_b,  D_n = r mu g_b;   (clamped, l > mu lambda_n beyond the cone's edge
     to rounding, SIM_NCP_CONE_EDGE: e_n += mu e_l, e_l = 0).
   Units: with u = dot(delta_f) (velocity) and r = h W_jj (Eq. 28b) phi_f is a velocity, and
   the system's friction row (Eq. 17c, 19d) is J_f q + h e dlambda_f = -h phi_f + J_f q^k, so
   its E entry in the dlambda system (Eq. 22) is e / h. Both NCP functions are positively
   homogeneous, so the displacement form u = h dot(delta_f) (what Eq. 40 computes) with
   r = h^2 W_jj gives h phi_f and h e of an active contact directly (omega unchanged).
   Cone: sim_ncp_cone_clamp is the projection used after each Newton update (lambda_n >= 0,
   then lambda_f scaled onto |lambda_f| <= mu lambda_n, direction and lambda_n kept);
   sim_ncp_cone_project is the Euclidean projection onto the second-order cone (for cone
   complementarity solvers). */
#ifndef SIM_NCP_H
#define SIM_NCP_H
#include "../base/mathx.h"

typedef enum sim_ncp_kind { SIM_NCP_FISCHER_BURMEISTER = 0, SIM_NCP_MIN_MAP = 1 } sim_ncp_kind;

#define SIM_NCP_FB_KINK 0.29289321881345248 /* 1 - 1/sqrt(2): FB partials at a = b = 0 */

/* Complementarity preconditioners of Eq. 28 from the Delassus diagonal W_jj = [H A^-1 H^T]_jj
   (or [H M^-1 H^T]_jj for the mass-inverse variant of Macklin et al. 2019). */
SIM_HD double sim_ncp_precond_normal(double h, double w_jj) { return h * h * w_jj; }
SIM_HD double sim_ncp_precond_friction(double h, double w_jj) { return h * w_jj; }

/* Fischer-Burmeister phi(a, b) with partials (NULL to skip). */
SIM_HD double sim_ncp_fb(double a, double b, double *da, double *db) {
  double s = sim_hypot(a, b);
  if (s == 0.0) {
    if (da) *da = SIM_NCP_FB_KINK;
    if (db) *db = SIM_NCP_FB_KINK;
    return 0.0;
  }
  /* 1 - a/s = b^2 / (s (s + a)) for a > 0 (no cancellation) */
  if (da) *da = a > 0.0 ? (b / s) * (b / (s + a)) : 1.0 - a / s;
  if (db) *db = b > 0.0 ? (a / s) * (a / (s + b)) : 1.0 - b / s;
  return a + b > 0.0 ? 2.0 * a * b / (a + b + s) : a + b - s;
}

/* Minimum map phi(a, b) = min(a, b) with partials (the tie takes the a branch). */
SIM_HD double sim_ncp_min(double a, double b, double *da, double *db) {
  int first = a <= b;
  if (da) *da = first ? 1.0 : 0.0;
  if (db) *db = first ? 0.0 : 1.0;
  return first ? a : b;
}

SIM_HD double sim_ncp_phi(sim_ncp_kind kind, double a, double b, double *da, double *db) {
  return kind == SIM_NCP_MIN_MAP ? sim_ncp_min(a, b, da, db) : sim_ncp_fb(a, b, da, db);
}

/* Normal row: returns phi_n(delta, lambda_n) = phi(delta, r lambda_n); omega = d phi_n/d delta,
   e = d phi_n/d lambda_n (NULL to skip). */
SIM_HD double sim_ncp_normal(sim_ncp_kind kind, double delta, double lambda_n, double r,
                             double *omega, double *e) {
  double pa, pb;
  double phi = sim_ncp_phi(kind, delta, r * lambda_n, &pa, &pb);
  if (omega) *omega = pa;
  if (e) *e = r * pb;
  return phi;
}

/* Normal row with the force capped at U = max_force > 0 (contact.max_force): the box
   complementarity 0 <= lambda_n <= U against delta (lambda_n = 0: delta >= 0; in between:
   delta = 0; lambda_n = U: delta <= 0, the contact pushes no harder and may close further), as
   Billups' composition phi(g, r lambda_n) with g = -phi(r (U - lambda_n), -delta), which is
   delta where U is far (FB: to O(delta^2 / (r (U - lambda_n)))). A contact held at U with
   delta < 0 is solved (phi = 0, omega = 0: decoupled, its lambda_n stays). Without it the
   merit kept phi(delta, r U) of such a contact, which no step can lower: the line search
   rejected every Newton step of the solve (cloth_on_knives with 150 CR iterations and 10
   Newton steps, a blade tip's contact at its 1e4 N cap) and the step's other contacts were
   left where they were. U <= 0: sim_ncp_normal, bit for bit. omega and e as there. */
SIM_HD double sim_ncp_normal_capped(sim_ncp_kind kind, double delta, double lambda_n, double r,
                                    double max_force, double *omega, double *e) {
  if (!(max_force > 0.0)) return sim_ncp_normal(kind, delta, lambda_n, r, omega, e);
  double qa, qb, pa, pb;
  const double g = -sim_ncp_phi(kind, r * (max_force - lambda_n), -delta, &qa, &qb);
  const double phi = sim_ncp_phi(kind, g, r * lambda_n, &pa, &pb);
  if (omega) *omega = pa * qb;        /* dg/d delta = qb */
  if (e) *e = r * (pa * qa + pb);     /* dg/d lambda_n = r qa */
  return phi;
}

/* Where |lambda_f| exceeds mu lambda_n by at most this fraction, de takes the inside's partials
   (below). sim_ncp_cone_clamp scales lambda_f onto the cone's edge, and the |lambda_f| it leaves
   is mu lambda_n only to rounding, on either side. e is continuous there (l_c = min(l,
   mu lambda_n)), but its partials are not (e_l inside, mu e_l moved into e_n beyond the edge),
   so the last bit of |lambda_f| chose a sliding contact's Jacobian: a start one ulp off moved a
   step of soft_box_on_slab by a median 2e-8 of its size with the exact Jacobian (nsn_exact.h),
   against 6e-16 with the lagged one, which takes no partials. On the edge the inside's partials
   are the one-sided derivative towards the cone, the side the clamp keeps lambda_f on; with the
   clamped branch's there the folded towel's deepest gap was -68 mm, +3.95 mm with the inside's
   (docs/results.md, *Frictional contact*). */
#define SIM_NCP_CONE_EDGE 1e-12

/* Friction scalar e(a, l, lambda_n) of an active contact (lambda_n > 0, mu > 0), a = |u|,
   l = |lambda_f|; de (NULL to skip) receives (de/da, de/dl, de/dlambda_n), those of the clamped
   branch only where l > (1 + SIM_NCP_CONE_EDGE) mu lambda_n. */
SIM_HD double sim_ncp_friction_e(sim_ncp_kind kind, double a, double l, double lambda_n, double mu,
                                 double r, double de[3]) {
  double lim = mu * lambda_n;
  int clamped = l > lim;
  double lc = clamped ? lim : l;
  double b = r * (lim - lc); /* >= 0 */
  double ga, gb, N, D;
  if (de) de[0] = de[1] = de[2] = 0.0;
  if (kind == SIM_NCP_MIN_MAP) {
    sim_ncp_min(a, b, &ga, &gb);
    if (a <= b) return 0.0; /* sticking */
    N = r * (a - b);
    D = r * lim;
  } else {
    double c = r * lim, s = sim_hypot(a, b), rl = r * lc;
    sim_ncp_fb(a, b, &ga, &gb);
    N = r * (b > 0.0 ? a * (a / (s + b)) : s); /* r (a - g) = r (s - b), b >= 0 */
    /* D = g + r lc = a + c - s = (2 a c + r lc (2 c - r lc)) / (a + c + s) >= 0 */
    D = a + c + s > 0.0 ? (2.0 * a * c + rl * (2.0 * c - rl)) / (a + c + s) : 0.0;
  }
  if (!(D > 0.0)) return 0.0;
  double e = N / D;
  if (de) {
    double D2 = D * D;
    double Na = r * (1.0 - ga), Da = ga;
    double Nl = r * r * gb, Dl = r * (1.0 - gb);
    double Nn = -r * r * mu * gb, Dn = r * mu * gb;
    double el = (Nl * D - N * Dl) / D2;
    de[0] = (Na * D - N * Da) / D2;
    de[2] = (Nn * D - N * Dn) / D2;
    if (l > (1.0 + SIM_NCP_CONE_EDGE) * lim)
      de[2] += mu * el; /* lc = mu lambda_n, beyond the edge (SIM_NCP_CONE_EDGE) */
    else
      de[1] = el;
  }
  return e;
}

/* Friction rows of one contact: phi_f, omega_f (J_f = omega_f H_f) and e (E_f = e I). */
typedef struct sim_ncp_fric {
  double phi[2];
  double omega;
  double e;
} sim_ncp_fric;

SIM_HD int sim_ncp_friction_active(double lambda_n, double mu) {
  return lambda_n > 0.0 && mu > 0.0;
}

SIM_HD sim_ncp_fric sim_ncp_friction(sim_ncp_kind kind, const double u[2], const double lambda_f[2],
                                     double lambda_n, double mu, double r) {
  sim_ncp_fric f;
  if (!sim_ncp_friction_active(lambda_n, mu)) {
    f.phi[0] = lambda_f[0];
    f.phi[1] = lambda_f[1];
    f.omega = 0.0;
    f.e = 1.0;
    return f;
  }
  double e = sim_ncp_friction_e(kind, sim_hypot(u[0], u[1]), sim_hypot(lambda_f[0], lambda_f[1]),
                                lambda_n, mu, r, 0);
  f.phi[0] = u[0] + e * lambda_f[0];
  f.phi[1] = u[1] + e * lambda_f[1];
  f.omega = 1.0;
  f.e = e;
  return f;
}

/* Exact partial derivatives of phi_f: du = d phi_f/d u, dlf = d phi_f/d lambda_f (2x2
   row-major), dln = d phi_f/d lambda_n. */
SIM_HD void sim_ncp_friction_jac(sim_ncp_kind kind, const double u[2], const double lambda_f[2],
                                 double lambda_n, double mu, double r, double du[4], double dlf[4],
                                 double dln[2]) {
  if (!sim_ncp_friction_active(lambda_n, mu)) {
    du[0] = du[1] = du[2] = du[3] = 0.0;
    dlf[0] = dlf[3] = 1.0;
    dlf[1] = dlf[2] = 0.0;
    dln[0] = dln[1] = 0.0;
    return;
  }
  double a = sim_hypot(u[0], u[1]), l = sim_hypot(lambda_f[0], lambda_f[1]), de[3];
  double e = sim_ncp_friction_e(kind, a, l, lambda_n, mu, r, de);
  double ka = a > 0.0 ? de[0] / a : 0.0, kl = l > 0.0 ? de[1] / l : 0.0;
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      du[2 * i + j] = (i == j ? 1.0 : 0.0) + ka * lambda_f[i] * u[j];
      dlf[2 * i + j] = (i == j ? e : 0.0) + kl * lambda_f[i] * lambda_f[j];
    }
    dln[i] = de[2] * lambda_f[i];
  }
}

/* Projection used after each Newton update: lambda = (lambda_n, lambda_f1, lambda_f2) in place;
   lambda_n <- max(lambda_n, 0), then lambda_f scaled so |lambda_f| <= mu lambda_n. */
SIM_HD void sim_ncp_cone_clamp(double mu, double lam[3]) {
  double n = lam[0] > 0.0 ? lam[0] : 0.0;
  double lim = mu > 0.0 ? mu * n : 0.0, l = sim_hypot(lam[1], lam[2]);
  lam[0] = n;
  if (l > lim) {
    double k = lim > 0.0 ? lim / l : 0.0;
    lam[1] *= k;
    lam[2] *= k;
  }
}

/* Euclidean projection onto K = {|lambda_f| <= mu lambda_n}: unchanged inside K; 0 in the polar
   cone (mu |lambda_f| <= -lambda_n); else lambda_n' = (lambda_n + mu l) / (1 + mu^2),
   lambda_f' = mu lambda_n' lambda_f / l. */
SIM_HD void sim_ncp_cone_project(double mu, double lam[3]) {
  double m = mu > 0.0 ? mu : 0.0, n = lam[0], l = sim_hypot(lam[1], lam[2]);
  if (n >= 0.0 && l <= m * n) return;
  if (m * l <= -n) {
    lam[0] = lam[1] = lam[2] = 0.0;
    return;
  }
  double np = (n + m * l) / (1.0 + m * m), k = m * np / l;
  lam[0] = np;
  lam[1] *= k;
  lam[2] *= k;
}

#endif

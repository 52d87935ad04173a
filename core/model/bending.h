/* SPDX-License-Identifier: MIT */
/* Cloth bending as linear stencils: isometric (Bergou et al. 2006) and Laplace-Beltrami
   (Bouaziz et al. 2014, Sec. 5 "bending"), both constant quadratic terms of A_s.

   Every stencil s is a linear operator L_s q = sum_j c_sj q_j (a 3-vector; q is n x 3,
   row-major), a weight k_s >= 0 and a projection p_s(q):
     E_s = k_s/2 |L_s q - p_s(q)|^2,   A_s += h^2 k_s L_s^T L_s,   b += h^2 k_s L_s^T p_s.
   `stiffness` is the scene's bending stiffness k (N m), defined by the continuum energy
   E = k/2 * integral |2H n|^2 dA (2H = kappa_1 + kappa_2): a sheet rolled to radius r
   stores k/2 * area / r^2.

   Isometric (one stencil per interior edge, 4 entries, p_s = 0 so rest = -1):
     edge x0-x1, x2 opposite in triangle T0 = (x0 x1 x2), x3 opposite in T1 = (x0 x1 x3);
     c01, c02 = cot of the rest angles at x0 in T0, T1; c03, c04 = at x1 in T0, T1;
     K = (c03 + c04, c01 + c02, -c01 - c03, -c02 - c04) on (x0, x1, x2, x3),
     k_s = stiffness * 3 / (A0 + A1)  (Bergou's Q = k_s K^T K).
   While both triangles keep their rest shape, K q = |e| (u0 + u1) with u_t the unit
   in-plane normal of the edge in triangle t pointing away from t, so |K q| =
   2 |e| sin(theta/2) for a dihedral bend theta. L_s annihilates every affine image of the
   rest state when the rest is FLAT, so E = 0 there; the energy measures curvature relative
   to flat, which is exact only for a flat rest state: a curved rest cloth is pulled toward
   flat (its rest energy is not 0).
   The constant is mesh dependent (Bergou's Q, like the hinge energy, distributes curvature
   over edges): on an axis-aligned square grid (any diagonals) rolled onto a cylinder only
   the edges parallel to the axis bend (theta = d/r; every grid square stays planar), with
   |K q| = 4 r sin^2(d/2r), so E -> 3 * k/2 * area / r^2, three times the continuum value.

   Laplace-Beltrami (one stencil per INTERIOR vertex i):
     L_s = (1/A_i) sum_j (cot a_ij + cot b_ij)/2 (q_j - q_i)  ~ 2H n (mean-curvature normal),
     A_i = mixed Voronoi area (Meyer et al. 2003: Voronoi for non-obtuse triangles, T/2 at an
     obtuse corner, T/4 at the others); k_s = stiffness * A_i, r_s = |L_s x_rest| (0 when it
     is round-off of a flat 1-ring), p_s = r_s L_s q / |L_s q| (0 when r_s = 0 or |L_s q| ~ 0).
   So E = k/2 sum_i A_i (|2H_i| - |2H_i^rest|)^2, rotation invariant for any rest shape.
   Boundary vertices (on an edge with one triangle) get no stencil: their cotangent row is
   dominated by an in-plane O(1/h) term that is not curvature, so it would add a stiff
   membrane term to A_s that resists in-plane motion of the boundary and measure almost no
   bending; boundary vertices still bend through their interior neighbours' stencils. A
   closed surface has a stencil at every vertex.

   Units: isometric c_sj dimensionless, k_s in N/m; Laplace-Beltrami c_sj in 1/m^2, k_s in
   N m^3; E_s in J either way. */
#ifndef SIM_BENDING_H
#define SIM_BENDING_H
#include "../base/mathx.h"
#include "../base/status.h"
#include "../scene/scene.h"

typedef struct sim_bending {
  int nst;      /* stencils */
  int *ptr;     /* nst + 1, into vid / coef (NULL only when nst == 0) */
  int *vid;     /* vertex ids (global, offset applied) */
  double *coef; /* c_sj */
  double *k;    /* k_s */
  double *rest; /* r_s; a negative value marks "p_s = 0" (isometric) */
} sim_bending;

/* Stencils of one triangle mesh (nv vertices x, nt triangles tri, 0-based); vertex ids are
   offset by vert_offset in the output. Fails (SIM_ERR_MESH, naming `name` and the triangle
   or edge in local ids) on out-of-range indices, non-finite coordinates, degenerate
   triangles, non-manifold edges or two triangles on the same three vertices; SIM_ERR_SCENE
   on a negative or non-finite stiffness. kind NONE gives zero stencils and checks nothing.
   On failure *out is left empty (safe to free). */
int sim_bending_build(sim_bending_kind kind, double stiffness, int nv, const double *x, int nt,
                      const int *tri, int vert_offset, const char *name, sim_bending *out,
                      sim_status *st);
/* dst = dst followed by src (vertex ids are copied as they are); dst may be empty
   (zeroed). On failure dst is unchanged. */
int sim_bending_append(sim_bending *dst, const sim_bending *src, sim_status *st);
void sim_bending_free(sim_bending *b); /* frees arrays, zeroes the struct */

/* Lq = L_s q. */
SIM_HD void sim_bending_apply(const sim_bending *b, int s, const double *q, double Lq[3]) {
  Lq[0] = Lq[1] = Lq[2] = 0.0;
  for (int e = b->ptr[s]; e < b->ptr[s + 1]; e++) {
    const double *x = q + 3 * (long long)b->vid[e], c = b->coef[e];
    Lq[0] += c * x[0];
    Lq[1] += c * x[1];
    Lq[2] += c * x[2];
  }
}

/* p = p_s given Lq = L_s q: 0 for isometric (rest < 0) and flat rest (rest == 0), else the
   closest point of the sphere of radius r_s, r_s Lq/|Lq| (0 when |Lq| <= 1e-12 r_s). */
SIM_HD void sim_bending_project(const sim_bending *b, int s, const double Lq[3], double p[3]) {
  const double r = b->rest[s];
  p[0] = p[1] = p[2] = 0.0;
  if (!(r > 0.0)) return;
  const double n = sim_norm3(Lq);
  if (!(n > 1e-12 * r)) return;
  const double f = r / n;
  p[0] = f * Lq[0];
  p[1] = f * Lq[1];
  p[2] = f * Lq[2];
}

/* E_s = k_s/2 |L_s q - p_s(q)|^2. */
SIM_HD double sim_bending_stencil_energy(const sim_bending *b, int s, const double *q) {
  double Lq[3], p[3];
  sim_bending_apply(b, s, q, Lq);
  sim_bending_project(b, s, Lq, p);
  const double d[3] = {Lq[0] - p[0], Lq[1] - p[1], Lq[2] - p[2]};
  return 0.5 * b->k[s] * sim_dot3(d, d);
}

/* rhs += h2 k_s L_s^T p (stencil s's share of h^2 sum_s k_s L_s^T p_s; scatter form). */
SIM_HD void sim_bending_rhs_add(const sim_bending *b, int s, const double p[3], double h2,
                                double *rhs) {
  const double w = h2 * b->k[s];
  for (int e = b->ptr[s]; e < b->ptr[s + 1]; e++) {
    double *y = rhs + 3 * (long long)b->vid[e], c = w * b->coef[e];
    y[0] += c * p[0];
    y[1] += c * p[1];
    y[2] += c * p[2];
  }
}

double sim_bending_energy(const sim_bending *b, const double *q); /* sum_s E_s */
/* Gradient of the energy with p_s held fixed at p_s(q) (the exact gradient for both models,
   p_s being the closest point of a constraint set): g += sum_s k_s L_s^T (L_s q - p_s). */
void sim_bending_gradient(const sim_bending *b, const double *q, double *g);

#endif

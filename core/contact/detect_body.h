/* SPDX-License-Identifier: MIT */
/* A vertex against another body's surface over a step, where both move (detect_vertex.h's
   BODY contacts; SIM_HD, so the CUDA detector runs the same code). The passes that read x_prev
   (sweep, face_prev) take the bodies' trees swept: their boxes bound each surface triangle at
   x_prev and at x (bvh.h sim_bvh_refit_swept), so a query may use either pose, and every
   triangle's linear path between them lies in its leaf's box.

   sweep: a vertex that is not within the margin of body B at x is still in contact with it
   where, moving linearly from x_prev to x while B's vertices do the same, it comes within the
   margin of one of B's triangles. The contact is then taken at x_prev (the nearest triangle of
   B posed at x_prev, its closest point, normal and gap), like an obstacle's. Without it a box
   falling 6 cm a step onto a body 1 cm thick was past it at x, outside it, and went through.

   face_prev: a contact found at x whose plane has x_prev more than the margin behind it, where
   that plane is (n, the closest point's barycentrics) carried with B's triangle to x_prev, is
   the far side of a thin part: it is taken again at x_prev, as an obstacle's is.

   An open body (a cloth) has no inside. Its contact, found unsigned, is turned to the side the
   vertex came from (detect_vertex.h sim_detect_open_body_turn), in every pass with x_prev.
   With a side remembered from the step before (sim_detect_params.sides), it takes that side
   where that contact was behind already, or where its triangle shares a vertex with the
   remembered one and x_prev, against this triangle's plane carried back, was behind it or
   less than SIM_DETECT_SIDE_SLACK margins in front of it: the vertex crossed this part of the
   cloth or rests on it (a box's corner resting on a cloth triangle 25 cm across was 2 um in
   front of that plane carried back, the triangle having turned; taken as not crossed, the
   corner sank 2 cm into the cloth). A vertex between two layers of a folded cloth, whose
   nearest layer changed, keeps the side it is on. Without one, x_prev's side of that plane. */
#ifndef SIM_CONTACT_DETECT_BODY_H
#define SIM_CONTACT_DETECT_BODY_H
#define SIM_DETECT_SIDE_SLACK 0.1 /* margins in front of the plane that still count as resting */

#include "contact/bvh_query.h"
#include "contact/detect.h"

/* The distance at time t of the step (0: x_prev, 1: x) from the point a + t (e - a) to the
   triangle t3 (global vertex indices) whose vertices move linearly from xp to x. */
SIM_HD double sim_detect_tri_dist_at(const double *x, const double *xp, const int *t3,
                                     const double a[3], const double e[3], double t) {
  double p[3], v[3][3];
  for (int k = 0; k < 3; k++) {
    p[k] = a[k] + t * (e[k] - a[k]);
    for (int j = 0; j < 3; j++) {
      const double *x0 = xp + 3 * (size_t)t3[j], *x1 = x + 3 * (size_t)t3[j];
      v[j][k] = x0[k] + t * (x1[k] - x0[k]);
    }
  }
  sim_tri_closest q;
  return sqrt(sim_tri_closest_point(p, v[0], v[1], v[2], &q));
}

/* Whether the point moving from a to e comes within margin of triangle t3 moving from xp to x:
   conservative advancement in time. The distance changes at most as fast as the point and the
   fastest of the triangle's vertices together (a point of the triangle moves as a convex
   combination of them), rate L per step; from a time where it is d > margin it stays above
   margin / 2 for (d - margin / 2) / L. 1 as well where SIM_DETECT_SWEEP_STEPS steps did not
   settle it (detect_vertex.h, sim_detect_swept). */
SIM_HD int sim_detect_tri_swept(const double *x, const double *xp, const int *t3, const double a[3],
                                const double e[3], double margin) {
  const double da[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]};
  double L = sim_norm3(da), fastest = 0.0;
  for (int j = 0; j < 3; j++) {
    const double *x0 = xp + 3 * (size_t)t3[j], *x1 = x + 3 * (size_t)t3[j];
    const double dv[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
    fastest = fmax(fastest, sim_norm3(dv));
  }
  L += fastest;
  double t = 0.0;
  for (int i = 0; i < SIM_DETECT_SWEEP_STEPS; i++) {
    const double d = sim_detect_tri_dist_at(x, xp, t3, a, e, t);
    if (d <= margin) return 1;
    if (!(L > 0.0) || !(d < INFINITY)) return 0; /* nothing moves (or NaN): d stays */
    t += (d - 0.5 * margin) / L;
    if (t > 1.0) return 0;
  }
  return 1;
}

/* sweep: whether vertex v (from a = x_prev to e = x) comes within the margin of body bd's
   surface over the step, both moving; `skip`, the triangles not tested (self-collision,
   sim_bvh_skip), or NULL. The candidates are the triangles of the leaves within |e - a| / 2 +
   margin of the segment's middle (the swept tree's boxes hold their paths), in walk order. */
SIM_HD int sim_detect_body_swept(const sim_detect_view *s, const sim_detect_body_view *bd,
                                 const double a[3], const double e[3], const sim_bvh_skip *skip) {
  const double d[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]};
  const double r = 0.5 * sim_norm3(d) + s->margin;
  const double mid[3] = {a[0] + 0.5 * d[0], a[1] + 0.5 * d[1], a[2] + 0.5 * d[2]};
  sim_bvh_walk w;
  sim_bvh_walk_begin(&bd->bvh, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(&bd->bvh, &w, mid, r * r, NULL)) >= 0;) {
    const sim_bvh_node *nd = &bd->bvh.node[leaf];
    for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
      const int *t3 = bd->bvh.tri + 3 * slot;
      if (sim_bvh_skips_quick(skip, t3)) continue;
      if (sim_detect_tri_swept(s->x, s->x_prev, t3, a, e, s->margin) &&
          !sim_bvh_skips_rest(skip, t3))
        return 1;
    }
  }
  return 0;
}

/* Where x_prev is relative to the plane of a contact found at x with normal n on B's triangle
   t3 (global indices) at barycentrics w, that point taken where the triangle was at x_prev:
   n . (x_prev - sum_j w_j x_prev[t3_j]). */
SIM_HD double sim_detect_body_side(const sim_detect_view *s, const int *t3, const double w[3],
                                   const double xprev[3], const double n[3]) {
  double side = 0.0;
  for (int k = 0; k < 3; k++) {
    double c = 0.0;
    for (int j = 0; j < 3; j++) c += w[j] * s->x_prev[3 * (size_t)t3[j] + k];
    side += n[k] * (xprev[k] - c);
  }
  return side;
}

/* Where x_prev is relative to triangle t3 as it was then, along the normal n of a contact found
   at x: n . (x_prev - c), c the triangle's point nearest x_prev at x_prev. An open body's side
   rule (detect_vertex.h sim_detect_open_body_turn) reads it: the contact's own point carried
   back (sim_detect_body_side) lies where the triangle's motion took it, which for a triangle
   sliding past the vertex is beside it. (A ribbon sliding 1.4 cm a step over a vertex 7 mm
   below it took that vertex, now 4 mm below and beyond its edge, whose n leant 15 degrees
   along the slide, as having come from above: pushed up through the ribbon.) */
SIM_HD double sim_detect_body_side_near(const sim_detect_view *s, const int *t3,
                                        const double xprev[3], const double n[3]) {
  const double *xp = s->x_prev;
  sim_tri_closest q;
  sim_tri_closest_point(xprev, xp + 3 * (size_t)t3[0], xp + 3 * (size_t)t3[1],
                        xp + 3 * (size_t)t3[2], &q);
  const double d[3] = {xprev[0] - q.c[0], xprev[1] - q.c[1], xprev[2] - q.c[2]};
  return sim_dot3(n, d);
}

/* face_prev: whether x_prev is more than the margin behind that plane (a closed body's far
   side). */
SIM_HD int sim_detect_body_behind(const sim_detect_view *s, const int *t3, const double w[3],
                                  const double xprev[3], const double n[3]) {
  return sim_detect_body_side(s, t3, w, xprev, n) < -s->margin;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Mesh obstacles' points against the bodies' surface triangles (kind SIM_CONTACT_TRIANGLE,
   contact.h; world.h says why and when), SIM_HD: the host's pass (detect_points.c) and the CUDA
   detector's (gpu/points_cuda.cu) run this same code on a sim_point_view whose arrays live on
   their side, so both find the same contacts with the same arithmetic.

   A point's contact is the nearest triangle within the margin over the bodies its mesh touches
   (the smallest gap; the lowest body on ties), skipping triangles whose three vertices are
   pinned. The normal points from the point towards the triangle: for a closed surface minus its
   outward normal (a point inside: gap < 0); for cloth the side is the one the point is on at
   q_t, so a blade that would cross the cloth within the step is held on its side (the step
   before's where it lies in the plane at q_t, or where the face went over it within the step
   before: sim_point_side_kept). v is the triangle's vertex with the largest barycentric weight.
   A moving mesh's point is at ps at the step's start and at pe at its end. The q_t pass takes
   the triangle, the closest point c and the normal where the point is at the start (ps against
   the triangles at q_t, the margin widened by |pe - ps|), so a point the obstacle drives into a
   solid pushes the face it came through, not whichever face is nearest to pe (a paddle's corner
   inside a box's side, near its top and bottom, would pull those faces together); the
   prediction pass queries pe against the triangles at q~. Either way the contact's p is pe (the
   row's target is the end pose: contact.h), its gap n . (c - q) for the query point q: the
   distance at the step's start in the q_t pass, at its end in the prediction pass.

   With creases (sim_point_view.creases, the scene's contact.creases) a point within the margin
   of folds of the body's surface that turn towards it gets up to SIM_POINT_FOLDS more contacts
   there, each on a fold's other face (sim_point_folds: detect_crease.h's test, the roles of
   vertex and surface as for a vertex in a fold of a body's surface; keys source + k
   SIM_CONTACT_CREASE, k = 1..SIM_POINT_FOLDS). A blade's tip under a cloth draped over it lies
   in such folds, a cone of the cloth's triangles round the vertex above it: one row, on the
   nearest face, let the tip through another. On cloth_on_knives (2026-12-06) the tallest
   blade's tip, under a cloth vertex, was nearest one face and then another from step to step
   while the cone narrowed (the faces' normals 0.99 to 0.70 up), and went through the cloth at
   step 64; with one fold it went through a third face at step 65; with three it is held at
   the cone's tip (with the force cap at 1e5 N: at 1e4 N its rows were at the cap from step 66
   and it went through at step 70). Three were not enough on the 15k cloth: the tip under a
   vertex of eight faces had rows on four of them, and a fifth swept over it between steps 82
   and 83 (through by 1.6 mm at step 83's start, its side read there). A vertex of a grid
   cloth has eight faces round it, so a point may have a row on each: seven folds. */
#ifndef SIM_CONTACT_DETECT_POINT_H
#define SIM_CONTACT_DETECT_POINT_H
#include <stdint.h>

#include "contact/bvh_query.h"
#include "contact/detect.h"
#include "contact/detect_crease.h"

#define SIM_POINT_FOLDS 7 /* a point's contacts in folds, beyond its first: at most */

/* The pass's inputs as one point's detection reads them. */
typedef struct sim_point_view {
  int nbodies;
  const sim_bvh_view *bvh;     /* nbodies, over each body's surface triangles (cloth too) */
  const int *tri;              /* every body's triangles, global vertex indices */
  const int *tri_first;        /* nbodies: the body's first triangle in tri */
  const unsigned char *cloth;  /* nbodies: 1 for a cloth (open) body */
  const unsigned char *pinned; /* per vertex */
  double margin;               /* the pass's: a mesh's own where it has one (detect.h) */
  int creases;                 /* 1: contacts in folds (above) */
} sim_point_view;

/* Which side of triangle tri (global vertices at x) p lies on: +1 front, -1 back, 0 in its
   plane (or a degenerate triangle). */
SIM_HD int sim_point_side(const double *x, const int *tri, const double p[3]) {
  const double *a = x + 3 * (size_t)tri[0], *b = x + 3 * (size_t)tri[1],
               *c = x + 3 * (size_t)tri[2];
  double e1[3], e2[3], n[3], d[3];
  for (int i = 0; i < 3; i++) e1[i] = b[i] - a[i], e2[i] = c[i] - a[i], d[i] = p[i] - a[i];
  sim_cross3(e1, e2, n);
  const double s = sim_dot3(n, d), l = sim_norm3(n) * sim_norm3(d);
  return s > 1e-12 * l ? 1 : s < -1e-12 * l ? -1 : 0;
}

/* The side of a cloth's triangle tri a still point p is held on: s, its side at q_t (xs), but
   x_prev's (the step before) where s is 0 (p in the plane at q_t), and where the face swept over
   p within the step before: p over the face at both (it projects inside it) and on its other
   side at x_prev. A tip the cloth's face went over is then held on the side it came from, its
   gap negative, and the solve pushes the face back; read at q_t alone, the face was held on the
   wrong side from then on, its gap positive (cloth_on_knives_15k with three folds: the tallest
   tip 1.6 mm through a face at step 83, held there at the 1e5 N cap, and frames 83-86 with
   crossing edges). A point of a moving mesh (at ps at t, pe at t + h) keeps s: where it was at
   the step before is not known here. */
SIM_HD int sim_point_side_kept(const double *xs, const double *x_prev, const int *tri,
                               const double ps[3], const double pe[3], int s) {
  if (!x_prev) return s;
  const int sp = sim_point_side(x_prev, tri, ps);
  if (s == 0 || sp == 0 || sp == s) return s ? s : sp;
  if (ps[0] != pe[0] || ps[1] != pe[1] || ps[2] != pe[2]) return s;
  const double *a[2] = {xs, x_prev};
  for (int k = 0; k < 2; k++) {
    sim_tri_closest q;
    sim_tri_closest_point(ps, a[k] + 3 * (size_t)tri[0], a[k] + 3 * (size_t)tri[1],
                          a[k] + 3 * (size_t)tri[2], &q);
    if (q.feature != SIM_TRI_FACE) return s; /* beside the face: round its rim, not through */
  }
  return sp;
}

/* What a point's contact on triangle tri (global vertices), weights w, takes from them, its
   normal set: kind, tri, w, v (the vertex of largest weight), p = pe, u = 0, the tangents. */
SIM_HD void sim_point_put(const int *tri, const double w[3], const double pe[3], sim_contact *c) {
  c->kind = SIM_CONTACT_TRIANGLE;
  c->compliance = 0.0;
  c->cable = NULL;
  c->dev_ref = c->dev_slot = 0;
  int best = 0;
  for (int k = 0; k < 3; k++) {
    c->tri[k] = tri[k], c->w[k] = w[k];
    if (w[k] > w[best]) best = k;
  }
  c->v = tri[best];
  for (int i = 0; i < 3; i++) c->p[i] = pe[i], c->u[i] = 0;
  sim_tangent_basis(c->n, c->t1, c->t2);
}

/* The contact of a point with the nearest triangle of body b within `margin`: the query point
   q against the tree at x (q_t, or q~ in the prediction pass), the side of ps against xs (q_t),
   then x_prev (or NULL); p = pe. */
SIM_HD int sim_point_body(const sim_point_view *v, int b, const double *x, const double *xs,
                          const double *x_prev, const double q[3], const double ps[3],
                          const double pe[3], double margin, sim_contact *c, sim_bvh_hit *hit) {
  sim_bvh_hit h = {0}; /* set when found; zeroed for the compiler's flow analysis */
  if (!sim_bvh_view_nearest(&v->bvh[b], x, q, margin, NULL, &h)) return 0;
  *hit = h;
  const int *tri = v->tri + 3 * (v->tri_first[b] + h.tri);
  if (v->pinned[tri[0]] && v->pinned[tri[1]] && v->pinned[tri[2]]) return 0;
  const int cloth = v->cloth[b];
  int s = cloth ? sim_point_side(xs, tri, ps) : 1; /* closed: p outside is side +1 */
  if (cloth) s = sim_point_side_kept(xs, x_prev, tri, ps, pe, s);
  if (s == 0) s = 1;
  const double d = sqrt(h.q.d2);
  const int in_face = h.q.feature == SIM_TRI_FACE;
  for (int i = 0; i < 3; i++) {
    const double dir = (h.q.c[i] - q[i]) / (d > 0 ? d : 1);
    /* in a face's region, or touching, the face normal; at an edge or corner from outside,
       the direction to the closest point */
    c->n[i] = (in_face || d <= 0 || (cloth ? h.q.side != s : h.q.side < 0)) ? -s * h.q.n[i] : dir;
  }
  if (sim_norm3(c->n) < 0.5) return 0; /* degenerate triangle */
  sim_point_put(tri, h.q.w, pe, c);
  c->gap = sim_dot3(c->n, h.q.c) - sim_dot3(c->n, q);
  return 1;
}

/* The contacts of a point at q in folds of body b's surface (its tree fit to x) towards it,
   beyond its contact `first` on triangle `a` (the body's input index; hit point cA), within
   `margin`: up to SIM_POINT_FOLDS into c (source and mu left to the caller), each on the
   nearest triangle that is a fold's other face from A (detect_crease.h
   sim_detect_crease_face) with the point in front of its plane, whose plane meets each one
   taken before at more than acos(SIM_DETECT_CREASE_COS), none with its three vertices pinned.
   Returns how many. A face the point lies behind is not taken, unlike a vertex's fold: on
   cloth_on_knives a blade's edge, samples 1.5 cm apart, under cloth sliding down it, had such
   rows (1.2 cm behind a face beyond the edge) at the force cap against its other rows, and
   from frame 365 the blade cut through the cloth (whole to frame 900 without them). */
SIM_HD int sim_point_folds(const sim_point_view *v, int b, const double *x, int a,
                           const double cA[3], const double q[3], const double pe[3],
                           const sim_contact *first, double margin, sim_contact *c) {
  const int *tri_b = v->tri + 3 * (size_t)v->tri_first[b];
  const sim_detect_surface f = {&v->bvh[b], x, tri_b, v->cloth[b], margin, 1};
  /* the first contact's normal points from the point to the surface: the surface's side that
     faces the point is its opposite */
  const double nA[3] = {-first->n[0], -first->n[1], -first->n[2]};
  int taken[SIM_POINT_FOLDS];
  double tn[SIM_POINT_FOLDS][3];
  int n = 0;
  for (; n < SIM_POINT_FOLDS; n++) {
    const sim_detect_crease_more more = {n, taken, (const double(*)[3])tn, v->pinned};
    sim_bvh_hit h = {0}; /* set when found; zeroed for the compiler's flow analysis */
    double nb[3] = {0, 0, 0}, gap = 0.0;
    if (!sim_detect_crease_find(&f, q, a, nA, cA, NULL, &more, &h, nb, &gap)) break;
    taken[n] = h.tri;
    for (int k = 0; k < 3; k++) tn[n][k] = nb[k], c[n].n[k] = -nb[k];
    sim_point_put(tri_b + 3 * (size_t)h.tri, h.q.w, pe, &c[n]);
    c[n].gap = gap;
  }
  return n;
}

/* A point's contact over the bodies in mask `bodies` (bit b: body b; bodies from 64 on always
   tested) into *best, source and mu left to the caller: at ps (its place at the step's start)
   against the trees at x = xs (ahead 0, the q_t pass), or at pe (at the step's end) against
   the trees at x = q~ (ahead 1). own: its mesh's margin (sim_detect_mesh.margin: < 0 for the
   pass's). Returns 1 when found; with v->creases and folds set, 1 + the point's contacts with
   that body in folds (above), up to SIM_POINT_FOLDS, put into folds[]. */
SIM_HD int sim_detect_point(const sim_point_view *v, uint64_t bodies, double own, int ahead,
                            const double *x, const double *xs, const double *x_prev,
                            const double ps[3], const double pe[3], sim_contact *best,
                            sim_contact *folds) {
  const double m[3] = {pe[0] - ps[0], pe[1] - ps[1], pe[2] - ps[2]};
  const double base = sim_detect_margin(own, v->margin);
  const double margin = ahead ? base : base + sim_norm3(m);
  const double *q = ahead ? pe : ps;
  int found = 0, body = 0;
  sim_contact c;
  sim_bvh_hit h, hb = {0};
  for (int b = 0; b < v->nbodies; b++) {
    if (b < 64 && !((bodies >> b) & 1u)) continue;
    if (!sim_point_body(v, b, x, xs, x_prev, q, ps, pe, margin, &c, &h)) continue;
    if (!found || c.gap < best->gap) *best = c, found = 1, body = b, hb = h;
  }
  if (!found || !v->creases || !folds) return found;
  return 1 + sim_point_folds(v, body, x, hb.tri, hb.q.c, q, pe, best, margin, folds);
}

#endif

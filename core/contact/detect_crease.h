/* SPDX-License-Identifier: MIT */
/* A vertex's second contact with a body or a mesh obstacle, on the other face of a fold of its
   surface towards the vertex (SIM_HD: the CPU's detect.c and the CUDA detector run this same
   code; detect.h sim_detect_params.creases).

   One contact per vertex and body holds the vertex off the body's nearest triangle alone. Where
   the surface folds towards the vertex (a cloth pressed into a tent by a box's corner, the
   corner in the tent's valley), the row of the nearer face does not stop the vertex going
   through the other: box_on_trampoline's box corner, resting on one face of a tent 6 mm from
   the fold, went 4.4 mm through the face beyond it, and its nearest triangle changed from one
   face to the other from step to step; a box sliding into an open V trough (a mesh obstacle)
   went 1.13 mm through the slope its row did not name.

   The fold's other face: the nearest triangle B of the surface within the margin of x, other than
   the nearest one A, such that
   - their planes meet at more than acos(SIM_DETECT_CREASE_COS): a sheet curved a little, and a
     layer of cloth lying parallel on the vertex's other side, give none. A's contact normal
     is the direction to A's nearest point where that lies on A's rim, so B is also to meet A's
     own plane at more than 5 degrees (SIM_DETECT_CREASE_FLAT_COS): a flat blade's triangle
     beside the one whose edge a vertex was nearest passed the first test, its normal turned by
     the rounding of a centroid in its plane, and held the vertex on the blade's other side at
     5e4 N (cloth_on_knives_10k, frame 86: 1 cm through the blade);
   - the fold turns towards the vertex: B's centroid lies in front of A's plane (A's contact
     normal n_A, facing the vertex), and, with B's normal n_B turned to face A's centroid, the
     vertex is no more than the margin in front of B's plane. A point over a ridge (B falling
     away from A) gives none.
   Its row holds the vertex in front of B's plane, not off B's nearest point: a vertex resting
   on A next to the fold is nearest B's edge on the fold, and (x - c) / |x - c| there lies in
   A's plane. The contact: tri, w = B's vertices and the barycentrics of its point nearest x,
   n = n_B, gap = n_B . (x - c), negative where the vertex has crossed B's plane (a vertex in
   front of A and behind B within B's reach has gone through B). On a body's surface, behind
   B's plane counts only over B's face (c inside B): a vertex behind it whose nearest point of
   B is on B's rim lies beside B, not through it (in a fold's valley, in front of A and behind
   B is over B's face), and B is passed over for the next face. On the folded towel with edge
   pairs, a vertex beside a crumple's corner vertex, nearest that corner of a triangle on the
   crumple's far side and 6 mm behind that triangle's plane, was taken as through it: its row,
   which no position met beside its first contact's, went to 1.2e3 N and the cloth through
   itself. A mesh obstacle's fold still takes such a face: on cloth_on_knives a vertex 25 mm
   behind its first contact's blade face (frame 90) met the blade's fold beside it, and with
   the rule there the next face, the blade's face beyond it turned the other way, took the
   force cap and the run went 2.6 mm through at frame 91 (+0.002 mm without). A closed
   body's n_B is its outward normal, which faces A's centroid in a fold (a notch in the
   surface). A mesh obstacle's row is an obstacle's: n_B . (x - p), p that nearest point, and
   its surface velocity there. */
#ifndef SIM_CONTACT_DETECT_CREASE_H
#define SIM_CONTACT_DETECT_CREASE_H
#define SIM_DETECT_CREASE_COS 0.9 /* |n_A . n_B| below this: the planes meet at over 25.8 deg */
#define SIM_DETECT_CREASE_FLAT_COS 0.9961946980917455 /* cos 5 deg: B in A's plane (below) */

#include "contact/bvh_query.h"
#include "contact/detect.h"

/* The unit normal of triangle t3 (indices into x) at positions x; zero where degenerate. */
SIM_HD void sim_detect_face_normal(const double *x, const int *t3, double n[3]) {
  const double *x0 = x + 3 * (size_t)t3[0], *x1 = x + 3 * (size_t)t3[1],
               *x2 = x + 3 * (size_t)t3[2];
  const double e1[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
  const double e2[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
  sim_cross3(e1, e2, n);
  const double l = sim_norm3(n);
  for (int k = 0; k < 3; k++) n[k] = l > 0.0 ? n[k] / l : 0.0;
}

/* The centroid of triangle t3 (indices into x) at positions x. */
SIM_HD void sim_detect_centroid(const double *x, const int *t3, double c[3]) {
  for (int k = 0; k < 3; k++)
    c[k] = (x[3 * (size_t)t3[0] + k] + x[3 * (size_t)t3[1] + k] + x[3 * (size_t)t3[2] + k]) / 3.0;
}

/* The cheap part of the fold's test, before the closest point: whether triangle t3's plane
   meets A's (normal nA, point cA) at more than acos(SIM_DETECT_CREASE_COS) (to rounding; the
   closest point's unit normal settles it, sim_detect_crease_face) and t3's centroid lies in
   front of A's plane. */
SIM_HD int sim_detect_crease_may(const double *x, const int *t3, const double nA[3],
                                 const double cA[3]) {
  const double *x0 = x + 3 * (size_t)t3[0], *x1 = x + 3 * (size_t)t3[1],
               *x2 = x + 3 * (size_t)t3[2];
  const double e1[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
  const double e2[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
  double nn[3], g[3];
  sim_cross3(e1, e2, nn);
  const double l2 = sim_dot3(nn, nn), t = sim_dot3(nn, nA), c = SIM_DETECT_CREASE_COS + 1e-9;
  if (!(l2 > 0.0) || !(t * t < c * c * l2)) return 0;
  sim_detect_centroid(x, t3, g);
  const double d[3] = {g[0] - cA[0], g[1] - cA[1], g[2] - cA[2]};
  return sim_dot3(nA, d) > 0.0;
}

/* A surface the folds' test reads: a body's (its tree over the global positions, its
   triangles in input order, open: a cloth) or a mesh obstacle's (its tree and posed vertices),
   the margin of its contacts, and whether a face the vertex lies behind, beside its rim, is
   passed over (`beside`: a body's, above). */
typedef struct sim_detect_surface {
  const sim_bvh_view *bvh;
  const double *x;
  const int *tri;
  int open;
  double margin;
  int beside;
} sim_detect_surface;

/* Whether a triangle of surface f that passed sim_detect_crease_may (its centroid in front of
   A's plane: B does not fall away behind it, a ridge), whose point nearest x is q, is the other
   face of a fold towards x from triangle A (contact normal nA, centroid gA): then its normal
   facing gA into n and x's distance in front of its plane (<= the margin; with f->beside,
   negative only where q lies on B's face) into *gap. */
SIM_HD int sim_detect_crease_face(const sim_detect_surface *f, const double x[3],
                                  const double nA[3], const double fA[3], const double gA[3],
                                  const sim_tri_closest *q, double n[3], double *gap) {
  if (sim_dot3(q->n, q->n) == 0.0 || !(fabs(sim_dot3(q->n, nA)) < SIM_DETECT_CREASE_COS) ||
      !(fabs(sim_dot3(q->n, fA)) < SIM_DETECT_CREASE_FLAT_COS))
    return 0;
  const double dA[3] = {gA[0] - q->c[0], gA[1] - q->c[1], gA[2] - q->c[2]};
  const double turn = sim_dot3(q->n, dA) < 0.0 ? -1.0 : 1.0;
  if (!f->open && turn < 0.0) return 0; /* a closed surface's outward normal faces A: a ridge */
  for (int k = 0; k < 3; k++) n[k] = turn * q->n[k];
  const double d[3] = {x[0] - q->c[0], x[1] - q->c[1], x[2] - q->c[2]};
  *gap = sim_dot3(n, d);
  if (f->beside && *gap < 0.0 && q->feature != SIM_TRI_FACE) return 0; /* beside B */
  return *gap <= f->margin;
}

/* What a mesh obstacle's point's further folds ask of a face besides the fold's test
   (detect_point.h sim_point_folds): none of the n faces taken (input indices), its plane
   meeting each one's (unit normals tn) at more than acos(SIM_DETECT_CREASE_COS), the point in
   front of it (gap >= 0), not all three of its vertices pinned. */
typedef struct sim_detect_crease_more {
  int n;
  const int *taken;
  const double (*tn)[3];
  const unsigned char *pinned;
} sim_detect_crease_more;

SIM_HD int sim_detect_crease_taken(const sim_detect_crease_more *m, int id) {
  for (int i = 0; i < m->n; i++)
    if (m->taken[i] == id) return 1;
  return 0;
}

/* Whether face t3 (global vertices), its normal nb and gap gb as the fold's test gave them,
   meets m's further asks. */
SIM_HD int sim_detect_crease_more_ok(const sim_detect_crease_more *m, const int *t3,
                                     const double nb[3], double gb) {
  if (gb < 0.0 || (m->pinned[t3[0]] && m->pinned[t3[1]] && m->pinned[t3[2]])) return 0;
  for (int i = 0; i < m->n; i++)
    if (!(fabs(sim_dot3(nb, m->tn[i])) < SIM_DETECT_CREASE_COS)) return 0;
  return 1;
}

/* The fold's other face of surface f for a vertex at x whose contact with it is on triangle a
   (input index) with normal nA at point cA, skipping what `skip` names (NULL: nothing) and, with
   `more`, the faces that fail its asks: its hit into *h and its normal and gap
   (sim_detect_crease_face) into n and *gap, returning 1, or 0 where there is none. The
   smallest (d2, input index) among them, as sim_bvh_view_nearest picks. */
SIM_HD int sim_detect_crease_find(const sim_detect_surface *f, const double x[3], int a,
                                  const double nA[3], const double cA[3], const sim_bvh_skip *skip,
                                  const sim_detect_crease_more *more, sim_bvh_hit *h, double n[3],
                                  double *gap) {
  const sim_bvh_view *b = f->bvh;
  const double m2 = f->margin * f->margin;
  double gA[3], fA[3]; /* A's centroid and face normal */
  sim_detect_centroid(f->x, f->tri + 3 * a, gA);
  sim_detect_face_normal(f->x, f->tri + 3 * a, fA);
  int found = 0;
  sim_bvh_walk w;
  sim_bvh_walk_begin(b, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(b, &w, x, m2, NULL)) >= 0;) {
    const sim_bvh_node *nd = &b->node[leaf];
    for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
      const int id = b->id[slot], *t3 = b->tri + 3 * slot;
      if (id == a || sim_bvh_skips_quick(skip, t3) || (more && sim_detect_crease_taken(more, id)) ||
          !sim_detect_crease_may(f->x, t3, nA, cA))
        continue;
      sim_tri_closest q;
      sim_bvh_slot_closest(b, f->x, x, slot, &q);
      if (!(q.d2 <= m2) || (found && (q.d2 > h->q.d2 || (q.d2 == h->q.d2 && id > h->tri))))
        continue;
      double nb[3], gb;
      if (!sim_detect_crease_face(f, x, nA, fA, gA, &q, nb, &gb) || sim_bvh_skips_rest(skip, t3) ||
          (more && !sim_detect_crease_more_ok(more, t3, nb, gb)))
        continue;
      h->tri = id, h->q = q, found = 1, *gap = gb;
      for (int k = 0; k < 3; k++) n[k] = nb[k];
    }
  }
  return found;
}

#endif

/* SPDX-License-Identifier: MIT */
/* BVH queries that run on the host and the device alike (SIM_HD): the nearest triangle and the
   pseudo-normal sum of collision detection, on a flat view of a tree (bvh.h) whose arrays live
   wherever the caller keeps them. The CPU's bvh.c and detect.c call these, and so does the
   CUDA detector (gpu/detect_cuda.cu), so both find the same triangle by the same traversal and
   add the same terms in the same order.

   Traversal: an explicit stack of SIM_BVH_STACK nodes (the tree is balanced: its depth is at
   most ceil(log2 nt) + 1 <= 33). Box distances are summed in sim_dot3's order, so a box never
   seems farther than a closest point inside it. */
#ifndef SIM_CONTACT_BVH_QUERY_H
#define SIM_CONTACT_BVH_QUERY_H
#include <float.h>
#include <stddef.h>

#include "contact/bvh.h"
#include "contact/detect_tally.h"

#define SIM_BVH_STACK 64

/* A tree's arrays (bvh.h: nodes in pre-order, triangles in leaf order, their input ids). */
typedef struct sim_bvh_view {
  int nnodes;
  const sim_bvh_node *node;
  const int *tri; /* 3 per slot */
  const int *id;  /* per slot */
  int ring_lo, ring_n;
  const int *ring_ptr, *ring;  /* the triangles at each vertex (bvh.h) */
  const unsigned char *edge_f; /* each slot's edges' places (bvh.h) */
} sim_bvh_view;

static inline sim_bvh_view sim_bvh_view_of(const sim_bvh *b) {
  sim_bvh_view v = {b->nnodes, b->node,     b->tri,  b->id,    b->ring_lo,
                    b->ring_n, b->ring_ptr, b->ring, b->edge_f};
  return v;
}

/* The edges vertex v owns on the tree's surface: those to higher-numbered vertices, each once,
   in the order of v's ring (ascending slots) and within a triangle (v, t[j+1]) before (v,
   t[j+2]) where t[j] = v; an edge's place in that order names it (detect_edge.h). The first
   cap into u (the other vertex) and slot (the first triangle that has it), either NULL: not
   asked; returns how many v owns. */
SIM_HD int sim_bvh_edges_owned(const sim_bvh_view *b, int v, int cap, int *u, int *slot) {
  const int i = v - b->ring_lo;
  if (!b->ring_ptr || i < 0 || i >= b->ring_n) return 0;
  int n = 0;
  for (int r = b->ring_ptr[i]; r < b->ring_ptr[i + 1]; r++) {
    const int *t = b->tri + 3 * b->ring[r];
    const int j = t[0] == v ? 0 : t[1] == v ? 1 : 2;
    for (int k = 1; k <= 2; k++) {
      const int w = t[(j + k) % 3];
      int seen = w <= v; /* or had by a ring triangle before this one */
      for (int a = b->ring_ptr[i]; a < r && !seen; a++) {
        const int *ta = b->tri + 3 * b->ring[a];
        seen = ta[0] == w || ta[1] == w || ta[2] == w;
      }
      if (seen) continue;
      if (n < cap && u) u[n] = w;
      if (n < cap && slot) slot[n] = b->ring[r];
      n++;
    }
  }
  return n;
}

/* Grows the box [lo, hi] by the points x[ids[0..n)] (3 doubles each). Callers grow it by one
   pose, then the other: one loop over both, the pose picked per point ((j < n ? x : x2)[...]),
   is compiled by g++ 12.2 at -O2 with -fsanitize=address,undefined (the emulated device code
   of `make test-asan`) as if it read x alone: the emulated detector's boxes lost x2's pose. */
SIM_HD void sim_box_grow(const double *x, const int *ids, int n, double lo[3], double hi[3]) {
  for (int j = 0; j < n; j++)
    for (int k = 0; k < 3; k++) {
      const double e = x[3 * (size_t)ids[j] + k];
      if (e < lo[k]) lo[k] = e;
      if (e > hi[k]) hi[k] = e;
    }
}

/* Squared distance from p to the node's box. */
SIM_HD double sim_bvh_box_d2(const sim_bvh_node *nd, const double p[3]) {
  SIM_TALLY_BOX();
  double d2 = 0.0;
  for (int k = 0; k < 3; k++) {
    double d = 0.0;
    if (p[k] < nd->lo[k])
      d = nd->lo[k] - p[k];
    else if (p[k] > nd->hi[k])
      d = p[k] - nd->hi[k];
    d2 += d * d;
  }
  return d2;
}

/* Whether the box [lo, hi] overlaps box (box[0..2] its low corner, box[3..5] its high). */
SIM_HD int sim_bvh_box_meets(const double lo[3], const double hi[3], const double box[6]) {
  SIM_TALLY_BOX();
  return lo[0] <= box[3] && box[0] <= hi[0] && lo[1] <= box[4] && box[1] <= hi[1] &&
         lo[2] <= box[5] && box[2] <= hi[2];
}

SIM_HD void sim_bvh_slot_closest(const sim_bvh_view *b, const double *x, const double p[3], int s,
                                 sim_tri_closest *q) {
  const int *t = b->tri + 3 * s;
  sim_tri_closest_point(p, x + 3 * t[0], x + 3 * t[1], x + 3 * t[2], q);
}

/* Refit of node i to positions x (bvh.h), and also to x2 where x2 != NULL (a swept tree: its
   boxes hold each triangle at both poses, so every pose between them too, the boxes being
   convex): a leaf bounds its triangles' vertices, padded by 16 eps max|coordinate| (closest
   points are convex combinations, rounded); an inner node bounds its children, which must be
   refit first (they follow it in pre-order). */
SIM_HD void sim_bvh_refit_node(sim_bvh_node *node, const int *tri, const double *x,
                               const double *x2, int i) {
  sim_bvh_node *nd = &node[i];
  if (nd->count > 0) {
    for (int k = 0; k < 3; k++) nd->lo[k] = INFINITY, nd->hi[k] = -INFINITY;
    for (int s = nd->first; s < nd->first + nd->count; s++) {
      sim_box_grow(x, tri + 3 * s, 3, nd->lo, nd->hi);
      if (x2) sim_box_grow(x2, tri + 3 * s, 3, nd->lo, nd->hi);
    }
    for (int k = 0; k < 3; k++) {
      const double pad = 16 * DBL_EPSILON * fmax(fabs(nd->lo[k]), fabs(nd->hi[k]));
      nd->lo[k] -= pad;
      nd->hi[k] += pad;
    }
    return;
  }
  const sim_bvh_node *l = &node[i + 1], *r = &node[nd->first];
  for (int k = 0; k < 3; k++) {
    nd->lo[k] = l->lo[k] < r->lo[k] ? l->lo[k] : r->lo[k];
    nd->hi[k] = l->hi[k] > r->hi[k] ? l->hi[k] : r->hi[k];
  }
}

/* The triangles a self-collision query passes over for vertex v (v < 0: none): those that
   have v (its own ring) and, where rest != NULL, those nearer than sqrt(r2) to v at rest
   (`rest` 3 per vertex, indexed as the tree's triangles): on a cloth the triangles that lie
   beside the vertex in its own sheet, which it would otherwise touch edge-on wherever the
   margin exceeds its distance to the ring's far edges, and not those across a fold from it. */
typedef struct sim_bvh_skip {
  int v;
  const double *rest;
  double r2;
} sim_bvh_skip;

/* The cheap part: the ring (a few compares) and, at rest, a vertex of the triangle nearer
   than sqrt(r2) to v (then so is the triangle). The rest of the test (the closest point at
   rest) a query makes only for a triangle that would be its nearest yet. */
SIM_HD int sim_bvh_skips_quick(const sim_bvh_skip *k, const int *t) {
  if (!k || k->v < 0) return 0;
  if (t[0] == k->v || t[1] == k->v || t[2] == k->v) return 1;
  if (!k->rest) return 0;
  const double *r = k->rest, *p = r + 3 * (size_t)k->v;
  for (int j = 0; j < 3; j++) {
    const double *a = r + 3 * (size_t)t[j];
    const double d[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]};
    if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < k->r2) return 1;
  }
  return 0;
}

SIM_HD int sim_bvh_skips_rest(const sim_bvh_skip *k, const int *t) {
  if (!k || k->v < 0 || !k->rest) return 0;
  const double *r = k->rest;
  sim_tri_closest q;
  return sim_tri_closest_point(r + 3 * (size_t)k->v, r + 3 * (size_t)t[0], r + 3 * (size_t)t[1],
                               r + 3 * (size_t)t[2], &q) < k->r2;
}

/* The nearest triangle within margin: the smallest (d2, input index), skipping the triangles
   `skip` names (NULL: none; self-collision, sim_bvh_skip).
   Depth first, nearer child first; a box is skipped when its distance exceeds the best found
   so far (ties are kept, so the smallest index among equal distances wins). Returns 1 and
   fills *hit when found, else 0. */
SIM_HD int sim_bvh_view_nearest(const sim_bvh_view *b, const double *x, const double p[3],
                                double margin, const sim_bvh_skip *skip, sim_bvh_hit *hit) {
  if (b->nnodes == 0 || !(margin >= 0)) return 0;
  double best = margin * margin;
  int found = 0, top = 0, stack[SIM_BVH_STACK];
  double sd[SIM_BVH_STACK];
  stack[top] = 0, sd[top++] = sim_bvh_box_d2(&b->node[0], p);
  while (top > 0) {
    const int i = stack[--top];
    if (sd[top] > best) continue;
    const sim_bvh_node *nd = &b->node[i];
    if (nd->count == 0) {
      const int l = i + 1, r = nd->first;
      const double dl = sim_bvh_box_d2(&b->node[l], p), dr = sim_bvh_box_d2(&b->node[r], p);
      const int swap = dr < dl; /* push the farther child first */
      stack[top] = swap ? l : r, sd[top++] = swap ? dl : dr;
      stack[top] = swap ? r : l, sd[top++] = swap ? dr : dl;
      continue;
    }
    for (int s = nd->first; s < nd->first + nd->count; s++) {
      const int *t = b->tri + 3 * s;
      if (sim_bvh_skips_quick(skip, t)) continue;
      sim_tri_closest q;
      sim_bvh_slot_closest(b, x, p, s, &q);
      const int id = b->id[s];
      if ((found ? (q.d2 < best || (q.d2 == best && id < hit->tri)) : q.d2 <= best) &&
          !sim_bvh_skips_rest(skip, t)) {
        best = q.d2;
        hit->tri = id;
        hit->q = q;
        found = 1;
      }
    }
  }
  return found;
}

/* The leaves whose boxes lie within sqrt(m2) of p (p NULL: any) and, where box != NULL,
   overlap the box (box[0..2] its low corner, box[3..5] its high), depth first, left child
   first: start with sim_bvh_walk_begin, then sim_bvh_walk_next returns the next such leaf or
   -1 at the end. */
typedef struct sim_bvh_walk {
  int stack[SIM_BVH_STACK], top;
} sim_bvh_walk;

SIM_HD void sim_bvh_walk_begin(const sim_bvh_view *b, sim_bvh_walk *w) {
  w->top = 0;
  if (b->nnodes > 0) w->stack[w->top++] = 0;
}

SIM_HD int sim_bvh_walk_next(const sim_bvh_view *b, sim_bvh_walk *w, const double p[3], double m2,
                             const double *box) {
  while (w->top > 0) {
    const int i = w->stack[--w->top];
    const sim_bvh_node *nd = &b->node[i];
    if (box && !sim_bvh_box_meets(nd->lo, nd->hi, box)) continue;
    if (p && sim_bvh_box_d2(nd, p) > m2) continue;
    if (nd->count > 0) return i;
    w->stack[w->top++] = nd->first; /* right after left */
    w->stack[w->top++] = i + 1;
  }
  return -1;
}

/* Slot s's term of the pseudo-normal below: N += its unit normal (angle-weighted at a vertex)
   where it has the vertex ga (and gb, gb >= 0) and lies within sqrt(m2) of p. */
SIM_HD void sim_bvh_pseudo_term(const sim_bvh_view *b, const double *x, const double p[3],
                                double m2, int s, int ga, int gb, double N[3]) {
  const int *t = b->tri + 3 * s;
  int ja = -1, jb = -1;
  for (int j = 0; j < 3; j++) {
    if (t[j] == ga) ja = j;
    if (t[j] == gb) jb = j;
  }
  if (ja < 0 || (gb >= 0 && jb < 0)) return;
  sim_tri_closest q;
  sim_bvh_slot_closest(b, x, p, s, &q);
  if (!(q.d2 <= m2)) return;
  double wt = 1.0;
  if (gb < 0) { /* the angle at corner ja */
    const double *o = x + 3 * t[ja], *a = x + 3 * t[(ja + 1) % 3], *c = x + 3 * t[(ja + 2) % 3];
    const double e1[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    const double e2[3] = {c[0] - o[0], c[1] - o[1], c[2] - o[2]};
    double cr[3];
    sim_cross3(e1, e2, cr);
    wt = atan2(sim_norm3(cr), sim_dot3(e1, e2));
  }
  for (int k = 0; k < 3; k++) N[k] += wt * q.n[k];
}

/* Pseudo-normal at the vertex ga (gb < 0) or the edge (ga, gb) of a closed mesh (Baerentzen and
   Aanaes 2005): N += the unit normals of the triangles within `radius` of p that have that
   vertex or edge, angle-weighted at a vertex, in ascending slot order. The triangles are
   ga's ring (bvh.h), so no box is tested. Until 2026-12-03 a walk of the tree over the leaves
   within `radius` found them: the same terms in the same order (leaves in pre-order hold
   ascending slots, and a triangle within `radius` lies in a box within it), after up to 74
   box tests on the grabbing_raptor stand-in (scripts/detect_tally.sh). */
SIM_HD void sim_bvh_view_pseudo_normal(const sim_bvh_view *b, const double *x, const double p[3],
                                       double radius, int ga, int gb, double N[3]) {
  const int v = ga - b->ring_lo;
  if (!(radius >= 0) || v < 0 || v >= b->ring_n) return;
  const double m2 = radius * radius;
  for (int r = b->ring_ptr[v]; r < b->ring_ptr[v + 1]; r++)
    sim_bvh_pseudo_term(b, x, p, m2, b->ring[r], ga, gb, N);
}

#endif

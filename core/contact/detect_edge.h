/* SPDX-License-Identifier: MIT */
/* Edge-edge contacts (kind SIM_CONTACT_EDGE, contact.h), SIM_HD: the CPU's detect.c and the
   CUDA detector run this same code through sim_detect_vertex (detect_vertex.h).

   A cloth's layers crossing at an angle, or a box's edge across another's, pass through each
   other between their vertices where no vertex comes near a triangle: vertex-triangle contacts
   alone do not see it. With sim_detect_params.edge_edge the bodies' surface edges are tested
   against each other:

   - Ownership: vertex v owns the edges of its body's surface to higher-numbered vertices u,
     each once, in the order of v's ring of triangles (bvh_query.h sim_bvh_edges_owned); e is
     an edge's place in that order.
   - A pair of edges (v, u) and (lo, hi), both lower vertex first, is a contact where the
     segments' closest points lie inside both (seg_distance.h; elsewhere a vertex is the
     nearest and vertex-triangle contacts hold it), each no nearer an end of its edge than
     to the other point (else that vertex against the other edge: sim_detect_edge_at_end),
     within the margin, held by the edge with the lower first vertex, v < lo, so each pair
     once. Its key's source, sim_detect_edge_source(lo, f, e), names the pair (f: (lo, hi)'s
     place among lo's edges).
     The other edge's body B is another (not with no_others) or, with self_collision, v's own.
     A pinned vertex's edges count; a pair of four pinned vertices does not.
   - Candidates: B's triangles in the tree's leaves that meet the edge's box grown by the
     margin whose own boxes meet it too, each edge from the first of lo's ring triangles that
     has it (the tree's edge_f, bvh.h: a triangle that has an edge within the margin lies in
     such a leaf, so both that have it are seen).
   - Self: not the edges that share a vertex, nor, where the body has rest positions, those
     nearer than rest_gap at rest (an end within rest_gap of an end first, then the segments'
     distance for an edge within the margin), as for a vertex and its own triangles (bvh_query.h
     sim_bvh_skip).
   - Orientation, unsigned as for a cloth: n = (pa - pb) / d, gap = d; touching (d rounding
     noise), n = the edges' cross product turned to x_prev's side (pa - pb at x_prev, the same
     parameters). Then, with x_prev, turned to the side the pair came from as an open body's
     vertex-triangle contact is (detect_form.h sim_detect_side_turn, the remembered pair being
     this pair): a side remembered for the key that this one differs from where that contact
     was behind or x_prev was behind or less than SIM_DETECT_SIDE_SLACK margins in front;
     without one, where x_prev was behind.
   - Order: the vertex's edge contacts by source, after its other contacts.
   - sweep (the prediction pass, x_prev = q_t): a pair not within the margin at x is still a
     contact where its edges, their vertices moving linearly from x_prev to x, come within the
     margin of each other over the step (sim_detect_edges_swept), taken at x_prev: its closest
     points, normal and gap there where they lie inside both edges; else (an edge slid past
     the other's end as they came) where the segments pass through each other over the step,
     with the weights of the time they do, at x_prev, the normal the edges' common normal then
     and the gap along it at x_prev (sim_detect_edges_crossed), unless a point of the pair lay
     then nearer a face of the other body, on its other side than the pair holds it on
     (sim_detect_crossed_misread: the pair is dropped). Edges crossing faster than
     twice the margin a step, found at neither end, are held on their side. The walk and the
     triangles' boxes then bound both poses. */
#ifndef SIM_CONTACT_DETECT_EDGE_H
#define SIM_CONTACT_DETECT_EDGE_H

#include "contact/bvh_query.h"
#include "contact/detect.h"
#include "contact/detect_form.h"
#include "contact/seg_distance.h"

SIM_HD int sim_detect_edge_source(int lo, int f, int e) {
  return (lo * SIM_CONTACT_EDGE_SLOTS + f) * SIM_CONTACT_EDGE_SLOTS + e;
}

/* sweep: whether edges (v, u) and (lo, hi), their vertices moving linearly from xp to x, come
   within margin of each other over the step with their closest points inside both (they are
   farther at its end). Conservative advancement in time, as for a vertex (detect_body.h
   sim_detect_tri_swept): a point of an edge moves at most as far as the faster of its ends, so
   the segments' distance changes at most as fast as L, the two edges' faster ends' together;
   from a time where it is d > margin it stays above margin / 2 for (d - margin / 2) / L. Where
   it is within the margin at an end of an edge (a vertex near an edge: vertex-triangle
   contacts' part), the next time is margin / (2 L) on. 1 as well where SIM_DETECT_SWEEP_STEPS
   steps did not settle it. */
SIM_HD int sim_detect_edges_swept(const double *x, const double *xp, int v, int u, int lo, int hi,
                                  double margin) {
  const int id[4] = {v, u, lo, hi};
  double L[2] = {0.0, 0.0};
  for (int j = 0; j < 4; j++) {
    const double *a = xp + 3 * (size_t)id[j], *b = x + 3 * (size_t)id[j];
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    L[j / 2] = fmax(L[j / 2], sim_norm3(d));
  }
  const double rate = L[0] + L[1];
  double t = 0.0;
  for (int i = 0; i < SIM_DETECT_SWEEP_STEPS; i++) {
    double p[4][3];
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++) {
        const double a = xp[3 * (size_t)id[j] + k];
        p[j][k] = a + t * (x[3 * (size_t)id[j] + k] - a);
      }
    sim_seg_closest q;
    const int inner = sim_seg_closest_inner(p[0], p[1], p[2], p[3], &q);
    if (inner && q.d2 <= margin * margin) return 1;
    const double d = sqrt(inner ? q.d2 : sim_seg_ends_d2(p[0], p[1], p[2], p[3]));
    if (!(rate > 0.0) || !(d < INFINITY)) return 0; /* nothing moves (or NaN) */
    t += fmax(d - 0.5 * margin, 0.5 * margin) / rate;
    if (t > 1.0) return 0;
  }
  return 1;
}

/* The positions at time tau of the step of vertices id (moving linearly from xp to x) into p,
   and the edges' lines' signed separation there times |N|: N . (a0 - b0), N = (a1 - a0) x
   (b1 - b0); it changes sign where the lines pass through each other. */
SIM_HD double sim_detect_edges_side(const double *x, const double *xp, const int id[4], double tau,
                                    double p[4][3]) {
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 3; k++) {
      const double a = xp[3 * (size_t)id[j] + k];
      p[j][k] = a + tau * (x[3 * (size_t)id[j] + k] - a);
    }
  double d1[3], d2[3], N[3];
  for (int k = 0; k < 3; k++) d1[k] = p[1][k] - p[0][k], d2[k] = p[3][k] - p[2][k];
  sim_cross3(d1, d2, N);
  const double r[3] = {p[0][0] - p[2][0], p[0][1] - p[2][1], p[0][2] - p[2][2]};
  return sim_dot3(N, r);
}

/* The pair met over the step (sweep) whose closest points at x_prev are not inside both edges
   (an edge slid past the other's end as it came): whether the edges pass through each other
   over the step. Their lines do where the side above changes sign between x_prev and x; the
   time it is zero is found by bisection (SIM_DETECT_SWEEP_STEPS halvings; one of three where
   the side, a cubic in time, has three: a crossing at another may be missed), and the segments
   meet there where the lines' closest points lie inside both (else one passed beside the
   other's end). Where they do, 1 with the points of that time's weights at x_prev into *c and
   the edges' common normal then, turned to their side at x_prev, into dir. Else 0: edges
   that stay on their side slid along each other (a cloth's layers sliding over each other),
   which their ends' vertex-triangle contacts hold. (Taken with the weights of the time they
   came within the margin and the direction between the points then, the upper of two crossed
   ribbons thrown across the other at 5 m/s was pushed through it near its end.) */
SIM_HD int sim_detect_edges_crossed(const double *x, const double *xp, int v, int u, int lo, int hi,
                                    sim_seg_closest *c, double dir[3]) {
  const int id[4] = {v, u, lo, hi};
  double p[4][3], t0 = 0.0, t1 = 1.0;
  const double f0 = sim_detect_edges_side(x, xp, id, 0.0, p);
  const double f1 = sim_detect_edges_side(x, xp, id, 1.0, p);
  if (!(f0 * f1 < 0.0)) return 0; /* no change of side (or NaN) */
  for (int i = 0; i < SIM_DETECT_SWEEP_STEPS; i++) {
    const double tm = 0.5 * (t0 + t1), fm = sim_detect_edges_side(x, xp, id, tm, p);
    if ((fm < 0.0) == (f0 < 0.0))
      t0 = tm;
    else
      t1 = tm;
  }
  sim_detect_edges_side(x, xp, id, 0.5 * (t0 + t1), p);
  sim_seg_closest at;
  if (!sim_seg_closest_inner(p[0], p[1], p[2], p[3], &at)) return 0; /* beside an end */
  *c = at;
  double before = 0.0;
  for (int k = 0; k < 3; k++) {
    c->pa[k] = (1.0 - at.s) * xp[3 * (size_t)v + k] + at.s * xp[3 * (size_t)u + k];
    c->pb[k] = (1.0 - at.t) * xp[3 * (size_t)lo + k] + at.t * xp[3 * (size_t)hi + k];
    before += at.N[k] * (c->pa[k] - c->pb[k]);
  }
  const double d[3] = {c->pa[0] - c->pb[0], c->pa[1] - c->pb[1], c->pa[2] - c->pb[2]};
  c->d2 = sim_dot3(d, d);
  for (int k = 0; k < 3; k++) dir[k] = before < 0.0 ? -at.N[k] : at.N[k];
  return before != 0.0;
}

/* p's side of body bd's surface at x_prev (xp): n . (p - c), c the point of bd's surface nearest
   p within sqrt(r2) / 2 and n its triangle's unit normal by the vertex order (sim_tri_closest's),
   where p - c lies within 60 degrees of n (p beside a face, not off its rim), else 0; the
   triangles with a or b (p's own edge) or with both c and d (the edge p is paired with) not
   looked at. */
SIM_HD double sim_detect_surface_side(const sim_detect_body_view *bd, const double *xp, int a,
                                      int b, int c, int d, const double p[3], double r2) {
  const sim_bvh_view *t = &bd->bvh;
  double best = 0.25 * r2, side = 0.0;
  sim_bvh_walk w;
  sim_bvh_walk_begin(t, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(t, &w, p, best, NULL)) >= 0;) {
    const sim_bvh_node *nd = &t->node[leaf];
    for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
      const int *f = t->tri + 3 * slot;
      int own = 0, other = 0;
      for (int k = 0; k < 3; k++) {
        own |= f[k] == a || f[k] == b;
        other += f[k] == c || f[k] == d;
      }
      if (own || other == 2) continue;
      const double *x0 = xp + 3 * (size_t)f[0], *x1 = xp + 3 * (size_t)f[1],
                   *x2 = xp + 3 * (size_t)f[2];
      sim_tri_closest q;
      if (!(sim_tri_closest_point(p, x0, x1, x2, &q) < best)) continue;
      const double dp[3] = {p[0] - q.c[0], p[1] - q.c[1], p[2] - q.c[2]};
      const double along = sim_dot3(q.n, dp); /* q.n: unit, by the vertex order (0: degenerate) */
      best = q.d2;
      side = fabs(along) > 0.5 * sim_norm3(dp) ? along : 0.0;
    }
  }
  return side;
}

/* Whether holding a point on side `dir` of the plane of triangle t (its normal by its vertex
   order) is the other side than `side` says (sim_detect_surface_side: an orientable surface's
   faces agree on their sides); not where dir lies within 60 degrees of that plane, side is 0
   or there is no t. */
SIM_HD int sim_detect_side_disagrees(const double *xp, const int *t, const double dir[3],
                                     double side) {
  if (side == 0.0 || !t) return 0;
  const double *y0 = xp + 3 * (size_t)t[0], *y1 = xp + 3 * (size_t)t[1],
               *y2 = xp + 3 * (size_t)t[2];
  const double e1[3] = {y1[0] - y0[0], y1[1] - y0[1], y1[2] - y0[2]},
               e2[3] = {y2[0] - y0[0], y2[1] - y0[1], y2[2] - y0[2]};
  double n[3];
  sim_cross3(e1, e2, n);
  const double lean = sim_dot3(n, dir);
  return fabs(lean) > 0.5 * sim_norm3(n) * sim_norm3(dir) && (lean > 0.0) != (side > 0.0);
}

/* The first triangle of v's ring (tree b's) with vertex u: the one that names edge (v, u) where
   v < u (edge_f); NULL where none. */
SIM_HD const int *sim_detect_edge_tri_of(const sim_bvh_view *b, int v, int u) {
  const int i = v - b->ring_lo;
  if (!b->ring_ptr || i < 0 || i >= b->ring_n) return 0;
  for (int r = b->ring_ptr[i]; r < b->ring_ptr[i + 1]; r++) {
    const int *t = b->tri + 3 * b->ring[r];
    if (t[0] == u || t[1] == u || t[2] == u) return t;
  }
  return 0;
}

/* A crossed pair (sim_detect_edges_crossed) of edge (v, u) with edge (lo, hi) of body bd's
   triangle t, c its points pa, pb at x_prev (of the crossing's weights) and dir the side it
   holds pa on: whether the surfaces at x_prev say otherwise. The pair's side is pa's against
   (lo, hi)'s line, which beyond an edge's end need not be its side of the surface: the upper
   of two ribbons thrown at 12 m/s, under the lower's end where it rises from a kink, lay above
   the line of the flat edge ending at the kink, and that pair held it there, pushing it up
   through the lower (docs/results.md, *Edge-edge contact*). So each point's side of the other
   body's surface (sim_detect_surface_side) against the side the pair holds it on, read on a
   triangle of the other edge: where one disagrees, 1, and the pair is dropped (its row cannot
   hold the side the surface says; the pairs and contacts of the faces nearer the point do). A
   surface whose triangles' vertex orders disagree misreads this; a closed body's (outward) or
   a generated cloth's agree. */
SIM_HD int sim_detect_crossed_misread(const sim_detect_view *s, const sim_detect_body_view *bd,
                                      int v, int u, int lo, int hi, const int *t,
                                      const sim_seg_closest *c, const double dir[3]) {
  const double *xp = s->x_prev, r2 = c->d2, back[3] = {-dir[0], -dir[1], -dir[2]};
  const sim_detect_body_view *bv = &s->body[s->body_of[v]];
  return sim_detect_side_disagrees(xp, t, dir,
                                   sim_detect_surface_side(bd, xp, v, u, lo, hi, c->pa, r2)) ||
         sim_detect_side_disagrees(xp, sim_detect_edge_tri_of(&bv->bvh, v, u), back,
                                   sim_detect_surface_side(bv, xp, lo, hi, v, u, c->pb, r2));
}

/* The box of triangle t at x and, unless x2 is NULL, at x2: lo, hi. */
SIM_HD void sim_detect_tri_box(const double *x, const double *x2, const int *t, double lo[3],
                               double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
  sim_box_grow(x, t, 3, lo, hi); /* compares, not fmin (a libm call on the host) */
  if (x2) sim_box_grow(x2, t, 3, lo, hi);
}

/* The edges v owns (bvh_query.h sim_bvh_edges_owned), read from the tree's edge_f at v's ring
   (an edge is named at the first of its lower vertex's ring triangles that has it): each
   one's other vertex into u at its place (those below SIM_CONTACT_EDGE_SLOTS); returns how
   many v owns, as the scan of the ring that built edge_f counts them (at most
   SIM_BVH_EDGE_PLACES). */
SIM_HD int sim_detect_edges_of(const sim_bvh_view *b, int v, int u[SIM_CONTACT_EDGE_SLOTS]) {
  const int i = v - b->ring_lo;
  if (!b->ring_ptr || i < 0 || i >= b->ring_n) return 0;
  int n = 0;
  for (int r = b->ring_ptr[i]; r < b->ring_ptr[i + 1]; r++) {
    const int slot = b->ring[r], *t = b->tri + 3 * slot;
    for (int k = 0; k < 3; k++) {
      const int f = b->edge_f[3 * slot + k], p = t[k], q = t[(k + 1) % 3];
      if (f == SIM_BVH_EDGE_NONE || (p < q ? p : q) != v) continue;
      if (f < SIM_CONTACT_EDGE_SLOTS) u[f] = p < q ? q : p;
      n = f + 1 > n ? f + 1 : n;
    }
  }
  return n;
}

/* Self: whether edge (lo, hi) lies nearer than rest_gap to edge (v, u) at rest; quick: by
   their ends alone. */
SIM_HD int sim_detect_edge_rest_near(const sim_detect_body_view *bd, int v, int u, int lo, int hi,
                                     int quick) {
  const double *r = bd->rest, r2 = bd->rest_gap * bd->rest_gap;
  const double *a0 = r + 3 * (size_t)v, *a1 = r + 3 * (size_t)u;
  const double *b0 = r + 3 * (size_t)lo, *b1 = r + 3 * (size_t)hi;
  if (!quick) return sim_seg_d2(a0, a1, b0, b1) < r2;
  const double *e[4] = {a0, a1, b0, b1};
  for (int i = 0; i < 2; i++)
    for (int j = 2; j < 4; j++) {
      const double d[3] = {e[i][0] - e[j][0], e[i][1] - e[j][1], e[i][2] - e[j][2]};
      if (sim_dot3(d, d) < r2) return 1;
    }
  return 0;
}

/* Whether the closest points q of edges (v, u) and (lo, hi) at positions x lie, on either
   edge, nearer an end of it than to each other: the pair is then that vertex against the other
   edge, which the vertex's own contacts hold, and is no contact. Such pairs' normals turn
   with the last fraction of a millimetre between their points, and each has a side of its own:
   on the folded towel with edge pairs, collinear edges of a row folded into a Z, their points
   at the fold's vertices, held the rows apart along z with 200-520 N at step 204, and the
   cloth went 15 mm through itself at μ 0.2 (5 mm at 0.25, 13.6 mm at end_tolerance 1e-5); two
   thrown ribbons had two pairs at one vertex held on opposite sides of the other's edge, both
   at 3.2e4 N (docs/results.md, *Edge-edge contact*). */
SIM_HD int sim_detect_edge_at_end(const double *x, int v, int u, int lo, int hi,
                                  const sim_seg_closest *q) {
  const double *e[4] = {x + 3 * (size_t)v, x + 3 * (size_t)u, x + 3 * (size_t)lo,
                        x + 3 * (size_t)hi};
  const double w[2] = {q->s < 0.5 ? q->s : 1.0 - q->s, q->t < 0.5 ? q->t : 1.0 - q->t};
  for (int i = 0; i < 2; i++) {
    const double *p0 = e[2 * i], *p1 = e[2 * i + 1];
    const double d[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    if (w[i] * w[i] * sim_dot3(d, d) < q->d2) return 1;
  }
  return 0;
}

/* The contact of edge (v, u), place e, with edge (lo, hi), place f, at the closest points q:
   its normal and gap, oriented, into *k. dir (NULL: none) the normal's direction where q's
   points are not the closest (sim_detect_edges_crossed), the gap then n . (pa - pb). */
SIM_HD void sim_detect_edge_put(const sim_detect_view *s, int v, int u, int e, int lo, int hi,
                                int f, double mu, const sim_seg_closest *q, const double *dir,
                                sim_contact *k) {
  double n[3], dp[3] = {0.0, 0.0, 0.0};
  const double *xp = s->x_prev;
  if (xp) /* the same points at x_prev */
    for (int i = 0; i < 3; i++)
      dp[i] = (1.0 - q->s) * xp[3 * (size_t)v + i] + q->s * xp[3 * (size_t)u + i] -
              (1.0 - q->t) * xp[3 * (size_t)lo + i] - q->t * xp[3 * (size_t)hi + i];
  const double scale = fmax(fabs(q->pb[0]), fmax(fabs(q->pb[1]), fabs(q->pb[2])));
  double gap = sqrt(q->d2);
  if (dir) {
    const double l = sim_norm3(dir),
                 d[3] = {q->pa[0] - q->pb[0], q->pa[1] - q->pb[1], q->pa[2] - q->pb[2]};
    for (int i = 0; i < 3; i++) n[i] = dir[i] / l;
    gap = sim_dot3(n, d);
  } else if (q->d2 <= 64 * DBL_EPSILON * DBL_EPSILON * scale * scale) { /* touching */
    const double l = sim_norm3(q->N), sgn = sim_dot3(dp, q->N) < 0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; i++) n[i] = sgn * q->N[i] / l;
    gap = 0.0;
  } else {
    for (int i = 0; i < 3; i++) n[i] = (q->pa[i] - q->pb[i]) / gap;
  }
  const int source = sim_detect_edge_source(lo, f, e);
  if (xp)
    sim_detect_side_turn(s, sim_detect_side_find(s, v, SIM_CONTACT_EDGE, source), 1,
                         sim_dot3(n, dp), n, &gap);
  sim_detect_put(k, SIM_CONTACT_EDGE, v, source, n, q->pb, gap, mu, 0);
  k->tri[0] = u, k->tri[1] = lo, k->tri[2] = hi;
  k->w[0] = q->s, k->w[1] = 1.0 - q->t, k->w[2] = q->t;
}

/* Edge (v, u), place e, against the edges of body bd's triangle at `slot` (above): its
   contacts into out from out[found], below out[cap] (out NULL: counted); returns found plus
   their number. rest: self with rest positions; mu the pair's friction; v's skipped keys
   [lo_key, hi_key). */
SIM_HD int sim_detect_edge_tri(const sim_detect_view *s, const sim_detect_body_view *bd, int rest,
                               int v, int u, int e, int slot, double mu, int lo_key, int hi_key,
                               sim_contact *out, int cap, int found) {
  const double *x = s->x, *a0 = x + 3 * (size_t)v, *a1 = x + 3 * (size_t)u;
  const int *t = bd->bvh.tri + 3 * slot;
  const int pinned = s->pinned && s->pinned[v] && s->pinned[u];
  sim_contact tmp;
  for (int k = 0; k < 3; k++) {
    const int p = t[k], q = t[(k + 1) % 3], lo = p < q ? p : q, hi = p < q ? q : p;
    const int f = bd->bvh.edge_f[3 * slot + k]; /* (lo, hi)'s place, at its first slot */
    if (f == SIM_BVH_EDGE_NONE || f >= SIM_CONTACT_EDGE_SLOTS) continue;
    if (lo <= v || lo == u || hi == u) continue; /* held by lo, or sharing a vertex */
    if (pinned && s->pinned[lo] && s->pinned[hi]) continue;
    if (rest && sim_detect_edge_rest_near(bd, v, u, lo, hi, 1)) continue;
    sim_seg_closest c;
    double dir[3];
    const double *xp = s->x_prev, *d = NULL, *at = x; /* the pose c was found at */
    if (!(sim_seg_closest_inner(a0, a1, x + 3 * (size_t)lo, x + 3 * (size_t)hi, &c) &&
          c.d2 <= s->margin * s->margin)) {
      /* not near: met over the step, taken at x_prev (where inside both; else where they
         pass through each other) */
      if (!(s->sweep && xp && sim_detect_edges_swept(x, xp, v, u, lo, hi, s->margin))) continue;
      at = xp;
      if (!sim_seg_closest_inner(xp + 3 * (size_t)v, xp + 3 * (size_t)u, xp + 3 * (size_t)lo,
                                 xp + 3 * (size_t)hi, &c)) {
        if (!sim_detect_edges_crossed(x, xp, v, u, lo, hi, &c, dir) ||
            sim_detect_crossed_misread(s, bd, v, u, lo, hi, t, &c, dir))
          continue;
        d = dir;
      }
    }
    if ((!d && sim_detect_edge_at_end(at, v, u, lo, hi, &c)) ||
        (rest && sim_detect_edge_rest_near(bd, v, u, lo, hi, 0)) ||
        sim_detect_skipped(s, lo_key, hi_key, SIM_CONTACT_EDGE, sim_detect_edge_source(lo, f, e)))
      continue;
    const int room = out && found < cap;
    if (!room && !s->inside_only) {
      found++;
      continue;
    }
    sim_contact *kc = s->inside_only || !room ? &tmp : &out[found];
    sim_detect_edge_put(s, v, u, e, lo, hi, f, mu, &c, d, kc);
    found += sim_detect_keep(s, kc->gap, kc, room ? out : NULL, found);
  }
  return found;
}

/* Vertex v's edge-edge contacts (above) into out, sorted by source, with sim_detect_vertex's
   filters (inside_only, v's skipped keys [lo, hi)); returns how many. Where they are more than
   cap (out NULL: counted alone), out holds the first cap found, unsorted. Per body one walk of
   its tree for all of v's edges: the leaves that meet their boxes (grown by the margin)
   together, then each triangle's box against each edge's. On folding_towel with edge_edge this
   took detection from 8.3-9.2 to 3.7-3.9 ms a frame (2 threads, the machine of
   docs/results.md) against a walk per edge with a ball round its middle and the triangle's box
   built per edge with fmin and fmax (libm calls on the host); a ball as well as the box, per
   edge, pruned 40 % of the segment tests but cost more than they did (4.8-5.0 against
   4.0-4.1 ms); the triangle's box built once for all of v's edges, 0.3 ms less. */
SIM_HD int sim_detect_edges(const sim_detect_view *s, int v, int lo, int hi, sim_contact *out,
                            int cap) {
  const int bv = s->body_of[v];
  if (bv < 0) return 0;
  int u[SIM_CONTACT_EDGE_SLOTS];
  const int ne = sim_detect_edges_of(&s->body[bv].bvh, v, u);
  const double *x = s->x, *xp = s->sweep ? s->x_prev : NULL;
  int found = 0;
  /* each edge's box at x and, swept, x_prev too, grown by the margin: a triangle with an edge
     within the margin of it (at both poses) has its box there too; all: theirs together */
  const int m = ne < SIM_CONTACT_EDGE_SLOTS ? ne : SIM_CONTACT_EDGE_SLOTS;
  double box[SIM_CONTACT_EDGE_SLOTS][6], all[6];
  for (int k = 0; k < 3; k++) all[k] = INFINITY, all[3 + k] = -INFINITY;
  for (int e = 0; e < m; e++) {
    const int end[2] = {v, u[e]};
    double *b = box[e];
    for (int k = 0; k < 3; k++) b[k] = INFINITY, b[3 + k] = -INFINITY;
    sim_box_grow(x, end, 2, b, b + 3);
    if (xp) sim_box_grow(xp, end, 2, b, b + 3);
    for (int k = 0; k < 3; k++) {
      b[k] -= s->margin, b[3 + k] += s->margin;
      all[k] = b[k] < all[k] ? b[k] : all[k];
      all[3 + k] = b[3 + k] > all[3 + k] ? b[3 + k] : all[3 + k];
    }
  }
  for (int B = 0; m > 0 && B < s->nbodies; B++) {
    if (B == bv ? !s->self_collision : s->no_others) continue;
    const sim_detect_body_view *bd = &s->body[B];
    const int rest = B == bv && bd->rest;
    const double mu = sqrt(s->body[bv].mu * bd->mu);
    sim_bvh_walk w;
    sim_bvh_walk_begin(&bd->bvh, &w);
    for (int leaf; (leaf = sim_bvh_walk_next(&bd->bvh, &w, NULL, 0.0, all)) >= 0;) {
      const sim_bvh_node *nd = &bd->bvh.node[leaf];
      for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
        const int *t = bd->bvh.tri + 3 * slot;
        if (t[0] <= v && t[1] <= v && t[2] <= v) continue; /* its edges held by lower ones */
        double lo3[3], hi3[3];                             /* or its box beyond the margin */
        sim_detect_tri_box(x, xp, t, lo3, hi3);
        if (!sim_bvh_box_meets(lo3, hi3, all)) continue;
        for (int e = 0; e < m; e++)
          if (sim_bvh_box_meets(lo3, hi3, box[e]))
            found = sim_detect_edge_tri(s, bd, rest, v, u[e], e, slot, mu, lo, hi, out, cap, found);
      }
    }
  }
  for (int i = 1; out && found <= cap && i < found; i++) /* by source: insertion, a handful */
    for (int j = i; j > 0 && out[j - 1].source > out[j].source; j--) {
      const sim_contact c = out[j];
      out[j] = out[j - 1], out[j - 1] = c;
    }
  return found;
}

#endif

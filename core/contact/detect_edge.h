/* SPDX-License-Identifier: MIT */
/* Edge-edge contacts (kind SIM_CONTACT_EDGE, contact.h), SIM_HD: the CPU's detect.c and the
   CUDA detector run this same code through sim_detect_vertex (detect_vertex.h).

   A cloth's layers crossing at an angle, or a box's edge across another's, pass through each
   other between their vertices where no vertex comes near a triangle: vertex-triangle contacts
   alone do not see it. With sim_detect_params.edge_edge the bodies' surface edges are tested
   against each other:

   - Ownership: vertex v owns the edges of its body's surface to higher-numbered vertices u,
     each once, in the order of v's ring of triangles (the tree's, bvh.h) and within a
     triangle (v, t[j+1]) before (v, t[j+2]); e is an edge's place in that order.
   - A pair of edges (v, u) and (lo, hi), both lower vertex first, is a contact where the
     segments' closest points lie inside both (seg_distance.h; elsewhere a vertex is the
     nearest and vertex-triangle contacts hold it) within the margin, held by the edge with
     the lower first vertex, v < lo, so each pair once. Its key's source,
     sim_detect_edge_source(lo, f, e), names the pair (f: (lo, hi)'s place among lo's edges).
     The other edge's body B is another (not with no_others) or, with self_collision, v's own.
     A pinned vertex's edges count; a pair of four pinned vertices does not.
   - Candidates: B's triangles in the tree's leaves within |u - v| / 2 + margin of the edge's
     middle, each edge from the first of lo's ring triangles that has it (a triangle that has
     an edge within the margin lies in such a leaf, so both that have it are seen).
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
   There is no sweep: edges that pass each other farther than the margin at both ends of a
   pass are not found (the margin must exceed a step's motion, as for detection without it). */
#ifndef SIM_CONTACT_DETECT_EDGE_H
#define SIM_CONTACT_DETECT_EDGE_H

#include "contact/bvh_query.h"
#include "contact/detect.h"
#include "contact/detect_form.h"
#include "contact/seg_distance.h"

SIM_HD int sim_detect_edge_source(int lo, int f, int e) {
  return (lo * SIM_CONTACT_EDGE_SLOTS + f) * SIM_CONTACT_EDGE_SLOTS + e;
}

/* The edges v owns on the surface of tree b (above): their other vertices into u (at most
   SIM_CONTACT_EDGE_SLOTS; u NULL: none), and how many v owns (more than the slots where it
   owns more). Where `hi` >= 0, stops at the edge (v, hi) instead: its place, and the slot of
   the first ring triangle that has it in *slot; -1 where v does not own it. */
SIM_HD int sim_detect_edges_owned(const sim_bvh_view *b, int v, int *u, int hi, int *slot) {
  const int i = v - b->ring_lo;
  if (!b->ring_ptr || i < 0 || i >= b->ring_n) return hi >= 0 ? -1 : 0;
  int n = 0;
  for (int r = b->ring_ptr[i]; r < b->ring_ptr[i + 1]; r++) {
    const int *t = b->tri + 3 * b->ring[r];
    const int j = t[0] == v ? 0 : t[1] == v ? 1 : 2;
    for (int k = 1; k <= 2; k++) {
      const int w = t[(j + k) % 3];
      if (w == hi && w > v) {
        *slot = b->ring[r];
        return n;
      }
      int seen = w < v; /* the edges before this one: the ring triangles before this one's */
      for (int a = b->ring_ptr[i]; a < r && !seen; a++) {
        const int *ta = b->tri + 3 * b->ring[a];
        seen = ta[0] == w || ta[1] == w || ta[2] == w;
      }
      if (seen) continue;
      if (u && n < SIM_CONTACT_EDGE_SLOTS) u[n] = w;
      n++;
    }
  }
  return hi >= 0 ? -1 : n;
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

/* The contact of edge (v, u), place e, with edge (lo, hi), place f, at the closest points q:
   its normal and gap, oriented, into *k. */
SIM_HD void sim_detect_edge_put(const sim_detect_view *s, int v, int u, int e, int lo, int hi,
                                int f, double mu, const sim_seg_closest *q, sim_contact *k) {
  double n[3], dp[3] = {0.0, 0.0, 0.0};
  const double *xp = s->x_prev;
  if (xp) /* the same points at x_prev */
    for (int i = 0; i < 3; i++)
      dp[i] = (1.0 - q->s) * xp[3 * (size_t)v + i] + q->s * xp[3 * (size_t)u + i] -
              (1.0 - q->t) * xp[3 * (size_t)lo + i] - q->t * xp[3 * (size_t)hi + i];
  const double scale = fmax(fabs(q->pb[0]), fmax(fabs(q->pb[1]), fabs(q->pb[2])));
  double gap = sqrt(q->d2);
  if (q->d2 <= 64 * DBL_EPSILON * DBL_EPSILON * scale * scale) { /* touching */
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

/* Edge (v, u), place e, against body B's edges (above): its contacts into out from out[found]
   (out NULL: counted); returns found plus their number. */
SIM_HD int sim_detect_edge_pairs(const sim_detect_view *s, int v, int u, int e, int B, int lo_key,
                                 int hi_key, sim_contact *out, int found) {
  const sim_detect_body_view *bd = &s->body[B];
  const int self = B == s->body_of[v], rest = self && bd->rest;
  const int pinned = s->pinned && s->pinned[v] && s->pinned[u];
  const double *x = s->x, *a0 = x + 3 * (size_t)v, *a1 = x + 3 * (size_t)u;
  const double d[3] = {a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]};
  const double mid[3] = {a0[0] + 0.5 * d[0], a0[1] + 0.5 * d[1], a0[2] + 0.5 * d[2]};
  const double r = 0.5 * sim_norm3(d) + s->margin, m2 = s->margin * s->margin;
  const double mu = sqrt(s->body[s->body_of[v]].mu * bd->mu);
  sim_contact tmp;
  sim_bvh_walk w;
  sim_bvh_walk_begin(&bd->bvh, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(&bd->bvh, &w, mid, r * r)) >= 0;) {
    const sim_bvh_node *nd = &bd->bvh.node[leaf];
    for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
      const int *t = bd->bvh.tri + 3 * slot;
      for (int k = 0; k < 3; k++) {
        const int p = t[k], q = t[(k + 1) % 3], lo = p < q ? p : q, hi = p < q ? q : p;
        if (lo <= v || lo == u || hi == u) continue; /* held by lo, or sharing a vertex */
        if (pinned && s->pinned[lo] && s->pinned[hi]) continue;
        if (rest && sim_detect_edge_rest_near(bd, v, u, lo, hi, 1)) continue;
        sim_seg_closest c;
        if (!sim_seg_closest_inner(a0, a1, x + 3 * (size_t)lo, x + 3 * (size_t)hi, &c) ||
            !(c.d2 <= m2))
          continue;
        int first = -1;
        const int f = sim_detect_edges_owned(&bd->bvh, lo, 0, hi, &first);
        if (first != slot || f < 0 || f >= SIM_CONTACT_EDGE_SLOTS) continue; /* seen there */
        if ((rest && sim_detect_edge_rest_near(bd, v, u, lo, hi, 0)) ||
            sim_detect_skipped(s, lo_key, hi_key, SIM_CONTACT_EDGE,
                               sim_detect_edge_source(lo, f, e)))
          continue;
        if (!out && !s->inside_only) {
          found++;
          continue;
        }
        sim_contact *kc = s->inside_only ? &tmp : &out[found];
        sim_detect_edge_put(s, v, u, e, lo, hi, f, mu, &c, kc);
        found += sim_detect_keep(s, kc->gap, kc, out, found);
      }
    }
  }
  return found;
}

/* Vertex v's edge-edge contacts (above) into out (NULL: counted), sorted by source, with
   sim_detect_vertex's filters (inside_only, v's skipped keys [lo, hi)); returns how many. */
SIM_HD int sim_detect_edges(const sim_detect_view *s, int v, int lo, int hi, sim_contact *out) {
  const int bv = s->body_of[v];
  if (bv < 0) return 0;
  int u[SIM_CONTACT_EDGE_SLOTS];
  const int ne = sim_detect_edges_owned(&s->body[bv].bvh, v, u, -1, 0);
  int found = 0;
  for (int e = 0; e < ne && e < SIM_CONTACT_EDGE_SLOTS; e++)
    for (int B = 0; B < s->nbodies; B++)
      if (B == bv ? s->self_collision : !s->no_others)
        found = sim_detect_edge_pairs(s, v, u[e], e, B, lo, hi, out, found);
  for (int i = 1; out && i < found; i++) /* by source: insertion, a handful */
    for (int j = i; j > 0 && out[j - 1].source > out[j].source; j--) {
      const sim_contact c = out[j];
      out[j] = out[j - 1], out[j - 1] = c;
    }
  return found;
}

#endif

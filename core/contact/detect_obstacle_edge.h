/* SPDX-License-Identifier: MIT */
/* Edges against analytic obstacles (kind SIM_CONTACT_OBSTACLE_EDGE, contact.h), SIM_HD: the
   CPU's detect.c and the CUDA detector run this same code through sim_detect_vertex
   (detect_vertex.h).

   A vertex contact holds a body's vertices out of an obstacle, not the edges between them: an
   edge of length e whose two ends rest on a cylinder or sphere of radius R cuts a chord
   e^2 / (8 R) deep into it (squeezing_ball's 31.6 cm edges, 12 mm into its 1 m rollers:
   scripts/obstacle_depths.py, docs/results.md). With sim_detect_params.obstacle_edges each of
   the bodies' surface edges is tested against each analytic obstacle:

   - Ownership: vertex v tests the edges it owns (bvh_query.h sim_bvh_edges_owned, as edge
     pairs do: detect_edge.h), e an edge's place among them; a vertex of no body has none. Not
     an edge of two pinned vertices; an obstacle tests the edges of the bodies it touches.
   - The edge's deepest point: phi along the segment a + s (b - a), s in [0, 1], is convex for
     every obstacle but the torus (the distance to a convex set is). Where its slope,
     n . (b - a), is < 0 at a and > 0 at b, its minimum lies inside the edge, and the slope's
     zero is found in that bracket by safeguarded false position (sim_detect_edge_deepest: s to
     2^-40, in 6-10 of the obstacle's queries where 40 halvings of the bracket took 40;
     deterministic, the same steps on both backends); on the torus that finds a local minimum.
     Elsewhere the minimum is at an end, which the vertex's own contact holds.
   - Two contacts where phi there is within the obstacle's margin and the ends' gaps exceed it
     by more than SIM_DETECT_EDGE_DIP margins (both: a row there is then not almost the sum of
     its ends'): at the points a reach before and after it along the edge (side 0 and 1), the
     reach the larger of the margin and the ends' moves from x_prev, at most a quarter of the
     edge; not one beyond an end (the vertex holds it), nor one outside the margin. p, n and gap
     are the obstacle's at that point, u its velocity there. One row at the deepest point holds
     that point, but the edge can turn about it, and its deepest point then lies elsewhere: a
     coarse ball resting on a cylinder rocked from one side of it to the other step after step,
     its edges 1.1 mm in, against 2.9 mm with no edge rows. With a row either side it cannot
     turn without pressing one in, and between them dips at most reach^2 / (2 R) on a radius R
     (docs/results.md). Edges whose ends' distances show they cannot come within the margin,
     (phi_a + phi_b - |b - a|) / 2 > margin (phi is 1-Lipschitz), are not searched, and where
     already phi_a - |b - a| > margin, b is not queried.
   - Passes: at_start queries both ends where they are relative to the obstacle at the step's
     start (detect_vertex.h sim_detect_query_at), the margin widened by the larger of their
     moves. Not swept, nor taken again at x_prev (face_prev): an edge whose ends are held
     cannot pass through an obstacle thicker than its chord within a step.
   - Order: the vertex's obstacle-edge contacts by source (obstacle, edge, side:
     sim_detect_obstacle_edge_source), after all its other contacts. */
#ifndef SIM_CONTACT_DETECT_OBSTACLE_EDGE_H
#define SIM_CONTACT_DETECT_OBSTACLE_EDGE_H

#include "contact/detect.h"
#include "contact/detect_edge.h"
#include "contact/detect_form.h"

#define SIM_DETECT_EDGE_HALVINGS 40 /* the bracket's width at the end: 2^-40 */
#define SIM_DETECT_EDGE_WIDTH 0x1p-40
#define SIM_DETECT_EDGE_DIP 1e-2 /* margins */

/* An OBSTACLE_EDGE contact's source: obstacle o, the edge's place e among those its vertex v
   owns, the side of the deepest point (0 before, 1 after); and the obstacle of a source. */
SIM_HD int sim_detect_obstacle_edge_source(int o, int e, int side) {
  return 2 * (o * SIM_CONTACT_EDGE_SLOTS + e) + side;
}
SIM_HD int sim_detect_obstacle_edge_obstacle(int source) {
  return source / (2 * SIM_CONTACT_EDGE_SLOTS);
}

/* phi's slope along segment a + s d at s: n . d, n obstacle o's normal there. */
SIM_HD double sim_detect_edge_slope(const sim_obstacle *o, const double a[3], const double d[3],
                                    double s) {
  const double p[3] = {a[0] + s * d[0], a[1] + s * d[1], a[2] + s * d[2]};
  double c[3], n[3];
  sim_obstacle_query(o, p, c, n);
  return sim_dot3(n, d);
}

/* The parameter s of segment a + s d's point deepest in obstacle o, where phi's slope is < 0
   at a (normal na) and > 0 at the other end (nb); -1 where it is not (the minimum at an end).
   The slope's zero is kept bracketed in [lo, hi] and found by false position with the Illinois
   rule (an end kept twice in a row has its slope halved, so that both ends move), each trial
   at least half SIM_DETECT_EDGE_WIDTH inside the bracket (so that a trial beside a zero found
   to rounding closes the bracket on it), and at every second step a bisection instead where
   the two steps before did not quarter the bracket (so it halves at least every second step),
   until the bracket is at most SIM_DETECT_EDGE_WIDTH wide or a trial's slope is 0 (a least
   point: phi is convex). The slope's sign decides as bisection's did; the bracket's middle or
   that point is returned. Against random segments whose least point is outside the obstacle
   (a contact's case) a search took 5.7 of the obstacle's queries on a sphere, 6.6 on a
   capsule, 9.6 on a box and 10.2 on a finite cylinder (at most 33), where 40 halvings took 40;
   through a box's or a cylinder's inside, where the slope steps at the medial planes, 23-27 (at
   most 79): SIMCTL_BENCH_EDGE_SEARCH=1 tests/test_detect_obstacle_edge. */
SIM_HD double sim_detect_edge_deepest(const sim_obstacle *o, const double a[3], const double d[3],
                                      const double na[3], const double nb[3]) {
  double glo = sim_dot3(na, d), ghi = sim_dot3(nb, d);
  if (!(glo < 0.0 && ghi > 0.0)) return -1.0;
  const double tol = 0.5 * SIM_DETECT_EDGE_WIDTH;
  /* the bracket's widths 1 and 2 steps before (2 at first: the first step need only halve it) */
  double lo = 0.0, hi = 1.0, w1 = 2.0, w2 = 2.0;
  int kept = 0; /* the end the step before kept: -1 hi (lo moved), +1 lo, 0 none */
  for (int i = 0; i < 2 * SIM_DETECT_EDGE_HALVINGS && hi - lo > SIM_DETECT_EDGE_WIDTH; i++) {
    const double w = hi - lo;
    double s = 0.5 * (lo + hi);
    if (!(i % 2 == 1 && w > 0.25 * w2))
      s = fmin(fmax(lo - glo * (w / (ghi - glo)), lo + tol), hi - tol);
    if (!(s > lo && s < hi)) s = 0.5 * (lo + hi);
    w2 = w1, w1 = w;
    const double g = sim_detect_edge_slope(o, a, d, s);
    if (g == 0.0) return s;
    if (g < 0.0) {
      lo = s, glo = g;
      if (kept < 0) ghi *= 0.5;
      kept = -1;
    } else {
      hi = s, ghi = g;
      if (kept > 0) glo *= 0.5;
      kept = 1;
    }
  }
  return 0.5 * (lo + hi);
}

/* An edge's end against an obstacle (sim_detect_query_at): where it is and the pass's margin
   there (sim_detect_edge_end_place), then its distance and normal (sim_detect_edge_end_at). */
typedef struct sim_detect_edge_end {
  double q[3], margin, phi, n[3];
} sim_detect_edge_end;

SIM_HD void sim_detect_edge_end_place(const sim_detect_view *s, const sim_detect_obstacle *ob,
                                      double own, int v, sim_detect_edge_end *e) {
  double y[3];
  const double *q = sim_detect_query_at(s, &ob->step, own, s->x + 3 * (size_t)v, y, &e->margin);
  for (int k = 0; k < 3; k++) e->q[k] = q[k];
}

SIM_HD void sim_detect_edge_end_at(const sim_detect_view *s, const sim_detect_obstacle *ob,
                                   double own, int v, sim_detect_edge_end *e) {
  double c[3];
  sim_detect_edge_end_place(s, ob, own, v, e);
  e->phi = sim_obstacle_query(&ob->shape, e->q, c, e->n);
}

/* How far vertex v moved from x_prev (0 without). */
SIM_HD double sim_detect_moved(const sim_detect_view *s, int v) {
  if (!s->x_prev) return 0.0;
  const double *x1 = s->x + 3 * (size_t)v, *x0 = s->x_prev + 3 * (size_t)v;
  const double m[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
  return sim_norm3(m);
}

/* Where edge (v, u) dips into obstacle ob (margin own), its end v queried as a (moved `moved`
   from x_prev): its vector into d, the pass's margin for it into *mo, and its points'
   parameters into t[0], t[1] (either outside (0, 1) where it has none on that side); 0 where
   it has no contact. */
SIM_HD int sim_detect_obstacle_edge_dips(const sim_detect_view *s, int u,
                                         const sim_detect_obstacle *ob, double own,
                                         const sim_detect_edge_end *a, double moved, double d[3],
                                         double *mo, double t[2]) {
  sim_detect_edge_end b;
  double c[3];
  sim_detect_edge_end_place(s, ob, own, u, &b);
  *mo = fmax(a->margin, b.margin);
  for (int k = 0; k < 3; k++) d[k] = b.q[k] - a->q[k];
  const double len = sim_norm3(d);
  if (!(a->phi - len <= *mo)) return 0; /* the end u not queried: phi_u >= phi_v - len */
  b.phi = sim_obstacle_query(&ob->shape, b.q, c, b.n);
  if (!(0.5 * (a->phi + b.phi - len) <= *mo)) return 0;
  const double deep = sim_detect_edge_deepest(&ob->shape, a->q, d, a->n, b.n);
  if (!(deep > 0.0)) return 0;
  const double q[3] = {a->q[0] + deep * d[0], a->q[1] + deep * d[1], a->q[2] + deep * d[2]};
  const double phi = sim_obstacle_phi(&ob->shape, q), dip = SIM_DETECT_EDGE_DIP * own;
  if (!(phi <= *mo) || !(a->phi - phi > dip && b.phi - phi > dip)) return 0;
  /* the points' distance from the deepest: the margin, or the ends' moves where larger */
  const double reach = fmax(own, fmax(moved, sim_detect_moved(s, u)));
  const double half = fmin(0.25, reach / len);
  t[0] = deep - half, t[1] = deep + half;
  return 1;
}

/* Vertex v's edges' contacts with the analytic obstacles (above; v's skipped keys [lo, hi))
   into out (NULL: counted), at most 2 s->nobs SIM_CONTACT_EDGE_SLOTS; returns how many. */
SIM_HD int sim_detect_obstacle_edges(const sim_detect_view *s, int v, int lo, int hi,
                                     sim_contact *out) {
  const int bv = s->body_of[v];
  if (bv < 0 || s->nobs == 0) return 0;
  int u[SIM_CONTACT_EDGE_SLOTS];
  const int ne = sim_detect_edges_of(&s->body[bv].bvh, v, u);
  const int m = ne < SIM_CONTACT_EDGE_SLOTS ? ne : SIM_CONTACT_EDGE_SLOTS;
  const int fixed = s->pinned && s->pinned[v];
  const int form = out || s->inside_only; /* the contacts formed, not only counted */
  const double moved = m > 0 ? sim_detect_moved(s, v) : 0.0;
  sim_contact tmp;
  int found = 0;
  for (int o = 0; m > 0 && o < s->nobs; o++) {
    const sim_detect_obstacle *ob = &s->obs[o];
    if (!sim_detect_touches(ob->bodies, bv)) continue;
    const double own = sim_detect_margin(ob->margin, s->margin);
    sim_detect_edge_end a; /* v's end, the same for all its edges */
    sim_detect_edge_end_at(s, ob, own, v, &a);
    for (int e = 0; e < m; e++) {
      double d[3], mo, t[2];
      if ((fixed && s->pinned[u[e]]) ||
          !sim_detect_obstacle_edge_dips(s, u[e], ob, own, &a, moved, d, &mo, t))
        continue;
      for (int side = 0; side < 2; side++) {
        const int source = sim_detect_obstacle_edge_source(o, e, side);
        if (!(t[side] > 0.0 && t[side] < 1.0) ||
            sim_detect_skipped(s, lo, hi, SIM_CONTACT_OBSTACLE_EDGE, source))
          continue;
        const double q[3] = {a.q[0] + t[side] * d[0], a.q[1] + t[side] * d[1],
                             a.q[2] + t[side] * d[2]};
        double c[3], n[3], vel[3];
        const double phi = sim_obstacle_query(&ob->shape, q, c, n);
        if (!(phi <= mo)) continue;
        if (!form) {
          found++;
          continue;
        }
        sim_contact *k = out && !s->inside_only ? &out[found] : &tmp;
        sim_obstacle_velocity(&ob->shape, c, vel);
        sim_detect_put(k, SIM_CONTACT_OBSTACLE_EDGE, v, source, n, c, phi, ob->mu, vel);
        k->tri[0] = u[e], k->w[0] = t[side];
        found += sim_detect_keep(s, phi, k, out, found);
      }
    }
  }
  return found;
}

#endif

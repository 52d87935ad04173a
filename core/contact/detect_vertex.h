/* SPDX-License-Identifier: MIT */
/* Collision detection of one vertex (detect.h states what a contact is), SIM_HD: the CPU's
   detect.c and the CUDA detector (gpu/detect_cuda.cu) run this same code on a sim_detect_view
   whose arrays live on their side, so both find the same contacts with the same arithmetic.
   sim_detect_vertex writes the vertex's contacts in the order (kind, source) and returns how
   many; out == NULL counts them (without orienting them, except with inside_only, which needs
   the gap). As a point and its edges against obstacles at most sim_detect_most, its edges'
   against edges any number. With inside_only a candidate
   is formed in a local contact and copied to out only when kept, so out never holds more than the
   count. */
#ifndef SIM_CONTACT_DETECT_VERTEX_H
#define SIM_CONTACT_DETECT_VERTEX_H
#include <float.h>
#include <limits.h>

#include "contact/bvh_query.h"
#include "contact/detect.h"
#include "contact/detect_body.h"
#include "contact/detect_crease.h"
#include "contact/detect_edge.h"
#include "contact/detect_form.h"
#include "contact/detect_obstacle_edge.h"

/* d is rounding noise: c = sum w_i x_i is only accurate to a few ulps of |c|. */
SIM_HD int sim_detect_touching(const sim_tri_closest *q) {
  const double scale = fmax(fabs(q->c[0]), fmax(fabs(q->c[1]), fabs(q->c[2])));
  return q->d2 <= 64 * DBL_EPSILON * DBL_EPSILON * scale * scale;
}

/* Closed surface: outward normal n from the surface towards x and the signed gap. In the face
   region x - c is parallel to the face normal, so n = n_face (exact), gap = side d; at an edge
   or a vertex n = +-(x - c)/d, the sign from the pseudo-normal. tri: the input triangles. */
SIM_HD void sim_detect_orient_closed(const sim_bvh_view *b, const double *X, const int *tri,
                                     const double x[3], const sim_bvh_hit *h, double n[3],
                                     double *gap) {
  const double d = sqrt(h->q.d2);
  const int on = sim_detect_touching(&h->q);
  if (h->q.feature == SIM_TRI_FACE) {
    for (int k = 0; k < 3; k++) n[k] = h->q.n[k]; /* outward, inside or not */
    *gap = on ? 0.0 : (h->q.side < 0 ? -d : d);
    return;
  }
  const int *t = tri + 3 * h->tri, f = h->q.feature;
  int ga, gb = -1;
  if (f >= SIM_TRI_VERT0) {
    ga = t[f - SIM_TRI_VERT0];
  } else {
    ga = t[f - SIM_TRI_EDGE0];
    gb = t[(f - SIM_TRI_EDGE0 + 1) % 3];
  }
  double N[3] = {0.0, 0.0, 0.0};
  const double scale = fmax(fabs(h->q.c[0]), fmax(fabs(h->q.c[1]), fabs(h->q.c[2])));
  sim_bvh_view_pseudo_normal(b, X, x, d + 1e-10 * (d + scale) + 1e-300, ga, gb, N);
  const double diff[3] = {x[0] - h->q.c[0], x[1] - h->q.c[1], x[2] - h->q.c[2]};
  if (!on) {
    const double s = sim_dot3(diff, N) < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) n[k] = s * diff[k] / d;
    *gap = s * d;
    return;
  }
  const double l = sim_norm3(N);
  for (int k = 0; k < 3; k++) n[k] = l > 0 ? N[k] / l : (k == 0);
  *gap = 0.0;
}

/* Open surface: unsigned, n = (x - c)/d (side n_face in the face region, exact); touching,
   the face normal towards x_prev's side (the front one without x_prev). */
SIM_HD void sim_detect_orient_open(const double x[3], const double *xprev, const sim_bvh_hit *h,
                                   double n[3], double *gap) {
  const int on = sim_detect_touching(&h->q), deg = !h->q.n[0] && !h->q.n[1] && !h->q.n[2];
  *gap = on ? 0.0 : sqrt(h->q.d2);
  if ((!on && h->q.feature != SIM_TRI_FACE) || deg) {
    sim_tri_contact_normal(x, &h->q, n);
    return;
  }
  double s = h->q.side < 0 ? -1.0 : 1.0;
  if (on) {
    s = 1.0;
    if (xprev) {
      const double dp[3] = {xprev[0] - h->q.c[0], xprev[1] - h->q.c[1], xprev[2] - h->q.c[2]};
      if (sim_dot3(dp, h->q.n) < 0) s = -1.0;
    }
  }
  for (int k = 0; k < 3; k++) n[k] = s * h->q.n[k];
}

/* That entry's normal, turned as a mesh turns over this step (its step map, a rotation; into
   nm; NULL: none), or NULL; *behind its flag. */
SIM_HD const double *sim_detect_side_of(const sim_detect_view *s, int v, int kind, int m,
                                        const sim_detect_step *step, double nm[3],
                                        int *behind) {
  const sim_detect_side *e = sim_detect_side_find(s, v, kind, m);
  if (!e) return 0;
  const double *n = e->n;
  *behind = e->behind;
  if (!step || !step->on) return n;
  for (int i = 0; i < 3; i++)
    nm[i] = step->Q[3 * i] * n[0] + step->Q[3 * i + 1] * n[1] + step->Q[3 * i + 2] * n[2];
  return nm;
}

/* Whether the segment from a to e meets a triangle of the mesh of tree b (vertices mx): passes
   through one, or touches one, to tol = 1e-9 (1 + max |a_i|, |e_i|) (a vertex resting on a
   face, in its plane to rounding at both ends, meets it). One that passes beside the mesh,
   round a boundary edge, does not. from (NULL: not asked): the first such triangle's unit
   normal turned to a's side of its plane, the side the segment came from, or 0 where a lies in
   that plane to tol (a vertex resting on the face: a does not tell its side). */
SIM_HD int sim_detect_mesh_crossed(const sim_bvh_view *b, const double *mx, const double a[3],
                                   const double e[3], double from[3]) {
  const double d[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]};
  double scale = 1.0;
  for (int k = 0; k < 3; k++) scale = fmax(scale, fmax(fabs(a[k]), fabs(e[k])));
  const double tol = 1e-9 * scale, r = 0.5 * sim_norm3(d) + tol;
  const double mid[3] = {a[0] + 0.5 * d[0], a[1] + 0.5 * d[1], a[2] + 0.5 * d[2]};
  sim_bvh_walk w;
  sim_bvh_walk_begin(b, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(b, &w, mid, r * r, NULL)) >= 0;) {
    const sim_bvh_node *nd = &b->node[leaf];
    for (int slot = nd->first; slot < nd->first + nd->count; slot++) {
      const int *t = b->tri + 3 * slot;
      const double *x0 = mx + 3 * t[0], *x1 = mx + 3 * t[1], *x2 = mx + 3 * t[2];
      const double e1[3] = {x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]};
      const double e2[3] = {x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]};
      double nn[3];
      sim_cross3(e1, e2, nn);
      const double l = sim_norm3(nn);
      if (!(l > 0)) continue;
      const double da = ((a[0] - x0[0]) * nn[0] + (a[1] - x0[1]) * nn[1] +
                         (a[2] - x0[2]) * nn[2]) / l,
                   de = ((e[0] - x0[0]) * nn[0] + (e[1] - x0[1]) * nn[1] +
                         (e[2] - x0[2]) * nn[2]) / l;
      if ((da > tol && de > tol) || (da < -tol && de < -tol)) continue; /* one side */
      sim_tri_closest q;
      int met;
      if (fabs(da - de) > tol) { /* where it passes the plane */
        const double u = fmin(1.0, fmax(0.0, da / (da - de)));
        const double p[3] = {a[0] + u * d[0], a[1] + u * d[1], a[2] + u * d[2]};
        met = sim_tri_closest_point(p, x0, x1, x2, &q) <= tol * tol;
      } else { /* in its plane */
        met = sim_tri_closest_point(a, x0, x1, x2, &q) <= tol * tol ||
              sim_tri_closest_point(e, x0, x1, x2, &q) <= tol * tol;
      }
      if (!met) continue;
      if (from) {
        const double side = da > tol ? 1.0 / l : da < -tol ? -1.0 / l : 0.0;
        for (int k = 0; k < 3; k++) from[k] = side * nn[k];
      }
      return 1;
    }
  }
  return 0;
}

/* Whether xs is behind the plane through p with normal n by more than `by`. */
SIM_HD int sim_detect_behind_by(const double *xs, const double p[3], const double n[3],
                                double by) {
  return (xs[0] - p[0]) * n[0] + (xs[1] - p[1]) * n[1] + (xs[2] - p[2]) * n[2] < -by;
}

/* face_prev (detect.h): n and the gap turned towards x_prev's side of the contact point p. */
SIM_HD void sim_detect_face_prev(const double xprev[3], const double p[3], double n[3],
                                 double *gap) {
  if (sim_detect_behind_by(xprev, p, n, 0.0)) sim_detect_turn(n, gap);
}

/* face_prev: where x_prev is relative to an obstacle with step map m (ys: room for it), x_prev
   carried by the map (the step's start against the obstacle where it ends), else x_prev; and
   whether that place is behind the plane of a contact found at p with normal n by more than
   the margin. The passes with face_prev find only vertices without a contact at q_t, farther
   than the margin then (the prediction pass skips the q_t pass's, re-detection the step's), so
   one that crossed a thin part started more than the margin behind the far side's plane; one
   nearer that plane has not crossed it. Behind by any amount, vertices of sharp_corner's cloth
   falling past the cube's edges were taken again at q_t, and the CPU's and the device's steps
   then differed by 1e-5 of the scene's size where they agree to 1e-10 otherwise. */
SIM_HD const double *sim_detect_start_of(const sim_detect_step *m, const double *xprev,
                                         double ys[3]) {
  if (!m->on) return xprev;
  sim_detect_step_apply(m, xprev, ys);
  return ys;
}

/* The distance from p to analytic obstacle o (its SDF), or with o NULL to the mesh of tree b
   and vertices mx; INFINITY where the mesh has no triangle within bound. */
SIM_HD double sim_detect_dist(const sim_obstacle *o, const sim_bvh_view *b, const double *mx,
                              const double p[3], double bound) {
  if (o) return sim_obstacle_phi(o, p);
  sim_bvh_hit h;
  return sim_bvh_view_nearest(b, mx, p, bound, NULL, &h) ? sqrt(h.q.d2) : INFINITY;
}

/* sweep (detect.h): whether the segment from a to e comes within margin of obstacle o (or the
   mesh: sim_detect_dist). Not where the ball round its middle that holds it is farther; else
   by conservative advancement: from a point whose distance is dist > margin, the segment
   cannot come nearer than margin / 2 within dist - margin / 2, so each step is that long (at
   least margin / 2). 1 as well where SIM_DETECT_SWEEP_STEPS (detect.h) steps did not settle
   it (a segment grazing the obstacle: a contact whose row does not hold the vertex back). */
SIM_HD int sim_detect_swept(const sim_obstacle *o, const sim_bvh_view *b, const double *mx,
                            const double a[3], const double e[3], double margin) {
  const double d[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]};
  const double len = sim_norm3(d);
  const double mid[3] = {a[0] + 0.5 * d[0], a[1] + 0.5 * d[1], a[2] + 0.5 * d[2]};
  if (!(sim_detect_dist(o, b, mx, mid, 0.5 * len + margin) <= 0.5 * len + margin)) return 0;
  double t = 0.0;
  for (int i = 0; i < SIM_DETECT_SWEEP_STEPS; i++) {
    const double p[3] = {a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]};
    const double rest = (1.0 - t) * len + margin, dist = sim_detect_dist(o, b, mx, p, rest);
    if (dist <= margin) return 1;
    if (!(dist <= rest)) return 0; /* nothing within the rest of the segment (or NaN) */
    t += (dist - 0.5 * margin) / len;
    if (t > 1.0) return 0;
  }
  return 1;
}

/* An open body's (a cloth's) contact of vertex v with body B, found unsigned at x on triangle
   t3 (n, gap), turned to the side v came from (detect_body.h). */
SIM_HD void sim_detect_open_body_turn(const sim_detect_view *s, int v, int B, const int *t3,
                                      const double xprev[3], double n[3], double *gap) {
  const sim_detect_side *e = sim_detect_side_find(s, v, SIM_CONTACT_BODY, B);
  int near = 0; /* the same part of the cloth: t3 shares a vertex with the remembered one */
  for (int i = 0; e && i < 3; i++)
    for (int j = 0; j < 3; j++) near |= t3[i] == e->tri[j];
  sim_detect_side_turn(s, e, near, sim_detect_body_side_near(s, t3, xprev, n), n, gap);
}

/* Whether the three vertices of triangle t3 (global indices) are pinned. */
SIM_HD int sim_detect_tri_pinned(const sim_detect_view *s, const int *t3) {
  return s->pinned && s->pinned[t3[0]] && s->pinned[t3[1]] && s->pinned[t3[2]];
}

/* Vertex v's contact with body B on the triangle of hit h, into *k; h was found at x, or at
   x_prev where swept (detect_body.h). Returns the gap as found (sim_detect_keep's); *retaken
   where a face_prev pass took it again at x_prev (a closed body's far side). */
SIM_HD double sim_detect_body_form(const sim_detect_view *s, int v, int B, int swept,
                                   const sim_bvh_skip *skip, sim_bvh_hit *h, sim_contact *k,
                                   int *retaken) {
  const sim_detect_body_view *bd = &s->body[B];
  const double *x = s->x + 3 * (size_t)v, *xprev = s->x_prev ? s->x_prev + 3 * (size_t)v : 0;
  double n[3], gap, found_gap;
  *retaken = 0;
  if (bd->open) { /* a cloth: unsigned, turned to the side v came from (detect_body.h) */
    sim_detect_orient_open(swept ? xprev : x, NULL, h, n, &gap);
    if (xprev && !swept) sim_detect_open_body_turn(s, v, B, bd->tri + 3 * h->tri, xprev, n, &gap);
    found_gap = gap;
  } else {
    sim_detect_orient_closed(&bd->bvh, swept ? s->x_prev : s->x, bd->tri, swept ? xprev : x, h, n,
                             &gap);
    found_gap = gap;
    if (s->face_prev && xprev && !swept &&
        sim_detect_body_behind(s, bd->tri + 3 * h->tri, h->q.w, xprev, n) &&
        sim_bvh_view_nearest(&bd->bvh, s->x_prev, xprev, INFINITY, skip, h)) {
      sim_detect_orient_closed(&bd->bvh, s->x_prev, bd->tri, xprev, h, n, &gap);
      *retaken = 1;
    }
  }
  const int bv = s->body_of[v];
  const double mu = bv >= 0 ? sqrt(s->body[bv].mu * bd->mu) : bd->mu;
  sim_detect_put(k, SIM_CONTACT_BODY, v, B, n, h->q.c, gap, mu, 0);
  for (int i = 0; i < 3; i++) k->tri[i] = bd->tri[3 * h->tri + i], k->w[i] = h->q.w[i];
  return found_gap;
}

/* What the folds' test (detect_crease.h) reads of a vertex's first contact with a body: its
   triangle (input index; SIM_DETECT_FIRST_NONE: none at x, within the margin and not taken
   again at x_prev; SIM_DETECT_FIRST_UNKNOWN: not looked for), normal, point and mu.
   sim_detect_vertex_point keeps those of the first SIM_DETECT_FIRSTS bodies, and finds the
   others' again. */
#define SIM_DETECT_FIRSTS 4
#define SIM_DETECT_FIRST_NONE -1
#define SIM_DETECT_FIRST_UNKNOWN -2
typedef struct sim_detect_first {
  int a;
  double n[3], p[3], mu;
} sim_detect_first;

SIM_HD void sim_detect_first_of(sim_detect_first *f, int a, const sim_contact *k) {
  f->a = a, f->mu = k->mu;
  for (int i = 0; i < 3; i++) f->n[i] = k->n[i], f->p[i] = k->p[i];
}

/* creases (detect.h): whether vertex v, whose first contact with body B is f, has a second one
   on the other face of a fold (detect_crease.h): its hit, normal and gap into *hc, n, *gap.
   Not on a triangle whose vertices are all pinned where v is pinned (sim_detect_vertex_point). */
SIM_HD int sim_detect_crease_of(const sim_detect_view *s, int v, int B, const sim_bvh_skip *skip,
                                const sim_detect_first *f, sim_bvh_hit *hc, double n[3],
                                double *gap) {
  const sim_detect_body_view *bd = &s->body[B];
  const sim_detect_surface sf = {&bd->bvh, s->x, bd->tri, bd->open, s->margin, 1};
  if (!sim_detect_crease_find(&sf, s->x + 3 * (size_t)v, f->a, f->n, f->p, skip, NULL, hc, n, gap))
    return 0;
  return !(s->pinned && s->pinned[v] && sim_detect_tri_pinned(s, bd->tri + 3 * hc->tri));
}

/* Mesh obstacle me's rigid velocity at p: vel + omega x (p - center). */
SIM_HD void sim_detect_mesh_velocity(const sim_detect_mesh_view *me, const double p[3],
                                     double u[3]) {
  const double r[3] = {p[0] - me->center[0], p[1] - me->center[1], p[2] - me->center[2]};
  sim_cross3(me->omega, r, u);
  for (int i = 0; i < 3; i++) u[i] += me->vel[i];
}

/* Vertex v's contact with mesh obstacle m (sim_detect_vertex_point: v's body touches it, its
   key is not skipped): 0 where it has none, else 1, the contact formed into *k where k != NULL
   (its gap as found into *found_gap) and, where f != NULL (with k), what the folds' test reads
   of it into *f (SIM_DETECT_FIRST_NONE where the sweep found it or it was taken again at
   x_prev). */
SIM_HD int sim_detect_mesh_contact(const sim_detect_view *s, int v, int m, sim_contact *k,
                                   double *found_gap, sim_detect_first *f) {
  const sim_detect_mesh_view *me = &s->mesh[m];
  const double *x = s->x + 3 * (size_t)v, *xprev = s->x_prev ? s->x_prev + 3 * (size_t)v : 0;
  double y[3], ys[3], mo, n[3], u[3], gap; /* the query point and margin (sim_detect_query_at) */
  sim_bvh_hit h;
  if (f) f->a = SIM_DETECT_FIRST_NONE;
  const double own = sim_detect_margin(me->margin, s->margin);
  const double *q = sim_detect_query_at(s, &me->step, own, x, y, &mo);
  const double *xs = xprev ? sim_detect_start_of(&me->step, xprev, ys) : 0;
  const int swept = !sim_bvh_view_nearest(&me->bvh, me->x, q, mo, NULL, &h); /* as obstacles' */
  if (swept && !(s->sweep && xs && sim_detect_swept(0, &me->bvh, me->x, xs, q, mo))) return 0;
  if (!k) return 1;
  const int a = h.tri;
  int retaken = swept;
  if (swept) /* the sweep met a triangle: the nearest at x_prev exists */
    sim_bvh_view_nearest(&me->bvh, me->x, xs, INFINITY, NULL, &h), q = xs;
  if (me->closed)
    sim_detect_orient_closed(&me->bvh, me->x, me->tri, q, &h, n, &gap);
  else /* queried where it was (at_start, swept): x_prev there too */
    sim_detect_orient_open(q, q != x ? xs : xprev, &h, n, &gap);
  /* a blade's side where the vertex crossed it: remembered, else x_prev's (detect.h sides) */
  double nm[3];
  int behind = 0;
  const double *side =
      me->closed ? 0 : sim_detect_side_of(s, v, SIM_CONTACT_MESH, m, &me->step, nm, &behind);
  *found_gap = gap; /* a blade's turned to x_prev's side: crossed it, inside_only */
  if (side) {
    /* crossed: the side it came from, that of the triangle it went through, where x_prev is
       off that triangle's plane; the side remembered where it lies in it (it rested on the
       face). A remembered edge contact's normal lies almost in the blade's plane, and its
       small tilt took a vertex that went through the face as on the side it reached */
    double from[3] = {0.0, 0.0, 0.0};
    const int turn = behind ? sim_dot3(n, side) < 0
                            : xs && sim_detect_mesh_crossed(&me->bvh, me->x, xs, q, from) &&
                                  sim_dot3(n, sim_dot3(from, from) > 0 ? from : side) < 0;
    if (turn) sim_detect_turn(n, &gap), *found_gap = gap;
  } else if (s->face_prev && xs) {
    if (!me->closed) {
      sim_detect_face_prev(xs, h.q.c, n, &gap), *found_gap = gap;
    } else if (sim_detect_behind_by(xs, h.q.c, n, own) && /* as for analytic obstacles */
               sim_bvh_view_nearest(&me->bvh, me->x, xs, INFINITY, NULL, &h)) {
      sim_detect_orient_closed(&me->bvh, me->x, me->tri, xs, &h, n, &gap);
      retaken = 1;
    }
  } else if (s->at_start && !me->closed && xprev && !me->step.on && /* x_prev: a step back */
             sim_detect_behind_by(xprev, h.q.c, n, 0.0) &&
             sim_detect_mesh_crossed(&me->bvh, me->x, xprev, x, 0)) {
    sim_detect_turn(n, &gap), *found_gap = gap;
  }
  sim_detect_mesh_velocity(me, h.q.c, u);
  sim_detect_put(k, SIM_CONTACT_MESH, v, m, n, h.q.c, gap, me->mu, u);
  if (f && !retaken) sim_detect_first_of(f, a, k);
  return 1;
}

/* Vertex v's contacts as a point: against obstacles, mesh obstacles and the bodies' triangles
   (v's skipped keys [lo, hi)). A pinned vertex (detect.h) against the bodies' alone, a
   triangle of pinned vertices not: its row holds the other body's vertices (those of a
   crossed ribbon sliding over its pinned end went through them), and neither side of either
   kind can move. */
SIM_HD int sim_detect_vertex_point(const sim_detect_view *s, int v, int lo, int hi,
                                   sim_contact *out) {
  const double *x = s->x + 3 * (size_t)v, *xprev = s->x_prev ? s->x_prev + 3 * (size_t)v : 0;
  const double margin = s->margin;
  const int fixed = s->pinned && s->pinned[v];
  double y[3], ys[3], mo; /* an obstacle's query point and margin (sim_detect_query_at), and
                             x_prev's place relative to it (sim_detect_start_of) */
  const int bv = s->body_of[v];
  const int form = out || s->inside_only; /* the candidates are formed, not only counted */
  double c[3], n[3], u[3];
  sim_contact tmp; /* inside_only: the candidate, before the filter */
  int found = 0;
  for (int o = 0; !fixed && o < s->nobs; o++) {
    const sim_detect_obstacle *ob = &s->obs[o];
    if (!sim_detect_touches(ob->bodies, bv) ||
        sim_detect_skipped(s, lo, hi, SIM_CONTACT_OBSTACLE, o))
      continue;
    const double own = sim_detect_margin(ob->margin, margin);
    const double *q = sim_detect_query_at(s, &ob->step, own, x, y, &mo);
    const double *xs = xprev ? sim_detect_start_of(&ob->step, xprev, ys) : 0;
    double phi = sim_obstacle_query(&ob->shape, q, c, n);
    const int swept = !(phi <= mo); /* sweep: the segment from x_prev, the contact taken there */
    if (swept && !(s->sweep && xs && sim_detect_swept(&ob->shape, 0, 0, xs, q, mo))) continue;
    if (!form) {
      found++;
      continue;
    }
    if (swept) phi = sim_obstacle_query(&ob->shape, xs, c, n);
    const double found_gap = phi;
    /* found on the far side of a thin part: x_prev's feature */
    if (s->face_prev && xs && sim_detect_behind_by(xs, c, n, own))
      phi = sim_obstacle_query(&ob->shape, xs, c, n);
    sim_contact *k = s->inside_only ? &tmp : &out[found];
    sim_obstacle_velocity(&ob->shape, c, u);
    sim_detect_put(k, SIM_CONTACT_OBSTACLE, v, o, n, c, phi, ob->mu, u);
    found += sim_detect_keep(s, found_gap, k, out, found);
  }
  sim_detect_first first[SIM_DETECT_FIRSTS]; /* the folds' test's (sim_detect_first) */
  for (int i = 0; i < SIM_DETECT_FIRSTS; i++) first[i].a = SIM_DETECT_FIRST_UNKNOWN;
  for (int m = 0; !fixed && m < s->nmesh; m++) {
    if (!sim_detect_touches(s->mesh[m].bodies, bv) ||
        sim_detect_skipped(s, lo, hi, SIM_CONTACT_MESH, m))
      continue;
    sim_detect_first *f = s->creases && m < SIM_DETECT_FIRSTS ? &first[m] : NULL;
    sim_contact *k = out && !s->inside_only ? &out[found] : &tmp;
    double found_gap;
    if (!sim_detect_mesh_contact(s, v, m, form || f ? k : NULL, &found_gap, f)) continue;
    found += form ? sim_detect_keep(s, found_gap, k, out, found) : 1;
  }
  /* the folds' second faces (detect_crease.h), after every mesh's first contact: their keys
     (m + SIM_CONTACT_CREASE) sort after those. A first contact not kept above is found again,
     and formed, counted or not */
  for (int m = 0; !fixed && s->creases && m < s->nmesh; m++) {
    const sim_detect_mesh_view *me = &s->mesh[m];
    if (!sim_detect_touches(me->bodies, bv) ||
        sim_detect_skipped(s, lo, hi, SIM_CONTACT_MESH, m + SIM_CONTACT_CREASE))
      continue;
    sim_detect_first f;
    double gap0;
    if (m < SIM_DETECT_FIRSTS && first[m].a != SIM_DETECT_FIRST_UNKNOWN)
      f = first[m];
    else if (!sim_detect_mesh_contact(s, v, m, &tmp, &gap0, &f))
      continue;
    const double own = sim_detect_margin(me->margin, margin);
    const double *q = sim_detect_query_at(s, &me->step, own, x, y, &mo);
    const sim_detect_surface sf = {&me->bvh, me->x, me->tri, !me->closed, mo, 0};
    sim_bvh_hit hc = {0}; /* the fold's other face */
    double nc[3] = {0.0, 0.0, 0.0}, gc = 0.0; /* set where a fold is found */
    if (f.a < 0 || !sim_detect_crease_find(&sf, q, f.a, f.n, f.p, NULL, NULL, &hc, nc, &gc))
      continue;
    if (!form) {
      found++;
      continue;
    }
    sim_detect_mesh_velocity(me, hc.q.c, u);
    sim_contact *k = s->inside_only ? &tmp : &out[found];
    sim_detect_put(k, SIM_CONTACT_MESH, v, m + SIM_CONTACT_CREASE, nc, hc.q.c, gc, me->mu, u);
    found += sim_detect_keep(s, gc, k, out, found);
  }
  for (int i = 0; i < SIM_DETECT_FIRSTS; i++) first[i].a = SIM_DETECT_FIRST_UNKNOWN;
  for (int B = 0; B < s->nbodies; B++) {
    const sim_detect_body_view *bd = &s->body[B];
    sim_bvh_hit h;
    if ((B == bv ? !s->self_collision : s->no_others) ||
        sim_detect_skipped(s, lo, hi, SIM_CONTACT_BODY, B))
      continue;
    /* self: the nearest triangle neither incident to v nor beside it at rest (sim_bvh_skip) */
    const sim_bvh_skip own = {v, bd->rest, bd->rest_gap * bd->rest_gap};
    const sim_bvh_skip *skip = B == bv ? &own : NULL;
    const int swept = !sim_bvh_view_nearest(&bd->bvh, s->x, x, margin, skip, &h);
    const int keep = s->creases && B < SIM_DETECT_FIRSTS;
    if (keep) first[B].a = SIM_DETECT_FIRST_NONE;
    if (swept && !(s->sweep && xprev && sim_detect_body_swept(s, bd, xprev, x, skip))) continue;
    if (swept && (form || fixed)) /* taken at x_prev (detect_body.h): the sweep met a triangle,
                                     so one is nearest */
      sim_bvh_view_nearest(&bd->bvh, s->x_prev, xprev, INFINITY, skip, &h);
    if (fixed && sim_detect_tri_pinned(s, bd->tri + 3 * h.tri)) continue;
    const int fold = keep && !swept; /* formed where counted too: the fold's test reads it */
    if (!form && !fold) {
      found++;
      continue;
    }
    sim_contact *k = out && !s->inside_only ? &out[found] : &tmp;
    const int a = h.tri;
    int retaken;
    const double found_gap = sim_detect_body_form(s, v, B, swept, skip, &h, k, &retaken);
    if (fold && !retaken) sim_detect_first_of(&first[B], a, k);
    found += form ? sim_detect_keep(s, found_gap, k, out, found) : 1;
  }
  /* the folds' second faces (detect_crease.h), after every body's first contact: their keys
     (B + SIM_CONTACT_CREASE) sort after those. A first contact not kept above is found again,
     at x alone (not swept), and formed, counted or not */
  for (int B = 0; s->creases && B < s->nbodies; B++) {
    const sim_detect_body_view *bd = &s->body[B];
    sim_bvh_hit hc = {0}; /* the fold's other face */
    if ((B == bv ? !s->self_collision : s->no_others) ||
        sim_detect_skipped(s, lo, hi, SIM_CONTACT_BODY, B + SIM_CONTACT_CREASE))
      continue;
    const sim_bvh_skip own = {v, bd->rest, bd->rest_gap * bd->rest_gap};
    const sim_bvh_skip *skip = B == bv ? &own : NULL;
    sim_detect_first f;
    if (B < SIM_DETECT_FIRSTS && first[B].a != SIM_DETECT_FIRST_UNKNOWN) {
      f = first[B];
    } else {
      sim_bvh_hit h;
      f.a = SIM_DETECT_FIRST_NONE;
      int retaken = 1;
      if (sim_bvh_view_nearest(&bd->bvh, s->x, x, margin, skip, &h) &&
          !(fixed && sim_detect_tri_pinned(s, bd->tri + 3 * h.tri))) {
        const int a = h.tri;
        sim_detect_body_form(s, v, B, 0, skip, &h, &tmp, &retaken);
        if (!retaken) sim_detect_first_of(&f, a, &tmp);
      }
    }
    double nc[3] = {0.0, 0.0, 0.0}, gc = 0.0; /* set where a fold is found */
    if (f.a < 0 || !sim_detect_crease_of(s, v, B, skip, &f, &hc, nc, &gc)) continue;
    if (!form) {
      found++;
      continue;
    }
    sim_contact *k = s->inside_only ? &tmp : &out[found];
    sim_detect_put(k, SIM_CONTACT_BODY, v, B + SIM_CONTACT_CREASE, nc, hc.q.c, gc, f.mu, 0);
    for (int i = 0; i < 3; i++) k->tri[i] = bd->tri[3 * hc.tri + i], k->w[i] = hc.q.w[i];
    found += sim_detect_keep(s, gc, k, out, found);
  }
  return found;
}

/* Vertex v's contacts (detect.h): as a point, then its edges' with other edges (edge_edge),
   then with the obstacles (obstacle_edges). */
SIM_HD int sim_detect_vertex(const sim_detect_view *s, int v, sim_contact *out) {
  int lo, hi; /* v's skipped keys */
  sim_detect_skip_range(s, v, &lo, &hi);
  int found = sim_detect_vertex_point(s, v, lo, hi, out);
  if (s->edges) found += sim_detect_edges(s, v, lo, hi, out ? out + found : NULL, INT_MAX);
  if (s->obstacle_edges) found += sim_detect_obstacle_edges(s, v, lo, hi, out ? out + found : NULL);
  return found;
}

#endif

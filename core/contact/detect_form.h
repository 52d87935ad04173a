/* SPDX-License-Identifier: MIT */
/* How one vertex's candidate contacts are formed, kept or skipped (SIM_HD, shared by its
   vertex-triangle contacts, detect_vertex.h, and its edge-edge ones, detect_edge.h): the side
   memory's look-up and the rule that turns an open surface's contact to the side it came
   from, a contact's fields, the inside_only filter and the skip list. */
#ifndef SIM_CONTACT_DETECT_FORM_H
#define SIM_CONTACT_DETECT_FORM_H

#include "contact/detect.h"
#include "contact/detect_body.h"
#include "contact/rows.h"

/* The side memory's entry for vertex v against the open surface (kind, m) (detect.h
   sim_detect_params.sides), or NULL. */
SIM_HD const sim_detect_side *sim_detect_side_find(const sim_detect_view *s, int v, int kind,
                                                   int m) {
  int a = 0, b = s->sides ? s->nsides : 0;
  while (a < b) { /* the first entry >= (v, kind, m) */
    const int mid = a + (b - a) / 2;
    if (sim_detect_side_cmp(&s->sides[mid], v, kind, m) < 0)
      a = mid + 1;
    else
      b = mid;
  }
  return !s->sides || a >= s->nsides || sim_detect_side_cmp(&s->sides[a], v, kind, m)
             ? 0
             : &s->sides[a];
}

/* n and the gap changed in sign: the side behind the contact's plane. */
SIM_HD void sim_detect_turn(double n[3], double *gap) {
  for (int k = 0; k < 3; k++) n[k] = -n[k];
  *gap = -*gap;
}

/* The side rule of an open body's contact (detect_body.h), found unsigned with normal n and
   gap: m, the side remembered for its key (or NULL); near, whether its target shares a vertex
   with m's; was, where the contact's two points lay along n at x_prev (n . (x_prev's point less
   the target's)). Kept where m has its side; else turned where m was behind, or near and was
   <= SIM_DETECT_SIDE_SLACK margins (it crossed this part or rests on it); without m, where
   was < 0. */
SIM_HD void sim_detect_side_turn(const sim_detect_view *s, const sim_detect_side *m, int near,
                                 double was, double n[3], double *gap) {
  if (m && !(sim_dot3(n, m->n) < 0)) return; /* on the remembered side */
  if (!m) {
    if (was < 0) sim_detect_turn(n, gap);
    return;
  }
  if (m->behind || (near && was <= SIM_DETECT_SIDE_SLACK * s->margin)) sim_detect_turn(n, gap);
}

SIM_HD void sim_detect_put(sim_contact *k, sim_contact_kind kind, int v, int source,
                           const double n[3], const double p[3], double gap, double mu,
                           const double u[3]) {
  k->kind = kind, k->v = v, k->source = source, k->gap = gap, k->mu = mu;
  k->compliance = 0.0;
  k->cable = 0;
  k->dev_ref = k->dev_slot = 0;
  for (int i = 0; i < 3; i++) {
    k->tri[i] = -1, k->w[i] = 0.0;
    k->n[i] = n[i], k->p[i] = p[i], k->u[i] = u ? u[i] : 0.0;
  }
  sim_tangent_basis(k->n, k->t1, k->t2);
}

/* renew (detect.h): whether contact k, whose gap as found is `gap`, is kept: a new key, or
   one whose step's contact (its entry in s->sides) reads more than SIM_DETECT_STALE margins
   more gap at x along its row, n . C x (rows.h), and faces its side. */
SIM_HD int sim_detect_renews(const sim_detect_view *s, double gap, const sim_contact *k) {
  if (k->kind != SIM_CONTACT_BODY && k->kind != SIM_CONTACT_EDGE) return 1;
  const sim_detect_side *m = sim_detect_side_find(s, k->v, k->kind, k->source);
  if (!m) return 1;
  int vert[4];
  double beta[4], row = 0.0;
  const int nt = sim_rows_terms_of(k->kind, k->v, m->tri, m->w, vert, beta);
  for (int t = 0; t < nt; t++)
    for (int i = 0; i < 3; i++) row += beta[t] * m->n[i] * s->x[3 * (size_t)vert[t] + i];
  return row - gap > SIM_DETECT_STALE * s->margin && sim_dot3(m->n, k->n) > 0.0;
}

/* Keeps the candidate formed in *k (inside_only: only where its gap as found, `gap`, is < 0;
   renew: sim_detect_renews): copied to out[found] where it was formed elsewhere. Returns 1
   when kept. */
SIM_HD int sim_detect_keep(const sim_detect_view *s, double gap, const sim_contact *k,
                           sim_contact *out, int found) {
  if (s->inside_only && !(gap < 0.0)) return 0;
  if (s->renew && !sim_detect_renews(s, gap, k)) return 0;
  if (out && k != &out[found]) out[found] = *k;
  return 1;
}

/* The keys of vertex v in s->skip: [*lo, *hi) (empty without a skip list). */
SIM_HD void sim_detect_skip_range(const sim_detect_view *s, int v, int *lo, int *hi) {
  int a = 0, b = s->skip ? s->nskip : 0;
  while (a < b) { /* the first key of a vertex >= v */
    const int mid = a + (b - a) / 2;
    if (s->skip[mid].v < v)
      a = mid + 1;
    else
      b = mid;
  }
  *lo = a;
  while (s->skip && a < s->nskip && s->skip[a].v == v) a++;
  *hi = a;
}

/* 1 when (kind, source) is among v's skipped keys [lo, hi). */
SIM_HD int sim_detect_skipped(const sim_detect_view *s, int lo, int hi, int kind, int source) {
  for (int i = lo; i < hi; i++)
    if (s->skip[i].kind == kind && s->skip[i].source == source) return 1;
  return 0;
}

/* Whether an obstacle whose bodies mask is `mask` touches body `body` (detect.h; -1: a vertex
   of no body, touched by every obstacle). */
SIM_HD int sim_detect_touches(uint64_t mask, int body) {
  if (body < 0) return 1;
  if (body < 64) return (int)((mask >> body) & 1u);
  return mask == SIM_DETECT_ALL;
}

/* Where a vertex at x meets an obstacle with step map m and margin `own` (sim_detect_margin):
   x itself, or in an at_start pass its place relative to the obstacle at the step's start (y,
   detect.h sim_detect_step), the margin widened by how far the obstacle moves there over the
   step. */
SIM_HD const double *sim_detect_query_at(const sim_detect_view *s, const sim_detect_step *m,
                                         double own, const double *x, double y[3], double *margin) {
  *margin = own;
  if (!s->at_start || !m->on) return x;
  sim_detect_step_apply(m, x, y);
  const double d[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
  *margin += sim_norm3(d);
  return y;
}

#endif

/* SPDX-License-Identifier: MIT */
/* Edge-edge contacts (core/contact/detect_edge.h): two quads crossed 1 cm apart, as two bodies
   and as one, with the exact gaps, normals and weights of their nine crossing pairs, each held
   once; the margin, parallel edges and ends; the rest rule, pinned vertices, the side the
   pair came from and the side memory; a sweep, also across an edge's end, and a crossed pair
   that the surface beside a kink says holds the wrong side; re-detection's renewal of a stale
   pair; the slot limit; thread counts; a pair beside an edge's end, a vertex's. Against every
   pair of edges tested (brute force): two crumpled sheets crossed, as two bodies and as one,
   at rest and swept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/detect.h"
#include "../core/contact/detect_edge.h"
#include "../core/contact/rows.h"
#include "check.h"
#include "detect_once.h"

#define H 0.01 /* the upper quad's height over the lower */

/* Lower quad 0-3 in the plane y = 0, long along x (|x| <= 1, |z| <= 0.1); upper quad 4-7 at
   y = H, long along z, turned by `turn` radians about y. */
static void quads(double *x, int *tri, double turn) {
  const double lo[4][3] = {{-1, 0, -0.1}, {1, 0, -0.1}, {1, 0, 0.1}, {-1, 0, 0.1}};
  const double up[4][3] = {{-0.1, H, -1}, {0.1, H, -1}, {0.1, H, 1}, {-0.1, H, 1}};
  const double c = cos(turn), s = sin(turn);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++) {
      x[3 * i + k] = lo[i][k];
      x[12 + 3 * i + k] = k == 0   ? c * up[i][0] + s * up[i][2]
                          : k == 2 ? -s * up[i][0] + c * up[i][2]
                                   : up[i][1];
    }
  const int t[12] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
  memcpy(tri, t, sizeof t);
}

/* The pairs' fields: v < tri[1] < tri[2], v < tri[0], gap H along -y (from the upper edge to
   the lower), sum beta x = gap n (the normal row gives the gap), inner weights, sorted keys. */
static int check_pairs(const sim_detect_contacts *o, const double *x, double sign) {
  int bad = 0;
  for (int j = 0; j < o->n; j++) {
    const sim_contact *c = &o->c[j];
    if (c->kind != SIM_CONTACT_EDGE) continue;
    bad += c->v >= c->tri[0] || c->v >= c->tri[1] || c->tri[1] >= c->tri[2] || c->v > 3 ||
           c->tri[1] < 4;
    bad += fabs(c->gap - sign * H) > 1e-15 || fabs(c->n[1] + sign) > 1e-15;
    bad += !(c->w[0] > 0 && c->w[0] < 1 && c->w[2] > 0 && c->w[2] < 1) || c->w[1] + c->w[2] != 1.0;
    bad += fabs(c->mu - sqrt(0.4 * 0.9)) > 1e-15;
    double out[3];
    sim_rows_apply(c, 1, NULL, x, out);
    bad += fabs(out[0] - c->gap) > 1e-15 || fabs(out[1]) > 1e-15 || fabs(out[2]) > 1e-15;
    if (j > 0) bad += sim_contact_key_cmp(&o->c[j - 1], c) >= 0;
  }
  return bad;
}

/* The segments' closest points: inside both, exact where the arithmetic is; at an end of
   one, or parallel: none. */
static void test_segments(void) {
  const double a0[3] = {-1, 0, -0.1}, a1[3] = {1, 0, -0.1};
  const double b0[3] = {-0.1, H, -1}, b1[3] = {-0.1, H, 1};
  sim_seg_closest q;
  CHECK(sim_seg_closest_inner(a0, a1, b0, b1, &q));
  CHECK_NEAR(q.s, 0.45, 1e-15);
  CHECK_NEAR(q.t, 0.45, 1e-15);
  CHECK_NEAR(q.d2, H * H, 1e-18);
  CHECK_NEAR(q.pa[0], -0.1, 1e-16);
  CHECK_NEAR(q.pb[2], -0.1, 1e-16);
  CHECK_NEAR(sim_seg_d2(a0, a1, b0, b1), H * H, 1e-18);
  const double c0[3] = {1.05, H, -1}, c1[3] = {1.05, H, 1}; /* beyond a1: a's end nearest */
  CHECK(!sim_seg_closest_inner(a0, a1, c0, c1, &q));
  CHECK_NEAR(sim_seg_d2(a0, a1, c0, c1), 0.05 * 0.05 + H * H, 1e-16);
  const double p0[3] = {-0.5, H, -0.1}, p1[3] = {0.5, H, -0.1}; /* parallel above a */
  CHECK(!sim_seg_closest_inner(a0, a1, p0, p1, &q));
  CHECK_NEAR(sim_seg_d2(a0, a1, p0, p1), H * H, 1e-18);
  const double e0[3] = {1, H, -1}, e1[3] = {1, H, 1}; /* through a1 itself: at an end */
  CHECK(!sim_seg_closest_inner(a0, a1, e0, e1, &q) || q.s >= 1 - 1e-15);
}

static void test_two_bodies(void) {
  double x[24], xp[24];
  int tri[12];
  quads(x, tri, 0.0);
  sim_detect_body b[2] = {{0, 4, 2, tri, 0.4, 1, NULL, 0}, {4, 4, 2, tri + 6, 0.9, 1, NULL, 0}};
  sim_detect_scene s = {8, x, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 0); /* off by default */
  p.edge_edge = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  /* the lower quad's long sides and diagonal across the upper's: 9 pairs, held by vertices
     0 and 2; the corners lie farther than the margin from the other quad */
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 0);
  CHECK_INT(check_pairs(&o, x, 1.0), 0);
  int ends = 0;
  for (int j = 0; j < o.n; j++) ends += o.c[j].v == 0 ? 1 : o.c[j].v == 2 ? 100 : 10000;
  CHECK_INT(ends, 6 + 300);    /* edges (0,1), (0,2) x 3, (2,3) x 3 */
  const sim_contact *c = NULL; /* (0,1) across (4,7): s = t = 0.45 */
  for (int j = 0; j < o.n; j++)
    if (o.c[j].v == 0 && o.c[j].tri[0] == 1 && o.c[j].tri[1] == 4 && o.c[j].tri[2] == 7)
      c = &o.c[j];
  CHECK(c != NULL);
  if (c) {
    CHECK_NEAR(c->w[0], 0.45, 1e-15);
    CHECK_NEAR(c->w[2], 0.45, 1e-15);
    CHECK_INT(c->source, sim_detect_edge_source(4, 2, 0)); /* (4,7): vertex 4's third edge */
  }
  p.margin = 0.9 * H; /* the margin below the gap: none */
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  p.margin = 0.02;
  p.no_others = 1; /* other bodies off, self-collision off: none */
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  p.no_others = 0;
  /* turned a little (0.3 rad): the same nine pairs cross, no two edges parallel */
  quads(x, tri, 0.3);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  CHECK_INT(check_pairs(&o, x, 1.0), 0);
  /* pinned: the lower quad's four vertices still hold pairs with a free edge; all eight not */
  quads(x, tri, 0.0);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 9);
  unsigned char pin[8] = {1, 1, 1, 1, 0, 0, 0, 0};
  s.pinned = pin;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 9);
  memset(pin, 1, sizeof pin);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  s.pinned = NULL;
  /* x_prev with the upper quad below the lower: the pairs crossed over the step, turned to the
     side they came from (n up, gap -H); inside_only keeps them all then, and none without */
  memcpy(xp, x, sizeof x);
  for (int i = 4; i < 8; i++) xp[3 * i + 1] = -H;
  s.x_prev = xp;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 9);
  CHECK_INT(check_pairs(&o, x, -1.0), 0);
  p.inside_only = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 9);
  s.x_prev = x;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  p.inside_only = 0;
  /* sweep: the upper quad 5 cm above the lower at x_prev and 5 cm below it at x, farther than
     the margin at both ends: not found without the sweep; with it, the nine pairs taken at
     x_prev (gap 5 cm, n down: the side they came from), and none where x_prev is x */
  for (int i = 4; i < 8; i++) xp[3 * i + 1] = 0.05, x[3 * i + 1] = -0.05;
  s.x_prev = xp;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 0);
  p.sweep = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  int swept_bad = 0;
  for (int j = 0; j < o.n; j++)
    swept_bad += fabs(o.c[j].gap - 0.05) > 1e-15 || fabs(o.c[j].n[1] + 1) > 1e-15;
  CHECK_INT(swept_bad, 0);
  for (int i = 4; i < 8; i++) /* sliding in 3 m along z, 5 cm under the lower: never near */
    xp[3 * i + 1] = -0.05, xp[3 * i + 2] += 3;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 0);
  /* coming down across the lower quad's end: 5 cm above it and 1.3 m along x at x_prev (the
     lower's edges closest to the upper's at their end x = 1), 5 cm below it and 0.6 m back at
     x; through its middle over the step. The nine pairs taken with the weights of the time
     they pass through each other, n their common normal then, turned up to x_prev's side
     (down: from the upper edge to the lower), the gap along n at x_prev (5 cm) */
  quads(x, tri, 0.0);
  memcpy(xp, x, sizeof x);
  for (int i = 4; i < 8; i++)
    xp[3 * i] += 1.3, xp[3 * i + 1] = 0.05, x[3 * i] -= 0.6, x[3 * i + 1] = -0.05;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 0);
  swept_bad = 0;
  for (int j = 0; j < o.n; j++) {
    const sim_contact *k = &o.c[j];
    double d[3]; /* the row at x_prev: n . (sum_j beta_j x_prev) = gap */
    for (int i = 0; i < 3; i++)
      d[i] = (1 - k->w[0]) * xp[3 * k->v + i] + k->w[0] * xp[3 * k->tri[0] + i] -
             k->w[1] * xp[3 * k->tri[1] + i] - k->w[2] * xp[3 * k->tri[2] + i];
    swept_bad += fabs(k->gap - 0.05) > 1e-14 || fabs(k->n[1] + 1) > 1e-14 ||
                 fabs(sim_dot3(k->n, d) - k->gap) > 1e-15;
  }
  CHECK_INT(swept_bad, 0);
  p.sweep = 0;
  quads(x, tri, 0.0);
  s.x_prev = x;
  /* the side memory: the pairs remembered with n up (turned); x_prev at x (0.01 in front,
     above the slack): their present side, unless the memory says behind */
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  sim_detect_side sides[9];
  for (int j = 0; j < 9; j++) {
    sides[j] = (sim_detect_side){o.c[j].v, SIM_CONTACT_EDGE, o.c[j].source, 0, {0}, {0, 1, 0}, {0}};
    memcpy(sides[j].tri, o.c[j].tri, sizeof sides[j].tri);
  }
  p.sides = sides, p.nsides = 9;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(check_pairs(&o, x, 1.0), 0);
  for (int j = 0; j < 9; j++) sides[j].behind = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(check_pairs(&o, x, -1.0), 0);
  /* the skip list: a pair's key is skipped alone */
  p.sides = NULL, p.nsides = 0;
  const sim_contact_key skip = sim_contact_key_of(&o.c[4]);
  p.skip = &skip, p.nskip = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 8);
  for (int j = 0; j < o.n; j++) CHECK(o.c[j].source != skip.source || o.c[j].v != skip.v);
  sim_detect_contacts_free(&o);
}

/* renew (re-detection, detect.h): the step's nine pairs, found with the upper quad 1 cm over
   the lower (tilted, y = 0.02 x), are found again at x, the upper slid 0.5 along x to 9 mm
   high and the lower tilted further (y = 0.04 x - 0.01), over the upper where x > 0.475: a
   pair is found where it ended inside and its step's row (its normal, no longer at right
   angles to the lower edge, at the weights of the crossing near x = 0) reads more than
   SIM_DETECT_STALE margins more gap; with the rows of the crossings at x (their own normals
   and weights) or the other side's normal, none. (An edge sliding along the other, the two
   turning not, keeps its row: the normal is at right angles to both.) */
static void test_renew(void) {
  double xp[24], x[24];
  int tri[12];
  quads(xp, tri, 0.0);
  for (int i = 0; i < 4; i++) xp[3 * i + 1] = 0.02 * xp[3 * i];
  memcpy(x, xp, sizeof x);
  for (int i = 0; i < 4; i++) x[3 * i + 1] = 0.04 * x[3 * i] - 0.01;
  for (int i = 4; i < 8; i++) x[3 * i] += 0.5, x[3 * i + 1] = 0.009;
  sim_detect_body b[2] = {{0, 4, 2, tri, 0.4, 1, NULL, 0}, {4, 4, 2, tri + 6, 0.9, 1, NULL, 0}};
  sim_detect_scene s = {8, xp, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02, p.edge_edge = 1;
  sim_detect_contacts step = {0}, o = {0};
  CHECK_INT(detect_once(&s, &p, &step), SIM_OK);
  CHECK_INT(step.count[SIM_CONTACT_EDGE], 9);
  sim_detect_side sides[9];
  for (int j = 0; j < 9 && j < step.n; j++) {
    const sim_contact *c = &step.c[j];
    sides[j] = (sim_detect_side){c->v, c->kind, c->source, 0, {0}, {0}, {0}};
    for (int k = 0; k < 3; k++)
      sides[j].tri[k] = c->tri[k], sides[j].n[k] = c->n[k], sides[j].w[k] = c->w[k];
  }
  s.x = x, s.x_prev = xp;
  p.inside_only = p.face_prev = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK); /* without renew: the pairs that ended inside */
  const int inside = o.n;
  p.renew = 1, p.sides = sides, p.nsides = 9;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  printf("renew: %d of 9 pairs inside at x, %d renewed\n", inside, o.n);
  CHECK(o.n > 0 && o.n <= inside);
  int bad = 0;
  for (int j = 0; j < o.n; j++) {
    const sim_contact *c = &o.c[j];
    const sim_detect_side *m = NULL;
    for (int i = 0; i < 9; i++)
      if (sides[i].v == c->v && sides[i].source == c->source) m = &sides[i];
    if (!m) {
      bad++;
      continue;
    }
    double row = 0.0; /* the step's row at x */
    for (int k = 0; k < 3; k++)
      row += m->n[k] * ((1 - m->w[0]) * x[3 * c->v + k] + m->w[0] * x[3 * m->tri[0] + k] -
                        m->w[1] * x[3 * m->tri[1] + k] - m->w[2] * x[3 * m->tri[2] + k]);
    bad += !(c->gap < 0) || !(row - c->gap > SIM_DETECT_STALE * p.margin) ||
           !(sim_dot3(c->n, m->n) > 0) || c->tri[0] != m->tri[0] || c->tri[1] != m->tri[1];
  }
  CHECK_INT(bad, 0);
  /* each pair's row at its crossing at x: none stale */
  for (int j = 0; j < o.n; j++)
    for (int i = 0; i < 9; i++)
      if (sides[i].v == o.c[j].v && sides[i].source == o.c[j].source)
        for (int k = 0; k < 3; k++) sides[i].w[k] = o.c[j].w[k], sides[i].n[k] = o.c[j].n[k];
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  /* the other side's normal (up), the step's weights: none */
  for (int j = 0; j < 9; j++)
    for (int k = 0; k < 3; k++) sides[j].w[k] = step.c[j].w[k], sides[j].n[k] = -step.c[j].n[k];
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  sim_detect_contacts_free(&step);
  sim_detect_contacts_free(&o);
}

/* A crossed pair's side read against the surface (sim_detect_crossed_misread): the lower body
   a flat quad (x from -1 to 0, y = 0) and a slope rising from its end at 20 degrees (x from 0
   to 1), |z| <= 0.1, its faces' normals all down by their vertex order; the upper a narrow
   quad long along z, parallel to the slope 3 mm under it at x_prev (x = 0.5) and 3.5 cm under
   the flat part at x (x = -0.3). Over the step its edges go up through the slope, then down
   through the flat part's edges, whose pairs the crossing test finds (at x_prev the upper lay
   above their lines, extended beyond the kink) and, under the slope, drops: they would hold
   the upper above the lower. 3 mm above the slope at x_prev it came from above the lower
   there too, and they are kept, holding it above. */
static int flat_pairs(const sim_detect_contacts *o, int *up) {
  int n = 0;
  *up = 0;
  for (int j = 0; j < o->n; j++) {
    const sim_contact *c = &o->c[j];
    const int a = c->v, b = c->tri[0];
    if (c->kind != SIM_CONTACT_EDGE || a == 2 || a == 5 || b == 2 || b == 5) continue;
    n++, *up += c->n[1] < 0; /* n from the upper edge to the lower: the upper held above */
  }
  return n;
}

static void test_kink(void) {
  const double S = tan(20 * SIM_PI / 180);
  double x[30], xp[30];
  const double lower[6][3] = {{-1, 0, -0.1}, {0, 0, -0.1}, {1, S, -0.1},
                              {-1, 0, 0.1},  {0, 0, 0.1},  {1, S, 0.1}};
  int tri[18] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4, 6, 7, 8, 6, 8, 9};
  sim_detect_body b[2] = {{0, 6, 4, tri, 0.4, 1, NULL, 0}, {6, 4, 2, tri + 12, 0.4, 1, NULL, 0}};
  sim_detect_scene s = {10, x, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.005, p.edge_edge = 1, p.sweep = 1;
  sim_detect_contacts o = {0};
  for (int under = 1; under >= 0; under--) {
    memcpy(x, lower, sizeof lower);
    memcpy(xp, lower, sizeof lower);
    for (int i = 0; i < 4; i++) {
      const double dx = i == 0 || i == 3 ? -0.005 : 0.005, z = i < 2 ? -1 : 1;
      const double a[3] = {0.5 + dx, S * (0.5 + dx) + (under ? -0.003 : 0.003), z};
      const double e[3] = {-0.3 + dx, -0.035, z};
      memcpy(xp + 3 * (6 + i), a, sizeof a);
      memcpy(x + 3 * (6 + i), e, sizeof e);
    }
    s.x_prev = xp;
    CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
    int up = 0;
    const int n = flat_pairs(&o, &up);
    if (under) {
      CHECK_INT(n, 0);
    } else {
      CHECK(n > 0);
      CHECK_INT(up, n);
    }
  }
  sim_detect_contacts_free(&o);
}

/* The two quads as one body: self-collision's pairs, and the rest rule. */
static void test_self(void) {
  double x[24], rest[24];
  int tri[12];
  quads(x, tri, 0.0);
  sim_detect_body b = {0, 8, 4, tri, 0.6, 1, NULL, 0};
  sim_detect_scene s = {8, x, NULL, NULL, 0, 0, 1, NULL, NULL, &b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02, p.edge_edge = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0); /* self-collision off */
  p.self_collision = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  /* at rest as now: the pairs lie within rest_gap (the segments' distance H, their ends far):
     skipped; at rest a metre apart: found */
  memcpy(rest, x, sizeof x);
  b.rest = rest, b.rest_gap = 2 * H;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 0);
  for (int i = 4; i < 8; i++) rest[3 * i + 1] += 1.0;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 9);
  /* a flat sheet (both quads in one plane, 5 cm apart, the margin 20 cm): pairs within the
     margin, but none comes closest inside both edges */
  for (int i = 4; i < 8; i++) x[3 * i + 1] = 0, x[3 * i] += 1.15;
  b.rest = NULL, p.margin = 0.2;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_EDGE], 0);
  CHECK(o.count[SIM_CONTACT_BODY] > 0); /* vertices near the other quad's triangles */
  sim_detect_contacts_free(&o);
}

/* A vertex with 17 edges to higher vertices (a fan): edge-edge contact refuses it. */
static void test_slots(void) {
  enum { N = SIM_CONTACT_EDGE_SLOTS + 1 };
  double x[3 * (N + 2)];
  int tri[3 * N];
  x[0] = x[1] = x[2] = 0;
  for (int i = 0; i <= N; i++) {
    x[3 * (i + 1)] = cos(0.3 * i), x[3 * (i + 1) + 1] = 0, x[3 * (i + 1) + 2] = sin(0.3 * i);
    if (i < N) tri[3 * i] = 0, tri[3 * i + 1] = i + 1, tri[3 * i + 2] = i + 2;
  }
  sim_bvh bvh;
  sim_status st = {0};
  CHECK_INT(sim_bvh_build(N + 2, x, N, tri, &bvh, &st), SIM_OK);
  const sim_bvh_view bv = sim_bvh_view_of(&bvh);
  int u[N + 1], slot[N + 1];
  CHECK_INT(sim_bvh_edges_owned(&bv, 0, N + 1, u, slot), N + 1);
  int distinct = 1;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j < i; j++) distinct &= u[i] != u[j] && u[i] >= 1 && u[i] <= N + 1;
  CHECK(distinct);
  CHECK_INT(sim_bvh_edges_owned(&bv, 2, N + 1, u, slot), 1); /* (2, 3): (1, 2) is 1's */
  CHECK_INT(u[0], 3);
  /* every edge named at one slot, with its place: the fan's 18 + 17 rim edges */
  int named = 0, bad = 0;
  for (int s = 0; s < N; s++)
    for (int k = 0; k < 3; k++) {
      const int f = bvh.edge_f[3 * s + k];
      if (f == SIM_BVH_EDGE_NONE) continue;
      named++;
      const int a = bvh.tri[3 * s + k], b = bvh.tri[3 * s + (k + 1) % 3];
      const int lo = a < b ? a : b, hi = a < b ? b : a;
      const int n = sim_bvh_edges_owned(&bv, lo, N + 1, u, slot);
      bad += !(f < n && u[f] == hi && slot[f] == s);
    }
  CHECK_INT(named, 2 * N + 1);
  CHECK_INT(bad, 0);
  sim_bvh_free(&bvh);
  sim_detect_body b = {0, N + 2, N, tri, 0.5, 1, NULL, 0};
  sim_detect_scene s = {N + 2, x, NULL, NULL, 0, 0, 1, NULL, NULL, &b};
  sim_detect_params p = sim_default_detect_params();
  p.self_collision = 1;
  sim_detect d;
  sim_detect_contacts o = {0};
  CHECK_INT(sim_detect_init(&d, &s, &st), SIM_OK);
  CHECK_INT(sim_detect_run(&d, &s, &p, &o, &st), SIM_OK);
  p.edge_edge = 1;
  CHECK_INT(sim_detect_run(&d, &s, &p, &o, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "vertex 0 has 18 surface edges");
  CHECK_INT(o.n, 0);
  sim_detect_free(&d);
  sim_detect_contacts_free(&o);
}

/* Two sheets of G x G vertices, 1 m square, crumpled by up to 3 cm: the lower in y = 0, the
   upper 2 cm above it turned by 0.5 rad about y; and a second pose, each vertex moved by up
   to 8 cm (x_prev of a sweep). tri: both sheets' triangles, the lower's first. */
enum { G = 9, SHEET = G * G, NV = 2 * SHEET, NT = 4 * (G - 1) * (G - 1) };
static double jitter(unsigned long long *r, double a) {
  *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
  return a * (2.0 * (double)(*r >> 11) / 9007199254740992.0 - 1.0);
}
static void sheets(unsigned long long seed, double *x, double *xp, int *tri) {
  unsigned long long r = seed;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < G; i++)
      for (int j = 0; j < G; j++) {
        const double a = (double)i / (G - 1) - 0.5, b = (double)j / (G - 1) - 0.5;
        const double c = k ? cos(0.5) : 1.0, sn = k ? sin(0.5) : 0.0;
        double *p = x + 3 * (k * SHEET + i * G + j);
        p[0] = c * a + sn * b, p[1] = 0.02 * k + jitter(&r, 0.03), p[2] = -sn * a + c * b;
        for (int d = 0; d < 3; d++) xp[p - x + d] = p[d] + jitter(&r, 0.08);
      }
  int *t = tri;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i + 1 < G; i++)
      for (int j = 0; j + 1 < G; j++) {
        const int a = k * SHEET + i * G + j, q[6] = {a, a + G, a + G + 1, a, a + G + 1, a + 1};
        memcpy(t, q, sizeof q), t += 6;
      }
}

/* Whether the closest points c of (v, u) and (lo, hi) at X lie nearer an end of either edge
   than to each other (a vertex's, not a pair: detect_edge.h), from the distances themselves. */
static int end_pair(const double *X, int v, int u, int lo, int hi, const sim_seg_closest *c) {
  const double d = sqrt(c->d2);
  const int ends[4] = {v, u, lo, hi};
  for (int k = 0; k < 4; k++) {
    const double *p = k < 2 ? c->pa : c->pb, *e = X + 3 * ends[k];
    const double r[3] = {p[0] - e[0], p[1] - e[1], p[2] - e[2]};
    if (sim_norm3(r) < d) return 1;
  }
  return 0;
}

/* The pairs a brute force finds: every two surface edges (v, u) and (lo, hi), v < lo, sharing
   no vertex, of two bodies (nbodies 2: the sheets; 1: one body, self) whose segments come
   closest inside both, no nearer an end than each other, within the margin at x or (xp !=
   NULL) over the step from xp (a crossed pair where view's surfaces do not say the other
   side); not within rest_gap at rest (rest != NULL). Each as v, u, lo, hi into q (4 per
   pair); returns how many. */
static int brute(const double *x, const double *xp, const int *tri, int nbodies, const double *rest,
                 double rest_gap, double margin, const sim_detect_view *view, int *q) {
  static int e[3 * NT][2];
  int ne = 0, n = 0;
  for (int t = 0; t < NT; t++)
    for (int k = 0; k < 3; k++) {
      const int a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
      const int lo = a < b ? a : b, hi = a < b ? b : a;
      int seen = 0;
      for (int i = 0; i < ne && !seen; i++) seen = e[i][0] == lo && e[i][1] == hi;
      if (!seen) e[ne][0] = lo, e[ne][1] = hi, ne++;
    }
  for (int i = 0; i < ne; i++)
    for (int j = 0; j < ne; j++) {
      const int v = e[i][0], u = e[i][1], lo = e[j][0], hi = e[j][1];
      if (v >= lo || u == lo || u == hi) continue;
      if (nbodies == 2 && (v < SHEET) == (lo < SHEET)) continue;
      const double *X = x;
      sim_seg_closest c;
      int met = sim_seg_closest_inner(X + 3 * v, X + 3 * u, X + 3 * lo, X + 3 * hi, &c) &&
                c.d2 <= margin * margin;
      if (met)
        met = !end_pair(x, v, u, lo, hi, &c);
      else if (xp && sim_detect_edges_swept(x, xp, v, u, lo, hi, margin)) {
        double dir[3];
        const sim_detect_body_view *bd = &view->body[view->body_of[lo]];
        if (sim_seg_closest_inner(xp + 3 * v, xp + 3 * u, xp + 3 * lo, xp + 3 * hi, &c))
          met = !end_pair(xp, v, u, lo, hi, &c);
        else
          met = sim_detect_edges_crossed(x, xp, v, u, lo, hi, &c, dir) &&
                !sim_detect_crossed_misread(view, bd, v, u, lo, hi,
                                            sim_detect_edge_tri_of(&bd->bvh, lo, hi), &c, dir);
      }
      if (!met || (rest && sim_seg_d2(rest + 3 * v, rest + 3 * u, rest + 3 * lo, rest + 3 * hi) <
                               rest_gap * rest_gap))
        continue;
      int *p = q + 4 * n++;
      p[0] = v, p[1] = u, p[2] = lo, p[3] = hi;
    }
  return n;
}

/* Detection's edge pairs, sorted as the brute force's (v, u, lo, hi ascending), against it. */
static int cmp_quad(const void *a, const void *b) {
  const int *p = a, *r = b;
  for (int k = 0; k < 4; k++)
    if (p[k] != r[k]) return p[k] < r[k] ? -1 : 1;
  return 0;
}
static void test_brute(unsigned long long seed) {
  static double x[3 * NV], xp[3 * NV], rest[3 * NV];
  static int tri[3 * NT], want[4 * 20000], got[4 * 20000];
  sheets(seed, x, xp, tri);
  for (int i = 0; i < NV; i++) /* at rest flat, the sheets a metre apart */
    rest[3 * i] = x[3 * i], rest[3 * i + 1] = i < SHEET ? 0.0 : 1.0, rest[3 * i + 2] = x[3 * i + 2];
  const double margin = 0.05;
  for (int mode = 0; mode < 4; mode++) {
    const int nb = mode % 2 ? 1 : 2, swept = mode >= 2;
    sim_detect_body b2[2] = {{0, SHEET, NT / 2, tri, 0.5, 1, NULL, 0},
                             {SHEET, SHEET, NT / 2, tri + 3 * (NT / 2), 0.5, 1, NULL, 0}};
    sim_detect_body b1 = {0, NV, NT, tri, 0.5, 1, rest, 2 * margin};
    sim_detect_scene s = {NV, x, swept ? xp : NULL, NULL, 0, 0, nb, NULL, NULL, nb == 2 ? b2 : &b1};
    sim_detect_params p = sim_default_detect_params();
    p.margin = margin, p.edge_edge = 1, p.self_collision = nb == 1, p.sweep = swept;
    sim_detect_contacts o = {0};
    CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
    int n = 0;
    for (int j = 0; j < o.n; j++) {
      const sim_contact *c = &o.c[j];
      if (c->kind != SIM_CONTACT_EDGE || n >= 20000) continue;
      int *q = got + 4 * n++;
      q[0] = c->v, q[1] = c->tri[0], q[2] = c->tri[1], q[3] = c->tri[2];
    }
    qsort(got, (size_t)n, 4 * sizeof(int), cmp_quad);
    /* the crossed pairs' reading of the surfaces (sim_detect_crossed_misread) through trees of
       the bodies built here, spanning both poses as detection's */
    sim_bvh tree[2];
    sim_detect_body_view bv[2];
    int body_of[NV];
    for (int k = 0; k < nb; k++) {
      const sim_detect_body *bk = nb == 2 ? &b2[k] : &b1;
      sim_status st = {0};
      CHECK_INT(sim_bvh_build(NV, x, bk->nt, bk->tri, &tree[k], &st), SIM_OK);
      sim_bvh_refit_swept(&tree[k], x, xp);
      bv[k] = (sim_detect_body_view){sim_bvh_view_of(&tree[k]), bk->tri, 0.5, 1, NULL, 0};
      for (int i = bk->v0; i < bk->v0 + bk->nv; i++) body_of[i] = k;
    }
    sim_detect_view view = {0};
    view.nv = NV, view.x = x, view.x_prev = xp, view.body_of = body_of, view.nbodies = nb;
    view.body = bv, view.margin = margin;
    const int m = brute(x, swept ? xp : NULL, tri, nb, nb == 1 ? rest : NULL, 2 * margin, margin,
                        &view, want);
    for (int k = 0; k < nb; k++) sim_bvh_free(&tree[k]);
    qsort(want, (size_t)m, 4 * sizeof(int), cmp_quad);
    CHECK(m > 50); /* the sheets cross: many pairs */
    CHECK_INT(n, m);
    CHECK(n == m && !memcmp(got, want, 4 * sizeof(int) * (size_t)m));
    sim_detect_contacts_free(&o);
  }
}

/* A pair whose points lie nearer an end than to each other is that vertex's, not a pair
   (detect_edge.h sim_detect_edge_at_end): the upper quad moved along x until its edge at
   x = 1 - gap crosses the lower's long sides and diagonal 1 cm under it, beside their ends at
   x = 1. At gap 2 cm (farther from the ends than from each other) its three pairs are kept,
   nine in all; at 1 mm they are the lower's vertices 1 and 2 against that edge, which their
   own contacts with the upper quad hold: six pairs and two vertex contacts. */
static void test_end(void) {
  double x[24];
  int tri[12];
  sim_detect_body b[2] = {{0, 4, 2, tri, 0.4, 1, NULL, 0}, {4, 4, 2, tri + 6, 0.9, 1, NULL, 0}};
  sim_detect_scene s = {8, x, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02, p.edge_edge = 1;
  sim_detect_contacts o = {0};
  const double gap[2] = {0.02, 0.001};
  const int want[2] = {9, 6};
  for (int i = 0; i < 2; i++) {
    quads(x, tri, 0.0);
    for (int v = 4; v < 8; v++) x[3 * v] += 0.9 - gap[i];
    CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
    CHECK_INT(o.count[SIM_CONTACT_EDGE], want[i]);
    CHECK_INT(o.count[SIM_CONTACT_BODY], 2 * i); /* vertices 1 and 2 against the upper quad */
    for (int j = 0; j < o.n; j++) { /* none is closer to an end than to the other edge */
      const sim_contact *c = &o.c[j];
      const double l = fmin(c->w[0], 1.0 - c->w[0]) * 2.0; /* the lower's edges: 2 m or more */
      CHECK(c->kind != SIM_CONTACT_EDGE || l > H);
    }
  }
  sim_detect_contacts_free(&o);
}

int main(void) {
  test_segments();
  test_two_bodies();
  test_end();
  test_renew();
  test_kink();
  test_self();
  test_slots();
  test_brute(11);
  test_brute(12);
  return check_summary("test_detect_edge");
}

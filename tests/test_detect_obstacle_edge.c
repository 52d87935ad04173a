/* SPDX-License-Identifier: MIT */
/* Edges against analytic obstacles (core/contact/detect_obstacle_edge.h): a strip whose
   vertices lie on a cylinder, its edges across the axis cutting chords into it, with their
   exact depths, points, normals and rows; none on a plane or along the axis; the margin, the
   dip below the ends, pinned vertices, the bodies mask, inside_only and the step map. Against
   a dense scan of each edge of a crumpled strip over a sphere, a box's ridge, a capsule and a
   torus: the same gaps and points, and every edge that dips has its contact. The deepest
   point's search against random segments through and beside a sphere, cylinder, capsule and
   box: the slope's zero to 2^-36 of the edge, none on a plane, at most 2 SIM_DETECT_EDGE_HALVINGS
   of the obstacle's queries a search. SIMCTL_BENCH_EDGE_SEARCH=1 prints the searches' mean and
   largest counts of queries over 20,000 segments an obstacle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/detect.h"
#include "../core/contact/detect_edge.h"
#include "../core/contact/detect_form.h"
/* the obstacle's queries that detect_obstacle_edge.h's functions make, counted (this file's
   copies of them: SIM_HD is static inline) */
static long queries;
#define sim_obstacle_query(o, p, c, n) (queries++, sim_obstacle_query(o, p, c, n))
#include "../core/contact/detect_obstacle_edge.h"
#undef sim_obstacle_query
#include "../core/contact/rows.h"
#include "check.h"
#include "detect_once.h"

#define R 1.0  /* the cylinder's radius */
#define A 0.25 /* the strip's half width across the axis */
#define NV 4

/* A strip of 4 vertices across the cylinder's axis (z): vertex 2 r + i at x = (2 i - 1) A, z =
   (2 r - 1) 0.1, on the cylinder of radius R (axis z through the origin) lifted by `lift`.
   Triangles (0, 1, 3), (0, 3, 2): edges (0, 1), (2, 3) and the diagonal (0, 3) cross the axis,
   (0, 2) and (1, 3) run along it. */
static void strip(double *x, int *tri, double lift) {
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 2; i++) {
      double *p = x + 3 * (2 * r + i);
      p[0] = (2 * i - 1) * A, p[1] = sqrt(R * R - A * A) + lift, p[2] = r ? 0.1 : -0.1;
    }
  const int t[6] = {0, 1, 3, 0, 3, 2};
  memcpy(tri, t, sizeof t);
}

static sim_detect_obstacle cylinder(void) {
  sim_detect_obstacle o = sim_default_detect_obstacle(SIM_OBS_CYLINDER);
  const double pos[3] = {0, 0, 0}, axis[3] = {0, 0, 1};
  o.shape.frame = sim_frame_from_axis(pos, axis);
  o.shape.radius = R;
  o.shape.half_height = 0; /* infinite */
  o.mu = 0.3;
  return o;
}

/* The edge contacts' fields against obstacle 0, the cylinder, with margin `margin`: each edge
   across the axis, (0, 1), (2, 3) and the diagonal (0, 3), has two, at min(1/4, margin / its
   length) either side of its middle (x = 0, its deepest point), the lower parameter first
   (source even); gap = the point's distance, n its radial direction, p on the surface; the row
   gives the gap; keys sorted. Returns the count of wrong fields. */
static int check_chords(const sim_detect_contacts *o, const double *x, double margin) {
  int bad = 0;
  for (int j = 0; j < o->n; j++) {
    const sim_contact *c = &o->c[j];
    if (c->kind != SIM_CONTACT_OBSTACLE_EDGE) continue;
    const int u = c->tri[0];
    bad += !(c->v < u) || c->tri[1] != -1 || c->w[1] != 0.0;
    const double *a = x + 3 * c->v, *b = x + 3 * u;
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double half = fmin(0.25, margin / sim_norm3(d));
    bad += fabs(c->w[0] - (c->source % 2 ? 0.5 + half : 0.5 - half)) > 1e-11;
    double q[3];
    for (int k = 0; k < 3; k++) q[k] = (1 - c->w[0]) * a[k] + c->w[0] * b[k];
    const double rho = sqrt(q[0] * q[0] + q[1] * q[1]);
    bad += fabs(c->gap - (rho - R)) > 1e-12;
    bad += fabs(c->n[0] - q[0] / rho) > 1e-12 || fabs(c->n[1] - q[1] / rho) > 1e-12;
    bad += fabs(c->p[0] - R * q[0] / rho) > 1e-12 || fabs(c->p[1] - R * q[1] / rho) > 1e-12;
    bad += fabs(c->mu - 0.3) > 0 || c->source / (2 * SIM_CONTACT_EDGE_SLOTS) != 0;
    double row[3];
    sim_rows_apply(c, 1, NULL, x, row); /* n . C x less n . p: the gap */
    bad += fabs(row[0] - sim_dot3(c->n, c->p) - c->gap) > 1e-12;
    if (j > 0) bad += sim_contact_key_cmp(&o->c[j - 1], c) >= 0;
  }
  return bad;
}

static void test_chords(void) {
  double x[3 * NV];
  int tri[6];
  strip(x, tri, 0.0);
  sim_detect_body b = {0, NV, 2, tri, 0.5, 1, NULL, 0};
  sim_detect_obstacle ob[2] = {cylinder(), sim_default_detect_obstacle(SIM_OBS_PLANE)};
  ob[1].shape.frame.pos[1] = 0.9; /* a floor just below the strip: no chord on a plane */
  sim_detect_scene s = {NV, x, NULL, NULL, 2, 0, 1, ob, NULL, &b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 0); /* off by default */
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], 2 * NV); /* the vertices, on both */
  p.obstacle_edges = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  /* the edges across the axis, two each; those along it lie on the surface (no dip), the plane
     has none */
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 6);
  CHECK_INT(check_chords(&o, x, p.margin), 0);
  const int uv[3][2] = {{0, 1}, {0, 3}, {2, 3}};
  int seen = 0;
  for (int j = 0; j < o.n; j++)
    for (int e = 0; e < 3; e++)
      seen += o.c[j].kind == SIM_CONTACT_OBSTACLE_EDGE && o.c[j].v == uv[e][0] &&
              o.c[j].tri[0] == uv[e][1];
  CHECK_INT(seen, 6);

  /* lifted so that the middles lie 5 cm out: the points within the margin; 20 cm out: none */
  const double chord = R - sqrt(R * R - A * A);
  ob[1].shape.frame.pos[1] = -5.0;
  strip(x, tri, chord + 0.05);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 6);
  CHECK_INT(check_chords(&o, x, p.margin), 0);
  strip(x, tri, chord + 0.2);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  /* inside_only: the chords 2.2 cm deep are kept, the vertices 1 cm out are not */
  strip(x, tri, 0.01);
  p.inside_only = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 6);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 6);
  p.inside_only = 0;

  /* a dip (the chord, 3.2 cm) less than SIM_DETECT_EDGE_DIP margins below the ends: none */
  strip(x, tri, 0.0);
  p.margin = 1.01 * chord / SIM_DETECT_EDGE_DIP;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 0);
  p.margin = 0.99 * chord / SIM_DETECT_EDGE_DIP; /* the points a quarter from the middle */
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 6);
  CHECK_INT(check_chords(&o, x, p.margin), 0);
  p.margin = 0.1;

  /* pinned: an edge of two pinned vertices has none; one with a free end keeps its contact */
  unsigned char pin[NV] = {1, 1, 0, 0};
  s.pinned = pin;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE_EDGE], 4);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], NV - 2);
  s.pinned = NULL;

  /* the bodies mask: a cylinder that touches no body has none */
  ob[0].bodies = 0;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  ob[0].bodies = SIM_DETECT_ALL;

  /* at_start with a step map that carries the strip 1 cm up (the cylinder sank 1 cm over the
     step): the same as the strip lifted 1 cm against a still one */
  ob[0].step.on = 1;
  for (int k = 0; k < 9; k++) ob[0].step.Q[k] = k % 4 == 0;
  ob[0].step.c[1] = 0.01;
  p.at_start = 1;
  sim_detect_contacts moved = {0};
  CHECK_INT(detect_once(&s, &p, &moved), SIM_OK);
  CHECK_INT(moved.count[SIM_CONTACT_OBSTACLE_EDGE], 6);
  ob[0].step.on = 0;
  p.at_start = 0;
  strip(x, tri, 0.01);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  int same = o.n == moved.n;
  for (int j = 0; same && j < o.n; j++)
    same = o.c[j].kind == moved.c[j].kind && o.c[j].source == moved.c[j].source &&
           fabs(o.c[j].gap - moved.c[j].gap) < 1e-12 && fabs(o.c[j].w[0] - moved.c[j].w[0]) < 1e-9;
  CHECK(same);
  sim_detect_contacts_free(&moved);
  sim_detect_contacts_free(&o);
}

/* phi's least along the edge from a to b by a dense scan refined by bisection of the slope's
   sign within the best sample's neighbours: the reference. */
static double scan_min(const sim_obstacle *o, const double *a, const double *b, double *at) {
  const int N = 20000;
  double best = INFINITY;
  int bi = 0;
  for (int i = 0; i <= N; i++) {
    const double t = (double)i / N, q[3] = {a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]),
                                            a[2] + t * (b[2] - a[2])};
    const double f = sim_obstacle_phi(o, q);
    if (f < best) best = f, bi = i;
  }
  double lo = (bi > 0 ? bi - 1 : 0) / (double)N, hi = (bi < N ? bi + 1 : N) / (double)N;
  for (int k = 0; k < 200; k++) { /* golden section within the bracket */
    const double m1 = lo + 0.382 * (hi - lo), m2 = lo + 0.618 * (hi - lo);
    double q1[3], q2[3];
    for (int d = 0; d < 3; d++)
      q1[d] = a[d] + m1 * (b[d] - a[d]), q2[d] = a[d] + m2 * (b[d] - a[d]);
    if (sim_obstacle_phi(o, q1) < sim_obstacle_phi(o, q2))
      hi = m2;
    else
      lo = m1;
  }
  *at = 0.5 * (lo + hi);
  const double q[3] = {a[0] + *at * (b[0] - a[0]), a[1] + *at * (b[1] - a[1]),
                       a[2] + *at * (b[2] - a[2])};
  return sim_obstacle_phi(o, q);
}

/* Each obstacle type against a crumpled strip laid over it: every contact's point lies beside
   the deepest point that a dense scan of its edge finds, its gap there; every edge the scan
   finds dipping inside the margin (its minimum inside, more than the dip below both ends) has
   a contact. */
static void test_shapes(void) {
  enum { COLS = 9, N = 2 * COLS };
  double x[3 * N];
  int tri[6 * (COLS - 1)];
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < COLS; i++) {
      double *p = x + 3 * (COLS * r + i);
      const double u = (i - (COLS - 1) / 2.0) * 0.15;
      p[0] = u + 0.01 * sin(7.0 * i + r), p[2] = (r ? 0.08 : -0.08) + 0.01 * cos(5.0 * i);
      p[1] = sqrt(fmax(0.0, 0.81 - u * u)) + 0.004 * sin(3.0 * i + 2 * r) - 0.004;
    }
  for (int i = 0; i + 1 < COLS; i++) {
    const int t[6] = {i, i + 1, COLS + i + 1, i, COLS + i + 1, COLS + i};
    memcpy(tri + 6 * i, t, sizeof t);
  }
  sim_detect_body b = {0, N, 2 * (COLS - 1), tri, 0.5, 1, NULL, 0};
  const sim_obstacle_kind kinds[4] = {SIM_OBS_SPHERE, SIM_OBS_BOX, SIM_OBS_CAPSULE, SIM_OBS_TORUS};
  for (int k = 0; k < 4; k++) {
    sim_detect_obstacle ob = sim_default_detect_obstacle(kinds[k]);
    const double pos[3] = {0.02, 0, 0.01}, axis[3] = {0.1, 0.2, 1.0};
    ob.shape.frame = sim_frame_from_axis(pos, axis);
    ob.shape.radius = 0.9;
    ob.shape.half_height = 0.3;
    ob.shape.half[0] = ob.shape.half[1] = ob.shape.half[2] = 0.9;
    if (kinds[k] == SIM_OBS_TORUS) { /* its ring in the x-y plane, its top under the strip's */
      const double tp[3] = {0.02, 0.9 + 0.005 - 1.9, 0.01}, tz[3] = {0, 0, 1};
      ob.shape.frame = sim_frame_from_axis(tp, tz);
      ob.shape.major = 1.4, ob.shape.radius = 0.5;
    }
    if (kinds[k] == SIM_OBS_BOX) { /* turned 45 degrees about z: its ridge along z, at x = 0,
                                      1 cm above the strip's top */
      const double c = sqrt(0.5), rot[9] = {c, -c, 0, c, c, 0, 0, 0, 1};
      memcpy(ob.shape.frame.rot, rot, sizeof rot);
      ob.shape.half[0] = ob.shape.half[1] = ob.shape.half[2] = 0.3;
      ob.shape.frame.pos[0] = 0.01, ob.shape.frame.pos[1] = 0.9 + 0.01 - 0.3 * sqrt(2.0);
      ob.shape.frame.pos[2] = 0.0;
    }
    sim_detect_scene s = {N, x, NULL, NULL, 1, 0, 1, &ob, NULL, &b};
    sim_detect_params p = sim_default_detect_params();
    p.margin = 0.02;
    p.obstacle_edges = 1;
    sim_detect_contacts o = {0};
    CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
    int bad = 0, found = 0, want = 0;
    for (int j = 0; j < o.n; j++) {
      const sim_contact *c = &o.c[j];
      if (c->kind != SIM_CONTACT_OBSTACLE_EDGE) continue;
      found++;
      /* a point min(1/4, margin / length) before (source even) or after the deepest */
      const double *ea = x + 3 * c->v, *eb = x + 3 * c->tri[0];
      const double d[3] = {eb[0] - ea[0], eb[1] - ea[1], eb[2] - ea[2]};
      double at;
      scan_min(&ob.shape, ea, eb, &at);
      const double half = fmin(0.25, p.margin / sim_norm3(d));
      bad += fabs(c->w[0] - (c->source % 2 ? at + half : at - half)) > 1e-5;
      const double q[3] = {ea[0] + c->w[0] * d[0], ea[1] + c->w[0] * d[1], ea[2] + c->w[0] * d[2]};
      bad += fabs(c->gap - sim_obstacle_phi(&ob.shape, q)) > 1e-12;
      double row[3];
      sim_rows_apply(c, 1, NULL, x, row);
      bad += fabs(row[0] - sim_dot3(c->n, c->p) - c->gap) > 1e-12;
    }
    /* the edges the scan says dip: the strip's edges, each from its lower vertex */
    for (int t = 0; t < 2 * (COLS - 1); t++)
      for (int e = 0; e < 3; e++) {
        int va = tri[3 * t + e], vb = tri[3 * t + (e + 1) % 3];
        if (va > vb) {
          const int w = va;
          va = vb, vb = w;
        }
        int dup = 0; /* an edge of two triangles: once */
        for (int t2 = 0; t2 < t && !dup; t2++)
          for (int e2 = 0; e2 < 3; e2++) {
            const int a2 = tri[3 * t2 + e2], b2 = tri[3 * t2 + (e2 + 1) % 3];
            dup |= (a2 == va && b2 == vb) || (a2 == vb && b2 == va);
          }
        if (dup) continue;
        double at;
        const double ref = scan_min(&ob.shape, x + 3 * va, x + 3 * vb, &at);
        const double pa = sim_obstacle_phi(&ob.shape, x + 3 * va);
        const double pb = sim_obstacle_phi(&ob.shape, x + 3 * vb);
        const double dip = SIM_DETECT_EDGE_DIP * p.margin;
        /* clear of the thresholds (the scan's own rounding), then it must be found */
        if (ref < p.margin - 1e-6 && pa - ref > dip + 1e-6 && pb - ref > dip + 1e-6 && at > 1e-4 &&
            at < 1 - 1e-4) {
          want++;
          int has = 0;
          for (int j = 0; j < o.n; j++)
            has |=
                o.c[j].kind == SIM_CONTACT_OBSTACLE_EDGE && o.c[j].v == va && o.c[j].tri[0] == vb;
          bad += !has;
        }
      }
    printf("# %s: %d edge contacts, %d edges dip by the scan\n",
           kinds[k] == SIM_OBS_SPHERE    ? "sphere"
           : kinds[k] == SIM_OBS_BOX     ? "box"
           : kinds[k] == SIM_OBS_CAPSULE ? "capsule"
                                         : "torus",
           found, want);
    CHECK_INT(bad, 0);
    CHECK(want > 0);
    CHECK(found >= want);
    sim_detect_contacts_free(&o);
  }
}

/* sim_detect_edge_deepest against `count` random segments through and beside each convex
   obstacle (its slope, n . d, then rises along the segment): where the slope is < 0 at the
   start and > 0 at the end, s in (0, 1) with the slope <= 0 at s - 2^-36 and >= 0 at s + 2^-36,
   in at most 2 SIM_DETECT_EDGE_HALVINGS queries; elsewhere -1; on a plane always -1 (phi is
   linear along a segment). With `print`, the mean and largest counts of queries, of all the
   searches and of those whose least point is outside the obstacle (a contact's case). */
static void test_deepest(int count, int print) {
  const sim_obstacle_kind kinds[5] = {SIM_OBS_SPHERE, SIM_OBS_CAPSULE, SIM_OBS_CYLINDER,
                                      SIM_OBS_BOX, SIM_OBS_PLANE};
  const char *names[5] = {"sphere", "capsule", "cylinder", "box", "plane"};
  unsigned r = 12345u;
  for (int k = 0; k < 5; k++) {
    sim_detect_obstacle ob = sim_default_detect_obstacle(kinds[k]);
    const double pos[3] = {0.1, -0.2, 0.05}, axis[3] = {0.3, 1.0, -0.2};
    ob.shape.frame = sim_frame_from_axis(pos, axis);
    ob.shape.radius = 0.6, ob.shape.half_height = 0.4;
    ob.shape.half[0] = 0.5, ob.shape.half[1] = 0.3, ob.shape.half[2] = 0.7;
    int bad = 0, n[2] = {0, 0}; /* all the searches, those outside */
    long sum[2] = {0, 0}, most[2] = {0, 0};
    for (int t = 0; t < count; t++) {
      double a[3], d[3], c[3], na[3], nb[3];
      for (int i = 0; i < 3; i++) {
        r = r * 1664525u + 1013904223u;
        a[i] = pos[i] + 2.4 * ((r >> 8) / 16777216.0 - 0.5);
        r = r * 1664525u + 1013904223u;
        d[i] = pos[i] + 2.4 * ((r >> 8) / 16777216.0 - 0.5) - a[i];
      }
      const double b[3] = {a[0] + d[0], a[1] + d[1], a[2] + d[2]};
      sim_obstacle_query(&ob.shape, a, c, na);
      sim_obstacle_query(&ob.shape, b, c, nb);
      const long before = queries;
      const double s = sim_detect_edge_deepest(&ob.shape, a, d, na, nb);
      const long used = queries - before;
      if (!(sim_dot3(na, d) < 0.0 && sim_dot3(nb, d) > 0.0)) {
        bad += s != -1.0 || used != 0;
        continue;
      }
      const double h = 0x1p-36, q[3] = {a[0] + s * d[0], a[1] + s * d[1], a[2] + s * d[2]};
      bad += !(s > 0.0 && s < 1.0) || !(sim_detect_edge_slope(&ob.shape, a, d, s - h) <= 0.0) ||
             !(sim_detect_edge_slope(&ob.shape, a, d, s + h) >= 0.0) ||
             used > 2 * SIM_DETECT_EDGE_HALVINGS;
      for (int w = 0; w < 1 + (sim_obstacle_phi(&ob.shape, q) > 0.0); w++) {
        n[w]++, sum[w] += used;
        most[w] = used > most[w] ? used : most[w];
      }
    }
    if (print)
      printf(
          "# %s: %d of %d segments bracket a least point, %.1f queries a search (at most %ld);"
          " %d outside the obstacle, %.1f (at most %ld)\n",
          names[k], n[0], count, n[0] ? (double)sum[0] / n[0] : 0.0, most[0], n[1],
          n[1] ? (double)sum[1] / n[1] : 0.0, most[1]);
    CHECK_INT(bad, 0);
    CHECK(kinds[k] == SIM_OBS_PLANE ? n[0] == 0 : n[0] > count / 10 && n[1] > count / 20);
  }
}

int main(void) {
  const int bench = getenv("SIMCTL_BENCH_EDGE_SEARCH") != NULL;
  test_deepest(bench ? 20000 : 2000, 1);
  test_chords();
  test_shapes();
  return check_summary("test_detect_obstacle_edge");
}

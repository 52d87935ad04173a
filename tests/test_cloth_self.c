/* SPDX-License-Identifier: MIT */
/* A cloth against itself (contact.self_collision, core/contact/detect.h): a towel folded in
   two on a table. Its far edge is pinned to the table; its near edge is pinned and turned
   180 degrees about the fold line (a pin's rolling script) and laid 5 cm above the far edge,
   so the near half comes down onto the far half. With self-collision the upper layer stays on
   the lower one, at least min_separation above it at every step; without it the upper layer
   falls through the lower one to the table (the check fails there, which shows it can).
   Every 25th step the cloth's triangle sides are tested against its triangles: none passes
   through one with self-collision, some without. The same for a cloth dropped on its edge,
   which rolls over onto itself (scenes/cloth_pile.json, coarser).
   Prints its measured figures. */
#include <math.h>
#include <stdio.h>

#include "contact_run.h"

#define MIN_SEP 0.004

/* The lowest height of a vertex of the upper half (rest x > 0) over the triangle of the lower
   half (rest x < 0) under it, seen along y; +INFINITY where none lies under another. */
static double upper_over_lower(const run *r) {
  const sim_model *m = &r->c.m;
  const double *q = r->q, *X = m->x_rest;
  double low = INFINITY;
  for (int i = 0; i < m->n; i++) {
    if (!(X[3 * i] > 0.025)) continue;
    const double *p = q + 3 * i;
    for (int t = 0; t < m->ntri; t++) {
      const int *v = m->tri + 3 * t;
      if (!(X[3 * v[0]] < -0.025 && X[3 * v[1]] < -0.025 && X[3 * v[2]] < -0.025)) continue;
      double h;
      if (!over_triangle(p, q + 3 * v[0], q + 3 * v[1], q + 3 * v[2], &h)) continue;
      low = fmin(low, h);
      break;
    }
  }
  return low;
}

/* Whether segment pq passes through triangle abc (Moller-Trumbore, open on both). */
static int crosses(const double *p, const double *q, const double *a, const double *b,
                   const double *c) {
  double d[3], e1[3], e2[3], h[3], s[3], k[3];
  for (int i = 0; i < 3; i++) d[i] = q[i] - p[i], e1[i] = b[i] - a[i], e2[i] = c[i] - a[i];
  sim_cross3(d, e2, h);
  const double det = sim_dot3(e1, h);
  if (fabs(det) < 1e-18) return 0;
  for (int i = 0; i < 3; i++) s[i] = p[i] - a[i];
  const double u = sim_dot3(s, h) / det;
  if (u <= 0 || u >= 1) return 0;
  sim_cross3(s, e1, k);
  const double v = sim_dot3(d, k) / det, t = sim_dot3(e2, k) / det;
  return v > 0 && u + v < 1 && t > 0 && t < 1;
}

/* The cloth's triangle sides that pass through one of its triangles sharing no vertex with
   them (an inner edge, a side of two triangles, counts twice). */
static int crossing_edges(const run *r) {
  const sim_model *m = &r->c.m;
  const double *q = r->q;
  int n = 0;
  for (int t = 0; t < m->ntri; t++)
    for (int j = 0; j < 3; j++) {
      const int a = m->tri[3 * t + j], b = m->tri[3 * t + (j + 1) % 3];
      for (int u = 0; u < m->ntri; u++) {
        const int *w = m->tri + 3 * u;
        if (w[0] == a || w[1] == a || w[2] == a || w[0] == b || w[1] == b || w[2] == b) continue;
        int apart = 0; /* the side's box and the triangle's apart on some axis */
        for (int k = 0; k < 3 && !apart; k++) {
          const double s0 = fmin(q[3 * a + k], q[3 * b + k]), s1 = fmax(q[3 * a + k], q[3 * b + k]);
          const double t0 = fmin(q[3 * w[0] + k], fmin(q[3 * w[1] + k], q[3 * w[2] + k])),
                       t1 = fmax(q[3 * w[0] + k], fmax(q[3 * w[1] + k], q[3 * w[2] + k]));
          apart = s1 < t0 || t1 < s0;
        }
        if (apart) continue;
        if (crosses(q + 3 * a, q + 3 * b, q + 3 * w[0], q + 3 * w[1], q + 3 * w[2])) {
          n++;
          break;
        }
      }
    }
  return n;
}

/* Runs the fold for 3 s (the turn takes 2) and returns the lowest height of the upper layer
   over the lower one over its steps, or NAN where the run failed. */
static double fold(int self, int *over, int *most, int *crossed) {
  run r;
  if (run_open(&r, json("{'name': 'towel', 'solver': {'dt': 0.01, 'lg_iterations': 5,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'towel', 'mesh': {'type': 'cloth',"
                        "   'size': [1, 0.4], 'vertices': [21, 9]},"
                        "   'transform': {'translate': [0, 0.005, 0]},"
                        "   'material': {'model': 'neo_hookean', 'density': 300,"
                        "   'thickness': 0.001, 'youngs_modulus': 1e6, 'poisson_ratio': 0.3},"
                        "   'bending': {'type': 'isometric', 'stiffness': 1e-4}}],"
                        " 'pins': [{'body': 0, 'box': [0.49, -0.1, -0.3, 0.51, 0.1, 0.3],"
                        "   'script': [{'type': 'rolling', 'axis': [0, 0, 1],"
                        "   'center': [0, 0.03, 0], 'speed': 90, 'angle': 180}]},"
                        "  {'body': 0, 'box': [-0.51, -0.1, -0.3, -0.49, 0.1, 0.3]}],"
                        " 'obstacles': [{'name': 'table', 'type': 'plane', 'point': [0, 0, 0],"
                        "   'normal': [0, 1, 0], 'mu': 0.5}],"
                        " 'contact': {'margin': 0.015, 'min_separation': %g,"
                        "   'self_collision': %s, 'mu': 0.3}, 'output': {'formats': []}}",
                        MIN_SEP, self ? "true" : "false")))
    return NAN;
  double low = INFINITY;
  *over = 0, *most = 0, *crossed = 0;
  for (int s = 0; s < 300; s++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    const double h = upper_over_lower(&r);
    if (h < INFINITY) (*over)++;
    low = fmin(low, h);
    *most = r.max_contacts;
    if (s % 25 == 24) {
      const int c = crossing_edges(&r);
      if (c > *crossed) *crossed = c;
    }
  }
  const double out = r.ok ? low : NAN;
  printf(
      "  self_collision %s: the upper layer over the lower in %d of 300 steps, at least %.4g m"
      " above it (min_separation %g); at most %d contacts a step; min gap %.3g m; at most %d"
      " triangle sides through the cloth (every 25th step)\n",
      self ? "on" : "off", *over, low, MIN_SEP, *most, r.min_gap, *crossed);
  if (self) CHECK(r.min_gap >= -1e-4);
  /* the last step's contacts by kind (summary.json's contacts_max_by_kind): the table's, and
     the towel's own ones as self-contacts, none as another body's */
  int k[SIM_WORLD_KINDS], sum = 0;
  sim_world_kind_counts(&r.c.s.world, k);
  for (int i = 0; i < SIM_WORLD_KINDS; i++) sum += k[i];
  printf("  the last step's contacts: %d, %d against the table, %d self\n", sum,
         k[SIM_CONTACT_OBSTACLE], k[SIM_WORLD_SELF]);
  CHECK(sum == r.c.s.world.out.n && k[SIM_CONTACT_OBSTACLE] > 0 && k[SIM_CONTACT_BODY] == 0);
  CHECK(self ? k[SIM_WORLD_SELF] > 0 : k[SIM_WORLD_SELF] == 0);
  run_close(&r);
  return out;
}

/* A cloth dropped on its edge onto a floor (scenes/cloth_pile.json at 16 x 16 vertices): it
   buckles and rolls over onto itself, its layers meeting at angles. Returns the most
   triangle sides through the cloth over every 25th step of 150, or -1 where the run failed. */
static int pile(int self) {
  run r;
  if (run_open(&r, json("{'name': 'pile', 'solver': {'dt': 0.01, 'lg_iterations': 5,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'cloth', 'mesh': {'type': 'cloth',"
                        "   'size': [0.6, 0.6], 'vertices': [16, 16]},"
                        "   'transform': {'rotate': [80, 0, 0], 'translate': [0, 0.35, 0]},"
                        "   'material': {'model': 'neo_hookean', 'density': 300,"
                        "   'thickness': 0.001, 'youngs_modulus': 1e6, 'poisson_ratio': 0.3},"
                        "   'bending': {'type': 'isometric', 'stiffness': 1e-4}}],"
                        " 'obstacles': [{'name': 'floor', 'type': 'plane', 'point': [0, 0, 0],"
                        "   'normal': [0, 1, 0], 'mu': 0.5}],"
                        " 'contact': {'margin': 0.01, 'min_separation': 0.002,"
                        "   'self_collision': %s, 'mu': 0.3}, 'output': {'formats': []}}",
                        self ? "true" : "false")))
    return -1;
  int most = 0;
  for (int s = 0; s < 150; s++) {
    if (run_steps(&r, 1)) break;
    if (s % 25 == 24) {
      run_fetch(&r);
      const int c = crossing_edges(&r);
      if (c > most) most = c;
    }
  }
  const int out = r.ok ? most : -1;
  printf(
      "  a cloth dropped on its edge, self_collision %s: at most %d triangle sides through it"
      " (every 25th step of 150); min gap %.3g m\n",
      self ? "on" : "off", most, r.min_gap);
  run_close(&r);
  return out;
}

int main(void) {
  printf("a towel folded onto itself\n");
  int over_on, most_on, cross_on, over_off, most_off, cross_off;
  const double on = fold(1, &over_on, &most_on, &cross_on),
               off = fold(0, &over_off, &most_off, &cross_off);
  CHECK(over_on > 100 && over_off > 100); /* the layers overlap for most of the run */
  CHECK(on >= 0.9 * MIN_SEP);             /* held on the lower layer */
  CHECK(off < 0);                         /* through it */
  CHECK(most_on > most_off);              /* the self-contacts */
  CHECK(cross_on == 0 && cross_off > 0);  /* no side through the cloth, and some without */
  const int pile_on = pile(1), pile_off = pile(0);
  CHECK(pile_on == 0 && pile_off > 0); /* held where the layers meet at angles too */
  return check_summary("test_cloth_self");
}

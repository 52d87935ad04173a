/* SPDX-License-Identifier: MIT */
/* Edge-edge contact (contact.edge_edge, core/contact/detect_edge.h) in a run: two bodies
   crossed at right angles, the lower pinned at its ends, the upper dropped across it, each
   meshed so coarsely that no vertex of either comes over the other: they can meet only edge
   to edge. Two cloth ribbons (scenes/crossed_ribbons.json) and two solid bars (tet grids); the
   ribbon dropped from 60 cm with a margin of 5 mm, whose edges pass the other's within a step
   (held by the prediction pass's sweep).
   With edge-edge contact the upper body rests on the lower, at least half min_separation
   above it where they cross at every step, held by edge contacts alone (no vertex-triangle
   contact in any step); without it the upper one falls through (the check fails there, which
   shows it can). The height is the one scripts/crossing_heights.py measures: the upper edge's
   over the lower's where their projections on x-z cross, the crossing nearest in height. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/contact/world.h"
#include "contact_run.h"

#define MIN_SEP 0.003

/* The height of body 1 over body 0 where an edge of each cross seen from above, the least in
   magnitude (0 bodies' edges: NAN where none cross). */
static double nearest_crossing(const run *r) {
  const sim_model *m = &r->c.m;
  const double *q = r->q;
  double near = NAN;
  for (int tu = 0; tu < m->ntri; tu++) {
    if (m->tri_body[tu] != 1) continue;
    for (int tl = 0; tl < m->ntri; tl++) {
      if (m->tri_body[tl] != 0) continue;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          const double *p = q + 3 * m->tri[3 * tu + i], *e = q + 3 * m->tri[3 * tu + (i + 1) % 3];
          const double *a = q + 3 * m->tri[3 * tl + j], *b = q + 3 * m->tri[3 * tl + (j + 1) % 3];
          const double ux = e[0] - p[0], uz = e[2] - p[2], vx = b[0] - a[0], vz = b[2] - a[2];
          const double den = ux * vz - uz * vx;
          if (fabs(den) < 1e-14) continue;
          const double wx = a[0] - p[0], wz = a[2] - p[2];
          const double t = (wx * vz - wz * vx) / den, u = (wx * uz - wz * ux) / den;
          if (!(t > 0 && t < 1 && u > 0 && u < 1)) continue;
          const double h = (p[1] + t * (e[1] - p[1])) - (a[1] + u * (b[1] - a[1]));
          if (isnan(near) || fabs(h) < fabs(near)) near = h;
        }
    }
  }
  return near;
}

/* steps steps of the scene; the lowest nearest crossing height once they touched (within 2
   min_separation), the last one, and whether a vertex-triangle contact ever arose. */
static void crossing(const char *what, const char *scene, int edges, int steps, double *low,
                     double *last, int *vertex_tri) {
  run r;
  *low = INFINITY, *last = NAN, *vertex_tri = 0;
  if (run_open(&r, json(scene, edges ? "true" : "false"))) return;
  int touched = 0, edge_most = 0;
  for (int s = 0; s < steps; s++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    *last = nearest_crossing(&r);
    touched |= *last < 2 * MIN_SEP;
    if (touched) *low = fmin(*low, *last);
    int k[SIM_WORLD_KINDS];
    sim_world_kind_counts(&r.c.s.world, k);
    *vertex_tri += k[SIM_CONTACT_BODY] + k[SIM_WORLD_SELF];
    CHECK_INT(k[SIM_WORLD_SELF_EDGE], 0); /* every pair between the two bodies */
    if (k[SIM_CONTACT_EDGE] > edge_most) edge_most = k[SIM_CONTACT_EDGE];
  }
  printf(
      "  %s, edge_edge %s: nearest crossing height lowest %.4g m once touching, %.4g m at "
      "step %d (min_separation %g); at most %d edge contacts a step, %d vertex-triangle\n",
      what, edges ? "on" : "off", *low, *last, steps, MIN_SEP, edge_most, *vertex_tri);
  if (edges) CHECK(edge_most > 0);
  run_close(&r);
}

static void check_both(const char *what, const char *scene, int steps) {
  double low, last;
  int vt;
  crossing(what, scene, 1, steps, &low, &last, &vt);
  if (!strcmp(what, "ribbons dropped from 60 cm")) { /* met over a step, ends too far apart */
    CHECK(low >= 0.5 * MIN_SEP && low < 2 * MIN_SEP && last > 0);
    return;
  }
  CHECK(low >= 0.5 * MIN_SEP && low < 2 * MIN_SEP); /* it landed and stayed on */
  CHECK(last > 0);
  CHECK_INT(vt, 0); /* edges alone held it */
  crossing(what, scene, 0, steps, &low, &last, &vt);
  CHECK(last < -MIN_SEP); /* through */
}

#define RIBBONS(MARGIN, HEIGHT)                                                 \
  "{'name': 'ribbons', 'solver': {'dt': 0.01, 'lg_iterations': 5,"              \
  " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"                           \
  " 'bodies': [{'name': 'lower', 'mesh': {'type': 'cloth', 'size': [1, 0.04],"  \
  "   'vertices': [11, 2]}, 'transform': {'translate': [0, 0, 0.05]},"          \
  "   'material': {'model': 'neo_hookean', 'density': 300, 'thickness': 0.001," \
  "   'youngs_modulus': 1e6, 'poisson_ratio': 0.3}},"                           \
  "  {'name': 'upper', 'mesh': {'type': 'cloth', 'size': [0.04, 1],"            \
  "   'vertices': [2, 11]}, 'transform': {'translate': [0.05, " HEIGHT          \
  ", 0]},"                                                                      \
  "   'material': {'model': 'neo_hookean', 'density': 300, 'thickness': 0.001," \
  "   'youngs_modulus': 1e6, 'poisson_ratio': 0.3}}],"                          \
  " 'pins': [{'body': 0, 'box': [-0.51, -0.1, -0.3, -0.49, 0.1, 0.3]},"         \
  "  {'body': 0, 'box': [0.49, -0.1, -0.3, 0.51, 0.1, 0.3]}],"                  \
  " 'contact': {'margin': " MARGIN                                              \
  ", 'min_separation': 0.003, 'mu': 0.3,"                                       \
  "   'edge_edge': %s}, 'output': {'formats': []}}"

static void test_ribbons(void) {
  check_both("ribbons", RIBBONS("0.02", "0.03"), 40);
  /* dropped from 60 cm, margin 5 mm: the upper one comes down 3.4 cm in its last step before
     the lower, its edges farther than the margin at both ends; the prediction pass's sweep
     holds them (without it the ribbon went through: -1.14 m after 60 steps, 2026-12-05) */
  check_both("ribbons dropped from 60 cm", RIBBONS("0.005", "0.6"), 60);
}

static void test_bars(void) {
  check_both("bars",
             "{'name': 'bars', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
             " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
             " 'bodies': [{'name': 'lower', 'mesh': {'type': 'bar', 'lo': [-0.5, -0.02, -0.02],"
             "   'hi': [0.5, 0.02, 0.02], 'vertices': [6, 2, 2]},"
             "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 1e6,"
             "   'poisson_ratio': 0.3}},"
             "  {'name': 'upper', 'mesh': {'type': 'bar', 'lo': [-0.02, 0.03, -0.5],"
             "   'hi': [0.02, 0.07, 0.5], 'vertices': [2, 2, 6]},"
             "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 1e6,"
             "   'poisson_ratio': 0.3}}],"
             " 'pins': [{'body': 0, 'box': [-0.51, -0.1, -0.1, -0.49, 0.1, 0.1]},"
             "  {'body': 0, 'box': [0.49, -0.1, -0.1, 0.51, 0.1, 0.1]}],"
             " 'contact': {'margin': 0.02, 'min_separation': 0.003, 'mu': 0.3,"
             "   'edge_edge': %s}, 'output': {'formats': []}}",
             30);
}

/* A towel folded onto itself with self-collision (test_cloth_self's, coarser and turned four
   times as fast): its pairs of edges are its own (summary.json's self_edge), none another
   body's. */
static void test_self_pairs(void) {
  run r;
  if (run_open(&r, json("{'name': 'towel', 'solver': {'dt': 0.01, 'lg_iterations': 5,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'towel', 'mesh': {'type': 'cloth',"
                        "   'size': [0.5, 0.2], 'vertices': [11, 5]},"
                        "   'transform': {'translate': [0, 0.005, 0]},"
                        "   'material': {'model': 'neo_hookean', 'density': 300,"
                        "   'thickness': 0.001, 'youngs_modulus': 1e6, 'poisson_ratio': 0.3},"
                        "   'bending': {'type': 'isometric', 'stiffness': 1e-4}}],"
                        " 'pins': [{'body': 0, 'box': [0.24, -0.1, -0.2, 0.26, 0.1, 0.2],"
                        "   'script': [{'type': 'rolling', 'axis': [0, 0, 1],"
                        "   'center': [0, 0.03, 0], 'speed': 360, 'angle': 180}]},"
                        "  {'body': 0, 'box': [-0.26, -0.1, -0.2, -0.24, 0.1, 0.2]}],"
                        " 'obstacles': [{'name': 'table', 'type': 'plane', 'point': [0, 0, 0],"
                        "   'normal': [0, 1, 0], 'mu': 0.5}],"
                        " 'contact': {'margin': 0.015, 'min_separation': 0.004,"
                        "   'self_collision': true, 'edge_edge': true, 'mu': 0.3},"
                        " 'output': {'formats': []}}")))
    return;
  int own = 0, other = 0;
  for (int s = 0; s < 80 && !run_steps(&r, 1); s++) {
    int k[SIM_WORLD_KINDS];
    sim_world_kind_counts(&r.c.s.world, k);
    own = k[SIM_WORLD_SELF_EDGE] > own ? k[SIM_WORLD_SELF_EDGE] : own;
    other += k[SIM_CONTACT_EDGE];
  }
  printf("  towel folded, 80 steps: at most %d pairs of its own edges a step, %d of another's\n",
         own, other);
  CHECK(own > 0);
  CHECK_INT(other, 0);
  run_close(&r);
}

int main(void) {
  test_ribbons();
  test_bars();
  test_self_pairs();
  return check_summary("test_edge_contact");
}

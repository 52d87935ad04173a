/* SPDX-License-Identifier: MIT */
/* A cloth against itself (contact.self_collision, core/contact/detect.h): a towel folded in
   two on a table. Its far edge is pinned to the table; its near edge is pinned and turned
   180 degrees about the fold line (a pin's rolling script) and laid 5 cm above the far edge,
   so the near half comes down onto the far half. With self-collision the upper layer stays on
   the lower one, at least min_separation above it at every step; without it the upper layer
   falls through the lower one to the table (the check fails there, which shows it can).
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

/* Runs the fold for 3 s (the turn takes 2) and returns the lowest height of the upper layer
   over the lower one over its steps, or NAN where the run failed. */
static double fold(int self, int *over, int *most) {
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
  *over = 0, *most = 0;
  for (int s = 0; s < 300; s++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    const double h = upper_over_lower(&r);
    if (h < INFINITY) (*over)++;
    low = fmin(low, h);
    *most = r.max_contacts;
  }
  const double out = r.ok ? low : NAN;
  printf(
      "  self_collision %s: the upper layer over the lower in %d of 300 steps, at least %.4g m"
      " above it (min_separation %g); at most %d contacts a step; min gap %.3g m\n",
      self ? "on" : "off", *over, low, MIN_SEP, *most, r.min_gap);
  if (self) CHECK(r.min_gap >= -1e-4);
  run_close(&r);
  return out;
}

int main(void) {
  printf("a towel folded onto itself\n");
  int over_on, most_on, over_off, most_off;
  const double on = fold(1, &over_on, &most_on), off = fold(0, &over_off, &most_off);
  CHECK(over_on > 100 && over_off > 100); /* the layers overlap for most of the run */
  CHECK(on >= 0.9 * MIN_SEP);             /* held on the lower layer */
  CHECK(off < 0);                         /* through it */
  CHECK(most_on > most_off);              /* the self-contacts */
  return check_summary("test_cloth_self");
}

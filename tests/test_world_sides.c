/* SPDX-License-Identifier: MIT */
/* The q_t pass's side memory of open surfaces (core/contact/world.c remember_sides, detect.h
   sim_detect_params.sides), step by step through sim_world_detect with positions set by hand:
   one vertex of a small bar against a single-triangle blade (the triangle (0,0,0), (1,0,0),
   (0,1,0), margin 2 cm), every other vertex far away.
   - Round the edge: the prediction finds the vertex just past the blade's long edge, where
     its contact's normal lies almost in the blade's plane, turned to face q_t's side, and its
     gap at q~ is negative. The next step starts with the vertex 1 cm in front of the face, on
     the side it came from, without having crossed the blade. It must be found there (gap
     +1 cm). With the memory's `behind` taken from the prediction's gap, it was turned to the
     blade's back (gap -1 cm) and the step pushed it through the blade (cloth_on_knives, frame
     92: 2 cm).
   - Round the edge, then through the face: the same prediction, then the next step starts
     1 cm behind the face, having gone through it: found on the front's side (gap -1 cm),
     from the triangle it went through, not from the remembered edge normal's small tilt.
   - Crossed: a vertex held in front of the face at one step's start and behind it at the
     next (through the triangle) keeps its side (gap -1 cm), and keeps it at the step after,
     still behind, although it did not cross again (the q_t pass's own negative gap).
   - Predicted to cross: a contact found at q~ behind the face faces q_t's side; held in front,
     the vertex is found in front; pushed through anyway, it is found behind (crossed).
   Every check prints its figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "contact/world.h"
#include "contact_run.h"

static const char *blade_scene(void) {
  return json("{'name': 'blade', 'solver': {'dt': 0.01, 'lg_iterations': 2, 'global': 'cholesky'},"
              " 'gravity': [0, 0, 0],"
              " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [5, 5, 5],"
              "   'hi': [5.1, 5.1, 5.1], 'vertices': [2, 2, 2]},"
              "   'material': {'model': 'arap', 'density': 1000, 'youngs_modulus': 1e6,"
              "   'poisson_ratio': 0.3}}],"
              " 'contact': {'margin': 0.02},"
              " 'obstacles': [{'type': 'mesh', 'path': 'data/cli/triangle.obj',"
              "   'closed': false, 'mu': 0}], 'output': {'formats': []}}");
}

typedef struct fixture {
  run r;
  double *x, *x_prev, *x_pred; /* 3 n each: vertex 0 set by each step, the rest far away */
  int step;
} fixture;

static int open_fixture(fixture *f) {
  if (run_open(&f->r, blade_scene())) return -1;
  const int n = f->r.c.m.n;
  f->x = malloc(sizeof(double) * 3 * n);
  f->x_prev = malloc(sizeof(double) * 3 * n);
  f->x_pred = malloc(sizeof(double) * 3 * n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      f->x[3 * i + k] = f->x_prev[3 * i + k] = f->x_pred[3 * i + k] = 10.0 + i + k;
  f->step = 0;
  return 0;
}

static void close_fixture(fixture *f) {
  free(f->x), free(f->x_prev), free(f->x_pred);
  run_close(&f->r);
}

/* One step's detection: vertex 0 at x (q_t), x_prev (the step before's q_t; NULL at the first
   step) and x_pred (q~); its contact with the blade into *c. 1 when it has one. */
static int detect(fixture *f, const double x[3], const double x_prev[3], const double x_pred[3],
                  sim_contact *c) {
  sim_world *w = &f->r.c.s.world;
  for (int k = 0; k < 3; k++) f->x[k] = x[k], f->x_pred[k] = x_pred[k];
  if (x_prev)
    for (int k = 0; k < 3; k++) f->x_prev[k] = x_prev[k];
  sim_status st = {0};
  const double h = f->r.c.m.h;
  int rc = sim_world_detect(w, f->step * h, h, f->x, x_prev ? f->x_prev : NULL, f->x_pred, &st);
  f->step++;
  CHECK_INT(rc, SIM_OK);
  int found = 0;
  for (int j = 0; !rc && j < w->out.n; j++)
    if (w->out.c[j].v == 0 && w->out.c[j].kind == SIM_CONTACT_MESH) *c = w->out.c[j], found++;
  CHECK(found <= 1);
  if (found)
    printf("  step %d: contact n (%.4f, %.4f, %.4f), gap %.6g m\n", f->step, c->n[0], c->n[1],
           c->n[2], c->gap);
  else
    printf("  step %d: no contact\n", f->step);
  return found;
}

/* Past the long edge (x + y = 1) at q~, 4 cm above the face at q_t; 1 cm above it next. */
static void check_round_the_edge(void) {
  printf("round the edge\n");
  fixture f;
  if (open_fixture(&f)) return;
  const double s = sqrt(0.5);
  const double p0[3] = {0.45, 0.45, 0.04}, /* over the face, farther than the margin */
      q1[3] = {0.5 + 0.01 * s, 0.5 + 0.01 * s, 0.002}, /* past the edge, 1 cm from it */
      p1[3] = {0.45, 0.45, 0.01};                      /* over the face, not through it */
  sim_contact c;
  /* the premise: the prediction's contact, its normal almost in the plane and tilted to the
     face's back (-z), its gap at q~ negative */
  if (detect(&f, p0, NULL, q1, &c)) {
    CHECK(c.gap < 0);
    CHECK(c.n[2] < 0 && fabs(c.n[2]) < 0.3);
  } else {
    CHECK(!"the prediction's contact past the edge");
  }
  if (detect(&f, p1, p0, p1, &c)) {
    CHECK(c.n[2] > 1 - 1e-12);
    CHECK_NEAR(c.gap, 0.01, 1e-12);
  } else {
    CHECK(!"the contact in front of the face");
  }
  close_fixture(&f);
}

/* Past the long edge at q~, as above; the next step starts 1 cm behind the face, having gone
   through it from 4 cm in front: it must be found on the front's side (gap -1 cm). Its side was
   read from the remembered edge contact's normal, which lies almost in the blade's plane and
   tilts to the back: the vertex was taken as on the back, with no contact to push it back. */
static void check_edge_then_through(void) {
  printf("round the edge, then through the face\n");
  fixture f;
  if (open_fixture(&f)) return;
  const double s = sqrt(0.5);
  const double p0[3] = {0.45, 0.45, 0.04}, q1[3] = {0.5 + 0.01 * s, 0.5 + 0.01 * s, 0.002},
               p1[3] = {0.45, 0.45, -0.01};
  sim_contact c;
  CHECK(detect(&f, p0, NULL, q1, &c) && c.n[2] < 0 && fabs(c.n[2]) < 0.3);
  if (detect(&f, p1, p0, p1, &c)) {
    CHECK(c.n[2] > 1 - 1e-12);
    CHECK_NEAR(c.gap, -0.01, 1e-12);
  } else {
    CHECK(!"the contact behind the face");
  }
  close_fixture(&f);
}

/* In front at one step's start, behind at the next (crossed), still behind at the third. */
static void check_crossed(void) {
  printf("crossed\n");
  fixture f;
  if (open_fixture(&f)) return;
  const double a[3] = {0.3, 0.3, 0.01}, b[3] = {0.3, 0.3, -0.01}, e[3] = {0.3, 0.3, -0.012};
  sim_contact c;
  CHECK(detect(&f, a, NULL, a, &c) && c.n[2] > 1 - 1e-12 && fabs(c.gap - 0.01) < 1e-12);
  CHECK(detect(&f, b, a, b, &c) && c.n[2] > 1 - 1e-12 && fabs(c.gap + 0.01) < 1e-12);
  CHECK(detect(&f, e, b, e, &c) && c.n[2] > 1 - 1e-12 && fabs(c.gap + 0.012) < 1e-12);
  close_fixture(&f);
}

/* Found at q~ 5 mm behind the face from 3 cm in front; then held in front, or pushed through. */
static void check_predicted(void) {
  for (int through = 0; through < 2; through++) {
    printf("predicted to cross, %s\n", through ? "pushed through" : "held");
    fixture f;
    if (open_fixture(&f)) return;
    const double a[3] = {0.3, 0.3, 0.03}, q[3] = {0.3, 0.3, -0.005},
                 b[3] = {0.3, 0.3, through ? -0.008 : 0.012};
    sim_contact c;
    CHECK(detect(&f, a, NULL, q, &c) && c.n[2] > 1 - 1e-12 && fabs(c.gap + 0.005) < 1e-12);
    CHECK(detect(&f, b, a, b, &c) && c.n[2] > 1 - 1e-12 && fabs(c.gap - b[2]) < 1e-12);
    close_fixture(&f);
  }
}

int main(void) {
  check_round_the_edge();
  check_edge_then_through();
  check_crossed();
  check_predicted();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_world_sides");
}

/* SPDX-License-Identifier: MIT */
/* Re-detection at a step's end (contact.redetect; core/contact/world.h sim_world_redetect).
   Collision detection runs at the step's start, from q_t and from the inertial prediction q~;
   a vertex that neither sees within the margin but that the solve then carries into an
   obstacle is missed for the whole step. Here a stiff bar lies 2 cm above a floor (margin
   5 mm) and the pin at one end jumps 3 cm down in one step: the free vertices next to it are
   dragged through the floor although nothing was near it at the step's start.
   - redetect 0 (the paper: once per step): they end well below the floor, the miss;
   - redetect 1: the step's solution is checked, they get contacts, the L-G iterations run
     again, and every free vertex ends on the floor (to the solve's accuracy);
   - a step with nothing to add is bitwise the same with and without re-detection.
   Every test prints its measured figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "contact_run.h"

#define MARGIN 0.005

static const char *bar_scene(int redetect, double pin_drop, double y0) {
  return json(
      "{'name': 'drop', 'solver': {'dt': 0.01, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [0, 0, 0],"
      " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [0, %g, -0.01],"
      "   'hi': [0.2, %g, 0.01], 'vertices': [11, 2, 2]},"
      "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 1e7,"
      "   'poisson_ratio': 0.3}}],"
      " 'pins': [{'body': 0, 'box': [-0.001, 0, -0.1, 0.001, 0.1, 0.1],"
      "   'script': [{'type': 'pulling', 'direction': [0, -1, 0], 'speed': %.17g,"
      "   'length': %.17g}]}],"
      " 'contact': {'margin': %g, 'cr_iterations': 40, 'redetect': %d},"
      " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0]}],"
      " 'output': {'formats': []}}",
      y0, y0 + 0.02, pin_drop / 0.01, pin_drop, MARGIN, redetect);
}

/* lowest free vertex after the steps */
static double lowest_free(run *r) {
  const sim_model *m = &r->c.m;
  double lo = INFINITY;
  for (int i = 0; i < m->n; i++)
    if (m->free_of[i] >= 0) lo = fmin(lo, r->q[3 * i + 1]);
  return lo;
}

static void check_drop(void) {
  double lo[2] = {NAN, NAN};
  int added[2] = {0, 0};
  for (int rd = 0; rd < 2; rd++) {
    run r;
    if (run_open(&r, bar_scene(rd, 0.03, 0.02)) || run_steps(&r, 1)) return;
    run_fetch(&r);
    lo[rd] = lowest_free(&r);
    added[rd] = r.prof.redetected;
    printf("redetect %d: step 1 found %d contacts at its start, re-detection added %d; lowest "
           "free vertex y = %.3e m, %d L-G iterations\n",
           rd, r.prof.contacts - r.prof.redetected, r.prof.redetected, lo[rd],
           r.prof.lg_iterations);
    if (rd == 1) CHECK_INT(r.prof.lg_iterations, 20); /* 10, then 10 more with the contacts */
    run_close(&r);
  }
  CHECK_INT(added[0], 0);
  CHECK(added[1] > 0);
  CHECK(lo[0] < -MARGIN);   /* the miss */
  CHECK(lo[1] > -1e-4);     /* held on the floor */
}

/* The bar 2 mm above the floor (its bottom vertices in contact from the start) and a 1 mm pin
   drop: nothing new to add, and the same bits. */
static void check_nothing_added(void) {
  double *q[2] = {NULL, NULL};
  int n = 0;
  for (int rd = 0; rd < 2; rd++) {
    run r;
    if (run_open(&r, bar_scene(rd, 0.001, 0.002)) || run_steps(&r, 3)) return;
    run_fetch(&r);
    n = 3 * r.c.m.n;
    q[rd] = malloc(sizeof(double) * n);
    memcpy(q[rd], r.q, sizeof(double) * n);
    CHECK_INT(r.prof.redetected, 0);
    CHECK(r.prof.contacts > 0);
    run_close(&r);
  }
  CHECK(memcmp(q[0], q[1], sizeof(double) * n) == 0);
  printf("nothing to add: redetect 0 and 1 bitwise equal over 3 steps\n");
  free(q[0]), free(q[1]);
}

int main(void) {
  check_drop();
  check_nothing_added();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_redetect");
}

/* SPDX-License-Identifier: MIT */
/* The squeezing ball's short run (scenes/squeezing_ball.json at a coarse resolution): a soft
   Neo-Hookean ball (radius 1.5, E 1e4, 1000 kg) falls onto two pairs of rollers (radius 1,
   gap 1) spinning at 3 rad/s with mu 0.5, is dragged through both pairs by friction, and
   leaves them below. Checks that it gets through, that its volume once free (0.2 s after it
   left the rollers) stays within 2% of its rest volume, and that no vertex ends a step deeper
   in a roller than the margin. That last needs re-detection at the step's end (contact.redetect,
   default 3): with detection once per step (redetect 0, the paper) a vertex that bulges
   towards a roller by more than the margin within a step is constrained only from the next
   one, 1.6-2.2 cm deep on this ball. Prints the measured figures, and the re-detections. */
#include <math.h>
#include <stdio.h>

#include "contact_run.h"

#define MARGIN 0.01
#define NSTEPS 330

/* the four rollers: a point on the axis, the axis (unit), spin (rad/s); radius 1 */
static const double ROLLER[4][7] = {{0, -1, -1.5, 1, 0, 0, 3},
                                    {0, -1, 1.5, 1, 0, 0, -3},
                                    {-1.5, -3.5, 0, 0, 0, 1, -3},
                                    {1.5, -3.5, 0, 0, 0, 1, 3}};

static const char *squeeze_scene(void) {
  char obs[1024] = "";
  size_t len = 0;
  for (int k = 0; k < 4; k++) {
    const double *r = ROLLER[k];
    len += (size_t)snprintf(obs + len, sizeof obs - len,
                            "%s{'type': 'cylinder', 'point': [%g, %g, %g], 'axis': [%g, %g, %g],"
                            " 'radius': 1, 'spin': %g, 'mu': 0.5}",
                            k ? ", " : "", r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
  }
  return json("{'name': 'squeeze', 'solver': {'dt': 0.01, 'lg_iterations': 5,"
              " 'global': 'cholesky'}, 'gravity': [0, -10, 0],"
              " 'bodies': [{'name': 'ball', 'mesh': {'type': 'icosphere', 'radius': 1.5,"
              "   'subdivisions': 2, 'tetgen': {'quality': 1.5, 'max_volume': 0.05}},"
              "   'transform': {'translate': [0, 2.6, 0]},"
              "   'material': {'model': 'neo_hookean', 'mass': 1000, 'lumping': 'uniform',"
              "   'youngs_modulus': 1e4, 'poisson_ratio': 0.4}}],"
              " 'contact': {'margin': %g, 'max_force': 1e12}, 'obstacles': [%s],"
              " 'output': {'formats': []}}",
              MARGIN, obs);
}

/* Signed distance from x to the nearest roller (infinite cylinders). */
static double roller_distance(const double *x) {
  double best = INFINITY;
  for (int k = 0; k < 4; k++) {
    const double *p = ROLLER[k], *a = ROLLER[k] + 3;
    double d[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    double t = d[0] * a[0] + d[1] * a[1] + d[2] * a[2];
    double r = sqrt(fmax(0.0, d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - t * t));
    best = fmin(best, r - 1.0);
  }
  return best;
}

int main(void) {
  run r;
  if (run_open(&r, squeeze_scene())) return check_summary("test_contact_squeeze");
  const sim_model *m = &r.c.m;
  run_fetch(&r);
  double vol0 = sim_model_measure(m, r.q), c[3] = {0, 0, 0}, v[3];
  /* sim_model_inverted: none at rest; mirrored (x -> -x), every tetrahedron */
  int ntet = 0;
  for (int e = 0; e < m->nelem; e++) ntet += m->elems[e].dim == 3;
  CHECK_INT(sim_model_inverted(m, r.q), 0);
  for (int i = 0; i < m->n; i++) r.q[3 * i] = -r.q[3 * i];
  CHECK_INT(sim_model_inverted(m, r.q), ntet);
  run_fetch(&r);
  double worst = INFINITY, in_set = INFINITY, vmax = 0;
  long redetected = 0;
  int redetect_steps = 0;
  int free_from = -1, first_contact = -1, free_steps = 0;
  double vol_free_min = INFINITY, vol_free_max = -INFINITY, vol_squeezed = INFINITY;
  for (int s = 1; s <= NSTEPS && r.ok; s++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    for (int i = 0; i < m->n; i++) worst = fmin(worst, roller_distance(r.q + 3 * i));
    redetected += r.prof.redetected;
    redetect_steps += r.prof.redetected > 0;
    if (r.prof.contacts > 0) {
      in_set = fmin(in_set, r.prof.min_gap);
      if (first_contact < 0) first_contact = s;
      free_steps = 0;
    }
    body_mean(&r, r.q, 0, c);
    body_mean(&r, r.v, 0, v);
    vmax = fmax(vmax, -v[1]);
    double vol = sim_model_measure(m, r.q);
    if (r.prof.contacts > 0) vol_squeezed = fmin(vol_squeezed, vol);
    /* free: below the lower rollers and out of contact for 0.2 s (at release the coarse ball
       overshoots to +2.1% and then breathes, +-1.6% at 0.2 s, decaying) */
    if (first_contact > 0 && r.prof.contacts == 0 && c[1] < -4.5 && ++free_steps >= 20) {
      if (free_from < 0) free_from = s;
      vol_free_min = fmin(vol_free_min, vol);
      vol_free_max = fmax(vol_free_max, vol);
    }
  }
  if (!r.ok) return check_summary("test_contact_squeeze");
  printf("squeezing ball: %d vertices, first contact at step %d, free from step %d (centre y "
         "%.3g at the end, fastest descent %.3g m/s)\n",
         m->n, first_contact, free_from, c[1], vmax);
  printf("  volume: rest %.5g, smallest while squeezed %+.2f%%, once free %+.2f%% .. %+.2f%%\n",
         vol0, 100 * (vol_squeezed / vol0 - 1), 100 * (vol_free_min / vol0 - 1),
         100 * (vol_free_max / vol0 - 1));
  printf("  smallest contact gap at a step's start %.4g m, smallest vertex distance to a roller "
         "%.4g m (margin %g)\n",
         in_set, worst, MARGIN);
  printf("  re-detection added %ld contacts in %d of %d steps\n", redetected, redetect_steps,
         NSTEPS);
  CHECK(first_contact > 0);
  CHECK(free_from > 0);              /* dragged through both pairs */
  CHECK(vol_squeezed < 0.99 * vol0); /* it was squeezed */
  CHECK(fabs(vol_free_min / vol0 - 1) <= 0.02);
  CHECK(fabs(vol_free_max / vol0 - 1) <= 0.02);
  CHECK(worst >= -MARGIN);
  CHECK(all_finite(r.q, 3 * m->n));
  printf("  inverted tetrahedra at the end: %d of %d\n", sim_model_inverted(m, r.q), ntet);
  run_close(&r);
  return check_summary("test_contact_squeeze");
}

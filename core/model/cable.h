/* SPDX-License-Identifier: MIT */
/* Scene cables embedded in their body (core/scene/scene.h sim_cable_def; DESIGN.md Sec. 6,
   the soft gripper's cables): each point sits in the tetrahedron that contains it at rest,
   x_i = sum_k beta_ik q_{v_ik}, so it moves with the body. The length is the polyline's,
   L(x) = sum_i |x_{i+1} - x_i|, held at L_rest - pull(t) by one bilateral row in the contact
   solve (core/contact/contact.h SIM_CONTACT_CABLE). */
#ifndef SIM_MODEL_CABLE_H
#define SIM_MODEL_CABLE_H
#include "model.h"

typedef struct sim_cable {
  const sim_cable_def *def;
  int npoints;
  int vert[SIM_MAX_CABLE_POINTS][4];
  double beta[SIM_MAX_CABLE_POINTS][4]; /* barycentric weights, sum 1, each >= -1e-9 */
  double rest_length;                   /* L at the rest positions, m */
} sim_cable;

/* m->cable[c] for each scene cable: the containing tetrahedron of each point (the one whose
   smallest barycentric weight is largest). Fails (SIM_ERR_SCENE, naming cables.C.points.I)
   on a cloth body or a point outside the body's tetrahedra (the scene checks that every pull
   is below the rest length). */
int sim_cables_build(sim_model *m, sim_status *st);

/* The pull s(t), m: piecewise linear through the keys, from (0, 0) when the first key's time is
   > 0, the last key's value after the last. */
double sim_cable_pull(const sim_cable_def *def, double t);

/* L(x) of cable c at positions x (3n); grad (npoints x 3, may be NULL) gets dL/dx_i, the
   unit segment directions' differences (a zero-length segment contributes nothing). */
double sim_cable_length(const sim_cable *c, const double *x, double (*grad)[3]);

#endif

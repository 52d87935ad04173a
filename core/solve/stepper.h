/* SPDX-License-Identifier: MIT */
/* The frame: its stages in order (Algorithm 2 of the paper), each timed into a profile. */
#ifndef SIM_STEPPER_H
#define SIM_STEPPER_H
#include "backend.h"

/* One row of timing.csv: milliseconds per stage, summed over the frame's L-G iterations.
   Buckets of DESIGN.md Sec. 6 that do not exist yet (no contact) stay 0. */
typedef struct sim_profile {
  double cd_ms, schur_ms, predict_ms, local_ms, global_ms, assemble_ms, cst_solve_ms, corr_ms,
      integrate_ms, frame_ms;
  int lg_iterations, contacts, rows;
} sim_profile;

typedef struct sim_stepper {
  const sim_model *m;
  sim_backend *be;
  double t; /* time of the current state */
  int step; /* steps taken */
  double gravity[3];
  int lg_iterations;
  double *pin_pos; /* host, 3 * npinned */
} sim_stepper;

/* Uploads the initial state (rest positions, initial velocities; pins at t = 0). */
int sim_stepper_init(sim_stepper *s, const sim_model *m, sim_backend *be, sim_status *st);
void sim_stepper_free(sim_stepper *s);
/* Advance one time step h: pins, predict, K x (local, global), integrate. When `energies` is
   non-NULL it receives e(q) before the first and after every L-G iteration (K + 1 values;
   slower: for tests and convergence studies). */
int sim_stepper_step(sim_stepper *s, sim_profile *prof, double *energies, sim_status *st);

#endif

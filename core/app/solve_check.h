/* SPDX-License-Identifier: MIT */
/* The global step's accuracy at a run's end (summary.json system.solve_check): the backend
   solves its last right-hand side again and the host measures the residual against A_s. */
#ifndef SIM_SOLVE_CHECK_H
#define SIM_SOLVE_CHECK_H
#include "../solve/backend.h"

typedef struct sim_solve_check {
  /* the largest over x, y and z of |A_s x - b|_2 / |b|_2, where b is the right-hand side the
     last local step left and x the backend's global step from it (a column whose b is 0
     counts |A_s x|_2 instead) */
  double residual;
  double ms; /* the check's wall time, host clock */
} sim_solve_check;

/* After a run's last frame (its queued work done or not): reads the backend's right-hand side,
   runs one global_step on it, downloads x and computes the residual on the host in double.
   The backend's positions are restored to what they were; its other state may move on
   (Chebyshev's iteration count). */
int sim_solve_check_run(const sim_model *m, sim_backend *be, sim_solve_check *out, sim_status *st);

#endif

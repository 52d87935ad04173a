/* SPDX-License-Identifier: MIT */
/* Assembly of the constant scalar system matrix A_s = M + h^2 sum_i w_i G_i^T G_i. */
#ifndef SIM_SYSTEM_H
#define SIM_SYSTEM_H
#include "model.h"

/* Fills m->A_* (upper triangle, CSC over free unknowns) and m->C_* (free x pinned coupling).
   Fails with SIM_ERR_SCENE, naming the body, where an entry is beyond a double's range. */
int sim_system_assemble(sim_model *m, sim_status *st);

/* y = A_s x for the 3 columns over the free unknowns (x and y 3 nfree, interleaved: x0 y0 z0
   x1 ...; y must not alias x), from the upper triangle m->A_*. */
void sim_system_apply(const sim_model *m, const double *x, double *y);

#endif

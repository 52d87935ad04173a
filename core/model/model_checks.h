/* SPDX-License-Identifier: MIT */
/* The model's numbers checked as it is built: masses, momenta, element measures and weights,
   bending weights and Lame parameters within a double's range, each failure one line naming
   the scene key to change (exit 3). */
#ifndef SIM_MODEL_CHECKS_H
#define SIM_MODEL_CHECKS_H
#include "bending.h"
#include "model.h"

/* A body's mass (vertex < 0) or a vertex's: a normal double. */
int sim_model_check_mass(const sim_model *m, int b, int vertex, double mass, sim_status *st);
/* Body b's initial momentum (its mass `total` times its velocity): finite. */
int sim_model_check_momentum(const sim_model *m, int b, double total, sim_status *st);
/* Element e of body b: its rest measure normal and finite, its weight finite. */
int sim_model_check_elem(const sim_model *m, int b, int e, const sim_elem *t, sim_status *st);
/* Body b's total rest measure: finite. */
int sim_model_check_measure(const sim_model *m, int b, double measure, sim_status *st);
/* Body b's bending weights: finite. */
int sim_model_check_bending(const sim_model *m, int b, const sim_bending *one, sim_status *st);
/* Body b's Lame parameters in `dim` dimensions: finite. */
int sim_model_check_lame(const sim_model *m, int b, int dim, sim_status *st);

#endif

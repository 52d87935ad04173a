/* SPDX-License-Identifier: MIT */
/* Constraint pins as bilateral contacts (contact.h SIM_CONTACT_BILATERAL; DESIGN.md Sec. 6).
   Private to core/contact/world*.c. */
#ifndef SIM_CONTACT_WORLD_PINS_H
#define SIM_CONTACT_WORLD_PINS_H
#include "world.h"

/* Room for one contact per constraint-pinned vertex (m->ncpin) in w->pins. */
int sim_world_pins_init(sim_world *w, sim_status *st);
/* w->pins = one BILATERAL contact per constraint-pinned vertex, in ascending vertex order (so
   sorted by sim_contact_key_cmp): target p = the pin's script at t1 (the step's end), gap =
   |x_v - p| with x the positions at q_t. */
void sim_world_pins(sim_world *w, double t1, const double *x);

#endif

/* SPDX-License-Identifier: MIT */
/* Constraint pins and cables as bilateral contacts (contact.h SIM_CONTACT_BILATERAL and
   SIM_CONTACT_CABLE; DESIGN.md Sec. 6).
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

/* Room for one contact per scene cable (m->ncable) in w->cables and its row in w->cable_row. */
int sim_world_cables_init(sim_world *w, sim_status *st);
/* w->cables = one CABLE contact per cable, sorted by key: its row linearised at x (q_t), its
   target L_rest - pull(t1); w->cable_row holds the rows the contacts point to. */
void sim_world_cables(sim_world *w, double t1, const double *x);

/* w->read_vert: the constraint-pinned vertices and the vertices of the cables' points'
   tetrahedra, sorted, each once (sim_world_host_reads). */
int sim_world_reads_init(sim_world *w, sim_status *st);

#endif

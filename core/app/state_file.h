/* SPDX-License-Identifier: MIT */
/* A frame's state file, frames/NNNNN.state: what `simctl run --resume` needs besides the VTK
   frame's positions and velocities to go on from that frame as the run would have, written
   beside each VTK frame: the run's figures so far (summary.json's counts, sums, most and least
   from frame 1: a resumed run's summary covers the whole run), and where the scene has contact
   the step's state (core/solve/stepper.h sim_step_state: the positions before, the contacts
   and their multipliers, the world's memory). Binary, in this machine's byte order:
     "simctl state 1\n"                      the format and its version, as text
     u32 0x01020304                          the byte order
     i32 frame, n, nc, contact (0 or 1); f64 t, h
     f64 figures[SIM_STATE_FIGURES]          (core/app/run.c's order)
     where contact: i64 stray_creases; f64 x_prev[3 n];
                    nc contacts: i32 kind, v, source, tri[3]; f64 w[3], n[3], t1[3], t2[3],
                                 p[3], u[3], gap, mu, compliance; u8 at_start
                    f64 lambda[3 nc]
     u64 FNV-1a of every byte before it */
#ifndef SIM_STATE_FILE_H
#define SIM_STATE_FILE_H
#include "../solve/stepper.h"

/* The run's figures a state file holds (core/app/run.c). */
#define SIM_STATE_FIGURES 29

/* The state of frame `frame` at time t of model m into `path`, atomically: figures, and s where
   the scene has contact (NULL: none). */
int sim_state_file_write(const char *path, const sim_model *m, int frame, double t,
                         const sim_step_state *s, const double *figures, sim_status *st);
/* Reads `path` for model m's frame `frame` at time t: the figures, and where `contact` the
   step's state into *s (allocated here; zeroed otherwise). SIM_ERR_IO, one line naming the file
   and what was expected, where it is not such a file whole (cut short, changed, another format
   or byte order), or another frame's, time's, time step's or scene's (its vertices, whether it
   has contact, its contacts' vertices and surfaces). */
int sim_state_file_read(const char *path, const sim_model *m, int frame, double t, int contact,
                        sim_step_state *s, double *figures, sim_status *st);

#endif

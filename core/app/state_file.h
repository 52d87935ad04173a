/* SPDX-License-Identifier: MIT */
/* A frame's state file, frames/NNNNN.state: what a step of a scene with contact leaves for the
   next besides the positions and velocities its VTK frame holds (core/solve/stepper.h
   sim_step_state: the positions before, the contacts and their multipliers, the world's
   memory), so that `simctl run --resume` goes on from that frame as the run would have.
   Written beside each VTK frame where the scene has contact; binary, in this machine's byte
   order:
     "simctl state 1\n"                      the format and its version, as text
     u32 0x01020304                          the byte order
     i32 frame, n, nc; f64 t, h; i64 stray_creases
     f64 x_prev[3 n]
     nc contacts: i32 kind, v, source, tri[3]; f64 w[3], n[3], t1[3], t2[3], p[3], u[3], gap,
                  mu, compliance; u8 at_start
     f64 lambda[3 nc]
     u64 FNV-1a of every byte before it */
#ifndef SIM_STATE_FILE_H
#define SIM_STATE_FILE_H
#include "../solve/stepper.h"

/* The state of frame `frame` at time t of model m into `path`, atomically. */
int sim_state_file_write(const char *path, const sim_model *m, int frame, double t,
                         const sim_step_state *s, sim_status *st);
/* Reads `path` for model m's frame `frame` at time t into *s (allocated here). SIM_ERR_IO, one
   line naming the file and what was expected, where it is not such a file whole (cut short,
   changed, another format or byte order), or another frame's, time's, time step's or scene's. */
int sim_state_file_read(const char *path, const sim_model *m, int frame, double t,
                        sim_step_state *s, sim_status *st);

#endif

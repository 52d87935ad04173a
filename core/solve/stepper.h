/* SPDX-License-Identifier: MIT */
/* The frame: its stages in order (Algorithm 2 of the paper), each timed into a profile. */
#ifndef SIM_STEPPER_H
#define SIM_STEPPER_H
#include "../contact/world.h"
#include "backend.h"

/* One row of timing.csv: milliseconds per stage, summed over the frame's L-G iterations
   (DESIGN.md Sec. 6 buckets). frame_ms is the whole step without collision detection (cd_ms),
   as the paper's Table 3 counts it. */
typedef struct sim_profile {
  double cd_ms, schur_ms, predict_ms, local_ms, global_ms, assemble_ms, cst_solve_ms, corr_ms,
      integrate_ms, frame_ms;
  int lg_iterations, contacts, rows;
  int newton_steps; /* non-smooth Newton steps taken, summed over the L-G iterations */
  long cr_iterations;
  double min_gap; /* smallest signed distance among the step's contacts (+inf: none) */
  int redetected; /* contacts added by re-detection at the step's end (contact.redetect) */
  sim_ls_counts ls; /* the line searches' outcomes, summed over the L-G iterations */
  /* the contact solve's end (contact.end_tolerance, backend.h contact_finish): Newton steps
     taken there, its passes that ended above the tolerance, the largest max |phi| it ended
     with (m; 0 where it did not run) */
  int end_steps, end_unmet;
  double end_phi;
} sim_profile;

typedef struct sim_stepper {
  const sim_model *m;
  sim_backend *be;
  double t; /* time of the current state */
  int step; /* steps taken */
  double gravity[3];
  int lg_iterations;
  double *pin_pos; /* host, 3 * npinned */
  int contact;     /* the scene has something to collide */
  sim_world world;
  /* host copies of q_t, of the step before and of q~, and of the step's solution
     (re-detection), for collision detection: with a backend's detect_download, only the
     vertices the host reads (sim_world_host_reads) are written, the rest stay NaN */
  double *x_t, *x_prev, *x_pred;
  double *x_end;
  int have_prev;
  int redetect; /* contact.redetect */
} sim_stepper;

/* Uploads the initial state (rest positions, initial velocities; pins at t = 0). */
int sim_stepper_init(sim_stepper *s, const sim_model *m, sim_backend *be, sim_status *st);
void sim_stepper_free(sim_stepper *s);
/* Advance one time step h: pins, predict, collision detection and W (with contact), K x (local,
   global or global with contact), then up to contact.redetect times: detection at the
   solution, and when it finds vertices inside something without a contact, the step again
   from the prediction with them added: W, K L-G iterations (core/contact/world.h
   sim_world_redetect); integrate. When `energies` is
   non-NULL it receives e(q) before the first and after every L-G iteration (K + 1 values;
   slower: for tests and convergence studies). */
int sim_stepper_step(sim_stepper *s, sim_profile *prof, double *energies, sim_status *st);

/* What a step leaves for the next besides q_t, v and the time, where the scene has contact: a
   resumed run's state (core/app/state_file.h), so that it goes on as the run it resumes would
   have. */
typedef struct sim_step_state {
  int n;          /* vertices */
  double *x_prev; /* 3n: q_t of the step taken, the next step's positions before */
  int nc; /* that step's contacts (the world's out, as the backend's warm start took them) */
  sim_contact *c;
  unsigned char *at_start; /* nc: found by that step's q_t pass (world.h sim_world_memory_get) */
  double *lam;             /* 3 nc: their multipliers at the step's end (contact_lambda) */
  long long stray_creases; /* the world's count so far */
} sim_step_state;
/* Room for n vertices and nc contacts, zeroed fields but those. */
int sim_step_state_alloc(sim_step_state *ss, int n, int nc, sim_status *st);
void sim_step_state_free(sim_step_state *ss);
/* After a step, where the scene has contact: its state into `out` (allocated here). Waits for
   the backend (CUDA: the previous positions and the multipliers come down). */
int sim_stepper_state_get(sim_stepper *s, sim_step_state *out, sim_status *st);
/* A fresh stepper (set to the resumed frame's q, v and time) takes state `in`: the next step
   detects and warm-starts as the step after the one `in` was taken from did. */
int sim_stepper_state_set(sim_stepper *s, const sim_step_state *in, sim_status *st);

#endif

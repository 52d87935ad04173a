/* SPDX-License-Identifier: MIT */
/* `simctl run --resume`: an earlier run's output folder read back, to go on from its last VTK
   frame. Everything is read and checked before anything in the folder changes. */
#ifndef SIM_RESUME_H
#define SIM_RESUME_H
#include "state_file.h"

typedef struct sim_resume {
  int frame;     /* the frame gone on from: the last VTK frame the series lists */
  double t;      /* its time, as the series gives it (frame x solver.dt, to the bit) */
  double *q, *v; /* its positions and velocities (3 n each) */
  /* the series' entries up to that frame (names relative to frames/, times) */
  int nseries;
  char **names;
  double *times;
  /* timing.csv's rows up to that frame, as text without their newlines (none: no timing.csv) */
  int nrows;
  char **rows;
  /* that frame's state file (frames/NNNNN.state, state_file.h) read (have_state 1): the run's
     figures up to it and, where the scene has contact, the step's state; or none there (0:
     the contact solve starts cold, the figures with the resumed frames) */
  int have_state;
  double figures[SIM_STATE_FIGURES];
  sim_step_state state;
} sim_resume;

/* SIM_OK where output folder `dir` holds a series file (frames/frames.vtk.series), else
   SIM_ERR_IO with the line naming it that sim_resume_read gives. */
int sim_resume_present(const char *dir, sim_status *st);
/* Reads output folder `dir` (frames/frames.vtk.series, the last frame's VTK file, its state file
   when there is one, timing.csv when there is one) for model m,
   whose scene runs to solver.frames. SIM_ERR_USAGE or SIM_ERR_IO, one line naming the file and what
   was expected, where the folder holds no such run, another scene's (another number of vertices,
   bodies or time step), or a run that has reached solver.frames already. */
int sim_resume_read(const sim_model *m, const char *dir, const char *timing_header, sim_resume *r,
                    sim_status *st);
void sim_resume_free(sim_resume *r);

#endif

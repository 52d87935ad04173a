/* SPDX-License-Identifier: MIT */
/* A run's output directory: frames (VTK + series, OBJ, PNG), timing.csv, memory.csv,
   summary.json, every file written atomically. */
#ifndef SIM_WRITER_H
#define SIM_WRITER_H
#include "../contact/world_scenery.h"
#include "../io/output.h"
#include "../model/model.h"
#include "../solve/backend.h"
#include "../solve/stepper.h"

typedef struct sim_writer {
  const sim_model *m;
  int formats;
  char dir[SIM_PATH_MAX];
  char frames_dir[SIM_PATH_MAX + 16];
  int nframes, cap;
  char **files;   /* series entries, relative to frames/ */
  double *times;
  sim_csv *timing;
  sim_camera cam;
  int have_cam;
  int png_w, png_h;
  const char *body_names[SIM_MAX_BODIES];
  int *tet; /* 4 * nelem connectivity (-1 4th corner: triangle), copied once from the model */
  const sim_world *world; /* obstacles shown in PNG and OBJ frames (borrowed; NULL: none) */
  sim_scenery scenery;    /* their triangles at the frame being written */
  double roi_lo[3], roi_hi[3]; /* where infinite obstacles are cut: bodies' bounds at frame 0 */
  int have_roi;
  int lock_fd;         /* the folder's lock (sim_outputs_claim), -1: none */
  sim_scenery_view sv; /* the scenery of the frame being written (sim_writer_frame_prepare) */
} sim_writer;

/* Creates DIR/frames, claims DIR (sim_outputs_claim) and removes what an earlier run left there
   (sim_outputs_clear). */
int sim_writer_open(sim_writer *w, const sim_model *m, const char *dir, sim_status *st);
struct sim_resume;
/* sim_writer_open for a run that goes on from an earlier one in DIR (core/app/resume.h): DIR
   claimed, then read back into *r (the series, the last VTK frame, timing.csv), and only then
   what comes after that frame removed (sim_outputs_clear_after); the series and timing rows up
   to it are the writer's first. A failure to read leaves the folder as it was. The caller
   frees *r. */
int sim_writer_open_resume(sim_writer *w, const sim_model *m, const char *dir, struct sim_resume *r,
                           sim_status *st);
/* The obstacles' cut and the PNG camera as the run's first frame set them (rest positions q0
   at time 0), for a resumed run whose frame 0 is not written again. */
int sim_writer_first_view(sim_writer *w, const double *q0, sim_status *st);
/* Removes an earlier run's files from output folder DIR: summary.json (first: a clearing that
   fails leaves no earlier "ok"), timing.csv, memory.csv and, in FRAMES_DIR, every NNNNN.vtk,
   .obj, .obstacles.obj, .png and .state (five digits or more) and the series file, with the
   temporary files (NAME.tmp.PID) of those that a run killed outright leaves; plain files only,
   nothing else; all it can, the first failure reported (core/app/out_folder.c). */
int sim_outputs_clear(const char *dir, const char *frames_dir, sim_status *st);
/* What a run resumed from frame `frame` (simctl run --resume) removes there first:
   summary.json, memory.csv, ranges.csv and timing.csv (but where keep_timing: its rows up to
   the frame are written again, by this run or at once where it writes no CSV), in FRAMES_DIR every
   frame file of a later frame, and every temporary file of these; all it can, the first failure
   reported. */
int sim_outputs_clear_after(const char *dir, const char *frames_dir, int frame, int keep_timing,
                            sim_status *st);
/* Removes every state file NNNNN.state in FRAMES_DIR but frame `keep`'s (core/app/state_file.h:
   a run that ended keeps its last frame's); all it can, the first failure reported. */
int sim_outputs_clear_states(const char *frames_dir, int keep, sim_status *st);
/* The same for `simctl converge`'s folder: every converge_NAME.csv (and its temporary files). */
int sim_outputs_clear_converge(const char *dir, sim_status *st);
/* An exclusive lock on folder DIR for the run's time (flock on the folder; where the file
   system takes none, NFS say, a POSIX lock on DIR/.simctl.lock): its descriptor, -1 where no
   lock can be had (the run goes on unlocked), -2 with st set where another process holds it
   (a run into the same folder) or the folder cannot be opened. */
int sim_outputs_claim(const char *dir, sim_status *st);
void sim_outputs_release(int fd);
/* The contact world whose obstacles the frames show (NULL: no obstacles), each posed by its
   script at the frame's time (not the world's own pose, which is the next step's by then:
   run.c hands a frame on after the next one). PNG: grey scenery, the camera fitted at the
   first frame to the bodies and the obstacles; OBJ: frames/NNNNN.obstacles.obj, one object per
   obstacle. Infinite obstacles are cut to the bodies' bounds at the first frame, fixed for the
   run. */
void sim_writer_set_world(sim_writer *w, const sim_world *world);
/* Write output frame `frame` (positions q, velocities v, element energy densities): the two
   halves below, one after the other. */
int sim_writer_frame(sim_writer *w, int frame, double t, const double *q, const double *v,
                     const double *elem_energy, sim_status *st);
/* What a frame reads of the world (the obstacles' scenery at the frame's time t), taken on the
   thread that steps the world; then the frame's files, from q, v, energies and that scenery
   alone (the VTK file also enters the series list). core/app/writer_async.h runs the files on
   a thread. */
int sim_writer_frame_prepare(sim_writer *w, double t, const double *q, sim_status *st);
int sim_writer_frame_files(sim_writer *w, int frame, double t, const double *q, const double *v,
                           const double *elem_energy, sim_status *st);
int sim_writer_timing_row(sim_writer *w, int frame, double t, const sim_profile *p,
                          double output_ms, sim_status *st);
/* timing.csv and the series file as they stand now; each alone. */
int sim_writer_flush(sim_writer *w, sim_status *st);
int sim_writer_flush_timing(sim_writer *w, sim_status *st);
int sim_writer_flush_series(sim_writer *w, sim_status *st);
int sim_writer_memory(sim_writer *w, const sim_global_stats *gs, sim_status *st);
void sim_writer_close(sim_writer *w);

#endif

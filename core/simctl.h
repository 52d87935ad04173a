/* SPDX-License-Identifier: MIT */
/* simctl's public API: the one header the command-line front end includes. */
#ifndef SIMCTL_H
#define SIMCTL_H
#include <signal.h>
#include <stdio.h>

#include "base/status.h"
#include "scene/scene.h"

const char *sim_version(void);
/* simctl --version's lines after the first: the backends this build has, the libraries' versions
   as linked, and the tetgen program a run would use. */
void sim_build_info(FILE *f);

/* Called after every frame with the frame number, the total and the wall time so far. */
typedef void (*sim_progress_fn)(int frame, int nframes, double elapsed_ms, void *user);

typedef struct sim_run_opts {
  int quiet;             /* no notes on stderr */
  sim_progress_fn progress;
  void *user;
  const char *cache_dir; /* TetGen cache; NULL = the default cache directory */
  /* NULL, or a flag a signal handler sets: once it is nonzero the run ends after the frame
     being simulated, which is written as an output frame (sim_run_result.interrupted) */
  const volatile sig_atomic_t *stop;
  /* 1: go on from the last VTK frame of the earlier run in the output folder (its positions
     and velocities, to the bit), keeping its frames and timing rows up to that frame
     (core/app/resume.h); 0: a new run, which clears the folder of an earlier run's files */
  int resume;
} sim_run_opts;

#define SIM_RUN_CONTACT_KINDS 11 /* sim_run_result.kinds_max */

typedef struct sim_run_result {
  int frames;  /* the last frame simulated (frames simulated, but after a resume) */
  int resumed; /* 1: the run went on from frame resumed_from of an earlier one */
  int resumed_from;
  int resumed_cold; /* 1: resumed with contact from a frame without its state file (state_file.h):
                       the contact solve started cold, the run goes on close to, not exactly as,
                       the earlier run would have */
  int figures_from; /* the first frame the contact, inversion and mean figures below cover: 1,
                       or after a resume from a frame without a state file, the first resumed */
  int interrupted;       /* 1: the run ended early on sim_run_opts.stop, after `frames` */
  int frames_written;    /* output frames written */
  int output_async;      /* 1: frame files were written by a background thread */
  double wall_ms;        /* whole run, set-up included */
  double setup_ms;       /* meshing, model, factor, S */
  double mean_frame_ms;  /* mean frame time (without output) */
  char backend[16];      /* "cpu" or "cuda" */
  char device[128];      /* the hardware the backend ran on */
  char global[32];       /* resolved global solver */
  char backend_note[SIM_MSG_MAX]; /* the backend's last notice during the run ("": none) */
  int backend_notes;      /* how many it gave */
  double measure_rest;   /* total element measure (volume; area x thickness for cloth), m^3 */
  double measure_final;  /* the same in the last state simulated (signed: inverted < 0) */
  char out_dir[SIM_PATH_MAX];
  /* per body: centre of mass at the start and in the last state simulated, m */
  double com_start[SIM_MAX_BODIES][3], com_final[SIM_MAX_BODIES][3];
  /* contact (all 0 without): most contacts in a step, their mean, CR iterations per L-G
     iteration with contact, and the smallest signed distance of a contact at a step's start
     (negative: the deepest penetration seen; +inf when no contact was ever found) */
  int contacts_max;
  double contacts_mean, cr_per_iteration, min_gap;
  /* the most contacts in a step of each kind: analytic obstacles, mesh obstacles, other bodies,
     mesh obstacles' points against bodies, constraint pins, cables, edge pairs, edges against
     analytic obstacles, a body's own surface, its own edge pairs and folds' second faces
     (core/contact/world.h sim_world_kind_counts, in that order) */
  int kinds_max[SIM_RUN_CONTACT_KINDS];
  int contact_steps; /* steps that had contacts */
  /* contacts added by re-detection at steps' ends (contact.redetect), and the steps that did */
  long redetected;
  int redetect_steps;
  /* contacts on a fold's second face dropped after detection's merge because their normal faced
     that of the vertex's first contact within 25.8 degrees of opposite (core/contact/detect.h
     sim_detect_drop_stray_creases) */
  long creases_dropped;
  /* the contact solve's end (contact.end_tolerance): Newton steps taken there, the steps that
     ended above the tolerance, and the largest max |phi| a step ended with (m) */
  long end_newton_steps;
  int end_unmet_steps;
  double end_phi_max;
  /* Newton steps whose line search (contact.line_search) took the full step, a shorter one,
     or none (the multipliers stood), summed over the run */
  long ls_full, ls_shorter, ls_none;
  /* tetrahedra with det F <= 0, counted at the checked frames (every 10th and every output
     frame): the most at one frame, that frame, and the first checked frame with any (0: none) */
  int inverted_max, inverted_max_frame, inverted_first_frame;
  /* the global step solved again at the run's end on its last right-hand side (after a run
     that simulated a frame and did not fail; core/app/solve_check.h): the largest relative
     residual |A_s x - b| / |b| of x, y and z, and the check's milliseconds */
  int solve_checked;
  double solve_residual, solve_check_ms;
} sim_run_result;

/* The frames the run itself simulated (after a resume, those past resumed_from). */
static inline int sim_run_simulated(const sim_run_result *res) {
  return res->frames - (res->resumed ? res->resumed_from : 0);
}

/* Runs the scene end to end and writes DIR/frames/, timing.csv, memory.csv, summary.json
   (status "running" once the output folder is open, then "ok", "interrupted" or "failed"). On
   a failure during the run, what was written stays and summary.json records the error. */
int sim_run(const sim_scene *sc, const sim_run_opts *o, sim_run_result *res, sim_status *st);

/* Mesh sizes, nnz of A, L and S, memory of S now and as a 3n system would store it, dense
   inverse memory, factor and S build times; printed to `out` as text, or (csv != 0) as a CSV
   header and two rows: the system a run solves ("run") and the one over all vertices ("all"). */
int sim_info(const sim_scene *sc, const char *cache_dir, int csv, FILE *out, sim_status *st);

/* `simctl mesh`: surface file -> TetGen -> tet mesh written by extension (.node or .vtk). */
int sim_mesh_file(const char *surface, double quality, double max_volume, const char *switches,
                  const char *out_path, FILE *log, sim_status *st);

/* `simctl converge` (Fig. 9 of the paper). */
typedef struct sim_converge_opts {
  int frame;              /* run to this frame first */
  int iterations;         /* K L-G iterations per global solver */
  int ref_max_iterations; /* cap for the reference q* */
  double ref_tol;         /* reference stops when max |q_{k+1} - q_k| < ref_tol (m) */
  double chebyshev_rho;   /* for the jacobi_chebyshev variant */
  const char *out_dir;    /* converge_<solver>.csv, converge_summary.csv */
  const char *cache_dir;  /* NULL = default */
  double complete_chebyshev_rho; /* for the cholesky_chebyshev variant (exact global step) */
  const char *solvers;    /* comma-separated subset of the variants; NULL = all */
  int start_previous;     /* q_0 = q_t with the pins at their new targets (default: q~) */
  int cuda;               /* the solvers' iterations on the CUDA backend (the run to frame F
                             and the reference q* stay on the CPU) */
  const char *cuda_from;  /* what asked for CUDA, for its errors ("--device cuda", or
                             "solver.device cuda" from the scene); NULL = "--device cuda" */
} sim_converge_opts;
int sim_converge(const sim_scene *sc, const sim_converge_opts *o, FILE *log, sim_status *st);

/* The default TetGen cache directory. */
const char *sim_cache_dir(void);

#endif

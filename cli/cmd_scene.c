/* SPDX-License-Identifier: MIT */
/* simctl run / validate / info. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/simctl.h"
#include "cli.h"

static const char *RUN_USAGE =
    "usage: simctl run SCENE [--out DIR] [--frames N] [--set PATH=VALUE]... [--device D]\n"
    "                  [--threads N] [--gpu N] [--resume] [--quiet]\n"
    "\n"
    "Simulates SCENE (JSON) and writes DIR/frames/NNNNN.{vtk,obj,png} and frames.vtk.series,\n"
    "DIR/timing.csv and DIR/memory.csv, as output.formats selects (vtk, obj, png, csv), and\n"
    "always DIR/summary.json.\n"
    "\n"
    "  --out DIR          output directory (scene key output.dir; default out/NAME)\n"
    "  --frames N         number of frames (solver.frames)\n"
    "  --set PATH=VALUE   override any scene value, e.g. --set solver.dt=0.005\n"
    "                     --set bodies.0.material.youngs_modulus=1e7 (VALUE is JSON, or a\n"
    "                     plain string: --set solver.global=cholesky); repeatable\n"
    "  --device D         auto (GPU when usable, else the CPU with a note), cpu, cuda\n"
    "  --threads N        CPU threads (solver.threads; 0 = all cores)\n"
    "  --gpu N            the CUDA device to run on, by CUDA's index (solver.gpu; default 0;\n"
    "                     CUDA_DEVICE_ORDER=PCI_BUS_ID: nvidia-smi's order)\n"
    "  --resume           go on from the last VTK frame of the earlier run in DIR (its\n"
    "                     positions and velocities, to the bit) up to the scene's frames,\n"
    "                     keeping that run's frames and timing rows up to it (--frames N\n"
    "                     runs it further); with contact, from its state file too\n"
    "                     (frames/NNNNN.state: the same frames as one run, byte for byte)\n"
    "  --quiet            no progress bar, notes or summary line; errors only\n";

static const char *VALIDATE_USAGE =
    "usage: simctl validate SCENE [--set PATH=VALUE]... [--quiet]\n"
    "\n"
    "Checks SCENE and prints the resolved scene (every default filled in) as JSON.\n"
    "Exit code 0 when valid, 3 with one error line when not.\n";

static const char *INFO_USAGE =
    "usage: simctl info SCENE [--csv] [--set PATH=VALUE]...\n"
    "\n"
    "Builds the scene's meshes and system and reports mesh sizes, nnz of A_s, L and S, the\n"
    "memory of S (double and float, and as a 3n system would store it), the memory of a dense\n"
    "inverse, and factor and S build times, for the system a run solves and for the system\n"
    "over all vertices (what the paper's Tables 1-2 count).\n"
    "\n"
    "  --csv   print a CSV header and one row per system (system = run, all) instead of text;\n"
    "          MiB are 2^20 bytes, the unit of the paper's tables\n";

static const char *CONVERGE_USAGE =
    "usage: simctl converge SCENE [--frame F] [--iterations K] [--out DIR] [--rho R]\n"
    "                       [--chebyshev R] [--solvers LIST] [--start predicted|previous]\n"
    "                       [--ref-tol T] [--ref-max N] [--device cpu|cuda]\n"
    "                       [--set PATH=VALUE]... [--quiet]\n"
    "\n"
    "The paper's Fig. 9: runs SCENE to frame F (its own L-G iterations, exact global solve),\n"
    "then from that state runs K local-global iterations of the next step with each global\n"
    "solver (sparse_inverse, cholesky, jacobi, jacobi_chebyshev, cholesky_chebyshev) and\n"
    "writes, per solver, DIR/converge_SOLVER.csv (iteration, ms, energy, rel_error) and\n"
    "DIR/converge_summary.csv (iterations and ms to 1e-3, final error, rho, ms per iteration).\n"
    "rel_error = (e(q_k) - e(q*)) / (e(q_0) - e(q*)), e the incremental potential summed from\n"
    "per-element differences against q*; q* is the complete method iterated until\n"
    "max |dq| < T.\n"
    "\n"
    "  --frame F        frames to run first (default 800)\n"
    "  --iterations K   iterations per solver (default 1000)\n"
    "  --out DIR        output directory (default out/NAME_converge)\n"
    "  --rho R          Chebyshev spectral radius for jacobi_chebyshev (default 0.95)\n"
    "  --chebyshev R    Chebyshev rho on top of the exact global step, cholesky_chebyshev\n"
    "                   (default 0.5)\n"
    "  --solvers LIST   comma-separated subset of the solvers above (default all)\n"
    "  --start S        q_0: predicted (q~ = q_t + h v, pins at their new targets; what every\n"
    "                   frame starts from; default) or previous (q_t, pins at their new targets)\n"
    "  --ref-tol T      reference tolerance in metres (default 1e-12)\n"
    "  --ref-max N      reference iteration cap (default 100000)\n"
    "  --device D       cpu or cuda: where the solvers' iterations run and are timed (each\n"
    "                   iteration waits for the device); default cuda where the scene's\n"
    "                   solver.device is cuda, else cpu (auto too); the run to frame F and\n"
    "                   the reference stay on the CPU; --set solver.gpu=N picks the device\n"
    "  --set PATH=VALUE override any scene value, e.g. --set solver.dt=0.005\n"
    "  --quiet          no per-solver lines on stdout; errors only\n";

static int load(const cli_scene_args *a, sim_scene *sc) {
  sim_status st = {0};
  if (sim_scene_load(a->scene, a->sets, a->nsets, sc, &st)) {
    cli_print_scene_error(a, st.msg);
    return st.code;
  }
  return 0;
}

/* A SIGINT, SIGTERM or SIGHUP during a run: the run ends after the frame it is on, writes
   that frame, the timing rows and summary.json ("interrupted"), and simctl then ends by the
   signal. A second one ends it at once (the handler is reset by the first). */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

static void catch_stops(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sa.sa_flags = (int)SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

int cmd_run(int argc, char **argv) {
  cli_scene_args a;
  int rc = cli_parse_scene_args(argc, argv, 2, RUN_USAGE, 1, &a);
  if (rc >= 0) return rc;
  static sim_scene sc;
  if ((rc = load(&a, &sc))) return rc;
  sim_run_opts o = {a.quiet, a.quiet ? NULL : cli_progress, NULL, NULL, &stop_signal, a.resume};
  sim_run_result res;
  sim_status st = {0};
  catch_stops();
  rc = sim_run(&sc, &o, &res, &st);
  if (stop_signal) { /* the run's own error, if any, is the interruption's (tetgen's, say) */
    int sig = stop_signal;
    if (o.progress && isatty(STDERR_FILENO) && res.frames > 0) fputc('\n', stderr); /* the bar's */
    if (res.frames == 0 && res.frames_written == 0) /* in the set-up (meshing, the factor, S) */
      fprintf(stderr,
              "simctl: interrupted by signal %d (%s) during set-up, before frame 1 of %d; "
              "no frame written",
              sig, strsignal(sig), sc.solver.frames);
    else
      fprintf(stderr, "simctl: interrupted by signal %d (%s) after frame %d of %d", sig,
              strsignal(sig), res.frames, sc.solver.frames);
    if (res.frames_written > 0 && res.resumed) /* the earlier run's frames stay too */
      fprintf(stderr, "; %d frame%s written after frame %d kept in %s", res.frames_written,
              res.frames_written == 1 ? "" : "s", res.resumed_from, res.out_dir);
    else if (res.frames_written > 0)
      fprintf(stderr, "; %d frame%s kept in %s", res.frames_written,
              res.frames_written == 1 ? "" : "s", res.out_dir);
    fputc('\n', stderr);
    signal(sig, SIG_DFL);
    raise(sig); /* ends simctl by the signal, as the shell and batch systems expect */
    return 128 + sig;
  }
  if (rc) {
    if (res.frames_written > 0)
      return cli_error(rc, "%s (%d frame%s kept in %s)", st.msg, res.frames_written,
                       res.frames_written == 1 ? "" : "s", res.out_dir);
    return cli_error(rc, "%s", st.msg);
  }
  char span[96];
  if (res.resumed && res.frames == res.resumed_from + 1)
    snprintf(span, sizeof span, "frame %d (resumed from frame %d)", res.frames, res.resumed_from);
  else if (res.resumed)
    snprintf(span, sizeof span, "frames %d-%d (resumed from frame %d)", res.resumed_from + 1,
             res.frames, res.resumed_from);
  else
    snprintf(span, sizeof span, "%d frames", res.frames);
  if (!a.quiet)
    printf(
        "simctl: %s: %s in %.2f s (set-up %.2f s, %.2f ms/frame, %s, %s); output in %s "
        "(ParaView: %s/frames/frames.vtk.series)\n",
        sc.name, span, res.wall_ms / 1e3, res.setup_ms / 1e3, res.mean_frame_ms, res.backend,
        res.global, res.out_dir, res.out_dir);
  if (!a.quiet && res.inverted_max > 0)
    fprintf(stderr,
            "simctl: note: %d tetrahedr%s inside out at frame %d (first seen at frame %d; checked "
            "every 10th and every output frame): try more solver.lg_iterations or a smaller "
            "solver.dt\n",
            res.inverted_max, res.inverted_max == 1 ? "on" : "a", res.inverted_max_frame,
            res.inverted_first_frame);
  return 0;
}

int cmd_validate(int argc, char **argv) {
  cli_scene_args a;
  int rc = cli_parse_scene_args(argc, argv, 2, VALIDATE_USAGE, 0, &a);
  if (rc >= 0) return rc;
  static sim_scene sc;
  if ((rc = load(&a, &sc))) return rc;
  if (!a.quiet) {
    char *text = NULL;
    if (sim_scene_to_json(&sc, &text) == SIM_OK && text) {
      puts(text);
      free(text);
    }
    if ((rc = cli_stdout_check())) return rc; /* a cut JSON is not "valid" */
    fprintf(stderr, "simctl: %s is valid\n", a.scene);
  }
  return 0;
}

/* Strips the converge options from argv (so the shared parser sees the rest). */
int cmd_converge(int argc, char **argv) {
  sim_converge_opts o = {.frame = 800, .iterations = 1000, .ref_max_iterations = 100000,
                         .ref_tol = 1e-12, .chebyshev_rho = 0.95, .complete_chebyshev_rho = 0.5};
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  if (!rest) return cli_error(SIM_ERR_MEMORY, "out of memory");
  int nrest = 0, device_given = 0;
  static const char *const names[] = {"",          "--frame",   "--iterations", "--out",
                                      "--rho",     "--ref-tol", "--ref-max",    "--chebyshev",
                                      "--solvers", "--start",     "--device"};
  static const char *const expect[] = {"",
                                       "an integer >= 0",
                                       "an integer >= 1",
                                       "a folder (a path of at most 1023 bytes)",
                                       "a number >= 0 and < 1",
                                       "a number > 0",
                                       "an integer >= 1",
                                       "a number >= 0 and < 1",
                                       "a comma-separated list of solvers",
                                       "predicted or previous",
                                       "cpu or cuda"};
  for (int i = 0; i < argc; i++) {
    const char *v = NULL;
    int which = 0;
    for (int w = 1; i >= 2 && !which && w < (int)(sizeof names / sizeof names[0]); w++)
      if (cli_take_value(argc, argv, &i, names[w], &v)) which = w;
    if (!which) {
      rest[nrest++] = argv[i];
      continue;
    }
    char *end = NULL;
    double x = v ? strtod(v, &end) : 0;
    int bad = !v || end == v || *end != '\0';
    /* the integers within int's range before the cast; NaN fails every comparison */
    int whole = x >= 0 && x <= INT_MAX && x == (int)x;
    if (which == 1) bad |= !whole, o.frame = whole ? (int)x : 0;
    if (which == 2) bad |= !whole || x < 1, o.iterations = whole ? (int)x : 0;
    if (which == 3) bad = !v || !*v || strlen(v) >= SIM_PATH_MAX, o.out_dir = v;
    if (which == 4) bad |= !(x >= 0 && x < 1), o.chebyshev_rho = x;
    if (which == 5) bad |= !(x > 0 && isfinite(x)), o.ref_tol = x;
    if (which == 6) bad |= !whole || x < 1, o.ref_max_iterations = whole ? (int)x : 0;
    if (which == 7) bad |= !(x >= 0 && x < 1), o.complete_chebyshev_rho = x;
    if (which == 8) bad = !v || !*v, o.solvers = v;
    if (which == 10) {
      bad = !v || (strcmp(v, "cpu") != 0 && strcmp(v, "cuda") != 0);
      o.cuda = v && strcmp(v, "cuda") == 0;
      device_given = 1;
    }
    if (which == 9) {
      bad = !v || (strcmp(v, "predicted") != 0 && strcmp(v, "previous") != 0);
      o.start_previous = v && strcmp(v, "previous") == 0;
    }
    if (bad) {
      free(rest);
      return cli_error(SIM_ERR_USAGE, "%s: expected %s, got '%s' (see simctl converge --help)",
                       names[which], expect[which], v ? v : "");
    }
  }
  cli_scene_args a;
  int rc = cli_parse_scene_args(nrest, rest, 2, CONVERGE_USAGE, 0, &a);
  static sim_scene sc;
  int loaded = 0; /* rc 0 without a load: the usage was printed (--help) */
  if (rc < 0) loaded = (rc = load(&a, &sc)) == 0;
  if (loaded) {
    char dir[SIM_PATH_MAX + 16];
    if (!o.out_dir) {
      snprintf(dir, sizeof dir, "out/%s_converge", sc.name);
      o.out_dir = dir;
    }
    if (!device_given && sc.solver.device == SIM_DEVICE_CUDA) /* the scene's own choice */
      o.cuda = 1, o.cuda_from = "solver.device cuda";
    sim_status st = {0};
    if (sim_converge(&sc, &o, a.quiet ? NULL : stdout, &st)) rc = cli_error(st.code, "%s", st.msg);
  }
  free(rest);
  return rc;
}

int cmd_info(int argc, char **argv) {
  int csv = 0, n = 0;
  for (int i = 0; i < argc; i++) { /* strip --csv (after the command); info has no --quiet */
    if (i >= 2 && (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")))
      return cli_error(SIM_ERR_USAGE, "unknown option %s (see --help): info prints its report",
                       argv[i]);
    if (i >= 2 && strcmp(argv[i], "--csv") == 0) csv = 1;
    else argv[n++] = argv[i];
  }
  argc = n;
  cli_scene_args a;
  int rc = cli_parse_scene_args(argc, argv, 2, INFO_USAGE, 0, &a);
  if (rc >= 0) return rc;
  static sim_scene sc;
  if ((rc = load(&a, &sc))) return rc;
  sim_status st = {0};
  if (sim_info(&sc, NULL, csv, stdout, &st)) return cli_error(st.code, "%s", st.msg);
  return 0;
}

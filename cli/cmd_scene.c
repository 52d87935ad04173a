/* SPDX-License-Identifier: MIT */
/* simctl run / validate / info. */
#include <stdio.h>
#include <stdlib.h>

#include "../core/simctl.h"
#include "cli.h"

static const char *RUN_USAGE =
    "usage: simctl run SCENE [--out DIR] [--frames N] [--set PATH=VALUE]... [--device D]\n"
    "                  [--threads N] [--quiet]\n"
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
    "  --quiet            no progress bar, notes or summary line; errors only\n";

static const char *VALIDATE_USAGE =
    "usage: simctl validate SCENE [--set PATH=VALUE]... [--quiet]\n"
    "\n"
    "Checks SCENE and prints the resolved scene (every default filled in) as JSON.\n"
    "Exit code 0 when valid, 3 with one error line when not.\n";

static const char *INFO_USAGE =
    "usage: simctl info SCENE [--set PATH=VALUE]...\n"
    "\n"
    "Builds the scene's meshes and system and reports mesh sizes, nnz of A_s, L and S, the\n"
    "memory of S (double and float, and as a 3n system would store it), the memory of a dense\n"
    "inverse, and factor and S build times, for the system a run solves and for the system\n"
    "over all vertices (what the paper's Tables 1-2 count).\n";

static int load(const cli_scene_args *a, sim_scene *sc) {
  sim_status st = {0};
  if (sim_scene_load(a->scene, a->sets, a->nsets, sc, &st)) {
    cli_print_scene_error(a, st.msg);
    return st.code;
  }
  return 0;
}

int cmd_run(int argc, char **argv) {
  cli_scene_args a;
  int rc = cli_parse_scene_args(argc, argv, 2, RUN_USAGE, 1, &a);
  if (rc >= 0) return rc;
  static sim_scene sc;
  if ((rc = load(&a, &sc))) return rc;
  sim_run_opts o = {a.quiet, a.quiet ? NULL : cli_progress, NULL, NULL};
  sim_run_result res;
  sim_status st = {0};
  rc = sim_run(&sc, &o, &res, &st);
  if (rc) {
    if (res.frames_written > 0)
      return cli_error(rc, "%s (%d frame%s kept in %s)", st.msg, res.frames_written,
                       res.frames_written == 1 ? "" : "s", res.out_dir);
    return cli_error(rc, "%s", st.msg);
  }
  if (!a.quiet)
    printf("simctl: %s: %d frames in %.2f s (set-up %.2f s, %.2f ms/frame, %s, %s); output in %s "
           "(ParaView: %s/frames/frames.vtk.series)\n",
           sc.name, res.frames, res.wall_ms / 1e3, res.setup_ms / 1e3, res.mean_frame_ms,
           res.backend, res.global, res.out_dir, res.out_dir);
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
    fprintf(stderr, "simctl: %s is valid\n", a.scene);
  }
  return 0;
}

int cmd_info(int argc, char **argv) {
  cli_scene_args a;
  int rc = cli_parse_scene_args(argc, argv, 2, INFO_USAGE, 0, &a);
  if (rc >= 0) return rc;
  static sim_scene sc;
  if ((rc = load(&a, &sc))) return rc;
  sim_status st = {0};
  if (sim_info(&sc, NULL, stdout, &st)) return cli_error(st.code, "%s", st.msg);
  return 0;
}

/* SPDX-License-Identifier: MIT */
/* simctl: the command-line entry point and sub-command dispatch. */
#include <stdio.h>
#include <string.h>

#include "../core/simctl.h"
#include "cli.h"

static const char *USAGE =
    "simctl: batch simulator of hyperelastic solids in local-global (projective dynamics)\n"
    "integration with a sparse inverse of the Cholesky factor\n"
    "\n"
    "usage: simctl COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run SCENE       simulate a scene, write frames and timings\n"
    "  validate SCENE  check a scene file and print it with every default filled in\n"
    "  info SCENE      mesh sizes, nnz of A, L and S, memory, factor and S build times\n"
    "  mesh SURFACE    tetrahedralise a closed surface with TetGen\n"
    "  converge SCENE  per-iteration convergence of each global solver (paper Fig. 9)\n"
    "  devices         the CUDA devices (--gpu N) and whether this build's kernels run there\n"
    "\n"
    "options: --help (also after a command), --version\n"
    "exit codes: 0 ok, 1 internal error, 2 usage, 3 scene, 4 mesh, 5 numerical failure,\n"
    "            6 output I/O, 7 device, 8 memory\n";

static int is_help(const char *s) {
  return !strcmp(s, "--help") || !strcmp(s, "-h") || !strcmp(s, "help");
}

static int dispatch(int argc, char **argv) {
  const char *cmd = argv[1];
  if (is_help(cmd)) {
    int help_of = argc == 3 && !strcmp(cmd, "help"); /* help COMMAND (help help: the usage) */
    if (help_of && !is_help(argv[2])) {
      char *sub[] = {argv[0], argv[2], "--help", NULL};
      return dispatch(3, sub);
    }
    if (argc > 2 && !help_of)
      return cli_error(SIM_ERR_USAGE,
                       "unexpected argument %s after %s (help COMMAND: a command's own)", argv[2],
                       cmd);
    fputs(USAGE, stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    if (argc > 2)
      return cli_error(SIM_ERR_USAGE, "unexpected argument %s after --version", argv[2]);
    printf("simctl %s\n", sim_version());
    sim_build_info(stdout);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc, argv);
  if (!strcmp(cmd, "validate")) return cmd_validate(argc, argv);
  if (!strcmp(cmd, "info")) return cmd_info(argc, argv);
  if (!strcmp(cmd, "mesh")) return cmd_mesh(argc, argv);
  if (!strcmp(cmd, "converge")) return cmd_converge(argc, argv);
  if (!strcmp(cmd, "devices")) return cmd_devices(argc, argv);
  return cli_error(SIM_ERR_USAGE,
                   "unknown command '%s' (commands: run, validate, info, mesh, converge, devices)",
                   cmd);
}

int main(int argc, char **argv) {
  /* past a file-size limit (ulimit -f) a write then fails with EFBIG, which the writers report
     as an output error (exit 6, what was written kept), instead of killing simctl mid-file */
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    fputs(USAGE, stderr);
    return SIM_ERR_USAGE;
  }
  int rc = dispatch(argc, argv);
  return rc ? rc : cli_stdout_check(); /* after a failure its one line is the report */
}

/* SPDX-License-Identifier: MIT */
/* Sub-commands of the simctl program and their shared option parsing. */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#define CLI_MAX_SETS 256
/* An option's value as a JSON string: --out's 1023 bytes at most (output.dir's bound), each
   written as up to 6 (\u00XX), the quotes and json_quote's margin. */
#define CLI_OWNED_MAX (6 * 1023 + 16)

/* Options common to the scene sub-commands (run, validate, info). */
typedef struct cli_scene_args {
  const char *scene;
  const char *sets[CLI_MAX_SETS + 5]; /* --set values plus the 5 options turn into (owned) */
  int nsets;
  const char *out, *frames, *device, *threads, *gpu;
  int quiet;
  int resume;                        /* run --resume */
  char owned[5][CLI_OWNED_MAX + 16]; /* storage for the override strings built from options */
  char label[5][1100];  /* the option as typed ("--frames 0"), for error messages */
  int nowned;
} cli_scene_args;

/* Parses argv[first..]; returns -1 to continue, or an exit code (help printed / usage error). */
int cli_parse_scene_args(int argc, char **argv, int first, const char *usage, int allow_run_opts,
                         cli_scene_args *a);
/* "--name value" or "--name=value"; returns 1 and advances *i when argv[*i] matches. */
int cli_take_value(int argc, char **argv, int *i, const char *name, const char **value);
/* One error line for a scene failure; names the option when an option made the override. */
void cli_print_scene_error(const cli_scene_args *a, const char *msg);
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What standard output could not take (a full disk): exit 6 with one line, as for any file,
   so that a script never takes a cut table for a whole one; 0 where all of it was written.
   The error is cleared once reported. */
int cli_stdout_check(void);

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_mesh(int argc, char **argv);
int cmd_converge(int argc, char **argv);
int cmd_devices(int argc, char **argv);

/* Progress bar with ETA on a TTY (stderr); nothing otherwise. */
void cli_progress(int frame, int nframes, double elapsed_ms, void *user);

#endif

/* SPDX-License-Identifier: MIT */
/* Option parsing shared by the sub-commands; options become --set overrides so that one
   validation checks everything. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/simctl.h"
#include "cli.h"

int cli_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("simctl: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

int cli_take_value(int argc, char **argv, int *i, const char *name, const char **value) {
  size_t n = strlen(name);
  const char *arg = argv[*i];
  if (strncmp(arg, name, n) != 0) return 0;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (arg[n] != '\0') return 0;
  if (*i + 1 >= argc) {
    *value = NULL; /* reported by the caller */
    return 1;
  }
  *value = argv[++*i];
  return 1;
}

/* JSON string literal of s (quotes and backslashes escaped). */
static void json_quote(const char *s, char *out, size_t len) {
  size_t k = 0;
  out[k++] = '"';
  for (; *s && k + 3 < len; s++) {
    if (*s == '"' || *s == '\\') out[k++] = '\\';
    out[k++] = *s;
  }
  out[k++] = '"';
  out[k] = '\0';
}

int cli_parse_scene_args(int argc, char **argv, int first, const char *usage, int allow_run_opts,
                         cli_scene_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = first; i < argc; i++) {
    const char *v = NULL;
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (cli_take_value(argc, argv, &i, "--set", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--set needs PATH=VALUE");
      if (a->nsets >= CLI_MAX_SETS) return cli_error(SIM_ERR_USAGE, "too many --set options");
      a->sets[a->nsets++] = v;
    } else if (allow_run_opts && cli_take_value(argc, argv, &i, "--out", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--out needs a directory");
      a->out = v;
    } else if (allow_run_opts && cli_take_value(argc, argv, &i, "--frames", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--frames needs a number");
      a->frames = v;
    } else if (allow_run_opts && cli_take_value(argc, argv, &i, "--device", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--device needs auto, cpu or cuda");
      a->device = v;
    } else if (allow_run_opts && cli_take_value(argc, argv, &i, "--threads", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--threads needs a number");
      a->threads = v;
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      a->quiet = 1;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      return cli_error(SIM_ERR_USAGE, "unknown option %s (see --help)", arg);
    } else if (!a->scene) {
      a->scene = arg;
    } else {
      return cli_error(SIM_ERR_USAGE, "unexpected argument %s: one scene file only", arg);
    }
  }
  if (!a->scene) return cli_error(SIM_ERR_USAGE, "no scene file given (see --help)");
  /* options are overrides of their scene keys, validated like the file itself */
  int k = 0;
  if (a->out) {
    char q[1060];
    json_quote(a->out, q, sizeof q);
    snprintf(a->owned[k], sizeof a->owned[k], "output.dir=%s", q);
    a->sets[a->nsets++] = a->owned[k++];
  }
  if (a->frames) {
    snprintf(a->owned[k], sizeof a->owned[k], "solver.frames=%s", a->frames);
    a->sets[a->nsets++] = a->owned[k++];
  }
  if (a->device) {
    snprintf(a->owned[k], sizeof a->owned[k], "solver.device=%s", a->device);
    a->sets[a->nsets++] = a->owned[k++];
  }
  if (a->threads) {
    snprintf(a->owned[k], sizeof a->owned[k], "solver.threads=%s", a->threads);
    a->sets[a->nsets++] = a->owned[k++];
  }
  return -1;
}

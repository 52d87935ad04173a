/* SPDX-License-Identifier: MIT */
/* Option parsing shared by the sub-commands; options become --set overrides so that one
   validation checks everything. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/simctl.h"
#include "cli.h"

/* "simctl: error: " and the message's parts on one line: a control character (a newline a
   JSON string held, escaped, and a message quotes) is written as '?'. */
static void put_clean(const char *s) {
  for (; *s; s++) fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, stderr);
}

static void error_line(const char *a, const char *b) {
  fputs("simctl: error: ", stderr);
  put_clean(a);
  put_clean(b);
  fputc('\n', stderr);
}

int cli_error(int code, const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  error_line(msg, "");
  return code;
}

void cli_print_scene_error(const cli_scene_args *a, const char *msg) {
  /* an error on an override made from an option names the option the user typed */
  for (int k = 0; k < a->nowned; k++) {
    char prefix[1200];
    int n = snprintf(prefix, sizeof prefix, "--set %s:", a->owned[k]);
    if (n > 0 && strncmp(msg, prefix, (size_t)n) == 0) {
      char label[1200];
      snprintf(label, sizeof label, "%s:", a->label[k]);
      error_line(label, msg + n);
      return;
    }
  }
  error_line(msg, "");
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

/* JSON string literal of s (quotes, backslashes and control characters escaped); 0 where it
   did not fit in len bytes (out then holds a cut literal, not to be used). */
static int json_quote(const char *s, char *out, size_t len) {
  size_t k = 0;
  out[k++] = '"';
  for (; *s && k + 8 < len; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch < 0x20) {
      k += (size_t)snprintf(out + k, len - k, "\\u%04x", ch);
      continue;
    }
    if (ch == '"' || ch == '\\') out[k++] = '\\';
    out[k++] = (char)ch;
  }
  out[k++] = '"';
  out[k] = '\0';
  return *s == '\0';
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
      if (strlen(v) >= SIM_PATH_MAX) /* output.dir's bound */
        return cli_error(SIM_ERR_USAGE,
                         "--out: expected a folder path of at most %d bytes, got %zu",
                         SIM_PATH_MAX - 1, strlen(v));
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
    } else if (allow_run_opts && cli_take_value(argc, argv, &i, "--gpu", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--gpu needs a CUDA device's index");
      a->gpu = v;
    } else if (allow_run_opts && !strcmp(arg, "--resume")) {
      a->resume = 1;
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
    char q[CLI_OWNED_MAX];
    if (!json_quote(a->out, q, sizeof q)) /* not reached: 6 bytes a character at most */
      return cli_error(SIM_ERR_USAGE, "--out: the path cannot be quoted whole");
    snprintf(a->owned[k], sizeof a->owned[k], "output.dir=%s", q);
    snprintf(a->label[k], sizeof a->label[k], "--out %s", a->out);
    a->sets[a->nsets++] = a->owned[k++];
  }
  const char *opt[4][3] = {{"--frames", "solver.frames", a->frames},
                           {"--device", "solver.device", a->device},
                           {"--threads", "solver.threads", a->threads},
                           {"--gpu", "solver.gpu", a->gpu}};
  for (int o = 0; o < 4; o++) {
    if (!opt[o][2]) continue;
    snprintf(a->owned[k], sizeof a->owned[k], "%s=%s", opt[o][1], opt[o][2]);
    snprintf(a->label[k], sizeof a->label[k], "%s %s", opt[o][0], opt[o][2]);
    a->sets[a->nsets++] = a->owned[k++];
  }
  a->nowned = k;
  return -1;
}

int cli_stdout_check(void) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  clearerr(stdout);
  return cli_error(SIM_ERR_IO, "standard output: write failed%s%s", errno ? ": " : "",
                   errno ? strerror(errno) : "");
}

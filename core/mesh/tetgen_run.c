/* SPDX-License-Identifier: MIT */
/* TetGen front end: run the tetgen program on a .smesh, read .node/.ele back, cache them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "../io/output.h"
#include "mesh.h"

extern char **environ;

#ifndef SIMCTL_TETGEN
#define SIMCTL_TETGEN "tetgen"
#endif

const char *sim_tetgen_default_cache_dir(void) {
  static char buf[1024];
  const char *e = getenv("SIMCTL_CACHE_DIR");
  int n = -1;
  if (e && *e) {
    n = snprintf(buf, sizeof buf, "%s", e);
  } else if ((e = getenv("XDG_CACHE_HOME")) && *e) {
    n = snprintf(buf, sizeof buf, "%s/simctl/tetgen", e);
  } else if ((e = getenv("HOME")) && *e) {
    n = snprintf(buf, sizeof buf, "%s/.cache/simctl/tetgen", e);
  }
  return n > 0 && n < (int)sizeof buf ? buf : NULL;
}

/* The program to run: $SIMCTL_TETGEN when set and non-empty, else a `tetgen` beside the
   running executable (a relocated bundle ships one), else the build's SIMCTL_TETGEN. BUF
   holds the second; *FROM says which one was chosen, for messages. */
const char *sim_tetgen_program(char *buf, size_t cap, const char **from) {
  const char *e = getenv("SIMCTL_TETGEN");
  if (e && *e) {
    *from = "taken from SIMCTL_TETGEN";
    return e;
  }
  ssize_t n = readlink("/proc/self/exe", buf, cap);
  char *slash = NULL;
  if (n > 0 && (size_t)n < cap) {
    buf[n] = '\0';
    slash = strrchr(buf, '/');
  }
  if (slash && (size_t)(slash - buf) + sizeof "/tetgen" <= cap) {
    memcpy(slash, "/tetgen", sizeof "/tetgen");
    if (access(buf, X_OK) == 0) {
      *from = "found beside the simctl executable";
      return buf;
    }
  }
  *from = "the path built in";
  return SIMCTL_TETGEN;
}

/* 64-bit FNV-1a. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* "pQ" + "q<quality>" + "a<max_volume>" + validated extra switches. */
char sim_tetgen_bad_switch(const char *extra) {
  for (const char *p = extra; *p; p++) {
    char ch = *p;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '.' || ch == '/';
    if (!ok || strchr(SIM_TETGEN_REFUSED, ch)) return ch;
  }
  return 0;
}

static int build_switches(const sim_tetgen_opts *o, const char *name, char *sw, size_t cap,
                          sim_status *st) {
  int n = snprintf(sw, cap, "pQ");
  if (o->quality < 0 || o->max_volume < 0 || o->quality != o->quality ||
      o->max_volume != o->max_volume)
    return sim_fail(st, SIM_ERR_MESH,
                    "%s: tetgen: expected quality >= 0 and max_volume >= 0, "
                    "found %g and %g",
                    name, o->quality, o->max_volume);
  if (o->quality > 0) n += snprintf(sw + n, cap - (size_t)n, "q%.9g", o->quality);
  if (o->max_volume > 0) n += snprintf(sw + n, cap - (size_t)n, "a%.9g", o->max_volume);
  if (o->extra) {
    size_t len = strlen(o->extra);
    char ch = sim_tetgen_bad_switch(o->extra);
    if (ch)
      return sim_fail(st, SIM_ERR_MESH,
                      "%s: tetgen: extra switches \"%s\": character '%c' is not allowed "
                      "(expected letters, digits, '.' and '/' but not any of %s)",
                      name, o->extra, ch, SIM_TETGEN_REFUSED);
    if (len + (size_t)n + 1 > cap)
      return sim_fail(st, SIM_ERR_MESH, "%s: tetgen: extra switches \"%s\" are too long", name,
                      o->extra);
    n += snprintf(sw + n, cap - (size_t)n, "%s", o->extra);
  }
  return SIM_OK;
}

static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *de;
    char p[2048];
    while ((de = readdir(d)))
      if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(dir);
}

static int write_smesh(const char *path, const sim_surface *s, const char *name, sim_status *st) {
  FILE *f = fopen(path, "w");
  if (!f) return sim_fail(st, SIM_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  fprintf(f, "# simctl surface %s\n# part 1: nodes\n%d 3 0 0\n", name, s->nv);
  for (int i = 0; i < s->nv; i++)
    fprintf(f, "%d %.17g %.17g %.17g\n", i, s->x[3 * i], s->x[3 * i + 1], s->x[3 * i + 2]);
  fprintf(f, "# part 2: facets\n%d 0\n", s->nt);
  for (int t = 0; t < s->nt; t++)
    fprintf(f, "3 %d %d %d\n", s->tri[3 * t], s->tri[3 * t + 1], s->tri[3 * t + 2]);
  fprintf(f, "# part 3: holes\n0\n# part 4: regions\n0\n");
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", path, strerror(errno));
  return SIM_OK;
}

/* Last non-empty line of the log (printable characters only). */
static void last_log_line(const char *log, char *out, size_t cap) {
  snprintf(out, cap, "(no output)");
  FILE *f = fopen(log, "rb");
  if (!f) return;
  char buf[4096];
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size > (long)sizeof buf - 1)
    fseek(f, size - (long)(sizeof buf - 1), SEEK_SET);
  else
    fseek(f, 0, SEEK_SET);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) n--;
  if (n == 0) return;
  size_t b = n;
  while (b > 0 && buf[b - 1] != '\n') b--;
  size_t k = 0;
  for (size_t i = b; i < n && k + 1 < cap; i++)
    out[k++] = (buf[i] >= 32 && buf[i] < 127) ? buf[i] : '?';
  out[k] = '\0';
}

/* While tetgen runs, a SIGTERM, SIGINT or SIGHUP to simctl is passed on to it, so that a
   batch system's kill does not leave it running on (a terminal's Ctrl-C reaches both). */
static const int PASSED_ON[3] = {SIGTERM, SIGINT, SIGHUP};
static volatile sig_atomic_t child_pid, caught;

static void pass_on(int sig) {
  caught = sig;
  if (child_pid > 0) kill((pid_t)child_pid, sig);
}

/* Waits for tetgen (pid) with the signals passed on to it; *sig: the one caught, or 0. */
static int wait_child(pid_t pid, int *status, int *sig) {
  struct sigaction sa, old[3];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = pass_on;
  sigemptyset(&sa.sa_mask);
  caught = 0;
  child_pid = pid;
  for (int k = 0; k < 3; k++) sigaction(PASSED_ON[k], &sa, &old[k]);
  int rc;
  while ((rc = (int)waitpid(pid, status, 0)) < 0 && errno == EINTR) {
  }
  int err = errno;
  child_pid = 0;
  for (int k = 0; k < 3; k++) sigaction(PASSED_ON[k], &old[k], NULL);
  *sig = caught;
  errno = err;
  return rc < 0 ? -1 : 0;
}

/* Runs PROG -SW SMESH with stdout and stderr to LOG; 1 in *failed when tetgen failed; the
   signal simctl caught meanwhile in *sig (tetgen was given it too). */
static int run_tetgen(const char *prog, const char *from, const char *sw, const char *smesh,
                      const char *log, const char *name, int *failed, int *sig, sim_status *st) {
  char arg1[320];
  snprintf(arg1, sizeof arg1, "-%s", sw);
  char *argv[] = {(char *)prog, arg1, (char *)smesh, NULL};
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa))
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: tetgen: posix_spawn_file_actions_init failed", name);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int err = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err)
    return sim_fail(st, SIM_ERR_MESH,
                    "%s: cannot run the tetgen program '%s': %s (%s; set "
                    "SIMCTL_TETGEN to its path)",
                    name, prog, strerror(err), from);
  int status;
  if (wait_child(pid, &status, sig))
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: tetgen: waitpid failed: %s", name, strerror(errno));
  if (*sig)
    return sim_fail(st, SIM_ERR_MESH, "%s: tetgen stopped by signal %d to simctl", name, *sig);
  char how[64], last[256];
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return SIM_OK;
  if (WIFSIGNALED(status))
    snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
  else
    snprintf(how, sizeof how, "exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  last_log_line(log, last, sizeof last);
  *failed = 1;
  /* SIGKILL is what the kernel's out-of-memory killer (or a batch system) sends: not a sign
     of a bad surface */
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
    return sim_fail(st, SIM_ERR_MESH,
                    "%s: tetgen was killed (signal 9: out of memory?): %s; try a larger "
                    "max_volume or fewer switches (its input: %s)",
                    name, last, smesh);
  return sim_fail(st, SIM_ERR_MESH,
                  "%s: tetgen failed (%s): %s; a self-intersecting surface "
                  "is the usual cause (list them with: tetgen -d %s)",
                  name, how, last, smesh);
}

/* Cache hit: CACHE/<hex>.node and .ele read and valid. */
static int cache_load(const char *node, const char *name, sim_tetmesh *out) {
  sim_status lst;
  sim_status_clear(&lst);
  if (access(node, R_OK) != 0) return 0;
  if (sim_read_tetgen(node, out, &lst) || sim_tetmesh_orient(out, name, &lst)) {
    sim_tetmesh_free(out);
    return 0; /* unreadable entry: mesh again and overwrite it */
  }
  return 1;
}

/* Refuses a max_volume so small for the enclosed volume that TetGen would need more than
   SIM_TETGEN_MAX_TETS tets (each tet is at most max_volume, so volume / max_volume is a lower
   bound on their number), before TetGen runs out of memory trying. */
static int check_tet_count(const sim_surface *s, const sim_tetgen_opts *o, const char *name,
                           sim_status *st) {
  if (o->max_volume <= 0) return SIM_OK;
  double need = sim_surface_volume(s) / o->max_volume;
  if (need <= SIM_TETGEN_MAX_TETS) return SIM_OK;
  return sim_fail(st, SIM_ERR_MESH,
                  "%s: tetgen max_volume %g would need at least %.3g tets (enclosed volume %g / "
                  "max_volume), more than the limit of %.0e: raise %s",
                  name, o->max_volume, need, sim_surface_volume(s), SIM_TETGEN_MAX_TETS,
                  o->max_volume_key ? o->max_volume_key : "max_volume");
}

/* TetGen meshes the whole region inside the outer shell: a cavity (an inner shell facing in)
   or a shell nested in another comes back filled. The tets' volume then differs from the
   enclosed volume the surface's orientation defines, which is how it shows. */
static int check_volume(const sim_surface *s, const sim_tetgen_opts *o, const sim_tetmesh *m,
                        const char *name, sim_status *st) {
  if (o->extra && strchr(o->extra, 'c')) return SIM_OK; /* -c: the convex hull, asked for */
  const double vs = sim_surface_volume(s), vm = sim_tetmesh_volume(m);
  if (fabs(vm - vs) <= 1e-6 * fabs(vs)) return SIM_OK;
  return sim_fail(st, SIM_ERR_MESH,
                  "%s: the surface has a cavity or nested shells, which TetGen fills (enclosed "
                  "volume %.9g, tet mesh volume %.9g): expected shells none of which lies "
                  "inside another",
                  name, vs, vm);
}

int sim_tetgen(const sim_surface *s, const sim_tetgen_opts *o, const char *name, sim_tetmesh *out,
               sim_status *st) {
  memset(out, 0, sizeof *out);
  const sim_tetgen_opts none = {0};
  if (!o) o = &none;
  if (!name) name = "surface";
  if (sim_surface_check_closed(s, name, st)) return st->code;
  char sw[256];
  if (build_switches(o, name, sw, sizeof sw, st) || check_tet_count(s, o, name, st))
    return st->code;
  uint64_t h = 1469598103934665603ull;
  h = fnv1a(h, "simctl-tetgen-1", 15);
  h = fnv1a(h, &s->nv, sizeof s->nv);
  h = fnv1a(h, s->x, 3 * sizeof *s->x * (size_t)s->nv);
  h = fnv1a(h, &s->nt, sizeof s->nt);
  h = fnv1a(h, s->tri, 3 * sizeof *s->tri * (size_t)s->nt);
  h = fnv1a(h, sw, strlen(sw));
  char cache_node[1100] = "";
  if (o->cache_dir && *o->cache_dir) {
    if (strlen(o->cache_dir) > 1000)
      return sim_fail(st, SIM_ERR_IO, "%s: cache directory path too long", o->cache_dir);
    snprintf(cache_node, sizeof cache_node, "%s/%016llx.node", o->cache_dir, (unsigned long long)h);
    if (cache_load(cache_node, name, out)) {
      if (check_volume(s, o, out, name, st) == SIM_OK) return SIM_OK;
      sim_tetmesh_free(out); /* an entry written before the volume was checked */
      return st->code;
    }
  }
  const char *tmp = getenv("TMPDIR");
  char dir[1024], smesh[1100], log[1100], node[1100];
  snprintf(dir, sizeof dir, "%s/simctl-tetgen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (strlen(dir) >= 1000 || !mkdtemp(dir))
    return sim_fail(st, SIM_ERR_IO, "%s: cannot create a temporary directory: %s", dir,
                    strerror(errno));
  snprintf(smesh, sizeof smesh, "%s/in.smesh", dir);
  snprintf(log, sizeof log, "%s/tetgen.log", dir);
  snprintf(node, sizeof node, "%s/in.1.node", dir);
  int failed = 0, sig = 0;
  char beside[1024];
  const char *from;
  const char *prog = sim_tetgen_program(beside, sizeof beside, &from);
  if (write_smesh(smesh, s, name, st) ||
      run_tetgen(prog, from, sw, smesh, log, name, &failed, &sig, st)) {
    if (!failed) remove_dir(dir); /* a failed run keeps in.smesh for 'tetgen -d' */
    if (sig) raise(sig);          /* the signal's own action, now that the folder is gone */
    return st->code;
  }
  int rc = sim_read_tetgen(node, out, st);
  if (rc == SIM_OK) rc = sim_tetmesh_orient(out, name, st);
  if (rc == SIM_OK) rc = sim_tetmesh_compact(out, st);
  if (rc == SIM_OK) rc = check_volume(s, o, out, name, st);
  remove_dir(dir);
  if (rc) {
    sim_tetmesh_free(out);
    return rc;
  }
  if (cache_node[0]) { /* a cache that cannot be written only costs time later */
    sim_status lst;
    sim_status_clear(&lst);
    if (sim_mkdirs(o->cache_dir, &lst) == SIM_OK) sim_write_tetgen(cache_node, out, &lst);
  }
  return SIM_OK;
}

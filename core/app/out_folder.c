/* SPDX-License-Identifier: MIT */
/* A run's hold on its output folder: a lock, so that two runs never write into one folder at
   once, and an earlier run's files removed, so that a shorter run, or one with fewer formats,
   does not leave frames that are not its own beside its own. */
#define _DEFAULT_SOURCE /* flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer.h"

/* Whether s is digits alone (at least one). */
static int all_digits(const char *s, size_t len) {
  if (len == 0) return 0;
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

/* A temporary file of an atomic write (NAME.tmp.PID) left by a run killed outright: the length
   of NAME, else 0. */
static size_t tmp_base(const char *name) {
  const char *t = strstr(name, ".tmp.");
  while (t) {
    const char *pid = t + 5;
    if (all_digits(pid, strlen(pid))) return (size_t)(t - name);
    t = strstr(t + 1, ".tmp.");
  }
  return 0;
}

/* The names below are NAME's length len of an entry (a temporary file's NAME.tmp.PID
   stripped to its NAME by clear_folder). */

/* A frame's file: NNNNN.vtk, .obj, .obstacles.obj, .png or .state (five digits or more), or
   the series file. */
static int frame_file(const char *name, size_t len) {
  static const char series[] = "frames.vtk.series";
  if (len == sizeof series - 1 && !strncmp(name, series, len)) return 1;
  static const char *const ext[] = {".obstacles.obj", ".vtk", ".obj", ".png", ".state"};
  for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
    size_t el = strlen(ext[k]);
    if (len >= el + 5 && !strncmp(name + len - el, ext[k], el) && all_digits(name, len - el))
      return 1;
  }
  return 0;
}

/* A file of the output folder itself: timing.csv, memory.csv or summary.json (the run writes
   it anew as it starts; gone with the others, an earlier run's "ok" never stays over a folder
   whose clearing failed), or ranges.csv (written at the end, SIMCTL_CUDA_RANGES=on). */
static int table_file(const char *name, size_t len) {
  static const char *const tables[] = {"timing.csv", "memory.csv", "summary.json", "ranges.csv"};
  for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
    if (len == strlen(tables[k]) && !strncmp(name, tables[k], len)) return 1;
  return 0;
}

/* converge's tables: converge_NAME.csv (a solver's or the summary). */
static int converge_file(const char *name, size_t len) {
  return len > strlen("converge_.csv") && !strncmp(name, "converge_", 9) &&
         !strncmp(name + len - 4, ".csv", 4);
}

/* What a resumed run removes (sim_outputs_clear_after): frame files past `frame`, tables but
   timing.csv where keep_timing, and every temporary file of either. */
typedef struct after_ctx {
  int frame, keep_timing;
} after_ctx;

/* The frame number of a frame file NNNNN.EXT of NAME's length len (not the series), else -1. */
static long frame_number(const char *name, size_t len) {
  if (!frame_file(name, len)) return -1;
  long f = 0;
  for (size_t i = 0; i < len && name[i] >= '0' && name[i] <= '9'; i++)
    f = f > 100000000 ? f : 10 * f + (name[i] - '0');
  return name[0] >= '0' && name[0] <= '9' ? f : -1;
}

static int after_frame(const char *name, size_t len, int tmp, const void *ctx) {
  const after_ctx *a = ctx;
  if (tmp) return frame_file(name, len) || table_file(name, len);
  if (table_file(name, len))
    return !(a->keep_timing && len == strlen("timing.csv") && !strncmp(name, "timing.csv", len));
  return frame_number(name, len) > a->frame;
}

/* Removes the plain files in folder `dir` whose names `mine` accepts (an entry NAME.tmp.PID
   given as NAME's length and tmp 1): all it can, the first failure reported. */
static int clear_folder_if(const char *dir, int (*mine)(const char *, size_t, int, const void *),
                           const void *ctx, sim_status *st) {
  DIR *d = opendir(dir);
  if (!d) return sim_fail(st, SIM_ERR_IO, "%s: cannot read: %s", dir, strerror(errno));
  char path[SIM_PATH_MAX + 300];
  int rc = SIM_OK;
  for (struct dirent *e; (e = readdir(d));) {
    size_t base = tmp_base(e->d_name);
    if (!mine(e->d_name, base ? base : strlen(e->d_name), base > 0, ctx)) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue; /* a folder or link: not ours */
    if (remove(path) != 0 && errno != ENOENT && !rc)
      rc = sim_fail(st, SIM_ERR_IO, "%s: cannot remove an earlier run's file: %s", path,
                    strerror(errno));
  }
  closedir(d);
  return rc;
}

/* clear_folder_if with a test of the name alone (ctx: a name_test) */
typedef struct name_test {
  int (*mine)(const char *, size_t);
} name_test;
static int by_name(const char *name, size_t len, int tmp, const void *ctx) {
  (void)tmp;
  return ((const name_test *)ctx)->mine(name, len);
}
static int clear_folder(const char *dir, int (*mine)(const char *, size_t), sim_status *st) {
  const name_test t = {mine};
  return clear_folder_if(dir, by_name, &t, st);
}

int sim_outputs_clear_converge(const char *dir, sim_status *st) {
  return clear_folder(dir, converge_file, st);
}

int sim_outputs_clear(const char *dir, const char *frames_dir, sim_status *st) {
  sim_status ignore = {0}; /* after a failure, the first is the one reported */
  int rc = clear_folder(dir, table_file, st);
  int rf = clear_folder(frames_dir, frame_file, rc ? &ignore : st);
  return rc ? rc : rf;
}

int sim_outputs_clear_after(const char *dir, const char *frames_dir, int frame, int keep_timing,
                            sim_status *st) {
  const after_ctx a = {frame, keep_timing};
  int rc = clear_folder_if(dir, after_frame, &a, st);
  sim_status ignore = {0};
  int rf = clear_folder_if(frames_dir, after_frame, &a, rc ? &ignore : st);
  return rc ? rc : rf;
}

/* A state file NNNNN.state but frame `keep`'s (ctx: that frame). */
static int other_state(const char *name, size_t len, int tmp, const void *ctx) {
  return !tmp && len > 6 && !strncmp(name + len - 6, ".state", 6) &&
         frame_number(name, len) != *(const int *)ctx;
}

int sim_outputs_clear_states(const char *frames_dir, int keep, sim_status *st) {
  return clear_folder_if(frames_dir, other_state, &keep, st);
}

static int busy(const char *dir, sim_status *st) {
  sim_fail(st, SIM_ERR_IO,
           "%s: another simctl run is writing into this folder; give this run its own --out "
           "(or output.dir)",
           dir);
  return -2;
}

/* Where a folder takes no flock (NFS emulates flock by POSIX locks, which need a file open
   for writing): a POSIX lock on DIR/.simctl.lock, which stays in the folder. */
static int claim_file(const char *dir, sim_status *st) {
  char path[SIM_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/.simctl.lock", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1; /* no lock to be had: go on unlocked */
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd, F_SETLK, &fl) == 0) return fd;
  int e = errno;
  close(fd);
  return e == EACCES || e == EAGAIN ? busy(dir, st) : -1;
}

int sim_outputs_claim(const char *dir, sim_status *st) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    sim_fail(st, SIM_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
    return -2;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  int e = errno;
  close(fd);
  if (e == EWOULDBLOCK || e == EINTR) return busy(dir, st);
  return claim_file(dir, st);
}

void sim_outputs_release(int fd) {
  if (fd >= 0) close(fd);
}

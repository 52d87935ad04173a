/* SPDX-License-Identifier: MIT */
/* Atomic file writes (temporary file in the same directory, then rename), mkdir -p, and whole
   files read. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "output.h"

int sim_atomic_open(sim_atomic_file *af, const char *path, const char *mode, sim_status *st) {
  memset(af, 0, sizeof *af);
  if (strlen(path) >= sizeof af->path)
    return sim_fail(st, SIM_ERR_IO, "%s: path too long", path);
  snprintf(af->path, sizeof af->path, "%s", path);
  snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld", path, (long)getpid());
  af->f = fopen(af->tmp, mode);
  if (!af->f) return sim_fail(st, SIM_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  return SIM_OK;
}

int sim_atomic_commit(sim_atomic_file *af, sim_status *st) {
  if (!af->f) return sim_fail(st, SIM_ERR_IO, "%s: file was not open", af->path);
  int bad = ferror(af->f);
  int closed = fclose(af->f);
  af->f = NULL;
  if (bad || closed != 0) {
    int e = errno;
    remove(af->tmp);
    return sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", af->path, strerror(e));
  }
  if (rename(af->tmp, af->path) != 0) {
    int e = errno;
    remove(af->tmp);
    return sim_fail(st, SIM_ERR_IO, "%s: cannot rename from %s: %s", af->path, af->tmp,
                    strerror(e));
  }
  return SIM_OK;
}

void sim_atomic_abort(sim_atomic_file *af) {
  if (af->f) fclose(af->f);
  af->f = NULL;
  if (af->tmp[0]) remove(af->tmp);
}

int sim_write_file_atomic(const char *path, const void *data, size_t bytes, sim_status *st) {
  sim_atomic_file af;
  if (sim_atomic_open(&af, path, "wb", st)) return st->code;
  if (bytes && fwrite(data, 1, bytes, af.f) != bytes) {
    sim_atomic_abort(&af);
    return sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", path, strerror(errno));
  }
  return sim_atomic_commit(&af, st);
}

int sim_mkdirs(const char *dir, sim_status *st) {
  char buf[1024];
  size_t len = strlen(dir);
  if (len == 0 || len >= sizeof buf) return sim_fail(st, SIM_ERR_IO, "%s: bad directory", dir);
  memcpy(buf, dir, len + 1);
  for (size_t i = 1; i <= len; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char c = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return sim_fail(st, SIM_ERR_IO, "%s: cannot create directory: %s", buf, strerror(errno));
    buf[i] = c;
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return sim_fail(st, SIM_ERR_IO, "%s: not a directory", dir);
  return SIM_OK;
}

int sim_read_file(const char *path, int optional, char **buf, size_t *len, sim_status *st) {
  *buf = NULL;
  FILE *f = fopen(path, "rb");
  if (!f && optional && errno == ENOENT) return SIM_OK;
  if (!f) return sim_fail(st, SIM_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  char *b = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? sim_malloc((size_t)size + 1) : NULL;
  size_t got = b ? fread(b, 1, (size_t)size, f) : 0;
  int bad = !b || got != (size_t)size || ferror(f);
  fclose(f);
  if (bad) {
    sim_free(b);
    return sim_fail(st, size < 0 ? SIM_ERR_IO : SIM_ERR_MEMORY, "%s: cannot read it whole", path);
  }
  b[size] = '\0';
  *buf = b;
  if (len) *len = (size_t)size;
  return SIM_OK;
}

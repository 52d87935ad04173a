/* SPDX-License-Identifier: MIT */
/* simctl's own legacy VTK frames read back (`simctl run --resume`): positions, velocities and
   body ids, the layout vtk_write.c writes and nothing else. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "output.h"

typedef struct vtk_in {
  FILE *f;
  const char *path;
  sim_status *st;
} vtk_in;

static int cut(vtk_in *in, const char *what) {
  return sim_fail(in->st, SIM_ERR_IO, "%s: cut short in %s (a frame simctl wrote was expected)",
                  in->path, what);
}

/* The next text line into buf, its newline dropped. */
static int line(vtk_in *in, char *buf, size_t len, const char *what) {
  if (!fgets(buf, (int)len, in->f)) return cut(in, what);
  buf[strcspn(buf, "\n")] = '\0';
  return SIM_OK;
}

/* The next line must be `want` (a keyword line whose counts are checked by the caller). */
static int expect(vtk_in *in, const char *want) {
  char buf[256];
  if (line(in, buf, sizeof buf, want)) return in->st->code;
  if (strcmp(buf, want) != 0)
    return sim_fail(in->st, SIM_ERR_IO, "%s: expected '%s', found '%.60s' (a frame simctl wrote)",
                    in->path, want, buf);
  return SIM_OK;
}

/* n big-endian values of `size` bytes each (8: doubles into d; 4: ints into i; NULL: skipped),
   then the block's newline. */
static int block(vtk_in *in, long n, int size, double *d, int *i, const char *what) {
  unsigned char b[8];
  for (long k = 0; k < n; k++) {
    if (fread(b, 1, (size_t)size, in->f) != (size_t)size) return cut(in, what);
    uint64_t u = 0;
    for (int j = 0; j < size; j++) u = u << 8 | b[j];
    if (d) memcpy(&d[k], &u, sizeof u);
    if (i) i[k] = (int)(int32_t)(uint32_t)u;
  }
  if (fgetc(in->f) != '\n') return cut(in, what);
  return SIM_OK;
}

static int read_frame(vtk_in *in, int nv, double *x, double *v, int *body) {
  char buf[256];
  int n = -1, m = -1;
  long len = -1;
  if (expect(in, "# vtk DataFile Version 3.0")) return in->st->code;
  if (line(in, buf, sizeof buf, "the title")) return in->st->code;
  if (strncmp(buf, "simctl frame ", 13) != 0)
    return sim_fail(in->st, SIM_ERR_IO, "%s: not a frame simctl wrote (title '%.60s')", in->path,
                    buf);
  if (expect(in, "BINARY") || expect(in, "DATASET UNSTRUCTURED_GRID")) return in->st->code;
  if (line(in, buf, sizeof buf, "POINTS")) return in->st->code;
  if (sscanf(buf, "POINTS %d double", &n) != 1 || n < 0)
    return sim_fail(in->st, SIM_ERR_IO, "%s: expected 'POINTS N double', found '%.60s'", in->path,
                    buf);
  if (n != nv)
    return sim_fail(in->st, SIM_ERR_IO,
                    "%s: %d points, but the scene's model has %d vertices: a frame of another "
                    "scene",
                    in->path, n, nv);
  if (block(in, 3L * n, 8, x, NULL, "POINTS")) return in->st->code;
  if (line(in, buf, sizeof buf, "CELLS")) return in->st->code;
  if (sscanf(buf, "CELLS %d %ld", &m, &len) != 2 || m < 0 || len < 0)
    return sim_fail(in->st, SIM_ERR_IO, "%s: expected 'CELLS N SIZE', found '%.60s'", in->path,
                    buf);
  if (block(in, len, 4, NULL, NULL, "CELLS")) return in->st->code;
  snprintf(buf, sizeof buf, "CELL_TYPES %d", m);
  if (expect(in, buf) || block(in, m, 4, NULL, NULL, "CELL_TYPES")) return in->st->code;
  if (nv == 0) return SIM_OK;
  snprintf(buf, sizeof buf, "POINT_DATA %d", nv);
  if (expect(in, buf) || expect(in, "VECTORS velocity double") ||
      block(in, 3L * nv, 8, v, NULL, "velocity"))
    return in->st->code;
  if (expect(in, "SCALARS body_id int 1") || expect(in, "LOOKUP_TABLE default") ||
      block(in, nv, 4, NULL, body, "body_id"))
    return in->st->code;
  return SIM_OK;
}

int sim_read_vtk_frame(const char *path, int nv, double *x, double *v, int *body, sim_status *st) {
  vtk_in in = {fopen(path, "rb"), path, st};
  if (!in.f) return sim_fail(st, SIM_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
  int rc = read_frame(&in, nv, x, v, body);
  fclose(in.f);
  return rc;
}

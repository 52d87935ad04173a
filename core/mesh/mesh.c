/* SPDX-License-Identifier: MIT */
/* Mesh lifetime, volumes, and the reader dispatch on file extension. */
#include "mesh.h"

#include <string.h>
#include <strings.h>

#include "../base/alloc.h"

void sim_surface_free(sim_surface *s) {
  if (!s) return;
  sim_free(s->x);
  sim_free(s->tri);
  memset(s, 0, sizeof *s);
}

void sim_tetmesh_free(sim_tetmesh *m) {
  if (!m) return;
  sim_free(m->x);
  sim_free(m->tet);
  memset(m, 0, sizeof *m);
}

/* V = sum over triangles of x_a . (x_b x x_c) / 6 (divergence theorem). */
double sim_surface_volume(const sim_surface *s) {
  double v = 0;
  for (int t = 0; t < s->nt; t++) {
    const double *a = s->x + 3 * s->tri[3 * t], *b = s->x + 3 * s->tri[3 * t + 1],
                 *c = s->x + 3 * s->tri[3 * t + 2];
    v += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
         a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return v / 6.0;
}

/* V = det(x1 - x0, x2 - x0, x3 - x0) / 6 per tet. */
double sim_tetmesh_volume(const sim_tetmesh *m) {
  double v = 0;
  for (int t = 0; t < m->ntet; t++) {
    const int *k = m->tet + 4 * t;
    const double *p = m->x + 3 * k[0];
    double e[3][3];
    for (int i = 0; i < 3; i++)
      for (int d = 0; d < 3; d++) e[i][d] = m->x[3 * k[i + 1] + d] - p[d];
    v += e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  }
  return v / 6.0;
}

static int has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), k = strlen(ext);
  return n > k && strcasecmp(path + n - k, ext) == 0;
}

int sim_read_surface(const char *path, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (has_ext(path, ".obj")) return sim_read_obj(path, out, st);
  if (has_ext(path, ".off")) return sim_read_off(path, out, st);
  if (has_ext(path, ".stl")) return sim_read_stl(path, out, st);
  return sim_fail(st, SIM_ERR_MESH,
                  "%s: unknown surface file extension (expected .obj, .off or .stl)", path);
}

int sim_read_tetmesh(const char *path, sim_tetmesh *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (has_ext(path, ".node") || has_ext(path, ".ele")) return sim_read_tetgen(path, out, st);
  if (has_ext(path, ".msh")) return sim_read_msh(path, out, st);
  if (has_ext(path, ".vtk")) return sim_read_vtk(path, out, st);
  return sim_fail(st, SIM_ERR_MESH,
                  "%s: unknown tet mesh file extension (expected .node, .ele, .msh or .vtk)", path);
}

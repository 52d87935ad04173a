/* SPDX-License-Identifier: MIT */
/* TetGen .node/.ele reader (0- or 1-based, taken from the first point) and writer. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../base/alloc.h"
#include "../io/output.h"
#include "mesh.h"

/* STEM of PATH when it ends in EXT (case-insensitive); 0 when it does not. */
static int stem_of(const char *path, const char *ext, char *stem, size_t cap) {
  size_t n = strlen(path), k = strlen(ext);
  if (n <= k || strcasecmp(path + n - k, ext) != 0 || n - k >= cap) return 0;
  memcpy(stem, path, n - k);
  stem[n - k] = '\0';
  return 1;
}

static int read_node(const char *path, sim_tetmesh *m, int *base, sim_status *st) {
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  sim_mesh_cursor c;
  sim_mesh_cursor_init(&c, path, buf, len, '#');
  int nv, dim, nattr, nmark, rc = SIM_OK;
  long long cap = (long long)len < INT_MAX / 3 ? (long long)len : INT_MAX / 3;
  if (sim_mesh_read_int(&c, &nv, 4, cap, "point count", st) ||
      sim_mesh_read_int(&c, &dim, 3, 3, "dimension", st) ||
      sim_mesh_read_int(&c, &nattr, 0, INT_MAX, "attribute count", st) ||
      sim_mesh_read_int(&c, &nmark, 0, 1, "boundary marker flag", st)) {
    sim_free(buf);
    return st->code;
  }
  sim_mesh_skip_line(&c);
  m->x = SIM_NEW(double, 3 * nv);
  if (!m->x) {
    sim_free(buf);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d points", path, nv);
  }
  for (int i = 0; i < nv && rc == SIM_OK; i++) {
    long long idx;
    if (sim_mesh_read_long(&c, &idx, "a point index", st)) break;
    if (i == 0 && idx != 0 && idx != 1) {
      rc = sim_mesh_fail(&c, st, "expected first point index 0 or 1, found %lld", idx);
      break;
    }
    if (i == 0) *base = (int)idx;
    if (idx != *base + (long long)i) {
      rc = sim_mesh_fail(&c, st, "expected point index %d, found %lld", *base + i, idx);
      break;
    }
    for (int d = 0; d < 3 && rc == SIM_OK; d++)
      if (!(rc = sim_mesh_fields(&c, d, 3, "coordinates after the point index", st)))
        rc = sim_mesh_read_double(&c, &m->x[3 * i + d], "a point coordinate", st);
    sim_mesh_skip_line(&c); /* attributes, boundary marker */
  }
  if (st->code == SIM_OK) sim_mesh_expect_end(&c, nv, "points", st);
  sim_free(buf);
  if (st->code) return st->code;
  m->nv = nv;
  return SIM_OK;
}

static int read_ele(const char *path, sim_tetmesh *m, int base, sim_status *st) {
  char *buf;
  size_t len;
  if (sim_mesh_load_file(path, &buf, &len, st)) return st->code;
  sim_mesh_cursor c;
  sim_mesh_cursor_init(&c, path, buf, len, '#');
  int nt, npt, nattr;
  long long cap = (long long)len < INT_MAX / 4 ? (long long)len : INT_MAX / 4;
  if (sim_mesh_read_int(&c, &nt, 1, cap, "tetrahedron count", st) ||
      sim_mesh_read_int(&c, &npt, 4, 10, "nodes per tetrahedron", st) ||
      sim_mesh_read_int(&c, &nattr, 0, INT_MAX, "attribute count", st)) {
    sim_free(buf);
    return st->code;
  }
  if (npt != 4 && npt != 10) {
    sim_mesh_fail(&c, st, "expected 4 or 10 nodes per tetrahedron, found %d", npt);
    sim_free(buf);
    return st->code;
  }
  sim_mesh_skip_line(&c);
  m->tet = SIM_NEW(int, 4 * nt);
  if (!m->tet) {
    sim_free(buf);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d tetrahedra", path, nt);
  }
  for (int t = 0; t < nt; t++) {
    long long idx;
    if (sim_mesh_read_long(&c, &idx, "a tetrahedron index", st)) break;
    if (idx != base + (long long)t) {
      sim_mesh_fail(&c, st,
                    "expected tetrahedron index %d (numbered from %d like the points), "
                    "found %lld",
                    base + t, base, idx);
      break;
    }
    int k;
    for (k = 0; k < 4; k++) {
      if (sim_mesh_fields(&c, k, 4, "point indices after the tetrahedron index", st) ||
          sim_mesh_read_int(&c, &m->tet[4 * t + k], base, base + (long long)m->nv - 1,
                            "point index", st))
        break;
      m->tet[4 * t + k] -= base;
    }
    if (k < 4) break;
    sim_mesh_skip_line(&c); /* higher-order nodes, attributes */
  }
  if (st->code == SIM_OK) sim_mesh_expect_end(&c, nt, "tetrahedra", st);
  sim_free(buf);
  if (st->code) return st->code;
  m->ntet = nt;
  return SIM_OK;
}

int sim_read_tetgen(const char *node_path, sim_tetmesh *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  char stem[1024], node[1100], ele[1100];
  if (!stem_of(node_path, ".node", stem, sizeof stem) &&
      !stem_of(node_path, ".ele", stem, sizeof stem))
    return sim_fail(st, SIM_ERR_MESH, "%s: expected a path ending in .node or .ele", node_path);
  snprintf(node, sizeof node, "%s.node", stem);
  snprintf(ele, sizeof ele, "%s.ele", stem);
  int base = 0;
  if (read_node(node, out, &base, st) || read_ele(ele, out, base, st)) {
    sim_tetmesh_free(out);
    return st->code;
  }
  return SIM_OK;
}

int sim_write_tetgen(const char *node_path, const sim_tetmesh *m, sim_status *st) {
  char stem[1024], ele[1100];
  if (!stem_of(node_path, ".node", stem, sizeof stem))
    return sim_fail(st, SIM_ERR_IO, "%s: expected a path ending in .node", node_path);
  snprintf(ele, sizeof ele, "%s.ele", stem);
  sim_atomic_file fn, fe;
  if (sim_atomic_open(&fn, node_path, "w", st)) return st->code;
  if (sim_atomic_open(&fe, ele, "w", st)) {
    sim_atomic_abort(&fn);
    return st->code;
  }
  fprintf(fn.f, "# simctl tet mesh\n%d 3 0 0\n", m->nv);
  for (int i = 0; i < m->nv; i++)
    fprintf(fn.f, "%d %.17g %.17g %.17g\n", i, m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
  fprintf(fe.f, "# simctl tet mesh\n%d 4 0\n", m->ntet);
  for (int t = 0; t < m->ntet; t++)
    fprintf(fe.f, "%d %d %d %d %d\n", t, m->tet[4 * t], m->tet[4 * t + 1], m->tet[4 * t + 2],
            m->tet[4 * t + 3]);
  /* the .ele goes first: a .node present means its .ele is complete */
  if (sim_atomic_commit(&fe, st)) {
    sim_atomic_abort(&fn);
    return st->code;
  }
  if (sim_atomic_commit(&fn, st)) {
    remove(ele); /* no .ele without its .node (nor beside an earlier one) */
    return st->code;
  }
  return SIM_OK;
}

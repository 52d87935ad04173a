/* SPDX-License-Identifier: MIT */
/* `simctl mesh`: a surface file through TetGen to a tet mesh file (.node/.ele or .vtk). */
#include <string.h>

#include "../base/alloc.h"
#include "../io/output.h"
#include "../mesh/mesh.h"
#include "../simctl.h"

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

int sim_mesh_file(const char *surface, double quality, double max_volume, const char *switches,
                  const char *out_path, FILE *log, sim_status *st) {
  if (!ends_with(out_path, ".node") && !ends_with(out_path, ".vtk"))
    return sim_fail(st, SIM_ERR_USAGE, "%s: output must end in .node (with .ele beside it) or .vtk",
                    out_path);
  sim_surface s = {0};
  sim_tetmesh tm = {0};
  int rc = sim_read_surface(surface, &s, st);
  if (!rc) {
    sim_tetgen_opts o = {quality, max_volume, switches, sim_cache_dir(), "--max-volume"};
    rc = sim_tetgen(&s, &o, surface, &tm, st);
  }
  if (!rc && ends_with(out_path, ".node")) rc = sim_write_tetgen(out_path, &tm, st);
  if (!rc && ends_with(out_path, ".vtk")) {
    int *zero = SIM_NEW0(int, (size_t)tm.nv + 1);
    if (!zero) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory");
    sim_frame_view fv = {0, 0.0, tm.nv, tm.x, NULL, zero, tm.ntet, tm.tet, NULL,
                         0, NULL, NULL, 1, NULL};
    if (!rc) rc = sim_write_vtk(out_path, &fv, st);
    sim_free(zero);
  }
  if (!rc && log)
    fprintf(log, "%s: %d surface vertices, %d triangles -> %d vertices, %d tets -> %s\n", surface,
            s.nv, s.nt, tm.nv, tm.ntet, out_path);
  sim_surface_free(&s);
  sim_tetmesh_free(&tm);
  return rc;
}

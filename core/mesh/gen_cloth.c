/* SPDX-License-Identifier: MIT */
/* Cloth generators: rectangular vertex grids in the x-z plane with normal +y. */
#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

int sim_gen_cloth_grid(const double size[2], int nx, int nz, int cross, sim_surface *out,
                       sim_status *st) {
  memset(out, 0, sizeof *out);
  if (!(size[0] > 0) || !(size[1] > 0) || !isfinite(size[0]) || !isfinite(size[1]))
    return sim_fail(st, SIM_ERR_MESH, "cloth: expected sizes > 0, got %g x %g", size[0], size[1]);
  if (nx < 2 || nz < 2 || (long long)nx * nz > 25000000)
    return sim_fail(st, SIM_ERR_MESH, "cloth: expected 2..25000000 vertices with >= 2 per side, "
                    "got %d x %d", nx, nz);
  const int ncell = (nx - 1) * (nz - 1), nv = nx * nz + (cross ? ncell : 0);
  const int nt = (cross ? 4 : 2) * ncell;
  double *x = SIM_NEW(double, 3 * (size_t)nv);
  int *tri = SIM_NEW(int, 3 * (size_t)nt);
  if (!x || !tri) {
    sim_free(x);
    sim_free(tri);
    return sim_fail(st, SIM_ERR_MEMORY, "cloth: out of memory");
  }
  /* vertex (i, j) = i + nx * j at x = -sx/2 + sx i/(nx-1), z likewise with j (exact ends) */
  for (int j = 0; j < nz; j++)
    for (int i = 0; i < nx; i++) {
      double *p = x + 3 * ((size_t)i + (size_t)nx * j);
      p[0] = i == nx - 1 ? 0.5 * size[0] : -0.5 * size[0] + size[0] * i / (nx - 1);
      p[1] = 0.0;
      p[2] = j == nz - 1 ? 0.5 * size[1] : -0.5 * size[1] + size[1] * j / (nz - 1);
    }
  /* e_z x e_x = +e_y, so (p00, p01, p11) with p01 = p00 + dz faces +y. diagonal: two triangles
     per cell, the diagonals alternate so that the grid has no preferred direction; cross: a
     centre vertex per cell (numbered after the corners) and four triangles around it */
  int *t = tri;
  for (int j = 0; j + 1 < nz; j++)
    for (int i = 0; i + 1 < nx; i++) {
      const int p00 = i + nx * j, p10 = p00 + 1, p01 = p00 + nx, p11 = p01 + 1;
      if (cross) {
        const int c = nx * nz + i + (nx - 1) * j;
        double *pc = x + 3 * (size_t)c;
        for (int k = 0; k < 3; k++)
          pc[k] = 0.25 * (x[3 * p00 + k] + x[3 * p10 + k] + x[3 * p01 + k] + x[3 * p11 + k]);
        t[0] = p00, t[1] = p01, t[2] = c;
        t[3] = p01, t[4] = p11, t[5] = c;
        t[6] = p11, t[7] = p10, t[8] = c;
        t[9] = p10, t[10] = p00, t[11] = c;
        t += 12;
      } else if ((i + j) % 2 == 0) {
        t[0] = p00, t[1] = p01, t[2] = p11;
        t[3] = p00, t[4] = p11, t[5] = p10;
        t += 6;
      } else {
        t[0] = p00, t[1] = p01, t[2] = p10;
        t[3] = p01, t[4] = p11, t[5] = p10;
        t += 6;
      }
    }
  out->nv = nv;
  out->nt = nt;
  out->x = x;
  out->tri = tri;
  return SIM_OK;
}

int sim_gen_cloth(double size, int target_vertices, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (!(size > 0) || !isfinite(size))
    return sim_fail(st, SIM_ERR_MESH, "cloth: expected size > 0, got %g", size);
  if (target_vertices < 4 || target_vertices > 25000000)
    return sim_fail(st, SIM_ERR_MESH, "cloth: expected 4..25000000 target vertices, got %d",
                    target_vertices);
  /* round(sqrt(n)) is the k whose square is nearest n: the squares' midpoint k^2 + k + 1/2
     and sqrt's rounding point (k + 1/2)^2 = k^2 + k + 1/4 have no integer between them */
  const int k = (int)lround(sqrt((double)target_vertices));
  const double sz[2] = {size, size};
  return sim_gen_cloth_grid(sz, k, k, 0, out, st);
}

/* SPDX-License-Identifier: MIT */
/* Square cloth generator: a k x k vertex grid in the x-z plane with normal +y. */
#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

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
  const int nv = k * k, nt = 2 * (k - 1) * (k - 1);
  double *x = SIM_NEW(double, 3 * nv);
  int *tri = SIM_NEW(int, 3 * nt);
  if (!x || !tri) {
    sim_free(x);
    sim_free(tri);
    return sim_fail(st, SIM_ERR_MEMORY, "cloth: out of memory");
  }
  /* vertex (i, j) = i + k * j at x = -size/2 + size i/(k-1), z likewise with j */
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++) {
      double *p = x + 3 * (i + k * j);
      p[0] = i == k - 1 ? 0.5 * size : -0.5 * size + size * i / (k - 1);
      p[1] = 0.0;
      p[2] = j == k - 1 ? 0.5 * size : -0.5 * size + size * j / (k - 1);
    }
  /* e_z x e_x = +e_y, so (p00, p01, p11) with p01 = p00 + dz faces +y */
  int *t = tri;
  for (int j = 0; j + 1 < k; j++)
    for (int i = 0; i + 1 < k; i++) {
      const int p00 = i + k * j, p10 = p00 + 1, p01 = p00 + k, p11 = p01 + 1;
      if ((i + j) % 2 == 0) {
        t[0] = p00, t[1] = p01, t[2] = p11;
        t[3] = p00, t[4] = p11, t[5] = p10;
      } else {
        t[0] = p00, t[1] = p01, t[2] = p10;
        t[3] = p01, t[4] = p11, t[5] = p10;
      }
      t += 6;
    }
  out->nv = nv;
  out->nt = nt;
  out->x = x;
  out->tri = tri;
  return SIM_OK;
}

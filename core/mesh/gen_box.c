/* SPDX-License-Identifier: MIT */
/* Box generators: a tet grid (6 Kuhn tets per hex) and a closed box surface. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

static int check_box(const double lo[3], const double hi[3], const char *what, sim_status *st) {
  for (int d = 0; d < 3; d++)
    if (!isfinite(lo[d]) || !isfinite(hi[d]) || !(lo[d] < hi[d]))
      return sim_fail(st, SIM_ERR_MESH, "%s: expected lo < hi on every axis, axis %d has %g..%g",
                      what, d, lo[d], hi[d]);
  return SIM_OK;
}

/* Kuhn (Freudenthal) split: the tet for axis permutation (a, b, c) walks the hex diagonal
   v000 -> +e_a -> +e_b -> +e_c = v111; det(e_a, e_b, e_c) = sign of the permutation, so odd
   permutations swap their last two vertices. The split is translation invariant, hence
   conforming across hex faces. */
static const int kPerm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

int sim_gen_box_tets(const double lo[3], const double hi[3], const int nverts[3], sim_tetmesh *out,
                     sim_status *st) {
  memset(out, 0, sizeof *out);
  if (check_box(lo, hi, "box tets", st)) return st->code;
  long long nv = 1, nh = 1;
  for (int d = 0; d < 3; d++) {
    if (nverts[d] < 2 || nverts[d] > 1000000)
      return sim_fail(st, SIM_ERR_MESH,
                      "box tets: expected 2..1000000 vertices per axis, axis %d has %d", d,
                      nverts[d]);
    nv *= nverts[d];
    nh *= nverts[d] - 1;
  }
  if (nv > INT_MAX / 3 || nh > INT_MAX / 24)
    return sim_fail(st, SIM_ERR_MESH, "box tets: %lld vertices / %lld hexes is too many", nv, nh);
  const int nx = nverts[0], ny = nverts[1], nz = nverts[2];
  double *x = SIM_NEW(double, 3 * nv);
  int *tet = SIM_NEW(int, 24 * nh);
  if (!x || !tet) {
    sim_free(x);
    sim_free(tet);
    return sim_fail(st, SIM_ERR_MEMORY, "box tets: out of memory");
  }
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        double *p = x + 3 * ((long long)i + (long long)nx * (j + (long long)ny * k));
        /* the last vertex lands exactly on hi */
        p[0] = i == nx - 1 ? hi[0] : lo[0] + (hi[0] - lo[0]) * i / (nx - 1);
        p[1] = j == ny - 1 ? hi[1] : lo[1] + (hi[1] - lo[1]) * j / (ny - 1);
        p[2] = k == nz - 1 ? hi[2] : lo[2] + (hi[2] - lo[2]) * k / (nz - 1);
      }
  const int stride[3] = {1, nx, nx * ny};
  int *t = tet;
  for (int k = 0; k < nz - 1; k++)
    for (int j = 0; j < ny - 1; j++)
      for (int i = 0; i < nx - 1; i++) {
        int v0 = i + nx * (j + ny * k);
        for (int q = 0; q < 6; q++) {
          int a = v0 + stride[kPerm[q][0]];
          int b = a + stride[kPerm[q][1]];
          int c = b + stride[kPerm[q][2]];
          t[0] = v0;
          t[1] = a;
          if (q < 3) {
            t[2] = b;
            t[3] = c;
          } else {
            t[2] = c;
            t[3] = b;
          }
          t += 4;
        }
      }
  out->nv = (int)nv;
  out->ntet = (int)(6 * nh);
  out->x = x;
  out->tet = tet;
  return SIM_OK;
}

int sim_gen_box_surface(const double lo[3], const double hi[3], int segs, sim_surface *out,
                        sim_status *st) {
  memset(out, 0, sizeof *out);
  if (check_box(lo, hi, "box surface", st)) return st->code;
  if (segs < 1 || segs > 200)
    return sim_fail(st, SIM_ERR_MESH, "box surface: expected 1..200 segments, got %d", segs);
  const int n = segs + 1;
  const long long nlat = (long long)n * n * n;
  const int nv = 6 * segs * segs + 2; /* lattice points on the boundary of an n^3 cube */
  const int nt = 12 * segs * segs;
  int *id = SIM_NEW(int, nlat);
  double *x = SIM_NEW(double, 3 * nv);
  int *tri = SIM_NEW(int, 3 * nt);
  if (!id || !x || !tri) {
    sim_free(id);
    sim_free(x);
    sim_free(tri);
    return sim_fail(st, SIM_ERR_MEMORY, "box surface: out of memory");
  }
  for (long long i = 0; i < nlat; i++) id[i] = -1;
  int cv = 0, ct = 0;
  for (int d = 0; d < 3; d++) {
    const int u = (d + 1) % 3, w = (d + 2) % 3; /* e_u x e_w = e_d */
    for (int side = 0; side < 2; side++) {
      for (int a = 0; a < segs; a++)
        for (int b = 0; b < segs; b++) {
          int q[4];
          const int cu[4] = {a, a + 1, a + 1, a}, cw[4] = {b, b, b + 1, b + 1};
          for (int r = 0; r < 4; r++) {
            int ijk[3];
            ijk[d] = side ? segs : 0;
            ijk[u] = cu[r];
            ijk[w] = cw[r];
            long long key = ijk[0] + (long long)n * (ijk[1] + (long long)n * ijk[2]);
            if (id[key] < 0) {
              for (int e = 0; e < 3; e++)
                x[3 * cv + e] = ijk[e] == segs ? hi[e] : lo[e] + (hi[e] - lo[e]) * ijk[e] / segs;
              id[key] = cv++;
            }
            q[r] = id[key];
          }
          /* CCW about +e_d for side 1, reversed for side 0 */
          int *t = tri + 3 * ct;
          if (side) {
            t[0] = q[0], t[1] = q[1], t[2] = q[2];
            t[3] = q[0], t[4] = q[2], t[5] = q[3];
          } else {
            t[0] = q[0], t[1] = q[2], t[2] = q[1];
            t[3] = q[0], t[4] = q[3], t[5] = q[2];
          }
          ct += 2;
        }
    }
  }
  sim_free(id);
  out->nv = cv;
  out->nt = ct;
  out->x = x;
  out->tri = tri;
  return SIM_OK;
}

/* SPDX-License-Identifier: MIT */
/* Closed surface generators: icosphere, cylinder and capsule (outward, counter-clockwise). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

/* ---- icosphere ---- */

/* Open-addressing map from an edge (a < b) to its midpoint vertex. */
typedef struct edge_map {
  uint64_t *key; /* (a << 32 | b) + 1; 0 = empty */
  int *val;
  size_t mask;
} edge_map;

static int edge_mid(edge_map *h, double *x, int *nv, int a, int b, double radius) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  uint64_t k = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
  size_t i = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & h->mask;
  while (h->key[i] && h->key[i] != k) i = (i + 1) & h->mask;
  if (h->key[i]) return h->val[i];
  double *p = x + 3 * (size_t)*nv;
  double len = 0;
  for (int d = 0; d < 3; d++) {
    p[d] = 0.5 * (x[3 * a + d] + x[3 * b + d]);
    len += p[d] * p[d];
  }
  len = sqrt(len);
  for (int d = 0; d < 3; d++) p[d] *= radius / len;
  h->key[i] = k;
  h->val[i] = *nv;
  return (*nv)++;
}

int sim_gen_icosphere(double radius, int subdivisions, sim_surface *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (!(radius > 0) || !isfinite(radius))
    return sim_fail(st, SIM_ERR_MESH, "icosphere: expected radius > 0, got %g", radius);
  if (subdivisions < 0 || subdivisions > 9)
    return sim_fail(st, SIM_ERR_MESH, "icosphere: expected 0..9 subdivisions, got %d",
                    subdivisions);
  static const int kFaces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                    {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                    {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                    {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  const double g = (1.0 + sqrt(5.0)) / 2.0;
  const double base[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
                              {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
                              {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
  const long long nt_final = 20LL << (2 * subdivisions);
  const long long nv_final = nt_final / 2 + 2; /* Euler: V = F/2 + 2 */
  double *x = SIM_NEW(double, 3 * nv_final);
  int *tri = SIM_NEW(int, 3 * nt_final);
  int *tmp = SIM_NEW(int, 3 * nt_final);
  edge_map h = {0};
  size_t cap = 64;
  while (cap < (size_t)nt_final * 2) cap *= 2; /* > 1.33 * the edges of the finest level */
  h.key = SIM_NEW0(uint64_t, cap);
  h.val = SIM_NEW(int, cap);
  h.mask = cap - 1;
  int rc = SIM_OK;
  if (!x || !tri || !tmp || !h.key || !h.val) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "icosphere: out of memory");
    goto done;
  }
  int nv = 12, nt = 20;
  const double s = radius / sqrt(1.0 + g * g);
  for (int i = 0; i < 12; i++)
    for (int d = 0; d < 3; d++) x[3 * i + d] = base[i][d] * s;
  memcpy(tri, kFaces, sizeof kFaces);
  for (int level = 0; level < subdivisions; level++) {
    memset(h.key, 0, cap * sizeof *h.key);
    int *o = tmp;
    for (int t = 0; t < nt; t++) {
      const int a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
      const int ab = edge_mid(&h, x, &nv, a, b, radius);
      const int bc = edge_mid(&h, x, &nv, b, c, radius);
      const int ca = edge_mid(&h, x, &nv, c, a, radius);
      const int sub[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
      memcpy(o, sub, sizeof sub);
      o += 12;
    }
    nt *= 4;
    int *sw = tri;
    tri = tmp;
    tmp = sw;
  }
  out->nv = nv;
  out->nt = nt;
  out->x = x;
  out->tri = tri;
  x = NULL;
  tri = NULL;
done:
  sim_free(x);
  sim_free(tri);
  sim_free(tmp);
  sim_free(h.key);
  sim_free(h.val);
  return rc;
}

/* ---- surfaces of revolution about y ---- */

/* Circles (y[i], rho[i]) for i < nring with increasing y, closed by a bottom centre point at
   y_bot and a top one at y_top. Side quads (a, b on circle i; d, c on circle i+1) become
   (a, d, c), (a, c, b): with x = rho cos(theta), z = rho sin(theta) this is outward. */
static int revolve(const double *y, const double *rho, int nring, double y_bot, double y_top,
                   int seg, const char *what, sim_surface *out, sim_status *st) {
  const int nv = nring * seg + 2, nt = 2 * seg * nring;
  double *x = SIM_NEW(double, 3 * nv);
  int *tri = SIM_NEW(int, 3 * nt);
  if (!x || !tri) {
    sim_free(x);
    sim_free(tri);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", what);
  }
  const double two_pi = 6.283185307179586476925286766559;
  for (int i = 0; i < nring; i++)
    for (int j = 0; j < seg; j++) {
      double th = two_pi * j / seg;
      double *p = x + 3 * (i * seg + j);
      p[0] = rho[i] * cos(th);
      p[1] = y[i];
      p[2] = rho[i] * sin(th);
    }
  const int bot = nring * seg, top = bot + 1;
  x[3 * bot] = 0, x[3 * bot + 1] = y_bot, x[3 * bot + 2] = 0;
  x[3 * top] = 0, x[3 * top + 1] = y_top, x[3 * top + 2] = 0;
  int *t = tri;
  for (int j = 0; j < seg; j++) {
    const int j1 = (j + 1) % seg;
    t[0] = bot, t[1] = j, t[2] = j1; /* normal -y */
    t += 3;
    for (int i = 0; i + 1 < nring; i++) {
      const int a = i * seg + j, b = i * seg + j1, c = (i + 1) * seg + j1, d = (i + 1) * seg + j;
      t[0] = a, t[1] = d, t[2] = c;
      t[3] = a, t[4] = c, t[5] = b;
      t += 6;
    }
    const int last = (nring - 1) * seg;
    t[0] = top, t[1] = last + j1, t[2] = last + j; /* normal +y */
    t += 3;
  }
  out->nv = nv;
  out->nt = nt;
  out->x = x;
  out->tri = tri;
  return SIM_OK;
}

static int check_rev(double radius, double height, int segments, int rings, int height_may_be_0,
                     const char *what, sim_status *st) {
  if (!(radius > 0) || !isfinite(radius))
    return sim_fail(st, SIM_ERR_MESH, "%s: expected radius > 0, got %g", what, radius);
  if (!isfinite(height) || height < 0 || (height == 0 && !height_may_be_0))
    return sim_fail(st, SIM_ERR_MESH, "%s: expected height > 0, got %g", what, height);
  if (segments < 3 || segments > 100000)
    return sim_fail(st, SIM_ERR_MESH, "%s: expected 3..100000 segments, got %d", what, segments);
  if (rings < 1 || rings > 100000)
    return sim_fail(st, SIM_ERR_MESH, "%s: expected 1..100000 rings, got %d", what, rings);
  if ((long long)segments * (rings + 1) * 4 > 100000000LL)
    return sim_fail(st, SIM_ERR_MESH, "%s: %d segments x %d rings is too many", what, segments,
                    rings);
  return SIM_OK;
}

/* rings = number of divisions along the height (rings + 1 circles), caps are fans. */
int sim_gen_cylinder(double radius, double height, int segments, int rings, sim_surface *out,
                     sim_status *st) {
  memset(out, 0, sizeof *out);
  if (check_rev(radius, height, segments, rings, 0, "cylinder", st)) return st->code;
  double *y = SIM_NEW(double, rings + 1), *rho = SIM_NEW(double, rings + 1);
  int rc;
  if (!y || !rho) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "cylinder: out of memory");
  } else {
    for (int i = 0; i <= rings; i++) {
      y[i] = i == rings ? 0.5 * height : -0.5 * height + height * i / rings;
      rho[i] = radius;
    }
    rc = revolve(y, rho, rings + 1, -0.5 * height, 0.5 * height, segments, "cylinder", out, st);
  }
  sim_free(y);
  sim_free(rho);
  return rc;
}

/* rings = latitude divisions per hemisphere; the cylinder part is one division (none when
   height is 0, which gives a UV sphere). */
int sim_gen_capsule(double radius, double height, int segments, int rings, sim_surface *out,
                    sim_status *st) {
  memset(out, 0, sizeof *out);
  if (check_rev(radius, height, segments, rings, 1, "capsule", st)) return st->code;
  const int nring = 2 * rings + (height > 0 ? 0 : -1);
  double *y = SIM_NEW(double, 2 * rings), *rho = SIM_NEW(double, 2 * rings);
  int rc;
  if (!y || !rho) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "capsule: out of memory");
  } else {
    const double half_pi = 1.5707963267948966192313216916398;
    int n = 0;
    for (int k = 1; k <= rings; k++) { /* bottom hemisphere, latitude -pi/2 .. 0 */
      double phi = -half_pi + half_pi * k / rings;
      y[n] = -0.5 * height + radius * (k == rings ? 0.0 : sin(phi));
      rho[n++] = k == rings ? radius : radius * cos(phi);
    }
    for (int k = height > 0 ? 0 : 1; k < rings; k++) { /* top hemisphere, 0 .. pi/2 */
      double phi = half_pi * k / rings;
      y[n] = 0.5 * height + radius * (k == 0 ? 0.0 : sin(phi));
      rho[n++] = k == 0 ? radius : radius * cos(phi);
    }
    rc = revolve(y, rho, nring, -0.5 * height - radius, 0.5 * height + radius, segments, "capsule",
                 out, st);
    (void)n;
  }
  sim_free(y);
  sim_free(rho);
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* Mesh checks: closed manifold surfaces, tet orientation, boundary faces, compaction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "mesh.h"

static double bbox_diag(const double *x, int nv) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < nv; i++)
    for (int d = 0; d < 3; d++) {
      if (x[3 * i + d] < lo[d]) lo[d] = x[3 * i + d];
      if (x[3 * i + d] > hi[d]) hi[d] = x[3 * i + d];
    }
  if (nv == 0) return 0;
  return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
              (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Coordinates above SIM_MESH_COORD_MAX would overflow the cube of the bounding box that
   scales the degeneracy tests (and the volumes) to infinity. */
static int check_coords(const double *x, int nv, const char *name, sim_status *st) {
  for (int i = 0; i < 3 * nv; i++)
    if (!isfinite(x[i]))
      return sim_fail(st, SIM_ERR_MESH, "%s: vertex %d has a non-finite coordinate", name, i / 3);
  for (int i = 0; i < 3 * nv; i++) {
    if (fabs(x[i]) > SIM_MESH_COORD_MAX)
      return sim_fail(st, SIM_ERR_MESH,
                      "%s: vertex %d has coordinate %g: too large (expected |x| <= %g)", name,
                      i / 3, x[i], SIM_MESH_COORD_MAX);
  }
  return SIM_OK;
}

/* ---- closed surfaces ---- */

typedef struct half_edge {
  int a, b; /* a < b */
  int tri;
  int fwd; /* 1 when the triangle runs a -> b */
} half_edge;

static int cmp_half_edge(const void *p, const void *q) {
  const half_edge *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return (x->tri > y->tri) - (x->tri < y->tri);
}

int sim_surface_check_closed(const sim_surface *s, const char *name, sim_status *st) {
  if (s->nv < 4 || s->nt < 4)
    return sim_fail(st, SIM_ERR_MESH,
                    "%s: surface is not closed: %d vertices and %d triangles (a closed surface "
                    "needs at least 4 of each)",
                    name, s->nv, s->nt);
  for (int t = 0; t < s->nt; t++)
    for (int k = 0; k < 3; k++)
      if (s->tri[3 * t + k] < 0 || s->tri[3 * t + k] >= s->nv)
        return sim_fail(st, SIM_ERR_MESH,
                        "%s: triangle %d has vertex index %d out of range "
                        "(expected 0..%d)",
                        name, t, s->tri[3 * t + k], s->nv - 1);
  if (check_coords(s->x, s->nv, name, st)) return st->code;
  const double diag = bbox_diag(s->x, s->nv), tiny = 1e-14 * diag * diag;
  for (int t = 0; t < s->nt; t++) {
    const int *v = s->tri + 3 * t;
    const double *a = s->x + 3 * v[0], *b = s->x + 3 * v[1], *c = s->x + 3 * v[2];
    double e1[3], e2[3];
    for (int d = 0; d < 3; d++) e1[d] = b[d] - a[d], e2[d] = c[d] - a[d];
    double n0 = e1[1] * e2[2] - e1[2] * e2[1], n1 = e1[2] * e2[0] - e1[0] * e2[2],
           n2 = e1[0] * e2[1] - e1[1] * e2[0];
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || sqrt(n0 * n0 + n1 * n1 + n2 * n2) <= tiny)
      return sim_fail(st, SIM_ERR_MESH, "%s: degenerate triangle %d (vertices %d %d %d)", name, t,
                      v[0], v[1], v[2]);
  }
  half_edge *e = SIM_NEW(half_edge, 3 * (size_t)s->nt);
  if (!e) return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory checking the surface", name);
  for (int t = 0; t < s->nt; t++)
    for (int k = 0; k < 3; k++) {
      int p = s->tri[3 * t + k], q = s->tri[3 * t + (k + 1) % 3];
      half_edge *h = e + 3 * t + k;
      h->a = p < q ? p : q;
      h->b = p < q ? q : p;
      h->tri = t;
      h->fwd = p < q;
    }
  const size_t ne = 3 * (size_t)s->nt;
  qsort(e, ne, sizeof *e, cmp_half_edge);
  long long nopen = 0;
  int open_tri = -1, open_a = 0, open_b = 0, nm = -1, nm_count = 0, bad = -1;
  for (size_t i = 0; i < ne;) {
    size_t j = i + 1;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    if (j - i == 1) {
      if (nopen++ == 0 || e[i].tri < open_tri)
        open_tri = e[i].tri, open_a = e[i].a, open_b = e[i].b;
    } else if (j - i > 2) {
      if (nm < 0) nm = (int)i, nm_count = (int)(j - i);
    } else if (e[i].fwd == e[i + 1].fwd && bad < 0) {
      bad = (int)i;
    }
    i = j;
  }
  int rc = SIM_OK;
  if (nm >= 0)
    rc = sim_fail(st, SIM_ERR_MESH, "%s: non-manifold edge %d-%d shared by %d triangles", name,
                  e[nm].a, e[nm].b, nm_count);
  else if (nopen)
    rc = sim_fail(st, SIM_ERR_MESH,
                  "%s: surface is not closed: %lld boundary edges (first: vertices %d-%d)", name,
                  nopen, open_a, open_b);
  else if (bad >= 0)
    rc = sim_fail(st, SIM_ERR_MESH,
                  "%s: inconsistent orientation at edge %d-%d (triangles %d and %d)", name,
                  e[bad].a, e[bad].b, e[bad].tri, e[bad + 1].tri);
  sim_free(e);
  if (rc) return rc;
  double vol = sim_surface_volume(s);
  if (vol < 0)
    return sim_fail(st, SIM_ERR_MESH,
                    "%s: surface is inside out (enclosed volume %g < 0): "
                    "expected counter-clockwise triangles seen from outside",
                    name, vol);
  return SIM_OK;
}

/* ---- tets ---- */

int sim_tetmesh_orient(sim_tetmesh *m, const char *name, sim_status *st) {
  if (m->nv < 4 || m->ntet < 1)
    return sim_fail(st, SIM_ERR_MESH, "%s: expected a tet mesh, found %d vertices and %d tets",
                    name, m->nv, m->ntet);
  for (long long i = 0; i < 4LL * m->ntet; i++)
    if (m->tet[i] < 0 || m->tet[i] >= m->nv)
      return sim_fail(st, SIM_ERR_MESH,
                      "%s: tet %lld has vertex index %d out of range "
                      "(expected 0..%d)",
                      name, i / 4, m->tet[i], m->nv - 1);
  if (check_coords(m->x, m->nv, name, st)) return st->code;
  const double diag = bbox_diag(m->x, m->nv), tiny = 1e-14 * diag * diag * diag;
  for (int t = 0; t < m->ntet; t++) {
    int *k = m->tet + 4 * t;
    const double *p = m->x + 3 * k[0];
    double e[3][3];
    for (int i = 0; i < 3; i++)
      for (int d = 0; d < 3; d++) e[i][d] = m->x[3 * k[i + 1] + d] - p[d];
    /* V = det(x1 - x0, x2 - x0, x3 - x0) / 6 */
    double vol = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                  e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                  e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
                 6.0;
    if (fabs(vol) < tiny || k[0] == k[1] || k[0] == k[2] || k[0] == k[3] || k[1] == k[2] ||
        k[1] == k[3] || k[2] == k[3])
      return sim_fail(st, SIM_ERR_MESH, "%s: degenerate tet %d (vertices %d %d %d %d, volume %g)",
                      name, t, k[0], k[1], k[2], k[3], vol);
    if (vol < 0) {
      int sw = k[2];
      k[2] = k[3];
      k[3] = sw;
    }
  }
  return SIM_OK;
}

typedef struct tet_face {
  int k[3]; /* sorted vertex ids */
  int id;   /* 4 * tet + local face */
  int odd;  /* orientation: parity of the sort, flipped for a negative tet */
} tet_face;

static int cmp_face(const void *p, const void *q) {
  const tet_face *x = p, *y = q;
  for (int i = 0; i < 3; i++)
    if (x->k[i] != y->k[i]) return x->k[i] < y->k[i] ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int cmp_int(const void *p, const void *q) {
  int x = *(const int *)p, y = *(const int *)q;
  return (x > y) - (x < y);
}

/* Outward faces of a positive tet (0, 1, 2, 3): face f is opposite vertex 3 - f. */
static const int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

static double tet_det(const sim_tetmesh *m, const int *k) {
  const double *p = m->x + 3 * k[0];
  double e[3][3];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) e[i][d] = m->x[3 * k[i + 1] + d] - p[d];
  return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

/* Sorts the face's vertex ids into f->k and sets f->odd to the parity of that permutation,
   flipped for a negative tet, so that the two tets sharing a face give opposite values when
   they lie on either side of it, and equal values when they overlap. */
static void face_key(const int *t, int local, int negative, tet_face *f) {
  int a = t[kFace[local][0]], b = t[kFace[local][1]], c = t[kFace[local][2]], s, odd = negative;
  if (a > b) s = a, a = b, b = s, odd ^= 1;
  if (b > c) s = b, b = c, c = s, odd ^= 1;
  if (a > b) s = a, a = b, b = s, odd ^= 1;
  f->k[0] = a, f->k[1] = b, f->k[2] = c;
  f->odd = odd;
}

int sim_tetmesh_boundary(const sim_tetmesh *m, const char *name, int *ntri, int **tri,
                         sim_status *st) {
  *ntri = 0;
  *tri = NULL;
  if (m->ntet <= 0) return SIM_OK;
  for (long long i = 0; i < 4LL * m->ntet; i++)
    if (m->tet[i] < 0 || m->tet[i] >= m->nv)
      return sim_fail(st, SIM_ERR_MESH,
                      "%s: tet %lld has vertex index %d out of range "
                      "(expected 0..%d)",
                      name, i / 4, m->tet[i], m->nv - 1);
  const size_t nf = 4 * (size_t)m->ntet;
  tet_face *f = SIM_NEW(tet_face, nf);
  int *ids = SIM_NEW(int, nf);
  if (!f || !ids) {
    sim_free(f);
    sim_free(ids);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %zu boundary faces", name, nf);
  }
  for (int t = 0; t < m->ntet; t++) {
    const int *k = m->tet + 4 * t, negative = tet_det(m, k) < 0;
    for (int l = 0; l < 4; l++) {
      face_key(k, l, negative, &f[4 * t + l]);
      f[4 * t + l].id = 4 * t + l;
    }
  }
  qsort(f, nf, sizeof *f, cmp_face);
  int n = 0, rc = SIM_OK;
  for (size_t i = 0; i < nf;) {
    size_t j = i + 1;
    while (j < nf && !memcmp(f[j].k, f[i].k, sizeof f[i].k)) j++;
    if (j - i == 1) ids[n++] = f[i].id;
    if (j - i > 2) {
      rc = sim_fail(st, SIM_ERR_MESH, "%s: face %d-%d-%d shared by %d tets", name, f[i].k[0],
                    f[i].k[1], f[i].k[2], (int)(j - i));
      break;
    }
    if (j - i == 2 && f[i].odd == f[i + 1].odd) {
      rc = sim_fail(st, SIM_ERR_MESH,
                    "%s: tets %d and %d overlap: both lie on the same side of their shared face "
                    "%d-%d-%d (a folded or inverted mesh)",
                    name, f[i].id / 4, f[i + 1].id / 4, f[i].k[0], f[i].k[1], f[i].k[2]);
      break;
    }
    i = j;
  }
  sim_free(f);
  if (rc || n == 0) {
    sim_free(ids);
    return rc;
  }
  qsort(ids, (size_t)n, sizeof *ids, cmp_int); /* tet order: deterministic and local */
  int *out = SIM_NEW(int, 3 * (size_t)n);
  if (!out) {
    sim_free(ids);
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d boundary triangles", name, n);
  }
  for (int i = 0; i < n; i++) {
    const int *t = m->tet + 4 * (ids[i] / 4);
    for (int k = 0; k < 3; k++) out[3 * i + k] = t[kFace[ids[i] % 4][k]];
  }
  sim_free(ids);
  *ntri = n;
  *tri = out;
  return SIM_OK;
}

int sim_tetmesh_compact(sim_tetmesh *m, sim_status *st) {
  int *map = SIM_NEW(int, m->nv > 0 ? m->nv : 1);
  if (!map) return sim_fail(st, SIM_ERR_MEMORY, "compact: out of memory");
  for (int i = 0; i < m->nv; i++) map[i] = -1;
  for (long long i = 0; i < 4LL * m->ntet; i++)
    if (m->tet[i] >= 0 && m->tet[i] < m->nv) map[m->tet[i]] = 0;
  int n = 0;
  for (int i = 0; i < m->nv; i++)
    if (map[i] == 0) {
      map[i] = n;
      memmove(m->x + 3 * n, m->x + 3 * i, 3 * sizeof *m->x);
      n++;
    }
  for (long long i = 0; i < 4LL * m->ntet; i++)
    if (m->tet[i] >= 0 && m->tet[i] < m->nv) m->tet[i] = map[m->tet[i]];
  sim_free(map);
  m->nv = n;
  return SIM_OK;
}

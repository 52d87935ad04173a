/* SPDX-License-Identifier: MIT */
/* Bending stencils of a triangle mesh: isometric per interior edge (Bergou et al. 2006, Q),
   Laplace-Beltrami per interior vertex (Bouaziz et al. 2014); see bending.h for the math.
   Input: nv vertices, nt triangles. Workspace: 3 nt edge records (+ 6 nt doubles and the
   vertex-triangle adjacency for Laplace-Beltrami). Fails on bad indices, non-finite
   coordinates, degenerate triangles, non-manifold edges, duplicated triangles. */
#include "bending.h"

#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"

typedef struct bend_edge {
  int a, b; /* a < b */
  int tri;
  int opp; /* the triangle's third vertex */
} bend_edge;

static int cmp_bend_edge(const void *p, const void *q) {
  const bend_edge *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return (x->tri > y->tri) - (x->tri < y->tri);
}

static void sub3(const double *a, const double *b, double d[3]) {
  d[0] = a[0] - b[0], d[1] = a[1] - b[1], d[2] = a[2] - b[2];
}

/* cot of the angle at p between p->a and p->b: (u . v) / |u x v|. */
static double cot_at(const double *p, const double *a, const double *b) {
  double u[3], v[3], c[3];
  sub3(a, p, u);
  sub3(b, p, v);
  sim_cross3(u, v, c);
  return sim_dot3(u, v) / sim_norm3(c);
}

static double tri_area(const double *a, const double *b, const double *c) {
  double u[3], v[3], n[3];
  sub3(b, a, u);
  sub3(c, a, v);
  sim_cross3(u, v, n);
  return 0.5 * sim_norm3(n);
}

void sim_bending_free(sim_bending *b) {
  sim_free(b->ptr);
  sim_free(b->vid);
  sim_free(b->coef);
  sim_free(b->k);
  sim_free(b->rest);
  memset(b, 0, sizeof *b);
}

/* Arrays for nst stencils and nnz entries; ptr[0] = 0. */
static int bending_alloc(sim_bending *b, int nst, long long nnz) {
  memset(b, 0, sizeof *b);
  b->ptr = SIM_NEW0(int, nst + 1);
  b->vid = SIM_NEW(int, nnz);
  b->coef = SIM_NEW(double, nnz);
  b->k = SIM_NEW(double, nst);
  b->rest = SIM_NEW(double, nst);
  b->nst = nst;
  if (!b->ptr || (nnz && (!b->vid || !b->coef)) || (nst && (!b->k || !b->rest))) {
    sim_bending_free(b);
    return -1;
  }
  return 0;
}

/* Checks indices, coordinates and triangle areas (relative to the bounding box). */
static int check_mesh(int nv, const double *x, int nt, const int *tri, const char *name,
                      sim_status *st) {
  if (nv < 0 || nt < 0 || (nv && !x) || (nt && !tri))
    return sim_fail(st, SIM_ERR_MESH, "%s: bad mesh (%d vertices, %d triangles)", name, nv, nt);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < nv; i++)
    for (int d = 0; d < 3; d++) {
      const double v = x[3 * i + d];
      if (!isfinite(v))
        return sim_fail(st, SIM_ERR_MESH, "%s: vertex %d has a non-finite coordinate", name, i);
      if (v < lo[d]) lo[d] = v;
      if (v > hi[d]) hi[d] = v;
    }
  double diag2 = 0;
  for (int d = 0; d < 3 && nv; d++) diag2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  for (int t = 0; t < nt; t++) {
    const int *v = tri + 3 * t;
    for (int c = 0; c < 3; c++)
      if (v[c] < 0 || v[c] >= nv)
        return sim_fail(st, SIM_ERR_MESH,
                        "%s: triangle %d has vertex index %d out of range (expected 0..%d)", name,
                        t, v[c], nv - 1);
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] ||
        !(tri_area(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]) > 0.5e-14 * diag2))
      return sim_fail(st, SIM_ERR_MESH, "%s: degenerate triangle %d (vertices %d %d %d)", name, t,
                      v[0], v[1], v[2]);
  }
  return SIM_OK;
}

/* Sorted edge records (3 nt); fails on non-manifold edges and duplicated triangles. */
static int build_edges(int nt, const int *tri, const char *name, bend_edge **out, sim_status *st) {
  *out = NULL;
  const size_t ne = 3 * (size_t)nt;
  bend_edge *e = SIM_NEW(bend_edge, ne);
  if (ne && !e) return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory building bending", name);
  for (int t = 0; t < nt; t++)
    for (int c = 0; c < 3; c++) {
      const int p = tri[3 * t + c], q = tri[3 * t + (c + 1) % 3];
      bend_edge *h = e + 3 * t + c;
      h->a = p < q ? p : q;
      h->b = p < q ? q : p;
      h->tri = t;
      h->opp = tri[3 * t + (c + 2) % 3];
    }
  if (ne) qsort(e, ne, sizeof *e, cmp_bend_edge);
  for (size_t i = 0; i < ne;) {
    size_t j = i + 1;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    if (j - i > 2) {
      int rc = sim_fail(st, SIM_ERR_MESH,
                        "%s: non-manifold edge %d-%d shared by %d triangles (%d, %d, %d%s)", name,
                        e[i].a, e[i].b, (int)(j - i), e[i].tri, e[i + 1].tri, e[i + 2].tri,
                        j - i > 3 ? ", ..." : "");
      sim_free(e);
      return rc;
    }
    if (j - i == 2 && e[i].opp == e[i + 1].opp) {
      int rc =
          sim_fail(st, SIM_ERR_MESH, "%s: triangles %d and %d have the same vertices (%d %d %d)",
                   name, e[i].tri, e[i + 1].tri, e[i].a, e[i].b, e[i].opp);
      sim_free(e);
      return rc;
    }
    i = j;
  }
  *out = e;
  return SIM_OK;
}

/* One stencil per edge with two triangles (Bergou et al. 2006, Sec. 4, Q = 3/(A0+A1) K^T K). */
static int build_isometric(double stiffness, const double *x, const bend_edge *e, size_t ne,
                           int off, const char *name, sim_bending *out, sim_status *st) {
  int nst = 0;
  for (size_t i = 0; i + 1 < ne; i++)
    if (e[i].a == e[i + 1].a && e[i].b == e[i + 1].b) nst++;
  if (nst > 2147483647 / 4)
    return sim_fail(st, SIM_ERR_MEMORY, "%s: %d bending stencils exceed the int index range", name,
                    nst);
  if (bending_alloc(out, nst, 4LL * nst))
    return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d bending stencils", name, nst);
  int s = 0;
  for (size_t i = 0; i + 1 < ne; i++) {
    if (e[i].a != e[i + 1].a || e[i].b != e[i + 1].b) continue;
    const int v[4] = {e[i].a, e[i].b, e[i].opp, e[i + 1].opp};
    const double *x0 = x + 3 * v[0], *x1 = x + 3 * v[1], *x2 = x + 3 * v[2], *x3 = x + 3 * v[3];
    const double c01 = cot_at(x0, x1, x2), c02 = cot_at(x0, x1, x3);
    const double c03 = cot_at(x1, x0, x2), c04 = cot_at(x1, x0, x3);
    const double K[4] = {c03 + c04, c01 + c02, -c01 - c03, -c02 - c04};
    const double A = tri_area(x0, x1, x2) + tri_area(x0, x1, x3);
    for (int c = 0; c < 4; c++) {
      out->vid[4 * s + c] = v[c] + off;
      out->coef[4 * s + c] = K[c];
    }
    out->k[s] = stiffness * 3.0 / A;
    out->rest[s] = -1.0;
    out->ptr[s + 1] = 4 * (s + 1);
    s++;
  }
  return SIM_OK;
}

/* One stencil per interior vertex: the cotangent Laplacian row over the mixed Voronoi area
   (Meyer et al. 2003), rest magnitude r_s = |L_s x| (Bouaziz et al. 2014). */
static int build_laplace(double stiffness, int nv, const double *x, int nt, const int *tri,
                         const bend_edge *e, size_t ne, int off, const char *name, sim_bending *out,
                         sim_status *st) {
  int rc = SIM_OK;
  int *vt_ptr = SIM_NEW0(int, nv + 1), *vt = SIM_NEW(int, 3 * (size_t)nt);
  int *mark = SIM_NEW(int, nv);
  unsigned char *boundary = SIM_NEW0(unsigned char, nv);
  double *cot = SIM_NEW(double, 3 * (size_t)nt), *area = SIM_NEW(double, 3 * (size_t)nt);
  if (!vt_ptr || !mark || !boundary || (nt && (!vt || !cot || !area))) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory building bending", name);
    goto done;
  }
  /* vertices on an edge with one triangle are boundary */
  for (size_t i = 0; i < ne;) {
    size_t j = i + 1;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    if (j - i == 1) boundary[e[i].a] = boundary[e[i].b] = 1;
    i = j;
  }
  /* per corner: cot of its angle, and its share of the mixed Voronoi area */
  for (int t = 0; t < nt; t++) {
    const int *v = tri + 3 * t;
    const double *p[3] = {x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]};
    const double T = tri_area(p[0], p[1], p[2]);
    int obtuse = -1;
    for (int c = 0; c < 3; c++) {
      cot[3 * t + c] = cot_at(p[c], p[(c + 1) % 3], p[(c + 2) % 3]);
      if (cot[3 * t + c] < 0) obtuse = c;
    }
    for (int c = 0; c < 3; c++) {
      const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
      if (obtuse < 0) { /* Voronoi: (|p p1|^2 cot(c2) + |p p2|^2 cot(c1)) / 8 */
        double d1[3], d2[3];
        sub3(p[c1], p[c], d1);
        sub3(p[c2], p[c], d2);
        area[3 * t + c] =
            (sim_dot3(d1, d1) * cot[3 * t + c2] + sim_dot3(d2, d2) * cot[3 * t + c1]) / 8;
      } else {
        area[3 * t + c] = obtuse == c ? T / 2 : T / 4;
      }
    }
    for (int c = 0; c < 3; c++) vt_ptr[v[c] + 1]++;
  }
  for (int i = 0; i < nv; i++) vt_ptr[i + 1] += vt_ptr[i];
  /* vertex -> incident corners (3 t + c), CSR; `mark` serves as the fill cursor first */
  for (int i = 0; i < nv; i++) mark[i] = vt_ptr[i];
  for (int t = 0; t < nt; t++)
    for (int c = 0; c < 3; c++) vt[mark[tri[3 * t + c]]++] = 3 * t + c;
  for (int i = 0; i < nv; i++) mark[i] = -1;
  /* count: interior vertices with triangles, entries = 1 + distinct neighbours */
  int nst = 0;
  long long nnz = 0;
  for (int i = 0; i < nv; i++) {
    if (boundary[i] || vt_ptr[i] == vt_ptr[i + 1]) continue;
    int cnt = 1;
    for (int a = vt_ptr[i]; a < vt_ptr[i + 1]; a++) {
      const int t = vt[a] / 3, c = vt[a] % 3;
      for (int o = 1; o <= 2; o++) {
        const int j = tri[3 * t + (c + o) % 3];
        if (mark[j] != i) mark[j] = i, cnt++;
      }
    }
    nst++;
    nnz += cnt;
  }
  if (nnz > 2147483647LL) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: %lld bending entries exceed the int index range", name,
                  nnz);
    goto done;
  }
  if (bending_alloc(out, nst, nnz)) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for %d bending stencils", name, nst);
    goto done;
  }
  for (int i = 0; i < nv; i++) mark[i] = -1;
  int s = 0, pos = 0;
  for (int i = 0; i < nv; i++) {
    if (boundary[i] || vt_ptr[i] == vt_ptr[i + 1]) continue;
    const int row = pos;
    double Ai = 0;
    out->vid[pos] = i + off;
    out->coef[pos++] = 0;
    /* w_ij = (cot a_ij + cot b_ij)/2: in triangle (i, j, l) the angle at l faces edge i-j */
    for (int a = vt_ptr[i]; a < vt_ptr[i + 1]; a++) {
      const int t = vt[a] / 3, c = vt[a] % 3;
      Ai += area[vt[a]];
      for (int o = 1; o <= 2; o++) {
        const int j = tri[3 * t + (c + o) % 3], l = (c + 3 - o) % 3;
        if (mark[j] < row) {
          mark[j] = pos;
          out->vid[pos] = j + off;
          out->coef[pos++] = 0;
        }
        out->coef[mark[j]] += 0.5 * cot[3 * t + l];
      }
    }
    /* divide by A_i, diagonal = -(row sum), r_s = |sum_j c_j (x_j - x_i)| */
    double diag = 0, Lx[3] = {0, 0, 0}, scale = 0;
    const double *xi = x + 3 * i;
    for (int p = row + 1; p < pos; p++) {
      const double c = out->coef[p] / Ai;
      double d[3];
      sub3(x + 3 * (out->vid[p] - off), xi, d);
      out->coef[p] = c;
      diag -= c;
      for (int k = 0; k < 3; k++) Lx[k] += c * d[k];
      scale += fabs(c) * sim_norm3(d);
    }
    out->coef[row] = diag;
    double r = sim_norm3(Lx);
    if (r <= 1e-10 * scale) r = 0; /* a flat 1-ring: round-off */
    out->k[s] = stiffness * Ai;
    out->rest[s] = r;
    out->ptr[++s] = pos;
  }
done:
  sim_free(vt_ptr);
  sim_free(vt);
  sim_free(mark);
  sim_free(boundary);
  sim_free(cot);
  sim_free(area);
  return rc;
}

int sim_bending_build(sim_bending_kind kind, double stiffness, int nv, const double *x, int nt,
                      const int *tri, int vert_offset, const char *name, sim_bending *out,
                      sim_status *st) {
  memset(out, 0, sizeof *out);
  if (!name) name = "mesh";
  if (kind == SIM_BEND_NONE) {
    if (bending_alloc(out, 0, 0))
      return sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory building bending", name);
    return SIM_OK;
  }
  if (kind != SIM_BEND_ISOMETRIC && kind != SIM_BEND_LAPLACE_BELTRAMI)
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: unknown bending kind %d", name, (int)kind);
  if (!(stiffness >= 0) || !isfinite(stiffness))
    return sim_fail(st, SIM_ERR_SCENE, "%s: bending stiffness must be finite and >= 0, got %g",
                    name, stiffness);
  if (vert_offset < 0 || (long long)vert_offset + nv > 2147483647LL)
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: vertex offset %d out of range", name, vert_offset);
  int rc = check_mesh(nv, x, nt, tri, name, st);
  if (rc) return rc;
  bend_edge *e = NULL;
  rc = build_edges(nt, tri, name, &e, st);
  if (rc) return rc;
  const size_t ne = 3 * (size_t)nt;
  rc = kind == SIM_BEND_ISOMETRIC
           ? build_isometric(stiffness, x, e, ne, vert_offset, name, out, st)
           : build_laplace(stiffness, nv, x, nt, tri, e, ne, vert_offset, name, out, st);
  sim_free(e);
  if (rc) sim_bending_free(out);
  return rc;
}

int sim_bending_append(sim_bending *dst, const sim_bending *src, sim_status *st) {
  const int n0 = dst->nst, n1 = src->nst;
  const long long z0 = n0 ? dst->ptr[n0] : 0, z1 = n1 ? src->ptr[n1] : 0;
  if ((long long)n0 + n1 > 2147483646LL || z0 + z1 > 2147483647LL)
    return sim_fail(st, SIM_ERR_MEMORY, "bending: %d + %d stencils exceed the int index range", n0,
                    n1);
  sim_bending b;
  if (bending_alloc(&b, n0 + n1, z0 + z1))
    return sim_fail(st, SIM_ERR_MEMORY, "bending: out of memory for %d stencils", n0 + n1);
  if (n0) {
    memcpy(b.ptr, dst->ptr, sizeof(int) * ((size_t)n0 + 1));
    memcpy(b.k, dst->k, sizeof(double) * (size_t)n0);
    memcpy(b.rest, dst->rest, sizeof(double) * (size_t)n0);
  }
  if (z0) {
    memcpy(b.vid, dst->vid, sizeof(int) * (size_t)z0);
    memcpy(b.coef, dst->coef, sizeof(double) * (size_t)z0);
  }
  for (int s = 0; s < n1; s++) b.ptr[n0 + s + 1] = (int)(z0 + src->ptr[s + 1]);
  if (n1) {
    memcpy(b.k + n0, src->k, sizeof(double) * (size_t)n1);
    memcpy(b.rest + n0, src->rest, sizeof(double) * (size_t)n1);
  }
  if (z1) {
    memcpy(b.vid + z0, src->vid, sizeof(int) * (size_t)z1);
    memcpy(b.coef + z0, src->coef, sizeof(double) * (size_t)z1);
  }
  sim_bending_free(dst);
  *dst = b;
  return SIM_OK;
}

double sim_bending_energy(const sim_bending *b, const double *q) {
  double E = 0;
  for (int s = 0; s < b->nst; s++) E += sim_bending_stencil_energy(b, s, q);
  return E;
}

void sim_bending_gradient(const sim_bending *b, const double *q, double *g) {
  for (int s = 0; s < b->nst; s++) {
    double Lq[3], p[3];
    sim_bending_apply(b, s, q, Lq);
    sim_bending_project(b, s, Lq, p);
    const double r[3] = {Lq[0] - p[0], Lq[1] - p[1], Lq[2] - p[2]};
    for (int e = b->ptr[s]; e < b->ptr[s + 1]; e++) {
      double *y = g + 3 * (size_t)b->vid[e];
      const double c = b->k[s] * b->coef[e];
      y[0] += c * r[0];
      y[1] += c * r[1];
      y[2] += c * r[2];
    }
  }
}

/* SPDX-License-Identifier: MIT */
/* Point-triangle distance (every Voronoi region, degenerate and sliver triangles, an
   optimality certificate and barycentric sampling on random triangles) and the BVH (queries
   equal a loop over all triangles on five meshes, several margins, before and after a refit;
   tree invariants; determinism; threads; bad input). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "contact/bvh.h"
#include "contact/bvh_query.h"
#include "mesh/mesh.h"

static double rnd(unsigned long long *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* ---------------- tri_distance ---------------- */

static void expect_tri(int line, const double p[3], const double x0[3], const double x1[3],
                       const double x2[3], int feature, const double c[3], const double w[3],
                       double d2, int side) {
  sim_tri_closest q;
  const double r = sim_tri_closest_point(p, x0, x1, x2, &q);
  double err = fabs(r - d2) + fabs(q.d2 - d2);
  for (int k = 0; k < 3; k++) err += fabs(q.c[k] - c[k]) + fabs(q.w[k] - w[k]);
  check_report(q.feature == feature && q.side == side && err <= 1e-15, __FILE__, line,
               "feature %d (expected %d), side %d (%d), d2 %.17g (%.17g), c (%g %g %g), "
               "w (%g %g %g), error %g",
               q.feature, feature, q.side, side, q.d2, d2, q.c[0], q.c[1], q.c[2], q.w[0], q.w[1],
               q.w[2], err);
}

static void test_tri_known(void) {
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
#define P(...) ((const double[3]){__VA_ARGS__})
  expect_tri(__LINE__, P(0.2, 0.3, 0.5), a, b, c, SIM_TRI_FACE, P(0.2, 0.3, 0), P(0.5, 0.2, 0.3),
             0.25, 1);
  expect_tri(__LINE__, P(0.2, 0.3, -0.5), a, b, c, SIM_TRI_FACE, P(0.2, 0.3, 0), P(0.5, 0.2, 0.3),
             0.25, -1);
  expect_tri(__LINE__, P(0.25, 0.25, 0), a, b, c, SIM_TRI_FACE, P(0.25, 0.25, 0),
             P(0.5, 0.25, 0.25), 0, 0);
  expect_tri(__LINE__, P(-1, -1, 0.3), a, b, c, SIM_TRI_VERT0, a, P(1, 0, 0), 2.09, 1);
  expect_tri(__LINE__, P(2, -0.5, 1), a, b, c, SIM_TRI_VERT1, b, P(0, 1, 0), 2.25, 1);
  expect_tri(__LINE__, P(-0.5, 2, -1), a, b, c, SIM_TRI_VERT2, c, P(0, 0, 1), 2.25, -1);
  expect_tri(__LINE__, P(0.5, -1, 0.2), a, b, c, SIM_TRI_EDGE0, P(0.5, 0, 0), P(0.5, 0.5, 0), 1.04,
             1);
  expect_tri(__LINE__, P(1, 1, 0), a, b, c, SIM_TRI_EDGE1, P(0.5, 0.5, 0), P(0, 0.5, 0.5), 0.5, 0);
  expect_tri(__LINE__, P(-1, 0.25, 2), a, b, c, SIM_TRI_EDGE2, P(0, 0.25, 0), P(0.75, 0, 0.25), 5,
             1);
  expect_tri(__LINE__, b, a, b, c, SIM_TRI_VERT1, b, P(0, 1, 0), 0, 0);

  /* collinear: three segments, no normal; ties go to the lowest edge */
  const double l2[3] = {2, 0, 0};
  expect_tri(__LINE__, P(0.5, 1, 0), a, b, l2, SIM_TRI_EDGE0, P(0.5, 0, 0), P(0.5, 0.5, 0), 1, 0);
  expect_tri(__LINE__, P(1.5, 0, -2), a, b, l2, SIM_TRI_EDGE1, P(1.5, 0, 0), P(0, 0.5, 0.5), 4, 0);
  expect_tri(__LINE__, P(3, 1, 0), a, b, l2, SIM_TRI_VERT2, l2, P(0, 0, 1), 2, 0);
  /* coincident vertices: a point; two coincident: a segment */
  const double o[3] = {1, 2, 3}, z2[3] = {0, 0, 2};
  expect_tri(__LINE__, P(1, 2, 4), o, o, o, SIM_TRI_VERT0, o, P(1, 0, 0), 1, 0);
  expect_tri(__LINE__, P(1, 0, 1), a, a, z2, SIM_TRI_EDGE1, P(0, 0, 1), P(0, 0.5, 0.5), 1, 0);
  /* sliver (height 1e-7, above the 1e-8 threshold): face region, accurate barycentrics */
  const double s2[3] = {0.5, 1e-7, 0};
  expect_tri(__LINE__, P(0.5, 0.5e-7, 1), a, b, s2, SIM_TRI_FACE, P(0.5, 0.5e-7, 0),
             P(0.25, 0.25, 0.5), 1, 1);
  expect_tri(__LINE__, P(0.3, -1e-10, -0.5), a, b, s2, SIM_TRI_EDGE0, P(0.3, 0, 0), P(0.7, 0.3, 0),
             0.25 + 1e-20, -1);
  sim_tri_closest q;
  sim_tri_closest_point(P(0.5, 0.5e-7, 1), a, b, s2, &q);
  CHECK_NEAR(q.c[1], 0.5e-7, 1e-22);
  CHECK_NEAR(q.n[2], 1.0, 1e-15);
  /* height 1e-12: three segments, the point moves by less than the height */
  const double s3[3] = {0.5, 1e-12, 0};
  sim_tri_closest_point(P(0.5, 0.5e-12, 1), a, b, s3, &q);
  CHECK(q.feature != SIM_TRI_FACE && q.n[2] == 0 && q.side == 0);
  CHECK_NEAR(q.d2, 1.0, 1e-15);
  CHECK(fabs(q.c[0] - 0.5) <= 1e-12 && fabs(q.c[1] - 0.5e-12) <= 1e-12 && q.c[2] == 0);
  /* contact normal: (p - c)/|p - c|, else n, else +x */
  double nc[3];
  sim_tri_closest_point(P(0.2, 0.3, -0.5), a, b, c, &q);
  sim_tri_contact_normal(P(0.2, 0.3, -0.5), &q, nc);
  CHECK(fabs(nc[0]) + fabs(nc[1]) <= 1e-15 && fabs(nc[2] + 1) <= 1e-15);
  sim_tri_closest_point(P(2, -1, 0), a, b, c, &q);
  sim_tri_contact_normal(P(2, -1, 0), &q, nc);
  CHECK_NEAR(nc[0] - nc[1], sqrt(2.0), 1e-15);
  sim_tri_closest_point(P(0.25, 0.25, 0), a, b, c, &q);
  sim_tri_contact_normal(P(0.25, 0.25, 0), &q, nc);
  CHECK(q.d2 == 0 && nc[0] == 0 && nc[1] == 0 && nc[2] == 1);
  sim_tri_closest_point(P(1, 0, 0), a, b, l2, &q);
  sim_tri_contact_normal(P(1, 0, 0), &q, nc);
  CHECK(q.d2 == 0 && nc[0] == 1 && nc[1] == 0 && nc[2] == 0);
#undef P
}

/* Random triangles: generic, slivers, needles, collinear, coincident; points anywhere and
   near the plane. Checks: c = sum w_i x_i with w >= 0, sum 1; d2 = |p - c|^2; the feature
   matches w; the optimality certificate (p - c).(x_i - c) <= 0 for every vertex (c is then
   the closest point of the convex hull); side and normal; on a subset, the minimum over a
   barycentric sampling of spacing L/n lies in [d, d + L/n]. */
static void random_triangle(unsigned long long *s, int kind, double x[9]) {
  for (int i = 0; i < 9; i++) x[i] = rnd(s);
  const double tiny = pow(10.0, -3 - 11 * (0.5 + 0.5 * rnd(s)));
  for (int k = 0; k < 3; k++) {
    if (kind == 1)
      x[6 + k] =
          0.5 * (x[k] + x[3 + k]) + 0.3 * rnd(s) * (x[3 + k] - x[k]) + tiny * rnd(s); /* sliver */
    if (kind == 2) x[3 + k] = x[k] + tiny * rnd(s);                                   /* needle */
    if (kind == 3) x[6 + k] = x[k] + 1.7 * (x[3 + k] - x[k]); /* collinear */
    if (kind == 4) x[3 + k] = x[6 + k] = x[k];                /* a point */
  }
}

static void test_tri_random(void) {
  unsigned long long s = 42;
  int bad_hull = 0, bad_d2 = 0, bad_feat = 0, bad_kkt = 0, bad_side = 0, bad_sample = 0;
  int feat_seen[7] = {0}, sampled = 0;
  double worst_kkt = 0;
  for (int it = 0; it < 20000; it++) {
    const int kind = it % 6 < 2 ? 0 : it % 6 - 1; /* 0 generic, then the kinds above */
    double x[9], p[3];
    random_triangle(&s, kind, x);
    const double *x0 = x, *x1 = x + 3, *x2 = x + 6;
    if (rnd(&s) < -1.0 / 3) { /* near the plane, over the triangle or just beside it */
      double u = fabs(rnd(&s)), v = fabs(rnd(&s)) * (1 - u);
      const double h = 1e-3 * rnd(&s);
      for (int k = 0; k < 3; k++)
        p[k] = x0[k] + 1.1 * u * (x1[k] - x0[k]) + 1.1 * v * (x2[k] - x0[k]) + h;
    } else {
      for (int k = 0; k < 3; k++) p[k] = 2 * rnd(&s);
    }
    sim_tri_closest q;
    sim_tri_closest_point(p, x0, x1, x2, &q);
    feat_seen[q.feature]++;
    double L = 0, wsum = q.w[0] + q.w[1] + q.w[2], cerr = 0, pc[3];
    for (int k = 0; k < 3; k++) {
      L = fmax(L, fmax(fabs(x0[k] - x1[k]), fmax(fabs(x1[k] - x2[k]), fabs(x0[k] - x2[k]))));
      cerr = fmax(cerr, fabs(q.c[k] - (q.w[0] * x0[k] + q.w[1] * x1[k] + q.w[2] * x2[k])));
      pc[k] = p[k] - q.c[k];
    }
    bad_hull +=
        !(q.w[0] >= 0 && q.w[1] >= 0 && q.w[2] >= 0 && fabs(wsum - 1) <= 1e-14 && cerr == 0);
    bad_d2 += !(fabs(q.d2 - sim_dot3(pc, pc)) <= 1e-15 * (1 + q.d2));
    const int f = q.feature;
    int fok;
    if (f == SIM_TRI_FACE)
      fok = q.w[0] > 0 && q.w[1] > 0 && q.w[2] > 0;
    else if (f <= SIM_TRI_EDGE2)
      fok = q.w[f - 1] > 0 && q.w[f % 3] > 0 && q.w[(f + 1) % 3] == 0;
    else
      fok = q.w[f - 4] == 1 && q.w[(f - 3) % 3] == 0 && q.w[(f - 2) % 3] == 0;
    bad_feat += !fok;
    double e1[3], e2[3], e3[3], n[3], px[3];
    for (int k = 0; k < 3; k++)
      e1[k] = x1[k] - x0[k], e2[k] = x2[k] - x0[k], e3[k] = x2[k] - x1[k], px[k] = p[k] - x0[k];
    sim_cross3(e1, e2, n);
    const double nn = sim_norm3(n), h = sim_dot3(px, n) / (nn > 0 ? nn : 1);
    /* certificate tolerance: rounding, plus the conditioning of a sliver's face barycentrics
       (eps / s, s the sine of the sharpest angle) or, below the 1e-8 threshold, the height
       of a sliver handled as segments */
    const double l2 = fmax(sim_dot3(e1, e1), fmax(sim_dot3(e2, e2), sim_dot3(e3, e3)));
    const double sn = l2 > 0 ? nn / l2 : 0, Ld = L + sqrt(q.d2);
    const double tol = 1e-13 * Ld * L + (sn > 1e-8 ? 2e-15 * Ld * Ld / sn : 2 * sn * sqrt(l2) * Ld);
    for (int i = 0; i < 3; i++) {
      double vc[3];
      for (int k = 0; k < 3; k++) vc[k] = x[3 * i + k] - q.c[k];
      const double g = sim_dot3(pc, vc);
      worst_kkt = fmax(worst_kkt, tol > 0 ? g / tol : g);
      bad_kkt += g > tol;
    }
    if (kind == 0) { /* well-shaped: unit normal along n, side = sign of the height */
      const int side = h > 1e-12 ? 1 : (h < -1e-12 ? -1 : q.side);
      bad_side += !(q.side == side && fabs(sim_dot3(q.n, n) - nn) <= 1e-12 * nn &&
                    fabs(sim_norm3(q.n) - 1) <= 1e-15);
      if (f == SIM_TRI_FACE && q.d2 > 1e-12) {
        double nc[3];
        sim_tri_contact_normal(p, &q, nc);
        for (int k = 0; k < 3; k++) bad_side += fabs(nc[k] - q.side * q.n[k]) > 1e-9;
      }
    } else if (kind >= 3) {
      bad_side += !(q.side == 0 && q.n[0] == 0 && q.n[1] == 0 && q.n[2] == 0);
    }
    if (it % 41 == 0) { /* sampling on a barycentric grid, every kind */
      const int m = 300;
      double ds2 = INFINITY;
      for (int i = 0; i <= m; i++)
        for (int j = 0; i + j <= m; j++) {
          double d[3];
          for (int k = 0; k < 3; k++)
            d[k] = p[k] - ((double)(m - i - j) * x0[k] + (double)i * x1[k] + (double)j * x2[k]) / m;
          ds2 = fmin(ds2, sim_dot3(d, d));
        }
      const double d = sqrt(q.d2), ds = sqrt(ds2);
      bad_sample += !(d <= ds + 1e-12 && ds <= d + 2 * L / m + 1e-12);
      sampled++;
    }
  }
  check_report(bad_hull == 0, __FILE__, __LINE__, "%d closest points off the triangle", bad_hull);
  CHECK_INT(bad_d2, 0);
  CHECK_INT(bad_feat, 0);
  printf("random triangles: worst certificate residual %.3g of its tolerance\n", worst_kkt);
  check_report(bad_kkt == 0, __FILE__, __LINE__, "%d certificates fail, worst %g", bad_kkt,
               worst_kkt);
  CHECK_INT(bad_side, 0);
  CHECK_INT(bad_sample, 0);
  CHECK(sampled >= 480);
  for (int f = 0; f < 7; f++)
    check_report(feat_seen[f] > 100, __FILE__, __LINE__, "feature %d seen %d times", f,
                 feat_seen[f]);
}

/* ---------------- BVH ---------------- */

typedef struct mesh {
  const char *name;
  int nv, nt;
  double *x;
  int *tri;
  double size; /* bounding-box diagonal */
} mesh;

static mesh mesh_from_surface(const char *name, sim_surface *s) {
  mesh m = {name, s->nv, s->nt, s->x, s->tri, 0};
  memset(s, 0, sizeof *s);
  return m;
}

static void mesh_finish(mesh *m) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < m->nv; v++)
    for (int k = 0; k < 3; k++)
      lo[k] = fmin(lo[k], m->x[3 * v + k]), hi[k] = fmax(hi[k], m->x[3 * v + k]);
  double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
  m->size = sim_norm3(d);
}

static void mesh_free(mesh *m) {
  sim_free(m->x);
  sim_free(m->tri);
}

static mesh make_sphere(void) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_icosphere(1.0, 3, &s, &st), SIM_OK);
  return mesh_from_surface("icosphere", &s);
}

/* 1500 unconnected triangles, a tenth of them slivers and a few degenerate */
static mesh make_soup(unsigned long long *r) {
  mesh m = {"soup", 4500, 1500, SIM_NEW(double, 13500), SIM_NEW(int, 4500), 0};
  for (int t = 0; t < m.nt; t++) {
    double c[3], *x = m.x + 9 * t;
    for (int k = 0; k < 3; k++) c[k] = rnd(r);
    for (int i = 0; i < 9; i++) x[i] = c[i % 3] + 0.15 * rnd(r);
    if (t % 10 == 3)
      for (int k = 0; k < 3; k++) x[6 + k] = 0.5 * (x[k] + x[3 + k]) + 1e-9 * rnd(r);
    if (t % 50 == 7)
      for (int k = 0; k < 3; k++) x[3 + k] = x[k];
    for (int i = 0; i < 3; i++) m.tri[3 * t + i] = 3 * t + i;
  }
  return m;
}

static mesh make_single(void) {
  mesh m = {"single", 3, 1, SIM_NEW(double, 9), SIM_NEW(int, 3), 0};
  const double x[9] = {0.1, -0.2, 0.3, 1.2, 0.1, -0.4, -0.3, 0.9, 0.5};
  memcpy(m.x, x, sizeof x);
  for (int i = 0; i < 3; i++) m.tri[i] = i;
  return m;
}

/* a twisted open strip (helicoid band), 120 triangles */
static mesh make_strip(void) {
  const int n = 61;
  mesh m = {"strip", 2 * n, 2 * (n - 1), SIM_NEW(double, 6 * n), SIM_NEW(int, 6 * (n - 1)), 0};
  for (int i = 0; i < n; i++) {
    const double th = 0.08 * i;
    for (int j = 0; j < 2; j++) {
      double *v = m.x + 3 * (2 * i + j);
      v[0] = 0.05 * i, v[1] = (j ? 0.2 : -0.2) * cos(th), v[2] = (j ? 0.2 : -0.2) * sin(th);
    }
  }
  for (int i = 0; i + 1 < n; i++) {
    const int a = 2 * i, t[6] = {a, a + 1, a + 2, a + 1, a + 3, a + 2};
    memcpy(m.tri + 6 * i, t, sizeof t);
  }
  return m;
}

/* a knife blade: two 11 x 11 sheets 1e-3 apart, facing away from each other, with the
   cutting edge closed by a sliver row */
static mesh make_blade(void) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  const double size[2] = {1.0, 0.3};
  CHECK_INT(sim_gen_cloth_grid(size, 11, 11, 0, &s, &st), SIM_OK);
  mesh m = {"blade",
            2 * s.nv,
            2 * s.nt + 20,
            SIM_NEW(double, 6 * s.nv),
            SIM_NEW(int, 3 * (2 * s.nt + 20)),
            0};
  for (int v = 0; v < s.nv; v++)
    for (int k = 0; k < 3; k++) {
      m.x[3 * v + k] = s.x[3 * v + k] + (k == 1 ? 5e-4 : 0);
      m.x[3 * (s.nv + v) + k] = s.x[3 * v + k] - (k == 1 ? 5e-4 : 0);
    }
  for (int t = 0; t < s.nt; t++) {
    const int *a = s.tri + 3 * t;
    int *top = m.tri + 3 * t, *bot = m.tri + 3 * (s.nt + t);
    top[0] = a[0], top[1] = a[1], top[2] = a[2];
    bot[0] = a[0] + s.nv, bot[1] = a[2] + s.nv, bot[2] = a[1] + s.nv;
  }
  for (int i = 0; i < 10; i++) { /* the edge z = -0.15: grid row 0 on both sheets */
    int *t = m.tri + 3 * (2 * s.nt + 2 * i);
    t[0] = i, t[1] = i + 1, t[2] = s.nv + i;
    t[3] = i + 1, t[4] = s.nv + i + 1, t[5] = s.nv + i;
  }
  sim_surface_free(&s);
  return m;
}

/* Tree invariants: pre-order (left = i + 1 < right), leaves of 1..SIM_BVH_LEAF slots
   partitioning 0..nt, id a permutation, tri[slot] = input tri[id], every triangle inside its
   leaf box, inner boxes the union of their children, depth <= ceil(log2 nt) + 1. */
static int tree_ok(const sim_bvh *b, const mesh *m, char *why) {
  int *seen = SIM_NEW0(int, m->nt);
  int next = 0, ok = 1, depth[64] = {0}, maxd = 0, sp = 0, stack[64];
  stack[sp++] = 0;
  why[0] = 0;
  while (sp > 0 && ok) {
    const int i = stack[--sp], d = depth[sp];
    const sim_bvh_node *nd = &b->node[i];
    maxd = d > maxd ? d : maxd;
    if (nd->count == 0) {
      const sim_bvh_node *l = &b->node[i + 1], *r = &b->node[nd->first];
      if (nd->first <= i + 1 || nd->first >= b->nnodes) ok = 0, sprintf(why, "node %d order", i);
      for (int k = 0; k < 3 && ok; k++)
        if (nd->lo[k] != fmin(l->lo[k], r->lo[k]) || nd->hi[k] != fmax(l->hi[k], r->hi[k]))
          ok = 0, sprintf(why, "node %d box is not the union", i);
      depth[sp] = d + 1, stack[sp++] = nd->first;
      depth[sp] = d + 1, stack[sp++] = i + 1;
      continue;
    }
    if (nd->first != next || nd->count > SIM_BVH_LEAF)
      ok = 0, sprintf(why, "leaf %d: first %d count %d", i, nd->first, nd->count);
    for (int s = nd->first; s < nd->first + nd->count && ok; s++) {
      const int t = b->id[s];
      if (t < 0 || t >= m->nt || seen[t]++) {
        ok = 0, sprintf(why, "slot %d: id %d", s, t);
        break;
      }
      for (int j = 0; j < 3; j++) {
        const int v = b->tri[3 * s + j];
        if (v != m->tri[3 * t + j]) ok = 0, sprintf(why, "slot %d: vertex %d", s, j);
        for (int k = 0; k < 3 && ok; k++)
          if (!(m->x[3 * v + k] >= nd->lo[k] && m->x[3 * v + k] <= nd->hi[k]))
            ok = 0, sprintf(why, "triangle %d outside leaf %d", t, i);
      }
    }
    next += nd->count;
  }
  if (ok && next != m->nt) ok = 0, sprintf(why, "leaves hold %d of %d triangles", next, m->nt);
  const int bound = (int)ceil(log2((double)m->nt)) + 1;
  if (ok && maxd > bound) ok = 0, sprintf(why, "depth %d > %d", maxd, bound);
  sim_free(seen);
  return ok;
}

static int cmp_hit(const void *a, const void *b) {
  return ((const sim_bvh_hit *)a)->tri - ((const sim_bvh_hit *)b)->tri;
}

static int same_q(const sim_tri_closest *a, const sim_tri_closest *b) {
  int ok = a->d2 == b->d2 && a->feature == b->feature && a->side == b->side;
  for (int k = 0; k < 3; k++) ok &= a->c[k] == b->c[k] && a->w[k] == b->w[k] && a->n[k] == b->n[k];
  return ok;
}

/* Query points: uniform in the padded box, near the surface, on triangles, at vertices. */
static void make_points(const mesh *m, unsigned long long *r, int np, double *p) {
  for (int i = 0; i < np; i++) {
    double *q = p + 3 * i;
    const int t = (int)((0.5 + 0.5 * rnd(r)) * m->nt), kind = i % 6;
    const double *a = m->x + 3 * m->tri[3 * t], *b = m->x + 3 * m->tri[3 * t + 1],
                 *c = m->x + 3 * m->tri[3 * t + 2];
    double u = 0.5 + 0.5 * rnd(r), v = (0.5 + 0.5 * rnd(r)) * (1 - u);
    for (int k = 0; k < 3; k++) {
      if (kind < 2)
        q[k] = a[k] + 0.6 * m->size * rnd(r);
      else if (kind < 4)
        q[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - a[k]) + 0.05 * m->size * rnd(r);
      else if (kind == 4)
        q[k] = a[k] + u * (b[k] - a[k]) + v * (c[k] - a[k]);
      else
        q[k] = a[k];
    }
  }
}

/* Every query against a loop over all triangles, for every point and margin. */
static void compare_brute(const sim_bvh *b, const mesh *m, const double *x, const double *p, int np,
                          const char *state) {
  static const double kMargins[5] = {0, 0.003, 0.03, 0.1, 0.5};
  sim_tri_closest *bq = SIM_NEW(sim_tri_closest, m->nt);
  sim_bvh_hits hits = {0};
  sim_status st;
  sim_status_clear(&st);
  int bad[6] = {0}, bad_near[6] = {0}, first_bad = -1;
  long long nhit[5] = {0}, nfound[6] = {0};
  for (int i = 0; i < np; i++) {
    const double *pi = p + 3 * i;
    for (int t = 0; t < m->nt; t++) {
      const int *v = m->tri + 3 * t;
      sim_tri_closest_point(pi, x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], &bq[t]);
    }
    for (int j = 0; j < 6; j++) {
      const double margin = j < 5 ? kMargins[j] * m->size : INFINITY, m2 = margin * margin;
      if (j < 5) {
        hits.n = 0;
        const int rc = sim_bvh_query_hits(b, x, pi, margin, &hits, &st);
        if (hits.n > 1) qsort(hits.hit, (size_t)hits.n, sizeof *hits.hit, cmp_hit);
        int k = 0, ok = rc == SIM_OK;
        for (int t = 0; t < m->nt && ok; t++) {
          if (!(bq[t].d2 <= m2)) continue;
          ok = k < hits.n && hits.hit[k].tri == t && same_q(&hits.hit[k].q, &bq[t]);
          k++;
        }
        ok &= k == hits.n;
        nhit[j] += hits.n;
        bad[j] += !ok;
        if (!ok && first_bad < 0) first_bad = i;
      }
      int best = -1;
      for (int t = 0; t < m->nt; t++)
        if (bq[t].d2 <= m2 && (best < 0 || bq[t].d2 < bq[best].d2)) best = t;
      sim_bvh_hit h;
      const int f = sim_bvh_nearest(b, x, pi, margin, &h);
      const int ok = f == (best >= 0) && (!f || (h.tri == best && same_q(&h.q, &bq[best])));
      bad_near[j] += !ok;
      nfound[j] += f;
    }
  }
  for (int j = 0; j < 6; j++) {
    const double mg = j < 5 ? kMargins[j] : INFINITY;
    if (j < 5)
      check_report(bad[j] == 0, __FILE__, __LINE__,
                   "%s %s margin %g: query differs at %d of %d points (first %d)", m->name, state,
                   mg, bad[j], np, first_bad);
    check_report(bad_near[j] == 0, __FILE__, __LINE__, "%s %s margin %g: nearest differs at %d",
                 m->name, state, mg, bad_near[j]);
  }
  /* not vacuous: the exact points hit at margin 0, the wider margins hit more, and the
     smaller ones miss some points */
  check_report(
      nhit[0] > 0 && nhit[2] > nhit[1] && nhit[4] > nhit[3] && nfound[3] < np && nfound[5] == np,
      __FILE__, __LINE__, "%s %s: hits %lld %lld %lld %lld %lld, nearest found %lld of %d", m->name,
      state, nhit[0], nhit[1], nhit[2], nhit[3], nhit[4], nfound[3], np);
  sim_bvh_hits_free(&hits);
  sim_free(bq);
}

static int stop_first(void *ctx, const sim_bvh_hit *h) {
  (*(int *)ctx)++;
  return 1;
}

static void test_bvh_mesh(mesh m, unsigned long long seed) {
  unsigned long long r = seed;
  mesh_finish(&m);
  const int np = 2000;
  double *p = SIM_NEW(double, 3 * np), *y = SIM_NEW(double, 3 * m.nv);
  sim_status st;
  sim_status_clear(&st);
  sim_bvh b, b2;
  CHECK_INT(sim_bvh_build(m.nv, m.x, m.nt, m.tri, &b, &st), SIM_OK);
  char why[160];
  check_report(tree_ok(&b, &m, why), __FILE__, __LINE__, "%s: %s", m.name, why);
  make_points(&m, &r, np, p);
  compare_brute(&b, &m, m.x, p, np, "built");

  /* determinism: a second build is bit-identical and visits hits in the same order */
  CHECK_INT(sim_bvh_build(m.nv, m.x, m.nt, m.tri, &b2, &st), SIM_OK);
  CHECK(b2.nnodes == b.nnodes && !memcmp(b.node, b2.node, sizeof *b.node * (size_t)b.nnodes) &&
        !memcmp(b.tri, b2.tri, sizeof(int) * 3 * (size_t)m.nt) &&
        !memcmp(b.id, b2.id, sizeof(int) * (size_t)m.nt));
  sim_bvh_hits h1 = {0}, h2 = {0};
  for (int i = 0; i < 200; i++) {
    sim_bvh_query_hits(&b, m.x, p + 3 * i, 0.1 * m.size, &h1, &st);
    sim_bvh_query_hits(&b2, m.x, p + 3 * i, 0.1 * m.size, &h2, &st);
  }
  int same = h1.n == h2.n && h1.n > 0;
  for (int i = 0; same && i < h1.n; i++) same = h1.hit[i].tri == h2.hit[i].tri;
  CHECK(same);
  sim_bvh_hits_free(&h1);
  sim_bvh_hits_free(&h2);
  sim_bvh_free(&b2);

  /* the callback can stop a query */
  int calls = 0, full = sim_bvh_query(&b, m.x, m.x, 0.5 * m.size, stop_first, &calls);
  CHECK(full == 1 && calls == 1);

  /* refit after a deformation: topology unchanged, queries still exact; the stale tree
     would not be (boxes lag the translation) */
  for (int v = 0; v < m.nv; v++)
    for (int k = 0; k < 3; k++)
      y[3 * v + k] = m.x[3 * v + k] * (k == 0 ? 1.3 : 1.0) + 0.05 * m.size * rnd(&r) +
                     (k == 1 ? 0.2 * m.size : 0.0);
  sim_bvh_node *before = SIM_NEW(sim_bvh_node, b.nnodes);
  memcpy(before, b.node, sizeof *before * (size_t)b.nnodes);
  sim_bvh_refit(&b, y);
  int topo = 1;
  for (int i = 0; i < b.nnodes; i++)
    topo &= before[i].first == b.node[i].first && before[i].count == b.node[i].count;
  CHECK(topo);
  mesh moved = m;
  moved.x = y;
  check_report(tree_ok(&b, &moved, why), __FILE__, __LINE__, "%s refit: %s", m.name, why);
  make_points(&moved, &r, np, p);
  compare_brute(&b, &moved, y, p, np, "refit");
  sim_free(before);
  sim_bvh_free(&b);
  sim_free(p);
  sim_free(y);
  mesh_free(&m);
}

/* Leaves are spatially compact: on the icosphere the mean leaf box diagonal is a few
   triangle edges (a random split would give a sizeable fraction of the sphere). */
static void test_quality(void) {
  mesh m = make_sphere();
  sim_status st;
  sim_status_clear(&st);
  sim_bvh b;
  CHECK_INT(sim_bvh_build(m.nv, m.x, m.nt, m.tri, &b, &st), SIM_OK);
  double diag = 0, edge = 0;
  int leaves = 0;
  for (int i = 0; i < b.nnodes; i++) {
    if (b.node[i].count == 0) continue;
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = b.node[i].hi[k] - b.node[i].lo[k];
    diag += sim_norm3(d), leaves++;
  }
  for (int t = 0; t < m.nt; t++) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = m.x[3 * m.tri[3 * t] + k] - m.x[3 * m.tri[3 * t + 1] + k];
    edge += sim_norm3(d);
  }
  diag /= leaves, edge /= m.nt;
  printf("icosphere %d triangles: %d nodes, %d leaves, mean leaf diagonal %.3f edges\n", m.nt,
         b.nnodes, leaves, diag / edge);
  CHECK(leaves >= m.nt / SIM_BVH_LEAF && diag < 3 * edge);
  sim_bvh_free(&b);
  mesh_free(&m);
}

/* Rounding can put a closest point just outside the box of its triangle's vertices (in a
   plane z = const, c_z = w0 z + w1 z + w2 z with the w summing to 1 +- eps); the padded
   boxes still find the triangle at margin = its own distance. */
static void test_rounding_pad(void) {
  unsigned long long r = 99;
  int outside = 0, missed = 0;
  sim_status st;
  sim_status_clear(&st);
  const int tri[3] = {0, 1, 2};
  for (int it = 0; it < 20000; it++) {
    double x[9], p[3];
    const double z = 0.1 + 0.05 * rnd(&r), u = fabs(rnd(&r)), v = fabs(rnd(&r)) * (1 - u);
    for (int i = 0; i < 3; i++) x[3 * i] = rnd(&r), x[3 * i + 1] = rnd(&r), x[3 * i + 2] = z;
    for (int k = 0; k < 2; k++) p[k] = x[k] + u * (x[3 + k] - x[k]) + v * (x[6 + k] - x[k]);
    p[2] = z + 1e-3 * (0.5 + 0.5 * rnd(&r));
    sim_tri_closest q;
    sim_tri_closest_point(p, x, x + 3, x + 6, &q);
    outside += q.c[2] > z;
    double m = sqrt(q.d2);
    while (m * m < q.d2) m = nextafter(m, INFINITY);
    sim_bvh b;
    sim_bvh_hit h;
    int calls = 0;
    if (sim_bvh_build(3, x, 1, tri, &b, &st) != SIM_OK) break;
    missed += sim_bvh_query(&b, x, p, m, stop_first, &calls) != 1 ||
              sim_bvh_nearest(&b, x, p, m, &h) != 1;
    sim_bvh_free(&b);
  }
  check_report(outside > 100 && missed == 0 && st.code == SIM_OK, __FILE__, __LINE__,
               "%d closest points above the plane, %d missed (%s)", outside, missed, st.msg);
}

/* OpenMP loop over points: the same hits as a serial loop. */
static void test_threads(void) {
  unsigned long long r = 7;
  mesh m = make_soup(&r);
  mesh_finish(&m);
  const int np = 4000;
  double *p = SIM_NEW(double, 3 * np), *sum_s = SIM_NEW(double, np), *sum_p = SIM_NEW(double, np);
  make_points(&m, &r, np, p);
  sim_status st;
  sim_status_clear(&st);
  sim_bvh b;
  CHECK_INT(sim_bvh_build(m.nv, m.x, m.nt, m.tri, &b, &st), SIM_OK);
  for (int pass = 0; pass < 2; pass++) {
    double *sum = pass ? sum_p : sum_s;
    int fails = 0;
#pragma omp parallel num_threads(pass ? 4 : 1) reduction(+ : fails)
    {
      sim_bvh_hits h = {0};
      sim_status ts;
      sim_status_clear(&ts);
#pragma omp for schedule(dynamic, 16)
      for (int i = 0; i < np; i++) {
        h.n = 0;
        fails += sim_bvh_query_hits(&b, m.x, p + 3 * i, 0.05 * m.size, &h, &ts) != SIM_OK;
        double s = 0;
        for (int k = 0; k < h.n; k++) s += (h.hit[k].tri + 1) * (1 + h.hit[k].q.d2);
        sim_bvh_hit nh;
        sum[i] = s + (sim_bvh_nearest(&b, m.x, p + 3 * i, INFINITY, &nh) ? nh.tri : -1);
      }
      sim_bvh_hits_free(&h);
    }
    CHECK_INT(fails, 0);
  }
  CHECK(!memcmp(sum_s, sum_p, sizeof(double) * np));
  sim_bvh_free(&b);
  sim_free(p), sim_free(sum_s), sim_free(sum_p);
  mesh_free(&m);
}

static void test_bad_input(void) {
  const double x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const int tri[6] = {0, 1, 2, 0, 2, 7};
  sim_status st;
  sim_bvh b;
  sim_status_clear(&st);
  CHECK_INT(sim_bvh_build(4, x, 2, tri, &b, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "bvh: triangle 1 has vertex index 7 out of range (expected 0..3)");
  CHECK(b.node == NULL && b.nnodes == 0);
  const int neg[3] = {0, -1, 2};
  sim_status_clear(&st);
  CHECK_INT(sim_bvh_build(4, x, 1, neg, &b, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "vertex index -1 out of range");
  double xn[12];
  memcpy(xn, x, sizeof x);
  xn[7] = NAN;
  sim_status_clear(&st);
  CHECK_INT(sim_bvh_build(4, xn, 1, tri, &b, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "bvh: vertex 2 has a non-finite coordinate");
  sim_status_clear(&st);
  CHECK_INT(sim_bvh_build(4, x, -1, tri, &b, &st), SIM_ERR_MESH);
  /* empty mesh: valid, finds nothing */
  sim_status_clear(&st);
  CHECK_INT(sim_bvh_build(4, x, 0, NULL, &b, &st), SIM_OK);
  sim_bvh_hit h;
  sim_bvh_hits hs = {0};
  CHECK_INT(sim_bvh_nearest(&b, x, x, INFINITY, &h), 0);
  CHECK_INT(sim_bvh_query_hits(&b, x, x, 1.0, &hs, &st), SIM_OK);
  CHECK_INT(hs.n, 0);
  sim_bvh_refit(&b, x);
  sim_bvh_free(&b);
  /* negative or NaN margins find nothing, margin 0 finds touching triangles */
  CHECK_INT(sim_bvh_build(4, x, 1, tri, &b, &st), SIM_OK);
  int calls = 0;
  CHECK_INT(sim_bvh_query(&b, x, x + 3, -1e-9, stop_first, &calls), 0);
  CHECK_INT(sim_bvh_query(&b, x, x + 3, NAN, stop_first, &calls), 0);
  CHECK_INT(sim_bvh_nearest(&b, x, x + 3, -1.0, &h), 0);
  CHECK_INT(sim_bvh_nearest(&b, x, x + 9, 0.5, &h), 0);
  CHECK_INT(sim_bvh_nearest(&b, x, x + 9, 1.0, &h), 1);
  CHECK(h.tri == 0 && h.q.d2 == 1 && h.q.feature == SIM_TRI_VERT0 && h.q.side == 1);
  CHECK_INT(sim_bvh_query_hits(&b, x, x + 3, 0.0, &hs, &st), SIM_OK);
  CHECK(hs.n == 1 && hs.hit[0].q.feature == SIM_TRI_VERT1);
  sim_bvh_hits_free(&hs);
  sim_bvh_free(&b);
}

/* The pseudo-normal as it was summed until 2026-12-03: the terms of the triangles met by a walk
   of the tree over the leaves within `radius` (bvh_query.h now takes the vertex's ring). */
static void walk_pseudo_normal(const sim_bvh_view *b, const double *x, const double p[3],
                               double radius, int ga, int gb, double N[3]) {
  const double m2 = radius * radius;
  sim_bvh_walk w;
  sim_bvh_walk_begin(b, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(b, &w, p, m2, NULL)) >= 0;)
    for (int s = b->node[leaf].first; s < b->node[leaf].first + b->node[leaf].count; s++)
      sim_bvh_pseudo_term(b, x, p, m2, s, ga, gb, N);
}

/* The rings (bvh.h) hold each vertex's triangles once, ascending, and the pseudo-normal from
   them is the walk's to the bit: at the nearest triangle's vertex or edge of points around
   the mesh, with the radius collision detection takes (detect_vertex.h), half of it and twice
   it. `shift` unused vertices come first (a body's tree indexes the global positions), and
   a triangle that names a vertex twice is added. */
static void test_rings(mesh m, int shift, unsigned long long seed) {
  unsigned long long r = seed;
  mesh_finish(&m);
  const int nv = m.nv + shift, nt = m.nt + 1;
  double *x = SIM_NEW(double, 3 * (size_t)nv);
  int *tri = SIM_NEW(int, 3 * (size_t)nt);
  for (int i = 0; i < 3 * shift; i++) x[i] = 1e3 + i;
  memcpy(x + 3 * shift, m.x, sizeof(double) * 3 * (size_t)m.nv);
  for (int i = 0; i < 3 * m.nt; i++) tri[i] = m.tri[i] + shift;
  const int twice[3] = {tri[0], tri[0], tri[4]};
  memcpy(tri + 3 * m.nt, twice, sizeof twice);
  sim_status st;
  sim_status_clear(&st);
  sim_bvh b;
  CHECK_INT(sim_bvh_build(nv, x, nt, tri, &b, &st), SIM_OK);
  CHECK_INT(b.ring_lo, shift);
  CHECK_INT(b.ring_n, m.nv);
  int bad = 0, total = 0;
  for (int v = 0; v < b.ring_n; v++) { /* the slots naming v, each once, ascending */
    int k = b.ring_ptr[v];
    for (int s = 0; s < nt; s++) {
      const int *t = b.tri + 3 * s,
                has = t[0] == v + shift || t[1] == v + shift || t[2] == v + shift;
      if (has) bad += k >= b.ring_ptr[v + 1] || b.ring[k++] != s, total++;
    }
    bad += k != b.ring_ptr[v + 1];
  }
  CHECK_INT(bad, 0);
  CHECK_INT(b.ring_ptr[b.ring_n], total);
  const sim_bvh_view view = sim_bvh_view_of(&b);
  const int np = 600;
  double *p = SIM_NEW(double, 3 * np);
  make_points(&m, &r, np, p);
  int differ = 0, vertices = 0, edges = 0;
  for (int i = 0; i < np; i++) {
    sim_bvh_hit h;
    if (!sim_bvh_nearest(&b, x, p + 3 * i, INFINITY, &h) || h.q.feature == SIM_TRI_FACE) continue;
    const int *t = tri + 3 * h.tri, f = h.q.feature;
    const int ga = f >= SIM_TRI_VERT0 ? t[f - SIM_TRI_VERT0] : t[f - SIM_TRI_EDGE0];
    const int gb = f >= SIM_TRI_VERT0 ? -1 : t[(f - SIM_TRI_EDGE0 + 1) % 3];
    vertices += gb < 0, edges += gb >= 0;
    const double d = sqrt(h.q.d2);
    const double scale = fmax(fabs(h.q.c[0]), fmax(fabs(h.q.c[1]), fabs(h.q.c[2])));
    const double r0 = d + 1e-10 * (d + scale) + 1e-300, radii[3] = {r0, 0.5 * r0, 2.0 * r0};
    for (int j = 0; j < 3; j++) {
      double a[3] = {0.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 0.0};
      sim_bvh_view_pseudo_normal(&view, x, p + 3 * i, radii[j], ga, gb, a);
      walk_pseudo_normal(&view, x, p + 3 * i, radii[j], ga, gb, w);
      differ += memcmp(a, w, sizeof a) != 0;
    }
  }
  check_report(differ == 0, __FILE__, __LINE__, "%s: %d pseudo-normals differ from the walk's",
               m.name, differ);
  check_report(vertices > 20 && edges > 20, __FILE__, __LINE__,
               "%s: %d vertex and %d edge features (expected over 20 each)", m.name, vertices,
               edges);
  sim_free(p);
  sim_free(x);
  sim_free(tri);
  sim_bvh_free(&b);
  mesh_free(&m);
}

/* The walk with a box (bvh_query.h sim_bvh_walk_next): the leaves that meet a box, with and
   without a ball round a point as well, each once, against every leaf tested; and a triangle
   whose box meets the box lies in one of them (all its box's corners, so a segment's grown by
   a margin finds every triangle within the margin). */
static void test_walk_box(mesh m, unsigned long long seed) {
  unsigned long long r = seed;
  mesh_finish(&m);
  sim_status st;
  sim_status_clear(&st);
  sim_bvh b;
  CHECK_INT(sim_bvh_build(m.nv, m.x, m.nt, m.tri, &b, &st), SIM_OK);
  const sim_bvh_view bv = sim_bvh_view_of(&b);
  char *seen = SIM_NEW(char, (size_t)b.nnodes);
  int bad = 0, total = 0, lost = 0;
  for (int q = 0; q < 400; q++) {
    double box[6], c[3];
    for (int k = 0; k < 3; k++) {
      const double a = 0.6 * m.size * rnd(&r), e = 0.2 * m.size * fabs(rnd(&r));
      box[k] = a - e, box[3 + k] = a + e, c[k] = a + e * rnd(&r);
    }
    const int ball = q % 2;
    const double m2 = ball ? 0.04 * m.size * m.size : 0.0;
    memset(seen, 0, (size_t)b.nnodes);
    sim_bvh_walk w;
    sim_bvh_walk_begin(&bv, &w);
    for (int leaf; (leaf = sim_bvh_walk_next(&bv, &w, ball ? c : NULL, m2, box)) >= 0;)
      bad += seen[leaf]++ != 0;
    for (int i = 0; i < b.nnodes; i++) {
      const sim_bvh_node *nd = &b.node[i];
      const int want = nd->count > 0 && sim_bvh_box_meets(nd->lo, nd->hi, box) &&
                       (!ball || sim_bvh_box_d2(nd, c) <= m2);
      bad += want != (seen[i] != 0), total += want;
      for (int s = nd->first; nd->count > 0 && s < nd->first + nd->count; s++) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
          lo[k] = INFINITY, hi[k] = -INFINITY;
          for (int j = 0; j < 3; j++) {
            const double e = m.x[3 * b.tri[3 * s + j] + k];
            lo[k] = fmin(lo[k], e), hi[k] = fmax(hi[k], e);
          }
        }
        lost += !ball && sim_bvh_box_meets(lo, hi, box) && !seen[i];
      }
    }
  }
  check_report(bad == 0 && lost == 0, __FILE__, __LINE__, "%s: %d leaves wrong, %d lost", m.name,
               bad, lost);
  CHECK(total > 400); /* the boxes met leaves */
  sim_free(seen);
  sim_bvh_free(&b);
  mesh_free(&m);
}

int main(void) {
  test_tri_known();
  test_tri_random();
  unsigned long long r = 2024;
  test_bvh_mesh(make_sphere(), 1);
  test_bvh_mesh(make_soup(&r), 2);
  test_bvh_mesh(make_single(), 3);
  test_bvh_mesh(make_strip(), 4);
  test_bvh_mesh(make_blade(), 5);
  test_rings(make_sphere(), 0, 6);
  test_rings(make_sphere(), 57, 7);
  test_rings(make_strip(), 3, 8);
  test_walk_box(make_sphere(), 9);
  test_walk_box(make_soup(&r), 10);
  test_quality();
  test_rounding_pad();
  test_threads();
  test_bad_input();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_bvh");
}

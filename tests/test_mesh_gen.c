/* SPDX-License-Identifier: MIT */
/* Mesh generators: box tet bars (exact counts, volume, orientation, conformity), box
   surface, icosphere, cylinder, capsule and cloth. */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "mesh/mesh.h"

static const double kPi = 3.14159265358979323846;

static double tet_vol(const sim_tetmesh *m, int t) {
  const int *k = m->tet + 4 * t;
  double e[3][3];
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) e[i][d] = m->x[3 * k[i + 1] + d] - m->x[3 * k[0] + d];
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
         6.0;
}

/* Counts, volume, positivity, and a conforming split: the boundary has exactly the
   2 triangles per boundary quad (a non-conforming split leaves interior faces unmatched). */
static void check_bar(int nx, int ny, int nz, int want_nv, int want_ntet) {
  const double lo[3] = {-0.1, 0.0, 0.25}, hi[3] = {0.1, 0.8, 0.45};
  const int n[3] = {nx, ny, nz};
  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_box_tets(lo, hi, n, &m, &st), SIM_OK);
  CHECK_INT(m.nv, want_nv);
  CHECK_INT(m.ntet, want_ntet);
  const double box = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  CHECK_NEAR(sim_tetmesh_volume(&m), box, 1e-12);
  int npos = 0;
  double vmin = INFINITY;
  for (int t = 0; t < m.ntet; t++) {
    double v = tet_vol(&m, t);
    npos += v > 0;
    if (v < vmin) vmin = v;
  }
  CHECK_INT(npos, m.ntet);
  /* all 6 tets of a hex have the same volume: hex / 6 */
  CHECK_NEAR(vmin, box / (6.0 * (nx - 1) * (ny - 1) * (nz - 1)), 1e-15);
  int ntri, *tri;
  CHECK_INT(sim_tetmesh_boundary(&m, "test", &ntri, &tri, &st), SIM_OK);
  CHECK_INT(ntri, 4 * ((nx - 1) * (ny - 1) + (ny - 1) * (nz - 1) + (nx - 1) * (nz - 1)));
  sim_surface s = {m.nv, ntri, m.x, tri};
  CHECK_INT(sim_surface_check_closed(&s, "bar boundary", &st), SIM_OK);
  CHECK_NEAR(sim_surface_volume(&s), box, 1e-12);
  /* orient is a no-op on a positive mesh */
  int first[4];
  memcpy(first, m.tet, sizeof first);
  CHECK_INT(sim_tetmesh_orient(&m, "bar", &st), SIM_OK);
  CHECK(memcmp(first, m.tet, sizeof first) == 0);
  /* the last vertex is exactly hi */
  CHECK(m.x[3 * (m.nv - 1)] == hi[0] && m.x[3 * (m.nv - 1) + 1] == hi[1] &&
        m.x[3 * (m.nv - 1) + 2] == hi[2]);
  sim_free(tri);
  sim_tetmesh_free(&m);
}

static void test_box(void) {
  check_bar(14, 27, 14, 5292, 26364);
  check_bar(18, 35, 18, 11340, 58956);
  check_bar(22, 43, 22, 20812, 111132);
  check_bar(2, 2, 2, 8, 6);
  check_bar(3, 3, 3, 27, 48);

  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, flat[3] = {1, 0, 1};
  const int bad[3] = {2, 1, 2}, ok[3] = {2, 2, 2};
  CHECK_INT(sim_gen_box_tets(lo, hi, bad, &m, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "axis 1 has 1");
  sim_status_clear(&st);
  CHECK_INT(sim_gen_box_tets(lo, flat, ok, &m, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "expected lo < hi on every axis, axis 1");
  CHECK(m.x == NULL && m.tet == NULL);

  for (int segs = 1; segs <= 4; segs++) {
    sim_surface s;
    sim_status_clear(&st);
    const double l2[3] = {-1, -2, -3}, h2[3] = {1, 2, 3};
    CHECK_INT(sim_gen_box_surface(l2, h2, segs, &s, &st), SIM_OK);
    CHECK_INT(s.nv, 6 * segs * segs + 2);
    CHECK_INT(s.nt, 12 * segs * segs);
    CHECK_INT(sim_surface_check_closed(&s, "box", &st), SIM_OK);
    CHECK_NEAR(sim_surface_volume(&s), 48.0, 1e-12);
    sim_surface_free(&s);
  }
}

static void test_icosphere(void) {
  for (int sub = 0; sub <= 4; sub++) {
    sim_surface s;
    sim_status st;
    sim_status_clear(&st);
    const double r = 0.7;
    CHECK_INT(sim_gen_icosphere(r, sub, &s, &st), SIM_OK);
    CHECK_INT(s.nt, 20 << (2 * sub));
    CHECK_INT(s.nv, 10 * (1 << (2 * sub)) + 2);
    CHECK_INT(s.nv - 3 * s.nt / 2 + s.nt, 2); /* V - E + F, E = 3F/2 on a closed surface */
    check_report(sim_surface_check_closed(&s, "icosphere", &st) == SIM_OK, __FILE__, __LINE__,
                 "closed: %s", st.msg);
    double rmin = INFINITY, rmax = 0;
    for (int i = 0; i < s.nv; i++) {
      double q = sqrt(s.x[3 * i] * s.x[3 * i] + s.x[3 * i + 1] * s.x[3 * i + 1] +
                      s.x[3 * i + 2] * s.x[3 * i + 2]);
      rmin = fmin(rmin, q);
      rmax = fmax(rmax, q);
    }
    CHECK_NEAR(rmin, r, 1e-14);
    CHECK_NEAR(rmax, r, 1e-14);
    const double exact = 4.0 / 3.0 * kPi * r * r * r, v = sim_surface_volume(&s);
    CHECK(v > 0 && v < exact);
    if (sub == 3) CHECK_NEAR(v / exact, 1.0, 0.01);
    if (sub == 0) CHECK(v / exact < 0.7); /* the icosahedron itself */
    sim_surface_free(&s);
  }
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_icosphere(-1, 2, &s, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "icosphere: expected radius > 0");
}

static void test_revolution(void) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  const double r = 0.3, h = 1.2;
  const int seg = 24;
  CHECK_INT(sim_gen_cylinder(r, h, seg, 5, &s, &st), SIM_OK);
  CHECK_INT(s.nv, 6 * seg + 2);
  CHECK_INT(s.nt, 2 * seg * 6);
  CHECK_INT(sim_surface_check_closed(&s, "cylinder", &st), SIM_OK);
  /* an inscribed prism: (seg / 2) r^2 sin(2 pi / seg) h */
  CHECK_NEAR(sim_surface_volume(&s), 0.5 * seg * r * r * sin(2 * kPi / seg) * h, 1e-12);
  double ymin = INFINITY, ymax = -INFINITY;
  for (int i = 0; i < s.nv; i++)
    ymin = fmin(ymin, s.x[3 * i + 1]), ymax = fmax(ymax, s.x[3 * i + 1]);
  CHECK_NEAR(ymin, -0.6, 1e-15);
  CHECK_NEAR(ymax, 0.6, 1e-15);
  sim_surface_free(&s);

  CHECK_INT(sim_gen_capsule(r, h, 32, 8, &s, &st), SIM_OK);
  CHECK_INT(s.nv, 32 * 16 + 2);
  check_report(sim_surface_check_closed(&s, "capsule", &st) == SIM_OK, __FILE__, __LINE__,
               "capsule closed: %s", st.msg);
  const double vcap = kPi * r * r * h + 4.0 / 3.0 * kPi * r * r * r;
  CHECK_NEAR(sim_surface_volume(&s) / vcap, 1.0, 0.03);
  ymin = INFINITY, ymax = -INFINITY;
  for (int i = 0; i < s.nv; i++)
    ymin = fmin(ymin, s.x[3 * i + 1]), ymax = fmax(ymax, s.x[3 * i + 1]);
  CHECK_NEAR(ymax, 0.6 + r, 1e-15);
  CHECK_NEAR(ymin, -0.6 - r, 1e-15);
  sim_surface_free(&s);

  /* height 0: a sphere; 1 ring: a bipyramid */
  CHECK_INT(sim_gen_capsule(r, 0, 16, 6, &s, &st), SIM_OK);
  CHECK_INT(sim_surface_check_closed(&s, "sphere", &st), SIM_OK);
  CHECK_NEAR(sim_surface_volume(&s) / (4.0 / 3.0 * kPi * r * r * r), 1.0, 0.08);
  sim_surface_free(&s);
  CHECK_INT(sim_gen_capsule(r, 0, 3, 1, &s, &st), SIM_OK);
  CHECK_INT(s.nv, 5);
  CHECK_INT(sim_surface_check_closed(&s, "bipyramid", &st), SIM_OK);
  sim_surface_free(&s);

  CHECK_INT(sim_gen_cylinder(r, h, 2, 1, &s, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "cylinder: expected 3..100000 segments, got 2");
}

static void test_cloth(void) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_cloth(2.0, 5101, &s, &st), SIM_OK);
  CHECK_INT(s.nv, 71 * 71);
  CHECK_INT(s.nt, 2 * 70 * 70);
  double area = 0, xmin = INFINITY, xmax = -INFINITY, zmin = INFINITY, zmax = -INFINITY;
  int up = 0, flat = 1;
  for (int i = 0; i < s.nv; i++) {
    flat &= s.x[3 * i + 1] == 0.0;
    xmin = fmin(xmin, s.x[3 * i]), xmax = fmax(xmax, s.x[3 * i]);
    zmin = fmin(zmin, s.x[3 * i + 2]), zmax = fmax(zmax, s.x[3 * i + 2]);
  }
  for (int t = 0; t < s.nt; t++) {
    const double *a = s.x + 3 * s.tri[3 * t], *b = s.x + 3 * s.tri[3 * t + 1],
                 *c = s.x + 3 * s.tri[3 * t + 2];
    /* y component of (b - a) x (c - a) */
    double ny = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
    up += ny > 0;
    area += 0.5 * ny;
  }
  CHECK(flat);
  CHECK_INT(up, s.nt);
  CHECK_NEAR(area, 4.0, 1e-10);
  CHECK_NEAR(xmin, -1.0, 0);
  CHECK_NEAR(xmax, 1.0, 0);
  CHECK_NEAR(zmin, -1.0, 0);
  CHECK_NEAR(zmax, 1.0, 0);
  /* an open, manifold, consistently oriented sheet: only its border is open */
  CHECK_INT(sim_surface_check_closed(&s, "cloth", &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "cloth: surface is not closed: 280 boundary edges");
  sim_surface_free(&s);
  const int targets[][2] = {{72, 64}, {73, 81}, {4, 4}, {10000, 10000}, {5184, 5184}};
  for (int i = 0; i < 5; i++) {
    sim_status_clear(&st);
    CHECK_INT(sim_gen_cloth(1.0, targets[i][0], &s, &st), SIM_OK);
    CHECK_INT(s.nv, targets[i][1]);
    sim_surface_free(&s);
  }
  CHECK_INT(sim_gen_cloth(1.0, 3, &s, &st), SIM_ERR_MESH);
}

int main(void) {
  test_box();
  test_icosphere();
  test_revolution();
  test_cloth();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_mesh_gen");
}

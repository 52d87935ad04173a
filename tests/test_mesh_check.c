/* SPDX-License-Identifier: MIT */
/* Mesh checks: closed-surface diagnostics, tet orientation, boundary faces, compaction. */
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "mesh/mesh.h"

static double cube_x[9 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1,   0,   0, 0,
                               1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0.5, 0.5, -1};
static const int kCubeQ[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                 {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};

/* The 12 outward triangles of the unit cube. */
static void cube_tris(int tri[36]) {
  for (int q = 0; q < 6; q++) {
    const int *v = kCubeQ[q];
    const int t[6] = {v[0], v[1], v[2], v[0], v[2], v[3]};
    memcpy(tri + 6 * q, t, sizeof t);
  }
}

static void expect_fail(const sim_surface *s, const char *want) {
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_surface_check_closed(s, "cube", &st);
  check_report(rc == SIM_ERR_MESH, __FILE__, __LINE__, "rc %d for \"%s\"", rc, want);
  check_report(strstr(st.msg, want) != NULL, __FILE__, __LINE__, "\"%s\" contains \"%s\"", st.msg,
               want);
}

static void test_closed(void) {
  int tri[13 * 3];
  cube_tris(tri);
  sim_surface s = {8, 12, cube_x, tri};
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_surface_check_closed(&s, "cube", &st), SIM_OK);
  CHECK_NEAR(sim_surface_volume(&s), 1.0, 1e-15);

  /* drop triangle 0 = (0 2 3): edges 0-2, 2-3 and 0-3 open; 0-3 belongs to the new tri 0 */
  sim_surface open = {8, 11, cube_x, tri + 3};
  expect_fail(&open, "cube: surface is not closed: 3 boundary edges (first: vertices 0-3)");

  /* a fin on edge 0-1 through the 9th vertex */
  tri[36] = 0, tri[37] = 1, tri[38] = 8;
  sim_surface fin = {9, 13, cube_x, tri};
  expect_fail(&fin, "cube: non-manifold edge 0-1 shared by 3 triangles");

  /* one triangle flipped: triangles 4 = (0 1 5) and 5 = (0 5 4); flip 5 */
  cube_tris(tri);
  int sw = tri[16];
  tri[16] = tri[17], tri[17] = sw;
  expect_fail(&s, "cube: inconsistent orientation at edge 0-4");

  /* all flipped */
  cube_tris(tri);
  for (int t = 0; t < 12; t++)
    sw = tri[3 * t + 1], tri[3 * t + 1] = tri[3 * t + 2], tri[3 * t + 2] = sw;
  expect_fail(&s, "cube: surface is inside out (enclosed volume -1 < 0)");

  /* repeated vertex, then three collinear ones */
  cube_tris(tri);
  tri[3 * 7 + 2] = tri[3 * 7];
  expect_fail(&s, "cube: degenerate triangle 7");
  cube_tris(tri);
  double xs[27];
  memcpy(xs, cube_x, sizeof xs);
  xs[3 * 3 + 0] = 0.0, xs[3 * 3 + 1] = 2.0; /* vertex 3 on the line through 0 and 2 */
  sim_surface flat = {8, 12, xs, tri};
  expect_fail(&flat, "cube: degenerate triangle 0 (vertices 0 2 3)");

  tri[5] = 8;
  expect_fail(&s, "cube: triangle 1 has vertex index 8 out of range (expected 0..7)");
  sim_surface tiny = {3, 1, cube_x, tri};
  expect_fail(&tiny, "cube: surface is not closed: 3 vertices and 1 triangles");
}

static void test_orient(void) {
  double x[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  int tet[8] = {0, 1, 2, 3, 1, 3, 2, 4};
  sim_tetmesh m = {5, 2, x, tet};
  sim_status st;
  sim_status_clear(&st);
  double v0 = sim_tetmesh_volume(&m);
  CHECK_NEAR(v0, 1.0 / 6.0 - 2.0 / 6.0, 1e-15); /* the second is negative */
  CHECK_INT(sim_tetmesh_orient(&m, "two", &st), SIM_OK);
  CHECK_NEAR(sim_tetmesh_volume(&m), 0.5, 1e-15);
  CHECK_INT(tet[0], 0);
  CHECK_INT(tet[3], 3);
  CHECK_INT(tet[6], 4); /* 1 3 2 4 -> 1 3 4 2 */
  CHECK_INT(tet[7], 2);

  /* a nearly flat tet below 1e-14 * diag^3 fails, naming it; just above passes */
  x[3 * 4 + 0] = 1.0 / 3.0, x[3 * 4 + 1] = 1.0 / 3.0, x[3 * 4 + 2] = 1.0 / 3.0;
  tet[4] = 1, tet[5] = 2, tet[6] = 3, tet[7] = 4; /* vertex 4 on the face 1-2-3 */
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_orient(&m, "flat", &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "flat: degenerate tet 1 (vertices 1 2 3 4");
  x[3 * 4 + 2] += 1e-10;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_orient(&m, "thin", &st), SIM_OK);
  tet[7] = 7;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_orient(&m, "bad", &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "bad: tet 1 has vertex index 7 out of range (expected 0..4)");
}

static void test_boundary(void) {
  /* one tet: 4 faces, each with its normal pointing away from the opposite vertex */
  double x[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5};
  int tet[4] = {0, 1, 2, 3};
  sim_tetmesh m = {4, 1, x, tet};
  sim_status st;
  sim_status_clear(&st);
  int ntri, *tri;
  CHECK_INT(sim_tetmesh_boundary(&m, "test", &ntri, &tri, &st), SIM_OK);
  CHECK_INT(ntri, 4);
  int outward = 0;
  for (int t = 0; t < ntri; t++) {
    const double *a = x + 3 * tri[3 * t], *b = x + 3 * tri[3 * t + 1], *c = x + 3 * tri[3 * t + 2];
    double n[3] = {(b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]),
                   (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]),
                   (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])};
    double d = 0;
    for (int k = 0; k < 3; k++) d += n[k] * ((a[k] + b[k] + c[k]) / 3.0 - 0.25);
    outward += d > 0;
  }
  CHECK_INT(outward, 4);
  sim_free(tri);

  /* 2 x 2 x 2 vertices: one hex, 12 triangles; 3 x 3 x 3: 48; same order twice */
  const double lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2};
  int counts[2] = {0, 0};
  for (int n = 2; n <= 3; n++) {
    const int nv[3] = {n, n, n};
    sim_tetmesh g;
    CHECK_INT(sim_gen_box_tets(lo, hi, nv, &g, &st), SIM_OK);
    int *t1, *t2, n1, n2;
    CHECK_INT(sim_tetmesh_boundary(&g, "test", &n1, &t1, &st), SIM_OK);
    CHECK_INT(sim_tetmesh_boundary(&g, "test", &n2, &t2, &st), SIM_OK);
    counts[n - 2] = n1;
    CHECK(n1 == n2 && memcmp(t1, t2, 3 * sizeof(int) * (size_t)n1) == 0);
    sim_surface s = {g.nv, n1, g.x, t1};
    CHECK_INT(sim_surface_check_closed(&s, "hex boundary", &st), SIM_OK);
    CHECK_NEAR(sim_surface_volume(&s), 8.0, 1e-12);
    sim_free(t1);
    sim_free(t2);
    sim_tetmesh_free(&g);
  }
  CHECK_INT(counts[0], 12);
  CHECK_INT(counts[1], 48);

  /* a face shared by three tets */
  int three[12] = {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 4};
  sim_tetmesh bad = {5, 3, x, three};
  CHECK_INT(sim_tetmesh_boundary(&bad, "bad", &ntri, &tri, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "bad: face 0-1-2 shared by 3 tets");
  CHECK(tri == NULL && ntri == 0);

  /* two tets on either side of face 1-2-3 pass, whatever the order of their vertices; with
     vertex 4 moved across the face to (0.1, 0.1, 0.1) the second lies inside the first */
  int two[8] = {0, 1, 2, 3, 1, 2, 3, 4};
  sim_tetmesh pair = {5, 2, x, two};
  CHECK_INT(sim_tetmesh_boundary(&pair, "pair", &ntri, &tri, &st), SIM_OK);
  CHECK_INT(ntri, 6);
  sim_free(tri);
  two[6] = 4, two[7] = 3; /* the second tet negative: still two sides of the face */
  CHECK_INT(sim_tetmesh_boundary(&pair, "pair", &ntri, &tri, &st), SIM_OK);
  CHECK_INT(ntri, 6);
  sim_free(tri);
  x[12] = x[13] = x[14] = 0.1;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_boundary(&pair, "folded", &ntri, &tri, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg,
                     "folded: tets 0 and 1 overlap: both lie on the same side of their shared "
                     "face 1-2-3 (a folded or inverted mesh)");
  CHECK(tri == NULL && ntri == 0);
  two[6] = 3, two[7] = 4;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_boundary(&pair, "folded", &ntri, &tri, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "folded: tets 0 and 1 overlap");
}

/* Coordinates above SIM_MESH_COORD_MAX are refused before the bounding box overflows. */
static void test_huge(void) {
  double x[4 * 3] = {0, 0, 0, 1e99, 0, 0, 0, 1e99, 0, 0, 0, 1e99};
  int tet[4] = {0, 1, 2, 3};
  sim_tetmesh m = {4, 1, x, tet};
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_orient(&m, "big", &st), SIM_OK);
  x[3] = -1e300;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_orient(&m, "huge", &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg,
                     "huge: vertex 1 has coordinate -1e+300: too large (expected |x| <= "
                     "1e+100)");
  int tri[36];
  cube_tris(tri);
  double cx[27];
  memcpy(cx, cube_x, sizeof cx);
  cx[3 * 7 + 2] = 1e200;
  sim_surface s = {8, 12, cx, tri};
  expect_fail(&s, "cube: vertex 7 has coordinate 1e+200: too large");
}

static void test_compact(void) {
  sim_tetmesh m = {6, 1, sim_malloc(18 * sizeof(double)), sim_malloc(4 * sizeof(int))};
  for (int i = 0; i < 18; i++) m.x[i] = i;
  const int t[4] = {5, 1, 3, 4};
  memcpy(m.tet, t, sizeof t);
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_tetmesh_compact(&m, &st), SIM_OK);
  CHECK_INT(m.nv, 4);
  CHECK_INT(m.tet[0], 3);
  CHECK_INT(m.tet[1], 0);
  CHECK_INT(m.tet[2], 1);
  CHECK_INT(m.tet[3], 2);
  CHECK_NEAR(m.x[0], 3.0, 0);   /* old vertex 1 */
  CHECK_NEAR(m.x[11], 17.0, 0); /* old vertex 5 */
  sim_tetmesh_free(&m);
  CHECK(m.x == NULL && m.nv == 0);
}

int main(void) {
  test_closed();
  test_orient();
  test_boundary();
  test_huge();
  test_compact();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_mesh_check");
}

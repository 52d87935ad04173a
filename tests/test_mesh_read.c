/* SPDX-License-Identifier: MIT */
/* Mesh readers: each format on a unit tet / cube fixture, binary files written here, and
   malformed inputs with their expected messages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "check.h"
#include "mesh/mesh.h"

#define D "data/mesh/"

static char tmpdir[256];

static void tmp_path(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/%s", tmpdir, name);
}

/* A surface read from a unit cube file: 8 vertices, 12 triangles, closed, volume 1. */
static void check_cube_surface(const char *path,
                               int (*reader)(const char *, sim_surface *, sim_status *)) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  int rc = reader(path, &s, &st);
  check_report(rc == SIM_OK, __FILE__, __LINE__, "%s reads: %s", path, st.msg);
  CHECK_INT(s.nv, 8);
  CHECK_INT(s.nt, 12);
  if (rc == SIM_OK) {
    sim_status_clear(&st);
    check_report(sim_surface_check_closed(&s, path, &st) == SIM_OK, __FILE__, __LINE__,
                 "%s closed: %s", path, st.msg);
    CHECK_NEAR(sim_surface_volume(&s), 1.0, 1e-12);
  }
  sim_surface_free(&s);
  CHECK(s.x == NULL && s.nt == 0);
}

static void check_cube_tets(const char *path) {
  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_read_tetmesh(path, &m, &st);
  check_report(rc == SIM_OK, __FILE__, __LINE__, "%s reads: %s", path, st.msg);
  CHECK_INT(m.nv, 8);
  CHECK_INT(m.ntet, 6);
  if (rc == SIM_OK) {
    CHECK_NEAR(sim_tetmesh_volume(&m), 1.0, 1e-12);
    int ntri, *tri;
    CHECK_INT(sim_tetmesh_boundary(&m, "test", &ntri, &tri, &st), SIM_OK);
    CHECK_INT(ntri, 12);
    sim_free(tri);
  }
  sim_tetmesh_free(&m);
}

/* Reading PATH fails with SIM_ERR_MESH and a message containing WANT. */
static void expect_surface_error(const char *path, const char *want) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_read_surface(path, &s, &st);
  check_report(rc == SIM_ERR_MESH && st.code == SIM_ERR_MESH, __FILE__, __LINE__,
               "%s fails (rc %d)", path, rc);
  check_report(strstr(st.msg, want) != NULL, __FILE__, __LINE__, "%s: \"%s\" contains \"%s\"", path,
               st.msg, want);
  CHECK(s.x == NULL && s.tri == NULL && s.nv == 0 && s.nt == 0);
}

static void expect_tet_error(const char *path, const char *want) {
  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_read_tetmesh(path, &m, &st);
  check_report(rc == SIM_ERR_MESH && st.code == SIM_ERR_MESH, __FILE__, __LINE__,
               "%s fails (rc %d)", path, rc);
  check_report(strstr(st.msg, want) != NULL, __FILE__, __LINE__, "%s: \"%s\" contains \"%s\"", path,
               st.msg, want);
  CHECK(m.x == NULL && m.tet == NULL && m.nv == 0 && m.ntet == 0);
}

static const double kCubeV[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
static const int kCubeQ[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                 {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
static const int kCubeT[6][4] = {{0, 1, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7},
                                 {0, 1, 7, 5}, {0, 4, 7, 6}, {0, 2, 7, 3}};

static void put_le32(FILE *f, uint32_t u) {
  unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                        (unsigned char)(u >> 24)};
  fwrite(b, 1, 4, f);
}
static void put_lef(FILE *f, float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  put_le32(f, u);
}
static void put_be(FILE *f, uint64_t u, int size) {
  unsigned char b[8];
  for (int i = 0; i < size; i++) b[i] = (unsigned char)(u >> (8 * (size - 1 - i)));
  fwrite(b, 1, (size_t)size, f);
}
static void put_bed(FILE *f, double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  put_be(f, u, 8);
}

/* Binary STL of the cube; header starts with "solid" to test detection by size; ntri_claim
   lets a test lie about the count, bad_value puts a NaN in. */
static void write_binary_stl(const char *path, int ntri_claim, int ntri_write, int nan) {
  FILE *f = fopen(path, "wb");
  char header[80] = "solid binary cube written by test_mesh_read";
  fwrite(header, 1, 80, f);
  put_le32(f, (uint32_t)ntri_claim);
  int n = 0;
  for (int q = 0; q < 6 && n < ntri_write; q++)
    for (int h = 0; h < 2 && n < ntri_write; h++, n++) {
      const int c[3] = {kCubeQ[q][0], kCubeQ[q][1 + h], kCubeQ[q][2 + h]};
      for (int d = 0; d < 3; d++) put_lef(f, 0.0f);
      for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
          put_lef(f, nan && n == 3 && k == 1 ? (float)NAN : (float)kCubeV[c[k]][d]);
      fputc(0, f);
      fputc(0, f);
    }
  fclose(f);
}

/* Binary legacy VTK (big-endian) of the cube: classic CELLS or the 5.1 layout. */
static void write_binary_vtk(const char *path, int v51, int truncate) {
  FILE *f = fopen(path, "wb");
  fprintf(f, "# vtk DataFile Version %s\ncube\nBINARY\nDATASET UNSTRUCTURED_GRID\n",
          v51 ? "5.1" : "3.0");
  fprintf(f, "FIELD FieldData 1\nTIME 1 1 double\n");
  put_bed(f, 0.5);
  fprintf(f, "\nPOINTS 8 %s\n", v51 ? "float" : "double");
  for (int i = 0; i < 8; i++)
    for (int d = 0; d < 3; d++) {
      if (v51) {
        float x = (float)kCubeV[i][d];
        uint32_t u;
        memcpy(&u, &x, 4);
        put_be(f, u, 4);
      } else {
        put_bed(f, kCubeV[i][d]);
      }
    }
  if (v51) {
    fprintf(f, "\nCELLS 7 24\nOFFSETS vtktypeint64\n");
    for (int i = 0; i < 7; i++) put_be(f, (uint64_t)(4 * i), 8);
    fprintf(f, "\nCONNECTIVITY vtktypeint64\n");
    for (int t = 0; t < 6; t++)
      for (int k = 0; k < 4; k++) put_be(f, (uint64_t)kCubeT[t][k], 8);
  } else {
    fprintf(f, "\nCELLS 6 30\n");
    for (int t = 0; t < (truncate ? 3 : 6); t++) {
      put_be(f, 4, 4);
      for (int k = 0; k < 4; k++) put_be(f, (uint64_t)kCubeT[t][k], 4);
    }
    if (truncate) {
      fclose(f);
      return;
    }
  }
  fprintf(f, "\nCELL_TYPES 6\n");
  for (int t = 0; t < 6; t++) put_be(f, 10, 4);
  fprintf(f, "\nCELL_DATA 6\nSCALARS e double 1\nLOOKUP_TABLE default\n");
  for (int t = 0; t < 6; t++) put_bed(f, 1.0);
  fclose(f);
}

static void test_surfaces(void) {
  check_cube_surface(D "cube.obj", sim_read_obj);
  check_cube_surface(D "cube.obj", sim_read_surface);
  check_cube_surface(D "cube.off", sim_read_off);
  check_cube_surface(D "cube.off", sim_read_surface);
  check_cube_surface(D "cube_ascii.stl", sim_read_stl);
  char p[512];
  tmp_path(p, sizeof p, "cube_binary.STL");
  write_binary_stl(p, 12, 12, 0);
  check_cube_surface(p, sim_read_surface);
  /* the OBJ keeps its vertex order */
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_read_obj(D "cube.obj", &s, &st), SIM_OK);
  CHECK_NEAR(s.x[3 * 7 + 0] + s.x[3 * 7 + 1] + s.x[3 * 7 + 2], 3.0, 0);
  CHECK_INT(s.tri[0], 0);
  CHECK_INT(s.tri[1], 2);
  CHECK_INT(s.tri[2], 3);
  CHECK_INT(s.tri[3 * 8], 0); /* "f -8 -4 -2 -6" -> 0 4 6 2 */
  CHECK_INT(s.tri[3 * 8 + 1], 4);
  sim_surface_free(&s);
}

static void test_tetmeshes(void) {
  check_cube_tets(D "cube0.node");
  check_cube_tets(D "cube0.ele");
  check_cube_tets(D "cube.msh");
  check_cube_tets(D "cube_ascii.vtk");
  check_cube_tets(D "cube51.vtk");
  char p[512];
  tmp_path(p, sizeof p, "cube_bin.vtk");
  write_binary_vtk(p, 0, 0);
  check_cube_tets(p);
  tmp_path(p, sizeof p, "cube_bin51.vtk");
  write_binary_vtk(p, 1, 0);
  check_cube_tets(p);

  /* 1-based TetGen unit tet, given negatively oriented: orient flips it */
  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_read_tetgen(D "tet1.node", &m, &st), SIM_OK);
  CHECK_INT(m.nv, 4);
  CHECK_INT(m.ntet, 1);
  CHECK_INT(m.tet[0], 0);
  CHECK_INT(m.tet[1], 1);
  CHECK_INT(m.tet[2], 3);
  CHECK_NEAR(sim_tetmesh_volume(&m), -1.0 / 6.0, 1e-15);
  CHECK_INT(sim_tetmesh_orient(&m, "tet1", &st), SIM_OK);
  CHECK_NEAR(sim_tetmesh_volume(&m), 1.0 / 6.0, 1e-15);

  /* write + read back round trip */
  tmp_path(p, sizeof p, "roundtrip.node");
  CHECK_INT(sim_write_tetgen(p, &m, &st), SIM_OK);
  sim_tetmesh r;
  CHECK_INT(sim_read_tetmesh(p, &r, &st), SIM_OK);
  CHECK_INT(r.nv, 4);
  CHECK_INT(r.ntet, 1);
  CHECK(r.ntet == 1 && memcmp(r.tet, m.tet, 4 * sizeof(int)) == 0);
  CHECK(r.nv == 4 && memcmp(r.x, m.x, 12 * sizeof(double)) == 0);
  sim_tetmesh_free(&r);
  sim_tetmesh_free(&m);
  tmp_path(p, sizeof p, "roundtrip.ele");
  CHECK(access(p, R_OK) == 0);
  unlink(p);
  tmp_path(p, sizeof p, "roundtrip.node");
  unlink(p);
  st.code = 0;
  CHECK_INT(sim_write_tetgen("x.nodes", &m, &st), SIM_ERR_IO);
}

static void test_errors(void) {
  expect_surface_error(D "nope.obj", D "nope.obj: cannot open: No such file or directory");
  expect_surface_error(D "cube.ply",
                       "cube.ply: unknown surface file extension (expected .obj, "
                       ".off or .stl)");
  expect_tet_error(D "cube.obj",
                   "cube.obj: unknown tet mesh file extension (expected .node, "
                   ".ele, .msh or .vtk)");
  expect_surface_error(D "bad_index.obj", D
                       "bad_index.obj:4: vertex index 9 out of range (3 vertices defined so far)");
  expect_surface_error(D "bad_number.obj",
                       D "bad_number.obj:2: expected a vertex coordinate, found 'abc'");
  expect_surface_error(D "no_faces.obj", D "no_faces.obj: no faces (expected 'f' lines)");
  expect_surface_error(D "short_face.obj",
                       D "short_face.obj:4: expected at least 3 vertices after 'f', found 2");
  expect_surface_error(D "truncated.off",
                       "truncated.off:7: expected a vertex coordinate, found end of file");
  expect_surface_error(D "bad_header.off",
                       D "bad_header.off:1: expected an 'OFF' or 'COFF' header, found 'ply'");
  expect_surface_error(D "bad_index.off",
                       D "bad_index.off:7: vertex index 8 out of range (expected 0..3)");
  expect_surface_error(D "zero_faces.off", D "zero_faces.off:2: face count 0 out of range");
  expect_surface_error(D "truncated_ascii.stl",
                       "truncated_ascii.stl:12: expected 'vertex', found end of file");
  expect_surface_error(D "bad_keyword.stl", D "bad_keyword.stl:3: expected 'loop', found 'lop'");
  char p[512];
  tmp_path(p, sizeof p, "short.stl");
  write_binary_stl(p, 2, 2, 0);
  FILE *f = fopen(p, "ab");
  fputc(0, f); /* one byte too many: neither binary nor ascii */
  fclose(f);
  expect_surface_error(p, "a binary STL of 84 + 50 * 2 = 184 bytes, found 185 bytes");
  tmp_path(p, sizeof p, "nan.stl");
  write_binary_stl(p, 12, 12, 1);
  expect_surface_error(p, "nan.stl: triangle 3 corner 1: expected a finite coordinate");
  tmp_path(p, sizeof p, "zero.stl");
  write_binary_stl(p, 0, 0, 0);
  expect_surface_error(p, "zero.stl: binary STL: expected 1..");

  expect_tet_error(D "bad_index.node", D
                   "bad_index.ele:2: point index 5 out of range "
                   "(expected 1..4)");
  expect_tet_error(D "bad_first.node", D
                   "bad_first.node:2: expected first point index 0 or 1, "
                   "found 3");
  expect_tet_error(D "missing.node", D "missing.ele: cannot open: No such file or directory");
  expect_tet_error(D "v22.msh", D "v22.msh:2: expected MeshFormat version 4.1, found 2.2");
  expect_tet_error(D "badtag.msh", D "badtag.msh:19: node tag 99 of element 1 is not in $Nodes");
  expect_tet_error(D "notets.msh", D "notets.msh: no tetrahedra (expected elements of type 4)");
  expect_tet_error(D "truncated.msh", "expected a node tag, found end of file");
  expect_tet_error(D "polydata.vtk", D
                   "polydata.vtk:4: expected DATASET UNSTRUCTURED_GRID, "
                   "found 'POLYDATA'");
  expect_tet_error(D "badidx.vtk", D
                   "badidx.vtk:10: cell 0: point index 9 out of range "
                   "(expected 0..3)");
  expect_tet_error(D "badtype.vtk", D "badtype.vtk:13: expected cell types, found 'ten'");
  tmp_path(p, sizeof p, "trunc_bin.vtk");
  write_binary_vtk(p, 0, 1);
  expect_tet_error(p, "expected 30 values of cell list, found only 60 bytes left (truncated");
}

/* Inputs the readers once took silently or reported at the wrong place. */
static void test_refusals(void) {
  /* a UTF-8 byte order mark, leading blanks and upper-case keywords are read */
  check_cube_surface(D "bom_cube.obj", sim_read_surface);
  check_cube_surface(D "bom_ascii.stl", sim_read_surface);
  check_cube_surface(D "lead_ws.stl", sim_read_surface);
  check_cube_surface(D "upper_ascii.stl", sim_read_surface);
  /* text that is no binary STL by its size, without 'solid' */
  expect_surface_error(D "no_solid.stl", D
                       "no_solid.stl:1: expected 'solid' at the start of an ascii STL, found "
                       "'facet' (nor is it a binary STL: 1406 bytes is not 84 + 50 * n)");

  /* anything but a regular file: a FIFO would block, /dev/zero never end */
  char p[512];
  tmp_path(p, sizeof p, "fifo.obj");
  CHECK_INT(mkfifo(p, 0600), 0);
  expect_surface_error(p, "fifo.obj: not a regular file (a FIFO); expected a mesh file");
  unlink(p);
  tmp_path(p, sizeof p, "dir.off");
  CHECK_INT(mkdir(p, 0700), 0);
  expect_surface_error(p, "dir.off: not a regular file (a directory)");
  rmdir(p);
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_read_stl("/dev/zero", &s, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg, "/dev/zero: not a regular file (a character device)");

  /* face corners: the parts after '/' are empty or integers */
  expect_surface_error(D "bad_corner.obj", D
                       "bad_corner.obj:9: expected a face corner v, v/vt, v/vt/vn or v//vn with "
                       "integer indices, found '1/abc'");
  /* coordinates whose bounding box would overflow */
  sim_status_clear(&st);
  CHECK_INT(sim_read_surface(D "huge_coord.obj", &s, &st), SIM_OK);
  CHECK_INT(sim_surface_check_closed(&s, "huge", &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg,
                     "huge: vertex 0 has coordinate 1e+300: too large (expected |x| <= "
                     "1e+100)");
  sim_surface_free(&s);

  /* data beyond the header's counts, and short lines that borrowed from the next one */
  expect_surface_error(D "trailing.off", D
                       "trailing.off:17: expected end of file after 6 faces (the header's "
                       "count), found 'garbage'");
  expect_surface_error(D "extra_face.off",
                       D "extra_face.off:17: expected end of file after 6 faces");
  expect_surface_error(D "short_vertex.off",
                       D "short_vertex.off:3: expected 3 coordinates, found 2");
  expect_tet_error(D "short_point.node",
                   D "short_point.node:4: expected 3 coordinates after the point index, found 2");
  expect_tet_error(D "short_tet.node", D
                   "short_tet.ele:2: expected 4 point indices after the tetrahedron index, "
                   "found 3");
  expect_tet_error(D "bad_tet_index.node", D
                   "bad_tet_index.ele:2: expected tetrahedron index 0 (numbered from 0 like the "
                   "points), found 7");
  expect_tet_error(D "extra_point.node", D
                   "extra_point.node:7: expected end of file after 4 points (the header's count), "
                   "found '4'");

  /* 3D cells other than linear tets */
  expect_tet_error(D "hex.vtk", D
                   "hex.vtk:23: cell 2 has type 12 (hexahedron): only linear tetrahedra (type 10) "
                   "are read (0D-2D cells are skipped)");
  expect_tet_error(D "mixed_hex.msh", D
                   "mixed_hex.msh:40: element 3 has type 5 (8-node hexahedron): only linear "
                   "tetrahedra (type 4) are read");

  /* a tet inside another: read, oriented, refused by the boundary check */
  sim_tetmesh m;
  sim_status_clear(&st);
  CHECK_INT(sim_read_tetmesh(D "folded.vtk", &m, &st), SIM_OK);
  CHECK_INT(sim_tetmesh_orient(&m, "folded", &st), SIM_OK);
  int ntri, *tri;
  CHECK_INT(sim_tetmesh_boundary(&m, "folded", &ntri, &tri, &st), SIM_ERR_MESH);
  CHECK_STR_CONTAINS(st.msg,
                     "folded: tets 0 and 1 overlap: both lie on the same side of their "
                     "shared face 1-2-3");
  sim_tetmesh_free(&m);
}

/* Every prefix of every fixture fails cleanly or succeeds, and never leaks. */
static void test_prefixes(void) {
  static const char *const files[] = {"cube.obj", "cube.off",       "cube_ascii.stl",
                                      "cube.msh", "cube_ascii.vtk", "cube51.vtk"};
  int clean = 1;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char src[256], dst[512];
    snprintf(src, sizeof src, D "%s", files[i]);
    tmp_path(dst, sizeof dst, files[i]);
    FILE *f = fopen(src, "rb");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (size_t k = 0; k < n; k += 7) {
      FILE *g = fopen(dst, "wb");
      fwrite(buf, 1, k, g);
      fclose(g);
      sim_status st;
      sim_status_clear(&st);
      int surf = i < 3;
      int rc;
      if (surf) {
        sim_surface s;
        rc = sim_read_surface(dst, &s, &st);
        sim_surface_free(&s);
      } else {
        sim_tetmesh m;
        rc = sim_read_tetmesh(dst, &m, &st);
        sim_tetmesh_free(&m);
      }
      if (rc != SIM_OK && (rc != SIM_ERR_MESH || strncmp(st.msg, dst, strlen(dst)) != 0)) {
        fprintf(stderr, "%s prefix %zu: rc %d \"%s\"\n", files[i], k, rc, st.msg);
        clean = 0;
      }
    }
    unlink(dst);
  }
  CHECK(clean);
  CHECK_INT(sim_mem_in_use(), 0);
}

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/test_mesh_read_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_surfaces();
  test_tetmeshes();
  test_errors();
  test_refusals();
  test_prefixes();
  CHECK_INT(sim_mem_in_use(), 0);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return check_summary("test_mesh_read");
}

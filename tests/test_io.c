/* SPDX-License-Identifier: MIT */
/* Output module tests: VTK bytes, series JSON, OBJ objects, PNG preview, atomic writes, CSV. */
#include <dirent.h>
#include <png.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/alloc.h"
#include "check.h"
#include "contact/world_scenery.h"
#include "io/output.h"

static char g_dir[256];

static const char *in_dir(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", g_dir, name);
  return buf;
}

/* Whole file in a sim_malloc'd buffer (NUL-terminated), NULL if unreadable. */
static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = sim_malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    sim_free(b);
    b = NULL;
  }
  fclose(f);
  if (b) b[len] = '\0';
  if (n) *n = (size_t)len;
  return b;
}

/* First occurrence of needle in b[0, n) (binary-safe strstr). */
static unsigned char *find_bytes(unsigned char *b, size_t n, const char *needle) {
  size_t m = strlen(needle);
  for (size_t i = 0; i + m <= n; i++)
    if (!memcmp(b + i, needle, m)) return b + i;
  return NULL;
}

static void put_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* Entries of dir whose name contains ".tmp." (left-over temporary files). */
static int count_tmp(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp.")) n++;
  closedir(d);
  return n;
}

static void remove_dir_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[600];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    remove(p);
  }
  closedir(d);
}

/* ---- a tiny cursor over the VTK bytes ---- */
typedef struct cursor {
  const unsigned char *p, *end;
  int ok;
} cursor;

static void expect_line(cursor *c, const char *line) {
  size_t n = strlen(line);
  if (!c->ok || (size_t)(c->end - c->p) < n + 1 || memcmp(c->p, line, n) || c->p[n] != '\n') {
    if (c->ok) fprintf(stderr, "expected line \"%s\"\n", line);
    c->ok = 0;
    return;
  }
  c->p += n + 1;
}

static const unsigned char *take(cursor *c, size_t n) {
  if (!c->ok || (size_t)(c->end - c->p) < n) {
    c->ok = 0;
    return NULL;
  }
  const unsigned char *q = c->p;
  c->p += n;
  return q;
}

static double rd_f64(const unsigned char *b) {
  uint64_t u = 0;
  for (int i = 0; i < 8; i++) u = (u << 8) | b[i];
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static int32_t rd_i32(const unsigned char *b) {
  uint32_t u = ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
  int32_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static const double k_x[15] = {0, 0, 0, 1.5, 0, 0, 0, 1, 0, 0, 0, -2.25, 1e-3, 1, 1e5};
static const int k_tet[8] = {0, 1, 2, 3, 1, 2, 3, 4};
static const int k_vbody[5] = {0, 0, 0, 1, 1};
static const double k_energy[2] = {1.5, -2250.125};

static sim_frame_view tet_view(double *v) {
  sim_frame_view f = {0};
  f.frame = 7;
  f.time = 0.035;
  f.nv = 5;
  f.x = k_x;
  f.v = v;
  f.vert_body = k_vbody;
  f.ntet = 2;
  f.tet = k_tet;
  f.tet_energy_density = k_energy;
  return f;
}

static void test_vtk(void) {
  double v[15];
  for (int k = 0; k < 15; k++) v[k] = 0.5 * k - 1.0;
  sim_frame_view f = tet_view(v);
  char path[512];
  sim_status st = {0};
  CHECK_INT(sim_write_vtk(in_dir(path, sizeof path, "00007.vtk"), &f, &st), SIM_OK);
  size_t n = 0;
  unsigned char *b = slurp(path, &n);
  CHECK(b != NULL);
  if (!b) return;
  cursor c = {b, b + n, 1};
  expect_line(&c, "# vtk DataFile Version 3.0");
  expect_line(&c, "simctl frame 7 time 0.035");
  expect_line(&c, "BINARY");
  expect_line(&c, "DATASET UNSTRUCTURED_GRID");
  expect_line(&c, "POINTS 5 double");
  const unsigned char *pts = take(&c, 15 * 8);
  expect_line(&c, "");
  expect_line(&c, "CELLS 2 10");
  const unsigned char *cells = take(&c, 10 * 4);
  expect_line(&c, "");
  expect_line(&c, "CELL_TYPES 2");
  const unsigned char *types = take(&c, 2 * 4);
  expect_line(&c, "");
  expect_line(&c, "POINT_DATA 5");
  expect_line(&c, "VECTORS velocity double");
  const unsigned char *vel = take(&c, 15 * 8);
  expect_line(&c, "");
  expect_line(&c, "SCALARS body_id int 1");
  expect_line(&c, "LOOKUP_TABLE default");
  const unsigned char *ids = take(&c, 5 * 4);
  expect_line(&c, "");
  expect_line(&c, "CELL_DATA 2");
  expect_line(&c, "SCALARS energy_density double 1");
  expect_line(&c, "LOOKUP_TABLE default");
  const unsigned char *ed = take(&c, 2 * 8);
  expect_line(&c, "");
  CHECK(c.ok);
  CHECK(c.p == c.end);
  if (c.ok) {
    for (int k = 0; k < 15; k++) CHECK_NEAR(rd_f64(pts + 8 * k), k_x[k], 0.0);
    CHECK(pts[3 * 8] == 0x3f && pts[3 * 8 + 1] == 0xf8); /* 1.5 big-endian */
    for (int e = 0; e < 2; e++) {
      CHECK_INT(rd_i32(cells + 20 * e), 4);
      for (int j = 0; j < 4; j++) CHECK_INT(rd_i32(cells + 20 * e + 4 + 4 * j), k_tet[4 * e + j]);
      CHECK_INT(rd_i32(types + 4 * e), 10);
      CHECK_NEAR(rd_f64(ed + 8 * e), k_energy[e], 0.0);
    }
    for (int k = 0; k < 15; k++) CHECK_NEAR(rd_f64(vel + 8 * k), v[k], 0.0);
    for (int i = 0; i < 5; i++) CHECK_INT(rd_i32(ids + 4 * i), k_vbody[i]);
  }
  sim_free(b);

  /* optional arrays NULL: zeros */
  f = tet_view(NULL);
  f.tet_energy_density = NULL;
  f.vert_body = NULL;
  CHECK_INT(sim_write_vtk(path, &f, &st), SIM_OK);
  b = slurp(path, &n);
  CHECK(b != NULL);
  if (!b) return;
  const char *key = "VECTORS velocity double\n";
  unsigned char *p = find_bytes(b, n, "POINT_DATA 5\n");
  CHECK(p != NULL);
  if (p) {
    p = find_bytes(p, n - (size_t)(p - b), key);
    CHECK(p != NULL);
    int zeros = 1;
    if (p)
      for (int k = 0; k < 15 * 8; k++) zeros &= p[strlen(key) + (size_t)k] == 0;
    CHECK(zeros);
  }
  CHECK_INT(b[n - 1], '\n');
  CHECK(rd_f64(b + n - 1 - 8) == 0.0 && rd_f64(b + n - 1 - 16) == 0.0);
  sim_free(b);

  /* a bad index is refused before anything is written */
  int bad_tet[8] = {0, 1, 2, 3, 1, 2, 3, 5};
  f.tet = bad_tet;
  sim_status_clear(&st);
  CHECK_INT(sim_write_vtk(in_dir(path, sizeof path, "bad.vtk"), &f, &st), SIM_ERR_INTERNAL);
  CHECK_STR_CONTAINS(st.msg, "out of range");
  CHECK(access(path, F_OK) != 0);
}

static void test_series(void) {
  const char *files[3] = {"00000.vtk", "00001.vtk", "00002.vtk"};
  double times[3] = {0.0, 0.5, 0.1};
  char path[512];
  sim_status st = {0};
  CHECK_INT(sim_write_vtk_series(in_dir(path, sizeof path, "frames.vtk.series"), 3, files,
                                 times, &st), SIM_OK);
  char *s = (char *)slurp(path, NULL);
  CHECK(s != NULL);
  if (!s) return;
  const char *want = "{\n"
                     "  \"file-series-version\" : \"1.0\",\n"
                     "  \"files\" : [\n"
                     "    { \"name\" : \"00000.vtk\", \"time\" : 0.0 },\n"
                     "    { \"name\" : \"00001.vtk\", \"time\" : 0.5 },\n"
                     "    { \"name\" : \"00002.vtk\", \"time\" : 0.1 }\n"
                     "  ]\n"
                     "}\n";
  CHECK(strcmp(s, want) == 0);
  if (strcmp(s, want)) fprintf(stderr, "series file:\n%s", s);
  sim_free(s);
  CHECK_INT(sim_write_vtk_series(path, 0, NULL, NULL, &st), SIM_OK);
  s = (char *)slurp(path, NULL);
  CHECK(s && strstr(s, "\"files\" : [\n  ]"));
  sim_free(s);
}

static void test_obj(void) {
  double x[27] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 9, 9, 9, /* 4: unused */
                  2, 0, 0, 3, 0, 0, 3, 0.25, 0, 2, 0.125, 1e-9};
  /* body 1 triangles interleaved with body 0's */
  int tri[18] = {5, 6, 7, 0, 2, 1, 0, 1, 3, 0, 3, 2, 5, 7, 8, 1, 2, 3};
  int tri_body[6] = {1, 0, 0, 0, 1, 0};
  const char *names[2] = {"left", "right block"};
  sim_frame_view f = {0};
  f.frame = 3;
  f.time = 0.25;
  f.nv = 9;
  f.x = x;
  f.ntri = 6;
  f.tri = tri;
  f.tri_body = tri_body;
  f.nbodies = 2;
  f.body_names = names;
  char path[512];
  sim_status st = {0};
  CHECK_INT(sim_write_obj(in_dir(path, sizeof path, "00003.obj"), &f, &st), SIM_OK);
  char *s = (char *)slurp(path, NULL);
  CHECK(s != NULL);
  if (!s) return;
  CHECK(strncmp(s, "# simctl frame 3 time 0.25\n", 27) == 0);
  double vx[32][3];
  int nvl = 0, nfl = 0, nol = 0, bad_face = 0, obj = -1;
  int faces_in[2] = {0, 0};
  char *save = NULL;
  for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == 'v' && line[1] == ' ') {
      if (nvl < 32) sscanf(line + 2, "%lf %lf %lf", &vx[nvl][0], &vx[nvl][1], &vx[nvl][2]);
      nvl++;
    } else if (line[0] == 'o' && line[1] == ' ') {
      CHECK(nol < 2 && strcmp(line + 2, nol == 0 ? "left" : "right_block") == 0);
      obj = nol++;
    } else if (line[0] == 'f' && line[1] == ' ') {
      int a[3];
      nfl++;
      if (obj < 0 || sscanf(line + 2, "%d %d %d", &a[0], &a[1], &a[2]) != 3) {
        bad_face++;
        continue;
      }
      /* the k-th face of body obj is its k-th triangle in input order */
      int k = faces_in[obj]++, seen = 0, t = -1;
      for (int i = 0; i < 6 && t < 0; i++)
        if (tri_body[i] == obj && seen++ == k) t = i;
      for (int j = 0; j < 3 && t >= 0; j++) {
        if (a[j] < 1 || a[j] > nvl || a[j] > 32) {
          bad_face++;
          break;
        }
        for (int d = 0; d < 3; d++)
          if (vx[a[j] - 1][d] != x[3 * tri[3 * t + j] + d]) bad_face++;
      }
      if (t < 0) bad_face++;
    }
  }
  CHECK_INT(nol, 2);
  CHECK_INT(nvl, 8); /* vertex 4 is used by no triangle */
  CHECK_INT(nfl, 6);
  CHECK_INT(faces_in[0], 4);
  CHECK_INT(faces_in[1], 2);
  CHECK_INT(bad_face, 0);
  sim_free(s);
  s = (char *)slurp(path, NULL);
  CHECK(s && strstr(s, "o left\nv 0 0 0\nv 0 1 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n"));
  CHECK(s && strstr(s, "v 2 0.125 1e-09\nf 5 6 7\nf 5 7 8\n"));
  sim_free(s);
}

/* Unit cube [0,1]^3: 8 corners (index x + 2y + 4z), 12 outward triangles. */
static void unit_cube(double x[24], int tri[36]) {
  for (int i = 0; i < 8; i++) {
    x[3 * i] = i & 1;
    x[3 * i + 1] = (i >> 1) & 1;
    x[3 * i + 2] = (i >> 2) & 1;
  }
  static const int quads[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                  {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (int q = 0; q < 6; q++) {
    int *t = tri + 6 * q;
    t[0] = quads[q][0], t[1] = quads[q][1], t[2] = quads[q][2];
    t[3] = quads[q][0], t[4] = quads[q][2], t[5] = quads[q][3];
  }
  for (int k = 0; k < 12; k++) { /* orient outward: normal . (centroid - centre) > 0 */
    int *t = tri + 3 * k;
    double e1[3], e2[3], c[3];
    for (int d = 0; d < 3; d++) {
      e1[d] = x[3 * t[1] + d] - x[3 * t[0] + d];
      e2[d] = x[3 * t[2] + d] - x[3 * t[0] + d];
      c[d] = (x[3 * t[0] + d] + x[3 * t[1] + d] + x[3 * t[2] + d]) / 3 - 0.5;
    }
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    if (n[0] * c[0] + n[1] * c[1] + n[2] * c[2] < 0) {
      int s = t[1];
      t[1] = t[2];
      t[2] = s;
    }
  }
}

static int is_bg(const unsigned char *px) {
  return px[0] == SIM_RENDER_BG && px[1] == SIM_RENDER_BG && px[2] == SIM_RENDER_BG;
}

/* A cube of body 0 at y in [2, 3] above the scenery square |x|, |z| <= 3 at y = 0: the fitted
   camera frames both, the picture shows grey plane pixels and blue cube pixels. */
static void test_png_scenery(void) {
  double x[24];
  int tri[36], tri_body[12] = {0};
  unit_cube(x, tri);
  for (int i = 0; i < 8; i++) x[3 * i + 1] += 2.0;
  sim_frame_view f = {0};
  f.nv = 8, f.x = x, f.ntri = 12, f.tri = tri, f.tri_body = tri_body, f.nbodies = 1;
  const double sx[12] = {-3, 0, -3, 3, 0, -3, 3, 0, 3, -3, 0, 3};
  const int stri[6] = {0, 3, 2, 0, 2, 1};
  sim_scenery_view sv = {4, 2, sx, stri};
  sim_camera cam;
  sim_camera_fit_scenery(&f, &sv, &cam);
  CHECK_NEAR(cam.target[0], 0.0, 1e-12);
  CHECK_NEAR(cam.target[1], 1.5, 1e-12);
  sim_camera_fit_scenery(&f, NULL, &cam); /* the bodies alone, as sim_camera_fit */
  CHECK_NEAR(cam.target[1], 2.5, 1e-12);
  char p[512];
  sim_status st = {0};
  CHECK_INT(sim_render_png_scenery(in_dir(p, sizeof p, "s.png"), &f, &sv, NULL, 64, 48, &st),
            SIM_OK);
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  CHECK(png_image_begin_read_from_file(&img, p));
  img.format = PNG_FORMAT_RGB;
  unsigned char *px = sim_malloc(PNG_IMAGE_SIZE(img));
  CHECK(px && png_image_finish_read(&img, NULL, px, 0, NULL));
  int grey = 0, blue = 0, grey_below = 0, n = (int)(img.width * img.height);
  for (int i = 0; px && i < n; i++) {
    const unsigned char *q = px + 3 * i;
    if (is_bg(q)) continue;
    if (q[0] == q[1] && q[1] == q[2] && q[0] <= SIM_RENDER_SCENERY) {
      grey++;
      grey_below += i / (int)img.width >= (int)img.height / 2; /* the plane is low */
    } else if (q[2] > q[0]) {
      blue++;
    }
  }
  CHECK(grey > n / 20);
  CHECK(grey_below > grey / 2);
  CHECK(blue > n / 100);
  sim_free(px);
  png_image_free(&img);
  const int bad[3] = {0, 1, 4};
  sim_scenery_view sb = {4, 1, sx, bad};
  CHECK_INT(sim_render_png_scenery(p, &f, &sb, NULL, 16, 16, &st), SIM_ERR_INTERNAL);
  sim_status_clear(&st);
}

/* Signed volume enclosed by triangles t0..t1 of s (positive when they face outward). */
static double scenery_volume(const sim_scenery *s, int t0, int t1) {
  double v = 0;
  for (int t = t0; t < t1; t++) {
    const double *a = s->x + 3 * s->tri[3 * t], *b = s->x + 3 * s->tri[3 * t + 1],
                 *c = s->x + 3 * s->tri[3 * t + 2];
    v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
          a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
  }
  return v;
}

/* Every analytic kind in a tilted frame: vertices on the surface, indices in range, closed
   shapes outward; the plane and the infinite cylinder cut about the region. */
static void test_scenery_shapes(void) {
  const double lo[3] = {-1, 0, -1}, hi[3] = {1, 2, 3}; /* centre (0, 1, 1), L = 1.5 * 4 */
  const double axis[3] = {1, 2, 3}, pos[3] = {0.3, -0.2, 1};
  const sim_obstacle_kind kinds[7] = {SIM_OBS_PLANE,   SIM_OBS_BOX,      SIM_OBS_SPHERE,
                                      SIM_OBS_CAPSULE, SIM_OBS_CYLINDER, SIM_OBS_CYLINDER,
                                      SIM_OBS_TORUS};
  sim_scenery s = {0};
  sim_status st = {0};
  sim_obstacle o[7];
  for (int k = 0; k < 7; k++) {
    o[k] = sim_default_obstacle(kinds[k]);
    o[k].frame = sim_frame_from_axis(pos, axis);
    o[k].half[0] = 0.3, o[k].half[1] = 0.7, o[k].radius = 0.4, o[k].major = 1.2;
    o[k].half_height = k == 5 ? 0.0 : 0.8; /* 5: the infinite cylinder */
    CHECK_INT(sim_scenery_add_obstacle(&s, &o[k], lo, hi, "shape", &st), SIM_OK);
  }
  CHECK_INT(s.nobj, 7);
  CHECK_INT(s.obj_t[2] - s.obj_t[1], 12); /* box */
  CHECK_INT(s.obj_v[2] - s.obj_v[1], 8);
  CHECK_INT(s.obj_t[1] - s.obj_t[0], 2); /* plane square */
  double worst = 0;
  for (int k = 0; k < 7; k++) {
    for (int i = s.obj_v[k]; i < s.obj_v[k + 1]; i++)
      worst = fmax(worst, fabs(sim_obstacle_phi(&o[k], s.x + 3 * i)));
    for (int t = s.obj_t[k]; t < s.obj_t[k + 1]; t++) {
      CHECK(s.tri_obj[t] == k);
      for (int j = 0; j < 3; j++)
        CHECK(s.tri[3 * t + j] >= s.obj_v[k] && s.tri[3 * t + j] < s.obj_v[k + 1]);
    }
    if (k != 0 && k != 5) CHECK(scenery_volume(&s, s.obj_t[k], s.obj_t[k + 1]) > 0);
  }
  CHECK(worst < 1e-9);
  /* the plane square: centred on the region centre's projection, half side the region's
     extents (2, 2, 4) along the plane's local x or z, the larger */
  double Lp = 0;
  for (int t = 0; t < 3; t += 2) {
    double e = 0;
    for (int d = 0; d < 3; d++) e += fabs(o[0].frame.rot[3 * d + t]) * (hi[d] - lo[d]);
    Lp = fmax(Lp, e);
  }
  CHECK(Lp > 2 && Lp < 6);
  const double c[3] = {0, 1, 1};
  double cp[3], a[3] = {1 / sqrt(14), 2 / sqrt(14), 3 / sqrt(14)}, m[3] = {0, 0, 0};
  sim_obstacle_closest(&o[0], c, cp);
  for (int i = 0; i < 4; i++)
    for (int d = 0; d < 3; d++) m[d] += 0.25 * s.x[3 * (s.obj_v[0] + i) + d];
  for (int d = 0; d < 3; d++) CHECK_NEAR(m[d], cp[d], 1e-9);
  const double *v0 = s.x + 3 * s.obj_v[0];
  CHECK_NEAR(sqrt(pow(v0[0] - m[0], 2) + pow(v0[1] - m[1], 2) + pow(v0[2] - m[2], 2)),
             Lp * sqrt(2.0), 1e-9);
  /* the infinite cylinder: axial extent [t0 - L, t0 + L], t0 = a . (c - pos) */
  double tmin = INFINITY, tmax = -INFINITY, t0 = 0;
  for (int d = 0; d < 3; d++) t0 += a[d] * (c[d] - pos[d]);
  for (int i = s.obj_v[5]; i < s.obj_v[6]; i++) {
    double t = 0;
    for (int d = 0; d < 3; d++) t += a[d] * (s.x[3 * i + d] - pos[d]);
    tmin = fmin(tmin, t), tmax = fmax(tmax, t);
  }
  CHECK_NEAR(tmin, t0 - 6, 1e-9);
  CHECK_NEAR(tmax, t0 + 6, 1e-9);
  sim_scenery_free(&s);
}

/* A minimal world: two analytic obstacles and a one-triangle mesh, redone in place. */
static void test_world_scenery(void) {
  sim_detect_obstacle obs[2];
  memset(obs, 0, sizeof obs);
  obs[0].shape = sim_default_obstacle(SIM_OBS_PLANE);
  obs[1].shape = sim_default_obstacle(SIM_OBS_SPHERE);
  const double mx[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const int mt[3] = {0, 1, 2};
  sim_detect_mesh mesh;
  memset(&mesh, 0, sizeof mesh);
  mesh.nv = 3, mesh.nt = 1, mesh.x = mx, mesh.tri = mt;
  sim_world w;
  memset(&w, 0, sizeof w);
  w.nobs = 2, w.obs = obs, w.nmesh = 1, w.mesh = &mesh;
  const double lo[3] = {0, 1, 0}, hi[3] = {0.1, 1.1, 0.1};
  sim_scenery s = {0};
  sim_status st = {0};
  for (int pass = 0; pass < 2; pass++) {
    CHECK_INT(sim_world_scenery(&w, 0.5, lo, hi, &s, &st), SIM_OK);
    CHECK_INT(s.nobj, 3);
    CHECK_INT(s.obj_t[1], 2);
    CHECK_INT(s.nt - s.obj_t[2], 1);
    CHECK_INT(s.tri_obj[s.nt - 1], 2);
    CHECK(s.names[0] == NULL);
    CHECK_NEAR(s.x[3 * (s.nv - 2)], 1.0, 0); /* the mesh's vertices as they are */
  }
  /* plane at y = 0, region of extent 0.1 along x and z: the square's half side is 0.1 */
  double xmax = -INFINITY;
  for (int i = 0; i < s.obj_v[1]; i++) xmax = fmax(xmax, s.x[3 * i]);
  CHECK_NEAR(xmax, 0.15, 1e-12);
  /* a region that is a point: 1 m */
  CHECK_INT(sim_world_scenery(&w, 0.5, lo, lo, &s, &st), SIM_OK);
  xmax = -INFINITY;
  for (int i = 0; i < s.obj_v[1]; i++) xmax = fmax(xmax, s.x[3 * i]);
  CHECK_NEAR(xmax, 1.0, 1e-12);
  sim_scenery_free(&s);
}

static void test_png(void) {
  double x[24];
  int tri[36], tri_body[12] = {0};
  unit_cube(x, tri);
  sim_frame_view f = {0};
  f.nv = 8;
  f.x = x;
  f.ntri = 12;
  f.tri = tri;
  f.tri_body = tri_body;
  f.nbodies = 1;
  sim_camera cam;
  sim_camera_fit(&f, &cam);
  CHECK_NEAR(cam.target[0], 0.5, 1e-12);
  CHECK_NEAR(cam.target[1], 0.5, 1e-12);
  CHECK(cam.eye[0] > 1 && cam.eye[1] > 1 && cam.eye[2] > 1); /* front-right above */
  char p1[512], p2[512];
  sim_status st = {0};
  CHECK_INT(sim_render_png(in_dir(p1, sizeof p1, "a.png"), &f, &cam, 64, 48, &st), SIM_OK);
  CHECK_INT(sim_render_png(in_dir(p2, sizeof p2, "b.png"), &f, &cam, 64, 48, &st), SIM_OK);
  size_t n1 = 0, n2 = 0;
  unsigned char *b1 = slurp(p1, &n1), *b2 = slurp(p2, &n2);
  CHECK(b1 && b2 && n1 == n2 && n1 > 8 && memcmp(b1, b2, n1) == 0);
  sim_free(b1);
  sim_free(b2);

  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  CHECK(png_image_begin_read_from_file(&img, p1));
  CHECK_INT(img.width, 64);
  CHECK_INT(img.height, 48);
  img.format = PNG_FORMAT_RGB;
  unsigned char *px = sim_malloc(PNG_IMAGE_SIZE(img));
  CHECK(px && png_image_finish_read(&img, NULL, px, 0, NULL));
  if (px && img.width == 64 && img.height == 48) {
    const unsigned char *centre = px + 3 * (24 * 64 + 32);
    CHECK(!is_bg(centre));
    CHECK(is_bg(px));
    CHECK(is_bg(px + 3 * 63));
    CHECK(is_bg(px + 3 * (47 * 64)));
    CHECK(is_bg(px + 3 * (47 * 64 + 63)));
    /* three faces in view, each shaded differently: count distinct bluish colours */
    unsigned char cols[16][3];
    int ncol = 0, covered = 0;
    for (int i = 0; i < 64 * 48; i++) {
      const unsigned char *q = px + 3 * i;
      if (is_bg(q)) continue;
      covered++;
      int found = 0;
      for (int k = 0; k < ncol && !found; k++) found = !memcmp(cols[k], q, 3);
      if (!found && ncol < 16 && q[2] > q[0]) memcpy(cols[ncol++], q, 3);
    }
    CHECK(ncol >= 3);
    CHECK(covered > 64 * 48 / 10 && covered < 64 * 48 * 9 / 10);
  }
  sim_free(px);
  png_image_free(&img);

  /* with no camera the view is fitted; a bad size is refused */
  CHECK_INT(sim_render_png(p2, &f, NULL, 16, 16, &st), SIM_OK);
  CHECK_INT(sim_render_png(p2, &f, NULL, 0, 16, &st), SIM_ERR_INTERNAL);
  sim_status_clear(&st);

  const char *keep = getenv("SIM_TEST_PNG_OUT"); /* for looking at the picture */
  if (keep) {
    double x2[48];
    int tri2[72], body2[24];
    memcpy(x2, x, sizeof x);
    for (int i = 0; i < 8; i++) {
      x2[24 + 3 * i] = x[3 * i] * 0.6 + 1.4;
      x2[24 + 3 * i + 1] = x[3 * i + 1] * 0.6;
      x2[24 + 3 * i + 2] = x[3 * i + 2] * 0.6 + 0.2;
    }
    for (int k = 0; k < 36; k++) tri2[k] = tri[k], tri2[36 + k] = tri[k] + 8;
    for (int t = 0; t < 24; t++) body2[t] = t / 12;
    sim_frame_view g = f;
    g.nv = 16, g.x = x2, g.ntri = 24, g.tri = tri2, g.tri_body = body2, g.nbodies = 2;
    CHECK_INT(sim_render_png(keep, &g, NULL, 320, 240, &st), SIM_OK);
  }
}

static void test_atomic(void) {
  char path[600], missing[512], sub[512];
  sim_status st = {0};
  /* a path in a missing directory: SIM_ERR_IO, nothing created */
  in_dir(missing, sizeof missing, "no/such/dir");
  snprintf(path, sizeof path, "%s/x.txt", missing);
  CHECK_INT(sim_write_file_atomic(path, "abc", 3, &st), SIM_ERR_IO);
  CHECK(access(missing, F_OK) != 0);
  CHECK_INT(count_tmp(g_dir), 0);
  sim_status_clear(&st);
  double v[15] = {0};
  sim_frame_view f = tet_view(v);
  snprintf(path, sizeof path, "%s/x.vtk", missing);
  CHECK_INT(sim_write_vtk(path, &f, &st), SIM_ERR_IO);
  CHECK_STR_CONTAINS(st.msg, "x.vtk");
  sim_status_clear(&st);

  /* mkdir -p then write */
  in_dir(sub, sizeof sub, "out/frames");
  CHECK_INT(sim_mkdirs(sub, &st), SIM_OK);
  CHECK_INT(sim_mkdirs(sub, &st), SIM_OK);
  snprintf(path, sizeof path, "%s/00000.vtk", sub);
  CHECK_INT(sim_write_vtk(path, &f, &st), SIM_OK);
  remove(path);
  rmdir(sub);
  rmdir(in_dir(sub, sizeof sub, "out"));

  /* failures do not clobber an existing file */
  in_dir(path, sizeof path, "keep.vtk");
  put_file(path, "old contents\n");
  sim_atomic_file af;
  CHECK_INT(sim_atomic_open(&af, path, "wb", &st), SIM_OK);
  fputs("new contents that are abandoned\n", af.f);
  CHECK_INT(count_tmp(g_dir), 1);
  sim_atomic_abort(&af);
  CHECK_INT(count_tmp(g_dir), 0);
  char *s = (char *)slurp(path, NULL);
  CHECK(s && strcmp(s, "old contents\n") == 0);
  sim_free(s);

  /* a write that fails part-way (file size limit: EFBIG) */
  struct rlimit old;
  if (getrlimit(RLIMIT_FSIZE, &old) == 0) {
    struct rlimit small = old;
    small.rlim_cur = 64;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
      int rv = sim_write_vtk(path, &f, &st);
      sim_status_clear(&st);
      double x[24];
      int tri[36];
      unit_cube(x, tri);
      sim_frame_view c = {0};
      c.nv = 8, c.x = x, c.ntri = 12, c.tri = tri;
      int rp = sim_render_png(path, &c, NULL, 64, 48, &st);
      sim_status_clear(&st);
      sim_csv *t = sim_csv_create("a,b", &st);
      for (int i = 0; i < 20 && t; i++) sim_csv_add_row(t, (double[]){i, 1.0 / 3}, 2, &st);
      int rc = t ? sim_csv_write(t, path, &st) : -1;
      sim_csv_destroy(t);
      setrlimit(RLIMIT_FSIZE, &old);
      CHECK_INT(rv, SIM_ERR_IO);
      CHECK_INT(rp, SIM_ERR_IO);
      CHECK_INT(rc, SIM_ERR_IO);
      CHECK_INT(count_tmp(g_dir), 0);
      s = (char *)slurp(path, NULL);
      CHECK(s && strcmp(s, "old contents\n") == 0);
      sim_free(s);
    } else {
      fprintf(stderr, "note: cannot lower RLIMIT_FSIZE; part-way failure not tested\n");
    }
    signal(SIGXFSZ, prev);
  }
  sim_status_clear(&st);
}

static void test_csv(void) {
  sim_status st = {0};
  sim_csv *t = sim_csv_create("frame,time,collision", &st);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_INT(sim_csv_cols(t), 3);
  sim_csv_exact(t, 1); /* time to the bit; whole numbers in full in every column */
  CHECK_INT(sim_csv_add_row(t, (double[]){0, 0.5, NAN}, 3, &st), SIM_OK);
  CHECK_INT(sim_csv_add_row(t, (double[]){1, 1e-7, 123456789}, 3, &st), SIM_OK);
  CHECK_INT(sim_csv_add_row(t, (double[]){1000003, 1000.003, 2.123456789}, 3, &st), SIM_OK);
  CHECK_INT(sim_csv_add_row(t, (double[]){-4, 0.1 + 0.2, 1.5e15}, 3, &st), SIM_OK);
  CHECK_INT(sim_csv_add_row(t, (double[]){2, -0.25}, 2, &st), SIM_ERR_INTERNAL);
  sim_status_clear(&st);
  CHECK_INT(sim_csv_rows(t), 4);
  const char *want =
      "frame,time,collision\n0,0.5,\n1,1e-07,123456789\n"
      "1000003,1000.003,2.12346\n-4,0.30000000000000004,1.5e+15\n";
  CHECK(strcmp(sim_csv_text(t), want) == 0);
  char path[512];
  CHECK_INT(sim_csv_write(t, in_dir(path, sizeof path, "timing.csv"), &st), SIM_OK);
  char *s = (char *)slurp(path, NULL);
  CHECK(s && strcmp(s, want) == 0);
  sim_free(s);
  sim_csv_destroy(t);

  t = sim_csv_create("key,value", &st);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_INT(sim_csv_add_text_row(t, (const char *[]){"peak_bytes", "123456"}, 2, &st), SIM_OK);
  CHECK_INT(sim_csv_add_text_row(t, (const char *[]){"note", "a,\"b\""}, 2, &st), SIM_OK);
  CHECK_INT(sim_csv_add_text_row(t, (const char *[]){"empty", NULL}, 2, &st), SIM_OK);
  const char *want2 = "key,value\npeak_bytes,123456\nnote,\"a,\"\"b\"\"\"\nempty,\n";
  CHECK_INT(sim_csv_write(t, in_dir(path, sizeof path, "memory.csv"), &st), SIM_OK);
  s = (char *)slurp(path, NULL);
  CHECK(s && strcmp(s, want2) == 0);
  sim_free(s);
  sim_csv_destroy(t);
  CHECK(sim_csv_create("a\nb", &st) == NULL);
  sim_status_clear(&st);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/simctl_test_io_XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_vtk();
  test_series();
  test_obj();
  test_png();
  test_png_scenery();
  test_scenery_shapes();
  test_world_scenery();
  test_atomic();
  test_csv();
  CHECK_INT(count_tmp(g_dir), 0);
  CHECK_INT(sim_mem_in_use(), 0);
  remove_dir_files(g_dir);
  rmdir(g_dir);
  return check_summary("test_io");
}

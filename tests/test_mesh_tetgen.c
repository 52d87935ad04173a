/* SPDX-License-Identifier: MIT */
/* TetGen front end: meshing an icosphere, the cache, failures of the tetgen program, and
   surfaces refused before it runs. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "check.h"
#include "mesh/mesh.h"

static char root[256];

/* Files in DIR whose names start with PREFIX and end with SUFFIX. */
static int count_files(const char *dir, const char *prefix, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name), ls = strlen(suffix);
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && l >= ls &&
        strcmp(e->d_name + l - ls, suffix) == 0)
      n++;
  }
  closedir(d);
  return n;
}

static int all_positive(const sim_tetmesh *m) {
  for (int t = 0; t < m->ntet; t++) {
    const int *k = m->tet + 4 * t;
    double e[3][3];
    for (int i = 0; i < 3; i++)
      for (int d = 0; d < 3; d++) e[i][d] = m->x[3 * k[i + 1] + d] - m->x[3 * k[0] + d];
    double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                 e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                 e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    if (!(det > 0)) return 0;
  }
  return 1;
}

static void expect_fail(const sim_surface *s, const sim_tetgen_opts *o, const char *want,
                        const char *want2, int line) {
  sim_tetmesh m;
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_tetgen(s, o, "body", &m, &st);
  check_report(rc == SIM_ERR_MESH, __FILE__, line, "rc %d (%s)", rc, st.msg);
  check_report(strstr(st.msg, want) != NULL, __FILE__, line, "\"%s\" contains \"%s\"", st.msg,
               want);
  if (want2)
    check_report(strstr(st.msg, want2) != NULL, __FILE__, line, "\"%s\" contains \"%s\"", st.msg,
                 want2);
  check_report(m.x == NULL && m.ntet == 0, __FILE__, line, "output empty");
}

/* SIMCTL_TETGEN := an executable script root/name with text `body` (a stand-in tetgen). */
static void fake_tetgen(const char *dir, const char *name, const char *body) {
  char script[512];
  snprintf(script, sizeof script, "%s/%s", dir, name);
  FILE *f = fopen(script, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(body, f);
  fclose(f);
  chmod(script, 0755);
  setenv("SIMCTL_TETGEN", script, 1);
}

static void test_icosphere(void) {
  char cache[512];
  snprintf(cache, sizeof cache, "%s/cache/sub", root);
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_icosphere(0.5, 2, &s, &st), SIM_OK);
  sim_tetgen_opts o = {1.414, 0.0, NULL, cache, NULL};
  sim_tetmesh m;
  unsetenv("SIMCTL_TETGEN");
  int rc = sim_tetgen(&s, &o, "ball", &m, &st);
  check_report(rc == SIM_OK, __FILE__, __LINE__, "tetgen: %s", st.msg);
  if (rc != SIM_OK) {
    sim_surface_free(&s);
    return;
  }
  CHECK(m.nv >= s.nv);
  CHECK(m.ntet > s.nt / 2);
  CHECK(all_positive(&m));
  const double vs = sim_surface_volume(&s), vm = sim_tetmesh_volume(&m);
  CHECK_NEAR(vm / vs, 1.0, 0.02);
  /* the surface vertices come first, unchanged */
  CHECK(memcmp(m.x, s.x, 3 * sizeof(double) * (size_t)s.nv) == 0);
  int ntri, *tri;
  CHECK_INT(sim_tetmesh_boundary(&m, "test", &ntri, &tri, &st), SIM_OK);
  sim_surface b = {m.nv, ntri, m.x, tri};
  CHECK_INT(sim_surface_check_closed(&b, "ball boundary", &st), SIM_OK);
  CHECK_NEAR(sim_surface_volume(&b), vm, 1e-12);
  sim_free(tri);
  CHECK_INT(count_files(cache, "", ".node"), 1);
  CHECK_INT(count_files(cache, "", ".ele"), 1);
  CHECK_INT(count_files(cache, "", ""), 2 + 2); /* and . and .. : no temporary left */

  /* second call: a cache hit, the program is never run */
  setenv("SIMCTL_TETGEN", "/bin/false", 1);
  sim_tetmesh m2;
  rc = sim_tetgen(&s, &o, "ball", &m2, &st);
  check_report(rc == SIM_OK, __FILE__, __LINE__, "cached: %s", st.msg);
  CHECK_INT(m2.nv, m.nv);
  CHECK_INT(m2.ntet, m.ntet);
  CHECK(m2.ntet == m.ntet && memcmp(m2.tet, m.tet, 4 * sizeof(int) * (size_t)m.ntet) == 0);
  CHECK(m2.nv == m.nv && memcmp(m2.x, m.x, 3 * sizeof(double) * (size_t)m.nv) == 0);
  sim_tetmesh_free(&m2);

  /* other switches miss the cache and run /bin/false */
  o.max_volume = 0.001;
  expect_fail(&s, &o,
              "body: tetgen failed (exit 1): (no output); a self-intersecting surface "
              "is the usual cause (list them with: tetgen -d ",
              "/in.smesh)", __LINE__);
  o.max_volume = 0;
  o.cache_dir = NULL;
  expect_fail(&s, &o, "body: tetgen failed (exit 1)", NULL, __LINE__);

  /* a crash becomes an error carrying the last line of the program's output */
  fake_tetgen(root, "crash.sh",
              "#!/bin/sh\necho \"meshing $2\"\necho 'about to crash' >&2\nkill -SEGV $$\n");
  expect_fail(&s, &o, "body: tetgen failed (killed by signal 11): about to crash; ", NULL,
              __LINE__);
  setenv("SIMCTL_TETGEN", "/nonexistent/tetgen", 1);
  expect_fail(&s, &o, "body: cannot run the tetgen program '/nonexistent/tetgen': No such file",
              NULL, __LINE__);
  unsetenv("SIMCTL_TETGEN");

  /* a real run without a cache agrees with the cached mesh */
  sim_tetmesh m3;
  CHECK_INT(sim_tetgen(&s, &o, "ball", &m3, &st), SIM_OK);
  CHECK_INT(m3.ntet, m.ntet);
  sim_tetmesh_free(&m3);

  /* extra switches: allowed characters only, and none that change the files */
  o.extra = "V;rm";
  expect_fail(&s, &o, "body: tetgen: extra switches \"V;rm\": character ';' is not allowed", NULL,
              __LINE__);
  o.extra = "r";
  expect_fail(&s, &o, "character 'r' is not allowed", NULL, __LINE__);
  o.extra = "Y";
  CHECK_INT(sim_tetgen(&s, &o, "ball", &m3, &st), SIM_OK);
  CHECK(m3.ntet > 0 && all_positive(&m3));
  sim_tetmesh_free(&m3);
  sim_tetmesh_free(&m);
  sim_surface_free(&s);
}

static void test_refused(void) {
  sim_surface c;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_cloth(1.0, 25, &c, &st), SIM_OK);
  sim_tetgen_opts o = {0, 0, NULL, NULL, NULL};
  expect_fail(&c, &o, "body: surface is not closed: 16 boundary edges", NULL, __LINE__);
  sim_surface_free(&c);

  /* two overlapping boxes in one surface: closed and manifold, but self-intersecting */
  sim_surface a, b;
  const double lo1[3] = {0, 0, 0}, hi1[3] = {1, 1, 1}, lo2[3] = {0.5, 0.5, 0.5},
               hi2[3] = {1.5, 1.5, 1.5};
  CHECK_INT(sim_gen_box_surface(lo1, hi1, 1, &a, &st), SIM_OK);
  CHECK_INT(sim_gen_box_surface(lo2, hi2, 1, &b, &st), SIM_OK);
  sim_surface u = {a.nv + b.nv, a.nt + b.nt, sim_malloc(3 * sizeof(double) * (a.nv + b.nv)),
                   sim_malloc(3 * sizeof(int) * (a.nt + b.nt))};
  memcpy(u.x, a.x, 3 * sizeof(double) * a.nv);
  memcpy(u.x + 3 * a.nv, b.x, 3 * sizeof(double) * b.nv);
  memcpy(u.tri, a.tri, 3 * sizeof(int) * a.nt);
  for (int i = 0; i < 3 * b.nt; i++) u.tri[3 * a.nt + i] = b.tri[i] + a.nv;
  CHECK_INT(sim_surface_check_closed(&u, "two boxes", &st), SIM_OK);
  expect_fail(&u, &o, "body: tetgen failed (", "a self-intersecting surface is the usual cause",
              __LINE__);
  sim_surface_free(&a);
  sim_surface_free(&b);
  sim_surface_free(&u);
}

/* Two boxes, [0, 3]^3 and [1, 2]^3, as one surface; the inner one facing in (a cavity) or out
   (a nested shell). */
static void two_shells(int inner_out, sim_surface *u) {
  sim_surface a, b;
  sim_status st;
  sim_status_clear(&st);
  const double lo1[3] = {0, 0, 0}, hi1[3] = {3, 3, 3}, lo2[3] = {1, 1, 1}, hi2[3] = {2, 2, 2};
  CHECK_INT(sim_gen_box_surface(lo1, hi1, 1, &a, &st), SIM_OK);
  CHECK_INT(sim_gen_box_surface(lo2, hi2, 1, &b, &st), SIM_OK);
  u->nv = a.nv + b.nv;
  u->nt = a.nt + b.nt;
  u->x = sim_malloc(3 * sizeof(double) * (size_t)u->nv);
  u->tri = sim_malloc(3 * sizeof(int) * (size_t)u->nt);
  memcpy(u->x, a.x, 3 * sizeof(double) * (size_t)a.nv);
  memcpy(u->x + 3 * a.nv, b.x, 3 * sizeof(double) * (size_t)b.nv);
  memcpy(u->tri, a.tri, 3 * sizeof(int) * (size_t)a.nt);
  for (int t = 0; t < b.nt; t++)
    for (int k = 0; k < 3; k++)
      u->tri[3 * (a.nt + t) + k] = b.tri[3 * t + (inner_out ? k : 2 - k)] + a.nv;
  sim_surface_free(&a);
  sim_surface_free(&b);
}

/* TetGen fills a cavity and a nested shell: the volumes disagree and the run is refused (no
   cache entry written); a max_volume asking for too many tets is refused before TetGen runs;
   a tetgen killed by SIGKILL is not blamed on the surface. */
static void test_filled_and_limits(void) {
  char cache[512];
  snprintf(cache, sizeof cache, "%s/cache2", root);
  sim_tetgen_opts o = {0, 0, NULL, cache, "--max-volume"};
  unsetenv("SIMCTL_TETGEN");
  sim_surface u;
  two_shells(0, &u);
  CHECK_NEAR(sim_surface_volume(&u), 26.0, 1e-12);
  expect_fail(&u, &o,
              "body: the surface has a cavity or nested shells, which TetGen fills (enclosed "
              "volume 26, tet mesh volume 27)",
              NULL, __LINE__);
  sim_surface_free(&u);
  two_shells(1, &u);
  expect_fail(&u, &o, "body: the surface has a cavity or nested shells", "enclosed volume 28",
              __LINE__);
  CHECK(count_files(cache, "", ".node") <= 0);

  /* volume 28 / 1e-300: the program (which would fail anyway) is never run */
  setenv("SIMCTL_TETGEN", "/bin/false", 1);
  o.max_volume = 1e-300;
  expect_fail(&u, &o,
              "body: tetgen max_volume 1e-300 would need at least 2.8e+301 tets (enclosed volume "
              "28 / max_volume), more than the limit of 1e+07",
              "--max-volume", __LINE__);
  o.max_volume = 28.0 / 2e7;
  expect_fail(&u, &o, "would need at least 2e+07 tets", NULL, __LINE__);
  sim_surface_free(&u);

  fake_tetgen(root, "oom.sh", "#!/bin/sh\necho 'Delaunizing vertices...'\nkill -KILL $$\n");
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_icosphere(0.5, 1, &s, &st), SIM_OK);
  o.max_volume = 0;
  o.cache_dir = NULL;
  expect_fail(&s, &o, "body: tetgen was killed (signal 9: out of memory?): Delaunizing vertices...",
              NULL, __LINE__);
  sim_tetmesh m;
  sim_status_clear(&st);
  sim_tetgen(&s, &o, "body", &m, &st);
  CHECK(strstr(st.msg, "self-intersecting") == NULL);
  unsetenv("SIMCTL_TETGEN");
  sim_surface_free(&s);
}

static void test_default_cache_dir(void) {
  setenv("SIMCTL_CACHE_DIR", "/c/d", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  const char *d = sim_tetgen_default_cache_dir();
  CHECK(d && strcmp(d, "/c/d") == 0);
  unsetenv("SIMCTL_CACHE_DIR");
  d = sim_tetgen_default_cache_dir();
  CHECK(d && strcmp(d, "/xdg/simctl/tetgen") == 0);
  unsetenv("XDG_CACHE_HOME");
  d = sim_tetgen_default_cache_dir();
  CHECK(d && strcmp(d, "/home/u/.cache/simctl/tetgen") == 0);
  unsetenv("HOME");
  CHECK(sim_tetgen_default_cache_dir() == NULL);
}

int main(void) {
  const char *t = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/test_mesh_tetgen_XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(root)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("TMPDIR", root, 1); /* sim_tetgen's temporary directories go here */
  test_icosphere();
  test_refused();
  test_filled_and_limits();
  /* successful runs leave no temporary directory, nor do refused ones; the 6 failed runs keep
     theirs for tetgen -d */
  CHECK_INT(count_files(root, "simctl-tetgen-", ""), 6);
  test_default_cache_dir();
  CHECK_INT(sim_mem_in_use(), 0);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  return check_summary("test_mesh_tetgen");
}

/* SPDX-License-Identifier: MIT */
/* Elements in the model: cloth triangles and tets under every material, bending in A, the
   ADMM-PD iteration converging to the true minimiser, Neo-Hookean from inverted tets, and the
   global solvers' first iterates. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/base/mathx.h"
#include "../core/mesh/mesh.h"
#include "../core/model/bending.h"
#include "../core/solve/backend.h"
#include "../core/solve/material.h"
#include "../core/solve/stepper.h"
#include "check.h"
#include "lg_fixture.h"

static sim_scene g_sc;

/* A default scene of one default body, h = 0.01, 5 L-G iterations, no pins. */
static sim_body_def *one_body_scene(sim_scene *sc) {
  sim_default_scene(sc);
  snprintf(sc->file, sizeof sc->file, "test_elements");
  sc->solver.dt = 0.01;
  sc->solver.lg_iterations = 5;
  sc->nbodies = 1;
  sc->npins = 0;
  sim_default_body(&sc->bodies[0]);
  return &sc->bodies[0];
}

/* A 1 x 1 cloth of k x k grid vertices (cross or diagonal pattern), E 1e4, total mass 1. */
static void cloth_scene(sim_scene *sc, int k, int cross, sim_material_model model,
                        sim_bending_kind bend, double nu) {
  sim_body_def *b = one_body_scene(sc);
  b->mesh.kind = SIM_SRC_CLOTH;
  b->mesh.size[0] = b->mesh.size[1] = 1.0;
  b->mesh.vertices[0] = b->mesh.vertices[1] = k;
  b->mesh.cloth_cross = cross;
  b->material.model = model;
  b->material.mass = 1;
  b->material.density = 0;
  b->material.thickness = 0.01;
  b->material.youngs_modulus = 1e4;
  b->material.poisson_ratio = nu;
  b->bending.type = bend;
  b->bending.stiffness = 1e-2;
}

/* A 0.4 x 1 x 0.4 bar of 3 x 6 x 3 vertices. */
static void bar_scene(sim_scene *sc, sim_material_model model, double nu) {
  sim_body_def *b = one_body_scene(sc);
  b->mesh.kind = SIM_SRC_BAR;
  double lo[3] = {-0.2, -0.5, -0.2}, hi[3] = {0.2, 0.5, 0.2};
  memcpy(b->mesh.lo, lo, sizeof lo);
  memcpy(b->mesh.hi, hi, sizeof hi);
  b->mesh.vertices[0] = 3, b->mesh.vertices[1] = 6, b->mesh.vertices[2] = 3;
  b->material.model = model;
  b->material.mass = 10;
  b->material.density = 0;
  b->material.youngs_modulus = 1e5;
  b->material.poisson_ratio = nu;
}

/* Sets q = q~ = deformed rest positions (x -> stretch x) and evaluates the elastic energy. */
static double stretched_energy(lg_ctx *c, double sx, double sy) {
  size_t n3 = 3 * (size_t)c->m.n;
  double *q = SIM_NEW(double, n3);
  for (int i = 0; i < c->m.n; i++) {
    q[3 * i] = sx * c->m.x_rest[3 * i];
    q[3 * i + 1] = sy * c->m.x_rest[3 * i + 1];
    q[3 * i + 2] = c->m.x_rest[3 * i + 2];
  }
  sim_status st = {0};
  c->be->upload(c->be, SIM_VEC_Q, q, &st);
  c->be->upload(c->be, SIM_VEC_QTILDE, q, &st);
  double e = c->be->energy(c->be, NULL);
  sim_free(q);
  return e;
}

/* Triangle and tet rest gradients: the energy of a uniform stretch is the total measure times
   Psi at the stretch's singular values, under every material. */
static void test_uniform_stretch(void) {
  for (int model = 0; model < SIM_MAT_COUNT; model++)
    for (int cross = 0; cross < 2; cross++) {
      lg_ctx c;
      cloth_scene(&g_sc, 7, cross, (sim_material_model)model, SIM_BEND_NONE, 0.3);
      if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
        CHECK(0);
        continue;
      }
      CHECK_INT(c.m.ncloth, cross ? 4 * 36 : 2 * 36);
      CHECK_INT(c.m.n, cross ? 49 + 36 : 49);
      CHECK_NEAR(stretched_energy(&c, 1, 1), 0.0, 1e-12);
      sim_material mat = {(sim_material_model)model, 2, 0, 0};
      sim_material_lame(1e4, 0.3, 2, &mat.mu, &mat.lambda);
      double s[3] = {1.3, 1.0, 0.0};
      double expect = c.m.total_volume * sim_psi_sigma(&mat, s, NULL, NULL);
      CHECK_NEAR(stretched_energy(&c, 1.3, 1), expect, 1e-9 * expect);
      lg_teardown(&c);
    }
  for (int model = 0; model < SIM_MAT_COUNT; model++) {
    lg_ctx c;
    bar_scene(&g_sc, (sim_material_model)model, 0.3);
    if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
      CHECK(0);
      continue;
    }
    sim_material mat = {(sim_material_model)model, 3, 0, 0};
    sim_material_lame(1e5, 0.3, 3, &mat.mu, &mat.lambda);
    double s[3] = {1.2, 0.9, 1.0};
    double expect = c.m.total_volume * sim_psi_sigma(&mat, s, NULL, NULL);
    CHECK_NEAR(stretched_energy(&c, 1.2, 0.9), expect, 1e-9 * expect);
    CHECK_NEAR(stretched_energy(&c, 1, 1), 0.0, 1e-12);
    lg_teardown(&c);
  }
}

/* Rigid motion of a cloth with bending: zero energy, so rotations are rest states. */
static void test_rigid_cloth(void) {
  for (int bend = 0; bend < SIM_BEND_COUNT; bend++) {
    lg_ctx c;
    cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, (sim_bending_kind)bend, 0.3);
    if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
      CHECK(0);
      continue;
    }
    CHECK(bend == SIM_BEND_NONE ? c.m.bend->nst == 0 : c.m.bend->nst > 0);
    size_t n3 = 3 * (size_t)c.m.n;
    double *q = SIM_NEW(double, n3), R[9], ang = 0.7;
    double Rz[9] = {cos(ang), -sin(ang), 0, sin(ang), cos(ang), 0, 0, 0, 1};
    memcpy(R, Rz, sizeof R);
    for (int i = 0; i < c.m.n; i++)
      for (int r = 0; r < 3; r++)
        q[3 * i + r] = 0.3 + R[3 * r] * c.m.x_rest[3 * i] + R[3 * r + 1] * c.m.x_rest[3 * i + 1] +
                       R[3 * r + 2] * c.m.x_rest[3 * i + 2];
    sim_status st = {0};
    c.be->upload(c.be, SIM_VEC_Q, q, &st);
    c.be->upload(c.be, SIM_VEC_QTILDE, q, &st);
    CHECK_NEAR(c.be->energy(c.be, NULL), 0.0, 1e-10);
    sim_free(q);
    lg_teardown(&c);
  }
}

/* Projective dynamics (ARAP with either bending) never increases e(q) within a step. */
static void test_pd_descent(void) {
  for (int bend = 0; bend < SIM_BEND_COUNT; bend++) {
    lg_ctx c;
    cloth_scene(&g_sc, 9, 0, SIM_MAT_ARAP, (sim_bending_kind)bend, 0.3);
    g_sc.gravity[1] = -9.81;
    g_sc.npins = 1;
    sim_pin_def *p = &g_sc.pins[0];
    memset(p, 0, sizeof *p);
    double box[6] = {-1, -1, -1, -0.49, 1, 1};
    memcpy(p->box, box, sizeof box);
    if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
      CHECK(0);
      continue;
    }
    c.s.lg_iterations = 10;
    double e[11];
    int worst = 0;
    sim_profile prof;
    sim_status st = {0};
    for (int f = 0; f < 30; f++) {
      if (sim_stepper_step(&c.s, &prof, e, &st)) break;
      for (int k = 1; k <= 10; k++) worst |= e[k] > e[k - 1] * (1 + 1e-12) + 1e-15;
    }
    CHECK(!worst);
    lg_teardown(&c);
  }
}

/* Gradient of e at q by central differences of the backend's energy over the free unknowns. */
static double fd_gradient_norm(lg_ctx *c, double *q) {
  sim_status st = {0};
  double g2 = 0, h = 1e-7;
  for (int f = 0; f < c->m.nfree; f++)
    for (int k = 0; k < 3; k++) {
      size_t i = 3 * (size_t)c->m.free_vert[f] + k;
      double x = q[i];
      q[i] = x + h;
      c->be->upload(c->be, SIM_VEC_Q, q, &st);
      double ep = c->be->energy(c->be, NULL);
      q[i] = x - h;
      c->be->upload(c->be, SIM_VEC_Q, q, &st);
      double em = c->be->energy(c->be, NULL);
      q[i] = x;
      g2 += (ep - em) * (ep - em) / (4 * h * h);
    }
  c->be->upload(c->be, SIM_VEC_Q, q, &st);
  return sqrt(g2);
}

/* ADMM-PD: many iterations of one step drive the true gradient of e towards 0 (the primal and
   dual residuals vanish), for both ADMM materials on cloth and tets. */
static void test_admm_converges(void) {
  for (int model = SIM_MAT_COROTATIONAL; model < SIM_MAT_COUNT; model++)
    for (int kind = 0; kind < 2; kind++) {
      lg_ctx c;
      if (kind == 0)
        cloth_scene(&g_sc, 5, 0, (sim_material_model)model, SIM_BEND_NONE, 0.3);
      else
        bar_scene(&g_sc, (sim_material_model)model, 0.3);
      g_sc.gravity[1] = -9.81;
      g_sc.npins = 1;
      sim_pin_def *p = &g_sc.pins[0];
      memset(p, 0, sizeof *p);
      double box[6] = {-1, 0.45, -1, 1, 1, 1}, cbox[6] = {-1, -1, -1, -0.49, 1, 1};
      memcpy(p->box, kind ? box : cbox, sizeof box);
      if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
        CHECK(0);
        continue;
      }
      sim_profile prof;
      sim_status st = {0};
      c.s.lg_iterations = 5;
      for (int f = 0; f < 20; f++) sim_stepper_step(&c.s, &prof, NULL, &st);
      size_t n3 = 3 * (size_t)c.m.n;
      double *q = SIM_NEW(double, n3);
      /* one more step, gradient after 2 and after 300 iterations */
      c.s.lg_iterations = 2;
      sim_stepper_step(&c.s, &prof, NULL, &st);
      c.be->download(c.be, SIM_VEC_Q, q, &st);
      double g_early = fd_gradient_norm(&c, q);
      for (int k = 0; k < 298; k++) {
        c.be->local_step(c.be, &st);
        c.be->global_step(c.be, &st);
      }
      c.be->download(c.be, SIM_VEC_Q, q, &st);
      double g_late = fd_gradient_norm(&c, q);
      printf("ADMM %s %s: |grad e| after 2 iterations %.3g, after 300 %.3g\n",
             model == SIM_MAT_COROTATIONAL ? "corotational" : "neo_hookean", kind ? "bar" : "cloth",
             g_early, g_late);
      CHECK(g_late < 1e-3 * g_early);
      sim_free(q);
      lg_teardown(&c);
    }
}

static int inverted_count(const sim_model *m, const double *q) {
  int bad = 0;
  for (int e = 0; e < m->nelem; e++) {
    double F[9];
    const sim_elem *t = &m->elems[e];
    for (int i = 0; i < 9; i++) F[i] = 0;
    for (int a = 0; a < t->nv; a++)
      for (int r = 0; r < 3; r++)
        for (int d = 0; d < 3; d++) F[3 * r + d] += q[3 * t->v[a] + r] * t->g[a][d];
    bad += sim_det3(F) <= 0;
  }
  return bad;
}

/* Neo-Hookean from inverted tets: the upper half of the bar mirrored through its middle plane
   inverts every tet there; the simulation stays finite and recovers. */
static void test_neohookean_inverted(void) {
  lg_ctx c;
  bar_scene(&g_sc, SIM_MAT_NEOHOOKEAN, 0.3);
  if (lg_setup(&c, &g_sc, SIM_GLOBAL_CHOLESKY, 0)) {
    CHECK(0);
    return;
  }
  size_t n3 = 3 * (size_t)c.m.n;
  double *q = SIM_NEW(double, n3);
  memcpy(q, c.m.x_rest, sizeof(double) * n3);
  for (int i = 0; i < c.m.n; i++)
    if (q[3 * i + 1] > 0) q[3 * i + 1] = -0.5 * q[3 * i + 1];
  int inv0 = inverted_count(&c.m, q);
  sim_status st = {0};
  c.be->upload(c.be, SIM_VEC_Q, q, &st);
  c.be->upload(c.be, SIM_VEC_QT, q, &st);
  sim_profile prof;
  int finite = 1;
  for (int f = 0; f < 200; f++) {
    if (sim_stepper_step(&c.s, &prof, NULL, &st)) finite = 0;
    c.be->download(c.be, SIM_VEC_Q, q, &st);
    for (size_t i = 0; i < n3; i++) finite &= isfinite(q[i]);
  }
  int inv1 = inverted_count(&c.m, q);
  printf("neo-Hookean from inverted: %d of %d tets inverted at start, %d after 200 steps\n", inv0,
         c.m.nelem, inv1);
  CHECK(inv0 > c.m.nelem / 4);
  CHECK(finite);
  CHECK_INT(inv1, 0);
  sim_free(q);
  lg_teardown(&c);
}

/* The exact global solvers give the same first iterate; Chebyshev's first iterate is the plain
   one (it extrapolates from the second on), and later ones differ. */
static void test_first_iterates(void) {
  cloth_scene(&g_sc, 8, 1, SIM_MAT_NEOHOOKEAN, SIM_BEND_ISOMETRIC, 0.3);
  g_sc.gravity[1] = -9.81;
  size_t n3 = 0;
  double *ref = NULL;
  sim_global_kind gs[] = {SIM_GLOBAL_CHOLESKY, SIM_GLOBAL_SPARSE_INVERSE, SIM_GLOBAL_DENSE_INVERSE,
                          SIM_GLOBAL_CHOLESKY};
  double rhos[] = {0, 0, 0, 0.5};
  for (int v = 0; v < 4; v++) {
    lg_ctx c;
    if (lg_setup(&c, &g_sc, gs[v], rhos[v])) {
      CHECK(0);
      continue;
    }
    n3 = 3 * (size_t)c.m.n;
    double *q = SIM_NEW(double, n3);
    sim_profile prof;
    sim_status st = {0};
    c.s.lg_iterations = 1;
    sim_stepper_step(&c.s, &prof, NULL, &st);
    c.be->download(c.be, SIM_VEC_Q, q, &st);
    if (!ref) {
      ref = q;
    } else {
      double d = 0, s = 0;
      for (size_t i = 0; i < n3; i++) {
        d = fmax(d, fabs(q[i] - ref[i]));
        s = fmax(s, fabs(ref[i]));
      }
      CHECK(d <= 1e-10 * s);
      sim_free(q);
    }
    lg_teardown(&c);
  }
  sim_free(ref);
}

/* Parameters whose products leave a double's range are refused when the model is built
   (SIM_ERR_SCENE, one line naming the key), not at the first step as a NaN position. */
static void expect_refused(const char *what, const char *needle) {
  sim_model m;
  sim_status st = {0};
  const int rc = sim_model_build(&g_sc, NULL, &m, &st);
  check_report(rc == SIM_ERR_SCENE && strstr(st.msg, needle) && !strchr(st.msg, '\n'), __FILE__,
               __LINE__, "%s: rc %d, \"%s\" contains \"%s\"", what, rc, st.msg, needle);
  if (rc == SIM_OK) sim_model_free(&m);
}

/* The bar scaled by s: a volume of 0.16 s^3 m^3. */
static void big_bar(double s, double nu) {
  bar_scene(&g_sc, SIM_MAT_ARAP, nu);
  for (int k = 0; k < 3; k++) g_sc.bodies[0].mesh.lo[k] *= s, g_sc.bodies[0].mesh.hi[k] *= s;
}

static void test_overflow_refused(void) {
  big_bar(10, 0.3);
  g_sc.bodies[0].material.mass = 0, g_sc.bodies[0].material.density = 1e308;
  expect_refused("density",
                 "test_elements: bodies.0.material.density: density 1e+308 gives "
                 "the body a mass beyond a double's range");
  bar_scene(&g_sc, SIM_MAT_ARAP, 0.3);
  g_sc.bodies[0].velocity[0] = 1e308;
  expect_refused("velocity",
                 "bodies.0.velocity: velocity [1e+308, 0, 0] with the body's mass "
                 "10 kg gives a momentum beyond a double's range");
  big_bar(10, 0.0);
  g_sc.bodies[0].material.youngs_modulus = 1e308;
  g_sc.solver.dt = 1;
  expect_refused("A", "bodies.0: the system matrix A = M + h^2");
  for (int bend = 0; bend < 2; bend++) {
    cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, bend ? SIM_BEND_ISOMETRIC : SIM_BEND_NONE, 0.3);
    g_sc.bodies[0].material.thickness = 1e308;
    expect_refused("thickness 1e308",
                   "bodies.0.material: youngs_modulus 10000 with thickness "
                   "1e+308 gives cloth triangle 0 a weight beyond");
    cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, bend ? SIM_BEND_ISOMETRIC : SIM_BEND_NONE, 0.3);
    g_sc.bodies[0].material.thickness = 1e-308;
    expect_refused("thickness 1e-308",
                   "bodies.0.material.thickness: thickness 1e-308 gives "
                   "cloth triangle 0 a volume");
    cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, bend ? SIM_BEND_ISOMETRIC : SIM_BEND_NONE, 0.3);
    g_sc.bodies[0].material.mass = 0, g_sc.bodies[0].material.density = 200;
    g_sc.bodies[0].material.thickness = 1e-300;
    expect_refused("thickness 1e-300",
                   "bodies.0.material: density 200 with thickness 1e-300 "
                   "gives vertex 0 a mass below a double's normal range");
  }
  cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, SIM_BEND_ISOMETRIC, 0.3);
  g_sc.bodies[0].bending.stiffness = 1e308;
  expect_refused("bending",
                 "bodies.0.bending.stiffness: stiffness 1e+308 gives bending "
                 "stencil 0 a weight beyond a double's range");
  /* near the edge but inside: built */
  cloth_scene(&g_sc, 6, 1, SIM_MAT_ARAP, SIM_BEND_ISOMETRIC, 0.3);
  g_sc.bodies[0].material.thickness = 1e-200;
  g_sc.bodies[0].velocity[1] = 1e200;
  sim_model m;
  sim_status st = {0};
  CHECK_INT(sim_model_build(&g_sc, NULL, &m, &st), SIM_OK);
  sim_model_free(&m);
}

int main(void) {
  test_uniform_stretch();
  test_rigid_cloth();
  test_pd_descent();
  test_admm_converges();
  test_neohookean_inverted();
  test_first_iterates();
  test_overflow_refused();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_elements");
}

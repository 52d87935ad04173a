/* SPDX-License-Identifier: MIT */
/* The CUDA backend's other global solvers against the CPU backend's (label gpu; SKIPPED without
   a CUDA device): solver.global cholesky (cuSPARSE triangular solves), jacobi and dense_inverse,
   each alone and with Chebyshev acceleration, and Chebyshev on the sparse inverse, on a pinned
   ARAP bar and a Neo-Hookean cloth with bending.
   - The global step alone, from the same right-hand side and q on both sides, three times in a
     row, then again after a predict (Chebyshev's count starts over): Jacobi and the dense inverse
     run the CPU's arithmetic in the CPU's order, so q must be bit for bit the CPU's; Cholesky's
     triangular solves (CHOLMOD's supernodal ones on the CPU, cuSPARSE's on the simplicial L on
     the device) agree to 1e-12 relative; with Chebyshev on top, the same.
   - Two whole steps (predict, 4 L-G iterations, integrate) from a random state: positions and
     velocities within 1e-11 relative (the cloth's local step differs by 1-2 ulp between the
     device's libm and glibc: test_gpu_backend.c).
   - A scene with an obstacle: cholesky and dense_inverse accepted (their contact runs are in
     test_gpu_contact.c), Jacobi and Chebyshev refused (SIM_ERR_SCENE) by both backends with
     the same one-line message. */
#include "gpu_pair.h"
#include "json_fmt.h"

static sim_scene g_sc; /* large: off the stack */

static int load(const char *text) { return pair_load_scene(&g_sc, text, "test_gpu_solvers.json"); }

/* The pinned 5 x 21 x 5 ARAP bar, with a plane under it when `floor`. */
static int bar(int floor) {
  return load(
      json("{'name': 'bar', 'solver': {'dt': 0.01, 'lg_iterations': 4},"
           " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [-0.2, -1, -0.2],"
           " 'hi': [0.2, 1, 0.2], 'vertices': [5, 21, 5]}, 'material': {'model': 'arap',"
           " 'mass': 10, 'youngs_modulus': 1e6, 'poisson_ratio': 0.4}}],"
           " 'pins': [{'body': 0, 'box': [-1, 0.95, -1, 1, 1.1, 1]}]%s}",
           floor ? ", 'obstacles': [{'type': 'plane', 'point': [0, -2, 0],"
                   " 'normal': [0, 1, 0]}]"
                 : ""));
}

/* A pinned Neo-Hookean cloth with isometric bending. */
static int cloth(void) {
  return load(
      json("{'name': 'cloth', 'solver': {'dt': 0.01, 'lg_iterations': 4},"
           " 'bodies': [{'name': 'cloth', 'mesh': {'type': 'cloth', 'size': [1, 1],"
           " 'vertices': [17, 17], 'pattern': 'cross'}, 'material': {'model':"
           " 'neo_hookean', 'mass': 1, 'thickness': 0.01, 'youngs_modulus': 1e5,"
           " 'poisson_ratio': 0.4}, 'bending': {'type': 'isometric', 'stiffness': 0.01}}],"
           " 'pins': [{'body': 0, 'box': [0.45, -1, -1, 1, 1, 1]}]}"));
}

/* The global step alone from the same right-hand side on both sides, `times` in a row. */
static void global_steps(gpu_pair *g, unsigned long long *seed, int times, double tol,
                         const char *what) {
  size_t nr = sim_buffer_len(&g->m, SIM_BUF_RHS);
  double *b = SIM_NEW(double, nr + 1);
  for (int k = 0; k < times; k++) {
    for (size_t i = 0; i < nr; i++) b[i] = rnd(seed);
    sim_status st = {0};
    CHECK_INT(g->cpu->write_buffer(g->cpu, SIM_BUF_RHS, b, &st), SIM_OK);
    CHECK_INT(g->gpu->write_buffer(g->gpu, SIM_BUF_RHS, b, &st), SIM_OK);
    CHECK_INT(g->cpu->global_step(g->cpu, &st), SIM_OK);
    CHECK_INT(g->gpu->global_step(g->gpu, &st), SIM_OK);
    pair_compare(g, 0, SIM_VEC_Q, tol, what);
  }
  sim_free(b);
}

/* One step of the frame loop on both backends: predict, the L-G iterations, integrate. */
static void step_both(gpu_pair *g, const double grav[3]) {
  sim_backend *be[2] = {g->cpu, g->gpu};
  for (int s = 0; s < 2; s++) {
    sim_status st = {0};
    CHECK_INT(be[s]->predict(be[s], grav, &st), SIM_OK);
    for (int k = 0; k < g->m.scene->solver.lg_iterations; k++) {
      CHECK_INT(be[s]->local_step(be[s], &st), SIM_OK);
      CHECK_INT(be[s]->global_step(be[s], &st), SIM_OK);
    }
    CHECK_INT(be[s]->integrate(be[s], &st), SIM_OK);
  }
}

static void check_solver(sim_global_kind kind, double rho, double tol_global, double tol_run) {
  sim_backend_opts o = {.global = kind, .ordering = SIM_ORDER_METIS, .chebyshev_rho = rho};
  gpu_pair g;
  if (gpu_pair_open_with(&g, &g_sc, &o)) return;
  char what[64];
  snprintf(what, sizeof what, "%s%s", sim_global_name(kind), rho > 0 ? "+cheb" : "");
  check_report(g.gpu->global == kind, __FILE__, __LINE__, "%s: the CUDA backend runs it", what);
  unsigned long long seed = 4242;
  double grav[3] = {0.2, -9.81, 0.1};
  sim_status st = {0};
  random_state(&g, &seed);
  CHECK_INT(g.cpu->predict(g.cpu, grav, &st), SIM_OK);
  CHECK_INT(g.gpu->predict(g.gpu, grav, &st), SIM_OK);
  global_steps(&g, &seed, 3, tol_global, what);
  CHECK_INT(g.cpu->predict(g.cpu, grav, &st), SIM_OK); /* Chebyshev starts over */
  CHECK_INT(g.gpu->predict(g.gpu, grav, &st), SIM_OK);
  global_steps(&g, &seed, 2, tol_global, what);
  random_state(&g, &seed);
  for (int s = 0; s < 2; s++) step_both(&g, grav);
  pair_compare(&g, 0, SIM_VEC_Q, tol_run, "2 steps q");
  pair_compare(&g, 0, SIM_VEC_V, tol_run, "2 steps v");
  gpu_pair_close(&g);
}

/* With contact both backends refuse Jacobi and Chebyshev (the contact stage solves with A^{-1})
   by the same one-line message, and take the exact solvers (stepped in test_gpu_contact.c's
   solvers pass). */
static void check_contact_rule(sim_global_kind kind, double rho) {
  sim_status st[2] = {{0}, {0}};
  sim_model m;
  memset(&m, 0, sizeof m);
  CHECK_INT(sim_model_build(&g_sc, NULL, &m, &st[0]), SIM_OK);
  sim_backend_opts o = {.global = kind, .ordering = SIM_ORDER_METIS, .chebyshev_rho = rho};
  sim_backend *be[2] = {NULL, NULL};
  int rc[2] = {sim_backend_cpu_create(&m, &o, &be[0], &st[0]),
               sim_backend_cuda_create(&m, &o, &be[1], &st[1])};
  int exact = kind != SIM_GLOBAL_JACOBI && !(rho > 0);
  char what[64];
  snprintf(what, sizeof what, "contact with %s%s", sim_global_name(kind),
           rho > 0 ? " and Chebyshev" : "");
  if (exact) {
    CHECK_INT(rc[0], SIM_OK);
    CHECK_INT(rc[1], SIM_OK);
    check_report(be[1] && be[1]->global == kind && be[1]->contact_begin, __FILE__, __LINE__,
                 "%s: the CUDA backend runs it with a contact stage", what);
  } else {
    printf("  refused: %s\n", st[1].msg);
    CHECK_INT(rc[0], SIM_ERR_SCENE);
    CHECK_INT(rc[1], SIM_ERR_SCENE);
    check_report(!be[0] && !be[1] && strstr(st[1].msg, "exact global solver") &&
                     !strcmp(st[0].msg, st[1].msg) && !strchr(st[1].msg, '\n'),
                 __FILE__, __LINE__, "%s: refused by both backends with the same line", what);
  }
  for (int s = 0; s < 2; s++)
    if (be[s]) be[s]->destroy(be[s]);
  sim_model_free(&m);
}

static void check_scene(double tol_run) {
  check_solver(SIM_GLOBAL_CHOLESKY, 0.0, 1e-12, tol_run);
  check_solver(SIM_GLOBAL_CHOLESKY, 0.5, 1e-12, tol_run);
  check_solver(SIM_GLOBAL_JACOBI, 0.0, 0.0, tol_run);
  check_solver(SIM_GLOBAL_JACOBI, 0.9, 0.0, tol_run);
  check_solver(SIM_GLOBAL_DENSE_INVERSE, 0.0, 0.0, tol_run);
  check_solver(SIM_GLOBAL_DENSE_INVERSE, 0.7, 0.0, tol_run);
  check_solver(SIM_GLOBAL_SPARSE_INVERSE, 0.5, 1e-12, tol_run);
}

int main(void) {
  gpu_or_skip("test_gpu_solvers");
  if (!bar(0)) check_scene(1e-11);
  if (!cloth()) check_scene(1e-11);
  if (!bar(1)) {
    check_contact_rule(SIM_GLOBAL_CHOLESKY, 0.0);
    check_contact_rule(SIM_GLOBAL_DENSE_INVERSE, 0.0);
    check_contact_rule(SIM_GLOBAL_JACOBI, 0.0);
    check_contact_rule(SIM_GLOBAL_SPARSE_INVERSE, 0.5);
    check_contact_rule(SIM_GLOBAL_CHOLESKY, 0.7);
  }
  return check_summary("test_gpu_solvers");
}

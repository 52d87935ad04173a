/* SPDX-License-Identifier: MIT */
/* `simctl converge` (paper Fig. 9): from the state at frame F, K local-global iterations of
   the next step with each global solver; per-iteration relative error
   (e(q_k) - e(q*)) / (e(q_0) - e(q*)) with e the incremental potential and q* the complete
   L-G method (cholesky) iterated until max |q_{k+1} - q_k| < tol. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "../io/output.h"
#include "../simctl.h"
#include "../solve/backend.h"
#include "../solve/stepper.h"

typedef struct variant {
  const char *name;
  sim_global_kind global;
  double rho;
} variant;

/* A backend of kind `g` holding (q_t, v) and predicted for the step to time t_next. */
static int start_step(const sim_model *m, const sim_scene *sc, sim_global_kind g, double rho,
                      const double *qt, const double *v, const double *pins, sim_backend **be,
                      sim_status *st) {
  sim_backend_opts o = {.global = g, .precision = SIM_PREC_DOUBLE, .ordering = sc->solver.ordering,
                        .chebyshev_rho = rho};
  int rc = sim_backend_cpu_create(m, &o, be, st);
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_Q, qt, st);
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_QT, qt, st);
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_V, v, st);
  if (!rc) rc = (*be)->set_pins(*be, pins, st);
  if (!rc) rc = (*be)->predict(*be, sc->gravity, st);
  return rc;
}

/* e(q*) by iterating the complete method until the largest change is below tol. */
static int reference_energy(sim_backend *be, int n, int max_iter, double tol, double *e_star,
                            int *iters, sim_status *st) {
  double *a = SIM_NEW(double, 3 * (size_t)n), *b = SIM_NEW(double, 3 * (size_t)n);
  if (!a || !b) {
    sim_free(a);
    sim_free(b);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (converge)");
  }
  int rc = be->download(be, SIM_VEC_Q, a, st), k = 0;
  double change = INFINITY;
  for (; !rc && k < max_iter && change >= tol; k++) {
    rc = be->local_step(be, st);
    if (!rc) rc = be->global_step(be, st);
    if (!rc) rc = be->download(be, SIM_VEC_Q, b, st);
    change = 0;
    for (int i = 0; i < 3 * n; i++) change = fmax(change, fabs(b[i] - a[i]));
    double *t = a;
    a = b;
    b = t;
  }
  *iters = k;
  *e_star = be->energy(be, NULL);
  sim_free(a);
  sim_free(b);
  return rc;
}

int sim_converge(const sim_scene *sc, const sim_converge_opts *o, FILE *log, sim_status *st) {
  if (sc->solver.threads > 0) omp_set_num_threads(sc->solver.threads);
  sim_model m;
  int rc = sim_model_build(sc, o->cache_dir ? o->cache_dir : sim_cache_dir(), &m, st);
  if (rc) return rc;
  sim_backend *be = NULL;
  sim_stepper s;
  memset(&s, 0, sizeof s);
  size_t n3 = 3 * (size_t)m.n;
  double *qt = SIM_NEW(double, n3), *v = SIM_NEW(double, n3);
  double *pins = SIM_NEW0(double, 3 * (size_t)m.npinned + 3);
  if (!qt || !v || !pins) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (converge)");
  /* 1. run to frame F with the scene's iterations and an exact global solve */
  sim_backend_opts bo = {.global = SIM_GLOBAL_CHOLESKY, .ordering = sc->solver.ordering};
  if (!rc) rc = sim_backend_cpu_create(&m, &bo, &be, st);
  if (!rc) rc = sim_stepper_init(&s, &m, be, st);
  for (int f = 0; !rc && f < o->frame; f++) {
    sim_profile p;
    rc = sim_stepper_step(&s, &p, NULL, st);
  }
  if (!rc) rc = be->download(be, SIM_VEC_QT, qt, st);
  if (!rc) rc = be->download(be, SIM_VEC_V, v, st);
  if (be) be->destroy(be);
  be = NULL;
  double t_next = (o->frame + 1) * m.h;
  for (int p = 0; p < m.npinned; p++) sim_pin_position(&m, p, t_next, &pins[3 * p]);
  /* 2. the reference q* */
  double e_star = 0;
  int ref_iters = 0;
  if (!rc) rc = start_step(&m, sc, SIM_GLOBAL_CHOLESKY, 0, qt, v, pins, &be, st);
  if (!rc) rc = reference_energy(be, m.n, o->ref_max_iterations, o->ref_tol, &e_star, &ref_iters, st);
  if (be) be->destroy(be);
  be = NULL;
  if (!rc && ref_iters >= o->ref_max_iterations)
    rc = sim_fail(st, SIM_ERR_NUMERIC,
                  "converge: the reference did not reach a change below %g in %d iterations",
                  o->ref_tol, o->ref_max_iterations);
  if (!rc) rc = sim_mkdirs(o->out_dir, st);
  variant vars[] = {{"sparse_inverse", SIM_GLOBAL_SPARSE_INVERSE, 0},
                    {"cholesky", SIM_GLOBAL_CHOLESKY, 0},
                    {"jacobi", SIM_GLOBAL_JACOBI, 0},
                    {"jacobi_chebyshev", SIM_GLOBAL_JACOBI, o->chebyshev_rho}};
  sim_csv *sum = rc ? NULL : sim_csv_create("solver,iterations_to_1e-3,ms_to_1e-3,final_error", st);
  if (!rc && !sum) rc = st->code;
  if (!rc && log)
    fprintf(log, "frame %d: reference e(q*) = %.12g after %d iterations (change < %g)\n",
            o->frame, e_star, ref_iters, o->ref_tol);
  /* 3. K iterations of each global solver from the same state */
  for (size_t vi = 0; !rc && vi < sizeof vars / sizeof vars[0]; vi++) {
    rc = start_step(&m, sc, vars[vi].global, vars[vi].rho, qt, v, pins, &be, st);
    sim_csv *t = rc ? NULL : sim_csv_create("iteration,ms,energy,rel_error", st);
    if (!rc && !t) rc = st->code;
    double e0 = rc ? 0 : be->energy(be, NULL), ms = 0, err = 1;
    int hit = -1;
    double hit_ms = NAN;
    if (!rc) {
      double row[4] = {0, 0, e0, 1};
      rc = sim_csv_add_row(t, row, 4, st);
    }
    for (int k = 1; !rc && k <= o->iterations; k++) {
      double a = sim_now_ms();
      rc = be->local_step(be, st);
      if (!rc) rc = be->global_step(be, st);
      ms += sim_now_ms() - a;
      double e = be->energy(be, NULL);
      err = (e - e_star) / (e0 - e_star);
      if (hit < 0 && fabs(err) < 1e-3) {
        hit = k;
        hit_ms = ms;
      }
      double row[4] = {k, ms, e, err};
      if (!rc) rc = sim_csv_add_row(t, row, 4, st);
    }
    char path[SIM_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/converge_%s.csv", o->out_dir, vars[vi].name);
    if (!rc) rc = sim_csv_write(t, path, st);
    sim_csv_destroy(t);
    if (!rc) {
      char it[32], msb[32], fe[32];
      snprintf(it, sizeof it, "%d", hit);
      snprintf(msb, sizeof msb, "%.3f", hit_ms);
      snprintf(fe, sizeof fe, "%.3e", err);
      const char *fields[4] = {vars[vi].name, hit > 0 ? it : "", hit > 0 ? msb : "", fe};
      rc = sim_csv_add_text_row(sum, fields, 4, st);
      if (log)
        fprintf(log, "%-17s %s to 1e-3 (%s ms); error after %d iterations %.3e\n", vars[vi].name,
                hit > 0 ? it : "never", hit > 0 ? msb : "-", o->iterations, err);
    }
    if (be) be->destroy(be);
    be = NULL;
  }
  if (!rc) {
    char path[SIM_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/converge_summary.csv", o->out_dir);
    rc = sim_csv_write(sum, path, st);
  }
  sim_csv_destroy(sum);
  sim_stepper_free(&s);
  sim_free(qt);
  sim_free(v);
  sim_free(pins);
  sim_model_free(&m);
  return rc;
}

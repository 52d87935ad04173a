/* SPDX-License-Identifier: MIT */
/* `simctl converge` (paper Fig. 9): from the state at frame F, K local-global iterations of
   the next step with each global solver; per-iteration relative error
   (e(q_k) - e(q*)) / (e(q_0) - e(q*)) with e the incremental potential (Eq. 1) and q* the
   complete L-G method (cholesky) iterated until max |q_{k+1} - q_k| < tol.
   e(q_k) - e(q*) is summed from differences: with d = q_k - q*, element i contributes
   V_i Psi(F*_i + G_i d) - V_i Psi(F*_i) (F*_i stored once, so F_k is never re-formed from
   absolute positions, which costs about 50 ulp of F), the inertia term
   sum_j m_j/(2h^2) d_j . (d_j + 2 (q*_j - q~_j)). This keeps the error's round-off floor near
   1e-7 instead of 1e-5 (the step changes e by 1e-10 of its value). */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "../contact/stage.h"
#include "../io/output.h"
#include "../model/bending.h"
#include "../simctl.h"
#include "../solve/backend.h"
#include "../solve/local_arap.h"
#include "../solve/material.h"
#include "../solve/stepper.h"
#include "writer.h"

typedef struct variant {
  const char *name;
  sim_global_kind global;
  double rho; /* Chebyshev extrapolation on top of the global step (0 = off) */
} variant;

/* The reference state q* and what the error needs of it. */
typedef struct reference {
  double *q;      /* q*, 3n */
  double *qh;     /* q~, 3n */
  double *F;      /* 9 per element: F*_i */
  double *Rs;     /* 9 per element: ARAP R(F*_i); otherwise Psi(F*_i) in Rs[0] */
  double bend;    /* bending energy at q* */
  double *d, *de; /* scratch: 3n, nelem */
} reference;

/* A backend of kind `g` (on CUDA when `cuda`) holding (q_t, v) and predicted for the step to
   time t_next. */
static int start_step(const sim_model *m, const sim_scene *sc, sim_global_kind g, double rho,
                      int cuda, const double *qt, const double *v, const double *pins,
                      sim_backend **be, sim_status *st) {
  sim_backend_opts o = {.global = g,
                        .precision = SIM_PREC_DOUBLE,
                        .ordering = sc->solver.ordering,
                        .chebyshev_rho = rho,
                        .gpu = sc->solver.gpu};
  int rc = cuda ? sim_backend_cuda_create(m, &o, be, st) : sim_backend_cpu_create(m, &o, be, st);
  if (rc == SIM_ERR_NUMERIC) sim_status_prefix(st, sc->file); /* the scene's numbers: its file */
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_Q, qt, st);
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_QT, qt, st);
  if (!rc) rc = (*be)->upload(*be, SIM_VEC_V, v, st);
  if (!rc) rc = (*be)->set_pins(*be, pins, st);
  if (!rc) rc = (*be)->predict(*be, sc->gravity, st);
  return rc;
}

static sim_material elem_material(const sim_elem *t) {
  sim_material mat = {(sim_material_model)t->model, t->dim, t->mu, t->lambda};
  return mat;
}

/* F*_i and R(F*_i) (ARAP) or Psi(F*_i) for every element. */
static void reference_elements(const sim_model *m, reference *r) {
#pragma omp parallel for schedule(static, 256)
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    double *F = r->F + 9 * (size_t)e, *R = r->Rs + 9 * (size_t)e;
    sim_elem_deformation(t, r->q, F);
    if (t->model == SIM_MAT_ARAP) {
      sim_polar_rotation(F, R);
    } else {
      sim_material mat = elem_material(t);
      R[0] = sim_psi_F(&mat, F);
    }
  }
  r->bend = m->bend->nst > 0 ? sim_bending_energy(m->bend, r->q) : 0.0;
}

/* e(q) - e(q*), from d = q - q*. ARAP: w/2 (|F* + D - R_k|^2 - |F* - R*|^2) written as
   w/2 a:(2 (F* - R*) + a) with a = D - (R_k - R*), over F's dim columns; others
   V (Psi(F* + D) - Psi(F*)). Per-element values are summed in a fixed order. */
static double energy_diff(const sim_model *m, reference *r, const double *q) {
  size_t n3 = 3 * (size_t)m->n;
  double *d = r->d, *de = r->de;
  for (size_t i = 0; i < n3; i++) d[i] = q[i] - r->q[i];
#pragma omp parallel for schedule(static, 256)
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    const double *Fs = r->F + 9 * (size_t)e, *Rs = r->Rs + 9 * (size_t)e;
    double D[9], F[9];
    sim_elem_deformation(t, d, D);
    for (int i = 0; i < 9; i++) F[i] = Fs[i] + D[i];
    if (t->model == SIM_MAT_ARAP) {
      double R[9], s = 0;
      sim_polar_rotation(F, R);
      for (int c = 0; c < 3; c++)
        for (int k = 0; k < t->dim; k++) {
          int i = 3 * c + k;
          double a = D[i] - (R[i] - Rs[i]);
          s += a * (2.0 * (Fs[i] - Rs[i]) + a);
        }
      de[e] = 0.5 * t->w * s;
    } else {
      sim_material mat = elem_material(t);
      de[e] = t->vol * (sim_psi_F(&mat, F) - Rs[0]);
    }
  }
  double el = 0, in = 0;
  for (int e = 0; e < m->nelem; e++) el += de[e];
  for (int f = 0; f < m->nfree; f++) {
    int i = m->free_vert[f];
    double s = 0;
    for (int k = 0; k < 3; k++) {
      double dk = d[3 * i + k];
      s += dk * (dk + 2.0 * (r->q[3 * i + k] - r->qh[3 * i + k]));
    }
    in += m->mass[i] * s;
  }
  double bend = m->bend->nst > 0 ? sim_bending_energy(m->bend, q) - r->bend : 0.0;
  return el + in / (2.0 * m->h * m->h) + bend;
}

/* q* by iterating the complete method until the largest change is below tol; e(q*). */
static int reference_solve(sim_backend *be, int n, int max_iter, double tol, double *qs,
                           double *e_star, int *iters, int *converged, sim_status *st) {
  double *b = SIM_NEW(double, 3 * (size_t)n);
  if (!b) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (converge)");
  int rc = be->download(be, SIM_VEC_Q, qs, st), k = 0;
  double change = INFINITY;
  for (; !rc && k < max_iter && change >= tol; k++) {
    rc = be->local_step(be, st);
    if (!rc) rc = be->global_step(be, st);
    if (!rc) rc = be->download(be, SIM_VEC_Q, b, st);
    change = 0;
    for (int i = 0; i < 3 * n; i++) {
      change = fmax(change, fabs(b[i] - qs[i]));
      qs[i] = b[i];
    }
  }
  *iters = k;
  *converged = change < tol; /* at the last allowed iteration too */
  *e_star = be->energy(be, NULL);
  sim_free(b);
  return rc;
}

/* The variants named in the comma-separated `list` as a bit mask (NULL = every variant);
   an unknown name is a usage error. */
static int select_solvers(const char *list, const variant *vars, int nv, unsigned *mask,
                          sim_status *st) {
  *mask = list ? 0u : (1u << nv) - 1u;
  for (const char *p = list; p;) {
    const char *end = strchr(p, ',');
    int l = end ? (int)(end - p) : (int)strlen(p), hit = -1;
    for (int i = 0; i < nv && hit < 0; i++)
      if ((int)strlen(vars[i].name) == l && strncmp(p, vars[i].name, (size_t)l) == 0) hit = i;
    if (hit < 0)
      return sim_fail(st, SIM_ERR_USAGE,
                      "--solvers: unknown solver '%.*s' (solvers: sparse_inverse, cholesky, "
                      "jacobi, jacobi_chebyshev, cholesky_chebyshev)",
                      l, p);
    *mask |= 1u << hit;
    p = end ? end + 1 : NULL;
  }
  return SIM_OK;
}

/* K iterations of one variant from the predicted state; writes DIR/converge_NAME.csv and a
   summary row. */
static int run_variant(const sim_model *m, const sim_scene *sc, const sim_converge_opts *o,
                       const variant *va, reference *ref, double e_star, const double *qt,
                       const double *v, const double *pins, sim_csv *sum, FILE *log,
                       sim_status *st) {
  sim_backend *be = NULL;
  double *q = SIM_NEW(double, 3 * (size_t)m->n);
  int rc = q ? start_step(m, sc, va->global, va->rho, o->cuda, qt, v, pins, &be, st)
             : sim_fail(st, SIM_ERR_MEMORY, "out of memory (converge)");
  sim_csv *t = rc ? NULL : sim_csv_create("iteration,ms,energy,rel_error", st);
  if (!rc && !t) rc = st->code;
  double e0 = 0, ms = 0, err = 1, hit_ms = NAN;
  int hit = -1;
  if (!rc) rc = be->download(be, SIM_VEC_Q, q, st); /* q~, pins at their targets */
  if (!rc && o->start_previous) { /* q_0 = q_t for the free vertices */
    for (size_t i = 0; i < 3 * (size_t)m->n; i++)
      if (m->free_of[i / 3] >= 0) q[i] = qt[i];
    rc = be->upload(be, SIM_VEC_Q, q, st);
  }
  if (!rc) {
    e0 = energy_diff(m, ref, q);
    double row[4] = {0, 0, e_star + e0, 1};
    rc = sim_csv_add_row(t, row, 4, st);
  }
  if (!rc && !(e0 > 0))
    rc = sim_fail(st, SIM_ERR_NUMERIC,
                  "%s: frame %d: e(q_0) - e(q*) = %g is not positive: q_0 is already converged "
                  "(nothing moves the bodies there: pick another --frame)",
                  m->scene->file, o->frame, e0);
  for (int k = 1; !rc && k <= o->iterations; k++) {
    double a = sim_now_ms();
    rc = be->local_step(be, st);
    if (!rc) rc = be->global_step(be, st);
    double span[SIM_SPAN_COUNT] = {0};
    if (!rc) rc = be->settle(be, span, st); /* the device's queued work done (CUDA) */
    ms += sim_now_ms() - a;
    if (!rc) rc = be->download(be, SIM_VEC_Q, q, st);
    if (rc) break;
    double de = energy_diff(m, ref, q);
    err = de / e0;
    if (hit < 0 && fabs(err) < 1e-3) {
      hit = k;
      hit_ms = ms;
    }
    double row[4] = {k, ms, e_star + de, err};
    rc = sim_csv_add_row(t, row, 4, st);
  }
  char path[SIM_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/converge_%s.csv", o->out_dir, va->name);
  if (!rc) rc = sim_csv_write(t, path, st);
  sim_csv_destroy(t);
  if (!rc) {
    char it[32], msb[32], fe[32], rho[32], per[32];
    snprintf(it, sizeof it, "%d", hit);
    snprintf(msb, sizeof msb, "%.3f", hit_ms);
    snprintf(fe, sizeof fe, "%.3e", err);
    snprintf(rho, sizeof rho, "%g", va->rho);
    snprintf(per, sizeof per, "%.3f", ms / o->iterations);
    const char *fields[7] = {va->name, hit > 0 ? it : "", hit > 0 ? msb : "", fe, rho, per,
                             be->name};
    rc = sim_csv_add_text_row(sum, fields, 7, st);
    if (log)
      fprintf(log,
              "%-18s %5s to 1e-3 (%s ms); error after %d iterations %.3e (%.2f ms/iteration, "
              "%s)\n",
              va->name, hit > 0 ? it : "never", hit > 0 ? msb : "-", o->iterations, err,
              ms / o->iterations, be->device);
  }
  if (be) be->destroy(be);
  sim_free(q);
  return rc;
}

/* A scene with contact, constraint pins or cables takes exact global solvers alone (as a run
   does): the inexact ones named in --solvers are refused before frame F; left out of the
   default set, with a note where the log is kept. */
static int exact_only(const sim_model *m, const sim_converge_opts *o, const variant *vars,
                      int nvars, unsigned *chosen, FILE *log, sim_status *st) {
  char left[160] = "";
  for (int i = 0; i < nvars; i++) {
    sim_status lst = {0};
    if (!(*chosen & (1u << i)) ||
        !sim_contact_stage_check_solver(m, vars[i].global, vars[i].rho, &lst))
      continue;
    if (o->solvers)
      return sim_fail(st, SIM_ERR_USAGE,
                      "--solvers: %s needs a scene without contact, constraint pins or cables, "
                      "and %s has them (exact solvers: sparse_inverse, cholesky)",
                      vars[i].name, m->scene->file);
    *chosen &= ~(1u << i);
    snprintf(left + strlen(left), sizeof left - strlen(left), "%s%s", left[0] ? ", " : "",
             vars[i].name);
  }
  if (left[0] && log)
    fprintf(stderr,
            "simctl: note: %s has contact, constraint pins or cables: %s left out (exact global "
            "solvers alone, as a run takes)\n",
            m->scene->file, left);
  return SIM_OK;
}

int sim_converge(const sim_scene *sc, const sim_converge_opts *o, FILE *log, sim_status *st) {
  variant vars[] = {{"sparse_inverse", SIM_GLOBAL_SPARSE_INVERSE, 0},
                    {"cholesky", SIM_GLOBAL_CHOLESKY, 0},
                    {"jacobi", SIM_GLOBAL_JACOBI, 0},
                    {"jacobi_chebyshev", SIM_GLOBAL_JACOBI, o->chebyshev_rho},
                    {"cholesky_chebyshev", SIM_GLOBAL_CHOLESKY, o->complete_chebyshev_rho}};
  int nvars = (int)(sizeof vars / sizeof vars[0]);
  unsigned chosen;
  if (select_solvers(o->solvers, vars, nvars, &chosen, st)) return st->code;
  char why[SIM_MSG_MAX];
  if (o->cuda && !sim_cuda_available(sc->solver.gpu, why, sizeof why)) /* before frame F */
    return sim_fail(st, SIM_ERR_DEVICE, "%s: %s", o->cuda_from ? o->cuda_from : "--device cuda",
                    why);
  if (sc->solver.threads > 0) omp_set_num_threads(sc->solver.threads);
  sim_model m;
  int rc = sim_model_build(sc, o->cache_dir ? o->cache_dir : sim_cache_dir(), &m, st);
  if (rc) return rc;
  if (!(rc = exact_only(&m, o, vars, nvars, &chosen, log, st)) && !chosen)
    rc = sim_fail(st, SIM_ERR_USAGE, "--solvers: none left to compare"); /* not reached */
  /* the folder's lock, before the run to frame F: a second converge into the folder is refused
     at once; an earlier converge's tables go */
  int lock = -1;
  if (!rc && !(rc = sim_mkdirs(o->out_dir, st))) {
    lock = sim_outputs_claim(o->out_dir, st);
    if (lock == -2 || sim_outputs_clear_converge(o->out_dir, st)) rc = st->code;
  }
  if (rc) {
    sim_outputs_release(lock);
    sim_model_free(&m);
    return rc;
  }
  sim_backend *be = NULL;
  sim_stepper s;
  memset(&s, 0, sizeof s);
  size_t n3 = 3 * (size_t)m.n, e9 = 9 * (size_t)m.nelem + 9;
  double *qt = SIM_NEW(double, n3), *v = SIM_NEW(double, n3);
  double *pins = SIM_NEW0(double, 3 * (size_t)m.npinned + 3);
  reference ref = {0};
  ref.q = SIM_NEW(double, n3);
  ref.qh = SIM_NEW(double, n3);
  ref.F = SIM_NEW(double, e9);
  ref.Rs = SIM_NEW(double, e9);
  ref.d = SIM_NEW(double, n3);
  ref.de = SIM_NEW(double, m.nelem + 1);
  if (!qt || !v || !pins || !ref.q || !ref.qh || !ref.F || !ref.Rs || !ref.d || !ref.de)
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (converge)");
  /* 1. run to frame F with the scene's iterations and an exact global solve */
  sim_backend_opts bo = {.global = SIM_GLOBAL_CHOLESKY, .ordering = sc->solver.ordering};
  if (!rc) rc = sim_backend_cpu_create(&m, &bo, &be, st);
  if (rc == SIM_ERR_NUMERIC) sim_status_prefix(st, sc->file); /* the scene's numbers: its file */
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
  /* 2. the reference q*, from q_0 = q~ (what every frame of a run starts from) */
  double e_star = 0;
  int ref_iters = 0, ref_converged = 0;
  if (!rc) rc = start_step(&m, sc, SIM_GLOBAL_CHOLESKY, 0, 0, qt, v, pins, &be, st);
  if (!rc) rc = be->download(be, SIM_VEC_QTILDE, ref.qh, st);
  if (!rc)
    rc = reference_solve(be, m.n, o->ref_max_iterations, o->ref_tol, ref.q, &e_star, &ref_iters,
                         &ref_converged, st);
  if (be) be->destroy(be);
  be = NULL;
  if (!rc && !ref_converged)
    rc = sim_fail(st, SIM_ERR_NUMERIC,
                  "%s: frame %d: the reference did not reach a change below %g in %d "
                  "iterations (raise --ref-max or --ref-tol)",
                  sc->file, o->frame, o->ref_tol, o->ref_max_iterations);
  if (!rc) reference_elements(&m, &ref);
  sim_csv *sum = rc ? NULL
                    : sim_csv_create(
                          "solver,iterations_to_1e-3,ms_to_1e-3,final_error,rho,"
                          "ms_per_iteration,backend",
                          st);
  if (!rc && !sum) rc = st->code;
  if (!rc && log)
    fprintf(log, "frame %d: reference e(q*) = %.12g after %d iterations (change < %g)%s\n",
            o->frame, e_star, ref_iters, o->ref_tol,
            m.admm ? "; note: ADMM-PD duals start at zero in every solver" : "");
  /* 3. K iterations of each global solver from the same state */
  for (int vi = 0; !rc && vi < nvars; vi++)
    if (chosen & (1u << vi))
      rc = run_variant(&m, sc, o, &vars[vi], &ref, e_star, qt, v, pins, sum, log, st);
  if (!rc) {
    char path[SIM_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/converge_summary.csv", o->out_dir);
    rc = sim_csv_write(sum, path, st);
  }
  sim_csv_destroy(sum);
  sim_outputs_release(lock);
  sim_stepper_free(&s);
  void *arrays[] = {qt, v, pins, ref.q, ref.qh, ref.F, ref.Rs, ref.d, ref.de};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) sim_free(arrays[i]);
  sim_model_free(&m);
  return rc;
}

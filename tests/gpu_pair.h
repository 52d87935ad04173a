/* SPDX-License-Identifier: MIT */
/* The GPU tests' set-up: one model with a CPU and a CUDA backend built from the same scene and
   options, the relative difference of two arrays, random inputs, and the SKIPPED exit (77) where
   no CUDA device can run. Shared by the GPU tests. */
#ifndef SIM_TEST_GPU_PAIR_H
#define SIM_TEST_GPU_PAIR_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/solve/backend.h"
#include "check.h"
#include "scene/scene.h"

#define SIM_TEST_SKIP 77

/* Exits with SKIPPED (77) and the reason when no CUDA device is usable. Standard output is
   made line-buffered first: a program stopped by a time limit (scripts/gpu_report.sh's
   budget) keeps in its log every line it printed. */
static inline void gpu_or_skip(const char *name) {
  char why[256];
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!sim_cuda_available(0, why, sizeof why)) {
    printf("%s: SKIPPED: %s\n", name, why);
    exit(SIM_TEST_SKIP);
  }
  printf("%s: %s\n", name, why);
}

typedef struct gpu_pair {
  sim_model m;
  sim_backend *cpu, *gpu;
  int ok;
} gpu_pair;

/* Both backends with options o, from the scene's model changed by `edit` (NULL: as built)
   before either backend reads it; prints failures. */
static inline int gpu_pair_open_edited(gpu_pair *g, const sim_scene *sc, const sim_backend_opts *o,
                                       void (*edit)(sim_model *m)) {
  sim_status st = {0};
  memset(g, 0, sizeof *g);
  int rc = sim_model_build(sc, NULL, &g->m, &st);
  if (!rc && edit) edit(&g->m);
  if (!rc) rc = sim_backend_cpu_create(&g->m, o, &g->cpu, &st);
  if (!rc) rc = sim_backend_cuda_create(&g->m, o, &g->gpu, &st);
  if (rc) fprintf(stderr, "gpu_pair_open (%s): %s\n", sc->name, st.msg);
  CHECK_INT(rc, SIM_OK);
  g->ok = rc == SIM_OK;
  return rc;
}

/* Both backends with options o; prints failures. */
static inline int gpu_pair_open_with(gpu_pair *g, const sim_scene *sc, const sim_backend_opts *o) {
  return gpu_pair_open_edited(g, sc, o, NULL);
}

/* Both backends on the sparse inverse in precision p, METIS ordering; prints failures. */
static inline int gpu_pair_open(gpu_pair *g, const sim_scene *sc, sim_precision p) {
  sim_backend_opts o = {
      .global = SIM_GLOBAL_SPARSE_INVERSE, .precision = p, .ordering = SIM_ORDER_METIS};
  return gpu_pair_open_with(g, sc, &o);
}

static inline void gpu_pair_close(gpu_pair *g) {
  if (g->gpu) g->gpu->destroy(g->gpu);
  if (g->cpu) g->cpu->destroy(g->cpu);
  sim_model_free(&g->m);
  memset(g, 0, sizeof *g);
}

/* max |a - b| over n values; infinite where a value is NaN (fmax would drop it). */
static inline double max_diff(const double *a, const double *b, size_t n) {
  double d = 0.0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (e != e) return INFINITY;
    d = fmax(d, e);
  }
  return d;
}

/* max |a - b| / max |b| over n values (max |a - b| where b is all zero; infinite on NaN). */
static inline double rel_diff(const double *a, const double *b, size_t n) {
  double d = max_diff(a, b, n), s = 0.0;
  for (size_t i = 0; i < n; i++) s = fmax(s, fabs(b[i]));
  return s > 0.0 ? d / s : d;
}

/* Uniform in [-1, 1) from a fixed 64-bit LCG (the same inputs on every run). */
static inline double rnd(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* An inline scene (tests/json_fmt.h) into *sc, named `file` in messages; prints failures. */
static inline int pair_load_scene(sim_scene *sc, const char *text, const char *file) {
  sim_status st = {0};
  int rc = sim_scene_load_string(text, file, NULL, 0, sc, &st);
  if (rc) fprintf(stderr, "scene: %s\n", st.msg);
  CHECK_INT(rc, SIM_OK);
  return rc;
}

/* The same host vector into both backends. */
static inline void upload_both(gpu_pair *g, sim_vec_id id, const double *x) {
  sim_status st = {0};
  CHECK_INT(g->cpu->upload(g->cpu, id, x, &st), SIM_OK);
  CHECK_INT(g->gpu->upload(g->gpu, id, x, &st), SIM_OK);
}

/* rel_diff of a state vector or buffer between the backends, checked against tol. */
static inline void pair_compare(gpu_pair *g, int is_buf, int id, double tol, const char *what) {
  sim_status st = {0};
  size_t n = is_buf ? sim_buffer_len(&g->m, (sim_buf_id)id) : 3 * (size_t)g->m.n;
  double *a = SIM_NEW(double, n + 1), *b = SIM_NEW(double, n + 1);
  int rc = is_buf ? g->gpu->read_buffer(g->gpu, (sim_buf_id)id, a, &st)
                  : g->gpu->download(g->gpu, (sim_vec_id)id, a, &st);
  if (!rc)
    rc = is_buf ? g->cpu->read_buffer(g->cpu, (sim_buf_id)id, b, &st)
                : g->cpu->download(g->cpu, (sim_vec_id)id, b, &st);
  CHECK_INT(rc, SIM_OK);
  double d = rel_diff(a, b, n);
  printf("  %-28s %-10s n %8zu  rel diff %.2e\n", g->m.scene->name, what, n, d);
  check_report(d <= tol, __FILE__, __LINE__, "%s %s: rel diff %.3g <= %g", g->m.scene->name, what,
               d, tol);
  sim_free(a);
  sim_free(b);
}

/* Random state: positions within 10% of the body's size of rest, velocities, pin targets. */
static inline void random_state(gpu_pair *g, unsigned long long *seed) {
  const sim_model *m = &g->m;
  size_t n3 = 3 * (size_t)m->n;
  double *x = SIM_NEW(double, n3 + 3), *pins = SIM_NEW(double, 3 * (size_t)m->npinned + 3);
  for (int k = 0; k < 2; k++) { /* q_t, then q (and q~) */
    for (size_t i = 0; i < n3; i++) x[i] = m->x_rest[i] + 0.05 * rnd(seed);
    upload_both(g, k == 0 ? SIM_VEC_QT : SIM_VEC_Q, x);
    if (k == 1) upload_both(g, SIM_VEC_QTILDE, x);
  }
  for (size_t i = 0; i < n3; i++) x[i] = rnd(seed);
  upload_both(g, SIM_VEC_V, x);
  for (int p = 0; p < m->npinned; p++)
    for (int k = 0; k < 3; k++)
      pins[3 * p + k] = m->x_rest[3 * (size_t)m->pinned[p] + k] + 0.05 * rnd(seed);
  sim_status st = {0};
  CHECK_INT(g->cpu->set_pins(g->cpu, pins, &st), SIM_OK);
  CHECK_INT(g->gpu->set_pins(g->gpu, pins, &st), SIM_OK);
  sim_free(x);
  sim_free(pins);
}

#endif

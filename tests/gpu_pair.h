/* SPDX-License-Identifier: MIT */
/* The GPU tests' set-up: one model with a CPU and a CUDA backend built from the same scene and
   options, the relative difference of two arrays, random inputs, and the SKIPPED exit (77) where
   no CUDA device can run. Shared by test_gpu_backend.c and test_gpu_runs.c. */
#ifndef SIM_TEST_GPU_PAIR_H
#define SIM_TEST_GPU_PAIR_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/solve/backend.h"
#include "check.h"
#include "scene/scene.h"

#define SIM_TEST_SKIP 77

/* Exits with SKIPPED (77) and the reason when no CUDA device is usable. */
static inline void gpu_or_skip(const char *name) {
  char why[256];
  if (!sim_cuda_available(why, sizeof why)) {
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

/* Both backends on the sparse inverse in precision p, METIS ordering; prints failures. */
static inline int gpu_pair_open(gpu_pair *g, const sim_scene *sc, sim_precision p) {
  sim_status st = {0};
  memset(g, 0, sizeof *g);
  int rc = sim_model_build(sc, NULL, &g->m, &st);
  sim_backend_opts o = {
      .global = SIM_GLOBAL_SPARSE_INVERSE, .precision = p, .ordering = SIM_ORDER_METIS};
  if (!rc) rc = sim_backend_cpu_create(&g->m, &o, &g->cpu, &st);
  if (!rc) rc = sim_backend_cuda_create(&g->m, &o, &g->gpu, &st);
  if (rc) fprintf(stderr, "gpu_pair_open (%s): %s\n", sc->name, st.msg);
  CHECK_INT(rc, SIM_OK);
  g->ok = rc == SIM_OK;
  return rc;
}

static inline void gpu_pair_close(gpu_pair *g) {
  if (g->gpu) g->gpu->destroy(g->gpu);
  if (g->cpu) g->cpu->destroy(g->cpu);
  sim_model_free(&g->m);
  memset(g, 0, sizeof *g);
}

/* Largest extent of the rest configuration (m): the scale of position differences. */
static inline double model_extent(const sim_model *m) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < m->n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], m->x_rest[3 * i + k]);
      hi[k] = fmax(hi[k], m->x_rest[3 * i + k]);
    }
  return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
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

#endif

/* SPDX-License-Identifier: MIT */
/* Running a contact scene step by step for the physical contact tests: the scene from inline
   JSON (' for "), the local-global fixture with the exact global solver (CHOLMOD), host copies
   of q and v, the multipliers, and what the steps reported (smallest min_gap, most contacts). */
#ifndef SIM_TEST_CONTACT_RUN_H
#define SIM_TEST_CONTACT_RUN_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/solve/backend.h"
#include "../core/solve/stepper.h"
#include "check.h"
#include "json_fmt.h"
#include "lg_fixture.h"
#include "scene/scene.h"

#define G 9.81
#define DEG (3.14159265358979323846 / 180)

static sim_scene g_scene; /* large: keep it off the stack */


/* One simulation: the fixture plus host buffers and what the steps reported. */
typedef struct run {
  lg_ctx c;
  int ok;
  double *q, *v, *lam;
  int lam_cap;
  sim_profile prof;  /* the last step's */
  double min_gap;    /* smallest prof.min_gap over the steps */
  int max_contacts;  /* most contacts in a step */
} run;

/* The rest of run_open and run_open_file: the fixture and buffers for the scene loaded (rc
   its load's status, st its message, `what` naming it there). */
static inline int run_setup(run *r, int rc, const char *what, const sim_status *st) {
  if (!rc) rc = lg_setup(&r->c, &g_scene, SIM_GLOBAL_CHOLESKY, 0);
  if (rc) {
    fprintf(stderr, "%s: %s\n", what, st->msg);
    CHECK_INT(rc, SIM_OK);
    return rc;
  }
  int n = r->c.m.n;
  r->q = malloc(sizeof(double) * 3 * n);
  r->v = malloc(sizeof(double) * 3 * n);
  r->ok = 1;
  return 0;
}

static inline int run_open(run *r, const char *text) {
  sim_status st = {0};
  memset(r, 0, sizeof *r);
  r->min_gap = INFINITY;
  int rc = sim_scene_load_string(text, "test_contact_physics.json", NULL, 0, &g_scene, &st);
  return run_setup(r, rc, "scene", &st);
}

/* A scene file (a shipped one: "../scenes/NAME.json" from tests/) with nov overrides. */
static inline int run_open_file(run *r, const char *path, const char *const *ov, int nov) {
  sim_status st = {0};
  memset(r, 0, sizeof *r);
  r->min_gap = INFINITY;
  int rc = sim_scene_load(path, ov, nov, &g_scene, &st);
  return run_setup(r, rc, path, &st);
}

static inline void run_close(run *r) {
  if (r->ok) lg_teardown(&r->c);
  free(r->q);
  free(r->v);
  free(r->lam);
  memset(r, 0, sizeof *r);
}

/* k steps; 0 on success (a failing step is reported once). */
static inline int run_steps(run *r, int k) {
  if (!r->ok) return -1;
  sim_status st = {0};
  for (int i = 0; i < k; i++) {
    int rc = sim_stepper_step(&r->c.s, &r->prof, NULL, &st);
    if (rc) {
      fprintf(stderr, "step %d: %s\n", r->c.s.step, st.msg);
      CHECK_INT(rc, SIM_OK);
      r->ok = 0;
      lg_teardown(&r->c);
      return rc;
    }
    if (r->prof.min_gap < r->min_gap) r->min_gap = r->prof.min_gap;
    if (r->prof.contacts > r->max_contacts) r->max_contacts = r->prof.contacts;
  }
  return 0;
}

static inline void run_fetch(run *r) {
  sim_status st = {0};
  r->c.be->download(r->c.be, SIM_VEC_Q, r->q, &st);
  r->c.be->download(r->c.be, SIM_VEC_V, r->v, &st);
}

/* Mass-weighted mean of 3-vectors a over body b's vertices (after run_fetch). */
static inline void body_mean(const run *r, const double *a, int b, double out[3]) {
  const sim_model *m = &r->c.m;
  double M = 0;
  out[0] = out[1] = out[2] = 0;
  for (int i = m->body_vert_start[b]; i < m->body_vert_start[b + 1]; i++) {
    M += m->mass[i];
    for (int k = 0; k < 3; k++) out[k] += m->mass[i] * a[3 * i + k];
  }
  for (int k = 0; k < 3; k++) out[k] /= M;
}

/* Where p lies over triangle (a, b, c) seen along y: 1, and *h = p's height over the
   triangle's plane there; else 0 (outside it, or the triangle edge-on). */
static inline int over_triangle(const double *p, const double *a, const double *b, const double *c,
                                double *h) {
  const double d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
  if (fabs(d) < 1e-14) return 0;
  const double l1 = ((b[2] - c[2]) * (p[0] - c[0]) + (c[0] - b[0]) * (p[2] - c[2])) / d,
               l2 = ((c[2] - a[2]) * (p[0] - c[0]) + (a[0] - c[0]) * (p[2] - c[2])) / d,
               l3 = 1 - l1 - l2;
  if (l1 < 0 || l2 < 0 || l3 < 0) return 0;
  *h = p[1] - (l1 * a[1] + l2 * b[1] + l3 * c[1]);
  return 1;
}

/* The last step's multipliers (3 per contact of s.world.out); their number of contacts. */
static inline int run_lambda(run *r) {
  int nc = r->c.s.world.out.n;
  if (nc <= 0) return 0;
  if (nc > r->lam_cap) {
    free(r->lam);
    r->lam = malloc(sizeof(double) * 3 * nc);
    r->lam_cap = nc;
  }
  sim_status st = {0};
  int rc = r->c.be->contact_lambda(r->c.be, r->lam, &st);
  CHECK_INT(rc, SIM_OK);
  return rc ? 0 : nc;
}

static inline int all_finite(const double *a, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* ---- the 0.2 m ARAP box on a plane y = 0 ---- */

#endif

/* SPDX-License-Identifier: MIT */
/* Random contacts for the Delassus tests (test_delassus.c, test_gpu_delassus.c): obstacle and
   body contacts with orthonormal frames, and cables with random terms, from rand(). */
#ifndef SIM_TEST_CONTACT_GEN_H
#define SIM_TEST_CONTACT_GEN_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/contact.h"

static inline double gen_rnd(void) { return rand() / (double)RAND_MAX - 0.5; }

static inline void gen_unit(double *a) {
  double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int d = 0; d < 3; d++) a[d] /= s;
}

/* contact j on vertex v: obstacle (j even) or body with 3 random triangle vertices (j odd) */
static inline void make_contact(sim_contact *k, int j, int v, int n) {
  memset(k, 0, sizeof *k);
  k->v = v;
  for (int d = 0; d < 3; d++) k->n[d] = gen_rnd();
  gen_unit(k->n);
  double a[3] = {fabs(k->n[0]) > 0.8 ? 0 : 1, fabs(k->n[0]) > 0.8 ? 1 : 0, 0};
  k->t1[0] = k->n[1] * a[2] - k->n[2] * a[1];
  k->t1[1] = k->n[2] * a[0] - k->n[0] * a[2];
  k->t1[2] = k->n[0] * a[1] - k->n[1] * a[0];
  gen_unit(k->t1);
  k->t2[0] = k->t1[1] * k->n[2] - k->t1[2] * k->n[1];
  k->t2[1] = k->t1[2] * k->n[0] - k->t1[0] * k->n[2];
  k->t2[2] = k->t1[0] * k->n[1] - k->t1[1] * k->n[0];
  if (j % 2 == 0) {
    k->kind = SIM_CONTACT_OBSTACLE;
    k->tri[0] = k->tri[1] = k->tri[2] = -1;
  } else {
    k->kind = SIM_CONTACT_BODY;
    double w0 = rand() / (double)RAND_MAX, w1 = (1 - w0) * rand() / (double)RAND_MAX;
    k->w[0] = w0, k->w[1] = w1, k->w[2] = 1 - w0 - w1;
    for (int t = 0; t < 3; t++) k->tri[t] = rand() % n;
  }
}

/* contact j as a cable (contact.h CABLE) with nt random terms: distinct vertices, random
   3-vectors (its row is not a direction times a vertex combination) */
static inline void make_cable(sim_contact *k, sim_cable_row *row, int nt, int n) {
  memset(k, 0, sizeof *k);
  k->kind = SIM_CONTACT_CABLE;
  k->tri[0] = k->tri[1] = k->tri[2] = -1;
  row->nt = nt;
  for (int t = 0; t < nt; t++) {
    int v, dup;
    do {
      v = rand() % n, dup = 0;
      for (int u = 0; u < t; u++) dup |= row->vert[u] == v;
    } while (dup);
    row->vert[t] = v;
    for (int d = 0; d < 3; d++) row->g[t][d] = gen_rnd();
  }
  k->v = row->vert[0];
  k->cable = row;
}

#endif

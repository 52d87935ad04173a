/* SPDX-License-Identifier: MIT */
/* Contact rows: H x and H^T l against a dense H built by hand from contact.h's definition,
   the adjoint identity <H x, l> = <x, H^T l>, pinned vertices, and the targets. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/contact/rows.h"
#include "check.h"

static double rnd(void) { return rand() / (double)RAND_MAX - 0.5; }

static double dot_n(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void unit(double *a) {
  double s = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (int d = 0; d < 3; d++) a[d] /= s;
}

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* cables' rows for random_contacts (every 10th contact, from j = 5) */
static sim_cable_row g_cable[256];

/* random contacts on n vertices: even j obstacle/mesh (j = 2 mod 8 an obstacle's contact with
   an edge's point), odd j body (4 vertices), and j = 5 mod 10 a cable with 1 + j % 7 terms (random
   vertices, repeats allowed, random 3-vectors) */
static void random_contacts(sim_contact *c, int nc, int n) {
  memset(c, 0, sizeof(sim_contact) * (size_t)nc);
  for (int j = 0; j < nc; j++) {
    sim_contact *k = &c[j];
    if (j % 10 == 5 && j / 10 < 256) {
      sim_cable_row *row = &g_cable[j / 10];
      k->kind = SIM_CONTACT_CABLE;
      k->tri[0] = k->tri[1] = k->tri[2] = -1;
      row->nt = 1 + j % 7;
      for (int t = 0; t < row->nt; t++) {
        row->vert[t] = rand() % n;
        for (int d = 0; d < 3; d++) row->g[t][d] = rnd();
      }
      row->target = rnd();
      k->v = row->vert[0];
      k->cable = row;
      continue;
    }
    k->v = rand() % n;
    for (int d = 0; d < 3; d++) k->n[d] = rnd();
    unit(k->n);
    double a[3] = {1, 0, 0};
    if (fabs(k->n[0]) > 0.8) a[0] = 0, a[1] = 1;
    cross(k->n, a, k->t1);
    unit(k->t1);
    cross(k->t1, k->n, k->t2); /* (t1, t2, n) right-handed */
    if (j % 2 == 0) {
      k->kind = j % 4 == 0 ? SIM_CONTACT_OBSTACLE : SIM_CONTACT_MESH;
      k->tri[0] = k->tri[1] = k->tri[2] = -1;
      for (int d = 0; d < 3; d++) k->p[d] = rnd(), k->u[d] = rnd();
      if (j % 8 == 2) { /* an edge's point: (1 - s) q_v + s q_tri0 */
        k->kind = SIM_CONTACT_OBSTACLE_EDGE;
        k->tri[0] = rand() % n;
        k->w[0] = rand() / (double)RAND_MAX;
      }
    } else {
      k->kind = SIM_CONTACT_BODY;
      double w0 = rand() / (double)RAND_MAX, w1 = (1 - w0) * rand() / (double)RAND_MAX;
      k->w[0] = w0, k->w[1] = w1, k->w[2] = 1 - w0 - w1;
      for (int t = 0; t < 3; t++) k->tri[t] = rand() % n;
    }
    k->mu = 0.3;
  }
}

/* dense H (3 nc x 3 ncol) straight from contact.h: H_r q = c_r . (q_v - sum_k w_k q_tri_k) */
static void dense_h(const sim_contact *c, int nc, const int *free_of, int ncol, double *H) {
  memset(H, 0, sizeof(double) * 9 * (size_t)nc * ncol);
  for (int j = 0; j < nc; j++) {
    if (c[j].kind == SIM_CONTACT_CABLE) { /* row 0: g_t on vertex vert_t; rows 1, 2 empty */
      const sim_cable_row *row = c[j].cable;
      for (int t = 0; t < row->nt; t++) {
        int u = free_of ? free_of[row->vert[t]] : row->vert[t];
        if (u >= 0)
          for (int d = 0; d < 3; d++) H[3 * (size_t)j * 3 * ncol + 3 * u + d] += row->g[t][d];
      }
      continue;
    }
    const double *dirs[3] = {c[j].n, c[j].t1, c[j].t2};
    for (int r = 0; r < 3; r++) {
      double *row = H + (3 * (size_t)j + r) * 3 * ncol;
      int v = free_of ? free_of[c[j].v] : c[j].v;
      if (c[j].kind == SIM_CONTACT_OBSTACLE_EDGE) {
        int u = free_of ? free_of[c[j].tri[0]] : c[j].tri[0];
        for (int d = 0; d < 3 && v >= 0; d++) row[3 * v + d] += (1 - c[j].w[0]) * dirs[r][d];
        for (int d = 0; d < 3 && u >= 0; d++) row[3 * u + d] += c[j].w[0] * dirs[r][d];
        continue;
      }
      if (v >= 0)
        for (int d = 0; d < 3; d++) row[3 * v + d] += dirs[r][d];
      if (c[j].kind != SIM_CONTACT_BODY) continue;
      for (int t = 0; t < 3; t++) {
        int u = free_of ? free_of[c[j].tri[t]] : c[j].tri[t];
        if (u >= 0)
          for (int d = 0; d < 3; d++) row[3 * u + d] -= c[j].w[t] * dirs[r][d];
      }
    }
  }
}

static void check_against_dense(int n, int nc, int with_pins) {
  sim_contact *c = malloc(sizeof(sim_contact) * (size_t)nc);
  random_contacts(c, nc, n);
  int *free_of = NULL, ncol = n;
  if (with_pins) {
    free_of = malloc(sizeof(int) * (size_t)n);
    ncol = 0;
    for (int i = 0; i < n; i++) free_of[i] = (i % 3 == 1) ? -1 : ncol++;
  }
  int nr = 3 * nc, nx = 3 * ncol;
  double *H = malloc(sizeof(double) * (size_t)nr * nx);
  dense_h(c, nc, free_of, ncol, H);
  double *x = malloc(sizeof(double) * nx), *l = malloc(sizeof(double) * nr);
  double *y = malloc(sizeof(double) * nr), *f = malloc(sizeof(double) * nx);
  double *yd = calloc(nr, sizeof(double)), *fd = calloc(nx, sizeof(double));
  for (int i = 0; i < nx; i++) x[i] = rnd(), f[i] = 0.25; /* apply_T accumulates */
  for (int i = 0; i < nr; i++) l[i] = rnd();
  for (int i = 0; i < nr; i++)
    for (int k = 0; k < nx; k++) yd[i] += H[(size_t)i * nx + k] * x[k];
  for (int k = 0; k < nx; k++) {
    fd[k] = 0.25;
    for (int i = 0; i < nr; i++) fd[k] += H[(size_t)i * nx + k] * l[i];
  }
  sim_rows_apply(c, nc, free_of, x, y);
  sim_rows_apply_T(c, nc, free_of, l, f);
  double ey = 0, ef = 0;
  for (int i = 0; i < nr; i++) ey = fmax(ey, fabs(y[i] - yd[i]));
  for (int k = 0; k < nx; k++) ef = fmax(ef, fabs(f[k] - fd[k]));
  CHECK(ey < 1e-13);
  CHECK(ef < 1e-13);
  /* adjoint: <H x, l> = <x, H^T l> */
  double a = 0, b = 0;
  for (int i = 0; i < nr; i++) a += y[i] * l[i];
  for (int k = 0; k < nx; k++) b += x[k] * (f[k] - 0.25);
  CHECK_NEAR(a, b, 1e-12 * (1 + fabs(a)));
  /* pinned vertices: H_free x ignores them, the full H sees them */
  if (with_pins) {
    int pv = 1; /* pinned */
    sim_contact one = c[0];
    one.kind = SIM_CONTACT_OBSTACLE;
    one.v = pv;
    double full[3] = {0, 0, 0}, q[3 * 4] = {0}, out[3];
    q[3 * pv + 0] = 2, q[3 * pv + 1] = -1, q[3 * pv + 2] = 0.5;
    sim_rows_apply(&one, 1, NULL, q, full);
    CHECK_NEAR(full[0], dot_n(one.n, q + 3 * pv), 1e-15);
    double xf[3 * 30];
    for (int i = 0; i < 3 * 30; i++) xf[i] = 1.0;
    sim_rows_apply(&one, 1, free_of, xf, out);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0);
  }
  /* a cable's targets: its length on row 0, nothing on the empty rows */
  double *d = malloc(sizeof(double) * nr);
  sim_rows_targets(c, nc, 0.01, d);
  int cables = 0;
  for (int j = 0; j < nc; j++)
    if (c[j].kind == SIM_CONTACT_CABLE) {
      cables++;
      CHECK(d[3 * j] == c[j].cable->target && d[3 * j + 1] == 0 && d[3 * j + 2] == 0);
      CHECK(sim_rows_terms(&c[j], (int[4]){0}, (double[4]){0}) == 0);
    }
  CHECK(cables >= nc / 10);
  /* an edge's point against an obstacle: an obstacle's targets (n . p + min_sep, c_r . u) */
  int edges = 0;
  for (int j = 0; j < nc; j++)
    if (c[j].kind == SIM_CONTACT_OBSTACLE_EDGE) {
      edges++;
      CHECK_NEAR(d[3 * j], dot_n(c[j].n, c[j].p) + 0.01, 1e-15);
      CHECK_NEAR(d[3 * j + 1], dot_n(c[j].t1, c[j].u), 1e-15);
      CHECK_NEAR(d[3 * j + 2], dot_n(c[j].t2, c[j].u), 1e-15);
    }
  CHECK(edges >= nc / 10);
  free(d);
  free(c), free(free_of), free(H), free(x), free(l), free(y), free(f), free(yd), free(fd);
}

/* a hand-made obstacle contact and body contact: rows and targets by hand */
static void check_by_hand(void) {
  sim_contact c[2];
  memset(c, 0, sizeof c);
  c[0].kind = SIM_CONTACT_OBSTACLE;
  c[0].v = 2;
  c[0].tri[0] = c[0].tri[1] = c[0].tri[2] = -1;
  double n0[3] = {0, 0, 1}, t10[3] = {1, 0, 0}, t20[3] = {0, 1, 0};
  memcpy(c[0].n, n0, sizeof n0), memcpy(c[0].t1, t10, sizeof t10), memcpy(c[0].t2, t20, sizeof t20);
  c[0].p[0] = 0.3, c[0].p[1] = -0.2, c[0].p[2] = 0.7;
  c[0].u[0] = 1.5, c[0].u[1] = -2.0, c[0].u[2] = 9.0;
  c[1].kind = SIM_CONTACT_BODY;
  c[1].v = 0;
  c[1].tri[0] = 1, c[1].tri[1] = 3, c[1].tri[2] = 2;
  c[1].w[0] = 0.5, c[1].w[1] = 0.25, c[1].w[2] = 0.25;
  double n1[3] = {1, 0, 0}, t11[3] = {0, 1, 0}, t21[3] = {0, 0, 1};
  memcpy(c[1].n, n1, sizeof n1), memcpy(c[1].t1, t11, sizeof t11), memcpy(c[1].t2, t21, sizeof t21);
  c[1].u[0] = 7; /* ignored for bodies */
  /* q_i = (i, 10 i, 100 i) */
  double q[12];
  for (int i = 0; i < 4; i++) q[3 * i] = i, q[3 * i + 1] = 10 * i, q[3 * i + 2] = 100 * i;
  double y[6];
  sim_rows_apply(c, 2, NULL, q, y);
  CHECK_NEAR(y[0], 200, 1e-14); /* n . q_2 */
  CHECK_NEAR(y[1], 2, 1e-14);
  CHECK_NEAR(y[2], 20, 1e-14);
  /* q_0 - (0.5 q_1 + 0.25 q_3 + 0.25 q_2) = -(1.75, 17.5, 175) */
  CHECK_NEAR(y[3], -1.75, 1e-14);
  CHECK_NEAR(y[4], -17.5, 1e-13);
  CHECK_NEAR(y[5], -175, 1e-12);
  double d[6];
  sim_rows_targets(c, 2, 0.01, d);
  CHECK_NEAR(d[0], 0.71, 1e-15);
  CHECK_NEAR(d[1], 1.5, 1e-15);
  CHECK_NEAR(d[2], -2.0, 1e-15);
  CHECK_NEAR(d[3], 0.01, 1e-15);
  CHECK(d[4] == 0 && d[5] == 0);
  /* H^T l on the body contact: +c on v, -w_k c on the triangle */
  double l[6] = {0, 0, 0, 2, 0, 0}, f[12] = {0};
  sim_rows_apply_T(c, 2, NULL, l, f);
  CHECK_NEAR(f[0], 2, 1e-15);
  CHECK_NEAR(f[3], -1, 1e-15);
  CHECK_NEAR(f[6], -0.5, 1e-15);
  CHECK_NEAR(f[9], -0.5, 1e-15);
  CHECK(f[1] == 0 && f[2] == 0);
  /* pinned triangle vertex 3 drops out of H_free */
  int free_of[4] = {0, 1, 2, -1};
  double yf[6];
  sim_rows_apply(c, 2, free_of, q, yf); /* q's first 3 vertices serve as the free vector */
  CHECK_NEAR(yf[3], 0 - 0.5 * 1 - 0.25 * 2, 1e-14);
  CHECK_NEAR(yf[0], 200, 1e-14);
}

/* apply_T accumulates in a fixed order: two calls give bitwise equal results */
static void check_deterministic(void) {
  int n = 50, nc = 2000;
  sim_contact *c = malloc(sizeof(sim_contact) * (size_t)nc);
  random_contacts(c, nc, n);
  double *l = malloc(sizeof(double) * 3 * nc), *f1 = calloc(3 * n, sizeof(double));
  double *f2 = calloc(3 * n, sizeof(double));
  for (int i = 0; i < 3 * nc; i++) l[i] = rnd();
  sim_rows_apply_T(c, nc, NULL, l, f1);
  sim_rows_apply_T(c, nc, NULL, l, f2);
  CHECK(memcmp(f1, f2, sizeof(double) * 3 * n) == 0);
  free(c), free(l), free(f1), free(f2);
}

int main(void) {
  srand(11);
  check_by_hand();
  check_against_dense(30, 40, 0);
  check_against_dense(30, 40, 1);
  check_against_dense(200, 700, 1); /* above the parallel threshold */
  check_deterministic();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_rows");
}

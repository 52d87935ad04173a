/* SPDX-License-Identifier: MIT */
/* Cables embedded in tetrahedra (cable.h): location at rest, the pull script, the length. */
#include "cable.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"

/* Barycentric weights of p in tetrahedron e (rest positions): (p - X0) = Dm (b1, b2, b3), and
   g_1..g_3 are the rows of Dm^{-1} (model.h), so b_a = g_a . (p - X0), b0 = 1 - b1 - b2 - b3.
   Returns the smallest. */
static double bary(const sim_model *m, const sim_elem *t, const double p[3], double b[4]) {
  const double *x0 = &m->x_rest[3 * (size_t)t->v[0]];
  double r[3] = {p[0] - x0[0], p[1] - x0[1], p[2] - x0[2]};
  b[0] = 1.0;
  for (int a = 1; a < 4; a++) {
    b[a] = t->g[a][0] * r[0] + t->g[a][1] * r[1] + t->g[a][2] * r[2];
    b[0] -= b[a];
  }
  double lo = b[0];
  for (int a = 1; a < 4; a++) lo = fmin(lo, b[a]);
  return lo;
}

static int locate(sim_model *m, int c, int i, sim_status *st) {
  const sim_scene *sc = m->scene;
  const sim_cable_def *d = &sc->cables[c];
  sim_cable *k = &m->cable[c];
  const double *p = d->points[i];
  double best = -HUGE_VAL, b[4];
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    if (m->elem_body[e] != d->body || t->dim != 3) continue;
    double lo = bary(m, t, p, b);
    if (lo > best) {
      best = lo;
      memcpy(k->vert[i], t->v, sizeof k->vert[i]);
      memcpy(k->beta[i], b, sizeof k->beta[i]);
    }
  }
  if (best >= -1e-9) return SIM_OK;
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: cables.%d.points.%d: (%g, %g, %g) is outside body %d (%s): expected a "
                  "point inside its tetrahedra (nearest barycentric weight %.3g)",
                  sc->file, c, i, p[0], p[1], p[2], d->body, sc->bodies[d->body].name, best);
}

int sim_cables_build(sim_model *m, sim_status *st) {
  const sim_scene *sc = m->scene;
  m->ncable = sc->ncables;
  if (m->ncable == 0) return SIM_OK;
  m->cable = SIM_NEW0(sim_cable, m->ncable);
  if (!m->cable) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (cables)");
  for (int c = 0; c < m->ncable; c++) {
    const sim_cable_def *d = &sc->cables[c];
    sim_cable *k = &m->cable[c];
    k->def = d;
    k->npoints = d->npoints;
    int b = d->body, cloth = 1;
    for (int e = 0; e < m->nelem; e++)
      if (m->elem_body[e] == b && m->elems[e].dim == 3) cloth = 0;
    if (cloth)
      return sim_fail(st, SIM_ERR_SCENE,
                      "%s: cables.%d.body: body %d (%s) has no tetrahedra: expected a solid body",
                      sc->file, c, b, sc->bodies[b].name);
    for (int i = 0; i < d->npoints; i++) {
      int rc = locate(m, c, i, st);
      if (rc) return rc;
    }
    k->rest_length = sim_cable_length(k, m->x_rest, NULL);
  }
  return SIM_OK;
}

double sim_cable_pull(const sim_cable_def *d, double t) {
  if (d->nkeys == 0) return 0.0;
  if (t <= d->key_time[0]) return d->key_time[0] > 0.0 ? d->key_pull[0] * fmax(t, 0.0) /
                                                             d->key_time[0]
                                                       : d->key_pull[0];
  for (int j = 1; j < d->nkeys; j++)
    if (t < d->key_time[j]) {
      double a = (t - d->key_time[j - 1]) / (d->key_time[j] - d->key_time[j - 1]);
      return d->key_pull[j - 1] + a * (d->key_pull[j] - d->key_pull[j - 1]);
    }
  return d->key_pull[d->nkeys - 1];
}

double sim_cable_length(const sim_cable *c, const double *x, double (*grad)[3]) {
  double p[SIM_MAX_CABLE_POINTS][3], L = 0.0;
  for (int i = 0; i < c->npoints; i++) {
    for (int d = 0; d < 3; d++) p[i][d] = 0.0;
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 3; d++) p[i][d] += c->beta[i][k] * x[3 * (size_t)c->vert[i][k] + d];
    if (grad) grad[i][0] = grad[i][1] = grad[i][2] = 0.0;
  }
  for (int i = 0; i + 1 < c->npoints; i++) {
    double s[3] = {p[i + 1][0] - p[i][0], p[i + 1][1] - p[i][1], p[i + 1][2] - p[i][2]};
    double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    L += len;
    if (!grad || len == 0.0) continue;
    for (int d = 0; d < 3; d++) {
      grad[i + 1][d] += s[d] / len;
      grad[i][d] -= s[d] / len;
    }
  }
  return L;
}

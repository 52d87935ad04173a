/* SPDX-License-Identifier: MIT */
/* Constraint pins as bilateral rows (contact.h SIM_CONTACT_BILATERAL; the paper's H_b,
   Eqs. 15b, 17a; DESIGN.md Sec. 6) on a small Neo-Hookean bar hanging under gravity, no
   obstacles, exact global solver (CHOLMOD):
   - hard (compliance 0): the pinned vertices sit on their targets, the pin forces carry the
     whole bar's weight m g once at rest, and the free vertices agree with the same scene with
     the pin eliminated;
   - compliant (E > 0): each pinned vertex sits E lambda from its target (x = p - E lambda),
     so the mean sag is E (total pin force) / count;
   - moving (a pulling script): the pinned vertices follow the target at every step;
   - with a floor: detection's contacts and the pin's in one list sorted by key.
   Every test prints its measured figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/contact.h"
#include "base/alloc.h"
#include "contact_run.h"

/* A 0.1 x 0.3 x 0.1 m bar (3 x 7 x 3 vertices, 3 kg), its top face (y = 0.3) in the pin box. */
static const char *bar_scene(const char *mode, double compliance, double speed) {
  static char script[160];
  if (speed > 0)
    snprintf(script, sizeof script,
             "[{'type': 'pulling', 'direction': [1, 0, 0], 'speed': %.17g, 'length': 0.05}]",
             speed);
  else
    snprintf(script, sizeof script, "[]");
  return json(
      "{'name': 'bar', 'solver': {'dt': 0.01, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [0, -9.81, 0],"
      " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [-0.05, 0, -0.05],"
      "   'hi': [0.05, 0.3, 0.05], 'vertices': [3, 7, 3]},"
      "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 1e6,"
      "   'poisson_ratio': 0.3}}],"
      " 'pins': [{'body': 0, 'box': [-0.1, 0.29, -0.1, 0.1, 0.31, 0.1], 'mode': '%s',"
      "   'compliance': %.17g, 'script': %s}],"
      " 'contact': {'cr_iterations': 40, 'newton_tolerance': 1e-12},"
      " 'output': {'formats': []}}",
      mode, compliance, script);
}

/* Over the last step's bilateral contacts (after run_fetch, run_lambda): the largest
   |x - (p - E lambda)| (the row residual), the largest |x - p|, sum of lambda_y, mean sag
   p_y - x_y, and the count. */
typedef struct pin_figures {
  double resid, offset, sum_ly, sag, rel_resid;
  int count;
} pin_figures;

static pin_figures pin_measure(run *r) {
  pin_figures f = {0};
  int nc = run_lambda(r);
  const sim_contact *c = r->c.s.world.out.c;
  for (int j = 0; j < nc; j++) {
    if (c[j].kind != SIM_CONTACT_BILATERAL) continue;
    const double *x = r->q + 3 * (size_t)c[j].v, *lam = r->lam + 3 * (size_t)j;
    for (int k = 0; k < 3; k++) {
      double want = c[j].p[k] - c[j].compliance * lam[k], res = fabs(x[k] - want);
      f.resid = fmax(f.resid, res);
      f.offset = fmax(f.offset, fabs(x[k] - c[j].p[k]));
      double scale = fabs(c[j].compliance * lam[k]);
      if (scale > 0) f.rel_resid = fmax(f.rel_resid, res / scale);
    }
    f.sum_ly += lam[1];
    f.sag += c[j].p[1] - x[1];
    f.count++;
  }
  if (f.count) f.sag /= f.count;
  return f;
}

static void test_hard_pin(void) {
  printf("hard_pin_holds_bar\n");
  run r, e;
  if (run_open(&r, bar_scene("constraint", 0, 0))) return;
  const sim_model *m = &r.c.m;
  printf("  vertices %d, constraint-pinned %d, eliminated %d, mass %.6g kg\n", m->n, m->ncpin,
         m->npinned, m->total_mass);
  CHECK_INT(m->ncpin, 9);
  CHECK_INT(m->npinned, 0);
  CHECK_INT(m->nfree, m->n);
  double worst = 0;
  for (int f = 0; f < 100 && r.ok; f++) { /* 1 s */
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    worst = fmax(worst, pin_measure(&r).offset);
  }
  if (!r.ok) return;
  pin_figures pf = pin_measure(&r);
  double mg = m->total_mass * G;
  printf(
      "  after 1 s: pins %d, max |x - p| %.3g m (worst over the steps %.3g m),"
      " sum lambda_y %.9g N, m g %.9g N (rel %.3g)\n",
      pf.count, pf.offset, worst, pf.sum_ly, mg, (pf.sum_ly - mg) / mg);
  CHECK_INT(pf.count, 9);
  CHECK(pf.offset <= 1e-8);
  CHECK(worst <= 1e-8);
  CHECK_NEAR(pf.sum_ly, mg, 5e-3 * mg);

  /* the same bar with the pin eliminated */
  double *q = malloc(sizeof(double) * 3 * (size_t)m->n);
  memcpy(q, r.q, sizeof(double) * 3 * (size_t)m->n);
  int n = m->n;
  run_close(&r);
  if (run_open(&e, bar_scene("eliminate", 0, 0)) == 0 && run_steps(&e, 100) == 0) {
    run_fetch(&e);
    double diff = 0;
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) diff = fmax(diff, fabs(q[3 * i + k] - e.q[3 * i + k]));
    printf("  eliminated pin (%d pinned): max |x_constraint - x_eliminate| %.3g m\n", e.c.m.npinned,
           diff);
    CHECK_INT(e.c.m.npinned, 9);
    CHECK(diff <= 1e-3);
  }
  run_close(&e);
  free(q);
}

static void test_compliant_pin(void) {
  printf("compliant_pin_sags\n");
  const double E = 1e-3; /* m/N: about 3.3 N per vertex, so 3.3 mm */
  run r;
  if (run_open(&r, bar_scene("constraint", E, 0))) return;
  run_steps(&r, 200); /* 2 s: at rest */
  if (!r.ok) return;
  run_fetch(&r);
  pin_figures pf = pin_measure(&r);
  double mg = r.c.m.total_mass * G, want = E * pf.sum_ly / pf.count;
  printf(
      "  pins %d, max |x - (p - E lambda)| %.3g m (rel %.3g), mean sag %.9g m,"
      " E sum(lambda_y) / count %.9g m, E m g / count %.9g m, sum lambda_y %.9g N (m g %.9g)\n",
      pf.count, pf.resid, pf.rel_resid, pf.sag, want, E * mg / pf.count, pf.sum_ly, mg);
  CHECK_INT(pf.count, 9);
  CHECK(pf.rel_resid <= 1e-6);
  CHECK_NEAR(pf.sag, want, 1e-6 * want);
  CHECK(pf.sag > 1e-3 && pf.sag < 1e-2);
  CHECK_NEAR(pf.sum_ly, mg, 5e-3 * mg);
  run_close(&r);
}

static void test_moving_pin(void) {
  printf("moving_pin_drags_bar\n");
  const double speed = 0.1; /* m/s along x for 0.5 s */
  run r;
  if (run_open(&r, bar_scene("constraint", 0, speed))) return;
  const sim_model *m = &r.c.m;
  double worst = 0, c0[3], c1[3] = {0, 0, 0};
  run_fetch(&r);
  body_mean(&r, r.q, 0, c0);
  for (int f = 1; f <= 80 && r.ok; f++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    double t = f * m->h;
    for (int k = 0; k < m->ncpin; k++) { /* against the script itself */
      double p[3];
      sim_cpin_position(m, k, t, p);
      for (int d = 0; d < 3; d++)
        worst = fmax(worst, fabs(r.q[3 * (size_t)m->cpin_vert[k] + d] - p[d]));
    }
  }
  if (!r.ok) return;
  body_mean(&r, r.q, 0, c1);
  printf(
      "  0.8 s: max |x - target| over the steps %.3g m, centroid moved dx %.5f m"
      " (pin 0.05 m)\n",
      worst, c1[0] - c0[0]);
  CHECK(worst <= 1e-6);
  CHECK(c1[0] - c0[0] > 0.03);
  run_close(&r);
}

/* A hard constraint pin at the top and a floor under the bottom (the bar squeezed 1 mm by a
   pin pushing down): the floor's contacts and the pin's bilateral ones in one list, sorted by
   (vertex, kind, source) as the warm start needs; the pin holds, the floor is not passed. */
static void test_pin_with_floor(void) {
  printf("pin_with_floor\n");
  run r;
  if (run_open(&r, json("{'name': 'bar', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [-0.05, 0,"
                        "   -0.05], 'hi': [0.05, 0.3, 0.05], 'vertices': [3, 7, 3]},"
                        "   'material': {'model': 'neo_hookean', 'density': 1000,"
                        "   'youngs_modulus': 1e6, 'poisson_ratio': 0.3}}],"
                        " 'pins': [{'body': 0, 'box': [-0.1, 0.29, -0.1, 0.1, 0.31, 0.1],"
                        "   'mode': 'constraint', 'script': [{'type': 'pulling',"
                        "   'direction': [0, -1, 0], 'speed': 0.01, 'length': 0.001}]}],"
                        " 'contact': {'cr_iterations': 40, 'newton_tolerance': 1e-12},"
                        " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0],"
                        "   'mu': 0.5}], 'output': {'formats': []}}")))
    return;
  run_steps(&r, 50);
  if (!r.ok) return;
  run_fetch(&r);
  const sim_detect_contacts *o = &r.c.s.world.out;
  int sorted = 1;
  for (int j = 1; j < o->n; j++) sorted &= sim_contact_key_cmp(&o->c[j - 1], &o->c[j]) < 0;
  pin_figures pf = pin_measure(&r);
  double floor_n = 0;
  for (int j = 0; j < o->n; j++)
    if (o->c[j].kind == SIM_CONTACT_OBSTACLE) floor_n += r.lam[3 * j];
  printf(
      "  contacts %d (floor %d, pins %d), sorted %d, max |x - p| %.3g m, min gap %.3g m,"
      " floor force %.6g N, pin force sum lambda_y %.6g N (m g %.6g N)\n",
      o->n, o->count[SIM_CONTACT_OBSTACLE], o->count[SIM_CONTACT_BILATERAL], sorted, pf.offset,
      r.min_gap, floor_n, pf.sum_ly, r.c.m.total_mass * G);
  CHECK(sorted);
  CHECK_INT(o->count[SIM_CONTACT_BILATERAL], 9);
  CHECK_INT(o->count[SIM_CONTACT_OBSTACLE], 9);
  CHECK(pf.offset <= 1e-8);
  CHECK(r.min_gap >= -1e-4);
  CHECK(floor_n > r.c.m.total_mass * G); /* the weight and the squeeze */
  CHECK(pf.sum_ly < 0);                  /* the pin pushes down */
  run_close(&r);
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  test_hard_pin();
  test_compliant_pin();
  test_moving_pin();
  test_pin_with_floor();
  CHECK_INT(sim_mem_in_use(), mem0);
  return check_summary("test_bilateral");
}

/* SPDX-License-Identifier: MIT */
/* Cables (contact.h SIM_CONTACT_CABLE; core/model/cable.h; the paper's soft-gripper cables,
   DESIGN.md Sec. 6): a string through points embedded in a bar, held at a target length by one
   bilateral row of the contact solve.
   - the pull keys and the length's gradient (finite differences), the embedding (the points
     are reproduced at rest), an outside point refused with its scene path;
   - a bar 0.02 x 0.12 x 0.02 m pinned at its base (Neo-Hookean, E 5e5, nu 0.2, the paper's
     finger material), a cable 5 mm off its axis: unpulled, nothing moves; pulled 4 mm, a hard
     cable sits at its target length, is in tension and bends the bar towards its side, by
     about what Euler-Bernoulli beam theory gives for the tension's moment; a compliant one
     sits at L_target - E_c lambda; released, the bar straightens;
   - the same bar floating free (no pins, no gravity): the cable's force is internal, so the
     centre of mass stays where it was;
   - a hard cable in high tension (the grabbing_raptor finger) comes to rest;
   - two such fingers close on a soft box and lift it by friction (not without friction, not
     unpulled);
   - what the host reads of the positions where a device detects: the cable's vertices first
     (at q_t and q~), then the constraint pins' others (at q_t).
   Every test prints its measured figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/contact/contact.h"
#include "../core/model/cable.h"
#include "base/alloc.h"
#include "contact/world.h"
#include "contact_run.h"

#define E_MOD 5e5
#define HALF 0.01  /* the bar's half width, m */
#define LEN 0.12   /* its length along y, m */
#define OFFSET 0.005 /* the cable's distance from the axis, m */
#define PULL 0.004

/* A cable's 12 points [x, y0 + i dy, 0] as JSON array items (6 digits), into buf. */
static const char *cable_points(char *buf, size_t size, double x, double y0, double dy) {
  int n = 0;
  for (int i = 0; i < 12; i++)
    n += snprintf(buf + n, size - (size_t)n, "%s[%g, %g, 0]", i ? ", " : "", x, y0 + i * dy);
  return buf;
}

/* The bar, vertices 5 x 25 x 5 (5 mm spacing; fine = 0: 3 x 13 x 3, whose two tetrahedra
   across lock in bending: half the beam's deflection); the cable at x = OFFSET through 12
   points from y = 0.005 to 0.115; keys: ramp to PULL by 0.3 s, hold to 0.8 s, back to 0 by
   1.1 s. */
static const char *bar_scene(int pinned, double compliance, int pulled, int fine) {
  static char pts[1024];
  cable_points(pts, sizeof pts, OFFSET, 0.005, 0.01);
  return json(
      "{'name': 'finger', 'solver': {'dt': 0.01, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [0, 0, 0],"
      " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [%g, 0, %g],"
      "   'hi': [%g, %g, %g], 'vertices': %s},"
      "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': %g,"
      "   'poisson_ratio': 0.2}}],"
      " 'pins': [%s],"
      " 'cables': [{'body': 0, 'points': [%s], 'compliance': %.17g,"
      "   'pull': %s}],"
      " 'contact': {'cr_iterations': 40, 'newton_tolerance': 1e-12},"
      " 'output': {'formats': []}}",
      -HALF, -HALF, HALF, LEN, HALF, fine ? "[5, 25, 5]" : "[3, 13, 3]", E_MOD,
      pinned ? "{'body': 0, 'box': [-1, -0.001, -1, 1, 0.001, 1]}" : "", pts, compliance,
      pulled ? "[[0.3, 0.004], [0.8, 0.004], [1.1, 0]]" : "[]");
}

/* The cable contact of the last step and its multiplier (after run_lambda); -1 if none. */
static int cable_contact(run *r, double *lambda) {
  int nc = run_lambda(r);
  for (int j = 0; j < nc; j++)
    if (r->c.s.world.out.c[j].kind == SIM_CONTACT_CABLE) {
      *lambda = r->lam[3 * j];
      CHECK(r->lam[3 * j + 1] == 0 && r->lam[3 * j + 2] == 0); /* its empty rows */
      return j;
    }
  return -1;
}

static double tip_dx(const run *r) { /* mean x of the top face (y = LEN) */
  const sim_model *m = &r->c.m;
  double s = 0;
  int k = 0;
  for (int i = 0; i < m->n; i++)
    if (m->x_rest[3 * i + 1] > LEN - 1e-9) s += r->q[3 * i] - m->x_rest[3 * i], k++;
  return s / k;
}

static double max_move(const run *r) {
  const sim_model *m = &r->c.m;
  double e = 0;
  for (int i = 0; i < 3 * m->n; i++) e = fmax(e, fabs(r->q[i] - m->x_rest[i]));
  return e;
}

static void check_keys_and_gradient(void) {
  sim_cable_def d;
  memset(&d, 0, sizeof d);
  CHECK(sim_cable_pull(&d, 1.0) == 0.0); /* no keys: no pull */
  d.nkeys = 3;
  double kt[3] = {0.3, 0.8, 1.1}, kp[3] = {0.004, 0.004, 0.0};
  memcpy(d.key_time, kt, sizeof kt), memcpy(d.key_pull, kp, sizeof kp);
  CHECK(sim_cable_pull(&d, 0.0) == 0.0);
  CHECK_NEAR(sim_cable_pull(&d, 0.15), 0.002, 1e-15); /* ramp from (0, 0) to the first key */
  CHECK_NEAR(sim_cable_pull(&d, 0.5), 0.004, 1e-15);
  CHECK_NEAR(sim_cable_pull(&d, 0.95), 0.002, 1e-15);
  CHECK(sim_cable_pull(&d, 5.0) == 0.0);
  d.key_time[0] = 0.0; /* a first key at t = 0 holds from the start */
  CHECK(sim_cable_pull(&d, 0.0) == 0.004);
  /* length and gradient on 4 random points, each in a random "tetrahedron" of 7 vertices */
  sim_cable c;
  memset(&c, 0, sizeof c);
  c.npoints = 4;
  double x[21];
  srand(5);
  for (int i = 0; i < 21; i++) x[i] = rand() / (double)RAND_MAX;
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++) c.vert[i][k] = (i + 2 * k) % 7, c.beta[i][k] = 0.1 + 0.2 * k;
  double g[SIM_MAX_CABLE_POINTS][3], gf[SIM_MAX_CABLE_POINTS][3];
  double L = sim_cable_length(&c, x, g), e = 0, hom = 0;
  /* dL/dq_v = sum over (i, k) with vert = v of beta_ik g_i, against central differences */
  for (int v = 0; v < 7; v++)
    for (int d3 = 0; d3 < 3; d3++) {
      double an = 0;
      for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
          if (c.vert[i][k] == v) an += c.beta[i][k] * g[i][d3];
      double xs = x[3 * v + d3], h = 1e-6;
      x[3 * v + d3] = xs + h;
      double lp = sim_cable_length(&c, x, gf);
      x[3 * v + d3] = xs - h;
      double lm = sim_cable_length(&c, x, gf);
      x[3 * v + d3] = xs;
      e = fmax(e, fabs((lp - lm) / (2 * h) - an));
      hom += an * xs;
    }
  printf("cable length %.6f, gradient vs central differences %.2e, sum g.x - L %.2e\n", L, e,
         hom - L);
  CHECK(e < 1e-8);
  CHECK(fabs(hom - L) < 1e-12); /* degree-1 homogeneous: H x = L(x) at the point */
}

static void check_embedding(void) {
  run r;
  if (run_open(&r, bar_scene(1, 0.0, 0, 0))) return;
  const sim_model *m = &r.c.m;
  CHECK_INT(m->ncable, 1);
  const sim_cable *c = &m->cable[0];
  double e = 0;
  for (int i = 0; i < c->npoints; i++)
    for (int d = 0; d < 3; d++) {
      double p = 0;
      for (int k = 0; k < 4; k++) p += c->beta[i][k] * m->x_rest[3 * c->vert[i][k] + d];
      e = fmax(e, fabs(p - g_scene.cables[0].points[i][d]));
    }
  printf("embedding: points reproduced to %.2e m, rest length %.6f m\n", e, c->rest_length);
  CHECK(e < 1e-14);
  CHECK_NEAR(c->rest_length, 0.11, 1e-14);
  run_close(&r);
  /* a point outside the bar: refused, naming it */
  sim_scene sc;
  sim_status st = {0};
  char *text = strdup(bar_scene(1, 0.0, 0, 0));
  char *p = strstr(text, "[0.005, 0.045, 0]");
  CHECK(p != NULL);
  if (p) memcpy(p, "[0.025, 0.045, 0]", 17);
  CHECK_INT(sim_scene_load_string(text, "finger.json", NULL, 0, &sc, &st), SIM_OK);
  sim_model mm;
  CHECK_INT(sim_model_build(&sc, NULL, &mm, &st), SIM_ERR_SCENE);
  printf("outside point: %s\n", st.msg);
  CHECK_STR_CONTAINS(st.msg, "finger.json: cables.0.points.4: (0.025, 0.045, 0) is outside body 0");
  free(text);
}

/* Unpulled: the cable holds its rest length and nothing moves. */
static void check_at_rest(void) {
  run r;
  if (run_open(&r, bar_scene(1, 0.0, 0, 0)) || run_steps(&r, 20)) return;
  run_fetch(&r);
  double lam = NAN;
  CHECK(cable_contact(&r, &lam) >= 0);
  printf("unpulled: max |x - x_rest| %.2e m, lambda %.2e N\n", max_move(&r), lam);
  CHECK(max_move(&r) < 1e-12);
  CHECK(fabs(lam) < 1e-9);
  run_close(&r);
}

/* The positions the host reads where a device detects (contact/world.h
   sim_world_host_reads): the cable's vertices first, sorted, read at q~ too, then the
   constraint pins' others, sorted. The base's pins share vertices with the cable's first
   point. */
static void check_host_reads(void) {
  static char pts[1024];
  cable_points(pts, sizeof pts, OFFSET, 0.005, 0.01);
  run r;
  if (run_open(&r, json("{'name': 'reads', 'solver': {'dt': 0.01, 'lg_iterations': 2},"
                        " 'gravity': [0, 0, 0],"
                        " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [%g, 0, %g],"
                        "   'hi': [%g, %g, %g], 'vertices': [3, 13, 3]},"
                        "   'material': {'model': 'arap', 'density': 1000,"
                        "   'youngs_modulus': 1e5, 'poisson_ratio': 0.2}}],"
                        " 'pins': [{'body': 0, 'box': [-1, -0.001, -1, 1, 0.001, 1],"
                        "   'mode': 'constraint'}],"
                        " 'cables': [{'body': 0, 'points': [%s], 'pull': []}],"
                        " 'output': {'formats': []}}",
                        -HALF, -HALF, HALF, LEN, HALF, pts)))
    return;
  const sim_model *m = &r.c.m;
  unsigned char *kind = calloc((size_t)m->n, 1); /* 2: a cable's vertex, 1: a pin's only */
  for (int c = 0; c < m->ncable; c++)
    for (int i = 0; i < m->cable[c].npoints; i++)
      for (int a = 0; a < 4; a++) kind[m->cable[c].vert[i][a]] = 2;
  int shared = 0;
  for (int k = 0; k < m->ncpin; k++) {
    shared += kind[m->cpin_vert[k]] == 2;
    if (!kind[m->cpin_vert[k]]) kind[m->cpin_vert[k]] = 1;
  }
  int want[3] = {0, 0, 0};
  for (int v = 0; v < m->n; v++) want[kind[v]]++;
  const int *vert;
  int npred = -1, n = sim_world_host_reads(&r.c.s.world, &vert, &npred);
  printf("host reads: %d vertices (%d at q~: the cable's; %d constraint pins, %d of them the "
         "cable's too)\n", n, npred, m->ncpin, shared);
  CHECK(m->ncpin > 0 && shared > 0);
  CHECK_INT(npred, want[2]);
  CHECK_INT(n, want[2] + want[1]);
  for (int i = 0; i < n && n == want[2] + want[1]; i++) {
    CHECK_INT(kind[vert[i]], i < npred ? 2 : 1);
    CHECK(i == 0 || i == npred || vert[i - 1] < vert[i]);
  }
  free(kind);
  run_close(&r);
}

/* Pulled by PULL, held: the length, the tension, the bend; then released. */
static void check_pulled(double compliance) {
  run r;
  if (run_open(&r, bar_scene(1, compliance, 1, 1)) || run_steps(&r, 70)) return;
  run_fetch(&r);
  const sim_cable *c = &r.c.m.cable[0];
  double lam = NAN;
  CHECK(cable_contact(&r, &lam) >= 0);
  double L = sim_cable_length(c, r.q, NULL), target = c->rest_length - PULL;
  double resid = L - (target - compliance * lam), dx = tip_dx(&r);
  /* Euler-Bernoulli: moment T d over the cable's span, curvature T d / (E I), I = (2a)^4 / 12;
     the tip (y = LEN) deflects by kappa (y1^2 - y0^2) / 2 + kappa (y1 - y0) (LEN - y1) */
  double T = -lam, I = pow(2 * HALF, 4) / 12, kappa = T * OFFSET / (E_MOD * I);
  double y0 = 0.005, y1 = 0.115;
  double beam = kappa * ((y1 * y1 - y0 * y0) / 2 + (y1 - y0) * (LEN - y1));
  printf("pulled %.0f mm, compliance %g m/N: L - L_target %.3e m, row residual %.2e m, "
         "tension %.3f N, tip dx %.2f mm (beam theory %.2f mm, ratio %.2f)\n",
         PULL * 1e3, compliance, L - target, resid, T, dx * 1e3, beam * 1e3, dx / beam);
  CHECK(T > 0);                     /* tension */
  CHECK(dx > 0);                    /* towards the cable's side */
  /* the row holds to first order in the step's motion (linearised at q_t) */
  CHECK(fabs(resid) < 1e-3 * PULL);
  if (compliance == 0) CHECK(fabs(L - target) < 1e-3 * PULL);
  else CHECK(L - target > 0.01 * PULL); /* the compliance shows */
  CHECK(dx / beam > 0.5 && dx / beam < 1.5);
  /* released (back to rest length by 1.1 s) and left until 2 s: nearly straight again (it
     still swings a little: implicit Euler damps it slowly) */
  if (compliance > 0 || run_steps(&r, 130)) {
    run_close(&r);
    return;
  }
  run_fetch(&r);
  printf("released: tip dx %.3f mm (held: %.2f mm)\n", tip_dx(&r) * 1e3, dx * 1e3);
  CHECK(fabs(tip_dx(&r)) < 0.1 * dx);
  run_close(&r);
}

/* A hard cable in high tension: the finger of scenes/grabbing_raptor.json alone (a bar
   4.1 x 0.6 x 0.6, 3 x 17 x 3 vertices, mass 1, Neo-Hookean E 5e5, gravity 1; pinned over
   its top 0.5), its cable 0.2 inside the axis pulled by 0.2 over 0.3-1.2 s: a tension in the
   thousands. With the row taken at q_t the finger curled on and flapped out of its plane from
   about 4 s (world_cables.c); taken at q~ it comes to rest (its largest speed 4e-4 at 8 s,
   3e-6 at 12 s). Checked from 4 to 6 s: the centre stays within 1 mm, the speeds small. */
static void check_high_tension(void) {
  char pts[1024];
  cable_points(pts, sizeof pts, -0.2, -0.1, -3.9 / 11);
  run r;
  if (run_open(&r, json("{'name': 'finger', 'solver': {'dt': 0.01, 'global': 'cholesky'},"
                        " 'gravity': [0, -1, 0],"
                        " 'bodies': [{'mesh': {'type': 'bar', 'lo': [-0.3, -4.1, -0.3],"
                        "   'hi': [0.3, 0, 0.3], 'vertices': [3, 17, 3]},"
                        "   'material': {'model': 'neo_hookean', 'mass': 1, 'lumping': 'uniform',"
                        "   'youngs_modulus': 5e5, 'poisson_ratio': 0.2}}],"
                        " 'pins': [{'body': 0, 'box': [-1, -0.5, -1, 1, 1, 1]}],"
                        " 'cables': [{'body': 0, 'points': [%s], 'pull': [[0.3, 0], [1.2, 0.2]]}],"
                        " 'output': {'formats': []}}",
                        pts)) ||
      run_steps(&r, 400))
    return;
  const sim_model *m = &r.c.m;
  double tip0[3], tip1[3], lam = NAN, vmax = 0;
  run_fetch(&r);
  body_mean(&r, r.q, 0, tip0);
  if (run_steps(&r, 200)) return;
  run_fetch(&r);
  body_mean(&r, r.q, 0, tip1);
  for (int i = 0; i < 3 * m->n; i++) vmax = fmax(vmax, fabs(r.v[i]));
  CHECK(cable_contact(&r, &lam) >= 0);
  const sim_cable *c = &m->cable[0];
  double L = sim_cable_length(c, r.q, NULL), target = c->rest_length - 0.2;
  double drift = fmax(fabs(tip1[0] - tip0[0]), fmax(fabs(tip1[1] - tip0[1]), fabs(tip1[2] - tip0[2])));
  printf("high tension: %.0f N, L - L_target %.2e m, centre moved %.2e from 4 to 6 s (at x %.3f, "
         "z %.3f), largest |v| %.2e\n", -lam, L - target, drift, tip1[0], tip1[2], vmax);
  CHECK(-lam > 1000); /* the tension the test is about */
  CHECK(fabs(L - target) < 1e-6);
  /* the old row (at q_t) moved it 1.5 m, at up to 20 m/s; at rest: 3e-4 m, 1e-3 m/s */
  CHECK(drift < 1e-3);
  CHECK(vmax < 1e-2);
  run_close(&r);
}

/* No pins: the cable's force is internal (the row's coefficients sum to 0: sum_i grad_i = 0 and
   each point's weights sum to 1), and 1^T M A^{-1} = 1^T (A 1 = M 1), so the centre of mass
   stays where it was. */
static void check_free_floating(void) {
  run r;
  if (run_open(&r, bar_scene(0, 0.0, 1, 0)) || run_steps(&r, 30)) return;
  run_fetch(&r);
  double c0[3], c1[3], vm[3];
  body_mean(&r, r.c.m.x_rest, 0, c0);
  body_mean(&r, r.q, 0, c1);
  body_mean(&r, r.v, 0, vm);
  double dc = fmax(fabs(c1[0] - c0[0]), fmax(fabs(c1[1] - c0[1]), fabs(c1[2] - c0[2])));
  double dv = fmax(fabs(vm[0]), fmax(fabs(vm[1]), fabs(vm[2])));
  printf("free floating: centre of mass moved %.2e m, mean velocity %.2e m/s, bent %.2f mm\n",
         dc, dv, tip_dx(&r) * 1e3);
  CHECK(dc < 1e-9); /* round-off of 500 solves with A (the sum of H^T lambda is 0 exactly) */
  CHECK(dv < 1e-8);
  run_close(&r);
}

/* Two cable fingers grasp and lift a soft box by friction (the paper's soft gripper,
   DESIGN.md Sec. 8 grabbing_raptor, at a test's size): two bars 0.02 x 0.12 x 0.02 m
   (3 x 13 x 3 vertices) hang from a pin box 5 mm either side of a 4 cm box (4 x 4 x 4
   vertices, Neo-Hookean, E 1e5, 200 kg/m^3: 12.8 g) that stands on a floor; each has a cable
   5 mm inside its axis, pulled by 6 mm from 0.05 to 0.35 s; from 0.5 s the pins rise at
   0.1 m/s for 5 cm. With friction between the bodies (mu) the fingers close on the box and
   carry it up; without friction, or without the pull, it stays on the floor. Returns how far
   the box's centre rose from 0.5 to 1.1 s (the closing fingers squeeze it up a little
   before); *floor_gap: its lowest vertex's height then. */
static double grasp_lift(double mu, double pull, double *floor_gap) {
  char pts[2][1024]; /* 5 mm inside each finger's axis (x = +-0.035) */
  cable_points(pts[0], sizeof pts[0], 0.030, 0.125, -0.01);
  cable_points(pts[1], sizeof pts[1], -0.030, 0.125, -0.01);
  char keys[128];
  snprintf(keys, sizeof keys, "[[0.05, 0], [0.35, %g]]", pull);
  const char *script = "[{'type': 'wait', 'duration': 0.5},"
                       " {'type': 'pulling', 'direction': [0, 1, 0], 'speed': 0.1, 'length': 0.05}]";
  const char *finger_mat = "{'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 5e5,"
                           " 'poisson_ratio': 0.2}";
  run r;
  double rise = NAN;
  *floor_gap = NAN;
  if (run_open(&r, json("{'name': 'grasp', 'solver': {'dt': 0.01, 'lg_iterations': 5,"
                        "  'global': 'cholesky'}, 'gravity': [0, %g, 0],"
                        " 'bodies': ["
                        "  {'name': 'right', 'mesh': {'type': 'bar', 'lo': [0.025, 0.01, -0.01],"
                        "   'hi': [0.045, 0.13, 0.01], 'vertices': [3, 13, 3]}, 'material': %s},"
                        "  {'name': 'left', 'mesh': {'type': 'bar', 'lo': [-0.045, 0.01, -0.01],"
                        "   'hi': [-0.025, 0.13, 0.01], 'vertices': [3, 13, 3]}, 'material': %s},"
                        "  {'name': 'box', 'mesh': {'type': 'bar', 'lo': [-0.02, 0, -0.02],"
                        "   'hi': [0.02, 0.04, 0.02], 'vertices': [4, 4, 4]},"
                        "   'material': {'model': 'neo_hookean', 'density': 200,"
                        "   'youngs_modulus': 1e5, 'poisson_ratio': 0.3}}],"
                        " 'pins': [{'body': 0, 'box': [-1, 0.1249, -1, 1, 1, 1], 'script': %s},"
                        "  {'body': 1, 'box': [-1, 0.1249, -1, 1, 1, 1], 'script': %s}],"
                        " 'cables': [{'body': 0, 'points': [%s], 'pull': %s},"
                        "  {'body': 1, 'points': [%s], 'pull': %s}],"
                        " 'contact': {'margin': 0.003, 'mu': %g},"
                        " 'obstacles': [{'type': 'plane', 'point': [0, -0.0001, 0],"
                        "  'normal': [0, 1, 0], 'mu': 0.5, 'touches': ['box']}],"
                        " 'output': {'formats': []}}",
                        -G, finger_mat, finger_mat, script, script, pts[0], keys, pts[1], keys,
                        mu)) ||
      run_steps(&r, 50))
    return rise;
  run_fetch(&r); /* closed, before the lift */
  const sim_model *m = &r.c.m;
  double c0[3], c1[3], cg[3], low = INFINITY;
  body_mean(&r, m->x_rest, 2, c0);
  body_mean(&r, r.q, 2, cg);
  if (run_steps(&r, 60)) return rise;
  run_fetch(&r);
  body_mean(&r, r.q, 2, c1);
  for (int i = m->body_vert_start[2]; i < m->body_vert_start[3]; i++) low = fmin(low, r.q[3 * i + 1]);
  rise = c1[1] - cg[1], *floor_gap = low;
  printf("grasp (mu %g, pull %g mm): box centre rose %.2f mm while closing, then %.2f mm "
         "(pins 50 mm), lowest vertex at %.2f mm, deepest contact gap %.3f mm, most contacts "
         "%d\n", mu, pull * 1e3, (cg[1] - c0[1]) * 1e3, rise * 1e3, low * 1e3, r.min_gap * 1e3,
         r.max_contacts);
  run_close(&r);
  return rise;
}

static void check_grasp(void) {
  double gap;
  double held = grasp_lift(0.5, 0.006, &gap);
  CHECK(fabs(held - 0.05) < 0.001); /* carried up with the pins, without slipping */
  CHECK(gap > 0.04);                    /* off the floor */
  double slick = grasp_lift(0.0, 0.006, &gap);
  CHECK(fabs(slick) < 0.002); /* no friction: the fingers slide up the box's sides */
  CHECK(gap > -0.0005 && gap < 0.001);
  double open = grasp_lift(0.5, 0.0, &gap);
  CHECK(fabs(open) < 0.002); /* not pulled: the fingers never close on it */
}

/* "test_cable" runs the light checks (unit, also under the sanitizers); "test_cable bend" the
   pulled bar (scene label: ~4 s of simulated time on the fine mesh). */
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bend") == 0) {
    check_pulled(0.0);
    check_pulled(1e-3);
    check_high_tension();
  } else if (argc > 1 && strcmp(argv[1], "grasp") == 0) {
    check_grasp();
  } else {
    check_keys_and_gradient();
    check_embedding();
    check_at_rest();
    check_free_floating();
    check_host_reads();
  }
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_cable");
}

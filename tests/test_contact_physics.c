/* SPDX-License-Identifier: MIT */
/* Physical checks of frictional contact with the exact global solver (CHOLMOD), on small
   meshes: a box at rest on a plane (normal forces = m g, no drift), a sliding box
   (deceleration mu g, stopping distance v0^2 / (2 mu g)), stick and slip on a 10 degree slope
   around mu = tan(10 deg), a box dragged by a spinning cylinder at its surface speed, a box
   carried by a floor its script pulls along, a box pushed by a scripted wall and one swept by
   a scripted paddle, a soft
   ball dropped on a plane and on a box (no penetration beyond the margin), a soft box on a
   soft slab (deformable-deformable contact), a box sliding into an open V trough (a blade's
   side kept from step to step), a box dropped and thrown onto a cloth trampoline (a cloth as a
   solid's target), bitwise determinism over thread counts (W dense and matrix-free), and the
   two forms of W against each other.
   Every test prints its measured figures. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact_run.h"

static const char *box_scene_fj(double gx, double gy, double v0, double mu, const char *precond,
                                const char *fjac) {
  return json(
      "{'name': 'box', 'solver': {'dt': 0.01, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [%.17g, %.17g, 0],"
      " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar', 'lo': [-0.1, 0, -0.1],"
      "   'hi': [0.1, 0.2, 0.1], 'vertices': [4, 4, 4]},"
      "   'material': {'model': 'arap', 'density': 1000, 'youngs_modulus': 1e8,"
      "   'poisson_ratio': 0.3}, 'velocity': [%.17g, 0, 0]}],"
      " 'contact': {'cr_iterations': 24, 'preconditioner': '%s', 'newton_jacobian': '%s'},"
      " 'obstacles': [{'name': 'floor', 'type': 'plane', 'point': [0, 0, 0],"
      "   'normal': [0, 1, 0], 'mu': %.17g}],"
      " 'output': {'formats': []}}",
      gx, gy, v0, precond, fjac, mu);
}

static const char *box_scene(double gx, double gy, double v0, double mu, const char *precond) {
  return box_scene_fj(gx, gy, v0, mu, precond, "lagged");
}

static void test_box_at_rest(void) {
  printf("box_at_rest\n");
  run r;
  if (run_open(&r, box_scene(0, -G, 0, 0.5, "delassus"))) return;
  double c0[3], c1[3] = {0, 0, 0}, maxdev = 0;
  run_fetch(&r);
  body_mean(&r, r.q, 0, c0);
  for (int f = 0; f < 100; f++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    body_mean(&r, r.q, 0, c1);
    for (int k = 0; k < 3; k++) maxdev = fmax(maxdev, fabs(c1[k] - c0[k]));
  }
  if (!r.ok) return;
  int nc = run_lambda(&r);
  double sum_n = 0, sum_t = 0;
  for (int j = 0; j < nc; j++) {
    sum_n += r.lam[3 * j];
    sum_t = fmax(sum_t, hypot(r.lam[3 * j + 1], r.lam[3 * j + 2]));
  }
  double mg = r.c.m.total_mass * G;
  printf("  mass %.6g kg, contacts %d, sum lambda_n %.9g N, m g %.9g N (rel %.3g),"
         " max |lambda_t| %.3g N\n",
         r.c.m.total_mass, nc, sum_n, mg, (sum_n - mg) / mg, sum_t);
  printf("  centroid: max drift %.3g m (dx %.3g dy %.3g dz %.3g at the end), min gap %.3g m\n",
         maxdev, c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2], r.min_gap);
  CHECK_INT(nc, 16); /* the bottom face's 4 x 4 vertices */
  CHECK_NEAR(sum_n, mg, 1e-3 * mg);
  CHECK(maxdev < 1e-5);
  CHECK(r.min_gap >= -1e-4);
  run_close(&r);
}

/* An obstacle's own margin (obstacles[i].margin) over contact.margin, through the scene and
   the contact world: the box at rest has its bottom layer of 16 vertices within 1 cm of the
   floor, and its second layer (6.7 cm up) too within 10 cm. */
static void test_own_margin(void) {
  printf("own_margin\n");
  const double margin[3] = {0.1, 0.01, 0.1}, floor[3] = {-1, 0.1, 0.01}; /* -1: none */
  const int want[3] = {32, 32, 16};
  for (int i = 0; i < 3; i++) {
    char own[40] = "";
    if (floor[i] >= 0) snprintf(own, sizeof own, ", 'margin': %g", floor[i]);
    run r;
    if (run_open(&r, json("{'name': 'box', 'solver': {'dt': 0.01, 'global': 'cholesky'},"
                          " 'bodies': [{'mesh': {'type': 'bar', 'lo': [-0.1, 0, -0.1],"
                          "   'hi': [0.1, 0.2, 0.1], 'vertices': [4, 4, 4]},"
                          "   'material': {'youngs_modulus': 1e8}}],"
                          " 'contact': {'margin': %g},"
                          " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0],"
                          "   'normal': [0, 1, 0]%s}], 'output': {'formats': []}}",
                          margin[i], own)))
      return;
    run_steps(&r, 5);
    printf("  contact.margin %g, the floor's %g: %d contacts at most\n", margin[i], floor[i],
           r.max_contacts);
    CHECK_INT(r.max_contacts, want[i]);
    run_close(&r);
  }
}

static void test_sliding_box(void) {
  printf("sliding_box_decelerates\n");
  const double mu = 0.3, v0 = 1, a = mu * G, h = 0.01;
  run r;
  if (run_open(&r, box_scene(0, -G, v0, mu, "delassus"))) return;
  double x0[3], c[3], vel[3], v10 = 0, v20 = 0;
  run_fetch(&r);
  body_mean(&r, r.q, 0, x0);
  body_mean(&r, r.v, 0, vel);
  printf("  initial centroid velocity %.6g m/s\n", vel[0]);
  double t_stop = -1;
  for (int f = 1; f <= 60; f++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    body_mean(&r, r.v, 0, vel);
    if (f == 10) v10 = vel[0];
    if (f == 20) v20 = vel[0];
    if (t_stop < 0 && vel[0] < 1e-3) t_stop = f * h;
  }
  if (!r.ok) return;
  body_mean(&r, r.q, 0, c);
  double dec = (v10 - v20) / 0.1, dist = c[0] - x0[0], d_th = v0 * v0 / (2 * a);
  printf("  v(0.1) %.6g, v(0.2) %.6g m/s: deceleration %.6g m/s^2 (mu g %.6g, rel %.3g)\n", v10,
         v20, dec, a, (dec - a) / a);
  printf("  stopped (v < 1 mm/s) at t %.3g s (v0 / (mu g) %.4g s); distance %.6g m"
         " (v0^2 / (2 mu g) %.6g, rel %.3g); final v %.3g m/s, dy %.3g, dz %.3g, min gap %.3g\n",
         t_stop, v0 / a, dist, d_th, (dist - d_th) / d_th, vel[0], c[1] - x0[1], c[2] - x0[2],
         r.min_gap);
  CHECK_NEAR(dec, a, 0.03 * a);
  CHECK_NEAR(dist, d_th, 0.05 * d_th);
  CHECK(t_stop > 0 && fabs(t_stop - v0 / a) <= 0.05 * (v0 / a) + h);
  CHECK(fabs(vel[0]) < 1e-3);
  run_close(&r);
}

/* Displacement along the slope after 1 s (NAN on failure), with the friction rows' Jacobian
   fjac (contact.newton_jacobian). */
static double slope_slide_fj(double mu, const char *precond, const char *fjac) {
  run r;
  double th = 10 * DEG;
  if (run_open(&r, box_scene_fj(G * sin(th), -G * cos(th), 0, mu, precond, fjac))) return NAN;
  double x0[3], x1[3];
  run_fetch(&r);
  body_mean(&r, r.q, 0, x0);
  if (run_steps(&r, 100)) return NAN;
  run_fetch(&r);
  body_mean(&r, r.q, 0, x1);
  int nc = run_lambda(&r);
  double sn = 0, st = 0;
  for (int j = 0; j < nc; j++) sn += r.lam[3 * j], st += hypot(r.lam[3 * j + 1], r.lam[3 * j + 2]);
  /* free sliding, implicit Euler: a t (t + h) / 2 with a = g (sin - mu cos) */
  double acc = G * (sin(th) - mu * cos(th)), slide = acc > 0 ? acc * 1.0 * 1.01 / 2 : 0;
  printf(
      "  %-8s %-6s mu %.5f: moved %.4g mm along the slope (free slide %.4g mm; dy %.3g mm),"
      " sum lambda_n %.6g N (m g cos %.6g), sum |lambda_t| %.6g N (m g sin %.6g),"
      " min gap %.3g\n",
      precond, fjac, mu, 1e3 * (x1[0] - x0[0]), 1e3 * slide, 1e3 * (x1[1] - x0[1]), sn,
      r.c.m.total_mass * G * cos(th), st, r.c.m.total_mass * G * sin(th), r.min_gap);
  run_close(&r);
  return x1[0] - x0[0];
}

static double slope_slide(double mu, const char *precond) {
  return slope_slide_fj(mu, precond, "lagged");
}

/* With the friction rows' exact Jacobian (nsn_exact.h) the stiff box sticks 0.001 above
   tan 10 deg, where the lagged system lets it creep about 1.4 mm in 1 s (docs/results.md, *A
   sticking box creeps*), and 0.005 below it slides as a block would: implicit Euler's a t (t + h) /
   2, a = g (sin - mu cos). */
static void test_stick_and_slip_exact(void) {
  printf("stick_and_slip_on_slope, exact friction Jacobian\n");
  const double th = 10 * DEG, mus = tan(th), mu_slip = mus - 0.005;
  const double stick = slope_slide_fj(mus + 0.001, "delassus", "exact");
  const double slip = slope_slide_fj(mu_slip, "delassus", "exact");
  const double want = G * (sin(th) - mu_slip * cos(th)) * 1.0 * 1.01 / 2;
  CHECK(fabs(stick) < 1e-5);
  CHECK_NEAR(slip, want, 0.01 * want);
}

static void test_stick_and_slip(void) {
  printf("stick_and_slip_on_slope (tan 10 deg = %.5f)\n", tan(10 * DEG));
  double mus = tan(10 * DEG);
  double slip = slope_slide(mus - 0.01, "delassus");
  double stick = slope_slide(mus + 0.01, "delassus");
  CHECK(slip > 0.02);
  CHECK(fabs(stick) < 0.002);
  double slip_m = slope_slide(mus - 0.01, "mass");
  double stick_m = slope_slide(mus + 0.01, "mass");
  CHECK(isfinite(slip_m) && isfinite(stick_m));
}

/* ---- a thin box on top of a spinning cylinder ---- */

static void test_rolling_cylinder(void) {
  printf("rolling_cylinder_drags_box\n");
  const double R = 0.5, omega = -0.4, vs = -omega * R; /* surface at the top moves +x */
  run r;
  if (run_open(&r, json("{'name': 'roller', 'solver': {'dt': 0.005, 'lg_iterations': 10,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"
                        "   'lo': [-0.05, 0.5, -0.05], 'hi': [0.05, 0.54, 0.05],"
                        "   'vertices': [3, 2, 3]}, 'material': {'model': 'arap',"
                        "   'density': 500, 'youngs_modulus': 1e6, 'poisson_ratio': 0.3}}],"
                        " 'contact': {'cr_iterations': 24},"
                        " 'obstacles': [{'type': 'cylinder', 'point': [0, 0, 0],"
                        "   'axis': [0, 0, 1], 'radius': %.17g, 'spin': %.17g, 'mu': 0.8}],"
                        " 'output': {'formats': []}}",
                        R, omega)))
    return;
  const sim_model *m = &r.c.m;
  double vb_last = 0, vc_last = 0, c[3] = {0, 0, 0};
  for (int f = 1; f <= 40; f++) { /* 0.2 s */
    if (run_steps(&r, 1)) break;
    if (f % 5) continue;
    run_fetch(&r);
    /* the bottom layer (rest y = 0.5): the vertices that touch */
    double vb = 0, M = 0, vel[3];
    for (int i = 0; i < m->n; i++)
      if (m->x_rest[3 * i + 1] < 0.5 + 1e-9) vb += m->mass[i] * r.v[3 * i], M += m->mass[i];
    vb /= M;
    body_mean(&r, r.v, 0, vel);
    body_mean(&r, r.q, 0, c);
    printf("  t %.3f: bottom vx %.5f, centroid vx %.5f vy %.5f m/s (surface %.3f),"
           " centroid x %.4f y %.4f, contacts %d\n",
           f * 0.005, vb, vel[0], vel[1], vs, c[0], c[1], r.prof.contacts);
    vb_last = vb, vc_last = vel[0];
  }
  if (!r.ok) return;
  CHECK_NEAR(vb_last, vs, 0.1 * vs);
  CHECK_NEAR(vc_last, vs, 0.1 * vs);
  CHECK(c[1] > 0.5);         /* still on top */
  CHECK(r.prof.contacts > 0);
  run_close(&r);
}

/* The scripted obstacles' tests' solver, gravity and body: a stiff 0.2 m box resting on y = 0. */
#define SCRIPTED_BOX                                                                         \
  " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"                                        \
  " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"                                      \
  "   'lo': [-0.1, 0, -0.1], 'hi': [0.1, 0.2, 0.1], 'vertices': [4, 4, 4]},"                 \
  "   'material': {'model': 'arap', 'density': 1000,"                                        \
  "   'youngs_modulus': 1e8, 'poisson_ratio': 0.3}}],"                                       \
  " 'contact': {'cr_iterations': 24},"

/* A floor that its script pulls along +x at vs after a pause carries a box resting on it (mu
   0.8, well above what the acceleration needs): the contacts' obstacle velocity u is the
   script's motion over the step (world.c script_velocities). The plane's geometry does not
   change as it slides within itself, so only u can move the box: without it the box would
   stay where it is. */
static void test_scripted_floor(void) {
  printf("scripted_floor_carries_box\n");
  const double vs = 0.2;
  run r;
  if (run_open(&r, json("{'name': 'belt', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                        SCRIPTED_BOX
                        " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0],"
                        "   'normal': [0, 1, 0], 'mu': 0.8, 'script': [{'type': 'wait',"
                        "   'duration': 0.1}, {'type': 'pulling', 'direction': [1, 0, 0],"
                        "   'speed': %.17g, 'length': 1}]}],"
                        " 'output': {'formats': []}}",
                        vs)))
    return;
  double c0[3], c[3] = {0, 0, 0}, vel[3] = {0, 0, 0}, x_wait = 0;
  run_fetch(&r);
  body_mean(&r, r.q, 0, c0);
  for (int f = 1; f <= 60; f++) { /* 0.6 s: the pause, then 0.5 s of pulling */
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    body_mean(&r, r.v, 0, vel);
    body_mean(&r, r.q, 0, c);
    if (f == 10) x_wait = c[0] - c0[0];
    if (f % 10 == 0)
      printf("  t %.2f: centroid vx %.5f m/s (floor %.2f after 0.1 s), moved %.5f m,"
             " contacts %d\n",
             f * 0.01, vel[0], vs, c[0] - c0[0], r.prof.contacts);
  }
  if (!r.ok) return;
  CHECK(fabs(x_wait) < 1e-6);          /* at rest while the floor waits */
  CHECK_NEAR(vel[0], vs, 0.02 * vs);   /* carried at the floor's speed */
  CHECK_NEAR(c[0] - c0[0], vs * 0.5, 0.1 * vs * 0.5);
  CHECK(r.prof.contacts > 0);
  run_close(&r);
}

/* A stiff box on a frictionless floor, pushed by a wall that its script moves at vs: the box
   goes at the wall's speed without entering it, and the contacts' gaps at each step's start,
   taken against the wall where it was then, stay >= 0 (against its pose at the step's end,
   where the rows hold, they would be -5 mm, the wall's step). Three walls: a box obstacle 20 cm
   thick at 0.5 m/s; one 1 cm thick at 2 m/s, twice its thickness a step; the same as a mesh
   obstacle. Contacts taken where the thin wall ends the step found its far side nearer and the
   wall went through the box (it ended 0.58 m behind it); they take the side the box's vertices
   face at the step's start (detect.h sim_detect_step). */
static void test_pushing_wall(void) {
  static const struct {
    double vs, half;
    int mesh;
  } wall[3] = {{0.5, 0.1, 0}, {2.0, 0.005, 0}, {2.0, 0.005, 1}};
  const double face0 = -0.11;
  for (int k = 0; k < 3; k++) {
    const double vs = wall[k].vs, hw = wall[k].half;
    printf("pushing_wall_moves_box (%s %g m thick, %g m/s)\n", wall[k].mesh ? "mesh" : "box",
           2 * hw, vs);
    char shape[256];
    if (wall[k].mesh) /* the unit cube scaled and moved onto the box's place */
      snprintf(shape, sizeof shape,
               "'type': 'mesh', 'path': 'data/cli/cube.obj', 'transform': {'scale': [%.17g,"
               " 0.3, 0.6], 'translate': [%.17g, -0.05, -0.3]}",
               2 * hw, face0 - 2 * hw);
    else
      snprintf(shape, sizeof shape,
               "'type': 'box', 'center': [%.17g, 0.1, 0], 'half_extents': [%.17g, 0.15, 0.3]",
               face0 - hw, hw);
    run r;
    if (run_open(&r, json("{'name': 'push', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                          SCRIPTED_BOX
                          " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0],"
                          "   'normal': [0, 1, 0]}, {'name': 'wall', %s,"
                          "   'script': [{'type': 'wait', 'duration': 0.05}, {'type': 'pulling',"
                          "   'direction': [1, 0, 0], 'speed': %.17g, 'length': 2}]}],"
                          " 'output': {'formats': []}}",
                          shape, vs)))
      return;
    double vel[3] = {0, 0, 0}, lo = INFINITY, worst = INFINITY;
    for (int f = 1; f <= 40; f++) { /* 0.05 s waiting, then 0.35 s of pushing */
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      body_mean(&r, r.v, 0, vel);
      lo = INFINITY;
      for (int i = 0; i < r.c.m.n; i++) lo = fmin(lo, r.q[3 * i]);
      const double face = face0 + vs * fmax(0.0, f * 0.01 - 0.05);
      worst = fmin(worst, lo - face);
      if (f % 20 == 0)
        printf("  t %.2f: centroid vx %.5f m/s (wall %.2f after 0.05 s), box's back %.5f m"
               " from the wall, contacts %d\n",
               f * 0.01, vel[0], vs, lo - face, r.prof.contacts);
    }
    if (!r.ok) return;
    printf("  closest to the wall %.3g m; min gap at the steps' starts %.3g m\n", worst,
           r.min_gap);
    CHECK_NEAR(vel[0], vs, 0.02 * vs); /* pushed at the wall's speed */
    CHECK(worst >= -1e-4);             /* never inside the wall */
    CHECK(r.min_gap >= -1e-4 && r.min_gap < 1e-3);
    run_close(&r);
  }
}

/* The paddle of test_turning_paddle, analytic (mesh 0) or a mesh obstacle (mesh 1: the unit
   cube of data/cli/cube.obj scaled and moved onto the same box). */
static const char *paddle_scene(int mesh) {
  return json("{'name': 'paddle', 'solver': {'dt': 0.01, 'lg_iterations': 10," SCRIPTED_BOX
              " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0],"
              "   'normal': [0, 1, 0], 'mu': 0.3}, {'name': 'paddle', %s,"
              "   'script': [{'type': 'rolling', 'axis': [0, 1, 0],"
              "   'center': [-0.5, 0, -0.3], 'speed': -90, 'angle': 90}]}],"
              " 'output': {'formats': []}}",
              mesh ? "'type': 'mesh', 'path': 'data/cli/cube.obj', 'transform': {'scale':"
                     " [0.55, 0.3, 0.06], 'translate': [-0.5, -0.05, -0.33]}"
                   : "'type': 'box', 'center': [-0.225, 0.1, -0.3],"
                     " 'half_extents': [0.275, 0.15, 0.03]");
}

/* Signed distance from x to the paddle at time t, however the scene gives it. */
static double paddle_phi(const run *r, int mesh, double t, const double *x) {
  if (!mesh) {
    const sim_obstacle o = sim_world_obstacle_at(&r->c.s.world, 1, t);
    return sim_obstacle_phi(&o, x);
  }
  double v[24], y[3]; /* the cube's corners, then x in its frame (axes from its edges) */
  CHECK_INT(r->c.s.world.mesh[0].nv, 8);
  sim_world_mesh_at(&r->c.s.world, 0, t, v);
  double e[3][3], l[3], c[3];
  for (int a = 0; a < 3; a++) {
    const int to = a == 0 ? 1 : a == 1 ? 3 : 4; /* corners 2, 4, 5 of cube.obj from corner 1 */
    for (int i = 0; i < 3; i++) e[a][i] = v[3 * to + i] - v[i];
    l[a] = sqrt(e[a][0] * e[a][0] + e[a][1] * e[a][1] + e[a][2] * e[a][2]);
  }
  for (int i = 0; i < 3; i++) c[i] = v[i] + 0.5 * (e[0][i] + e[1][i] + e[2][i]);
  double out = 0, in = -INFINITY;
  for (int a = 0; a < 3; a++) {
    y[a] = ((x[0] - c[0]) * e[a][0] + (x[1] - c[1]) * e[a][1] + (x[2] - c[2]) * e[a][2]) / l[a];
    const double d = fabs(y[a]) - 0.5 * l[a];
    out += d > 0 ? d * d : 0;
    in = fmax(in, d);
  }
  return in > 0 ? sqrt(out) : in;
}

/* A paddle (a thin box) that its script turns about a vertical axis at 90 deg/s sweeps the box
   along a floor (mu 0.3); its tip, 0.86 m/s, passes through where the box was. Its velocity at a
   contact point is the script's rotation (world.c script_velocities). The box's vertices never
   end a step inside the paddle (distances to it posed at each step's end by
   sim_world_obstacle_at, sim_world_mesh_at), and the gaps at the steps' starts stay >= 0:
   measured against the paddle where it was then, by a new query (world.c start_gap). Moving
   the gap back along the normal by the paddle's motion read -6.9 mm (analytic) and -4.5 mm
   (mesh) where vertices met the tip, whose motion is tangential; against the paddle at the
   step's end, -8.5 mm. As a mesh obstacle its tip's edge also meets the box's side between the
   vertices (TRIANGLE contacts): the box must not leave faster than the paddle carries it.
   When those contacts took their face where the edge ends the step, 6.5 mm inside the box,
   its points near the top and bottom found those faces nearer and pulled them together: the
   box was thrown at 6.3 m/s and travelled 2.4 m (detect_point.h now takes the face at the
   step's start). */
static void test_turning_paddle(void) {
  for (int mesh = 0; mesh < 2; mesh++) {
    printf("turning_paddle_sweeps_box (%s)\n", mesh ? "mesh" : "analytic");
    run r;
    if (run_open(&r, paddle_scene(mesh))) return;
    double c0[3], c[3] = {0, 0, 0}, prev[3], inside = INFINITY, fastest = 0;
    run_fetch(&r);
    body_mean(&r, r.q, 0, c0);
    memcpy(prev, c0, sizeof prev);
    for (int f = 1; f <= 60; f++) {
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      for (int i = 0; i < r.c.m.n; i++)
        inside = fmin(inside, paddle_phi(&r, mesh, f * 0.01, r.q + 3 * i));
      body_mean(&r, r.q, 0, c);
      fastest = fmax(fastest, hypot(c[0] - prev[0], c[2] - prev[2]) / 0.01);
      memcpy(prev, c, sizeof prev);
    }
    if (!r.ok) return;
    const double moved = hypot(c[0] - c0[0], c[2] - c0[2]);
    printf("  box moved %.4f m, fastest %.3f m/s; nearest a vertex came to the paddle %.3g m;"
           " min gap at the steps' starts %.3g m\n",
           moved, fastest, inside, r.min_gap);
    CHECK(moved > 0.05);     /* swept */
    /* pi/2 rad/s, and the box's centre is never farther from the axis than the tip (0.55 m)
       and the box's half diagonal (0.28 m): 1.3 m/s */
    CHECK(fastest < 1.3);
    CHECK(inside >= -1e-4);
    CHECK(r.min_gap >= -1e-4);
    run_close(&r);
  }
}

/* A stiff box thrown down onto a slab 1 cm thick (the box's floor) at 6 and 20 m/s, 6 and 20
   cm a step: more than the slab is thick, so the prediction q~ of its lower vertices is under
   the slab, where its underside is nearest (6 m/s) or nothing is within the margin (20 m/s).
   Both passed through it (6 m/s: the box ended 2.6 m below); the prediction pass now takes
   such a contact where the vertex was at q_t (face_prev) and follows the segment from q_t to
   q~ (sweep), so the box lands on the slab and stays there, never more than 0.1 mm into it.
   The slab as an analytic box and as a mesh obstacle. */
static void test_thin_slab(void) {
  for (int k = 0; k < 3; k++) {
    const double speed = k == 0 ? 6 : 20;
    const int mesh = k == 2;
    printf("thin_slab_holds_box (%s, %g m/s)\n", mesh ? "mesh" : "box", speed);
    run r;
    if (run_open(&r, json("{'name': 'slab', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                          " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                          " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"
                          "   'lo': [-0.1, 0.5, -0.1], 'hi': [0.1, 0.7, 0.1],"
                          "   'vertices': [4, 4, 4]},"
                          "   'velocity': [0, %.17g, 0], 'material': {'model': 'arap',"
                          "   'density': 1000, 'youngs_modulus': 1e7, 'poisson_ratio': 0.3}}],"
                          " 'contact': {'margin': 0.02},"
                          " 'obstacles': [{%s, 'mu': 0.3}], 'output': {'formats': []}}",
                          -speed,
                          mesh ? "'type': 'mesh', 'path': 'data/cli/cube.obj', 'transform':"
                                 " {'scale': [2, 0.01, 2], 'translate': [-1, -0.01, -1]}"
                               : "'type': 'box', 'center': [0, -0.005, 0],"
                                 " 'half_extents': [1, 0.005, 1]")))
      return;
    double lowest = INFINITY, c[3] = {0, 0, 0};
    for (int f = 1; f <= 40; f++) {
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      for (int i = 0; i < r.c.m.n; i++) lowest = fmin(lowest, r.q[3 * i + 1]);
    }
    if (!r.ok) return;
    body_mean(&r, r.q, 0, c);
    printf("  centre at the end %.4f m (resting: 0.1), lowest vertex %.3g m (the slab's top: 0)\n",
           c[1], lowest);
    CHECK(fabs(c[1] - 0.1) < 0.01);
    CHECK(lowest >= -1e-4);
    run_close(&r);
  }
}

/* ---- a soft ball dropped on a plane and on a box ---- */

/* The ball's lowest point starts at y0 - 0.1; on the box it lands near the box's +x edge
   (x = 0.3), overhanging it by 0.05 m. As generated, the icosphere (1 subdivision) has a vertex
   at its bottom, the midpoint of the icosahedron's lowest edge: dropped straight down it lands
   on that vertex and balances there, an unstable equilibrium that only the landing's symmetry
   keeps (how long depends on rounding: with the exact friction Jacobian, whose GMRES broke
   the symmetry at 1e-6 m/s before ncp.h's SIM_NCP_CONE_EDGE, it tipped over within 2 s and
   rocked at 0.1 m/s, 3.1e-8 m/s across at 2 s since; the lagged system, from 1e-12 m/s, tips
   by 3.5 s). face_down turns it about x by 20.905 degrees, which
   brings the centre of one of the icosahedron's faces (3, 2, 6) to the bottom: it lands on
   that face's middle triangle, on a 3-fold axis of the mesh, and rests there. exact: the
   friction rows' exact Jacobian (contact.newton_jacobian). */
static const char *ball_scene(double y0, int on_box, int face_down, int exact) {
  return json(
      "{'name': 'ball', 'solver': {'dt': 0.005, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [0, -9.81, 0],"
      " 'bodies': [{'name': 'ball', 'mesh': {'type': 'icosphere', 'radius': 0.1,"
      "   'subdivisions': 1}, 'transform': {'translate': [%.17g, %.17g, 0.01]%s},"
      "   'material': {'model': 'neo_hookean', 'density': 1000, 'youngs_modulus': 1e5,"
      "   'poisson_ratio': 0.4}}],"
      " 'contact': {'margin': 0.02%s},"
      " 'obstacles': [%s],"
      " 'output': {'formats': []}}",
      on_box ? 0.25 : 0.02, y0, face_down ? ", 'rotate': [-20.9051574478893, 0, 0]" : "",
      exact ? ", 'newton_jacobian': 'exact'" : "",
      on_box ? "{'type': 'box', 'center': [0, -0.1, 0], 'half_extents': [0.3, 0.1, 0.3],"
               " 'mu': 0.3}"
             : "{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0], 'mu': 0.3}");
}

/* Signed distance to the axis-aligned box of centre c, half extents e. */
static double box_sdf(const double *x, const double c[3], const double e[3]) {
  double d[3], out = 0, in = -INFINITY;
  for (int k = 0; k < 3; k++) {
    d[k] = fabs(x[k] - c[k]) - e[k];
    out += d[k] > 0 ? d[k] * d[k] : 0;
    in = fmax(in, d[k]);
  }
  return in > 0 ? sqrt(out) : in;
}

static void test_no_penetration(void) {
  printf("no_penetration_sphere_drop\n");
  const double margin = 0.02;
  /* on the plane face down, with the lagged and the exact friction Jacobian; on the box */
  for (int k = 0; k < 3; k++) {
    const int on_box = k == 2, exact = k == 1;
    run r;
    if (run_open(&r, ball_scene(0.6, on_box, !on_box, exact))) return; /* 0.5 m up */
    const sim_model *m = &r.c.m;
    double worst = INFINITY, vmin = 0;
    const double bc[3] = {0, -0.1, 0}, be[3] = {0.3, 0.1, 0.3};
    /* plane: 2 s, the ball has stopped bouncing (lands at 0.32 s); box: 0.7 s, it lands
       next to the edge, is thrown off it and falls past the box's side */
    int nstep = on_box ? 140 : 400;
    for (int f = 1; f <= nstep; f++) {
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      for (int i = 0; i < m->n; i++) {
        double d = on_box ? box_sdf(r.q + 3 * i, bc, be) : r.q[3 * i + 1];
        worst = fmin(worst, d);
        vmin = fmin(vmin, r.v[3 * i + 1]);
      }
    }
    if (!r.ok) return;
    double endmin = INFINITY, c[3], vc[3];
    for (int i = 0; i < m->n; i++)
      endmin = fmin(endmin, on_box ? box_sdf(r.q + 3 * i, bc, be) : r.q[3 * i + 1]);
    body_mean(&r, r.q, 0, c);
    body_mean(&r, r.v, 0, vc);
    printf(
        "  %s: %d vertices, min prof.min_gap %.4g m (margin %.3g), most contacts %d,"
        " min vertex distance over the run %.4g, at the end %.4g, fastest fall %.3g m/s,"
        " centroid at the end (%.4g, %.4g, %.4g), its velocity (%.3g, %.3g, %.3g)\n",
        on_box  ? "box  "
        : exact ? "plane, exact Jacobian"
                : "plane",
        m->n, r.min_gap, margin, r.max_contacts, worst, endmin, vmin, c[0], c[1], c[2], vc[0],
        vc[1], vc[2]);
    CHECK(r.max_contacts > 0);
    CHECK(r.min_gap >= -margin);
    CHECK(endmin >= -margin);
    CHECK(worst >= -margin);
    CHECK(all_finite(r.q, 3 * m->n));
    if (!on_box) { /* at rest on the plane, touching it (measured at 2 s: settling at
                      2.4e-6 m/s; across 1e-12 m/s lagged, 1.2e-12 exact, 9e-7 before ncp.h's
                      SIM_NCP_CONE_EDGE; on its bottom vertex, not face down, 0.0135 m/s
                      across with the exact Jacobian before that rule, rocking on) */
      CHECK(fabs(vc[0]) < 1e-4 && fabs(vc[1]) < 1e-4 && fabs(vc[2]) < 1e-4);
      CHECK(endmin <= margin);
    }
    run_close(&r);
  }
}

/* ---- a soft box on a soft slab on a plane ---- */

/* The lagged friction Jacobian named: test_w_forms' bounds were measured with it (with the
   exact one the 40 steps' W forms differed by 1.6e-6 and 3.0e-5 m, and by 5.2e-6 and 1.1e-6 m
   since a sliding contact's partials stopped depending on the last bit of |lambda_f|, ncp.h
   SIM_NCP_CONE_EDGE: docs/results.md, Frictional contact). */
static const char *stack_scene(void) {
  return json(
      "{'name': 'stack', 'solver': {'dt': 0.005, 'lg_iterations': 10, 'global': 'cholesky'},"
      " 'gravity': [0, -9.81, 0],"
      " 'bodies': [{'name': 'slab', 'mesh': {'type': 'bar', 'lo': [-0.2, 0, -0.2],"
      "   'hi': [0.2, 0.1, 0.2], 'vertices': [5, 3, 5]}, 'material': {'model': 'arap',"
      "   'density': 1000, 'youngs_modulus': 1e6, 'poisson_ratio': 0.3}},"
      "  {'name': 'cube', 'mesh': {'type': 'bar', 'lo': [-0.05, 0.15, -0.05],"
      "   'hi': [0.05, 0.25, 0.05], 'vertices': [3, 3, 3]}, 'material': {'model': 'arap',"
      "   'density': 1000, 'youngs_modulus': 1e5, 'poisson_ratio': 0.3}}],"
      " 'contact': {'margin': 0.01, 'bodies': true, 'mu': 0.5, 'newton_jacobian': 'lagged',"
      "   'cr_iterations': 24},"
      " 'obstacles': [{'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0], 'mu': 0.5}],"
      " 'output': {'formats': []}}");
}

static void test_deformable_on_deformable(void) {
  printf("deformable_on_deformable\n");
  const double margin = 0.01;
  run r;
  if (run_open(&r, stack_scene())) return;
  const sim_model *m = &r.c.m;
  /* the slab's top vertex under the cube's centre, and the cube's bottom-centre vertex */
  int top = -1, bot = -1;
  for (int i = 0; i < m->n; i++) {
    const double *x = m->x_rest + 3 * i;
    if (fabs(x[0]) < 1e-9 && fabs(x[2]) < 1e-9) {
      if (m->vert_body[i] == 0 && fabs(x[1] - 0.1) < 1e-9) top = i;
      if (m->vert_body[i] == 1 && fabs(x[1] - 0.15) < 1e-9) bot = i;
    }
  }
  CHECK(top >= 0 && bot >= 0);
  if (top < 0 || bot < 0) {
    run_close(&r);
    return;
  }
  double min_sep = INFINITY;
  for (int f = 1; f <= 120; f++) { /* 0.6 s: contact at ~0.1 s */
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    double cube_low = INFINITY;
    for (int i = m->body_vert_start[1]; i < m->body_vert_start[2]; i++)
      cube_low = fmin(cube_low, r.q[3 * i + 1]);
    min_sep = fmin(min_sep, cube_low - r.q[3 * top + 1]);
  }
  if (!r.ok) return;
  int nbody = 0;
  for (int j = 0; j < r.c.s.world.out.n; j++) nbody += r.c.s.world.out.c[j].kind == SIM_CONTACT_BODY;
  double cube_low = INFINITY, vc[3], cc[3], slab_min = INFINITY;
  for (int i = m->body_vert_start[1]; i < m->body_vert_start[2]; i++)
    cube_low = fmin(cube_low, r.q[3 * i + 1]);
  for (int i = m->body_vert_start[0]; i < m->body_vert_start[1]; i++)
    slab_min = fmin(slab_min, r.q[3 * i + 1]);
  body_mean(&r, r.v, 1, vc);
  body_mean(&r, r.q, 1, cc);
  double surf = r.q[3 * top + 1], sep = cube_low - surf;
  int nc = run_lambda(&r);
  double fn_body = 0;
  for (int j = 0; j < nc; j++)
    if (r.c.s.world.out.c[j].kind == SIM_CONTACT_BODY) fn_body += r.lam[3 * j];
  double m_cube = 0;
  for (int i = m->body_vert_start[1]; i < m->body_vert_start[2]; i++) m_cube += m->mass[i];
  printf("  slab top (centre) y %.5f, cube lowest y %.5f, cube bottom-centre y %.5f:"
         " separation %.4g m (margin %.3g; smallest over the run %.4g), cube centroid y %.5f,"
         " v (%.3g, %.3g, %.3g), body contacts %d of %d, slab lowest y %.3g, min gap %.4g\n",
         surf, cube_low, r.q[3 * bot + 1], sep, margin, min_sep, cc[1], vc[0], vc[1], vc[2], nbody,
         r.c.s.world.out.n, slab_min, r.min_gap);
  printf("  body-contact normal forces %.6g N (sum over both directions; cube m g %.6g N)\n",
         fn_body, m_cube * G);
  CHECK(nbody > 0);
  CHECK(sep >= -1e-4);
  CHECK(sep <= margin);
  CHECK(min_sep >= -1e-3);
  CHECK(fabs(vc[1]) < 0.01);
  CHECK(slab_min >= -margin);
  run_close(&r);
}

/* A body 1 cm thick hit by another at 6 and 20 m/s, 6 and 20 cm a step: a stiff box thrown
   down onto a slab that is a pinned deformable body, where the box's lower vertices end the
   step past the slab, and the slab, free, thrown up at 20 m/s into the box, pinned, where the
   slab's vertices end the step in the box, nearer its top. Each went through: at 6 m/s the
   box ended 2.6 m below the slab, the slab 8 m above the box. The prediction pass now follows
   each vertex and the other body's triangles over the step (sweep), and takes a contact found
   on a far side again where the vertex started (face_prev; detect_body.h). */
static void test_thin_body(void) {
  for (int k = 0; k < 3; k++) {
    const int up = k == 2;
    const double speed = k == 0 ? 6 : 20;
    printf("thin_body (%s, %g m/s)\n",
           up ? "slab thrown up into a pinned box" : "box onto a pinned slab", speed);
    run r;
    if (run_open(&r, json("{'name': 'thin_body', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                          " 'global': 'cholesky'}, 'gravity': [0, %s, 0],"
                          " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"
                          "   'lo': [-0.1, %s, -0.1], 'hi': [0.1, %s, 0.1], 'vertices': [4, 4, 4]},"
                          "   'velocity': [0, %.17g, 0], 'material': {'model': 'arap',"
                          "   'density': 1000, 'youngs_modulus': 1e7, 'poisson_ratio': 0.3}},"
                          "  {'name': 'slab', 'mesh': {'type': 'bar', 'lo': [-0.5, -0.01, -0.5],"
                          "   'hi': [0.5, 0, 0.5], 'vertices': [11, 2, 11]},"
                          "   'velocity': [0, %.17g, 0], 'material': {'model': 'arap',"
                          "   'density': 1000, 'youngs_modulus': 1e8, 'poisson_ratio': 0.3}}],"
                          " 'pins': [{'body': %d, 'box': [-0.6, -0.1, -0.6, 0.6, 0.6, 0.6]}],"
                          " 'contact': {'margin': 0.02, 'bodies': true},"
                          " 'output': {'formats': []}}",
                          up ? "0" : "-9.81", up ? "0.3" : "0.5", up ? "0.5" : "0.7",
                          up ? 0.0 : -speed, up ? speed : 0.0, up ? 0 : 1)))
      return;
    /* the moving body's vertices in the one standing still (signed distance to its box) */
    const sim_model *m = &r.c.m;
    const int mover = up ? 1 : 0;
    const double c[3] = {0, up ? 0.4 : -0.005, 0},
                 e[3] = {up ? 0.1 : 0.5, up ? 0.1 : 0.005, up ? 0.1 : 0.5};
    double deepest = INFINITY;
    for (int f = 1; f <= 40; f++) {
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      for (int i = m->body_vert_start[mover]; i < m->body_vert_start[mover + 1]; i++)
        deepest = fmin(deepest, box_sdf(r.q + 3 * i, c, e));
    }
    if (!r.ok) return;
    double box[3], slab[3];
    body_mean(&r, r.q, 0, box);
    body_mean(&r, r.q, 1, slab);
    printf(
        "  box centre %.4f m, slab centre %.4f m at the end; deepest vertex in the body standing"
        " still %.3g m; min gap %.3g m\n",
        box[1], slab[1], deepest, r.min_gap);
    CHECK(deepest >= -1e-4);
    if (up)
      CHECK(slab[1] < 0.3);
    else
      CHECK(fabs(box[1] - 0.1) < 0.01);
    run_close(&r);
  }
}

/* A stiff box slides down a 30 degree slope into the valley of an open V trough (a blade mesh:
   unsigned). Its face rests on the slope, so its vertices lie in the slope's plane to rounding
   at every step's start; the side they were on was read from those positions, and the box
   went through the trough on landing (0.7 m below it after 1 s). The q_t pass now keeps the
   side of each vertex's contact at the step before (detect.h sides). */
static void test_open_trough(void) {
  printf("open_trough\n");
  run r;
  if (run_open(&r, json("{'name': 'trough', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                        " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                        " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"
                        "   'lo': [0.25, 0.2, -0.05], 'hi': [0.35, 0.3, 0.05],"
                        "   'vertices': [4, 4, 4]}, 'transform': {'rotate': [0, 0, 30]},"
                        "   'material': {'model': 'arap', 'density': 1000,"
                        "   'youngs_modulus': 1e7, 'poisson_ratio': 0.3}}],"
                        " 'contact': {'margin': 0.02},"
                        " 'obstacles': [{'type': 'mesh', 'path': 'data/cli/trough.obj',"
                        "   'closed': false, 'mu': 0}], 'output': {'formats': []}}")))
    return;
  const double t = tan(30 * DEG), cs = cos(30 * DEG);
  double deepest = INFINITY, last = INFINITY, c[3], v[3];
  for (int f = 1; f <= 100; f++) {
    if (run_steps(&r, 1)) break;
    run_fetch(&r);
    last = INFINITY;
    for (int i = 0; i < r.c.m.n; i++) /* above the slope on its side, along its normal */
      last = fmin(last, (r.q[3 * i + 1] - fabs(r.q[3 * i]) * t) * cs);
    deepest = fmin(deepest, last);
  }
  if (!r.ok) return;
  body_mean(&r, r.q, 0, c);
  body_mean(&r, r.v, 0, v);
  printf(
      "  centre at the end (%.4f, %.4f) m, speed %.3g m/s; deepest vertex %.3g m, at the end"
      " %.3g m; min gap %.3g m\n",
      c[0], c[1], sim_norm3(v), deepest, last, r.min_gap);
  /* the landing in the valley, at about 2 m/s (22 mm a step): the box's lowest vertices come
     within the margin of both slopes, and with one contact per vertex and mesh went up to
     1.13 mm through the slope their row did not name (0.024 mm on one machine, 0.74 mm on
     another, 1.13 mm on a third: which slope is nearest turned on rounding). With the valley's
     second contact (contact.creases, detect_crease.h) 0.033 mm; through the trough, as before,
     is 0.7 m. At rest in the valley the box is out of the slopes again. */
  CHECK(deepest >= -5e-4);
  CHECK(last >= -1e-4);
  CHECK(fabs(c[0]) < 0.05 && c[1] > 0.03 && c[1] < 0.1); /* in the valley */
  CHECK(sim_norm3(v) < 0.05);
  run_close(&r);
}

/* ---- a solid box on a cloth (the cloth's triangles its target) ---- */

/* How far the box's vertices (body 0) lie below the cloth (body 1), each against the cloth
   triangle under it (x, z), and how deep a point of a cloth edge (19 samples each) lies inside
   the box, in its frame from its corner vertices 0, 3, 12 and 48 (a bar of 4 x 4 x 4
   vertices: x, y, z strides 1, 4, 16); the larger of each and *below, *inside. */
static void box_cloth_depths(const run *r, double *below, double *inside) {
  const sim_model *m = &r->c.m;
  const double *q = r->q;
  const int c0 = m->body_vert_start[1];
  for (int i = 0; i < c0; i++) {
    const double *p = q + 3 * i;
    for (int t = 0; t < m->ntri; t++) {
      if (m->tri_body[t] != 1) continue;
      double h;
      if (!over_triangle(p, q + 3 * m->tri[3 * t], q + 3 * m->tri[3 * t + 1],
                         q + 3 * m->tri[3 * t + 2], &h))
        continue;
      *below = fmax(*below, -h);
      break;
    }
  }
  double e[3][3], l[3], o[3];
  for (int k = 0; k < 3; k++) {
    const int to = k == 0 ? 3 : k == 1 ? 12 : 48;
    for (int i = 0; i < 3; i++) e[k][i] = q[3 * to + i] - q[i];
    l[k] = sim_norm3(e[k]);
    for (int i = 0; i < 3; i++) e[k][i] /= l[k];
  }
  for (int i = 0; i < 3; i++) o[i] = q[i] + 0.5 * (l[0] * e[0][i] + l[1] * e[1][i] + l[2] * e[2][i]);
  const double R = 0.5 * sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]); /* o to a corner */
  for (int t = 0; t < m->ntri; t++) {
    if (m->tri_body[t] != 1) continue;
    for (int j = 0; j < 3; j++) {
      const double *a = q + 3 * m->tri[3 * t + j], *b = q + 3 * m->tri[3 * t + (j + 1) % 3];
      const double ao[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
      const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      if (sim_norm3(ao) > R + sim_norm3(ab)) continue; /* no point of it within the box */
      for (int s = 1; s < 20; s++) {
        double depth = INFINITY;
        for (int k = 0; k < 3; k++) {
          double y = 0;
          for (int i = 0; i < 3; i++) y += (a[i] + s / 20.0 * (b[i] - a[i]) - o[i]) * e[k][i];
          depth = fmin(depth, 0.5 * l[k] - fabs(y));
        }
        *inside = fmax(*inside, depth);
      }
    }
  }
}

/* A stiff box dropped or thrown onto a cloth pinned along its edges, a trampoline: the box's
   vertices meet the cloth's triangles (an open body: unsigned, turned to the side the vertex
   came from, detect_body.h). Coarse: 5 x 5 cloth vertices 25 cm apart, none under the 20 cm
   box; it fell through before (4.6 m in 1 s). Fine: 41 x 41, 2.5 cm apart, under a 4 cm box.
   The box's vertices never go below the cloth, and no point of a cloth edge gets into the box
   (there are no edge-edge contacts: a cloth edge between the box's vertices is held only by
   the box's vertices on the triangles beside it). The box's corners sank 2 cm into the coarse
   cloth while the side memory took a vertex resting on a turning triangle, 2 um in front of
   its plane carried back, as not crossed (detect_body.h SIM_DETECT_SIDE_SLACK). */
static void test_box_on_cloth(void) {
  for (int k = 0; k < 3; k++) {
    const int fine = k == 2;
    const double speed = k == 1 ? 6 : 0;
    printf("box_on_cloth (%s, %g m/s)\n", fine ? "41 x 41, 4 cm box" : "5 x 5, 20 cm box", speed);
    run r;
    if (run_open(&r, json("{'name': 'trampoline', 'solver': {'dt': 0.01, 'lg_iterations': 10,"
                          " 'global': 'cholesky'}, 'gravity': [0, -9.81, 0],"
                          " 'bodies': [{'name': 'box', 'mesh': {'type': 'bar',"
                          "   'lo': [%s, 0.3, %s], 'hi': [%s, %s, %s], 'vertices': [4, 4, 4]},"
                          "   'velocity': [0, %g, 0], 'material': {'model': 'arap',"
                          "   'density': 100, 'youngs_modulus': 1e7, 'poisson_ratio': 0.3}},"
                          "  {'name': 'cloth', 'mesh': {'type': 'cloth', 'size': [1, 1],"
                          "   'vertices': [%d, %d]}, 'material': {'model': 'neo_hookean',"
                          "   'density': 1000, 'youngs_modulus': 1e7, 'poisson_ratio': 0.3,"
                          "   'thickness': 0.001}}],"
                          " 'pins': [{'body': 1, 'box': [-0.6, -0.1, -0.6, -0.49, 0.1, 0.6]},"
                          "  {'body': 1, 'box': [0.49, -0.1, -0.6, 0.6, 0.1, 0.6]},"
                          "  {'body': 1, 'box': [-0.6, -0.1, -0.6, 0.6, 0.1, -0.49]},"
                          "  {'body': 1, 'box': [-0.6, -0.1, 0.49, 0.6, 0.1, 0.6]}],"
                          " 'contact': {'margin': 0.03, 'bodies': true},"
                          " 'output': {'formats': []}}",
                          fine ? "0.0125" : "0.025", fine ? "0.0125" : "0.025",
                          fine ? "0.0525" : "0.225", fine ? "0.34" : "0.5",
                          fine ? "0.0525" : "0.225", -speed, fine ? 41 : 5, fine ? 41 : 5)))
      return;
    double below = -INFINITY, inside = -INFINITY;
    for (int f = 1; f <= (fine ? 70 : 100); f++) { /* the fine box lands at step 25 */
      if (run_steps(&r, 1)) break;
      run_fetch(&r);
      box_cloth_depths(&r, &below, &inside);
    }
    if (!r.ok) return;
    double box[3], cloth[3];
    body_mean(&r, r.q, 0, box);
    body_mean(&r, r.q, 1, cloth);
    printf("  at the end: box centre %.4f m, cloth centre %.4f m; deepest box vertex below the"
           " cloth %.3g m, cloth edge into the box %.3g m; min gap %.3g m\n",
           box[1], cloth[1], below, inside, r.min_gap);
    CHECK(below <= 1e-4);
    CHECK(inside <= 1e-3);
    CHECK(r.min_gap >= -1e-4);
    CHECK(box[1] > cloth[1] && box[1] > -0.1);
    run_close(&r);
  }
}

/* ---- determinism over thread counts ---- */

static double *final_q(const char *text, int steps, int threads, int *n) {
  omp_set_num_threads(threads);
  run r;
  if (run_open(&r, text)) return NULL;
  double *out = NULL;
  if (!run_steps(&r, steps)) {
    run_fetch(&r);
    *n = r.c.m.n;
    out = malloc(sizeof(double) * 3 * *n);
    memcpy(out, r.q, sizeof(double) * 3 * *n);
    printf("  threads %d: contacts at the last step %d\n", threads, r.prof.contacts);
  }
  run_close(&r);
  return out;
}

static void test_deterministic_threads(void) {
  printf("deterministic_threads\n");
  int saved = omp_get_max_threads();
  static const char *names[4] = {"ball", "stack, W dense", "stack, W matrix-free",
                                 "stack, W in blocks"};
  static const char *forms[4] = {"", "\"delassus\": \"dense\", ", "\"delassus\": \"operator\", ",
                                 "\"delassus\": \"blocks\", "};
  for (int scene = 0; scene < 4; scene++) {
    int steps = scene ? 40 : 30;
    static char copy[8192];
    if (scene == 0) { /* the ball touches at step ~12 */
      snprintf(copy, sizeof copy, "%s", ball_scene(0.12, 0, 0, 0));
    } else { /* the stack with W dense, then matrix-free, then in blocks */
      const char *text = stack_scene(), *at = strstr(text, "\"cr_iterations\": 24");
      CHECK(at != NULL);
      if (!at) break;
      snprintf(copy, sizeof copy, "%.*s%s%s", (int)(at - text), text, forms[scene], at);
    }
    int n1 = 0, n = 0;
    double *q1 = final_q(copy, steps, 1, &n1);
    for (int th = 2; th <= 4; th += 2) {
      double *qt = final_q(copy, steps, th, &n);
      CHECK(q1 && qt && n == n1 && memcmp(q1, qt, sizeof(double) * 3 * n) == 0);
      if (q1 && qt && n == n1) {
        double dmax = 0;
        for (int i = 0; i < 3 * n; i++) dmax = fmax(dmax, fabs(q1[i] - qt[i]));
        printf("  %s: 1 vs %d threads: max |dq| %.3g\n", names[scene], th, dmax);
      }
      free(qt);
    }
    free(q1);
  }
  omp_set_num_threads(saved);
}

/* The stack with W dense against matrix-free and in blocks: the same motion to rounding while
   no decision of the solver differs (the stack's first 15 steps, contacts from the first), and
   within a micrometre after 40 steps, where a rounding-level difference has flipped one
   (measured, matrix-free: 7e-16 m at 15 steps, 3.4e-8 m at 20, 2.2e-7 m at 40; 2.1e-8 m at 40
   with the operator as a CHOLMOD solve, before 2026-12-02). */
static void test_w_forms(void) {
  printf("w_forms\n");
  const char *text = stack_scene(), *at = strstr(text, "\"cr_iterations\": 24");
  CHECK(at != NULL);
  if (!at) return;
  static char dense[8192], op[8192];
  static const char *form[2] = {"operator", "blocks"}, *said[2] = {"matrix-free", "in blocks"};
  snprintf(dense, sizeof dense, "%.*s\"delassus\": \"dense\", %s", (int)(at - text), text, at);
  const int steps[2] = {15, 40};
  const double bound[2] = {1e-14, 1e-6};
  for (int f = 0; f < 2; f++) {
    snprintf(op, sizeof op, "%.*s\"delassus\": \"%s\", %s", (int)(at - text), text, form[f], at);
    for (int s = 0; s < 2; s++) {
      int n1 = 0, n2 = 0;
      double *a = final_q(dense, steps[s], 2, &n1), *b = final_q(op, steps[s], 2, &n2);
      CHECK(a && b && n1 == n2);
      if (a && b && n1 == n2) {
        double d = 0;
        for (int i = 0; i < 3 * n1; i++) d = fmax(d, fabs(a[i] - b[i]));
        printf("  %d steps: W %s vs dense: max |dq| %.3g m (bound %.0e)\n", steps[s], said[f], d,
               bound[s]);
        CHECK(d <= bound[s]);
      }
      free(a), free(b);
    }
  }
}

int main(void) {
  test_box_at_rest();
  test_own_margin();
  test_sliding_box();
  test_stick_and_slip();
  test_stick_and_slip_exact();
  test_rolling_cylinder();
  test_scripted_floor();
  test_pushing_wall();
  test_turning_paddle();
  test_thin_slab();
  test_no_penetration();
  test_deformable_on_deformable();
  test_thin_body();
  test_open_trough();
  test_box_on_cloth();
  test_deterministic_threads();
  test_w_forms();
  return check_summary("test_contact_physics");
}

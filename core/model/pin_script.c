/* SPDX-License-Identifier: MIT */
/* Scripted pin motions: PULLING, ROLLING and WAIT steps run in sequence (rigid motions). */
#include <math.h>

#include "../base/mathx.h"
#include "model.h"

/* Rodrigues rotation of x about the unit axis a through c by angle th (radians). */
static void rotate_about(const double a[3], const double c[3], double th, const double x[3],
                         double out[3]) {
  double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  double ct = cos(th), s = sin(th);
  double d = a[0] * r[0] + a[1] * r[1] + a[2] * r[2];
  double cr[3] = {a[1] * r[2] - a[2] * r[1], a[2] * r[0] - a[0] * r[2],
                  a[0] * r[1] - a[1] * r[0]};
  for (int k = 0; k < 3; k++) out[k] = c[k] + r[k] * ct + cr[k] * s + a[k] * d * (1.0 - ct);
}

/* How long a step lasts, s: its amount at full speed, plus one ramp (the two ramps, at half
   the speed on average, take as long as one at full speed). */
static double step_duration(const sim_pin_step *s) {
  switch (s->kind) {
    case SIM_STEP_PULLING: return s->length / s->speed + s->ramp;
    case SIM_STEP_ROLLING: return s->angle / fabs(s->speed) + s->ramp;
    case SIM_STEP_WAIT: return s->duration;
  }
  return 0.0;
}

/* The amount (m or degrees) a step of total amount L, full speed v > 0 and ramp r covers in
   its first tau seconds (0 <= tau <= its duration d = L / v + r): the speed rises linearly from
   0 to v over r, holds, and falls to 0 over the last r (the scene check keeps r <= L / v). */
static double covered(double L, double v, double r, double tau) {
  if (r <= 0.0) return v * tau;
  double d = L / v + r;
  if (tau < r) return v * tau * tau / (2.0 * r);
  if (tau > d - r) return L - v * (d - tau) * (d - tau) / (2.0 * r);
  return v * (tau - 0.5 * r);
}

void sim_script_apply(const sim_pin_step *steps, int nsteps, double t, const double x0[3],
                      double out[3]) {
  double x[3] = {x0[0], x0[1], x0[2]};
  double remaining = t;
  for (int i = 0; i < nsteps && remaining > 0.0; i++) {
    const sim_pin_step *s = &steps[i];
    double dur = step_duration(s);
    double tau = remaining < dur ? remaining : dur; /* time spent in this step */
    remaining -= tau;
    if (s->kind == SIM_STEP_PULLING) {
      if (s->ramp > 0.0) { /* without one, the product in its old order: the same bits */
        double a = covered(s->length, s->speed, s->ramp, tau);
        for (int k = 0; k < 3; k++) x[k] += s->direction[k] * a;
      } else {
        for (int k = 0; k < 3; k++) x[k] += s->direction[k] * s->speed * tau;
      }
    } else if (s->kind == SIM_STEP_ROLLING) {
      double a = covered(s->angle, fabs(s->speed), s->ramp, tau);
      double th = (s->speed < 0 ? -a : a) * (SIM_PI / 180.0);
      double y[3];
      rotate_about(s->axis, s->center, th, x, y);
      for (int k = 0; k < 3; k++) x[k] = y[k];
    }
  }
  for (int k = 0; k < 3; k++) out[k] = x[k];
}

/* Vertex v moved by pin `pin`'s script from its rest position to time t. */
static void pin_point(const sim_model *m, int pin, int v, double t, double out[3]) {
  const sim_pin_def *p = &m->scene->pins[pin];
  sim_script_apply(p->steps, p->nsteps, t, &m->x_rest[3 * v], out);
}

void sim_cpin_position(const sim_model *m, int k, double t, double out[3]) {
  int v = m->cpin_vert[k];
  pin_point(m, m->cpin_of[v], v, t, out);
}

void sim_pin_position(const sim_model *m, int pv, double t, double out[3]) {
  int v = m->pinned[pv];
  pin_point(m, m->pin_of[v], v, t, out);
}

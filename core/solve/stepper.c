/* SPDX-License-Identifier: MIT */
/* Frame loop: pins -> predict -> K x (local step, global step) -> integrate. */
#include "stepper.h"

#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"

static void pin_targets(sim_stepper *s, double t) {
  for (int p = 0; p < s->m->npinned; p++) sim_pin_position(s->m, p, t, &s->pin_pos[3 * p]);
}

int sim_stepper_init(sim_stepper *s, const sim_model *m, sim_backend *be, sim_status *st) {
  memset(s, 0, sizeof *s);
  s->m = m;
  s->be = be;
  s->lg_iterations = m->scene->solver.lg_iterations;
  memcpy(s->gravity, m->scene->gravity, sizeof s->gravity);
  s->pin_pos = SIM_NEW0(double, 3 * (size_t)m->npinned + 3);
  if (!s->pin_pos) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (pins)");
  int rc = be->upload(be, SIM_VEC_Q, m->x_rest, st);
  if (!rc) rc = be->upload(be, SIM_VEC_QT, m->x_rest, st);
  if (!rc) rc = be->upload(be, SIM_VEC_QTILDE, m->x_rest, st);
  if (!rc) rc = be->upload(be, SIM_VEC_V, m->v_init, st);
  return rc;
}

void sim_stepper_free(sim_stepper *s) {
  sim_free(s->pin_pos);
  s->pin_pos = NULL;
}

int sim_stepper_step(sim_stepper *s, sim_profile *prof, double *energies, sim_status *st) {
  sim_backend *be = s->be;
  memset(prof, 0, sizeof *prof);
  double t0 = sim_now_ms();
  double t_next = (s->step + 1) * s->m->h;
  pin_targets(s, t_next);
  int rc = be->set_pins(be, s->pin_pos, st);
  if (!rc) rc = be->predict(be, s->gravity, st);
  double t1 = sim_now_ms();
  prof->predict_ms = t1 - t0;
  if (!rc && energies) energies[0] = be->energy(be, NULL);
  for (int k = 0; !rc && k < s->lg_iterations; k++) {
    double a = sim_now_ms();
    rc = be->local_step(be, st);
    double b = sim_now_ms();
    if (!rc) rc = be->global_step(be, st);
    double c = sim_now_ms();
    prof->local_ms += b - a;
    prof->global_ms += c - b;
    if (!rc && energies) energies[k + 1] = be->energy(be, NULL);
  }
  double t2 = sim_now_ms();
  if (!rc) rc = be->integrate(be, st);
  double t3 = sim_now_ms();
  prof->integrate_ms = t3 - t2;
  prof->frame_ms = t3 - t0;
  prof->lg_iterations = s->lg_iterations;
  if (!rc) {
    s->step++;
    s->t = t_next;
  }
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* Frame loop: pins -> predict -> K x (local step, global step) -> integrate. */
#include "stepper.h"

#include <math.h>
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
  if (!rc) rc = sim_world_init(&s->world, m, st);
  if (!rc && s->world.active) {
    s->contact = 1;
    s->world.runner = be->detect;
    if (!be->contact_begin)
      return sim_fail(st, SIM_ERR_DEVICE, "%s: the %s backend has no contact solver yet (use "
                      "--device cpu)", m->scene->file, be->name);
    s->x_t = SIM_NEW(double, 3 * (size_t)m->n);
    s->x_prev = SIM_NEW(double, 3 * (size_t)m->n);
    s->x_pred = SIM_NEW(double, 3 * (size_t)m->n);
    s->x_end = SIM_NEW(double, 3 * (size_t)m->n);
    s->redetect = m->scene->contact.redetect;
    if (!s->x_t || !s->x_prev || !s->x_pred || !s->x_end)
      return sim_fail(st, SIM_ERR_MEMORY, "out of memory (detection)");
    /* NaN where a backend's detect_download leaves them unwritten: a host read there would
       show in the contacts */
    for (size_t i = 0; i < 3 * (size_t)m->n; i++)
      s->x_t[i] = s->x_prev[i] = s->x_pred[i] = s->x_end[i] = NAN;
  }
  return rc;
}

/* The step's pins and prediction. */
static int predict(sim_stepper *s, sim_status *st) {
  int rc = s->be->set_pins(s->be, s->pin_pos, st);
  return rc ? rc : s->be->predict(s->be, s->gravity, st);
}

/* Vectors ids[0..nvec) into host arrays x[j] for collision detection: what the host reads of
   them (with q_t, the positions of the constraint pins' and cables' vertices, and with q~ the
   cables' alone, whose rows are taken there; nothing of the step's end where the backend
   detects), in one wait, or, where the backend cannot say, the whole vectors. */
static int detect_positions(sim_stepper *s, int nvec, const sim_vec_id *ids, double *const *x,
                            sim_status *st) {
  const int *verts;
  int npred, n = sim_world_host_reads(&s->world, &verts, &npred), rc = SIM_OK,
             read[SIM_VEC_COUNT];
  if (n < 0 || !s->be->detect_download) {
    for (int j = 0; !rc && j < nvec; j++) rc = s->be->download(s->be, ids[j], x[j], st);
    return rc;
  }
  for (int j = 0; j < nvec; j++)
    read[j] = ids[j] == SIM_VEC_QT ? n : ids[j] == SIM_VEC_QTILDE ? npred : 0;
  return s->be->detect_download(s->be, nvec, ids, x, read, verts, n, st);
}

/* Collision detection from q_t (and the step before), then the backend's W and warm start.
   Detection is a span of SIM_SPAN_CD on the backend's clock, so nothing is settled before it:
   on a device it queues behind the work before it, and its span starts where that work ends. */
static int begin_contact(sim_stepper *s, sim_profile *prof, sim_cst_times *ct, sim_status *st) {
  sim_backend *be = s->be;
  int rc = be->mark(be, SIM_SPAN_CD, 0, st);
  const sim_vec_id ids[2] = {SIM_VEC_QT, SIM_VEC_QTILDE};
  double *const x[2] = {s->x_t, s->x_pred};
  if (!rc) rc = detect_positions(s, 2, ids, x, st);
  if (!rc)
    rc = sim_world_detect(&s->world, s->t, s->m->h, s->x_t, s->have_prev ? s->x_prev : NULL,
                          s->x_pred, st);
  if (!rc) rc = be->mark(be, SIM_SPAN_CD, 1, st);
  if (rc) return rc;
  const sim_detect_contacts *c = &s->world.out;
  prof->contacts = c->n;
  prof->rows = 3 * c->n;
  prof->min_gap = s->world.min_gap;
  return s->be->contact_begin(s->be, c->c, c->n, ct, st);
}

void sim_stepper_free(sim_stepper *s) {
  sim_free(s->pin_pos);
  sim_free(s->x_t);
  sim_free(s->x_prev);
  sim_free(s->x_pred);
  sim_free(s->x_end);
  sim_world_free(&s->world);
  s->pin_pos = s->x_t = s->x_prev = s->x_pred = s->x_end = NULL;
}

/* Waits for the backend's queued work and adds its closed spans to span[]. The host-timed
   contact stage (where the backend does not clock it itself: contact_clocked) starts with
   this, so its timers see only its own work. */
static int settle(sim_stepper *s, double span[SIM_SPAN_COUNT], sim_status *st) {
  return s->be->settle(s->be, span, st);
}

/* rc = `call` (a backend operation) inside a span of bucket `id`. */
#define SIM_TIMED(rc, be, id, call, st)                \
  do {                                                 \
    (rc) = (be)->mark((be), (id), 0, (st));            \
    if (!(rc)) (rc) = (call);                          \
    if (!(rc)) (rc) = (be)->mark((be), (id), 1, (st)); \
  } while (0)

/* K L-G iterations from the current iterate: local step, then the global step (with the
   contact stage when the step has contacts); energies (K + 1 values) may be NULL. */
static int lg_iterations(sim_stepper *s, sim_profile *prof, sim_cst_times *ct,
                         double span[SIM_SPAN_COUNT], double *energies, sim_status *st) {
  sim_backend *be = s->be;
  int rc = SIM_OK;
  if (prof->contacts == 0 && !energies && be->lg_iterations) { /* the backend's own loop */
    prof->lg_iterations += s->lg_iterations;
    return be->lg_iterations(be, s->lg_iterations, st);
  }
  for (int k = 0; !rc && k < s->lg_iterations; k++) {
    SIM_TIMED(rc, be, SIM_SPAN_LOCAL, be->local_step(be, st), st);
    if (rc) break;
    if (prof->contacts > 0) {
      if (!be->contact_clocked) rc = settle(s, span, st);
      if (!rc) rc = be->contact_global(be, ct, st);
    } else {
      SIM_TIMED(rc, be, SIM_SPAN_GLOBAL, be->global_step(be, st), st);
    }
    if (!rc && energies) energies[k + 1] = be->energy(be, NULL);
    prof->lg_iterations++;
  }
  /* the contact solve finished where its budget left it above contact.end_tolerance */
  if (!rc && prof->contacts > 0 && be->contact_finish) {
    if (!be->contact_clocked) rc = settle(s, span, st);
    if (!rc) rc = be->contact_finish(be, ct, st);
    if (!rc && energies) energies[s->lg_iterations] = be->energy(be, NULL);
  }
  return rc;
}

int sim_stepper_step(sim_stepper *s, sim_profile *prof, double *energies, sim_status *st) {
  sim_backend *be = s->be;
  memset(prof, 0, sizeof *prof);
  prof->min_gap = HUGE_VAL;
  sim_cst_times ct = {0};
  double span[SIM_SPAN_COUNT] = {0};
  double t0 = sim_now_ms();
  double t_next = (s->step + 1) * s->m->h;
  pin_targets(s, t_next);
  int rc = SIM_OK;
  SIM_TIMED(rc, be, SIM_SPAN_PREDICT, predict(s, st), st);
  if (!rc && s->contact) rc = begin_contact(s, prof, &ct, st);
  if (!rc && energies) energies[0] = be->energy(be, NULL);
  rc = rc ? rc : lg_iterations(s, prof, &ct, span, energies, st);
  /* re-detection needs something to collide with (not only constraint pins or cables) */
  for (int pass = 0; !rc && s->world.collide && pass < s->redetect; pass++) {
    int added = 0;
    rc = be->mark(be, SIM_SPAN_CD, 0, st);
    const sim_vec_id id = SIM_VEC_Q;
    if (!rc) rc = detect_positions(s, 1, &id, &s->x_end, st);
    if (!rc) rc = sim_world_redetect(&s->world, s->m->h, s->x_t, s->x_end, &added, st);
    if (!rc) rc = be->mark(be, SIM_SPAN_CD, 1, st);
    if (rc || added == 0) break;
    const sim_detect_contacts *c = &s->world.out;
    prof->redetected += added;
    prof->contacts = c->n;
    prof->rows = 3 * c->n;
    /* the step again from q~ (as if they had been found at its start): continuing from the
       solution instead pushes a deep vertex out within the remaining iterations, at depth / h */
    SIM_TIMED(rc, be, SIM_SPAN_PREDICT, be->predict(be, s->gravity, st), st);
    if (!rc) rc = settle(s, span, st);
    if (!rc) rc = be->contact_begin(be, c->c, c->n, &ct, st);
    if (!rc) rc = lg_iterations(s, prof, &ct, span, NULL, st);
  }
  if (!rc) SIM_TIMED(rc, be, SIM_SPAN_INTEGRATE, be->integrate(be, st), st);
  if (!rc) rc = settle(s, span, st); /* the frame's one wait without contact */
  double t3 = sim_now_ms();
  prof->cd_ms = span[SIM_SPAN_CD];
  prof->predict_ms = span[SIM_SPAN_PREDICT];
  prof->local_ms = span[SIM_SPAN_LOCAL];
  prof->integrate_ms = span[SIM_SPAN_INTEGRATE];
  prof->frame_ms = t3 - t0 - prof->cd_ms;
  prof->global_ms = span[SIM_SPAN_GLOBAL];
  if (prof->contacts > 0) {
    prof->global_ms += ct.global_ms;
    prof->assemble_ms = ct.assemble_ms;
    prof->cst_solve_ms = ct.cst_solve_ms;
    prof->corr_ms = ct.corr_ms;
    prof->cr_iterations = ct.cr_iters;
    prof->newton_steps = ct.newton_steps;
    prof->ls = ct.ls;
    prof->end_steps = ct.end_steps;
    prof->end_unmet = ct.end_unmet;
    prof->end_phi = ct.end_phi;
  }
  prof->schur_ms = ct.schur_ms;
  if (!rc && ct.nonfinite) /* the solve then moves nothing, which would pass for a result */
    rc = sim_fail(st, SIM_ERR_NUMERIC,
                  "%s: frame %d: the contact solve's residual overflowed (not finite): a pin, "
                  "cable or obstacle target too far away to compute with; check the scripts' "
                  "speeds and lengths",
                  s->m->scene->file, s->step + 1);
  if (!rc) {
    s->step++;
    s->t = t_next;
    if (s->contact) { /* q_t of this step is the next step's previous positions */
      double *x = s->x_prev;
      s->x_prev = s->x_t, s->x_t = x;
      s->have_prev = 1;
    }
  }
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* What a step leaves for the next besides the state vectors (stepper.h sim_step_state): the
   previous positions, the world's memory and the contact multipliers, out of a run and into
   another that resumes it. */
#include <string.h>

#include "../base/alloc.h"
#include "stepper.h"

void sim_step_state_free(sim_step_state *ss) {
  sim_free(ss->x_prev);
  sim_free(ss->c);
  sim_free(ss->at_start);
  sim_free(ss->lam);
  memset(ss, 0, sizeof *ss);
}

int sim_step_state_alloc(sim_step_state *ss, int n, int nc, sim_status *st) {
  memset(ss, 0, sizeof *ss);
  ss->n = n, ss->nc = nc;
  ss->x_prev = SIM_NEW(double, 3 * (size_t)n + 3);
  ss->c = SIM_NEW(sim_contact, (size_t)nc + 1);
  ss->at_start = SIM_NEW(unsigned char, (size_t)nc + 1);
  ss->lam = SIM_NEW(double, 3 * (size_t)nc + 3);
  if (ss->x_prev && ss->c && ss->at_start && ss->lam) return SIM_OK;
  sim_step_state_free(ss);
  return sim_fail(st, SIM_ERR_MEMORY, "out of memory (the state of %d contacts)", nc);
}

int sim_stepper_state_get(sim_stepper *s, sim_step_state *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (!s->contact || !s->have_prev)
    return sim_fail(st, SIM_ERR_USAGE, "no step with contact to take the state of");
  sim_backend *be = s->be;
  const sim_detect_contacts *c = &s->world.out;
  int rc = sim_step_state_alloc(out, s->m->n, c->n, st);
  /* where detection read the backend's own copies, the host's array has the listed vertices
     alone (stepper.h x_t): the whole vector from the backend */
  if (!rc && be->detect_download) {
    if (!be->detect_complete)
      rc = sim_fail(st, SIM_ERR_DEVICE, "the %s backend cannot give the previous positions",
                    be->name);
    else
      rc = be->detect_complete(be, s->x_prev, st);
  }
  if (rc) return rc;
  memcpy(out->x_prev, s->x_prev, sizeof(double) * 3 * (size_t)s->m->n);
  if (c->n > 0) memcpy(out->c, c->c, sizeof(sim_contact) * (size_t)c->n);
  sim_world_memory_get(&s->world, out->at_start);
  out->stray_creases = s->world.stray_creases;
  return c->n > 0 ? be->contact_lambda(be, out->lam, st) : SIM_OK;
}

int sim_stepper_state_set(sim_stepper *s, const sim_step_state *in, sim_status *st) {
  if (!s->contact || in->n != s->m->n)
    return sim_fail(st, SIM_ERR_USAGE, "a state of %d vertices for a model of %d%s", in->n, s->m->n,
                    s->contact ? "" : " without contact");
  sim_backend *be = s->be;
  int rc = sim_world_memory_set(&s->world, in->c, in->nc, in->at_start, in->stray_creases, st);
  if (!rc && !be->contact_resume)
    rc = sim_fail(st, SIM_ERR_DEVICE, "the %s backend cannot resume a contact solve", be->name);
  if (!rc) rc = be->contact_resume(be, s->world.out.c, in->nc, in->lam, st);
  if (rc) return rc;
  memcpy(s->x_prev, in->x_prev, sizeof(double) * 3 * (size_t)s->m->n);
  s->have_prev = 1;
  return SIM_OK;
}

/* SPDX-License-Identifier: MIT */
/* Constraint pins as bilateral contacts (world_pins.h): one per pinned vertex, rows along the
   axes x, y, z with targets d_r = e_r . p (core/contact/rows.c) and compliance E_b; the list of
   vertices whose positions the pins and the cables read. */
#include "world_pins.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../model/cable.h"

int sim_world_pins_init(sim_world *w, sim_status *st) {
  int n = w->m->ncpin;
  if (n == 0) return SIM_OK;
  w->pins.c = SIM_NEW0(sim_contact, n);
  if (!w->pins.c) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d constraint pins)", n);
  w->pins.cap = n;
  return SIM_OK;
}

void sim_world_pins(sim_world *w, double t1, const double *x) {
  const sim_model *m = w->m;
  sim_detect_contacts *o = &w->pins;
  for (int k = 0; k < m->ncpin; k++) {
    sim_contact *c = &o->c[k];
    int v = m->cpin_vert[k];
    memset(c, 0, sizeof *c);
    c->kind = SIM_CONTACT_BILATERAL;
    c->v = v;
    c->source = m->cpin_of[v];
    c->compliance = m->scene->pins[c->source].compliance;
    sim_cpin_position(m, k, t1, c->p);
    double d2 = 0.0;
    for (int i = 0; i < 3; i++) {
      c->tri[i] = -1;
      c->n[i] = i == 0, c->t1[i] = i == 1, c->t2[i] = i == 2;
      d2 += (x[3 * (size_t)v + i] - c->p[i]) * (x[3 * (size_t)v + i] - c->p[i]);
    }
    c->gap = sqrt(d2);
  }
  o->n = m->ncpin;
  o->min_sep = w->par.min_sep;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) o->count[k] = 0;
  o->count[SIM_CONTACT_BILATERAL] = o->n;
}

int sim_world_reads_init(sim_world *w, sim_status *st) {
  const sim_model *m = w->m;
  w->nread = w->nread_pred = 0;
  if (m->ncpin == 0 && m->ncable == 0) return SIM_OK;
  unsigned char *read = SIM_NEW0(unsigned char, m->n + 1); /* 2: a cable's, 1: a pin's only */
  if (!read) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact world)");
  for (int k = 0; k < m->ncpin; k++) read[m->cpin_vert[k]] = 1;
  for (int c = 0; c < m->ncable; c++)
    for (int i = 0; i < m->cable[c].npoints; i++)
      for (int a = 0; a < 4; a++) read[m->cable[c].vert[i][a]] = 2;
  int n = 0;
  for (int v = 0; v < m->n; v++) n += read[v] != 0;
  w->read_vert = SIM_NEW(int, n + 1);
  if (w->read_vert) /* the cables' vertices first: q~ is read at those alone */
    for (int pass = 2; pass >= 1; pass--) {
      for (int v = 0; v < m->n; v++)
        if (read[v] == pass) w->read_vert[w->nread++] = v;
      if (pass == 2) w->nread_pred = w->nread;
    }
  sim_free(read);
  return w->read_vert ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact world)");
}

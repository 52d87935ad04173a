/* SPDX-License-Identifier: MIT */
/* Scene cables as bilateral contacts (world_pins.h; contact.h SIM_CONTACT_CABLE): one per cable,
   its row the length's gradient at the step's prediction q~ (sim_world_detect's x_pred; q_t
   where there is none), its target the length at t + h.
   Why q~ and not q_t: the row holds the force's direction fixed over the step. Taken at q_t,
   the direction lags the motion by a step, and the force's turn as the cable moves (its
   geometric stiffness, tension x the length's Hessian) acts one step late: a velocity-
   dependent force of order T H v h, against implicit Euler's damping of order K v h, so no
   step size helps once T H exceeds the body's stiffness K. A hard cable pulled 0.2 through a
   grabbing_raptor finger (tension in the thousands) curled on and then flapped; taken at q~
   (off the solution by O(h^2)) it rests. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../model/cable.h"
#include "world_pins.h"

int sim_world_cables_init(sim_world *w, sim_status *st) {
  int n = w->m->ncable;
  if (n == 0) return SIM_OK;
  w->cable_row = SIM_NEW0(sim_cable_row, n);
  w->cables.c = SIM_NEW0(sim_contact, n);
  if (!w->cable_row || !w->cables.c)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d cables)", n);
  w->cables.cap = n;
  return SIM_OK;
}

/* row->terms: sum over the points of beta_ik grad_i on vertex v_ik, each vertex once */
static void cable_terms(const sim_cable *k, double (*grad)[3], sim_cable_row *row) {
  row->nt = 0;
  for (int i = 0; i < k->npoints; i++)
    for (int a = 0; a < 4; a++) {
      int v = k->vert[i][a], t = 0;
      while (t < row->nt && row->vert[t] != v) t++;
      if (t == row->nt) {
        row->vert[row->nt] = v;
        row->g[row->nt][0] = row->g[row->nt][1] = row->g[row->nt][2] = 0.0;
        row->nt++;
      }
      for (int d = 0; d < 3; d++) row->g[t][d] += k->beta[i][a] * grad[i][d];
    }
}

static int by_key(const void *a, const void *b) {
  return sim_contact_key_cmp((const sim_contact *)a, (const sim_contact *)b);
}

void sim_world_cables(sim_world *w, double t1, const double *x) {
  const sim_model *m = w->m;
  sim_contact *out = w->cables.c;
  for (int c = 0; c < m->ncable; c++) {
    const sim_cable *k = &m->cable[c];
    sim_cable_row *row = &w->cable_row[c];
    double grad[SIM_MAX_CABLE_POINTS][3];
    double L = sim_cable_length(k, x, grad);
    cable_terms(k, grad, row);
    row->target = k->rest_length - sim_cable_pull(k->def, t1);
    sim_contact *ct = &out[c];
    memset(ct, 0, sizeof *ct);
    ct->kind = SIM_CONTACT_CABLE;
    ct->source = c;
    ct->v = row->vert[0];
    for (int t = 1; t < row->nt; t++)
      if (row->vert[t] < ct->v) ct->v = row->vert[t];
    for (int i = 0; i < 3; i++) ct->tri[i] = -1;
    ct->gap = L - row->target;
    ct->compliance = k->def->compliance;
    ct->cable = row;
  }
  qsort(out, (size_t)m->ncable, sizeof *out, by_key);
  sim_detect_contacts *o = &w->cables;
  o->n = m->ncable;
  o->min_sep = w->par.min_sep;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) o->count[k] = 0;
  o->count[SIM_CONTACT_CABLE] = o->n;
}

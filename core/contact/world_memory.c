/* SPDX-License-Identifier: MIT */
/* What the next step's detection reads of the last one (world.h sim_world_memory_get/set): the
   last step's contacts, each marked where that step's q_t pass found it, for the side memory
   (remember_sides), and the count of folds' stray faces dropped so far. */
#include <string.h>

#include "../base/alloc.h"
#include "world.h"

void sim_world_memory_get(const sim_world *w, unsigned char *at_start) {
  int i = 0; /* w->now is sorted by key as w->out is (remember_sides' walk) */
  for (int j = 0; j < w->out.n; j++) {
    const sim_contact *c = &w->out.c[j];
    while (i < w->now.n && sim_contact_key_cmp(&w->now.c[i], c) < 0) i++;
    at_start[j] = i < w->now.n && sim_contact_key_cmp(&w->now.c[i], c) == 0;
  }
}

/* Whether contact e's indices are this world's: its vertices, and the surface, cable or
   obstacle the next step's side memory looks up. */
static int fits(const sim_model *m, int nmesh, const sim_contact *e) {
  if (e->v < 0 || e->v >= m->n || (int)e->kind < 0 || (int)e->kind >= SIM_CONTACT_KINDS) return 0;
  for (int k = 0; k < 3; k++)
    if (e->tri[k] < -1 || e->tri[k] >= m->n) return 0;
  const int s = e->source < 0 ? -1 : sim_contact_surface_of(e->source);
  switch (e->kind) {
    case SIM_CONTACT_MESH:
      return s >= 0 && s < nmesh;
    case SIM_CONTACT_BODY:
      return s >= 0 && s < m->nbodies;
    case SIM_CONTACT_CABLE:
      return e->source >= 0 && e->source < m->ncable;
    default:
      return 1;
  }
}

/* c[0..nc) into list `o`, a cable's row pointer set to the world's own. */
static int set_list(sim_world *w, sim_detect_contacts *o, const sim_contact *c, int nc,
                    const unsigned char *pick, sim_status *st) {
  int rc = sim_detect_contacts_reserve(o, nc, st);
  if (rc) return rc;
  o->n = 0;
  memset(o->count, 0, sizeof o->count);
  for (int j = 0; j < nc; j++) {
    if (pick && !pick[j]) continue;
    sim_contact *d = &o->c[o->n++];
    *d = c[j];
    d->cable = c[j].kind == SIM_CONTACT_CABLE ? &w->cable_row[c[j].source] : NULL;
    d->dev_ref = d->dev_slot = 0;
    o->count[d->kind]++;
  }
  return SIM_OK;
}

int sim_world_memory_check(const sim_model *m, const sim_contact *c, int nc, sim_status *st) {
  int nmesh = 0;
  for (int i = 0; i < m->scene->nobstacles; i++)
    nmesh += m->scene->obstacles[i].type == SIM_OBST_MESH;
  for (int j = 0; j < nc; j++) /* what a world of this model can hold, sorted by key */
    if (!fits(m, nmesh, &c[j]) || (j > 0 && sim_contact_key_cmp(&c[j - 1], &c[j]) >= 0))
      return sim_fail(st, SIM_ERR_IO,
                      "contact %d (vertex %d, kind %d, source %d) is not one of "
                      "this scene's, in order",
                      j, c[j].v, (int)c[j].kind, c[j].source);
  return SIM_OK;
}

int sim_world_memory_set(sim_world *w, const sim_contact *c, int nc, const unsigned char *at_start,
                         long long stray_creases, sim_status *st) {
  int rc = sim_world_memory_check(w->m, c, nc, st);
  if (!rc) rc = set_list(w, &w->out, c, nc, NULL, st);
  if (!rc) rc = set_list(w, &w->now, c, nc, at_start, st);
  w->stray_creases = stray_creases;
  return rc;
}

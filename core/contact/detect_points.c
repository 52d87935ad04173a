/* SPDX-License-Identifier: MIT */
/* The obstacle points' pass on the host (detect_points.h): the bodies' trees refit to q_t, every
   point against them, then refit to q~ for the points still without a contact. Output grown on
   demand; fails only on memory. */
#include "contact/detect_points.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "contact/detect_point.h"

static int push(sim_detect_contacts *o, const sim_contact *c) {
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 64;
    sim_contact *nc = sim_realloc(o->c, sizeof(sim_contact) * (size_t)cap);
    if (!nc) return -1;
    o->c = nc, o->cap = cap;
  }
  o->c[o->n++] = *c;
  return 0;
}

/* qsort order; the keys are distinct (one contact per obstacle point), so the order is total */
static int point_cmp(const void *a, const void *b) { return sim_contact_key_cmp(a, b); }

void sim_detect_points_finish(sim_detect_contacts *out) {
  if (out->n > 1) qsort(out->c, (size_t)out->n, sizeof(sim_contact), point_cmp);
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) out->count[k] = 0;
  for (int i = 0; i < out->n; i++) out->count[out->c[i].kind]++;
}

int sim_detect_points_run(sim_point_scene *s, sim_detect_contacts *out, unsigned char *found,
                          sim_status *st) {
  out->n = 0;
  const sim_point_view v = {s->nbodies, s->view,   s->tri,    s->tri_first,
                            s->cloth,   s->pinned, s->margin, s->creases};
  for (int pass = 0; pass < (s->x_pred ? 2 : 1); pass++) {
    const double *xp = pass ? s->x_pred : s->x;
    for (int b = 0; b < s->nbodies; b++) {
      sim_bvh_refit(&s->tri_bvh[b], xp);
      s->view[b] = sim_bvh_view_of(&s->tri_bvh[b]);
    }
    for (int k = 0; k < s->nmesh; k++) {
      const sim_detect_mesh *me = &s->mesh[k];
      for (int src = s->point_first[k]; src < s->point_first[k + 1]; src++) {
        if (pass && found[src]) continue; /* the q_t contact stands */
        found[src] = 0;
        sim_contact c[1 + SIM_POINT_FOLDS];
        const size_t o = 3 * (size_t)src;
        const int nc = sim_detect_point(&v, me->bodies, me->margin, pass, xp, s->x, s->x_prev,
                                        s->pt_xs + o, s->pt_x + o, &c[0], &c[1]);
        if (nc == 0) continue;
        found[src] = (unsigned char)(pass + 1);
        for (int i = 0; i < nc; i++) {
          c[i].source = src + i * SIM_CONTACT_CREASE;
          c[i].mu = me->mu;
          if (push(out, &c[i])) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
        }
      }
    }
  }
  sim_detect_points_finish(out);
  return SIM_OK;
}

int sim_detect_points_run_on(const sim_detect_runner *r, sim_point_scene *s,
                             sim_detect_contacts *out, unsigned char *found, sim_status *st) {
  if (r && r->points) return r->points(r->ctx, s, out, found, st);
  return sim_detect_points_run(s, out, found, st);
}

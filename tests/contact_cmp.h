/* SPDX-License-Identifier: MIT */
/* Contacts found on the device against the host's (test_gpu_detect.c, test_gpu_points.c): the
   same count per kind, and contact by contact the same kind, vertex, source and triangle, every
   value within 1e-12 relative; the device's each with the reference to the list it left a copy
   in (dev_ref nonzero, dev_slot >= 0), the host's with none (contact.h). */
#ifndef SIM_TEST_CONTACT_CMP_H
#define SIM_TEST_CONTACT_CMP_H
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "contact/detect.h"

static inline int close_rel(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (!(fabs(a[i] - b[i]) <= 1e-12 * (1.0 + fabs(a[i])))) return 0;
  return 1;
}

/* Host and device contacts the same; returns how many are bitwise the same. */
static inline int compare(const sim_detect_contacts *h, const sim_detect_contacts *g,
                          const char *what) {
  CHECK_INT(g->n, h->n);
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) CHECK_INT(g->count[k], h->count[k]);
  int bad = 0, same = 0;
  for (int i = 0; i < h->n && i < g->n; i++) {
    const sim_contact *a = &h->c[i], *b = &g->c[i];
    int ok = a->kind == b->kind && a->v == b->v && a->source == b->source &&
             !memcmp(a->tri, b->tri, sizeof a->tri) && b->cable == NULL;
    ok = ok && close_rel(a->w, b->w, 3) && close_rel(a->n, b->n, 3) && close_rel(a->t1, b->t1, 3) &&
         close_rel(a->t2, b->t2, 3) && close_rel(a->p, b->p, 3) && close_rel(a->u, b->u, 3) &&
         close_rel(&a->gap, &b->gap, 1) && close_rel(&a->mu, &b->mu, 1) &&
         a->compliance == b->compliance && a->dev_ref == 0 && a->dev_slot == 0 &&
         b->dev_ref != 0 && b->dev_slot >= 0;
    if (!ok && bad++ < 5)
      fprintf(stderr, "%s: contact %d differs: host (v %d kind %d src %d gap %.17g) device (v %d "
              "kind %d src %d gap %.17g)\n", what, i, a->v, a->kind, a->source, a->gap, b->v,
              b->kind, b->source, b->gap);
    sim_contact bb = *b; /* bitwise, but for where the device left its copy */
    bb.dev_ref = bb.dev_slot = 0;
    same += ok && !memcmp(a, &bb, sizeof *a);
  }
  check_report(bad == 0, __FILE__, __LINE__, "%s: %d of %d contacts differ", what, bad, h->n);
  return same;
}

#endif

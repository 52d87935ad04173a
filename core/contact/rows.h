/* SPDX-License-Identifier: MIT */
/* The three constraint rows of each contact (core/contact/contact.h; DESIGN.md Sec. 6) as an
   operator: row 3j + r of H belongs to contact j, r = 0 normal, 1 and 2 the tangents,
     H_{3j+r} q = c_r . (q_v - sum_k w_k q_tri_k)      (BODY; q_v alone otherwise),
     H_{3j+r} q = c_r . ((1 - w_0) q_v + w_0 q_tri0 - w_1 q_tri1 - w_2 q_tri2)   (EDGE),
     H_{3j+r} q = c_r . ((1 - w_0) q_v + w_0 q_tri0)   (OBSTACLE_EDGE),
   and a CABLE's row 0 is sum_t g_t . q_{vert_t}, its rows 1 and 2 zero (contact.h).
   Vectors of positions are 3 interleaved columns (x0 y0 z0 x1 ...).
   free_of == NULL: H acts on the positions of all vertices (pinned ones included, they simply
   have known positions). free_of != NULL: the vector lives on the free unknowns (3 nfree,
   unknown free_of[vertex]) and pinned vertices (free_of = -1) are skipped: H_free. */
#ifndef SIM_CONTACT_ROWS_H
#define SIM_CONTACT_ROWS_H

#include "../base/mathx.h"
#include "contact.h"

/* Up to 4 (vertex, beta) terms of C_j for a contact of kind `kind` on vertex v, tri and w: (v, 1)
   and, for BODY, (tri_k, -w_k); for TRIANGLE the 3 terms (tri_k, w_k); for EDGE (v, 1 - w_0),
   (tri_0, w_0), (tri_1, -w_1), (tri_2, -w_2); for OBSTACLE_EDGE (v, 1 - w_0), (tri_0, w_0).
   Returns the count; 0 for CABLE, whose row is not a
   direction times a vertex combination: its terms (vertex, 3-vector g) are c->cable's. SIM_HD: the
   CUDA backend builds its rows on the device with it (gpu/rows_cuda.cu). */
SIM_HD int sim_rows_terms_of(int kind, int v, const int tri[3], const double w[3], int vert[4],
                             double beta[4]) {
  if (kind == SIM_CONTACT_CABLE) return 0; /* its terms are c->cable's */
  if (kind == SIM_CONTACT_TRIANGLE) {
    for (int k = 0; k < 3; k++) vert[k] = tri[k], beta[k] = w[k];
    return 3;
  }
  vert[0] = v;
  beta[0] = 1.0;
  if (kind == SIM_CONTACT_OBSTACLE_EDGE) {
    beta[0] = 1.0 - w[0];
    vert[1] = tri[0], beta[1] = w[0];
    return 2;
  }
  if (kind == SIM_CONTACT_EDGE) {
    beta[0] = 1.0 - w[0];
    for (int k = 0; k < 3; k++) vert[k + 1] = tri[k], beta[k + 1] = k ? -w[k] : w[0];
    return 4;
  }
  if (kind != SIM_CONTACT_BODY) return 1;
  for (int k = 0; k < 3; k++) {
    vert[k + 1] = tri[k];
    beta[k + 1] = -w[k];
  }
  return 4;
}

/* Contact c's terms (above). */
SIM_HD int sim_rows_terms(const sim_contact *c, int vert[4], double beta[4]) {
  return sim_rows_terms_of(c->kind, c->v, c->tri, c->w, vert, beta);
}

/* out[3j + r] = H_{3j+r} x for the 3 nc rows. Rows are independent (parallel, deterministic). */
void sim_rows_apply(const sim_contact *c, int nc, const int *free_of, const double *x, double *out);

/* f += H^T lambda (lambda: 3 nc). Serial, in contact order: bitwise reproducible. */
void sim_rows_apply_T(const sim_contact *c, int nc, const int *free_of, const double *lambda,
                      double *f);

/* Contact c's targets d[0..2] (sim_rows_targets below; a CABLE's length is cable_target,
   since c->cable is host memory). SIM_HD: the CUDA backend's device Newton solve forms its
   targets on the device with it. */
SIM_HD void sim_rows_target(const sim_contact *c, double min_sep, double cable_target,
                            double d[3]) {
  if (c->kind == SIM_CONTACT_BODY || c->kind == SIM_CONTACT_EDGE) {
    d[0] = min_sep;
    d[1] = d[2] = 0.0;
    return;
  }
  if (c->kind == SIM_CONTACT_CABLE) { /* the target length; empty rows 1, 2 */
    d[0] = cable_target;
    d[1] = d[2] = 0.0;
    return;
  }
  const double *dir[3] = {c->n, c->t1, c->t2}, *p = c->p, *u = c->u;
  if (c->kind == SIM_CONTACT_BILATERAL) { /* d_r = c_r . p on all three axes */
    for (int r = 0; r < 3; r++) d[r] = dir[r][0] * p[0] + dir[r][1] * p[1] + dir[r][2] * p[2];
    return;
  }
  d[0] = dir[0][0] * p[0] + dir[0][1] * p[1] + dir[0][2] * p[2] + min_sep;
  for (int r = 1; r < 3; r++) d[r] = dir[r][0] * u[0] + dir[r][1] * u[1] + dir[r][2] * u[2];
}

/* Targets d (3 nc), per contact.h:
     normal   d_n = n . p + min_sep (OBSTACLE, MESH, OBSTACLE_EDGE), min_sep (BODY, EDGE);
     friction d_r = c_r . u (r = 1, 2; u = obstacle surface velocity), 0 for BODY, EDGE;
     BILATERAL d_r = c_r . p on all three rows (positions; no min_sep, no velocity);
     CABLE     d_0 = the target length, d_1 = d_2 = 0. */
void sim_rows_targets(const sim_contact *c, int nc, double min_sep, double *d);

#endif

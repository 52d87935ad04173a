/* SPDX-License-Identifier: MIT */
/* The mesh obstacles' points against the bodies' surface triangles, once per detection (kind
   SIM_CONTACT_TRIANGLE; world.h describes the passes, detect_point.h one point's contact): at
   q_t, then at the prediction q~ for the points without a contact at q_t. sim_point_scene holds
   what the pass reads; the host runs it here (sim_detect_points_run), the CUDA detector on the
   device from the same scene (gpu/points_cuda.cu, sim_detect_runner's points), and both give
   the same contacts in the same order. */
#ifndef SIM_CONTACT_DETECT_POINTS_H
#define SIM_CONTACT_DETECT_POINTS_H
#include "contact/detect.h"

struct sim_point_scene {
  unsigned long long serial; /* distinct for each set of trees and points (sim_detect_new_serial):
                                device copies of the trees and points key on it */
  int nv, nbodies, ntri, nmesh;
  const double *x;      /* 3 nv: q_t */
  const double *x_prev; /* the step before, or NULL (a cloth side in the plane at q_t) */
  const double *x_pred; /* q~, or NULL: the q_t pass alone */
  sim_bvh *tri_bvh;     /* nbodies, over each body's surface triangles (the host refits them) */
  sim_bvh_view *view;   /* nbodies: the host's workspace for their views */
  const int *tri;       /* 3 ntri: every body's triangles, global vertex indices */
  const int *tri_first; /* nbodies: the body's first triangle */
  const unsigned char *cloth;  /* nbodies: 1 for cloth */
  const unsigned char *pinned; /* nv */
  const int *point_first;      /* nmesh + 1: mesh k owns points point_first[k] .. [k + 1] - 1 */
  const double *pt_x;          /* 3 point_first[nmesh]: the points, posed at t + h */
  const double *pt_xs;         /* the same, posed at t (equal for a mesh that does not move) */
  const sim_detect_mesh *mesh; /* nmesh: mu, bodies (the mask), moving (its points move) */
  double margin;
  int creases; /* sim_detect_params.creases: a point's contacts in folds (detect_point.h) */
};

/* The contacts into out (sorted by (v, kind, source); one per point at most, and with creases
   up to SIM_POINT_FOLDS more in folds, their sources the point's + k SIM_CONTACT_CREASE;
   out->count set,
   out->min_sep left alone) and found[p] for every point: 0 none, 1 at q_t, 2 at q~. */
int sim_detect_points_run(sim_point_scene *s, sim_detect_contacts *out, unsigned char *found,
                          sim_status *st);
/* sim_detect_points_run, or r's device pass when r and r->points are set. */
int sim_detect_points_run_on(const sim_detect_runner *r, sim_point_scene *s,
                             sim_detect_contacts *out, unsigned char *found, sim_status *st);
/* Sorts out's contacts by key and counts them by kind (the device pass's contacts arrive in
   point order). */
void sim_detect_points_finish(sim_detect_contacts *out);

#endif

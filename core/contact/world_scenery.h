/* SPDX-License-Identifier: MIT */
/* The contact world's obstacles as one triangle soup, for pictures and OBJ frames.
   Every obstacle is tessellated in its pose at a given time (its script's; the world's own
   pose, that of the step sim_world_detect last posed it for, is not read):
   - box: 12 triangles; sphere, capsule, finite cylinder (with its caps) and torus: surfaces of
     revolution about the local y axis, SIM_SCENERY_SEGMENTS segments around; every vertex lies
     on the surface (sim_obstacle_phi = 0 up to rounding);
   - the infinite shapes are cut to a region of interest [lo, hi] (the bodies' bounds): with
     c = (lo + hi) / 2 and L = max(1.5 max_i (hi_i - lo_i), 1 m), a plane becomes the square of
     half side L centred at c's projection onto it (2 triangles), an infinite cylinder the open
     tube of half length L centred at the axis point nearest c;
   - mesh obstacles: their posed vertices and triangles as they are.
   Obstacles come in the world's order: the analytic ones (w->obs[k], object k), then the
   meshes (w->mesh[k], object nobs + k). */
#ifndef SIM_CONTACT_WORLD_SCENERY_H
#define SIM_CONTACT_WORLD_SCENERY_H
#include "sdf.h"
#include "world.h"

enum { SIM_SCENERY_SEGMENTS = 24 };

typedef struct sim_scenery {
  int nv, nt, nobj;
  double *x;          /* 3 nv positions, world */
  int *tri;           /* 3 nt vertex indices */
  int *tri_obj;       /* nt: the obstacle (object) each triangle belongs to */
  int *obj_v, *obj_t; /* nobj + 1: each object's first vertex and first triangle */
  const char **names; /* nobj object names (borrowed; may be NULL entries) */
  /* nobj: an analytic obstacle's local frame as drawn (posed) and at rest (the scene's
     placement, before its script: sim_world_scenery), posed[k] 1; a mesh's posed[k] 0. A point
     x of the drawn obstacle is rest(frame^-1(x)) in the scene's obstacle */
  sim_frame *frames, *rests;
  int *posed;
  int cap_v, cap_t, cap_obj;
} sim_scenery;

/* Empties *s, keeping its buffers. */
void sim_scenery_clear(sim_scenery *s);
/* Appends one analytic obstacle as a new object named `name`; infinite shapes are cut to
   [lo, hi] (see above). SIM_ERR_MEMORY on failure (*s keeps what it had). */
int sim_scenery_add_obstacle(sim_scenery *s, const sim_obstacle *o, const double lo[3],
                             const double hi[3], const char *name, sim_status *st);
/* Appends a triangle mesh (3 nv positions, 3 nt indices in [0, nv)) as a new object. */
int sim_scenery_add_mesh(sim_scenery *s, int nv, const double *x, int nt, const int *tri,
                         const char *name, sim_status *st);
/* Replaces *out by every obstacle of w in its pose at time t, named as in the scene. */
int sim_world_scenery(const sim_world *w, double t, const double lo[3], const double hi[3],
                      sim_scenery *out, sim_status *st);
void sim_scenery_free(sim_scenery *s);

#endif

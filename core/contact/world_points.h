/* SPDX-License-Identifier: MIT */
/* Mesh obstacles' vertices against the bodies' triangles (world.h, contact.h kind
   SIM_CONTACT_TRIANGLE). Private to core/contact/world*.c. */
#ifndef SIM_CONTACT_WORLD_POINTS_H
#define SIM_CONTACT_WORLD_POINTS_H
#include "detect_points.h"
#include "world.h"

/* BVHs over every body's surface triangles (cloth included) when the scene has mesh
   obstacles. */
int sim_world_points_init(sim_world *w, sim_status *st);
void sim_world_points_free(sim_world *w);
/* The points pass of a detection (sim_detect_passes_on runs it with the vertex passes, through
   w->runner: the host's pass, or a backend's device pass): contacts of every mesh-obstacle
   vertex (posed) with the nearest body triangle within the margin, at x (q_t) and, for
   vertices without one, at x_pred (q~); sorted by (v, source) into w->pts. Fills *s and *job
   (job->s = s) and returns 1 where the scene has mesh obstacles; else 0 (w->pts empty). */
int sim_world_points_job(sim_world *w, const double *x, const double *x_prev,
                         const double *x_pred, sim_point_scene *s, sim_detect_points_job *job);
/* The mesh obstacle (index into w->mesh) that owns point `source`. */
int sim_world_point_mesh(const sim_world *w, int source);

#endif

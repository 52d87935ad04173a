/* SPDX-License-Identifier: MIT */
/* Collision detection's work per vertex, counted in a benchmark build only (cmake
   -DSIMCTL_DETECT_TALLY=ON; scripts/detect_tally.sh builds one and prints its figures): the
   box tests of a vertex's queries (a tree node's or, with contact.edge_edge, a triangle's box
   against a point's ball, sim_bvh_box_d2, or against a box, sim_bvh_box_meets: each test
   one) and the closest points to triangles they compute (sim_tri_closest_point: the nearest
   triangle's search, the pseudo-normals, each step of a sweep's conservative advancement;
   with contact.edge_edge also the pairs of segments, sim_seg_closest_inner, counted with
   them). On a GPU a pass is a thread per vertex whose loads follow one another, so the pass
   lasts about as long as its busiest vertex's count; the mean is the CPU's work.
   sim_detect_run adds each vertex's counts up per pass and prints a line per pass on stderr
   ("detect tally: ..."). Without the option the counting compiles to nothing; it is never
   compiled for the device (CMake defines it for C sources only). */
#ifndef SIM_CONTACT_DETECT_TALLY_H
#define SIM_CONTACT_DETECT_TALLY_H

#if defined(SIM_DETECT_TALLY) && !defined(__cplusplus)
extern _Thread_local long sim_tally_boxes, sim_tally_tris; /* the vertex's so far (detect.c) */
#define SIM_TALLY_BOX() ((void)sim_tally_boxes++)
#define SIM_TALLY_TRI() ((void)sim_tally_tris++)
#else
#define SIM_TALLY_BOX() ((void)0)
#define SIM_TALLY_TRI() ((void)0)
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* The scene's contact world: its obstacles and bodies as collision detection sees them
   (core/contact/detect.h), posed at each step's end.
   - Analytic obstacles (plane, box, sphere, capsule, cylinder, torus) and triangle-mesh
     obstacles (read from OBJ/OFF/STL, the scene transform applied; closed "auto" decided by
     sim_surface_check_closed) with their mu and body filter (`touches`).
   - A scripted obstacle moves rigidly by its script M_t (x -> Q_t x + c_t, the same steps as
     pins). Contacts of the step from t to t + h are found against the pose at t + h (where the
     rows hold at the end of the step), from the vertices at q_t; in the q_t pass a scripted
     obstacle's contact takes its feature and gap where the vertex meets the obstacle posed at
     t (its step map, detect.h sim_detect_step), and a scripted mesh's point its triangle where
     the point is at t (detect_point.h), so min_gap is the gap at the step's start. The
     obstacle's velocity at a contact point p is its spin (cylinder) plus the script's motion
     over the step, (p - M_t(M_{t+h}^{-1}(p))) / h.
   - Bodies: every tetrahedral body's boundary surface is a target of the other bodies'
     vertices when contact.bodies is on (and of its own with contact.self_collision), with mu =
     contact.mu. Cloth bodies are open surfaces: their vertices touch obstacles and the other
     bodies' surfaces, and their triangles are the other bodies' targets, unsigned, each vertex
     held on the side it came from (detect_body.h), and their own with self_collision. A
     body's own triangles are its vertex's targets where they do not have the vertex and lie
     at least SIM_WORLD_SELF_REST margins from it at rest (the model's x_rest): a cloth
     folded onto itself, not a flat cloth's vertex against its neighbours' triangles beside it.
     With contact.edge_edge the bodies' surface edges meet each other's too (detect_edge.h),
     within a body past the same rest distance; sim_world_init refuses a mesh beyond its
     limits (16 edges a vertex to higher-numbered vertices, SIM_CONTACT_EDGE_VERTS vertices).
   - Pinned vertices meet the bodies' triangles alone (they follow their script; not
     obstacles, nor triangles of pinned vertices; their edges still meet free ones).
   Two passes: from the vertices at q_t (what touches now) and at the prediction q~ (what the
   step would reach: a vertex faster than margin / h is caught before it passes through). A
   vertex and obstacle found by both keep the q_t contact (the prediction pass skips the q_t
   pass's keys: sim_detect_params.skip_first, so a device detector copies none down twice). A
   contact found only at q~ faces the side the vertex is on at q_t (face_prev: a blade's turned
   round, an analytic or closed obstacle's taken at q_t where q~ is past its far side), and the
   segment from q_t to q~ is followed (sweep), so a vertex that would cross a blade or a thin
   obstacle within the step is held on its side. A vertex in contact with a blade (an open mesh
   obstacle) at the step before keeps that contact's side in the q_t pass (sides), so one
   resting on a blade's face, in its plane to rounding, is not turned to its back.
   Constraint pins (scene pins with "mode": "constraint") add one bilateral contact per pinned
   vertex (kind SIM_CONTACT_BILATERAL, contact.h; core/contact/world_pins.h) after detection,
   merged into the sorted list; those vertices are free unknowns and collide like any other.
   Scene cables add one contact each (kind SIM_CONTACT_CABLE, its length row) the same way.
   Mesh obstacles' vertices are also tested against every body's triangles, cloth included
   (kind SIM_CONTACT_TRIANGLE, contact.h): a blade's tip or edge between the cloth's vertices
   holds the cloth up. */
#ifndef SIM_CONTACT_WORLD_H
#define SIM_CONTACT_WORLD_H
#include "../model/model.h"
#include "detect.h"

#define SIM_WORLD_SELF_REST 2.0 /* margins: a body's own triangles nearer at rest are skipped */

typedef struct sim_world_motion {
  double Q[9], c[3]; /* x -> Q x + c */
} sim_world_motion;

typedef struct sim_world {
  const sim_model *m;
  int active;  /* 1 when there are constraint rows to solve: collide, or constraint pins */
  int collide; /* 1 when anything can touch anything: obstacles, or body-body contact */
  sim_detect_params par;
  int nobs, nmesh;
  sim_detect_obstacle *obs; /* analytic obstacles, posed */
  sim_frame *obs_frame0;    /* their reference frames */
  int *obs_def;             /* scene obstacle index of obs[i] */
  sim_detect_mesh *mesh;
  double **mesh_x0;    /* reference (transformed) vertices */
  double **mesh_x;     /* posed vertices */
  int **mesh_tri;
  int *mesh_def;
  sim_world_motion *motion_t, *motion_t1; /* per scene obstacle: M_t and M_{t+h} */
  sim_detect_body *body;
  unsigned char *pinned;
  sim_detect det;
  int det_ready;
  sim_detect_runner runner; /* where the passes and re-detection run (default: host) */
  sim_detect_contacts out; /* the last detection's contacts */
  sim_detect_contacts now, ahead; /* the two passes */
  double min_gap; /* smallest signed distance at q_t among the contacts (+inf: none) */
  /* mesh obstacles' vertices against body triangles (world_points.c) */
  sim_bvh *tri_bvh;    /* per body, over its surface triangles (cloth included) */
  sim_bvh_view *tri_view;     /* per body: the host pass's workspace (detect_points.h) */
  unsigned char *body_cloth;  /* per body: 1 for cloth */
  unsigned long long pt_serial; /* the trees' and points' serial (detect_points.h) */
  int *tri_first;      /* per body: its first triangle in m->tri */
  int *point_first;    /* nmesh + 1: numbering of the obstacle points (vertices, edge samples) */
  double *pt_x0, *pt_x, *pt_xs; /* the points: reference, posed at t + h and at t */
  unsigned char *point_found;
  sim_detect_contacts pts, both; /* point contacts; now and ahead merged */
  sim_detect_contacts pins;      /* constraint pins' bilateral contacts (world_pins.c) */
  sim_detect_contacts cables;    /* cables' contacts (world_cables.c) */
  sim_cable_row *cable_row;      /* their rows, one per cable */
  int nread, *read_vert; /* the cables' vertices, then the pins' others (sim_world_host_reads) */
  int nread_pred;        /* of which the cables' (the first), read at q~ too */
  sim_contact_key *skip; /* re-detection: the keys of out, which it does not find again */
  int skip_cap;
  sim_detect_side *sides; /* the q_t pass's side memory: out's open-surface contacts of the */
  int nsides, sides_cap;  /* step before (detect.h sim_detect_params.sides); in re-detection
                             out's edge pairs (sim_detect_params.renew) */
  long long stray_creases; /* the fold's second faces dropped after a merge, in all steps
                              (sim_detect_drop_stray_creases) */
} sim_world;

/* The step's contacts (w->out) by what they hold a vertex against: SIM_WORLD_KINDS counts, one
   per kind (contact.h), but a BODY contact whose vertex is of the body it touches
   (self-collision) counted at index SIM_WORLD_SELF instead of SIM_CONTACT_BODY, an EDGE
   contact between edges of one body at SIM_WORLD_SELF_EDGE instead of SIM_CONTACT_EDGE, and a
   BODY contact on a fold's second face (detect_crease.h: its source B + SIM_CONTACT_CREASE), of
   another body or its own, at SIM_WORLD_CREASE. */
#define SIM_WORLD_SELF SIM_CONTACT_KINDS
#define SIM_WORLD_SELF_EDGE (SIM_CONTACT_KINDS + 1)
#define SIM_WORLD_CREASE (SIM_CONTACT_KINDS + 2)
#define SIM_WORLD_KINDS (SIM_CONTACT_KINDS + 3)
void sim_world_kind_counts(const sim_world *w, int counts[SIM_WORLD_KINDS]);

/* 1 when model m has anything for the contact stage to solve (obstacles, body-body contact,
   constraint pins or cables): what sim_world_init marks `active`, without building the world. */
int sim_world_needed(const sim_model *m);
/* Build the world of m's scene (reads mesh obstacles; errors name the obstacle and file). */
int sim_world_init(sim_world *w, const sim_model *m, sim_status *st);
/* Contacts for the step from t to t + h: vertices at x (q_t), x_prev (the step before, or
   NULL) and x_pred (q~, or NULL for the q_t pass alone); obstacles posed at t + h; constraint
   pins' targets at t + h. Result in w->out (sorted by vertex, kind, source). */
int sim_world_detect(sim_world *w, double t, double h, const double *x, const double *x_prev,
                     const double *x_pred, sim_status *st);
/* The positions sim_world_detect and sim_world_redetect read on the host when w->runner runs
   the detection passes (run, and points where there are mesh obstacles) on a device: those of
   the constraint pins' and the cables' vertices at q_t (*verts, their number returned: the
   cables' vertices first, sorted, then the pins' others, sorted) and the cables' alone at q~
   (the first *npred of them; npred may be NULL), nothing of the other vertices of q_t or q~,
   of x_prev or the step's end; -1 (*verts still set) when the host reads every position
   (detection on the host). A backend may leave the rest of those host arrays unwritten
   (core/solve/backend.h detect_download). */
int sim_world_host_reads(const sim_world *w, const int **verts, int *npred);
/* Re-detection at the step's end (contact.redetect): detection at x_end (the step's solution,
   obstacles still posed at t + h) finds vertices that ended inside an obstacle or another
   body's surface (gap < 0; a missed vertex merely closer than min_sep is left to the next
   step's detection) without a contact in w->out (they were farther than the
   margin at q_t and at the prediction: a bulge, or a vertex thrown by the solve). Those
   contacts are added to w->out (sorted; the prediction pass's rules: a blade contact faces
   the vertex's side at x_t, scripted obstacles' velocities), *added their number. Mesh
   obstacles' vertices against body triangles (TRIANGLE) are not re-detected. The detection
   itself leaves out what ended outside and what w->out has (sim_detect_params inside_only and
   skip), so a device detector copies only the contacts added. */
int sim_world_redetect(sim_world *w, double h, const double *x_t, const double *x_end,
                       int *added, sim_status *st);
/* Analytic obstacle k (w->obs[k]) and mesh obstacle k's vertices (3 w->mesh[k].nv into x) as
   their scripts pose them at time t, whatever the step the world is posed for (the frames'
   pictures are taken after the next step: core/app/writer.h). */
sim_obstacle sim_world_obstacle_at(const sim_world *w, int k, double t);
void sim_world_mesh_at(const sim_world *w, int k, double t, double *x);
/* The world's memory of its last step, for a resumed run (core/app/state_file.h): what the
   next step's detection reads of it besides the positions, i.e. the last step's contacts
   (w->out, which the backend's warm start holds too) and which of them that step's q_t pass
   found (at_start, w->out.n flags: the side memory's "behind"), and stray_creases. get fills
   at_start; set makes a fresh world's as get saw them (cables' rows its own, no device
   copies), or fails as check does. check: SIM_ERR_IO naming the first of c[0..nc) whose
   vertices, surface or cable model m lacks or that is out of key order. */
int sim_world_memory_check(const sim_model *m, const sim_contact *c, int nc, sim_status *st);
void sim_world_memory_get(const sim_world *w, unsigned char *at_start);
int sim_world_memory_set(sim_world *w, const sim_contact *c, int nc, const unsigned char *at_start,
                         long long stray_creases, sim_status *st);
void sim_world_free(sim_world *w);

#endif

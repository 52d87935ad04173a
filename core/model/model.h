/* SPDX-License-Identifier: MIT */
/* The simulation model: all bodies concatenated into flat arrays, elements, pins, system. */
#ifndef SIM_MODEL_H
#define SIM_MODEL_H
#include <stddef.h>

#include "../base/status.h"
#include "../scene/scene.h"

/* Per-element rest data. Tetrahedra: F = sum_a x_a g_a^T (3x3) with g_0 = -(g_1+g_2+g_3) and
   g_1..g_3 the rows of Dm^{-1} (Dm = [X1-X0, X2-X0, X3-X0]). Cloth triangles: the same with three
   corners and g_a[2] = 0, g_1, g_2 the rows of the 2x2 Dm^{-1} in the rest triangle's own
   orthonormal frame, so F = sum_a x_a g_a^T is the 3x2 deformation gradient (third column 0). */
typedef struct sim_elem {
  int v[4];          /* corners; v[3] = -1 for a triangle */
  double g[4][3];    /* gradient vectors g_a */
  double vol;        /* rest measure V_i: volume, or area x thickness for cloth */
  double w;          /* constraint weight w_i (ARAP: 2 mu V_i; ADMM-PD materials: see material.h) */
  double mu, lambda; /* Lame parameters of the body's material (plane stress for cloth) */
  unsigned char nv;  /* 4 (tetrahedron) or 3 (cloth triangle) */
  unsigned char dim; /* 3 or 2: columns of F */
  unsigned char model; /* sim_material_model */
} sim_elem;

typedef struct sim_pin_group {
  const sim_pin_def *def; /* script from the scene */
  double start_time;      /* always 0 for now */
} sim_pin_group;

typedef struct sim_model {
  const sim_scene *scene;
  int n; /* vertices, all bodies */
  int nbodies;
  int *body_vert_start; /* nbodies + 1 */
  int *vert_body;       /* n */
  double *x_rest;       /* 3n world-space rest (initial) positions */
  double *v_init;       /* 3n initial velocities */
  double *mass;         /* n lumped masses, kg */
  int nelem;            /* elements: tetrahedra and cloth triangles, body by body */
  int ntet, ncloth;     /* of which tetrahedra / cloth triangles */
  sim_elem *elems;
  int *elem_body; /* nelem */
  int admm;       /* some element uses an ADMM-PD material (needs a dual per element) */
  /* cloth bending stencils (core/model/bending.h), constant terms of A_s, and the vertex ->
     (stencil entry) incidence in CSR for the gather form of the right-hand side */
  struct sim_bending *bend;
  int *vb_ptr; /* n + 1 */
  int *vb_idx; /* entry index into bend->vid / coef */
  int *ent_st; /* entry -> its stencil */
  int ntri;    /* boundary triangles, for OBJ / PNG */
  int *tri;
  int *tri_body;
  /* vertex -> incident (element, corner) pairs, CSR, for the gather form of the local step */
  int *vt_ptr; /* n + 1 */
  int *vt_idx; /* element * 4 + corner */
  /* pins: vertex -> pin group (or -1); free unknowns */
  int *pin_of; /* n */
  int npinned;
  int *pinned; /* npinned vertex ids */
  int nfree;
  int *free_of;   /* n: unknown index or -1 */
  int *free_vert; /* nfree: vertex id */
  /* constraint pins (sim_pin_mode SIM_PIN_CONSTRAINT): their vertices stay free unknowns and
     are held by bilateral rows in the contact solve (core/contact/contact.h) */
  int *cpin_of; /* n: constraint pin index, or -1 (also -1 where an eliminating pin wins) */
  int ncpin;
  int *cpin_vert; /* ncpin vertex ids, ascending */
  /* scene cables embedded in their bodies (core/model/cable.h) */
  int ncable;
  struct sim_cable *cable;
  /* the scalar system over free unknowns: A_s = M + h^2 sum w_i G_i^T G_i, upper triangle in
     CSC (column pointers, row indices <= column), and the coupling to pinned vertices in CSR
     (rows = free unknowns, columns = index into `pinned`) */
  double h;
  int *A_colptr, *A_rowidx;
  double *A_val;
  long long A_nnz;
  int *C_ptr, *C_idx;
  double *C_val;
  double total_mass, total_volume;
} sim_model;

/* Build meshes (generators / files / TetGen through the cache dir), transform them, lump
   masses, build elements, pins and the system matrix. Fails with SIM_ERR_SCENE, naming the
   scene key, where a body's parameters give a mass, momentum, element volume or weight,
   bending weight or system matrix entry beyond a double's range, or a mass or cloth volume
   below its normal range (e.g. density 1e308, velocity 1e308, thickness 1e-308). */
int sim_model_build(const sim_scene *sc, const char *cache_dir, sim_model *m, sim_status *st);
void sim_model_free(sim_model *m);

/* Build a body's mesh in world space: a tet mesh, or for a cloth body the triangle surface
   (`cloth`; `out` is then empty). */
struct sim_tetmesh;
struct sim_surface;
int sim_body_mesh(const sim_scene *sc, int body, const char *cache_dir, struct sim_tetmesh *out,
                  struct sim_surface *cloth, sim_status *st);
/* What a body's mesh messages start with: its mesh file, else the scene file and the body
   ("scene.json: bodies.0 (ball)"). */
void sim_body_mesh_name(const sim_scene *sc, int body, char *buf, size_t cap);

/* Largest extent of the rest configuration's bounding box (m): the scale a position difference
   is measured against. */
double sim_model_extent(const sim_model *m);

/* Total current measure of the elements at positions q: tet volumes plus cloth areas x
   thickness (tets count signed, so inverted ones subtract). */
double sim_model_measure(const sim_model *m, const double *q);
/* Tetrahedra turned inside out at positions q (det F <= 0); cloth triangles have no sign. */
int sim_model_inverted(const sim_model *m, const double *q);

/* R = Rz Ry Rx (row-major) from rotation angles about x, y, z in degrees. */
void sim_rotation_deg(const double deg[3], double R[9]);
/* A scene transform applied to nv points in place: scale, rotate, translate. */
void sim_transform_points(const sim_transform_def *t, double *x, int nv);

/* World position of pinned vertex `pv` (an index into m->pinned) at time t. */
void sim_pin_position(const sim_model *m, int pv, double t, double out[3]);
/* Target of constraint-pinned vertex `k` (an index into m->cpin_vert) at time t. */
void sim_cpin_position(const sim_model *m, int k, double t, double out[3]);
/* Rigid motion of a script (a pin's or an obstacle's steps) at time t applied to point x0. */
void sim_script_apply(const sim_pin_step *steps, int nsteps, double t, const double x0[3],
                      double out[3]);

/* Whether each vertex lies in the box (inclusive). */
static inline int sim_in_box(const double b[6], const double x[3]) {
  return x[0] >= b[0] && x[1] >= b[1] && x[2] >= b[2] && x[0] <= b[3] && x[1] <= b[4] &&
         x[2] <= b[5];
}

#endif

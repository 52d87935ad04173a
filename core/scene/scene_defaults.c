/* SPDX-License-Identifier: MIT */
/* Default values for every scene struct, and the JSON names of the enums. */
#include <math.h>
#include <string.h>

#include "scene_private.h"

const char *const scene_global_names[SIM_GLOBAL_COUNT] = {"auto", "sparse_inverse", "cholesky",
                                                         "jacobi", "dense_inverse"};
const char *const scene_device_names[3] = {"auto", "cpu", "cuda"};
const char *const scene_precision_names[2] = {"double", "float"};
const char *const scene_ordering_names[SIM_ORDER_COUNT] = {"metis", "amd", "nesdis", "best"};
const char *const scene_mesh_names[SCENE_MESH_COUNT] = {"bar",     "icosphere", "box",  "cylinder",
                                                        "capsule", "file",      "cloth"};
const char *const scene_model_names[SIM_MAT_COUNT] = {"arap", "corotational", "neo_hookean"};
const char *const scene_bending_names[SIM_BEND_COUNT] = {"none", "isometric", "laplace_beltrami"};
const char *const scene_lumping_names[2] = {"uniform", "volume"};
const char *const scene_step_names[3] = {"pulling", "rolling", "wait"};
const char *const scene_pin_mode_names[SIM_PIN_MODE_COUNT] = {"eliminate", "constraint"};
const char *const scene_format_names[4] = {"vtk", "obj", "png", "csv"};
const char *const scene_async_names[SIM_ASYNC_COUNT] = {"auto", "off", "on"};
const char *const scene_ncp_names[SIM_SCENE_NCP_COUNT] = {"fischer_burmeister", "min_map"};
const char *const scene_precond_names[SIM_SCENE_PRECOND_COUNT] = {"delassus", "mass"};
const char *const scene_delassus_names[SIM_SCENE_DELASSUS_COUNT] = {"auto", "dense", "operator",
                                                                    "blocks"};
const char *const scene_form_names[SIM_SCENE_FORM_COUNT] = {"compliance", "paper"};
const char *const scene_cr_pc_names[SIM_SCENE_CR_PC_COUNT] = {"jacobi", "none"};
const char *const scene_fjac_names[SIM_SCENE_FJAC_COUNT] = {"lagged", "exact"};
const char *const scene_obstacle_names[SIM_OBST_COUNT] = {"plane",    "box",   "sphere", "capsule",
                                                          "cylinder", "torus", "mesh"};

void scene_set_str(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memset(dst, 0, cap);
  memcpy(dst, src, n);
}

void sim_default_mesh(sim_mesh_def *m, sim_mesh_source_kind kind) {
  memset(m, 0, sizeof *m);
  m->kind = kind;
  for (int k = 0; k < 3; k++) {
    m->lo[k] = -1;
    m->hi[k] = 1;
    m->vertices[k] = 2;
  }
  /* cloth: vertices [nx, nz]; the unused third count is 1, so the product is the vertex count */
  if (kind == SIM_SRC_CLOTH) m->vertices[2] = 1;
  m->size[0] = m->size[1] = 1;
  m->radius = 1;
  m->height = 2;
  m->subdivisions = 3;
  m->segments = kind == SIM_SRC_BOX ? 4 : 24;
  m->rings = 8;
  m->tet_quality = 1.414;
  m->tet_max_volume = 0;
}

void sim_default_body(sim_body_def *b) {
  memset(b, 0, sizeof *b);
  scene_set_str(b->name, sizeof b->name, "body");
  sim_default_mesh(&b->mesh, SIM_SRC_ICOSPHERE);
  for (int k = 0; k < 3; k++) b->transform.scale[k] = 1;
  b->material.model = SIM_MAT_ARAP;
  b->material.density = 1000;
  b->material.mass = 0;
  b->material.lumping = SIM_LUMP_VOLUME;
  b->material.youngs_modulus = 1e6;
  b->material.poisson_ratio = 0.45;
  b->material.thickness = 0.001;
  b->bending.type = SIM_BEND_NONE;
  b->bending.stiffness = 1e-3;
}

void sim_default_contact(sim_contact_def *c) {
  memset(c, 0, sizeof *c);
  c->margin = 0.01;
  c->min_separation = 0;
  c->ncp = SIM_SCENE_NCP_FISCHER_BURMEISTER;
  c->preconditioner = SIM_SCENE_PRECOND_DELASSUS;
  c->cr_iterations = 10;
  c->cr_tolerance = 0;
  c->max_force = 0;
  c->warm_start = 1;
  c->bodies = 1;
  c->self_collision = 0;
  c->edge_edge = 0;
  c->obstacle_edges = 0;
  c->creases = 1;
  c->mu = 0;
  c->delassus = SIM_SCENE_DELASSUS_AUTO;
  c->formulation = SIM_SCENE_FORM_COMPLIANCE;
  c->cr_preconditioner = SIM_SCENE_CR_JACOBI;
  c->cr_precision = SIM_PREC_DOUBLE;
  c->newton_steps = 3;
  c->line_search = 8;
  c->redetect = 3;
  c->end_newton_steps = 20;
  c->end_tolerance = 1e-4;
  c->newton_tolerance = 1e-8;
  c->newton_jacobian = SIM_SCENE_FJAC_LAGGED;
}

void sim_default_obstacle_def(sim_obstacle_def *o, sim_obstacle_type type) {
  memset(o, 0, sizeof *o);
  scene_set_str(o->name, sizeof o->name, "obstacle");
  o->type = type;
  o->normal[1] = o->axis[1] = 1;
  for (int k = 0; k < 3; k++) {
    o->half_extents[k] = 0.5;
    o->transform.scale[k] = 1;
  }
  o->a[1] = -0.5;
  o->b[1] = 0.5;
  o->radius = 0.5;
  o->height = 0; /* infinite */
  o->major = 1;
  o->minor = 0.25;
  o->closed = SIM_CLOSED_AUTO;
  o->mu = 0;
  o->margin = NAN; /* contact.margin */
  o->touches = SIM_TOUCHES_ALL;
}

void sim_default_scene(sim_scene *s) {
  memset(s, 0, sizeof *s);
  scene_set_str(s->name, sizeof s->name, "scene");
  s->solver.dt = 0.01;
  s->solver.frames = 100;
  s->solver.lg_iterations = 5;
  s->solver.global = SIM_GLOBAL_AUTO;
  s->solver.device = SIM_DEVICE_AUTO;
  s->solver.precision = SIM_PREC_DOUBLE;
  s->solver.ordering = SIM_ORDER_METIS;
  s->solver.threads = 0;
  s->solver.chebyshev_rho = 0;
  s->solver.dense_max_mib = 2048;
  s->solver.gpu = 0;
  s->nbodies = 0;
  for (int i = 0; i < SIM_MAX_BODIES; i++) sim_default_body(&s->bodies[i]);
  s->npins = 0;
  s->ncables = 0;
  sim_default_contact(&s->contact);
  s->nobstacles = 0;
  for (int i = 0; i < SIM_MAX_OBSTACLES; i++)
    sim_default_obstacle_def(&s->obstacles[i], SIM_OBST_PLANE);
  scene_set_str(s->output.dir, sizeof s->output.dir, "out/scene");
  s->output.every = 1;
  s->output.formats = SIM_OUT_VTK | SIM_OUT_OBJ | SIM_OUT_CSV;
  s->output.png_width = 640;
  s->output.png_height = 480;
  s->output.async = SIM_ASYNC_AUTO;
}

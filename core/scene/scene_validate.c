/* SPDX-License-Identifier: MIT */
/* Scene validation: every range and cross-field rule, checked once on the filled structs. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "scene_private.h"

static int validate_solver(scene_ctx *c, const sim_solver_def *d) {
  scene_push_key(c, "solver");
  int rc = scene_chk_num(c, "dt", d->dt, SCENE_GE, SCENE_DT_MIN, SCENE_LE, 1);
  if (!rc) rc = scene_chk_int(c, "frames", d->frames, 1, SCENE_FRAMES_MAX);
  if (!rc) rc = scene_chk_int(c, "lg_iterations", d->lg_iterations, 1, SCENE_LG_MAX);
  if (!rc) rc = scene_chk_enum(c, "global", (int)d->global, scene_global_names, SIM_GLOBAL_COUNT);
  if (!rc) rc = scene_chk_enum(c, "device", (int)d->device, scene_device_names, 3);
  if (!rc) rc = scene_chk_enum(c, "precision", (int)d->precision, scene_precision_names, 2);
  if (!rc)
    rc = scene_chk_enum(c, "ordering", (int)d->ordering, scene_ordering_names, SIM_ORDER_COUNT);
  if (!rc) rc = scene_chk_int(c, "threads", d->threads, 0, SCENE_THREADS_MAX);
  if (!rc) rc = scene_chk_num(c, "chebyshev_rho", d->chebyshev_rho, SCENE_GE, 0, SCENE_LT, 1);
  if (!rc) rc = scene_chk_num(c, "dense_max_mib", d->dense_max_mib, SCENE_GT, 0, SCENE_LE, 1 << 30);
  if (!rc) rc = scene_chk_int(c, "gpu", d->gpu, 0, 1023);
  scene_pop(c);
  return rc;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int validate_file_mesh(scene_ctx *c, const sim_mesh_def *m) {
  static const char *const ext[] = {".obj", ".off", ".stl", ".node", ".ele", ".msh", ".vtk"};
  int rc = SIM_OK, known = 0;
  scene_push_key(c, "path");
  for (int i = 0; i < 7; i++) known |= ends_with(m->path, ext[i]);
  struct stat sb;
  if (!m->path[0]) {
    rc = scene_fail(c, 0, "expected a non-empty path");
  } else if (!known) {
    char q[128];
    scene_quote(m->path, q, sizeof q);
    rc = scene_fail(c, 0,
                    "expected a file ending in .obj, .off or .stl (surface, meshed by TetGen) or "
                    ".node, .ele, .msh or .vtk (tet mesh), got \"%s\"",
                    q);
  } else if (stat(m->path, &sb) != 0) {
    rc = scene_fail(c, 0, "file not found: %s", m->path);
  } else if (!S_ISREG(sb.st_mode)) {
    rc = scene_fail(c, 0, "not a regular file: %s", m->path);
  }
  scene_pop(c);
  return rc;
}

/* lo < hi in each component; the error points at hi.k. */
static int lo_below_hi(scene_ctx *c, const double lo[3], const double hi[3]) {
  if (scene_chk_finite(c, "lo", lo, 3) || scene_chk_finite(c, "hi", hi, 3)) return c->st->code;
  for (int k = 0; k < 3; k++) {
    if (hi[k] > lo[k]) continue;
    char a[40], b[40];
    scene_fmt_num(lo[k], a);
    scene_fmt_num(hi[k], b);
    scene_push_key(c, "hi");
    scene_push_index(c, k);
    int rc = scene_fail(c, 0, "expected a number > %s (lo.%d), got %s", a, k, b);
    scene_pop(c);
    scene_pop(c);
    return rc;
  }
  return SIM_OK;
}

/* `vertices`: n counts >= 2 each, at most `max` in all (the error points at the array). */
static int vertex_counts(scene_ctx *c, const int *v, int n, double max) {
  int rc = SIM_OK;
  double total = 1;
  scene_push_key(c, "vertices");
  for (int k = 0; k < n && !rc; k++) {
    scene_push_index(c, k);
    rc = scene_chk_int(c, NULL, v[k], 2, 1 << 30);
    scene_pop(c);
    total *= v[k];
  }
  if (!rc && total > max)
    rc = scene_fail(c, 0, "expected at most %.0f vertices in all, got %.0f", max, total);
  scene_pop(c);
  return rc;
}

static int validate_mesh(scene_ctx *c, const sim_mesh_def *m) {
  int rc = scene_chk_enum(c, "type", (int)m->kind, scene_mesh_names, SCENE_MESH_COUNT);
  if (rc) return rc;
  switch (m->kind) {
    case SIM_SRC_BAR:
      if (lo_below_hi(c, m->lo, m->hi)) return c->st->code;
      return vertex_counts(c, m->vertices, 3, SCENE_BAR_VERTICES_MAX); /* no TetGen for a bar */
    case SIM_SRC_CLOTH:
      scene_push_key(c, "size");
      for (int k = 0; k < 2 && !rc; k++) {
        scene_push_index(c, k);
        rc = scene_chk_num(c, NULL, m->size[k], SCENE_GT, 0, SCENE_NONE, 0);
        scene_pop(c);
      }
      scene_pop(c);
      if (rc) return rc;
      return vertex_counts(c, m->vertices, 2, SCENE_CLOTH_VERTICES_MAX); /* nor for a cloth */
    case SIM_SRC_ICOSPHERE:
      rc = scene_chk_num(c, "radius", m->radius, SCENE_GT, 0, SCENE_NONE, 0);
      if (!rc) rc = scene_chk_int(c, "subdivisions", m->subdivisions, 0, SCENE_SUBDIV_MAX);
      break;
    case SIM_SRC_BOX:
      rc = lo_below_hi(c, m->lo, m->hi);
      if (!rc) rc = scene_chk_int(c, "segments", m->segments, 1, SCENE_BOX_SEGMENTS_MAX);
      break;
    case SIM_SRC_CYLINDER:
    case SIM_SRC_CAPSULE:
      rc = scene_chk_num(c, "radius", m->radius, SCENE_GT, 0, SCENE_NONE, 0);
      /* a capsule of height 0 is a sphere */
      if (!rc)
        rc = scene_chk_num(c, "height", m->height, m->kind == SIM_SRC_CAPSULE ? SCENE_GE : SCENE_GT,
                           0, SCENE_NONE, 0);
      if (!rc) rc = scene_chk_int(c, "segments", m->segments, 3, SCENE_SEGMENTS_MAX);
      if (!rc) rc = scene_chk_int(c, "rings", m->rings, 1, SCENE_RINGS_MAX);
      break;
    case SIM_SRC_FILE:
      rc = validate_file_mesh(c, m);
      break;
  }
  if (rc) return rc;
  scene_push_key(c, "tetgen");
  scene_push_key(c, "quality");
  if (!isfinite(m->tet_quality) || (m->tet_quality != 0 && !(m->tet_quality >= 1.0))) {
    char got[40];
    scene_fmt_num(m->tet_quality, got);
    rc = scene_fail(c, 0, "expected 0 (off) or a number >= 1, got %s", got);
  }
  scene_pop(c);
  if (!rc) rc = scene_chk_num(c, "max_volume", m->tet_max_volume, SCENE_GE, 0, SCENE_NONE, 0);
  scene_pop(c);
  return rc;
}

static int validate_material(scene_ctx *c, const sim_material_def *m) {
  int rc = scene_chk_enum(c, "model", (int)m->model, scene_model_names, SIM_MAT_COUNT);
  /* mass > 0 selects the total mass (density unused); mass == 0 selects density */
  if (!rc && (m->mass != 0 || (m->density == 0 && scene_given(c, "mass"))))
    rc = scene_chk_num(c, "mass", m->mass, SCENE_GT, 0, SCENE_NONE, 0);
  else if (!rc)
    rc = scene_chk_num(c, "density", m->density, SCENE_GT, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_enum(c, "lumping", (int)m->lumping, scene_lumping_names, 2);
  if (!rc) rc = scene_chk_num(c, "youngs_modulus", m->youngs_modulus, SCENE_GT, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_num(c, "poisson_ratio", m->poisson_ratio, SCENE_GT, -1, SCENE_LT, 0.5);
  /* checked on every body so that a scene stays valid when its mesh becomes a cloth */
  if (!rc) rc = scene_chk_num(c, "thickness", m->thickness, SCENE_GT, 0, SCENE_NONE, 0);
  return rc;
}

static int validate_bending(scene_ctx *c, const sim_bending_def *d, sim_mesh_source_kind mesh) {
  int rc = scene_chk_enum(c, "type", (int)d->type, scene_bending_names, SIM_BEND_COUNT);
  if (!rc && d->type != SIM_BEND_NONE && mesh != SIM_SRC_CLOTH) {
    const int m = (int)mesh;
    scene_push_key(c, "type");
    rc = scene_fail(c, 0,
                    "expected \"none\" (bending needs a cloth mesh; this body's mesh is "
                    "\"%s\"), got \"%s\"",
                    m >= 0 && m < SCENE_MESH_COUNT ? scene_mesh_names[m] : "?",
                    scene_bending_names[d->type]);
    scene_pop(c);
  }
  if (!rc) rc = scene_chk_num(c, "stiffness", d->stiffness, SCENE_GE, 0, SCENE_NONE, 0);
  return rc;
}

static int validate_body(scene_ctx *c, const sim_scene *s, int i) {
  const sim_body_def *b = &s->bodies[i];
  if (scene_chk_name(c, b->name)) return c->st->code;
  for (int j = 0; j < i; j++)
    if (strcmp(s->bodies[j].name, b->name) == 0) {
      scene_push_key(c, "name");
      int rc = scene_fail(c, 0, "duplicate body name \"%s\" (also bodies.%d)", b->name, j);
      scene_pop(c);
      return rc;
    }
  scene_push_key(c, "mesh");
  int rc = validate_mesh(c, &b->mesh);
  scene_pop(c);
  if (rc) return rc;
  scene_push_key(c, "transform");
  rc = scene_chk_transform(c, &b->transform);
  scene_pop(c);
  if (rc) return rc;
  scene_push_key(c, "material");
  rc = validate_material(c, &b->material);
  scene_pop(c);
  if (rc) return rc;
  scene_push_key(c, "bending");
  rc = validate_bending(c, &b->bending, b->mesh.kind);
  scene_pop(c);
  if (!rc) rc = scene_chk_finite(c, "velocity", b->velocity, 3);
  return rc;
}

/* "body": an index into s->bodies (pins and cables). */
static int chk_body(scene_ctx *c, const sim_scene *s, int body) {
  scene_push_key(c, "body");
  int rc = SIM_OK;
  if (body < 0 || body >= s->nbodies)
    rc = scene_fail(c, 0, "expected a body index 0..%d, got %d", s->nbodies - 1, body);
  scene_pop(c);
  return rc;
}

static int validate_pin(scene_ctx *c, const sim_scene *s, int i) {
  const sim_pin_def *p = &s->pins[i];
  int rc = SIM_OK;
  if (chk_body(c, s, p->body) || scene_chk_finite(c, "box", p->box, 6)) return c->st->code;
  for (int k = 0; k < 3; k++) {
    if (p->box[k] <= p->box[k + 3]) continue;
    char a[40], b[40];
    scene_fmt_num(p->box[k], a);
    scene_fmt_num(p->box[k + 3], b);
    scene_push_key(c, "box");
    scene_push_index(c, k + 3);
    rc = scene_fail(c, 0, "expected a number >= %s (box.%d, the %c minimum), got %s", a, k,
                    "xyz"[k], b);
    scene_pop(c);
    scene_pop(c);
    return rc;
  }
  if (scene_chk_enum(c, "mode", (int)p->mode, scene_pin_mode_names, SIM_PIN_MODE_COUNT) ||
      scene_chk_num(c, "compliance", p->compliance, SCENE_GE, 0, SCENE_NONE, 0))
    return c->st->code;
  if (p->mode == SIM_PIN_ELIMINATE && p->compliance != 0.0) {
    char got[40];
    scene_fmt_num(p->compliance, got);
    scene_push_key(c, "compliance");
    rc = scene_fail(
        c, 0, "expected 0 for an \"eliminate\" pin (set \"mode\": \"constraint\"), got %s", got);
    scene_pop(c);
    return rc;
  }
  return scene_chk_script(c, p->steps, p->nsteps);
}

/* Only what the scene alone tells: the points' place in the body's mesh is checked when the
   model is built (core/model). */
static int validate_cable(scene_ctx *c, const sim_scene *s, int index) {
  const sim_cable_def *d = &s->cables[index];
  int rc = chk_body(c, s, d->body);
  double rest = 0; /* L_rest: the polyline's length at t = 0 */
  scene_push_key(c, "points");
  if (!rc && (d->npoints < 2 || d->npoints > SIM_MAX_CABLE_POINTS))
    rc = scene_fail(c, 0, "expected 2..%d points [x, y, z], got %d", SIM_MAX_CABLE_POINTS,
                    d->npoints);
  for (int i = 0; i < d->npoints && !rc; i++) {
    scene_push_index(c, i);
    for (int k = 0; k < 3 && !rc; k++) {
      scene_push_index(c, k);
      rc = scene_chk_num(c, NULL, d->points[i][k], SCENE_NONE, 0, SCENE_NONE, 0);
      scene_pop(c);
    }
    const double *a = d->points[i > 0 ? i - 1 : 0], *b = d->points[i];
    const double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    const double len = sqrt(dx * dx + dy * dy + dz * dz);
    rest += len;
    if (!rc && i > 0 && len == 0) {
      rc = scene_fail(c, 0, "expected a point more than 1e-12 from points.%d, got the same point",
                      i - 1);
    } else if (!rc && i > 0 && !(len > 1e-12)) {
      char got[40];
      scene_fmt_num(len, got);
      rc = scene_fail(c, 0, "expected a point more than 1e-12 from points.%d, got one %s away",
                      i - 1, got);
    }
    scene_pop(c);
  }
  scene_pop(c);
  if (!rc) rc = scene_chk_num(c, "compliance", d->compliance, SCENE_GE, 0, SCENE_NONE, 0);
  if (rc) return rc;
  scene_push_key(c, "pull");
  if (d->nkeys < 0 || d->nkeys > SIM_MAX_CABLE_KEYS)
    rc = scene_fail(c, 0, "expected at most %d keys [time, pull], got %d", SIM_MAX_CABLE_KEYS,
                    d->nkeys);
  for (int k = 0; k < d->nkeys && !rc; k++) {
    scene_push_index(c, k);
    scene_push_index(c, 0);
    rc = scene_chk_num(c, NULL, d->key_time[k], SCENE_GE, 0, SCENE_NONE, 0);
    if (!rc && k > 0 && !(d->key_time[k] > d->key_time[k - 1])) {
      char a[40], b[40];
      scene_fmt_num(d->key_time[k - 1], a);
      scene_fmt_num(d->key_time[k], b);
      rc = scene_fail(c, 0, "expected a time > %s (pull.%d.0: times strictly increasing), got %s",
                      a, k - 1, b);
    }
    scene_pop(c);
    scene_push_index(c, 1);
    if (!rc) rc = scene_chk_num(c, NULL, d->key_pull[k], SCENE_NONE, 0, SCENE_NONE, 0);
    if (!rc && !(d->key_pull[k] < rest)) { /* the target length L_rest - s stays > 0 */
      char a[40], b[40];
      scene_fmt_num(rest, a);
      scene_fmt_num(d->key_pull[k], b);
      rc = scene_fail(c, 0, "expected a pull < %s (the rest length, through the points), got %s", a,
                      b);
    }
    scene_pop(c);
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

static int validate_output(scene_ctx *c, const sim_output_def *o) {
  int rc = SIM_OK;
  scene_push_key(c, "output");
  if (!o->dir[0]) {
    scene_push_key(c, "dir");
    rc = scene_fail(c, 0, "expected a non-empty directory");
    scene_pop(c);
  }
  if (!rc) rc = scene_chk_int(c, "every", o->every, 1, 1 << 30);
  if (!rc && (o->formats & ~(SIM_OUT_VTK | SIM_OUT_OBJ | SIM_OUT_PNG | SIM_OUT_CSV))) {
    scene_push_key(c, "formats");
    rc = scene_fail(c, 0, "expected SIM_OUT_* bits, got 0x%x", (unsigned)o->formats);
    scene_pop(c);
  }
  if (!rc) {
    scene_push_key(c, "png_size");
    const int wh[2] = {o->png_width, o->png_height};
    for (int k = 0; k < 2 && !rc; k++) {
      scene_push_index(c, k);
      rc = scene_chk_int(c, NULL, wh[k], SCENE_PNG_MIN, SCENE_PNG_MAX);
      scene_pop(c);
    }
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

/* What makes the run solve contact or constraints (as sim_world_needed will on the model, but
   for self-collision, which depends on the meshes), or NULL. */
static const char *constrained_by(const sim_scene *s) {
  if (s->nobstacles > 0) return "obstacles";
  if (s->contact.bodies && s->nbodies > 1) return "contact between its bodies";
  if (s->ncables > 0) return "cables";
  for (int i = 0; i < s->npins; i++)
    if (s->pins[i].mode == SIM_PIN_CONSTRAINT) return "constraint pins";
  return NULL;
}

/* Contact and constraints are solved against the exact global step (stage.c), so the run's
   own refusal of Jacobi or Chebyshev there is validation's too. */
static int validate_exact_global(scene_ctx *c, const sim_scene *s) {
  const char *why = constrained_by(s);
  const int jacobi = s->solver.global == SIM_GLOBAL_JACOBI;
  if (!why || (!jacobi && !(s->solver.chebyshev_rho > 0))) return SIM_OK;
  scene_push_key(c, "solver");
  scene_push_key(c, jacobi ? "global" : "chebyshev_rho");
  int rc = scene_fail(c, 0,
                      "the scene's %s need an exact global solver: expected solver.global "
                      "sparse_inverse, cholesky or dense_inverse with chebyshev_rho 0",
                      why);
  scene_pop(c);
  scene_pop(c);
  return rc;
}

int scene_validate_ctx(scene_ctx *c, const sim_scene *s) {
  int rc = scene_chk_name(c, s->name);
  if (!rc) rc = validate_solver(c, &s->solver);
  if (!rc) rc = scene_chk_finite(c, "gravity", s->gravity, 3);
  if (!rc) rc = scene_chk_array(c, s, "bodies", s->nbodies, 1, SIM_MAX_BODIES, validate_body);
  if (!rc) rc = scene_chk_array(c, s, "pins", s->npins, 0, SIM_MAX_PINS, validate_pin);
  if (!rc) rc = scene_chk_array(c, s, "cables", s->ncables, 0, SIM_MAX_CABLES, validate_cable);
  if (!rc) rc = scene_validate_contact(c, s);
  if (!rc) rc = validate_exact_global(c, s);
  if (!rc) rc = validate_output(c, &s->output);
  return rc;
}

int sim_scene_validate(const sim_scene *s, sim_status *st) {
  sim_status_clear(st);
  scene_ctx c = {s->file[0] ? s->file : "scene", NULL, NULL, 0, st, {0}};
  return scene_validate_ctx(&c, s);
}

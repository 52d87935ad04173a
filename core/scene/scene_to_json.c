/* SPDX-License-Identifier: MIT */
/* The resolved scene as JSON (summary.json, `simctl validate`) that loads back identically. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene_private.h"

/* cJSON_Add* return NULL on failure; one flag collects them all. */
typedef struct jw {
  int bad;
} jw;

static cJSON *obj(jw *w, cJSON *parent, const char *key) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !(key ? cJSON_AddItemToObject(parent, key, o) : cJSON_AddItemToArray(parent, o))) {
    cJSON_Delete(o);
    w->bad = 1;
    return NULL;
  }
  return o;
}

/* A number as raw text: the shortest decimal that reads back exactly (cJSON's own printer
   accepts 15 digits when they come within an epsilon, which breaks exact round trips). */
static cJSON *exact(double v) {
  char buf[40];
  if (!isfinite(v)) return cJSON_CreateNull();
  scene_fmt_num(v, buf);
  return cJSON_CreateRaw(buf);
}

static void num(jw *w, cJSON *o, const char *key, double v) {
  cJSON *n = exact(v);
  if (!o || !n || !cJSON_AddItemToObject(o, key, n)) {
    cJSON_Delete(n);
    w->bad = 1;
  }
}

static void str(jw *w, cJSON *o, const char *key, const char *v) {
  if (!o || !cJSON_AddStringToObject(o, key, v)) w->bad = 1;
}

/* [v0, v1, ...] exactly; NULL (and w->bad) on failure. */
static cJSON *nums(jw *w, const double *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) {
    cJSON *e = exact(v[i]);
    if (!e || !cJSON_AddItemToArray(a, e)) {
      cJSON_Delete(e);
      w->bad = 1;
    }
  }
  if (!a) w->bad = 1;
  return a;
}

static void vec(jw *w, cJSON *o, const char *key, const double *v, int n) {
  cJSON *a = nums(w, v, n);
  if (!o || !a || !cJSON_AddItemToObject(o, key, a)) {
    cJSON_Delete(a);
    w->bad = 1;
  }
}

/* Append [v0, ..., v(n-1)] to the array `a`. */
static void row(jw *w, cJSON *a, const double *v, int n) {
  cJSON *r = nums(w, v, n);
  if (!a || !r || !cJSON_AddItemToArray(a, r)) {
    cJSON_Delete(r);
    w->bad = 1;
  }
}

static void ivec(jw *w, cJSON *o, const char *key, const int *v, int n) {
  cJSON *a = cJSON_CreateIntArray(v, n);
  if (!o || !a || !cJSON_AddItemToObject(o, key, a)) {
    cJSON_Delete(a);
    w->bad = 1;
  }
}

static const char *name_of(const char *const *names, int n, int v) {
  return v >= 0 && v < n ? names[v] : "?";
}

static void put_mesh(jw *w, cJSON *m, const sim_mesh_def *d) {
  str(w, m, "type", name_of(scene_mesh_names, SCENE_MESH_COUNT, (int)d->kind));
  switch (d->kind) {
    case SIM_SRC_BAR:
      vec(w, m, "lo", d->lo, 3);
      vec(w, m, "hi", d->hi, 3);
      ivec(w, m, "vertices", d->vertices, 3);
      return; /* no TetGen */
    case SIM_SRC_CLOTH:
      vec(w, m, "size", d->size, 2);
      ivec(w, m, "vertices", d->vertices, 2);
      str(w, m, "pattern", d->cloth_cross ? "cross" : "diagonal");
      return; /* no TetGen */
    case SIM_SRC_ICOSPHERE:
      num(w, m, "radius", d->radius);
      num(w, m, "subdivisions", d->subdivisions);
      break;
    case SIM_SRC_BOX:
      vec(w, m, "lo", d->lo, 3);
      vec(w, m, "hi", d->hi, 3);
      num(w, m, "segments", d->segments);
      break;
    case SIM_SRC_CYLINDER:
    case SIM_SRC_CAPSULE:
      num(w, m, "radius", d->radius);
      num(w, m, "height", d->height);
      num(w, m, "segments", d->segments);
      num(w, m, "rings", d->rings);
      break;
    case SIM_SRC_FILE:
      str(w, m, "path", d->path);
      break;
  }
  cJSON *t = obj(w, m, "tetgen");
  num(w, t, "quality", d->tet_quality);
  num(w, t, "max_volume", d->tet_max_volume);
}

static void put_transform(jw *w, cJSON *t, const sim_transform_def *d) {
  vec(w, t, "translate", d->translate, 3);
  vec(w, t, "rotate", d->rotate_deg, 3);
  const double *s = d->scale;
  if (s[0] == s[1] && s[1] == s[2])
    num(w, t, "scale", s[0]);
  else
    vec(w, t, "scale", s, 3);
}

static void put_body(jw *w, cJSON *b, const sim_body_def *d) {
  str(w, b, "name", d->name);
  put_mesh(w, obj(w, b, "mesh"), &d->mesh);
  put_transform(w, obj(w, b, "transform"), &d->transform);
  cJSON *m = obj(w, b, "material");
  str(w, m, "model", name_of(scene_model_names, SIM_MAT_COUNT, (int)d->material.model));
  if (d->material.mass != 0)
    num(w, m, "mass", d->material.mass);
  else
    num(w, m, "density", d->material.density);
  str(w, m, "lumping", name_of(scene_lumping_names, 2, (int)d->material.lumping));
  num(w, m, "youngs_modulus", d->material.youngs_modulus);
  num(w, m, "poisson_ratio", d->material.poisson_ratio);
  num(w, m, "thickness", d->material.thickness); /* always, though only a cloth uses it */
  cJSON *bend = obj(w, b, "bending"); /* always, "none" included: the simplest round trip */
  str(w, bend, "type", name_of(scene_bending_names, SIM_BEND_COUNT, (int)d->bending.type));
  num(w, bend, "stiffness", d->bending.stiffness);
  vec(w, b, "velocity", d->velocity, 3);
}

static void put_step(jw *w, cJSON *o, const sim_pin_step *s) {
  str(w, o, "type", name_of(scene_step_names, 3, (int)s->kind));
  switch (s->kind) {
    case SIM_STEP_PULLING:
      vec(w, o, "direction", s->direction, 3);
      num(w, o, "speed", s->speed);
      num(w, o, "length", s->length);
      num(w, o, "ramp", s->ramp);
      break;
    case SIM_STEP_ROLLING:
      vec(w, o, "axis", s->axis, 3);
      vec(w, o, "center", s->center, 3);
      num(w, o, "speed", s->speed);
      num(w, o, "angle", s->angle);
      num(w, o, "ramp", s->ramp);
      break;
    case SIM_STEP_WAIT:
      num(w, o, "duration", s->duration);
      break;
  }
}

static void bool_(jw *w, cJSON *o, const char *key, int v) {
  if (!o || !cJSON_AddBoolToObject(o, key, v)) w->bad = 1;
}

/* An array that takes ownership of its elements; NULL (and w->bad) on failure. */
static cJSON *arr(jw *w, cJSON *o, const char *key) {
  cJSON *a = cJSON_CreateArray();
  if (!o || !a || !cJSON_AddItemToObject(o, key, a)) {
    cJSON_Delete(a);
    w->bad = 1;
    return NULL;
  }
  return a;
}

static void put_script(jw *w, cJSON *o, const sim_pin_step *steps, int nsteps) {
  cJSON *script = arr(w, o, "script");
  for (int j = 0; script && j < nsteps && j < SIM_MAX_STEPS && !w->bad; j++)
    put_step(w, obj(w, script, NULL), &steps[j]);
}

/* "points" and "pull" as arrays of [x, y, z] and [t, s]. */
static void put_cable(jw *w, cJSON *o, const sim_cable_def *d) {
  num(w, o, "body", d->body);
  cJSON *pts = arr(w, o, "points");
  for (int i = 0; pts && i < d->npoints && i < SIM_MAX_CABLE_POINTS && !w->bad; i++)
    row(w, pts, d->points[i], 3);
  num(w, o, "compliance", d->compliance);
  cJSON *pull = arr(w, o, "pull");
  for (int k = 0; pull && k < d->nkeys && k < SIM_MAX_CABLE_KEYS && !w->bad; k++) {
    const double key[2] = {d->key_time[k], d->key_pull[k]};
    row(w, pull, key, 2);
  }
}

static void put_contact(jw *w, cJSON *o, const sim_contact_def *d) {
  num(w, o, "margin", d->margin);
  num(w, o, "min_separation", d->min_separation);
  str(w, o, "ncp", name_of(scene_ncp_names, SIM_SCENE_NCP_COUNT, (int)d->ncp));
  str(w, o, "preconditioner",
      name_of(scene_precond_names, SIM_SCENE_PRECOND_COUNT, (int)d->preconditioner));
  num(w, o, "cr_iterations", d->cr_iterations);
  num(w, o, "cr_tolerance", d->cr_tolerance);
  num(w, o, "max_force", d->max_force);
  bool_(w, o, "warm_start", d->warm_start);
  bool_(w, o, "bodies", d->bodies);
  bool_(w, o, "self_collision", d->self_collision);
  bool_(w, o, "edge_edge", d->edge_edge);
  bool_(w, o, "obstacle_edges", d->obstacle_edges);
  bool_(w, o, "creases", d->creases);
  num(w, o, "mu", d->mu);
  str(w, o, "delassus", name_of(scene_delassus_names, SIM_SCENE_DELASSUS_COUNT, (int)d->delassus));
  str(w, o, "formulation", name_of(scene_form_names, SIM_SCENE_FORM_COUNT, (int)d->formulation));
  str(w, o, "cr_preconditioner",
      name_of(scene_cr_pc_names, SIM_SCENE_CR_PC_COUNT, (int)d->cr_preconditioner));
  str(w, o, "cr_precision", name_of(scene_precision_names, 2, (int)d->cr_precision));
  num(w, o, "newton_steps", d->newton_steps);
  num(w, o, "newton_tolerance", d->newton_tolerance);
  num(w, o, "redetect", d->redetect);
  num(w, o, "end_newton_steps", d->end_newton_steps);
  num(w, o, "end_tolerance", d->end_tolerance);
  num(w, o, "line_search", d->line_search);
  str(w, o, "newton_jacobian",
      name_of(scene_fjac_names, SIM_SCENE_FJAC_COUNT, (int)d->newton_jacobian));
}

/* Only the keys of the obstacle's type; "touches" lists body names (every body by default). */
static void put_obstacle(jw *w, cJSON *o, const sim_obstacle_def *d, const sim_scene *s) {
  str(w, o, "name", d->name);
  str(w, o, "type", name_of(scene_obstacle_names, SIM_OBST_COUNT, (int)d->type));
  switch (d->type) {
    case SIM_OBST_PLANE:
      vec(w, o, "point", d->point, 3);
      vec(w, o, "normal", d->normal, 3);
      break;
    case SIM_OBST_BOX:
      vec(w, o, "center", d->center, 3);
      vec(w, o, "half_extents", d->half_extents, 3);
      vec(w, o, "rotate", d->rotate_deg, 3);
      break;
    case SIM_OBST_SPHERE:
      vec(w, o, "center", d->center, 3);
      num(w, o, "radius", d->radius);
      break;
    case SIM_OBST_CAPSULE:
      vec(w, o, "a", d->a, 3);
      vec(w, o, "b", d->b, 3);
      num(w, o, "radius", d->radius);
      break;
    case SIM_OBST_CYLINDER:
      vec(w, o, "point", d->point, 3);
      vec(w, o, "axis", d->axis, 3);
      num(w, o, "radius", d->radius);
      num(w, o, "height", d->height);
      num(w, o, "spin", d->spin);
      break;
    case SIM_OBST_TORUS:
      vec(w, o, "center", d->center, 3);
      vec(w, o, "axis", d->axis, 3);
      num(w, o, "major", d->major);
      num(w, o, "minor", d->minor);
      break;
    case SIM_OBST_MESH:
      str(w, o, "path", d->path);
      put_transform(w, obj(w, o, "transform"), &d->transform);
      if (d->closed == SIM_CLOSED_AUTO)
        str(w, o, "closed", "auto");
      else
        bool_(w, o, "closed", d->closed == SIM_CLOSED_YES);
      break;
  }
  num(w, o, "mu", d->mu);
  if (!isnan(d->margin)) num(w, o, "margin", d->margin);
  const char *names[SIM_MAX_BODIES];
  int n = 0;
  for (int b = 0; b < s->nbodies && b < SIM_MAX_BODIES; b++)
    if (d->touches & (1u << b)) names[n++] = s->bodies[b].name;
  cJSON *t = cJSON_CreateStringArray(names, n);
  if (!o || !t || !cJSON_AddItemToObject(o, "touches", t)) {
    cJSON_Delete(t);
    w->bad = 1;
  }
  put_script(w, o, d->steps, d->nsteps);
}

static cJSON *build(const sim_scene *s, jw *w) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  str(w, root, "name", s->name);
  cJSON *so = obj(w, root, "solver");
  num(w, so, "dt", s->solver.dt);
  num(w, so, "frames", s->solver.frames);
  num(w, so, "lg_iterations", s->solver.lg_iterations);
  str(w, so, "global", name_of(scene_global_names, SIM_GLOBAL_COUNT, (int)s->solver.global));
  str(w, so, "device", name_of(scene_device_names, 3, (int)s->solver.device));
  str(w, so, "precision", name_of(scene_precision_names, 2, (int)s->solver.precision));
  str(w, so, "ordering", name_of(scene_ordering_names, SIM_ORDER_COUNT, (int)s->solver.ordering));
  num(w, so, "threads", s->solver.threads);
  num(w, so, "chebyshev_rho", s->solver.chebyshev_rho);
  num(w, so, "dense_max_mib", s->solver.dense_max_mib);
  num(w, so, "gpu", s->solver.gpu);
  vec(w, root, "gravity", s->gravity, 3);

  cJSON *bodies = cJSON_CreateArray();
  if (!bodies || !cJSON_AddItemToObject(root, "bodies", bodies)) {
    cJSON_Delete(bodies);
    w->bad = 1;
  }
  for (int i = 0; i < s->nbodies && i < SIM_MAX_BODIES && !w->bad; i++)
    put_body(w, obj(w, bodies, NULL), &s->bodies[i]);

  cJSON *pins = cJSON_CreateArray();
  if (!pins || !cJSON_AddItemToObject(root, "pins", pins)) {
    cJSON_Delete(pins);
    w->bad = 1;
  }
  for (int i = 0; i < s->npins && i < SIM_MAX_PINS && !w->bad; i++) {
    const sim_pin_def *p = &s->pins[i];
    cJSON *po = obj(w, pins, NULL);
    num(w, po, "body", p->body);
    vec(w, po, "box", p->box, 6);
    str(w, po, "mode", name_of(scene_pin_mode_names, SIM_PIN_MODE_COUNT, (int)p->mode));
    num(w, po, "compliance", p->compliance);
    put_script(w, po, p->steps, p->nsteps);
  }

  cJSON *cables = arr(w, root, "cables");
  for (int i = 0; cables && i < s->ncables && i < SIM_MAX_CABLES && !w->bad; i++)
    put_cable(w, obj(w, cables, NULL), &s->cables[i]);

  put_contact(w, obj(w, root, "contact"), &s->contact);
  cJSON *obs = arr(w, root, "obstacles");
  for (int i = 0; obs && i < s->nobstacles && i < SIM_MAX_OBSTACLES && !w->bad; i++)
    put_obstacle(w, obj(w, obs, NULL), &s->obstacles[i], s);

  cJSON *out = obj(w, root, "output");
  str(w, out, "dir", s->output.dir);
  num(w, out, "every", s->output.every);
  const char *fmts[4];
  int nf = 0;
  for (int k = 0; k < 4; k++)
    if (s->output.formats & (1 << k)) fmts[nf++] = scene_format_names[k];
  cJSON *fa = cJSON_CreateStringArray(fmts, nf);
  if (!out || !fa || !cJSON_AddItemToObject(out, "formats", fa)) {
    cJSON_Delete(fa);
    w->bad = 1;
  }
  const int png[2] = {s->output.png_width, s->output.png_height};
  ivec(w, out, "png_size", png, 2);
  str(w, out, "async", name_of(scene_async_names, SIM_ASYNC_COUNT, (int)s->output.async));
  return root;
}

/* Output text grown with realloc: the result is handed to the caller, who free()s it. */
typedef struct tbuf {
  char *p;
  size_t len, cap;
  int bad;
} tbuf;

static void put(tbuf *t, const char *s, size_t n) {
  if (t->bad) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (t->len + n + 1 > cap) cap *= 2;
    char *np = realloc(t->p, cap);
    if (!np) {
      t->bad = 1;
      return;
    }
    t->p = np;
    t->cap = cap;
  }
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = '\0';
}

static void puts_(tbuf *t, const char *s) { put(t, s, strlen(s)); }

static void indent(tbuf *t, int depth) {
  for (int i = 0; i < depth; i++) put(t, "  ", 2);
}

static int is_flat(const cJSON *v) {
  for (const cJSON *e = v->child; e; e = e->next)
    if (cJSON_IsObject(e) || cJSON_IsArray(e)) return 0;
  return 1;
}

/* Two-space indentation; arrays of scalars on one line ("[0, -9.81, 0]"). */
static void emit(tbuf *t, const cJSON *v, int depth) {
  if (cJSON_IsObject(v) || (cJSON_IsArray(v) && !is_flat(v))) {
    const int obj_ = cJSON_IsObject(v);
    if (!v->child) {
      puts_(t, obj_ ? "{}" : "[]");
      return;
    }
    puts_(t, obj_ ? "{\n" : "[\n");
    for (const cJSON *e = v->child; e; e = e->next) {
      indent(t, depth + 1);
      if (obj_) { /* keys are the schema's own names: nothing to escape */
        puts_(t, "\"");
        puts_(t, e->string);
        puts_(t, "\": ");
      }
      emit(t, e, depth + 1);
      puts_(t, e->next ? ",\n" : "\n");
    }
    indent(t, depth);
    puts_(t, obj_ ? "}" : "]");
  } else if (cJSON_IsArray(v)) {
    puts_(t, "[");
    for (const cJSON *e = v->child; e; e = e->next) {
      emit(t, e, depth);
      if (e->next) puts_(t, ", ");
    }
    puts_(t, "]");
  } else {
    char *s = cJSON_PrintUnformatted(v); /* scalars: numbers raw, strings escaped */
    if (!s) {
      t->bad = 1;
      return;
    }
    puts_(t, s);
    cJSON_free(s);
  }
}

int sim_scene_to_json(const sim_scene *s, char **out_text) {
  jw w = {0};
  tbuf t = {0};
  *out_text = NULL;
  cJSON *root = build(s, &w);
  if (root && !w.bad) {
    emit(&t, root, 0);
    puts_(&t, "\n");
  }
  cJSON_Delete(root);
  if (!root || w.bad || t.bad) {
    free(t.p);
    return SIM_ERR_MEMORY;
  }
  *out_text = t.p;
  return SIM_OK;
}

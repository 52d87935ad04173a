/* SPDX-License-Identifier: MIT */
/* Reads the top-level "contact" settings and the "obstacles" array (read after the bodies, so
   that "touches" can name them) into sim_contact_def and sim_obstacle_def. */
#include <stdio.h>
#include <string.h>

#include "scene_private.h"

static int load_contact_def(scene_ctx *c, const cJSON *o, sim_contact_def *d) {
  static const char *const keys[] = {"margin",
                                     "min_separation",
                                     "ncp",
                                     "preconditioner",
                                     "cr_iterations",
                                     "cr_tolerance",
                                     "max_force",
                                     "warm_start",
                                     "bodies",
                                     "self_collision",
                                     "edge_edge",
                                     "obstacle_edges",
                                     "mu",
                                     "delassus",
                                     "formulation",
                                     "cr_preconditioner",
                                     "newton_steps",
                                     "newton_tolerance",
                                     "redetect",
                                     "line_search",
                                     "cr_precision",
                                     "newton_jacobian",
                                     "creases",
                                     "end_newton_steps",
                                     "end_tolerance"};
  int ncp = (int)d->ncp, pre = (int)d->preconditioner, del = (int)d->delassus;
  int form = (int)d->formulation, crpc = (int)d->cr_preconditioner;
  int crprec = (int)d->cr_precision, fjac = (int)d->newton_jacobian;
  if (scene_keys(c, o, keys, 25, NULL) || scene_rd_num(c, o, "margin", &d->margin) ||
      scene_rd_num(c, o, "min_separation", &d->min_separation) ||
      scene_rd_enum(c, o, "ncp", scene_ncp_names, SIM_SCENE_NCP_COUNT, &ncp) ||
      scene_rd_enum(c, o, "preconditioner", scene_precond_names, SIM_SCENE_PRECOND_COUNT, &pre) ||
      scene_rd_int(c, o, "cr_iterations", &d->cr_iterations) ||
      scene_rd_num(c, o, "cr_tolerance", &d->cr_tolerance) ||
      scene_rd_num(c, o, "max_force", &d->max_force) ||
      scene_rd_bool(c, o, "warm_start", &d->warm_start) ||
      scene_rd_bool(c, o, "bodies", &d->bodies) ||
      scene_rd_bool(c, o, "self_collision", &d->self_collision) ||
      scene_rd_bool(c, o, "edge_edge", &d->edge_edge) ||
      scene_rd_bool(c, o, "obstacle_edges", &d->obstacle_edges) ||
      scene_rd_bool(c, o, "creases", &d->creases) || scene_rd_num(c, o, "mu", &d->mu) ||
      scene_rd_enum(c, o, "delassus", scene_delassus_names, SIM_SCENE_DELASSUS_COUNT, &del) ||
      scene_rd_enum(c, o, "formulation", scene_form_names, SIM_SCENE_FORM_COUNT, &form) ||
      scene_rd_enum(c, o, "cr_preconditioner", scene_cr_pc_names, SIM_SCENE_CR_PC_COUNT, &crpc) ||
      scene_rd_int(c, o, "newton_steps", &d->newton_steps) ||
      scene_rd_num(c, o, "newton_tolerance", &d->newton_tolerance) ||
      scene_rd_int(c, o, "redetect", &d->redetect) ||
      scene_rd_int(c, o, "end_newton_steps", &d->end_newton_steps) ||
      scene_rd_num(c, o, "end_tolerance", &d->end_tolerance) ||
      scene_rd_int(c, o, "line_search", &d->line_search) ||
      scene_rd_enum(c, o, "cr_precision", scene_precision_names, 2, &crprec) ||
      scene_rd_enum(c, o, "newton_jacobian", scene_fjac_names, SIM_SCENE_FJAC_COUNT, &fjac))
    return c->st->code;
  d->newton_jacobian = (sim_scene_fjac)fjac;
  d->cr_precision = (sim_precision)crprec;
  d->formulation = (sim_scene_form)form;
  d->cr_preconditioner = (sim_scene_cr_pc)crpc;
  d->delassus = (sim_scene_delassus)del;
  d->ncp = (sim_scene_ncp)ncp;
  d->preconditioner = (sim_scene_precond)pre;
  return SIM_OK;
}

/* Keys of each obstacle type, indexed by sim_obstacle_type: "name" and "type", the type's
   own keys, then the keys common to all ("mu", "margin", "touches", "script"). */
static const char *const k_plane[] = {"name", "type",   "point",   "normal",
                                      "mu",   "margin", "touches", "script"};
static const char *const k_box[] = {"name", "type",   "center",  "half_extents", "rotate",
                                    "mu",   "margin", "touches", "script"};
static const char *const k_sphere[] = {"name", "type",   "center",  "radius",
                                       "mu",   "margin", "touches", "script"};
static const char *const k_capsule[] = {"name", "type",   "a",       "b",     "radius",
                                        "mu",   "margin", "touches", "script"};
static const char *const k_cylinder[] = {"name", "type", "point",  "axis",    "radius", "height",
                                         "spin", "mu",   "margin", "touches", "script"};
static const char *const k_torus[] = {"name",  "type", "center", "axis",    "major",
                                      "minor", "mu",   "margin", "touches", "script"};
static const char *const k_mesh[] = {"name", "type",   "path",    "transform", "closed",
                                     "mu",   "margin", "touches", "script"};
static const char *const *const obst_keys[SIM_OBST_COUNT] = {
    k_plane, k_box, k_sphere, k_capsule, k_cylinder, k_torus, k_mesh};
static const int obst_nkeys[SIM_OBST_COUNT] = {8, 9, 8, 9, 11, 10, 9};
/* Required keys of each type (NULL-terminated). */
static const char *const obst_required[SIM_OBST_COUNT][5] = {
    {"normal", NULL},
    {"center", "half_extents", NULL},
    {"center", "radius", NULL},
    {"a", "b", "radius", NULL},
    {"point", "axis", "radius", NULL},
    {"center", "axis", "major", "minor", NULL},
    {"path", NULL}};

/* "closed": "auto", true or false. */
static int load_closed(scene_ctx *c, const cJSON *o, int *out) {
  const cJSON *v = scene_item(o, "closed");
  if (!v) return SIM_OK;
  if (cJSON_IsBool(v)) {
    *out = cJSON_IsTrue(v) ? SIM_CLOSED_YES : SIM_CLOSED_NO;
    return SIM_OK;
  }
  if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
    *out = SIM_CLOSED_AUTO;
    return SIM_OK;
  }
  scene_push_key(c, "closed");
  int rc;
  if (cJSON_IsString(v)) {
    static const char *const names[] = {"auto", "true", "false"};
    char q[96];
    scene_quote(v->valuestring, q, sizeof q);
    const char *hint = scene_suggest(v->valuestring, names, 3);
    if (hint && strcmp(hint, "auto") == 0)
      rc = scene_fail(c, 0, "expected \"auto\", true or false, got \"%s\" (did you mean \"auto\"?)",
                      q);
    else if (hint)
      rc = scene_fail(c, 0, "expected \"auto\", true or false, got \"%s\" (did you mean %s?)", q,
                      hint);
    else
      rc = scene_fail(c, 0, "expected \"auto\", true or false, got \"%s\"", q);
  } else {
    rc = scene_fail(c, 0, "expected \"auto\", true or false, got %s", scene_type_name(v));
  }
  scene_pop(c);
  return rc;
}

/* "touches": body names or indices -> a bit mask (absent: every body of the scene). */
static int load_touches(scene_ctx *c, const cJSON *o, const sim_scene *s, unsigned *mask) {
  const cJSON *t = scene_item(o, "touches");
  *mask = s->nbodies >= 32 ? SIM_TOUCHES_ALL : (1u << s->nbodies) - 1u;
  if (!t) return SIM_OK;
  const char *names[SIM_MAX_BODIES];
  char list[SIM_MAX_BODIES * 70];
  for (int b = 0; b < s->nbodies; b++) names[b] = s->bodies[b].name;
  scene_names_list(names, s->nbodies, list, sizeof list);
  scene_push_key(c, "touches");
  int rc = SIM_OK, i = 0;
  unsigned bits = 0;
  if (!cJSON_IsArray(t))
    rc = scene_fail(c, 0, "expected an array of body names or indices, got %s", scene_type_name(t));
  for (const cJSON *e = rc ? NULL : t->child; e && rc == SIM_OK; e = e->next, i++) {
    scene_push_index(c, i);
    int b = -1;
    if (cJSON_IsNumber(e)) {
      if (!scene_int_value(c, e, &b) && (b < 0 || b >= s->nbodies))
        rc = scene_fail(c, 0, "expected a body index 0..%d, got %d", s->nbodies - 1, b);
      rc = rc ? rc : c->st->code;
    } else if (cJSON_IsString(e)) {
      for (int k = 0; k < s->nbodies && b < 0; k++)
        if (strcmp(names[k], e->valuestring) == 0) b = k;
      if (b < 0) {
        char q[96];
        scene_quote(e->valuestring, q, sizeof q);
        const char *hint = scene_suggest(e->valuestring, names, s->nbodies);
        if (hint)
          rc = scene_fail(c, 0, "unknown body \"%s\" (bodies: %s) (did you mean \"%s\"?)", q, list,
                          hint);
        else
          rc = scene_fail(c, 0, "unknown body \"%s\" (bodies: %s)", q, list);
      }
    } else {
      rc = scene_fail(c, 0, "expected a body name or index, got %s", scene_type_name(e));
    }
    if (rc == SIM_OK && (bits & (1u << b)))
      rc = scene_fail(c, 0, "body \"%s\" (index %d) is listed twice", names[b], b);
    if (rc == SIM_OK) bits |= 1u << b;
    scene_pop(c);
  }
  scene_pop(c);
  if (rc == SIM_OK) *mask = bits;
  return rc;
}

static int load_obstacle(scene_ctx *c, const cJSON *o, const sim_scene *s, int index,
                         sim_obstacle_def *d) {
  char list[200], note[64];
  sim_default_obstacle_def(d, SIM_OBST_PLANE);
  snprintf(note, sizeof note, "obstacle%d", index);
  scene_set_str(d->name, sizeof d->name, note);
  scene_names_list(scene_obstacle_names, SIM_OBST_COUNT, list, sizeof list);
  if (!cJSON_IsObject(o))
    return scene_fail(c, 0, "expected an object (an obstacle), got %s", scene_type_name(o));
  if (!scene_item(o, "type")) return scene_fail_missing(c, "type", " (one of %s)", list);
  int type = 0;
  if (scene_rd_enum(c, o, "type", scene_obstacle_names, SIM_OBST_COUNT, &type)) return c->st->code;
  d->type = (sim_obstacle_type)type;
  snprintf(note, sizeof note, "for obstacle type \"%s\"", scene_obstacle_names[type]);
  if (scene_keys(c, o, obst_keys[type], obst_nkeys[type], note)) return c->st->code;
  for (int i = 0; obst_required[type][i]; i++)
    if (!scene_item(o, obst_required[type][i]))
      return scene_fail_missing(c, obst_required[type][i], " (required for obstacle type \"%s\")",
                                scene_obstacle_names[type]);
  /* each type allows only its own keys, so reading every key is safe */
  if (scene_rd_str(c, o, "name", d->name, sizeof d->name) ||
      scene_rd_vec(c, o, "point", d->point, 3) || scene_rd_vec(c, o, "normal", d->normal, 3) ||
      scene_rd_vec(c, o, "center", d->center, 3) ||
      scene_rd_vec(c, o, "half_extents", d->half_extents, 3) ||
      scene_rd_vec(c, o, "rotate", d->rotate_deg, 3) || scene_rd_vec(c, o, "a", d->a, 3) ||
      scene_rd_vec(c, o, "b", d->b, 3) || scene_rd_vec(c, o, "axis", d->axis, 3) ||
      scene_rd_num(c, o, "radius", &d->radius) || scene_rd_num(c, o, "height", &d->height) ||
      scene_rd_num(c, o, "spin", &d->spin) || scene_rd_num(c, o, "major", &d->major) ||
      scene_rd_num(c, o, "minor", &d->minor) || load_closed(c, o, &d->closed) ||
      scene_rd_num(c, o, "mu", &d->mu) || scene_rd_num(c, o, "margin", &d->margin))
    return c->st->code;
  scene_normalise(d->normal);
  scene_normalise(d->axis);
  if (type == SIM_OBST_MESH) {
    char rel[SIM_PATH_MAX];
    const cJSON *t;
    rel[0] = '\0';
    if (scene_rd_str(c, o, "path", rel, sizeof rel)) return c->st->code;
    if (rel[0] && scene_resolve_file(c, rel, d->path, sizeof d->path)) return c->st->code;
    if (scene_rd_obj(c, o, "transform", &t)) return c->st->code;
    if (t) {
      scene_push_key(c, "transform");
      int rc = scene_load_transform(c, t, &d->transform);
      scene_pop(c);
      if (rc) return rc;
    }
  }
  if (load_touches(c, o, s, &d->touches)) return c->st->code;
  return scene_load_script(c, o, "obstacle", d->steps, &d->nsteps);
}

int scene_load_contact(scene_ctx *c, const cJSON *root, sim_scene *s) {
  const cJSON *o;
  if (scene_rd_obj(c, root, "contact", &o)) return c->st->code;
  if (o) {
    scene_push_key(c, "contact");
    int rc = load_contact_def(c, o, &s->contact);
    scene_pop(c);
    if (rc) return rc;
  }
  const cJSON *arr = scene_item(root, "obstacles");
  if (!arr) return SIM_OK;
  int rc = SIM_OK, i = 0;
  scene_push_key(c, "obstacles");
  if (!cJSON_IsArray(arr)) rc = scene_fail(c, 0, "expected an array, got %s", scene_type_name(arr));
  for (const cJSON *e = rc ? NULL : arr->child; e && rc == SIM_OK; e = e->next, i++) {
    scene_push_index(c, i);
    if (i >= SIM_MAX_OBSTACLES)
      rc = scene_fail(c, 0, "expected at most %d obstacles", SIM_MAX_OBSTACLES);
    else
      rc = load_obstacle(c, e, s, i, &s->obstacles[i]);
    scene_pop(c);
  }
  scene_pop(c);
  if (rc == SIM_OK) s->nobstacles = i;
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* Reads one body (mesh source, transform, material, bending, velocity) into sim_body_def. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_private.h"

/* Keys each mesh type accepts, indexed by sim_mesh_source_kind. */
static const char *const k_bar[] = {"type", "lo", "hi", "vertices"};
static const char *const k_ico[] = {"type", "radius", "subdivisions", "tetgen"};
static const char *const k_box[] = {"type", "lo", "hi", "segments", "tetgen"};
static const char *const k_cyl[] = {"type", "radius", "height", "segments", "rings", "tetgen"};
static const char *const k_file[] = {"type", "path", "tetgen"};
static const char *const k_cloth[] = {"type", "size", "vertices", "pattern"};
static const char *const cloth_patterns[] = {"diagonal", "cross"};
static const char *const *const mesh_keys[SCENE_MESH_COUNT] = {k_bar, k_ico,  k_box,  k_cyl,
                                                               k_cyl, k_file, k_cloth};
static const int mesh_nkeys[SCENE_MESH_COUNT] = {4, 4, 5, 6, 6, 3, 4};

static int require(scene_ctx *c, const cJSON *obj, const char *key, const char *why) {
  if (scene_item(obj, key)) return SIM_OK;
  return scene_fail_missing(c, key, " (%s)", why);
}

/* `vertices`: 3 counts for a bar, 2 for a cloth; a wrong shape names the one expected. */
static int load_vertices(scene_ctx *c, const cJSON *m, int kind, int *out) {
  const int n = kind == SIM_SRC_CLOTH ? 2 : 3;
  const cJSON *v = scene_item(m, "vertices");
  if (!v || (cJSON_IsArray(v) && cJSON_GetArraySize(v) == n))
    return scene_rd_ivec(c, m, "vertices", out, n);
  char got[40];
  if (cJSON_IsArray(v))
    snprintf(got, sizeof got, "an array of %d", cJSON_GetArraySize(v));
  else
    snprintf(got, sizeof got, "%s", scene_type_name(v));
  scene_push_key(c, "vertices");
  int rc = scene_fail(c, 0, "expected an array of %d integers %s for mesh type \"%s\", got %s", n,
                      n == 2 ? "[nx, nz]" : "[nx, ny, nz]", scene_mesh_names[kind], got);
  scene_pop(c);
  return rc;
}

static int load_tetgen(scene_ctx *c, const cJSON *m, sim_mesh_def *d) {
  static const char *const keys[] = {"quality", "max_volume"};
  const cJSON *t;
  if (scene_rd_obj(c, m, "tetgen", &t) || !t) return c->st->code;
  scene_push_key(c, "tetgen");
  int rc = scene_keys(c, t, keys, 2, NULL);
  if (!rc) rc = scene_rd_num(c, t, "quality", &d->tet_quality);
  if (!rc) rc = scene_rd_num(c, t, "max_volume", &d->tet_max_volume);
  scene_pop(c);
  return rc;
}

/* Join a mesh path to the directory of the scene file (absolute paths stay as they are). */
static int resolve_path(scene_ctx *c, const char *rel, char *out, size_t cap) {
  const char *slash = strrchr(c->file, '/');
  int n;
  if (rel[0] == '/' || !slash)
    n = snprintf(out, cap, "%s", rel);
  else
    n = snprintf(out, cap, "%.*s/%s", (int)(slash - c->file), c->file, rel);
  if (n < 0 || (size_t)n >= cap) {
    scene_push_key(c, "path");
    int rc = scene_fail(c, 0, "expected a path of at most %zu bytes once resolved", cap - 1);
    scene_pop(c);
    return rc;
  }
  return SIM_OK;
}

int scene_resolve_file(scene_ctx *c, const char *rel, char *out, size_t cap) {
  char full[SIM_PATH_MAX];
  if (resolve_path(c, rel, full, sizeof full)) return c->st->code;
  /* absolute when the file exists, so the resolved scene (summary.json, validate) loads
     from anywhere; a missing file keeps the joined path for validation's message */
  char *abs = realpath(full, NULL);
  scene_set_str(out, cap, abs && strlen(abs) < cap ? abs : full);
  free(abs);
  return SIM_OK;
}

static int load_mesh(scene_ctx *c, const cJSON *m, sim_mesh_def *d) {
  char list[200], note[64];
  scene_names_list(scene_mesh_names, SCENE_MESH_COUNT, list, sizeof list);
  if (!cJSON_IsObject(m))
    return scene_fail(c, 0, "expected an object with \"type\": one of %s, got %s", list,
                      scene_type_name(m));
  if (!scene_item(m, "type")) return scene_fail_missing(c, "type", " (one of %s)", list);
  int kind = 0;
  if (scene_rd_enum(c, m, "type", scene_mesh_names, SCENE_MESH_COUNT, &kind)) return c->st->code;
  sim_default_mesh(d, (sim_mesh_source_kind)kind);
  snprintf(note, sizeof note, "for mesh type \"%s\"", scene_mesh_names[kind]);
  if (scene_keys(c, m, mesh_keys[kind], mesh_nkeys[kind], note)) return c->st->code;
  snprintf(note, sizeof note, "required for mesh type \"%s\"", scene_mesh_names[kind]);
  switch ((sim_mesh_source_kind)kind) {
    case SIM_SRC_BAR:
      if (require(c, m, "lo", note) || require(c, m, "hi", note) ||
          require(c, m, "vertices", note) || scene_rd_vec(c, m, "lo", d->lo, 3) ||
          scene_rd_vec(c, m, "hi", d->hi, 3) || load_vertices(c, m, kind, d->vertices))
        return c->st->code;
      return SIM_OK;
    case SIM_SRC_CLOTH: /* no TetGen: the triangle grid is built directly */
      if (scene_rd_vec(c, m, "size", d->size, 2) || load_vertices(c, m, kind, d->vertices) ||
          scene_rd_enum(c, m, "pattern", cloth_patterns, 2, &d->cloth_cross))
        return c->st->code;
      return SIM_OK;
    case SIM_SRC_ICOSPHERE:
      if (scene_rd_num(c, m, "radius", &d->radius) ||
          scene_rd_int(c, m, "subdivisions", &d->subdivisions))
        return c->st->code;
      break;
    case SIM_SRC_BOX:
      if (require(c, m, "lo", note) || require(c, m, "hi", note) ||
          scene_rd_vec(c, m, "lo", d->lo, 3) || scene_rd_vec(c, m, "hi", d->hi, 3) ||
          scene_rd_int(c, m, "segments", &d->segments))
        return c->st->code;
      break;
    case SIM_SRC_CYLINDER:
    case SIM_SRC_CAPSULE:
      if (require(c, m, "radius", note) || require(c, m, "height", note) ||
          scene_rd_num(c, m, "radius", &d->radius) || scene_rd_num(c, m, "height", &d->height) ||
          scene_rd_int(c, m, "segments", &d->segments) || scene_rd_int(c, m, "rings", &d->rings))
        return c->st->code;
      break;
    case SIM_SRC_FILE: {
      char rel[SIM_PATH_MAX];
      rel[0] = '\0';
      if (require(c, m, "path", note) || scene_rd_str(c, m, "path", rel, sizeof rel))
        return c->st->code;
      if (rel[0] && scene_resolve_file(c, rel, d->path, sizeof d->path)) return c->st->code;
      break;
    }
  }
  return load_tetgen(c, m, d);
}

int scene_load_transform(scene_ctx *c, const cJSON *t, sim_transform_def *d) {
  static const char *const keys[] = {"translate", "rotate", "scale"};
  if (scene_keys(c, t, keys, 3, NULL) || scene_rd_vec(c, t, "translate", d->translate, 3) ||
      scene_rd_vec(c, t, "rotate", d->rotate_deg, 3))
    return c->st->code;
  const cJSON *s = scene_item(t, "scale");
  if (!s) return SIM_OK;
  if (cJSON_IsNumber(s)) {
    scene_push_key(c, "scale");
    int rc = scene_num_value(c, s, &d->scale[0]);
    scene_pop(c);
    d->scale[1] = d->scale[2] = d->scale[0];
    return rc;
  }
  if (cJSON_IsArray(s)) return scene_rd_vec(c, t, "scale", d->scale, 3);
  scene_push_key(c, "scale");
  int rc =
      scene_fail(c, 0, "expected a number or an array of 3 numbers, got %s", scene_type_name(s));
  scene_pop(c);
  return rc;
}

static int load_material(scene_ctx *c, const cJSON *m, sim_material_def *d) {
  static const char *const keys[] = {"model",          "density",       "mass",     "lumping",
                                     "youngs_modulus", "poisson_ratio", "thickness"};
  int model = (int)d->model, lumping = 0;
  if (scene_keys(c, m, keys, 7, NULL) ||
      scene_rd_enum(c, m, "model", scene_model_names, SIM_MAT_COUNT, &model))
    return c->st->code;
  d->model = (sim_material_model)model;
  const cJSON *density = scene_item(m, "density"), *mass = scene_item(m, "mass");
  if (density && mass) {
    /* point at whichever of the two comes second in the file */
    const cJSON *second = mass;
    for (const cJSON *it = m->child; it; it = it->next)
      if (it == mass)
        second = density;
      else if (it == density)
        break;
    scene_push_key(c, second == mass ? "mass" : "density");
    int rc = scene_fail(c, 0, "give either \"density\" or \"mass\", not both");
    scene_pop(c);
    return rc;
  }
  if (mass) {
    if (scene_rd_num(c, m, "mass", &d->mass)) return c->st->code;
    d->density = 0; /* unused: the total mass is lumped */
    d->lumping = SIM_LUMP_UNIFORM;
  } else {
    if (scene_rd_num(c, m, "density", &d->density)) return c->st->code;
    d->mass = 0;
    d->lumping = SIM_LUMP_VOLUME;
  }
  if (scene_item(m, "lumping")) {
    if (scene_rd_enum(c, m, "lumping", scene_lumping_names, 2, &lumping)) return c->st->code;
    d->lumping = (sim_lumping)lumping;
  }
  if (scene_rd_num(c, m, "youngs_modulus", &d->youngs_modulus) ||
      scene_rd_num(c, m, "poisson_ratio", &d->poisson_ratio) ||
      scene_rd_num(c, m, "thickness", &d->thickness))
    return c->st->code;
  return SIM_OK;
}

static int load_bending(scene_ctx *c, const cJSON *o, sim_bending_def *d) {
  static const char *const keys[] = {"type", "stiffness"};
  int type = (int)d->type;
  if (scene_keys(c, o, keys, 2, NULL) ||
      scene_rd_enum(c, o, "type", scene_bending_names, SIM_BEND_COUNT, &type) ||
      scene_rd_num(c, o, "stiffness", &d->stiffness))
    return c->st->code;
  d->type = (sim_bending_kind)type;
  return SIM_OK;
}

int scene_load_body(scene_ctx *c, const cJSON *o, int index, sim_body_def *b) {
  static const char *const keys[] = {"name",     "mesh",    "transform",
                                     "material", "bending", "velocity"};
  char name[32];
  sim_default_body(b);
  snprintf(name, sizeof name, "body%d", index);
  scene_set_str(b->name, sizeof b->name, name);
  if (!cJSON_IsObject(o))
    return scene_fail(c, 0, "expected an object (a body), got %s", scene_type_name(o));
  if (scene_keys(c, o, keys, 6, NULL) || scene_rd_str(c, o, "name", b->name, sizeof b->name))
    return c->st->code;
  const cJSON *mesh = scene_item(o, "mesh"), *t, *m, *bend;
  if (!mesh) return scene_fail_missing(c, "mesh", " (where the body comes from)");
  scene_push_key(c, "mesh");
  int rc = load_mesh(c, mesh, &b->mesh);
  scene_pop(c);
  if (rc) return rc;
  if (scene_rd_obj(c, o, "transform", &t)) return c->st->code;
  if (t) {
    scene_push_key(c, "transform");
    rc = scene_load_transform(c, t, &b->transform);
    scene_pop(c);
    if (rc) return rc;
  }
  if (scene_rd_obj(c, o, "material", &m)) return c->st->code;
  if (m) {
    scene_push_key(c, "material");
    rc = load_material(c, m, &b->material);
    scene_pop(c);
    if (rc) return rc;
  }
  if (scene_rd_obj(c, o, "bending", &bend)) return c->st->code;
  if (bend) {
    scene_push_key(c, "bending");
    rc = load_bending(c, bend, &b->bending);
    scene_pop(c);
    if (rc) return rc;
  }
  return scene_rd_vec(c, o, "velocity", b->velocity, 3);
}

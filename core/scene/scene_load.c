/* SPDX-License-Identifier: MIT */
/* Scene loading: read the file, check the JSON, apply --set, fill the structs, validate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "scene_private.h"

#define SCENE_FILE_MAX (64u << 20)

static int load_solver(scene_ctx *c, const cJSON *o, sim_solver_def *d) {
  static const char *const keys[] = {"dt",       "frames",        "lg_iterations",
                                     "global",   "device",        "precision",
                                     "ordering", "threads",       "chebyshev_rho",
                                     "dense_max_mib", "gpu"};
  int g = (int)d->global, dev = (int)d->device, prec = (int)d->precision, ord = (int)d->ordering;
  if (scene_keys(c, o, keys, 11, NULL) || scene_rd_num(c, o, "dt", &d->dt) ||
      scene_rd_int(c, o, "frames", &d->frames) ||
      scene_rd_int(c, o, "lg_iterations", &d->lg_iterations) ||
      scene_rd_enum(c, o, "global", scene_global_names, SIM_GLOBAL_COUNT, &g) ||
      scene_rd_enum(c, o, "device", scene_device_names, 3, &dev) ||
      scene_rd_enum(c, o, "precision", scene_precision_names, 2, &prec) ||
      scene_rd_enum(c, o, "ordering", scene_ordering_names, SIM_ORDER_COUNT, &ord) ||
      scene_rd_int(c, o, "threads", &d->threads) ||
      scene_rd_num(c, o, "chebyshev_rho", &d->chebyshev_rho) ||
      scene_rd_num(c, o, "dense_max_mib", &d->dense_max_mib) ||
      scene_rd_int(c, o, "gpu", &d->gpu))
    return c->st->code;
  d->global = (sim_global_kind)g;
  d->device = (sim_device_kind)dev;
  d->precision = (sim_precision)prec;
  d->ordering = (sim_ordering)ord;
  return SIM_OK;
}

void scene_normalise(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 1e-150 && n < 1e150)) { /* the squares under- or overflow: scaled first */
    double a = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    if (!(a > 0) || !isfinite(a)) return; /* zero or not finite: validation says so */
    for (int k = 0; k < 3; k++) v[k] /= a;
    n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  if (fabs(n - 1) > 4e-16)
    for (int k = 0; k < 3; k++) v[k] /= n;
}

static int load_step(scene_ctx *c, const cJSON *o, sim_pin_step *s) {
  static const char *const k_pull[] = {"type", "direction", "speed", "length", "ramp"};
  static const char *const k_roll[] = {"type", "axis", "center", "speed", "angle", "ramp"};
  static const char *const k_wait[] = {"type", "duration"};
  static const char *const *const keys[3] = {k_pull, k_roll, k_wait};
  static const int nkeys[3] = {5, 6, 2};
  static const char *const required[3][4] = {
      {"direction", "speed", "length", NULL}, {"axis", "speed", "angle", NULL}, {"duration", NULL}};
  memset(s, 0, sizeof *s);
  if (!cJSON_IsObject(o))
    return scene_fail(c, 0, "expected an object (a script step), got %s", scene_type_name(o));
  if (!scene_item(o, "type"))
    return scene_fail_missing(c, "type", " (\"pulling\", \"rolling\" or \"wait\")");
  int kind = 0;
  char note[48];
  if (scene_rd_enum(c, o, "type", scene_step_names, 3, &kind)) return c->st->code;
  s->kind = (sim_step_kind)kind;
  snprintf(note, sizeof note, "for a \"%s\" step", scene_step_names[kind]);
  if (scene_keys(c, o, keys[kind], nkeys[kind], note)) return c->st->code;
  for (int i = 0; required[kind][i]; i++)
    if (!scene_item(o, required[kind][i]))
      return scene_fail_missing(c, required[kind][i], " for a \"%s\" step", scene_step_names[kind]);
  if (scene_rd_vec(c, o, "direction", s->direction, 3) || scene_rd_vec(c, o, "axis", s->axis, 3) ||
      scene_rd_vec(c, o, "center", s->center, 3) || scene_rd_num(c, o, "speed", &s->speed) ||
      scene_rd_num(c, o, "length", &s->length) || scene_rd_num(c, o, "angle", &s->angle) ||
      scene_rd_num(c, o, "duration", &s->duration) || scene_rd_num(c, o, "ramp", &s->ramp))
    return c->st->code;
  scene_normalise(s->direction);
  scene_normalise(s->axis);
  return SIM_OK;
}

int scene_load_script(scene_ctx *c, const cJSON *obj, const char *owner, sim_pin_step *steps,
                      int *nsteps) {
  const cJSON *script = scene_item(obj, "script");
  if (!script) return SIM_OK;
  scene_push_key(c, "script");
  int rc = SIM_OK;
  if (!cJSON_IsArray(script)) {
    rc = scene_fail(c, 0, "expected an array of steps, got %s", scene_type_name(script));
  } else {
    int i = 0;
    for (const cJSON *e = script->child; e && rc == SIM_OK; e = e->next, i++) {
      scene_push_index(c, i);
      if (i >= SIM_MAX_STEPS)
        rc = scene_fail(c, 0, "expected at most %d steps per %s", SIM_MAX_STEPS, owner);
      else
        rc = load_step(c, e, &steps[i]);
      scene_pop(c);
    }
    *nsteps = i;
  }
  scene_pop(c);
  return rc;
}

static int load_pin(scene_ctx *c, const cJSON *o, sim_pin_def *p) {
  static const char *const keys[] = {"body", "box", "script", "mode", "compliance"};
  memset(p, 0, sizeof *p);
  p->mode = SIM_PIN_ELIMINATE;
  p->compliance = 0.0;
  if (!cJSON_IsObject(o))
    return scene_fail(c, 0, "expected an object (a pin), got %s", scene_type_name(o));
  if (scene_keys(c, o, keys, 5, NULL)) return c->st->code;
  if (!scene_item(o, "box"))
    return scene_fail_missing(c, "box", " ([xmin, ymin, zmin, xmax, ymax, zmax])");
  int mode = (int)p->mode;
  if (scene_rd_int(c, o, "body", &p->body) || scene_rd_vec(c, o, "box", p->box, 6) ||
      scene_rd_enum(c, o, "mode", scene_pin_mode_names, SIM_PIN_MODE_COUNT, &mode) ||
      scene_rd_num(c, o, "compliance", &p->compliance))
    return c->st->code;
  p->mode = (sim_pin_mode)mode;
  return scene_load_script(c, o, "pin", p->steps, &p->nsteps);
}

/* A cable: "body" and "points" required; "pull" keys [t, s] split into key_time / key_pull.
   Counts, ranges and distinct points are checked by validation. */
static int load_cable(scene_ctx *c, const cJSON *o, sim_cable_def *d) {
  static const char *const keys[] = {"body", "points", "compliance", "pull"};
  double pull[SIM_MAX_CABLE_KEYS][2];
  memset(d, 0, sizeof *d);
  memset(pull, 0, sizeof pull);
  if (!cJSON_IsObject(o))
    return scene_fail(c, 0, "expected an object (a cable), got %s", scene_type_name(o));
  if (scene_keys(c, o, keys, 4, NULL)) return c->st->code;
  if (!scene_item(o, "body")) return scene_fail_missing(c, "body", " (a body index)");
  if (!scene_item(o, "points"))
    return scene_fail_missing(c, "points", " ([[x, y, z], ...], at least 2)");
  if (scene_rd_int(c, o, "body", &d->body) ||
      scene_rd_rows(c, o, "points", &d->points[0][0], 3, SIM_MAX_CABLE_POINTS, &d->npoints,
                    "points [x, y, z]") ||
      scene_rd_num(c, o, "compliance", &d->compliance) ||
      scene_rd_rows(c, o, "pull", &pull[0][0], 2, SIM_MAX_CABLE_KEYS, &d->nkeys,
                    "keys [time, pull]"))
    return c->st->code;
  for (int k = 0; k < d->nkeys; k++) {
    d->key_time[k] = pull[k][0];
    d->key_pull[k] = pull[k][1];
  }
  return SIM_OK;
}

static int load_output(scene_ctx *c, const cJSON *o, sim_output_def *d) {
  static const char *const keys[] = {"dir", "every", "formats", "png_size", "async"};
  int png[2] = {d->png_width, d->png_height}, async = (int)d->async;
  if (scene_keys(c, o, keys, 5, NULL) || scene_rd_str(c, o, "dir", d->dir, sizeof d->dir) ||
      scene_rd_int(c, o, "every", &d->every) || scene_rd_ivec(c, o, "png_size", png, 2) ||
      scene_rd_enum(c, o, "async", scene_async_names, SIM_ASYNC_COUNT, &async))
    return c->st->code;
  d->async = (sim_async_kind)async;
  d->png_width = png[0];
  d->png_height = png[1];
  const cJSON *f = scene_item(o, "formats");
  if (!f) return SIM_OK;
  scene_push_key(c, "formats");
  int rc = SIM_OK, bits = 0, i = 0;
  char list[80];
  scene_names_list(scene_format_names, 4, list, sizeof list);
  if (!cJSON_IsArray(f))
    rc = scene_fail(c, 0, "expected an array of formats (%s), got %s", list, scene_type_name(f));
  for (const cJSON *e = cJSON_IsArray(f) ? f->child : NULL; e && rc == SIM_OK; e = e->next, i++) {
    scene_push_index(c, i);
    int k = -1;
    for (int j = 0; j < 4 && cJSON_IsString(e); j++)
      if (strcmp(scene_format_names[j], e->valuestring) == 0) k = j;
    if (!cJSON_IsString(e)) {
      rc = scene_fail(c, 0, "expected one of %s, got %s", list, scene_type_name(e));
    } else if (k < 0) {
      char q[96];
      scene_quote(e->valuestring, q, sizeof q);
      const char *hint = scene_suggest(e->valuestring, scene_format_names, 4);
      if (hint)
        rc = scene_fail(c, 0, "expected one of %s, got \"%s\" (did you mean \"%s\"?)", list, q,
                        hint);
      else
        rc = scene_fail(c, 0, "expected one of %s, got \"%s\"", list, q);
    } else if (bits & (1 << k)) {
      rc = scene_fail(c, 0, "duplicate format \"%s\"", scene_format_names[k]);
    } else {
      bits |= 1 << k;
    }
    scene_pop(c);
  }
  scene_pop(c);
  if (rc == SIM_OK) d->formats = bits;
  return rc;
}

/* The scene name from the file's stem: letters, digits, '_', '-', '.'; others become '_'. */
static void stem_name(const char *file, char *out, size_t cap) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
  if (n >= cap) n = cap - 1;
  memset(out, 0, cap);
  for (size_t i = 0; i < n; i++) {
    char ch = base[i];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '-' || ch == '.';
    out[i] = ok ? ch : '_';
  }
  /* "..json" would name the output folder "." (and be refused as a name the file never gave) */
  if (out[0] == '\0' || !strcmp(out, ".") || !strcmp(out, "..")) scene_set_str(out, cap, "scene");
}

static int load_root(scene_ctx *c, const cJSON *root, sim_scene *s) {
  static const char *const keys[] = {"name",   "solver",  "gravity",   "bodies", "pins",
                                     "cables", "contact", "obstacles", "output"};
  const cJSON *o;
  if (!cJSON_IsObject(root))
    return scene_fail(c, 0, "expected an object at the top level, got %s", scene_type_name(root));
  if (scene_keys(c, root, keys, 9, NULL)) return c->st->code;
  stem_name(c->file, s->name, sizeof s->name);
  if (scene_rd_str(c, root, "name", s->name, sizeof s->name)) return c->st->code;
  if (scene_rd_obj(c, root, "solver", &o)) return c->st->code;
  if (o) {
    scene_push_key(c, "solver");
    int rc = load_solver(c, o, &s->solver);
    scene_pop(c);
    if (rc) return rc;
  }
  if (scene_rd_vec(c, root, "gravity", s->gravity, 3)) return c->st->code;

  if (!scene_item(root, "bodies"))
    return scene_fail_missing(c, "bodies", " (an array of 1..%d bodies)", SIM_MAX_BODIES);
  const char *arrays[3] = {"bodies", "pins", "cables"};
  const int maxes[3] = {SIM_MAX_BODIES, SIM_MAX_PINS, SIM_MAX_CABLES};
  int *counts[3] = {&s->nbodies, &s->npins, &s->ncables};
  for (int a = 0; a < 3; a++) {
    const cJSON *arr = scene_item(root, arrays[a]);
    if (!arr) continue;
    int rc = SIM_OK, i = 0;
    scene_push_key(c, arrays[a]);
    if (!cJSON_IsArray(arr))
      rc = scene_fail(c, 0, "expected an array, got %s", scene_type_name(arr));
    for (const cJSON *e = rc ? NULL : arr->child; e && rc == SIM_OK; e = e->next, i++) {
      scene_push_index(c, i);
      if (i >= maxes[a])
        rc = scene_fail(c, 0, "expected at most %d %s", maxes[a], arrays[a]);
      else if (a == 0)
        rc = scene_load_body(c, e, i, &s->bodies[i]);
      else if (a == 1)
        rc = load_pin(c, e, &s->pins[i]);
      else
        rc = load_cable(c, e, &s->cables[i]);
      scene_pop(c);
    }
    scene_pop(c);
    if (rc) return rc;
    *counts[a] = i;
  }

  if (scene_load_contact(c, root, s)) return c->st->code;

  int dir_given = 0;
  if (scene_rd_obj(c, root, "output", &o)) return c->st->code;
  if (o) {
    dir_given = scene_item(o, "dir") != NULL;
    scene_push_key(c, "output");
    int rc = load_output(c, o, &s->output);
    scene_pop(c);
    if (rc) return rc;
  }
  if (!dir_given) {
    char dir[SIM_PATH_MAX];
    snprintf(dir, sizeof dir, "out/%s", s->name);
    scene_set_str(s->output.dir, sizeof s->output.dir, dir);
  }
  return SIM_OK;
}

int sim_scene_load_string(const char *text, const char *file, const char *const *overrides,
                          int noverrides, sim_scene *out, sim_status *st) {
  sim_status_clear(st);
  sim_default_scene(out);
  if (!file) file = "<string>";
  scene_set_str(out->file, sizeof out->file, file);
  if (!text) return sim_fail(st, SIM_ERR_INTERNAL, "%s: no scene text", file);
  if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF)
    text += 3; /* UTF-8 byte order mark */

  scene_ctx c = {file, text, NULL, 0, st, {0}};
  size_t off = 0;
  char msg[300];
  int line, col;
  if (scene_json_check(text, &off, msg, sizeof msg)) {
    scene_line_col(text, off, &line, &col);
    return sim_fail(st, SIM_ERR_SCENE, "%s:%d:%d: invalid JSON: %s", file, line, col, msg);
  }
  cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
  if (!root) {
    const char *at = cJSON_GetErrorPtr();
    off = at && at >= text && at <= text + strlen(text) ? (size_t)(at - text) : 0;
    scene_line_col(text, off, &line, &col);
    return sim_fail(st, SIM_ERR_SCENE, "%s:%d:%d: invalid JSON: cannot parse (out of memory?)",
                    file, line, col);
  }
  int rc = SIM_OK;
  scene_override *ovr = NULL;
  if (!cJSON_IsObject(root)) {
    rc = load_root(&c, root, out); /* reports the wrong top-level type */
    goto done;
  }
  if (noverrides > 0) {
    ovr = SIM_NEW0(scene_override, noverrides);
    if (!ovr) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory", file);
      goto done;
    }
  }
  for (int k = 0; k < noverrides && rc == SIM_OK; k++) {
    rc = scene_override_apply(root, overrides[k] ? overrides[k] : "", &ovr[k], st);
    c.novr = k + 1;
  }
  c.ovr = ovr;
  if (rc == SIM_OK) rc = load_root(&c, root, out);
  if (rc == SIM_OK) rc = scene_validate_ctx(&c, out);
done:
  for (int k = 0; k < noverrides && ovr; k++) scene_override_free(&ovr[k]);
  sim_free(ovr);
  cJSON_Delete(root);
  return rc;
}

int sim_scene_load(const char *file, const char *const *overrides, int noverrides, sim_scene *out,
                   sim_status *st) {
  sim_status_clear(st);
  FILE *f = fopen(file, "rb");
  if (!f) return sim_fail(st, SIM_ERR_SCENE, "%s: cannot open: %s", file, strerror(errno));
  size_t len = 0, cap = 4096;
  char *buf = sim_malloc(cap);
  int rc = SIM_OK;
  while (buf) {
    if (len + 1 >= cap) {
      if (cap >= SCENE_FILE_MAX) {
        rc = sim_fail(st, SIM_ERR_SCENE, "%s: file too large (a scene is at most %u MiB)", file,
                      SCENE_FILE_MAX >> 20);
        break;
      }
      char *nb = sim_realloc(buf, cap * 2);
      if (!nb) break;
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - 1 - len, f);
    len += got;
    if (got == 0) break;
  }
  if (!buf) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory reading the scene", file);
  } else if (rc == SIM_OK && ferror(f)) {
    rc = sim_fail(st, SIM_ERR_SCENE, "%s: cannot read: %s", file, strerror(errno));
  }
  fclose(f);
  if (rc == SIM_OK) {
    buf[len] = '\0';
    size_t nul = strlen(buf);
    if (nul != len) {
      int line, col;
      scene_line_col(buf, nul, &line, &col);
      rc = sim_fail(st, SIM_ERR_SCENE, "%s:%d:%d: invalid JSON: a NUL byte in the text", file, line,
                    col);
    } else {
      rc = sim_scene_load_string(buf, file, overrides, noverrides, out, st);
    }
  }
  sim_free(buf);
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* Typed reads of cJSON values into scene fields, with type, shape and key-name errors. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_private.h"

const char *scene_type_name(const cJSON *v) {
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsTrue(v)) return "true";
  if (cJSON_IsFalse(v)) return "false";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  return "an invalid value";
}

const cJSON *scene_item(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

void scene_names_list(const char *const *names, int n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < cap; i++) {
    int w = snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", names[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}

int scene_keys(scene_ctx *c, const cJSON *obj, const char *const *allowed, int n,
               const char *note) {
  for (const cJSON *it = obj->child; it; it = it->next) {
    const char *key = it->string ? it->string : "";
    int occ = 0;
    for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
      if (prev->string && strcmp(prev->string, key) == 0) occ++;
    char q[96];
    scene_quote(key, q, sizeof q);
    if (occ > 0) {
      scene_push_key(c, key);
      if (c->path.n <= SCENE_PATH_DEPTH) c->path.seg[c->path.n - 1].occ = occ;
      int rc = scene_fail(c, 1, "duplicate key \"%s\" (each key may appear once)", q);
      scene_pop(c);
      return rc;
    }
    int known = 0;
    for (int i = 0; i < n && !known; i++) known = strcmp(allowed[i], key) == 0;
    if (known) continue;
    const char *hint = scene_suggest(key, allowed, n);
    scene_push_key(c, key);
    int rc;
    if (hint) {
      rc = scene_fail(c, 1, "unknown key \"%s\"%s%s (did you mean \"%s\"?)", q, note ? " " : "",
                      note ? note : "", hint);
    } else {
      char list[400];
      scene_names_list(allowed, n, list, sizeof list);
      rc = scene_fail(c, 1, "unknown key \"%s\"%s%s (allowed: %s)", q, note ? " " : "",
                      note ? note : "", list);
    }
    scene_pop(c);
    return rc;
  }
  return SIM_OK;
}

int scene_num_value(scene_ctx *c, const cJSON *v, double *out) {
  if (!cJSON_IsNumber(v)) return scene_fail(c, 0, "expected a number, got %s", scene_type_name(v));
  if (!isfinite(v->valuedouble))
    return scene_fail(c, 0, "expected a finite number, got one too large for a double");
  *out = v->valuedouble;
  return SIM_OK;
}

int scene_int_value(scene_ctx *c, const cJSON *v, int *out) {
  double x = 0;
  if (!cJSON_IsNumber(v))
    return scene_fail(c, 0, "expected an integer, got %s", scene_type_name(v));
  if (scene_num_value(c, v, &x)) return c->st->code;
  char num[40];
  scene_fmt_num(x, num);
  if (x != floor(x)) return scene_fail(c, 0, "expected an integer, got %s", num);
  if (x > INT_MAX) /* the key's own range is checked once it is read */
    return scene_fail(c, 0, "expected an integer <= %d, got %s", INT_MAX, num);
  if (x < INT_MIN) return scene_fail(c, 0, "expected an integer >= %d, got %s", INT_MIN, num);
  *out = (int)x;
  return SIM_OK;
}

int scene_rd_num(scene_ctx *c, const cJSON *obj, const char *key, double *out) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = scene_num_value(c, v, out);
  scene_pop(c);
  return rc;
}

int scene_rd_int(scene_ctx *c, const cJSON *obj, const char *key, int *out) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = scene_int_value(c, v, out);
  scene_pop(c);
  return rc;
}

/* v as an array of exactly n numbers (ints when iout is set), at the current path. */
static int array_value(scene_ctx *c, const cJSON *v, double *dout, int *iout, int n) {
  const char *what = iout ? "integers" : "numbers";
  if (!cJSON_IsArray(v))
    return scene_fail(c, 0, "expected an array of %d %s, got %s", n, what, scene_type_name(v));
  if (cJSON_GetArraySize(v) != n)
    return scene_fail(c, 0, "expected an array of %d %s, got an array of %d", n, what,
                      cJSON_GetArraySize(v));
  int rc = SIM_OK, i = 0;
  for (const cJSON *e = v->child; e && rc == SIM_OK; e = e->next, i++) {
    scene_push_index(c, i);
    rc = iout ? scene_int_value(c, e, &iout[i]) : scene_num_value(c, e, &dout[i]);
    scene_pop(c);
  }
  return rc;
}

static int rd_array(scene_ctx *c, const cJSON *obj, const char *key, double *dout, int *iout,
                    int n) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = array_value(c, v, dout, iout, n);
  scene_pop(c);
  return rc;
}

int scene_rd_rows(scene_ctx *c, const cJSON *obj, const char *key, double *out, int width, int max,
                  int *nrows, const char *what) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = SIM_OK, i = 0;
  if (!cJSON_IsArray(v)) {
    rc = scene_fail(c, 0, "expected an array of %s, got %s", what, scene_type_name(v));
  } else if (cJSON_GetArraySize(v) > max) {
    rc = scene_fail(c, 0, "expected an array of at most %d %s, got an array of %d", max, what,
                    cJSON_GetArraySize(v));
  } else {
    for (const cJSON *e = v->child; e && rc == SIM_OK; e = e->next, i++) {
      scene_push_index(c, i);
      rc = array_value(c, e, out + (size_t)i * (size_t)width, NULL, width);
      scene_pop(c);
    }
    if (rc == SIM_OK) *nrows = i;
  }
  scene_pop(c);
  return rc;
}

int scene_rd_vec(scene_ctx *c, const cJSON *obj, const char *key, double *out, int n) {
  return rd_array(c, obj, key, out, NULL, n);
}

int scene_rd_ivec(scene_ctx *c, const cJSON *obj, const char *key, int *out, int n) {
  return rd_array(c, obj, key, NULL, out, n);
}

int scene_rd_str(scene_ctx *c, const cJSON *obj, const char *key, char *out, size_t cap) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = SIM_OK;
  if (!cJSON_IsString(v))
    rc = scene_fail(c, 0, "expected a string, got %s", scene_type_name(v));
  else if (strlen(v->valuestring) >= cap)
    rc = scene_fail(c, 0, "expected a string of at most %zu bytes, got %zu", cap - 1,
                    strlen(v->valuestring));
  else
    scene_set_str(out, cap, v->valuestring);
  scene_pop(c);
  return rc;
}

static int enum_value(scene_ctx *c, const cJSON *v, const char *const *names, int n, int *out) {
  char list[300];
  scene_names_list(names, n, list, sizeof list);
  if (!cJSON_IsString(v))
    return scene_fail(c, 0, "expected one of %s, got %s", list, scene_type_name(v));
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], v->valuestring) == 0) {
      *out = i;
      return SIM_OK;
    }
  char q[96];
  scene_quote(v->valuestring, q, sizeof q);
  const char *hint = scene_suggest(v->valuestring, names, n);
  if (hint)
    return scene_fail(c, 0, "expected one of %s, got \"%s\" (did you mean \"%s\"?)", list, q, hint);
  return scene_fail(c, 0, "expected one of %s, got \"%s\"", list, q);
}

int scene_rd_enum(scene_ctx *c, const cJSON *obj, const char *key, const char *const *names, int n,
                  int *out) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  scene_push_key(c, key);
  int rc = enum_value(c, v, names, n, out);
  scene_pop(c);
  return rc;
}

int scene_rd_obj(scene_ctx *c, const cJSON *obj, const char *key, const cJSON **out) {
  const cJSON *v = scene_item(obj, key);
  *out = NULL;
  if (!v) return SIM_OK;
  if (cJSON_IsObject(v)) {
    *out = v;
    return SIM_OK;
  }
  scene_push_key(c, key);
  int rc = scene_fail(c, 0, "expected an object, got %s", scene_type_name(v));
  scene_pop(c);
  return rc;
}

int scene_rd_bool(scene_ctx *c, const cJSON *obj, const char *key, int *out) {
  const cJSON *v = scene_item(obj, key);
  if (!v) return SIM_OK;
  if (cJSON_IsBool(v)) {
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return SIM_OK;
  }
  scene_push_key(c, key);
  int rc = scene_fail(c, 0, "expected true or false, got %s", scene_type_name(v));
  scene_pop(c);
  return rc;
}

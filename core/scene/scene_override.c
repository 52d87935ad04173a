/* SPDX-License-Identifier: MIT */
/* --set PATH=VALUE overrides, applied to the parsed JSON tree before it is read. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "scene_private.h"

/* A path step that is a non-negative decimal index (at most 9 digits). */
static int as_index(const char *seg) {
  size_t n = strlen(seg);
  if (n == 0 || n > 9) return -1;
  for (size_t i = 0; i < n; i++)
    if (seg[i] < '0' || seg[i] > '9') return -1;
  return atoi(seg);
}

/* VALUE as JSON when it is strict JSON, else as a plain string. */
static cJSON *parse_value(const char *v) {
  size_t off;
  char msg[8];
  if (scene_json_check(v, &off, msg, sizeof msg) == 0) {
    cJSON *j = cJSON_ParseWithOpts(v, NULL, 1);
    if (j) return j;
  }
  return cJSON_CreateString(v);
}

static int ovr_fail(sim_status *st, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ovr_fail(sim_status *st, const char *text, const char *fmt, ...) {
  char what[512], q[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  scene_quote(text, q, sizeof q);
  return sim_fail(st, SIM_ERR_SCENE, "--set %s: %s", q, what);
}

/* "a.b.3" for the first n steps of rec's path, for messages. */
static void prefix_text(const scene_override *rec, int n, char *buf, size_t cap) {
  scene_path p = rec->path;
  p.n = n;
  scene_path_format(&p, buf, cap);
}

void scene_override_free(scene_override *rec) {
  sim_free(rec->buf);
  rec->buf = NULL;
}

int scene_override_apply(cJSON *root, const char *text, scene_override *rec, sim_status *st) {
  memset(rec, 0, sizeof *rec);
  rec->text = text;
  const char *eq = strchr(text, '=');
  if (!eq) return ovr_fail(st, text, "expected PATH=VALUE (e.g. solver.dt=0.005)");
  size_t plen = (size_t)(eq - text);
  if (plen == 0) return ovr_fail(st, text, "expected a path before '=' (e.g. solver.dt=0.005)");
  rec->buf = sim_malloc(plen + 1);
  if (!rec->buf) return sim_fail(st, SIM_ERR_MEMORY, "--set: out of memory");
  memcpy(rec->buf, text, plen);
  rec->buf[plen] = '\0';

  /* pins[0].box: a JavaScript or jq habit; the path's steps are dot-separated (pins.0.box) */
  const char *br = strchr(rec->buf, '[');
  if (br && br[1] >= '0' && br[1] <= '9' && strchr(br, ']')) {
    char dotted[256];
    size_t k = 0;
    for (const char *c = rec->buf; *c && k + 1 < sizeof dotted; c++)
      if (*c != ']') dotted[k++] = *c == '[' ? '.' : *c;
    dotted[k] = '\0';
    return ovr_fail(st, text, "expected a dot before an array index, as in %s", dotted);
  }
  /* split the path into steps */
  const char *segs[SCENE_PATH_DEPTH];
  int n = 0;
  for (char *p = rec->buf;;) {
    char *dot = strchr(p, '.');
    if (dot) *dot = '\0';
    if (*p == '\0') return ovr_fail(st, text, "expected a key between dots in the path");
    if (n == SCENE_PATH_DEPTH)
      return ovr_fail(st, text, "expected a path of at most %d steps", SCENE_PATH_DEPTH);
    segs[n++] = p;
    if (!dot) break;
    p = dot + 1;
  }

  cJSON *value = parse_value(eq + 1);
  if (!value) return sim_fail(st, SIM_ERR_MEMORY, "--set: out of memory");
  int rc = SIM_OK;
  cJSON *node = root;
  char where[320];
  for (int i = 0; i < n && rc == SIM_OK; i++) {
    const int last = i == n - 1;
    const int idx = as_index(segs[i]);
    scene_seg *sg = &rec->path.seg[i];
    rec->path.n = i + 1;
    sg->occ = 0;
    if (cJSON_IsObject(node)) {
      sg->key = segs[i];
      sg->index = -1;
      cJSON *child = cJSON_GetObjectItemCaseSensitive(node, segs[i]);
      if (last) {
        if (cJSON_IsNull(value)) { /* null removes the key: the default applies */
          cJSON_DeleteItemFromObjectCaseSensitive(node, segs[i]);
          cJSON_Delete(value);
        } else if (child) {
          cJSON_ReplaceItemInObjectCaseSensitive(node, segs[i], value); /* sets the key */
        } else {
          cJSON_AddItemToObject(node, segs[i], value);
        }
        value = NULL;
        break;
      }
      if (!child) {
        child = as_index(segs[i + 1]) >= 0 ? cJSON_CreateArray() : cJSON_CreateObject();
        if (!child) {
          rc = sim_fail(st, SIM_ERR_MEMORY, "--set: out of memory");
          break;
        }
        cJSON_AddItemToObject(node, segs[i], child);
      }
      node = child;
    } else if (cJSON_IsArray(node)) {
      int size = cJSON_GetArraySize(node);
      prefix_text(rec, i, where, sizeof where);
      if (idx < 0) {
        rc = ovr_fail(st, text, "%s is an array: expected an index 0..%d, got \"%s\"", where, size,
                      segs[i]);
        break;
      }
      sg->key = NULL;
      sg->index = idx;
      if (idx > size) {
        rc = ovr_fail(st, text, "%s has %d element%s: expected an index 0..%d (%d appends), got %d",
                      where, size, size == 1 ? "" : "s", size, size, idx);
        break;
      }
      if (last) {
        if (cJSON_IsNull(value)) {
          rc = ovr_fail(st, text, "null removes object keys only, not array elements");
          break;
        }
        if (idx < size)
          cJSON_ReplaceItemInArray(node, idx, value);
        else
          cJSON_AddItemToArray(node, value);
        value = NULL;
        break;
      }
      cJSON *child = cJSON_GetArrayItem(node, idx);
      if (!child) {
        child = as_index(segs[i + 1]) >= 0 ? cJSON_CreateArray() : cJSON_CreateObject();
        if (!child) {
          rc = sim_fail(st, SIM_ERR_MEMORY, "--set: out of memory");
          break;
        }
        cJSON_AddItemToArray(node, child);
      }
      node = child;
    } else {
      prefix_text(rec, i, where, sizeof where);
      rc = ovr_fail(st, text, "expected %s to be an object or array, but it is %s", where,
                    scene_type_name(node));
      break;
    }
  }
  cJSON_Delete(value);
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* Validation helpers shared by every part of the scene: ranges, vectors, names, transforms
   and scripts (pins and obstacles), each reporting "PATH: expected ..." at the value. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_private.h"

int scene_chk_num(scene_ctx *c, const char *key, double v, int lop, double lo, int hip, double hi) {
  static const char *const ops[] = {"", ">", ">=", "<", "<="};
  char got[40], b[40];
  int rc = SIM_OK;
  if (key) scene_push_key(c, key);
  scene_fmt_num(v, got);
  if (!isfinite(v)) {
    rc = scene_fail(c, 0, "expected a finite number, got %s", got);
  } else if ((lop == SCENE_GT && !(v > lo)) || (lop == SCENE_GE && !(v >= lo))) {
    scene_fmt_num(lo, b);
    rc = scene_fail(c, 0, "expected a number %s %s, got %s", ops[lop], b, got);
  } else if ((hip == SCENE_LT && !(v < hi)) || (hip == SCENE_LE && !(v <= hi))) {
    scene_fmt_num(hi, b);
    rc = scene_fail(c, 0, "expected a number %s %s, got %s", ops[hip], b, got);
  }
  if (key) scene_pop(c);
  return rc;
}

int scene_chk_int(scene_ctx *c, const char *key, int v, int lo, int hi) {
  int rc = SIM_OK;
  if (key) scene_push_key(c, key);
  if (v < lo)
    rc = scene_fail(c, 0, "expected an integer >= %d, got %d", lo, v);
  else if (v > hi)
    rc = scene_fail(c, 0, "expected an integer <= %d, got %d", hi, v);
  if (key) scene_pop(c);
  return rc;
}

int scene_chk_finite(scene_ctx *c, const char *key, const double *v, int n) {
  int rc = SIM_OK;
  scene_push_key(c, key);
  for (int i = 0; i < n && rc == SIM_OK; i++) {
    scene_push_index(c, i);
    rc = scene_chk_num(c, NULL, v[i], SCENE_NONE, 0, SCENE_NONE, 0);
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

int scene_chk_nonzero(scene_ctx *c, const char *key, const double *v) {
  if (scene_chk_finite(c, key, v, 3)) return c->st->code;
  if (v[0] != 0 || v[1] != 0 || v[2] != 0) return SIM_OK;
  scene_push_key(c, key);
  int rc = scene_fail(c, 0, "expected a nonzero vector, got [0, 0, 0]");
  scene_pop(c);
  return rc;
}

int scene_chk_enum(scene_ctx *c, const char *key, int v, const char *const *names, int n) {
  if (v >= 0 && v < n) return SIM_OK;
  char list[200];
  scene_names_list(names, n, list, sizeof list);
  scene_push_key(c, key);
  int rc = scene_fail(c, 0, "expected one of %s, got enum value %d", list, v);
  scene_pop(c);
  return rc;
}

int scene_chk_name(scene_ctx *c, const char *name) {
  int rc = SIM_OK;
  scene_push_key(c, "name");
  if (!name[0]) rc = scene_fail(c, 0, "expected a non-empty name");
  if (!strcmp(name, ".") || !strcmp(name, "..")) /* a scene's name is its output folder's */
    rc = scene_fail(c, 0, "expected a name other than \".\" and \"..\", got \"%s\"", name);
  for (const char *p = name; *p && rc == SIM_OK; p++) {
    char ch = *p;
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '-' || ch == '.'))
      rc = scene_fail(c, 0, "expected a name of letters, digits, '_', '-' and '.', got \"%.63s\"",
                      name);
  }
  scene_pop(c);
  return rc;
}

int scene_chk_transform(scene_ctx *c, const sim_transform_def *t) {
  int rc;
  rc = scene_chk_finite(c, "translate", t->translate, 3);
  if (!rc) rc = scene_chk_finite(c, "rotate", t->rotate_deg, 3);
  if (!rc && t->scale[0] == t->scale[1] && t->scale[1] == t->scale[2]) {
    rc = scene_chk_num(c, "scale", t->scale[0], SCENE_GT, 0, SCENE_NONE, 0);
  } else if (!rc) {
    scene_push_key(c, "scale");
    for (int k = 0; k < 3 && !rc; k++) {
      scene_push_index(c, k);
      rc = scene_chk_num(c, NULL, t->scale[k], SCENE_GT, 0, SCENE_NONE, 0);
      scene_pop(c);
    }
    scene_pop(c);
  }
  return rc;
}

/* A step's ramp: >= 0, and both ramps fit in the step (at most its time at full speed). */
static int chk_ramp(scene_ctx *c, const sim_pin_step *s, double cruise, const char *what) {
  int rc = scene_chk_num(c, "ramp", s->ramp, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc && s->ramp > cruise) {
    char b[40], got[40];
    scene_fmt_num(cruise, b);
    scene_fmt_num(s->ramp, got);
    scene_push_key(c, "ramp");
    rc = scene_fail(c, 0, "expected a number <= %s (%s: the ramps at both ends must fit in the "
                    "step), got %s", b, what, got);
    scene_pop(c);
  }
  return rc;
}

static int chk_step(scene_ctx *c, const sim_pin_step *s) {
  switch (s->kind) {
    case SIM_STEP_PULLING: {
      int rc = scene_chk_nonzero(c, "direction", s->direction);
      if (!rc) rc = scene_chk_num(c, "speed", s->speed, SCENE_GT, 0, SCENE_NONE, 0);
      if (!rc) rc = scene_chk_num(c, "length", s->length, SCENE_GT, 0, SCENE_NONE, 0);
      if (!rc) rc = chk_ramp(c, s, s->length / s->speed, "length / speed");
      return rc;
    }
    case SIM_STEP_ROLLING: {
      int rc = scene_chk_nonzero(c, "axis", s->axis);
      if (!rc) rc = scene_chk_finite(c, "center", s->center, 3);
      if (!rc) rc = scene_chk_num(c, "speed", s->speed, SCENE_NONE, 0, SCENE_NONE, 0);
      if (!rc && s->speed == 0) {
        scene_push_key(c, "speed");
        rc = scene_fail(c, 0, "expected a nonzero number (deg/s; the sign sets the sense), got 0");
        scene_pop(c);
      }
      if (!rc) rc = scene_chk_num(c, "angle", s->angle, SCENE_GT, 0, SCENE_NONE, 0);
      if (!rc) rc = chk_ramp(c, s, s->angle / fabs(s->speed), "angle / |speed|");
      return rc;
    }
    case SIM_STEP_WAIT:
      return scene_chk_num(c, "duration", s->duration, SCENE_GT, 0, SCENE_NONE, 0);
  }
  return scene_chk_enum(c, "type", (int)s->kind, scene_step_names, 3);
}

int scene_chk_script(scene_ctx *c, const sim_pin_step *steps, int nsteps) {
  int rc = SIM_OK;
  if (nsteps < 0 || nsteps > SIM_MAX_STEPS) {
    scene_push_key(c, "script");
    rc = scene_fail(c, 0, "expected at most %d steps, got %d", SIM_MAX_STEPS, nsteps);
    scene_pop(c);
    return rc;
  }
  scene_push_key(c, "script");
  for (int j = 0; j < nsteps && !rc; j++) {
    scene_push_index(c, j);
    rc = chk_step(c, &steps[j]);
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

int scene_chk_array(scene_ctx *c, const sim_scene *s, const char *key, int n, int lo, int hi,
                    scene_elem_check check) {
  int rc = SIM_OK;
  scene_push_key(c, key);
  if (n < lo || n > hi) rc = scene_fail(c, 0, "expected %d..%d %s, got %d", lo, hi, key, n);
  for (int i = 0; i < n && !rc; i++) {
    scene_push_index(c, i);
    rc = check(c, s, i);
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

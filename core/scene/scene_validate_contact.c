/* SPDX-License-Identifier: MIT */
/* Validation of the contact settings and the obstacles: ranges, shapes, paths, references. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "scene_private.h"

static int validate_contact_def(scene_ctx *c, const sim_contact_def *d) {
  scene_push_key(c, "contact");
  int rc = scene_chk_num(c, "margin", d->margin, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_num(c, "min_separation", d->min_separation, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc && d->min_separation > d->margin) {
    char a[40], b[40];
    scene_fmt_num(d->margin, a);
    scene_fmt_num(d->min_separation, b);
    scene_push_key(c, "min_separation");
    rc = scene_fail(c, 0, "expected a number <= %s (contact.margin), got %s", a, b);
    scene_pop(c);
  }
  if (!rc) rc = scene_chk_enum(c, "ncp", (int)d->ncp, scene_ncp_names, SIM_SCENE_NCP_COUNT);
  if (!rc)
    rc = scene_chk_enum(c, "preconditioner", (int)d->preconditioner, scene_precond_names,
                        SIM_SCENE_PRECOND_COUNT);
  if (!rc) rc = scene_chk_int(c, "cr_iterations", d->cr_iterations, 1, SCENE_CR_ITERATIONS_MAX);
  if (!rc) rc = scene_chk_num(c, "cr_tolerance", d->cr_tolerance, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_num(c, "max_force", d->max_force, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_int(c, "warm_start", d->warm_start, 0, 1);
  if (!rc) rc = scene_chk_int(c, "bodies", d->bodies, 0, 1);
  if (!rc) rc = scene_chk_int(c, "self_collision", d->self_collision, 0, 1);
  if (!rc) rc = scene_chk_int(c, "edge_edge", d->edge_edge, 0, 1);
  if (!rc) rc = scene_chk_int(c, "obstacle_edges", d->obstacle_edges, 0, 1);
  if (!rc) rc = scene_chk_int(c, "creases", d->creases, 0, 1);
  if (!rc) rc = scene_chk_num(c, "mu", d->mu, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc)
    rc = scene_chk_enum(c, "delassus", (int)d->delassus, scene_delassus_names,
                        SIM_SCENE_DELASSUS_COUNT);
  if (!rc)
    rc = scene_chk_enum(c, "formulation", (int)d->formulation, scene_form_names,
                        SIM_SCENE_FORM_COUNT);
  if (!rc)
    rc = scene_chk_enum(c, "cr_preconditioner", (int)d->cr_preconditioner, scene_cr_pc_names,
                        SIM_SCENE_CR_PC_COUNT);
  if (!rc) rc = scene_chk_enum(c, "cr_precision", (int)d->cr_precision, scene_precision_names, 2);
  if (!rc) rc = scene_chk_int(c, "newton_steps", d->newton_steps, 1, SCENE_NEWTON_STEPS_MAX);
  if (!rc)
    rc = scene_chk_num(c, "newton_tolerance", d->newton_tolerance, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_int(c, "redetect", d->redetect, 0, SCENE_REDETECT_MAX);
  if (!rc)
    rc = scene_chk_int(c, "end_newton_steps", d->end_newton_steps, 0, SCENE_NEWTON_STEPS_MAX);
  if (!rc) rc = scene_chk_num(c, "end_tolerance", d->end_tolerance, SCENE_GE, 0, SCENE_NONE, 0);
  if (!rc) rc = scene_chk_int(c, "line_search", d->line_search, 0, SCENE_LINE_SEARCH_MAX);
  if (!rc)
    rc = scene_chk_enum(c, "newton_jacobian", (int)d->newton_jacobian, scene_fjac_names,
                        SIM_SCENE_FJAC_COUNT);
  if (!rc && d->newton_jacobian == SIM_SCENE_FJAC_EXACT &&
      d->formulation != SIM_SCENE_FORM_COMPLIANCE) {
    scene_push_key(c, "newton_jacobian");
    rc = scene_fail(c, 0, "\"exact\" needs \"formulation\": \"compliance\"");
    scene_pop(c);
  }
  /* the paper's form takes the full step: a line search asked for there would do nothing */
  if (!rc && d->line_search > 0 && d->formulation == SIM_SCENE_FORM_PAPER &&
      scene_given(c, "line_search")) {
    scene_push_key(c, "line_search");
    rc = scene_fail(c, 0,
                    "needs \"formulation\": \"compliance\" (the paper's form takes the "
                    "full Newton step; 0 or no line_search there)");
    scene_pop(c);
  }
  scene_pop(c);
  return rc;
}

static int positive(scene_ctx *c, const char *key, double v) {
  return scene_chk_num(c, key, v, SCENE_GT, 0, SCENE_NONE, 0);
}

/* A surface mesh file: .obj, .off or .stl, an existing regular file. */
static int validate_mesh_file(scene_ctx *c, const char *path) {
  static const char *const ext[] = {".obj", ".off", ".stl"};
  int rc = SIM_OK, known = 0;
  size_t n = strlen(path);
  for (int i = 0; i < 3; i++) known |= n >= 4 && strcmp(path + n - 4, ext[i]) == 0;
  struct stat sb;
  scene_push_key(c, "path");
  if (!path[0]) {
    rc = scene_fail(c, 0, "expected a non-empty path");
  } else if (!known) {
    char q[128];
    scene_quote(path, q, sizeof q);
    rc =
        scene_fail(c, 0, "expected a file ending in .obj, .off or .stl (a surface), got \"%s\"", q);
  } else if (stat(path, &sb) != 0) {
    rc = scene_fail(c, 0, "file not found: %s", path);
  } else if (!S_ISREG(sb.st_mode)) {
    rc = scene_fail(c, 0, "not a regular file: %s", path);
  }
  scene_pop(c);
  return rc;
}

static int validate_shape(scene_ctx *c, const sim_obstacle_def *o) {
  int rc = SIM_OK;
  char a[40], b[40];
  switch (o->type) {
    case SIM_OBST_PLANE:
      rc = scene_chk_finite(c, "point", o->point, 3);
      return rc ? rc : scene_chk_nonzero(c, "normal", o->normal);
    case SIM_OBST_BOX:
      rc = scene_chk_finite(c, "center", o->center, 3);
      scene_push_key(c, "half_extents");
      for (int k = 0; k < 3 && !rc; k++) {
        scene_push_index(c, k);
        rc = positive(c, NULL, o->half_extents[k]);
        scene_pop(c);
      }
      scene_pop(c);
      return rc ? rc : scene_chk_finite(c, "rotate", o->rotate_deg, 3);
    case SIM_OBST_SPHERE:
      rc = scene_chk_finite(c, "center", o->center, 3);
      return rc ? rc : positive(c, "radius", o->radius);
    case SIM_OBST_CAPSULE:
      rc = scene_chk_finite(c, "a", o->a, 3);
      if (!rc) rc = scene_chk_finite(c, "b", o->b, 3);
      if (!rc && o->a[0] == o->b[0] && o->a[1] == o->b[1] && o->a[2] == o->b[2]) {
        scene_push_key(c, "b");
        rc = scene_fail(c, 0, "expected an end point different from a (a capsule needs a length)");
        scene_pop(c);
      }
      return rc ? rc : positive(c, "radius", o->radius);
    case SIM_OBST_CYLINDER:
      rc = scene_chk_finite(c, "point", o->point, 3);
      if (!rc) rc = scene_chk_nonzero(c, "axis", o->axis);
      if (!rc) rc = positive(c, "radius", o->radius);
      if (!rc) rc = scene_chk_num(c, "height", o->height, SCENE_GE, 0, SCENE_NONE, 0);
      return rc ? rc : scene_chk_num(c, "spin", o->spin, SCENE_NONE, 0, SCENE_NONE, 0);
    case SIM_OBST_TORUS:
      rc = scene_chk_finite(c, "center", o->center, 3);
      if (!rc) rc = scene_chk_nonzero(c, "axis", o->axis);
      if (!rc) rc = positive(c, "minor", o->minor);
      if (!rc && !(o->major > o->minor)) {
        scene_fmt_num(o->minor, a);
        scene_fmt_num(o->major, b);
        scene_push_key(c, "major");
        rc = scene_fail(c, 0, "expected a number > %s (minor), got %s", a, b);
        scene_pop(c);
      }
      return rc ? rc : scene_chk_num(c, "major", o->major, SCENE_NONE, 0, SCENE_NONE, 0);
    case SIM_OBST_MESH:
      rc = validate_mesh_file(c, o->path);
      if (!rc) {
        scene_push_key(c, "transform");
        rc = scene_chk_transform(c, &o->transform);
        scene_pop(c);
      }
      if (!rc && o->closed != SIM_CLOSED_AUTO && o->closed != SIM_CLOSED_NO &&
          o->closed != SIM_CLOSED_YES) {
        scene_push_key(c, "closed");
        rc = scene_fail(c, 0, "expected \"auto\", true or false, got %d", o->closed);
        scene_pop(c);
      }
      return rc;
  }
  return scene_chk_enum(c, "type", (int)o->type, scene_obstacle_names, SIM_OBST_COUNT);
}

static int validate_obstacle(scene_ctx *c, const sim_scene *s, int i) {
  const sim_obstacle_def *o = &s->obstacles[i];
  if (scene_chk_name(c, o->name)) return c->st->code;
  for (int j = 0; j < i; j++)
    if (strcmp(s->obstacles[j].name, o->name) == 0) {
      scene_push_key(c, "name");
      int rc = scene_fail(c, 0, "duplicate obstacle name \"%s\" (also obstacles.%d)", o->name, j);
      scene_pop(c);
      return rc;
    }
  if (validate_shape(c, o)) return c->st->code;
  if (scene_chk_num(c, "mu", o->mu, SCENE_GE, 0, SCENE_NONE, 0)) return c->st->code;
  if (!isnan(o->margin) && scene_chk_num(c, "margin", o->margin, SCENE_GE, 0, SCENE_NONE, 0))
    return c->st->code;
  int rc = SIM_OK;
  if (!isnan(o->margin) && o->margin < s->contact.min_separation) {
    char a[40], b[40];
    scene_fmt_num(s->contact.min_separation, a);
    scene_fmt_num(o->margin, b);
    scene_push_key(c, "margin");
    rc = scene_fail(c, 0, "expected a number >= %s (contact.min_separation), got %s", a, b);
    scene_pop(c);
    return rc;
  }
  if (o->touches != SIM_TOUCHES_ALL && s->nbodies < 32 && (o->touches >> s->nbodies) != 0) {
    int b = s->nbodies;
    while (!(o->touches & (1u << b))) b++;
    scene_push_key(c, "touches");
    rc = scene_fail(c, 0, "expected body indices 0..%d, got %d", s->nbodies - 1, b);
    scene_pop(c);
  }
  return rc ? rc : scene_chk_script(c, o->steps, o->nsteps);
}

int scene_validate_contact(scene_ctx *c, const sim_scene *s) {
  int rc = validate_contact_def(c, &s->contact);
  if (rc) return rc;
  return scene_chk_array(c, s, "obstacles", s->nobstacles, 0, SIM_MAX_OBSTACLES, validate_obstacle);
}

/* SPDX-License-Identifier: MIT */
/* The model's numbers within a double's range (model_checks.h): an overflow (density 1e308)
   or an underflow (thickness 1e-308) refused when the model is built, naming the key, instead
   of a NaN position at the first step. */
#include "model_checks.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#include "../solve/material.h"

/* What a body's mass comes from, for messages: the key and its value, and the keys to
   change (`fix`). */
static void mass_source(const sim_model *m, int b, char *src, size_t cap, const char **fix) {
  const sim_material_def *md = &m->scene->bodies[b].material;
  if (md->mass > 0) {
    snprintf(src, cap, "bodies.%d.material.mass: mass %g", b, md->mass);
    *fix = "mass";
  } else if (m->scene->bodies[b].mesh.kind == SIM_SRC_CLOTH) {
    snprintf(src, cap, "bodies.%d.material: density %g with thickness %g", b, md->density,
             md->thickness);
    *fix = "density or thickness";
  } else {
    snprintf(src, cap, "bodies.%d.material.density: density %g", b, md->density);
    *fix = "density";
  }
}

/* A body's mass and each vertex's share must be normal doubles: an overflow (density 1e308)
   turns the first step's positions into NaN, and an underflow (thickness 1e-300) leaves a
   vertex without mass, which the system matrix M + h^2 ... cannot stand. vertex < 0: the
   body's total. */
int sim_model_check_mass(const sim_model *m, int b, int vertex, double mass, sim_status *st) {
  if (mass >= DBL_MIN && mass < HUGE_VAL) return SIM_OK;
  char src[160], who[48];
  const char *fix = "";
  mass_source(m, b, src, sizeof src, &fix);
  snprintf(who, sizeof who, vertex < 0 ? "the body" : "vertex %d", vertex);
  const int big = !(mass < HUGE_VAL);
  return sim_fail(st, SIM_ERR_SCENE, "%s: %s gives %s a mass %s (%g kg); expected a %s %s",
                  m->scene->file, src, who,
                  big ? "beyond a double's range" : "below a double's normal range", mass,
                  big ? "smaller" : "larger", fix);
}

/* The initial momentum m v of a body must be finite: at velocity 1e308 it is not, and the
   first step's positions are NaN. */
int sim_model_check_momentum(const sim_model *m, int b, double total, sim_status *st) {
  const double *v = m->scene->bodies[b].velocity;
  if (fabs(total * v[0]) < HUGE_VAL && fabs(total * v[1]) < HUGE_VAL &&
      fabs(total * v[2]) < HUGE_VAL)
    return SIM_OK;
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: bodies.%d.velocity: velocity [%g, %g, %g] with the body's mass %g kg gives "
                  "a momentum beyond a double's range; expected a smaller velocity",
                  m->scene->file, b, v[0], v[1], v[2], total);
}

/* An element's rest measure and weight must be normal and finite: a cloth thickness of
   1e308 overflows w = 2 mu V (or the body's volume), one of 1e-308 leaves V subnormal, and
   either makes the masses or the system matrix meaningless. */
int sim_model_check_elem(const sim_model *m, int b, int e, const sim_elem *t, sim_status *st) {
  const sim_material_def *md = &m->scene->bodies[b].material;
  const char *file = m->scene->file;
  if (t->dim == 2 && !(t->vol >= DBL_MIN && t->vol < HUGE_VAL))
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: bodies.%d.material.thickness: thickness %g gives cloth triangle %d a "
                    "volume (area x thickness) of %g m^3, %s; expected a %s thickness",
                    file, b, md->thickness, e, t->vol,
                    t->vol < HUGE_VAL ? "below a double's normal range" : "beyond a double's range",
                    t->vol < HUGE_VAL ? "larger" : "smaller");
  if (t->dim == 3 && !(t->vol < HUGE_VAL))
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: bodies.%d.transform.scale: tet %d has a volume beyond a double's range; "
                    "expected a smaller mesh or scale",
                    file, b, e);
  if (t->w >= 0 && t->w < HUGE_VAL) return SIM_OK;
  if (t->dim == 2)
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: bodies.%d.material: youngs_modulus %g with thickness %g gives cloth "
                    "triangle %d a weight beyond a double's range (w %g); expected a smaller "
                    "youngs_modulus or thickness",
                    file, b, md->youngs_modulus, md->thickness, e, t->w);
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: bodies.%d.material: youngs_modulus %g gives tet %d a weight beyond a "
                  "double's range (w %g); expected a smaller youngs_modulus",
                  file, b, md->youngs_modulus, e, t->w);
}

/* A body's total rest measure must be finite: a cloth of finite triangles can still sum
   past a double (thickness 1e308), and every mass share divides by it. */
int sim_model_check_measure(const sim_model *m, int b, double measure, sim_status *st) {
  if (measure < HUGE_VAL) return SIM_OK;
  const sim_material_def *md = &m->scene->bodies[b].material;
  if (m->scene->bodies[b].mesh.kind == SIM_SRC_CLOTH)
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: bodies.%d.material.thickness: thickness %g gives the cloth a volume "
                    "beyond a double's range; expected a smaller thickness",
                    m->scene->file, b, md->thickness);
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: bodies.%d.transform.scale: the body's volume is beyond a double's range; "
                  "expected a smaller mesh or scale",
                  m->scene->file, b);
}

/* Bending weights k_s must be finite: an isometric stiffness of 1e308 over triangles of
   area < 1 overflows k_s = 3 k / (A0 + A1). */
int sim_model_check_bending(const sim_model *m, int b, const sim_bending *one, sim_status *st) {
  for (int s = 0; s < one->nst; s++)
    if (!(one->k[s] >= 0 && one->k[s] < HUGE_VAL))
      return sim_fail(st, SIM_ERR_SCENE,
                      "%s: bodies.%d.bending.stiffness: stiffness %g gives bending stencil %d a "
                      "weight beyond a double's range (k %g); expected a smaller stiffness",
                      m->scene->file, b, m->scene->bodies[b].bending.stiffness, s, one->k[s]);
  return SIM_OK;
}

/* The material's Lame parameters in `dim` dimensions must be finite: E near double's largest
   with nu near 0.5 (or -1) overflows lambda, and every energy after it would be NaN. */
int sim_model_check_lame(const sim_model *m, int b, int dim, sim_status *st) {
  const sim_material_def *md = &m->scene->bodies[b].material;
  double mu, lambda;
  sim_material_lame(md->youngs_modulus, md->poisson_ratio, dim, &mu, &lambda);
  if (isfinite(mu) && isfinite(lambda)) return SIM_OK;
  return sim_fail(st, SIM_ERR_SCENE,
                  "%s: bodies.%d.material: youngs_modulus %g with poisson_ratio %g gives Lame "
                  "parameters beyond a double's range (mu %g, lambda %g); expected a smaller "
                  "youngs_modulus",
                  m->scene->file, b, md->youngs_modulus, md->poisson_ratio, mu, lambda);
}

/* SPDX-License-Identifier: MIT */
/* A body's mesh in world space: generator, file or TetGen, then the scene transform. */
#include <stdio.h>
#include <string.h>

#include "../base/mathx.h"
#include "../mesh/mesh.h"
#include "model.h"

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int is_tet_file(const char *path) {
  return ends_with(path, ".node") || ends_with(path, ".ele") || ends_with(path, ".msh") ||
         ends_with(path, ".vtk");
}

void sim_rotation_deg(const double deg[3], double R[9]) {
  /* whole turns first (exact): a huge angle times pi would overflow to a NaN rotation */
  double a = fmod(deg[0], 360.0) * SIM_PI / 180, b = fmod(deg[1], 360.0) * SIM_PI / 180,
         c = fmod(deg[2], 360.0) * SIM_PI / 180;
  double Rx[9] = {1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)};
  double Ry[9] = {cos(b), 0, sin(b), 0, 1, 0, -sin(b), 0, cos(b)};
  double Rz[9] = {cos(c), -sin(c), 0, sin(c), cos(c), 0, 0, 0, 1};
  double T[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      T[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) T[3 * i + j] += Ry[3 * i + k] * Rx[3 * k + j];
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      R[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) R[3 * i + j] += Rz[3 * i + k] * T[3 * k + j];
    }
}

void sim_transform_points(const sim_transform_def *t, double *x, int nv) {
  double R[9];
  sim_rotation_deg(t->rotate_deg, R);
  for (int v = 0; v < nv; v++) {
    double s[3] = {x[3 * v] * t->scale[0], x[3 * v + 1] * t->scale[1], x[3 * v + 2] * t->scale[2]};
    for (int i = 0; i < 3; i++)
      x[3 * v + i] = R[3 * i] * s[0] + R[3 * i + 1] * s[1] + R[3 * i + 2] * s[2] + t->translate[i];
  }
}

void sim_body_mesh_name(const sim_scene *sc, int body, char *buf, size_t cap) {
  const sim_body_def *b = &sc->bodies[body];
  if (b->mesh.kind == SIM_SRC_FILE)
    snprintf(buf, cap, "%s", b->mesh.path);
  else
    snprintf(buf, cap, "%s: bodies.%d (%s)", sc->file, body, b->name);
}

int sim_body_mesh(const sim_scene *sc, int body, const char *cache_dir, sim_tetmesh *out,
                  sim_surface *cloth, sim_status *st) {
  const sim_body_def *b = &sc->bodies[body];
  const sim_mesh_def *md = &b->mesh;
  memset(out, 0, sizeof *out);
  memset(cloth, 0, sizeof *cloth);
  if (md->kind == SIM_SRC_CLOTH) {
    int rc = sim_gen_cloth_grid(md->size, md->vertices[0], md->vertices[1], md->cloth_cross,
                                cloth, st);
    if (rc == SIM_OK) sim_transform_points(&b->transform, cloth->x, cloth->nv);
    return rc;
  }
  sim_surface surf = {0};
  int rc = SIM_OK;
  char name[2 * SIM_PATH_MAX + 64];
  sim_body_mesh_name(sc, body, name, sizeof name);
  switch (md->kind) {
    case SIM_SRC_BAR: rc = sim_gen_box_tets(md->lo, md->hi, md->vertices, out, st); break;
    case SIM_SRC_ICOSPHERE: rc = sim_gen_icosphere(md->radius, md->subdivisions, &surf, st); break;
    case SIM_SRC_BOX: rc = sim_gen_box_surface(md->lo, md->hi, md->segments, &surf, st); break;
    case SIM_SRC_CYLINDER:
      rc = sim_gen_cylinder(md->radius, md->height, md->segments, md->rings, &surf, st);
      break;
    case SIM_SRC_CAPSULE:
      rc = sim_gen_capsule(md->radius, md->height, md->segments, md->rings, &surf, st);
      break;
    case SIM_SRC_CLOTH: break; /* handled above */
    case SIM_SRC_FILE:
      if (is_tet_file(md->path)) rc = sim_read_tetmesh(md->path, out, st);
      else rc = sim_read_surface(md->path, &surf, st);
      break;
  }
  if (rc == SIM_OK && surf.nv > 0) {
    char key[64];
    snprintf(key, sizeof key, "bodies.%d.mesh.tetgen.max_volume", body);
    sim_tetgen_opts o = {md->tet_quality, md->tet_max_volume, NULL, cache_dir, key};
    rc = sim_tetgen(&surf, &o, name, out, st);
  }
  sim_surface_free(&surf);
  if (rc == SIM_OK) {
    sim_transform_points(&b->transform, out->x, out->nv);
    rc = sim_tetmesh_orient(out, name, st);
  }
  if (rc != SIM_OK) sim_tetmesh_free(out);
  return rc;
}

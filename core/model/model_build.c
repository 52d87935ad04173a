/* SPDX-License-Identifier: MIT */
/* Model assembly: bodies concatenated, lumped masses, ARAP elements (G_i, w_i), pins. */
#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "../mesh/mesh.h"
#include "model.h"
#include "system.h"

/* Rest gradients g_a of one tet (F = sum_a x_a g_a^T) and its volume; 0 if degenerate. */
static int tet_rest(const double *x, const int v[4], sim_tet *t) {
  double Dm[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) Dm[3 * r + c] = x[3 * v[c + 1] + r] - x[3 * v[0] + r];
  double Dinv[9];
  double det = sim_inv3(Dm, Dinv);
  if (!(det > 0)) return 0;
  t->vol = det / 6.0;
  for (int a = 0; a < 3; a++)
    for (int d = 0; d < 3; d++) t->g[a + 1][d] = Dinv[3 * a + d];
  for (int d = 0; d < 3; d++) t->g[0][d] = -(t->g[1][d] + t->g[2][d] + t->g[3][d]);
  return 1;
}

static int append_body(sim_model *m, int b, const sim_tetmesh *tm, const sim_body_def *bd,
                       sim_status *st) {
  int v0 = m->body_vert_start[b], t0 = m->ntet;
  double mu = bd->material.youngs_modulus / (2.0 * (1.0 + bd->material.poisson_ratio));
  memcpy(m->x_rest + 3 * v0, tm->x, sizeof(double) * 3 * (size_t)tm->nv);
  double vol = 0;
  for (int e = 0; e < tm->ntet; e++) {
    sim_tet *t = &m->tets[t0 + e];
    for (int a = 0; a < 4; a++) t->v[a] = v0 + tm->tet[4 * e + a];
    if (!tet_rest(m->x_rest, t->v, t))
      return sim_fail(st, SIM_ERR_MESH, "%s: bodies.%d (%s): tet %d is degenerate or inverted",
                      m->scene->file, b, bd->name, e);
    t->mu = mu;
    t->w = 2.0 * mu * t->vol;
    m->tet_body[t0 + e] = b;
    vol += t->vol;
  }
  double total = bd->material.mass > 0 ? bd->material.mass : bd->material.density * vol;
  for (int i = 0; i < tm->nv; i++) {
    m->vert_body[v0 + i] = b;
    for (int k = 0; k < 3; k++) m->v_init[3 * (v0 + i) + k] = bd->velocity[k];
    m->mass[v0 + i] = bd->material.lumping == SIM_LUMP_UNIFORM ? total / tm->nv : 0.0;
  }
  if (bd->material.lumping == SIM_LUMP_VOLUME)
    for (int e = 0; e < tm->ntet; e++) {
      const sim_tet *t = &m->tets[t0 + e];
      for (int a = 0; a < 4; a++) m->mass[t->v[a]] += 0.25 * total * t->vol / vol;
    }
  for (int i = 0; i < tm->nv; i++)
    if (!(m->mass[v0 + i] > 0))
      return sim_fail(st, SIM_ERR_MESH, "%s: bodies.%d (%s): vertex %d belongs to no tet",
                      m->scene->file, b, bd->name, i);
  m->ntet += tm->ntet;
  m->total_mass += total;
  m->total_volume += vol;
  return SIM_OK;
}

static int build_surfaces(sim_model *m, sim_tetmesh *meshes, sim_status *st) {
  int total = 0;
  int *ntri = SIM_NEW0(int, m->nbodies);
  int **tri = SIM_NEW0(int *, m->nbodies);
  int rc = (ntri && tri) ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (surfaces)");
  for (int b = 0; rc == SIM_OK && b < m->nbodies; b++) {
    rc = sim_tetmesh_boundary(&meshes[b], &ntri[b], &tri[b], st);
    if (rc == SIM_OK) total += ntri[b];
  }
  if (rc == SIM_OK) {
    m->tri = SIM_NEW(int, 3 * (size_t)total + 1);
    m->tri_body = SIM_NEW(int, (size_t)total + 1);
    if (!m->tri || !m->tri_body) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (surfaces)");
  }
  for (int b = 0; rc == SIM_OK && b < m->nbodies; b++) {
    for (int t = 0; t < ntri[b]; t++) {
      for (int k = 0; k < 3; k++) m->tri[3 * m->ntri + k] = m->body_vert_start[b] + tri[b][3 * t + k];
      m->tri_body[m->ntri++] = b;
    }
  }
  for (int b = 0; tri && b < m->nbodies; b++) sim_free(tri[b]);
  sim_free(tri);
  sim_free(ntri);
  return rc;
}

/* vertex -> (tet, corner) incidence in CSR */
static int build_incidence(sim_model *m, sim_status *st) {
  m->vt_ptr = SIM_NEW0(int, m->n + 1);
  m->vt_idx = SIM_NEW(int, 4 * (size_t)m->ntet);
  if (!m->vt_ptr || !m->vt_idx) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (incidence)");
  for (int e = 0; e < m->ntet; e++)
    for (int a = 0; a < 4; a++) m->vt_ptr[m->tets[e].v[a] + 1]++;
  for (int i = 0; i < m->n; i++) m->vt_ptr[i + 1] += m->vt_ptr[i];
  int *next = SIM_NEW(int, m->n);
  if (!next) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (incidence)");
  memcpy(next, m->vt_ptr, sizeof(int) * (size_t)m->n);
  for (int e = 0; e < m->ntet; e++)
    for (int a = 0; a < 4; a++) m->vt_idx[next[m->tets[e].v[a]]++] = 4 * e + a;
  sim_free(next);
  return SIM_OK;
}

static int select_pins(sim_model *m, sim_status *st) {
  const sim_scene *sc = m->scene;
  m->pin_of = SIM_NEW(int, m->n);
  m->free_of = SIM_NEW(int, m->n);
  if (!m->pin_of || !m->free_of) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (pins)");
  for (int i = 0; i < m->n; i++) m->pin_of[i] = -1;
  for (int p = 0; p < sc->npins; p++) {
    int b = sc->pins[p].body, count = 0;
    for (int i = m->body_vert_start[b]; i < m->body_vert_start[b + 1]; i++)
      if (sim_in_box(sc->pins[p].box, &m->x_rest[3 * i])) {
        if (m->pin_of[i] < 0) m->pin_of[i] = p;
        count++;
      }
    if (count == 0)
      return sim_fail(st, SIM_ERR_SCENE, "%s: pins.%d.box: selects no vertex of body %d (%s)",
                      sc->file, p, b, sc->bodies[b].name);
  }
  m->npinned = 0;
  for (int i = 0; i < m->n; i++) m->npinned += m->pin_of[i] >= 0;
  m->nfree = m->n - m->npinned;
  if (m->nfree == 0)
    return sim_fail(st, SIM_ERR_SCENE, "%s: pins: every vertex is pinned, nothing to simulate",
                    sc->file);
  m->pinned = SIM_NEW(int, m->npinned + 1);
  m->free_vert = SIM_NEW(int, m->nfree);
  if (!m->pinned || !m->free_vert) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (pins)");
  int np = 0, nf = 0;
  for (int i = 0; i < m->n; i++) {
    if (m->pin_of[i] >= 0) {
      m->free_of[i] = -1;
      m->pinned[np++] = i;
    } else {
      m->free_of[i] = nf;
      m->free_vert[nf++] = i;
    }
  }
  return SIM_OK;
}

int sim_model_build(const sim_scene *sc, const char *cache_dir, sim_model *m, sim_status *st) {
  memset(m, 0, sizeof *m);
  m->scene = sc;
  m->nbodies = sc->nbodies;
  m->h = sc->solver.dt;
  sim_tetmesh meshes[SIM_MAX_BODIES];
  memset(meshes, 0, sizeof meshes);
  int rc = SIM_OK;
  m->body_vert_start = SIM_NEW0(int, sc->nbodies + 1);
  if (!m->body_vert_start) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (model)");
  long long ntet = 0;
  for (int b = 0; rc == SIM_OK && b < sc->nbodies; b++) {
    rc = sim_body_mesh(sc, b, cache_dir, &meshes[b], st);
    if (rc == SIM_OK) {
      m->body_vert_start[b + 1] = m->body_vert_start[b] + meshes[b].nv;
      ntet += meshes[b].ntet;
    }
  }
  if (rc == SIM_OK) {
    m->n = m->body_vert_start[sc->nbodies];
    m->vert_body = SIM_NEW(int, m->n);
    m->x_rest = SIM_NEW(double, 3 * (size_t)m->n);
    m->v_init = SIM_NEW(double, 3 * (size_t)m->n);
    m->mass = SIM_NEW0(double, m->n);
    m->tets = SIM_NEW(sim_tet, ntet);
    m->tet_body = SIM_NEW(int, ntet);
    if (!m->vert_body || !m->x_rest || !m->v_init || !m->mass || !m->tets || !m->tet_body)
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (model of %d vertices)", m->n);
  }
  for (int b = 0; rc == SIM_OK && b < sc->nbodies; b++)
    rc = append_body(m, b, &meshes[b], &sc->bodies[b], st);
  if (rc == SIM_OK) rc = build_surfaces(m, meshes, st);
  if (rc == SIM_OK) rc = build_incidence(m, st);
  if (rc == SIM_OK) rc = select_pins(m, st);
  if (rc == SIM_OK) rc = sim_system_assemble(m, st);
  for (int b = 0; b < sc->nbodies; b++) sim_tetmesh_free(&meshes[b]);
  if (rc != SIM_OK) sim_model_free(m);
  return rc;
}

void sim_model_free(sim_model *m) {
  void *arrays[] = {m->body_vert_start, m->vert_body, m->x_rest, m->v_init, m->mass, m->tets,
                    m->tet_body, m->tri, m->tri_body, m->vt_ptr, m->vt_idx, m->pin_of,
                    m->pinned, m->free_of, m->free_vert, m->A_colptr, m->A_rowidx, m->A_val,
                    m->C_ptr, m->C_idx, m->C_val};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) sim_free(arrays[i]);
  memset(m, 0, sizeof *m);
}

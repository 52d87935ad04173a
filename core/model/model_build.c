/* SPDX-License-Identifier: MIT */
/* Model assembly: bodies concatenated, lumped masses, elements (G_i, w_i), bending, pins. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "../mesh/mesh.h"
#include "../solve/material.h"
#include "bending.h"
#include "cable.h"
#include "model.h"
#include "model_checks.h"
#include "system.h"

/* Rest gradients g_a of one tet (F = sum_a x_a g_a^T) and its volume; 0 if degenerate. */
static int tet_rest(const double *x, const int v[4], sim_elem *t) {
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

/* Rest gradients of one cloth triangle in its own frame (e1 along the first edge, e2 in the
   plane, so the rest Dm is 2x2 with a positive determinant) and its area; 0 if degenerate. */
static int tri_rest(const double *x, const int v[3], sim_elem *t, double *area) {
  double d1[3], d2[3], n[3], e1[3], e2[3];
  for (int k = 0; k < 3; k++) {
    d1[k] = x[3 * v[1] + k] - x[3 * v[0] + k];
    d2[k] = x[3 * v[2] + k] - x[3 * v[0] + k];
  }
  sim_cross3(d1, d2, n);
  double l1 = sqrt(sim_dot3(d1, d1)), ln = sqrt(sim_dot3(n, n));
  if (!(ln > 1e-14 * sim_dot3(d1, d1) + 1e-300) || !(l1 > 0)) return 0;
  for (int k = 0; k < 3; k++) {
    e1[k] = d1[k] / l1;
    n[k] /= ln;
  }
  sim_cross3(n, e1, e2);
  /* Dm = [[e1.d1, e1.d2], [0, e2.d2]]; Dm^{-1} rows are g_1, g_2 */
  double a = sim_dot3(e1, d1), b = sim_dot3(e1, d2), d = sim_dot3(e2, d2);
  double det = a * d;
  if (!(det > 0)) return 0;
  double inv[4] = {d / det, -b / det, 0.0, a / det};
  memset(t->g, 0, sizeof t->g);
  for (int c = 0; c < 2; c++) {
    t->g[1][c] = inv[c];     /* row 0 of Dm^{-1} */
    t->g[2][c] = inv[2 + c]; /* row 1 */
    t->g[0][c] = -(t->g[1][c] + t->g[2][c]);
  }
  *area = 0.5 * det;
  return 1;
}

static void set_material(sim_elem *t, const sim_material_def *md) {
  sim_material mat;
  mat.model = md->model;
  mat.dim = t->dim;
  sim_material_lame(md->youngs_modulus, md->poisson_ratio, t->dim, &mat.mu, &mat.lambda);
  t->mu = mat.mu;
  t->lambda = mat.lambda;
  t->model = (unsigned char)md->model;
  t->w = sim_material_weight(&mat, t->vol);
}

/* Lumped masses of a body's vertices [v0, v0 + nv) from its elements [e0, e0 + ne). */
static int lump_masses(sim_model *m, int b, int v0, int nv, int e0, int ne, double measure,
                       sim_status *st) {
  const sim_body_def *bd = &m->scene->bodies[b];
  double total = bd->material.mass > 0 ? bd->material.mass : bd->material.density * measure;
  if (sim_model_check_mass(m, b, -1, total, st) || sim_model_check_momentum(m, b, total, st))
    return st->code;
  for (int i = 0; i < nv; i++) {
    m->vert_body[v0 + i] = b;
    for (int k = 0; k < 3; k++) m->v_init[3 * (v0 + i) + k] = bd->velocity[k];
    m->mass[v0 + i] = bd->material.lumping == SIM_LUMP_UNIFORM ? total / nv : 0.0;
    if (bd->material.lumping == SIM_LUMP_UNIFORM &&
        sim_model_check_mass(m, b, i, m->mass[v0 + i], st))
      return st->code;
  }
  if (bd->material.lumping == SIM_LUMP_VOLUME)
    for (int e = e0; e < e0 + ne; e++) {
      const sim_elem *t = &m->elems[e];
      const double share = total * t->vol / measure / t->nv;
      /* every share normal: a vertex's mass is 0 only where no element holds it */
      if (sim_model_check_mass(m, b, t->v[0] - v0, share, st)) return st->code;
      for (int a = 0; a < t->nv; a++) m->mass[t->v[a]] += share;
    }
  const int file = bd->mesh.kind == SIM_SRC_FILE;
  for (int i = 0; i < nv; i++) {
    if (!(m->mass[v0 + i] > 0))
      return sim_fail(st, SIM_ERR_MESH,
                      "%s: bodies.%d (%s): %s%svertex %d (from 0) belongs to no element; "
                      "expected every vertex in a tetrahedron or cloth triangle",
                      m->scene->file, b, bd->name, file ? bd->mesh.path : "", file ? ": " : "", i);
    if (sim_model_check_mass(m, b, i, m->mass[v0 + i], st)) return st->code;
  }
  m->total_mass += total;
  return SIM_OK;
}

static int append_cloth(sim_model *m, int b, const sim_surface *cs, sim_status *st) {
  const sim_body_def *bd = &m->scene->bodies[b];
  int v0 = m->body_vert_start[b], e0 = m->nelem;
  if (sim_model_check_lame(m, b, 2, st)) return st->code;
  memcpy(m->x_rest + 3 * v0, cs->x, sizeof(double) * 3 * (size_t)cs->nv);
  double measure = 0;
  for (int e = 0; e < cs->nt; e++) {
    sim_elem *t = &m->elems[e0 + e];
    for (int a = 0; a < 3; a++) t->v[a] = v0 + cs->tri[3 * e + a];
    t->v[3] = -1;
    t->nv = 3;
    t->dim = 2;
    double area = 0;
    if (!tri_rest(m->x_rest, t->v, t, &area))
      return sim_fail(st, SIM_ERR_MESH, "%s: bodies.%d (%s): cloth triangle %d is degenerate",
                      m->scene->file, b, bd->name, e);
    t->vol = area * bd->material.thickness;
    set_material(t, &bd->material);
    if (sim_model_check_elem(m, b, e, t, st)) return st->code;
    m->elem_body[e0 + e] = b;
    measure += t->vol;
  }
  if (sim_model_check_measure(m, b, measure, st)) return st->code;
  m->nelem += cs->nt;
  m->ncloth += cs->nt;
  m->total_volume += measure;
  int rc = lump_masses(m, b, v0, cs->nv, e0, cs->nt, measure, st);
  if (rc == SIM_OK && bd->bending.type != SIM_BEND_NONE) {
    sim_bending one;
    char name[SIM_PATH_MAX + 96];
    snprintf(name, sizeof name, "%s: bodies.%d (%s)", m->scene->file, b, bd->name);
    rc = sim_bending_build(bd->bending.type, bd->bending.stiffness, cs->nv, cs->x, cs->nt, cs->tri,
                           v0, name, &one, st);
    if (rc == SIM_OK) rc = sim_model_check_bending(m, b, &one, st);
    if (rc == SIM_OK) rc = sim_bending_append(m->bend, &one, st);
    sim_bending_free(&one);
  }
  return rc;
}

static int append_body(sim_model *m, int b, const sim_tetmesh *tm, sim_status *st) {
  const sim_body_def *bd = &m->scene->bodies[b];
  int v0 = m->body_vert_start[b], e0 = m->nelem;
  if (sim_model_check_lame(m, b, 3, st)) return st->code;
  memcpy(m->x_rest + 3 * v0, tm->x, sizeof(double) * 3 * (size_t)tm->nv);
  double vol = 0;
  for (int e = 0; e < tm->ntet; e++) {
    sim_elem *t = &m->elems[e0 + e];
    for (int a = 0; a < 4; a++) t->v[a] = v0 + tm->tet[4 * e + a];
    t->nv = 4;
    t->dim = 3;
    if (!tet_rest(m->x_rest, t->v, t))
      return sim_fail(st, SIM_ERR_MESH, "%s: bodies.%d (%s): tet %d is degenerate or inverted",
                      m->scene->file, b, bd->name, e);
    set_material(t, &bd->material);
    if (sim_model_check_elem(m, b, e, t, st)) return st->code;
    m->elem_body[e0 + e] = b;
    vol += t->vol;
  }
  if (sim_model_check_measure(m, b, vol, st)) return st->code;
  m->nelem += tm->ntet;
  m->ntet += tm->ntet;
  m->total_volume += vol;
  return lump_masses(m, b, v0, tm->nv, e0, tm->ntet, vol, st);
}

/* Render / OBJ surface: the boundary of each tet mesh, and a cloth body's own triangles. */
static int build_surfaces(sim_model *m, sim_tetmesh *meshes, sim_surface *cloths, sim_status *st) {
  int total = 0;
  int *ntri = SIM_NEW0(int, m->nbodies);
  int **tri = SIM_NEW0(int *, m->nbodies);
  int rc = (ntri && tri) ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (surfaces)");
  for (int b = 0; rc == SIM_OK && b < m->nbodies; b++) {
    if (cloths[b].nt > 0) {
      ntri[b] = cloths[b].nt;
      tri[b] = SIM_NEW(int, 3 * (size_t)ntri[b]);
      if (!tri[b])
        rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (surfaces)");
      else
        memcpy(tri[b], cloths[b].tri, sizeof(int) * 3 * (size_t)ntri[b]);
    } else {
      char name[2 * SIM_PATH_MAX + 64];
      sim_body_mesh_name(m->scene, b, name, sizeof name);
      rc = sim_tetmesh_boundary(&meshes[b], name, &ntri[b], &tri[b], st);
    }
    if (rc == SIM_OK) total += ntri[b];
  }
  if (rc == SIM_OK) {
    m->tri = SIM_NEW(int, 3 * (size_t)total + 1);
    m->tri_body = SIM_NEW(int, (size_t)total + 1);
    if (!m->tri || !m->tri_body) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (surfaces)");
  }
  for (int b = 0; rc == SIM_OK && b < m->nbodies; b++) {
    for (int t = 0; t < ntri[b]; t++) {
      for (int k = 0; k < 3; k++)
        m->tri[3 * m->ntri + k] = m->body_vert_start[b] + tri[b][3 * t + k];
      m->tri_body[m->ntri++] = b;
    }
  }
  for (int b = 0; tri && b < m->nbodies; b++) sim_free(tri[b]);
  sim_free(tri);
  sim_free(ntri);
  return rc;
}

/* vertex -> (element, corner) incidence in CSR, and vertex -> bending stencil entry */
static int build_incidence(sim_model *m, sim_status *st) {
  const sim_bending *bd = m->bend;
  long long nent = bd->nst > 0 ? bd->ptr[bd->nst] : 0;
  m->vt_ptr = SIM_NEW0(int, m->n + 1);
  m->vt_idx = SIM_NEW(int, 4 * (size_t)m->nelem + 1);
  m->vb_ptr = SIM_NEW0(int, m->n + 1);
  m->vb_idx = SIM_NEW(int, (size_t)nent + 1);
  m->ent_st = SIM_NEW(int, (size_t)nent + 1);
  int *next = SIM_NEW(int, m->n + 1);
  if (!m->vt_ptr || !m->vt_idx || !m->vb_ptr || !m->vb_idx || !m->ent_st || !next) {
    sim_free(next);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (incidence)");
  }
  for (int e = 0; e < m->nelem; e++)
    for (int a = 0; a < m->elems[e].nv; a++) m->vt_ptr[m->elems[e].v[a] + 1]++;
  for (int i = 0; i < m->n; i++) m->vt_ptr[i + 1] += m->vt_ptr[i];
  memcpy(next, m->vt_ptr, sizeof(int) * (size_t)m->n);
  for (int e = 0; e < m->nelem; e++)
    for (int a = 0; a < m->elems[e].nv; a++) m->vt_idx[next[m->elems[e].v[a]]++] = 4 * e + a;
  for (int s = 0; s < bd->nst; s++)
    for (int k = bd->ptr[s]; k < bd->ptr[s + 1]; k++) m->ent_st[k] = s;
  for (long long k = 0; k < nent; k++) m->vb_ptr[bd->vid[k] + 1]++;
  for (int i = 0; i < m->n; i++) m->vb_ptr[i + 1] += m->vb_ptr[i];
  memcpy(next, m->vb_ptr, sizeof(int) * (size_t)m->n);
  for (long long k = 0; k < nent; k++) m->vb_idx[next[bd->vid[k]]++] = (int)k;
  sim_free(next);
  return SIM_OK;
}

static int select_pins(sim_model *m, sim_status *st) {
  const sim_scene *sc = m->scene;
  m->pin_of = SIM_NEW(int, m->n);
  m->free_of = SIM_NEW(int, m->n);
  m->cpin_of = SIM_NEW(int, m->n);
  if (!m->pin_of || !m->free_of || !m->cpin_of)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (pins)");
  for (int i = 0; i < m->n; i++) m->pin_of[i] = m->cpin_of[i] = -1;
  for (int p = 0; p < sc->npins; p++) {
    int b = sc->pins[p].body, count = 0;
    int *of = sc->pins[p].mode == SIM_PIN_CONSTRAINT ? m->cpin_of : m->pin_of;
    for (int i = m->body_vert_start[b]; i < m->body_vert_start[b + 1]; i++)
      if (sim_in_box(sc->pins[p].box, &m->x_rest[3 * i])) {
        if (of[i] < 0) of[i] = p;
        count++;
      }
    if (count == 0)
      return sim_fail(st, SIM_ERR_SCENE, "%s: pins.%d.box: selects no vertex of body %d (%s)",
                      sc->file, p, b, sc->bodies[b].name);
  }
  m->npinned = m->ncpin = 0;
  for (int i = 0; i < m->n; i++) {
    if (m->pin_of[i] >= 0) m->cpin_of[i] = -1; /* an eliminating pin wins */
    m->npinned += m->pin_of[i] >= 0;
    m->ncpin += m->cpin_of[i] >= 0;
  }
  m->nfree = m->n - m->npinned;
  if (m->nfree == 0)
    return sim_fail(st, SIM_ERR_SCENE, "%s: pins: every vertex is pinned, nothing to simulate",
                    sc->file);
  m->pinned = SIM_NEW(int, m->npinned + 1);
  m->free_vert = SIM_NEW(int, m->nfree);
  m->cpin_vert = SIM_NEW(int, m->ncpin + 1);
  if (!m->pinned || !m->free_vert || !m->cpin_vert)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (pins)");
  int np = 0, nf = 0, nc = 0;
  for (int i = 0; i < m->n; i++) {
    if (m->cpin_of[i] >= 0) m->cpin_vert[nc++] = i;
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
  sim_surface cloths[SIM_MAX_BODIES];
  memset(meshes, 0, sizeof meshes);
  memset(cloths, 0, sizeof cloths);
  int rc = SIM_OK;
  m->body_vert_start = SIM_NEW0(int, sc->nbodies + 1);
  m->bend = SIM_NEW0(sim_bending, 1);
  if (!m->body_vert_start || !m->bend) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (model)");
  long long nelem = 0;
  for (int b = 0; rc == SIM_OK && b < sc->nbodies; b++) {
    rc = sim_body_mesh(sc, b, cache_dir, &meshes[b], &cloths[b], st);
    if (rc == SIM_OK) {
      m->body_vert_start[b + 1] = m->body_vert_start[b] + meshes[b].nv + cloths[b].nv;
      nelem += meshes[b].ntet + cloths[b].nt;
    }
    m->admm |= sc->bodies[b].material.model != SIM_MAT_ARAP;
  }
  if (rc == SIM_OK) {
    m->n = m->body_vert_start[sc->nbodies];
    m->vert_body = SIM_NEW(int, m->n);
    m->x_rest = SIM_NEW(double, 3 * (size_t)m->n);
    m->v_init = SIM_NEW(double, 3 * (size_t)m->n);
    m->mass = SIM_NEW0(double, m->n);
    m->elems = SIM_NEW(sim_elem, nelem + 1);
    m->elem_body = SIM_NEW(int, nelem + 1);
    if (!m->vert_body || !m->x_rest || !m->v_init || !m->mass || !m->elems || !m->elem_body)
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (model of %d vertices)", m->n);
  }
  for (int b = 0; rc == SIM_OK && b < sc->nbodies; b++)
    rc = cloths[b].nv > 0 ? append_cloth(m, b, &cloths[b], st) : append_body(m, b, &meshes[b], st);
  if (rc == SIM_OK) rc = build_surfaces(m, meshes, cloths, st);
  if (rc == SIM_OK) rc = build_incidence(m, st);
  if (rc == SIM_OK) rc = select_pins(m, st);
  if (rc == SIM_OK) rc = sim_cables_build(m, st);
  if (rc == SIM_OK) rc = sim_system_assemble(m, st);
  for (int b = 0; b < sc->nbodies; b++) {
    sim_tetmesh_free(&meshes[b]);
    sim_surface_free(&cloths[b]);
  }
  if (rc != SIM_OK) sim_model_free(m);
  return rc;
}

void sim_model_free(sim_model *m) {
  if (m->bend) sim_bending_free(m->bend);
  void *arrays[] = {m->body_vert_start, m->vert_body, m->x_rest,   m->v_init,   m->mass,
                    m->elems,           m->elem_body, m->tri,      m->tri_body, m->vt_ptr,
                    m->vt_idx,          m->pin_of,    m->pinned,   m->free_of,  m->cpin_of,
                    m->cpin_vert,       m->free_vert, m->A_colptr, m->A_rowidx, m->A_val,
                    m->C_ptr,           m->C_idx,     m->C_val,    m->bend,     m->vb_ptr,
                    m->vb_idx,          m->ent_st,    m->cable};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) sim_free(arrays[i]);
  memset(m, 0, sizeof *m);
}

/* F = sum_a q_a g_a^T of element t at positions q (3x3 row-major; cloth: third column 0) */
static void elem_F(const sim_elem *t, const double *q, double F[9]) {
  for (int i = 0; i < 9; i++) F[i] = 0.0;
  for (int a = 0; a < t->nv; a++)
    for (int r = 0; r < 3; r++)
      for (int d = 0; d < 3; d++) F[3 * r + d] += q[3 * t->v[a] + r] * t->g[a][d];
}

double sim_model_extent(const sim_model *m) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < m->n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], m->x_rest[3 * i + k]);
      hi[k] = fmax(hi[k], m->x_rest[3 * i + k]);
    }
  return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

double sim_model_measure(const sim_model *m, const double *q) {
  double total = 0;
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    double F[9];
    elem_F(t, q, F);
    if (t->dim == 3) {
      total += t->vol * sim_det3(F);
    } else {
      double c0[3] = {F[0], F[3], F[6]}, c1[3] = {F[1], F[4], F[7]}, n[3];
      sim_cross3(c0, c1, n);
      total += t->vol * sim_norm3(n); /* area ratio |F e1 x F e2| */
    }
  }
  return total;
}

int sim_model_inverted(const sim_model *m, const double *q) {
  int count = 0;
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    if (t->dim != 3) continue;
    double F[9];
    elem_F(t, q, F);
    count += sim_det3(F) <= 0.0;
  }
  return count;
}

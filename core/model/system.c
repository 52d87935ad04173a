/* SPDX-License-Identifier: MIT */
/* A_s = M + h^2 sum_i w_i G_i^T G_i + h^2 sum_s k_s L_s^T L_s (bending) over the free unknowns
   (scalar: the three coordinates share it, DESIGN.md Sec. 3), and C, the coupling to pinned
   vertices whose motion enters b. */
#include "system.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "bending.h"

typedef struct {
  uint64_t key;
  double val;
} trip;

static int cmp_trip(const void *a, const void *b) {
  uint64_t x = ((const trip *)a)->key, y = ((const trip *)b)->key;
  return (x > y) - (x < y);
}

/* Sort triplets by key and sum duplicates in place; returns the unique count. */
static size_t compress(trip *t, size_t n) {
  if (n == 0) return 0;
  qsort(t, n, sizeof *t, cmp_trip);
  size_t u = 0;
  for (size_t i = 1; i < n; i++) {
    if (t[i].key == t[u].key)
      t[u].val += t[i].val;
    else
      t[++u] = t[i];
  }
  return u + 1;
}

typedef struct {
  trip *ta, *tc;
  size_t na, nc;
  uint64_t nf, np;
  const int *pin_index;
} assembly;

/* The entry k between vertices i and j: into A (upper triangle) when both are free, into C
   when only j is pinned, dropped when i is pinned (its row is not an unknown). */
static void add_pair(const sim_model *m, assembly *as, int i, int j, double k) {
  int fa = m->free_of[i], fb = m->free_of[j];
  if (fa < 0) return;
  if (fb < 0)
    as->tc[as->nc++] = (trip){(uint64_t)fa * as->np + (uint64_t)as->pin_index[j], k};
  else if (fa <= fb)
    as->ta[as->na++] = (trip){(uint64_t)fb * as->nf + (uint64_t)fa, k};
}

/* Every entry of A and C must be finite: the masses, weights and bending weights are
   checked one by one when the model is built, but h^2 w g_a.g_b and the sums over the
   elements around a vertex can still overflow, and a Cholesky factor of inf is NaN.
   Names the body of the entry's row. */
static int check_finite(const sim_model *m, const trip *t, size_t n, uint64_t ncol, int is_a,
                        sim_status *st) {
  for (size_t i = 0; i < n; i++) {
    if (fabs(t[i].val) < HUGE_VAL) continue;
    const int row = (int)(is_a ? t[i].key % ncol : t[i].key / ncol);
    const int v = m->free_vert[row], b = m->vert_body[v];
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: bodies.%d: %s has an entry beyond a double's range (%g, in the row of "
                    "vertex %d); expected a smaller solver.dt, material.youngs_modulus or "
                    "bending.stiffness",
                    m->scene->file, b,
                    is_a ? "the system matrix A = M + h^2 (sum_i w_i G_i^T G_i + sum_s k_s L_s^T "
                           "L_s)"
                         : "the coupling to pinned vertices (h^2 w_i G_i^T G_i, h^2 k_s L_s^T L_s)",
                    t[i].val, v);
  }
  return SIM_OK;
}

int sim_system_assemble(sim_model *m, sim_status *st) {
  const sim_bending *bd = m->bend;
  size_t pairs = 0;
  for (int e = 0; e < m->nelem; e++) pairs += (size_t)m->elems[e].nv * m->elems[e].nv;
  for (int s = 0; bd && s < bd->nst; s++) {
    size_t len = (size_t)(bd->ptr[s + 1] - bd->ptr[s]);
    pairs += len * len;
  }
  assembly as = {0};
  as.ta = SIM_NEW(trip, pairs + (size_t)m->nfree + 1);
  as.tc = SIM_NEW(trip, pairs + 1);
  int *pin_index = SIM_NEW(int, m->n + 1);
  if (!as.ta || !as.tc || !pin_index) {
    sim_free(as.ta);
    sim_free(as.tc);
    sim_free(pin_index);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (system assembly)");
  }
  as.nf = (uint64_t)m->nfree;
  as.np = (uint64_t)m->npinned;
  as.pin_index = pin_index;
  for (int i = 0; i < m->npinned; i++) pin_index[m->pinned[i]] = i;
  double h2 = m->h * m->h;
  for (int f = 0; f < m->nfree; f++)
    as.ta[as.na++] = (trip){(uint64_t)f * as.nf + (uint64_t)f, m->mass[m->free_vert[f]]};
  /* h^2 w_i G_i^T G_i: (G_i^T G_i)_ab = g_a . g_b */
  for (int e = 0; e < m->nelem; e++) {
    const sim_elem *t = &m->elems[e];
    for (int a = 0; a < t->nv; a++)
      for (int b = 0; b < t->nv; b++)
        add_pair(m, &as, t->v[a], t->v[b], h2 * t->w * sim_dot3(t->g[a], t->g[b]));
  }
  /* h^2 k_s L_s^T L_s: (L_s^T L_s)_ij = c_si c_sj */
  for (int s = 0; bd && s < bd->nst; s++)
    for (int a = bd->ptr[s]; a < bd->ptr[s + 1]; a++)
      for (int b = bd->ptr[s]; b < bd->ptr[s + 1]; b++)
        add_pair(m, &as, bd->vid[a], bd->vid[b], h2 * bd->k[s] * bd->coef[a] * bd->coef[b]);
  trip *ta = as.ta, *tc = as.tc;
  size_t na = as.na, nc = as.nc;
  uint64_t nf = as.nf, np = as.np;
  sim_free(pin_index);
  na = compress(ta, na);
  nc = compress(tc, nc);
  m->A_colptr = SIM_NEW0(int, m->nfree + 1);
  m->A_rowidx = SIM_NEW(int, na);
  m->A_val = SIM_NEW(double, na);
  m->C_ptr = SIM_NEW0(int, m->nfree + 1);
  m->C_idx = SIM_NEW(int, nc + 1);
  m->C_val = SIM_NEW(double, nc + 1);
  int rc = check_finite(m, ta, na, nf, 1, st);
  if (rc == SIM_OK) rc = check_finite(m, tc, nc, np, 0, st);
  if (rc == SIM_OK &&
      (!m->A_colptr || !m->A_rowidx || !m->A_val || !m->C_ptr || !m->C_idx || !m->C_val))
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (system matrix, %zu entries)", na);
  if (rc == SIM_OK) {
    for (size_t i = 0; i < na; i++) {
      int col = (int)(ta[i].key / nf);
      m->A_rowidx[i] = (int)(ta[i].key % nf);
      m->A_val[i] = ta[i].val;
      m->A_colptr[col + 1]++;
    }
    for (int f = 0; f < m->nfree; f++) m->A_colptr[f + 1] += m->A_colptr[f];
    for (size_t i = 0; i < nc; i++) {
      m->C_idx[i] = (int)(tc[i].key % np);
      m->C_val[i] = tc[i].val;
      m->C_ptr[tc[i].key / np + 1]++;
    }
    for (int f = 0; f < m->nfree; f++) m->C_ptr[f + 1] += m->C_ptr[f];
    m->A_nnz = (long long)na;
  }
  sim_free(ta);
  sim_free(tc);
  return rc;
}

void sim_system_apply(const sim_model *m, const double *x, double *y) {
  memset(y, 0, sizeof(double) * 3 * (size_t)m->nfree);
  for (int j = 0; j < m->nfree; j++)
    for (int p = m->A_colptr[j]; p < m->A_colptr[j + 1]; p++) {
      const int i = m->A_rowidx[p];
      const double a = m->A_val[p];
      for (int k = 0; k < 3; k++) {
        y[3 * (size_t)i + k] += a * x[3 * (size_t)j + k];
        if (i != j) y[3 * (size_t)j + k] += a * x[3 * (size_t)i + k];
      }
    }
}

/* SPDX-License-Identifier: MIT */
/* A_s = M + h^2 sum_i w_i G_i^T G_i over the free unknowns (scalar: the three coordinates
   share it, DESIGN.md Sec. 3), and C, the coupling to pinned vertices whose motion enters b. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "system.h"

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
    if (t[i].key == t[u].key) t[u].val += t[i].val;
    else t[++u] = t[i];
  }
  return u + 1;
}

int sim_system_assemble(sim_model *m, sim_status *st) {
  size_t cap = 10 * (size_t)m->ntet + (size_t)m->nfree;
  trip *ta = SIM_NEW(trip, cap);
  trip *tc = SIM_NEW(trip, 16 * (size_t)m->ntet + 1);
  if (!ta || !tc) {
    sim_free(ta);
    sim_free(tc);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (system assembly)");
  }
  uint64_t nf = (uint64_t)m->nfree, np = (uint64_t)m->npinned;
  int *pin_index = SIM_NEW(int, m->n);
  if (!pin_index) {
    sim_free(ta);
    sim_free(tc);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (system assembly)");
  }
  for (int i = 0; i < m->npinned; i++) pin_index[m->pinned[i]] = i;
  size_t na = 0, nc = 0;
  double h2 = m->h * m->h;
  for (int f = 0; f < m->nfree; f++)
    ta[na++] = (trip){(uint64_t)f * nf + (uint64_t)f, m->mass[m->free_vert[f]]};
  for (int e = 0; e < m->ntet; e++) {
    const sim_tet *t = &m->tets[e];
    for (int a = 0; a < 4; a++) {
      int fa = m->free_of[t->v[a]];
      if (fa < 0) continue;
      for (int b = 0; b < 4; b++) {
        double k = h2 * t->w * sim_dot3(t->g[a], t->g[b]);
        int fb = m->free_of[t->v[b]];
        if (fb < 0) tc[nc++] = (trip){(uint64_t)fa * np + (uint64_t)pin_index[t->v[b]], k};
        else if (fa <= fb) ta[na++] = (trip){(uint64_t)fb * nf + (uint64_t)fa, k};
      }
    }
  }
  sim_free(pin_index);
  na = compress(ta, na);
  nc = compress(tc, nc);
  m->A_colptr = SIM_NEW0(int, m->nfree + 1);
  m->A_rowidx = SIM_NEW(int, na);
  m->A_val = SIM_NEW(double, na);
  m->C_ptr = SIM_NEW0(int, m->nfree + 1);
  m->C_idx = SIM_NEW(int, nc + 1);
  m->C_val = SIM_NEW(double, nc + 1);
  int rc = SIM_OK;
  if (!m->A_colptr || !m->A_rowidx || !m->A_val || !m->C_ptr || !m->C_idx || !m->C_val) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (system matrix, %zu entries)", na);
  } else {
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

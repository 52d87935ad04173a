/* SPDX-License-Identifier: MIT */
/* `simctl info`: sizes of the model, A_s, L and S, memory, build times. Two systems are
   reported: the one a run solves (free vertices; pins eliminated) and the one over all
   vertices, which is what the paper's memory tables count. */
#include <string.h>

#include "../base/alloc.h"
#include "../model/bending.h"
#include "../mesh/mesh.h"
#include "../model/system.h"
#include "../simctl.h"
#include "../solve/factor.h"

#define MIB 1048576.0

const char *sim_cache_dir(void) { return sim_tetgen_default_cache_dir(); }

static int report_system(FILE *out, const char *title, const sim_model *m, const sim_scene *sc,
                         sim_status *st) {
  sim_factor *fs = NULL, *fc = NULL;
  int rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, sc->solver.ordering,
                             1, &fs, st);
  if (!rc)
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, sc->solver.ordering, 0,
                           &fc, st);
  sim_sparse_inverse S;
  memset(&S, 0, sizeof S);
  if (!rc) rc = sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S, st);
  if (!rc) {
    sim_factor_info fi, ci;
    sim_factor_get_info(fs, &fi);
    sim_factor_get_info(fc, &ci);
    double n3 = 3.0 * m->nfree;
    /* MiB (2^20 bytes): the unit of the paper's tables */
    double sd = sim_sparse_inverse_bytes(S.nnz, S.n, SIM_PREC_DOUBLE) / MIB;
    double sf = sim_sparse_inverse_bytes(S.nnz, S.n, SIM_PREC_FLOAT) / MIB;
    fprintf(out, "%s\n", title);
    fprintf(out, "  unknowns n                 %d\n", m->nfree);
    fprintf(out, "  nnz(A_s)                   %lld\n", fi.nnz_A);
    fprintf(out, "  ordering                   %s\n", fi.ordering);
    fprintf(out, "  nnz(L)                     %lld\n", fi.nnz_L);
    fprintf(out, "  nnz(S)                     %lld (%.2f x nnz(L)), etree height %d\n", S.nnz,
            (double)S.nnz / (double)fi.nnz_L, S.etree_height);
    fprintf(out, "  S, double + int32          %.2f MiB\n", sd);
    fprintf(out, "  S, float + int32           %.2f MiB\n", sf);
    fprintf(out, "  S as a 3n system           %.2f MiB (kron(S, I3), double + int32)\n",
            S.nnz * 3.0 * 12.0 / MIB);
    fprintf(out, "  dense inverse              %.2f MiB (paper's convention (3n)^2 x 8 / 2)\n",
            n3 * n3 * 8.0 / 2.0 / MIB);
    fprintf(out, "  analyze / factor           %.1f / %.1f ms (simplicial), %.1f ms (supernodal)\n",
            fi.analyze_ms, fi.factor_ms, ci.factor_ms);
    fprintf(out, "  S build                    %.1f ms\n", S.build_ms);
  }
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  return rc;
}

int sim_info(const sim_scene *sc, const char *cache_dir, FILE *out, sim_status *st) {
  sim_model m;
  int rc = sim_model_build(sc, cache_dir ? cache_dir : sim_cache_dir(), &m, st);
  if (rc) return rc;
  fprintf(out, "scene %s (%s)\n", sc->name, sc->file);
  for (int b = 0; b < m.nbodies; b++) {
    int nt = 0;
    for (int e = 0; e < m.nelem; e++) nt += m.elem_body[e] == b;
    fprintf(out, "  body %d %-20s %d vertices, %d %s\n", b, sc->bodies[b].name,
            m.body_vert_start[b + 1] - m.body_vert_start[b], nt,
            sc->bodies[b].mesh.kind == SIM_SRC_CLOTH ? "cloth triangles" : "tets");
  }
  fprintf(out, "  total                      %d vertices (%d pinned), %d tets, %d cloth "
          "triangles, %d bending stencils, %d surface triangles, mass %.6g kg, volume %.6g m^3\n",
          m.n, m.npinned, m.ntet, m.ncloth, m.bend->nst, m.ntri, m.total_mass, m.total_volume);
  rc = report_system(out, "system solved by a run (pinned vertices eliminated):", &m, sc, st);
  if (!rc && m.npinned > 0) {
    /* the same model with no pins: every vertex an unknown, as in the paper's tables */
    sim_model all = m;
    all.A_colptr = all.A_rowidx = all.C_ptr = all.C_idx = NULL;
    all.A_val = all.C_val = NULL;
    all.free_of = SIM_NEW(int, m.n);
    all.free_vert = SIM_NEW(int, m.n);
    all.pinned = NULL;
    all.npinned = 0;
    all.nfree = m.n;
    if (!all.free_of || !all.free_vert) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (info)");
    for (int i = 0; !rc && i < m.n; i++) all.free_of[i] = all.free_vert[i] = i;
    if (!rc) rc = sim_system_assemble(&all, st);
    if (!rc) rc = report_system(out, "system over all vertices (as the paper's Tables 1-2):", &all,
                                sc, st);
    sim_free(all.free_of);
    sim_free(all.free_vert);
    sim_free(all.A_colptr);
    sim_free(all.A_rowidx);
    sim_free(all.A_val);
    sim_free(all.C_ptr);
    sim_free(all.C_idx);
    sim_free(all.C_val);
  }
  sim_model_free(&m);
  return rc;
}

/* SPDX-License-Identifier: MIT */
/* `simctl info`: sizes of the model, A_s, L and S, memory, build times. Two systems are
   reported: the one a run solves (free vertices; pins eliminated) and the one over all
   vertices, which is what the paper's memory tables count. As text, or as CSV (one row per
   system) for scripts/paper_tables.sh. */
#include <string.h>

#include "../base/alloc.h"
#include "../model/bending.h"
#include "../mesh/mesh.h"
#include "../model/system.h"
#include "../simctl.h"
#include "../solve/factor.h"

#define MIB 1048576.0

const char *sim_cache_dir(void) { return sim_tetgen_default_cache_dir(); }

/* What is reported of one system. */
typedef struct sys_figures {
  int unknowns, etree_height;
  int longest_row, rows_over[3]; /* S's rows: the longest, and how many hold over ROW_SIZES */
  int rows_interval;             /* S's rows are intervals of the postorder (factor.h) */
  double runs_mean;              /* S's columns as runs of consecutive rows (sim_path_runs) */
  int runs_most;
  long long nnz_A, nnz_L, nnz_S;
  const char *ordering;
  double s_double, s_float, s_3n, dense; /* MiB (2^20 bytes): the unit of the paper's tables */
  double analyze_ms, factor_ms, supernodal_ms, s_build_ms;
} sys_figures;

/* Row lengths of S that `info` counts: the CUDA backend's row gather gives a warp rows of up to
   512 entries and a block each chunk of up to 4,096 (gpu/global_step.cu) */
static const int ROW_SIZES[3] = {512, 2048, 8192};

static void count_rows(const sim_sparse_inverse *S, sys_figures *f) {
  f->longest_row = 0;
  memset(f->rows_over, 0, sizeof f->rows_over);
  for (int i = 0; i < S->n; i++) {
    int len = S->row_ptr[i + 1] - S->row_ptr[i];
    if (len > f->longest_row) f->longest_row = len;
    for (int k = 0; k < 3; k++) f->rows_over[k] += len > ROW_SIZES[k];
  }
}

static int measure_system(const sim_model *m, const sim_scene *sc, sys_figures *f,
                          sim_status *st) {
  sim_factor *fs = NULL, *fc = NULL;
  sim_factor_info fi, ci;
  int rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, sc->solver.ordering,
                             1, &fs, st);
  if (!rc) sim_factor_get_info(fs, &fi);
  /* the supernodal factor (its timing) with the ordering the simplicial one used, so that
     "best" is searched once */
  if (!rc)
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, fi.ordering_kind, 0, &fc,
                           st);
  sim_sparse_inverse S;
  memset(&S, 0, sizeof S);
  if (!rc) rc = sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S, st);
  if (!rc) {
    sim_factor_get_info(fc, &ci);
    double n3 = 3.0 * m->nfree;
    *f = (sys_figures){.unknowns = m->nfree,
                       .etree_height = S.etree_height,
                       .nnz_A = fi.nnz_A,
                       .nnz_L = fi.nnz_L,
                       .nnz_S = S.nnz,
                       .ordering = fi.ordering,
                       .s_double = sim_sparse_inverse_bytes(S.nnz, S.n, SIM_PREC_DOUBLE) / MIB,
                       .s_float = sim_sparse_inverse_bytes(S.nnz, S.n, SIM_PREC_FLOAT) / MIB,
                       .s_3n = S.nnz * 3.0 * 12.0 / MIB,
                       .dense = n3 * n3 * 8.0 / 2.0 / MIB,
                       .analyze_ms = fi.analyze_ms,
                       .factor_ms = fi.factor_ms,
                       .supernodal_ms = ci.factor_ms,
                       .s_build_ms = S.build_ms};
    count_rows(&S, f);
    f->rows_interval = S.row_interval;
    sim_path_runs R;
    rc = sim_path_runs_build(&S, &R, st);
    f->runs_mean = R.mean;
    f->runs_most = R.most;
    sim_path_runs_free(&R);
  }
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  return rc;
}

static void print_text(FILE *out, const char *title, const sys_figures *f) {
  fprintf(out, "%s\n", title);
  fprintf(out, "  unknowns n                 %d\n", f->unknowns);
  fprintf(out, "  nnz(A_s)                   %lld\n", f->nnz_A);
  fprintf(out, "  ordering                   %s\n", f->ordering);
  fprintf(out, "  nnz(L)                     %lld\n", f->nnz_L);
  fprintf(out, "  nnz(S)                     %lld (%.2f x nnz(L)), etree height %d\n", f->nnz_S,
          (double)f->nnz_S / (double)f->nnz_L, f->etree_height);
  fprintf(out,
          "  rows of S                  longest %d entries; %d over %d, %d over %d, %d over %d\n",
          f->longest_row, f->rows_over[0], ROW_SIZES[0], f->rows_over[1], ROW_SIZES[1],
          f->rows_over[2], ROW_SIZES[2]);
  fprintf(out, "  rows of S as intervals     %s\n",
          f->rows_interval ? "yes (each the columns of its subtree, consecutive)" : "no");
  fprintf(out, "  columns of S as runs       %.1f a column on average, at most %d\n", f->runs_mean,
          f->runs_most);
  fprintf(out, "  S, double + int32          %.2f MiB\n", f->s_double);
  fprintf(out, "  S, float + int32           %.2f MiB\n", f->s_float);
  fprintf(out, "  S as a 3n system           %.2f MiB (kron(S, I3), double + int32)\n", f->s_3n);
  fprintf(out, "  dense inverse              %.2f MiB (paper's convention (3n)^2 x 8 / 2)\n",
          f->dense);
  fprintf(out, "  analyze / factor           %.1f / %.1f ms (simplicial), %.1f ms (supernodal)\n",
          f->analyze_ms, f->factor_ms, f->supernodal_ms);
  fprintf(out, "  S build                    %.1f ms\n", f->s_build_ms);
}

static const char *CSV_HEADER =
    "scene,system,vertices,pinned,tets,cloth_triangles,bending_stencils,unknowns,nnz_A,"
    "ordering,nnz_L,nnz_S,etree_height,S_double_MiB,S_float_MiB,S_3n_double_MiB,"
    "dense_inverse_MiB,analyze_ms,factor_ms,supernodal_factor_ms,S_build_ms,S_longest_row,"
    "S_rows_over_512,S_rows_over_2048,S_rows_over_8192,S_rows_interval,S_col_runs_mean,"
    "S_col_runs_most\n";

static void print_csv(FILE *out, const sim_scene *sc, const sim_model *m, const char *system,
                      const sys_figures *f) {
  /* scene names are letters, digits, '_', '-', '.' (validated): no CSV quoting needed */
  _Static_assert(sizeof ROW_SIZES / sizeof ROW_SIZES[0] == 3, "the header's S_rows_over_*");
  fprintf(out,
          "%s,%s,%d,%d,%d,%d,%d,%d,%lld,%s,%lld,%lld,%d,%.2f,%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,"
          "%.1f,%d,%d,%d,%d,%d,%.2f,%d\n",
          sc->name, system, m->n, m->npinned, m->ntet, m->ncloth, m->bend->nst, f->unknowns,
          f->nnz_A, f->ordering, f->nnz_L, f->nnz_S, f->etree_height, f->s_double, f->s_float,
          f->s_3n, f->dense, f->analyze_ms, f->factor_ms, f->supernodal_ms, f->s_build_ms,
          f->longest_row, f->rows_over[0], f->rows_over[1], f->rows_over[2], f->rows_interval,
          f->runs_mean, f->runs_most);
}

/* The figures of the system over every vertex (the model with its pins released). */
static int measure_all_vertices(const sim_model *m, const sim_scene *sc, sys_figures *f,
                                sim_status *st) {
  sim_model all = *m;
  all.A_colptr = all.A_rowidx = all.C_ptr = all.C_idx = NULL;
  all.A_val = all.C_val = NULL;
  all.free_of = SIM_NEW(int, m->n);
  all.free_vert = SIM_NEW(int, m->n);
  all.pinned = NULL;
  all.npinned = 0;
  all.nfree = m->n;
  int rc = all.free_of && all.free_vert ? SIM_OK
                                        : sim_fail(st, SIM_ERR_MEMORY, "out of memory (info)");
  for (int i = 0; !rc && i < m->n; i++) all.free_of[i] = all.free_vert[i] = i;
  if (!rc) rc = sim_system_assemble(&all, st);
  if (!rc) rc = measure_system(&all, sc, f, st);
  sim_free(all.free_of);
  sim_free(all.free_vert);
  sim_free(all.A_colptr);
  sim_free(all.A_rowidx);
  sim_free(all.A_val);
  sim_free(all.C_ptr);
  sim_free(all.C_idx);
  sim_free(all.C_val);
  return rc;
}

int sim_info(const sim_scene *sc, const char *cache_dir, int csv, FILE *out, sim_status *st) {
  sim_model m;
  int rc = sim_model_build(sc, cache_dir ? cache_dir : sim_cache_dir(), &m, st);
  if (rc) return rc;
  sys_figures run, all;
  rc = measure_system(&m, sc, &run, st);
  all = run;
  if (!rc && m.npinned > 0) rc = measure_all_vertices(&m, sc, &all, st);
  if (rc == SIM_ERR_NUMERIC) sim_status_prefix(st, sc->file); /* the scene's numbers: its file */
  if (!rc && csv) {
    fputs(CSV_HEADER, out);
    print_csv(out, sc, &m, "run", &run);
    print_csv(out, sc, &m, "all", &all);
  } else if (!rc) {
    fprintf(out, "scene %s (%s)\n", sc->name, sc->file);
    for (int b = 0; b < m.nbodies; b++) {
      int nt = 0;
      for (int e = 0; e < m.nelem; e++) nt += m.elem_body[e] == b;
      fprintf(out, "  body %d %-20s %d vertices, %d %s\n", b, sc->bodies[b].name,
              m.body_vert_start[b + 1] - m.body_vert_start[b], nt,
              sc->bodies[b].mesh.kind == SIM_SRC_CLOTH ? "cloth triangles" : "tets");
    }
    fprintf(out,
            "  total                      %d vertices (%d pinned), %d tets, %d cloth "
            "triangles, %d bending stencils, %d surface triangles, mass %.6g kg, volume %.6g "
            "m^3\n",
            m.n, m.npinned, m.ntet, m.ncloth, m.bend->nst, m.ntri, m.total_mass,
            m.total_volume);
    print_text(out, "system solved by a run (pinned vertices eliminated):", &run);
    if (m.npinned > 0) print_text(out, "system over all vertices (as the paper's Tables 1-2):", &all);
  }
  sim_model_free(&m);
  return rc;
}

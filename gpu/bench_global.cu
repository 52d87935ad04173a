// SPDX-License-Identifier: MIT
// simctl-bench-global: the CUDA global step alone, timed with CUDA events over back-to-back
// repetitions (no host synchronisation between them, unlike the frame loop's buckets), against
// the bandwidth limit: the bytes it must move (for the sparse inverse S's values and indices in
// both orientations, less the indices SIMCTL_CUDA_S_ROWS=interval and S_COLS=runs leave out,
// the row pointers, the three columns read and written; for the other solvers their matrices
// likewise) over the device's bandwidth, which it measures with a device-to-device copy of the
// matrix values' size. With simctl's two gathers it also times each product alone against its
// own bytes (rows_ms, cols_ms and their ratios; 0 for the other products), and every solver's
// step with the L2 cache flushed before each call (cold_ms, cold_over_limit).
// usage: simctl-bench-global SCENE [--reps N] [--set PATH=VALUE]... [--variant SPEC]...
//   (solver.global, solver.precision and SIMCTL_CUDA_SPMV pick the variant, as for simctl run;
//   solver.global auto is the sparse inverse)
//   --variant: a row of its own, in the order given, the scene meshed, its model built and its
//   factor and S (in each precision) built once for all (sim_S_cache: a sweep's S layouts
//   without a process, a device context, a meshing and a build of S each: some of a lent GPU's
//   minutes); SPEC is space-separated NAME=VALUE items, each SIMCTL_CUDA_* set in
//   the environment for that row's backend alone (put back after it) or solver.precision; an
//   empty SPEC is the process's own settings. Without --variant: one row, as with an empty SPEC.
// Prints a CSV header, then a row per variant; fields 26-28 are the row gather's layout
// (row_split: 0 where SIMCTL_CUDA_ROW_SPLIT=off leaves long rows whole), the loads issued
// together in the row gather (gather_batch, SIMCTL_CUDA_GATHER_BATCH) and the blocks a
// multiprocessor the batches' kernels' registers are bounded for (gather_blocks: 0 for the
// batch of 1 in both, unbounded), 0 for the other products;
// 29-32 the step captured into a CUDA graph and launched back to back, without and with
// programmatic edges between its kernels (graph_ms, graph_pdl_ms, and over the limit);
// 33-35 the column gather's loads issued together (col_batch), and whether SIMCTL_CUDA_TUNE
// picked the layouts and batches (s_rows, s_cols, gather_batch, col_batch: what it kept; tuned
// 1) in how many milliseconds at the backend's creation (tune_ms).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.cuh"
#include "cuda_ctx.h"

extern "C" {
#include "../core/scene/scene.h"
}

static sim_scene g_sc;

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "simctl-bench-global: error: %s: %s\n", what, msg);
  return 1;
}

// A variant's settings (--variant): environment items and, where >= 0, the precision.
#define SIM_BENCH_ITEMS 16
struct variant {
  int n, precision;
  char name[SIM_BENCH_ITEMS][96], value[SIM_BENCH_ITEMS][96];
};

// spec's space-separated NAME=VALUE items into v; 0, or -1 with why set.
static int parse_variant(const char *spec, variant *v, char *why, size_t len) {
  v->n = 0, v->precision = -1;
  for (const char *p = spec; *p;) {
    if (*p == ' ') {
      p++;
      continue;
    }
    const size_t k = strcspn(p, " ");
    char item[200];
    snprintf(item, sizeof item, "%.*s", (int)k, p);
    p += k;
    const char *val = strchr(item, '=');
    if (!val || val == item || k >= sizeof item) {
      snprintf(why, len, "expected NAME=VALUE of under 200 characters, got '%.80s'", item);
      return -1;
    }
    const size_t name_len = (size_t)(val - item);
    val++;
    if (name_len == 16 && !strncmp(item, "solver.precision", 16)) {
      if (strcmp(val, "double") && strcmp(val, "float")) {
        snprintf(why, len, "solver.precision: expected double or float, got '%.80s'", val);
        return -1;
      }
      v->precision = strcmp(val, "float") ? SIM_PREC_DOUBLE : SIM_PREC_FLOAT;
      continue;
    }
    if (strncmp(item, "SIMCTL_CUDA_", 12) || name_len >= sizeof v->name[0] ||
        strlen(val) >= sizeof v->value[0] || v->n == SIM_BENCH_ITEMS) {
      snprintf(why, len,
               "expected SIMCTL_CUDA_NAME=VALUE or solver.precision=double|float (at most %d, "
               "each under 96 characters), got '%.80s'",
               SIM_BENCH_ITEMS, item);
      return -1;
    }
    snprintf(v->name[v->n], sizeof v->name[0], "%.*s", (int)name_len, item);
    if (!sim_cuda_env_known(v->name[v->n])) { /* a misspelt switch: not a row of the default */
      sim_status st = {0};
      sim_cuda_env_unknown(v->name[v->n], &st);
      const size_t k = strlen(st.msg) < len ? strlen(st.msg) : len - 1;
      memcpy(why, st.msg, k);
      why[k] = '\0';
      return -1;
    }
    snprintf(v->value[v->n], sizeof v->value[0], "%s", val);
    v->n++;
  }
  return 0;
}

// Sets v's environment items, keeping what each replaced in old (NULL: unset), then puts them
// back in the reverse order (so a name given twice ends as it was).
static void env_apply(const variant *v, char **old) {
  for (int i = 0; i < v->n; i++) {
    const char *e = getenv(v->name[i]);
    old[i] = e ? strdup(e) : NULL;
    setenv(v->name[i], v->value[i], 1);
  }
}
static void env_restore(const variant *v, char **old) {
  for (int i = v->n - 1; i >= 0; i--) {
    if (old[i])
      setenv(v->name[i], old[i], 1);
    else
      unsetenv(v->name[i]);
    free(old[i]);
  }
}

// One row: the backend made with o (and the environment as it is), its step timed.
static int measure(sim_model &m, sim_backend_opts o, int reps, const char *file) {
  sim_status st = {0};
  sim_backend *be = NULL;
  if (sim_backend_cuda_create(&m, &o, &be, &st)) return fail(file, st.msg);
  cuda_ctx *c = CCTX(be);
  long long n = m.nfree, nnz = 0;
  double bytes = 0.0, cols = 3.0 * n * 8; /* one 3-column vector of doubles */
  double part_bytes[2] = {0.0, 0.0};      /* the sparse inverse: its two products apart */
  size_t vb = 8;
  const char *products = "-";
  /* the row gather's chunk (SIMCTL_CUDA_ROW_CHUNK) and the column gather's warps per column
     (SIMCTL_CUDA_COL_WARPS), simctl's products alone */
  int chunk = 0;
  switch (be->global) {
  case SIM_GLOBAL_CHOLESKY: /* L and L^T once each; P b in, L^{-1} P b out and in, z out */
    nnz = c->gs.nnz_L;
    bytes = 2.0 * nnz * (8 + 4) + 2.0 * (n + 1) * 4 + 6.0 * cols + 2.0 * n * 4;
    products = "cusparse_spsm";
    break;
  case SIM_GLOBAL_JACOBI: /* A's rows, its diagonal, q^k gathered, rhs in, q out */
    nnz = c->gs.nnz_A;
    bytes = nnz * (8.0 + 4) + (n + 1) * 4.0 + n * 8.0 + 4.0 * cols + n * 4.0;
    products = "kernel";
    break;
  case SIM_GLOBAL_DENSE_INVERSE: /* A^{-1} once, rhs in, q out */
    nnz = n * n;
    bytes = 8.0 * nnz + 2.0 * cols + n * 4.0;
    products = "kernel";
    break;
  default: { /* S in both orientations (or its rows twice), the row pointers, rhs in, S b out
                 and in, q out; the scatter also zeroes x and reads it once more. The products
                 apart: the row gather reads S's rows (their column indices unless interval:
                 P rhs, read instead of rhs, is written by the local step beside rhs), the row
                 pointers and P b, and writes y; the column gather reads S's columns (their row
                 indices, or with runs each column's top and run pointers and the runs), the
                 column pointers, y and the output map, and writes q's free rows */
    cuda_S *S = &c->S;
    nnz = S->nnz;
    vb = S->prec == SIM_PREC_FLOAT ? 4 : 8;
    part_bytes[0] = nnz * (vb + (S->row_interval ? 0.0 : 4.0)) + (n + 1) * 4.0 + 2.0 * cols;
    part_bytes[1] = nnz * (vb + (S->col_runs ? 0.0 : 4.0)) + (n + 1) * 4.0 + 2.0 * cols + 8.0 * n +
                    (S->col_runs ? 12.0 * n + 8.0 * S->nruns : 0.0);
    bytes = part_bytes[0] + part_bytes[1] + (S->rows_only ? 2.0 * cols : 0.0);
    products = S->rows_only ? "scatter" : S->spmv == SIM_SPMV_CUSPARSE ? "cusparse" : "kernel";
    if (S->spmv == SIM_SPMV_KERNEL) chunk = S->chunk;
  }
  }
  auto step = [&] {
    sim_status ignore = {0};
    be->global_step(be, &ignore);
  };
  double ms = time_ms(c->stream, reps, step);
  /* cold: each call after a write of twice the L2 cache's size, so that S comes from the
     device's memory as the limit assumes (back to back, an S of under the L2's size can be
     read from it, as it may be between an L-G iteration's local steps too) */
  double cold_ms = 0.0;
  {
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    cudaGetDeviceProperties(&prop, g_sc.solver.gpu);
    const size_t fb = 2 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 32 << 20);
    void *flush = NULL;
    int round = 0;
    if (cudaMalloc(&flush, fb) == cudaSuccess)
      cold_ms = time_each_ms(
          c->stream, reps, [&] { cudaMemsetAsync(flush, ++round & 0xff, fb, c->stream); }, step);
    cudaFree(flush);
  }
  /* the step as the frame loop runs it, captured into a CUDA graph (an L-G iteration's local
     and global steps are one, gpu/lg_graph.cu) and launched back to back: without the calls'
     launches from the host, and then with programmatic edges between its kernels
     (SIMCTL_CUDA_PDL's, gpu/pdl_cuda.cu, where this build makes them), each kernel's launch
     overlapped with the end of the one before; 0 where the capture fails (said on stderr) */
  double graph_ms[2] = {0.0, 0.0};
  for (int p = 0; p < 2 && (p == 0 || sim_cuda_pdl_built()); p++) {
    const int pdl = c->pdl;
    c->pdl = p;
    cudaGraphExec_t ex = NULL;
    sim_status gs = {0};
    auto queue = [](void *arg, sim_status *qs) {
      sim_backend *b = (sim_backend *)arg;
      return b->global_step(b, qs);
    };
    if (sim_cuda_graph_capture(c, &ex, NULL, queue, be, "the global step", &gs) == SIM_OK) {
      graph_ms[p] = time_ms(c->stream, reps, [&] { cudaGraphLaunch(ex, c->stream); });
      cudaGraphExecDestroy(ex);
    } else {
      fprintf(stderr, "simctl-bench-global: note: %s\n", gs.msg);
    }
    c->pdl = pdl;
  }
  /* simctl's two products each alone, against its own bytes (part_bytes) */
  double part_ms[2] = {0.0, 0.0};
  const int parts = chunk > 0 && !c->S.rows_only;
  if (parts)
    for (int w = 0; w < 2; w++)
      part_ms[w] = time_ms(c->stream, reps, [&] {
        sim_status ignore = {0};
        sim_cuda_S_product(be, w + 1, &ignore);
      });
  // the device's bandwidth: a device-to-device copy of the solver's matrix values (read + write)
  size_t cb = (size_t)nnz * vb * 2;
  void *x = NULL, *y = NULL;
  double bw = 0.0;
  if (cudaMalloc(&x, cb) == cudaSuccess && cudaMalloc(&y, cb) == cudaSuccess) {
    double cms = time_ms(c->stream, 20,
                         [&] { cudaMemcpyAsync(y, x, cb, cudaMemcpyDeviceToDevice, c->stream); });
    bw = 2.0 * cb / (cms * 1e-3) / 1e9;
  }
  cudaFree(x);
  cudaFree(y);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    be->destroy(be);
    return fail("CUDA", cudaGetErrorString(e));
  }
  double limit = bw > 0 ? bytes / (bw * 1e9) * 1e3 : 0.0;
  double part_over[2] = {0.0, 0.0};
  for (int w = 0; w < 2; w++)
    if (parts && bw > 0) part_over[w] = part_ms[w] / (part_bytes[w] / (bw * 1e9) * 1e3);
  /* the device's name as one CSV field: its commas ("(GPU 0, sm_90, 139 GiB)") as semicolons
     (until 2026-12-02 they shifted the later fields, which scripts/bench_gpu.sh reads by place:
     found by gpu_report.sh --emu) */
  char device[256];
  snprintf(device, sizeof device, "%s", be->device);
  for (char *p = device; *p; p++)
    if (*p == ',') *p = ';';
  const int own = chunk > 0; /* simctl's gathers: S's index layouts */
  printf("%s,%lld,%s,%lld,%s,%s,%.4f,%.4g,%.0f,%.4g,%.2f,%s,%d,%d,%d,%d,%d,%s,%s,", g_sc.name, n,
         sim_global_name(be->global), nnz, vb == 4 ? "float" : "double", products, ms, bytes / 1e6,
         bw, limit, limit > 0 ? ms / limit : 0.0, device, chunk, chunk ? c->stats.S_chunks : 0,
         chunk ? c->stats.S_split_rows : 0, chunk ? c->stats.S_col_warps : 0,
         chunk ? c->stats.S_col_auto : 0,
         !own                ? "-"
         : c->S.row_interval ? "interval"
                             : "indexed",
         !own            ? "-"
         : c->S.col_runs ? "runs"
                         : "indexed");
  printf("%.4f,%.2f,%.4f,%.2f,%.4f,%.2f,%d,%d,%d,", part_ms[0], part_over[0], part_ms[1],
         part_over[1], cold_ms, limit > 0 ? cold_ms / limit : 0.0, own ? c->S.row_split : 0,
         own ? c->S.row_batch : 0, own ? sim_cuda_gather_blocks(c) : 0);
  printf("%.4f,%.2f,%.4f,%.2f,", graph_ms[0], limit > 0 ? graph_ms[0] / limit : 0.0, graph_ms[1],
         limit > 0 ? graph_ms[1] / limit : 0.0);
  printf("%d,%d,%.1f\n", own ? c->S.col_batch : 0, c->S.tuned.on, c->S.tuned.ms);
  fflush(stdout); /* each row as it is measured: a sweep cut short keeps its rows */
  /* what SIMCTL_CUDA_TUNE timed, on stderr: each variant's microseconds a call of its product
     alone (kept ones marked), all twelve from one row where the sweep has some alone */
  const sim_gather_tuning *t = &c->S.tuned;
  if (t->on) {
    fprintf(stderr, "simctl-bench-global: %s, %s: tuned in %.1f ms:", g_sc.name,
            vb == 4 ? "float" : "double", t->ms);
    for (int i = 0; i < t->n; i++) {
      const sim_gather_variant *v = &t->v[i];
      fprintf(stderr, " %s %s b%d %.2f us%s;", sim_gather_product_name(v),
              sim_gather_layout_name(v), v->batch, v->us,
              i == t->pick[v->product] ? " (kept)" : "");
    }
    fprintf(stderr, "\n");
  }
  be->destroy(be);
  return 0;
}

int main(int argc, char **argv) {
  const char *file = NULL, *sets[64], *specs[64];
  int nsets = 0, nspecs = 0, reps = 200;
  const char *usage =
      "usage: simctl-bench-global SCENE [--reps N] [--set PATH=VALUE]... [--variant SPEC]...";
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(
          "%s\n"
          "Times the CUDA global step alone (CUDA events over N back-to-back calls, default 200)\n"
          "against its bandwidth limit and prints a CSV header and a row per variant.\n"
          "  --reps N         calls timed a row\n"
          "  --set PATH=VALUE a scene override, as simctl run takes it (solver.global,\n"
          "                   solver.precision pick the solver)\n"
          "  --variant SPEC   a row of its own: space-separated SIMCTL_CUDA_*=VALUE items and\n"
          "                   solver.precision=float|double, the scene and S built once\n"
          "The CSV's fields: the comment at the top of gpu/bench_global.cu, and\n"
          "docs/gpu_report.md.\n",
          usage);
      return 0;
    }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < 64)
      sets[nsets++] = argv[++i];
    else if (!strcmp(argv[i], "--variant") && i + 1 < argc && nspecs < 64)
      specs[nspecs++] = argv[++i];
    else if (!file && argv[i][0] != '-')
      file = argv[i];
    else
      return fail(argv[i], usage);
  }
  if (!file || reps < 1) return fail("arguments", usage);
  static variant v[64]; /* all checked before the first row */
  for (int i = 0; i < nspecs; i++) {
    char why[300];
    if (parse_variant(specs[i], &v[i], why, sizeof why)) {
      char what[64];
      snprintf(what, sizeof what, "--variant %d", i + 1);
      return fail(what, why);
    }
  }
  sim_status st = {0};
  sim_model m;
  memset(&m, 0, sizeof m);
  if (sim_scene_load(file, sets, nsets, &g_sc, &st)) return fail(file, st.msg);
  char why[SIM_MSG_MAX]; /* the scene's solver.gpu (--set solver.gpu=N) */
  if (!sim_cuda_available(g_sc.solver.gpu, why, sizeof why)) return fail("device", why);
  if (sim_model_build(&g_sc, NULL, &m, &st)) return fail(file, st.msg);
  sim_backend_opts o = {g_sc.solver.global,
                        g_sc.solver.precision,
                        g_sc.solver.ordering,
                        0,
                        0.0,
                        0,
                        g_sc.solver.gpu,
                        NULL};
  /* the factor and S (each precision's) built by the first row that needs them and kept for
     the others: a row's host work is then its upload, not S's build (a second or more at the
     20k bar, twenty rows a scene in the global part's sweep) */
  static sim_S_cache cache;
  o.S_cache = &cache;
  /* the header once, before any row: a first variant that fails leaves the others theirs */
  printf(
      "scene,free_unknowns,solver,nnz,precision,products,global_ms,bytes_MB,copy_GBps,"
      "limit_ms,global_over_limit,device,row_chunk,chunk_blocks,split_rows,col_warps,"
      "col_auto,s_rows,s_cols,rows_ms,rows_over_limit,cols_ms,cols_over_limit,cold_ms,"
      "cold_over_limit,row_split,gather_batch,gather_blocks,graph_ms,graph_over_limit,"
      "graph_pdl_ms,graph_pdl_over_limit,col_batch,tuned,tune_ms\n");
  int rc = 0;
  if (nspecs == 0) rc = measure(m, o, reps, file);
  for (int i = 0; i < nspecs; i++) { /* a row that fails is named; the others still run */
    char *old[SIM_BENCH_ITEMS];
    env_apply(&v[i], old);
    sim_backend_opts ov = o;
    if (v[i].precision >= 0) ov.precision = (sim_precision)v[i].precision;
    rc |= measure(m, ov, reps, file);
    env_restore(&v[i], old);
  }
  sim_S_cache_free(&cache);
  sim_model_free(&m);
  return rc;
}

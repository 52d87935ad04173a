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
// usage: simctl-bench-global SCENE [--reps N] [--set PATH=VALUE]...
//   (solver.global, solver.precision and SIMCTL_CUDA_SPMV pick the variant, as for simctl run;
//   solver.global auto is the sparse inverse)
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

int main(int argc, char **argv) {
  const char *file = NULL, *sets[64];
  int nsets = 0, reps = 200;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < 64)
      sets[nsets++] = argv[++i];
    else if (!file && argv[i][0] != '-')
      file = argv[i];
    else
      return fail(argv[i], "usage: simctl-bench-global SCENE [--reps N] [--set PATH=VALUE]...");
  }
  if (!file || reps < 1)
    return fail("arguments", "usage: simctl-bench-global SCENE [--reps N] [--set PATH=VALUE]...");
  sim_status st = {0};
  sim_model m;
  memset(&m, 0, sizeof m);
  if (sim_scene_load(file, sets, nsets, &g_sc, &st)) return fail(file, st.msg);
  char why[SIM_MSG_MAX]; /* the scene's solver.gpu (--set solver.gpu=N) */
  if (!sim_cuda_available(g_sc.solver.gpu, why, sizeof why)) return fail("device", why);
  if (sim_model_build(&g_sc, NULL, &m, &st)) return fail(file, st.msg);
  sim_backend_opts o = {g_sc.solver.global, g_sc.solver.precision, g_sc.solver.ordering, 0, 0.0,
                        0, g_sc.solver.gpu};
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
  if (e != cudaSuccess) return fail("CUDA", cudaGetErrorString(e));
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
  printf(
      "scene,free_unknowns,solver,nnz,precision,products,global_ms,bytes_MB,copy_GBps,limit_ms,"
      "global_over_limit,device,row_chunk,chunk_blocks,split_rows,col_warps,col_auto,s_rows,"
      "s_cols,rows_ms,rows_over_limit,cols_ms,cols_over_limit,cold_ms,cold_over_limit\n");
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
  printf("%.4f,%.2f,%.4f,%.2f,%.4f,%.2f\n", part_ms[0], part_over[0], part_ms[1], part_over[1],
         cold_ms, limit > 0 ? cold_ms / limit : 0.0);
  be->destroy(be);
  sim_model_free(&m);
  return 0;
}

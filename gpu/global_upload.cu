// SPDX-License-Identifier: MIT
// The CUDA global step's set-up (its products: global_step.cu): how they run (pick_products:
// SIMCTL_CUDA_SPMV, SIMCTL_CUDA_S and the gathers' layouts), S = L^{-1} P built on the host from
// the CHOLMOD factor and uploaded with its layouts (the row gather's chunks, the column gather's
// warps, interval rows, column runs), cuSPARSE's descriptors, and all of it freed. With another
// global solver and contact, only S's columns come here, in double, for W (contact_S).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/world.h"
}

// The chunks of a row of len entries, at most `chunk` each (in 64 bits: SIMCTL_CUDA_ROW_CHUNK
// may be up to 2^30, and len + chunk - 1 would pass 2^31 in an int).
static int chunks_of(int len, int chunk) { return (int)(((long long)len + chunk - 1) / chunk); }

// The row gather's work: each row of more than S->chunk / 8 entries (a warp's share) as chunks
// of at most S->chunk entries, a block each, in row order; the other rows, a warp each. A row of
// several chunks gets its partials' slots and a counter. With SIMCTL_CUDA_ROW_SPLIT=off
// (S->row_split 0) each long row is one chunk, whole, whatever its length: with a chunk of
// 16,384 that is the layout of commit c8a8d13, 0.240 ms at the 20k bar on an H200 where the
// split chunks took 0.269 at best (2026-12-04), kept for the sweep to set beside them.
static int upload_rows(cuda_ctx *c, const sim_sparse_inverse *H, sim_status *st) {
  cuda_S *S = &c->S;
  const int n = H->n, per_warp = S->chunk / (SIM_CUDA_BLOCK / 32);
  int nchunk = 0, nshort = 0, nsplit = 0;
  for (int i = 0; i < n; i++) {
    const int len = H->row_ptr[i + 1] - H->row_ptr[i],
              k = S->row_split ? chunks_of(len, S->chunk) : 1;
    if (len <= per_warp) {
      nshort++;
    } else {
      nchunk += k;
      nsplit += k > 1;
    }
  }
  sim_row_chunk *ck = SIM_NEW(sim_row_chunk, (size_t)nchunk + 1);
  int *order = SIM_NEW(int, (size_t)nshort + 1);
  int rc = ck && order ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (row chunks)");
  int a = 0, w = 0, split = 0, slots = 0;
  for (int i = 0; !rc && i < n; i++) {
    int beg = H->row_ptr[i], len = H->row_ptr[i + 1] - beg,
        k = S->row_split ? chunks_of(len, S->chunk) : 1;
    if (len <= per_warp) {
      order[w++] = i;
      continue;
    }
    for (int j = 0; j < k; j++) {
      int b = j ? ck[a - 1].end : beg, e = beg + (int)((long long)len * (j + 1) / k); /* even */
      ck[a++] = sim_row_chunk{i, b, e, j, k, slots, k > 1 ? split : -1};
    }
    if (k > 1) slots += k, split++;
  }
  S->nchunk = nchunk, S->nshort = nshort, S->nsplit = nsplit;
  if (!rc) rc = sim_cuda_new<sim_row_chunk>(c, &S->chunks, (size_t)nchunk, ck, st);
  if (!rc) rc = sim_cuda_new<int>(c, &S->row_order, (size_t)nshort, order, st);
  if (!rc) rc = sim_cuda_new<double>(c, &S->part, 3 * (size_t)slots, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(c, &S->cnt, (size_t)nsplit, NULL, st); /* zeroed */
  sim_free(ck);
  sim_free(order);
  return rc;
}

// The column gather's warps with SIMCTL_CUDA_COL_WARPS=auto: column k of len entries takes
// the fewest warps w (1, 2, 4, 8) that leave a lane at most a row chunk's share, S->chunk / 256
// entries (16 by default, as the row gather's threads), w >= 8 len / chunk; listed by w from 8
// down (each group of w then starts at a multiple of w, so no column straddles a block's 8
// warps), in column order within each.
static int upload_col_work(cuda_ctx *c, const sim_sparse_inverse *H, sim_status *st) {
  cuda_S *S = &c->S;
  const int n = H->n;
  int total = 0, most = 1;
  if (n >= 1 << 26) /* k << 5 in an int */
    return sim_fail(st, SIM_ERR_USAGE,
                    "SIMCTL_CUDA_COL_WARPS=auto: %d unknowns, more than its table holds (2^26); "
                    "set 1, 2, 4 or 8",
                    n);
  unsigned char *lw = SIM_NEW(unsigned char, (size_t)n + 1); /* log2 of each column's warps */
  if (!lw) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (column warps)");
  for (int k = 0; k < n; k++) {
    long long need = (8LL * (H->col_ptr[k + 1] - H->col_ptr[k]) + S->chunk - 1) / S->chunk;
    int l = 0;
    while (l < 3 && (1LL << l) < need) l++;
    lw[k] = (unsigned char)l;
    total += 1 << l;
    if ((1 << l) > most) most = 1 << l;
  }
  int *work = SIM_NEW(int, (size_t)total + 1), at = 0;
  int rc = work ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (column warps)");
  for (int l = 3; !rc && l >= 0; l--)
    for (int k = 0; k < n; k++)
      if (lw[k] == l)
        for (int j = 0; j < 1 << l; j++) work[at++] = k << 5 | l << 3 | j;
  if (!rc) rc = sim_cuda_new<int>(c, &S->col_work, (size_t)total, work, st);
  S->ncol_work = total;
  S->col_most = most;
  sim_free(work);
  sim_free(lw);
  return rc;
}

// The vertex each column of S^T writes: free_vert[perm[k]].
static int upload_out_vert(cuda_ctx *c, const sim_sparse_inverse *H, sim_status *st) {
  int n = H->n, *ov = SIM_NEW(int, (size_t)n + 1);
  if (!ov) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (S output map)");
  for (int k = 0; k < n; k++) ov[k] = c->m->free_vert[H->perm[k]];
  int rc = sim_cuda_new<int>(c, &c->S.out_vert, (size_t)n, ov, st);
  sim_free(ov);
  return rc;
}

// SIMCTL_CUDA_S_COLS=runs: column k's path from k to the root as runs of consecutive rows
// (sim_path_runs_build: checked against S's stored rows, entry by entry, so a column the runs do
// not give exactly is refused rather than gathered wrong).
// With SIMCTL_CUDA_TUNE and the columns' layout not set (tried, not asked for), runs that do
// not give a column exactly leave the runs out of the tuning instead (S->runs stays NULL).
static int upload_col_runs(cuda_ctx *c, const sim_sparse_inverse *H, int tried, sim_status *st) {
  cuda_S *S = &c->S;
  sim_path_runs R;
  int rc = sim_path_runs_build(H, &R, st);
  if (rc == SIM_ERR_INTERNAL && tried) {
    st->code = SIM_OK;
    st->msg[0] = '\0';
    return SIM_OK;
  }
  if (rc == SIM_ERR_INTERNAL) {
    char why[SIM_MSG_MAX];
    snprintf(why, sizeof why, "%s", st->msg);
    return sim_fail(st, rc, "SIMCTL_CUDA_S_COLS=runs: %s; expected SIMCTL_CUDA_S_COLS=indexed",
                    why);
  }
  if (!rc) S->runs_most = R.most;
  if (!rc && !tried && S->col_batch > 1 && R.most > SIM_CUDA_RUNS_SHARED)
    rc = sim_fail(st, SIM_ERR_USAGE,
                  "SIMCTL_CUDA_S_COLS=runs with SIMCTL_CUDA_GATHER_BATCH=%d: a column of S has %d "
                  "runs, more than the %d the batched gather keeps in shared memory; expected "
                  "SIMCTL_CUDA_S_COLS=indexed or SIMCTL_CUDA_GATHER_BATCH=1",
                  S->col_batch, R.most, SIM_CUDA_RUNS_SHARED);
  if (!rc) rc = sim_cuda_new<int>(c, &S->col_top, (size_t)R.n, R.top, st);
  if (!rc) rc = sim_cuda_new<int>(c, &S->run_ptr, (size_t)R.n + 1, R.ptr, st);
  if (!rc) rc = sim_cuda_new<int>(c, &S->runs, 2 * (size_t)R.nruns, R.runs, st);
  S->nruns = R.nruns;
  sim_path_runs_free(&R);
  return rc;
}

// S on the device: both orientations for the global step, its rows alone (S->rows_only), or
// (cols_only) its columns alone, all that the device's Delassus build reads (the other global
// solvers' contact stage).
static int upload_S(cuda_ctx *c, const sim_sparse_inverse *H, int cols_only, sim_status *st) {
  cuda_S *S = &c->S;
  size_t n = (size_t)H->n, nnz = (size_t)H->nnz;
  S->n = H->n;
  S->nnz = H->nnz;
  S->prec = H->precision;
  S->height = H->etree_height;
  int fl = S->prec == SIM_PREC_FLOAT, rc = SIM_OK;
  if (S->rows_only) { /* S^T y by a scatter into x */
    rc = sim_cuda_new<double>(c, &S->x, 3 * n, NULL, st);
  } else { /* the columns: S^T y by a gather, and W's paths */
    rc = sim_cuda_new<int>(c, &S->col_ptr, n + 1, H->col_ptr, st);
    if (!rc) rc = sim_cuda_new<int>(c, &S->col_row, nnz, H->col_row, st);
    if (!rc)
      rc = fl ? sim_cuda_new<float>(c, &S->col_valf, nnz, H->col_valf, st)
              : sim_cuda_new<double>(c, &S->col_val, nnz, H->col_val, st);
    if (rc || cols_only) return rc;
  }
  /* with SIMCTL_CUDA_TUNE each layout that is not set is tried: both uploaded, the one not
     kept freed after the tuning (global_tune.cu) */
  const int try_cols = S->tune && !(S->tune_fixed & SIM_TUNE_FIX_COLS),
            try_rows = S->tune && !(S->tune_fixed & SIM_TUNE_FIX_ROWS);
  if (!rc && (S->col_runs || try_cols)) rc = upload_col_runs(c, H, try_cols, st);
  if (!rc && S->row_interval && !H->row_interval)
    rc = sim_fail(st, SIM_ERR_INTERNAL,
                  "SIMCTL_CUDA_S_ROWS=interval: S's rows are not intervals of the elimination "
                  "tree's postorder in this factor; expected SIMCTL_CUDA_S_ROWS=indexed");
  if (!rc) rc = sim_cuda_new<int>(c, &S->row_ptr, n + 1, H->row_ptr, st);
  if (!rc && !S->row_interval) rc = sim_cuda_new<int>(c, &S->row_col, nnz, H->row_col, st);
  if (!rc && (S->row_interval || (try_rows && H->row_interval))) {
    /* P, P b and P rhs instead of the column indices */
    int *ip = SIM_NEW(int, n + 1);
    if (!ip) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (S's inverse permutation)");
    for (size_t k = 0; k < n; k++) ip[H->perm[k]] = (int)k;
    rc = sim_cuda_new<int>(c, &S->perm, n, H->perm, st);
    if (!rc) rc = sim_cuda_new<int>(c, &S->iperm, n, ip, st);
    if (!rc) rc = sim_cuda_new<double>(c, &S->bp, 3 * n, NULL, st);
    if (!rc) rc = sim_cuda_new<double>(c, &S->bp_rhs, 3 * n, NULL, st); /* rhs is zeroed too */
    sim_free(ip);
  }
  if (!rc)
    rc = fl ? sim_cuda_new<float>(c, &S->row_valf, nnz, H->row_valf, st)
            : sim_cuda_new<double>(c, &S->row_val, nnz, H->row_val, st);
  if (!rc) rc = upload_rows(c, H, st);
  if (!rc) rc = upload_out_vert(c, H, st);
  if (!rc && !S->rows_only && S->col_warps == 0) rc = upload_col_work(c, H, st);
  return rc;
}

// The cuSPARSE descriptors and work buffer (double only).
static int cusparse_create(cuda_ctx *c, sim_status *st) {
  cuda_S *S = &c->S;
  int n = S->n;
  int rc = sim_cuda_new<double>(c, &S->z, 3 * (size_t)n, NULL, st);
  if (rc) return rc;
  SIM_CUSP(cusparseCreate(&S->sp), st);
  SIM_CUSP(cusparseSetStream(S->sp, c->stream), st);
  SIM_CUSP(cusparseCreateCsr(&S->mat_rows, n, n, S->nnz, S->row_ptr, S->row_col, S->row_val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_64F),
           st);
  SIM_CUSP(cusparseCreateCsr(&S->mat_cols, n, n, S->nnz, S->col_ptr, S->col_row, S->col_val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             CUDA_R_64F),
           st);
  SIM_CUSP(cusparseCreateDnMat(&S->dn_b, n, 3, 3, c->rhs, CUDA_R_64F, CUSPARSE_ORDER_ROW), st);
  SIM_CUSP(cusparseCreateDnMat(&S->dn_y, n, 3, 3, c->y, CUDA_R_64F, CUSPARSE_ORDER_ROW), st);
  SIM_CUSP(cusparseCreateDnMat(&S->dn_z, n, 3, 3, S->z, CUDA_R_64F, CUSPARSE_ORDER_ROW), st);
  const double one = 1.0, zero = 0.0;
  size_t b1 = 0, b2 = 0;
  SIM_CUSP(cusparseSpMM_bufferSize(S->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &one, S->mat_rows, S->dn_b,
                                   &zero, S->dn_y, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &b1),
           st);
  SIM_CUSP(cusparseSpMM_bufferSize(S->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &one, S->mat_cols, S->dn_y,
                                   &zero, S->dn_z, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &b2),
           st);
  return sim_cuda_alloc(c, &S->sp_buf, b1 > b2 ? b1 : b2, NULL, st);
}

// cuSPARSE's CSR wants each row's columns ascending; S's rows hold them in the order of the
// columns of L^{-1} (sparse_inverse.c), so sort each row's (column, value) pairs (double: the
// cuSPARSE path is double only). The hand-written gathers take any order.
typedef struct col_val {
  int col;
  double val;
} col_val;

static int by_col(const void *a, const void *b) {
  int x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
  return (x > y) - (x < y);
}

static int sort_rows(sim_sparse_inverse *H, sim_status *st) {
  long long most = 0;
  for (int i = 0; i < H->n; i++)
    if (H->row_ptr[i + 1] - H->row_ptr[i] > most) most = H->row_ptr[i + 1] - H->row_ptr[i];
  col_val *t = SIM_NEW(col_val, (size_t)most + 1);
  if (!t) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (sorting S's rows)");
  for (int i = 0; i < H->n; i++) {
    long long a = H->row_ptr[i], len = H->row_ptr[i + 1] - a;
    for (long long k = 0; k < len; k++) t[k].col = H->row_col[a + k], t[k].val = H->row_val[a + k];
    qsort(t, (size_t)len, sizeof *t, by_col);
    for (long long k = 0; k < len; k++) H->row_col[a + k] = t[k].col, H->row_val[a + k] = t[k].val;
  }
  sim_free(t);
  return SIM_OK;
}

// SIMCTL_CUDA_COL_WARPS: 1 (the default), 2, 4 or 8 warps a column, or auto (0, upload_col_work:
// each column its own). One warp a column was the fastest of the four on each of the five S of
// the H200's sweep of 2026-12-04 (docs/gpu_runs/2026-12-04-h200/global_step.md, the row chunk
// 4,096: 0.569 ms summed over them, auto 0.605, 2 warps 0.584, 4 warps 0.615).
static int col_warps(cuda_S *S, sim_status *st) {
  const char *e = getenv("SIMCTL_CUDA_COL_WARPS");
  S->col_warps = S->col_most = 1;
  if (!e || !*e) return SIM_OK;
  if (!strcmp(e, "auto")) {
    S->col_warps = 0;
    return SIM_OK;
  }
  if (!strcmp(e, "1") || !strcmp(e, "2") || !strcmp(e, "4") || !strcmp(e, "8")) {
    S->col_warps = S->col_most = atoi(e);
    return SIM_OK;
  }
  return sim_fail(st, SIM_ERR_USAGE, "SIMCTL_CUDA_COL_WARPS=%s: expected auto, 1, 2, 4 or 8", e);
}

// SIMCTL_CUDA_GATHER_BATCH: 1 (the default), 4 or 8 entries' loads issued together in each
// thread's share of the two gathers (gather3), in kernels bounded for it (k_rows_batch). Not yet
// timed on a GPU: the global part's sweep sets 4 and 8 beside 1.
static int gather_batch(cuda_S *S, sim_status *st) {
  const char *e = getenv("SIMCTL_CUDA_GATHER_BATCH");
  S->row_batch = S->col_batch = 1;
  if (!e || !*e || !strcmp(e, "1")) return SIM_OK;
  if (!strcmp(e, "4") || !strcmp(e, "8")) {
    S->row_batch = S->col_batch = atoi(e);
    return SIM_OK;
  }
  return sim_fail(st, SIM_ERR_USAGE, "SIMCTL_CUDA_GATHER_BATCH=%s: expected 1, 4 or 8", e);
}

// How the products run: SIMCTL_CUDA_SPMV (kernel, the default, or cusparse) and SIMCTL_CUDA_S
// (both orientations, the default, or rows: S's rows alone, S^T y by a scatter), checked
// against each other and against the device's W, which reads S's columns; and the row gather's
// chunk (SIMCTL_CUDA_ROW_CHUNK: entries per block, a warp taking rows of an eighth as many;
// SIMCTL_CUDA_ROW_SPLIT=off: long rows whole) and the column gather's warps per column
// (SIMCTL_CUDA_COL_WARPS).
static int pick_products(cuda_ctx *c, sim_precision prec, sim_status *st) {
  int cusparse = 0, rows = 0;
  c->S.spmv = SIM_SPMV_KERNEL;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_SPMV", "kernel", "cusparse", 0, &cusparse, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_S", "both", "rows", 0, &rows, st);
  if (!rc)
    rc = sim_cuda_env_int("SIMCTL_CUDA_ROW_CHUNK", SIM_CUDA_BLOCK / 32, 1 << 30,
                          SIM_CUDA_BLOCK * SIM_CUDA_LANE_ENTRIES, &c->S.chunk, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_ROW_SPLIT", "off", "on", 1, &c->S.row_split, st);
  if (!rc) rc = gather_batch(&c->S, st);
  if (!rc) rc = col_warps(&c->S, st);
  if (!rc)
    rc =
        sim_cuda_env_choice("SIMCTL_CUDA_S_ROWS", "indexed", "interval", 0, &c->S.row_interval, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_S_COLS", "indexed", "runs", 0, &c->S.col_runs, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_TUNE", "off", "on", 0, &c->S.tune, st);
  if (rc) return rc;
  if ((cusparse || rows) && c->S.tune)
    return sim_fail(st, SIM_ERR_USAGE,
                    "SIMCTL_CUDA_TUNE=on times simctl's own gathers of S in both orientations: it "
                    "needs SIMCTL_CUDA_SPMV=kernel and SIMCTL_CUDA_S=both, not %s",
                    cusparse ? "SIMCTL_CUDA_SPMV=cusparse" : "SIMCTL_CUDA_S=rows");
  c->S.tune_fixed = (sim_cuda_env_set("SIMCTL_CUDA_S_ROWS") ? SIM_TUNE_FIX_ROWS : 0) |
                    (sim_cuda_env_set("SIMCTL_CUDA_S_COLS") ? SIM_TUNE_FIX_COLS : 0) |
                    (sim_cuda_env_set("SIMCTL_CUDA_GATHER_BATCH") ? SIM_TUNE_FIX_BATCH : 0);
  if ((cusparse || rows) && (c->S.row_interval || c->S.col_runs))
    return sim_fail(st, SIM_ERR_USAGE,
                    "%s is for simctl's own gathers of S in both orientations: it needs "
                    "SIMCTL_CUDA_SPMV=kernel and SIMCTL_CUDA_S=both, not %s",
                    c->S.row_interval ? "SIMCTL_CUDA_S_ROWS=interval" : "SIMCTL_CUDA_S_COLS=runs",
                    cusparse ? "SIMCTL_CUDA_SPMV=cusparse" : "SIMCTL_CUDA_S=rows");
  if (cusparse && c->S.row_batch > 1)
    return sim_fail(st, SIM_ERR_USAGE,
                    "SIMCTL_CUDA_GATHER_BATCH=%d is for simctl's own gathers: it needs "
                    "SIMCTL_CUDA_SPMV=kernel, not cusparse",
                    c->S.row_batch);
  if (cusparse && prec == SIM_PREC_FLOAT)
    return sim_fail(st, SIM_ERR_USAGE,
                    "SIMCTL_CUDA_SPMV=cusparse: cuSPARSE SpMM needs S in "
                    "double (solver.precision double)");
  if (cusparse && rows)
    return sim_fail(st, SIM_ERR_USAGE,
                    "SIMCTL_CUDA_S=rows scatters S^T y with simctl's own kernel: it needs "
                    "SIMCTL_CUDA_SPMV=kernel, not cusparse");
  int on_host = 0;
  if (rows && sim_world_needed(c->m)) rc = sim_cuda_delassus_on_host(&on_host, st);
  if (rc) return rc;
  if (rows && sim_world_needed(c->m) && !on_host)
    return sim_fail(st, SIM_ERR_USAGE,
                    "%s: SIMCTL_CUDA_S=rows keeps no columns of S, which the device's Delassus "
                    "operator reads: with contact, constraint pins or cables also set "
                    "SIMCTL_CUDA_DELASSUS=host (or SIMCTL_CUDA_S=both)",
                    c->m->scene->file);
  c->S.spmv = cusparse ? SIM_SPMV_CUSPARSE : SIM_SPMV_KERNEL;
  c->S.rows_only = rows;
  return SIM_OK;
}

// Refuse (before building S) when `copies` copies of S (`what`) would not fit in the device's
// free memory.
static int check_device_memory(sim_factor *fac, int n, sim_precision prec, int copies,
                               const char *what, sim_status *st) {
  size_t free_b = 0, total_b = 0;
  SIM_CU(cudaMemGetInfo(&free_b, &total_b), st);
  long long nnz = sim_sparse_inverse_count(fac);
  size_t need = (size_t)copies * sim_sparse_inverse_bytes(nnz, n, prec);
  if (need > free_b)
    return sim_fail(st, SIM_ERR_MEMORY,
                    "S (%lld nonzeros, %s) needs %.1f MiB on the GPU, "
                    "%.1f MiB are free%s",
                    nnz, what, need / 1048576.0, free_b / 1048576.0,
                    prec == SIM_PREC_FLOAT ? "" : " (solver.precision float halves the values)");
  return SIM_OK;
}

// The contact stage's share of S and its factor (taken over, freed here or kept): with W built on
// the device (the default) only S's permutation P stays on the host; with
// SIMCTL_CUDA_DELASSUS=host, S and its factor too (W on the host: stage.h).
static int keep_for_contact(cuda_ctx *c, sim_sparse_inverse *H, sim_factor *fac, int on_host,
                            sim_status *st) {
  int rc = SIM_OK;
  c->host_perm = SIM_NEW(int, (size_t)H->n + 1);
  if (c->host_perm)
    memcpy(c->host_perm, H->perm, sizeof(int) * (size_t)H->n);
  else
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (S permutation)");
  if (!rc && on_host) {
    c->host_S = *H;
    c->host_fac = fac;
    c->stats.S_contact_bytes = sim_sparse_inverse_bytes(H->nnz, H->n, H->precision);
    return SIM_OK;
  }
  sim_sparse_inverse_free(H);
  sim_factor_destroy(fac);
  return rc;
}

// The other global solvers with contact: an S in double, from a simplicial factor of A_s in the
// scene's ordering (fac: Cholesky's, taken over; NULL: one made here), for W alone (the CPU
// backend's contact_S): its columns on the device, or with SIMCTL_CUDA_DELASSUS=host S and the
// factor on the host. The solves stay the global solver's.
static int contact_S(cuda_ctx *c, const sim_backend_opts *o, sim_factor *fac, sim_status *st) {
  const sim_model *m = c->m;
  int on_host = 0;
  sim_sparse_inverse H;
  memset(&H, 0, sizeof H);
  int rc = sim_cuda_delassus_on_host(&on_host, st);
  if (!rc && !fac)
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, o->ordering, 1, &fac, st);
  if (!rc && !on_host)
    rc = check_device_memory(fac, m->nfree, SIM_PREC_DOUBLE, 1, "its columns for W", st);
  if (!rc) rc = sim_sparse_inverse_build(fac, SIM_PREC_DOUBLE, o->max_S_bytes, &H, st);
  if (!rc && !on_host) {
    rc = upload_S(c, &H, 1, st);
    c->stats.S_contact_bytes = sim_sparse_inverse_bytes(H.nnz, H.n, SIM_PREC_DOUBLE);
  }
  if (rc) {
    sim_sparse_inverse_free(&H);
    sim_factor_destroy(fac);
    return rc;
  }
  return keep_for_contact(c, &H, fac, on_host, st);
}

int sim_cuda_global_create(sim_backend *be, const sim_backend_opts *o, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  if (be->global != SIM_GLOBAL_SPARSE_INVERSE) {
    sim_factor *fac = NULL; /* Cholesky's simplicial factor, for the contact stage's S */
    int contact = sim_world_needed(m);
    int rc = sim_cuda_solvers_create(be, o, contact ? &fac : NULL, st);
    if (!rc && contact) return contact_S(c, o, fac, st);
    sim_factor_destroy(fac);
    return rc;
  }
  sim_factor *fac = NULL;
  sim_sparse_inverse H;
  memset(&H, 0, sizeof H);
  int rc = pick_products(c, o->precision, st);
  /* the caller's factor and S where it keeps them (simctl-bench-global's rows): read here, not
     changed (cuSPARSE's products sort S's rows) nor taken over (the contact stage keeps them) */
  sim_S_cache *cache =
      o->S_cache && !sim_world_needed(m) && c->S.spmv == SIM_SPMV_KERNEL && o->max_S_bytes == 0
          ? o->S_cache
          : NULL;
  const int p = o->precision == SIM_PREC_FLOAT;
  if (!rc && cache && cache->fac)
    fac = cache->fac;
  else if (!rc)
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, o->ordering, 1, &fac, st);
  if (!rc && cache) cache->fac = fac;
  int copies = c->S.rows_only ? 1 : 2;
  if (!rc) {
    sim_factor_get_info(fac, &c->stats.factor);
    rc = check_device_memory(fac, m->nfree, o->precision, copies,
                             copies == 2 ? "two copies" : "its rows alone", st);
  }
  if (!rc && cache && cache->have[p])
    H = cache->S[p];
  else if (!rc)
    rc = sim_sparse_inverse_build(fac, o->precision, o->max_S_bytes, &H, st);
  if (!rc && cache) cache->S[p] = H, cache->have[p] = 1;
  if (!rc && c->S.spmv == SIM_SPMV_CUSPARSE) rc = sort_rows(&H, st);
  if (!rc) rc = upload_S(c, &H, 0, st);
  if (!rc && c->S.tune) rc = sim_cuda_global_tune(c, st);
  if (!rc) {
    c->stats.S_nnz = H.nnz;
    c->stats.S_bytes = sim_sparse_inverse_bytes(H.nnz, H.n, o->precision);
    c->stats.S_resident = copies * c->stats.S_bytes + sizeof(int) * 2 * (size_t)H.n +
                          (c->S.rows_only ? 3 * sizeof(double) * (size_t)H.n : 0);
    if (c->S.row_interval) /* P, its inverse, P b and P rhs instead of the rows' indices */
      c->stats.S_resident +=
          (2 * sizeof(int) + 6 * sizeof(double)) * (size_t)H.n - sizeof(int) * (size_t)H.nnz;
    if (c->S.col_runs)
      c->stats.S_resident += sizeof(int) * (2 * (size_t)H.n + 1 + 2 * (size_t)c->S.nruns);
    c->stats.S_build_ms = H.build_ms;
    c->stats.etree_height = H.etree_height;
    c->stats.S_chunks = c->S.nchunk;
    c->stats.S_split_rows = c->S.nsplit;
    c->stats.S_col_warps = c->S.rows_only ? 0 : c->S.col_most;
    c->stats.S_col_auto = !c->S.rows_only && c->S.col_warps == 0;
    c->stats.S_gathers = c->S.spmv == SIM_SPMV_KERNEL && !c->S.rows_only;
    c->stats.S_row_interval = c->S.row_interval;
    c->stats.S_col_runs = c->S.col_runs;
    c->stats.S_row_batch = c->S.row_batch;
    c->stats.S_col_batch = c->S.col_batch;
    c->stats.S_tuning = c->S.tuned;
  }
  int on_host = 0;
  if (!rc && sim_world_needed(m)) rc = sim_cuda_delassus_on_host(&on_host, st);
  if (!rc && sim_world_needed(m)) { /* keep_for_contact takes H and fac over */
    rc = keep_for_contact(c, &H, fac, on_host, st);
  } else if (!cache) {
    sim_sparse_inverse_free(&H);
    sim_factor_destroy(fac);
  }
  if (!rc && c->S.spmv == SIM_SPMV_CUSPARSE) rc = cusparse_create(c, st);
  if (!rc) rc = sim_cuda_solvers_create(be, o, NULL, st); /* Chebyshev's iterates, where on */
  return rc;
}

void sim_cuda_global_destroy(cuda_ctx *c) {
  sim_cuda_solvers_destroy(c);
  cuda_S *S = &c->S;
  if (S->mat_rows) cusparseDestroySpMat(S->mat_rows);
  if (S->mat_cols) cusparseDestroySpMat(S->mat_cols);
  if (S->dn_b) cusparseDestroyDnMat(S->dn_b);
  if (S->dn_y) cusparseDestroyDnMat(S->dn_y);
  if (S->dn_z) cusparseDestroyDnMat(S->dn_z);
  if (S->sp) cusparseDestroy(S->sp);
  void *p[] = {S->row_ptr,  S->row_col,  S->col_ptr,  S->col_row,   S->row_val,  S->col_val,
               S->row_valf, S->col_valf, S->out_vert, S->row_order, S->chunks,   S->part,
               S->cnt,      S->sp_buf,   S->z,        S->x,         S->col_work, S->perm,
               S->iperm,    S->bp,       S->bp_rhs,   S->col_top,   S->run_ptr,  S->runs};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) cudaFree(p[i]);
  memset(S, 0, sizeof *S);
  sim_sparse_inverse_free(&c->host_S);
  sim_free(c->host_perm);
  c->host_perm = NULL;
  sim_factor_destroy(c->host_fac);
  c->host_fac = NULL;
}

// SPDX-License-Identifier: MIT
// CUDA global step (Sec. 4 of the paper; DESIGN.md Secs. 5 and 10): q_free = S^T (S rhs) for the
// three coordinate columns, S = L^{-1} P built on the host from the CHOLMOD factor and resident
// on the device in both orientations, so both products are row gathers that read each entry of
// S once for x, y and z:
//   y = S b     CSR of S; rows of S have very different lengths (row i holds the descendants
//               of i in the elimination tree), so rows of more than 512 entries get a thread
//               block for each chunk of up to 4,096, and the others a warp each (each thread
//               reading at most 16 entries: SIM_CUDA_LANE_ENTRIES, SIMCTL_CUDA_ROW_CHUNK);
//   q = S^T y   CSC of L^{-1}: column k is the path from k to the root, up to the tree's height
//               long; each column a warp (SIMCTL_CUDA_COL_WARPS: 2, 4 or 8 for every column, or
//               auto, the fewest that leave a thread at most 16 entries, as the rows), its first
//               writing its vertex's position directly (free_vert[perm[k]]).
// SIMCTL_CUDA_SPMV=cusparse runs both products with cuSPARSE SpMM instead (double only), for the
// comparison `scripts/bench_gpu.sh` prints. Values in double, or float when solver.precision is
// float (the vectors stay double; each product accumulates in double, as on the CPU). S's
// upload, its layouts and the choice of products: global_upload.cu.
#include "cuda_ctx.h"
#include "last_block.cuh"

// The blocks of SIM_CUDA_BLOCK threads a multiprocessor that the batched gathers' register
// bound leaves room for (k_rows_batch, k_cols_batch): 4, 64 registers a thread.
#define SIM_CUDA_GATHER_BLOCKS 4

static __device__ inline void warp_sum3(double a[3]) {
  for (int off = 16; off > 0; off /= 2)
    for (int k = 0; k < 3; k++) a[k] += __shfl_down_sync(0xffffffffu, a[k], off);
}

// Sum of a[3] over the block into thread 0's a (blockDim.x a multiple of 32, at most 1024).
static __device__ inline void block_sum3(double a[3]) {
  __shared__ double part[32][3];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  warp_sum3(a);
  if (lane == 0)
    for (int k = 0; k < 3; k++) part[warp][k] = a[k];
  __syncthreads();
  if (warp == 0) {
    for (int k = 0; k < 3; k++) a[k] = lane < nw ? part[lane][k] : 0.0;
    warp_sum3(a);
  }
}

// A block's chunk of a long row: entries [beg, end) (block stride), or the warp's short row
// order[w] (lane stride); -1: this warp has none. Rows are split so that each thread reads at
// most SIM_CUDA_LANE_ENTRIES entries with the default chunk (upload_rows).
static __device__ inline int row_part(int nchunk, int nshort, const sim_row_chunk *chunks,
                                      const int *order, const int *ptr, int *beg, int *end,
                                      int *lane, int *stride) {
  if ((int)blockIdx.x < nchunk) {
    const sim_row_chunk *ck = &chunks[blockIdx.x];
    *beg = ck->beg, *end = ck->end;
    *lane = threadIdx.x;
    *stride = blockDim.x;
    return ck->row;
  }
  int w = (blockIdx.x - nchunk) * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (w >= nshort) return -1;
  int i = order[w];
  *beg = ptr[i], *end = ptr[i + 1];
  *lane = threadIdx.x & 31;
  *stride = 32;
  return i;
}

// y_i = a (thread 0's, the block's sum of its chunk) where the row is one chunk; else the
// chunk's partial sum to part, and the row's block that counts last adds its chunks' partial
// sums in their order into y_i (the same bits whichever block that is).
static __device__ void row_total(const sim_row_chunk *ck, const double a[3], double *part, int *cnt,
                                 double *y) {
  if (ck->n == 1) {
    if (threadIdx.x == 0)
      for (int k = 0; k < 3; k++) y[3 * (size_t)ck->row + k] = a[k];
    return;
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++) part[3 * (size_t)(ck->first + ck->k) + k] = a[k];
  if (!last_to_count(&cnt[ck->split], ck->n) || threadIdx.x != 0) return;
  const volatile double *vp = part + 3 * (size_t)ck->first;
  double t[3] = {vp[0], vp[1], vp[2]};
  for (int c = 1; c < ck->n; c++)
    for (int k = 0; k < 3; k++) t[k] += vp[3 * c + k];
  for (int k = 0; k < 3; k++) y[3 * (size_t)ck->row + k] = t[k];
}

// a += sum over p = from, from + stride, ... < end of val[p] v[idx[p]] (v's three columns): a
// thread's share of a row of S (or of a column, idx its rows); with IV (interval rows) the
// entry's index is p + off instead, no load. With NB > 1 the loads of NB entries at a time are
// issued before their sums (NB indices, NB values, then the 3 NB entries of v they name), so
// that NB chains of dependent loads, or NB entries' independent loads, are in flight where one
// was (SIMCTL_CUDA_GATHER_BATCH); the adds keep p's order, so every NB, and IV, give the same
// bits.
template <int NB, bool IV, class VT>
static __device__ inline void gather3(long long from, long long end, int stride,
                                      const int *__restrict__ idx, long long off,
                                      const VT *__restrict__ val, const double *__restrict__ v,
                                      double a[3]) {
  long long p = from;
  if (NB > 1)
    for (; p + (long long)(NB - 1) * stride < end; p += (long long)NB * stride) {
      long long j[NB];
      double s[NB], x[NB][3];
      for (int u = 0; u < NB; u++)
        j[u] = IV ? p + (long long)u * stride + off : (long long)idx[p + (long long)u * stride];
      for (int u = 0; u < NB; u++) s[u] = (double)val[p + (long long)u * stride];
      for (int u = 0; u < NB; u++)
        for (int d = 0; d < 3; d++) x[u][d] = v[3 * (size_t)j[u] + d];
      for (int u = 0; u < NB; u++)
        for (int d = 0; d < 3; d++) a[d] += s[u] * x[u][d];
    }
  for (; p < end; p += stride) {
    const double *vj = v + 3 * (size_t)(IV ? p + off : (long long)idx[p]);
    double s = (double)val[p];
    a[0] += s * vj[0];
    a[1] += s * vj[1];
    a[2] += s * vj[2];
  }
}

// bp[k] = b[perm[k]] (three columns): P b for the interval rows.
static __global__ void k_permute3(int n, const int *perm, const double *b, double *bp) {
  SIM_PDL_WAIT();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 3 * n) return;
  int k = t / 3, d = t - 3 * k;
  bp[t] = b[3 * (size_t)perm[k] + d];
}

// A thread's share of column k of L^{-1} held as runs (SIMCTL_CUDA_S_COLS=runs): entries t =
// t0, t0 + stride, ... < end - beg of the column (t0 = 32 sub + lane, stride 32 w, as in the
// indexed gather), entry t at val[beg + t] and row lo + (t - start) of the run [start, start +
// len) that holds it. Each lane steps to the next run where its t passes the run's end (run 0 is
// the column's own [k, top], then its top's list: a few, loads the whole warp shares), so it adds
// its entries in t's order, the same bits as the indexed gather, with no load of a row index
// before the load of y it names but at a run's start. (The batches: runs_shared_gather3.)
template <class VT>
static __device__ inline void runs_gather3(int k, long long beg, long long end, int t0, int stride,
                                           const int *__restrict__ top,
                                           const int *__restrict__ run_ptr,
                                           const int *__restrict__ runs, const VT *__restrict__ val,
                                           const double *__restrict__ y, double a[3]) {
  const int h = top[k];
  const int *run = runs + 2 * (size_t)run_ptr[h]; /* the runs after the column's own */
  long long start = 0;
  int lo = k, len = h - k + 1;
  for (long long t = t0; t < end - beg; t += stride) {
    while (t >= start + len) {
      start += len;
      lo = run[0], len = run[1];
      run += 2;
    }
    const double *vj = y + 3 * (size_t)(lo + (t - start));
    double s = (double)val[beg + t];
    a[0] += s * vj[0];
    a[1] += s * vj[1];
    a[2] += s * vj[2];
  }
}

// The batches of the runs' gather (SIMCTL_CUDA_GATHER_BATCH with SIMCTL_CUDA_S_COLS=runs),
// with the column's runs in shared memory (first rows lo_sh, lengths len_sh: the warp's copy,
// at most SIM_CUDA_RUNS_SHARED, which upload_col_runs makes sure of): a lane finds each of a
// batch's NB entries' run there, stepping on from the run it was in, before any of their loads
// of y. A batch of NB entries spans NB * stride of the column (256 with a warp and 8), more
// than the mean run (some 100 entries on twisting_bar), so the batch of NB entries within one
// run (until 2026-12-05) was taken for 44 % of twisting_bar's entries with 8, 68 % of the 20k
// bar's and none of cloth_extension_10k's, the others one load at a time; here every full batch
// is one. The same adds in the same order: the same bits.
// The row of entry t of a column whose runs are lo_sh, len_sh, stepping the lane's run (j, its
// first row lo, length len, first entry start) on to the one that holds t (t never decreases).
static __device__ inline int run_row(long long t, const int *lo_sh, const int *len_sh,
                                     long long &start, int &j, int &lo, int &len) {
  while (t >= start + len) {
    start += len;
    j++;
    lo = lo_sh[j], len = len_sh[j];
  }
  return lo + (int)(t - start);
}

template <int NB, class VT>
static __device__ inline void runs_shared_gather3(long long beg, long long end, int t0, int stride,
                                                  const int *lo_sh, const int *len_sh,
                                                  const VT *__restrict__ val,
                                                  const double *__restrict__ y, double a[3]) {
  const long long n = end - beg;
  long long start = 0, t = t0;
  int j = 0, lo = lo_sh[0], len = len_sh[0];
  for (; t + (long long)(NB - 1) * stride < n; t += (long long)NB * stride) {
    double s[NB], x[NB][3];
    int row[NB];
    for (int u = 0; u < NB; u++) s[u] = (double)val[beg + t + (long long)u * stride];
    for (int u = 0; u < NB; u++)
      row[u] = run_row(t + (long long)u * stride, lo_sh, len_sh, start, j, lo, len);
    for (int u = 0; u < NB; u++)
      for (int d = 0; d < 3; d++) x[u][d] = y[3 * (size_t)row[u] + d];
    for (int u = 0; u < NB; u++)
      for (int d = 0; d < 3; d++) a[d] += s[u] * x[u][d];
  }
  for (; t < n; t += stride) {
    const double *vj = y + 3 * (size_t)run_row(t, lo_sh, len_sh, start, j, lo, len);
    const double v = (double)val[beg + t];
    a[0] += v * vj[0];
    a[1] += v * vj[1];
    a[2] += v * vj[2];
  }
}

// y = S b: a block per chunk of a long row, a warp per short row (row_part).
// With IV (interval rows) b is P b, and entry p of row i reads its row p + i + 1 - ptr[i + 1].
#define SIM_ROWS_PARAMS                                                                  \
  int nchunk, int nshort, const sim_row_chunk *chunks, const int *order, const int *ptr, \
      const int *col, const VT *val, const double *b, double *y, double *part, int *cnt
#define SIM_ROWS_ARGS nchunk, nshort, chunks, order, ptr, col, val, b, y, part, cnt
template <int NB, bool IV, class VT>
static __device__ __forceinline__ void rows_body(SIM_ROWS_PARAMS) {
  double a[3] = {0.0, 0.0, 0.0};
  int beg, end, lane, stride;
  int i = row_part(nchunk, nshort, chunks, order, ptr, &beg, &end, &lane, &stride);
  if (i < 0) return;
  const long long off = IV ? (long long)i + 1 - ptr[i + 1] : 0;
  gather3<NB, IV>(beg + lane, end, stride, col, off, val, b, a);
  if ((int)blockIdx.x < nchunk) {
    block_sum3(a);
    row_total(&chunks[blockIdx.x], a, part, cnt, y);
    return;
  }
  warp_sum3(a);
  if (lane == 0)
    for (int k = 0; k < 3; k++) y[3 * (size_t)i + k] = a[k];
}
template <bool IV, class VT>
static __global__ void k_rows(SIM_ROWS_PARAMS) {
  SIM_PDL_WAIT();
  rows_body<1, IV, VT>(SIM_ROWS_ARGS);
}
// The batches of 4 and 8 (SIMCTL_CUDA_GATHER_BATCH) with each thread's registers bounded by
// SIM_CUDA_GATHER_BLOCKS blocks a multiprocessor: 64 registers, no spills, and the batch's
// loads issued together before their sums. Without a bound ptxas gives these kernels 40-44
// registers and moves the loads back beside their sums, so that a batch of 8 waited as often
// as the batch of 1 (scripts/kernel_sass.sh: some 1.0-1.5 latencies an entry of S for both,
// 0.25-0.5 bounded); with a bound of one block it gave 96-116 registers (two blocks of 256, 16
// warps a multiprocessor) for the same batching (SIMCTL_CUDA_GATHER_WIDE until 2026-12-05).
template <int NB, bool IV, class VT>
static __global__ void __launch_bounds__(SIM_CUDA_BLOCK, SIM_CUDA_GATHER_BLOCKS)
    k_rows_batch(SIM_ROWS_PARAMS) {
  SIM_PDL_WAIT();
  rows_body<NB, IV, VT>(SIM_ROWS_ARGS);
}
#undef SIM_ROWS_PARAMS
#undef SIM_ROWS_ARGS

// dst[out_vert[k]] = column k of L^{-1} dotted with y (times scale, added to dst when add), cw
// warps per column (1, 2, 4 or 8: SIMCTL_CUDA_COL_WARPS), or with work (auto) each column the
// warps its entry in the table gives (cuda_S.col_work, nwork warps); a column's first warp adds
// the others' sums in their order, so a column of w warps gets the same bits either way.
// With RUNS the column's rows come from its runs (runs_gather3: top, run_ptr, runs), not row.
#define SIM_COLS_PARAMS                                                                         \
  int n, int cw, const int *work, int nwork, const int *ptr, const int *row, const int *top,    \
      const int *run_ptr, const int *runs, const VT *val, const int *out_vert, const double *y, \
      double scale, int add, double *dst
#define SIM_COLS_ARGS \
  n, cw, work, nwork, ptr, row, top, run_ptr, runs, val, out_vert, y, scale, add, dst
template <int NB, bool RUNS, class VT>
static __device__ __forceinline__ void cols_body(SIM_COLS_PARAMS) {
  /* (in 64 bits: with SIMCTL_CUDA_COL_WARPS=8 the threads pass 2^32 from 2^24 unknowns) */
  const int wid = (int)((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5),
            lane = threadIdx.x & 31;
  int k = wid / cw, sub = wid % cw, w = cw;
  if (work) {
    const int t = wid < nwork ? work[wid] : -1;
    k = t < 0 ? n : t >> 5;
    w = t < 0 ? 1 : 1 << ((t >> 3) & 3);
    sub = t < 0 ? 0 : t & 7;
  }
  double a[3] = {0.0, 0.0, 0.0};
  if constexpr (RUNS && NB > 1) { /* the column's runs in shared memory, a warp's copy */
    __shared__ int run_sh[SIM_CUDA_BLOCK / 32][2][SIM_CUDA_RUNS_SHARED];
    static_assert(SIM_CUDA_RUNS_SHARED <= 32, "a lane loads each run");
    const int b = threadIdx.x >> 5, h = k < n ? top[k] : 0;
    const int nr = k < n ? 1 + run_ptr[h + 1] - run_ptr[h] : 0;
    if (k < n && lane < nr) { /* run 0 the column's own, then its top's list */
      int lo = k, len = h - k + 1;
      if (lane > 0) {
        const int *r = runs + 2 * ((size_t)run_ptr[h] + (size_t)(lane - 1));
        lo = r[0], len = r[1];
      }
      run_sh[b][0][lane] = lo;
      run_sh[b][1][lane] = len;
    }
    __syncthreads(); /* every thread of the block: no thread has left before it */
    if (k < n)
      runs_shared_gather3<NB>(ptr[k], ptr[k + 1], 32 * sub + lane, 32 * w, run_sh[b][0],
                              run_sh[b][1], val, y, a);
  } else if (k < n && RUNS)
    runs_gather3(k, ptr[k], ptr[k + 1], 32 * sub + lane, 32 * w, top, run_ptr, runs, val, y, a);
  else if (k < n)
    gather3<NB, false>(ptr[k] + 32 * sub + lane, ptr[k + 1], 32 * w, row, 0, val, y, a);
  warp_sum3(a);
  static_assert(SIM_CUDA_BLOCK % 256 == 0, "a column's 8 warps at most lie in one block");
  if (work || cw > 1) { /* the same for the whole block; a column's warps are in one block */
    __shared__ double part[SIM_CUDA_BLOCK / 32][3];
    const int b = threadIdx.x >> 5;
    if (lane == 0)
      for (int d = 0; d < 3; d++) part[b][d] = a[d];
    __syncthreads();
    if (lane == 0 && sub == 0)
      for (int j = 1; j < w; j++)
        for (int d = 0; d < 3; d++) a[d] += part[b + j][d];
  }
  if (k < n && lane == 0 && sub == 0) {
    double *q = dst + 3 * (size_t)out_vert[k];
    for (int d = 0; d < 3; d++) q[d] = add ? q[d] + scale * a[d] : scale * a[d];
  }
}
template <bool RUNS, class VT>
static __global__ void k_cols(SIM_COLS_PARAMS) {
  SIM_PDL_WAIT();
  cols_body<1, RUNS, VT>(SIM_COLS_ARGS);
}
// (the batches of 4 and 8: as k_rows_batch)
template <int NB, bool RUNS, class VT>
static __global__ void __launch_bounds__(SIM_CUDA_BLOCK, SIM_CUDA_GATHER_BLOCKS)
    k_cols_batch(SIM_COLS_PARAMS) {
  SIM_PDL_WAIT();
  cols_body<NB, RUNS, VT>(SIM_COLS_ARGS);
}
#undef SIM_COLS_PARAMS
#undef SIM_COLS_ARGS

// S kept as its rows alone (SIMCTL_CUDA_S=rows): x += S^T y by a scatter, x_j += S_ij y_i with
// atomic adds (x zeroed first), row i of S by a block (long rows) or a warp (short ones) as in
// k_rows; the order of the adds, and so x's last bits, vary from run to run.
template <class VT>
static __global__ void k_rows_scatter(int nchunk, int nshort, const sim_row_chunk *chunks,
                                      const int *order, const int *ptr, const int *col,
                                      const VT *val, const double *y, double *x) {
  SIM_PDL_WAIT();
  int beg, end, lane, stride;
  int i = row_part(nchunk, nshort, chunks, order, ptr, &beg, &end, &lane, &stride);
  if (i < 0) return;
  const double yi[3] = {y[3 * (size_t)i], y[3 * (size_t)i + 1], y[3 * (size_t)i + 2]};
  for (long long p = beg + lane; p < end; p += stride) {
    double *xj = x + 3 * (size_t)col[p];
    double s = (double)val[p];
    for (int d = 0; d < 3; d++) atomicAdd(xj + d, s * yi[d]);
  }
}

// dst[vert[k]] (+)= scale z[k]: after cuSPARSE, z = L^{-T} y in the permuted numbering and
// vert = out_vert; after the scatter, z = x in the free unknowns' and vert = free_vert.
static __global__ void k_scatter(int n, const int *vert, const double *z, double scale, int add,
                                 double *dst) {
  SIM_PDL_WAIT();
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  double *q = dst + 3 * (size_t)vert[k];
  for (int d = 0; d < 3; d++)
    q[d] = add ? q[d] + scale * z[3 * (size_t)k + d] : scale * z[3 * (size_t)k + d];
}

// simctl's own products: y = S b by the row gathers, then S^T y by the column gathers, or with
// S's rows alone (S->rows_only) by the scatter into x, put in place by k_scatter.
// The row gather's blocks: one per chunk of a long row, then a warp per short row.
static unsigned row_blocks(const cuda_S *S) {
  const unsigned warps = SIM_CUDA_BLOCK / 32;
  return S->nchunk + (unsigned)((S->nshort + warps - 1) / warps);
}

// The gathers' kernels for batch NB and S's layout (interval rows, column runs).
template <int NB, class VT>
static auto rows_kernel(const cuda_S *S) {
  if constexpr (NB > 1)
    return S->row_interval ? k_rows_batch<NB, true, VT> : k_rows_batch<NB, false, VT>;
  else
    return S->row_interval ? k_rows<true, VT> : k_rows<false, VT>;
}
template <int NB, class VT>
static auto cols_kernel(const cuda_S *S) {
  if constexpr (NB > 1)
    return S->col_runs ? k_cols_batch<NB, true, VT> : k_cols_batch<NB, false, VT>;
  else
    return S->col_runs ? k_cols<true, VT> : k_cols<false, VT>;
}

// y = S P b (P b: rhs's copy kept by its writers, else permuted here), simctl's row gather.
template <class VT>
static void launch_rows(cuda_ctx *c, const VT *row_val, const double *b) {
  cuda_S *S = &c->S;
  auto kr = S->row_batch == 8   ? rows_kernel<8, VT>(S)
            : S->row_batch == 4 ? rows_kernel<4, VT>(S)
                                : rows_kernel<1, VT>(S);
  const double *in = b; /* P b, which the interval rows read in order: rhs's kept by its writers */
  if (S->row_interval && b == c->rhs) {
    in = S->bp_rhs;
  } else if (S->row_interval) {
    k_permute3<<<sim_cuda_blocks(3 * S->n), SIM_CUDA_BLOCK, 0, c->stream>>>(S->n, S->perm, b,
                                                                            S->bp);
    in = S->bp;
  }
  kr<<<row_blocks(S), SIM_CUDA_BLOCK, 0, c->stream>>>(S->nchunk, S->nshort, S->chunks, S->row_order,
                                                      S->row_ptr, S->row_col, row_val, in, c->y,
                                                      S->part, S->cnt);
}

// dst[vertex] = scale S^T y (add: +=), simctl's column gather.
template <class VT>
static void launch_cols(cuda_ctx *c, const VT *col_val, double *dst, double scale, int add) {
  cuda_S *S = &c->S;
  const int cw = S->col_work ? 1 : S->col_warps;
  const long long nw = S->col_work ? S->ncol_work : (long long)S->n * cw; /* warps */
  unsigned cols = (unsigned)((nw * 32 + SIM_CUDA_BLOCK - 1) / SIM_CUDA_BLOCK);
  auto kc = S->col_batch == 8   ? cols_kernel<8, VT>(S)
            : S->col_batch == 4 ? cols_kernel<4, VT>(S)
                                : cols_kernel<1, VT>(S);
  kc<<<cols, SIM_CUDA_BLOCK, 0, c->stream>>>(S->n, cw, S->col_work, S->ncol_work, S->col_ptr,
                                             S->col_row, S->col_top, S->run_ptr, S->runs, col_val,
                                             S->out_vert, c->y, scale, add, dst);
}

template <class VT>
static int products(cuda_ctx *c, const VT *row_val, const VT *col_val, const double *b, double *dst,
                    double scale, int add, sim_status *st) {
  cuda_S *S = &c->S;
  int n = S->n;
  launch_rows(c, row_val, b);
  if (!S->rows_only) {
    launch_cols(c, col_val, dst, scale, add);
    return SIM_OK;
  }
  SIM_CU(cudaMemsetAsync(S->x, 0, sizeof(double) * 3 * (size_t)n, c->stream), st);
  k_rows_scatter<VT><<<row_blocks(S), SIM_CUDA_BLOCK, 0, c->stream>>>(
      S->nchunk, S->nshort, S->chunks, S->row_order, S->row_ptr, S->row_col, row_val, c->y, S->x);
  k_scatter<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, c->stream>>>(n, c->free_vert, S->x, scale, add,
                                                                  dst);
  return SIM_OK;
}

int sim_cuda_S_queue(cuda_ctx *c, int which, double *dst, sim_status *st) {
  cuda_S *S = &c->S;
  if (S->spmv != SIM_SPMV_KERNEL || S->rows_only || (which != 1 && which != 2))
    return sim_fail(st, SIM_ERR_USAGE, "CUDA: no product %d of S alone in this layout", which);
  if (S->n == 0) return SIM_OK;
  const int f = S->prec == SIM_PREC_FLOAT;
  if (which == 1 && f) launch_rows(c, S->row_valf, c->rhs);
  if (which == 1 && !f) launch_rows(c, S->row_val, c->rhs);
  if (which == 2 && f) launch_cols(c, S->col_valf, dst, 1.0, 0);
  if (which == 2 && !f) launch_cols(c, S->col_val, dst, 1.0, 0);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

extern "C" int sim_cuda_S_product(sim_backend *be, int which, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  return sim_cuda_S_queue(c, which, c->vec[SIM_VEC_Q], st);
}

int sim_cuda_gather_blocks(const cuda_ctx *c) {
  return c->S.row_batch > 1 || c->S.col_batch > 1 ? SIM_CUDA_GATHER_BLOCKS : 0;
}

static int spmm(cuda_S *S, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B, cusparseDnMatDescr_t C,
                sim_status *st) {
  const double one = 1.0, zero = 0.0;
  SIM_CUSP(cusparseSpMM(S->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, S->sp_buf),
           st);
  return SIM_OK;
}

int sim_cuda_S_permute_rhs(cuda_ctx *c, sim_status *st) {
  cuda_S *S = &c->S;
  if (!S->row_interval || S->n == 0) return SIM_OK;
  k_permute3<<<sim_cuda_blocks(3 * (long long)S->n), SIM_CUDA_BLOCK, 0, c->stream>>>(
      S->n, S->perm, c->rhs, S->bp_rhs);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

int sim_cuda_S_solve_into(cuda_ctx *c, const double *b, double *dst, double scale, int add,
                          sim_status *st) {
  cuda_S *S = &c->S;
  int n = S->n;
  if (n == 0) return SIM_OK;
  if (S->spmv == SIM_SPMV_CUSPARSE) {
    SIM_CUSP(cusparseDnMatSetValues(S->dn_b, (void *)b), st);
    int rc = spmm(S, S->mat_rows, S->dn_b, S->dn_y, st);
    if (!rc) rc = spmm(S, S->mat_cols, S->dn_y, S->dn_z, st);
    if (rc) return rc;
    k_scatter<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, c->stream>>>(n, S->out_vert, S->z, scale,
                                                                    add, dst);
  } else {
    int rc = S->prec == SIM_PREC_FLOAT
                 ? products<float>(c, S->row_valf, S->col_valf, b, dst, scale, add, st)
                 : products<double>(c, S->row_val, S->col_val, b, dst, scale, add, st);
    if (rc) return rc;
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

int sim_cuda_global_step(sim_backend *be, sim_status *st) {
  /* global_solvers.cu: the solve (S^T S rhs for the sparse inverse), Chebyshev where on; queued */
  return sim_cuda_solvers_step(CCTX(be), st);
}

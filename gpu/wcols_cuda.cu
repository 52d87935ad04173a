// SPDX-License-Identifier: MIT
// The matrix-free Delassus operator's solve through the contacts' columns of S (wcols_cuda.h).
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "pdl.cuh"
#include "wcols_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
}

static __device__ inline double s_val(const sim_delassus_cols &S, int t) {
  return S.col_val ? S.col_val[t] : (double)S.col_valf[t];
}

// lane 0 ends with the warp's sums of a[0..2]
static __device__ inline void warp_sum3(double a[3]) {
  for (int off = 16; off > 0; off /= 2)
    for (int d = 0; d < 3; d++) a[d] += __shfl_down_sync(0xffffffffu, a[d], off);
}

// first[i], the lowest column of i's subtree, by one thread (sim_delassus_subtree_firsts, the
// CPU's): *ok = 0 where the tree is not postordered. size: n ints of scratch.
static __global__ void k_first(sim_delassus_cols S, int n, int *first, int *size, int *ok) {
  SIM_PDL_WAIT();
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *ok = sim_delassus_subtree_firsts(&S, n, first, size) == 0;
}

static __global__ void k_mark(int m, const int *kc, int *mark) {
  SIM_PDL_WAIT();
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a < m) mark[kc[a]] = 1;
}

// Y's column p = below[k] of each contact column k: k, its unknown, its end in S's columns.
static __global__ void k_ycols(int n, const int *mark, const int *below, const int *perm,
                               const int *col_ptr, int *ycol, int *yu, int *yend) {
  SIM_PDL_WAIT();
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n || !mark[k]) return;
  const int p = below[k];
  ycol[p] = k, yu[p] = perm[k], yend[p] = col_ptr[k + 1];
}

// z_i = sum over the contact columns p under row i of Y_ip g at p's unknown, for K <= KB vectors
// (g_t = g + t gs, z_t = z + 3 n t): a warp per row of L^{-1}, which reads the row's entries once
// for all K (rows with none are never read: not written). Each vector's sums are a single
// product's (KB 1), whatever KB and K. Nothing where *gate is 0 (NULL: always).
template <int KB>
static __global__ void k_z(int n, const int *first, const int *below, sim_delassus_cols S,
                           const int *yend, const int *yu, const double *g, size_t gs, double *z,
                           int K, const int *gate) {
  SIM_PDL_WAIT();
  const long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (i >= n || (gate && !*gate)) return; /* the warp's: i and *gate are */
  const int p0 = below[first[i]], cnt = below[i + 1] - p0;
  if (cnt == 0) return; /* the warp's: i is */
  const int len = S.col_ptr[i + 1] - S.col_ptr[i];
  double a[KB][3] = {};
  for (int j = lane; j < cnt; j += 32) {
    const double v = s_val(S, yend[p0 + j] - len);
    const double *gp = g + 3 * (size_t)yu[p0 + j];
    for (int t = 0; t < KB && t < K; t++)
      for (int d = 0; d < 3; d++) a[t][d] += v * gp[t * gs + d];
  }
  for (int t = 0; t < KB && t < K; t++) {
    warp_sum3(a[t]);
    if (lane == 0)
      for (int d = 0; d < 3; d++) z[3 * ((size_t)n * t + i) + d] = a[t][d];
  }
}

// wq_t at column p's vertex = sum over its path of Y_ip z_t,i (wq_t = wq + t ws): a warp per
// contact column, of this step's m = below[n] (the grid follows their capacity, so a graph
// captured for one step serves the next). Nothing where *gate is 0 (NULL: always).
template <int KB>
static __global__ void k_w(int n, const int *below, const int *ycol, sim_delassus_cols S,
                           const double *z, const int *yu, const int *free_vert, double *wq,
                           size_t ws, int K, const int *gate) {
  SIM_PDL_WAIT();
  const long long p = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (p >= below[n] || (gate && !*gate)) return; /* the warp's */
  const int k = ycol[p];
  double a[KB][3] = {};
  for (int e = S.col_ptr[k] + lane; e < S.col_ptr[k + 1]; e += 32) {
    const double v = s_val(S, e);
    const double *zi = z + 3 * (size_t)S.col_row[e];
    for (int t = 0; t < KB && t < K; t++)
      for (int d = 0; d < 3; d++) a[t][d] += v * zi[3 * (size_t)n * t + d];
  }
  for (int t = 0; t < KB && t < K; t++) {
    warp_sum3(a[t]);
    if (lane == 0)
      for (int d = 0; d < 3; d++) wq[t * ws + 3 * (size_t)free_vert[yu[p]] + d] = a[t][d];
  }
}

static void release_order(cuda_ctx *c, cuda_wcols *w) {
  const size_t n = w->n_cap;
  sim_cuda_release(c, w->first, sizeof(int) * n);
  sim_cuda_release(c, w->perm, sizeof(int) * n);
  sim_cuda_release(c, w->mark, sizeof(int) * (n + 1));
  sim_cuda_release(c, w->below, sizeof(int) * (n + 1));
  sim_cuda_release(c, w->z, sizeof(double) * 3 * n * (size_t)(w->kmax > 0 ? w->kmax : 1));
  sim_cuda_release(c, w->ok, sizeof(int));
  sim_cuda_release(c, w->scan, w->scan_bytes);
  w->first = w->perm = w->mark = w->below = w->ok = NULL;
  w->z = NULL, w->scan = NULL;
  w->n_cap = w->scan_bytes = 0;
  w->n = 0, w->kmax = 0;
}

static void release_vertices(cuda_ctx *c, cuda_wcols *w) {
  const size_t m = w->m_cap;
  sim_cuda_release(c, w->ycol, sizeof(int) * m);
  sim_cuda_release(c, w->yu, sizeof(int) * m);
  sim_cuda_release(c, w->yend, sizeof(int) * m);
  w->ycol = w->yu = w->yend = NULL;
  w->m_cap = 0;
}

// The arrays that follow S (n), its permutation from the builder's inverse ip, and the tree's
// subtrees with the postorder check (one wait, once per S).
static int per_order(cuda_ctx *c, cuda_wcols *w, const sim_delassus_cols *S, int n, const int *ip,
                     sim_status *st) {
  release_order(c, w);
  w->postordered = -1;
  int *perm = SIM_NEW(int, (size_t)n + 1);
  if (!perm) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (matrix-free W: S's order)");
  for (int u = 0; u < n; u++) perm[ip[u]] = u;
  const size_t nn = (size_t)n;
  size_t scan_bytes = 0;
  int rc = SIM_OK, ok = 0;
  if (cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, w->mark, w->below, n + 1, c->stream) !=
      cudaSuccess)
    rc = sim_fail(st, SIM_ERR_DEVICE, "CUDA: the matrix-free W's scan");
  if (!rc) rc = sim_cuda_new<int>(c, &w->perm, nn, perm, st);
  sim_free(perm); /* sim_cuda_alloc copied it before returning */
  if (!rc) rc = sim_cuda_new<int>(c, &w->first, nn, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(c, &w->mark, nn + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(c, &w->below, nn + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &w->z, 3 * nn, NULL, st);
  w->kmax = w->z ? 1 : 0;
  if (!rc) rc = sim_cuda_new<int>(c, &w->ok, 1, NULL, st);
  if (!rc) rc = sim_cuda_alloc(c, &w->scan, scan_bytes > 0 ? scan_bytes : 1, NULL, st);
  w->n_cap = nn, w->scan_bytes = scan_bytes > 0 ? scan_bytes : 1;
  if (rc) {
    release_order(c, w);
    return rc;
  }
  w->n = n;
  k_first<<<1, 1, 0, c->stream>>>(*S, n, w->first, w->mark, w->ok);
  SIM_CU(cudaGetLastError(), st);
  SIM_CU(cudaMemcpyAsync(&ok, w->ok, sizeof(int), cudaMemcpyDeviceToHost, c->stream), st);
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  w->postordered = ok;
  return SIM_OK;
}

static int per_vertices(cuda_ctx *c, cuda_wcols *w, int m, sim_status *st) {
  if ((size_t)m <= w->m_cap && w->ycol) return SIM_OK;
  release_vertices(c, w);
  const size_t cap = (size_t)m + (size_t)m / 2 + 16;
  int rc = sim_cuda_new<int>(c, &w->ycol, cap, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(c, &w->yu, cap, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(c, &w->yend, cap, NULL, st);
  w->m_cap = cap;
  if (rc) release_vertices(c, w);
  return rc;
}

int sim_cuda_wcols_build(cuda_ctx *c, cuda_wcols *w, const sim_cuda_delassus *del, sim_status *st) {
  sim_delassus_cols S;
  int n = 0, m = 0;
  const int *kc = NULL, *ip = NULL;
  w->m = -1;
  if (sim_cuda_delassus_vertices(del, &S, &n, &m, &kc, &ip)) return -1;
  int rc = w->n != n || !w->first ? per_order(c, w, &S, n, ip, st) : SIM_OK;
  if (!rc) rc = per_vertices(c, w, m, st);
  if (rc) return rc;
  if (!w->postordered) return -1;
  w->S = S;
  if (m > 0) {
    cudaStream_t s = c->stream;
    SIM_CU(cudaMemsetAsync(w->mark, 0, sizeof(int) * ((size_t)n + 1), s), st);
    k_mark<<<sim_cuda_blocks(m), SIM_CUDA_BLOCK, 0, s>>>(m, kc, w->mark);
    size_t bytes = w->scan_bytes;
    SIM_CU(cub::DeviceScan::ExclusiveSum(w->scan, bytes, w->mark, w->below, n + 1, s), st);
    k_ycols<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, s>>>(n, w->mark, w->below, w->perm, S.col_ptr,
                                                          w->ycol, w->yu, w->yend);
    SIM_CU(cudaGetLastError(), st);
  } else { /* none: below[n], the count the products read, 0 (and every row's none) */
    SIM_CU(cudaMemsetAsync(w->below, 0, sizeof(int) * ((size_t)n + 1), c->stream), st);
  }
  w->m = m;
  return SIM_OK;
}

// k_z then k_w for K <= KB vectors, their grids following n and the columns' capacity.
template <int KB>
static void queue_products(cuda_ctx *c, const cuda_wcols *w, const double *g, size_t gs,
                           const int *free_vert, double *wq, size_t ws, int K, const int *gate) {
  const int n = w->n;
  const unsigned gz = sim_cuda_blocks(32LL * n), gw = sim_cuda_blocks(32LL * (w->m_cap + 1));
  k_z<KB><<<gz, SIM_CUDA_BLOCK, 0, c->stream>>>(n, w->first, w->below, w->S, w->yend, w->yu, g, gs,
                                                w->z, K, gate);
  k_w<KB><<<gw, SIM_CUDA_BLOCK, 0, c->stream>>>(n, w->below, w->ycol, w->S, w->z, w->yu, free_vert,
                                                wq, ws, K, gate);
}

int sim_cuda_wcols_batch(cuda_ctx *c, cuda_wcols *w, int K, sim_status *st) {
  if (K < 1 || K > SIM_W_BATCH)
    return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: room for %d matrix-free products", K);
  if (K <= w->kmax || !w->z) return SIM_OK; /* no S yet: per_order makes z */
  const size_t zn = 3 * w->n_cap;
  sim_cuda_release(c, w->z, sizeof(double) * zn * (size_t)w->kmax);
  w->z = NULL, w->kmax = 0;
  int rc = sim_cuda_new<double>(c, &w->z, zn * (size_t)K, NULL, st);
  if (!rc) w->kmax = K;
  return rc;
}

int sim_cuda_wcols_apply(cuda_ctx *c, cuda_wcols *w, const double *g, size_t gs,
                         const int *free_vert, double *wq, size_t ws, int K, const int *gate,
                         sim_status *st) {
  if (w->m < 0) return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: no matrix-free W this step");
  if (w->n == 0) return SIM_OK; /* no column: no product (a grid of none is no launch) */
  if (K < 1 || K > w->kmax)
    return sim_fail(st, SIM_ERR_INTERNAL, "CUDA: %d products with the matrix-free W", K);
  if (K == 1)
    queue_products<1>(c, w, g, gs, free_vert, wq, ws, K, gate);
  else
    queue_products<SIM_W_BATCH>(c, w, g, gs, free_vert, wq, ws, K, gate);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

void sim_cuda_wcols_free(cuda_ctx *c, cuda_wcols *w) {
  release_order(c, w);
  release_vertices(c, w);
  w->m = -1;
}

// SPDX-License-Identifier: MIT
// The Delassus operator on the device (delassus_cuda.h): the host's term table and the contacts
// up, then K, G, W (or only the diagonal) by kernels that call core/contact/delassus_terms.h.
#include <string.h>

#include "cuda_ctx.h"
#include "delassus_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/delassus.h"
#include "../core/contact/delassus_terms.h"
}

typedef struct dev_buf {  // a device array grown on demand (contents not kept)
  void *p;
  size_t bytes;
} dev_buf;

struct sim_cuda_delassus {
  cuda_ctx mem;  // the stream and the byte count (sim_cuda_alloc); nothing else of it is used
  int own_stream;
  int n;
  int *ip;                // host: the column of L^{-1} of unknown u, P^{-1}(u)
  sim_delassus_cols cols; // device
  dev_buf own_ptr, own_row, own_val;  // S's columns when uploaded here
  dev_buf tloc, tbeta, kc, cab_j, cab_ptr, cab_loc, cab_g, c, K, G, W, d;
  int w_nc;  // contacts of the dense W on the device (-1: none)
  const sim_contact *cd;  // this build's contacts on the device: the caller's, or the copy in c
};

static __global__ void k_K(int m, sim_delassus_cols S, const int *kc, double *K) {
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)m * m) return;
  int a = (int)(idx / m), b = (int)(idx % m);
  if (b < a) return;
  double v = sim_delassus_path_dot(&S, kc[a], kc[b]);
  K[(size_t)a * m + b] = v;
  K[(size_t)b * m + a] = v;
}

static __global__ void k_G(int nc, sim_delassus_terms T, const double *K, double *G) {
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)nc * nc) return;
  int j = (int)(idx / nc), s = (int)(idx % nc);
  if (s < j) return;
  double g = sim_delassus_g(&T, K, j, s);
  G[(size_t)j * nc + s] = g;
  G[(size_t)s * nc + j] = g;
}

static __global__ void k_W(int nc, const sim_contact *c, const double *G, double *W) {
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)nc * nc) return;
  int j = (int)(idx / nc), s = (int)(idx % nc);
  size_t N = 3 * (size_t)nc;
  double blk[9];
  sim_delassus_block(&c[j], &c[s], G[(size_t)j * nc + s], blk);
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 3; q++) W[(3 * (size_t)j + r) * N + 3 * (size_t)s + q] = blk[3 * r + q];
}

// Row 3j and column 3j of W for cable i (contact j) against contact s, as the host's w_cable.
static __global__ void k_W_cable(int nc, const sim_contact *c, sim_delassus_terms T,
                                 const double *K, double *W) {
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)T.ncab * nc) return;
  int i = (int)(idx / nc), s = (int)(idx % nc);
  size_t N = 3 * (size_t)nc, j = (size_t)T.cab_j[i];
  if (c[s].kind == SIM_CONTACT_CABLE && (size_t)s < j) return; /* done from that cable */
  double w[3];
  sim_delassus_cable_pair(c, &T, i, s, K, w);
  int rows = c[s].kind == SIM_CONTACT_CABLE ? 1 : 3;
  for (int r = 0; r < rows; r++)
    W[3 * j * N + 3 * (size_t)s + r] = W[(3 * (size_t)s + r) * N + 3 * j] = w[r];
}

static __global__ void k_diag_of_W(long long N, const double *W, double *d) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N) d[i] = W[i * N + i];
}

static __global__ void k_diag(int nc, const sim_contact *c, sim_delassus_terms T,
                              sim_delassus_cols S, const int *kc, double *d) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < nc) sim_delassus_diag_rows(&c[j], sim_delassus_self(&T, &S, kc, j), d + 3 * (size_t)j);
}

static __global__ void k_diag_cable(sim_delassus_terms T, sim_delassus_cols S, const int *kc,
                                    double *d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T.ncab) d[3 * (size_t)T.cab_j[i]] = sim_delassus_cable_self(&T, &S, kc, i);
}

// ---------------------------------------------------------------- buffers

static int ensure(sim_cuda_delassus *k, dev_buf *b, size_t bytes, sim_status *st) {
  if (bytes <= b->bytes && b->p) return SIM_OK;
  sim_cuda_release(&k->mem, b->p, b->bytes);
  b->p = NULL, b->bytes = 0;
  size_t cap = bytes + bytes / 2 + 64;
  int rc = sim_cuda_alloc(&k->mem, &b->p, cap, NULL, st);
  if (!rc) b->bytes = cap;
  return rc;
}

static void release(sim_cuda_delassus *k, dev_buf *b) {
  sim_cuda_release(&k->mem, b->p, b->bytes);
  b->p = NULL, b->bytes = 0;
}

// Ensures b and queues the copy of `bytes` from host (nothing when bytes is 0).
static int put(sim_cuda_delassus *k, dev_buf *b, const void *host, size_t bytes, sim_status *st) {
  int rc = ensure(k, b, bytes, st);
  if (rc || bytes == 0) return rc;
  SIM_CU(cudaMemcpyAsync(b->p, host, bytes, cudaMemcpyHostToDevice, k->mem.stream), st);
  return SIM_OK;
}

static int set_perm(sim_cuda_delassus *k, int n, const int *perm, sim_status *st) {
  sim_free(k->ip);
  k->ip = SIM_NEW(int, (size_t)n + 1);
  if (!k->ip) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus permutation)");
  for (int i = 0; i < n; i++) k->ip[perm[i]] = i;
  k->n = n;
  return SIM_OK;
}

// ---------------------------------------------------------------- the build

// The term table, the columns of the contact vertices and the contacts on the device; T's
// pointers there (unk stays on the host).
static int upload_terms(sim_cuda_delassus *k, const sim_contact *c, const sim_contact *dev_c,
                        int nc, const sim_delassus_terms *T, sim_delassus_terms *dT,
                        sim_status *st) {
  const int ncterm = T->cab_ptr[T->ncab];
  int *kc = SIM_NEW(int, (size_t)T->m + 1);
  if (!kc) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus columns)");
  for (int a = 0; a < T->m; a++) kc[a] = k->ip[T->unk[a]];
  int rc = put(k, &k->tloc, T->tloc, sizeof(int) * 4 * (size_t)nc, st);
  if (!rc) rc = put(k, &k->tbeta, T->tbeta, sizeof(double) * 4 * (size_t)nc, st);
  if (!rc) rc = put(k, &k->kc, kc, sizeof(int) * (size_t)T->m, st);
  if (!rc) rc = put(k, &k->cab_j, T->cab_j, sizeof(int) * (size_t)T->ncab, st);
  if (!rc) rc = put(k, &k->cab_ptr, T->cab_ptr, sizeof(int) * ((size_t)T->ncab + 1), st);
  if (!rc) rc = put(k, &k->cab_loc, T->cab_loc, sizeof(int) * (size_t)ncterm, st);
  if (!rc) rc = put(k, &k->cab_g, T->cab_g, sizeof(double) * 3 * (size_t)ncterm, st);
  if (!rc && !dev_c) rc = put(k, &k->c, c, sizeof(sim_contact) * (size_t)nc, st);
  k->cd = dev_c ? dev_c : (const sim_contact *)k->c.p;
  if (!rc) rc = ensure(k, &k->d, sizeof(double) * 3 * (size_t)nc, st);
  /* no wait before kc is freed or the tables change: a copy from pageable host memory is
     staged before cudaMemcpyAsync returns (CUDA's API synchronisation rules) */
  sim_free(kc);
  if (rc) return rc;
  memset(dT, 0, sizeof *dT);
  dT->m = T->m, dT->ncab = T->ncab;
  dT->tloc = (int *)k->tloc.p, dT->tbeta = (double *)k->tbeta.p;
  dT->cab_j = (int *)k->cab_j.p, dT->cab_ptr = (int *)k->cab_ptr.p;
  dT->cab_loc = (int *)k->cab_loc.p, dT->cab_g = (double *)k->cab_g.p;
  return SIM_OK;
}

static int dense_w(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const size_t mm = (size_t)dT->m * (size_t)dT->m, nn = (size_t)nc * (size_t)nc;
  int rc = ensure(k, &k->K, sizeof(double) * mm, st);
  if (!rc) rc = ensure(k, &k->G, sizeof(double) * nn, st);
  if (!rc) rc = ensure(k, &k->W, sizeof(double) * 9 * nn, st);
  if (rc) return rc;
  const int *kc = (const int *)k->kc.p;
  double *K = (double *)k->K.p, *G = (double *)k->G.p, *W = (double *)k->W.p;
  const sim_contact *c = k->cd;
  if (mm > 0) k_K<<<sim_cuda_blocks((long long)mm), SIM_CUDA_BLOCK, 0, s>>>(dT->m, k->cols, kc, K);
  k_G<<<sim_cuda_blocks((long long)nn), SIM_CUDA_BLOCK, 0, s>>>(nc, *dT, K, G);
  k_W<<<sim_cuda_blocks((long long)nn), SIM_CUDA_BLOCK, 0, s>>>(nc, c, G, W);
  if (dT->ncab > 0)
    k_W_cable<<<sim_cuda_blocks((long long)dT->ncab * nc), SIM_CUDA_BLOCK, 0, s>>>(nc, c, *dT, K,
                                                                                  W);
  k_diag_of_W<<<sim_cuda_blocks(3LL * nc), SIM_CUDA_BLOCK, 0, s>>>(3LL * nc, W, (double *)k->d.p);
  SIM_CU(cudaGetLastError(), st);
  k->w_nc = nc;
  return SIM_OK;
}

static int diag_only(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const int *kc = (const int *)k->kc.p;
  double *d = (double *)k->d.p;
  k_diag<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, s>>>(nc, k->cd, *dT, k->cols, kc, d);
  if (dT->ncab > 0)
    k_diag_cable<<<sim_cuda_blocks(dT->ncab), SIM_CUDA_BLOCK, 0, s>>>(*dT, k->cols, kc, d);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

extern "C" int sim_cuda_delassus_build(sim_cuda_delassus *k, const sim_contact *c, int nc,
                                       const int *free_of, int dense, size_t max_bytes,
                                       double *diag, sim_status *st) {
  return sim_cuda_delassus_build_on(k, c, NULL, nc, free_of, dense, max_bytes, diag, st);
}

extern "C" int sim_cuda_delassus_build_on(sim_cuda_delassus *k, const sim_contact *c,
                                          const sim_contact *dev_c, int nc, const int *free_of,
                                          int dense, size_t max_bytes, double *diag,
                                          sim_status *st) {
  k->w_nc = -1;
  if (nc <= 0) return SIM_OK;
  if (!k->cols.col_ptr)
    return sim_fail(st, SIM_ERR_INTERNAL, "Delassus operator on the device: no S given");
  sim_delassus_terms T, dT;
  int rc = sim_delassus_terms_build(c, nc, free_of, k->n, &T, st);
  if (rc) return rc;
  size_t need = sim_delassus_bytes(nc, T.m, k->n);
  if (dense && max_bytes > 0 && need > max_bytes)
    rc = sim_fail(st, SIM_ERR_MEMORY,
                  "the dense Delassus operator W (%d x %d rows, %d contact vertices) needs "
                  "%.1f MB, over the limit of %.1f MB",
                  3 * nc, 3 * nc, T.m, need / 1e6, max_bytes / 1e6);
  if (!rc) rc = upload_terms(k, c, dev_c, nc, &T, &dT, st);
  if (!rc) rc = dense ? dense_w(k, nc, &dT, st) : diag_only(k, nc, &dT, st);
  sim_delassus_terms_free(&T);
  if (rc) return rc;
  if (!diag) {
    SIM_CU(cudaGetLastError(), st);
    return SIM_OK;
  }
  SIM_CU(cudaMemcpyAsync(diag, k->d.p, sizeof(double) * 3 * (size_t)nc, cudaMemcpyDeviceToHost,
                         k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return SIM_OK;
}

extern "C" const double *sim_cuda_delassus_diag(const sim_cuda_delassus *k) {
  return (const double *)k->d.p;
}

extern "C" const double *sim_cuda_delassus_W(const sim_cuda_delassus *k) {
  return k->w_nc >= 0 ? (const double *)k->W.p : NULL;
}

extern "C" int sim_cuda_delassus_download(sim_cuda_delassus *k, double *W, sim_status *st) {
  if (k->w_nc < 0) return sim_fail(st, SIM_ERR_INTERNAL, "no dense Delassus operator to copy");
  size_t nn = 9 * (size_t)k->w_nc * (size_t)k->w_nc;
  SIM_CU(cudaMemcpyAsync(W, k->W.p, sizeof(double) * nn, cudaMemcpyDeviceToHost, k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return SIM_OK;
}

// ---------------------------------------------------------------- set-up

extern "C" int sim_cuda_delassus_use_S(sim_cuda_delassus *k, int n, const int *col_ptr,
                                       const int *col_row, const double *col_val,
                                       const float *col_valf, const int *perm, sim_status *st) {
  k->cols.col_ptr = col_ptr, k->cols.col_row = col_row;
  k->cols.col_val = col_val, k->cols.col_valf = col_val ? NULL : col_valf;
  return set_perm(k, n, perm, st);
}

extern "C" int sim_cuda_delassus_upload_S(sim_cuda_delassus *k, const sim_sparse_inverse *S,
                                          sim_status *st) {
  const size_t n = (size_t)S->n, nnz = (size_t)S->nnz;
  const size_t vb = S->col_val ? sizeof(double) * nnz : sizeof(float) * nnz;
  int rc = put(k, &k->own_ptr, S->col_ptr, sizeof(int) * (n + 1), st);
  if (!rc) rc = put(k, &k->own_row, S->col_row, sizeof(int) * nnz, st);
  if (!rc)
    rc = put(k, &k->own_val, S->col_val ? (const void *)S->col_val : (const void *)S->col_valf, vb,
             st);
  if (rc) return rc;
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return sim_cuda_delassus_use_S(k, S->n, (const int *)k->own_ptr.p, (const int *)k->own_row.p,
                                 S->col_val ? (const double *)k->own_val.p : NULL,
                                 S->col_val ? NULL : (const float *)k->own_val.p, S->perm, st);
}

extern "C" int sim_cuda_delassus_create(void *stream, sim_cuda_delassus **out, sim_status *st) {
  *out = NULL;
  sim_cuda_delassus *k = SIM_NEW0(sim_cuda_delassus, 1);
  if (!k) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus operator)");
  k->w_nc = -1;
  int rc = sim_cuda_stream_open(stream, &k->mem.stream, &k->own_stream, st);
  if (rc) {
    sim_free(k);
    return rc;
  }
  *out = k;
  return SIM_OK;
}

extern "C" size_t sim_cuda_delassus_bytes(const sim_cuda_delassus *k) {
  return k ? k->mem.dev_bytes : 0;
}

extern "C" void sim_cuda_delassus_destroy(sim_cuda_delassus *k) {
  if (!k) return;
  dev_buf *b[] = {&k->own_ptr, &k->own_row, &k->own_val, &k->tloc, &k->tbeta, &k->kc,
                  &k->cab_j,   &k->cab_ptr, &k->cab_loc, &k->cab_g, &k->c,     &k->K,
                  &k->G,       &k->W,       &k->d};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) release(k, b[i]);
  if (k->own_stream) cudaStreamDestroy(k->mem.stream);
  sim_free(k->ip);
  sim_free(k);
}

// SPDX-License-Identifier: MIT
// The Delassus operator on the device (delassus_cuda.h): the host's term table and the contacts
// up, then K, G, W (or only the diagonal) by kernels that call core/contact/delassus_terms.h.
#include <cub/device/device_scan.cuh>
#include <string.h>

#include "cuda_ctx.h"
#include "delassus_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/delassus.h"
#include "../core/contact/delassus_terms.h"
#include "../core/contact/rows.h"
}
#include "wcols_cuda.h"

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
  dev_buf cab_j, cab_ptr, cab_loc, cab_g, c, K, G, W;
  dev_buf frame, cab_row;  // the block form's (SIM_CUDA_W_BLOCKS): 9 nc, ncab x 3 nc
  int b_nc, b_ncab;        // its contacts and cables (b_nc -1: none)
  // the arrays that grow with the contacts, one device block (grow_terms): each contact's
  // terms' local numbers and weights (4 each), the contact vertices' columns of L^{-1} (at
  // most 4 a contact but for the cables' terms) and diag(W) (3 each)
  int *tloc, *kc;
  double *tbeta, *d;
  cuda_group terms;
  int w_nc;  // contacts of the dense W on the device (-1: none)
  int m_step;             // the last build's contact vertices (kc's), -1 before one
  // sim_cuda_delassus_solve_cols's: the operator, g and x up and down, the identity as free_vert
  cuda_wcols wc;
  dev_buf tg, tx, ident;
  const sim_contact *cd;  // this build's contacts on the device: the caller's, or the copy in c
  // the term table formed on the device (build_on with the contacts there): the host's stamps
  // counting the contact vertices, the device's flags and local numbers of the unknowns, the
  // inverse permutation there, the cables' terms' unknowns
  int *stamp, stamp_now;  // host, n
  dev_buf flag, loc, dip, scan, cab_unk;
};

static __global__ void k_K(int m, sim_delassus_cols S, const int *kc, double *K) {
  SIM_PDL_WAIT();
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)m * m) return;
  int a = (int)(idx / m), b = (int)(idx % m);
  if (b < a) return;
  double v = sim_delassus_path_dot(&S, kc[a], kc[b]);
  K[(size_t)a * m + b] = v;
  K[(size_t)b * m + a] = v;
}

static __global__ void k_G(int nc, sim_delassus_terms T, const double *K, double *G) {
  SIM_PDL_WAIT();
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)nc * nc) return;
  int j = (int)(idx / nc), s = (int)(idx % nc);
  if (s < j) return;
  double g = sim_delassus_g(&T, K, j, s);
  G[(size_t)j * nc + s] = g;
  G[(size_t)s * nc + j] = g;
}

static __global__ void k_W(int nc, const sim_contact *c, const double *G, double *W) {
  SIM_PDL_WAIT();
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
  SIM_PDL_WAIT();
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

// W's block form (core/contact/wblocks.h; delassus.c blocks_from_k): each contact's frame
// and diag(W) from G (the bits of W's diagonal) ...
static __global__ void k_frame_diag(int nc, const sim_contact *c, const double *G, double *frame,
                                    double *d) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  double *f = frame + 9 * (size_t)j;
  sim_delassus_frame(&c[j], f);
  sim_wblocks_diag3(G[(size_t)j * nc + j], f, d + 3 * (size_t)j);
}

// ... and cable i's row of W against contact s (sim_delassus_cable_row: k_W_cable's bits), then
// its diagonal entry.
static __global__ void k_cab_rows(int nc, const sim_contact *c, sim_delassus_terms T,
                                  const double *K, double *cab_row) {
  SIM_PDL_WAIT();
  long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (idx >= (long long)T.ncab * nc) return;
  const int i = (int)(idx / nc), s = (int)(idx % nc);
  sim_delassus_cable_row(c, &T, i, s, K, cab_row + (size_t)i * 3 * nc + 3 * (size_t)s);
}

static __global__ void k_diag_cab(int nc, sim_delassus_terms T, const double *cab_row, double *d) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= T.ncab) return;
  const size_t j = 3 * (size_t)T.cab_j[i];
  d[j] = cab_row[(size_t)i * 3 * nc + j];
}

static __global__ void k_diag_of_W(long long N, const double *W, double *d) {
  SIM_PDL_WAIT();
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N) d[i] = W[i * N + i];
}

static __global__ void k_diag(int nc, const sim_contact *c, sim_delassus_terms T,
                              sim_delassus_cols S, const int *kc, double *d) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < nc) sim_delassus_diag_rows(&c[j], sim_delassus_self(&T, &S, kc, j), d + 3 * (size_t)j);
}

static __global__ void k_diag_cable(sim_delassus_terms T, sim_delassus_cols S, const int *kc,
                                    double *d) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T.ncab) d[3 * (size_t)T.cab_j[i]] = sim_delassus_cable_self(&T, &S, kc, i);
}

// The term table from the contacts on the device (build_on): flag[u] = 1 for the unknowns the
// contacts' terms and the cables' terms touch (plain stores of 1: any order; zeroed before).
static __global__ void k_flag(int nc, const sim_contact *c, const int *free_of, int ncterm,
                              const int *cab_unk, int *flag) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ncterm && cab_unk[j] >= 0) flag[cab_unk[j]] = 1;
  if (j >= nc) return;
  int vert[4];
  double beta[4];
  const int nt = sim_rows_terms(&c[j], vert, beta);
  for (int t = 0; t < nt; t++)
    if (free_of[vert[t]] >= 0) flag[free_of[vert[t]]] = 1;
}

// The local numbers (loc: the flags' exclusive scan, in unknown order) to the term table: kc[a],
// the column of L^{-1} of local vertex a; tloc and tbeta per contact (sim_delassus_terms_build's
// layout); the cables' terms' local numbers.
static __global__ void k_kc(int n, const int *flag, const int *loc, const int *ip, int *kc) {
  SIM_PDL_WAIT();
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u < n && flag[u]) kc[loc[u]] = ip[u];
}

static __global__ void k_tloc(int nc, const sim_contact *c, const int *free_of, const int *loc,
                              int ncterm, const int *cab_unk, int *tloc, double *tbeta,
                              int *cab_loc) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ncterm) cab_loc[j] = cab_unk[j] >= 0 ? loc[cab_unk[j]] : -1;
  if (j >= nc) return;
  int vert[4];
  double beta[4];
  const int nt = sim_rows_terms(&c[j], vert, beta);
  for (int t = 0; t < 4; t++) {
    const int u = t < nt ? free_of[vert[t]] : -1;
    tbeta[4 * (size_t)j + t] = t < nt ? beta[t] : 0.0;
    tloc[4 * (size_t)j + t] = u >= 0 ? loc[u] : -1;
  }
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

// Room for n x n entries of `per` bytes (K, G, W: their sizes grow with the square of the
// contacts or their vertices). Grown to (n + n / 2 + 16) squared, the Newton solve's arrays'
// rule (nsn_state.cu), and not by half again in bytes, which is only some 22 % more contacts:
// on the H200, cloth_on_knives' frames that grew W took 0.3-0.6 ms more in `schur`
// (docs/gpu_checklist.md). Where the device has no room for that, n x n exactly.
static int ensure_square(sim_cuda_delassus *k, dev_buf *b, size_t n, size_t per, sim_status *st) {
  const size_t bytes = n * n * per, w = n + n / 2 + 16;
  if (bytes <= b->bytes && b->p) return SIM_OK;
  sim_cuda_release(&k->mem, b->p, b->bytes);
  b->p = NULL, b->bytes = 0;
  int rc = sim_cuda_alloc(&k->mem, &b->p, w * w * per, NULL, st);
  if (!rc) {
    b->bytes = w * w * per;
    return SIM_OK;
  }
  if (st->code != SIM_ERR_MEMORY) return rc;
  sim_status_clear(st); /* no room for the margin: the exact size */
  (void)cudaGetLastError();
  rc = sim_cuda_alloc(&k->mem, &b->p, bytes, NULL, st);
  if (!rc) b->bytes = bytes;
  return rc;
}

// The arrays of `terms` for cap contacts (sim_cuda_group_grow's parts).
static int term_parts(void *arg, size_t cap, cuda_part *p) {
  sim_cuda_delassus *k = (sim_cuda_delassus *)arg;
  p[0] = sim_cuda_part(&k->tloc, 4 * cap), p[1] = sim_cuda_part(&k->tbeta, 4 * cap);
  p[2] = sim_cuda_part(&k->kc, 4 * cap), p[3] = sim_cuda_part(&k->d, 3 * cap);
  return 4;
}

// Room for nc contacts' terms and m contact vertices: one allocation where they outgrow it
// (each array its own until 2026-11-29: four cudaMallocs, each with a memset and a wait, and
// four cudaFrees, each waiting for the device).
static int grow_terms(sim_cuda_delassus *k, int nc, int m, sim_status *st) {
  const size_t by_m = ((size_t)m + 3) / 4, n = (size_t)nc > by_m ? (size_t)nc : by_m;
  return sim_cuda_group_grow(&k->mem, &k->terms, n, 16, term_parts, k, st);
}

static void release(sim_cuda_delassus *k, dev_buf *b) {
  sim_cuda_release(&k->mem, b->p, b->bytes);
  b->p = NULL, b->bytes = 0;
}

// Queues the copy of `bytes` from host to dev (nothing when bytes is 0).
static int up(sim_cuda_delassus *k, void *dev, const void *host, size_t bytes, sim_status *st) {
  if (bytes > 0)
    SIM_CU(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, k->mem.stream), st);
  return SIM_OK;
}

// Ensures b and queues the copy of `bytes` from host (nothing when bytes is 0).
static int put(sim_cuda_delassus *k, dev_buf *b, const void *host, size_t bytes, sim_status *st) {
  int rc = ensure(k, b, bytes, st);
  return rc ? rc : up(k, b->p, host, bytes, st);
}

static int set_perm(sim_cuda_delassus *k, int n, const int *perm, sim_status *st) {
  sim_free(k->ip);
  k->ip = SIM_NEW(int, (size_t)n + 1);
  if (!k->ip) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus permutation)");
  for (int i = 0; i < n; i++) k->ip[perm[i]] = i;
  k->n = n;
  release(k, &k->dip); /* its device copy (device_terms) follows the new one */
  sim_free(k->stamp);
  k->stamp = NULL;
  return SIM_OK;
}

// ---------------------------------------------------------------- the build

// The term table, the columns of the contact vertices and the contacts on the device; T's
// pointers there (unk stays on the host).
static int upload_terms(sim_cuda_delassus *k, const sim_contact *c, int nc,
                        const sim_delassus_terms *T, sim_delassus_terms *dT, sim_status *st) {
  const int ncterm = T->cab_ptr[T->ncab];
  int *kc = SIM_NEW(int, (size_t)T->m + 1);
  if (!kc) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus columns)");
  for (int a = 0; a < T->m; a++) kc[a] = k->ip[T->unk[a]];
  int rc = grow_terms(k, nc, T->m, st);
  if (!rc) rc = up(k, k->tloc, T->tloc, sizeof(int) * 4 * (size_t)nc, st);
  if (!rc) rc = up(k, k->tbeta, T->tbeta, sizeof(double) * 4 * (size_t)nc, st);
  if (!rc) rc = up(k, k->kc, kc, sizeof(int) * (size_t)T->m, st);
  if (!rc) rc = put(k, &k->cab_j, T->cab_j, sizeof(int) * (size_t)T->ncab, st);
  if (!rc) rc = put(k, &k->cab_ptr, T->cab_ptr, sizeof(int) * ((size_t)T->ncab + 1), st);
  if (!rc) rc = put(k, &k->cab_loc, T->cab_loc, sizeof(int) * (size_t)ncterm, st);
  if (!rc) rc = put(k, &k->cab_g, T->cab_g, sizeof(double) * 3 * (size_t)ncterm, st);
  if (!rc) rc = put(k, &k->c, c, sizeof(sim_contact) * (size_t)nc, st);
  k->cd = (const sim_contact *)k->c.p;
  /* no wait before kc is freed or the tables change: a copy from pageable host memory is
     staged before cudaMemcpyAsync returns (CUDA's API synchronisation rules) */
  sim_free(kc);
  if (rc) return rc;
  memset(dT, 0, sizeof *dT);
  dT->m = T->m, dT->ncab = T->ncab;
  dT->tloc = k->tloc, dT->tbeta = k->tbeta;
  dT->cab_j = (int *)k->cab_j.p, dT->cab_ptr = (int *)k->cab_ptr.p;
  dT->cab_loc = (int *)k->cab_loc.p, dT->cab_g = (double *)k->cab_g.p;
  return SIM_OK;
}

// The term table formed on the device from the contacts and free_of there (build_on): the
// host counts the contact vertices (m, for K and the memory limit) and lists the cables' terms
// (few); the device flags the unknowns, numbers them by a scan (in unknown order, where the
// host numbers them as first met: K's entries and every sum over terms are the same, so W is
// too), and fills kc, tloc, tbeta and the cables' local numbers. *m: the contact vertices.
static int device_terms(sim_cuda_delassus *k, const sim_contact *c, const sim_contact *dev_c,
                        const int *dev_free_of, int nc, const int *free_of,
                        sim_delassus_terms *dT, sim_status *st) {
  const int n = k->n;
  if (!k->stamp) {
    k->stamp = SIM_NEW0(int, (size_t)n + 1);
    if (!k->stamp) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus vertices)");
  }
  int stamp = ++k->stamp_now, m = 0, ncab = 0, ncterm = 0;
  for (int j = 0; j < nc; j++) {
    if (c[j].kind == SIM_CONTACT_CABLE) ncab++, ncterm += c[j].cable->nt;
    int vert[4];
    double beta[4];
    const int nt = sim_rows_terms(&c[j], vert, beta);
    for (int t = 0; t < nt; t++) {
      const int u = free_of[vert[t]];
      if (u >= 0 && k->stamp[u] != stamp) k->stamp[u] = stamp, m++;
    }
  }
  /* the cables' part of the table, as sim_delassus_terms_build lays it out (unknowns for loc) */
  int *cj = SIM_NEW(int, (size_t)ncab + 1), *cp = SIM_NEW(int, (size_t)ncab + 1);
  int *cu = SIM_NEW(int, (size_t)ncterm + 1);
  double *cg = SIM_NEW(double, 3 * (size_t)ncterm + 1);
  int rc = cj && cp && cu && cg ? SIM_OK
                                : sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus cables)");
  if (!rc) {
    cp[0] = 0;
    for (int j = 0, i = 0; j < nc; j++) {
      if (c[j].kind != SIM_CONTACT_CABLE) continue;
      const sim_cable_row *row = c[j].cable;
      for (int t = 0, q = cp[i]; t < row->nt; t++, q++) {
        const int u = free_of[row->vert[t]];
        cu[q] = u;
        for (int d = 0; d < 3; d++) cg[3 * (size_t)q + d] = row->g[t][d];
        if (u >= 0 && k->stamp[u] != stamp) k->stamp[u] = stamp, m++;
      }
      cj[i] = j;
      cp[i + 1] = cp[i] + row->nt;
      i++;
    }
  }
  if (!rc) rc = put(k, &k->cab_j, cj, sizeof(int) * (size_t)ncab, st);
  if (!rc) rc = put(k, &k->cab_ptr, cp, sizeof(int) * ((size_t)ncab + 1), st);
  if (!rc) rc = put(k, &k->cab_unk, cu, sizeof(int) * (size_t)ncterm, st);
  if (!rc) rc = put(k, &k->cab_g, cg, sizeof(double) * 3 * (size_t)ncterm, st);
  sim_free(cj), sim_free(cp), sim_free(cu), sim_free(cg); /* staged: no wait (upload_terms) */
  if (rc) return rc;
  cudaStream_t s = k->mem.stream;
  size_t scan_bytes = 0;
  int *flag = NULL, *loc = NULL;
  SIM_CU(cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, flag, loc, n + 1, s), st);
  rc = ensure(k, &k->flag, sizeof(int) * ((size_t)n + 1), st);
  if (!rc) rc = ensure(k, &k->loc, sizeof(int) * ((size_t)n + 1), st);
  if (!rc) rc = ensure(k, &k->scan, scan_bytes, st);
  if (!rc && !k->dip.p) rc = put(k, &k->dip, k->ip, sizeof(int) * (size_t)n, st);
  if (!rc) rc = grow_terms(k, nc, m, st);
  if (!rc) rc = ensure(k, &k->cab_loc, sizeof(int) * (size_t)ncterm, st);
  if (rc) return rc;
  flag = (int *)k->flag.p, loc = (int *)k->loc.p;
  const int *cab_unk = (const int *)k->cab_unk.p;
  const int grid = nc > ncterm ? nc : ncterm;
  SIM_CU(cudaMemsetAsync(flag, 0, sizeof(int) * ((size_t)n + 1), s), st);
  k_flag<<<sim_cuda_blocks(grid > 0 ? grid : 1), SIM_CUDA_BLOCK, 0, s>>>(
      nc, dev_c, dev_free_of, ncterm, cab_unk, flag);
  SIM_CU(cub::DeviceScan::ExclusiveSum(k->scan.p, scan_bytes, flag, loc, n + 1, s), st);
  if (n > 0)
    k_kc<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, s>>>(n, flag, loc, (const int *)k->dip.p, k->kc);
  if (grid > 0)
    k_tloc<<<sim_cuda_blocks(grid), SIM_CUDA_BLOCK, 0, s>>>(
        nc, dev_c, dev_free_of, loc, ncterm, cab_unk, k->tloc, k->tbeta, (int *)k->cab_loc.p);
  SIM_CU(cudaGetLastError(), st);
  k->cd = dev_c;
  memset(dT, 0, sizeof *dT);
  dT->m = m, dT->ncab = ncab;
  dT->tloc = k->tloc, dT->tbeta = k->tbeta;
  dT->cab_j = (int *)k->cab_j.p, dT->cab_ptr = (int *)k->cab_ptr.p;
  dT->cab_loc = (int *)k->cab_loc.p, dT->cab_g = (double *)k->cab_g.p;
  return SIM_OK;
}

// K over the contact vertices and G over the contact pairs, queued (both forms of a dense W).
static int k_and_g(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const size_t mm = (size_t)dT->m * (size_t)dT->m, nn = (size_t)nc * (size_t)nc;
  int rc = ensure_square(k, &k->K, (size_t)dT->m, sizeof(double), st);
  if (!rc) rc = ensure_square(k, &k->G, (size_t)nc, sizeof(double), st);
  if (rc) return rc;
  double *K = (double *)k->K.p, *G = (double *)k->G.p;
  if (mm > 0)
    k_K<<<sim_cuda_blocks((long long)mm), SIM_CUDA_BLOCK, 0, s>>>(dT->m, k->cols, k->kc, K);
  k_G<<<sim_cuda_blocks((long long)nn), SIM_CUDA_BLOCK, 0, s>>>(nc, *dT, K, G);
  return SIM_OK;
}

static int dense_w(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const size_t nn = (size_t)nc * (size_t)nc;
  int rc = k_and_g(k, nc, dT, st);
  if (!rc) rc = ensure_square(k, &k->W, 3 * (size_t)nc, sizeof(double), st);
  if (rc) return rc;
  double *K = (double *)k->K.p, *G = (double *)k->G.p, *W = (double *)k->W.p;
  const sim_contact *c = k->cd;
  k_W<<<sim_cuda_blocks((long long)nn), SIM_CUDA_BLOCK, 0, s>>>(nc, c, G, W);
  if (dT->ncab > 0)
    k_W_cable<<<sim_cuda_blocks((long long)dT->ncab * nc), SIM_CUDA_BLOCK, 0, s>>>(nc, c, *dT, K,
                                                                                  W);
  k_diag_of_W<<<sim_cuda_blocks(3LL * nc), SIM_CUDA_BLOCK, 0, s>>>(3LL * nc, W, k->d);
  SIM_CU(cudaGetLastError(), st);
  k->w_nc = nc;
  return SIM_OK;
}

// W's block form: K, G, the frames with diag(W), the cables' rows (W is not formed).
static int blocks_w(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const size_t nr = (size_t)dT->ncab * 3 * (size_t)nc;
  int rc = ensure(k, &k->frame, sizeof(double) * 9 * (size_t)nc, st);
  if (!rc && nr > 0) rc = ensure(k, &k->cab_row, sizeof(double) * nr, st);
  if (!rc) rc = k_and_g(k, nc, dT, st);
  if (rc) return rc;
  double *K = (double *)k->K.p, *G = (double *)k->G.p;
  k_frame_diag<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, s>>>(nc, k->cd, G, (double *)k->frame.p,
                                                              k->d);
  if (nr > 0) {
    double *rows = (double *)k->cab_row.p;
    k_cab_rows<<<sim_cuda_blocks((long long)dT->ncab * nc), SIM_CUDA_BLOCK, 0, s>>>(nc, k->cd, *dT,
                                                                                    K, rows);
    k_diag_cab<<<sim_cuda_blocks(dT->ncab), SIM_CUDA_BLOCK, 0, s>>>(nc, *dT, rows, k->d);
  }
  SIM_CU(cudaGetLastError(), st);
  k->b_nc = nc, k->b_ncab = dT->ncab;
  return SIM_OK;
}

static int diag_only(sim_cuda_delassus *k, int nc, const sim_delassus_terms *dT, sim_status *st) {
  cudaStream_t s = k->mem.stream;
  const int *kc = k->kc;
  double *d = k->d;
  k_diag<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, s>>>(nc, k->cd, *dT, k->cols, kc, d);
  if (dT->ncab > 0)
    k_diag_cable<<<sim_cuda_blocks(dT->ncab), SIM_CUDA_BLOCK, 0, s>>>(*dT, k->cols, kc, d);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

extern "C" int sim_cuda_delassus_build(sim_cuda_delassus *k, const sim_contact *c, int nc,
                                       const int *free_of, int dense, size_t max_bytes,
                                       double *diag, sim_status *st) {
  return sim_cuda_delassus_build_on(k, c, NULL, NULL, nc, free_of, dense, max_bytes, diag, st);
}

extern "C" int sim_cuda_delassus_build_on(sim_cuda_delassus *k, const sim_contact *c,
                                          const sim_contact *dev_c, const int *dev_free_of,
                                          int nc, const int *free_of, int dense,
                                          size_t max_bytes, double *diag, sim_status *st) {
  k->w_nc = k->b_nc = -1;
  k->m_step = nc <= 0 ? 0 : -1;
  if (nc <= 0) return SIM_OK;
  if (!k->cols.col_ptr)
    return sim_fail(st, SIM_ERR_INTERNAL, "Delassus operator on the device: no S given");
  if (!dev_c != !dev_free_of)
    return sim_fail(st, SIM_ERR_INTERNAL, "Delassus operator: device contacts without free_of");
  sim_delassus_terms T = {0}, dT;
  int rc = dev_c ? device_terms(k, c, dev_c, dev_free_of, nc, free_of, &dT, st)
                 : sim_delassus_terms_build(c, nc, free_of, k->n, &T, st);
  const int m = dev_c ? dT.m : T.m, blocks = dense == SIM_CUDA_W_BLOCKS;
  size_t need = blocks ? sim_delassus_blocks_bytes(nc, m, k->n, dev_c ? dT.ncab : T.ncab)
                       : sim_delassus_bytes(nc, m, k->n);
  if (!rc && dense && max_bytes > 0 && need > max_bytes)
    rc = sim_delassus_refuse(nc, m, need, max_bytes, st);
  if (!rc && !dev_c) rc = upload_terms(k, c, nc, &T, &dT, st);
  if (!rc)
    rc = blocks  ? blocks_w(k, nc, &dT, st)
         : dense ? dense_w(k, nc, &dT, st)
                 : diag_only(k, nc, &dT, st);
  if (!rc) k->m_step = m;
  sim_delassus_terms_free(&T);
  if (rc) return rc;
  if (!diag) {
    SIM_CU(cudaGetLastError(), st);
    return SIM_OK;
  }
  SIM_CU(cudaMemcpyAsync(diag, k->d, sizeof(double) * 3 * (size_t)nc, cudaMemcpyDeviceToHost,
                         k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return SIM_OK;
}

extern "C" const double *sim_cuda_delassus_diag(const sim_cuda_delassus *k) { return k->d; }

extern "C" int sim_cuda_delassus_solve_cols(sim_cuda_delassus *k, const double *g, double *x,
                                            sim_status *st) {
  int rc = sim_cuda_wcols_build(&k->mem, &k->wc, k, st);
  if (rc) return rc;
  const size_t n = (size_t)k->n;
  if (!k->ident.p || k->ident.bytes < sizeof(int) * n) {
    int *id = SIM_NEW(int, n + 1);
    if (!id) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (matrix-free W's test)");
    for (size_t u = 0; u < n; u++) id[u] = (int)u;
    rc = put(k, &k->ident, id, sizeof(int) * n, st);
    sim_free(id); /* staged: no wait (upload_terms) */
  }
  if (!rc) rc = put(k, &k->tg, g, sizeof(double) * 3 * n, st);
  if (!rc) rc = put(k, &k->tx, x, sizeof(double) * 3 * n, st);
  if (!rc)
    rc = sim_cuda_wcols_apply(&k->mem, &k->wc, (const double *)k->tg.p, 0, (const int *)k->ident.p,
                              (double *)k->tx.p, 0, 1, NULL, st);
  if (rc) return rc;
  SIM_CU(cudaMemcpyAsync(x, k->tx.p, sizeof(double) * 3 * n, cudaMemcpyDeviceToHost, k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return SIM_OK;
}

extern "C" int sim_cuda_delassus_vertices(const sim_cuda_delassus *k, struct sim_delassus_cols *S,
                                          int *n, int *m, const int **kc, const int **ip) {
  if (k->m_step < 0 || !k->cols.col_ptr) return -1;
  *S = k->cols, *n = k->n, *m = k->m_step, *kc = k->kc, *ip = k->ip;
  return 0;
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

extern "C" int sim_cuda_delassus_blocks(const sim_cuda_delassus *k, sim_cuda_wblocks *B) {
  if (k->b_nc < 0) return -1;
  B->nc = k->b_nc, B->ncab = k->b_ncab;
  B->G = (const double *)k->G.p, B->frame = (const double *)k->frame.p;
  B->cab_j = (const int *)k->cab_j.p, B->cab_row = (const double *)k->cab_row.p;
  return 0;
}

extern "C" int sim_cuda_delassus_download_blocks(sim_cuda_delassus *k, double *G, double *frame,
                                                 double *cab_row, sim_status *st) {
  if (k->b_nc < 0) return sim_fail(st, SIM_ERR_INTERNAL, "no Delassus block form to copy");
  const size_t nc = (size_t)k->b_nc, nr = (size_t)k->b_ncab * 3 * nc;
  cudaStream_t s = k->mem.stream;
  SIM_CU(cudaMemcpyAsync(G, k->G.p, sizeof(double) * nc * nc, cudaMemcpyDeviceToHost, s), st);
  SIM_CU(cudaMemcpyAsync(frame, k->frame.p, sizeof(double) * 9 * nc, cudaMemcpyDeviceToHost, s),
         st);
  if (nr > 0)
    SIM_CU(cudaMemcpyAsync(cab_row, k->cab_row.p, sizeof(double) * nr, cudaMemcpyDeviceToHost, s),
           st);
  SIM_CU(cudaStreamSynchronize(s), st);
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
  k->w_nc = k->b_nc = -1;
  k->m_step = -1;
  k->wc.m = -1;
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
  dev_buf *b[] = {&k->own_ptr, &k->own_row, &k->own_val, &k->cab_j,   &k->cab_ptr, &k->cab_loc,
                  &k->cab_g,   &k->c,       &k->K,       &k->G,       &k->W,       &k->flag,
                  &k->loc,     &k->dip,     &k->scan,    &k->cab_unk, &k->tg,      &k->tx,
                  &k->ident,   &k->frame,   &k->cab_row};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) release(k, b[i]);
  sim_cuda_group_free(&k->mem, &k->terms);
  sim_cuda_wcols_free(&k->mem, &k->wc);
  if (k->own_stream) cudaStreamDestroy(k->mem.stream);
  sim_free(k->ip);
  sim_free(k->stamp);
  sim_free(k);
}

// SPDX-License-Identifier: MIT
// Positions for collision detection (sim_backend.detect_download): where the device detector
// reads twins (detect_cuda.h), a download leaves a twin of each host array (a device copy of
// the vector, queued) and copies down only the vertices the host reads (the constraint pins'
// and the cables' at q_t, and the cables' at q~, the first of the list: core/contact/world.h
// sim_world_host_reads): gathered on the device into a short array, each vector's in its own
// part of it, copied to page-locked memory, one wait for them all. A scene without them waits for nothing and
// copies nothing to the host: q_t, q~ and the step's end stay on the device. Elsewhere
// (detection on the host, SIMCTL_CUDA_TWINS=off) the whole vectors are downloaded.
#include <string.h>

#include "cuda_ctx.h"
#include "detect_cuda.h"
#include "range_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
}

// out[3 i + k] = x[3 vert[i] + k]
static __global__ void k_gather(int n, const int *vert, const double *x, double *out) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  size_t v = 3 * (size_t)vert[i];
  for (int k = 0; k < 3; k++) out[3 * (size_t)i + k] = x[v + k];
}

// How many of the n listed vertices a vector's read count asks for.
static int listed(int read, int n) { return read < 0 ? 0 : read < n ? read : n; }

// The list on the device for verts[0..n), kept while the caller's list stays the same (the
// world's, fixed for the run), and buffers for `nvec` vectors' positions there.
static int bind_list(cuda_ctx *c, cuda_reads *r, const int *verts, int n, int nvec,
                     sim_status *st) {
  if (r->n == n && r->cap >= nvec && r->host_vert &&
      memcmp(r->host_vert, verts, sizeof(int) * (size_t)n) == 0)
    return SIM_OK;
  sim_cuda_reads_free(c, r);
  r->host_vert = SIM_NEW(int, n);
  if (!r->host_vert) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d positions)", n);
  memcpy(r->host_vert, verts, sizeof(int) * (size_t)n);
  r->n = n;
  r->cap = nvec;
  const size_t len = 3 * (size_t)n * (size_t)nvec;
  int rc = sim_cuda_new<int>(c, &r->vert, (size_t)n, verts, st);
  if (!rc) rc = sim_cuda_new<double>(c, &r->dev, len, NULL, st);
  if (!rc) rc = sim_cuda_host_alloc((void **)&r->host, sizeof(double) * len, &r->pageable, st);
  return rc;
}

int sim_cuda_detect_download(sim_backend *be, int nvec, const sim_vec_id *ids,
                              double *const *hosts, const int *read, const int *verts,
                              int nverts, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  sim_cuda_range range("detect: positions for the host");
  const size_t n3 = 3 * (size_t)c->m->n;
  int rc = SIM_OK, nread = 0; // vectors read
  size_t len = 0;              // doubles copied down
  if (!c->det || !c->twins) { /* detection on the host: the whole vectors */
    for (int j = 0; !rc && j < nvec; j++) rc = be->download(be, ids[j], hosts[j], st);
    return rc;
  }
  for (int j = 0; !rc && j < nvec; j++) {
    rc = sim_cuda_detect_keep(c->det, hosts[j], c->vec[ids[j]], n3, st);
    const int k = listed(read[j], nverts);
    nread += k > 0;
    len += 3 * (size_t)k;
  }
  if (rc) return rc;
  if (nverts <= 0 || nread == 0) { /* nothing for the host: no wait */
    SIM_CU(cudaGetLastError(), st);
    return SIM_OK;
  }
  cuda_reads *r = &c->reads;
  if ((rc = bind_list(c, r, verts, nverts, nread, st))) return rc;
  size_t at = 0; // each vector's part: its first k listed vertices
  {
    sim_cuda_dev_range range(c->stream, "detect: positions for the host");
    for (int j = 0; j < nvec; j++) {
      const int k = listed(read[j], nverts);
      if (k > 0)
        k_gather<<<sim_cuda_blocks(k), SIM_CUDA_BLOCK, 0, c->stream>>>(k, r->vert, c->vec[ids[j]],
                                                                       r->dev + at);
      at += 3 * (size_t)k;
    }
    SIM_CU(cudaGetLastError(), st);
    SIM_CU(
        cudaMemcpyAsync(r->host, r->dev, sizeof(double) * len, cudaMemcpyDeviceToHost, c->stream),
        st);
  }
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  sim_cuda_ranges_resolve();
  at = 0;
  for (int j = 0; j < nvec; j++) {
    const int k = listed(read[j], nverts);
    const double *got = r->host + at;
    for (int i = 0; i < k; i++)
      for (int d = 0; d < 3; d++) hosts[j][3 * (size_t)verts[i] + d] = got[3 * (size_t)i + d];
    at += 3 * (size_t)k;
  }
  return SIM_OK;
}

int sim_cuda_detect_complete(sim_backend *be, double *host, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  if (!c->det || !c->twins) return SIM_OK; /* detect_download gave whole vectors */
  return sim_cuda_detect_fetch(c->det, host, 3 * (size_t)c->m->n, st);
}

void sim_cuda_reads_free(cuda_ctx *c, cuda_reads *r) {
  sim_cuda_release(c, r->vert, sizeof(int) * (size_t)r->n);
  sim_cuda_release(c, r->dev, sizeof(double) * 3 * (size_t)r->n * (size_t)r->cap);
  sim_cuda_host_free(r->host, r->pageable);
  sim_free(r->host_vert);
  memset(r, 0, sizeof *r);
}

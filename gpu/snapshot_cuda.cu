// SPDX-License-Identifier: MIT
// The CUDA backend's output snapshots (core/solve/backend.h snapshot, snapshot_get). On the
// backend's stream: the energy densities, then q, v and the densities copied into one device
// buffer; on a second stream, after the first has taken them, that buffer copied to page-locked
// host memory. The frames that follow run while it travels; the host waits only in
// snapshot_get, and a next snapshot overwrites the device buffer only after the copy has left.
#include <string.h>

#include "cuda_ctx.h"

static size_t snap_len(const sim_model *m) { return 6 * (size_t)m->n + (size_t)m->nelem; }

// The stream, the events and both buffers, on the first snapshot.
static int snap_open(cuda_ctx *c, sim_status *st) {
  cuda_snap *s = &c->snap;
  if (s->host) return SIM_OK;
  size_t bytes = sizeof(double) * snap_len(c->m);
  SIM_CU(cudaStreamCreate(&s->copy), st);
  SIM_CU(cudaEventCreate(&s->taken), st);
  SIM_CU(cudaEventCreate(&s->landed), st);
  int rc = sim_cuda_new<double>(c, &s->dev, snap_len(c->m), NULL, st);
  return rc ? rc : sim_cuda_host_alloc((void **)&s->host, bytes, &s->pageable, st);
}

int sim_cuda_snapshot(sim_backend *be, int q_only, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  int rc = snap_open(c, st);
  if (!rc && !q_only) rc = sim_cuda_energy_queue(c, st);
  if (rc) return rc;
  cuda_snap *s = &c->snap;
  size_t n3 = 3 * (size_t)m->n, len = q_only ? n3 : snap_len(m);
  cudaStream_t sm = c->stream;
  SIM_CU(cudaStreamWaitEvent(sm, s->landed, 0), st); /* the last snapshot has left `dev` */
  SIM_CU(
      cudaMemcpyAsync(s->dev, c->vec[SIM_VEC_Q], sizeof(double) * n3, cudaMemcpyDeviceToDevice, sm),
      st);
  if (!q_only) {
    SIM_CU(cudaMemcpyAsync(s->dev + n3, c->vec[SIM_VEC_V], sizeof(double) * n3,
                           cudaMemcpyDeviceToDevice, sm),
           st);
    if (m->nelem > 0)
      SIM_CU(cudaMemcpyAsync(s->dev + 2 * n3, c->dens, sizeof(double) * (size_t)m->nelem,
                             cudaMemcpyDeviceToDevice, sm),
             st);
  }
  SIM_CU(cudaEventRecord(s->taken, sm), st);
  SIM_CU(cudaStreamWaitEvent(s->copy, s->taken, 0), st);
  SIM_CU(cudaMemcpyAsync(s->host, s->dev, sizeof(double) * len, cudaMemcpyDeviceToHost, s->copy),
         st);
  SIM_CU(cudaEventRecord(s->landed, s->copy), st);
  s->q_only = q_only;
  s->taken_once = 1;
  return SIM_OK;
}

int sim_cuda_snapshot_get(sim_backend *be, sim_snapshot *out, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  cuda_snap *s = &c->snap;
  memset(out, 0, sizeof *out);
  if (!s->taken_once) return sim_fail(st, SIM_ERR_USAGE, "snapshot_get: no snapshot was taken");
  SIM_CU(cudaEventSynchronize(s->landed), st);
  SIM_CU(cudaGetLastError(), st);
  size_t n3 = 3 * (size_t)c->m->n;
  out->q = s->host;
  if (!s->q_only) {
    out->v = s->host + n3;
    out->dens = s->host + 2 * n3;
  }
  return SIM_OK;
}

void sim_cuda_snapshot_destroy(cuda_ctx *c) {
  cuda_snap *s = &c->snap;
  if (s->copy) cudaStreamSynchronize(s->copy);
  sim_cuda_host_free(s->host, s->pageable);
  sim_cuda_release(c, s->dev, sizeof(double) * snap_len(c->m));
  if (s->taken) cudaEventDestroy(s->taken);
  if (s->landed) cudaEventDestroy(s->landed);
  if (s->copy) cudaStreamDestroy(s->copy);
  memset(s, 0, sizeof *s);
}

// SPDX-License-Identifier: MIT
// Device twins of host position arrays (twins_cuda.h).
#include <string.h>

#include "twins_cuda.h"

static int slot_of(const cuda_twins *t, const double *host) {
  for (int i = 0; i < SIM_CUDA_TWINS; i++)
    if (t->host[i] == host) return i;
  return -1;
}

int sim_cuda_twins_keep(cuda_ctx *mem, cuda_twins *t, const double *host, const double *dev,
                        size_t n, sim_status *st) {
  int s = slot_of(t, host);
  if (s < 0) s = slot_of(t, NULL); /* a free slot, else the least recently used */
  if (s < 0) {
    s = 0;
    for (int i = 1; i < SIM_CUDA_TWINS; i++)
      if (t->used[i] < t->used[s]) s = i;
  }
  t->host[s] = NULL; /* no twin until the copy is queued */
  if (n > t->cap[s]) {
    sim_cuda_release(mem, t->dev[s], sizeof(double) * t->cap[s]);
    t->dev[s] = NULL, t->cap[s] = 0;
    int rc = sim_cuda_new<double>(mem, &t->dev[s], n, NULL, st);
    if (rc) return rc;
    t->cap[s] = n;
  }
  SIM_CU(cudaMemcpyAsync(t->dev[s], dev, sizeof(double) * n, cudaMemcpyDeviceToDevice, mem->stream),
         st);
  t->host[s] = host, t->len[s] = n, t->used[s] = ++t->clock;
  return SIM_OK;
}

int sim_cuda_twins_get(cuda_ctx *mem, cuda_twins *t, const double *host, size_t n, double *scratch,
                       const double **out, sim_status *st) {
  int s = t ? slot_of(t, host) : -1;
  if (s >= 0 && t->len[s] == n) {
    t->used[s] = ++t->clock;
    t->hits++;
    *out = t->dev[s];
    return SIM_OK;
  }
  if (t) t->misses++;
  SIM_CU(cudaMemcpyAsync(scratch, host, sizeof(double) * n, cudaMemcpyHostToDevice, mem->stream),
         st);
  *out = scratch;
  return SIM_OK;
}

int sim_cuda_twins_fetch(cuda_ctx *mem, cuda_twins *t, double *host, size_t n, sim_status *st) {
  int s = slot_of(t, host);
  if (s < 0 || t->len[s] != n)
    return sim_fail(st, SIM_ERR_DEVICE, "no device copy of the positions asked for (%zu doubles)",
                    n);
  SIM_CU(cudaMemcpyAsync(host, t->dev[s], sizeof(double) * n, cudaMemcpyDeviceToHost, mem->stream),
         st);
  SIM_CU(cudaStreamSynchronize(mem->stream), st);
  return SIM_OK;
}

void sim_cuda_twins_free(cuda_ctx *mem, cuda_twins *t) {
  for (int i = 0; i < SIM_CUDA_TWINS; i++)
    sim_cuda_release(mem, t->dev[i], sizeof(double) * t->cap[i]);
  memset(t, 0, sizeof *t);
}

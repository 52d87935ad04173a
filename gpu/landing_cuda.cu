// SPDX-License-Identifier: MIT
// Found contacts down with one wait where they fit a guess (landing_cuda.h).
#include <string.h>

#include "landing_cuda.h"

size_t sim_cuda_landing_guess(const cuda_landing *l, size_t avail) {
  size_t g = l->guess > SIM_CUDA_LANDING_MIN ? l->guess : SIM_CUDA_LANDING_MIN;
  return g < avail ? g : avail;
}

static int reserve(cuda_landing *l, size_t n, sim_status *st) {
  if (l->count && n <= l->cap) return SIM_OK;
  size_t cap = l->cap ? l->cap : SIM_CUDA_LANDING_MIN;
  while (cap < n) cap *= 2;
  sim_cuda_landing_free(l);
  /* one block: the count, then the contacts (aligned as the block is) */
  void *p = NULL;
  int rc = sim_cuda_host_alloc(&p, sizeof(sim_contact) * (cap + 1), &l->pageable, st);
  if (rc) return rc;
  l->count = (int *)p;
  l->c = (sim_contact *)p + 1;
  l->cap = cap;
  return SIM_OK;
}

int sim_cuda_landing_queue(cuda_landing *l, cudaStream_t s, const int *dev_count,
                           const sim_contact *dev_c, size_t n, sim_status *st) {
  int rc = reserve(l, n, st);
  if (rc) return rc;
  SIM_CU(cudaMemcpyAsync(l->count, dev_count, sizeof(int), cudaMemcpyDeviceToHost, s), st);
  if (n > 0)
    SIM_CU(cudaMemcpyAsync(l->c, dev_c, sizeof(sim_contact) * n, cudaMemcpyDeviceToHost, s), st);
  return SIM_OK;
}

int sim_cuda_landing_take(cuda_landing *l, size_t n, sim_detect_contacts *out, int *count,
                          int *more, sim_status *st) {
  const int total = *l->count;
  *count = total, *more = (size_t)total > n;
  const size_t more4 = (size_t)total / 4;
  l->guess = (size_t)total + (more4 < SIM_CUDA_LANDING_SLACK ? more4 : SIM_CUDA_LANDING_SLACK);
  if (*more) l->waits++;
  if (sim_detect_contacts_reserve(out, total, st)) return st->code;
  size_t have = (size_t)total < n ? (size_t)total : n;
  if (have > 0) memcpy(out->c, l->c, sizeof(sim_contact) * have);
  return SIM_OK;
}

void sim_cuda_landing_free(cuda_landing *l) {
  if (l->count) sim_cuda_host_free(l->count, l->pageable);
  l->count = NULL, l->c = NULL, l->cap = 0;
}

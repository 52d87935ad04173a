// SPDX-License-Identifier: MIT
// Device copies of BVHs and their refit (bvh_cuda.h).
#include <cub/device/device_scan.cuh>

#include "bvh_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
}

int sim_cuda_block_new(cuda_blocks *k, void **p, size_t bytes, const void *host, sim_status *st) {
  if (k->n == k->cap) {
    int cap = k->cap ? 2 * k->cap : 32;
    dev_block *b = (dev_block *)sim_realloc(k->b, sizeof(dev_block) * (size_t)cap);
    if (!b) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
    k->b = b, k->cap = cap;
  }
  int rc = sim_cuda_alloc(k->mem, p, bytes, host, st);
  if (!rc) k->b[k->n].p = *p, k->b[k->n++].bytes = bytes;
  return rc;
}

void sim_cuda_blocks_free(cuda_blocks *k) {
  for (int i = 0; i < k->n; i++) sim_cuda_release(k->mem, k->b[i].p, k->b[i].bytes);
  sim_free(k->b);
  k->b = NULL, k->n = k->cap = 0;
}

int sim_cuda_scan_space(cuda_blocks *k, int *count, int *offset, int n, void **tmp, size_t *bytes,
                        sim_status *st) {
  *bytes = 0;
  SIM_CU(cub::DeviceScan::ExclusiveSum(NULL, *bytes, count, offset, n, k->mem->stream), st);
  return sim_cuda_block_new(k, tmp, *bytes, NULL, st);
}

static __global__ void k_refit(sim_bvh_node *node, const int *tri, const double *x,
                               const double *x2, const int *order, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) sim_bvh_refit_node(node, tri, x, x2, order[t]);
}

// Levels first .. last - 1 of the schedule (order[seg[i] .. seg[i + 1]) for each) in one block,
// a barrier between levels: a node's children were written by this block before the barrier.
static __global__ void __launch_bounds__(SIM_REFIT_THREADS)
    k_refit_levels(sim_bvh_node *node, const int *tri, const double *x, const double *x2,
                   const int *order, const int *seg, int first, int last) {
  for (int i = first; i < last; i++) {
    for (int t = seg[i] + (int)threadIdx.x; t < seg[i + 1]; t += blockDim.x)
      sim_bvh_refit_node(node, tri, x, x2, order[t]);
    __syncthreads();
  }
}

// The refit schedule of tree b: leaves, then inner nodes deepest level first; the levels from
// t->one_block on hold at most SIM_REFIT_LEVEL_NODES nodes each.
static int refit_order(const sim_bvh *b, dev_tree *t, cuda_blocks *k, sim_status *st) {
  const int n = b->nnodes;
  int *depth = SIM_NEW0(int, n + 1), *order = SIM_NEW(int, n + 1);
  int maxd = 0, rc = SIM_OK;
  if (!depth || !order) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
    goto done;
  }
  for (int i = 0; i < n; i++) /* pre-order: a parent comes before its children */
    if (b->node[i].count == 0) {
      depth[i + 1] = depth[b->node[i].first] = depth[i] + 1;
      if (depth[i] + 1 > maxd) maxd = depth[i] + 1;
    }
  t->seg = SIM_NEW(int, maxd + 2);
  if (!t->seg) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
    goto done;
  }
  t->nseg = 0;
  {
    int m = 0;
    t->seg[0] = 0;
    for (int i = 0; i < n; i++)
      if (b->node[i].count > 0) order[m++] = i;
    t->seg[++t->nseg] = m;
    for (int d = maxd; d >= 0; d--) {
      for (int i = 0; i < n; i++)
        if (b->node[i].count == 0 && depth[i] == d) order[m++] = i;
      if (m > t->seg[t->nseg]) t->seg[++t->nseg] = m;
    }
  }
  t->one_block = t->nseg;
  while (t->one_block > 1 &&
         t->seg[t->one_block] - t->seg[t->one_block - 1] <= SIM_REFIT_LEVEL_NODES)
    t->one_block--;
  rc = sim_cuda_block(k, &t->order, (size_t)n, order, st);
  if (!rc) rc = sim_cuda_block(k, &t->dseg, (size_t)t->nseg + 1, t->seg, st);
done:
  sim_free(depth);
  sim_free(order);
  return rc;
}

int sim_cuda_tree_copy(cuda_blocks *k, const sim_bvh *b, const int *in_tri, int refit, dev_tree *t,
                       sim_status *st) {
  t->nnodes = b->nnodes, t->nt = b->nt;
  int rc = sim_cuda_block(k, &t->node, (size_t)b->nnodes, b->node, st);
  if (!rc) rc = sim_cuda_block(k, &t->tri, 3 * (size_t)b->nt, b->tri, st);
  if (!rc) rc = sim_cuda_block(k, &t->id, (size_t)b->nt, b->id, st);
  if (!rc && in_tri) rc = sim_cuda_block(k, &t->in_tri, 3 * (size_t)b->nt, in_tri, st);
  if (!rc && refit && b->nnodes > 0) rc = refit_order(b, t, k, st);
  return rc;
}

void sim_cuda_tree_free(dev_tree *t) {
  sim_free(t->seg);
  t->seg = NULL;
}

int sim_cuda_tree_refit(const dev_tree *t, const double *x, const double *x2, cudaStream_t s,
                        sim_status *st) {
  for (int i = 0; i < t->one_block; i++) { /* the leaves and the widest levels: a launch each */
    const int n = t->seg[i + 1] - t->seg[i];
    k_refit<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, s>>>(t->node, t->tri, x, x2,
                                                          t->order + t->seg[i], n);
  }
  if (t->one_block < t->nseg)
    k_refit_levels<<<1, SIM_REFIT_THREADS, 0, s>>>(t->node, t->tri, x, x2, t->order, t->dseg,
                                                   t->one_block, t->nseg);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

sim_bvh_view sim_cuda_tree_view(const dev_tree *t) {
  sim_bvh_view v = {t->nnodes, t->node, t->tri, t->id};
  return v;
}

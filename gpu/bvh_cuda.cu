// SPDX-License-Identifier: MIT
// Device copies of BVHs and their refit (bvh_cuda.h).
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "bvh_cuda.h"
#include "pdl.cuh"

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

// Level `level` of each tree of the forest (grid y) below its one_block: a thread per node.
static __global__ void k_refit_level(const dev_tree_ref *tr, int level, const double *x,
                                     const double *x2) {
  SIM_PDL_WAIT();
  const dev_tree_ref r = tr[blockIdx.y];
  if (level >= r.one_block) return;
  const int t = r.dseg[level] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (t < r.dseg[level + 1]) sim_bvh_refit_node(r.node, r.tri, x, x2, r.order[t]);
}

// Each tree's levels from one_block up (a block per tree), a barrier between levels: a node's
// children were written by this block before the barrier.
static __global__ void __launch_bounds__(SIM_REFIT_THREADS)
    k_refit_levels(const dev_tree_ref *tr, const double *x, const double *x2) {
  SIM_PDL_WAIT();
  const dev_tree_ref r = tr[blockIdx.x];
  for (int i = r.one_block; i < r.nseg; i++) {
    for (int t = r.dseg[i] + (int)threadIdx.x; t < r.dseg[i + 1]; t += blockDim.x)
      sim_bvh_refit_node(r.node, r.tri, x, x2, r.order[t]);
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
  t->ring_lo = b->ring_lo, t->ring_n = b->ring_n;
  if (!rc && b->ring_ptr)
    rc = sim_cuda_block(k, &t->ring_ptr, (size_t)b->ring_n + 1, b->ring_ptr, st);
  if (!rc && b->ring) rc = sim_cuda_block(k, &t->ring, (size_t)b->ring_ptr[b->ring_n], b->ring, st);
  if (!rc && b->edge_f) rc = sim_cuda_block(k, &t->edge_f, 3 * (size_t)b->nt, b->edge_f, st);
  if (!rc && refit && b->nnodes > 0) rc = refit_order(b, t, k, st);
  return rc;
}

void sim_cuda_tree_free(dev_tree *t) {
  sim_free(t->seg);
  t->seg = NULL;
}

int sim_cuda_flags_bind(cuda_blocks *k, dev_flags *f, size_t n, sim_status *st) {
  sim_cuda_flags_free(f);
  f->was = SIM_NEW0(unsigned char, n + 1);
  if (!f->was) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  f->n = n;
  return sim_cuda_block(k, &f->dev, n, (const unsigned char *)NULL, st); /* zero */
}

int sim_cuda_flags_sync(dev_flags *f, const unsigned char *host, cudaStream_t s, sim_status *st) {
  if (f->n == 0 || !memcmp(f->was, host, f->n)) return SIM_OK;
  SIM_CU(cudaMemcpyAsync(f->dev, host, f->n, cudaMemcpyHostToDevice, s), st);
  memcpy(f->was, host, f->n);
  return SIM_OK;
}

void sim_cuda_flags_free(dev_flags *f) {
  sim_free(f->was);
  memset(f, 0, sizeof *f);
}

int sim_cuda_forest_make(cuda_blocks *k, const dev_tree *t, int n, dev_forest *f, sim_status *st) {
  memset(f, 0, sizeof *f);
  dev_tree_ref *h = SIM_NEW0(dev_tree_ref, (size_t)n + 1);
  int rc = h ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  for (int i = 0; !rc && i < n; i++) {
    if (!t[i].seg) continue; /* no refit schedule: no triangles */
    dev_tree_ref *r = &h[f->n++];
    r->node = t[i].node, r->tri = t[i].tri, r->order = t[i].order, r->dseg = t[i].dseg;
    r->one_block = t[i].one_block, r->nseg = t[i].nseg;
    if (t[i].one_block > f->wide) f->wide = t[i].one_block;
    f->blocked |= t[i].one_block < t[i].nseg;
  }
  if (!rc && f->wide > 0) {
    f->most = SIM_NEW0(int, (size_t)f->wide);
    if (!f->most) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  }
  for (int i = 0; !rc && i < n; i++)
    for (int l = 0; t[i].seg && l < t[i].one_block; l++) {
      const int m = t[i].seg[l + 1] - t[i].seg[l];
      if (m > f->most[l]) f->most[l] = m;
    }
  if (!rc && f->n > 0) rc = sim_cuda_block(k, &f->ref, (size_t)f->n, (const dev_tree_ref *)h, st);
  sim_free(h);
  if (rc) sim_cuda_forest_free(f);
  return rc;
}

void sim_cuda_forest_free(dev_forest *f) {
  sim_free(f->most);
  memset(f, 0, sizeof *f);
}

int sim_cuda_forest_refit(const dev_forest *f, const double *x, const double *x2, cudaStream_t s,
                          sim_status *st) {
  if (f->n == 0) return SIM_OK;
  for (int l = 0; l < f->wide; l++) /* the leaves and the widest levels: a launch each, */
    for (int at = 0; at < f->n; at += 65535) { /* of at most 65,535 trees (grid y's limit) */
      const dim3 g(sim_cuda_blocks(f->most[l]), (unsigned)(f->n - at < 65535 ? f->n - at : 65535));
      k_refit_level<<<g, SIM_CUDA_BLOCK, 0, s>>>(f->ref + at, l, x, x2);
    }
  if (f->blocked) k_refit_levels<<<f->n, SIM_REFIT_THREADS, 0, s>>>(f->ref, x, x2);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

sim_bvh_view sim_cuda_tree_view(const dev_tree *t) {
  sim_bvh_view v = {t->nnodes, t->node,     t->tri,  t->id,    t->ring_lo,
                    t->ring_n, t->ring_ptr, t->ring, t->edge_f};
  return v;
}

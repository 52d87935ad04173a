// SPDX-License-Identifier: MIT
// What the CUDA detectors (detect_cuda.cu, points_cuda.cu) share, private to gpu/: a set of
// device arrays freed together, a BVH's arrays (core/contact/bvh.h) copied into it, the refit
// of a deformable body's tree on the device (the leaves, then the levels above them), and the
// workspace of the scan that places each thread's contacts.
#ifndef SIM_GPU_BVH_CUDA_H
#define SIM_GPU_BVH_CUDA_H
#include "cuda_ctx.h"

extern "C" {
#include "../core/contact/bvh_query.h"
}

typedef struct dev_block {  // a device array of a set, freed with it
  void *p;
  size_t bytes;
} dev_block;

// Device arrays allocated through mem (its byte count) and freed together.
typedef struct cuda_blocks {
  cuda_ctx *mem;
  dev_block *b;
  int n, cap;
} cuda_blocks;

int sim_cuda_block_new(cuda_blocks *k, void **p, size_t bytes, const void *host, sim_status *st);
void sim_cuda_blocks_free(cuda_blocks *k);
// The workspace (in k) of CUB's exclusive scan of n ints from count into offset, on k's stream.
int sim_cuda_scan_space(cuda_blocks *k, int *count, int *offset, int n, void **tmp, size_t *bytes,
                        sim_status *st);

// n elements, copied from host unless it is NULL.
template <class T>
static int sim_cuda_block(cuda_blocks *k, T **p, size_t n, const T *host, sim_status *st) {
  return sim_cuda_block_new(k, (void **)p, sizeof(T) * n, host, st);
}

// A refit's levels of at most this many nodes run in one block of SIM_REFIT_THREADS threads, a
// barrier between levels, instead of a launch each (about 2.5 us a launch on an H200, whatever
// its size): a tree of up to about 16,000 triangles refits in two launches, the leaves and the
// rest, where it took one per level (13 for a cloth of 5,000 triangles).
#define SIM_REFIT_LEVEL_NODES 2048
#define SIM_REFIT_THREADS 1024

// One BVH on the device. A refit tree's `order` lists the leaves, then the inner nodes by level,
// deepest first; level i is order[seg[i] .. seg[i + 1]) (level 0: the leaves). Levels below
// one_block run as a launch each, the others in one block.
typedef struct dev_tree {
  int nnodes, nt, nseg, one_block;
  sim_bvh_node *node;
  int *tri, *id, *in_tri;  // slot order, slot ids, input order (NULL where not asked for)
  int ring_lo, ring_n;
  int *ring_ptr, *ring;  // the triangles at each vertex (core/contact/bvh.h)
  unsigned char *edge_f;  // each slot's edges' places (core/contact/bvh.h)
  int *order;
  int *seg;   // host, nseg + 1
  int *dseg;  // its device copy
} dev_tree;

// b's arrays into k: in_tri (the triangles in input order, or NULL: none) and, with refit, the
// refit schedule.
int sim_cuda_tree_copy(cuda_blocks *k, const sim_bvh *b, const int *in_tri, int refit, dev_tree *t,
                       sim_status *st);
void sim_cuda_tree_free(dev_tree *t);  // its host array (the device ones belong to the set)
sim_bvh_view sim_cuda_tree_view(const dev_tree *t);

// Per-vertex flags (the pinned vertices), an input of every detection run, on the device: the
// host's copy of what went up last, so that a run copies them up only where they changed
// (before 2026-11-28 every pass did: on the grabbing_raptor stand-in 31 kB a frame of its 42 kB
// to the device, three pageable copies).
typedef struct dev_flags {
  unsigned char *dev;  // n, in the set it was bound to
  unsigned char *was;  // host, n: what dev holds
  size_t n;
} dev_flags;

// n flags on the device (in k's set), zero there and in the host's copy.
int sim_cuda_flags_bind(cuda_blocks *k, dev_flags *f, size_t n, sim_status *st);
// The flags to `host`'s, copied up (queued on s, staged before it returns) where they differ.
int sim_cuda_flags_sync(dev_flags *f, const unsigned char *host, cudaStream_t s, sim_status *st);
void sim_cuda_flags_free(dev_flags *f);  // the host's copy

// What a refit kernel reads of one tree of a forest (device copies).
typedef struct dev_tree_ref {
  sim_bvh_node *node;
  const int *tri, *order, *dseg;
  int one_block, nseg;
} dev_tree_ref;

// The refit trees of a detector (all the bodies' trees, on the same positions), refit together:
// level i (i < one_block) of every tree in one launch, a row of blocks per tree (grid y), so
// the leaves of all of them in one launch; then every tree's levels from one_block up in one
// launch, a block per tree, side by side. A launch per level below one_block, and one for the
// rest, whatever the number of trees: before 2026-11-28 each tree took its own two launches
// (soft_box_on_slab's two bodies, three passes a step: 12 refit launches a frame, now 6).
typedef struct dev_forest {
  int n;              // trees with a refit schedule (a tree without triangles has none)
  int wide;           // the most levels below one_block of any of them
  int blocked;        // 1 where some tree has levels from one_block up
  int *most;          // host, wide: the most nodes of any tree at each of those levels
  dev_tree_ref *ref;  // device, n (in k's set)
} dev_forest;

// The forest of trees t[0 .. n) (those of them with a refit schedule) into k.
int sim_cuda_forest_make(cuda_blocks *k, const dev_tree *t, int n, dev_forest *f, sim_status *st);
void sim_cuda_forest_free(dev_forest *f);  // its host array
// Every tree's boxes to positions x (device), and to x2 too unless it is NULL (a swept tree,
// bvh.h sim_bvh_refit_swept), queued on s.
int sim_cuda_forest_refit(const dev_forest *f, const double *x, const double *x2, cudaStream_t s,
                          sim_status *st);

#endif

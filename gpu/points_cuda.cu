// SPDX-License-Identifier: MIT
// The obstacle points' pass on the device (points_cuda.h).
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "bvh_cuda.h"
#include "landing_cuda.h"
#include "pdl.cuh"
#include "points_cuda.h"
#include "range_cuda.h"
#include "twins_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/detect_point.h"
}

#define SLOTS (1 + SIM_POINT_FOLDS)  // a point's contacts at most: its first and in folds
static_assert(2 + 4 * SIM_POINT_FOLDS <= 255, "a point's flag (k_points) is one byte");

struct cuda_points {
  cuda_ctx mem;  // the stream and the byte count (sim_cuda_alloc)
  // the binding: what the first run with a scene copied
  unsigned long long bound;  // the scene's serial (0: none)
  int nv, nbodies, ntri, nmesh, np;
  cuda_blocks blk;
  dev_tree *tree;      // host array of nbodies
  dev_forest forest;   // those trees, refit together
  sim_bvh_view *view;  // device, nbodies
  int *tri, *tri_first, *pt_mesh;
  unsigned char *cloth, *found;  // found: 0 none, 1 at q_t, 2 at q~; + 4 each contact in a fold
  dev_flags pinned;  // the vertices' pinned flags, up where they changed
  // mesh_margin: the second half of mesh_mu's block; x...: uploads where no twin
  double *mesh_mu, *mesh_margin, *pt_x, *pt_xs, *x, *x_prev, *x_pred;
  const double *rx[3];  // what this run reads for x, x_prev, x_pred: those or twins (NULL: none)
  uint64_t *mesh_bodies;
  int *count, *offset;
  sim_contact *slot, *packed;  // SLOTS np each: a point's contacts (the first, then in folds);
                               // the found ones in point order
  void *scan_tmp;
  size_t scan_bytes;
  cuda_landing land;  // the contacts' way down (landing_cuda.h)
  unsigned char *hfound;  // page-locked (or pageable where refused): the flags' way down
  size_t hfound_cap;
  int hfound_pageable;
  size_t n;    // contacts queued to come down with the count
  int queued;  // a run is queued, not yet taken
  int ref, held;  // the last run's reference (its contacts' dev_ref) and, once taken, count
};

// Pass `pass` (0: q_t, 1: q~ for the points without a contact) of every point: its contact in
// slot[SLOTS p] and those in folds after it, found[p] = pass + 1 (0 where none) + 4 each contact
// in a fold. The trees are fit to xt.
static __global__ void k_points(sim_point_view v, int np, int pass, const double *xt,
                                const double *xs, const double *x_prev, const double *pt_x,
                                const double *pt_xs, const int *pt_mesh,
                                const uint64_t *mesh_bodies, const double *mesh_mu,
                                const double *mesh_margin, unsigned char *found,
                                sim_contact *slot) {
  SIM_PDL_WAIT();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= np || (pass && found[p])) return;
  found[p] = 0;
  sim_contact *c = slot + SLOTS * (size_t)p;  // found straight into its slots: no stack copy
  const int k = pt_mesh[p];
  const size_t o = 3 * (size_t)p;
  const int nc = sim_detect_point(&v, mesh_bodies[k], mesh_margin[k], pass, xt, xs, x_prev,
                                  pt_xs + o, pt_x + o, &c[0], &c[1]);
  if (nc == 0) return;
  for (int i = 0; i < nc; i++) {
    c[i].source = p + i * SIM_CONTACT_CREASE;
    c[i].mu = mesh_mu[k];
  }
  found[p] = (unsigned char)(pass + 1 + 4 * (nc - 1));
}

// count[p] = point p's contacts (0 to SLOTS); count[np] = 0 (the scan's total lands there)
static __global__ void k_count(int np, const unsigned char *found, int *count) {
  SIM_PDL_WAIT();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < np)
    count[p] = (found[p] != 0) + (found[p] >> 2);
  else if (p == np)
    count[p] = 0;
}

// The found points' contacts in point order, each with its place in the list (dev_ref, dev_slot).
static __global__ void k_pack(int np, const unsigned char *found, const int *offset,
                              const sim_contact *slot, int ref, sim_contact *packed) {
  SIM_PDL_WAIT();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= np || !found[p]) return;
  for (int i = 0; i < 1 + (found[p] >> 2); i++) {
    sim_contact *c = &packed[offset[p] + i];
    *c = slot[SLOTS * (size_t)p + i];
    c->dev_ref = ref, c->dev_slot = offset[p] + i;
  }
}

static void unbind(cuda_points *k) {
  sim_cuda_blocks_free(&k->blk);
  for (int b = 0; k->tree && b < k->nbodies; b++) sim_cuda_tree_free(&k->tree[b]);
  sim_cuda_forest_free(&k->forest);
  sim_cuda_flags_free(&k->pinned);
  sim_free(k->tree);
  k->tree = NULL;
  k->bound = 0;
  k->ref = 0; /* its lists are gone */
}

template <class T>
static int block(cuda_points *k, T **p, size_t n, const T *host, sim_status *st) {
  return sim_cuda_block(&k->blk, p, n, host, st);
}

// The scene's fixed inputs: per point its mesh, per mesh its mask, friction and margin, the
// trees.
static int bind_meshes(cuda_points *k, const sim_point_scene *s, sim_status *st) {
  int *pm = SIM_NEW(int, (size_t)k->np + 1);
  double *mu = SIM_NEW(double, 2 * (size_t)s->nmesh + 1); /* the friction, then the margins */
  uint64_t *bodies = SIM_NEW(uint64_t, (size_t)s->nmesh + 1);
  int rc = pm && mu && bodies ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  for (int m = 0; !rc && m < s->nmesh; m++) {
    mu[m] = s->mesh[m].mu, mu[s->nmesh + m] = s->mesh[m].margin, bodies[m] = s->mesh[m].bodies;
    for (int p = s->point_first[m]; p < s->point_first[m + 1]; p++) pm[p] = m;
  }
  if (!rc) rc = block(k, &k->pt_mesh, (size_t)k->np, (const int *)pm, st);
  if (!rc) rc = block(k, &k->mesh_mu, 2 * (size_t)s->nmesh, (const double *)mu, st);
  if (!rc) k->mesh_margin = k->mesh_mu + s->nmesh;
  if (!rc) rc = block(k, &k->mesh_bodies, (size_t)s->nmesh, (const uint64_t *)bodies, st);
  sim_free(pm), sim_free(mu), sim_free(bodies);
  return rc;
}

static int bind_trees(cuda_points *k, const sim_point_scene *s, sim_status *st) {
  sim_bvh_view *hv = SIM_NEW0(sim_bvh_view, (size_t)s->nbodies + 1);
  int rc = hv ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  for (int b = 0; !rc && b < s->nbodies; b++) {
    rc = sim_cuda_tree_copy(&k->blk, &s->tri_bvh[b], NULL, 1, &k->tree[b], st);
    hv[b] = sim_cuda_tree_view(&k->tree[b]);
  }
  if (!rc) rc = sim_cuda_forest_make(&k->blk, k->tree, s->nbodies, &k->forest, st);
  if (!rc) rc = block(k, &k->view, (size_t)s->nbodies, (const sim_bvh_view *)hv, st);
  sim_free(hv);
  return rc;
}

static int bind(cuda_points *k, const sim_point_scene *s, sim_status *st) {
  unbind(k);
  k->nv = s->nv, k->nbodies = s->nbodies, k->ntri = s->ntri, k->nmesh = s->nmesh;
  k->np = s->point_first[s->nmesh];
  k->tree = SIM_NEW0(dev_tree, (size_t)s->nbodies + 1);
  if (!k->tree) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  const size_t nv = (size_t)s->nv, np = (size_t)k->np;
  int rc = bind_trees(k, s, st);
  if (!rc) rc = bind_meshes(k, s, st);
  if (!rc) rc = block(k, &k->tri, 3 * (size_t)s->ntri, s->tri, st);
  if (!rc) rc = block(k, &k->tri_first, (size_t)s->nbodies, s->tri_first, st);
  if (!rc) rc = block(k, &k->cloth, (size_t)s->nbodies, s->cloth, st);
  if (!rc) rc = sim_cuda_flags_bind(&k->blk, &k->pinned, nv, st);
  if (!rc) rc = block(k, &k->pt_x, 3 * np, s->pt_x, st);
  if (!rc) rc = block(k, &k->pt_xs, 3 * np, s->pt_xs, st);
  if (!rc) rc = block(k, &k->x, 3 * nv, (const double *)NULL, st);
  if (!rc) rc = block(k, &k->x_prev, 3 * nv, (const double *)NULL, st);
  if (!rc) rc = block(k, &k->x_pred, 3 * nv, (const double *)NULL, st);
  if (!rc) rc = block(k, &k->found, np, (const unsigned char *)NULL, st);
  if (!rc) rc = block(k, &k->count, np + 1, (const int *)NULL, st);
  if (!rc) rc = block(k, &k->offset, np + 1, (const int *)NULL, st);
  if (!rc) rc = block(k, &k->slot, SLOTS * np, (const sim_contact *)NULL, st);
  if (!rc) rc = block(k, &k->packed, SLOTS * np, (const sim_contact *)NULL, st);
  if (!rc)
    rc = sim_cuda_scan_space(&k->blk, k->count, k->offset, k->np + 1, &k->scan_tmp,
                             &k->scan_bytes, st);
  if (rc) {
    unbind(k);
    return rc;
  }
  k->bound = s->serial;
  return SIM_OK;
}

// The run's inputs up: positions (unless they have twins, which the run reads), pinned flags,
// the moving meshes' points (posed on the host at the step's end and start). No wait: the
// sources are pageable host memory, staged before each copy returns.
static int upload_run(cuda_points *k, const sim_point_scene *s, cuda_twins *tw, sim_status *st) {
  cudaStream_t sm = k->mem.stream;
  const size_t nv3 = 3 * (size_t)s->nv;
  double *const scratch[3] = {k->x, k->x_prev, k->x_pred};
  const double *host[3] = {s->x, s->x_prev, s->x_pred};
  for (int i = 0; i < 3; i++) {
    k->rx[i] = NULL;
    int rc = host[i] ? sim_cuda_twins_get(&k->mem, tw, host[i], nv3, scratch[i], &k->rx[i], st)
                     : SIM_OK;
    if (rc) return rc;
  }
  int rc = sim_cuda_flags_sync(&k->pinned, s->pinned, sm, st);
  if (rc) return rc;
  for (int m = 0; m < s->nmesh; m++) {
    const int p0 = s->point_first[m], n = s->point_first[m + 1] - p0;
    if (!s->mesh[m].moving || n == 0) continue;
    const size_t o = 3 * (size_t)p0, bytes = sizeof(double) * 3 * (size_t)n;
    SIM_CU(cudaMemcpyAsync(k->pt_x + o, s->pt_x + o, bytes, cudaMemcpyHostToDevice, sm), st);
    SIM_CU(cudaMemcpyAsync(k->pt_xs + o, s->pt_xs + o, bytes, cudaMemcpyHostToDevice, sm), st);
  }
  return SIM_OK;
}

static int refit(cuda_points *k, const double *x, sim_status *st) {
  return sim_cuda_forest_refit(&k->forest, x, NULL, k->mem.stream, st);
}

// Both passes queued: each point's contact in its slot, its flag in k->found.
static int queue_passes(cuda_points *k, const sim_point_scene *s, sim_status *st) {
  const sim_point_view v = {s->nbodies, k->view,       k->tri,    k->tri_first,
                            k->cloth,   k->pinned.dev, s->margin, s->creases};
  for (int pass = 0; pass < (s->x_pred ? 2 : 1); pass++) {
    const double *xt = k->rx[pass ? 2 : 0];
    int rc = refit(k, xt, st);
    if (rc) return rc;
    k_points<<<sim_cuda_blocks(k->np), SIM_CUDA_BLOCK, 0, k->mem.stream>>>(
        v, k->np, pass, xt, k->rx[0], k->rx[1], k->pt_x, k->pt_xs, k->pt_mesh, k->mesh_bodies,
        k->mesh_mu, k->mesh_margin, k->found, k->slot);
    SIM_CU(cudaGetLastError(), st);
  }
  return SIM_OK;
}

int sim_cuda_points_queue(cuda_points *k, sim_point_scene *s, cuda_twins *tw, int ref,
                          sim_status *st) {
  k->queued = 0;
  k->ref = ref, k->held = 0;
  const int np = s->point_first[s->nmesh];
  if (np == 0) return SIM_OK;
  int rc = SIM_OK;
  if (k->bound != s->serial || k->nv != s->nv || k->nbodies != s->nbodies ||
      k->ntri != s->ntri || k->nmesh != s->nmesh || k->np != np)
    if ((rc = bind(k, s, st))) return rc;
  if ((size_t)np > k->hfound_cap) {
    if (k->hfound) sim_cuda_host_free(k->hfound, k->hfound_pageable);
    k->hfound = NULL, k->hfound_cap = 0;
    if ((rc = sim_cuda_host_alloc((void **)&k->hfound, (size_t)np, &k->hfound_pageable, st)))
      return rc;
    k->hfound_cap = (size_t)np;
  }
  cudaStream_t sm = k->mem.stream;
  {
    sim_cuda_dev_range range(sm, "points: inputs up");
    if ((rc = upload_run(k, s, tw, st))) return rc;
  }
  {
    sim_cuda_dev_range range(sm, "points: refit and query (k_points)");
    if ((rc = queue_passes(k, s, st))) return rc;
  }
  sim_cuda_dev_range range(sm, "points: the contacts packed and down");
  k_count<<<sim_cuda_blocks(np + 1), SIM_CUDA_BLOCK, 0, sm>>>(np, k->found, k->count);
  SIM_CU(cudaGetLastError(), st);
  SIM_CU(cub::DeviceScan::ExclusiveSum(k->scan_tmp, k->scan_bytes, k->count, k->offset, np + 1, sm),
         st);
  k_pack<<<sim_cuda_blocks(np), SIM_CUDA_BLOCK, 0, sm>>>(np, k->found, k->offset, k->slot, ref,
                                                         k->packed);
  SIM_CU(cudaGetLastError(), st);
  /* the count and the contacts that fit the landing's guess down with the flags */
  k->n = sim_cuda_landing_guess(&k->land, SLOTS * (size_t)np);
  if ((rc = sim_cuda_landing_queue(&k->land, sm, k->offset + np, k->packed, k->n, st))) return rc;
  SIM_CU(cudaMemcpyAsync(k->hfound, k->found, (size_t)np, cudaMemcpyDeviceToHost, sm), st);
  k->queued = 1;
  return SIM_OK;
}

int sim_cuda_points_take(cuda_points *k, sim_point_scene *s, sim_detect_contacts *out,
                         unsigned char *found, sim_status *st) {
  out->n = 0;
  if (!k->queued) {
    sim_detect_points_finish(out);
    return SIM_OK;
  }
  k->queued = 0;
  const int np = s->point_first[s->nmesh];
  for (int p = 0; p < np; p++) found[p] = k->hfound[p] & 3; /* the host's flags: no + 4 */
  int total = 0, more = 0;
  int rc = sim_cuda_landing_take(&k->land, k->n, out, &total, &more, st);
  if (rc) return rc;
  if (more) { /* the rest after a second wait */
    cudaStream_t sm = k->mem.stream;
    SIM_CU(cudaMemcpyAsync(out->c + k->n, k->packed + k->n,
                           sizeof(sim_contact) * ((size_t)total - k->n), cudaMemcpyDeviceToHost,
                           sm),
           st);
    SIM_CU(cudaStreamSynchronize(sm), st);
  }
  out->n = total;
  k->held = total;
  sim_detect_points_finish(out);
  return SIM_OK;
}

int sim_cuda_points_queued(const cuda_points *k) { return k && k->queued; }

const sim_contact *sim_cuda_points_list(const cuda_points *k, int ref, int *held) {
  if (!k || k->queued || ref == 0 || k->ref != ref) return NULL;
  *held = k->held;
  return k->packed;
}

int sim_cuda_points_create(cudaStream_t stream, cuda_points **out, sim_status *st) {
  cuda_points *k = SIM_NEW0(cuda_points, 1);
  *out = k;
  if (!k) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device points)");
  k->mem.stream = stream;
  k->blk.mem = &k->mem;
  return SIM_OK;
}

size_t sim_cuda_points_bytes(const cuda_points *k) { return k ? k->mem.dev_bytes : 0; }

long long sim_cuda_points_second_waits(const cuda_points *k) { return k ? k->land.waits : 0; }

void sim_cuda_points_destroy(cuda_points *k) {
  if (!k) return;
  unbind(k);
  sim_cuda_landing_free(&k->land);
  if (k->hfound) sim_cuda_host_free(k->hfound, k->hfound_pageable);
  sim_free(k);
}

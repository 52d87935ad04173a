// SPDX-License-Identifier: MIT
// Collision detection on the device (detect_cuda.h): the trees, triangles and body map copied
// once per sim_detect, then per run the positions and poses up, the bodies' BVH refit, one
// query of core/contact/detect_vertex.h per vertex into the vertex's slots (or, where the
// slots would not fit, a count and a second query), a scan of the counts, the contacts placed
// at their offsets and copied down (with their count, in one wait where they fit the landing's
// guess: landing_cuda.h). Passes (sim_cuda_detect_passes) queue that for each before the one
// wait.
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "bvh_cuda.h"
#include "detect_cuda.h"
#include "landing_cuda.h"
#include "pdl.cuh"
#include "points_cuda.h"
#include "range_cuda.h"
#include "twins_cuda.h"

// The most device memory the vertices' slots take (count_scan); a larger run counts, then
// queries again (write).
#define SIM_CUDA_DETECT_SLOT_BYTES ((size_t)64 << 20)

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/detect_vertex.h"
}

// A pass's contacts on the device and their way down (landing_cuda.h).
typedef struct cuda_pass {
  sim_contact *buf;
  size_t buf_cap;
  sim_contact_key *skip;  // the pass's skip list on the device: the params' copied up, or with
  size_t skip_cap;        // skip_first the keys of the first pass's contacts that it holds
  int nskip;              // the list's length (skip_first: padded with keys of no contact)
  sim_detect_side *sides;  // the params' side memory copied up
  size_t sides_cap;
  int nsides;
  cuda_landing land;
  size_t n;    // contacts queued to come down with the count
  int queued;  // 0: nothing to take (no vertices)
  int ref;     // the last run's reference (its contacts' dev_ref; 0: none)
  int held;    // the contacts buf holds of it, once taken (all it found)
} cuda_pass;

struct sim_cuda_detect {
  cuda_ctx mem;  // the stream and the byte count (sim_cuda_alloc); nothing else of it is used
  int own_stream;
  // the binding: what the first run with a sim_detect copied
  unsigned long long bound;  // the sim_detect's serial (0: none)
  int nv, nmesh, nbodies;
  cuda_blocks blk;
  int *body_of, *count, *offset;
  // a vertex's contacts as its query found them, at slots[v most] (most: a vertex's limit,
  // sim_detect_vertex's one per obstacle, mesh and body); NULL where off or too large (used 0)
  sim_contact *slots;
  size_t slots_cap;
  int slots_on;        // SIMCTL_CUDA_DETECT_SLOTS (on: the default)
  int most;            // the slots' stride in the last count (0: that count had none, only counted)
  dev_flags pinned;    // the vertices' pinned flags, up where they changed
  double *x, *x_prev;  // the positions' uploads, where they have no twin
  const double *rx, *rx_prev;  // what this run reads: those, or the twins (NULL: no x_prev)
  dev_tree *mesh_tree, *body_tree;  // host arrays of nmesh, nbodies
  dev_forest bodies;                // the bodies' trees, refit together
  double **mesh_x;                  // host array of device pointers
  double *rest;  // the self-colliding bodies' rest positions at their vertices (NULL: none)
  sim_detect_mesh_view *mesh_view, *hmesh_view;
  sim_detect_body_view *body_view, *hbody_view;
  void *scan_tmp;
  size_t scan_bytes;
  // grown on demand
  sim_detect_obstacle *obs;
  size_t obs_cap;
  // a run is pass 0; passes with inside_only (re-detection) have landings of their own, whose
  // guesses follow their own, smaller counts
  cuda_pass pass[2][SIM_DETECT_MAX_PASSES];
  long long waits;  // the host's waits for the runs' and passes' contacts
  long long found;  // the contacts the runs and passes found on the device
  int refs;         // the last reference handed to a run (sim_contact.dev_ref)
  cuda_points *pts;  // the obstacle points' pass (points_cuda.cu), made at its first run
  cuda_twins twins;  // device copies of host position arrays (sim_cuda_detect_keep)
};

// Vertex i's contacts (sim_detect_vertex) with edge pairs and edges against obstacles where
// `edges` and v asks for them. Each kernel below comes in two: without edges (edges 0, a
// constant the compiler removes their code for) and with them, so that a pass without them
// does not carry their registers (scripts/kernel_regs.sh, sm_90: 216-218 without, 254 with;
// 242 for one kernel holding both).
static __device__ __forceinline__ int vertex_contacts(const sim_detect_view &v, int edges, int i,
                                                      sim_contact *out) {
  sim_detect_view w = v;
  w.edges = edges && v.edges;
  w.obstacle_edges = edges && v.obstacle_edges;
  return sim_detect_vertex(&w, i, out);
}

// One kernel queries the vertices twice over (count_scan, then write where the slots are
// off): with offset NULL, count[v] = the number of vertex v's contacts, and with slots the
// contacts themselves at slots + v most, count[nv] = 0 (the scan's total lands there); with
// offset, each vertex's contacts at its offset, for the vertices whose contacts end within
// `cap`, each with its place in the list (dev_ref, dev_slot). A vertex that the count found
// none for is not queried again (most of them: the query is the pass's cost, and it finds what
// the count found). One kernel for both: each inlines the whole query, which made this file
// some 40 % of the build's compile time (ptxas, three architectures: 181 of 373 CPU seconds on
// the 2-core VM, 2026-12-06, as four kernels); the two shared 232-238 registers, more than 128,
// so one block of 256 a multiprocessor either way.
struct query_args {
  int *count;  // the count: count and slots (NULL: none) at `most` a vertex
  sim_contact *slots;
  int most;
  const int *offset;  // the write (count NULL): the offsets, cap, reference and list
  int cap, ref;
  sim_contact *out;
};
static __device__ __forceinline__ void query_at(const sim_detect_view &v, int edges,
                                                const query_args &a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  sim_contact *to;
  if (!a.offset) {
    if (i == v.nv) a.count[i] = 0;
    if (i >= v.nv) return;
    to = a.slots ? a.slots + (size_t)i * (size_t)a.most : NULL;
  } else {
    if (i >= v.nv || a.offset[i + 1] > a.cap || a.offset[i + 1] == a.offset[i]) return;
    to = a.out + a.offset[i];
  }
  const int n = vertex_contacts(v, edges, i, to); /* one call: the query inlined once */
  if (!a.offset) {
    a.count[i] = n;
    return;
  }
  for (int t = 0, o = a.offset[i]; t < n; t++) to[t].dev_ref = a.ref, to[t].dev_slot = o + t;
}
static __global__ void k_query(sim_detect_view v, query_args a) {
  SIM_PDL_WAIT();
  query_at(v, 0, a);
}
static __global__ void k_query_edges(sim_detect_view v, query_args a) {
  SIM_PDL_WAIT();
  query_at(v, 1, a);
}

// Launches k_query (edge pairs, edges against obstacles, where v asks for them) over `threads`
// threads.
static void query(const sim_detect_view *v, unsigned threads, const query_args &a,
                  cudaStream_t sm) {
  if (v->edges || v->obstacle_edges)
    k_query_edges<<<sim_cuda_blocks(threads), SIM_CUDA_BLOCK, 0, sm>>>(*v, a);
  else
    k_query<<<sim_cuda_blocks(threads), SIM_CUDA_BLOCK, 0, sm>>>(*v, a);
}

// The write's work where the count kept the contacts in slots: each vertex's copied from its
// slots to its offset (the same contacts: one query made them both ways).
static __global__ void k_place(int nv, const int *offset, int cap, int ref,
                               const sim_contact *slots, int most, sim_contact *out) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nv || offset[i + 1] > cap || offset[i + 1] == offset[i]) return;
  const int o = offset[i], n = offset[i + 1] - o;
  const sim_contact *c = slots + (size_t)i * (size_t)most;
  for (int t = 0; t < n; t++) {
    out[o + t] = c[t];
    out[o + t].dev_ref = ref, out[o + t].dev_slot = o + t;
  }
}

// A new run's reference (nonzero).
static int new_ref(sim_cuda_detect *k) {
  k->refs = k->refs < INT_MAX ? k->refs + 1 : 1;
  return k->refs;
}

// The keys of the contacts the write put in c (cap of them at most: the vertices' whose contacts
// end within cap, which start at the largest offset <= cap), then keys of no contact (a vertex
// past every one) up to cap: a later pass's skip list (skip_first), sorted as c is.
static __global__ void k_first_keys(int nv, const int *offset, int cap, const sim_contact *c,
                                    sim_contact_key *keys) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cap) return;
  int a = 0, b = nv; /* the last offset <= cap (offset[0] = 0) */
  while (a < b) {
    const int mid = b - (b - a) / 2;
    if (offset[mid] <= cap)
      a = mid;
    else
      b = mid - 1;
  }
  if (j < offset[a]) {
    keys[j].v = c[j].v, keys[j].kind = (int)c[j].kind, keys[j].source = c[j].source;
  } else {
    keys[j].v = keys[j].kind = keys[j].source = INT_MAX;
  }
}

// ---------------------------------------------------------------- the binding

template <class T>
static int block(sim_cuda_detect *k, T **p, size_t n, const T *host, sim_status *st) {
  return sim_cuda_block(&k->blk, p, n, host, st);
}

static void unbind(sim_cuda_detect *k) {
  sim_cuda_blocks_free(&k->blk);
  for (int m = 0; k->mesh_tree && m < k->nmesh; m++) sim_cuda_tree_free(&k->mesh_tree[m]);
  for (int b = 0; k->body_tree && b < k->nbodies; b++) sim_cuda_tree_free(&k->body_tree[b]);
  sim_cuda_forest_free(&k->bodies);
  sim_cuda_flags_free(&k->pinned);
  sim_free(k->mesh_tree), sim_free(k->body_tree), sim_free(k->mesh_x);
  sim_free(k->hmesh_view), sim_free(k->hbody_view);
  k->mesh_tree = k->body_tree = NULL;
  k->mesh_x = NULL;
  k->hmesh_view = NULL, k->hbody_view = NULL;
  k->rest = NULL;
  k->bound = 0;
}

// The bodies' rest positions (sim_detect_body.rest) at their own vertices, the only ones their
// self-collision reads (a body's triangles have its vertices), into one array in global
// indexing; none where no body has them.
static int bind_rest(sim_cuda_detect *k, const sim_detect_scene *s, sim_status *st) {
  int any = 0;
  for (int b = 0; b < s->nbodies; b++) any |= s->body[b].rest != NULL;
  if (!any) return SIM_OK;
  double *h = SIM_NEW0(double, 3 * (size_t)s->nv);
  if (!h) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  for (int b = 0; b < s->nbodies; b++) {
    const sim_detect_body *bd = &s->body[b];
    if (bd->rest)
      memcpy(h + 3 * (size_t)bd->v0, bd->rest + 3 * (size_t)bd->v0, sizeof(double) * 3 * bd->nv);
  }
  const int rc = block(k, &k->rest, 3 * (size_t)s->nv, (const double *)h, st);
  sim_free(h);
  return rc;
}

static int bind(sim_cuda_detect *k, const sim_detect *d, const sim_detect_scene *s,
                sim_status *st) {
  unbind(k);
  k->nv = s->nv, k->nmesh = s->nmesh, k->nbodies = s->nbodies;
  k->mesh_tree = SIM_NEW0(dev_tree, s->nmesh + 1);
  k->body_tree = SIM_NEW0(dev_tree, s->nbodies + 1);
  k->mesh_x = SIM_NEW0(double *, s->nmesh + 1);
  k->hmesh_view = SIM_NEW0(sim_detect_mesh_view, s->nmesh + 1);
  k->hbody_view = SIM_NEW0(sim_detect_body_view, s->nbodies + 1);
  if (!k->mesh_tree || !k->body_tree || !k->mesh_x || !k->hmesh_view || !k->hbody_view)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  const size_t nv = (size_t)s->nv;
  int rc = block(k, &k->body_of, nv, d->body_of, st);
  if (!rc) rc = sim_cuda_flags_bind(&k->blk, &k->pinned, nv, st);
  if (!rc) rc = block(k, &k->x, 3 * nv, (const double *)NULL, st);
  if (!rc) rc = block(k, &k->x_prev, 3 * nv, (const double *)NULL, st);
  if (!rc) rc = block(k, &k->count, nv + 1, (const int *)NULL, st);
  if (!rc) rc = block(k, &k->offset, nv + 1, (const int *)NULL, st);
  for (int b = 0; !rc && b < s->nbodies; b++)
    rc = sim_cuda_tree_copy(&k->blk, &d->body_bvh[b], s->body[b].tri, 1, &k->body_tree[b], st);
  if (!rc) rc = sim_cuda_forest_make(&k->blk, k->body_tree, s->nbodies, &k->bodies, st);
  if (!rc) rc = bind_rest(k, s, st);
  for (int m = 0; !rc && m < s->nmesh; m++) {
    rc = sim_cuda_tree_copy(&k->blk, &d->mesh_bvh[m], s->mesh[m].tri, 0, &k->mesh_tree[m], st);
    if (!rc) rc = block(k, &k->mesh_x[m], 3 * (size_t)s->mesh[m].nv, s->mesh[m].x, st);
  }
  if (!rc) rc = block(k, &k->mesh_view, (size_t)s->nmesh, (const sim_detect_mesh_view *)NULL, st);
  if (!rc) rc = block(k, &k->body_view, (size_t)s->nbodies, (const sim_detect_body_view *)NULL, st);
  if (!rc)
    rc = sim_cuda_scan_space(&k->blk, k->count, k->offset, s->nv + 1, &k->scan_tmp,
                             &k->scan_bytes, st);
  if (rc) {
    unbind(k);
    return rc;
  }
  k->bound = d->serial;
  return SIM_OK;
}

// ---------------------------------------------------------------- a run

// Positions, poses and the moving meshes' trees up; the views with device pointers up.
static int upload_run(sim_cuda_detect *k, sim_detect *d, const sim_detect_scene *s,
                      sim_status *st) {
  cudaStream_t sm = k->mem.stream;
  const size_t nv3 = 3 * (size_t)s->nv;
  k->rx_prev = NULL;
  int rc = sim_cuda_twins_get(&k->mem, &k->twins, s->x, nv3, k->x, &k->rx, st);
  if (!rc && s->x_prev)
    rc = sim_cuda_twins_get(&k->mem, &k->twins, s->x_prev, nv3, k->x_prev, &k->rx_prev, st);
  if (rc) return rc;
  if (s->pinned && (rc = sim_cuda_flags_sync(&k->pinned, s->pinned, sm, st))) return rc;
  if (s->nobs > 0) {
    rc = sim_cuda_grow(&k->mem, &k->obs, &k->obs_cap, (size_t)s->nobs, st);
    if (rc) return rc;
    SIM_CU(cudaMemcpyAsync(k->obs, s->obs, sizeof(sim_detect_obstacle) * (size_t)s->nobs,
                           cudaMemcpyHostToDevice, sm),
           st);
  }
  for (int m = 0; m < s->nmesh; m++) {
    const sim_detect_mesh *me = &s->mesh[m];
    const dev_tree *t = &k->mesh_tree[m];
    /* a static mesh keeps the positions copied at bind (detect.h: only moving meshes change) */
    if (me->moving)
      SIM_CU(cudaMemcpyAsync(k->mesh_x[m], me->x, sizeof(double) * 3 * (size_t)me->nv,
                             cudaMemcpyHostToDevice, sm),
             st);
    if (me->moving && t->nnodes > 0) {
      sim_bvh_refit(&d->mesh_bvh[m], me->x);
      SIM_CU(cudaMemcpyAsync(t->node, d->mesh_bvh[m].node, sizeof(sim_bvh_node) * t->nnodes,
                             cudaMemcpyHostToDevice, sm),
             st);
    }
    sim_detect_mesh_view *mv = &k->hmesh_view[m];
    mv->bvh = sim_cuda_tree_view(t);
    mv->x = k->mesh_x[m], mv->tri = t->in_tri, mv->closed = me->closed;
    mv->mu = me->mu, mv->bodies = me->bodies, mv->step = me->step, mv->margin = me->margin;
    for (int c = 0; c < 3; c++)
      mv->vel[c] = me->vel[c], mv->omega[c] = me->omega[c], mv->center[c] = me->center[c];
  }
  for (int b = 0; b < s->nbodies; b++) {
    const dev_tree *t = &k->body_tree[b];
    sim_detect_body_view *bv = &k->hbody_view[b];
    bv->bvh = sim_cuda_tree_view(t);
    bv->tri = t->in_tri, bv->mu = s->body[b].mu, bv->open = s->body[b].open;
    bv->rest = s->body[b].rest ? k->rest : NULL, bv->rest_gap = s->body[b].rest_gap;
  }
  if (s->nmesh > 0)
    SIM_CU(cudaMemcpyAsync(k->mesh_view, k->hmesh_view,
                           sizeof(sim_detect_mesh_view) * (size_t)s->nmesh,
                           cudaMemcpyHostToDevice, sm),
           st);
  if (s->nbodies > 0)
    SIM_CU(cudaMemcpyAsync(k->body_view, k->hbody_view,
                           sizeof(sim_detect_body_view) * (size_t)s->nbodies,
                           cudaMemcpyHostToDevice, sm),
           st);
  /* no wait: every source above is pageable host memory, which a copy to the device stages
     before it returns (CUDA's API synchronisation rules), so the host may change it at once */
  return SIM_OK;
}

// The bodies' trees to x, swept to x_prev too where the pass reads x_prev's pose (detect.h).
static int refit_bodies(sim_cuda_detect *k, const sim_detect_params *p, sim_status *st) {
  const double *x2 = sim_detect_bodies_swept(p) ? k->rx_prev : NULL;
  return sim_cuda_forest_refit(&k->bodies, k->rx, x2, k->mem.stream, st);
}

// What the kernels read of a pass: the device copies of this run's inputs (ps's skip list).
static sim_detect_view view(const sim_cuda_detect *k, const sim_detect_scene *s,
                            const sim_detect_params *p, const cuda_pass *ps) {
  const int skip = ps->nskip > 0;
  sim_detect_view v = {s->nv,
                       k->rx,
                       k->rx_prev,
                       s->pinned ? k->pinned.dev : NULL,
                       k->body_of,
                       s->nobs,
                       s->nmesh,
                       s->nbodies,
                       k->obs,
                       k->mesh_view,
                       k->body_view,
                       p->margin,
                       p->self_collision,
                       p->face_prev,
                       p->inside_only,
                       skip ? ps->skip : NULL,
                       ps->nskip,
                       p->at_start,
                       p->sweep,
                       ps->nsides > 0 ? ps->sides : NULL,
                       ps->nsides,
                       p->no_others,
                       p->edge_edge,
                       p->renew,
                       p->creases,
                       p->obstacle_edges};
  return v;
}

// Room for every vertex's slots where they are on and take at most SIM_CUDA_DETECT_SLOT_BYTES
// (k->most = the stride), else k->most = 0: the contacts are counted, then queried again.
static int slots_room(sim_cuda_detect *k, const sim_detect_view *v, sim_status *st) {
  const size_t most = (size_t)sim_detect_most(v), n = (size_t)v->nv * most;
  k->most = 0;
  if (!k->slots_on || v->edges || n == 0 || n * sizeof(sim_contact) > SIM_CUDA_DETECT_SLOT_BYTES)
    return SIM_OK; /* a vertex's edge contacts have no bound (sim_detect_most) */
  int rc = sim_cuda_grow(&k->mem, &k->slots, &k->slots_cap, n, st);
  if (!rc) k->most = (int)most;
  return rc;
}

// Each vertex's contact count (and its contacts in the slots where they fit), and the counts'
// exclusive scan (the offsets, the total at nv).
static int count_scan(sim_cuda_detect *k, const sim_detect_view *v, sim_status *st) {
  cudaStream_t sm = k->mem.stream;
  int rc = slots_room(k, v, st);
  if (rc) return rc;
  {
    sim_cuda_dev_range range(sm, "detect: query (k_query)");
    query_args a = {k->count, k->most ? k->slots : NULL, k->most, NULL, 0, 0, NULL};
    query(v, (unsigned)v->nv + 1, a, sm);
    SIM_CU(cudaGetLastError(), st);
  }
  sim_cuda_dev_range range(sm, "detect: scan of the counts");
  SIM_CU(cub::DeviceScan::ExclusiveSum(k->scan_tmp, k->scan_bytes, k->count, k->offset, v->nv + 1,
                                       sm),
         st);
  return SIM_OK;
}

// The contacts of the vertices whose contacts end within cap at their offsets (after
// count_scan): placed from the slots, or queried again.
static int write(sim_cuda_detect *k, const sim_detect_view *v, int cap, int ref, sim_contact *out,
                 sim_status *st) {
  cudaStream_t sm = k->mem.stream;
  sim_cuda_dev_range range(sm,
                           k->most ? "detect: place (k_place)" : "detect: query again (k_query)");
  if (k->most) {
    k_place<<<sim_cuda_blocks(v->nv), SIM_CUDA_BLOCK, 0, sm>>>(v->nv, k->offset, cap, ref, k->slots,
                                                               k->most, out);
  } else {
    query_args a = {NULL, NULL, 0, k->offset, cap, ref, out};
    query(v, (unsigned)v->nv, a, sm);
  }
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// Queues a pass: inputs up, the bodies' trees refit, its skip list (the params' up, or with
// skip_first the keys of what `first`, the first pass, queued to come down), the count, the
// scan, the contacts that fit the landing's guess written and their copies down with the
// count; nothing waits.
static int queue_pass(sim_cuda_detect *k, sim_detect *d, const sim_detect_scene *s,
                      const sim_detect_params *p, cuda_pass *ps, const cuda_pass *first,
                      sim_status *st) {
  int rc = SIM_OK;
  ps->queued = 0;
  ps->nskip = ps->nsides = 0;
  ps->ref = ps->held = 0;
  if (k->bound != d->serial || k->nv != s->nv || k->nmesh != s->nmesh ||
      k->nbodies != s->nbodies)
    if ((rc = bind(k, d, s, st))) return rc;
  if (s->nv == 0) return SIM_OK;
  cudaStream_t sm = k->mem.stream;
  {
    sim_cuda_dev_range range(sm, "detect: inputs up");
    if ((rc = upload_run(k, d, s, st))) return rc;
  }
  {
    sim_cuda_dev_range range(sm, "detect: refit the bodies' trees");
    if ((rc = refit_bodies(k, p, st))) return rc;
  }
  {
    sim_cuda_dev_range range(sm, "detect: skip list and side memory up");
    if (p->skip && p->nskip > 0) { /* staged before the copy returns: no wait (upload_run) */
      if ((rc = sim_cuda_grow(&k->mem, &ps->skip, &ps->skip_cap, (size_t)p->nskip, st))) return rc;
      SIM_CU(cudaMemcpyAsync(ps->skip, p->skip, sizeof(sim_contact_key) * (size_t)p->nskip,
                             cudaMemcpyHostToDevice, sm),
             st);
      ps->nskip = p->nskip;
    } else if (p->skip_first && first && first->queued && first->n > 0) {
      /* the first pass's offsets are k->offset until this pass's scan */
      if ((rc = sim_cuda_grow(&k->mem, &ps->skip, &ps->skip_cap, first->n, st))) return rc;
      k_first_keys<<<sim_cuda_blocks((long long)first->n), SIM_CUDA_BLOCK, 0, sm>>>(
          s->nv, k->offset, (int)first->n, first->buf, ps->skip);
      SIM_CU(cudaGetLastError(), st);
      ps->nskip = (int)first->n;
    }
    if (p->sides && p->nsides > 0) { /* staged as the skip list is */
      if ((rc = sim_cuda_grow(&k->mem, &ps->sides, &ps->sides_cap, (size_t)p->nsides, st)))
        return rc;
      SIM_CU(cudaMemcpyAsync(ps->sides, p->sides, sizeof(sim_detect_side) * (size_t)p->nsides,
                             cudaMemcpyHostToDevice, sm),
             st);
      ps->nsides = p->nsides;
    }
  }
  sim_detect_view v = view(k, s, p, ps);
  if ((rc = count_scan(k, &v, st))) return rc;
  ps->n = sim_cuda_landing_guess(&ps->land, (size_t)INT_MAX);
  if ((rc = sim_cuda_grow(&k->mem, &ps->buf, &ps->buf_cap, ps->n, st))) return rc;
  ps->ref = new_ref(k);
  if ((rc = write(k, &v, (int)ps->n, ps->ref, ps->buf, st))) return rc;
  sim_cuda_dev_range range(sm, "detect: count and contacts down");
  if ((rc = sim_cuda_landing_queue(&ps->land, sm, k->offset + s->nv, ps->buf, ps->n, st)))
    return rc;
  ps->queued = 1;
  return SIM_OK;
}

// After the wait: the pass's contacts into out. More than guessed: all of them written again
// into a buffer that holds them and copied down, a second wait. The device holds the inputs
// and offsets of pass *held (the last queued); another pass is queued again first (pass i
// then held).
static int take_pass(sim_cuda_detect *k, sim_detect *d, const sim_detect_scene *s,
                     const sim_detect_params *p, cuda_pass *ps, int i, int *held,
                     sim_detect_contacts *out, sim_status *st) {
  if (!ps->queued) return SIM_OK;
  const int current = *held == i;
  int total = 0, more = 0;
  int rc = sim_cuda_landing_take(&ps->land, ps->n, out, &total, &more, st);
  if (rc) return rc;
  k->found += total;
  if (more) {
    cudaStream_t sm = k->mem.stream;
    {
      sim_cuda_dev_range range(sm, "detect: more than guessed, all again and down");
      if (!current && ((rc = upload_run(k, d, s, st)) || (rc = refit_bodies(k, p, st)))) return rc;
      *held = i;
      sim_detect_view v = view(k, s, p, ps);
      if (!current && (rc = count_scan(k, &v, st))) return rc;
      if ((rc = sim_cuda_grow(&k->mem, &ps->buf, &ps->buf_cap, (size_t)total, st))) return rc;
      if ((rc = write(k, &v, total, ps->ref, ps->buf, st))) return rc;
      SIM_CU(cudaMemcpyAsync(out->c, ps->buf, sizeof(sim_contact) * (size_t)total,
                             cudaMemcpyDeviceToHost, sm),
             st);
    }
    SIM_CU(cudaStreamSynchronize(sm), st);
    k->waits++;
  }
  out->n = total;
  ps->held = total;
  for (int j = 0; j < total; j++) out->count[out->c[j].kind]++;
  return SIM_OK;
}

// After the wait: pass i's contacts into out[i], with skip_first the first pass's keys dropped
// (the device skipped those the first pass's landing held; where it held fewer than it found,
// the host drops the rest).
static int take(sim_cuda_detect *k, sim_detect *d, const sim_detect_scene *s,
                const sim_detect_params *p, cuda_pass *const *ps, int i, int *held,
                sim_detect_contacts *const *out, sim_status *st) {
  int rc = take_pass(k, d, &s[i], &p[i], ps[i], i, held, out[i], st);
  if (!rc && p[i].skip_first) sim_detect_drop_keys(out[i], out[0]);
  return rc;
}

extern "C" int sim_cuda_detect_passes(void *ctx, sim_detect *d, int n, const sim_detect_scene *s,
                                      const sim_detect_params *p,
                                      sim_detect_contacts *const *out,
                                      const sim_detect_points_job *pts, sim_status *st) {
  sim_cuda_detect *k = (sim_cuda_detect *)ctx;
  int rc = sim_detect_check_passes(n, p, st);
  for (int i = 0; !rc && i < n; i++) rc = sim_detect_check(d, &s[i], &p[i], out[i], st);
  cuda_pass *ps[SIM_DETECT_MAX_PASSES];
  for (int i = 0; i < n; i++) ps[i] = &k->pass[p[i].inside_only != 0][i];
  {
    sim_cuda_range range("detect: queue passes");
    for (int i = 0; !rc && i < n; i++) rc = queue_pass(k, d, &s[i], &p[i], ps[i], ps[0], st);
    if (!rc && pts && !k->pts) rc = sim_cuda_points_create(k->mem.stream, &k->pts, st);
    if (!rc && pts) rc = sim_cuda_points_queue(k->pts, pts->s, &k->twins, new_ref(k), st);
  }
  if (rc) return rc;
  int any = 0;
  for (int i = 0; i < n; i++) any |= ps[i]->queued;
  if (any || (pts && sim_cuda_points_queued(k->pts))) {
    sim_cuda_range range("detect: wait for the passes");
    SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
    k->waits++;
  }
  sim_cuda_range range("detect: take the contacts");
  int held = n - 1;
  for (int i = 0; !rc && i < n; i++) rc = take(k, d, s, p, ps, i, &held, out, st);
  if (!rc && pts) rc = sim_cuda_points_take(k->pts, pts->s, pts->out, pts->found, st);
  sim_cuda_ranges_resolve(); /* every device range above is passed */
  return rc;
}

extern "C" int sim_cuda_detect_run(void *ctx, sim_detect *d, const sim_detect_scene *s,
                                   const sim_detect_params *p, sim_detect_contacts *out,
                                   sim_status *st) {
  sim_detect_contacts *const o[1] = {out};
  return sim_cuda_detect_passes(ctx, d, 1, s, p, o, NULL, st);
}

// ---------------------------------------------------------------- create, destroy

extern "C" int sim_cuda_detect_create(void *stream, sim_cuda_detect **out, sim_status *st) {
  *out = NULL;
  sim_cuda_detect *k = SIM_NEW0(sim_cuda_detect, 1);
  if (!k) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (device detection)");
  k->blk.mem = &k->mem;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_DETECT_SLOTS", "off", "on", 1, &k->slots_on, st);
  if (!rc) rc = sim_cuda_stream_open(stream, &k->mem.stream, &k->own_stream, st);
  if (rc) {
    sim_free(k);
    return rc;
  }
  *out = k;
  return SIM_OK;
}

extern "C" int sim_cuda_detect_points(void *ctx, sim_point_scene *s, sim_detect_contacts *out,
                                      unsigned char *found, sim_status *st) {
  const sim_detect_points_job job = {s, out, found}; /* a detection of the points pass alone */
  return sim_cuda_detect_passes(ctx, NULL, 0, NULL, NULL, NULL, &job, st);
}

extern "C" int sim_cuda_detect_keep(sim_cuda_detect *k, const double *host, const double *dev,
                                    size_t n, sim_status *st) {
  return sim_cuda_twins_keep(&k->mem, &k->twins, host, dev, n, st);
}

extern "C" int sim_cuda_detect_fetch(sim_cuda_detect *k, double *host, size_t n, sim_status *st) {
  return sim_cuda_twins_fetch(&k->mem, &k->twins, host, n, st);
}

extern "C" void sim_cuda_detect_twin_counts(const sim_cuda_detect *k, long long *hits,
                                            long long *misses) {
  *hits = k ? k->twins.hits : 0;
  *misses = k ? k->twins.misses : 0;
}

extern "C" long long sim_cuda_detect_second_waits(const sim_cuda_detect *k) {
  if (!k) return 0;
  long long w = sim_cuda_points_second_waits(k->pts);
  for (int f = 0; f < 2; f++)
    for (int i = 0; i < SIM_DETECT_MAX_PASSES; i++) w += k->pass[f][i].land.waits;
  return w;
}

extern "C" long long sim_cuda_detect_waits(const sim_cuda_detect *k) {
  return k ? k->waits + sim_cuda_points_second_waits(k->pts) : 0;
}

extern "C" long long sim_cuda_detect_found(const sim_cuda_detect *k) { return k ? k->found : 0; }

extern "C" int sim_cuda_detect_copy(const sim_cuda_detect *k, const sim_contact *c,
                                    sim_contact *out, int *held, sim_status *st) {
  int n = 0;
  const sim_contact *d = sim_cuda_detect_list(k, c->dev_ref, &n);
  *held = d && c->dev_slot >= 0 && c->dev_slot < n;
  if (!*held) return SIM_OK;
  SIM_CU(cudaMemcpyAsync(out, d + c->dev_slot, sizeof *out, cudaMemcpyDeviceToHost, k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  return SIM_OK;
}

extern "C" int sim_cuda_detect_body_tree(const sim_cuda_detect *k, int b, sim_bvh_node *out,
                                         int *nnodes, sim_status *st) {
  *nnodes = 0;
  if (!k || b < 0 || b >= k->nbodies) return SIM_OK;
  const dev_tree *t = &k->body_tree[b];
  SIM_CU(cudaMemcpyAsync(out, t->node, sizeof *out * (size_t)t->nnodes, cudaMemcpyDeviceToHost,
                         k->mem.stream),
         st);
  SIM_CU(cudaStreamSynchronize(k->mem.stream), st);
  *nnodes = t->nnodes;
  return SIM_OK;
}

extern "C" const sim_contact *sim_cuda_detect_list(const sim_cuda_detect *k, int ref, int *held) {
  if (!k || ref == 0) return NULL;
  for (int f = 0; f < 2; f++)
    for (int i = 0; i < SIM_DETECT_MAX_PASSES; i++) {
      const cuda_pass *ps = &k->pass[f][i];
      if (ps->ref == ref) { /* held 0 until taken */
        *held = ps->held;
        return ps->buf;
      }
    }
  return sim_cuda_points_list(k->pts, ref, held);
}

extern "C" size_t sim_cuda_detect_bytes(const sim_cuda_detect *k) {
  return k ? k->mem.dev_bytes + sim_cuda_points_bytes(k->pts) : 0;
}

extern "C" void sim_cuda_detect_destroy(sim_cuda_detect *k) {
  if (!k) return;
  sim_cuda_points_destroy(k->pts);
  sim_cuda_twins_free(&k->mem, &k->twins);
  unbind(k);
  sim_cuda_release(&k->mem, k->obs, sizeof(sim_detect_obstacle) * k->obs_cap);
  sim_cuda_release(&k->mem, k->slots, sizeof(sim_contact) * k->slots_cap);
  for (int f = 0; f < 2; f++)
    for (int i = 0; i < SIM_DETECT_MAX_PASSES; i++) {
      cuda_pass *ps = &k->pass[f][i];
      sim_cuda_release(&k->mem, ps->buf, sizeof(sim_contact) * ps->buf_cap);
      sim_cuda_release(&k->mem, ps->skip, sizeof(sim_contact_key) * ps->skip_cap);
      sim_cuda_release(&k->mem, ps->sides, sizeof(sim_detect_side) * ps->sides_cap);
      sim_cuda_landing_free(&ps->land);
    }
  if (k->own_stream) cudaStreamDestroy(k->mem.stream);
  sim_free(k);
}

/* SPDX-License-Identifier: MIT */
/* Bounding volume hierarchy over a triangle mesh: median-split build, refit, point queries.
   Inputs: vertex positions (3 nv doubles) and triangles (3 nt ints). Workspace: centroids and
   a permutation during the build only. Fails on bad indices, non-finite coordinates and out
   of memory (bvh.h). */
#include "contact/bvh.h"

#include <string.h>

#include "base/alloc.h"
#include "contact/bvh_query.h"

/* total order on triangles along an axis: (centroid coordinate, index) */
static int key_less(const double *cen, int axis, int i, int j) {
  const double a = cen[3 * i + axis], b = cen[3 * j + axis];
  return a < b || (a == b && i < j);
}

/* Rearranges v[0..n) so that v[k] is the k-th smallest and v[<k] <= v[k] <= v[>k]
   (quickselect with Hoare partition about a median of three). */
static void select_kth(const double *cen, int axis, int *v, int n, int k) {
  int lo = 0, hi = n - 1;
  while (hi > lo) {
    const int mid = lo + (hi - lo) / 2;
    int t;
    if (key_less(cen, axis, v[mid], v[lo])) t = v[mid], v[mid] = v[lo], v[lo] = t;
    if (key_less(cen, axis, v[hi], v[lo])) t = v[hi], v[hi] = v[lo], v[lo] = t;
    if (key_less(cen, axis, v[hi], v[mid])) t = v[hi], v[hi] = v[mid], v[mid] = t;
    const int pivot = v[mid];
    int i = lo, j = hi;
    while (i <= j) {
      while (key_less(cen, axis, v[i], pivot)) i++;
      while (key_less(cen, axis, pivot, v[j])) j--;
      if (i <= j) t = v[i], v[i] = v[j], v[j] = t, i++, j--;
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return;
  }
}

/* Node for ord[first .. first + count), children in pre-order; returns its index. */
static int build_node(sim_bvh *b, const double *cen, int *ord, int first, int count) {
  const int me = b->nnodes++;
  sim_bvh_node *nd = &b->node[me];
  if (count <= SIM_BVH_LEAF) {
    nd->first = first;
    nd->count = count;
    return me;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int s = first; s < first + count; s++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], cen[3 * ord[s] + k]);
      hi[k] = fmax(hi[k], cen[3 * ord[s] + k]);
    }
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  const int half = count / 2;
  select_kth(cen, axis, ord + first, count, half);
  nd->count = 0;
  build_node(b, cen, ord, first, half);
  const int right = build_node(b, cen, ord, first + half, count - half);
  nd->first = right; /* b->node is preallocated: nd stays valid */
  return me;
}

/* b's rings (bvh.h) from its slots: a vertex's slots in ascending order, a triangle that names
   a vertex twice counted once. */
static int build_rings(sim_bvh *b) {
  int lo = b->tri[0], hi = b->tri[0];
  for (int i = 1; i < 3 * b->nt; i++) {
    if (b->tri[i] < lo) lo = b->tri[i];
    if (b->tri[i] > hi) hi = b->tri[i];
  }
  b->ring_lo = lo, b->ring_n = hi - lo + 1;
  b->ring_ptr = SIM_NEW0(int, (size_t)b->ring_n + 1);
  b->ring = SIM_NEW(int, 3 * (size_t)b->nt);
  if (!b->ring_ptr || !b->ring) return -1;
  for (int pass = 0; pass < 2; pass++) { /* count, then fill (ring_ptr[i] as the cursor) */
    for (int s = 0; s < b->nt; s++)
      for (int k = 0; k < 3; k++) {
        const int *t = b->tri + 3 * s, v = t[k] - lo;
        if ((k > 0 && t[k] == t[0]) || (k == 2 && t[2] == t[1])) continue;
        if (pass == 0)
          b->ring_ptr[v + 1]++;
        else
          b->ring[b->ring_ptr[v]++] = s;
      }
    if (pass == 0)
      for (int i = 0; i < b->ring_n; i++) b->ring_ptr[i + 1] += b->ring_ptr[i];
    else /* each cursor stopped at the next vertex's start */
      for (int i = b->ring_n; i > 0; i--) b->ring_ptr[i] = b->ring_ptr[i - 1];
  }
  b->ring_ptr[0] = 0;
  return 0;
}

/* b's edge places (bvh.h edge_f), from its rings. */
static int build_edge_places(sim_bvh *b) {
  b->edge_f = SIM_NEW(unsigned char, 3 * (size_t)b->nt);
  int most = 0;
  for (int i = 0; i < b->ring_n; i++)
    if (b->ring_ptr[i + 1] - b->ring_ptr[i] > most) most = b->ring_ptr[i + 1] - b->ring_ptr[i];
  int *u = SIM_NEW(int, 2 * (size_t)most + 1), *slot = SIM_NEW(int, 2 * (size_t)most + 1);
  if (!b->edge_f || !u || !slot) {
    sim_free(u), sim_free(slot);
    return -1;
  }
  memset(b->edge_f, SIM_BVH_EDGE_NONE, 3 * (size_t)b->nt);
  const sim_bvh_view view = sim_bvh_view_of(b);
  for (int i = 0; i < b->ring_n; i++) {
    const int v = b->ring_lo + i, n = sim_bvh_edges_owned(&view, v, 2 * most + 1, u, slot);
    for (int e = 0; e < n; e++) {
      const int *t = b->tri + 3 * slot[e];
      for (int k = 0; k < 3; k++)
        if ((t[k] == v && t[(k + 1) % 3] == u[e]) || (t[k] == u[e] && t[(k + 1) % 3] == v))
          b->edge_f[3 * slot[e] + k] =
              (unsigned char)(e < SIM_BVH_EDGE_PLACES - 1 ? e : SIM_BVH_EDGE_PLACES - 1);
    }
  }
  sim_free(u), sim_free(slot);
  return 0;
}

int sim_bvh_build(int nv, const double *x, int nt, const int *tri, sim_bvh *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  if (nv < 0 || nt < 0)
    return sim_fail(st, SIM_ERR_MESH, "bvh: negative counts (%d vertices, %d triangles)", nv, nt);
  for (int i = 0; i < 3 * nt; i++)
    if (tri[i] < 0 || tri[i] >= nv)
      return sim_fail(st, SIM_ERR_MESH,
                      "bvh: triangle %d has vertex index %d out of range (expected 0..%d)", i / 3,
                      tri[i], nv - 1);
  for (int i = 0; i < 3 * nv; i++)
    if (!isfinite(x[i]))
      return sim_fail(st, SIM_ERR_MESH, "bvh: vertex %d has a non-finite coordinate", i / 3);
  out->nv = nv;
  out->nt = nt;
  if (nt == 0) return SIM_OK;

  int rc = SIM_OK;
  double *cen = SIM_NEW(double, 3 * (size_t)nt);
  int *ord = SIM_NEW(int, nt);
  out->node = SIM_NEW(sim_bvh_node, 2 * (size_t)nt - 1);
  out->tri = SIM_NEW(int, 3 * (size_t)nt);
  out->id = SIM_NEW(int, nt);
  if (!cen || !ord || !out->node || !out->tri || !out->id) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "bvh: out of memory for %d triangles", nt);
    sim_bvh_free(out);
    goto done;
  }
  for (int t = 0; t < nt; t++) {
    ord[t] = t;
    for (int k = 0; k < 3; k++) /* 3 x centroid: only the order matters */
      cen[3 * t + k] =
          x[3 * tri[3 * t] + k] + x[3 * tri[3 * t + 1] + k] + x[3 * tri[3 * t + 2] + k];
  }
  build_node(out, cen, ord, 0, nt);
  for (int s = 0; s < nt; s++) {
    out->id[s] = ord[s];
    for (int k = 0; k < 3; k++) out->tri[3 * s + k] = tri[3 * ord[s] + k];
  }
  if (build_rings(out) || build_edge_places(out)) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "bvh: out of memory for %d triangles", nt);
    sim_bvh_free(out);
    goto done;
  }
  if (out->nnodes < 2 * nt - 1) { /* shrink; keep the larger block if that fails */
    sim_bvh_node *p = sim_realloc(out->node, sizeof(sim_bvh_node) * (size_t)out->nnodes);
    if (p) out->node = p;
  }
  sim_bvh_refit(out, x);
done:
  sim_free(cen);
  sim_free(ord);
  return rc;
}

/* Children have larger indices than their parent (pre-order): one backward sweep. */
void sim_bvh_refit(sim_bvh *b, const double *x) { sim_bvh_refit_swept(b, x, NULL); }

void sim_bvh_refit_swept(sim_bvh *b, const double *x, const double *x2) {
  for (int i = b->nnodes - 1; i >= 0; i--) sim_bvh_refit_node(b->node, b->tri, x, x2, i);
}

void sim_bvh_free(sim_bvh *b) {
  sim_free(b->node);
  sim_free(b->tri);
  sim_free(b->id);
  sim_free(b->ring_ptr);
  sim_free(b->ring);
  sim_free(b->edge_f);
  memset(b, 0, sizeof *b);
}

int sim_bvh_query(const sim_bvh *b, const double *x, const double p[3], double margin,
                  sim_bvh_visit visit, void *ctx) {
  if (!(margin >= 0)) return 0;
  const sim_bvh_view bv = sim_bvh_view_of(b);
  const double m2 = margin * margin;
  int found = 0;
  sim_bvh_walk w;
  sim_bvh_walk_begin(&bv, &w);
  for (int leaf; (leaf = sim_bvh_walk_next(&bv, &w, p, m2, NULL)) >= 0;) {
    const sim_bvh_node *nd = &b->node[leaf];
    for (int s = nd->first; s < nd->first + nd->count; s++) {
      sim_bvh_hit h;
      sim_bvh_slot_closest(&bv, x, p, s, &h.q);
      if (!(h.q.d2 <= m2)) continue;
      h.tri = b->id[s];
      found++;
      if (visit(ctx, &h)) return found;
    }
  }
  return found;
}

typedef struct {
  sim_bvh_hits *out;
  sim_status *st;
  int rc;
} hits_ctx;

static int push_hit(void *ctx, const sim_bvh_hit *h) {
  hits_ctx *c = ctx;
  sim_bvh_hits *o = c->out;
  if (o->n == o->cap) {
    const int cap = o->cap < 16 ? 16 : 2 * o->cap;
    sim_bvh_hit *p = sim_realloc(o->hit, sizeof(sim_bvh_hit) * (size_t)cap);
    if (!p) {
      c->rc = sim_fail(c->st, SIM_ERR_MEMORY, "bvh: out of memory for %d hits", cap);
      return 1;
    }
    o->hit = p;
    o->cap = cap;
  }
  o->hit[o->n++] = *h;
  return 0;
}

int sim_bvh_query_hits(const sim_bvh *b, const double *x, const double p[3], double margin,
                       sim_bvh_hits *out, sim_status *st) {
  hits_ctx c = {out, st, SIM_OK};
  sim_bvh_query(b, x, p, margin, push_hit, &c);
  return c.rc;
}

void sim_bvh_hits_free(sim_bvh_hits *h) {
  sim_free(h->hit);
  memset(h, 0, sizeof *h);
}

int sim_bvh_nearest(const sim_bvh *b, const double *x, const double p[3], double margin,
                    sim_bvh_hit *hit) {
  const sim_bvh_view bv = sim_bvh_view_of(b);
  return sim_bvh_view_nearest(&bv, x, p, margin, NULL, hit);
}

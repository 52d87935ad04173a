/* SPDX-License-Identifier: MIT */
/* Bounding volume hierarchy over a triangle mesh: proximity queries (DESIGN.md Sec. 7).

   An axis-aligned box tree, built top down: a node's triangles are split at the median of
   their centroids along the longest axis of the centroids' bounding box (ties broken by
   triangle index, so the tree depends on the input only), down to leaves of at most
   SIM_BVH_LEAF triangles. The tree is balanced (depth <= ceil(log2 nt) + 1) and flat: nodes
   in pre-order in one array (a left child follows its parent), the triangles copied in leaf
   order. Deformable bodies move every step: sim_bvh_refit recomputes every box bottom up in
   O(nt) and keeps the topology (rebuild after large changes if queries slow down).

   Positions are not stored: pass to every query the vertex array given to the last build or
   refit (the boxes bound those positions). Leaf boxes are padded by 16 eps max|coordinate| so
   that rounding of a closest point never puts it outside its box: queries return exactly what
   a loop over all triangles with sim_tri_closest_point returns.

   Distances are unsigned (open and thin meshes work); each hit carries the triangle's unit
   normal, the side of the point and the feature, and sim_tri_contact_normal gives the
   contact normal (tri_distance.h documents the conventions). Queries only read the tree:
   any number of threads may query one tree at once (one sim_bvh_hits array per thread).

   Failure: sim_bvh_build fails with SIM_ERR_MESH on bad input (negative counts, vertex index
   out of range, non-finite coordinate) and SIM_ERR_MEMORY; it leaves *out zeroed on failure. */
#ifndef SIM_CONTACT_BVH_H
#define SIM_CONTACT_BVH_H
#include "base/status.h"
#include "contact/tri_distance.h"

#define SIM_BVH_LEAF 4 /* most triangles in a leaf */

typedef struct sim_bvh_node {
  double lo[3], hi[3]; /* box */
  int first;           /* leaf: first slot in tri/id; inner: the right child (left = node + 1) */
  int count;           /* leaf: number of triangles (>= 1); inner: 0 */
} sim_bvh_node;

typedef struct sim_bvh {
  int nv, nt, nnodes;
  sim_bvh_node *node; /* nnodes, pre-order, node 0 the root; NULL when nt == 0 */
  int *tri;           /* 3 nt vertex indices in leaf order (each triangle's own order kept) */
  int *id;            /* nt: input index of the triangle in each slot */
  /* The triangles at each vertex (for pseudo-normals without a walk of the tree): vertex
     ring_lo + i's slots are ring[ring_ptr[i] .. ring_ptr[i + 1]), ascending, each once;
     ring_n spans the vertices the triangles use, lowest to highest (bodies' trees index the
     global positions, and a body's vertices are consecutive there). */
  int ring_lo, ring_n;
  int *ring_ptr; /* ring_n + 1 */
  int *ring;     /* at most 3 nt */
  /* Each slot's edges (bvh_query.h sim_bvh_edges_owned): edge_f[3 s + k], edge k of slot s
     joining its vertices k and k + 1, is that edge's place among the edges its lower vertex
     owns where s is the first triangle of that vertex's ring that has it (at most
     SIM_BVH_EDGE_PLACES - 1), else SIM_BVH_EDGE_NONE: each edge is named at one slot. */
  unsigned char *edge_f; /* 3 nt */
} sim_bvh;
#define SIM_BVH_EDGE_NONE 255
#define SIM_BVH_EDGE_PLACES 255

typedef struct sim_bvh_hit {
  int tri;           /* input triangle index */
  sim_tri_closest q; /* distance, closest point, barycentrics, feature, normal, side */
} sim_bvh_hit;

/* A growable list of hits owned by the caller (start from {0}; set n = 0 to reuse). */
typedef struct sim_bvh_hits {
  sim_bvh_hit *hit;
  int n, cap;
} sim_bvh_hits;

/* Called for each hit in traversal order (deterministic for a given tree); return nonzero
   to stop the query. */
typedef int (*sim_bvh_visit)(void *ctx, const sim_bvh_hit *hit);

/* x: 3 nv coordinates, tri: 3 nt vertex indices (nt may be 0: every query finds nothing). */
int sim_bvh_build(int nv, const double *x, int nt, const int *tri, sim_bvh *out, sim_status *st);
void sim_bvh_refit(sim_bvh *b, const double *x); /* new positions of the same nv vertices */
/* A swept tree: the boxes bound the triangles at x and, unless x2 is NULL, at x2 (and so at
   every pose between, linearly). Queries take either array; they return what they return on a
   tree refit to that array alone, only visiting more nodes. */
void sim_bvh_refit_swept(sim_bvh *b, const double *x, const double *x2);
void sim_bvh_free(sim_bvh *b);                   /* frees the arrays, zeroes the struct */

/* Every triangle with squared distance <= margin^2 to p (none when margin < 0 or NaN).
   Returns the number of hits visited. */
int sim_bvh_query(const sim_bvh *b, const double *x, const double p[3], double margin,
                  sim_bvh_visit visit, void *ctx);
/* The same hits appended to *out (grown with sim_realloc); SIM_OK or SIM_ERR_MEMORY. */
int sim_bvh_query_hits(const sim_bvh *b, const double *x, const double p[3], double margin,
                       sim_bvh_hits *out, sim_status *st);
void sim_bvh_hits_free(sim_bvh_hits *h);
/* The nearest triangle within margin (margin = INFINITY: the nearest one): the smallest
   (d2, triangle index). Returns 1 and fills *hit when found, else 0. */
int sim_bvh_nearest(const sim_bvh *b, const double *x, const double p[3], double margin,
                    sim_bvh_hit *hit);

#endif

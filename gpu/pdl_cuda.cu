// SPDX-License-Identifier: MIT
// Programmatic dependent launch in the CUDA backend's graphs (SIMCTL_CUDA_PDL=on, gpu/pdl.cuh):
// a captured graph is a chain, each node depending on the one before. Where a kernel of simctl's
// follows a kernel, and that edge is its only one, the edge becomes programmatic from the port
// where every block of the one before has begun (cudaGraphKernelNodePortLaunchCompletion): the
// driver may then
// launch the second while the first still runs, its blocks waiting at SIM_PDL_WAIT until the
// first has finished and its writes are visible. What the graph hides is each kernel's launch
// latency, of the order of microseconds: most of the contact stage's kernels take no more, some
// hundreds of them a frame. Edges into a library's kernels (cuSPARSE's, where the global step is
// Cholesky's or cuSPARSE's products), and from or to a copy, a memset or an event record, stay as
// they were. The edges' data is CUDA 13.0's API (cudaGraphGetEdges and the rest with edge data;
// 12.3-12.9 named them _v2): built with an older toolkit, the option makes no edges and the
// backend notes so (sim_cuda_pdl_built).
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/alloc.h"
}

static long long pdl_edges; /* made in this process (sim_cuda_pdl_edges) */

extern "C" long long sim_cuda_pdl_edges(void) { return pdl_edges; }

extern "C" int sim_cuda_pdl_name_ours(const char *s) {
  if (!strncmp(s, "void ", 5)) s += 5; /* demangled, with its return type */
  if (s[0] == '_' && s[1] == 'Z') {    /* mangled: _Z, L where static, the name's length */
    s += 2;
    if (*s == 'L') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
  }
  return s[0] == 'k' && s[1] == '_';
}

static int node_type(cudaGraphNode_t n, cudaGraphNodeType *t, sim_status *st) {
  SIM_CU(cudaGraphNodeGetType(n, t), st);
  return SIM_OK;
}

// Whether kernel node n runs one of gpu/'s kernels (named k_*, each beginning with SIM_PDL_WAIT):
// a library's kernel gives no name to this runtime (cudaErrorInvalidDeviceFunction, not sticky),
// or another.
static int ours(cudaGraphNode_t n) {
  cudaKernelNodeParams p{};
  const char *name = NULL;
  if (cudaGraphKernelNodeGetParams(n, &p) != cudaSuccess || !p.func ||
      cudaFuncGetName(&name, p.func) != cudaSuccess || !name) {
    cudaGetLastError(); /* not ours: no error */
    return 0;
  }
  return sim_cuda_pdl_name_ours(name);
}

int sim_cuda_pdl_built(void) { return CUDART_VERSION >= 13000; }

#if CUDART_VERSION >= 13000 /* the graphs' edge data as CUDA 13.0 declares it (12.3-12.9: _v2) */
typedef struct edge_at {    /* an edge's end and its place in the lists, sorted by the end */
  uintptr_t to;
  size_t k;
} edge_at;
static int by_to(const void *a, const void *b) {
  const uintptr_t x = ((const edge_at *)a)->to, y = ((const edge_at *)b)->to;
  return x < y ? -1 : x > y;
}

// Edge k of (from, to, ed) made programmatic where it is its end's only edge, a default one
// from a kernel into one of gpu/'s kernels; pdl_edges counts them.
static int rewrite(cudaGraph_t g, size_t ne, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                   const cudaGraphEdgeData *ed, const edge_at *order, sim_status *st) {
  int rc = SIM_OK;
  for (size_t a = 0; !rc && a < ne;) {
    size_t b = a + 1; /* order[a, b): the edges into one node */
    while (b < ne && order[b].to == order[a].to) b++;
    const size_t k = order[a].k;
    cudaGraphNodeType tf, tt;
    const int alone = b == a + 1;
    a = b;
    if (!alone || ed[k].type != cudaGraphDependencyTypeDefault || ed[k].from_port != 0) continue;
    if ((rc = node_type(from[k], &tf, st)) || (rc = node_type(to[k], &tt, st))) break;
    if (tf != cudaGraphNodeTypeKernel || tt != cudaGraphNodeTypeKernel || !ours(to[k])) continue;
    cudaGraphEdgeData pe;
    memset(&pe, 0, sizeof pe);
    pe.type = cudaGraphDependencyTypeProgrammatic;
    pe.from_port = cudaGraphKernelNodePortLaunchCompletion;
    cudaError_t e = cudaGraphRemoveDependencies(g, &from[k], &to[k], &ed[k], 1);
    if (e == cudaSuccess) e = cudaGraphAddDependencies(g, &from[k], &to[k], &pe, 1);
    if (e != cudaSuccess)
      return sim_cuda_fail(st, "a programmatic edge (SIMCTL_CUDA_PDL)", cudaGetErrorString(e),
                           __FILE__, __LINE__);
    pdl_edges++;
  }
  return rc;
}
#endif

int sim_cuda_graph_pdl(cudaGraph_t g, sim_status *st) {
#if CUDART_VERSION >= 13000
  size_t ne = 0;
  SIM_CU(cudaGraphGetEdges(g, NULL, NULL, NULL, &ne), st);
  if (ne == 0) return SIM_OK;
  cudaGraphNode_t *from = SIM_NEW(cudaGraphNode_t, 2 * ne);
  cudaGraphEdgeData *ed = SIM_NEW(cudaGraphEdgeData, ne);
  edge_at *order = SIM_NEW(edge_at, ne);
  int rc = SIM_OK;
  if (!from || !ed || !order) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (%zu graph edges)", ne);
  } else {
    cudaGraphNode_t *to = from + ne;
    cudaError_t e = cudaGraphGetEdges(g, from, to, ed, &ne); /* with their data: no lossy query */
    if (e != cudaSuccess)
      rc = sim_cuda_fail(st, "cudaGraphGetEdges", cudaGetErrorString(e), __FILE__, __LINE__);
    for (size_t k = 0; !rc && k < ne; k++) order[k] = edge_at{(uintptr_t)to[k], k};
    if (!rc) qsort(order, ne, sizeof *order, by_to); /* grouped by end: each node's edges */
    if (!rc) rc = rewrite(g, ne, from, to, ed, order, st);
  }
  sim_free(from);
  sim_free(ed);
  sim_free(order);
  return rc;
#else
  (void)g;
  (void)st;
  return SIM_OK;
#endif
}

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
#if !defined(SIM_EMU_CUDA_RUNTIME_H) && CUDART_VERSION >= 12050
#include <cuda.h> /* the driver's types alone: its functions come through the runtime */
#endif

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

// (the driver's names: not on the emulation, which has the runtime's alone, nor before 12.5)
#if !defined(SIM_EMU_CUDA_RUNTIME_H) && CUDART_VERSION >= 12050
// Kernel node n's kernel's name from the driver, which names every kernel, a library's too
// (cuSPARSE's, whose nodes this runtime cannot name: cudaGraphKernelNodeGetParams answers them
// cudaErrorInvalidDeviceFunction, which compute-sanitizer's memcheck counts as an error, 40 of
// them in test_gpu_runs on an H200, 2026-12-04). 1: *name set; 0: no name; -1: the driver's
// functions not found (the caller asks the runtime instead).
typedef CUresult (*node_params_fn)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2 *);
typedef CUresult (*func_name_fn)(const char **, CUfunction);
typedef CUresult (*kernel_name_fn)(const char **, CUkernel);
static int driver_name(cudaGraphNode_t n, const char **name) {
  static int looked;
  static node_params_fn params;
  static func_name_fn func_name;
  static kernel_name_fn kernel_name;
  if (!looked) {
    looked = 1;
    cudaDriverEntryPointQueryResult q;
    void *f = NULL;
    if (cudaGetDriverEntryPointByVersion("cuGraphKernelNodeGetParams", &f, 12000, cudaEnableDefault,
                                         &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      params = (node_params_fn)f;
    if (cudaGetDriverEntryPointByVersion("cuFuncGetName", &f, 12030, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      func_name = (func_name_fn)f;
    if (cudaGetDriverEntryPointByVersion("cuKernelGetName", &f, 12030, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      kernel_name = (kernel_name_fn)f;
    cudaGetLastError(); /* a symbol not found is no error of the run's */
  }
  if (!params || !func_name) return -1;
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  memset(&p, 0, sizeof p);
  if (params((CUgraphNode)n, &p) != CUDA_SUCCESS) return 0;
  if (p.func) return func_name(name, p.func) == CUDA_SUCCESS && *name;
  return p.kern && kernel_name && kernel_name(name, p.kern) == CUDA_SUCCESS && *name;
}
#else
static int driver_name(cudaGraphNode_t, const char **) { return -1; }
#endif

// Whether kernel node n runs one of gpu/'s kernels (named k_*, each beginning with SIM_PDL_WAIT),
// by the driver's name for it; where the driver's functions are missing, by this runtime's, which
// gives none to a library's kernel (cudaErrorInvalidDeviceFunction, not sticky).
static int ours(cudaGraphNode_t n) {
  const char *name = NULL;
  const int d = driver_name(n, &name);
  if (d >= 0) return d && sim_cuda_pdl_name_ours(name);
  cudaKernelNodeParams p{};
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

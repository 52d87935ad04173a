// SPDX-License-Identifier: MIT
// Programmatic dependent launch in the CUDA backend's graphs (SIMCTL_CUDA_PDL=on, gpu/pdl.cuh):
// a captured graph is a chain, each node depending on the one before. Where a kernel of simctl's
// follows a kernel, the edge between them becomes programmatic from the port where every block
// of the one before has begun (cudaGraphKernelNodePortLaunchCompletion): the driver may then
// launch the second while the first still runs, its blocks waiting at SIM_PDL_WAIT until the
// first has finished and its writes are visible. What the graph hides is each kernel's launch
// latency, of the order of microseconds: most of the contact stage's kernels take no more, some
// hundreds of them a frame. Edges into a library's kernels (cuSPARSE's, where the global step is
// Cholesky's or cuSPARSE's products), and from or to a copy, a memset or an event record, stay as
// they were.
#include <ctype.h>
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
// a library's kernel gives no name to this runtime, or another.
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

int sim_cuda_graph_pdl(cudaGraph_t g, int *made, sim_status *st) {
  size_t n = 0;
  *made = 0;
  SIM_CU(cudaGraphGetNodes(g, NULL, &n), st);
  if (n < 2) return SIM_OK;
  cudaGraphNode_t *node = SIM_NEW(cudaGraphNode_t, n);
  if (!node) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%zu graph nodes)", n);
  int rc = SIM_OK;
  cudaError_t e = cudaGraphGetNodes(g, node, &n);
  if (e != cudaSuccess)
    rc = sim_cuda_fail(st, "cudaGraphGetNodes", cudaGetErrorString(e), __FILE__, __LINE__);
  for (size_t i = 0; !rc && i < n; i++) {
    cudaGraphNodeType tb, ta;
    size_t nd = 0;
    if ((rc = node_type(node[i], &tb, st)) || tb != cudaGraphNodeTypeKernel) continue;
    e = cudaGraphNodeGetDependencies(node[i], NULL, NULL, &nd);
    if (e != cudaSuccess || nd != 1) {
      if (e != cudaSuccess)
        rc = sim_cuda_fail(st, "cudaGraphNodeGetDependencies", cudaGetErrorString(e), __FILE__,
                           __LINE__);
      continue;
    }
    cudaGraphNode_t a = NULL;
    cudaGraphEdgeData ed;
    memset(&ed, 0, sizeof ed);
    e = cudaGraphNodeGetDependencies(node[i], &a, &ed, &nd);
    if (e != cudaSuccess) {
      rc = sim_cuda_fail(st, "cudaGraphNodeGetDependencies", cudaGetErrorString(e), __FILE__,
                         __LINE__);
      break;
    }
    if ((rc = node_type(a, &ta, st)) || ta != cudaGraphNodeTypeKernel ||
        ed.type != cudaGraphDependencyTypeDefault || ed.from_port != 0 || !ours(node[i]))
      continue;
    cudaGraphEdgeData pe;
    memset(&pe, 0, sizeof pe);
    pe.type = cudaGraphDependencyTypeProgrammatic;
    pe.from_port = cudaGraphKernelNodePortLaunchCompletion;
    e = cudaGraphRemoveDependencies(g, &a, &node[i], &ed, 1);
    if (e == cudaSuccess) e = cudaGraphAddDependencies(g, &a, &node[i], &pe, 1);
    if (e != cudaSuccess)
      rc = sim_cuda_fail(st, "a programmatic edge (SIMCTL_CUDA_PDL)", cudaGetErrorString(e),
                         __FILE__, __LINE__);
    else
      ++*made;
  }
  sim_free(node);
  pdl_edges += *made;
  return rc;
}

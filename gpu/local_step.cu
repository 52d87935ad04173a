// SPDX-License-Identifier: MIT
// CUDA local step (Eq. 5) and energy: one thread per element for the projections (ARAP, or
// ADMM-PD's singular-value solve for co-rotational and Neo-Hookean), one per bending stencil,
// then one per free vertex gathering its right-hand-side row. The per-element and per-vertex
// math is the CPU backend's (core/solve/local_elem.h), so both add the same terms in the same
// order. The energy's terms are summed by one block in a fixed order (deterministic).
#include "cuda_ctx.h"

extern "C" {
#include "../core/solve/local_elem.h"
}

#define SIM_SUM_THREADS 1024

// MINB: the blocks of SIM_CUDA_BLOCK threads a multiprocessor must hold at once (1: as many
// registers as the compiler wants). The co-rotational and Neo-Hookean singular-value solve
// (sim_local_project, inlined) takes 232 registers a thread unbounded (nvcc 13.0, sm_90: ptxas -v),
// so a multiprocessor runs one block of 256 threads, 8 warps, and the squeezing ball's 36k
// tetrahedra (141 blocks) take two rounds on an H200's 132 multiprocessors. MINB 2, 3 and 4 bound
// the registers to 128, 80 and 64 at the price of spills (888, 1,780 and 2,096 bytes a thread
// stored to local memory, which the L1 cache holds in part): SIMCTL_CUDA_LOCAL_BLOCKS.
template <int MINB>
static __global__ void __launch_bounds__(SIM_CUDA_BLOCK, MINB)
    k_project(int nelem, const sim_elem *elems, const double *q, double *R, double *U) {
  SIM_PDL_WAIT();
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nelem) return;
  sim_local_project(&elems[e], q, R + 9 * (size_t)e, U ? U + 9 * (size_t)e : NULL);
}

// The projections of a model whose elements are all ARAP (sim_model.admm 0): sim_local_project's
// ARAP branch alone, 80 registers a thread without spills where k_project takes 232 for the
// branch it does not run, so a multiprocessor holds three blocks, not one. The same bits.
static __global__ void k_arap_project(int nelem, const sim_elem *elems, const double *q,
                                      double *R) {
  SIM_PDL_WAIT();
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nelem) return;
  sim_arap_project(&elems[e], q, R + 9 * (size_t)e);
}

// The split local step (SIMCTL_CUDA_LOCAL_SPLIT=on, c->svd): the projections in two kernels,
// sim_local_project_svd's bounded to three blocks of 256 threads a multiprocessor (80 registers a
// thread, nvcc 13.0, sm_90, no spills) and sim_local_project_solve's in blocks of
// SIM_LOCAL_SOLVE_BLOCK threads bounded to three a multiprocessor (168 registers, no spills: 12
// warps against k_project's 8).
// The same bits as k_project (test_gpu_backend); 21 doubles an element through memory between
// the two, and one launch more.
#define SIM_LOCAL_SOLVE_BLOCK 128
static __global__ void __launch_bounds__(SIM_CUDA_BLOCK, 3)
    k_project_svd(int nelem, const sim_elem *elems, const double *q, const double *U, double *R,
                  double *svd) {
  SIM_PDL_WAIT();
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nelem) return;
  sim_local_project_svd(&elems[e], q, U + 9 * (size_t)e, R + 9 * (size_t)e,
                        svd + SIM_LOCAL_SVD * (size_t)e);
}

static __global__ void __launch_bounds__(SIM_LOCAL_SOLVE_BLOCK, 3)
    k_project_solve(int nelem, const sim_elem *elems, const double *q, const double *svd, double *R,
                    double *U) {
  SIM_PDL_WAIT();
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= nelem) return;
  sim_local_project_solve(&elems[e], q, svd + SIM_LOCAL_SVD * (size_t)e, R + 9 * (size_t)e,
                          U + 9 * (size_t)e);
}

static __global__ void k_bend_project(sim_bending bend, const double *q, double *P) {
  SIM_PDL_WAIT();
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= bend.nst) return;
  double Lq[3];
  sim_bending_apply(&bend, s, q, Lq);
  sim_bending_project(&bend, s, Lq, P + 3 * (size_t)s);
}

// rhs's row f; with S's interval rows (bp_rhs) also P rhs's row iperm[f], which the global
// step's products of rhs read (global_step.cu).
static __global__ void k_rhs(int nfree, sim_local_view v, const double *qh, const double *R,
                             const double *P, const double *pin_pos, double *rhs, const int *iperm,
                             double *bp_rhs) {
  SIM_PDL_WAIT();
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nfree) return;
  double r[3];
  sim_local_rhs(&v, f, qh, R, P, pin_pos, r);
  for (int d = 0; d < 3; d++) rhs[3 * (size_t)f + d] = r[d];
  if (bp_rhs)
    for (int d = 0; d < 3; d++) bp_rhs[3 * (size_t)iperm[f] + d] = r[d];
}

// The model's view with the device copies of its arrays.
static sim_local_view device_view(const cuda_ctx *c) {
  sim_local_view v = {c->elems,  c->free_vert, c->mass,   c->vt_ptr,        c->vt_idx,
                      c->vb_ptr, c->vb_idx,    c->ent_st, c->bend.k,        c->bend.coef,
                      c->C_ptr,  c->C_idx,     c->C_val,  c->m->h * c->m->h};
  return v;
}

int sim_cuda_local_create(cuda_ctx *c, sim_status *st) {
  int split = 0;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_LOCAL_SPLIT", "off", "on", 0, &split, st);
  if (rc || !split || !c->m->admm || c->m->nelem == 0) return rc;
  return sim_cuda_new<double>(c, &c->svd, SIM_LOCAL_SVD * (size_t)c->m->nelem, NULL, st);
}

int sim_cuda_local_step(sim_backend *be, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  const double *q = c->vec[SIM_VEC_Q];
  if (m->nelem > 0) {
    const unsigned g = sim_cuda_blocks(m->nelem);
    cudaStream_t sm = c->stream;
    if (!m->admm) {
      k_arap_project<<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->R);
    } else if (c->svd) {
      const unsigned g2 =
          (unsigned)((m->nelem + SIM_LOCAL_SOLVE_BLOCK - 1) / SIM_LOCAL_SOLVE_BLOCK);
      k_project_svd<<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->U, c->R, c->svd);
      k_project_solve<<<g2, SIM_LOCAL_SOLVE_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->svd, c->R,
                                                            c->U);
    } else if (c->local_blocks == 2) {
      k_project<2><<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->R, c->U);
    } else if (c->local_blocks == 3) {
      k_project<3><<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->R, c->U);
    } else if (c->local_blocks == 4) {
      k_project<4><<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->R, c->U);
    } else {
      k_project<1><<<g, SIM_CUDA_BLOCK, 0, sm>>>(m->nelem, c->elems, q, c->R, c->U);
    }
  }
  if (c->bend.nst > 0)
    k_bend_project<<<sim_cuda_blocks(c->bend.nst), SIM_CUDA_BLOCK, 0, c->stream>>>(c->bend, q,
                                                                                   c->P);
  if (m->nfree > 0)
    k_rhs<<<sim_cuda_blocks(m->nfree), SIM_CUDA_BLOCK, 0, c->stream>>>(
        m->nfree, device_view(c), c->vec[SIM_VEC_QTILDE], c->R, c->P, c->pin_pos, c->rhs,
        c->S.iperm, c->S.row_interval ? c->S.bp_rhs : NULL);
  SIM_CU(cudaGetLastError(), st); /* queued, not waited for (core/solve/backend.h) */
  return SIM_OK;
}

// Energy terms: elements (and their densities), free vertices' inertia |q - q~|_M^2 / (2h^2),
// bending stencils; laid out in that order in `terms`.
static __global__ void k_energy_terms(int nelem, const sim_elem *elems, int nfree,
                                      const int *free_vert, const double *mass, sim_bending bend,
                                      double ih2, const double *q, const double *qh, double *terms,
                                      double *dens) {
  SIM_PDL_WAIT();
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t < nelem) {
    double E = sim_local_energy(&elems[t], q);
    dens[t] = E / elems[t].vol;
    terms[t] = E;
    return;
  }
  t -= nelem;
  if (t < nfree) {
    size_t i = 3 * (size_t)free_vert[t];
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) d2 += (q[i + k] - qh[i + k]) * (q[i + k] - qh[i + k]);
    terms[nelem + t] = 0.5 * ih2 * mass[i / 3] * d2;
    return;
  }
  t -= nfree;
  if (t < bend.nst) terms[nelem + nfree + t] = sim_bending_stencil_energy(&bend, (int)t, q);
}

// out = sum of x[0..n): each thread adds a fixed stride of terms, then a tree in shared memory.
static __global__ void k_sum(long long n, const double *x, double *out) {
  SIM_PDL_WAIT();
  __shared__ double s[SIM_SUM_THREADS];
  double a = 0.0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) a += x[i];
  s[threadIdx.x] = a;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = s[0];
}

int sim_cuda_energy_queue(cuda_ctx *c, sim_status *st) {
  const sim_model *m = c->m;
  long long n = (long long)m->nelem + m->nfree + c->bend.nst;
  if (n > 0)
    k_energy_terms<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, c->stream>>>(
        m->nelem, c->elems, m->nfree, c->free_vert, c->mass, c->bend, 1.0 / (m->h * m->h),
        c->vec[SIM_VEC_Q], c->vec[SIM_VEC_QTILDE], c->energy, c->dens);
  k_sum<<<1, SIM_SUM_THREADS, 0, c->stream>>>(n, c->energy, c->energy + n);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

double sim_cuda_energy(sim_backend *be, double *elem) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  long long n = (long long)m->nelem + m->nfree + c->bend.nst;
  double E = NAN;
  sim_status st = {0};
  // the table's energy op has no status: a device failure gives NaN
  if (sim_cuda_energy_queue(c, &st)) return NAN;
  if (cudaMemcpyAsync(&E, c->energy + n, sizeof E, cudaMemcpyDeviceToHost, c->stream) !=
      cudaSuccess)
    return NAN;
  if (elem && m->nelem > 0 &&
      cudaMemcpyAsync(elem, c->dens, sizeof(double) * (size_t)m->nelem, cudaMemcpyDeviceToHost,
                      c->stream) != cudaSuccess)
    return NAN;
  if (cudaStreamSynchronize(c->stream) != cudaSuccess) return NAN;
  return E;
}

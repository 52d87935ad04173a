// SPDX-License-Identifier: MIT
// The CUDA backend (DESIGN.md Sec. 10): the whole elastic frame on the device. The model's
// arrays, the state vectors, the ADMM-PD duals and S stay resident; the host sees positions only
// when it downloads them for output or collision detection. Kernels here: predict, pins,
// integrate; the local step is in local_step.cu, the global step in global_step.cu, the
// contact stage's device operations in contact_cuda.cu.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact_cuda.h"
#include "cuda_ctx.h"
#include "detect_cuda.h"
#include "range_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/stage.h"
#include "../core/contact/world.h"
}

static int sync(cuda_ctx *c, sim_status *st) {
  SIM_CU(cudaGetLastError(), st);
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  return SIM_OK;
}

// The elastic operations return once their work is queued (core/solve/backend.h).
static int queued(sim_status *st) {
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

static int cuda_upload(sim_backend *be, sim_vec_id id, const double *host, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  SIM_CU(cudaMemcpyAsync(c->vec[id], host, sizeof(double) * 3 * (size_t)c->m->n,
                         cudaMemcpyHostToDevice, c->stream),
         st);
  return sync(c, st);
}

static int cuda_download(sim_backend *be, sim_vec_id id, double *host, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  SIM_CU(cudaMemcpyAsync(host, c->vec[id], sizeof(double) * 3 * (size_t)c->m->n,
                         cudaMemcpyDeviceToHost, c->stream),
         st);
  return sync(c, st);
}

static double *buffer(cuda_ctx *c, sim_buf_id id) {
  double *const b[SIM_BUF_COUNT] = {c->rhs, c->R, c->U, c->P};
  return (int)id >= 0 && id < SIM_BUF_COUNT ? b[id] : NULL;
}

static int cuda_read_buffer(sim_backend *be, sim_buf_id id, double *host, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  size_t n = sim_buffer_len(c->m, id);
  if (n)
    SIM_CU(
        cudaMemcpyAsync(host, buffer(c, id), sizeof(double) * n, cudaMemcpyDeviceToHost, c->stream),
        st);
  return sync(c, st);
}

static int cuda_write_buffer(sim_backend *be, sim_buf_id id, const double *host, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  size_t n = sim_buffer_len(c->m, id);
  if (n)
    SIM_CU(
        cudaMemcpyAsync(buffer(c, id), host, sizeof(double) * n, cudaMemcpyHostToDevice, c->stream),
        st);
  /* P rhs beside rhs, for S's interval rows: rhs's every writer keeps it */
  if (n && id == SIM_BUF_RHS && sim_cuda_S_permute_rhs(c, st)) return st->code;
  return sync(c, st);
}

static int cuda_set_pins(sim_backend *be, const double *pin_pos, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  if (c->m->npinned > 0)
    SIM_CU(cudaMemcpyAsync(c->pin_pos, pin_pos, sizeof(double) * 3 * (size_t)c->m->npinned,
                           cudaMemcpyHostToDevice, c->stream),
           st);
  return queued(st); /* the host's copy is staged at the call */
}

// q~ = q_t + h v + h^2 g and q = q~ on free vertices (Sec. 3 of the paper, implicit Euler).
static __global__ void k_predict(int nfree, const int *free_vert, const double *qt, const double *v,
                                 double h, double g0, double g1, double g2, double *qh, double *q) {
  SIM_PDL_WAIT();
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nfree) return;
  size_t i = 3 * (size_t)free_vert[f];
  double g[3] = {g0, g1, g2};
  for (int k = 0; k < 3; k++) {
    double x = qt[i + k] + h * v[i + k] + h * h * g[k];
    qh[i + k] = x;
    q[i + k] = x;
  }
}

// Pinned vertices: q = q~ = their scripted targets.
static __global__ void k_pins(int npinned, const int *pinned, const double *pin_pos, double *qh,
                              double *q) {
  SIM_PDL_WAIT();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= npinned) return;
  size_t i = 3 * (size_t)pinned[p];
  for (int k = 0; k < 3; k++) q[i + k] = qh[i + k] = pin_pos[3 * (size_t)p + k];
}

static int cuda_predict(sim_backend *be, const double g[3], sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  if (m->nfree > 0)
    k_predict<<<sim_cuda_blocks(m->nfree), SIM_CUDA_BLOCK, 0, c->stream>>>(
        m->nfree, c->free_vert, c->vec[SIM_VEC_QT], c->vec[SIM_VEC_V], m->h, g[0], g[1], g[2],
        c->vec[SIM_VEC_QTILDE], c->vec[SIM_VEC_Q]);
  if (m->npinned > 0)
    k_pins<<<sim_cuda_blocks(m->npinned), SIM_CUDA_BLOCK, 0, c->stream>>>(
        m->npinned, c->pinned, c->pin_pos, c->vec[SIM_VEC_QTILDE], c->vec[SIM_VEC_Q]);
  sim_cuda_solvers_reset(c); /* Chebyshev counts from the step's first iteration */
  if (c->U) /* Overby 2017: u = 0 at the start of a step */
    SIM_CU(cudaMemsetAsync(c->U, 0, sizeof(double) * 9 * (size_t)m->nelem, c->stream), st);
  return queued(st);
}

// v = (q - q_t) / h; q_t = q.
static __global__ void k_integrate(long long n3, double ih, const double *q, double *qt,
                                   double *v) {
  SIM_PDL_WAIT();
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n3) return;
  v[i] = (q[i] - qt[i]) * ih;
  qt[i] = q[i];
}

static int cuda_integrate(sim_backend *be, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  long long n3 = 3LL * c->m->n;
  if (n3 > 0)
    k_integrate<<<sim_cuda_blocks(n3), SIM_CUDA_BLOCK, 0, c->stream>>>(
        n3, 1.0 / c->m->h, c->vec[SIM_VEC_Q], c->vec[SIM_VEC_QT], c->vec[SIM_VEC_V]);
  return queued(st);
}

// Collision detection on the device unless SIMCTL_CUDA_DETECT=host (the host's, for comparison).
static int detector(sim_backend *be, sim_status *st) {
  cuda_ctx *c = CCTX(be);
  int on_device = 1;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_DETECT", "host", "device", 1, &on_device, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_TWINS", "off", "on", 1, &c->twins, st);
  if (rc || !on_device) return rc;
  rc = sim_cuda_detect_create(c->stream, &c->det, st);
  if (!rc) {
    be->detect.ctx = c->det;
    be->detect.run = sim_cuda_detect_run;
    be->detect.passes = sim_cuda_detect_passes;
    be->detect.points = sim_cuda_detect_points;
  }
  return rc;
}

static void cuda_global_stats(sim_backend *be, sim_global_stats *out) {
  const cuda_ctx *c = CCTX(be);
  *out = c->stats;
  out->device_bytes = c->dev_bytes + sim_cuda_detect_bytes(c->det) +
                      (c->cst ? sim_cuda_delassus_bytes(c->cst->del) : 0);
}

static int cuda_report(sim_backend *be, const char *dir, sim_status *st) {
  SIM_CU(cudaStreamSynchronize(CCTX(be)->stream), st); /* every device range passed */
  return sim_cuda_ranges_write(dir, st);
}

static void cuda_destroy(sim_backend *be) {
  if (!be) return;
  cuda_ctx *c = CCTX(be);
  if (c) {
    if (c->stream) cudaStreamSynchronize(c->stream); /* nothing queued reads what is freed */
    if (c->ranges) sim_cuda_ranges_close();
    sim_cuda_events_free(&c->spans.pool);
    sim_cuda_lg_destroy(c);
    sim_cuda_snapshot_destroy(c);
    sim_cuda_detect_destroy(c->det);
    sim_cuda_reads_free(c, &c->reads);
    sim_cuda_contact_destroy(c);
    sim_cuda_global_destroy(c);
    void *p[] = {c->vec[0], c->vec[1],   c->vec[2],    c->vec[3],    c->pin_pos, c->R,
                 c->U,      c->svd,      c->P,         c->rhs,       c->y,       c->energy,
                 c->dens,   c->elems,    c->free_vert, c->pinned,    c->vt_ptr,  c->vt_idx,
                 c->vb_ptr, c->vb_idx,   c->ent_st,    c->C_ptr,     c->C_idx,   c->mass,
                 c->C_val,  c->bend.ptr, c->bend.vid,  c->bend.coef, c->bend.k,  c->bend.rest};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) cudaFree(p[i]);
    if (c->stream) cudaStreamDestroy(c->stream);
    sim_free(c);
  }
  sim_free(be);
}

// The model's arrays and the state on the device.
static int upload_model(cuda_ctx *c, sim_status *st) {
  const sim_model *m = c->m;
  const sim_bending *b = m->bend;
  size_t n3 = 3 * (size_t)m->n, nent = b->nst > 0 ? (size_t)b->ptr[b->nst] : 0;
  int rc = SIM_OK;
  for (int i = 0; i < SIM_VEC_COUNT && !rc; i++)
    rc = sim_cuda_new<double>(c, &c->vec[i], n3, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->pin_pos, 3 * (size_t)m->npinned, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->R, 9 * (size_t)m->nelem, NULL, st);
  if (!rc && m->admm) rc = sim_cuda_new<double>(c, &c->U, 9 * (size_t)m->nelem, NULL, st);
  if (!rc) rc = sim_cuda_local_create(c, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->P, 3 * (size_t)b->nst, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->rhs, 3 * (size_t)m->nfree, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->y, 3 * (size_t)m->nfree, NULL, st);
  if (!rc)
    rc = sim_cuda_new<double>(c, &c->energy, (size_t)m->nelem + m->nfree + b->nst + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->dens, (size_t)m->nelem, NULL, st);
  if (!rc) rc = sim_cuda_new<sim_elem>(c, &c->elems, (size_t)m->nelem, m->elems, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->free_vert, (size_t)m->nfree, m->free_vert, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->pinned, (size_t)m->npinned, m->pinned, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->vt_ptr, (size_t)m->n + 1, m->vt_ptr, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->vt_idx, (size_t)m->vt_ptr[m->n], m->vt_idx, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->vb_ptr, (size_t)m->n + 1, m->vb_ptr, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->vb_idx, (size_t)m->vb_ptr[m->n], m->vb_idx, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->ent_st, nent, m->ent_st, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->C_ptr, (size_t)m->nfree + 1, m->C_ptr, st);
  if (!rc) rc = sim_cuda_new<int>(c, &c->C_idx, (size_t)m->C_ptr[m->nfree], m->C_idx, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->C_val, (size_t)m->C_ptr[m->nfree], m->C_val, st);
  if (!rc) rc = sim_cuda_new<double>(c, &c->mass, (size_t)m->n, m->mass, st);
  c->bend.nst = b->nst;
  if (!rc && b->nst > 0) {
    rc = sim_cuda_new<int>(c, &c->bend.ptr, (size_t)b->nst + 1, b->ptr, st);
    if (!rc) rc = sim_cuda_new<int>(c, &c->bend.vid, nent, b->vid, st);
    if (!rc) rc = sim_cuda_new<double>(c, &c->bend.coef, nent, b->coef, st);
    if (!rc) rc = sim_cuda_new<double>(c, &c->bend.k, (size_t)b->nst, b->k, st);
    if (!rc) rc = sim_cuda_new<double>(c, &c->bend.rest, (size_t)b->nst, b->rest, st);
  }
  return rc;
}

// What the CUDA backend cannot run yet, as a reason (NULL: nothing): its contact stage works
// with S on the device (the unconstrained solve, W, the correction), so scenes with contact,
// constraint pins or cables need the sparse inverse and no Chebyshev.
extern "C" int sim_backend_cuda_create(const sim_model *m, const sim_backend_opts *o,
                                       sim_backend **out, sim_status *st) {
  *out = NULL;
  if (sim_cuda_env_check(st)) return st->code;
  char why[SIM_MSG_MAX];
  if (!sim_cuda_available(o->gpu, why, sizeof why))
    return sim_fail(st, SIM_ERR_DEVICE, "--device cuda: %s", why);
  /* the device of every later call from this thread (the backend's calls all come from it) */
  cudaError_t set = cudaSetDevice(o->gpu);
  if (set != cudaSuccess)
    return sim_fail(st, SIM_ERR_DEVICE, "--device cuda: CUDA device %d: %s", o->gpu,
                    cudaGetErrorString(set));
  sim_global_kind global = o->global == SIM_GLOBAL_AUTO ? SIM_GLOBAL_SPARSE_INVERSE : o->global;
  if (sim_contact_stage_check_solver(m, global, o->chebyshev_rho, st)) return st->code;
  sim_backend *be = SIM_NEW0(sim_backend, 1);
  cuda_ctx *c = SIM_NEW0(cuda_ctx, 1);
  if (!be || !c) {
    sim_free(be);
    sim_free(c);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (backend)");
  }
  be->ctx = c;
  c->be = be;
  be->name = "cuda";
  cudaDeviceProp prop;
  int major = 0; /* the device's compute capability, major: 9 on for SIMCTL_CUDA_PDL */
  if (cudaGetDeviceProperties(&prop, o->gpu) == cudaSuccess) {
    major = prop.major;
    snprintf(be->device, sizeof be->device, "%.80s (GPU %d, sm_%d%d, %.0f GiB)", prop.name, o->gpu,
             prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0);
  }
  be->global = global;
  be->upload = cuda_upload;
  be->download = cuda_download;
  be->detect_download = sim_cuda_detect_download;
  be->detect_complete = sim_cuda_detect_complete;
  be->read_buffer = cuda_read_buffer;
  be->write_buffer = cuda_write_buffer;
  be->set_pins = cuda_set_pins;
  be->predict = cuda_predict;
  be->local_step = sim_cuda_local_step;
  be->global_step = sim_cuda_global_step;
  be->lg_iterations = sim_cuda_lg_iterations;
  be->integrate = cuda_integrate;
  be->mark = sim_cuda_mark;
  be->settle = sim_cuda_settle;
  be->snapshot = sim_cuda_snapshot;
  be->snapshot_get = sim_cuda_snapshot_get;
  be->energy = sim_cuda_energy;
  be->global_stats = cuda_global_stats;
  be->report = cuda_report;
  be->destroy = cuda_destroy;
  c->m = m;
  for (int i = 0; i < SIM_SPAN_COUNT; i++) c->spans.open[i] = -1;
  int rc = SIM_OK;
  cudaError_t e = cudaStreamCreate(&c->stream); /* ordered after the legacy stream's work */
  if (e != cudaSuccess)
    rc = sim_cuda_fail(st, "cudaStreamCreate", cudaGetErrorString(e), __FILE__, __LINE__);
  if (!rc) rc = sim_cuda_ranges_open(st);
  c->ranges = 1; /* this backend's to close: the sums and events */
  if (!rc) rc = sim_cuda_env_int("SIMCTL_CUDA_LOCAL_BLOCKS", 1, 4, 1, &c->local_blocks, st);
  if (!rc) rc = sim_cuda_env_choice("SIMCTL_CUDA_PDL", "off", "on", 0, &c->pdl, st);
  if (!rc && c->pdl && (major < 9 || !sim_cuda_pdl_built())) { /* compute capability 9.0 on */
    c->pdl = 0;
    be->notes++;
    if (major < 9)
      snprintf(be->note, sizeof be->note,
               "SIMCTL_CUDA_PDL=on: this device (compute capability %d) has no programmatic "
               "dependent launch (9.0 on): its graphs run without",
               major);
    else
      snprintf(be->note, sizeof be->note,
               "SIMCTL_CUDA_PDL=on: this simctl was built with CUDA %d.%d, whose graphs' edges "
               "this build does not set (13.0 on): its graphs run without",
               CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
  }
  if (!rc) rc = sim_cuda_lg_create(c, st);
  if (!rc) rc = upload_model(c, st);
  if (!rc) rc = sim_cuda_global_create(be, o, st);
  if (!rc && sim_world_needed(m)) rc = sim_cuda_contact_create(be, o, st);
  if (!rc && sim_world_needed(m)) rc = detector(be, st);
  if (rc) {
    cuda_destroy(be);
    return rc;
  }
  *out = be;
  return SIM_OK;
}

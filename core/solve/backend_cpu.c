/* SPDX-License-Identifier: MIT */
/* CPU backend (OpenMP): local step (ARAP, ADMM-PD materials, bending), global step with S or CHOLMOD, vector stages.
   Every loop is a gather with a fixed order, so results do not depend on the thread count. */
#include "backend_cpu.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/cpu_simd.h"
#include "../base/timer.h"
#include "local_elem.h"

static int cpu_upload(sim_backend *be, sim_vec_id id, const double *host, sim_status *st) {
  memcpy(CTX(be)->vec[id], host, sizeof(double) * 3 * (size_t)CTX(be)->m->n);
  return SIM_OK;
}

static int cpu_download(sim_backend *be, sim_vec_id id, double *host, sim_status *st) {
  memcpy(host, CTX(be)->vec[id], sizeof(double) * 3 * (size_t)CTX(be)->m->n);
  return SIM_OK;
}

/* Host address of buffer `id` (NULL where it has length 0). */
static double *cpu_buffer(cpu_ctx *c, sim_buf_id id) {
  double *const b[SIM_BUF_COUNT] = {c->rhs, c->R, c->U, c->P};
  return (int)id >= 0 && id < SIM_BUF_COUNT ? b[id] : NULL;
}

static int cpu_read_buffer(sim_backend *be, sim_buf_id id, double *host, sim_status *st) {
  size_t n = sim_buffer_len(CTX(be)->m, id);
  if (n) memcpy(host, cpu_buffer(CTX(be), id), sizeof(double) * n);
  return SIM_OK;
}

static int cpu_write_buffer(sim_backend *be, sim_buf_id id, const double *host, sim_status *st) {
  size_t n = sim_buffer_len(CTX(be)->m, id);
  if (n) memcpy(cpu_buffer(CTX(be), id), host, sizeof(double) * n);
  return SIM_OK;
}

static int cpu_set_pins(sim_backend *be, const double *pin_pos, sim_status *st) {
  memcpy(CTX(be)->pin_pos, pin_pos, sizeof(double) * 3 * (size_t)CTX(be)->m->npinned);
  return SIM_OK;
}

static int cpu_predict(sim_backend *be, const double g[3], sim_status *st) {
  cpu_ctx *c = CTX(be);
  const sim_model *m = c->m;
  double h = m->h, *q = c->vec[SIM_VEC_Q], *qt = c->vec[SIM_VEC_QT];
  double *qh = c->vec[SIM_VEC_QTILDE], *v = c->vec[SIM_VEC_V];
#pragma omp parallel for schedule(static)
  for (int f = 0; f < m->nfree; f++) {
    int i = m->free_vert[f];
    for (int k = 0; k < 3; k++) {
      qh[3 * i + k] = qt[3 * i + k] + h * v[3 * i + k] + h * h * g[k];
      q[3 * i + k] = qh[3 * i + k];
    }
  }
  for (int p = 0; p < m->npinned; p++) {
    int i = m->pinned[p];
    for (int k = 0; k < 3; k++) q[3 * i + k] = qh[3 * i + k] = c->pin_pos[3 * p + k];
  }
  if (c->U) memset(c->U, 0, sizeof(double) * 9 * (size_t)m->nelem); /* Overby 2017: u = 0 */
  c->iter = 0;
  return SIM_OK;
}

static int cpu_local_step(sim_backend *be, sim_status *st) {
  cpu_ctx *c = CTX(be);
  const sim_model *m = c->m;
  const sim_bending *bd = m->bend;
  const double *q = c->vec[SIM_VEC_Q], *qh = c->vec[SIM_VEC_QTILDE];
#pragma omp parallel for schedule(static, 256)
  for (int e = 0; e < m->nelem; e++)
    sim_local_project(&m->elems[e], q, c->R + 9 * (size_t)e, c->U ? c->U + 9 * (size_t)e : NULL);
#pragma omp parallel for schedule(static, 256)
  for (int s = 0; s < bd->nst; s++) {
    double Lq[3];
    sim_bending_apply(bd, s, q, Lq);
    sim_bending_project(bd, s, Lq, c->P + 3 * (size_t)s);
  }
  sim_local_view v = sim_local_view_host(m);
#pragma omp parallel for schedule(static, 256)
  for (int f = 0; f < m->nfree; f++)
    sim_local_rhs(&v, f, qh, c->R, c->P, c->pin_pos, c->rhs + 3 * (size_t)f);
  return SIM_OK;
}

int sim_cpu_solve(cpu_ctx *c, const double *in, double *out, sim_status *st) {
  if (c->use_S)
    sim_sparse_inverse_apply(&c->S, in, c->y, out);
  else if (c->D.n > 0)
    sim_dense_inverse_apply(&c->D, in, out);
  else
    return sim_factor_solve3(c->fac, in, out, st);
  return SIM_OK;
}

/* q^k on the free unknowns into xcur (the Jacobi input, and Chebyshev's q^{k-1} next time). */
static void gather_free(cpu_ctx *c) {
  const sim_model *m = c->m;
  const double *q = c->vec[SIM_VEC_Q];
  for (int f = 0; f < m->nfree; f++)
    for (int k = 0; k < 3; k++) c->xcur[3 * f + k] = q[3 * m->free_vert[f] + k];
}

/* Chebyshev's extrapolation (Wang 2015) of the iterate xfree = global(q^k):
   q^{k+1} = omega_{k+1} (xfree - q^{k-1}) + q^{k-1}. On top of Jacobi it is Wang's method; on top
   of an exact global solve it accelerates the local-global fixed point itself. */
static void chebyshev(cpu_ctx *c) {
  size_t f3 = 3 * (size_t)c->m->nfree;
  c->iter++;
  c->omega = sim_chebyshev_omega(c->iter, c->rho, c->omega);
  if (c->iter >= 2)
    for (size_t i = 0; i < f3; i++)
      c->xfree[i] = c->omega * (c->xfree[i] - c->xprev[i]) + c->xprev[i];
  memcpy(c->xprev, c->xcur, sizeof(double) * f3);
}

static int cpu_global_step(sim_backend *be, sim_status *st) {
  cpu_ctx *c = CTX(be);
  const sim_model *m = c->m;
  if (c->xcur) gather_free(c);
  if (be->global == SIM_GLOBAL_JACOBI)
    sim_jacobi_iterate(&c->J, c->rhs, c->xcur, c->xfree);
  else if (sim_cpu_solve(c, c->rhs, c->xfree, st))
    return st->code;
  if (c->rho > 0) chebyshev(c);
  double *q = c->vec[SIM_VEC_Q];
#pragma omp parallel for schedule(static)
  for (int f = 0; f < m->nfree; f++)
    for (int k = 0; k < 3; k++) q[3 * m->free_vert[f] + k] = c->xfree[3 * f + k];
  return SIM_OK;
}

static int cpu_integrate(sim_backend *be, sim_status *st) {
  cpu_ctx *c = CTX(be);
  size_t n3 = 3 * (size_t)c->m->n;
  double ih = 1.0 / c->m->h, *q = c->vec[SIM_VEC_Q], *qt = c->vec[SIM_VEC_QT];
  double *v = c->vec[SIM_VEC_V];
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n3; i++) {
    v[i] = (q[i] - qt[i]) * ih;
    qt[i] = q[i];
  }
  return SIM_OK;
}

static double cpu_energy(sim_backend *be, double *elem) {
  cpu_ctx *c = CTX(be);
  const sim_model *m = c->m;
  const double *q = c->vec[SIM_VEC_Q], *qh = c->vec[SIM_VEC_QTILDE];
  double el = 0, in = 0;
#pragma omp parallel for schedule(static, 256) reduction(+ : el)
  for (int e = 0; e < m->nelem; e++) {
    double E = sim_local_energy(&m->elems[e], q);
    if (elem) elem[e] = E / m->elems[e].vol;
    el += E;
  }
  for (int f = 0; f < m->nfree; f++) {
    int i = m->free_vert[f];
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (q[3 * i + k] - qh[3 * i + k]) * (q[3 * i + k] - qh[3 * i + k]);
    in += m->mass[i] * d2;
  }
  return in / (2.0 * m->h * m->h) + el + sim_bending_energy(m->bend, q);
}

static void cpu_global_stats(sim_backend *be, sim_global_stats *out) { *out = CTX(be)->stats; }

/* The state copied at once (the operations before it are done). */
static int cpu_snapshot(sim_backend *be, int q_only, sim_status *st) {
  cpu_ctx *c = CTX(be);
  size_t n3 = 3 * (size_t)c->m->n;
  if (!c->snap && !(c->snap = SIM_NEW(double, 2 * n3 + (size_t)c->m->nelem + 1)))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (snapshot)");
  memcpy(c->snap, c->vec[SIM_VEC_Q], sizeof(double) * n3);
  if (!q_only) {
    memcpy(c->snap + n3, c->vec[SIM_VEC_V], sizeof(double) * n3);
    cpu_energy(be, c->snap + 2 * n3);
  }
  c->snap_q_only = q_only;
  return SIM_OK;
}

static int cpu_snapshot_get(sim_backend *be, sim_snapshot *out, sim_status *st) {
  cpu_ctx *c = CTX(be);
  size_t n3 = 3 * (size_t)c->m->n;
  memset(out, 0, sizeof *out);
  if (!c->snap) return sim_fail(st, SIM_ERR_USAGE, "snapshot_get: no snapshot was taken");
  out->q = c->snap;
  if (!c->snap_q_only) out->v = c->snap + n3, out->dens = c->snap + 2 * n3;
  return SIM_OK;
}

static void cpu_destroy(sim_backend *be) {
  if (!be) return;
  cpu_ctx *c = CTX(be);
  if (c) {
    for (int i = 0; i < SIM_VEC_COUNT; i++) sim_free(c->vec[i]);
    sim_free(c->pin_pos);
    sim_free(c->R);
    sim_free(c->U);
    sim_free(c->P);
    sim_free(c->rhs);
    sim_free(c->xfree);
    sim_free(c->y);
    sim_factor_destroy(c->fac);
    sim_sparse_inverse_free(&c->S);
    sim_jacobi_free(&c->J);
    sim_dense_inverse_free(&c->D);
    sim_free(c->xcur);
    sim_free(c->xprev);
    sim_free(c->snap);
    sim_cpu_contact_destroy(c);
    sim_free(c);
  }
  sim_free(be);
}

size_t sim_buffer_len(const sim_model *m, sim_buf_id id) {
  switch (id) {
  case SIM_BUF_RHS: return 3 * (size_t)m->nfree;
  case SIM_BUF_PROJ: return 9 * (size_t)m->nelem;
  case SIM_BUF_DUAL: return m->admm ? 9 * (size_t)m->nelem : 0;
  case SIM_BUF_BEND: return 3 * (size_t)m->bend->nst;
  default: return 0;
  }
}

const char *sim_global_name(sim_global_kind g) {
  static const char *const names[SIM_GLOBAL_COUNT] = {"auto", "sparse_inverse", "cholesky",
                                                      "jacobi", "dense_inverse"};
  return (int)g >= 0 && (int)g < SIM_GLOBAL_COUNT ? names[g] : "unknown";
}

/* "MODEL NAME, N threads" from /proc/cpuinfo (the processor's name where it has none), and
   ", AVX2" where the hot loops' AVX2 build runs (base/cpu_simd.h). */
static void cpu_device_name(char *out, size_t cap) {
  char line[256], name[160] = "unknown processor";
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    snprintf(name, sizeof name, "%s", colon + 2);
    name[strcspn(name, "\n")] = '\0';
    break;
  }
  if (f) fclose(f);
  snprintf(out, cap, "%s, %d threads%s", name, omp_get_max_threads(),
           sim_cpu_avx2() ? ", AVX2" : "");
}

static int cpu_mark(sim_backend *be, sim_span_id id, int close, sim_status *st) {
  if ((int)id < 0 || id >= SIM_SPAN_COUNT)
    return sim_fail(st, SIM_ERR_USAGE, "timing span %d: no such bucket", (int)id);
  sim_host_span_mark(&CTX(be)->spans, id, close);
  return SIM_OK;
}

static int cpu_settle(sim_backend *be, double ms[SIM_SPAN_COUNT], sim_status *st) {
  (void)st;
  sim_host_spans_settle(&CTX(be)->spans, ms);
  return SIM_OK;
}

int sim_backend_cpu_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                           sim_status *st) {
  *out = NULL;
  sim_backend *be = SIM_NEW0(sim_backend, 1);
  cpu_ctx *c = SIM_NEW0(cpu_ctx, 1);
  if (!be || !c) {
    sim_free(be);
    sim_free(c);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (backend)");
  }
  be->ctx = c;
  be->name = "cpu";
  cpu_device_name(be->device, sizeof be->device);
  /* On the CPU CHOLMOD's supernodal solve beats the two products with S (measured by
     `make bench`, README), so auto picks cholesky here. */
  be->global = o->global == SIM_GLOBAL_AUTO ? SIM_GLOBAL_CHOLESKY : o->global;
  be->upload = cpu_upload;
  be->download = cpu_download;
  be->read_buffer = cpu_read_buffer;
  be->write_buffer = cpu_write_buffer;
  be->set_pins = cpu_set_pins;
  be->predict = cpu_predict;
  be->local_step = cpu_local_step;
  be->global_step = cpu_global_step;
  be->integrate = cpu_integrate;
  be->mark = cpu_mark;
  be->settle = cpu_settle;
  be->snapshot = cpu_snapshot;
  be->snapshot_get = cpu_snapshot_get;
  be->energy = cpu_energy;
  be->global_stats = cpu_global_stats;
  be->destroy = cpu_destroy;
  c->m = m;
  size_t n3 = 3 * (size_t)m->n, f3 = 3 * (size_t)m->nfree;
  int ok = 1;
  for (int i = 0; i < SIM_VEC_COUNT; i++) ok &= (c->vec[i] = SIM_NEW0(double, n3)) != NULL;
  ok &= (c->pin_pos = SIM_NEW0(double, 3 * (size_t)m->npinned + 3)) != NULL;
  ok &= (c->R = SIM_NEW(double, 9 * (size_t)m->nelem + 9)) != NULL;
  ok &= (c->P = SIM_NEW0(double, 3 * (size_t)m->bend->nst + 3)) != NULL;
  if (m->admm) ok &= (c->U = SIM_NEW0(double, 9 * (size_t)m->nelem + 9)) != NULL;
  ok &= (c->rhs = SIM_NEW(double, f3)) != NULL;
  ok &= (c->xfree = SIM_NEW(double, f3)) != NULL;
  ok &= (c->y = SIM_NEW(double, f3)) != NULL;
  int rc = ok ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (backend state)");
  c->use_S = be->global == SIM_GLOBAL_SPARSE_INVERSE;
  c->rho = o->chebyshev_rho;
  if (rc == SIM_OK && be->global == SIM_GLOBAL_JACOBI)
    rc = sim_jacobi_build(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, &c->J, st);
  if (rc == SIM_OK && (be->global == SIM_GLOBAL_JACOBI || c->rho > 0)) {
    c->xcur = SIM_NEW(double, f3 + 3);
    c->xprev = SIM_NEW(double, f3 + 3);
    if (!c->xcur || !c->xprev) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (iterates)");
  }
  if (rc == SIM_OK && be->global != SIM_GLOBAL_JACOBI)
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, o->ordering, c->use_S,
                           &c->fac, st);
  if (rc == SIM_OK && c->fac) sim_factor_get_info(c->fac, &c->stats.factor);
  if (rc == SIM_OK && be->global == SIM_GLOBAL_DENSE_INVERSE)
    rc = sim_dense_inverse_build(c->fac, m->nfree, o->max_dense_bytes, &c->D, st);
  if (rc == SIM_OK && c->use_S) {
    rc = sim_sparse_inverse_build(c->fac, o->precision, o->max_S_bytes, &c->S, st);
    if (rc == SIM_OK) {
      c->stats.S_nnz = c->S.nnz;
      c->stats.S_bytes = sim_sparse_inverse_bytes(c->S.nnz, c->S.n, o->precision);
      c->stats.S_resident = 2 * c->stats.S_bytes + sizeof(int) * (size_t)c->S.n;
      c->stats.S_build_ms = c->S.build_ms;
      c->stats.etree_height = c->S.etree_height;
    }
  }
  c->max_W_bytes = o->max_dense_bytes;
  c->opts = *o;
  if (rc == SIM_OK) rc = sim_cpu_contact_create(be, st);
  if (rc != SIM_OK) {
    cpu_destroy(be);
    return rc;
  }
  *out = be;
  return SIM_OK;
}

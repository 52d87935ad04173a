// SPDX-License-Identifier: MIT
// The CUDA backend's other global solvers (Jacobi and Chebyshev in scenes without contact only),
// as the CPU backend runs them (core/solve/backend_cpu.c, global_variants.c), so that they can be
// timed against the sparse inverse on the same device:
//   cholesky       q = P^T L^{-T} L^{-1} P rhs: two sparse triangular solves by cuSPARSE SpSM
//                  (L and L^T in CSR from CHOLMOD's simplicial factor, the three columns
//                  column-major): the baseline that the paper's two products with S replace
//                  (Sec. 4: triangular solves parallelise poorly);
//   jacobi         one Jacobi iteration q = x + D^{-1} (rhs - A x) from x = q^k (Wang 2015), a
//                  thread per row of A summing in the CPU's order (the same bits);
//   dense_inverse  q = A^{-1} rhs, a thread per row of A^{-1} in the CPU's order (the same bits),
//                  reading A^{-1} transposed so that a warp's reads coalesce;
//   Chebyshev      on top of any of them and of the sparse inverse: q^{k+1} = omega_{k+1}
//                  (x - q^{k-1}) + q^{k-1} with the CPU's weights (sim_chebyshev_omega, computed
//                  on the host: the step queues without a wait), counted from predict.
// With contact (cholesky and dense_inverse only: stage.h), the contact stage's solves with A^{-1}
// (the unconstrained solve, the correction, the matrix-free W) run through sim_cuda_solve_into,
// which dispatches to the scene's solver. Everything is queued on the backend's stream; nothing
// waits.
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/solve/factor.h"
#include "../core/solve/global_variants.h"
}

// bc[c n + k] = b[3 perm[k] + c]: P b, one column after another.
static __global__ void k_permute(int n, const int *perm, const double *b, double *bc) {
  SIM_PDL_WAIT();
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  for (int c = 0; c < 3; c++) bc[(size_t)c * n + k] = b[3 * (size_t)perm[k] + c];
}

// q[3 out_vert[k] + c] (+)= scale z[c n + k]: P^T z, to the free vertices' positions.
static __global__ void k_unpermute(int n, const int *out_vert, const double *z, double scale,
                                   int add, double *q) {
  SIM_PDL_WAIT();
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  double *qk = q + 3 * (size_t)out_vert[k];
  for (int c = 0; c < 3; c++) {
    double v = scale * z[(size_t)c * n + k];
    qk[c] = add ? qk[c] + v : v;
  }
}

// x[f] = q[free_vert[f]]: q^k on the free unknowns.
static __global__ void k_gather(int n, const int *free_vert, const double *q, double *x) {
  SIM_PDL_WAIT();
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= n) return;
  for (int c = 0; c < 3; c++) x[3 * (size_t)f + c] = q[3 * (size_t)free_vert[f] + c];
}

// Row i of x + D^{-1} (b - A x) into q[free_vert[i]] (sim_jacobi_iterate's arithmetic).
static __global__ void k_jacobi(int n, const int *ptr, const int *col, const double *val,
                                const double *dinv, const double *b, const double *x,
                                const int *free_vert, double *q) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double r0 = b[3 * (size_t)i], r1 = b[3 * (size_t)i + 1], r2 = b[3 * (size_t)i + 2];
  for (int p = ptr[i]; p < ptr[i + 1]; p++) {
    const double *xj = x + 3 * (size_t)col[p];
    r0 -= val[p] * xj[0];
    r1 -= val[p] * xj[1];
    r2 -= val[p] * xj[2];
  }
  double *qi = q + 3 * (size_t)free_vert[i];
  qi[0] = x[3 * (size_t)i] + dinv[i] * r0;
  qi[1] = x[3 * (size_t)i + 1] + dinv[i] * r1;
  qi[2] = x[3 * (size_t)i + 2] + dinv[i] * r2;
}

// Row i of A^{-1} b, times scale, into (add: onto) q[free_vert[i]] (sim_dense_inverse_apply's
// order, then the CPU contact stage's q += h^2 x), from Dt = A^{-1}'s transpose: thread i reads
// Dt[j n + i], its neighbours the next addresses.
static __global__ void k_dense(int n, const double *Dt, const double *b, const int *free_vert,
                               double scale, int add, double *q) {
  SIM_PDL_WAIT();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a0 = 0.0, a1 = 0.0, a2 = 0.0;
  for (int j = 0; j < n; j++) {
    double d = Dt[(size_t)j * n + i];
    a0 += d * b[3 * (size_t)j];
    a1 += d * b[3 * (size_t)j + 1];
    a2 += d * b[3 * (size_t)j + 2];
  }
  double *qi = q + 3 * (size_t)free_vert[i];
  double a[3] = {scale * a0, scale * a1, scale * a2}; /* scale 1: exact */
  for (int c = 0; c < 3; c++) qi[c] = add ? qi[c] + a[c] : a[c];
}

// Chebyshev on the solve's result x (in q): q = omega (x - xprev) + xprev from the second
// iteration on; then xprev = q^k (the CPU's chebyshev()).
static __global__ void k_chebyshev(int n, const int *free_vert, int extrapolate, double omega,
                                   const double *xcur, double *xprev, double *q) {
  SIM_PDL_WAIT();
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= n) return;
  double *qf = q + 3 * (size_t)free_vert[f];
  for (int c = 0; c < 3; c++) {
    size_t i = 3 * (size_t)f + c;
    if (extrapolate) qf[c] = omega * (qf[c] - xprev[i]) + xprev[i];
    xprev[i] = xcur[i];
  }
}

// ---------------------------------------------------------------- set-up

// SIM_ERR_MEMORY naming `what` when `need` bytes exceed the device's free memory.
static int fits(size_t need, const char *what, sim_status *st) {
  size_t free_b = 0, total_b = 0;
  SIM_CU(cudaMemGetInfo(&free_b, &total_b), st);
  if (need > free_b)
    return sim_fail(st, SIM_ERR_MEMORY, "%s needs %.1f MiB on the GPU, %.1f MiB are free", what,
                    need / 1048576.0, free_b / 1048576.0);
  return SIM_OK;
}

// CSR of the transpose of an n x n CSR (ptr, col, val) into (tp, tc, tv), each row's columns
// ascending (the rows are visited in order); -1 when out of memory.
static int transpose(int n, const int *ptr, const int *col, const double *val, int *tp, int *tc,
                     double *tv) {
  int *next = SIM_NEW(int, (size_t)n + 1);
  if (!next) return -1;
  memset(tp, 0, sizeof(int) * ((size_t)n + 1));
  for (int p = 0; p < ptr[n]; p++) tp[col[p] + 1]++;
  for (int i = 0; i < n; i++) tp[i + 1] += tp[i];
  memcpy(next, tp, sizeof(int) * ((size_t)n + 1));
  for (int i = 0; i < n; i++)
    for (int p = ptr[i]; p < ptr[i + 1]; p++) {
      int d = next[col[p]]++;
      tc[d] = i;
      tv[d] = val[p];
    }
  sim_free(next);
  return 0;
}

// A triangular CSR matrix for SpSM: fill mode and a non-unit diagonal.
static int spsm_matrix(cuda_solvers *g, cusparseSpMatDescr_t *A, int *ptr, int *col, double *val,
                       cusparseFillMode_t fill, sim_status *st) {
  SIM_CUSP(cusparseCreateCsr(A, g->n, g->n, g->nnz_L, ptr, col, val, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
           st);
  cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
  SIM_CUSP(cusparseSpMatSetAttribute(*A, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill), st);
  SIM_CUSP(cusparseSpMatSetAttribute(*A, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag), st);
  return SIM_OK;
}

// SpSM's analysis of A X = B (its buffer kept for the solves).
static int spsm_analyse(cuda_ctx *c, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                        cusparseDnMatDescr_t X, cusparseSpSMDescr_t *d, void **buf,
                        sim_status *st) {
  cuda_solvers *g = &c->gs;
  const double one = 1.0;
  size_t bytes = 0;
  SIM_CUSP(cusparseSpSM_createDescr(d), st);
  SIM_CUSP(cusparseSpSM_bufferSize(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                   CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, B, X, CUDA_R_64F,
                                   CUSPARSE_SPSM_ALG_DEFAULT, *d, &bytes),
           st);
  int rc = sim_cuda_alloc(c, buf, bytes, NULL, st);
  if (rc) return rc;
  SIM_CUSP(cusparseSpSM_analysis(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                 CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, B, X, CUDA_R_64F,
                                 CUSPARSE_SPSM_ALG_DEFAULT, *d, *buf),
           st);
  return SIM_OK;
}

// L and L^T on the device from the simplicial factor, and SpSM's analyses of both.
static int cholesky_create(cuda_ctx *c, sim_factor *fac, sim_status *st) {
  cuda_solvers *g = &c->gs;
  sim_factor_csc F;
  int rc = sim_factor_lower(fac, &F, st);
  if (rc) return rc;
  int n = F.n;
  long long nnz = F.p[n];
  g->n = n, g->nnz_L = nnz;
  rc = fits(2 * (size_t)nnz * (sizeof(double) + sizeof(int)) + 11 * sizeof(double) * (size_t)n,
            "solver.global cholesky (L and L^T)", st);
  if (rc) return rc;
  /* L's CSC is L^T's CSR: transposed once for L's CSR, then again for L^T's, so that every
     row's columns are ascending whatever order CHOLMOD keeps a column's rows in */
  int *lp = SIM_NEW(int, (size_t)n + 1), *lc = SIM_NEW(int, (size_t)nnz + 1);
  int *up = SIM_NEW(int, (size_t)n + 1), *uc = SIM_NEW(int, (size_t)nnz + 1);
  int *ov = SIM_NEW(int, (size_t)n + 1);
  double *lv = SIM_NEW(double, (size_t)nnz + 1), *uv = SIM_NEW(double, (size_t)nnz + 1);
  if (!lp || !lc || !up || !uc || !ov || !lv || !uv || transpose(n, F.p, F.i, F.x, lp, lc, lv) ||
      transpose(n, lp, lc, lv, up, uc, uv))
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (L in CSR)");
  for (int k = 0; !rc && k < n; k++) ov[k] = c->m->free_vert[F.perm[k]];
  if (!rc) rc = sim_cuda_new<int>(c, &g->L_ptr, (size_t)n + 1, lp, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->L_col, (size_t)nnz, lc, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->L_val, (size_t)nnz, lv, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->U_ptr, (size_t)n + 1, up, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->U_col, (size_t)nnz, uc, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->U_val, (size_t)nnz, uv, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->perm, (size_t)n, F.perm, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->out_vert, (size_t)n, ov, st);
  sim_free(lp), sim_free(lc), sim_free(lv), sim_free(up), sim_free(uc), sim_free(uv);
  sim_free(ov);
  if (!rc) rc = sim_cuda_new<double>(c, &g->bc, 3 * (size_t)n, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->yc, 3 * (size_t)n, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->zc, 3 * (size_t)n, NULL, st);
  if (rc) return rc;
  SIM_CUSP(cusparseCreate(&g->sp), st);
  SIM_CUSP(cusparseSetStream(g->sp, c->stream), st);
  rc = spsm_matrix(g, &g->mat_L, g->L_ptr, g->L_col, g->L_val, CUSPARSE_FILL_MODE_LOWER, st);
  if (!rc)
    rc = spsm_matrix(g, &g->mat_U, g->U_ptr, g->U_col, g->U_val, CUSPARSE_FILL_MODE_UPPER, st);
  if (rc) return rc;
  SIM_CUSP(cusparseCreateDnMat(&g->dn_b, n, 3, n, g->bc, CUDA_R_64F, CUSPARSE_ORDER_COL), st);
  SIM_CUSP(cusparseCreateDnMat(&g->dn_y, n, 3, n, g->yc, CUDA_R_64F, CUSPARSE_ORDER_COL), st);
  SIM_CUSP(cusparseCreateDnMat(&g->dn_z, n, 3, n, g->zc, CUDA_R_64F, CUSPARSE_ORDER_COL), st);
  rc = spsm_analyse(c, g->mat_L, g->dn_b, g->dn_y, &g->sm_L, &g->buf_L, st);
  if (!rc) rc = spsm_analyse(c, g->mat_U, g->dn_y, g->dn_z, &g->sm_U, &g->buf_U, st);
  if (!rc) SIM_CU(cudaStreamSynchronize(c->stream), st); /* the analyses are done */
  return rc;
}

static int jacobi_create(cuda_ctx *c, sim_status *st) {
  cuda_solvers *g = &c->gs;
  const sim_model *m = c->m;
  sim_jacobi J;
  int rc = sim_jacobi_build(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, &J, st);
  if (rc) return rc;
  int n = J.n;
  g->nnz_A = J.ptr[n];
  rc = fits((size_t)g->nnz_A * (sizeof(double) + sizeof(int)) + 4 * sizeof(double) * (size_t)n,
            "solver.global jacobi (A)", st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->J_ptr, (size_t)n + 1, J.ptr, st);
  if (!rc) rc = sim_cuda_new<int>(c, &g->J_col, (size_t)g->nnz_A, J.col, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->J_val, (size_t)g->nnz_A, J.val, st);
  if (!rc) rc = sim_cuda_new<double>(c, &g->J_dinv, (size_t)n, J.dinv, st);
  sim_jacobi_free(&J);
  return rc;
}

// A^{-1} by the CPU's own build (the same factor kind and solves: the same bits), transposed.
static int dense_create(cuda_ctx *c, sim_factor *fac, const sim_backend_opts *o, sim_status *st) {
  int n = c->m->nfree;
  int rc = fits(sim_dense_inverse_bytes(n), "solver.global dense_inverse (A^-1)", st);
  sim_dense_inverse D;
  memset(&D, 0, sizeof D);
  if (!rc) rc = sim_dense_inverse_build(fac, n, o->max_dense_bytes, &D, st);
  if (rc) return rc;
  double *t = SIM_NEW(double, (size_t)n *n + 1);
  if (!t) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (dense inverse)");
  for (int i = 0; !rc && i < n; i++)
    for (int j = 0; j < n; j++) t[(size_t)j * n + i] = D.inv[(size_t)i * n + j];
  if (!rc) rc = sim_cuda_new<double>(c, &c->gs.Dt, (size_t)n * n, t, st);
  sim_free(t);
  sim_dense_inverse_free(&D);
  return rc;
}

int sim_cuda_solvers_create(sim_backend *be, const sim_backend_opts *o, sim_factor **keep,
                            sim_status *st) {
  cuda_ctx *c = CCTX(be);
  const sim_model *m = c->m;
  cuda_solvers *g = &c->gs;
  int rc = SIM_OK;
  g->kind = be->global;
  if (be->global == SIM_GLOBAL_CHOLESKY || be->global == SIM_GLOBAL_DENSE_INVERSE) {
    /* cholesky: the simplicial factor (its L is what SpSM solves with); dense_inverse: the
       CPU's supernodal one */
    sim_factor *fac = NULL;
    int simplicial = be->global == SIM_GLOBAL_CHOLESKY;
    rc = sim_factor_create(m->nfree, m->A_colptr, m->A_rowidx, m->A_val, o->ordering, simplicial,
                           &fac, st);
    if (!rc) sim_factor_get_info(fac, &c->stats.factor);
    if (!rc) rc = simplicial ? cholesky_create(c, fac, st) : dense_create(c, fac, o, st);
    if (!rc && simplicial && keep) { /* handed over: the contact stage's S comes from it */
      *keep = fac;
      fac = NULL;
    }
    sim_factor_destroy(fac);
  } else if (be->global == SIM_GLOBAL_JACOBI) {
    rc = jacobi_create(c, st);
  }
  g->rho = o->chebyshev_rho;
  if (!rc && (be->global == SIM_GLOBAL_JACOBI || g->rho > 0)) {
    rc = sim_cuda_new<double>(c, &g->xcur, 3 * (size_t)m->nfree, NULL, st);
    if (!rc) rc = sim_cuda_new<double>(c, &g->xprev, 3 * (size_t)m->nfree, NULL, st);
  }
  return rc;
}

// ---------------------------------------------------------------- the step

// dst (+)= scale P^T L^{-T} L^{-1} P b: b permuted into the SpSM's column-major input.
static int cholesky_solve(cuda_ctx *c, const double *b, double *dst, double scale, int add,
                          sim_status *st) {
  cuda_solvers *g = &c->gs;
  const double one = 1.0;
  unsigned nb = sim_cuda_blocks(g->n);
  k_permute<<<nb, SIM_CUDA_BLOCK, 0, c->stream>>>(g->n, g->perm, b, g->bc);
  SIM_CUSP(cusparseSpSM_solve(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g->mat_L, g->dn_b, g->dn_y,
                              CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, g->sm_L),
           st);
  SIM_CUSP(cusparseSpSM_solve(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, g->mat_U, g->dn_y, g->dn_z,
                              CUDA_R_64F, CUSPARSE_SPSM_ALG_DEFAULT, g->sm_U),
           st);
  k_unpermute<<<nb, SIM_CUDA_BLOCK, 0, c->stream>>>(g->n, g->out_vert, g->zc, scale, add, dst);
  return SIM_OK;
}

int sim_cuda_solve_into(cuda_ctx *c, const double *b, double *dst, double scale, int add,
                        sim_status *st) {
  int n = c->m->nfree;
  if (n == 0) return SIM_OK;
  switch (c->gs.kind) {
    case SIM_GLOBAL_CHOLESKY:
      return cholesky_solve(c, b, dst, scale, add, st);
    case SIM_GLOBAL_DENSE_INVERSE:
      k_dense<<<sim_cuda_blocks(n), SIM_CUDA_BLOCK, 0, c->stream>>>(n, c->gs.Dt, b, c->free_vert,
                                                                    scale, add, dst);
      SIM_CU(cudaGetLastError(), st);
      return SIM_OK;
    case SIM_GLOBAL_SPARSE_INVERSE:
      return sim_cuda_S_solve_into(c, b, dst, scale, add, st);
    default: /* Jacobi approximates A^{-1}: the contact stage refuses it (stage.h) */
      return sim_fail(st, SIM_ERR_DEVICE, "CUDA: no solve with A^-1 for solver.global %s",
                      sim_global_name(c->gs.kind));
  }
}

int sim_cuda_solvers_step(cuda_ctx *c, sim_status *st) {
  cuda_solvers *g = &c->gs;
  const sim_model *m = c->m;
  int n = m->nfree, rc = SIM_OK;
  if (n == 0) return SIM_OK;
  unsigned b = sim_cuda_blocks(n);
  double *q = c->vec[SIM_VEC_Q];
  if (g->xcur) k_gather<<<b, SIM_CUDA_BLOCK, 0, c->stream>>>(n, c->free_vert, q, g->xcur);
  if (g->kind == SIM_GLOBAL_JACOBI)
    k_jacobi<<<b, SIM_CUDA_BLOCK, 0, c->stream>>>(n, g->J_ptr, g->J_col, g->J_val, g->J_dinv,
                                                  c->rhs, g->xcur, c->free_vert, q);
  else
    rc = sim_cuda_solve_into(c, c->rhs, q, 1.0, 0, st);
  if (!rc && g->rho > 0) {
    g->iter++;
    g->omega = sim_chebyshev_omega(g->iter, g->rho, g->omega);
    k_chebyshev<<<b, SIM_CUDA_BLOCK, 0, c->stream>>>(n, c->free_vert, g->iter >= 2, g->omega,
                                                     g->xcur, g->xprev, q);
  }
  if (rc) return rc;
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

void sim_cuda_solvers_reset(cuda_ctx *c) { c->gs.iter = 0; }

void sim_cuda_solvers_destroy(cuda_ctx *c) {
  cuda_solvers *g = &c->gs;
  if (g->sm_L) cusparseSpSM_destroyDescr(g->sm_L);
  if (g->sm_U) cusparseSpSM_destroyDescr(g->sm_U);
  if (g->mat_L) cusparseDestroySpMat(g->mat_L);
  if (g->mat_U) cusparseDestroySpMat(g->mat_U);
  if (g->dn_b) cusparseDestroyDnMat(g->dn_b);
  if (g->dn_y) cusparseDestroyDnMat(g->dn_y);
  if (g->dn_z) cusparseDestroyDnMat(g->dn_z);
  if (g->sp) cusparseDestroy(g->sp);
  void *p[] = {g->L_ptr,    g->L_col, g->L_val,  g->U_ptr, g->U_col, g->U_val, g->perm,
               g->out_vert, g->bc,    g->yc,     g->zc,    g->buf_L, g->buf_U, g->J_ptr,
               g->J_col,    g->J_val, g->J_dinv, g->Dt,    g->xcur,  g->xprev};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) cudaFree(p[i]);
  memset(g, 0, sizeof *g);
}

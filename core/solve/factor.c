/* SPDX-License-Identifier: MIT */
/* CHOLMOD factorisation of the scalar system matrix A_s and 3-column solves. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "factor.h"

#include <dlfcn.h>

#include <string.h>
#include <suitesparse/cholmod.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "factor_internal.h"

static const char *ordering_name(int ord) {
  switch (ord) {
    case CHOLMOD_NATURAL: return "natural";
    case CHOLMOD_GIVEN: return "given";
    case CHOLMOD_AMD: return "amd";
    case CHOLMOD_METIS: return "metis";
    case CHOLMOD_NESDIS: return "nesdis";
    case CHOLMOD_COLAMD: return "colamd";
    default: return "unknown";
  }
}

/* OpenBLAS (pthreads build, Debian's default) keeps its threads spinning after each call;
   with OpenMP's threads on the same cores each stalls the other. The 3-column solves gain
   nothing from threaded BLAS, so CHOLMOD's BLAS runs on one thread (looked up at run time
   so that any BLAS works). */
static void blas_single_thread(void) {
  void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set) set(1);
}

/* SIM_ORDER_BEST: a simplicial factor with each of METIS, NESDIS and AMD; the one with the
   fewest nonzeros in S = L^{-1} (the memory and the work of the global step) is kept. */
static int create_best(int n, const int *colptr, const int *rowidx, const double *val,
                       int simplicial, sim_factor **out, sim_status *st) {
  static const sim_ordering tries[] = {SIM_ORDER_METIS, SIM_ORDER_NESDIS, SIM_ORDER_AMD};
  sim_factor *best = NULL;
  long long best_nnz = -1;
  sim_ordering best_ord = SIM_ORDER_METIS;
  double ms = 0;
  for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
    sim_factor *f = NULL;
    int rc = sim_factor_create(n, colptr, rowidx, val, tries[t], 1, &f, st);
    if (rc) {
      sim_factor_destroy(best);
      return rc;
    }
    ms += f->info.analyze_ms + f->info.factor_ms;
    long long nnz = sim_sparse_inverse_count(f);
    if (best_nnz < 0 || nnz < best_nnz) {
      sim_factor_destroy(best);
      best = f;
      best_nnz = nnz;
      best_ord = tries[t];
    } else {
      sim_factor_destroy(f);
    }
  }
  if (!simplicial) { /* the supernodal factor with the chosen ordering */
    sim_factor_destroy(best);
    best = NULL;
    int rc = sim_factor_create(n, colptr, rowidx, val, best_ord, 0, &best, st);
    if (rc) return rc;
    ms += best->info.analyze_ms;
  } else {
    ms -= best->info.factor_ms;
  }
  best->info.analyze_ms = ms; /* the search counts as analysis */
  *out = best;
  return SIM_OK;
}

int sim_factor_create(int n, const int *colptr, const int *rowidx, const double *val,
                      sim_ordering ord, int simplicial, sim_factor **out, sim_status *st) {
  *out = NULL;
  if (ord == SIM_ORDER_BEST) return create_best(n, colptr, rowidx, val, simplicial, out, st);
  sim_factor *f = sim_calloc(1, sizeof *f);
  if (!f) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (factor)");
  f->n = n;
  blas_single_thread();
  cholmod_start(&f->cc);
  f->cc.print = 0;
  f->cc.error_handler = NULL;
  f->cc.nmethods = 1;
  f->cc.method[0].ordering = ord == SIM_ORDER_AMD      ? CHOLMOD_AMD
                            : ord == SIM_ORDER_NESDIS ? CHOLMOD_NESDIS
                                                      : CHOLMOD_METIS;
  f->cc.postorder = 1;
  if (simplicial) {
    f->cc.supernodal = CHOLMOD_SIMPLICIAL;
  } else {
    f->cc.supernodal = CHOLMOD_SUPERNODAL; /* LL' always: detects indefinite input */
  }
  f->cc.final_ll = 1;
  long long nnz = colptr[n];
  f->A = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, 1, CHOLMOD_REAL, &f->cc);
  if (!f->A) {
    sim_factor_destroy(f);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (system matrix, %lld entries)", nnz);
  }
  memcpy(f->A->p, colptr, sizeof(int) * (size_t)(n + 1));
  memcpy(f->A->i, rowidx, sizeof(int) * (size_t)nnz);
  memcpy(f->A->x, val, sizeof(double) * (size_t)nnz);

  double t0 = sim_now_ms();
  f->L = cholmod_analyze(f->A, &f->cc);
  double t1 = sim_now_ms();
  if (!f->L || f->cc.status < CHOLMOD_OK) {
    int s = f->cc.status;
    sim_factor_destroy(f);
    return sim_fail(st, SIM_ERR_INTERNAL, "CHOLMOD analyze failed (status %d%s)", s,
                    s == CHOLMOD_NOT_INSTALLED ? ": METIS ordering not installed" : "");
  }
  cholmod_factorize(f->A, f->L, &f->cc);
  double t2 = sim_now_ms();
  if (f->cc.status == CHOLMOD_NOT_POSDEF || f->L->minor < (size_t)n) {
    size_t minor = f->L->minor;
    sim_factor_destroy(f);
    return sim_fail(st, SIM_ERR_NUMERIC,
                    "system matrix is not positive definite (pivot %zu of %d): check the "
                    "bodies' mass or density and youngs_modulus, and solver.dt (a stiffness "
                    "some 1e16 times the masses over dt^2 is singular in double precision)",
                    minor, n);
  }
  if (f->cc.status < CHOLMOD_OK) {
    int s = f->cc.status;
    sim_factor_destroy(f);
    return sim_fail(st, SIM_ERR_INTERNAL, "CHOLMOD factorize failed (status %d)", s);
  }
  if (simplicial) /* packed, monotonic LL^T with the exact pattern */
    cholmod_change_factor(CHOLMOD_REAL, 1, 0, 1, 1, f->L, &f->cc);
  f->info.n = n;
  f->info.nnz_A = 2 * nnz - n;
  f->info.nnz_L = simplicial ? (long long)((int *)f->L->p)[n] : (long long)f->cc.lnz;
  f->info.analyze_ms = t1 - t0;
  f->info.factor_ms = t2 - t1;
  f->info.ordering = ordering_name(f->L->ordering);
  f->info.ordering_kind = ord;
  f->info.supernodal = (int)f->L->is_super;
  *out = f;
  return SIM_OK;
}

void sim_factor_destroy(sim_factor *f) {
  if (!f) return;
  if (f->B) cholmod_free_dense(&f->B, &f->cc);
  if (f->X) cholmod_free_dense(&f->X, &f->cc);
  if (f->Y) cholmod_free_dense(&f->Y, &f->cc);
  if (f->E) cholmod_free_dense(&f->E, &f->cc);
  if (f->L) cholmod_free_factor(&f->L, &f->cc);
  if (f->A) cholmod_free_sparse(&f->A, &f->cc);
  cholmod_finish(&f->cc);
  sim_free(f);
}

int sim_factor_solve3(sim_factor *f, const double *b, double *x, sim_status *st) {
  int n = f->n;
  if (!f->B) f->B = cholmod_allocate_dense((size_t)n, 3, (size_t)n, CHOLMOD_REAL, &f->cc);
  if (!f->B) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (solve workspace)");
  double *B = f->B->x;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) B[(size_t)c * n + i] = b[3 * i + c];
  if (!cholmod_solve2(CHOLMOD_A, f->L, f->B, NULL, &f->X, NULL, &f->Y, &f->E, &f->cc))
    return sim_fail(st, SIM_ERR_INTERNAL, "CHOLMOD solve failed (status %d)", f->cc.status);
  const double *X = f->X->x;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) x[3 * i + c] = X[(size_t)c * n + i];
  return SIM_OK;
}

void sim_factor_get_info(const sim_factor *f, sim_factor_info *info) { *info = f->info; }

int sim_factor_lower(const sim_factor *f, sim_factor_csc *out, sim_status *st) {
  memset(out, 0, sizeof *out);
  const cholmod_factor *L = f->L;
  int packed = !L->is_super && L->is_ll && L->is_monotonic;
  const int *Lp = L->p, *Lnz = L->nz;
  for (int j = 0; packed && j < f->n; j++) packed = Lp[j + 1] - Lp[j] == Lnz[j];
  if (!packed)
    return sim_fail(st, SIM_ERR_INTERNAL, "the factor's L needs a packed simplicial LL' factor");
  out->n = f->n;
  out->p = L->p, out->i = L->i, out->x = L->x, out->perm = L->Perm;
  return SIM_OK;
}

/* SPDX-License-Identifier: MIT */
/* Dense Delassus operator W = H_free A^{-1} H_free^T from K = [A_s^{-1}] restricted to the
   contact vertices (DESIGN.md Sec. 6, "cheaper still"); see delassus.h for the formulas.
   Inputs: contacts, free_of, the factor of A_s and/or its sparse inverse S. Workspace: the
   term table (4 nc), a vertex marker (nfree), K (m^2), g_js (nc^2). Fails on a memory limit, a
   missing factor/S, or a CHOLMOD solve failure; every exit frees the temporaries. */
#include "delassus.h"

#include <string.h>

#include "../base/alloc.h"
#include "../base/cpu_simd.h"
#include "../base/timer.h"
#include "delassus_terms.h"
#include "rows.h"

void sim_delassus_terms_free(sim_delassus_terms *T) {
  void *p[] = {T->tloc, T->unk, T->tbeta, T->cab_j, T->cab_ptr, T->cab_loc, T->cab_g};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) sim_free(p[i]);
  memset(T, 0, sizeof *T);
}

/* local index of unknown u, numbering it when first seen */
static int local_of(int *mark, sim_delassus_terms *T, int u) {
  if (u < 0) return -1;
  if (mark[u] < 0) {
    mark[u] = T->m;
    T->unk[T->m++] = u;
  }
  return mark[u];
}

int sim_delassus_terms_build(const sim_contact *c, int nc, const int *free_of, int nfree,
                             sim_delassus_terms *T, sim_status *st) {
  memset(T, 0, sizeof *T);
  int ncab = 0, ncterm = 0;
  for (int j = 0; j < nc; j++)
    if (c[j].kind == SIM_CONTACT_CABLE) ncab++, ncterm += c[j].cable->nt;
  int *mark = SIM_NEW(int, nfree);
  T->tloc = SIM_NEW(int, 4 * (size_t)nc);
  T->tbeta = SIM_NEW(double, 4 * (size_t)nc);
  T->unk = SIM_NEW(int, 4 * (size_t)nc + ncterm);
  T->cab_j = SIM_NEW(int, ncab + 1);
  T->cab_ptr = SIM_NEW(int, ncab + 1);
  T->cab_loc = SIM_NEW(int, ncterm + 1);
  T->cab_g = SIM_NEW(double, 3 * (size_t)ncterm + 1);
  if (!mark || !T->tloc || !T->tbeta || !T->unk || !T->cab_j || !T->cab_ptr || !T->cab_loc ||
      !T->cab_g) {
    sim_free(mark);
    sim_delassus_terms_free(T);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus contact vertices)");
  }
  for (int i = 0; i < nfree; i++) mark[i] = -1;
  T->cab_ptr[0] = 0;
  for (int j = 0; j < nc; j++) {
    int vert[4];
    double beta[4];
    int nt = sim_rows_terms(&c[j], vert, beta);
    for (int t = 0; t < 4; t++) {
      T->tbeta[4 * j + t] = t < nt ? beta[t] : 0.0;
      T->tloc[4 * j + t] =
          t < nt ? local_of(mark, T, free_of ? free_of[vert[t]] : vert[t]) : -1;
    }
    if (c[j].kind != SIM_CONTACT_CABLE) continue;
    const sim_cable_row *row = c[j].cable;
    int k = T->cab_ptr[T->ncab];
    for (int t = 0; t < row->nt; t++, k++) {
      T->cab_loc[k] = local_of(mark, T, free_of ? free_of[row->vert[t]] : row->vert[t]);
      for (int d = 0; d < 3; d++) T->cab_g[3 * (size_t)k + d] = row->g[t][d];
    }
    T->cab_j[T->ncab++] = j;
    T->cab_ptr[T->ncab] = k;
  }
  sim_free(mark);
  return SIM_OK;
}

static sim_delassus_cols cols_of(const sim_sparse_inverse *S) {
  sim_delassus_cols v = {S->col_ptr, S->col_row, S->col_val, S->col_valf};
  return v;
}

/* kcol[a] = P^{-1}(unk[a]): the column of L^{-1} that is column unk[a] of S = L^{-1} P */
static int *inverse_perm_of(const sim_sparse_inverse *S, const int *unk, int m) {
  int *ip = SIM_NEW(int, S->n), *k = SIM_NEW(int, m > 0 ? m : 1);
  if (ip && k) {
    for (int i = 0; i < S->n; i++) ip[S->perm[i]] = i;
    for (int a = 0; a < m; a++) k[a] = ip[unk[a]];
  } else {
    sim_free(k);
    k = NULL;
  }
  sim_free(ip);
  return k;
}

/* A (m x m) := its upper triangle mirrored (avg = 0) or (A + A^T) / 2 (avg = 1), in 32 x 32
   tiles so the transposed reads stay in cache. */
static void symmetrize(double *A, int m, int avg) {
  const int B = 32;
  size_t ms = (size_t)m;
#pragma omp parallel for schedule(dynamic, 1)
  for (int i0 = 0; i0 < m; i0 += B)
    for (int j0 = i0; j0 < m; j0 += B)
      for (int i = i0; i < i0 + B && i < m; i++)
        for (int j = j0 > i + 1 ? j0 : i + 1; j < j0 + B && j < m; j++) {
          double v = avg ? 0.5 * (A[i * ms + j] + A[j * ms + i]) : A[i * ms + j];
          A[i * ms + j] = A[j * ms + i] = v;
        }
}

/* Row a of K's upper triangle (b >= a) by path dot products, in the baseline's build and
   AVX2's (base/cpu_simd.h: the same bits). */
SIM_LOOP_BODY void k_row_in(const sim_delassus_cols *cols, const int *kc, int m, int a, double *K) {
  for (int b = a; b < m; b++) K[(size_t)a * m + b] = sim_delassus_path_dot(cols, kc[a], kc[b]);
}

static void k_row_base(const sim_delassus_cols *cols, const int *kc, int m, int a, double *K) {
  k_row_in(cols, kc, m, a, K);
}

SIM_AVX2_FN static void k_row_avx2(const sim_delassus_cols *cols, const int *kc, int m, int a,
                                   double *K) {
  k_row_in(cols, kc, m, a, K);
}

/* K = Y^T Y, Y = S[:, unk] (upper triangle by path dot products, mirrored). */
static int k_sparse_inverse(const sim_sparse_inverse *S, const sim_delassus_terms *T, double *K,
                            sim_status *st) {
  int m = T->m;
  const sim_delassus_cols cols = cols_of(S);
  int *kc = inverse_perm_of(S, T->unk, m);
  if (!kc) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus permutation)");
  const int avx2 = sim_cpu_avx2();
#pragma omp parallel for schedule(dynamic, 8)
  for (int a = 0; a < m; a++) {
    if (avx2)
      k_row_avx2(&cols, kc, m, a, K);
    else
      k_row_base(&cols, kc, m, a, K);
  }
  symmetrize(K, m, 0);
  sim_free(kc);
  return SIM_OK;
}

/* X = A_s^{-1} E_m three columns per solve, K = E_m^T X, then K = (K + K^T) / 2. */
static int k_cholmod(sim_factor *f, int nfree, const sim_delassus_terms *T, double *K,
                     sim_status *st) {
  int m = T->m, rc = SIM_OK;
  double *b = SIM_NEW0(double, 3 * (size_t)nfree), *x = SIM_NEW(double, 3 * (size_t)nfree);
  if (!b || !x) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus solve workspace)");
    goto done;
  }
  for (int a0 = 0; a0 < m && rc == SIM_OK; a0 += 3) {
    int nb = m - a0 < 3 ? m - a0 : 3;
    for (int c = 0; c < nb; c++) b[3 * (size_t)T->unk[a0 + c] + c] = 1.0;
    rc = sim_factor_solve3(f, b, x, st);
    for (int c = 0; c < nb; c++) {
      b[3 * (size_t)T->unk[a0 + c] + c] = 0.0;
      for (int bb = 0; bb < m; bb++) K[(size_t)(a0 + c) * m + bb] = x[3 * (size_t)T->unk[bb] + c];
    }
  }
  if (rc == SIM_OK) symmetrize(K, m, 1);
done:
  sim_free(b);
  sim_free(x);
  return rc;
}

/* Row 3j and column 3j of W for cable i (contact j), written symmetrically; its rows and
   columns 3j + 1, 3j + 2 stay 0 (w_from_k left them so: a cable has no beta terms). */
static void w_cable(const sim_contact *c, int nc, const sim_delassus_terms *T, int i,
                    const double *K, double *W) {
  size_t N = 3 * (size_t)nc, j = (size_t)T->cab_j[i];
#pragma omp parallel for schedule(dynamic, 16)
  for (int s = 0; s < nc; s++) {
    if (c[s].kind == SIM_CONTACT_CABLE && (size_t)s < j) continue; /* done from that cable */
    double w[3];
    sim_delassus_cable_pair(c, T, i, s, K, w);
    int rows = c[s].kind == SIM_CONTACT_CABLE ? 1 : 3;
    for (int r = 0; r < rows; r++) W[3 * j * N + 3 * (size_t)s + r] = W[(3 * (size_t)s + r) * N + 3 * j] = w[r];
  }
}

/* g_js = sum_{a in j, b in s} beta_a beta_b K_ab for s >= j, mirrored (G is exactly
   symmetric). */
static void g_from_k(int nc, const sim_delassus_terms *T, const double *K, double *G) {
  size_t ncs = (size_t)nc;
#pragma omp parallel for schedule(dynamic, 4)
  for (int j = 0; j < nc; j++)
    for (int s = j; s < nc; s++) G[j * ncs + s] = sim_delassus_g(T, K, j, s);
  symmetrize(G, nc, 0);
}

/* G (nc^2 doubles of workspace), then W_{3j+r,3s+r'} = g_js c_{j,r} . c_{s,r'} row by row.
   dot3(a, b) and dot3(b, a) round alike, so W is exactly symmetric too. */
static void w_from_k(const sim_contact *c, int nc, const sim_delassus_terms *T, const double *K,
                     double *G, double *W) {
  size_t N = 3 * (size_t)nc, ncs = (size_t)nc;
  g_from_k(nc, T, K, G);
#pragma omp parallel for schedule(static, 4)
  for (int j = 0; j < nc; j++)
    for (int s = 0; s < nc; s++) {
      double blk[9];
      sim_delassus_block(&c[j], &c[s], G[j * ncs + s], blk);
      for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) W[(3 * (size_t)j + r) * N + 3 * (size_t)s + q] = blk[3 * r + q];
    }
  for (int i = 0; i < T->ncab; i++) w_cable(c, nc, T, i, K, W);
}

/* The block form (wblocks.h) from K: G, the frames (a cable's 0), and each cable's row of W
   with the bits w_cable gives it (an entry between two cables computed from the earlier one,
   as w_cable writes it). */
static void blocks_from_k(const sim_contact *c, int nc, const sim_delassus_terms *T,
                          const double *K, sim_wblocks *B) {
  g_from_k(nc, T, K, B->G);
  for (int j = 0; j < nc; j++) sim_delassus_frame(&c[j], B->frame + 9 * (size_t)j);
  const size_t N = 3 * (size_t)nc;
  for (int i = 0; i < T->ncab; i++) {
    const int j = T->cab_j[i];
    double *row = B->cab_row + (size_t)i * N;
    B->cab_j[i] = j;
#pragma omp parallel for schedule(dynamic, 16)
    for (int s = 0; s < nc; s++) sim_delassus_cable_row(c, T, i, s, K, row + 3 * (size_t)s);
  }
}

size_t sim_delassus_bytes(int nc, int m, int nfree) {
  return sizeof(double) * (10 * (size_t)nc * nc + (size_t)m * m + 6 * (size_t)nfree) +
         (sizeof(int) * 2 + sizeof(double)) * 4 * (size_t)nc;
}

int sim_delassus_refuse(int nc, int m, size_t need, size_t max_bytes, sim_status *st) {
  return sim_fail(st, SIM_ERR_MEMORY,
                  "the dense Delassus operator W (%d x %d rows, %d contact vertices) needs "
                  "%.3g MiB, over the limit of %.3g MiB (solver.dense_max_mib)",
                  3 * nc, 3 * nc, m, need / 1048576.0, max_bytes / 1048576.0);
}

static int n_unknowns(sim_factor *f, const sim_sparse_inverse *S) {
  if (S) return S->n;
  sim_factor_info fi;
  sim_factor_get_info(f, &fi);
  return fi.n;
}

/* The terms T and K (m^2 + 1 doubles, *K) for the step's contacts, after the memory limit's
   check against `need(nc, m, nfree, ncab)` bytes; info's method and m filled in. */
static int terms_and_k(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                       const sim_sparse_inverse *S, sim_delassus_method method, size_t max_bytes,
                       size_t (*need)(int, int, int, int), sim_delassus_terms *T, double **K,
                       sim_delassus_info *info, sim_status *st) {
  if (method == SIM_DELASSUS_AUTO) method = S ? SIM_DELASSUS_SPARSE_INVERSE : SIM_DELASSUS_CHOLMOD;
  if (info) {
    memset(info, 0, sizeof *info);
    info->method = method;
  }
  if (method == SIM_DELASSUS_SPARSE_INVERSE && !S)
    return sim_fail(st, SIM_ERR_INTERNAL, "Delassus operator: sparse_inverse method without S");
  if (method == SIM_DELASSUS_CHOLMOD && !f)
    return sim_fail(st, SIM_ERR_INTERNAL, "Delassus operator: cholmod method without a factor");
  if (nc <= 0) return SIM_OK;
  int nfree = method == SIM_DELASSUS_SPARSE_INVERSE ? n_unknowns(NULL, S) : n_unknowns(f, NULL);
  int rc = sim_delassus_terms_build(c, nc, free_of, nfree, T, st);
  if (rc != SIM_OK) return rc;
  size_t bytes = need(nc, T->m, nfree, T->ncab);
  if (max_bytes > 0 && bytes > max_bytes)
    return sim_delassus_refuse(nc, T->m, bytes, max_bytes, st);
  if (!(*K = SIM_NEW(double, (size_t)T->m *(size_t)T->m + 1)))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory: the dense Delassus operator needs %.1f MB",
                    bytes / 1e6);
  if (info) info->m = T->m;
  return method == SIM_DELASSUS_SPARSE_INVERSE ? k_sparse_inverse(S, T, *K, st)
                                               : k_cholmod(f, nfree, T, *K, st);
}

static size_t w_need(int nc, int m, int nfree, int ncab) {
  (void)ncab;
  return sim_delassus_bytes(nc, m, nfree);
}

int sim_delassus_build(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                       const sim_sparse_inverse *S, sim_delassus_method method, size_t max_bytes,
                       double **W, size_t *W_cap, sim_delassus_info *info, sim_status *st) {
  double *K = NULL, *G = NULL;
  sim_delassus_terms T = {0};
  if (nc > 0 && *W_cap < 9 * (size_t)nc * nc) { /* grow: the old contents are not needed */
    sim_free(*W);
    *W = NULL;
    *W_cap = 0;
  }
  double t0 = sim_now_ms();
  int rc = terms_and_k(c, nc, free_of, f, S, method, max_bytes, w_need, &T, &K, info, st);
  if (rc != SIM_OK || nc <= 0) goto done;
  size_t nn = (size_t)nc * (size_t)nc;
  G = SIM_NEW(double, nn);
  if (!*W) {
    *W = SIM_NEW(double, 9 * nn);
    if (*W) *W_cap = 9 * nn;
  }
  if (!G || !*W) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory: the dense Delassus operator needs %.1f MB",
                  sim_delassus_bytes(nc, T.m, 0) / 1e6);
    goto done;
  }
  double t1 = sim_now_ms();
  w_from_k(c, nc, &T, K, G, *W);
  if (info) {
    info->k_ms = t1 - t0;
    info->w_ms = sim_now_ms() - t1;
  }
done:
  if (rc != SIM_OK) {
    sim_free(*W);
    *W = NULL;
    *W_cap = 0;
  }
  sim_free(K);
  sim_free(G);
  sim_delassus_terms_free(&T);
  return rc;
}

size_t sim_delassus_blocks_bytes(int nc, int m, int nfree, int ncab) {
  return sim_wblocks_bytes(nc, ncab) + sizeof(double) * ((size_t)m * m + 6 * (size_t)nfree) +
         (sizeof(int) * 2 + sizeof(double)) * 4 * (size_t)nc;
}

int sim_delassus_build_blocks(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                              const sim_sparse_inverse *S, sim_delassus_method method,
                              size_t max_bytes, sim_wblocks *B, sim_delassus_info *info,
                              sim_status *st) {
  double *K = NULL;
  sim_delassus_terms T = {0};
  double t0 = sim_now_ms();
  int rc = terms_and_k(c, nc, free_of, f, S, method, max_bytes, sim_delassus_blocks_bytes, &T, &K,
                       info, st);
  if (rc == SIM_OK && nc > 0) {
    double t1 = sim_now_ms();
    if (sim_wblocks_reserve(B, nc, T.ncab)) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory: the dense Delassus operator needs %.1f MB",
                    sim_wblocks_bytes(nc, T.ncab) / 1e6);
    } else {
      blocks_from_k(c, nc, &T, K, B);
      if (info) info->k_ms = t1 - t0, info->w_ms = sim_now_ms() - t1;
    }
  }
  if (rc != SIM_OK) sim_wblocks_free(B);
  if (rc == SIM_OK && nc <= 0) B->nc = 0, B->ncab = 0;
  sim_free(K);
  sim_delassus_terms_free(&T);
  return rc;
}

/* beta^T K_j beta for each contact from CHOLMOD solves: column a of X gives K_ab for all b. */
static int diag_cholmod(const sim_contact *c, int nc, sim_factor *f, int nfree,
                        const sim_delassus_terms *T, double *g, double *gc, sim_status *st) {
  int rc = SIM_OK;
  double *b = SIM_NEW0(double, 3 * (size_t)nfree), *x = SIM_NEW(double, 3 * (size_t)nfree);
  if (!b || !x) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus diagonal workspace)");
    goto done;
  }
  for (int j = 0; j < nc; j++) g[j] = 0.0;
  for (int i = 0; i < T->ncab; i++) gc[i] = 0.0;
  for (int a0 = 0; a0 < T->m && rc == SIM_OK; a0 += 3) {
    int nb = T->m - a0 < 3 ? T->m - a0 : 3;
    for (int q = 0; q < nb; q++) b[3 * (size_t)T->unk[a0 + q] + q] = 1.0;
    rc = sim_factor_solve3(f, b, x, st);
    for (int q = 0; q < nb; q++) b[3 * (size_t)T->unk[a0 + q] + q] = 0.0;
    for (int j = 0; j < nc && rc == SIM_OK; j++)
      for (int ta = 0; ta < 4; ta++) {
        int a = T->tloc[4 * j + ta];
        if (a < a0 || a >= a0 + nb) continue;
        for (int tb = 0; tb < 4; tb++) {
          int bb = T->tloc[4 * j + tb];
          if (bb >= 0)
            g[j] +=
                T->tbeta[4 * j + ta] * T->tbeta[4 * j + tb] * x[3 * (size_t)T->unk[bb] + a - a0];
        }
      }
    for (int i = 0; i < T->ncab && rc == SIM_OK; i++) /* cables: sum (g_a . g_b) K_ab */
      for (int ka = T->cab_ptr[i]; ka < T->cab_ptr[i + 1]; ka++) {
        int a = T->cab_loc[ka];
        if (a < a0 || a >= a0 + nb) continue;
        for (int kb = T->cab_ptr[i]; kb < T->cab_ptr[i + 1]; kb++) {
          int bb = T->cab_loc[kb];
          if (bb >= 0)
            gc[i] += sim_dot3(T->cab_g + 3 * (size_t)ka, T->cab_g + 3 * (size_t)kb) *
                     x[3 * (size_t)T->unk[bb] + a - a0];
        }
      }
  }
done:
  sim_free(b);
  sim_free(x);
  return rc;
}

int sim_delassus_diag(const sim_contact *c, int nc, const int *free_of, sim_factor *f,
                      const sim_sparse_inverse *S, double *diag, sim_status *st) {
  if (nc <= 0) return SIM_OK;
  if (!S && !f) return sim_fail(st, SIM_ERR_INTERNAL, "Delassus diagonal: no factor and no S");
  int nfree = n_unknowns(f, S);
  sim_delassus_terms T;
  int rc = sim_delassus_terms_build(c, nc, free_of, nfree, &T, st);
  if (rc != SIM_OK) return rc;
  double *g = SIM_NEW(double, nc), *gc = SIM_NEW(double, T.ncab + 1);
  int *kc = NULL;
  if (!g || !gc) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus diagonal)");
    goto done;
  }
  if (S) {
    kc = inverse_perm_of(S, T.unk, T.m);
    if (!kc) {
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (Delassus permutation)");
      goto done;
    }
    const sim_delassus_cols cols = cols_of(S);
#pragma omp parallel for schedule(static, 64) if (nc > 256)
    for (int j = 0; j < nc; j++) g[j] = sim_delassus_self(&T, &cols, kc, j);
    for (int i = 0; i < T.ncab; i++) gc[i] = sim_delassus_cable_self(&T, &cols, kc, i);
  } else {
    rc = diag_cholmod(c, nc, f, nfree, &T, g, gc, st);
    if (rc != SIM_OK) goto done;
  }
  for (int j = 0; j < nc; j++) sim_delassus_diag_rows(&c[j], g[j], diag + 3 * (size_t)j);
  for (int i = 0; i < T.ncab; i++) diag[3 * (size_t)T.cab_j[i]] = gc[i]; /* rows 1, 2: 0 */
done:
  sim_free(g);
  sim_free(gc);
  sim_free(kc);
  sim_delassus_terms_free(&T);
  return rc;
}

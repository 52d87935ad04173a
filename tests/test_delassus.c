/* SPDX-License-Identifier: MIT */
/* Delassus operator W = H_free A^{-1} H_free^T: both methods (sparse inverse, CHOLMOD solves)
   against a dense product built from CHOLMOD solves on unit vectors; symmetry, positive
   semidefiniteness, the diagonal, pinned vertices, the memory limit; the block form
   (wblocks.h) against W, alone and in the Newton solve; K's path dot products in the baseline's
   build of their loop and AVX2's, to the bit. Set SIMCTL_BENCH_DELASSUS=1
   to time both methods on a 20 x 20 x 20 grid with 1000 contact vertices. */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/base/cpu_simd.h"
#include "../core/base/timer.h"
#include "../core/contact/delassus.h"
#include "../core/contact/nsn.h"
#include "../core/contact/rows.h"
#include "check.h"
#include "contact_gen.h"
#include "grid_matrix.h"

/* A_s^{-1} densely (nf x nf) from CHOLMOD solves on unit vectors, 3 at a time */
static double *dense_inverse(sim_factor *f, int nf) {
  double *Ai = malloc(sizeof(double) * (size_t)nf * nf), *b = calloc(3 * nf, sizeof(double));
  double *x = malloc(sizeof(double) * 3 * nf);
  sim_status st = {0};
  for (int a0 = 0; a0 < nf; a0 += 3) {
    int nb = nf - a0 < 3 ? nf - a0 : 3;
    for (int c = 0; c < nb; c++) b[3 * (a0 + c) + c] = 1;
    CHECK_INT(sim_factor_solve3(f, b, x, &st), SIM_OK);
    for (int c = 0; c < nb; c++) {
      b[3 * (a0 + c) + c] = 0;
      for (int i = 0; i < nf; i++) Ai[(size_t)i * nf + a0 + c] = x[3 * i + c];
    }
  }
  free(b), free(x);
  return Ai;
}

/* W_ref = H_free kron(A_s^{-1}, I3) H_free^T, H_free densely from sim_rows_apply on unit vectors */
static double *dense_w(const sim_contact *c, int nc, const int *free_of, const double *Ai, int nf) {
  int nr = 3 * nc, nx = 3 * nf;
  double *H = malloc(sizeof(double) * (size_t)nr * nx), *e = calloc(nx, sizeof(double));
  double *col = malloc(sizeof(double) * nr);
  for (int k = 0; k < nx; k++) {
    e[k] = 1;
    sim_rows_apply(c, nc, free_of, e, col);
    e[k] = 0;
    for (int i = 0; i < nr; i++) H[(size_t)i * nx + k] = col[i];
  }
  double *T = calloc((size_t)nr * nx, sizeof(double)), *W = calloc((size_t)nr * nr, sizeof(double));
  for (int i = 0; i < nr; i++)
    for (int u = 0; u < nf; u++)
      for (int d = 0; d < 3; d++) {
        double h = H[(size_t)i * nx + 3 * u + d];
        if (h == 0) continue;
        for (int v = 0; v < nf; v++) T[(size_t)i * nx + 3 * v + d] += h * Ai[(size_t)u * nf + v];
      }
  for (int i = 0; i < nr; i++)
    for (int k = 0; k < nr; k++) {
      double s = 0;
      for (int t = 0; t < nx; t++) s += T[(size_t)i * nx + t] * H[(size_t)k * nx + t];
      W[(size_t)i * nr + k] = s;
    }
  free(H), free(e), free(col), free(T);
  return W;
}

/* dense Cholesky of M (nr x nr, destroyed); 0 when a pivot is not positive */
static int cholesky_ok(double *M, int nr) {
  for (int j = 0; j < nr; j++) {
    double d = M[(size_t)j * nr + j];
    for (int k = 0; k < j; k++) d -= M[(size_t)j * nr + k] * M[(size_t)j * nr + k];
    if (!(d > 0)) return 0;
    d = sqrt(d);
    M[(size_t)j * nr + j] = d;
    for (int i = j + 1; i < nr; i++) {
      double s = M[(size_t)i * nr + j];
      for (int k = 0; k < j; k++) s -= M[(size_t)i * nr + k] * M[(size_t)j * nr + k];
      M[(size_t)i * nr + j] = s / d;
    }
  }
  return 1;
}

static double max_abs(const double *a, size_t m) {
  double s = 0;
  for (size_t i = 0; i < m; i++) s = fmax(s, fabs(a[i]));
  return s;
}

static double max_diff(const double *a, const double *b, size_t m) {
  double s = 0;
  for (size_t i = 0; i < m; i++) s = fmax(s, fabs(a[i] - b[i]));
  return s;
}

/* The block form B of the same step against W (nr rows): diag(W) and the cables' rows to the
   bit, W x to rounding for random x (each row within 1e-13 of sum_j |W_ij x_j|) and through
   G in float to float's, with differences really from the rounding. */
static void check_blocks(const sim_wblocks *B, const double *W, int nr) {
  CHECK_INT(B->nc, nr / 3);
  double *x = malloc(sizeof(double) * nr * 4), *y = x + nr, *t = x + 2 * nr, *d = x + 3 * nr;
  float *Gf = malloc(sizeof(float) * (size_t)B->nc * B->nc + 1);
  sim_wblocks_diag(B, d);
  int same = 1;
  for (int i = 0; i < nr; i++) same &= d[i] == W[(size_t)i * nr + i];
  CHECK(same);
  for (int i = 0; i < B->ncab; i++)
    CHECK(memcmp(B->cab_row + (size_t)i * nr, W + 3 * (size_t)B->cab_j[i] * nr,
                 sizeof(double) * nr) == 0);
  sim_wblocks_round(B, Gf);
  for (int rep = 0; rep < 3; rep++) {
    for (int i = 0; i < nr; i++) x[i] = rand() / (double)RAND_MAX - 0.5;
    double e = 0, ef = 0;
    for (int pass = 0; pass < 2; pass++) {
      sim_wblocks_apply(B, pass ? Gf : NULL, x, y, t);
      for (int i = 0; i < nr; i++) {
        double s = 0, a = 0;
        for (int j = 0; j < nr; j++)
          s += W[(size_t)i * nr + j] * x[j], a += fabs(W[(size_t)i * nr + j] * x[j]);
        double r = a > 0 ? fabs(y[i] - s) / a : fabs(y[i]);
        if (pass)
          ef = fmax(ef, r);
        else
          e = fmax(e, r);
      }
    }
    CHECK(e <= 1e-13);
    CHECK(ef <= 1e-6 && ef > 1e-10);
  }
  free(x), free(Gf);
}

/* Three Newton steps of the same step with W and with B (cables bilateral, the others
   frictional, all pressed in): the multipliers agree to rounding, and with CR's products in
   float (W's float copy against G's) to float's accuracy. */
static void check_blocks_nsn(const sim_contact *c, const sim_wblocks *B, const double *W, int nc) {
  const int nr = 3 * nc;
  double *v = malloc(sizeof(double) * (4 * nr + 2 * nc)), *d = v, *hq = v + nr, *hab = v + 2 * nr;
  double *lw = v + 3 * nr, *mu = v + 4 * nr, *comp = mu + nc;
  for (int j = 0; j < nc; j++) {
    mu[j] = 0.3 + 0.02 * (j % 5);
    comp[j] = c[j].kind == SIM_CONTACT_CABLE ? 0.0 : -1.0;
  }
  for (int i = 0; i < nr; i++) {
    d[i] = i % 3 == 0 ? 1e-3 : 0.0;
    hab[i] = hq[i] = (rand() / (double)RAND_MAX - 0.8) * 1e-3;
  }
  for (int fl = 0; fl < 2; fl++) {
    sim_nsn_options o = sim_default_nsn_options();
    o.cr_float = fl;
    o.line_search = 8;
    sim_nsn a, b;
    CHECK(sim_nsn_init(&a, &o) == 0 && sim_nsn_init(&b, &o) == 0);
    CHECK(sim_nsn_begin_step(&a, nc, W, mu, comp, d, hab, NULL) == 0);
    CHECK(sim_nsn_begin_step_blocks(&b, nc, B, mu, comp, d, hab, NULL) == 0);
    CHECK(sim_nsn_begin_step_blocks(&b, nc, NULL, mu, comp, d, hab, NULL) == -1);
    CHECK(sim_nsn_begin_step_blocks(&b, nc, B, mu, comp, d, hab, NULL) == 0);
    for (int it = 0; it < 3; it++) {
      CHECK(sim_nsn_iterate(&a, hq, hab) > 0);
      CHECK(sim_nsn_iterate(&b, hq, hab) > 0);
    }
    memcpy(lw, sim_nsn_lambda(&a), sizeof(double) * nr);
    double e = max_diff(lw, sim_nsn_lambda(&b), (size_t)nr), scale = max_abs(lw, (size_t)nr);
    CHECK(scale > 0);
    CHECK(e <= (fl ? 1e-4 : 1e-9) * scale);
    sim_nsn_destroy(&a), sim_nsn_destroy(&b);
  }
  free(v);
}

static void check_against_dense(sim_ordering ord) {
  int *cp, *ri;
  double *v;
  int nf = grid_matrix(6, 5, 4, &cp, &ri, &v);
  /* model vertices: every 7th (from 3) pinned, the others the grid's unknowns in order */
  int n = nf + nf / 6, *free_of = malloc(sizeof(int) * n), k = 0, npin = 0;
  for (int i = 0; i < n; i++) {
    int pin = (i % 7 == 3 && npin < n - nf) || k == nf;
    free_of[i] = pin ? -1 : k++;
    npin += pin;
  }
  CHECK_INT(k, nf);
  sim_status st = {0};
  sim_factor *fs = NULL, *fc = NULL;
  CHECK_INT(sim_factor_create(nf, cp, ri, v, ord, 1, &fs, &st), SIM_OK);
  CHECK_INT(sim_factor_create(nf, cp, ri, v, ord, 0, &fc, &st), SIM_OK);
  sim_sparse_inverse S, Sf;
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S, &st), SIM_OK);
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_FLOAT, 0, &Sf, &st), SIM_OK);
  int nc = 40, nr = 3 * nc;
  sim_contact *c = malloc(sizeof(sim_contact) * nc);
  for (int j = 0; j < nc; j++) make_contact(&c[j], j, rand() % n, n);
  make_contact(&c[6], 6, 3, n); /* an obstacle contact on a pinned vertex: a zero row */
  c[9].v = c[7].tri[1];         /* a vertex shared by two contacts */
  static sim_cable_row rows[2];  /* two cables: rows with 12 and 30 terms (some pinned) */
  make_cable(&c[12], &rows[0], 12, n);
  make_cable(&c[25], &rows[1], 30, n);
  rows[1].vert[3] = 3;           /* a pinned vertex: no entry */
  rows[1].vert[4] = c[9].v;      /* shared with a contact */
  double *Ai = dense_inverse(fc, nf);
  double *Wr = dense_w(c, nc, free_of, Ai, nf);
  double scale = max_abs(Wr, (size_t)nr * nr);
  CHECK(scale > 0);
  const sim_delassus_method meth[3] = {SIM_DELASSUS_SPARSE_INVERSE, SIM_DELASSUS_CHOLMOD,
                                       SIM_DELASSUS_AUTO};
  double *W = NULL, *W0 = NULL;
  size_t cap = 0;
  for (int t = 0; t < 3; t++) {
    sim_delassus_info info;
    CHECK_INT(sim_delassus_build(c, nc, free_of, t == 1 ? fc : fs, t == 1 ? NULL : &S, meth[t], 0,
                                 &W, &cap, &info, &st),
              SIM_OK);
    if (!W) continue;
    if (t == 0) W0 = W;
    CHECK(W == W0 && cap == (size_t)nr * nr); /* the buffer is reused */
    CHECK(max_diff(W, Wr, (size_t)nr * nr) <= 1e-10 * scale);
    CHECK(info.method == (t == 1 ? SIM_DELASSUS_CHOLMOD : SIM_DELASSUS_SPARSE_INVERSE));
    CHECK(info.m > 0 && info.m <= nf);
    CHECK(max_abs(W + (3 * 12 + 1) * nr, 2 * nr) == 0); /* a cable's empty rows 1, 2 */
    CHECK(max_abs(W + 3 * 12 * nr, nr) > 0);
    int sym = 1;
    for (int i = 0; i < nr; i++)
      for (int j = 0; j < nr; j++) sym &= W[(size_t)i * nr + j] == W[(size_t)j * nr + i];
    CHECK(sym);
    CHECK(max_abs(W + 18 * nr, nr) == 0); /* row 18 = normal row of contact 6 (pinned) */
    /* positive semidefinite: W + eps I factors; W - (larger eps) I does not (zero row) */
    double *M = malloc(sizeof(double) * nr * nr);
    memcpy(M, W, sizeof(double) * nr * nr);
    for (int i = 0; i < nr; i++) M[(size_t)i * nr + i] += 1e-10 * scale;
    CHECK(cholesky_ok(M, nr));
    memcpy(M, W, sizeof(double) * nr * nr);
    for (int i = 0; i < nr; i++) M[(size_t)i * nr + i] -= 1e-10 * scale;
    CHECK(!cholesky_ok(M, nr));
    /* the diagonal without W, from S and from solves (simplicial and supernodal) */
    double *dg = malloc(sizeof(double) * nr);
    for (int q = 0; q < 3; q++) {
      CHECK_INT(sim_delassus_diag(c, nc, free_of, q == 2 ? fc : fs, q == 0 ? &S : NULL, dg, &st),
                SIM_OK);
      double e = 0;
      for (int i = 0; i < nr; i++) e = fmax(e, fabs(dg[i] - W[(size_t)i * nr + i]));
      CHECK(e <= 1e-10 * scale);
    }
    free(M), free(dg);
    sim_wblocks B = {0};
    CHECK_INT(sim_delassus_build_blocks(c, nc, free_of, t == 1 ? fc : fs, t == 1 ? NULL : &S,
                                        meth[t], 0, &B, NULL, &st),
              SIM_OK);
    CHECK(B.ncab == 2 && B.cab_j[0] == 12 && B.cab_j[1] == 25);
    check_blocks(&B, W, nr);
    if (t == 0) check_blocks_nsn(c, &B, W, nc);
    sim_status stb = {0}; /* the memory limit, and B freed on failure */
    CHECK_INT(
        sim_delassus_build_blocks(c, nc, free_of, fs, &S, SIM_DELASSUS_AUTO, 4096, &B, NULL, &stb),
        SIM_ERR_MEMORY);
    CHECK_STR_CONTAINS(stb.msg, "MiB, over the limit");
    CHECK(B.G == NULL && B.nc == 0);
    sim_wblocks_free(&B);
  }
  /* float S: W to float accuracy, and really from the float values */
  double *Wf = NULL;
  size_t capf = 0;
  CHECK_INT(sim_delassus_build(c, nc, free_of, NULL, &Sf, SIM_DELASSUS_SPARSE_INVERSE, 0, &Wf,
                               &capf, NULL, &st),
            SIM_OK);
  if (Wf) {
    double e = max_diff(Wf, Wr, (size_t)nr * nr);
    CHECK(e <= 1e-5 * scale);
    CHECK(e > 1e-13 * scale);
  }
  sim_free(Wf);
  /* a memory limit below the need is refused before allocating W, naming the size */
  sim_status st2 = {0};
  double *W2 = NULL;
  size_t cap2 = 0;
  CHECK_INT(
      sim_delassus_build(c, nc, free_of, fs, &S, SIM_DELASSUS_AUTO, 4096, &W2, &cap2, NULL, &st2),
      SIM_ERR_MEMORY);
  CHECK(W2 == NULL && cap2 == 0);
  CHECK_STR_CONTAINS(st2.msg, "MiB, over the limit");
  CHECK_STR_CONTAINS(st2.msg, "120 x 120");
  /* a method without its input is an error, nc = 0 is fine */
  sim_status st3 = {0};
  CHECK_INT(sim_delassus_build(c, nc, free_of, fs, NULL, SIM_DELASSUS_SPARSE_INVERSE, 0, &W2, &cap2,
                               NULL, &st3),
            SIM_ERR_INTERNAL);
  CHECK_INT(sim_delassus_build(c, 0, free_of, fs, &S, SIM_DELASSUS_AUTO, 0, &W2, &cap2, NULL, &st),
            SIM_OK);
  CHECK(W2 == NULL);
  /* a failure frees the caller's buffer; a smaller problem reuses it */
  CHECK_INT(
      sim_delassus_build(c, nc / 2, free_of, fs, &S, SIM_DELASSUS_AUTO, 0, &W, &cap, NULL, &st),
      SIM_OK);
  CHECK(W == W0 && cap == (size_t)nr * nr);
  sim_status st4 = {0};
  CHECK_INT(
      sim_delassus_build(c, nc, free_of, fs, &S, SIM_DELASSUS_AUTO, 4096, &W, &cap, NULL, &st4),
      SIM_ERR_MEMORY);
  CHECK(W == NULL && cap == 0);
  sim_sparse_inverse_free(&S);
  sim_sparse_inverse_free(&Sf);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  free(cp), free(ri), free(v), free(free_of), free(c), free(Ai), free(Wr);
}

/* timings of both methods on a 20^3 grid with 1000 contact vertices (random or on a face) */
/* W x per product, W formed (the Newton solve's dense rows) against its block form, each in
   double and with CR's float copy: the least of 5 rounds of 20 products, and the bytes of W's
   values each reads. */
static void bench_products(const sim_contact *c, int nc, const double *W, sim_factor *fs,
                           const sim_sparse_inverse *S) {
  const int nr = 3 * nc;
  sim_wblocks B = {0};
  sim_status st = {0};
  CHECK_INT(
      sim_delassus_build_blocks(c, nc, NULL, fs, S, SIM_DELASSUS_SPARSE_INVERSE, 0, &B, NULL, &st),
      SIM_OK);
  double *v = calloc((size_t)7 * nr, sizeof(double)), *x = v, *y = v + nr, *mu = v + 2 * nr;
  for (int i = 0; i < nr; i++) x[i] = rand() / (double)RAND_MAX - 0.5;
  for (int fl = 0; fl < 2; fl++)
    for (int blocks = 0; blocks < 2; blocks++) {
      sim_nsn_options o = sim_default_nsn_options();
      o.cr_float = fl;
      sim_nsn s;
      CHECK(sim_nsn_init(&s, &o) == 0);
      CHECK((blocks ? sim_nsn_begin_step_blocks(&s, nc, &B, mu, NULL, v + 3 * nr, v + 4 * nr, NULL)
                    : sim_nsn_begin_step(&s, nc, W, mu, NULL, v + 3 * nr, v + 4 * nr, NULL)) == 0);
      double best = 1e300;
      for (int round = 0; round < 5; round++) {
        double t0 = sim_now_ms();
        for (int k = 0; k < 20; k++) sim_nsn_w_apply_cr(&s, x, y);
        best = fmin(best, (sim_now_ms() - t0) / 20);
      }
      double mb = (blocks ? (double)nc * nc : 9.0 * nc * nc) * (fl ? 4 : 8) / 1e6;
      printf("bench product, %d rows, %s, %s: %.3f ms, %.1f MB of values (%.1f GB/s)\n", nr,
             blocks ? "blocks" : "W formed", fl ? "float" : "double", best, mb, mb / best);
      sim_nsn_destroy(&s);
    }
  free(v);
  sim_wblocks_free(&B);
}

/* The grid's matrix (nx x ny x nz unknowns) factored supernodal (fs) and simplicial (fc), METIS
   order; returns its order. The caller frees both and the three arrays. */
static int grid_factors(int nx, int ny, int nz, int **cp, int **ri, double **v, sim_factor **fs,
                        sim_factor **fc) {
  int nf = grid_matrix(nx, ny, nz, cp, ri, v);
  sim_status st = {0};
  *fs = *fc = NULL;
  CHECK_INT(sim_factor_create(nf, *cp, *ri, *v, SIM_ORDER_METIS, 1, fs, &st), SIM_OK);
  CHECK_INT(sim_factor_create(nf, *cp, *ri, *v, SIM_ORDER_METIS, 0, fc, &st), SIM_OK);
  return nf;
}

static void bench(int on_surface) {
  int *cp, *ri;
  double *v;
  sim_factor *fs, *fc;
  int nf = grid_factors(20, 20, 20, &cp, &ri, &v, &fs, &fc);
  sim_status st = {0};
  sim_sparse_inverse S;
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S, &st), SIM_OK);
  int nc = 1000, *perm = malloc(sizeof(int) * nf);
  for (int i = 0; i < nf; i++) perm[i] = i;
  for (int i = nf - 1; i > 0; i--) { /* shuffle */
    int j = rand() % (i + 1), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  sim_contact *c = malloc(sizeof(sim_contact) * nc);
  /* surface: the z = 0 and z = 1 layers, then part of z = 2 (a thick contact patch) */
  for (int j = 0; j < nc; j++) make_contact(&c[j], 0, on_surface ? j : perm[j], nf);
  double *W = NULL;
  size_t cap = 0;
  sim_delassus_info info;
  /* the first call allocates W (page faults); the timed calls reuse it, as a simulation does */
  CHECK_INT(
      sim_delassus_build(c, nc, NULL, fs, &S, SIM_DELASSUS_SPARSE_INVERSE, 0, &W, &cap, &info, &st),
      SIM_OK);
  printf("bench first call (allocating W): K %.1f ms, W %.1f ms\n", info.k_ms, info.w_ms);
  for (int t = 0; t < 2; t++) {
    sim_delassus_method m = t == 0 ? SIM_DELASSUS_SPARSE_INVERSE : SIM_DELASSUS_CHOLMOD;
    double t0 = sim_now_ms();
    CHECK_INT(sim_delassus_build(c, nc, NULL, t == 0 ? fs : fc, &S, m, 0, &W, &cap, &info, &st),
              SIM_OK);
    double ms = sim_now_ms() - t0;
    printf(
        "bench %s: n %d, nnz(S) %lld, etree height %d, %d contacts, m %d, %s: K %.1f ms, W "
        "%.1f ms, total %.1f ms\n",
        on_surface ? "surface" : "random", nf, S.nnz, S.etree_height, nc, info.m,
        t == 0 ? "sparse_inverse" : "cholmod(supernodal)", info.k_ms, info.w_ms, ms);
  }
  bench_products(c, nc, W, fs, &S);
  sim_free(W);
  double *dg = malloc(sizeof(double) * 3 * nc), t0 = sim_now_ms();
  CHECK_INT(sim_delassus_diag(c, nc, NULL, fs, &S, dg, &st), SIM_OK);
  printf("bench diag from S: %.2f ms\n", sim_now_ms() - t0);
  free(dg);
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  free(cp), free(ri), free(v), free(perm), free(c);
}

/* On a grid whose columns of L^{-1} share paths of tens of entries (so that the path dot
   products' eight sums and their tails all run): W from S in double and in float, with K's loop
   in the AVX2 build (where it runs) and in the baseline's, the same bits; and within 1e-10 of
   the dense reference in double. */
static void check_k_builds(void) {
  int *cp, *ri;
  double *v;
  sim_factor *fs, *fc;
  int nf = grid_factors(10, 9, 8, &cp, &ri, &v, &fs, &fc);
  sim_status st = {0};
  sim_sparse_inverse S[2];
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_DOUBLE, 0, &S[0], &st), SIM_OK);
  CHECK_INT(sim_sparse_inverse_build(fs, SIM_PREC_FLOAT, 0, &S[1], &st), SIM_OK);
  int longest = 0;
  for (int k = 0; k < nf; k++)
    longest = S[0].col_ptr[k + 1] - S[0].col_ptr[k] > longest
                  ? S[0].col_ptr[k + 1] - S[0].col_ptr[k]
                  : longest;
  CHECK(longest >= 40);
  const int nc = 150, nr = 3 * nc;
  sim_contact *c = malloc(sizeof(sim_contact) * nc);
  for (int j = 0; j < nc; j++) make_contact(&c[j], j, rand() % nf, nf);
  double *Ai = dense_inverse(fc, nf), *Wr = dense_w(c, nc, NULL, Ai, nf);
  const int was = sim_cpu_avx2();
  printf("K's path dot products: columns up to %d entries; AVX2 build %s\n", longest,
         was ? "checked against the baseline's"
             : "not run (off: no AVX2 here, or SIMCTL_CPU_AVX2=off)");
  for (int p = 0; p < 2; p++) {
    double *W[2] = {NULL, NULL};
    size_t cap[2] = {0, 0};
    for (int on = 0; on <= was; on++) {
      sim_cpu_avx2_set(on);
      CHECK_INT(sim_delassus_build(c, nc, NULL, NULL, &S[p], SIM_DELASSUS_SPARSE_INVERSE, 0, &W[on],
                                   &cap[on], NULL, &st),
                SIM_OK);
    }
    if (was) CHECK(W[0] && W[1] && !memcmp(W[0], W[1], sizeof(double) * (size_t)nr * nr));
    if (W[0])
      CHECK(max_diff(W[0], Wr, (size_t)nr * nr) <=
            (p ? 1e-5 : 1e-10) * max_abs(Wr, (size_t)nr * nr));
    sim_free(W[0]), sim_free(W[1]);
  }
  sim_cpu_avx2_set(was);
  sim_sparse_inverse_free(&S[0]);
  sim_sparse_inverse_free(&S[1]);
  sim_factor_destroy(fs);
  sim_factor_destroy(fc);
  free(Ai), free(Wr);
  free(c), free(cp), free(ri), free(v);
}

int main(void) {
  srand(5);
  check_against_dense(SIM_ORDER_METIS);
  check_against_dense(SIM_ORDER_AMD);
  check_k_builds();
  if (getenv("SIMCTL_BENCH_DELASSUS")) {
    bench(0);
    bench(1);
  }
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_delassus");
}

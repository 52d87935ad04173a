/* SPDX-License-Identifier: MIT */
/* The matrix-free Delassus operator through the contacts' columns of S (delassus_op.h): W x
   against the product through all of S (H^T, S, S^T, H, the CPU backend's fallback) within
   1e-14 of its largest entry (the operator adds the same terms in two interleaved sums),
   with S in double and in float, free_of given or not, cables, pinned and shared vertices, a
   contact whose vertices are all pinned; W x against the dense W; the buffers reused across
   builds of other sizes; no contact; the same bits again, and with 1, 2 and 4 threads at sizes
   where every loop runs in parallel; an S whose elimination tree is not postordered refused. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/base/cpu_simd.h"
#include "../core/contact/delassus.h"
#include "../core/contact/delassus_op.h"
#include "../core/contact/rows.h"
#include "check.h"
#include "contact_gen.h"
#include "grid_S.h"

/* out = H_free S^T S H_free^T x over all of S (nf unknowns) */
static void full_product(const sim_contact *c, int nc, const int *free_of,
                         const sim_sparse_inverse *S, const double *x, double *out) {
  size_t f3 = 3 * (size_t)S->n;
  double *g = calloc(f3, sizeof(double)), *y = malloc(sizeof(double) * f3);
  double *xc = malloc(sizeof(double) * f3);
  sim_rows_apply_T(c, nc, free_of, x, g);
  sim_sparse_inverse_apply(S, g, y, xc);
  sim_rows_apply(c, nc, free_of, xc, out);
  free(g), free(y), free(xc);
}

static int same_bits(const double *a, const double *b, int n) {
  return memcmp(a, b, sizeof(double) * (size_t)n) == 0;
}

static double worst_rel; /* the largest |a - b| / max |b| seen, printed at the end */

/* |a - b| <= 1e-14 max |b| (b the full product: the same terms, summed in another order; the
   rows no unknown reaches, a pinned vertex's and a cable's second and third, are checked to be 0
   on their own) */
static int close_to(const double *a, const double *b, int n) {
  double e = 0.0, scale = 0.0;
  for (int i = 0; i < n; i++) {
    e = fmax(e, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  if (scale > 0.0) worst_rel = fmax(worst_rel, e / scale);
  return e <= 1e-14 * scale;
}

/* n model vertices over nf unknowns: every 7th from 3 pinned (free_of), or all free (NULL) */
static int *pins(int n, int nf) {
  int *free_of = malloc(sizeof(int) * n), k = 0, npin = 0;
  for (int i = 0; i < n; i++) {
    int pin = (i % 7 == 3 && npin < n - nf) || k == nf;
    free_of[i] = pin ? -1 : k++;
    npin += pin;
  }
  CHECK_INT(k, nf);
  return free_of;
}

static void random_contacts(sim_contact *c, int nc, int n, sim_cable_row *rows) {
  for (int j = 0; j < nc; j++) make_contact(&c[j], j, rand() % n, n);
  if (nc > 30) {
    make_contact(&c[6], 6, 3, n); /* an obstacle contact on a pinned vertex: a zero row */
    c[9].v = c[7].tri[1];         /* a vertex shared by two contacts */
    make_cable(&c[12], &rows[0], 12, n);
    make_cable(&c[25], &rows[1], 30, n);
    rows[1].vert[3] = 3;      /* pinned: no term */
    rows[1].vert[4] = c[9].v; /* shared with a contact */
  }
}

static void check_operator(int with_pins) {
  int *cp, *ri;
  double *v;
  int nf = grid_matrix(7, 6, 5, &cp, &ri, &v);
  int n = with_pins ? nf + nf / 6 : nf, *free_of = with_pins ? pins(n, nf) : NULL;
  sim_status st = {0};
  sim_factor *f = NULL;
  CHECK_INT(sim_factor_create(nf, cp, ri, v, SIM_ORDER_METIS, 1, &f, &st), SIM_OK);
  sim_sparse_inverse S[2];
  CHECK_INT(sim_sparse_inverse_build(f, SIM_PREC_DOUBLE, 0, &S[0], &st), SIM_OK);
  CHECK_INT(sim_sparse_inverse_build(f, SIM_PREC_FLOAT, 0, &S[1], &st), SIM_OK);
  static sim_cable_row rows[2];
  const int sizes[5] = {60, 5, 1, 90, 40}; /* grow, shrink, grow past the first capacity */
  int nmax = 90;
  sim_contact *c = malloc(sizeof(sim_contact) * nmax);
  double *x = malloc(sizeof(double) * 3 * nmax), *a = malloc(sizeof(double) * 3 * nmax);
  double *b = malloc(sizeof(double) * 3 * nmax);
  for (int p = 0; p < 2; p++) {
    sim_delassus_op op;
    memset(&op, 0, sizeof op);
    for (int s = 0; s < 5; s++) {
      int nc = sizes[s], nr = 3 * nc;
      random_contacts(c, nc, n, rows);
      CHECK_INT(sim_delassus_op_build(&op, c, nc, free_of, &S[p], &st), SIM_OK);
      CHECK(op.T.m <= nf && op.nr >= op.T.m && op.nr <= nf && op.nnz <= S[p].nnz);
      CHECK(op.T.m > 0 || nc == 1); /* a single contact may sit on a pinned vertex */
      CHECK((op.nnz > 0) == (op.T.m > 0));
      for (int t = 0; t < 3; t++) { /* random x, then a unit x, then x with zeros */
        for (int i = 0; i < nr; i++) x[i] = t == 1 ? (i == nr / 2) : gen_rnd() * (t != 2 || i % 3);
        sim_delassus_op_apply(&op, c, nc, x, a);
        full_product(c, nc, free_of, &S[p], x, b);
        CHECK(close_to(a, b, nr));
        memcpy(b, a, sizeof(double) * (size_t)nr);
        sim_delassus_op_apply(&op, c, nc, x, a); /* again: the same bits */
        CHECK(same_bits(a, b, nr));
      }
      if (p == 0 && nc >= 40) { /* W x against the dense W from S's path dot products */
        double *W = NULL;
        size_t cap = 0;
        CHECK_INT(sim_delassus_build(c, nc, free_of, f, &S[0], SIM_DELASSUS_SPARSE_INVERSE, 0, &W,
                                     &cap, NULL, &st),
                  SIM_OK);
        for (int i = 0; i < nr; i++) x[i] = gen_rnd();
        sim_delassus_op_apply(&op, c, nc, x, a);
        double e = 0, scale = 0;
        for (int i = 0; i < nr; i++) {
          double wx = 0;
          for (int k = 0; k < nr; k++) wx += W[(size_t)i * nr + k] * x[k];
          e = fmax(e, fabs(wx - a[i]));
          scale = fmax(scale, fabs(wx));
        }
        CHECK(scale > 0 && e <= 1e-12 * scale);
        if (with_pins && nc > 30) CHECK(a[18] == 0 && a[19] == 0 && a[20] == 0);
        if (nc > 30) CHECK(a[3 * 12 + 1] == 0 && a[3 * 12 + 2] == 0); /* a cable's rows 1, 2 */
        sim_free(W);
      }
    }
    /* no contact, then contacts on pinned vertices alone: W x = 0 */
    CHECK_INT(sim_delassus_op_build(&op, c, 0, free_of, &S[p], &st), SIM_OK);
    CHECK(op.T.m == 0 && op.nr == 0 && op.nnz == 0);
    if (with_pins) {
      make_contact(&c[0], 0, 3, n);
      make_contact(&c[1], 2, 10, n);
      CHECK_INT(free_of[10], -1);
      CHECK_INT(sim_delassus_op_build(&op, c, 2, free_of, &S[p], &st), SIM_OK);
      CHECK_INT(op.T.m, 0);
      for (int i = 0; i < 6; i++) x[i] = 1.0 + i;
      sim_delassus_op_apply(&op, c, 2, x, a);
      for (int i = 0; i < 6; i++) CHECK(a[i] == 0);
    }
    sim_delassus_op_free(&op);
  }
  sim_sparse_inverse_free(&S[0]);
  sim_sparse_inverse_free(&S[1]);
  sim_factor_destroy(f);
  free(cp), free(ri), free(v), free(free_of), free(c), free(x), free(a), free(b);
}

/* Sizes where every loop of the product runs in parallel (over 512 rows of Y and contacts, 256
   columns): close to the full product, and the same bits with 1, 2 and 4 threads, in the
   baseline's build of its loops and AVX2's (base/cpu_simd.h, where the processor has it). */
static void check_parallel(void) {
  sim_factor *f = NULL;
  sim_sparse_inverse S;
  int nf = grid_S(20, 16, 12, SIM_ORDER_METIS, &f, &S);
  sim_status st = {0};
  int nc = 700, nr = 3 * nc, saved = omp_get_max_threads();
  sim_contact *c = malloc(sizeof(sim_contact) * nc);
  static sim_cable_row rows[2];
  random_contacts(c, nc, nf, rows);
  double *x = malloc(sizeof(double) * nr), *a = malloc(sizeof(double) * nr);
  double *b = malloc(sizeof(double) * nr);
  for (int i = 0; i < nr; i++) x[i] = gen_rnd();
  full_product(c, nc, NULL, &S, x, b);
  sim_delassus_op op;
  memset(&op, 0, sizeof op);
  CHECK_INT(sim_delassus_op_build(&op, c, nc, NULL, &S, &st), SIM_OK);
  CHECK(op.nr > 512 && op.T.m > 256);
  printf("parallel sizes: %d contacts, m %d, Y %d rows, %lld entries (S %lld); AVX2 build %s\n", nc,
         op.T.m, op.nr, op.nnz, S.nnz,
         sim_cpu_avx2() ? "checked too" : "not run (off: no AVX2 here, or SIMCTL_CPU_AVX2=off)");
  const int avx2 = sim_cpu_avx2();
  for (int on = avx2; on >= 0; on--) { /* the AVX2 build's loops where they run, then the base */
    sim_cpu_avx2_set(on);
    for (int th = 1; th <= 4; th *= 2) {
      omp_set_num_threads(th);
      sim_delassus_op_apply(&op, c, nc, x, a);
      if (th == 1 && on == avx2) {
        CHECK(close_to(a, b, nr));
        memcpy(b, a, sizeof(double) * (size_t)nr);
      }
      CHECK(same_bits(a, b, nr));
    }
  }
  sim_cpu_avx2_set(avx2);
  omp_set_num_threads(saved);
  sim_delassus_op_free(&op);
  sim_sparse_inverse_free(&S);
  sim_factor_destroy(f);
  free(c), free(x), free(a), free(b);
}

/* A hand-made S whose elimination tree is not postordered (column 0's parent is 2, column 1
   a root of its own): refused, and the operator stays empty and reusable. */
static void check_not_postordered(void) {
  int perm[3] = {0, 1, 2}, col_ptr[4] = {0, 2, 3, 4}, col_row[4] = {0, 2, 1, 2};
  double col_val[4] = {1, 0.5, 1, 1};
  sim_sparse_inverse S;
  memset(&S, 0, sizeof S);
  S.n = 3, S.nnz = 4, S.perm = perm, S.col_ptr = col_ptr, S.col_row = col_row;
  S.col_val = col_val;
  sim_contact c[1];
  make_contact(&c[0], 0, 0, 3);
  sim_delassus_op op;
  memset(&op, 0, sizeof op);
  sim_status st = {0};
  CHECK_INT(sim_delassus_op_build(&op, c, 1, NULL, &S, &st), SIM_ERR_INTERNAL);
  CHECK_STR_CONTAINS(st.msg, "not postordered");
  CHECK(op.T.m == 0 && op.nr == 0 && op.nnz == 0);
  sim_delassus_op_free(&op);
}

int main(void) {
  srand(11);
  check_not_postordered();
  check_operator(1);
  check_operator(0);
  check_parallel();
  printf("against the product through all of S: within %.2e of its largest entry\n", worst_rel);
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_delassus_op");
}

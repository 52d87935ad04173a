/* SPDX-License-Identifier: MIT */
/* The Delassus operator on the device (gpu/delassus_cuda.cu) against the host's
   (core/contact/delassus.c), label gpu, SKIPPED without a CUDA device. On a grid system with
   pinned vertices: random obstacle and body contacts, contacts on pinned vertices, shared
   vertices and two cables (with a pinned and a shared term); S in double and in float. The
   dense W, the diagonal taken from it and the diagonal formed without W must equal the host's
   within 1e-12 relative to W's largest entry (the same functions in the same order: bitwise
   equal is expected, and the count of differing entries is printed). Also: no contacts, a W
   over the memory limit refused as on the host, and a second, smaller step reusing the
   buffers. W's block form (G, the frames, the cables' rows, the diagonal from them) likewise
   against the host's, and its memory limit. The matrix-free W's solve through the contact vertices'
   columns of S (gpu/wcols_cuda.cu) against the host's through all of S, within 1e-12 (the warps add
   in their own order). */
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/contact/delassus.h"
#include "../core/contact/delassus_terms.h"
#include "../gpu/delassus_cuda.h"
#include "contact_gen.h"
#include "gpu_pair.h"
#include "grid_matrix.h"

/* max |a - b| over n, and how many differ at all */
static double diff(const double *a, const double *b, size_t n, long *ndiff) {
  double d = 0.0;
  *ndiff = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (!(e <= d)) d = e; /* NaN wins */
    *ndiff += a[i] != b[i];
  }
  return d;
}

static double max_abs(const double *a, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* The matrix-free W's solve through the contact vertices' columns of S (gpu/wcols_cuda.cu)
   against the host's solve through all of S, at the contact unknowns; the other entries of x
   are kept. */
static void solve_cols(sim_cuda_delassus *k, const sim_contact *c, int nc, const int *free_of,
                       const sim_sparse_inverse *S, const char *what) {
  sim_status st = {0};
  sim_delassus_terms T;
  CHECK_INT(sim_delassus_terms_build(c, nc, free_of, S->n, &T, &st), SIM_OK);
  const size_t n3 = 3 * (size_t)S->n;
  double *g = SIM_NEW(double, n3), *y = SIM_NEW(double, n3), *xh = SIM_NEW(double, n3),
         *xd = SIM_NEW(double, n3);
  for (size_t i = 0; i < n3; i++) g[i] = 0.0, xd[i] = -7.0;
  for (int a = 0; a < T.m; a++) /* g where H_free^T puts it: at the contact unknowns */
    for (int d = 0; d < 3; d++) g[3 * (size_t)T.unk[a] + d] = gen_rnd();
  sim_sparse_inverse_apply(S, g, y, xh);
  int rc = sim_cuda_delassus_solve_cols(k, g, xd, &st);
  if (rc) fprintf(stderr, "%s: %s\n", what, st.msg);
  CHECK_INT(rc, SIM_OK);
  double e = 0.0, scale = 0.0;
  long kept = 0, at = 0;
  char *mark = SIM_NEW0(char, (size_t)S->n + 1);
  for (int a = 0; a < T.m; a++) mark[T.unk[a]] = 1;
  for (int u = 0; u < S->n; u++)
    for (int d = 0; d < 3; d++) {
      const size_t i = 3 * (size_t)u + d;
      if (!mark[u]) {
        kept += xd[i] == -7.0;
        continue;
      }
      at++;
      e = fmax(e, fabs(xd[i] - xh[i]));
      scale = fmax(scale, fabs(xh[i]));
    }
  printf("%s: A^-1 g through the contact columns, %d unknowns: max |diff| %.3g of %.3g\n", what,
         T.m, e, scale);
  CHECK(at == 3L * T.m && kept == (long)n3 - at);
  CHECK(scale > 0 && e <= 1e-12 * scale);
  sim_free(mark);
  sim_free(g), sim_free(y), sim_free(xh), sim_free(xd);
  sim_delassus_terms_free(&T);
}

/* One step's contacts on both sides: dense W, its diagonal, the diagonal alone, and the
   matrix-free W's solve. */
static void compare(sim_cuda_delassus *k, const sim_contact *c, int nc, const int *free_of,
                    const sim_sparse_inverse *S, const char *what) {
  sim_status st = {0};
  const size_t nr = 3 * (size_t)nc;
  double *W = NULL, *Wg = SIM_NEW(double, nr * nr), *dh = SIM_NEW(double, nr),
         *dg = SIM_NEW(double, nr), *dw = SIM_NEW(double, nr);
  size_t cap = 0;
  CHECK_INT(sim_delassus_build(c, nc, free_of, NULL, S, SIM_DELASSUS_SPARSE_INVERSE, 0, &W, &cap,
                               NULL, &st),
            SIM_OK);
  CHECK_INT(sim_delassus_diag(c, nc, free_of, NULL, S, dh, &st), SIM_OK);
  int rc = sim_cuda_delassus_build(k, c, nc, free_of, 1, 0, dw, &st);
  if (rc) fprintf(stderr, "%s: %s\n", what, st.msg);
  CHECK_INT(rc, SIM_OK);
  CHECK(sim_cuda_delassus_W(k) != NULL);
  CHECK_INT(sim_cuda_delassus_download(k, Wg, &st), SIM_OK);
  rc = sim_cuda_delassus_build(k, c, nc, free_of, 0, 0, dg, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK(sim_cuda_delassus_W(k) == NULL); /* matrix-free: no dense W this step */
  solve_cols(k, c, nc, free_of, S, what);
  long nw, nd, ndw;
  const double scale = max_abs(W, nr * nr);
  const double ew = diff(W, Wg, nr * nr, &nw), ed = diff(dh, dg, nr, &nd);
  for (size_t i = 0; i < nr; i++) dh[i] = W[i * nr + i]; /* the host W's own diagonal */
  const double edw = diff(dh, dw, nr, &ndw);
  printf("%s: %d contacts, W max |diff| %.3g of %.3g (%ld of %zu entries differ), diagonal "
         "%.3g (%ld differ), W's diagonal %.3g (%ld differ)\n",
         what, nc, ew, scale, nw, nr * nr, ed, nd, edw, ndw);
  CHECK(scale > 0);
  CHECK(ew <= 1e-12 * scale);
  CHECK(ed <= 1e-12 * scale);
  CHECK(edw <= 1e-12 * scale);
  sim_free(W);
  sim_free(Wg), sim_free(dh), sim_free(dg), sim_free(dw);
}

/* W's block form on both sides (wblocks.h: G, the frames, the cables' rows, diag(W)): the
   device's from the same functions in the same order as the host's; no W formed. */
static void compare_blocks(sim_cuda_delassus *k, const sim_contact *c, int nc, const int *free_of,
                           const sim_sparse_inverse *S, const char *what) {
  sim_status st = {0};
  sim_wblocks B = {0};
  CHECK_INT(sim_delassus_build_blocks(c, nc, free_of, NULL, S, SIM_DELASSUS_SPARSE_INVERSE, 0, &B,
                                      NULL, &st),
            SIM_OK);
  const size_t nn = (size_t)nc * nc, nr = 3 * (size_t)nc * (size_t)B.ncab;
  double *G = SIM_NEW(double, nn), *fr = SIM_NEW(double, 9 * (size_t)nc),
         *rows = SIM_NEW(double, nr + 1), *dh = SIM_NEW(double, 3 * (size_t)nc),
         *dg = SIM_NEW(double, 3 * (size_t)nc);
  int rc = sim_cuda_delassus_build(k, c, nc, free_of, SIM_CUDA_W_BLOCKS, 0, dg, &st);
  if (rc) fprintf(stderr, "%s: %s\n", what, st.msg);
  CHECK_INT(rc, SIM_OK);
  CHECK(sim_cuda_delassus_W(k) == NULL); /* W itself is not formed */
  sim_cuda_wblocks D;
  CHECK_INT(sim_cuda_delassus_blocks(k, &D), 0);
  CHECK_INT(D.nc, nc);
  CHECK_INT(D.ncab, B.ncab);
  CHECK_INT(sim_cuda_delassus_download_blocks(k, G, fr, rows, &st), SIM_OK);
  sim_wblocks_diag(&B, dh);
  long ng, nf, nrw, nd;
  const double scale = max_abs(B.G, nn);
  const double eg = diff(B.G, G, nn, &ng), ef = diff(B.frame, fr, 9 * (size_t)nc, &nf);
  const double er = diff(B.cab_row, rows, nr, &nrw), ed = diff(dh, dg, 3 * (size_t)nc, &nd);
  printf(
      "%s: %d contacts, %d cables, block form: G max |diff| %.3g of %.3g (%ld of %zu differ), "
      "frames %ld differ, cables' rows %.3g (%ld of %zu differ), diagonal %.3g (%ld differ)\n",
      what, nc, B.ncab, eg, scale, ng, nn, nf, er, nrw, nr, ed, nd);
  CHECK(scale > 0 && B.ncab > 0);
  CHECK(eg <= 1e-12 * scale && ef == 0.0 && er <= 1e-12 * scale && ed <= 1e-12 * scale);
  for (int i = 0; i < B.ncab; i++)
    CHECK(max_abs(B.cab_row + 3 * (size_t)i * nc, 3 * (size_t)nc) > 0);
  /* a dense W's build leaves no block form */
  CHECK_INT(sim_cuda_delassus_build(k, c, nc, free_of, SIM_CUDA_W_DENSE, 0, dg, &st), SIM_OK);
  CHECK_INT(sim_cuda_delassus_blocks(k, &D), -1);
  /* over the memory limit: refused with the host's message */
  sim_status sh = {0}, sd = {0};
  sim_wblocks B2 = {0};
  CHECK_INT(sim_delassus_build_blocks(c, nc, free_of, NULL, S, SIM_DELASSUS_SPARSE_INVERSE, 1000,
                                      &B2, NULL, &sh),
            SIM_ERR_MEMORY);
  CHECK_INT(sim_cuda_delassus_build(k, c, nc, free_of, SIM_CUDA_W_BLOCKS, 1000, dg, &sd),
            SIM_ERR_MEMORY);
  CHECK(strcmp(sh.msg, sd.msg) == 0);
  sim_wblocks_free(&B);
  sim_free(G), sim_free(fr), sim_free(rows), sim_free(dh), sim_free(dg);
}

int main(void) {
  gpu_or_skip("test_gpu_delassus");
  srand(7);
  int *cp, *ri;
  double *v;
  int nf = grid_matrix(14, 12, 10, &cp, &ri, &v);
  /* model vertices: every 7th (from 3) pinned, the others the grid's unknowns in order */
  int n = nf + nf / 6, *free_of = malloc(sizeof(int) * n), kk = 0, npin = 0;
  for (int i = 0; i < n; i++) {
    int pin = (i % 7 == 3 && npin < n - nf) || kk == nf;
    free_of[i] = pin ? -1 : kk++;
    npin += pin;
  }
  sim_status st = {0};
  sim_factor *f = NULL;
  CHECK_INT(sim_factor_create(nf, cp, ri, v, SIM_ORDER_METIS, 1, &f, &st), SIM_OK);
  sim_sparse_inverse S, Sf;
  CHECK_INT(sim_sparse_inverse_build(f, SIM_PREC_DOUBLE, 0, &S, &st), SIM_OK);
  CHECK_INT(sim_sparse_inverse_build(f, SIM_PREC_FLOAT, 0, &Sf, &st), SIM_OK);
  const int nc = 300;
  sim_contact *c = malloc(sizeof(sim_contact) * nc);
  for (int j = 0; j < nc; j++) make_contact(&c[j], j, rand() % n, n);
  make_contact(&c[6], 6, 3, n); /* an obstacle contact on a pinned vertex: a zero row */
  c[9].v = c[7].tri[1];         /* a vertex shared by two contacts */
  static sim_cable_row rows[2];
  make_cable(&c[12], &rows[0], 12, n);
  make_cable(&c[125], &rows[1], 30, n);
  rows[1].vert[3] = 3;       /* a pinned vertex: no entry */
  rows[1].vert[4] = c[9].v;  /* shared with a contact */

  sim_cuda_delassus *k = NULL, *kf = NULL;
  CHECK_INT(sim_cuda_delassus_create(NULL, &k, &st), SIM_OK);
  CHECK_INT(sim_cuda_delassus_create(NULL, &kf, &st), SIM_OK);
  CHECK_INT(sim_cuda_delassus_upload_S(k, &S, &st), SIM_OK);
  CHECK_INT(sim_cuda_delassus_upload_S(kf, &Sf, &st), SIM_OK);
  compare(k, c, nc, free_of, &S, "double");
  compare(kf, c, nc, free_of, &Sf, "float");
  compare(k, c, 40, free_of, &S, "double, a smaller step"); /* buffers reused */
  compare_blocks(k, c, nc, free_of, &S, "double");
  compare_blocks(kf, c, nc, free_of, &Sf, "float");
  compare_blocks(k, c, 140, free_of, &S, "double, a smaller step"); /* buffers reused */
  CHECK(sim_cuda_delassus_bytes(k) > 0);
  /* no contacts: nothing to do; a W over the limit: refused with the host's message */
  double d0[3] = {0, 0, 0};
  CHECK_INT(sim_cuda_delassus_build(k, c, 0, free_of, 1, 0, d0, &st), SIM_OK);
  sim_status sh = {0}, sg = {0};
  double *W = NULL;
  size_t cap = 0;
  CHECK_INT(sim_delassus_build(c, nc, free_of, NULL, &S, SIM_DELASSUS_SPARSE_INVERSE, 1000, &W,
                               &cap, NULL, &sh),
            SIM_ERR_MEMORY);
  double *dg = SIM_NEW(double, 3 * (size_t)nc);
  CHECK_INT(sim_cuda_delassus_build(k, c, nc, free_of, 1, 1000, dg, &sg), SIM_ERR_MEMORY);
  CHECK(strcmp(sh.msg, sg.msg) == 0);
  sim_free(dg);

  sim_cuda_delassus_destroy(k);
  sim_cuda_delassus_destroy(kf);
  sim_sparse_inverse_free(&S);
  sim_sparse_inverse_free(&Sf);
  sim_factor_destroy(f);
  free(c), free(free_of), free(cp), free(ri), free(v);
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_gpu_delassus");
}

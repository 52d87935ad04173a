// SPDX-License-Identifier: MIT
// simctl-bench-wprod: the contact solve's product with a dense Delassus operator W, formed (9 nc^2
// doubles) against its block form (core/contact/wblocks.h: G, nc^2 doubles, and the frames), at
// several row counts m = 3 nc. It times the backend's own entry point, sim_cuda_w_apply_dense, on
// a cuda_contact that holds this program's random W alone (no scene), with CUDA events over
// back-to-back calls: one product in double and with CR's float copy, a line search's batch of
// SIM_W_BATCH, and the block form's preparing launch alone (k_blk_cols). Beside each time: the
// bytes the product must move at least (the matrix's values once, and its vectors), GB/s, and the
// time over that at the device-to-device copy's bandwidth (the bandwidth limit, as
// simctl-bench-global measures it). The row count where the block form starts to win is what
// SIM_CUDA_BLOCK_ROWS (gpu/cuda_ctx.h) should be. Before timing a size, both forms' products
// must agree within 1e-12 of each row's sum of |W_ij x_j| (exit 1 otherwise).
// usage: simctl-bench-wprod [--rows M,M,...] [--reps N] [--gpu N]
// Output: CSV, a header, then one row per size, form, precision and batch.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.cuh"
#include "contact_cuda.h"

extern "C" {
#include "../core/contact/delassus_terms.h"
}

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "simctl-bench-wprod: error: %s: %s\n", what, msg);
  return 1;
}

static unsigned long long g_seed = 7;
static double rnd(void) { /* in [-1, 1) */
  g_seed = g_seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(g_seed >> 11) / 4503599627370496.0 - 1.0;
}

// nc obstacle contacts with random orthonormal frames (n, t1, t2).
static void random_contacts(sim_contact *c, int nc) {
  for (int j = 0; j < nc; j++) {
    memset(&c[j], 0, sizeof c[j]);
    c[j].kind = SIM_CONTACT_OBSTACLE;
    double n[3] = {rnd(), rnd(), rnd() + 2.0}, e[3] = {1.0, 0.0, 0.0};
    const double nn = sim_norm3(n);
    for (int d = 0; d < 3; d++) c[j].n[d] = n[d] / nn;
    sim_cross3(c[j].n, e, c[j].t1);
    const double tn = sim_norm3(c[j].t1);
    for (int d = 0; d < 3; d++) c[j].t1[d] /= tn;
    sim_cross3(c[j].n, c[j].t1, c[j].t2);
  }
}

typedef struct dev_arrays {
  double *W, *G, *frame, *x, *out, *bt, *bx;
  float *Wf, *Gf;
  int *nc;
} dev_arrays;

// A device copy of n values at h (h NULL: uninitialised), queued on stream s.
template <typename T>
static int up(cudaStream_t s, T **d, const T *h, size_t n) {
  if (cudaMalloc((void **)d, sizeof(T) * (n ? n : 1)) != cudaSuccess) return 1;
  return h && cudaMemcpyAsync(*d, h, sizeof(T) * n, cudaMemcpyHostToDevice, s) != cudaSuccess;
}

// n doubles from the device, waited for.
static int down(cudaStream_t s, double *h, const double *d, size_t n) {
  return cudaMemcpyAsync(h, d, sizeof(double) * n, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
         cudaStreamSynchronize(s) != cudaSuccess;
}

// One size: W and its block form on the device, checked against each other, then timed.
static int bench_size(cuda_ctx *cx, const char *device, int nc, int reps, double copy_gbs) {
  const size_t m = 3 * (size_t)nc, mm = m * m, nn = (size_t)nc * nc, xb = SIM_W_BATCH * m;
  sim_contact *c = (sim_contact *)malloc(sizeof(sim_contact) * nc);
  double *G = (double *)malloc(sizeof(double) * nn), *W = (double *)malloc(sizeof(double) * mm);
  double *fr = (double *)malloc(sizeof(double) * 9 * nc),
         *x = (double *)malloc(sizeof(double) * xb);
  double *ya = (double *)malloc(sizeof(double) * m), *yb = (double *)malloc(sizeof(double) * m);
  float *Wf = (float *)malloc(sizeof(float) * mm), *Gf = (float *)malloc(sizeof(float) * nn);
  if (!c || !G || !W || !fr || !x || !ya || !yb || !Wf || !Gf) return fail("host", "out of memory");
  random_contacts(c, nc);
  for (int j = 0; j < nc; j++) { /* symmetric, the diagonal largest, as K's sums give */
    sim_delassus_frame(&c[j], fr + 9 * (size_t)j);
    for (int s = j; s < nc; s++)
      G[(size_t)j * nc + s] = G[(size_t)s * nc + j] = s == j ? 2.0 + rnd() : 0.1 * rnd();
  }
  for (int j = 0; j < nc; j++)
    for (int s = 0; s < nc; s++) {
      double blk[9];
      sim_delassus_block(&c[j], &c[s], G[(size_t)j * nc + s], blk);
      for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) W[(3 * (size_t)j + r) * m + 3 * (size_t)s + q] = blk[3 * r + q];
    }
  for (size_t i = 0; i < mm; i++) Wf[i] = (float)W[i];
  for (size_t i = 0; i < nn; i++) Gf[i] = (float)G[i];
  for (size_t i = 0; i < xb; i++) x[i] = rnd();
  dev_arrays d = {};
  cudaStream_t sm = cx->stream;
  int bad = up(sm, &d.W, W, mm) || up(sm, &d.G, G, nn) || up(sm, &d.frame, fr, 9 * (size_t)nc) ||
            up(sm, &d.x, x, xb) || up(sm, &d.Wf, Wf, mm) || up(sm, &d.Gf, Gf, nn) ||
            up(sm, &d.nc, &nc, 1) || up<double>(sm, &d.out, NULL, xb) ||
            up<double>(sm, &d.bt, NULL, xb) || up<double>(sm, &d.bx, NULL, xb);
  if (bad) return fail("device", "out of memory (or a failed copy)");
  cuda_contact k;
  memset(&k, 0, sizeof k);
  k.cx = cx, k.stage.nc = nc, k.nc_cap = nc, k.dnc = d.nc, k.w_dense = 1;
  const cuda_wblk blocks = {1, nc, 0, d.G, d.frame, NULL, NULL, d.bt, d.bx};
  sim_status st = {0};
  /* the check: both forms' products of x, K 1, double */
  k.Wp = d.W, k.blk.on = 0;
  int rc = sim_cuda_w_apply_dense(&k, NULL, d.x, d.out, 1, 0, NULL, &st);
  if (!rc) rc = down(sm, ya, d.out, m);
  k.Wp = NULL, k.blk = blocks;
  if (!rc) rc = sim_cuda_w_apply_dense(&k, NULL, d.x, d.out, 1, 0, NULL, &st);
  if (!rc) rc = down(sm, yb, d.out, m);
  if (rc) return fail("product", st.msg[0] ? st.msg : "a CUDA call failed");
  double worst = 0.0;
  for (size_t i = 0; i < m; i++) {
    double s = 0.0;
    for (size_t j = 0; j < m; j++) s += fabs(W[i * m + j] * x[j]);
    worst = fmax(worst, fabs(ya[i] - yb[i]) / (s > 0.0 ? s : 1.0));
  }
  if (!(worst <= 1e-12)) {
    fprintf(stderr,
            "simctl-bench-wprod: error: %zu rows: W formed and its block form differ by %.3g "
            "of a row's sum of |W_ij x_j| (bound 1e-12)\n",
            m, worst);
    return 1;
  }
  /* the timings: each form, double and CR's float copy, one product and a batch; the block
     form's preparing launch alone */
  /* the bytes: the matrix's values once (the frames in double), each vector's: x read and
     the product written, and for the block form t and x' written and read */
  const size_t frames = 72 * (size_t)nc, vec[2] = {16 * m, 40 * m};
  static const char *form[2] = {"formed", "blocks"};
  for (int f = 0; f < 2; f++)
    for (int v = 0; v < 3; v++) { /* double K 1, float K 1, double K SIM_W_BATCH */
      const int K = v == 2 ? SIM_W_BATCH : 1;
      const float *wf = v == 1 ? (f ? d.Gf : d.Wf) : NULL;
      if (f)
        k.Wp = NULL, k.blk = blocks;
      else
        k.Wp = d.W, k.blk.on = 0;
      const double ms = time_ms(
          sm, reps, [&] { (void)sim_cuda_w_apply_dense(&k, wf, d.x, d.out, K, m, NULL, &st); });
      const size_t vb = v == 1 ? 4 : 8, mat = f ? vb * nn + frames : vb * mm;
      const double bytes = (double)mat + (double)K * vec[f];
      const double limit_ms = bytes / (copy_gbs * 1e6);
      printf("%s,%zu,%s,%s,%d,%.2f,%.3f,%.1f,%.1f,%.2f\n", device, m, form[f],
             v == 1 ? "float" : "double", K, 1e3 * ms, bytes / 1e6, bytes / (ms * 1e6), copy_gbs,
             ms / limit_ms);
    }
  k.Wp = NULL, k.blk = blocks;
  const double prep =
      time_ms(sm, reps, [&] { (void)sim_cuda_blk_cols(&k, d.x, 1, 0, NULL, NULL, NULL, &st); });
  const double pb = 8.0 * m * 3 + 72.0 * nc;
  printf("%s,%zu,prepare,double,1,%.2f,%.3f,%.1f,%.1f,%.2f\n", device, m, 1e3 * prep, pb / 1e6,
         pb / (prep * 1e6), copy_gbs, prep / (pb / (copy_gbs * 1e6)));
  if (cudaGetLastError() != cudaSuccess || st.code) return fail("timing", "a CUDA call failed");
  void *dv[] = {d.W, d.G, d.frame, d.x, d.out, d.bt, d.bx, d.Wf, d.Gf, d.nc};
  for (void *p : dv) cudaFree(p);
  free(c), free(G), free(W), free(fr), free(x), free(ya), free(yb), free(Wf), free(Gf);
  return 0;
}

int main(int argc, char **argv) {
  const char *rows = "96,300,600,900,1200,1548,2400,3387,4410,6000,7542";
  int reps = 100, gpu = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(
          "usage: simctl-bench-wprod [--rows M,M,...] [--reps N] [--gpu N]\n"
          "Times the contact solve's product with a random dense Delassus operator W, formed\n"
          "against its block form, at each row count (default %s), with CUDA events over N\n"
          "back-to-back calls (default 100) on CUDA device N (default 0), after checking that\n"
          "both forms agree; prints CSV, a row per size, form, precision and batch.\n",
          rows);
      return 0;
    }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rows") && i + 1 < argc)
      rows = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--gpu") && i + 1 < argc)
      gpu = atoi(argv[++i]);
    else
      return fail(argv[i], "usage: simctl-bench-wprod [--rows M,M,...] [--reps N] [--gpu N]");
  }
  if (reps < 1) return fail("--reps", "expected a count of at least 1");
  char why[SIM_MSG_MAX];
  if (!sim_cuda_available(gpu, why, sizeof why)) return fail("device", why);
  cudaDeviceProp p;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  char device[256];
  snprintf(device, sizeof device, "%s", p.name);
  for (char *q = device; *q; q++) /* one CSV field */
    if (*q == ',') *q = ';';
  cuda_ctx cx;
  memset(&cx, 0, sizeof cx);
  if (cudaStreamCreate(&cx.stream) != cudaSuccess) return fail("device", "no stream");
  /* the bandwidth: a device-to-device copy of 256 MB (read and write) */
  const size_t cb = (size_t)256 << 20;
  void *a = NULL, *b = NULL;
  if (cudaMalloc(&a, cb) != cudaSuccess || cudaMalloc(&b, cb) != cudaSuccess)
    return fail("device", "no room for the bandwidth's copy");
  const double cms = time_ms(
      cx.stream, 10, [&] { cudaMemcpyAsync(b, a, cb, cudaMemcpyDeviceToDevice, cx.stream); });
  const double copy_gbs = 2.0 * cb / (cms * 1e6);
  cudaFree(a), cudaFree(b);
  printf("device,rows,form,precision,K,us,MB,GBs,copy_GBs,over_limit\n");
  for (const char *r = rows; *r;) {
    char *end;
    const long mr = strtol(r, &end, 10);
    if (end == r || mr < 3 || mr % 3 || (*end && *end != ','))
      return fail(rows, "--rows: expected row counts, multiples of 3, separated by commas");
    if (bench_size(&cx, device, (int)(mr / 3), reps, copy_gbs)) return 1;
    r = *end ? end + 1 : end;
  }
  cudaStreamDestroy(cx.stream);
  return 0;
}

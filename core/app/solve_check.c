/* SPDX-License-Identifier: MIT */
/* summary.json system.solve_check: the global step's relative residual on the run's last
   right-hand side. */
#include "solve_check.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/timer.h"
#include "../model/system.h"

/* max over the 3 columns of |A x - b| / |b| (x, b: 3 nfree interleaved; r: scratch) */
static double residual(const sim_model *m, const double *x, const double *b, double *r) {
  sim_system_apply(m, x, r);
  double rr[3] = {0, 0, 0}, bb[3] = {0, 0, 0};
  for (int f = 0; f < m->nfree; f++)
    for (int k = 0; k < 3; k++) {
      const size_t i = 3 * (size_t)f + k;
      const double d = r[i] - b[i];
      rr[k] += d * d;
      bb[k] += b[i] * b[i];
    }
  double worst = 0;
  for (int k = 0; k < 3; k++) {
    const double rel = bb[k] > 0 ? sqrt(rr[k] / bb[k]) : sqrt(rr[k]);
    if (isnan(rel)) return rel;
    worst = fmax(worst, rel);
  }
  return worst;
}

int sim_solve_check_run(const sim_model *m, sim_backend *be, sim_solve_check *out, sim_status *st) {
  const double t0 = sim_now_ms();
  memset(out, 0, sizeof *out);
  const size_t n3 = 3 * (size_t)m->n, f3 = 3 * (size_t)m->nfree;
  double *q = SIM_NEW(double, n3), *x = SIM_NEW(double, n3);
  double *b = SIM_NEW(double, f3 ? f3 : 1), *xf = SIM_NEW(double, f3 ? f3 : 1);
  double *r = SIM_NEW(double, f3 ? f3 : 1);
  int rc =
      q && x && b && xf && r ? SIM_OK : sim_fail(st, SIM_ERR_MEMORY, "out of memory (solve check)");
  /* the positions first, so that a failure after them can put them back */
  if (!rc) rc = be->download(be, SIM_VEC_Q, q, st);
  int moved = 0;
  if (!rc) rc = be->read_buffer(be, SIM_BUF_RHS, b, st);
  if (!rc) {
    moved = 1;
    rc = be->global_step(be, st);
  }
  /* no settle: the download returns with the queued work done, a failure in it reported, and
     settle's time (CUDA's ranges.csv) counts frames */
  if (!rc) rc = be->download(be, SIM_VEC_Q, x, st);
  if (!rc) {
    for (int f = 0; f < m->nfree; f++)
      for (int k = 0; k < 3; k++) xf[3 * (size_t)f + k] = x[3 * (size_t)m->free_vert[f] + k];
    out->residual = residual(m, xf, b, r);
  }
  if (moved) { /* put the positions back, after a failure too */
    sim_status ignore = {0};
    int up = be->upload(be, SIM_VEC_Q, q, rc ? &ignore : st);
    rc = rc ? rc : up;
  }
  sim_free(q);
  sim_free(x);
  sim_free(b);
  sim_free(xf);
  sim_free(r);
  out->ms = sim_now_ms() - t0;
  return rc;
}

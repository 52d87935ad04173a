/* SPDX-License-Identifier: MIT */
/* The mesh obstacles' points against the bodies' triangles on the device (gpu/points_cuda.cu,
   through sim_cuda_detect_points) against the host's pass (core/contact/detect_points.c), label
   gpu, SKIPPED without a CUDA device. A random scene: a cloth sheet (open: the side from q_t,
   then from the step before; part of it flat, with points exactly in its plane), a bumpy closed
   sphere and a closed box, 30 % of the vertices pinned (so some triangles are all pinned);
   three point sets near them, one limited to the sphere and the cloth, one moving each step
   (2 cm: its points at the step's start, where the q_t pass looks, and end differ).
   Over four steps of random motion, with and without the step before and the prediction, both
   must give the same contacts in the same order (kind, vertex, source and triangle equal, every
   value within 1e-12 relative) and the same found flags (1 at q_t, 2 at q~), also as a
   detection's pass (sim_cuda_detect_passes), with one wait. The points' second contacts in a
   fold (detect_point.h, creases) are on but at step 1, and some must be found. Then a second
   scene (the trees and points copied anew) and back on the first. */
#include <stdlib.h>
#include <string.h>

#include "../gpu/detect_cuda.h"
#include "base/alloc.h"
#include "contact/bvh.h"
#include "contact_cmp.h"
#include "gpu_pair.h"
#include "mesh/mesh.h"

#define NB 3 /* bodies: cloth, sphere, box */
#define NM 3 /* point sets */

typedef struct pscene {
  int g;                 /* cloth grid: g x g vertices */
  int nv, ntri, np;      /* vertices, triangles, points */
  double *x, *x_prev, *x_pred, *pt_x, *pt_xs; /* the points at the step's end and start */
  int *tri, tri_first[NB], point_first[NM + 1];
  unsigned char cloth[NB], *pinned, *found;
  sim_bvh tree[NB];
  sim_bvh_view view[NB];
  sim_detect_mesh mesh[NM];
  sim_point_scene s;
} pscene;

/* n points within `spread` of the vertices v0 .. v1 - 1 of x; with `flat`, half of them with
   z = 0 exactly (the cloth's flat half lies in that plane). */
static void scatter(pscene *w, int p0, int n, int v0, int v1, double spread, int flat,
                    unsigned long long *seed) {
  for (int i = 0; i < n; i++) {
    const int v = v0 + (int)((rnd(seed) + 1.0) * 0.5 * (v1 - v0 - 1));
    double *p = w->pt_x + 3 * (size_t)(p0 + i);
    for (int k = 0; k < 3; k++) p[k] = w->x[3 * v + k] + spread * rnd(seed);
    if (flat && i % 2 == 0 && w->x[3 * v] < 0.0) p[2] = 0.0;
  }
}

static void append_surface(pscene *w, const sim_surface *sf, int *v, int *t, double scale,
                           const double at[3], unsigned long long *seed, int bumpy) {
  for (int i = 0; i < sf->nv; i++) {
    const double r = bumpy ? 1.0 + 0.1 * rnd(seed) : 1.0;
    for (int k = 0; k < 3; k++) w->x[3 * (*v + i) + k] = at[k] + scale * r * sf->x[3 * i + k];
  }
  for (int i = 0; i < 3 * sf->nt; i++) w->tri[3 * *t + i] = *v + sf->tri[i];
  *v += sf->nv, *t += sf->nt;
}

static void pscene_build(pscene *w, int g, int npts, unsigned long long seed) {
  sim_status st = {0};
  memset(w, 0, sizeof *w);
  sim_surface ball = {0}, box = {0};
  CHECK_INT(sim_gen_icosphere(0.3, 3, &ball, &st), SIM_OK);
  CHECK_INT(sim_gen_box_surface((const double[3]){-0.2, -0.2, -0.2},
                                (const double[3]){0.2, 0.2, 0.2}, 4, &box, &st),
            SIM_OK);
  w->g = g;
  const int ncv = g * g, nct = 2 * (g - 1) * (g - 1);
  w->nv = ncv + ball.nv + box.nv;
  w->ntri = nct + ball.nt + box.nt;
  w->np = NM * npts;
  w->x = SIM_NEW(double, 3 * (size_t)w->nv);
  w->x_prev = SIM_NEW(double, 3 * (size_t)w->nv);
  w->x_pred = SIM_NEW(double, 3 * (size_t)w->nv);
  w->pt_x = SIM_NEW(double, 3 * (size_t)w->np);
  w->pt_xs = SIM_NEW(double, 3 * (size_t)w->np);
  w->tri = SIM_NEW(int, 3 * (size_t)w->ntri);
  w->pinned = SIM_NEW0(unsigned char, w->nv);
  w->found = SIM_NEW0(unsigned char, w->np);
  for (int i = 0; i < g; i++) /* the sheet in z = 0 on its x < 0 half, wavy beyond */
    for (int j = 0; j < g; j++) {
      double *p = w->x + 3 * (i * g + j);
      p[0] = -1.0 + 2.0 * i / (g - 1), p[1] = -1.0 + 2.0 * j / (g - 1);
      p[2] = p[0] < 0.0 ? 0.0 : 0.05 * sin(7.0 * p[0]) * cos(5.0 * p[1]);
    }
  int t = 0;
  for (int i = 0; i + 1 < g; i++)
    for (int j = 0; j + 1 < g; j++) {
      const int a = i * g + j, b = a + g, c = a + 1, d = b + 1;
      const int q[6] = {a, b, c, c, b, d};
      memcpy(w->tri + 3 * t, q, sizeof q);
      t += 2;
    }
  int v = ncv;
  w->tri_first[0] = 0, w->tri_first[1] = t;
  append_surface(w, &ball, &v, &t, 1.0, (const double[3]){0.5, 0.2, 0.45}, &seed, 1);
  w->tri_first[2] = t;
  append_surface(w, &box, &v, &t, 1.0, (const double[3]){-0.5, -0.4, -0.35}, &seed, 0);
  w->cloth[0] = 1;
  for (int i = 0; i < w->nv; i++) w->pinned[i] = rnd(&seed) > 0.4;
  for (int m = 0; m <= NM; m++) w->point_first[m] = m * npts;
  scatter(w, 0, npts, 0, ncv, 0.04, 1, &seed);
  scatter(w, npts, npts, ncv, ncv + ball.nv, 0.05, 0, &seed);
  scatter(w, 2 * npts, npts, ncv + ball.nv, w->nv, 0.05, 0, &seed);
  memcpy(w->pt_xs, w->pt_x, sizeof(double) * 3 * (size_t)w->np);
  for (int m = 0; m < NM; m++) {
    w->mesh[m] = sim_default_detect_mesh();
    w->mesh[m].mu = 0.2 + 0.3 * m;
  }
  w->mesh[1].bodies = (1u << 0) | (1u << 1); /* the cloth and the sphere, not the box */
  w->mesh[1].margin = 0.05;                  /* its own (the pass's is 0.03) */
  w->mesh[2].moving = 1;
  const int first[NB + 1] = {w->tri_first[0], w->tri_first[1], w->tri_first[2], w->ntri};
  for (int b = 0; b < NB; b++)
    CHECK_INT(sim_bvh_build(w->nv, w->x, first[b + 1] - first[b], w->tri + 3 * first[b],
                            &w->tree[b], &st),
              SIM_OK);
  sim_point_scene s = {sim_detect_new_serial(),
                       w->nv,
                       NB,
                       w->ntri,
                       NM,
                       w->x,
                       NULL,
                       NULL,
                       w->tree,
                       w->view,
                       w->tri,
                       w->tri_first,
                       w->cloth,
                       w->pinned,
                       w->point_first,
                       w->pt_x,
                       w->pt_xs,
                       w->mesh,
                       0.03,
                       1};
  w->s = s;
  sim_surface_free(&ball), sim_surface_free(&box);
}

/* One step: the step before kept, the vertices jitter (the flat half stays flat, but was not
   flat the step before, so points in its plane take their side from then), the moving set
   slides; the prediction a jitter further. */
static void pscene_move(pscene *w, unsigned long long *seed) {
  memcpy(w->x_prev, w->x, sizeof(double) * 3 * (size_t)w->nv);
  for (int v = 0; v < w->nv; v++)
    for (int k = 0; k < 3; k++) {
      const int flat = v < w->g * w->g && k == 2 && w->x[3 * v] < 0.0;
      if (flat) w->x_prev[3 * v + k] += 0.01 * rnd(seed);
      if (!flat) w->x[3 * v + k] += 0.01 * rnd(seed);
      w->x_pred[3 * v + k] = w->x[3 * v + k] + (flat ? 0.0 : 0.03 * rnd(seed));
    }
  memcpy(w->pt_xs, w->pt_x, sizeof(double) * 3 * (size_t)w->np);
  for (int p = w->point_first[2]; p < w->point_first[3]; p++) w->pt_x[3 * p] += 0.02;
}

static void pscene_free(pscene *w) {
  for (int b = 0; b < NB; b++) sim_bvh_free(&w->tree[b]);
  sim_free(w->x), sim_free(w->x_prev), sim_free(w->x_pred), sim_free(w->pt_x), sim_free(w->pt_xs);
  sim_free(w->tri), sim_free(w->pinned), sim_free(w->found);
}

static void run_steps(sim_cuda_detect *k, pscene *w, unsigned long long seed, int steps) {
  sim_status st = {0};
  sim_detect_contacts h = {0}, g = {0};
  unsigned char *gfound = SIM_NEW(unsigned char, w->np);
  int by_pass[3] = {0, 0, 0}, creases = 0;
  for (int step = 0; step < steps; step++) {
    if (step > 0) pscene_move(w, &seed);
    if (step % 2) /* the pinned set changes (the device copy follows where it changed) */
      for (int i = 0; i < w->nv; i++) w->pinned[i] ^= rnd(&seed) > 0.8;
    w->s.x_prev = step > 0 ? w->x_prev : NULL;
    w->s.x_pred = step != 2 ? w->x_pred : NULL; /* step 2: the q_t pass alone */
    w->s.creases = step != 1;
    if (step == 0) memcpy(w->x_pred, w->x, sizeof(double) * 3 * (size_t)w->nv);
    CHECK_INT(sim_detect_points_run(&w->s, &h, w->found, &st), SIM_OK);
    memset(gfound, 7, (size_t)w->np); /* every flag must be written */
    int rc = sim_cuda_detect_points(k, &w->s, &g, gfound, &st);
    if (rc) fprintf(stderr, "device points: %s\n", st.msg);
    CHECK_INT(rc, SIM_OK);
    char what[80];
    snprintf(what, sizeof what, "%d points, %d triangles, step %d", w->np, w->ntri, step);
    const int same = compare(&h, &g, what);
    CHECK(memcmp(w->found, gfound, (size_t)w->np) == 0);
    for (int p = 0; p < w->np; p++) by_pass[w->found[p] < 3 ? w->found[p] : 0]++;
    int folds = 0;
    for (int i = 0; i < h.n; i++) /* a point's folds: faces it lies in front of (gap >= 0) */
      if (h.c[i].source >= SIM_CONTACT_CREASE) folds++, CHECK(h.c[i].gap >= 0.0);
    CHECK(w->s.creases || folds == 0);
    creases += folds;
    printf("%s: %d contacts (%d in folds), %d bitwise equal\n", what, h.n, folds, same);
    CHECK(h.count[SIM_CONTACT_TRIANGLE] == h.n && h.n > w->np / 10);
    /* the same pass queued as a detection's (sim_cuda_detect_passes, no vertex pass): the
       same contacts and flags, one wait (and a second where more came than guessed) */
    const long long w0 = sim_cuda_detect_waits(k), s0 = sim_cuda_detect_second_waits(k);
    memset(gfound, 7, (size_t)w->np);
    sim_detect_points_job job = {&w->s, &g, gfound};
    rc = sim_cuda_detect_passes(k, NULL, 0, NULL, NULL, NULL, &job, &st);
    if (rc) fprintf(stderr, "device points as a pass: %s\n", st.msg);
    CHECK_INT(rc, SIM_OK);
    snprintf(what, sizeof what, "%d points, step %d, as a detection's pass", w->np, step);
    compare(&h, &g, what);
    CHECK(memcmp(w->found, gfound, (size_t)w->np) == 0);
    const long long dw = sim_cuda_detect_waits(k) - w0, ds = sim_cuda_detect_second_waits(k) - s0;
    check_report(dw == 1 + ds, __FILE__, __LINE__, "%s: %lld waits == 1 + %lld second", what,
                 dw, ds);
  }
  printf("found at q_t %d, at q~ %d, none %d; %d second contacts in folds\n", by_pass[1],
         by_pass[2], by_pass[0], creases);
  CHECK(by_pass[1] > 0 && by_pass[2] > 0 && by_pass[0] > 0 && creases > 0);
  sim_free(gfound);
  sim_detect_contacts_free(&h), sim_detect_contacts_free(&g);
}

int main(void) {
  gpu_or_skip("test_gpu_points");
  sim_status st = {0};
  sim_cuda_detect *k = NULL;
  CHECK_INT(sim_cuda_detect_create(NULL, &k, &st), SIM_OK);
  pscene a, b;
  pscene_build(&a, 40, 1500, 3);
  pscene_build(&b, 90, 4000, 17);
  run_steps(k, &a, 5, 4);
  CHECK(sim_cuda_detect_bytes(k) > 0);
  run_steps(k, &b, 7, 2); /* another scene: its trees and points copied */
  run_steps(k, &a, 9, 3);
  pscene_free(&a), pscene_free(&b);
  sim_cuda_detect_destroy(k);
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_gpu_points");
}

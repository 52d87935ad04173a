/* SPDX-License-Identifier: MIT */
/* A mesh obstacle's point in folds of a cloth (core/contact/detect_point.h sim_point_folds,
   contact.creases), on the host's pass (detect_points.c): a blade's tip 9 mm under the apex of
   a cone of eight cloth triangles (slopes of 45 degrees, the cloth draped over the tip) gets its
   first contact and SIM_POINT_FOLDS more, each on another face whose plane meets every other
   one's at more than 25.8 degrees, every normal pointing up from the tip into the cloth, every
   gap >= 0 and equal to its row's reading n . (sum_k w_k x_tri_k - p), the keys the point's
   plus k SIM_CONTACT_CREASE; with creases off, one contact. The same tip under a flat cloth,
   and 1 cm above the cone's apex (a ridge, the faces falling away from it), get one contact. A
   flat cloth that went down over a still point within the step before holds it on the side it
   came from (sim_point_side_kept). */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "contact/bvh.h"
#include "contact/contact.h"
#include "contact/detect_point.h"
#include "contact/detect_points.h"

enum { RING = 8, NV = RING + 1, NT = RING };

typedef struct cone {
  double x[3 * NV];
  int tri[3 * NT];
  unsigned char pinned[NV], cloth[1], found[1];
  int tri_first[1], point_first[2];
  double pt[3];
  sim_bvh tree;
  sim_bvh_view view;
  sim_detect_mesh mesh;
} cone;

/* The apex (vertex 0) at height `apex`, the ring at radius 0.06 and height -0.06, the triangles
   (0, k + 1, k) facing up (counter-clockwise seen from above). */
static void cone_make(cone *c, double apex, const double pt[3]) {
  memset(c, 0, sizeof *c);
  c->x[1] = apex;
  for (int k = 0; k < RING; k++) {
    const double a = 2.0 * SIM_PI * k / RING;
    c->x[3 * (k + 1)] = 0.06 * cos(a), c->x[3 * (k + 1) + 1] = -0.06;
    c->x[3 * (k + 1) + 2] = 0.06 * sin(a);
    c->tri[3 * k] = 0, c->tri[3 * k + 1] = 1 + (k + 1) % RING, c->tri[3 * k + 2] = 1 + k;
  }
  c->cloth[0] = 1;
  c->point_first[1] = 1;
  memcpy(c->pt, pt, sizeof c->pt);
  c->mesh = sim_default_detect_mesh();
  sim_status st = {0};
  CHECK_INT(sim_bvh_build(NV, c->x, NT, c->tri, &c->tree, &st), SIM_OK);
}

/* The point's contacts with creases on or off into out, the step before's vertices x_prev (or
   NULL), the point at c->pt at t and at pe at t + h (NULL: still). */
static void cone_detect_from(cone *c, int creases, const double *x_prev, const double *pe,
                             sim_detect_contacts *out) {
  sim_point_scene s = {sim_detect_new_serial(),
                       NV,
                       1,
                       NT,
                       1,
                       c->x,
                       x_prev,
                       NULL,
                       &c->tree,
                       &c->view,
                       c->tri,
                       c->tri_first,
                       c->cloth,
                       c->pinned,
                       c->point_first,
                       pe ? pe : c->pt,
                       c->pt,
                       &c->mesh,
                       0.03,
                       creases};
  sim_status st = {0};
  CHECK_INT(sim_detect_points_run(&s, out, c->found, &st), SIM_OK);
}

static void cone_detect(cone *c, int creases, sim_detect_contacts *out) {
  cone_detect_from(c, creases, NULL, NULL, out);
}

/* Contact k's normal row read at the cloth's positions: n . (sum_j w_j x_tri_j - p). */
static double row_reading(const cone *c, const sim_contact *k) {
  double row = 0.0;
  for (int d = 0; d < 3; d++) {
    double q = 0.0;
    for (int j = 0; j < 3; j++) q += k->w[j] * c->x[3 * k->tri[j] + d];
    row += k->n[d] * (q - c->pt[d]);
  }
  return row;
}

/* Every contact: a TRIANGLE of the point, its key, a gap >= 0 read by its row, a normal up. */
static void check_contacts(const cone *c, const sim_detect_contacts *o) {
  for (int i = 0; i < o->n; i++) {
    const sim_contact *k = &o->c[i];
    CHECK(k->kind == SIM_CONTACT_TRIANGLE && sim_contact_surface_of(k->source) == 0);
    CHECK(k->source % SIM_CONTACT_CREASE == 0 && k->source / SIM_CONTACT_CREASE <= SIM_POINT_FOLDS);
    const double row = row_reading(c, k);
    double ws = 0.0;
    for (int j = 0; j < 3; j++) ws += k->w[j];
    check_report(
        fabs(row - k->gap) < 1e-15 && fabs(ws - 1.0) < 1e-15 && k->gap >= 0.0 && k->n[1] > 0.5,
        __FILE__, __LINE__, "contact %d (source %d): row %.17g, gap %.17g, n_y %.3f", i, k->source,
        row, k->gap, k->n[1]);
  }
}

static void test_cone(void) {
  cone c;
  const double under[3] = {0.0, -0.004, 0.0};
  cone_make(&c, 0.005, under);
  sim_detect_contacts o = {0};
  cone_detect(&c, 1, &o);
  printf("tip 9 mm under the cone's apex: %d contacts\n", o.n);
  /* a row on each of the eight faces (with three folds, four: on the 15k knives cloth a fifth
     face swept over the tip) */
  CHECK_INT(o.n, RING);
  CHECK_INT(o.n, 1 + SIM_POINT_FOLDS);
  check_contacts(&c, &o);
  int keys = 0; /* each key once: the point's, then + k SIM_CONTACT_CREASE */
  for (int i = 0; i < o.n; i++) keys |= 1 << (o.c[i].source / SIM_CONTACT_CREASE);
  CHECK_INT(keys, (1 << (1 + SIM_POINT_FOLDS)) - 1);
  for (int i = 0; i < o.n; i++)
    for (int j = i + 1; j < o.n; j++) {
      CHECK(memcmp(o.c[i].tri, o.c[j].tri, sizeof o.c[i].tri) != 0);
      CHECK(fabs(sim_dot3(o.c[i].n, o.c[j].n)) < SIM_DETECT_CREASE_COS);
    }
  cone_detect(&c, 0, &o);
  CHECK_INT(o.n, 1);
  check_contacts(&c, &o);
  sim_bvh_free(&c.tree);
  /* flat: the apex in the ring's plane */
  const double below[3] = {0.0, -0.07, 0.0};
  cone_make(&c, -0.06, below);
  cone_detect(&c, 1, &o);
  CHECK_INT(o.n, 1);
  check_contacts(&c, &o);
  sim_bvh_free(&c.tree);
  /* above the apex, on the ridge's side: the faces fall away from the point */
  const double above[3] = {0.0, 0.015, 0.0};
  cone_make(&c, 0.005, above);
  cone_detect(&c, 1, &o);
  CHECK_INT(o.n, 1);
  CHECK(o.c[0].n[1] < -0.5); /* from the point down into the cloth */
  sim_bvh_free(&c.tree);
  sim_detect_contacts_free(&o);
}

/* A flat cloth (the cone's apex in its ring's plane) that went down over a still point within
   the step before: the point, 5 mm under it at x_prev, is 5 mm over it at q_t. Held on the side
   it came from (sim_point_side_kept): its normal up into the cloth, its gap -5 mm, read by its
   row. Read at q_t alone (no x_prev), or where the cloth at x_prev lay beside the point (it
   went round the rim), or for a moving point, the side at q_t: the normal down, +5 mm. */
static void test_swept(void) {
  cone c;
  const double p[3] = {0.01, -0.065, 0.005};
  cone_make(&c, -0.07, p);
  for (int k = 0; k < NV; k++) c.x[3 * k + 1] = -0.07; /* flat, 5 mm under the point */
  double before[3 * NV], beside[3 * NV]; /* x_prev: 5 mm over the point, over it or beside it */
  memcpy(before, c.x, sizeof before);
  memcpy(beside, c.x, sizeof beside);
  for (int k = 0; k < NV; k++) {
    before[3 * k + 1] = beside[3 * k + 1] = -0.06;
    beside[3 * k] += 0.2;
  }
  sim_detect_contacts o = {0};
  cone_detect_from(&c, 1, before, NULL, &o);
  CHECK_INT(o.n, 1);
  printf("a face swept over a still point: normal y %.3f, gap %.5f\n", o.c[0].n[1], o.c[0].gap);
  CHECK(o.c[0].n[1] > 0.99 && fabs(o.c[0].gap + 0.005) < 1e-12);
  CHECK(fabs(row_reading(&c, &o.c[0]) - o.c[0].gap) < 1e-15);
  const double moved[3] = {p[0] + 0.001, p[1], p[2]};
  const double *const prev[3] = {NULL, beside, before};
  const double *const end[3] = {NULL, NULL, moved};
  for (int k = 0; k < 3; k++) {
    cone_detect_from(&c, 1, prev[k], end[k], &o);
    CHECK_INT(o.n, 1);
    check_report(o.c[0].n[1] < -0.99 && fabs(o.c[0].gap - 0.005) < 1e-12, __FILE__, __LINE__,
                 "case %d: normal y %.3f, gap %.5f", k, o.c[0].n[1], o.c[0].gap);
  }
  sim_bvh_free(&c.tree);
  sim_detect_contacts_free(&o);
}

int main(void) {
  test_cone();
  test_swept();
  return check_summary("test_point_folds");
}

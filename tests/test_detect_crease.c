/* SPDX-License-Identifier: MIT */
/* Second contacts in the folds of a body's surface (core/contact/detect_crease.h, detect.h
   creases): a cloth folded into a valley along z, its second face at 60 degrees, with a
   vertex resting on the first face next to the fold (the crease's row on the second face's
   plane, exact gap, normal, triangle and weights), one in the valley nearer the second face,
   one that went through the second face (its contact turned by x_prev, the crease on the
   first); none over a ridge, across a shallow fold (20 degrees), against a parallel layer,
   with creases off, or against an all-pinned triangle where the vertex is pinned; the skip
   list and inside_only with the crease's own key; the valley as an open mesh obstacle (a
   spinning V trough: the point, normal, gap and surface velocity); a closed cube dented at the top
   (outward normals) and the same cube with a roof instead (none); a vertex behind the other
   face's plane beside it (none) and one through it (a negative gap). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/contact/detect.h"
#include "check.h"
#include "detect_once.h"

static const sim_contact *find(const sim_detect_contacts *o, int v, int source) {
  for (int i = 0; i < o->n; i++)
    if (o->c[i].v == v && o->c[i].kind == SIM_CONTACT_BODY && o->c[i].source == source)
      return &o->c[i];
  return NULL;
}

/* A contact's row reads its gap: n . (x_v - sum_j w_j x_tri_j) = gap, the weights sum to 1. */
static void check_row(const sim_contact *c, const double *x, int line) {
  double g = 0.0, ws = 0.0;
  for (int k = 0; k < 3; k++) {
    double p = 0.0;
    for (int j = 0; j < 3; j++) p += c->w[j] * x[3 * c->tri[j] + k];
    g += c->n[k] * (x[3 * c->v + k] - p);
  }
  for (int j = 0; j < 3; j++) ws += c->w[j];
  check_report(
      fabs(g - c->gap) < 1e-15 && fabs(ws - 1.0) < 1e-15 && fabs(sim_norm3(c->n) - 1) < 1e-15,
      __FILE__, line, "row of vertex %d (source %d): reads %.17g, gap %.17g, weights %.17g", c->v,
      c->source, g, c->gap, ws);
}

/* The fold: vertices 0..NP-1 the probes (body 0, no triangles); the cloth (body 1) from 4 on:
   face A in y = 0 for x in [-1, 0] (a0 a1, the fold's edge e0 e1 at x = 0, z = -+1), face B
   from the fold at `deg` degrees up from A (b0 b1 at x = cos, y = sin). */
enum { NP = 4, NV = NP + 6 };
static const int g_tri[12] = {4, 6, 7, 4, 7, 5, 6, 8, 9, 6, 9, 7};

static void fold(double *x, double deg) {
  const double c = cos(deg * SIM_PI / 180), s = sin(deg * SIM_PI / 180);
  const double f[6][3] = {{-1, 0, -1}, {-1, 0, 1}, {0, 0, -1}, {0, 0, 1}, {c, s, -1}, {c, s, 1}};
  memcpy(x + 3 * NP, f, sizeof f);
}

static void test_valley(void) {
  double x[3 * NV], xp[3 * NV];
  const double probes[NP][3] = {{-0.01, 0.001, 0.3}, /* on A, 1 cm from the fold */
                                {-0.007, 0.04, 0.3}, /* in the valley, nearer B */
                                {0.02, 0.005, 0.3},  /* through B (from above it) */
                                {-0.5, 0.001, 0.3}}; /* on A, far from the fold */
  memcpy(x, probes, sizeof probes);
  fold(x, 60);
  memcpy(xp, x, sizeof xp);
  xp[3 * 2 + 0] = 0.0, xp[3 * 2 + 1] = 0.03; /* vertex 2 came from the valley */
  sim_detect_body b[2] = {{0, NP, 0, NULL, 0.5, 0, NULL, 0}, {NP, 6, 4, g_tri, 0.5, 1, NULL, 0}};
  sim_detect_scene s = {NV, x, xp, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05, p.creases = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  const int C = 1 + SIM_CONTACT_CREASE;
  const double sn = sin(SIM_PI / 3), cs = cos(SIM_PI / 3);
  /* 0: on A (gap 1 mm, n +y); B's plane 0.866 cm + 0.5 mm in front of it, from the fold's edge
     (its nearest point on B), n_B = (-sin, cos, 0) facing A */
  const sim_contact *a = find(&o, 0, 1), *k = find(&o, 0, C);
  CHECK(a && k);
  if (a && k) {
    CHECK_NEAR(a->n[1], 1, 0);
    CHECK_NEAR(a->gap, 0.001, 1e-17);
    CHECK_NEAR(k->n[0], -sn, 1e-15);
    CHECK_NEAR(k->n[1], cs, 1e-15);
    CHECK_NEAR(k->gap, 0.01 * sn + 0.001 * cs, 1e-15);
    CHECK(k->tri[0] == 6 && k->tri[1] == 9 && k->tri[2] == 7); /* B's triangle on the fold */
    CHECK_NEAR(k->w[0], 0.35, 1e-15);                          /* e0 e1 at z = 0.3 */
    CHECK_NEAR(k->w[1], 0, 0);
    CHECK_NEAR(k->mu, 0.5, 1e-15);
    check_row(a, x, __LINE__), check_row(k, x, __LINE__);
  }
  /* 1: 2.6 cm in front of B, 4 cm over A; 2: 1.48 cm behind B, turned to the valley (x_prev's
     side), A's plane 5 mm under it. Each: B's row, n_B = (-sin, cos, 0), then A's, n_A = +y */
  const struct {
    int v;
    double gap_b, gap_a;
  } e[2] = {{1, 0.007 * sn + 0.04 * cs, 0.04}, {2, -0.02 * sn + 0.005 * cs, 0.005}};
  for (int i = 0; i < 2; i++) {
    a = find(&o, e[i].v, 1), k = find(&o, e[i].v, C);
    CHECK(a && k);
    if (!a || !k) continue;
    CHECK_NEAR(a->n[0], -sn, 1e-15);
    CHECK_NEAR(a->gap, e[i].gap_b, 1e-15);
    CHECK_NEAR(k->n[1], 1, 1e-15);
    CHECK_NEAR(k->gap, e[i].gap_a, 1e-15);
    check_row(a, x, __LINE__), check_row(k, x, __LINE__);
  }
  CHECK(find(&o, 3, 1) && !find(&o, 3, C)); /* far from the fold: B beyond the margin */
  CHECK_INT(o.n, 7);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 7);
  for (int i = 0; i < o.n; i++) { /* two a vertex: the one body it meets (self off) */
    int mine = 0;
    for (int j = 0; j < o.n; j++) mine += o.c[j].v == o.c[i].v;
    CHECK(mine <= 2);
  }
  for (int i = 1; i < o.n; i++) /* sorted by key: a vertex's creases after its first contacts */
    CHECK(sim_contact_key_cmp(&o.c[i - 1], &o.c[i]) < 0);

  /* inside_only: vertex 2's contact with B alone; the crease's key skipped: the first found */
  p.inside_only = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(o.n == 1 && o.c[0].v == 2 && o.c[0].source == 1);
  p.inside_only = 0;
  const sim_contact_key skip[2] = {{0, SIM_CONTACT_BODY, C}, {2, SIM_CONTACT_BODY, 1}};
  p.skip = skip, p.nskip = 2;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 0, 1) && !find(&o, 0, C) && !find(&o, 2, 1) && find(&o, 2, C));
  CHECK_INT(o.n, 5);
  p.skip = NULL, p.nskip = 0;

  /* pinned: vertex 0 against B's all-pinned triangle loses the crease alone */
  unsigned char pin[NV] = {1, 0, 0, 0, 0, 0, 1, 0, 1, 1};
  s.pinned = pin;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 0, 1) && find(&o, 0, C)); /* 6 9 7: e1 free */
  pin[7] = 1;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(!find(&o, 0, C) && find(&o, 1, C));
  s.pinned = NULL;

  p.creases = 0; /* off: one contact a vertex */
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 4);
  p.creases = 1;

  /* a ridge (B falling 60 degrees below A), a shallow fold (20 degrees): vertex 0 none */
  fold(x, -60);
  memcpy(xp, x, sizeof xp);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 0, 1) && !find(&o, 0, C));
  fold(x, 20);
  memcpy(xp, x, sizeof xp);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 0, 1) && !find(&o, 0, C));
  /* a layer: B folded back over A (175 degrees), 4.3 cm above vertex 3, within the margin */
  fold(x, 175);
  memcpy(xp, x, sizeof xp);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 3, 1) && !find(&o, 3, C) && !find(&o, 0, C));
  p.margin = 0.03; /* the margin: vertex 1 meets B (2.6 cm) within it, A (4 cm) beyond it */
  fold(x, 60);
  memcpy(xp, x, sizeof xp);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 0, C) && !find(&o, 1, C) && find(&o, 1, 1));
  sim_detect_contacts_free(&o);
}

/* The valley as an open mesh obstacle (a V trough; its vertices and triangles those of the
   cloth above, renumbered from 0), spinning about z: vertex 0 on A beside the fold has a second
   contact on B (MESH, source 0 + SIM_CONTACT_CREASE) at B's point on the fold, B's normal, the
   gap to B's plane and the surface velocity there; none over a ridge, or with creases off. */
static void test_mesh_valley(void) {
  double x[3 * NV], mx[18];
  const double probe[3] = {-0.01, 0.001, 0.3};
  memcpy(x, probe, sizeof probe);
  fold(x, 60);
  memcpy(mx, x + 3 * NP, sizeof mx);
  int mt[12];
  for (int i = 0; i < 12; i++) mt[i] = g_tri[i] - NP;
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 6, m.nt = 4, m.x = mx, m.tri = mt, m.closed = 0, m.mu = 0.3;
  m.omega[2] = 2.0, m.center[0] = 1.0; /* about z through (1, 0, 0): u = (-2 y, 2 (x - 1), 0) */
  sim_detect_scene s = {1, x, x, NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05, p.creases = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  const double sn = sin(SIM_PI / 3), cs = cos(SIM_PI / 3);
  CHECK_INT(o.n, 2);
  sim_detect_view vw = {0}; /* a vertex's bound (the host's room and the device's slots) */
  vw.nmesh = 1, vw.creases = 1;
  CHECK(o.n <= sim_detect_most(&vw));
  if (o.n == 2) {
    const sim_contact *a = &o.c[0], *k = &o.c[1];
    CHECK(a->kind == SIM_CONTACT_MESH && a->source == 0 && k->kind == SIM_CONTACT_MESH &&
          k->source == SIM_CONTACT_CREASE);
    CHECK_NEAR(a->n[1], 1, 0);
    CHECK_NEAR(a->gap, 0.001, 1e-17);
    CHECK_NEAR(k->n[0], -sn, 1e-15);
    CHECK_NEAR(k->n[1], cs, 1e-15);
    CHECK_NEAR(k->gap, 0.01 * sn + 0.001 * cs, 1e-15);
    const double c[3] = {0, 0, 0.3};
    for (int i = 0; i < 3; i++) CHECK_NEAR(k->p[i], c[i], 1e-15);
    CHECK_NEAR(k->u[0], 0, 1e-15); /* at the fold's point (0, 0, 0.3) */
    CHECK_NEAR(k->u[1], -2, 1e-15);
    CHECK_NEAR(k->mu, 0.3, 0);
    CHECK(k->tri[0] == -1 && k->w[0] == 0); /* an obstacle's row: p alone */
  }
  p.creases = 0;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 1);
  p.creases = 1;
  fold(x, -60); /* a ridge */
  memcpy(mx, x + 3 * NP, sizeof mx);
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 1);
  sim_detect_contacts_free(&o);
}

/* A closed cube [0,1]^3 whose top is four triangles round a centre vertex at height `top`:
   0.8 a dent, 1.2 a roof. Vertices 0-7 the corners (bit 0 x, bit 1 y, bit 2 z), 8 the top's
   centre; probes 9, 10. */
static void test_dent(void) {
  enum { NC = 9, NVC = NC + 2, NT = 12 };
  const int tri[3 * NT] = {0, 1, 5, 0, 5, 4,  /* y = 0, outward -y */
                           0, 4, 6, 0, 6, 2,  /* x = 0 */
                           1, 3, 7, 1, 7, 5,  /* x = 1 */
                           0, 2, 3, 0, 3, 1,  /* z = 0 */
                           4, 5, 7, 4, 7, 6,  /* z = 1 */
                           2, 6, 8, 6, 7, 8}; /* top: 2 of 4 here, 2 below */
  int t[3 * (NT + 2)];
  memcpy(t, tri, sizeof tri);
  const int more[6] = {7, 3, 8, 3, 2, 8};
  memcpy(t + 3 * NT, more, sizeof more);
  double x[3 * NVC];
  for (int i = 0; i < 8; i++)
    x[3 * i] = i & 1, x[3 * i + 1] = (i >> 1) & 1, x[3 * i + 2] = (i >> 2) & 1;
  x[3 * 8] = 0.5, x[3 * 8 + 1] = 0.8, x[3 * 8 + 2] = 0.5;
  const double probes[2][3] = {{0.55, 0.83, 0.5}, {0.5, 1.5, 0.5}};
  memcpy(x + 3 * NC, probes, sizeof probes);
  sim_detect_body b[2] = {{0, NC, NT + 2, t, 0.3, 0, NULL, 0}, {NC, 2, 0, NULL, 0.3, 0, NULL, 0}};
  sim_detect_scene s = {NVC, x, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05, p.creases = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  const int C = SIM_CONTACT_CREASE;
  const sim_contact *a = find(&o, 9, 0), *k = find(&o, 9, C);
  CHECK(a && k && o.n == 2);
  if (a && k) { /* the dent's +x face first (0.93 cm), then another of its faces, outward */
    CHECK(a->tri[0] == 7 && a->tri[1] == 3 && a->tri[2] == 8);
    CHECK_NEAR(a->gap, (0.03 - 0.4 * 0.05) / sqrt(1.16), 1e-15);
    CHECK(k->n[1] > 0.9 && k->gap > 0 && k->gap <= 0.05);
    check_row(a, x, __LINE__), check_row(k, x, __LINE__);
  }
  x[3 * 8 + 1] = 1.2; /* a roof: the probe over its apex region has no crease */
  x[3 * 9 + 1] = 1.2 + 0.01, x[3 * 9] = 0.52;
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK(find(&o, 9, 0) && !find(&o, 9, C));
  sim_detect_contacts_free(&o);
}

/* Behind the other face's plane, beside it: a cloth's face A in y = 0 (its centroid at
   x = 0.3) and, 2 cm to the side, a face B upright in x = 0.02 (n_B = +x, facing A's
   centroid) from its lowest corner at y = 5 mm up. A vertex 3 mm over A is 2 cm behind B's
   plane, its nearest point of B that corner: no second contact (it lies beside B, as the
   folded towel's vertex beside a crumple's corner did). One 12 mm over A, its nearest point on
   B's face, has gone through B: its second contact reads -2 cm. */
static void test_beside(void) {
  enum { NB = 2 + 6 };
  double x[3 * NB] = {0,    0.003, 0,    0,    0.012, 0,                     /* the probes */
                      -0.2, 0,     -0.5, -0.2, 0,     0.5,  1.3,  0,   0,    /* A */
                      0.02, 0.005, 0,    0.02, 0.2,   -0.1, 0.02, 0.2, 0.1}; /* B */
  static const int tri[6] = {2, 3, 4, 5, 6, 7};
  sim_detect_body b[2] = {{0, 2, 0, NULL, 0.5, 0, NULL, 0}, {2, 6, 2, tri, 0.5, 1, NULL, 0}};
  sim_detect_scene s = {NB, x, x, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05, p.creases = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  const int C = 1 + SIM_CONTACT_CREASE;
  const sim_contact *a = find(&o, 0, 1);
  CHECK(a && a->tri[0] == 2 && fabs(a->gap - 0.003) < 1e-15);
  CHECK(!find(&o, 0, C));
  const sim_contact *k = find(&o, 1, C);
  CHECK(find(&o, 1, 1) && k);
  if (k) {
    CHECK_NEAR(k->n[0], 1, 0);
    CHECK_NEAR(k->gap, -0.02, 1e-15);
    CHECK(k->tri[0] == 5);
    check_row(k, x, __LINE__);
  }
  sim_detect_contacts_free(&o);
}

/* A flat open mesh obstacle in z = 0: A = (0,0) (1,0) (0,1), B = (1,0.2) (1.5,0.2) (1,0.7). A
   vertex at (0.7, 0.7, 0.2), beyond A's long edge, is nearest A's point (0.5, 0.5, 0) there,
   its contact normal the direction to it, (1,1,1)/sqrt 3; B's centroid lies in front of that
   contact's plane and B's normal meets it at 54.7 degrees, but B lies in A's own plane: no fold
   (SIM_DETECT_CREASE_FLAT_COS). A blade's vertex beside its edge had such a second contact, its
   normal turned by a coplanar centroid's rounding, which held it on the blade's other side at
   5e4 N (cloth_on_knives_10k, frame 86). Tilted 10 degrees about A's long edge, B is a fold. */
static void test_flat(void) {
  double x[3] = {0.7, 0.7, 0.2};
  double mx[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0.2, 0, 1.5, 0.2, 0, 1, 0.7, 0};
  const int mt[6] = {0, 1, 2, 3, 4, 5};
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 6, m.nt = 2, m.x = mx, m.tri = mt, m.closed = 0;
  sim_detect_scene s = {1, x, x, NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.6, p.creases = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 1);
  if (o.n >= 1) CHECK_NEAR(o.c[0].n[2], 1 / sqrt(3.0), 1e-15);
  /* B turned 10 degrees about the line x + y = 1 (A's long edge), its far side up */
  const double t = 10 * SIM_PI / 180, ax[3] = {-1 / sqrt(2.0), 1 / sqrt(2.0), 0};
  for (int v = 3; v < 6; v++) {
    double r[3] = {mx[3 * v] - 1, mx[3 * v + 1], mx[3 * v + 2]}, q[3]; /* about (1, 0, 0) */
    const double d = sim_dot3(ax, r);
    double c[3];
    sim_cross3(ax, r, c);
    for (int k = 0; k < 3; k++) q[k] = r[k] * cos(t) + c[k] * sin(t) + ax[k] * d * (1 - cos(t));
    mx[3 * v] = 1 + q[0], mx[3 * v + 1] = q[1], mx[3 * v + 2] = q[2];
  }
  CHECK_INT(detect_once(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 2);
  sim_detect_contacts_free(&o);
}

int main(void) {
  test_valley();
  test_flat();
  test_beside();
  test_mesh_valley();
  test_dent();
  return check_summary("test_detect_crease");
}

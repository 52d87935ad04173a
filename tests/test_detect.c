/* SPDX-License-Identifier: MIT */
/* Collision detection (core/contact/detect.c): a grid against a plane and a sphere (exactly
   the vertices within the margin, gap, normal, p, mu, body filter), a spinning cylinder's u,
   a closed cube mesh (outside, inside, on edges and corners), a random star-shaped closed
   mesh against brute force and winding numbers (signs at concave features), an open blade
   from both sides and its side memory, a cloth as a target (open body), two deformable boxes and self-collision, pinned vertices, margins 0 and
   large, identical output for 1 and 4 threads, inside_only and skip lists, a second pass
   skipping the first's keys (skip_first), a moving obstacle's step map (at_start), a thin
   slab's far side (face_prev, sweep), bad input, no leaks. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "contact/detect.h"
#include "contact/detect_vertex.h"
#include "mesh/mesh.h"

static double rnd(unsigned long long *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* init + run + free; returns the status code */
static int detect(const sim_detect_scene *s, const sim_detect_params *p, sim_detect_contacts *o) {
  sim_detect d;
  sim_status st = {0};
  int rc = sim_detect_init(&d, s, &st);
  if (rc == SIM_OK) {
    rc = sim_detect_run(&d, s, p, o, &st);
    sim_detect_free(&d);
  }
  return rc;
}

/* the contact of v with (kind, source), or NULL */
static const sim_contact *find(const sim_detect_contacts *o, int v, int kind, int source) {
  for (int i = 0; i < o->n; i++)
    if (o->c[i].v == v && (int)o->c[i].kind == kind && o->c[i].source == source) return &o->c[i];
  return NULL;
}

static double dist3(const double a[3], const double b[3]) {
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sim_norm3(d);
}

/* Checks shared by every contact: unit n, right-handed orthonormal (t1, t2, n), sorted order,
   the BODY-only fields, counts per kind. */
static void check_common(const sim_detect_contacts *o) {
  int bad = 0, cnt[3] = {0, 0, 0};
  for (int i = 0; i < o->n; i++) {
    const sim_contact *c = &o->c[i];
    double x[3];
    sim_cross3(c->t1, c->t2, x);
    bad += fabs(sim_norm3(c->n) - 1) > 1e-12 || fabs(sim_dot3(c->n, c->t1)) > 1e-12 ||
           fabs(sim_dot3(c->n, c->t2)) > 1e-12 || dist3(x, c->n) > 1e-12;
    if (i > 0) {
      const sim_contact *a = &o->c[i - 1];
      bad += !(a->v < c->v || (a->v == c->v && (a->kind < c->kind ||
                                                (a->kind == c->kind && a->source < c->source))));
    }
    if (c->kind != SIM_CONTACT_BODY)
      bad += c->tri[0] != -1 || c->tri[2] != -1 || c->w[0] != 0 || c->w[1] != 0;
    cnt[c->kind]++;
  }
  check_report(bad == 0, __FILE__, __LINE__, "%d contacts break frame/order conventions", bad);
  for (int k = 0; k < 3; k++) CHECK_INT(o->count[k], cnt[k]);
}

/* inside_only finds exactly the contacts with gap < 0 of the full detection, bit for bit and in
   its order; `at_least` of them (the scene has vertices inside). */
static void check_inside_only(const sim_detect_scene *s, const sim_detect_params *p,
                              int at_least) {
  sim_detect_params q = *p;
  q.inside_only = 0;
  sim_detect_contacts all = {0}, in = {0};
  CHECK_INT(detect(s, &q, &all), SIM_OK);
  q.inside_only = 1;
  CHECK_INT(detect(s, &q, &in), SIM_OK);
  check_common(&in);
  int k = 0, bad = 0;
  for (int i = 0; i < all.n; i++) {
    if (!(all.c[i].gap < 0)) continue;
    bad += k >= in.n || memcmp(&all.c[i], &in.c[k], sizeof(sim_contact)) != 0;
    k++;
  }
  check_report(bad == 0 && k == in.n && k >= at_least, __FILE__, __LINE__,
               "inside_only: %d contacts, %d of the full %d inside (at least %d), %d differ",
               in.n, k, all.n, at_least, bad);
  /* skip: every other key of the full list left out (and keys of no contact, of the other
     kinds, which match nothing), the rest found as before */
  q.inside_only = 0;
  sim_contact_key *skip = SIM_NEW(sim_contact_key, 2 * (size_t)all.n + 1);
  int ns = 0;
  for (int i = 0; i < all.n; i++) {
    const sim_contact *c = &all.c[i];
    if (i % 2 == 0) skip[ns++] = sim_contact_key_of(c);
    if (i % 3 == 0) skip[ns++] = (sim_contact_key){c->v, SIM_CONTACT_BILATERAL, c->source};
  }
  q.skip = skip, q.nskip = ns;
  CHECK_INT(detect(s, &q, &in), SIM_OK);
  bad = 0;
  for (int i = 1, j = 0; i < all.n; i += 2, j++)
    bad += j >= in.n || memcmp(&all.c[i], &in.c[j], sizeof(sim_contact)) != 0;
  check_report(bad == 0 && in.n == all.n / 2, __FILE__, __LINE__,
               "skip: %d contacts of %d, %d differ", in.n, all.n, bad);
  if (ns > 1) { /* an unsorted list is refused */
    sim_contact_key t = skip[0];
    skip[0] = skip[ns - 1], skip[ns - 1] = t;
    CHECK_INT(detect(s, &q, &in), skip[0].v == skip[ns - 1].v ? SIM_OK : SIM_ERR_INTERNAL);
  }
  sim_free(skip);
  sim_detect_contacts_free(&all), sim_detect_contacts_free(&in);
}

/* Two passes (sim_detect_passes_on, on the host), the second with twice the margin and
   skip_first: exactly its contacts alone less the keys the first found, bit for bit and in
   order; it still finds some. skip_first on the first pass, or with a skip list, is refused. */
static void check_skip_first(const sim_detect_scene *s, const sim_detect_params *p) {
  sim_detect d;
  sim_status st = {0};
  CHECK_INT(sim_detect_init(&d, s, &st), SIM_OK);
  sim_detect_params q[2] = {*p, *p};
  q[1].margin = 2.0 * p->margin + 0.01;
  sim_detect_contacts first = {0}, alone = {0}, second = {0};
  CHECK_INT(sim_detect_run(&d, &s[0], &q[1], &alone, &st), SIM_OK);
  q[1].skip_first = 1;
  sim_detect_scene two[2] = {*s, *s};
  sim_detect_contacts *const out[2] = {&first, &second};
  CHECK_INT(sim_detect_passes_on(NULL, &d, 2, two, q, out, NULL, &st), SIM_OK);
  check_common(&second);
  int k = 0, bad = 0, i0 = 0;
  for (int i = 0; i < alone.n; i++) {
    while (i0 < first.n && sim_contact_key_cmp(&first.c[i0], &alone.c[i]) < 0) i0++;
    if (i0 < first.n && sim_contact_key_cmp(&first.c[i0], &alone.c[i]) == 0) continue;
    bad += k >= second.n || memcmp(&alone.c[i], &second.c[k], sizeof(sim_contact)) != 0;
    k++;
  }
  check_report(bad == 0 && k == second.n && k > 0 && first.n > 0 && second.n < alone.n,
               __FILE__, __LINE__,
               "skip_first: %d contacts of the second pass's %d alone (the first found %d), "
               "%d expected, %d differ",
               second.n, alone.n, first.n, k, bad);
  q[0].skip_first = 1; /* refused on the first pass */
  CHECK_INT(sim_detect_passes_on(NULL, &d, 2, two, q, out, NULL, &st), SIM_ERR_INTERNAL);
  q[0].skip_first = 0;
  sim_contact_key key = {0, SIM_CONTACT_OBSTACLE, 0}; /* and with a skip list */
  q[1].skip = &key, q[1].nskip = 1;
  CHECK_INT(sim_detect_passes_on(NULL, &d, 2, two, q, out, NULL, &st), SIM_ERR_INTERNAL);
  sim_detect_free(&d);
  sim_detect_contacts_free(&first), sim_detect_contacts_free(&alone);
  sim_detect_contacts_free(&second);
}

/* ---------------- analytic obstacles ---------------- */

static void test_grid_plane_sphere(void) {
  enum { NX = 9, NY = 12, NZ = 9, NV = NX * NY * NZ };
  static double x[3 * NV];
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++)
      for (int k = 0; k < NZ; k++) {
        double *p = x + 3 * ((i * NY + j) * NZ + k);
        p[0] = -1 + 0.25 * i, p[1] = -0.03 + 0.05 * j, p[2] = -1 + 0.25 * k;
      }
  sim_detect_obstacle ob[2] = {sim_default_detect_obstacle(SIM_OBS_PLANE),
                               sim_default_detect_obstacle(SIM_OBS_SPHERE)};
  ob[0].mu = 0.3;
  const double sc[3] = {0.1, 0.3, -0.05}, R = 0.37;
  for (int k = 0; k < 3; k++) ob[1].shape.frame.pos[k] = sc[k];
  ob[1].shape.radius = R;
  ob[1].mu = 0.7;
  ob[1].bodies = 2; /* body 1 only */
  /* body 0: i < 4 slices, body 1: the rest */
  const int nb0 = 4 * NY * NZ;
  sim_detect_body bodies[2] = {{0, nb0, 0, NULL, 0.5, 0, NULL, 0},
                               {nb0, NV - nb0, 0, NULL, 0.5, 0, NULL, 0}};
  sim_detect_scene s = {NV, x, NULL, NULL, 2, 0, 2, ob, NULL, bodies};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.06;
  p.min_sep = 1e-4;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK(o.min_sep == 1e-4);
  int expect_plane = 0, expect_sphere = 0, bad = 0, filtered = 0;
  for (int v = 0; v < NV; v++) {
    const double *q = x + 3 * v;
    const sim_contact *c = find(&o, v, SIM_CONTACT_OBSTACLE, 0);
    if (q[1] <= p.margin) {
      expect_plane++;
      bad += !c || fabs(c->gap - q[1]) > 1e-15 || c->n[1] != 1 || c->p[0] != q[0] ||
             c->p[1] != 0 || c->p[2] != q[2] || c->mu != 0.3 || c->u[0] != 0;
    } else {
      bad += c != NULL;
    }
    const double r = dist3(q, sc), phi = r - R;
    c = find(&o, v, SIM_CONTACT_OBSTACLE, 1);
    if (phi <= p.margin && v < nb0) filtered++;
    if (phi <= p.margin && v >= nb0) {
      expect_sphere++;
      double e = 0;
      for (int k = 0; k < 3; k++)
        e += c ? fabs(c->n[k] - (q[k] - sc[k]) / r) + fabs(c->p[k] - (sc[k] + R * (q[k] - sc[k]) / r))
               : 1;
      bad += !c || fabs(c->gap - phi) > 1e-14 || e > 1e-14 || c->mu != 0.7;
    } else {
      bad += c != NULL;
    }
  }
  check_report(bad == 0, __FILE__, __LINE__, "%d vertices disagree with plane/sphere", bad);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], expect_plane + expect_sphere);
  CHECK(expect_plane > 100 && expect_sphere > 5 && filtered > 0); /* the test covers both */
  CHECK_INT(o.count[SIM_CONTACT_MESH] + o.count[SIM_CONTACT_BODY], 0);
  check_inside_only(&s, &p, 100); /* y < 0 under the plane, and inside the sphere */
  check_skip_first(&s, &p);

  /* margins of their own (sim_detect_obstacle.margin): the plane's 0.1 takes the layer at
     y = 0.07 too, the sphere's 0 only the vertices inside it; the pass's 0.06 then counts for
     neither */
  ob[0].margin = 0.1, ob[1].margin = 0.0;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  int own_plane = 0, own_sphere = 0;
  for (int v = 0; v < NV; v++) {
    own_plane += x[3 * v + 1] <= 0.1;
    own_sphere += v >= nb0 && dist3(x + 3 * v, sc) - R <= 0.0;
  }
  int plane_found = 0;
  for (int i = 0; i < o.n; i++) plane_found += o.c[i].source == 0;
  CHECK_INT(plane_found, own_plane);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], own_plane + own_sphere);
  CHECK(own_plane == expect_plane + NX * NZ && own_sphere > 0 && own_sphere < expect_sphere);
  ob[0].margin = ob[1].margin = -1; /* the pass's again */

  /* margin 0: exactly the vertices with y <= 0 (y = 0 is touching: gap 0) */
  x[1] = 0.0;
  p.margin = 0.0;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  int m0 = 0;
  for (int v = 0; v < NV; v++) m0 += (x[3 * v + 1] <= 0) + (v >= nb0 && dist3(x + 3 * v, sc) <= R);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], m0);
  const sim_contact *c0 = find(&o, 0, SIM_CONTACT_OBSTACLE, 0);
  CHECK(c0 && c0->gap == 0);
  /* large margin: every vertex against the plane, body 1's against the sphere */
  p.margin = 100;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], NV + (NV - nb0));
  /* pinned vertices are skipped, the others unchanged */
  static unsigned char pin[NV];
  for (int v = 0; v < NV; v++) pin[v] = v % 3 == 0;
  s.pinned = pin;
  sim_detect_contacts o2 = {0};
  CHECK_INT(detect(&s, &p, &o2), SIM_OK);
  int j = 0, badpin = 0;
  for (int i = 0; i < o.n; i++) {
    if (pin[o.c[i].v]) continue;
    badpin += j >= o2.n || memcmp(&o.c[i], &o2.c[j], sizeof(sim_contact)) != 0;
    j++;
  }
  CHECK_INT(badpin, 0);
  CHECK_INT(j, o2.n);
  sim_detect_contacts_free(&o);
  sim_detect_contacts_free(&o2);
}

static void test_spinning_cylinder(void) {
  sim_detect_obstacle ob = sim_default_detect_obstacle(SIM_OBS_CYLINDER);
  const double c0[3] = {0.2, -0.1, 0.4}, axis[3] = {0, 0, 1}, r = 0.3, w = 2.5;
  ob.shape.frame = sim_frame_from_axis(c0, axis);
  ob.shape.radius = r;
  ob.shape.half_height = 1.0;
  ob.shape.omega = w;
  ob.mu = 0.9;
  /* vertices at distance 0.01 from the side at several angles, one far */
  enum { N = 7 };
  double x[3 * N];
  for (int i = 0; i < N; i++) {
    const double th = 0.9 * i, rr = i == N - 1 ? r + 0.5 : r + 0.01;
    x[3 * i] = c0[0] + rr * cos(th), x[3 * i + 1] = c0[1] + rr * sin(th), x[3 * i + 2] = 0.3;
  }
  sim_detect_scene s = {N, x, NULL, NULL, 1, 0, 0, &ob, NULL, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.n, N - 1);
  for (int i = 0; i < o.n; i++) {
    const sim_contact *c = &o.c[i];
    const double th = 0.9 * c->v;
    /* u = omega e_z x (p - c0) = omega r (-sin, cos, 0): tangential, |u| = omega r */
    CHECK_NEAR(c->u[0], -w * r * sin(th), 1e-14);
    CHECK_NEAR(c->u[1], w * r * cos(th), 1e-14);
    CHECK_NEAR(c->u[2], 0, 1e-14);
    CHECK_NEAR(sim_dot3(c->u, c->n), 0, 1e-14);
    CHECK_NEAR(c->gap, 0.01, 1e-14);
    CHECK_NEAR(c->n[0], cos(th), 1e-14);
    CHECK(c->mu == 0.9);
  }
  sim_detect_contacts_free(&o);
}

/* ---------------- mesh obstacles ---------------- */

/* Unit cube [0,1]^3 + off, 8 vertices (bit 0: x, 1: y, 2: z) from vbase, 12 outward
   triangles. */
static void make_cube(const double lo[3], const double hi[3], int vbase, double *x, int *tri) {
  static const int q[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4},
                              {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 3; k++) x[3 * i + k] = (i >> k) & 1 ? hi[k] : lo[k];
  for (int f = 0; f < 6; f++)
    for (int h = 0; h < 2; h++) {
      int *t = tri + 3 * (2 * f + h);
      t[0] = q[f][0], t[1] = q[f][1 + h], t[2] = q[f][2 + h];
      const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2];
      double e1[3], e2[3], n[3], m[3];
      for (int k = 0; k < 3; k++)
        e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], m[k] = a[k] + b[k] + c[k] - 1.5 * (lo[k] + hi[k]);
      sim_cross3(e1, e2, n);
      if (sim_dot3(n, m) < 0) { /* turn it outward */
        const int s = t[1];
        t[1] = t[2], t[2] = s;
      }
      for (int k = 0; k < 3; k++) t[k] += vbase;
    }
}

static void test_cube_mesh(void) {
  double cx[24];
  int ct[36];
  make_cube((const double[3]){0, 0, 0}, (const double[3]){1, 1, 1}, 0, cx, ct);
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 8, m.nt = 12, m.x = cx, m.tri = ct, m.mu = 0.4;
  const double x[][3] = {
      {0.3, 0.6, 1.02},   /* 0 outside above the top face */
      {0.3, 0.6, 0.98},   /* 1 inside below it */
      {1.01, 0.5, 1.01},  /* 2 outside near an edge */
      {0.99, 0.5, 0.995}, /* 3 inside near that edge: nearest face z = 1 */
      {1, 1, 1},          /* 4 on a corner */
      {1, 0.5, 1},        /* 5 on an edge */
      {0.5, 0.5, 1.5},    /* 6 far */
      {0.5, 0.5, 0.5},    /* 7 deep inside: beyond the margin, not found */
      {-0.02, 0.3, 0.7},  /* 8 outside the x = 0 face */
      {0.4, 0.01, 0.2},   /* 9 inside near y = 0 */
  };
  const int N = (int)(sizeof x / sizeof x[0]);
  sim_detect_scene s = {N, &x[0][0], NULL, NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.count[SIM_CONTACT_MESH], N - 2);
  const double s2 = sqrt(0.5), s3 = sqrt(1.0 / 3);
  const struct {
    int v;
    double gap, n[3], p[3];
  } want[] = {{0, 0.02, {0, 0, 1}, {0.3, 0.6, 1}},       {1, -0.02, {0, 0, 1}, {0.3, 0.6, 1}},
              {2, 0.01 * sqrt(2), {s2, 0, s2}, {1, 0.5, 1}}, {3, -0.005, {0, 0, 1}, {0.99, 0.5, 1}},
              {4, 0, {s3, s3, s3}, {1, 1, 1}},           {5, 0, {s2, 0, s2}, {1, 0.5, 1}},
              {8, 0.02, {-1, 0, 0}, {0, 0.3, 0.7}},      {9, -0.01, {0, -1, 0}, {0.4, 0, 0.2}}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const sim_contact *c = find(&o, want[i].v, SIM_CONTACT_MESH, 0);
    check_report(c != NULL, __FILE__, __LINE__, "cube: vertex %d found", want[i].v);
    if (!c) continue;
    double e = fabs(c->gap - want[i].gap);
    for (int k = 0; k < 3; k++) e += fabs(c->n[k] - want[i].n[k]) + fabs(c->p[k] - want[i].p[k]);
    check_report(e <= 1e-14 && c->mu == 0.4 && c->u[0] == 0, __FILE__, __LINE__,
                 "cube vertex %d: gap %g n (%g %g %g) error %g", want[i].v, c->gap, c->n[0],
                 c->n[1], c->n[2], e);
  }
  CHECK(find(&o, 6, SIM_CONTACT_MESH, 0) == NULL && find(&o, 7, SIM_CONTACT_MESH, 0) == NULL);
  /* the mesh's own margin, 1.5 cm: vertices 0 and 8 (2 cm out) and 1 (2 cm in: the distance
     is unsigned) are no longer found, vertex 2 (1.41 cm from the edge) still is */
  m.margin = 0.015;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_MESH], N - 5);
  CHECK(find(&o, 0, SIM_CONTACT_MESH, 0) == NULL && find(&o, 1, SIM_CONTACT_MESH, 0) == NULL &&
        find(&o, 8, SIM_CONTACT_MESH, 0) == NULL && find(&o, 2, SIM_CONTACT_MESH, 0) != NULL);
  m.margin = -1;
  /* body filter: the mesh touches body 1 only; the vertices are in body 0 */
  sim_detect_body b0 = {0, N, 0, NULL, 0.5, 0, NULL, 0};
  s.nbodies = 1, s.body = &b0, m.bodies = 2;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  /* a rigidly moving mesh: u = vel + omega x (p - center) */
  s.nbodies = 0, m.bodies = SIM_DETECT_ALL, m.moving = 1;
  m.vel[0] = 1, m.omega[2] = 2, m.center[0] = 0.5, m.center[1] = 0.5;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  const sim_contact *c = find(&o, 0, SIM_CONTACT_MESH, 0); /* p = (0.3, 0.6, 1) */
  CHECK(c && fabs(c->u[0] - (1 - 2 * 0.1)) < 1e-15 && fabs(c->u[1] - 2 * -0.2) < 1e-15 &&
        c->u[2] == 0);
  sim_detect_contacts_free(&o);
}

/* A step map (sim_detect_step, read with at_start): a wall 1 cm thick that moves 2 cm over the
   step, an analytic box and the same as a closed mesh. A vertex 3 mm ahead of it at the step's
   start is 7 mm behind it where it ends the step: queried as posed, its contact faces the wrong
   way (gap 7 mm, n = -x), so the solve would hold it behind the wall; with at_start, the gap
   it has at the start (3 mm), n = +x, p on the wall's front face where it ends (x = 0.02).
   The margin (1 cm) is widened by the wall's 2 cm: a vertex 2.9 cm ahead is found, 3.5 cm not.
   Then the wall also turns (0.3 rad about z): every contact's gap is the vertex's signed
   distance to the wall where it was (sim_obstacle_phi at the start pose), p + gap n is the
   vertex carried by the map, and p lies on the wall where it ends. */
static void test_step_map(void) {
  const double x[][3] = {{0.003, 0.2, 0.1}, {0.029, -0.3, 0.2}, {0.035, 0.1, -0.2}};
  sim_detect_obstacle ob = sim_default_detect_obstacle(SIM_OBS_BOX);
  ob.shape.half[0] = 0.005, ob.shape.half[1] = ob.shape.half[2] = 1;
  ob.shape.frame.pos[0] = 0.015; /* at the step's end: [0.01, 0.02]; at its start [-0.01, 0] */
  ob.step.on = 1, ob.step.Q[0] = ob.step.Q[4] = ob.step.Q[8] = 1, ob.step.c[0] = 0.02;
  double cx[24];
  int ct[36];
  make_cube((const double[3]){0.01, -1, -1}, (const double[3]){0.02, 1, 1}, 0, cx, ct);
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 8, m.nt = 12, m.x = cx, m.tri = ct, m.step = ob.step;
  for (int mesh = 0; mesh < 2; mesh++) {
    sim_detect_scene s = {3, &x[0][0], NULL, NULL, !mesh, mesh, 0, &ob, &m, NULL};
    sim_detect_params p = sim_default_detect_params();
    p.margin = 0.01;
    sim_detect_contacts o = {0};
    const int kind = mesh ? SIM_CONTACT_MESH : SIM_CONTACT_OBSTACLE;
    CHECK_INT(detect(&s, &p, &o), SIM_OK);
    const sim_contact *c = find(&o, 0, kind, 0);
    CHECK(c && fabs(c->gap - 0.007) < 1e-15 && c->n[0] == -1);
    p.at_start = 1;
    CHECK_INT(detect(&s, &p, &o), SIM_OK);
    check_common(&o);
    c = find(&o, 0, kind, 0);
    CHECK(o.n == 2 && c && fabs(c->gap - 0.003) < 1e-15 && c->n[0] == 1 &&
          dist3(c->p, (const double[3]){0.02, 0.2, 0.1}) < 1e-15);
    c = find(&o, 1, kind, 0);
    CHECK(c && fabs(c->gap - 0.029) < 1e-15 && find(&o, 2, kind, 0) == NULL);
    /* an own margin of 2 cm is widened the same way, to 4 cm: vertex 2 (3.5 cm) is found */
    *(mesh ? &m.margin : &ob.margin) = 0.02;
    CHECK_INT(detect(&s, &p, &o), SIM_OK);
    c = find(&o, 2, kind, 0);
    CHECK(o.n == 3 && c && fabs(c->gap - 0.035) < 1e-15);
    ob.margin = m.margin = -1;
    sim_detect_contacts_free(&o);
  }
  /* turning too: the start pose is the end's with the map undone */
  const double a = 0.3, ca = cos(a), sa = sin(a);
  const double Q[9] = {ca, -sa, 0, sa, ca, 0, 0, 0, 1};
  memcpy(ob.step.Q, Q, sizeof Q);
  ob.step.c[0] = 0.02, ob.step.c[1] = 0.01;
  sim_obstacle start = ob.shape;
  start.frame.pos[0] = -0.005, start.frame.pos[1] = 0;
  /* end pose = map(start): rot = Q, pos = Q pos0 + c */
  for (int i = 0; i < 9; i++) ob.shape.frame.rot[i] = Q[i];
  for (int i = 0; i < 3; i++)
    ob.shape.frame.pos[i] = Q[3 * i] * start.frame.pos[0] + ob.step.c[i];
  enum { NV = 400 };
  double xs[3 * NV];
  unsigned long long seed = 31;
  for (int v = 0; v < NV; v++)
    xs[3 * v] = 0.03 * rnd(&seed), xs[3 * v + 1] = 0.5 * rnd(&seed), xs[3 * v + 2] = rnd(&seed);
  sim_detect_scene s = {NV, xs, NULL, NULL, 1, 0, 0, &ob, NULL, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.01, p.at_start = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  double err = 0;
  for (int i = 0; i < o.n; i++) {
    const sim_contact *c = &o.c[i];
    const double *xv = xs + 3 * c->v;
    double y[3];
    sim_detect_step_apply(&ob.step, xv, y);
    err = fmax(err, fabs(c->gap - sim_obstacle_phi(&start, xv)));
    err = fmax(err, fabs(sim_obstacle_phi(&ob.shape, c->p)));
    for (int k = 0; k < 3; k++) err = fmax(err, fabs(c->p[k] + c->gap * c->n[k] - y[k]));
  }
  printf("step map, turning: %d contacts of %d vertices, largest error %.3g\n", o.n, NV, err);
  CHECK(o.n > 50 && err < 1e-14);
  sim_detect_contacts_free(&o);
}

/* Vertices that were 3 cm above a slab 1 cm thick (y in [-0.01, 0]) at x_prev (the prediction
   pass: x_prev = q_t, x = q~): vertex 0 ends just under the slab, 1 inside it near its
   underside, 2 a metre below, 3 falls past its edge. */
static const double slab_xp[4][3] = {
    {0.1, 0.03, 0.2}, {-0.3, 0.03, 0.1}, {0.2, 0.03, -0.4}, {1.2, 0.03, 0}};
static const double slab_x[4][3] = {
    {0.1, -0.015, 0.2}, {-0.3, -0.008, 0.1}, {0.2, -1, -0.4}, {1.2, -1, 0}};

/* Scene s holds those vertices (0-3) and the slab as source `source` of kind `kind`. Found at
   x, 0's and 1's contacts take the underside (n = -y, 1 inside): the solve would pull them
   through. face_prev takes them again at x_prev: the top face (n = +y, p on it, the gap 3 cm;
   a body's barycentrics sum to 1), and inside_only still keeps 1 (inside at x) and not 0.
   Vertex 2 is beyond the margin at x: only sweep finds it, on the top face; 3's path never
   comes within the margin. */
static void check_thin_slab(const sim_detect_scene *s, int kind, int source, const char *what) {
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.01;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(s, &p, &o), SIM_OK);
  const sim_contact *c0 = find(&o, 0, kind, source), *c1 = find(&o, 1, kind, source);
  CHECK(o.n == 2 && c0 && c1 && c0->n[1] == -1 && c1->n[1] == -1 && c1->gap < 0);
  p.face_prev = 1;
  CHECK_INT(detect(s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.n, 2);
  for (int v = 0; v < 2; v++) {
    const sim_contact *c = find(&o, v, kind, source);
    const double top[3] = {slab_xp[v][0], 0, slab_xp[v][2]};
    check_report(c && c->n[1] == 1 && fabs(c->gap - 0.03) < 1e-15 && dist3(c->p, top) < 1e-15 &&
                     (kind != SIM_CONTACT_BODY || fabs(c->w[0] + c->w[1] + c->w[2] - 1) < 1e-15),
                 __FILE__, __LINE__, "slab (%s), face_prev: vertex %d on the top face", what, v);
  }
  p.inside_only = 1;
  CHECK_INT(detect(s, &p, &o), SIM_OK);
  CHECK(o.n == 1 && find(&o, 1, kind, source) && find(&o, 1, kind, source)->n[1] == 1);
  p.inside_only = 0, p.sweep = 1;
  CHECK_INT(detect(s, &p, &o), SIM_OK);
  check_common(&o);
  const sim_contact *c2 = find(&o, 2, kind, source);
  CHECK(o.n == 3 && c2 && c2->n[1] == 1 && fabs(c2->gap - 0.03) < 1e-15 &&
        find(&o, 3, kind, source) == NULL);
  sim_detect_contacts_free(&o);
}

/* The slab as an analytic box and as a closed mesh obstacle. */
static void test_thin_slab(void) {
  sim_detect_obstacle ob = sim_default_detect_obstacle(SIM_OBS_BOX);
  ob.shape.half[0] = ob.shape.half[2] = 1, ob.shape.half[1] = 0.005;
  ob.shape.frame.pos[1] = -0.005;
  double cx[24];
  int ct[36];
  make_cube((const double[3]){-1, -0.01, -1}, (const double[3]){1, 0, 1}, 0, cx, ct);
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 8, m.nt = 12, m.x = cx, m.tri = ct;
  for (int mesh = 0; mesh < 2; mesh++) {
    sim_detect_scene s = {4, &slab_x[0][0], &slab_xp[0][0], NULL, !mesh, mesh, 0, &ob, &m, NULL};
    check_thin_slab(&s, mesh ? SIM_CONTACT_MESH : SIM_CONTACT_OBSTACLE, 0, mesh ? "mesh" : "box");
  }
}

/* The same slab as a deformable body (a closed surface) met by vertices of another body, with
   both bodies' positions at x_prev and x: the vertices move as above past the slab standing
   still. Then the slab moves (up 1.045 m, through two vertices standing still under it): only
   sweep finds vertex 0, where the slab was at x_prev (its top, 0.545 m below), and never 1,
   beside the slab's path. */
static void test_thin_body(void) {
  double x[12 * 3], xprev[12 * 3];
  int bt[36];
  make_cube((const double[3]){-1, -0.01, -1}, (const double[3]){1, 0, 1}, 4, x + 12, bt);
  memcpy(xprev + 12, x + 12, sizeof(double) * 24);
  memcpy(x, slab_x, sizeof slab_x);
  memcpy(xprev, slab_xp, sizeof slab_xp);
  sim_detect_body b[2] = {{0, 4, 0, NULL, 0.5, 0, NULL, 0}, {4, 8, 12, bt, 0.5, 0, NULL, 0}};
  sim_detect_scene s = {12, x, xprev, NULL, 0, 0, 2, NULL, NULL, b};
  check_thin_slab(&s, SIM_CONTACT_BODY, 1, "body");
  /* the slab moving through vertices standing still */
  double y[10 * 3] = {0.2, -0.5, -0.4, 1.2, -0.5, 0}, yprev[10 * 3];
  make_cube((const double[3]){-1, -0.01, -1}, (const double[3]){1, 0, 1}, 2, y + 6, bt);
  memcpy(yprev, y, sizeof y);
  for (int i = 2; i < 10; i++) yprev[3 * i + 1] -= 1.045;
  sim_detect_body b2[2] = {{0, 2, 0, NULL, 0.5, 0, NULL, 0}, {2, 8, 12, bt, 0.5, 0, NULL, 0}};
  sim_detect_scene s2 = {10, y, yprev, NULL, 0, 0, 2, NULL, NULL, b2};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.01, p.face_prev = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s2, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  p.sweep = 1;
  CHECK_INT(detect(&s2, &p, &o), SIM_OK);
  check_common(&o);
  const sim_contact *c0 = find(&o, 0, SIM_CONTACT_BODY, 1);
  CHECK(o.n == 1 && c0 && c0->n[1] == 1 && fabs(c0->gap - 0.545) < 1e-12 &&
        fabs(c0->p[1] + 1.045) < 1e-12);
  sim_detect_contacts_free(&o);
}

/* solid angle of triangle (a, b, c) seen from p (Van Oosterom and Strackee 1983) */
static double solid_angle(const double *p, const double *a, const double *b, const double *c) {
  double r[3][3], l[3];
  for (int k = 0; k < 3; k++) r[0][k] = a[k] - p[k], r[1][k] = b[k] - p[k], r[2][k] = c[k] - p[k];
  for (int i = 0; i < 3; i++) l[i] = sim_norm3(r[i]);
  double x[3];
  sim_cross3(r[1], r[2], x);
  const double num = sim_dot3(r[0], x);
  const double den = l[0] * l[1] * l[2] + sim_dot3(r[0], r[1]) * l[2] +
                     sim_dot3(r[0], r[2]) * l[1] + sim_dot3(r[1], r[2]) * l[0];
  return 2 * atan2(num, den);
}

/* A star-shaped, non-convex closed mesh (an icosphere with random radii): the signed gap
   against brute force distance and the winding number, over points near the surface. */
static void test_star_mesh(void) {
  sim_surface sf;
  sim_status st = {0};
  CHECK_INT(sim_gen_icosphere(1.0, 2, &sf, &st), SIM_OK);
  unsigned long long sd = 7;
  for (int v = 0; v < sf.nv; v++) {
    const double f = 1 + 0.25 * rnd(&sd);
    for (int k = 0; k < 3; k++) sf.x[3 * v + k] *= f;
  }
  enum { N = 3000 };
  double *x = SIM_NEW(double, 3 * N);
  for (int i = 0; i < N; i++) { /* near a random surface vertex, edge midpoint or anywhere */
    const int t = (int)((0.5 + 0.5 * rnd(&sd)) * sf.nt), mode = i % 3;
    const double *a = sf.x + 3 * sf.tri[3 * t], *b = sf.x + 3 * sf.tri[3 * t + 1];
    const double sp = mode == 2 ? 0.15 : 0.04;
    for (int k = 0; k < 3; k++)
      x[3 * i + k] = (mode == 0 ? a[k] : mode == 1 ? 0.5 * (a[k] + b[k]) : 0.5 * a[k] + 0.3 * b[k]) +
                     sp * rnd(&sd);
  }
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = sf.nv, m.nt = sf.nt, m.x = sf.x, m.tri = sf.tri;
  sim_detect_scene s = {N, x, NULL, NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.05;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  int bad = 0, expect = 0, inside = 0, ci = 0;
  for (int i = 0; i < N; i++) {
    const double *q = x + 3 * i;
    double dmin = INFINITY, wn = 0;
    for (int t = 0; t < sf.nt; t++) {
      const double *a = sf.x + 3 * sf.tri[3 * t], *b = sf.x + 3 * sf.tri[3 * t + 1],
                   *c = sf.x + 3 * sf.tri[3 * t + 2];
      sim_tri_closest tq = {0};
      dmin = fmin(dmin, sqrt(sim_tri_closest_point(q, a, b, c, &tq)));
      wn += solid_angle(q, a, b, c);
    }
    wn /= 4 * SIM_PI;
    if (dmin > p.margin) continue;
    expect++;
    const int in = wn > 0.5;
    inside += in;
    while (ci < o.n && o.c[ci].v < i) ci++;
    const sim_contact *c = ci < o.n && o.c[ci].v == i ? &o.c[ci] : NULL;
    if (!c) {
      bad++;
      continue;
    }
    const double g = in ? -dmin : dmin;
    double xc[3]; /* x = p + gap n */
    for (int k = 0; k < 3; k++) xc[k] = c->p[k] + c->gap * c->n[k];
    bad += fabs(c->gap - g) > 1e-12 || dist3(xc, q) > 1e-12;
  }
  check_report(bad == 0, __FILE__, __LINE__, "star mesh: %d of %d contacts wrong", bad, expect);
  CHECK_INT(o.n, expect);
  CHECK(inside > 100 && expect - inside > 100);
  sim_detect_contacts_free(&o);
  sim_free(x);
  sim_surface_free(&sf);
}

static void test_blade(void) {
  const double bx[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}; /* front normal +z */
  const int bt[3] = {0, 1, 2};
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 3, m.nt = 1, m.x = bx, m.tri = bt, m.closed = 0;
  const double x[][3] = {{0.2, 0.2, 0.01}, {0.2, 0.2, -0.01}, {0.2, 0.2, 0},
                         {0.2, 0.3, 0},    {0.5, -0.01, 0},   {0.2, 0.2, 0.5}};
  const double xp[][3] = {{0.2, 0.2, 0.02}, {0.2, 0.2, -0.02}, {0.2, 0.2, -0.05},
                          {0.2, 0.3, 0.05}, {0.5, -0.01, 0},   {0.2, 0.2, 0.5}};
  sim_detect_scene s = {6, &x[0][0], &xp[0][0], NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.n, 5);
  const double nz[6] = {1, -1, -1, 1, 0, 0}, gap[6] = {0.01, 0.01, 0, 0, 0.01, 0};
  for (int i = 0; i < o.n; i++) {
    const sim_contact *c = &o.c[i];
    CHECK_INT(c->v, i);
    CHECK_NEAR(c->gap, gap[i], 1e-15);
    CHECK_NEAR(c->n[2], nz[i], 1e-15);
  }
  CHECK(o.n == 5 && fabs(o.c[4].n[1] + 1) < 1e-15);
  /* face_prev: a contact faces the side x_prev is on (vertex 0 was below the blade: n and the
     gap change sign; vertex 4's edge contact, x_prev = x, keeps its own) */
  const double xq[][3] = {{0.2, 0.2, -0.02}, {0.2, 0.2, -0.02}, {0.2, 0.2, -0.05},
                          {0.2, 0.3, 0.05},  {0.5, -0.01, 0},   {0.2, 0.2, 0.5}};
  s.x_prev = &xq[0][0];
  p.face_prev = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  const double fz[5] = {-1, -1, -1, 1, 0}, fgap[5] = {-0.01, 0.01, 0, 0, 0.01};
  CHECK_INT(o.n, 5);
  for (int i = 0; i < o.n && i < 5; i++) {
    CHECK_NEAR(o.c[i].gap, fgap[i], 1e-15);
    CHECK_NEAR(o.c[i].n[2], fz[i], 1e-15);
    CHECK_NEAR(o.c[i].t1[0] * o.c[i].n[0] + o.c[i].t1[1] * o.c[i].n[1] +
                   o.c[i].t1[2] * o.c[i].n[2], 0.0, 1e-15); /* tangents of the turned normal */
  }
  CHECK(o.n == 5 && fabs(o.c[4].n[1] + 1) < 1e-15);
  check_inside_only(&s, &p, 1); /* vertex 0, turned to x_prev's side */
  p.face_prev = 0;
  /* without previous positions, touching vertices take the front normal */
  s.x_prev = NULL;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK(o.n == 5 && o.c[2].n[2] == 1 && o.c[3].n[2] == 1);
  /* the same triangle taken as closed: the vertex behind it is penetrating */
  m.closed = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK(o.n == 5 && fabs(o.c[1].gap + 0.01) < 1e-15 && fabs(o.c[1].n[2] - 1) < 1e-15);
  check_inside_only(&s, &p, 1);
  sim_detect_contacts_free(&o);
}

/* A blade's side memory (sim_detect_params.sides): a vertex with an entry keeps that side
   where it crossed the blade (or was behind it already), not where it went round its edge. */
static void test_blade_sides(void) {
  const double bx[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}; /* front normal +z */
  const int bt[3] = {0, 1, 2};
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = 3, m.nt = 1, m.x = bx, m.tri = bt, m.closed = 0;
  /* 0: 1e-5 behind, from 1e-5 in front, remembered in front; 1: touching, remembered behind;
     2: in front and remembered there; 3: beyond the edge y = 0, remembered on its other side
     (went round: kept as found); 4: 1 cm behind, no entry, from 5 cm in front through the
     blade; 5: the same beside the blade (round its edge); 6: 2 mm behind, remembered in front
     and behind already at the step before */
  const double x[][3] = {{0.2, 0.2, -1e-5}, {0.2, 0.2, 0},      {0.2, 0.2, 0.01},
                         {0.5, -0.01, 0},   {0.2, 0.2, -0.01},  {0.3, -0.01, -0.01},
                         {0.3, 0.3, -0.002}};
  const double xp[][3] = {{0.2, 0.2, 1e-5}, {0.2, 0.2, 0},     {0.2, 0.2, 0.01},
                          {0.5, -0.01, 0},  {0.2, 0.2, 0.05},  {0.3, -0.01, 0.01},
                          {0.3, 0.3, -0.002}};
  const int M = SIM_CONTACT_MESH;
  sim_detect_side sides[5] = {{0, M, 0, 0, {-1, -1, -1}, {0, 0, 1}, {0, 0, 0}},
                              {1, M, 0, 0, {-1, -1, -1}, {0, 0, -1}, {0, 0, 0}},
                              {2, M, 0, 0, {-1, -1, -1}, {0, 0.6, 0.8}, {0, 0, 0}},
                              {3, M, 0, 0, {-1, -1, -1}, {0, 1, 0}, {0, 0, 0}},
                              {6, M, 0, 1, {-1, -1, -1}, {0, 0, 1}, {0, 0, 0}}};
  sim_detect_scene s = {7, &x[0][0], &xp[0][0], NULL, 0, 1, 0, NULL, &m, NULL};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02;
  sim_detect_contacts o = {0};
  const double r = sqrt(0.5);
  /* as found: unsigned, the side x is on */
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  const double z0[7] = {-1, 1, 1, 0, -1, -r, -1},
               g0[7] = {1e-5, 0, 0.01, 0.01, 0.01, 0.01 / r, 0.002};
  CHECK_INT(o.n, 7);
  for (int i = 0; i < o.n && i < 7; i++) {
    CHECK_NEAR(o.c[i].n[2], z0[i], 1e-15);
    CHECK_NEAR(o.c[i].gap, g0[i], 1e-15);
  }
  /* remembered, and x_prev's side in an at_start pass where the vertex crossed */
  p.sides = sides, p.nsides = 5, p.at_start = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  const double z1[7] = {1, -1, 1, 0, 1, -r, 1},
               g1[7] = {-1e-5, 0, 0.01, 0.01, -0.01, 0.01 / r, -0.002};
  CHECK_INT(o.n, 7);
  for (int i = 0; i < o.n && i < 7; i++) {
    CHECK_NEAR(o.c[i].n[2], z1[i], 1e-15);
    CHECK_NEAR(o.c[i].gap, g1[i], 1e-15);
  }
  CHECK(o.n == 7 && o.c[3].n[1] == -1); /* the edge contact as found */
  check_inside_only(&s, &p, 3);          /* 0, 4 and 6: behind their side */
  /* an entry names its mesh: another source or kind (or none before the vertex) is no memory;
     vertex 0 then crossed from x_prev's side, 1 stays on the front */
  sides[0].source = 1;
  sides[1].v = 2, sides[1].source = -1;
  sides[4].kind = SIM_CONTACT_BODY; /* vertex 6 now turned by x_prev alone: no crossing */
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK(o.n == 7 && o.c[0].n[2] == 1 && o.c[1].n[2] == 1 && o.c[2].n[2] == 1 &&
        o.c[6].n[2] == -1);
  /* the remembered normal turns with a scripted mesh's step map (Q: 90 degrees about x,
     y -> z) */
  sim_detect_view v = {0};
  const sim_detect_side e = {7, M, 2, 1, {-1, -1, -1}, {0, 1, 0}, {0, 0, 0}};
  v.sides = &e, v.nsides = 1;
  sim_detect_step st = {1, {1, 0, 0, 0, 0, -1, 0, 1, 0}, {5, 5, 5}};
  double nm[3];
  int behind = 0;
  const double *rn = sim_detect_side_of(&v, 7, M, 2, &st, nm, &behind);
  CHECK(rn == nm && fabs(nm[0]) + fabs(nm[1]) + fabs(nm[2] - 1) < 1e-15 && behind == 1);
  CHECK(sim_detect_side_of(&v, 7, M, 1, &st, nm, &behind) == NULL &&
        sim_detect_side_of(&v, 6, M, 2, &st, nm, &behind) == NULL &&
        sim_detect_side_of(&v, 7, SIM_CONTACT_BODY, 2, &st, nm, &behind) == NULL);
  st.on = 0;
  CHECK(sim_detect_side_of(&v, 7, M, 2, &st, nm, &behind) == e.n &&
        sim_detect_side_of(&v, 7, M, 2, NULL, nm, &behind) == e.n);
  /* the crossing test: through the face, beside it, resting in its plane, short of it */
  const sim_detect_mesh_view *mv = NULL;
  sim_detect d;
  sim_status sst = {0};
  CHECK_INT(sim_detect_init(&d, &s, &sst), SIM_OK);
  CHECK_INT(sim_detect_run(&d, &s, &p, &o, &sst), SIM_OK);
  mv = &d.mesh_view[0];
  const double a0[3] = {0.2, 0.2, 0.1}, e0[3] = {0.2, 0.2, -0.1}, e1[3] = {0.2, 0.2, 0.001};
  const double a2[3] = {0.6, 0.6, 0.1}, e2[3] = {0.6, 0.6, -0.1}; /* beside the hypotenuse */
  const double a3[3] = {0.1, 0.1, 0}, e3[3] = {0.3, 0.2, 0};
  double from[3] = {9, 9, 9};
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, a0, e0, from) == 1);
  CHECK(from[0] == 0 && from[1] == 0 && fabs(from[2] - 1) < 1e-15); /* came from the front */
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, e0, a0, from) == 1 && fabs(from[2] + 1) < 1e-15);
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, a0, e1, NULL) == 0);
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, a2, e2, NULL) == 0);
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, a3, e3, from) == 1);
  CHECK(from[0] == 0 && from[1] == 0 && from[2] == 0); /* in the plane: no side told */
  CHECK(sim_detect_mesh_crossed(&mv->bvh, bx, a3, a3, NULL) == 1);
  /* not sorted by (vertex, mesh): refused */
  sides[0].source = 0, sides[1].v = 1, sides[1].source = 0, sides[4].kind = M;
  sides[2].v = 0;
  CHECK_INT(sim_detect_run(&d, &s, &p, &o, &sst), SIM_ERR_INTERNAL);
  sim_detect_free(&d);
  sim_detect_contacts_free(&o);
}

/* A cloth as another body's target (sim_detect_body.open): unsigned, turned to the side the
   vertex came from; with a side remembered, that side where the vertex rests on or crossed the
   same part of the cloth, or was behind already (detect_body.h). Body 0: six loose vertices;
   body 1, the cloth: a unit square at z = 0 (vertices 6-9) and a second layer at z = 0.04 over
   x >= 0.5 (10-13), its layers beyond the margin of each other (self-collision is on: no
   contact of its own; test_cloth_self below has those). */
static void test_open_body(void) {
  const double x[14][3] = {
      {0.2, 0.2, -0.005}, {0.2, 0.3, 0.01}, {0.3, 0.2, -2e-6}, {0.7, 0.5, 0.035},
      {0.3, 0.6, -0.01},  {0.2, 0.8, -0.005}, {0, 0, 0},        {1, 0, 0},
      {1, 1, 0},          {0, 1, 0},          {0.5, 0, 0.04},   {1, 0, 0.04},
      {1, 1, 0.04},       {0.5, 1, 0.04}};
  double xp[14][3];
  memcpy(xp, x, sizeof xp);
  /* 0: from 2 cm above through the cloth (no entry); 1: above, from above; 2: resting 2 um
     below, from 1 um below, remembered above; 3: between the layers, 5 mm under the upper,
     remembered above the lower; 4: 1 cm below, remembered above and behind already; 5: 5 mm
     below, from 2 cm below (came round), remembered above */
  xp[0][2] = 0.02, xp[1][2] = 0.02, xp[2][2] = -1e-6, xp[3][2] = 0.03, xp[5][2] = -0.02;
  const int tri[12] = {6, 7, 8, 6, 8, 9, 10, 11, 12, 10, 12, 13};
  sim_detect_body b[2] = {{0, 6, 0, NULL, 0.5, 0, NULL, 0}, {6, 8, 4, tri, 0.5, 1, NULL, 0}};
  sim_detect_scene s = {14, &x[0][0], &xp[0][0], NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.03, p.self_collision = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  const double z0[6] = {1, 1, -1, -1, -1, -1}, g0[6] = {-0.005, 0.01, 2e-6, 0.005, 0.01, 0.005};
  CHECK_INT(o.n, 6); /* none for the cloth's own vertices */
  for (int i = 0; i < o.n && i < 6; i++) {
    CHECK(o.c[i].v == i && o.c[i].kind == SIM_CONTACT_BODY && o.c[i].source == 1);
    CHECK_NEAR(o.c[i].n[2], z0[i], 1e-15);
    CHECK_NEAR(o.c[i].gap, g0[i], 1e-15);
  }
  const int B = SIM_CONTACT_BODY;
  const sim_detect_side sides[4] = {{2, B, 1, 0, {6, 7, 8}, {0, 0, 1}, {0, 0, 0}},
                                    {3, B, 1, 0, {6, 7, 8}, {0, 0, 1}, {0, 0, 0}},
                                    {4, B, 1, 1, {10, 11, 12}, {0, 0, 1}, {0, 0, 0}},
                                    {5, B, 1, 0, {6, 8, 9}, {0, 0, 1}, {0, 0, 0}}};
  p.sides = sides, p.nsides = 4;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  const double z1[6] = {1, 1, 1, -1, 1, -1}, g1[6] = {-0.005, 0.01, -2e-6, 0.005, -0.01, 0.005};
  CHECK_INT(o.n, 6);
  for (int i = 0; i < o.n && i < 6; i++) {
    CHECK_NEAR(o.c[i].n[2], z1[i], 1e-15);
    CHECK_NEAR(o.c[i].gap, g1[i], 1e-15);
  }
  check_inside_only(&s, &p, 3); /* 0, 2 and 4 */
  sim_detect_contacts_free(&o);
}

/* A cloth against itself (self_collision, detect.h): a strip of 9 x 3 vertices 0.1 apart,
   folded at its middle column, the half beyond it laid 3 cm above the other, mirrored. Every
   vertex off the fold touches the other layer straight above or below it (gap 0.03, n = +-y;
   those beside the fold its sloping triangles, a little nearer); the fold's own column
   touches nothing (the layers' triangles are its ring or beyond the margin). Flat, with a
   margin above the distance from a vertex to its ring's far edges (0.0707), each vertex found
   its neighbours' triangles in the cloth's plane where only its ring was skipped; rest
   positions skip them (rest_gap). */
static void test_cloth_self(void) {
  enum { NX = 9, NZ = 3, NV = NX * NZ, NT = 2 * (NX - 1) * (NZ - 1) };
  double rest[3 * NV], x[3 * NV];
  int tri[3 * NT], t = 0;
  for (int j = 0; j < NZ; j++)
    for (int i = 0; i < NX; i++) {
      double *r = rest + 3 * (i + NX * j), *p = x + 3 * (i + NX * j);
      r[0] = 0.1 * i, r[1] = 0, r[2] = 0.1 * j;
      p[0] = i <= 4 ? r[0] : 0.8 - r[0], p[1] = i < 4 ? 0 : i == 4 ? 0.015 : 0.03, p[2] = r[2];
    }
  for (int j = 0; j + 1 < NZ; j++)
    for (int i = 0; i + 1 < NX; i++) {
      const int a = i + NX * j, b = a + 1, c = a + NX + 1, d = a + NX;
      const int q[6] = {a, b, c, a, c, d};
      for (int k = 0; k < 6; k++) tri[t++] = q[k];
    }
  sim_detect_body b = {0, NV, NT, tri, 0.5, 1, rest, 0.08};
  sim_detect_scene s = {NV, x, NULL, NULL, 0, 0, 1, NULL, NULL, &b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.04, p.self_collision = 1;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.n, NV - NZ);
  int bad = 0;
  for (int i = 0; i < o.n; i++) {
    const sim_contact *c = &o.c[i];
    const int col = c->v % NX, up = col > 4, beside = col == 3 || col == 5;
    bad += col == 4 || c->kind != SIM_CONTACT_BODY || c->source != 0;
    if (beside) /* the fold's sloping triangles, a little nearer than the layer's 3 cm */
      bad += !(c->gap > 0.029 && c->gap < 0.03) || !(c->n[1] * (up ? 1 : -1) > 0.98);
    else
      bad += fabs(c->gap - 0.03) > 1e-15 || fabs(c->n[1] - (up ? 1 : -1)) > 1e-15;
    for (int k = 0; k < 3; k++) /* the other layer's, or the fold's */
      bad += up ? c->tri[k] % NX > 4 : c->tri[k] % NX < 4;
  }
  check_report(bad == 0, __FILE__, __LINE__, "%d cloth self-contact fields wrong", bad);
  p.self_collision = 0; /* off: none */
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.n, 0);
  /* flat, margin 0.08: the ring's far edges within it; skipped at rest within 0.16 */
  p.self_collision = 1, p.margin = 0.08;
  CHECK_INT(detect(&(sim_detect_scene){NV, rest, NULL, NULL, 0, 0, 1, NULL, NULL, &b}, &p, &o),
            SIM_OK);
  CHECK_INT(o.n, 0);
  b.rest = NULL;
  CHECK_INT(detect(&(sim_detect_scene){NV, rest, NULL, NULL, 0, 0, 1, NULL, NULL, &b}, &p, &o),
            SIM_OK);
  printf("flat cloth, margin 0.08, its ring alone skipped: %d self-contacts of %d vertices\n", o.n,
         NV);
  CHECK(o.n >= NV / 2);
  sim_detect_contacts_free(&o);
}

/* ---------------- deformable bodies ---------------- */

static void test_bodies(void) {
  /* body 0: cube [0,1]^3 (vertices 0-7) and an inner vertex 8 near its top; body 1: a cube
     [0.2,0.8]^2 x [0.99,1.59] (vertices 9-16) sinking 0.01 into body 0, and a vertex 17 of it
     hovering 0.01 above body 0's x = 1 face */
  enum { NV = 18 };
  double x[3 * NV];
  int t0[36], t1[36];
  make_cube((const double[3]){0, 0, 0}, (const double[3]){1, 1, 1}, 0, x, t0);
  make_cube((const double[3]){0.2, 0.2, 0.99}, (const double[3]){0.8, 0.8, 1.59}, 9, x + 27, t1);
  x[24] = 0.1, x[25] = 0.5, x[26] = 0.995;
  x[51] = 1.01, x[52] = 0.4, x[53] = 0.3;
  sim_detect_body b[2] = {{0, 9, 12, t0, 0.4, 0, NULL, 0}, {9, 9, 12, t1, 0.9, 0, NULL, 0}};
  sim_detect_scene s = {NV, x, NULL, NULL, 0, 0, 2, NULL, NULL, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.02;
  sim_detect_contacts o = {0};
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  check_common(&o);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 5); /* body 1's 4 bottom corners and vertex 17 */
  int bad = 0;
  for (int i = 0; i < o.n; i++) {
    const sim_contact *c = &o.c[i];
    double bp[3] = {0, 0, 0}, ws = 0;
    for (int k = 0; k < 3; k++) {
      ws += c->w[k];
      bad += c->w[k] < 0 || c->tri[k] < 0 || c->tri[k] > 8 || c->u[k] != 0;
      for (int j = 0; j < 3; j++) bp[j] += c->w[k] * x[3 * c->tri[k] + j];
    }
    bad += c->source != 0 || fabs(ws - 1) > 1e-15 || dist3(bp, c->p) > 1e-15;
    bad += fabs(c->mu - sqrt(0.4 * 0.9)) > 1e-15;
    if (c->v == 17)
      bad += fabs(c->gap - 0.01) > 1e-14 || fabs(c->n[0] - 1) > 1e-14;
    else
      bad += c->v < 9 || c->v > 16 || (c->v - 9) >> 2 != 0 || fabs(c->gap + 0.01) > 1e-14 ||
             fabs(c->n[2] - 1) > 1e-14 || fabs(c->p[2] - 1) > 1e-15;
  }
  check_report(bad == 0, __FILE__, __LINE__, "%d body contact fields wrong", bad);
  check_inside_only(&s, &p, 4); /* the 4 sunk corners, not vertex 17 */
  /* self-collision: vertex 8 touches its own body's top face; corners stay clear */
  p.self_collision = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 6);
  check_inside_only(&s, &p, 5);
  const sim_contact *c = find(&o, 8, SIM_CONTACT_BODY, 0);
  CHECK(c && fabs(c->gap + 0.005) < 1e-14 && fabs(c->n[2] - 1) < 1e-14 && c->tri[0] >= 0);
  /* self-collision alone (contact.bodies off): vertex 8's, none with the other body */
  p.no_others = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 1);
  CHECK(o.n >= 1 && find(&o, 8, SIM_CONTACT_BODY, 0) != NULL);
  p.no_others = 0;
  /* pinned vertices keep their contacts with the bodies' triangles (those move), the same */
  unsigned char pin[NV] = {0};
  pin[9] = pin[17] = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 6);
  s.pinned = pin;
  sim_detect_contacts o2 = {0};
  CHECK_INT(detect(&s, &p, &o2), SIM_OK);
  CHECK_INT(o2.n, o.n);
  CHECK(o2.n == o.n && memcmp(o.c, o2.c, sizeof(sim_contact) * (size_t)o.n) == 0);
  sim_detect_contacts_free(&o2);
  /* but not against triangles of pinned vertices alone: body 0 pinned, its inner vertex 8
     too; body 1's free corners 10-12 keep theirs */
  for (int v = 0; v <= 8; v++) pin[v] = 1;
  CHECK_INT(detect(&s, &p, &o), SIM_OK);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 3);
  CHECK(!find(&o, 9, SIM_CONTACT_BODY, 0) && !find(&o, 17, SIM_CONTACT_BODY, 0) &&
        !find(&o, 8, SIM_CONTACT_BODY, 0) && find(&o, 10, SIM_CONTACT_BODY, 0));
  /* overlapping bodies and out-of-body triangles are rejected; so is a negative margin */
  b[1].v0 = 8;
  CHECK_INT(detect(&s, &p, &o), SIM_ERR_MESH);
  b[1].v0 = 9, t1[5] = 3;
  CHECK_INT(detect(&s, &p, &o), SIM_ERR_MESH);
  make_cube((const double[3]){0.2, 0.2, 0.99}, (const double[3]){0.8, 0.8, 1.59}, 9, x + 27, t1);
  p.margin = -1;
  CHECK_INT(detect(&s, &p, &o), SIM_ERR_SCENE);
  CHECK_INT(o.n, 0);
  sim_detect_contacts_free(&o);
}

/* ---------------- determinism ---------------- */

static void test_threads(void) {
  enum { G = 30, NV = G * G * G + 8 };
  double *x = SIM_NEW(double, 3 * NV);
  unsigned long long sd = 3;
  for (int v = 0; v < G * G * G; v++) {
    x[3 * v] = -1.2 + 2.4 * (v % G) / (G - 1) + 0.01 * rnd(&sd);
    x[3 * v + 1] = -0.1 + 1.4 * ((v / G) % G) / (G - 1) + 0.01 * rnd(&sd);
    x[3 * v + 2] = -1.2 + 2.4 * (v / (G * G)) / (G - 1) + 0.01 * rnd(&sd);
  }
  int bt[36];
  make_cube((const double[3]){-0.3, 0.3, -0.3}, (const double[3]){0.3, 0.9, 0.3}, G * G * G,
            x + 3 * G * G * G, bt);
  sim_surface sf;
  sim_status st = {0};
  CHECK_INT(sim_gen_icosphere(0.4, 2, &sf, &st), SIM_OK);
  for (int v = 0; v < sf.nv; v++) sf.x[3 * v] += 0.6, sf.x[3 * v + 1] += 0.5;
  sim_detect_obstacle ob[2] = {sim_default_detect_obstacle(SIM_OBS_PLANE),
                               sim_default_detect_obstacle(SIM_OBS_CYLINDER)};
  ob[1].shape.frame.pos[0] = -0.6, ob[1].shape.omega = 3;
  sim_detect_mesh m = sim_default_detect_mesh();
  m.nv = sf.nv, m.nt = sf.nt, m.x = sf.x, m.tri = sf.tri;
  sim_detect_body b[2] = {{0, G * G * G, 0, NULL, 0.5, 0, NULL, 0},
                          {G * G * G, 8, 12, bt, 0.5, 0, NULL, 0}};
  sim_detect_scene s = {NV, x, NULL, NULL, 2, 1, 2, ob, &m, b};
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.03;
  sim_detect_contacts o1 = {0}, o4 = {0};
  omp_set_num_threads(1);
  CHECK_INT(detect(&s, &p, &o1), SIM_OK);
  omp_set_num_threads(4);
  CHECK_INT(detect(&s, &p, &o4), SIM_OK);
  check_common(&o4);
  CHECK(o1.count[0] > 100 && o1.count[1] > 100 && o1.count[2] > 20);
  CHECK(o1.n == o4.n && memcmp(o1.c, o4.c, sizeof(sim_contact) * (size_t)o1.n) == 0);
  /* a reused detector and output give the same again */
  sim_detect d;
  CHECK_INT(sim_detect_init(&d, &s, &st), SIM_OK);
  for (int r = 0; r < 2; r++) {
    omp_set_num_threads(r ? 3 : 2);
    CHECK_INT(sim_detect_run(&d, &s, &p, &o4, &st), SIM_OK);
    CHECK(o1.n == o4.n && memcmp(o1.c, o4.c, sizeof(sim_contact) * (size_t)o1.n) == 0);
  }
  sim_detect_free(&d);
  sim_detect_contacts_free(&o1);
  sim_detect_contacts_free(&o4);
  sim_surface_free(&sf);
  sim_free(x);
}

int main(void) {
  test_grid_plane_sphere();
  test_spinning_cylinder();
  test_cube_mesh();
  test_step_map();
  test_thin_slab();
  test_thin_body();
  test_star_mesh();
  test_blade();
  test_blade_sides();
  test_open_body();
  test_cloth_self();
  test_bodies();
  test_threads();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_detect");
}

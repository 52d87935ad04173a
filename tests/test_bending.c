/* SPDX-License-Identifier: MIT */
/* Bending stencils: zero on flat sheets, cylinder energies against the continuum, gradient
   by finite differences, stencil identities, counts and append, bad meshes. */
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "mesh/mesh.h"
#include "model/bending.h"

static const sim_bending_kind kKinds[2] = {SIM_BEND_ISOMETRIC, SIM_BEND_LAPLACE_BELTRAMI};
static const char *const kKindName[2] = {"isometric", "laplace-beltrami"};

static double rnd(unsigned long long *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static sim_surface cloth(double size, int k) {
  sim_surface s;
  sim_status st;
  sim_status_clear(&st);
  int rc = sim_gen_cloth(size, k * k, &s, &st);
  check_report(rc == SIM_OK && s.nv == k * k, __FILE__, __LINE__, "cloth k=%d: %s", k, st.msg);
  return s;
}

static sim_bending build(sim_bending_kind kind, double stiff, const sim_surface *s, const double *x,
                         int off) {
  sim_bending b;
  sim_status st;
  sim_status_clear(&st);
  int rc =
      sim_bending_build(kind, stiff, s->nv, x ? x : s->x, s->nt, s->tri, off, "sheet", &b, &st);
  check_report(rc == SIM_OK, __FILE__, __LINE__, "build: %s", st.msg);
  return b;
}

/* y = R x + t for every vertex; R is a rotation about a tilted axis. */
static void rigid(const double *x, int nv, double *y) {
  double ax[3] = {0.3, -0.5, 0.8}, n = sim_norm3(ax), th = 0.9;
  for (int d = 0; d < 3; d++) ax[d] /= n;
  const double c = cos(th), s = sin(th), t[3] = {1.5, -2.0, 0.7};
  double R[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j ? c : 0) + (1 - c) * ax[i] * ax[j];
  R[1] -= s * ax[2], R[2] += s * ax[1], R[3] += s * ax[2];
  R[5] -= s * ax[0], R[6] -= s * ax[1], R[7] += s * ax[0];
  for (int v = 0; v < nv; v++)
    for (int i = 0; i < 3; i++)
      y[3 * v + i] =
          R[3 * i] * x[3 * v] + R[3 * i + 1] * x[3 * v + 1] + R[3 * i + 2] * x[3 * v + 2] + t[i];
}

/* The cloth (x-z plane, side `size`, centred) rolled onto a cylinder of radius r about the
   z axis: u = x + size/2 -> (r sin(u/r), r (1 - cos(u/r)), z), an isometry of the sheet. */
static void roll(const double *x, int nv, double size, double r, double *y) {
  for (int v = 0; v < nv; v++) {
    const double u = x[3 * v] + 0.5 * size;
    y[3 * v] = r * sin(u / r);
    y[3 * v + 1] = r * (1 - cos(u / r));
    y[3 * v + 2] = x[3 * v + 2];
  }
}

static double max_abs(const double *g, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(g[i]));
  return m;
}

/* Flat rest grids: E = 0 and gradient 0 at rest and after a rigid motion. */
static void test_flat_zero(void) {
  sim_surface s = cloth(1.0, 20);
  double *y = SIM_NEW(double, 3 * s.nv), *g = SIM_NEW0(double, 3 * s.nv);
  rigid(s.x, s.nv, y);
  for (int m = 0; m < 2; m++) {
    sim_bending b = build(kKinds[m], 1.0, &s, NULL, 0);
    CHECK(b.nst > 0);
    const double E0 = sim_bending_energy(&b, s.x), E1 = sim_bending_energy(&b, y);
    check_report(E0 <= 1e-20 && E1 <= 1e-20, __FILE__, __LINE__, "%s: flat E %g, moved %g",
                 kKindName[m], E0, E1);
    memset(g, 0, sizeof(double) * 3 * s.nv);
    sim_bending_gradient(&b, y, g);
    const double gm = max_abs(g, 3 * s.nv);
    check_report(gm <= 1e-9, __FILE__, __LINE__, "%s: flat |grad| %g", kKindName[m], gm);
    if (kKinds[m] == SIM_BEND_LAPLACE_BELTRAMI) {
      int nz = 0;
      for (int t = 0; t < b.nst; t++) nz += b.rest[t] != 0;
      CHECK_INT(nz, 0); /* flat 1-rings snap to r_s = 0 */
    }
    sim_bending_free(&b);
  }
  sim_free(y);
  sim_free(g);
  sim_surface_free(&s);
}

/* Cylinder of radius r from a fine square sheet of side a (grid spacing d):
   Laplace-Beltrami: interior vertex i has A_i = d^2, |L_i q| = 2 r (1 - cos(d/r)) / d^2 ->
   1/r, so E = k/2 sum_i A_i / r^2 (the continuum over the interior region [d/2, a-d/2]^2).
   Isometric: every grid square stays planar, so only the (k-2)(k-1) interior edges parallel
   to the axis bend (theta = d/r); with the rest (right-isosceles) cotangents K q is minus the
   sum of the two chords across the edge, |K q| = 4 r sin^2(d/2r) = d^2/r (1 + O(d^2/r^2)),
   each storing (3k/(2 d^2)) |K q|^2 -> 3k/2 d^2/r^2, so E -> 3 * k/2 * area / r^2. */
static void test_cylinder(void) {
  const int k = 101;
  const double a = 1.0, r = 0.4, stiff = 2e-3, d = a / (k - 1);
  sim_surface s = cloth(a, k);
  double *y = SIM_NEW(double, 3 * s.nv), *z = SIM_NEW(double, 3 * s.nv);
  roll(s.x, s.nv, a, r, y);

  sim_bending lb = build(SIM_BEND_LAPLACE_BELTRAMI, stiff, &s, NULL, 0);
  double area = 0;
  for (int t = 0; t < lb.nst; t++) area += lb.k[t] / stiff;
  CHECK_NEAR(area, (a - d) * (a - d), 1e-9);
  const double E_lb = sim_bending_energy(&lb, y), lb_cont = 0.5 * stiff * area / (r * r);
  printf("cylinder r=%g d=%g: laplace-beltrami E=%.6e continuum(interior)=%.6e ratio %.5f\n", r, d,
         E_lb, lb_cont, E_lb / lb_cont);
  CHECK_NEAR(E_lb / lb_cont, 1.0, 0.01);
  CHECK_NEAR(E_lb / (0.5 * stiff * a * a / (r * r)), 1.0, 0.03); /* whole sheet */
  const double c = 2 * r * (1 - cos(d / r)) / (d * d);
  CHECK_NEAR(E_lb, 0.5 * stiff * area * c * c, 1e-9 * E_lb);
  sim_bending_free(&lb);

  sim_bending iso = build(SIM_BEND_ISOMETRIC, stiff, &s, NULL, 0);
  const double E_iso = sim_bending_energy(&iso, y);
  const double sn = 4 * r * sin(d / (2 * r)) * sin(d / (2 * r));
  const double iso_exact = (k - 2) * (k - 1) * 0.5 * (3 * stiff / (d * d)) * sn * sn;
  const double iso_cont = 3 * 0.5 * stiff * a * a / (r * r);
  printf("cylinder: isometric E=%.6e 3*continuum=%.6e ratio %.5f (exact grid value %.6e)\n", E_iso,
         iso_cont, E_iso / iso_cont, iso_exact);
  CHECK_NEAR(E_iso, iso_exact, 1e-9 * iso_exact);
  CHECK_NEAR(E_iso / iso_cont, 1.0, 0.02);
  sim_bending_free(&iso);

  /* the cylinder as the rest state: Laplace-Beltrami stores r_s ~ 1/r and is 0 there and
     after a rigid motion; isometric measures it against flat (the same energy as above) */
  lb = build(SIM_BEND_LAPLACE_BELTRAMI, stiff, &s, y, 0);
  double rmin = INFINITY, rmax = 0;
  for (int t = 0; t < lb.nst; t++) rmin = fmin(rmin, lb.rest[t]), rmax = fmax(rmax, lb.rest[t]);
  CHECK(rmin > 0.99 / r && rmax < 1.01 / r);
  rigid(y, s.nv, z);
  const double E_r0 = sim_bending_energy(&lb, y), E_r1 = sim_bending_energy(&lb, z);
  check_report(E_r0 <= 1e-12 * E_lb && E_r1 <= 1e-12 * E_lb, __FILE__, __LINE__,
               "curved rest: E %g, moved %g", E_r0, E_r1);
  sim_bending_free(&lb);
  iso = build(SIM_BEND_ISOMETRIC, stiff, &s, y, 0);
  CHECK_NEAR(sim_bending_energy(&iso, z) / iso_exact, 1.0, 1e-3);
  sim_bending_free(&iso);
  sim_free(y);
  sim_free(z);
  sim_surface_free(&s);
}

/* Central differences of the energy against the gradient on a perturbed curved sheet
   (irregular rest: jittered grid rolled onto a cylinder, so r_s > 0 and some triangles are
   obtuse). */
static void test_gradient_fd(void) {
  const int k = 7;
  const double a = 1.0, r = 0.5;
  sim_surface s = cloth(a, k);
  unsigned long long seed = 12345;
  const int n3 = 3 * s.nv;
  double *x = SIM_NEW(double, n3), *q = SIM_NEW(double, n3), *g = SIM_NEW(double, n3);
  for (int v = 0; v < s.nv; v++) {
    s.x[3 * v] += 0.25 * a / (k - 1) * rnd(&seed);
    s.x[3 * v + 2] += 0.25 * a / (k - 1) * rnd(&seed);
  }
  roll(s.x, s.nv, a, r, x);
  for (int i = 0; i < n3; i++) q[i] = x[i] + 0.03 * rnd(&seed);
  for (int m = 0; m < 2; m++) {
    sim_bending b = build(kKinds[m], 0.7, &s, x, 0);
    memset(g, 0, sizeof(double) * n3);
    sim_bending_gradient(&b, q, g);
    const double gm = max_abs(g, n3), h = 1e-6;
    double err = 0;
    for (int i = 0; i < n3; i++) {
      const double q0 = q[i];
      q[i] = q0 + h;
      const double Ep = sim_bending_energy(&b, q);
      q[i] = q0 - h;
      const double Em = sim_bending_energy(&b, q);
      q[i] = q0;
      err = fmax(err, fabs((Ep - Em) / (2 * h) - g[i]));
    }
    printf("fd %s: max |grad| %.4e, max error %.3e\n", kKindName[m], gm, err);
    CHECK(gm > 1e-3);
    check_report(err <= 1e-6 * gm, __FILE__, __LINE__, "%s: fd error %g vs |grad| %g", kKindName[m],
                 err, gm);
    sim_bending_free(&b);
  }
  sim_free(x);
  sim_free(q);
  sim_free(g);
  sim_surface_free(&s);
}

/* Isometric K sums to 0 and L_s x = 0 for a flat rest and every affine image of it;
   Laplace-Beltrami rows sum to 0 and vanish on a flat irregular sheet. */
static void test_stencils(void) {
  const int k = 9;
  sim_surface s = cloth(1.0, k);
  unsigned long long seed = 777;
  const int n3 = 3 * s.nv;
  double *x = SIM_NEW(double, n3), *y = SIM_NEW(double, n3);
  /* jittered flat sheet in a tilted plane (a rigid motion of the jittered x-z sheet) */
  for (int v = 0; v < s.nv; v++) {
    s.x[3 * v] += 0.3 / (k - 1) * rnd(&seed);
    s.x[3 * v + 2] += 0.3 / (k - 1) * rnd(&seed);
  }
  rigid(s.x, s.nv, x);
  /* an affine image: y = B x + c with a general (even singular-free) B */
  const double B[9] = {1.3, 0.2, -0.4, 0.1, 0.8, 0.5, -0.3, 0.6, 1.1}, cc[3] = {3, -1, 2};
  for (int v = 0; v < s.nv; v++)
    for (int i = 0; i < 3; i++)
      y[3 * v + i] =
          B[3 * i] * x[3 * v] + B[3 * i + 1] * x[3 * v + 1] + B[3 * i + 2] * x[3 * v + 2] + cc[i];
  for (int m = 0; m < 2; m++) {
    sim_bending b = build(kKinds[m], 1.0, &s, x, 0);
    double sum_err = 0, lx = 0, ly = 0, cmax = 0;
    for (int t = 0; t < b.nst; t++) {
      double sum = 0, L[3];
      for (int e = b.ptr[t]; e < b.ptr[t + 1]; e++) {
        sum += b.coef[e];
        cmax = fmax(cmax, fabs(b.coef[e]));
      }
      sum_err = fmax(sum_err, fabs(sum));
      sim_bending_apply(&b, t, x, L);
      lx = fmax(lx, sim_norm3(L));
      sim_bending_apply(&b, t, y, L);
      ly = fmax(ly, sim_norm3(L));
      if (kKinds[m] == SIM_BEND_ISOMETRIC) {
        CHECK_INT(b.ptr[t + 1] - b.ptr[t], 4);
        CHECK(b.rest[t] < 0);
      } else {
        CHECK(b.rest[t] == 0);
        CHECK(b.coef[b.ptr[t]] < 0); /* the diagonal comes first */
      }
    }
    check_report(sum_err <= 1e-12 * cmax && lx <= 1e-11 * cmax && ly <= 1e-11 * cmax, __FILE__,
                 __LINE__, "%s: max |sum c| %g, |L x| %g, |L (Bx+c)| %g (max |c| %g)", kKindName[m],
                 sum_err, lx, ly, cmax);
    sim_bending_free(&b);
  }
  sim_free(x);
  sim_free(y);
  sim_surface_free(&s);
}

/* Stencil counts on grids and a closed surface; append concatenates and keeps offsets. */
static void test_counts_append(void) {
  const int ks[3] = {2, 5, 20};
  for (int i = 0; i < 3; i++) {
    sim_surface s = cloth(1.0, ks[i]);
    const int kk = ks[i];
    sim_bending iso = build(SIM_BEND_ISOMETRIC, 1.0, &s, NULL, 0);
    sim_bending lb = build(SIM_BEND_LAPLACE_BELTRAMI, 1.0, &s, NULL, 0);
    sim_bending no = build(SIM_BEND_NONE, 1.0, &s, NULL, 0);
    CHECK_INT(iso.nst, (kk - 1) * (3 * kk - 5)); /* all edges minus 4 (k-1) boundary ones */
    CHECK_INT(lb.nst, (kk - 2) * (kk - 2));      /* interior vertices */
    CHECK_INT(no.nst, 0);
    sim_bending_free(&iso);
    sim_bending_free(&lb);
    sim_bending_free(&no);
    sim_surface_free(&s);
  }
  sim_surface ico;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_gen_icosphere(0.5, 3, &ico, &st), SIM_OK);
  sim_bending iso = build(SIM_BEND_ISOMETRIC, 1.0, &ico, NULL, 0);
  sim_bending lb = build(SIM_BEND_LAPLACE_BELTRAMI, 1.0, &ico, NULL, 0);
  CHECK_INT(iso.nst, 3 * ico.nt / 2);
  CHECK_INT(lb.nst, ico.nv);
  double rmin = INFINITY, rmax = 0; /* |2H| = 2/R on a sphere */
  for (int t = 0; t < lb.nst; t++) rmin = fmin(rmin, lb.rest[t]), rmax = fmax(rmax, lb.rest[t]);
  check_report(rmin > 0.95 * 4 && rmax < 1.05 * 4, __FILE__, __LINE__,
               "sphere r_s in [%g, %g], expected ~4", rmin, rmax);
  CHECK(sim_bending_energy(&lb, ico.x) <= 1e-20);
  sim_bending_free(&iso);
  sim_bending_free(&lb);

  /* two sheets side by side in one vertex array: [sheet A (25) | sphere (nv) | sheet B (16)] */
  sim_surface A = cloth(1.0, 5), Bs = cloth(0.5, 4);
  const int offB = A.nv + ico.nv, n = offB + Bs.nv;
  double *q = SIM_NEW(double, 3 * n), *qa = SIM_NEW(double, 3 * A.nv);
  double *qb = SIM_NEW(double, 3 * Bs.nv);
  unsigned long long seed = 99;
  for (int i = 0; i < 3 * n; i++) q[i] = rnd(&seed);
  memcpy(qa, q, sizeof(double) * 3 * A.nv);
  memcpy(qb, q + 3 * offB, sizeof(double) * 3 * Bs.nv);
  sim_bending all = {0};
  sim_bending a1 = build(SIM_BEND_ISOMETRIC, 2.0, &A, NULL, 0);
  sim_bending a0 = build(SIM_BEND_ISOMETRIC, 2.0, &A, NULL, 0);
  sim_bending b1 = build(SIM_BEND_LAPLACE_BELTRAMI, 3.0, &Bs, NULL, offB);
  sim_bending b0 = build(SIM_BEND_LAPLACE_BELTRAMI, 3.0, &Bs, NULL, 0);
  sim_bending none = build(SIM_BEND_NONE, 0.0, &Bs, NULL, offB);
  CHECK_INT(sim_bending_append(&all, &a1, &st), SIM_OK);
  CHECK_INT(sim_bending_append(&all, &none, &st), SIM_OK);
  CHECK_INT(sim_bending_append(&all, &b1, &st), SIM_OK);
  CHECK_INT(all.nst, a1.nst + b1.nst);
  CHECK_INT(all.ptr[all.nst], a1.ptr[a1.nst] + b1.ptr[b1.nst]);
  int bad = 0;
  for (int t = 0; t < b1.nst; t++) {
    const int s = a1.nst + t;
    bad += all.ptr[s + 1] - all.ptr[s] != b1.ptr[t + 1] - b1.ptr[t];
    bad += all.k[s] != b1.k[t] || all.rest[s] != b1.rest[t];
    for (int e = 0; e < b1.ptr[t + 1] - b1.ptr[t]; e++) {
      bad += all.vid[all.ptr[s] + e] != b0.vid[b1.ptr[t] + e] + offB;
      bad += all.coef[all.ptr[s] + e] != b1.coef[b1.ptr[t] + e];
    }
  }
  for (int e = 0; e < a1.ptr[a1.nst]; e++) bad += all.vid[e] != a1.vid[e];
  CHECK_INT(bad, 0);
  const double Eall = sim_bending_energy(&all, q);
  const double Esum = sim_bending_energy(&a0, qa) + sim_bending_energy(&b0, qb);
  CHECK(Esum > 0);
  CHECK_NEAR(Eall, Esum, 1e-12 * Esum);
  sim_bending_free(&all);
  sim_bending_free(&a1);
  sim_bending_free(&a0);
  sim_bending_free(&b1);
  sim_bending_free(&b0);
  sim_bending_free(&none);
  sim_free(q);
  sim_free(qa);
  sim_free(qb);
  sim_surface_free(&A);
  sim_surface_free(&Bs);
  sim_surface_free(&ico);
}

static void expect_fail(int nv, const double *x, int nt, const int *tri, double stiff, int code,
                        const char *want) {
  for (int m = 0; m < 2; m++) {
    sim_bending b;
    sim_status st;
    sim_status_clear(&st);
    const int rc = sim_bending_build(kKinds[m], stiff, nv, x, nt, tri, 10, "sheet", &b, &st);
    check_report(rc == code && st.code == code, __FILE__, __LINE__, "%s: rc %d for \"%s\"",
                 kKindName[m], rc, want);
    CHECK_STR_CONTAINS(st.msg, want);
    CHECK(strchr(st.msg, '\n') == NULL);
    CHECK(b.nst == 0 && b.ptr == NULL && b.vid == NULL);
    sim_bending_free(&b);
  }
}

static void test_bad_input(void) {
  /* a unit square (0 1 2 3) plus vertex 4 on the segment 0-2 and vertex 5 above edge 0-1 */
  const double x[6 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 0, 0.5, -0.5, 0.7};
  const int ok[2 * 3] = {0, 1, 2, 0, 2, 3};
  sim_bending b;
  sim_status st;
  sim_status_clear(&st);
  CHECK_INT(sim_bending_build(SIM_BEND_ISOMETRIC, 1, 6, x, 2, ok, 0, "sheet", &b, &st), SIM_OK);
  CHECK_INT(b.nst, 1);
  sim_bending_free(&b);

  const int degen[3 * 3] = {0, 1, 2, 0, 2, 3, 0, 4, 2};
  expect_fail(6, x, 3, degen, 1.0, SIM_ERR_MESH, "sheet: degenerate triangle 2 (vertices 0 4 2)");
  const int repeated[2 * 3] = {0, 1, 2, 3, 3, 0};
  expect_fail(6, x, 2, repeated, 1.0, SIM_ERR_MESH,
              "sheet: degenerate triangle 1 (vertices 3 3 0)");
  const int fin[3 * 3] = {0, 1, 2, 1, 0, 3, 0, 1, 5};
  expect_fail(6, x, 3, fin, 1.0, SIM_ERR_MESH,
              "sheet: non-manifold edge 0-1 shared by 3 triangles (0, 1, 2)");
  const int fin4[4 * 3] = {0, 1, 2, 1, 0, 3, 0, 1, 5, 4, 1, 0};
  expect_fail(6, x, 4, fin4, 1.0, SIM_ERR_MESH,
              "sheet: non-manifold edge 0-1 shared by 4 triangles (0, 1, 2, ...)");
  const int dup[2 * 3] = {0, 1, 2, 2, 1, 0};
  expect_fail(6, x, 2, dup, 1.0, SIM_ERR_MESH, "sheet: triangles 0 and 1 have the same vertices");
  const int range[1 * 3] = {0, 1, 6};
  expect_fail(6, x, 1, range, 1.0, SIM_ERR_MESH,
              "sheet: triangle 0 has vertex index 6 out of range (expected 0..5)");
  expect_fail(6, x, 2, ok, -1.0, SIM_ERR_SCENE, "sheet: bending stiffness must be finite");
}

int main(void) {
  test_flat_zero();
  test_cylinder();
  test_gradient_fd();
  test_stencils();
  test_counts_append();
  test_bad_input();
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_bending");
}

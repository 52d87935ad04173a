/* SPDX-License-Identifier: MIT */
/* Analytic obstacles (core/contact/sdf.h): distance, closest point, normal against brute force,
   finite differences and known values, in identity and random frames; spinning velocity;
   tangent bases. Each property is checked once per shape on its worst error. */
#include <stdlib.h>

#include "base/alloc.h"
#include "check.h"
#include "contact/sdf.h"

static double rnd(unsigned long long *s) { /* uniform in [-1, 1) */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* Worst errors over the whole run, printed at the end. */
static double w_res, w_dist, w_surf, w_recon, w_unit, w_fd, w_sphi, w_snrm, w_brute, w_known, w_vel,
    w_tan;
static void worst(double *w, double e) { *w = fmax(*w, e); }
static double dist3(const double a[3], const double b[3]) {
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sim_norm3(d);
}

static void to_world(const sim_obstacle *o, const double p[3], double x[3]) {
  const double *R = o->frame.rot;
  for (int i = 0; i < 3; i++)
    x[i] = R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2] + o->frame.pos[i];
}
static void dir_world(const sim_obstacle *o, const double v[3], double w[3]) {
  const double *R = o->frame.rot;
  for (int i = 0; i < 3; i++) w[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}
static void to_local(const sim_obstacle *o, const double x[3], double p[3]) {
  const double *R = o->frame.rot, *t = o->frame.pos;
  for (int j = 0; j < 3; j++)
    p[j] = R[j] * (x[0] - t[0]) + R[3 + j] * (x[1] - t[1]) + R[6 + j] * (x[2] - t[2]);
}

/* Random rotation (normalised quaternion) and position in [-3, 3]^3; identity when !on. */
static void random_frame(sim_obstacle *o, int on, unsigned long long *s) {
  double q[4] = {1, 0, 0, 0};
  if (on) {
    double l = 0;
    for (int i = 0; i < 4; i++) q[i] = rnd(s), l += q[i] * q[i];
    for (int i = 0; i < 4; i++) q[i] /= sqrt(l);
  }
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  for (int i = 0; i < 9; i++) o->frame.rot[i] = R[i];
  for (int i = 0; i < 3; i++) o->frame.pos[i] = on ? 3 * rnd(s) : 0.0;
}

enum { NSHAPE = 8 };
static const char *const kName[NSHAPE] = {"plane",   "box",      "cube",         "sphere",
                                          "capsule", "cylinder", "inf-cylinder", "torus"};
static sim_obstacle shape(int i) {
  static const sim_obstacle_kind k[NSHAPE] = {SIM_OBS_PLANE,    SIM_OBS_BOX,     SIM_OBS_BOX,
                                              SIM_OBS_SPHERE,   SIM_OBS_CAPSULE, SIM_OBS_CYLINDER,
                                              SIM_OBS_CYLINDER, SIM_OBS_TORUS};
  sim_obstacle o = sim_default_obstacle(k[i]);
  if (i == 1) o.half[0] = 0.3, o.half[1] = 0.7, o.half[2] = 1.1;
  if (i == 3) o.radius = 0.8;
  if (i == 4) o.radius = 0.4, o.half_height = 0.9;
  if (i == 5) o.radius = 0.6, o.half_height = 0.8;
  if (i == 6) o.radius = 0.5, o.half_height = 0.0;
  if (i == 7) o.radius = 0.3, o.major = 1.0;
  return o;
}

/* Independent inside test in the local frame. */
static int inside(const sim_obstacle *o, const double p[3]) {
  const double rho = sqrt(p[0] * p[0] + p[2] * p[2]), r = o->radius, H = o->half_height;
  switch (o->kind) {
    case SIM_OBS_PLANE:
      return p[1] < 0;
    case SIM_OBS_BOX:
      return fabs(p[0]) < o->half[0] && fabs(p[1]) < o->half[1] && fabs(p[2]) < o->half[2];
    case SIM_OBS_SPHERE:
      return sim_norm3(p) < r;
    case SIM_OBS_CAPSULE: {
      const double top[3] = {p[0], p[1] - H, p[2]}, bot[3] = {p[0], p[1] + H, p[2]};
      return (fabs(p[1]) <= H && rho < r) || sim_norm3(top) < r || sim_norm3(bot) < r;
    }
    case SIM_OBS_CYLINDER:
      return rho < r && (H <= 0 || fabs(p[1]) < H);
    case SIM_OBS_TORUS:
      return (rho - o->major) * (rho - o->major) + p[1] * p[1] < r * r;
    default:
      return 0;
  }
}

/* Distance (lower bound) from p to the set where phi is not C^2 (local frame). */
static double margin(const sim_obstacle *o, const double p[3], double phi) {
  const double rho = sqrt(p[0] * p[0] + p[2] * p[2]), r = o->radius, H = o->half_height;
  switch (o->kind) {
    case SIM_OBS_PLANE:
      return HUGE_VAL;
    case SIM_OBS_SPHERE:
      return sim_norm3(p);
    case SIM_OBS_BOX: { /* Voronoi region borders |q_i| = 0 and the medial set q_(1) = q_(2) */
      double q[3], m = HUGE_VAL;
      for (int i = 0; i < 3; i++) q[i] = fabs(p[i]) - o->half[i], m = fmin(m, fabs(q[i]));
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++) m = fmin(m, fabs(q[i] - q[j]));
      return m;
    }
    case SIM_OBS_CAPSULE:
      return fmin(fabs(phi + r), fabs(fabs(p[1]) - H));
    case SIM_OBS_CYLINDER: {
      if (H <= 0) return rho;
      const double dr = rho - r, dy = fabs(p[1]) - H;
      return fmin(fmin(fabs(phi), rho), fmin(fmin(fabs(dr), fabs(dy)), fabs(dr - dy)));
    }
    case SIM_OBS_TORUS:
      return fmin(rho, phi + r);
    default:
      return 0;
  }
}

/* Surface samples (local) on an m x m grid per patch, with the analytic normal where the
   surface is smooth (smooth = 0 on box edges and cylinder rims). Returns the count. */
typedef struct {
  double p[3], n[3];
  int smooth;
} sample;
static void put(sample *s, int *k, double x, double y, double z, double nx, double ny, double nz,
                int smooth) {
  sample *t = s + (*k)++;
  t->p[0] = x, t->p[1] = y, t->p[2] = z, t->n[0] = nx, t->n[1] = ny, t->n[2] = nz;
  t->smooth = smooth;
}
static int surface(const sim_obstacle *o, int m, sample *s) {
  int k = 0;
  const double r = o->radius, H = o->half_height, L = H > 0 ? H : 3.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      const double u = (double)i / (m - 1), v = (double)j / (m - 1), f = 2 * SIM_PI * j / m;
      const double cf = cos(f), sf = sin(f);
      const int in = i > 0 && i < m - 1;
      switch (o->kind) {
        case SIM_OBS_PLANE:
          put(s, &k, 6 * u - 3, 0, 6 * v - 3, 0, 1, 0, 1);
          break;
        case SIM_OBS_BOX:
          for (int a = 0; a < 3; a++)
            for (int sg = -1; sg <= 1; sg += 2) {
              double p[3], n[3] = {0, 0, 0};
              const int b = (a + 1) % 3, c = (a + 2) % 3;
              p[a] = sg * o->half[a], n[a] = sg;
              p[b] = (2 * u - 1) * o->half[b], p[c] = (2 * v - 1) * o->half[c];
              put(s, &k, p[0], p[1], p[2], n[0], n[1], n[2], in && j > 0 && j < m - 1);
            }
          break;
        case SIM_OBS_SPHERE: {
          const double t = SIM_PI * (i + 0.5) / m;
          put(s, &k, r * sin(t) * cf, r * cos(t), r * sin(t) * sf, sin(t) * cf, cos(t), sin(t) * sf,
              1);
          break;
        }
        case SIM_OBS_CAPSULE:
        case SIM_OBS_CYLINDER:
          put(s, &k, r * cf, (2 * u - 1) * L, r * sf, cf, 0, sf, o->kind == SIM_OBS_CAPSULE || in);
          for (int sg = -1; sg <= 1 && H > 0; sg += 2) {
            if (o->kind == SIM_OBS_CAPSULE) { /* hemisphere, polar angle t from the y axis */
              const double t = 0.5 * SIM_PI * u;
              put(s, &k, r * sin(t) * cf, sg * (H + r * cos(t)), r * sin(t) * sf, sin(t) * cf,
                  sg * cos(t), sin(t) * sf, 1);
            } else {
              put(s, &k, r * u * cf, sg * H, r * u * sf, 0, sg, 0, i < m - 1);
            }
          }
          break;
        case SIM_OBS_TORUS: {
          const double t = 2 * SIM_PI * i / m, R = o->major;
          const double n[3] = {cos(t) * cf, sin(t), cos(t) * sf};
          put(s, &k, R * cf + r * n[0], r * n[1], R * sf + r * n[2], n[0], n[1], n[2], 1);
          break;
        }
        default:
          break;
      }
    }
  return k;
}

/* Half extents of a box holding the shape (local); 2 stands in for an infinite length. */
static void extent(const sim_obstacle *o, double e[3]) {
  const double r = o->radius, H = o->half_height > 0 ? o->half_height : 2.0;
  e[0] = e[1] = e[2] = r;
  if (o->kind == SIM_OBS_PLANE) e[0] = e[1] = e[2] = 1.0;
  if (o->kind == SIM_OBS_BOX) e[0] = o->half[0], e[1] = o->half[1], e[2] = o->half[2];
  if (o->kind == SIM_OBS_CAPSULE) e[1] = H + r;
  if (o->kind == SIM_OBS_CYLINDER) e[1] = H;
  if (o->kind == SIM_OBS_TORUS) e[0] = e[2] = o->major + r;
}

enum { M = 128, NPTS = 4000, NBRUTE = 150 };
#define BRUTE_RES 0.05 /* grid spacing bound: a true closest point lies this close to a sample */

/* Random points: uniform around the shape, inside its bounding box, near the surface, far. */
static void random_point(const sim_obstacle *o, const sample *s, int ns, int type,
                         unsigned long long *sd, double p[3]) {
  double e[3];
  extent(o, e);
  if (type < 4 || type == 9) {
    const double grow = type == 9 ? 10.0 : 1.0, pad = type == 9 ? 0.0 : 1.0;
    for (int d = 0; d < 3; d++) p[d] = (e[d] + pad) * grow * rnd(sd);
  } else if (type < 6) {
    for (int d = 0; d < 3; d++) p[d] = e[d] * rnd(sd);
  } else {
    const sample *t = s + (int)((0.5 * rnd(sd) + 0.5) * ns) % ns;
    const double off = 0.05 * rnd(sd);
    for (int d = 0; d < 3; d++) p[d] = t->p[d] + off * t->n[d];
  }
}

static void test_shape(int id, int framed, unsigned long long *sd) {
  sim_obstacle o = shape(id);
  random_frame(&o, framed, sd);
  sample *s = SIM_NEW(sample, 6 * M * M);
  double *sw = SIM_NEW(double, 3 * 6 * M * M);
  const int ns = surface(&o, M, s);
  CHECK(ns > 0 && ns <= 6 * M * M);
  double e_dist = 0, e_surf = 0, e_recon = 0, e_unit = 0, e_fd = 0, e_sphi = 0, e_snrm = 0;
  double e_bhi = -HUGE_VAL, e_blo = -HUGE_VAL;
  int wrong_sign = 0, nfd = 0, nin = 0;
  /* Surface samples: phi = 0, closest point = itself, normal = analytic where smooth. */
  for (int k = 0; k < ns; k++) {
    double c[3], n[3], na[3];
    to_world(&o, s[k].p, sw + 3 * k);
    const double phi = sim_obstacle_query(&o, sw + 3 * k, c, n);
    e_sphi = fmax(e_sphi, fmax(fabs(phi), dist3(c, sw + 3 * k)));
    dir_world(&o, s[k].n, na);
    if (s[k].smooth) e_snrm = fmax(e_snrm, dist3(n, na));
  }
  for (int k = 0; k < NPTS; k++) {
    const int type = k % 10;
    double p[3], x[3], c[3], n[3], c2[3], n2[3];
    random_point(&o, s, ns, type, sd, p);
    to_world(&o, p, x);
    const double phi = sim_obstacle_query(&o, x, c, n);
    e_dist = fmax(e_dist, fabs(dist3(x, c) - fabs(phi)));
    e_surf = fmax(e_surf, fabs(sim_obstacle_query(&o, c, c2, n2)));
    e_unit = fmax(e_unit, fabs(sim_norm3(n) - 1));
    for (int d = 0; d < 3; d++) e_recon = fmax(e_recon, fabs(x[d] - phi * n[d] - c[d]));
    if (fabs(phi) > 1e-10) wrong_sign += (phi < 0) != inside(&o, p), nin += phi < 0;
    if (margin(&o, p, phi) > 1e-2) { /* central differences, h = 1e-6 */
      nfd++;
      for (int d = 0; d < 3; d++) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[d] += 1e-6, xm[d] -= 1e-6;
        const double g = (sim_obstacle_phi(&o, xp) - sim_obstacle_phi(&o, xm)) / 2e-6;
        e_fd = fmax(e_fd, fabs(g - n[d]));
      }
    }
    if (k < NBRUTE * 10 && type != 9) { /* brute force over the samples */
      double best = HUGE_VAL;
      for (int j = 0; j < ns; j++) best = fmin(best, dist3(x, sw + 3 * j));
      e_bhi = fmax(e_bhi, fabs(phi) - best); /* must be <= 0: no sample is nearer */
      e_blo = fmax(e_blo, best - fabs(phi)); /* <= grid resolution */
    }
  }
  const char *fr = framed ? "framed" : "identity";
  check_report(e_dist <= 1e-12, __FILE__, __LINE__, "%s %s: | |x-c| - |phi| | %g", kName[id], fr,
               e_dist);
  check_report(e_surf <= 1e-12, __FILE__, __LINE__, "%s %s: |phi(c)| %g", kName[id], fr, e_surf);
  check_report(e_recon <= 1e-12, __FILE__, __LINE__, "%s %s: x - phi n - c %g", kName[id], fr,
               e_recon);
  check_report(e_unit <= 1e-14, __FILE__, __LINE__, "%s %s: | |n| - 1 | %g", kName[id], fr, e_unit);
  check_report(wrong_sign == 0, __FILE__, __LINE__, "%s %s: %d signs wrong", kName[id], fr,
               wrong_sign);
  check_report(nin > NPTS / 20 && nin < NPTS - NPTS / 20, __FILE__, __LINE__, "%s %s: %d inside",
               kName[id], fr, nin);
  check_report(nfd > NPTS / 2 && e_fd <= 1e-6, __FILE__, __LINE__,
               "%s %s: n vs FD grad %g (%d pts)", kName[id], fr, e_fd, nfd);
  check_report(e_sphi <= 1e-12, __FILE__, __LINE__, "%s %s: surface samples phi, |c-x| %g",
               kName[id], fr, e_sphi);
  check_report(e_snrm <= 1e-12, __FILE__, __LINE__, "%s %s: surface normals %g", kName[id], fr,
               e_snrm);
  check_report(e_bhi <= 1e-12 && e_blo <= BRUTE_RES, __FILE__, __LINE__,
               "%s %s: brute force |phi| - min %g, min - |phi| %g", kName[id], fr, e_bhi, e_blo);
  worst(&w_dist, e_dist), worst(&w_surf, e_surf), worst(&w_recon, e_recon), worst(&w_unit, e_unit);
  worst(&w_fd, e_fd), worst(&w_sphi, e_sphi), worst(&w_snrm, e_snrm), worst(&w_brute, e_bhi);
  worst(&w_res, e_blo);
  sim_free(s);
  sim_free(sw);
}

/* phi, n (local, NULL: not checked) at local point p, in o's frame; c must equal x - phi n. */
static void known(const sim_obstacle *o, double px, double py, double pz, double phi_ex,
                  const double *nl, int line) {
  const double p[3] = {px, py, pz};
  double x[3], c[3], n[3], nw[3];
  to_world(o, p, x);
  const double phi = sim_obstacle_query(o, x, c, n);
  double e = fabs(phi - phi_ex);
  for (int d = 0; d < 3; d++) e = fmax(e, fabs(x[d] - phi * n[d] - c[d]));
  if (nl) {
    dir_world(o, nl, nw);
    e = fmax(e, dist3(n, nw));
  }
  worst(&w_known, e);
  check_report(e <= 1e-13, __FILE__, line,
               "known value at (%g %g %g): phi %.17g expected %.17g, error %g", px, py, pz, phi,
               phi_ex, e);
}

/* On a medial set (ties, axes, core circles, corners) the documented normal is checked in the
   identity frame only: in a rotated frame, roundoff in p = R^T (x - pos) breaks the tie. */
static const double *medial(int framed, const double *n) { return framed ? NULL : n; }

static void test_known(unsigned long long *sd) {
  const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, mey[3] = {0, -1, 0}, mex[3] = {-1, 0, 0};
  const double tax[3] = {-2 / sqrt(5), 1 / sqrt(5), 0};
  for (int framed = 0; framed < 2; framed++) {
    sim_obstacle o = sim_default_obstacle(SIM_OBS_CYLINDER);
    random_frame(&o, framed, sd);
    o.radius = 1, o.half_height = 2;
    const double rim[3] = {2 / sqrt(13), 3 / sqrt(13), 0};
    known(&o, 3, 5, 0, sqrt(13), rim, __LINE__); /* cap rim (1, 2, 0) */
    known(&o, 0.5, 0, 0, -0.5, ex, __LINE__);    /* side */
    known(&o, 0, 1.9, 0.1, -0.1, ey, __LINE__);  /* cap from inside */
    known(&o, 0.3, -3, 0.4, 1, mey, __LINE__);   /* below the cap */
    known(&o, 0, 0, 3, 2, (double[3]){0, 0, 1}, __LINE__);
    o.half_height = 1;
    known(&o, 0, 0, 0, -1, medial(framed, ex), __LINE__); /* medial tie dr = dy: the side, +x */
    known(&o, 0, 0.5, 0, -0.5, ey, __LINE__);
    o.half_height = 0; /* infinite */
    known(&o, 3, 100, 4, 4, (double[3]){0.6, 0, 0.8}, __LINE__);
    known(&o, 0, -50, 0, -1, medial(framed, ex), __LINE__); /* axis: +x */
    o = sim_default_obstacle(SIM_OBS_BOX);
    random_frame(&o, framed, sd);
    o.half[0] = 1, o.half[1] = 2, o.half[2] = 3;
    const double corner[3] = {1 / sqrt(3), 1 / sqrt(3), 1 / sqrt(3)};
    known(&o, 2, 3, 4, sqrt(3), corner, __LINE__);
    known(&o, 0, 0, 0, -1, medial(framed, ex), __LINE__);
    known(&o, 0, -1.5, 0, -0.5, mey, __LINE__);
    known(&o, 0, 2, 0, 0, ey, __LINE__);
    known(&o, 1, 2, 3, 0, medial(framed, ex), __LINE__); /* on the corner: the lowest axis */
    o.half[1] = 1;
    known(&o, -0.2, 0.2, 0, -0.8, medial(framed, mex), __LINE__); /* tie x/y: x */
    o = sim_default_obstacle(SIM_OBS_SPHERE);
    random_frame(&o, framed, sd);
    known(&o, 0, 0, 0, -0.5, medial(framed, ex), __LINE__);
    known(&o, 0, 0, -2, 1.5, (double[3]){0, 0, -1}, __LINE__);
    o = sim_default_obstacle(SIM_OBS_CAPSULE);
    random_frame(&o, framed, sd);
    o.half_height = 1;
    known(&o, 0, 2, 0, 0.5, ey, __LINE__);
    known(&o, 0.3, 0.2, 0.4, 0, (double[3]){0.6, 0, 0.8}, __LINE__);
    known(&o, 0, 0.7, 0, -0.5, medial(framed, ex), __LINE__);
    known(&o, 3, -4, 0, sqrt(18) - 0.5, (double[3]){1 / sqrt(2), -1 / sqrt(2), 0}, __LINE__);
    o = sim_default_obstacle(SIM_OBS_TORUS);
    random_frame(&o, framed, sd);
    o.major = 2, o.radius = 0.5;
    known(&o, 0, 1, 0, sqrt(5) - 0.5, medial(framed, tax), __LINE__);
    known(&o, 2, 0, 0, -0.5, medial(framed, ex), __LINE__);
    known(&o, 0, 0, -3, 0.5, (double[3]){0, 0, -1}, __LINE__);
    known(&o, 0, 0, 0, 1.5, medial(framed, mex), __LINE__);
  }
  /* Plane from a point and a normal; a capsule from a segment. */
  const double pt[3] = {0.3, -1, 2}, nr[3] = {1, 2, -2}, un[3] = {1. / 3, 2. / 3, -2. / 3};
  sim_obstacle o = sim_default_obstacle(SIM_OBS_PLANE);
  o.frame = sim_frame_from_axis(pt, nr);
  double ep = 0;
  for (int k = 0; k < 100; k++) {
    const double x[3] = {5 * rnd(sd), 5 * rnd(sd), 5 * rnd(sd)};
    const double d[3] = {x[0] - pt[0], x[1] - pt[1], x[2] - pt[2]};
    double n[3], c[3];
    const double phi = sim_obstacle_query(&o, x, c, n);
    ep = fmax(ep, fmax(fabs(phi - sim_dot3(d, un)), dist3(n, un)));
  }
  worst(&w_known, ep);
  check_report(ep <= 1e-14, __FILE__, __LINE__, "plane from point+normal %g", ep);
  const double a[3] = {1, 2, 3}, b[3] = {1, 2, 5}, r = 0.25;
  o = sim_default_obstacle(SIM_OBS_CAPSULE);
  o.radius = r;
  sim_obstacle_set_segment(&o, a, b);
  CHECK_NEAR(sim_obstacle_phi(&o, a), -r, 1e-15);
  CHECK_NEAR(sim_obstacle_phi(&o, b), -r, 1e-15);
  CHECK_NEAR(sim_obstacle_phi(&o, (double[3]){1, 2, 7}), 2 - r, 1e-15);
  CHECK_NEAR(sim_obstacle_phi(&o, (double[3]){4, 6, 4}), 5 - r, 1e-15);
  o.kind = SIM_OBS_KIND_COUNT; /* not a shape: never a contact */
  CHECK(sim_obstacle_phi(&o, a) == HUGE_VAL);
}

/* A segment too short to square (1e-162: |b - a|^2 underflows to 0) or too long (b - a
   overflows) still gives a unit axis; a = b gives the sphere at a. Each capsule answers as
   the sphere or segment it is, and the frame of a tiny axis matches the unit one's bits. */
static void test_segment_extremes(void) {
  const double r = 0.005, a[3] = {0, 0, 0};
  const double ends[][3] = {{1e-162, 0, 0}, {0, -3e-200, 4e-200}, {5e-324, 0, 0}, {0, 0, 0}};
  for (int i = 0; i < 4; i++) {
    sim_obstacle o = sim_default_obstacle(SIM_OBS_CAPSULE);
    o.radius = r;
    sim_obstacle_set_segment(&o, a, ends[i]);
    double g = 0;
    for (int k = 0; k < 9; k++) g += o.frame.rot[k] * o.frame.rot[k];
    check_report(isfinite(g) && fabs(sim_det3(o.frame.rot) - 1) < 1e-15 && o.half_height >= 0 &&
                     o.half_height <= 1e-161,
                 __FILE__, __LINE__, "segment %d: det %g, half_height %g", i, sim_det3(o.frame.rot),
                 o.half_height);
    /* a point above falls onto the sphere of radius r at the origin */
    double c[3], n[3];
    const double x[3] = {0, 1.008, 0.002}, l = sim_norm3(x);
    const double phi = sim_obstacle_query(&o, x, c, n);
    CHECK_NEAR(phi, l - r, 1e-15);
    for (int k = 0; k < 3; k++) {
      CHECK_NEAR(n[k], x[k] / l, 1e-15);
      CHECK_NEAR(c[k], r * x[k] / l, 1e-15);
    }
    CHECK_NEAR(sim_obstacle_phi(&o, a), -r, 1e-15);
  }
  /* the tiny axis's frame is the unit axis's frame, bit for bit */
  sim_obstacle t = sim_default_obstacle(SIM_OBS_CAPSULE), u = t;
  sim_obstacle_set_segment(&t, a, (double[3]){0, -3e-200, 4e-200});
  sim_obstacle_set_segment(&u, a, (double[3]){0, -0.75, 1});
  for (int k = 0; k < 9; k++) CHECK(t.frame.rot[k] == u.frame.rot[k]);
  CHECK_NEAR(t.half_height, 2.5e-200, 1e-214);
  /* ends 3e308 apart: b - a overflows, the capsule still spans them */
  sim_obstacle w = sim_default_obstacle(SIM_OBS_CAPSULE);
  w.radius = 1;
  sim_obstacle_set_segment(&w, (double[3]){-1.5e308, 0, 0}, (double[3]){1.5e308, 0, 0});
  CHECK_NEAR(w.half_height, 1.5e308, 1e293);
  CHECK_NEAR(sim_obstacle_phi(&w, (double[3]){1e300, 3, 0}), 2, 1e-15);
  CHECK(fabs(w.frame.rot[3 * 0 + 1]) == 1.0);
  /* a plane normal of 1e-170 (squares underflow) still places the plane */
  const sim_frame f = sim_frame_from_axis(a, (double[3]){0, 1e-170, 0});
  CHECK(f.rot[1] == 0 && f.rot[4] == 1 && f.rot[7] == 0);
}

/* Spinning cylinder: u - vel = omega a x (c - pos): |.| = |omega| r on the side, tangential. */
static void test_spin(unsigned long long *sd) {
  for (int t = 0; t < 4; t++) {
    sim_obstacle o = sim_default_obstacle(SIM_OBS_CYLINDER);
    random_frame(&o, 1, sd);
    o.radius = 0.7, o.half_height = t < 2 ? 0.5 : 0.0, o.omega = t % 2 ? -3.0 : 2.5;
    o.vel[0] = 0.1 * t, o.vel[1] = -0.2, o.vel[2] = 0.3;
    const double a[3] = {o.frame.rot[1], o.frame.rot[4], o.frame.rot[7]};
    double e = 0;
    int nside = 0, ncap = 0;
    for (int k = 0; k < 2000; k++) {
      const double p[3] = {2 * rnd(sd), 2 * rnd(sd), 2 * rnd(sd)};
      double x[3], c[3], n[3], u[3], an[3], cl[3];
      to_world(&o, p, x);
      sim_obstacle_query(&o, x, c, n);
      sim_obstacle_velocity(&o, c, u);
      for (int d = 0; d < 3; d++) u[d] -= o.vel[d];
      sim_cross3(a, n, an);
      to_local(&o, c, cl);
      const double rho = sqrt(cl[0] * cl[0] + cl[2] * cl[2]);
      e = fmax(e, fabs(sim_dot3(u, n)));
      e = fmax(e, fabs(sim_dot3(u, a)));
      e = fmax(e, fabs(sim_norm3(u) - fabs(o.omega) * rho));
      if (fabs(sim_dot3(n, a)) < 1e-12) { /* on the side: speed omega r along a x n */
        nside++;
        e = fmax(e, fabs(sim_norm3(u) - fabs(o.omega) * o.radius));
        e = fmax(e, fabs(sim_dot3(u, an) - o.omega * o.radius));
      } else {
        ncap++;
      }
    }
    worst(&w_vel, e);
    check_report(e <= 1e-13 && nside > 100 && (t >= 2 || ncap > 100), __FILE__, __LINE__,
                 "spin %d: error %g, %d side, %d cap", t, e, nside, ncap);
    /* sim_obstacle_advance moves material points at sim_obstacle_velocity. */
    const double pl[3] = {0.7, 0.2, -0.1}, dt = 1e-5;
    sim_obstacle f = o, b = o;
    double x0[3], xf[3], xb[3], u[3];
    sim_obstacle_advance(&f, dt), sim_obstacle_advance(&b, -dt);
    to_world(&o, pl, x0), to_world(&f, pl, xf), to_world(&b, pl, xb);
    sim_obstacle_velocity(&o, x0, u);
    double ev = 0;
    for (int d = 0; d < 3; d++) ev = fmax(ev, fabs((xf[d] - xb[d]) / (2 * dt) - u[d]));
    worst(&w_vel, ev);
    check_report(ev <= 1e-8, __FILE__, __LINE__, "advance vs velocity %g", ev);
    f = o;
    for (int k = 0; k < 100; k++) sim_obstacle_advance(&f, 2 * SIM_PI / fabs(o.omega) / 100);
    double er = 0;
    for (int i = 0; i < 9; i++) er = fmax(er, fabs(f.frame.rot[i] - o.frame.rot[i]));
    check_report(er <= 1e-12, __FILE__, __LINE__, "full turn returns the frame: %g", er);
  }
}

/* Orthonormal, right-handed, t1 in span(e_k, n) on the + side of e_k, k = argmin |n_i|. */
static double basis_error(const double n[3]) {
  double t1[3], t2[3], x[3];
  sim_tangent_basis(n, t1, t2);
  const double l = sim_norm3(n), u[3] = {n[0] / l, n[1] / l, n[2] / l};
  const double b0 = fabs(n[0]), b1 = fabs(n[1]), b2 = fabs(n[2]);
  const int k = (b0 <= b1 && b0 <= b2) ? 0 : (b1 <= b2 ? 1 : 2);
  double ek[3] = {0, 0, 0}, nek[3];
  ek[k] = 1;
  sim_cross3(u, ek, nek);
  sim_cross3(t1, t2, x);
  double e = fmax(fabs(sim_norm3(t1) - 1), fabs(sim_norm3(t2) - 1));
  e = fmax(e, fmax(fabs(sim_dot3(t1, t2)), fmax(fabs(sim_dot3(t1, u)), fabs(sim_dot3(t2, u)))));
  e = fmax(e, fmax(dist3(x, u), fabs(sim_dot3(t1, nek))));
  return t1[k] > 0 ? e : 1.0;
}

static void test_tangent(unsigned long long *sd) {
  const double fixed[][3] = {{1, 0, 0},   {-1, 0, 0},       {0, 1, 0},      {0, -1, 0}, {0, 0, 1},
                             {0, 0, -1},  {1, 1, 1},        {1, 1, 0},      {0, 1, 1},  {1, 0, 1},
                             {-1, 1, -1}, {1, 1e-9, -1e-9}, {1e-300, 0, 1}, {3, -4, 12}};
  double e = 0;
  for (int i = 0; i < (int)(sizeof fixed / sizeof fixed[0]); i++)
    e = fmax(e, basis_error(fixed[i]));
  double t1[3], t2[3];
  sim_tangent_basis(fixed[2], t1, t2); /* n = e_y: k = 0, t1 = e_x, t2 = e_y x e_x = -e_z */
  e = fmax(e, fmax(dist3(t1, fixed[0]), dist3(t2, fixed[5])));
  sim_tangent_basis(fixed[0], t1, t2); /* n = e_x: t1 = e_y, t2 = e_z */
  e = fmax(e, fmax(dist3(t1, fixed[2]), dist3(t2, fixed[4])));
  double ec = 0;
  int nc = 0;
  for (int k = 0; k < 20000; k++) {
    const double s = pow(10.0, 3 * rnd(sd));
    double n[3] = {s * rnd(sd), s * rnd(sd), s * rnd(sd)};
    e = fmax(e, basis_error(n));
    /* continuity away from a switch of k: |dt| <= 10 |dn| / |n| */
    double a[3] = {fabs(n[0]), fabs(n[1]), fabs(n[2])}, l = sim_norm3(n);
    const double lo = fmin(a[0], fmin(a[1], a[2])), hi = fmax(a[0], fmax(a[1], a[2]));
    if (a[0] + a[1] + a[2] - lo - hi - lo > 1e-2 * l) {
      double m[3], s1[3], s2[3];
      for (int d = 0; d < 3; d++) m[d] = n[d] + 1e-7 * l * rnd(sd);
      sim_tangent_basis(n, t1, t2), sim_tangent_basis(m, s1, s2);
      ec = fmax(ec, (dist3(t1, s1) + dist3(t2, s2)) / (dist3(n, m) / l));
      nc++;
    }
  }
  worst(&w_tan, e);
  check_report(e <= 1e-14, __FILE__, __LINE__, "tangent basis error %g", e);
  check_report(ec <= 10 && nc > 10000, __FILE__, __LINE__, "tangent continuity %g (%d)", ec, nc);
  /* sim_frame_from_axis: orthonormal, det +1, local y = axis/|axis|. */
  double ef = 0;
  for (int k = 0; k < 1000; k++) {
    const double ax[3] = {rnd(sd), rnd(sd), rnd(sd)}, pos[3] = {rnd(sd), rnd(sd), rnd(sd)};
    const sim_frame f = sim_frame_from_axis(pos, ax);
    const double *R = f.rot, l = sim_norm3(ax);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        const double g = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
        ef = fmax(ef, fabs(g - (i == j)));
      }
    for (int i = 0; i < 3; i++)
      ef = fmax(ef, fmax(fabs(R[3 * i + 1] - ax[i] / l), fabs(f.pos[i] - pos[i])));
    ef = fmax(ef, fabs(sim_det3(R) - 1));
  }
  worst(&w_tan, ef);
  check_report(ef <= 1e-14, __FILE__, __LINE__, "frame from axis %g", ef);
}

int main(void) {
  unsigned long long sd = 12345;
  for (int id = 0; id < NSHAPE; id++)
    for (int framed = 0; framed < 3; framed++) test_shape(id, framed > 0, &sd);
  test_known(&sd);
  test_segment_extremes();
  test_spin(&sd);
  test_tangent(&sd);
  printf(
      "worst: |x-c|-|phi| %.2g, phi(c) %.2g, x-phi*n-c %.2g, |n|-1 %.2g, n-FD %.2g,\n"
      "  surface phi %.2g, surface n %.2g, |phi|-brute %.2g (brute-|phi| %.2g), known %.2g,\n"
      "  velocity %.2g, tangent %.2g\n",
      w_dist, w_surf, w_recon, w_unit, w_fd, w_sphi, w_snrm, w_brute, w_res, w_known, w_vel, w_tan);
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_sdf");
}

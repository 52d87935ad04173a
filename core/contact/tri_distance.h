/* SPDX-License-Identifier: MIT */
/* Closest point on a triangle to a point: unsigned distance, barycentrics, feature, normal.

   Method (Ericson, Real-Time Collision Detection, 2005, Sec. 5.1.5): the closest point lies in
   the Voronoi region of the face, of one edge or of one vertex. With
     n = (x1 - x0) x (x2 - x0),   u_i = n . ((x_{i+1} - p) x (x_{i+2} - p))   (indices mod 3),
   u_0 + u_1 + u_2 = |n|^2 and u_i / |n|^2 are the barycentrics of the projection of p on the
   plane (the out-of-plane part of p drops out of each u_i). If every u_i > 0, p projects inside:
   the face region, w_i = u_i / (u_0 + u_1 + u_2). Otherwise the closest point lies on the
   boundary and is the nearest of the three clamped segment projections (Ericson Sec. 5.1.2);
   the clamping gives the vertex regions.
   Robustness: the u_i come from cross products instead of Ericson's differences of products
   of dot products (va = d3 d6 - d5 d4, ...), which cancel catastrophically on slivers, so the
   barycentrics stay accurate on thin triangles: their error is about eps / s, where
   s = |n| / max|edge|^2 is the sine of the sharpest angle. A triangle with s <= 1e-8 (height
   below 1e-8 of its longest edge, including collinear or coincident vertices) is handled as
   its three segments, which moves the closest point by at most that height: both errors stay
   near sqrt(eps) of the triangle's size. A zero-length segment is its first vertex. Finite
   input never divides by zero.

   Conventions:
   - edge i joins vertices i and i+1 (mod 3): edge 0 = x0 x1, edge 1 = x1 x2, edge 2 = x2 x0;
   - c = w0 x0 + w1 x1 + w2 x2 exactly as computed, w_i >= 0, sum 1 (to rounding); on edge i
     w_{i+2} = 0; on vertex i w_i = 1 and the others are 0; d2 = |p - c|^2;
   - ties between boundary candidates go to the lowest edge index (deterministic);
   - n is the unit geometric normal (x1 - x0) x (x2 - x0) / |.| (front: the vertices run
     counter-clockwise), the zero vector for a degenerate triangle (s <= 1e-8);
   - side = sign((p - x0) . n): +1 in front, -1 behind, 0 in the plane or degenerate.
   Contact normal (sim_tri_contact_normal), pointing from the triangle to p: (p - c) / |p - c|
   when d2 > 0 (this is side * n in the face region); when p lies on the triangle (d2 = 0),
   n itself, which the caller orients (for example with the side seen at the previous step);
   +x for a degenerate triangle touched exactly. The distance is unsigned, so open and thin
   (codimensional) meshes need nothing special. SIM_HD: the CUDA backend uses it unchanged. */
#ifndef SIM_CONTACT_TRI_DISTANCE_H
#define SIM_CONTACT_TRI_DISTANCE_H
#include "base/mathx.h"
#include "contact/detect_tally.h"

typedef enum {
  SIM_TRI_FACE = 0,
  SIM_TRI_EDGE0 = 1, /* x0 x1 */
  SIM_TRI_EDGE1 = 2, /* x1 x2 */
  SIM_TRI_EDGE2 = 3, /* x2 x0 */
  SIM_TRI_VERT0 = 4,
  SIM_TRI_VERT1 = 5,
  SIM_TRI_VERT2 = 6
} sim_tri_feature;

typedef struct sim_tri_closest {
  double d2;   /* squared distance |p - c|^2 */
  double c[3]; /* closest point on the triangle */
  double w[3]; /* its barycentric coordinates */
  double n[3]; /* unit geometric normal, zero when degenerate */
  int feature; /* sim_tri_feature */
  int side;    /* sign((p - x0) . n) */
} sim_tri_closest;

/* Fills *q and returns q->d2. */
SIM_HD double sim_tri_closest_point(const double p[3], const double x0[3], const double x1[3],
                                    const double x2[3], sim_tri_closest *q) {
  SIM_TALLY_TRI();
  const double *v[3] = {x0, x1, x2};
  double e01[3], e12[3], e02[3], n[3];
  for (int k = 0; k < 3; k++) {
    e01[k] = x1[k] - x0[k];
    e12[k] = x2[k] - x1[k];
    e02[k] = x2[k] - x0[k];
  }
  sim_cross3(e01, e02, n);
  const double nn = sim_dot3(n, n);
  const double l2max = fmax(sim_dot3(e01, e01), fmax(sim_dot3(e12, e12), sim_dot3(e02, e02)));
  const int flat = !(nn > 1e-16 * l2max * l2max); /* s <= 1e-8 (also catches NaN) */
  q->side = 0;
  for (int k = 0; k < 3; k++) q->n[k] = 0.0;
  if (!flat) {
    const double inv = 1.0 / sqrt(nn);
    double h = 0.0;
    for (int k = 0; k < 3; k++) {
      q->n[k] = n[k] * inv;
      h += (p[k] - x0[k]) * q->n[k];
    }
    q->side = h > 0 ? 1 : (h < 0 ? -1 : 0);
    double u[3];
    for (int i = 0; i < 3; i++) {
      const double *a = v[(i + 1) % 3], *b = v[(i + 2) % 3];
      double pa[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]};
      double pb[3] = {b[0] - p[0], b[1] - p[1], b[2] - p[2]}, ab[3];
      sim_cross3(pa, pb, ab);
      u[i] = sim_dot3(n, ab);
    }
    if (u[0] > 0 && u[1] > 0 && u[2] > 0) { /* face region */
      const double s = 1.0 / (u[0] + u[1] + u[2]);
      double d[3];
      for (int i = 0; i < 3; i++) q->w[i] = u[i] * s;
      for (int k = 0; k < 3; k++) {
        q->c[k] = q->w[0] * x0[k] + q->w[1] * x1[k] + q->w[2] * x2[k];
        d[k] = p[k] - q->c[k];
      }
      q->d2 = sim_dot3(d, d);
      q->feature = SIM_TRI_FACE;
      return q->d2;
    }
  }
  /* boundary: c = (1 - t) a + t b on edge e = (a, b), t = clamp((p - a).(b - a) / |b - a|^2) */
  for (int e = 0; e < 3; e++) {
    const double *a = v[e], *b = v[(e + 1) % 3];
    double ab[3], ap[3], c[3], d[3];
    for (int k = 0; k < 3; k++) {
      ab[k] = b[k] - a[k];
      ap[k] = p[k] - a[k];
    }
    const double den = sim_dot3(ab, ab);
    double t = 0.0;
    if (den > 0) t = fmin(fmax(sim_dot3(ap, ab) / den, 0.0), 1.0);
    for (int k = 0; k < 3; k++) {
      c[k] = (1.0 - t) * a[k] + t * b[k];
      d[k] = p[k] - c[k];
    }
    const double d2 = sim_dot3(d, d);
    if (e == 0 || d2 < q->d2) {
      q->d2 = d2;
      for (int k = 0; k < 3; k++) q->c[k] = c[k];
      q->w[e] = 1.0 - t;
      q->w[(e + 1) % 3] = t;
      q->w[(e + 2) % 3] = 0.0;
      q->feature =
          t <= 0 ? SIM_TRI_VERT0 + e : (t >= 1 ? SIM_TRI_VERT0 + (e + 1) % 3 : SIM_TRI_EDGE0 + e);
    }
  }
  return q->d2;
}

/* Unit contact normal from the triangle towards p (see the conventions above). */
SIM_HD void sim_tri_contact_normal(const double p[3], const sim_tri_closest *q, double nc[3]) {
  double d[3] = {p[0] - q->c[0], p[1] - q->c[1], p[2] - q->c[2]};
  const double l = sqrt(sim_dot3(d, d));
  if (l > 0) {
    for (int k = 0; k < 3; k++) nc[k] = d[k] / l;
  } else if (q->n[0] != 0 || q->n[1] != 0 || q->n[2] != 0) {
    for (int k = 0; k < 3; k++) nc[k] = q->n[k];
  } else {
    nc[0] = 1.0, nc[1] = 0.0, nc[2] = 0.0;
  }
}

#endif

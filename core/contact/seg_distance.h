/* SPDX-License-Identifier: MIT */
/* Closest points of two segments, for edge-edge contact (detect_edge.h).

   Two edges a0 a1 and b0 b1 with d1 = a1 - a0, d2 = b1 - b0 and N = d1 x d2. Their lines come
   closest at a0 + s d1 and b0 + t d2 where the difference of the two points is parallel to N:
     s = ((b0 - a0) x d2) . N / |N|^2,   t = ((b0 - a0) x d1) . N / |N|^2
   (cross with d2, resp. d1, and dot with N; from cross products, as tri_distance.h takes its
   barycentrics, instead of differences of products of dot products, which cancel where the
   edges are nearly parallel). Where both parameters lie strictly inside (0, 1) those points
   are the segments' closest ones: an edge-edge contact. Where one does not, the segments come
   closest at an end of one of them, a vertex, which a vertex-triangle contact holds; and edges
   nearer parallel than |N| <= 1e-8 |d1| |d2| (the sine of their angle) have no single closest
   pair: the vertex-triangle contacts of their ends hold them too. SIM_HD: the CUDA detector
   uses it unchanged. */
#ifndef SIM_CONTACT_SEG_DISTANCE_H
#define SIM_CONTACT_SEG_DISTANCE_H
#include "base/mathx.h"
#include "contact/detect_tally.h"

typedef struct sim_seg_closest {
  double d2;           /* |pa - pb|^2 */
  double s, t;         /* pa = (1 - s) a0 + s a1, pb = (1 - t) b0 + t b1 */
  double pa[3], pb[3]; /* the closest points, as computed */
  double N[3];         /* d1 x d2 (nonzero where found) */
} sim_seg_closest;

/* The closest points of the segments where they lie inside both (above): 1 and *q filled,
   else 0 (*q then unread). */
SIM_HD int sim_seg_closest_inner(const double a0[3], const double a1[3], const double b0[3],
                                 const double b1[3], sim_seg_closest *q) {
  SIM_TALLY_TRI();
  double d1[3], d2[3], r[3], c1[3], c2[3];
  for (int k = 0; k < 3; k++) d1[k] = a1[k] - a0[k], d2[k] = b1[k] - b0[k], r[k] = b0[k] - a0[k];
  sim_cross3(d1, d2, q->N);
  const double nn = sim_dot3(q->N, q->N);
  if (!(nn > 1e-16 * sim_dot3(d1, d1) * sim_dot3(d2, d2))) return 0; /* parallel (or NaN) */
  sim_cross3(r, d2, c2);
  sim_cross3(r, d1, c1);
  q->s = sim_dot3(c2, q->N) / nn;
  q->t = sim_dot3(c1, q->N) / nn;
  if (!(q->s > 0.0 && q->s < 1.0 && q->t > 0.0 && q->t < 1.0)) return 0;
  double d[3];
  for (int k = 0; k < 3; k++) {
    q->pa[k] = (1.0 - q->s) * a0[k] + q->s * a1[k];
    q->pb[k] = (1.0 - q->t) * b0[k] + q->t * b1[k];
    d[k] = q->pa[k] - q->pb[k];
  }
  q->d2 = sim_dot3(d, d);
  return 1;
}

/* Squared distance from p to the segment a b (clamped projection; a zero-length one is a). */
SIM_HD double sim_seg_point_d2(const double p[3], const double a[3], const double b[3]) {
  const double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double den = sim_dot3(ab, ab);
  const double t = den > 0 ? fmin(fmax(sim_dot3(ap, ab) / den, 0.0), 1.0) : 0.0;
  double d[3];
  for (int k = 0; k < 3; k++) d[k] = p[k] - ((1.0 - t) * a[k] + t * b[k]);
  return sim_dot3(d, d);
}

/* The least squared distance of each segment's ends to the other segment: the segments'
   where their closest points are not inside both. */
SIM_HD double sim_seg_ends_d2(const double a0[3], const double a1[3], const double b0[3],
                              const double b1[3]) {
  return fmin(fmin(sim_seg_point_d2(a0, b0, b1), sim_seg_point_d2(a1, b0, b1)),
              fmin(sim_seg_point_d2(b0, a0, a1), sim_seg_point_d2(b1, a0, a1)));
}

/* Squared distance between the segments: the inner closest pair's where there is one, else
   sim_seg_ends_d2. */
SIM_HD double sim_seg_d2(const double a0[3], const double a1[3], const double b0[3],
                         const double b1[3]) {
  sim_seg_closest q;
  if (sim_seg_closest_inner(a0, a1, b0, b1, &q)) return q.d2;
  return sim_seg_ends_d2(a0, a1, b0, b1);
}

#endif

/* SPDX-License-Identifier: MIT */
/* Analytic obstacles (DESIGN.md Sec. 7): signed distance, closest point, normal, velocity.

   Every shape is defined in its own local frame and placed by a rigid transform
     x_world = R p_local + pos        (R row-major, orthonormal, det +1).
   Conventions (the same for every kind):
   - phi < 0 inside, > 0 outside, 0 on the surface; |phi| is the exact Euclidean distance to
     the surface (for the torus when minor < major). The closest point is c = x - phi n.
   - The normal n is the outward unit gradient of phi wherever phi is differentiable.
     Where it is not (the medial set inside a box or cylinder, box edges and corners and
     cylinder rims on the surface itself, a sphere's centre, a capsule's segment, a cylinder's
     or torus's axis, a torus's core circle), n is still a unit vector with c = x - phi n on
     the surface (exact ties are decided on p = R^T (x - pos) as rounded):
       box, inside: the face of largest q_i = |p_i| - h_i, lowest axis index on ties, and the
                    + face when p_i = 0;
       finite cylinder, inside: the side when (rho - r) >= (|p_y| - H) (ties go to the side),
                    the + cap when p_y = 0;
       a radial direction that is undefined (rho = 0 or a zero distance vector) is local +x.
   - The axis of the capsule, cylinder and torus, and the normal of the plane, is local +y.
   - Velocity: the frame moves with linear velocity vel (world) and spins about its axis
     (world a = R e_y through pos) at omega rad/s, right-handed: u(x) = vel + omega a x (x - pos).
   All functions are SIM_HD: the CUDA backend reuses them unchanged. */
#ifndef SIM_CONTACT_SDF_H
#define SIM_CONTACT_SDF_H
#include "base/mathx.h"

typedef enum {
  SIM_OBS_PLANE,    /* the half space local y <= 0; no parameters */
  SIM_OBS_BOX,      /* |p_i| <= half[i] */
  SIM_OBS_SPHERE,   /* |p| <= radius */
  SIM_OBS_CAPSULE,  /* within radius of the segment y in [-half_height, half_height] */
  SIM_OBS_CYLINDER, /* rho <= radius and |y| <= half_height (half_height <= 0: infinite) */
  SIM_OBS_TORUS,    /* within radius (minor) of the circle rho = major in the x-z plane */
  SIM_OBS_KIND_COUNT
} sim_obstacle_kind;

typedef struct {
  double pos[3]; /* world position of the local origin */
  double rot[9]; /* row-major rotation: columns are the local axes in world coordinates */
} sim_frame;

typedef struct {
  sim_obstacle_kind kind;
  sim_frame frame;
  double half[3];     /* box half extents along local x, y, z */
  double radius;      /* sphere, capsule, cylinder radius; torus minor (tube) radius */
  double major;       /* torus major radius (> radius) */
  double half_height; /* capsule: half segment length; cylinder: half height, <= 0: infinite */
  double vel[3];      /* linear velocity, world */
  double omega;       /* angular speed about the local y axis through frame.pos, rad/s */
} sim_obstacle;

/* Identity frame, at rest; box 1 x 1 x 1, radius 0.5, major 1, half_height 0.5. */
SIM_HD sim_obstacle sim_default_obstacle(sim_obstacle_kind kind) {
  sim_obstacle o = {
      kind, {{0, 0, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}}, {0.5, 0.5, 0.5}, 0.5, 1.0, 0.5, {0, 0, 0},
      0.0};
  return o;
}

/* Two unit tangents with (t1, t2, n/|n|) a right-handed orthonormal frame. Gram-Schmidt of
   e_k against n, where k = argmin_i |n_i| (lowest index on ties): t1 = (e_k - (n_k/|n|^2) n)
   / |..|, t2 = (n/|n|) x t1. |n_k| <= |n|/sqrt(3), so |t1| before normalising is >= sqrt(2/3):
   well conditioned. Continuous in n except where the least-aligned axis k switches. n != 0. */
SIM_HD void sim_tangent_basis(const double n[3], double t1[3], double t2[3]) {
  const double a0 = fabs(n[0]), a1 = fabs(n[1]), a2 = fabs(n[2]);
  const int k = (a0 <= a1 && a0 <= a2) ? 0 : (a1 <= a2 ? 1 : 2);
  const double nn = sim_dot3(n, n), s = n[k] / nn, il = 1.0 / sqrt(nn);
  for (int i = 0; i < 3; i++) t1[i] = (i == k) - s * n[i];
  const double it = 1.0 / sim_norm3(t1);
  for (int i = 0; i < 3; i++) t1[i] *= it;
  const double u[3] = {n[0] * il, n[1] * il, n[2] * il};
  sim_cross3(u, t1, t2);
}

/* Largest |v_i|: the scale that brings v to order 1 before squares are taken. */
SIM_HD double sim_max_abs3(const double v[3]) {
  return fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
}

/* A frame at pos whose local +y is axis/|axis| (x, z completed by sim_tangent_basis: local
   z = t1, local x = t2, so x cross y = z). Places a plane (point, normal) or an axis. The
   axis is first scaled by a power of two to a largest component of order 1: exact, so an
   ordinary axis gives the same bits, and one of 1e-162 (whose squares underflow to 0) or
   1e200 (whose squares overflow) still gives a unit direction. Needs a finite axis != 0. */
SIM_HD sim_frame sim_frame_from_axis(const double pos[3], const double axis[3]) {
  double down, up, t1[3], t2[3];
  sim_pow2_scales(sim_max_abs3(axis), &down, &up);
  const double u[3] = {axis[0] * down, axis[1] * down, axis[2] * down};
  sim_tangent_basis(u, t1, t2);
  const double il = 1.0 / sim_norm3(u);
  sim_frame f;
  for (int i = 0; i < 3; i++) {
    f.pos[i] = pos[i];
    f.rot[3 * i + 0] = t2[i];
    f.rot[3 * i + 1] = u[i] * il;
    f.rot[3 * i + 2] = t1[i];
  }
  return f;
}

/* Capsule or cylinder along the segment a -> b: centre (a + b)/2, axis b - a, half_height
   |b - a|/2, without overflow or underflow: the norm is taken after scaling b - a by a power
   of two near its largest component (so a length of 1e-162, whose squares underflow to 0,
   still gives a unit axis), and where a sum or difference overflows the halves are used.
   Where a = b there is no axis: the frame is the identity at a and half_height 0, so a
   capsule is the sphere it has become. */
SIM_HD void sim_obstacle_set_segment(sim_obstacle *o, const double a[3], const double b[3]) {
  double m[3], d[3];
  int halves = 0; /* d holds (b - a)/2: some b_i - a_i overflows */
  for (int i = 0; i < 3; i++) {
    const double s = a[i] + b[i];
    m[i] = fabs(s) < HUGE_VAL ? 0.5 * s : 0.5 * a[i] + 0.5 * b[i];
    halves |= !(fabs(b[i] - a[i]) < HUGE_VAL);
  }
  for (int i = 0; i < 3; i++) d[i] = halves ? 0.5 * b[i] - 0.5 * a[i] : b[i] - a[i];
  const double big = sim_max_abs3(d);
  o->half_height = 0.0;
  for (int i = 0; i < 9; i++) o->frame.rot[i] = (i % 4 == 0); /* identity */
  for (int i = 0; i < 3; i++) o->frame.pos[i] = m[i];
  if (!(big > 0.0 && big < HUGE_VAL)) return; /* a = b: a sphere */
  double down, up;
  sim_pow2_scales(big, &down, &up);
  const double u[3] = {d[0] * down, d[1] * down, d[2] * down};
  o->frame = sim_frame_from_axis(m, d); /* which scales d itself */
  o->half_height = (halves ? 1.0 : 0.5) * sim_norm3(u) * up;
}

/* Outside a convex set K: phi = |p - c| with c the projection; n = (p - c)/phi. */
SIM_HD double sim_sdf_from_point_(const double p[3], const double c[3], double n[3]) {
  const double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
  const double l = sim_norm3(d);
  for (int i = 0; i < 3; i++) n[i] = d[i] / l;
  return l;
}

/* Unit radial direction (p_x, 0, p_z)/rho in the x-z plane; +x when rho = 0. Returns rho. */
SIM_HD double sim_sdf_radial_(const double p[3], double u[3]) {
  const double rho = sqrt(p[0] * p[0] + p[2] * p[2]);
  u[0] = rho > 0 ? p[0] / rho : 1.0, u[1] = 0.0, u[2] = rho > 0 ? p[2] / rho : 0.0;
  return rho;
}

/* Round shapes: the set of points within r of a core point a(p) (sphere: a = 0; capsule:
   a = (0, clamp(p_y, -H, H), 0); torus: a = major u). phi = |p - a| - r, n = (p - a)/|p - a|
   (fallback u, the radial direction, when p = a), c = a + r n. */
SIM_HD double sim_sdf_round_(const double p[3], const double a[3], double r, const double u[3],
                             double c[3], double n[3]) {
  const double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
  const double l = sim_norm3(d);
  for (int i = 0; i < 3; i++) {
    n[i] = l > 0 ? d[i] / l : u[i];
    c[i] = a[i] + r * n[i];
  }
  return l - r;
}

/* Box: q_i = |p_i| - h_i. Outside (some q_i > 0): c = clamp(p, -h, h), phi = |p - c|.
   Inside or on it: phi = max_i q_i, c = p moved to that face, n = sign(p_i) e_i. */
SIM_HD double sim_sdf_box(const double h[3], const double p[3], double c[3], double n[3]) {
  int k = 0;
  double q[3];
  for (int i = 0; i < 3; i++) {
    q[i] = fabs(p[i]) - h[i];
    c[i] = fmin(fmax(p[i], -h[i]), h[i]);
    if (q[i] > q[k]) k = i;
  }
  if (q[k] > 0) return sim_sdf_from_point_(p, c, n);
  const double s = p[k] < 0 ? -1.0 : 1.0;
  for (int i = 0; i < 3; i++) n[i] = (i == k) ? s : 0.0;
  c[k] = s * h[k];
  return q[k];
}

/* Cylinder about y, radius r, half height H (H <= 0: infinite, dy = -inf). With dr = rho - r,
   dy = |p_y| - H and s = sign(p_y): rim region (dr > 0 and dy > 0): phi = sqrt(dr^2 + dy^2),
   n = (dr u + dy s e_y)/phi, c = (r u, s H) (e.g. a cap's rim); otherwise phi = max(dr, dy)
   (exact outside too, where the other one is <= 0): the side (n = u, c = (r u, p_y)) when
   dr >= dy, else the cap (n = s e_y, c = (p_x, s H, p_z)). Side and cap normals are exact
   unit vectors, not differences of nearly equal points. */
SIM_HD double sim_sdf_cylinder(double r, double H, const double p[3], double c[3], double n[3]) {
  double u[3];
  const double rho = sim_sdf_radial_(p, u), dr = rho - r, s = p[1] < 0 ? -1.0 : 1.0;
  const double dy = H > 0 ? fabs(p[1]) - H : -HUGE_VAL;
  if (dr > 0 && dy > 0) {
    const double l = sqrt(dr * dr + dy * dy);
    n[0] = dr * u[0] / l, n[1] = s * dy / l, n[2] = dr * u[2] / l;
    c[0] = r * u[0], c[1] = s * H, c[2] = r * u[2];
    return l;
  }
  if (dr >= dy) {
    for (int i = 0; i < 3; i++) n[i] = u[i];
    c[0] = r * u[0], c[1] = p[1], c[2] = r * u[2];
    return dr;
  }
  n[0] = 0, n[1] = s, n[2] = 0;
  c[0] = p[0], c[1] = s * H, c[2] = p[2];
  return dy;
}

/* Local-frame query for any kind: returns phi, writes the closest point and the normal. */
SIM_HD double sim_sdf_local(const sim_obstacle *o, const double p[3], double c[3], double n[3]) {
  double u[3], a[3] = {0, 0, 0};
  switch (o->kind) {
    case SIM_OBS_PLANE: /* phi = p_y, n = e_y, c = (p_x, 0, p_z) */
      c[0] = p[0], c[1] = 0, c[2] = p[2];
      n[0] = 0, n[1] = 1, n[2] = 0;
      return p[1];
    case SIM_OBS_BOX:
      return sim_sdf_box(o->half, p, c, n);
    case SIM_OBS_CYLINDER:
      return sim_sdf_cylinder(o->radius, o->half_height, p, c, n);
    case SIM_OBS_CAPSULE:
      a[1] = fmin(fmax(p[1], -o->half_height), o->half_height);
      sim_sdf_radial_(p, u);
      return sim_sdf_round_(p, a, o->radius, u, c, n);
    case SIM_OBS_TORUS:
      sim_sdf_radial_(p, u);
      a[0] = o->major * u[0], a[2] = o->major * u[2];
      return sim_sdf_round_(p, a, o->radius, u, c, n);
    case SIM_OBS_SPHERE:
      sim_sdf_radial_(p, u);
      return sim_sdf_round_(p, a, o->radius, u, c, n);
    default: /* not a shape: far away, so it never makes a contact */
      c[0] = p[0], c[1] = p[1], c[2] = p[2];
      n[0] = 0, n[1] = 1, n[2] = 0;
      return HUGE_VAL;
  }
}

/* World query: p = R^T (x - pos), phi = phi_local(p), c = R c_l + pos, n = R n_l. */
SIM_HD double sim_obstacle_query(const sim_obstacle *o, const double x[3], double c[3],
                                 double n[3]) {
  const double *R = o->frame.rot, *t = o->frame.pos;
  const double d[3] = {x[0] - t[0], x[1] - t[1], x[2] - t[2]};
  double p[3], cl[3], nl[3];
  for (int j = 0; j < 3; j++) p[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
  const double phi = sim_sdf_local(o, p, cl, nl);
  for (int i = 0; i < 3; i++) {
    c[i] = R[3 * i] * cl[0] + R[3 * i + 1] * cl[1] + R[3 * i + 2] * cl[2] + t[i];
    n[i] = R[3 * i] * nl[0] + R[3 * i + 1] * nl[1] + R[3 * i + 2] * nl[2];
  }
  return phi;
}

SIM_HD double sim_obstacle_phi(const sim_obstacle *o, const double x[3]) {
  double c[3], n[3];
  return sim_obstacle_query(o, x, c, n);
}
SIM_HD void sim_obstacle_closest(const sim_obstacle *o, const double x[3], double c[3]) {
  double n[3];
  sim_obstacle_query(o, x, c, n);
}
SIM_HD void sim_obstacle_normal(const sim_obstacle *o, const double x[3], double n[3]) {
  double c[3];
  sim_obstacle_query(o, x, c, n);
}

/* Rigid velocity at world point y (pass the closest point: u_hat of DESIGN.md Sec. 6):
   u = vel + omega a x (y - pos), a = R e_y. On a spinning cylinder's side |u - vel| = |omega| r,
   tangential (u - vel is orthogonal to n and to a). */
SIM_HD void sim_obstacle_velocity(const sim_obstacle *o, const double y[3], double u[3]) {
  const double *R = o->frame.rot, *t = o->frame.pos;
  const double a[3] = {R[1], R[4], R[7]}, r[3] = {y[0] - t[0], y[1] - t[1], y[2] - t[2]};
  double w[3];
  sim_cross3(a, r, w);
  for (int i = 0; i < 3; i++) u[i] = o->vel[i] + o->omega * w[i];
}

/* Scripted motion over dt: pos += vel dt, R <- R Ry(omega dt) (spin about the local y axis,
   Ry(t) = [c 0 s; 0 1 0; -s 0 c]), so material points move with sim_obstacle_velocity. */
SIM_HD void sim_obstacle_advance(sim_obstacle *o, double dt) {
  const double th = o->omega * dt, cs = cos(th), sn = sin(th);
  double *R = o->frame.rot;
  for (int i = 0; i < 3; i++) {
    const double x = R[3 * i], z = R[3 * i + 2];
    R[3 * i] = cs * x - sn * z;
    R[3 * i + 2] = sn * x + cs * z;
    o->frame.pos[i] += o->vel[i] * dt;
  }
}

#endif

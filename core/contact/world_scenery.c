/* SPDX-License-Identifier: MIT */
/* Obstacles as triangles (world_scenery.h): boxes, surfaces of revolution, cut planes and
   infinite cylinders, mesh obstacles copied. */
#include "world_scenery.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"

#define PROFILE_MAX 32 /* rows of a profile curve */

void sim_scenery_clear(sim_scenery *s) { s->nv = s->nt = s->nobj = 0; }

void sim_scenery_free(sim_scenery *s) {
  sim_free(s->x);
  sim_free(s->tri);
  sim_free(s->tri_obj);
  sim_free(s->obj_v);
  sim_free(s->obj_t);
  sim_free(s->names);
  sim_free(s->frames);
  sim_free(s->rests);
  sim_free(s->posed);
  memset(s, 0, sizeof *s);
}

/* Grows the n arrays p[i] (bytes[i] per item) of one group together to at least need
   items; *cap stays the smallest size they all have. 0 or -1. */
static int grow_group(int *cap, long need, void **p[], const size_t bytes[], int n) {
  if (need <= *cap) return 0;
  long c = *cap > 0 ? *cap : 64;
  while (c < need) c *= 2;
  if (c > 0x3fffffffL) return -1;
  for (int i = 0; i < n; i++) {
    void *q = sim_realloc(*p[i], bytes[i] * (size_t)c);
    if (!q) return -1;
    *p[i] = q;
  }
  *cap = (int)c;
  return 0;
}

/* Room for nv more vertices, nt more triangles and one more object (+ its end marker). */
static int reserve(sim_scenery *s, long nv, long nt, sim_status *st) {
  void **pv[1] = {(void **)&s->x};
  void **pt[2] = {(void **)&s->tri, (void **)&s->tri_obj};
  void **po[6] = {(void **)&s->obj_v,  (void **)&s->obj_t, (void **)&s->names,
                  (void **)&s->frames, (void **)&s->rests, (void **)&s->posed};
  const size_t bv[1] = {3 * sizeof(double)}, bt[2] = {3 * sizeof(int), sizeof(int)};
  const size_t bo[6] = {sizeof(int),       sizeof(int),       sizeof(char *),
                        sizeof(sim_frame), sizeof(sim_frame), sizeof(int)};
  if (grow_group(&s->cap_v, s->nv + nv, pv, bv, 1) ||
      grow_group(&s->cap_t, s->nt + nt, pt, bt, 2) ||
      grow_group(&s->cap_obj, s->nobj + 2L, po, bo, 6))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (obstacle scenery)");
  return SIM_OK;
}

static void begin_object(sim_scenery *s, const char *name) {
  s->obj_v[s->nobj] = s->nv;
  s->obj_t[s->nobj] = s->nt;
  s->names[s->nobj] = name;
  s->posed[s->nobj] = 0;
}

static void end_object(sim_scenery *s) {
  s->nobj++;
  s->obj_v[s->nobj] = s->nv;
  s->obj_t[s->nobj] = s->nt;
}

/* Appends the local point p placed by o's frame: x = R p + pos. Returns its index. */
static int put_local(sim_scenery *s, const sim_obstacle *o, const double p[3]) {
  const double *R = o->frame.rot, *t = o->frame.pos;
  double *x = s->x + 3L * s->nv;
  for (int i = 0; i < 3; i++)
    x[i] = R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2] + t[i];
  return s->nv++;
}

static void put_tri(sim_scenery *s, int a, int b, int c) {
  if (a == b || b == c || c == a) return;
  int *t = s->tri + 3L * s->nt;
  t[0] = a, t[1] = b, t[2] = c;
  s->tri_obj[s->nt++] = s->nobj;
}

/* Surface of revolution about local y of the profile rows (r[j], y[j]), j < np (ascending
   along the profile, so that profile x around is outward): a row with r = 0 is one vertex
   (a pole), others SIM_SCENERY_SEGMENTS; wrap joins the last row to the first. */
static void add_revolution(sim_scenery *s, const sim_obstacle *o, int np, const double *r,
                           const double *y, int wrap) {
  const int N = SIM_SCENERY_SEGMENTS;
  int first[PROFILE_MAX];
  for (int j = 0; j < np; j++) {
    first[j] = s->nv;
    for (int i = 0; i < (r[j] == 0 ? 1 : N); i++) {
      const double th = 2.0 * SIM_PI * i / N;
      const double p[3] = {r[j] * cos(th), y[j], r[j] * sin(th)};
      put_local(s, o, p);
    }
  }
  for (int j = 0; j + 1 < np + wrap; j++) {
    const int k = (j + 1) % np;
    for (int i = 0; i < N; i++) {
      const int i1 = (i + 1) % N;
      const int a = first[j] + (r[j] == 0 ? 0 : i), b = first[j] + (r[j] == 0 ? 0 : i1);
      const int c = first[k] + (r[k] == 0 ? 0 : i), d = first[k] + (r[k] == 0 ? 0 : i1);
      put_tri(s, a, c, b);
      put_tri(s, c, d, b);
    }
  }
}

/* Whether the region lo..hi has a finite, non-empty extent along axis i. */
static int axis_ok(const double lo[3], const double hi[3], int i) {
  return lo && hi && isfinite(lo[i]) && isfinite(hi[i]) && lo[i] <= hi[i];
}

/* Region centre c and the cut half size L = max(1.5 max extent, 1) (an infinite
   cylinder's; a plane's: plane_half_side). */
static double region(const double lo[3], const double hi[3], double c[3]) {
  double ext = 0;
  for (int i = 0; i < 3; i++) {
    const int ok = axis_ok(lo, hi, i);
    c[i] = ok ? 0.5 * (lo[i] + hi[i]) : 0.0;
    ext = ok ? fmax(ext, hi[i] - lo[i]) : ext;
  }
  return fmax(1.5 * ext, 1.0);
}

/* c in o's local frame: R^T (c - pos). */
static void to_local(const sim_obstacle *o, const double c[3], double p[3]) {
  const double *R = o->frame.rot, *t = o->frame.pos;
  const double d[3] = {c[0] - t[0], c[1] - t[1], c[2] - t[2]};
  for (int j = 0; j < 3; j++) p[j] = R[j] * d[0] + R[3 + j] * d[1] + R[6 + j] * d[2];
}

/* A plane's square: the region's extent along the plane's local x and z (the box lo..hi
   projected on each, the larger), at least half the region's largest extent (a body seen
   edge-on); 1 m where both are 0. Cut as an infinite cylinder is (1.5 times the largest
   extent, at least 1 m), the grabbing example's floor was an 18 m square under a 6 m raptor
   and stick_slip's slope 2 m under a 0.2 m box: the planes took most of the preview. */
static double plane_half_side(const sim_obstacle *o, const double lo[3], const double hi[3]) {
  double along[2] = {0, 0}, ext = 0;
  for (int i = 0; i < 3; i++) {
    if (!axis_ok(lo, hi, i)) continue;
    const double e = hi[i] - lo[i];
    along[0] += fabs(o->frame.rot[3 * i]) * e;     /* local x's world component i */
    along[1] += fabs(o->frame.rot[3 * i + 2]) * e; /* local z's */
    ext = fmax(ext, e);
  }
  const double L = fmax(fmax(along[0], along[1]), 0.5 * ext);
  return L > 0 ? L : 1.0;
}

/* The square of half side L in the plane y = 0 about the projection of c; normal +y. */
static void add_plane(sim_scenery *s, const sim_obstacle *o, const double c[3], double L) {
  double p[3];
  to_local(o, c, p);
  int v[4];
  for (int k = 0; k < 4; k++) { /* (-,-), (+,-), (+,+), (-,+) in (x, z) */
    const double q[3] = {p[0] + ((k == 1 || k == 2) ? L : -L), 0.0, p[2] + (k >= 2 ? L : -L)};
    v[k] = put_local(s, o, q);
  }
  put_tri(s, v[0], v[3], v[2]);
  put_tri(s, v[0], v[2], v[1]);
}

/* 8 corners (index bits x, y, z), 12 triangles turned outward. */
static void add_box(sim_scenery *s, const sim_obstacle *o) {
  static const int quads[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                  {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  double p[8][3];
  const int v0 = s->nv;
  for (int i = 0; i < 8; i++) {
    for (int d = 0; d < 3; d++) p[i][d] = ((i >> d) & 1) ? o->half[d] : -o->half[d];
    put_local(s, o, p[i]);
  }
  for (int q = 0; q < 6; q++) {
    const int *f = quads[q];
    double e1[3], e2[3], n[3], m[3];
    for (int d = 0; d < 3; d++) {
      e1[d] = p[f[1]][d] - p[f[0]][d];
      e2[d] = p[f[2]][d] - p[f[0]][d];
      m[d] = p[f[0]][d] + p[f[2]][d];
    }
    sim_cross3(e1, e2, n);
    const int out = sim_dot3(n, m) >= 0;
    put_tri(s, v0 + f[0], v0 + f[out ? 1 : 2], v0 + f[out ? 2 : 1]);
    put_tri(s, v0 + f[0], v0 + f[out ? 2 : 3], v0 + f[out ? 3 : 2]);
  }
}

/* Profile rows of the round shapes; returns the row count (wrap for the torus). */
static int round_profile(const sim_obstacle *o, const double c[3], double L, double *r,
                         double *y, int *wrap) {
  const double R = o->radius, H = o->half_height;
  int n = 0;
  *wrap = 0;
  if (o->kind == SIM_OBS_SPHERE || o->kind == SIM_OBS_CAPSULE) {
    /* meridian of the sphere; a capsule's lower half about -H, upper about +H, its equator
       row twice (the two ends of the straight side) */
    const int M = SIM_SCENERY_SEGMENTS / 2;
    const double h = o->kind == SIM_OBS_CAPSULE && H > 0 ? H : 0.0;
    for (int j = 0; j <= M; j++) {
      const double ph = SIM_PI * j / M, rj = (j == 0 || j == M) ? 0.0 : R * sin(ph);
      const double yj = -R * cos(ph);
      if (2 * j <= M) r[n] = rj, y[n++] = yj - h;
      if (2 * j >= M && (h > 0 || 2 * j > M)) r[n] = rj, y[n++] = yj + h;
    }
  } else if (o->kind == SIM_OBS_TORUS) {
    const int M = 16;
    for (; n < M; n++) {
      const double ps = 2.0 * SIM_PI * n / M;
      r[n] = o->major + R * cos(ps), y[n] = R * sin(ps);
    }
    *wrap = 1;
  } else if (H > 0) { /* finite cylinder with its caps */
    const double rr[4] = {0, R, R, 0}, yy[4] = {-H, -H, H, H};
    for (; n < 4; n++) r[n] = rr[n], y[n] = yy[n];
  } else { /* infinite cylinder: the open tube of half length L about c's axis point */
    double p[3];
    to_local(o, c, p);
    r[0] = r[1] = R;
    y[0] = p[1] - L, y[1] = p[1] + L;
    n = 2;
  }
  return n;
}

int sim_scenery_add_obstacle(sim_scenery *s, const sim_obstacle *o, const double lo[3],
                             const double hi[3], const char *name, sim_status *st) {
  const int N = SIM_SCENERY_SEGMENTS;
  int rc = reserve(s, (long)PROFILE_MAX * N, 2L * PROFILE_MAX * N, st);
  if (rc) return rc;
  double c[3], r[PROFILE_MAX], y[PROFILE_MAX];
  const double L = region(lo, hi, c);
  begin_object(s, name);
  s->frames[s->nobj] = s->rests[s->nobj] = o->frame; /* rest: sim_world_scenery's to say */
  s->posed[s->nobj] = 1;
  if (o->kind == SIM_OBS_PLANE) {
    add_plane(s, o, c, plane_half_side(o, lo, hi));
  } else if (o->kind == SIM_OBS_BOX) {
    add_box(s, o);
  } else if (o->kind >= SIM_OBS_SPHERE && o->kind < SIM_OBS_KIND_COUNT) {
    int wrap;
    const int np = round_profile(o, c, L, r, y, &wrap);
    add_revolution(s, o, np, r, y, wrap);
  }
  end_object(s);
  return SIM_OK;
}

int sim_scenery_add_mesh(sim_scenery *s, int nv, const double *x, int nt, const int *tri,
                         const char *name, sim_status *st) {
  if (nv < 0 || nt < 0 || (nv > 0 && !x) || (nt > 0 && !tri))
    return sim_fail(st, SIM_ERR_INTERNAL, "obstacle %s: bad mesh (nv %d, nt %d)",
                    name ? name : "?", nv, nt);
  for (long k = 0; k < 3L * nt; k++)
    if (tri[k] < 0 || tri[k] >= nv)
      return sim_fail(st, SIM_ERR_INTERNAL, "obstacle %s: triangle %ld vertex %d out of range",
                      name ? name : "?", k / 3, tri[k]);
  int rc = reserve(s, nv, nt, st);
  if (rc) return rc;
  begin_object(s, name);
  const int v0 = s->nv;
  if (nv > 0) memcpy(s->x + 3L * v0, x, sizeof(double) * 3 * (size_t)nv);
  s->nv += nv;
  for (int t = 0; t < nt; t++)
    put_tri(s, v0 + tri[3 * t], v0 + tri[3 * t + 1], v0 + tri[3 * t + 2]);
  end_object(s);
  return SIM_OK;
}

static const char *obstacle_name(const sim_world *w, int def) {
  const sim_scene *sc = w->m ? w->m->scene : NULL;
  return sc && def >= 0 && def < sc->nobstacles ? sc->obstacles[def].name : NULL;
}

int sim_world_scenery(const sim_world *w, double t, const double lo[3], const double hi[3],
                      sim_scenery *out, sim_status *st) {
  sim_scenery_clear(out);
  int rc = reserve(out, 0, 0, st); /* obj_v[0] exists even with no obstacle */
  if (rc) return rc;
  out->obj_v[0] = out->obj_t[0] = 0;
  for (int k = 0; !rc && k < w->nobs; k++) {
    const sim_obstacle o = sim_world_obstacle_at(w, k, t);
    rc = sim_scenery_add_obstacle(out, &o, lo, hi,
                                  obstacle_name(w, w->obs_def ? w->obs_def[k] : -1), st);
    if (!rc && w->obs_frame0) out->rests[out->nobj - 1] = w->obs_frame0[k]; /* before its script */
  }
  for (int k = 0; !rc && k < w->nmesh; k++) {
    const sim_detect_mesh *me = &w->mesh[k];
    const int v0 = out->nv;
    rc = sim_scenery_add_mesh(out, me->nv, me->x, me->nt, me->tri,
                              obstacle_name(w, w->mesh_def ? w->mesh_def[k] : -1), st);
    if (!rc && me->moving) sim_world_mesh_at(w, k, t, out->x + 3 * (size_t)v0); /* posed at t */
  }
  return rc;
}

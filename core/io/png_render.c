/* SPDX-License-Identifier: MIT */
/* Preview images: camera fit, z-buffered software rasteriser of the surface, libpng output. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/mathx.h"
#include "output.h"

/* Body colours (Tableau 10, grey left out so bodies stay apart from the background). */
static const unsigned char k_palette[9][3] = {
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {188, 189, 34}, {23, 190, 207}};

#define SS_MAX_PIXELS (4096L * 4096L) /* supersample 2x2 only up to this many samples */

static double normalize3(double a[3]) {
  double n = sqrt(sim_dot3(a, a));
  if (n > 0) {
    a[0] /= n;
    a[1] /= n;
    a[2] /= n;
  }
  return n;
}

/* Widens [lo, hi] by the finite point p; 1 when it was used. */
static int bounds_add(double lo[3], double hi[3], const double *p) {
  if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) return 0;
  for (int d = 0; d < 3; d++) {
    lo[d] = fmin(lo[d], p[d]);
    hi[d] = fmax(hi[d], p[d]);
  }
  return 1;
}

/* Bounds of the bodies' surface (all vertices without triangles) and the scenery. */
static int view_bounds(const sim_frame_view *f, const sim_scenery_view *s, double lo[3],
                       double hi[3]) {
  int any = 0;
  if (f && f->x) {
    int use_tri = f->ntri > 0 && f->tri;
    long n = use_tri ? 3L * f->ntri : f->nv;
    for (long k = 0; k < n; k++) {
      int i = use_tri ? f->tri[k] : (int)k;
      if (i >= 0 && i < f->nv) any |= bounds_add(lo, hi, f->x + 3L * i);
    }
  }
  if (s && s->sx && s->nst > 0)
    for (int i = 0; i < s->nsv; i++) any |= bounds_add(lo, hi, s->sx + 3L * i);
  return any;
}

void sim_camera_fit(const sim_frame_view *f, sim_camera *cam) {
  sim_camera_fit_scenery(f, NULL, cam);
}

/* The camera looking at the box [lo, hi] from the front, right and above; 0 when its eye and
   the eye's distance to the target squared are finite. */
static int camera_on(const double lo[3], const double hi[3], sim_camera *cam) {
  double r = 0;
  for (int d = 0; d < 3; d++) {
    cam->target[d] = 0.5 * (lo[d] + hi[d]);
    r += 0.25 * (hi[d] - lo[d]) * (hi[d] - lo[d]);
  }
  r = sqrt(r); /* radius of the box's bounding sphere (inf where the box overflows) */
  if (!(r > 0)) r = 0.5;
  cam->fov_deg = 35.0;
  /* front (+z), right (+x), above (+y: y is up) */
  double dir[3] = {0.6, 0.5, 1.0};
  normalize3(dir);
  double dist = 1.08 * r / sin(0.5 * cam->fov_deg * SIM_PI / 180.0);
  for (int d = 0; d < 3; d++) cam->eye[d] = cam->target[d] + dist * dir[d];
  cam->up[0] = 0.0;
  cam->up[1] = 1.0;
  cam->up[2] = 0.0;
  /* view_setup squares the distance from the eye to the target */
  const int eye_ok = isfinite(cam->eye[0]) && isfinite(cam->eye[1]) && isfinite(cam->eye[2]);
  return eye_ok && isfinite(2.0 * dist * dist) ? 0 : -1;
}

/* Fitted to the bodies and the scenery; to the bodies alone where scenery so far away (an
   obstacle placed near 1e308 m) puts the eye beyond the doubles, then to the unit box. */
void sim_camera_fit_scenery(const sim_frame_view *f, const sim_scenery_view *s,
                            sim_camera *cam) {
  const double unit_lo[3] = {-0.5, -0.5, -0.5}, unit_hi[3] = {0.5, 0.5, 0.5};
  for (int pass = 0; pass < 2; pass++) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (view_bounds(f, pass == 0 ? s : NULL, lo, hi) && camera_on(lo, hi, cam) == 0) return;
  }
  camera_on(unit_lo, unit_hi, cam);
}

/* Camera frame: s (right), u (up), w (forward), eye; pixel focal length, image centre. */
typedef struct view {
  double s[3], u[3], w[3], eye[3];
  double focal, cx, cy, znear;
  double light[3]; /* towards the key light, world frame */
} view;

static int view_setup(view *v, const sim_camera *cam, int w, int h) {
  for (int d = 0; d < 3; d++) {
    v->eye[d] = cam->eye[d];
    v->w[d] = cam->target[d] - cam->eye[d];
  }
  double dist = normalize3(v->w);
  if (!(dist > 0) || !isfinite(dist) || !(cam->fov_deg > 0 && cam->fov_deg < 180)) return -1;
  sim_cross3(v->w, cam->up, v->s);
  if (!(normalize3(v->s) > 1e-12 * sqrt(sim_dot3(cam->up, cam->up)))) {
    /* up parallel to the view direction: take any perpendicular */
    double alt[3] = {fabs(v->w[0]) < 0.9 ? 1.0 : 0.0, fabs(v->w[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    sim_cross3(v->w, alt, v->s);
    normalize3(v->s);
  }
  sim_cross3(v->s, v->w, v->u);
  v->focal = 0.5 * h / tan(0.5 * cam->fov_deg * SIM_PI / 180.0);
  v->cx = 0.5 * w;
  v->cy = 0.5 * h;
  v->znear = 1e-4 * dist;
  /* headlight-ish key light: from the camera, a little above and to the right */
  for (int d = 0; d < 3; d++) v->light[d] = -v->w[d] + 0.55 * v->u[d] + 0.35 * v->s[d];
  normalize3(v->light);
  return 0;
}

typedef struct target {
  int w, h;
  float *inv_z;       /* 1 / depth per sample; 0 = empty */
  unsigned char *rgb; /* 3 * w * h */
} target;

/* Screen-space vertex: pixel coordinates and 1 / depth (linear in screen space). */
typedef struct svert {
  double x, y, iz;
} svert;

static double edge(const svert *a, const svert *b, double px, double py) {
  return (b->x - a->x) * (py - a->y) - (b->y - a->y) * (px - a->x);
}

static void raster_tri(target *t, svert a, svert b, svert c, const unsigned char col[3]) {
  double area = edge(&a, &b, c.x, c.y);
  if (!(fabs(area) > 1e-12)) return;
  if (area < 0) {
    svert tmp = b;
    b = c;
    c = tmp;
    area = -area;
  }
  double x0 = fmax(floor(fmin(a.x, fmin(b.x, c.x))), 0.0);
  double x1 = fmin(ceil(fmax(a.x, fmax(b.x, c.x))), t->w - 1.0);
  double y0 = fmax(floor(fmin(a.y, fmin(b.y, c.y))), 0.0);
  double y1 = fmin(ceil(fmax(a.y, fmax(b.y, c.y))), t->h - 1.0);
  if (!(x0 <= x1 && y0 <= y1)) return;
  const double inv_area = 1.0 / area;
  for (int py = (int)y0; py <= (int)y1; py++) {
    double sy = py + 0.5;
    for (int px = (int)x0; px <= (int)x1; px++) {
      double sx = px + 0.5;
      double l0 = edge(&b, &c, sx, sy), l1 = edge(&c, &a, sx, sy), l2 = edge(&a, &b, sx, sy);
      if (l0 < 0 || l1 < 0 || l2 < 0) continue;
      float iz = (float)((l0 * a.iz + l1 * b.iz + l2 * c.iz) * inv_area);
      long idx = (long)py * t->w + px;
      if (!(iz > t->inv_z[idx])) continue;
      t->inv_z[idx] = iz;
      memcpy(t->rgb + 3 * idx, col, 3);
    }
  }
}

/* Camera-space point (x right, y up, z forward). */
typedef struct cvert {
  double p[3];
} cvert;

static svert project(const view *v, const cvert *c) {
  svert s;
  s.x = v->cx + v->focal * c->p[0] / c->p[2];
  s.y = v->cy - v->focal * c->p[1] / c->p[2];
  s.iz = 1.0 / c->p[2];
  return s;
}

/* Clips the triangle to z >= znear (Sutherland-Hodgman, at most 4 vertices), then fills. */
static void draw_tri(target *t, const view *v, const cvert in[3], const unsigned char col[3]) {
  cvert poly[4];
  int n = 0;
  for (int k = 0; k < 3; k++) {
    const cvert *p = &in[k], *q = &in[(k + 1) % 3];
    int pin = p->p[2] >= v->znear, qin = q->p[2] >= v->znear;
    if (pin) poly[n++] = *p;
    if (pin != qin) {
      double s = (v->znear - p->p[2]) / (q->p[2] - p->p[2]);
      cvert m;
      for (int d = 0; d < 3; d++) m.p[d] = p->p[d] + s * (q->p[d] - p->p[d]);
      m.p[2] = v->znear;
      poly[n++] = m;
    }
  }
  if (n < 3) return;
  svert sv[4];
  for (int k = 0; k < n; k++) sv[k] = project(v, &poly[k]);
  for (int k = 1; k + 1 < n; k++) raster_tri(t, sv[0], sv[k], sv[k + 1], col);
}

/* Lambert shading, two-sided: the normal is turned towards the eye. */
static void shade(const view *v, const double *p0, const double *p1, const double *p2,
                  const unsigned char base[3], unsigned char out[3]) {
  double e1[3], e2[3], n[3], toeye[3];
  for (int d = 0; d < 3; d++) {
    e1[d] = p1[d] - p0[d];
    e2[d] = p2[d] - p0[d];
    toeye[d] = v->eye[d] - (p0[d] + p1[d] + p2[d]) / 3.0;
  }
  sim_cross3(e1, e2, n);
  normalize3(n);
  if (sim_dot3(n, toeye) < 0)
    for (int d = 0; d < 3; d++) n[d] = -n[d];
  double key = fmax(0.0, sim_dot3(n, v->light));
  double fill = fmax(0.0, sim_dot3(n, v->u)); /* soft light from the top of the frame */
  double li = fmin(1.0, 0.25 + 0.65 * key + 0.15 * fill);
  for (int c = 0; c < 3; c++) out[c] = (unsigned char)lrint(fmin(255.0, base[c] * li));
}

/* One world-space triangle, shaded from base and drawn (skipped if not finite). */
static void draw_world_tri(target *t, const view *v, const double *p[3],
                           const unsigned char base[3]) {
  cvert c[3];
  for (int k = 0; k < 3; k++)
    if (!isfinite(p[k][0]) || !isfinite(p[k][1]) || !isfinite(p[k][2])) return;
  for (int k = 0; k < 3; k++) {
    double dp[3] = {p[k][0] - v->eye[0], p[k][1] - v->eye[1], p[k][2] - v->eye[2]};
    c[k].p[0] = sim_dot3(dp, v->s);
    c[k].p[1] = sim_dot3(dp, v->u);
    c[k].p[2] = sim_dot3(dp, v->w);
  }
  unsigned char col[3];
  shade(v, p[0], p[1], p[2], base, col);
  draw_tri(t, v, c, col);
}

static void render(target *t, const view *v, const sim_frame_view *f,
                   const sim_scenery_view *s) {
  static const unsigned char grey[3] = {SIM_RENDER_SCENERY, SIM_RENDER_SCENERY,
                                        SIM_RENDER_SCENERY};
  for (int tr = 0; tr < f->ntri; tr++) {
    const double *p[3];
    for (int k = 0; k < 3; k++) p[k] = f->x + 3L * f->tri[3 * tr + k];
    int body = f->tri_body ? f->tri_body[tr] : 0;
    draw_world_tri(t, v, p, k_palette[body % 9]);
  }
  for (int tr = 0; s && tr < s->nst; tr++) {
    const double *p[3];
    for (int k = 0; k < 3; k++) p[k] = s->sx + 3L * s->stri[3 * tr + k];
    draw_world_tri(t, v, p, grey);
  }
}

/* The optional scenery: counts, arrays, indices in [0, nsv). */
static int scenery_check(const char *path, const sim_scenery_view *f, sim_status *st) {
  if (!f) return SIM_OK;
  if (f->nsv < 0 || f->nst < 0 || (f->nsv > 0 && !f->sx) || (f->nst > 0 && !f->stri))
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: bad scenery (%d vertices, %d triangles)", path,
                    f->nsv, f->nst);
  for (long k = 0; k < 3L * f->nst; k++)
    if (f->stri[k] < 0 || f->stri[k] >= f->nsv)
      return sim_fail(st, SIM_ERR_INTERNAL,
                      "%s: scenery triangle %ld vertex %d out of range [0, %d)", path, k / 3,
                      f->stri[k], f->nsv);
  return SIM_OK;
}

/* ---- libpng output; errors come back through longjmp to write_png ---- */
typedef struct png_errbuf {
  char msg[256];
} png_errbuf;

static void png_error_cb(png_structp png, png_const_charp msg) {
  png_errbuf *e = (png_errbuf *)png_get_error_ptr(png);
  snprintf(e->msg, sizeof e->msg, "%s", msg ? msg : "libpng error");
  png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp msg) {
  (void)png;
  (void)msg;
}

static void png_body(png_structp png, png_infop info, const unsigned char *rgb, int w, int h) {
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, 6);
  png_write_info(png, info);
  for (int y = 0; y < h; y++) png_write_row(png, (png_const_bytep)(rgb + 3L * w * y));
  png_write_end(png, info);
}

/* 0 on success; on failure -1 with the reason in e. */
static int write_png(FILE *fp, const unsigned char *rgb, int w, int h, png_errbuf *e) {
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, e, png_error_cb, png_warning_cb);
  if (!png) {
    snprintf(e->msg, sizeof e->msg, "cannot create PNG writer");
    return -1;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    snprintf(e->msg, sizeof e->msg, "cannot create PNG info");
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return -1;
  }
  png_init_io(png, fp);
  png_body(png, info, rgb, w, h);
  png_destroy_write_struct(&png, &info);
  return 0;
}

int sim_render_png(const char *path, const sim_frame_view *f, const sim_camera *cam, int width,
                   int height, sim_status *st) {
  return sim_render_png_scenery(path, f, NULL, cam, width, height, st);
}

int sim_render_png_scenery(const char *path, const sim_frame_view *f, const sim_scenery_view *s,
                           const sim_camera *cam, int width, int height, sim_status *st) {
  int rc = sim_frame_view_check(f, st);
  if (!rc) rc = scenery_check(path, s, st);
  if (rc) return rc;
  if (width < 1 || height < 1 || width > 16384 || height > 16384)
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: bad image size %dx%d", path, width, height);
  sim_camera fitted;
  if (!cam) {
    sim_camera_fit_scenery(f, s, &fitted);
    cam = &fitted;
  }
  const int ss = (long)width * height * 4 <= SS_MAX_PIXELS ? 2 : 1; /* 2x2 supersampling */
  target t = {width * ss, height * ss, NULL, NULL};
  view v;
  if (view_setup(&v, cam, t.w, t.h))
    return sim_fail(st, SIM_ERR_INTERNAL, "%s: degenerate camera (eye == target or bad fov %g)",
                    path, cam->fov_deg);
  const size_t npix = (size_t)t.w * (size_t)t.h;
  t.inv_z = SIM_NEW0(float, npix);
  t.rgb = SIM_NEW(unsigned char, 3 * npix);
  unsigned char *img = SIM_NEW(unsigned char, 3 * (size_t)width * (size_t)height);
  if (!t.inv_z || !t.rgb || !img) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "%s: out of memory for a %dx%d image", path, width, height);
    goto done;
  }
  memset(t.rgb, SIM_RENDER_BG, 3 * npix);
  render(&t, &v, f, s);
  /* box filter down to the output size, integer rounding */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < 3; c++) {
        int sum = 0;
        for (int j = 0; j < ss; j++)
          for (int i = 0; i < ss; i++)
            sum += t.rgb[3 * ((size_t)(y * ss + j) * t.w + (size_t)(x * ss + i)) + c];
        img[3 * ((size_t)y * width + x) + c] = (unsigned char)((sum + ss * ss / 2) / (ss * ss));
      }

  sim_atomic_file af;
  rc = sim_atomic_open(&af, path, "wb", st);
  if (rc) goto done;
  png_errbuf e = {{0}};
  if (write_png(af.f, img, width, height, &e)) {
    /* a failed fwrite: libpng says only "Write Error", errno says why (full, too large) */
    const int err = ferror(af.f) ? errno : 0;
    sim_atomic_abort(&af);
    if (err)
      rc = sim_fail(st, SIM_ERR_IO, "%s: write failed: %s", path, strerror(err));
    else
      rc = sim_fail(st, SIM_ERR_IO, "%s: PNG write failed: %s", path, e.msg);
    goto done;
  }
  rc = sim_atomic_commit(&af, st);
done:
  sim_free(t.inv_z);
  sim_free(t.rgb);
  sim_free(img);
  return rc;
}

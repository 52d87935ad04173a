/* SPDX-License-Identifier: MIT */
/* Mesh obstacles' vertices against the bodies' triangles (kind SIM_CONTACT_TRIANGLE,
   contact.h): a blade's tip or edge poking at cloth lies between the cloth's vertices, where
   vertex-against-obstacle detection cannot see it. world.h describes the passes. Here: the
   points (vertices and feature-edge samples) and the bodies' triangle trees, built once; each
   step's pass runs through the world's runner (detect_points.h: on the host, or on the device
   with the CUDA backend). */
#include "world_points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "contact/detect_crease.h"
#include "contact/detect_points.h"

typedef struct edge_ref {
  int a, b, t; /* a < b, triangle t */
} edge_ref;

static int edge_cmp(const void *x, const void *y) {
  const edge_ref *e = x, *f = y;
  if (e->a != f->a) return e->a < f->a ? -1 : 1;
  if (e->b != f->b) return e->b < f->b ? -1 : 1;
  return e->t < f->t ? -1 : e->t > f->t;
}

/* Points of mesh k that can poke between a body's vertices: its vertices, and samples every
   `step` along its feature edges (boundary edges of an open mesh, and edges whose two faces
   meet at more than 30 degrees), in reference coordinates. Counts when out is NULL. */
static int feature_points(const sim_detect_mesh *me, const double *x0, double step, double *out,
                          edge_ref *e) {
  int n = 0;
  for (int v = 0; v < me->nv; v++, n++)
    if (out) memcpy(out + 3 * (size_t)n, x0 + 3 * (size_t)v, sizeof(double) * 3);
  int ne = 0;
  for (int t = 0; t < me->nt; t++)
    for (int k = 0; k < 3; k++) {
      int a = me->tri[3 * t + k], b = me->tri[3 * t + (k + 1) % 3];
      e[ne].a = a < b ? a : b, e[ne].b = a < b ? b : a, e[ne++].t = t;
    }
  qsort(e, (size_t)ne, sizeof *e, edge_cmp);
  for (int i = 0; i < ne;) {
    int j = i + 1;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    int feature = j - i == 1;
    if (j - i == 2) {
      double n1[3], n2[3];
      sim_detect_face_normal(x0, me->tri + 3 * (size_t)e[i].t, n1);
      sim_detect_face_normal(x0, me->tri + 3 * (size_t)e[i + 1].t, n2);
      feature = sim_dot3(n1, n2) < 0.8660254037844386; /* cos 30 degrees */
    }
    if (feature) {
      const double *pa = x0 + 3 * (size_t)e[i].a, *pb = x0 + 3 * (size_t)e[i].b;
      double len = sqrt((pb[0] - pa[0]) * (pb[0] - pa[0]) + (pb[1] - pa[1]) * (pb[1] - pa[1]) +
                        (pb[2] - pa[2]) * (pb[2] - pa[2]));
      int segs = (int)ceil(len / step);
      for (int s = 1; s < segs; s++, n++)
        if (out)
          for (int d = 0; d < 3; d++) out[3 * (size_t)n + d] = pa[d] + (pb[d] - pa[d]) * s / segs;
    }
    i = j;
  }
  return n;
}

/* Mesh obstacle k's feature edges are sampled at half its margin: a body triangle cut by such
   an edge has a sample within the margin. */
static double sample_step(const sim_world *w, int k) {
  const double margin = sim_detect_margin(w->mesh[k].margin, w->par.margin);
  return margin > 0 ? 0.5 * margin : 0.005;
}

int sim_world_points_init(sim_world *w, sim_status *st) {
  const sim_model *m = w->m;
  w->tri_bvh = SIM_NEW0(sim_bvh, m->nbodies + 1);
  w->tri_view = SIM_NEW0(sim_bvh_view, m->nbodies + 1);
  w->body_cloth = SIM_NEW0(unsigned char, m->nbodies + 1);
  w->point_first = SIM_NEW0(int, w->nmesh + 1);
  if (!w->tri_bvh || !w->tri_view || !w->body_cloth || !w->point_first)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  w->pt_serial = sim_detect_new_serial();
  for (int b = 0; b < m->nbodies; b++)
    w->body_cloth[b] = m->scene->bodies[b].mesh.kind == SIM_SRC_CLOTH;
  if (w->nmesh == 0) return SIM_OK;
  int maxt = 0;
  for (int k = 0; k < w->nmesh; k++) maxt = w->mesh[k].nt > maxt ? w->mesh[k].nt : maxt;
  edge_ref *e = SIM_NEW(edge_ref, 3 * (size_t)maxt + 1);
  if (!e) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  for (int k = 0; k < w->nmesh; k++)
    w->point_first[k + 1] =
        w->point_first[k] + feature_points(&w->mesh[k], w->mesh_x0[k], sample_step(w, k), NULL, e);
  int np = w->point_first[w->nmesh];
  if (np >= SIM_CONTACT_CREASE) { /* a point's key, and its folds' (detect_point.h) */
    sim_free(e);
    return sim_fail(st, SIM_ERR_MESH,
                    "mesh obstacles: %d points (vertices and feature-edge samples at half the "
                    "margin), expected fewer than %d: a larger margin or coarser meshes",
                    np, SIM_CONTACT_CREASE);
  }
  w->pt_x0 = SIM_NEW(double, 3 * (size_t)np + 3);
  w->pt_x = SIM_NEW(double, 3 * (size_t)np + 3);
  w->pt_xs = SIM_NEW(double, 3 * (size_t)np + 3);
  if (!w->pt_x0 || !w->pt_x || !w->pt_xs) {
    sim_free(e);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d obstacle points)", np);
  }
  for (int k = 0; k < w->nmesh; k++)
    feature_points(&w->mesh[k], w->mesh_x0[k], sample_step(w, k),
                   w->pt_x0 + 3 * (size_t)w->point_first[k], e);
  sim_free(e);
  memcpy(w->pt_x, w->pt_x0, sizeof(double) * 3 * (size_t)np);
  memcpy(w->pt_xs, w->pt_x0, sizeof(double) * 3 * (size_t)np);
  int t0 = 0;
  for (int b = 0; b < m->nbodies; b++) {
    int t1 = t0;
    while (t1 < m->ntri && m->tri_body[t1] == b) t1++;
    int rc = sim_bvh_build(m->n, m->x_rest, t1 - t0, m->tri + 3 * (size_t)t0, &w->tri_bvh[b], st);
    if (rc) return rc;
    w->tri_first[b] = t0;
    t0 = t1;
  }
  return SIM_OK;
}

void sim_world_points_free(sim_world *w) {
  for (int b = 0; w->tri_bvh && b < w->m->nbodies; b++) sim_bvh_free(&w->tri_bvh[b]);
  sim_free(w->tri_bvh);
  sim_free(w->tri_view);
  sim_free(w->body_cloth);
  sim_free(w->point_first);
  sim_free(w->pt_x0);
  sim_free(w->pt_x);
  sim_free(w->pt_xs);
  w->pt_x0 = w->pt_x = w->pt_xs = NULL;
  sim_detect_contacts_free(&w->pts);
  w->tri_bvh = NULL;
  w->tri_view = NULL;
  w->body_cloth = NULL;
  w->point_first = NULL;
}

int sim_world_points_job(sim_world *w, const double *x, const double *x_prev,
                         const double *x_pred, sim_point_scene *s, sim_detect_points_job *job) {
  w->pts.n = 0;
  const sim_model *m = w->m;
  if (w->nmesh == 0) return 0;
  sim_point_scene ps = {w->pt_serial,  m->n,        m->nbodies,     m->ntri,
                        w->nmesh,      x,           x_prev,         x_pred,
                        w->tri_bvh,    w->tri_view, m->tri,         w->tri_first,
                        w->body_cloth, w->pinned,   w->point_first, w->pt_x,
                        w->pt_xs,      w->mesh,     w->par.margin,  w->par.creases};
  *s = ps;
  job->s = s, job->out = &w->pts, job->found = w->point_found;
  return 1;
}

int sim_world_point_mesh(const sim_world *w, int source) {
  source = sim_contact_surface_of(source);
  int k = 0;
  while (k + 1 < w->nmesh && w->point_first[k + 1] <= source) k++;
  return k;
}

/* SPDX-License-Identifier: MIT */
/* Collision detection: per-vertex SDF and BVH queries into per-thread buffers, merged in chunk
   order (detect.h states the contact conventions). Inputs: the scene's positions, obstacles,
   meshes and body surfaces. Workspace: a BVH per mesh and body, per-thread contact buffers and
   a chunk table, kept in sim_detect between steps. Fails on bad input and out of memory. */
#include "contact/detect.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "contact/detect_points.h"
#include "contact/detect_vertex.h"

struct sim_detect_buf_ { /* one cache line per thread: no false sharing of n */
  sim_contact *c;
  int n, cap, fail;
  char pad[64 - sizeof(sim_contact *) - 3 * sizeof(int)];
};

sim_detect_params sim_default_detect_params(void) {
  sim_detect_params p = {1e-3, 0.0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0};
  return p;
}

sim_detect_obstacle sim_default_detect_obstacle(sim_obstacle_kind kind) {
  sim_detect_obstacle o = {sim_default_obstacle(kind), 0.5, SIM_DETECT_ALL, {0, {0}, {0}}, -1.0};
  return o;
}

sim_detect_mesh sim_default_detect_mesh(void) {
  sim_detect_mesh m;
  memset(&m, 0, sizeof m);
  m.closed = 1;
  m.mu = 0.5;
  m.bodies = SIM_DETECT_ALL;
  m.margin = -1.0;
  return m;
}

/* ---------------- setup, run ---------------- */

void sim_detect_free(sim_detect *d) {
  for (int m = 0; d->mesh_bvh && m < d->nmesh; m++) sim_bvh_free(&d->mesh_bvh[m]);
  for (int b = 0; d->body_bvh && b < d->nbodies; b++) sim_bvh_free(&d->body_bvh[b]);
  for (int t = 0; t < d->nbuf; t++) sim_free(d->buf[t].c);
  sim_free(d->buf);
  sim_free(d->mesh_bvh);
  sim_free(d->body_bvh);
  sim_free(d->mesh_view);
  sim_free(d->body_view);
  sim_free(d->body_of);
  sim_free(d->chunk_thread);
  sim_free(d->chunk_first);
  sim_free(d->chunk_count);
  memset(d, 0, sizeof *d);
}

void sim_detect_contacts_free(sim_detect_contacts *c) {
  sim_free(c->c);
  memset(c, 0, sizeof *c);
}

int sim_detect_contacts_reserve(sim_detect_contacts *c, long long n, sim_status *st) {
  if (n <= c->cap) return SIM_OK;
  sim_contact *p = sim_realloc(c->c, sizeof(sim_contact) * (size_t)n);
  if (!p) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory for %lld contacts", n);
  c->c = p, c->cap = (int)n;
  return SIM_OK;
}

unsigned long long sim_detect_new_serial(void) {
  static atomic_ullong next_serial = 1;
  return atomic_fetch_add(&next_serial, 1);
}

int sim_detect_init(sim_detect *d, const sim_detect_scene *s, sim_status *st) {
  memset(d, 0, sizeof *d);
  d->serial = sim_detect_new_serial();
  if (s->nv < 0 || s->nobs < 0 || s->nmesh < 0 || s->nbodies < 0 || (s->nv > 0 && !s->x))
    return sim_fail(st, SIM_ERR_MESH, "detect: bad counts (%d vertices, %d obstacles, "
                    "%d meshes, %d bodies)", s->nv, s->nobs, s->nmesh, s->nbodies);
  int rc = SIM_OK;
  d->nv = s->nv, d->nmesh = s->nmesh, d->nbodies = s->nbodies;
  d->body_of = SIM_NEW(int, s->nv > 0 ? s->nv : 1);
  d->mesh_bvh = SIM_NEW0(sim_bvh, s->nmesh > 0 ? s->nmesh : 1);
  d->body_bvh = SIM_NEW0(sim_bvh, s->nbodies > 0 ? s->nbodies : 1);
  d->mesh_view = SIM_NEW0(sim_detect_mesh_view, s->nmesh > 0 ? s->nmesh : 1);
  d->body_view = SIM_NEW0(sim_detect_body_view, s->nbodies > 0 ? s->nbodies : 1);
  if (!d->body_of || !d->mesh_bvh || !d->body_bvh || !d->mesh_view || !d->body_view) {
    rc = sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
    goto fail;
  }
  for (int v = 0; v < s->nv; v++) d->body_of[v] = -1;
  for (int b = 0; b < s->nbodies; b++) {
    const sim_detect_body *bd = &s->body[b];
    if (bd->v0 < 0 || bd->nv < 0 || bd->nv > s->nv - bd->v0 || bd->nt < 0) {
      rc = sim_fail(st, SIM_ERR_MESH, "detect: body %d: vertex range %d + %d outside 0..%d",
                    b, bd->v0, bd->nv, s->nv);
      goto fail;
    }
    for (int v = bd->v0; v < bd->v0 + bd->nv; v++) {
      if (d->body_of[v] >= 0) {
        rc = sim_fail(st, SIM_ERR_MESH, "detect: vertex %d is in bodies %d and %d", v,
                      d->body_of[v], b);
        goto fail;
      }
      d->body_of[v] = b;
    }
    for (int i = 0; i < 3 * bd->nt; i++)
      if (bd->tri[i] < bd->v0 || bd->tri[i] >= bd->v0 + bd->nv) {
        rc = sim_fail(st, SIM_ERR_MESH, "detect: body %d: triangle %d has vertex %d outside "
                      "the body", b, i / 3, bd->tri[i]);
        goto fail;
      }
    if ((rc = sim_bvh_build(s->nv, s->x, bd->nt, bd->tri, &d->body_bvh[b], st))) goto fail;
    const sim_bvh_view bv = sim_bvh_view_of(&d->body_bvh[b]);
    for (int v = bd->v0; v < bd->v0 + bd->nv; v++) { /* the most edges a vertex owns */
      const int n = sim_bvh_edges_owned(&bv, v, 0, NULL, NULL);
      if (n > d->edge_most) d->edge_most = n, d->edge_most_v = v;
    }
  }
  for (int m = 0; m < s->nmesh; m++)
    if ((rc = sim_bvh_build(s->mesh[m].nv, s->mesh[m].x, s->mesh[m].nt, s->mesh[m].tri,
                            &d->mesh_bvh[m], st)))
      goto fail;
  return SIM_OK;
fail:
  sim_detect_free(d);
  return rc;
}

/* Per-thread buffers for T threads and the chunk table for nchunk chunks. */
static int reserve(sim_detect *d, int T, int nchunk) {
  if (d->nbuf < T) {
    sim_detect_buf_ *b = sim_realloc(d->buf, sizeof *b * (size_t)T);
    if (!b) return 0;
    memset(b + d->nbuf, 0, sizeof *b * (size_t)(T - d->nbuf));
    d->buf = b, d->nbuf = T;
  }
  if (d->nchunk < nchunk) {
    int *a = sim_realloc(d->chunk_thread, sizeof(int) * (size_t)nchunk);
    if (a) d->chunk_thread = a;
    int *f = sim_realloc(d->chunk_first, sizeof(int) * (size_t)nchunk);
    if (f) d->chunk_first = f;
    int *c = sim_realloc(d->chunk_count, sizeof(int) * (size_t)nchunk);
    if (c) d->chunk_count = c;
    if (!a || !f || !c) return 0;
    d->nchunk = nchunk;
  }
  return 1;
}

int sim_detect_check(const sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
                     sim_detect_contacts *out, sim_status *st) {
  out->n = 0;
  out->min_sep = p->min_sep;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) out->count[k] = 0;
  if (s->nv != d->nv || s->nmesh != d->nmesh || s->nbodies != d->nbodies)
    return sim_fail(st, SIM_ERR_INTERNAL, "detect: scene differs from the one given to init");
  if (!(p->margin >= 0) || !isfinite(p->margin))
    return sim_fail(st, SIM_ERR_SCENE, "detect: margin %g must be finite and >= 0", p->margin);
  for (int i = 1; p->skip && i < p->nskip; i++) /* the vertex's range is found by bisection */
    if (p->skip[i].v < p->skip[i - 1].v)
      return sim_fail(st, SIM_ERR_INTERNAL, "detect: skip list not sorted by vertex at %d", i);
  if ((p->edge_edge || p->obstacle_edges) && d->edge_most > SIM_CONTACT_EDGE_SLOTS)
    return sim_fail(st, SIM_ERR_MESH,
                    "detect: vertex %d has %d surface edges to higher-numbered vertices; "
                    "%s contact takes at most %d",
                    d->edge_most_v, d->edge_most, p->edge_edge ? "edge-edge" : "edge-obstacle",
                    SIM_CONTACT_EDGE_SLOTS);
  if (p->edge_edge && d->nv > SIM_CONTACT_EDGE_VERTS)
    return sim_fail(st, SIM_ERR_MESH, "detect: %d vertices; edge-edge contact takes at most %d",
                    d->nv, SIM_CONTACT_EDGE_VERTS);
  for (int i = 1; p->sides && i < p->nsides; i++) { /* found by bisection too */
    const sim_detect_side *b = &p->sides[i];
    if (sim_detect_side_cmp(&p->sides[i - 1], b->v, b->kind, b->source) >= 0)
      return sim_fail(st, SIM_ERR_INTERNAL, "detect: sides not sorted by key at %d", i);
  }
  return SIM_OK;
}

/* The host view of s (d's BVHs, refit to s's positions; detect.h sim_detect_bodies_swept). */
static sim_detect_view host_view(sim_detect *d, const sim_detect_scene *s,
                                 const sim_detect_params *p) {
  for (int m = 0; m < s->nmesh; m++) {
    const sim_detect_mesh *me = &s->mesh[m];
    sim_detect_mesh_view *mv = &d->mesh_view[m];
    if (me->moving) sim_bvh_refit(&d->mesh_bvh[m], me->x);
    mv->bvh = sim_bvh_view_of(&d->mesh_bvh[m]);
    mv->x = me->x, mv->tri = me->tri, mv->closed = me->closed;
    mv->mu = me->mu, mv->bodies = me->bodies, mv->step = me->step, mv->margin = me->margin;
    for (int k = 0; k < 3; k++)
      mv->vel[k] = me->vel[k], mv->omega[k] = me->omega[k], mv->center[k] = me->center[k];
  }
  for (int b = 0; b < s->nbodies; b++) {
    sim_bvh_refit_swept(&d->body_bvh[b], s->x, sim_detect_bodies_swept(p) ? s->x_prev : NULL);
    d->body_view[b].bvh = sim_bvh_view_of(&d->body_bvh[b]);
    d->body_view[b].tri = s->body[b].tri;
    d->body_view[b].mu = s->body[b].mu;
    d->body_view[b].open = s->body[b].open;
    d->body_view[b].rest = s->body[b].rest, d->body_view[b].rest_gap = s->body[b].rest_gap;
  }
  sim_detect_view v = {s->nv,
                       s->x,
                       s->x_prev,
                       s->pinned,
                       d->body_of,
                       s->nobs,
                       s->nmesh,
                       s->nbodies,
                       s->obs,
                       d->mesh_view,
                       d->body_view,
                       p->margin,
                       p->self_collision,
                       p->face_prev,
                       p->inside_only,
                       p->nskip > 0 ? p->skip : NULL,
                       p->nskip,
                       p->at_start,
                       p->sweep,
                       p->nsides > 0 ? p->sides : NULL,
                       p->nsides,
                       p->no_others,
                       p->edge_edge,
                       p->renew,
                       p->creases,
                       p->obstacle_edges};
  return v;
}

/* Room for `more` contacts in b. */
static int buf_room(sim_detect_buf_ *b, int more) {
  if (b->cap - b->n >= more) return 1;
  int cap = b->cap ? 2 * b->cap : 64;
  while (cap - b->n < more) cap *= 2;
  sim_contact *c = sim_realloc(b->c, sizeof(sim_contact) * (size_t)cap);
  if (!c) return 0;
  b->c = c, b->cap = cap;
  return 1;
}

/* sim_detect_vertex with edge_edge into b (room for sim_detect_most + SIM_DETECT_EDGE_ROOM
   contacts): its edges' contacts, which have no bound, into the room left, and where they are
   more, found again into a buffer grown to hold them (b->fail where it cannot); then its
   edges' against the obstacles (obstacle_edges), within sim_detect_most's room. */
#define SIM_DETECT_EDGE_ROOM 64
static int vertex_and_edges(const sim_detect_view *s, int v, sim_detect_buf_ *b) {
  int lo, hi;
  sim_detect_skip_range(s, v, &lo, &hi);
  int n = sim_detect_vertex_point(s, v, lo, hi, b->c + b->n);
  const int cap = b->cap - b->n - n;
  const int ne = sim_detect_edges(s, v, lo, hi, b->c + b->n + n, cap);
  if (ne > cap) {
    if (!buf_room(b, n + ne)) {
      b->fail = 1;
      return 0;
    }
    sim_detect_edges(s, v, lo, hi, b->c + b->n + n, ne);
  }
  n += ne;
  if (s->obstacle_edges) { /* grown where needed: what is written stays */
    if (!buf_room(b, n + sim_detect_most(s))) {
      b->fail = 1;
      return 0;
    }
    n += sim_detect_obstacle_edges(s, v, lo, hi, b->c + b->n + n);
  }
  return n;
}

#ifdef SIM_DETECT_TALLY
/* detect_tally.h: the counts of the vertex being queried, and a thread's sums over a pass */
_Thread_local long sim_tally_boxes, sim_tally_tris;
typedef struct tally {
  long boxes, tris, max_boxes, max_tris, max_both, busiest;
  char pad[16]; /* a cache line a thread */
} tally;
#define TALLY_BEGIN() (sim_tally_boxes = sim_tally_tris = 0)
#define TALLY_VERTEX(v) tally_vertex(&tl[omp_get_thread_num()], (v))
static void tally_vertex(tally *t, int v) {
  const long both = sim_tally_boxes + sim_tally_tris;
  t->boxes += sim_tally_boxes, t->tris += sim_tally_tris;
  if (sim_tally_boxes > t->max_boxes) t->max_boxes = sim_tally_boxes;
  if (sim_tally_tris > t->max_tris) t->max_tris = sim_tally_tris;
  if (both > t->max_both) t->max_both = both, t->busiest = v;
}
/* one line per pass: its vertices, contacts, the mean and the busiest vertex's counts */
static void tally_print(const tally *t, int T, int nv, int found) {
  tally a = {0};
  for (int i = 0; i < T; i++) {
    a.boxes += t[i].boxes, a.tris += t[i].tris;
    if (t[i].max_boxes > a.max_boxes) a.max_boxes = t[i].max_boxes;
    if (t[i].max_tris > a.max_tris) a.max_tris = t[i].max_tris;
    if (t[i].max_both > a.max_both) a.max_both = t[i].max_both, a.busiest = t[i].busiest;
  }
  fprintf(stderr,
          "detect tally: vertices %d contacts %d boxes mean %.3f max %ld triangles mean %.3f "
          "max %ld busiest %ld (vertex %ld)\n",
          nv, found, nv ? (double)a.boxes / nv : 0.0, a.max_boxes, nv ? (double)a.tris / nv : 0.0,
          a.max_tris, a.max_both, a.busiest);
}
#else
#define TALLY_BEGIN() ((void)0)
#define TALLY_VERTEX(v) ((void)0)
#endif

int sim_detect_run(sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
                   sim_detect_contacts *out, sim_status *st) {
  int rc = sim_detect_check(d, s, p, out, st);
  if (rc) return rc;
  const sim_detect_view view = host_view(d, s, p);
  const int most = sim_detect_most(&view); /* contacts of one vertex as a point */
  const int T = omp_get_max_threads(), nchunk = (s->nv + SIM_DETECT_CHUNK - 1) / SIM_DETECT_CHUNK;
  if (!reserve(d, T, nchunk)) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
  for (int t = 0; t < T; t++) d->buf[t].n = 0, d->buf[t].fail = 0;
#ifdef SIM_DETECT_TALLY
  tally *tl = SIM_NEW0(tally, T);
  if (!tl) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
#endif
#pragma omp parallel num_threads(T)
  {
    sim_detect_buf_ *b = &d->buf[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < nchunk; k++) {
      d->chunk_thread[k] = omp_get_thread_num();
      d->chunk_first[k] = b->n;
      const int end = k == nchunk - 1 ? s->nv : (k + 1) * SIM_DETECT_CHUNK;
      for (int v = k * SIM_DETECT_CHUNK; v < end && !b->fail; v++) {
        if (!buf_room(b, most + (view.edges ? SIM_DETECT_EDGE_ROOM : 0))) {
          b->fail = 1;
          break;
        }
        TALLY_BEGIN();
        b->n +=
            view.edges ? vertex_and_edges(&view, v, b) : sim_detect_vertex(&view, v, b->c + b->n);
        TALLY_VERTEX(v);
      }
      d->chunk_count[k] = b->n - d->chunk_first[k];
    }
  }
  long long total = 0;
  for (int k = 0; k < nchunk; k++) total += d->chunk_count[k];
#ifdef SIM_DETECT_TALLY
  tally_print(tl, T, s->nv, (int)total);
  sim_free(tl);
#endif
  for (int t = 0; t < T; t++)
    if (d->buf[t].fail) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
  if (sim_detect_contacts_reserve(out, total, st)) return st->code;
  for (int k = 0; k < nchunk; k++) {
    if (!d->chunk_count[k]) continue;
    memcpy(out->c + out->n, d->buf[d->chunk_thread[k]].c + d->chunk_first[k],
           sizeof(sim_contact) * (size_t)d->chunk_count[k]);
    out->n += d->chunk_count[k];
  }
  for (int i = 0; i < out->n; i++) out->count[out->c[i].kind]++;
  return SIM_OK;
}

int sim_detect_run_on(const sim_detect_runner *r, sim_detect *d, const sim_detect_scene *s,
                      const sim_detect_params *p, sim_detect_contacts *out, sim_status *st) {
  if (r && r->run) return r->run(r->ctx, d, s, p, out, st);
  return sim_detect_run(d, s, p, out, st);
}

int sim_detect_check_passes(int n, const sim_detect_params *p, sim_status *st) {
  if (n < 0 || n > SIM_DETECT_MAX_PASSES)
    return sim_fail(st, SIM_ERR_INTERNAL, "detect: %d passes (0 to %d)", n, SIM_DETECT_MAX_PASSES);
  for (int i = 0; i < n; i++)
    if (p[i].skip_first && (i == 0 || p[i].skip))
      return sim_fail(st, SIM_ERR_INTERNAL,
                      "detect: pass %d skips the first pass's keys %s", i,
                      i == 0 ? "but is the first" : "and has a skip list too");
  return SIM_OK;
}

void sim_detect_drop_keys(sim_detect_contacts *out, const sim_detect_contacts *first) {
  int i = 0, n = 0;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) out->count[k] = 0;
  for (int j = 0; j < out->n; j++) {
    const sim_contact *c = &out->c[j];
    while (i < first->n && sim_contact_key_cmp(&first->c[i], c) < 0) i++;
    if (i < first->n && sim_contact_key_cmp(&first->c[i], c) == 0) continue;
    out->count[c->kind]++;
    if (n != j) out->c[n] = *c;
    n++;
  }
  out->n = n;
}

int sim_detect_drop_stray_creases(sim_detect_contacts *out) {
  int n = 0;
  for (int j = 0; j < out->n; j++) {
    const sim_contact *c = &out->c[j];
    int keep = 1;
    if ((c->kind == SIM_CONTACT_BODY || c->kind == SIM_CONTACT_MESH) &&
        c->source >= SIM_CONTACT_CREASE) /* its first contact sorts before it: (v, kind, source) */
      for (int i = n - 1; i >= 0 && out->c[i].v == c->v && out->c[i].kind == c->kind; i--)
        if (out->c[i].source == sim_contact_surface_of(c->source)) {
          keep = sim_dot3(out->c[i].n, c->n) > -SIM_DETECT_CREASE_COS;
          break;
        }
    if (!keep) {
      out->count[c->kind]--;
      continue;
    }
    if (n != j) out->c[n] = *c;
    n++;
  }
  const int dropped = out->n - n;
  out->n = n;
  return dropped;
}

int sim_detect_passes_on(const sim_detect_runner *r, sim_detect *d, int n,
                         const sim_detect_scene *s, const sim_detect_params *p,
                         sim_detect_contacts *const *out, const sim_detect_points_job *pts,
                         sim_status *st) {
  int rc = sim_detect_check_passes(n, p, st);
  if (rc) return rc;
  if (r && r->passes) { /* the points pass with them where the runner has one */
    rc = r->passes(r->ctx, d, n, s, p, out, r->points ? pts : NULL, st);
    if (!rc && pts && !r->points) rc = sim_detect_points_run(pts->s, pts->out, pts->found, st);
    return rc;
  }
  for (int i = 0; !rc && i < n; i++) {
    sim_detect_params q = p[i]; /* a run alone: all its contacts, then the first's dropped */
    q.skip_first = 0;
    rc = sim_detect_run_on(r, d, &s[i], &q, out[i], st);
    if (!rc && p[i].skip_first) sim_detect_drop_keys(out[i], out[0]);
  }
  if (!rc && pts) rc = sim_detect_points_run_on(r, pts->s, pts->out, pts->found, st);
  return rc;
}

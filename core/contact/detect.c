/* SPDX-License-Identifier: MIT */
/* Collision detection: per-vertex SDF and BVH queries into per-thread buffers, merged in chunk
   order (detect.h states the contact conventions). Inputs: the scene's positions, obstacles,
   meshes and body surfaces. Workspace: a BVH per mesh and body, per-thread contact buffers and
   a chunk table, kept in sim_detect between steps. Fails on bad input and out of memory. */
#include "contact/detect.h"

#include <float.h>
#include <omp.h>
#include <string.h>

#include "base/alloc.h"

struct sim_detect_buf_ { /* one cache line per thread: no false sharing of n */
  sim_contact *c;
  int n, cap, fail;
  char pad[64 - sizeof(sim_contact *) - 3 * sizeof(int)];
};

sim_detect_params sim_default_detect_params(void) {
  sim_detect_params p = {1e-3, 0.0, 0};
  return p;
}

sim_detect_obstacle sim_default_detect_obstacle(sim_obstacle_kind kind) {
  sim_detect_obstacle o = {sim_default_obstacle(kind), 0.5, SIM_DETECT_ALL};
  return o;
}

sim_detect_mesh sim_default_detect_mesh(void) {
  sim_detect_mesh m;
  memset(&m, 0, sizeof m);
  m.closed = 1;
  m.mu = 0.5;
  m.bodies = SIM_DETECT_ALL;
  return m;
}

static int touches(uint64_t mask, int body) {
  if (body < 0) return 1;
  if (body < 64) return (int)((mask >> body) & 1u);
  return mask == SIM_DETECT_ALL;
}

/* ---------------- orientation of a triangle hit ---------------- */

/* Pseudo-normal at the vertex ga (gb < 0) or the edge (ga, gb) of a closed mesh: the sum of
   the unit normals of the incident triangles, angle-weighted at a vertex. */
typedef struct {
  const double *X;
  const int *tri;
  int ga, gb;
  double N[3];
} pseudo_ctx;

static int pseudo_visit(void *vctx, const sim_bvh_hit *h) {
  pseudo_ctx *c = vctx;
  const int *t = c->tri + 3 * h->tri;
  int ja = -1, jb = -1;
  for (int j = 0; j < 3; j++) {
    if (t[j] == c->ga) ja = j;
    if (t[j] == c->gb) jb = j;
  }
  if (ja < 0 || (c->gb >= 0 && jb < 0)) return 0;
  double wt = 1.0;
  if (c->gb < 0) { /* angle at the corner ja */
    const double *o = c->X + 3 * t[ja], *a = c->X + 3 * t[(ja + 1) % 3],
                 *b = c->X + 3 * t[(ja + 2) % 3];
    const double e1[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    const double e2[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
    double cr[3];
    sim_cross3(e1, e2, cr);
    wt = atan2(sim_norm3(cr), sim_dot3(e1, e2));
  }
  for (int k = 0; k < 3; k++) c->N[k] += wt * h->q.n[k];
  return 0;
}

/* d is rounding noise: c = sum w_i x_i is only accurate to a few ulps of |c|. */
static int touching(const sim_tri_closest *q) {
  const double scale = fmax(fabs(q->c[0]), fmax(fabs(q->c[1]), fabs(q->c[2])));
  return q->d2 <= 64 * DBL_EPSILON * DBL_EPSILON * scale * scale;
}

/* Closed surface: outward normal n from the surface towards x and the signed gap. In the face
   region x - c is parallel to the face normal, so n = n_face (exact), gap = side d; at an edge or a
   vertex n = +-(x - c)/d, the sign from the pseudo-normal. */
static void orient_closed(const sim_bvh *b, const double *X, const int *tri, const double x[3],
                          const sim_bvh_hit *h, double n[3], double *gap) {
  const double d = sqrt(h->q.d2);
  const int on = touching(&h->q);
  double N[3] = {h->q.n[0], h->q.n[1], h->q.n[2]};
  if (h->q.feature == SIM_TRI_FACE) {
    for (int k = 0; k < 3; k++) n[k] = N[k]; /* outward, inside or not */
    *gap = on ? 0.0 : (h->q.side < 0 ? -d : d);
    return;
  }
  const int *t = tri + 3 * h->tri, f = h->q.feature;
  pseudo_ctx c = {X, tri, -1, -1, {0, 0, 0}};
  if (f >= SIM_TRI_VERT0) {
    c.ga = t[f - SIM_TRI_VERT0];
  } else {
    c.ga = t[f - SIM_TRI_EDGE0];
    c.gb = t[(f - SIM_TRI_EDGE0 + 1) % 3];
  }
  const double scale = fmax(fabs(h->q.c[0]), fmax(fabs(h->q.c[1]), fabs(h->q.c[2])));
  sim_bvh_query(b, X, x, d + 1e-10 * (d + scale) + 1e-300, pseudo_visit, &c);
  const double diff[3] = {x[0] - h->q.c[0], x[1] - h->q.c[1], x[2] - h->q.c[2]};
  if (!on) {
    const double s = sim_dot3(diff, c.N) < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) n[k] = s * diff[k] / d;
    *gap = s * d;
    return;
  }
  const double l = sim_norm3(c.N);
  for (int k = 0; k < 3; k++) n[k] = l > 0 ? c.N[k] / l : (k == 0);
  *gap = 0.0;
}

/* Open surface: unsigned, n = (x - c)/d (side n_face in the face region, exact); touching,
   the face normal towards x_prev's side (the front one without x_prev). */
static void orient_open(const double x[3], const double *xprev, const sim_bvh_hit *h,
                        double n[3], double *gap) {
  const int on = touching(&h->q), deg = !h->q.n[0] && !h->q.n[1] && !h->q.n[2];
  *gap = on ? 0.0 : sqrt(h->q.d2);
  if ((!on && h->q.feature != SIM_TRI_FACE) || deg) {
    sim_tri_contact_normal(x, &h->q, n);
    return;
  }
  double s = h->q.side < 0 ? -1.0 : 1.0;
  if (on) {
    s = 1.0;
    if (xprev) {
      const double dp[3] = {xprev[0] - h->q.c[0], xprev[1] - h->q.c[1], xprev[2] - h->q.c[2]};
      if (sim_dot3(dp, h->q.n) < 0) s = -1.0;
    }
  }
  for (int k = 0; k < 3; k++) n[k] = s * h->q.n[k];
}

/* Nearest triangle not incident to vertex v (self-collision): smallest (d2, triangle). */
typedef struct {
  const int *tri;
  int v, found;
  sim_bvh_hit best;
} self_ctx;

static int self_visit(void *vctx, const sim_bvh_hit *h) {
  self_ctx *c = vctx;
  const int *t = c->tri + 3 * h->tri;
  if (t[0] == c->v || t[1] == c->v || t[2] == c->v) return 0;
  if (!c->found || h->q.d2 < c->best.q.d2 || (h->q.d2 == c->best.q.d2 && h->tri < c->best.tri))
    c->best = *h, c->found = 1;
  return 0;
}

/* ---------------- per vertex ---------------- */

static void push(sim_detect_buf_ *b, sim_contact_kind kind, int v, int source, const double n[3],
                 const double p[3], double gap, double mu, const double u[3]) {
  if (b->fail) return;
  if (b->n == b->cap) {
    const int cap = b->cap ? 2 * b->cap : 64;
    sim_contact *c = sim_realloc(b->c, sizeof(sim_contact) * (size_t)cap);
    if (!c) {
      b->fail = 1;
      return;
    }
    b->c = c, b->cap = cap;
  }
  sim_contact *k = &b->c[b->n++];
  k->kind = kind, k->v = v, k->source = source, k->gap = gap, k->mu = mu;
  k->compliance = 0.0;
  k->cable = NULL;
  for (int i = 0; i < 3; i++) {
    k->tri[i] = -1, k->w[i] = 0.0;
    k->n[i] = n[i], k->p[i] = p[i], k->u[i] = u ? u[i] : 0.0;
  }
  sim_tangent_basis(k->n, k->t1, k->t2);
}

static void detect_vertex(const sim_detect *d, const sim_detect_scene *s,
                          const sim_detect_params *p, int v, sim_detect_buf_ *b) {
  if (s->pinned && s->pinned[v]) return;
  const double *x = s->x + 3 * (size_t)v, *xprev = s->x_prev ? s->x_prev + 3 * (size_t)v : NULL;
  const double margin = p->margin;
  const int bv = d->body_of[v];
  double c[3], n[3], u[3], gap;
  for (int o = 0; o < s->nobs; o++) {
    const sim_detect_obstacle *ob = &s->obs[o];
    if (!touches(ob->bodies, bv)) continue;
    const double phi = sim_obstacle_query(&ob->shape, x, c, n);
    if (!(phi <= margin)) continue;
    sim_obstacle_velocity(&ob->shape, c, u);
    push(b, SIM_CONTACT_OBSTACLE, v, o, n, c, phi, ob->mu, u);
  }
  for (int m = 0; m < s->nmesh; m++) {
    const sim_detect_mesh *me = &s->mesh[m];
    sim_bvh_hit h;
    if (!touches(me->bodies, bv) || !sim_bvh_nearest(&d->mesh_bvh[m], me->x, x, margin, &h))
      continue;
    if (me->closed)
      orient_closed(&d->mesh_bvh[m], me->x, me->tri, x, &h, n, &gap);
    else
      orient_open(x, xprev, &h, n, &gap);
    const double r[3] = {h.q.c[0] - me->center[0], h.q.c[1] - me->center[1],
                         h.q.c[2] - me->center[2]};
    sim_cross3(me->omega, r, u);
    for (int k = 0; k < 3; k++) u[k] += me->vel[k];
    push(b, SIM_CONTACT_MESH, v, m, n, h.q.c, gap, me->mu, u);
  }
  for (int B = 0; B < s->nbodies; B++) {
    const sim_detect_body *bd = &s->body[B];
    sim_bvh_hit h;
    if (B == bv && !p->self_collision) continue;
    if (B == bv) {
      self_ctx sc = {bd->tri, v, 0, {0}};
      sim_bvh_query(&d->body_bvh[B], s->x, x, margin, self_visit, &sc);
      if (!sc.found) continue;
      h = sc.best;
    } else if (!sim_bvh_nearest(&d->body_bvh[B], s->x, x, margin, &h)) {
      continue;
    }
    orient_closed(&d->body_bvh[B], s->x, bd->tri, x, &h, n, &gap);
    const double mu = bv >= 0 ? sqrt(s->body[bv].mu * bd->mu) : bd->mu;
    push(b, SIM_CONTACT_BODY, v, B, n, h.q.c, gap, mu, NULL);
    if (b->fail) return;
    sim_contact *k = &b->c[b->n - 1];
    for (int i = 0; i < 3; i++) k->tri[i] = bd->tri[3 * h.tri + i], k->w[i] = h.q.w[i];
  }
}

/* ---------------- setup, run ---------------- */

void sim_detect_free(sim_detect *d) {
  for (int m = 0; d->mesh_bvh && m < d->nmesh; m++) sim_bvh_free(&d->mesh_bvh[m]);
  for (int b = 0; d->body_bvh && b < d->nbodies; b++) sim_bvh_free(&d->body_bvh[b]);
  for (int t = 0; t < d->nbuf; t++) sim_free(d->buf[t].c);
  sim_free(d->buf);
  sim_free(d->mesh_bvh);
  sim_free(d->body_bvh);
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

int sim_detect_init(sim_detect *d, const sim_detect_scene *s, sim_status *st) {
  memset(d, 0, sizeof *d);
  if (s->nv < 0 || s->nobs < 0 || s->nmesh < 0 || s->nbodies < 0 || (s->nv > 0 && !s->x))
    return sim_fail(st, SIM_ERR_MESH, "detect: bad counts (%d vertices, %d obstacles, "
                    "%d meshes, %d bodies)", s->nv, s->nobs, s->nmesh, s->nbodies);
  int rc = SIM_OK;
  d->nv = s->nv, d->nmesh = s->nmesh, d->nbodies = s->nbodies;
  d->body_of = SIM_NEW(int, s->nv > 0 ? s->nv : 1);
  d->mesh_bvh = SIM_NEW0(sim_bvh, s->nmesh > 0 ? s->nmesh : 1);
  d->body_bvh = SIM_NEW0(sim_bvh, s->nbodies > 0 ? s->nbodies : 1);
  if (!d->body_of || !d->mesh_bvh || !d->body_bvh) {
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

int sim_detect_run(sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
                   sim_detect_contacts *out, sim_status *st) {
  out->n = 0;
  out->min_sep = p->min_sep;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) out->count[k] = 0;
  if (s->nv != d->nv || s->nmesh != d->nmesh || s->nbodies != d->nbodies)
    return sim_fail(st, SIM_ERR_INTERNAL, "detect: scene differs from the one given to init");
  if (!(p->margin >= 0) || !isfinite(p->margin))
    return sim_fail(st, SIM_ERR_SCENE, "detect: margin %g must be finite and >= 0", p->margin);
  for (int b = 0; b < s->nbodies; b++) sim_bvh_refit(&d->body_bvh[b], s->x);
  for (int m = 0; m < s->nmesh; m++)
    if (s->mesh[m].moving) sim_bvh_refit(&d->mesh_bvh[m], s->mesh[m].x);

  const int T = omp_get_max_threads(), nchunk = (s->nv + SIM_DETECT_CHUNK - 1) / SIM_DETECT_CHUNK;
  if (!reserve(d, T, nchunk)) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
  for (int t = 0; t < T; t++) d->buf[t].n = 0, d->buf[t].fail = 0;
#pragma omp parallel num_threads(T)
  {
    sim_detect_buf_ *b = &d->buf[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < nchunk; k++) {
      d->chunk_thread[k] = omp_get_thread_num();
      d->chunk_first[k] = b->n;
      const int end = k == nchunk - 1 ? s->nv : (k + 1) * SIM_DETECT_CHUNK;
      for (int v = k * SIM_DETECT_CHUNK; v < end; v++) detect_vertex(d, s, p, v, b);
      d->chunk_count[k] = b->n - d->chunk_first[k];
    }
  }
  long long total = 0;
  for (int t = 0; t < T; t++)
    if (d->buf[t].fail) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory");
  for (int k = 0; k < nchunk; k++) total += d->chunk_count[k];
  if (total > out->cap) {
    sim_contact *c = sim_realloc(out->c, sizeof(sim_contact) * (size_t)total);
    if (!c) return sim_fail(st, SIM_ERR_MEMORY, "detect: out of memory for %lld contacts", total);
    out->c = c, out->cap = (int)total;
  }
  for (int k = 0; k < nchunk; k++) {
    if (!d->chunk_count[k]) continue;
    memcpy(out->c + out->n, d->buf[d->chunk_thread[k]].c + d->chunk_first[k],
           sizeof(sim_contact) * (size_t)d->chunk_count[k]);
    out->n += d->chunk_count[k];
  }
  for (int i = 0; i < out->n; i++) out->count[out->c[i].kind]++;
  return SIM_OK;
}

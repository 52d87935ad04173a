/* SPDX-License-Identifier: MIT */
/* The scene's obstacles and bodies for collision detection, posed every step (world.h). */
#include "world.h"

#include <math.h>
#include <string.h>

#include "../base/alloc.h"
#include "../mesh/mesh.h"
#include "detect_obstacle_edge.h"
#include "world_pins.h"
#include "world_points.h"

/* M_t of a script: c = M(0), column j of Q = M(e_j) - c (a rigid motion). */
static void script_motion(const sim_obstacle_def *o, double t, sim_world_motion *mo) {
  static const double zero[3] = {0, 0, 0};
  sim_script_apply(o->steps, o->nsteps, t, zero, mo->c);
  for (int j = 0; j < 3; j++) {
    double e[3] = {j == 0, j == 1, j == 2}, y[3];
    sim_script_apply(o->steps, o->nsteps, t, e, y);
    for (int i = 0; i < 3; i++) mo->Q[3 * i + j] = y[i] - mo->c[i];
  }
}

static void motion_apply(const sim_world_motion *mo, const double x[3], double out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = mo->Q[3 * i] * x[0] + mo->Q[3 * i + 1] * x[1] + mo->Q[3 * i + 2] * x[2] + mo->c[i];
}

/* y = M^{-1}(x) = Q^T (x - c) */
static void motion_inverse(const sim_world_motion *mo, const double x[3], double out[3]) {
  double d[3] = {x[0] - mo->c[0], x[1] - mo->c[1], x[2] - mo->c[2]};
  for (int i = 0; i < 3; i++)
    out[i] = mo->Q[i] * d[0] + mo->Q[3 + i] * d[1] + mo->Q[6 + i] * d[2];
}

static uint64_t body_mask(unsigned touches) {
  return touches == SIM_TOUCHES_ALL ? SIM_DETECT_ALL : (uint64_t)touches;
}

static sim_obstacle analytic_shape(const sim_obstacle_def *d) {
  sim_obstacle o = sim_default_obstacle((sim_obstacle_kind)d->type);
  switch (d->type) {
    case SIM_OBST_PLANE: o.frame = sim_frame_from_axis(d->point, d->normal); break;
    case SIM_OBST_BOX:
      memcpy(o.frame.pos, d->center, sizeof o.frame.pos);
      sim_rotation_deg(d->rotate_deg, o.frame.rot);
      memcpy(o.half, d->half_extents, sizeof o.half);
      break;
    case SIM_OBST_SPHERE:
      memcpy(o.frame.pos, d->center, sizeof o.frame.pos);
      o.radius = d->radius;
      break;
    case SIM_OBST_CAPSULE:
      sim_obstacle_set_segment(&o, d->a, d->b);
      o.radius = d->radius;
      break;
    case SIM_OBST_CYLINDER:
      o.frame = sim_frame_from_axis(d->point, d->axis);
      o.radius = d->radius;
      o.half_height = 0.5 * d->height; /* 0: infinite */
      o.omega = d->spin;
      break;
    default: /* torus */
      o.frame = sim_frame_from_axis(d->center, d->axis);
      o.radius = d->minor;
      o.major = d->major;
  }
  return o;
}

/* Read, transform and orient a mesh obstacle; closed "auto" asks the mesh. */
static int load_mesh(sim_world *w, int i, const sim_obstacle_def *d, sim_status *st) {
  sim_surface s = {0};
  sim_status rd = {0};
  int rc = sim_read_surface(d->path, &s, &rd);
  if (rc) return sim_fail(st, rc, "obstacles.%d (%s): %s", i, d->name, rd.msg);
  sim_transform_points(&d->transform, s.x, s.nv);
  sim_status tmp = {0};
  int watertight =
      d->closed != SIM_CLOSED_NO && sim_surface_check_closed(&s, d->name, &tmp) == SIM_OK;
  int closed = d->closed == SIM_CLOSED_AUTO ? watertight : d->closed == SIM_CLOSED_YES;
  if (closed && !watertight) {
    sim_surface_free(&s);
    return sim_fail(st, SIM_ERR_MESH, "obstacles.%d (%s): \"closed\": true, but %s", i, d->name,
                    tmp.msg);
  }
  if (closed && sim_surface_volume(&s) < 0) /* inward: turn every triangle */
    for (int t = 0; t < s.nt; t++) {
      int a = s.tri[3 * t + 1];
      s.tri[3 * t + 1] = s.tri[3 * t + 2];
      s.tri[3 * t + 2] = a;
    }
  int k = w->nmesh++;
  sim_detect_mesh *me = &w->mesh[k];
  *me = sim_default_detect_mesh();
  w->mesh_def[k] = i;
  w->mesh_x0[k] = s.x;
  w->mesh_tri[k] = s.tri;
  w->mesh_x[k] = SIM_NEW(double, 3 * (size_t)s.nv + 3);
  if (!w->mesh_x[k]) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (mesh obstacle)");
  memcpy(w->mesh_x[k], s.x, sizeof(double) * 3 * (size_t)s.nv);
  me->nv = s.nv, me->nt = s.nt, me->x = w->mesh_x[k], me->tri = s.tri;
  me->closed = closed;
  me->moving = d->nsteps > 0;
  me->mu = d->mu;
  me->margin = d->margin;
  me->bodies = body_mask(d->touches);
  return SIM_OK;
}

static int is_cloth_body(const sim_model *m, int b) {
  return m->scene->bodies[b].mesh.kind == SIM_SRC_CLOTH;
}

/* Body-body contact is on (contact.bodies or self-collision) and some body has surface
   triangles that others can touch (a solid's or a cloth's), or with self-collision itself. */
static int bodies_collide(const sim_model *m) {
  const sim_contact_def *cd = &m->scene->contact;
  if (!cd->bodies && !cd->self_collision) return 0;
  return m->ntri > 0 && (m->nbodies > 1 || cd->self_collision);
}

void sim_world_kind_counts(const sim_world *w, int counts[SIM_WORLD_KINDS]) {
  for (int k = 0; k < SIM_WORLD_KINDS; k++) counts[k] = 0;
  for (int j = 0; j < w->out.n; j++) {
    const sim_contact *c = &w->out.c[j];
    int k = (int)c->kind;
    /* the body of the other side: BODY's source, the other edge's vertex's for EDGE; the
       vertex's own (such contacts exist only where detection ran, w->det) */
    const int B = c->kind == SIM_CONTACT_BODY   ? sim_contact_surface_of(c->source)
                  : c->kind == SIM_CONTACT_EDGE ? w->det.body_of[c->tri[1]]
                                                : -1;
    if (B >= 0 && B == w->det.body_of[c->v])
      k = c->kind == SIM_CONTACT_BODY ? SIM_WORLD_SELF : SIM_WORLD_SELF_EDGE;
    if ((c->kind == SIM_CONTACT_BODY || c->kind == SIM_CONTACT_MESH ||
         c->kind == SIM_CONTACT_TRIANGLE) &&
        c->source >= SIM_CONTACT_CREASE)
      k = SIM_WORLD_CREASE;
    counts[k]++;
  }
}

int sim_world_needed(const sim_model *m) {
  return m->scene->nobstacles > 0 || bodies_collide(m) || m->ncpin > 0 || m->ncable > 0;
}

static void setup_bodies(sim_world *w) {
  const sim_model *m = w->m;
  const sim_contact_def *cd = &m->scene->contact;
  int on = cd->bodies || cd->self_collision, t0 = 0;
  for (int b = 0; b < m->nbodies; b++) {
    int t1 = t0;
    while (t1 < m->ntri && m->tri_body[t1] == b) t1++;
    sim_detect_body *bd = &w->body[b];
    bd->v0 = m->body_vert_start[b];
    bd->nv = m->body_vert_start[b + 1] - bd->v0;
    bd->tri = m->tri + 3 * (size_t)t0;
    bd->open = is_cloth_body(m, b); /* a cloth: unsigned, turned to the side v came from */
    /* a target of the other bodies, or of its own, or its edges against the obstacles: else
       no tree to build and refit */
    bd->nt = (on && (m->nbodies > 1 || cd->self_collision)) || w->par.obstacle_edges ? t1 - t0 : 0;
    bd->mu = cd->mu;
    if (cd->self_collision) /* not the triangles beside a vertex at rest (detect.h) */
      bd->rest = m->x_rest, bd->rest_gap = SIM_WORLD_SELF_REST * cd->margin;
    t0 = t1;
  }
  if (bodies_collide(m)) w->collide = 1;
}

static sim_detect_scene detect_scene(const sim_world *w, const double *x, const double *xp) {
  sim_detect_scene s = {w->m->n, x,      xp,      w->pinned, w->nobs, w->nmesh, w->m->nbodies,
                        w->obs,  w->mesh, w->body};
  return s;
}

/* contact.edge_edge's and contact.obstacle_edges' limits on the meshes (detect.h
   sim_detect_check), named by body. */
static int check_edges(const sim_world *w, sim_status *st) {
  const sim_detect *d = &w->det;
  const sim_model *m = w->m;
  if (!w->par.edge_edge && !w->par.obstacle_edges) return SIM_OK;
  const char *key = w->par.edge_edge ? "edge_edge" : "obstacle_edges";
  if (d->edge_most > SIM_CONTACT_EDGE_SLOTS) {
    const int b = d->body_of[d->edge_most_v];
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: contact.%s: body %d (%s): its vertex %d has %d surface edges to "
                    "higher-numbered vertices; %s contact takes at most %d",
                    m->scene->file, key, b, m->scene->bodies[b].name,
                    d->edge_most_v - m->body_vert_start[b], d->edge_most,
                    w->par.edge_edge ? "edge-edge" : "edge-obstacle", SIM_CONTACT_EDGE_SLOTS);
  }
  if (w->par.edge_edge && m->n > SIM_CONTACT_EDGE_VERTS)
    return sim_fail(st, SIM_ERR_SCENE,
                    "%s: contact.edge_edge: %d vertices; edge-edge contact takes at most %d",
                    m->scene->file, m->n, SIM_CONTACT_EDGE_VERTS);
  return SIM_OK;
}

int sim_world_init(sim_world *w, const sim_model *m, sim_status *st) {
  memset(w, 0, sizeof *w);
  w->m = m;
  const sim_scene *sc = m->scene;
  int no = sc->nobstacles;
  w->par = sim_default_detect_params();
  w->par.margin = sc->contact.margin;
  w->par.min_sep = sc->contact.min_separation;
  w->par.self_collision = sc->contact.self_collision;
  w->par.no_others = !sc->contact.bodies; /* self-collision alone: no other body a target */
  w->par.edge_edge = sc->contact.edge_edge;
  w->par.creases = sc->contact.creases;
  w->obs = SIM_NEW0(sim_detect_obstacle, no + 1);
  w->obs_frame0 = SIM_NEW0(sim_frame, no + 1);
  w->obs_def = SIM_NEW0(int, no + 1);
  w->mesh = SIM_NEW0(sim_detect_mesh, no + 1);
  w->mesh_x0 = SIM_NEW0(double *, no + 1);
  w->mesh_x = SIM_NEW0(double *, no + 1);
  w->mesh_tri = SIM_NEW0(int *, no + 1);
  w->mesh_def = SIM_NEW0(int, no + 1);
  w->motion_t = SIM_NEW0(sim_world_motion, no + 1);
  w->motion_t1 = SIM_NEW0(sim_world_motion, no + 1);
  w->body = SIM_NEW0(sim_detect_body, m->nbodies + 1);
  w->pinned = SIM_NEW0(unsigned char, m->n + 1);
  if (!w->obs || !w->obs_frame0 || !w->obs_def || !w->mesh || !w->mesh_x0 || !w->mesh_x ||
      !w->mesh_tri || !w->mesh_def || !w->motion_t || !w->motion_t1 || !w->body || !w->pinned) {
    sim_world_free(w);
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact world)");
  }
  int rc = SIM_OK;
  for (int i = 0; i < no && !rc; i++) {
    const sim_obstacle_def *d = &sc->obstacles[i];
    if (d->type == SIM_OBST_MESH) {
      rc = load_mesh(w, i, d, st);
      continue;
    }
    sim_detect_obstacle *o = &w->obs[w->nobs];
    *o = sim_default_detect_obstacle((sim_obstacle_kind)d->type);
    o->shape = analytic_shape(d);
    o->mu = d->mu;
    o->margin = d->margin;
    o->bodies = body_mask(d->touches);
    w->obs_frame0[w->nobs] = o->shape.frame;
    w->obs_def[w->nobs++] = i;
  }
  for (int v = 0; v < m->n; v++) w->pinned[v] = m->pin_of[v] >= 0;
  if (!rc) {
    /* only with analytic obstacles: else it would build the bodies' trees for none */
    w->par.obstacle_edges = sc->contact.obstacle_edges && w->nobs > 0;
    setup_bodies(w);
    if (w->nobs + w->nmesh > 0) w->collide = 1;
    w->active = w->collide || m->ncpin > 0 || m->ncable > 0;
    rc = sim_world_pins_init(w, st);
    if (!rc) rc = sim_world_cables_init(w, st);
    if (!rc) rc = sim_world_reads_init(w, st);
  }
  if (!rc && w->nmesh > 0) {
    w->tri_first = SIM_NEW0(int, m->nbodies + 1);
    w->point_found = SIM_NEW0(unsigned char, 1);
    rc = w->tri_first ? sim_world_points_init(w, st)
                      : sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
    sim_free(w->point_found);
    w->point_found = rc ? NULL : SIM_NEW0(unsigned char, w->point_first[w->nmesh] + 1);
    if (!rc && !w->point_found) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (points)");
  }
  if (!rc && w->collide) {
    sim_detect_scene s = detect_scene(w, m->x_rest, NULL);
    rc = sim_detect_init(&w->det, &s, st);
    w->det_ready = rc == SIM_OK;
    if (!rc) rc = check_edges(w, st);
  }
  if (rc) sim_world_free(w);
  return rc;
}

/* f = f0 moved by mo (a frame's origin and axes). */
static void posed_frame(const sim_world_motion *mo, const sim_frame *f0, sim_frame *f) {
  motion_apply(mo, f0->pos, f->pos);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      f->rot[3 * i + j] = mo->Q[3 * i] * f0->rot[j] + mo->Q[3 * i + 1] * f0->rot[3 + j] +
                          mo->Q[3 * i + 2] * f0->rot[6 + j];
}

/* x[0..3n) = x0 moved by mo */
static void posed_points(const sim_world_motion *mo, int n, const double *x0, double *x) {
  for (int v = 0; v < n; v++) motion_apply(mo, x0 + 3 * (size_t)v, x + 3 * (size_t)v);
}

/* m = M1 M0^{-1}: x -> Q1 Q0^T (x - c0) + c1 (detect.h sim_detect_step); off where the
   obstacle rests over the step. */
static void step_map(const sim_world_motion *m0, const sim_world_motion *m1, sim_detect_step *m) {
  m->on = memcmp(m0, m1, sizeof *m0) != 0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      m->Q[3 * i + j] = m1->Q[3 * i] * m0->Q[3 * j] + m1->Q[3 * i + 1] * m0->Q[3 * j + 1] +
                        m1->Q[3 * i + 2] * m0->Q[3 * j + 2];
  }
  for (int i = 0; i < 3; i++)
    m->c[i] = m1->c[i] - (m->Q[3 * i] * m0->c[0] + m->Q[3 * i + 1] * m0->c[1] +
                          m->Q[3 * i + 2] * m0->c[2]);
}

/* Pose the scripted obstacles at t1 (motions at t and t1 kept for their velocities). */
static void pose(sim_world *w, double t, double t1) {
  const sim_scene *sc = w->m->scene;
  for (int i = 0; i < sc->nobstacles; i++)
    if (sc->obstacles[i].nsteps > 0) {
      script_motion(&sc->obstacles[i], t, &w->motion_t[i]);
      script_motion(&sc->obstacles[i], t1, &w->motion_t1[i]);
    }
  for (int k = 0; k < w->nobs; k++) {
    const int def = w->obs_def[k];
    if (sc->obstacles[def].nsteps == 0) continue;
    posed_frame(&w->motion_t1[def], &w->obs_frame0[k], &w->obs[k].shape.frame);
    step_map(&w->motion_t[def], &w->motion_t1[def], &w->obs[k].step);
  }
  for (int k = 0; k < w->nmesh; k++) {
    if (!w->mesh[k].moving) continue;
    const sim_world_motion *m0 = &w->motion_t[w->mesh_def[k]], *m1 = &w->motion_t1[w->mesh_def[k]];
    step_map(m0, m1, &w->mesh[k].step);
    posed_points(m1, w->mesh[k].nv, w->mesh_x0[k], w->mesh_x[k]);
    const size_t p0 = 3 * (size_t)w->point_first[k];
    const int np = w->point_first[k + 1] - w->point_first[k];
    posed_points(m1, np, w->pt_x0 + p0, w->pt_x + p0);
    posed_points(m0, np, w->pt_x0 + p0, w->pt_xs + p0);
  }
}

sim_obstacle sim_world_obstacle_at(const sim_world *w, int k, double t) {
  sim_obstacle o = w->obs[k].shape;
  const sim_obstacle_def *d = w->m && w->obs_def ? &w->m->scene->obstacles[w->obs_def[k]] : NULL;
  if (d && d->nsteps > 0) {
    sim_world_motion mo;
    script_motion(d, t, &mo);
    posed_frame(&mo, &w->obs_frame0[k], &o.frame);
  }
  return o;
}

void sim_world_mesh_at(const sim_world *w, int k, double t, double *x) {
  const int nv = w->mesh[k].nv;
  if (!w->mesh[k].moving) { /* no script */
    memcpy(x, w->mesh[k].x, sizeof(double) * 3 * (size_t)nv);
    return;
  }
  sim_world_motion mo;
  script_motion(&w->m->scene->obstacles[w->mesh_def[k]], t, &mo);
  posed_points(&mo, nv, w->mesh_x0[k], x);
}

static int reserve(sim_detect_contacts *o, int n) {
  if (n <= o->cap) return 0;
  sim_contact *c = SIM_NEW(sim_contact, n);
  if (!c) return -1;
  sim_free(o->c);
  o->c = c, o->cap = n;
  return 0;
}

/* o = a, plus the contacts of b (both sorted by key); where both have a key, with `ahead` 1
   b's contact is dropped, with 2 a's (0: both kept). */
static int merge(const sim_world *w, const sim_detect_contacts *a, const sim_detect_contacts *b,
                 int ahead, sim_detect_contacts *o, sim_status *st) {
  if (reserve(o, a->n + b->n + 1))
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", a->n + b->n);
  int i = 0, j = 0, n = 0;
  while (i < a->n || j < b->n) {
    int cmp = i >= a->n ? 1 : j >= b->n ? -1 : sim_contact_key_cmp(&a->c[i], &b->c[j]);
    if (cmp < 0 || (cmp == 0 && ahead == 1)) {
      o->c[n++] = a->c[i++];
      if (cmp == 0) j++;
    } else {
      o->c[n++] = b->c[j++];
      if (cmp == 0 && ahead == 2) i++;
    }
  }
  o->n = n;
  o->min_sep = w->par.min_sep;
  for (int k = 0; k < SIM_CONTACT_KINDS; k++) o->count[k] = 0;
  for (int k = 0; k < n; k++) o->count[o->c[k].kind]++;
  return SIM_OK;
}

/* The scene obstacle a contact's fixed point belongs to when a script moves it; -1 otherwise. */
static int scripted_def(const sim_world *w, const sim_contact *c) {
  int def = c->kind == SIM_CONTACT_OBSTACLE ? w->obs_def[c->source]
            : c->kind == SIM_CONTACT_OBSTACLE_EDGE
                ? w->obs_def[sim_detect_obstacle_edge_obstacle(c->source)]
            : c->kind == SIM_CONTACT_MESH     ? w->mesh_def[sim_contact_surface_of(c->source)]
            : c->kind == SIM_CONTACT_TRIANGLE ? w->mesh_def[sim_world_point_mesh(w, c->source)]
                                              : -1;
  return def >= 0 && w->m->scene->obstacles[def].nsteps > 0 ? def : -1;
}

/* d = where c's fixed point p (posed at t + h) was at t, minus p: the step's motion, reversed */
static void step_motion_back(const sim_world *w, int def, const sim_contact *c, double d[3]) {
  double y[3], pt[3];
  motion_inverse(&w->motion_t1[def], c->p, y);
  motion_apply(&w->motion_t[def], y, pt);
  for (int i = 0; i < 3; i++) d[i] = pt[i] - c->p[i];
}

/* Obstacle surface velocity of scripted obstacles: the script's motion over the step (set on
   the host, so those contacts go up whole: contact.h dev_ref). */
static void script_velocities(sim_world *w, sim_detect_contacts *o, double h) {
  for (int j = 0; j < o->n; j++) {
    sim_contact *c = &o->c[j];
    int def = scripted_def(w, c);
    if (def < 0) continue;
    double d[3];
    step_motion_back(w, def, c, d);
    for (int i = 0; i < 3; i++) c->u[i] -= d[i] / h;
    c->dev_ref = 0; /* changed here: no longer the device detector's copy */
  }
}

/* Detection proper (obstacles, bodies, mesh points) into w->out. */
static int collide(sim_world *w, double t, double h, const double *x, const double *x_prev,
                   const double *x_pred, sim_status *st) {
  pose(w, t, t + h);
  /* the q_t pass, and the prediction's, where a blade contact found only ahead faces the
     vertex's side at q_t: one wait for both on a device */
  sim_detect_scene s[2] = {detect_scene(w, x, x_prev), detect_scene(w, x_pred, x)};
  sim_detect_params par[2] = {w->par, w->par};
  par[0].at_start = 1; /* a scripted obstacle's feature where it was at t (detect.h) */
  par[0].sides = w->sides, par[0].nsides = w->nsides; /* open surfaces' sides, step before */
  par[1].face_prev = 1;
  par[1].sweep = 1; /* what the vertex passes on its way to q~ (detect.h) */
  par[1].skip_first = 1; /* the merge below keeps q_t's contact where both passes find one */
  sim_detect_contacts *const out[2] = {&w->now, &w->ahead};
  w->ahead.n = 0;
  /* and the mesh obstacles' points against the bodies' triangles: the same wait */
  sim_point_scene ps;
  sim_detect_points_job job;
  const int points = sim_world_points_job(w, x, x_prev, x_pred, &ps, &job);
  int rc = sim_detect_passes_on(&w->runner, &w->det, x_pred ? 2 : 1, s, par, out,
                                points ? &job : NULL, st);
  for (int j = 0; !rc && j < w->now.n; j++) /* the gaps at the step's start (at_start) */
    w->min_gap = fmin(w->min_gap, w->now.c[j].gap);
  if (!rc) rc = merge(w, &w->now, &w->ahead, 1, &w->both, st);
  if (!rc) rc = merge(w, &w->both, &w->pts, 0, &w->out, st);
  if (!rc) w->stray_creases += sim_detect_drop_stray_creases(&w->out);
  for (int j = 0; !rc && j < w->pts.n; j++) /* the gaps at q_t: the first pass's */
    if (w->point_found[sim_contact_surface_of(w->pts.c[j].source)] == 1)
      w->min_gap = fmin(w->min_gap, w->pts.c[j].gap);
  if (!rc) script_velocities(w, &w->out, h);
  return rc;
}

/* out := out + b (both sorted by key), b's contact where both have the key */
static int merge_into_out(sim_world *w, const sim_detect_contacts *b, sim_status *st) {
  int rc = merge(w, &w->out, b, 2, &w->both, st);
  if (!rc) {
    sim_detect_contacts tmp = w->out;
    w->out = w->both, w->both = tmp;
  }
  return rc;
}

/* A pair of edges' contact: its row holds the points of the weights it was found with, which
   move with both edges (re-detection renews it: detect.h sim_detect_params.renew). Not a
   vertex's with a triangle (BODY), whose key is one a vertex and body: a box's corner pressing
   a tent into a coarse cloth (box_on_trampoline) had its contact renewed from one of the
   tent's faces to the other, step after step, for 26 % more L-G iterations and a deepest gap
   of -4.58 against -4.36 mm. */
static int renewable(const sim_contact *c) { return c->kind == SIM_CONTACT_EDGE; }

/* w->out's contacts of a side memory, in its order, into w->sides (nsides): with renew (a
   re-detection of the step's end) its pairs of edges; else (at a step's start,
   w->out the step before's) those with open surfaces, blades' and cloths', and its pairs of
   edges (held on their side as a cloth's vertex is). */
static int remember_sides(sim_world *w, int renew, sim_status *st) {
  w->nsides = 0;
  if (w->out.n > w->sides_cap) { /* room for all of them, as for the skip list */
    const int cap = w->out.n + w->out.n / 2 + 16;
    sim_free(w->sides);
    w->sides = SIM_NEW(sim_detect_side, cap);
    w->sides_cap = w->sides ? cap : 0;
    if (!w->sides) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", w->out.n);
  }
  int i = 0; /* w->now: that step's q_t pass, sorted by key as out is */
  for (int j = 0; j < w->out.n; j++) {
    const sim_contact *c = &w->out.c[j];
    while (i < w->now.n && sim_contact_key_cmp(&w->now.c[i], c) < 0) i++;
    if (renew ? !renewable(c)
              : !(c->kind == SIM_CONTACT_MESH && c->source < SIM_CONTACT_CREASE &&
                  !w->mesh[c->source].closed) &&
                    !(c->kind == SIM_CONTACT_BODY && c->source < SIM_CONTACT_CREASE &&
                      w->body[c->source].open) && /* a fold's face: its side is its first's */
                    c->kind != SIM_CONTACT_EDGE)
      continue;
    /* behind at that step's start: a q_t pass's gap. The prediction's and re-detection's
       contacts face the vertex's side at q_t (face_prev) and their gaps are at q~ or the
       step's end: read as behind, a vertex going round a knife's edge, whose prediction
       contact's normal lay almost in the blade's plane, was turned to the blade's other side
       at the next step and pushed 2 cm through it (cloth_on_knives, frame 92) */
    const int at_start = i < w->now.n && sim_contact_key_cmp(&w->now.c[i], c) == 0;
    sim_detect_side *e = &w->sides[w->nsides++];
    e->v = c->v, e->kind = c->kind, e->source = c->source, e->behind = at_start && c->gap < 0;
    for (int k = 0; k < 3; k++) e->tri[k] = c->tri[k], e->n[k] = c->n[k], e->w[k] = c->w[k];
  }
  return SIM_OK;
}

int sim_world_detect(sim_world *w, double t, double h, const double *x, const double *x_prev,
                     const double *x_pred, sim_status *st) {
  w->nsides = 0; /* the first step (no x_prev) has nothing to remember */
  int rc = w->collide && x_prev ? remember_sides(w, 0, st) : SIM_OK;
  w->out.n = 0;
  w->min_gap = HUGE_VAL;
  if (rc || !w->active) return rc;
  rc = w->collide ? collide(w, t, h, x, x_prev, x_pred, st) : SIM_OK;
  if (rc) return rc;
  /* out + the constraint pins' and the cables' contacts, each list sorted by key */
  if (w->m->ncpin > 0) {
    sim_world_pins(w, t + h, x);
    rc = merge_into_out(w, &w->pins, st);
  }
  if (!rc && w->m->ncable > 0) {
    /* a cable's row is linearised at q~, the step's guess of its end (world_cables.c) */
    sim_world_cables(w, t + h, x_pred ? x_pred : x);
    rc = merge_into_out(w, &w->cables, st);
  }
  return rc;
}

int sim_world_host_reads(const sim_world *w, const int **verts, int *npred) {
  *verts = w->read_vert;
  if (npred) *npred = w->nread_pred;
  if (w->collide && (!w->runner.run || (w->nmesh > 0 && !w->runner.points))) return -1;
  return w->nread;
}

int sim_world_redetect(sim_world *w, double h, const double *x_t, const double *x_end,
                       int *added, sim_status *st) {
  *added = 0;
  if (!w->collide) return SIM_OK;
  sim_detect_scene s = detect_scene(w, x_end, x_t); /* obstacles stay posed at t + h */
  sim_detect_params par = w->par; /* a blade contact faces the vertex's side at q_t */
  par.face_prev = 1;
  par.inside_only = 1; /* only what ended inside (gap < 0) and out lacks is found */
  if (w->out.n > w->skip_cap) {
    int cap = w->out.n + w->out.n / 2 + 16;
    sim_free(w->skip);
    w->skip = SIM_NEW(sim_contact_key, cap);
    w->skip_cap = w->skip ? cap : 0;
    if (!w->skip) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", w->out.n);
  }
  /* a pair of edges is found again where its row has gone stale, and the merge puts it in the
     step's one's place (detect.h renew) */
  int nskip = 0;
  for (int j = 0; j < w->out.n; j++) /* sorted */
    if (!renewable(&w->out.c[j])) w->skip[nskip++] = sim_contact_key_of(&w->out.c[j]);
  par.skip = w->skip, par.nskip = nskip;
  int rc = remember_sides(w, 1, st);
  if (rc) return rc;
  par.renew = 1, par.sides = w->sides, par.nsides = w->nsides;
  rc = sim_detect_run_on(&w->runner, &w->det, &s, &par, &w->ahead, st);
  if (rc) return rc;
  sim_detect_contacts *a = &w->ahead;
  const int n = a->n;
  if (n == 0) return SIM_OK;
  script_velocities(w, a, h);
  rc = merge_into_out(w, a, st);
  if (rc) return rc;
  /* the dropped ones are among the n new ones: out's keys are skipped above (but edge pairs,
     no folds), and collide already dropped out's own stray pairs */
  const int dropped = sim_detect_drop_stray_creases(&w->out);
  w->stray_creases += dropped;
  *added = n - dropped;
  return rc;
}

void sim_world_free(sim_world *w) {
  if (w->det_ready) sim_detect_free(&w->det);
  sim_detect_contacts_free(&w->out);
  sim_detect_contacts_free(&w->now);
  sim_detect_contacts_free(&w->ahead);
  sim_detect_contacts_free(&w->both);
  sim_detect_contacts_free(&w->pins);
  sim_detect_contacts_free(&w->cables);
  sim_free(w->cable_row);
  sim_free(w->read_vert);
  sim_free(w->skip);
  sim_free(w->sides);
  sim_world_points_free(w);
  sim_free(w->tri_first);
  sim_free(w->point_found);
  for (int k = 0; k < w->nmesh; k++) {
    sim_free(w->mesh_x0 ? w->mesh_x0[k] : NULL);
    sim_free(w->mesh_x ? w->mesh_x[k] : NULL);
    sim_free(w->mesh_tri ? w->mesh_tri[k] : NULL);
  }
  sim_free(w->obs);
  sim_free(w->obs_frame0);
  sim_free(w->obs_def);
  sim_free(w->mesh);
  sim_free(w->mesh_x0);
  sim_free(w->mesh_x);
  sim_free(w->mesh_tri);
  sim_free(w->mesh_def);
  sim_free(w->motion_t);
  sim_free(w->motion_t1);
  sim_free(w->body);
  sim_free(w->pinned);
  memset(w, 0, sizeof *w);
}

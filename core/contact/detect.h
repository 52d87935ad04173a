/* SPDX-License-Identifier: MIT */
/* Collision detection, once per time step (DESIGN.md Sec. 7): every simulated vertex against
   analytic obstacles, triangle-mesh obstacles and the surface triangles of the other bodies.

   What is a contact (one per vertex and obstacle / mesh obstacle / other body, the nearest,
   and with creases a second one per body on the far face of a fold: detect_crease.h):
   - analytic obstacle o (sdf.h): phi(x_v) <= margin. gap = phi, p = the closest point,
     n = the outward normal of the SDF (points from the obstacle towards v), u = the
     obstacle's rigid velocity at p (sim_obstacle_velocity: omega r tangential on a spinning
     cylinder).
   - triangle-mesh obstacle: the nearest triangle (smallest distance, then lowest triangle
     index) with unsigned distance d <= margin. p = the closest point c on it.
       closed (a watertight, outward-oriented, indexed mesh: shared vertices): signed.
         The side is that of the nearest face, or, when c lies on an edge or a vertex, of the
         pseudo-normal there (Baerentzen and Aanaes 2005: the sum of the incident face
         normals, angle-weighted at a vertex), so a vertex behind the surface is inside:
         gap = -d, n = (c - x)/d (pointing out). Outside gap = d, n = (x - c)/d. In a face's
         region n is the face normal itself (the same in exact arithmetic, free of rounding).
         Touching (d <= 8 eps max_i |c_i|, i.e. zero to rounding): gap 0, n the outward
         (pseudo-)normal.
       open (thin blades, codimensional): unsigned: gap = d, n = (x - c)/d (side times the
         face normal in a face's region); touching (as above), gap 0 and the triangle's
         normal turned towards the side x_prev (the caller's positions at the previous step)
         was on, or the front normal when there is no x_prev or x_prev lies in the plane.
         With a side remembered for the vertex (sim_detect_params.sides), n faces that side
         instead (flipped, and the gap negative, where x is behind it).
     Deeply penetrating vertices (d > margin from every triangle) are not found: the margin
     must exceed the motion of a step. u = vel + omega x (p - center) (rigid motion).
   - another body B (kind SIM_CONTACT_BODY, source B): the nearest surface triangle of B with
     d <= margin, signed as for a closed mesh obstacle where B is a solid (its surface closed
     and outward), unsigned as for an open one where B is open (a cloth: `open`), turned to
     the side the vertex came from (detect_body.h). tri = its global vertex indices, w =
     barycentrics of the closest point (sum 1), p = w0 x_tri0 + w1 x_tri1 + w2 x_tri2, u = 0,
     mu = sqrt(mu_A mu_B) (Box2D's friction mixing). With self_collision, B = A is tested
     too, a cloth's as well as a solid's, without the triangles incident to v and, where the
     body has rest positions (`rest`, the world gives them), without those nearer than
     rest_gap to v at rest: a flat cloth's triangles beyond v's ring lie in its plane within
     a margin about as wide as its edges, and would all be its targets. With no_others, no
     other body is tested (self-collision alone).
     The passes that read x_prev (sweep, face_prev) also find what v and B meet on their way
     over the step and a far side crossed, with both moving (detect_body.h).
   - with edge_edge, a pair of the bodies' surface edges (kind SIM_CONTACT_EDGE) whose segments
     come closest inside both within the margin, of two bodies or (self_collision) of one,
     held by the edge with the lower first vertex: detect_edge.h.
   - with obstacle_edges, a body's surface edge against an analytic obstacle (kind
     SIM_CONTACT_OBSTACLE_EDGE), two either side of the edge's point deepest in it, where that
     lies inside the edge within the margin, held by the edge's lower vertex:
     detect_obstacle_edge.h.
   For every kind: (t1, t2) = sim_tangent_basis(n); tri = -1, w = 0 except for BODY, EDGE and
   OBSTACLE_EDGE.

   Filters: a pinned vertex (pinned[v] != 0) meets the bodies alone, not their triangles of
   pinned vertices alone, nor obstacles (its triangles still count, and its edges' pairs
   where a vertex of the pair is free). An
   obstacle or mesh obstacle touches the vertices of body b when bit b of its bodies mask is
   set (bodies >= 64: only with the full mask SIM_DETECT_ALL); a vertex in no body's range is
   touched by every obstacle.

   Order: contacts sorted by (v, kind, source), which is the order they are generated in; the
   vertices are split into fixed chunks processed by OpenMP threads into per-thread buffers
   and concatenated in chunk order, so the output is identical for any thread count.

   Lifetime: sim_detect_init builds a BVH per mesh obstacle and per body surface (the caller
   keeps the scene's arrays alive and may change the positions between steps: bodies'
   BVHs are refit from x every step, mesh obstacles' when moving != 0). Failure: SIM_ERR_MESH
   on bad input (counts, indices, overlapping body ranges, non-finite mesh coordinates),
   SIM_ERR_MEMORY; the output then holds no contacts. */
#ifndef SIM_CONTACT_DETECT_H
#define SIM_CONTACT_DETECT_H
#include <stdint.h>

#include "base/status.h"
#include "contact/bvh_query.h"
#include "contact/contact.h"
#include "contact/sdf.h"

#define SIM_DETECT_ALL (~(uint64_t)0) /* bodies mask: every body */
#define SIM_DETECT_CHUNK 256          /* vertices per work chunk (fixed: determinism) */

/* The side a vertex was held on against an open surface, a mesh obstacle's (kind
   SIM_CONTACT_MESH) or an open body's (a cloth: SIM_CONTACT_BODY): its contact's normal n with
   that `source` at the step before, and whether the vertex was behind it at that step's start
   (the q_t pass's side memory, sim_detect_params.sides). In a renew pass, a contact of the step
   between bodies (BODY or EDGE) with its row: n, tri and w (sim_detect_params.renew). */
typedef struct sim_detect_side {
  int v, kind, source;
  int behind; /* 1: the contact came from that step's q_t pass with a gap < 0 (the vertex
                 behind that side at the step's start; the other passes' contacts face its side
                 at q_t) */
  int tri[3]; /* a body's: the contact's triangle (global vertex indices); else unread */
  double n[3];
  double w[3]; /* renew: the contact's weights (contact.h); else unread */
} sim_detect_side;

/* The order of the side memory's keys, (v, kind, source): < 0, 0 or > 0 as e's key is before,
   at or after the given one. */
SIM_HD int sim_detect_side_cmp(const sim_detect_side *e, int v, int kind, int source) {
  if (e->v != v) return e->v < v ? -1 : 1;
  if (e->kind != kind) return e->kind < kind ? -1 : 1;
  return e->source < source ? -1 : e->source > source;
}

typedef struct {
  double margin;      /* contact when the (signed) distance <= margin; >= 0 */
  double min_sep;     /* separation the normal rows enforce (stored in the output) */
  int self_collision; /* 0 (default): a body's vertices ignore its own triangles */
  int face_prev;      /* 1: a contact faces x_prev's side (the prediction pass and
                         re-detection, whose x_prev is q_t: a vertex that would cross a thin
                         part within the step is held on its side): where x_prev (carried by
                         the obstacle's step map) is behind the contact's plane,
                         n . (x_prev_v - p) < 0, an open mesh's n and gap change sign, and an
                         analytic obstacle's or closed mesh's contact, where x_prev is behind
                         it by more than the margin (detect_vertex.h), is taken again at x_prev
                         (its closest point, normal and gap: the face x_prev looks at; found
                         at x, a box falling 6 cm a step onto a slab 1 cm thick was nearer
                         its underside and went through it); inside_only still judges the
                         gap found at x. 0 (default): as found */
  int inside_only;    /* 1: only the contacts with gap < 0 (re-detection keeps no other: a
                         device detector then finds and copies no more); 0 (default): all */
  const sim_contact_key *skip; /* nskip keys sorted by (v, kind, source), or NULL: contacts */
  int nskip;                   /* with those keys are not found (re-detection: the step's own) */
  int skip_first; /* 1, in a pass after the first of passes (sim_detect_passes_on), with no skip
                     list: not the contacts whose keys the first pass found (the prediction
                     pass, where the step keeps q_t's contact: a device detector then copies
                     no duplicate down); read by passes only, 0 (default) elsewhere */
  int at_start;   /* 1 (the q_t pass): an obstacle or mesh obstacle with a step map (its `step`)
                     is queried where the vertex is relative to it at the step's start, the
                     margin widened by the map's displacement there; 0 (default): as posed */
  int sweep;      /* 1 (the prediction pass, with x_prev = q_t): an obstacle or mesh obstacle
                     that x is not within the margin of is still a contact where the segment
                     from x_prev (carried by its step map) to x comes within the margin of it,
                     taken at x_prev (its closest point, normal and gap), so a vertex faster
                     than the obstacle is thick does not pass through it (a box falling 20 cm
                     a step through a slab 1 cm thick); the same against other bodies,
                     whose surfaces move too (detect_body.h); 0 (default): x alone */
  const sim_detect_side *sides; /* nsides, sorted by (v, kind, source), or NULL: the side */
  int nsides; /* memory of open surfaces (the q_t pass: the contacts of the step before). A
                 vertex with an entry for open mesh m keeps its side: its contact's normal
                 faces that side and the gap is negative, where the vertex is on the other side
                 now and either it was behind already (behind; the side is the entry's n, as
                 the mesh's step map turns it) or the segment from x_prev to x meets one of the
                 mesh's triangles (sim_detect_mesh_crossed; both carried by the step map, as
                 the query is: a scripted blade's motion over the step before is not undone).
                 A crossing vertex's side is x_prev's side of the triangle it went through,
                 or n where x_prev lies in that plane (an edge contact's n lies almost in the
                 blade's plane, so its sign told nothing). A vertex resting on a blade's face lies in its plane to rounding at x_prev
                 and x, so neither position alone tells its side; taken from them, a box sliding down an open slope went through it
                 (test_contact_physics open_trough). One that went round the blade's edge has
                 the side it is on (a cloth vertex going round a knife's tip, 2.5 cm in a step,
                 was pulled back through). Without an entry, in an at_start pass, a vertex
                 whose segment from x_prev (a static mesh's: no step map) meets the mesh turns
                 to x_prev's side. An open body's (a cloth's) entry: detect_body.h. The other
                 passes leave sides NULL */
  int no_others; /* 1: a vertex meets no other body's surface, only its own with self_collision
                    (contact.bodies off); 0 (default): every other body's too */
  int edge_edge; /* 1: the bodies' surface edges meet the other bodies' (and their own body's
                    with self_collision) where they pass each other between vertices
                    (detect_edge.h, kind SIM_CONTACT_EDGE); 0 (default): vertices alone */
  int obstacle_edges; /* 1: the bodies' surface edges meet the analytic obstacles where an edge
                         dips into one between its vertices (detect_obstacle_edge.h, kind
                         SIM_CONTACT_OBSTACLE_EDGE; the bodies' surfaces given, sim_detect_body
                         nt); 0 (default): their vertices alone */
  int renew;     /* 1 (re-detection, with inside_only): sides lists step's contacts between bodies
                    (BODY, EDGE; the world lists its edge pairs) with their rows, whose keys skip
                    leaves out. Such a contact found again at x is kept, to take the step's one's
                    place, where that one's row reads more than SIM_DETECT_STALE margins more gap
                    at x than it has and it holds that one's side (n . n_step > 0): the points the
                    step's weights name are no longer the nearest (a ribbon sliding 8 cm a step
                    over another's 10 cm edges, its rows holding points 8 cm apart at the step's
                    end, went through). Else it is not found: the step's row holds it (found again
                    whatever the row read, a box resting on a coarse cloth, in its plane to
                    rounding, was taken on the face's back and pushed through). The entries are
                    also those keys' side memory (the step's contact, its side at q_t);
                    0 (default): none */
  int creases;   /* 1: a vertex within the margin of a fold of a body's or a mesh obstacle's
                    surface towards it has a second contact with it, on the fold's other face
                    (detect_crease.h; key source B + SIM_CONTACT_CREASE, contact.h); 0
                    (default): one per body and mesh */
} sim_detect_params;

#define SIM_DETECT_STALE 0.1 /* margins: a step's row reading that much more gap is renewed */

#define SIM_DETECT_SWEEP_STEPS 64 /* conservative advancement steps of a sweep */

/* Whether a pass reads the bodies' surfaces at x_prev as well as at x (sweep and face_prev do,
   detect_body.h): their trees are then refit to bound both poses (bvh.h sim_bvh_refit_swept).
   x_prev is the scene's, which the caller passes too. */
static inline int sim_detect_bodies_swept(const sim_detect_params *p) {
  return p->sweep || p->face_prev;
}

/* Where a point at x relative to an obstacle at the step's start lies relative to it at the
   step's end, y = Q x + c (M_{t+h} M_t^{-1} of its script). A vertex's contact with a moving
   obstacle (at_start) takes its closest point p, normal n and signed distance gap from y
   against the obstacle at t + h: the feature the vertex faces at the step's start, the gap it
   has then, and the target (n . p) where that feature is at the step's end. Queried at x
   instead, a vertex that the obstacle's step moves deeper than the obstacle's half thickness
   is nearer its far side and is pushed through it (a wall 8 mm thick moving 1 cm a step passed
   through a box: test_contact_physics). */
typedef struct sim_detect_step {
  int on;            /* 0: the obstacle does not move over the step (y = x) */
  double Q[9], c[3]; /* row-major */
} sim_detect_step;

/* The margin of an obstacle or mesh obstacle whose own is `own` in a pass with margin `pass`:
   its own where set (>= 0), else the pass's. A floor can then find a standing body's contacts
   nearer than a gripper does (scenes' obstacles[i].margin). */
SIM_HD double sim_detect_margin(double own, double pass) { return own >= 0 ? own : pass; }

SIM_HD void sim_detect_step_apply(const sim_detect_step *m, const double x[3], double y[3]) {
  for (int i = 0; i < 3; i++)
    y[i] = m->Q[3 * i] * x[0] + m->Q[3 * i + 1] * x[1] + m->Q[3 * i + 2] * x[2] + m->c[i];
}

typedef struct {
  sim_obstacle shape;
  double mu;       /* friction coefficient */
  uint64_t bodies; /* bit b: touches body b */
  sim_detect_step step; /* its step map (off: it does not move) */
  double margin; /* its own margin where >= 0; else (default -1, or NaN) the pass's */
} sim_detect_obstacle;

typedef struct {
  int nv, nt;
  const double *x; /* 3 nv world positions at this step (the caller applies the motion) */
  const int *tri;  /* 3 nt vertex indices, counter-clockwise seen from outside */
  int closed;      /* 1: watertight and outward (signed); 0: open or thin (unsigned) */
  int moving;      /* 1: x changes between steps (refit every step) */
  double vel[3], omega[3], center[3]; /* rigid velocity u(p) = vel + omega x (p - center) */
  double mu;
  uint64_t bodies;
  sim_detect_step step; /* its step map (off: it does not move over the step) */
  double margin; /* its own margin, its points' too, where >= 0; else (default -1) the pass's */
} sim_detect_mesh;

typedef struct {
  int v0, nv;     /* the body's vertices: global indices v0 .. v0 + nv - 1 */
  int nt;         /* surface triangles, global vertex indices: outward on a closed surface */
  const int *tri; /* 3 nt */
  double mu;
  int open;           /* 1: an open surface (a cloth): unsigned, turned to the side the vertex came
                         from; 0 (default): closed and outward, signed */
  const double *rest; /* self-collision: rest positions, 3 per vertex in global indexing (the
                         model's; read at the body's vertices only). Where given, a vertex is
                         not the target of its own triangles nearer to it than rest_gap at rest,
                         besides its own ring (bvh_query.h sim_bvh_skip); NULL (default): of its
                         ring alone */
  double rest_gap;
} sim_detect_body;

typedef struct {
  int nv;
  const double *x;               /* 3 nv current positions */
  const double *x_prev;          /* 3 nv positions at the previous step, or NULL */
  const unsigned char *pinned;   /* nv flags, or NULL */
  int nobs, nmesh, nbodies;
  const sim_detect_obstacle *obs;
  const sim_detect_mesh *mesh;
  const sim_detect_body *body;
} sim_detect_scene;

/* Caller-owned output (start from {0}; sim_detect_run resets n). */
typedef struct {
  sim_contact *c;
  int n, cap;
  int count[SIM_CONTACT_KINDS]; /* per sim_contact_kind */
  double min_sep; /* copied from the parameters */
} sim_detect_contacts;

/* The scene as one vertex's detection reads it (detect_vertex.h), with its arrays on the host
   (sim_detect_run) or on the device (gpu/detect_cuda.cu). */
typedef struct sim_detect_mesh_view {
  sim_bvh_view bvh;
  const double *x; /* the mesh's vertices (posed) */
  const int *tri;  /* its triangles in input order */
  int closed;
  double vel[3], omega[3], center[3];
  double mu;
  uint64_t bodies;
  sim_detect_step step;
  double margin; /* sim_detect_mesh.margin */
} sim_detect_mesh_view;

typedef struct sim_detect_body_view {
  sim_bvh_view bvh; /* over the global positions */
  const int *tri;   /* surface triangles in input order (global vertex indices) */
  double mu;
  int open;           /* sim_detect_body.open */
  const double *rest; /* sim_detect_body.rest, on the view's side */
  double rest_gap;
} sim_detect_body_view;

typedef struct sim_detect_view {
  int nv;
  const double *x, *x_prev;    /* x_prev may be NULL */
  const unsigned char *pinned; /* or NULL */
  const int *body_of;          /* nv */
  int nobs, nmesh, nbodies;
  const sim_detect_obstacle *obs;
  const sim_detect_mesh_view *mesh;
  const sim_detect_body_view *body;
  double margin;
  int self_collision;
  int face_prev;   /* sim_detect_params.face_prev */
  int inside_only; /* sim_detect_params.inside_only */
  const sim_contact_key *skip; /* sim_detect_params.skip, on the view's side */
  int nskip;
  int at_start; /* sim_detect_params.at_start */
  int sweep;    /* sim_detect_params.sweep */
  const sim_detect_side *sides; /* sim_detect_params.sides, on the view's side */
  int nsides;
  int no_others; /* sim_detect_params.no_others */
  int edges;     /* sim_detect_params.edge_edge */
  int renew;     /* sim_detect_params.renew */
  int creases;   /* sim_detect_params.creases */
  int obstacle_edges; /* sim_detect_params.obstacle_edges */
} sim_detect_view;

/* The most contacts one vertex can have as a point (sim_detect_vertex_point): one per obstacle,
   mesh obstacle and body, two per mesh and body with creases; and its edges' against the
   obstacles (obstacle_edges): two per obstacle and edge it owns. Its edges' against edges
   (edge_edge) have no such bound. */
SIM_HD int sim_detect_most(const sim_detect_view *v) {
  return v->nobs * (v->obstacle_edges ? 1 + 2 * SIM_CONTACT_EDGE_SLOTS : 1) +
         (v->creases ? 2 : 1) * (v->nmesh + v->nbodies);
}

/* Where a detection runs: NULL run (or no runner) = sim_detect_run on the host; a backend's
   device detector finds the same contacts from the same inputs (gpu/detect_cuda.h). Likewise
   the mesh obstacles' points against the bodies' triangles (detect_points.h): NULL points =
   sim_detect_points_run on the host. */
typedef struct sim_detect sim_detect;
typedef struct sim_point_scene sim_point_scene;
/* The points pass of a detection (detect_points.h): its scene, contacts and flags. */
typedef struct sim_detect_points_job {
  sim_point_scene *s;
  sim_detect_contacts *out;
  unsigned char *found;
} sim_detect_points_job;
typedef struct sim_detect_runner {
  void *ctx;
  int (*run)(void *ctx, sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
             sim_detect_contacts *out, sim_status *st);
  int (*points)(void *ctx, sim_point_scene *s, sim_detect_contacts *out, unsigned char *found,
                sim_status *st);
  /* Optional (NULL: run once per pass, then points): n <= SIM_DETECT_MAX_PASSES runs of the
     same detector, pass i from scene s[i] with params p[i] into out[i], each as run would
     give it, and with pts (or NULL) the points pass as points would give it (pts only where
     points is set too); a device detector queues them all before its one wait. */
  int (*passes)(void *ctx, sim_detect *d, int n, const sim_detect_scene *s,
                const sim_detect_params *p, sim_detect_contacts *const *out,
                const sim_detect_points_job *pts, sim_status *st);
} sim_detect_runner;
#define SIM_DETECT_MAX_PASSES 2

typedef struct sim_detect_buf_ sim_detect_buf_;
struct sim_detect {
  unsigned long long serial; /* distinct for every sim_detect_init (device copies key on it) */
  int nv, nmesh, nbodies;
  int *body_of;        /* nv: the vertex's body, -1 for none */
  sim_bvh *mesh_bvh;   /* nmesh */
  sim_bvh *body_bvh;   /* nbodies, over the global positions */
  sim_detect_mesh_view *mesh_view; /* nmesh, nbodies: the host view (sim_detect_run) */
  sim_detect_body_view *body_view;
  int nbuf;            /* per-thread buffers, kept between steps */
  sim_detect_buf_ *buf;
  int nchunk;
  int *chunk_thread, *chunk_first, *chunk_count; /* where each chunk's contacts went */
  int edge_most, edge_most_v; /* the most surface edges a vertex owns (detect_edge.h), and the
                                 first vertex that owns that many */
};

sim_detect_params sim_default_detect_params(void); /* margin 1e-3, min_sep 0, no self */
/* mu 0.5, touches all, the pass's margin */
sim_detect_obstacle sim_default_detect_obstacle(sim_obstacle_kind kind);
/* empty, closed, static, mu 0.5, touches all, the pass's margin */
sim_detect_mesh sim_default_detect_mesh(void);

int sim_detect_init(sim_detect *d, const sim_detect_scene *s, sim_status *st);
int sim_detect_run(sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
                   sim_detect_contacts *out, sim_status *st);
/* sim_detect_run's checks of its inputs: the scene has init's counts, the margin is finite and
   >= 0, the skip list sorted by vertex and the sides by key (SIM_ERR_INTERNAL, SIM_ERR_SCENE),
   with edge_edge or obstacle_edges no vertex owning more than SIM_CONTACT_EDGE_SLOTS edges
   (SIM_ERR_MESH).
   Also resets out (n, counts, min_sep). */
int sim_detect_check(const sim_detect *d, const sim_detect_scene *s, const sim_detect_params *p,
                     sim_detect_contacts *out, sim_status *st);
/* The passes' own checks (sim_detect_passes_on, a runner's passes): 0 <= n <=
   SIM_DETECT_MAX_PASSES, skip_first only after the first pass and without a skip list
   (SIM_ERR_INTERNAL). */
int sim_detect_check_passes(int n, const sim_detect_params *p, sim_status *st);
/* out less its contacts whose keys `first` has (both sorted by key; counts redone): a pass's
   skip_first, exactly, whatever a runner left out before. */
void sim_detect_drop_keys(sim_detect_contacts *out, const sim_detect_contacts *first);
/* out less its contacts on a fold's second face (detect_crease.h, key source B +
   SIM_CONTACT_CREASE) whose normal faces that of the vertex's first contact with that surface,
   kept in out, within acos(SIM_DETECT_CREASE_COS) of opposite (counts redone). Detection makes
   no such pair within a pass: a fold's faces meet at more than that angle, and a layer facing
   the vertex from its other side is no fold. But merging passes may keep the first contact of
   one (q_t's) and the second of another (the prediction's, or re-detection's), found against a
   different first face. On the folding towel a vertex inside a curl was held 4 mm in front of
   both faces of a fold closed to 18 degrees whose planes were 6.7 mm apart, which no position
   satisfies; the rows' multipliers grew to 5e3 N and the cloth went 15 mm through itself. The
   test reads the contacts alone (no positions: the CUDA backend's host holds few), so both
   backends drop the same. Returns the number dropped. */
int sim_detect_drop_stray_creases(sim_detect_contacts *out);
/* sim_detect_run, or r's device detector when r and r->run are set. */
int sim_detect_run_on(const sim_detect_runner *r, sim_detect *d, const sim_detect_scene *s,
                      const sim_detect_params *p, sim_detect_contacts *out, sim_status *st);
/* n passes and the points pass (pts, or NULL; sim_detect_runner.passes): r's, else
   sim_detect_run_on for each in turn, then sim_detect_points_run_on; fails with the first pass
   that fails. n may be 0 (d, s, p, out unread). */
int sim_detect_passes_on(const sim_detect_runner *r, sim_detect *d, int n,
                         const sim_detect_scene *s, const sim_detect_params *p,
                         sim_detect_contacts *const *out, const sim_detect_points_job *pts,
                         sim_status *st);
/* A serial number distinct from every other one this process hands out (device copies of a
   detector's or a pass's inputs key on it). */
unsigned long long sim_detect_new_serial(void);
void sim_detect_free(sim_detect *d);
void sim_detect_contacts_free(sim_detect_contacts *c);
/* Room for n contacts in c->c (grown, kept; c->n unchanged); SIM_ERR_MEMORY naming n. */
int sim_detect_contacts_reserve(sim_detect_contacts *c, long long n, sim_status *st);

#endif

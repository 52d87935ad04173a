/* SPDX-License-Identifier: MIT */
/* A contact found by collision detection (DESIGN.md Secs. 6-7) and its three constraint
   rows. One contact joins a simulated vertex v to a point on something else:
   - an analytic obstacle or a triangle-mesh obstacle: the point p (fixed for the step);
   - another deformable body's surface triangle (tri, barycentric weights w): the point
     moves with that body, x_c = w0 q_tri0 + w1 q_tri1 + w2 q_tri2.
   Rows (r = 0 normal, 1 and 2 the tangents), each a direction c_r times a combination of
   vertices, C q = q_v - sum_k w_k q_tri_k (only q_v for obstacles):
     H_r q = c_r . (C q),       c_0 = n, c_1 = t1, c_2 = t2;
   TRIANGLE turns the roles round: the simulated side is the body's triangle and the fixed
   point p is a vertex of a mesh obstacle (a blade's tip or edge poking at cloth), C q =
   sum_k w_k q_tri_k; v is the triangle's vertex of largest weight (for ordering), source the
   obstacle vertex's number, and the targets are the obstacle's (n points from p to the
   triangle).
   targets:
     normal   d_n = n . p + min_sep (obstacles), d_n = min_sep (bodies); gap H_n q - d_n >= 0;
     friction d_f = c_r . u (the obstacle's surface velocity u_hat at p; 0 for bodies),
              h * dot(delta_f) = H_f (q - q_t) - h d_f (Eq. 40).
   n points from the obstacle (or the other body) towards v.
   BILATERAL is not found by detection: it is a constraint pin's hold on vertex v (the
   paper's H_b, Eqs. 15b, 17a; DESIGN.md Sec. 6; core/contact/world_pins.c). source = the
   pin's index in the scene, n, t1, t2 = the axes x, y, z, p = the pin's target at t + h,
   u = 0, mu = 0, gap = |x_v - p| at detection (>= 0, a distance, not a signed gap), and
   compliance = the pin's E_b (m/N, 0 = hard). Its three rows are equalities, one per axis:
     H_r q - d_r + E_b lambda_r = 0,  d_r = c_r . p,
   i.e. x_v = p - E_b lambda: lambda (newtons, any sign) is the force the pin puts on v.
   CABLE is not found by detection either: a scene cable (core/scene/scene.h sim_cable_def;
   core/contact/world_cables.c) holding the length of the polyline through its embedded points
   x_i = sum_k beta_ik q_{v_ik}. Its row 0 is the length's gradient at the step's prediction
   q~ (world_cables.c says why), taken as constant over the step, row 1 and 2 are empty
   (H = 0, target 0, lambda stays 0):
     H_0 q = sum_t g_t . q_{vert_t},  g_t = sum_{(i,k): v_ik = vert_t} beta_ik dL/dx_i,
   (cable->term), and since L is positively homogeneous of degree 1, H_0 x = L(x) at the
   linearisation point: the row is L(q) - L_target + E_c lambda = 0 to first order, target d_0
   = L_target (at t + h). lambda (newtons) < 0 is tension. v = the cable's smallest vertex (for
   ordering), source = the cable's index, gap = L(q~) - L_target, compliance = E_c,
   mu = 0, n = t1 = t2 = 0.
   EDGE joins an edge of a body's surface to an edge of a body's surface (another body's, or
   its own with self-collision) where their closest points lie inside both (detect_edge.h):
   v and tri[0] the first edge's vertices (v < tri[0]), tri[1] < tri[2] the other's (v <
   tri[1]: the pair's edge with the lower first vertex holds it), w[0] = s the first edge's
   parameter, w[1] = 1 - t, w[2] = t the other's, so
     C q = (1 - s) q_v + s q_tri0 - (1 - t) q_tri1 - t q_tri2,
   the first edge's point less the other's. n points from the other edge to the first, p is
   the other edge's point at detection, u = 0; targets as BODY's. source names the pair
   (detect_edge.h sim_detect_edge_source): each pair of edges has its own key.
   OBSTACLE_EDGE joins an edge of a body's surface to an analytic obstacle at a point beside the
   edge's point deepest in it (detect_obstacle_edge.h: two such contacts, one either side): v
   and tri[0] the edge's vertices (v < tri[0]: v owns the edge), w[0] = s the point's
   parameter, so
     C q = (1 - s) q_v + s q_tri0,
   the edge's point; tri[1] = tri[2] = -1, w[1] = w[2] = 0. n, p and u as OBSTACLE's, and its
   targets too; source names the obstacle, the edge and the side
   (sim_detect_obstacle_edge_source). */
#ifndef SIM_CONTACT_CONTACT_H
#define SIM_CONTACT_CONTACT_H

typedef enum {
  SIM_CONTACT_OBSTACLE,     /* analytic obstacle (core/contact/sdf.h) */
  SIM_CONTACT_MESH,         /* triangle-mesh obstacle (core/contact/bvh.h) */
  SIM_CONTACT_BODY,         /* another deformable body's surface triangle */
  SIM_CONTACT_TRIANGLE,     /* a mesh obstacle's vertex p against a body's triangle (tri, w) */
  SIM_CONTACT_BILATERAL,    /* a constraint pin holding vertex v on its target p */
  SIM_CONTACT_CABLE,        /* a cable holding its length (one row) */
  SIM_CONTACT_EDGE,         /* a body's surface edge against a body's surface edge */
  SIM_CONTACT_OBSTACLE_EDGE /* a body's surface edge against an analytic obstacle */
} sim_contact_kind;
#define SIM_CONTACT_KINDS 8
/* An EDGE contact's source: (tri[1] SIM_CONTACT_EDGE_SLOTS + f) SIM_CONTACT_EDGE_SLOTS + e, e
   the first edge's place among the edges v owns, f the other's among tri[1]'s (detect_edge.h),
   so at most SIM_CONTACT_EDGE_SLOTS edges a vertex and SIM_CONTACT_EDGE_VERTS vertices. */
#define SIM_CONTACT_EDGE_SLOTS 16
#define SIM_CONTACT_EDGE_VERTS (2147483647 / (SIM_CONTACT_EDGE_SLOTS * SIM_CONTACT_EDGE_SLOTS))

/* A BODY (MESH) contact's source: the body B (mesh obstacle m), or B + SIM_CONTACT_CREASE for
   the vertex's second contact with it, in a fold of its surface (detect_crease.h);
   sim_contact_surface_of gives B (m). */
#define SIM_CONTACT_CREASE (1 << 24)
static inline int sim_contact_surface_of(int source) { return source & (SIM_CONTACT_CREASE - 1); }

/* A cable's row (CABLE): its terms (vertex, 3-vector coefficient), each vertex once. */
#define SIM_CABLE_MAX_TERMS 128
typedef struct sim_cable_row {
  int nt;
  int vert[SIM_CABLE_MAX_TERMS];
  double g[SIM_CABLE_MAX_TERMS][3]; /* dL/dq_vert at the linearisation point (unitless) */
  double target;                    /* L_target at t + h, m */
} sim_cable_row;

typedef struct sim_contact {
  sim_contact_kind kind;
  int v;           /* the simulated vertex (global index) */
  int source;      /* obstacle index (OBSTACLE), mesh obstacle index (MESH), body (BODY),
                      pin index (BILATERAL), the pair of edges (EDGE: see above), the obstacle
                      and the edge (OBSTACLE_EDGE: see above) */
  int tri[3];      /* BODY, TRIANGLE: the triangle's global vertex indices; EDGE,
                      OBSTACLE_EDGE: see above; otherwise -1 */
  double w[3];     /* BODY, TRIANGLE: barycentric weights of the closest point; EDGE,
                      OBSTACLE_EDGE: see above; otherwise 0 */
  double n[3];     /* unit normal, from the obstacle towards v */
  double t1[3];    /* unit tangents: (t1, t2, n) right-handed (sim_tangent_basis) */
  double t2[3];
  double p[3];     /* closest point on the obstacle at detection (OBSTACLE, MESH) */
  double u[3];     /* obstacle surface velocity at p (u_hat); 0 for BODY */
  double gap;      /* signed distance at detection (negative: penetrating) */
  double mu;       /* friction coefficient */
  double compliance; /* BILATERAL: E_b, CABLE: E_c, m/N (0 = hard); 0 for the other kinds */
  const sim_cable_row *cable; /* CABLE: its row (owned by the world); NULL otherwise */
  int dev_ref, dev_slot; /* where a device detector left a copy of it (its list's reference,
                            nonzero, and the slot: gpu/detect_cuda.h), so that a device stage
                            can gather it instead of an upload; 0 for the host's own */
} sim_contact;


/* A contact's key (vertex, kind, source), as a list of keys passes it (detect.h's skip). */
typedef struct sim_contact_key {
  int v, kind, source;
} sim_contact_key;

static inline sim_contact_key sim_contact_key_of(const sim_contact *c) {
  sim_contact_key k = {c->v, (int)c->kind, c->source};
  return k;
}

/* The order detection produces (vertex, kind, source): how contacts are matched across steps. */
static inline int sim_contact_key_cmp(const sim_contact *a, const sim_contact *b) {
  if (a->v != b->v) return a->v < b->v ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  return a->source < b->source ? -1 : a->source > b->source;
}
#endif

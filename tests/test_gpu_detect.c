/* SPDX-License-Identifier: MIT */
/* Collision detection on the device (gpu/detect_cuda.cu) against the host's (core/contact/
   detect.c), label gpu, SKIPPED without a CUDA device. A random scene with every kind of
   target: the six analytic obstacles (the cylinder infinite, and finite at odd steps),
   rotated and moving, some limited to one body, three with
   a step map (a random small rigid motion: detect.h sim_detect_step, read by the passes with
   at_start, every step but every third); a closed mesh obstacle that moves (its tree refit
   each step) and an open blade, both with step maps; two closed bodies (a bumpy sphere and a
   box) and a cloud of vertices in a third body without triangles, plus loose vertices in no
   body; pinned vertices; self-collision off and on; with and without previous positions, the
   segments from them swept (sweep) every other step, against the bodies' surfaces moving too
   (their trees then swept: detect_body.h), their far sides faced (face_prev), the blade's
   side remembered from the step before (sides, half of them turned round, a third flagged
   behind), and the box as an open body (a cloth's rules: detect_body.h) every other step;
   the bodies' edges against each other and against the analytic obstacles at some steps.
   Over four steps
   of random motion the bodies' trees as the device refit them must be the host's bit for bit
   (the ball's of 20,480 triangles in the second scene, so both the launches per level and the
   one block for the levels above run), and both must find the same contacts in the same order
   (kind, vertex, source and triangle equal) with every value within 1e-12 relative (the device's
   atan2 in a pseudo-normal's angle weights may differ from libm's in the last bits; everything else
   is the same arithmetic). Then the same detector on a second scene (it copies the new trees) and
   back on the first. Each run's contacts come down with their count in one wait where they fit the
   detector's guess, else in two: both happen, and the second waits the detector counts are those of
   the runs over the guess. A second detector runs each step's two passes at once
   (sim_cuda_detect_passes: from x after x_prev, and from x_prev after x with the blade's contacts
   turned the other way; the second at some calls only inside, with pass 0's keys as its skip list,
   at others without pass 0's keys by skip_first), each the host's contacts, with one wait for both
   where both fit their guesses; the contacts each pass found on the device (sim_cuda_detect_found)
   are those the host expects (with skip_first: less the keys of pass 0's contacts that its landing
   held). Last, the first scene with new detectors that count each vertex's contacts, then
   query it again for them (SIMCTL_CUDA_DETECT_SLOTS=off; by default one query keeps them in
   the vertex's slots). */
#include <stdlib.h>
#include <string.h>

#include "../gpu/detect_cuda.h"
#include "base/alloc.h"
#include "contact_cmp.h"
#include "gpu_pair.h"
#include "mesh/mesh.h"

/* Rotation by angle |a| about a (Rodrigues), row-major. */
static void rotation(const double a[3], double R[9]) {
  const double th = sim_norm3(a);
  const double k[3] = {a[0] / th, a[1] / th, a[2] / th}, c = cos(th), s = sin(th);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j) * c + (1 - c) * k[i] * k[j];
  R[1] -= s * k[2], R[2] += s * k[1], R[3] += s * k[2];
  R[5] -= s * k[0], R[6] -= s * k[1], R[7] += s * k[0];
}

/* A step map: a turn of up to 0.2 rad and a shift of up to 5 cm. */
static void random_step(sim_detect_step *m, unsigned long long *seed) {
  const double a[3] = {0.2 * rnd(seed), 0.2 * rnd(seed), 0.2 * rnd(seed)};
  rotation(a, m->Q);
  for (int k = 0; k < 3; k++) m->c[k] = 0.05 * rnd(seed);
  m->on = 1;
}

typedef struct world {
  sim_surface ball, box, mob, blade;
  double *x, *x_prev, *mob_x0;
  double *rest; /* the box's rest positions (its self-collision's, at its vertices) */
  unsigned char *pinned;
  int *tri_ball, *tri_box; /* global vertex indices */
  sim_detect_obstacle obs[SIM_OBS_KIND_COUNT];
  sim_detect_mesh mesh[2];
  sim_detect_body body[3];
  sim_detect_scene s;
  int nv;
} world;

static void shift(sim_surface *sf, double dx, double dy, double dz) {
  for (int v = 0; v < sf->nv; v++) sf->x[3 * v] += dx, sf->x[3 * v + 1] += dy, sf->x[3 * v + 2] += dz;
}

/* nloose: vertices in no body; ncloud: the triangle-less body's; subdiv: the ball's icosphere
   level (5: 20,480 triangles, a tree whose deepest inner levels refit a launch each on the
   device, gpu/bvh_cuda.h; 3: 1,280, every inner level in one block) */
static void world_build(world *w, unsigned long long seed, int ncloud, int nloose, int subdiv) {
  sim_status st = {0};
  memset(w, 0, sizeof *w);
  CHECK_INT(sim_gen_icosphere(0.5, subdiv, &w->ball, &st), SIM_OK);
  CHECK_INT(sim_gen_box_surface((const double[3]){0.2, -0.3, -0.3},
                                (const double[3]){0.9, 0.4, 0.4}, 5, &w->box, &st),
            SIM_OK);
  CHECK_INT(sim_gen_icosphere(0.3, 2, &w->mob, &st), SIM_OK);
  for (int v = 0; v < w->ball.nv; v++) { /* bumpy: concave features for the pseudo-normals */
    const double r = 1.0 + 0.15 * rnd(&seed);
    for (int k = 0; k < 3; k++) w->ball.x[3 * v + k] *= r;
  }
  shift(&w->mob, -0.6, 0.2, 0.1);
  /* an open blade: a thin fan of 4 triangles through the scene */
  w->blade.nv = 6, w->blade.nt = 4;
  w->blade.x = SIM_NEW(double, 18);
  w->blade.tri = SIM_NEW(int, 12);
  const double bx[18] = {-0.2, -0.8, -0.7, 0.4, -0.8, -0.7, -0.2, 0.2, -0.6,
                         0.4,  0.25, -0.65, -0.2, 0.7, -0.1, 0.4, 0.7, -0.15};
  const int bt[12] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4};
  memcpy(w->blade.x, bx, sizeof bx);
  memcpy(w->blade.tri, bt, sizeof bt);
  const int n0 = w->ball.nv, n1 = w->box.nv;
  w->nv = n0 + n1 + ncloud + nloose;
  w->x = SIM_NEW(double, 3 * (size_t)w->nv);
  w->x_prev = SIM_NEW(double, 3 * (size_t)w->nv);
  w->mob_x0 = SIM_NEW(double, 3 * (size_t)w->mob.nv);
  w->pinned = SIM_NEW0(unsigned char, w->nv);
  w->tri_ball = SIM_NEW(int, 3 * (size_t)w->ball.nt);
  w->tri_box = SIM_NEW(int, 3 * (size_t)w->box.nt);
  memcpy(w->x, w->ball.x, sizeof(double) * 3 * n0);
  memcpy(w->x + 3 * n0, w->box.x, sizeof(double) * 3 * n1);
  /* the box at rest, then squashed to 4.2 cm in y: its top face lies within the margin of its
     bottom face, across the box at rest (its self-collision's targets), and its side faces'
     triangles beside its vertices at rest (not their targets: rest_gap below) */
  w->rest = SIM_NEW0(double, 3 * (size_t)w->nv);
  memcpy(w->rest + 3 * n0, w->box.x, sizeof(double) * 3 * n1);
  for (int v = n0; v < n0 + n1; v++) w->x[3 * v + 1] = -0.3 + 0.06 * (w->x[3 * v + 1] + 0.3);
  memcpy(w->mob_x0, w->mob.x, sizeof(double) * 3 * w->mob.nv);
  for (int i = 0; i < 3 * w->ball.nt; i++) w->tri_ball[i] = w->ball.tri[i];
  for (int i = 0; i < 3 * w->box.nt; i++) w->tri_box[i] = n0 + w->box.tri[i];
  for (int v = n0 + n1; v < w->nv; v++)
    for (int k = 0; k < 3; k++) w->x[3 * v + k] = 1.1 * rnd(&seed);
  for (int v = 0; v < w->nv; v++) w->pinned[v] = rnd(&seed) > 0.9;
  for (int o = 0; o < SIM_OBS_KIND_COUNT; o++) {
    sim_detect_obstacle *ob = &w->obs[o];
    *ob = sim_default_detect_obstacle((sim_obstacle_kind)o);
    const double a[3] = {rnd(&seed), rnd(&seed), rnd(&seed)};
    rotation(a, ob->shape.frame.rot);
    for (int k = 0; k < 3; k++) {
      ob->shape.frame.pos[k] = 0.6 * rnd(&seed);
      ob->shape.vel[k] = rnd(&seed);
      ob->shape.half[k] = 0.15 + 0.1 * rnd(&seed);
    }
    ob->shape.radius = 0.2 + 0.05 * rnd(&seed);
    ob->shape.major = 0.45;
    ob->shape.half_height = o == SIM_OBS_CYLINDER ? 0.0 : 0.25; /* infinite (world_move) */
    ob->shape.omega = 2 * rnd(&seed);
    ob->mu = 0.3 + 0.1 * o;
    if (o == SIM_OBS_PLANE) ob->shape.frame.pos[1] = -0.9;
    if (o == SIM_OBS_SPHERE) ob->bodies = 1u << 1; /* the box only */
    if (o == SIM_OBS_TORUS) ob->bodies = (1u << 0) | (1u << 2);
    if (o % 2) random_step(&ob->step, &seed);
    if (o == SIM_OBS_BOX) ob->margin = 0.1; /* margins of their own (the pass's is 0.06) */
    if (o == SIM_OBS_TORUS) ob->margin = 0.03;
  }
  w->mesh[0] = sim_default_detect_mesh();
  w->mesh[0].nv = w->mob.nv, w->mesh[0].nt = w->mob.nt;
  w->mesh[0].x = w->mob.x, w->mesh[0].tri = w->mob.tri;
  w->mesh[0].moving = 1, w->mesh[0].mu = 0.7;
  w->mesh[0].vel[0] = 0.5, w->mesh[0].omega[1] = 1.5, w->mesh[0].center[0] = -0.6;
  w->mesh[1] = sim_default_detect_mesh();
  w->mesh[1].nv = 6, w->mesh[1].nt = 4, w->mesh[1].x = w->blade.x, w->mesh[1].tri = w->blade.tri;
  w->mesh[1].closed = 0, w->mesh[1].bodies = ~(1ull << 1), w->mesh[1].margin = 0.09;
  random_step(&w->mesh[0].step, &seed);
  random_step(&w->mesh[1].step, &seed);
  sim_detect_body b0 = {0, n0, w->ball.nt, w->tri_ball, 0.4, 0, NULL, 0};
  /* the box's own triangles within 0.1 of a vertex at rest are not its targets (its edges
     are 0.14 at rest: its ring and some of the next) */
  sim_detect_body b1 = {n0, n1, w->box.nt, w->tri_box, 0.9, 0, w->rest, 0.1};
  sim_detect_body b2 = {n0 + n1, ncloud, 0, NULL, 0.6, 0, NULL, 0};
  w->body[0] = b0, w->body[1] = b1, w->body[2] = b2;
  sim_detect_scene s = {w->nv, w->x, NULL, w->pinned, SIM_OBS_KIND_COUNT, 2, 3,
                        w->obs, w->mesh, w->body};
  w->s = s;
}

/* One step of motion: every vertex jitters, the mobile mesh turns and slides. */
static void world_move(world *w, int step, unsigned long long *seed) {
  /* the cylinder finite at odd steps, so its caps and their rims are queried too (no GPU test
     had until 2026-12-07: scripts/emu_coverage.sh) */
  w->obs[SIM_OBS_CYLINDER].shape.half_height = step % 2 ? 0.12 : 0.0;
  memcpy(w->x_prev, w->x, sizeof(double) * 3 * (size_t)w->nv);
  for (int i = 0; i < 3 * w->nv; i++) w->x[i] += 0.02 * rnd(seed);
  const double a[3] = {0.0, 0.3 * step, 0.0};
  double R[9];
  rotation(a, R);
  for (int v = 0; v < w->mob.nv; v++) {
    const double *p = w->mob_x0 + 3 * v;
    const double r[3] = {p[0] + 0.6, p[1] - 0.2, p[2] - 0.1};
    for (int i = 0; i < 3; i++)
      w->mob.x[3 * v + i] = R[3 * i] * r[0] + R[3 * i + 1] * r[1] + R[3 * i + 2] * r[2] +
                            (i == 0 ? -0.6 + 0.05 * step : i == 1 ? 0.2 : 0.1);
  }
  w->s.x_prev = w->x_prev;
}

static void world_free(world *w) {
  sim_surface_free(&w->ball), sim_surface_free(&w->box), sim_surface_free(&w->mob);
  sim_surface_free(&w->blade);
  sim_free(w->x), sim_free(w->x_prev), sim_free(w->mob_x0), sim_free(w->pinned);
  sim_free(w->rest);
  sim_free(w->tri_ball), sim_free(w->tri_box);
}

/* The landing's guess (gpu/landing_cuda.h): a run's contacts come down with their count in one
   wait where they are at most this many, else the run waits a second time. It is the last
   count and a quarter more, the more at most 256, the guess at least 64. */
static long long g_guess = 64, g_second; /* the detector's next guess; runs over a guess */

/* The same for a detector that runs passes only (the step's two, q_t's and the prediction's):
   one landing per pass, so one guess per pass. */
/* the passes' guesses: [inside_only][pass] (an inside pass has a landing of its own) */
static long long g_pass_guess[2][2] = {{64, 64}, {64, 64}}, g_pass_once, g_pass_more;

static void follow(long long *guess, int n) {
  *guess = n + (n / 4 < 256 ? n / 4 : 256);
  *guess = *guess > 64 ? *guess : 64;
}

/* The contacts of `a` whose keys are not among the first `nb` of b (both sorted by key). */
static int count_not_in(const sim_detect_contacts *a, const sim_detect_contacts *b, int nb) {
  int n = 0, i = 0;
  for (int j = 0; j < a->n; j++) {
    while (i < nb && sim_contact_key_cmp(&b->c[i], &a->c[j]) < 0) i++;
    n += !(i < nb && sim_contact_key_cmp(&b->c[i], &a->c[j]) == 0);
  }
  return n;
}

/* Both passes of a step at once on kp: pass 0 from x (x_prev before it), pass 1 from x_prev (x
   before it: the positions' roles swapped, as the prediction's pass has q~ and q_t) with the
   blade's contacts turned the other way, at every other call only those inside (inside_only,
   re-detection's filter), else at every other such call without pass 0's keys (skip_first,
   the prediction pass's). Each the host's contacts, in one wait where both fit their guesses
   (one more wait per pass over its guess; with skip_first the device skips the keys of what
   pass 0's landing held, the vertices' within its guess, and the host drops the rest after). */
static int g_inside_calls, g_inside_found, g_first_calls, g_first_dropped;
static int g_blade_behind; /* blade contacts with a negative gap: turned to a side */
static long long g_tree_nodes; /* the bodies' tree nodes compared with the host's */
static int g_open_turned;  /* the open box's contacts with a negative gap: turned to a side */
static int g_open_self;    /* the open box's vertices' contacts with its own triangles */
static int g_edges, g_edges_self, g_edges_turned; /* edge pairs: all, of one body, gap < 0 */
static int g_obstacle_edges;                      /* edges' points against the analytic obstacles */
static int g_creases, g_creases_open, g_creases_mesh; /* second contacts in folds (creases): */
                                                      /* bodies', the open box's, meshes' */

/* The copies the device left of a pass's contacts (dev_ref, dev_slot: what a device contact
   stage gathers instead of an upload): every 7th of them, bitwise the contact; and a contact of
   the call before, whose pass has run again since, no longer held. */
static sim_contact g_stale;
static void check_copies(sim_cuda_detect *kp, const sim_detect_contacts *o) {
  sim_status st = {0};
  int bad = 0, held = 0;
  sim_contact d;
  for (int j = 0; j < o->n; j += 7) {
    CHECK_INT(sim_cuda_detect_copy(kp, &o->c[j], &d, &held, &st), SIM_OK);
    bad += !held || memcmp(&d, &o->c[j], sizeof d) != 0;
  }
  check_report(bad == 0, __FILE__, __LINE__, "%d device copies differ or are gone", bad);
  if (g_stale.dev_ref != 0) {
    CHECK_INT(sim_cuda_detect_copy(kp, &g_stale, &d, &held, &st), SIM_OK);
    CHECK_INT(held, 0);
  }
}
static void run_passes(sim_cuda_detect *kp, sim_detect *dh, sim_detect *dg, world *w,
                       const sim_detect_params *p, const char *what) {
  sim_status st = {0};
  sim_detect_scene s[2] = {w->s, w->s};
  s[1].x = w->x_prev, s[1].x_prev = w->x;
  sim_detect_params par[2] = {*p, *p};
  par[1].face_prev = !p->face_prev;
  par[1].inside_only = g_inside_calls++ % 2;
  par[1].skip_first = !par[1].inside_only && g_first_calls++ % 2 == 0;
  sim_detect_contacts h = {0}, h0 = {0}, g0 = {0}, g1 = {0};
  sim_contact_key *skip = NULL; /* the inside pass skips pass 0's keys, as re-detection does */
  if (par[1].inside_only) {
    CHECK_INT(sim_detect_run(dh, &s[0], &par[0], &h, &st), SIM_OK);
    skip = SIM_NEW(sim_contact_key, (size_t)h.n + 1);
    for (int j = 0; j < h.n; j++) skip[j] = sim_contact_key_of(&h.c[j]);
    par[1].skip = skip, par[1].nskip = h.n;
  }
  sim_detect_contacts *const out[2] = {&g0, &g1};
  const long long before = sim_cuda_detect_waits(kp), found = sim_cuda_detect_found(kp);
  int rc = sim_cuda_detect_passes(kp, dg, 2, s, par, out, NULL, &st);
  if (rc) fprintf(stderr, "device passes: %s\n", st.msg);
  CHECK_INT(rc, SIM_OK);
  long long waits = 1, counts = 0;
  const long long guess0 = g_pass_guess[par[0].inside_only][0];
  for (int i = 0; i < 2; i++) {
    sim_detect_params q = par[i]; /* a run alone: all of pass 1's contacts */
    q.skip_first = 0;
    CHECK_INT(sim_detect_run(dh, &s[i], &q, &h, &st), SIM_OK);
    int count = h.n; /* what the device's pass found: its landing's count */
    if (i == 1 && par[1].skip_first) {
      int held = h0.n; /* pass 0's contacts of the vertices whose contacts end within its guess */
      while (held > guess0 || (held > 0 && held < h0.n && h0.c[held].v == h0.c[held - 1].v))
        held--;
      count = count_not_in(&h, &h0, held);
      const int all = h.n;
      sim_detect_drop_keys(&h, &h0);
      g_first_dropped += all - h.n;
    }
    char pw[96];
    snprintf(pw, sizeof pw, "%s, pass %d of 2", what, i);
    const int same = compare(&h, out[i], pw);
    check_copies(kp, out[i]);
    printf("%s%s: %d contacts, %d bitwise equal\n", pw,
           par[i].inside_only ? " (inside)" : par[i].skip_first ? " (less pass 0's keys)" : "",
           h.n, same);
    if (par[i].inside_only) {
      int outside = 0;
      for (int j = 0; j < out[i]->n; j++) outside += !(out[i]->c[j].gap < 0);
      CHECK_INT(outside, 0);
      g_inside_found += out[i]->n;
    }
    long long *guess = &g_pass_guess[par[i].inside_only][i];
    waits += count > *guess;
    follow(guess, count);
    counts += count;
    if (i == 0) h0 = h, h = (sim_detect_contacts){0}; /* pass 0's, for pass 1 */
  }
  g_pass_once += waits == 1;
  g_pass_more += waits > 1;
  CHECK_INT((int)(sim_cuda_detect_waits(kp) - before), (int)waits);
  CHECK_INT((int)(sim_cuda_detect_found(kp) - found), (int)counts);
  sim_free(skip);
  if (g0.n > 0) g_stale = g0.c[0]; /* pass 0 runs again at the next call */
  sim_detect_contacts_free(&h), sim_detect_contacts_free(&h0);
  sim_detect_contacts_free(&g0), sim_detect_contacts_free(&g1);
}

/* The bodies' trees as the device refit them: the host's bit for bit (a box is the least and
   greatest of its triangles' coordinates, or of its children's, whatever the order). */
static void check_trees(const sim_cuda_detect *k, const sim_detect *dh, const char *what) {
  sim_status st = {0};
  for (int b = 0; b < dh->nbodies; b++) {
    const sim_bvh *t = &dh->body_bvh[b];
    sim_bvh_node *dev = SIM_NEW(sim_bvh_node, (size_t)t->nnodes + 1);
    int n = -1, differ = 0;
    CHECK_INT(sim_cuda_detect_body_tree(k, b, dev, &n, &st), SIM_OK);
    CHECK_INT(n, t->nnodes);
    for (int i = 0; dev && i < n && n == t->nnodes; i++)
      differ += memcmp(dev[i].lo, t->node[i].lo, sizeof dev[i].lo) != 0 ||
                memcmp(dev[i].hi, t->node[i].hi, sizeof dev[i].hi) != 0 ||
                dev[i].first != t->node[i].first || dev[i].count != t->node[i].count;
    if (differ) fprintf(stderr, "%s: body %d's tree: %d of %d nodes differ\n", what, b, differ, n);
    CHECK_INT(differ, 0);
    g_tree_nodes += n;
    sim_free(dev);
  }
}

static void run_steps(sim_cuda_detect *k, sim_cuda_detect *kp, world *w, unsigned long long seed,
                      int steps) {
  sim_status st = {0};
  sim_detect dh, dg;
  CHECK_INT(sim_detect_init(&dh, &w->s, &st), SIM_OK);
  CHECK_INT(sim_detect_init(&dg, &w->s, &st), SIM_OK);
  sim_detect_params p = sim_default_detect_params();
  p.margin = 0.06, p.min_sep = 0.001;
  sim_detect_contacts h = {0}, g = {0};
  sim_detect_side *sides = NULL;
  for (int step = 0; step < steps; step++) {
    if (step > 0) world_move(w, step, &seed);
    if (step % 2) /* the pinned set changes (the device copy follows where it changed) */
      for (int v = 0; v < w->nv; v++) w->pinned[v] ^= rnd(&seed) > 0.9;
    /* the blade's side memory: the step before's blade contacts, every other one turned round
       (where the vertex still touches the blade and crossed it, or every third's flag says it
       was behind already, its contact turns too) */
    int nsides = 0;
    sim_free(sides);
    sides = SIM_NEW(sim_detect_side, (size_t)h.n + 1);
    for (int j = 0; sides && j < h.n; j++) {
      const sim_contact *c = &h.c[j];
      if (c->kind != SIM_CONTACT_EDGE &&
          (c->source != 1 || (c->kind != SIM_CONTACT_MESH && c->kind != SIM_CONTACT_BODY)))
        continue; /* the blade's, the box's where it is open, and the pairs of edges */
      sim_detect_side *e = &sides[nsides];
      e->v = c->v, e->kind = c->kind, e->source = c->source, e->behind = nsides % 3 == 0;
      for (int i = 0; i < 3; i++) e->tri[i] = c->tri[i];
      for (int i = 0; i < 3; i++) e->n[i] = nsides % 2 ? -c->n[i] : c->n[i];
      nsides++;
    }
    p.sides = sides, p.nsides = nsides;
    p.self_collision = step % 4 != 0; /* step 2: the open box against itself */
    p.no_others = step % 4 == 3;      /* step 3: against itself alone (contact.bodies off) */
    p.edge_edge = step % 3 != 2;      /* the bodies' edges against each other's */
    p.obstacle_edges = step % 3 != 0; /* and against the analytic obstacles */
    p.creases = step % 3 != 1;        /* second contacts in the bodies' folds */
    w->body[1].open = step % 2 == 0; /* the box as an open body (a cloth's rules) */
    int open_turned = 0;
    p.face_prev = (step / 2) % 2; /* the blade's contacts turned to x_prev's side */
    p.at_start = step % 3 != 1;
    p.sweep = step % 2; /* the segments from x_prev (0.035 m on average, the margin 0.06) */
    CHECK_INT(sim_detect_run(&dh, &w->s, &p, &h, &st), SIM_OK);
    int rc = sim_cuda_detect_run(k, &dg, &w->s, &p, &g, &st);
    if (rc) fprintf(stderr, "device detection: %s\n", st.msg);
    CHECK_INT(rc, SIM_OK);
    char what[64];
    snprintf(what, sizeof what, "%d vertices, step %d", w->nv, step);
    const int same = compare(&h, &g, what);
    check_trees(k, &dh, what);
    const int over = g.n > g_guess;
    g_second += over;
    follow(&g_guess, g.n);
    printf("%s: %d contacts (obstacle %d, mesh %d, body %d), %d bitwise equal; %s\n", what, h.n,
           h.count[SIM_CONTACT_OBSTACLE], h.count[SIM_CONTACT_MESH], h.count[SIM_CONTACT_BODY],
           same, over ? "two waits" : "one wait");
    CHECK_INT((int)sim_cuda_detect_second_waits(k), (int)g_second);
    CHECK(h.count[SIM_CONTACT_OBSTACLE] > 50 && h.count[SIM_CONTACT_MESH] > 10 &&
          h.count[SIM_CONTACT_BODY] > 10);
    CHECK_NEAR(g.min_sep, 0.001, 0);
    for (int j = 0; !p.face_prev && j < h.n; j++) /* turned by the memory (the blade moves: no
                                                     at_start turn to x_prev's side) */
      g_blade_behind += h.c[j].kind == SIM_CONTACT_MESH && h.c[j].source == 1 && h.c[j].gap < 0;
    for (int j = 0; w->body[1].open && j < h.n; j++) /* the open box's: unsigned, or turned */
      open_turned += h.c[j].kind == SIM_CONTACT_BODY && h.c[j].source == 1 && h.c[j].gap < 0;
    if (w->body[1].open && step > 0) g_open_turned += open_turned;
    for (int j = 0; w->body[1].open && p.self_collision && j < h.n; j++)
      g_open_self += h.c[j].kind == SIM_CONTACT_BODY && h.c[j].source == 1 &&
                     h.c[j].v >= w->body[1].v0 && h.c[j].v < w->body[1].v0 + w->body[1].nv;
    for (int j = 0; j < h.n; j++) {
      const sim_contact *c = &h.c[j];
      if (c->kind == SIM_CONTACT_BODY && c->source >= SIM_CONTACT_CREASE) {
        g_creases++;
        g_creases_open += w->body[1].open && c->source == 1 + SIM_CONTACT_CREASE;
      }
      g_creases_mesh += c->kind == SIM_CONTACT_MESH && c->source >= SIM_CONTACT_CREASE;
      g_obstacle_edges += c->kind == SIM_CONTACT_OBSTACLE_EDGE;
      if (c->kind != SIM_CONTACT_EDGE) continue;
      g_edges++;
      g_edges_self += dh.body_of[c->v] == dh.body_of[c->tri[1]];
      g_edges_turned += c->gap < 0;
    }
    if (w->nv < 10000) run_passes(kp, &dh, &dg, w, &p, what); /* the small scene: time */
  }
  sim_free(sides);
  /* a bad margin fails on the device as on the host, and leaves no contacts */
  p.margin = -1;
  CHECK_INT(sim_cuda_detect_run(k, &dg, &w->s, &p, &g, &st), SIM_ERR_SCENE);
  CHECK_INT(g.n, 0);
  sim_detect_contacts_free(&h), sim_detect_contacts_free(&g);
  sim_detect_free(&dh), sim_detect_free(&dg);
}

int main(void) {
  gpu_or_skip("test_gpu_detect");
  sim_status st = {0};
  sim_cuda_detect *k = NULL, *kp = NULL;
  CHECK_INT(sim_cuda_detect_create(NULL, &k, &st), SIM_OK);
  CHECK_INT(sim_cuda_detect_create(NULL, &kp, &st), SIM_OK);
  world a, b;
  world_build(&a, 11, 3000, 500, 3);
  world_build(&b, 29, 20000, 3000, 5);
  run_steps(k, kp, &a, 5, 4);
  CHECK(sim_cuda_detect_bytes(k) > 0);
  run_steps(k, kp, &b, 7, 2); /* another sim_detect: the detector copies its trees */
  run_steps(k, kp, &a, 9, 2);
  /* both ways down were taken: more contacts than guessed (the first run's above all), and as
     many as guessed or fewer */
  CHECK(g_second > 0 && g_second < 8);
  /* the passes too: some waited only once for both, some a second time */
  CHECK(g_pass_once > 0 && g_pass_more > 0);
  CHECK(g_inside_calls > 1 && g_inside_found > 0); /* the inside passes found some */
  CHECK(g_first_calls > 1 && g_first_dropped > 0);  /* pass 1 met pass 0's contacts */
  printf("tree nodes refit on the device, the host's bit for bit: %lld\n", g_tree_nodes);
  CHECK(g_tree_nodes > 20000);
  printf("blade contacts turned round by the side memory: %d\n", g_blade_behind);
  CHECK(g_blade_behind > 0);
  printf("the open box's contacts turned to the side their vertices came from: %d\n",
         g_open_turned);
  CHECK(g_open_turned > 0);
  printf("the open box's vertices against its own triangles: %d contacts\n", g_open_self);
  CHECK(g_open_self > 0);
  printf("edge-edge contacts: %d, %d of them within a body, %d turned (gap < 0)\n", g_edges,
         g_edges_self, g_edges_turned);
  CHECK(g_edges > 100 && g_edges_self > 0 && g_edges_turned > 0);
  printf("edge-obstacle contacts: %d\n", g_obstacle_edges);
  CHECK(g_obstacle_edges > 100);
  printf(
      "second contacts in folds (creases): %d of bodies, %d of them the open box's; %d of"
      " mesh obstacles\n",
      g_creases, g_creases_open, g_creases_mesh);
  CHECK(g_creases > 10 && g_creases_open > 0 && g_creases_mesh > 0);
  /* the first scene again with the slots off (SIMCTL_CUDA_DETECT_SLOTS=off, what a run too
     large for them does): each vertex counted, then queried again for its contacts; new
     detectors, whose guesses start over */
  sim_cuda_detect *k2 = NULL, *kp2 = NULL;
  setenv("SIMCTL_CUDA_DETECT_SLOTS", "sometimes", 1);
  CHECK_INT(sim_cuda_detect_create(NULL, &k2, &st), SIM_ERR_USAGE);
  CHECK(k2 == NULL && strstr(st.msg, "SIMCTL_CUDA_DETECT_SLOTS") != NULL);
  setenv("SIMCTL_CUDA_DETECT_SLOTS", "off", 1);
  CHECK_INT(sim_cuda_detect_create(NULL, &k2, &st), SIM_OK);
  CHECK_INT(sim_cuda_detect_create(NULL, &kp2, &st), SIM_OK);
  unsetenv("SIMCTL_CUDA_DETECT_SLOTS");
  g_guess = 64, g_second = 0;
  for (int f = 0; f < 2; f++) g_pass_guess[f][0] = g_pass_guess[f][1] = 64;
  g_stale = (sim_contact){0};
  const int inside_before = g_inside_calls, first_before = g_first_calls;
  run_steps(k2, kp2, &a, 13, 4);
  CHECK(g_inside_calls > inside_before && g_first_calls > first_before);
  world_free(&a), world_free(&b);
  sim_cuda_detect_destroy(k);
  sim_cuda_detect_destroy(kp);
  sim_cuda_detect_destroy(k2);
  sim_cuda_detect_destroy(kp2);
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_gpu_detect");
}

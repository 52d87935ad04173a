/* SPDX-License-Identifier: MIT */
/* A merged contact list less its second contacts on a fold's far face that no position of the
   vertex satisfies with its first contact on that surface (core/contact/detect.h
   sim_detect_drop_stray_creases), min_sep 4 mm:
   - dropped: a cloth vertex held in front of two faces whose normals face each other (0.95
     opposite, as on the folding towel) with planes 6.7 mm apart; a blade's face and the same
     plane turned (a mesh obstacle's, 0 mm apart);
   - kept: the same faces 23 mm apart (a vertex between two blades), a fold open wider than
     acos(SIM_DETECT_CREASE_COS) however near, faces whose normals agree, a second contact
     whose first is of another surface or absent, and every contact of another kind;
   - the order and the per-kind counts of what is kept, and the number dropped. */
#include <math.h>
#include <string.h>

#include "../core/contact/detect.h"
#include "check.h"

#define MIN_SEP 0.004
#define NV 12

/* x: vertex 0 at the origin; vertices 1-3 the first face's corners, 4-6 the second's, 7-9 a
   third's, at heights set per case (only the weighted corner matters: w = (1, 0, 0)). */
static double g_x[3 * NV];

static sim_contact body(int v, int source, int t0, const double n[3]) {
  sim_contact c;
  memset(&c, 0, sizeof c);
  c.v = v, c.kind = SIM_CONTACT_BODY, c.source = source;
  c.tri[0] = t0, c.tri[1] = t0 + 1, c.tri[2] = t0 + 2;
  c.w[0] = 1.0;
  const double l = sim_norm3(n);
  for (int k = 0; k < 3; k++) c.n[k] = n[k] / l;
  return c;
}

static sim_contact mesh(int v, int source, const double p[3], const double n[3]) {
  sim_contact c;
  memset(&c, 0, sizeof c);
  c.v = v, c.kind = SIM_CONTACT_MESH, c.source = source;
  for (int k = 0; k < 3; k++) c.p[k] = p[k], c.n[k] = n[k];
  return c;
}

/* A list of the contacts given (sorted by key, as detection leaves it), counts filled. */
static void list(sim_detect_contacts *o, sim_contact *c, int n) {
  memset(o, 0, sizeof *o);
  o->c = c, o->n = o->cap = n, o->min_sep = MIN_SEP;
  for (int j = 0; j < n; j++) o->count[c[j].kind]++;
}

static void heights(double first, double second) {
  memset(g_x, 0, sizeof g_x);
  g_x[3 * 1 + 1] = first;  /* the first face's point, below vertex 0 */
  g_x[3 * 4 + 1] = second; /* the second face's point, above it */
}

/* The towel's fold: normals 0.95 opposite; the second face near (dropped) or far (kept). */
static void test_closed_fold(void) {
  const double up[3] = {0, 1, 0}, down[3] = {0.3122, -0.95, 0}; /* |down| = 1 */
  const int crease = 0 + SIM_CONTACT_CREASE;
  for (int far = 0; far < 2; far++) {
    heights(-0.003, far ? 0.020 : 0.0037); /* the planes 6.7 mm or 23 mm apart at vertex 0 */
    /* vertex 2: the same second face, its first contact on another surface (body 3) */
    sim_contact c[4] = {body(0, 0, 1, up), body(0, crease, 4, down), body(2, 3, 1, up),
                        body(2, crease, 4, down)};
    sim_detect_contacts o;
    list(&o, c, 4);
    const int dropped = sim_detect_drop_stray_creases(&o, g_x);
    if (far) { /* vertex 0's pair leaves room */
      CHECK_INT(dropped, 0);
      CHECK_INT(o.n, 4);
    } else { /* vertex 0's second contact goes; vertex 2's has no first to clash with */
      CHECK_INT(dropped, 1);
      CHECK_INT(o.n, 3);
      CHECK_INT(o.c[0].v, 0);
      CHECK_INT(o.c[0].source, 0);
      CHECK_INT(o.c[1].v, 2);
      CHECK_INT(o.c[2].source, crease);
    }
    CHECK_INT(o.count[SIM_CONTACT_BODY], o.n);
  }
}

/* A fold open wider than the crease test's angle (normals 0.85 opposite) stays, however
   near; so do normals that agree, a second contact with no first, and one whose first
   contact is another body's. */
static void test_kept(void) {
  heights(-0.001, 0.001);
  const double up[3] = {0, 1, 0}, wide[3] = {0.5268, -0.85, 0}, tilted[3] = {0.3122, 0.95, 0};
  const int crease = 1 + SIM_CONTACT_CREASE;
  sim_contact c[6] = {body(0, 1, 1, up),          body(0, crease, 4, wide), body(3, 1, 1, up),
                      body(3, crease, 4, tilted), body(5, crease, 4, up),   body(6, 2, 1, up)};
  sim_contact all[7];
  memcpy(all, c, sizeof c);
  all[6] = body(6, crease, 4, wide); /* body 1's fold; vertex 6 touches body 2 alone */
  sim_detect_contacts o;
  list(&o, all, 7);
  CHECK_INT(sim_detect_drop_stray_creases(&o, g_x), 0);
  CHECK_INT(o.n, 7);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 7);
}

/* A mesh obstacle's (a blade's) face and the same plane turned: dropped, a point contact and
   an obstacle's contact of the same vertex kept and counted. */
static void test_mesh(void) {
  heights(0, 0);
  const double p[3] = {0, -0.01, 0}, up[3] = {0, 1, 0}, down[3] = {0, -1, 0};
  sim_contact ob;
  memset(&ob, 0, sizeof ob);
  ob.v = 0, ob.kind = SIM_CONTACT_OBSTACLE, ob.n[1] = 1;
  sim_contact c[3] = {ob, mesh(0, 0, p, up), mesh(0, SIM_CONTACT_CREASE, p, down)};
  sim_detect_contacts o;
  list(&o, c, 3);
  CHECK_INT(sim_detect_drop_stray_creases(&o, g_x), 1);
  CHECK_INT(o.n, 2);
  CHECK_INT(o.c[0].kind, SIM_CONTACT_OBSTACLE);
  CHECK_INT(o.c[1].kind, SIM_CONTACT_MESH);
  CHECK_INT(o.c[1].source, 0);
  CHECK_INT(o.count[SIM_CONTACT_MESH], 1);
  CHECK_INT(o.count[SIM_CONTACT_OBSTACLE], 1);
}

int main(void) {
  test_closed_fold();
  test_kept();
  test_mesh();
  return check_summary("test_stray_creases");
}

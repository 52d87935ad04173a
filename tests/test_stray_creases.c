/* SPDX-License-Identifier: MIT */
/* A merged contact list less its second contacts on a fold's far face whose normal faces that
   of the vertex's first contact on the same surface within 25.8 degrees of opposite
   (core/contact/detect.h sim_detect_drop_stray_creases):
   - dropped: a cloth vertex's second face 0.95 opposite its first (the folding towel's pair),
     and a mesh obstacle's (a blade's) face with the same plane turned;
   - kept: a fold open wider (0.85 opposite), faces whose normals agree (0.95), a second contact
     whose first contact is with another surface or absent, and every contact of another kind;
   - the order and the per-kind counts of what is kept, and the number dropped. */
#include <math.h>
#include <string.h>

#include "../core/contact/detect.h"
#include "check.h"

static sim_contact contact(int v, sim_contact_kind kind, int source, const double n[3]) {
  sim_contact c;
  memset(&c, 0, sizeof c);
  c.v = v, c.kind = kind, c.source = source;
  const double l = sim_norm3(n);
  for (int k = 0; k < 3; k++) c.n[k] = n[k] / l;
  return c;
}

static sim_contact body(int v, int source, const double n[3]) {
  return contact(v, SIM_CONTACT_BODY, source, n);
}

/* A list of the contacts given (sorted by key, as detection leaves it), counts filled. */
static void list(sim_detect_contacts *o, sim_contact *c, int n) {
  memset(o, 0, sizeof *o);
  o->c = c, o->n = o->cap = n, o->min_sep = 0.004;
  for (int j = 0; j < n; j++) o->count[c[j].kind]++;
}

static const double g_up[3] = {0, 1, 0};

/* The towel's pair (normals 0.95 opposite): vertex 0's second contact goes; vertex 2 has the
   same second face, its first contact with another body (3): it stays. */
static void test_closed_fold(void) {
  const double down[3] = {0.3122, -0.95, 0};
  const int crease = 0 + SIM_CONTACT_CREASE;
  sim_contact c[4] = {body(0, 0, g_up), body(0, crease, down), body(2, 3, g_up),
                      body(2, crease, down)};
  sim_detect_contacts o;
  list(&o, c, 4);
  CHECK_INT(sim_detect_drop_stray_creases(&o), 1);
  CHECK_INT(o.n, 3);
  CHECK_INT(o.c[0].v, 0);
  CHECK_INT(o.c[0].source, 0);
  CHECK_INT(o.c[1].v, 2);
  CHECK_INT(o.c[1].source, 3);
  CHECK_INT(o.c[2].v, 2);
  CHECK_INT(o.c[2].source, crease);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 3);
}

/* A fold open wider than the crease test's angle (normals 0.85 opposite), normals that agree,
   a second contact with no first, and one whose first contact is another body's: all stay. */
static void test_kept(void) {
  const double wide[3] = {0.5268, -0.85, 0}, tilted[3] = {0.3122, 0.95, 0};
  const int crease = 1 + SIM_CONTACT_CREASE;
  sim_contact c[7] = {body(0, 1, g_up),        body(0, crease, wide), body(3, 1, g_up),
                      body(3, crease, tilted), body(5, crease, g_up), body(6, 2, g_up),
                      body(6, crease, wide)};
  sim_detect_contacts o;
  list(&o, c, 7);
  CHECK_INT(sim_detect_drop_stray_creases(&o), 0);
  CHECK_INT(o.n, 7);
  CHECK_INT(o.count[SIM_CONTACT_BODY], 7);
}

/* A mesh obstacle's (a blade's) face and the same plane turned: dropped; the vertex's contact
   with an analytic obstacle stays and is counted. */
static void test_mesh(void) {
  const double down[3] = {0, -1, 0};
  sim_contact c[3] = {contact(0, SIM_CONTACT_OBSTACLE, 0, g_up),
                      contact(0, SIM_CONTACT_MESH, 0, g_up),
                      contact(0, SIM_CONTACT_MESH, SIM_CONTACT_CREASE, down)};
  sim_detect_contacts o;
  list(&o, c, 3);
  CHECK_INT(sim_detect_drop_stray_creases(&o), 1);
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

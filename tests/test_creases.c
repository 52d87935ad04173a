/* SPDX-License-Identifier: MIT */
/* A box's corner pressed into a tent of a cloth (scenes/box_on_trampoline.json, its first 110
   steps, where the box lands the second time): with contact.creases the corner's vertex has a
   second contact on the tent's far face (core/contact/detect_crease.h), which carries force,
   and no vertex starts a step more than 1 mm through the cloth (-0.67 mm, against -4.4 mm
   with creases off, where the corner went through the far face while its one row held it off
   the near one). With creases off there are none.
   And the shipped folding_towel with edge pairs (contact.edge_edge), its first TOWEL steps: no
   gap at a step's start below zero. A vertex beside a crumple's corner vertex, 6 mm behind the
   plane of a triangle on the crumple's far side whose nearest point was that corner, had been
   taken as through that triangle (detect_crease.h: behind the plane counts only over the
   face); its row met no position beside its first contact's, the rows went to 1.2e3 N from
   step 204 and the cloth through itself, -0.5 mm at step 206. */
#include "contact_run.h"

#define STEPS 110
#define TOWEL 212

/* STEPS steps: the smallest gap at a step's start, the most crease contacts in a step, and
   the largest normal force a crease contact's row carried. */
static void run_scene(const char *set, double *min_gap, int *most, double *force) {
  run r;
  *min_gap = NAN, *most = -1, *force = 0;
  const char *const ov[1] = {set};
  if (run_open_file(&r, "../scenes/box_on_trampoline.json", ov, set ? 1 : 0)) return;
  *most = 0;
  for (int step = 0; step < STEPS && r.ok; step++) {
    if (run_steps(&r, 1)) break;
    int k[SIM_WORLD_KINDS];
    sim_world_kind_counts(&r.c.s.world, k);
    if (k[SIM_WORLD_CREASE] > *most) *most = k[SIM_WORLD_CREASE];
    const int nc = run_lambda(&r);
    for (int j = 0; j < nc; j++) {
      const sim_contact *c = &r.c.s.world.out.c[j];
      if (c->kind == SIM_CONTACT_BODY && c->source >= SIM_CONTACT_CREASE)
        *force = fmax(*force, r.lam[3 * j]);
    }
  }
  *min_gap = r.min_gap;
  run_close(&r);
}

/* folding_towel with edge pairs: the smallest gap at a step's start over TOWEL steps (it stops
   at the first below zero). */
static void towel_edges(void) {
  const char *const ov[1] = {"contact.edge_edge=true"};
  run r;
  if (run_open_file(&r, "../scenes/folding_towel.json", ov, 1)) return;
  int step = 0;
  for (; step < TOWEL && r.ok && !(r.min_gap < 0.0); step++) run_steps(&r, 1);
  printf("folding_towel with edge pairs, %d steps: the smallest gap at a step's start %.4g mm\n",
         step, 1e3 * r.min_gap);
  CHECK(r.ok && step == TOWEL && r.min_gap > 0.0);
  run_close(&r);
}

int main(void) {
  towel_edges();
  double gap_on, gap_off, f_on, f_off;
  int most_on, most_off;
  run_scene(NULL, &gap_on, &most_on, &f_on);
  run_scene("contact.creases=false", &gap_off, &most_off, &f_off);
  printf(
      "box_on_trampoline, %d steps: creases on: min gap %.4g mm, at most %d crease contacts a"
      " step, largest crease normal force %.3g N; off: min gap %.4g mm, %d\n",
      STEPS, 1e3 * gap_on, most_on, f_on, 1e3 * gap_off, most_off);
  CHECK(gap_on >= -1e-3);
  CHECK(most_on > 0 && f_on > 0);
  CHECK(most_off == 0);
  CHECK(gap_off < gap_on); /* the scene still shows what the creases hold */
  return check_summary("test_creases");
}

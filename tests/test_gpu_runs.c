/* SPDX-License-Identifier: MIT */
/* Short runs on the CUDA and the CPU backend side by side (label gpu; SKIPPED without a CUDA
   device): the paper's twisting bar (ARAP, 5.3k vertices) and cloth extension (Neo-Hookean,
   10.2k), 20 frames each through the frame loop (stepper), both on the sparse inverse in
   double. Positions must agree to 1e-9 of the body's size at every frame; the largest
   difference is printed. (The contact scenes, squeezing_ball among them: test_gpu_contact.c.) */
#include "../core/base/alloc.h"
#include "../core/solve/stepper.h"
#include "gpu_pair.h"

#define FRAMES 20

static sim_scene g_sc; /* large: off the stack */

static void run_side_by_side(const char *file) {
  sim_status st = {0};
  int rc = sim_scene_load(file, NULL, 0, &g_sc, &st);
  if (rc) fprintf(stderr, "%s\n", st.msg);
  CHECK_INT(rc, SIM_OK);
  gpu_pair g;
  if (rc || gpu_pair_open(&g, &g_sc, SIM_PREC_DOUBLE)) return;
  sim_stepper sc = {0}, sg = {0};
  rc = sim_stepper_init(&sc, &g.m, g.cpu, &st);
  if (!rc) rc = sim_stepper_init(&sg, &g.m, g.gpu, &st);
  CHECK_INT(rc, SIM_OK);
  size_t n3 = 3 * (size_t)g.m.n;
  double *qc = SIM_NEW(double, n3), *qg = SIM_NEW(double, n3), size = model_extent(&g.m), worst = 0;
  double ms_cpu = 0, ms_gpu = 0;
  for (int f = 0; !rc && f < FRAMES; f++) {
    sim_profile pc, pg;
    rc = sim_stepper_step(&sc, &pc, NULL, &st);
    if (!rc) rc = sim_stepper_step(&sg, &pg, NULL, &st);
    if (!rc) rc = g.cpu->download(g.cpu, SIM_VEC_Q, qc, &st);
    if (!rc) rc = g.gpu->download(g.gpu, SIM_VEC_Q, qg, &st);
    CHECK_INT(rc, SIM_OK);
    double d = max_diff(qc, qg, n3);
    worst = fmax(worst, d / size);
    ms_cpu += pc.frame_ms;
    ms_gpu += pg.frame_ms;
  }
  printf(
      "  %s: %d vertices, %d frames, largest position difference %.2e of the size %.3g m; "
      "frame %.2f ms (cpu) / %.2f ms (cuda)\n",
      g_sc.name, g.m.n, FRAMES, worst, size, ms_cpu / FRAMES, ms_gpu / FRAMES);
  check_report(worst <= 1e-9, __FILE__, __LINE__, "%s: %.3g <= 1e-9 of the size", g_sc.name, worst);
  sim_free(qc);
  sim_free(qg);
  sim_stepper_free(&sc);
  sim_stepper_free(&sg);
  gpu_pair_close(&g);
}

int main(void) {
  gpu_or_skip("test_gpu_runs");
  run_side_by_side("../scenes/twisting_bar.json");
  run_side_by_side("../scenes/cloth_extension_10k.json");
  return check_summary("test_gpu_runs");
}

/* SPDX-License-Identifier: MIT */
/* Short runs on the CUDA and the CPU backend side by side (label gpu; SKIPPED without a CUDA
   device): the paper's twisting bar (ARAP, 5.3k vertices) and cloth extension (Neo-Hookean,
   10.2k), 20 frames each through the frame loop (stepper), both on the sparse inverse in
   double. Positions must agree to 1e-9 of the body's size at every frame; the largest
   difference is printed. Every frame's timed buckets (predict, local, global, integrate) are
   positive and add up to no more than the frame's wall time. Every fourth frame each backend
   takes an output snapshot (every other one of q alone), hands it over after the next frame,
   and it must hold, bit for bit, the q and energy densities the backend gave when it was taken.
   Built for the host emulation (test_emu_runs), it also holds each frame to one host wait for
   the device, which the emulation counts. (The contact scenes, squeezing_ball among them:
   test_gpu_contact.c.) */
#include "../core/base/alloc.h"
#include "../core/solve/stepper.h"
#include "gpu_pair.h"

#define FRAMES 20

#ifdef SIM_TEST_EMU /* built for the host emulation of CUDA (tests/emu), which counts waits */
long long sim_emu_host_waits(void);
#endif

static sim_scene g_sc; /* large: off the stack */

/* The frame's timed buckets: each positive, together within the frame's wall time. */
static void check_buckets(const char *name, const sim_profile *p) {
  double sum = p->predict_ms + p->local_ms + p->global_ms + p->integrate_ms;
  check_report(p->predict_ms > 0 && p->local_ms > 0 && p->global_ms > 0 && p->integrate_ms > 0 &&
                   sum <= p->frame_ms * 1.001 + 0.01,
               __FILE__, __LINE__,
               "%s buckets: predict %g, local %g, global %g, integrate %g ms (sum within the "
               "frame's %g ms)",
               name, p->predict_ms, p->local_ms, p->global_ms, p->integrate_ms, p->frame_ms);
}

/* The snapshot taken when the backend's q and energy densities were q_then, dens_then, handed
   over now: bit for bit what the backend gave then. */
static void check_snapshot(sim_backend *be, const sim_model *m, int q_only, const double *q_then,
                           const double *dens_then) {
  sim_status st = {0};
  sim_snapshot s;
  CHECK_INT(be->snapshot_get(be, &s, &st), SIM_OK);
  if (!s.q) return;
  check_report(memcmp(s.q, q_then, sizeof(double) * 3 * (size_t)m->n) == 0, __FILE__, __LINE__,
               "%s snapshot: q as it was when taken", be->name);
  check_report(q_only ? !s.v && !s.dens : s.v && s.dens, __FILE__, __LINE__,
               "%s snapshot: v and densities only in a whole snapshot", be->name);
  if (s.dens)
    check_report(memcmp(s.dens, dens_then, sizeof(double) * (size_t)m->nelem) == 0, __FILE__,
                 __LINE__, "%s snapshot: the energy densities as they were when taken", be->name);
}

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
  double *qc_then = SIM_NEW(double, n3), *qg_then = SIM_NEW(double, n3);
  double *dc_then = SIM_NEW(double, (size_t)g.m.nelem + 1);
  double *dg_then = SIM_NEW(double, (size_t)g.m.nelem + 1);
  double ms_cpu = 0, ms_gpu = 0;
  int taken = -1; /* the frame of the snapshots not yet handed over */
  for (int f = 0; !rc && f < FRAMES; f++) {
    sim_profile pc, pg;
    rc = sim_stepper_step(&sc, &pc, NULL, &st);
#ifdef SIM_TEST_EMU
    long long waits = sim_emu_host_waits();
#endif
    if (!rc) rc = sim_stepper_step(&sg, &pg, NULL, &st);
#ifdef SIM_TEST_EMU /* a frame without contact queues its kernels and waits once, at its end */
    waits = sim_emu_host_waits() - waits;
    check_report(waits == 1, __FILE__, __LINE__, "frame %d: %lld host waits for the device == 1", f,
                 waits);
#endif
    if (!rc && taken >= 0) { /* handed over a frame later, as simctl run does */
      int q_only = taken % 8 != 0;
      check_snapshot(g.cpu, &g.m, q_only, qc_then, dc_then);
      check_snapshot(g.gpu, &g.m, q_only, qg_then, dg_then);
      taken = -1;
    }
    if (!rc) rc = g.cpu->download(g.cpu, SIM_VEC_Q, qc, &st);
    if (!rc) rc = g.gpu->download(g.gpu, SIM_VEC_Q, qg, &st);
    if (!rc && f % 4 == 0) {
      memcpy(qc_then, qc, sizeof(double) * n3);
      memcpy(qg_then, qg, sizeof(double) * n3);
      g.cpu->energy(g.cpu, dc_then);
      g.gpu->energy(g.gpu, dg_then);
      rc = g.cpu->snapshot(g.cpu, f % 8 != 0, &st);
      if (!rc) rc = g.gpu->snapshot(g.gpu, f % 8 != 0, &st);
      taken = f;
    }
    CHECK_INT(rc, SIM_OK);
    if (rc) break;
    check_buckets(g.cpu->name, &pc);
    check_buckets(g.gpu->name, &pg);
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
  sim_free(qc_then);
  sim_free(qg_then);
  sim_free(dc_then);
  sim_free(dg_then);
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

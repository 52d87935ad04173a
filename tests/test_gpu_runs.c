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
   the device, which the emulation counts. Then the CUDA backend alone, with the elastic L-G
   iterations as a CUDA graph per step (the default) and launched one by one
   (SIMCTL_CUDA_GRAPH=off), on the sparse inverse, with Chebyshev and with Cholesky: the same
   positions bit for bit (on the emulation, one capture per run and a launch per frame after
   the first, which launches its kernels one by one). On the emulation, captures the driver
   refuses (at their start, at a call inside or at their end) leave the run launching one by
   one, with the same positions and one backend note. (The contact scenes, squeezing_ball among them:
   test_gpu_contact.c.) */
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/solve/stepper.h"
#include "gpu_pair.h"

#define FRAMES 20

/* gpu/pdl_cuda.cu: programmatic edges made so far; whether a kernel's name is gpu/'s */
long long sim_cuda_pdl_edges(void);
int sim_cuda_pdl_name_ours(const char *name);

#ifdef SIM_TEST_EMU /* built for the host emulation of CUDA (tests/emu), which counts waits */
long long sim_emu_host_waits(void);
void sim_emu_graph_counts(long long *captures, long long *launches);
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
  double *qc = SIM_NEW(double, n3), *qg = SIM_NEW(double, n3);
  double size = sim_model_extent(&g.m), worst = 0;
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

/* The CUDA backend alone, `frames` frames with the elastic L-G iterations as a graph per step
   (SIMCTL_CUDA_GRAPH=on, the default) and launched one by one (off): the same positions, bit for
   bit, and timed buckets either way; on the emulation, one capture and a launch per frame but
   the first (the kernels' first calls outside a capture). `refuse` (emulation only, else NULL):
   the graphs run's captures are refused (SIMCTL_EMU_NO_CAPTURE=1 at the start, =end at the
   end, =inside at the first call inside, after which the capture's host code went on), so it
   launches one by one from the second frame on, with one backend note saying so. With `pdl`,
   the second run is not launches but graphs with programmatic edges between their kernels
   (SIMCTL_CUDA_PDL=on, gpu/pdl_cuda.cu): the same bits, at least one such edge made on a device
   of compute capability 9.0 on (the emulation's, by default), and on the emulation every kernel
   behind one has made SIM_PDL_WAIT in each thread (or the program stops). */
static void graphs_vs(const char *file, const char *set, int frames, const char *refuse, int pdl) {
  double *q[2] = {NULL, NULL};
  size_t n3 = 0;
  for (int second = 0; second < 2; second++) {
    const int off = second && !pdl; /* launched one by one */
    setenv("SIMCTL_CUDA_GRAPH", off ? "off" : "on", 1);
    setenv("SIMCTL_CUDA_PDL", second && pdl ? "on" : "off", 1);
    const long long edges0 = sim_cuda_pdl_edges();
    if (refuse && !second) setenv("SIMCTL_EMU_NO_CAPTURE", refuse, 1);
    sim_status st = {0};
    const char *sets[1] = {set};
    int rc = sim_scene_load(file, sets, set ? 1 : 0, &g_sc, &st);
    sim_model m;
    memset(&m, 0, sizeof m);
    sim_backend *be = NULL;
    sim_stepper sg = {0};
    sim_backend_opts o = {.global = g_sc.solver.global,
                          .precision = SIM_PREC_DOUBLE,
                          .ordering = SIM_ORDER_METIS,
                          .chebyshev_rho = g_sc.solver.chebyshev_rho};
    if (!rc) rc = sim_model_build(&g_sc, NULL, &m, &st);
    if (!rc) rc = sim_backend_cuda_create(&m, &o, &be, &st);
    if (!rc) rc = sim_stepper_init(&sg, &m, be, &st);
#ifdef SIM_TEST_EMU
    long long cap0 = 0, run0 = 0, cap1 = 0, run1 = 0;
    sim_emu_graph_counts(&cap0, &run0);
#endif
    for (int f = 0; !rc && f < frames; f++) {
      sim_profile p;
      rc = sim_stepper_step(&sg, &p, NULL, &st);
      if (!rc) check_buckets(off ? "launches" : "graphs", &p);
    }
    unsetenv("SIMCTL_EMU_NO_CAPTURE");
#ifdef SIM_TEST_EMU
    int none = off || (refuse && !second); /* no graph captured or launched */
    sim_emu_graph_counts(&cap1, &run1);
    check_report(none ? cap1 == cap0 && run1 == run0 : cap1 - cap0 == 1 && run1 - run0 == frames - 1,
                 __FILE__, __LINE__, "%s: %lld graphs captured, %lld launched in %d frames",
                 off ? "launches" : "graphs", cap1 - cap0, run1 - run0, frames);
#endif
    if (be && !off && refuse)
      printf("  a refused capture (SIMCTL_EMU_NO_CAPTURE=%s): note %d: %s\n", refuse, be->notes,
             be->note);
    const long long edges = sim_cuda_pdl_edges() - edges0;
    const int old_device = be && be->notes == 1 && strstr(be->note, "SIMCTL_CUDA_PDL=on");
    if (be && second && pdl)
      check_report(old_device ? edges == 0 : edges > 0, __FILE__, __LINE__,
                   "graphs with PDL: %lld programmatic edges made (%s)", edges,
                   old_device ? be->note : "a device of compute capability 9.0 on");
    else
      check_report(edges == 0, __FILE__, __LINE__, "%s: %lld programmatic edges without PDL",
                   off ? "launches" : "graphs", edges);
    if (be)
      check_report(refuse && !second
                       ? be->notes == 1 && strstr(be->note, "one by one") &&
                             strstr(be->note, "L-G iterations") && !strchr(be->note, '\n')
                       : be->notes == old_device,
                   __FILE__, __LINE__, "%s: %d backend notes (%s)", off ? "launches" : "graphs",
                   be->notes, be->note);
    if (second && pdl) printf("  %s: %lld programmatic edges made\n", file, edges);
    n3 = 3 * (size_t)m.n;
    q[second] = SIM_NEW(double, n3 + 1);
    if (!rc) rc = be->download(be, SIM_VEC_Q, q[second], &st);
    if (rc)
      fprintf(stderr, "%s (SIMCTL_CUDA_GRAPH=%s, SIMCTL_CUDA_PDL=%s): %s\n", file,
              off ? "off" : "on", second && pdl ? "on" : "off", st.msg);
    CHECK_INT(rc, SIM_OK);
    sim_stepper_free(&sg);
    if (be) be->destroy(be);
    sim_model_free(&m);
  }
  unsetenv("SIMCTL_CUDA_GRAPH");
  unsetenv("SIMCTL_CUDA_PDL");
  int same = memcmp(q[0], q[1], sizeof(double) * n3) == 0;
  printf("  %s (%s), %d frames: %s and %s %s\n", g_sc.name, set ? set : "as given", frames,
         refuse ? "refused graphs" : "graphs", pdl ? "graphs with PDL" : "launches",
         same ? "bit-identical" : "DIFFER");
  check_report(same, __FILE__, __LINE__, "%s: positions bit-identical %s", g_sc.name,
               pdl ? "with and without programmatic edges" : "with and without graphs");
  sim_free(q[0]);
  sim_free(q[1]);
}

int main(void) {
  gpu_or_skip("test_gpu_runs");
  run_side_by_side("../scenes/twisting_bar.json");
  run_side_by_side("../scenes/cloth_extension_10k.json");
  graphs_vs("../scenes/twisting_bar.json", NULL, 6, NULL, 0);
  /* Chebyshev's weights, baked into the graph, follow the count from predict */
  graphs_vs("../scenes/twisting_bar.json", "solver.chebyshev_rho=0.9", 6, NULL, 0);
  graphs_vs("../scenes/twisting_bar.json", "solver.global=cholesky", 4, NULL, 0);
  /* programmatic edges: between the gathers' and the local step's kernels, and (Cholesky) none
     into cuSPARSE's triangular solves on a GPU, whose kernels have no SIM_PDL_WAIT */
  graphs_vs("../scenes/twisting_bar.json", NULL, 6, NULL, 1);
  graphs_vs("../scenes/twisting_bar.json", "solver.global=cholesky", 4, NULL, 1);
  /* S read without its indices (SIMCTL_CUDA_S_ROWS=interval, S_COLS=runs): the local step's
     right-hand side written beside its permutation, which the global step's rows read; against
     the CPU, and the graphs with programmatic edges against launches */
  setenv("SIMCTL_CUDA_S_ROWS", "interval", 1);
  setenv("SIMCTL_CUDA_S_COLS", "runs", 1);
  run_side_by_side("../scenes/twisting_bar.json");
  graphs_vs("../scenes/twisting_bar.json", NULL, 6, NULL, 1);
  unsetenv("SIMCTL_CUDA_S_ROWS");
  unsetenv("SIMCTL_CUDA_S_COLS");
#ifdef SIM_TEST_EMU
  graphs_vs("../scenes/twisting_bar.json", NULL, 4, "1", 0);
  graphs_vs("../scenes/twisting_bar.json", NULL, 4, "end", 0);
  graphs_vs("../scenes/twisting_bar.json", NULL, 4, "inside", 0);
#endif
  /* the names sim_cuda_graph_pdl takes for gpu/'s kernels: as cudaFuncGetName may give them */
  check_report(sim_cuda_pdl_name_ours("k_update") && sim_cuda_pdl_name_ours("_ZL8k_updateiPKi") &&
                   sim_cuda_pdl_name_ours("_Z8k_w_thenILi1ELi1EEvPKi") &&
                   !sim_cuda_pdl_name_ours("_ZN3cub11EmptyKernelIvEEvv") &&
                   !sim_cuda_pdl_name_ours("_Z12csrmm_kernelPKd") &&
                   sim_cuda_pdl_name_ours("void k_w_then<1, 1>(const int *)") &&
                   !sim_cuda_pdl_name_ours("void cub::EmptyKernel<void>()") &&
                   !sim_cuda_pdl_name_ours("kernel") && !sim_cuda_pdl_name_ours("_Zk_x"),
               __FILE__, __LINE__, "gpu/'s kernels told from a library's by their names");
  return check_summary("test_gpu_runs");
}

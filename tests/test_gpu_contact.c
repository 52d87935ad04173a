/* SPDX-License-Identifier: MIT */
/* The CUDA backend's contact stage against the CPU backend's (label gpu; SKIPPED without a CUDA
   device), both on the sparse inverse in double, on the scenes that cover each kind of row:
   friction on a plane (stick_slip, and on a floor its script pulls along), body against body
   (soft_box_on_slab), a box obstacle its script moves (pushing_wall), compliant constraint
   pins (hanging_bar_compliant_pin), a cable with pins (cable_finger), a cloth on open blades,
   their points against its triangles (cloth_on_knives), a cloth against itself
   (folding_towel), two ribbons crossed, held edge to edge (crossed_ribbons; and the upper
   thrown across the lower at 8 m/s, where re-detection renews stale edge pairs), a coarse ball's
   edges held out of a cylinder (ball_on_roller, contact.obstacle_edges), spinning rollers
   (squeezing_ball) and
   the matrix-free W at 7,542 rows (sharp_corner).
   1. Step by step: the GPU run is reset to the CPU's state (q, q_t, v) after every step, so each
      step starts from the same state; a step's largest position difference, relative to the
      scene's size, must be within 1e-9 before the first contact, and over the steps with
      contact its median within 1e-9 (sharp_corner 1e-4, 1e-7 on the emulation with cuSPARSE's
      products: its contacts at the force cap, see sharp_corner_steps) and its
      largest within 1e-3 (the non-smooth solve can
      take another branch from a 1e-16 difference: a line-search acceptance, a clamp); with the
      paper's formulation and with plain CR the largest within 1e-2, plain CR's median within
      1e-6 (those options amplify a rounding difference of W x most: see all_scenes).
   2. The squeezing ball free-running on both backends through the rollers (from 10 steps
      before its first contact, 154 steps, where the scene's step 200 is): the centre of mass within
      1e-2 of the size and the volume change within 0.2 percentage points of each other (the
      GPU kernels' summation order alone, emulated on the CPU, put the centres 1.1e-4 apart;
      device libm and the device solve's reductions add to that over the run).
   Both with the Newton solve on the host (SIMCTL_CUDA_NSN=host) and on the device (the default,
   gpu/nsn_cuda.cu), and step by step again with each of the solver's other options (the paper's
   formulation, plain CR, a CR tolerance, the mass preconditioner, the minimum map, no line search,
   W's block form in both formulations (contact.delassus blocks: G on the device), the paper's
   formulation with W matrix-free;
   on a GPU also CR's W in float, contact.cr_precision, which the emulation checks in
   test_gpu_contact_ops) on stick_slip and soft_box_on_slab. Collision detection and the Delassus
   operator run on the device in those passes (the backend's default); a last pass runs both on the
   host (SIMCTL_CUDA_DETECT=host, SIMCTL_CUDA_DELASSUS=host) on three scenes, after checking that
   the device Newton solve gives the same bits as CUDA graphs (SIMCTL_CUDA_GRAPH=on, its default
   with a dense W) and launched kernel by kernel (off) (on the emulation also after captures the
   driver refuses, which leave it launching one by one), and with its reductions fused into one
   launch each (SIMCTL_CUDA_FUSE=on) and apart (off), with W dense, in block form and matrix-free,
   in both formulations, with and without Jacobi, the line search and a CR tolerance (on a GPU also
   with CR's W in float, and gpu_report's `fastest` settings), and collision detection the same bits
   with its positions read from device twins and uploaded from the host (SIMCTL_CUDA_TWINS, on
   stick_slip and a coarse cloth_on_knives), and the positions the same bits with the global
   step's other layouts of S (SIMCTL_CUDA_S_ROWS=interval, S_COLS=runs, GATHER_BATCH=8) as with
   the defaults, W dense and matrix-free (layouts_vs_default). A fourth pass steps four scenes side
   by side with the other exact global solvers, cholesky and dense_inverse, with the Newton solve on
   the host and on the device, and with W on the host (pass_solvers). The squeezing ball has a pass
   of its own (ball), in which one CPU run serves both checks: step by step (1.) beside a shadowed
   CUDA backend per Newton solve for its first 104 steps, free-running (2.) beside a second per
   Newton solve for all 154. The argument picks a pass: scenes, ball, paths, solvers (what `all`,
   the default, runs: CTest's entries on a GPU, side by side, since the CPU's steps, the squeezing
   ball's 7.5k vertices above all, take most of the time there). In each, the CPU steps once beside
   a CUDA backend per Newton solve (with_both), so its steps are made once for both. host, device,
   ball_host and ball_device run one Newton solve alone (with_nsn): the emulation's CTest entries
   are host and device, where the emulated device, not the CPU, takes most of the time. Built as
   test_emu_contact (SIM_TEST_EMU) for the host emulation of CUDA (tests/emu), which is far slower
   than a GPU, it makes the same checks on shorter runs: the squeezing ball is meshed coarser, the
   other runs stop some steps after their first contact (sharp_corner 8 steps after, not 19), and
   sharp_corner runs only where a backend has the Newton solve on the device (the device pass, or
   scenes). */
#include <stdlib.h>

#include "../core/base/alloc.h"
#include "../core/solve/stepper.h"
#include "../gpu/detect_cuda.h"
#include "gpu_pair.h"

/* gpu/pdl_cuda.cu: the programmatic edges made so far in this process */
long long sim_cuda_pdl_edges(void);

#ifdef SIM_TEST_EMU /* built for the host emulation of CUDA (tests/emu), which counts copies */
void sim_emu_copy_bytes(long long *to_device, long long *to_host);
long long sim_emu_device_held(void);
long long sim_emu_host_waits(void);
void sim_emu_graph_counts(long long *captures, long long *launches);
void sim_emu_kernel_counts(long long *launched, long long *captured, long long *graph_run);
void sim_emu_ranges(long long *pushed, int *open);
#endif

#ifdef SIM_TEST_EMU
#define GPU_OR_EMU(gpu, emu) (emu)
#else
#define GPU_OR_EMU(gpu, emu) (gpu)
#endif
/* The falling ball starts 10 steps before its first contact (56), where free fall would have
   brought it, with its speed (the steps before are free fall, CPU time that checks nothing the
   other scenes do not); on the emulation it is meshed coarser (2.7k vertices, not 7.5k).
   sharp_corner keeps its start: started lower, its cloth lands where the non-smooth solve is
   sensitive (the CPU's sparse inverse and its Cholesky solve then differ by up to 1e-3 per
   step), which the full run's contact steps are not. */
#define BALL_START "bodies.0.transform.translate=[0,1.542,0]|bodies.0.velocity=[0,-4.6,0]"
#ifdef SIM_TEST_EMU
#define BALL BALL_START "|bodies.0.mesh.tetgen.max_volume=0.003"
#else
#define BALL BALL_START
#endif

static sim_scene g_sc; /* large: off the stack */
/* the global solver of both backends (the solvers pass sets the others) */
static sim_global_kind g_global = SIM_GLOBAL_SPARSE_INVERSE;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The Newton solves (SIMCTL_CUDA_NSN) of the CUDA backends a scene is stepped with beside one
   CPU backend: NULL, one backend as the environment says; else g_nsn_n of them, one per value,
   which share the CPU's reference steps (the costly part: see the header). */
#define SIM_MAX_NSN 2
#define SIM_MAX_GPUS (2 * SIM_MAX_NSN) /* a shadowed and a free-running backend per solve */
static const char *const *g_nsn;
static int g_nsn_n;

/* The CPU backend and its frame loop on one scene, and ng CUDA backends with theirs: the first
   nshadow take the CPU's state after each of their steps (step by step), the others run free. */
typedef struct side_by_side {
  gpu_pair g; /* the model, the CPU backend and gpu[0] */
  int ng, nshadow;
  sim_backend *gpu[SIM_MAX_GPUS];
  const char *nsn[SIM_MAX_GPUS]; /* each one's SIMCTL_CUDA_NSN (NULL: as the environment) */
  sim_stepper sc, sg[SIM_MAX_GPUS];
  double *qc, *qg[SIM_MAX_GPUS], *buf, size;
  int ok;
} side_by_side;

/* Sets SIMCTL_CUDA_NSN to v (NULL: leaves it); returns its value before, in keep. */
static const char *nsn_set(const char *v, char *keep, size_t cap) {
  const char *was = getenv("SIMCTL_CUDA_NSN");
  if (was) snprintf(keep, cap, "%s", was);
  if (v) setenv("SIMCTL_CUDA_NSN", v, 1);
  return was ? keep : NULL;
}
static void nsn_restore(const char *was) {
  if (was)
    setenv("SIMCTL_CUDA_NSN", was, 1);
  else
    unsetenv("SIMCTL_CUDA_NSN");
}

/* In buf: " (Newton solve: host)" where several Newton solves run, ", free-running" added for
   the backends that run free, else "". */
static const char *gpu_label(const side_by_side *r, int i, char *buf, size_t cap) {
  int free = i >= r->nshadow;
  if (r->nshadow > 1 && r->nsn[i])
    snprintf(buf, cap, " (Newton solve: %s%s)", r->nsn[i], free ? ", free-running" : "");
  else
    snprintf(buf, cap, "%s", free ? " (free-running)" : "");
  return buf;
}

/* `set`: --set overrides (PATH=VALUE) separated by '|', or NULL. The CUDA backends: one per
   Newton solve (g_nsn), shadowed; with `twins` a second per Newton solve, free-running. */
static int open_scene(side_by_side *r, const char *file, const char *set, int twins) {
  sim_status st = {0};
  memset(r, 0, sizeof *r);
  char buf[512], keep[64], scratch[64];
  const char *sets[8];
  int nsets = 0;
  snprintf(buf, sizeof buf, "%s", set ? set : "");
  for (char *p = strtok(buf, "|"); p && nsets < 8; p = strtok(NULL, "|")) sets[nsets++] = p;
  int rc = sim_scene_load(file, sets, nsets, &g_sc, &st);
  if (rc) fprintf(stderr, "%s\n", st.msg);
  CHECK_INT(rc, SIM_OK);
  sim_backend_opts o = {
      .global = g_global, .precision = SIM_PREC_DOUBLE, .ordering = SIM_ORDER_METIS};
  r->nshadow = g_nsn ? g_nsn_n : 1;
  r->ng = twins ? 2 * r->nshadow : r->nshadow;
  for (int i = 0; i < r->ng; i++) r->nsn[i] = g_nsn ? g_nsn[i % r->nshadow] : NULL;
  const char *was = nsn_set(r->nsn[0], keep, sizeof keep); /* read as the backend is made */
  if (!rc) rc = gpu_pair_open_with(&r->g, &g_sc, &o);
  r->gpu[0] = r->g.gpu;
  for (int i = 1; !rc && i < r->ng; i++) {
    nsn_set(r->nsn[i], scratch, sizeof scratch);
    rc = sim_backend_cuda_create(&r->g.m, &o, &r->gpu[i], &st);
    if (rc) fprintf(stderr, "%s: %s\n", file, st.msg);
    CHECK_INT(rc, SIM_OK);
  }
  nsn_restore(was);
  if (rc) return -1;
  rc = sim_stepper_init(&r->sc, &r->g.m, r->g.cpu, &st);
  for (int i = 0; !rc && i < r->ng; i++) rc = sim_stepper_init(&r->sg[i], &r->g.m, r->gpu[i], &st);
  if (rc) fprintf(stderr, "%s: %s\n", file, st.msg);
  CHECK_INT(rc, SIM_OK);
  size_t n3 = 3 * (size_t)r->g.m.n;
  r->qc = SIM_NEW(double, n3);
  for (int i = 0; i < r->ng; i++) r->qg[i] = SIM_NEW(double, n3);
  r->buf = SIM_NEW(double, n3);
  r->size = sim_model_extent(&r->g.m);
  r->ok = rc == SIM_OK;
  return rc;
}

static void close_scene(side_by_side *r) {
  sim_free(r->qc), sim_free(r->buf);
  sim_stepper_free(&r->sc);
  for (int i = 0; i < SIM_MAX_GPUS; i++) {
    sim_free(r->qg[i]);
    sim_stepper_free(&r->sg[i]);
    if (i > 0 && r->gpu[i]) r->gpu[i]->destroy(r->gpu[i]);
  }
  gpu_pair_close(&r->g);
}

/* CUDA backends lo..hi-1's positions into qg[], the CPU's into qc. */
static int positions(side_by_side *r, int lo, int hi, sim_status *st) {
  int rc = r->g.cpu->download(r->g.cpu, SIM_VEC_Q, r->qc, st);
  for (int i = lo; !rc && i < hi; i++) rc = r->gpu[i]->download(r->gpu[i], SIM_VEC_Q, r->qg[i], st);
  return rc;
}

/* One step on the CPU and on CUDA backends lo..ng-1; the shadowed ones' largest position
   difference from the CPU, over the size, in d[] (the free-running ones' positions are read at
   the run's end); the contacts of the CPU step. */
static void step_both(side_by_side *r, int lo, int *contacts, double d[SIM_MAX_GPUS]) {
  sim_status st = {0};
  sim_profile pc, pg;
  int rc = sim_stepper_step(&r->sc, &pc, NULL, &st);
  for (int i = lo; !rc && i < r->ng; i++) rc = sim_stepper_step(&r->sg[i], &pg, NULL, &st);
  if (!rc) rc = positions(r, lo, r->nshadow, &st);
  if (rc) fprintf(stderr, "step: %s\n", st.msg);
  CHECK_INT(rc, SIM_OK);
  *contacts = pc.contacts;
  for (int i = lo; i < r->nshadow; i++)
    d[i] = rc ? INFINITY : max_diff(r->qc, r->qg[i], 3 * (size_t)r->g.m.n) / r->size;
}

/* The shadowed CUDA backends take the CPU's state (q, q_t, v). */
static void shadow(side_by_side *r) {
  sim_status st = {0};
  const sim_vec_id ids[3] = {SIM_VEC_Q, SIM_VEC_QT, SIM_VEC_V};
  for (int i = 0; i < 3; i++) {
    CHECK_INT(r->g.cpu->download(r->g.cpu, ids[i], r->buf, &st), SIM_OK);
    for (int j = 0; j < r->nshadow; j++)
      CHECK_INT(r->gpu[j]->upload(r->gpu[j], ids[i], r->buf, &st), SIM_OK);
  }
}

/* Mass-weighted centre of all vertices. */
static void centre(const sim_model *m, const double *q, double c[3]) {
  double mt = 0.0;
  c[0] = c[1] = c[2] = 0.0;
  for (int i = 0; i < m->n; i++) {
    for (int k = 0; k < 3; k++) c[k] += m->mass[i] * q[3 * i + k];
    mt += m->mass[i];
  }
  for (int k = 0; k < 3; k++) c[k] /= mt;
}

/* The end of a free run: CUDA backend i's centre of mass within 1e-2 of the size of the CPU's
   (cc), their volume changes (the CPU's: vc, in %) within 0.2 percentage points. */
static void free_check(const side_by_side *r, int i, int steps, int contact_steps,
                       const double cc[3], double vc) {
  char lb[64];
  double cg[3];
  centre(&r->g.m, r->qg[i], cg);
  double dcom = sqrt((cc[0] - cg[0]) * (cc[0] - cg[0]) + (cc[1] - cg[1]) * (cc[1] - cg[1]) +
                     (cc[2] - cg[2]) * (cc[2] - cg[2])) /
                r->size;
  double vg = 100.0 * (sim_model_measure(&r->g.m, r->qg[i]) / r->g.m.total_volume - 1.0);
  printf(
      "  %-26s %d steps (%d with contact)%s: centres %.2e of the size apart; volume %+.3f "
      "%% (cpu) / %+.3f %% (cuda)\n",
      g_sc.name, steps, contact_steps, gpu_label(r, i, lb, sizeof lb), dcom, vc, vg);
  check_report(contact_steps > 0 && dcom <= 1e-2 && fabs(vc - vg) <= 0.2, __FILE__, __LINE__,
               "%s%s: contact steps %d > 0, centres %.3g <= 1e-2, volumes %.3f vs %.3f within "
               "0.2",
               g_sc.name, lb, contact_steps, dcom, vc, vg);
}

/* `file` stepped `steps` times on the CPU beside CUDA backends (open_scene). The shadowed ones
   step beside it for the first `checked` steps, each then taking the CPU's state: over the steps
   with contact, the median and largest of a step's position difference must stay within
   med_tol and worst_tol of the size (before contact: 1e-9). With `twins`, a free-running
   backend per Newton solve makes all the steps beside the same CPU run (free_check). */
static void side_run(const char *file, const char *set, int twins, int steps, int checked,
                     double med_tol, double worst_tol) {
  side_by_side r;
  if (open_scene(&r, file, set, twins) || !r.ok) {
    close_scene(&r);
    return;
  }
  double *dc[SIM_MAX_GPUS], free_worst[SIM_MAX_GPUS] = {0.0};
  int nd = 0, first = -1, most = 0, contact_steps = 0;
  for (int i = 0; i < r.nshadow; i++) dc[i] = SIM_NEW(double, checked + 1);
  for (int s = 0; s < steps; s++) {
    int nc = 0, shadowed = s < checked;
    double d[SIM_MAX_GPUS];
    step_both(&r, shadowed ? 0 : r.nshadow, &nc, d);
    contact_steps += nc > 0;
    if (!shadowed) continue;
    if (nc > 0) {
      if (first < 0) first = s;
      for (int i = 0; i < r.nshadow; i++) dc[i][nd] = d[i];
      nd++;
      most = nc > most ? nc : most;
    } else if (first < 0) {
      for (int i = 0; i < r.nshadow; i++) free_worst[i] = fmax(free_worst[i], d[i]);
    }
    shadow(&r);
  }
  check_report(nd > 0, __FILE__, __LINE__, "%s: some step has contact", g_sc.name);
  for (int i = 0; i < r.nshadow; i++) {
    char lb[64];
    qsort(dc[i], (size_t)nd, sizeof *dc[i], cmp_double);
    double med = nd ? dc[i][nd / 2] : 0.0, worst = nd ? dc[i][nd - 1] : 0.0;
    printf(
        "  %-26s %5d vertices%s%s%s: before contact %.2e; %d steps with contact (first %d, up "
        "to %d contacts): median %.2e, largest %.2e of the size\n",
        g_sc.name, r.g.m.n, gpu_label(&r, i, lb, sizeof lb), set ? ", " : "", set ? set : "",
        free_worst[i], nd, first, most, med, worst);
    check_report(free_worst[i] <= 1e-9 && med <= med_tol && worst <= worst_tol, __FILE__, __LINE__,
                 "%s%s: %.3g <= 1e-9, median %.3g <= %g, largest %.3g <= %g", g_sc.name, lb,
                 free_worst[i], med, med_tol, worst, worst_tol);
    sim_free(dc[i]);
  }
  if (r.ng > r.nshadow) { /* the free-running backends against the CPU's end */
    sim_status st = {0};
    CHECK_INT(positions(&r, r.nshadow, r.ng, &st), SIM_OK);
    double cc[3];
    centre(&r.g.m, r.qc, cc);
    double vc = 100.0 * (sim_model_measure(&r.g.m, r.qc) / r.g.m.total_volume - 1.0);
    for (int i = r.nshadow; i < r.ng; i++) free_check(&r, i, steps, contact_steps, cc, vc);
  }
  close_scene(&r);
}

/* One scene step by step (every backend shadowed). */
static void step_within(const char *file, const char *set, int steps, double med_tol,
                        double worst_tol) {
  side_run(file, set, 0, steps, steps, med_tol, worst_tol);
}

static void step_by_step(const char *file, const char *set, int steps) {
  step_within(file, set, steps, 1e-9, 1e-3);
}

/* sharp_corner's cloth (2,514 contacts, W matrix-free) has contacts at their 1e4 N cap, where a
   step amplifies a tiny difference of its start (scripts/sensitivity.sh, on the CPU alone): its
   state (q, q_t, v) perturbed by 1e-14 relative before each step gives a median step difference
   of 1.5e-5 of the size (largest 9.6e-5); by one ulp, 3.7e-8 (largest 2.6e-6); its Cholesky
   solve against its sparse inverse, 3.9e-7 (largest 1.0e-4). On an H200 (2026-11-28) the
   median was 2.03e-5 (largest 9.83e-5, before contact 1.05e-14), the same with the Newton solve
   on the host or the device and with detection and W on the host. The emulation with simctl's
   gathers (SIMCTL_CUDA_SPMV=kernel, the CUDA default) gives those three figures to the digit:
   the gathers add each row of S in another order than the CPU, and the products with W, two
   passes over S per CR iteration, carry that difference into the contact solve. With the
   emulated cuSPARSE, which adds like the CPU (how CTest runs the emulation, for speed), the
   median is 2.6e-8 (largest 9.3e-5), hence its tighter bound. The likely branch: a contact at
   the cap is decoupled (Omega 0) and one just below it coupled with an Omega near the
   threshold, and CR (10 iterations, not converged) goes on from another system. Since the
   contact solve's end pass (contact.end_tolerance, 2026-12-06; 12 Newton steps more over these
   8 steps), the CPU alone moves a step by a median of 8.9e-8 of the size from a start one ulp
   off, 9.4e-6 from 1e-14 and 1.4e-5 against its Cholesky solve (2.6e-9, 7.0e-9 and 9.4e-9
   without the pass; scripts/sensitivity.sh --steps 84), and the emulation with cuSPARSE gave
   7.8e-6 with the pass at 1e-5: the tighter bound holds for a run without the pass. */
static void sharp_corner_steps(void) {
  double med_tol = 1e-4;
  const char *set = NULL;
#ifdef SIM_TEST_EMU
  const char *spmv = getenv("SIMCTL_CUDA_SPMV");
  if (spmv && !strcmp(spmv, "cusparse")) med_tol = 1e-7, set = "contact.end_tolerance=0";
#endif
  /* the emulation stops 8 steps after the first contact (step 76): its 19 steps with contact
     took 200 s of the device pass's 320 on a 2-core VM (2026-12-02) */
  step_within("../scenes/sharp_corner.json", set, GPU_OR_EMU(95, 84), med_tol, 1e-3);
}

static void all_scenes(void) {
  step_by_step("../scenes/stick_slip.json", NULL, GPU_OR_EMU(40, 15));
  /* the box on a floor its script pulls along (u set on the host: those contacts go up whole,
     the others are gathered from the detector's copies) */
  step_by_step("../scenes/stick_slip.json",
               "obstacles.0.mu=0.8|obstacles.0.script=[{\"type\": \"pulling\", "
               "\"direction\": [-1, 0, 0.5], \"speed\": 0.2, \"length\": 1}]",
               GPU_OR_EMU(30, 10));
  step_by_step("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 8));
  /* a wall (a box obstacle) its script moves pushes two boxes from step 16 (after a pause of
     one step), on the floor (a box obstacle too) from the start */
  step_by_step("../scenes/pushing_wall.json", "obstacles.1.script.0.duration=0.01",
               GPU_OR_EMU(60, 22));
  step_by_step("../scenes/hanging_bar_compliant_pin.json", NULL, GPU_OR_EMU(30, 10));
  step_by_step("../scenes/cable_finger.json", NULL, GPU_OR_EMU(40, 10));
  /* the cloth lands flat on the cube at step 76 (2,514 contacts, W matrix-free); the emulation
     runs it in the device solve's pass alone (the host and the device solve share the device's
     W products) */
#ifdef SIM_TEST_EMU
  if (g_nsn || (getenv("SIMCTL_CUDA_NSN") && !strcmp(getenv("SIMCTL_CUDA_NSN"), "device")))
#endif
    sharp_corner_steps();
  /* a Neo-Hookean cloth with bending on an open blade mesh (the blades' points against its
     triangles too), started just above the blades */
  step_by_step("../scenes/cloth_on_knives.json", "bodies.0.transform.translate=[0,1.34,0.1]",
               GPU_OR_EMU(60, 14));
  /* a towel folded onto itself (a cloth's self-collision, its own triangles skipped near a
     vertex at rest): 11 x 5 vertices, turned in 0.5 s; the layers meet from step 52 */
  step_by_step(
      "../scenes/folding_towel.json",
      "bodies.0.mesh.vertices=[11,5]|bodies.0.mesh.size=[0.5,0.2]|"
      "pins.0.box=[0.24,-0.1,-0.2,0.26,0.1,0.2]|pins.1.box=[-0.26,-0.1,-0.2,-0.24,0.1,0.2]|"
      "pins.0.script.0.speed=360",
      GPU_OR_EMU(80, 60));
  /* two ribbons crossed, whose vertices lie beside each other's: edge-edge contacts alone hold
     the upper one from step 10 (self-collision on too: the ribbons' own pairs of edges). The
     CPU alone moves its steps by a median 2.8e-9 of the size from a start one ulp off, 7.8e-9
     from 1e-14 (largest 4.6e-5; scripts/sensitivity.sh --scene scenes/crossed_ribbons.json
     --steps 25 --set contact.self_collision=true): the emulation's median was 3.6e-9 (host
     solve) and 2.5e-9 (device solve; 6.3e-9 and 4.9e-9 before the pairs' sweep), hence the
     median's bound 1e-7 */
  step_within("../scenes/crossed_ribbons.json", "contact.self_collision=true", GPU_OR_EMU(40, 25),
              1e-7, 1e-3);
  /* the upper ribbon thrown across the lower's end at 8 m/s (scripts/thrown_ribbons.sh's start
     3.1 m): it lands across the lower at step 36, where re-detection renews edge pairs whose
     rows went stale (detect.h renew), and slides on over the lower's pinned end. Its landing
     is sensitive: the CPU alone moves its 7 steps with contact by a median 1.2e-10 of the size,
     largest 3.7e-5, from a start one ulp off (scripts/sensitivity.sh --scene
     scenes/crossed_ribbons.json --steps 44 with these settings), hence the median's bound 1e-6 */
  step_within("../scenes/crossed_ribbons.json",
              "contact.margin=0.005|bodies.1.transform.translate=[3.1,0.6,0]|"
              "bodies.1.velocity=[-8,0,0]",
              44, 1e-6, 1e-3);
  /* a coarse ball dropped on a cylinder with its edges' rows against it
     (contact.obstacle_edges, two per edge that dips in: core/contact/detect_obstacle_edge.h),
     first contact at step 13. The edges' rows make its steps sensitive with the lagged
     friction Jacobian (the default): over 30 and 40 steps (17 and 27 with contact) the CPU
     alone moves a step by a median 2.6e-5 and 3.4e-5 of the size from a start one ulp off,
     1.8e-5 and 4.5e-5 from 1e-14, and its Cholesky solve's by 4.1e-6 and 3.6e-5 from its sparse
     inverse's, the largest 2.3-5.3e-4 (scripts/sensitivity.sh --scene
     tests/data/scenes/ball_on_roller.json --steps N --set contact.obstacle_edges=true; the
     medians of so few steps move from build to build: 5.1e-8 to 2.7e-6 over 30 before the
     deepest point's search changed, 2026-12-07; without the option all within 1.2e-14). The
     emulation's median was 1.7e-6 (host solve) and 1.2e-5 (device solve), largest 2.5e-4:
     hence the median's bound 1e-4. With the exact Jacobian the same steps are far less
     sensitive (the CPU's medians within 1.9e-12 over 30 steps and 1.5e-10 over 40, largest
     5.4e-9, since the exact system's scaling was bounded, 2026-12-07; the emulation's 3.9e-14
     and 1.8e-13, largest 3.9e-10), so that run checks the edges' rows on the device to the
     default bound and a largest step of 1e-6. */
  step_within("data/scenes/ball_on_roller.json", "contact.obstacle_edges=true", GPU_OR_EMU(40, 30),
              1e-4, 1e-3);
  step_within("data/scenes/ball_on_roller.json",
              "contact.obstacle_edges=true|contact.newton_jacobian=exact", GPU_OR_EMU(40, 30), 1e-9,
              1e-6);
  /* the solver's other branches, on the box sliding down its slope and the soft box */
  /* bounds per option: the paper's form and plain CR (10 iterations, far from converged)
     amplify a rounding difference of W x more; with the GPU kernels' summation order emulated
     on the CPU, soft_box_on_slab reached a largest 1.0e-3 (paper) and a median 6.5e-8 (plain
     CR), the other options at most 7.8e-7 */
  static const struct {
    const char *set;
    double med, worst;
  } opts[] = {{"contact.formulation=paper", 1e-9, 1e-2},
              {"contact.cr_preconditioner=none", 1e-6, 1e-2},
              {"contact.cr_tolerance=1e-6", 1e-9, 1e-3},
              {"contact.preconditioner=mass", 1e-9, 1e-3},
              {"contact.ncp=min_map", 1e-9, 1e-3},
              {"contact.line_search=0", 1e-9, 1e-3},
              /* the friction rows' exact Jacobian (GMRES on the device, whose sums are not
                 the host's: its operations' pass differs from the CPU's by 1.2e-6 on an H200,
                 test_gpu_contact_ops exact); on the emulation median 6.7e-14 (stick_slip) and
                 9.7e-16 (soft_box_on_slab), largest 7.1e-12, where the CPU alone moves a step by
                 a median 5.7e-14 and 4.7e-16 from a start one ulp off (scripts/sensitivity.sh
                 --steps 40 --set contact.newton_jacobian=exact; 8.9e-14 and 5.6e-16 lagged).
                 Before a friction row's entry in its normal column was bounded (nsn_exact.h
                 sim_nsn_exact_prepare, 2026-12-07) stick_slip's median on the emulation was
                 3.9e-9, and the bound 1e-5; not yet run on a GPU
                 (docs/gpu_checklist.md) */
              {"contact.newton_jacobian=exact", 1e-9, 1e-3},
              /* W's block form at every size (auto: above SIM_CUDA_BLOCK_ROWS), both forms */
              {"contact.delassus=blocks", 1e-9, 1e-3},
              {"contact.delassus=blocks|contact.formulation=paper", 1e-9, 1e-2},
              /* the paper's form with W matrix-free: W Omega lambda through the contacts'
                 columns of S, Omega lambda formed as H^T's gather reads it (gpu/nsn_cuda.cu
                 iterate), which no test ran until 2026-12-07 (scripts/emu_coverage.sh); on
                 the emulation stick_slip's median 3.7e-11 to 7.3e-11 and largest 6.0e-7 to
                 6.2e-7 with either solve and either product of S (W dense, the device solve:
                 9.3e-12 and 5.1e-9), the soft box's within 2.1e-12 */
              {"contact.delassus=operator|contact.formulation=paper", 1e-9, 1e-2}};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
    step_within("../scenes/stick_slip.json", opts[i].set, GPU_OR_EMU(40, 10), opts[i].med,
                opts[i].worst);
    step_within("../scenes/soft_box_on_slab.json", opts[i].set, GPU_OR_EMU(60, 6), opts[i].med,
                opts[i].worst);
  }
#ifndef SIM_TEST_EMU /* CR's W in float on both sides; the emulation's is test_gpu_contact_ops */
  step_within("../scenes/stick_slip.json", "contact.cr_precision=float", 40, 1e-9, 1e-3);
  step_within("../scenes/soft_box_on_slab.json", "contact.cr_precision=float", 60, 1e-9, 1e-3);
#endif
}

/* The passes, each also a CTest entry of its own so that they run side by side: the
   CPU reference steps are most of the time (see the header). */
static void with_nsn(const char *where, void (*scenes)(void)) {
  printf("the Newton solve on the %s (SIMCTL_CUDA_NSN=%s%s):\n", where, where,
         strcmp(where, "device") ? "" : ", the default");
  setenv("SIMCTL_CUDA_NSN", where, 1);
  scenes();
  unsetenv("SIMCTL_CUDA_NSN");
}

/* Both Newton solves at once: two CUDA backends beside one CPU backend, which steps once for
   both (half the CPU's steps of with_nsn's two passes). */
static const char *const g_both[2] = {"host", "device"};
static void with_both(void (*scenes)(void)) {
  printf(
      "the Newton solve on the host and on the device (SIMCTL_CUDA_NSN=host and device: CUDA "
      "backends beside one CPU backend, which steps once for both):\n");
  g_nsn = g_both, g_nsn_n = 2;
  scenes();
  g_nsn = NULL, g_nsn_n = 0;
}

/* The squeezing ball through the rollers, step by step and free-running, in a pass of its own:
   its CPU steps (7.5k vertices, over 4k contact rows with W matrix-free: 2.2 s a step with the
   sparse inverse on the 2-core VM) take longer than all the other scenes'. One CPU run serves
   both checks: its first 104 steps (the emulation's 25) step by step beside the shadowed
   backends, all 154 (40) beside the free-running ones. Until 2026-11-29 two passes, each with a
   CPU run of its own. */
static void ball(void) {
  side_run("../scenes/squeezing_ball.json", BALL, 1, GPU_OR_EMU(154, 40), GPU_OR_EMU(104, 25), 1e-9,
           1e-3);
}

static void pass_host(void) { with_nsn("host", all_scenes); }
static void pass_device(void) { with_nsn("device", all_scenes); }
static void pass_ball_host(void) { with_nsn("host", ball); }
static void pass_ball_device(void) { with_nsn("device", ball); }
static void pass_scenes(void) { with_both(all_scenes); }
static void pass_ball(void) { with_both(ball); }

/* The CUDA backend alone: `steps` steps of `file` with environment switch `env` set to `value`,
   then its positions (o->q, 3n doubles, the caller's to free), the steps with contact, the
   detector's twin counts and, on the emulation, the bytes copied to the device. */
typedef struct gpu_alone {
  double *q;
  size_t n3;
  int contact_steps;
  long long hits, misses, to_device, to_host;
  long long waits;        /* the host's waits over the steps (emulation: counted; else 0) */
  long long last_waits;   /* those of the last step */
  int last_added;         /* the contacts its re-detection added */
  int last_end;           /* its contact solve's end pass: -1 none, else the Newton steps */
  long long captures;     /* graphs captured over the steps (emulation: counted; else 0) */
  long long kernels;      /* kernels run over them: launched, and by graph launches (likewise) */
  int nc_changes;         /* steps with contact whose count differs from the step before's */
  int redetect;           /* the scene's contact.redetect */
  int host_reads;         /* positions the host reads (sim_world_host_reads: pins, cables) */
  int collide;            /* the scene has something to collide with (detection passes run) */
  long long newton, cr;   /* the steps' Newton steps and CR iterations (timing.csv's) */
  long long ls[3];        /* their line searches' outcomes: full step, shorter, none */
  double bucket[4];       /* their global, assemble, cst_solve and corr milliseconds */
  int notes;              /* the backend's notes (be->notes) */
  char note[SIM_MSG_MAX]; /* its last */
} gpu_alone;

static void run_gpu_alone(const char *file, const char *set, int steps, const char *env,
                          const char *value, gpu_alone *o) {
  memset(o, 0, sizeof *o);
  setenv(env, value, 1);
  const char *const *nsn = g_nsn; /* the CUDA backend alone, as the environment says */
  g_nsn = NULL;
  side_by_side r;
  if (open_scene(&r, file, set, 0) || !r.ok) {
    close_scene(&r);
    unsetenv(env);
    g_nsn = nsn;
    return;
  }
  long long d0 = 0, d1 = 0, h0 = 0, h1 = 0, w0 = 0, w1 = 0;
#ifdef SIM_TEST_EMU
  sim_emu_copy_bytes(&d0, &h0);
  w0 = sim_emu_host_waits();
#endif
  sim_status st = {0};
  int rc = SIM_OK;
  o->redetect = r.g.m.scene->contact.redetect;
  const int *reads;
  o->host_reads = sim_world_host_reads(&r.sg[0].world, &reads, NULL);
  o->collide = r.sg[0].world.collide;
  long long cap0 = 0, cap1 = 0, runs = 0, kl0 = 0, kc0 = 0, kg0 = 0, kl1 = 0, kc1 = 0, kg1 = 0;
  long long ranges0 = 0;
  int open0 = 0;
#ifdef SIM_TEST_EMU
  sim_emu_graph_counts(&cap0, &runs);
  sim_emu_kernel_counts(&kl0, &kc0, &kg0);
  sim_emu_ranges(&ranges0, &open0);
#endif
  int prev_nc = -1;
  for (int s = 0; s < steps && !rc; s++) {
    sim_profile p;
#ifdef SIM_TEST_EMU
    o->last_waits = sim_emu_host_waits();
#endif
    rc = sim_stepper_step(&r.sg[0], &p, NULL, &st);
#ifdef SIM_TEST_EMU
    o->last_waits = sim_emu_host_waits() - o->last_waits;
#endif
    o->last_added = p.redetected;
    o->last_end = p.contacts > 0 && r.g.m.scene->contact.end_tolerance > 0.0 ? p.end_steps : -1;
    if (p.contacts > 0 && prev_nc >= 0 && p.contacts != prev_nc) o->nc_changes++;
    if (p.contacts > 0) prev_nc = p.contacts;
    o->contact_steps += p.contacts > 0;
    o->newton += p.newton_steps;
    o->cr += p.cr_iterations;
    o->ls[0] += p.ls.full, o->ls[1] += p.ls.shorter, o->ls[2] += p.ls.none;
    const double b[4] = {p.contacts > 0 ? p.global_ms : 0.0, p.assemble_ms, p.cst_solve_ms,
                         p.corr_ms};
    for (int i = 0; i < 4; i++) o->bucket[i] += b[i];
  }
#ifdef SIM_TEST_EMU
  sim_emu_copy_bytes(&d1, &h1);
  w1 = sim_emu_host_waits();
  sim_emu_graph_counts(&cap1, &runs);
  sim_emu_kernel_counts(&kl1, &kc1, &kg1);
#endif
  o->captures = cap1 - cap0;
  o->kernels = (kl1 - kl0) + (kg1 - kg0);
  (void)kc0, (void)kc1, (void)ranges0, (void)open0;
  (void)runs;
  o->waits = w1 - w0;
  o->to_device = d1 - d0;
  o->to_host = h1 - h0;
  sim_cuda_detect_twin_counts(r.g.gpu->detect.ctx, &o->hits, &o->misses);
  o->notes = r.g.gpu->notes;
  snprintf(o->note, sizeof o->note, "%s", r.g.gpu->note);
#ifdef SIM_TEST_EMU
  /* the backend counts every byte it holds on the device (summary.json's device_MiB) */
  sim_global_stats gs;
  r.g.gpu->global_stats(r.g.gpu, &gs);
  check_report((long long)gs.device_bytes == sim_emu_device_held(), __FILE__, __LINE__,
               "%s: the backend counts %zu bytes on the device, the emulation holds %lld", file,
               gs.device_bytes, sim_emu_device_held());
  /* the host's named ranges (gpu/range_cuda.h, for Nsight Systems) were marked and all closed:
     at least detection's and the settle's, each step */
  long long ranges = 0;
  int open = 0;
  sim_emu_ranges(&ranges, &open);
  check_report(open0 == 0 && open == 0 && ranges - ranges0 >= 2LL * steps, __FILE__, __LINE__,
               "%s: NVTX ranges over the steps %lld >= %d, left open %d and %d == 0", file,
               ranges - ranges0, 2 * steps, open0, open);
#endif
  o->n3 = 3 * (size_t)r.g.m.n;
  o->q = SIM_NEW(double, o->n3);
  if (!rc) rc = r.g.gpu->download(r.g.gpu, SIM_VEC_Q, o->q, &st);
  if (rc) fprintf(stderr, "%s (%s=%s): %s\n", file, env, value, st.msg);
  CHECK_INT(rc, SIM_OK);
  close_scene(&r);
  unsetenv(env);
  g_nsn = nsn;
}

static int same_positions(const gpu_alone *a, const gpu_alone *b) {
  return a->q && b->q && a->n3 == b->n3 && memcmp(a->q, b->q, sizeof(double) * a->n3) == 0;
}

/* The global step's other layouts of S with contact: its rows read as intervals of P b
   (SIMCTL_CUDA_S_ROWS=interval), its columns as runs of rows (SIMCTL_CUDA_S_COLS=runs), 8
   entries' loads at a time (SIMCTL_CUDA_GATHER_BATCH=8), against the defaults (indexed, 1): the
   same positions bit for bit after `steps` steps of the CUDA backend alone (the same sums in the
   same order: test_gpu_backend check_index_layouts), and no backend note. The contact stage
   multiplies by S vectors that are not the local step's right-hand side, whose P b only the
   local step writes (the correction A^-1 H^T f, H A^-1 b): the interval rows permute those first
   (gpu/global_step.cu launch_rows), which no test ran until 2026-12-07 (scripts/emu_coverage.sh);
   SIMCTL_CUDA_TUNE=on may pick these layouts for any scene. */
static void layouts_vs_default(const char *file, const char *set, int steps) {
  gpu_alone on, off;
  /* simctl's own products, which the layouts are of (the emulation's CTest entries set
     cuSPARSE's: tests/gpu.cmake) */
  const char *spmv = getenv("SIMCTL_CUDA_SPMV");
  char was[32] = "";
  if (spmv) snprintf(was, sizeof was, "%s", spmv);
  setenv("SIMCTL_CUDA_SPMV", "kernel", 1);
  setenv("SIMCTL_CUDA_S_COLS", "runs", 1);
  setenv("SIMCTL_CUDA_GATHER_BATCH", "8", 1);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_S_ROWS", "interval", &on);
  unsetenv("SIMCTL_CUDA_S_COLS");
  unsetenv("SIMCTL_CUDA_GATHER_BATCH");
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_S_ROWS", "indexed", &off);
  if (spmv)
    setenv("SIMCTL_CUDA_SPMV", was, 1);
  else
    unsetenv("SIMCTL_CUDA_SPMV");
  const int same = same_positions(&on, &off);
  printf(
      "  %-26s %d steps (%d with contact)%s%s: S as intervals and runs, 8 loads at a time, "
      "against the defaults %s; %lld and %lld CR iterations\n",
      g_sc.name, steps, on.contact_steps, set ? ", " : "", set ? set : "",
      same ? "bit-identical" : "DIFFER", on.cr, off.cr);
  check_report(on.contact_steps > 0 && same && on.cr == off.cr && on.notes == 0 && off.notes == 0,
               __FILE__, __LINE__,
               "%s: steps with contact %d > 0, positions bit-identical with S's other layouts, CR "
               "iterations %lld and %lld equal, backend notes %d and %d (0)",
               g_sc.name, on.contact_steps, on.cr, off.cr, on.notes, off.notes);
  sim_free(on.q);
  sim_free(off.q);
}

/* The device Newton solve's L-G iterations as CUDA graphs (SIMCTL_CUDA_GRAPH=on, the default,
   with a dense W) against its kernels launched one by one (off): the same positions, bit for
   bit, after `steps` steps of the CUDA backend alone, and no backend note. `refuse` (emulation
   only, else NULL): a third run whose captures the driver refuses (SIMCTL_EMU_NO_CAPTURE=1 at
   their start, =inside at a call inside, =end at their end) launches one by one from then on,
   with the same positions and one backend note naming the Newton solve. */
static void graphs_vs_launches(const char *file, const char *set, int steps, const char *refuse) {
  gpu_alone on, off, rf;
  memset(&rf, 0, sizeof rf);
  setenv("SIMCTL_CUDA_NSN", "device", 1);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_GRAPH", "on", &on);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_GRAPH", "off", &off);
  if (refuse) run_gpu_alone(file, set, steps, "SIMCTL_EMU_NO_CAPTURE", refuse, &rf);
  unsetenv("SIMCTL_CUDA_NSN");
  int same = same_positions(&on, &off);
  printf("  %-26s %d steps (%d with contact): graphs and launches %s; %lld and %lld Newton "
         "steps, %lld and %lld CR iterations; %lld and %lld host waits\n",
         g_sc.name, steps, on.contact_steps, same ? "bit-identical" : "DIFFER", on.newton,
         off.newton, on.cr, off.cr, on.waits, off.waits);
  /* the counts and the buckets' times come back at the frame's settle (nsn_cuda.cu's stamps),
     the same counts either way, every bucket timed */
  int timed = 1;
  for (int i = 0; i < 4; i++)
    timed &= on.bucket[i] > 0 && off.bucket[i] > 0 && isfinite(on.bucket[i]) &&
             isfinite(off.bucket[i]);
  check_report(on.newton == off.newton && on.cr == off.cr && on.newton > 0 && on.cr > 0 && timed,
               __FILE__, __LINE__,
               "%s: Newton steps %lld and %lld, CR iterations %lld and %lld equal and > 0; "
               "global, assemble, cst_solve, corr > 0 (graphs %g %g %g %g, launches %g %g %g %g)",
               g_sc.name, on.newton, off.newton, on.cr, off.cr, on.bucket[0], on.bucket[1],
               on.bucket[2], on.bucket[3], off.bucket[0], off.bucket[1], off.bucket[2],
               off.bucket[3]);
  check_report(on.contact_steps > 0 && same && on.notes == 0 && off.notes == 0, __FILE__,
               __LINE__,
               "%s: steps with contact %d > 0, positions bit-identical with and without graphs, "
               "backend notes %d and %d = 0",
               g_sc.name, on.contact_steps, on.notes, off.notes);
#ifdef SIM_TEST_EMU
  /* a step with contact waits for the positions the host reads (constraint pins' and cables'
     vertices at q_t, cables' at q~ too: one wait for both), where there is something to
     collide with for the detection passes (q_t's and the prediction's together) and for
     re-detection (its first pass; the last step adds nothing, so there is no second), for the
     contact solve's end pass (its judge, and where it takes Newton steps, each one's judge and
     line search), and at its end: nothing is settled before detection (its time is a span on
     the device's clock, SIM_SPAN_CD) */
  const int expect = 1 + (on.host_reads > 0) + (on.collide ? 1 + (on.redetect > 0) : 0) +
                     (on.last_end >= 0 ? 1 + 2 * on.last_end : 0);
  printf("  %-26s the last step's host waits: %lld with graphs, %lld without\n", g_sc.name,
         on.last_waits, off.last_waits);
  /* the device solve's graph is captured again only where its kernels' arguments changed:
     with the contact count (and the arrays' capacities, W's place), not at every step */
  printf("  %-26s graphs captured: %lld (contact count changed %d times), %lld without\n",
         g_sc.name, on.captures, on.nc_changes, off.captures);
  check_report(on.captures >= 1 && on.captures <= 1 + on.nc_changes && off.captures == 0,
               __FILE__, __LINE__,
               "%s: graphs captured %lld in 1 .. 1 + %d (the contact count's changes), %lld "
               "without graphs == 0",
               g_sc.name, on.captures, on.nc_changes, off.captures);
  check_report(on.last_waits == expect && off.last_waits == expect && on.last_added == 0 &&
                   off.last_added == 0,
               __FILE__, __LINE__,
               "%s: the last step's host waits %lld and %lld == %d (contacts re-detection added "
               "%d and %d == 0)",
               g_sc.name, on.last_waits, off.last_waits, expect, on.last_added, off.last_added);
#endif
  if (refuse) {
    int rsame = same_positions(&rf, &off);
    printf("  %-26s refused captures (SIMCTL_EMU_NO_CAPTURE=%s) and launches %s; note %d: %s\n",
           g_sc.name, refuse, rsame ? "bit-identical" : "DIFFER", rf.notes, rf.note);
    check_report(rsame && rf.notes == 1 && strstr(rf.note, "device Newton solve") &&
                     strstr(rf.note, "one by one") && !strchr(rf.note, '\n'),
                 __FILE__, __LINE__,
                 "%s: refused captures: positions bit-identical with launches, %d backend note "
                 "(1) naming the Newton solve and the launches",
                 g_sc.name, rf.notes);
  }
  sim_free(on.q);
  sim_free(off.q);
  sim_free(rf.q);
}

/* The device Newton solve's reductions fused into one launch each, with Conjugate Residual's
   updates and the Newton system's dense product (SIMCTL_CUDA_FUSE=on, the default since
   2026-12-04), against the separate launches (off): the same positions bit for bit after `steps`
   steps of the CUDA backend alone, the same Newton steps and CR iterations, no backend note; on the
   emulation, fewer kernels. */
static void fused_vs_separate(const char *file, const char *set, int steps) {
  gpu_alone on, off;
  setenv("SIMCTL_CUDA_NSN", "device", 1);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_FUSE", "on", &on);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_FUSE", "off", &off);
  unsetenv("SIMCTL_CUDA_NSN");
  int same = same_positions(&on, &off);
  const int same_ls = !memcmp(on.ls, off.ls, sizeof on.ls);
  printf("  %-26s %d steps (%d with contact)%s%s: fused and separate %s; %lld and %lld Newton "
         "steps, %lld and %lld CR iterations, line searches (full, shorter, none) %lld %lld %lld "
         "and %lld %lld %lld",
         g_sc.name, steps, on.contact_steps, set ? ", " : "", set ? set : "",
         same ? "bit-identical" : "DIFFER", on.newton, off.newton, on.cr, off.cr, on.ls[0],
         on.ls[1], on.ls[2], off.ls[0], off.ls[1], off.ls[2]);
#ifdef SIM_TEST_EMU
  printf("; %lld and %lld kernels run", on.kernels, off.kernels);
  check_report(on.kernels < off.kernels, __FILE__, __LINE__,
               "%s: kernels run %lld fused < %lld separate", g_sc.name,
               on.kernels, off.kernels);
#endif
  printf("\n");
  check_report(on.contact_steps > 0 && same && on.newton == off.newton && on.cr == off.cr &&
                   on.cr > 0 && same_ls && on.notes == 0 && off.notes == 0,
               __FILE__, __LINE__,
               "%s: steps with contact %d > 0, positions bit-identical fused and separate, "
               "Newton steps %lld and %lld and CR iterations %lld and %lld equal (> 0), line "
               "searches' outcomes equal, backend notes %d and %d = 0",
               g_sc.name, on.contact_steps, on.newton, off.newton, on.cr, off.cr, on.notes,
               off.notes);
  sim_free(on.q);
  sim_free(off.q);
}

/* The device Newton solve's graphs with programmatic edges between their kernels
   (SIMCTL_CUDA_PDL=on, gpu/pdl_cuda.cu) against without (off, the default), its kernels fused
   (SIMCTL_CUDA_FUSE=on: the fewest launches, where launch latency weighs most): the same
   positions, Newton steps and CR iterations bit for bit after `steps` steps, programmatic edges
   made (none without) on a device of compute capability 9.0 on (the emulation's, by default;
   before 9.0 one backend note says there are none), and on the emulation every kernel behind
   one made SIM_PDL_WAIT in each of its threads (or the program stops). */
static void pdl_vs_graphs(const char *file, const char *set, int steps) {
  gpu_alone on, off;
  setenv("SIMCTL_CUDA_NSN", "device", 1);
  setenv("SIMCTL_CUDA_FUSE", "on", 1);
  const long long e0 = sim_cuda_pdl_edges();
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_PDL", "on", &on);
  const long long e1 = sim_cuda_pdl_edges();
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_PDL", "off", &off);
  const long long e2 = sim_cuda_pdl_edges();
  unsetenv("SIMCTL_CUDA_FUSE");
  unsetenv("SIMCTL_CUDA_NSN");
  const int same = same_positions(&on, &off);
  const int old_device = on.notes == 1 && strstr(on.note, "SIMCTL_CUDA_PDL=on");
  printf(
      "  %-26s %d steps (%d with contact)%s%s: with and without programmatic edges %s; %lld "
      "edges made; %lld and %lld Newton steps, %lld and %lld CR iterations\n",
      g_sc.name, steps, on.contact_steps, set ? ", " : "", set ? set : "",
      same ? "bit-identical" : "DIFFER", e1 - e0, on.newton, off.newton, on.cr, off.cr);
  check_report(on.contact_steps > 0 && same && on.newton == off.newton && on.cr == off.cr &&
                   on.cr > 0 && (old_device ? e1 == e0 : e1 > e0) && e2 == e1 &&
                   on.notes == old_device && off.notes == 0,
               __FILE__, __LINE__,
               "%s: steps with contact %d > 0, positions bit-identical with and without "
               "programmatic edges, Newton steps %lld and %lld and CR iterations %lld and %lld "
               "equal (> 0), edges made %lld (> 0 from compute capability 9.0 on) and %lld "
               "without, backend notes %d (%s) and %d",
               g_sc.name, on.contact_steps, on.newton, off.newton, on.cr, off.cr, e1 - e0, e2 - e1,
               on.notes, on.note, off.notes);
  sim_free(on.q);
  sim_free(off.q);
}

/* Collision detection's positions read from the device twins the stepper's detect_download
   leaves (SIMCTL_CUDA_TWINS=on, the default) against downloaded to the host and uploaded from
   there (off): the same positions bit for bit after `steps` steps of the CUDA backend alone,
   every position array the runs read taken from a twin (none uploaded), and on the emulation
   exactly that many arrays of 3n doubles fewer copied to the device and, on scenes without
   constraint pins or cables (nothing the host reads), whole arrays of 3n doubles fewer copied
   to the host, at least two per step (q_t and q~). */
static void twins_vs_uploads(const char *file, const char *set, int steps) {
  gpu_alone on, off;
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_TWINS", "on", &on);
  run_gpu_alone(file, set, steps, "SIMCTL_CUDA_TWINS", "off", &off);
  int same = same_positions(&on, &off);
  printf("  %-26s %d steps (%d with contact): %lld position arrays from twins, %lld uploaded; "
         "%s",
         g_sc.name, steps, on.contact_steps, on.hits, on.misses,
         same ? "bit-identical" : "DIFFER");
#ifdef SIM_TEST_EMU
  long long saved = (long long)(sizeof(double) * on.n3) * on.hits;
  printf("; %.2f MB fewer copied to the device (%.2f MB with uploads)",
         (off.to_device - on.to_device) / 1e6, off.to_device / 1e6);
  check_report(off.to_device - on.to_device == saved, __FILE__, __LINE__,
               "%s: %lld bytes fewer to the device with twins, expected %lld", g_sc.name,
               off.to_device - on.to_device, saved);
  long long arr = (long long)(sizeof(double) * on.n3), down = off.to_host - on.to_host;
  printf("; %.2f MB fewer copied to the host (%lld arrays)", down / 1e6, down / arr);
  check_report(down % arr == 0 && down >= 2LL * steps * arr, __FILE__, __LINE__,
               "%s: %lld bytes fewer to the host with twins, a multiple of %lld, at least %d "
               "of them", g_sc.name, down, arr, 2 * steps);
#endif
  printf("\n");
  check_report(on.contact_steps > 0 && same && on.hits > 0 && on.misses == 0, __FILE__, __LINE__,
               "%s: steps with contact %d > 0, positions bit-identical with and without twins, "
               "%lld arrays from twins > 0, %lld uploaded = 0",
               g_sc.name, on.contact_steps, on.hits, on.misses);
  sim_free(on.q);
  sim_free(off.q);
}

/* the backend's host paths for detection and W (the passes above run both on the device), and
   the device Newton solve without CUDA graphs */
static void pass_paths(void) {
  printf("the device Newton solve as CUDA graphs against launches one by one "
         "(SIMCTL_CUDA_GRAPH):\n");
#ifdef SIM_TEST_EMU
  graphs_vs_launches("../scenes/soft_box_on_slab.json", NULL, 8, "inside");
#else
  graphs_vs_launches("../scenes/soft_box_on_slab.json", NULL, 60, NULL);
#endif
  graphs_vs_launches("../scenes/stick_slip.json", "contact.formulation=paper",
                     GPU_OR_EMU(40, 10), NULL);
  /* cables: the host reads their vertices at q_t and at q~ (their rows), in one wait; and in
     W's block form, the cables' rows kept whole */
  graphs_vs_launches("../scenes/cable_finger.json", NULL, GPU_OR_EMU(40, 10), NULL);
  graphs_vs_launches("../scenes/cable_finger.json", "contact.delassus=blocks", GPU_OR_EMU(40, 10),
                     NULL);
  printf("the device Newton solve's reductions fused against launched apart "
         "(SIMCTL_CUDA_FUSE):\n");
  fused_vs_separate("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 3));
  fused_vs_separate("../scenes/soft_box_on_slab.json", "contact.delassus=operator",
                    GPU_OR_EMU(60, 2));
  fused_vs_separate("../scenes/stick_slip.json",
                    "contact.formulation=paper|contact.cr_preconditioner=none", GPU_OR_EMU(40, 4));
  /* W's block form: its vectors prepared before each product (Omega lambda, the coupled rows',
     CR's stepped z) */
  fused_vs_separate("../scenes/stick_slip.json",
                    "contact.formulation=paper|contact.delassus=blocks", GPU_OR_EMU(40, 4));
  /* and matrix-free: Omega lambda formed inside the product's gather, or by k_mul before it */
  fused_vs_separate("../scenes/soft_box_on_slab.json",
                    "contact.formulation=paper|contact.delassus=operator", GPU_OR_EMU(60, 2));
  fused_vs_separate("../scenes/soft_box_on_slab.json", "contact.delassus=blocks",
                    GPU_OR_EMU(60, 3));
  /* the full step with its force in one launch, and CR's start read by the host */
  fused_vs_separate("../scenes/stick_slip.json",
                    "contact.newton_steps=1|contact.line_search=0|contact.cr_tolerance=1e-6",
                    GPU_OR_EMU(40, 2));
#ifndef SIM_TEST_EMU /* the emulation's time goes to the passes above */
  fused_vs_separate("../scenes/soft_box_on_slab.json",
                    "contact.newton_steps=1|contact.redetect=0|contact.line_search=0|"
                    "contact.cr_precision=float",
                    60);
  fused_vs_separate("../scenes/stick_slip.json", "contact.cr_preconditioner=none", 40);
  fused_vs_separate("../scenes/cable_finger.json", NULL, 40);
  fused_vs_separate("../scenes/soft_box_on_slab.json", "contact.cr_precision=float", 60);
#endif
  printf(
      "the device Newton solve's graphs with programmatic edges against without "
      "(SIMCTL_CUDA_PDL):\n");
  /* on the emulation the fewest steps that launch a graph: each step's first L-G iteration is
     launched one by one, its other four by the graph (.ci/run's time, 2026-12-03) */
  pdl_vs_graphs("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 2));
  /* the matrix-free W's products, queued with their gates */
  pdl_vs_graphs("../scenes/soft_box_on_slab.json", "contact.delassus=operator", GPU_OR_EMU(60, 1));
  /* the paper's algorithm, W formed */
  pdl_vs_graphs("../scenes/stick_slip.json",
                "contact.formulation=paper|contact.newton_steps=1|contact.line_search=0",
                GPU_OR_EMU(40, 2));
  printf("the global step's other layouts of S (SIMCTL_CUDA_S_ROWS, _S_COLS, _GATHER_BATCH):\n");
  layouts_vs_default("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 3));
  /* W matrix-free: its products read S's columns themselves (the contacts' columns of S) */
  layouts_vs_default("../scenes/soft_box_on_slab.json", "contact.delassus=operator",
                     GPU_OR_EMU(60, 2));
  printf("collision detection's positions from device twins against uploads "
         "(SIMCTL_CUDA_TWINS):\n");
  twins_vs_uploads("../scenes/stick_slip.json", NULL, GPU_OR_EMU(40, 6));
  /* a coarse cloth just above the blades: the points pass and re-detection read twins too */
  twins_vs_uploads("../scenes/cloth_on_knives.json",
                   "bodies.0.mesh.vertices=[11,11]|bodies.0.transform.translate=[0,1.34,0.1]",
                   GPU_OR_EMU(30, 6));
  printf("detection and the Delassus operator on the host (SIMCTL_CUDA_DETECT=host, "
         "SIMCTL_CUDA_DELASSUS=host):\n");
  setenv("SIMCTL_CUDA_DETECT", "host", 1);
  setenv("SIMCTL_CUDA_DELASSUS", "host", 1);
  step_by_step("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 8));
  step_by_step("../scenes/cable_finger.json", NULL, GPU_OR_EMU(40, 10));
#ifndef SIM_TEST_EMU /* the emulation's time goes to the passes above */
  sharp_corner_steps();
#endif
  unsetenv("SIMCTL_CUDA_DETECT");
  unsetenv("SIMCTL_CUDA_DELASSUS");
}

/* The contact stage with the other exact global solvers (stage.h): Cholesky (cuSPARSE triangular
   solves on the device, CHOLMOD's on the CPU) and the dense inverse (the CPU's arithmetic), W
   from an S in double kept for it alone on both sides; the Newton solve on the host and on the
   device (where the matrix-free W and the graphs run the solver's solves), and W on the host. */
static void pass_solvers(void) {
  static const sim_global_kind kinds[2] = {SIM_GLOBAL_CHOLESKY, SIM_GLOBAL_DENSE_INVERSE};
  for (int k = 0; k < 2; k++) {
    g_global = kinds[k];
    printf(
        "solver.global %s, the Newton solve on the host and on the device (two CUDA backends "
        "beside one CPU backend):\n",
        sim_global_name(g_global));
    g_nsn = g_both, g_nsn_n = 2;
    step_by_step("../scenes/stick_slip.json", NULL, GPU_OR_EMU(40, 10));
    step_by_step("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 6));
    step_by_step("../scenes/hanging_bar_compliant_pin.json", NULL, GPU_OR_EMU(30, 8));
    step_by_step("../scenes/cable_finger.json", NULL, GPU_OR_EMU(40, 8));
    g_nsn = NULL, g_nsn_n = 0;
    printf("solver.global %s, W on the host (SIMCTL_CUDA_DELASSUS=host):\n",
           sim_global_name(g_global));
    setenv("SIMCTL_CUDA_DELASSUS", "host", 1);
    step_by_step("../scenes/soft_box_on_slab.json", NULL, GPU_OR_EMU(60, 6));
    unsetenv("SIMCTL_CUDA_DELASSUS");
  }
#ifndef SIM_TEST_EMU /* the matrix-free W at 7,542 rows: each product two triangular solves */
  g_global = SIM_GLOBAL_CHOLESKY;
  setenv("SIMCTL_CUDA_NSN", "device", 1);
  sharp_corner_steps();
  unsetenv("SIMCTL_CUDA_NSN");
#endif
  g_global = SIM_GLOBAL_SPARSE_INVERSE;
}

/* usage: test_gpu_contact [PASS] (default all): scenes, ball, paths, solvers (what `all` runs:
   CTest's entries on a GPU), or host, device, ball_host, ball_device (a Newton solve alone) */
int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
    int in_all;
  } passes[] = {{"scenes", pass_scenes, 1},       {"ball", pass_ball, 1},
                {"paths", pass_paths, 1},         {"solvers", pass_solvers, 1},
                {"host", pass_host, 0},           {"device", pass_device, 0},
                {"ball_host", pass_ball_host, 0}, {"ball_device", pass_ball_device, 0}};
  const char *want = argc > 1 ? argv[1] : "all";
  int known = !strcmp(want, "all");
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
    known |= !strcmp(want, passes[i].name);
  if (argc > 2 || !known) {
    fprintf(stderr,
            "test_gpu_contact: unknown pass '%s': expected scenes, ball, paths, solvers, host, "
            "device, ball_host, ball_device or all\n",
            argc > 2 ? argv[2] : want);
    return 2;
  }
  gpu_or_skip("test_gpu_contact");
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
    if ((!strcmp(want, "all") && passes[i].in_all) || !strcmp(want, passes[i].name))
      passes[i].run();
  return check_summary("test_gpu_contact");
}

/* SPDX-License-Identifier: MIT */
/* The CUDA backend's contact operations against the CPU backend's on random contacts (label gpu;
   SKIPPED without a CUDA device): contact_begin and contact_global, as Algorithm 4 runs them,
   from the same state and right-hand sides on both sides, with contacts of every kind a step
   can hold (obstacle, mesh obstacle, another body's triangle, a mesh obstacle's point against a
   triangle, constraint pins' bilateral rows, cables), on free and pinned vertices alike, in a
   pinned ARAP bar. Each step's rows are built on the device from its contacts
   (gpu/rows_cuda.cu), the free unknowns' incidences by atomics and a sort: on the emulation
   the first pass runs again with the blocks in reverse and in shuffled order, and the device's
   q and multipliers must stay the same to the bit.
   - Four steps of 40, 90, 25 and 25 contacts (the device's arrays grow, then are reused; the
     last meets the third's contacts again, in other directions, a third of them without
     friction: their warm-started tangential multipliers are decoupled rows that move), each
     a prediction, the warm
     start (the multipliers after contact_begin, each side's from its own multipliers of the
     step before, so within their 1e-9; on the device with the Newton solve there, from the
     multipliers it kept) and three L-G iterations (the CPU's local step's right-hand side
     given to both), enough Conjugate Residual iterations and Newton steps for the solve to
     converge (a solve stopped far from its solution turns last-bit differences into large
     ones): q after each within 1e-12 of its largest value, the multipliers within 1e-9 (on the
     emulation both are within 1e-13; on a GPU the device solve's reductions add in another
     order than the host's, test_gpu_contact.c; its NCP functions' norms have used sim_hypot,
     which rounds alike on both, instead of hypot since 2026-12-02).
   - The same with W matrix-free (contact.delassus operator), and both with the Newton solve on
     the device (SIMCTL_CUDA_NSN=device, the default; the passes before set host), each run
     again with the device solve's reductions fused (SIMCTL_CUDA_FUSE=on), whose q must be the
     separate launches' to the bit (on the emulation with the blocks shuffled, and reversed);
     and W matrix-free with the host reading each of the device solve's decisions
     (SIMCTL_CUDA_MF_QUEUE=off) against the default, which queues on with gates: the same bits;
     and the device solve with W matrix-free through all of S (SIMCTL_CUDA_WCOLS=off, whose
     products take no gate: the host reads each decision) against the CPU.
   - With the Newton solve on the device and W dense or matrix-free (queued on), its L-G
     iterations run as a CUDA graph,
     captured where the arrays it reads grew (steps 0 and 1); on the emulation, which counts
     the captures, steps 2 and 3 (fewer contacts, other counts) capture none: the kernels read
     the contact count on the device, their grids follow the arrays' capacity.
   - The device Newton solve with W's block form (contact.delassus blocks on both sides: G, the
     frames and the cables' rows, core/contact/wblocks.h), separate and fused, within the same
     bounds, and differing from the dense W's results (other sums: the form reaches the device);
     then in float (contact.cr_precision: CR's products read G in float), differing from double.
   - The device Newton solve with a dense W again with contact.cr_precision float on both sides
     (Conjugate Residual's products read a float copy of W: nsn.c, gpu/nsn_cuda.cu), separate
     and fused, within the same bounds.
   - The friction rows' exact Jacobian (contact.newton_jacobian exact) without friction with
     the host's GMRES (SIMCTL_CUDA_NSN=host, W's products on the device), then the device
     Newton solve with it (GMRES on the device, gpu/gmres_cuda.cu, against nsn.c's), separate
     and fused:
     without friction, W dense, in its block form, and with cr_tolerance 1e-10 dense and
     matrix-free, within the same bounds; with friction, W dense, within 1e-4 (main says why).
     The argument picks the passes (main). */
#include <stdlib.h>

#include "contact/contact.h"
#include "contact/sdf.h"
#include "gpu_pair.h"
#include "json_fmt.h"

static sim_scene g_sc; /* large: off the stack */
/* the passes' contact.newton_jacobian and cr_tolerance, whether their contacts have friction,
   and the bounds on q and the multipliers (relative to their largest values) */
static const char *g_jacobian = "lagged", *g_tol = "0";
static int g_frictionless;
static double g_qtol = 1e-12, g_ltol = 1e-9;
static sim_cable_row g_cable[2];

/* The device's results (q and lambda after each L-G iteration) recorded (mode 1), or compared
   bit for bit with the record (mode 2; g_rec_diff counts the values that differ). */
static double *g_rec;
static size_t g_rec_n, g_rec_at;
static int g_rec_mode;
static long g_rec_diff;

static void record(const double *x, size_t n) {
  if (g_rec_mode == 1) {
    double *r = SIM_NEW(double, g_rec_n + n);
    if (g_rec_n) memcpy(r, g_rec, sizeof(double) * g_rec_n);
    memcpy(r + g_rec_n, x, sizeof(double) * n);
    sim_free(g_rec);
    g_rec = r, g_rec_n += n;
  } else if (g_rec_mode == 2) {
    for (size_t i = 0; i < n; i++)
      g_rec_diff += g_rec_at + i >= g_rec_n || memcmp(&g_rec[g_rec_at + i], &x[i], sizeof *x);
    g_rec_at += n;
  }
}

static int key_cmp(const void *a, const void *b) {
  return sim_contact_key_cmp((const sim_contact *)a, (const sim_contact *)b);
}

/* A unit normal within about 20 degrees of +y (a floor's, tilted). */
static void random_normal(unsigned long long *s, double n[3]) {
  n[0] = 0.3 * rnd(s), n[1] = 1.0, n[2] = 0.3 * rnd(s);
  const double l = sim_norm3(n);
  for (int k = 0; k < 3; k++) n[k] /= l;
}

/* `want` contacts of random kinds on distinct vertices (a few pinned), sorted by key; each
   pushes its vertex up towards a point a little below its rest position; the cables' rows (a
   cable is in a step's contacts at most once) in g_cable. keys (or NULL): the same draws, but
   c's keys (vertex, kind, source) are keys' first `want` (a step that meets the contacts of
   the step before again, in other directions). */
static int random_contacts(const sim_model *m, unsigned long long *s, int want,
                           const sim_contact *keys, sim_contact *c) {
  int nc = 0, cables = 0;
  const int stride = m->n / want; /* distinct vertices: one in each run of `stride` */
  for (; nc < want; nc++) {
    sim_contact *k = &c[nc];
    memset(k, 0, sizeof *k);
    int kind = (int)((rnd(s) + 1.0) * 3.0) % SIM_CONTACT_KINDS; /* 0 to 5: EDGE below */
    if (kind == SIM_CONTACT_CABLE && cables == 2) kind = SIM_CONTACT_OBSTACLE;
    k->kind = (sim_contact_kind)kind;
    k->v = nc * stride + (int)((rnd(s) + 1.0) * 0.5 * stride) % stride;
    k->source = (int)((rnd(s) + 1.0) * 2.0);
    if (keys) k->kind = keys[nc].kind, k->v = keys[nc].v, k->source = keys[nc].source;
    kind = (int)k->kind;
    for (int i = 0; i < 3; i++) k->tri[i] = -1;
    random_normal(s, k->n);
    sim_tangent_basis(k->n, k->t1, k->t2);
    for (int i = 0; i < 3; i++) {
      k->p[i] = m->x_rest[3 * (size_t)k->v + i] - 0.02 * k->n[i];
      k->u[i] = 0.1 * rnd(s);
    }
    k->gap = 0.02;
    k->mu = 0.25 * (rnd(s) + 1.0);
    /* a third of the contacts met again lose their friction: their warm-started tangential
       multipliers make decoupled rows that move at the first Newton step (the device solve's
       flag for them, and what reads it: the coupled rows' W dlambda, CR's start) */
    if (keys && nc % 3 == 0) k->mu = 0.0;
    if (kind == SIM_CONTACT_BODY || kind == SIM_CONTACT_TRIANGLE || kind == SIM_CONTACT_EDGE) {
      double w0 = rnd(s) + 1.5, w1 = rnd(s) + 1.5, w2 = rnd(s) + 1.5, sum = w0 + w1 + w2;
      k->w[0] = w0 / sum, k->w[1] = w1 / sum, k->w[2] = w2 / sum;
      /* the triangle's vertices are set below: those of contacts half the list away */
    } else if (kind == SIM_CONTACT_BILATERAL) {
      k->mu = 0.0;
      k->compliance = rnd(s) > 0 ? 1e-6 : 0.0;
    } else if (kind == SIM_CONTACT_CABLE && keys) { /* the same cable, as it was */
      sim_cable_row *row = &g_cable[k->source];
      k->cable = row;
      k->mu = 0.0, k->compliance = 1e-8;
      memset(k->n, 0, sizeof k->n), memset(k->t1, 0, sizeof k->t1), memset(k->t2, 0, sizeof k->t2);
    } else if (kind == SIM_CONTACT_CABLE) {
      sim_cable_row *row = &g_cable[cables];
      k->source = cables++;
      row->nt = 5 + cables;
      int v0 = (k->v + 3 * m->n / 4) % m->n; /* consecutive vertices: some pinned (the top) */
      for (int t = 0; t < row->nt; t++) {
        row->vert[t] = (v0 + 9 * t) % m->n;
        for (int d = 0; d < 3; d++) row->g[t][d] = 0.5 * rnd(s);
      }
      k->v = row->vert[0];
      for (int t = 1; t < row->nt; t++) k->v = row->vert[t] < k->v ? row->vert[t] : k->v;
      row->target = 0.3;
      k->cable = row;
      k->mu = 0.0, k->compliance = 1e-8;
      memset(k->n, 0, sizeof k->n), memset(k->t1, 0, sizeof k->t1), memset(k->t2, 0, sizeof k->t2);
    }
  }
  /* a triangle's vertices are three contacts' in the middle of the list: each of those
     vertices has terms from contacts all along it (in other warps and blocks), and H^T's
     sums over them, in contact order on the CPU, differ in their last bits in another order */
  for (int j = 0; j < nc; j++) {
    sim_contact *k = &c[j];
    if (k->kind == SIM_CONTACT_BODY && j % 2 && !keys) /* every other one an EDGE (no draw:
                                                           the others' stay as they were) */
      k->kind = SIM_CONTACT_EDGE;
    if (k->kind == SIM_CONTACT_OBSTACLE && j % 3 == 1 && !keys) /* a third an edge's point */
      k->kind = SIM_CONTACT_OBSTACLE_EDGE;
    if (k->kind == SIM_CONTACT_OBSTACLE_EDGE) { /* v's edge to the vertex a quarter of the list
                                                   on, its point below p as v's is */
      const sim_contact *o = &c[(j + nc / 4) % nc];
      k->tri[0] = o->v != k->v ? o->v : c[(j + nc / 4 + 1) % nc].v;
      k->w[0] = 0.2 + 0.6 * (double)(j % 5) / 4.0;
      for (int i = 0; i < 3; i++)
        k->p[i] = (1.0 - k->w[0]) * m->x_rest[3 * (size_t)k->v + i] +
                  k->w[0] * m->x_rest[3 * (size_t)k->tri[0] + i] - 0.02 * k->n[i];
      continue;
    }
    if (k->kind != SIM_CONTACT_BODY && k->kind != SIM_CONTACT_TRIANGLE &&
        k->kind != SIM_CONTACT_EDGE)
      continue;
    if (k->kind == SIM_CONTACT_EDGE) { /* the first edge at s = w0, the other at t = w2 / (w1 +
                                          w2) */
      const double t = k->w[2] / (k->w[1] + k->w[2]);
      k->w[1] = 1.0 - t, k->w[2] = t;
    }
    for (int i = 0; i < 3; i++) k->tri[i] = c[nc / 2 + i].v;
    if (k->kind == SIM_CONTACT_TRIANGLE) k->tri[0] = k->v;
  }
  qsort(c, (size_t)nc, sizeof *c, key_cmp); /* a cable's v is its smallest vertex */
  return nc;
}

static double g_lambda_max; /* max |lambda| on the CPU at the last lambda_diff */

/* max |a - b| over the first n, relative to max |b| (pair_compare's measure, for host arrays) */
static double lambda_diff(gpu_pair *g, int nc) {
  sim_status st = {0};
  double *a = SIM_NEW(double, 3 * (size_t)nc + 1), *b = SIM_NEW(double, 3 * (size_t)nc + 1);
  CHECK_INT(g->gpu->contact_lambda(g->gpu, a, &st), SIM_OK);
  CHECK_INT(g->cpu->contact_lambda(g->cpu, b, &st), SIM_OK);
  record(a, 3 * (size_t)nc);
  double d = rel_diff(a, b, 3 * (size_t)nc);
  g_lambda_max = 0.0;
  for (size_t i = 0; i < 3 * (size_t)nc; i++) g_lambda_max = fmax(g_lambda_max, fabs(b[i]));
  sim_free(a), sim_free(b);
  return d;
}

#ifdef SIM_TEST_EMU /* the host emulation of CUDA (tests/emu), which counts graph captures */
void sim_emu_graph_counts(long long *captures, long long *launches);
#endif

/* Graphs captured so far (the emulation counts them; 0 elsewhere). */
static long long captures(void) {
  long long c = 0, l = 0;
#ifdef SIM_TEST_EMU
  sim_emu_graph_counts(&c, &l);
#endif
  (void)l;
  return c;
}

/* After a contact operation on both backends (the GPU's returned rc): the GPU's work settled,
   q within g_qtol (recorded) and the multipliers within g_ltol of the CPU's, at `when`. */
static void both_after(gpu_pair *g, int rc, sim_status *st, int nc, double *q, const char *what,
                       const char *when) {
  if (rc) fprintf(stderr, "%s %s: %s\n", what, when, st->msg);
  CHECK_INT(rc, SIM_OK);
  double ms[SIM_SPAN_COUNT];
  CHECK_INT(g->gpu->settle(g->gpu, ms, st), SIM_OK);
  char w[96];
  snprintf(w, sizeof w, "q %s", when);
  pair_compare(g, 0, SIM_VEC_Q, g_qtol, w);
  CHECK_INT(g->gpu->download(g->gpu, SIM_VEC_Q, q, st), SIM_OK);
  record(q, 3 * (size_t)g->m.n);
  double dl = lambda_diff(g, nc);
  printf("  %-28s lambda %s rel diff %.2e\n", g->m.scene->name, when, dl);
  check_report(dl <= g_ltol, __FILE__, __LINE__, "%s: lambda %s rel diff %.3g", what, when, dl);
}

static void steps(const char *what, const char *delassus, const char *cr_precision) {
  const char *text = json(
      "{'name': 'contact_ops_%s', 'solver': {'dt': 0.01, 'lg_iterations': 3},"
      " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [-0.2, -1, -0.2],"
      " 'hi': [0.2, 1, 0.2], 'vertices': [5, 21, 5]}, 'material': {'model': 'arap',"
      " 'mass': 10, 'youngs_modulus': 1e6, 'poisson_ratio': 0.4}}],"
      " 'pins': [{'body': 0, 'box': [-1, 0.95, -1, 1, 1.1, 1]}],"
      " 'obstacles': [{'type': 'plane', 'point': [0, -2, 0], 'normal': [0, 1, 0]}],"
      " 'cables': [{'body': 0, 'points': [[0.1, -0.8, 0], [0.1, 0, 0], [0.1, 0.8, 0]]},"
      "            {'body': 0, 'points': [[-0.1, -0.8, 0.1], [-0.1, 0.5, 0.1]]}],"
      " 'contact': {'delassus': '%s', 'cr_iterations': 60, 'newton_steps': 4,"
      " 'cr_precision': '%s', 'newton_jacobian': '%s', 'cr_tolerance': %s,"
      " 'end_newton_steps': 12, 'end_tolerance': 1e-7}}",
      delassus, delassus, cr_precision, g_jacobian, g_tol);
  if (pair_load_scene(&g_sc, text, "test_gpu_contact_ops.json")) return;
  gpu_pair g;
  if (gpu_pair_open(&g, &g_sc, SIM_PREC_DOUBLE)) return;
  unsigned long long seed = 17;
  /* the last step meets the contacts of the one before again, in other directions: the warm
     start re-expresses their friction in the new tangents */
  const int want[4] = {40, 90, 25, 25};
  sim_contact *c = SIM_NEW(sim_contact, 90), *prev = SIM_NEW(sim_contact, 90);
  size_t nr = sim_buffer_len(&g.m, SIM_BUF_RHS);
  double *b = SIM_NEW(double, nr + 1), *q = SIM_NEW(double, 3 * (size_t)g.m.n);
  const double grav[3] = {0.0, -9.81, 0.0};
  const char *nsn = getenv("SIMCTL_CUDA_NSN");
  const char *queue = getenv("SIMCTL_CUDA_MF_QUEUE");
  const char *cols = getenv("SIMCTL_CUDA_WCOLS"); /* off: through all of S, the host reads */
  const int queued = (!queue || strcmp(queue, "off") != 0) && (!cols || strcmp(cols, "off") != 0);
  const int graphs = nsn && strcmp(nsn, "device") == 0 &&
                     (strcmp(delassus, "dense") == 0 || strcmp(delassus, "blocks") == 0 ||
                      (strcmp(delassus, "operator") == 0 && queued));
  int end_steps = 0;
  for (int step = 0; step < 4; step++) {
    const long long cap0 = graphs ? captures() : 0;
    random_state(&g, &seed);
    memcpy(prev, c, sizeof(sim_contact) * 90);
    int nc = random_contacts(&g.m, &seed, want[step], step == 3 ? prev : NULL, c);
    for (int j = 0; j < nc && g_frictionless; j++) c[j].mu = 0.0;
    int kinds[SIM_CONTACT_KINDS] = {0};
    for (int j = 0; j < nc; j++) kinds[c[j].kind]++;
    printf(
        "%s, step %d: %d contacts (obstacle %d, mesh %d, body %d, triangle %d, bilateral %d, "
        "cable %d, edge %d, obstacle edge %d)\n",
        what, step, nc, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], kinds[6],
        kinds[7]);
    for (int k = 0; k < SIM_CONTACT_KINDS; k++) CHECK(kinds[k] > 0);
    sim_status st = {0};
    sim_cst_times tc = {0}, tg = {0};
    CHECK_INT(g.cpu->predict(g.cpu, grav, &st), SIM_OK);
    CHECK_INT(g.gpu->predict(g.gpu, grav, &st), SIM_OK);
    CHECK_INT(g.cpu->contact_begin(g.cpu, c, nc, &tc, &st), SIM_OK);
    int rc = g.gpu->contact_begin(g.gpu, c, nc, &tg, &st);
    if (rc) fprintf(stderr, "contact_begin: %s\n", st.msg);
    CHECK_INT(rc, SIM_OK);
    const double dw = lambda_diff(&g, nc); /* the warm start (0 where a contact is new) */
    printf("  %-28s warm start %d rel diff %.2e\n", g.m.scene->name, step, dw);
    check_report(dw <= 1e-9, __FILE__, __LINE__, "%s: warm start %d rel diff %.3g", what, step,
                 dw);
    if (step == 3) CHECK(g_lambda_max > 0.0); /* the contacts met again took multipliers */
    for (int it = 0; it < 3; it++) {
      CHECK_INT(g.cpu->local_step(g.cpu, &st), SIM_OK); /* the CPU's right-hand side to both */
      CHECK_INT(g.cpu->read_buffer(g.cpu, SIM_BUF_RHS, b, &st), SIM_OK);
      CHECK_INT(g.gpu->write_buffer(g.gpu, SIM_BUF_RHS, b, &st), SIM_OK);
      CHECK_INT(g.cpu->contact_global(g.cpu, &tc, &st), SIM_OK);
      char w[32];
      snprintf(w, sizeof w, "%d.%d", step, it);
      both_after(&g, g.gpu->contact_global(g.gpu, &tg, &st), &st, nc, q, what, w);
    }
    /* the end pass (contact.end_tolerance 1e-7): its Newton steps past the budget, then the
       change of f through the correction (lagged: step 0 takes 3, step 1 takes 9, the last
       one's line search none; the exact Jacobian without friction: one at step 1; with
       friction: none) */
    CHECK_INT(g.cpu->contact_finish(g.cpu, &tc, &st), SIM_OK);
    char w[32];
    snprintf(w, sizeof w, "%d end", step);
    both_after(&g, g.gpu->contact_finish(g.gpu, &tg, &st), &st, nc, q, what, w);
    printf("  %-28s end %d: %d and %d Newton steps, max |phi| %.3g and %.3g\n", g.m.scene->name,
           step, tc.end_steps, tg.end_steps, tc.end_phi, tg.end_phi);
    CHECK_INT(tc.end_unmet, tg.end_unmet);
    end_steps += tc.end_steps;
#ifdef SIM_TEST_EMU /* on a GPU a max |phi| within rounding of the tolerance may decide apart */
    CHECK_INT(tg.end_steps, tc.end_steps);
#endif
    if (graphs) { /* the arrays grew at steps 0 and 1 alone (40, then 90 contacts) */
      const long long got = captures() - cap0;
      printf("  %-28s graphs captured at step %d: %lld\n", g.m.scene->name, step, got);
#ifdef SIM_TEST_EMU
      check_report(step < 2 ? got == 1 : got == 0, __FILE__, __LINE__,
                   "%s: graphs captured at step %d (%d contacts) %lld == %d", what, step, nc, got,
                   step < 2);
#endif
    }
  }
  printf("%s: the end passes took %d Newton steps\n", what, end_steps);
  if (strcmp(g_jacobian, "lagged") == 0 || g_frictionless)
    CHECK(end_steps > 0); /* the end pass's steps and correction ran */
  sim_free(b), sim_free(q), sim_free(c), sim_free(prev);
  gpu_pair_close(&g);
}

#ifdef SIM_TEST_EMU /* the host emulation of CUDA: the order its blocks run in (tests/emu) */
void sim_emu_set_schedule(int kind);
#endif

/* The first pass with the blocks run forward, then (on the emulation) in reverse and shuffled
   order: the device's results the same to the bit (the rows' incidences, filled by atomics in
   the blocks' order, are sorted). */
static void first_pass(void) {
#ifdef SIM_TEST_EMU
  const char *order[3] = {"forward", "reverse", "shuffled"};
  for (int kind = 0; kind < 3; kind++) {
    sim_emu_set_schedule(kind);
    g_rec_mode = kind == 0 ? 1 : 2, g_rec_at = 0, g_rec_diff = 0;
    steps("dense W", "dense", "double");
    if (kind > 0)
      check_report(g_rec_diff == 0 && g_rec_at == g_rec_n, __FILE__, __LINE__,
                   "blocks in %s order: %ld of %zu values differ from the forward order's",
                   order[kind], g_rec_diff, g_rec_n);
  }
  sim_emu_set_schedule(0);
  g_rec_mode = 0;
  sim_free(g_rec);
  g_rec = NULL, g_rec_n = 0;
#else
  steps("dense W", "dense", "double");
#endif
}

static double *g_kept; /* a pass's record kept for the next (fused_pass's `kept`) */
static size_t g_kept_n;

/* The device Newton solve with its reductions fused (SIMCTL_CUDA_FUSE=on: each one launch,
   the block that finishes last adding the others' partials) against the separate launches
   (off): q after every L-G iteration the same to the bit; on the emulation with the blocks run
   in `order` (1 reversed, 2 shuffled: another block than the forward order's last finishes
   each reduction). kept & 2: this pass's record must differ from the kept one somewhere (CR's
   W in float against double, W's block form against W: the option reaches the device), which
   is then dropped; kept & 1: this pass's record is kept. */
static void fused_pass(const char *what, const char *delassus, const char *cr_precision, int order,
                       int kept) {
  char fw[96];
  snprintf(fw, sizeof fw, "%s, fused", what);
  g_rec_mode = 1, g_rec_at = 0, g_rec_diff = 0;
  setenv("SIMCTL_CUDA_FUSE", "off", 1);
  steps(what, delassus, cr_precision);
  setenv("SIMCTL_CUDA_FUSE", "on", 1);
#ifdef SIM_TEST_EMU
  sim_emu_set_schedule(order);
#else
  (void)order;
#endif
  g_rec_mode = 2, g_rec_at = 0, g_rec_diff = 0;
  steps(fw, delassus, cr_precision);
  check_report(g_rec_diff == 0 && g_rec_at == g_rec_n, __FILE__, __LINE__,
               "%s: %ld of %zu values differ from the separate launches'", fw, g_rec_diff,
               g_rec_n);
#ifdef SIM_TEST_EMU
  sim_emu_set_schedule(0);
#endif
  unsetenv("SIMCTL_CUDA_FUSE");
  g_rec_mode = 0;
  if (kept & 2) {
    long differ = 0;
    CHECK(g_kept_n == g_rec_n);
    for (size_t i = 0; i < g_rec_n && i < g_kept_n; i++) differ += g_rec[i] != g_kept[i];
    printf("%s: %ld of %zu values differ from the kept pass's\n", what, differ, g_rec_n);
    CHECK(differ > 0);
    sim_free(g_kept);
    g_kept = NULL, g_kept_n = 0;
  }
  if (kept & 1)
    g_kept = g_rec, g_kept_n = g_rec_n;
  else
    sim_free(g_rec);
  g_rec = NULL, g_rec_n = 0;
}

/* W matrix-free with the host reading each of the device Newton solve's decisions
   (SIMCTL_CUDA_MF_QUEUE=off: a wait each, no graph) against the kept record of the same pass
   queued on (the default: the gates skip what was decided against, the L-G iterations a graph,
   the line search's trials in batches through S's contact columns): the same bits. */
static void reads_pass(const char *what) {
  CHECK(g_kept != NULL);
  g_rec = g_kept, g_rec_n = g_kept_n, g_kept = NULL, g_kept_n = 0;
  g_rec_mode = 2, g_rec_at = 0, g_rec_diff = 0;
  setenv("SIMCTL_CUDA_MF_QUEUE", "off", 1);
  steps(what, "operator", "double");
  unsetenv("SIMCTL_CUDA_MF_QUEUE");
  check_report(g_rec_diff == 0 && g_rec_at == g_rec_n, __FILE__, __LINE__,
               "%s: %ld of %zu values differ from the queued pass's", what, g_rec_diff, g_rec_n);
  g_rec_mode = 0;
  sim_free(g_rec);
  g_rec = NULL, g_rec_n = 0;
}

/* usage: test_gpu_contact_ops [PASS] (default all): rows, the first pass alone (the Newton
   solve on the host, W dense: the quick check of the device's rows); host, the passes with the
   Newton solve on the host (the first, then W matrix-free), and the device's with W
   matrix-free through all of S (SIMCTL_CUDA_WCOLS=off: the host reads its decisions); device, those
   with it on the device (fused and not, W dense and in blocks, each in double and float, W
   matrix-free; CR's step apart); exact, the exact Jacobian's (the host's GMRES without friction,
   then the device's: W dense, in blocks, matrix-free). The emulation's CTest entries are host,
   device and exact, so that ctest -j2 runs them side by side, under AddressSanitizer too.
   device and exact also come in parts, each a few minutes under compute-sanitizer
   (gpu_report.sh's sanitize part, where the whole program ran past 400 s on an H200):
   device-blocks (W dense, then in its block form in double and float: the block form's passes
   compare with the dense one's record), device-float (W dense with CR in float, and CR's step
   apart), device-operator (W matrix-free, queued on and read by the host), exact-frictionless
   (the host's GMRES, then the device's with W dense and in blocks) and exact-tolerance (with
   cr_tolerance, W dense, then matrix-free queued on and read by the host; then with friction). */
enum {
  P_ROWS = 1,
  P_HOST = 2,
  P_DBLOCKS = 4,
  P_DFLOAT = 8,
  P_DOPER = 16,
  P_XFREE = 32,
  P_XTOL = 64
};
static int parse_pass(const char *want) {
  static const struct {
    const char *name;
    int bits;
  } passes[] = {{"rows", P_ROWS},
                {"host", P_HOST},
                {"device", P_DBLOCKS | P_DFLOAT | P_DOPER},
                {"device-blocks", P_DBLOCKS},
                {"device-float", P_DFLOAT},
                {"device-operator", P_DOPER},
                {"exact", P_XFREE | P_XTOL},
                {"exact-frictionless", P_XFREE},
                {"exact-tolerance", P_XTOL},
                {"all", P_HOST | P_DBLOCKS | P_DFLOAT | P_DOPER | P_XFREE | P_XTOL}};
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
    if (!strcmp(want, passes[i].name)) return passes[i].bits;
  return 0;
}

int main(int argc, char **argv) {
  const char *want = argc > 1 ? argv[1] : "all";
  const int p = argc > 2 ? 0 : parse_pass(want);
  if (!p) {
    fprintf(stderr,
            "test_gpu_contact_ops: unknown pass '%s': expected rows, host, device, "
            "device-blocks, device-float, device-operator, exact, exact-frictionless, "
            "exact-tolerance or all\n",
            argc > 2 ? argv[2] : want);
    return 2;
  }
  gpu_or_skip("test_gpu_contact_ops");
  setenv("SIMCTL_CUDA_NSN", "host", 1);
  if (p & (P_ROWS | P_HOST)) first_pass();
  if (p & P_HOST) {
    steps("W matrix-free", "operator", "double");
    /* the device Newton solve with W matrix-free through all of S (SIMCTL_CUDA_WCOLS=off): its
       products take no gate, so the host reads each decision (sim_cuda_nsn_reads) */
    setenv("SIMCTL_CUDA_NSN", "device", 1);
    setenv("SIMCTL_CUDA_WCOLS", "off", 1);
#ifdef SIM_TEST_EMU /* S's products by the emulated cuSPARSE, whose host loops are far faster \
                       than the emulated gathers' shuffles (test_emu_backend checks those) */
    setenv("SIMCTL_CUDA_SPMV", "cusparse", 1);
#endif
    steps("device Newton solve, W matrix-free through all of S", "operator", "double");
    unsetenv("SIMCTL_CUDA_SPMV");
    unsetenv("SIMCTL_CUDA_WCOLS");
    setenv("SIMCTL_CUDA_NSN", "host", 1);
  }
  setenv("SIMCTL_CUDA_NSN", "device", 1);
  if (p & P_DBLOCKS) {
    fused_pass("device Newton solve, dense W", "dense", "double", 2, 1);
    fused_pass("device Newton solve, W's block form", "blocks", "double", 1, 3);
    fused_pass("device Newton solve, W's block form, CR's G in float", "blocks", "float", 2, 2);
  }
  if (p & P_DFLOAT) {
    fused_pass("device Newton solve, dense W, CR's W in float", "dense", "float", 1, 0);
    /* fused with CR's step in a launch of its own (SIMCTL_CUDA_CR_STEP=apart; the passes above
       take it in the next product's, the default) */
    setenv("SIMCTL_CUDA_CR_STEP", "apart", 1);
    fused_pass("device Newton solve, dense W, CR's step apart", "dense", "double", 1, 0);
    unsetenv("SIMCTL_CUDA_CR_STEP");
  }
  if (p & P_DOPER) {
    fused_pass("device Newton solve, W matrix-free", "operator", "double", 1, 1);
    reads_pass("device Newton solve, W matrix-free, the host reading the decisions");
  }
  if (p & P_XFREE) { /* the friction rows' exact Jacobian: GMRES on the device
                        (gpu/gmres_cuda.cu) against the host's (nsn.c) */
    g_jacobian = "exact";
    g_frictionless = 1; /* the host's GMRES with W on the device (SIMCTL_CUDA_NSN=host) */
    setenv("SIMCTL_CUDA_NSN", "host", 1);
    steps("host Newton solve, exact Jacobian, no friction, dense W", "dense", "double");
    setenv("SIMCTL_CUDA_NSN", "device", 1);
    /* without friction the exact system is the lagged one (up to its rows' factors), as well
       conditioned: the bounds of the passes above; W dense (the graph) and in its block form */
    fused_pass("device Newton solve, exact Jacobian, no friction, dense W", "dense", "double", 1,
               0);
    fused_pass("device Newton solve, exact Jacobian, no friction, W's block form", "blocks",
               "double", 2, 0);
    g_frictionless = 0;
    g_jacobian = "lagged";
  }
  if (p & P_XTOL) {
    g_jacobian = "exact";
    /* with cr_tolerance (dense: still a graph, GMRES's decisions read on the device;
       matrix-free: the host reads whether it goes on, each iteration) */
    g_frictionless = 1;
    g_tol = "1e-10";
    fused_pass("device Newton solve, exact Jacobian, no friction, dense W, cr_tolerance 1e-10",
               "dense", "double", 1, 0);
    fused_pass(
        "device Newton solve, exact Jacobian, no friction, W matrix-free, cr_tolerance 1e-10",
        "operator", "double", 2, 1);
    /* GMRES with the host reading whether a row starts away from 0 and, each iteration,
       whether it goes on (gpu/gmres_cuda.cu; until 2026-12-07 no test ran it:
       scripts/emu_coverage.sh) */
    reads_pass(
        "device Newton solve, exact Jacobian, no friction, W matrix-free, cr_tolerance "
        "1e-10, the host reading the decisions");
    g_tol = "0", g_frictionless = 0;
    /* with friction the exact Jacobian changes branch at the cone's edge and where a contact
       starts to slip, so a last-bit difference can send an intermediate Newton step another way:
       on this pass the CUDA backend's host GMRES (nsn.c itself, SIMCTL_CUDA_NSN=host, W's
       products on the device) differed from the CPU's by up to 7e-6 of q with cr_tolerance
       1e-10, and the device's by 1.2e-6 with none (2026-12-03, on the emulation); the later
       L-G iterations of a step come back together */
    g_qtol = g_ltol = 1e-4;
    fused_pass("device Newton solve, exact Jacobian, dense W", "dense", "double", 1, 0);
    g_qtol = 1e-12, g_ltol = 1e-9;
    g_jacobian = "lagged";
  }
  unsetenv("SIMCTL_CUDA_NSN");
  CHECK_INT(sim_mem_in_use(), 0);
  return check_summary("test_gpu_contact_ops");
}

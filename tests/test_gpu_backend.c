/* SPDX-License-Identifier: MIT */
/* Every operation of the CUDA backend against the CPU backend on random inputs (label gpu;
   SKIPPED without a CUDA device): predict, the local step's projections, duals, bending
   projections and right-hand side, the global step on a random right-hand side, integrate and
   the energy, for ARAP, co-rotational and Neo-Hookean tetrahedra, Neo-Hookean cloth with
   isometric bending and ARAP cloth with Laplace-Beltrami bending, with pinned vertices, and a
   model of three materials (an ARAP and a Neo-Hookean bar, a co-rotational cloth); a bar
   large enough for S's long rows (a thread block each), and the same with cuSPARSE's products
   and with S kept as its rows alone (SIMCTL_CUDA_S=rows: S^T y by a scatter; refused with
   cuSPARSE, and with contact unless W is built on the host), and the projections' kernel with
   its registers bounded (SIMCTL_CUDA_LOCAL_BLOCKS: the same bits as unbounded).
   Both backends use the same S (built on the host): in double the results agree to 1e-12
   relative (the Neo-Hookean cloth's local step and energy to 1e-11: log1p differs by 1-2 ulp
   between the device and glibc; the cloth's SVD has used only +, -, *, / and sqrt, which both
   round alike, since 2026-12-02, when it dropped atan2, sin and cos); with S in float the GPU
   agrees with the CPU's float S to 1e-12 and with double to 1e-6. A NaN fails every check but
   the local step's from a state with a NaN and an infinite coordinate, where both sides must
   give the same entries not finite (check_operations). The Laplace-Beltrami cloth runs again
   with stencils curved at rest (curve_rest), which no scene's flat cloth has.
   The timing spans (mark, settle) on both backends: time in the marked buckets only. */
#include "../core/base/alloc.h"
#include "../core/model/bending.h"
#include "gpu_pair.h"
#include "json_fmt.h"

/* gpu/global_step.cu: one of simctl's two products of S alone (simctl-bench-global's) */
int sim_cuda_S_product(sim_backend *be, int which, sim_status *st);

static sim_scene g_sc; /* large: off the stack */

/* Loads an inline scene (json_fmt.h) into g_sc. */
static int load_scene(const char *text) {
  return pair_load_scene(&g_sc, text, "test_gpu_backend.json");
}

/* A pinned bar of material `model` (tetrahedra), k x (4k + 1) x k vertices. */
static int bar_k(const char *model, int k) {
  return load_scene(
      json("{'name': 'bar_%s', 'solver': {'dt': 0.01, 'lg_iterations': 3},"
           " 'bodies': [{'name': 'bar', 'mesh': {'type': 'bar', 'lo': [-0.2, -1, -0.2],"
           " 'hi': [0.2, 1, 0.2], 'vertices': [%d, %d, %d]}, 'material': {'model': '%s',"
           " 'mass': 10, 'youngs_modulus': 1e6, 'poisson_ratio': 0.4}}],"
           " 'pins': [{'body': 0, 'box': [-1, 0.95, -1, 1, 1.1, 1]}]}",
           model, k, 4 * k + 1, k, model));
}

/* The 5 x 21 x 5 bar (500 free unknowns). */
static int bar(const char *model) { return bar_k(model, 5); }

/* A pinned cloth of material `model` with bending `bend`. */
static int cloth(const char *model, const char *bend) {
  return load_scene(
      json("{'name': 'cloth_%s_%s', 'solver': {'dt': 0.01, 'lg_iterations': 3},"
           " 'bodies': [{'name': 'cloth', 'mesh': {'type': 'cloth', 'size': [1, 1],"
           " 'vertices': [21, 21], 'pattern': 'cross'}, 'material': {'model': '%s',"
           " 'mass': 1, 'thickness': 0.01, 'youngs_modulus': 1e5, 'poisson_ratio': 0.4},"
           " 'bending': {'type': '%s', 'stiffness': 0.01}}],"
           " 'pins': [{'body': 0, 'box': [0.45, -1, -1, 1, 1, 1]}]}",
           model, bend, model, bend));
}

/* Three materials in one model: an ARAP bar, a Neo-Hookean bar and a co-rotational cloth with
   Laplace-Beltrami bending, each pinned at one end, so that the projections' kernels meet ARAP
   elements among those that take the singular-value solve (local_elem.h's ARAP branches, which
   a model of ARAP alone skips for its own kernel) and each element its own body's material. */
static int mixed(void) {
  return load_scene(
      json("{'name': 'mixed', 'solver': {'dt': 0.01, 'lg_iterations': 3}, 'bodies': ["
           "{'name': 'arap', 'mesh': {'type': 'bar', 'lo': [-0.2, -1, -0.2], 'hi': [0.2, 1, 0.2],"
           " 'vertices': [4, 13, 4]}, 'material': {'model': 'arap', 'mass': 10,"
           " 'youngs_modulus': 1e6, 'poisson_ratio': 0.4}},"
           "{'name': 'nh', 'mesh': {'type': 'bar', 'lo': [-0.2, -1, -0.2], 'hi': [0.2, 1, 0.2],"
           " 'vertices': [4, 13, 4]}, 'transform': {'translate': [1, 0, 0]}, 'material': {"
           "'model': 'neo_hookean', 'mass': 10, 'youngs_modulus': 2e6, 'poisson_ratio': 0.3}},"
           "{'name': 'cloth', 'mesh': {'type': 'cloth', 'size': [1, 1], 'vertices': [9, 9]},"
           " 'transform': {'translate': [0, 0, 2]}, 'material': {'model': 'corotational',"
           " 'mass': 1, 'thickness': 0.01, 'youngs_modulus': 1e5, 'poisson_ratio': 0.3},"
           " 'bending': {'type': 'laplace_beltrami', 'stiffness': 0.01}}],"
           " 'pins': [{'body': 0, 'box': [-1, 0.95, -1, 1, 1.1, 1]},"
           " {'body': 1, 'box': [0, 0.95, -1, 2, 1.1, 1]},"
           " {'body': 2, 'box': [0.45, -1, 1, 1, 1, 3]}]}"));
}

/* Laplace-Beltrami stencils curved at rest, which no scene gives (a cloth is flat at rest, so
   every stencil's r_s is 0 and its projection is 0): r_s = 1 + (s mod 5) / 4 per metre on two
   stencils of three, so that the bending projection's sphere (bending.h sim_bending_project)
   runs on the device; check_operations' model edit where set. */
static void curve_rest(sim_model *m) {
  for (int s = 0; s < m->bend->nst; s++)
    if (m->bend->rest[s] >= 0.0) m->bend->rest[s] = s % 3 ? 1.0 + 0.25 * (s % 5) : 0.0;
}
static void (*g_edit)(sim_model *m);

/* A buffer of both backends where some entries may not be finite: the same entries finite on
   both, at least one finite and, with `some`, at least one not, and the finite ones within tol
   (relative to their largest), as pair_compare. An empty buffer (ARAP's duals) passes. */
static void pair_compare_nonfinite(gpu_pair *g, sim_buf_id id, int some, double tol,
                                   const char *what) {
  sim_status st = {0};
  size_t n = sim_buffer_len(&g->m, id), bad = 0, nonfinite = 0;
  if (n == 0) return;
  double *a = SIM_NEW(double, n + 1), *b = SIM_NEW(double, n + 1), d = 0.0, s = 0.0;
  CHECK_INT(g->gpu->read_buffer(g->gpu, id, a, &st), SIM_OK);
  CHECK_INT(g->cpu->read_buffer(g->cpu, id, b, &st), SIM_OK);
  for (size_t i = 0; i < n; i++) {
    if (isfinite(a[i]) != isfinite(b[i])) bad++;
    if (!isfinite(b[i])) {
      nonfinite++;
      continue;
    }
    if (isfinite(a[i])) d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  d = s > 0.0 ? d / s : d;
  printf("  %-28s %-16s n %8zu  not finite %zu, on one side only %zu, rel diff %.2e\n",
         g->m.scene->name, what, n, nonfinite, bad, d);
  check_report(bad == 0 && nonfinite >= (size_t)(some != 0) && nonfinite < n && d <= tol, __FILE__,
               __LINE__,
               "%s %s: %zu of %zu not finite (%s n), %zu on one side only (0), rel diff %.3g <= %g",
               g->m.scene->name, what, nonfinite, n, some ? "0 < it <" : "<", bad, d, tol);
  sim_free(a);
  sim_free(b);
}

/* One operation on both backends. */
#define BOTH(g, op, ...)                                         \
  do {                                                           \
    sim_status st_ = {0};                                        \
    CHECK_INT((g)->cpu->op((g)->cpu, __VA_ARGS__ &st_), SIM_OK); \
    CHECK_INT((g)->gpu->op((g)->gpu, __VA_ARGS__ &st_), SIM_OK); \
  } while (0)

/* Every operation in the order of a frame, each from the same inputs on both backends. */
static void check_operations(sim_precision p, double tol_local, double tol) {
  gpu_pair g;
  sim_backend_opts o = {
      .global = SIM_GLOBAL_SPARSE_INVERSE, .precision = p, .ordering = SIM_ORDER_METIS};
  if (gpu_pair_open_edited(&g, &g_sc, &o, g_edit)) return;
  unsigned long long seed = 12345;
  double grav[3] = {0.3, -9.81, 0.1};
  random_state(&g, &seed);
  BOTH(&g, predict, grav, );
  pair_compare(&g, 0, SIM_VEC_QTILDE, 0.0, "predict q~");
  pair_compare(&g, 0, SIM_VEC_Q, 0.0, "predict q");
  random_state(&g, &seed);         /* a deformed q for the local step */
  for (int it = 0; it < 2; it++) { /* the second pass starts from the first's ADMM duals */
    BOTH(&g, local_step, );
    pair_compare(&g, 1, SIM_BUF_PROJ, tol_local, "proj");
    pair_compare(&g, 1, SIM_BUF_DUAL, tol_local, "duals");
    pair_compare(&g, 1, SIM_BUF_BEND, tol_local, "bending");
    pair_compare(&g, 1, SIM_BUF_RHS, tol_local, "rhs");
  }
  /* Degenerate elements, with zero duals, which no GPU test reached until 2026-12-07
     (scripts/emu_coverage.sh): every element turned inside out through the origin and
     stretched (q = -2.5 x_rest: a free tetrahedron's F = -2.5 I), where the Neo-Hookean ADMM-PD
     singular-value solve reaches the symmetric saddle s = (a, a, -a) and leaves it along a
     direction of negative curvature (material.h sim_admm_sv; at this bar's Poisson ratio, 0.4,
     from -2 I on, not from -I); then every vertex at the origin (F = 0), whose SVDs take their
     rank-deficient branches (svd3.h, material.h's thin SVD of a cloth triangle). Then a
     deformed state with a NaN coordinate at one vertex and an infinite one at another, as a
     run that has blown up hands the local step: the step must end on both sides (the SVD's
     and the ADMM-PD solve's tests stop on NaN) with the same entries not finite, those of the
     elements and stencils on the two vertices, and the others as from finite inputs. */
  for (int state = 0; state < 3; state++) {
    static const char *const what[3][3] = {
        {"inverted proj", "inverted duals", "inverted bending"},
        {"collapsed proj", "collapsed duals", "collapsed bending"},
        {"non-finite proj", "non-finite duals", "non-finite bending"}};
    const size_t n3 = 3 * (size_t)g.m.n, nd = sim_buffer_len(&g.m, SIM_BUF_DUAL);
    double *x = SIM_NEW(double, n3 + 1), *u = SIM_NEW0(double, nd + 1);
    for (size_t i = 0; i < n3; i++)
      x[i] = state == 0   ? -2.5 * g.m.x_rest[i]
             : state == 1 ? 0.0
                          : g.m.x_rest[i] + 0.05 * rnd(&seed);
    if (state == 2) {
      x[3 * (size_t)(g.m.n / 3)] = NAN;
      x[3 * (size_t)(2 * g.m.n / 3) + 1] = INFINITY;
    }
    upload_both(&g, SIM_VEC_Q, x);
    sim_status su = {0};
    CHECK_INT(g.cpu->write_buffer(g.cpu, SIM_BUF_DUAL, u, &su), SIM_OK);
    CHECK_INT(g.gpu->write_buffer(g.gpu, SIM_BUF_DUAL, u, &su), SIM_OK);
    BOTH(&g, local_step, );
    const int nbend = g.m.bend && g.m.bend->nst > 0;
    if (state < 2) {
      pair_compare(&g, 1, SIM_BUF_PROJ, tol_local, what[state][0]);
      pair_compare(&g, 1, SIM_BUF_DUAL, tol_local, what[state][1]);
      if (nbend) pair_compare(&g, 1, SIM_BUF_BEND, tol_local, what[state][2]);
    } else {
      /* ARAP's rotation of a non-finite F is finite: the SVD's unit columns fall back to
         axes where their norms are NaN (svd3.h), and ARAP has no duals */
      const int arap = strstr(g.m.scene->name, "arap") != NULL;
      pair_compare_nonfinite(&g, SIM_BUF_PROJ, !arap, tol_local, what[state][0]);
      pair_compare_nonfinite(&g, SIM_BUF_DUAL, !arap, tol_local, what[state][1]);
      /* a bending projection is 0 but where the stencil is curved at rest and meets the
         infinite coordinate (a NaN makes |L_s q| NaN, which projects on 0) */
      if (nbend) pair_compare_nonfinite(&g, SIM_BUF_BEND, 0, tol_local, what[state][2]);
    }
    sim_free(x);
    sim_free(u);
  }
  random_state(&g, &seed); /* finite again: a pinned vertex's q is the global step's too */
  /* the global step on a random right-hand side */
  size_t nr = sim_buffer_len(&g.m, SIM_BUF_RHS);
  double *b = SIM_NEW(double, nr + 1);
  for (size_t i = 0; i < nr; i++) b[i] = rnd(&seed);
  sim_status st = {0};
  CHECK_INT(g.cpu->write_buffer(g.cpu, SIM_BUF_RHS, b, &st), SIM_OK);
  CHECK_INT(g.gpu->write_buffer(g.gpu, SIM_BUF_RHS, b, &st), SIM_OK);
  BOTH(&g, global_step, );
  pair_compare(&g, 0, SIM_VEC_Q, tol, "global q");
  BOTH(&g, integrate, );
  pair_compare(&g, 0, SIM_VEC_V, tol, "integrate v");
  pair_compare(&g, 0, SIM_VEC_QT, tol, "integrate qt");
  /* energy at the (perturbed) state with q~ away from q (the inertia term), and the
     per-element densities */
  random_state(&g, &seed);
  size_t n3 = 3 * (size_t)g.m.n;
  double *xh = SIM_NEW(double, n3);
  for (size_t i = 0; i < n3; i++) xh[i] = g.m.x_rest[i] + 0.05 * rnd(&seed);
  upload_both(&g, SIM_VEC_QTILDE, xh);
  sim_free(xh);
  double *ea = SIM_NEW(double, g.m.nelem + 1), *eb = SIM_NEW(double, g.m.nelem + 1);
  double Ea = g.gpu->energy(g.gpu, ea), Eb = g.cpu->energy(g.cpu, eb);
  double de = fabs(Ea - Eb) / fmax(fabs(Eb), 1e-300), dd = rel_diff(ea, eb, g.m.nelem);
  printf("  %-28s energy     %.6e vs %.6e  rel diff %.2e, densities %.2e\n", g.m.scene->name, Ea,
         Eb, de, dd);
  check_report(de <= tol_local && dd <= tol_local, __FILE__, __LINE__,
               "%s energy: %.3g, %.3g <= %g", g.m.scene->name, de, dd, tol_local);
  sim_free(ea);
  sim_free(eb);
  sim_free(b);
  gpu_pair_close(&g);
}

/* The timing spans of one backend: two local-step spans and a global-step span, then settle:
   time in those buckets only, all of it forgotten by the next settle. */
static void check_spans_of(sim_backend *be) {
  sim_status st = {0};
  for (int k = 0; k < 2; k++) {
    CHECK_INT(be->mark(be, SIM_SPAN_LOCAL, 0, &st), SIM_OK);
    CHECK_INT(be->local_step(be, &st), SIM_OK);
    CHECK_INT(be->mark(be, SIM_SPAN_LOCAL, 1, &st), SIM_OK);
  }
  CHECK_INT(be->mark(be, SIM_SPAN_GLOBAL, 0, &st), SIM_OK);
  CHECK_INT(be->global_step(be, &st), SIM_OK);
  CHECK_INT(be->mark(be, SIM_SPAN_GLOBAL, 1, &st), SIM_OK);
  double ms[SIM_SPAN_COUNT] = {0}, again[SIM_SPAN_COUNT] = {0};
  CHECK_INT(be->settle(be, ms, &st), SIM_OK);
  CHECK_INT(be->settle(be, again, &st), SIM_OK);
  printf("  spans on %-4s: local %.3f ms, global %.3f ms\n", be->name, ms[SIM_SPAN_LOCAL],
         ms[SIM_SPAN_GLOBAL]);
  check_report(ms[SIM_SPAN_LOCAL] > 0 && ms[SIM_SPAN_GLOBAL] > 0 && ms[SIM_SPAN_LOCAL] < 1e4 &&
                   ms[SIM_SPAN_GLOBAL] < 1e4,
               __FILE__, __LINE__, "%s spans: local %g, global %g ms in (0, 1e4)", be->name,
               ms[SIM_SPAN_LOCAL], ms[SIM_SPAN_GLOBAL]);
  check_report(ms[SIM_SPAN_PREDICT] == 0 && ms[SIM_SPAN_INTEGRATE] == 0, __FILE__, __LINE__,
               "%s spans: nothing in the buckets never marked", be->name);
  for (int b = 0; b < SIM_SPAN_COUNT; b++)
    check_report(again[b] == 0, __FILE__, __LINE__, "%s spans: a second settle adds nothing",
                 be->name);
  CHECK_INT(be->mark(be, SIM_SPAN_COUNT, 0, &st), SIM_ERR_USAGE);
}

/* Spans on both backends; the queued work's results, read after them, still agree. */
static void check_spans(void) {
  gpu_pair g;
  if (bar("neo_hookean") || gpu_pair_open(&g, &g_sc, SIM_PREC_DOUBLE)) return;
  unsigned long long seed = 99;
  random_state(&g, &seed);
  check_spans_of(g.cpu);
  check_spans_of(g.gpu);
  pair_compare(&g, 0, SIM_VEC_Q, 1e-12, "q after the spans");
  gpu_pair_close(&g);
}

/* S in float: the GPU against the CPU's float S, and against double, on one global step. */
static void check_float(void) {
  gpu_pair f, d;
  if (bar("arap") || gpu_pair_open(&f, &g_sc, SIM_PREC_FLOAT)) return;
  if (gpu_pair_open(&d, &g_sc, SIM_PREC_DOUBLE)) {
    gpu_pair_close(&f);
    return;
  }
  unsigned long long seed = 777;
  size_t nr = sim_buffer_len(&f.m, SIM_BUF_RHS), n3 = 3 * (size_t)f.m.n;
  double *b = SIM_NEW(double, nr + 1), *qf = SIM_NEW(double, n3), *qd = SIM_NEW(double, n3);
  for (size_t i = 0; i < nr; i++) b[i] = rnd(&seed);
  sim_status st = {0};
  CHECK_INT(f.gpu->write_buffer(f.gpu, SIM_BUF_RHS, b, &st), SIM_OK);
  CHECK_INT(d.cpu->write_buffer(d.cpu, SIM_BUF_RHS, b, &st), SIM_OK);
  CHECK_INT(f.gpu->global_step(f.gpu, &st), SIM_OK);
  CHECK_INT(d.cpu->global_step(d.cpu, &st), SIM_OK);
  CHECK_INT(f.gpu->download(f.gpu, SIM_VEC_Q, qf, &st), SIM_OK);
  CHECK_INT(d.cpu->download(d.cpu, SIM_VEC_Q, qd, &st), SIM_OK);
  double r = rel_diff(qf, qd, n3);
  printf("  S in float on the GPU against double on the CPU: rel diff %.2e\n", r);
  check_report(r <= 1e-6, __FILE__, __LINE__, "float S: rel diff %.3g <= 1e-6", r);
  sim_free(b);
  sim_free(qf);
  sim_free(qd);
  gpu_pair_close(&d);
  gpu_pair_close(&f);
}

/* Global steps on the GPU from right-hand sides b, b2, then b again: the third gives the first's
   bits (with S's rows alone, whose scatter adds in the atomics' order, within 1e-14), and the
   second agrees with the CPU's from b2 (each split row's counter was set back to 0 by the block
   that finished it, or a later step's split rows are never written); and the row gather's layout
   is the one asked for: rows split over several blocks, or (want_split 0) none, and col_warps
   warps a column in S^T y, or with col_auto each column its own, col_warps the most any takes
   (none with S's rows alone). */
static void check_repeat(int want_split, int col_warps, int col_auto) {
  const char *layout = getenv("SIMCTL_CUDA_S");
  const int scatter = layout && !strcmp(layout, "rows");
  gpu_pair g;
  if (gpu_pair_open(&g, &g_sc, SIM_PREC_DOUBLE)) return;
  sim_global_stats gs;
  memset(&gs, 0, sizeof gs);
  g.gpu->global_stats(g.gpu, &gs);
  printf(
      "  row gather: %d blocks for long rows' chunks, %d rows split over several; column "
      "gather: %s%d warps a column\n",
      gs.S_chunks, gs.S_split_rows, gs.S_col_auto ? "each its own, at most " : "", gs.S_col_warps);
  check_report(
      want_split ? gs.S_split_rows > 0 && gs.S_chunks > gs.S_split_rows : gs.S_split_rows == 0,
      __FILE__, __LINE__, "row gather: %d split rows (%s)", gs.S_split_rows,
      want_split ? "some expected" : "none expected");
  check_report(gs.S_col_warps == (scatter ? 0 : col_warps), __FILE__, __LINE__,
               "column gather: %d warps a column (%d expected)", gs.S_col_warps,
               scatter ? 0 : col_warps);
  check_report(gs.S_col_auto == (scatter ? 0 : col_auto), __FILE__, __LINE__,
               "column gather: %s (%s expected)", gs.S_col_auto ? "auto" : "fixed",
               !scatter && col_auto ? "auto" : "fixed");
  unsigned long long seed = 4242;
  size_t nr = sim_buffer_len(&g.m, SIM_BUF_RHS), n3 = 3 * (size_t)g.m.n;
  double *b[2], *q[3];
  for (int k = 0; k < 2; k++) {
    b[k] = SIM_NEW(double, nr + 1);
    for (size_t i = 0; i < nr; i++) b[k][i] = rnd(&seed);
  }
  for (int k = 0; k < 3; k++) q[k] = SIM_NEW(double, n3);
  sim_status st = {0};
  for (int k = 0; k < 3; k++) {
    CHECK_INT(g.gpu->write_buffer(g.gpu, SIM_BUF_RHS, b[k == 1], &st), SIM_OK);
    CHECK_INT(g.gpu->global_step(g.gpu, &st), SIM_OK);
    CHECK_INT(g.gpu->download(g.gpu, SIM_VEC_Q, q[k], &st), SIM_OK);
  }
  double r = rel_diff(q[0], q[2], n3);
  check_report(scatter ? r <= 1e-14 : !memcmp(q[0], q[2], sizeof(double) * n3), __FILE__, __LINE__,
               "the same right-hand side twice: %s (rel diff %.3g)",
               scatter ? "within 1e-14" : "the same bits", r);
  CHECK_INT(g.cpu->write_buffer(g.cpu, SIM_BUF_RHS, b[1], &st), SIM_OK);
  CHECK_INT(g.cpu->global_step(g.cpu, &st), SIM_OK);
  CHECK_INT(g.cpu->download(g.cpu, SIM_VEC_Q, q[2], &st), SIM_OK);
  r = rel_diff(q[1], q[2], n3);
  printf("  the second global step against the CPU's: rel diff %.2e\n", r);
  check_report(r <= 1e-12, __FILE__, __LINE__, "the second global step: rel diff %.3g <= 1e-12", r);
  for (int k = 0; k < 2; k++) sim_free(b[k]);
  for (int k = 0; k < 3; k++) sim_free(q[k]);
  gpu_pair_close(&g);
}

/* The global step's other layouts of the same sums against the default: the gathers with their
   loads issued 4 and 8 entries at a time (SIMCTL_CUDA_GATHER_BATCH, in the kernels whose
   registers are bounded for it), S's rows read as intervals of P b (SIMCTL_CUDA_S_ROWS=interval),
   its columns as runs of rows (SIMCTL_CUDA_S_COLS=runs), both, and both with 4 and 8 entries'
   loads at a time, and what SIMCTL_CUDA_TUNE keeps of them, alone and with the batch set
   (`all` 0: those marked quick alone): the same bits, the adds being in the same
   order, in the caller's layout (the default: a lane's share of a row or a column up to 16
   entries, so that both the batches and the remainder run; rows split in chunks of 64 and
   columns of up to 8 warps; or, on the 4,000-unknown bar, runs long enough for the runs'
   batches), in double or (prec) with S in float, and the caller's within 1e-12 of the CPU's
   (whose S is in the same precision, its products accumulated in double). */
static void check_index_layouts(int all, sim_precision prec) {
  static const struct {
    int quick;
    const char *env[3][2];
  } var[] = {
      {1, {{NULL, NULL}}},
      {0, {{"SIMCTL_CUDA_GATHER_BATCH", "4"}}},
      {1, {{"SIMCTL_CUDA_GATHER_BATCH", "8"}}},
      {0, {{"SIMCTL_CUDA_S_ROWS", "interval"}}},
      {0, {{"SIMCTL_CUDA_S_COLS", "runs"}}},
      {1, {{"SIMCTL_CUDA_S_ROWS", "interval"}, {"SIMCTL_CUDA_S_COLS", "runs"}}},
      {1,
       {{"SIMCTL_CUDA_S_ROWS", "interval"},
        {"SIMCTL_CUDA_S_COLS", "runs"},
        {"SIMCTL_CUDA_GATHER_BATCH", "4"}}},
      {1,
       {{"SIMCTL_CUDA_S_ROWS", "interval"},
        {"SIMCTL_CUDA_S_COLS", "runs"},
        {"SIMCTL_CUDA_GATHER_BATCH", "8"}}},
      {1, {{"SIMCTL_CUDA_TUNE", "on"}}}, /* whichever it keeps */
      {0, {{"SIMCTL_CUDA_TUNE", "on"}, {"SIMCTL_CUDA_GATHER_BATCH", "4"}}},
  };
  enum { NV = sizeof var / sizeof var[0], NE = 3 };
  double *q0 = NULL, *b = NULL;
  size_t n3 = 0;
  for (int k = 0; k < NV; k++) {
    if (!all && !var[k].quick) continue;
    for (int e = 0; e < NE; e++)
      if (var[k].env[e][0]) setenv(var[k].env[e][0], var[k].env[e][1], 1);
    gpu_pair g;
    int rc = gpu_pair_open(&g, &g_sc, prec);
    for (int e = 0; e < NE; e++)
      if (var[k].env[e][0]) unsetenv(var[k].env[e][0]);
    if (rc) break;
    sim_status st = {0};
    size_t nr = sim_buffer_len(&g.m, SIM_BUF_RHS);
    n3 = 3 * (size_t)g.m.n;
    if (!b) {
      unsigned long long seed = 777;
      b = SIM_NEW(double, nr + 1);
      for (size_t i = 0; i < nr; i++) b[i] = rnd(&seed);
    }
    double *q = SIM_NEW(double, n3), *qp = SIM_NEW(double, n3);
    CHECK_INT(g.gpu->write_buffer(g.gpu, SIM_BUF_RHS, b, &st), SIM_OK);
    CHECK_INT(g.gpu->global_step(g.gpu, &st), SIM_OK);
    CHECK_INT(g.gpu->download(g.gpu, SIM_VEC_Q, q, &st), SIM_OK);
    /* the two products alone, as simctl-bench-global times them: the step's bits on the free
       vertices (q's rows overwritten first), the pinned ones left as they were */
    for (size_t i = 0; i < n3; i++) qp[i] = -7.0;
    CHECK_INT(g.gpu->upload(g.gpu, SIM_VEC_Q, qp, &st), SIM_OK);
    CHECK_INT(sim_cuda_S_product(g.gpu, 1, &st), SIM_OK);
    CHECK_INT(sim_cuda_S_product(g.gpu, 2, &st), SIM_OK);
    CHECK_INT(g.gpu->download(g.gpu, SIM_VEC_Q, qp, &st), SIM_OK);
    long parts = 0;
    for (size_t i = 0; i < n3; i++)
      parts += g.m.free_of[i / 3] >= 0 ? memcmp(&q[i], &qp[i], sizeof(double)) != 0 : qp[i] != -7.0;
    check_report(parts == 0, __FILE__, __LINE__,
                 "layout %d: the products alone give the step's bits (%ld of %zu differ)", k, parts,
                 n3);
    sim_free(qp);
    if (k == 0) { /* the CPU's, for the default */
      double *c = SIM_NEW(double, n3);
      CHECK_INT(g.cpu->write_buffer(g.cpu, SIM_BUF_RHS, b, &st), SIM_OK);
      CHECK_INT(g.cpu->global_step(g.cpu, &st), SIM_OK);
      CHECK_INT(g.cpu->download(g.cpu, SIM_VEC_Q, c, &st), SIM_OK);
      double r = rel_diff(q, c, n3);
      check_report(r <= 1e-12, __FILE__, __LINE__, "default layout: rel diff %.3g <= 1e-12", r);
      sim_free(c);
      q0 = q;
    } else {
      long differ = 0;
      for (size_t i = 0; i < n3; i++) differ += memcmp(&q[i], &q0[i], sizeof(double)) != 0;
      char what[240];
      snprintf(what, sizeof what, "%s=%s", var[k].env[0][0], var[k].env[0][1]);
      for (int e = 1; e < NE; e++)
        if (var[k].env[e][0])
          snprintf(what + strlen(what), sizeof what - strlen(what), " %s=%s", var[k].env[e][0],
                   var[k].env[e][1]);
      printf("  %s: %ld of %zu values differ from the default's\n", what, differ, n3);
      check_report(differ == 0, __FILE__, __LINE__, "%s: the same bits", what);
      sim_free(q);
    }
    gpu_pair_close(&g);
  }
  sim_free(q0);
  sim_free(b);
}

/* A backend refused in one line naming `name`, with `name`=`value` set. */
static void check_env_refused_saying(const char *name, const char *value, const char *says) {
  setenv(name, value, 1);
  sim_status st = {0};
  sim_model m;
  memset(&m, 0, sizeof m);
  sim_backend *be = NULL;
  sim_backend_opts o = {.global = SIM_GLOBAL_SPARSE_INVERSE, .ordering = SIM_ORDER_METIS};
  int rc = bar("arap") ? SIM_ERR_USAGE + 1 : sim_model_build(&g_sc, NULL, &m, &st);
  if (!rc) rc = sim_backend_cuda_create(&m, &o, &be, &st);
  printf("  refused: %s\n", st.msg);
  check_report(rc == SIM_ERR_USAGE && !be && strstr(st.msg, name) && !strchr(st.msg, '\n') &&
                   (!says || strstr(st.msg, says)),
               __FILE__, __LINE__, "%s=%s refused in one line%s%s", name, value,
               says ? ", saying " : "", says ? says : "");
  if (be) be->destroy(be);
  sim_model_free(&m);
  unsetenv(name);
}
static void check_env_refused(const char *name, const char *value) {
  check_env_refused_saying(name, value, NULL);
}

/* The CUDA backend alone on g_sc (the sparse inverse in double), its global stats in *gs; NULL
   where it was not made (said). */
static sim_backend *gpu_alone(sim_model *m, sim_global_stats *gs) {
  sim_status st = {0};
  sim_backend *be = NULL;
  sim_backend_opts o = {.global = SIM_GLOBAL_SPARSE_INVERSE, .ordering = SIM_ORDER_METIS};
  memset(m, 0, sizeof *m);
  memset(gs, 0, sizeof *gs);
  int rc = sim_model_build(&g_sc, NULL, m, &st);
  if (!rc) rc = sim_backend_cuda_create(m, &o, &be, &st);
  if (rc) fprintf(stderr, "gpu_alone (%s): %s\n", g_sc.name, st.msg);
  CHECK_INT(rc, SIM_OK);
  if (be) be->global_stats(be, gs);
  return be;
}

static void gpu_alone_close(sim_backend *be, sim_model *m) {
  if (be) be->destroy(be);
  sim_model_free(m);
}

/* SIMCTL_CUDA_TUNE=on (gpu/global_tune.cu) on the 4,000-unknown bar, whose columns have few
   enough runs for every variant: 12 variants timed, 6 a product, each in a positive time; each
   product's kept variant its fastest, and the layouts and batches the backend reports those;
   the device memory and S's resident bytes those of a backend made with the kept layouts set
   (the arrays of the layouts not kept freed, and off the count); a dimension set in the
   environment left as set (rows as intervals, a batch of 4: one variant of the rows, two of
   the columns); refused beside cuSPARSE's products and S's rows alone, and on a value other
   than off and on. (Its bits: check_index_layouts.) */
static void check_tune(void) {
  if (bar_k("arap", 10)) return;
  sim_model m, m2;
  sim_global_stats gs, gs2;
  setenv("SIMCTL_CUDA_TUNE", "on", 1);
  sim_backend *be = gpu_alone(&m, &gs);
  unsetenv("SIMCTL_CUDA_TUNE");
  const sim_gather_tuning *t = &gs.S_tuning;
  if (be) {
    CHECK(t->on && t->n == 12 && gs.S_gathers);
    int fastest[2] = {-1, -1}, per[2] = {0, 0};
    long bad = 0;
    for (int i = 0; i < t->n && i < SIM_GATHER_VARIANTS; i++) {
      const sim_gather_variant *v = &t->v[i];
      const int p = v->product;
      bad += !(v->us > 0.0 && isfinite(v->us)) || p < 0 || p > 1;
      if (p < 0 || p > 1) continue;
      per[p]++;
      if (fastest[p] < 0 || v->us < t->v[fastest[p]].us) fastest[p] = i;
      printf("  tuned: %s %s, batch %d: %.1f us%s\n", sim_gather_product_name(v),
             sim_gather_layout_name(v), v->batch, v->us, i == t->pick[p] ? " (kept)" : "");
    }
    check_report(bad == 0 && per[0] == 6 && per[1] == 6, __FILE__, __LINE__,
                 "6 variants of each product timed, each in a positive time (%ld not)", bad);
    check_report(
        fastest[0] >= 0 && fastest[1] >= 0 && t->pick[0] == fastest[0] && t->pick[1] == fastest[1],
        __FILE__, __LINE__, "each product's fastest kept (%d %d against %d %d)", t->pick[0],
        t->pick[1], fastest[0], fastest[1]);
    if (fastest[0] >= 0 && fastest[1] >= 0) {
      const sim_gather_variant *r = &t->v[fastest[0]], *c = &t->v[fastest[1]];
      CHECK(gs.S_row_interval == r->layout && gs.S_row_batch == r->batch &&
            gs.S_col_runs == c->layout && gs.S_col_batch == c->batch);
      setenv("SIMCTL_CUDA_S_ROWS", r->layout ? "interval" : "indexed", 1);
      setenv("SIMCTL_CUDA_S_COLS", c->layout ? "runs" : "indexed", 1);
      sim_backend *be2 = gpu_alone(&m2, &gs2);
      unsetenv("SIMCTL_CUDA_S_ROWS");
      unsetenv("SIMCTL_CUDA_S_COLS");
      check_report(be2 && gs2.device_bytes == gs.device_bytes && gs2.S_resident == gs.S_resident &&
                       !gs2.S_tuning.on,
                   __FILE__, __LINE__,
                   "tuned: %zu bytes on the device, %zu of S; the kept layouts set: %zu, %zu",
                   gs.device_bytes, gs.S_resident, gs2.device_bytes, gs2.S_resident);
      gpu_alone_close(be2, &m2);
    }
  }
  gpu_alone_close(be, &m);
  setenv("SIMCTL_CUDA_TUNE", "on", 1);
  setenv("SIMCTL_CUDA_S_ROWS", "interval", 1);
  setenv("SIMCTL_CUDA_GATHER_BATCH", "4", 1);
  be = gpu_alone(&m, &gs);
  unsetenv("SIMCTL_CUDA_S_ROWS");
  unsetenv("SIMCTL_CUDA_GATHER_BATCH");
  if (be) {
    int rows = 0, cols = 0;
    for (int i = 0; i < t->n && i < SIM_GATHER_VARIANTS; i++) {
      rows += t->v[i].product == 0 && t->v[i].layout == 1 && t->v[i].batch == 4;
      cols += t->v[i].product == 1 && t->v[i].batch == 4;
    }
    check_report(t->n == 3 && rows == 1 && cols == 2 && gs.S_row_interval == 1 &&
                     gs.S_row_batch == 4 && gs.S_col_batch == 4,
                 __FILE__, __LINE__,
                 "rows as intervals and the batch of 4 set: %d variants timed, %d of the rows",
                 t->n, rows);
  }
  gpu_alone_close(be, &m);
  setenv("SIMCTL_CUDA_SPMV", "cusparse", 1);
  check_env_refused_saying("SIMCTL_CUDA_TUNE", "on", "SIMCTL_CUDA_SPMV=cusparse");
  unsetenv("SIMCTL_CUDA_SPMV");
  setenv("SIMCTL_CUDA_S", "rows", 1);
  check_env_refused_saying("SIMCTL_CUDA_TUNE", "on", "SIMCTL_CUDA_S=rows");
  unsetenv("SIMCTL_CUDA_S");
  check_env_refused("SIMCTL_CUDA_TUNE", "yes");
}

/* q after the global step from the random right-hand side b (nr values) on a CUDA backend made
   with opts o (the caller's to free; NULL where the backend was not made). */
static double *step_with(sim_model *m, const sim_backend_opts *o, const double *b) {
  sim_status st = {0};
  sim_backend *be = NULL;
  double *q = NULL;
  CHECK_INT(sim_backend_cuda_create(m, o, &be, &st), SIM_OK);
  if (!be) return NULL;
  q = SIM_NEW(double, 3 * (size_t)m->n + 1);
  CHECK_INT(be->write_buffer(be, SIM_BUF_RHS, b, &st), SIM_OK);
  CHECK_INT(be->global_step(be, &st), SIM_OK);
  CHECK_INT(be->download(be, SIM_VEC_Q, q, &st), SIM_OK);
  be->destroy(be);
  return q;
}

/* simctl-bench-global's store of the factor and S (sim_S_cache): backends made one after another
   with it, in double, float, double again and tuned (SIMCTL_CUDA_TUNE=on, which uploads both
   layouts from it and frees one on the device, not the cache's), give the bits of backends that
   built their own; the factor and each precision's S built once, by the first that needed it,
   and still the cache's after the others (the same arrays). */
static void check_S_cache(void) {
  if (bar("arap")) return;
  sim_model m;
  sim_status st = {0};
  memset(&m, 0, sizeof m);
  CHECK_INT(sim_model_build(&g_sc, NULL, &m, &st), SIM_OK);
  size_t nr = sim_buffer_len(&m, SIM_BUF_RHS), n3 = 3 * (size_t)m.n;
  double *b = SIM_NEW(double, nr + 1);
  unsigned long long seed = 4242;
  for (size_t i = 0; i < nr; i++) b[i] = rnd(&seed);
  sim_S_cache cache;
  memset(&cache, 0, sizeof cache);
  static const sim_precision prec[4] = {SIM_PREC_DOUBLE, SIM_PREC_FLOAT, SIM_PREC_DOUBLE,
                                        SIM_PREC_DOUBLE};
  const void *vals = NULL;
  for (int k = 0; k < 4; k++) {
    sim_backend_opts o = {
        .global = SIM_GLOBAL_SPARSE_INVERSE, .precision = prec[k], .ordering = SIM_ORDER_METIS};
    if (k == 3) setenv("SIMCTL_CUDA_TUNE", "on", 1);
    double *own = step_with(&m, &o, b);
    o.S_cache = &cache;
    double *kept = step_with(&m, &o, b);
    unsetenv("SIMCTL_CUDA_TUNE");
    long differ = 0;
    for (size_t i = 0; own && kept && i < n3; i++)
      differ += memcmp(&own[i], &kept[i], sizeof(double)) != 0;
    check_report(own && kept && differ == 0, __FILE__, __LINE__,
                 "backend %d (%s%s) with the cache: the bits of its own S (%ld of %zu differ)", k,
                 prec[k] == SIM_PREC_FLOAT ? "float" : "double", k == 3 ? ", tuned" : "", differ,
                 n3);
    if (k == 0) vals = cache.S[0].row_val;
    sim_free(own);
    sim_free(kept);
  }
  CHECK(cache.fac && cache.have[0] && cache.have[1] && cache.S[0].row_val == vals && vals &&
        cache.S[1].row_valf && cache.S[0].nnz == cache.S[1].nnz);
  sim_S_cache_free(&cache);
  CHECK(!cache.fac && !cache.have[0] && !cache.S[1].row_valf);
  sim_free(b);
  sim_model_free(&m);
}

/* The products' layouts on the device: long rows of S split over several blocks
   (SIMCTL_CUDA_ROW_CHUNK=64: a block per 64 entries, a warp for rows of 8 or fewer), S in both
   orientations with 4 warps a column in S^T y (SIMCTL_CUDA_COL_WARPS) and its rows alone (the
   scatter), then with each column its own warps (auto) for a lane's share of 64 / 256
   entries (one warp for columns of up to 8 entries, 8 warps for those of over 32: all four
   kinds of column at once, the root's of one entry among them), and with the long rows whole
   (SIMCTL_CUDA_ROW_SPLIT=off: none split, a warp a column); the default on the same bar
   splits nothing (its rows and columns hold at most 500 entries, 16 a thread at most), with a
   warp a column (the default: 1 for all). Values out of their range are refused in one line naming
   the switch. */
static void check_layouts(void) {
  if (!bar("arap")) check_repeat(0, 1, 0);
  setenv("SIMCTL_CUDA_ROW_CHUNK", "64", 1);
  setenv("SIMCTL_CUDA_COL_WARPS", "4", 1);
  for (int rows = 0; rows < 2; rows++) {
    if (rows) setenv("SIMCTL_CUDA_S", "rows", 1);
    if (!bar("arap")) {
      check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
      check_repeat(1, 4, 0);
    }
    unsetenv("SIMCTL_CUDA_S");
  }
  setenv("SIMCTL_CUDA_COL_WARPS", "auto", 1);
  if (!bar("arap")) {
    check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
    check_repeat(1, 8, 1);
    check_index_layouts(1, SIM_PREC_DOUBLE); /* split rows, columns of 8 warps */
  }
  /* the long rows whole, a block each (SIMCTL_CUDA_ROW_SPLIT=off): none split */
  setenv("SIMCTL_CUDA_ROW_SPLIT", "off", 1);
  setenv("SIMCTL_CUDA_COL_WARPS", "1", 1);
  if (!bar("arap")) {
    check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
    check_repeat(0, 1, 0);
  }
  unsetenv("SIMCTL_CUDA_ROW_SPLIT");
  unsetenv("SIMCTL_CUDA_ROW_CHUNK");
  unsetenv("SIMCTL_CUDA_COL_WARPS");
  if (!bar("arap")) check_index_layouts(1, SIM_PREC_DOUBLE); /* up to 16 entries a lane */
  setenv("SIMCTL_CUDA_COL_WARPS", "2", 1); /* the default rows, 2 warps a column */
  if (!bar("arap")) {
    check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
    check_repeat(0, 2, 0);
  }
  unsetenv("SIMCTL_CUDA_COL_WARPS");
  const char *bad_chunk[] = {"7", "64k", "-1"}, *bad_warps[] = {"3", "16", "Auto"},
             *bad_split[] = {"no", "1", "ON"}, *bad_batch[] = {"2", "16", "four"};
  for (int i = 0; i < 3; i++) {
    check_env_refused("SIMCTL_CUDA_ROW_CHUNK", bad_chunk[i]);
    check_env_refused("SIMCTL_CUDA_COL_WARPS", bad_warps[i]);
    check_env_refused("SIMCTL_CUDA_ROW_SPLIT", bad_split[i]);
    check_env_refused("SIMCTL_CUDA_GATHER_BATCH", bad_batch[i]);
  }
  check_env_refused("SIMCTL_CUDA_S_ROWS", "intervals");
  check_env_refused("SIMCTL_CUDA_S_COLS", "paths");
  /* a name that is no setting: refused, with the nearest where one is close */
  check_env_refused_saying("SIMCTL_CUDA_GATHER_BACTH", "8",
                           "did you mean SIMCTL_CUDA_GATHER_BATCH?");
  check_env_refused_saying("SIMCTL_CUDA_GATHER_WIDE", "on", "no such setting of the CUDA backend");
  check_env_refused_saying("SIMCTL_CUDA_", "on", "no such setting");
  /* the batches: simctl's own gathers alone */
  setenv("SIMCTL_CUDA_SPMV", "cusparse", 1);
  check_env_refused("SIMCTL_CUDA_GATHER_BATCH", "8");
  unsetenv("SIMCTL_CUDA_SPMV");
  /* the layouts without indices are simctl's gathers of both orientations alone */
  setenv("SIMCTL_CUDA_S", "rows", 1);
  check_env_refused("SIMCTL_CUDA_S_ROWS", "interval");
  unsetenv("SIMCTL_CUDA_S");
  setenv("SIMCTL_CUDA_SPMV", "cusparse", 1);
  check_env_refused("SIMCTL_CUDA_S_COLS", "runs");
  unsetenv("SIMCTL_CUDA_SPMV");
}

/* The CUDA backend's projections and duals after two local steps from a fixed random state,
   with the variable `name` set to `value` (NULL: none set), into out[k] (len[k] values, the
   caller's to free; NULL where the pair did not open). */
static void local_twice(const char *name, const char *value, double *out[2], size_t len[2]) {
  out[0] = out[1] = NULL;
  len[0] = len[1] = 0;
  if (name) setenv(name, value, 1);
  gpu_pair g;
  int rc = gpu_pair_open(&g, &g_sc, SIM_PREC_DOUBLE);
  if (name) unsetenv(name);
  if (rc) return;
  unsigned long long seed = 777;
  random_state(&g, &seed);
  sim_status st = {0};
  for (int it = 0; it < 2; it++) CHECK_INT(g.gpu->local_step(g.gpu, &st), SIM_OK);
  const sim_buf_id ids[2] = {SIM_BUF_PROJ, SIM_BUF_DUAL};
  for (int k = 0; k < 2; k++) {
    len[k] = sim_buffer_len(&g.m, ids[k]);
    out[k] = SIM_NEW(double, len[k] + 1);
    CHECK_INT(g.gpu->read_buffer(g.gpu, ids[k], out[k], &st), SIM_OK);
  }
  gpu_pair_close(&g);
}

/* The projections' kernel with its registers bounded (SIMCTL_CUDA_LOCAL_BLOCKS 2-4: spilled to
   local memory, the arithmetic unchanged), and the projections split in two kernels
   (SIMCTL_CUDA_LOCAL_SPLIT=on): against the CPU in check_operations' bounds, and the same bits
   as the one kernel unbounded (the defaults), on the tetrahedra of the two materials that take
   the singular-value solve, on the Neo-Hookean cloth and on the three materials in one model
   (mixed); other values refused in one line. */
static void check_local_blocks(void) {
  static const char *const name[] = {"SIMCTL_CUDA_LOCAL_BLOCKS", "SIMCTL_CUDA_LOCAL_BLOCKS",
                                     "SIMCTL_CUDA_LOCAL_BLOCKS", "SIMCTL_CUDA_LOCAL_SPLIT"};
  static const char *const value[] = {"2", "3", "4", "on"}, *const bad[] = {"0", "5", "2x"};
  for (int shape = 0; shape < 4; shape++) {
    int rc = shape == 3   ? mixed()
             : shape == 2 ? cloth("neo_hookean", "isometric")
                          : bar(shape ? "neo_hookean" : "corotational");
    if (rc) continue;
    double *ref[2], *got[2];
    size_t nr[2], ng[2];
    local_twice(NULL, NULL, ref, nr);
    for (int i = 0; i < 4; i++) {
      printf("%s=%s:\n", name[i], value[i]);
      setenv(name[i], value[i], 1);
      check_operations(SIM_PREC_DOUBLE, shape == 2 ? 1e-11 : 1e-12, 1e-12);
      unsetenv(name[i]);
      local_twice(name[i], value[i], got, ng);
      for (int k = 0; k < 2; k++) {
        int same = ref[k] && got[k] && nr[k] == ng[k] && nr[k] > 0 &&
                   !memcmp(ref[k], got[k], sizeof(double) * nr[k]);
        printf("  %-28s %-10s the same bits as the defaults': %s\n", g_sc.name,
               k ? "duals" : "proj", same ? "yes" : "no");
        check_report(same, __FILE__, __LINE__, "%s %s with %s=%s: the same bits as the defaults'",
                     g_sc.name, k ? "duals" : "proj", name[i], value[i]);
        sim_free(got[k]);
      }
    }
    for (int k = 0; k < 2; k++) sim_free(ref[k]);
  }
  for (int i = 0; i < 3; i++) check_env_refused("SIMCTL_CUDA_LOCAL_BLOCKS", bad[i]);
  check_env_refused("SIMCTL_CUDA_LOCAL_SPLIT", "yes");
}

/* SIMCTL_CUDA_S=rows (set by the caller) refused, one line each, with cuSPARSE's products and
   with contact while W is built on the device (which reads S's columns); taken with contact
   and SIMCTL_CUDA_DELASSUS=host. */
static void check_rows_refused(void) {
  static const struct {
    int floor; /* a plane under the box: contact */
    const char *env, *named;
  } cases[] = {{0, "SIMCTL_CUDA_SPMV=cusparse", "SIMCTL_CUDA_SPMV=kernel"},
               {1, NULL, "SIMCTL_CUDA_DELASSUS=host"},
               {1, "SIMCTL_CUDA_DELASSUS=host", NULL}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char env[64];
    snprintf(env, sizeof env, "%s", cases[i].env ? cases[i].env : "X=");
    char *eq = strchr(env, '=');
    *eq = '\0';
    if (cases[i].env) setenv(env, eq + 1, 1);
    sim_status st = {0};
    sim_model m;
    memset(&m, 0, sizeof m);
    sim_backend *be = NULL;
    sim_backend_opts o = {.global = SIM_GLOBAL_SPARSE_INVERSE, .ordering = SIM_ORDER_METIS};
    int rc = load_scene(
        json("{'name': 'r', 'bodies': [{'name': 'b', 'mesh': {'type': 'bar', 'lo': [0, 0, 0],"
             " 'hi': [1, 1, 1], 'vertices': [3, 3, 3]}, 'material': {'model': 'arap',"
             " 'mass': 1, 'youngs_modulus': 1e5, 'poisson_ratio': 0.3}}]%s}",
             cases[i].floor ? ", 'obstacles': [{'type': 'plane', 'point': [0, -1, 0],"
                              " 'normal': [0, 1, 0]}]"
                            : ""));
    if (!rc) rc = sim_model_build(&g_sc, NULL, &m, &st);
    if (!rc) rc = sim_backend_cuda_create(&m, &o, &be, &st);
    if (cases[i].named) {
      printf("  refused: %s\n", st.msg);
      check_report(rc == SIM_ERR_USAGE && !be && strstr(st.msg, cases[i].named) &&
                       !strchr(st.msg, '\n'),
                   __FILE__, __LINE__, "SIMCTL_CUDA_S=rows with %s: refused naming %s",
                   cases[i].env ? cases[i].env : "contact", cases[i].named);
    } else {
      check_report(rc == SIM_OK && be, __FILE__, __LINE__,
                   "SIMCTL_CUDA_S=rows with contact and %s: taken", cases[i].env);
    }
    if (be) be->destroy(be);
    sim_model_free(&m);
    if (cases[i].env) unsetenv(env);
  }
}

int main(void) {
  gpu_or_skip("test_gpu_backend");
  const char *models[] = {"arap", "corotational", "neo_hookean"};
  for (int i = 0; i < 3; i++)
    if (!bar(models[i])) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  /* 10 x 41 x 10: about 4,000 free unknowns, so rows of S near the elimination tree's root
     hold up to about 4,000 entries (a thread block each; more than 512: SIM_CUDA_LANE_ENTRIES) */
  if (!bar_k("arap", 10)) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  /* the global step's products by cuSPARSE SpMM */
  setenv("SIMCTL_CUDA_SPMV", "cusparse", 1);
  if (!bar_k("arap", 10)) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  unsetenv("SIMCTL_CUDA_SPMV");
  /* S kept as its rows alone, S^T y by a scatter with atomic adds (SIMCTL_CUDA_S=rows): in
     double, the long rows included, and in float */
  setenv("SIMCTL_CUDA_S", "rows", 1);
  if (!bar_k("arap", 10)) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  if (!bar("neo_hookean")) check_operations(SIM_PREC_FLOAT, 1e-12, 1e-12);
  check_rows_refused();
  unsetenv("SIMCTL_CUDA_S");
  check_layouts();
  /* the 4,000-unknown bar's columns hold runs long enough for 4 and 8 entries' loads at a time
     in the default layout (the 500-unknown bar's are not) */
  if (!bar_k("arap", 10)) check_index_layouts(0, SIM_PREC_DOUBLE);
  if (!bar("arap")) check_index_layouts(0, SIM_PREC_FLOAT); /* S's values in float */
  check_tune();
  check_S_cache();
  /* cloth: log1p in Neo-Hookean is 1-2 ulp apart on the two sides, and a 1-ulp change of q
     moves a cloth projection by up to 1.2e-13: 1e-11; the ARAP cloth's SVD rounds alike on
     both (until 2026-12-02 its atan2, sin and cos did not, and it had 1e-11 too) */
  if (!cloth("neo_hookean", "isometric")) check_operations(SIM_PREC_DOUBLE, 1e-11, 1e-12);
  if (!cloth("arap", "laplace_beltrami")) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  g_edit = curve_rest; /* the bending projection onto its sphere */
  if (!cloth("arap", "laplace_beltrami")) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  if (!mixed()) check_operations(SIM_PREC_DOUBLE, 1e-12, 1e-12);
  g_edit = NULL;
  if (!bar("neo_hookean")) check_operations(SIM_PREC_FLOAT, 1e-12, 1e-12);
  check_local_blocks();
  check_float();
  check_spans();
  return check_summary("test_gpu_backend");
}

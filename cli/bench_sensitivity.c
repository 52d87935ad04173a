/* SPDX-License-Identifier: MIT */
/* simctl-bench-sensitivity: how far one step of a scene moves from a small difference of its
   start, on the CPU backend (the scale for a GPU test's tolerance: the CUDA backend adds S's rows
   in another order than the CPU, so its steps start from the CPU's in the last bits). Two CPU
   backends step the scene side by side, both
   on the sparse inverse in double with METIS ordering, the second with --global's solver
   instead; after every step the second takes the first's state (q, q_t, v), multiplied by
   1 + REL u (u uniform in [-1, 1), a fixed sequence) where --perturb REL is given. Prints the
   median and largest step difference (largest |q1 - q2| over the scene's size) over the steps
   with contact, and the largest before the first contact.
   usage: simctl-bench-sensitivity SCENE [--steps N] [--perturb REL] [--global KIND]
                                   [--set PATH=VALUE]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/base/alloc.h"
#include "../core/scene/scene.h"
#include "../core/solve/backend.h"
#include "../core/solve/stepper.h"

#define MAX_SETS 16

static sim_scene g_sc; /* large: off the stack */

typedef struct args {
  const char *scene, *sets[MAX_SETS];
  int nsets, steps;
  double perturb;
  sim_global_kind global;
} args;

/* One line: what was wrong, then the usage. */
static int usage(const char *msg, const char *what) {
  fprintf(stderr,
          "simctl-bench-sensitivity: error: %s%s (usage: simctl-bench-sensitivity SCENE [--steps "
          "N] [--perturb REL] [--global KIND] [--set PATH=VALUE]...)\n",
          msg, what);
  return 2;
}

/* -h, --help: what it does and its usage, on standard output */
static int help(void) {
  printf(
      "usage: simctl-bench-sensitivity SCENE [--steps N] [--perturb REL] [--global KIND]\n"
      "                                [--set PATH=VALUE]...\n"
      "Steps SCENE on two CPU backends side by side (the sparse inverse in double; the second\n"
      "with --global's solver), the second taking the first's state after every step, times\n"
      "1 + REL u where --perturb REL is given, and prints the median and largest step\n"
      "difference over the steps with contact, relative to the scene's size.\n"
      "  --steps N       steps to run (default 100)\n"
      "  --perturb REL   relative perturbation of the second backend's start, in [0, 1)\n"
      "  --global KIND   the second backend's global solver (sparse_inverse, cholesky, jacobi,\n"
      "                  dense_inverse; default sparse_inverse)\n"
      "  --set PATH=VALUE  a scene override, as simctl run takes it (up to 16)\n");
  return -1;
}

static int parse(int argc, char **argv, args *a) {
  *a = (args){.steps = 100, .global = SIM_GLOBAL_SPARSE_INVERSE};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) return help();
    if (o[0] != '-') {
      if (a->scene) return usage("a second scene: ", o);
      a->scene = o;
      continue;
    }
    if (i + 1 >= argc) return usage("a value is missing after ", o);
    const char *v = argv[++i];
    char *end = NULL;
    if (!strcmp(o, "--steps")) {
      long n = strtol(v, &end, 10);
      if (*end || n < 1 || n > 1000000) return usage("--steps: expected 1 to 1000000, not ", v);
      a->steps = (int)n;
    } else if (!strcmp(o, "--perturb")) {
      a->perturb = strtod(v, &end);
      if (*end || !(a->perturb >= 0.0 && a->perturb < 1.0))
        return usage("--perturb: expected a relative size in [0, 1), not ", v);
    } else if (!strcmp(o, "--global")) {
      int k = SIM_GLOBAL_SPARSE_INVERSE;
      while (k < SIM_GLOBAL_COUNT && strcmp(v, sim_global_name((sim_global_kind)k))) k++;
      if (k == SIM_GLOBAL_COUNT)
        return usage("--global: expected sparse_inverse, cholesky, jacobi or dense_inverse, not ",
                     v);
      a->global = (sim_global_kind)k;
    } else if (!strcmp(o, "--set")) {
      if (a->nsets == MAX_SETS) return usage("more than 16 --set options at ", v);
      a->sets[a->nsets++] = v;
    } else {
      return usage("unknown option ", o);
    }
  }
  return a->scene ? 0 : usage("no scene", "");
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Uniform in [-1, 1) from a fixed 64-bit LCG. */
static double rnd(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* The second backend takes the first's state, perturbed by rel. */
static int copy_state(sim_backend *a, sim_backend *b, double *buf, size_t n3, double rel,
                      unsigned long long *seed, sim_status *st) {
  static const sim_vec_id ids[3] = {SIM_VEC_Q, SIM_VEC_QT, SIM_VEC_V};
  int rc = 0;
  for (int i = 0; i < 3 && !rc; i++) {
    rc = a->download(a, ids[i], buf, st);
    if (rel > 0.0)
      for (size_t j = 0; j < n3; j++) buf[j] *= 1.0 + rel * rnd(seed);
    if (!rc) rc = b->upload(b, ids[i], buf, st);
  }
  return rc;
}

/* Steps both and prints the figures; returns a sim error code. */
static int run(const args *a, sim_model *m, sim_status *st) {
  sim_backend_opts oa = {.global = SIM_GLOBAL_SPARSE_INVERSE,
                         .precision = SIM_PREC_DOUBLE,
                         .ordering = SIM_ORDER_METIS};
  sim_backend_opts ob = oa;
  ob.global = a->global;
  sim_backend *ba = NULL, *bb = NULL;
  sim_stepper sa = {0}, sb = {0};
  size_t n3 = 3 * (size_t)m->n;
  double *qa = SIM_NEW(double, n3), *qb = SIM_NEW(double, n3), *buf = SIM_NEW(double, n3);
  double *dc = SIM_NEW(double, (size_t)a->steps), size = sim_model_extent(m), before = 0.0;
  unsigned long long seed = 7;
  int nd = 0, first = -1, rc = sim_backend_cpu_create(m, &oa, &ba, st);
  if (!rc) rc = sim_backend_cpu_create(m, &ob, &bb, st);
  if (!rc) rc = sim_stepper_init(&sa, m, ba, st);
  if (!rc) rc = sim_stepper_init(&sb, m, bb, st);
  for (int s = 0; s < a->steps && !rc; s++) {
    sim_profile pa, pb;
    rc = sim_stepper_step(&sa, &pa, NULL, st);
    if (!rc) rc = sim_stepper_step(&sb, &pb, NULL, st);
    if (!rc) rc = ba->download(ba, SIM_VEC_Q, qa, st);
    if (!rc) rc = bb->download(bb, SIM_VEC_Q, qb, st);
    if (rc) break;
    double d = 0.0;
    for (size_t j = 0; j < n3; j++) d = fmax(d, fabs(qa[j] - qb[j]));
    d /= size;
    if (pa.contacts > 0) {
      if (first < 0) first = s;
      dc[nd++] = d;
    } else if (first < 0) {
      before = fmax(before, d);
    }
    rc = copy_state(ba, bb, buf, n3, a->perturb, &seed, st);
  }
  if (!rc) {
    qsort(dc, (size_t)nd, sizeof *dc, cmp_double);
    printf(
        "%s: %d vertices, %d steps, sparse_inverse against %s, start perturbed by %.3g: before "
        "contact %.2e; %d steps with contact (first %d): median %.2e, largest %.2e of the "
        "size\n",
        g_sc.name, m->n, a->steps, sim_global_name(a->global), a->perturb, before, nd, first,
        nd ? dc[nd / 2] : 0.0, nd ? dc[nd - 1] : 0.0);
  }
  sim_stepper_free(&sb);
  sim_stepper_free(&sa);
  if (bb) bb->destroy(bb);
  if (ba) ba->destroy(ba);
  sim_free(qa), sim_free(qb), sim_free(buf), sim_free(dc);
  return rc;
}

int main(int argc, char **argv) {
  args a;
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc; /* -1: --help, printed */
  sim_status st = {0};
  sim_model m;
  memset(&m, 0, sizeof m);
  rc = sim_scene_load(a.scene, a.sets, a.nsets, &g_sc, &st);
  if (!rc) rc = sim_model_build(&g_sc, NULL, &m, &st);
  if (!rc) rc = run(&a, &m, &st);
  if (rc) fprintf(stderr, "simctl-bench-sensitivity: error: %s\n", st.msg);
  sim_model_free(&m);
  return rc ? 1 : 0;
}

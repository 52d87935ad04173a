/* SPDX-License-Identifier: MIT */
/* A model, a CPU backend and a stepper built from a scene: the set-up of the local-global
   tests (test_arap, test_elements). */
#ifndef SIM_TEST_LG_FIXTURE_H
#define SIM_TEST_LG_FIXTURE_H
#include <stdio.h>
#include <string.h>

#include "../core/solve/backend.h"
#include "../core/solve/stepper.h"

typedef struct lg_ctx {
  sim_model m;
  sim_backend *be;
  sim_stepper s;
} lg_ctx;

/* Global solver g (double, METIS) with Chebyshev rho (0 = off); prints the error on failure. */
static inline int lg_setup(lg_ctx *c, const sim_scene *sc, sim_global_kind g, double rho) {
  sim_status st = {0};
  memset(c, 0, sizeof *c);
  int rc = sim_model_build(sc, NULL, &c->m, &st);
  sim_backend_opts o = {.global = g, .precision = SIM_PREC_DOUBLE, .ordering = SIM_ORDER_METIS,
                        .chebyshev_rho = rho};
  if (!rc) rc = sim_backend_cpu_create(&c->m, &o, &c->be, &st);
  if (!rc) rc = sim_stepper_init(&c->s, &c->m, c->be, &st);
  if (rc) fprintf(stderr, "setup: %s\n", st.msg);
  return rc;
}

static inline void lg_teardown(lg_ctx *c) {
  sim_stepper_free(&c->s);
  if (c->be) c->be->destroy(c->be);
  sim_model_free(&c->m);
}

#endif

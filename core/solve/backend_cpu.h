/* SPDX-License-Identifier: MIT */
/* The CPU backend's state, shared by its files (backend_cpu.c: elastic stages;
   backend_cpu_contact.c: the contact stage). Private to core/solve. */
#ifndef SIM_BACKEND_CPU_H
#define SIM_BACKEND_CPU_H
#include "backend.h"
#include "global_variants.h"
#include "spans_host.h"

typedef struct cpu_ctx {
  const sim_model *m;
  double *vec[SIM_VEC_COUNT]; /* 3n each */
  double *pin_pos;            /* 3 * npinned */
  double *R;                  /* 9 * nelem: projections p_i (ADMM-PD: z_i - u_i) */
  double *U;                  /* 9 * nelem: ADMM-PD duals u_i (NULL for pure ARAP) */
  double *P;                  /* 3 * nst: bending projections p_s */
  double *rhs, *xfree, *y;    /* 3 * nfree */
  sim_factor *fac;
  sim_sparse_inverse S;
  int use_S;
  sim_jacobi J;
  sim_dense_inverse D;
  double *xcur, *xprev; /* jacobi: q^k and q^{k-1} on the free unknowns */
  double rho, omega;    /* Chebyshev (Wang 2015) */
  int iter;             /* global steps taken in this frame */
  sim_global_stats stats;
  size_t max_W_bytes;       /* refuse a Delassus W above this (0: no limit) */
  sim_backend_opts opts;    /* as created */
  struct cpu_contact *cst; /* contact state (backend_cpu_contact.c), NULL without contact */
  sim_host_spans spans;
  double *snap;    /* the last output snapshot: q, v, densities (6n + nelem), or NULL */
  int snap_q_only; /* it holds q alone */
} cpu_ctx;

#define CTX(be) ((cpu_ctx *)(be)->ctx)

/* out = A_s^{-1} in on the free unknowns (3 columns) with the backend's exact global solver. */
int sim_cpu_solve(cpu_ctx *c, const double *in, double *out, sim_status *st);
/* Contact: set up the operations on be (when the scene has contact) and free the state. */
int sim_cpu_contact_create(sim_backend *be, sim_status *st);
void sim_cpu_contact_destroy(cpu_ctx *c);

#endif

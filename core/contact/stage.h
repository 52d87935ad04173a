/* SPDX-License-Identifier: MIT */
/* The contact stage of a backend (Algorithm 4; DESIGN.md Sec. 6), shared by the CPU and the
   CUDA backends: the step's contacts and the previous step's (warm start), the Delassus
   operator W once per step (dense from the host's S or factor, or the backend's matrix-free
   product), the targets, and per L-G iteration the unconstrained solve, up to newton_steps
   non-smooth Newton steps (nsn.h) linearised at H A^{-1} b + h^2 W f, and the correction. The
   solves and the products with H that touch the state vectors are the backend's (ops); the
   Newton solve itself runs here, on 3 nc host vectors, unless the backend runs it and
   prepares its steps itself (backend_prepares: the CUDA backend's device solve). */
#ifndef SIM_CONTACT_STAGE_H
#define SIM_CONTACT_STAGE_H
#include "../model/model.h"
#include "../solve/backend.h"
#include "../solve/factor.h"
#include "contact.h"
#include "nsn.h"

/* What the backend provides; ctx is passed back to each. All but w_apply report failures. */
typedef struct sim_contact_ops {
  void *ctx;
  /* The step's contacts (the backend may keep a copy of the rows, e.g. on the device). */
  int (*set_rows)(void *ctx, const sim_contact *c, int nc, sim_status *st);
  /* out (3 nc) = H x for state vector `id` over all vertices (pinned ones at their targets). */
  int (*h_state)(void *ctx, sim_vec_id id, double *out, sim_status *st);
  /* The unconstrained solve q_free = A^{-1} rhs (the local step's) into the state q. */
  int (*unconstrained)(void *ctx, sim_status *st);
  /* out = W x = H_free A^{-1} H_free^T x (3 nc): the matrix-free Delassus operator, or the
     dense W the backend took with set_w this step. */
  void (*w_apply)(void *ctx, const double *x, double *out);
  /* Optional (NULL: the stage applies a dense W itself): take this step's dense W (m x m,
     row-major) so that w_apply applies it, e.g. on the device. set_rows starts each step
     without one. */
  int (*set_w)(void *ctx, const double *W, int m, sim_status *st);
  /* q_free += h^2 A^{-1} H_free^T f: the correction of Algorithm 4 step 4. */
  int (*correct)(void *ctx, const double *f, sim_status *st);
  /* Optional (NULL: the stage forms W, or only its diagonal, on the host from S or the
     factor): this step's Delassus operator on the backend, dense (W itself, which w_apply then
     applies) or not (w_apply stays matrix-free), and diag(W) into `diag` (3 nc) either way. */
  int (*delassus)(void *ctx, const sim_contact *c, int nc, int dense, double *diag,
                  sim_status *st);
  /* Optional, with delassus: the dense W it formed, copied into host `W` (m x m, row-major). */
  int (*get_w)(void *ctx, double *W, int m, sim_status *st);
  /* Optional, without delassus: called once a step before W's form is chosen (counted in the
     step's Schur time), unless contact.delassus is "dense", with the step's contacts (the
     stage's copy, alive until the next step): the backend prepares its matrix-free product for
     them, e.g. restricted to the contacts' columns of S, and gives in *entries the stored
     entries one product reads (each an index and a double, read twice), 0 where it keeps no
     such operator; "auto" weighs them against a dense W's 9 nc^2 doubles. */
  int (*prepare_w)(void *ctx, const sim_contact *c, int nc, long long *entries, sim_status *st);
} sim_contact_ops;

typedef struct sim_contact_stage {
  const sim_model *m;
  sim_contact_ops ops;
  sim_nsn nsn;
  sim_scene_delassus delassus;
  sim_factor *fac;             /* borrowed: for W by CHOLMOD where S is NULL */
  const sim_sparse_inverse *S; /* borrowed: for W and diag(W) (host) */
  size_t max_W_bytes;          /* refuse a dense W above this (0: no limit) */
  int dense_rows;              /* contact.delassus "auto": W dense up to this many rows (init:
                                  the CPU's bound; a backend may set its own after init), and
                                  where prepare_w gives entries, only if 3 nc^2 is at most
                                  SIM_DELASSUS_DENSE_OVER_OPERATOR (stage.c) times them */
  double min_sep;
  int warm;
  int newton_steps; /* per L-G iteration */
  int end_steps;    /* contact.end_newton_steps: Newton steps more at the step's end */
  double end_tol;   /* contact.end_tolerance (m; 0: no check at the step's end) */
  sim_contact *c, *pc; /* this step's contacts and the previous step's */
  int nc, pnc, cap, pcap;
  int first; /* the step's first L-G iteration is next */
  double *plam; /* previous step's multipliers (3 pnc) */
  int resumed;  /* pc and plam set by sim_contact_stage_resume for the next begin */
  double *W;    /* W formed here for the backend to apply (set_w), or from its get_w */
  size_t W_cap;
  sim_wblocks wb; /* W formed and applied here: its block form */
  /* a dense W of at most this many rows stays on the host for the Newton solve's products
     (0: none), where the backend's own products would each cost a round trip (set_w, get_w) */
  int host_w_rows;
  /* the backend forms the Newton solve's inputs on its side and keeps the previous step's
     contacts and multipliers there (the CUDA backend's device solve): begin forms W and
     diag(W) (into wdiag, where the host forms them) and queues H q_t, and leaves out the
     targets, coefficients, weights and warm start; the solver only holds the results
     (sim_nsn_hold), which the backend writes */
  int backend_prepares;
  double *wdiag, *d, *mu, *comp, *hqt, *hq, *hab, *minv, *tmp; /* 3 nc (mu, comp: nc) */
  double *fend; /* 3 nc: the force of the last correction (sim_contact_stage_finish) */
} sim_contact_stage;

/* The solver options of the scene's contact block; S or fac (host, borrowed, kept alive by the
   caller) give W. Fails with SIM_ERR_SCENE on bad options. */
int sim_contact_stage_init(sim_contact_stage *k, const sim_model *m, const sim_contact_ops *ops,
                           sim_factor *fac, const sim_sparse_inverse *S, size_t max_W_bytes,
                           sim_status *st);
void sim_contact_stage_free(sim_contact_stage *k);
/* Both backends' rule: with contact, constraint pins or cables (sim_world_needed) the global
   solver must be exact (sparse_inverse, cholesky or dense_inverse; auto resolved before) and
   without Chebyshev acceleration (rho 0), since the stage solves with A^{-1} itself; otherwise
   SIM_ERR_SCENE naming the scene file and what it asked for. */
int sim_contact_stage_check_solver(const sim_model *m, sim_global_kind global, double rho,
                                   sim_status *st);

/* The backend table's contact_begin, contact_global and contact_lambda (backend.h). */
int sim_contact_stage_begin(sim_contact_stage *k, const sim_contact *c, int nc, sim_cst_times *t,
                            sim_status *st);
int sim_contact_stage_global(sim_contact_stage *k, sim_cst_times *t, sim_status *st);
/* The backend table's contact_finish: after a step's last L-G iteration, where end_tol > 0,
   the NCP values at the state the last correction left, q = A^{-1} b + h^2 A^{-1} H^T f (H q =
   hab + h^2 W f, that iteration's hab), and while max |phi| over the normal and bilateral rows
   (those of the line search's merit; the friction rows, which it does not weigh, are left as
   the iterations left them) is above end_tol, up to end_steps more Newton steps there,
   stopping after one whose line search took no step (lambda stood: the next would be the
   same); the change of f then goes through the correction alone (q is linear in f). Adds that
   max |phi| at the end to t->end_phi (the largest), the steps to t->end_steps and
   t->newton_steps, and 1 to t->end_unmet where it stayed above end_tol. */
int sim_contact_stage_finish(sim_contact_stage *k, sim_cst_times *t, sim_status *st);
void sim_contact_stage_lambda(sim_contact_stage *k, double *out);
/* A resumed run (backend.h contact_resume): the next begin warm-starts from contacts c[0..nc)
   (sorted by key) and their multipliers lam (3 nc), as if the step before had ended with them. */
int sim_contact_stage_resume(sim_contact_stage *k, const sim_contact *c, int nc, const double *lam,
                             sim_status *st);

#endif

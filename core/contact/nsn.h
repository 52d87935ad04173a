/* SPDX-License-Identifier: MIT */
/* Non-smooth Newton contact stage (paper Sec. 5.2, Algorithm 4 steps 2-4; DESIGN.md Sec. 6),
   independent of the frame loop: it sees only constraint-space vectors (3 nc, row 3j + r of
   contact j: r = 0 normal, 1 and 2 the tangents), the dense Delassus W = H A^{-1} H^T
   (core/contact/delassus.h, borrowed), targets d, mu, and a preconditioner.

   Units and the caller's convention (A = M + h^2 L in mass units, DESIGN.md Sec. 4):
     q = A^{-1} (b + h^2 H^T f),  f = the "force" vector (newtons) returned by sim_nsn_force().
   Two forms of the Newton system (sim_nsn_form):
     compliance (default; Macklin et al. 2019's symmetric form): f = lambda, and each coupled
       row of the linearisation is divided by its Omega,
         (W + Omega^{-1} E / h^2) dlambda = (1/h^2)(H q^k - H A^{-1} b - Omega^{-1} phi) - W lambda^k;
       rows with Omega <= SIM_NSN_OMEGA_MIN (FB at delta > 0 = r lambda_n: separated, no force;
       inactive friction) are solved alone, E dlambda = -phi, and reach the coupled rows through
       W dlambda on the right-hand side;
     paper (Eqs. 22-23 as printed): f = Omega lambda, i.e. H^T f = J^T lambda with J = Omega H,
         (Omega W Omega + E / h^2) dlambda = (1/h^2)(h_vec - Omega y).
     Both are symmetric. In the paper form a row whose Omega is small at the linearisation point
     (FB: delta > 0 with lambda_n > 0 left from the warm start) applies Omega lambda ~ 0 whatever
     lambda is, and its vertex can go through (measured: a soft box 6.7 mm into a slab with
     margin 2 cm, against 0.04 mm in the compliance form).
   lambda (sim_nsn_lambda) is the multiplier in the cone (lambda_n >= 0, |lambda_f| <= mu
   lambda_n, lambda_n <= max_force, where a contact held at max_force may close further: its
   normal NCP is the box form, ncp.h sim_ncp_normal_capped); at convergence Omega = 1 on every
   row with 0 < lambda < max_force,
   so both forms give f = lambda: lambda_n is the normal contact force (m g for a resting
   particle).
   W is in 1/mass; H q, d_n in length; d_f (friction rows) is the obstacle surface velocity
   c_r . u_hat (m/s, core/contact/rows.h).

   One call per Newton step (sim_nsn_iterate), given hq = H q^k, hab = H A^{-1} b^k (b^k
   from this L-G iteration's local step) and, once per step, hqt = H q_t:
     y = W F lambda^k, F = Omega (paper) or I (compliance): H A^{-1} g = hab + h^2 y
     (g = b^k + h^2 H^T F lambda^k)
     normal:   delta = hq_n - d_n,  r = h^2 w_jj,  phi_n = phi(delta, r lambda_n)   (length)
     friction: u = (hq_f - hqt_f) - h d_f = h dot(delta_f) (Eq. 40, displacement, length),
               r = h^2 w_f (w_f = mean of the two tangent rows' w_jj): by homogeneity this is
               ncp.h's velocity form times h, phi_f = u + e lambda_f with e in length/newton
     (w_jj = W_jj, Eq. 28, or the caller's [H M^{-1} H^T]_jj for the mass-inverse variant).
   Linearising phi(q, lambda) + Omega H dq + E dlambda = 0 with q^{k+1} = A^{-1}(g + h^2 H^T F
   dlambda) and dividing by h^2 gives step 3 in either form above (h_vec = Omega hq - phi in
   length, both sides in 1/mass * newton; E/h^2 in 1/mass like W). Omega in g is this step's
   (evaluated first), so the Newton prediction H q^{k+1} = hab + h^2 W F (lambda^k + dlambda)
   is exactly what the correction applies (before the clamps). CR (core/contact/cr.h) solves it
   from dlambda = 0 (the decoupled rows' values in the compliance form), preconditioned by the
   system's diagonal unless cr_jacobi is 0. Then lambda += dlambda, lambda_n capped at max_force
   (> 0), sim_ncp_cone_clamp, and f = F lambda. Inactive friction rows (phi_f = lambda_f,
   Omega = 0, E = I) are scaled by h^2 w_jj (row and E/h^2 both w_jj) so their
   dlambda = -lambda_f sits on W's scale.
   The caller's loop: q^{k+1} = A^{-1} b^k + h^2 A^{-1} H^T f, i.e. one unconstrained solve
   and one correction solve. hq may be any linearisation point; the CPU backend takes the one
   consistent with this iteration's b and the current force, hab + h^2 W f (f = lambda_warm at
   a step's first iteration), which sees where the new b puts a vertex whose row is inactive.
   Bilateral contacts (compliance[j] >= 0; contact.h SIM_CONTACT_BILATERAL, the paper's H_b
   rows, Eqs. 15b, 17a): all three rows are linear equalities, phi = hq - d + E lambda with
   E = compliance[j] (m/N, 0 = hard), so Omega = 1 and E / h^2 enters as the normal row's e
   does; lambda has any sign, no cone, no max_force. With Omega = 1 the rows are coupled in
   both forms, and one Newton step solved exactly puts them on phi = 0: (W + E / h^2) dlambda =
   (1/h^2)(d - hab - E lambda^k) - W lambda^k. E = 0 needs W's block of these rows positive
   definite, which holds when their vertices are free unknowns (distinct rows, A SPD).
   A cable (contact.h CABLE) is passed as bilateral too: its row 0 is the length row; its rows
   1 and 2 are empty (W's rows and columns 0, hq = hab = d = 0), so phi = E lambda = 0 there,
   their right-hand side is 0, and CR (from 0, the system acting on them as E / h^2) leaves their
   lambda at 0: they cost two idle rows and change nothing.
   friction_exact (contact.newton_jacobian "exact", compliance form only): instead of the
   symmetric system above, each Newton step solves J dlambda = -phi with the exact Jacobian of
   every row (nsn_exact.h) by GMRES (gmres.h, cr_iters its iterations, cr_tol and cr_jacobi as
   for CR; its rows scaled and its start chosen so that where mu is 0, and the two systems are
   the same, it takes CR's steps: sim_nsn_exact_prepare), then takes the same line search, cap,
   cone and f = lambda.
   Warm start: sim_nsn_begin_step keeps lambda when warm_start is set and nc is unchanged
   (otherwise zeroes it); the caller may overwrite sim_nsn_lambda() after begin_step (contacts
   matched across steps). f is 0 until the first sim_nsn_iterate. */
#ifndef SIM_CONTACT_NSN_H
#define SIM_CONTACT_NSN_H
#include <stddef.h>

#include "nsn_row.h"
#include "wblocks.h"

typedef enum {
  SIM_NSN_PRECOND_DELASSUS = 0,    /* w_jj = W_jj (Eq. 28) */
  SIM_NSN_PRECOND_MASS_INVERSE = 1 /* w_jj = [H M^{-1} H^T]_jj from the caller */
} sim_nsn_precond;

typedef enum {
  SIM_NSN_FORM_COMPLIANCE = 0, /* force H^T lambda, (W + Omega^{-1} E / h^2) dlambda (default) */
  SIM_NSN_FORM_PAPER = 1       /* force J^T lambda, J = Omega H (Eqs. 22-23 as printed) */
} sim_nsn_form;


typedef struct sim_nsn_options {
  sim_nsn_form form;       /* compliance (default) or paper */
  sim_ncp_kind ncp;        /* Fischer-Burmeister (default) or minimum map */
  sim_nsn_precond precond; /* Delassus diagonal (default) */
  int cr_iters;            /* CR iterations per Newton step (10) */
  double cr_tol;           /* CR relative tolerance (0: the fixed count) */
  int cr_jacobi;           /* precondition CR with the system's diagonal (1) */
  int cr_float;            /* CR's products with a dense W (or its blocks) read a float copy
                              of it (of G) (0); the
                              right-hand side, the line search and f use W in double */
  double newton_tol;       /* skip the step when max |phi| <= this, in metres (0: never) */
  int merit_max;           /* 1: max |phi| (newton_tol's test, stats.phi_max) over the normal
                              and bilateral rows alone, those of the merit (the stage's end
                              pass); 0: over every row */
  double max_force;        /* cap on lambda_n in newtons (0: none) */
  double h;                /* time step (s) */
  int warm_start;          /* keep lambda across steps (1) */
  int line_search;         /* compliance form: most halvings of the Newton step in the
                              backtracking on 1/2 |phi|^2 of the normal and bilateral rows
                              (0: the full step, as in the paper) */
  int friction_exact;      /* compliance form: the friction rows' exact Jacobian, the Newton
                              system solved by GMRES (nsn_exact.h; contact.newton_jacobian
                              "exact"), cr_iters its iterations; 0: the lagged, symmetric
                              system and CR (the paper's; default) */
} sim_nsn_options;

sim_nsn_options sim_default_nsn_options(void);

/* Newton steps whose line search (contact.line_search) took the full step, a shorter one, or
   none (lambda stood) */
typedef struct sim_ls_counts {
  int full, shorter, none;
} sim_ls_counts;

/* to += a - b (b NULL: 0) */
static inline void sim_ls_counts_add(sim_ls_counts *to, const sim_ls_counts *a,
                                     const sim_ls_counts *b) {
  to->full += a->full - (b ? b->full : 0);
  to->shorter += a->shorter - (b ? b->shorter : 0);
  to->none += a->none - (b ? b->none : 0);
}

typedef struct sim_nsn_stats {
  double assemble_ms;  /* Table 3 "assemble": H A^{-1} g, NCP evaluation, right-hand side */
  double cst_solve_ms; /* Table 3 "cst_solve": CR */
  long cr_iters;       /* CR iterations, summed */
  int newton_steps;    /* sim_nsn_iterate calls */
  double phi_max;      /* max |phi| (length) at the last call's linearisation point */
  int converged;       /* the last call found max |phi| <= newton_tol and did no step */
  double merit;        /* 1/2 |phi|^2 over the normal and bilateral rows, same point */
  sim_ls_counts ls;    /* the line searches' outcomes */
} sim_nsn_stats;

/* out = W x for x, out of 3 nc (the matrix-free Delassus operator, sim_nsn_begin_step_op). */
typedef void (*sim_nsn_wfn)(void *ctx, const double *x, double *out);

typedef struct sim_nsn {
  sim_nsn_options opt;
  int nc, cap;     /* contacts; capacity of the buffers (contacts) */
  const double *W; /* 3nc x 3nc row-major, borrowed (NULL with an operator) */
  const sim_wblocks *B; /* W in block form, borrowed (NULL otherwise) */
  float *Wf;            /* W (or B's G) rounded to float for CR's products (cr_float), or NULL */
  size_t wf_cap;   /* floats Wf holds */
  sim_nsn_wfn wfn; /* the operator instead of W */
  void *wctx;
  double *mu;      /* nc */
  double *comp;    /* nc: compliance of a bilateral contact (>= 0), or -1 (frictional) */
  double *d;       /* 3nc targets (d_n length, d_f velocity) */
  double *hqt;     /* 3nc H q_t */
  double *w;       /* 3nc preconditioner diagonal w_jj */
  double *wd;      /* 3nc diag(W) (the CR preconditioner's) */
  double *pc;      /* 3nc CR's Jacobi preconditioner */
  double *lambda;  /* 3nc multipliers (in the cone) */
  double *f;       /* 3nc Omega lambda: what the caller applies with H^T */
  double *omega, *e, *rhs, *dlam, *y, *tmp, *work; /* workspace (e: E / h^2) */
  double *lam_try, *wl;                             /* line search: trial lambda, W lambda^k */
  int y_wf; /* y is W f (the last call's line search accepted a step, compliance form: its
               trial's product, sim_nsn_w_apply's bits), so a caller may take it instead of a
               product of its own; 0 otherwise */
  double *wt;                                       /* 3nc: B's products' workspace */
  double *jac;   /* friction_exact: SIM_NSN_JAC per contact (nsn_exact.h) */
  double *gwork; /* friction_exact: GMRES's workspace (cr_iters a cycle) */
  sim_nsn_stats stats;
} sim_nsn;

/* Returns 0, or -1 on a bad option (h <= 0, cr_iters < 1). Allocates nothing. */
int sim_nsn_init(sim_nsn *s, const sim_nsn_options *opt);
void sim_nsn_destroy(sim_nsn *s);

/* Start a time step with nc contacts: W (3nc x 3nc, borrowed until the next begin_step), mu
   (nc), compliance (nc: >= 0 marks a bilateral contact and is its E in m/N, < 0 a frictional
   one; NULL: all frictional), d (3nc), hqt = H q_t (3nc), minv_diag ([H M^{-1} H^T]_jj, 3nc;
   needed for MASS_INVERSE, ignored otherwise). Copies mu, compliance, d, hqt. Returns 0, or -1
   (allocation failure, nc < 0, or MASS_INVERSE without minv_diag). */
int sim_nsn_begin_step(sim_nsn *s, int nc, const double *W, const double *mu,
                       const double *compliance, const double *d, const double *hqt,
                       const double *minv_diag);

/* The same with W given as an operator (x -> W x) and its diagonal wdiag (3nc, copied; the
   Delassus preconditioner's w_jj). */
int sim_nsn_begin_step_op(sim_nsn *s, int nc, sim_nsn_wfn wfn, void *wctx, const double *wdiag,
                          const double *mu, const double *compliance, const double *d,
                          const double *hqt, const double *minv_diag);
/* The same with W in block form (wblocks.h; borrowed until the next begin_step), its diagonal
   from B. */
int sim_nsn_begin_step_blocks(sim_nsn *s, int nc, const sim_wblocks *B, const double *mu,
                              const double *compliance, const double *d, const double *hqt,
                              const double *minv_diag);
/* A step whose solve runs elsewhere (the CUDA backend's device solve): the solver only holds
   room for its results, lambda and f (3nc each), which the caller writes before reading them
   (sim_nsn_lambda, sim_nsn_force); nothing else of the step is set, and iterate must not be
   called. Returns 0, or -1 (allocation failure, nc < 0). */
int sim_nsn_hold(sim_nsn *s, int nc);
/* out = W x with the step's W (dense rows in parallel, or the operator). */
void sim_nsn_w_apply(const sim_nsn *s, const double *x, double *out);
/* out = W x as Conjugate Residual's products read W: its float copy with cr_float (a dense W
   or its blocks), else as sim_nsn_w_apply. */
void sim_nsn_w_apply_cr(const sim_nsn *s, const double *x, double *out);
/* One Newton step (Algorithm 4 steps 2-4), see above. hq = H q^k, hab = H A^{-1} b^k (3nc).
   Returns the CR iterations done, or -1 when the CR workspace could not be allocated. */
int sim_nsn_iterate(sim_nsn *s, const double *hq, const double *hab);
/* The same with wlam = W lambda^k already known to the caller (it linearised at
   hq = hab + h^2 W lambda^k): used as y in the compliance form, saving a W product (a global
   solve with the operator); ignored (NULL allowed) in the paper form, where y = W Omega lambda. */
int sim_nsn_iterate_w(sim_nsn *s, const double *hq, const double *hab, const double *wlam);

static inline const double *sim_nsn_force(const sim_nsn *s) { return s->f; }
static inline double *sim_nsn_lambda(sim_nsn *s) { return s->lambda; }

#endif

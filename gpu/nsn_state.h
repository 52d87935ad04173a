// SPDX-License-Identifier: MIT
// The device Newton solve's state (private to gpu/nsn_cuda.cu, the solve, and gpu/nsn_state.cu,
// its arrays, time stamps and the results' way back to the host).
#ifndef SIM_GPU_NSN_STATE_H
#define SIM_GPU_NSN_STATE_H
#include "contact_cuda.h"

#define SIM_RED_BLOCKS 256  // most blocks of the reductions' first pass (a power of two)
static_assert(SIM_RED_BLOCKS <= SIM_CUDA_BLOCK && (SIM_RED_BLOCKS & (SIM_RED_BLOCKS - 1)) == 0,
              "the reductions' second pass runs SIM_RED_BLOCKS threads through a tree");
// The reductions' first pass for n values: the fewest blocks (a power of two, at most
// SIM_RED_BLOCKS) that give every thread at most one value (more where n is larger). A fixed
// partition for a given capacity: the sums are deterministic.
static inline unsigned sim_nsn_reduce_blocks(long long n) {
  unsigned nb = 1;
  while (nb < SIM_RED_BLOCKS && (long long)nb * SIM_CUDA_BLOCK < n) nb *= 2;
  return nb;
}

// Conjugate Residual's scalars on the device, so that its iterations queue without waiting for
// the host: each reduction's (sum, max) lands in red[], one-thread kernels take the decisions
// cr.c takes (breakdown, tolerance, iteration count) and clear `active`, which the vector
// kernels check.
enum { CR_BB, CR_RR, CR_ZMZ, CR_MPD, CR_ZMZ1, CR_NRED };
typedef struct cr_dev {
  double red[CR_NRED][2];
  double tol, rn, zMz, alpha, beta;
  int active, iters;
} cr_dev;

// The Newton steps' decisions and statistics over an L-G iteration, on the device (read once,
// at its end). `go` and `search` are gates: kernels after the decision check them.
typedef struct nsn_dev {
  int go;                // the Newton steps go on (0 once a step's start met newton_tol)
  int search;            // this step's line search has accepted no step length yet
  int pick;              // the trial of the last batch it accepted (-1: none)
  int wf_stale;          // y is not W f (nsn_cuda.cu reuse_wf: set at a step's first iteration,
                         // cleared by the line search's last acceptance, and by H q's row
                         // kernel after the product where that is a launch of its own)
  int moved;             // a decoupled row's dlambda is not 0 in this step's solve (reset by
                         // the step's judge, nsn_judge, so no memset breaks the graph's chain)
  int steps, worked;     // steps begun; steps past the convergence test
  int converged;         // the last step's start met newton_tol
  int cr_total;          // CR iterations, summed
  sim_ls_counts ls;      // the line searches' outcomes
  double merit0, pmax0;  // the last step's start: merit and max |phi|
} nsn_dev;

// What a captured iteration's kernels take as arguments besides the model's constants, the
// options and the arrays that live as long as the solve (nsn_cuda.cu's graph_sig); not the
// contact count, which they read on the device (cuda_contact.dnc).
typedef struct nsn_graph_sig {
  int any;                      // the step has contacts (with none, W's products are not queued)
  int nc_cap, nt_cap, cap;      // the capacities of the arrays it reads (its grids follow them)
  const double *W;              // the dense W its products read (W's block form: G)
  const float *Wf;              // its float copy that CR's products read (contact.cr_precision)
  cuda_wblk blk;                // W's block form (blk.on 0: none)
  // W matrix-free (W NULL, blk.on 0): the contact columns' arrays and their capacity (the
  // products' grids), the arrays that follow S, and the products' scratch (which grows once to
  // take the line search's batches: batch_room in contact_cuda.cu); NULL, 0 with W formed
  const int *ycol, *first;
  size_t m_cap;
  int wn;
  const double *g, *wq, *z;
} nsn_graph_sig;

typedef struct cuda_nsn {
  int cap;            // contacts the arrays hold
  double *mu, *comp;  // cap
  double *d, *hqt, *w, *wd, *lam, *f, *om, *e, *phi, *rhs, *dlam, *y, *tmp, *pc, *wl, *hab, *hq,
      *cr[6],                  // 3 cap each (cr[5]: z's second array, cr_solve's stepped)
      *fend;                   // 3 cap: the end pass's f before it, then the change it made
  double *ltry, *ytry, *htry;  // SIM_W_BATCH x 3 cap: the line search's trials, W ltry, H q
  double *bt, *bx;             // the same: W's block form's prepared vectors (cuda_wblk t, xp)
  double *mterm, *pterm;       // SIM_W_BATCH x cap: a contact's merit term and max |phi|
  double *part, *res;          // SIM_W_BATCH x (2 SIM_RED_BLOCKS partials, 2 results)
  int *count;   // SIM_W_BATCH + 1: a fused reduction's blocks done per batch, and the batches
                // done (k_ncp_pick; each 0 between uses)
  int *gcount;  // SIM_RED_BLOCKS + 1: k_sys_gemv_dot's blocks done per reduction block, and
                // its reduction blocks done (0 between uses)
  int fuse;  // SIMCTL_CUDA_FUSE=on: fused reductions and CR updates (nsn_reduce.cuh), the
             // line search's full step alone before the other trials
  int cr_step_merged;  // fused: CR's step in the next product's launch where it can be
                       // (SIMCTL_CUDA_CR_STEP=merged, the default; apart: its own launch)
  // W matrix-free through the contact vertices' columns: the host queues on as with a dense W,
  // the gates skipping what was decided against, and the L-G iterations run as a graph
  // (SIMCTL_CUDA_MF_QUEUE=on, the default; off: the host reads each decision, sim_cuda_nsn_reads)
  int mf_queue;
  int *moved;     // &ctl->moved
  float *Wf;      // this step's dense W (its block form: G) rounded to float for CR's products
  size_t wf_cap;  // (cr_precision float; NULL otherwise), and the floats it holds
  cr_dev *crd;   // Conjugate Residual's scalars
  nsn_dev *ctl;  // the Newton steps' decisions
  cuda_group arrays;  // the arrays above from mu to pterm, in one device block (cap contacts)
  // the buckets' time stamps (NSN_AT_*) since the last settle, their count on the device, and
  // the decisions' statistics summed over the L-G iterations since then (acc)
  nsn_stamp *stamps;
  int *nstamp;
  nsn_dev *acc;
  int stamp_cap, queued;  // stamps the array holds; queued since the last settle
  // the previous step's contacts (their keys, sorted, and tangents t1, t2: 6 doubles each)
  // and multipliers (3 each), kept on the device for the warm start: pnc of them (the arrays
  // are one device block, prev)
  sim_contact_key *pkey;
  double *ptan, *plam;
  cuda_group prev;
  int pnc;
  int resumed;  // prev set by sim_cuda_nsn_resume: the next keep leaves it
  // what comes back at the settle (acc, the count and the stamps), in page-locked memory, so
  // the copies queue and the host waits once, with the settle (a copy to pageable memory
  // returns only when done: a wait each); ordinary memory where that is refused
  nsn_stamp *tback;
  int tback_pageable;
  int pending;        // L-G iterations queued whose results the host has not taken
  int back_queued;    // their copies to the host are queued (sim_cuda_nsn_settle_begin)
  sim_cst_times *t;   // where the pending iterations' times and counts go (the stepper's)
  // the L-G iteration as a CUDA graph (graphed()): captured at a step's first iteration (at
  // the run's first, its second) where the kernels' arguments differ from the graph's (sig),
  // launched at each; the stamps each launch makes
  int graph_on;
  cudaGraphExec_t exec;
  int graph_stamps;
  nsn_graph_sig sig;
  int warm;  // an iteration that could have been a graph has run launched one by one
  // the exact Newton step's GMRES (contact.newton_jacobian "exact": gmres_cuda.h), else NULL
  struct cuda_gmres *gm;
} cuda_nsn;

// Whether the host reads the device Newton solve's decisions (a wait each) and queues only what
// they let run: W matrix-free through all of S (its products take no gate), or through the
// contact vertices' columns with SIMCTL_CUDA_MF_QUEUE=off. Otherwise (W dense, or matrix-free
// through the columns) it queues on, and the gates skip what was decided against.
static inline int sim_cuda_nsn_reads(const cuda_contact *k) {
  return !k->w_dense && !(k->dn->mf_queue && k->wcols.m >= 0);
}

// The gate a product with W takes: the one given, whether or not the host reads the decisions
// (a product it queued regardless, such as CR's without a tolerance, then skips where a
// decision closed it), but none through all of S, whose products take none.
static inline const int *sim_cuda_w_gate(const cuda_contact *k, const int *gate) {
  return k->w_dense || k->wcols.m >= 0 ? gate : NULL;
}

// The stamps' tags: an L-G iteration's boundaries, and each Newton step's solve's
// (cst_solve as nsn.c counts it) start and end.
enum { NSN_AT_START = 1, NSN_AT_SOLVED, NSN_AT_NEWTON, NSN_AT_END, NSN_AT_CR0, NSN_AT_CR1 };

// Room for n more stamps since the last settle (SIM_ERR_INTERNAL where the array is short).
int sim_cuda_nsn_room(const cuda_contact *k, int n, sim_status *st);
// A stamp `tag` (in a capture: at each launch of the graph), made by a kernel that has other
// work: *at for the kernel to pass to nsn_stamp_write (a one-thread kernel, once) or
// nsn_stamp_first (stamp_cuda.h), at that place in the stream. No kernel of its own: each
// would cost the solve a launch, some microseconds on a GPU. Fails where a frame would make
// more stamps than the array holds.
int sim_cuda_nsn_stamp_at(cuda_contact *k, int tag, nsn_stamp_at *at, sim_status *st);
// The L-G iteration's statistics (ctl) added to the sums since the last settle (acc), and its
// end stamped (NSN_AT_END; newton: NSN_AT_NEWTON first, where no kernel of the pass made it),
// queued.
int sim_cuda_nsn_tally(cuda_contact *k, int newton, sim_status *st);

#endif

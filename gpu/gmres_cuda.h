// SPDX-License-Identifier: MIT
// The exact Newton step of the device Newton solve (contact.newton_jacobian "exact",
// SIMCTL_CUDA_NSN=device; private to gpu/): the friction rows' exact Jacobian, formed a contact
// a thread by the host's functions (core/contact/nsn_exact.h), and the nonsymmetric system
// J dlambda = -phi solved by GMRES, core/contact/gmres.c step for step: one cycle of cr_iters
// iterations (nsn.c's restart), modified Gram-Schmidt, Givens rotations, right-preconditioned.
// Its scalars and decisions stay on the device (one thread takes them, as CR's, cr_dev), so
// with a dense W the host queues the whole solve without waiting and it runs inside the L-G
// iteration's graph. The host restarts a cycle where the rotations' residual met cr_tolerance
// but the true one did not (rounding); the device does not.
#ifndef SIM_GPU_GMRES_CUDA_H
#define SIM_GPU_GMRES_CUDA_H
#include "nsn_state.h"

// GMRES's scalars on the device: whether it goes on, its iterations, the tolerance, the
// reductions' counter (last_block.cuh), |b|^2 and the last iteration's new vector's norm.
typedef struct gm_dev {
  int active, it, count;
  double tol, bb, hn;
} gm_dev;

typedef struct cuda_gmres {
  int K;          // its iterations (cr_iters), the columns of the Arnoldi basis less one
  gm_dev *ctl;    // device
  double *small;  // device, one block: H ((K + 1) K, column j at j (K + 1)), g, cs, sn, y
  double *H, *g, *cs, *sn, *y;  // (K + 1 each), the reductions' partials (2 SIM_RED_BLOCKS,
  double *part, *res;           // nsn_reduce.cuh's layout) and their (sum, max)
  size_t small_n;           // doubles in small
  double *V, *z, *t, *jac;  // for cap contacts: V (K + 1) x 3 cap, z and t 3 cap, jac 18 cap
  cuda_group arrays;
} cuda_gmres;

// k->dn->gm for the solve's options (K = cr_iters), its arrays for no contacts yet.
int sim_cuda_gmres_create(cuda_contact *k, sim_status *st);
// Its arrays for k->dn->cap contacts (grown with the Newton solve's, nsn_state.cu grow).
int sim_cuda_gmres_grow(cuda_contact *k, sim_status *st);
void sim_cuda_gmres_destroy(cuda_contact *k);
// The step's system and its solution into k->dn->dlam, queued: J at (hq, lambda) from the NCP
// evaluation's phi, Omega and E (k->dn), scaled and started as sim_nsn_exact_prepare says, then
// GMRES; the first kernel writes the stamp cr0. Its iterations go to k->dn->crd->iters (the
// update after it adds them to the count: cr_tally). Nothing where the Newton steps stopped.
int sim_cuda_gmres_step(cuda_contact *k, nsn_stamp_at cr0, sim_status *st);

#endif

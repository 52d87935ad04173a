/* SPDX-License-Identifier: MIT */
/* The factor's CHOLMOD objects, shared by factor.c and sparse_inverse.c only. */
#ifndef SIM_FACTOR_INTERNAL_H
#define SIM_FACTOR_INTERNAL_H
#include <stdlib.h>
#include <suitesparse/cholmod.h>

#include "factor.h"

struct sim_factor {
  int n;
  cholmod_common cc;
  cholmod_sparse *A;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E; /* solve workspace, reused */
  sim_factor_info info;
};

#endif

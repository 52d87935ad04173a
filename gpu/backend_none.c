/* SPDX-License-Identifier: MIT */
/* The CUDA entry points when simctl is built without CUDA (make CUDA=0 or no nvcc). */
#include <stdio.h>

#include "../core/solve/backend.h"

int sim_cuda_available(char *why, size_t len) {
  snprintf(why, len, "this simctl was built without CUDA");
  return 0;
}

int sim_backend_cuda_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                            sim_status *st) {
  *out = NULL;
  return sim_fail(st, SIM_ERR_DEVICE,
                  "--device cuda: this simctl was built without CUDA (rebuild with nvcc "
                  "installed and CUDA=1)");
}

// SPDX-License-Identifier: MIT
// CUDA device discovery and the CUDA backend's entry point. The backend's kernels (global
// step with S on the device, local step, contact) arrive with the CUDA backend issue; until
// then an explicit --device cuda is refused with that reason and auto falls back to the CPU.
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "../core/solve/backend.h"

int sim_cuda_available(char *why, size_t len) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    snprintf(why, len, "no usable CUDA device: %s", cudaGetErrorString(err));
    return 0;
  }
  if (count == 0) {
    snprintf(why, len, "no CUDA device found");
    return 0;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  snprintf(why, len, "CUDA device 0: %s", prop.name);
  return 1;
}

int sim_backend_cuda_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                            sim_status *st) {
  (void)m;
  (void)o;
  *out = NULL;
  char why[256];
  if (!sim_cuda_available(why, sizeof why))
    return sim_fail(st, SIM_ERR_DEVICE, "--device cuda: %s", why);
  return sim_fail(st, SIM_ERR_DEVICE,
                  "--device cuda: the CUDA backend's kernels are not in this version yet (%s); "
                  "use --device cpu or auto",
                  why);
}
}

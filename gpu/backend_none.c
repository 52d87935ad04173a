/* SPDX-License-Identifier: MIT */
/* The CUDA entry points when simctl is built without CUDA (make CUDA=0 or no nvcc). */
#include <stdio.h>

#include "../core/solve/backend.h"
#include "detect_cuda.h"

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

int sim_cuda_detect_create(void *stream, sim_cuda_detect **out, sim_status *st) {
  (void)stream;
  *out = NULL;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_run(void *ctx, sim_detect *d, const sim_detect_scene *s,
                        const sim_detect_params *p, sim_detect_contacts *out, sim_status *st) {
  (void)ctx, (void)d, (void)s, (void)p, (void)out;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

size_t sim_cuda_detect_bytes(const sim_cuda_detect *k) {
  (void)k;
  return 0;
}

void sim_cuda_detect_destroy(sim_cuda_detect *k) { (void)k; }

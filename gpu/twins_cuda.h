// SPDX-License-Identifier: MIT
// Device twins of host position arrays, private to gpu/: collision detection is handed the
// stepper's host arrays of q_t, the step before's q_t, q~ and the step's end, of which the host
// itself reads a few vertices at most (reads_cuda.cu). A twin is a device copy of the vector an
// array stands for, made when the backend's detect_download is called with that array and
// keyed by its address, so a detection run handed the array reads the twin instead of an
// upload of it (detect_cuda.cu, points_cuda.cu). The contract: the array stands for the same
// values from that call to the run (a later call with it replaces its twin). The last
// SIM_CUDA_TWINS arrays keep theirs; an array without a twin is uploaded, as before.
#ifndef SIM_GPU_TWINS_CUDA_H
#define SIM_GPU_TWINS_CUDA_H
#include "cuda_ctx.h"

// q_t, the step before's q_t, q~ and the step's end: the arrays one step's detection reads
#define SIM_CUDA_TWINS 4

typedef struct cuda_twins {
  const double *host[SIM_CUDA_TWINS];  // the host array each slot is the twin of (NULL: free)
  double *dev[SIM_CUDA_TWINS];         // its copy, cap[i] doubles
  size_t len[SIM_CUDA_TWINS], cap[SIM_CUDA_TWINS];
  unsigned long long used[SIM_CUDA_TWINS], clock;  // the least recently used slot goes first
  long long hits, misses;                          // arrays read from twins, uploaded
} cuda_twins;

// Host array `host` (n doubles) now holds what device array `dev` holds: its twin becomes a
// copy of dev, queued on mem's stream (after the work queued there before).
int sim_cuda_twins_keep(cuda_ctx *mem, cuda_twins *t, const double *host, const double *dev,
                        size_t n, sim_status *st);
// *out = a device array holding host array `host`'s n doubles for work queued on mem's stream:
// its twin where it has one of n doubles (valid until the next keep), else `scratch` (device, n
// doubles) with an upload queued into it, not synchronised (an upload from pageable memory is
// staged before it returns). t may be NULL: an upload.
int sim_cuda_twins_get(cuda_ctx *mem, cuda_twins *t, const double *host, size_t n, double *scratch,
                       const double **out, sim_status *st);
// Host array `host` (n doubles) made whole from its twin (queued on mem's stream after the work
// before it, then waited for); SIM_ERR_DEVICE where it has none of n doubles.
int sim_cuda_twins_fetch(cuda_ctx *mem, cuda_twins *t, double *host, size_t n, sim_status *st);
void sim_cuda_twins_free(cuda_ctx *mem, cuda_twins *t);

#endif

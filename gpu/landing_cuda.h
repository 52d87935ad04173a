// SPDX-License-Identifier: MIT
// Found contacts down to the host with one wait where they fit a guess, private to gpu/: a
// detection pass's contacts lie on the device in a buffer, their count in a device int that a
// scan wrote. Reading the count first and then the contacts takes two waits for the device. A
// landing instead copies the count and the first `guess` contacts into page-locked host memory
// together, and copies the rest only where the count was larger (a second wait). The guess
// follows the counts seen: the last count and a quarter more, the more at most
// SIM_CUDA_LANDING_SLACK (each contact guessed but not found is 208 bytes copied for nothing),
// the guess at least SIM_CUDA_LANDING_MIN.
// Used by the vertex pass (detect_cuda.cu) and the obstacle points' pass (points_cuda.cu).
#ifndef SIM_GPU_LANDING_CUDA_H
#define SIM_GPU_LANDING_CUDA_H
#include "cuda_ctx.h"

extern "C" {
#include "../core/contact/detect.h"
}

#define SIM_CUDA_LANDING_MIN 64
#define SIM_CUDA_LANDING_SLACK 256

typedef struct cuda_landing {
  int *count;      // page-locked (or ordinary, pageable = 1): the count copied down
  sim_contact *c;  // the same: room for cap contacts
  size_t cap;
  int pageable;
  size_t guess;     // contacts copied with the count (0 until the first run: the minimum)
  long long waits;  // second waits taken (more contacts than guessed)
} cuda_landing;

// The contacts this run copies with the count: the guess, at most `avail` (what the device
// buffer holds, or can hold).
size_t sim_cuda_landing_guess(const cuda_landing *l, size_t avail);
// Queues on stream s the copies of *dev_count and of the first n device contacts dev_c (n from
// sim_cuda_landing_guess) into l; nothing waits.
int sim_cuda_landing_queue(cuda_landing *l, cudaStream_t s, const int *dev_count,
                           const sim_contact *dev_c, size_t n, sim_status *st);
// After a wait for the stream: the count, and the contacts that came with it (n of them, as
// queued) copied into out->c (grown to hold the count). *more = 1 where the count exceeds n: the
// caller copies contacts n..count-1 itself. The next guess follows the count.
int sim_cuda_landing_take(cuda_landing *l, size_t n, sim_detect_contacts *out, int *count,
                          int *more, sim_status *st);
void sim_cuda_landing_free(cuda_landing *l);

#endif

// SPDX-License-Identifier: MIT
// The GPU benchmarks' timer (simctl-bench-global, simctl-bench-wprod): milliseconds a call of
// fn over reps back-to-back calls, after one call to warm up, by CUDA events on stream s (no
// host synchronisation between the calls); time_each_ms: each call alone, after work of its
// own that is not timed (simctl-bench-global's calls with the L2 cache flushed).
#ifndef SIM_GPU_BENCH_TIME_CUH
#define SIM_GPU_BENCH_TIME_CUH
#include <stdlib.h>

template <class F>
static double time_ms(cudaStream_t s, int reps, F fn) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  fn();  // warm-up
  cudaEventRecord(a, s);
  for (int i = 0; i < reps; i++) fn();
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / reps;
}

// Milliseconds a call of fn, each of reps calls timed alone by its own pair of events on s after
// prep() (queued before the first event: not timed), after one call of fn to warm up; 0 where
// the events cannot be made.
template <class P, class F>
static double time_each_ms(cudaStream_t s, int reps, P prep, F fn) {
  cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)reps, sizeof *ev);
  int made = 0;
  while (ev && made < 2 * reps && cudaEventCreate(&ev[made]) == cudaSuccess) made++;
  double sum = 0.0;
  if (made == 2 * reps) {
    fn();  // warm-up
    for (int i = 0; i < reps; i++) {
      prep();
      cudaEventRecord(ev[2 * i], s);
      fn();
      cudaEventRecord(ev[2 * i + 1], s);
    }
    cudaEventSynchronize(ev[2 * reps - 1]);
    for (int i = 0; i < reps; i++) {
      float ms = 0.0f;
      cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
      sum += ms;
    }
  }
  for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
  free(ev);
  return made == 2 * reps ? sum / reps : 0.0;
}

#endif

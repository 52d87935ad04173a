// SPDX-License-Identifier: MIT
// The GPU benchmarks' timer (simctl-bench-global, simctl-bench-wprod): milliseconds a call of
// fn over reps back-to-back calls, after one call to warm up, by CUDA events on stream s (no
// host synchronisation between the calls).
#ifndef SIM_GPU_BENCH_TIME_CUH
#define SIM_GPU_BENCH_TIME_CUH

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

#endif

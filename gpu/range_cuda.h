// SPDX-License-Identifier: MIT
// Named ranges of the host's time in the CUDA backend (NVTX, header-only in the CUDA toolkit),
// private to gpu/: Nsight Systems shows them on the host's timeline and `nsys stats --report
// nvtx_sum` sums them (scripts/gpu_report.sh --only profile), so a profile says how much of a
// frame's collision detection (timing.csv's `cd`) the host spends queueing, waiting for the
// device, taking the contacts and merging them. Without a profiler attached a range costs a
// call that returns at once. The host emulation (tests/emu) counts them.
#ifndef SIM_GPU_RANGE_CUDA_H
#define SIM_GPU_RANGE_CUDA_H
#include <nvtx3/nvToolsExt.h>

// A range from its construction to the end of its scope.
struct sim_cuda_range {
  explicit sim_cuda_range(const char *name) { nvtxRangePushA(name); }
  ~sim_cuda_range() { nvtxRangePop(); }
  sim_cuda_range(const sim_cuda_range &) = delete;
  sim_cuda_range &operator=(const sim_cuda_range &) = delete;
};

#endif

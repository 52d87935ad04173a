// SPDX-License-Identifier: MIT
// Named ranges of the CUDA backend's time, private to gpu/ (ranges_cuda.cu):
// - host ranges (sim_cuda_range): NVTX, so Nsight Systems shows them on the host's timeline and
//   `nsys stats --report nvtx_sum` sums them (scripts/gpu_report.sh --only profile): how much of
//   a frame's collision detection (timing.csv's `cd`) the host spends queueing, waiting for the
//   device, taking the contacts and merging them. Without a profiler attached a range costs a
//   call that returns at once.
// - with SIMCTL_CUDA_RANGES=on, the same ranges timed on the host's clock, and device ranges
//   (sim_cuda_dev_range): a pair of events around work queued on a stream, the time from the
//   stream reaching the first to its reaching the second (the kernels' run, and any time the
//   device waited there for the host to queue the next). A run writes their counts and sums to
//   ranges.csv in its output folder (sim_cuda_ranges_write), so the split of `cd` needs no
//   profiler on the machine. Off (the default), a device range records nothing.
// The host emulation (tests/emu) counts the NVTX ranges; its events read the host's clock.
#ifndef SIM_GPU_RANGE_CUDA_H
#define SIM_GPU_RANGE_CUDA_H
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

extern "C" {
#include "../core/base/status.h"
}

extern int sim_cuda_ranges_on;  // SIMCTL_CUDA_RANGES=on in the backend that opened them

// A host range opened (NVTX; timed where the ranges are on) and the innermost one closed. The
// names (here and below) go to ranges.csv as they are: string literals without commas or quotes.
void sim_cuda_range_push(const char *name);
void sim_cuda_range_pop(void);

// A device range's opening event on s (its slot; -1 where the ranges are off or a call failed,
// which stops the device ranges and is reported with ranges.csv), and its closing one.
int sim_cuda_dev_range_open(cudaStream_t s, const char *name);
void sim_cuda_dev_range_close(cudaStream_t s, int slot);

// The device ranges whose events the stream has passed summed (after a wait on it), their
// events free again.
void sim_cuda_ranges_resolve(void);

// The ranges' sums cleared and the switch read (SIMCTL_CUDA_RANGES: off or on); at the end the
// device ranges resolved (after a wait: call with the stream idle) and, where on, written to
// DIR/ranges.csv (sim_cuda_ranges_write). sim_cuda_ranges_close frees the events.
int sim_cuda_ranges_open(sim_status *st);
int sim_cuda_ranges_write(const char *dir, sim_status *st);
void sim_cuda_ranges_close(void);

// A host range from its construction to the end of its scope.
struct sim_cuda_range {
  explicit sim_cuda_range(const char *name) { sim_cuda_range_push(name); }
  ~sim_cuda_range() { sim_cuda_range_pop(); }
  sim_cuda_range(const sim_cuda_range &) = delete;
  sim_cuda_range &operator=(const sim_cuda_range &) = delete;
};

// A device range around what is queued on s from its construction to the end of its scope.
struct sim_cuda_dev_range {
  sim_cuda_dev_range(cudaStream_t s, const char *name)
      : s_(s), slot_(sim_cuda_ranges_on ? sim_cuda_dev_range_open(s, name) : -1) {}
  ~sim_cuda_dev_range() {
    if (slot_ >= 0) sim_cuda_dev_range_close(s_, slot_);
  }
  sim_cuda_dev_range(const sim_cuda_dev_range &) = delete;
  sim_cuda_dev_range &operator=(const sim_cuda_dev_range &) = delete;

 private:
  cudaStream_t s_;
  int slot_;
};

#endif

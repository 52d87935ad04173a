// SPDX-License-Identifier: MIT
// The host emulation of CUDA (tests/emu/README.md): CUB's device-wide exclusive prefix sum, with
// its two calls (the first, with no work space, asks for the work space's size); the scan is
// queued on the device like a kernel.
#ifndef SIM_EMU_CUB_DEVICE_SCAN_CUH
#define SIM_EMU_CUB_DEVICE_SCAN_CUH
#include "../../cuda_runtime.h"

namespace cub {
struct DeviceScan {
  template <class In, class Out>
  static cudaError_t ExclusiveSum(void *tmp, size_t &tmp_bytes, In in, Out out, int n,
                                  cudaStream_t stream = 0) {
    if (!tmp) {
      tmp_bytes = 256;
      return cudaSuccess;
    }
    if (n < 0) return cudaErrorInvalidValue;
    ::sim_emu::check_device_range("cub::DeviceScan::ExclusiveSum work space", tmp, tmp_bytes);
    ::sim_emu::check_device_range("cub::DeviceScan::ExclusiveSum input", &in[0],
                                  sizeof in[0] * (size_t)n);
    ::sim_emu::check_device_range("cub::DeviceScan::ExclusiveSum output", &out[0],
                                  sizeof out[0] * (size_t)n);
    ::sim_emu::enqueue(stream, [in, out, n] {
      typename std::decay<decltype(in[0])>::type sum{};
      for (int i = 0; i < n; i++) {
        auto x = in[i];
        out[i] = sum;
        sum = sum + x;
      }
    });
    return cudaSuccess;
  }
};
} // namespace cub

#endif

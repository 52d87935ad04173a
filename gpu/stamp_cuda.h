// SPDX-License-Identifier: MIT
// The device Newton solve's time stamps (private to gpu/): a boundary's tag and the device's
// global timer, written by a one-thread kernel of its own or by the kernel that comes next
// anyway (nsn_state.h sim_cuda_nsn_stamp_at), so the buckets are timed without a wait.
#ifndef SIM_GPU_STAMP_CUDA_H
#define SIM_GPU_STAMP_CUDA_H
#include <time.h>

// A time stamp on the device: the boundary (NSN_AT_*) and the device's global timer (ns) when
// the work queued before it was done.
typedef struct nsn_stamp {
  long long ns;
  int tag, pad;
} nsn_stamp;

// Where a kernel that also marks a boundary writes its stamp (sim_cuda_nsn_stamp_at): the
// stamps, their count on the device, the array's room and the tag; n NULL: no stamp.
typedef struct nsn_stamp_at {
  nsn_stamp *s;
  int *n;
  int cap, tag;
} nsn_stamp_at;

// The device's global nanosecond timer (%globaltimer), the host's monotonic clock in the
// emulation.
static __host__ __device__ inline long long nsn_clock_ns(void) {
#if defined(__CUDA_ARCH__)
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return (long long)t;
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
#endif
}

// The stamp at slot *n (then *n + 1), where there is room (the host checks the count); one
// thread, after the work queued before its kernel is done.
static __device__ inline void nsn_stamp_write(nsn_stamp_at a) {
  const int i = *a.n;
  *a.n = i + 1;
  if (i < a.cap) a.s[i].tag = a.tag, a.s[i].ns = nsn_clock_ns();
}

// The same by the first thread of a kernel's first block, before anything else it does (every
// thread calls it; nothing where a.n is NULL). The kernels before it in the stream are done
// when it starts, so it marks their end as a stamp of its own would, a launch earlier.
static __device__ inline void nsn_stamp_first(nsn_stamp_at a) {
  if (a.n && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) nsn_stamp_write(a);
}

// No stamp (nsn_stamp_first does nothing).
static inline nsn_stamp_at nsn_no_stamp(void) {
  nsn_stamp_at a = {NULL, NULL, 0, 0};
  return a;
}

#endif

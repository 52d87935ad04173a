// SPDX-License-Identifier: MIT
// The block that finishes last among `of` blocks sharing a counter: a pattern for one-launch
// reductions (the device Newton solve's fused reductions, nsn_reduce.cuh; the global step's
// rows of S split over several blocks, global_step.cu). Each block writes its partial result to
// memory, then counts itself; the last to count reads the others' partials (through volatile
// pointers: they are not in its L1) and sets the counter back to 0 for the next launch, so a
// graph can launch the kernel again with no reset in between.
#ifndef SIM_GPU_LAST_BLOCK_CUH
#define SIM_GPU_LAST_BLOCK_CUH

// Whether this block counted last of `of` on *count (every thread of the block calls it, after
// its writes; in the last block, the others' writes are visible when it returns).
static __device__ int last_to_count(int *count, int of) {
  __shared__ int last;
  __threadfence(); /* each thread's writes before the block's count */
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(count, 1) == of - 1;
    if (last) *count = 0;
  }
  __syncthreads();
  if (last) __threadfence(); /* the others' writes */
  return last;
}

#endif

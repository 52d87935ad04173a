// SPDX-License-Identifier: MIT
// The host emulation of CUDA (tests/emu/README.md): the part of the CUDA runtime that gpu/ uses,
// for gpu/*.cu compiled as C++ by the host compiler after tests/emu/cu2cpp.c has rewritten its
// kernel launches. Device memory is host memory the emulator keeps a map of; a launch runs every
// thread of every block on the host, one block at a time, each thread a fibre, so that
// __syncthreads and warp shuffles work as on a GPU. Misuse a GPU would punish (a host pointer
// given to a kernel or to a device copy, a copy past an allocation's end, an invalid launch
// configuration, a barrier not every thread reaches) stops the program with a message naming
// the source line. Work queued on a stream runs only when the host synchronises, so a host read
// of a result without a synchronisation before it sees stale data, as it may on a GPU.
// Not a GPU: the tests it runs say so, and it proves nothing about timing.
#ifndef SIM_EMU_CUDA_RUNTIME_H
#define SIM_EMU_CUDA_RUNTIME_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <functional>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __launch_bounds__(...)

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorGraphExecUpdateFailure = 910,
  cudaErrorLossyQuery = 913
};
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
typedef struct sim_emu_stream *cudaStream_t;
typedef struct sim_emu_event *cudaEvent_t;
typedef struct sim_emu_graph *cudaGraph_t;
typedef struct sim_emu_graph *cudaGraphExec_t; // an instantiated graph: a copy of its work
typedef struct sim_emu_gnode *cudaGraphNode_t;  // a node of a captured graph
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0,
  cudaGraphExecUpdateError = 1,
  cudaGraphExecUpdateErrorTopologyChanged = 2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 3
};
struct cudaGraphExecUpdateResultInfo {
  cudaGraphExecUpdateResult result;
  void *errorNode, *errorFromNode;
};
#define CUDART_VERSION 13000  // the API of CUDA 13.0 (the graphs' edge data), as gpu/ is built for
// A captured graph's nodes and edges, as far as sim_cuda_graph_pdl (gpu/pdl_cuda.cu) reads and
// changes them: the emulation's graphs are chains (each node depends on the one before), kernels
// and event records told apart, copies and memsets reported as copies. An edge may be taken
// out and put back, between kernels as a programmatic one (from the port where each block has
// begun, or where each has triggered: the emulation does not tell these apart); a kernel launched
// behind one must call SIM_PDL_WAIT() in every thread (gpu/pdl.cuh), or the program stops.
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x00,
  cudaGraphNodeTypeMemcpy = 0x01,
  cudaGraphNodeTypeEventRecord = 0x07
};
enum cudaGraphDependencyType_enum {
  cudaGraphDependencyTypeDefault = 0,
  cudaGraphDependencyTypeProgrammatic = 1
};
struct cudaGraphEdgeData {
  unsigned char from_port, to_port, type, reserved[5];
};
#define cudaGraphKernelNodePortDefault 0
#define cudaGraphKernelNodePortProgrammatic 1
#define cudaGraphKernelNodePortLaunchCompletion 2
struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim, blockDim;
  unsigned sharedMemBytes;
  void **kernelParams, **extra;
};
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type);
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edges, size_t *n);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to, const cudaGraphEdgeData *edges,
                                        size_t n);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edges,
                                     size_t n);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p);
// The name of a kernel captured into a graph so far: its launch's text (`k_w_then<E, 1>`);
// a GPU gives its symbol's, which may be mangled (`_ZL8k_update...`).
cudaError_t cudaFuncGetName(const char **name, const void *func);
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
struct cudaDeviceProp {
  char name[256];
  int major, minor;
  size_t totalGlobalMem;
  int l2CacheSize;  // bytes: the emulation's stand-in, 4 MiB
};

// A kernel's attributes: only whether the device can run it (SIMCTL_EMU_CC against the
// build's SIMCTL_CUDA_ARCHS, as the driver's loader decides), and the architectures of its
// machine code and PTX (10 major + minor) where it can.
struct cudaFuncAttributes {
  int binaryVersion, ptxVersion;
};
cudaError_t sim_emu_func_attributes(cudaFuncAttributes *a);
template <class F>
static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F) {
  return sim_emu_func_attributes(a);
}
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaGetDevice(int *device);
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaMalloc(void **p, size_t bytes);
template <class T>
static inline cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
cudaError_t cudaFree(void *p);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = 0);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s = 0);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s = 0, unsigned flags = 0);
// Stream capture into a graph, and its launches: what a stream queues while it captures is kept
// (not run) and queued again, in order, at each launch of the instantiated graph; an event
// recorded with cudaEventRecordExternal is recorded again at each launch. What a GPU refuses
// while a stream captures (a synchronisation, a copy to or from pageable host memory, an
// allocation or a free, an event recorded without cudaEventRecordExternal, the legacy stream)
// stops the program with a message. SIMCTL_EMU_NO_CAPTURE=1 refuses every capture.
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                          unsigned long long flags = 0);
// The instantiated graph takes g's work where g has as much of it, of the same kinds (work,
// event records) and with the same edges (programmatic or not); otherwise
// cudaErrorGraphExecUpdateFailure and e unchanged (a GPU also refuses a kernel node whose function
// changed, which the emulation does not tell apart).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info);
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e);
cudaError_t cudaGraphDestroy(cudaGraph_t g);

// How often the host has waited for the device so far (a synchronisation with work pending, a
// copy to pageable host memory: emu_runtime.cpp); C linkage, so the C tests built for the
// emulation can read it.
extern "C" long long sim_emu_host_waits(void);
// Bytes cudaMemcpyAsync has copied from the host to the device, and back, so far.
extern "C" void sim_emu_copy_bytes(long long *to_device, long long *to_host);

namespace sim_emu {
// The running thread's coordinates (set by the scheduler before it resumes a thread).
extern uint3 thread_idx, block_idx;
extern dim3 block_dim, grid_dim;

void syncthreads();
// SIM_PDL_WAIT() (gpu/pdl.cuh): the running thread's griddepcontrol.wait. In order as the
// emulation runs kernels, it has nothing to wait for; it records that the thread made it, which
// a kernel launched behind a programmatic edge must have done in every thread.
void pdl_wait();
// A warp shuffle down, checked (the mask, the width, a lane that reads one that made fewer) and
// its thread's slots grown where full: emu_runtime.cpp. shfl_down_sync below takes the common
// case inline (a shuffle is a handful of instructions in a warp reduction's loop).
uint64_t shfl_down(uint64_t bits, unsigned delta, unsigned mask, int width);
// The running thread's index in its block (-1 outside a kernel), the lanes of the block's whole
// warps, and each thread's shuffles since the block's last barrier: thread t's k-th value at
// shfl_slots[t * shfl_cap + k], shfl_made[t] of them.
extern int lane_index, whole_warp_lanes;
extern uint64_t *shfl_slots;
extern size_t shfl_cap;
extern unsigned shfl_made[1024];
static inline uint64_t shfl_down_sync(uint64_t bits, unsigned delta, unsigned mask, int width) {
  const int t = lane_index;
  if (mask == 0xffffffffu && width == 32 && t >= 0 && t < whole_warp_lanes) {
    const unsigned k = shfl_made[t];
    const int s = t + (int)delta;
    if (k < shfl_cap && ((t & 31) + delta >= 32 || shfl_made[s] > k)) {
      shfl_slots[(size_t)t * shfl_cap + k] = bits;
      shfl_made[t] = k + 1;
      return (t & 31) + delta >= 32 ? bits : shfl_slots[(size_t)s * shfl_cap + k];
    }
  }
  return shfl_down(bits, delta, mask, width);
}

// Stops the program unless [p, p + bytes) lies in one device allocation (`what` names the use).
void check_device_range(const char *what, const void *p, size_t bytes);
// Queues work on stream s, to run in the order it was queued there when the host waits for the
// stream (cudaStreamSynchronize), for an event recorded after it (cudaEventSynchronize), or for
// everything (cudaFree, cudaFreeHost, cudaStreamDestroy); a stream waiting for an event
// (cudaStreamWaitEvent) first runs the recording stream up to it. The legacy stream (0) runs
// its work at once, after all work queued on the others.
cudaError_t enqueue(cudaStream_t s, std::function<void()> work); // a refusal: its error

struct launch_cfg {
  const char *file;
  int line;
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  const void *func = nullptr;  // the kernel, and its launch's text (cu2cpp): cudaFuncGetName
  const char *name = nullptr;
};
// Stops the program unless p is NULL or inside a device allocation (argument `arg` of a launch).
void check_kernel_pointer(const launch_cfg &cfg, int arg, const void *p);
// Checks the launch's configuration (stopping the program when it is invalid), then queues it:
// body runs once per thread of the launch.
void execute(const launch_cfg &cfg, const std::function<void()> &body);

struct launcher {
  launch_cfg cfg;
  launcher(const char *file, int line, dim3 grid, dim3 block, size_t shmem = 0,
           cudaStream_t stream = 0)
      : cfg{file, line, grid, block, shmem, stream} {}
  // launcher(...).run(kernel)(args): the call converts the arguments to the kernel's parameter
  // types, as a launch does.
  template <class... P>
  struct bound {
    launcher *l;
    void (*kernel)(P...);
    void operator()(P... p) {
      int i = 0;
      (l->check(i++, p), ...);
      void (*k)(P...) = kernel;
      execute(l->cfg, [=] { k(p...); });
    }
  };
  template <class... P>
  bound<P...> run(void (*kernel)(P...), const char *name = nullptr) {
    cfg.func = (const void *)kernel;
    cfg.name = name;
    return bound<P...>{this, kernel};
  }
  template <class A>
  void check(int i, const A &a) {
    if constexpr (std::is_pointer<A>::value) check_kernel_pointer(cfg, i, (const void *)a);
  }
};
} // namespace sim_emu

#define threadIdx (::sim_emu::thread_idx)
#define blockIdx (::sim_emu::block_idx)
#define blockDim (::sim_emu::block_dim)
#define gridDim (::sim_emu::grid_dim)
#define warpSize 32

static inline void __syncthreads(void) { ::sim_emu::syncthreads(); }
// Blocks run one after another and their threads switch only at barriers and shuffles, so every
// write is seen by whatever runs after it: a memory fence has nothing to order.
static inline void __threadfence(void) {}

// The fibres of the emulated threads switch only at barriers and shuffles, so a read-modify-write
// is atomic as written; returns the old value, as the device's does.
static inline double atomicAdd(double *p, double v) {
  double old = *p;
  *p = old + v;
  return old;
}
static inline int atomicAdd(int *p, int v) {
  int old = *p;
  *p = old + v;
  return old;
}

template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffle of this type");
  uint64_t b = 0;
  memcpy(&b, &v, sizeof v);
  b = ::sim_emu::shfl_down_sync(b, delta, mask, width);
  T r;
  memcpy(&r, &b, sizeof r);
  return r;
}

#endif

// SPDX-License-Identifier: MIT
// CUDA device discovery, and the error and allocation helpers of the CUDA backend.
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ctx.h"

extern "C" {
#include "../core/base/alloc.h"
}

// The emulation's device arrays are host memory: under AddressSanitizer a poisoned gap follows
// each array of a group (sim_cuda_group_grow).
#if defined(SIM_EMU_CUDA_RUNTIME_H) && defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SIM_GROUP_GUARD 256
#else
#define SIM_GROUP_GUARD 0
#endif

// Why the runtime found no device, in the user's terms: no driver, or one too old for the
// runtime simctl was built with (both CUDA_VERSION-style numbers, 1000 major + 10 minor).
static void no_device(cudaError_t err, char *why, size_t len) {
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  if (err == cudaErrorInsufficientDriver && drv == 0)
    snprintf(why, len, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
  else if (err == cudaErrorInsufficientDriver)
    snprintf(why, len,
             "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d runtime this "
             "simctl was built with: update the driver, or build simctl with an older CUDA "
             "toolkit",
             drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
  else
    snprintf(why, len, "no usable CUDA device: %s", cudaGetErrorString(err));
}

static __global__ void k_probe() { SIM_PDL_WAIT(); }

// Whether the device can run this build's kernels (machine code for its architecture, or PTX
// its driver compiles: SIMCTL_CUDA_ARCHS, CMakeLists.txt), asked of an empty one as CUB does;
// if not, why, naming the device, its architecture and the build's (a GPU the list leaves out,
// say sm_61, would otherwise fail at the run's first kernel, and `--device auto` with it).
static int kernels_run(int gpu, const cudaDeviceProp &prop, char *why, size_t len) {
  cudaFuncAttributes a;
  cudaError_t e = cudaSetDevice(gpu);
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&a, k_probe);
  if (e == cudaSuccess) return 1;
  (void)cudaGetLastError();
  snprintf(why, len,
           "CUDA device %d (%.200s, sm_%d%d) cannot run this simctl's kernels (%s): they are "
           "built for %s (SIMCTL_CUDA_ARCHS); build for it with make build CUDA_ARCHS=%d%d-real",
           gpu, prop.name, prop.major, prop.minor, cudaGetErrorString(e), SIMCTL_CUDA_ARCHS,
           prop.major, prop.minor);
  return 0;
}

extern "C" int sim_cuda_available(int gpu, char *why, size_t len) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    no_device(err, why, len);
    cudaGetLastError(); /* not a sticky error: the CPU runs on */
    return 0;
  }
  if (count == 0) {
    snprintf(why, len, "no CUDA device found");
    return 0;
  }
  if (gpu < 0 || gpu >= count) {
    if (count == 1)
      snprintf(why, len, "no CUDA device %d (solver.gpu, --gpu): one found, device 0", gpu);
    else
      snprintf(why, len, "no CUDA device %d (solver.gpu, --gpu): %d found, devices 0 to %d", gpu,
               count, count - 1);
    return 0;
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, gpu) != cudaSuccess) {
    snprintf(why, len, "CUDA device %d", gpu);
    return 1;
  }
  if (!kernels_run(gpu, prop, why, len)) return 0;
  snprintf(why, len, "CUDA device %d: %.200s", gpu, prop.name);
  return 1;
}

extern "C" int sim_cuda_devices(sim_cuda_device *out, int max, int *driver, int *runtime, char *why,
                                size_t len) {
  int count = 0;
  *driver = *runtime = 0;
  cudaDriverGetVersion(driver);
  cudaRuntimeGetVersion(runtime);
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (err != cudaSuccess)
      no_device(err, why, len);
    else
      snprintf(why, len, "no CUDA device found");
    cudaGetLastError();
    return -1;
  }
  for (int i = 0; i < count && i < max; i++) {
    sim_cuda_device *d = &out[i];
    cudaDeviceProp prop;
    memset(d, 0, sizeof *d);
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      (void)cudaGetLastError();
      snprintf(d->name, sizeof d->name, "?");
      snprintf(d->why, sizeof d->why, "CUDA device %d: its properties cannot be read", i);
      continue;
    }
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    d->major = prop.major, d->minor = prop.minor;
    d->mem_gib = (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
    d->runs = kernels_run(i, prop, d->why, sizeof d->why);
  }
  return count;
}

extern "C" const char *sim_cuda_archs(void) { return SIMCTL_CUDA_ARCHS; }

int sim_cuda_fail(sim_status *st, const char *what, const char *err, const char *file, int line) {
  return sim_fail(st, SIM_ERR_DEVICE, "CUDA: %s failed: %s (%s:%d)", what, err, file, line);
}

int sim_cuda_alloc(cuda_ctx *c, void **p, size_t bytes, const void *host, sim_status *st) {
  *p = NULL;
  size_t b = bytes > 0 ? bytes : 8;
  cudaError_t e = cudaMalloc(p, b);
  if (e != cudaSuccess) {
    *p = NULL;
    return sim_fail(st, SIM_ERR_MEMORY,
                    "CUDA: cannot allocate %.1f MiB on the device (%s; %.1f "
                    "MiB already held by simctl)",
                    b / 1048576.0, cudaGetErrorString(e), c->dev_bytes / 1048576.0);
  }
  c->dev_bytes += b;
  /* on the backend's stream, finished before anything else is queued on it */
  if (host && bytes > 0)
    SIM_CU(cudaMemcpyAsync(*p, host, bytes, cudaMemcpyHostToDevice, c->stream), st);
  else
    SIM_CU(cudaMemsetAsync(*p, 0, b, c->stream), st);
  SIM_CU(cudaStreamSynchronize(c->stream), st);
  return SIM_OK;
}

void sim_cuda_release(cuda_ctx *c, void *p, size_t bytes) {
  if (!p) return;
  cudaFree(p);
  size_t b = bytes > 0 ? bytes : 8;
  c->dev_bytes = c->dev_bytes > b ? c->dev_bytes - b : 0;
}

static size_t group_at(size_t off) { return (off + 255) / 256 * 256; }

void sim_cuda_group_free(cuda_ctx *c, cuda_group *g) {
  for (int i = 0; i < g->n; i++) *g->at[i] = NULL;
  if (g->base) {
#if SIM_GROUP_GUARD
    ASAN_UNPOISON_MEMORY_REGION(g->base, g->bytes);
#endif
    sim_cuda_release(c, g->base, g->bytes);
  }
  g->base = NULL, g->bytes = 0, g->cap = 0, g->n = 0;
}

int sim_cuda_group_grow(cuda_ctx *c, cuda_group *g, size_t n, size_t slack,
                        int (*parts)(void *arg, size_t cap, cuda_part *p), void *arg,
                        sim_status *st) {
  if (g->base && n <= g->cap) return SIM_OK;
  sim_cuda_group_free(c, g);
  const size_t cap = n + n / 2 + slack;
  cuda_part p[SIM_CUDA_GROUP_PARTS];
  const int np = parts(arg, cap, p);
  size_t total = 0;
  for (int i = 0; i < np; i++) total = group_at(total) + p[i].bytes + SIM_GROUP_GUARD;
  int rc = sim_cuda_alloc(c, &g->base, total, NULL, st); /* zeroed, waited for */
  if (rc) return rc;
  g->bytes = total > 0 ? total : 8, g->cap = cap, g->n = np;
  size_t off = 0;
  for (int i = 0; i < np; i++) {
    off = group_at(off);
    *p[i].p = (char *)g->base + off;
    g->at[i] = p[i].p;
    off += p[i].bytes;
#if SIM_GROUP_GUARD
    ASAN_POISON_MEMORY_REGION((char *)g->base + off, SIM_GROUP_GUARD);
#endif
    off += SIM_GROUP_GUARD;
  }
  return SIM_OK;
}

int sim_cuda_host_alloc(void **p, size_t bytes, int *pageable, sim_status *st) {
  size_t b = bytes > 0 ? bytes : 8;
  *pageable = 0;
  if (cudaMallocHost(p, b) == cudaSuccess) return SIM_OK;
  (void)cudaGetLastError(); /* a refusal (a locked-memory limit) is not an error state */
  *pageable = 1;
  if (!(*p = sim_malloc(b))) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%zu bytes)", b);
  return SIM_OK;
}

void sim_cuda_host_free(void *p, int pageable) {
  if (!p) return;
  if (pageable)
    sim_free(p);
  else
    cudaFreeHost(p);
}

int sim_cuda_stream_open(void *stream, cudaStream_t *out, int *own, sim_status *st) {
  *own = 0;
  if (stream) {
    *out = (cudaStream_t)stream;
    return SIM_OK;
  }
  SIM_CU(cudaStreamCreate(out), st);
  *own = 1;
  return SIM_OK;
}

int sim_cuda_env_choice(const char *name, const char *a, const char *b, int dflt, int *out,
                        sim_status *st) {
  const char *e = getenv(name);
  *out = dflt;
  if (!e || !*e) return SIM_OK;
  if (!strcmp(e, a) || !strcmp(e, b)) {
    *out = strcmp(e, a) != 0;
    return SIM_OK;
  }
  return sim_fail(st, SIM_ERR_USAGE, "%s=%s: expected %s or %s", name, e, a, b);
}

int sim_cuda_env_set(const char *name) {
  const char *e = getenv(name);
  return e && *e;
}

// The backend's settings in the environment, each read where it applies; SIMCTL_CUDA_ARCHS and
// SIMCTL_CUDA_EMU are the build's (CMake's), which an environment may hold too.
static const char *const env_names[] = {"SIMCTL_CUDA_COL_WARPS",
                                        "SIMCTL_CUDA_CR_STEP",
                                        "SIMCTL_CUDA_DELASSUS",
                                        "SIMCTL_CUDA_DETECT",
                                        "SIMCTL_CUDA_DETECT_SLOTS",
                                        "SIMCTL_CUDA_FUSE",
                                        "SIMCTL_CUDA_GATHER_BATCH",
                                        "SIMCTL_CUDA_GRAPH",
                                        "SIMCTL_CUDA_LOCAL_BLOCKS",
                                        "SIMCTL_CUDA_LOCAL_SPLIT",
                                        "SIMCTL_CUDA_MF_QUEUE",
                                        "SIMCTL_CUDA_NSN",
                                        "SIMCTL_CUDA_PDL",
                                        "SIMCTL_CUDA_RANGES",
                                        "SIMCTL_CUDA_ROW_CHUNK",
                                        "SIMCTL_CUDA_ROW_SPLIT",
                                        "SIMCTL_CUDA_S",
                                        "SIMCTL_CUDA_SPMV",
                                        "SIMCTL_CUDA_S_COLS",
                                        "SIMCTL_CUDA_S_ROWS",
                                        "SIMCTL_CUDA_TUNE",
                                        "SIMCTL_CUDA_TWINS",
                                        "SIMCTL_CUDA_WCOLS",
                                        "SIMCTL_CUDA_ARCHS",
                                        "SIMCTL_CUDA_EMU"};
enum { SIM_ENV_NAMES = sizeof env_names / sizeof env_names[0] };

// Edits (insertions, deletions, substitutions) from a to b, names of up to 63 characters.
static int edits(const char *a, const char *b) {
  int row[64], la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 63 || lb > 63) return 64;
  for (int j = 0; j <= lb; j++) row[j] = j;
  for (int i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= lb; j++) {
      const int up = row[j], sub = diag + (a[i - 1] != b[j - 1]), del = up + 1,
                ins = row[j - 1] + 1, m = sub < del ? sub : del;
      row[j] = m < ins ? m : ins;
      diag = up;
    }
  }
  return row[lb];
}

int sim_cuda_env_known(const char *name) {
  for (int i = 0; i < SIM_ENV_NAMES; i++)
    if (!strcmp(name, env_names[i])) return 1;
  return 0;
}

int sim_cuda_env_unknown(const char *name, sim_status *st) {
  const char *near = NULL;
  int best = 4; /* a suggestion within three edits */
  for (int i = 0; i < SIM_ENV_NAMES; i++) {
    const int d = edits(name, env_names[i]);
    if (d < best) best = d, near = env_names[i];
  }
  if (near)
    return sim_fail(st, SIM_ERR_USAGE, "%s: no such setting of the CUDA backend (did you mean %s?)",
                    name, near);
  return sim_fail(st, SIM_ERR_USAGE,
                  "%s: no such setting of the CUDA backend (the README's Commands lists them)",
                  name);
}

extern char **environ;
int sim_cuda_env_check(sim_status *st) {
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "SIMCTL_CUDA_", 12) != 0) continue;
    char name[128];
    const size_t k = strcspn(*e, "=");
    snprintf(name, sizeof name, "%.*s", (int)(k < sizeof name ? k : sizeof name - 1), *e);
    if (!sim_cuda_env_known(name)) return sim_cuda_env_unknown(name, st);
  }
  return SIM_OK;
}

int sim_cuda_env_int(const char *name, int lo, int hi, int dflt, int *out, sim_status *st) {
  const char *e = getenv(name);
  *out = dflt;
  if (!e || !*e) return SIM_OK;
  char *end = NULL;
  errno = 0;
  long v = strtol(e, &end, 10);
  if (errno || *end || end == e || v < lo || v > hi)
    return sim_fail(st, SIM_ERR_USAGE, "%s=%s: expected a whole number from %d to %d", name, e, lo,
                    hi);
  *out = (int)v;
  return SIM_OK;
}

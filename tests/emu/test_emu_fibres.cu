// SPDX-License-Identifier: MIT
// The emulation's own threads (tests/emu/README.md): warp shuffles, barriers and threads that
// return early compute what a GPU computes, and a shuffle that not every lane of its warp makes,
// or one in a partial warp, stops the program with a message naming the launch. The launches
// here are the patterns gpu/ uses (warp and block reductions, a bounds check before a block's
// barrier); the misuse runs in a child process, which must die with the message.
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "check.h"
}

// One value per thread: a warp's sum by shuffles down at `width` (a power of two up to 32),
// written by each group's first lane.
static __global__ void k_warp_sum(const double *x, int width, double *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = x[i];
  for (int d = width / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d, width);
  out[i] = (i % width) == 0 ? v : 0.0;
}

// `rounds` shuffles by 1 in a row: lane t's value becomes its own plus lane t + 1's, each
// lane's many values read in the order the lanes made them.
static __global__ void k_shift_add(int rounds, long long *out) {
  long long v = (long long)(threadIdx.x % 32) + 1;
  for (int r = 0; r < rounds; r++) {
    const long long up = __shfl_down_sync(0xffffffffu, v, 1);
    v = (v + ((threadIdx.x % 32) < 31 ? up : 0)) % 1000003;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// A block's sum of its first n values (a bounds check, then barriers): the threads past n
// return before the barrier, the others wait at it; a deep local array on every thread's stack.
static __global__ void k_block_sum(const double *x, int n, double *out) {
  __shared__ double part[256];
  const int t = threadIdx.x;
  if (t >= n) return;
  double deep[200];
  for (int j = 0; j < 200; j++) deep[j] = x[t] * (j == 7);
  double v = 0.0;
  for (int j = 0; j < 200; j++) v += deep[j];
  part[t] = v;
  __syncthreads();
  if (t == 0) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += part[j];
    out[blockIdx.x] = s;
  }
}

// Misuse: lane `gone` of the first warp returns before the shuffle the others make.
static __global__ void k_lane_gone(int gone, double *out) {
  double v = threadIdx.x;
  if ((int)threadIdx.x == gone) return;
  out[threadIdx.x] = v + __shfl_down_sync(0xffffffffu, v, 1);
}

// Misuse: a shuffle in a block of 48 threads (its second warp partial).
static __global__ void k_partial(double *out) {
  double v = threadIdx.x;
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, v, 1);
}

static double *dev(size_t n) {
  double *p = NULL;
  CHECK_INT(cudaMalloc(&p, sizeof(double) * n), cudaSuccess);
  return p;
}

static void warp_sums(void) {
  enum { N = 128 };
  double x[N], out[N];
  for (int i = 0; i < N; i++) x[i] = 1.0 + i * 0.5;
  double *dx = dev(N), *dout = dev(N);
  cudaMemcpyAsync(dx, x, sizeof x, cudaMemcpyHostToDevice);
  const int widths[] = {32, 8, 2};
  for (int w : widths) {
    k_warp_sum<<<2, 64>>>(dx, w, dout);
    cudaMemcpyAsync(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    CHECK_INT(cudaStreamSynchronize(0), cudaSuccess);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      double want = 0.0;
      if (i % w == 0)
        for (int j = i; j < i + w; j++) want += x[j];
      bad += out[i] != want;
    }
    check_report(bad == 0, __FILE__, __LINE__, "warp sums at width %d: %d of %d wrong", w, bad, N);
  }
  cudaFree(dx), cudaFree(dout);
}

static void shift_adds(void) {
  enum { B = 96, ROUNDS = 300 };
  long long out[B], *dout = NULL;
  CHECK_INT(cudaMalloc(&dout, sizeof out), cudaSuccess);
  k_shift_add<<<1, B>>>(ROUNDS, dout);
  cudaMemcpyAsync(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  CHECK_INT(cudaStreamSynchronize(0), cudaSuccess);
  long long v[32];
  for (int t = 0; t < 32; t++) v[t] = t + 1;
  for (int r = 0; r < ROUNDS; r++)
    for (int t = 0; t < 32; t++) v[t] = (v[t] + (t < 31 ? v[t + 1] : 0)) % 1000003;
  int bad = 0;
  for (int i = 0; i < B; i++) bad += out[i] != v[i % 32];
  check_report(bad == 0, __FILE__, __LINE__, "%d shuffles a lane: %d of %d lanes wrong", ROUNDS,
               bad, B);
  cudaFree(dout);
}

static void block_sums(void) {
  enum { T = 256 };
  double x[T], out[3];
  for (int i = 0; i < T; i++) x[i] = i * 0.25;
  double *dx = dev(T), *dout = dev(3);
  cudaMemcpyAsync(dx, x, sizeof x, cudaMemcpyHostToDevice);
  const int ns[] = {256, 77, 1};
  for (int n : ns) {
    k_block_sum<<<3, T>>>(dx, n, dout);
    cudaMemcpyAsync(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    CHECK_INT(cudaStreamSynchronize(0), cudaSuccess);
    double want = 0.0;
    for (int j = 0; j < n; j++) want += x[j];
    for (int b = 0; b < 3; b++)
      check_report(out[b] == want, __FILE__, __LINE__, "block %d's sum of %d: %.17g vs %.17g", b, n,
                   out[b], want);
  }
  cudaFree(dx), cudaFree(dout);
}

// Runs `misuse` in a child process: it must die by abort with `message` on its standard error.
static void dies(void (*misuse)(double *), const char *message) {
  int fd[2];
  if (pipe(fd) != 0) {
    CHECK(!"pipe");
    return;
  }
  fflush(stdout), fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 2);
    close(fd[0]);
    double *out = NULL;
    cudaMalloc(&out, 64 * sizeof(double));
    misuse(out);
    cudaStreamSynchronize(0);
    _exit(0);
  }
  close(fd[1]);
  char err[4096] = "";
  size_t got = 0;
  for (ssize_t r; got < sizeof err - 1 && (r = read(fd[0], err + got, sizeof err - 1 - got)) > 0;)
    got += (size_t)r;
  err[got] = 0;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  check_report(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, __FILE__, __LINE__,
               "the misuse stopped the program (status %#x)", status);
  CHECK_STR_CONTAINS(err, message);
  CHECK_STR_CONTAINS(err, "test_emu_fibres.cu:");
}

static void gone_first(double *out) { k_lane_gone<<<1, 32>>>(0, out); }
static void gone_middle(double *out) { k_lane_gone<<<1, 64>>>(13, out); }
static void partial(double *out) { k_partial<<<1, 48>>>(out); }

int main(void) {
  warp_sums();
  shift_adds();
  block_sums();
  dies(gone_first, "a warp shuffle that not all of the warp reach");
  dies(gone_middle, "a warp shuffle that not all of the warp reach");
  dies(partial, "in a warp of 16 threads");
  return check_summary("test_emu_fibres");
}

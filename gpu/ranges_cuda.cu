// SPDX-License-Identifier: MIT
// The CUDA backend's named ranges timed without a profiler (range_cuda.h): SIMCTL_CUDA_RANGES=on
// sums each host range on the host's clock and each device range between its two events, and
// the run writes the sums to ranges.csv. The sums are process-wide (one backend runs at a time
// in simctl; a test with two would see both in one table).
#include <stdio.h>
#include <string.h>

#include "cuda_ctx.h"
#include "range_cuda.h"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/base/timer.h"
#include "../core/io/output.h"
}

#define SIM_RANGE_NAMES 64  // distinct range names at most (the code has some 20)
#define SIM_RANGE_DEPTH 32  // host ranges open at once at most

int sim_cuda_ranges_on;

typedef struct range_sum {
  const char *name;
  int device;  // 0: the host's clock, 1: the device's events
  long long count;
  double ms;
} range_sum;

typedef struct dev_pair {
  int name, open, close;  // the name's entry, the events' slots (close -1 until closed)
} dev_pair;

static struct {
  range_sum sum[SIM_RANGE_NAMES];
  int nsum;
  int dropped;  // ranges not counted: more names than the table holds, or nested too deep
  struct {
    int name;
    double t0;
  } stack[SIM_RANGE_DEPTH];
  int depth;  // pushed (those beyond SIM_RANGE_DEPTH not timed)
  cuda_events pool;
  dev_pair *pair;
  int npair, pair_cap;
  char failed[SIM_MSG_MAX];  // the call that stopped the device ranges ("" while none has)
} R;

static int name_of(const char *name, int device) {
  for (int i = 0; i < R.nsum; i++)
    if (R.sum[i].device == device && (R.sum[i].name == name || !strcmp(R.sum[i].name, name)))
      return i;
  if (R.nsum == SIM_RANGE_NAMES) return -1;
  range_sum *s = &R.sum[R.nsum];
  s->name = name, s->device = device, s->count = 0, s->ms = 0.0;
  return R.nsum++;
}

void sim_cuda_range_push(const char *name) {
  nvtxRangePushA(name);
  if (!sim_cuda_ranges_on) return;
  if (R.depth < SIM_RANGE_DEPTH) {
    R.stack[R.depth].name = name_of(name, 0);
    R.stack[R.depth].t0 = sim_now_ms();
  }
  R.depth++;
}

void sim_cuda_range_pop(void) {
  nvtxRangePop();
  if (!sim_cuda_ranges_on || R.depth == 0) return;
  const int d = --R.depth;
  if (d >= SIM_RANGE_DEPTH || R.stack[d].name < 0) {
    R.dropped++;
    return;
  }
  range_sum *s = &R.sum[R.stack[d].name];
  s->count++;
  s->ms += sim_now_ms() - R.stack[d].t0;
}

// A device call failed: the device ranges stop, the error cleared (an event's failure is not
// the run's), and the call named in ranges.csv's report.
static void dev_failed(const char *call, cudaError_t e) {
  cudaGetLastError();
  if (!R.failed[0]) snprintf(R.failed, sizeof R.failed, "%s: %s", call, cudaGetErrorString(e));
}

static int record(cudaStream_t s) {
  sim_status st = {0};
  if (sim_cuda_events_reserve(&R.pool, R.pool.used + 1, &st)) {
    if (!R.failed[0]) snprintf(R.failed, sizeof R.failed, "%s", st.msg);
    cudaGetLastError();
    return -1;
  }
  cudaError_t e = cudaEventRecord(R.pool.ev[R.pool.used], s);
  if (e != cudaSuccess) {
    dev_failed("cudaEventRecord", e);
    return -1;
  }
  R.pool.tag[R.pool.used] = 0;
  return R.pool.used++;
}

int sim_cuda_dev_range_open(cudaStream_t s, const char *name) {
  if (!sim_cuda_ranges_on || R.failed[0]) return -1;
  const int n = name_of(name, 1);
  if (n < 0) {
    R.dropped++;
    return -1;
  }
  if (R.npair == R.pair_cap) {
    const int cap = R.pair_cap ? 2 * R.pair_cap : 64;
    dev_pair *p = (dev_pair *)sim_realloc(R.pair, sizeof *p * (size_t)cap);
    if (!p) {
      snprintf(R.failed, sizeof R.failed, "out of memory (device ranges)");
      return -1;
    }
    R.pair = p, R.pair_cap = cap;
  }
  const int ev = record(s);
  if (ev < 0) return -1;
  R.pair[R.npair].name = n, R.pair[R.npair].open = ev, R.pair[R.npair].close = -1;
  return R.npair++;
}

void sim_cuda_dev_range_close(cudaStream_t s, int slot) {
  if (slot < 0 || slot >= R.npair || R.failed[0]) return;
  R.pair[slot].close = record(s);
}

void sim_cuda_ranges_resolve(void) {
  if (!sim_cuda_ranges_on || R.failed[0]) return;
  for (int i = 0; i < R.npair; i++) {
    dev_pair *p = &R.pair[i];
    if (p->close < 0) return; /* one still open (a wait inside it): resolved with it later */
  }
  for (int i = 0; i < R.npair; i++) {
    const dev_pair *p = &R.pair[i];
    cudaError_t e = cudaEventSynchronize(R.pool.ev[p->close]); /* passed: no wait */
    float ms = 0.0f;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, R.pool.ev[p->open], R.pool.ev[p->close]);
    if (e != cudaSuccess) {
      dev_failed("cudaEventElapsedTime", e);
      return;
    }
    R.sum[p->name].count++;
    R.sum[p->name].ms += ms;
  }
  R.npair = 0;
  R.pool.used = 0;
}

int sim_cuda_ranges_open(sim_status *st) {
  sim_cuda_ranges_close();
  int on = 0;
  int rc = sim_cuda_env_choice("SIMCTL_CUDA_RANGES", "off", "on", 0, &on, st);
  sim_cuda_ranges_on = !rc && on;
  return rc;
}

int sim_cuda_ranges_write(const char *dir, sim_status *st) {
  if (!sim_cuda_ranges_on) return SIM_OK;
  sim_cuda_ranges_resolve();
  char path[SIM_PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/ranges.csv", dir);
  sim_atomic_file af;
  int rc = sim_atomic_open(&af, path, "w", st);
  if (rc) return rc;
  fprintf(af.f, "range,clock,count,total_ms,mean_us\n");
  for (int dev = 0; dev < 2; dev++)
    for (int i = 0; i < R.nsum; i++) {
      const range_sum *s = &R.sum[i];
      if (s->device != dev) continue;
      fprintf(af.f, "\"%s\",%s,%lld,%.6f,%.3f\n", s->name, dev ? "device" : "host", s->count, s->ms,
              s->count ? 1e3 * s->ms / (double)s->count : 0.0);
    }
  rc = sim_atomic_commit(&af, st);
  if (!rc && R.failed[0])
    rc = sim_fail(st, SIM_ERR_DEVICE, "%s: SIMCTL_CUDA_RANGES: the device ranges stopped (%s)",
                  path, R.failed);
  if (!rc && R.dropped > 0)
    rc = sim_fail(st, SIM_ERR_INTERNAL,
                  "%s: SIMCTL_CUDA_RANGES: %d ranges not counted (more than %d names, or nested "
                  "deeper than %d)",
                  path, R.dropped, SIM_RANGE_NAMES, SIM_RANGE_DEPTH);
  return rc;
}

void sim_cuda_ranges_close(void) {
  sim_cuda_events_free(&R.pool);
  sim_free(R.pair);
  memset(&R, 0, sizeof R);
  sim_cuda_ranges_on = 0;
}

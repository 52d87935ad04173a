// SPDX-License-Identifier: MIT
// The host emulation of CUDA (tests/emu/README.md): device memory as host memory with a map of
// the allocations, a queue of device work per stream run when the host waits for it, and kernel
// launches that run each block's threads as fibres (their own stacks, switched at
// __syncthreads; a warp's lanes run from the last to the first, so a shuffle down finds its
// source lane's value already made).
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SIM_EMU_ASAN 1
#else
#define SIM_EMU_ASAN 0
#endif

#if !defined(__x86_64__)
#error "the CUDA emulation's fibres switch stacks with x86-64 code (tests/emu/emu_runtime.cpp)"
#endif

// sim_emu_switch(save, to): saves the callee-saved registers and the stack pointer into *save,
// then continues the context whose stack pointer is `to`. The SSE and x87 control words are
// left alone: every fibre runs with the program's (kernels do not change rounding modes).
extern "C" void sim_emu_switch(void **save, void *to);
asm(R"(
  .text
  .globl sim_emu_switch
  .type sim_emu_switch, @function
sim_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size sim_emu_switch, .-sim_emu_switch
)");

namespace sim_emu {
uint3 thread_idx, block_idx;
dim3 block_dim, grid_dim;

static const size_t DEVICE_BYTES = 80ull << 30; // what cudaMemGetInfo reports as the total
static const size_t STACK_BYTES = 256 << 10;    // each fibre's stack (a guard page below it)

[[noreturn]] static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fflush(stdout);
  fprintf(stderr, "simctl CUDA emulation: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

// ---- device memory ----
static std::map<uintptr_t, size_t> &allocations() {
  static std::map<uintptr_t, size_t> m;
  return m;
}
static size_t held;

// Whether [p, p + bytes) lies in one allocation (bytes 0: p in it or just past its end).
static bool on_device(const void *p, size_t bytes) {
  auto &m = allocations();
  uintptr_t a = (uintptr_t)p;
  auto it = m.upper_bound(a);
  if (it == m.begin()) return false;
  --it;
  uintptr_t end = it->first + it->second;
  return a >= it->first && a <= end && bytes <= end - a;
}

void check_device_range(const char *what, const void *p, size_t bytes) {
  if (bytes > 0 && !on_device(p, bytes))
    die("%s: [%p, %p + %zu bytes) is not inside one device allocation", what, p, p, bytes);
}

void check_kernel_pointer(const launch_cfg &cfg, int arg, const void *p) {
  if (p && !on_device(p, 0))
    die("%s:%d: kernel launch: argument %d (%p) is not device memory", cfg.file, cfg.line,
        arg + 1, p);
}

// ---- fibres: one per thread of the running block ----
// A warp's lanes run in turn, from its last to its first, each until it returns or waits at
// the block's barrier, and switch to one another directly; the scheduler (run_block) takes
// over when a warp can go no further on its own.
enum { T_NEW, T_READY, T_BLOCK, T_DONE };
struct context {
  void *sp;           // saved stack pointer while switched out
  void *fake;         // AddressSanitizer's fake stack while switched out
  const void *bottom; // the stack (for AddressSanitizer)
  size_t size;
};
struct fibre {
  context ctx;
  char *stack;
  int state;
  uint3 tid;
};
static std::vector<fibre> fib; // the running block's threads
static std::vector<char *> spare_stacks;
static char *zombie;  // a returned thread's stack, given back by the context that runs next
static context sched; // the scheduler's context
static fibre *cur;    // the thread running, NULL in the scheduler
static const std::function<void()> *body;
static const launch_cfg *running;
// Each thread's shuffle values since the block's last barrier, in the order it made them, in
// shfl_cap slots a thread (doubled when one makes more): a shuffle down reads lane t + delta's,
// and that lane ran before lane t (its warp's lanes run backwards) and made every shuffle before
// the barrier lane t runs up to. At each barrier every lane of a warp has made as many (or the
// block stops: check_shuffles), so the counts start again from 0 there. Until 2026-11-29 each
// shuffle stopped its lane until the whole warp had written, 32 switches a shuffle: some 60 %
// of test_emu_contact's time went to the switches (perf); until 2026-12-02 a vector a thread
// kept them, whose loads were 15 % of the emulated contact stage's time.
static std::vector<uint64_t> shfl_vals;  // shfl_slots' storage
uint64_t *shfl_slots;
size_t shfl_cap = 16;
unsigned shfl_made[1024];
int lane_index = -1, whole_warp_lanes;

// Room for n threads' shuffles, each's slots doubled where `grow` (those made kept).
static void shfl_room(int n, bool grow) {
  const size_t cap = grow ? 2 * shfl_cap : shfl_cap;
  if (!grow && shfl_vals.size() >= (size_t)n * cap) return;
  std::vector<uint64_t> v((size_t)n * cap);
  if (grow)
    for (int t = 0; t < n; t++)
      memcpy(&v[(size_t)t * cap], &shfl_vals[(size_t)t * shfl_cap], shfl_made[t] * sizeof v[0]);
  shfl_vals.swap(v);
  shfl_slots = shfl_vals.data();
  shfl_cap = cap;
}

static char *stack_new() {
  if (!spare_stacks.empty()) {
    char *s = spare_stacks.back();
    spare_stacks.pop_back();
    return s;
  }
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void *m = mmap(NULL, STACK_BYTES + page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) die("no memory for a thread's stack");
  mprotect(m, page, PROT_NONE); // a stack overflow faults
  return (char *)m + page;
}

static void reap() {
  if (zombie) spare_stacks.push_back(zombie);
  zombie = NULL;
}

// Switches from `from` (which never runs again when `dying`) to `to`; returns when `from` is
// switched to again.
static void jump(context *from, bool dying, context *to) {
#if SIM_EMU_ASAN
  __sanitizer_start_switch_fiber(dying ? NULL : &from->fake, to->bottom, to->size);
#else
  (void)dying;
#endif
  sim_emu_switch(&from->sp, to->sp);
#if SIM_EMU_ASAN
  __sanitizer_finish_switch_fiber(from->fake, NULL, NULL);
#endif
  reap();
}

static void stop(fibre *f, int state);
static fibre *next_lane(int t);

// The first lane from hi down to lo that can run (new, or ready after a barrier), else NULL.
static fibre *runnable(int hi, int lo) {
  for (int u = hi; u >= lo; u--)
    if (fib[(size_t)u].state == T_NEW || fib[(size_t)u].state == T_READY) return &fib[(size_t)u];
  return NULL;
}

// The running block's warps in the order they run (schedule), and the next of them to start in
// this round (the scheduler's or a fibre's: fibre_main).
static std::vector<unsigned> round_warps;
static size_t round_next;

// The lane warp wi runs from: its last that can run (a warp's lanes run from the last), else NULL.
static fibre *warp_first(unsigned wi) {
  const int w = (int)wi * 32, n = (int)fib.size();
  return runnable((w + 32 < n ? w + 32 : n) - 1, w);
}

// The next warp's lane to run after the running warp, where it is new (the round before the
// block's first barrier): taken from the scheduler, which would have started it next.
static fibre *next_warp_new() {
  if (round_next == round_warps.size()) return NULL;
  fibre *g = warp_first(round_warps[round_next]);
  if (!g || g->state != T_NEW) return NULL;
  round_next++;
  return g;
}

// A fibre's life: its thread, then each new lane after it in its warp on the same stack, with
// no switch, until one waits at the barrier, or the warp's next lane is one that waits
// (resumed on its own stack); then, where each of its lanes has returned, the next warp's
// lanes likewise while they are new (a block without barriers: two switches, not two a warp;
// 2026-12-02, the emulated soft_box_on_slab's frame some 10 % shorter).
static void fibre_main() {
  fibre *f = cur;
#if SIM_EMU_ASAN
  const void *b;
  size_t n;
  __sanitizer_finish_switch_fiber(NULL, &b, &n);
  if (!sched.size) sched.bottom = b, sched.size = n; // the first thread starts from the scheduler
#endif
  reap();
  for (;;) {
    (*body)();
    fibre *g = next_lane((int)(f - fib.data()));
    if (!g) g = next_warp_new();
    if (!g || g->state != T_NEW) break;
    f->state = T_DONE; /* g takes this stack over */
    g->stack = f->stack, g->ctx = f->ctx, f->stack = NULL;
    g->state = T_READY;
    thread_idx = g->tid;
    cur = f = g;
    lane_index = (int)(g - fib.data());
  }
  stop(f, T_DONE);
  abort(); // a returned thread is never switched to
}

// f made the running thread (its first context when new: sim_emu_switch's frame returning into
// fibre_main, its stack pointer then 8 past a multiple of 16 as after a call).
static void enter(fibre *f) {
  if (f->state == T_NEW) {
    f->stack = stack_new();
    // the stacks lie about 260 KiB apart (each mapped with its guard page), a multiple of
    // 4 KiB: their tops at one offset would share the L1 cache's sets, 32 live lanes of a warp
    // thrashing 8 ways; each lane's top is moved by its own offset within 4 KiB
    // (test_emu_contact_ops 62 s against 67 s without, interleaved runs on the 2-core VM)
    const uintptr_t colour = ((uintptr_t)(f - fib.data()) * 320u) % 4096u;
    uintptr_t top = ((uintptr_t)f->stack + STACK_BYTES - colour) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 64);
    for (int i = 0; i < 6; i++) sp[i] = 0; // r15 r14 r13 r12 rbx rbp
    sp[6] = (uint64_t)(uintptr_t)&fibre_main;
    sp[7] = 0;
    f->ctx.sp = sp;
    f->ctx.bottom = f->stack, f->ctx.size = STACK_BYTES;
  }
  f->state = T_READY;
  thread_idx = f->tid;
  cur = f;
  lane_index = (int)(f - fib.data());
}

// The lane to run after lane t stops: the next lane of its warp, backwards, that can run; else
// NULL (the scheduler). Lanes after t have stopped: a warp's lanes run from its last.
static fibre *next_lane(int t) { return runnable(t - 1, t & ~31); }

// The running thread f stops (returns, or waits at a barrier) until it may go on.
static void stop(fibre *f, int state) {
  f->state = state;
  if (state == T_DONE) {
#if SIM_EMU_ASAN /* this thread's last frames never return: their red zones would stay poisoned */
    uintptr_t base = (uintptr_t)f->stack, here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t low = here - base > 16384 ? here - 16384 : base;
    __asan_unpoison_memory_region((void *)low, base + STACK_BYTES - low);
#endif
    zombie = f->stack, f->stack = NULL;
  }
  fibre *g = next_lane((int)(f - fib.data()));
  if (g) {
    enter(g);
    jump(&f->ctx, state == T_DONE, &g->ctx);
  } else {
    cur = NULL;
    lane_index = -1;
    jump(&f->ctx, state == T_DONE, &sched);
  }
}

static fibre *current(const char *what) {
  if (!cur) die("%s outside a kernel", what);
  return cur;
}

void syncthreads() { stop(current("__syncthreads"), T_BLOCK); }

// SIM_PDL_WAIT (gpu/pdl.cuh): which threads of the running block made it, and whether the
// running kernel was launched behind a programmatic edge (a graph's launch: cudaGraphLaunch),
// where each must have.
static unsigned char pdl_waited[1024];
static bool pdl_required;
void pdl_wait() { pdl_waited[current("SIM_PDL_WAIT") - fib.data()] = 1; }

uint64_t shfl_down(uint64_t bits, unsigned delta, unsigned mask, int width) {
  fibre *f = current("__shfl_down_sync");
  int t = (int)(f - fib.data()), n = (int)fib.size();
  if (mask != 0xffffffffu || (t & ~31) + 32 > n)
    die("%s:%d: __shfl_down_sync with mask %#x in a warp of %d threads: the emulation knows only "
        "whole warps with the full mask",
        running->file, running->line, mask, n - (t & ~31) < 32 ? n - (t & ~31) : 32);
  if (width <= 0 || width > 32 || (width & (width - 1)))
    die("%s:%d: __shfl_down_sync width %d", running->file, running->line, width);
  const unsigned k = shfl_made[t]; /* this is the lane's shuffle k since the barrier */
  if (k == shfl_cap) shfl_room(n, true);
  shfl_slots[(size_t)t * shfl_cap + k] = bits;
  shfl_made[t] = k + 1;
  if ((unsigned)(t & (width - 1)) + delta >= (unsigned)width) return bits;
  const int s = t + (int)delta;
  if (shfl_made[s] <= k)
    die("%s:%d: block (%u,%u,%u): lane %d's shuffle %u reads lane %d, which made %u: a warp "
        "shuffle that not all of the warp reach",
        running->file, running->line, block_idx.x, block_idx.y, block_idx.z, t & 31, k + 1, s & 31,
        shfl_made[s]);
  return shfl_slots[(size_t)s * shfl_cap + k];
}

// The order blocks, and warps within a block, run in: SIMCTL_EMU_SCHEDULE=forward (the
// default), reverse, or shuffle (a fixed pseudo-random order, new for every block and launch).
// Code whose results depend on it assumes an order a GPU does not promise.
static int schedule_kind = -1;
static uint64_t schedule_rng = 0x9e3779b97f4a7c15ull;

// The tests' way to change the order within a run (0 forward, 1 reverse, 2 shuffle), so that
// they can compare one computation's results under each, bit for bit.
extern "C" void sim_emu_set_schedule(int kind) {
  if (kind < 0 || kind > 2) die("sim_emu_set_schedule(%d): expected 0, 1 or 2", kind);
  schedule_kind = kind;
}

static void schedule(unsigned n, std::vector<unsigned> &order) {
  if (schedule_kind < 0) {
    const char *e = getenv("SIMCTL_EMU_SCHEDULE");
    if (!e || !*e || !strcmp(e, "forward"))
      schedule_kind = 0;
    else if (!strcmp(e, "reverse"))
      schedule_kind = 1;
    else if (!strcmp(e, "shuffle"))
      schedule_kind = 2;
    else
      die("SIMCTL_EMU_SCHEDULE=%s: expected forward, reverse or shuffle", e);
  }
  order.resize(n);
  for (unsigned i = 0; i < n; i++) order[i] = schedule_kind == 1 ? n - 1 - i : i;
  if (schedule_kind == 2)
    for (unsigned i = n; i > 1; i--) { // Fisher-Yates with xorshift64
      schedule_rng ^= schedule_rng << 13, schedule_rng ^= schedule_rng >> 7;
      schedule_rng ^= schedule_rng << 17;
      unsigned j = (unsigned)(schedule_rng % i);
      unsigned t = order[i - 1];
      order[i - 1] = order[j], order[j] = t;
    }
}

// Whether every lane of each warp made the same number of shuffles, the others' values at
// each being there for it; dies naming the first warp where not.
static void check_shuffles(int n) {
  for (int w = 0; w < n; w += 32)
    for (int t = w + 1; t < w + 32 && t < n; t++)
      if (shfl_made[t] != shfl_made[w])
        die("%s:%d: block (%u,%u,%u): lane %d made %u warp shuffles, lane %d %u: a warp shuffle "
            "that not all of the warp reach",
            running->file, running->line, block_idx.x, block_idx.y, block_idx.z, 0, shfl_made[w],
            t - w, shfl_made[t]);
}

// One block: each warp until each of its lanes has returned or waits at the barrier, then the
// barrier, until every thread has returned. A thread that returned does not hold the others
// up, as on a GPU of compute capability 7.0 or later.
static void run_block(int n) {
  fib.resize((size_t)n);
  uint3 tid = {0, 0, 0}; /* thread t's coordinates, counted up (no divisions: perf) */
  for (int t = 0; t < n; t++) {
    fibre *f = &fib[(size_t)t];
    f->ctx = context{};
    f->stack = NULL;
    f->tid = tid;
    f->state = T_NEW;
    shfl_made[t] = 0;
    pdl_waited[t] = 0;
    if (++tid.x == block_dim.x) {
      tid.x = 0;
      if (++tid.y == block_dim.y) tid.y = 0, tid.z++;
    }
  }
  shfl_room(n, false);
  whole_warp_lanes = n & ~31;
  schedule((unsigned)(n + 31) / 32, round_warps);
  for (;;) {
    for (round_next = 0; round_next < round_warps.size();) {
      fibre *f = warp_first(round_warps[round_next++]);
      if (f) {
        enter(f);
        jump(&sched, false, &f->ctx);
      }
    }
    check_shuffles(n);
    memset(shfl_made, 0, (size_t)n * sizeof shfl_made[0]); /* every warp at the barrier or done */
    int done = 0; /* the others wait at the barrier: a warp runs until each of its lanes has */
    for (int t = 0; t < n; t++) done += fib[(size_t)t].state == T_DONE;
    if (done == n && pdl_required)
      for (int t = 0; t < n; t++)
        if (!pdl_waited[t])
          die("%s:%d: block (%u,%u,%u): thread %d returned without SIM_PDL_WAIT(), in a kernel "
              "launched behind a programmatic edge (SIMCTL_CUDA_PDL=on): on a GPU it may read "
              "what the kernel before it has not yet written (gpu/pdl.cuh)",
              running->file, running->line, block_idx.x, block_idx.y, block_idx.z, t);
    if (done == n) return;
    for (int t = 0; t < n; t++)
      if (fib[(size_t)t].state == T_BLOCK) fib[(size_t)t].state = T_READY;
  }
}

// ---- the device's queues: one per stream, each run in order when the host waits for it ----
} // namespace sim_emu

// An event: the host clock when the device reached its latest record.
struct sim_emu_event {
  int gen = 0, reached = 0;            // records made, records the device has reached
  struct sim_emu_stream *at = nullptr; // the stream of the latest record
  double ms = 0;
};

// A piece of work, or a wait for record `gen` of an event.
struct sim_emu_item {
  std::function<void()> work;
  sim_emu_event *wait = nullptr;
  sim_emu_stream *wait_at = nullptr;
  int wait_gen = 0;
};
struct sim_emu_stream {
  std::deque<sim_emu_item> q;
  struct sim_emu_graph *capture = nullptr; // the graph it captures into (cudaStreamBeginCapture)
};

// A captured graph (and an instantiated one): its work in order, an event record where `record`
// is set.
struct sim_emu_node {
  std::function<void()> work;
  sim_emu_event *record = nullptr;
  bool kernel = false; // a kernel's launch (counted at each of the graph's launches)
  const void *func = nullptr;  // the kernel (cudaGraphKernelNodeGetParams)
  bool cut = false;            // its edge from the node before taken out (not yet put back)
  bool pdl = false;            // that edge programmatic: the kernel must call SIM_PDL_WAIT()
};
// A node's handle (cudaGraphNode_t): its graph and place, made by cudaGraphGetEdges.
struct sim_emu_gnode {
  struct sim_emu_graph *g;
  size_t i;
};
struct sim_emu_graph {
  std::vector<sim_emu_node> nodes;
  // SIMCTL_EMU_NO_CAPTURE as its capture began: refuse its first call inside (=inside), or its
  // end (=end)
  bool refuse_inside = false, refuse_end = false;
  bool invalid = false; // a call inside was refused
  std::deque<sim_emu_gnode> handles;  // cudaGraphGetEdges's, one a node (kept where they are)
};
static cudaError_t fail(cudaError_t e);

namespace sim_emu {
static std::vector<sim_emu_stream *> streams; // every stream but the legacy one
static bool draining;

// The stream capturing now, if any (the emulation runs one host thread).
static sim_emu_stream *capturing() {
  for (sim_emu_stream *s : streams)
    if (s->capture) return s;
  return nullptr;
}

// Stops the program where `what` is used while a stream captures (a GPU refuses it then).
static void not_while_capturing(const char *what) {
  if (capturing()) die("%s while a stream captures a graph: refused on a GPU", what);
}

static void drain(sim_emu_stream *s);
static void drain_all() {
  for (size_t i = 0; i < streams.size(); i++) drain(streams[i]);
}

static void reach(sim_emu_event *e, sim_emu_stream *t, int gen);

// Runs the first item of stream t's queue (a wait: the recording stream up to the record).
static void run_first(sim_emu_stream *t) {
  sim_emu_item it = std::move(t->q.front());
  t->q.pop_front();
  if (it.wait)
    reach(it.wait, it.wait_at, it.wait_gen);
  else
    it.work();
}

// Runs stream t's work until the event has reached record `gen`.
static void reach(sim_emu_event *e, sim_emu_stream *t, int gen) {
  while (e->reached < gen) {
    if (!t || t->q.empty()) die("a wait for an event record that is not queued on any stream");
    run_first(t);
  }
}

static void drain(sim_emu_stream *s) {
  bool outer = !draining;
  draining = true;
  while (!s->q.empty()) run_first(s);
  if (outer) draining = false;
}

// Stream s's work done (the legacy stream 0: every stream's).
static void drain_stream(cudaStream_t s) {
  if (s)
    drain(s); // and, through its waits, what it waits for on other streams
  else
    drain_all();
}

long long kernels_launched, kernels_captured; // reported with the host waits

cudaError_t enqueue(cudaStream_t s, std::function<void()> work) {
  if (draining) die("device work queued from device work");
  if (s && s->capture) { // kept for the graph's launches
    // refuse_inside: the capture's first launch or copy is refused, as a driver refuses a call
    // it cannot capture, and invalidates the capture: later ones are refused too, and the
    // capture's end fails (its work is dropped)
    if (s->capture->invalid || s->capture->refuse_inside) {
      cudaError_t e = fail(s->capture->invalid ? cudaErrorStreamCaptureInvalidated
                                               : cudaErrorStreamCaptureUnsupported);
      s->capture->invalid = true;
      return e;
    }
    s->capture->nodes.push_back(sim_emu_node{std::move(work), nullptr});
    return cudaSuccess;
  }
  if (!s) not_while_capturing("the legacy stream");
  if (!s) { // the legacy stream: after all work of the other streams, before any later
    drain_all();
    draining = true;
    work();
    draining = false;
    return cudaSuccess;
  }
  s->q.push_back(sim_emu_item{std::move(work)});
  return cudaSuccess;
}

// SIMCTL_EMU_REPORT=2: the kernels run (launched one by one or by a graph's launch) per
// launch site, file and line
std::map<std::pair<std::string, int>, long long> kernel_sites;
bool count_kernel_sites;

static void run_launch(const launch_cfg &cfg, const std::function<void()> &b) {
  const dim3 &g = cfg.grid, &k = cfg.block;
  if (count_kernel_sites) kernel_sites[{cfg.file, cfg.line}]++;
  running = &cfg;
  body = &b;
  grid_dim = g;
  block_dim = k;
  unsigned long long nb = (unsigned long long)g.x * g.y * g.z;
  if (nb > 0xffffffffull)
    die("%s:%d: %llu blocks: more than the emulation runs", cfg.file, cfg.line, nb);
  std::vector<unsigned> blocks;
  schedule((unsigned)nb, blocks);
  for (unsigned b : blocks) {
    block_idx = uint3{b % g.x, b / g.x % g.y, b / (g.x * g.y)};
    run_block((int)(k.x * k.y * k.z));
  }
  running = NULL;
  body = NULL;
}

cudaError_t launch_refused(cudaError_t e);  // the runtime's last error, below

// The emulated device's compute capability, 10 major + minor: SIMCTL_EMU_CC=MAJOR.MINOR (default
// 9.0, sm_90), so that a device the build has no kernels for can be shown.
int device_cc() {
  const char *e = getenv("SIMCTL_EMU_CC");
  int major = 9, minor = 0;
  if (e && (sscanf(e, "%d.%d", &major, &minor) != 2 || major < 1 || minor < 0 || minor > 9))
    die("SIMCTL_EMU_CC=%s: expected MAJOR.MINOR, e.g. 8.9", e);
  return 10 * major + minor;
}

// Whether the build's kernels run on the device, by the driver's rule over the architectures
// they were built for (SIMCTL_CUDA_ARCHS, CMakeLists.txt): machine code for sm_XY runs on a
// device of major X and minor at least Y; PTX of compute_XY on any device from XY on.
static bool covered(int cc) {
  std::string list = SIMCTL_CUDA_ARCHS;
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    std::string a = list.substr(at, end - at);
    at = end + 1;
    int arch = atoi(a.c_str());
    bool real = a.find("-virtual") == std::string::npos, ptx = a.find("-real") == std::string::npos;
    if (arch <= 0) return true; /* all, all-major, native: whatever the device */
    if ((real && cc / 10 == arch / 10 && cc >= arch) || (ptx && cc >= arch)) return true;
  }
  return false;
}

// covered() for the emulated device, decided once (every launch asks; the answer is the
// process's: its environment and the build).
bool kernels_load() {
  static const bool load = covered(device_cc());
  return load;
}

// The names of the kernels captured into graphs so far, by function (cudaFuncGetName).
std::map<const void *, std::string> kernel_names;

void execute(const launch_cfg &cfg, const std::function<void()> &b) {
  const dim3 &g = cfg.grid, &k = cfg.block;
  unsigned long long threads = (unsigned long long)k.x * k.y * k.z;
  if (g.x < 1 || g.x > 2147483647u || g.y < 1 || g.y > 65535 || g.z < 1 || g.z > 65535 ||
      threads < 1 || threads > 1024 || k.z > 64)
    die("%s:%d: kernel launch with grid (%u,%u,%u) and blocks (%u,%u,%u): an invalid "
        "configuration on a GPU",
        cfg.file, cfg.line, g.x, g.y, g.z, k.x, k.y, k.z);
  if (cfg.shmem > 48 * 1024)
    die("%s:%d: kernel launch with %zu bytes of dynamic shared memory", cfg.file, cfg.line,
        cfg.shmem);
  if (running) die("%s:%d: kernel launch from inside a kernel", cfg.file, cfg.line);
  if (!kernels_load()) { /* refused at the launch, as the driver does: nothing runs */
    launch_refused(cudaErrorNoKernelImageForDevice);
    return;
  }
  const bool captured = cfg.stream && cfg.stream->capture;
  (captured ? kernels_captured : kernels_launched)++;
  if (enqueue(cfg.stream, [cfg, b] { run_launch(cfg, b); }) == cudaSuccess && captured) {
    sim_emu_node &n = cfg.stream->capture->nodes.back();
    n.kernel = true;
    n.func = cfg.func;
    if (cfg.func && cfg.name) kernel_names[cfg.func] = cfg.name;
  }
}
} // namespace sim_emu

using sim_emu::die;
using sim_emu::on_device;

// ---- the runtime API ----
static cudaError_t last_error = cudaSuccess;

static cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}
cudaError_t sim_emu::launch_refused(cudaError_t e) { return fail(e); }

cudaError_t sim_emu_func_attributes(cudaFuncAttributes *a) {
  if (!sim_emu::kernels_load()) return fail(cudaErrorNoKernelImageForDevice);
  a->binaryVersion = a->ptxVersion = sim_emu::device_cc();
  return cudaSuccess;
}

// SIMCTL_EMU_DEVICES=N (1 to 16; default 1): the devices it shows, all the same memory and
// queues (cudaSetDevice only records the choice, which cudaGetDevice gives back)
static int device_count() {
  const char *e = getenv("SIMCTL_EMU_DEVICES");
  int n = e ? atoi(e) : 1;
  return n >= 1 && n <= 16 ? n : 1;
}
static thread_local int current_device;
static unsigned devices_allocated_on; // bit d: memory was allocated while device d was current

static int driver_version();
cudaError_t cudaGetDeviceCount(int *count) {
  *count = 0;
  if (driver_version() < 13000) return fail(cudaErrorInsufficientDriver);
  *count = device_count();
  return cudaSuccess;
}

// The emulation's driver and runtime: CUDA 13.0 both. SIMCTL_EMU_DRIVER=old: a driver of CUDA
// 12.9, =none: no driver (version 0); cudaGetDeviceCount then fails as the runtime does.
static int driver_version() {
  const char *e = getenv("SIMCTL_EMU_DRIVER");
  return e && !strcmp(e, "none") ? 0 : e && !strcmp(e, "old") ? 12090 : 13000;
}

cudaError_t cudaDriverGetVersion(int *version) {
  *version = driver_version();
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version) {
  *version = 13000;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= device_count()) return fail(cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  *device = current_device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  if (device < 0 || device >= device_count()) return fail(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "host emulation of CUDA (tests/emu, not a GPU)");
  prop->major = sim_emu::device_cc() / 10;
  prop->minor = sim_emu::device_cc() % 10;
  prop->totalGlobalMem = sim_emu::DEVICE_BYTES;
  prop->l2CacheSize = 4 << 20;
  return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorInvalidDeviceFunction:
    return "invalid device function";
  case cudaErrorLossyQuery:
    return "loss of data in the query (its edges' data left out)";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  case cudaErrorInvalidDevicePointer: return "invalid device pointer";
  case cudaErrorInsufficientDriver:
    return "CUDA driver version is insufficient for CUDA runtime version";
  case cudaErrorNoDevice: return "no CUDA-capable device is detected";
  case cudaErrorNoKernelImageForDevice:
    return "no kernel image is available for execution on the device";
  case cudaErrorInvalidDevice: return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle: return "invalid resource handle";
  case cudaErrorNotReady: return "device not ready";
  case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
  case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
  case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
  case cudaErrorGraphExecUpdateFailure: return "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update";
  }
  return "unknown error";
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

// Allocations and frees of device and page-locked memory so far (SIMCTL_EMU_REPORT=1, and by
// calling site with 2): on a GPU each costs the host some microseconds or more, and a free
// waits for the device's work, so a frame that makes any makes them on a GPU too.
static long long allocs, frees;
static std::map<void *, long long> alloc_sites;
static void count_alloc(long long *n, void *caller) {
  (*n)++;
  alloc_sites[caller]++;
}
#define COUNT_ALLOC(n) count_alloc(&(n), __builtin_return_address(0))

cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = NULL;
  sim_emu::not_while_capturing("cudaMalloc");
  COUNT_ALLOC(allocs);
  if (bytes == 0) return cudaSuccess;
  if (bytes > sim_emu::DEVICE_BYTES - sim_emu::held) return fail(cudaErrorMemoryAllocation);
  if (posix_memalign(p, 256, bytes)) {
    *p = NULL;
    return fail(cudaErrorMemoryAllocation);
  }
  memset(*p, 0xff, bytes); // what was never written reads as NaN (doubles) or -1 (integers)
  devices_allocated_on |= 1u << current_device;
  sim_emu::allocations()[(uintptr_t)*p] = bytes;
  sim_emu::held += bytes;
  return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  sim_emu::not_while_capturing("cudaFree");
  auto &m = sim_emu::allocations();
  auto it = m.find((uintptr_t)p);
  if (it == m.end()) die("cudaFree(%p): not a device allocation (freed twice?)", p);
  COUNT_ALLOC(frees);
  sim_emu::drain_all(); // cudaFree waits for the device's work
  sim_emu::held -= it->second;
  m.erase(it);
  free(p);
  return cudaSuccess;
}

// Host waits for the device: a synchronisation with work still queued before it
// (cudaStreamSynchronize, cudaEventSynchronize on an event not reached yet) or a copy to
// pageable host memory, which returns only once it is done; counted for the tests that hold
// the CUDA backend to a number of them (tests/emu/cuda_runtime.h). A synchronisation with
// nothing left to wait for is not counted: on a GPU it returns at once.
static long long host_waits;
static std::map<void *, long long> wait_sites; // SIMCTL_EMU_REPORT=2: waits per calling site
static void count_wait(void *caller) {
  host_waits++;
  wait_sites[caller]++;
}
#define COUNT_WAIT() count_wait(__builtin_return_address(0))

// Page-locked host memory is host memory (not device memory: kernels may not take it).
static std::map<uintptr_t, size_t> pinned;

// Whether [p, p + bytes) lies inside one cudaMallocHost allocation.
static bool is_pinned(const void *p, size_t bytes) {
  auto it = pinned.upper_bound((uintptr_t)p);
  if (it == pinned.begin()) return false;
  --it;
  return (uintptr_t)p + bytes <= it->first + (it->second ? it->second : 1);
}

cudaError_t cudaMallocHost(void **p, size_t bytes) {
  *p = NULL;
  sim_emu::not_while_capturing("cudaMallocHost");
  const char *no = getenv("SIMCTL_EMU_NO_PINNED"); // 1: refused, as under a locked-memory limit
  if (no && !strcmp(no, "1")) return fail(cudaErrorMemoryAllocation);
  COUNT_ALLOC(allocs);
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return fail(cudaErrorMemoryAllocation);
  pinned[(uintptr_t)*p] = bytes;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p) {
  if (!p) return cudaSuccess;
  sim_emu::not_while_capturing("cudaFreeHost");
  if (!pinned.erase((uintptr_t)p)) die("cudaFreeHost(%p): not from cudaMallocHost", p);
  COUNT_ALLOC(frees);
  sim_emu::drain_all(); // as cudaFree, it waits for the device's work
  free(p);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  *total_bytes = sim_emu::DEVICE_BYTES;
  *free_bytes = sim_emu::DEVICE_BYTES - sim_emu::held;
  return cudaSuccess;
}

static const char *kind_name(cudaMemcpyKind k) {
  static const char *n[] = {"host to host", "host to device", "device to host",
                            "device to device", "default"};
  return (unsigned)k < 5 ? n[k] : "unknown";
}

static long long bytes_to_device, bytes_to_host; // copied by cudaMemcpyAsync so far
// SIMCTL_EMU_REPORT=2: bytes per calling site, to the device and to the host
static std::map<void *, std::pair<long long, long long>> copy_sites;
extern "C" void sim_emu_copy_bytes(long long *to_device, long long *to_host) {
  *to_device = bytes_to_device;
  *to_host = bytes_to_host;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s) {
  if (bytes == 0) return cudaSuccess;
  if (kind == cudaMemcpyHostToDevice) bytes_to_device += (long long)bytes;
  if (kind == cudaMemcpyDeviceToHost) bytes_to_host += (long long)bytes;
  if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost) {
    auto &site = copy_sites[__builtin_return_address(0)];
    (kind == cudaMemcpyHostToDevice ? site.first : site.second) += (long long)bytes;
  }
  int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind != cudaMemcpyDefault) {
    if (dst_dev ? !on_device(dst, bytes) : on_device(dst, 0))
      die("cudaMemcpy (%s, %zu bytes): the destination %p is %s", kind_name(kind), bytes, dst,
          dst_dev ? "not inside one device allocation" : "device memory");
    if (src_dev ? !on_device(src, bytes) : on_device(src, 0))
      die("cudaMemcpy (%s, %zu bytes): the source %p is %s", kind_name(kind), bytes, src,
          src_dev ? "not inside one device allocation" : "device memory");
  }
  const char *d = (const char *)dst, *c = (const char *)src;
  if (d < c + bytes && c < d + bytes)
    die("cudaMemcpy (%s, %zu bytes): source and destination overlap", kind_name(kind), bytes);
  if (s && s->capture && ((kind == cudaMemcpyHostToDevice && !is_pinned(src, bytes)) ||
                          (kind == cudaMemcpyDeviceToHost && !is_pinned(dst, bytes))))
    die("cudaMemcpyAsync (%s, %zu bytes) with pageable host memory while the stream captures a "
        "graph: refused on a GPU",
        kind_name(kind), bytes);
  cudaError_t e = cudaSuccess;
  if (kind == cudaMemcpyHostToDevice && is_pinned(src, bytes)) {
    // from page-locked memory the device reads the host's buffer when the copy runs, so the
    // host must leave it alone until then
    e = sim_emu::enqueue(s, [dst, src, bytes] { memcpy(dst, src, bytes); });
  } else if (kind == cudaMemcpyHostToDevice) { // staged: the host may reuse its buffer on return
    auto staged = std::make_shared<std::vector<char>>(c, c + bytes);
    e = sim_emu::enqueue(s, [dst, staged] { memcpy(dst, staged->data(), staged->size()); });
  } else if (on_device(dst, 0) || is_pinned(dst, bytes)) {
    // to page-locked memory (or on the device): the host reads it only after it synchronises
    e = sim_emu::enqueue(s, [dst, src, bytes] { memcpy(dst, src, bytes); });
  } else { // to pageable memory: as on a GPU, the copy returns once it is done, a host wait
    sim_emu::enqueue(s, [dst, src, bytes] { memcpy(dst, src, bytes); });
    COUNT_WAIT();
    sim_emu::drain_stream(s);
  }
  return e;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s) {
  sim_emu::check_device_range("cudaMemset", p, bytes);
  return sim_emu::enqueue(s, [p, value, bytes] { memset(p, value, bytes); });
}

cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = new sim_emu_stream;
  sim_emu::streams.push_back(*s);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  sim_emu::drain_all(); // its work completes (and other streams' waits on it are met)
  auto &v = sim_emu::streams;
  for (size_t i = 0; i < v.size(); i++)
    if (v[i] == s) v.erase(v.begin() + (long)i);
  delete s;
  return cudaSuccess;
}

extern "C" long long sim_emu_host_waits(void) { return host_waits; }

// NVTX ranges (nvtx3/nvToolsExt.h here; gpu/range_cuda.h): counted, and a pop without a push
// stops the program, as the ranges must nest.
static long long ranges_pushed;
static int range_depth;
int nvtxRangePushA(const char *message) {
  (void)message;
  ranges_pushed++;
  return range_depth++;
}
int nvtxRangePop(void) {
  if (range_depth == 0) die("nvtxRangePop: no range open");
  return --range_depth;
}
// The ranges pushed so far and those still open.
extern "C" void sim_emu_ranges(long long *pushed, int *open) {
  *pushed = ranges_pushed;
  *open = range_depth;
}

// Device memory allocated and not yet freed, bytes (what the backends count must match it).
extern "C" long long sim_emu_device_held(void) { return (long long)sim_emu::held; }

// SIMCTL_EMU_REPORT=1: the count on stderr when the program ends (simctl-emu runs); 2: also
// the count per calling site, as the function that made the call (dladdr) and the offset of
// the return address in its file, for `addr2line -f -e FILE OFFSET`.
static int report_level;
static long long graph_captures, graph_updates, graph_launches; // reported with the waits
static long long graph_kernels; // kernels run by the graphs' launches
static long long graph_pdl_edges;  // programmatic edges put into graphs (cudaGraphAddDependencies)
// The graphs captured and launched so far (the tests check how often a step captures).
extern "C" void sim_emu_graph_counts(long long *captures, long long *launches) {
  *captures = graph_captures;
  *launches = graph_launches;
}
// The kernels launched and captured into graphs so far (a graph's launch counts in neither),
// and those the graphs' launches ran.
extern "C" void sim_emu_kernel_counts(long long *launched, long long *captured,
                                      long long *graph_run) {
  *launched = sim_emu::kernels_launched;
  *captured = sim_emu::kernels_captured;
  *graph_run = graph_kernels;
}
// One line of the report by calling site: the counts, then the function and object holding
// the caller's address (addr2line -e OBJECT OFFSET names the line).
static void report_site(void *caller, const char *fmt, long long a, long long b) {
  fprintf(stderr, "  ");
  fprintf(stderr, fmt, a, b);
  Dl_info di;
  if (dladdr(caller, &di) && di.dli_fname)
    fprintf(stderr, "  %s  %s+0x%lx\n", di.dli_sname ? di.dli_sname : "?", di.dli_fname,
            (unsigned long)((char *)caller - (char *)di.dli_fbase));
  else
    fprintf(stderr, "  %p\n", caller);
}
static void report_waits() {
  fprintf(stderr, "simctl CUDA emulation: %lld host waits\n", host_waits);
  fprintf(stderr, "simctl CUDA emulation: %lld kernels launched, %lld captured into graphs\n",
          sim_emu::kernels_launched, sim_emu::kernels_captured);
  fprintf(stderr, "simctl CUDA emulation: %lld bytes copied to the device, %lld to the host\n",
          bytes_to_device, bytes_to_host);
  if (graph_captures > 0)
    fprintf(stderr,
            "simctl CUDA emulation: %lld graphs captured (%lld updated in place), %lld "
            "launches\n"
            "simctl CUDA emulation: %lld kernels run by the graphs' launches\n",
            graph_captures, graph_updates, graph_launches, graph_kernels);
  if (graph_pdl_edges > 0)
    fprintf(stderr,
            "simctl CUDA emulation: %lld programmatic edges put into the graphs captured "
            "(SIMCTL_CUDA_PDL=on)\n",
            graph_pdl_edges);
  fprintf(stderr,
          "simctl CUDA emulation: %lld allocations (cudaMalloc, cudaMallocHost), %lld frees\n",
          allocs, frees);
  fprintf(stderr, "simctl CUDA emulation: %lld NVTX ranges, %d open at the end\n", ranges_pushed,
          range_depth);
  fprintf(stderr, "simctl CUDA emulation: device memory allocated on devices:");
  for (int d = 0; d < 16; d++)
    if (devices_allocated_on >> d & 1u) fprintf(stderr, " %d", d);
  fprintf(stderr, "\n");
  if (report_level < 2) return;
  std::vector<std::pair<long long, void *>> v;
  for (auto &w : wait_sites) v.push_back({w.second, w.first});
  std::sort(v.rbegin(), v.rend());
  fprintf(stderr, "simctl CUDA emulation: host waits by calling site:\n");
  for (auto &w : v) report_site(w.second, "%8lld", w.first, 0);
  v.clear();
  for (auto &a : alloc_sites) v.push_back({a.second, a.first});
  std::sort(v.rbegin(), v.rend());
  fprintf(stderr, "simctl CUDA emulation: allocations and frees by calling site:\n");
  for (auto &a : v) report_site(a.second, "%8lld", a.first, 0);
  std::vector<std::pair<std::pair<long long, long long>, void *>> b;
  for (auto &c : copy_sites) b.push_back({c.second, c.first});
  std::sort(b.rbegin(), b.rend(), [](const auto &x, const auto &y) {
    return x.first.first + x.first.second < y.first.first + y.first.second;
  });
  fprintf(stderr, "simctl CUDA emulation: bytes copied by calling site (to device, to host):\n");
  for (auto &c : b) report_site(c.second, "%12lld %12lld", c.first.first, c.first.second);
  std::vector<std::pair<long long, std::pair<std::string, int>>> k;
  for (auto &c : sim_emu::kernel_sites) k.push_back({c.second, c.first});
  std::sort(k.rbegin(), k.rend());
  fprintf(stderr, "simctl CUDA emulation: kernels per launch site (file and line), run:\n");
  for (auto &c : k)
    fprintf(stderr, "  %8lld  %s:%d\n", c.first, c.second.first.c_str(), c.second.second);
}
static const bool report_armed = [] {
  const char *e = getenv("SIMCTL_EMU_REPORT");
  report_level = e ? atoi(e) : 0;
  sim_emu::count_kernel_sites = report_level >= 2;
  if (report_level > 0) atexit(report_waits);
  return true;
}();

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  sim_emu::not_while_capturing("cudaStreamSynchronize");
  bool pending = s && !s->q.empty();
  for (size_t i = 0; !s && !pending && i < sim_emu::streams.size(); i++)
    pending = !sim_emu::streams[i]->q.empty();
  if (pending) COUNT_WAIT();
  sim_emu::drain_stream(s);
  return cudaSuccess;
}

// Stream s goes on only after the device has reached the event's latest record (none: at once).
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  if (!e || flags != 0) return fail(cudaErrorInvalidValue);
  sim_emu::not_while_capturing("cudaStreamWaitEvent");
  if (e->gen == 0) return cudaSuccess;
  if (!s) {
    sim_emu::reach(e, e->at, e->gen);
    return cudaSuccess;
  }
  sim_emu_item it;
  it.wait = e, it.wait_at = e->at, it.wait_gen = e->gen;
  s->q.push_back(std::move(it));
  return cudaSuccess;
}

// Event times are the host clock when the device reached the record: they mean nothing about a
// GPU's; they let the code that reads events run.
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new sim_emu_event;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  sim_emu::reach(e, e->at, e->gen); // its queued records refer to it
  delete e;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  if (s && s->capture)
    die("cudaEventRecord while the stream captures a graph: on a GPU only a dependency inside "
        "the capture (cudaEventRecordExternal records it at each launch)");
  int g = ++e->gen;
  e->at = s;
  sim_emu::enqueue(s, [e, g] {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    e->ms = t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
    e->reached = g;
  });
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  sim_emu::not_while_capturing("cudaEventSynchronize");
  if (e->reached < e->gen) COUNT_WAIT();
  sim_emu::reach(e, e->at, e->gen);
  return cudaSuccess;
}

// As on a GPU: an error when either event was never recorded or has not been reached yet.
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start || !end || start->gen == 0 || end->gen == 0)
    return fail(cudaErrorInvalidResourceHandle);
  if (start->reached < start->gen || end->reached < end->gen)
    return cudaErrorNotReady; // not an error state
  *ms = (float)(end->ms - start->ms);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned flags) {
  if (!e || (flags & ~(unsigned)cudaEventRecordExternal)) return fail(cudaErrorInvalidValue);
  if (!(s && s->capture)) return cudaEventRecord(e, s);
  if (!(flags & cudaEventRecordExternal))
    die("cudaEventRecordWithFlags without cudaEventRecordExternal while the stream captures a "
        "graph: on a GPU only a dependency inside the capture");
  s->capture->nodes.push_back(sim_emu_node{nullptr, e});
  return cudaSuccess;
}

// ---- graphs ----

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode) {
  (void)mode;
  if (!s) return fail(cudaErrorStreamCaptureUnsupported); // not the legacy stream
  // SIMCTL_EMU_NO_CAPTURE=1: refused at the start, as by a driver without graphs; =inside: at
  // its first call inside (sim_emu::enqueue); =end: at its end, as after a call inside that the
  // driver refused (the work dropped)
  const char *no = getenv("SIMCTL_EMU_NO_CAPTURE");
  if (no && !strcmp(no, "1")) return fail(cudaErrorStreamCaptureUnsupported);
  sim_emu::not_while_capturing("cudaStreamBeginCapture");
  s->capture = new sim_emu_graph;
  s->capture->refuse_inside = no && !strcmp(no, "inside");
  s->capture->refuse_end = no && !strcmp(no, "end");
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
  *g = nullptr;
  if (!s || !s->capture) return fail(cudaErrorInvalidValue);
  *g = s->capture;
  s->capture = nullptr;
  if ((*g)->invalid || (*g)->refuse_end) {
    cudaGraphDestroy(*g);
    *g = nullptr;
    return fail(cudaErrorStreamCaptureInvalidated);
  }
  graph_captures++;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *e, cudaGraph_t g,
                                          unsigned long long flags) {
  *e = nullptr;
  if (!g || flags != 0) return fail(cudaErrorInvalidValue);
  for (const sim_emu_node &n : g->nodes)
    if (n.cut)
      die("cudaGraphInstantiate: a graph with an edge taken out and not put back: the "
          "emulation runs a graph's nodes in order, each after the one before");
  *e = new sim_emu_graph;
  (*e)->nodes = g->nodes;
  return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info) {
  if (!e || !g || !info) return fail(cudaErrorInvalidValue);
  memset(info, 0, sizeof *info);
  bool same = e->nodes.size() == g->nodes.size();
  for (size_t i = 0; same && i < g->nodes.size(); i++)
    same = !e->nodes[i].record == !g->nodes[i].record && e->nodes[i].pdl == g->nodes[i].pdl;
  if (!same) {
    info->result = e->nodes.size() == g->nodes.size() ? cudaGraphExecUpdateErrorNodeTypeChanged
                                                      : cudaGraphExecUpdateErrorTopologyChanged;
    return fail(cudaErrorGraphExecUpdateFailure);
  }
  e->nodes = g->nodes;
  graph_updates++;
  return cudaSuccess;
}

// Queues the graph's work on s in its order; each external event is recorded again.
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  if (!s) sim_emu::not_while_capturing("cudaGraphLaunch on the legacy stream");
  if (s && s->capture) die("cudaGraphLaunch into a capture: not emulated");
  graph_launches++;
  for (const sim_emu_node &n : e->nodes) {
    graph_kernels += n.kernel;
    if (n.record) {
      cudaEventRecord(n.record, s);
    } else if (n.pdl) { /* each of its threads checked for SIM_PDL_WAIT */
      const std::function<void()> w = n.work;
      sim_emu::enqueue(s, [w] {
        sim_emu::pdl_required = true;
        w();
        sim_emu::pdl_required = false;
      });
    } else {
      sim_emu::enqueue(s, n.work);
    }
  }
  return cudaSuccess;
}

// ---- a captured graph's nodes and edges (sim_cuda_graph_pdl) ----

static sim_emu_node *node_of(cudaGraphNode_t h) {
  return h && h->g && h->i < h->g->nodes.size() ? &h->g->nodes[h->i] : nullptr;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type) {
  const sim_emu_node *n = node_of(node);
  if (!n || !type) return fail(cudaErrorInvalidValue);
  *type = n->kernel   ? cudaGraphNodeTypeKernel
          : n->record ? cudaGraphNodeTypeEventRecord
                      : cudaGraphNodeTypeMemcpy;
  return cudaSuccess;
}

static cudaGraphEdgeData edge_of(const sim_emu_node &n) {
  cudaGraphEdgeData e = {};
  if (n.pdl)
    e.type = cudaGraphDependencyTypeProgrammatic,
    e.from_port = cudaGraphKernelNodePortLaunchCompletion;
  return e;
}

// The chain's edges (each node's from the node before it, unless taken out), with their data.
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edges, size_t *n) {
  if (!g || !n || !from != !to || (edges && !from)) return fail(cudaErrorInvalidValue);
  size_t have = 0;
  bool lossy = false;
  while (g->handles.size() < g->nodes.size()) g->handles.push_back({g, g->handles.size()});
  for (size_t i = 1; i < g->nodes.size(); i++) {
    const sim_emu_node &x = g->nodes[i];
    if (x.cut) continue;
    if (from && have < *n) {
      from[have] = &g->handles[i - 1], to[have] = &g->handles[i];
      if (edges) edges[have] = edge_of(x);
    }
    lossy |= x.pdl;
    have++;
  }
  if (from && *n > have)
    for (size_t k = have; k < *n; k++) from[k] = to[k] = nullptr;
  if (!from || *n > have) *n = have;
  return from && !edges && lossy ? fail(cudaErrorLossyQuery) : cudaSuccess;
}

// Whether from -> to is the chain's edge into `to` (from the node just before it) in g.
static sim_emu_node *chain_edge(cudaGraph_t g, cudaGraphNode_t from, cudaGraphNode_t to) {
  sim_emu_node *t = node_of(to);
  return t && node_of(from) && from->g == g && to->g == g && from->i + 1 == to->i ? t : nullptr;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to, const cudaGraphEdgeData *edges,
                                        size_t n) {
  for (size_t k = 0; k < n; k++) {
    sim_emu_node *t = chain_edge(g, from[k], to[k]);
    const cudaGraphEdgeData e = edges ? edges[k] : cudaGraphEdgeData{};
    const cudaGraphEdgeData have = t ? edge_of(*t) : cudaGraphEdgeData{};
    if (!t || t->cut || memcmp(&e, &have, sizeof e) != 0)
      return fail(cudaErrorInvalidValue); /* no such edge */
    t->cut = true;
  }
  return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edges,
                                     size_t n) {
  for (size_t k = 0; k < n; k++) {
    sim_emu_node *t = chain_edge(g, from[k], to[k]);
    if (!t || !t->cut)
      die("cudaGraphAddDependencies: an edge other than the one taken out before it: the "
          "emulation's graphs are chains");
    const cudaGraphEdgeData e = edges ? edges[k] : cudaGraphEdgeData{};
    const bool pdl = e.type == cudaGraphDependencyTypeProgrammatic;
    if (e.to_port ||
        (pdl && e.from_port != cudaGraphKernelNodePortProgrammatic &&
         e.from_port != cudaGraphKernelNodePortLaunchCompletion) ||
        (!pdl && (e.type || e.from_port == cudaGraphKernelNodePortProgrammatic)) ||
        (pdl && (!t->kernel || !node_of(from[k])->kernel)))
      return fail(cudaErrorInvalidValue); /* as the driver's rules for edges and their ports */
    t->cut = false;
    t->pdl = pdl;
    graph_pdl_edges += pdl;
  }
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  const sim_emu_node *n = node_of(node);
  if (!n || !n->kernel || !p) return fail(cudaErrorInvalidValue);
  memset((void *)p, 0, sizeof *p);
  p->func = (void *)n->func;
  return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char **name, const void *func) {
  auto it = sim_emu::kernel_names.find(func);
  if (!name || it == sim_emu::kernel_names.end()) return fail(cudaErrorInvalidDeviceFunction);
  *name = it->second.c_str();
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) {
  delete e;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t g) {
  delete g;
  return cudaSuccess;
}

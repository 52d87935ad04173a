// SPDX-License-Identifier: MIT
// The CUDA backend's state, shared by its files (private to gpu/): the model's arrays, the
// state vectors and S resident on the device; one stream carries every kernel of a frame.
// The elastic operations (set_pins, predict, local and global step, integrate) only queue their
// work; every other operation of the backend table ends with the stream synchronised. The
// frame's elastic buckets are timed by events (spans_cuda.cu), the contact buckets by host
// timers around synchronised operations, or with the Newton solve on the device by time
// stamps of the device's clock read at the settle (nsn_cuda.cu), so timing.csv has the same
// columns on both backends.
#ifndef SIM_CUDA_CTX_H
#define SIM_CUDA_CTX_H
#include <cuda_runtime.h>
#include <cusparse.h>

#include "pdl.cuh"

extern "C" {
#include "../core/model/bending.h"
#include "../core/solve/backend.h"
}

#define SIM_CUDA_BLOCK 256
// The row gather y = S b gives each thread of a warp or a block at most this many of S's entries
// by default: rows of up to 32 times as many get a warp each, longer ones a block of
// SIM_CUDA_BLOCK threads per chunk of SIM_CUDA_BLOCK times as many (several blocks for the
// longest rows; SIMCTL_CUDA_ROW_CHUNK sets the chunk, global_upload.cu). A thread's entries are a
// chain of dependent loads (an index, then the vector's entry it names), so the longest chain,
// not the bytes, set the product's time where a warp read rows of 2,047 entries (2026-11-28,
// H200: 2.7 times the bandwidth limit at 4,900 unknowns).
#define SIM_CUDA_LANE_ENTRIES 16
// With the Newton solve on the host, a dense W of at most this many rows (32 contacts) is
// copied to the host once per step and applied there: its product, 9,216 multiply-adds at most,
// takes a few microseconds on one core, less than the copy to the device, the kernel and the
// copy back (with a wait) that each product on the device costs. Not yet timed on a GPU.
#define SIM_CUDA_HOST_W_ROWS 96
// With the Newton solve on the device, contact.delassus "auto" keeps W dense up to this many
// rows (the CPU: 1,500). Measured on an H200 (docs/gpu_runs/2026-11-28-h200-run2, Table 3's
// frame with the most contacts, per L-G iteration, schur + assemble + cst_solve): dense against
// matrix-free 1.28 / 2.85 ms at 1,548 rows, 2.80 / 4.60 at 3,387, 4.19 / 4.70 at 4,410, and
// 9.48 / 3.29 at 7,542, where forming W (a quarter of a GB) costs more than the products save.
#define SIM_CUDA_DENSE_ROWS 4500
// With the Newton solve on the device, "auto" applies a dense W of more than this many rows in
// its block form (core/contact/wblocks.h: G, a ninth of W's bytes a product, and one launch
// more a product, k_blk_cols), and forms W itself up to it. Measured on an H200
// (docs/gpu_runs/2026-12-04-h200, w_products.csv, a product in double, formed / blocks): 11.8 /
// 18.2 us at 2,400 rows, 26.6 / 27.2 at 3,387, 40.8 / 29.5 at 4,410; Table 3's frames with W
// formed at every size against its block form at every size agree (blocks 1.24 and 1.29 times
// slower at 1,548 and 1,449 rows, 0.94-1.07 at 3,387, 0.82-0.91 at 4,431).
#define SIM_CUDA_BLOCK_ROWS 4000

// How the global step's two products run: hand-written gathers that read each entry of S once
// for the three columns, or cuSPARSE SpMM (double only). SIMCTL_CUDA_SPMV=kernel|cusparse.
typedef enum { SIM_SPMV_KERNEL, SIM_SPMV_CUSPARSE } sim_spmv_kind;

// A part of a long row of S that a thread block gathers: entries [beg, end) of row `row`, the
// k-th of the row's n chunks; where n > 1, its partial sum goes to part[3 (first + k)] and the
// row's blocks count themselves in cnt[split].
typedef struct sim_row_chunk {
  int row, beg, end, k, n, first, split;
} sim_row_chunk;

// The most runs a column of S may have for the batched gather of S's columns as runs, which
// keeps a column's runs in shared memory (global_step.cu runs_shared_gather3); 9-13 on the
// sweep's five S.
#define SIM_CUDA_RUNS_SHARED 32

// S on the device, both orientations as on the host (core/solve/factor.h); with another global
// solver and contact, its columns alone (in double), from which the device builds W.
typedef struct cuda_S {
  int n;
  long long nnz;
  sim_precision prec;
  int *row_ptr, *row_col;      // CSR of S: y = S b (columns in the free unknowns' numbering)
  int *col_ptr, *col_row;      // CSC of L^{-1}: column k is its etree path (rows permuted)
  double *row_val, *col_val;   // double values, or NULL
  float *row_valf, *col_valf;  // float values, or NULL
  int *out_vert;               // n: the vertex that column k of S^T writes, free_vert[perm[k]]
  // SIMCTL_CUDA_S=rows: S's rows alone (half the memory), S^T y by a scatter with atomic adds
  // into x (3n, in the free unknowns' numbering); both: the rows and the columns (the default)
  int rows_only;
  double *x;
  // the row gather's work (global_upload.cu upload_rows): nchunk chunks of long rows, a block
  // each, then nshort short rows, a warp each; a row split over several chunks adds their
  // partial sums (part, 3 per chunk) in the block that finishes last (its counter in cnt)
  int chunk;                   // entries per block (SIMCTL_CUDA_ROW_CHUNK); a warp's: chunk / 8
  // 1: long rows in chunks of at most `chunk`; 0 (SIMCTL_CUDA_ROW_SPLIT=off): each long row one
  // block, whole
  int row_split;
  // the entries whose loads a thread issues together in the row and the column gathers
  // (SIMCTL_CUDA_GATHER_BATCH, both: 1, or 4 and 8 in kernels with their registers bounded for
  // it: k_rows_batch, k_cols_batch; SIMCTL_CUDA_TUNE may pick each its own)
  int row_batch, col_batch;
  // SIMCTL_CUDA_TUNE=on (global_tune.cu): both layouts of each orientation uploaded, then the
  // fastest of the same sums' variants kept for each product (fixed: the dimensions set
  // explicitly, FIX_*), the others' arrays freed; what was timed, in tuned
  int tune, tune_fixed;
  sim_gather_tuning tuned;
  int runs_most;  // the most runs a column of S has (col_runs; 0 where none were built)
  int col_warps;               // warps per column in q = S^T y (SIMCTL_CUDA_COL_WARPS: 1, 2, 4, 8;
                               // 0: auto, each column its own, listed in col_work)
  // auto: a column's warps w (1, 2, 4 or 8) the fewest that leave each lane at most chunk / 256
  // of its entries (SIM_CUDA_LANE_ENTRIES by default); the columns of 8 warps first, then 4, 2 and
  // 1, so that no column's warps straddle a block; per warp k << 5 | log2(w) << 3 | its index in
  // the column
  int *col_work, ncol_work;    // the table (ncol_work warps), device
  int col_most;                // the most warps a column took (col_warps where not auto)
  int nchunk, nshort, nsplit;  // chunks, short rows, rows of more than one chunk
  sim_row_chunk *chunks;       // nchunk
  int *row_order;              // nshort short rows
  double *part;                // 3 per chunk of a split row
  int *cnt;                    // nsplit counters, 0 between launches
  int height;                  // elimination tree height (longest column)
  // SIMCTL_CUDA_S_ROWS=interval (row_interval 1): row i of S is columns i - len + 1 ... i of
  // L^{-1} in order (factor.h row_interval), so the row gather reads P b at k = p + i + 1 -
  // row_ptr[i + 1] for entry p, with no row_col on the device: no index loads, and a warp's
  // reads of P b are consecutive. P rhs is bp_rhs, which k_rhs (the local step's right-hand
  // side) writes beside rhs, as does a write of the buffer; any other b (the contact
  // correction's) is permuted into bp by k_permute3 first.
  int row_interval;
  int *perm, *iperm;    // n: P and its inverse (interval rows)
  double *bp, *bp_rhs;  // 3n: P b, and P rhs (interval rows)
  // SIMCTL_CUDA_S_COLS=runs (col_runs 1): column k of L^{-1}, its elimination-tree path, as runs
  // of consecutive rows: [k, col_top[k]] (parent(j) = j + 1 along it), then the runs of the path
  // from parent(col_top[k]), (first row, length) pairs in runs[2 run_ptr[h] ...] for h =
  // col_top[k], run_ptr[h + 1] - run_ptr[h] of them; the column gather reads no col_row (which
  // stays on the device for W)
  int col_runs;
  int *col_top, *run_ptr, *runs;  // n, n + 1, 2 nruns
  long long nruns;
  // cuSPARSE path (double only)
  sim_spmv_kind spmv;
  cusparseHandle_t sp;
  cusparseSpMatDescr_t mat_rows, mat_cols;
  cusparseDnMatDescr_t dn_b, dn_y, dn_z;
  void *sp_buf;
  double *z;  // 3n: L^{-T} y before the permutation
} cuda_S;

// The global solvers' dispatch and the other global solvers (global_solvers.cu): solver.global
// cholesky, jacobi, dense_inverse, and Chebyshev acceleration on top of any solver (the last two
// for scenes without contact).
typedef struct cuda_solvers {
  sim_global_kind kind;  // the backend's solver (be->global)
  // cholesky: L (lower) and L^T (upper) in CSR, the permutation, 3 columns column-major
  int n;
  long long nnz_L;
  int *L_ptr, *L_col, *U_ptr, *U_col, *perm, *out_vert;  // out_vert[k] = free_vert[perm[k]]
  double *L_val, *U_val, *bc, *yc, *zc;
  cusparseHandle_t sp;
  cusparseSpMatDescr_t mat_L, mat_U;
  cusparseDnMatDescr_t dn_b, dn_y, dn_z;
  cusparseSpSMDescr_t sm_L, sm_U;
  void *buf_L, *buf_U;
  // jacobi: A's full CSR and its inverted diagonal (global_variants.h sim_jacobi)
  long long nnz_A;
  int *J_ptr, *J_col;
  double *J_val, *J_dinv;
  // dense_inverse: A^{-1} transposed (Dt[j n + i] = inv[i n + j]), so that a thread per row
  // reads a column of Dt and a warp's reads coalesce
  double *Dt;
  // Chebyshev (Wang 2015): rho > 0 turns it on; iter counts global steps since predict
  double rho, omega;
  int iter;
  double *xcur, *xprev;  // 3 nfree: q^k on the free unknowns, and q^{k-1}
} cuda_solvers;

// A pool of timing events (spans_cuda.cu), recorded in turn and read after a synchronisation;
// created as first needed and reused once `used` is set back to 0.
typedef struct cuda_events {
  cudaEvent_t *ev;         // cap slots, the first `created` of them created
  int *tag;                // per recorded event: what its recorder noted with it
  int used, created, cap;  // recorded since the reuse; created; slots
  int external;            // recorded into a graph being captured (cudaEventRecordExternal)
} cuda_events;

// Timing spans (spans_cuda.cu): events recorded at the marks since the last settle; a closing
// event's tag is its opening event's index times SIM_SPAN_COUNT plus its bucket, an opening
// one's -1.
typedef struct cuda_spans {
  cuda_events pool;
  int open[SIM_SPAN_COUNT];  // each bucket's open span's event, -1: none
} cuda_spans;

// A step's elastic L-G iterations as one CUDA graph (lg_graph.cu): captured once, with the
// events of its spans, and launched again at every step without contact.
typedef struct cuda_lg {
  int on;                  // SIMCTL_CUDA_GRAPH (on: the default)
  cudaGraphExec_t exec;    // NULL until the first capture
  int k;                   // the iterations captured
  int iter0, iter1;        // Chebyshev's count before and after them (cuda_solvers.iter)
  double omega1;           // and its weight after them
  cuda_spans spans;        // the graph's LOCAL and GLOBAL spans, its own events
  int pending;             // launched since the last settle: its spans are to be read
  int warm;                // a step has run launched one by one (captures start after it)
} cuda_lg;

// Output snapshots (snapshot_cuda.cu): q, v and the energy densities copied on the device into
// `dev`, then to page-locked `host` on a stream of their own, so the copy to the host overlaps
// the frames that follow.
typedef struct cuda_snap {
  cudaStream_t copy;       // the copies to the host
  cudaEvent_t taken;       // on the backend's stream: `dev` holds the snapshot
  cudaEvent_t landed;      // on `copy`: `host` holds it (and `dev` may be written again)
  double *dev, *host;      // 6n + nelem each: q, v, densities
  int q_only, taken_once;  // the last snapshot's kind; whether one was taken
  int pageable;            // `host` is ordinary memory (page-locked memory was refused)
} cuda_snap;

// The vertices whose positions the host reads for detection (reads_cuda.cu): their list on
// the device, the gathered positions there and in page-locked host memory (3 n each).
typedef struct cuda_reads {
  int n, cap;             // the list's length; the vectors the buffers hold
  int *host_vert, *vert;  // the list on the host (to tell a new one) and on the device
  double *dev, *host;
  int pageable;           // `host` is ordinary memory (page-locked memory was refused)
} cuda_reads;

typedef struct cuda_ctx {
  sim_backend *be;  // the table this is the context of (its notes)
  const sim_model *m;
  cudaStream_t stream;
  int ranges;                  // opened SIMCTL_CUDA_RANGES' sums (range_cuda.h): closes them
  size_t dev_bytes;            // device memory this backend allocated
  double *vec[SIM_VEC_COUNT];  // 3n each
  double *pin_pos;             // 3 npinned
  double *R, *U, *P;           // 9 nelem, 9 nelem (NULL without ADMM-PD), 3 nst
  double *rhs, *y;             // 3 nfree: the right-hand side, S b
  double *energy;              // nelem + nfree + nst energy terms, then their sum
  double *dens;                // nelem energy densities (J/m^3)
  // the model's arrays (device copies)
  sim_elem *elems;
  int *free_vert, *pinned, *vt_ptr, *vt_idx, *vb_ptr, *vb_idx, *ent_st, *C_ptr, *C_idx;
  double *mass, *C_val;
  sim_bending bend;  // the stencils with device pointers
  cuda_S S;
  cuda_solvers gs;            // the other global solvers, and Chebyshev on any of them
  sim_sparse_inverse host_S;  // scenes with contact: S and its factor kept on the host for W
  sim_factor *host_fac;
  int *host_perm;             // scenes with contact: S's permutation P (the device builds W)
  struct cuda_contact *cst;  // the contact stage (contact_cuda.cu), NULL without contact
  struct sim_cuda_detect *det;  // collision detection (detect_cuda.cu), NULL: on the host
  int twins;  // detect_download leaves det device twins (SIMCTL_CUDA_TWINS, default on)
  int pdl;    // programmatic edges between its kernels in the graphs (SIMCTL_CUDA_PDL: pdl_cuda.cu)
  int local_blocks;  // the projections' kernel's blocks a multiprocessor holds: 1-4
                     // (SIMCTL_CUDA_LOCAL_BLOCKS, default 1: registers unbounded; local_step.cu)
  double *svd;       // SIMCTL_CUDA_LOCAL_SPLIT=on: each element's SVD between the split local
                     // step's two kernels (SIM_LOCAL_SVD doubles an element); NULL: one kernel
  cuda_reads reads;
  sim_global_stats stats;
  cuda_spans spans;
  cuda_lg lg;
  cuda_snap snap;
} cuda_ctx;

#define CCTX(be) ((cuda_ctx *)(be)->ctx)

// A CUDA or cuSPARSE failure as SIM_ERR_DEVICE naming the call and where it failed.
int sim_cuda_fail(sim_status *st, const char *what, const char *err, const char *file, int line);
#define SIM_CU(call, st)                                                             \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess)                                                           \
      return sim_cuda_fail((st), #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
  } while (0)
#define SIM_CUSP(call, st)                                                               \
  do {                                                                                   \
    cusparseStatus_t e_ = (call);                                                        \
    if (e_ != CUSPARSE_STATUS_SUCCESS)                                                   \
      return sim_cuda_fail((st), #call, cusparseGetErrorString(e_), __FILE__, __LINE__); \
  } while (0)

// Device array of n elements (at least one, so no pointer is NULL), counted in c->dev_bytes;
// copied from `host` when it is not NULL, else zeroed, on c->stream, done when this returns.
int sim_cuda_alloc(cuda_ctx *c, void **p, size_t bytes, const void *host, sim_status *st);
// The backend's environment switches (SIMCTL_CUDA_SPMV, _NSN, _GRAPH, _DETECT, _DELASSUS,
// _TWINS, _DETECT_SLOTS): *out = 0 or 1 for the value a or b, dflt when unset or empty;
// SIM_ERR_USAGE naming both on another value.
int sim_cuda_env_choice(const char *name, const char *a, const char *b, int dflt, int *out,
                        sim_status *st);
// Whether the switch `name` is set (to anything but the empty string): SIMCTL_CUDA_TUNE leaves
// the dimensions set so alone.
int sim_cuda_env_set(const char *name);
// A whole-number switch (SIMCTL_CUDA_ROW_CHUNK): *out = its value, dflt when unset or empty;
// SIM_ERR_USAGE naming the range on anything but a whole number in [lo, hi].
int sim_cuda_env_int(const char *name, int lo, int hi, int dflt, int *out, sim_status *st);
// Whether name is one of the backend's settings (the list in device.cu); SIM_ERR_USAGE naming
// an unknown one, with the nearest known name where one is within three edits; and the
// environment's every SIMCTL_CUDA_* name checked so, at the backend's creation: a misspelt
// switch is refused, not left to run the default under a sweep's label.
int sim_cuda_env_known(const char *name);
int sim_cuda_env_unknown(const char *name, sim_status *st);
int sim_cuda_env_check(sim_status *st);
// Host memory for copies from the device: page-locked, so the copies queue, or where that is
// refused (a locked-memory limit) ordinary memory (*pageable = 1), whose copies then hold the
// host until done, with the same results. Freed by sim_cuda_host_free (NULL: nothing).
int sim_cuda_host_alloc(void **p, size_t bytes, int *pageable, sim_status *st);
void sim_cuda_host_free(void *p, int pageable);
// *out = (cudaStream_t)stream when given (*own = 0), else a new stream (*own = 1).
int sim_cuda_stream_open(void *stream, cudaStream_t *out, int *own, sim_status *st);
// Frees a device array of `bytes` (as allocated) and takes it off c->dev_bytes; NULL: nothing.
void sim_cuda_release(cuda_ctx *c, void *p, size_t bytes);
template <class T>
static inline int sim_cuda_new(cuda_ctx *c, T **p, size_t n, const T *host, sim_status *st) {
  return sim_cuda_alloc(c, (void **)p, sizeof(T) * n, host, st);
}
// Device arrays that grow together, held in one allocation: one cudaMalloc, one memset, one
// wait and one cudaFree for all of them where each of its own took one of each (the Newton
// solve's 29 vectors, the contact rows' arrays; a cudaFree also waits for the device). Each
// array starts at a 256-byte boundary, zeroed. On the host emulation under AddressSanitizer,
// 256 poisoned bytes follow each array, so that running off its end is caught as it is between
// separate allocations.
#define SIM_CUDA_GROUP_PARTS 40
typedef struct cuda_part {
  void **p;      // set to the array's place in the group's block (NULL while none is held)
  size_t bytes;  // the array's size
} cuda_part;
typedef struct cuda_group {
  void *base;    // the block (NULL: none)
  size_t bytes;  // its size, as counted in c->dev_bytes
  size_t cap;    // the items its arrays hold (0: none)
  int n;         // its arrays, and where their pointers are
  void **at[SIM_CUDA_GROUP_PARTS];
} cuda_group;
// The arrays parts(arg, cap, p) lays out (at most SIM_CUDA_GROUP_PARTS of them, sized for cap
// items; returns their number) given room for n items: where g holds fewer (or none), freed
// and laid out anew for n + n / 2 + slack, the contents not kept. On failure g holds none.
int sim_cuda_group_grow(cuda_ctx *c, cuda_group *g, size_t n, size_t slack,
                        int (*parts)(void *arg, size_t cap, cuda_part *p), void *arg,
                        sim_status *st);
// g's block freed and its arrays' pointers set to NULL (nothing held: nothing done).
void sim_cuda_group_free(cuda_ctx *c, cuda_group *g);
template <class T>
static inline cuda_part sim_cuda_part(T **p, size_t n) {
  return cuda_part{(void **)p, sizeof(T) * n};
}
// Grows device array *p of *cap elements to at least n (doubling from 64); contents are not
// kept. *cap is 0 and *p NULL while nothing is held (after a failed allocation).
template <class T>
static inline int sim_cuda_grow(cuda_ctx *c, T **p, size_t *cap, size_t n, sim_status *st) {
  if (n <= *cap && *p) return SIM_OK;
  size_t want = *cap ? *cap : 64;
  while (want < n) want *= 2;
  sim_cuda_release(c, *p, sizeof(T) * *cap);
  *p = NULL, *cap = 0;
  int rc = sim_cuda_new<T>(c, p, want, NULL, st);
  if (!rc) *cap = want;
  return rc;
}

// Blocks of SIM_CUDA_BLOCK threads for n items.
static inline unsigned sim_cuda_blocks(long long n) {
  return (unsigned)((n + SIM_CUDA_BLOCK - 1) / SIM_CUDA_BLOCK);
}

// gpu/spans_cuda.cu: the next event of pool p recorded on stream s with `tag`; the
// milliseconds between events a and b (both reached); the pool's events freed. The backend
// table's mark and settle on c->spans.
int sim_cuda_event_record(cuda_events *p, cudaStream_t s, int tag, sim_status *st);
int sim_cuda_events_reserve(cuda_events *p, int n, sim_status *st); // slots, n events created
int sim_cuda_event_ms(const cuda_events *p, int a, int b, double *ms, sim_status *st);
void sim_cuda_events_free(cuda_events *p);
// What queue(arg) queues on c's stream captured into *exec (the graph there before updated in
// place where the driver can: the same kernels in the same order, other arguments; else
// instantiated anew), events of ev (or NULL) recorded as graph nodes, and with c->pdl the edges
// between kernels made programmatic where they can be (sim_cuda_graph_pdl); nothing runs until a
// launch. A failure (a call the capture refused, or the graph) names `what`; the capture's work
// then did not run.
int sim_cuda_graph_capture(cuda_ctx *c, cudaGraphExec_t *exec, cuda_events *ev,
                           int (*queue)(void *arg, sim_status *st), void *arg, const char *what,
                           sim_status *st);
// gpu/pdl_cuda.cu (SIMCTL_CUDA_PDL=on, c->pdl): in captured graph g, each edge from a kernel to
// one of gpu/'s kernels made programmatic; whether a kernel's name (as
// cudaFuncGetName gives it, mangled or not) is one of gpu/'s (k_*); the edges made so far in
// this process (C linkage: the GPU tests read it).
int sim_cuda_graph_pdl(cudaGraph_t g, sim_status *st);
int sim_cuda_pdl_built(void);  // whether this build can make them (CUDA 13.0's edge data)
extern "C" int sim_cuda_pdl_name_ours(const char *name);
extern "C" long long sim_cuda_pdl_edges(void);
// After a failed capture (st says why): where the device still works (the stream synchronises),
// graphs of that kind are given up for the run (*on = 0, so the caller launches the work one
// by one, now and later), the backend's note says so (be->notes, be->note) and st is cleared:
// SIM_OK. Else st keeps the failure, with the device's error added.
int sim_cuda_graph_fallback(cuda_ctx *c, int *on, sim_status *st);
// A span mark on spans s (events on `stream`); the closed spans' milliseconds added to ms (their
// events reached: after a synchronisation), the spans kept.
int sim_cuda_span_mark(cuda_spans *s, cudaStream_t stream, sim_span_id id, int close,
                       sim_status *st);
int sim_cuda_spans_read(const cuda_spans *s, double ms[SIM_SPAN_COUNT], sim_status *st);
int sim_cuda_mark(sim_backend *be, sim_span_id id, int close, sim_status *st);
int sim_cuda_settle(sim_backend *be, double ms[SIM_SPAN_COUNT], sim_status *st);
// gpu/contact_cuda.cu: the settle's part for the device Newton solve's pending L-G iterations:
// before its wait (after = 0) their results' copies to the host queued, after it (1) taken.
int sim_cuda_contact_settle(cuda_ctx *c, int after, sim_status *st);
// gpu/reads_cuda.cu: the backend table's detect_download and detect_complete; its buffers freed.
int sim_cuda_detect_download(sim_backend *be, int nvec, const sim_vec_id *ids,
                             double *const *hosts, const int *read, const int *verts,
                             int nverts, sim_status *st);
int sim_cuda_detect_complete(sim_backend *be, double *host, sim_status *st);
void sim_cuda_reads_free(cuda_ctx *c, cuda_reads *r);
// gpu/snapshot_cuda.cu: the backend table's snapshot and snapshot_get; its buffers freed.
int sim_cuda_snapshot(sim_backend *be, int q_only, sim_status *st);
int sim_cuda_snapshot_get(sim_backend *be, sim_snapshot *out, sim_status *st);
void sim_cuda_snapshot_destroy(cuda_ctx *c);
// gpu/global_upload.cu: S built on the host from the factor, moved to the device (the host copy
// freed); gpu/global_step.cu: the global step q_free = S^T S rhs.
int sim_cuda_global_create(sim_backend *be, const sim_backend_opts *o, sim_status *st);
int sim_cuda_global_step(sim_backend *be, sim_status *st);
// gpu/global_solvers.cu: the other global solvers' device data (be->global: cholesky, jacobi or
// dense_inverse; none for sparse_inverse) and Chebyshev's iterates (o->chebyshev_rho > 0); the
// global step with them (q^k gathered first where Jacobi or Chebyshev needs it, then the solve,
// then the extrapolation); Chebyshev's count reset (predict); everything freed. keep (or NULL)
// receives Cholesky's simplicial factor, the caller's to free (NULL for the other solvers).
int sim_cuda_solvers_create(sim_backend *be, const sim_backend_opts *o, sim_factor **keep,
                            sim_status *st);
int sim_cuda_solvers_step(cuda_ctx *c, sim_status *st);
void sim_cuda_solvers_reset(cuda_ctx *c);
void sim_cuda_solvers_destroy(cuda_ctx *c);
// dst[vertex] = scale A_s^{-1} b (add: dst += ...) over the free vertices' rows of dst (3n),
// b on the free unknowns (3 nfree), by the backend's global solver (global_solvers.cu; Jacobi
// has no A^{-1}: SIM_ERR_DEVICE), or by S (sim_cuda_S_solve_into, global_step.cu); queued on
// the stream, not synchronised.
int sim_cuda_solve_into(cuda_ctx *c, const double *b, double *dst, double scale, int add,
                        sim_status *st);
// With S's interval rows (SIMCTL_CUDA_S_ROWS=interval): queues P rhs into c->S.bp_rhs, after a
// write of rhs from the host; nothing otherwise.
int sim_cuda_S_permute_rhs(cuda_ctx *c, sim_status *st);
int sim_cuda_S_solve_into(cuda_ctx *c, const double *b, double *dst, double scale, int add,
                          sim_status *st);
// simctl-bench-global: one of simctl's two products alone, queued (which 1: y = S P rhs; 2:
// q's free rows = S^T y), each timed against its own bytes; SIM_ERR_USAGE where S's products
// are not simctl's two gathers (cuSPARSE's, or S by rows alone). C linkage: test_gpu_backend
// checks that the two give the global step's bits.
extern "C" int sim_cuda_S_product(sim_backend *be, int which, sim_status *st);
// One of simctl's two products alone, queued (which 1: y = S P rhs; 2: dst's free vertices' rows
// = S^T y, dst 3 n_vertices); SIM_ERR_USAGE where S's products are not simctl's two gathers.
int sim_cuda_S_queue(cuda_ctx *c, int which, double *dst, sim_status *st);
// SIMCTL_CUDA_TUNE=on (global_tune.cu), after upload: each product's variants that give the same
// sums (S's rows indexed or as intervals, its columns indexed or as runs, 1, 4 or 8 entries'
// loads at a time; those set in the environment fixed) timed on the device, the fastest of each
// kept (c->S.tuned), the arrays of the layouts not kept freed.
enum { SIM_TUNE_FIX_ROWS = 1, SIM_TUNE_FIX_COLS = 2, SIM_TUNE_FIX_BATCH = 4 };
int sim_cuda_global_tune(cuda_ctx *c, sim_status *st);
// The blocks a multiprocessor the gathers' kernels bound their registers for: 0 with the batch
// of 1 (ptxas's own choice), else SIM_CUDA_GATHER_BLOCKS (global_step.cu).
int sim_cuda_gather_blocks(const cuda_ctx *c);
// S's device arrays and cuSPARSE descriptors, and the contact stage's host S, freed
// (global_upload.cu).
void sim_cuda_global_destroy(cuda_ctx *c);
// gpu/lg_graph.cu: the backend table's lg_iterations (a graph per step, or the kernels launched
// one by one with SIMCTL_CUDA_GRAPH=off); its switch read, its graph and events freed.
int sim_cuda_lg_iterations(sim_backend *be, int k, sim_status *st);
int sim_cuda_lg_create(cuda_ctx *c, sim_status *st);
void sim_cuda_lg_destroy(cuda_ctx *c);
// gpu/local_step.cu: projections, bending, the right-hand side; the energy.
int sim_cuda_local_step(sim_backend *be, sim_status *st);
// SIMCTL_CUDA_LOCAL_SPLIT (off, the default, or on): with on and elements that take the
// singular-value solve, c->svd for the split local step (local_step.cu).
int sim_cuda_local_create(cuda_ctx *c, sim_status *st);
double sim_cuda_energy(sim_backend *be, double *elem);
// Queues the energy's terms, their sum (c->energy after the terms) and the densities (c->dens).
int sim_cuda_energy_queue(cuda_ctx *c, sim_status *st);
// Whether W is formed on the host (SIMCTL_CUDA_DELASSUS=host) rather than on the device (the
// default): the host then keeps S and its factor for it. SIM_ERR_USAGE on another value.
int sim_cuda_delassus_on_host(int *on_host, sim_status *st);
// gpu/contact_cuda.cu: the shared contact stage (core/contact/stage.h) with device operations.
int sim_cuda_contact_create(sim_backend *be, const sim_backend_opts *o, sim_status *st);
void sim_cuda_contact_destroy(cuda_ctx *c);

#endif

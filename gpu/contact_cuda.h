// SPDX-License-Identifier: MIT
// The CUDA backend's contact state, shared by contact_cuda.cu (the rows on the device and the
// operations the shared stage calls) and nsn_cuda.cu (the non-smooth Newton solve on the
// device, SIMCTL_CUDA_NSN=device). Private to gpu/.
#ifndef SIM_CONTACT_CUDA_H
#define SIM_CONTACT_CUDA_H
#include "cuda_ctx.h"
#include "delassus_cuda.h"
#include "pdl.cuh"
#include "stamp_cuda.h"
#include "wcols_cuda.h"

extern "C" {
#include "../core/contact/nsn_row.h"
#include "../core/contact/stage.h"
#include "../core/contact/wblocks.h"
}

// One contact's rows: its terms [t0, t1), and for the kinds other than CABLE the directions
// (n, t1, t2) with each term's beta in coef[3 t]; a CABLE's term t has its vector g in coef.
typedef struct cuda_row {
  int t0, t1, cable;
  double c[9];
} cuda_row;

// Where a step's contact comes from: slot `slot` of a detector's list (list >= 0) or of those
// the host sent up (list -1).
typedef struct cuda_from {
  int list, slot;
} cuda_from;

// The step's rows as the device builds them (rows_cuda.cu), besides cuda_contact's arrays.
typedef struct cuda_rows_dev {
  sim_contact *c;      // nc_cap: the step's contacts (the Delassus builder reads them too)
  int *cnt, *t0;       // nc_cap + 1: each contact's terms, and its first (t0[nc]: their number)
  int *tcontact;       // nt_cap: each term's contact
  cuda_group contacts;  // the nc_cap arrays (c, cnt, t0, and cuda_contact's rows, x, out)
  cuda_group terms;     // the nt_cap arrays (tcontact, and cuda_contact's tvert .. irow, tcoef)
  int *free_of;        // n: the model's vertex -> free unknown (-1: pinned)
  int *fcnt, *fcur;    // nfree + 1: terms per free unknown, and the fill's cursors
  int *cab_ptr;        // ncable + 1: cable i's terms are cab_ptr[i] .. cab_ptr[i + 1] - 1
  double *cab_target;  // ncable: cable i's target length this step
  int *cab_vert;       // cab_cap: their vertices
  double *cab_g;       // cab_gcap: their vectors g (3 each)
  size_t cab_cap, cab_gcap;
  void *scan;          // the scans' workspace
  size_t scan_bytes;
  int *h_cab_ptr, *h_cab_vert, h_cab_cap;  // the cables' terms staged on the host
  double *h_cab_g, *h_cab_target;
  // where each contact comes from (rows_cuda.cu put_contacts): a detector's list and slot, or
  // (list -1) a slot of the contacts the host sends up; host staging and device copies
  cuda_from *map, *h_map;
  sim_contact *up, *h_up;
  size_t map_cap, up_cap;
  int h_cap;  // contacts h_map and h_up hold
} cuda_rows_dev;

// W's block form as the products read it (core/contact/wblocks.h; on: this step's operator is
// in that form, G being what the kernels take as W): the builder's frames and cables' rows, and
// the workspace each product's vectors are prepared into first (k_blk_cols): t = C^T x'
// (vector q's component d of contact s at t[3 cap q + cap d + s]) and, with cables, x' itself
// (xp, at 3 cap q: the cables' rows and columns), x' being what W multiplies (x, Omega x, the
// coupled rows' x).
typedef struct cuda_wblk {
  int on, cap, ncab;
  const double *G, *frame, *cab_row;
  const int *cab_j;
  double *t, *xp;
} cuda_wblk;

typedef struct cuda_contact {
  sim_contact_stage stage;
  cuda_ctx *cx;
  int nc_cap, nt_cap;
  // the step's contact count on the device (written by the rows' first kernel), which the
  // products with H and a dense W and the device Newton solve's kernels read: their grids
  // follow the capacities, so a graph captured for one count serves every count they hold
  int *dnc;
  cuda_row *rows;            // nc
  int *tvert, *tfree;        // nt: vertex, free unknown (-1: pinned)
  double *tcoef;             // 3 nt
  int *iptr, *iterm, *irow;  // free unknown -> (term, contact), in contact order
  cuda_rows_dev rd;          // what builds them on the device
  double *x, *out;           // 3 nc
  double *g, *wq;            // 3 nfree, 3 n (W's solution by vertex; pinned rows stay 0), each
                             // w_batch times: a matrix-free product's vectors, one after another
  int w_batch;               // 1, or SIM_W_BATCH once the device solve's batches need it
  double *W;                 // this step's dense W from the host (set_w), m x m row-major
  size_t W_cap;              // doubles
  int w_dense;               // Wp holds this step's operator (else it is matrix-free)
  const double *Wp;          // the dense W the products use: W, or the device builder's
  cuda_wblk blk;             // W's block form (with w_dense and Wp NULL), formed on the device
  struct sim_cuda_delassus *del;  // W formed on the device (delassus_cuda.h), or NULL: on the host
  // the matrix-free W's solve through the contacts' columns of S (wcols_cuda.h; m -1: through all
  // of S, as where SIMCTL_CUDA_WCOLS=off, wcols_on 0, or W is formed on the host)
  cuda_wcols wcols;
  int wcols_on;
  struct cuda_nsn *dn;  // the Newton solve on the device (SIMCTL_CUDA_NSN=device), or NULL
} cuda_contact;

// rows_cuda.cu: the step's rows built on the device from its contacts (into k->rd.c: gathered
// from the device detector's lists where they came from there, sim_contact.dev_ref, else sent
// up), queued, no wait (the stage's set_rows); the arrays they need (create), all freed.
int sim_cuda_rows_set(cuda_contact *k, const sim_contact *c, int nc, sim_status *st);
int sim_cuda_rows_create(cuda_contact *k, sim_status *st);
void sim_cuda_rows_free(cuda_contact *k);

// Device-to-device operations on this step's rows, queued on the backend's stream (not
// synchronised): out = H x over all vertices (free_only: H_free, pinned terms skipped), x by
// vertex (3n); k->g = H_free^T lam (lam 3 nc); out = W x (3 nc) with this step's W (dense, or
// matrix-free through S; k->g and k->wq are its scratch).
int sim_cuda_h_apply(cuda_contact *k, const double *x, int free_only, double *out, sim_status *st);
int sim_cuda_ht_gather(cuda_contact *k, const double *lam, sim_status *st);
// The same, the kernel also writing the stamp `at` first (stamp_cuda.h nsn_stamp_first; it
// launches where there is nothing to compute too, so the stamp is made).
int sim_cuda_h_apply_at(cuda_contact *k, const double *x, int free_only, double *out,
                        nsn_stamp_at at, sim_status *st);
int sim_cuda_ht_gather_at(cuda_contact *k, const double *lam, nsn_stamp_at at, sim_status *st);
// out_t = W x_t for K vectors (x_t = x + t xs, out likewise): a dense W's product
// (sim_cuda_w_apply_dense, below), or matrix-free through the contact vertices' columns of S,
// K <= k->w_batch, reading S once for all K (each product has a single one's bits), or through
// all of S (k->wcols.m -1: K 1, gate NULL). Nothing is written where the device int *gate is 0
// (NULL: always); gated, the launches are queued whatever this step's count, for a graph.
int sim_cuda_w_apply(cuda_contact *k, const double *x, double *out, int K, size_t xs,
                     const int *gate, sim_status *st);
// With a dense W only (k->w_dense): out_t = W x_t for K vectors at once (x_t = x + t xs, out
// likewise; 1 <= K <= SIM_W_BATCH), reading W once; each product has sim_cuda_w_apply's bits.
// wf: a float copy of W read instead (contact.cr_precision, Conjugate Residual's products; K 1),
// each entry widened to double and summed in the same order; NULL: W itself. Nothing is written
// where the device int *gate is 0 (NULL: always). With W's block form (k->blk.on) the vectors
// are prepared first (k_blk_cols); x NULL: prepared already (sim_cuda_blk_cols, e.g. with the
// Newton system's Omega or coupled rows in the place of a launch that would form that vector).
int sim_cuda_w_apply_dense(cuda_contact *k, const float *wf, const double *x, double *out, int K,
                           size_t xs, const int *gate, sim_status *st);

// Row `row` of a dense row-major W (m columns) times K <= KB vectors x_t = x + t xs, by a warp
// (every lane calls it): each lane adds its strided part of every product, then the warp's
// shuffles add the lanes'; lane 0 ends with a[t], t < K. Each product adds in the order of a
// single one (KB 1), whatever KB and K. T: W's values (float: contact.cr_precision's copy),
// each widened to double, the sums in double. sim_cuda_w_apply_dense's kernel and the device
// Newton solve's fused products (nsn_fused.cuh) read W through it. With s, the vectors are
// s_j x_tj, each formed as W's row is read (what a separate elementwise product would have
// stored: the same bits).
template <int KB, typename T>
static __device__ inline void sim_dense_row_dots(int m, const T *row, const double *x, int K,
                                                 size_t xs, int lane, double a[KB],
                                                 const double *s = NULL) {
  for (int t = 0; t < KB; t++) a[t] = 0.0;
  for (int j = lane; j < m; j += 32) {
    const double w = (double)row[j];
    for (int t = 0; t < KB; t++)
      if (t < K) a[t] += w * (s ? s[j] * x[t * xs + (size_t)j] : x[t * xs + (size_t)j]);
  }
  for (int t = 0; t < KB; t++) {
    if (t >= K) break;
    for (int off = 16; off > 0; off /= 2) a[t] += __shfl_down_sync(0xffffffffu, a[t], off);
  }
}

// W's block form: row i = 3 J + r of W times K <= KB prepared vectors (k_blk_cols), by a warp
// (every lane calls it; lane 0 ends with a[q], q < K), in the CPU's order (wblocks.c
// sim_wblocks_apply): u_d = G's row J times t's component d (sim_dense_row_dots' lanes and
// shuffles, as the CPU's lane_dot.h), then f_{J,r} . u (sim_dot3's order), then the cables'
// columns in turn; a cable's own row is its row of W times x'. T: G's values (float: CR's copy).
template <int KB, typename T>
static __device__ inline void sim_blk_row_dots(int nc, const T *G, const cuda_wblk &b, int i, int K,
                                               int lane, double a[KB]) {
  const size_t vs = 3 * (size_t)b.cap;
  for (int c = 0; c < b.ncab; c++) /* warp-uniform: i is the warp's */
    if (3 * b.cab_j[c] == i) {
      sim_dense_row_dots<KB, double>(3 * nc, b.cab_row + (size_t)c * 3 * nc, b.xp, K, vs, lane, a);
      return;
    }
  const int J = i / 3;
  const double *f = b.frame + 9 * (size_t)J + 3 * (i - 3 * J);
  double u[KB], y[KB];
  for (int d = 0; d < 3; d++) {
    sim_dense_row_dots<KB, T>(nc, G + (size_t)J * nc, b.t + (size_t)d * b.cap, K, vs, lane, u);
    for (int q = 0; q < KB; q++)
      if (q < K) y[q] = d == 0 ? f[0] * u[q] : y[q] + f[d] * u[q];
  }
  for (int c = 0; c < b.ncab; c++) {
    const double w = b.cab_row[(size_t)c * 3 * nc + i];
    const size_t jc = 3 * (size_t)b.cab_j[c];
    for (int q = 0; q < KB; q++)
      if (q < K) y[q] += w * b.xp[q * vs + jc];
  }
  for (int q = 0; q < KB; q++)
    if (q < K) a[q] = y[q];
}

// Row i of the Newton system times x from a, W's part of the row (k_sys_post, sys_row and the
// CR start's, k_cr_start_bb_rr, the matrix-free product's cuda_sys_rows: the same expression,
// so the same bits).
static __device__ inline double sys_row_end(int paper, double om, double e, double x, double a) {
  if (paper) return om * a + e * x;
  return sim_nsn_coupled(om) ? a + e / om * x : e * x;
}

// The Newton system's rows around a matrix-free product, inside the product's own launches
// rather than launches of their own (fused; nsn.c system_apply): H_free^T's gather reads
// x'_j = mul[j] x_j where mul is given, or x_j where mask[j] couples row j and 0 elsewhere
// (k_sys_pre's and k_mul's expressions, as k_blk_cols), and with `post` H's product ends row i
// as sys_row_end(paper, om[i], e[i], sx[i], (W x')_i) (k_sys_post's). {}: the plain product.
struct cuda_sys_rows {
  const double *mul, *mask;
  int post, paper;
  const double *om, *e, *sx;
};

// sim_cuda_w_apply with the Newton system's rows around it as r says (one vector, W
// matrix-free through the contact vertices' columns only: k->wcols.m >= 0).
int sim_cuda_w_apply_sys(cuda_contact *k, const double *x, double *out, const int *gate,
                         const cuda_sys_rows &r, sim_status *st);

// What a product multiplies, column by column: x's values (vector q at x + q xs).
struct col_of {
  const double *x;
  __device__ double operator()(int j) const { return x[j]; }
  __device__ col_of shifted(size_t off) const { return col_of{x + off}; }
};

// W's block form's vectors prepared for K products (cuda_wblk's t and xp), a thread per
// contact: x'_j = X's column j (vector q: x.shifted(q xs)), times mul[j] where mul is given
// (Omega x: the paper's Newton system, k_sys_pre's and k_mul's expression), or kept where
// mask[j] couples the row and 0 elsewhere (the compliance form's, k_sys_pre's); then
// t = C^T x' (sim_wblocks_ct). Nothing where *gate is 0 (gate NULL: always).
template <class X>
static __global__ void k_blk_cols(const int *nc, cuda_wblk b, X x, int K, size_t xs,
                                  const double *mul, const double *mask, const int *gate) {
  SIM_PDL_WAIT();
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= *nc || (gate && !*gate)) return;
  const size_t vs = 3 * (size_t)b.cap;
  for (int q = 0; q < K; q++) {
    const X xq = x.shifted(q * xs);
    double v[3], t[3];
    for (int r = 0; r < 3; r++) {
      const int j = 3 * s + r;
      const double xj = xq(j);
      v[r] = mul ? mul[j] * xj : mask ? (sim_nsn_coupled(mask[j]) ? xj : 0.0) : xj;
      if (b.ncab) b.xp[q * vs + (size_t)j] = v[r]; /* only the cables' rows read x' */
    }
    sim_wblocks_ct(b.frame + 9 * (size_t)s, v, t);
    for (int d = 0; d < 3; d++) b.t[q * vs + (size_t)d * b.cap + s] = t[d];
  }
}

// The dense W the products read: W itself, or G of its block form (k->blk.on).
static inline const double *sim_cuda_w_of(const cuda_contact *k) {
  return k->blk.on ? k->blk.G : k->Wp;
}

// Queues k_blk_cols of col_of{x} for this step's block form (k->blk.on), over the arrays'
// capacity (contact_cuda.cu; nsn_cuda.cu queues CR's stepped z's).
int sim_cuda_blk_cols(const cuda_contact *k, const double *x, int K, size_t xs, const double *mul,
                      const double *mask, const int *gate, sim_status *st);

// nsn_cuda.cu and nsn_state.cu: the device Newton solve. The shared stage forms W on its
// side and leaves the rest to the device (sim_contact_stage.backend_prepares). keep queues the
// step's contact keys, tangents and multipliers into the solve's own arrays before the next
// step's contacts replace them (contact_begin); hqt queues H q_t into its array (the step's
// contacts set: sim_contact_stage_begin calls it through the h_state operation), so H q_t never
// visits the host; begin forms the targets, mu and the compliances from the step's contacts on
// the device (rows_cuda.cu's copy), the warm start from the kept multipliers, the weights
// (diag(W), or the mass preconditioner's from the rows) and diag(W) where the host formed W;
// global queues an L-G iteration's contact stage (the unconstrained solve, the Newton steps,
// the correction) on the device. graphs: run the L-G iterations as a CUDA graph where the host
// reads nothing inside one (no CR tolerance, W dense or matrix-free with mf_queue;
// SIMCTL_CUDA_GRAPH). fuse: each
// reduction one launch, Conjugate Residual's updates in its reductions' launches and the
// Newton system's product with a dense W one pass, and the line search's full step tried alone
// before the batch of the other step lengths (SIMCTL_CUDA_FUSE=on; nsn_reduce.cuh), with the
// same bits as the separate launches. cr_step (fused only): Conjugate Residual's step in the
// next product's launch where it can be (SIMCTL_CUDA_CR_STEP=merged, the default), else its own.
// mf_queue: with W matrix-free through the contact vertices' columns of S, the host queues the
// Newton steps without reading the device's decisions, as with a dense W (SIMCTL_CUDA_MF_QUEUE).
int sim_cuda_nsn_create(cuda_contact *k, int graphs, int fuse, int cr_step, int mf_queue,
                        sim_status *st);
int sim_cuda_nsn_keep(cuda_contact *k, sim_status *st);
// A resumed run (backend.h contact_resume): the previous step's keys, tangents and multipliers
// from host contacts c[0..nc) and lam (3 nc), uploaded; the next keep leaves them.
int sim_cuda_nsn_resume(cuda_contact *k, const sim_contact *c, int nc, const double *lam,
                        sim_status *st);
int sim_cuda_nsn_hqt(cuda_contact *k, sim_status *st);
int sim_cuda_nsn_begin(cuda_contact *k, sim_status *st);
int sim_cuda_nsn_global(cuda_contact *k, sim_cst_times *t, sim_status *st);
// The end pass after the step's last L-G iteration (core/contact/stage.h
// sim_contact_stage_finish, on the device): the NCP values at hab + h^2 W f and the judge on
// their max over the merit's rows at contact.end_tolerance, read by the host (a wait), then
// while above it a Newton
// step (up to end_newton_steps; its line search's outcome read, a wait: where it took no step
// the pass stops, as the host's), and the change of f through the correction. Its times and
// Newton steps come back at the settle, like an iteration's; the end's counts and max |phi|
// go into t at once.
int sim_cuda_nsn_finish(cuda_contact *k, sim_cst_times *t, sim_status *st);
// The iterations' statistics and times come back at the backend's settle, with its one wait:
// settle_begin queues their copies to the host before it, settle_end takes them after it (the
// counts and the buckets' times into the sim_cst_times the iterations were given); flush does
// all three where the host needs them before a settle (contact_begin). Nothing pending:
// nothing to do. results: flush, then lambda and f into the host solver (contact_lambda reads
// them), with a wait; nothing else brings them to the host.
int sim_cuda_nsn_settle_begin(cuda_contact *k, sim_status *st);
int sim_cuda_nsn_settle_end(cuda_contact *k, sim_status *st);
int sim_cuda_nsn_flush(cuda_contact *k, sim_status *st);
int sim_cuda_nsn_results(cuda_contact *k, sim_status *st);
void sim_cuda_nsn_destroy(cuda_contact *k);

#endif

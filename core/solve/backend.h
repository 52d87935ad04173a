/* SPDX-License-Identifier: MIT */
/* The backend seam (ggml style): a table of function pointers for the frame's hot operations.
   The CPU implementation is in core/solve/backend_cpu.c, the CUDA one in gpu/. State arrays
   (q, v, ...) live wherever the backend keeps them; the stepper only passes handles. */
#ifndef SIM_BACKEND_H
#define SIM_BACKEND_H
#include <stddef.h>

#include "../base/status.h"
#include "../contact/detect.h"
#include "../contact/nsn.h"
#include "../model/model.h"
#include "factor.h"

typedef enum { SIM_VEC_Q, SIM_VEC_QT, SIM_VEC_QTILDE, SIM_VEC_V, SIM_VEC_COUNT } sim_vec_id;

/* A backend's internal buffers, read and written by the tests that check one operation at a
   time against another backend (tests/test_gpu_backend.c); sim_buffer_len gives the doubles. */
typedef enum {
  SIM_BUF_RHS,  /* 3 nfree: the local step's right-hand side, the global step's input */
  SIM_BUF_PROJ, /* 9 nelem: projections p_i (ADMM-PD: z_i - u_i) */
  SIM_BUF_DUAL, /* 9 nelem: ADMM-PD duals u_i (length 0 without an ADMM-PD material) */
  SIM_BUF_BEND, /* 3 nst: bending projections p_s */
  SIM_BUF_COUNT
} sim_buf_id;

/* The frame's buckets that the stepper times on the backend's own clock (timing.csv's predict,
   local, global, integrate and cd columns; contact_global fills the contact buckets itself,
   sim_cst_times). */
typedef enum {
  SIM_SPAN_PREDICT,   /* set_pins and predict */
  SIM_SPAN_LOCAL,     /* local_step */
  SIM_SPAN_GLOBAL,    /* global_step (iterations without contact) */
  SIM_SPAN_INTEGRATE, /* integrate */
  SIM_SPAN_CD,        /* collision detection: the downloads it needs and the detection passes,
                         host work included (CUDA: from the device reaching the span's start,
                         the work queued before it done, to the host closing it after its
                         last host work; timing.csv's cd) */
  SIM_SPAN_COUNT
} sim_span_id;

/* CUDA, simctl's two gathers of S: a variant of one product timed by SIMCTL_CUDA_TUNE
   (gpu/global_tune.cu), all of them the same sums in the same order */
typedef struct sim_gather_variant {
  int product; /* 0: y = S b (S's rows), 1: S^T y (its columns) */
  int layout;  /* rows: 0 indexed, 1 interval; columns: 0 indexed, 1 runs */
  int batch;   /* the entries whose loads a thread issues together: 1, 4 or 8 */
  double us;   /* microseconds a call: the least of its rounds' means */
} sim_gather_variant;
enum { SIM_GATHER_VARIANTS = 12 };
/* A variant's product and layout as summary.json and the tuning's reports name them. */
static inline const char *sim_gather_product_name(const sim_gather_variant *v) {
  return v->product ? "cols" : "rows";
}
static inline const char *sim_gather_layout_name(const sim_gather_variant *v) {
  return !v->layout ? "indexed" : v->product ? "runs" : "interval";
}
typedef struct sim_gather_tuning {
  int on; /* tuned when the backend was made */
  int n;  /* variants timed */
  sim_gather_variant v[SIM_GATHER_VARIANTS];
  int pick[2]; /* the kept variant of each product, in v */
  double ms;   /* the tuning's wall time, host clock */
} sim_gather_tuning;

typedef struct sim_global_stats {
  long long S_nnz;      /* 0 when the global solver is not the sparse inverse */
  size_t S_bytes;       /* one copy of S in the chosen precision */
  size_t S_resident;    /* what the backend keeps for S (both orientations) */
  double S_build_ms;
  int etree_height;
  /* CUDA, simctl's row gather: the thread blocks that take long rows' chunks and the rows split
     over more than one (laid out in global_upload.cu; SIMCTL_CUDA_ROW_CHUNK; with cuSPARSE's
     products too, which do not use them); 0 on the CPU */
  int S_chunks, S_split_rows;
  int S_col_warps;        /* CUDA: warps per column in the second product (SIMCTL_CUDA_COL_WARPS),
                             the most any column takes where S_col_auto */
  int S_col_auto;         /* CUDA: each column its own warps (SIMCTL_CUDA_COL_WARPS=auto) */
  size_t S_contact_bytes; /* an S kept for the contact stage alone (0: none) */
  /* CUDA, simctl's two gathers (S_gathers 1; 0 elsewhere): S's rows read as intervals, its
     columns as runs, each product's batch, and what SIMCTL_CUDA_TUNE timed */
  int S_gathers, S_row_interval, S_col_runs, S_row_batch, S_col_batch;
  sim_gather_tuning S_tuning;
  sim_factor_info factor;
  /* CUDA: device memory simctl's allocations hold when global_stats is called (S, the state,
     the contact stage's and detection's buffers, which grow with the contacts; not what the
     CUDA context and cuSPARSE keep themselves); 0 on the CPU */
  size_t device_bytes;
} sim_global_stats;

/* Milliseconds of the contact stages (Table 3 buckets), added to by the contact operations. */
typedef struct sim_cst_times {
  double schur_ms;     /* W = H A^{-1} H^T, once per step */
  double global_ms;    /* the unconstrained solve A^{-1} b */
  double assemble_ms;  /* H q, H A^{-1} b, NCP functions and the Newton system */
  double cst_solve_ms; /* Conjugate Residual */
  double corr_ms;      /* H^T f and the correction solve */
  long cr_iters;
  int newton_steps;
  sim_ls_counts ls; /* the line searches' outcomes */
  int nonfinite;    /* a Newton step's merit was NaN or infinite (an overflowing target) */
  /* contact_finish (contact.end_tolerance): the Newton steps it took, whether it ended above
     the tolerance (the passes that did), and the largest max |phi| it ended with (m) */
  int end_steps, end_unmet;
  double end_phi;
} sim_cst_times;

/* A snapshot of the state for the host (snapshot_get): what an output frame writes. */
typedef struct sim_snapshot {
  const double *q;    /* 3n positions */
  const double *v;    /* 3n velocities; NULL in a snapshot of q alone */
  const double *dens; /* nelem elastic energy densities (J/m^3); NULL in a snapshot of q alone */
} sim_snapshot;

struct sim_contact;
typedef struct sim_backend sim_backend;
struct sim_backend {
  const char *name; /* "cpu" or "cuda" */
  char device[128]; /* the hardware it runs on, as reports name it (summary.json "device") */
  sim_global_kind global; /* resolved (never AUTO) */
  void *ctx;
  /* Whole-state transfers: vector `id` (3n doubles) to and from the host. */
  int (*upload)(sim_backend *be, sim_vec_id id, const double *host, sim_status *st);
  int (*download)(sim_backend *be, sim_vec_id id, double *host, sim_status *st);
  /* Vectors ids[0..nvec) for collision detection in host arrays hosts[j] (3n doubles each):
     the backend's detector (`detect`), handed hosts[j], reads vector ids[j]'s values at the
     call, and hosts[j] gets at least the first read[j] (0 .. nverts) of the listed vertices'
     (verts, 3 doubles each), all of them where the detector reads host memory. The other entries may
     be left as they were: the caller reads nothing else (core/contact/world.h
     sim_world_host_reads). The listed vertices of every vector come in one wait. It may
     return before the copies are done, like the queued operations below; the host arrays are
     complete when it returns. NULL: the caller downloads the whole vectors. */
  int (*detect_download)(sim_backend *be, int nvec, const sim_vec_id *ids, double *const *hosts,
                         const int *read, const int *verts, int nverts, sim_status *st);
  /* Host array `host` (3n doubles), handed to detect_download since: every entry of the vector
     the detector read for it, the ones detect_download left unwritten too (CUDA: from the
     device copy it kept), for a resumed run's state (core/app/state_file.h). SIM_ERR_DEVICE
     where the backend holds no such copy; NULL where detect_download is. */
  int (*detect_complete)(sim_backend *be, double *host, sim_status *st);
  /* Internal buffer `id` (sim_buffer_len doubles) to and from the host. */
  int (*read_buffer)(sim_backend *be, sim_buf_id id, double *host, sim_status *st);
  int (*write_buffer)(sim_backend *be, sim_buf_id id, const double *host, sim_status *st);
  /* Pinned vertices' positions for the coming step (npinned x 3). */
  int (*set_pins)(sim_backend *be, const double *pin_pos, sim_status *st);
  /* q~ = q_t + h v + h^2 g on free vertices; q = q~ there; pinned q and q~ = targets. */
  int (*predict)(sim_backend *be, const double gravity[3], sim_status *st);
  /* Local step (Eq. 5): per-element projections p_i, then
     rhs = M q~ + h^2 sum_i w_i G_i^T p_i - C q_pinned over the free unknowns. */
  int (*local_step)(sim_backend *be, sim_status *st);
  /* Global step: q_free = A_s^{-1} rhs for the 3 columns. */
  int (*global_step)(sim_backend *be, sim_status *st);
  /* k L-G iterations of a step without contact, right after predict: each a local_step in a
     span of SIM_SPAN_LOCAL, then a global_step in one of SIM_SPAN_GLOBAL, as the stepper's own
     loop would mark them, queued like them (CUDA: one graph per step, SIMCTL_CUDA_GRAPH).
     NULL: the stepper calls local_step and global_step itself. */
  int (*lg_iterations)(sim_backend *be, int k, sim_status *st);
  /* Contact (DESIGN.md Sec. 6; NULL where the backend has none). contact_begin starts a
     step's contact solve with the nc contacts found at its start (host array): W, targets,
     mu, the preconditioner, multipliers warm-started from the previous step's matching
     contacts (scene contact.warm_start). nc = 0: no contact this step.
     contact_global replaces global_step while nc > 0 (Algorithm 4 steps 2-4):
     q_u = A^{-1} b, up to contact.newton_steps non-smooth Newton steps (stopping at
     contact.newton_tolerance), q = q_u + h^2 A^{-1} H^T f. */
  int (*contact_begin)(sim_backend *be, const struct sim_contact *c, int nc, sim_cst_times *t,
                       sim_status *st);
  int (*contact_global)(sim_backend *be, sim_cst_times *t, sim_status *st);
  /* After the step's last contact_global (core/contact/stage.h sim_contact_stage_finish):
     where contact.end_tolerance > 0, the NCP values at the state it left, and while above
     the tolerance up to contact.end_newton_steps more Newton steps, their change of f applied
     by a correction. Times and counts as contact_global's (contact_clocked). */
  int (*contact_finish)(sim_backend *be, sim_cst_times *t, sim_status *st);
  /* 1: contact_global times its buckets on the backend's own clock (time stamps on the
     device, with the Newton solve there), so the queued work before it need not be settled
     first; it may then return before its work is done, and its times and counts reach `t`
     at the next settle; 0: host timers around its operations, which the stepper settles
     before it. */
  int contact_clocked;
  /* The step's contact multipliers lambda (3 nc: normal force, then the two tangents, N) into
     host `out`, in the order of the contacts given to contact_begin. */
  int (*contact_lambda)(sim_backend *be, double *out, sim_status *st);
  /* A resumed run (core/app/state_file.h): the next contact_begin warm-starts from contacts
     c[0..nc) (sorted by key) and their multipliers lam (3 nc), which an earlier run's
     contact_lambda gave at the end of the step resumed from, as if that step had just ended. */
  int (*contact_resume)(sim_backend *be, const sim_contact *c, int nc, const double *lam,
                        sim_status *st);
  /* Where the frame's collision detection runs (run NULL: on the host, sim_detect_run); the
     CUDA backend's device detector finds the same contacts (gpu/detect_cuda.h). */
  sim_detect_runner detect;
  /* v = (q - q_t) / h; q_t = q. */
  int (*integrate)(sim_backend *be, sim_status *st);
  /* Queued work and its timing. set_pins, predict, local_step, global_step and integrate may
     return before their work is done (a failure the device meets is then reported by a later
     call, settle at the latest); every other operation but mark and snapshot returns with all
     work done, the queued work before it included, so what it gives the host is complete.
     mark(id, 0) opens a span of bucket id and mark(id, 1) closes it, around the operations
     queued in between; a bucket's spans do not overlap. settle waits for all queued work, then
     adds each closed span's milliseconds to ms[its bucket] and forgets the spans. CPU: host
     clock readings (its operations finish before they return); CUDA: events on its stream, so
     a frame of L-G iterations without contact synchronises once. */
  int (*mark)(sim_backend *be, sim_span_id id, int close, sim_status *st);
  int (*settle)(sim_backend *be, double ms[SIM_SPAN_COUNT], sim_status *st);
  /* Output snapshots. snapshot takes the state as it is when the queued work before it is
     done: q, and unless q_only, v and the energy densities (the energy op's `elem`). It may
     return before the host has the copy (CUDA: copied on the device, then to page-locked host
     memory on a stream of its own, overlapping the frames that follow); the state may go on
     changing. snapshot_get waits for the last snapshot and gives its arrays, the backend's
     until its next snapshot. */
  int (*snapshot)(sim_backend *be, int q_only, sim_status *st);
  int (*snapshot_get)(sim_backend *be, sim_snapshot *out, sim_status *st);
  /* Incremental potential e(q) = 1/(2h^2) |q - q~|_M^2 + sum_i V_i Psi_i(G_i q) + bending
     (ARAP: V_i Psi_i = w_i/2 |G_i q - R_i(q)|^2), and per-element elastic energy density (J/m^3)
     into `elem` when non-NULL (host, nelem). */
  double (*energy)(sim_backend *be, double *elem);
  void (*global_stats)(sim_backend *be, sim_global_stats *out);
  /* At a run's end, after its last frame: the backend's own tables into output folder `dir`,
     its queued work done first (CUDA with SIMCTL_CUDA_RANGES=on: ranges.csv, gpu/range_cuda.h;
     NULL or nothing written where it has none). */
  int (*report)(sim_backend *be, const char *dir, sim_status *st);
  void (*destroy)(sim_backend *be);
  /* Notices the backend gives during a run, about how it runs, not what it computes (CUDA: a
     graph capture the driver refused, whose kernels are then launched one by one): `notes`
     counts them, `note` holds the last (one line). The run prints each new one on stderr and
     summary.json keeps the last. */
  int notes;
  char note[SIM_MSG_MAX];
};

/* The host's factor and S kept across backends made one after another for one model, with the
   same ordering and no limit on S (simctl-bench-global's --variant rows, which differ in the
   CUDA backend's switches and the precision): the first backend that needs each builds it and
   leaves it here, the next take it (the CUDA backend's sparse inverse, scenes without contact,
   simctl's own products); the caller frees it with sim_S_cache_free after the last backend. */
typedef struct sim_S_cache {
  sim_factor *fac;
  sim_sparse_inverse S[2]; /* by precision: [0] double, [1] float */
  int have[2];
} sim_S_cache;
void sim_S_cache_free(sim_S_cache *c);

typedef struct sim_backend_opts {
  sim_global_kind global;
  sim_precision precision;
  sim_ordering ordering;
  size_t max_S_bytes; /* 0 = no limit */
  double chebyshev_rho; /* jacobi: Chebyshev acceleration (0 = off) */
  size_t max_dense_bytes; /* dense_inverse: refuse above this (0 = no limit) */
  int gpu; /* CUDA: the device's index (solver.gpu; 0 = the first) */
  sim_S_cache *S_cache; /* NULL: the backend builds its own factor and S */
} sim_backend_opts;

/* Length in doubles of buffer `id` for model m. */
size_t sim_buffer_len(const sim_model *m, sim_buf_id id);

/* Scene name of a global solver ("sparse_inverse", "cholesky", ...). */
const char *sim_global_name(sim_global_kind g);

int sim_backend_cpu_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                           sim_status *st);
/* gpu/: SIM_ERR_DEVICE with a reason when CUDA cannot run (not built, no device, ...). */
int sim_backend_cuda_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                            sim_status *st);
/* Whether `--device auto` may pick the CUDA backend: 1 since every GPU test (label gpu) passed
   on a GPU (an NVIDIA H200, 2026-11-28, docs/gpu_runs); 0 runs it only when asked for
   (--device cuda). */
#define SIM_CUDA_AUTO 1
/* 1 when CUDA device `gpu` (its index) is usable, with its name in `why`; otherwise 0 and a
   reason in `why`. The CUDA backend runs on that device (cudaSetDevice in the creating thread,
   which makes every later call of the backend). */
int sim_cuda_available(int gpu, char *why, size_t len);

/* One CUDA device as the runtime numbers it (`simctl devices`). */
typedef struct sim_cuda_device {
  char name[256];
  int major, minor; /* compute capability: sm_<major><minor> */
  double mem_gib;
  int runs;      /* 1: this build's kernels run on it (sim_cuda_available's check) */
  char why[640]; /* where not, why (naming both architectures) */
} sim_cuda_device;
/* The CUDA devices, at most `max` of them into `out`, and the driver's and runtime's CUDA
   versions (1000 major + 10 minor; 0 where unknown); returns how many there are, or -1 with a
   reason in `why` where none can be listed (no CUDA build, no driver, no device). */
int sim_cuda_devices(sim_cuda_device *out, int max, int *driver, int *runtime, char *why,
                     size_t len);
/* The architectures the CUDA kernels were built for (CMake's SIMCTL_CUDA_ARCHS,
   comma-separated), or NULL without a CUDA build. */
const char *sim_cuda_archs(void);

#endif

/* SPDX-License-Identifier: MIT */
/* The CUDA entry points when simctl is built without CUDA (make CUDA=0 or no nvcc). */
#include <stdio.h>

#include "../core/solve/backend.h"
#include "delassus_cuda.h"
#include "detect_cuda.h"

int sim_cuda_available(int gpu, char *why, size_t len) {
  (void)gpu;
  snprintf(why, len, "this simctl was built without CUDA");
  return 0;
}

int sim_cuda_devices(sim_cuda_device *out, int max, int *driver, int *runtime, char *why,
                     size_t len) {
  (void)out, (void)max;
  *driver = *runtime = 0;
  snprintf(why, len, "this simctl was built without CUDA (rebuild with nvcc installed and CUDA=1)");
  return -1;
}

const char *sim_cuda_archs(void) { return NULL; }

int sim_backend_cuda_create(const sim_model *m, const sim_backend_opts *o, sim_backend **out,
                            sim_status *st) {
  *out = NULL;
  return sim_fail(st, SIM_ERR_DEVICE,
                  "--device cuda: this simctl was built without CUDA (rebuild with nvcc "
                  "installed and CUDA=1)");
}

int sim_cuda_detect_create(void *stream, sim_cuda_detect **out, sim_status *st) {
  (void)stream;
  *out = NULL;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_run(void *ctx, sim_detect *d, const sim_detect_scene *s,
                        const sim_detect_params *p, sim_detect_contacts *out, sim_status *st) {
  (void)ctx, (void)d, (void)s, (void)p, (void)out;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_passes(void *ctx, sim_detect *d, int n, const sim_detect_scene *s,
                           const sim_detect_params *p, sim_detect_contacts *const *out,
                           const sim_detect_points_job *pts, sim_status *st) {
  (void)ctx, (void)d, (void)n, (void)s, (void)p, (void)out, (void)pts;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_points(void *ctx, sim_point_scene *s, sim_detect_contacts *out,
                           unsigned char *found, sim_status *st) {
  (void)ctx, (void)s, (void)out, (void)found;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_keep(sim_cuda_detect *k, const double *host, const double *dev, size_t n,
                         sim_status *st) {
  (void)k, (void)host, (void)dev, (void)n;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

void sim_cuda_detect_twin_counts(const sim_cuda_detect *k, long long *hits, long long *misses) {
  (void)k;
  *hits = *misses = 0;
}

long long sim_cuda_detect_second_waits(const sim_cuda_detect *k) {
  (void)k;
  return 0;
}

long long sim_cuda_detect_waits(const sim_cuda_detect *k) {
  (void)k;
  return 0;
}

const sim_contact *sim_cuda_detect_list(const sim_cuda_detect *k, int ref, int *held) {
  (void)k, (void)ref, (void)held;
  return NULL;
}

int sim_cuda_detect_copy(const sim_cuda_detect *k, const sim_contact *c, sim_contact *out,
                         int *held, sim_status *st) {
  (void)k, (void)c, (void)out;
  *held = 0;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_detect_body_tree(const sim_cuda_detect *k, int b, sim_bvh_node *out, int *nnodes,
                              sim_status *st) {
  (void)k, (void)b, (void)out;
  *nnodes = 0;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

long long sim_cuda_detect_found(const sim_cuda_detect *k) {
  (void)k;
  return 0;
}

size_t sim_cuda_detect_bytes(const sim_cuda_detect *k) {
  (void)k;
  return 0;
}

void sim_cuda_detect_destroy(sim_cuda_detect *k) { (void)k; }

int sim_cuda_delassus_create(void *stream, sim_cuda_delassus **out, sim_status *st) {
  (void)stream;
  *out = NULL;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_delassus_use_S(sim_cuda_delassus *k, int n, const int *col_ptr, const int *col_row,
                            const double *col_val, const float *col_valf, const int *perm,
                            sim_status *st) {
  (void)k, (void)n, (void)col_ptr, (void)col_row, (void)col_val, (void)col_valf, (void)perm;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_delassus_upload_S(sim_cuda_delassus *k, const sim_sparse_inverse *S,
                               sim_status *st) {
  (void)k, (void)S;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_delassus_build(sim_cuda_delassus *k, const sim_contact *c, int nc, const int *free_of,
                            int dense, size_t max_bytes, double *diag, sim_status *st) {
  (void)k, (void)c, (void)nc, (void)free_of, (void)dense, (void)max_bytes, (void)diag;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_delassus_solve_cols(sim_cuda_delassus *k, const double *g, double *x, sim_status *st) {
  (void)k, (void)g, (void)x;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

const double *sim_cuda_delassus_W(const sim_cuda_delassus *k) {
  (void)k;
  return NULL;
}

int sim_cuda_delassus_download(sim_cuda_delassus *k, double *W, sim_status *st) {
  (void)k, (void)W;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_delassus_blocks(const sim_cuda_delassus *k, sim_cuda_wblocks *B) {
  (void)k, (void)B;
  return -1;
}

int sim_cuda_delassus_download_blocks(sim_cuda_delassus *k, double *G, double *frame,
                                      double *cab_row, sim_status *st) {
  (void)k, (void)G, (void)frame, (void)cab_row;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

size_t sim_cuda_delassus_bytes(const sim_cuda_delassus *k) {
  (void)k;
  return 0;
}

void sim_cuda_delassus_destroy(sim_cuda_delassus *k) { (void)k; }

long long sim_cuda_pdl_edges(void) { return 0; }

int sim_cuda_S_product(sim_backend *be, int which, sim_status *st) {
  (void)be, (void)which;
  return sim_fail(st, SIM_ERR_DEVICE, "this simctl was built without CUDA");
}

int sim_cuda_pdl_name_ours(const char *name) {
  (void)name;
  return 0;
}

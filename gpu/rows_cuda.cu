// SPDX-License-Identifier: MIT
// The step's contact rows built on the device (contact_cuda.h sim_cuda_rows_set). The contacts
// are gathered from the device detector's lists where it found them and still holds them (a map
// of 8 bytes a contact goes up, and whole contacts only for the host's own), into one array the
// Delassus builder reads too; a thread per contact counts its terms
// (core/contact/rows.h sim_rows_terms, a cable's from its row), a scan places them, a thread
// per contact writes its row and terms. The free unknowns' incidences (H_free^T's gather, each
// unknown's terms in contact order) by a count, a scan, a fill and a sort of each unknown's few
// entries by term: the terms lie in contact order, so every array is the host's counting sort's
// to the entry, whatever order the fill's atomics took.
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "contact_cuda.h"
#include "detect_cuda.h"
#include "pdl.cuh"

extern "C" {
#include "../core/base/alloc.h"
#include "../core/contact/rows.h"
}

// cnt[j] = contact j's terms (cnt[nc] = 0: the scan's total lands there), and nc into *dnc
// (cuda_contact.dnc).
static __global__ void k_term_count(int nc, const sim_contact *c, const int *cab_ptr, int *cnt,
                                    int *dnc) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > nc) return;
  if (j == nc) {
    cnt[nc] = 0;
    *dnc = nc;
    return;
  }
  if (c[j].kind == SIM_CONTACT_CABLE) {
    const int s = c[j].source;
    cnt[j] = cab_ptr[s + 1] - cab_ptr[s];
    return;
  }
  int vert[4];
  double beta[4];
  cnt[j] = sim_rows_terms(&c[j], vert, beta);
}

// Contact j's row and its terms from t0[j] on, as contact_cuda.cu's products read them: the
// directions (n, t1, t2), each term's vertex, free unknown and coefficient (beta, 0, 0; a
// cable's g), and its contact.
static __global__ void k_rows_fill(int nc, const sim_contact *c, const int *t0, const int *cab_ptr,
                                   const int *cab_vert, const double *cab_g, const int *free_of,
                                   cuda_row *rows, int *tvert, int *tfree, double *tcoef,
                                   int *tcontact) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const sim_contact *cj = &c[j];
  cuda_row r;
  r.t0 = t0[j], r.t1 = t0[j + 1];
  r.cable = cj->kind == SIM_CONTACT_CABLE;
  for (int d = 0; d < 3; d++) r.c[d] = cj->n[d], r.c[3 + d] = cj->t1[d], r.c[6 + d] = cj->t2[d];
  int t = r.t0;
  if (r.cable) {
    for (int a = cab_ptr[cj->source]; a < cab_ptr[cj->source + 1]; a++, t++) {
      tvert[t] = cab_vert[a];
      for (int d = 0; d < 3; d++) tcoef[3 * (size_t)t + d] = cab_g[3 * (size_t)a + d];
    }
  } else {
    int vert[4];
    double beta[4];
    const int n = sim_rows_terms(cj, vert, beta);
    for (int a = 0; a < n; a++, t++) {
      tvert[t] = vert[a];
      tcoef[3 * (size_t)t] = beta[a];
      tcoef[3 * (size_t)t + 1] = tcoef[3 * (size_t)t + 2] = 0.0;
    }
  }
  for (int i = r.t0; i < r.t1; i++) tfree[i] = free_of[tvert[i]], tcontact[i] = j;
  rows[j] = r;
}

// fcnt[f] += the terms of free unknown f, over the *ntot terms (at most nbound).
static __global__ void k_free_count(int nbound, const int *ntot, const int *tfree, int *fcnt) {
  SIM_PDL_WAIT();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nbound && t < *ntot && tfree[t] >= 0) atomicAdd(&fcnt[tfree[t]], 1);
}

// Each term of a free unknown into the unknown's range of iterm, in the atomics' order.
static __global__ void k_free_fill(int nbound, const int *ntot, const int *tfree, const int *iptr,
                                   int *fcur, int *iterm) {
  SIM_PDL_WAIT();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nbound || t >= *ntot || tfree[t] < 0) return;
  const int f = tfree[t];
  iterm[iptr[f] + atomicAdd(&fcur[f], 1)] = t;
}

// Each unknown's terms sorted (insertion: a vertex is in a few contacts), and their contacts.
static __global__ void k_free_sort(int nfree, const int *iptr, const int *tcontact, int *iterm,
                                   int *irow) {
  SIM_PDL_WAIT();
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nfree) return;
  const int p0 = iptr[f], p1 = iptr[f + 1];
  for (int p = p0 + 1; p < p1; p++) {
    const int t = iterm[p];
    int q = p;
    for (; q > p0 && iterm[q - 1] > t; q--) iterm[q] = iterm[q - 1];
    iterm[q] = t;
  }
  for (int p = p0; p < p1; p++) irow[p] = tcontact[iterm[p]];
}

// ---------------------------------------------------------------- arrays

// The contacts' arrays for cap contacts, and the terms' for cap terms (sim_cuda_group_grow's
// parts, arg a cuda_contact).
static int contact_parts(void *arg, size_t cap, cuda_part *p) {
  cuda_contact *k = (cuda_contact *)arg;
  p[0] = sim_cuda_part(&k->rows, cap), p[1] = sim_cuda_part(&k->x, 3 * cap);
  p[2] = sim_cuda_part(&k->out, 3 * cap), p[3] = sim_cuda_part(&k->rd.c, cap);
  p[4] = sim_cuda_part(&k->rd.cnt, cap + 1), p[5] = sim_cuda_part(&k->rd.t0, cap + 1);
  return 6;
}
static int term_parts(void *arg, size_t cap, cuda_part *p) {
  cuda_contact *k = (cuda_contact *)arg;
  int **ia[] = {&k->tvert, &k->tfree, &k->iterm, &k->irow, &k->rd.tcontact};
  int n = 0;
  for (int **q : ia) p[n++] = sim_cuda_part(q, cap);
  p[n++] = sim_cuda_part(&k->tcoef, 3 * cap);
  return n;
}

// Room for nc contacts and nt terms (the arrays grow together: one capacity each for the
// contacts' and the terms' arrays, which the device Newton solve's graph signature names; each
// set one device block).
static int grow_rows(cuda_contact *k, int nc, int nt, sim_status *st) {
  int rc = sim_cuda_group_grow(k->cx, &k->rd.contacts, (size_t)nc, 16, contact_parts, k, st);
  k->nc_cap = (int)k->rd.contacts.cap;
  if (!rc) rc = sim_cuda_group_grow(k->cx, &k->rd.terms, (size_t)nt, 64, term_parts, k, st);
  k->nt_cap = (int)k->rd.terms.cap;
  return rc;
}

// The scans' workspace for n items (cub's query is a host call: nothing queued).
static int scan_room(cuda_contact *k, int n, sim_status *st) {
  cuda_rows_dev *r = &k->rd;
  size_t bytes = 0;
  SIM_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, r->cnt, r->t0, n, k->cx->stream), st);
  if (bytes <= r->scan_bytes && r->scan) return SIM_OK;
  sim_cuda_release(k->cx, r->scan, r->scan_bytes);
  r->scan = NULL, r->scan_bytes = 0;
  int rc = sim_cuda_alloc(k->cx, &r->scan, bytes, NULL, st);
  if (!rc) r->scan_bytes = bytes;
  return rc;
}

// This step's cables' terms and target lengths, by cable index (contact.h: a CABLE's source),
// up (cables are few: their rows are the host's, remade each step). *terms: their number.
static int put_cables(cuda_contact *k, const sim_contact *c, int nc, int *terms,
                      sim_status *st) {
  cuda_rows_dev *r = &k->rd;
  const int ncab = k->cx->m->ncable;
  *terms = 0;
  if (ncab == 0) return SIM_OK;
  int *ptr = r->h_cab_ptr, n = 0;
  for (int i = 0; i <= ncab; i++) ptr[i] = 0;
  for (int i = 0; i < ncab; i++) r->h_cab_target[i] = 0.0;
  for (int j = 0; j < nc; j++)
    if (c[j].kind == SIM_CONTACT_CABLE) {
      ptr[c[j].source + 1] = c[j].cable->nt;
      r->h_cab_target[c[j].source] = c[j].cable->target;
    }
  for (int i = 0; i < ncab; i++) ptr[i + 1] += ptr[i];
  n = ptr[ncab];
  if (n > r->h_cab_cap) {
    sim_free(r->h_cab_vert), sim_free(r->h_cab_g);
    r->h_cab_vert = SIM_NEW(int, (size_t)n);
    r->h_cab_g = SIM_NEW(double, 3 * (size_t)n);
    r->h_cab_cap = r->h_cab_vert && r->h_cab_g ? n : 0;
    if (!r->h_cab_cap) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (cable rows)");
  }
  for (int j = 0; j < nc; j++) {
    if (c[j].kind != SIM_CONTACT_CABLE) continue;
    const sim_cable_row *row = c[j].cable;
    for (int a = 0, t = ptr[c[j].source]; a < row->nt; a++, t++) {
      r->h_cab_vert[t] = row->vert[a];
      for (int d = 0; d < 3; d++) r->h_cab_g[3 * (size_t)t + d] = row->g[a][d];
    }
  }
  int rc = sim_cuda_grow(k->cx, &r->cab_vert, &r->cab_cap, (size_t)n, st);
  if (!rc) rc = sim_cuda_grow(k->cx, &r->cab_g, &r->cab_gcap, 3 * (size_t)n, st);
  if (rc) return rc;
  cudaStream_t s = k->cx->stream;  // pageable sources: staged before each copy returns
  SIM_CU(cudaMemcpyAsync(r->cab_ptr, ptr, sizeof(int) * ((size_t)ncab + 1), cudaMemcpyHostToDevice,
                         s),
         st);
  SIM_CU(cudaMemcpyAsync(r->cab_target, r->h_cab_target, sizeof(double) * (size_t)ncab,
                         cudaMemcpyHostToDevice, s),
         st);
  if (n > 0) {
    SIM_CU(cudaMemcpyAsync(r->cab_vert, r->h_cab_vert, sizeof(int) * (size_t)n,
                           cudaMemcpyHostToDevice, s),
           st);
    SIM_CU(cudaMemcpyAsync(r->cab_g, r->h_cab_g, sizeof(double) * 3 * (size_t)n,
                           cudaMemcpyHostToDevice, s),
           st);
  }
  *terms = n;
  return SIM_OK;
}

// ---------------------------------------------------------------- the step's contacts

#define SIM_ROWS_LISTS 8  // detector lists a step's contacts are gathered from, at most

// The device lists the step's contacts are gathered from (their copies left by detection).
typedef struct rows_lists {
  const sim_contact *c[SIM_ROWS_LISTS];
} rows_lists;

// The step's contacts in order: from a detector's list where the map says so, else from those
// the host sent up.
static __global__ void k_gather(int nc, const cuda_from *map, rows_lists L, const sim_contact *up,
                                sim_contact *c) {
  SIM_PDL_WAIT();
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nc) return;
  const cuda_from m = map[j];
  c[j] = m.list >= 0 ? L.c[m.list][m.slot] : up[m.slot];
}

// The step's contacts into k->rd.c: those the device detector found and still holds
// (sim_contact.dev_ref, sim_cuda_detect_list) gathered from its lists, the others (the host's
// own: constraint pins, cables, scripted obstacles' contacts whose velocity the host set, a
// host detection's, or a list a later pass replaced) sent up; a map of 8 bytes a contact.
static int put_contacts(cuda_contact *k, const sim_contact *c, int nc, sim_status *st) {
  cuda_rows_dev *r = &k->rd;
  if (nc == 0) return SIM_OK;
  if (nc > r->h_cap) {
    const int cap = nc + nc / 2 + 16;
    sim_free(r->h_map), sim_free(r->h_up);
    r->h_map = SIM_NEW(cuda_from, (size_t)cap);
    r->h_up = SIM_NEW(sim_contact, (size_t)cap);
    r->h_cap = r->h_map && r->h_up ? cap : 0;
    if (!r->h_cap) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (%d contacts)", nc);
  }
  rows_lists L;
  int ref[SIM_ROWS_LISTS], held[SIM_ROWS_LISTS], nl = 0, nup = 0;
  for (int j = 0; j < nc; j++) {
    const int cr = c[j].dev_ref;
    int li = -1;
    for (int i = 0; cr != 0 && i < nl && li < 0; i++) li = ref[i] == cr ? i : -1;
    if (cr != 0 && li < 0 && nl < SIM_ROWS_LISTS && k->cx->det) {
      const sim_contact *d = sim_cuda_detect_list(k->cx->det, cr, &held[nl]);
      if (d) L.c[nl] = d, ref[nl] = cr, li = nl++;
    }
    if (li >= 0 && c[j].dev_slot >= 0 && c[j].dev_slot < held[li]) {
      r->h_map[j].list = li, r->h_map[j].slot = c[j].dev_slot;
    } else {
      r->h_map[j].list = -1, r->h_map[j].slot = nup;
      r->h_up[nup++] = c[j];
    }
  }
  for (int i = nl; i < SIM_ROWS_LISTS; i++) L.c[i] = NULL;
  int rc = sim_cuda_grow(k->cx, &r->map, &r->map_cap, (size_t)nc, st);
  if (!rc && nup > 0) rc = sim_cuda_grow(k->cx, &r->up, &r->up_cap, (size_t)nup, st);
  if (rc) return rc;
  cudaStream_t s = k->cx->stream;  // pageable sources: staged before each copy returns
  SIM_CU(cudaMemcpyAsync(r->map, r->h_map, sizeof(cuda_from) * (size_t)nc,
                         cudaMemcpyHostToDevice, s),
         st);
  if (nup > 0)
    SIM_CU(cudaMemcpyAsync(r->up, r->h_up, sizeof(sim_contact) * (size_t)nup,
                           cudaMemcpyHostToDevice, s),
           st);
  k_gather<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, s>>>(nc, r->map, L, r->up, r->c);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK;
}

// ---------------------------------------------------------------- the step's rows

int sim_cuda_rows_set(cuda_contact *k, const sim_contact *c, int nc, sim_status *st) {
  cuda_rows_dev *r = &k->rd;
  const sim_model *m = k->cx->m;
  cudaStream_t s = k->cx->stream;
  int cab_terms = 0;
  int rc = put_cables(k, c, nc, &cab_terms, st);
  const int nbound = 4 * nc + cab_terms; /* sim_rows_terms gives at most 4 */
  if (!rc) rc = grow_rows(k, nc, nbound, st);
  if (!rc) rc = scan_room(k, (nc > m->nfree ? nc : m->nfree) + 1, st);
  if (rc) return rc;
  k->w_dense = 0, k->blk.on = 0;
  if ((rc = put_contacts(k, c, nc, st))) return rc;
  k_term_count<<<sim_cuda_blocks(nc + 1), SIM_CUDA_BLOCK, 0, s>>>(nc, r->c, r->cab_ptr, r->cnt,
                                                                  k->dnc);
  SIM_CU(cub::DeviceScan::ExclusiveSum(r->scan, r->scan_bytes, r->cnt, r->t0, nc + 1, s), st);
  if (nc > 0)
    k_rows_fill<<<sim_cuda_blocks(nc), SIM_CUDA_BLOCK, 0, s>>>(
        nc, r->c, r->t0, r->cab_ptr, r->cab_vert, r->cab_g, r->free_of, k->rows, k->tvert,
        k->tfree, k->tcoef, r->tcontact);
  const int *ntot = r->t0 + nc, nf = m->nfree;
  SIM_CU(cudaMemsetAsync(r->fcnt, 0, sizeof(int) * ((size_t)nf + 1), s), st);
  SIM_CU(cudaMemsetAsync(r->fcur, 0, sizeof(int) * ((size_t)nf + 1), s), st);
  if (nbound > 0)
    k_free_count<<<sim_cuda_blocks(nbound), SIM_CUDA_BLOCK, 0, s>>>(nbound, ntot, k->tfree,
                                                                    r->fcnt);
  SIM_CU(cub::DeviceScan::ExclusiveSum(r->scan, r->scan_bytes, r->fcnt, k->iptr, nf + 1, s), st);
  if (nbound > 0)
    k_free_fill<<<sim_cuda_blocks(nbound), SIM_CUDA_BLOCK, 0, s>>>(nbound, ntot, k->tfree, k->iptr,
                                                                   r->fcur, k->iterm);
  if (nf > 0)
    k_free_sort<<<sim_cuda_blocks(nf), SIM_CUDA_BLOCK, 0, s>>>(nf, k->iptr, r->tcontact, k->iterm,
                                                               k->irow);
  SIM_CU(cudaGetLastError(), st);
  return SIM_OK; /* no wait: the contacts' and cables' copies were staged before they returned */
}

int sim_cuda_rows_create(cuda_contact *k, sim_status *st) {
  cuda_rows_dev *r = &k->rd;
  const sim_model *m = k->cx->m;
  r->h_cab_ptr = SIM_NEW(int, (size_t)m->ncable + 1);
  r->h_cab_target = SIM_NEW(double, (size_t)m->ncable + 1);
  if (!r->h_cab_ptr || !r->h_cab_target)
    return sim_fail(st, SIM_ERR_MEMORY, "out of memory (contact rows)");
  int rc = sim_cuda_new<int>(k->cx, &r->free_of, (size_t)m->n, m->free_of, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &k->dnc, 1, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &r->fcnt, (size_t)m->nfree + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &r->fcur, (size_t)m->nfree + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<int>(k->cx, &r->cab_ptr, (size_t)m->ncable + 1, NULL, st);
  if (!rc) rc = sim_cuda_new<double>(k->cx, &r->cab_target, (size_t)m->ncable + 1, NULL, st);
  return rc;
}

void sim_cuda_rows_free(cuda_contact *k) {
  cuda_rows_dev *r = &k->rd;
  sim_cuda_group_free(k->cx, &r->contacts);
  sim_cuda_group_free(k->cx, &r->terms);
  const size_t n = (size_t)k->cx->m->n, nf = (size_t)k->cx->m->nfree;
  sim_cuda_release(k->cx, r->free_of, sizeof(int) * n);
  sim_cuda_release(k->cx, k->dnc, sizeof(int));
  k->dnc = NULL;
  sim_cuda_release(k->cx, r->fcnt, sizeof(int) * (nf + 1));
  sim_cuda_release(k->cx, r->fcur, sizeof(int) * (nf + 1));
  sim_cuda_release(k->cx, r->cab_ptr, sizeof(int) * ((size_t)k->cx->m->ncable + 1));
  sim_cuda_release(k->cx, r->cab_target, sizeof(double) * ((size_t)k->cx->m->ncable + 1));
  sim_cuda_release(k->cx, r->cab_vert, sizeof(int) * r->cab_cap);
  sim_cuda_release(k->cx, r->cab_g, sizeof(double) * r->cab_gcap);
  sim_cuda_release(k->cx, r->scan, r->scan_bytes);
  sim_cuda_release(k->cx, r->map, sizeof(cuda_from) * r->map_cap);
  sim_cuda_release(k->cx, r->up, sizeof(sim_contact) * r->up_cap);
  sim_free(r->h_map), sim_free(r->h_up);
  sim_free(r->h_cab_ptr), sim_free(r->h_cab_vert), sim_free(r->h_cab_g);
  sim_free(r->h_cab_target);
  memset(r, 0, sizeof *r);
  k->nc_cap = k->nt_cap = 0;
}

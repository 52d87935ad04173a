/* SPDX-License-Identifier: MIT */
/* The local step's per-element and per-vertex math, shared by the CPU backend (OpenMP loops)
   and the CUDA backend (one thread per element or vertex): the projection p_i of Eq. 5 (ARAP,
   or ADMM-PD's z_i - u_i, Overby et al. 2017), an element's elastic energy, and one free
   vertex's row of the right-hand side b = M q~ + h^2 sum_i w_i G_i^T p_i + h^2 sum_s k_s L_s^T p_s
   - C q_pinned, summed in a fixed order so both backends add the same terms the same way. */
#ifndef SIM_LOCAL_ELEM_H
#define SIM_LOCAL_ELEM_H
#include "../model/bending.h"
#include "local_arap.h"
#include "material.h"

SIM_HD sim_material sim_elem_material(const sim_elem *t) {
  sim_material mat = {(sim_material_model)t->model, t->dim, t->mu, t->lambda};
  return mat;
}

/* The element projection in two parts (sim_local_project runs both; the CUDA backend's split
   local step runs each as a kernel of fewer registers than the whole): the first takes an ARAP
   element's whole projection, or the SVD of Y = F + U into svd (SIM_LOCAL_SVD doubles: U's 9,
   V's 9, then the singular values, the third 0 for dim 2); the second the singular-value solve
   (sim_admm_local's), Z = U diag(s) V^T and the updates of U and R, forming Y again from q and U
   (unchanged in between). */
#define SIM_LOCAL_SVD 21
SIM_HD void sim_local_project_svd(const sim_elem *t, const double *q, const double *U, double *R,
                                  double *svd) {
  if (t->model == SIM_MAT_ARAP) {
    sim_arap_project(t, q, R);
    return;
  }
  double F[9], Y[9], Us[9], sig[3], Vs[9];
  sim_elem_deformation(t, q, F);
  for (int i = 0; i < 9; i++) Y[i] = F[i] + U[i];
  const int d = t->dim == 2 ? 2 : 3;
  sim_admm_svd(d, Y, Us, sig, Vs);
  for (int i = 0; i < 9; i++) svd[i] = Us[i], svd[9 + i] = Vs[i];
  for (int k = 0; k < 3; k++) svd[18 + k] = sig[k];
}

SIM_HD void sim_local_project_solve(const sim_elem *t, const double *q, const double *svd,
                                    double *R, double *U) {
  if (t->model == SIM_MAT_ARAP) return;
  const sim_material mat = sim_elem_material(t);
  const int d = mat.dim == 2 ? 2 : 3;
  double sig[3], s[3], Us[9], Vs[9], Z[9], F[9];
  for (int k = 0; k < 3; k++) sig[k] = svd[18 + k];
  sim_admm_sv(&mat, d, t->vol, t->w, sig, s);
  for (int i = 0; i < 9; i++) Us[i] = svd[i], Vs[i] = svd[9 + i];
  sim_usv(d, Us, s, Vs, Z);
  sim_elem_deformation(t, q, F);
  for (int i = 0; i < 9; i++) {
    const double y = F[i] + U[i];
    U[i] = y - Z[i];
    R[i] = Z[i] - U[i];
  }
}

/* Element projection into R (9): ARAP p = R(F); ADMM-PD z = prox(F + u), u += F - z (U, 9,
   updated in place), p = z - u. */
SIM_HD void sim_local_project(const sim_elem *t, const double *q, double *R, double *U) {
  if (t->model == SIM_MAT_ARAP) {
    sim_arap_project(t, q, R);
    return;
  }
  double svd[SIM_LOCAL_SVD];
  sim_local_project_svd(t, q, U, R, svd);
  sim_local_project_solve(t, q, svd, R, U);
}

/* Elastic energy of an element at q: ARAP w/2 |F - R(F)|^2, otherwise V Psi(F). */
SIM_HD double sim_local_energy(const sim_elem *t, const double *q) {
  if (t->model == SIM_MAT_ARAP) return sim_arap_energy(t, q);
  double F[9];
  sim_elem_deformation(t, q, F);
  sim_material mat = sim_elem_material(t);
  return t->vol * sim_psi_F(&mat, F);
}

/* What one free vertex's right-hand-side row reads: the model's incidence arrays (host or
   device pointers, laid out as in sim_model) and h^2. */
typedef struct sim_local_view {
  const sim_elem *elems;
  const int *free_vert;                /* nfree */
  const double *mass;                  /* n */
  const int *vt_ptr, *vt_idx;          /* vertex -> element * 4 + corner */
  const int *vb_ptr, *vb_idx, *ent_st; /* vertex -> bending entries, entry -> stencil */
  const double *bend_k, *bend_coef;    /* k_s, c_sj */
  const int *C_ptr, *C_idx;            /* free unknown -> pinned coupling (CSR) */
  const double *C_val;
  double h2;
} sim_local_view;

/* Row f of b (3 values) from q~, the projections R (9 per element), the bending projections
   P (3 per stencil) and the pinned targets. */
SIM_HD void sim_local_rhs(const sim_local_view *v, int f, const double *qh, const double *R,
                          const double *P, const double *pin_pos, double b[3]) {
  int i = v->free_vert[f];
  for (int k = 0; k < 3; k++) b[k] = v->mass[i] * qh[3 * i + k];
  for (int p = v->vt_ptr[i]; p < v->vt_ptr[i + 1]; p++) {
    int e = v->vt_idx[p] >> 2, a = v->vt_idx[p] & 3;
    sim_arap_rhs_add(&v->elems[e], R + 9 * (size_t)e, a, v->h2, b);
  }
  for (int p = v->vb_ptr[i]; p < v->vb_ptr[i + 1]; p++) {
    int k = v->vb_idx[p], s = v->ent_st[k];
    double w = v->h2 * v->bend_k[s] * v->bend_coef[k];
    for (int d = 0; d < 3; d++) b[d] += w * P[3 * (size_t)s + d];
  }
  for (int p = v->C_ptr[f]; p < v->C_ptr[f + 1]; p++) {
    const double *x = pin_pos + 3 * (size_t)v->C_idx[p];
    for (int k = 0; k < 3; k++) b[k] -= v->C_val[p] * x[k];
  }
}

/* The view of a host model. */
static inline sim_local_view sim_local_view_host(const sim_model *m) {
  sim_local_view v = {m->elems,  m->free_vert, m->mass,   m->vt_ptr,  m->vt_idx,
                      m->vb_ptr, m->vb_idx,    m->ent_st, m->bend->k, m->bend->coef,
                      m->C_ptr,  m->C_idx,     m->C_val,  m->h * m->h};
  return v;
}

#endif

/* SPDX-License-Identifier: MIT */
/* The Delassus operator's per-entry arithmetic (delassus.h states the formulas), SIM_HD: the
   CPU's delassus.c and the CUDA backend's gpu/delassus_cuda.cu compute every entry of K, G and
   W with these functions, so both add the same terms in the same order.
   The contact terms restricted to free vertices (built on the host by sim_delassus_terms_build):
   tloc[4j + t] is the local index (0..m-1) of term t of contact j, or -1 (pinned or absent);
   tbeta its weight; unk[a] the unknown of local vertex a. Cables (contact.h CABLE; their terms
   are 3-vectors g, not beta times a direction) are listed apart: cable i is contact cab_j[i],
   its terms cab_ptr[i] .. cab_ptr[i + 1] - 1 with local index cab_loc (or -1) and vector cab_g
   (3 each). */
#ifndef SIM_CONTACT_DELASSUS_TERMS_H
#define SIM_CONTACT_DELASSUS_TERMS_H
#include "../base/mathx.h"
#include "../base/status.h"
#include "contact.h"

typedef struct sim_delassus_terms {
  int m;
  int *tloc, *unk;
  double *tbeta;
  int ncab;
  int *cab_j, *cab_ptr, *cab_loc;
  double *cab_g;
} sim_delassus_terms;

/* The columns of S = L^{-1} P as stored (factor.h: CSC of L^{-1}, rows ascending along each
   column's elimination-tree path), values in double or float. */
typedef struct sim_delassus_cols {
  const int *col_ptr, *col_row;
  const double *col_val; /* or NULL */
  const float *col_valf; /* when col_val is NULL */
} sim_delassus_cols;

/* Fills T from the contacts (free_of: vertex -> unknown or -1; NULL: the identity) over nfree
   unknowns. SIM_ERR_MEMORY; sim_delassus_terms_free frees it (also after a failure). */
int sim_delassus_terms_build(const sim_contact *c, int nc, const int *free_of, int nfree,
                             sim_delassus_terms *T, sim_status *st);
void sim_delassus_terms_free(sim_delassus_terms *T);

/* sum over t < n of x_t y_t (xa, xb; or fa, fb where fa is not NULL, each value widened to
   double) in eight interleaved sums (t mod 8), added pairwise at the end: eight independent
   chains where one sum waits on each addition (K 2-2.5 times faster on the 2-core VM:
   SIMCTL_BENCH_DELASSUS=1 tests/test_delassus), and eight partial sums a thread on the device. */
SIM_HD double sim_delassus_path_sum(const double *xa, const double *xb, const float *fa,
                                    const float *fb, int n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int t = 0;
  if (fa)
    for (; t + 8 <= n; t += 8)
      for (int k = 0; k < 8; k++) s[k] += (double)fa[t + k] * (double)fb[t + k];
  else
    for (; t + 8 <= n; t += 8)
      for (int k = 0; k < 8; k++) s[k] += xa[t + k] * xb[t + k];
  for (int k = 0; k < 8; k++) /* (k a constant once unrolled: s stays in a GPU's registers) */
    if (t + k < n) s[k] += fa ? (double)fa[t + k] * (double)fb[t + k] : xa[t + k] * xb[t + k];
  return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

/* [A_s^{-1}]_{ab} = (S e_a) . (S e_b): columns ka, kb of L^{-1} are the tree paths from ka and
   kb to the root (rows ascending), equal exactly on their common tail from the lowest common
   ancestor up. Its length T is the largest t with ra[la - t] == rb[lb - t] (monotone in t).
   The same product for (ka, kb) and (kb, ka). */
SIM_HD double sim_delassus_path_dot(const sim_delassus_cols *S, int ka, int kb) {
  int pa = S->col_ptr[ka], la = S->col_ptr[ka + 1] - pa;
  int pb = S->col_ptr[kb], lb = S->col_ptr[kb + 1] - pb;
  const int *ra = S->col_row + pa, *rb = S->col_row + pb;
  int lo = 0, hi = la < lb ? la : lb;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (ra[la - mid] == rb[lb - mid])
      lo = mid;
    else
      hi = mid - 1;
  }
  const size_t oa = (size_t)pa + (size_t)(la - lo), ob = (size_t)pb + (size_t)(lb - lo);
  if (S->col_val) return sim_delassus_path_sum(S->col_val + oa, S->col_val + ob, NULL, NULL, lo);
  return sim_delassus_path_sum(NULL, NULL, S->col_valf + oa, S->col_valf + ob, lo);
}

/* g_js = sum_{a in j, b in s} beta_a beta_b K_ab (K: m x m, row-major). */
SIM_HD double sim_delassus_g(const sim_delassus_terms *T, const double *K, int j, int s) {
  const size_t m = (size_t)T->m;
  double g = 0.0;
  for (int ta = 0; ta < 4; ta++) {
    int a = T->tloc[4 * j + ta];
    if (a < 0) continue;
    for (int tb = 0; tb < 4; tb++) {
      int b = T->tloc[4 * s + tb];
      if (b >= 0) g += T->tbeta[4 * j + ta] * T->tbeta[4 * s + tb] * K[(size_t)a * m + b];
    }
  }
  return g;
}

/* The 3 x 3 block of W between contacts j and s: out[3r + r'] = g_js c_{j,r} . c_{s,r'}.
   sim_dot3(a, b) and sim_dot3(b, a) round alike, so W is exactly symmetric. */
SIM_HD void sim_delassus_block(const sim_contact *cj, const sim_contact *cs, double g,
                               double out[9]) {
  const double *a[3] = {cj->n, cj->t1, cj->t2}, *b[3] = {cs->n, cs->t1, cs->t2};
  for (int r = 0; r < 3; r++)
    for (int q = 0; q < 3; q++) out[3 * r + q] = g * sim_dot3(a[r], b[q]);
}

/* Contact c's frame in W's block form (wblocks.h): its directions n, t1, t2 as rows; a cable's
   is zero (its row of W is kept whole). */
SIM_HD void sim_delassus_frame(const sim_contact *c, double f[9]) {
  const int cable = c->kind == SIM_CONTACT_CABLE;
  for (int d = 0; d < 3; d++) {
    f[d] = cable ? 0.0 : c->n[d];
    f[3 + d] = cable ? 0.0 : c->t1[d];
    f[6 + d] = cable ? 0.0 : c->t2[d];
  }
}

/* Cable i against contact s (rows of s: out[r'] for a regular contact, out[0] for a cable):
   sum over cable i's terms a and s's terms b of (g_a . coefficient of b) K_ab. */
SIM_HD void sim_delassus_cable_pair(const sim_contact *c, const sim_delassus_terms *T, int i,
                                    int s, const double *K, double out[3]) {
  const size_t m = (size_t)T->m;
  out[0] = out[1] = out[2] = 0.0;
  if (c[s].kind == SIM_CONTACT_CABLE) {
    int i2 = 0;
    while (T->cab_j[i2] != s) i2++;
    for (int ka = T->cab_ptr[i]; ka < T->cab_ptr[i + 1]; ka++)
      for (int kb = T->cab_ptr[i2]; kb < T->cab_ptr[i2 + 1]; kb++) {
        int a = T->cab_loc[ka], b = T->cab_loc[kb];
        if (a >= 0 && b >= 0)
          out[0] += sim_dot3(T->cab_g + 3 * (size_t)ka, T->cab_g + 3 * (size_t)kb) *
                    K[(size_t)a * m + b];
      }
    return;
  }
  double v[3] = {0, 0, 0}; /* sum_a g_a sum_b beta_b K_ab, then its components on c_s,r' */
  for (int ka = T->cab_ptr[i]; ka < T->cab_ptr[i + 1]; ka++) {
    int a = T->cab_loc[ka];
    if (a < 0) continue;
    double kb = 0.0;
    for (int tb = 0; tb < 4; tb++) {
      int b = T->tloc[4 * s + tb];
      if (b >= 0) kb += T->tbeta[4 * s + tb] * K[(size_t)a * m + b];
    }
    for (int d = 0; d < 3; d++) v[d] += T->cab_g[3 * (size_t)ka + d] * kb;
  }
  out[0] = sim_dot3(v, c[s].n);
  out[1] = sim_dot3(v, c[s].t1);
  out[2] = sim_dot3(v, c[s].t2);
}

/* Cable i's row of W against contact s in W's block form (wblocks.h), out[r] the entry at
   column 3 s + r: sim_delassus_cable_pair's values with the bits of W formed (an entry between
   two cables from the earlier cable, as W's builders write it; a cable's columns 3 s + 1 and
   3 s + 2 zero). */
SIM_HD void sim_delassus_cable_row(const sim_contact *c, const sim_delassus_terms *T, int i, int s,
                                   const double *K, double out[3]) {
  const int cab = c[s].kind == SIM_CONTACT_CABLE, j = T->cab_j[i];
  if (cab && s < j) {
    int i2 = 0;
    while (T->cab_j[i2] != s) i2++;
    sim_delassus_cable_pair(c, T, i2, j, K, out);
  } else {
    sim_delassus_cable_pair(c, T, i, s, K, out);
  }
  if (cab) out[1] = out[2] = 0.0;
}

/* Without K: g_jj of contact j (sum beta_a beta_b K_ab over its own terms, K_ab by path dot
   products; kc[a] = the column of L^{-1} of local vertex a), and cable i's sum (g_a . g_b) K_ab.
   diag(W) is |c_r|^2 g_jj for a contact's row r, a cable's row 0 its sum. */
SIM_HD double sim_delassus_self(const sim_delassus_terms *T, const sim_delassus_cols *S,
                                const int *kc, int j) {
  double s = 0.0;
  for (int ta = 0; ta < 4; ta++) {
    int a = T->tloc[4 * j + ta];
    if (a < 0) continue;
    for (int tb = 0; tb < 4; tb++) {
      int b = T->tloc[4 * j + tb];
      if (b >= 0) s += T->tbeta[4 * j + ta] * T->tbeta[4 * j + tb] * sim_delassus_path_dot(S, kc[a], kc[b]);
    }
  }
  return s;
}

SIM_HD double sim_delassus_cable_self(const sim_delassus_terms *T, const sim_delassus_cols *S,
                                      const int *kc, int i) {
  double s = 0.0;
  for (int ka = T->cab_ptr[i]; ka < T->cab_ptr[i + 1]; ka++)
    for (int kb = T->cab_ptr[i]; kb < T->cab_ptr[i + 1]; kb++) {
      int a = T->cab_loc[ka], b = T->cab_loc[kb];
      if (a >= 0 && b >= 0)
        s += sim_dot3(T->cab_g + 3 * (size_t)ka, T->cab_g + 3 * (size_t)kb) *
             sim_delassus_path_dot(S, kc[a], kc[b]);
    }
  return s;
}

/* The diagonal of W from g_jj (contact j's three rows; a cable's rows 1, 2 are 0 and its row 0
   is overwritten with its own sum afterwards). */
SIM_HD void sim_delassus_diag_rows(const sim_contact *cj, double g, double d[3]) {
  d[0] = g * sim_dot3(cj->n, cj->n);
  d[1] = g * sim_dot3(cj->t1, cj->t1);
  d[2] = g * sim_dot3(cj->t2, cj->t2);
}

/* first[i]: the lowest column of the elimination-tree subtree of column i of L^{-1} (S's
   columns: column i is the path from i to the root, so its second row is i's parent), which in
   a postordered tree (CHOLMOD's, factor.c) holds exactly the columns first[i] .. i. One pass up
   the tree (a parent's index is above its children's); size: n ints of scratch. 0, or -1 where
   the tree is not postordered (a subtree's columns not first .. i). The CPU's and the device's
   matrix-free W (delassus_op.c, gpu/wcols_cuda.cu) both call it. */
SIM_HD int sim_delassus_subtree_firsts(const sim_delassus_cols *S, int n, int *first, int *size) {
  for (int i = 0; i < n; i++) first[i] = i, size[i] = 1;
  for (int i = 0; i < n; i++) {
    if (first[i] != i - size[i] + 1) return -1;
    if (S->col_ptr[i + 1] - S->col_ptr[i] < 2) continue;
    const int par = S->col_row[S->col_ptr[i] + 1];
    if (par <= i) return -1;
    if (first[i] < first[par]) first[par] = first[i];
    size[par] += size[i];
  }
  return 0;
}

#endif

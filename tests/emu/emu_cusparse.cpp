// SPDX-License-Identifier: MIT
// The host emulation of CUDA (tests/emu/README.md): cuSPARSE's SpMM for a CSR matrix (32-bit
// indices, base 0, double) times a row-major dense matrix, the case gpu/global_step.cu uses, and
// SpSM for a triangular CSR matrix and column-major dense matrices, the case
// gpu/global_solvers.cu uses; anything else answers CUSPARSE_STATUS_NOT_SUPPORTED. Every array
// must be device memory. SpSM's analysis checks what cuSPARSE assumes without checking: the fill
// mode set, every entry on its side of the diagonal, each row's columns strictly ascending, a
// nonzero diagonal entry in every row; a matrix that breaks one of them stops the program.
#include <stdio.h>
#include <stdlib.h>

#include "cusparse.h"

struct sim_emu_cusparse {
  cudaStream_t stream;
};
struct sim_emu_spmat {
  int64_t rows, cols, nnz;
  const int *ptr, *idx;
  const double *val;
  int fill; // cusparseFillMode_t, -1: not set
  int unit; // CUSPARSE_DIAG_TYPE_UNIT
};
struct sim_emu_dnmat {
  int64_t rows, cols, ld;
  double *values;
  cusparseOrder_t order;
};
struct sim_emu_spsm {
  const sim_emu_spmat *analysed; // the matrix of the last analysis (NULL: none)
};

const char *cusparseGetErrorString(cusparseStatus_t s) {
  switch (s) {
  case CUSPARSE_STATUS_SUCCESS: return "success";
  case CUSPARSE_STATUS_NOT_INITIALIZED: return "not initialized";
  case CUSPARSE_STATUS_ALLOC_FAILED: return "allocation failed";
  case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
  case CUSPARSE_STATUS_NOT_SUPPORTED: return "not supported (by the emulation)";
  }
  return "unknown";
}

cusparseStatus_t cusparseCreate(cusparseHandle_t *h) {
  *h = new sim_emu_cusparse{0};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t h) {
  delete h;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s) {
  h->stream = s;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *A, int64_t rows, int64_t cols,
                                   int64_t nnz, void *ptr, void *idx, void *val,
                                   cusparseIndexType_t ptr_type, cusparseIndexType_t idx_type,
                                   cusparseIndexBase_t base, cudaDataType type) {
  if (ptr_type != CUSPARSE_INDEX_32I || idx_type != CUSPARSE_INDEX_32I ||
      base != CUSPARSE_INDEX_BASE_ZERO || type != CUDA_R_64F)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (rows < 0 || cols < 0 || nnz < 0) return CUSPARSE_STATUS_INVALID_VALUE;
  sim_emu::check_device_range("cusparseCreateCsr row offsets", ptr, sizeof(int) * (rows + 1));
  sim_emu::check_device_range("cusparseCreateCsr column indices", idx, sizeof(int) * nnz);
  sim_emu::check_device_range("cusparseCreateCsr values", val, sizeof(double) * nnz);
  *A = new sim_emu_spmat{rows, cols, nnz, (const int *)ptr, (const int *)idx,
                         (const double *)val, -1, 0};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroySpMat(cusparseSpMatDescr_t A) {
  delete A;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *B, int64_t rows, int64_t cols,
                                     int64_t ld, void *values, cudaDataType type,
                                     cusparseOrder_t order) {
  if (type != CUDA_R_64F || (order != CUSPARSE_ORDER_ROW && order != CUSPARSE_ORDER_COL))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (rows < 0 || cols < 0 || ld < (order == CUSPARSE_ORDER_ROW ? cols : rows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *B = new sim_emu_dnmat{rows, cols, ld, (double *)values, order};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroyDnMat(cusparseDnMatDescr_t B) {
  delete B;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t B, void *values) {
  B->values = (double *)values;
  return CUSPARSE_STATUS_SUCCESS;
}

// C = op(A) op(B) as gpu/ asks for it: no transposes, doubles, B and C in `order`, the sizes
// matching (and A square with a fill mode for the triangular solve, `tri`).
static cusparseStatus_t ops_check(cusparseOperation_t opA, cusparseOperation_t opB,
                                  cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                  cusparseDnMatDescr_t C, cudaDataType type, cusparseOrder_t order,
                                  int tri) {
  if (opA != CUSPARSE_OPERATION_NON_TRANSPOSE || opB != CUSPARSE_OPERATION_NON_TRANSPOSE ||
      type != CUDA_R_64F || B->order != order || C->order != order)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if ((tri && (A->fill < 0 || A->rows != A->cols)) || A->cols != B->rows || A->rows != C->rows ||
      B->cols != C->cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t spmm_check(cusparseOperation_t opA, cusparseOperation_t opB,
                                   cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                   cusparseDnMatDescr_t C, cudaDataType type) {
  return ops_check(opA, opB, A, B, C, type, CUSPARSE_ORDER_ROW, 0);
}

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t h, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                         const void *beta, cusparseDnMatDescr_t C,
                                         cudaDataType type, cusparseSpMMAlg_t alg, size_t *bytes) {
  (void)h, (void)alpha, (void)beta, (void)alg;
  *bytes = 64;
  return spmm_check(opA, opB, A, B, C, type);
}

cusparseStatus_t cusparseSpMM(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                              const void *alpha, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                              const void *beta, cusparseDnMatDescr_t C, cudaDataType type,
                              cusparseSpMMAlg_t alg, void *buffer) {
  (void)alg;
  cusparseStatus_t s = spmm_check(opA, opB, A, B, C, type);
  if (s != CUSPARSE_STATUS_SUCCESS) return s;
  sim_emu::check_device_range("cusparseSpMM work buffer", buffer, 64);
  sim_emu::check_device_range("cusparseSpMM B", B->values, sizeof(double) * B->rows * B->ld);
  sim_emu::check_device_range("cusparseSpMM C", C->values, sizeof(double) * C->rows * C->ld);
  const double a = *(const double *)alpha, b = *(const double *)beta; // read at the call
  const int64_t nc = C->cols;
  if (nc > 16) return CUSPARSE_STATUS_NOT_SUPPORTED;
  // queued like the kernels it stands for, with the descriptors as they are now; one pass over
  // each row of A for every column of C, rows on the OpenMP threads (the emulated global step
  // stays within a small factor of the CPU backend's)
  const sim_emu_spmat mA = *A;
  const sim_emu_dnmat mB = *B, mC = *C;
  sim_emu::enqueue(h->stream, [mA, mB, mC, a, b, nc] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < mA.rows; i++) {
      double sum[16] = {0};
      for (int k = mA.ptr[i]; k < mA.ptr[i + 1]; k++) {
        const double v = mA.val[k], *b_row = &mB.values[mA.idx[k] * mB.ld];
        for (int64_t j = 0; j < nc; j++) sum[j] += v * b_row[j];
      }
      for (int64_t j = 0; j < nc; j++) {
        double *c = &mC.values[i * mC.ld + j];
        *c = b == 0.0 ? a * sum[j] : a * sum[j] + b * *c; // beta 0: C is not read
      }
    }
  });
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t A, cusparseSpMatAttribute_t attr,
                                           void *data, size_t bytes) {
  if (bytes != sizeof(int)) return CUSPARSE_STATUS_INVALID_VALUE;
  int v = *(const int *)data;
  if (attr == CUSPARSE_SPMAT_FILL_MODE && (v == CUSPARSE_FILL_MODE_LOWER ||
                                           v == CUSPARSE_FILL_MODE_UPPER))
    A->fill = v;
  else if (attr == CUSPARSE_SPMAT_DIAG_TYPE && (v == CUSPARSE_DIAG_TYPE_NON_UNIT ||
                                                v == CUSPARSE_DIAG_TYPE_UNIT))
    A->unit = v == CUSPARSE_DIAG_TYPE_UNIT;
  else
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *d) {
  *d = new sim_emu_spsm{nullptr};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t d) {
  delete d;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t spsm_check(cusparseOperation_t opA, cusparseOperation_t opB,
                                   cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                   cusparseDnMatDescr_t C, cudaDataType type) {
  return ops_check(opA, opB, A, B, C, type, CUSPARSE_ORDER_COL, 1);
}

cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t h, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                         cusparseDnMatDescr_t C, cudaDataType type,
                                         cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d,
                                         size_t *bytes) {
  (void)h, (void)alpha, (void)alg, (void)d;
  *bytes = 64;
  return spsm_check(opA, opB, A, B, C, type);
}

static void spsm_fail(int64_t row, const char *what) {
  fprintf(stderr, "CUDA emulation: cusparseSpSM_analysis: row %lld: %s\n", (long long)row, what);
  abort();
}

cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t h, cusparseOperation_t opA,
                                       cusparseOperation_t opB, const void *alpha,
                                       cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                       cusparseDnMatDescr_t C, cudaDataType type,
                                       cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d, void *buffer) {
  (void)alpha, (void)alg;
  cusparseStatus_t s = spsm_check(opA, opB, A, B, C, type);
  if (s != CUSPARSE_STATUS_SUCCESS) return s;
  sim_emu::check_device_range("cusparseSpSM_analysis buffer", buffer, 64);
  d->analysed = A;
  const sim_emu_spmat mA = *A;
  sim_emu::enqueue(h->stream, [mA] { // the matrix as the stream has it, before any solve
    for (int64_t i = 0; i < mA.rows; i++) {
      int diag = 0;
      for (int k = mA.ptr[i]; k < mA.ptr[i + 1]; k++) {
        int64_t j = mA.idx[k];
        if (k > mA.ptr[i] && j <= mA.idx[k - 1]) spsm_fail(i, "columns not strictly ascending");
        if (mA.fill == CUSPARSE_FILL_MODE_LOWER ? j > i : j < i)
          spsm_fail(i, "an entry on the wrong side of the diagonal for the fill mode");
        if (j == i) diag = mA.val[k] != 0.0;
      }
      if (!diag && !mA.unit) spsm_fail(i, "no nonzero diagonal entry (non-unit diagonal)");
    }
  });
  return CUSPARSE_STATUS_SUCCESS;
}

// op(A) C = alpha B by substitution, one column after another (lower: rows ascending; upper:
// descending); the diagonal entry divides last, or is 1 with a unit diagonal.
cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t h, cusparseOperation_t opA,
                                    cusparseOperation_t opB, const void *alpha,
                                    cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                    cusparseDnMatDescr_t C, cudaDataType type,
                                    cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d) {
  (void)alg;
  cusparseStatus_t s = spsm_check(opA, opB, A, B, C, type);
  if (s != CUSPARSE_STATUS_SUCCESS) return s;
  if (d->analysed != A) return CUSPARSE_STATUS_INVALID_VALUE; // analysed for another matrix
  sim_emu::check_device_range("cusparseSpSM B", B->values, sizeof(double) * B->cols * B->ld);
  sim_emu::check_device_range("cusparseSpSM C", C->values, sizeof(double) * C->cols * C->ld);
  const double a = *(const double *)alpha;
  const sim_emu_spmat mA = *A;
  const sim_emu_dnmat mB = *B, mC = *C;
  sim_emu::enqueue(h->stream, [mA, mB, mC, a] {
    const int64_t n = mA.rows;
    for (int64_t c = 0; c < mB.cols; c++) {
      const double *b = mB.values + c * mB.ld;
      double *x = mC.values + c * mC.ld;
      for (int64_t t = 0; t < n; t++) {
        int64_t i = mA.fill == CUSPARSE_FILL_MODE_LOWER ? t : n - 1 - t;
        double sum = a * b[i], dg = 1.0;
        for (int k = mA.ptr[i]; k < mA.ptr[i + 1]; k++) {
          if (mA.idx[k] == i) dg = mA.unit ? 1.0 : mA.val[k];
          else sum -= mA.val[k] * x[mA.idx[k]];
        }
        x[i] = sum / dg;
      }
    }
  });
  return CUSPARSE_STATUS_SUCCESS;
}

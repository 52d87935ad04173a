// SPDX-License-Identifier: MIT
// The host emulation of CUDA (tests/emu/README.md): the cuSPARSE generic API that gpu/ uses
// (CSR times a row-major dense matrix, SpMM; a triangular CSR solved for a column-major dense
// matrix, SpSM), over the emulator's device memory.
#ifndef SIM_EMU_CUSPARSE_H
#define SIM_EMU_CUSPARSE_H
#include <stdint.h>

#include "cuda_runtime.h"

typedef enum {
  CUSPARSE_STATUS_SUCCESS = 0,
  CUSPARSE_STATUS_NOT_INITIALIZED = 1,
  CUSPARSE_STATUS_ALLOC_FAILED = 2,
  CUSPARSE_STATUS_INVALID_VALUE = 3,
  CUSPARSE_STATUS_NOT_SUPPORTED = 10
} cusparseStatus_t;
typedef enum {
  CUSPARSE_OPERATION_NON_TRANSPOSE = 0,
  CUSPARSE_OPERATION_TRANSPOSE = 1
} cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 } cusparseOrder_t;
typedef enum { CUSPARSE_SPMM_ALG_DEFAULT = 0 } cusparseSpMMAlg_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_64F = 1 } cudaDataType;
typedef enum { CUSPARSE_SPMAT_FILL_MODE = 0, CUSPARSE_SPMAT_DIAG_TYPE = 1 } cusparseSpMatAttribute_t;
typedef enum { CUSPARSE_FILL_MODE_LOWER = 0, CUSPARSE_FILL_MODE_UPPER = 1 } cusparseFillMode_t;
typedef enum { CUSPARSE_DIAG_TYPE_NON_UNIT = 0, CUSPARSE_DIAG_TYPE_UNIT = 1 } cusparseDiagType_t;
typedef enum { CUSPARSE_SPSM_ALG_DEFAULT = 0 } cusparseSpSMAlg_t;

typedef struct sim_emu_cusparse *cusparseHandle_t;
typedef struct sim_emu_spmat *cusparseSpMatDescr_t;
typedef struct sim_emu_dnmat *cusparseDnMatDescr_t;
typedef struct sim_emu_spsm *cusparseSpSMDescr_t;

const char *cusparseGetErrorString(cusparseStatus_t s);
cusparseStatus_t cusparseCreate(cusparseHandle_t *h);
cusparseStatus_t cusparseDestroy(cusparseHandle_t h);
cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s);
cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *A, int64_t rows, int64_t cols,
                                   int64_t nnz, void *ptr, void *idx, void *val,
                                   cusparseIndexType_t ptr_type, cusparseIndexType_t idx_type,
                                   cusparseIndexBase_t base, cudaDataType type);
cusparseStatus_t cusparseDestroySpMat(cusparseSpMatDescr_t A);
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *B, int64_t rows, int64_t cols,
                                     int64_t ld, void *values, cudaDataType type,
                                     cusparseOrder_t order);
cusparseStatus_t cusparseDestroyDnMat(cusparseDnMatDescr_t B);
cusparseStatus_t cusparseDnMatSetValues(cusparseDnMatDescr_t B, void *values);
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t h, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                         const void *beta, cusparseDnMatDescr_t C,
                                         cudaDataType type, cusparseSpMMAlg_t alg, size_t *bytes);
cusparseStatus_t cusparseSpMM(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                              const void *alpha, cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                              const void *beta, cusparseDnMatDescr_t C, cudaDataType type,
                              cusparseSpMMAlg_t alg, void *buffer);
cusparseStatus_t cusparseSpMatSetAttribute(cusparseSpMatDescr_t A, cusparseSpMatAttribute_t attr,
                                           void *data, size_t bytes);
cusparseStatus_t cusparseSpSM_createDescr(cusparseSpSMDescr_t *d);
cusparseStatus_t cusparseSpSM_destroyDescr(cusparseSpSMDescr_t d);
cusparseStatus_t cusparseSpSM_bufferSize(cusparseHandle_t h, cusparseOperation_t opA,
                                         cusparseOperation_t opB, const void *alpha,
                                         cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                         cusparseDnMatDescr_t C, cudaDataType type,
                                         cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d,
                                         size_t *bytes);
cusparseStatus_t cusparseSpSM_analysis(cusparseHandle_t h, cusparseOperation_t opA,
                                       cusparseOperation_t opB, const void *alpha,
                                       cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                       cusparseDnMatDescr_t C, cudaDataType type,
                                       cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d, void *buffer);
cusparseStatus_t cusparseSpSM_solve(cusparseHandle_t h, cusparseOperation_t opA,
                                    cusparseOperation_t opB, const void *alpha,
                                    cusparseSpMatDescr_t A, cusparseDnMatDescr_t B,
                                    cusparseDnMatDescr_t C, cudaDataType type,
                                    cusparseSpSMAlg_t alg, cusparseSpSMDescr_t d);

#endif

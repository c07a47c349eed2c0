/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL BLAS: C = alpha·op(A)·op(B) + beta·C and y = alpha·op(A)·x + beta·y on a stream,
 * row-major, as the single operator "GEMM" (a loaded GEMM single-op model when one matches,
 * otherwise one Kiln compiles on first use). alpha and beta are device pointers of C's type.
 * lda/ldb/ldc and incx/incy are reserved: -1. Programs link -lacl_cblas (docs/single-ops.md,
 * "BLAS").
 *
 * Source-compatible with CANN's acl/ops/acl_cblas.h.
 */

#ifndef INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_
#define INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_

#include "acl/acl_mdl.h"
#include "acl/acl_op.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclTransType { ACL_TRANS_N, ACL_TRANS_T, ACL_TRANS_NZ, ACL_TRANS_NZ_T } aclTransType;

typedef enum aclComputeType {
  ACL_COMPUTE_HIGH_PRECISION,
  ACL_COMPUTE_LOW_PRECISION
} aclComputeType;

ACL_FUNC_VISIBILITY aclError aclblasGemvEx(aclTransType transA, int m, int n, const void* alpha,
                                           const void* a, int lda, aclDataType dataTypeA,
                                           const void* x, int incx, aclDataType dataTypeX,
                                           const void* beta, void* y, int incy,
                                           aclDataType dataTypeY, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForGemvEx(
    aclTransType transA, int m, int n, aclDataType dataTypeA, aclDataType dataTypeX,
    aclDataType dataTypeY, aclComputeType type, aclopHandle** handle);
ACL_FUNC_VISIBILITY aclError aclblasHgemv(aclTransType transA, int m, int n,
                                          const aclFloat16* alpha, const aclFloat16* a, int lda,
                                          const aclFloat16* x, int incx, const aclFloat16* beta,
                                          aclFloat16* y, int incy, aclComputeType type,
                                          aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemv(aclTransType transA, int m, int n,
                                                         aclComputeType type, aclopHandle** handle);
ACL_FUNC_VISIBILITY aclError aclblasS8gemv(aclTransType transA, int m, int n, const int32_t* alpha,
                                           const int8_t* a, int lda, const int8_t* x, int incx,
                                           const int32_t* beta, int32_t* y, int incy,
                                           aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemv(aclTransType transA, int m, int n,
                                                          aclComputeType type,
                                                          aclopHandle** handle);
ACL_FUNC_VISIBILITY aclError aclblasGemmEx(aclTransType transA, aclTransType transB,
                                           aclTransType transC, int m, int n, int k,
                                           const void* alpha, const void* matrixA, int lda,
                                           aclDataType dataTypeA, const void* matrixB, int ldb,
                                           aclDataType dataTypeB, const void* beta, void* matrixC,
                                           int ldc, aclDataType dataTypeC, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError
aclblasCreateHandleForGemmEx(aclTransType transA, aclTransType transB, aclTransType transC, int m,
                             int n, int k, aclDataType dataTypeA, aclDataType dataTypeB,
                             aclDataType dataTypeC, aclComputeType type, aclopHandle** handle);
ACL_FUNC_VISIBILITY aclError aclblasHgemm(aclTransType transA, aclTransType transB,
                                          aclTransType transC, int m, int n, int k,
                                          const aclFloat16* alpha, const aclFloat16* matrixA,
                                          int lda, const aclFloat16* matrixB, int ldb,
                                          const aclFloat16* beta, aclFloat16* matrixC, int ldc,
                                          aclComputeType type, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForHgemm(aclTransType transA, aclTransType transB,
                                                         aclTransType transC, int m, int n, int k,
                                                         aclComputeType type, aclopHandle** handle);
ACL_FUNC_VISIBILITY aclError aclblasS8gemm(aclTransType transA, aclTransType transB,
                                           aclTransType transC, int m, int n, int k,
                                           const int32_t* alpha, const int8_t* matrixA, int lda,
                                           const int8_t* matrixB, int ldb, const int32_t* beta,
                                           int32_t* matrixC, int ldc, aclComputeType type,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclblasCreateHandleForS8gemm(aclTransType transA, aclTransType transB,
                                                          aclTransType transC, int m, int n, int k,
                                                          aclComputeType type,
                                                          aclopHandle** handle);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_OPS_ACL_CBLAS_H_ */

/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/* A GEMM through acl/ops/acl_cblas.h, linked as CANN's BLAS sample links (ascendcl acl_cblas):
 * C = 2·A·B + 1·C for 2×3 · 3×2 float matrices, checked against the values worked by hand. */
#include <stdio.h>

#include "acl/acl.h"
#include "acl/ops/acl_cblas.h"

#define CHECK(call)                                  \
  do {                                               \
    aclError e_ = (call);                            \
    if (e_ != ACL_SUCCESS) {                         \
      fprintf(stderr, "%s failed: %d\n", #call, e_); \
      return 1;                                      \
    }                                                \
  } while (0)

int main(void) {
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const float b[6] = {1, 0, 0, 1, 1, 1};
  float c[4] = {1, 1, 1, 1};
  const float alpha = 2, beta = 1;
  const float want[4] = {9, 11, 21, 23}; /* A·B = [[4, 5], [10, 11]] */
  void *da, *db, *dc, *dalpha, *dbeta;
  aclrtStream stream;
  int i;
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  CHECK(aclrtCreateStream(&stream));
  CHECK(aclrtMalloc(&da, sizeof a, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&db, sizeof b, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dc, sizeof c, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dalpha, sizeof alpha, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dbeta, sizeof beta, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(da, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(db, sizeof b, b, sizeof b, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dc, sizeof c, c, sizeof c, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dalpha, sizeof alpha, &alpha, sizeof alpha, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dbeta, sizeof beta, &beta, sizeof beta, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclblasGemmEx(ACL_TRANS_N, ACL_TRANS_N, ACL_TRANS_N, 2, 2, 3, dalpha, da, -1, ACL_FLOAT, db,
                      -1, ACL_FLOAT, dbeta, dc, -1, ACL_FLOAT, ACL_COMPUTE_HIGH_PRECISION, stream));
  CHECK(aclrtSynchronizeStream(stream));
  CHECK(aclrtMemcpy(c, sizeof c, dc, sizeof c, ACL_MEMCPY_DEVICE_TO_HOST));
  for (i = 0; i < 4; ++i) {
    if (c[i] != want[i]) {
      fprintf(stderr, "C[%d] = %g, want %g\n", i, c[i], want[i]);
      return 1;
    }
  }
  aclrtFree(da);
  aclrtFree(db);
  aclrtFree(dc);
  aclrtFree(dalpha);
  aclrtFree(dbeta);
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  printf("blas sample: OK\n");
  return 0;
}

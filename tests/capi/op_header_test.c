/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/* acl/acl_op.h, acl/acl_op_compiler.h and acl/ops/acl_cblas.h compile as C99 with -Wall -Wextra
 * -pedantic -Werror, hold CANN's enum values, and their functions link from
 * libacl_op_compiler.so + libacl_cblas.so + libascendcl.so, as a CANN program links them.
 * (exports_check.py holds the full list of declared functions against the library.) */

#include <stdio.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "acl/ops/acl_cblas.h"

#define KILN_STATIC_CHECK(cond, name) typedef char kiln_static_check_##name[(cond) ? 1 : -1]

KILN_STATIC_CHECK(ACL_ENGINE_SYS == 0 && ACL_ENGINE_AICORE == 1 && ACL_ENGINE_VECTOR == 2, engine);
KILN_STATIC_CHECK(ACL_COMPILE_SYS == 0 && ACL_COMPILE_UNREGISTERED == 1, compile_type);
KILN_STATIC_CHECK(ACL_PRECISION_MODE == 0 && ACL_AUTO_TUNE_MODE == 2 && ACL_OP_JIT_COMPILE == 10 &&
                      ACL_PRECISION_MODE_V2 == 15 && ACL_OP_DEBUG_OPTION == 16,
                  compile_opt);
KILN_STATIC_CHECK(ACL_OP_COMPILE_DEFAULT == 0 && ACL_OP_COMPILE_FUZZ == 1, compile_flag);
KILN_STATIC_CHECK(ACL_TRANS_N == 0 && ACL_TRANS_T == 1 && ACL_TRANS_NZ == 2 && ACL_TRANS_NZ_T == 3,
                  trans);
KILN_STATIC_CHECK(ACL_COMPUTE_HIGH_PRECISION == 0 && ACL_COMPUTE_LOW_PRECISION == 1, compute);

int main(void) {
  /* The op codes are `static const int` (not constant expressions in C). */
  if (ACL_ERROR_OP_TYPE_NOT_MATCH != 100020 || ACL_ERROR_OP_INPUT_NOT_MATCH != 100021 ||
      ACL_ERROR_OP_OUTPUT_NOT_MATCH != 100022 || ACL_ERROR_OP_ATTR_NOT_MATCH != 100023 ||
      ACL_ERROR_OP_NOT_FOUND != 100024 || ACL_ERROR_OP_LOAD_FAILED != 100025 ||
      ACL_COMPILE_FLAG_BIN_SELECTOR != 1) {
    return 1;
  }
  /* A few addresses, so the link proves the libraries a CANN program names are enough. */
  typedef void (*Fn)(void);
  Fn volatile fns[] = {(Fn)&aclopExecuteV2,         (Fn)&aclopSetModelDir,
                       (Fn)&aclopCompileAndExecute, (Fn)&aclSetCompileopt,
                       (Fn)&aclblasGemmEx,          (Fn)&aclblasCreateHandleForS8gemv,
                       (Fn)&aclopSetAttrListListInt};
  size_t i;
  for (i = 0; i < sizeof fns / sizeof fns[0]; ++i) {
    if (fns[i] == NULL) return 1;
  }
  printf("acl_op.h, acl_op_compiler.h, acl_cblas.h: ok\n");
  return 0;
}

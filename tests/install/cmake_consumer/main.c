/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */
/* A C program linked with target_link_libraries(... ascendcl), as CANN projects write it. */
#include <stdio.h>

#include "acl/acl.h"

int main(void) {
  uint32_t count = 0;
  if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS || count == 0) {
    return 1;
  }
  if (aclFinalize() != ACL_SUCCESS) return 1;
  printf("consumer_c: OK (%u device(s))\n", count);
  return 0;
}

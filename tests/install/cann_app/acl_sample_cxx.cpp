// A C++11 translation unit of a CANN application: the headers and library work from C++11.
#include <cstdio>

#include "acl/acl.h"

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS) return 1;
  if (aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  void* dev = nullptr;
  aclError ret = aclrtMalloc(&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST);
  switch (ret) {
    case ACL_SUCCESS:
      break;
    case ACL_ERROR_RT_MEMORY_ALLOCATION:
      return 3;
    default:
      return 4;
  }
  if (aclrtFree(dev) != ACL_SUCCESS) return 5;
  if (aclrtResetDevice(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS) return 6;
  std::printf("acl_sample_cxx: OK\n");
  return 0;
}

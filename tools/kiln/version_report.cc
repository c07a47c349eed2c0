// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/version_report.h"

#include <cstdint>

#include "acl/acl.h"

namespace kiln::tools {

int PrintVersionReport(FILE* out) {
  char version[ACL_PKG_VERSION_MAX_SIZE] = {0};
  char runtime_pkg[] = "runtime";
  if (aclsysGetVersionStr(runtime_pkg, version) != ACL_SUCCESS) {
    std::fprintf(stderr, "kiln: cannot read the runtime version: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  int32_t major = 0, minor = 0, patch = 0;
  (void)aclrtGetVersion(&major, &minor, &patch);
  std::fprintf(out, "kiln: %s\n", version);
  std::fprintf(out, "runtime: %s (libascendcl.so)\n", version);
  std::fprintf(out, "ascendcl interface: %d.%d.%d\n", major, minor, patch);

  aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    std::fprintf(stderr, "kiln: aclInit failed (%d): %s\n", init, aclGetRecentErrMsg());
    return 1;
  }
  uint32_t count = 0;
  (void)aclrtGetDeviceCount(&count);
  const char* soc = aclrtGetSocName();
  std::fprintf(out, "devices: %u\n", count);
  for (uint32_t i = 0; i < count; ++i) {
    int64_t cores = 0, l2 = 0;
    (void)aclGetDeviceCapability(i, ACL_DEVICE_INFO_AI_CORE_NUM, &cores);
    (void)aclGetDeviceCapability(i, ACL_DEVICE_INFO_L2_SIZE, &l2);
    std::fprintf(out, "device %u: %s, %lld compute threads, L2 %lld KiB\n", i,
                 i == 0 && soc ? soc : "cpu", static_cast<long long>(cores),
                 static_cast<long long>(l2 / 1024));
  }
  (void)aclFinalize();
  return 0;
}

}  // namespace kiln::tools

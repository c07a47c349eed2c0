// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The binding's own argument checks: whether a host address range is mapped (so that a garbage
// pointer from Python is an error code, not a segfault), and the messages of the calls the
// binding rejects, merged into acl.get_recent_err_msg().
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

// Messages of Reject on this thread, oldest first (as aclGetRecentErrMsg keeps its own).
thread_local std::vector<std::string> tls_rejected;

// No user-space mapping of x86-64 or AArch64 Linux reaches this far (47/48-bit address space).
constexpr uintptr_t kAddressLimit = uintptr_t{1} << 56;

}  // namespace

unsigned long g_main_thread = 0;

bool HostRangeMapped(uintptr_t p, size_t n) {
  if (n == 0) return true;
  if (p >= kAddressLimit || n > kAddressLimit - p) return false;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = p & ~(page - 1);
  const uintptr_t end = p + n;
  // At most 64 Ki pages per call, so the residency vector stays small for huge ranges.
  constexpr uintptr_t kPagesPerCall = uintptr_t{1} << 16;
  std::vector<unsigned char> residency(kPagesPerCall);
  while (start < end) {
    uintptr_t pages = (end - start + page - 1) / page;
    if (pages > kPagesPerCall) pages = kPagesPerCall;
    if (mincore(reinterpret_cast<void*>(start), pages * page, residency.data()) != 0) {
      return false;  // ENOMEM: part of the range is not mapped
    }
    start += pages * page;
  }
  return true;
}

bool DeviceMemoryIsHost() {
  const char* soc = aclrtGetSocName();
  return soc == nullptr || std::strncmp(soc, "cpu", 3) == 0;
}

aclError Reject(const char* api, const std::string& message) {
  std::string text = std::string("EH0001: ") + api + ": " + message + " [aclError " +
                     std::to_string(ACL_ERROR_INVALID_PARAM) + "]";
  aclAppLog(ACL_ERROR, api, "acl python binding", 0, "%s", text.c_str());
  tls_rejected.push_back(std::move(text));
  if (tls_rejected.size() > 64) tls_rejected.erase(tls_rejected.begin());
  return ACL_ERROR_INVALID_PARAM;
}

aclError CheckMapped(const char* api, const char* what, uintptr_t p, size_t n) {
  if (p == 0 || HostRangeMapped(p, n)) return ACL_SUCCESS;
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(p));
  return Reject(api, std::string(what) + " " + addr + " (" + std::to_string(n) +
                         " bytes) is not mapped memory of this process");
}

aclError CheckBufferMapped(const char* api, const char* what, size_t index,
                           const aclDataBuffer* buffer) {
  const uintptr_t addr = ToPtr(aclGetDataBufferAddr(buffer));
  const size_t size = aclGetDataBufferSizeV2(buffer);
  if (addr == 0 || HostRangeMapped(addr, size)) return ACL_SUCCESS;
  char text[64];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(addr));
  return Reject(api, std::string(what) + " buffer " + std::to_string(index) + " (" + text + ", " +
                         std::to_string(size) + " bytes) is not mapped memory of this process");
}

py::object RecentErrMsg() {
  const char* c_msg = aclGetRecentErrMsg();  // taken (and cleared) as the C API does
  std::string text;
  // Most recent first, as aclGetRecentErrMsg orders its own.
  for (auto it = tls_rejected.rbegin(); it != tls_rejected.rend(); ++it) {
    if (!text.empty()) text += '\n';
    text += *it;
  }
  tls_rejected.clear();
  if (c_msg != nullptr) {
    if (!text.empty()) text += '\n';
    text += c_msg;
  }
  if (text.empty()) return py::none();
  return py::str(text);
}

}  // namespace kiln::python

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// src/backends/cpu/README.md lists the ops the CPU backend has its own kernels for (between the
// `cpu-ops` markers); this keeps that list equal to what RegisterCpuKernels registers.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "backends/cpu/kernels/register.h"

namespace kiln::cpu {
namespace {

std::set<std::string> ListedOps() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/src/backends/cpu/README.md");
  EXPECT_TRUE(in.good()) << "cannot read the README";
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const size_t begin = s.find("<!-- cpu-ops:begin -->");
  const size_t end = s.find("<!-- cpu-ops:end -->");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  std::set<std::string> ops;
  if (begin == std::string::npos || end == std::string::npos) return ops;
  // Every `Name` or `domain:Name` in backquotes between the markers.
  for (size_t p = s.find('`', begin); p != std::string::npos && p < end;) {
    const size_t q = s.find('`', p + 1);
    if (q == std::string::npos || q > end) break;
    ops.insert(s.substr(p + 1, q - p - 1));
    p = s.find('`', q + 1);
  }
  return ops;
}

TEST(CpuKernelListTest, ReadmeListsExactlyTheRegisteredOps) {
  kernels::KernelRegistry registry;
  RegisterCpuKernels(registry);
  std::set<std::string> registered;
  for (const auto& [domain, op] : registry.Ops("cpu")) {
    registered.insert(domain.empty() ? op : domain + ":" + op);
  }
  const std::set<std::string> listed = ListedOps();
  for (const std::string& op : registered) {
    EXPECT_TRUE(listed.count(op)) << "registered for the cpu backend, not in the README: " << op;
  }
  for (const std::string& op : listed) {
    EXPECT_TRUE(registered.count(op)) << "in the README, not registered: " << op;
  }
}

}  // namespace
}  // namespace kiln::cpu

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sstream>
#include <string>
#include <utility>

namespace kiln {

// Concatenates anything that has an ostream operator<< (GCC 12 has no <format>).
template <typename... Args>
std::string StrCat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

// "0x7f..." for a pointer, "NULL" for nullptr: messages name the handle the caller passed.
inline std::string PtrStr(const void* p) {
  if (p == nullptr) return "NULL";
  std::ostringstream out;
  out << p;
  return out.str();
}

}  // namespace kiln

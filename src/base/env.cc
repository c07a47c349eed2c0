// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/env.h"

#include <cctype>
#include <cstdlib>

namespace kiln::env {

std::string Get(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return (value == nullptr || *value == '\0') ? fallback : std::string(value);
}

std::optional<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  size_t pos = 0;
  uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    uint64_t next = value * 10 + static_cast<uint64_t>(text[pos] - '0');
    if (next / 10 != value) return std::nullopt;  // overflow
    value = next;
    ++pos;
  }
  int shift = 0;
  if (pos < text.size()) {
    switch (std::toupper(static_cast<unsigned char>(text[pos]))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        return std::nullopt;
    }
    ++pos;
    if (pos < text.size() && (text[pos] == 'B' || text[pos] == 'b')) ++pos;
    if (pos < text.size() && (text[pos] == 'i')) return std::nullopt;
  }
  if (pos != text.size() || value == 0) return std::nullopt;
  if (shift > 0 && (value >> (64 - shift)) != 0) return std::nullopt;
  return value << shift;
}

}  // namespace kiln::env

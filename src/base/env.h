// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Environment configuration, read in one place so every variable Kiln honours is listed in
// docs/configuration.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::env {

// The variable's value, or `fallback` when unset or empty.
std::string Get(const char* name, const std::string& fallback = "");

// Parses a byte size such as "1073741824", "512M", "2G", "64k" (binary units). nullopt when
// the text is not a positive size.
std::optional<uint64_t> ParseByteSize(const std::string& text);

}  // namespace kiln::env

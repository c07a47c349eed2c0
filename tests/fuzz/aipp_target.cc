// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: an AIPP config (`kiln atc --insert_op_conf`, CANN's aipp_op text format) through
// compiler::ParseAippConfig. Any text may be refused naming the line; none may crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/aipp_config.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)kiln::compiler::ParseAippConfig(text, "fuzz.cfg");
  return 0;
}

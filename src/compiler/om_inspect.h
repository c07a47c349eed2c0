// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reading .om files for people (part of the compiler facade): `kiln atc --mode=1` and
// `--mode=6`.
#pragma once

#include <string>

#include "base/status.h"

namespace kiln::compiler {

// The verified .om at `path` as JSON (every node with its inputs, outputs, shapes and place in
// the memory plan). Errors say what the file is when it is not a Kiln .om.
Result<std::string> OmFileToJson(const std::string& path);

// A text summary of the .om at `path`: versions, target, sizes, inputs and outputs, options.
Result<std::string> DescribeOmFile(const std::string& path);

}  // namespace kiln::compiler

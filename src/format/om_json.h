// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "format/om_file.h"

namespace kiln::format {

// The whole model of a verified .om as JSON (`kiln atc --mode=1`): header fields, every graph
// with its tensors (dtype, dims, kind, place in the memory plan) and nodes (op type, ONNX
// origins, inputs, outputs, attributes), sizes, gears and options. `indent` < 0 is compact.
std::string OmToJson(const OmView& view, int indent = 2);

}  // namespace kiln::format

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's single-operator JSON (op_list.json, docs/single-ops.md) both ways: the
// entries `kiln atc --singleop` reads, and the one entry a single-op .om records.
#pragma once

#include <string>

#include "base/status.h"
#include "compiler/single_op.h"

namespace kiln::compiler {

// The .om option that holds a single-op model's description (SingleOpToJson).
inline constexpr const char* kSingleOpRecordKey = "single_op";

// One entry of op_list.json's form, and back (kInvalidParam naming the key on error; a desc
// with a string that is not UTF-8 or a float that is not finite has no JSON form).
Result<std::string> SingleOpToJson(const SingleOpDesc& desc);
Result<SingleOpDesc> SingleOpFromJson(const std::string& text);
// "true", "3", "[1,2]", "float16" (a data_type) ... for messages.
std::string OpAttrText(const OpAttr& attr);

}  // namespace kiln::compiler

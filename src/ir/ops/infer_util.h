// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the op families' inference functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/op_schema.h"

namespace kiln::ir {

// Normalises a possibly negative `axis` for a tensor of `rank`; nullopt when out of range.
std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// "[1,2,3]": a list of ints for messages.
std::string IntsStr(const std::vector<int64_t>& v);

// Input i's dims, which must be `rank` of them (kInvalidParam naming the input as `name`
// otherwise); all unknown when its rank is unknown.
Result<std::vector<Dim>> DimsOfRank(const InferenceContext& ctx, size_t i, const char* name,
                                    size_t rank);

// Output 0 = input 0's type.
Status InferSameAsInput(InferenceContext& ctx);

// Checks inputs [first, last) share input `first`'s dtype; error names the mismatch.
Status CheckSameDtype(InferenceContext& ctx, size_t first, size_t last);

// Broadcasts the shapes of every present input in [first, last).
Result<Shape> BroadcastInputs(InferenceContext& ctx, size_t first, size_t last);

// A schema with the given counts, since-version, family and inference function.
OpSchema MakeSchema(const char* op_type, int since, int min_in, int max_in, int min_out,
                    int max_out, const char* family, InferFn infer, const char* domain = "");

}  // namespace kiln::ir

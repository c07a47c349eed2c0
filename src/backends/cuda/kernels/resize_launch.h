// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA Resize launchers (resize.cu), callable from plain C++. The host resolves the node and
// plans each axis (kernels/resize_plan.h); the device gathers (nearest) or blends (linear,
// cubic) from per-axis tables in device memory.
#pragma once

#include <cstdint>

namespace kiln::cuda {

inline constexpr int kMaxResizeRank = 8;

// Output position y of axis d reads taps index[index_offset[d] + y * count[d] + t] with weights
// weight[weight_offset[d] + ...] (blends only); a first tap index of -1 marks a position outside
// the input (tf_crop_and_resize), which takes the extrapolation value.
struct ResizeTables {
  int rank = 0;
  int64_t in_dims[kMaxResizeRank] = {}, out_dims[kMaxResizeRank] = {};
  int count[kMaxResizeRank] = {};
  int64_t index_offset[kMaxResizeRank] = {}, weight_offset[kMaxResizeRank] = {};
  const int64_t* index = nullptr;
  const float* weight = nullptr;
};

// Nearest (count 1 on every axis): elements of `elem_bytes` (1, 2, 4 or 8) copied; positions
// outside the input take `fill` (the extrapolation value's bytes).
int LaunchResizeNearest(const void* x, void* y, int64_t n, int elem_bytes, uint64_t fill,
                        const ResizeTables& t, void* stream);
// Linear and cubic, float32: the weighted sum over every combination of the axes' taps.
int LaunchResizeBlend(const float* x, float* y, int64_t n, float extrapolation,
                      const ResizeTables& t, void* stream);

}  // namespace kiln::cuda

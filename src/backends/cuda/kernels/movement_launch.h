// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA data-movement launchers (movement.cu), callable from plain C++: a strided copy of
// any element size (Transpose, Slice, Concat, Split, Expand are each one or a few of them), a
// fill (ConstantOfShape) and Gather along an axis with device-resident indices.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/elementwise_launch.h"

namespace kiln::cuda {

// Copies the `shape.dims` box element by element: element i (row-major over the dims) reads
// src[a offset] and writes dst[b offset] (BroadcastOffsets: a_strides for src, b_strides for
// dst, in elements). `elem_bytes` is 1, 2, 4 or 8.
int LaunchStridedCopy(const void* src, void* dst, int64_t n, int elem_bytes,
                      const BroadcastShape& shape, void* stream);

// Fills dst[0, n) with the `elem_bytes`-byte element whose bytes are `pattern`'s low ones.
int LaunchFill(void* dst, int64_t n, int elem_bytes, uint64_t pattern, void* stream);

// Range: y[i] = *start + i * *delta for i < n, the scalars read on the device; `type` 0 float32,
// 1 int64, 2 int32 (the reference kernel's arithmetic in the element type).
int LaunchRange(int type, const void* start, const void* delta, void* y, int64_t n, void* stream);

// Gather: out[o][j][r] = data[o][index(j)][r] for o < outer, j < count, r < inner, where
// index(j) is indices[j] (int64 or int32), plus `axis_dim` when negative; an index outside
// [-axis_dim, axis_dim) writes zeros (the host checks constant indices at load).
int LaunchGather(const void* data, const void* indices, bool indices_int64, void* out,
                 int64_t outer, int64_t axis_dim, int64_t count, int64_t inner, int elem_bytes,
                 void* stream);

}  // namespace kiln::cuda

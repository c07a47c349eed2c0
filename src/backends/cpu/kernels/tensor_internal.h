// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The data-movement building blocks shared by the CPU backend's tensor.cc and resize_pad.cc:
// element fills and gathers by element size (1, 2, 4 or 8 bytes, so every element type takes
// one path), the strided-view copy behind Slice, Expand, Tile and the Transposes that keep the
// innermost axis, and the permutation engine behind Transpose, DepthToSpace and SpaceToDepth.
// The copies split their work with KernelContext::ParallelFor in chunks of about kGrainBytes;
// they are thread-safe (no state) and assume the views they are given are in bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace kiln::cpu::tensor_internal {

using kernels::DataType;
using kernels::Dims;
using kernels::KernelContext;
using kernels::NodeDef;

// Bytes of copying per ParallelFor chunk.
inline constexpr int64_t kGrainBytes = 64 * 1024;

// Prepare check of every data-movement kernel: kFeatureUnsupported (naming the node) unless
// every given input and every output the graph uses has 1, 2, 4 or 8-byte elements (strings
// and unknown types are left to the reference kernel).
Status RequireMovable(const NodeDef& def);

// The node's reference kernel, prepared now: its Prepare checks (attributes, types) are the
// ones the cpu kernel must agree with, and some cpu kernels hand unusual runs to it.
Result<std::unique_ptr<kernels::Kernel>> PrepareReference(const kernels::KernelRegistry& registry,
                                                          const NodeDef& def);

// dst[0, n) = the one element at `value` (es bytes).
void Fill(void* dst, int64_t n, const void* value, size_t es);
// dst[i] = src[i * stride] for i in [0, n) (stride in elements, may be 0 or negative).
void GatherStrided(void* dst, const void* src, int64_t n, int64_t stride, size_t es);
// dst[i] = src[index[i]] for i in [0, n).
void GatherIndexed(void* dst, const void* src, const int64_t* index, int64_t n, size_t es);

// memcpy of `bytes`, split across ctx's threads.
void ParallelCopy(KernelContext& ctx, void* dst, const void* src, size_t bytes);

// Writes the contiguous row-major tensor `out` of `dims` with
// out[i_0, ..., i_{r-1}] = in[base + sum_k i_k * strides[k]] (element units; a stride may be 0
// for a broadcast axis or negative for a reversed one). Size-1 axes are dropped and axes that
// stay adjacent in `in` are merged first, so the inner loop is a memcpy of the longest
// contiguous run, a fill (stride 0) or a strided gather.
void CopyStrided(KernelContext& ctx, const void* in, void* out, size_t es, const Dims& dims,
                 const Dims& strides, int64_t base);

// Writes `out` = `in` (row-major `in_dims`) with its axes permuted: out dims[k] =
// in_dims[perm[k]]. Size-1 axes are dropped and axes that stay adjacent merged; what remains is
// a memcpy (identity), a CopyStrided of contiguous runs (the innermost axis stays innermost) or
// a cache-blocked 2-D transpose of the two innermost axes repeated over the other axes.
void Permute(KernelContext& ctx, const void* in, const Dims& in_dims,
             const std::vector<int64_t>& perm, void* out, size_t es);

// Permute in two steps: the plan (what Permute works out from the dims, allocating) made once,
// then any number of runs that only move data.
struct PermutePlan {
  enum class Kind { kEmpty, kCopy, kStrided, kTranspose2D } kind = Kind::kEmpty;
  size_t es = 0;
  size_t bytes = 0;        // kCopy
  Dims od, os;             // kStrided: the output dims and their input strides
  int64_t na = 0, nb = 0;  // kTranspose2D: see Transpose2D
  int64_t is = 0, out_stride_a = 0;
  Dims bd, bin, bout;
};
PermutePlan PlanPermute(const Dims& in_dims, const std::vector<int64_t>& perm, size_t es);
void RunPermute(KernelContext& ctx, const PermutePlan& plan, const void* in, void* out);

}  // namespace kiln::cpu::tensor_internal

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the CPU backend's two attention kernels share (attention.cc: float32 products per head;
// attention_bf16.cc: bf16 products batched over heads): where a run's Q, K, V and Y heads lie,
// the mask as a broadcast view, and the masked softmax of one row of scores.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "backends/cpu/kernels/elementwise_internal.h"

namespace kiln::cpu::attention {

using internal::Dims;
using internal::Kernel;
using internal::KernelContext;
using internal::NodeDef;
using internal::TensorView;

// The sizes of one attention: batch, query and key/value heads, query and key lengths, the
// head size of Q and K (d) and of V (dv); `three_d`: Q, K, V and Y are [B, S, heads * size]
// (else [B, heads, S, size]; PackedQkvAttention's are 3-D).
struct Sizes {
  int64_t batch = 0, hq = 0, hkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  bool three_d = true;
  int64_t group() const { return hq / hkv; }
};

// Attention's sizes from Q, K and V dims (3-D with the head counts as attributes, or 4-D);
// nullopt for what the kernels do not take (the reference kernel reports what is wrong).
std::optional<Sizes> SplitSizes(const NodeDef& def, const Dims& q, const Dims& k, const Dims& v);
// PackedQkvAttention's from QKV [B, S, (Hq + 2 Hkv) * D].
std::optional<Sizes> PackedSizes(const NodeDef& def, const Dims& qkv);
// Y's dims for `s`.
Dims OutputDims(const Sizes& s);

// One tensor's heads: element (b, h, s, d) lies at data + b * batch + h * head + s * row + d.
struct HeadView {
  const float* data = nullptr;
  int64_t batch = 0, head = 0, row = 0;
  const float* at(int64_t b, int64_t h, int64_t s) const {
    return data + b * batch + h * head + s * row;
  }
};

// A run's sizes, its inputs' and output's heads (the inputs read in place: a 3-D tensor's heads
// through its row stride, PackedQkvAttention's from their slices of each row) and the mask.
struct Geometry {
  Sizes n;
  HeadView q, k, v, y;
  const TensorView* mask = nullptr;
};

// The geometry of this run of `def` (Attention, or PackedQkvAttention when `packed`) writing
// `y`; false for inputs the kernels do not take.
bool ReadGeometry(const NodeDef& def, bool packed, KernelContext& ctx, const TensorView& y,
                  Geometry& g);

// The additive mask broadcast to [B, Hq, Sq, T]: element strides (0 on a broadcast dim), the
// mask's own last dim (opset 24 pads a shorter one with -inf) and whether it is boolean.
struct MaskView {
  const void* data = nullptr;
  bool boolean = false;
  int64_t stride[4] = {0, 0, 0, 0};
  int64_t last = 0;
};

// Whether `mask` (null: none) broadcasts to the scores [B, Hq, Sq, Skv] of `n`.
bool MaskFits(const Sizes& n, const TensorView* mask);
// `g`'s mask as a view (no mask: data null); false when it does not broadcast to the scores.
bool ReadMask(const Geometry& g, MaskView& mask);

// Query row i of head h, batch b: what to add to its scores (null: nothing; else skv floats,
// maybe written into `scratch`, which holds skv floats) and how many leading columns are valid
// (the rest are -inf: `causal`, or a mask shorter than the keys).
const float* RowMask(const MaskView& mask, bool causal, int64_t skv, int64_t b, int64_t h,
                     int64_t i, float* scratch, int64_t& valid);

// row + mask in place over n floats (`mask` n floats or null), columns from `valid` on -inf.
void MaskRow(float* row, const float* mask, int64_t n, int64_t valid);
// softmax(row + mask) in place over n floats; `mask` (n floats or null) is added first, and
// columns from `valid` on are -inf. A row left without a finite value gives NaN, as the
// reference's softmax does; a term below e^-87 (under 2e-38 of the largest) is 0.
void MaskedSoftmaxRow(float* row, const float* mask, int64_t n, int64_t valid);

// attention_bf16.cc: the bf16 kernel of `def` (Attention, or PackedQkvAttention when `packed`),
// which hands what it does not take to the kernel `make_fallback` makes; that kernel itself when
// oneDNN has no bf16 matmul worth taking for the planned dims (its brgemm kernels).
Result<std::unique_ptr<Kernel>> MakeBf16Attention(
    const NodeDef& def, bool packed,
    const std::function<Result<std::unique_ptr<Kernel>>()>& make_fallback);

}  // namespace kiln::cpu::attention

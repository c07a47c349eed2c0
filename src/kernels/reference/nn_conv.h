// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The reference convolutions, shared by Conv and ConvTranspose (nn_conv.cc) and Kiln's FusedConv
// and FusedConvTranspose (fused.cc).
#pragma once

#include <cstdint>

#include "ir/data_type.h"
#include "kernels/attrs.h"
#include "kernels/kernel.h"
#include "kernels/tensor_view.h"

namespace kiln::kernels {

// The channels_last layout flags of a FusedConv (kiln_x_nhwc, kiln_y_nhwc, kiln_z_nhwc; see
// src/compiler/passes/README.md): whether X (input 0), Y (output 0) and the residual Z (input
// 3) are stored NHWC. Their dims stay N, C, H, W; only the order of the elements changes. In a
// bf16 model such a float32 tensor may be stored as bfloat16 too (kiln_x_bf16, kiln_y_bf16,
// kiln_z_bf16): its dtype stays float32, its elements are bf16 (half the bytes). In a float32
// model it may be stored in blocks of 8 or 16 channels instead (kiln_x_cblock,
// kiln_y_cblock, kiln_z_cblock: N, C/b, H, W, b; oneDNN's nChw8c / nChw16c), float32 only; 0 is
// plain NHWC (one block of all C channels).
struct ConvLayout {
  bool x = false, y = false, z = false;
  bool x_bf16 = false, y_bf16 = false, z_bf16 = false;
  int64_t x_block = 0, y_block = 0, z_block = 0;
  bool any() const { return x || y || z; }
};

// Reads the layout flags of `def` (all false for a node without them, e.g. a Conv); FusedConv's
// definition has checked them (a set flag's tensor is present and rank 4).
ConvLayout ReadConvLayout(const NodeDef& def);

// Copies the rank-4 tensor `src` of logical dims `nchw` (N, C, H, W; elements of `elem_size`
// bytes: 1, 2, 4 or 8) into `dst` (not overlapping `src`), from NCHW into NHWC order when
// `to_nhwc`, else from NHWC into NCHW order; with a `block` b (C a multiple of it), the
// channels-last order is N, C/b, H, W, b instead (0: NHWC).
void TransposeChannels(const void* src, void* dst, const Dims& nchw, size_t elem_size, bool to_nhwc,
                       KernelContext& ctx, int64_t block = 0);

// The same for a float32 tensor whose NHWC storage is bfloat16: from float32 NCHW into bf16
// NHWC (rounded to nearest even) when `to_nhwc`, else from bf16 NHWC into float32 NCHW.
void TransposeChannelsBf16(const void* src, void* dst, const Dims& nchw, bool to_nhwc,
                           KernelContext& ctx);

// A fused convolution's run (FusedConv, FusedQLinearConv) seen with its channels-last tensors
// (ConvLayout) in plain NCHW: X (input 0) and Z (input `z_index`) are transposed into
// temporaries up front (widened from bf16 storage to float32 where stored so), Y is bound to a
// temporary that Finish() writes to the real output in NHWC order (rounded to bf16 where stored
// so). Everything else goes to the executor's context.
class NchwContext final : public ForwardingContext {
 public:
  NchwContext(KernelContext& base, const ConvLayout& layout, size_t z_index)
      : ForwardingContext(base), layout_(layout) {
    for (size_t slot : {size_t{0}, size_t{1}}) {
      const size_t i = slot == 0 ? 0 : z_index;
      const TensorView* in = i < base.num_inputs() ? base.input(i) : nullptr;
      if (in == nullptr || !(slot == 0 ? layout.x : layout.z)) continue;
      temps_[slot] = HostTensor(in->dtype, in->dims);
      if (slot == 0 ? layout.x_bf16 : layout.z_bf16) {
        TransposeChannelsBf16(in->data, temps_[slot].bytes.data(), in->dims, /*to_nhwc=*/false,
                              base);
      } else {
        TransposeChannels(in->data, temps_[slot].bytes.data(), in->dims, ir::SizeOf(in->dtype),
                          /*to_nhwc=*/false, base, slot == 0 ? layout.x_block : layout.z_block);
      }
      views_[slot] = temps_[slot].view();
      index_[slot] = i;
    }
  }

  const TensorView* input(size_t i) const override {
    for (size_t slot : {size_t{0}, size_t{1}}) {
      if (index_[slot] == i) return &views_[slot];
    }
    return base_.input(i);
  }
  TensorView* output(size_t i) override {
    if (i != 0 || !layout_.y) return base_.output(i);
    if (out_ == nullptr) {
      out_ = base_.output(0);
      if (out_ == nullptr) return nullptr;
      MakeTemp();
    }
    return &y_view_;
  }
  Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) override {
    if (i != 0 || !layout_.y) return base_.DynamicOutput(i, dims);
    KILN_ASSIGN_OR_RETURN(out_, base_.DynamicOutput(0, dims));
    MakeTemp();
    return &y_view_;
  }
  // Y computed in NCHW order, written to the real output by Finish.
  void MakeTemp() {
    y_temp_ = HostTensor(out_->dtype, out_->dims);
    y_view_ = y_temp_.view();
  }

  // Writes the NCHW result to the real output in NHWC order (when Y is channels-last).
  void Finish() {
    if (out_ == nullptr) return;
    if (layout_.y_bf16) {
      TransposeChannelsBf16(y_view_.data, out_->data, out_->dims, /*to_nhwc=*/true, base_);
    } else {
      TransposeChannels(y_view_.data, out_->data, out_->dims, ir::SizeOf(out_->dtype),
                        /*to_nhwc=*/true, base_, layout_.y_block);
    }
  }

 private:
  ConvLayout layout_;
  HostTensor temps_[2];  // X, Z in NCHW
  TensorView views_[2];
  size_t index_[2] = {SIZE_MAX, SIZE_MAX};  // the input each replaces; SIZE_MAX: none
  TensorView* out_ = nullptr;
  HostTensor y_temp_;
  TensorView y_view_;
};

// Runs `run` (Status(KernelContext&)) on `ctx` as it is, or, when `layout` keeps a tensor
// channels-last, through an NchwContext (Z at input `z_index`; SIZE_MAX: none) that writes Y back
// after a successful run. The op's definition has made such tensors rank 4 (N, C, H, W).
template <typename Run>
Status RunOnNchw(KernelContext& ctx, const ConvLayout& layout, size_t z_index, Run&& run) {
  if (!layout.any()) return run(ctx);
  NchwContext nchw(ctx, layout, z_index);
  KILN_RETURN_IF_ERROR(run(nchw), "");
  nchw.Finish();
  return Status::Ok();
}

// Y = Conv(X, W, B) over inputs 0-2 of `ctx` into its bound output 0, which it returns.
// Thread-safe.
Result<TensorView*> RunConv(const NodeDef& def, const ConvAttrs& attrs, KernelContext& ctx);
// Y = ConvTranspose(X, W, B) likewise (ConvTranspose and Kiln's FusedConvTranspose).
Result<TensorView*> RunConvTranspose(const NodeDef& def, const ConvAttrs& attrs,
                                     KernelContext& ctx);

}  // namespace kiln::kernels

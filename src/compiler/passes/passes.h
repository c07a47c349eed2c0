// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Factories of every built-in pass, and the default pipeline order.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/pass.h"

namespace kiln::compiler {

// --input_shape: "name" -> dims (-1 = dynamic). Unknown names are an error naming them.
std::unique_ptr<Pass> CreateShapeBindingPass(std::map<std::string, std::vector<int64_t>> shapes);
std::unique_ptr<Pass> CreateConstantFoldingPass();
std::unique_ptr<Pass> CreateQdqFusionPass();
std::unique_ptr<Pass> CreateDeadCodeEliminationPass();
std::unique_ptr<Pass> CreateSumToAddPass();
std::unique_ptr<Pass> CreateConvBnFoldPass();
std::unique_ptr<Pass> CreateBiasActivationFusionPass();
std::unique_ptr<Pass> CreateResidualAddFusionPass();
std::unique_ptr<Pass> CreatePostAffineFusionPass();
std::unique_ptr<Pass> CreateLayerNormFusionPass();
std::unique_ptr<Pass> CreateGeluFusionPass();
// attention_fusion.cc: MatMul / [Add mask] / Softmax / MatMul (and the heads' split and merge)
// -> Attention.
std::unique_ptr<Pass> CreateAttentionFusionPass();
// An Attention whose Q, K and V are projections of one input -> one product into a packed value
// and a com.kiln PackedQkvAttention (qkv_packing.cc; CPU target, after attention_fusion).
std::unique_ptr<Pass> CreateQkvPackingPass();
std::unique_ptr<Pass> CreateActivationFusionPass();
std::unique_ptr<Pass> CreateTransposeCancellationPass();
// A BatchNormalization not after a convolution (and the affine steps after it) -> one
// ArithmeticChain (batch_norm_affine.cc; CPU target, before channels_last).
std::unique_ptr<Pass> CreateBatchNormAffinePass();
// Reshape -> Transpose of axes 1 and 2 -> Reshape back (a channel shuffle) -> one com.kiln
// ChannelShuffle (channel_shuffle_fusion.cc; CPU target, before channels_last).
std::unique_ptr<Pass> CreateChannelShuffleFusionPass();
// Keeps float32 activations NHWC between consecutive 2-D convolutions (channels_last.cc).
std::unique_ptr<Pass> CreateChannelsLastPass();
// In a bf16 model, stores the float32 values passed between constant-weights FusedMatMuls as
// bf16 (matmul_bf16_storage.cc; CPU target).
std::unique_ptr<Pass> CreateMatMulBf16StoragePass();
// Fuses chains of float32 Add / Sub / Mul / Div into one ArithmeticChain (arithmetic_chain.cc).
std::unique_ptr<Pass> CreateArithmeticChainPass();

}  // namespace kiln::compiler

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The activations Kiln's fused ops apply (their `activation` attribute, src/ir/ops/fused.cc;
// kernels/attrs.h reads it with its parameters). A header of its own, without the kernel
// interface, so that device code (the CUDA epilogue) names the same kinds.
#pragma once

namespace kiln::kernels {

enum class ActivationKind {
  kNone,
  kRelu,
  kLeakyRelu,
  kClip,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kGelu,
  kSwish
};

}  // namespace kiln::kernels

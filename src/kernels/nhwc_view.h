// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kernels for the ops channels_last keeps NHWC besides convolutions and pools: com.kiln Concat,
// Split, Add, Sub, Mul, Div, Resize and Relu with kiln_nhwc (ir/ops/fused.cc, LayoutTransparent).
// Each is the ONNX op's own kernel on the same backend, prepared for and run on the stored order: a
// rank-4 tensor's dims N, C, H, W are given to it as N, H, W, C (the order of its bytes), Concat's
// and Split's axis 1 as 3, and a Resize's roi, scales and sizes (one value per axis, constant or
// not) reordered the same way. With kiln_cblock (channel blocks of b) the dims are given as N,
// C/b, H, W, b (a neutral operand of one channel N, 1, 1, 1, 1), the axis stays 1, a Split's
// sizes are given in blocks and a Resize's per-axis values gain the block's axis (scale 1, roi
// [0, 1], size b). Without the flag (or with 0) it is the ONNX op
// unchanged.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace kiln::kernels {

// The kernel for `def` (a com.kiln Concat, Split or Add) on `backend`.
Result<std::unique_ptr<Kernel>> MakeNhwcViewKernel(const KernelRegistry& registry,
                                                   const std::string& backend, const NodeDef& def);

// Registers those eight ops for `backend` (the reference backend and each device backend, so
// that the ONNX op's kernel comes from the same backend).
void RegisterNhwcViewKernels(KernelRegistry& registry, const std::string& backend);

}  // namespace kiln::kernels

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The launch shape every grid-stride kernel of the CUDA device uses (included by the .cu files
// only): 256 threads a block, as many blocks as cover n elements up to 65535 (the loops stride
// over the rest), at least one.
#pragma once

#include <cstdint>

namespace kiln::cuda {

inline constexpr int kThreads = 256;
inline constexpr int64_t kMaxBlocks = 65535;

inline int Blocks(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

}  // namespace kiln::cuda

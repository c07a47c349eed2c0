// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// An element of kBytes (1, 2, 4 or 8) as the unsigned integer of that size: the data-movement
// kernels (movement, pad, Where) move any element type bit for bit through it. Included by the
// .cu files only.
#pragma once

#include <cstdint>
#include <type_traits>

namespace kiln::cuda {

template <int kBytes>
using Word = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<kBytes == 2, uint16_t, std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

}  // namespace kiln::cuda

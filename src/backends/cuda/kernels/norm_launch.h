// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA normalisation launchers (norm.cu), callable from plain C++, float32:
// BatchNormalization at inference, LayerNormalization over each row, and LRN across channels.
#pragma once

#include <cstdint>

namespace kiln::cuda {

// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c] over x of [n, channels,
// inner].
int LaunchBatchNorm(const float* x, const float* scale, const float* bias, const float* mean,
                    const float* var, float* y, int64_t n, int64_t channels, int64_t inner,
                    float epsilon, void* stream);

// Per row of `cols` values: y = (x - mean) / sqrt(variance + epsilon) * scale[i] (+ bias[i]),
// the variance the population one; scale and bias hold one value per column (bias may be null).
int LaunchLayerNorm(const float* x, const float* scale, const float* bias, float* y, int64_t rows,
                    int64_t cols, float epsilon, void* stream);

// y = x / (bias + alpha / size * sum of x² over channels [c - (size-1)/2, c + size/2])^beta
// over x of [n, channels, inner].
int LaunchLrn(const float* x, float* y, int64_t n, int64_t channels, int64_t inner, int64_t size,
              float alpha, float beta, float bias, void* stream);

}  // namespace kiln::cuda

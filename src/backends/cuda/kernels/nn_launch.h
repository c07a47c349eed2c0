// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA launchers of nn.cu, callable from plain C++: the softmax family along one axis and
// 2-D pooling, float32. Each returns the launch's cudaError_t as an int (0: success).
#pragma once

#include <cstdint>

namespace kiln::cuda {

// `outer` x `inner` rows of `n` values `inner` apart (the reference kernel's Rows); `log`:
// LogSoftmax.
int LaunchSoftmax(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log,
                  void* stream);

// A 2-D pooling window over `planes` planes of in_h x in_w, giving out_h x out_w.
struct Pool2d {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1, pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool max = true;                 // else average
  bool count_include_pad = false;  // average: divide by the window inside input plus pads
};
int LaunchPool2d(const Pool2d& p, const float* x, float* y, void* stream);

// Per plane of `size` values: the mean or the maximum (NaN-skipping, as MaxPool's).
int LaunchGlobalPool(const float* x, float* y, int64_t planes, int64_t size, bool max,
                     void* stream);

}  // namespace kiln::cuda

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>

#include "base/status.h"
#include "kernels/kernel.h"

namespace kiln::hal {
class Device;
}  // namespace kiln::hal

namespace kiln::cuda {

// A constant float32 input of a matrix kernel (a convolution's W, a matmul's B) in an fp16 or
// bf16 model (register.h: ToHalf), converted on the host from the model's host copy and
// uploaded into the device's memory once, at Prepare: a run then converts only the inputs it
// computes. The conversion rounds to nearest even, as the device's (cast.cu) does. Empty
// (data() null) for a computed input, a float32 model, or a kernel prepared without a device;
// the kernel then converts that input each run.
class HalfConstant {
 public:
  HalfConstant() = default;
  // Input `input` of `def`: fails with kRtMemoryAllocation when the device has no room.
  static Result<HalfConstant> Upload(const kernels::NodeDef& def, size_t input);
  HalfConstant(HalfConstant&& other) noexcept { *this = std::move(other); }
  HalfConstant& operator=(HalfConstant&& other) noexcept;
  HalfConstant(const HalfConstant&) = delete;
  HalfConstant& operator=(const HalfConstant&) = delete;
  ~HalfConstant();

  // The half values on the device (2 bytes each, 256-byte aligned), or null.
  const void* data() const { return data_; }

 private:
  hal::Device* device_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kiln::cuda

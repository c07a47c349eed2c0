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

// Bytes a kernel keeps in its device's memory for its own lifetime, uploaded once at Prepare
// (from the host values the kernel is prepared from): a Constant node's value, weights in
// another type. Empty (data() null) when nothing was uploaded.
class DeviceBytes {
 public:
  DeviceBytes() = default;
  // `bytes` (> 0) from `host` onto def.device; kRtMemoryAllocation naming `what` and the node
  // when the device has no room.
  static Result<DeviceBytes> Upload(const kernels::NodeDef& def, const void* host, size_t bytes,
                                    const char* what);
  DeviceBytes(DeviceBytes&& other) noexcept { *this = std::move(other); }
  DeviceBytes& operator=(DeviceBytes&& other) noexcept;
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  ~DeviceBytes();

  const void* data() const { return data_; }  // 256-byte aligned, or null
  size_t size() const { return bytes_; }

 private:
  hal::Device* device_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// A constant float32 input of a matrix kernel (a convolution's W, a matmul's B) in an fp16 or
// bf16 model (register.h: ToHalf), converted on the host from the model's host copy and
// uploaded once: a run then converts only the inputs it computes. The conversion rounds to
// nearest even, as the device's (cast.cu) does. Empty for a computed input, a float32 model,
// or a kernel prepared without a device: the kernel then converts that input each run.
Result<DeviceBytes> UploadHalfConstant(const kernels::NodeDef& def, size_t input);

}  // namespace kiln::cuda

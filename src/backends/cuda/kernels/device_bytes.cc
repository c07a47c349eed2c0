// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/device_bytes.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "base/fp16.h"
#include "hal/device.h"
#include "kernels/util.h"

namespace kiln::cuda {

Result<DeviceBytes> DeviceBytes::Upload(const kernels::NodeDef& def, const void* host, size_t bytes,
                                        const char* what) {
  DeviceBytes d;
  if (def.device == nullptr || bytes == 0) return d;
  auto p = def.device->allocator().Allocate(bytes, 256, false);
  if (!p.ok()) {
    return def.Fail(code::kRtMemoryAllocation, "no ", bytes, " bytes on the device for ", what,
                    ": ", p.status().message());
  }
  def.device->allocator().Copy(*p, host, bytes);
  d.device_ = def.device;
  d.data_ = *p;
  d.bytes_ = bytes;
  return d;
}

DeviceBytes& DeviceBytes::operator=(DeviceBytes&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) device_->allocator().Free(data_, bytes_);
    device_ = std::exchange(other.device_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBytes::~DeviceBytes() {
  if (data_ != nullptr) device_->allocator().Free(data_, bytes_);
}

Result<DeviceBytes> UploadHalfConstant(const kernels::NodeDef& def, size_t input) {
  const kernels::TensorView* c = def.constant(input);
  if (def.matrix_precision == kernels::MatrixPrecision::kFp32 || c == nullptr ||
      c->dtype != kernels::DataType::kFloat32) {
    return DeviceBytes();
  }
  const bool bf16 = def.matrix_precision == kernels::MatrixPrecision::kBf16;
  const auto* src = static_cast<const float*>(c->data);
  std::vector<uint16_t> half(static_cast<size_t>(c->num_elements()));
  for (size_t i = 0; i < half.size(); ++i) {
    half[i] = bf16 ? kernels::FloatToBFloat16(src[i]) : FloatToHalf(src[i]);
  }
  return DeviceBytes::Upload(def, half.data(), half.size() * sizeof(uint16_t),
                             bf16 ? "a bfloat16 copy of a weight" : "a float16 copy of a weight");
}

}  // namespace kiln::cuda

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/half_constant.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "base/fp16.h"
#include "hal/device.h"
#include "kernels/util.h"

namespace kiln::cuda {

Result<HalfConstant> HalfConstant::Upload(const kernels::NodeDef& def, size_t input) {
  HalfConstant h;
  const kernels::TensorView* c = def.constant(input);
  if (def.matrix_precision == kernels::MatrixPrecision::kFp32 || c == nullptr ||
      def.device == nullptr || c->dtype != kernels::DataType::kFloat32 || c->num_elements() == 0) {
    return h;
  }
  const bool bf16 = def.matrix_precision == kernels::MatrixPrecision::kBf16;
  const auto* src = static_cast<const float*>(c->data);
  std::vector<uint16_t> half(static_cast<size_t>(c->num_elements()));
  for (size_t i = 0; i < half.size(); ++i) {
    half[i] = bf16 ? kernels::FloatToBFloat16(src[i]) : FloatToHalf(src[i]);
  }
  const size_t bytes = half.size() * sizeof(uint16_t);
  auto p = def.device->allocator().Allocate(bytes, 256, false);
  if (!p.ok()) {
    return def.Fail(code::kRtMemoryAllocation, "no ", bytes, " bytes on the device for input ",
                    input, " in ", bf16 ? "bfloat16" : "float16", ": ", p.status().message());
  }
  def.device->allocator().Copy(*p, half.data(), bytes);
  h.device_ = def.device;
  h.data_ = *p;
  h.bytes_ = bytes;
  return h;
}

HalfConstant& HalfConstant::operator=(HalfConstant&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) device_->allocator().Free(data_, bytes_);
    device_ = std::exchange(other.device_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

HalfConstant::~HalfConstant() {
  if (data_ != nullptr) device_->allocator().Free(data_, bytes_);
}

}  // namespace kiln::cuda

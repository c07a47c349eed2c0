// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln Aipp (ir/ops/image.cc): CANN's static AIPP on the uint8 image, per output pixel in
// the hardware's order (docs/aipp.md "Execution"): the R/B or U/V swap and the A swap as the
// pixel is read, crop, colour-space conversion in integers (>> 8 rounds towards -inf, the result
// saturates to [0, 255]), the normalisation (v - mean - min) * var_reci in float32, padding. It
// is also the CPU device's kernel: rows run in parallel, each a handful of integer operations
// per pixel.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/fp16.h"
#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// The channels of the source pixel (x, y) of image `img` after the swaps, before CSC; returns how
// many (1, 3 or 4). 4-channel pixels are A, R, G, B (XRGB; RGBA with ax_swap).
int ReadPixel(const AippAttrs& a, const uint8_t* img, int64_t x, int64_t y, int32_t p[4]) {
  switch (a.format) {
    case AippAttrs::kYuv400:
      p[0] = img[y * a.src_w + x];
      return 1;
    case AippAttrs::kYuv420Sp: {
      const uint8_t* uv = img + (a.src_h + y / 2) * a.src_w + (x & ~int64_t{1});
      p[0] = img[y * a.src_w + x];
      p[1] = uv[a.rbuv_swap ? 1 : 0];  // NV12: U then V; NV21 (swapped): V then U
      p[2] = uv[a.rbuv_swap ? 0 : 1];
      return 3;
    }
    case AippAttrs::kRgb888: {
      const uint8_t* s = img + (y * a.src_w + x) * 3;
      p[0] = s[a.rbuv_swap ? 2 : 0];
      p[1] = s[1];
      p[2] = s[a.rbuv_swap ? 0 : 2];
      return 3;
    }
    case AippAttrs::kXrgb8888: {
      const uint8_t* s = img + (y * a.src_w + x) * 4;
      const int o = a.ax_swap ? 0 : 1;  // where R is: RGBA with ax_swap, else XRGB
      p[0] = s[a.ax_swap ? 3 : 0];
      p[1] = s[o + (a.rbuv_swap ? 2 : 0)];
      p[2] = s[o + 1];
      p[3] = s[o + (a.rbuv_swap ? 0 : 2)];
      return 4;
    }
  }
  return 0;
}

// CSC of the three colour channels starting at `c`: YUV sources (YUV420SP) to RGB with the input
// bias, RGB sources to YUV (or another RGB order) with the output bias.
void ConvertColour(const AippAttrs& a, int32_t* c) {
  const bool yuv_source = a.format == AippAttrs::kYuv420Sp;
  int32_t in[3], out[3];
  for (int j = 0; j < 3; ++j) in[j] = yuv_source ? c[j] - a.input_bias[j] : c[j];
  for (int k = 0; k < 3; ++k) {
    int32_t sum = 0;
    for (int j = 0; j < 3; ++j) sum += a.matrix[k][j] * in[j];
    // An arithmetic shift: floor(sum / 256) for negative sums too.
    int32_t v = sum >> 8;
    if (!yuv_source) v += a.output_bias[k];
    out[k] = std::clamp(v, 0, 255);
  }
  for (int k = 0; k < 3; ++k) c[k] = out[k];
}

class AippKernel final : public Kernel {
 public:
  AippKernel(const NodeDef& def, AippAttrs attrs) : def_(def), a_(attrs) {}

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    const int64_t rows = a_.info->rows(a_.src_h), in_c = a_.info->image_channels;
    const int64_t c_out = a_.info->model_channels;
    const int64_t h = a_.crop_h + a_.top + a_.bottom, w = a_.crop_w + a_.left + a_.right;
    if (x->dtype != DataType::kUint8 || x->rank() != 4 || x->dims[1] != rows ||
        x->dims[2] != a_.src_w || x->dims[3] != in_c || y->dims != Dims{x->dims[0], c_out, h, w}) {
      return def_.Fail(code::kInvalidParam, "the image ", DimsString(x->dims), " and the output ",
                       DimsString(y->dims), " do not match the attributes");
    }
    const int64_t image_bytes = rows * a_.src_w * in_c, plane = h * w;
    const uint8_t* src = x->as<const uint8_t>();
    const DataType out = y->dtype;
    ctx.ParallelFor(x->dims[0] * h, 1, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / h, oy = row % h;
        const uint8_t* img = src + n * image_bytes;
        const int64_t base = n * c_out * plane + oy * w;
        for (int64_t ox = 0; ox < w; ++ox) {
          float v[4];
          const int64_t cy = oy - a_.top, cx = ox - a_.left;
          if (cy < 0 || cy >= a_.crop_h || cx < 0 || cx >= a_.crop_w) {
            for (int64_t c = 0; c < c_out; ++c) v[c] = a_.padding_value;
          } else {
            int32_t p[4];
            ReadPixel(a_, img, a_.crop_x + cx, a_.crop_y + cy, p);
            if (a_.csc) ConvertColour(a_, c_out == 4 ? p + 1 : p);
            for (int64_t c = 0; c < c_out; ++c) {
              v[c] = out == DataType::kUint8
                         ? static_cast<float>(p[c])
                         : (static_cast<float>(p[c]) - a_.mean[c] - a_.min[c]) * a_.var_reci[c];
            }
          }
          for (int64_t c = 0; c < c_out; ++c) {
            const int64_t at = base + c * plane + ox;
            if (out == DataType::kFloat32) {
              y->as<float>()[at] = v[c];
            } else if (out == DataType::kFloat16) {
              y->as<uint16_t>()[at] = FloatToHalf(v[c]);
            } else {  // uint8: the padding value saturates
              y->as<uint8_t>()[at] =
                  static_cast<uint8_t>(std::lround(std::clamp(v[c], 0.0f, 255.0f)));
            }
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  AippAttrs a_;
};

Result<std::unique_ptr<Kernel>> MakeAipp(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(AippAttrs attrs, ReadAippAttrs(def));
  return std::unique_ptr<Kernel>(std::make_unique<AippKernel>(def, attrs));
}

}  // namespace

void RegisterImageKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "com.kiln", "Aipp", MakeAipp);
}

}  // namespace kiln::kernels

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
#include <vector>

#include "base/aipp.h"
#include "base/fp16.h"
#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// The channels of the source pixel (x, y) of image `img` after the swaps, before CSC; returns how
// many (1, 3 or 4). Three-channel pixels are R, G, B or Y, U, V; four-channel ones A then those
// (XRGB / ARGB: A, R, G, B, read from RGBA with ax_swap; AYUV: A, Y, U, V, from YUVA with
// ax_swap). rbuv_swap swaps R and B, or U and V.
int ReadPixel(const AippAttrs& a, const uint8_t* img, int64_t x, int64_t y, int32_t p[4]) {
  const int r = a.rbuv_swap ? 2 : 0;  // where the first colour channel is read within three
  switch (a.format) {
    case AippAttrs::kYuv400:
      p[0] = img[y * a.win.src_w + x];
      return 1;
    case AippAttrs::kYuv420Sp:
    case AippAttrs::kYuv422Sp: {
      // The UV plane follows the Y plane: a row per two rows (4:2:0) or per row (4:2:2).
      const int64_t uv_row = a.win.src_h + (a.format == AippAttrs::kYuv420Sp ? y / 2 : y);
      const uint8_t* uv = img + uv_row * a.win.src_w + (x & ~int64_t{1});
      p[0] = img[y * a.win.src_w + x];
      p[1] = uv[a.rbuv_swap ? 1 : 0];  // NV12: U then V; NV21 (swapped): V then U
      p[2] = uv[a.rbuv_swap ? 0 : 1];
      return 3;
    }
    case AippAttrs::kYuyv: {
      const uint8_t* pair = img + (y * a.win.src_w + (x & ~int64_t{1})) * 2;  // Y0 U Y1 V
      p[0] = pair[(x & 1) * 2];
      p[1] = pair[a.rbuv_swap ? 3 : 1];
      p[2] = pair[a.rbuv_swap ? 1 : 3];
      return 3;
    }
    case AippAttrs::kRgb888: {
      const uint8_t* s = img + (y * a.win.src_w + x) * 3;
      p[0] = s[r];
      p[1] = s[1];
      p[2] = s[2 - r];
      return 3;
    }
    case AippAttrs::kXrgb8888:
    case AippAttrs::kArgb8888:
    case AippAttrs::kAyuv444: {
      const uint8_t* s = img + (y * a.win.src_w + x) * 4;
      const int o = a.ax_swap ? 0 : 1;  // where the colour starts: alpha last with ax_swap
      p[0] = s[a.ax_swap ? 3 : 0];
      p[1] = s[o + r];
      p[2] = s[o + 1];
      p[3] = s[o + 2 - r];
      return 4;
    }
  }
  return 0;
}

// CSC of the three colour channels starting at `c`: YUV sources to RGB with the input bias, RGB
// sources to YUV (or another RGB order) with the output bias.
void ConvertColour(const AippAttrs& a, int32_t* c) {
  const bool yuv_source = a.info->yuv;
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

// Row `oy` of image `n` of Y ([N, C, H, W]) from the image at `img`.
void ConvertRow(const AippAttrs& a, const uint8_t* img, TensorView& y, int64_t n, int64_t oy) {
  const int64_t c_out = y.dims[1], h = y.dims[2], w = y.dims[3], plane = h * w;
  const int64_t base = n * c_out * plane + oy * w;
  const DataType out = y.dtype;
  for (int64_t ox = 0; ox < w; ++ox) {
    float v[4];
    const int64_t cy = oy - a.win.top, cx = ox - a.win.left;
    if (cy < 0 || cy >= a.win.h || cx < 0 || cx >= a.win.w) {
      for (int64_t c = 0; c < c_out; ++c) v[c] = a.padding_value;
    } else {
      int32_t p[4];
      ReadPixel(a, img, a.win.x + cx, a.win.y + cy, p);
      if (a.csc) ConvertColour(a, c_out == 4 ? p + 1 : p);
      for (int64_t c = 0; c < c_out; ++c) {
        v[c] = out == DataType::kUint8
                   ? static_cast<float>(p[c])
                   : (static_cast<float>(p[c]) - a.mean[c] - a.min[c]) * a.var_reci[c];
      }
    }
    for (int64_t c = 0; c < c_out; ++c) {
      const int64_t at = base + c * plane + ox;
      if (out == DataType::kFloat32) {
        y.as<float>()[at] = v[c];
      } else if (out == DataType::kFloat16) {
        y.as<uint16_t>()[at] = FloatToHalf(v[c]);
      } else {  // uint8: the padding value saturates
        y.as<uint8_t>()[at] = static_cast<uint8_t>(std::lround(std::clamp(v[c], 0.0f, 255.0f)));
      }
    }
  }
}

// Every image of Y, image n from `src` + n * image_bytes with the parameters `attrs[n]` (one
// entry: the same for all), rows in parallel.
void ConvertImages(KernelContext& ctx, const std::vector<AippAttrs>& attrs, const uint8_t* src,
                   int64_t image_bytes, TensorView& y) {
  const int64_t h = y.dims[2];
  ctx.ParallelFor(y.dims[0] * h, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / h;
      const AippAttrs& a = attrs[attrs.size() == 1 ? 0 : static_cast<size_t>(n)];
      ConvertRow(a, src + n * image_bytes, y, n, row % h);
    }
  });
}

int64_t ImageBytes(const AippAttrs& a) { return a.info->image_bytes(a.win.src_w, a.win.src_h); }

class AippKernel final : public Kernel {
 public:
  AippKernel(const NodeDef& def, AippAttrs attrs) : def_(def), a_({attrs}) {}

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    const AippAttrs& a = a_[0];
    const int64_t h = a.win.h + a.win.top + a.win.bottom, w = a.win.w + a.win.left + a.win.right;
    if (x->dtype != DataType::kUint8 || x->rank() != 4 || x->dims[1] != a.info->rows(a.win.src_h) ||
        x->dims[2] != a.win.src_w || x->dims[3] != a.info->image_channels ||
        y->dims != Dims{x->dims[0], a.info->model_channels, h, w}) {
      return def_.Fail(code::kInvalidParam, "the image ", DimsString(x->dims), " and the output ",
                       DimsString(y->dims), " do not match the attributes");
    }
    ConvertImages(ctx, a_, x->as<const uint8_t>(), ImageBytes(a), *y);
    return Status::Ok();
  }

 private:
  NodeDef def_;
  std::vector<AippAttrs> a_;
};

// DynamicAipp: the parameters of each image from the block in input 1 (base/aipp.h),
// checked here against the images' bytes and Y, as CANN checks them when they are set.
class DynamicAippKernel final : public Kernel {
 public:
  explicit DynamicAippKernel(const NodeDef& def) : def_(def) {}

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(const TensorView* p, RequiredInput(def_, ctx, 1));
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    if (x->dtype != DataType::kUint8 || p->dtype != DataType::kUint8 || y->rank() != 4 ||
        y->dims != def_.attr_ints("shape")) {
      return def_.Fail(code::kInvalidParam, "the images (", ir::Name(x->dtype), "), parameters (",
                       ir::Name(p->dtype), ") and output ", DimsString(y->dims),
                       " do not match the op: uint8, uint8 and 'shape'");
    }
    KILN_ASSIGN_OR_RETURN(
        std::vector<AippAttrs> attrs,
        ReadDynamicAipp(def_, p->as<const uint8_t>(), static_cast<size_t>(p->num_elements()),
                        y->dims, x->num_elements()));
    ConvertImages(ctx, attrs, x->as<const uint8_t>(), ImageBytes(attrs[0]), *y);
    return Status::Ok();
  }

 private:
  NodeDef def_;
};

Result<std::unique_ptr<Kernel>> MakeAipp(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(AippAttrs attrs, ReadAippAttrs(def));
  return std::unique_ptr<Kernel>(std::make_unique<AippKernel>(def, attrs));
}

}  // namespace

void RegisterImageKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "com.kiln", "Aipp", MakeAipp);
  r.Register(kReferenceBackend, "com.kiln", "DynamicAipp",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               return std::unique_ptr<Kernel>(std::make_unique<DynamicAippKernel>(def));
             });
}

}  // namespace kiln::kernels

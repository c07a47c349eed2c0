// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's Resize and Pad.
//
// Resize (opset 10 on): mode nearest for every 1, 2, 4 or 8-byte element type (any axes may
// scale: each output row copies a gathered input row, whole planes come from a per-axis index
// map) and mode linear for float32 when only the last two axes scale (separable bilinear:
// each input row is interpolated along the width once into a small cache, each output row
// blends two of them). Source indices and weights are computed once per run and axis, with the
// reference kernel's coordinate transforms and rounding reimplemented exactly (kernels/
// reference/tensor_index.cc keeps them private). Prepare declines cubic, antialias,
// tf_crop_and_resize, exclude_outside with linear, keep_aspect_ratio_policy other than
// stretch, and linear of other types; a run the fast paths do not take (a linear resize of a
// leading axis, rank < 2, an empty tensor) goes to the reference kernel prepared with it. The
// op's definition checked the node and gave the bound output's dims.
//
// Pad (every opset, every mode the reference has: constant, reflect, edge, wrap): per output
// row, the interior is one memcpy and the borders are fills or element copies; trailing axes
// that are not padded are merged into the row's elements.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/tensor_internal.h"
#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace {

using kernels::BoundOutput;
using kernels::DataType;
using kernels::Dims;
using kernels::ElemSize;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::NumElements;
using kernels::Omitted;
using kernels::PadWindow;
using kernels::Product;
using kernels::ReadDoubles;
using kernels::RequiredInput;
using kernels::ResolvePad;
using kernels::TensorView;
using tensor_internal::Fill;
using tensor_internal::GatherIndexed;
using tensor_internal::kGrainBytes;
using tensor_internal::ParallelCopy;
using tensor_internal::PrepareReference;
using tensor_internal::RequireMovable;

// ---------------------------------------------------------------------------------------------
// Vector leaves (float32 linear resize).

// out[i] = wa * a[i] + wb * b[i].
KILN_CPU_CLONES void BlendRowsF32(const float* KILN_RESTRICT a, const float* KILN_RESTRICT b,
                                  float wa, float wb, float* KILN_RESTRICT out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = wa * a[i] + wb * b[i];
}

// out[x] = w0[x] * row[i0[x]] + w1[x] * row[i1[x]].
KILN_CPU_CLONES void InterpolateRowF32(const float* KILN_RESTRICT row,
                                       const int32_t* KILN_RESTRICT i0,
                                       const int32_t* KILN_RESTRICT i1,
                                       const float* KILN_RESTRICT w0, const float* KILN_RESTRICT w1,
                                       float* KILN_RESTRICT out, int64_t n) {
  for (int64_t x = 0; x < n; ++x) out[x] = w0[x] * row[i0[x]] + w1[x] * row[i1[x]];
}

// ---------------------------------------------------------------------------------------------
// Resize.

enum class Transform {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
enum class Nearest { kSimple, kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

// The attributes a fast resize depends on.
struct ResizeMode {
  bool linear = false;
  Transform transform = Transform::kAsymmetric;
  Nearest nearest = Nearest::kSimple;
};

Transform ParseTransform(const std::string& t) {
  if (t == "align_corners") return Transform::kAlignCorners;
  if (t == "asymmetric") return Transform::kAsymmetric;
  if (t == "tf_half_pixel_for_nn") return Transform::kTfHalfPixelForNn;
  if (t == "pytorch_half_pixel") return Transform::kPytorchHalfPixel;
  if (t == "tf_crop_and_resize") return Transform::kTfCropAndResize;
  if (t == "half_pixel_symmetric") return Transform::kHalfPixelSymmetric;
  return Transform::kHalfPixel;
}

Nearest ParseNearest(const std::string& n) {
  if (n == "round_prefer_ceil") return Nearest::kRoundPreferCeil;
  if (n == "floor") return Nearest::kFloor;
  if (n == "ceil") return Nearest::kCeil;
  return Nearest::kRoundPreferFloor;
}

// Where output position y reads from along an axis of `in` elements resized to `out` with
// `scale` (the reference's formulas, operation for operation, so the results match bit for
// bit).
double SourceCoord(Transform t, int64_t y, double scale, int64_t in, int64_t out) {
  const double yd = static_cast<double>(y), ind = static_cast<double>(in);
  const double width = scale * ind;
  switch (t) {
    case Transform::kAlignCorners:
      return width == 1 ? 0 : yd * (ind - 1) / (width - 1);
    case Transform::kAsymmetric:
      return yd / scale;
    case Transform::kTfHalfPixelForNn:
      return (yd + 0.5) / scale;
    case Transform::kPytorchHalfPixel:
      return out > 1 ? (yd + 0.5) / scale - 0.5 : 0;
    case Transform::kHalfPixelSymmetric: {
      const double offset = ind / 2 * (1 - static_cast<double>(out) / width);
      return offset + (yd + 0.5) / scale - 0.5;
    }
    default:
      return (yd + 0.5) / scale - 0.5;
  }
}

// floor(x) as an index, brought within 4 of an axis of `in` elements first: the taps are
// clamped to the axis anyway, and a coordinate from dims that disagree with the scale (or a
// scale the reference refuses) must not overflow the conversion.
int64_t NearIndex(double xf, int64_t in) {
  return static_cast<int64_t>(std::clamp(xf, -4.0, static_cast<double>(in) + 4.0));
}

// The two linear taps of output position y: input indices (clamped) and weights. An integral
// coordinate x takes weight 1 at x and 0 at x - 1, as the reference does.
struct Taps {
  int64_t i0, i1;
  double w0, w1;
};

Taps LinearTaps(Transform t, int64_t y, double scale, int64_t in, int64_t out) {
  const double x = SourceCoord(t, y, scale, in, out);
  const double xf = std::floor(x);
  const bool integral = x == xf;
  const double ratio = integral ? 1.0 : x - xf;
  const int64_t base = NearIndex(xf, in) - (integral ? 1 : 0);
  return {std::clamp<int64_t>(base, 0, in - 1), std::clamp<int64_t>(base + 1, 0, in - 1), 1 - ratio,
          ratio};
}

int64_t NearestIndex(const ResizeMode& m, int64_t y, double scale, int64_t in, int64_t out) {
  const double x = SourceCoord(m.transform, y, scale, in, out);
  const double xf = std::floor(x);
  const bool integral = x == xf;
  const double ratio = integral ? 1.0 : x - xf;
  Nearest nm = m.nearest;
  if (nm == Nearest::kSimple) nm = scale < 1 ? Nearest::kCeil : Nearest::kFloor;
  bool right;
  if (integral) {
    right = true;
  } else if (nm == Nearest::kRoundPreferFloor) {
    right = ratio > 0.5;
  } else if (nm == Nearest::kRoundPreferCeil) {
    right = ratio >= 0.5;
  } else {
    right = nm == Nearest::kCeil;
  }
  const int64_t base = NearIndex(xf, in) - (integral ? 1 : 0);
  return std::clamp<int64_t>(base + (right ? 1 : 0), 0, in - 1);
}

// Output dims (the bound output's) and per-axis scales, as the reference has them.
struct ResizePlan {
  Dims out;
  std::vector<double> scale;
};

class ResizeKernel final : public Kernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    KILN_ASSIGN_OR_RETURN(auto reference, PrepareReference(registry, def));
    KILN_RETURN_IF_ERROR(RequireMovable(def), "");
    ResizeMode m;
    const std::string mode = def.attr_string("mode");
    if (mode != "nearest" && mode != "linear") {
      return def.Fail(code::kFeatureUnsupported, "mode \"", mode, "\" is left to the reference");
    }
    m.linear = mode == "linear";
    if (def.opset >= 11) {
      m.transform = ParseTransform(def.attr_string("coordinate_transformation_mode"));
      m.nearest = ParseNearest(def.attr_string("nearest_mode"));
      const bool antialias = def.opset >= 18 && def.attr_int("antialias") != 0;
      const bool exclude = m.linear && def.attr_int("exclude_outside") != 0;
      const bool policy =
          def.opset >= 18 && def.attr_string("keep_aspect_ratio_policy") != "stretch";
      if (m.transform == Transform::kTfCropAndResize || antialias || exclude || policy) {
        return def.Fail(code::kFeatureUnsupported,
                        "tf_crop_and_resize, antialias, exclude_outside and "
                        "keep_aspect_ratio_policy are left to the reference");
      }
    }
    if (m.linear && def.input_types[0] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "linear resize of ", ir::Name(def.input_types[0]),
                      " is left to the reference");
    }
    return std::unique_ptr<Kernel>(new ResizeKernel(def, std::move(reference), m));
  }

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def_, ctx, 0));
    const ResizePlan plan = Plan(*x, *out, ctx);
    if (!Takes(*x, plan)) return reference_->Run(ctx);
    if (m_.linear) {
      Linear(ctx, *x, plan, *out);
    } else {
      NearestResize(ctx, *x, plan, *out);
    }
    return Status::Ok();
  }

 private:
  ResizeKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, const ResizeMode& m)
      : def_(def), reference_(std::move(reference)), m_(m) {}

  // The output dims (the bound output's) and scales of this run: the given scales, or with
  // sizes the ratio of output to input (keep_aspect_ratio_policy is left to the reference).
  ResizePlan Plan(const TensorView& x, const TensorView& out, KernelContext& ctx) const {
    const size_t r = x.rank();
    ResizePlan plan;
    plan.out = out.dims;
    plan.scale.assign(r, 1.0);
    if (def_.opset < 11) {  // scales only, every axis
      plan.scale = ReadDoubles(*ctx.input(1));
      return plan;
    }
    std::vector<size_t> axes;  // the resized axes (the definition checked them)
    if (def_.opset >= 18 && def_.has_attr("axes")) {
      for (int64_t a : def_.attr_ints("axes")) {
        axes.push_back(static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(r) : a));
      }
    } else {
      for (size_t i = 0; i < r; ++i) axes.push_back(i);
    }
    const TensorView* scales = ctx.input(2);
    if (!Omitted(scales)) {
      const std::vector<double> s = ReadDoubles(*scales);
      if (s.size() != axes.size()) {  // the reference names the mismatch
        plan.scale.clear();
        return plan;
      }
      for (size_t k = 0; k < axes.size(); ++k) plan.scale[axes[k]] = s[k];
    } else {
      for (size_t a : axes) {
        plan.scale[a] = x.dims[a] == 0 ? 1.0 : static_cast<double>(out.dims[a]) / x.dims[a];
      }
    }
    return plan;
  }

  // Whether the fast paths take this run: rank >= 2, nothing empty, and for linear a float32
  // input with only the last two axes resized.
  bool Takes(const TensorView& x, const ResizePlan& plan) const {
    const size_t r = x.rank();
    if (r < 2 || x.num_elements() == 0 || plan.scale.size() != r) return false;
    for (size_t d = 0; d < r; ++d) {
      // A bad scale goes to the reference, which names it.
      if (plan.out[d] <= 0 || !std::isfinite(plan.scale[d]) || plan.scale[d] <= 0) return false;
    }
    if (m_.linear) {
      if (x.dtype != DataType::kFloat32) return false;
      if (x.dims[r - 1] > std::numeric_limits<int32_t>::max()) return false;
      for (size_t d = 0; d + 2 < r; ++d) {
        if (!AxisIdentity(plan, x.dims, d)) return false;
      }
    }
    return true;
  }

  // The reference skips a linear axis with scale within 1e-9 of 1 and the same size.
  static bool AxisIdentity(const ResizePlan& plan, const Dims& in, size_t d) {
    return std::fabs(plan.scale[d] - 1) <= 1e-9 && plan.out[d] == in[d];
  }

  void NearestResize(KernelContext& ctx, const TensorView& x, const ResizePlan& plan,
                     const TensorView& out) const {
    const size_t r = x.rank(), es = ElemSize(x);
    std::vector<std::vector<int64_t>> map(r);
    for (size_t d = 0; d < r; ++d) {
      for (int64_t y = 0; y < plan.out[d]; ++y) {
        map[d].push_back(NearestIndex(m_, y, plan.scale[d], x.dims[d], plan.out[d]));
      }
    }
    // The input plane (offset in elements) each output plane reads.
    const Dims in_strides = kernels::Strides(x.dims);
    const int64_t planes = Product(plan.out, 0, r - 2);
    std::vector<int64_t> plane_src(static_cast<size_t>(planes), 0);
    for (int64_t p = 0; p < planes; ++p) {
      int64_t rest = p, off = 0;
      for (size_t d = r - 2; d-- > 0;) {
        off += map[d][static_cast<size_t>(rest % plan.out[d])] * in_strides[d];
        rest /= plan.out[d];
      }
      plane_src[static_cast<size_t>(p)] = off;
    }
    const int64_t in_w = x.dims[r - 1], out_h = plan.out[r - 2], out_w = plan.out[r - 1];
    const std::vector<int64_t>& ymap = map[r - 2];
    const std::vector<int64_t>& xmap = map[r - 1];
    bool x_identity = out_w == in_w;
    for (int64_t i = 0; x_identity && i < out_w; ++i) {
      x_identity = xmap[static_cast<size_t>(i)] == i;
    }
    const auto* src = static_cast<const uint8_t*>(x.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    const size_t row_bytes = static_cast<size_t>(out_w) * es;
    const int64_t grain = std::max<int64_t>(1, kGrainBytes / static_cast<int64_t>(row_bytes));
    ctx.ParallelFor(planes * out_h, grain, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t p = u / out_h, y = u % out_h;
        uint8_t* o = dst + static_cast<size_t>(u) * row_bytes;
        // Rows that read the same input row as the one above are copies of it.
        if (u > begin && y > 0 &&
            ymap[static_cast<size_t>(y)] == ymap[static_cast<size_t>(y - 1)]) {
          std::memcpy(o, o - row_bytes, row_bytes);
          continue;
        }
        const uint8_t* row = src + static_cast<size_t>(plane_src[static_cast<size_t>(p)] +
                                                       ymap[static_cast<size_t>(y)] * in_w) *
                                       es;
        if (x_identity) {
          std::memcpy(o, row, row_bytes);
        } else {
          GatherIndexed(o, row, xmap.data(), out_w, es);
        }
      }
    });
  }

  void Linear(KernelContext& ctx, const TensorView& x, const ResizePlan& plan,
              const TensorView& out) const {
    const size_t r = x.rank();
    const int64_t in_h = x.dims[r - 2], in_w = x.dims[r - 1];
    const int64_t out_h = plan.out[r - 2], out_w = plan.out[r - 1];
    const bool h_identity = AxisIdentity(plan, x.dims, r - 2);
    const bool w_identity = AxisIdentity(plan, x.dims, r - 1);
    std::vector<int32_t> xi0, xi1;
    std::vector<float> xw0, xw1;
    if (!w_identity) {
      for (int64_t i = 0; i < out_w; ++i) {
        const Taps t = LinearTaps(m_.transform, i, plan.scale[r - 1], in_w, out_w);
        xi0.push_back(static_cast<int32_t>(t.i0));
        xi1.push_back(static_cast<int32_t>(t.i1));
        xw0.push_back(static_cast<float>(t.w0));
        xw1.push_back(static_cast<float>(t.w1));
      }
    }
    std::vector<Taps> ytaps;
    for (int64_t y = 0; y < out_h; ++y) {
      ytaps.push_back(h_identity ? Taps{y, y, 1.0, 0.0}
                                 : LinearTaps(m_.transform, y, plan.scale[r - 2], in_h, out_h));
    }
    const int64_t planes = Product(x.dims, 0, r - 2);
    const auto* src = x.as<const float>();
    float* dst = out.as<float>();
    const int64_t grain = std::max<int64_t>(1, 16384 / out_w);
    ctx.ParallelFor(planes * out_h, grain, [&](int64_t begin, int64_t end) {
      // Input rows interpolated along the width, cached by input row (plane * in_h + row):
      // consecutive output rows mostly read the same two.
      std::vector<float> buf[2];
      int64_t held[2] = {-1, -1};
      auto hrow = [&](int64_t row, int slot) -> const float* {
        const float* in_row = src + row * in_w;
        if (w_identity) return in_row;
        if (held[slot] != row) {
          buf[slot].resize(static_cast<size_t>(out_w));
          InterpolateRowF32(in_row, xi0.data(), xi1.data(), xw0.data(), xw1.data(),
                            buf[slot].data(), out_w);
          held[slot] = row;
        }
        return buf[slot].data();
      };
      for (int64_t u = begin; u < end; ++u) {
        const int64_t p = u / out_h, y = u % out_h;
        const Taps& t = ytaps[static_cast<size_t>(y)];
        const int64_t r0 = p * in_h + t.i0, r1 = p * in_h + t.i1;
        float* o = dst + u * out_w;
        if (h_identity) {
          if (w_identity) {
            std::memcpy(o, src + r0 * in_w, static_cast<size_t>(out_w) * sizeof(float));
          } else {
            InterpolateRowF32(src + r0 * in_w, xi0.data(), xi1.data(), xw0.data(), xw1.data(), o,
                              out_w);
          }
          continue;
        }
        // Keep the slots in row order so the lower row is usually already held.
        if (held[1] == r0 && held[0] != r0) {
          std::swap(buf[0], buf[1]);
          std::swap(held[0], held[1]);
        }
        const float* a = hrow(r0, 0);
        const float* b = r1 == r0 ? a : hrow(r1, 1);
        BlendRowsF32(a, b, static_cast<float>(t.w0), static_cast<float>(t.w1), o, out_w);
      }
    });
  }

  const NodeDef def_;
  const std::unique_ptr<Kernel> reference_;
  const ResizeMode m_;
};

// ---------------------------------------------------------------------------------------------
// Pad.

// The output row segment [at, at + count) of the padded axis: a copy of input positions
// [src, src + count) or, with src = -1, the fill value.
struct Segment {
  int64_t at, count, src;
};

Status RunPad(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(PadWindow w, ResolvePad(def, ctx, *x, out->dims));
  const size_t es = ElemSize(*x);
  const Dims& dims = out->dims;
  const std::vector<std::vector<int64_t>>& map = w.map;
  const std::vector<uint8_t>& fill = w.fill;
  // The last axis that is not copied as is; the ones after it make up one block (`blk`
  // elements) of the row along it.
  auto identity = [&](size_t a) {
    if (dims[a] != x->dims[a]) return false;
    for (int64_t i = 0; i < dims[a]; ++i) {
      if (map[a][static_cast<size_t>(i)] != i) return false;
    }
    return true;
  };
  size_t last = map.size();
  while (last > 0 && identity(last - 1)) --last;
  if (last == 0) {
    ParallelCopy(ctx, out->data, x->data, x->bytes());
    return Status::Ok();
  }
  const size_t row_axis = last - 1;
  const int64_t blk = Product(dims, row_axis + 1, dims.size());
  const size_t blk_bytes = static_cast<size_t>(blk) * es;
  std::vector<Segment> segs;
  for (int64_t o = 0; o < dims[row_axis]; ++o) {
    const int64_t s = map[row_axis][static_cast<size_t>(o)];
    if (!segs.empty()) {
      Segment& g = segs.back();
      if ((s < 0 && g.src < 0) || (s >= 0 && g.src >= 0 && g.src + g.count == s)) {
        ++g.count;
        continue;
      }
    }
    segs.push_back({o, 1, s});
  }
  const Dims in_strides = kernels::Strides(x->dims);
  const Dims outer_dims(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(row_axis));
  const int64_t rows = NumElements(outer_dims);
  const int64_t row_elems = dims[row_axis] * blk;
  const size_t row_bytes = static_cast<size_t>(row_elems) * es;
  const auto* src = static_cast<const uint8_t*>(x->data);
  auto* dst = static_cast<uint8_t*>(out->data);
  const int64_t grain = std::max<int64_t>(1, kGrainBytes / static_cast<int64_t>(row_bytes));
  ctx.ParallelFor(rows, grain, [&](int64_t begin, int64_t end) {
    Dims idx(outer_dims.size(), 0);
    int64_t rest = begin;
    for (size_t d = idx.size(); d-- > 0;) {
      idx[d] = rest % outer_dims[d];
      rest /= outer_dims[d];
    }
    for (int64_t row = begin; row < end; ++row) {
      uint8_t* o = dst + static_cast<size_t>(row) * row_bytes;
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < idx.size() && inside; ++d) {
        const int64_t s = map[d][static_cast<size_t>(idx[d])];
        inside = s >= 0;
        off += s * in_strides[d];
      }
      if (!inside) {
        Fill(o, row_elems, fill.data(), es);
      } else {
        for (const Segment& g : segs) {
          uint8_t* at = o + static_cast<size_t>(g.at) * blk_bytes;
          if (g.src < 0) {
            Fill(at, g.count * blk, fill.data(), es);
          } else {
            std::memcpy(
                at, src + static_cast<size_t>(off) * es + static_cast<size_t>(g.src) * blk_bytes,
                static_cast<size_t>(g.count) * blk_bytes);
          }
        }
      }
      kernels::NextIndex(idx, outer_dims);
    }
  });
  return Status::Ok();
}

}  // namespace

void RegisterCpuResizePadKernels(kernels::KernelRegistry& registry) {
  registry.Register("cpu", "", "Resize",
                    [&registry](const NodeDef& def) { return ResizeKernel::Make(registry, def); });
  registry.Register("cpu", "", "Pad",
                    [&registry](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                      KILN_ASSIGN_OR_RETURN(auto reference, PrepareReference(registry, def));
                      KILN_RETURN_IF_ERROR(RequireMovable(def), "");
                      return kernels::MakeFunctionKernel(def, RunPad);
                    });
}

}  // namespace kiln::cpu

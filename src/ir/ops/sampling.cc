// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Sampling and image-geometry ops: GridSample, AffineGrid, Col2Im.
#include <string>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

std::string IntsStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

Status CheckNotString(InferenceContext& ctx, size_t i, const char* name) {
  DataType t = ctx.input_dtype(i);
  if (t == DataType::kString) return ctx.Unsupported(name, " is a string tensor");
  if (t == DataType::kUndefined) return ctx.Fail(name, " has no element type");
  return Status::Ok();
}

// GridSample (opset 16: 4-D only, modes bilinear/nearest/bicubic; 20: N-D, modes
// linear/nearest/cubic; 22: bfloat16 grids): X [N, C, D1..Dr], grid [N, O1..Or, r],
// Y [N, C, O1..Or].
Status GridSample(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckNotString(ctx, 0, "X"), "");
  DataType g = ctx.input_dtype(1);
  if (!IsFloat(g) || (g == DataType::kBFloat16 && ctx.opset() < 22)) {
    return ctx.Fail("grid is ", Name(g), "; float16, float32 or float64",
                    ctx.opset() >= 22 ? " or bfloat16" : "", " is required");
  }
  const bool old = ctx.opset() < 20;
  std::string mode = ctx.attr_string("mode");
  const char* linear = old ? "bilinear" : "linear";
  const char* cubic = old ? "bicubic" : "cubic";
  if (mode != linear && mode != cubic && mode != "nearest") {
    return ctx.Fail("attribute 'mode' must be ", linear, ", nearest or ", cubic, " at opset ",
                    ctx.opset(), ", got \"", mode, "\"");
  }
  std::string pad = ctx.attr_string("padding_mode");
  if (pad != "zeros" && pad != "border" && pad != "reflection") {
    return ctx.Fail("attribute 'padding_mode' must be zeros, border or reflection, got \"", pad,
                    "\"");
  }
  int64_t align = ctx.attr_int("align_corners");
  if (align != 0 && align != 1) {
    return ctx.Fail("attribute 'align_corners' must be 0 or 1, got ", align);
  }

  const Shape& x = ctx.input_shape(0);
  const Shape& grid = ctx.input_shape(1);
  size_t rank = x.rank_known() ? x.rank() : grid.rank_known() ? grid.rank() : 0;
  if (rank != 0) {
    if ((x.rank_known() && x.rank() != rank) || (grid.rank_known() && grid.rank() != rank)) {
      return ctx.Fail("X has shape ", x.ToString(), " and grid ", grid.ToString(),
                      "; they must have the same rank");
    }
    if (rank < 3 || (old && rank != 4)) {
      return ctx.Fail("X has rank ", rank, "; ", old ? "rank 4 (opset 16)" : "rank >= 3",
                      " is required");
    }
  }
  if (!x.rank_known() || !grid.rank_known()) {
    ctx.set_output(0, ctx.input_dtype(0), rank ? Shape(std::vector<Dim>(rank)) : Shape());
    return Status::Ok();
  }
  const Dim& last = grid[rank - 1];
  if (last.known() && last.value != static_cast<int64_t>(rank) - 2) {
    return ctx.Fail("grid has shape ", grid.ToString(), "; its last dim must be ", rank - 2);
  }
  if (x[0].known() && grid[0].known() && x[0].value != grid[0].value) {
    return ctx.Fail("X has shape ", x.ToString(), " and grid ", grid.ToString(),
                    "; their batch sizes differ");
  }
  std::vector<Dim> out = {x[0].known() ? x[0] : grid[0], x[1]};
  for (size_t i = 1; i + 1 < rank; ++i) out.push_back(grid[i]);
  Shape y(std::move(out));
  // Sampling reads X: an empty spatial axis leaves nothing to sample for a non-empty output.
  for (size_t i = 2; i < rank; ++i) {
    auto n = y.NumElements();
    if (x[i].known() && x[i].value == 0 && n && *n > 0) {
      return ctx.Fail("X has shape ", x.ToString(),
                      "; an empty spatial axis has nothing to sample");
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), std::move(y));
  return Status::Ok();
}

// AffineGrid (opset 20): theta [N, 2, 3] or [N, 3, 4], size [N, C, H, W] or [N, C, D, H, W];
// grid [N, H, W, 2] or [N, D, H, W, 3].
Status AffineGrid(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return ctx.Fail("theta is ", Name(t), "; a floating-point type is required");
  if (ctx.input_dtype(1) != DataType::kInt64) {
    return ctx.Fail("size is ", Name(ctx.input_dtype(1)), "; int64 is required");
  }
  int64_t align = ctx.attr_int("align_corners");
  if (align != 0 && align != 1) {
    return ctx.Fail("attribute 'align_corners' must be 0 or 1, got ", align);
  }
  const Shape& theta = ctx.input_shape(0);
  const Shape& size_shape = ctx.input_shape(1);
  if (size_shape.rank_known() && size_shape.rank() != 1) {
    return ctx.Fail("size has shape ", size_shape.ToString(), "; rank 1 is required");
  }
  if (theta.rank_known() && theta.rank() != 3) {
    return ctx.Fail("theta has shape ", theta.ToString(), "; rank 3 is required");
  }
  // Spatial rank 2 or 3, from size's length or theta's shape.
  int64_t spatial = -1;
  if (size_shape.rank_known() && size_shape[0].known()) {
    int64_t len = size_shape[0].value;
    if (len != 4 && len != 5) return ctx.Fail("size has ", len, " values; 4 or 5 are required");
    spatial = len - 2;
  }
  if (theta.rank_known()) {
    int64_t s = theta[1].known() ? theta[1].value : theta[2].known() ? theta[2].value - 1 : -1;
    bool ok = s == -1 || s == 2 || s == 3;
    if (ok && s != -1) {
      ok = (!theta[1].known() || theta[1].value == s) &&
           (!theta[2].known() || theta[2].value == s + 1) && (spatial == -1 || spatial == s);
    }
    if (!ok) {
      return ctx.Fail("theta has shape ", theta.ToString(), "; [N,2,3] (2-D) or [N,3,4] (3-D)",
                      spatial == -1  ? ""
                      : spatial == 2 ? " matching 4 size values"
                                     : " matching 5 size values",
                      " is required");
    }
    if (spatial == -1) spatial = s;
  }
  if (spatial == -1) {
    ctx.set_output(0, t, Shape());
    return Status::Ok();
  }
  std::vector<Dim> out(static_cast<size_t>(spatial) + 2);
  if (theta.rank_known()) out[0] = theta[0];
  out.back() = Dim::Known(spatial);
  if (auto size = ctx.input_ints(1)) {
    for (int64_t v : *size) {
      if (v < 0) return ctx.Fail("size = ", IntsStr(*size), " has a negative value");
    }
    if (out[0].known() && (*size)[0] != out[0].value) {
      return ctx.Fail("size = ", IntsStr(*size), " has N = ", (*size)[0], " but theta has ",
                      out[0].value, " matrices");
    }
    out[0] = Dim::Known((*size)[0]);
    for (int64_t i = 0; i < spatial; ++i) out[i + 1] = Dim::Known((*size)[i + 2]);
  }
  ctx.set_output(0, t, Shape(std::move(out)));
  return Status::Ok();
}

// Col2Im (opset 18): input [N, C * prod(block_shape), L], image_shape [n], block_shape [n];
// output [N, C, image_shape...].
Status Col2Im(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckNotString(ctx, 0, "input"), "");
  for (size_t i = 1; i <= 2; ++i) {
    if (ctx.input_dtype(i) != DataType::kInt64) {
      return ctx.Fail(i == 1 ? "image_shape" : "block_shape", " is ", Name(ctx.input_dtype(i)),
                      "; int64 is required");
    }
  }
  const Shape& x = ctx.input_shape(0);
  if (x.rank_known() && x.rank() != 3) {
    return ctx.Fail("input has shape ", x.ToString(),
                    "; rank 3 [N, C * prod(block), L] is required");
  }
  // The spatial rank n: from the image_shape / block_shape lengths, else the attributes.
  int64_t n = -1;
  for (size_t i = 1; i <= 2; ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!s.rank_known()) continue;
    if (s.rank() != 1) {
      return ctx.Fail(i == 1 ? "image_shape" : "block_shape", " has shape ", s.ToString(),
                      "; rank 1 is required");
    }
    if (!s[0].known()) continue;
    if (s[0].value < 1) return ctx.Fail("image_shape and block_shape need at least one value");
    if (n != -1 && n != s[0].value) {
      return ctx.Fail("image_shape and block_shape have different lengths");
    }
    n = s[0].value;
  }
  const InferenceContext& node = ctx;
  struct IntsSpec {
    const char* name;
    int64_t per_dim, min;
  };
  for (IntsSpec a :
       {IntsSpec{"dilations", 1, 1}, IntsSpec{"strides", 1, 1}, IntsSpec{"pads", 2, 0}}) {
    if (!node.has_attr(a.name)) continue;
    std::vector<int64_t> v = node.attr_ints(a.name);
    if (n == -1 && v.size() % a.per_dim == 0) n = static_cast<int64_t>(v.size()) / a.per_dim;
    if (static_cast<int64_t>(v.size()) != n * a.per_dim) {
      return ctx.Fail("attribute '", a.name, "' = ", IntsStr(v), " needs ", n * a.per_dim,
                      " values");
    }
    for (int64_t d : v) {
      if (d < a.min) {
        return ctx.Fail("attribute '", a.name, "' = ", IntsStr(v), " has a value < ", a.min);
      }
    }
  }
  if (n == -1) {
    ctx.set_output(0, ctx.input_dtype(0), Shape());
    return Status::Ok();
  }
  std::vector<Dim> out(static_cast<size_t>(n) + 2);
  if (x.rank_known()) out[0] = x[0];
  auto image = ctx.input_ints(1);
  auto block = ctx.input_ints(2);
  if (image) {
    for (int64_t i = 0; i < n; ++i) {
      if ((*image)[i] < 1) return ctx.Fail("image_shape = ", IntsStr(*image), " has a value < 1");
      out[i + 2] = Dim::Known((*image)[i]);
    }
  }
  if (block) {
    int64_t k = 1;
    for (int64_t b : *block) {
      if (b < 1) return ctx.Fail("block_shape = ", IntsStr(*block), " has a value < 1");
      if (__builtin_mul_overflow(k, b, &k)) return ctx.Fail("prod(block_shape) overflows");
    }
    if (x.rank_known() && x[1].known()) {
      if (x[1].value % k != 0) {
        return ctx.Fail("input has shape ", x.ToString(), "; dim 1 must be a multiple of ",
                        "prod(block_shape) = ", k);
      }
      out[1] = Dim::Known(x[1].value / k);
    }
  }
  if (image && block) {
    // Absent, they are all 1 (dilations, strides) or 0 (pads): their length is the rank's.
    auto ints = [&](const char* name, size_t len, int64_t dflt) {
      return node.has_attr(name) ? node.attr_ints(name) : std::vector<int64_t>(len, dflt);
    };
    const size_t un = static_cast<size_t>(n);
    std::vector<int64_t> dil = ints("dilations", un, 1);
    std::vector<int64_t> str = ints("strides", un, 1);
    std::vector<int64_t> pads = ints("pads", 2 * un, 0);
    // Bounding every value keeps the block arithmetic (here and in the kernel) from overflowing.
    constexpr int64_t kMax = int64_t{1} << 31;
    int64_t blocks = 1;
    for (size_t i = 0; i < un; ++i) {
      if ((*image)[i] > kMax || (*block)[i] > kMax || dil[i] > kMax || str[i] > kMax ||
          pads[i] > kMax || pads[i + un] > kMax) {
        return ctx.Fail("a size, dilation, stride or pad exceeds 2^31");
      }
      int64_t span = (*image)[i] + pads[i] + pads[i + un] - dil[i] * ((*block)[i] - 1) - 1;
      if (span < 0) {
        return ctx.Fail("the dilated block ", IntsStr(*block), " does not fit the padded image ",
                        IntsStr(*image));
      }
      if (__builtin_mul_overflow(blocks, span / str[i] + 1, &blocks)) {
        return ctx.Fail("the block count overflows");
      }
    }
    if (x.rank_known() && x[2].known() && blocks != x[2].value) {
      return ctx.Fail("input has shape ", x.ToString(), "; image_shape ", IntsStr(*image),
                      " and block_shape ", IntsStr(*block), " make ", blocks, " blocks");
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
}

}  // namespace

void RegisterSamplingOps(OpRegistry& r) {
  constexpr const char* kFamily = "sampling";
  // GridSample's modes were renamed at opset 20 (bilinear -> linear, bicubic -> cubic).
  r.Register(MakeSchema("GridSample", 16, 2, 2, 1, 1, kFamily, GridSample)
                 .Attrs({Attr("mode", "bilinear").Until(19), Attr("mode", "linear").Since(20),
                         Attr("padding_mode", "zeros"), Attr("align_corners", 0)}));
  r.Register(MakeSchema("AffineGrid", 20, 2, 2, 1, 1, kFamily, AffineGrid)
                 .Attrs({Attr("align_corners", 0)}));
  // Col2Im's window attributes default to one entry per spatial axis (1s, pads 0s), a length
  // only the inputs tell: declared without a default.
  r.Register(
      MakeSchema("Col2Im", 18, 3, 3, 1, 1, kFamily, Col2Im)
          .Attrs({OptionalAttr("dilations", AttrKind::kInts), OptionalAttr("pads", AttrKind::kInts),
                  OptionalAttr("strides", AttrKind::kInts)}));
}

}  // namespace kiln::ir

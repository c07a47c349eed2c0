// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kiln's image pre-processing op: com.kiln `Aipp`, CANN's static AIPP (docs/aipp.md) as the first
// node of a compiled graph. `kiln atc --insert_op_conf` inserts it in front of the model input
// the config names (src/compiler/aipp_insertion.cc); the input becomes the raw uint8 image.
//
// X: uint8 [N, rows, src_w, cin], the image as the application passes it (base/aipp.h's format
// table: YUV420SP_U8 rows = 1.5 src_h and YUV422SP_U8 rows = 2 src_h, the Y plane then the
// interleaved UV plane, cin = 1; YUYV_U8 cin = 2; YUV400_U8 cin = 1; RGB888_U8 cin = 3;
// XRGB8888_U8, ARGB8888_U8 and AYUV444_U8 cin = 4). Y: [N, C, H, W] of type `to`, C 3 (1 for
// YUV400, 4 for the four-byte formats); H and W the crop window (the whole image without crop)
// plus the padding.
//
// Attributes (all resolved by the compiler: no 0 stands for a default):
//   input_format   string: a name of base/aipp.h's format table
//   src_image_size ints [w, h]
//   crop           ints [load_start_pos_w, load_start_pos_h, crop_size_w, crop_size_h]; absent:
//                  the whole image
//   padding        ints [top, bottom, left, right]; absent: none. padding_value (float): what
//                  the padded pixels hold, in every channel
//   csc_matrix     ints [r0c0 .. r2c2]; absent: no colour-space conversion. csc_input_bias and
//                  csc_output_bias (ints [3]) come with it
//   rbuv_swap, ax_swap  ints 0/1
//   mean_chn (ints [4]), min_chn, var_reci_chn (floats [4]): the normalisation of channel c,
//                  (v - mean_chn[c] - min_chn[c]) * var_reci_chn[c]; not applied for a uint8 Y
//   to             int: Y's ONNX type, float32 (1, the default), float16 (10) or uint8 (2)
#include <string>
#include <vector>

#include "base/aipp.h"
#include "base/str_cat.h"
#include "ir/ops/infer_util.h"

namespace kiln::ir {

namespace {

constexpr const char* kDomain = "com.kiln";

// `name` holds `count` values, each in [lo, hi].
Status CheckInts(InferenceContext& ctx, const char* name, size_t count, int64_t lo, int64_t hi) {
  if (!ctx.has_attr(name)) return Status::Ok();
  const std::vector<int64_t> v = ctx.attr_ints(name);
  if (v.size() != count)
    return ctx.Fail("'", name, "' has ", v.size(), " values; ", count, " needed");
  for (int64_t x : v) {
    if (x < lo || x > hi)
      return ctx.Fail("'", name, "' value ", x, " is outside [", lo, ", ", hi, "]");
  }
  return Status::Ok();
}

Status Aipp(InferenceContext& ctx) {
  const std::string format_name = ctx.attr_string("input_format");
  const aipp::Format* format = aipp::FindFormat(format_name);
  if (format == nullptr) {
    return ctx.Unsupported("input_format '", format_name,
                           "' is not one Kiln executes (YUV420SP_U8, XRGB8888_U8, RGB888_U8, "
                           "YUV400_U8, ARGB8888_U8, YUYV_U8, YUV422SP_U8, AYUV444_U8)");
  }
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "src_image_size", 2, 1, 4096), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "crop", 4, 0, 4096), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "padding", 4, 0, 32), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "csc_matrix", 9, -32768, 32767), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "csc_input_bias", 3, 0, 255), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "csc_output_bias", 3, 0, 255), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "mean_chn", 4, 0, 255), "");
  for (const char* name : {"min_chn", "var_reci_chn"}) {
    if (ctx.has_attr(name) && ctx.attr_floats(name).size() != 4) {
      return ctx.Fail("'", name, "' has ", ctx.attr_floats(name).size(), " values; 4 needed");
    }
  }
  for (const char* name : {"rbuv_swap", "ax_swap"}) {
    const int64_t v = ctx.attr_int(name);
    if (v != 0 && v != 1) return ctx.Fail("'", name, "' must be 0 or 1, got ", v);
  }
  const bool csc = ctx.has_attr("csc_matrix");
  if (csc != ctx.has_attr("csc_input_bias") || csc != ctx.has_attr("csc_output_bias")) {
    return ctx.Fail("csc_matrix, csc_input_bias and csc_output_bias come together");
  }
  if (csc && format->model_channels == 1) {
    return ctx.Unsupported("colour-space conversion of YUV400_U8 (one channel)");
  }
  const std::vector<int64_t> src = ctx.attr_ints("src_image_size");
  aipp::Window win{src[0], src[1], 0, 0, src[0], src[1]};
  if (ctx.has_attr("crop")) {
    const std::vector<int64_t> c = ctx.attr_ints("crop");
    win.x = c[0];
    win.y = c[1];
    win.w = c[2];
    win.h = c[3];
  }
  if (ctx.has_attr("padding")) {
    const std::vector<int64_t> p = ctx.attr_ints("padding");
    win.top = p[0];
    win.bottom = p[1];
    win.left = p[2];
    win.right = p[3];
  }
  if (Status st = aipp::CheckWindow(*format, win, ""); !st.ok()) return ctx.Fail(st.message());
  const int64_t src_w = win.src_w, src_h = win.src_h;
  const int64_t out_w = win.w + win.left + win.right, out_h = win.h + win.top + win.bottom;
  const int64_t to = ctx.attr_int("to");
  const DataType out_type = static_cast<DataType>(to);
  if (out_type != DataType::kFloat32 && out_type != DataType::kFloat16 &&
      out_type != DataType::kUint8) {
    return ctx.Unsupported("'to' ", to, ": the output is float32 (1), float16 (10) or uint8 (2)");
  }
  if (ctx.input_dtype(0) != DataType::kUint8) {
    return ctx.Fail("the image is ", Name(ctx.input_dtype(0)), "; uint8 is required");
  }
  const Shape& x = ctx.input_shape(0);
  Dim batch = Dim::Unknown();
  if (x.rank_known()) {
    if (x.rank() != 4) return ctx.Fail("the image must be 4-D [N, rows, W, C], got ", x.ToString());
    const int64_t want[] = {format->rows(src_h), src_w, format->image_channels};
    for (size_t i = 0; i < 3; ++i) {
      if (x[i + 1].known() && x[i + 1].value != want[i]) {
        return ctx.Fail("a ", src_w, "x", src_h, " ", format_name, " image is [N, ", want[0], ", ",
                        want[1], ", ", want[2], "], got ", x.ToString());
      }
    }
    batch = x[0];
  }
  ctx.set_output(
      0, out_type,
      Shape({batch, Dim::Known(format->model_channels), Dim::Known(out_h), Dim::Known(out_w)}));
  return Status::Ok();
}

// DynamicAipp: X the images' bytes (uint8, 1-D), P the parameter block (uint8, 1-D, the size
// of `shape`[0] images: base/aipp.h); Y of `shape` and `to`. What P holds is checked
// when the kernel runs (it is a run-time input).
Status DynamicAipp(InferenceContext& ctx) {
  const std::vector<int64_t> shape = ctx.attr_ints("shape");
  if (shape.size() != 4 || shape[0] < 1 || shape[0] > 127 || shape[2] < 1 || shape[3] < 1 ||
      (shape[1] != 1 && shape[1] != 3 && shape[1] != 4)) {
    std::string got;
    for (int64_t d : shape) got += (got.empty() ? "" : ",") + std::to_string(d);
    return ctx.Fail(
        "'shape' must be [N, C, H, W] with N in [1, 127], C 1, 3 or 4 and H, W >= 1, "
        "got [",
        got, "]");
  }
  for (size_t i = 0; i < 2; ++i) {
    if (ctx.input_dtype(i) != DataType::kUint8) {
      return ctx.Fail("input ", i, " is ", Name(ctx.input_dtype(i)), "; uint8 is required");
    }
    const Shape& x = ctx.input_shape(i);
    if (x.rank_known() && x.rank() != 1) return ctx.Fail("input ", i, " must be 1-D");
  }
  const int64_t to = ctx.attr_int("to");
  const DataType out_type = static_cast<DataType>(to);
  if (out_type != DataType::kFloat32 && out_type != DataType::kFloat16 &&
      out_type != DataType::kUint8) {
    return ctx.Unsupported("'to' ", to, ": the output is float32 (1), float16 (10) or uint8 (2)");
  }
  ctx.set_output(0, out_type, Shape::Of(shape));
  return Status::Ok();
}

}  // namespace

void RegisterImageOps(OpRegistry& r) {
  r.Register(MakeSchema("DynamicAipp", 1, 2, 2, 1, 1, "image", DynamicAipp, kDomain)
                 .Attrs({RequiredAttr("shape", AttrKind::kInts), Attr("to", 1)}));
  r.Register(
      MakeSchema("Aipp", 1, 1, 1, 1, 1, "image", Aipp, kDomain)
          .Attrs({RequiredAttr("input_format", AttrKind::kString),
                  RequiredAttr("src_image_size", AttrKind::kInts),
                  OptionalAttr("crop", AttrKind::kInts), OptionalAttr("padding", AttrKind::kInts),
                  Attr("padding_value", 0.0), OptionalAttr("csc_matrix", AttrKind::kInts),
                  OptionalAttr("csc_input_bias", AttrKind::kInts),
                  OptionalAttr("csc_output_bias", AttrKind::kInts), Attr("rbuv_swap", 0),
                  Attr("ax_swap", 0), OptionalAttr("mean_chn", AttrKind::kInts),
                  OptionalAttr("min_chn", AttrKind::kFloats),
                  OptionalAttr("var_reci_chn", AttrKind::kFloats), Attr("to", 1)}));
}

}  // namespace kiln::ir

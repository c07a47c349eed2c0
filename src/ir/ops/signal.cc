// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Signal-processing ops: DFT, STFT, the Hann / Hamming / Blackman windows and MelWeightMatrix.
//
// Their output dims come from input values (dft_length, frame_length, the window size ...):
// the shape functions read them with input_ints, so they are known whenever the inputs are
// constants, and always at run time, where the executor hands every input's value in. None of
// these ops is data-dependent in the kTraitDataDependentShape sense.
#include <optional>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// Input i must be an int32 or int64 scalar (ONNX's T2 of DFT and STFT, T1 of the windows and
// MelWeightMatrix); `int64_only` narrows it to int64 (DFT's axis).
Status CheckIntScalar(InferenceContext& ctx, size_t i, const char* name, bool int64_only = false) {
  DataType t = ctx.input_dtype(i);
  if (t != DataType::kInt64 && (int64_only || t != DataType::kInt32)) {
    return ctx.Fail(name, " is ", Name(t), "; ", int64_only ? "int64" : "int32 or int64",
                    " is required");
  }
  const Shape& s = ctx.input_shape(i);
  if (s.rank_known() && s.rank() != 0) {
    return ctx.Fail(name, " has shape ", s.ToString(), "; it must be a scalar");
  }
  return Status::Ok();
}

// The value of scalar input i when it is known.
std::optional<int64_t> ScalarValue(const InferenceContext& ctx, size_t i) {
  auto v = ctx.input_ints(i);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

Status CheckBool(InferenceContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name);
  if (v != 0 && v != 1) return ctx.Fail("attribute '", name, "' must be 0 or 1, got ", v);
  return Status::Ok();
}

// The windows' and MelWeightMatrix's output_datatype: any number type but bool (ONNX's T2/T3).
Result<DataType> OutputDatatype(InferenceContext& ctx) {
  int64_t v = ctx.attr_int("output_datatype");
  DataType t = v >= 0 && v <= 0x7fffffff ? FromOnnx(static_cast<int32_t>(v)) : DataType::kUndefined;
  if (!IsFloat(t) && !IsInteger(t)) {
    return ctx.Fail("attribute 'output_datatype' = ", v,
                    " is not a float or integer TensorProto type (bool and string are not "
                    "allowed)");
  }
  return t;
}

// DFT (opset 17: axis attribute, default 1; opset 20: axis input, default -2). input
// [..., signal dims ..., 1 | 2] (real | complex), the DFT along `axis`; output the same dims with
// dft_length along the axis (floor(dft_length/2) + 1 for a one-sided forward DFT) and a complex
// last dim, or a real one for the one-sided inverse (IRFFT).
Status Dft(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return ctx.Fail("input is ", Name(t), "; a floating-point type is required");
  KILN_RETURN_IF_ERROR(CheckBool(ctx, "inverse"), "");
  KILN_RETURN_IF_ERROR(CheckBool(ctx, "onesided"), "");
  const bool inverse = ctx.attr_int("inverse") != 0;
  const bool onesided = ctx.attr_int("onesided") != 0;
  const bool irfft = onesided && inverse;
  if (ctx.has_input(1)) KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, 1, "dft_length"), "");
  std::optional<int64_t> axis;
  if (ctx.opset() < 20) {
    if (ctx.has_input(2)) return ctx.Fail("takes the axis as an input from opset 20 only");
    axis = ctx.attr_int("axis");
  } else {
    if (ctx.has_attr("axis")) {
      return ctx.Fail("attribute 'axis' was removed in opset 20; axis is input 2");
    }
    if (ctx.has_input(2)) {
      KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, 2, "axis", /*int64_only=*/true), "");
      axis = ScalarValue(ctx, 2);
    } else {
      axis = -2;
    }
  }
  std::optional<int64_t> length;
  if (ctx.has_input(1)) {
    length = ScalarValue(ctx, 1);
    if (length && *length < 1) return ctx.Fail("dft_length is ", *length, "; it must be >= 1");
  }

  const Shape& x = ctx.input_shape(0);
  if (!x.rank_known()) {
    ctx.set_output(0, t, Shape());
    return Status::Ok();
  }
  const int64_t rank = static_cast<int64_t>(x.rank());
  if (rank < 2) {
    return ctx.Fail("input has shape ", x.ToString(),
                    "; rank >= 2 (signal dims and a last dim of 1 or 2) is required");
  }
  const Dim& last = x[rank - 1];
  if (last.known() && last.value != 1 && last.value != 2) {
    return ctx.Fail("input has shape ", x.ToString(),
                    "; its last dim must be 1 (real) or 2 (complex)");
  }
  if (onesided && last.known() && last.value != (inverse ? 2 : 1)) {
    const char* why = inverse ? "a one-sided inverse DFT (IRFFT) takes a complex input (last dim 2)"
                              : "a one-sided DFT (RFFT) takes a real input (last dim 1)";
    return ctx.Fail("input has shape ", x.ToString(), "; ", why);
  }
  std::vector<Dim> out(x.dims());
  out.back() = Dim::Known(irfft ? 1 : 2);
  if (!axis) {  // not known yet: every signal dim may change
    for (int64_t i = 0; i + 1 < rank; ++i) out[i] = Dim::Unknown();
    ctx.set_output(0, t, Shape(std::move(out)));
    return Status::Ok();
  }
  if (*axis < -rank || *axis > rank - 2 || *axis == -1) {
    return ctx.Fail("axis ", *axis, " is out of range for input ", x.ToString(), "; [", -rank,
                    ", -2] or [0, ", rank - 2,
                    "] is required (the last dim holds the complex "
                    "parts)");
  }
  const int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (!ctx.has_input(1) && x[a].known()) {
    // Without dft_length the signal keeps its length; an IRFFT's input holds the n/2 + 1 bins of
    // an even-length signal.
    length = irfft ? 2 * (x[a].value - 1) : x[a].value;
    if (*length < 1) {
      return ctx.Fail("input has shape ", x.ToString(), "; axis ", *axis, " of ", x[a].value,
                      irfft ? " bin(s) makes an IRFFT of length " : " makes a DFT of length ",
                      *length, "; give dft_length >= 1");
    }
  }
  out[a] = length ? Dim::Known(onesided && !inverse ? *length / 2 + 1 : *length) : Dim::Unknown();
  ctx.set_output(0, t, Shape(std::move(out)));
  return Status::Ok();
}

// STFT (opset 17): signal [batch, length, 1 | 2], frame_step, window [frame_length] (optional),
// frame_length (optional); output [batch, frames, bins, 2], frames = 1 + (length -
// frame_length) / frame_step, bins = frame_length / 2 + 1 when onesided, frame_length otherwise.
// Without a window or a frame_length the whole signal is one frame (ONNX's reference).
Status Stft(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return ctx.Fail("signal is ", Name(t), "; a floating-point type is required");
  KILN_RETURN_IF_ERROR(CheckBool(ctx, "onesided"), "");
  const bool onesided = ctx.attr_int("onesided") != 0;
  KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, 1, "frame_step"), "");
  if (ctx.has_input(3)) {
    KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, 3, "frame_length"), "");
    if (ctx.input_dtype(3) != ctx.input_dtype(1)) {
      return ctx.Fail("frame_step is ", Name(ctx.input_dtype(1)), " and frame_length ",
                      Name(ctx.input_dtype(3)), "; they must have the same type");
    }
  }
  std::optional<int64_t> frame_length;
  if (ctx.has_input(2)) {
    if (ctx.input_dtype(2) != t) {
      return ctx.Fail("window is ", Name(ctx.input_dtype(2)), "; it must have the signal's type ",
                      Name(t));
    }
    const Shape& w = ctx.input_shape(2);
    if (w.rank_known() && w.rank() != 1) {
      return ctx.Fail("window has shape ", w.ToString(), "; rank 1 is required");
    }
    if (w.rank_known() && w[0].known()) frame_length = w[0].value;
  }
  if (ctx.has_input(3)) {
    if (auto v = ScalarValue(ctx, 3)) {
      if (frame_length && *frame_length != *v) {
        return ctx.Fail("frame_length is ", *v, " but the window has ", *frame_length,
                        " values; they must agree");
      }
      frame_length = v;
    }
  }
  std::optional<int64_t> step = ScalarValue(ctx, 1);
  if (step && *step < 1) return ctx.Fail("frame_step is ", *step, "; it must be >= 1");

  const Shape& x = ctx.input_shape(0);
  std::vector<Dim> out(4);
  out[3] = Dim::Known(2);
  if (x.rank_known()) {
    if (x.rank() != 3) {
      return ctx.Fail("signal has shape ", x.ToString(),
                      "; rank 3 [batch, length, 1 | 2] is required");
    }
    if (x[2].known() && x[2].value != 1 && x[2].value != 2) {
      return ctx.Fail("signal has shape ", x.ToString(),
                      "; its last dim must be 1 (real) or 2 (complex)");
    }
    if (onesided && x[2].known() && x[2].value == 2) {
      return ctx.Fail("signal has shape ", x.ToString(),
                      "; a one-sided STFT takes a real signal (last dim 1): set onesided=0 for a "
                      "complex one");
    }
    out[0] = x[0];
    if (!ctx.has_input(2) && !ctx.has_input(3) && x[1].known()) frame_length = x[1].value;
    if (frame_length && x[1].known() && (*frame_length < 1 || *frame_length > x[1].value)) {
      return ctx.Fail("frame_length is ", *frame_length, " for signal ", x.ToString(),
                      "; it must be in [1, ", x[1].value, "]");
    }
    if (frame_length && step && x[1].known()) {
      out[1] = Dim::Known(1 + (x[1].value - *frame_length) / *step);
    }
  }
  if (frame_length) {
    if (*frame_length < 1) return ctx.Fail("frame_length is ", *frame_length, "; it must be >= 1");
    out[2] = Dim::Known(onesided ? *frame_length / 2 + 1 : *frame_length);
  }
  ctx.set_output(0, t, Shape(std::move(out)));
  return Status::Ok();
}

// HannWindow, HammingWindow, BlackmanWindow (opset 17): size (int scalar) -> [size] of type
// output_datatype.
Status Window(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, 0, "size"), "");
  KILN_RETURN_IF_ERROR(CheckBool(ctx, "periodic"), "");
  KILN_ASSIGN_OR_RETURN(DataType t, OutputDatatype(ctx));
  Dim n;
  if (auto size = ScalarValue(ctx, 0)) {
    if (*size < 1) return ctx.Fail("size is ", *size, "; it must be >= 1");
    n = Dim::Known(*size);
  }
  ctx.set_output(0, t, Shape({n}));
  return Status::Ok();
}

// MelWeightMatrix (opset 17): num_mel_bins, dft_length, sample_rate (int scalars of one type),
// lower_edge_hertz, upper_edge_hertz (float scalars of one type) -> [dft_length / 2 + 1,
// num_mel_bins] of type output_datatype.
Status MelWeightMatrix(InferenceContext& ctx) {
  static const char* const kNames[] = {"num_mel_bins", "dft_length", "sample_rate",
                                       "lower_edge_hertz", "upper_edge_hertz"};
  for (size_t i = 0; i < 3; ++i) {
    KILN_RETURN_IF_ERROR(CheckIntScalar(ctx, i, kNames[i]), "");
    if (ctx.input_dtype(i) != ctx.input_dtype(0)) {
      return ctx.Fail(kNames[0], " is ", Name(ctx.input_dtype(0)), " and ", kNames[i], " ",
                      Name(ctx.input_dtype(i)), "; they must have the same type");
    }
  }
  for (size_t i = 3; i < 5; ++i) {
    DataType f = ctx.input_dtype(i);
    if (!IsFloat(f)) return ctx.Fail(kNames[i], " is ", Name(f), "; a float type is required");
    if (f != ctx.input_dtype(3)) {
      return ctx.Fail(kNames[3], " is ", Name(ctx.input_dtype(3)), " and ", kNames[i], " ", Name(f),
                      "; they must have the same type");
    }
    const Shape& s = ctx.input_shape(i);
    if (s.rank_known() && s.rank() != 0) {
      return ctx.Fail(kNames[i], " has shape ", s.ToString(), "; it must be a scalar");
    }
  }
  KILN_ASSIGN_OR_RETURN(DataType t, OutputDatatype(ctx));
  std::vector<Dim> out(2);
  for (size_t i = 0; i < 3; ++i) {
    auto v = ScalarValue(ctx, i);
    if (!v) continue;
    if (*v < 1) return ctx.Fail(kNames[i], " is ", *v, "; it must be >= 1");
    if (i == 0) out[1] = Dim::Known(*v);
    if (i == 1) out[0] = Dim::Known(*v / 2 + 1);
  }
  ctx.set_output(0, t, Shape(std::move(out)));
  return Status::Ok();
}

}  // namespace

void RegisterSignalOps(OpRegistry& r) {
  constexpr const char* kFamily = "signal";
  r.Register(MakeSchema("DFT", 17, 1, 3, 1, 1, kFamily, Dft)
                 .Attrs({Attr("inverse", 0), Attr("onesided", 0), Attr("axis", 1).Until(19)}));
  r.Register(MakeSchema("STFT", 17, 2, 4, 1, 1, kFamily, Stft).Attrs({Attr("onesided", 1)}));
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    r.Register(MakeSchema(op, 17, 1, 1, 1, 1, kFamily, Window)
                   .Attrs({Attr("periodic", 1), Attr("output_datatype", 1)}));
  }
  r.Register(MakeSchema("MelWeightMatrix", 17, 5, 5, 1, 1, kFamily, MelWeightMatrix)
                 .Attrs({Attr("output_datatype", 1)}));
}

}  // namespace kiln::ir

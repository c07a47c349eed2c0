// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's convolution, pooling, batch normalisation and matrix operators. Kiln's ops are NCHW:
// an NHWC tensor (by its desc's format, or the data_format attribute where the desc says ND)
// is transposed in and out, and the compiler's layout passes remove what they can.
#include "compiler/cann_ops_build.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using Ctx = CannOpContext;

const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};

// Whether input 0 is NHWC: its desc's format when that is NCHW or NHWC, otherwise the
// data_format attribute (`dflt` when unset).
Result<bool> InputIsNhwc(Ctx& c, const char* dflt) {
  const int32_t f = c.desc().inputs.empty() ? kAclFormatNd : c.desc().inputs[0].format;
  if (f == kAclFormatNchw) return false;
  if (f == kAclFormatNhwc) return true;
  Result<std::string> df = c.String("data_format", std::string(dflt));
  if (!df.ok()) return df.status();
  if (*df != "NCHW" && *df != "NHWC") return c.Fail("data_format must be NCHW or NHWC, not ", *df);
  return *df == "NHWC";
}

// Output 0 in the layout its desc declares (NCHW unless it says NHWC; ND follows the input).
Result<ir::Value*> OutputLayout(Ctx& c, ir::Value* nchw, bool input_nhwc) {
  const int32_t f = c.OutFormat(0);
  const bool nhwc = f == kAclFormatNhwc || (f != kAclFormatNchw && input_nhwc);
  return nhwc ? c.Transpose(nchw, kToNhwc) : nchw;
}

// The H and W entries of a 4-value list in x's layout (strides, dilations, ksize).
Result<std::vector<int64_t>> HwOf(Ctx& c, const char* name, const std::vector<int64_t>& v,
                                  bool nhwc) {
  if (v.size() != 4) return c.Fail("attribute '", name, "' must have 4 values, not ", v.size());
  return nhwc ? std::vector<int64_t>{v[1], v[2]} : std::vector<int64_t>{v[2], v[3]};
}

// CANN's pads [top, bottom, left, right] as ONNX's [top, left, bottom, right].
Result<std::vector<int64_t>> OnnxPads(Ctx& c, const std::vector<int64_t>& p) {
  if (p.size() != 4) return c.Fail("attribute 'pads' must have 4 values, not ", p.size());
  return std::vector<int64_t>{p[0], p[2], p[1], p[3]};
}

Status Conv2D(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * w, c.In(1, "filter"));
  if (c.OptionalIn(3) != nullptr) {
    return c.Fail("input 3 (offset_w, int8 weights) is not supported: leave it out");
  }
  KILN_ASSIGN_OR_RETURN(bool nhwc, InputIsNhwc(c, "NHWC"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, c.Ints("strides"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pads, c.Ints("pads"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                        c.Ints("dilations", std::vector<int64_t>{1, 1, 1, 1}));
  // "groups" in CANN's prototype; onnxruntime's CANN provider sets "group".
  KILN_ASSIGN_OR_RETURN(int64_t groups, c.Int("groups", 1));
  if (c.desc().attrs.count("group")) {
    KILN_ASSIGN_OR_RETURN(groups, c.Int("group"));
  }
  KILN_ASSIGN_OR_RETURN(std::string auto_pad, c.String("auto_pad", std::string("NOTSET")));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, HwOf(c, "strides", strides, nhwc));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> d, HwOf(c, "dilations", dilations, nhwc));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> p, OnnxPads(c, pads));
  KILN_ASSIGN_OR_RETURN(x, nhwc ? c.Transpose(x, kToNchw) : x);
  // The filter as OIHW: NCHW (and ND) already is; HWCN and NHWC are transposed.
  const int32_t wf = c.desc().inputs[1].format;
  if (wf == kAclFormatHwcn) {
    KILN_ASSIGN_OR_RETURN(w, c.Transpose(w, {3, 2, 0, 1}));
  }
  if (wf == kAclFormatNhwc) {
    KILN_ASSIGN_OR_RETURN(w, c.Transpose(w, kToNchw));
  }
  std::vector<ir::Value*> ins = {x, w};
  if (ir::Value* b = c.OptionalIn(2)) ins.push_back(b);
  ir::AttrMap attrs = {{"strides", s}, {"dilations", d}, {"group", groups}};
  if (auto_pad == "NOTSET") {
    attrs["pads"] = p;
  } else {
    attrs["auto_pad"] = auto_pad;
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Conv", ins, std::move(attrs)));
  KILN_ASSIGN_OR_RETURN(y, OutputLayout(c, y, nhwc));
  return c.Output(y);
}

// MaxPoolV3 / AvgPoolV2: ksize and strides in x's layout, pads [top, bottom, left, right] with
// padding_mode CALCULATED (SAME, VALID: ONNX's auto_pad), global_pooling, ceil_mode, and for
// AvgPoolV2 `exclusive` (padding not counted).
Status Pool(Ctx& c, const char* onnx) {
  const bool avg = std::string(onnx) == "AveragePool";
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(bool nhwc, InputIsNhwc(c, "NCHW"));
  KILN_ASSIGN_OR_RETURN(bool global, c.Bool("global_pooling", false));
  KILN_ASSIGN_OR_RETURN(x, nhwc ? c.Transpose(x, kToNchw) : x);
  ir::Value* y = nullptr;
  if (global) {
    KILN_ASSIGN_OR_RETURN(y, c.Node(avg ? "GlobalAveragePool" : "GlobalMaxPool", {x}));
  } else {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> ksize, c.Ints("ksize"));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, c.Ints("strides"));
    KILN_ASSIGN_OR_RETURN(std::string mode, c.String("padding_mode", std::string("CALCULATED")));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                          c.Ints("pads", std::vector<int64_t>{0, 0, 0, 0}));
    KILN_ASSIGN_OR_RETURN(bool ceil, c.Bool("ceil_mode", false));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> k, HwOf(c, "ksize", ksize, nhwc));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, HwOf(c, "strides", strides, nhwc));
    ir::AttrMap attrs = {{"kernel_shape", k}, {"strides", s}, {"ceil_mode", int64_t{ceil}}};
    if (mode == "CALCULATED") {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> p, OnnxPads(c, pads));
      attrs["pads"] = p;
    } else if (mode == "SAME") {
      attrs["auto_pad"] = std::string("SAME_UPPER");
    } else if (mode == "VALID") {
      attrs["auto_pad"] = std::string("VALID");
    } else {
      return c.Fail("padding_mode must be CALCULATED, SAME or VALID, not ", mode);
    }
    if (avg) {
      KILN_ASSIGN_OR_RETURN(bool exclusive, c.Bool("exclusive", true));
      attrs["count_include_pad"] = int64_t{!exclusive};
    }
    KILN_ASSIGN_OR_RETURN(y, c.Node(onnx, {x}, std::move(attrs)));
  }
  KILN_ASSIGN_OR_RETURN(y, OutputLayout(c, y, nhwc));
  return c.Output(y);
}

// BatchNorm for inference (is_training false): y from the given mean and variance; the batch
// statistics outputs repeat them, as CANN's inference mode does, and a sixth output
// (reserve_space_3) is zeros.
Status BatchNorm(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * scale, c.In(1, "scale"));
  KILN_ASSIGN_OR_RETURN(ir::Value * offset, c.In(2, "offset"));
  KILN_ASSIGN_OR_RETURN(ir::Value * mean, c.In(3, "mean"));
  KILN_ASSIGN_OR_RETURN(ir::Value * var, c.In(4, "variance"));
  KILN_ASSIGN_OR_RETURN(float eps, c.Float("epsilon", 1e-4f));
  KILN_ASSIGN_OR_RETURN(bool training, c.Bool("is_training", true));
  if (training) {
    return c.Fail(
        "is_training is true (the prototype's default): Kiln runs batch normalisation for "
        "inference only; set is_training false");
  }
  KILN_ASSIGN_OR_RETURN(bool nhwc, InputIsNhwc(c, "NHWC"));
  KILN_ASSIGN_OR_RETURN(x, nhwc ? c.Transpose(x, kToNchw) : x);
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("BatchNormalization", {x, scale, offset, mean, var},
                                              {{"epsilon", eps}}));
  KILN_ASSIGN_OR_RETURN(y, OutputLayout(c, y, nhwc));
  c.outputs = {y};
  const size_t n = c.desc().outputs.size();
  for (size_t i = 1; i < n && i < 5; ++i) {
    KILN_ASSIGN_OR_RETURN(ir::Value * s, c.Node("Identity", {i % 2 == 1 ? mean : var}));
    c.outputs.push_back(s);
  }
  if (n == 6) {
    const auto& dims = c.desc().outputs[5].dims;
    for (int64_t d : dims) {
      if (d < 0) return c.Fail("output 5 (reserve_space_3) must have static dims");
    }
    ir::Value* shape = c.Int64s(dims);
    KILN_ASSIGN_OR_RETURN(ir::Value * z,
                          c.Node("Expand", {c.Scalar(DataType::kFloat32, 0), shape}));
    if (c.OutType(5) != DataType::kFloat32) {
      KILN_ASSIGN_OR_RETURN(z, c.Node("Cast", {z}, {{"to", static_cast<int64_t>(c.OutType(5))}}));
    }
    c.outputs.push_back(z);
  }
  if (n > 6) return c.Fail("has at most 6 outputs, the call declares ", n);
  return Status::Ok();
}

// x with its last two dims swapped when `transpose` (rank from input `i`'s desc).
Result<ir::Value*> SwapLast(Ctx& c, ir::Value* x, size_t i, bool transpose) {
  if (!transpose) return x;
  const int64_t r = c.InRank(i);
  if (r < 2) return c.Fail("input ", i, " must have rank >= 2 to be transposed");
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int64_t k = 0; k < r; ++k) perm[static_cast<size_t>(k)] = k;
  std::swap(perm[static_cast<size_t>(r - 2)], perm[static_cast<size_t>(r - 1)]);
  return c.Transpose(x, perm);
}

// MatMul, MatMulV2 (transpose_x1/x2), BatchMatMul, BatchMatMulV2 (adj_x1/x2; adj_x/adj_y in
// old prototypes), with the optional bias.
Status MatMul(Ctx& c, const char* onnx) {
  const bool batch = std::string(onnx) == "batch";
  KILN_ASSIGN_OR_RETURN(ir::Value * a, c.In(0, "x1"));
  KILN_ASSIGN_OR_RETURN(ir::Value * b, c.In(1, "x2"));
  if (c.OptionalIn(3) != nullptr) {
    return c.Fail("input 3 (offset_w, int8 weights) is not supported: leave it out");
  }
  bool ta = false, tb = false;
  if (batch) {
    const bool old = c.desc().attrs.count("adj_x") || c.desc().attrs.count("adj_y");
    KILN_ASSIGN_OR_RETURN(ta, c.Bool(old ? "adj_x" : "adj_x1", false));
    KILN_ASSIGN_OR_RETURN(tb, c.Bool(old ? "adj_y" : "adj_x2", false));
  } else {
    KILN_ASSIGN_OR_RETURN(ta, c.Bool("transpose_x1", false));
    KILN_ASSIGN_OR_RETURN(tb, c.Bool("transpose_x2", false));
  }
  KILN_ASSIGN_OR_RETURN(a, SwapLast(c, a, 0, ta));
  KILN_ASSIGN_OR_RETURN(b, SwapLast(c, b, 1, tb));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("MatMul", {a, b}));
  if (ir::Value* bias = c.OptionalIn(2)) {
    KILN_ASSIGN_OR_RETURN(y, c.Node("Add", {y, bias}));
  }
  return c.Output(y);
}

Result<ir::Value*> CastTo(Ctx& c, ir::Value* v, DataType from, DataType to) {
  if (from == to) return v;
  return c.Node("Cast", {v}, {{"to", static_cast<int64_t>(to)}});
}

// GEMM: y = alpha·op(a)·op(b) + beta·c, alpha and beta tensors of c's type ([] or [1]). Float
// inputs multiply in float32; int8 ones in int32 (MatMulInteger). The sum is formed in float32
// (int32 for an int32 output) and cast to the output type.
Status Gemm(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * a, c.In(0, "a"));
  KILN_ASSIGN_OR_RETURN(ir::Value * b, c.In(1, "b"));
  KILN_ASSIGN_OR_RETURN(ir::Value * cc, c.In(2, "c"));
  KILN_ASSIGN_OR_RETURN(ir::Value * alpha, c.In(3, "alpha"));
  KILN_ASSIGN_OR_RETURN(ir::Value * beta, c.In(4, "beta"));
  KILN_ASSIGN_OR_RETURN(bool ta, c.Bool("transpose_a", false));
  KILN_ASSIGN_OR_RETURN(bool tb, c.Bool("transpose_b", false));
  const DataType at = c.InType(0), bt = c.InType(1), out = c.OutType(0);
  if (at != bt)
    return c.Fail("a and b must have one type, not ", ir::Name(at), " and ", ir::Name(bt));
  KILN_ASSIGN_OR_RETURN(a, SwapLast(c, a, 0, ta));
  KILN_ASSIGN_OR_RETURN(b, SwapLast(c, b, 1, tb));
  const DataType acc = out == DataType::kInt32 ? DataType::kInt32 : DataType::kFloat32;
  ir::Value* p = nullptr;
  if (at == DataType::kInt8 || at == DataType::kUint8) {
    KILN_ASSIGN_OR_RETURN(p, c.Node("MatMulInteger", {a, b}));
    KILN_ASSIGN_OR_RETURN(p, CastTo(c, p, DataType::kInt32, acc));
  } else if (ir::IsFloat(at)) {
    if (acc != DataType::kFloat32) {
      return c.Fail("a ", ir::Name(at), " product cannot be summed into ", ir::Name(out));
    }
    KILN_ASSIGN_OR_RETURN(a, CastTo(c, a, at, acc));
    KILN_ASSIGN_OR_RETURN(b, CastTo(c, b, bt, acc));
    KILN_ASSIGN_OR_RETURN(p, c.Node("MatMul", {a, b}));
  } else {
    return c.Fail("a and b must be float16, float32 or int8, not ", ir::Name(at));
  }
  KILN_ASSIGN_OR_RETURN(alpha, CastTo(c, alpha, c.InType(3), acc));
  KILN_ASSIGN_OR_RETURN(beta, CastTo(c, beta, c.InType(4), acc));
  KILN_ASSIGN_OR_RETURN(cc, CastTo(c, cc, c.InType(2), acc));
  KILN_ASSIGN_OR_RETURN(ir::Value * ap, c.Node("Mul", {alpha, p}));
  KILN_ASSIGN_OR_RETURN(ir::Value * bc, c.Node("Mul", {beta, cc}));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Add", {ap, bc}));
  KILN_ASSIGN_OR_RETURN(y, CastTo(c, y, acc, out));
  return c.Output(y);
}

}  // namespace

void AddNnOps(std::vector<CannOp>& ops) {
  ops.push_back({"Conv2D", "x, filter, bias?, offset_w? -> y",
                 "strides list_int (4, required), pads list_int [top, bottom, left, right] "
                 "(required), dilations list_int [1,1,1,1], groups int 1 (or group), "
                 "data_format string NHWC, auto_pad string NOTSET, offset_x int",
                 "Conv (NHWC / HWCN transposed to NCHW / OIHW)", Conv2D});
  ops.push_back({"MaxPoolV3", "x -> y",
                 "ksize, strides list_int (4, required), padding_mode string CALCULATED, pads "
                 "list_int [0,0,0,0], data_format string NCHW, global_pooling bool false, "
                 "ceil_mode bool false",
                 "MaxPool / GlobalMaxPool", Pool, "MaxPool"});
  ops.push_back({"AvgPoolV2", "x -> y", "as MaxPoolV3, plus exclusive bool true",
                 "AveragePool (count_include_pad = !exclusive) / GlobalAveragePool", Pool,
                 "AveragePool"});
  ops.push_back({"BatchNorm",
                 "x, scale, offset, mean, variance -> y, batch_mean, batch_variance, "
                 "reserve_space_1, reserve_space_2, reserve_space_3?",
                 "epsilon float 1e-4, data_format string NHWC, is_training bool true (must be "
                 "false)",
                 "BatchNormalization; the statistics outputs repeat mean and variance", BatchNorm});
  ops.push_back({"MatMul", "x1, x2, bias? -> y", "transpose_x1 bool false, transpose_x2 bool false",
                 "MatMul (+ Add bias)", MatMul, "matmul"});
  ops.push_back({"MatMulV2", "x1, x2, bias?, offset_w? -> y",
                 "transpose_x1 bool false, transpose_x2 bool false, offset_x int",
                 "MatMul (+ Add bias)", MatMul, "matmul"});
  ops.push_back({"BatchMatMul", "x1, x2 -> y", "adj_x1 bool false, adj_x2 bool false",
                 "MatMul over the last two dims", MatMul, "batch"});
  ops.push_back({"BatchMatMulV2", "x1, x2, bias?, offset_w? -> y",
                 "adj_x1 bool false, adj_x2 bool false, offset_x int",
                 "MatMul over the last two dims (+ Add bias)", MatMul, "batch"});
  ops.push_back({"GEMM", "a, b, c, alpha, beta -> y",
                 "transpose_a bool false, transpose_b bool false",
                 "alpha·MatMul(a, b) + beta·c (MatMulInteger for int8)", Gemm});
}

}  // namespace kiln::compiler

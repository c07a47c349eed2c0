// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA element-wise kernels' host side: which ops, the type check at Prepare (float32; the
// binary arithmetic also int64 and int32; other types are declined, and so refused at load on
// the GPU), and each run's broadcast strides.
#include <cuda_runtime_api.h>

#include <memory>
#include <utility>

#include "backends/cuda/kernels/elementwise_launch.h"
#include "backends/cuda/kernels/register.h"
#include "hal/execution.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

class UnaryKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  explicit UnaryKernel(UnaryOp op) : op_(op) {}
  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    const int64_t n = kernels::NumElements(y->dims);
    return Launched(LaunchUnary(op_, static_cast<const float*>(x->data),
                                static_cast<float*>(y->data), n, StreamOf(ctx)),
                    "launching an element-wise kernel");
  }

 private:
  UnaryOp op_;
};

// Binary arithmetic; with more inputs (Sum, and Max and Min of several) the output takes
// op(x0, x1), then op(output, xi) for each further input.
class BinaryKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  BinaryKernel(BinaryOp op, BinaryType type) : op_(op), type_(type) {}
  Status Run(KernelContext& ctx) const override {
    TensorView* y = ctx.output(0);
    const TensorView* first = ctx.input(0);
    if (ctx.num_inputs() == 1) {  // a variadic op of one input: a copy
      return Launched(static_cast<int>(cudaMemcpyAsync(y->data, first->data, y->bytes(),
                                                       cudaMemcpyDeviceToDevice,
                                                       static_cast<cudaStream_t>(StreamOf(ctx)))),
                      "copying the one input");
    }
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const TensorView* a = i == 1 ? first : y;
      const TensorView* b = ctx.input(i);
      if (i > 1 && b->data == y->data) {
        return Error(code::kInternalError, "input ", i, " shares the output's memory");
      }
      KILN_RETURN_IF_ERROR(Step(ctx, *a, *b, *y), "");
    }
    return Status::Ok();
  }

 private:
  Status Step(KernelContext& ctx, const TensorView& a, const TensorView& b, TensorView& y) const {
    const int64_t n = kernels::NumElements(y.dims);
    BroadcastShape shape;
    const bool same = a.dims == y.dims && b.dims == y.dims;
    if (!same && !MakeBroadcastShape(a.dims.data(), static_cast<int>(a.dims.size()), b.dims.data(),
                                     static_cast<int>(b.dims.size()), y.dims.data(),
                                     static_cast<int>(y.dims.size()), &shape)) {
      return Error(code::kFeatureUnsupported, "the CUDA element-wise kernels broadcast up to ",
                   kMaxBroadcastRank, " dims, this output has ", y.dims.size());
    }
    return Launched(LaunchBinary(op_, type_, a.data, b.data, y.data, n, shape, same, StreamOf(ctx)),
                    "launching an element-wise kernel");
  }

  BinaryOp op_;
  BinaryType type_;
};

// The strides of `in` (right-aligned against `out`) per output dim: 0 where it broadcasts.
bool Strides(const int64_t* in, int k, const int64_t* out, int r, int64_t* strides) {
  if (k > r) return false;
  int64_t stride = 1;
  for (int d = r - 1; d >= 0; --d) {
    const int from_end = r - 1 - d;
    if (from_end >= k) {
      strides[d] = 0;
      continue;
    }
    const int64_t dim = in[k - 1 - from_end];
    strides[d] = dim == 1 && out[d] != 1 ? 0 : stride;
    stride *= dim;
  }
  return true;
}

// Float32 inputs (two, or one or more for a variadic op), and an output of at most
// kMaxBroadcastRank dims where its rank is known at load (an unknown rank is checked when the
// kernel runs).
Result<std::unique_ptr<Kernel>> MakeBinary(const NodeDef& def, BinaryOp op, bool variadic) {
  // Every input and the output of one type: float32, or an integer the kernels take.
  const DataType type = def.output_types.empty() ? DataType::kUndefined : def.output_types[0];
  BinaryType binary = BinaryType::kFloat32;
  if (type == DataType::kInt64 && op != BinaryOp::kPow) {
    binary = BinaryType::kInt64;
  } else if (type == DataType::kInt32 && op != BinaryOp::kPow) {
    binary = BinaryType::kInt32;
  } else {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  }
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && def.input_types[i] != type) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA kernel takes inputs of its output's ",
                      "type (", ir::Name(type), "); input ", i, " is ",
                      ir::Name(def.input_types[i]));
    }
  }
  if (variadic ? def.num_inputs() < 1 : def.num_inputs() != 2) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA kernel takes ",
                    variadic ? "one or more" : "two", " inputs, this node has ", def.num_inputs());
  }
  if (def.output_ranked(0) && def.output_dims[0].size() > size_t{kMaxBroadcastRank}) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA kernel broadcasts up to ",
                    kMaxBroadcastRank, " dims, this output has ", def.output_dims[0].size());
  }
  return std::unique_ptr<Kernel>(std::make_unique<BinaryKernel>(op, binary));
}

}  // namespace

bool MakeBroadcastShape(const int64_t* a, int a_rank, const int64_t* b, int b_rank,
                        const int64_t* out, int out_rank, BroadcastShape* shape) {
  if (out_rank > kMaxBroadcastRank || !Strides(a, a_rank, out, out_rank, shape->a_strides) ||
      !Strides(b, b_rank, out, out_rank, shape->b_strides)) {
    return false;
  }
  shape->rank = out_rank;
  for (int d = 0; d < out_rank; ++d) shape->dims[d] = out[d];
  return true;
}

void RegisterCudaElementwiseKernels(kernels::KernelRegistry& registry) {
  static const std::pair<const char*, UnaryOp> kUnary[] = {
      {"Relu", UnaryOp::kRelu},
      {"Sigmoid", UnaryOp::kSigmoid},
      {"Tanh", UnaryOp::kTanh},
      {"Exp", UnaryOp::kExp},
      {"Log", UnaryOp::kLog},
      {"Neg", UnaryOp::kNeg},
      {"Abs", UnaryOp::kAbs},
      {"Sqrt", UnaryOp::kSqrt},
      {"Reciprocal", UnaryOp::kReciprocal},
      {"Floor", UnaryOp::kFloor},
      {"Ceil", UnaryOp::kCeil},
      {"Erf", UnaryOp::kErf},
      {"Softplus", UnaryOp::kSoftplus},
  };
  for (const auto& [name, op] : kUnary) {
    registry.Register(kCudaBackend, "", name,
                      [op = op](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                        KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
                        return std::unique_ptr<Kernel>(std::make_unique<UnaryKernel>(op));
                      });
  }
  struct Binary {
    const char* name;
    BinaryOp op;
    bool variadic;
  };
  static const Binary kBinary[] = {
      {"Add", BinaryOp::kAdd, false}, {"Sub", BinaryOp::kSub, false},
      {"Mul", BinaryOp::kMul, false}, {"Div", BinaryOp::kDiv, false},
      {"Max", BinaryOp::kMax, true},  {"Min", BinaryOp::kMin, true},
      {"Sum", BinaryOp::kAdd, true},  {"Pow", BinaryOp::kPow, false},
  };
  for (const Binary& b : kBinary) {
    registry.Register(kCudaBackend, "", b.name,
                      [op = b.op, variadic = b.variadic](const NodeDef& def) {
                        return MakeBinary(def, op, variadic);
                      });
  }
}

}  // namespace kiln::cuda

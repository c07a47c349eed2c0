// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of rnn.cu: LSTM (every opset: 7, 14, 22) in float32 with the reference kernel's
// semantics — forward, reverse and bidirectional, both layouts, sequence_lens, initial states,
// peepholes, input_forget and clip. Activations other than the default (Sigmoid, Tanh, Tanh) are
// declined at load. W, R, B and P are read as the run's device tensors (nothing is packed at
// load, nothing read on the host at run time), and sequence_lens on the device; so a run only
// enqueues launches and is Replayable. A constant sequence_lens out of range is refused at load
// (the reference refuses it at run time); a computed one is clamped into [0, seq] on the device.
//
// Cost model: one launch per time step (both directions in it), a warp per (direction, batch
// row, hidden unit) doing its 4 · (input + hidden) multiply-adds, then the unit's cell update in
// the same warp. That is sized for Silero VAD (one step, batch 1, 128 units) and small-batch
// LSTMs, whose steps are bound by launch latency and reading W and R, not by arithmetic: a
// sequence of T steps is T launches (T graph nodes once recorded). The speed step for long
// sequences and large batches is a library path: X · W^T for every step at once as one cuBLASLt
// GEMM ahead of the recurrence and R · H per step as a GEMM, or cuDNN's RNN API
// (cudnnRNNForward), which does both.
#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/kernels/register.h"
#include "backends/cuda/kernels/rnn_launch.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

// ONNX's LSTM inputs and outputs.
enum Input : size_t { kX, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kP };
constexpr size_t kOutputs = 3;  // Y, Y_h, Y_c

bool BatchFirst(const NodeDef& def) { return def.attr_int("layout") != 0; }  // 0 before 14

class LstmKernel final : public Kernel {
 public:
  explicit LstmKernel(const NodeDef& def) {
    const std::string direction = def.attr_string("direction");
    dirs_ = direction == "bidirectional" ? 2 : 1;
    reverse_ = direction == "reverse";
    batch_first_ = BatchFirst(def);
    input_forget_ = def.attr_int("input_forget") != 0;
    has_clip_ = def.has_attr("clip");
    if (has_clip_) clip_ = static_cast<float>(def.attr_float("clip"));
    for (size_t i = 0; i < kOutputs; ++i) used_[i] = def.output_used(i);
  }
  // Enqueues its launches only, with arguments fixed by the bound tensors (kernels/kernel.h).
  bool Replayable() const override { return true; }

  Status Run(KernelContext& ctx) const override {
    auto input = [&](size_t i) -> const float* {
      const TensorView* t = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
      return t != nullptr ? static_cast<const float*>(t->data) : nullptr;
    };
    // An unused output is not written, even where the context binds one.
    auto output = [&](size_t i) -> float* {
      TensorView* t = used_[i] && i < ctx.num_outputs() ? ctx.output(i) : nullptr;
      return t != nullptr ? static_cast<float*>(t->data) : nullptr;
    };
    const TensorView* x = ctx.input(kX);
    const TensorView* r = ctx.input(kR);
    const TensorView* lens = kSequenceLens < ctx.num_inputs() ? ctx.input(kSequenceLens) : nullptr;
    LstmArgs a;
    a.x = input(kX);
    a.w = input(kW);
    a.r = input(kR);
    a.bias = input(kB);
    a.lens = lens != nullptr ? static_cast<const int32_t*>(lens->data) : nullptr;
    a.h0 = input(kInitialH);
    a.c0 = input(kInitialC);
    a.p = input(kP);
    a.y = output(0);
    a.y_h = output(1);
    a.y_c = output(2);
    a.seq = x->dims[batch_first_ ? 1 : 0];
    a.batch = x->dims[batch_first_ ? 0 : 1];
    a.input = x->dims[2];
    a.hidden = r->dims[2];
    a.dirs = dirs_;
    a.reverse = reverse_;
    a.batch_first = batch_first_;
    a.input_forget = input_forget_;
    a.has_clip = has_clip_;
    a.clip = clip_;
    RunScratch scratch(
        ctx,
        static_cast<size_t>(LstmScratchFloats(a.seq, a.dirs, a.batch, a.hidden)) * sizeof(float));
    if (!scratch.ok()) {
      return Error(code::kRtMemoryAllocation, "no device memory for the LSTM's states");
    }
    a.scratch = static_cast<float*>(scratch.data());
    return Launched(LaunchLstm(a, StreamOf(ctx)), "launching an LSTM");
  }

 private:
  int64_t dirs_ = 1;
  bool reverse_ = false, batch_first_ = false, input_forget_ = false, has_clip_ = false;
  float clip_ = 0;
  bool used_[kOutputs] = {};
};

// Float32 data and states (sequence_lens is int32, the definition's rule).
Status RequireFloatData(const NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (i != kSequenceLens && def.input_given(i) && def.input_types[i] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA LSTM takes float32 only (input ", i,
                      " is ", ir::Name(def.input_types[i]), ")");
    }
  }
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    if (def.output_used(i) && def.output_types[i] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA LSTM writes float32 only");
    }
  }
  return Status::Ok();
}

// The activations as the reference reads them (one list of 3 serves both directions; a second
// list is unused with one direction) must be Sigmoid, Tanh, Tanh, in any case.
Status RequireDefaultActivations(const NodeDef& def) {
  const std::vector<std::string> given = def.attr_strings("activations");
  if (given.empty()) return Status::Ok();
  const size_t want = def.attr_string("direction") == "bidirectional" ? 6 : 3;
  static const char* const kDefault[] = {"sigmoid", "tanh", "tanh"};
  bool ok = true;
  for (size_t k = 0; k < want; ++k) {
    std::string lower = given[k % given.size()];
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    ok = ok && lower == kDefault[k % 3];
  }
  if (ok) return Status::Ok();
  std::string names;
  for (const std::string& n : given) names += (names.empty() ? "" : ", ") + n;
  return def.Fail(code::kFeatureUnsupported, "the CUDA LSTM computes the default activations ",
                  "(Sigmoid, Tanh, Tanh) only, not ", names);
}

// A constant sequence_lens is checked here as the reference checks it at run time (a computed
// one is clamped on the device: reading it on the host would cost a synchronising copy a run).
Status CheckConstantLengths(const NodeDef& def) {
  const TensorView* lens = def.constant(kSequenceLens);
  if (lens == nullptr || !def.input_given(kSequenceLens)) return Status::Ok();
  int64_t seq = -1;
  if (def.input_ranked(kX) && def.input_dims[kX].size() == 3) {
    seq = def.input_dims[kX][BatchFirst(def) ? 1 : 0];
  }
  const std::vector<int64_t> values = kernels::ReadInts(*lens);
  for (size_t b = 0; b < values.size(); ++b) {
    if (values[b] < 0) {
      return def.Fail(code::kInvalidParam, "sequence_lens[", b, "] = ", values[b], " is negative");
    }
    if (seq >= 0 && values[b] > seq) {
      return def.Fail(code::kInvalidParam, "sequence_lens[", b, "] = ", values[b],
                      " is out of range [0, ", seq, "]");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireFloatData(def), "");
  KILN_RETURN_IF_ERROR(RequireDefaultActivations(def), "");
  KILN_RETURN_IF_ERROR(CheckConstantLengths(def), "");
  return std::unique_ptr<Kernel>(std::make_unique<LstmKernel>(def));
}

}  // namespace

void RegisterCudaRnnKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "LSTM", Prepare);
}

}  // namespace kiln::cuda

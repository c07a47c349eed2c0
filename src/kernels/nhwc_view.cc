// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/nhwc_view.h"

#include <cstring>
#include <utility>
#include <vector>

#include "ir/op_schema.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// Whether input `i` of `op` holds one value per axis (a Resize's roi, in two halves, scales and
// sizes), to be given in the stored order too.
bool PerAxisInput(const std::string& op, size_t i) { return op == "Resize" && i >= 1 && i <= 3; }

// Whether input `i` of `op` counts channels (a Split's sizes), to be given in channel blocks
// when the tensors are stored in them.
bool ChannelCountInput(const std::string& op, size_t i) { return op == "Split" && i == 1; }

// Element k of a vector of int32, int64, float32 or float64 values (what a Split's sizes and a
// Resize's roi, scales and sizes come as) into *out; false for another type. Reads in place: the
// run allocates nothing.
bool ElementAt(const TensorView& v, int64_t k, double* out) {
  const auto* p = static_cast<const uint8_t*>(v.data);
  switch (v.dtype) {
    case DataType::kInt32: {
      int32_t x;
      std::memcpy(&x, p + k * 4, 4);
      *out = x;
      return true;
    }
    case DataType::kInt64: {
      int64_t x;
      std::memcpy(&x, p + k * 8, 8);
      *out = static_cast<double>(x);
      return true;
    }
    case DataType::kFloat32: {
      float x;
      std::memcpy(&x, p + k * 4, 4);
      *out = x;
      return true;
    }
    case DataType::kFloat64:
      std::memcpy(out, p + k * 8, 8);
      return true;
    default:
      return false;
  }
}

// `values` (count of them) into `bytes` as `dtype` (one ElementAt reads), and `out` viewing them.
void WriteValues(const double* values, size_t count, DataType dtype, std::vector<uint8_t>* bytes,
                 TensorView* out) {
  const size_t es = ir::SizeOf(dtype);
  bytes->resize(count * es);
  for (size_t k = 0; k < count; ++k) {
    uint8_t* at = bytes->data() + k * es;
    if (dtype == DataType::kInt32) {
      const auto x = static_cast<int32_t>(values[k]);
      std::memcpy(at, &x, es);
    } else if (dtype == DataType::kInt64) {
      const auto x = static_cast<int64_t>(values[k]);
      std::memcpy(at, &x, es);
    } else if (dtype == DataType::kFloat32) {
      const auto x = static_cast<float>(values[k]);
      std::memcpy(at, &x, es);
    } else {
      std::memcpy(at, &values[k], es);
    }
  }
  out->dtype = dtype;
  out->dims = {static_cast<int64_t>(count)};
  out->data = bytes->data();
}

// `v`'s channel counts in blocks of `block` into `bytes` (v's type), and `out` viewing them; an
// error when one is not a multiple of the block (the definition checked the outputs' channels,
// which a computed sizes input might not give).
Status BlockCounts(const TensorView& v, int64_t block, std::vector<uint8_t>* bytes,
                   TensorView* out) {
  const int64_t n = v.num_elements();
  const size_t es = ir::SizeOf(v.dtype);
  bytes->resize(static_cast<size_t>(n) * es);
  for (int64_t k = 0; k < n; ++k) {
    double c = 0;
    if (!ElementAt(v, k, &c) || (v.dtype != DataType::kInt64 && v.dtype != DataType::kInt32)) {
      return Error(code::kInvalidParam, "Split: sizes of type ", ir::Name(v.dtype),
                   " (int64 expected)");
    }
    const auto count = static_cast<int64_t>(c);
    if (count % block != 0) {
      return Error(code::kInvalidParam, "Split: size ", count, " is not a multiple of the ", block,
                   "-channel blocks the tensors are stored in");
    }
    const size_t at = static_cast<size_t>(k) * es;
    if (v.dtype == DataType::kInt64) {
      const int64_t x = count / block;
      std::memcpy(bytes->data() + at, &x, es);
    } else {
      const auto x = static_cast<int32_t>(count / block);
      std::memcpy(bytes->data() + at, &x, es);
    }
  }
  out->dtype = v.dtype;
  out->dims = {n};
  out->data = bytes->data();
  return Status::Ok();
}

// `v`'s values in the stored order into `bytes` (v's type, one value per axis, or two per axis
// for a roi), and `out` viewing them: a vector of 4 (or 8) values N, C, H, W becomes N, H, W, C.
// Anything else (an empty scales, a length the op's definition will refuse) is copied as it is.
void PermutedValues(const TensorView& v, std::vector<uint8_t>* bytes, TensorView* out) {
  const size_t total = v.bytes();
  bytes->resize(total);
  if (total > 0) std::memcpy(bytes->data(), v.data, total);
  const int64_t n = v.num_elements();
  if (v.rank() == 1 && (n == 4 || n == 8)) {
    const size_t es = total / static_cast<size_t>(n);
    const auto* src = static_cast<const uint8_t*>(v.data);
    for (int64_t half = 0; half < n / 4; ++half) {
      const size_t base = static_cast<size_t>(half) * 4 * es;
      for (size_t to = 0; to < 4; ++to) {
        const size_t from = to == 0 ? 0 : to == 3 ? 1 : to + 1;  // N, H, W, C from N, C, H, W
        std::memcpy(bytes->data() + base + to * es, src + base + from * es, es);
      }
    }
  }
  out->dtype = v.dtype;
  out->dims.assign(v.dims.begin(), v.dims.end());
  out->data = bytes->data();
}

// `v`'s per-axis values (a Resize's roi, scales or sizes: input `i`) for tensors stored in
// channel blocks of `block`: N, C, H, W becomes N, C/b, H, W, b — the block's axis with a scale of
// 1, a roi of [0, 1] and a size of b — into `bytes` (v's type), and `out` viewing them. A length
// other than 4 per axis (an empty scales) is copied as it is, for the op to take or refuse.
Status BlockedAxisValues(const TensorView& v, size_t i, int64_t block, std::vector<uint8_t>* bytes,
                         TensorView* out) {
  const int64_t n = v.num_elements();
  const int64_t per_axis = i == 1 ? 2 : 1;
  if (v.rank() != 1 || n != 4 * per_axis) {
    PermutedValues(v, bytes, out);  // copies: only vectors of 4 or 8 are reordered
    return Status::Ok();
  }
  double in[8], values[10];
  for (int64_t k = 0; k < n; ++k) {
    if (!ElementAt(v, k, &in[k])) {
      return Error(code::kFeatureUnsupported, "Resize: input ", i, " of type ", ir::Name(v.dtype),
                   " is not taken for tensors in channel blocks");
    }
  }
  size_t count = 0;
  for (int64_t half = 0; half < per_axis; ++half) {
    for (int64_t a = 0; a < 4; ++a) values[count++] = in[half * 4 + a];
    values[count++] = i == 2 ? 1.0 : static_cast<double>(half);  // scale 1; roi [0, 1]
  }
  if (i == 3) {  // sizes: C becomes C/b, the block's axis b
    const auto channels = static_cast<int64_t>(in[1]);
    if (channels % block != 0) {
      return Error(code::kInvalidParam, "Resize: ", channels,
                   " channels are not a multiple of the ", block,
                   "-channel blocks the tensors are stored in");
    }
    values[1] = static_cast<double>(channels / block);
    values[4] = static_cast<double>(block);
  }
  WriteValues(values, count, v.dtype, bytes, out);
  return Status::Ok();
}

// Input `i` of `op`, one value per axis or a count of channels, as the inner kernel takes it for
// tensors stored NHWC (`block` 0) or in channel blocks.
Status StoredValues(const std::string& op, size_t i, int64_t block, const TensorView& v,
                    std::vector<uint8_t>* bytes, TensorView* out) {
  if (block > 0 && ChannelCountInput(op, i)) return BlockCounts(v, block, bytes, out);
  if (block > 0) return BlockedAxisValues(v, i, block, bytes, out);
  PermutedValues(v, bytes, out);
  return Status::Ok();
}

// Whether input `i` of `op` is given to the inner kernel transformed (StoredValues).
bool TransformedInput(const std::string& op, size_t i, int64_t block) {
  return PerAxisInput(op, i) || (block > 0 && ChannelCountInput(op, i));
}

// Per execution slot: the views handed to the ONNX kernel and the per-axis inputs' reordered
// values (they keep their capacity, so only a slot's first run allocates), and that kernel's
// own state.
struct ViewState : KernelState {
  std::vector<TensorView> inputs, outputs;
  std::vector<std::vector<uint8_t>> values;
  std::unique_ptr<KernelState> inner;
};

// The caller's context with every rank-4 tensor seen in its stored order, and per-axis inputs'
// values reordered to match (channel counts in blocks).
class StoredOrderContext final : public ForwardingContext {
 public:
  StoredOrderContext(KernelContext& base, ViewState& s, const std::string& op, int64_t block)
      : ForwardingContext(base), s_(s), op_(op), block_(block) {
    s_.inputs.resize(base.num_inputs());
    s_.outputs.resize(base.num_outputs());
    s_.values.resize(base.num_inputs());
  }
  const TensorView* input(size_t i) const override {
    const TensorView* v = base_.input(i);
    if (v == nullptr) return v;
    if (TransformedInput(op_, i, block_)) {
      // Values the blocks cannot take: nothing to view (the error is the Run's).
      if (!StoredValues(op_, i, block_, *v, &s_.values[i], &s_.inputs[i]).ok()) return nullptr;
      return &s_.inputs[i];
    }
    return v->rank() != 4 ? v : Permuted(*v, &s_.inputs[i]);
  }
  TensorView* output(size_t i) override {
    TensorView* v = base_.output(i);
    return v == nullptr || v->rank() != 4 ? v : Permuted(*v, &s_.outputs[i]);
  }
  KernelState* state() const override { return s_.inner.get(); }

 private:
  TensorView* Permuted(const TensorView& v, TensorView* out) const {
    out->dtype = v.dtype;
    out->data = v.data;
    StoredDims(v.dims, block_, &out->dims);
    return out;
  }
  ViewState& s_;
  const std::string& op_;
  int64_t block_;
};

class NhwcViewKernel final : public Kernel {
 public:
  NhwcViewKernel(std::string op, int64_t block, std::unique_ptr<Kernel> inner,
                 std::vector<std::vector<uint8_t>> constants,
                 std::vector<std::unique_ptr<TensorView>> constant_views)
      : op_(std::move(op)),
        block_(block),
        inner_(std::move(inner)),
        constants_(std::move(constants)),
        constant_views_(std::move(constant_views)) {}

  Status Run(KernelContext& ctx) const override {
    if (block_ > 0) {  // computed counts and per-axis values must fit the blocks
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const TensorView* v = ctx.input(i);
        const bool prepared = i < constant_views_.size() && constant_views_[i] != nullptr;
        if (v == nullptr || prepared || !TransformedInput(op_, i, block_)) continue;
        std::vector<uint8_t> bytes;
        TensorView view;
        KILN_RETURN_IF_ERROR(StoredValues(op_, i, block_, *v, &bytes, &view), "");
      }
    }
    if (KernelState* s = ctx.state()) {
      StoredOrderContext stored(ctx, static_cast<ViewState&>(*s), op_, block_);
      return inner_->Run(stored);
    }
    std::unique_ptr<KernelState> local = CreateState();
    StoredOrderContext stored(ctx, static_cast<ViewState&>(*local), op_, block_);
    return inner_->Run(stored);
  }
  std::unique_ptr<KernelState> CreateState() const override {
    auto s = std::make_unique<ViewState>();
    s->inner = inner_->CreateState();
    return s;
  }

 private:
  std::string op_;
  int64_t block_;  // kiln_cblock: the tensors are in channel blocks of this size (0: NHWC)
  std::unique_ptr<Kernel> inner_;
  // Constant per-axis inputs reordered, which the ONNX kernel was prepared with.
  std::vector<std::vector<uint8_t>> constants_;
  std::vector<std::unique_ptr<TensorView>> constant_views_;
};

}  // namespace

Result<std::unique_ptr<Kernel>> MakeNhwcViewKernel(const KernelRegistry& registry,
                                                   const std::string& backend, const NodeDef& def) {
  NodeDef inner = def;
  inner.domain.clear();
  inner.opset = ir::kNewestOnnxOpset;  // the com.kiln op has the newest opset's attributes
  inner.attrs.erase("kiln_nhwc");
  inner.attrs.erase("kiln_cblock");
  if (def.attr_int("kiln_nhwc") != 1) return registry.Create(backend, inner);
  // The definition checked that every data tensor is of rank 4 and the axis the channels, and
  // with kiln_cblock that their channels are whole blocks (or one, a neutral operand's).
  const int64_t block = def.attr_int("kiln_cblock");
  for (size_t i = 0; i < inner.input_dims.size(); ++i) {
    if (inner.input_dims[i].size() == 4 && !PerAxisInput(def.op_type, i)) {
      StoredDims(def.input_dims[i], block, &inner.input_dims[i]);
    }
  }
  for (size_t i = 0; i < inner.output_dims.size(); ++i) {
    if (inner.output_dims[i].size() == 4) {
      StoredDims(def.output_dims[i], block, &inner.output_dims[i]);
    }
  }
  if (inner.has_attr("axis")) inner.attrs["axis"] = int64_t{block > 0 ? 1 : 3};
  std::vector<std::vector<uint8_t>> constants(def.constants.size());
  std::vector<std::unique_ptr<TensorView>> views(def.constants.size());
  for (size_t i = 0; i < def.constants.size(); ++i) {
    if (def.constants[i] == nullptr) continue;
    views[i] = std::make_unique<TensorView>();
    if (TransformedInput(def.op_type, i, block)) {
      KILN_RETURN_IF_ERROR(
          StoredValues(def.op_type, i, block, *def.constants[i], &constants[i], views[i].get()),
          def.Label());
    } else if (def.constants[i]->rank() == 4) {  // a neutral operand: its bytes, its dims reordered
      *views[i] = *def.constants[i];
      StoredDims(def.constants[i]->dims, block, &views[i]->dims);
    } else {
      continue;
    }
    inner.constants[i] = views[i].get();
  }
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> k, registry.Create(backend, inner));
  return std::unique_ptr<Kernel>(std::make_unique<NhwcViewKernel>(
      def.op_type, block, std::move(k), std::move(constants), std::move(views)));
}

void RegisterNhwcViewKernels(KernelRegistry& registry, const std::string& backend) {
  for (const char* op : {"Concat", "Split", "Add", "Sub", "Mul", "Div", "Resize", "Relu"}) {
    registry.Register(backend, "com.kiln", op, [&registry, backend](const NodeDef& def) {
      return MakeNhwcViewKernel(registry, backend, def);
    });
  }
}

}  // namespace kiln::kernels

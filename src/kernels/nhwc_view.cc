// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/nhwc_view.h"

#include <utility>
#include <vector>

#include "ir/op_schema.h"

namespace kiln::kernels {
namespace {

// N, C, H, W -> N, H, W, C.
void StoredOrder(const Dims& nchw, Dims* out) { out->assign({nchw[0], nchw[2], nchw[3], nchw[1]}); }

// Per execution slot: the views handed to the ONNX kernel (they keep their capacity, so only a
// slot's first run allocates) and that kernel's own state.
struct ViewState : KernelState {
  std::vector<TensorView> inputs, outputs;
  std::unique_ptr<KernelState> inner;
};

// The caller's context with every rank-4 tensor seen in its stored order.
class StoredOrderContext final : public ForwardingContext {
 public:
  StoredOrderContext(KernelContext& base, ViewState& s) : ForwardingContext(base), s_(s) {
    s_.inputs.resize(base.num_inputs());
    s_.outputs.resize(base.num_outputs());
  }
  const TensorView* input(size_t i) const override {
    const TensorView* v = base_.input(i);
    return v == nullptr || v->rank() != 4 ? v : Permuted(*v, &s_.inputs[i]);
  }
  TensorView* output(size_t i) override {
    TensorView* v = base_.output(i);
    return v == nullptr || v->rank() != 4 ? v : Permuted(*v, &s_.outputs[i]);
  }
  KernelState* state() const override { return s_.inner.get(); }

 private:
  static TensorView* Permuted(const TensorView& v, TensorView* out) {
    out->dtype = v.dtype;
    out->data = v.data;
    StoredOrder(v.dims, &out->dims);
    return out;
  }
  ViewState& s_;
};

class NhwcViewKernel final : public Kernel {
 public:
  explicit NhwcViewKernel(std::unique_ptr<Kernel> inner) : inner_(std::move(inner)) {}

  Status Run(KernelContext& ctx) const override {
    if (KernelState* s = ctx.state()) {
      StoredOrderContext stored(ctx, static_cast<ViewState&>(*s));
      return inner_->Run(stored);
    }
    std::unique_ptr<KernelState> local = CreateState();
    StoredOrderContext stored(ctx, static_cast<ViewState&>(*local));
    return inner_->Run(stored);
  }
  std::unique_ptr<KernelState> CreateState() const override {
    auto s = std::make_unique<ViewState>();
    s->inner = inner_->CreateState();
    return s;
  }

 private:
  std::unique_ptr<Kernel> inner_;
};

}  // namespace

Result<std::unique_ptr<Kernel>> MakeNhwcViewKernel(const KernelRegistry& registry,
                                                   const std::string& backend, const NodeDef& def) {
  NodeDef inner = def;
  inner.domain.clear();
  inner.opset = ir::kNewestOnnxOpset;  // the com.kiln op has the newest opset's attributes
  inner.attrs.erase("kiln_nhwc");
  if (def.attr_int("kiln_nhwc") != 1) return registry.Create(backend, inner);
  // The definition checked that every data tensor is of rank 4 and the axis the channels.
  for (size_t i = 0; i < inner.input_dims.size(); ++i) {
    if (inner.input_dims[i].size() == 4) StoredOrder(def.input_dims[i], &inner.input_dims[i]);
  }
  for (size_t i = 0; i < inner.output_dims.size(); ++i) {
    if (inner.output_dims[i].size() == 4) StoredOrder(def.output_dims[i], &inner.output_dims[i]);
  }
  if (inner.has_attr("axis")) inner.attrs["axis"] = int64_t{3};
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Kernel> k, registry.Create(backend, inner));
  return std::unique_ptr<Kernel>(std::make_unique<NhwcViewKernel>(std::move(k)));
}

void RegisterNhwcViewKernels(KernelRegistry& registry, const std::string& backend) {
  for (const char* op : {"Concat", "Split", "Add"}) {
    registry.Register(backend, "com.kiln", op, [&registry, backend](const NodeDef& def) {
      return MakeNhwcViewKernel(registry, backend, def);
    });
  }
}

}  // namespace kiln::kernels

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Conv, ConvTranspose and Kiln's FusedConv / FusedConvTranspose on cuDNN's graph API
// (cudnn_graph.h: forward and backward-data operations), float32 NCHW, 1-D to 3-D (a 1-D
// convolution runs as 2-D over a unit width), groups included; the bias, a FusedConv's
// residual Z, activation and post affine step follow in one epilogue pass (epilogue.cu). Each
// execution slot keeps its cuDNN handle and the plan for the last input dims and pointer
// alignment it ran. An fp16 / bf16 model (kernels/precision.h) convolves in that type with
// float32 accumulation: X and W are converted for each run, the result converted back into Y.
// Declined: other types, the CPU's channels-last and bf16 storage flags (a CUDA target's .om has
// none: compiler/compile.cc).
#include <memory>
#include <utility>
#include <vector>

#include "backends/cuda/kernels/cudnn_graph.h"
#include "backends/cuda/kernels/device_bytes.h"
#include "backends/cuda/kernels/register.h"
#include "hal/execution.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelState;
using kernels::NodeDef;
using kernels::TensorView;

constexpr int64_t kX = 1, kW = 2, kY = 3;  // the tensors' unique ids

// One convolution as cuDNN takes it: X, W and Y dims of rank 4 or 5 and the window. A transposed
// convolution (ConvTranspose) is the backward-data pass of the forward convolution from its Y
// to its X: cuDNN's dy is our X, its dx our Y, W as ONNX stores it ([C_in, C_out / group, ...]).
struct ConvProblem {
  std::vector<int64_t> x, w, y, stride, dilation, pad_begin, pad_end;
  int64_t alignment = 4;
  bool transposed = false;
  bool operator==(const ConvProblem& o) const {
    return x == o.x && w == o.w && y == o.y && stride == o.stride && dilation == o.dilation &&
           pad_begin == o.pad_begin && pad_end == o.pad_end && alignment == o.alignment &&
           transposed == o.transposed;
  }
};

Result<ConvProblem> ProblemOf(const kernels::ConvAttrs& attrs, const Dims& x, const Dims& w) {
  const size_t spatial = x.size() - 2;
  const Dims in(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  KILN_ASSIGN_OR_RETURN(ir::Window win, ir::ResolveWindow(attrs.window, in, kernel));
  ConvProblem p;
  p.transposed = attrs.window.transposed;
  p.x = x;
  p.w = w;
  // Y's channels: W's first dim, or for a transposed convolution its second times the groups.
  p.y = {x[0], p.transposed ? w[1] * attrs.group : w[0]};
  p.y.insert(p.y.end(), win.out.begin(), win.out.end());
  for (size_t d = 0; d < spatial; ++d) {
    if (win.pad_begin[d] < 0 || win.pad_end[d] < 0) {
      return Error(code::kFeatureUnsupported, "the CUDA convolution takes no negative padding ",
                   "(an output_shape larger than the full result)");
    }
    // A transposed convolution runs as the data gradient of the forward one from Y to X, which
    // must give X's size back (not so when output_padding reaches the stride).
    const int64_t extent = win.dilation[d] * (kernel[d] - 1) + 1;
    if (p.transposed &&
        (win.out[d] + win.pad_begin[d] + win.pad_end[d] - extent) / win.stride[d] + 1 != in[d]) {
      return Error(code::kFeatureUnsupported, "the CUDA transposed convolution needs ",
                   "output_padding below the stride (spatial dim ", d, ")");
    }
  }
  p.stride = win.stride;
  p.dilation = win.dilation;
  p.pad_begin = win.pad_begin;
  p.pad_end = win.pad_end;
  if (spatial == 1) {  // cuDNN convolves 2-D or 3-D: a unit width
    for (auto* v : {&p.x, &p.w, &p.y}) v->push_back(1);
    for (auto* v : {&p.stride, &p.dilation}) v->push_back(1);
    for (auto* v : {&p.pad_begin, &p.pad_end}) v->push_back(0);
  }
  return p;
}

// The type cuDNN convolves in: the model's matrix precision (register.h: ToHalf).
cudnnDataType_t CudnnTypeOf(kernels::MatrixPrecision precision) {
  switch (precision) {
    case kernels::MatrixPrecision::kFp16:
      return CUDNN_DATA_HALF;
    case kernels::MatrixPrecision::kBf16:
      return CUDNN_DATA_BFLOAT16;
    case kernels::MatrixPrecision::kFp32:
      break;
  }
  return CUDNN_DATA_FLOAT;
}

class ConvState final : public KernelState {
 public:
  // `type`: of X, W and Y as cuDNN sees them (float32, or the half type of an fp16/bf16 model).
  ConvState(const CudnnApi* api, cudnnDataType_t type) : api_(api), type_(type) {}
  ~ConvState() override {
    plans_.clear();
    if (handle_ != nullptr) api_->Destroy(handle_);
  }

  Status Run(const KernelContext& ctx, const ConvProblem& p, const void* x, const void* w,
             void* y) {
    if (handle_ == nullptr) {
      KILN_RETURN_IF_ERROR(CudnnStatus(api_->Create(&handle_), "cudnnCreate"), "");
    }
    KILN_RETURN_IF_ERROR(
        CudnnStatus(api_->SetStream(handle_, static_cast<cudaStream_t>(StreamOf(ctx))),
                    "cudnnSetStream"),
        "");
    CudnnPlan* plan = Find(p);
    if (plan == nullptr) {
      if (ctx.exec() != nullptr && ctx.exec()->recording()) {
        // Plans are made in plain runs (hal::Execution::recording).
        return Error(code::kRtModelExecute, "no cuDNN plan for this convolution before recording");
      }
      KILN_ASSIGN_OR_RETURN(plan, Plan(p));
    }
    RunScratch workspace(ctx, static_cast<size_t>(plan->workspace_bytes));
    if (!workspace.ok()) {
      return Error(code::kRtMemoryAllocation, "no ", plan->workspace_bytes,
                   " bytes of cuDNN workspace on the device");
    }
    return ExecutePlan(api_, handle_, *plan, {kX, kW, kY},
                       {const_cast<void*>(x), const_cast<void*>(w), y}, workspace.data());
  }

 private:
  CudnnPlan* Find(const ConvProblem& p) {
    for (auto& [problem, plan] : plans_) {
      if (problem == p) return plan.get();
    }
    return nullptr;
  }

  Result<CudnnPlan*> Plan(const ConvProblem& p) {
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor x, MakeTensor(api_, p.x, kX, p.alignment, type_));
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor w, MakeTensor(api_, p.w, kW, p.alignment, type_));
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor y, MakeTensor(api_, p.y, kY, p.alignment, type_));
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor conv,
                          CudnnDescriptor::Create(api_, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t spatial = static_cast<int64_t>(p.stride.size());
    KILN_RETURN_IF_ERROR(
        conv.Set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute), "");
    KILN_RETURN_IF_ERROR(
        conv.Set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode), "");
    KILN_RETURN_IF_ERROR(conv.SetInt64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, {spatial}), "");
    KILN_RETURN_IF_ERROR(conv.SetInt64(CUDNN_ATTR_CONVOLUTION_DILATIONS, p.dilation), "");
    KILN_RETURN_IF_ERROR(conv.SetInt64(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, p.stride), "");
    KILN_RETURN_IF_ERROR(conv.SetInt64(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, p.pad_begin), "");
    KILN_RETURN_IF_ERROR(conv.SetInt64(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, p.pad_end), "");
    KILN_RETURN_IF_ERROR(conv.Finalize(), "a cuDNN convolution");
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor op, Operation(p.transposed, x, w, y, conv));
    KILN_ASSIGN_OR_RETURN(CudnnPlan plan, MakePlan(api_, handle_, op, type_ == CUDNN_DATA_FLOAT));
    plans_.emplace_back(p, std::make_unique<CudnnPlan>(std::move(plan)));
    return plans_.back().second.get();
  }

  // The convolution's operation: y = conv(x, w), or for a transposed convolution the forward
  // convolution's data gradient with dy = x and dx = y. The two descriptors differ only in
  // their type and attribute names.
  Result<CudnnDescriptor> Operation(bool transposed, const CudnnDescriptor& x,
                                    const CudnnDescriptor& w, const CudnnDescriptor& y,
                                    const CudnnDescriptor& conv) {
    struct Names {
      cudnnBackendDescriptorType_t type;
      cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
    };
    static constexpr Names kForward = {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    static constexpr Names kBackwardData = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    const Names& n = transposed ? kBackwardData : kForward;
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor op, CudnnDescriptor::Create(api_, n.type));
    KILN_RETURN_IF_ERROR(op.SetDescriptor(n.x, x), "");
    KILN_RETURN_IF_ERROR(op.SetDescriptor(n.w, w), "");
    KILN_RETURN_IF_ERROR(op.SetDescriptor(n.y, y), "");
    KILN_RETURN_IF_ERROR(op.SetDescriptor(n.conv, conv), "");
    const float alpha = 1.0f, beta = 0.0f;
    KILN_RETURN_IF_ERROR(op.Set(n.alpha, CUDNN_TYPE_FLOAT, 1, &alpha), "");
    KILN_RETURN_IF_ERROR(op.Set(n.beta, CUDNN_TYPE_FLOAT, 1, &beta), "");
    KILN_RETURN_IF_ERROR(op.Finalize(), transposed ? "a cuDNN transposed convolution operation"
                                                   : "a cuDNN convolution operation");
    return op;
  }

  const CudnnApi* api_;
  cudnnDataType_t type_;
  cudnnHandle_t handle_ = nullptr;
  // Every problem this slot has run (one per gear and pointer alignment), never dropped while
  // the slot lives: a recorded run (a CUDA graph) keeps using its plan's engine while other
  // gears run — an engine cuDNN compiled at run time lives with its plan.
  std::vector<std::pair<ConvProblem, std::unique_ptr<CudnnPlan>>> plans_;
};

class ConvKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  ConvKernel(const CudnnApi* api, kernels::MatrixPrecision precision, kernels::ConvAttrs attrs,
             EpilogueParams epilogue, bool has_z, DeviceBytes half_w)
      : api_(api),
        precision_(precision),
        attrs_(std::move(attrs)),
        epilogue_(epilogue),
        has_z_(has_z),
        half_w_(std::move(half_w)) {}

  std::unique_ptr<KernelState> CreateState() const override {
    return std::make_unique<ConvState>(api_, CudnnTypeOf(precision_));
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    const TensorView* w = ctx.input(1);
    const TensorView* b = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    const TensorView* z = has_z_ && ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    TensorView* y = ctx.output(0);
    if (y->num_elements() == 0) return Status::Ok();
    KILN_ASSIGN_OR_RETURN(ConvProblem p, ProblemOf(attrs_, x->dims, w->dims));
    std::unique_ptr<ConvState> own;
    auto* state = static_cast<ConvState*>(ctx.state());
    if (state == nullptr) {
      own = std::make_unique<ConvState>(api_, CudnnTypeOf(precision_));
      state = own.get();
    }
    if (precision_ == kernels::MatrixPrecision::kFp32) {
      p.alignment = CommonAlignment({x->data, w->data, y->data}, 16);
      KILN_RETURN_IF_ERROR(state->Run(ctx, p, x->data, w->data, y->data), "");
    } else {
      KILN_RETURN_IF_ERROR(RunHalf(ctx, *state, p, *x, *w, *y), "");
    }
    EpilogueParams e = epilogue_;
    if (b != nullptr && b->num_elements() != 0) {
      e.bias = static_cast<const float*>(b->data);
      e.bias_channels = y->dims[1];
      e.bias_inner = kernels::NumElements(Dims(y->dims.begin() + 2, y->dims.end()));
    }
    if (z != nullptr) KILN_RETURN_IF_ERROR(AddBroadcastTerm(e, *z, 1.0f, *y, "the residual"), "");
    if (!EpilogueDoesWork(e)) return Status::Ok();
    float* out = static_cast<float*>(y->data);
    return Launched(LaunchEpilogue(out, out, y->num_elements(), e, StreamOf(ctx)),
                    "launching a convolution epilogue");
  }

 private:
  // An fp16 / bf16 model: X (and W unless it was converted at load) converted for this run,
  // the convolution in that type, its result converted back into the float32 Y.
  Status RunHalf(KernelContext& ctx, ConvState& state, ConvProblem& p, const TensorView& x,
                 const TensorView& w, TensorView& y) const {
    const int64_t nx = x.num_elements(), ny = y.num_elements();
    const int64_t nw = half_w_.data() != nullptr ? 0 : w.num_elements();
    HalfScratch half(ctx, {nx, nw, ny});
    if (!half.ok()) {
      return Error(code::kRtMemoryAllocation,
                   "no device memory for the convolution's half inputs and output");
    }
    KILN_RETURN_IF_ERROR(
        ToHalf(ctx, precision_, static_cast<const float*>(x.data), half.part(0), nx), "");
    const void* hw = half_w_.data();
    if (hw == nullptr) {
      KILN_RETURN_IF_ERROR(
          ToHalf(ctx, precision_, static_cast<const float*>(w.data), half.part(1), nw), "");
      hw = half.part(1);
    }
    p.alignment = 16;
    KILN_RETURN_IF_ERROR(state.Run(ctx, p, half.part(0), hw, half.part(2)), "");
    return FromHalf(ctx, precision_, half.part(2), static_cast<float*>(y.data), ny);
  }

  const CudnnApi* api_;
  kernels::MatrixPrecision precision_;
  kernels::ConvAttrs attrs_;
  EpilogueParams epilogue_;
  bool has_z_;
  DeviceBytes half_w_;  // W in the model's half type, when it is a constant of a half model
};

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def, bool fused) {
  KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  for (const char* flag :
       {"kiln_x_nhwc", "kiln_y_nhwc", "kiln_z_nhwc", "kiln_x_bf16", "kiln_y_bf16", "kiln_z_bf16",
        "kiln_x_cblock", "kiln_y_cblock", "kiln_z_cblock"}) {
    if (def.attr_int(flag) != 0) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA convolution takes NCHW float32 (", flag,
                      " is set: the .om was compiled for the CPU's layouts)");
    }
  }
  if (def.input_ranked(0)) {
    const size_t rank = def.input_dims[0].size();
    if (rank < 3 || rank > 5) {
      return def.Fail(code::kFeatureUnsupported,
                      "the CUDA convolution takes 1-D to 3-D windows; X has rank ", rank);
    }
  }
  KILN_ASSIGN_OR_RETURN(const CudnnApi* api, Cudnn());
  EpilogueParams epilogue;
  if (fused) {
    KILN_ASSIGN_OR_RETURN(epilogue, ReadEpilogue(def));
  }
  KILN_ASSIGN_OR_RETURN(DeviceBytes half_w, UploadHalfConstant(def, 1));
  return std::unique_ptr<Kernel>(std::make_unique<ConvKernel>(
      api, def.matrix_precision, kernels::ReadConvAttrs(def), epilogue,
      fused && def.op_type == "FusedConv" && def.input_given(3), std::move(half_w)));
}

}  // namespace

void RegisterCudaConvKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "Conv",
                    [](const NodeDef& def) { return Prepare(def, false); });
  registry.Register(kCudaBackend, "com.kiln", "FusedConv",
                    [](const NodeDef& def) { return Prepare(def, true); });
  registry.Register(kCudaBackend, "", "ConvTranspose",
                    [](const NodeDef& def) { return Prepare(def, false); });
  registry.Register(kCudaBackend, "com.kiln", "FusedConvTranspose",
                    [](const NodeDef& def) { return Prepare(def, true); });
}

}  // namespace kiln::cuda

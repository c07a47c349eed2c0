// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The ONNX activations with parameters — LeakyRelu, Clip, HardSigmoid, HardSwish, Gelu (exact,
// not "tanh"), Swish — on the epilogue kernel (epilogue.cu), float32; and the fused ops'
// activation attributes read into its parameters for the matrix kernels. Clip's bounds must be
// constants from opset 11 on (inputs then): others are declined.
#include <limits>
#include <memory>
#include <string>

#include "backends/cuda/kernels/register.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;

class EpilogueKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  explicit EpilogueKernel(EpilogueParams p) : p_(p) {}
  Status Run(KernelContext& ctx) const override {
    const kernels::TensorView* x = ctx.input(0);
    kernels::TensorView* y = ctx.output(0);
    return Launched(LaunchEpilogue(static_cast<const float*>(x->data), static_cast<float*>(y->data),
                                   x->num_elements(), p_, StreamOf(ctx)),
                    "launching an activation kernel");
  }

 private:
  EpilogueParams p_;
};

// Clip's bound from constant input `i` (opset 11+), `dflt` when the input is omitted.
Result<float> ClipBound(const NodeDef& def, size_t i, float dflt) {
  if (!def.input_given(i)) return dflt;
  const kernels::TensorView* c = def.constant(i);
  if (c != nullptr && c->num_elements() == 0) return dflt;  // ONNX's other way to omit it
  if (c == nullptr) {
    return def.Fail(code::kFeatureUnsupported,
                    "the CUDA Clip kernel takes constant bounds only (input ", i, ")");
  }
  return *c->as<const float>();
}

Result<EpilogueParams> ReadOnnxActivation(const NodeDef& def, Activation act) {
  KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  EpilogueParams p;
  p.act = act;
  switch (act) {
    case Activation::kLeakyRelu:
    case Activation::kSwish:
      p.alpha = def.attr_float("alpha");
      break;
    case Activation::kHardSigmoid:
      p.alpha = def.attr_float("alpha");
      p.beta = def.attr_float("beta");
      break;
    case Activation::kGelu:
      if (def.attr_string("approximate") == "tanh") {
        return def.Fail(code::kFeatureUnsupported,
                        "the CUDA Gelu kernel computes the exact form only (approximate 'none')");
      }
      break;
    case Activation::kClip:
      if (def.opset < 11) {
        p.alpha = def.attr_float("min");
        p.beta = def.attr_float("max");
      } else {
        KILN_ASSIGN_OR_RETURN(p.alpha, ClipBound(def, 1, std::numeric_limits<float>::lowest()));
        KILN_ASSIGN_OR_RETURN(p.beta, ClipBound(def, 2, std::numeric_limits<float>::max()));
      }
      break;
    default:
      break;
  }
  return p;
}

}  // namespace

Result<EpilogueParams> ReadEpilogue(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(kernels::ActivationAttrs a, kernels::ReadActivation(def));
  EpilogueParams p;
  p.act = a.kind;
  p.alpha = a.alpha;
  p.beta = a.beta;
  p.post_scale = a.post_scale;
  p.post_shift = a.post_shift;
  return p;
}

bool EpilogueDoesWork(const EpilogueParams& p) {
  return p.act != Activation::kNone || p.post_scale != 1.0f || p.post_shift != 0.0f ||
         p.bias != nullptr || p.z != nullptr;
}

void RegisterCudaActivationKernels(kernels::KernelRegistry& registry) {
  struct Op {
    const char* name;
    Activation act;
  };
  for (const Op& op :
       {Op{"LeakyRelu", Activation::kLeakyRelu}, Op{"Clip", Activation::kClip},
        Op{"HardSigmoid", Activation::kHardSigmoid}, Op{"HardSwish", Activation::kHardSwish},
        Op{"Gelu", Activation::kGelu}, Op{"Swish", Activation::kSwish}}) {
    const Activation act = op.act;
    registry.Register(kCudaBackend, "", op.name,
                      [act](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                        KILN_ASSIGN_OR_RETURN(EpilogueParams p, ReadOnnxActivation(def, act));
                        return std::unique_ptr<Kernel>(std::make_unique<EpilogueKernel>(p));
                      });
  }
}

}  // namespace kiln::cuda

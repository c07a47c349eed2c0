// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the CPU backend's elementwise and reduction kernels (elementwise.cc, reduce.cc) share:
// the base class that keeps the node's reference kernel for the runs a fast kernel does not
// take, the Prepare checks on element types and the ParallelFor grains.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "kernels/attrs.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace kiln::cpu::internal {

using kernels::DataType;
using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::TensorView;

inline constexpr const char* kCpu = "cpu";

// Elements per ParallelFor chunk: about 10 us of one core's work, so a chunk outweighs the
// pool's hand-off and small tensors stay on the calling thread. Cheap ops (add, compare, relu)
// run at memory speed; exp-based ones cost a few times that; powf and sqrt are scalar calls.
inline constexpr int64_t kGrainCheap = 32768;
inline constexpr int64_t kGrainMath = 16384;
inline constexpr int64_t kGrainScalarCall = 4096;

// Applies a fused op's activation (kernels/attrs.h; its post_scale / post_shift are not taken
// here) to the n floats at y in place, with the loops the activation's own node runs.
void ApplyActivation(const kernels::ActivationAttrs& act, float* y, int64_t n);

// Counts one run handed to a reference kernel (register.h's ReferenceRunCount).
void CountReferenceRun();

// A cpu kernel that holds the node's reference kernel and hands it every run it does not take
// (a broadcast or axes pattern it has no loop for, inputs whose run-time dims do not fit the
// bound output, a bad computed axes input): the reference kernel computes those or reports the
// error, naming the node. Run stays const and thread-safe: the reference kernel is itself
// thread-safe and nothing else is mutable. Each hand-off counts in ReferenceRunCount, so a test
// can tell the cpu loop from the fallback; the reference never sees this kernel's slot state.
class FallbackKernel : public Kernel {
 protected:
  FallbackKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : def_(def), reference_(std::move(reference)) {}
  Status RunReference(KernelContext& ctx) const {
    CountReferenceRun();
    kernels::ForwardingContext without_state(ctx);
    return reference_->Run(without_state);
  }

  const NodeDef def_;

 private:
  std::unique_ptr<Kernel> reference_;
};

// kFeatureUnsupported (so the registry uses the reference kernel) unless input i is given with
// planned type `t`.
inline Status RequireInput(const NodeDef& def, size_t i, DataType t) {
  if (def.input_given(i) && i < def.input_types.size() && def.input_types[i] == t) {
    return Status::Ok();
  }
  return def.Fail(code::kFeatureUnsupported, "input ", i, " is not ", ir::Name(t),
                  "; the cpu kernel takes ", ir::Name(t), " only");
}
// The same for output i.
inline Status RequireOutput(const NodeDef& def, size_t i, DataType t) {
  if (i < def.output_types.size() && def.output_types[i] == t) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported, "output ", i, " is not ", ir::Name(t),
                  "; the cpu kernel writes ", ir::Name(t), " only");
}

// The node's reference kernel (its Prepare's refusals are returned as they are; the node itself
// was checked by its op's definition before any factory ran).
inline Result<std::unique_ptr<Kernel>> PrepareReference(const KernelRegistry& registry,
                                                        const NodeDef& def) {
  return registry.Create(kernels::kReferenceBackend, def);
}

}  // namespace kiln::cpu::internal

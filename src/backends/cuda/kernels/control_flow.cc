// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// If on the CUDA device: the reference kernel (kernels/reference/control_flow.cc) reads its
// condition and writes its outputs through the run's execution, and the branch it picks runs on
// the device's own kernels (the executor's KernelContext::RunGraph), so it serves the device as
// it is. It is not Replayable: the condition is read on the host each run, and a run with an If
// stays plain. Loop and Scan read their inputs on the host and hand host tensors to their
// bodies: not registered, so a model with one is refused at load.
#include <memory>

#include "backends/cuda/kernels/register.h"

namespace kiln::cuda {

void RegisterCudaControlFlowKernels(kernels::KernelRegistry& registry) {
  kernels::KernelRegistry* r = &registry;
  registry.Register(
      kCudaBackend, "", "If",
      [r](const kernels::NodeDef& def) -> Result<std::unique_ptr<kernels::Kernel>> {
        // Looked up when a node is prepared: a registry may get the reference kernels after
        // the CUDA ones.
        const kernels::KernelFactory* reference = r->Find(kernels::kReferenceBackend, "", "If");
        if (reference == nullptr) {
          return def.Fail(code::kFeatureUnsupported, "no reference If kernel is registered");
        }
        return (*reference)(def);
      });
}

}  // namespace kiln::cuda

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/registry.h"

#include <memory>

#include "hal/device.h"
#include "ir/op_schema.h"
#include "kernels/definition.h"
#include "kernels/nhwc_view.h"
#include "kernels/reference/families.h"

namespace kiln::kernels {

namespace {

// Kernels compute the low-precision types only where their op says so (ir::kTraitLowPrecision).
Status CheckLowPrecision(const NodeDef& def) {
  const ir::OpSchema* schema = ir::OpRegistry::Global().Find(def.domain, def.op_type);
  if (schema != nullptr && schema->has(ir::kTraitLowPrecision)) return Status::Ok();
  for (const auto* types : {&def.input_types, &def.output_types}) {
    for (DataType t : *types) {
      if (ir::IsLowPrecision(t)) {
        return def.Fail(code::kFeatureUnsupported, "Kiln's ", def.op_type, " kernels do not take ",
                        ir::Name(t), " tensors");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = [] {
    auto r = std::make_unique<KernelRegistry>();  // freed if registration runs out of memory
    RegisterReferenceKernels(*r);
    return r.release();
  }();
  return *registry;
}

void KernelRegistry::Register(const std::string& backend, const std::string& domain,
                              const std::string& op_type, KernelFactory factory) {
  std::lock_guard<std::mutex> lock(mu_);
  factories_[{backend, domain == "ai.onnx" ? "" : domain, op_type}] = std::move(factory);
}

const KernelFactory* KernelRegistry::Find(const std::string& backend, const std::string& domain,
                                          const std::string& op_type) const {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string d = domain == "ai.onnx" ? "" : domain;
  auto it = factories_.find({backend, d, op_type});
  if (it == factories_.end()) it = factories_.find({kReferenceBackend, d, op_type});
  return it == factories_.end() ? nullptr : &it->second;
}

bool KernelRegistry::Has(const std::string& backend, const std::string& domain,
                         const std::string& op_type) const {
  std::lock_guard<std::mutex> lock(mu_);
  return factories_.count({backend, domain == "ai.onnx" ? "" : domain, op_type}) != 0;
}

std::vector<std::pair<std::string, std::string>> KernelRegistry::Ops(
    const std::string& backend) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, f] : factories_) {
    if (std::get<0>(key) == backend) out.emplace_back(std::get<1>(key), std::get<2>(key));
  }
  return out;
}

Result<std::unique_ptr<Kernel>> KernelRegistry::Create(const std::string& backend,
                                                       const NodeDef& node) const {
  NodeDef def = node;
  KILN_RETURN_IF_ERROR(ApplyDefinition(def), "");
  KILN_RETURN_IF_ERROR(CheckLowPrecision(def), "");
  const std::string d = def.domain == "ai.onnx" ? "" : def.domain;
  // The reference kernels compute on the host: a device whose memory the host cannot address
  // (a GPU) has no fallback, and a model needing one is refused at load.
  const bool host_fallback = def.device == nullptr || def.device->info().host_addressable;
  if (backend != kReferenceBackend && Has(backend, d, def.op_type)) {
    const KernelFactory* f = Find(backend, d, def.op_type);
    auto k = (*f)(def);
    if (k.ok() || k.status().code() != code::kFeatureUnsupported || !host_fallback) return k;
    // The optimised kernel declined (a dtype or attribute it does not handle): use the oracle.
  }
  if (!host_fallback) {
    return Error(
        code::kFeatureUnsupported, def.Label(), ": no kernel for op '", d.empty() ? "" : d + ".",
        def.op_type, "' on backend '", backend,
        "' (its memory is not host memory, so the host reference kernels cannot stand in)");
  }
  const KernelFactory* f = Find(kReferenceBackend, d, def.op_type);  // map nodes are stable
  if (f == nullptr) {
    return Error(code::kFeatureUnsupported, def.Label(), ": no kernel for op '",
                 d.empty() ? "" : d + ".", def.op_type, "' on backend '", backend, "'");
  }
  return (*f)(def);
}

void RegisterReferenceKernels(KernelRegistry& registry) {
  RegisterElementwiseKernels(registry);
  RegisterNnKernels(registry);
  RegisterNnConvKernels(registry);
  RegisterTensorKernels(registry);
  RegisterReduceKernels(registry);
  RegisterControlFlowKernels(registry);
  RegisterFusedKernels(registry);
  RegisterQuantizeKernels(registry);
  RegisterQLinearKernels(registry);
  RegisterNhwcViewKernels(registry, kReferenceBackend);
  RegisterAttentionKernels(registry);
  RegisterSamplingKernels(registry);
  RegisterSignalKernels(registry);
  RegisterStateSpaceKernels(registry);
  RegisterImageKernels(registry);
}

}  // namespace kiln::kernels

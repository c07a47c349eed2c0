// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// KernelRegistry: (backend, domain, op type) -> factory. The reference backend ("reference")
// has a kernel for every op the compiler accepts; a device backend registers the ops it
// optimises under its own name and falls back to the reference kernels for the rest.
// Registration is explicit: the reference kernels are this layer's own table, built on first
// use of Global(); each backend's kernels are registered by backends::RegisterAll.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/kernel.h"

namespace kiln::kernels {

inline constexpr const char* kReferenceBackend = "reference";

class KernelRegistry {
 public:
  // The process-wide registry (reference kernels registered on first use).
  static KernelRegistry& Global();

  void Register(const std::string& backend, const std::string& domain, const std::string& op_type,
                KernelFactory factory);
  // The backend's factory for the op, or the reference one, or null.
  const KernelFactory* Find(const std::string& backend, const std::string& domain,
                            const std::string& op_type) const;
  // Whether `backend` itself (not the reference fallback) has the op.
  bool Has(const std::string& backend, const std::string& domain, const std::string& op_type) const;
  // Op types (domain, op) registered for `backend`.
  std::vector<std::pair<std::string, std::string>> Ops(const std::string& backend) const;

  // Prepare: applies the op's definition to `def` (attribute defaults, the check of its types
  // and dims: kernels/definition.h), then makes the kernel for it on `backend` (falling back to
  // the reference kernel when the backend's factory declines with kFeatureUnsupported, unless
  // the node's device is not host-addressable: hal::DeviceInfo::host_addressable).
  // kFeatureUnsupported when no kernel exists, naming the op, node and backend.
  Result<std::unique_ptr<Kernel>> Create(const std::string& backend, const NodeDef& def) const;

 private:
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::string>, KernelFactory> factories_;
};

// Registers every reference kernel family (kernels/reference/*.cc).
void RegisterReferenceKernels(KernelRegistry& registry);

}  // namespace kiln::kernels

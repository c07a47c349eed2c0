// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The single-operator models of the process (aclopSetModelDir, aclopLoad, aclopCompile): each
// with the description it was compiled for, matched against calls (docs/single-ops.md), and
// loaded on a device when a call first runs it there.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/single_op.h"
#include "runtime/model.h"

namespace kiln::capi {

class SingleOpRegistry {
 public:
  struct Entry {
    compiler::SingleOpDesc desc;
    std::vector<uint8_t> bytes;  // the .om
    std::string origin;          // its file, "aclopLoad" or "aclopCompile"
    // The model as loaded for the device whose pool it uses (reloaded when the call's current
    // device, or that device's pool after a reset, differs).
    std::mutex mu;
    std::shared_ptr<runtime::Model> model;
    std::shared_ptr<runtime::MemoryPool> pool;
  };

  static SingleOpRegistry& Get();

  // Registers an .om (the bytes are kept); kOpLoadFailed naming `origin` when it is not a
  // single-op model Kiln can read. A model for the same description replaces the earlier one.
  Status Add(std::vector<uint8_t> bytes, const std::string& origin);
  // The model for `desc` (Find), or one compiled now and registered (aclopCompile, the BLAS
  // calls, aclopCompileAndExecute); the compiler's errors name the operator.
  Result<std::shared_ptr<Entry>> FindOrCompile(const compiler::SingleOpDesc& desc);
  // The model for `call`: static models first, then dynamic ones whose ranges hold the call's
  // dims. kOpNotFound when no model has the call's operator type; otherwise the code of the
  // first part that differs from the closest model (inputs, outputs, attributes), the message
  // naming it and the call.
  Result<std::shared_ptr<Entry>> Find(const compiler::SingleOpDesc& call) const;
  // Whether some model of `op_type` has the attribute `name` (aclopCast's truncate).
  bool AnyHasAttr(const std::string& op_type, const std::string& name) const;
  // The entry's model loaded on the calling thread's current device.
  static Result<std::shared_ptr<runtime::Model>> ModelFor(Entry& entry);
  // Drops the models loaded on `device` (it is being reset: its pool is going).
  void DropDevice(int32_t device);

  // aclopSetModelDir may succeed once per process.
  std::atomic<bool> model_dir_set{false};

 private:
  SingleOpRegistry() = default;
  // Add, giving the registered entry.
  Result<std::shared_ptr<Entry>> AddEntry(std::vector<uint8_t> bytes, const std::string& origin);
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Entry>> entries_;
};

}  // namespace kiln::capi

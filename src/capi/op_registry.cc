// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "capi/op_registry.h"

#include "base/str_cat.h"
#include "runtime/runtime.h"

namespace kiln::capi {

SingleOpRegistry& SingleOpRegistry::Get() {
  static auto* registry = [] {
    auto* r = new SingleOpRegistry();  // outlives static destruction
    runtime::Runtime::Get().AddResetListener([r](int32_t device) { r->DropDevice(device); });
    return r;
  }();
  return *registry;
}

void SingleOpRegistry::DropDevice(int32_t device) {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries = entries_;
  }
  for (const auto& e : entries) {
    std::lock_guard<std::mutex> lock(e->mu);
    if (e->model != nullptr && e->model->device() == device) {
      e->model.reset();
      e->pool.reset();
    }
  }
}

Status SingleOpRegistry::Add(std::vector<uint8_t> bytes, const std::string& origin) {
  return AddEntry(std::move(bytes), origin).status();
}

Result<std::shared_ptr<SingleOpRegistry::Entry>> SingleOpRegistry::AddEntry(
    std::vector<uint8_t> bytes, const std::string& origin) {
  auto desc = compiler::ReadSingleOp(bytes.data(), bytes.size());
  if (!desc.ok()) {
    return Error(code::kOpLoadFailed, origin, ": ", desc.status().message());
  }
  auto entry = std::make_shared<Entry>();
  entry->desc = std::move(desc).value();
  entry->bytes = std::move(bytes);
  entry->origin = origin;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& e : entries_) {
    if (e->desc.SameOperator(entry->desc)) {
      e = entry;
      return entry;
    }
  }
  entries_.push_back(entry);
  return entry;
}

Result<std::shared_ptr<SingleOpRegistry::Entry>> SingleOpRegistry::FindOrCompile(
    const compiler::SingleOpDesc& desc) {
  {
    // A model compiled for this very description (a dynamic one too: Find matches calls, whose
    // dims are real, against its ranges).
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& e : entries_) {
      if (e->desc.SameOperator(desc)) return e;
    }
  }
  auto found = Find(desc);
  if (found.ok()) return found;
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, compiler::CompileSingleOp(desc));
  return AddEntry(std::move(bytes), "aclopCompile");
}

Result<std::shared_ptr<SingleOpRegistry::Entry>> SingleOpRegistry::Find(
    const compiler::SingleOpDesc& call) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Entry> dynamic_match;
  int best_code = 0, best_likeness = -1;
  std::string best_why;
  size_t of_type = 0;
  // How far a mismatch got: inputs < outputs < attributes.
  auto rank = [](int c) {
    return c == code::kOpInputNotMatch ? 1 : c == code::kOpOutputNotMatch ? 2 : 3;
  };
  for (const auto& e : entries_) {
    if (e->desc.op_type != call.op_type) continue;
    ++of_type;
    std::string why;
    const int c = compiler::MatchSingleOp(e->desc, call, &why);
    if (c == 0) {
      if (!e->desc.dynamic()) return e;
      if (dynamic_match == nullptr) dynamic_match = e;
      continue;
    }
    // The closest model: the furthest mismatch, then the most alike.
    const int likeness = compiler::SingleOpLikeness(e->desc, call);
    if (best_code == 0 || rank(c) > rank(best_code) ||
        (rank(c) == rank(best_code) && likeness > best_likeness)) {
      best_code = c;
      best_likeness = likeness;
      best_why = std::move(why);
    }
  }
  if (dynamic_match != nullptr) return dynamic_match;
  if (of_type == 0) {
    return Error(code::kOpNotFound, "no single-op model of type '", call.op_type, "' for ",
                 compiler::DescribeCall(call),
                 ": compile one with kiln atc --singleop and load it (aclopSetModelDir / "
                 "aclopLoad), or aclopCompile it");
  }
  return Error(best_code, "no ", call.op_type, " model matches ", compiler::DescribeCall(call),
               ": ", best_why, " (", of_type, " model(s) of this type)");
}

bool SingleOpRegistry::AnyHasAttr(const std::string& op_type, const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& e : entries_) {
    if (e->desc.op_type == op_type && e->desc.attrs.count(name)) return true;
  }
  return false;
}

Result<std::shared_ptr<runtime::Model>> SingleOpRegistry::ModelFor(Entry& entry) {
  KILN_ASSIGN_OR_RETURN(runtime::Runtime::DeviceRef dev,
                        runtime::Runtime::Get().CurrentDeviceRef());
  std::lock_guard<std::mutex> lock(entry.mu);
  if (entry.model != nullptr && entry.pool == dev.pool) return entry.model;
  auto model = runtime::Model::Load(entry.bytes.data(), entry.bytes.size(), dev.pool, dev.backend,
                                    {}, dev.hal);
  if (!model.ok()) {
    return Error(code::kOpLoadFailed, entry.desc.op_type, " (", entry.origin,
                 "): ", model.status().message());
  }
  entry.model = std::move(model).value();
  entry.model->set_file_stem(entry.desc.op_type);  // a dump's dump_list may name the operator
  entry.pool = dev.pool;
  return entry.model;
}

}  // namespace kiln::capi

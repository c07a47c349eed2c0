// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/kernel.h"

#include <variant>

namespace kiln::kernels {
namespace {

template <typename T>
const T* Get(const std::map<std::string, ir::Attribute>& attrs, const std::string& n) {
  auto it = attrs.find(n);
  return it == attrs.end() ? nullptr : std::get_if<T>(&it->second);
}

class FunctionKernel final : public Kernel {
 public:
  FunctionKernel(const NodeDef& def, RunFn fn) : def_(def), fn_(fn) {}
  Status Run(KernelContext& ctx) const override { return fn_(def_, ctx); }

 private:
  NodeDef def_;
  RunFn fn_;
};

}  // namespace

int64_t NodeDef::attr_int(const std::string& n, int64_t dflt) const {
  const auto* v = Get<int64_t>(attrs, n);
  return v ? *v : dflt;
}
float NodeDef::attr_float(const std::string& n, float dflt) const {
  const auto* v = Get<float>(attrs, n);
  return v ? *v : dflt;
}
std::string NodeDef::attr_string(const std::string& n, const std::string& dflt) const {
  const auto* v = Get<std::string>(attrs, n);
  return v ? *v : dflt;
}
std::vector<int64_t> NodeDef::attr_ints(const std::string& n, std::vector<int64_t> dflt) const {
  const auto* v = Get<std::vector<int64_t>>(attrs, n);
  return v ? *v : dflt;
}
std::vector<float> NodeDef::attr_floats(const std::string& n, std::vector<float> dflt) const {
  const auto* v = Get<std::vector<float>>(attrs, n);
  return v ? *v : dflt;
}
std::vector<std::string> NodeDef::attr_strings(const std::string& n) const {
  const auto* v = Get<std::vector<std::string>>(attrs, n);
  return v ? *v : std::vector<std::string>{};
}
const ir::Tensor* NodeDef::attr_tensor(const std::string& n) const {
  return Get<ir::Tensor>(attrs, n);
}
int NodeDef::graph(const std::string& n) const {
  auto it = graphs.find(n);
  return it == graphs.end() ? -1 : it->second;
}
std::string NodeDef::Label() const { return StrCat(op_type, " '", name, "'"); }

std::unique_ptr<Kernel> MakeFunctionKernel(const NodeDef& def, RunFn fn) {
  return std::make_unique<FunctionKernel>(def, fn);
}

}  // namespace kiln::kernels

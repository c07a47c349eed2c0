// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/kernel.h"

#include <variant>

#include "hal/execution.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

class FunctionKernel final : public Kernel {
 public:
  FunctionKernel(const NodeDef& def, RunFn fn, bool replayable)
      : def_(def), fn_(fn), replayable_(replayable) {}
  Status Run(KernelContext& ctx) const override { return fn_(def_, ctx); }
  bool Replayable() const override { return replayable_; }

 private:
  NodeDef def_;
  RunFn fn_;
  bool replayable_;
};

}  // namespace

int NodeDef::graph(const std::string& n) const {
  auto it = graphs.find(n);
  return it == graphs.end() ? -1 : it->second;
}
void KernelContext::ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
  if (hal::Execution* e = exec()) {
    e->ParallelFor(n, grain, fn);
  } else if (n > 0) {
    fn(0, n);
  }
}

std::string NodeDef::Label() const { return StrCat(op_type, " '", name, "'"); }

std::unique_ptr<Kernel> MakeFunctionKernel(const NodeDef& def, RunFn fn, bool replayable) {
  return std::make_unique<FunctionKernel>(def, fn, replayable);
}

}  // namespace kiln::kernels

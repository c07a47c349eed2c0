// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tests/hal/guarded_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/execution.h"

namespace kiln::hal::testing {
namespace {

// The blocks and the open/closed state. One recursive lock, held from Open to Close: a kernel
// that binds an output (an allocation) while the memory is open re-enters it.
class Guard {
 public:
  void* Allocate(size_t bytes) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    const size_t size = RoundUp(bytes);
    void* p = mmap(nullptr, size, open_ > 0 ? PROT_READ | PROT_WRITE : PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    blocks_[reinterpret_cast<uintptr_t>(p)] = size;
    return p;
  }
  void Free(void* p) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(p));
    if (it == blocks_.end()) return;
    munmap(p, it->second);
    blocks_.erase(it);
  }
  // Whether [p, p + bytes) lies in one block.
  bool Owns(const void* p, size_t bytes) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    const auto addr = reinterpret_cast<uintptr_t>(p);
    auto it = blocks_.upper_bound(addr);
    if (it == blocks_.begin()) return false;
    --it;
    return addr + bytes <= it->first + it->second;
  }
  void Open() {
    mu_.lock();
    if (open_++ == 0) ProtectAll(PROT_READ | PROT_WRITE);
  }
  void Close() {
    if (--open_ == 0) ProtectAll(PROT_NONE);
    mu_.unlock();
  }

 private:
  static size_t RoundUp(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  }
  void ProtectAll(int prot) {
    for (auto& [addr, size] : blocks_) mprotect(reinterpret_cast<void*>(addr), size, prot);
  }

  std::recursive_mutex mu_;
  std::map<uintptr_t, size_t> blocks_;
  int open_ = 0;
};

Guard& TheGuard() {
  static Guard* guard = new Guard();  // never destroyed: devices outlive static destructors
  return *guard;
}

class GuardedAllocatorImpl final : public Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool) override {
    void* p = TheGuard().Allocate(bytes);  // page-aligned, beyond any alignment asked for
    if (p == nullptr) return Error(code::kRtMemoryAllocation, "guarded device: out of memory");
    return p;
  }
  void Free(void* ptr, size_t) override { TheGuard().Free(ptr); }
  void Copy(void* dst, const void* src, size_t bytes) override { GuardedCopy(dst, src, bytes); }
  void Fill(void* dst, int value, size_t bytes) override {
    if (bytes == 0) return;
    TheGuard().Open();
    std::memset(dst, value, bytes);
    TheGuard().Close();
  }
};

// A GPU kernel sees only device memory: every tensor a guarded kernel reads or writes must be
// guarded memory (a constant the runtime left on the host, or an output it bound in host
// memory, would be a wild pointer on a GPU).
Status CheckGuarded(const kernels::TensorView* v, const std::string& label, const char* what,
                    size_t i) {
  if (v == nullptr || v->bytes() == 0 || TheGuard().Owns(v->data, v->bytes())) return Status::Ok();
  return Error(code::kInternalError, label, ": ", what, " ", i,
               " is host memory, not the device's (the runtime bound it outside the device)");
}

class CheckingContext final : public kernels::ForwardingContext {
 public:
  CheckingContext(kernels::KernelContext& base, const std::string& label)
      : ForwardingContext(base), label_(label) {}
  kernels::KernelState* state() const override { return base_.state(); }
  Result<kernels::TensorView*> DynamicOutput(size_t i, const kernels::Dims& dims) override {
    KILN_ASSIGN_OR_RETURN(kernels::TensorView * v, base_.DynamicOutput(i, dims));
    KILN_RETURN_IF_ERROR(CheckGuarded(v, label_, "dynamic output", i), "");
    return v;
  }

 private:
  const std::string& label_;
};

// A recorded kernel call's context: the tensors, state and execution of the call it was
// recorded from, by value (a replay runs long after that call's context is gone).
class RecordedContext final : public kernels::KernelContext {
 public:
  explicit RecordedContext(const kernels::KernelContext& from)
      : state_(from.state()), exec_(from.exec()) {
    for (size_t i = 0; i < from.num_inputs(); ++i) {
      const kernels::TensorView* v = from.input(i);
      inputs_.push_back(v != nullptr ? *v : kernels::TensorView{});
      has_input_.push_back(v != nullptr);
    }
    auto& writable = const_cast<kernels::KernelContext&>(from);
    for (size_t i = 0; i < from.num_outputs(); ++i) {
      const kernels::TensorView* v = writable.output(i);
      outputs_.push_back(v != nullptr ? *v : kernels::TensorView{});
      has_output_.push_back(v != nullptr);
      wanted_.push_back(from.output_wanted(i));
    }
  }
  size_t num_inputs() const override { return inputs_.size(); }
  const kernels::TensorView* input(size_t i) const override {
    return has_input_[i] ? &inputs_[i] : nullptr;
  }
  size_t num_outputs() const override { return outputs_.size(); }
  kernels::TensorView* output(size_t i) override { return has_output_[i] ? &outputs_[i] : nullptr; }
  Result<kernels::TensorView*> DynamicOutput(size_t, const kernels::Dims&) override {
    return Error(code::kInternalError, "a replayed kernel cannot bind an output at run time");
  }
  bool output_wanted(size_t i) const override { return wanted_[i]; }
  Result<std::vector<kernels::HostTensor>> RunGraph(
      int, const std::vector<kernels::TensorView>&) override {
    return Error(code::kInternalError, "a replayed kernel cannot run a body");
  }
  hal::Execution* exec() const override { return exec_; }
  kernels::KernelState* state() const override { return state_; }

 private:
  std::vector<kernels::TensorView> inputs_, outputs_;
  std::vector<bool> has_input_, has_output_, wanted_;
  kernels::KernelState* state_;
  hal::Execution* exec_;
};

class GuardedKernel final : public kernels::Kernel {
 public:
  GuardedKernel(std::unique_ptr<kernels::Kernel> inner, std::string label, bool replayable)
      : inner_(std::move(inner)), label_(std::move(label)), replayable_(replayable) {}
  Status Run(kernels::KernelContext& ctx) const override {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      KILN_RETURN_IF_ERROR(CheckGuarded(ctx.input(i), label_, "input", i), "");
    }
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      KILN_RETURN_IF_ERROR(CheckGuarded(ctx.output(i), label_, "output", i), "");
    }
    if (auto* recorder = dynamic_cast<GuardedRecorder*>(ctx.exec());
        recorder != nullptr && ctx.exec()->recording()) {
      if (!replayable_) return Error(code::kInternalError, label_, ": recorded, not replayable");
      auto recorded = std::make_shared<RecordedContext>(ctx);
      recorder->Keep([this, recorded] { return RunOpen(*recorded); });
      return Status::Ok();
    }
    CheckingContext checking(ctx, label_);
    return RunOpen(checking);
  }
  std::unique_ptr<kernels::KernelState> CreateState() const override {
    return inner_->CreateState();
  }
  bool Replayable() const override { return replayable_; }

 private:
  Status RunOpen(kernels::KernelContext& ctx) const {
    TheGuard().Open();
    Status status = inner_->Run(ctx);
    TheGuard().Close();
    return status;
  }

  std::unique_ptr<kernels::Kernel> inner_;
  std::string label_;
  bool replayable_;
};

}  // namespace

Allocator& GuardedAllocator() {
  static GuardedAllocatorImpl* allocator = new GuardedAllocatorImpl();
  return *allocator;
}

void GuardedCopy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  TheGuard().Open();
  std::memmove(dst, src, bytes);
  TheGuard().Close();
}

void RegisterGuardedKernels(kernels::KernelRegistry& registry) {
  for (const auto& [domain, op] : registry.Ops(kernels::kReferenceBackend)) {
    registry.Register(
        kGuardedBackend, domain, op,
        [&registry, domain = domain,
         op = op](const kernels::NodeDef& def) -> Result<std::unique_ptr<kernels::Kernel>> {
          const kernels::KernelFactory* reference =
              registry.Find(kernels::kReferenceBackend, domain, op);
          KILN_ASSIGN_OR_RETURN(std::unique_ptr<kernels::Kernel> inner, (*reference)(def));
          return std::unique_ptr<kernels::Kernel>(
              std::make_unique<GuardedKernel>(std::move(inner), def.Label(), def.graphs.empty()));
        });
  }
}

}  // namespace kiln::hal::testing

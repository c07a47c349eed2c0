// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_driver.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_allocator.h"
#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/cpu_peak.h"
#include "backends/cpu/cpu_queue.h"
#include "backends/cpu/spin_governor.h"
#include "base/env.h"
#include "hal/host_event.h"

namespace kiln::cpu {
namespace {

constexpr int kMaxCpuDevices = 8;

int ParseCount(const std::string& text, int fallback, int max) {
  if (text.empty()) return fallback;
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || value < 1) return fallback;
  return static_cast<int>(std::min<long>(value, max));
}

std::string TargetName() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "cpu-avx512";
  if (__builtin_cpu_supports("avx2")) return "cpu-avx2";
  return "cpu";
}

// One execution slot: a run's kernels use the executing thread's OpenMP team, sized while the
// run lasts to the device's threads divided by the runs in progress (cpu_compute.h).
class CpuExecution final : public hal::Execution {
 public:
  void Begin() override {
    probe_.Begin();
    previous_ = BeginTeamExecution();
    team_ = current_ = omp_get_max_threads();
  }
  void End() override {
    EndTeamExecution(previous_);
    probe_.End();
  }
  // A kernel whose work is too small (WorthTeamNow) runs on the calling thread alone (its
  // ParallelFor and oneDNN's regions too: DnnlKernel takes a plan made for one thread): a
  // parallel region's wake-up costs more than it saves there.
  void BeforeKernel(uint64_t ops, uint64_t bytes) override {
    const int want = WorthTeamNow(ops, bytes) ? team_ : 1;
    if (want != current_) {
      omp_set_num_threads(want);
      current_ = want;
    }
  }
  void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) override {
    TeamParallelFor(n, grain, fn);
  }

 private:
  int previous_ = 0;
  int team_ = 1, current_ = 1;
  LoadProbe probe_;  // the spin governor's measurement (spin_governor.h)
};

class CpuDevice final : public hal::Device {
 public:
  CpuDevice() {
    StartSpinGovernor();
    info_.backend = "cpu";
    info_.name = TargetName();
    info_.memory_bytes =
        static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(getpagesize());
    info_.compute_units = static_cast<int64_t>(ComputePool().size());
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    info_.l2_cache_bytes = l2 > 0 ? l2 : 0;
  }
  const hal::DeviceInfo& info() const override { return info_; }
  hal::Allocator& allocator() override { return allocator_; }
  std::shared_ptr<hal::Queue> CreateQueue() override {
    return std::make_shared<CpuQueue>(ComputePool());
  }
  std::shared_ptr<hal::Event> CreateEvent() override { return std::make_shared<hal::HostEvent>(); }
  uint64_t busy_ns() const override { return ComputePool().busy_ns(); }
  std::unique_ptr<hal::Execution> CreateExecution() override {
    return std::make_unique<CpuExecution>();
  }
  // On a thread of its own that ends with it: packing weights opens OpenMP regions, and libgomp
  // keeps a pool of workers for every thread that ever opened one, counting them all; with more
  // threads counted than the process has CPUs, every team's idle workers sleep at once instead
  // of spinning (spin_governor.h). Left on the loading thread, that pool made every execution
  // from another thread run with sleeping workers: MobileNetV2 6.7 ms instead of 3.35 when the
  // application loads on its main thread and executes on a worker, as servers do.
  // What `prepare` throws (out of memory) is thrown again on the calling thread.
  Status RunPreparation(FunctionRef<Status()> prepare) override {
    Status status = Status::Ok();
    std::exception_ptr thrown;
    std::thread helper;
    try {
      helper = std::thread([&] {
        try {
          status = prepare();
        } catch (...) {
          thrown = std::current_exception();
        }
      });
    } catch (const std::exception&) {  // no thread to be had: on the calling thread
      return prepare();
    }
    helper.join();
    if (thrown) std::rethrow_exception(thrown);
    return status;
  }
  // A model's kernels prepared by ComputeThreads() threads, each taking the next node: creating
  // oneDNN's primitives (JIT code generation) is serial work per node, and two at once took
  // YOLOv8n's load from 46.9 to 37.4 ms (2-core VM, 16 cold runs alternating, medians; ResNet-50,
  // MobileNetV2 and the BERT encoder, whose loads are mostly weight reorders oneDNN already
  // splits over both cores, unchanged). Plain threads, not an OpenMP team: oneDNN 2.6 inside a
  // parallel region packed s8 weights with a wrong compensation now and then (a QDQ model's
  // logits moved by a step from one load to the next: test_int8_qdq's same-bits test). Each
  // thread's own OpenMP team (for the weight reorders) ends with it.
  void ForEachPreparation(size_t n, FunctionRef<void(size_t)> task) override {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) task(i);
    };
    const size_t helpers = std::min(static_cast<size_t>(ComputeThreads()), n);
    std::vector<std::thread> threads;
    for (size_t h = 1; h < helpers; ++h) {
      try {
        threads.emplace_back(work);
      } catch (const std::exception&) {  // no more threads to be had: fewer helpers
        break;
      }
    }
    work();
    for (std::thread& t : threads) t.join();
  }
  double PeakGflops() override { return MeasureCpuPeakGflops(*this); }

 private:
  hal::DeviceInfo info_;
  CpuAllocator allocator_;
};

class CpuDriver final : public hal::Driver {
 public:
  std::string name() const override { return "cpu"; }
  int DeviceCount() override { return ParseCount(env::Get("KILN_CPU_DEVICES"), 1, kMaxCpuDevices); }
  Result<std::unique_ptr<hal::Device>> OpenDevice(int index) override {
    if (index < 0 || index >= DeviceCount()) {
      return Error(code::kRtInvalidDeviceId, "cpu device ", index, " does not exist");
    }
    return std::unique_ptr<hal::Device>(std::make_unique<CpuDevice>());
  }
};

}  // namespace

size_t UsableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max<long>(sysconf(_SC_NPROCESSORS_ONLN), 1);
}

ThreadPool& ComputePool() {
  static ThreadPool* pool = new ThreadPool(static_cast<size_t>(
      ParseCount(env::Get("KILN_CPU_THREADS"), static_cast<int>(UsableCores()), 1024)));
  return *pool;
}

std::unique_ptr<hal::Driver> CreateCpuDriver() { return std::make_unique<CpuDriver>(); }

}  // namespace kiln::cpu

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Init/finalize and devices. Contexts, streams and events are in context_stream_event.cc,
// memory in memory.cc.
#include "runtime/runtime.h"

#include "runtime/dump.h"
#include "runtime/model.h"
#include "runtime/profiler.h"
#include "runtime/usage_record.h"

#include <chrono>
#include <cstdlib>
#include <set>

#include "backends/register_all.h"
#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"

namespace kiln::runtime {

// The calling thread's current context (a handle; validated against contexts_ on every use).
thread_local const void* tls_context = nullptr;

Runtime& Runtime::Get() {
  static Runtime* runtime = new Runtime();  // outlives static destructors of the application
  return *runtime;
}

Status Runtime::Init(const char* config_path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (init_refs_ > 0) {
    ++init_refs_;
    return Error(code::kRepeatInitialize,
                 "aclInit was already called in this process (this call may be ignored)");
  }
  Config config;
  if (config_path != nullptr && *config_path != '\0') {
    KILN_ASSIGN_OR_RETURN(config, LoadConfigFile(config_path));
  }
  if (config.default_device) {
    discovered_ = false;  // the visible devices as this init sees them
    DiscoverDevicesLocked();
    if (static_cast<size_t>(*config.default_device) >= visible_.size()) {
      return Error(code::kParseFile, "'", config_path, "': default_device ", *config.default_device,
                   " is not a device of this process (", visible_.size(), " visible)");
    }
  }
  log::Configure();
  uint64_t limit = config.device_memory_limit.value_or(0);
  std::string env_limit = env::Get("KILN_DEVICE_MEMORY_LIMIT");
  if (!env_limit.empty()) {
    auto bytes = env::ParseByteSize(env_limit);
    if (!bytes) {
      return Error(code::kInvalidParam, "KILN_DEVICE_MEMORY_LIMIT='", env_limit,
                   "' is not a byte size such as 1073741824 or 512M");
    }
    limit = *bytes;
  }
  pool_capacity_override_ = limit;
  config_ = config;
  discovered_ = false;  // visible devices are read anew at each init
  init_refs_ = 1;
  KILN_LOG(kAscendCl, kInfo, "aclInit done",
           config_path ? StrCat(" with '", config_path, "'") : "");
  // The environment of msprof / `kiln prof --application` wins over acl.json.
  ProfilerOptions profiling = config.profiler;
  const bool command_line = env::Get("PROFILING_MODE") == "true";  // msprof, kiln prof
  if (command_line) {
    const std::string options = env::Get("PROFILING_OPTIONS");
    auto parsed = ParseProfilerOptions(options.empty() ? "{}" : options, "PROFILING_OPTIONS");
    if (!parsed.ok()) {
      init_refs_ = 0;
      return Error(code::kInvalidProfilingConfig, parsed.status().message());
    }
    profiling = *parsed;
  }
  if (config.dump) {
    Status st = Dumper::Get().StartFromConfig(*config.dump);
    if (!st.ok()) {
      init_refs_ = 0;
      return st;
    }
  }
  if (profiling.on && !Profiler::Get().initialized()) {
    Status st = Profiler::Get().StartFromOptions(
        profiling.output.empty() ? std::string(".") : profiling.output, profiling.data_types,
        command_line);
    if (!st.ok()) {
      init_refs_ = 0;
      if (config.dump) Dumper::Get().StopAutomatic();  // a failed aclInit leaves nothing on
      return Error(code::kInvalidProfilingConfig, "profiling: ", st.message());
    }
  }
  return Status::Ok();
}

Status Runtime::Finalize() {
  // Before the lock: writing the profile asks the runtime about its devices.
  if (initialized()) Profiler::Get().StopAutomatic();
  std::unique_lock<std::mutex> lock(mu_);
  if (init_refs_ == 0) {
    return Error(code::kRepeatFinalize, "aclFinalize called without a matching aclInit");
  }
  FinalizeLocked(lock);
  return Status::Ok();
}

Result<uint64_t> Runtime::FinalizeReference() {
  bool last = false;
  {
    std::lock_guard<std::mutex> peek(mu_);
    last = init_refs_ == 1;
  }
  if (last) Profiler::Get().StopAutomatic();  // the last reference: see Finalize
  std::unique_lock<std::mutex> lock(mu_);
  if (init_refs_ == 0) {
    return Error(code::kRepeatFinalize, "aclFinalizeReference called without aclInit");
  }
  if (--init_refs_ == 0) {
    init_refs_ = 1;  // FinalizeLocked expects to be the one that ends the session
    FinalizeLocked(lock);
  }
  return init_refs_;
}

void Runtime::FinalizeLocked(std::unique_lock<std::mutex>& lock) {
  // Uninitialised first: a thread racing with the resets (which release the lock) cannot open a
  // new device that would outlive this session.
  init_refs_ = 0;
  Dumper::Get().StopAutomatic();
  ModelTable::Get().Clear();
  while (!devices_.empty()) (void)ResetDeviceLocked(*devices_.begin()->second, lock);
  for (auto& [addr, block] : host_allocations_) FreeHostBlock(addr, block);
  host_allocations_.clear();
  tls_context = nullptr;
  UsagePublisher::Get().Remove();  // kiln smi stops listing this process
}

bool Runtime::initialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return init_refs_ > 0;
}

Config Runtime::config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

Status Runtime::CheckInitialized(const char* api) const {
  if (initialized()) return Status::Ok();
  return Error(code::kUninitialize, api, " needs aclInit to be called first");
}

void Runtime::DiscoverDevicesLocked() {
  if (discovered_) return;
  discovered_ = true;
  backends::RegisterAll();  // the built-in drivers and their kernels, once per process
  std::vector<Physical> physical;
  for (hal::Driver* driver : hal::Drivers()) {
    int n = driver->DeviceCount();
    for (int i = 0; i < n; ++i) physical.push_back({driver, i});
  }
  visible_.clear();
  const char* spec = std::getenv("ASCEND_RT_VISIBLE_DEVICES");
  if (spec == nullptr) {
    visible_ = physical;
    return;
  }
  // Comma-separated physical ids, renumbered 0..n-1 in the order given; parsing stops at the
  // first character, id or repeat that is not valid (CANN's rule).
  std::set<long> seen;
  const char* p = spec;
  while (*p >= '0' && *p <= '9') {
    long id = std::strtol(p, const_cast<char**>(&p), 10);
    if (id >= static_cast<long>(physical.size()) || !seen.insert(id).second) break;
    visible_.push_back(physical[static_cast<size_t>(id)]);
    if (*p != ',') break;
    ++p;
  }
}

Status Runtime::CheckDeviceIdLocked(int32_t id) {
  DiscoverDevicesLocked();
  if (id < 0 || id >= static_cast<int32_t>(visible_.size())) {
    return Error(code::kRtInvalidDeviceId, "device id ", id, " is invalid: ", visible_.size(),
                 " device(s) visible");
  }
  return Status::Ok();
}

uint32_t Runtime::VisibleDeviceCount() {
  std::lock_guard<std::mutex> lock(mu_);
  DiscoverDevicesLocked();
  return static_cast<uint32_t>(visible_.size());
}

Status Runtime::OpenDeviceLocked(int32_t id) {
  DiscoverDevicesLocked();
  if (visible_.empty()) {
    return Error(code::kRtNoDevice, "no device is visible to this process",
                 std::getenv("ASCEND_RT_VISIBLE_DEVICES")
                     ? StrCat(" (ASCEND_RT_VISIBLE_DEVICES='",
                              std::getenv("ASCEND_RT_VISIBLE_DEVICES"), "')")
                     : "");
  }
  if (id < 0 || id >= static_cast<int32_t>(visible_.size())) {
    return Error(code::kRtInvalidDeviceId, "device id ", id, " is invalid: ", visible_.size(),
                 " device(s) visible, ids 0..", visible_.size() - 1);
  }
  if (devices_.count(id)) return Status::Ok();
  const Physical& phys = visible_[static_cast<size_t>(id)];
  KILN_ASSIGN_OR_RETURN(auto hal_device, phys.driver->OpenDevice(phys.index));
  auto dev = std::make_unique<DeviceState>();
  dev->id = id;
  dev->hal = std::shared_ptr<hal::Device>(std::move(hal_device));
  uint64_t capacity =
      pool_capacity_override_ ? pool_capacity_override_ : dev->hal->info().memory_bytes;
  dev->pool = std::make_shared<MemoryPool>(dev->hal->allocator(), id, capacity, dev->hal);
  dev->pool->PublishUsage(UsagePublisher::Get().OpenDevice(id, capacity));
  if (!dev->hal->info().host_addressable) apart_devices_.store(true, std::memory_order_release);
  auto ctx = std::make_shared<Context>(id, /*is_default=*/true, nullptr);
  ctx->set_default_stream(NewStreamLocked(*dev, ctx.get(), 0, 0));
  dev->default_context = ctx;
  contexts_[ctx->handle()] = ctx;
  dev->last_query_ns = SteadyNowNs();
  dev->last_busy_ns = dev->hal->busy_ns();
  KILN_LOG(kRuntime, kInfo, "opened device ", id, " (", dev->hal->info().name, "), pool capacity ",
           capacity, " bytes");
  devices_[id] = std::move(dev);
  return Status::Ok();
}

std::shared_ptr<Stream> Runtime::NewStreamLocked(DeviceState& dev, Context* ctx, uint32_t priority,
                                                 uint32_t flags) {
  return std::make_shared<Stream>(dev.id, ctx, dev.hal->CreateQueue(), priority, flags);
}

Status Runtime::SetDevice(int32_t id) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtSetDevice"), "");
  std::lock_guard<std::mutex> lock(mu_);
  KILN_RETURN_IF_ERROR(OpenDeviceLocked(id), "");
  DeviceState& dev = *devices_[id];
  ++dev.refcount;
  tls_context = dev.default_context->handle();
  return Status::Ok();
}

Status Runtime::ResetDevice(int32_t id, bool force) {
  KILN_RETURN_IF_ERROR(CheckInitialized(force ? "aclrtResetDeviceForce" : "aclrtResetDevice"), "");
  std::unique_lock<std::mutex> lock(mu_);
  DiscoverDevicesLocked();
  KILN_RETURN_IF_ERROR(CheckDeviceIdLocked(id), "");
  auto it = devices_.find(id);
  if (it == devices_.end()) {
    KILN_LOG(kRuntime, kWarning, "aclrtResetDevice(", id,
             "): the device is not set; nothing to do");
    return Status::Ok();
  }
  if (!force && it->second->refcount > 1) {
    --it->second->refcount;
    return Status::Ok();
  }
  return ResetDeviceLocked(*it->second, lock);
}

Status Runtime::ResetDeviceLocked(DeviceState& dev_ref, std::unique_lock<std::mutex>& lock) {
  int32_t id = dev_ref.id;
  std::unique_ptr<DeviceState> dev = std::move(devices_[id]);
  devices_.erase(id);
  // Take every object of the device out of the tables first, so no other thread can reach it,
  // then wait for its streams with the lock released (a host function may call the API).
  std::vector<std::shared_ptr<Stream>> streams;
  std::vector<std::shared_ptr<Context>> contexts;
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (it->second->device() == id) {
      streams.push_back(it->second);
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = contexts_.begin(); it != contexts_.end();) {
    if (it->second->device() == id) {
      streams.push_back(it->second->default_stream());
      contexts.push_back(it->second);
      if (tls_context == it->first) tls_context = nullptr;
      it = contexts_.erase(it);
    } else {
      ++it;
    }
  }
  size_t leaked_events = 0;
  for (auto it = events_.begin(); it != events_.end();) {
    if (it->second->device() == id) {
      ++leaked_events;
      it = events_.erase(it);
    } else {
      ++it;
    }
  }
  size_t leaked_streams = streams.size() - contexts.size();
  lock.unlock();
  // Drop every waiting callback first: a stream may wait on an event that another stream
  // records only after its BLOCK callback.
  for (auto& s : streams) reports_.ForgetStream(*s);
  for (auto& s : streams) (void)s->queue().Synchronize(-1);
  // The device's models go with it (their weights and workspaces live in its pool); their ids
  // are then unknown (100011), as after aclmdlUnload.
  const size_t leaked_models = ModelTable::Get().RemoveDevice(id);
  {
    std::lock_guard<std::mutex> listeners(listeners_mu_);
    for (const auto& fn : reset_listeners_) fn(id);
  }
  if (leaked_streams + leaked_events + leaked_models > 0) {
    KILN_LOG(kRuntime, kInfo, "device ", id, " reset: reclaimed ", leaked_streams, " stream(s), ",
             leaked_events, " event(s) and ", leaked_models,
             " model(s) the application did not destroy or unload");
  }
  streams.clear();
  contexts.clear();
  dev.reset();  // the pool returns every block, leaked ones included
  lock.lock();
  return Status::Ok();
}

void Runtime::AddResetListener(std::function<void(int32_t)> fn) {
  std::lock_guard<std::mutex> lock(listeners_mu_);
  reset_listeners_.push_back(std::move(fn));
}

Result<int32_t> Runtime::CurrentDevice() {
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContext());
  return ctx->device();
}

Status Runtime::SynchronizeDevice(int32_t timeout_ms) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mu_);
    KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
    for (auto& [h, s] : streams_) {
      if (s->device() == ctx->device()) streams.push_back(s);
    }
    for (auto& [h, c] : contexts_) {
      if (c->device() == ctx->device()) streams.push_back(c->default_stream());
    }
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  Status first;
  for (auto& s : streams) {
    int32_t left = -1;
    if (timeout_ms >= 0) {
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
      left = static_cast<int32_t>(std::max<int64_t>(ms, 0));
    }
    Status st = s->queue().Synchronize(left);
    if (st.code() == code::kRtStreamSyncTimeout) {
      return Error(code::kRtStreamSyncTimeout, "device work not finished after ", timeout_ms,
                   " ms");
    }
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

Result<hal::DeviceInfo> Runtime::DeviceInfo(int32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (init_refs_ == 0) return Error(code::kUninitialize, "needs aclInit to be called first");
  if (auto it = devices_.find(id); it != devices_.end()) return it->second->hal->info();
  // Probe without opening: asking about a device must not set it (or fix its pool capacity).
  DiscoverDevicesLocked();
  KILN_RETURN_IF_ERROR(CheckDeviceIdLocked(id), "");
  KILN_ASSIGN_OR_RETURN(auto probe, visible_[static_cast<size_t>(id)].driver->OpenDevice(
                                        visible_[static_cast<size_t>(id)].index));
  return probe->info();
}

Result<std::shared_ptr<hal::Device>> Runtime::HalDevice(int32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = devices_.find(id); it != devices_.end()) return it->second->hal;
  DiscoverDevicesLocked();
  KILN_RETURN_IF_ERROR(CheckDeviceIdLocked(id), "");
  KILN_ASSIGN_OR_RETURN(auto probe, visible_[static_cast<size_t>(id)].driver->OpenDevice(
                                        visible_[static_cast<size_t>(id)].index));
  return std::shared_ptr<hal::Device>(std::move(probe));
}

std::string Runtime::SocName() {
  std::lock_guard<std::mutex> lock(mu_);
  auto ctx = CurrentContextLocked();
  if (ctx.ok()) return devices_[(*ctx)->device()]->hal->info().name;
  DiscoverDevicesLocked();
  if (visible_.empty()) return "";
  auto probe = visible_[0].driver->OpenDevice(visible_[0].index);
  return probe.ok() ? (*probe)->info().name : "";
}

Status Runtime::Utilization(int32_t id, int32_t* compute, int32_t* memory) {
  std::lock_guard<std::mutex> lock(mu_);
  DiscoverDevicesLocked();
  KILN_RETURN_IF_ERROR(CheckDeviceIdLocked(id), "");
  auto it = devices_.find(id);
  if (it == devices_.end()) {
    *compute = 0;
    *memory = 0;
    return Status::Ok();
  }
  DeviceState& dev = *it->second;
  uint64_t now = SteadyNowNs(), busy = dev.hal->busy_ns();
  uint64_t wall = (now - dev.last_query_ns) * static_cast<uint64_t>(dev.hal->info().compute_units);
  *compute =
      wall == 0
          ? 0
          : static_cast<int32_t>(std::min<uint64_t>(100, (busy - dev.last_busy_ns) * 100 / wall));
  dev.last_query_ns = now;
  dev.last_busy_ns = busy;
  PoolStats stats = dev.pool->stats();
  *memory = stats.capacity == 0 ? 0 : static_cast<int32_t>(stats.live_bytes * 100 / stats.capacity);
  return Status::Ok();
}

}  // namespace kiln::runtime

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/model.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "format/om_file.h"
#include "format/om_generated.h"
#include "format/sniff.h"
#include "format/target.h"
#include "runtime/dump.h"
#include "runtime/model_file.h"
#include "runtime/profiler.h"

namespace kiln::runtime {
namespace {

// The verified view of an .om, or an error that names what the bytes are instead.
Result<format::OmView> Open(const uint8_t* data, size_t size,
                            std::optional<uint32_t> payload_crc32 = std::nullopt) {
  format::FileKind kind = format::Sniff(data, size);
  if (kind != format::FileKind::kKilnOm) {
    return Error(code::kGeModelDataSizeInvalid, "not a Kiln .om file (it looks like ",
                 format::KindName(kind), "): ", format::AdviceFor(kind));
  }
  return format::VerifyOm(data, size, format::kFormatMajor, format::kFormatMinor, payload_crc32);
}

// The graph section holds 64-bit values read in place: bytes a caller gives at an address that
// is not 8-byte aligned are read from an aligned copy (`storage`, kept while they are read).
const uint8_t* Aligned(const uint8_t* data, size_t size, std::vector<uint64_t>* storage) {
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) == 0) return data;
  storage->resize((size + 7) / 8);
  std::memcpy(storage->data(), data, size);
  return reinterpret_cast<const uint8_t*>(storage->data());
}

IoDesc Describe(const TensorInfo& t) {
  IoDesc d;
  d.name = t.name;
  d.dtype = t.dtype;
  d.dims = t.dims;
  d.format = t.format;
  d.bytes = t.bytes;
  return d;
}

}  // namespace

Status QuerySize(const uint8_t* data, size_t size, size_t* work_size, size_t* weight_size) {
  std::vector<uint64_t> aligned;
  KILN_ASSIGN_OR_RETURN(format::OmView view, Open(Aligned(data, size, &aligned), size));
  const om::Model* model = om::GetModel(view.graph);
  if (work_size) *work_size = model->work_size();
  if (weight_size) *weight_size = view.weights_size;
  return Status::Ok();
}

Result<std::shared_ptr<Model>> Model::LoadFile(const char* path, std::shared_ptr<MemoryPool> pool,
                                               const std::string& backend,
                                               std::shared_ptr<hal::Device> device) {
  const uint64_t start = SteadyNowNs();
  KILN_ASSIGN_OR_RETURN(ModelFile file, ModelFile::Open(path));
  if (device != nullptr && !device->info().host_addressable) {
    // The file is read on the host; its weights are copied to the device (LoadFrom).
    std::vector<uint8_t> bytes;
    try {
      bytes.resize(file.size());
    } catch (const std::bad_alloc&) {
      return Error(code::kRtMemoryAllocation, "no host memory to read '", path, "' (", file.size(),
                   " bytes)");
    }
    KILN_RETURN_IF_ERROR(file.ReadAll(bytes.data()), "");
    return LoadFrom(bytes.data(), bytes.size(), std::move(pool), backend, LoadMemory{},
                    std::move(device), nullptr);
  }
  KILN_ASSIGN_OR_RETURN(void* block, pool->Allocate(file.size(), true));
  auto* bytes = static_cast<uint8_t*>(block);
  std::optional<uint32_t> payload_crc32;  // computed while reading, when read in pieces
  Status read = file.ReadAll(bytes, device.get(), &payload_crc32);
  if (!read.ok()) {
    (void)pool->Free(block);
    return read;
  }
  KILN_LOG(kAscendCl, kInfo, "read '", path, "' (", file.size(), " bytes) in ",
           (SteadyNowNs() - start) / 1000, " us");
  // The block is the model's from here (freed with it, or by Load on failure).
  return LoadFrom(bytes, file.size(), std::move(pool), backend, LoadMemory{}, std::move(device),
                  bytes, payload_crc32);
}

Result<std::shared_ptr<Model>> Model::Load(const uint8_t* data, size_t size,
                                           std::shared_ptr<MemoryPool> pool,
                                           const std::string& backend, const LoadMemory& mem,
                                           std::shared_ptr<hal::Device> device) {
  return LoadFrom(data, size, std::move(pool), backend, mem, std::move(device), nullptr);
}

Result<std::shared_ptr<Model>> Model::LoadFrom(const uint8_t* data, size_t size,
                                               std::shared_ptr<MemoryPool> pool,
                                               const std::string& backend, const LoadMemory& mem,
                                               std::shared_ptr<hal::Device> device,
                                               uint8_t* file_block,
                                               std::optional<uint32_t> payload_crc32) {
  std::shared_ptr<Model> model(new Model());
  model->pool_ = std::move(pool);
  model->weights_block_ = file_block;  // freed with the model, also when the load fails
  std::vector<uint64_t> aligned;
  const uint64_t start = SteadyNowNs();
  KILN_ASSIGN_OR_RETURN(format::OmView view,
                        Open(Aligned(data, size, &aligned), size, payload_crc32));
  const std::string_view target(view.header->target,
                                strnlen(view.header->target, sizeof view.header->target));
  const std::string mismatch =
      format::TargetMismatch(target, backend, device ? device->info().name : backend);
  if (!mismatch.empty()) return Error(code::kRtSocVersion, mismatch);
  const uint64_t verified = SteadyNowNs();
  static std::atomic<uint64_t> serials{0};
  model->serial_ = ++serials;
  model->hal_ = std::move(device);
  model->device_ = model->pool_ ? model->pool_->device() : 0;
  // Weights: the caller's memory, or a block of the device pool.
  const bool apart = model->hal_ != nullptr && !model->hal_->info().host_addressable;
  uint8_t* weights = nullptr;
  if (file_block != nullptr) {
    weights = const_cast<uint8_t*>(view.weights);  // in the block the file was read into
  } else if (view.weights_size > 0) {
    if (mem.weights != nullptr) {
      if (mem.weight_size < view.weights_size) {
        return Error(code::kInvalidParam, "weight memory of ", mem.weight_size,
                     " bytes is smaller than the model's ", view.weights_size,
                     " (aclmdlQuerySize tells the size)");
      }
      weights = static_cast<uint8_t*>(mem.weights);
    } else {
      // Huge pages: a large block that lives as long as the model (fewer page faults at load,
      // fewer TLB misses when the kernels read it).
      KILN_ASSIGN_OR_RETURN(void* p, model->pool_->Allocate(view.weights_size, true));
      weights = static_cast<uint8_t*>(p);
      model->weights_block_ = p;
    }
    if (apart) {
      // Kernels are prepared from a host copy (they upload what they keep); runs read the
      // device's.
      model->host_weights_.assign(view.weights, view.weights + view.weights_size);
      model->hal_->allocator().Copy(weights, view.weights, view.weights_size);
    } else {
      std::memcpy(weights, view.weights, view.weights_size);
    }
  }
  const om::Model* om_model = om::GetModel(view.graph);
  if (mem.work != nullptr) {
    if (mem.work_size < om_model->work_size()) {
      return Error(code::kInvalidParam, "work memory of ", mem.work_size,
                   " bytes is smaller than the model's ", om_model->work_size(),
                   " (aclmdlQuerySize tells the size)");
    }
    model->user_workspace_ = static_cast<uint8_t*>(mem.work);
  }
  // No tensor may need more than the device's memory pool can ever hold.
  const uint64_t capacity = model->pool_ ? model->pool_->stats().capacity : 0;
  // The model's own weight memory (not the caller's) may be given back where kernels keep
  // exact packed copies.
  const bool own_weights = model->weights_block_ != nullptr;
  auto build = [&]() -> Status {
    KILN_ASSIGN_OR_RETURN(
        model->program_,
        BuildProgram(view.graph, apart ? model->host_weights_.data() : weights, view.weights_size,
                     backend, model->hal_.get(), capacity, own_weights, apart ? weights : nullptr));
    return Status::Ok();
  };
  KILN_RETURN_IF_ERROR(model->hal_ ? model->hal_->RunPreparation(build) : build(), "");
  // The first execution slot is made now, so a first run allocates no more than later ones.
  KILN_ASSIGN_OR_RETURN(ExecSlot * first, model->AcquireSlot());
  model->ReleaseSlot(first);
  KILN_LOG(kAscendCl, kInfo, "model verified in ", (verified - start) / 1000,
           " us, its kernels prepared in ", (SteadyNowNs() - verified) / 1000, " us");
  const Program& p = *model->program_;
  const GraphProgram& g = p.graphs[0];
  ModelInfo& info = model->info_;
  if (om_model->name()) info.name = om_model->name()->str();
  for (int32_t t : g.inputs) {
    info.inputs.push_back(Describe(g.tensors[t]));
    for (const NodeInfo& n : g.nodes) {
      const bool dynamic = n.op_type == "DynamicAipp";
      if ((n.op_type != "Aipp" && !dynamic) || n.inputs.empty() || n.inputs[0] != t ||
          n.outputs.empty()) {
        continue;
      }
      info.inputs.back().aipp_out = std::make_shared<IoDesc>(Describe(g.tensors[n.outputs[0]]));
      if (dynamic && n.inputs.size() > 1) {
        const auto at = std::find(g.inputs.begin(), g.inputs.end(), n.inputs[1]);
        if (at != g.inputs.end()) {
          info.inputs.back().aipp_params_input = static_cast<int32_t>(at - g.inputs.begin());
        }
      }
    }
  }
  for (int32_t t : g.outputs) info.outputs.push_back(Describe(g.tensors[t]));
  info.gear_kind = p.gear_kind;
  info.gear_dims = p.gear_dims;
  for (const Gear& gear : p.gears) {
    info.gears.push_back(gear.values);
    auto dims_of = [&](const std::vector<int32_t>& ids) {
      std::vector<kernels::Dims> out;
      for (int32_t t : ids) {
        auto it = gear.tensor_dims.find(t);
        out.push_back(it != gear.tensor_dims.end() ? it->second : g.tensors[t].dims);
      }
      return out;
    };
    info.gear_input_dims.push_back(dims_of(g.inputs));
    info.gear_output_dims.push_back(dims_of(g.outputs));
  }
  info.work_size = p.work_size;
  info.weight_size = view.weights_size;
  if (const auto* aipp = om_model->aipp()) {
    for (const om::KeyValue* kv : *aipp) {
      if (kv->key() && kv->value()) info.aipp.emplace_back(kv->key()->str(), kv->value()->str());
    }
  }
  return model;
}

Model::~Model() {
  if (pool_) {
    if (weights_block_ != nullptr) (void)pool_->Free(weights_block_);
    for (uint8_t* ws : owned_workspaces_) (void)pool_->Free(ws);
  }
}

Result<Model::ExecSlot*> Model::AcquireSlot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!free_slots_.empty()) {
    ExecSlot* slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  // A first (or one more concurrent) execution: one more slot, kept for later runs. The
  // caller's work memory serves the first.
  auto slot = std::make_unique<ExecSlot>();
  if (slots_.empty() && user_workspace_ != nullptr) {
    slot->workspace = user_workspace_;
  } else if (program_->work_size > 0) {
    // On huge pages: every run reads and writes it (PP-OCRv4 det's runs took 0.90x the time,
    // MobileNetV2's 0.96x, and first runs no longer than on small pages).
    KILN_ASSIGN_OR_RETURN(void* p, pool_->Allocate(program_->work_size, true));
    owned_workspaces_.push_back(static_cast<uint8_t*>(p));
    slot->workspace = static_cast<uint8_t*>(p);
  }
  slot->state = CreateExecState(*program_, hal_ ? hal_->CreateExecution() : nullptr);
  slots_.push_back(std::move(slot));
  free_slots_.reserve(slots_.size());
  return slots_.back().get();
}

void Model::ReleaseSlot(ExecSlot* slot) {
  std::lock_guard<std::mutex> lock(mu_);
  free_slots_.push_back(slot);
}

Status Model::Execute(const std::vector<IoBuffer>& inputs, const std::vector<IoBuffer>& outputs,
                      ExecResult* result, uint32_t stream_id) {
  KILN_ASSIGN_OR_RETURN(ExecSlot * slot, AcquireSlot());
  ExecResult local;
  const uint64_t infer_id = ++executions_;
  // Observers only when something asked for them: an unprofiled run reads no clock.
  Profiler& profiler = Profiler::Get();
  std::unique_ptr<ProfileObserver> profile;
  if (profiler.ops_on() || profiler.subscribed(id())) {
    profile =
        std::make_unique<ProfileObserver>(serial_, info_.name, id(), static_cast<uint32_t>(device_),
                                          stream_id, infer_id, ExecutionOf(*slot->state));
  }
  // The data dump: one relaxed load when off.
  std::unique_ptr<DumpObserver> dump;
  std::string dump_name;
  if (auto session = Dumper::Get().SessionFor(info_.name, file_stem_, &dump_name)) {
    const uint64_t execution = session->NextExecution(id());
    dump = std::make_unique<DumpObserver>(std::move(session), &program_->graphs[0], dump_name, id(),
                                          static_cast<uint32_t>(device_), execution,
                                          ExecutionOf(*slot->state));
  }
  std::optional<ObserverFanOut> both;
  ExecObserver* observer = profile.get();
  if (dump) observer = dump.get();
  if (dump && profile)
    observer = &both.emplace(std::vector<ExecObserver*>{dump.get(), profile.get()});
  const uint64_t start_ns = profile ? ApiTimer::Now() : 0;
  Status st = Status::Ok();
  try {
    st = runtime::Execute(*program_, *slot->state, slot->workspace, inputs, outputs,
                          result ? result : &local, observer);
  } catch (const std::exception& e) {
    // A kernel or an observer that throws (std::bad_alloc, ...) fails this execution only: the
    // compute team, the workspace and the observers are released as after any other failure.
    st = Error(code::kInternalError, "model ", id(), " (", info_.name,
               "): the execution threw: ", e.what());
  }
  if (profile) {
    profiler.RecordTask(TaskKind::kModelExecute, static_cast<uint32_t>(device_), stream_id,
                        start_ns, ApiTimer::Now(),
                        StrCat("model ", id(), " (", info_.name, ") #", infer_id));
    profile->Finish();
  }
  if (dump) (void)dump->Finish();  // a write failure is logged; the execution stands
  ReleaseSlot(slot);
  if (st.ok()) current_gear_.store((result ? result : &local)->gear);
  return st;
}

ModelTable& ModelTable::Get() {
  static auto* table = new ModelTable();
  return *table;
}

uint32_t ModelTable::Add(std::shared_ptr<Model> model) {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t id = next_++;
  model->id_.store(id, std::memory_order_relaxed);
  models_[id] = std::move(model);
  return id;
}

Result<std::shared_ptr<Model>> ModelTable::Find(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(id);
  if (it == models_.end()) {
    return Error(code::kInvalidModelId, "model id ", id, " is not loaded");
  }
  return it->second;
}

Status ModelTable::Remove(uint32_t id) {
  std::shared_ptr<Model> model;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = models_.find(id);
    if (it == models_.end()) {
      return Error(code::kInvalidModelId, "model id ", id, " is not loaded");
    }
    model = std::move(it->second);
    models_.erase(it);
  }
  return Status::Ok();  // freed when the last execution in flight lets go
}

size_t ModelTable::RemoveDevice(int32_t device) {
  std::vector<std::shared_ptr<Model>> removed;  // freed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = models_.begin(); it != models_.end();) {
    if (it->second->device() == device) {
      removed.push_back(std::move(it->second));
      it = models_.erase(it);
    } else {
      ++it;
    }
  }
  return removed.size();
}

void ModelTable::Clear() {
  std::unordered_map<uint32_t, std::shared_ptr<Model>> models;
  {
    std::lock_guard<std::mutex> lock(mu_);
    models.swap(models_);
  }
}

}  // namespace kiln::runtime

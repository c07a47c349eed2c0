// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Loaded models: Model (a verified .om with weights bound in device memory, kernels prepared,
// and a free list of execution workspaces) and ModelTable (the process-wide model ids).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "runtime/executor.h"
#include "runtime/memory_pool.h"
#include "runtime/program.h"

namespace kiln::runtime {

// One model input or output as aclmdlDesc reports it.
struct IoDesc {
  std::string name;
  kernels::DataType dtype = kernels::DataType::kUndefined;
  kernels::Dims dims;  // -1 for dynamic dims
  int32_t format = 2;  // aclFormat
  uint64_t bytes = 0;  // the largest gear's size (0 when unbounded)
  // An input that static AIPP feeds (a com.kiln Aipp node reads it): the tensor that node makes,
  // which is what the model itself reads (docs/aipp.md "Execution"). Null otherwise.
  std::shared_ptr<const IoDesc> aipp_out;
  // Dynamic AIPP (a com.kiln DynamicAipp node reads it): the index of the model input that
  // carries its parameters (ascend_dynamic_aipp_data); -1 otherwise.
  int32_t aipp_params_input = -1;
};

struct ModelInfo {
  std::string name;  // the .om's model name (the ONNX file's name without its extension)
  std::vector<IoDesc> inputs, outputs;
  int gear_kind = 0;  // 0 none, 1 batch, 2 image size, 3 dims
  std::vector<std::string> gear_dims;
  std::vector<std::vector<int64_t>> gears;  // values per gear
  // Output dims per gear (index as `gears`); outputs without gear dims keep their dims.
  std::vector<std::vector<kernels::Dims>> gear_output_dims;
  // Input dims per gear.
  std::vector<std::vector<kernels::Dims>> gear_input_dims;
  uint64_t work_size = 0;
  uint64_t weight_size = 0;
  // The .om's AIPP record (--insert_op_conf; docs/aipp.md "How it is stored"): "<block>.<key>"
  // pairs, decoded by the compiler's AippFromKeyValues where the API needs them.
  std::vector<std::pair<std::string, std::string>> aipp;
};

// Caller-owned memory for a load (aclmdlLoadFrom*WithMem); null pointers = runtime-managed.
struct LoadMemory {
  void* work = nullptr;
  size_t work_size = 0;
  void* weights = nullptr;
  size_t weight_size = 0;
};

// The sizes of an .om's workspace and weights, read from its verified header and graph.
Status QuerySize(const uint8_t* data, size_t size, size_t* work_size, size_t* weight_size);

class Model {
 public:
  // Verifies `data` (refusing other formats by name), binds the weights into `pool` (or
  // mem.weights) and prepares the kernels for `backend`. Executions run their kernels'
  // parallel loops on `device`'s compute threads (null: on the calling thread alone).
  static Result<std::shared_ptr<Model>> Load(const uint8_t* data, size_t size,
                                             std::shared_ptr<MemoryPool> pool,
                                             const std::string& backend, const LoadMemory& mem,
                                             std::shared_ptr<hal::Device> device = nullptr);
  // Loads the .om at `path` (runtime-managed memory): the file is read straight into one
  // pool block of its size (huge pages), whose weights section the model then uses in place —
  // no second copy of the weights, at load or in the process's peak memory. File errors are
  // ModelFile's.
  static Result<std::shared_ptr<Model>> LoadFile(const char* path, std::shared_ptr<MemoryPool> pool,
                                                 const std::string& backend,
                                                 std::shared_ptr<hal::Device> device = nullptr);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelInfo& info() const { return info_; }
  // The stem of the .om file it was loaded from ("" from memory): a data dump's dump_list may
  // name the model by it (msame and ais_bench write the .om's name there).
  const std::string& file_stem() const { return file_stem_; }
  void set_file_stem(std::string stem) { file_stem_ = std::move(stem); }
  int32_t device() const { return device_; }
  // The id ModelTable gave it (0 before).
  uint32_t id() const { return id_.load(std::memory_order_relaxed); }
  // Runs once; concurrent calls each get their own workspace (the caller's for the first).
  // `stream_id` is the stream the run belongs to (Stream::id; the context's default stream for
  // aclmdlExecute), for profiles. A profiled (or subscribed) run times every node.
  Status Execute(const std::vector<IoBuffer>& inputs, const std::vector<IoBuffer>& outputs,
                 ExecResult* result, uint32_t stream_id = 0);
  // The gear last selected (aclmdlSetDynamic*) or run (-1: neither yet, or a static model).
  int current_gear() const { return current_gear_.load(); }
  void set_current_gear(int gear) { current_gear_.store(gear); }

 private:
  Model() = default;
  // One concurrent execution's workspace and reusable executor state.
  struct ExecSlot {
    uint8_t* workspace = nullptr;
    ExecStatePtr state;
  };
  // A free slot, or a new one (a new workspace from the pool) when all are in use.
  Result<ExecSlot*> AcquireSlot();
  void ReleaseSlot(ExecSlot* slot);

  friend class ModelTable;

  ModelInfo info_;
  std::string file_stem_;
  std::atomic<uint32_t> id_{0};
  uint64_t serial_ = 0;                  // unique in the process, never reused
  std::atomic<uint64_t> executions_{0};  // runs started, for the profiles' infer ids
  std::unique_ptr<Program> program_;
  std::shared_ptr<MemoryPool> pool_;
  std::shared_ptr<hal::Device> hal_;
  int32_t device_ = 0;
  // Load, and LoadFile with `file_block`: the pool block `data` lies in, which the model
  // takes (freeing it on failure) and whose weights it uses in place; and the payload's CRC-32
  // when the file was checked as it was read.
  static Result<std::shared_ptr<Model>> LoadFrom(
      const uint8_t* data, size_t size, std::shared_ptr<MemoryPool> pool,
      const std::string& backend, const LoadMemory& mem, std::shared_ptr<hal::Device> device,
      uint8_t* file_block, std::optional<uint32_t> payload_crc32 = std::nullopt);

  void* weights_block_ = nullptr;  // the pool block the weights live in, when the model owns it
  // A device the host cannot address: the weights' host copy its kernels were prepared from
  // (they may keep pointers into it: NodeDef::constants, tensor attributes).
  std::vector<uint8_t> host_weights_;
  std::mutex mu_;
  std::vector<std::unique_ptr<ExecSlot>> slots_;
  std::vector<ExecSlot*> free_slots_;
  std::vector<uint8_t*> owned_workspaces_;  // from the pool, freed at unload
  uint8_t* user_workspace_ = nullptr;
  std::atomic<int> current_gear_{-1};
};

// Model ids (process-wide, from 1).
class ModelTable {
 public:
  static ModelTable& Get();
  uint32_t Add(std::shared_ptr<Model> model);
  // kInvalidModelId for an id that is not loaded.
  Result<std::shared_ptr<Model>> Find(uint32_t id) const;
  Status Remove(uint32_t id);
  // Removes every model (aclFinalize).
  void Clear();
  // Removes every model loaded on `device` (aclrtResetDevice); returns how many. Each is freed
  // when the last execution in flight lets go of it.
  size_t RemoveDevice(int32_t device);

 private:
  mutable std::mutex mu_;
  uint32_t next_ = 1;
  std::unordered_map<uint32_t, std::shared_ptr<Model>> models_;
};

}  // namespace kiln::runtime

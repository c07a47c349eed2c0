// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The model API: load/unload, descriptions, gears and execution (docs/capi.md, "Models").
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "base/aipp.h"
#include "capi/error.h"
#include "capi/model_handles.h"
#include "compiler/aipp_config.h"
#include "runtime/model_file.h"
#include "runtime/runtime.h"

using kiln::Error;
using kiln::Result;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::ModelTable;
namespace code = kiln::code;

namespace {

// What an aclmdlDesc handle names.
struct ModelDesc {
  bool filled = false;
  uint32_t model_id = 0;
  kiln::runtime::ModelInfo info;
};

kiln::capi::HandleTable<aclmdlDesc, ModelDesc>& Descs() {
  static auto* table =
      new kiln::capi::HandleTable<aclmdlDesc, ModelDesc>("modelDesc", "aclmdlDesc");
  return *table;
}

// The description when it is live and filled; otherwise records why not and returns null.
std::shared_ptr<const ModelDesc> LiveDesc(const char* api, const aclmdlDesc* desc) {
  std::shared_ptr<ModelDesc> d = Descs().Live(api, desc);
  if (d == nullptr) return nullptr;
  if (!d->filled) {
    InvalidParam(api, "modelDesc is empty: fill it with aclmdlGetDesc first");
    return nullptr;
  }
  return d;
}

// A model file's bytes, read whole (runtime/model_file.h), for the paths that need a copy: the
// caller's weight memory (aclmdlLoadFromFileWithMem) and aclmdlQuerySize.
struct FileBytes {
  std::vector<uint8_t> data;
  size_t size() const { return data.size(); }
};

Result<FileBytes> ReadFile(const char* path) {
  KILN_ASSIGN_OR_RETURN(kiln::runtime::ModelFile file, kiln::runtime::ModelFile::Open(path));
  FileBytes out;
  out.data.resize(file.size());
  KILN_RETURN_IF_ERROR(file.ReadAll(out.data.data()), "");
  return out;
}

// Names the model after its file (a dump's dump_list may use it) and gives it an id.
aclError Register(std::shared_ptr<kiln::runtime::Model> model, const char* path,
                  uint32_t* modelId) {
  if (path != nullptr) {
    std::string stem = path;
    stem = stem.substr(stem.rfind('/') == std::string::npos ? 0 : stem.rfind('/') + 1);
    model->set_file_stem(stem.substr(0, stem.rfind('.')));
  }
  *modelId = ModelTable::Get().Add(std::move(model));
  return ACL_SUCCESS;
}

aclError Load(const char* api, const uint8_t* data, size_t size, uint32_t* modelId,
              const kiln::runtime::LoadMemory& mem, const char* path) {
  auto& rt = kiln::runtime::Runtime::Get();
  if (Status st = rt.CheckInitialized(api); !st.ok()) return Report(api, st);
  if (modelId == nullptr) return InvalidParam(api, "modelId is NULL");
  if (data == nullptr) return InvalidParam(api, "model is NULL");
  if (size == 0) return InvalidParam(api, "modelSize is 0");
  auto dev = rt.CurrentDeviceRef();
  if (!dev.ok()) return Report(api, dev.status());
  auto model = kiln::runtime::Model::Load(data, size, dev->pool, dev->backend, mem, dev->hal);
  if (!model.ok()) {
    Status st = model.status();
    if (path != nullptr) st = std::move(st).Annotate(std::string("'") + path + "'");
    return Report(api, st);
  }
  return Register(std::move(model).value(), path, modelId);
}

aclError LoadFile(const char* api, const char* path, uint32_t* modelId,
                  const kiln::runtime::LoadMemory& mem) {
  if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
    return Report(api, st);
  }
  if (modelId == nullptr) return InvalidParam(api, "modelId is NULL");
  if (mem.work == nullptr && mem.weights == nullptr) {
    // Runtime-managed memory: the file is read straight into the block its weights stay in.
    auto& rt = kiln::runtime::Runtime::Get();
    auto dev = rt.CurrentDeviceRef();
    if (!dev.ok()) return Report(api, dev.status());
    auto model = kiln::runtime::Model::LoadFile(path, dev->pool, dev->backend, dev->hal);
    if (!model.ok()) {
      Status st = model.status();
      if (path != nullptr) st = std::move(st).Annotate(std::string("'") + path + "'");
      return Report(api, st);
    }
    return Register(std::move(model).value(), path, modelId);
  }
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return Report(api, bytes.status());
  return Load(api, bytes->data.data(), bytes->size(), modelId, mem, path);
}

void FillDims(const std::string& name, const kiln::kernels::Dims& dims, aclmdlIODims* out) {
  kiln::capi::FillIoDims(name, dims, out);
}

const kiln::runtime::IoDesc* Io(const char* api, const aclmdlDesc* desc, size_t index, bool input) {
  auto d = LiveDesc(api, desc);
  if (d == nullptr) return nullptr;
  const auto& list = input ? d->info.inputs : d->info.outputs;
  if (index >= list.size()) {
    InvalidParam(api, "index ", index, " is out of range: the model has ", list.size(),
                 input ? " input(s)" : " output(s)");
    return nullptr;
  }
  return &list[index];
}

// `image_dims`: aclmdlGetInputDims, which reports a static AIPP input as the image (n, h, w, c)
// where V2 gives the stored dims (docs/aipp.md): they differ where the stored rows are not the
// image's (YUV420SP_U8 [n, 1.5 h, w, 1], YUV422SP_U8 [n, 2 h, w, 1]) or a pixel's bytes are not its
// channels (YUYV_U8 [n, h, w, 2]): c is then the channels AIPP makes.
kiln::kernels::Dims ImageDims(const kiln::runtime::ModelInfo& info, size_t index,
                              const kiln::runtime::IoDesc& io) {
  if (!io.aipp_out || io.aipp_params_input >= 0 || io.dims.size() != 4) return io.dims;
  auto configs = kiln::compiler::AippFromKeyValues(info.aipp);
  if (!configs.ok()) return io.dims;
  for (const kiln::compiler::AippConfig& c : *configs) {
    if (static_cast<size_t>(c.related_input_rank) != index) continue;
    const kiln::aipp::Format* f =
        kiln::aipp::FindFormat(kiln::compiler::AippInputFormatName(c.input_format));
    if (f == nullptr) break;
    return {io.dims[0], kiln::aipp::SourceHeight(*f, io.dims[1]), io.dims[2], f->model_channels};
  }
  return io.dims;
}

aclError GetDims(const char* api, const aclmdlDesc* desc, size_t index, aclmdlIODims* dims,
                 bool input, bool image_dims = false) {
  KILN_CAPI(api, {
    const auto* io = Io(api, desc, index, input);
    if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dims == nullptr) return InvalidParam(api, "dims is NULL");
    auto d = LiveDesc(api, desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    FillDims(io->name, image_dims ? ImageDims(d->info, index, *io) : io->dims, dims);
    return ACL_SUCCESS;
  });
}

aclError IndexByName(const char* api, const aclmdlDesc* desc, const char* name, size_t* index,
                     bool input) {
  KILN_CAPI(api, {
    auto d = LiveDesc(api, desc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (name == nullptr) return InvalidParam(api, "name is NULL");
    if (index == nullptr) return InvalidParam(api, "index is NULL");
    const auto& list = input ? d->info.inputs : d->info.outputs;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].name == name) {
        *index = i;
        return ACL_SUCCESS;
      }
    }
    return InvalidParam(api, "the model has no ", input ? "input" : "output", " named '", name,
                        "'");
  });
}

// Whether the `size` bytes at `data` are memory the execution may touch (docs/capi.md, "Buffers
// given to execute"): inside a live aclrtMalloc / aclrtMallocHost allocation with room for all of
// them, or, for memory Kiln did not allocate (the CPU device's host memory), mapped from the
// first byte to the last (msync fails with ENOMEM on a gap). Freed device memory and wild
// addresses are refused instead of read or written.
Status CheckIoMemory(const void* data, size_t size, const char* what, size_t i) {
  using kiln::runtime::MemoryKind;
  const kiln::runtime::PointerInfo info = kiln::runtime::Runtime::Get().Classify(data);
  switch (info.kind) {
    case MemoryKind::kFreedDevice:
      return Error(code::kInvalidParam, what, " buffer ", i, " at ", kiln::PtrStr(data),
                   " points into device memory that was freed (aclrtFree)");
    case MemoryKind::kDevice:
    case MemoryKind::kHost:
      if (size > info.bytes_from) {
        return Error(code::kInvalidParam, what, " buffer ", i, " claims ", size, " bytes at ",
                     kiln::PtrStr(data), ", but its allocation has ", info.bytes_from,
                     " bytes from there");
      }
      return Status::Ok();
    case MemoryKind::kUnknown:
      break;
  }
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(data) & ~(page - 1);
  uintptr_t end;
  if (__builtin_add_overflow(reinterpret_cast<uintptr_t>(data), size == 0 ? 1 : size, &end) ||
      msync(reinterpret_cast<void*>(start), end - start, MS_ASYNC) != 0) {
    return Error(code::kInvalidParam, what, " buffer ", i, " at ", kiln::PtrStr(data), " (", size,
                 " bytes) is not memory of this process");
  }
  return Status::Ok();
}

// The dataset's buffers as the executor takes them. Only an input's desc is read (its dims pick
// the run's shape); an output's desc is written by the run, and an earlier run still in flight on
// a stream may be writing it now.
// Fills `out` (its storage reused: a repeated run allocates nothing).
Status Buffers(const kiln::capi::Dataset& ds, const char* what, bool read_descs,
               std::vector<kiln::runtime::IoBuffer>* out) {
  out->resize(ds.buffers.size());
  for (size_t i = 0; i < ds.buffers.size(); ++i) {
    kiln::runtime::IoBuffer& b = (*out)[i];
    if (!kiln::capi::ReadDataBuffer(ds.buffers[i], &b.data, &b.size)) {
      return Error(code::kInvalidParam, what, " buffer ", i,
                   " is not a live aclDataBuffer (destroyed after it was added?)");
    }
    b.has_dims = false;
    if (b.data == nullptr && b.size != 0) {
      return Error(code::kInvalidParam, what, " buffer ", i, " is NULL but claims ", b.size,
                   " bytes");
    }
    if (b.data != nullptr) KILN_RETURN_IF_ERROR(CheckIoMemory(b.data, b.size, what, i), "");
    if (read_descs) {
      std::lock_guard<std::mutex> lock(ds.descs_mu);
      if (const aclTensorDesc* desc = ds.descs[i]) {
        b.has_dims = kiln::capi::ReadTensorDescDims(desc, &b.dims);
      }
    }
  }
  return Status::Ok();
}

// After a run: the output dataset's descs give each output's actual dims.
void SetOutputDescs(kiln::capi::Dataset* out, const kiln::runtime::ModelInfo& info,
                    const kiln::runtime::ExecResult& result) {
  std::lock_guard<std::mutex> lock(out->descs_mu);
  for (size_t i = 0; i < out->descs.size() && i < result.output_dims.size(); ++i) {
    const auto& dims = result.output_dims[i];
    const aclDataType dtype = kiln::capi::ToAclType(info.outputs[i].dtype);
    const aclFormat format = static_cast<aclFormat>(info.outputs[i].format);
    if (out->descs[i] && kiln::capi::TensorDescSays(out->descs[i], dtype, format, dims)) {
      continue;  // the last run's desc says it already
    }
    aclTensorDesc* d =
        aclCreateTensorDesc(dtype, static_cast<int>(dims.size()), dims.data(), format);
    if (d == nullptr) continue;
    if (out->descs[i]) aclDestroyTensorDesc(out->descs[i]);
    out->descs[i] = d;
  }
}

// Writes gear `values` into the selector buffer at `index` of `dataset` (CANN's
// ascend_mbatch_shape_data), after the checks the reference gives.
aclError SelectGear(const char* api, uint32_t modelId, aclmdlDataset* dataset, size_t index,
                    int kind, const std::vector<int64_t>& values, int invalid_code) {
  auto& rt = kiln::runtime::Runtime::Get();
  if (Status st = rt.CheckInitialized(api); !st.ok()) return Report(api, st);
  auto model = ModelTable::Get().Find(modelId);
  if (!model.ok()) return Report(api, model.status());
  auto ds = kiln::capi::LiveDataset(api, dataset);
  if (ds == nullptr) return ACL_ERROR_INVALID_PARAM;
  const auto& info = (*model)->info();
  if (info.gear_kind != kind) {
    return Report(api, Error(code::kModelNotDynamic, "model ", modelId,
                             " was not compiled with this kind of gear"));
  }
  if (index >= ds->buffers.size()) {
    return InvalidParam(api, "index ", index, " has no buffer in the dataset (", ds->buffers.size(),
                        " buffers)");
  }
  void* addr = nullptr;
  size_t size = 0;
  if (!kiln::capi::ReadDataBuffer(ds->buffers[index], &addr, &size)) {
    return InvalidParam(api, "the buffer at index ", index,
                        " is not a live aclDataBuffer (destroyed after it was added?)");
  }
  if (addr == nullptr) return InvalidParam(api, "the buffer at index ", index, " has no address");
  if (size < values.size() * sizeof(int64_t)) {
    return Report(
        api, Error(code::kGeDynamicInputLengthInvalid, "the buffer at index ", index, " has ", size,
                   " bytes; the gear needs ", values.size() * sizeof(int64_t)));
  }
  bool known = false;
  for (const auto& g : info.gears) known |= g == values;
  if (!known) {
    std::ostringstream gs;
    for (size_t i = 0; i < info.gears.size(); ++i) {
      gs << (i ? " " : "");
      for (size_t k = 0; k < info.gears[i].size(); ++k) gs << (k ? "," : "") << info.gears[i][k];
    }
    return Report(api, Error(invalid_code, "not a compiled gear; the model has: ", gs.str()));
  }
  kiln::runtime::Runtime::Get().CopyMemory(addr, values.data(), values.size() * sizeof(int64_t));
  for (size_t g = 0; g < info.gears.size(); ++g) {
    if (info.gears[g] == values) (*model)->set_current_gear(static_cast<int>(g));
  }
  return ACL_SUCCESS;
}

// What an execution needs, checked: the model and the datasets' buffers, read once when the call
// is made (an asynchronous run uses these, whatever the application changes in its datasets
// after the call returns).
struct ExecuteCall {
  std::shared_ptr<kiln::runtime::Model> model;
  std::shared_ptr<kiln::capi::Dataset> out;
  std::vector<kiln::runtime::IoBuffer> ins, outs;
};

aclError PrepareExecute(const char* api, uint32_t modelId, const aclmdlDataset* input,
                        aclmdlDataset* output, ExecuteCall* call) {
  if (Status st = kiln::runtime::Runtime::Get().CheckInitialized(api); !st.ok()) {
    return Report(api, st);
  }
  auto model = ModelTable::Get().Find(modelId);
  if (!model.ok()) return Report(api, model.status());
  auto in = kiln::capi::LiveDataset(api, input);
  call->out = kiln::capi::LiveDataset(api, output);
  if (in == nullptr || call->out == nullptr) return ACL_ERROR_INVALID_PARAM;
  if (Status st = Buffers(*in, "input", /*read_descs=*/true, &call->ins); !st.ok()) {
    return Report(api, st);
  }
  if (Status st = Buffers(*call->out, "output", /*read_descs=*/false, &call->outs); !st.ok()) {
    return Report(api, st);
  }
  call->model = std::move(model).value();
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  KILN_CAPI("aclmdlLoadFromFile",
            { return LoadFile("aclmdlLoadFromFile", modelPath, modelId, {}); });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize, uint32_t* modelId) {
  KILN_CAPI("aclmdlLoadFromMem", {
    return Load("aclmdlLoadFromMem", static_cast<const uint8_t*>(model), modelSize, modelId, {},
                nullptr);
  });
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr,
                                   size_t workSize, void* weightPtr, size_t weightSize) {
  KILN_CAPI("aclmdlLoadFromFileWithMem", {
    return LoadFile("aclmdlLoadFromFileWithMem", modelPath, modelId,
                    {workPtr, workSize, weightPtr, weightSize});
  });
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize, uint32_t* modelId,
                                  void* workPtr, size_t workSize, void* weightPtr,
                                  size_t weightSize) {
  KILN_CAPI("aclmdlLoadFromMemWithMem", {
    return Load("aclmdlLoadFromMemWithMem", static_cast<const uint8_t*>(model), modelSize, modelId,
                {workPtr, workSize, weightPtr, weightSize}, nullptr);
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  KILN_CAPI("aclmdlQuerySize", {
    if (workSize == nullptr || weightSize == nullptr) {
      return InvalidParam("aclmdlQuerySize", "workSize or weightSize is NULL");
    }
    auto bytes = ReadFile(fileName);
    if (!bytes.ok()) return Report("aclmdlQuerySize", bytes.status());
    Status st = kiln::runtime::QuerySize(bytes->data.data(), bytes->size(), workSize, weightSize);
    if (!st.ok()) return Report("aclmdlQuerySize", std::move(st).Annotate(fileName));
    return ACL_SUCCESS;
  });
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize, size_t* workSize,
                                size_t* weightSize) {
  KILN_CAPI("aclmdlQuerySizeFromMem", {
    if (model == nullptr) return InvalidParam("aclmdlQuerySizeFromMem", "model is NULL");
    if (workSize == nullptr || weightSize == nullptr) {
      return InvalidParam("aclmdlQuerySizeFromMem", "workSize or weightSize is NULL");
    }
    Status st = kiln::runtime::QuerySize(static_cast<const uint8_t*>(model), modelSize, workSize,
                                         weightSize);
    return st.ok() ? ACL_SUCCESS : Report("aclmdlQuerySizeFromMem", st);
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  KILN_CAPI("aclmdlUnload", {
    Status st = ModelTable::Get().Remove(modelId);
    // A subscription ends with its model (its id may be given to the next load).
    kiln::runtime::Profiler& profiler = kiln::runtime::Profiler::Get();
    if (st.ok() && profiler.subscribed(modelId)) (void)profiler.Unsubscribe(modelId);
    return st.ok() ? ACL_SUCCESS : Report("aclmdlUnload", st);
  });
}

aclmdlDesc* aclmdlCreateDesc(void) {
  try {
    return Descs().Add(std::make_shared<ModelDesc>());
  } catch (...) {
    Report("aclmdlCreateDesc", Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  KILN_CAPI("aclmdlDestroyDesc", {
    if (modelDesc == nullptr) return InvalidParam("aclmdlDestroyDesc", "modelDesc is NULL");
    if (Descs().Remove(modelDesc) == nullptr) {
      return InvalidParam("aclmdlDestroyDesc", Descs().NotLive(modelDesc));
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  KILN_CAPI("aclmdlGetDesc", {
    if (modelDesc == nullptr) return InvalidParam("aclmdlGetDesc", "modelDesc is NULL");
    std::shared_ptr<ModelDesc> d = Descs().Find(modelDesc);
    if (d == nullptr) return InvalidParam("aclmdlGetDesc", Descs().NotLive(modelDesc));
    auto model = ModelTable::Get().Find(modelId);
    if (!model.ok()) return Report("aclmdlGetDesc", model.status());
    d->info = (*model)->info();
    d->model_id = modelId;
    d->filled = true;
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  auto d = LiveDesc("aclmdlGetNumInputs", modelDesc);
  return d ? d->info.inputs.size() : 0;
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  auto d = LiveDesc("aclmdlGetNumOutputs", modelDesc);
  return d ? d->info.outputs.size() : 0;
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetInputSizeByIndex", modelDesc, index, true);
  return io ? io->bytes : 0;
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetOutputSizeByIndex", modelDesc, index, false);
  return io ? io->bytes : 0;
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return GetDims("aclmdlGetInputDims", modelDesc, index, dims, true, /*image_dims=*/true);
}

aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return GetDims("aclmdlGetInputDimsV2", modelDesc, index, dims, true);
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return GetDims("aclmdlGetOutputDims", modelDesc, index, dims, false);
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  KILN_CAPI("aclmdlGetCurOutputDims", {
    const auto* io = Io("aclmdlGetCurOutputDims", modelDesc, index, false);
    if (io == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dims == nullptr) return InvalidParam("aclmdlGetCurOutputDims", "dims is NULL");
    auto desc = LiveDesc("aclmdlGetCurOutputDims", modelDesc);
    if (desc == nullptr) return ACL_ERROR_INVALID_PARAM;  // destroyed since Io() found it
    const auto& info = desc->info;
    if (info.gears.empty()) {
      FillDims(io->name, io->dims, dims);
      return ACL_SUCCESS;
    }
    // The gear last selected or run on the model, or its largest before either.
    int gear = -1;
    if (auto model = ModelTable::Get().Find(desc->model_id); model.ok()) {
      gear = (*model)->current_gear();
    }
    if (gear < 0) {
      gear = 0;
      uint64_t best = 0;
      for (size_t g = 0; g < info.gear_output_dims.size(); ++g) {
        uint64_t n = 1;
        for (int64_t d : info.gear_output_dims[g][index]) n *= static_cast<uint64_t>(d < 0 ? 1 : d);
        if (n > best) best = n, gear = static_cast<int>(g);
      }
    }
    FillDims(io->name, info.gear_output_dims[gear][index], dims);
    return ACL_SUCCESS;
  });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetInputNameByIndex", modelDesc, index, true);
  return io ? io->name.c_str() : "";
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetOutputNameByIndex", modelDesc, index, false);
  return io ? io->name.c_str() : "";
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetInputFormat", modelDesc, index, true);
  return io ? static_cast<aclFormat>(io->format) : ACL_FORMAT_UNDEFINED;
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetOutputFormat", modelDesc, index, false);
  return io ? static_cast<aclFormat>(io->format) : ACL_FORMAT_UNDEFINED;
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetInputDataType", modelDesc, index, true);
  return io ? kiln::capi::ToAclType(io->dtype) : ACL_DT_UNDEFINED;
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  const auto* io = Io("aclmdlGetOutputDataType", modelDesc, index, false);
  return io ? kiln::capi::ToAclType(io->dtype) : ACL_DT_UNDEFINED;
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return IndexByName("aclmdlGetInputIndexByName", modelDesc, name, index, true);
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return IndexByName("aclmdlGetOutputIndexByName", modelDesc, name, index, false);
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch) {
  KILN_CAPI("aclmdlGetDynamicBatch", {
    auto d = LiveDesc("aclmdlGetDynamicBatch", modelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (batch == nullptr) return InvalidParam("aclmdlGetDynamicBatch", "batch is NULL");
    batch->batchCount = 0;
    if (d->info.gear_kind == 1) {
      for (const auto& g : d->info.gears) {
        if (batch->batchCount < ACL_MAX_BATCH_NUM && !g.empty()) {
          batch->batch[batch->batchCount++] = static_cast<uint64_t>(g[0]);
        }
      }
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index, aclmdlHW* hw) {
  KILN_CAPI("aclmdlGetDynamicHW", {
    auto d = LiveDesc("aclmdlGetDynamicHW", modelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (hw == nullptr) return InvalidParam("aclmdlGetDynamicHW", "hw is NULL");
    hw->hwCount = 0;
    if (d->info.gear_kind == 2) {
      for (const auto& g : d->info.gears) {
        if (hw->hwCount < ACL_MAX_HW_NUM && g.size() >= 2) {
          hw->hw[hw->hwCount][0] = static_cast<uint64_t>(g[0]);
          hw->hw[hw->hwCount][1] = static_cast<uint64_t>(g[1]);
          ++hw->hwCount;
        }
      }
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc, size_t index,
                                        size_t* gearCount) {
  KILN_CAPI("aclmdlGetInputDynamicGearCount", {
    auto d = LiveDesc("aclmdlGetInputDynamicGearCount", modelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (gearCount == nullptr) {
      return InvalidParam("aclmdlGetInputDynamicGearCount", "gearCount is NULL");
    }
    if (index != static_cast<size_t>(-1)) {
      return InvalidParam("aclmdlGetInputDynamicGearCount", "index must be (size_t)-1, got ",
                          index);
    }
    *gearCount = d->info.gear_kind == 3 ? d->info.gears.size() : 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims,
                                   size_t gearCount) {
  KILN_CAPI("aclmdlGetInputDynamicDims", {
    const char* api = "aclmdlGetInputDynamicDims";
    auto d = LiveDesc(api, modelDesc);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dims == nullptr) return InvalidParam(api, "dims is NULL");
    if (index != static_cast<size_t>(-1)) {
      return InvalidParam(api, "index must be (size_t)-1, got ", index);
    }
    if (d->info.gear_kind != 3) {
      return Report(api, Error(code::kModelNotDynamic, "the model has no dynamic dims gears"));
    }
    if (gearCount < d->info.gears.size()) {
      return InvalidParam(api, "gearCount ", gearCount, " is less than the model's ",
                          d->info.gears.size(), " gears");
    }
    // Per gear: every data input's dims, concatenated in input order (CANN's layout).
    for (size_t g = 0; g < d->info.gears.size(); ++g) {
      kiln::kernels::Dims all;
      for (size_t i = 0; i < d->info.inputs.size(); ++i) {
        if (d->info.inputs[i].name == ACL_DYNAMIC_TENSOR_NAME) continue;
        const auto& in = d->info.gear_input_dims[g][i];
        all.insert(all.end(), in.begin(), in.end());
      }
      FillDims("", all, &dims[g]);
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                   uint64_t batchSize) {
  KILN_CAPI("aclmdlSetDynamicBatchSize", {
    if (batchSize == 0) return InvalidParam("aclmdlSetDynamicBatchSize", "batchSize is 0");
    return SelectGear("aclmdlSetDynamicBatchSize", modelId, dataset, index, 1,
                      {static_cast<int64_t>(batchSize)}, code::kGeDynamicBatchSizeInvalid);
  });
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                uint64_t height, uint64_t width) {
  KILN_CAPI("aclmdlSetDynamicHWSize", {
    if (height == 0 || width == 0) {
      return InvalidParam("aclmdlSetDynamicHWSize", "height and width must be > 0");
    }
    return SelectGear("aclmdlSetDynamicHWSize", modelId, dataset, index, 2,
                      {static_cast<int64_t>(height), static_cast<int64_t>(width)},
                      code::kInvalidParam);
  });
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                   const aclmdlIODims* dims) {
  KILN_CAPI("aclmdlSetInputDynamicDims", {
    const char* api = "aclmdlSetInputDynamicDims";
    if (dims == nullptr) return InvalidParam(api, "dims is NULL");
    if (dims->dimCount > ACL_MAX_DIM_CNT) {
      return InvalidParam(api, "dims->dimCount ", dims->dimCount, " is over ", ACL_MAX_DIM_CNT);
    }
    auto model = ModelTable::Get().Find(modelId);
    if (!model.ok()) return Report(api, model.status());
    const auto& info = (*model)->info();
    std::vector<int64_t> values;
    if (dims->dimCount == info.gear_dims.size()) {
      values.assign(dims->dims, dims->dims + dims->dimCount);  // the gear values themselves
    } else {
      // Every data input's full dims, concatenated: pick the values at the gear slots.
      for (const std::string& slot : info.gear_dims) {
        std::string target = slot.substr(0, slot.find(';'));
        size_t colon = target.rfind(':');
        std::string input = target.substr(0, colon);
        size_t dim = static_cast<size_t>(std::stoul(target.substr(colon + 1)));
        size_t offset = 0;
        bool found = false;
        for (const auto& in : info.inputs) {
          if (in.name == input) {
            found = true;
            break;
          }
          if (in.name != ACL_DYNAMIC_TENSOR_NAME) offset += in.dims.size();
        }
        if (!found || offset + dim >= dims->dimCount) {
          return InvalidParam(api, "dims has ", dims->dimCount,
                              " values; expected the gear values or every input's dims");
        }
        values.push_back(dims->dims[offset + dim]);
      }
    }
    return SelectGear(api, modelId, dataset, index, 3, values, code::kInvalidParam);
  });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  KILN_CAPI("aclmdlExecute", {
    const char* api = "aclmdlExecute";
    // The call's buffers and result live with the thread and are reused run after run, so a
    // synchronous run of a static model allocates nothing (a nested call gets its own).
    struct Reused {
      ExecuteCall call;
      kiln::runtime::ExecResult result;
      bool busy = false;
    };
    thread_local Reused reused;
    std::optional<Reused> own;
    Reused& r = reused.busy ? own.emplace() : reused;
    r.busy = true;
    struct Done {
      Reused& r;
      ~Done() {
        r.busy = false;
        r.call.model.reset();
        r.call.out.reset();
      }
    } done{r};
    ExecuteCall& call = r.call;
    if (aclError e = PrepareExecute(api, modelId, input, output, &call); e != ACL_SUCCESS) {
      return e;
    }
    // A profile shows a synchronous run on the context's default stream.
    uint32_t stream_id = 0;
    kiln::runtime::Profiler& profiler = kiln::runtime::Profiler::Get();
    if (profiler.ops_on() || profiler.subscribed(modelId)) {
      auto s = kiln::runtime::Runtime::Get().ResolveStream(nullptr);
      if (s.ok()) stream_id = (*s)->id();
    }
    // An output without a buffer (NULL, 0) gets device memory the application then owns and
    // frees with aclrtFree, as CANN's aclmdlExecute gives it (docs/capi.md, "Models").
    bool allocates = false;
    for (auto& out : call.outs) {
      if (out.data != nullptr || out.size != 0) continue;
      allocates = true;
      out.allocate = kiln::capi::MallocForCaller;
    }
    Status st = call.model->Execute(call.ins, call.outs, &r.result, stream_id);
    if (allocates) {
      for (auto& out : call.outs) out.allocate = nullptr;
    }
    if (!st.ok()) return Report(api, std::move(st).Annotate("model " + std::to_string(modelId)));
    for (size_t i = 0; i < r.result.allocated.size() && i < call.out->buffers.size(); ++i) {
      const auto& [data, bytes] = r.result.allocated[i];
      if (data != nullptr) kiln::capi::WriteDataBuffer(call.out->buffers[i], data, bytes);
    }
    SetOutputDescs(call.out.get(), call.model->info(), r.result);
    return ACL_SUCCESS;
  });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                            aclrtStream stream) {
  KILN_CAPI("aclmdlExecuteAsync", {
    const char* api = "aclmdlExecuteAsync";
    ExecuteCall call;
    if (aclError e = PrepareExecute(api, modelId, input, output, &call); e != ACL_SUCCESS) {
      return e;
    }
    auto s = kiln::runtime::Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report(api, s.status());
    // The model stays alive until the run; the output dataset gets its descs if its handle is
    // still live then (handles are never reused: a dataset destroyed meanwhile is not another's).
    (*s)->queue().Submit([m = call.model, ins = std::move(call.ins), outs = std::move(call.outs),
                          output, modelId, stream_id = (*s)->id()]() -> Status {
      kiln::runtime::ExecResult result;
      Status st = m->Execute(ins, outs, &result, stream_id);
      if (!st.ok()) return std::move(st).Annotate("model " + std::to_string(modelId));
      if (auto out = kiln::capi::Datasets().Find(output))
        SetOutputDescs(out.get(), m->info(), result);
      return Status::Ok();
    });
    return ACL_SUCCESS;
  });
}

}  // extern "C"

namespace kiln::capi {

void FillIoDims(const std::string& name, const kernels::Dims& dims, aclmdlIODims* out) {
  std::memset(out->name, 0, sizeof out->name);
  std::strncpy(out->name, name.c_str(), sizeof out->name - 1);
  out->dimCount = std::min<size_t>(dims.size(), ACL_MAX_DIM_CNT);
  for (size_t i = 0; i < out->dimCount; ++i) out->dims[i] = dims[i];
}

}  // namespace kiln::capi

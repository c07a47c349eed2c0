// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The single-operator execution API of acl_op.h: models from a folder or memory, execution by
// matching, handles, Cast and shape inference (docs/single-ops.md).
#include <dirent.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "acl/acl_op.h"
#include "base/log.h"
#include "base/regular_file.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "capi/model_handles.h"
#include "capi/op_objects.h"
#include "runtime/runtime.h"

using kiln::Error;
using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::OpCall;
using kiln::capi::Report;
using kiln::capi::SingleOpRegistry;
namespace code = kiln::code;

namespace {

constexpr int kMaxDirDepth = 3;  // the folder and two levels below it, as CANN
constexpr uint64_t kMaxOmBytes = uint64_t{4} << 30;

kiln::capi::HandleTable<aclopHandle, kiln::capi::OpHandle>& Handles() {
  return kiln::capi::GlobalTable<aclopHandle, kiln::capi::OpHandle>("handle", "aclopHandle");
}

bool EndsWithOm(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".om") == 0;
}

// Registers every *.om under `dir` (`depth` levels left); files that are not single-op models
// are skipped with a warning. Returns how many were registered.
size_t ReadModelDir(const std::string& dir, int depth) {
  if (depth == 0) return 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  size_t added = 0;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      added += ReadModelDir(path, depth - 1);
      continue;
    }
    if (!S_ISREG(st.st_mode) || !EndsWithOm(name)) continue;
    auto file =
        kiln::RegularFile::Open(path, "single-op model", code::kReadModelFailure, kMaxOmBytes);
    auto bytes = file.ok() ? file->ReadBytes() : kiln::Result<std::vector<uint8_t>>(file.status());
    Status st2 =
        bytes.ok() ? SingleOpRegistry::Get().Add(std::move(bytes).value(), path) : bytes.status();
    if (!st2.ok()) {
      KILN_LOG(kAscendCl, kWarning, "aclopSetModelDir: skipped ", path, ": ", st2.message());
      continue;
    }
    ++added;
  }
  return added;
}

kiln::Status Initialized(const char* api) {
  return kiln::runtime::Runtime::Get().CheckInitialized(api);
}

}  // namespace

namespace kiln::capi {

aclError ExecuteOp(const char* api, OpCall& call, aclrtStream stream,
                   aclTensorDesc* const* refresh) {
  if (AllOutputsEmpty(call)) return ACL_SUCCESS;
  auto entry = MatchOp(call);
  if (!entry.ok()) return Report(api, entry.status());
  return LaunchOp(api, *entry, call, stream, refresh);
}

aclError CreateOpHandle(const char* api, OpCall call, aclopHandle** handle) {
  if (handle == nullptr) return InvalidParam(api, "handle is NULL");
  for (size_t i = 0; i < call.host_inputs.size(); ++i) {
    if (call.host_inputs[i]) {
      return Report(api, Error(code::kApiNotSupport, "input ", i,
                               " is placed in host memory: a handle takes device inputs "
                               "(use aclopExecuteV2)"));
    }
  }
  auto entry = SingleOpRegistry::Get().Find(call.desc);
  if (!entry.ok()) return Report(api, entry.status());
  auto object = std::make_shared<OpHandle>();
  object->entry = std::move(entry).value();
  object->call = std::move(call);
  aclopHandle* h = kiln::capi::CreateHandle(api, Handles(), std::move(object));
  if (h == nullptr) return ACL_ERROR_BAD_ALLOC;
  *handle = h;
  return ACL_SUCCESS;
}

aclError ExecOpHandle(const char* api, aclopHandle* handle, int numInputs,
                      const aclDataBuffer* const inputs[], int numOutputs,
                      aclDataBuffer* const outputs[], aclrtStream stream) {
  std::shared_ptr<OpHandle> h = Handles().Live(api, handle);
  if (h == nullptr) return ACL_ERROR_INVALID_PARAM;
  OpCall call = h->call;
  if (aclError e = ReadOpBuffers(api, numInputs, inputs, numOutputs, outputs, &call);
      e != ACL_SUCCESS) {
    return e;
  }
  if (AllOutputsEmpty(call)) return ACL_SUCCESS;
  return LaunchOp(api, h->entry, call, stream, nullptr);
}

}  // namespace kiln::capi

namespace {

aclError Execute(const char* api, const char* opType, int numInputs,
                 const aclTensorDesc* const inputDesc[], const aclDataBuffer* const inputs[],
                 int numOutputs, const aclTensorDesc* const outputDesc[],
                 aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream,
                 aclTensorDesc* const* refresh) {
  if (Status st = Initialized(api); !st.ok()) return Report(api, st);
  OpCall call;
  if (aclError e = kiln::capi::ReadOpDescs(api, opType, numInputs, inputDesc, numOutputs,
                                           outputDesc, attr, &call);
      e != ACL_SUCCESS) {
    return e;
  }
  if (aclError e = kiln::capi::ReadOpBuffers(api, numInputs, inputs, numOutputs, outputs, &call);
      e != ACL_SUCCESS) {
    return e;
  }
  return kiln::capi::ExecuteOp(api, call, stream, refresh);
}

// The call aclopCast makes: "Cast" with dst_type (and truncate when a Cast model has it).
aclError CastCall(const char* api, const aclTensorDesc* srcDesc, const aclTensorDesc* dstDesc,
                  uint8_t truncate, OpCall* call) {
  if (dstDesc == nullptr) return InvalidParam(api, "dstDesc is NULL");
  if (srcDesc == nullptr) return InvalidParam(api, "srcDesc is NULL");
  const aclTensorDesc* ins[] = {srcDesc};
  const aclTensorDesc* outs[] = {dstDesc};
  if (aclError e = kiln::capi::ReadOpDescs(api, "Cast", 1, ins, 1, outs, nullptr, call);
      e != ACL_SUCCESS) {
    return e;
  }
  kiln::compiler::OpAttr dst;
  dst.kind = kiln::compiler::OpAttr::Kind::kInt;
  dst.ints = {call->desc.outputs[0].dtype};
  call->desc.attrs["dst_type"] = dst;
  if (SingleOpRegistry::Get().AnyHasAttr("Cast", "truncate")) {
    kiln::compiler::OpAttr t;
    t.kind = kiln::compiler::OpAttr::Kind::kBool;
    t.ints = {truncate != 0};
    call->desc.attrs["truncate"] = t;
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclopSetModelDir(const char* modelDir) {
  KILN_CAPI("aclopSetModelDir", {
    const char* api = "aclopSetModelDir";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    if (modelDir == nullptr) return InvalidParam(api, "modelDir is NULL");
    char real[PATH_MAX];
    if (::realpath(modelDir, real) == nullptr) {
      return Report(api, Error(code::kReadModelFailure, "cannot resolve the folder '", modelDir,
                               "': ", std::strerror(errno)));
    }
    struct stat st;
    if (::stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Report(api, Error(code::kReadModelFailure, "'", modelDir, "' is not a folder"));
    }
    SingleOpRegistry& registry = SingleOpRegistry::Get();
    if (registry.model_dir_set.exchange(true)) {
      return Report(
          api, Error(code::kRepeatInitialize, "aclopSetModelDir may be called once per process"));
    }
    const size_t n = ReadModelDir(real, kMaxDirDepth);
    KILN_LOG(kAscendCl, kInfo, api, ": ", n, " single-op model(s) from ", real);
    return ACL_SUCCESS;
  });
}

aclError aclopLoad(const void* model, size_t modelSize) {
  KILN_CAPI("aclopLoad", {
    const char* api = "aclopLoad";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    if (model == nullptr) return InvalidParam(api, "model is NULL");
    if (modelSize == 0) return InvalidParam(api, "modelSize is 0");
    const auto* p = static_cast<const uint8_t*>(model);
    return Report(api, SingleOpRegistry::Get().Add(std::vector<uint8_t>(p, p + modelSize), api));
  });
}

aclError aclopExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      const aclDataBuffer* const inputs[], int numOutputs,
                      const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                      const aclopAttr* attr, aclrtStream stream) {
  KILN_CAPI("aclopExecute", {
    return Execute("aclopExecute", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                   outputs, attr, stream, nullptr);
  });
}

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                        aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream) {
  KILN_CAPI("aclopExecuteV2", {
    return Execute("aclopExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                   outputs, attr, stream, outputDesc);
  });
}

aclError aclopCreateHandle(const char* opType, int numInputs,
                           const aclTensorDesc* const inputDesc[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], const aclopAttr* opAttr,
                           aclopHandle** handle) {
  KILN_CAPI("aclopCreateHandle", {
    const char* api = "aclopCreateHandle";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    OpCall call;
    if (aclError e = kiln::capi::ReadOpDescs(api, opType, numInputs, inputDesc, numOutputs,
                                             outputDesc, opAttr, &call);
        e != ACL_SUCCESS) {
      return e;
    }
    return kiln::capi::CreateOpHandle(api, std::move(call), handle);
  });
}

void aclopDestroyHandle(aclopHandle* handle) {
  if (handle == nullptr) return;
  (void)kiln::capi::DestroyHandle("aclopDestroyHandle", Handles(), handle);
}

aclError aclopExecWithHandle(aclopHandle* handle, int numInputs,
                             const aclDataBuffer* const inputs[], int numOutputs,
                             aclDataBuffer* const outputs[], aclrtStream stream) {
  KILN_CAPI("aclopExecWithHandle", {
    const char* api = "aclopExecWithHandle";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    return kiln::capi::ExecOpHandle(api, handle, numInputs, inputs, numOutputs, outputs, stream);
  });
}

aclError aclopCast(const aclTensorDesc* srcDesc, const aclDataBuffer* srcBuffer,
                   const aclTensorDesc* dstDesc, aclDataBuffer* dstBuffer, uint8_t truncate,
                   aclrtStream stream) {
  KILN_CAPI("aclopCast", {
    const char* api = "aclopCast";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    OpCall call;
    if (aclError e = CastCall(api, srcDesc, dstDesc, truncate, &call); e != ACL_SUCCESS) return e;
    const aclDataBuffer* ins[] = {srcBuffer};
    aclDataBuffer* outs[] = {dstBuffer};
    if (aclError e = kiln::capi::ReadOpBuffers(api, 1, ins, 1, outs, &call); e != ACL_SUCCESS) {
      return e;
    }
    return kiln::capi::ExecuteOp(api, call, stream, nullptr);
  });
}

aclError aclopCreateHandleForCast(aclTensorDesc* srcDesc, aclTensorDesc* dstDesc, uint8_t truncate,
                                  aclopHandle** handle) {
  KILN_CAPI("aclopCreateHandleForCast", {
    const char* api = "aclopCreateHandleForCast";
    if (Status st = Initialized(api); !st.ok()) return Report(api, st);
    OpCall call;
    if (aclError e = CastCall(api, srcDesc, dstDesc, truncate, &call); e != ACL_SUCCESS) return e;
    return kiln::capi::CreateOpHandle(api, std::move(call), handle);
  });
}

aclError aclopInferShape(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                         aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                         aclopAttr* attr) {
  KILN_CAPI("aclopInferShape", {
    const char* api = "aclopInferShape";
    OpCall call;
    if (aclError e = kiln::capi::ReadOpDescs(api, opType, numInputs, inputDesc, numOutputs,
                                             outputDesc, attr, &call, /*dynamic_ok=*/true);
        e != ACL_SUCCESS) {
      return e;
    }
    // Integer inputs with data (shape-like operands: axes, perm, offsets) are read as values,
    // so the shapes they decide come out exact.
    for (int i = 0; i < numInputs; ++i) {
      auto& t = call.desc.inputs[static_cast<size_t>(i)];
      void* data = nullptr;
      size_t size = 0;
      if (t.is_const || inputs == nullptr || inputs[i] == nullptr || t.dynamic()) continue;
      if (t.dtype != ACL_INT32 && t.dtype != ACL_INT64) continue;
      if (!kiln::capi::ReadDataBuffer(inputs[i], &data, &size) || data == nullptr) continue;
      const size_t need = static_cast<size_t>(aclGetTensorDescSize(inputDesc[i]));
      if (size < need)
        return InvalidParam(api, "inputs[", i, "] has ", size, " bytes; its desc needs ", need);
      const auto* p = static_cast<const uint8_t*>(data);
      t.is_const = true;
      t.const_value.assign(p, p + need);
    }
    for (auto& out : call.desc.outputs) out = {};
    Status st = kiln::compiler::InferSingleOp(call.desc);
    if (!st.ok()) return Report(api, st);
    for (int i = 0; i < numOutputs; ++i) {
      kiln::capi::WriteOpTensorDesc(outputDesc[i], call.desc.outputs[static_cast<size_t>(i)]);
    }
    return ACL_SUCCESS;
  });
}

aclError aclopSetMaxOpQueueNum(uint64_t maxOpNum) {
  KILN_CAPI("aclopSetMaxOpQueueNum", {
    if (maxOpNum == 0) return InvalidParam("aclopSetMaxOpQueueNum", "maxOpNum is 0");
    return ACL_SUCCESS;
  });
}

// Device kernel binaries (Ascend code) cannot run on Kiln's devices.
#define KILN_OP_KERNEL_UNSUPPORTED(api)                                                         \
  KILN_CAPI(api, {                                                                              \
    return Report(api, Error(code::kApiNotSupport,                                              \
                             "custom Ascend kernel binaries cannot run on Kiln's devices: "     \
                             "run the operator from a single-op model (kiln atc --singleop)")); \
  })

aclError aclopCreateKernel(const char*, const char*, const char*, void*, int, aclopEngineType,
                           aclDataDeallocator) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopCreateKernel");
}

aclError aclopRegisterCompileFunc(const char*, aclopCompileFunc) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopRegisterCompileFunc");
}

aclError aclopUnregisterCompileFunc(const char*) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopUnregisterCompileFunc");
}

aclError aclopSetKernelArgs(aclopKernelDesc*, const char*, uint32_t, const void*, uint32_t) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopSetKernelArgs");
}

aclError aclopSetKernelWorkspaceSizes(aclopKernelDesc*, int, size_t*) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopSetKernelWorkspaceSizes");
}

aclError aclopUpdateParams(const char*, int, const aclTensorDesc* const[], int,
                           const aclTensorDesc* const[], const aclopAttr*) {
  KILN_OP_KERNEL_UNSUPPORTED("aclopUpdateParams");
}

}  // extern "C"

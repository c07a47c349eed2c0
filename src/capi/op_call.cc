// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A single-operator call from its C arguments to a model run on a stream (op_objects.h).
#include <cstring>
#include <mutex>

#include "capi/error.h"
#include "capi/model_handles.h"
#include "capi/op_objects.h"
#include "runtime/runtime.h"

namespace kiln::capi {
namespace {

aclError ReadTensors(const char* api, const char* kind, int n, const aclTensorDesc* const descs[],
                     bool dynamic_ok, std::vector<compiler::OpTensorDesc>* out,
                     std::vector<bool>* host) {
  if (n < 0) return InvalidParam(api, "num", kind, "s ", n, " is negative");
  if (n > 0 && descs == nullptr)
    return InvalidParam(api, kind, "Desc is NULL but num", kind, "s is ", n);
  out->resize(static_cast<size_t>(n));
  if (host) host->assign(static_cast<size_t>(n), false);
  for (int i = 0; i < n; ++i) {
    if (descs[i] == nullptr) return InvalidParam(api, kind, "Desc[", i, "] is NULL");
    bool on_host = false;
    if (!ReadOpTensorDesc(descs[i], &(*out)[static_cast<size_t>(i)], &on_host)) {
      return InvalidParam(api, kind, "Desc[", i,
                          "] is not a live aclTensorDesc (destroyed already?)");
    }
    if (host) (*host)[static_cast<size_t>(i)] = on_host;
    for (int64_t d : (*out)[static_cast<size_t>(i)].dims) {
      if (d < 0 && !dynamic_ok && !(*out)[static_cast<size_t>(i)].omitted()) {
        return InvalidParam(api, kind, "Desc[", i, "] has a dynamic dim: a call needs real dims");
      }
    }
  }
  return ACL_SUCCESS;
}

aclError ReadBuffers(const char* api, const char* kind, int n, const aclDataBuffer* const b[],
                     const std::vector<compiler::OpTensorDesc>& descs,
                     std::vector<runtime::IoBuffer>* out) {
  if (n < 0) return InvalidParam(api, "num", kind, "s ", n, " is negative");
  if (static_cast<size_t>(n) != descs.size()) {
    return Report(api, Error(std::strcmp(kind, "input") == 0 ? code::kOpInputNotMatch
                                                             : code::kOpOutputNotMatch,
                             n, " ", kind, " buffer(s) for ", descs.size(), " ", kind, "(s)"));
  }
  if (n > 0 && b == nullptr) return InvalidParam(api, kind, "s is NULL but num", kind, "s is ", n);
  out->assign(static_cast<size_t>(n), {});
  for (int i = 0; i < n; ++i) {
    const compiler::OpTensorDesc& d = descs[static_cast<size_t>(i)];
    runtime::IoBuffer& io = (*out)[static_cast<size_t>(i)];
    if (b[i] == nullptr) {
      if (d.omitted()) continue;
      return InvalidParam(api, kind, "s[", i, "] is NULL");
    }
    if (!ReadDataBuffer(b[i], &io.data, &io.size)) {
      return InvalidParam(api, kind, "s[", i, "] is not a live aclDataBuffer (destroyed already?)");
    }
    io.has_dims = true;
    io.dims.assign(d.dims.begin(), d.dims.end());
  }
  return ACL_SUCCESS;
}

}  // namespace

aclError ReadOpDescs(const char* api, const char* opType, int numInputs,
                     const aclTensorDesc* const inputDesc[], int numOutputs,
                     const aclTensorDesc* const outputDesc[], const aclopAttr* attr, OpCall* call,
                     bool dynamic_ok) {
  if (opType == nullptr || opType[0] == '\0') return InvalidParam(api, "opType is NULL or empty");
  call->desc.op_type = opType;
  if (aclError e = ReadTensors(api, "input", numInputs, inputDesc, dynamic_ok, &call->desc.inputs,
                               &call->host_inputs);
      e != ACL_SUCCESS) {
    return e;
  }
  if (aclError e = ReadTensors(api, "output", numOutputs, outputDesc, dynamic_ok,
                               &call->desc.outputs, nullptr);
      e != ACL_SUCCESS) {
    return e;
  }
  if (!ReadOpAttrs(api, attr, &call->desc.attrs)) return ACL_ERROR_INVALID_PARAM;
  return ACL_SUCCESS;
}

aclError ReadOpBuffers(const char* api, int numInputs, const aclDataBuffer* const inputs[],
                       int numOutputs, aclDataBuffer* const outputs[], OpCall* call) {
  if (aclError e = ReadBuffers(api, "input", numInputs, inputs, call->desc.inputs, &call->inputs);
      e != ACL_SUCCESS) {
    return e;
  }
  return ReadBuffers(api, "output", numOutputs, outputs, call->desc.outputs, &call->outputs);
}

bool AllOutputsEmpty(const OpCall& call) {
  if (call.desc.outputs.empty()) return false;
  for (const auto& t : call.desc.outputs) {
    bool empty = false;
    for (int64_t d : t.dims) empty |= d == 0;
    if (!empty) return false;
  }
  return true;
}

bool HostInputsAsConst(const OpCall& call, compiler::SingleOpDesc* desc) {
  bool changed = false;
  for (size_t i = 0; i < desc->inputs.size() && i < call.inputs.size(); ++i) {
    compiler::OpTensorDesc& t = desc->inputs[i];
    const runtime::IoBuffer& buffer = call.inputs[i];
    if (!call.host_inputs[i] || t.is_const || buffer.data == nullptr) continue;
    const auto* p = static_cast<const uint8_t*>(buffer.data);
    t.is_const = true;
    t.const_value.assign(p, p + buffer.size);
    changed = true;
  }
  return changed;
}

Result<std::shared_ptr<SingleOpRegistry::Entry>> MatchOp(OpCall& call) {
  SingleOpRegistry& registry = SingleOpRegistry::Get();
  auto entry = registry.Find(call.desc);
  if (entry.ok()) return entry;
  // CANN tries a host-memory input again as a constant of its buffer's values.
  compiler::SingleOpDesc as_const = call.desc;
  if (!HostInputsAsConst(call, &as_const)) return entry;
  auto again = registry.Find(as_const);
  if (!again.ok()) return entry;
  call.desc = std::move(as_const);
  return again;
}

aclError LaunchOp(const char* api, const std::shared_ptr<SingleOpRegistry::Entry>& entry,
                  const OpCall& call, aclrtStream stream, aclTensorDesc* const* refresh) {
  auto model = SingleOpRegistry::ModelFor(*entry);
  if (!model.ok()) return Report(api, model.status());
  auto s = runtime::Runtime::Get().ResolveStream(stream);
  if (!s.ok()) return Report(api, s.status());
  // The model's inputs are the call's non-constant ones, in order.
  std::vector<runtime::IoBuffer> ins;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const compiler::OpTensorDesc& t = entry->desc.inputs[i];
    if (t.omitted() || t.is_const) continue;
    ins.push_back(call.inputs[i]);
  }
  const bool dynamic = entry->desc.dynamic();
  // A dynamic model's output dims, for `refresh` once the run ends (static: the declared ones).
  auto dims = dynamic ? std::make_shared<std::vector<kernels::Dims>>() : nullptr;
  (*s)->queue().Submit([m = std::move(model).value(), ins = std::move(ins), outs = call.outputs,
                        dims, dynamic, op = call.desc.op_type, stream_id = (*s)->id()]() -> Status {
    runtime::ExecResult result;
    Status st = m->Execute(ins, outs, &result, stream_id);
    if (!st.ok()) return std::move(st).Annotate("single operator " + op);
    if (dynamic) *dims = std::move(result.output_dims);
    return Status::Ok();
  });
  if (refresh == nullptr || !dynamic) return ACL_SUCCESS;
  // The real output dims are known once the run ends: the call waits for it.
  if (Status st = (*s)->queue().Synchronize(-1); !st.ok()) return Report(api, st);
  for (size_t i = 0; i < call.desc.outputs.size() && i < dims->size(); ++i) {
    compiler::OpTensorDesc t = call.desc.outputs[i];
    t.dims.assign((*dims)[i].begin(), (*dims)[i].end());
    t.range.clear();
    if (refresh[i] != nullptr) WriteOpTensorDesc(refresh[i], t);
  }
  return ACL_SUCCESS;
}

}  // namespace kiln::capi

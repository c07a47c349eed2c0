// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/cudnn_graph.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace kiln::cuda {

CudnnDescriptor& CudnnDescriptor::operator=(CudnnDescriptor&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(d_, o.d_);
  return *this;
}

CudnnDescriptor::~CudnnDescriptor() {
  if (d_ != nullptr) api_->BackendDestroyDescriptor(d_);
}

Result<CudnnDescriptor> CudnnDescriptor::Create(const CudnnApi* api,
                                                cudnnBackendDescriptorType_t type) {
  CudnnDescriptor d;
  d.api_ = api;
  KILN_RETURN_IF_ERROR(
      CudnnStatus(api->BackendCreateDescriptor(type, &d.d_), "cudnnBackendCreateDescriptor"), "");
  return d;
}

Status CudnnDescriptor::Set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                            int64_t count, const void* values) const {
  return CudnnStatus(api_->BackendSetAttribute(d_, name, type, count, values),
                     "cudnnBackendSetAttribute");
}

Status CudnnDescriptor::Finalize() const {
  return CudnnStatus(api_->BackendFinalize(d_), "cudnnBackendFinalize");
}

Result<CudnnDescriptor> MakeTensor(const CudnnApi* api, const std::vector<int64_t>& dims,
                                   int64_t uid, int64_t alignment, cudnnDataType_t type) {
  KILN_ASSIGN_OR_RETURN(CudnnDescriptor t,
                        CudnnDescriptor::Create(api, CUDNN_BACKEND_TENSOR_DESCRIPTOR));
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(dims[i], 1);
  KILN_RETURN_IF_ERROR(t.Set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type), "");
  KILN_RETURN_IF_ERROR(t.SetInt64(CUDNN_ATTR_TENSOR_DIMENSIONS, dims), "");
  KILN_RETURN_IF_ERROR(t.SetInt64(CUDNN_ATTR_TENSOR_STRIDES, strides), "");
  KILN_RETURN_IF_ERROR(t.SetInt64(CUDNN_ATTR_TENSOR_UNIQUE_ID, {uid}), "");
  KILN_RETURN_IF_ERROR(t.SetInt64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, {alignment}), "");
  KILN_RETURN_IF_ERROR(t.Finalize(), "a cuDNN tensor");
  return t;
}

namespace {

// Whether the engine of `config` keeps float32 inputs float32: cuDNN marks the float32 engines
// that compute in TF32 with the tensor-core note (as PyTorch and MLX read it), and some with
// down-conversion.
Result<bool> KeepsFloat32(const CudnnApi* api, const CudnnDescriptor& config) {
  KILN_ASSIGN_OR_RETURN(CudnnDescriptor engine,
                        CudnnDescriptor::Create(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR));
  cudnnBackendDescriptor_t e = engine.get();
  int64_t n = 0;
  KILN_RETURN_IF_ERROR(
      CudnnStatus(api->BackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e),
                  "the engine of a cuDNN engine config"),
      "");
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  KILN_RETURN_IF_ERROR(
      CudnnStatus(
          api->BackendGetAttribute(e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                   CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes),
          "the numerical notes of a cuDNN engine"),
      "");
  return std::none_of(notes, notes + std::min<int64_t>(n, CUDNN_NUMERICAL_NOTE_TYPE_COUNT),
                      [](cudnnBackendNumericalNote_t note) {
                        return note == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
                               note == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
                      });
}

}  // namespace

namespace {

// The engine configurations cuDNN's heuristics of `mode` propose for `graph`, best first.
Result<std::vector<CudnnDescriptor>> EngineConfigs(const CudnnApi* api,
                                                   const CudnnDescriptor& graph,
                                                   cudnnBackendHeurMode_t mode) {
  KILN_ASSIGN_OR_RETURN(CudnnDescriptor heur,
                        CudnnDescriptor::Create(api, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
  KILN_RETURN_IF_ERROR(heur.SetDescriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph), "");
  KILN_RETURN_IF_ERROR(heur.Set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode), "");
  KILN_RETURN_IF_ERROR(heur.Finalize(), "cuDNN heuristics");
  int64_t count = 0;
  KILN_RETURN_IF_ERROR(
      CudnnStatus(api->BackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr),
                  "the count of cuDNN's engine configs"),
      "");
  std::vector<CudnnDescriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < count; ++i) {
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor c,
                          CudnnDescriptor::Create(api, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(c.get());
    configs.push_back(std::move(c));
  }
  int64_t got = 0;
  if (count > 0) {
    KILN_RETURN_IF_ERROR(CudnnStatus(api->BackendGetAttribute(
                                         heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                         CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data()),
                                     "cuDNN's engine configs"),
                         "");
  }
  configs.resize(static_cast<size_t>(std::clamp<int64_t>(got, 0, count)));
  return configs;
}

}  // namespace

Result<CudnnPlan> MakePlan(const CudnnApi* api, cudnnHandle_t handle, const CudnnDescriptor& op,
                           bool keep_float32) {
  KILN_ASSIGN_OR_RETURN(CudnnDescriptor graph,
                        CudnnDescriptor::Create(api, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
  KILN_RETURN_IF_ERROR(graph.SetDescriptor(CUDNN_ATTR_OPERATIONGRAPH_OPS, op), "");
  KILN_RETURN_IF_ERROR(graph.Set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle),
                       "");
  KILN_RETURN_IF_ERROR(graph.Finalize(), "a cuDNN operation graph");
  Status last = Error(code::kFeatureUnsupported, "cuDNN offers no engine for the operation");
  // Mode A's list first; the fallback list where none of it can be planned.
  for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    auto configs = EngineConfigs(api, graph, mode);
    if (!configs.ok()) {
      last = configs.status();
      continue;
    }
    for (const CudnnDescriptor& config : *configs) {
      if (keep_float32) {
        auto keeps = KeepsFloat32(api, config);
        if (!keeps.ok() || !*keeps) continue;
      }
      KILN_ASSIGN_OR_RETURN(CudnnDescriptor plan,
                            CudnnDescriptor::Create(api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR));
      KILN_RETURN_IF_ERROR(
          plan.Set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle), "");
      KILN_RETURN_IF_ERROR(plan.SetDescriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config), "");
      Status st = plan.Finalize();
      if (!st.ok()) {  // this engine cannot run the graph here: try the next
        last = std::move(st);
        continue;
      }
      CudnnPlan result;
      int64_t n = 0;
      KILN_RETURN_IF_ERROR(
          CudnnStatus(api->BackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                               CUDNN_TYPE_INT64, 1, &n, &result.workspace_bytes),
                      "a cuDNN plan's workspace size"),
          "");
      result.plan = std::move(plan);
      return result;
    }
  }
  return std::move(last).Annotate(keep_float32 ? "no float32 cuDNN engine could be planned"
                                               : "no cuDNN engine could be planned");
}

Status ExecutePlan(const CudnnApi* api, cudnnHandle_t handle, CudnnPlan& plan,
                   std::initializer_list<int64_t> uids, std::initializer_list<void*> pointers,
                   void* workspace) {
  const bool same = plan.bound.size() == pointers.size() + 1 &&
                    std::equal(pointers.begin(), pointers.end(), plan.bound.begin()) &&
                    plan.bound.back() == workspace;
  if (!same) {
    plan.bound.clear();  // set again once the new pack is made
    KILN_ASSIGN_OR_RETURN(CudnnDescriptor pack,
                          CudnnDescriptor::Create(api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
    KILN_RETURN_IF_ERROR(pack.Set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                                  static_cast<int64_t>(pointers.size()), pointers.begin()),
                         "");
    KILN_RETURN_IF_ERROR(pack.Set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                                  static_cast<int64_t>(uids.size()), uids.begin()),
                         "");
    KILN_RETURN_IF_ERROR(
        pack.Set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace), "");
    KILN_RETURN_IF_ERROR(pack.Finalize(), "a cuDNN variant pack");
    plan.pack = std::move(pack);
    plan.bound.assign(pointers);
    plan.bound.push_back(workspace);
  }
  return CudnnStatus(api->BackendExecute(handle, plan.plan.get(), plan.pack.get()),
                     "cudnnBackendExecute");
}

}  // namespace kiln::cuda

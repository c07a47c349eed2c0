// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The graph-engine build API (include/ge/ge_ir_build.h) on Kiln's compiler: a parsed ONNX model
// compiled with the session's and the call's options into a Kiln .om in memory (docs/ge-api.md).
#include "ge/ge_ir_build.h"

#include <fstream>
#include <mutex>
#include <string>

#include "atc/atc.h"
#include "base/log.h"
#include "ge/graph_impl.h"

namespace ge {
namespace {

// The build session: aclgrphBuildInitialize's options, until aclgrphBuildFinalize.
struct Session {
  std::mutex mu;
  bool initialized = false;
  std::map<std::string, std::string> options;
};

Session& TheSession() {
  static auto* s = new Session();  // outlives static destruction
  return *s;
}

std::map<std::string, std::string> Plain(const std::map<AscendString, AscendString>& in) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : in) out[k.GetString()] = v.GetString();
  return out;
}

// The Kiln target for ir_option::SOC_VERSION: Kiln's own names as they are (what
// aclrtGetSocName returns), anything else (an Ascend SoC) this host's.
std::string TargetFor(const std::string& soc) { return kiln::compiler::IsTarget(soc) ? soc : ""; }

// ir_option::INPUT_SHAPE as onnxruntime's CANN provider writes it: "name:d,d;name2:d" where a
// rank-0 input is its bare name (nothing to bind) and names may hold ':' (split at the last).
kiln::Result<std::map<std::string, std::vector<int64_t>>> InputShapes(const std::string& text) {
  std::string kept;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    if (item.find(':') != std::string::npos) kept += (kept.empty() ? "" : ";") + item;
    pos = end + 1;
  }
  return kiln::compiler::ParseInputShape(kept);
}

graphStatus Fail(const char* api, const kiln::Status& st) {
  KILN_LOG(kGe, kError, api, ": [code ", st.code(), "] ", st.message());
  return GRAPH_FAILED;
}

}  // namespace

graphStatus aclgrphBuildInitialize(std::map<AscendString, AscendString>& global_options) {
  try {
    Session& s = TheSession();
    std::lock_guard<std::mutex> lock(s.mu);
    s.options = Plain(global_options);
    s.initialized = true;
    return GRAPH_SUCCESS;
  } catch (...) {
    return GRAPH_FAILED;
  }
}

void aclgrphBuildFinalize() {
  Session& s = TheSession();
  std::lock_guard<std::mutex> lock(s.mu);
  s.initialized = false;
  s.options.clear();
}

graphStatus aclgrphBuildModel(const Graph& graph,
                              const std::map<AscendString, AscendString>& build_options,
                              ModelBufferData& model) {
  const char* api = "aclgrphBuildModel";
  try {
    std::shared_ptr<GraphImpl> impl = GraphImplAccess::Get(graph);
    if (impl == nullptr || impl->onnx.empty()) {
      KILN_LOG(kGe, kError, api, ": the graph holds no model (parse one with aclgrphParseONNX*)");
      return GRAPH_PARAM_INVALID;
    }
    std::map<std::string, std::string> session;
    {
      Session& s = TheSession();
      std::lock_guard<std::mutex> lock(s.mu);
      if (!s.initialized) {
        KILN_LOG(kGe, kError, api, ": call aclgrphBuildInitialize first");
        return GRAPH_FAILED;
      }
      session = s.options;
    }
    const auto options = Plain(build_options);
    kiln::compiler::CompileOptions o;
    o.model = impl->origin;
    o.target = TargetFor(session[ir_option::SOC_VERSION]);
    if (auto it = options.find(ir_option::INPUT_SHAPE); it != options.end()) {
      auto shapes = InputShapes(it->second);
      if (!shapes.ok()) return Fail(api, shapes.status());
      o.input_shapes = std::move(shapes).value();
    }
    // The precision modes Kiln acts on (the bf16 ones) and records (the rest): docs/atc.md.
    for (const char* key : {ir_option::PRECISION_MODE_V2, ir_option::PRECISION_MODE}) {
      auto it = session.find(key);
      if (it != session.end() && !it->second.empty()) {
        o.record.emplace_back("precision_mode", it->second);
        break;
      }
    }
    auto bytes = kiln::atc::CompileBytes(impl->onnx, impl->base_dir, o);
    if (!bytes.ok()) return Fail(api, bytes.status());
    const size_t n = bytes->size();
    std::shared_ptr<uint8_t> data(new uint8_t[n], std::default_delete<uint8_t[]>());
    std::copy(bytes->begin(), bytes->end(), data.get());
    model.data = std::move(data);
    model.length = n;
    return GRAPH_SUCCESS;
  } catch (const std::exception& e) {
    KILN_LOG(kGe, kError, api, ": ", e.what());
    return GRAPH_FAILED;
  }
}

graphStatus aclgrphSaveModel(const char* output_file, const ModelBufferData& model) {
  const char* api = "aclgrphSaveModel";
  if (output_file == nullptr || output_file[0] == '\0' || model.data == nullptr ||
      model.length == 0) {
    KILN_LOG(kGe, kError, api, ": output_file is NULL or empty, or the model is empty");
    return GRAPH_PARAM_INVALID;
  }
  try {
    const std::string path = std::string(output_file) + ".om";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(model.data.get()),
              static_cast<std::streamsize>(model.length));
    out.close();
    if (!out) {
      KILN_LOG(kGe, kError, api, ": cannot write '", path, "'");
      return GRAPH_FAILED;
    }
    return GRAPH_SUCCESS;
  } catch (...) {
    return GRAPH_FAILED;
  }
}

}  // namespace ge

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: whether the runtime starts here, and whether each given .om loads, through the
// public API an application uses (aclmdlQuerySize, aclmdlLoadFromFile, aclmdlUnload), with the
// runtime's own message and a fix when it does not.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "acl/acl.h"
#include "tools/kiln/doctor_finding.h"

namespace kiln::tools::doctor {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// The runtime's message without its "EH9999: " prefix and "[aclError n]" suffix (the code is
// reported on its own), and without "<api>: <path>: " when the finding names both already.
std::string RecentMessage(const std::string& api = "", const std::string& path = "") {
  const char* m = aclGetRecentErrMsg();
  std::string s = m ? m : "";
  if (s.rfind("EH", 0) == 0 && s.size() > 8 && s[6] == ':') s = s.substr(8);
  size_t tail = s.rfind(" [aclError");
  if (tail != std::string::npos) s.resize(tail);
  if (!api.empty() && s.rfind(api + ": ", 0) == 0) s = s.substr(api.size() + 2);
  for (const std::string& p : {path + ": ", "'" + path + "': "}) {
    if (!path.empty() && s.rfind(p, 0) == 0) s = s.substr(p.size());
  }
  return s.empty() ? "no message from the runtime" : s;
}

// The fix for a model that does not load, from what the runtime said.
std::string FixFor(const std::string& message, const std::string& path) {
  if (Contains(message, "does not exist")) {
    std::error_code ec;
    return "check the path (relative paths start at " + fs::current_path(ec).string() + ")";
  }
  if (Contains(message, "not a regular file")) return "give the .om file itself";
  if (Contains(message, "looks like ONNX")) {
    return "convert it: kiln atc --framework=5 --model=" + path + " --output=<name>";
  }
  if (Contains(message, "Huawei OM")) {
    return "a Huawei OM runs only on CANN: compile the ONNX model with kiln atc --framework=5";
  }
  if (Contains(message, "GGUF") || Contains(message, "TFLite") || Contains(message, "gguf")) {
    return "export the model to ONNX, then compile it with kiln atc --framework=5";
  }
  if (Contains(message, "not a model format Kiln knows")) {
    return "this is not a Kiln .om: compile the ONNX model with kiln atc --framework=5";
  }
  if (Contains(message, "needs runtime") || Contains(message, "this runtime reads format")) {
    return "recompile the model with this install's kiln atc, or run it with a newer Kiln";
  }
  if (Contains(message, "is empty")) {
    return "the file is empty (an interrupted copy or compile?): copy it again or recompile it "
           "with kiln atc";
  }
  if (Contains(message, "truncated") || Contains(message, "corrupt") ||
      Contains(message, "outside the file") || Contains(message, "header") ||
      Contains(message, "not a valid Kiln graph") || Contains(message, "inconsistent")) {
    return "the file is incomplete or damaged: copy it again (compare its size with the "
           "original) or recompile it with kiln atc";
  }
  if (Contains(message, "ermission") || Contains(message, "cannot read") ||
      Contains(message, "cannot open")) {
    return "make the file readable by this user (chmod a+r " + path + ")";
  }
  if (Contains(message, "memory")) {
    return "free device memory or raise KILN_DEVICE_MEMORY_LIMIT (docs/configuration.md)";
  }
  return "recompile the model from its ONNX with this install's kiln atc";
}

std::string Dims(const aclmdlIODims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.dimCount; ++i) s += (i ? "," : "") + std::to_string(d.dims[i]);
  return s + "]";
}

std::string Size(size_t bytes) {
  char buf[32];
  if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return buf;
}

// A failed query or load: what the runtime said and, split from it, the advice it gave.
void NotLoading(Finding* f, const std::string& path, const char* api, aclError ret) {
  const std::string message = RecentMessage(api, path);
  std::string what = message;
  const size_t looks = message.find("(it looks like ");
  const size_t advice = looks == std::string::npos ? looks : message.find("): ", looks);
  if (advice != std::string::npos) what = message.substr(0, advice + 1);
  f->level = Level::kFail;
  f->found =
      path + " will not load: " + what + " (" + api + ", aclError " + std::to_string(ret) + ")";
  f->fix = FixFor(message, path);
  f->data.update({{"loads", false}, {"api", api}, {"error", ret}, {"message", message}});
}

}  // namespace

Finding CheckRuntime(Context* ctx) {
  Finding f;
  f.check = "runtime";
  aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    f.level = Level::kFail;
    f.found = "aclInit failed (" + std::to_string(init) + "): " + RecentMessage();
    f.fix = "fix the setting the message names (docs/configuration.md), then rerun kiln doctor";
    f.data = {{"aclInit", init}};
    return f;
  }
  ctx->runtime_ok = true;
  uint32_t count = 0;
  (void)aclrtGetDeviceCount(&count);
  const char* soc = aclrtGetSocName();
  int64_t threads = 0;
  if (count > 0) (void)aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &threads);
  ctx->compute_threads = threads;
  f.data = {{"devices", count}, {"soc", soc ? soc : ""}, {"compute_threads", threads}};
  if (count == 0) {
    f.level = Level::kFail;
    f.found = "aclInit succeeded but no device is visible";
    f.fix = "unset ASCEND_RT_VISIBLE_DEVICES (or list ids that exist), and KILN_CPU_DEVICES";
    return f;
  }
  if (aclrtSetDevice(0) != ACL_SUCCESS) {
    f.level = Level::kFail;
    f.found = "aclrtSetDevice(0) failed: " + RecentMessage();
    f.fix = "check the device settings the message names (docs/configuration.md)";
    return f;
  }
  ctx->device_set = true;
  f.found = "aclInit OK: " + std::to_string(count) + " device(s), SoC " + (soc ? soc : "?") +
            ", device 0 computes on " + std::to_string(threads) + " thread(s)";
  return f;
}

Finding CheckModel(const Context& ctx, const std::string& path) {
  Finding f;
  f.check = "model";
  f.data = {{"path", path}};
  if (!ctx.device_set) {
    f.level = Level::kFail;
    f.found = path + ": not checked, the runtime did not start (see the runtime finding)";
    f.fix = "fix the runtime finding first";
    return f;
  }
  size_t work = 0, weight = 0;
  aclError ret = aclmdlQuerySize(path.c_str(), &work, &weight);
  if (ret != ACL_SUCCESS) {
    NotLoading(&f, path, "aclmdlQuerySize", ret);
    return f;
  }
  uint32_t id = 0;
  const auto start = std::chrono::steady_clock::now();
  ret = aclmdlLoadFromFile(path.c_str(), &id);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (ret != ACL_SUCCESS) {
    NotLoading(&f, path, "aclmdlLoadFromFile", ret);
    return f;
  }
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
  std::string io;
  aclmdlDesc* desc = aclmdlCreateDesc();
  if (desc != nullptr && aclmdlGetDesc(desc, id) == ACL_SUCCESS) {
    for (int side = 0; side < 2; ++side) {
      const size_t n = side == 0 ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
      io += side == 0 ? "inputs " : "; outputs ";
      for (size_t i = 0; i < n; ++i) {
        aclmdlIODims dims{};
        const char* name =
            side == 0 ? aclmdlGetInputNameByIndex(desc, i) : aclmdlGetOutputNameByIndex(desc, i);
        (void)(side == 0 ? aclmdlGetInputDims(desc, i, &dims)
                         : aclmdlGetOutputDims(desc, i, &dims));
        const int dtype = static_cast<int>(side == 0 ? aclmdlGetInputDataType(desc, i)
                                                     : aclmdlGetOutputDataType(desc, i));
        const std::string n_s = name ? name : "?";
        io += (i ? ", " : "") + n_s + Dims(dims);
        (side == 0 ? inputs : outputs)
            .push_back({{"name", n_s},
                        {"dims", std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount)},
                        {"dtype", dtype}});
      }
    }
  }
  if (desc != nullptr) (void)aclmdlDestroyDesc(desc);
  ret = aclmdlUnload(id);
  char load_ms[32];
  std::snprintf(load_ms, sizeof load_ms, "%.1f", ms);
  f.found = path + " loads here in " + load_ms + " ms (" + io + "; work " + Size(work) +
            ", weights " + Size(weight) + ")";
  f.data.update({{"loads", true},
                 {"load_ms", ms},
                 {"work_bytes", work},
                 {"weight_bytes", weight},
                 {"inputs", inputs},
                 {"outputs", outputs}});
  if (ret != ACL_SUCCESS) {
    f.level = Level::kWarn;
    f.found += ", but aclmdlUnload failed: " + RecentMessage();
    f.fix = "report it: unloading a model that loaded must succeed";
  }
  return f;
}

void FinishRuntime(const Context& ctx) {
  if (!ctx.runtime_ok) return;
  if (ctx.device_set) (void)aclrtResetDevice(0);
  (void)aclFinalize();
}

}  // namespace kiln::tools::doctor

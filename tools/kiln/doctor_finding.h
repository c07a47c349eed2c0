// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What `kiln doctor`'s checks return, and the facts they share.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kiln::tools::doctor {

enum class Level { kOk, kWarn, kFail };

const char* LevelName(Level level);  // "OK", "WARN", "FAIL"

struct Finding {
  std::string check;  // library, installs, set_env, runtime, cpu, threads, model
  Level level = Level::kOk;
  std::string found;  // what was found, one line
  std::string fix;    // the fix, one line; empty when there is nothing to do
  nlohmann::json data = nlohmann::json::object();  // the facts behind it (for --json)
};

// An install of Kiln or CANN, named by its root directory.
struct Install {
  std::string prefix;   // canonical root: an install prefix, a build tree, a CANN toolkit
  std::string kind;     // "Kiln install", "Kiln build tree", "CANN toolkit", "unknown"
  std::string version;  // when the install says it (build tree cache, CANN's install info)
};

// What the library check learns and the later checks use.
struct Context {
  std::string exe;         // this kiln, canonical
  std::string loaded;      // the libascendcl.so this process loaded, canonical
  std::string expected;    // the one next to this kiln (empty when the layout is unknown)
  Install loaded_install;  // the install `loaded` belongs to
  // The install the other checks hold the paths and set_env.sh to: this kiln's own (the one
  // `expected` belongs to) when its layout is known, else the loaded library's.
  Install in_use;
  int64_t compute_threads = 0;  // the CPU device's compute threads (aclGetDeviceCapability)
  bool runtime_ok = false;      // aclInit succeeded
  bool device_set = false;      // aclrtSetDevice(0) succeeded
};

// The checks, in the order they are printed.
Finding CheckLibrary(Context* ctx);
std::vector<Finding> CheckInstalls(const Context& ctx);
Finding CheckSetEnv(const Context& ctx);
Finding CheckRuntime(Context* ctx);
Finding CheckCpu();
std::vector<Finding> CheckThreads(const Context& ctx);
Finding CheckModel(const Context& ctx, const std::string& path);
void FinishRuntime(const Context& ctx);  // aclFinalize after the model checks
// CheckModel in a child process (this kiln, `doctor --model-child`), so a crash or a hang of
// the loader is a finding; RunModelChild is that child's side (prints the finding as JSON).
Finding CheckModelIsolated(const Context& ctx, const std::string& path);
int RunModelChild(const std::string& path);

// Which install a directory (a search-path entry, a variable's value) belongs to.
Install InstallOf(const std::string& dir);
// A path made canonical where it exists, lexically normal where it does not.
std::string Canonical(const std::string& path);

}  // namespace kiln::tools::doctor

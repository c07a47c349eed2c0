// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/env.h"

namespace kiln::runtime {
namespace {

constexpr int kMaxNesting = 10;

// Nesting depth, counted no further than `limit` + 1 (so a hostile file cannot recurse deep).
int Depth(const nlohmann::json& j, int limit) {
  if (!j.is_structured()) return 0;
  if (limit < 0) return 1;
  int deepest = 0;
  for (const auto& child : j) deepest = std::max(deepest, Depth(child, limit - 1));
  return deepest + 1;
}

// acl.json writes numbers as strings ("0", "10000"); accept both forms.
Result<int64_t> IntValue(const nlohmann::json& j, const std::string& key,
                         const std::string& origin) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0') return static_cast<int64_t>(v);
  }
  return Error(code::kParseFile, origin, ": \"", key, "\" must be an integer, got ", j.dump());
}

// A profiler object's switches; `on` is what "switch" says (acl.json) or true (environment).
Result<ProfilerOptions> ProfilerFrom(const nlohmann::json& j, const std::string& origin,
                                     bool needs_switch) {
  if (!j.is_object()) return Error(code::kParseFile, origin, ": \"profiler\" must be an object");
  ProfilerOptions p;
  auto flag = [&](const char* key, bool dflt) -> Result<bool> {
    auto it = j.find(key);
    if (it == j.end()) return dflt;
    if (it->is_boolean()) return it->get<bool>();
    if (it->is_string()) {
      const std::string& v = it->get_ref<const std::string&>();
      if (v == "on" || v == "true") return true;
      if (v == "off" || v == "false" || v.empty()) return false;
    }
    return Error(code::kParseFile, origin, ": profiler \"", key,
                 "\" must be \"on\" or \"off\", got ", it->dump());
  };
  KILN_ASSIGN_OR_RETURN(p.on, flag("switch", !needs_switch));
  if (auto it = j.find("output"); it != j.end()) {
    if (!it->is_string()) {
      return Error(code::kParseFile, origin, ": profiler \"output\" must be a folder path");
    }
    p.output = it->get<std::string>();
  }
  KILN_ASSIGN_OR_RETURN(bool api, flag("acl_api", true));
  KILN_ASSIGN_OR_RETURN(bool ascendcl, flag("ascendcl", true));
  KILN_ASSIGN_OR_RETURN(bool task, flag("task_time", true));
  KILN_ASSIGN_OR_RETURN(bool trace, flag("task_trace", true));
  KILN_ASSIGN_OR_RETURN(bool tx, flag("msproftx", true));
  KILN_ASSIGN_OR_RETURN(bool rt, flag("runtime_api", false));
  if (api && ascendcl) p.data_types |= 0x0001;  // ACL_PROF_ACL_API
  if (task && trace) p.data_types |= 0x0002;    // ACL_PROF_TASK_TIME
  if (tx) p.data_types |= 0x0080;               // ACL_PROF_MSPROFTX
  if (rt) p.data_types |= 0x0100;               // ACL_PROF_RUNTIME_API
  return p;
}

}  // namespace

Result<ProfilerOptions> ParseProfilerOptions(const std::string& text, const std::string& origin) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error(code::kParseFile, origin, ": malformed JSON");
  if (Depth(j, kMaxNesting) > kMaxNesting) {
    return Error(code::kParseFile, origin, ": nesting deeper than ", kMaxNesting, " levels");
  }
  return ProfilerFrom(j, origin, /*needs_switch=*/false);
}

Result<Config> ParseConfig(const std::string& text, const std::string& origin) {
  Config config;
  bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) return config;  // an empty file is as good as "{}"
  nlohmann::json root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Re-parse with exceptions only to get the position for the message.
    std::string where;
    try {
      [[maybe_unused]] auto again = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      where = StrCat(" at byte ", e.byte);
    }
    return Error(code::kParseFile, origin, ": malformed JSON", where);
  }
  if (!root.is_object())
    return Error(code::kParseFile, origin, ": the top level must be an object");
  if (Depth(root, kMaxNesting) > kMaxNesting) {
    return Error(code::kParseFile, origin, ": nesting deeper than ", kMaxNesting, " levels");
  }
  if (auto it = root.find("err_msg_mode"); it != root.end()) {
    KILN_ASSIGN_OR_RETURN(int64_t mode, IntValue(*it, "err_msg_mode", origin));
    if (mode != 0 && mode != 1) {
      return Error(code::kParseFile, origin, ": err_msg_mode must be \"0\" or \"1\", got ", mode);
    }
    config.err_msg_mode = static_cast<int>(mode);
  }
  if (auto it = root.find("defaultDevice"); it != root.end() && it->is_object()) {
    if (auto d = it->find("default_device"); d != it->end()) {
      KILN_ASSIGN_OR_RETURN(int64_t dev, IntValue(*d, "default_device", origin));
      config.default_device = static_cast<int32_t>(dev);
    }
  }
  if (auto it = root.find("kiln"); it != root.end()) {
    if (!it->is_object()) return Error(code::kParseFile, origin, ": \"kiln\" must be an object");
    if (auto m = it->find("device_memory_limit"); m != it->end()) {
      std::optional<uint64_t> bytes;
      if (m->is_number_unsigned() || m->is_number_integer()) {
        if (m->get<int64_t>() > 0) bytes = m->get<uint64_t>();
      } else if (m->is_string()) {
        bytes = env::ParseByteSize(m->get<std::string>());
      }
      if (!bytes) {
        return Error(code::kParseFile, origin,
                     ": kiln.device_memory_limit must be a positive byte count such as "
                     "1073741824 or \"512M\", got ",
                     m->dump());
      }
      config.device_memory_limit = bytes;
    }
  }
  config.dump_requested = root.contains("dump");
  if (auto it = root.find("profiler"); it != root.end()) {
    KILN_ASSIGN_OR_RETURN(config.profiler, ProfilerFrom(*it, origin, /*needs_switch=*/true));
  }
  return config;
}

Result<Config> LoadConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(code::kInvalidFile, "cannot open acl.json file '", path, "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error(code::kInvalidFile, "cannot read acl.json file '", path, "'");
  return ParseConfig(text.str(), "'" + path + "'");
}

}  // namespace kiln::runtime

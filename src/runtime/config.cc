// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/config.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/env.h"
#include "base/regular_file.h"

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

// acl.json writes numbers as strings ("0", "10000"); accept both forms, within int64's range.
Result<int64_t> IntValue(const nlohmann::json& j, const std::string& key,
                         const std::string& origin) {
  if (j.is_number_integer() && (j.is_number_unsigned() ? j.get<uint64_t>() <= INT64_MAX : true)) {
    return j.get<int64_t>();
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0' && errno != ERANGE) return static_cast<int64_t>(v);
  }
  std::string got = j.dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  return Error(code::kParseFile, origin, ": \"", key, "\" must be an integer, got ", got);
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

// A "dump" object (ascendcl-reference.md §5.4, CANN's dump.cpp rules): dump_path and dump_list
// required, dump_mode input|output|all (default output), dump_op_switch on|off (default off),
// dump_data tensor|stats (default tensor); each dump_list entry names a model, and a "layer"
// key, when present, lists at least one node.
Result<DumpOptions> DumpFrom(const nlohmann::json& j, const std::string& origin) {
  auto bad = [&](auto&&... what) {
    return Error(code::kInvalidDumpConfig, origin, ": dump ", what...);
  };
  if (!j.is_object()) return bad("must be an object, got ", j.dump());
  DumpOptions d;
  auto text = [&](const char* key, const std::string& dflt,
                  std::initializer_list<const char*> allowed) -> Result<std::string> {
    auto it = j.find(key);
    if (it == j.end()) return dflt;
    if (it->is_string()) {
      const std::string& v = it->get_ref<const std::string&>();
      if (allowed.size() == 0) return v;
      for (const char* a : allowed) {
        if (v == a) return v;
      }
    }
    std::string choices;
    for (const char* a : allowed) choices += (choices.empty() ? "" : "|") + std::string(a);
    return bad("\"", key, "\" must be ", choices.empty() ? "a string" : choices, ", got ",
               it->dump());
  };
  if (!j.contains("dump_path")) return bad("\"dump_path\" is missing");
  KILN_ASSIGN_OR_RETURN(d.path, text("dump_path", "", {}));
  if (d.path.empty()) return bad("\"dump_path\" is empty");
  if (d.path.size() > 512) return bad("\"dump_path\" is longer than 512 characters");
  struct stat st {};
  if (::stat(d.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return bad("\"dump_path\" '", d.path, "' is not an existing folder");
  }
  if (::access(d.path.c_str(), R_OK | W_OK | X_OK) != 0) {
    return bad("\"dump_path\" '", d.path, "' is not readable and writable");
  }
  KILN_ASSIGN_OR_RETURN(std::string mode, text("dump_mode", "output", {"input", "output", "all"}));
  d.inputs = mode != "output";
  d.outputs = mode != "input";
  KILN_ASSIGN_OR_RETURN(std::string data, text("dump_data", "tensor", {"tensor", "stats"}));
  d.stats = data == "stats";
  KILN_ASSIGN_OR_RETURN(std::string op, text("dump_op_switch", "off", {"on", "off"}));
  d.op_switch = op == "on";
  auto list = j.find("dump_list");
  if (list == j.end()) return bad("\"dump_list\" is missing");
  if (!list->is_array()) return bad("\"dump_list\" must be an array, got ", list->dump());
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& e = (*list)[i];
    if (!e.is_object()) return bad("dump_list[", i, "] must be an object, got ", e.dump());
    DumpModel m;
    auto name = e.find("model_name");
    if (name == e.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      return bad("dump_list[", i, "] needs a \"model_name\" string");
    }
    m.model_name = name->get<std::string>();
    if (auto layer = e.find("layer"); layer != e.end()) {
      if (!layer->is_array()) {
        return bad("dump_list[", i, "] \"layer\" must be an array of node names");
      }
      if (layer->empty()) return bad("dump_list[", i, "] \"layer\" is empty");
      for (const auto& l : *layer) {
        if (!l.is_string()) {
          return bad("dump_list[", i, "] \"layer\" holds ", l.dump(), ", not a node name");
        }
        m.layers.push_back(l.get<std::string>());
      }
      m.all_layers = false;
    }
    d.models.push_back(std::move(m));
  }
  if (d.models.empty() && !d.op_switch) {
    return bad("\"dump_list\" is empty and dump_op_switch is off: nothing to dump");
  }
  return d;
}

// Parses JSON text; a syntax error, and a number too large for a double (which nlohmann's
// parser throws as out_of_range even when asked not to throw), are malformed JSON naming the
// file and the byte.
Result<nlohmann::json> ParseAnyJson(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error(code::kParseFile, origin, ": malformed JSON at byte ", e.byte);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();  // may quote the offending token whole: keep the start
    if (what.size() > 120) what = what.substr(0, 120) + "...";
    return Error(code::kParseFile, origin, ": malformed JSON (", what, ")");
  }
}

// Parses a config's JSON text: an object nested at most kMaxNesting deep.
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& origin) {
  KILN_ASSIGN_OR_RETURN(nlohmann::json root, ParseAnyJson(text, origin));
  if (!root.is_object())
    return Error(code::kParseFile, origin, ": the top level must be an object");
  if (Depth(root, kMaxNesting) > kMaxNesting) {
    return Error(code::kParseFile, origin, ": nesting deeper than ", kMaxNesting, " levels");
  }
  return root;
}

Result<std::string> ReadText(const std::string& path, const char* what) {
  // A config is a small regular file: /dev/zero or a FIFO would read forever.
  constexpr uint64_t kMaxBytes = 16 << 20;
  KILN_ASSIGN_OR_RETURN(RegularFile file, RegularFile::Open(path, StrCat(what, " file"),
                                                            code::kInvalidFile, kMaxBytes));
  return file.ReadText();
}

}  // namespace

Result<DumpOptions> ParseDumpOptions(const std::string& text, const std::string& origin) {
  KILN_ASSIGN_OR_RETURN(nlohmann::json root, ParseJson(text, origin));
  auto it = root.find("dump");
  if (it == root.end()) {
    return Error(code::kInvalidDumpConfig, origin, ": no \"dump\" block");
  }
  return DumpFrom(*it, origin);
}

Result<DumpOptions> LoadDumpConfigFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, ReadText(path, "dump config"));
  return ParseDumpOptions(text, "'" + path + "'");
}

Result<ProfilerOptions> ParseProfilerOptions(const std::string& text, const std::string& origin) {
  KILN_ASSIGN_OR_RETURN(nlohmann::json j, ParseAnyJson(text, origin));
  if (Depth(j, kMaxNesting) > kMaxNesting) {
    return Error(code::kParseFile, origin, ": nesting deeper than ", kMaxNesting, " levels");
  }
  return ProfilerFrom(j, origin, /*needs_switch=*/false);
}

Result<Config> ParseConfig(const std::string& text, const std::string& origin) {
  Config config;
  bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) return config;  // an empty file is as good as "{}"
  KILN_ASSIGN_OR_RETURN(nlohmann::json root, ParseJson(text, origin));
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
      if (dev < 0 || dev > INT32_MAX) {
        return Error(code::kParseFile, origin, ": default_device must be a device id, got ", dev);
      }
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
  if (auto it = root.find("dump"); it != root.end()) {
    KILN_ASSIGN_OR_RETURN(config.dump, DumpFrom(*it, origin));
  }
  if (auto it = root.find("profiler"); it != root.end()) {
    KILN_ASSIGN_OR_RETURN(config.profiler, ProfilerFrom(*it, origin, /*needs_switch=*/true));
  }
  return config;
}

Result<Config> LoadConfigFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string text, ReadText(path, "acl.json"));
  return ParseConfig(text, "'" + path + "'");
}

}  // namespace kiln::runtime

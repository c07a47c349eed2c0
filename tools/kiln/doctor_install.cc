// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: which installs the search paths hold, and whether set_env.sh matches the one
// in use. An install is named by its root: a Kiln install prefix (bin/kiln, runtime/lib64,
// set_env.sh), a Kiln build tree (CMakeCache.txt of project kiln), or a CANN toolkit
// (<...>/ascend-toolkit/<version>, ascend_toolkit_install.info).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/kiln/doctor_finding.h"

namespace kiln::tools::doctor {
namespace {

namespace fs = std::filesystem;

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool IsExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// The first `limit` bytes of a small text file.
std::string Head(const fs::path& p, size_t limit = 1 << 20) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "";
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// The value of the first line starting with `key` (e.g. "version=" or
// "CMAKE_PROJECT_VERSION:STATIC=").
std::string ValueOf(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key, 0) == 0) {
      std::string v = line.substr(key.size());
      while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
      return v;
    }
  }
  return "";
}

bool IsCannParent(const std::string& name) {
  return name == "ascend-toolkit" || name == "ascend-cann-toolkit" || name == "nnrt" ||
         name == "nnae" || name == "cann";
}

// The directory of a search-path entry ("" is the current directory, as the loader reads it).
std::vector<std::string> SplitPath(const char* value) {
  std::vector<std::string> out;
  if (value == nullptr || *value == '\0') return out;  // set but empty: the loader reads none
  std::string s = value;
  size_t start = 0;
  for (;;) {
    size_t colon = s.find(':', start);
    std::string entry = s.substr(start, colon == std::string::npos ? colon : colon - start);
    out.push_back(entry.empty() ? "." : entry);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return out;
}

// Whether a PYTHONPATH entry holds an `acl` package (Kiln's acl/, CANN's acl.so).
std::string AclPackageIn(const fs::path& dir) {
  if (Exists(dir / "acl" / "__init__.py")) return (dir / "acl").string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if ((name == "acl.so" || name.rfind("acl.cpython-", 0) == 0) && e.is_regular_file(ec)) {
      return e.path().string();
    }
  }
  return "";
}

struct Hit {
  std::string var;    // LD_LIBRARY_PATH, PATH, PYTHONPATH
  std::string entry;  // the entry as written
  std::string what;   // libascendcl.so, kiln, atc, acl
  std::string file;   // what was found there
  Install install;
};

std::vector<Hit> ScanSearchPaths() {
  std::vector<Hit> hits;
  auto add = [&](const char* var, const std::string& entry, const char* what,
                 const std::string& file) {
    // A link (e.g. /usr/local/bin/kiln, an alias) names the install it points into.
    const std::string real = Canonical(file);
    hits.push_back(
        {var, entry, what, file,
         InstallOf(std::string(what) == "acl" ? entry : fs::path(real).parent_path().string())});
  };
  for (const std::string& e : SplitPath(std::getenv("LD_LIBRARY_PATH"))) {
    fs::path lib = fs::path(e) / "libascendcl.so";
    if (Exists(lib)) add("LD_LIBRARY_PATH", e, "libascendcl.so", lib.string());
  }
  for (const std::string& e : SplitPath(std::getenv("PATH"))) {
    for (const char* tool : {"kiln", "atc"}) {
      fs::path bin = fs::path(e) / tool;
      if (IsExecutableFile(bin)) add("PATH", e, tool, bin.string());
    }
  }
  for (const std::string& e : SplitPath(std::getenv("PYTHONPATH"))) {
    std::string pkg = AclPackageIn(e);
    if (!pkg.empty()) add("PYTHONPATH", e, "acl", pkg);
  }
  return hits;
}

std::string Describe(const Install& in) {
  std::string s = in.prefix + " (" + in.kind;
  if (!in.version.empty()) s += " " + in.version;
  return s + ")";
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

}  // namespace

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(path), ec);
  if (ec) p = fs::absolute(fs::path(path), ec).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Install InstallOf(const std::string& dir) {
  const fs::path start = Canonical(dir);
  fs::path p = start;
  for (int level = 0; level < 6; ++level) {
    const std::string cache = Head(p / "CMakeCache.txt");
    if (cache.find("CMAKE_PROJECT_NAME:STATIC=kiln\n") != std::string::npos) {
      return {p.string(), "Kiln build tree", ValueOf(cache, "CMAKE_PROJECT_VERSION:STATIC=")};
    }
    if ((Exists(p / "bin" / "kiln") && Exists(p / "runtime" / "lib64")) ||
        Head(p / "set_env.sh", 4096).find("Kiln toolkit environment") != std::string::npos) {
      return {p.string(), "Kiln install", ""};
    }
    if (Exists(p / "kiln" / "_bin" / "kiln") && Exists(p / "acl" / "libascendcl.so")) {
      return {p.string(), "Kiln wheel", ""};  // site-packages of `pip install kiln-*.whl`
    }
    if (Exists(p / "ascend_toolkit_install.info") || Exists(p / "version.cfg") ||
        IsCannParent(p.parent_path().filename().string())) {
      std::string version = ValueOf(Head(p / "ascend_toolkit_install.info"), "version=");
      return {p.string(), "CANN toolkit", version};
    }
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  // No marker: the entry minus the layout's usual tails (runtime/lib64, bin, python/...).
  static const std::set<std::string> kTails = {
      "lib64", "lib", "stub", "runtime", "bin", "site-packages", "python", "acllib", "compiler"};
  p = start;
  while (p.has_parent_path() && p != p.parent_path()) {
    const std::string name = p.filename().string();
    if (kTails.count(name) == 0 && name.rfind("python3", 0) != 0) break;
    p = p.parent_path();
  }
  return {p.string(), "unknown", ""};
}

std::vector<Finding> CheckInstalls(const Context& ctx) {
  const std::vector<Hit> hits = ScanSearchPaths();
  // The distinct installs, this kiln's first, then in the order the paths name them.
  std::vector<std::string> order;
  std::map<std::string, Install> installs;
  std::map<std::string, std::vector<std::string>> where;  // prefix -> "VAR entry" list
  if (!ctx.in_use.prefix.empty()) {
    order.push_back(ctx.in_use.prefix);
    installs[ctx.in_use.prefix] = ctx.in_use;
  }
  // The loaded library's install counts too (it may come from LD_PRELOAD or a default path):
  // this kiln with another install's library is two installs at once.
  const Install& lib = ctx.loaded_install;
  if (!lib.prefix.empty() && installs.emplace(lib.prefix, lib).second) {
    order.push_back(lib.prefix);
    where[lib.prefix].push_back("the loaded library");
  }
  nlohmann::json entries = nlohmann::json::array();
  for (const Hit& h : hits) {
    if (installs.emplace(h.install.prefix, h.install).second) order.push_back(h.install.prefix);
    auto& w = where[h.install.prefix];
    std::string tag = h.var + " " + h.entry;
    bool seen = false;
    for (const auto& x : w) seen |= x == tag;
    if (!seen) w.push_back(tag);
    entries.push_back({{"variable", h.var},
                       {"entry", h.entry},
                       {"found", h.what},
                       {"file", h.file},
                       {"install", h.install.prefix}});
  }
  // Who wins: the first entry of each variable that holds each thing.
  nlohmann::json winners = nlohmann::json::object();
  std::vector<std::string> wins_text;
  for (const Hit& h : hits) {
    const std::string key = h.var == "LD_LIBRARY_PATH" ? h.var : h.var + " " + h.what;
    if (winners.contains(key)) continue;
    winners[key] = {{"file", h.file}, {"install", h.install.prefix}};
    wins_text.push_back(key + " -> " + h.install.prefix);
  }

  std::vector<Finding> out;
  Finding f;
  f.check = "installs";
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& p : order) {
    const Install& in = installs[p];
    list.push_back({{"prefix", in.prefix},
                    {"kind", in.kind},
                    {"version", in.version},
                    {"in_use", p == ctx.in_use.prefix},
                    {"on", where[p]}});
  }
  f.data = {{"installs", list}, {"entries", entries}, {"winners", winners}};
  if (order.size() <= 1) {
    f.found = hits.empty()
                  ? "no Kiln or CANN install on LD_LIBRARY_PATH, PATH or PYTHONPATH"
                  : "one install on the search paths: " + Describe(installs[order.front()]);
    if (hits.empty() && !ctx.in_use.prefix.empty()) {
      f.found += " (this kiln uses " + ctx.in_use.prefix + " through its RUNPATH)";
    }
    out.push_back(f);
  } else {
    std::vector<std::string> others, remove;
    for (const std::string& p : order) {
      if (p == ctx.in_use.prefix) continue;
      std::vector<std::string> on;
      bool this_kiln = false;
      for (const std::string& w : where[p]) {
        if (w == "the loaded library") {
          this_kiln = true;
        } else {
          on.push_back(w);
        }
      }
      others.push_back(Describe(installs[p]) + (this_kiln ? ", whose library loaded," : "") +
                       (on.empty() ? "" : " on " + Join(on, ", ")));
      for (const std::string& w : where[p]) {
        if (w == "the loaded library") continue;
        const size_t space = w.find(' ');  // "VAR entry" -> "entry from VAR"
        remove.push_back(w.substr(space + 1) + " from " + w.substr(0, space));
      }
    }
    f.level = Level::kWarn;
    f.found =
        std::to_string(order.size()) +
        " installs at once: " + (ctx.expected.empty() ? "the loaded library's " : "this kiln's ") +
        (ctx.in_use.prefix.empty() ? std::string("unknown") : Describe(ctx.in_use)) + "; also " +
        Join(others, "; ") + "; wins: " + Join(wins_text, ", ");
    std::string keep = ctx.in_use.prefix.empty() ? "" : " (keep only " + ctx.in_use.prefix + ")";
    if (remove.empty()) {
      f.fix = "make the loader find " + ctx.expected + " (check LD_PRELOAD and /etc/ld.so.conf.d)";
    } else {
      f.fix = "remove " + Join(remove, ", ") + keep +
              "; or open a new shell and source only the set_env.sh of the install you use";
    }
    out.push_back(f);
  }
  // CANN's atc on PATH writes Huawei OM files, which Kiln refuses to load.
  for (const Hit& h : hits) {
    if (h.what != "atc") continue;
    if (h.install.kind == "CANN toolkit") {
      Finding a;
      a.check = "installs";
      a.level = Level::kWarn;
      a.found = "`atc` on PATH is CANN's (" + h.file +
                "): it writes Huawei OM files, which Kiln cannot load";
      a.fix = "compile with `kiln atc` (same flags), or remove " + h.entry + " from PATH";
      a.data = {{"atc", h.file}, {"install", h.install.prefix}};
      out.push_back(a);
    }
    break;  // only the first atc on PATH runs
  }
  return out;
}

Finding CheckSetEnv(const Context& ctx) {
  struct Var {
    const char* name;
    const char* tail;  // what set_env.sh appends to the root
  };
  // Kiln's set_env.sh (cmake/set_env.sh.in) exports the first four; CANN's also the last two.
  static const Var kVars[] = {{"ASCEND_TOOLKIT_HOME", ""},
                              {"ASCEND_HOME_PATH", ""},
                              {"DDK_PATH", ""},
                              {"NPU_HOST_LIB", "runtime/lib64/stub"},
                              {"ASCEND_OPP_PATH", "opp"},
                              {"ASCEND_AICPU_PATH", ""}};
  Finding f;
  f.check = "set_env";
  nlohmann::json vars = nlohmann::json::object();
  std::vector<std::string> match, mismatch;
  std::string other_root;
  for (const Var& v : kVars) {
    const char* value = std::getenv(v.name);
    if (value == nullptr || *value == '\0') continue;
    std::string root = Canonical(value);
    const std::string tail = std::string("/") + v.tail;
    if (*v.tail != '\0' && root.size() > tail.size() &&
        root.compare(root.size() - tail.size(), tail.size(), tail) == 0) {
      root.resize(root.size() - tail.size());
    }
    const bool same = !ctx.in_use.prefix.empty() && root == ctx.in_use.prefix;
    vars[v.name] = {{"value", value}, {"root", root}, {"matches", same}};
    (same ? match : mismatch).push_back(v.name);
    if (!same && other_root.empty()) other_root = root;
  }
  f.data = {{"variables", vars}, {"in_use", ctx.in_use.prefix}};
  const bool build_tree = ctx.in_use.kind == "Kiln build tree";
  const bool wheel = ctx.in_use.kind == "Kiln wheel";
  if (match.empty() && mismatch.empty()) {
    if (build_tree || wheel || ctx.in_use.prefix.empty()) {
      f.found = "set_env.sh not sourced; " +
                std::string(build_tree ? "a build tree needs none (kiln finds its library "
                                         "through its RUNPATH)"
                            : wheel    ? "a wheel has none (no headers for C builds; kiln "
                                         "finds its library through its RUNPATH)"
                                       : "the install in use is unknown");
    } else {
      f.level = Level::kWarn;
      f.found =
          "set_env.sh not sourced (ASCEND_TOOLKIT_HOME, DDK_PATH, NPU_HOST_LIB unset): kiln "
          "runs without it, but CANN-style application builds read DDK_PATH and NPU_HOST_LIB";
      f.fix = "source " + ctx.in_use.prefix + "/set_env.sh";
    }
    return f;
  }
  if (mismatch.empty()) {
    f.found = "set_env.sh sourced from this kiln's install: " + Join(match, ", ") + " point at " +
              ctx.in_use.prefix;
    return f;
  }
  const Install other = InstallOf(other_root);
  // CANN keeps its set_env.sh one level above the version folder (ascend-toolkit/set_env.sh).
  std::string script = other_root + "/set_env.sh";
  if (!Exists(script) && Exists(fs::path(other_root).parent_path() / "set_env.sh")) {
    script = (fs::path(other_root).parent_path() / "set_env.sh").string();
  }
  f.level = Level::kFail;
  f.found = (other.kind == "CANN toolkit" ? "CANN's set_env.sh" : std::string("a set_env.sh")) +
            " from another install was sourced: " + Join(mismatch, ", ") + " point at " +
            other_root + ", but " +
            (ctx.in_use.prefix.empty() ? "the library in use is " + ctx.loaded
             : ctx.expected.empty()    ? "the library in use is " + ctx.in_use.prefix + "'s"
                                       : "this kiln is " + ctx.in_use.prefix + "'s");
  if (build_tree) {
    f.fix = "open a new shell without sourcing " + script +
            " (a build tree needs none), or unset " + Join(mismatch, " ");
  } else if (!ctx.in_use.prefix.empty()) {
    f.fix = "open a new shell and source " + ctx.in_use.prefix + "/set_env.sh only";
  } else {
    f.fix = "unset " + Join(mismatch, " ") + ", or run the kiln of " + other_root;
  }
  return f;
}

}  // namespace kiln::tools::doctor

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: which libascendcl.so this process loaded, its version, and whether it is the
// one that belongs to this kiln: <prefix>/runtime/lib64/libascendcl.so for <prefix>/bin/kiln
// (the install rules), or the build tree's library for the build tree's kiln.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "tools/kiln/doctor_finding.h"

#ifndef KILN_CLI_VERSION
#define KILN_CLI_VERSION "unknown"
#endif

namespace kiln::tools::doctor {
namespace {

namespace fs = std::filesystem;

// Every loaded object whose file name is libascendcl.so*: more than one is two runtimes.
std::vector<std::string> LoadedCopies() {
  std::set<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name == nullptr || *info->dlpi_name == '\0') return 0;
        std::string name = fs::path(info->dlpi_name).filename().string();
        if (name.rfind("libascendcl.so", 0) == 0) {
          static_cast<std::set<std::string>*>(data)->insert(Canonical(info->dlpi_name));
        }
        return 0;
      },
      &names);
  return {names.begin(), names.end()};
}

bool OnLdLibraryPath(const std::string& dir) {
  const char* v = std::getenv("LD_LIBRARY_PATH");
  if (v == nullptr) return false;
  std::string s = v;
  size_t start = 0;
  for (;;) {
    size_t colon = s.find(':', start);
    std::string e = s.substr(start, colon == std::string::npos ? colon : colon - start);
    if (Canonical(e.empty() ? "." : e) == dir) return true;
    if (colon == std::string::npos) return false;
    start = colon + 1;
  }
}

}  // namespace

Finding CheckLibrary(Context* ctx) {
  Finding f;
  f.check = "library";
  std::error_code ec;
  ctx->exe = Canonical(fs::read_symlink("/proc/self/exe", ec).string());

  Dl_info info{};
  void* sym = dlsym(RTLD_DEFAULT, "aclrtGetVersion");
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) {
    f.level = Level::kFail;
    f.found = "no libascendcl.so defines aclrtGetVersion in this process";
    f.fix = "reinstall Kiln: this kiln must load its runtime/lib64/libascendcl.so";
    return f;
  }
  ctx->loaded = Canonical(info.dli_fname);
  const std::string loaded_dir = fs::path(ctx->loaded).parent_path().string();
  ctx->loaded_install = InstallOf(loaded_dir);

  char version[ACL_PKG_VERSION_MAX_SIZE] = {0};
  char runtime_pkg[] = "runtime";
  if (aclsysGetVersionStr(runtime_pkg, version) != ACL_SUCCESS) version[0] = '\0';
  int32_t major = 0, minor = 0, patch = 0;
  (void)aclrtGetVersion(&major, &minor, &patch);
  const std::string acl_version =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);

  // The library this kiln belongs with.
  const fs::path bin = fs::path(ctx->exe).parent_path();
  std::string layout;
  if (bin.filename() == "bin" &&
      fs::exists(bin.parent_path() / "runtime" / "lib64" / "libascendcl.so", ec)) {
    ctx->expected =
        Canonical((bin.parent_path() / "runtime" / "lib64" / "libascendcl.so").string());
    layout = "install prefix " + bin.parent_path().string();
  } else if (bin.filename() == "_bin" &&
             fs::exists(bin.parent_path().parent_path() / "acl" / "libascendcl.so", ec)) {
    // The wheel: site-packages/kiln/_bin/kiln and site-packages/acl/libascendcl.so.
    ctx->expected =
        Canonical((bin.parent_path().parent_path() / "acl" / "libascendcl.so").string());
    layout = "wheel " + bin.parent_path().parent_path().string();
  }
#if defined(KILN_BUILD_BINARY) && defined(KILN_BUILD_LIBRARY)
  if (ctx->expected.empty() && Canonical(KILN_BUILD_BINARY) == ctx->exe) {
    ctx->expected = Canonical(KILN_BUILD_LIBRARY);
    layout = "build tree";
  }
#endif
  ctx->in_use = ctx->expected.empty() ? ctx->loaded_install
                                      : InstallOf(fs::path(ctx->expected).parent_path().string());
  const bool via_ld_path = OnLdLibraryPath(loaded_dir);
  const std::vector<std::string> copies = LoadedCopies();
  f.data = {{"loaded", ctx->loaded},
            {"version", version},
            {"acl_version", acl_version},
            {"kiln_version", KILN_CLI_VERSION},
            {"kiln", ctx->exe},
            {"expected", ctx->expected},
            {"layout", layout},
            {"found_through", via_ld_path ? "LD_LIBRARY_PATH" : "RUNPATH or default paths"},
            {"loaded_copies", copies},
            {"install", ctx->loaded_install.prefix},
            {"install_kind", ctx->loaded_install.kind},
            {"kiln_install", ctx->in_use.prefix}};

  const std::string what = ctx->loaded + " (Kiln " + version + ", AscendCL " + acl_version +
                           (via_ld_path ? ", found through LD_LIBRARY_PATH)" : ")");
  if (copies.size() > 1) {
    f.level = Level::kFail;
    f.found = std::to_string(copies.size()) +
              " copies of libascendcl.so loaded at once: " + copies[0] + ", " + copies[1];
    f.fix = "keep one Kiln or CANN library on LD_LIBRARY_PATH and LD_PRELOAD";
  } else if (ctx->expected.empty()) {
    f.level = Level::kWarn;
    f.found = "loads " + what + "; this kiln (" + ctx->exe +
              ") is neither in an install prefix (bin/kiln + runtime/lib64/libascendcl.so) nor "
              "the build tree's, so which library it should load is unknown";
    f.fix = "run the kiln of the install you mean (<prefix>/bin/kiln) or of the build tree";
  } else if (ctx->loaded != ctx->expected) {
    f.level = Level::kFail;
    f.found = "loads " + what + ", not " + ctx->expected + " next to this kiln (" + layout + ")";
    f.fix = via_ld_path ? "remove " + loaded_dir +
                              " from LD_LIBRARY_PATH (it comes before this kiln's own library)"
                        : "reinstall: this kiln was built for " + ctx->expected;
  } else if (std::string(version) != KILN_CLI_VERSION) {
    f.level = Level::kFail;
    f.found = "loads " + what + " but this kiln is " + KILN_CLI_VERSION;
    f.fix = "rebuild or reinstall so that kiln and libascendcl.so come from one version";
  } else {
    f.found = what + ": the " + (layout == "build tree" ? "build tree's" : "install's") +
              ", next to this kiln";
  }
  return f;
}

}  // namespace kiln::tools::doctor

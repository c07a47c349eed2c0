// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/doctor.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/kiln/doctor_finding.h"

#ifndef KILN_CLI_VERSION
#define KILN_CLI_VERSION "unknown"
#endif

namespace kiln::tools {
namespace {

using doctor::Finding;
using doctor::Level;

struct DoctorFlags {
  bool json = false;
  std::vector<std::string> models;
  std::string model_child;  // internal: check this one model and print its finding as JSON
};

std::vector<Finding> RunChecks(const DoctorFlags& flags) {
  doctor::Context ctx;
  std::vector<Finding> out;
  out.push_back(doctor::CheckLibrary(&ctx));
  for (Finding& f : doctor::CheckInstalls(ctx)) out.push_back(std::move(f));
  out.push_back(doctor::CheckSetEnv(ctx));
  out.push_back(doctor::CheckRuntime(&ctx));
  out.push_back(doctor::CheckCpu());
  for (Finding& f : doctor::CheckThreads(ctx)) out.push_back(std::move(f));
  for (const std::string& m : flags.models) out.push_back(doctor::CheckModelIsolated(ctx, m));
  doctor::FinishRuntime(ctx);
  return out;
}

void PrintText(const std::vector<Finding>& findings, FILE* out) {
  std::fprintf(out, "kiln doctor (kiln %s)\n", KILN_CLI_VERSION);
  int counts[3] = {0, 0, 0};
  for (const Finding& f : findings) {
    ++counts[static_cast<int>(f.level)];
    std::fprintf(out, "%-4s  %-9s %s\n", doctor::LevelName(f.level), f.check.c_str(),
                 f.found.c_str());
    if (!f.fix.empty()) std::fprintf(out, "      fix: %s\n", f.fix.c_str());
  }
  std::fprintf(out, "summary: %d OK, %d WARN, %d FAIL\n", counts[0], counts[1], counts[2]);
}

void PrintJson(const std::vector<Finding>& findings, int exit_code, FILE* out) {
  nlohmann::json doc;
  doc["kiln_version"] = KILN_CLI_VERSION;
  doc["findings"] = nlohmann::json::array();
  nlohmann::json summary = {{"OK", 0}, {"WARN", 0}, {"FAIL", 0}};
  for (const Finding& f : findings) {
    const char* level = doctor::LevelName(f.level);
    summary[level] = summary[level].get<int>() + 1;
    doc["findings"].push_back({{"check", f.check},
                               {"level", level},
                               {"found", f.found},
                               {"fix", f.fix},
                               {"data", f.data}});
  }
  doc["summary"] = summary;
  doc["exit_code"] = exit_code;
  // Paths and messages are not always UTF-8: replace what is not rather than throw.
  std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(out, "%s\n", text.c_str());
}

}  // namespace

namespace doctor {

const char* LevelName(Level level) {
  switch (level) {
    case Level::kOk:
      return "OK";
    case Level::kWarn:
      return "WARN";
    case Level::kFail:
      break;
  }
  return "FAIL";
}

}  // namespace doctor

void AddDoctorCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<DoctorFlags>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "check the installation: which libascendcl.so loads, conflicting Kiln/CANN installs, "
      "set_env.sh, whether .om files load here, CPU features and thread settings");
  cmd->add_flag("--json", flags->json, "print the findings as JSON");
  cmd->add_option("models", flags->models, ".om files to check (will each load here?)");
  cmd->add_option("--model-child", flags->model_child)->group("");  // hidden, internal
  cmd->callback([flags, exit_code] {
    if (!flags->model_child.empty()) {
      *exit_code = doctor::RunModelChild(flags->model_child);
      return;
    }
    std::vector<Finding> findings = RunChecks(*flags);
    int code = 0;
    for (const Finding& f : findings) code |= f.level == Level::kFail ? 1 : 0;
    if (flags->json) {
      PrintJson(findings, code, stdout);
    } else {
      PrintText(findings, stdout);
    }
    *exit_code = code;
  });
}

}  // namespace kiln::tools

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The `kiln` command. It uses only the public AscendCL API (docs/design.md §1), so what it
// reports is what an application would see.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "acl/acl.h"
#include "tools/kiln/atc.h"
#include "tools/kiln/bench.h"
#include "tools/kiln/compare.h"
#include "tools/kiln/doctor.h"
#include "tools/kiln/prof.h"
#include "tools/kiln/smi.h"
#include "tools/kiln/version_report.h"

int main(int argc, char** argv) {
  CLI::App app{
      "Kiln: an AscendCL-compatible inference runtime and ATC-compatible compiler, with the "
      "diagnosis tools CANN users know (x86-64 CPUs today; NVIDIA GPUs to come)",
      "kiln"};
  bool show_version = false;
  app.add_flag("--version", show_version,
               "print the version block (runtime, AscendCL interface, devices) and exit");
  int exit_code = 0;
  kiln::tools::AddAtcCommand(app, &exit_code);
  kiln::tools::AddProfCommand(app, &exit_code);
  kiln::tools::AddSmiCommand(app, &exit_code);
  kiln::tools::AddBenchCommand(app, &exit_code);
  kiln::tools::AddCompareCommand(app, &exit_code);
  kiln::tools::AddDoctorCommand(app, &exit_code);
  app.require_subcommand(0, 1);
  std::vector<std::string> storage;
  kiln::tools::NormalizeAtcArgs(argc, argv, storage);
  CLI11_PARSE(app, argc, argv);
  if (show_version) return kiln::tools::PrintVersionReport(stdout);
  if (app.get_subcommands().empty()) std::fputs(app.help().c_str(), stdout);
  return exit_code;
}

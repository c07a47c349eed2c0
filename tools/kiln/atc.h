// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// Adds `kiln atc` (ATC's flags and output lines) to `app`; `*exit_code` is set when it runs.
void AddAtcCommand(CLI::App& app, int* exit_code);

// ATC accepts single-dash long options (`-output_type=FP32`); CLI11 wants two dashes. Rewrites
// such arguments of `kiln atc` in place; any other command line is left as it is.
void NormalizeAtcArgs(int argc, char** argv, std::vector<std::string>& storage);

}  // namespace kiln::tools

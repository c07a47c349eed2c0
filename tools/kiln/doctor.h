// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// `kiln doctor [--json] [model.om ...]`: the installation checks (docs/tools.md). Each check
// prints one finding, OK / WARN / FAIL, what was found and the fix in one line; the exit status
// (through *exit_code) is 1 when any finding is FAIL, 0 otherwise.
void AddDoctorCommand(CLI::App& app, int* exit_code);

}  // namespace kiln::tools

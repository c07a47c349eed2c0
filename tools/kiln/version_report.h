// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdio>

namespace kiln::tools {

// Writes the version block of `kiln --version` (one "key: value" line each, so a team can
// commit it as version_info.txt). Returns the process exit code.
int PrintVersionReport(FILE* out);

}  // namespace kiln::tools

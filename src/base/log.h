// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN-compatible logging (ascendcl-reference.md §4): level from ASCEND_GLOBAL_LOG_LEVEL and
// ASCEND_MODULE_LOG_LEVEL, stdout or files under ASCEND_PROCESS_LOG_PATH (> ASCEND_WORK_PATH >
// $HOME/ascend/log) in `debug/plog/plog-<pid>_<timestamp>.log`, one line per record in CANN's
// format. Thread-safe.
#pragma once

#include <string>

#include "base/str_cat.h"

namespace kiln::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kNull = 4 };

// CANN module ids (log_types.h) of the modules Kiln logs as.
enum class Module { kRuntime = 7, kApp = 33, kGe = 45, kAscendCl = 48 };

// Re-reads the environment (called by aclInit, so a test can change it between runs).
void Configure();

// True when a record of `level` from `module` would be written.
bool Enabled(Module module, Level level);

// Writes one record. `file` is shortened to its last two path components.
void Write(Module module, Level level, const char* file, int line, const char* func,
           const std::string& text);

// Where file logs go now ("" when printing to stdout); the file is created on first write.
std::string CurrentLogFile();

}  // namespace kiln::log

#define KILN_LOG(module, level, ...)                                                       \
  do {                                                                                     \
    if (::kiln::log::Enabled(::kiln::log::Module::module, ::kiln::log::Level::level))      \
      ::kiln::log::Write(::kiln::log::Module::module, ::kiln::log::Level::level, __FILE__, \
                         __LINE__, __func__, ::kiln::StrCat(__VA_ARGS__));                 \
  } while (0)

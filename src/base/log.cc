// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/log.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>

#include "base/env.h"

namespace kiln::log {
namespace {

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarning:
      return "WARNING";
    case Level::kError:
      return "ERROR";
    case Level::kNull:
      break;
  }
  return "NULL";
}

const char* ModuleName(Module module) {
  switch (module) {
    case Module::kRuntime:
      return "RUNTIME";
    case Module::kApp:
      return "APP";
    case Module::kGe:
      return "GE";
    case Module::kAscendCl:
      return "ASCENDCL";
  }
  return "KILN";
}

// Parses "0".."4"; anything else means the default (ERROR).
Level ParseLevel(const std::string& text, Level fallback) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return Level(text[0] - '0');
  return fallback;
}

int MakeDirs(const std::string& path) {
  std::string partial;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!partial.empty() && mkdir(partial.c_str(), 0750) != 0 && errno != EEXIST) return -1;
    }
    if (i < path.size()) partial.push_back(path[i]);
  }
  return 0;
}

// "YYYY-MM-DD-hh:mm:ss.mmm.uuu" (line) or "YYYYMMDDhhmmssmmm" (file name).
std::string Timestamp(bool for_file) {
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  time_t secs = static_cast<time_t>(us / 1000000);
  struct tm tm_buf;
  localtime_r(&secs, &tm_buf);
  char buf[64];
  int ms = static_cast<int>((us / 1000) % 1000), micro = static_cast<int>(us % 1000);
  if (for_file) {
    snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d%03d", tm_buf.tm_year + 1900,
             tm_buf.tm_mon + 1, tm_buf.tm_mday, tm_buf.tm_hour, tm_buf.tm_min, tm_buf.tm_sec, ms);
  } else {
    snprintf(buf, sizeof buf, "%04d-%02d-%02d-%02d:%02d:%02d.%03d.%03d", tm_buf.tm_year + 1900,
             tm_buf.tm_mon + 1, tm_buf.tm_mday, tm_buf.tm_hour, tm_buf.tm_min, tm_buf.tm_sec, ms,
             micro);
  }
  return buf;
}

struct State {
  std::mutex mu;
  bool configured = false;
  Level global = Level::kError;
  std::map<std::string, Level> modules;  // ASCEND_MODULE_LOG_LEVEL overrides
  bool to_stdout = false;
  std::string root;
  std::string file_path;  // decided at Configure, created on first write
  FILE* file = nullptr;
};

State& GetState() {
  static State* state = new State();  // never destroyed: logging works during exit
  return *state;
}

void ConfigureLocked(State& s) {
  s.configured = true;
  s.global = ParseLevel(env::Get("ASCEND_GLOBAL_LOG_LEVEL"), Level::kError);
  s.modules.clear();
  // "MOD=lvl:MOD=lvl"; any syntax error disables the whole value (CANN's rule).
  std::string spec = env::Get("ASCEND_MODULE_LOG_LEVEL");
  std::map<std::string, Level> parsed;
  bool valid = !spec.empty();
  size_t pos = 0;
  while (valid && pos <= spec.size()) {
    size_t end = spec.find(':', pos);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(pos, end - pos);
    size_t eq = item.find('=');
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (eq == 0 || eq == std::string::npos || value.size() != 1 || value[0] < '0' ||
        value[0] > '4') {
      valid = false;
      break;
    }
    parsed[item.substr(0, eq)] = Level(value[0] - '0');
    pos = end + 1;
  }
  if (valid) s.modules = parsed;
  std::string out = env::Get("ASCEND_LOG_PRINT_TO_STDOUT");
  if (out.empty()) out = env::Get("ASCEND_SLOG_PRINT_TO_STDOUT");
  s.to_stdout = out == "1";
  std::string root = env::Get("ASCEND_PROCESS_LOG_PATH");
  if (root.empty()) root = env::Get("ASCEND_WORK_PATH");
  if (root.empty()) root = env::Get("HOME", "/tmp") + "/ascend/log";
  if (s.file != nullptr && root != s.root) {
    fclose(s.file);
    s.file = nullptr;
  }
  if (s.file == nullptr) {
    s.root = root;
    s.file_path =
        root + "/debug/plog/plog-" + std::to_string(getpid()) + "_" + Timestamp(true) + ".log";
  }
}

}  // namespace

void Configure() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  ConfigureLocked(s);
}

bool Enabled(Module module, Level level) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.configured) ConfigureLocked(s);
  Level threshold = s.global;
  auto it = s.modules.find(ModuleName(module));
  if (it != s.modules.end()) threshold = it->second;
  return threshold != Level::kNull && level >= threshold;
}

void Write(Module module, Level level, const char* file, int line, const char* func,
           const std::string& text) {
  const char* short_file = file;
  int slashes = 0;
  for (const char* p = file + strlen(file); p > file; --p) {
    if (p[-1] == '/' && ++slashes == 2) {
      short_file = p;
      break;
    }
  }
  char head[256];
  snprintf(head, sizeof head, "[%s] %s(%d,%s):%s [%s:%d]%ld %s: ", LevelName(level),
           ModuleName(module), getpid(), program_invocation_short_name, Timestamp(false).c_str(),
           short_file, line, static_cast<long>(syscall(SYS_gettid)), func);
  std::string record = std::string(head) + text + "\n";
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.to_stdout) {
    fwrite(record.data(), 1, record.size(), stdout);
    fflush(stdout);
    return;
  }
  if (s.file == nullptr) {
    std::string dir = s.file_path.substr(0, s.file_path.rfind('/'));
    if (MakeDirs(dir) != 0 || (s.file = fopen(s.file_path.c_str(), "a")) == nullptr) {
      fwrite(record.data(), 1, record.size(), stderr);  // the record is not lost
      return;
    }
  }
  fwrite(record.data(), 1, record.size(), s.file);
  fflush(s.file);
}

std::string CurrentLogFile() {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.configured) ConfigureLocked(s);
  return s.to_stdout ? "" : s.file_path;
}

}  // namespace kiln::log

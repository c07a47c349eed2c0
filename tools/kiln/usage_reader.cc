// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/usage_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "kiln/kiln_usage.h"

namespace kiln::tools {
namespace {

template <typename T>
T Load(const T* field) {
  return __atomic_load_n(field, __ATOMIC_RELAXED);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct ProcState {
  bool exists = false;
  char state = '?';
  uint64_t start_time = 0;  // 0 when /proc/<pid>/stat cannot be read
};

ProcState Proc(int32_t pid) {
  ProcState st;
  if (kill(pid, 0) == 0 || errno == EPERM) st.exists = true;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return st;
  std::istringstream rest(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3) st.state = field[0];
    if (i == 22) st.start_time = std::strtoull(field.c_str(), nullptr, 10);
  }
  return st;
}

enum class Verdict { kLive, kStale, kMalformed };

// Reads `path` into `out`; says why when the file is not a live record.
Verdict ReadRecord(const std::string& path, int32_t file_pid, UsageProcess* out, std::string* why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    *why = std::strerror(errno);
    return errno == ENOENT ? Verdict::kStale : Verdict::kMalformed;  // removed meanwhile
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *why = "not a regular file";
    return Verdict::kMalformed;
  }
  if (static_cast<uint64_t>(st.st_size) < sizeof(kilnUsageRecord)) {
    close(fd);
    *why = "size " + std::to_string(st.st_size) + " bytes, a record has " +
           std::to_string(sizeof(kilnUsageRecord));
    return Verdict::kMalformed;
  }
  void* addr = mmap(nullptr, sizeof(kilnUsageRecord), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (addr == MAP_FAILED) {
    *why = std::string("mmap: ") + std::strerror(errno);
    return Verdict::kMalformed;
  }
  const auto* rec = static_cast<const kilnUsageRecord*>(addr);
  Verdict verdict = Verdict::kLive;
  if (rec->magic != KILN_USAGE_MAGIC) {
    *why = "not a Kiln usage record (bad magic)";
    verdict = Verdict::kMalformed;
  } else if (rec->version != KILN_USAGE_VERSION || rec->record_size != sizeof(kilnUsageRecord)) {
    *why = "record version " + std::to_string(rec->version) + " size " +
           std::to_string(rec->record_size) + ", this reader knows version " +
           std::to_string(KILN_USAGE_VERSION) + " size " + std::to_string(sizeof(kilnUsageRecord));
    verdict = Verdict::kMalformed;
  } else if (rec->pid != file_pid || rec->device_slots != KILN_USAGE_MAX_DEVICES) {
    *why = "pid " + std::to_string(rec->pid) + " or device slots " +
           std::to_string(rec->device_slots) + " do not match the file";
    verdict = Verdict::kMalformed;
  } else {
    ProcState proc = Proc(file_pid);
    if (!proc.exists || proc.state == 'Z' || proc.state == 'X') {
      *why = "process " + std::to_string(file_pid) + " is gone";
      verdict = Verdict::kStale;
    } else if (rec->start_time != 0 && proc.start_time != 0 && rec->start_time != proc.start_time) {
      *why = "pid " + std::to_string(file_pid) + " now names another process";
      verdict = Verdict::kStale;
    }
  }
  if (verdict == Verdict::kLive) {
    out->pid = rec->pid;
    out->name.assign(rec->name, strnlen(rec->name, KILN_USAGE_NAME_SIZE));
    out->path = path;
    for (int i = 0; i < KILN_USAGE_MAX_DEVICES; ++i) {
      const kilnUsageDevice& d = rec->devices[i];
      if (Load(&d.open) != 1) continue;
      UsageDevice dev;
      dev.device = i;
      dev.bytes_in_use = Load(&d.bytes_in_use);
      dev.bytes_reserved = Load(&d.bytes_reserved);
      dev.capacity = Load(&d.capacity);
      dev.updated_ns = Load(&d.updated_ns);
      out->devices.push_back(dev);
    }
  }
  munmap(addr, sizeof(kilnUsageRecord));
  return verdict;
}

// The pid a record file is named after, or nullopt ("<digits>.usage").
std::optional<int32_t> PidOfName(const std::string& name) {
  std::string stem = name.substr(0, name.size() - std::strlen(KILN_USAGE_SUFFIX));
  if (stem.empty() || stem.size() > 9 || !std::all_of(stem.begin(), stem.end(), ::isdigit)) {
    return std::nullopt;
  }
  long pid = std::strtol(stem.c_str(), nullptr, 10);
  if (pid <= 0) return std::nullopt;
  return static_cast<int32_t>(pid);
}

}  // namespace

std::vector<std::string> UsageDirs(bool* off) {
  *off = false;
  const char* configured = std::getenv(KILN_USAGE_DIR_ENV);
  if (configured != nullptr && *configured != '\0') {
    if (std::strcmp(configured, "none") == 0) {
      *off = true;
      return {};
    }
    return {configured};
  }
  std::vector<std::string> dirs;
  auto add_glob = [&](const char* pattern) {
    glob_t g{};
    if (glob(pattern, GLOB_ONLYDIR, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) dirs.emplace_back(g.gl_pathv[i]);
    }
    globfree(&g);
  };
  add_glob("/dev/shm/kiln-*");
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  if (xdg != nullptr && *xdg != '\0') {
    std::string dir = std::string(xdg) + "/kiln";
    struct stat st {};
    if (stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) dirs.push_back(dir);
  }
  add_glob("/tmp/kiln-*");
  return dirs;
}

UsageScan ScanUsage(const std::vector<std::string>& dirs, bool clean_stale) {
  UsageScan scan;
  scan.dirs = dirs;
  for (const auto& dir : dirs) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (EndsWith(name, KILN_USAGE_SUFFIX)) names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      std::string path = dir + "/" + name;
      auto pid = PidOfName(name);
      if (!pid) {
        scan.skipped.push_back(path + ": the name is not <pid>" KILN_USAGE_SUFFIX);
        continue;
      }
      UsageProcess proc;
      std::string why;
      switch (ReadRecord(path, *pid, &proc, &why)) {
        case Verdict::kLive:
          scan.processes.push_back(std::move(proc));
          break;
        case Verdict::kStale:
          if (clean_stale && unlink(path.c_str()) == 0) scan.removed.push_back(path + ": " + why);
          break;
        case Verdict::kMalformed:
          scan.skipped.push_back(path + ": " + why);
          break;
      }
    }
  }
  std::sort(scan.processes.begin(), scan.processes.end(),
            [](const UsageProcess& a, const UsageProcess& b) { return a.pid < b.pid; });
  return scan;
}

UsageScan ScanUsage(bool clean_stale) {
  bool off = false;
  std::vector<std::string> dirs = UsageDirs(&off);
  UsageScan scan = ScanUsage(dirs, clean_stale);
  scan.off = off;
  return scan;
}

}  // namespace kiln::tools

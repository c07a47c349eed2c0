// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/usage_record.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/env.h"
#include "base/log.h"
#include "kiln/kiln_usage.h"

static_assert(sizeof(kilnUsageDevice) == 40, "kiln_usage.h: kilnUsageDevice has padding");
static_assert(sizeof(kilnUsageRecord) == 1384, "kiln_usage.h: kilnUsageRecord has padding");

namespace kiln::runtime {

// The shared mapping of one record file; unmapped when the last slot and the publisher let go.
class UsageMapping {
 public:
  explicit UsageMapping(kilnUsageRecord* record) : record_(record) {
    for (auto& owner : owners_) owner.store(nullptr, std::memory_order_relaxed);
  }
  ~UsageMapping() { munmap(record_, sizeof(kilnUsageRecord)); }
  kilnUsageRecord* record() const { return record_; }
  // The slot that writes device `id` now. A pool that outlives its device's reset (held by
  // someone) must not overwrite, or close, the slot of the pool the device was reopened with.
  std::atomic<const UsageSlot*>& owner(int32_t id) { return owners_[id]; }

 private:
  kilnUsageRecord* record_;
  std::atomic<const UsageSlot*> owners_[KILN_USAGE_MAX_DEVICES];
};

namespace {

uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

template <typename T>
void Store(T* field, T value) {
  __atomic_store_n(field, value, __ATOMIC_RELAXED);
}

// Field 22 of /proc/self/stat: when the process started, in clock ticks after boot. The fields
// after the command name (which may hold spaces and parentheses) start after its last ')'.
uint64_t SelfStartTime() {
  std::ifstream in("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

std::string SelfName() {
  std::ifstream in("/proc/self/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? std::string("unknown") : name;
}

// A directory this user owns (made when missing), or "" with `why` set.
std::string UsableDir(const std::string& dir, bool must_own, std::string* why) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    *why = StrCat(dir, ": ", std::strerror(errno));
    return "";
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = StrCat(dir, " is not a directory");
    return "";
  }
  if (must_own && st.st_uid != geteuid()) {
    *why = StrCat(dir, " belongs to another user");
    return "";
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    *why = StrCat(dir, ": ", std::strerror(errno));
    return "";
  }
  return dir;
}

// The record's directory (kiln_usage.h), "" when publishing is off or nothing is usable.
std::string ResolveDir(bool* off, std::string* why) {
  std::string configured = env::Get(KILN_USAGE_DIR_ENV);
  if (configured == "none") {
    *off = true;
    return "";
  }
  if (!configured.empty()) return UsableDir(configured, /*must_own=*/false, why);
  const std::string uid = std::to_string(geteuid());
  std::vector<std::string> candidates = {"/dev/shm/kiln-" + uid};
  std::string xdg = env::Get("XDG_RUNTIME_DIR");
  if (!xdg.empty()) candidates.push_back(xdg + "/kiln");
  candidates.push_back("/tmp/kiln-" + uid);
  std::string reasons;
  for (const auto& dir : candidates) {
    std::string reason;
    std::string usable = UsableDir(dir, /*must_own=*/true, &reason);
    if (!usable.empty()) return usable;
    reasons += (reasons.empty() ? "" : "; ") + reason;
  }
  *why = reasons;
  return "";
}

void RemoveAtExit() { UsagePublisher::Get().Remove(); }

// A forked child must not write into its parent's record: its copy of each mapping becomes
// private memory with the same contents (slots stay valid), and it has no record file of its own
// until it opens a device anew.
std::vector<kilnUsageRecord*>& LiveMappings() {
  static auto* mappings = new std::vector<kilnUsageRecord*>();
  return *mappings;
}
std::mutex& LiveMappingsMu() {
  static auto* mu = new std::mutex();
  return *mu;
}

void PrivatizeInChild() {
  for (kilnUsageRecord* record : LiveMappings()) {
    kilnUsageRecord copy;
    std::memcpy(&copy, record, sizeof(copy));
    void* fresh = mmap(record, sizeof(kilnUsageRecord), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (fresh == record) std::memcpy(record, &copy, sizeof(copy));
  }
}

}  // namespace

UsageSlot::UsageSlot(std::shared_ptr<UsageMapping> mapping, int32_t id)
    : mapping_(std::move(mapping)), id_(id), device_(&mapping_->record()->devices[id]) {}

UsageSlot::~UsageSlot() {
  Set(0, 0);
  const UsageSlot* self = this;
  if (mapping_->owner(id_).compare_exchange_strong(self, nullptr)) {
    Store(&device_->open, 0u);
  }
}

void UsageSlot::Set(uint64_t bytes_in_use, uint64_t bytes_reserved) {
  if (mapping_->owner(id_).load(std::memory_order_relaxed) != this) return;
  Store(&device_->bytes_in_use, bytes_in_use);
  Store(&device_->bytes_reserved, bytes_reserved);
  Store(&device_->updated_ns, RealtimeNs());
}

UsagePublisher& UsagePublisher::Get() {
  static auto* publisher = new UsagePublisher();  // outlives static destructors and atexit
  return *publisher;
}

std::shared_ptr<UsageSlot> UsagePublisher::OpenDevice(int32_t id, uint64_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  if (id < 0 || id >= KILN_USAGE_MAX_DEVICES) return nullptr;
  if (!mapping_) {
    bool off = false;
    std::string why;
    std::string dir = ResolveDir(&off, &why);
    if (off) return nullptr;
    const std::string final_path = StrCat(dir, "/", getpid(), KILN_USAGE_SUFFIX);
    const std::string temp_path = final_path + ".tmp";
    int fd = -1;
    void* addr = MAP_FAILED;
    if (!dir.empty()) {
      fd = open(temp_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) why = StrCat(temp_path, ": ", std::strerror(errno));
    }
    if (fd >= 0 && ftruncate(fd, sizeof(kilnUsageRecord)) != 0) {
      why = StrCat(temp_path, ": ", std::strerror(errno));
    } else if (fd >= 0) {
      addr = mmap(nullptr, sizeof(kilnUsageRecord), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (addr == MAP_FAILED) why = StrCat(temp_path, ": mmap: ", std::strerror(errno));
    }
    if (fd >= 0) close(fd);
    if (addr != MAP_FAILED) {
      auto* record = static_cast<kilnUsageRecord*>(addr);
      std::memset(record, 0, sizeof(*record));
      record->magic = KILN_USAGE_MAGIC;
      record->version = KILN_USAGE_VERSION;
      record->record_size = sizeof(kilnUsageRecord);
      record->pid = static_cast<int32_t>(getpid());
      record->start_time = SelfStartTime();
      record->created_ns = RealtimeNs();
      std::string name = SelfName();
      std::strncpy(record->name, name.c_str(), KILN_USAGE_NAME_SIZE - 1);
      record->device_slots = KILN_USAGE_MAX_DEVICES;
      for (int i = 0; i < KILN_USAGE_MAX_DEVICES; ++i) record->devices[i].device_id = i;
      if (rename(temp_path.c_str(), final_path.c_str()) != 0) {
        why = StrCat(final_path, ": ", std::strerror(errno));
        munmap(addr, sizeof(kilnUsageRecord));
        unlink(temp_path.c_str());
        addr = MAP_FAILED;
      }
    } else if (fd >= 0) {
      unlink(temp_path.c_str());
    }
    if (addr == MAP_FAILED) {
      if (!warned_) {
        warned_ = true;
        KILN_LOG(kRuntime, kWarning, "cannot publish this process's device usage for `kiln smi` (",
                 why, "); set KILN_USAGE_DIR to a writable directory, or to none");
      }
      return nullptr;
    }
    auto* record = static_cast<kilnUsageRecord*>(addr);
    mapping_ = std::shared_ptr<UsageMapping>(new UsageMapping(record), [](UsageMapping* m) {
      {
        std::lock_guard<std::mutex> live(LiveMappingsMu());
        auto& all = LiveMappings();
        for (size_t i = 0; i < all.size(); ++i) {
          if (all[i] == m->record()) {
            all.erase(all.begin() + static_cast<std::ptrdiff_t>(i));
            break;
          }
        }
      }
      delete m;
    });
    {
      std::lock_guard<std::mutex> live(LiveMappingsMu());
      LiveMappings().push_back(record);
    }
    path_ = final_path;
    if (!atexit_registered_) {
      atexit_registered_ = true;
      std::atexit(RemoveAtExit);
      pthread_atfork(nullptr, nullptr, [] {
        PrivatizeInChild();
        UsagePublisher& self = UsagePublisher::Get();
        new (&self.mu_) std::mutex();  // another thread may have held it at the fork
        // The child's slots keep writing into the now private copy; it is never unmapped.
        if (self.mapping_) new std::shared_ptr<UsageMapping>(std::move(self.mapping_));
        self.path_.clear();
      });
    }
    KILN_LOG(kRuntime, kInfo, "publishing device usage in ", path_);
  }
  kilnUsageDevice* device = &mapping_->record()->devices[id];
  auto slot = std::make_shared<UsageSlot>(mapping_, id);
  mapping_->owner(id).store(slot.get());
  Store(&device->capacity, capacity);
  Store(&device->bytes_in_use, uint64_t{0});
  Store(&device->bytes_reserved, uint64_t{0});
  Store(&device->updated_ns, RealtimeNs());
  Store(&device->open, 1u);
  return slot;
}

void UsagePublisher::Remove() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!mapping_) return;
  if (mapping_->record()->pid == static_cast<int32_t>(getpid())) unlink(path_.c_str());
  mapping_.reset();
  path_.clear();
}

std::string UsagePublisher::path() const {
  std::lock_guard<std::mutex> lock(mu_);
  return path_;
}

}  // namespace kiln::runtime

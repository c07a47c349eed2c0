// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fault injection (label `slow`; docs/testing.md, "Fault injection"): every C++ allocation site
// the AscendCL life cycle of a model reaches fails once, and each time the process must stay
// sound: the call that met the failure returns an error code (or the failure is absorbed and the
// results are still right), nothing crashes or hangs, and under LeakSanitizer nothing leaks.
//
// How: this program replaces the global operator new. A first child process runs the scenario
// (init, device, stream, load from memory, describe, datasets, a synchronous and an asynchronous
// execution, one with the data dump on and one under the profiler, teardown, finalize) recording
// every allocation site, a site being the hash of the eight return addresses from operator new up
// (oneDNN's and OpenMP's own allocations excepted: see Foreign). Then, per site, a child process
// runs the scenario again with the first allocation from that site throwing std::bad_alloc.
// Children are forked from a process that has not touched the runtime, so each starts clean.
//
//   fault_injection <model.om> [--max_sites=N] [--log_dir=DIR] [--model_name=NAME]
//
// Exit status 0 when every site was handled cleanly; 1 with a summary (and, per failing site, its
// stack in DIR/site-<n>.log) otherwise.
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"

namespace {

enum Mode : int { kOff = 0, kRecord = 1, kFail = 2 };
std::atomic<int> g_mode{kOff};
uint64_t g_target = 0;
std::atomic<bool> g_injected{false};
thread_local bool t_inside = false;

// The sites seen in record mode: an open-addressing set that never allocates.
constexpr size_t kSlots = size_t{1} << 17;
std::atomic<uint64_t> g_sites[kSlots];

constexpr int kFrames = 12;
// [0] SiteKey, [1] Visit, [2] operator new (any form): the hash takes eight frames from [2], so
// that in a debug build, where a container's allocation is four or five frames of library
// templates, the call site in Kiln still tells one site from another.
constexpr int kFirstFrame = 2;
constexpr int kHashedFrames = 8;

__attribute__((noinline)) uint64_t SiteKey(void** frames, int* count) {
  *count = backtrace(frames, kFrames);
  uint64_t h = 1469598103934665603ULL;
  for (int i = kFirstFrame; i < *count && i < kFirstFrame + kHashedFrames; ++i) {
    h ^= reinterpret_cast<uintptr_t>(frames[i]);
    h *= 1099511628211ULL;
  }
  return h | 1;  // never 0 (an empty slot)
}

void Record(uint64_t key) {
  size_t i = key & (kSlots - 1);
  for (size_t probe = 0; probe < kSlots; ++probe, i = (i + 1) & (kSlots - 1)) {
    uint64_t expected = 0;
    if (g_sites[i].compare_exchange_strong(expected, key)) return;
    if (expected == key) return;
  }
}

// Whether the allocation is oneDNN's or OpenMP's own (the first caller outside libstdc++ lies in
// libdnnl or libgomp): those libraries leak what they had made when their own allocation fails,
// which no change in Kiln can mend, so such sites are left alone.
bool Foreign(void* const* frames, int count) {
  static const void* self = [] {  // this program's own frames (operator new, Visit) are skipped
    Dl_info info;
    return dladdr(reinterpret_cast<void*>(&Record), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  for (int i = 0; i < count; ++i) {
    Dl_info info;
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) return false;
    if (info.dli_fbase == self) continue;
    const char* name = std::strrchr(info.dli_fname, '/');
    name = name ? name + 1 : info.dli_fname;
    // libstdc++'s containers, and a sanitizer's interceptor of backtrace() itself
    if (std::strncmp(name, "libstdc++", 9) == 0 || std::strstr(name, "san.so") != nullptr) continue;
    return std::strncmp(name, "libdnnl", 7) == 0 || std::strncmp(name, "libgomp", 7) == 0;
  }
  return false;
}

// Called by every operator new before it allocates: records the site, or throws for the target.
__attribute__((noinline)) void Visit() {
  const int mode = g_mode.load(std::memory_order_relaxed);
  if (mode == kOff || t_inside) return;
  t_inside = true;
  void* frames[kFrames];
  int count = 0;
  uint64_t key = SiteKey(frames, &count);
  if (Foreign(frames, count)) key = 0;
  t_inside = false;
  if (key == 0) return;  // oneDNN's or OpenMP's own
  if (mode == kRecord) {
    Record(key);
  } else if (key == g_target && !g_injected.exchange(true)) {
    static const char kMsg[] = "fault_injection: failing the allocation at\n";
    (void)!write(2, kMsg, sizeof kMsg - 1);
    if (count > kFirstFrame) backtrace_symbols_fd(frames + kFirstFrame, count - kFirstFrame, 2);
    throw std::bad_alloc();
  }
}

// While one lives, this thread's allocations are the harness's own: never failed or recorded.
struct HarnessAllocations {
  HarnessAllocations() { t_inside = true; }
  ~HarnessAllocations() { t_inside = false; }
};

void* Allocate(size_t n, size_t align) {
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(n ? n : 1)
                : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

// The replacements must be seen by libascendcl.so (the build hides symbols by default).
#define KILN_EXPORT __attribute__((visibility("default")))

KILN_EXPORT void* operator new(size_t n) {
  Visit();
  return Allocate(n, 0);
}
KILN_EXPORT void* operator new[](size_t n) {
  Visit();
  return Allocate(n, 0);
}
KILN_EXPORT void* operator new(size_t n, std::align_val_t a) {
  Visit();
  return Allocate(n, static_cast<size_t>(a));
}
KILN_EXPORT void* operator new[](size_t n, std::align_val_t a) {
  Visit();
  return Allocate(n, static_cast<size_t>(a));
}
KILN_EXPORT void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    Visit();
    return Allocate(n, 0);
  } catch (...) {
    return nullptr;
  }
}
KILN_EXPORT void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    Visit();
    return Allocate(n, 0);
  } catch (...) {
    return nullptr;
  }
}
KILN_EXPORT void operator delete(void* p) noexcept { std::free(p); }
KILN_EXPORT void operator delete[](void* p) noexcept { std::free(p); }
KILN_EXPORT void operator delete(void* p, size_t) noexcept { std::free(p); }
KILN_EXPORT void operator delete[](void* p, size_t) noexcept { std::free(p); }
KILN_EXPORT void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
KILN_EXPORT void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
KILN_EXPORT void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
KILN_EXPORT void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

// What a child reports through its exit status.
// (1 is the sanitizers' exit status.)
enum Outcome : int { kClean = 0, kUsage = 2, kNotReached = 3, kWrongResult = 4 };

// Where the scenario's tool phases write (set by main before any child runs): an acl dump
// config (dump_mode all, the model by name) and the profiler's result folder.
std::string g_dump_config, g_prof_dir;

// The tools' paths through the runtime: an execution with the data dump on (every node's inputs
// and outputs written; for a model whose weights were given back at load, written back first),
// then one under the profiler (API and task times, its report written at aclprofStop).
template <typename Ok>
void ToolPhases(uint32_t id, aclmdlDataset* in, aclmdlDataset* out, Ok& ok) {
  if (ok(aclmdlInitDump())) {
    if (ok(aclmdlSetDump(g_dump_config.c_str()))) (void)ok(aclmdlExecute(id, in, out));
    (void)ok(aclmdlFinalizeDump());
  }
  if (!ok(aclprofInit(g_prof_dir.c_str(), g_prof_dir.size()))) return;
  uint32_t device = 0;
  aclprofConfig* config = aclprofCreateConfig(&device, 1, ACL_AICORE_NONE, nullptr,
                                              ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  (void)ok(config != nullptr ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM);
  if (config != nullptr) {
    if (ok(aclprofStart(config))) {
      (void)ok(aclmdlExecute(id, in, out));
      (void)ok(aclprofStop(config));
    }
    (void)ok(aclprofDestroyConfig(config));
  }
  (void)ok(aclprofFinalize());
}

// The scenario. Every call may fail (the injected failure surfaces as its error code); what was
// created is released whatever happened. Returns kWrongResult when every call succeeded but an
// output differs from `expected` (when given), and fills `output` with the first output.
int Scenario(const std::vector<uint8_t>& om, const std::vector<uint8_t>* expected,
             std::vector<uint8_t>* output) {
  bool all_ok = true;
  auto ok = [&](aclError e) {
    all_ok &= e == ACL_SUCCESS;
    return e == ACL_SUCCESS;
  };
  if (!ok(aclInit(nullptr))) return kClean;
  if (ok(aclrtSetDevice(0))) {
    aclrtStream stream = nullptr;
    (void)ok(aclrtCreateStream(&stream));
    uint32_t id = 0;
    if (ok(aclmdlLoadFromMem(om.data(), om.size(), &id))) {
      aclmdlDesc* desc = aclmdlCreateDesc();
      aclmdlDataset* in = aclmdlCreateDataset();
      aclmdlDataset* out = aclmdlCreateDataset();
      std::vector<void*> memory;
      std::vector<aclDataBuffer*> buffers;
      all_ok &= desc != nullptr && in != nullptr && out != nullptr;
      if (desc != nullptr && ok(aclmdlGetDesc(desc, id)) && in != nullptr && out != nullptr) {
        for (int side = 0; side < 2; ++side) {
          const size_t n = side == 0 ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
          for (size_t i = 0; i < n; ++i) {
            const size_t bytes = side == 0 ? aclmdlGetInputSizeByIndex(desc, i)
                                           : aclmdlGetOutputSizeByIndex(desc, i);
            void* p = nullptr;
            if (!ok(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST))) continue;
            {
              HarnessAllocations own;
              memory.push_back(p);
            }
            (void)ok(aclrtMemset(p, bytes, side == 0 ? 0x3c : 0, bytes));
            aclDataBuffer* b = aclCreateDataBuffer(p, bytes);
            all_ok &= b != nullptr;
            if (b == nullptr) continue;
            {
              HarnessAllocations own;
              buffers.push_back(b);
            }
            (void)ok(aclmdlAddDatasetBuffer(side == 0 ? in : out, b));
          }
        }
        if (ok(aclmdlExecute(id, in, out)) && stream != nullptr &&
            ok(aclmdlExecuteAsync(id, in, out, stream))) {
          (void)ok(aclrtSynchronizeStream(stream));
        }
        ToolPhases(id, in, out, ok);
        if (aclmdlGetDatasetNumBuffers(out) > 0) {
          aclDataBuffer* b = aclmdlGetDatasetBuffer(out, 0);
          {
            HarnessAllocations own;
            output->resize(aclGetDataBufferSizeV2(b));
          }
          (void)ok(aclrtMemcpy(output->data(), output->size(), aclGetDataBufferAddr(b),
                               output->size(), ACL_MEMCPY_DEVICE_TO_HOST));
        }
      }
      for (aclDataBuffer* b : buffers) (void)ok(aclDestroyDataBuffer(b));
      for (void* p : memory) (void)ok(aclrtFree(p));
      if (in != nullptr) (void)ok(aclmdlDestroyDataset(in));
      if (out != nullptr) (void)ok(aclmdlDestroyDataset(out));
      if (desc != nullptr) (void)ok(aclmdlDestroyDesc(desc));
      (void)ok(aclmdlUnload(id));
    }
    if (stream != nullptr) (void)ok(aclrtDestroyStream(stream));
    (void)ok(aclrtResetDevice(0));
  }
  (void)ok(aclFinalize());
  if (all_ok && expected != nullptr && *output != *expected) return kWrongResult;
  return kClean;
}

struct Child {
  int status = 0;
  bool hung = false;
};

// Runs `body` in a forked child (its stderr to `log`, or inherited), waiting at most `seconds`.
template <typename F>
Child RunChild(F&& body, const std::string& log, int seconds) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!log.empty()) {
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) dup2(fd, 2);
    }
    alarm(static_cast<unsigned>(seconds));
    std::exit(body());  // not _exit: LeakSanitizer checks at exit
  }
  Child c;
  if (pid < 0) {
    c.status = -1;
    return c;
  }
  while (waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {
  }
  c.hung = WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGALRM;
  return c;
}

std::string Describe(const Child& c) {
  if (c.hung) return "hang";
  if (WIFSIGNALED(c.status)) return std::string("signal ") + strsignal(WTERMSIG(c.status));
  if (WIFEXITED(c.status)) {
    switch (WEXITSTATUS(c.status)) {
      case kClean:
        return "clean";
      case kNotReached:
        return "not reached";
      case kWrongResult:
        return "wrong result after all calls succeeded";
      case 1:
        return "sanitizer report (a leak, or an error)";
      default:
        return "exit " + std::to_string(WEXITSTATUS(c.status));
    }
  }
  return "unknown";
}

// Empties the dump and profile folders between runs (each run's are only there to be made).
void ClearDumps(const std::string& log_dir) {
  std::error_code ec;
  for (const char* sub : {"/dump", "/prof"}) {
    std::filesystem::remove_all(log_dir + sub, ec);
    std::filesystem::create_directories(log_dir + sub, ec);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string om_path, log_dir = ".", model_name = "model";
  size_t max_sites = SIZE_MAX;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--max_sites=", 0) == 0) {
      max_sites = std::strtoull(a.c_str() + 12, nullptr, 10);
    } else if (a.rfind("--log_dir=", 0) == 0) {
      log_dir = a.substr(10);
    } else if (a.rfind("--model_name=", 0) == 0) {
      model_name = a.substr(13);
    } else if (om_path.empty() && a[0] != '-') {
      om_path = a;
    } else {
      std::fprintf(stderr,
                   "usage: fault_injection <model.om> [--max_sites=N] [--log_dir=DIR] "
                   "[--model_name=NAME]\n");
      return kUsage;
    }
  }
  std::ifstream in(om_path, std::ios::binary);
  const std::vector<uint8_t> om((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (om.empty()) {
    std::fprintf(stderr, "fault_injection: cannot read %s\n", om_path.c_str());
    return kUsage;
  }
  g_dump_config = log_dir + "/dump.json";
  g_prof_dir = log_dir + "/prof";
  ClearDumps(log_dir);  // the dump path must be a folder already
  std::ofstream(g_dump_config) << "{\"dump\": {\"dump_path\": \"" << log_dir
                               << "/dump\", \"dump_mode\": \"all\", \"dump_list\": "
                                  "[{\"model_name\": \""
                               << model_name << "\"}]}}";
  {  // backtrace() loads libgcc's unwinder on its first call: not inside operator new
    void* frames[2];
    (void)backtrace(frames, 2);
  }

  // The reference run, recording every site; its output is what the other runs must give.
  const std::string expected_path = log_dir + "/fault_injection_expected.bin";
  const std::string sites_path = log_dir + "/fault_injection_sites.bin";
  Child ref = RunChild(
      [&] {
        std::vector<uint8_t> output;
        g_mode = kRecord;
        const int r = Scenario(om, nullptr, &output);
        g_mode = kOff;
        std::ofstream(expected_path, std::ios::binary)
            .write(reinterpret_cast<const char*>(output.data()),
                   static_cast<std::streamsize>(output.size()));
        std::ofstream sites(sites_path, std::ios::binary);
        for (auto& s : g_sites) {
          const uint64_t v = s.load();
          if (v != 0) sites.write(reinterpret_cast<const char*>(&v), sizeof v);
        }
        return r;
      },
      "", 300);
  if (Describe(ref) != "clean") {
    std::fprintf(stderr, "fault_injection: the reference run failed: %s\n", Describe(ref).c_str());
    return 1;
  }
  std::ifstream e(expected_path, std::ios::binary);
  const std::vector<uint8_t> expected((std::istreambuf_iterator<char>(e)),
                                      std::istreambuf_iterator<char>());
  std::ifstream s(sites_path, std::ios::binary);
  std::vector<uint64_t> sites;
  for (uint64_t v; s.read(reinterpret_cast<char*>(&v), sizeof v);) sites.push_back(v);
  std::printf("fault_injection: %zu allocation sites in the scenario; output %zu bytes\n",
              sites.size(), expected.size());
  std::fflush(stdout);

  size_t tried = 0, bad = 0, not_reached = 0;
  for (size_t i = 0; i < sites.size() && tried < max_sites; ++i, ++tried) {
    const std::string log = log_dir + "/site-" + std::to_string(i) + ".log";
    Child c = RunChild(
        [&] {
          g_target = sites[i];
          g_mode = kFail;
          std::vector<uint8_t> output;
          const int r = Scenario(om, &expected, &output);
          g_mode = kOff;
          // A site the reference run reached but this one did not (another thread's timing).
          return r == kClean && !g_injected.load() ? kNotReached : r;
        },
        log, 120);
    ClearDumps(log_dir);
    const std::string what = Describe(c);
    if (what == "not reached") {
      ++not_reached;
      std::remove(log.c_str());
    } else if (what != "clean") {
      ++bad;
      std::printf("site %zu: %s (stack in %s)\n", i, what.c_str(), log.c_str());
      std::fflush(stdout);
    } else {
      std::remove(log.c_str());
    }
  }
  std::printf(
      "fault_injection: %zu sites tried, %zu failed once and handled cleanly, %zu not handled, %zu "
      "not reached in their run\n",
      tried, tried - bad - not_reached, bad, not_reached);
  return bad == 0 ? 0 : 1;
}

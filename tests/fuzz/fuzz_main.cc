// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The driver of a fuzz target built without libFuzzer (any compiler, any sanitizer): it calls
// the target's LLVMFuzzerTestOneInput the way libFuzzer would, so CI's GCC sanitizer builds run
// the same targets clang's -fsanitize=fuzzer builds run for long campaigns (docs/fuzzing.md).
//
//   <target> [--timeout=S] PATH...
//       replays every file (a folder: every regular file in it, in name order) once
//   <target> --mutate_seconds=T [--seed=N] [--out=DIR] [--timeout=S] PATH...
//       mutates the given files for T seconds: each input is a seed with one to four mutations
//       (bit flips, bytes, 4- and 8-byte words set to boundary values or nudged by a few, chunks
//       copied), aimed at an .om's graph section when the bytes have an .om header
//
// Each input runs under a watchdog: one using more than --timeout (default 10 s) of CPU, or ten
// times that on the clock (time the process spends stopped not counted), is a hang.
// Before each mutated input runs it is written to DIR/current-input (default: the working
// folder), so a crash or hang leaves its reproducer behind; a clean run removes it. Exit status:
// 0 when every input returned, 2 on a hang, 3 for bad usage; a crash aborts (the sanitizer's
// report says where).
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "format/om_file.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<uint8_t>;

struct Options {
  double timeout_s = 10;
  double mutate_seconds = 0;  // 0: replay
  uint64_t seed = 1;
  std::string out = ".";
  std::vector<std::string> paths;
};

// The input running now: when it started (0: none) and the process's CPU time then, for the
// watchdog.
std::atomic<int64_t> g_started_ns{0};
std::atomic<int64_t> g_started_cpu_ns{0};
std::string g_current;  // what the watchdog names on a hang

int64_t ProcessCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A hang: the input used more than `timeout_s` of CPU (a loop), or ran ten times that long
// on the clock (a thread blocked for good). CPU time, not the clock, is the first test because a
// campaign shares the machine: niced beside a build, or stopped (SIGSTOP) while a benchmark runs,
// an input that takes 0.3 s alone took more than 20 s on the clock.
void Watchdog(double timeout_s) {
  const int64_t cpu_limit = static_cast<int64_t>(timeout_s * 1e9);
  const int64_t wall_limit = 10 * cpu_limit;
  auto last_tick = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // A tick far later than asked: the whole process was stopped, and that time is not the
    // input's on the clock either (unless another input has started meanwhile).
    const auto tick = Clock::now();
    const int64_t gap =
        std::chrono::duration_cast<std::chrono::nanoseconds>(tick - last_tick).count();
    last_tick = tick;
    if (gap > 1'000'000'000) {
      int64_t was = g_started_ns.load();
      if (was != 0) g_started_ns.compare_exchange_strong(was, was + gap);
      continue;
    }
    const int64_t started = g_started_ns.load();
    if (started == 0) continue;
    const int64_t wall = Clock::now().time_since_epoch().count() - started;
    const int64_t cpu = ProcessCpuNs() - g_started_cpu_ns.load();
    if (g_started_ns.load() != started) continue;  // the next input began meanwhile
    if (cpu > cpu_limit || wall > wall_limit) {
      std::fprintf(stderr, "fuzz: HANG: %s used %.1f s of CPU in %.1f s\n", g_current.c_str(),
                   static_cast<double>(cpu) * 1e-9, static_cast<double>(wall) * 1e-9);
      std::fflush(stderr);
      _exit(2);
    }
  }
}

void RunOne(const Bytes& input) {
  g_started_cpu_ns.store(ProcessCpuNs());
  g_started_ns.store(Clock::now().time_since_epoch().count());
  LLVMFuzzerTestOneInput(input.data(), input.size());
  g_started_ns.store(0);
}

bool ReadFile(const std::string& path, Bytes* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

bool WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(f);
}

// The files a PATH names: itself, or the regular files in the folder, in name order.
std::vector<std::string> Expand(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  if (!S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> files;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string f = path + "/" + e->d_name;
      struct stat fs {};
      if (e->d_name[0] != '.' && stat(f.c_str(), &fs) == 0 && S_ISREG(fs.st_mode)) {
        files.push_back(f);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Where mutations go: an .om's graph section when the header names one inside the file (the
// weights are numbers any value of which is valid), else the whole input.
std::pair<size_t, size_t> Target(const Bytes& b) {
  using kiln::format::OmHeader;
  if (b.size() > sizeof(OmHeader)) {
    OmHeader h;
    std::memcpy(&h, b.data(), sizeof h);
    for (uint32_t i = 0; i < kiln::format::kMaxSections && i < h.section_count; ++i) {
      const auto& s = h.sections[i];
      if (s.kind == static_cast<uint32_t>(kiln::format::SectionKind::kGraph) && s.size >= 8 &&
          s.offset < b.size() && s.size <= b.size() - s.offset) {
        return {static_cast<size_t>(s.offset), static_cast<size_t>(s.size)};
      }
    }
  }
  return {0, b.size()};
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  void Mutate(Bytes& b) {
    if (b.size() < 8) {
      b.push_back(static_cast<uint8_t>(rng_()));
      return;
    }
    const auto [begin, size] = Target(b);
    const int count = 1 + static_cast<int>(Below(8) / 3);  // 1-3, mostly 1
    for (int i = 0; i < count; ++i) MutateOnce(b, begin, size);
  }

 private:
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  template <typename T>
  void Store(Bytes& b, size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
  }
  template <typename T>
  T Load(const Bytes& b, size_t at) {
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    return v;
  }

  void MutateOnce(Bytes& b, size_t begin, size_t size) {
    static const int32_t k32[] = {0,  1,         -1,        2,       3,       7,       16,  255,
                                  -2, INT32_MAX, INT32_MIN, 1 << 16, 1 << 24, 1 << 30, -256};
    static const int64_t k64[] = {0,         1,         -1,        2,     1LL << 31, 1LL << 32,
                                  1LL << 40, INT64_MAX, INT64_MIN, -1000, 1LL << 62, 3};
    const size_t at4 = begin + Below(size / 4) * 4, at8 = begin + Below(size / 8) * 8;
    switch (Below(7)) {
      case 0:
        b[begin + Below(size)] ^= static_cast<uint8_t>(1u << Below(8));
        break;
      case 1:
        b[begin + Below(size)] = static_cast<uint8_t>(rng_());
        break;
      case 2:
        Store<int32_t>(b, at4, k32[Below(std::size(k32))]);
        break;
      case 3:
        Store<int64_t>(b, at8, k64[Below(std::size(k64))]);
        break;
      case 4:  // a dim, index, offset or count moved by a little
        Store<uint32_t>(b, at4, Load<uint32_t>(b, at4) + static_cast<uint32_t>(Below(33)) - 16u);
        break;
      case 5:
        Store<uint64_t>(b, at8, Below(2) ? Load<uint64_t>(b, at8) * 2 : 0 - Load<uint64_t>(b, at8));
        break;
      default: {  // a chunk of the section copied over another place in it
        const size_t len = 1 + Below(std::min<size_t>(64, size / 2));
        const size_t from = begin + Below(size - len + 1), to = begin + Below(size - len + 1);
        std::memmove(b.data() + to, b.data() + from, len);
      }
    }
  }

  std::mt19937_64 rng_;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--timeout=")) {
      o->timeout_s = std::atof(v);
    } else if (const char* v = value("--mutate_seconds=")) {
      o->mutate_seconds = std::atof(v);
    } else if (const char* v = value("--seed=")) {
      o->seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--out=")) {
      o->out = v;
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "fuzz: unknown option %s (see fuzz_main.cc)\n", a.c_str());
      return false;
    } else {
      o->paths.push_back(a);
    }
  }
  return !o->paths.empty() && o->timeout_s > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s [--timeout=S] [--mutate_seconds=T --seed=N --out=DIR] PATH...\n",
                 argv[0]);
    return 3;
  }
  std::vector<std::string> files;
  for (const std::string& p : o.paths) {
    const auto f = Expand(p);
    if (f.empty()) {
      std::fprintf(stderr, "fuzz: %s: no such file or no files in it\n", p.c_str());
      return 3;
    }
    files.insert(files.end(), f.begin(), f.end());
  }
  std::vector<Bytes> inputs(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (!ReadFile(files[i], &inputs[i])) {
      std::fprintf(stderr, "fuzz: cannot read %s\n", files[i].c_str());
      return 3;
    }
  }
  LLVMFuzzerInitialize(&argc, &argv);
  std::thread(Watchdog, o.timeout_s).detach();
  if (o.mutate_seconds <= 0) {
    for (size_t i = 0; i < files.size(); ++i) {
      g_current = files[i];
      RunOne(inputs[i]);
    }
    std::printf("fuzz: replayed %zu inputs\n", files.size());
    return 0;
  }
  const std::string reproducer = o.out + "/current-input";
  g_current = reproducer;
  Mutator mutator(o.seed);
  std::mt19937_64 pick(o.seed ^ 0x9e3779b97f4a7c15ULL);
  const auto end = Clock::now() + std::chrono::duration<double>(o.mutate_seconds);
  uint64_t runs = 0;
  // A progress line a minute, so that a campaign a report stops still has its count on record.
  auto next_progress = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < end) {
    if (Clock::now() >= next_progress) {
      std::printf("fuzz: %llu mutated inputs so far\n", static_cast<unsigned long long>(runs));
      std::fflush(stdout);
      next_progress += std::chrono::seconds(60);
    }
    Bytes b = inputs[pick() % inputs.size()];
    mutator.Mutate(b);
    if (!WriteFile(reproducer, b)) {
      std::fprintf(stderr, "fuzz: cannot write %s\n", reproducer.c_str());
      return 3;
    }
    RunOne(b);
    ++runs;
  }
  std::remove(reproducer.c_str());
  std::printf("fuzz: %llu mutated inputs from %zu seeds in %.0f s, seed %llu\n",
              static_cast<unsigned long long>(runs), files.size(), o.mutate_seconds,
              static_cast<unsigned long long>(o.seed));
  return 0;
}

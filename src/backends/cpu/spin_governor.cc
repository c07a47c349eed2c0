// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/spin_governor.h"

#include <fcntl.h>
#include <omp.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/cpu_driver.h"
#include "base/clock.h"
#include "base/env.h"
#include "base/log.h"

namespace kiln::cpu {
namespace {

// /proc/stat and this process's CPU time (s) at one moment.
struct MachineTimes {
  ProcStat stat;
  double own_cpu_s = 0;
};

// The governor's thread parks and unparks; executions only ask for a state (Request).
struct Governor {
  std::mutex mu;
  std::condition_variable cv;
  bool want_parked = false;  // what the last sample asked for
  bool release = false;      // the parked team is to leave its region
  std::atomic<bool> parked{false};
  std::thread parker;  // hosts the parked team; ends (freeing its libgomp pool) on unpark

  std::atomic<bool> first_execution_seen{false};
  // /proc/stat and this process's CPU time when the governor started (DecideBeforeFirstExecution).
  bool start_valid = false;
  MachineTimes start;

  // Probe decisions (LoadProbe::End), under probe_mu.
  std::mutex probe_mu;
  std::atomic<uint64_t> next_probe_ns{0};
  bool park_awaiting_confirmation = false;
  std::atomic<uint64_t> probe_reads{0};
};

Governor& G() {
  // Never destroyed: the governor's threads outlive static destruction at exit.
  static Governor* const g = new Governor;
  return *g;
}

void ParkedTeam() {
  Governor& g = G();
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
#pragma omp master
    {
      std::unique_lock<std::mutex> lock(g.mu);
      g.parked.store(true, std::memory_order_release);
      g.cv.notify_all();
      g.cv.wait(lock, [&] { return g.release; });
    }
  }
}

[[noreturn]] void GovernorLoop() {
  Governor& g = G();
  std::unique_lock<std::mutex> lock(g.mu);
  for (;;) {
    g.cv.wait(lock, [&] { return g.want_parked != g.parked.load(std::memory_order_relaxed); });
    if (g.want_parked) {
      g.release = false;
      lock.unlock();
      bool started = true;
      try {
        g.parker = std::thread(ParkedTeam);
      } catch (const std::exception&) {  // out of memory or threads: stay unparked
        started = false;
      }
      lock.lock();
      if (!started) {
        g.want_parked = false;  // what is, so that WaitSettled returns
        g.cv.notify_all();
        continue;
      }
      g.cv.wait(lock, [&] { return g.parked.load(std::memory_order_relaxed); });
    } else {
      g.release = true;
      g.cv.notify_all();
      lock.unlock();
      g.parker.join();  // the thread's end releases its OpenMP pool and libgomp's count of it
      lock.lock();
      g.parked.store(false, std::memory_order_release);
      g.cv.notify_all();
    }
  }
}

void Request(bool park) {
  Governor& g = G();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.want_parked != park) {
    g.want_parked = park;
    g.cv.notify_all();
  }
}

void WaitSettled() {
  Governor& g = G();
  std::unique_lock<std::mutex> lock(g.mu);
  g.cv.wait(lock, [&] { return g.want_parked == g.parked.load(std::memory_order_relaxed); });
}

// Up to `cap` bytes of a /proc file into `buf` (no allocation); their count, 0 when unreadable.
size_t ReadProcFile(const char* path, char* buf, size_t cap) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = 0;
  for (ssize_t r; n < cap && (r = ::read(fd, buf + n, cap - n)) > 0;) n += static_cast<size_t>(r);
  ::close(fd);
  return n;
}

// A thread's CPU time and its time waiting for a CPU (ns), and its context switches: the times
// it slept (voluntary) and was preempted (involuntary; these two only for the debug log).
struct ThreadTimes {
  uint64_t cpu_ns = 0, wait_ns = 0;
  long sleeps = 0, preemptions = 0;
};

// The calling thread's times; false when the kernel does not expose them. The CPU clock is
// exact; schedstat's run time lags by up to a scheduler tick for a running thread (a window of
// short executions read 0 there), its wait time does not (it grows only while the thread is off
// a CPU).
bool ReadThreadTimes(ThreadTimes* t) {
  G().probe_reads.fetch_add(1, std::memory_order_relaxed);
  char text[96];
  const size_t n = ReadProcFile("/proc/thread-self/schedstat", text, sizeof text);
  uint64_t schedstat_run = 0;
  timespec ts{};
  rusage ru{};
  if (n == 0 || !ParseSchedstat(std::string_view(text, n), &schedstat_run, &t->wait_ns) ||
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0 || getrusage(RUSAGE_THREAD, &ru) != 0) {
    return false;
  }
  t->cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
  t->sleeps = ru.ru_nvcsw;
  t->preemptions = ru.ru_nivcsw;
  return true;
}

bool ReadMachineTimes(MachineTimes* m);

// A probe window on one thread: its times at the window's first Begin, and the executions since;
// the machine's times too when the window opened parked (MachineRoom decides an unpark).
struct ProbeWindow {
  bool open = false;
  ThreadTimes start;
  bool machine_valid = false;
  MachineTimes machine;
  uint64_t exec_ns = 0;
  int runs = 0;
};
thread_local ProbeWindow t_window;

// The cores other processes and this one used since `start` (-1 each when unreadable or too
// short to tell), for the log and MachineRoom.
struct MachineUse {
  double foreign = -1, own = -1;
};
MachineUse MachineUseSince(const ProbeWindow& w) {
  MachineUse use;
  MachineTimes now;
  if (!w.machine_valid || !ReadMachineTimes(&now)) return use;
  const long hz = sysconf(_SC_CLK_TCK);
  const double own_s = now.own_cpu_s - w.machine.own_cpu_s;
  use.foreign = ForeignCores(w.machine.stat, now.stat, own_s, hz);
  if (use.foreign >= 0) use.own = own_s / WindowSeconds(w.machine.stat, now.stat, hz);
  return use;
}

// The governor's decision after `window` ended with the thread's times `end`.
void DecideAfterWindow(const ProbeWindow& window, const ThreadTimes& end) {
  if (end.cpu_ns < window.start.cpu_ns || end.wait_ns < window.start.wait_ns) return;
  const uint64_t run = end.cpu_ns - window.start.cpu_ns;
  const uint64_t wait = end.wait_ns - window.start.wait_ns;
  Governor& g = G();
  std::unique_lock<std::mutex> lock(g.probe_mu, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread's window is deciding: this one is spare
  const double share =
      static_cast<double>(wait) / static_cast<double>(std::max<uint64_t>(run + wait, 1));
  const bool throttled = OpenMpSpinningThrottled();
  const MachineUse use = throttled ? MachineUseSince(window) : MachineUse{};
  const bool room = MachineRoom(use.foreign, use.own,
                                std::min(static_cast<int>(UsableCores()), window.machine.stat.cpus),
                                ComputeThreads());
  const ProbeDecision d = DecideAfterProbe(throttled, g.park_awaiting_confirmation, share, room);
  g.park_awaiting_confirmation = d.confirm_park;
  g.next_probe_ns.store(SteadyNowNs() + d.next_probe_in_ns, std::memory_order_relaxed);
  KILN_LOG(kRuntime, kDebug, "spin governor probe: waited ", share * 100, " % of ",
           (run + wait) / 1000, " us (", window.runs, " executions of ", window.exec_ns / 1000,
           " us in all; slept ", end.sleeps - window.start.sleeps, " times, preempted ",
           end.preemptions - window.start.preemptions, " times; other processes used ", use.foreign,
           " cores and this one ", use.own, " (-1: not measured)); ",
           throttled ? "parked" : "spinning", " -> ",
           d.confirm_park ? "confirming a park" : (d.park ? "parked" : "spinning"));
  if (d.park != throttled) Request(d.park);
}

// /proc/stat now, and this process's CPU time; false when unreadable. Called at the governor's
// start, the first execution and both ends of a parked probe window (twice per kSampleNs at
// most), from any thread: one static buffer under a lock.
bool ReadMachineTimes(MachineTimes* m) {
  static std::mutex mu;
  static char text[1 << 16];
  std::lock_guard<std::mutex> lock(mu);
  const size_t n = ReadProcFile("/proc/stat", text, sizeof text);
  timespec ts{};
  if (n == 0 || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return false;
  m->own_cpu_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  return ParseProcStat(std::string_view(text, n), &m->stat);
}

// The process's first execution (kAuto): unparks before it runs when the CPU time other
// processes used since the governor started leaves its team free cores.
void DecideBeforeFirstExecution() {
  Governor& g = G();
  if (g.first_execution_seen.exchange(true, std::memory_order_relaxed)) return;
  MachineTimes now;
  if (!g.start_valid || !ReadMachineTimes(&now)) return;
  const double foreign =
      ForeignCores(g.start.stat, now.stat, now.own_cpu_s - g.start.own_cpu_s, sysconf(_SC_CLK_TCK));
  const bool spin =
      foreign >= 0 &&
      IdleEnoughToSpin(foreign, std::min(static_cast<int>(UsableCores()), now.stat.cpus),
                       ComputeThreads());
  KILN_LOG(kRuntime, kDebug, "spin governor, first execution: other processes used ", foreign,
           " cores since the device opened (negative: too short to tell); ",
           spin ? "unparks" : "stays parked");
  if (!spin) return;
  Request(false);
  WaitSettled();
}

void StartOnce() {
  const SpinPolicy policy = ConfiguredSpinPolicy();
  if (policy == SpinPolicy::kSpin || policy == SpinPolicy::kUserOmp) return;
  // Made here, on the caller's thread, where running out of memory is an error the caller
  // returns; made first by the governor's own thread, it ended the process.
  (void)G();
  std::thread(GovernorLoop).detach();
  Request(true);  // start parked: the safe state until a sample says the machine has room
  WaitSettled();
  Governor& g = G();
  g.start_valid = ReadMachineTimes(&g.start);
}

}  // namespace

SpinPolicy ConfiguredSpinPolicy() {
  static const SpinPolicy policy = [] {
    if (!env::Get("OMP_WAIT_POLICY").empty() || !env::Get("GOMP_SPINCOUNT").empty()) {
      return SpinPolicy::kUserOmp;
    }
    const std::string spin = env::Get("KILN_CPU_SPIN");
    if (spin == "1") return SpinPolicy::kSpin;
    if (spin == "0") return SpinPolicy::kSleep;
    return SpinPolicy::kAuto;
  }();
  return policy;
}

void StartSpinGovernor() {
  static std::once_flag once;
  std::call_once(once, StartOnce);
}

bool OpenMpSpinningThrottled() { return G().parked.load(std::memory_order_acquire); }

bool ShouldThrottle(bool throttled_now, double wait_share, bool room) {
  return throttled_now ? wait_share > 0.03 && !room : wait_share > 0.10;
}

bool MachineRoom(double foreign_cores, double own_cores, int cpus, int team) {
  return foreign_cores >= 0 &&
         IdleEnoughToSpin(foreign_cores + std::max(own_cores - team, 0.0), cpus, team);
}

ProbeDecision DecideAfterProbe(bool throttled_now, bool park_awaiting_confirmation,
                               double wait_share, bool room) {
  ProbeDecision d;
  const bool park = ShouldThrottle(throttled_now, wait_share, room);
  if (!throttled_now && park && !park_awaiting_confirmation) {  // ask the next window first
    d.park = false;
    d.confirm_park = true;
    d.next_probe_in_ns = 0;
    return d;
  }
  d.park = park;
  return d;
}

bool IdleEnoughToSpin(double foreign_cores, int cpus, int team) {
  return foreign_cores >= 0 && foreign_cores + team <= cpus + 0.5;
}

bool ParseProcStat(std::string_view text, ProcStat* out) {
  *out = ProcStat{};
  bool total = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.size() < 4 || line.substr(0, 3) != "cpu") continue;
    if (line[3] != ' ') {  // cpuN
      ++out->cpus;
      continue;
    }
    // cpu  user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is
    // already in user.
    uint64_t v[8] = {};
    const char* p = line.data() + 3;
    const char* end = line.data() + line.size();
    for (uint64_t& x : v) {
      while (p < end && *p == ' ') ++p;
      auto r = std::from_chars(p, end, x);
      if (r.ec != std::errc()) return false;
      p = r.ptr;
    }
    for (uint64_t x : v) out->all += x;
    out->busy = out->all - v[3] - v[4];
    total = true;
  }
  return total && out->cpus > 0;
}

double WindowSeconds(const ProcStat& before, const ProcStat& after, long ticks_per_s) {
  return static_cast<double>(after.all - before.all) / static_cast<double>(ticks_per_s) /
         after.cpus;
}

double ForeignCores(const ProcStat& before, const ProcStat& after, double own_cpu_s,
                    long ticks_per_s) {
  if (after.all <= before.all || after.busy < before.busy || after.cpus <= 0 || ticks_per_s <= 0) {
    return -1;
  }
  const double window_s = WindowSeconds(before, after, ticks_per_s);
  if (window_s < 0.02) return -1;
  const double foreign_s =
      static_cast<double>(after.busy - before.busy) / static_cast<double>(ticks_per_s) - own_cpu_s;
  return std::max(foreign_s, 0.0) / window_s;
}

bool ParseSchedstat(std::string_view text, uint64_t* run_ns, uint64_t* wait_ns) {
  const char* p = text.data();
  const char* end = p + text.size();
  auto r = std::from_chars(p, end, *run_ns);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != ' ') return false;
  r = std::from_chars(r.ptr + 1, end, *wait_ns);
  return r.ec == std::errc();
}

bool ProbeWindowComplete(int runs, uint64_t exec_ns) {
  return exec_ns >= kProbeMinNs && (runs >= kProbeRuns || exec_ns >= kProbeNs);
}

uint64_t ProbeReadsForTest() { return G().probe_reads.load(std::memory_order_relaxed); }

void LoadProbe::Begin() {
  active_ = false;
  if (ConfiguredSpinPolicy() != SpinPolicy::kAuto) return;
  if (!G().first_execution_seen.load(std::memory_order_relaxed)) DecideBeforeFirstExecution();
  ProbeWindow& w = t_window;
  if (!w.open) {
    if (SteadyNowNs() < G().next_probe_ns.load(std::memory_order_relaxed)) return;
    if (!ReadThreadTimes(&w.start)) return;
    w.machine_valid = OpenMpSpinningThrottled() && ReadMachineTimes(&w.machine);
    w.open = true;
    w.exec_ns = 0;
    w.runs = 0;
  }
  active_ = true;
  begin_ns_ = SteadyNowNs();
}

void LoadProbe::End() {
  if (!active_) return;
  active_ = false;
  ProbeWindow& w = t_window;
  w.exec_ns += SteadyNowNs() - begin_ns_;
  ++w.runs;
  if (!ProbeWindowComplete(w.runs, w.exec_ns)) return;
  w.open = false;
  ThreadTimes end;
  if (ReadThreadTimes(&end)) DecideAfterWindow(w, end);
}

void SpinGovernorObserveForTest(double wait_share) {
  Request(ShouldThrottle(OpenMpSpinningThrottled(), wait_share, /*room=*/false));
  WaitSettled();
}

}  // namespace kiln::cpu

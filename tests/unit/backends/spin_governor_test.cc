// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The spin governor: schedstat parsing and the park/unpark decision against cases worked by
// hand; a thread sharing its CPU shows its wait in schedstat; parking and unparking really start
// and end the parked team's threads, and change what libgomp's idle workers cost (they spin
// through gaps between regions only when unparked).
#include "backends/cpu/spin_governor.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>
#include <time.h>

#include <cstdio>

#include <atomic>
#include <chrono>
#include <thread>

#include "backends/cpu/cpu_compute.h"

namespace kiln::cpu {
namespace {

TEST(SpinGovernorTest, ParsesSchedstat) {
  uint64_t run = 0, wait = 0;
  ASSERT_TRUE(ParseSchedstat("123456789 4242 17\n", &run, &wait));
  EXPECT_EQ(run, 123456789u);
  EXPECT_EQ(wait, 4242u);
  EXPECT_FALSE(ParseSchedstat("", &run, &wait));
  EXPECT_FALSE(ParseSchedstat("12", &run, &wait));
  EXPECT_FALSE(ParseSchedstat("x 1 2", &run, &wait));
  EXPECT_FALSE(ParseSchedstat("1 y 2", &run, &wait));
}

TEST(SpinGovernorTest, ThrottlesWhenExecutionsWaitForACore) {
  // Idle: an executing thread hardly waits; one core busy on a 2-core machine with a team of
  // 2: about a third of its time runnable is spent waiting.
  EXPECT_FALSE(ShouldThrottle(false, 0.01));
  EXPECT_TRUE(ShouldThrottle(false, 0.33));
  EXPECT_TRUE(ShouldThrottle(true, 0.33));
  // Between the thresholds the state holds.
  EXPECT_FALSE(ShouldThrottle(false, 0.06));
  EXPECT_TRUE(ShouldThrottle(true, 0.06));
  EXPECT_FALSE(ShouldThrottle(true, 0.02));
}

TEST(SpinGovernorTest, AParkIsConfirmedByTheNextWindow) {
  // Spinning, one loaded window: no park yet, the next window at once.
  ProbeDecision d = DecideAfterProbe(false, false, 0.33);
  EXPECT_FALSE(d.park);
  EXPECT_TRUE(d.confirm_park);
  EXPECT_EQ(d.next_probe_in_ns, 0u);
  // The next window idle (the load was a burst): stay spinning, the usual interval.
  d = DecideAfterProbe(false, true, 0.01);
  EXPECT_FALSE(d.park);
  EXPECT_FALSE(d.confirm_park);
  EXPECT_EQ(d.next_probe_in_ns, kSampleNs);
  // Loaded again: park.
  d = DecideAfterProbe(false, true, 0.40);
  EXPECT_TRUE(d.park);
  EXPECT_FALSE(d.confirm_park);
  EXPECT_EQ(d.next_probe_in_ns, kSampleNs);
  // Parked: stays parked while loaded, unparks at once below 3 %.
  d = DecideAfterProbe(true, false, 0.06);
  EXPECT_TRUE(d.park);
  EXPECT_EQ(d.next_probe_in_ns, kSampleNs);
  d = DecideAfterProbe(true, false, 0.02);
  EXPECT_FALSE(d.park);
  EXPECT_EQ(d.next_probe_in_ns, kSampleNs);
  // Idle and spinning: nothing changes.
  d = DecideAfterProbe(false, false, 0.01);
  EXPECT_FALSE(d.park);
  EXPECT_FALSE(d.confirm_park);
  EXPECT_EQ(d.next_probe_in_ns, kSampleNs);
}

TEST(SpinGovernorTest, ParsesProcStat) {
  ProcStat st;
  ASSERT_TRUE(
      ParseProcStat("cpu  100 5 30 800 20 1 2 3 7 0\ncpu0 50 2 15 400 10 0 1 1 3 0\n"
                    "cpu1 50 3 15 400 10 1 1 2 4 0\nintr 12345\nctxt 99\n",
                    &st));
  EXPECT_EQ(st.all, 100u + 5 + 30 + 800 + 20 + 1 + 2 + 3);  // guest time is inside user
  EXPECT_EQ(st.busy, st.all - 800 - 20);                    // idle and iowait are not busy
  EXPECT_EQ(st.cpus, 2);
  EXPECT_FALSE(ParseProcStat("", &st));
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 3 4 5 6 7 8\n", &st));  // no aggregate line
  EXPECT_FALSE(ParseProcStat("cpu  1 2 x\ncpu0 1 2 3 4 5 6 7 8\n", &st));
}

TEST(SpinGovernorTest, ForeignCoresAreTheBusyTimeNotOurs) {
  // 2 CPUs, 100 ticks a second, a 0.5 s window (100 ticks of CPU time in all).
  ProcStat before{1000, 400, 2}, after{1100, 480, 2};
  // 80 busy ticks = 0.8 s of CPU; this process used 0.3 s: 0.5 s foreign over 0.5 s = 1 core.
  EXPECT_NEAR(ForeignCores(before, after, 0.3, 100), 1.0, 1e-9);
  EXPECT_NEAR(ForeignCores(before, after, 0.8, 100), 0.0, 1e-9);
  EXPECT_NEAR(ForeignCores(before, after, 0.9, 100), 0.0, 1e-9);  // tick rounding: not negative
  EXPECT_LT(ForeignCores(before, ProcStat{1002, 401, 2}, 0.0, 100), 0);  // 10 ms: too short
  EXPECT_LT(ForeignCores(after, before, 0.0, 100), 0);                   // not a window
}

TEST(SpinGovernorTest, FirstExecutionSpinsOnlyWhereItsTeamFindsFreeCores) {
  // 2 CPUs, a team of 2: idle, or one core kept busy by another process.
  EXPECT_TRUE(IdleEnoughToSpin(0.0, 2, 2));
  EXPECT_TRUE(IdleEnoughToSpin(0.3, 2, 2));
  EXPECT_FALSE(IdleEnoughToSpin(0.6, 2, 2));
  EXPECT_FALSE(IdleEnoughToSpin(1.0, 2, 2));
  // A big machine with a small team: room to spare despite the load.
  EXPECT_TRUE(IdleEnoughToSpin(20.0, 64, 8));
  EXPECT_FALSE(IdleEnoughToSpin(60.0, 64, 8));
  EXPECT_FALSE(IdleEnoughToSpin(-1.0, 2, 2));  // the window could not tell
}

TEST(SpinGovernorTest, AProbeWindowIsSixteenRunsOrTwentyMsButNeverUnderTwoMs) {
  EXPECT_FALSE(ProbeWindowComplete(15, 5'000'000));
  EXPECT_TRUE(ProbeWindowComplete(16, 5'000'000));
  EXPECT_FALSE(ProbeWindowComplete(16, 400'000));  // 16 runs of a 25 us model: too short
  EXPECT_FALSE(ProbeWindowComplete(79, 1'975'000));
  EXPECT_TRUE(ProbeWindowComplete(80, 2'000'000));
  EXPECT_FALSE(ProbeWindowComplete(3, 19'999'999));
  EXPECT_TRUE(ProbeWindowComplete(3, 20'000'000));  // a slow model: 20 ms of it
  EXPECT_TRUE(ProbeWindowComplete(1, 90'000'000));
}

// The first CPU the process may use, alone in a set.
cpu_set_t FirstCpu() {
  cpu_set_t mine, one;
  CPU_ZERO(&mine);
  CPU_ZERO(&one);
  sched_getaffinity(0, sizeof mine, &mine);
  int cpu = 0;
  while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &mine)) ++cpu;
  CPU_SET(cpu, &one);
  return one;
}

// A thread spinning on `cpu` while it lives: another thread pinned there waits for it.
class PinnedSpinner {
 public:
  explicit PinnedSpinner(cpu_set_t cpu)
      : thread_([this, cpu] {
          sched_setaffinity(0, sizeof cpu, &cpu);
          while (!stop_.load(std::memory_order_relaxed)) {
          }
        }) {}
  ~PinnedSpinner() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void BusyFor(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Run and wait times of an execution that waits for a core: a probe over a thread that shares
// one CPU with a spinning thread sees the wait (the premise of the measurement).
TEST(SpinGovernorTest, SchedstatShowsTheWaitOfAThreadSharingItsCore) {
  const cpu_set_t one = FirstCpu();
  PinnedSpinner other(one);
  uint64_t share_ppm = 0;
  std::thread([&] {
    sched_setaffinity(0, sizeof one, &one);
    uint64_t run0 = 0, wait0 = 0, run1 = 0, wait1 = 0;
    char text[96];
    auto read = [&](uint64_t* r, uint64_t* w) {
      FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
      ASSERT_NE(f, nullptr);
      const size_t n = std::fread(text, 1, sizeof text, f);
      std::fclose(f);
      ASSERT_TRUE(ParseSchedstat(std::string_view(text, n), r, w));
    };
    read(&run0, &wait0);
    BusyFor(std::chrono::milliseconds(200));
    read(&run1, &wait1);
    share_ppm = 1000000 * (wait1 - wait0) / std::max<uint64_t>(run1 - run0 + wait1 - wait0, 1);
  }).join();
  // Two busy threads on one CPU: each waits about half the time.
  EXPECT_GT(share_ppm, 200000u);
}

int Threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// Waits (up to 5 s) until the process has `want` threads.
int WaitForThreads(int want) {
  for (int i = 0; i < 500 && Threads() != want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Threads();
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// CPU time the process uses over 40 tiny parallel regions 2 ms apart: the idle workers' cost.
double IdleWorkerCpu() {
  TeamScope team(2);
  std::atomic<int> sink{0};
#pragma omp parallel
  sink.fetch_add(1);  // the team exists before the measurement
  const double start = CpuSeconds();
  for (int i = 0; i < 40; ++i) {
#pragma omp parallel
    sink.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return CpuSeconds() - start;
}

TEST(SpinGovernorTest, ParkingStartsAndUnparkingEndsTheParkedTeam) {
  StartSpinGovernor();
  StartSpinGovernor();  // idempotent
  const SpinPolicy policy = ConfiguredSpinPolicy();
  if (policy != SpinPolicy::kAuto) {
    EXPECT_EQ(OpenMpSpinningThrottled(), policy == SpinPolicy::kSleep);
    GTEST_SKIP() << "KILN_CPU_SPIN, OMP_WAIT_POLICY or GOMP_SPINCOUNT set: no governor";
  }
  SpinGovernorObserveForTest(0.33);  // executions wait for a core a third of the time
  ASSERT_TRUE(OpenMpSpinningThrottled());
  const int parked = Threads();
  SpinGovernorObserveForTest(0.0);  // idle machine
  ASSERT_FALSE(OpenMpSpinningThrottled());
  // The parked team's host thread and its OpenMP worker are gone (libgomp counts them no more).
  EXPECT_EQ(WaitForThreads(parked - 2), parked - 2);
  SpinGovernorObserveForTest(0.06);  // between the thresholds: stays unparked
  EXPECT_FALSE(OpenMpSpinningThrottled());
  SpinGovernorObserveForTest(0.33);
  EXPECT_TRUE(OpenMpSpinningThrottled());
  EXPECT_EQ(WaitForThreads(parked), parked);
}

// Executions through LoadProbe, on this thread, until `done` or `most` has passed; whether done.
template <typename Done>
bool ExecuteUntil(Done done, std::chrono::microseconds each, std::chrono::milliseconds most) {
  LoadProbe probe;
  const auto until = std::chrono::steady_clock::now() + most;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    probe.Begin();
    BusyFor(each);
    probe.End();
  }
  return true;
}

// A probe window reads the thread's times at its first execution and its last, not around
// every execution: 20 us executions for half a second (several probe windows due) read them a
// few times, where reading around each probed execution read them 64 times or more.
TEST(SpinGovernorTest, AProbeWindowReadsTheThreadsTimesTwice) {
  StartSpinGovernor();
  if (ConfiguredSpinPolicy() != SpinPolicy::kAuto) GTEST_SKIP() << "no governor";
  const uint64_t before = ProbeReadsForTest();
  ExecuteUntil([] { return false; }, std::chrono::microseconds(20), std::chrono::milliseconds(500));
  // A window opened just before the half second ends completes within its 2 ms of executions.
  ExecuteUntil([&] { return (ProbeReadsForTest() - before) % 2 == 0; },
               std::chrono::microseconds(20), std::chrono::milliseconds(100));
  const uint64_t reads = ProbeReadsForTest() - before;
  EXPECT_GE(reads, 2u);  // 500 ms > kSampleNs: at least one window
  EXPECT_LE(reads, 2 * (500'000'000 / kSampleNs + 2));
  EXPECT_EQ(reads % 2, 0u);  // every window opened was completed
}

// The whole loop: executions whose thread shares its CPU with a spinning thread park the team
// (two loaded windows in a row); executions on a free CPU unpark it at the next probe.
// A parked team whose windows wait although the machine had its cores free unparks: the waits
// were its own (its woken workers preempting the executing thread). Parking stays a matter of
// waits alone.
TEST(SpinGovernorTest, AParkedTeamUnparksWhenTheMachineHadRoomWhateverItWaited) {
  EXPECT_TRUE(ShouldThrottle(true, 0.06));  // no measurement of the machine: the share decides
  EXPECT_FALSE(ShouldThrottle(true, 0.06, /*room=*/true));
  EXPECT_FALSE(ShouldThrottle(true, 0.33, /*room=*/true));
  EXPECT_TRUE(ShouldThrottle(false, 0.33, /*room=*/true));
  EXPECT_FALSE(DecideAfterProbe(true, false, 0.06, /*room=*/true).park);
  EXPECT_TRUE(DecideAfterProbe(true, false, 0.06, /*room=*/false).park);
  ProbeDecision d = DecideAfterProbe(false, false, 0.33, /*room=*/true);
  EXPECT_TRUE(d.confirm_park);  // a spinning team still confirms a park by the next window
  // 2 CPUs, a team of 2: other processes' cores, and this process's beyond its team, are load.
  EXPECT_TRUE(MachineRoom(0.02, 1.5, 2, 2));
  EXPECT_TRUE(MachineRoom(0.3, 2.0, 2, 2));
  EXPECT_FALSE(MachineRoom(1.0, 1.5, 2, 2));   // a core busy in another process
  EXPECT_FALSE(MachineRoom(0.0, 3.2, 2, 2));   // 1.2 cores of this process's other threads
  EXPECT_FALSE(MachineRoom(-1.0, 1.0, 2, 2));  // the window could not tell
}

TEST(SpinGovernorTest, ExecutionsThatWaitForTheirCpuParkTheTeamAndFreeOnesUnparkIt) {
  StartSpinGovernor();
  if (ConfiguredSpinPolicy() != SpinPolicy::kAuto) GTEST_SKIP() << "no governor";
  SpinGovernorObserveForTest(0.0);
  ASSERT_FALSE(OpenMpSpinningThrottled());
  const cpu_set_t one = FirstCpu();
  bool parked = false, unparked = false;
  std::thread([&] {
    sched_setaffinity(0, sizeof one, &one);
    {
      PinnedSpinner other(one);
      parked = ExecuteUntil([] { return OpenMpSpinningThrottled(); },
                            std::chrono::microseconds(1000), std::chrono::milliseconds(3000));
    }
    unparked = ExecuteUntil([] { return !OpenMpSpinningThrottled(); },
                            std::chrono::microseconds(1000), std::chrono::milliseconds(3000));
  }).join();
  EXPECT_TRUE(parked);
  EXPECT_TRUE(unparked);
}

// A byte moved weighs kSpinningByteWork operations while workers spin (a copy of half a MiB is
// worth the team), one while they sleep (every region then pays for a wake-up); the first plan of
// a oneDNN kernel is sized as if they spun.
TEST(SpinGovernorTest, BytesWeighMoreWhileWorkersSpin) {
  StartSpinGovernor();
  if (ConfiguredSpinPolicy() != SpinPolicy::kAuto) GTEST_SKIP() << "no governor";
  const uint64_t min = ParallelMinWork();
  if (min < kSpinningByteWork * kSleepingParallelFactor) GTEST_SKIP() << "threshold set near 0";
  const uint64_t at = min / kSpinningByteWork + (min % kSpinningByteWork != 0);
  SpinGovernorObserveForTest(0.0);  // idle machine: workers spin
  ASSERT_FALSE(OpenMpSpinningThrottled());
  EXPECT_TRUE(WorthTeamNow(0, at));
  EXPECT_FALSE(WorthTeamNow(0, at - 1));
  EXPECT_TRUE(WorthTeamNow(min, 0));
  EXPECT_FALSE(WorthTeamNow(min - 1, 0));
  EXPECT_TRUE(WorthTeamNow(UINT64_MAX, UINT64_MAX));  // unknown work saturates
  SpinGovernorObserveForTest(0.33);                   // executions wait for cores: workers sleep
  ASSERT_TRUE(OpenMpSpinningThrottled());
  EXPECT_FALSE(WorthTeamNow(0, at));
  EXPECT_FALSE(WorthTeamNow(min, 0));
  EXPECT_TRUE(WorthTeamNow(0, min * kSleepingParallelFactor));
  EXPECT_TRUE(WorthTeamNow(min * kSleepingParallelFactor - 1, 1));
  EXPECT_TRUE(WorthTeamWhenSpinning(0, at));  // a first plan: as on an idle machine
  EXPECT_FALSE(WorthTeamWhenSpinning(0, at - 1));
  SpinGovernorObserveForTest(0.0);
  EXPECT_FALSE(OpenMpSpinningThrottled());
}

#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
TEST(SpinGovernorTest, UnparkedWorkersSpinThroughGapsAndParkedOnesSleep) {
  StartSpinGovernor();
  if (ConfiguredSpinPolicy() != SpinPolicy::kAuto) GTEST_SKIP() << "no governor";
  SpinGovernorObserveForTest(0.0);
  const double spinning = IdleWorkerCpu();
  SpinGovernorObserveForTest(0.33);
  const double sleeping = IdleWorkerCpu();
  // Spinning, the worker burns most of each 2 ms gap (80 ms in all on an idle core); throttled,
  // it sleeps after 100 rounds. A loaded machine shrinks the first figure, not the gap.
  EXPECT_GT(spinning, 3 * sleeping + 0.005)
      << "spinning " << spinning << " s, sleeping " << sleeping << " s";
}
#endif

}  // namespace
}  // namespace kiln::cpu

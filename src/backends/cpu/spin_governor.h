// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Whether idle OpenMP workers spin or sleep, chosen by how busy the machine is.
//
// libgomp's workers spin for a few milliseconds (GOMP_SPINCOUNT 300000) after every parallel
// region before they sleep. On an idle machine that is what makes a run of many short regions
// fast: measured on a 2-core VM, MobileNetV2 4.96 ms spinning vs 7.69 ms sleeping, YOLOv8n 13.1
// vs 18.1 ms. On a machine other processes keep busy it is what makes it slow: with one core
// busy, ResNet-50 took 166 ms spinning vs 80 ms sleeping (the spinning worker takes the core
// from the thread with work). libgomp's wait policy is fixed when the process starts, but it
// throttles spinning to 100 rounds whenever it manages more threads than the process has CPUs;
// parking one OpenMP team of two threads, asleep, puts it in that mode, and ending that team's
// thread (its pool goes with it) takes it out again.
//
// The governor does that by measurement. Every kSampleNs it probes a few executions: the
// executing thread's time on a CPU (its CPU clock) and its time runnable but waiting for one
// (/proc/thread-self/schedstat, in ns), from the window's first execution to its last. Waiting
// means other threads — another process's, or this process's own idle workers spinning — had the
// cores it needed. When the waiting share goes above 10 % in two windows in a row it parks (idle
// workers sleep); when it falls below 3 % it unparks (idle workers spin); between the two the state
// holds (DecideAfterProbe). A parked window also reads the machine's CPU time (/proc/stat) and the
// process's: when other processes left the team its cores, it unparks whatever it waited, for
// then its waits were its own (ShouldThrottle). Only the executing thread's own time counts — what
// it runs and waits to run, not the time it sleeps between executions — so a process that computes
// in bursts is judged by the bursts, not by what the machine does between them. The team starts
// parked (loading a model with idle workers spinning measured 2-3x slower on a 2-CPU VM: YOLOv8n 41
// -> 120 ms), and the process's first execution decides before it runs, since the probes have
// nothing to go on yet: from /proc/stat, the CPU time other processes used since the governor
// started (the load, typically; all CPU time less this process's own), as cores; when the cores its
// team needs were free (foreign + team <= CPUs + 0.5) it unparks, so the first result comes at
// spinning speed (YOLOv8n's first run 35 -> 14 ms on an idle 2-CPU VM). Otherwise, or over a window
// too short to tell (under 20 ms), the team stays parked until a probe says the machine has room.
// KILN_CPU_SPIN=1 always spins, =0 always sleeps; OMP_WAIT_POLICY or GOMP_SPINCOUNT set by the
// user leave libgomp alone.
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln::cpu {

enum class SpinPolicy {
  kAuto,     // the governor decides (default)
  kSpin,     // KILN_CPU_SPIN=1: libgomp's spinning, never parked
  kSleep,    // KILN_CPU_SPIN=0: parked for the life of the process
  kUserOmp,  // OMP_WAIT_POLICY or GOMP_SPINCOUNT set: libgomp's own setting, never parked
};
SpinPolicy ConfiguredSpinPolicy();

// Starts the governor once (thread-safe, idempotent): for kAuto and kSleep it parks the team
// and returns once the team is inside its region, so that libgomp's setup of it (allocations
// included) is over before the device is used. The CPU device calls it when opened.
void StartSpinGovernor();

// Whether idle OpenMP workers are throttled now (the team is parked).
bool OpenMpSpinningThrottled();

// One execution's part in the measurement (the CPU device's execution slot holds one): Begin
// and End bracket the execution on its thread. Under kAuto, once a probe is due, the thread's
// next Begin opens a probe window: it reads the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) and
// its time runnable but waiting for a CPU (schedstat); the window's executions add their
// durations (the steady clock, a few tens of ns each); the End that completes it
// (ProbeWindowComplete) reads both again and the governor decides from the wait share between
// the two readings, and the next probe waits kSampleNs. Two reads per window, none in the other
// executions: reading schedstat per execution (5 us each on a 2-vCPU VM) cost a 24 us model 40 %
// of its time in every probed run. Each thread keeps its own window (the readings are per
// thread). Allocation-free; the park and unpark themselves happen on the governor's own thread.
class LoadProbe {
 public:
  void Begin();
  void End();

 private:
  bool active_ = false;
  uint64_t begin_ns_ = 0;
};
inline constexpr uint64_t kSampleNs = 200'000'000;
inline constexpr uint64_t kProbeNs = 20'000'000;
inline constexpr uint64_t kProbeMinNs = 2'000'000;
inline constexpr int kProbeRuns = 16;

// Whether a probe window of `runs` executions that took `exec_ns` in all is complete: kProbeRuns
// executions, or kProbeNs of them, but never under kProbeMinNs — one scheduling hiccup of tens of
// microseconds would decide a shorter window (16 runs of a 24 us model are 0.4 ms).
bool ProbeWindowComplete(int runs, uint64_t exec_ns);

// How many times this process read a thread's times for a probe window (for tests).
uint64_t ProbeReadsForTest();

// The decision from the share of its time an executing thread waited for a CPU: park above
// 0.10, unpark below 0.03, keep the state between — and unpark a parked team whatever the share
// when `room` says the machine had its cores free over the window (MachineRoom): the waits were
// then the process's own (a parked team's workers, woken for each region, preempt the executing
// thread: 4-6 % of a window measured on a 2-vCPU VM, 12-21 preemptions in 22 ms, with no other
// process busy), which parking causes rather than cures. Caught in the benchmark: MobileNetV2 in
// bf16 parked by a burst of waits at a block's start stayed parked for the whole section
// (1.23x OpenVINO's time; 0.86-0.93x unparked).
bool ShouldThrottle(bool throttled_now, double wait_share, bool room = false);

// Whether over a window the machine left the team its cores: other processes used
// `foreign_cores` (negative: the window was too short to tell, so no), and this process
// `own_cores`, of which what exceeds its `team` (other threads of its own) counts as load too.
bool MachineRoom(double foreign_cores, double own_cores, int cpus, int team);

// What the governor does after a probe window. A window that asks to park a spinning team is
// confirmed by the next window, taken at once, before the team parks: a load of a few
// milliseconds (another process's workers spinning down after its own burst) spoils one window
// and would otherwise park the team for a whole kSampleNs. (Probing a parked team sooner was
// tried: with one core kept busy it unparked into the load four times as often, MobileNetV2
// 0.93 -> 1.33x the faster peer.)
struct ProbeDecision {
  bool park = false;          // the state to request
  bool confirm_park = false;  // a park awaits the next window's confirmation
  uint64_t next_probe_in_ns = kSampleNs;
};
ProbeDecision DecideAfterProbe(bool throttled_now, bool park_awaiting_confirmation,
                               double wait_share, bool room = false);

// The first execution's decision: whether the `team` threads find free cores on a machine of
// `cpus` CPUs where other processes used `foreign_cores` cores on average.
bool IdleEnoughToSpin(double foreign_cores, int cpus, int team);

// /proc/stat's CPU times, in clock ticks: all of them and the busy part (all but idle and
// iowait; steal counts as busy: another guest had the CPU), summed over the CPUs, whose number
// it counts (the cpuN lines).
struct ProcStat {
  uint64_t all = 0, busy = 0;
  int cpus = 0;
};
bool ParseProcStat(std::string_view text, ProcStat* out);

// The wall time between two /proc/stat readings (their CPU time over the CPUs), in seconds;
// `after` must follow `before` on a machine of after.cpus > 0 CPUs.
double WindowSeconds(const ProcStat& before, const ProcStat& after, long ticks_per_s);

// The cores other processes kept busy between two /proc/stat readings, while this process used
// `own_cpu_s` seconds of CPU; `ticks_per_s` is the clock tick (sysconf(_SC_CLK_TCK)). Negative
// when the window is too short to tell (under 20 ms).
double ForeignCores(const ProcStat& before, const ProcStat& after, double own_cpu_s,
                    long ticks_per_s);

// Parses /proc/<pid>/task/<tid>/schedstat ("run_ns wait_ns timeslices"); false when malformed.
bool ParseSchedstat(std::string_view text, uint64_t* run_ns, uint64_t* wait_ns);

// Test hook: acts as if probes had measured `wait_share` (the governor must be running under
// kAuto); returns once the governor's thread has parked or unparked accordingly.
void SpinGovernorObserveForTest(double wait_share);

}  // namespace kiln::cpu

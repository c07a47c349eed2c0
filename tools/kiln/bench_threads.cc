// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/bench_threads.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace kiln::tools::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Draws "[####----] 40% 400/1000 executions 2.1 s" on stderr, in place.
void DrawProgress(size_t done, size_t total, double seconds, bool final) {
  constexpr int kWidth = 30;
  const double frac = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(frac * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '-');
  std::fprintf(stderr, "\r[kiln bench] [%s] %3d%% %zu/%zu executions %.1f s%s", bar.c_str(),
               static_cast<int>(frac * 100), done, total, seconds, final ? "\n" : "");
  std::fflush(stderr);
}

struct ThreadResult {
  std::vector<PhaseTimes> times;
  std::string error;
  std::atomic<size_t> done{0};
};

}  // namespace

std::string RunThreads(int loop, int warmup_count, Session& s,
                       std::vector<std::unique_ptr<Worker>>& workers, bool progress,
                       RunResult* out) {
  const size_t per_thread = static_cast<size_t>(loop) * s.num_samples();
  std::vector<ThreadResult> results(workers.size());
  std::mutex mu;
  std::condition_variable cv;
  size_t ready = 0, finished = 0;
  bool go = false;
  Clock::time_point start;
  std::vector<double> thread_ms(workers.size(), 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < workers.size(); ++t) {
    threads.emplace_back([&, t] {
      ThreadResult& r = results[t];
      Worker& w = *workers[t];
      const aclError ret = aclrtSetCurrentContext(s.context());
      if (ret != ACL_SUCCESS) r.error = AclFailure("aclrtSetCurrentContext", ret);
      if (r.error.empty()) r.error = w.StartThread();
      PhaseTimes times;
      for (int k = 0; r.error.empty() && k < warmup_count; ++k) {
        r.error = w.Run(static_cast<size_t>(k) % s.num_samples(), &times);
      }
      r.times.reserve(per_thread);
      {
        std::unique_lock<std::mutex> lock(mu);
        ++ready;
        cv.notify_all();
        cv.wait(lock, [&] { return go; });
      }
      const auto t0 = Clock::now();
      for (size_t k = 0; r.error.empty() && k < per_thread; ++k) {
        r.error = w.Run(k % s.num_samples(), &times);
        r.times.push_back(times);
        r.done.store(k + 1, std::memory_order_relaxed);
      }
      thread_ms[t] = MsSince(t0);
      std::lock_guard<std::mutex> lock(mu);
      ++finished;
      cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return ready == workers.size(); });
    go = true;
    start = Clock::now();
    cv.notify_all();
    const size_t total = per_thread * workers.size();
    while (finished < workers.size()) {
      cv.wait_for(lock, std::chrono::milliseconds(200));
      if (!progress) continue;
      size_t done = 0;
      for (const auto& r : results) done += r.done.load(std::memory_order_relaxed);
      DrawProgress(done, total, MsSince(start) / 1000, finished == workers.size());
    }
  }
  out->wall_ms = MsSince(start);
  for (auto& t : threads) t.join();
  for (size_t t = 0; t < results.size(); ++t) {
    if (!results[t].error.empty()) return "thread " + std::to_string(t) + ": " + results[t].error;
    for (const PhaseTimes& p : results[t].times) {
      out->h2d.push_back(p.h2d);
      out->compute.push_back(p.compute);
      out->d2h.push_back(p.d2h);
      out->e2e.push_back(p.h2d + p.compute + p.d2h);
    }
    out->executions += results[t].times.size();
    out->thread_throughput.push_back(
        thread_ms[t] > 0 ? 1000.0 * results[t].times.size() / thread_ms[t] : 0);
  }
  return "";
}

}  // namespace kiln::tools::bench

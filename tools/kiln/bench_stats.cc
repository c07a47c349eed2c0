// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/bench_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace kiln::tools::bench {

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Stats Summarize(std::vector<double> values) {
  Stats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.count);
  s.median = Percentile(values, 50);
  s.p90 = Percentile(values, 90);
  s.p99 = Percentile(values, 99);
  return s;
}

nlohmann::json StatsJson(const Stats& s) {
  return {{"count", s.count}, {"min", s.min}, {"mean", s.mean}, {"median", s.median},
          {"p90", s.p90},     {"p99", s.p99}, {"max", s.max}};
}

std::string StatsLine(const Stats& s) {
  char text[256];
  std::snprintf(text, sizeof text,
                "min = %.3f, mean = %.3f, median = %.3f, p90 = %.3f, p99 = %.3f, max = %.3f", s.min,
                s.mean, s.median, s.p90, s.p99, s.max);
  return text;
}

}  // namespace kiln::tools::bench

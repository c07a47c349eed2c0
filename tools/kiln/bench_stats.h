// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The statistics `kiln bench` reports over a series of timings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kiln::tools::bench {

// min/mean/median/p90/p99/max of a series (in its unit); percentiles interpolate linearly
// between the closest ranks, as numpy.percentile does by default. All zero for an empty series.
struct Stats {
  size_t count = 0;
  double min = 0, mean = 0, median = 0, p90 = 0, p99 = 0, max = 0;
};

Stats Summarize(std::vector<double> values);

// The p-th percentile (0..100) of sorted values, linear interpolation.
double Percentile(const std::vector<double>& sorted, double p);

// {"count":..,"min":..,"mean":..,"median":..,"p90":..,"p99":..,"max":..}
nlohmann::json StatsJson(const Stats& s);

// "min = 1.234, mean = ..., median = ..., p90 = ..., p99 = ..., max = ..." (3 decimals).
std::string StatsLine(const Stats& s);

}  // namespace kiln::tools::bench

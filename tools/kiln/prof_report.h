// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What `kiln prof` shows of one profile (a PROF_* folder, docs/tools.md "Profiling"): the top
// operators, read back from its op_summary CSV and info.json, as a table and as an SVG bar
// chart (top_ops.svg, written into the folder).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace kiln::tools {

// One operator (one node of one model), summed over every execution in the profile.
struct TopOp {
  std::string model;
  std::string name;
  std::string type;
  std::string onnx_nodes;  // ';'-separated, as in the CSV
  int count = 0;
  double total_us = 0;
  double mean_us = 0;
  double time_pct = 0;   // of all main-graph operator time
  double gflops = -1;    // -1: FLOPs unknown for this op type
  double peak_pct = -1;  // -1: unknown
  long long flops = 0;   // summed; meaningful when gflops >= 0
};

struct ProfileSummary {
  std::string folder;
  std::string device;      // "0: <name>"
  double peak_gflops = 0;  // the device's measured fp32 peak (0: unknown)
  int executions = 0;      // distinct (model id, infer id)
  int operators = 0;       // distinct (model, op name)
  double op_time_us = 0;   // sum of main-graph operator durations
  std::vector<TopOp> ops;  // every operator, by total time, longest first
};

// Reads `folder`'s summary/op_summary_*.csv and info.json. false (and `*error`) when the CSV
// is missing or malformed.
bool ReadProfileSummary(const std::string& folder, ProfileSummary* out, std::string* error);

// Prints the `top` longest operators as a table.
void PrintTopOps(const ProfileSummary& summary, size_t top, std::FILE* out);

// The SVG bar chart of the `top` longest operators: one bar per operator (length: total time;
// colour and label: % of the device's peak).
std::string TopOpsSvg(const ProfileSummary& summary, size_t top);

// Writes `text` to `path`; false (and `*error`) when it cannot.
bool WriteTextFile(const std::string& path, const std::string& text, std::string* error);

// The PROF_* folders directly under `dir` (sorted by name, which starts with the pid and the
// time); `pid` >= 0 keeps only those a process with that id wrote.
std::vector<std::string> ListProfileFolders(const std::string& dir, long pid = -1);

}  // namespace kiln::tools

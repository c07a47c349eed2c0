// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/profile_report.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "kiln/base/version.h"
#include "runtime/runtime.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string CacheDir() {
  if (const char* d = std::getenv("KILN_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/kiln";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kiln";
  return "";
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown cpu";
}

std::string Csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string Shapes(const std::vector<kernels::Dims>& all) {
  std::string s;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i) s += ';';
    for (size_t d = 0; d < all[i].size(); ++d) s += (d ? "," : "") + std::to_string(all[i][d]);
  }
  return s;
}

// AscendCL's data type names (aclDataType without the ACL_ prefix).
std::string Types(const std::vector<kernels::DataType>& all) {
  std::string s;
  for (size_t i = 0; i < all.size(); ++i) {
    std::string n = all[i] == kernels::DataType::kUndefined ? "UNDEFINED" : ir::Name(all[i]);
    std::transform(n.begin(), n.end(), n.begin(), ::toupper);
    s += (i ? ";" : "") + n;
  }
  return s;
}

std::string Fixed(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

double Us(uint64_t ns, uint64_t base) {
  return ns >= base ? static_cast<double>(ns - base) / 1000.0 : 0.0;
}

std::string Stamp(int64_t unix_us) {
  std::time_t secs = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  char ms[8];
  std::snprintf(ms, sizeof ms, "%03d", static_cast<int>((unix_us / 1000) % 1000));
  return std::string(buf) + ms;
}

struct DevicePeak {
  std::string name;
  double gflops = 0;
  std::string source;
};

Status WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Error(code::kWriteFile, "cannot write profiling file '", path.string(), "'");
  return Status::Ok();
}

struct Stat {
  uint64_t count = 0;
  double total = 0, min = 1e300, max = 0, sq = 0;
  void Add(double v) {
    ++count;
    total += v;
    sq += v * v;
    min = std::min(min, v);
    max = std::max(max, v);
  }
  double mean() const { return count ? total / static_cast<double>(count) : 0; }
  double variance() const {
    if (count == 0) return 0;
    const double m = mean();
    return std::max(0.0, sq / static_cast<double>(count) - m * m);
  }
};

std::string OpSummary(const Profile& p, const std::map<uint32_t, DevicePeak>& peaks) {
  std::ostringstream o;
  o << "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,ONNX Nodes,OP Type,"
       "Task Type,Body Depth,Task Start Time(us),Task Duration(us),Task Wait Time(us),"
       "Input Shapes,Input Data Types,Output Shapes,Output Data Types,FLOPs,Bytes,GFLOP/s,"
       "Peak GFLOP/s,Peak(%)\n";
  std::map<std::pair<uint32_t, int32_t>, uint64_t> last_end;  // (stream, depth) → end
  std::vector<const OpRecord*> ops;
  for (const OpRecord& r : p.ops) ops.push_back(&r);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpRecord* a, const OpRecord* b) { return a->start_ns < b->start_ns; });
  for (const OpRecord* r : ops) {
    const NodeMeta& m = p.nodes[r->meta];
    const double dur = static_cast<double>(r->end_ns - r->start_ns) / 1000.0;
    auto key = std::make_pair(r->stream_id, r->depth);
    auto it = last_end.find(key);
    const double wait = it != last_end.end() && r->start_ns > it->second
                            ? static_cast<double>(r->start_ns - it->second) / 1000.0
                            : 0.0;
    last_end[key] = r->end_ns;
    auto peak = peaks.find(r->device);
    const double peak_gflops = peak != peaks.end() ? peak->second.gflops : 0;
    std::string flops, gflops, ratio;
    if (r->flops >= 0) {
      flops = std::to_string(r->flops);
      if (dur > 0) {
        const double g = static_cast<double>(r->flops) / (dur * 1000.0);
        gflops = Fixed(g);
        if (peak_gflops > 0) ratio = Fixed(100.0 * g / peak_gflops, 2);
      }
    }
    o << r->device << ',' << Csv(m.model_name) << ',' << r->model_id << ',' << m.task_id << ','
      << r->stream_id << ',' << r->infer_id << ',' << Csv(m.name) << ',' << Csv(m.origins) << ','
      << Csv(m.op_type) << ",KERNEL_CPU," << r->depth << ',' << Fixed(Us(r->start_ns, p.start_ns))
      << ',' << Fixed(dur) << ',' << Fixed(wait) << ',' << Csv(Shapes(r->input_dims)) << ','
      << Csv(Types(r->input_types)) << ',' << Csv(Shapes(r->output_dims)) << ','
      << Csv(Types(r->output_types)) << ',' << flops << ',' << r->bytes << ',' << gflops << ','
      << (peak_gflops > 0 ? Fixed(peak_gflops, 1) : "") << ',' << ratio << '\n';
  }
  return o.str();
}

std::string OpStatistic(const Profile& p, const std::map<uint32_t, DevicePeak>& peaks) {
  struct Group {
    Stat time;
    int64_t flops = 0;
    bool flops_known = true;
  };
  std::map<std::tuple<uint32_t, std::string, std::string>, Group> groups;
  double total = 0;
  for (const OpRecord& r : p.ops) {
    if (r.depth != 0) continue;  // a body's nodes are inside their If/Loop's time already
    const NodeMeta& m = p.nodes[r.meta];
    Group& g = groups[{r.device, m.model_name, m.op_type}];
    const double dur = static_cast<double>(r.end_ns - r.start_ns) / 1000.0;
    g.time.Add(dur);
    if (r.flops >= 0)
      g.flops += r.flops;
    else
      g.flops_known = false;
    total += dur;
  }
  std::vector<std::pair<const std::tuple<uint32_t, std::string, std::string>*, const Group*>> rows;
  for (const auto& [k, g] : groups) rows.emplace_back(&k, &g);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second->time.total > b.second->time.total;
  });
  std::ostringstream o;
  o << "Device_id,Model Name,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
       "Max Time(us),Ratio(%),FLOPs,GFLOP/s,Peak(%)\n";
  for (const auto& [k, g] : rows) {
    const auto& [device, model, type] = *k;
    auto peak = peaks.find(device);
    std::string flops, gflops, ratio;
    if (g->flops_known) {
      flops = std::to_string(g->flops);
      if (g->time.total > 0) {
        const double v = static_cast<double>(g->flops) / (g->time.total * 1000.0);
        gflops = Fixed(v);
        if (peak != peaks.end() && peak->second.gflops > 0) {
          ratio = Fixed(100.0 * v / peak->second.gflops, 2);
        }
      }
    }
    o << device << ',' << Csv(model) << ',' << Csv(type) << ",CPU," << g->time.count << ','
      << Fixed(g->time.total) << ',' << Fixed(g->time.min) << ',' << Fixed(g->time.mean()) << ','
      << Fixed(g->time.max) << ',' << Fixed(total > 0 ? 100.0 * g->time.total / total : 0, 2) << ','
      << flops << ',' << gflops << ',' << ratio << '\n';
  }
  return o.str();
}

std::string ApiStatistic(const Profile& p) {
  std::map<std::string, Stat> by_name;
  for (const ApiRecord& a : p.apis) {
    by_name[a.name].Add(static_cast<double>(a.end_ns - a.start_ns) / 1000.0);
  }
  std::vector<std::pair<const std::string*, const Stat*>> rows;
  for (const auto& [n, s] : by_name) rows.emplace_back(&n, &s);
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second->total > b.second->total; });
  std::ostringstream o;
  o << "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n";
  for (const auto& [n, s] : rows) {
    o << "host,AscendCL," << *n << ',' << Fixed(s->total) << ',' << s->count << ','
      << Fixed(s->mean()) << ',' << Fixed(s->min) << ',' << Fixed(s->max) << ','
      << Fixed(s->variance()) << '\n';
  }
  return o.str();
}

std::string TaskTime(const Profile& p) {
  std::ostringstream o;
  o << "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),"
       "task_stop(us),detail\n";
  uint64_t id = 0;
  for (const TaskRecord& t : p.tasks) {
    o << t.device << ',' << TaskKindName(t.kind) << ','
      << (t.kind == TaskKind::kModelExecute ? "KERNEL_CPU" : "RUNTIME") << ',' << t.stream_id << ','
      << id++ << ',' << Fixed(static_cast<double>(t.end_ns - t.start_ns) / 1000.0) << ','
      << Fixed(Us(t.start_ns, p.start_ns)) << ',' << Fixed(Us(t.end_ns, p.start_ns)) << ','
      << Csv(t.detail) << '\n';
  }
  return o.str();
}

// Chrome trace events: process 0 is the host (acl* calls per thread), process 1 the
// application's msproftx marks and ranges per thread, process 100+N device N (one thread per
// stream: model executions with their nodes nested inside, and the other stream tasks).
std::string Timeline(const Profile& p, const std::map<uint32_t, DevicePeak>& peaks) {
  json events = json::array();
  auto meta = [&](const char* what, int pid, int64_t tid, const std::string& name) {
    json e = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
    if (tid >= 0) e["tid"] = tid;
    events.push_back(std::move(e));
  };
  auto span = [&](const std::string& name, const char* cat, int pid, int64_t tid, uint64_t start,
                  uint64_t end, json args) {
    json e = {{"name", name},
              {"cat", cat},
              {"ph", "X"},
              {"pid", pid},
              {"tid", tid},
              {"ts", Us(start, p.start_ns)},
              {"dur", static_cast<double>(end - start) / 1000.0}};
    if (!args.is_null()) e["args"] = std::move(args);
    events.push_back(std::move(e));
  };
  meta("process_name", 0, -1, "Host: AscendCL API");
  meta("process_name", 1, -1, "Host: msproftx");
  std::set<uint32_t> api_threads, tx_threads;
  std::set<std::pair<uint32_t, uint32_t>> streams;
  for (const ApiRecord& a : p.apis) {
    api_threads.insert(a.thread);
    span(a.name, "AscendCL", 0, a.thread, a.start_ns, a.end_ns, nullptr);
  }
  for (const TxRecord& t : p.tx) {
    tx_threads.insert(t.thread);
    if (t.instant) {
      events.push_back({{"name", t.message},
                        {"cat", "msproftx"},
                        {"ph", "i"},
                        {"s", "t"},
                        {"pid", 1},
                        {"tid", t.thread},
                        {"ts", Us(t.start_ns, p.start_ns)}});
    } else {
      span(t.message, "msproftx", 1, t.thread, t.start_ns, t.end_ns, nullptr);
    }
  }
  for (const TaskRecord& t : p.tasks) {
    streams.insert({t.device, t.stream_id});
    span(t.kind == TaskKind::kModelExecute ? t.detail : TaskKindName(t.kind), "task",
         100 + static_cast<int>(t.device), t.stream_id, t.start_ns, t.end_ns,
         {{"detail", t.detail}});
  }
  for (const OpRecord& r : p.ops) {
    const NodeMeta& m = p.nodes[r.meta];
    streams.insert({r.device, r.stream_id});
    json args = {{"op type", m.op_type},
                 {"onnx nodes", m.origins},
                 {"input shapes", Shapes(r.input_dims)},
                 {"input types", Types(r.input_types)},
                 {"output shapes", Shapes(r.output_dims)},
                 {"bytes", r.bytes},
                 {"model", m.model_name},
                 {"infer id", r.infer_id}};
    if (r.flops >= 0) args["flops"] = r.flops;
    span(m.name, "op", 100 + static_cast<int>(r.device), r.stream_id, r.start_ns, r.end_ns,
         std::move(args));
  }
  for (uint32_t t : api_threads) meta("thread_name", 0, t, "thread " + std::to_string(t));
  for (uint32_t t : tx_threads) meta("thread_name", 1, t, "thread " + std::to_string(t));
  std::set<uint32_t> devices;
  for (const auto& [d, s] : streams) {
    devices.insert(d);
    meta("thread_name", 100 + static_cast<int>(d), s, "Stream " + std::to_string(s));
  }
  for (uint32_t d : devices) {
    auto it = peaks.find(d);
    meta("process_name", 100 + static_cast<int>(d), -1,
         "Device " + std::to_string(d) + (it != peaks.end() ? ": " + it->second.name : ""));
  }
  json root = {{"displayTimeUnit", "ms"}, {"traceEvents", std::move(events)}};
  return root.dump();
}

}  // namespace

double DevicePeakGflops(int32_t id, std::string* name, std::string* source) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  auto dev = Runtime::Get().HalDevice(id);
  if (!dev.ok()) return 0;
  const hal::DeviceInfo& info = (*dev)->info();
  if (name) *name = info.name;
  const std::string key =
      CpuModel() + " | " + info.name + " | " + std::to_string(info.compute_units) + " units";
  const std::string dir = CacheDir();
  const fs::path file = dir.empty() ? fs::path() : fs::path(dir) / "peak.json";
  json cache = json::object();
  if (!file.empty()) {
    std::ifstream in(file);
    if (in) {
      json parsed = json::parse(in, nullptr, false);
      if (parsed.is_object()) cache = std::move(parsed);
    }
  }
  if (auto it = cache.find(key); it != cache.end() && it->is_number() && it->get<double>() > 0) {
    if (source) *source = "cache " + file.string();
    return it->get<double>();
  }
  const double peak = (*dev)->PeakGflops();
  if (source) *source = "measured";
  if (peak > 0 && !file.empty()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    cache[key] = peak;
    // Written whole to a temporary name, then renamed: concurrent profilers never see half.
    const fs::path tmp = file.string() + ".tmp" + std::to_string(::getpid());
    if (WriteText(tmp, cache.dump(1)).ok()) fs::rename(tmp, file, ec);
  }
  return peak;
}

Result<std::string> WriteProfile(const Profile& p) {
  std::mt19937_64 rng(std::random_device{}() ^ p.start_ns);
  std::string tag;
  for (int i = 0; i < 16; ++i) tag += static_cast<char>('A' + rng() % 26);
  const std::string ts = Stamp(p.start_unix_us);
  char pid[16];
  std::snprintf(pid, sizeof pid, "%06d", static_cast<int>(::getpid() % 1000000));
  const fs::path root =
      fs::path(p.result_dir) / ("PROF_" + std::string(pid) + "_" + ts + "_" + tag);
  std::error_code ec;
  fs::create_directories(root / "summary", ec);
  fs::create_directories(root / "timeline", ec);
  if (ec) {
    return Error(code::kWriteFile, "cannot create the profiling folder '", root.string(),
                 "': ", ec.message());
  }
  // The devices this run saw, with their measured peak (for % of peak).
  std::set<uint32_t> used;
  for (const OpRecord& r : p.ops) used.insert(r.device);
  for (const TaskRecord& t : p.tasks) used.insert(t.device);
  for (uint32_t d : p.config.devices) used.insert(d);
  std::map<uint32_t, DevicePeak> peaks;
  for (uint32_t d : used) {
    DevicePeak peak;
    peak.gflops = DevicePeakGflops(static_cast<int32_t>(d), &peak.name, &peak.source);
    peaks[d] = peak;
  }
  KILN_RETURN_IF_ERROR(
      WriteText(root / "summary" / ("op_summary_" + ts + ".csv"), OpSummary(p, peaks)), "");
  KILN_RETURN_IF_ERROR(
      WriteText(root / "summary" / ("op_statistic_" + ts + ".csv"), OpStatistic(p, peaks)), "");
  KILN_RETURN_IF_ERROR(
      WriteText(root / "summary" / ("api_statistic_" + ts + ".csv"), ApiStatistic(p)), "");
  KILN_RETURN_IF_ERROR(WriteText(root / "summary" / ("task_time_" + ts + ".csv"), TaskTime(p)), "");
  KILN_RETURN_IF_ERROR(
      WriteText(root / "timeline" / ("msprof_" + ts + ".json"), Timeline(p, peaks)), "");
  json devices = json::array();
  for (const auto& [d, peak] : peaks) {
    devices.push_back({{"id", d},
                       {"name", peak.name},
                       {"cpu", CpuModel()},
                       {"peak_gflops_fp32", peak.gflops},
                       {"peak_source", peak.source}});
  }
  json settings = json::object();
  for (const auto& [k, v] : p.config.settings) settings[k] = v;
  json info = {{"kiln_version", KILN_VERSION_STRING},
               {"pid", ::getpid()},
               {"start_unix_us", p.start_unix_us},
               {"duration_us", static_cast<double>(p.stop_ns - p.start_ns) / 1000.0},
               {"data_type_config", p.config.data_types},
               {"aicore_metrics", p.config.aicore_metrics},
               {"settings", settings},
               {"devices", std::move(devices)},
               {"counts",
                {{"ops", p.ops.size()},
                 {"tasks", p.tasks.size()},
                 {"api_calls", p.apis.size()},
                 {"msproftx", p.tx.size()}}},
               {"time_base", "Task Start Time(us) and timeline ts: microseconds since start"}};
  KILN_RETURN_IF_ERROR(WriteText(root / "info.json", info.dump(1)), "");
  return root.string();
}

}  // namespace kiln::runtime

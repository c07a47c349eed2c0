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
#include "runtime/json_text.h"
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
  JsonText t;
  t.Open('{').Key("displayTimeUnit").Value("ms").Key("traceEvents").Open('[');
  auto meta = [&](const char* what, int pid, int64_t tid, const std::string& name) {
    t.Line().Open('{').Key("name").Value(what).Key("ph").Value("M").Key("pid").Value(pid);
    if (tid >= 0) t.Key("tid").Value(tid);
    t.Key("args").Open('{').Key("name").Value(name).Close('}').Close('}');
  };
  // An "X" event; `args` (JSON object text) when not empty.
  auto span = [&](const std::string& name, const char* cat, int pid, int64_t tid, uint64_t start,
                  uint64_t end, const std::string& args) {
    t.Line().Open('{').Key("name").Value(name).Key("cat").Value(cat).Key("ph").Value("X");
    t.Key("pid").Value(pid).Key("tid").Value(tid).Key("ts").Value(Us(start, p.start_ns));
    t.Key("dur").Value(static_cast<double>(end - start) / 1000.0);
    if (!args.empty()) t.Key("args").Raw(args);
    t.Close('}');
  };
  meta("process_name", 0, -1, "Host: AscendCL API");
  meta("process_name", 1, -1, "Host: msproftx");
  std::set<uint32_t> api_threads, tx_threads;
  std::set<std::pair<uint32_t, uint32_t>> streams;
  for (const ApiRecord& a : p.apis) {
    api_threads.insert(a.thread);
    span(a.name, "AscendCL", 0, a.thread, a.start_ns, a.end_ns, "");
  }
  for (const TxRecord& x : p.tx) {
    tx_threads.insert(x.thread);
    if (x.instant) {
      t.Line().Open('{').Key("name").Value(x.message).Key("cat").Value("msproftx");
      t.Key("ph").Value("i").Key("s").Value("t").Key("pid").Value(1).Key("tid").Value(x.thread);
      t.Key("ts").Value(Us(x.start_ns, p.start_ns)).Close('}');
    } else {
      span(x.message, "msproftx", 1, x.thread, x.start_ns, x.end_ns, "");
    }
  }
  for (const TaskRecord& k : p.tasks) {
    streams.insert({k.device, k.stream_id});
    JsonText args;
    args.Open('{').Key("detail").Value(k.detail).Close('}');
    span(k.kind == TaskKind::kModelExecute ? k.detail : TaskKindName(k.kind), "task",
         100 + static_cast<int>(k.device), k.stream_id, k.start_ns, k.end_ns, args.str());
  }
  for (const OpRecord& r : p.ops) {
    const NodeMeta& m = p.nodes[r.meta];
    streams.insert({r.device, r.stream_id});
    JsonText args;
    args.Open('{').Key("op type").Value(m.op_type).Key("onnx nodes").Value(m.origins);
    args.Key("input shapes").Value(Shapes(r.input_dims));
    args.Key("input types").Value(Types(r.input_types));
    args.Key("output shapes").Value(Shapes(r.output_dims)).Key("bytes").Value(r.bytes);
    args.Key("model").Value(m.model_name).Key("infer id").Value(r.infer_id);
    if (r.flops >= 0) args.Key("flops").Value(r.flops);
    span(m.name, "op", 100 + static_cast<int>(r.device), r.stream_id, r.start_ns, r.end_ns,
         args.Close('}').str());
  }
  for (uint32_t id : api_threads) meta("thread_name", 0, id, "thread " + std::to_string(id));
  for (uint32_t id : tx_threads) meta("thread_name", 1, id, "thread " + std::to_string(id));
  std::set<uint32_t> devices;
  for (const auto& [d, stream] : streams) {
    devices.insert(d);
    meta("thread_name", 100 + static_cast<int>(d), stream, "Stream " + std::to_string(stream));
  }
  for (uint32_t d : devices) {
    auto it = peaks.find(d);
    meta("process_name", 100 + static_cast<int>(d), -1,
         "Device " + std::to_string(d) + (it != peaks.end() ? ": " + it->second.name : ""));
  }
  return t.Line().Close(']').Close('}').str();
}

// The number members of a flat JSON object (`in`) into `out`; anything else is skipped, and a
// file that does not parse leaves what was read so far.
void ReadNumbers(std::istream& in, std::map<std::string, double>* out) {
  struct Handler : nlohmann::json_sax<json> {
    std::map<std::string, double>* out = nullptr;
    std::string name;  // the member being read
    int depth = 0;
    bool Member(double v) {
      if (depth == 1 && !name.empty()) (*out)[name] = v;
      name.clear();
      return true;
    }
    bool Other() {
      name.clear();
      return true;
    }
    bool null() override { return Other(); }
    bool boolean(bool) override { return Other(); }
    bool number_integer(number_integer_t v) override { return Member(static_cast<double>(v)); }
    bool number_unsigned(number_unsigned_t v) override { return Member(static_cast<double>(v)); }
    bool number_float(number_float_t v, const string_t&) override { return Member(v); }
    bool string(string_t&) override { return Other(); }
    bool binary(binary_t&) override { return Other(); }
    bool start_object(std::size_t) override { return ++depth, Other(); }
    bool key(string_t& k) override {
      name = k;
      return true;
    }
    bool end_object() override { return --depth, true; }
    bool start_array(std::size_t) override { return ++depth, Other(); }
    bool end_array() override { return --depth, true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
      return false;
    }
  } handler;
  handler.out = out;
  (void)json::sax_parse(in, &handler);
}

}  // namespace

double DevicePeakGflops(int32_t id, std::string* name, std::string* source, double achieved) {
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
  // The cache: one JSON object of key -> GFLOP/s, read with nlohmann's SAX parser into a map
  // (no nlohmann document: see json_text.h).
  std::map<std::string, double> cache;
  if (!file.empty()) {
    std::ifstream in(file);
    if (in) ReadNumbers(in, &cache);
  }
  double cached = 0;
  if (auto it = cache.find(key); it != cache.end() && it->second > 0) {
    cached = it->second;
    if (cached >= achieved) {
      if (source) *source = "cache " + file.string();
      return cached;
    }
  }
  // A peak is a maximum: a measurement disturbed by other work never lowers the cached one.
  const double peak = std::max((*dev)->PeakGflops(), cached);
  if (source)
    *source = cached > 0 ? "measured again (the cached peak was below an op)" : "measured";
  if (peak > 0 && !file.empty()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    cache[key] = peak;
    JsonText text;
    text.Open('{');
    for (const auto& [k, v] : cache) text.Line().Key(k).Value(v);
    text.Line().Close('}');
    // Written whole to a temporary name, then renamed: concurrent profilers never see half.
    const fs::path tmp = file.string() + ".tmp" + std::to_string(::getpid());
    if (WriteText(tmp, text.str()).ok()) fs::rename(tmp, file, ec);
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
  // What each device's busiest op type reached (all its runs together), to catch a stale peak.
  std::map<std::pair<uint32_t, std::string>, std::pair<double, double>> by_type;  // flops, ns
  for (const OpRecord& r : p.ops) {
    if (r.flops < 0 || r.end_ns <= r.start_ns) continue;
    auto& [flops, ns] = by_type[{r.device, p.nodes[r.meta].op_type}];
    flops += static_cast<double>(r.flops);
    ns += static_cast<double>(r.end_ns - r.start_ns);
  }
  std::map<uint32_t, double> achieved;
  for (const auto& [key, v] : by_type) {
    achieved[key.first] = std::max(achieved[key.first], v.first / v.second);
  }
  std::map<uint32_t, DevicePeak> peaks;
  for (uint32_t d : used) {
    DevicePeak peak;
    peak.gflops = DevicePeakGflops(static_cast<int32_t>(d), &peak.name, &peak.source, achieved[d]);
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
  JsonText info;
  info.Open('{').Line().Key("kiln_version").Value(KILN_VERSION_STRING);
  info.Line().Key("pid").Value(static_cast<int64_t>(::getpid()));
  info.Line().Key("start_unix_us").Value(p.start_unix_us);
  info.Line().Key("duration_us").Value(static_cast<double>(p.stop_ns - p.start_ns) / 1000.0);
  info.Line().Key("data_type_config").Value(p.config.data_types);
  info.Line().Key("aicore_metrics").Value(p.config.aicore_metrics);
  info.Line().Key("settings").Open('{');
  for (const auto& [k, v] : p.config.settings) info.Key(k).Value(v);
  info.Close('}').Line().Key("devices").Open('[');
  for (const auto& [d, peak] : peaks) {
    info.Line().Open('{').Key("id").Value(d).Key("name").Value(peak.name);
    info.Key("cpu").Value(CpuModel()).Key("peak_gflops_fp32").Value(peak.gflops);
    info.Key("peak_source").Value(peak.source).Close('}');
  }
  info.Line().Close(']').Line().Key("counts").Open('{');
  info.Key("ops").Value(p.ops.size()).Key("tasks").Value(p.tasks.size());
  info.Key("api_calls").Value(p.apis.size()).Key("msproftx").Value(p.tx.size()).Close('}');
  info.Line()
      .Key("time_base")
      .Value("Task Start Time(us) and timeline ts: microseconds since start");
  KILN_RETURN_IF_ERROR(WriteText(root / "info.json", info.Line().Close('}').str()), "");
  return root.string();
}

}  // namespace kiln::runtime

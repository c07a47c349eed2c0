// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: the thread settings against the CPUs this process may use. Kiln's CPU device
// computes on one pool of KILN_CPU_THREADS workers (default: the affinity set) and one GNU
// OpenMP (libgomp) team per execution, capped by OMP_NUM_THREADS (docs/configuration.md).
#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/kiln/doctor_finding.h"

extern char** environ;

namespace kiln::tools::doctor {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A positive count ("4", or the first level of "4,2"); 0 when unset, -1 when not a number.
long ParseCount(const std::string& text, bool first_level) {
  if (text.empty()) return 0;
  std::string t = first_level ? text.substr(0, text.find(',')) : text;
  char* end = nullptr;
  long v = std::strtol(t.c_str(), &end, 10);
  if (t.empty() || *end != '\0' || v < 1) return -1;
  return v;
}

// "0-3,8,10-11" for a set of CPUs.
std::string Ranges(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) s += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs' worth of time the cgroup allows (cpu.max, or cgroup v1's CFS quota); 0 = no limit.
double CgroupCpus() {
  std::string max = ReadLine("/sys/fs/cgroup/cpu.max");
  if (!max.empty()) {
    if (max.rfind("max", 0) == 0) return 0;
    double quota = 0, period = 0;
    if (std::sscanf(max.c_str(), "%lf %lf", &quota, &period) == 2 && period > 0) {
      return quota / period;
    }
    return 0;
  }
  std::string q = ReadLine("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  std::string p = ReadLine("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  if (q.empty() || p.empty() || std::atof(q.c_str()) <= 0 || std::atof(p.c_str()) <= 0) return 0;
  return std::atof(q.c_str()) / std::atof(p.c_str());
}

// A CPU list ("0 3 1-2 4-15:2", spaces or commas: GOMP_CPU_AFFINITY, /sys/.../online); false on
// a syntax error.
bool GompCpus(const std::string& text, std::vector<int>* cpus) {
  std::string t = text;
  for (char& c : t) c = c == ',' ? ' ' : c;
  std::istringstream in(t);
  for (std::string tok; in >> tok;) {
    const char* p = tok.c_str();
    char* end = nullptr;
    long a = std::strtol(p, &end, 10);
    if (end == p) return false;
    long b = a, step = 1;
    if (*end == '-') {
      p = end + 1;
      b = std::strtol(p, &end, 10);
      if (end == p) return false;
      if (*end == ':') {
        p = end + 1;
        step = std::strtol(p, &end, 10);
        if (end == p) return false;
      }
    }
    if (*end != '\0' || a < 0 || b < a || step < 1 || b - a > 65536) return false;
    for (long c = a; c <= b; c += step) cpus->push_back(static_cast<int>(c));
  }
  return true;
}

// What GNU OpenMP (libgomp, loaded with libascendcl.so) made of the binding settings. With
// OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY asking for binding, libgomp binds the main
// thread to its first place when it loads, so the affinity mask read later is that one place;
// its places still hold the CPUs the process started with. Read through the public OpenMP API,
// looked up at run time (kiln itself does not link OpenMP).
struct OmpView {
  bool loaded = false;
  int bind = 0;           // omp_proc_bind_t: 0 false, 1 true, 2 primary, 3 close, 4 spread
  std::vector<int> cpus;  // the union of the places (empty when libgomp binds nothing)
};

OmpView ReadOmp() {
  using IntFn = int (*)();
  using PlaceFn = int (*)(int);
  using IdsFn = void (*)(int, int*);
  OmpView v;
  auto num_places = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_num_places"));
  auto place_procs = reinterpret_cast<PlaceFn>(dlsym(RTLD_DEFAULT, "omp_get_place_num_procs"));
  auto place_ids = reinterpret_cast<IdsFn>(dlsym(RTLD_DEFAULT, "omp_get_place_proc_ids"));
  auto proc_bind = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_proc_bind"));
  if (!num_places || !place_procs || !place_ids || !proc_bind) return v;
  v.loaded = true;
  v.bind = proc_bind();
  std::set<int> all;
  const int places = num_places();
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(static_cast<size_t>(std::max(place_procs(p), 0)));
    if (!ids.empty()) place_ids(p, ids.data());
    all.insert(ids.begin(), ids.end());
  }
  v.cpus.assign(all.begin(), all.end());
  return v;
}

Finding Issue(const std::string& found, const std::string& fix, const nlohmann::json& data) {
  Finding f;
  f.check = "threads";
  f.level = Level::kWarn;
  f.found = found;
  f.fix = fix;
  f.data = data;
  return f;
}

}  // namespace

std::vector<Finding> CheckThreads(const Context& ctx) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const std::vector<int> mask = cpus;  // the main thread's mask now
  const OmpView omp_view = ReadOmp();
  const bool bound = omp_view.bind != 0 && omp_view.cpus.size() > mask.size();
  if (bound) {
    // The CPUs the process started with: the places, less any CPU that is offline or outside
    // the cgroup's cpuset (GOMP_CPU_AFFINITY's list is taken as written).
    std::vector<int> allowed;
    const std::string cpuset = ReadLine("/sys/fs/cgroup/cpuset.cpus.effective");
    if (!GompCpus(cpuset.empty() ? ReadLine("/sys/devices/system/cpu/online") : cpuset, &allowed)) {
      allowed.clear();
    }
    std::set<int> ok(allowed.begin(), allowed.end());
    cpus.clear();
    for (int c : omp_view.cpus) {
      if (ok.empty() || ok.count(c)) cpus.push_back(c);
    }
  }
  const long affinity = cpus.empty() ? online : static_cast<long>(cpus.size());
  std::set<std::pair<std::string, std::string>> cores;  // (package, core) of the affinity set
  for (int c : cpus) {
    const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    cores.insert({ReadLine(topo + "physical_package_id"), ReadLine(topo + "core_id")});
  }
  const double quota = CgroupCpus();
  const std::string omp = Env("OMP_NUM_THREADS"), kiln = Env("KILN_CPU_THREADS");
  const long omp_n = ParseCount(omp, true), kiln_n = ParseCount(kiln, false);
  const long pool =
      ctx.compute_threads > 0 ? ctx.compute_threads : (kiln_n > 0 ? kiln_n : affinity);
  const long team = omp_n > 0 ? std::min(pool, omp_n) : pool;

  nlohmann::json env = nlohmann::json::object();
  std::vector<std::string> kmp;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    if (name.rfind("OMP_", 0) == 0 || name.rfind("GOMP_", 0) == 0 || name.rfind("KMP_", 0) == 0 ||
        name == "KILN_CPU_THREADS" || name == "KILN_CPU_SPIN") {
      env[name] = kv.find('=') == std::string::npos ? "" : kv.substr(kv.find('=') + 1);
    }
    if (name.rfind("KMP_", 0) == 0) kmp.push_back(name);
  }
  const nlohmann::json data = {{"affinity", Ranges(cpus)},
                               {"main_thread_mask", Ranges(mask)},
                               {"openmp_bind", omp_view.bind},
                               {"openmp_places_cpus", Ranges(omp_view.cpus)},
                               {"affinity_cpus", affinity},
                               {"online_cpus", online},
                               {"physical_cores", cores.size()},
                               {"cgroup_cpus", quota},
                               {"kiln_pool_threads", pool},
                               {"kiln_execution_threads", team},
                               {"environment", env}};
  const std::string aff = std::to_string(affinity) + " CPU" + (affinity == 1 ? "" : "s") +
                          " this process may run on (affinity " + Ranges(cpus) + ")";
  std::vector<Finding> out;
  if (bound && kiln_n == 0 && pool < affinity) {
    out.push_back(Issue(
        "OpenMP binding (OMP_PROC_BIND " +
            (Env("OMP_PROC_BIND").empty() ? "unset" : Env("OMP_PROC_BIND")) + ", OMP_PLACES " +
            (Env("OMP_PLACES").empty() ? "unset" : Env("OMP_PLACES")) + ", GOMP_CPU_AFFINITY " +
            (Env("GOMP_CPU_AFFINITY").empty() ? "unset" : Env("GOMP_CPU_AFFINITY")) +
            ") bound the main thread to CPU " + Ranges(mask) +
            " when libgomp loaded, so Kiln's compute pool, sized from that mask, has " +
            std::to_string(pool) + " thread(s) of the " + aff,
        "export KILN_CPU_THREADS=" + std::to_string(affinity) +
            ", or unset OMP_PROC_BIND, OMP_PLACES and GOMP_CPU_AFFINITY",
        data));
  }
  if (omp_n < 0) {
    out.push_back(Issue("OMP_NUM_THREADS='" + omp +
                            "' is not a positive number: OpenMP and Kiln "
                            "ignore it",
                        "export OMP_NUM_THREADS=" + std::to_string(affinity) + " or unset it",
                        data));
  } else if (omp_n > affinity) {
    out.push_back(Issue(
        "OMP_NUM_THREADS=" + omp + " is more than the " + aff +
            ": an OpenMP team sized by it runs " + std::to_string(omp_n) + " threads on " +
            std::to_string(affinity) + (affinity == 1 ? " CPU" : " CPUs") +
            " (Kiln caps its own at " + std::to_string(team) + ")",
        "export OMP_NUM_THREADS=" + std::to_string(affinity) + " (or fewer), or unset it", data));
  }
  if (kiln_n < 0) {
    out.push_back(Issue("KILN_CPU_THREADS='" + kiln +
                            "' is not a positive number: Kiln ignores "
                            "it and uses " +
                            std::to_string(affinity),
                        "export KILN_CPU_THREADS=" + std::to_string(affinity) + " or unset it",
                        data));
  } else if (kiln_n > affinity) {
    out.push_back(Issue("KILN_CPU_THREADS=" + kiln + " is more than the " + aff +
                            ": the compute pool oversubscribes them",
                        "export KILN_CPU_THREADS=" + std::to_string(affinity) +
                            " or unset it (the default is the affinity set)",
                        data));
  }
  if (quota > 0 && team > static_cast<long>(std::ceil(quota))) {
    const long q = std::max(1L, static_cast<long>(std::floor(quota)));
    out.push_back(Issue("the cgroup's CPU quota allows " + std::to_string(quota).substr(0, 4) +
                            " CPUs' time but Kiln computes on " + std::to_string(team) +
                            " threads: they are throttled in turn",
                        "export KILN_CPU_THREADS=" + std::to_string(q) +
                            " (or run the container with --cpuset-cpus instead of --cpus)",
                        data));
  }
  const long limit = ParseCount(Env("OMP_THREAD_LIMIT"), false);
  if (limit > 0 && limit < team) {
    out.push_back(Issue("OMP_THREAD_LIMIT=" + Env("OMP_THREAD_LIMIT") +
                            " caps every OpenMP team, Kiln's included, below its " +
                            std::to_string(team) + " compute threads",
                        "unset OMP_THREAD_LIMIT or raise it to " + std::to_string(team), data));
  }
  const std::string gomp = Env("GOMP_CPU_AFFINITY");
  if (!gomp.empty()) {
    std::vector<int> listed, outside;
    const bool parsed = GompCpus(gomp, &listed);
    std::set<int> allowed(cpus.begin(), cpus.end());
    for (int c : listed) {
      if (allowed.count(c) == 0) outside.push_back(c);
    }
    if (!parsed || !outside.empty()) {
      out.push_back(Issue(
          "GOMP_CPU_AFFINITY='" + gomp + "' " +
              (parsed ? "names CPUs " + Ranges(outside) + " outside the " + aff
                      : std::string("is not a CPU list libgomp reads")),
          "list only CPUs of the affinity set (" + Ranges(cpus) + "), or unset GOMP_CPU_AFFINITY",
          data));
    }
  }
  if (!kmp.empty()) {
    std::string names;
    for (const std::string& k : kmp) names += (names.empty() ? "" : ", ") + k;
    out.push_back(Issue(names + (kmp.size() == 1 ? " is" : " are") +
                            " Intel OpenMP's (libiomp5); Kiln runs on GNU OpenMP (libgomp), which "
                            "ignores them",
                        "use OMP_PROC_BIND/OMP_PLACES (or GOMP_CPU_AFFINITY) and unset " + names,
                        data));
  }
  if (out.empty()) {
    Finding f;
    f.check = "threads";
    f.data = data;
    f.found = aff + ", " + std::to_string(cores.size()) + " physical core(s), " +
              std::to_string(online) + " online; Kiln computes on " + std::to_string(team) +
              " thread(s) (KILN_CPU_THREADS " + (kiln.empty() ? "unset" : kiln) +
              ", OMP_NUM_THREADS " + (omp.empty() ? "unset" : omp) + ")";
    out.push_back(f);
  }
  return out;
}

}  // namespace kiln::tools::doctor

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln prof`, Kiln's msprof (docs/tools.md, "kiln prof"): runs an unmodified AscendCL program
// with profiling switched on through msprof's environment (PROFILING_MODE=true and
// PROFILING_OPTIONS, read at aclInit), or profiles an .om by itself in this process; then
// prints the top operators of the profile it left and draws them (top_ops.svg).
#include "tools/kiln/prof.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_prof.h"
#include "tools/kiln/prof_model.h"
#include "tools/kiln/prof_report.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

struct ProfFlags {
  std::string application;
  std::string output = ".";
  std::string ascendcl = "on";
  std::string model_execution = "off";
  std::string runtime_api = "off";
  std::string msproftx = "off";
  std::string task_time = "on";
  std::string om;
  std::vector<std::string> inputs;
  int loop = 10;
  int warmup = 1;
  int device = 0;
  size_t top = 10;
};

void Error(const std::string& message) {
  std::fprintf(stderr, "[ERROR] kiln prof: %s\n", message.c_str());
}

// Splits a command line the way a POSIX shell splits words: blanks separate, '...' and "..."
// quote, a backslash escapes the next character (in "..." only before $ ` " \ and newline).
// No expansion of variables, globs or redirections. false when a quote is not closed.
bool SplitCommand(const std::string& text, std::vector<std::string>* words) {
  words->clear();
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words->push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return false;
      word += text.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::strchr("$`\"\\\n", text[j + 1]) != nullptr) {
          ++j;
        }
        word += text[j];
      }
      if (j >= text.size()) return false;
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words->push_back(word);
  return true;
}

std::string SignalName(int sig) {
  const char* d = strsignal(sig);
  return "signal " + std::to_string(sig) + (d ? std::string(" (") + d + ")" : std::string());
}

// Prints the top operators of `folder` and draws them into folder/top_ops.svg. false when the
// profile cannot be read.
bool Report(const std::string& folder, size_t top) {
  ProfileSummary summary;
  std::string error;
  if (!ReadProfileSummary(folder, &summary, &error)) {
    Error(error);
    return false;
  }
  std::printf("\n");
  if (summary.ops.empty()) {
    std::printf(
        "No operators in this profile: no model was executed while profiling was on, or task "
        "time was off (--task-time=on).\n");
    std::fflush(stdout);
    return true;
  }
  PrintTopOps(summary, top, stdout);
  const std::string svg = (fs::path(folder) / "top_ops.svg").string();
  if (!WriteTextFile(svg, TopOpsSvg(summary, top), &error)) {
    Error(error);
    return false;
  }
  std::printf("\nChart: %s\n", svg.c_str());
  std::printf("Timeline (Perfetto, chrome://tracing): %s/timeline/\n", folder.c_str());
  std::fflush(stdout);
  return true;
}

bool On(const std::string& v) { return v != "off"; }

// The PROF_* folders in `output` that are not in `existing`, oldest first (by the time in their
// names), those of process `pid` (the application itself) last: a program started through a
// script (`--application="sh run.sh"`) profiles in a child process of its own.
std::vector<std::string> NewProfiles(const std::vector<std::string>& existing,
                                     const std::string& output, pid_t pid) {
  const std::set<std::string> old(existing.begin(), existing.end());
  const std::vector<std::string> own = ListProfileFolders(output, pid);
  const std::set<std::string> mine(own.begin(), own.end());
  std::vector<std::string> found;
  for (const std::string& f : ListProfileFolders(output)) {
    if (!old.count(f) && !mine.count(f)) found.push_back(f);
  }
  // PROF_<pid>_<time>_<tag>: the time is the third field.
  auto time_of = [](const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    const size_t a = name.find('_', 5);
    return a == std::string::npos ? name : name.substr(a + 1);
  };
  std::stable_sort(found.begin(), found.end(), [&](const std::string& x, const std::string& y) {
    return time_of(x) < time_of(y);
  });
  for (const std::string& f : own) {
    if (!old.count(f)) found.push_back(f);
  }
  return found;
}

// Runs `argv` with PROFILING_MODE/PROFILING_OPTIONS set, waits for it, and reports the
// profile it left. Returns the exit code of `kiln prof`.
int RunApplication(const std::vector<std::string>& argv, const ProfFlags& f,
                   const std::string& output) {
  nlohmann::json options = {{"output", output},
                            {"ascendcl", f.ascendcl},
                            {"task_time", On(f.task_time) || On(f.model_execution) ? "on" : "off"},
                            {"runtime_api", f.runtime_api},
                            {"msproftx", f.msproftx}};
  std::string command;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    command += (command.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  std::printf("[INFO] Start profiling....\n[INFO] Application: %s\n", command.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
    Error(std::string("pipe: ") + std::strerror(errno));
    return 1;
  }
  // Like system(3): the parent ignores ^C and ^\ while the application runs (the application,
  // in the same process group, gets them), so the profile it leaves is still reported.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  const std::vector<std::string> existing = ListProfileFolders(output);
  // Set here, not in the child: only async-signal-safe calls between fork and exec. This
  // process itself never calls aclInit in this mode.
  ::setenv("PROFILING_MODE", "true", 1);
  ::setenv("PROFILING_OPTIONS", options.dump().c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    Error(std::string("fork: ") + std::strerror(errno));
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    return 1;
  }
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    ::close(report_pipe[0]);
    ::execvp(args[0], args.data());
    const int err = errno;
    ssize_t w = ::write(report_pipe[1], &err, sizeof err);
    (void)w;
    ::_exit(127);
  }
  ::close(report_pipe[1]);
  int exec_errno = 0;
  const bool exec_failed = ::read(report_pipe[0], &exec_errno, sizeof exec_errno) ==
                           static_cast<ssize_t>(sizeof exec_errno);
  ::close(report_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (exec_failed) {
    Error("cannot run the application '" + argv[0] + "': " + std::strerror(exec_errno) +
          (argv[0].find('/') == std::string::npos ? " (not found on PATH? give ./" + argv[0] + ")"
                                                  : ""));
    return exec_errno == ENOENT ? 127 : 126;
  }
  int app_code = 0;
  if (WIFEXITED(status)) {
    app_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    app_code = 128 + WTERMSIG(status);
  }
  const std::vector<std::string> folders = NewProfiles(existing, output, pid);
  if (app_code != 0) {
    Error("the application " +
          (WIFSIGNALED(status) ? "was killed by " + SignalName(WTERMSIG(status))
                               : "exited with status " + std::to_string(app_code)) +
          (folders.empty() ? "; it left no profile" : "; its profile follows"));
  }
  if (folders.empty()) {
    if (app_code == 0) {
      Error("the application exited with status 0 but left no PROF_* folder in '" + output +
            "': it never called aclInit, or it loads another libascendcl.so than Kiln's "
            "(check with `ldd`)");
      return 1;
    }
    return app_code;
  }
  std::printf("[INFO] Profiling finished.\n");
  for (size_t i = 0; i + 1 < folders.size(); ++i) {
    std::printf("[INFO] Also written during this run (one per aclInit ... aclFinalize): %s\n",
                folders[i].c_str());
  }
  std::printf("[INFO] Process profiling data complete. Data is saved in %s\n",
              folders.back().c_str());
  const bool reported = Report(folders.back(), f.top);
  if (app_code != 0) return app_code;
  return reported ? 0 : 1;
}

int RunModel(const ProfFlags& f, const std::string& output) {
  if (!fs::is_regular_file(f.om)) {
    Error("--om '" + f.om + "': no such file");
    return 1;
  }
  ModelProfileOptions o;
  o.om = f.om;
  o.inputs = f.inputs;
  o.loop = f.loop;
  o.warmup = f.warmup;
  o.device = f.device;
  o.output = output;
  o.data_types = 0;
  if (On(f.task_time) || On(f.model_execution)) o.data_types |= ACL_PROF_TASK_TIME;
  if (On(f.ascendcl)) o.data_types |= ACL_PROF_ACL_API;
  if (On(f.runtime_api)) o.data_types |= ACL_PROF_RUNTIME_API;
  if (On(f.msproftx)) o.data_types |= ACL_PROF_MSPROFTX;
  std::printf("[INFO] Start profiling....\n[INFO] Model: %s, %d execution%s (%s inputs)\n",
              f.om.c_str(), f.loop, f.loop == 1 ? "" : "s", f.inputs.empty() ? "random" : "given");
  std::fflush(stdout);
  std::string error;
  const std::string folder = ProfileModel(o, &error);
  if (folder.empty()) {
    Error(error);
    return 1;
  }
  std::printf("[INFO] Profiling finished.\n");
  std::printf("[INFO] Process profiling data complete. Data is saved in %s\n", folder.c_str());
  return Report(folder, f.top) ? 0 : 1;
}

int Run(CLI::App* cmd, const ProfFlags& f) {
  std::vector<std::string> argv = cmd->remaining();
  if (!argv.empty() && !argv[0].empty() && argv[0][0] == '-') {
    Error("unknown option '" + argv[0] + "' (see kiln prof --help)");
    return 2;
  }
  const int modes =
      (f.application.empty() ? 0 : 1) + (argv.empty() ? 0 : 1) + (f.om.empty() ? 0 : 1);
  if (modes == 0) {
    Error(
        "nothing to profile: give --application=\"./app args\" (or the program after the "
        "options) or --om model.om");
    return 2;
  }
  if (modes > 1) {
    Error("give one of --application, a program after the options, or --om");
    return 2;
  }
  if (f.om.empty() && (!f.inputs.empty() || cmd->count("--loop") || cmd->count("--warmup"))) {
    Error("--input, --loop and --warmup go with --om (an application runs its own inputs)");
    return 2;
  }
  std::error_code ec;
  fs::create_directories(f.output, ec);
  if (!fs::is_directory(f.output)) {
    Error("--output '" + f.output + "': cannot create the folder" +
          (ec ? ": " + ec.message() : std::string()));
    return 1;
  }
  if (::access(f.output.c_str(), W_OK | X_OK) != 0) {
    Error("--output '" + f.output + "': the folder is not writable");
    return 1;
  }
  const std::string output = fs::absolute(f.output).lexically_normal().string();
  if (!f.om.empty()) return RunModel(f, output);
  if (!f.application.empty()) {
    if (!SplitCommand(f.application, &argv)) {
      Error("--application \"" + f.application + "\": a quote is not closed");
      return 2;
    }
    if (argv.empty()) {
      Error("--application is empty");
      return 2;
    }
  }
  return RunApplication(argv, f, output);
}

}  // namespace

void AddProfCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ProfFlags>();
  CLI::App* prof = app.add_subcommand(
      "prof",
      "profile an AscendCL program or an .om (msprof-compatible flags): per-operator time, the "
      "top operators and a chart.\n  kiln prof [options] --application=\"./app args\"\n  kiln "
      "prof [options] ./app args\n  kiln prof --om model.om [--input a.bin,b.npy] [--loop N]");
  prof->prefix_command();
  const auto on_off = CLI::IsMember({"on", "off"});
  prof->add_option("--application", f->application,
                   "the program and its arguments, one string (\"./app --flag x\"); run with "
                   "profiling switched on through PROFILING_MODE/PROFILING_OPTIONS");
  prof->add_option("--output", f->output,
                   "the folder the PROF_* profile goes under (created; default: .)");
  prof->add_option("--ascendcl", f->ascendcl, "acl* API statistics: on (default) or off")
      ->check(on_off);
  prof->add_option("--task-time", f->task_time,
                   "operator and stream task times: on (default), off, l0 or l1 (same as on)")
      ->check(CLI::IsMember({"on", "off", "l0", "l1"}));
  prof->add_option("--model-execution", f->model_execution,
                   "model executions on the timeline: on or off (default; they come with "
                   "--task-time, which on forces on)")
      ->check(on_off);
  prof->add_option(
          "--runtime-api", f->runtime_api,
          "stream tasks (memcpy, events, callbacks) without operators: on or off (default)")
      ->check(on_off);
  prof->add_option("--msproftx", f->msproftx,
                   "the application's aclprofMark/Push/RangeStart marks: on or off (default)")
      ->check(on_off);
  prof->add_option("--om", f->om, "profile this .om by itself (in this process)");
  prof->add_option("--input", f->inputs,
                   "with --om: one file per model input, comma-separated (.bin raw bytes or "
                   ".npy); random inputs when absent")
      ->delimiter(',');
  prof->add_option("--loop", f->loop, "with --om: profiled executions (default 10)")
      ->check(CLI::Range(1, 100000));
  prof->add_option("--warmup", f->warmup,
                   "with --om: executions before profiling starts (default 1)")
      ->check(CLI::Range(0, 1000));
  prof->add_option("--device", f->device, "with --om: the device id (default 0)")
      ->check(CLI::NonNegativeNumber);
  prof->add_option("--top", f->top, "operators in the table and chart (default 10)")
      ->check(CLI::Range(1, 1000));
  prof->callback([prof, f, exit_code] { *exit_code = Run(prof, *f); });
}

}  // namespace kiln::tools

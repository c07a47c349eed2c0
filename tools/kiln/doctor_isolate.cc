// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: each .om is loaded in a child process (this kiln, `doctor --model-child`), so a
// file that crashes or hangs the loader is a finding that says so, not the end of the report.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/kiln/doctor_finding.h"

extern char** environ;

namespace kiln::tools::doctor {
namespace {

constexpr unsigned kChildSeconds = 120;  // a load that takes longer is reported as a hang

nlohmann::json ToJson(const Finding& f) {
  return {{"check", f.check},
          {"level", LevelName(f.level)},
          {"found", f.found},
          {"fix", f.fix},
          {"data", f.data}};
}

Finding FromJson(const nlohmann::json& j) {
  Finding f;
  f.check = j.at("check").get<std::string>();
  const std::string level = j.at("level").get<std::string>();
  f.level = level == "OK" ? Level::kOk : level == "WARN" ? Level::kWarn : Level::kFail;
  f.found = j.at("found").get<std::string>();
  f.fix = j.at("fix").get<std::string>();
  f.data = j.at("data");
  return f;
}

Finding ChildFailed(const std::string& path, const std::string& what, const std::string& fix) {
  Finding f;
  f.check = "model";
  f.level = Level::kFail;
  f.found = path + " will not load: " + what;
  f.fix = fix;
  f.data = {{"path", path}, {"loads", false}, {"child", what}};
  return f;
}

}  // namespace

int RunModelChild(const std::string& path) {
  alarm(kChildSeconds);  // SIGALRM ends a hung load; the parent reports it
  Context ctx;
  (void)CheckRuntime(&ctx);
  const Finding f = CheckModel(ctx, path);
  FinishRuntime(ctx);
  const std::string text = ToJson(f).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(stdout, "%s\n", text.c_str());
  std::fflush(stdout);
  return 0;
}

Finding CheckModelIsolated(const Context& ctx, const std::string& path) {
  if (!ctx.device_set || ctx.exe.empty()) return CheckModel(ctx, path);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return CheckModel(ctx, path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<std::string> args = {ctx.exe, "doctor", "--model-child", path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, ctx.exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return CheckModel(ctx, path);  // no child: check in this process
  }
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM) {
      return ChildFailed(path, "loading did not finish in " + std::to_string(kChildSeconds) + " s",
                         "report it with the file: a load must finish or fail");
    }
    return ChildFailed(path, std::string("the loader crashed on it (") + strsignal(sig) + ")",
                       "report it with the file: a bad file must be refused, not crash");
  }
  try {
    return FromJson(nlohmann::json::parse(out));
  } catch (const std::exception&) {
    return ChildFailed(
        path,
        "the check's child exited " + std::to_string(WEXITSTATUS(status)) + " without a finding",
        "rerun kiln doctor; report it if it repeats");
  }
}

}  // namespace kiln::tools::doctor

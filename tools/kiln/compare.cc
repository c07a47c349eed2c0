// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/compare.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

// Checks that the interpreter has what the comparison needs (exit 2 with the fix if not), then
// runs kiln.compare as `python -m` would.
constexpr const char* kBootstrap = R"(import importlib.util, runpy, sys
missing = [m for m in ("numpy", "onnx", "onnxruntime") if importlib.util.find_spec(m) is None]
if missing:
    print("kiln compare: " + sys.executable + " has no " + ", ".join(missing) + "; set KILN_PYTHON "
          "to a Python with numpy, onnx and onnxruntime", file=sys.stderr)
    sys.exit(2)
sys.argv[0] = "kiln compare"
runpy.run_module("kiln.compare", run_name="__main__", alter_sys=True)
)";

struct CompareFlags {
  std::string model, om, input, input_shape, output, json;
  double atol = 1e-4, rtol = 1e-3;  // the model tests' fp32 default (docs/models.md)
  int seed = 0;
};

// The folder holding the `kiln` and `acl` Python packages: <build>/python next to
// <build>/tools/kiln/kiln, or <prefix>/python/site-packages next to <prefix>/bin/kiln.
std::string PythonPackages(const fs::path& self) {
  const fs::path dir = self.parent_path();
  // The build tree (tools/kiln -> python), an install prefix (bin -> python/site-packages), the
  // wheel (site-packages/kiln/_bin -> site-packages).
  for (const fs::path& candidate :
       {dir / ".." / ".." / "python", dir / ".." / "python" / "site-packages", dir / ".." / ".."}) {
    std::error_code ec;
    if (fs::exists(candidate / "kiln" / "compare.py", ec)) {
      return fs::weakly_canonical(candidate, ec).string();
    }
  }
  return "";
}

std::string PythonInterpreter() {
  if (const char* p = std::getenv("KILN_PYTHON"); p != nullptr && *p != '\0') return p;
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0') {
    std::error_code ec;
    const fs::path python = fs::path(venv) / "bin" / "python";
    if (fs::exists(python, ec)) return python.string();
  }
  return "python3";
}

// A tolerance as text that keeps its value (std::to_string's %f writes 1e-7 as "0.000000").
std::string Exact(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

int RunCompare(const CompareFlags& f) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string packages = ec ? "" : PythonPackages(self);
  if (packages.empty()) {
    std::fprintf(stderr,
                 "kiln compare: cannot find Kiln's Python packages (kiln/compare.py) next to "
                 "this binary; build the acl_python target or install Kiln with its Python "
                 "component\n");
    return 2;
  }
  std::string path = packages;
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    path += ":" + std::string(old);
  }
  setenv("PYTHONPATH", path.c_str(), 1);
  const std::string python = PythonInterpreter();
  std::vector<std::string> args = {python,
                                   "-c",
                                   kBootstrap,
                                   "--model",
                                   f.model,
                                   "--atol",
                                   Exact(f.atol),
                                   "--rtol",
                                   Exact(f.rtol),
                                   "--seed",
                                   std::to_string(f.seed),
                                   "--kiln",
                                   self.string()};
  auto add = [&](const char* flag, const std::string& value) {
    if (!value.empty()) {
      args.push_back(flag);
      args.push_back(value);
    }
  };
  add("--om", f.om);
  add("--input", f.input);
  add("--input_shape", f.input_shape);
  add("--output", f.output);
  add("--json", f.json);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("kiln compare: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[0], argv.data());
    std::fprintf(stderr,
                 "kiln compare: cannot run '%s' (set KILN_PYTHON to a Python with numpy, onnx "
                 "and onnxruntime)\n",
                 argv[0]);
    _exit(2);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 2;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace

void AddCompareCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "run an ONNX model in onnxruntime and its .om in Kiln on the same inputs, compare every "
      "shared intermediate tensor and name the first node that diverges (exit 1)");
  cmd->add_option("--model", f->model, "the ONNX model")->required()->check(CLI::ExistingFile);
  cmd->add_option("--om", f->om, "its .om (default: compiled now with kiln atc)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", f->input,
                  "comma-separated .npy files, one per model input in order (default: random)");
  cmd->add_option("--input_shape", f->input_shape,
                  "ATC's --input_shape: for compiling, and the dims of random inputs");
  cmd->add_option("--atol", f->atol, "absolute tolerance (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--rtol", f->rtol, "relative tolerance (default 1e-3)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", f->seed, "seed of the random inputs (default 0)");
  cmd->add_option("--output", f->output,
                  "keep the .om, the dump and report.json in this folder (default: removed)");
  cmd->add_option("--json", f->json, "write the comparison as JSON to this file");
  cmd->callback([f, exit_code] { *exit_code = RunCompare(*f); });
}

}  // namespace kiln::tools

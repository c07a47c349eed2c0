// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace kiln::log {
namespace {

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* v :
         {"ASCEND_GLOBAL_LOG_LEVEL", "ASCEND_MODULE_LOG_LEVEL", "ASCEND_SLOG_PRINT_TO_STDOUT",
          "ASCEND_LOG_PRINT_TO_STDOUT", "ASCEND_PROCESS_LOG_PATH"}) {
      unsetenv(v);
    }
    Configure();
  }
};

TEST_F(LogTest, DefaultLevelIsError) {
  unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
  Configure();
  EXPECT_TRUE(Enabled(Module::kRuntime, Level::kError));
  EXPECT_FALSE(Enabled(Module::kRuntime, Level::kWarning));
}

TEST_F(LogTest, GlobalLevelFourTurnsLoggingOff) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 1);
  Configure();
  EXPECT_FALSE(Enabled(Module::kAscendCl, Level::kError));
}

TEST_F(LogTest, InvalidLevelFallsBackToError) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "debug", 1);
  Configure();
  EXPECT_TRUE(Enabled(Module::kApp, Level::kError));
  EXPECT_FALSE(Enabled(Module::kApp, Level::kInfo));
}

TEST_F(LogTest, ModuleLevelOverridesGlobal) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "3", 1);
  setenv("ASCEND_MODULE_LOG_LEVEL", "RUNTIME=0:GE=1", 1);
  Configure();
  EXPECT_TRUE(Enabled(Module::kRuntime, Level::kDebug));
  EXPECT_FALSE(Enabled(Module::kGe, Level::kDebug));
  EXPECT_TRUE(Enabled(Module::kGe, Level::kInfo));
  EXPECT_FALSE(Enabled(Module::kAscendCl, Level::kInfo));
}

TEST_F(LogTest, ModuleLevelSyntaxErrorDisablesTheWholeValue) {
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "3", 1);
  setenv("ASCEND_MODULE_LOG_LEVEL", "RUNTIME=0:GE", 1);
  Configure();
  EXPECT_FALSE(Enabled(Module::kRuntime, Level::kDebug));
}

TEST_F(LogTest, StdoutLineHasCannFormat) {
  setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
  setenv("ASCEND_GLOBAL_LOG_LEVEL", "1", 1);
  Configure();
  testing::internal::CaptureStdout();
  KILN_LOG(kRuntime, kInfo, "hello ", 42);
  std::string out = testing::internal::GetCapturedStdout();
  std::regex line(
      R"(\[INFO\] RUNTIME\()" + std::to_string(getpid()) +
      R"(,[^)]+\):\d{4}-\d{2}-\d{2}-\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3} \[base/log_test\.cc:\d+\]\d+ [A-Za-z_]+: hello 42\n)");
  EXPECT_TRUE(std::regex_match(out, line)) << out;
}

TEST_F(LogTest, NewStdoutVariableWinsOverDeprecatedOne) {
  setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
  setenv("ASCEND_LOG_PRINT_TO_STDOUT", "0", 1);
  Configure();
  EXPECT_NE(CurrentLogFile(), "");
}

TEST_F(LogTest, FileGoesUnderProcessLogPathInPlogLayout) {
  char dir_template[] = "/tmp/kiln-log-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  setenv("ASCEND_PROCESS_LOG_PATH", dir_template, 1);
  Configure();
  std::string path = CurrentLogFile();
  std::regex layout(std::string(dir_template) + "/debug/plog/plog-" + std::to_string(getpid()) +
                    R"(_\d{17}\.log)");
  EXPECT_TRUE(std::regex_match(path, layout)) << path;
  KILN_LOG(kAscendCl, kError, "written to a file");
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("[ERROR] ASCENDCL("), std::string::npos);
  EXPECT_NE(text.str().find("written to a file"), std::string::npos);
}

}  // namespace
}  // namespace kiln::log

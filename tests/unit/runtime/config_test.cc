// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace kiln::runtime {
namespace {

TEST(ConfigTest, EmptyTextAndEmptyObjectGiveDefaults) {
  for (const char* text : {"", "  \n", "{}"}) {
    auto c = ParseConfig(text, "acl.json");
    ASSERT_TRUE(c.ok()) << text;
    EXPECT_EQ(c->err_msg_mode, 0);
    EXPECT_FALSE(c->device_memory_limit.has_value());
  }
}

TEST(ConfigTest, ReadsKnownKeysInStringOrNumberForm) {
  auto c = ParseConfig(R"({"err_msg_mode":"1","defaultDevice":{"default_device":"0"},
                           "kiln":{"device_memory_limit":"512M"},
                           "dump":{"dump_path":"/tmp","dump_list":[{"model_name":"m"}]},"profiler":{"switch":"on"}})",
                       "acl.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->err_msg_mode, 1);
  EXPECT_EQ(c->default_device, 0);
  EXPECT_EQ(c->device_memory_limit, uint64_t{512} << 20);
  ASSERT_TRUE(c->dump.has_value());
  EXPECT_EQ(c->dump->path, "/tmp");
  EXPECT_TRUE(c->dump->outputs);
  EXPECT_FALSE(c->dump->inputs);
  EXPECT_TRUE(c->profiler.on);
  EXPECT_EQ(c->profiler.output, "");
  auto n = ParseConfig(R"({"kiln":{"device_memory_limit":1048576},"err_msg_mode":0})", "x");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->device_memory_limit, 1048576u);
}

TEST(ConfigTest, ProfilerBlockSelectsWhatIsCollected) {
  auto off = ParseConfig(R"({"profiler":{"switch":"off","output":"/tmp/p"}})", "acl.json");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->profiler.on);
  auto on = ParseConfig(R"({"profiler":{"switch":"on","output":"/tmp/p","acl_api":"off",
                            "msproftx":"off","runtime_api":"on"}})",
                        "acl.json");
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_TRUE(on->profiler.on);
  EXPECT_EQ(on->profiler.output, "/tmp/p");
  EXPECT_EQ(on->profiler.data_types, 0x0002u | 0x0100u);  // task time + runtime API
  auto bad = ParseConfig(R"({"profiler":{"switch":"maybe"}})", "acl.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), code::kParseFile);
  EXPECT_NE(bad.status().message().find("switch"), std::string::npos);
  // PROFILING_OPTIONS (msprof's environment) needs no switch.
  auto env = ParseProfilerOptions(R"({"output":"/tmp/q","task_trace":"on"})", "PROFILING_OPTIONS");
  ASSERT_TRUE(env.ok());
  EXPECT_TRUE(env->on);
  EXPECT_EQ(env->data_types, 0x0001u | 0x0002u | 0x0080u);
  EXPECT_FALSE(ParseProfilerOptions("{output", "PROFILING_OPTIONS").ok());
}

TEST(ConfigTest, DumpBlockKeysAndTheirErrors) {
  auto d = ParseDumpOptions(R"({"dump":{"dump_path":"/tmp","dump_mode":"all","dump_data":"stats",
      "dump_list":[{"model_name":"a","layer":["conv1","relu1"]},{"model_name":"b"}]}})",
                            "cfg");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->inputs && d->outputs && d->stats);
  ASSERT_EQ(d->models.size(), 2u);
  EXPECT_FALSE(d->models[0].all_layers);
  EXPECT_EQ(d->models[0].layers, (std::vector<std::string>{"conv1", "relu1"}));
  EXPECT_TRUE(d->models[1].all_layers);
  // Each bad block: the key its message must name.
  const std::pair<const char*, const char*> bad[] = {
      {R"({"other":{}})", "\"dump\""},
      {R"({"dump":{"dump_list":[{"model_name":"a"}]}})", "dump_path"},
      {R"({"dump":{"dump_path":"/no/such/dir","dump_list":[{"model_name":"a"}]}})", "dump_path"},
      {R"({"dump":{"dump_path":"/tmp"}})", "dump_list"},
      {R"({"dump":{"dump_path":"/tmp","dump_list":[]}})", "dump_list"},
      {R"({"dump":{"dump_path":"/tmp","dump_list":[{"layer":["x"]}]}})", "model_name"},
      {R"({"dump":{"dump_path":"/tmp","dump_list":[{"model_name":"a","layer":[]}]}})", "layer"},
      {R"({"dump":{"dump_path":"/tmp","dump_list":[{"model_name":"a"}],"dump_mode":"both"}})",
       "dump_mode"},
      {R"({"dump":{"dump_path":"/tmp","dump_list":[{"model_name":"a"}],"dump_data":"csv"}})",
       "dump_data"},
      {R"({"dump":{"dump_path":7,"dump_list":[{"model_name":"a"}]}})", "dump_path"},
  };
  for (const auto& [text, key] : bad) {
    auto r = ParseDumpOptions(text, "cfg");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), code::kInvalidDumpConfig) << text;
    EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status().message();
  }
  // An empty dump_list is allowed when dump_op_switch is on.
  EXPECT_TRUE(ParseDumpOptions(R"({"dump":{"dump_path":"/tmp","dump_list":[],
                                   "dump_op_switch":"on"}})",
                               "cfg")
                  .ok());
  EXPECT_EQ(ParseDumpOptions("{\"dump\":", "cfg").status().code(), code::kParseFile);
  auto in_acl_json = ParseConfig(R"({"dump":{"dump_path":"/tmp","dump_list":[]}})", "acl.json");
  EXPECT_EQ(in_acl_json.status().code(), code::kInvalidDumpConfig);
}

TEST(ConfigTest, MalformedJsonNamesTheFileAndOffset) {
  auto c = ParseConfig("{\"err_msg_mode\": }", "'/etc/acl.json'");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), code::kParseFile);
  EXPECT_NE(c.status().message().find("'/etc/acl.json'"), std::string::npos);
  EXPECT_NE(c.status().message().find("at byte"), std::string::npos);
}

TEST(ConfigTest, RejectsNestingDeeperThanTenLevels) {
  std::string deep = "{\"a\":" + std::string(10, '[') + std::string(10, ']') + "}";
  EXPECT_EQ(ParseConfig(deep, "x").status().code(), code::kParseFile);
  std::string ok = "{\"a\":" + std::string(9, '[') + std::string(9, ']') + "}";
  EXPECT_TRUE(ParseConfig(ok, "x").ok());
}

TEST(ConfigTest, RejectsBadValuesOfKnownKeys) {
  for (const char* text : {R"({"err_msg_mode":"2"})", R"({"err_msg_mode":"x"})",
                           R"({"kiln":{"device_memory_limit":"-3"}})",
                           R"({"kiln":{"device_memory_limit":0}})", R"({"kiln":5})", "[1,2]"}) {
    auto c = ParseConfig(text, "x");
    EXPECT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), code::kParseFile) << text;
  }
}

// Numbers out of range are parse errors, not exceptions: a literal too large for a double
// (nlohmann throws out_of_range for it even when asked not to throw), strings past int64, and
// device ids that are negative or past int32.
TEST(ConfigTest, NumbersOutOfRangeAreParseErrors) {
  const std::string huge = "1" + std::string(100000, '0');
  for (const std::string& text :
       {"{\"err_msg_mode\": " + huge + "}", "{\"err_msg_mode\": \"" + huge + "\"}",
        std::string(R"({"err_msg_mode": 18446744073709551615})"),
        std::string(R"({"defaultDevice": {"default_device": "-1"}})"),
        std::string(R"({"defaultDevice": {"default_device": "99999999999"}})"),
        std::string(R"({"defaultDevice": {"default_device": "zero"}})"),
        std::string(R"({"defaultDevice": {"default_device": -2}})")}) {
    auto c = ParseConfig(text, "'acl.json'");
    ASSERT_FALSE(c.ok()) << text.substr(0, 60);
    EXPECT_EQ(c.status().code(), code::kParseFile) << c.status().message();
    EXPECT_LT(c.status().message().size(), 300u) << "the message quotes the whole number";
  }
  auto ok = ParseConfig(R"({"defaultDevice": {"default_device": "3"}})", "x");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->default_device, 3);
}

// Only a regular file is read, checked on the file opened: a folder, a link to /dev/zero (which
// would read forever) and a FIFO (whose open would wait for a writer) are refused at once.
TEST(ConfigTest, OnlyARegularFileIsRead) {
  char dir[] = "/tmp/kiln-cfg-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d(dir);
  ASSERT_EQ(symlink("/dev/zero", (d + "/zero.json").c_str()), 0);
  ASSERT_EQ(mkfifo((d + "/fifo.json").c_str(), 0644), 0);
  for (const std::string& path : {d, d + "/zero.json", d + "/fifo.json"}) {
    auto c = LoadConfigFile(path);
    ASSERT_FALSE(c.ok()) << path;
    EXPECT_EQ(c.status().code(), code::kInvalidFile) << c.status().message();
    EXPECT_NE(c.status().message().find("not a regular file"), std::string::npos)
        << c.status().message();
  }
  std::remove((d + "/zero.json").c_str());
  std::remove((d + "/fifo.json").c_str());
  rmdir(dir);
}

TEST(ConfigTest, MissingFileIsInvalidFile) {
  auto c = LoadConfigFile("/nonexistent/acl.json");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), code::kInvalidFile);
}

}  // namespace
}  // namespace kiln::runtime

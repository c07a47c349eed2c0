// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Soak and stress (label `slow`; docs/testing.md): many load/execute/unload and malloc/free
// cycles with the process's resident memory sampled, and many threads running several models on
// several streams at once with every output compared bit for bit with a sequential run.
// KILN_SOAK_CYCLES scales the cycle counts (default 10000).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "tests/capi/model_test_util.h"

namespace {

using kiln::model_test::CompileOm;
using kiln::model_test::DeviceBuffer;
using kiln::model_test::IoDatasets;
using kiln::model_test::kMnistInputBytes;
using kiln::model_test::kMnistOutputBytes;
using kiln::model_test::MnistOm;
using kiln::model_test::ModelApiTest;
using kiln::model_test::ReadBytes;
using kiln::model_test::RecentErrMsg;
using kiln::model_test::WriteGatherModel;

constexpr uint64_t kMiB = uint64_t{1} << 20;

int Cycles() {
  const char* v = std::getenv("KILN_SOAK_CYCLES");
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : 10000;
}

// The process's resident set, in bytes.
uint64_t Rss() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

std::vector<uint8_t> Read(const DeviceBuffer& b) {
  std::vector<uint8_t> out(b.size());
  EXPECT_EQ(aclrtMemcpy(out.data(), out.size(), b.ptr(), b.size(), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  return out;
}

class SoakTest : public ModelApiTest {};

// Loading, running and unloading a model over and over leaves the process's memory where the
// first thousand cycles put it (caches warm), within 16 MiB; every run gives the first run's
// bytes.
TEST_F(SoakTest, LoadExecuteUnloadCyclesKeepResidentMemoryFlat) {
  const std::vector<uint8_t> om = ReadBytes(MnistOm());
  ASSERT_FALSE(om.empty());
  const int cycles = Cycles();
  const int warm = std::max(1, cycles / 10);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  std::vector<float> input(kMnistInputBytes / sizeof(float));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 7) * 0.25f;
  io.input(0).Write(input);
  std::vector<uint8_t> first;
  uint64_t rss_warm = 0, rss_max = 0;
  for (int i = 0; i < cycles; ++i) {
    uint32_t id = 0;
    ASSERT_EQ(aclmdlLoadFromMem(om.data(), om.size(), &id), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlUnload(id), ACL_SUCCESS) << RecentErrMsg();
    if (i == 0) first = Read(io.output(0));
    if (i % 97 == 0) {  // braces: ASSERT_EQ expands to an if/else (-Wdangling-else)
      ASSERT_EQ(Read(io.output(0)), first) << "cycle " << i;
    }
    if (i == warm) rss_warm = Rss();
    if (i >= warm && i % 100 == 0) rss_max = std::max(rss_max, Rss());
  }
  rss_max = std::max(rss_max, Rss());
  std::printf("%d load/execute/unload cycles: resident %.1f MiB after %d, at most %.1f MiB after\n",
              cycles, rss_warm / double(kMiB), warm, rss_max / double(kMiB));
  EXPECT_LE(rss_max, rss_warm + 16 * kMiB);
}

// Allocating, filling and freeing blocks of ever-different sizes keeps the pool (and so the
// process) within the cache bound of docs/capi.md, "Memory": the cache holds at most 256 MiB or
// the peak live bytes. The sizes sweep from 4 KiB to 64 MiB, each 15 % larger than the last (more
// than the 1/8 a cached block may be larger than a request), so no block of a sweep is reused
// within it: an unbounded cache would hold the whole sweep, about 490 MiB.
TEST_F(SoakTest, MallocFreeCyclesOfChangingSizesStayWithinTheCacheBound) {
  const int cycles = Cycles();
  std::vector<size_t> sweep;
  for (double s = 4096; s <= 64.0 * kMiB; s *= 1.15) sweep.push_back(static_cast<size_t>(s));
  const uint64_t rss_start = Rss();
  uint64_t rss_max = rss_start;
  for (int i = 0; i < cycles; ++i) {
    const size_t size = sweep[static_cast<size_t>(i) % sweep.size()];
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtMemset(p, size, i & 0xff, size), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtFree(p), ACL_SUCCESS);
    if (i % 10 == 0) rss_max = std::max(rss_max, Rss());
  }
  rss_max = std::max(rss_max, Rss());
  std::printf("%d malloc/fill/free cycles: resident %.1f MiB at start, at most %.1f MiB\n", cycles,
              rss_start / double(kMiB), rss_max / double(kMiB));
  // The cache bound, one live block of at most 65 MiB, and slack for the allocator's own pages.
  EXPECT_LE(rss_max, rss_start + 256 * kMiB + 65 * kMiB + 32 * kMiB);
}

// The byte sizes of a loaded model's inputs or outputs.
std::vector<size_t> IoBytes(aclmdlDesc* desc, bool inputs) {
  std::vector<size_t> bytes;
  const size_t n = inputs ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
  for (size_t i = 0; i < n; ++i) {
    bytes.push_back(inputs ? aclmdlGetInputSizeByIndex(desc, i)
                           : aclmdlGetOutputSizeByIndex(desc, i));
  }
  return bytes;
}

// Fills `b` with values from `seed` that the models here read as valid input: floats in [-1, 1],
// or int64 indices in [0, 5) (the gather model's rows).
void FillInput(DeviceBuffer& b, bool int64_indices, uint32_t seed) {
  std::mt19937 rng(seed);
  if (int64_indices) {
    std::vector<int64_t> v(b.size() / sizeof(int64_t));
    for (auto& x : v) x = static_cast<int64_t>(rng() % 5);
    b.Write(v.data(), b.size());
  } else {
    std::vector<float> v(b.size() / sizeof(float));
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v) x = d(rng);
    b.Write(v);
  }
}

// N threads, each with M streams, run three models over and over; every output equals, bit for
// bit, what a synchronous run of the same model on the same input gave before any concurrency.
TEST_F(SoakTest, ThreadsTimesStreamsTimesModelsMatchSequentialRunsBitForBit) {
  constexpr int kThreads = 4, kStreams = 2;
  const int rounds = std::max(10, Cycles() / 50);
  // mnist-8 (Conv, MatMul), YuNet (depthwise Conv, Concat, Resize; twelve outputs) and a Gather
  // with an int64 input.
  const std::vector<std::string> oms = {
      MnistOm(),
      CompileOm("yunet",
                std::string(KILN_SOURCE_DIR) + "/tests/data/models/yunet/yunet_n_320_320.onnx"),
      CompileOm("gather", WriteGatherModel()),
  };
  constexpr size_t kGather = 2;
  std::vector<std::unique_ptr<kiln::model_test::LoadedModel>> loaded;
  for (const auto& om : oms) {
    ASSERT_FALSE(om.empty());
    loaded.push_back(std::make_unique<kiln::model_test::LoadedModel>(om));
  }
  // Per thread, stream and model: its own datasets and input, and the expected outputs.
  struct Slot {
    std::unique_ptr<IoDatasets> io;
    size_t outputs = 0;
    std::vector<std::vector<uint8_t>> expected;
  };
  const size_t models = oms.size();
  std::vector<Slot> slots(kThreads * kStreams * models);
  for (size_t s = 0; s < slots.size(); ++s) {
    const size_t m = s % models;
    const std::vector<size_t> in = IoBytes(loaded[m]->desc(), true);
    const std::vector<size_t> out = IoBytes(loaded[m]->desc(), false);
    slots[s].io = std::make_unique<IoDatasets>(in, out);
    slots[s].outputs = out.size();
    for (size_t i = 0; i < in.size(); ++i) {
      FillInput(slots[s].io->input(i), m == kGather, static_cast<uint32_t>(s * 16 + i + 1));
    }
    ASSERT_EQ(aclmdlExecute(loaded[m]->id(), slots[s].io->in(), slots[s].io->out()), ACL_SUCCESS)
        << RecentErrMsg();
    for (size_t o = 0; o < out.size(); ++o)
      slots[s].expected.push_back(Read(slots[s].io->output(o)));
  }
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&context), ACL_SUCCESS);
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (aclrtSetCurrentContext(context) != ACL_SUCCESS) return void(++failures);
      aclrtStream streams[kStreams] = {};
      for (auto& s : streams) {
        if (aclrtCreateStream(&s) != ACL_SUCCESS) return void(++failures);
      }
      for (int r = 0; r < rounds; ++r) {
        for (size_t m = 0; m < models; ++m) {
          for (int k = 0; k < kStreams; ++k) {
            Slot& slot = slots[(t * kStreams + k) * models + m];
            // Clear the outputs first, so a run that wrote nothing cannot pass.
            for (size_t o = 0; o < slot.outputs; ++o) {
              DeviceBuffer& out = slot.io->output(o);
              if (aclrtMemset(out.ptr(), out.size(), 0xA5, out.size()) != ACL_SUCCESS) ++failures;
            }
            if (aclmdlExecuteAsync(loaded[m]->id(), slot.io->in(), slot.io->out(), streams[k]) !=
                ACL_SUCCESS) {
              ++failures;
            }
          }
          for (int k = 0; k < kStreams; ++k) {
            if (aclrtSynchronizeStream(streams[k]) != ACL_SUCCESS) ++failures;
            Slot& slot = slots[(t * kStreams + k) * models + m];
            for (size_t o = 0; o < slot.outputs; ++o) {
              if (Read(slot.io->output(o)) != slot.expected[o]) ++mismatches;
            }
          }
        }
      }
      for (auto& s : streams) {
        if (aclrtDestroyStream(s) != ACL_SUCCESS) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  std::printf("%d threads x %d streams x %zu models x %d rounds: %d mismatches, %d failed calls\n",
              kThreads, kStreams, models, rounds, mismatches.load(), failures.load());
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace

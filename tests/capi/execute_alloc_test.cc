// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A static model's aclmdlExecute allocates nothing and runs no shape function per node
// (docs/design.md §5): the executor binds every tensor at load and the kernels only compute.
// This binary replaces malloc and its family with counting versions (forwarding to glibc's
// __libc_* functions) and counts, while a window is open, every heap allocation made by any
// thread, each attributed by its call stack: to oneDNN when it happens inside
// dnnl_primitive_execute (which builds a std::unordered_map of the arguments per call inside the
// library, whatever the caller does), else to Kiln — memory objects and streams a kernel makes
// per run count as Kiln's. Sanitizer builds replace malloc themselves, so there the tests skip.
// A failure prints Kiln's first stacks; `addr2line -f -C -e <test binary> <offset>` names the
// frames of static functions.
#include <dlfcn.h>
#include <execinfo.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernels/definition.h"
#include "tests/capi/model_test_util.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KILN_COUNTING_MALLOC 0
#else
#define KILN_COUNTING_MALLOC 1
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_kiln{0}, g_onednn{0};
thread_local bool t_in_hook = false;
std::mutex g_first_mu;
std::vector<std::string> g_first_stacks;  // the first few of Kiln's, symbolized

bool InOneDnn(void* const* frames, int n) {
  for (int i = 0; i < n; ++i) {
    Dl_info info;
    if (dladdr(frames[i], &info) != 0 && info.dli_sname != nullptr &&
        std::strcmp(info.dli_sname, "dnnl_primitive_execute") == 0) {
      return true;
    }
  }
  return false;
}

void NoteAllocation() {
  if (!g_counting.load(std::memory_order_relaxed) || t_in_hook) return;
  t_in_hook = true;
  void* frames[64];
  const int n = backtrace(frames, 64);
  if (InOneDnn(frames, n)) {
    ++g_onednn;
  } else if (++g_kiln <= 3) {
    char** names = backtrace_symbols(frames, n);
    std::string stack;
    for (int i = 1; names != nullptr && i < n && i < 16; ++i) stack += std::string(names[i]) + "\n";
    std::free(names);
    std::lock_guard<std::mutex> lock(g_first_mu);
    g_first_stacks.push_back(stack);
  }
  t_in_hook = false;
}

}  // namespace

#if KILN_COUNTING_MALLOC
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t n) {
  NoteAllocation();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  NoteAllocation();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  NoteAllocation();
  return __libc_realloc(p, n);
}
void* memalign(size_t alignment, size_t n) {
  NoteAllocation();
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  NoteAllocation();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  NoteAllocation();
  *out = __libc_memalign(alignment, n);
  return *out != nullptr ? 0 : ENOMEM;
}
void free(void* p) { __libc_free(p); }
}
#endif

namespace kiln::model_test {
namespace {

struct Counts {
  int64_t kiln = 0, onednn = 0;
  uint64_t shape_functions = 0;
};

// Runs `run` `times` times inside the counting window.
template <typename F>
Counts Count(int times, F run) {
  void* warm[4];
  backtrace(warm, 4);  // loads the unwinder before the window opens
  g_kiln = g_onednn = 0;
  const uint64_t shapes = kernels::ShapeFunctionRuns();
  g_counting = true;
  for (int i = 0; i < times; ++i) run();
  g_counting = false;
  return Counts{g_kiln.load(), g_onednn.load(), kernels::ShapeFunctionRuns() - shapes};
}

std::string FirstStacks() {
  std::string s;
  for (const std::string& stack : g_first_stacks) s += "--- allocation:\n" + stack;
  return s;
}

class ExecuteAllocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KILN_COUNTING_MALLOC) GTEST_SKIP() << "sanitizers replace malloc themselves";
    // A fixed spin policy: the spin governor parks and unparks on a thread of its own when
    // the machine's load changes (spin_governor.h), which starts a thread; on a loaded test
    // machine that could fall inside the window, and it is not the executions' doing.
    setenv("KILN_CPU_SPIN", "0", 1);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentErrMsg();
  }
  void TearDown() override {
    if (!KILN_COUNTING_MALLOC) return;
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

// x [1,8,16,16] → Sigmoid → Mul(x, ·) → Transpose(0,2,3,1) → Reshape [1,256,8] → Concat with
// itself on axis 2 → y [1,256,16]: every op has a kernel of Kiln's own on the CPU.
std::string WriteKilnKernelsModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("kiln_kernels");
  auto node = [&](const char* op, std::vector<std::string> in, const char* out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(std::string(op) + "_node");
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  node("Sigmoid", {"x"}, "s");
  node("Mul", {"x", "s"}, "m");
  onnx::NodeProto* t = node("Transpose", {"m"}, "t");
  auto* perm = t->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {0, 2, 3, 1}) perm->add_ints(p);
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t d : {1, 256, 8}) shape->add_int64_data(d);
  node("Reshape", {"t", "shape"}, "r");
  onnx::NodeProto* c = node("Concat", {"r", "r"}, "y");
  auto* axis = c->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(2);
  auto value = [](onnx::ValueInfoProto* v, const char* name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", {1, 8, 16, 16});
  value(g->add_output(), "y", {1, 256, 16});
  std::string path = ScratchDir() + "/kiln_kernels.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out));
  return path;
}

TEST_F(ExecuteAllocTest, AStaticModelOfKilnKernelsAllocatesNothingPerExecute) {
  const std::string om = CompileOm("kiln_kernels", WriteKilnKernelsModel());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  IoDatasets io({8 * 16 * 16 * sizeof(float)}, {256 * 16 * sizeof(float)});
  std::vector<float> x(8 * 16 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.01f * static_cast<float>(i % 113) - 0.5f;
  io.input(0).Write(x);
  auto run = [&] { ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS); };
  run();  // the first run may set up what later runs reuse
  Counts c = Count(20, run);
  EXPECT_EQ(c.kiln + c.onednn, 0) << FirstStacks();
  EXPECT_EQ(c.shape_functions, 0u);
  // The runs computed: y[0, p, 0:8] is x's channel vector at pixel p, times its sigmoid.
  std::vector<float> y = io.output(0).ReadFloats(256 * 16);
  for (int p = 0; p < 256; p += 37) {
    for (int ch = 0; ch < 8; ++ch) {
      const float v = x[static_cast<size_t>(ch * 256 + p)];
      const float want = v / (1.0f + std::exp(-v));
      ASSERT_NEAR(y[static_cast<size_t>(p * 16 + ch)], want, 1e-5f) << "pixel " << p;
      ASSERT_NEAR(y[static_cast<size_t>(p * 16 + 8 + ch)], want, 1e-5f) << "pixel " << p;
    }
  }
}

TEST_F(ExecuteAllocTest, MnistAllocatesOnlyInsideOneDnnPerExecute) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  MnistCase mc = LoadMnistCase(0);
  io.input(0).Write(mc.input);
  auto run = [&] { ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS); };
  run();
  Counts c = Count(20, run);
  EXPECT_EQ(c.kiln, 0) << FirstStacks();
  EXPECT_EQ(c.shape_functions, 0u);
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), mc.expected, {1, 10}));
  std::printf("mnist-8: %lld allocations per execute inside oneDNN, %lld in Kiln\n",
              static_cast<long long>(c.onednn / 20), static_cast<long long>(c.kiln / 20));
}

}  // namespace
}  // namespace kiln::model_test

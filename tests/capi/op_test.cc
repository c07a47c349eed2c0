// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The single-operator API (acl_op.h, acl_op_compiler.h) through the public headers, linked as CANN
// programs link it (-lacl_op_compiler -lascendcl). Models come from aclopCompile, from
// aclopLoad / aclopSetModelDir of files the compiler facade writes as `kiln atc --singleop` does.
// Expected values are worked by hand or by plain loops in the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "compiler/single_op.h"

namespace {

std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

int64_t Dim(const aclTensorDesc* desc, size_t i) {
  int64_t v = -100;
  EXPECT_EQ(aclGetTensorDescDimV2(desc, i, &v), ACL_SUCCESS);
  return v;
}

// A device tensor: desc, buffer and memory.
struct Tensor {
  aclTensorDesc* desc = nullptr;
  aclDataBuffer* buffer = nullptr;
  void* dev = nullptr;
  size_t bytes = 0;

  Tensor(aclDataType t, std::vector<int64_t> dims, aclFormat f = ACL_FORMAT_ND) {
    desc = aclCreateTensorDesc(t, static_cast<int>(dims.size()), dims.data(), f);
    bytes = aclGetTensorDescSize(desc);
    if (bytes > 0) {
      EXPECT_EQ(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    buffer = aclCreateDataBuffer(dev, bytes);
  }
  ~Tensor() {
    aclDestroyDataBuffer(buffer);
    aclDestroyTensorDesc(desc);
    if (dev) aclrtFree(dev);
  }
  template <typename T>
  void Set(const std::vector<T>& v) {
    ASSERT_EQ(v.size() * sizeof(T), bytes);
    ASSERT_EQ(aclrtMemcpy(dev, bytes, v.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  template <typename T>
  std::vector<T> Get() const {
    std::vector<T> v(bytes / sizeof(T));
    EXPECT_EQ(aclrtMemcpy(v.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return v;
  }
};

class OpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    attr_ = aclopCreateAttr();
    ASSERT_NE(attr_, nullptr);
  }
  void TearDown() override {
    aclopDestroyAttr(attr_);
    aclrtDestroyStream(stream_);
    aclrtResetDevice(0);
    aclFinalize();
  }

  // Compiles opType for the tensors' descs and the attributes.
  aclError Compile(const char* op, std::vector<Tensor*> in, std::vector<Tensor*> out) {
    std::vector<const aclTensorDesc*> id, od;
    for (auto* t : in) id.push_back(t->desc);
    for (auto* t : out) od.push_back(t->desc);
    return aclopCompile(op, static_cast<int>(id.size()), id.data(), static_cast<int>(od.size()),
                        od.data(), attr_, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr);
  }
  aclError Run(const char* op, std::vector<Tensor*> in, std::vector<Tensor*> out, aclopAttr* attr) {
    std::vector<aclTensorDesc*> id, od;
    std::vector<aclDataBuffer*> ib, ob;
    for (auto* t : in) {
      id.push_back(t->desc);
      ib.push_back(t->buffer);
    }
    for (auto* t : out) {
      od.push_back(t->desc);
      ob.push_back(t->buffer);
    }
    aclError e = aclopExecuteV2(op, static_cast<int>(id.size()), id.data(), ib.data(),
                                static_cast<int>(od.size()), od.data(), ob.data(), attr, stream_);
    if (e != ACL_SUCCESS) return e;
    return aclrtSynchronizeStream(stream_);
  }
  aclError Run(const char* op, std::vector<Tensor*> in, std::vector<Tensor*> out) {
    return Run(op, in, out, attr_);
  }

  aclrtStream stream_ = nullptr;
  aclopAttr* attr_ = nullptr;
};

TEST_F(OpTest, AttrSettersCheckTheirArguments) {
  EXPECT_EQ(aclopSetAttrInt(nullptr, "a", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrInt(attr_, nullptr, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrInt(attr_, "", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrString(attr_, "s", nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrListInt(attr_, "l", 2, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopSetAttrListInt(attr_, "l", -1, nullptr), ACL_ERROR_INVALID_PARAM);
  const char* strings[] = {"a", nullptr};
  EXPECT_EQ(aclopSetAttrListString(attr_, "s", 2, strings), ACL_ERROR_INVALID_PARAM);
  const int64_t row0[] = {1, 2};
  const int64_t* rows[] = {row0, nullptr};
  const int counts[] = {2, 1};
  EXPECT_EQ(aclopSetAttrListListInt(attr_, "ll", 2, counts, rows), ACL_ERROR_INVALID_PARAM);
  const int ok_counts[] = {2, 0};
  EXPECT_EQ(aclopSetAttrListListInt(attr_, "ll", 2, ok_counts, rows), ACL_SUCCESS);
  const aclDataType types[] = {ACL_FLOAT, ACL_INT32};
  EXPECT_EQ(aclopSetAttrListDataType(attr_, "t", 2, types), ACL_SUCCESS);
  aclopAttr* dead = aclopCreateAttr();
  aclopDestroyAttr(dead);
  EXPECT_EQ(aclopSetAttrBool(dead, "b", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "not a live aclopAttr"));
  aclopDestroyAttr(nullptr);  // allowed
}

TEST_F(OpTest, CompiledAddBroadcastsAndRunsOnTheStream) {
  Tensor a(ACL_FLOAT, {2, 3}), b(ACL_FLOAT, {3}), y(ACL_FLOAT, {2, 3});
  ASSERT_EQ(Compile("Add", {&a, &b}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  a.Set<float>({1, 2, 3, 4, 5, 6});
  b.Set<float>({10, 20, 30});
  ASSERT_EQ(Run("Add", {&a, &b}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(y.Get<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  // The deprecated form runs the same model.
  const aclTensorDesc* id[] = {a.desc, b.desc};
  const aclDataBuffer* ib[] = {a.buffer, b.buffer};
  const aclTensorDesc* od[] = {y.desc};
  aclDataBuffer* ob[] = {y.buffer};
  b.Set<float>({-1, -2, -3});
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  ASSERT_EQ(aclopExecute("Add", 2, id, ib, 1, od, ob, attr_, stream_), ACL_SUCCESS);
#pragma GCC diagnostic pop
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(y.Get<float>(), (std::vector<float>{0, 0, 0, 3, 3, 3}));
}

TEST_F(OpTest, ModelsOutliveADeviceResetAndLoadAgain) {
  Tensor a(ACL_INT32, {4}), y(ACL_INT32, {4});
  ASSERT_EQ(Compile("Neg", {&a}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  a.Set<int32_t>({1, -2, 3, 0});
  ASSERT_EQ(Run("Neg", {&a}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(y.Get<int32_t>(), (std::vector<int32_t>{-1, 2, -3, 0}));
  // The reset takes the device's memory (the loaded operator's too); the registration stays.
  ASSERT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  Tensor b(ACL_INT32, {4}), z(ACL_INT32, {4});
  b.Set<int32_t>({5, 6, -7, 8});
  ASSERT_EQ(Run("Neg", {&b}, {&z}), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(z.Get<int32_t>(), (std::vector<int32_t>{-5, -6, 7, -8}));
}

TEST_F(OpTest, ACallMatchesOnlyTheExactDescsAndAttributes) {
  Tensor x(ACL_FLOAT, {4}), y(ACL_FLOAT16, {4});
  ASSERT_EQ(aclopSetAttrInt(attr_, "dst_type", ACL_FLOAT16), ACL_SUCCESS);
  ASSERT_EQ(Compile("Cast", {&x}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  x.Set<float>({1.5f, -2.0f, 0.25f, 65504.0f});
  ASSERT_EQ(Run("Cast", {&x}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  std::vector<uint16_t> h = y.Get<uint16_t>();
  EXPECT_EQ(h, (std::vector<uint16_t>{0x3E00, 0xC000, 0x3400, 0x7BFF}));

  // No model of the type.
  EXPECT_EQ(Run("Sub", {&x, &x}, {&x}), ACL_ERROR_OP_NOT_FOUND);
  EXPECT_TRUE(Contains(RecentErrMsg(), "no single-op model of type 'Sub'"));
  // An input of another type, format or shape.
  Tensor x_int(ACL_INT32, {4}), x_nchw(ACL_FLOAT, {4}, ACL_FORMAT_NCHW), x5(ACL_FLOAT, {5});
  EXPECT_EQ(Run("Cast", {&x_int}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "input 0 is int32 ND [4]; the model takes float32 ND [4]"));
  EXPECT_EQ(Run("Cast", {&x_nchw}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_EQ(Run("Cast", {&x5}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH);
  // An output of another shape (CANN compares the declared output too).
  Tensor y1(ACL_FLOAT16, {1, 4});
  EXPECT_EQ(Run("Cast", {&x}, {&y1}), ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "output 0"));
  // Attributes: missing, another value, another kind, one more.
  aclopAttr* other = aclopCreateAttr();
  EXPECT_EQ(Run("Cast", {&x}, {&y}, other), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "does not set attribute 'dst_type'"));
  ASSERT_EQ(aclopSetAttrInt(other, "dst_type", ACL_INT32), ACL_SUCCESS);
  EXPECT_EQ(Run("Cast", {&x}, {&y}, other), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(),
                       "attribute 'dst_type' differs: the call has int 3, the model int 1"));
  ASSERT_EQ(aclopSetAttrDataType(other, "dst_type", ACL_FLOAT16), ACL_SUCCESS);
  EXPECT_EQ(Run("Cast", {&x}, {&y}, other), ACL_ERROR_OP_ATTR_NOT_MATCH);
  ASSERT_EQ(aclopSetAttrInt(other, "dst_type", ACL_FLOAT16), ACL_SUCCESS);
  EXPECT_EQ(Run("Cast", {&x}, {&y}, other), ACL_SUCCESS);
  ASSERT_EQ(aclopSetAttrBool(other, "truncate", 0), ACL_SUCCESS);
  EXPECT_EQ(Run("Cast", {&x}, {&y}, other), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "sets attribute 'truncate'"));
  aclopDestroyAttr(other);
  // A dead desc and a negative count are argument errors; the process goes on.
  EXPECT_EQ(aclopExecuteV2("Cast", -1, nullptr, nullptr, 0, nullptr, nullptr, attr_, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(Run("Cast", {&x}, {&y}), ACL_SUCCESS);
}

TEST_F(OpTest, CompileRefusesUnknownOperatorsAndBadAttributesByName) {
  Tensor x(ACL_FLOAT, {2, 2}), y(ACL_FLOAT, {2, 2});
  EXPECT_EQ(Compile("NoSuchOp", {&x}, {&y}), ACL_ERROR_OP_NOT_FOUND);
  EXPECT_TRUE(Contains(RecentErrMsg(), "'NoSuchOp' is not in Kiln's CANN operator table"));
  // TransposeD needs perm (list_int).
  EXPECT_EQ(Compile("TransposeD", {&x}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "attribute 'perm' (list_int) is required"));
  ASSERT_EQ(aclopSetAttrInt(attr_, "perm", 1), ACL_SUCCESS);
  EXPECT_EQ(Compile("TransposeD", {&x}, {&y}), ACL_ERROR_OP_ATTR_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "attribute 'perm' must be list_int, not int"));
  // A declared output the operator cannot make.
  const int64_t perm[] = {1, 0};
  ASSERT_EQ(aclopSetAttrListInt(attr_, "perm", 2, perm), ACL_SUCCESS);
  Tensor wrong(ACL_FLOAT, {3, 2});
  EXPECT_EQ(Compile("TransposeD", {&x}, {&wrong}), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "output 0 is declared [3,2] but the operator makes [2,2]"));
  EXPECT_EQ(Compile("TransposeD", {&x}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  // Custom operators and kernel binaries are not supported.
  const aclTensorDesc* d[] = {x.desc};
  EXPECT_EQ(
      aclopCompile("Add", 1, d, 1, d, nullptr, ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, "/tmp/op"),
      ACL_ERROR_API_NOT_SUPPORT);
  EXPECT_EQ(
      aclopCompile("Add", 1, d, 1, d, nullptr, ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, nullptr),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopCreateKernel("Add", "k", "k", nullptr, 0, ACL_ENGINE_AICORE, nullptr),
            ACL_ERROR_API_NOT_SUPPORT);
}

TEST_F(OpTest, TransposeReduceAndSoftmaxGiveWorkedValues) {
  Tensor x(ACL_FLOAT, {2, 3}), t(ACL_FLOAT, {3, 2});
  x.Set<float>({1, 2, 3, 4, 5, 6});
  const int64_t perm[] = {1, 0};
  ASSERT_EQ(aclopSetAttrListInt(attr_, "perm", 2, perm), ACL_SUCCESS);
  ASSERT_EQ(Compile("TransposeD", {&x}, {&t}), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(Run("TransposeD", {&x}, {&t}), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(t.Get<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));

  aclopAttr* r = aclopCreateAttr();
  const int64_t axes[] = {1};
  ASSERT_EQ(aclopSetAttrListInt(r, "axes", 1, axes), ACL_SUCCESS);
  ASSERT_EQ(aclopSetAttrBool(r, "keep_dims", 1), ACL_SUCCESS);
  Tensor s(ACL_FLOAT, {2, 1});
  const aclTensorDesc* id[] = {x.desc};
  const aclTensorDesc* od[] = {s.desc};
  ASSERT_EQ(aclopCompile("ReduceSumD", 1, id, 1, od, r, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(Run("ReduceSumD", {&x}, {&s}, r), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(s.Get<float>(), (std::vector<float>{6, 15}));
  aclopDestroyAttr(r);

  // SoftmaxV2 over the last axis: exp(v - max) / sum.
  Tensor p(ACL_FLOAT, {2, 3});
  aclopAttr* none = aclopCreateAttr();
  const aclTensorDesc* pd[] = {p.desc};
  ASSERT_EQ(aclopCompile("SoftmaxV2", 1, id, 1, pd, none, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(Run("SoftmaxV2", {&x}, {&p}, none), ACL_SUCCESS) << RecentErrMsg();
  const float e1 = std::exp(-2.0f), e2 = std::exp(-1.0f), sum = e1 + e2 + 1.0f;
  std::vector<float> got = p.Get<float>();
  const float want[] = {e1 / sum, e2 / sum, 1 / sum};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i % 3], 1e-6f) << i;
  aclopDestroyAttr(none);
}

TEST_F(OpTest, DynamicModelServesShapesInItsRangesAndV2WritesTheDims) {
  const int64_t dyn[] = {-1, 4};
  int64_t range[2][2] = {{1, 8}, {4, 4}};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_INT64, 2, dyn, ACL_FORMAT_ND);
  ASSERT_EQ(aclSetTensorShapeRange(d, 2, range), ACL_SUCCESS);
  const aclTensorDesc* id[] = {d, d};
  const aclTensorDesc* od[] = {d};
  ASSERT_EQ(aclopCompile("Add", 2, id, 1, od, nullptr, ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr),
            ACL_SUCCESS)
      << RecentErrMsg();
  aclDestroyTensorDesc(d);
  for (int64_t rows : {1, 3, 8}) {
    Tensor a(ACL_INT64, {rows, 4}), y(ACL_INT64, {rows, 4});
    std::vector<int64_t> v(static_cast<size_t>(rows * 4));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i) * 3 - 7;
    a.Set(v);
    ASSERT_EQ(Run("Add", {&a, &a}, {&y}, nullptr), ACL_SUCCESS) << rows << RecentErrMsg();
    std::vector<int64_t> got = y.Get<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], 2 * v[i]);
    EXPECT_EQ(Dim(y.desc, 0), rows);
  }
  Tensor big(ACL_INT64, {9, 4});
  EXPECT_EQ(Run("Add", {&big, &big}, {&big}, nullptr), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_TRUE(Contains(RecentErrMsg(), "the model takes int64 ND [-1,4]"));
}

TEST_F(OpTest, HandlesMatchOnceAndCheckTheirCounts) {
  Tensor a(ACL_FLOAT, {3}), b(ACL_FLOAT, {3}), y(ACL_FLOAT, {3});
  ASSERT_EQ(Compile("Mul", {&a, &b}, {&y}), ACL_SUCCESS) << RecentErrMsg();
  const aclTensorDesc* id[] = {a.desc, b.desc};
  const aclTensorDesc* od[] = {y.desc};
  aclopHandle* h = nullptr;
  ASSERT_EQ(aclopCreateHandle("Mul", 2, id, 1, od, attr_, &h), ACL_SUCCESS) << RecentErrMsg();
  a.Set<float>({1, 2, 3});
  b.Set<float>({4, 5, 6});
  const aclDataBuffer* ib[] = {a.buffer, b.buffer};
  aclDataBuffer* ob[] = {y.buffer};
  ASSERT_EQ(aclopExecWithHandle(h, 2, ib, 1, ob, stream_), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(y.Get<float>(), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(aclopExecWithHandle(h, 1, ib, 1, ob, stream_), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_EQ(aclopExecWithHandle(h, 2, ib, 2, ob, stream_), ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  aclopDestroyHandle(h);
  EXPECT_EQ(aclopExecWithHandle(h, 2, ib, 1, ob, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclopExecWithHandle(nullptr, 2, ib, 1, ob, stream_), ACL_ERROR_INVALID_PARAM);
  // No model: the handle is refused with the matching code; a host input is not supported.
  EXPECT_EQ(aclopCreateHandle("Mul", 1, id, 1, od, attr_, &h), ACL_ERROR_OP_INPUT_NOT_MATCH);
  ASSERT_EQ(aclSetTensorPlaceMent(a.desc, ACL_MEMTYPE_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclopCreateHandle("Mul", 2, id, 1, od, attr_, &h), ACL_ERROR_API_NOT_SUPPORT);
}

TEST_F(OpTest, InferShapeFollowsTheOperatorsRule) {
  Tensor a(ACL_FLOAT, {2, 1, 4}), b(ACL_FLOAT, {3, 1});
  aclTensorDesc* out = aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, nullptr, ACL_FORMAT_UNDEFINED);
  aclTensorDesc* id[] = {a.desc, b.desc};
  aclDataBuffer* ib[] = {a.buffer, b.buffer};
  aclTensorDesc* od[] = {out};
  ASSERT_EQ(aclopInferShape("Add", 2, id, ib, 1, od, attr_), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclGetTensorDescType(out), ACL_FLOAT);
  ASSERT_EQ(aclGetTensorDescNumDims(out), 3u);
  EXPECT_EQ(Dim(out, 0), 2);
  EXPECT_EQ(Dim(out, 1), 3);
  EXPECT_EQ(Dim(out, 2), 4);
  // A dynamic input gives -1 where the rule cannot tell.
  const int64_t dyn[] = {-1, 4};
  aclTensorDesc* d = aclCreateTensorDesc(ACL_FLOAT, 2, dyn, ACL_FORMAT_ND);
  aclTensorDesc* dd[] = {d, d};
  aclDataBuffer* none[] = {nullptr, nullptr};
  ASSERT_EQ(aclopInferShape("Mul", 2, dd, none, 1, od, attr_), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(Dim(out, 0), -1);
  EXPECT_EQ(Dim(out, 1), 4);
  EXPECT_EQ(aclopInferShape("NoSuchOp", 2, dd, none, 1, od, attr_), ACL_ERROR_OP_NOT_FOUND);
  aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out);
}

TEST_F(OpTest, CompileAndExecuteCompilesOnceAndTakesAHostAxis) {
  // ArgMaxV2 with its dimension in host memory (compiled as a constant of its value).
  Tensor x(ACL_FLOAT, {2, 5}), y(ACL_INT32, {2});
  x.Set<float>({0, 9, 1, 9, 2, 7, 1, 8, 3, 8});
  int32_t axis = 1;
  aclTensorDesc* ad = aclCreateTensorDesc(ACL_INT32, 0, nullptr, ACL_FORMAT_ND);
  ASSERT_EQ(aclSetTensorPlaceMent(ad, ACL_MEMTYPE_HOST), ACL_SUCCESS);
  aclDataBuffer* ab = aclCreateDataBuffer(&axis, sizeof axis);
  ASSERT_EQ(aclopSetAttrDataType(attr_, "dtype", ACL_INT32), ACL_SUCCESS);
  aclTensorDesc* id[] = {x.desc, ad};
  aclDataBuffer* ib[] = {x.buffer, ab};
  aclTensorDesc* od[] = {y.desc};
  aclDataBuffer* ob[] = {y.buffer};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(aclopCompileAndExecuteV2("ArgMaxV2", 2, id, ib, 1, od, ob, attr_, ACL_ENGINE_SYS,
                                       ACL_COMPILE_SYS, nullptr, stream_),
              ACL_SUCCESS)
        << RecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(y.Get<int32_t>(), (std::vector<int32_t>{1, 2}));  // the first of tied maxima
  }
  // The model it compiled serves aclopExecuteV2 too (the host axis is matched as a constant).
  ASSERT_EQ(aclopExecuteV2("ArgMaxV2", 2, id, ib, 1, od, ob, attr_, stream_), ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  aclDestroyDataBuffer(ab);
  aclDestroyTensorDesc(ad);
}

// Writes `json`'s operators as `kiln atc --singleop` does (the compiler facade) into `dir`.
void WriteModels(const std::string& dir, const std::string& json) {
  auto ops = kiln::compiler::ParseSingleOpList(json);
  ASSERT_TRUE(ops.ok()) << ops.status().message();
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < ops->size(); ++i) {
    auto bytes = kiln::compiler::CompileSingleOp((*ops)[i]);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    std::ofstream out(dir + "/" + kiln::compiler::SingleOpFileName((*ops)[i], i), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()),
              static_cast<std::streamsize>(bytes->size()));
  }
}

// CANN's classification sample's op_list.json: Cast float → float16 with truncate and dst_type,
// ArgMaxD over 1000 scores into an int32 [1].
constexpr const char* kSampleOps = R"([
  {"op": "Cast",
   "input_desc": [{"format": "ND", "shape": [1000], "type": "float"}],
   "output_desc": [{"format": "ND", "shape": [1000], "type": "float16"}],
   "attr": [{"name": "truncate", "type": "bool", "value": false},
            {"name": "dst_type", "type": "int", "value": 1}]},
  {"op": "ArgMaxD",
   "input_desc": [{"format": "ND", "shape": [1000], "type": "float16"}],
   "output_desc": [{"format": "ND", "shape": [1], "type": "int32"}],
   "attr": [{"name": "dimension", "type": "int", "value": 0}]}
])";

TEST_F(OpTest, ModelDirServesCastAndArgMaxLikeCannsClassificationSample) {
  const std::string dir =
      ::testing::TempDir() + "kiln_op_test_" + std::to_string(getpid()) + "/op_models";
  WriteModels(dir + "/sub", kSampleOps);             // one level below the folder: still read
  std::ofstream(dir + "/junk.om") << "not a model";  // skipped
  EXPECT_EQ(aclopSetModelDir("/no/such/folder"), ACL_ERROR_READ_MODEL_FAILURE);
  ASSERT_EQ(aclopSetModelDir(dir.c_str()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclopSetModelDir(dir.c_str()), ACL_ERROR_REPEAT_INITIALIZE);

  Tensor scores(ACL_FLOAT, {1000}), half(ACL_FLOAT16, {1000}), index(ACL_INT32, {1});
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f);
  v[613] = 4.5f;
  scores.Set(v);
  // aclopCast adds truncate because the loaded Cast model has it.
  ASSERT_EQ(aclopCast(scores.desc, scores.buffer, half.desc, half.buffer, 0, stream_), ACL_SUCCESS)
      << RecentErrMsg();
  aclopAttr* a = aclopCreateAttr();
  ASSERT_EQ(aclopSetAttrInt(a, "dimension", 0), ACL_SUCCESS);
  aclTensorDesc* id[] = {half.desc};
  aclDataBuffer* ib[] = {half.buffer};
  aclTensorDesc* od[] = {index.desc};
  aclDataBuffer* ob[] = {index.buffer};
  ASSERT_EQ(aclopExecuteV2("ArgMaxD", 1, id, ib, 1, od, ob, a, stream_), ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(index.Get<int32_t>(), std::vector<int32_t>{613});
  EXPECT_EQ(half.Get<uint16_t>()[613], 0x4480);  // 4.5 in binary16
  aclopDestroyAttr(a);
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST_F(OpTest, LoadTakesModelsFromMemoryAndRefusesOtherBytes) {
  EXPECT_EQ(aclopLoad(nullptr, 10), ACL_ERROR_INVALID_PARAM);
  const char junk[] = "KILN? no";
  EXPECT_EQ(aclopLoad(junk, sizeof junk), ACL_ERROR_OP_LOAD_FAILED);
  auto ops = kiln::compiler::ParseSingleOpList(kSampleOps);
  ASSERT_TRUE(ops.ok());
  auto bytes = kiln::compiler::CompileSingleOp((*ops)[0]);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  ASSERT_EQ(aclopLoad(bytes->data(), bytes->size()), ACL_SUCCESS) << RecentErrMsg();
  Tensor x(ACL_FLOAT, {1000}), y(ACL_FLOAT16, {1000});
  std::vector<float> v(1000, 0.5f);
  x.Set(v);
  aclopHandle* h = nullptr;
  ASSERT_EQ(aclopCreateHandleForCast(x.desc, y.desc, 0, &h), ACL_SUCCESS) << RecentErrMsg();
  const aclDataBuffer* ib[] = {x.buffer};
  aclDataBuffer* ob[] = {y.buffer};
  ASSERT_EQ(aclopExecWithHandle(h, 1, ib, 1, ob, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(y.Get<uint16_t>(), std::vector<uint16_t>(1000, 0x3800));
  aclopDestroyHandle(h);
}

TEST_F(OpTest, CompileOptionsFollowCann) {
  EXPECT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclSetCompileopt(ACL_AUTO_TUNE_MODE, "RL"), ACL_ERROR_FEATURE_UNSUPPORTED);
  EXPECT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"), ACL_SUCCESS);
  EXPECT_EQ(aclGetCompileoptSize(ACL_OP_JIT_COMPILE), 256u);
  char v[256];
  ASSERT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, v, sizeof v), ACL_SUCCESS);
  EXPECT_STREQ(v, "enable");
  EXPECT_EQ(aclSetCompileopt(ACL_OP_JIT_COMPILE, "maybe"), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"), ACL_SUCCESS);
  ASSERT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, v, sizeof v), ACL_SUCCESS);
  EXPECT_STREQ(v, "disable");
  EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, v, 3), ACL_ERROR_FAILURE);
  EXPECT_EQ(aclGetCompileopt(ACL_PRECISION_MODE, v, sizeof v), ACL_ERROR_API_NOT_SUPPORT);
  EXPECT_EQ(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ), ACL_SUCCESS);
  aclGraphDumpOption* opt = aclCreateGraphDumpOpt();
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(aclDestroyGraphDumpOpt(opt), ACL_SUCCESS);
}

}  // namespace

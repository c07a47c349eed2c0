// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests for contexts (docs: ascendcl-reference.md §1.2, §1.3, §2).
#include <gtest/gtest.h>

#include <thread>

#include "acl/acl.h"

namespace {

class ContextTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { EXPECT_EQ(aclFinalize(), ACL_SUCCESS); }
};

}  // namespace

TEST_F(ContextTest, CreateContextMakesItCurrent) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  ASSERT_NE(ctx, nullptr);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, ctx);
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
}

TEST_F(ContextTest, CreateContextRejectsNullOutputAndBadDevice) {
  EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  aclrtContext ctx = nullptr;
  EXPECT_EQ(aclrtCreateContext(&ctx, 99), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(ContextTest, GetCurrentContextWithoutOneFailsWithContextNull) {
  aclrtContext ctx = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&ctx), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ContextTest, SetCurrentContextSwitchesBetweenContexts) {
  aclrtContext first = nullptr, second = nullptr;
  ASSERT_EQ(aclrtCreateContext(&first, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&second, 0), ACL_SUCCESS);
  EXPECT_NE(first, second);
  ASSERT_EQ(aclrtSetCurrentContext(first), ACL_SUCCESS);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, first);
  EXPECT_EQ(aclrtDestroyContext(second), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(first), ACL_SUCCESS);
}

TEST_F(ContextTest, DestroyingTheDefaultContextFailsWithInvalidParam) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext def = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&def), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(def), ACL_ERROR_INVALID_PARAM);
  void* ptr = nullptr;  // the default context is still usable
  EXPECT_EQ(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}

TEST_F(ContextTest, DestroyingAContextTwiceFailsWithInvalidHandle) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(ContextTest, DestroyingNullFailsWithInvalidParam) {
  EXPECT_EQ(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ContextTest, SetCurrentContextToNullFailsWithInvalidParam) {
  EXPECT_EQ(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ContextTest, SetCurrentContextToADestroyedContextFailsWithInvalidHandle) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(ContextTest, CreateStreamAfterDestroyingTheCurrentContextFailsWithContextNull) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(ContextTest, NewThreadHasNoContextUntilItSetsOne) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  aclError before = -1, set = -1, after = -1, destroy = -1;
  aclrtContext seen = nullptr;
  std::thread worker([&] {
    aclrtStream stream = nullptr;
    before = aclrtCreateStream(&stream);
    set = aclrtSetCurrentContext(ctx);
    aclrtGetCurrentContext(&seen);
    after = aclrtCreateStream(&stream);
    destroy = aclrtDestroyStream(stream);
  });
  worker.join();
  EXPECT_EQ(before, ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(set, ACL_SUCCESS);
  EXPECT_EQ(seen, ctx);
  EXPECT_EQ(after, ACL_SUCCESS);
  EXPECT_EQ(destroy, ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
}

TEST_F(ContextTest, StreamsOfADestroyedContextBecomeInvalid) {
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
}

TEST_F(ContextTest, SysParamOptReadsBackTheValueSet) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  int64_t value = -1;
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
}

TEST_F(ContextTest, SysParamOptNeverSetFailsWithNotSet) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int64_t value = 0;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021);
}

TEST_F(ContextTest, SysParamOptIsPerContext) {
  aclrtContext first = nullptr, second = nullptr;
  ASSERT_EQ(aclrtCreateContext(&first, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&second, 0), ACL_SUCCESS);  // now current
  int64_t value = 0;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(aclrtDestroyContext(second), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(first), ACL_SUCCESS);
}

TEST_F(ContextTest, SysParamOptRejectsBadOptionAndNullValue) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int64_t value = 0;
  EXPECT_EQ(aclrtCtxSetSysParamOpt(static_cast<aclSysParamOpt>(99), 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(static_cast<aclSysParamOpt>(99), &value),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ContextTest, SysParamOptWithoutAContextFailsWithContextNull) {
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(ContextTest, DefaultContextWorksWithoutCreateContext) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_NE(ptr, nullptr);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_NE(stream, nullptr);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}

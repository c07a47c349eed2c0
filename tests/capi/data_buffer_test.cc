// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests for aclDataBuffer (docs: ascendcl-reference.md §1.9). No aclInit is needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "acl/acl.h"

// aclGetDataBufferSize is deprecated but part of the contract.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

TEST(DataBufferTest, CreateRecordsAddressAndSize) {
  char memory[64] = {};
  aclDataBuffer* buffer = aclCreateDataBuffer(memory, sizeof memory);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(buffer), memory);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), 64u);
  EXPECT_EQ(aclGetDataBufferSize(buffer), 64u);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST(DataBufferTest, CreateAcceptsNullAndZero) {
  aclDataBuffer* buffer = aclCreateDataBuffer(nullptr, 0);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(buffer), nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), 0u);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST(DataBufferTest, DeprecatedSizeIsTruncatedTo32Bits) {
  static char memory[1];
  size_t big = (size_t{1} << 32) + 16;  // never dereferenced
  aclDataBuffer* buffer = aclCreateDataBuffer(memory, big);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), big);
  EXPECT_EQ(aclGetDataBufferSize(buffer), 16u);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST(DataBufferTest, UpdatePointsTheBufferAtNewMemory) {
  char first[16] = {1};
  char second[32] = {2};
  aclDataBuffer* buffer = aclCreateDataBuffer(first, sizeof first);
  ASSERT_NE(buffer, nullptr);
  ASSERT_EQ(aclUpdateDataBuffer(buffer, second, sizeof second), ACL_SUCCESS);
  EXPECT_EQ(aclGetDataBufferAddr(buffer), second);
  EXPECT_EQ(aclGetDataBufferSizeV2(buffer), 32u);
  EXPECT_EQ(first[0], 1);  // the old memory is the caller's, untouched
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST(DataBufferTest, UpdateOfNullBufferFailsWithInvalidParam) {
  char memory[8];
  EXPECT_EQ(aclUpdateDataBuffer(nullptr, memory, sizeof memory), ACL_ERROR_INVALID_PARAM);
}

TEST(DataBufferTest, DestroyNullFailsWithInvalidParam) {
  EXPECT_EQ(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(DataBufferTest, DestroyTwiceFailsWithInvalidParam) {
  aclDataBuffer* buffer = aclCreateDataBuffer(nullptr, 0);
  ASSERT_NE(buffer, nullptr);
  ASSERT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_ERROR_INVALID_PARAM);
}

TEST(DataBufferTest, GettersOnNullReturnNullOrZeroAndRecordAMessage) {
  ASSERT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(nullptr), nullptr);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  EXPECT_NE(std::string(msg).find("aclGetDataBufferAddr"), std::string::npos) << msg;
  EXPECT_EQ(aclGetDataBufferSizeV2(nullptr), 0u);
  EXPECT_NE(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclGetDataBufferSize(nullptr), 0u);
  EXPECT_NE(aclGetRecentErrMsg(), nullptr);
}

// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/status.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

Status FailWith(int code) { return Error(code, "inner ", code); }

Status Propagate(int code) {
  KILN_RETURN_IF_ERROR(FailWith(code), "while outer");
  return Status::Ok();
}

Result<int> Half(int v) {
  if (v % 2 != 0) return Error(code::kInvalidParam, "odd value ", v);
  return v / 2;
}

Result<int> Quarter(int v) {
  KILN_ASSIGN_OR_RETURN(int h, Half(v));
  KILN_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, DefaultIsSuccessWithEmptyMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), 0);
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, ErrorKeepsCodeAndFormatsMessage) {
  Status s = Error(code::kRtMemoryAllocation, "need ", 64, " bytes");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), 207001);
  EXPECT_EQ(s.message(), "need 64 bytes");
}

TEST(StatusTest, ReturnIfErrorAnnotatesAndKeepsCode) {
  Status s = Propagate(code::kParseFile);
  EXPECT_EQ(s.code(), 100006);
  EXPECT_EQ(s.message(), "while outer: inner 100006");
}

TEST(StatusTest, AssignOrReturnPassesValuesAndErrors) {
  Result<int> ok = Quarter(12);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  Result<int> bad = Quarter(6);  // 6 -> 3 is odd
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), code::kInvalidParam);
  EXPECT_EQ(bad.status().message(), "odd value 3");
}

TEST(StatusTest, PtrStrNamesNullAndAddresses) {
  EXPECT_EQ(PtrStr(nullptr), "NULL");
  int x = 0;
  EXPECT_EQ(PtrStr(&x).substr(0, 2), "0x");
}

}  // namespace
}  // namespace kiln

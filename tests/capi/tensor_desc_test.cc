// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests for aclTensorDesc (docs: ascendcl-reference.md §1.9, §1.10, §2). No aclInit is
// needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"

// aclGetTensorDescDim and the storage setters are deprecated but part of the contract.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

std::vector<int64_t> Dims(const aclTensorDesc* desc) {
  std::vector<int64_t> dims;
  size_t n = aclGetTensorDescNumDims(desc);
  for (size_t i = 0; i < n && i < 128; ++i) {
    int64_t d = 0;
    EXPECT_EQ(aclGetTensorDescDimV2(desc, i, &d), ACL_SUCCESS);
    dims.push_back(d);
  }
  return dims;
}

}  // namespace

TEST(TensorDescTest, DescribesAnNchwImage) {
  const int64_t dims[] = {1, 3, 224, 224};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescType(desc), ACL_FLOAT);
  EXPECT_EQ(aclGetTensorDescFormat(desc), ACL_FORMAT_NCHW);
  EXPECT_EQ(aclGetTensorDescNumDims(desc), 4u);
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 150528u);  // 3 * 224 * 224
  EXPECT_EQ(aclGetTensorDescSize(desc), 602112u);          // 150528 * 4 bytes
  EXPECT_EQ(Dims(desc), std::vector<int64_t>({1, 3, 224, 224}));
  EXPECT_EQ(aclGetTensorDescDim(desc, 2), 224);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, ScalarHasOneElement) {
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT16, 0, nullptr, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescNumDims(desc), 0u);
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 1u);
  EXPECT_EQ(aclGetTensorDescSize(desc), 2u);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, DynamicDimGivesZeroElementsAndZeroSize) {
  const int64_t dims[] = {2, -1, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 3, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 0u);
  EXPECT_EQ(aclGetTensorDescSize(desc), 0u);
  int64_t d = 0;
  ASSERT_EQ(aclGetTensorDescDimV2(desc, 1, &d), ACL_SUCCESS);
  EXPECT_EQ(d, -1);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, MinusTwoDimMeansUnknownRank) {
  const int64_t dims[] = {-2};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescNumDims(desc), ACL_UNKNOWN_RANK);
  EXPECT_EQ(ACL_UNKNOWN_RANK, 0xFFFFFFFFFFFFFFFEull);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, CreateRejectsRankOutsideZeroTo128) {
  std::vector<int64_t> ones(129, 1);
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, -1, ones.data(), ACL_FORMAT_ND), nullptr);
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 129, ones.data(), ACL_FORMAT_ND), nullptr);
  aclTensorDesc* max_rank = aclCreateTensorDesc(ACL_FLOAT, 128, ones.data(), ACL_FORMAT_ND);
  ASSERT_NE(max_rank, nullptr);
  EXPECT_EQ(aclGetTensorDescNumDims(max_rank), 128u);
  aclDestroyTensorDesc(max_rank);
}

TEST(TensorDescTest, CreateRejectsNullDimsForNonZeroRank) {
  EXPECT_EQ(aclCreateTensorDesc(ACL_FLOAT, 2, nullptr, ACL_FORMAT_ND), nullptr);
}

TEST(TensorDescTest, GettersOnNullDescReturnNeutralValues) {
  EXPECT_EQ(aclGetTensorDescType(nullptr), ACL_DT_UNDEFINED);
  EXPECT_EQ(aclGetTensorDescFormat(nullptr), ACL_FORMAT_UNDEFINED);
  EXPECT_EQ(aclGetTensorDescSize(nullptr), 0u);
  EXPECT_EQ(aclGetTensorDescElementCount(nullptr), 0u);
  EXPECT_EQ(aclGetTensorDescNumDims(nullptr), 0u);
  EXPECT_EQ(aclGetTensorDescDim(nullptr, 0), -1);
}

TEST(TensorDescTest, GetDimOutOfRangeReturnsMinusOne) {
  const int64_t dims[] = {2, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescDim(desc, 1), 3);
  EXPECT_EQ(aclGetTensorDescDim(desc, 2), -1);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, GetDimV2RejectsBadIndexAndNullPointers) {
  const int64_t dims[] = {2, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  int64_t d = 0;
  ASSERT_EQ(aclGetTensorDescDimV2(desc, 0, &d), ACL_SUCCESS);
  EXPECT_EQ(d, 2);
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 2, &d), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetTensorDescDimV2(desc, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetTensorDescDimV2(nullptr, 0, &d), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, ShapeRangeReadsBackPerDimension) {
  const int64_t dims[] = {-1, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  int64_t ranges[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {3, 3}};
  ASSERT_EQ(aclSetTensorShapeRange(desc, 2, ranges), ACL_SUCCESS);
  int64_t range[2] = {0, 0};
  ASSERT_EQ(aclGetTensorDescDimRange(desc, 0, 2, range), ACL_SUCCESS);
  EXPECT_EQ(range[0], 1);
  EXPECT_EQ(range[1], 8);
  ASSERT_EQ(aclGetTensorDescDimRange(desc, 1, 2, range), ACL_SUCCESS);
  EXPECT_EQ(range[0], 3);
  EXPECT_EQ(range[1], 3);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, StaticDimIsItsOwnRange) {
  const int64_t dims[] = {2, 5};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  int64_t range[2] = {0, 0};
  ASSERT_EQ(aclGetTensorDescDimRange(desc, 1, 2, range), ACL_SUCCESS);
  EXPECT_EQ(range[0], 5);
  EXPECT_EQ(range[1], 5);
  EXPECT_NE(aclGetTensorDescDimRange(desc, 1, 1, range), ACL_SUCCESS);  // room for one value
  EXPECT_NE(aclGetTensorDescDimRange(desc, 1, 2, nullptr), ACL_SUCCESS);
  EXPECT_NE(aclGetTensorDescDimRange(desc, 2, 2, range), ACL_SUCCESS);  // no dim 2
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, NameIsSetAndRead) {
  const int64_t dims[] = {4};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_INT32, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_STREQ(aclGetTensorDescName(desc), "");
  aclSetTensorDescName(desc, "input0");
  EXPECT_STREQ(aclGetTensorDescName(desc), "input0");
  EXPECT_STREQ(aclGetTensorDescName(nullptr), "");
  aclSetTensorDescName(nullptr, "ignored");  // no crash
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, TransFormatNchwToNhwcPermutesDimsAndBack) {
  const int64_t dims[] = {1, 3, 4, 5};
  aclTensorDesc* nchw = aclCreateTensorDesc(ACL_FLOAT16, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(nchw, nullptr);
  aclTensorDesc* nhwc = nullptr;
  ASSERT_EQ(aclTransTensorDescFormat(nchw, ACL_FORMAT_NHWC, &nhwc), ACL_SUCCESS);
  ASSERT_NE(nhwc, nullptr);
  EXPECT_EQ(aclGetTensorDescFormat(nhwc), ACL_FORMAT_NHWC);
  EXPECT_EQ(aclGetTensorDescType(nhwc), ACL_FLOAT16);
  EXPECT_EQ(Dims(nhwc), std::vector<int64_t>({1, 4, 5, 3}));
  EXPECT_EQ(Dims(nchw), std::vector<int64_t>({1, 3, 4, 5}));  // source unchanged
  aclTensorDesc* back = nullptr;
  ASSERT_EQ(aclTransTensorDescFormat(nhwc, ACL_FORMAT_NCHW, &back), ACL_SUCCESS);
  EXPECT_EQ(aclGetTensorDescFormat(back), ACL_FORMAT_NCHW);
  EXPECT_EQ(Dims(back), std::vector<int64_t>({1, 3, 4, 5}));
  aclDestroyTensorDesc(back);
  aclDestroyTensorDesc(nhwc);
  aclDestroyTensorDesc(nchw);
}

TEST(TensorDescTest, TransFormatToFractalZFailsWithFormatNotMatch) {
  const int64_t dims[] = {1, 3, 4, 5};
  aclTensorDesc* nchw = aclCreateTensorDesc(ACL_FLOAT16, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(nchw, nullptr);
  aclTensorDesc* out = nullptr;
  EXPECT_EQ(aclTransTensorDescFormat(nchw, ACL_FORMAT_FRACTAL_Z, &out), ACL_ERROR_FORMAT_NOT_MATCH);
  EXPECT_EQ(ACL_ERROR_FORMAT_NOT_MATCH, 100027);
  EXPECT_EQ(out, nullptr);
  aclDestroyTensorDesc(nchw);
}

TEST(TensorDescTest, TransFormatRejectsNullArguments) {
  const int64_t dims[] = {1, 3, 4, 5};
  aclTensorDesc* nchw = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(nchw, nullptr);
  aclTensorDesc* out = nullptr;
  EXPECT_EQ(aclTransTensorDescFormat(nullptr, ACL_FORMAT_NHWC, &out), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(aclTransTensorDescFormat(nchw, ACL_FORMAT_NHWC, nullptr), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(nchw);
}

TEST(TensorDescTest, FormatAndShapeSettersChangeTheDescriptor) {
  const int64_t dims[] = {2, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  ASSERT_EQ(aclSetTensorFormat(desc, ACL_FORMAT_NHWC), ACL_SUCCESS);
  EXPECT_EQ(aclGetTensorDescFormat(desc), ACL_FORMAT_NHWC);
  const int64_t shape[] = {4, 5, 6};
  ASSERT_EQ(aclSetTensorShape(desc, 3, shape), ACL_SUCCESS);
  EXPECT_EQ(Dims(desc), std::vector<int64_t>({4, 5, 6}));
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 120u);
  EXPECT_NE(aclSetTensorShape(desc, -1, shape), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorFormat(nullptr, ACL_FORMAT_NHWC), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, OriginAndStorageSettersSucceed) {
  const int64_t dims[] = {2, 3};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  const int64_t other[] = {3, 2};
  EXPECT_EQ(aclSetTensorOriginFormat(desc, ACL_FORMAT_NCHW), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorOriginShape(desc, 2, other), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorStorageFormat(desc, ACL_FORMAT_NHWC), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorStorageShape(desc, 2, other), ACL_SUCCESS);
  EXPECT_EQ(Dims(desc), std::vector<int64_t>({2, 3}));  // the shape itself is unchanged
  EXPECT_EQ(aclSetTensorOriginShape(desc, 2, nullptr), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, DynamicInputAndConstSettersValidateTheirArguments) {
  const int64_t dims[] = {2};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_INT32, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclSetTensorDynamicInput(desc, "x"), ACL_SUCCESS);
  int32_t value[2] = {7, 8};
  EXPECT_EQ(aclSetTensorConst(desc, value, sizeof value), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorConst(desc, nullptr, sizeof value), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclSetTensorConst(nullptr, value, sizeof value), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, PlacementAcceptsMemTypesAndRejectsOthers) {
  const int64_t dims[] = {2};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_INT32, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclSetTensorPlaceMent(desc, ACL_MEMTYPE_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorPlaceMent(desc, ACL_MEMTYPE_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclSetTensorPlaceMent(desc, static_cast<aclMemType>(7)), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);
}

TEST(TensorDescTest, DestroyNullIsANoOp) {
  aclDestroyTensorDesc(nullptr);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(TensorDescTest, DestroyTwiceDoesNotCrash) {
  const int64_t dims[] = {2};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_INT32, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  aclDestroyTensorDesc(desc);
  aclDestroyTensorDesc(desc);
  aclTensorDesc* again = aclCreateTensorDesc(ACL_INT32, 1, dims, ACL_FORMAT_ND);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(aclGetTensorDescElementCount(again), 2u);
  aclDestroyTensorDesc(again);
}

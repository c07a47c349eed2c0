// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The status code space of Kiln is AscendCL's error code space (docs/design.md §7), so a
// Status crosses the C boundary without translation. Only the codes Kiln produces are named
// here; src/capi static_asserts that each equals its public ACL_* constant.
#pragma once

namespace kiln::code {

inline constexpr int kSuccess = 0;
// ACL layer (acl_base.h).
inline constexpr int kInvalidParam = 100000;
inline constexpr int kUninitialize = 100001;
inline constexpr int kRepeatInitialize = 100002;
inline constexpr int kInvalidFile = 100003;
inline constexpr int kParseFile = 100006;
inline constexpr int kWriteFile = 100004;
inline constexpr int kDeserializeModel = 100012;
inline constexpr int kParseModel = 100013;
inline constexpr int kInvalidDumpConfig = 100009;
inline constexpr int kInvalidProfilingConfig = 100010;
inline constexpr int kReadModelFailure = 100014;
inline constexpr int kOpTypeNotMatch = 100020;
inline constexpr int kOpInputNotMatch = 100021;
inline constexpr int kOpOutputNotMatch = 100022;
inline constexpr int kOpAttrNotMatch = 100023;
inline constexpr int kOpNotFound = 100024;
inline constexpr int kOpLoadFailed = 100025;
inline constexpr int kUnsupportedDataType = 100026;
inline constexpr int kRepeatFinalize = 100037;
inline constexpr int kProfAlreadyRun = 100042;
inline constexpr int kProfNotRun = 100043;
inline constexpr int kDumpAlreadyRun = 100044;
inline constexpr int kDumpNotRun = 100045;
inline constexpr int kProfRepeatSubscribe = 148046;
inline constexpr int kProfApiConflict = 148047;
inline constexpr int kUnsupportedJpeg = 148052;
inline constexpr int kBadAlloc = 200000;
inline constexpr int kApiNotSupport = 200001;
inline constexpr int kResourceNotMatch = 200004;
inline constexpr int kInvalidResourceHandle = 200005;
inline constexpr int kFeatureUnsupported = 200006;
inline constexpr int kInternalError = 500000;
inline constexpr int kFailure = 500001;
// Runtime pass-through (rt_error_codes.h).
inline constexpr int kRtParamInvalid = 107000;
inline constexpr int kRtInvalidDeviceId = 107001;
inline constexpr int kRtContextNull = 107002;
inline constexpr int kRtStreamContext = 107003;
inline constexpr int kRtEventTimestampInvalid = 107006;
inline constexpr int kRtStreamSubscribe = 107011;
inline constexpr int kRtThreadSubscribe = 107012;
inline constexpr int kRtStreamNoCbReg = 107015;
inline constexpr int kRtInvalidMemoryType = 107016;
inline constexpr int kRtInvalidHandle = 107017;
inline constexpr int kRtInvalidMallocType = 107018;
inline constexpr int kRtSysParamOptNotSet = 107021;
inline constexpr int kRtFeatureNotSupport = 207000;
inline constexpr int kRtMemoryAllocation = 207001;
inline constexpr int kRtMemoryFree = 207002;
inline constexpr int kRtNoDevice = 207004;
inline constexpr int kRtNoEventResource = 207007;
inline constexpr int kRtNoStreamResource = 207008;
inline constexpr int kRtInternalError = 507000;
inline constexpr int kRtEventNotComplete = 507006;
inline constexpr int kRtSocVersion = 507008;  // an .om compiled for another target
inline constexpr int kRtReportTimeout = 507012;
inline constexpr int kRtStreamSyncTimeout = 507046;
inline constexpr int kRtEventSyncTimeout = 507047;

// GE pass-through (ge_error_codes.h), used by model loading.
inline constexpr int kGeModelPathInvalid = 145002;
inline constexpr int kGeModelDataSizeInvalid = 145006;
inline constexpr int kGeLoadModel = 545001;
inline constexpr int kGeMemoryAllocation = 245000;
inline constexpr int kGeDynamicInputLengthInvalid = 145012;
inline constexpr int kGeDynamicBatchSizeInvalid = 145013;
inline constexpr int kGeAippNotExist = 145015;
inline constexpr int kInvalidModelId = 100011;
inline constexpr int kModelNotDynamic = 100019;
inline constexpr int kRtModelExecute = 507011;

}  // namespace kiln::code

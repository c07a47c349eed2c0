// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kiln's internal codes (src/base/error_codes.h) are AscendCL's: checked here, where both are
// visible, so the C boundary never needs a translation table.
#include "acl/acl.h"
#include "base/error_codes.h"

namespace kiln::code {

static_assert(kSuccess == ACL_SUCCESS);
static_assert(kInvalidParam == ACL_ERROR_INVALID_PARAM);
static_assert(kUninitialize == ACL_ERROR_UNINITIALIZE);
static_assert(kRepeatInitialize == ACL_ERROR_REPEAT_INITIALIZE);
static_assert(kInvalidFile == ACL_ERROR_INVALID_FILE);
static_assert(kReadModelFailure == ACL_ERROR_READ_MODEL_FAILURE);
static_assert(kOpTypeNotMatch == ACL_ERROR_OP_TYPE_NOT_MATCH);
static_assert(kOpInputNotMatch == ACL_ERROR_OP_INPUT_NOT_MATCH);
static_assert(kOpOutputNotMatch == ACL_ERROR_OP_OUTPUT_NOT_MATCH);
static_assert(kOpAttrNotMatch == ACL_ERROR_OP_ATTR_NOT_MATCH);
static_assert(kOpNotFound == ACL_ERROR_OP_NOT_FOUND);
static_assert(kOpLoadFailed == ACL_ERROR_OP_LOAD_FAILED);
static_assert(kUnsupportedDataType == ACL_ERROR_UNSUPPORTED_DATA_TYPE);
static_assert(kParseFile == ACL_ERROR_PARSE_FILE);
static_assert(kWriteFile == ACL_ERROR_WRITE_FILE);
static_assert(kDeserializeModel == ACL_ERROR_DESERIALIZE_MODEL);
static_assert(kParseModel == ACL_ERROR_PARSE_MODEL);
static_assert(kInvalidDumpConfig == ACL_ERROR_INVALID_DUMP_CONFIG);
static_assert(kInvalidProfilingConfig == ACL_ERROR_INVALID_PROFILING_CONFIG);
static_assert(kProfAlreadyRun == ACL_ERROR_PROF_ALREADY_RUN);
static_assert(kProfNotRun == ACL_ERROR_PROF_NOT_RUN);
static_assert(kDumpAlreadyRun == ACL_ERROR_DUMP_ALREADY_RUN);
static_assert(kDumpNotRun == ACL_ERROR_DUMP_NOT_RUN);
static_assert(kProfRepeatSubscribe == ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
static_assert(kProfApiConflict == ACL_ERROR_PROF_API_CONFLICT);
static_assert(kUnsupportedJpeg == ACL_ERROR_UNSUPPORTED_JPEG);
static_assert(kGeModelPathInvalid == static_cast<int>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID));
static_assert(kGeModelDataSizeInvalid ==
              static_cast<int>(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID));
static_assert(kGeLoadModel == static_cast<int>(ACL_ERROR_GE_LOAD_MODEL));
static_assert(kGeAippNotExist == static_cast<int>(ACL_ERROR_GE_AIPP_NOT_EXIST));
static_assert(kRepeatFinalize == ACL_ERROR_REPEAT_FINALIZE);
static_assert(kBadAlloc == ACL_ERROR_BAD_ALLOC);
static_assert(kApiNotSupport == ACL_ERROR_API_NOT_SUPPORT);
static_assert(kResourceNotMatch == ACL_ERROR_RESOURCE_NOT_MATCH);
static_assert(kInvalidResourceHandle == ACL_ERROR_INVALID_RESOURCE_HANDLE);
static_assert(kFeatureUnsupported == ACL_ERROR_FEATURE_UNSUPPORTED);
static_assert(kInternalError == ACL_ERROR_INTERNAL_ERROR);
static_assert(kFailure == ACL_ERROR_FAILURE);
static_assert(kRtParamInvalid == ACL_ERROR_RT_PARAM_INVALID);
static_assert(kRtInvalidDeviceId == ACL_ERROR_RT_INVALID_DEVICEID);
static_assert(kRtContextNull == ACL_ERROR_RT_CONTEXT_NULL);
static_assert(kRtStreamContext == ACL_ERROR_RT_STREAM_CONTEXT);
static_assert(kRtEventTimestampInvalid == ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
static_assert(kRtStreamSubscribe == ACL_ERROR_RT_STREAM_SUBSCRIBE);
static_assert(kRtThreadSubscribe == ACL_ERROR_RT_THREAD_SUBSCRIBE);
static_assert(kRtStreamNoCbReg == ACL_ERROR_RT_STREAM_NO_CB_REG);
static_assert(kRtInvalidMemoryType == ACL_ERROR_RT_INVALID_MEMORY_TYPE);
static_assert(kRtInvalidHandle == ACL_ERROR_RT_INVALID_HANDLE);
static_assert(kRtInvalidMallocType == ACL_ERROR_RT_INVALID_MALLOC_TYPE);
static_assert(kRtSysParamOptNotSet == ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
static_assert(kRtFeatureNotSupport == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
static_assert(kRtMemoryAllocation == ACL_ERROR_RT_MEMORY_ALLOCATION);
static_assert(kRtMemoryFree == ACL_ERROR_RT_MEMORY_FREE);
static_assert(kRtNoDevice == ACL_ERROR_RT_NO_DEVICE);
static_assert(kRtNoEventResource == ACL_ERROR_RT_NO_EVENT_RESOURCE);
static_assert(kRtNoStreamResource == ACL_ERROR_RT_NO_STREAM_RESOURCE);
static_assert(kRtInternalError == ACL_ERROR_RT_INTERNAL_ERROR);
static_assert(kRtEventNotComplete == ACL_ERROR_RT_EVENT_NOT_COMPLETE);
static_assert(kRtSocVersion == ACL_ERROR_RT_SOC_VERSION);
static_assert(kRtReportTimeout == ACL_ERROR_RT_REPORT_TIMEOUT);
static_assert(kRtStreamSyncTimeout == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
static_assert(kRtEventSyncTimeout == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);

}  // namespace kiln::code

/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL runtime API: initialisation, devices, contexts, streams, events, memory, host
 * callbacks, timeouts and exception reporting.
 *
 * Source-compatible with CANN's acl/acl_rt.h (ACL interface 1.17). Unless a comment says
 * otherwise every function may be called from any thread; the "current device" and "current
 * context" are per thread. Handles returned through [OUT] parameters are owned by the caller until
 * passed to the matching Destroy/Free function.
 */

#ifndef INC_EXTERNAL_ACL_ACL_RT_H_
#define INC_EXTERNAL_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ACL interface version reported by aclrtGetVersion: 1.17.0. */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* Event flags for aclrtCreateEventWithFlag / aclrtCreateEventExWithFlag; may be OR-ed. */
#define ACL_EVENT_SYNC 0x00000001U /* usable for cross-stream waits and aclrtResetEvent */
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U /* records a timestamp (aclrtEventElapsedTime) */
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* Stream flags for aclrtCreateStreamWithConfig; may be OR-ed. */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

/* Failure modes for aclrtSetStreamFailureMode. */
#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

/* Buffer sizes for package version strings (aclsysGetVersionStr, aclCANNPackageVersion). */
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/* Where the application runs relative to the device. A host-side runtime reports ACL_HOST. */
typedef enum aclrtRunMode { ACL_DEVICE = 0, ACL_HOST = 1 } aclrtRunMode;

/* Task scheduler selected by aclrtSetTsDevice. */
typedef enum aclrtTsId {
  ACL_TS_ID_AICORE = 0,
  ACL_TS_ID_AIVECTOR = 1,
  ACL_TS_ID_RESERVED = 2
} aclrtTsId;

/* Result of the deprecated aclrtQueryEvent. */
typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

/* Result of aclrtQueryEventStatus. Note the values are the reverse of aclrtEventStatus. */
typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

/* Result of aclrtQueryEventWaitStatus. */
typedef enum aclrtEventWaitStatus {
  ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
  ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
  ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF
} aclrtEventWaitStatus;

/* Result of aclrtStreamQuery. */
typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

/* Whether a host callback blocks later tasks of its stream until it returns. */
typedef enum aclrtCallbackBlockType {
  ACL_CALLBACK_NO_BLOCK = 0,
  ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

/* Copy direction for the aclrtMemcpy family. */
typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
  /* Direction inferred from the addresses. */
  ACL_MEMCPY_DEFAULT = 4,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

/*
 * Device allocation policy for aclrtMalloc and friends. The ACL_MEM_TYPE_* and
 * ACL_MEM_ACCESS_* values are flags that may be OR-ed onto one of the policies 0..7 (cast the
 * result back to aclrtMemMallocPolicy); they are enumerators, as in CANN, so that they can also be
 * passed on their own.
 */
typedef enum aclrtMemMallocPolicy {
  /* Huge pages for requests over 1 MiB if available, else normal pages. */
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
  ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
  ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
  ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

/* Memory kind queried by aclrtGetMemInfo. */
typedef enum aclrtMemAttr {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
  ACL_DDR_MEM_HUGE = 2,
  ACL_DDR_MEM_NORMAL = 3,
  ACL_HBM_MEM_HUGE = 4,
  ACL_HBM_MEM_NORMAL = 5,
  ACL_DDR_MEM_P2P_HUGE = 6,
  ACL_DDR_MEM_P2P_NORMAL = 7,
  ACL_HBM_MEM_P2P_HUGE = 8,
  ACL_HBM_MEM_P2P_NORMAL = 9,
  ACL_HBM_MEM_HUGE1G = 10,
  ACL_HBM_MEM_P2P_HUGE1G = 11,
  ACL_MEM_NORMAL = 12,
  ACL_MEM_HUGE = 13,
  ACL_MEM_HUGE1G = 14,
  ACL_MEM_P2P_NORMAL = 15,
  ACL_MEM_P2P_HUGE = 16,
  ACL_MEM_P2P_HUGE1G = 17
} aclrtMemAttr;

/* Attributes of a resource group (aclrtGetGroupInfoDetail). */
typedef enum aclrtGroupAttr {
  ACL_GROUP_AICORE_INT = 0,
  ACL_GROUP_AIV_INT = 1,
  ACL_GROUP_AIC_INT = 2,
  ACL_GROUP_SDMANUM_INT = 3,
  ACL_GROUP_ASQNUM_INT = 4,
  ACL_GROUP_GROUPID_INT = 5
} aclrtGroupAttr;

/* Floating-point overflow behaviour of the device (aclrtSetDeviceSatMode). */
typedef enum aclrtFloatOverflowMode {
  ACL_RT_OVERFLOW_MODE_SATURATION = 0,
  ACL_RT_OVERFLOW_MODE_INFNAN = 1,
  ACL_RT_OVERFLOW_MODE_UNDEF = 2
} aclrtFloatOverflowMode;

/* Options of a stream configuration handle (aclrtSetStreamConfigOpt). */
typedef enum aclrtStreamConfigAttr {
  ACL_RT_STREAM_WORK_ADDR_PTR = 0,
  ACL_RT_STREAM_WORK_SIZE = 1,
  ACL_RT_STREAM_FLAG = 2,
  ACL_RT_STREAM_PRIORITY = 3
} aclrtStreamConfigAttr;

/* Health of a device (aclrtQueryDeviceStatus). */
typedef enum aclrtDeviceStatus {
  ACL_RT_DEVICE_STATUS_NORMAL = 0,
  ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
  ACL_RT_DEVICE_STATUS_END = 0xFFFF
} aclrtDeviceStatus;

/* Scope of the error read by aclrtPeekAtLastError / aclrtGetLastError. */
typedef enum aclrtLastErrLevel { ACL_RT_THREAD_LEVEL = 0 } aclrtLastErrLevel;

/* Software packages whose version aclsysGetCANNVersion reports. */
typedef enum aclCANNPackageName {
  ACL_PKG_NAME_CANN = 0,
  ACL_PKG_NAME_RUNTIME = 1,
  ACL_PKG_NAME_COMPILER = 2,
  ACL_PKG_NAME_HCCL = 3,
  ACL_PKG_NAME_TOOLKIT = 4,
  ACL_PKG_NAME_OPP = 5,
  ACL_PKG_NAME_OPP_KERNEL = 6,
  ACL_PKG_NAME_DRIVER = 7
} aclCANNPackageName;

/* A package version, as NUL-terminated strings ("8.5.0" split into its parts). */
typedef struct aclCANNPackageVersion {
  char version[ACL_PKG_VERSION_MAX_SIZE];
  char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
  char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

/* Reserved extension of aclrtUtilizationInfo; no definition is published. */
typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

/* Device utilisation in percent (aclrtGetDeviceUtilizationRate). */
typedef struct aclrtUtilizationInfo {
  int32_t cubeUtilization;
  int32_t vectorUtilization;
  int32_t aicpuUtilization;
  int32_t memoryUtilization;
  /* Reserved; must be NULL. */
  aclrtUtilizationExtendInfo* utilizationExtend;
} aclrtUtilizationInfo;

/* Opaque description of a failed task, passed to an aclrtExceptionInfoCallback. */
typedef struct rtExceptionInfo aclrtExceptionInfo;

/* Host callback launched with aclrtLaunchCallback. */
typedef void (*aclrtCallback)(void* userData);

/* Host function launched with aclrtLaunchHostFunc. */
typedef void (*aclrtHostFunc)(void* args);

/* Called once per failed task, on a runtime thread; the info is valid only during the call. */
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo* exceptionInfo);

/* ---------------------------------------------------------------------------------------------
 * Initialisation, version and error reporting
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Initialise AscendCL for this process.
 *
 * @par Function
 *  Must precede every other call except the version queries. Initialisation is reference counted:
 *  each successful call must be balanced by aclFinalize or aclFinalizeReference.
 *
 * @param configPath [IN]  path of a JSON configuration file; NULL or "" for none
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_REPEAT_INITIALIZE already initialised (may be ignored)
 * @retval ACL_ERROR_INVALID_FILE / ACL_ERROR_PARSE_FILE the configuration cannot be read or parsed
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclInit(const char* configPath);

/**
 * @ingroup AscendCL
 * @brief Release every AscendCL resource of the process.
 *
 * @par Restriction
 *  Call once before the process exits, not from a destructor of a static object. Devices still
 *  set, streams and allocations are reclaimed.
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_REPEAT_FINALIZE not initialised, or already finalised
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/**
 * @ingroup AscendCL
 * @brief Drop one aclInit reference; finalise when the count reaches zero.
 *
 * @param refCount [OUT]  receives the remaining count; may be NULL
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t* refCount);

/**
 * @ingroup AscendCL
 * @brief Get the AscendCL interface version, i.e. the ACL_*_VERSION macros of this header.
 *
 * @param majorVersion [OUT]  major version
 * @param minorVersion [OUT]  minor version
 * @param patchVersion [OUT]  patch version
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (ACL_ERROR_INVALID_PARAM for a NULL pointer)
 */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion,
                                             int32_t* patchVersion);

/**
 * @ingroup AscendCL
 * @brief Get and clear the error messages recorded on this thread.
 *
 * @par Function
 *  Messages have the form "EH0001: Value 0 for size is invalid. ..."; the newest comes first.
 *  The text stays valid until the next call on the same thread.
 *
 * @retval the messages; NULL if there are none
 */
ACL_FUNC_VISIBILITY const char* aclGetRecentErrMsg(void);

/**
 * @ingroup AscendCL
 * @brief Get the version of an installed software package.
 *
 * @param name [IN]      package
 * @param version [OUT]  version strings
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_INVALID_FILE the package is not installed
 * @retval OtherValues Failure
 */
ACL_DEPRECATED_MESSAGE(
    "aclsysGetCANNVersion is deprecated, use aclsysGetVersionStr and aclsysGetVersionNum instead")
ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name,
                                                  aclCANNPackageVersion* version);

/**
 * @ingroup AscendCL
 * @brief Get the version of an installed package as a string.
 *
 * @param pkgName [IN]      package name, e.g. "runtime"
 * @param versionStr [OUT]  buffer of at least ACL_PKG_VERSION_MAX_SIZE bytes
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_INVALID_FILE the package is not installed
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char* pkgName, char* versionStr);

/**
 * @ingroup AscendCL
 * @brief Get the version of an installed package as a comparable number.
 *
 * @param pkgName [IN]      package name, e.g. "runtime"
 * @param versionNum [OUT]  version number
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_INVALID_FILE the package is not installed
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char* pkgName, int32_t* versionNum);

/**
 * @ingroup AscendCL
 * @brief Get the last runtime error of this thread without clearing it.
 *
 * @param level [IN]  ACL_RT_THREAD_LEVEL
 *
 * @retval the last error code; ACL_SUCCESS if none
 */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);

/**
 * @ingroup AscendCL
 * @brief Get and clear the last runtime error of this thread.
 *
 * @param level [IN]  ACL_RT_THREAD_LEVEL
 *
 * @retval the last error code; ACL_SUCCESS if none
 */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);

/* ---------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Make a device current for the calling thread.
 *
 * @par Function
 *  The first call for a device creates its default context (with a default stream), which all
 *  threads setting that device share. Calls are reference counted per device; balance each with
 *  aclrtResetDevice.
 *
 * @param deviceId [IN]  device id, 0 .. count-1
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_INVALID_DEVICEID deviceId is out of range
 * @retval OtherValues Failure
 *
 * @see aclrtResetDevice | aclrtCreateContext
 */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);

/**
 * @ingroup AscendCL
 * @brief Drop one aclrtSetDevice reference to a device.
 *
 * @par Function
 *  When the count reaches zero the default context, its default stream and every stream created
 *  in it are released after their pending tasks finish. Destroy events, explicit streams and
 *  explicit contexts first.
 *
 * @param deviceId [IN]  device id
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/**
 * @ingroup AscendCL
 * @brief Release a device's default resources regardless of the aclrtSetDevice count.
 *
 * @param deviceId [IN]  device id
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtResetDevice
 */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);

/**
 * @ingroup AscendCL
 * @brief Get the current device of the calling thread.
 *
 * @param deviceId [OUT]  device id
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (no device is set on this thread)
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t* deviceId);

/**
 * @ingroup AscendCL
 * @brief Get the number of visible devices (honours ASCEND_RT_VISIBLE_DEVICES).
 *
 * @param count [OUT]  number of devices
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t* count);

/**
 * @ingroup AscendCL
 * @brief Say whether the application runs on the host or on the device.
 *
 * @param runMode [OUT]  ACL_HOST or ACL_DEVICE
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode* runMode);

/**
 * @ingroup AscendCL
 * @brief Block until every task on the current device has finished.
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (the first error of a failed task)
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/**
 * @ingroup AscendCL
 * @brief Block until every task on the current device has finished, or the timeout expires.
 *
 * @param timeout [IN]  milliseconds; -1 waits forever
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (a timeout, or the first error of a failed task)
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Select the task scheduler used by later tasks of this thread.
 *
 * @param tsId [IN]  task scheduler
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId);

/**
 * @ingroup AscendCL
 * @brief Get the utilisation of a device.
 *
 * @param deviceId [IN]             device id
 * @param utilizationInfo [IN/OUT]  utilisation figures; utilizationExtend must be NULL
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
                                                           aclrtUtilizationInfo* utilizationInfo);

/**
 * @ingroup AscendCL
 * @brief Get the health of a device.
 *
 * @param deviceId [IN]       device id
 * @param deviceStatus [OUT]  device status
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId,
                                                    aclrtDeviceStatus* deviceStatus);

/**
 * @ingroup AscendCL
 * @brief Ask whether one device can access another's memory directly.
 *
 * @param canAccessPeer [OUT]  1 if it can, 0 if not
 * @param deviceId [IN]        accessing device
 * @param peerDeviceId [IN]    device whose memory is accessed
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtDeviceEnablePeerAccess | aclrtDeviceDisablePeerAccess
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId,
                                                      int32_t peerDeviceId);

/**
 * @ingroup AscendCL
 * @brief Let the current device access a peer device's memory.
 *
 * @param peerDeviceId [IN]  peer device id
 * @param flags [IN]         reserved; must be 0
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);

/**
 * @ingroup AscendCL
 * @brief Withdraw the current device's access to a peer device's memory.
 *
 * @param peerDeviceId [IN]  peer device id
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* ---------------------------------------------------------------------------------------------
 * Contexts
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Create a context on a device and make it current for the calling thread.
 *
 * @par Function
 *  Each context has its own default stream, used when a NULL stream is passed. A thread uses one
 *  context at a time; switch with aclrtSetCurrentContext.
 *
 * @param context [OUT]  the new context, owned by the caller (release with aclrtDestroyContext)
 * @param deviceId [IN]  device id
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtDestroyContext | aclrtSetCurrentContext
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId);

/**
 * @ingroup AscendCL
 * @brief Destroy a context created with aclrtCreateContext (not a default context).
 *
 * @param context [IN]  context to destroy
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);

/**
 * @ingroup AscendCL
 * @brief Make a context current for the calling thread (and its device the current device).
 *
 * @param context [IN]  context; its device must not have been reset
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);

/**
 * @ingroup AscendCL
 * @brief Get the current context of the calling thread.
 *
 * @param context [OUT]  current context (borrowed)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (ACL_ERROR_RT_CONTEXT_NULL if the thread has none)
 */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext* context);

/**
 * @ingroup AscendCL
 * @brief Set a system option of the current context.
 *
 * @param opt [IN]    option
 * @param value [IN]  value
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);

/**
 * @ingroup AscendCL
 * @brief Get a system option of the current context.
 *
 * @param opt [IN]     option
 * @param value [OUT]  value
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_SYSPARAMOPT_NOT_SET the option was never set
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value);

/* ---------------------------------------------------------------------------------------------
 * Streams. Tasks on one stream run in order; a NULL stream is the current context's default.
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Create a stream in the current context.
 *
 * @param stream [OUT]  the new stream, owned by the caller (release with aclrtDestroyStream)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream* stream);

/**
 * @ingroup AscendCL
 * @brief Create a stream with a priority and flags.
 *
 * @param stream [OUT]   the new stream, owned by the caller
 * @param priority [IN]  priority, 0 .. 7
 * @param flag [IN]      OR of ACL_STREAM_* flags
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority,
                                                         uint32_t flag);

/**
 * @ingroup AscendCL
 * @brief Destroy a stream.
 *
 * @par Restriction
 *  Synchronise the stream first so that no task is pending.
 *
 * @param stream [IN]  stream from aclrtCreateStream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtSynchronizeStream
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Destroy a stream without waiting for its pending tasks.
 *
 * @param stream [IN]  stream from aclrtCreateStream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Block until every task on a stream has finished.
 *
 * @param stream [IN]  stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure (the first error of a failed task)
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Block until every task on a stream has finished, or the timeout expires.
 *
 * @param stream [IN]   stream; NULL for the default stream
 * @param timeout [IN]  milliseconds; -1 waits forever
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_STREAM_SYNC_TIMEOUT the timeout expired
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Ask whether every task on a stream has finished, without blocking.
 *
 * @param stream [IN]   stream; NULL for the default stream
 * @param status [OUT]  ACL_STREAM_STATUS_COMPLETE or ACL_STREAM_STATUS_NOT_READY
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status);

/**
 * @ingroup AscendCL
 * @brief Make later tasks of a stream wait until an event completes.
 *
 * @par Function
 *  Does not block the host. Several streams may wait on one event. The wait is bounded by
 *  aclrtSetOpWaitTimeout.
 *
 * @param stream [IN]  waiting stream; NULL for the default stream
 * @param event [IN]   event to wait for
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/**
 * @ingroup AscendCL
 * @brief Choose whether a stream keeps running tasks after one fails.
 *
 * @param stream [IN]  stream
 * @param mode [IN]    ACL_CONTINUE_ON_FAILURE (default) or ACL_STOP_ON_FAILURE
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);

/* ---------------------------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Create an event.
 *
 * @par Restriction
 *  Such an event must not be used with aclrtResetEvent; use aclrtCreateEventWithFlag with
 *  ACL_EVENT_SYNC for that.
 *
 * @param event [OUT]  the new event, owned by the caller (release with aclrtDestroyEvent)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent* event);

/**
 * @ingroup AscendCL
 * @brief Create an event with flags.
 *
 * @param event [OUT]  the new event, owned by the caller
 * @param flag [IN]    OR of ACL_EVENT_* flags
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag);

/**
 * @ingroup AscendCL
 * @brief Create an event with flags that may be re-recorded without an explicit reset.
 *
 * @param event [OUT]  the new event, owned by the caller
 * @param flag [IN]    OR of ACL_EVENT_* flags
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag);

/**
 * @ingroup AscendCL
 * @brief Destroy an event.
 *
 * @par Restriction
 *  Tasks that record or wait on the event must have finished.
 *
 * @param event [IN]  event to destroy
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);

/**
 * @ingroup AscendCL
 * @brief Record an event on a stream; it completes when all earlier tasks of the stream have.
 *
 * @param event [IN]   event
 * @param stream [IN]  stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Reset an event to the not-recorded state, as a task on a stream.
 *
 * @par Restriction
 *  Tasks that wait on the event must have finished first.
 *
 * @param event [IN]   event created with ACL_EVENT_SYNC
 * @param stream [IN]  stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Ask whether an event has completed.
 *
 * @param event [IN]    event
 * @param status [OUT]  ACL_EVENT_STATUS_COMPLETE or ACL_EVENT_STATUS_NOT_READY
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status);

/**
 * @ingroup AscendCL
 * @brief Ask whether an event has completed.
 *
 * @param event [IN]    event
 * @param status [OUT]  ACL_EVENT_RECORDED_STATUS_COMPLETE or ACL_EVENT_RECORDED_STATUS_NOT_READY
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event,
                                                   aclrtEventRecordedStatus* status);

/**
 * @ingroup AscendCL
 * @brief Ask whether the waits issued on an event have been satisfied.
 *
 * @param event [IN]    event
 * @param status [OUT]  ACL_EVENT_WAIT_STATUS_COMPLETE or ACL_EVENT_WAIT_STATUS_NOT_READY
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event,
                                                       aclrtEventWaitStatus* status);

/**
 * @ingroup AscendCL
 * @brief Block the host until an event completes.
 *
 * @param event [IN]  event
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);

/**
 * @ingroup AscendCL
 * @brief Block the host until an event completes, or the timeout expires.
 *
 * @param event [IN]    event
 * @param timeout [IN]  milliseconds; -1 waits forever
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_EVENT_SYNC_TIMEOUT the timeout expired
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Get the time between two completed events.
 *
 * @param ms [OUT]         elapsed time in milliseconds
 * @param startEvent [IN]  earlier event, recorded and completed
 * @param endEvent [IN]    later event, recorded and completed
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtRecordEvent | aclrtSynchronizeEvent
 */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent,
                                                   aclrtEvent endEvent);

/**
 * @ingroup AscendCL
 * @brief Get the timestamp taken when a completed event was recorded.
 *
 * @param event [IN]       event, recorded and completed
 * @param timestamp [OUT]  timestamp in device clock ticks
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp);

/* ---------------------------------------------------------------------------------------------
 * Memory
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Allocate device memory on the current device.
 *
 * @par Function
 *  The start address is 64-byte aligned and the contents are not initialised. Does not
 *  synchronise any stream.
 *
 * @param devPtr [OUT]  the allocation, owned by the caller (release with aclrtFree)
 * @param size [IN]     bytes; must be greater than 0
 * @param policy [IN]   allocation policy
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_INVALID_PARAM devPtr is NULL or size is 0
 * @retval ACL_ERROR_RT_MEMORY_ALLOCATION the memory could not be allocated
 * @retval OtherValues Failure
 *
 * @see aclrtFree
 */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);

/**
 * @ingroup AscendCL
 * @brief Allocate device memory without the trailing padding aclrtMalloc adds.
 *
 * @param devPtr [OUT]  the allocation, owned by the caller (release with aclrtFree)
 * @param size [IN]     bytes; must be greater than 0
 * @param policy [IN]   allocation policy
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void** devPtr, size_t size,
                                                aclrtMemMallocPolicy policy);

/**
 * @ingroup AscendCL
 * @brief Allocate cacheable device memory.
 *
 * @param devPtr [OUT]  the allocation, owned by the caller (release with aclrtFree)
 * @param size [IN]     bytes; must be greater than 0
 * @param policy [IN]   allocation policy
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtMemFlush | aclrtMemInvalidate
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void** devPtr, size_t size,
                                               aclrtMemMallocPolicy policy);

/**
 * @ingroup AscendCL
 * @brief Write cached data of a range back to memory.
 *
 * @param devPtr [IN]  start of the range
 * @param size [IN]    bytes
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void* devPtr, size_t size);

/**
 * @ingroup AscendCL
 * @brief Discard cached data of a range so the next read comes from memory.
 *
 * @param devPtr [IN]  start of the range
 * @param size [IN]    bytes
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void* devPtr, size_t size);

/**
 * @ingroup AscendCL
 * @brief Free device memory from aclrtMalloc, aclrtMallocAlign32 or aclrtMallocCached.
 *
 * @param devPtr [IN]  allocation to free
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtFree(void* devPtr);

/**
 * @ingroup AscendCL
 * @brief Allocate page-locked host memory.
 *
 * @par Function
 *  The device cannot use it directly; copy it with the aclrtMemcpy family. Asynchronous copies
 *  from this memory do not block the host.
 *
 * @param hostPtr [OUT]  the allocation, owned by the caller (release with aclrtFreeHost)
 * @param size [IN]      bytes; must be greater than 0
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void** hostPtr, size_t size);

/**
 * @ingroup AscendCL
 * @brief Free host memory from aclrtMallocHost.
 *
 * @param hostPtr [IN]  allocation to free
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void* hostPtr);

/**
 * @ingroup AscendCL
 * @brief Fill host or device memory with a byte value, synchronously.
 *
 * @param devPtr [IN]    start of the memory (host or device, decided by the address)
 * @param maxCount [IN]  capacity of the memory in bytes
 * @param value [IN]     byte value (the low 8 bits are used)
 * @param count [IN]     bytes to fill; must not exceed maxCount
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value,
                                         size_t count);

/**
 * @ingroup AscendCL
 * @brief Fill memory with a byte value, as a task on a stream.
 *
 * @param devPtr [IN]    start of the memory
 * @param maxCount [IN]  capacity of the memory in bytes
 * @param value [IN]     byte value (the low 8 bits are used)
 * @param count [IN]     bytes to fill; must not exceed maxCount
 * @param stream [IN]    stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtSynchronizeStream
 */
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value,
                                              size_t count, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Copy memory synchronously.
 *
 * @par Function
 *  Returns when the copy is done; does not synchronise any stream.
 *
 * @param dst [IN]      destination
 * @param destMax [IN]  capacity of dst in bytes
 * @param src [IN]      source
 * @param count [IN]    bytes to copy; must not exceed destMax
 * @param kind [IN]     direction
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind);

/**
 * @ingroup AscendCL
 * @brief Copy memory as a task on a stream.
 *
 * @par Function
 *  Truly asynchronous only for page-locked host memory (aclrtMallocHost); with pageable host
 *  memory the call behaves synchronously.
 *
 * @param dst [IN]      destination
 * @param destMax [IN]  capacity of dst in bytes
 * @param src [IN]      source
 * @param count [IN]    bytes to copy; must not exceed destMax
 * @param kind [IN]     direction
 * @param stream [IN]   stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 *
 * @see aclrtSynchronizeStream
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src,
                                              size_t count, aclrtMemcpyKind kind,
                                              aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Copy a 2-D region synchronously.
 *
 * @param dst [IN]     destination
 * @param dpitch [IN]  bytes between rows of dst
 * @param src [IN]     source
 * @param spitch [IN]  bytes between rows of src
 * @param width [IN]   bytes per row to copy; not more than either pitch
 * @param height [IN]  rows to copy
 * @param kind [IN]    direction
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch,
                                           size_t width, size_t height, aclrtMemcpyKind kind);

/**
 * @ingroup AscendCL
 * @brief Copy a 2-D region as a task on a stream.
 *
 * @param dst [IN]     destination
 * @param dpitch [IN]  bytes between rows of dst
 * @param src [IN]     source
 * @param spitch [IN]  bytes between rows of src
 * @param width [IN]   bytes per row to copy; not more than either pitch
 * @param height [IN]  rows to copy
 * @param kind [IN]    direction
 * @param stream [IN]  stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src,
                                                size_t spitch, size_t width, size_t height,
                                                aclrtMemcpyKind kind, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Get free and total memory of one kind on the current device.
 *
 * @param attr [IN]    memory kind
 * @param free [OUT]   free bytes
 * @param total [OUT]  total bytes (reserved memory excluded); 0 for kinds the device lacks
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total);

/* ---------------------------------------------------------------------------------------------
 * Host callbacks. A callback launched on a stream runs on the thread subscribed to that stream
 * (identified by its pthread_self() value), inside that thread's aclrtProcessReport call.
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Choose the thread that runs the host callbacks of a stream.
 *
 * @par Function
 *  One thread may serve several streams of one device; a stream has at most one thread.
 *
 * @param threadId [IN]  pthread_self() value of the serving thread
 * @param stream [IN]    stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_STREAM_SUBSCRIBE the stream already has a thread
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Stop a thread from serving the host callbacks of a stream.
 *
 * @param threadId [IN]  thread given to aclrtSubscribeReport
 * @param stream [IN]    stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Wait for and run pending host callbacks of the streams this thread serves.
 *
 * @par Function
 *  Call in a loop from the subscribed thread.
 *
 * @param timeout [IN]  milliseconds to wait for a callback; -1 waits forever
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_REPORT_TIMEOUT no callback arrived in time
 * @retval ACL_ERROR_RT_THREAD_SUBSCRIBE the calling thread serves no stream
 * @retval OtherValues Failure
 *
 * @see aclrtSubscribeReport
 */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Enqueue a host callback on a stream.
 *
 * @par Restriction
 *  The stream must have a subscribed thread. The callback must not synchronise, allocate or
 *  launch work on the runtime.
 *
 * @param fn [IN]         callback
 * @param userData [IN]   argument passed to fn (borrowed)
 * @param blockType [IN]  whether later tasks of the stream wait for fn to return
 * @param stream [IN]     stream; NULL for the default stream
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval ACL_ERROR_RT_STREAM_NO_CB_REG no thread is subscribed to the stream
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void* userData,
                                                 aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);

/**
 * @ingroup AscendCL
 * @brief Enqueue a host function on a stream, run by a thread the runtime owns.
 *
 * @par Restriction
 *  Later tasks of the stream wait for fn to return. Do not mix with aclrtLaunchCallback on one
 *  stream.
 *
 * @param stream [IN]  stream; NULL for the default stream
 * @param fn [IN]      host function
 * @param args [IN]    argument passed to fn (borrowed)
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args);

/* ---------------------------------------------------------------------------------------------
 * Timeouts and exception reporting
 * ------------------------------------------------------------------------------------------- */

/**
 * @ingroup AscendCL
 * @brief Bound how long a task issued by aclrtStreamWaitEvent may wait.
 *
 * @param timeout [IN]  seconds; 0 means no limit (the default). The last call wins.
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Bound how long one operator may execute.
 *
 * @param timeout [IN]  seconds; 0 means the maximum. The last call wins.
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);

/**
 * @ingroup AscendCL
 * @brief Register the function told about failed tasks.
 *
 * @param callback [IN]  exception callback
 *
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);

/**
 * @ingroup AscendCL
 * @brief Get the id of the failed task.
 *
 * @param info [IN]  exception information
 *
 * @retval the task id; 0xFFFFFFFF if info is NULL
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info);

/**
 * @ingroup AscendCL
 * @brief Get the id of the stream the failed task ran on.
 *
 * @param info [IN]  exception information
 *
 * @retval the stream id; 0xFFFFFFFF if info is NULL
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info);

/**
 * @ingroup AscendCL
 * @brief Get the id of the thread that launched the failed task.
 *
 * @param info [IN]  exception information
 *
 * @retval the thread id; 0xFFFFFFFF if info is NULL
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info);

/**
 * @ingroup AscendCL
 * @brief Get the id of the device the failed task ran on.
 *
 * @param info [IN]  exception information
 *
 * @retval the device id; 0xFFFFFFFF if info is NULL
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info);

/**
 * @ingroup AscendCL
 * @brief Get the error code of the failed task.
 *
 * @param info [IN]  exception information
 *
 * @retval the error code; 0xFFFFFFFF if info is NULL
 */
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_H_ */

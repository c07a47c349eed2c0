/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL profiling API: collect per-operator timings, AscendCL API statistics, stream tasks
 * and msproftx marks and ranges, written under the result path as CSV summaries and a Chrome
 * trace timeline (docs/tools.md, "Profiling"); or subscribe to a model's per-operator timings
 * through a pipe.
 *
 * Source-compatible with CANN's acl/acl_prof.h for the functions declared here. Call order:
 * aclInit → aclprofInit(path) → aclprofCreateConfig → aclprofStart → executions →
 * aclprofStop → aclprofDestroyConfig → aclprofFinalize. aclprofStop writes the run's files.
 * The subscription API is mutually exclusive with aclprofInit/Start (ACL_ERROR_PROF_API_CONFLICT,
 * 148047). With profiling off, nothing is timed: executions read no clock.
 */

#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

/* CANN's own export macro for this header; the functions are exported as every acl* one. */
#ifndef MSVP_PROF_API
#define MSVP_PROF_API ACL_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* dataTypeConfig bits of aclprofCreateConfig. */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_FWK_SCHEDULE_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_FWK_SCHEDULE_L1 0x01000000ULL

/* Longest op name / type aclprofGetOpName / aclprofGetOpType write, with the NUL. */
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
  ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
  ACL_AICORE_PIPE_UTILIZATION = 1,
  ACL_AICORE_MEMORY_BANDWIDTH = 2,
  ACL_AICORE_L0B_AND_WIDTH = 3,
  ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
  ACL_AICORE_MEMORY_UB = 5,
  ACL_AICORE_L2_CACHE = 6,
  ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
  ACL_AICORE_MEMORY_ACCESS = 8,
  ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef enum { ACL_STEP_START = 0, ACL_STEP_END = 1 } aclprofStepTag;

typedef enum {
  ACL_SUBSCRIBE_OP = 0,
  ACL_SUBSCRIBE_SUBGRAPH = 1,
  ACL_SUBSCRIBE_OP_THREAD = 2,
  ACL_SUBSCRIBE_NONE = 0xFF
} aclprofSubscribeOpFlag;

typedef enum {
  ACL_SUBSCRIBE_ATTRI_THREADID = 0,
  ACL_SUBSCRIBE_ATTRI_NONE = 1
} aclprofSubscribeOpAttri;

/* Options of aclprofSetConfig. Each is checked against its documented range (for example
 * ACL_PROF_STORAGE_LIMIT: MB in [200, 4294967295]; the *_FREQ options: Hz in [1, 100] or
 * [1, 50]) and recorded in the next run's info.json; they select device-side sampling that a
 * CPU device does not have, so they change nothing else. */
typedef enum {
  ACL_PROF_ARGS_MIN = 0,
  ACL_PROF_STORAGE_LIMIT = 1,
  ACL_PROF_AIV_METRICS = 2,
  ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
  ACL_PROF_LLC_MODE = 4,
  ACL_PROF_SYS_IO_FREQ = 5,
  ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
  ACL_PROF_DVPP_FREQ = 7,
  ACL_PROF_HOST_SYS = 8,
  ACL_PROF_HOST_SYS_USAGE = 9,
  ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
  ACL_PROF_LOW_POWER_FREQ = 11,
  ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
  ACL_PROF_SYS_CPU_FREQ = 13,
  ACL_PROF_OPTYPE = 14,
  ACL_PROF_PATH = 16,
  ACL_PROF_ARGS_MAX = 17
} aclprofConfigType;

/* aclprofConfig, aclprofSubscribeConfig and aclprofStepInfo are declared in acl_base.h. */
typedef struct aclprofStopConfig aclprofStopConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

/* ---- Collection ---------------------------------------------------------------------------- */

/*
 * @brief Sets the folder under which each profiling run writes its PROF_* folder (created if
 * missing). Call after aclInit. length is strlen(profilerResultPath), at most 4096.
 * @retval ACL_ERROR_INVALID_PARAM (100000) NULL or empty path, or length out of range
 * @retval ACL_ERROR_UNINITIALIZE (100001) aclInit not called
 * @retval ACL_ERROR_PROF_ALREADY_RUN (100042) profiling already configured (by acl.json
 *         "profiler", or a previous aclprofInit not finalized). When msprof's environment
 *         (PROFILING_MODE=true, PROFILING_OPTIONS) started it, aclprofInit/Start/Stop/Finalize
 *         succeed and do nothing, so a program that profiles itself runs under kiln prof.
 * @retval ACL_ERROR_PROF_API_CONFLICT (148047) a model subscription is active
 * @retval ACL_ERROR_WRITE_FILE (100004) the folder cannot be created
 */
MSVP_PROF_API aclError aclprofInit(const char* profilerResultPath, size_t length);
/*
 * @brief Ends profiling: stops a run still started (writing its files) and forgets the path.
 * @retval ACL_ERROR_PROF_NOT_RUN (100043) aclprofInit was not called
 */
MSVP_PROF_API aclError aclprofFinalize(void);
/*
 * @brief Starts collecting what profilerConfig selects (ACL_PROF_ACL_API: the acl* calls;
 * ACL_PROF_TASK_TIME: model executions, their operators and the stream tasks; ACL_PROF_MSPROFTX:
 * marks and ranges; ACL_PROF_RUNTIME_API: stream tasks only).
 * @retval ACL_ERROR_PROF_NOT_RUN (100043) aclprofInit not called
 * @retval ACL_ERROR_PROF_ALREADY_RUN (100042) already started
 * @retval ACL_ERROR_INVALID_PARAM (100000) NULL or destroyed config
 */
MSVP_PROF_API aclError aclprofStart(const aclprofConfig* profilerConfig);
/*
 * @brief Makes a collection config. deviceIdList names deviceNums devices (each must exist);
 * aicoreEvents must be NULL. Returns NULL (and a message for aclGetRecentErrMsg) on bad
 * arguments. Destroy it with aclprofDestroyConfig.
 */
MSVP_PROF_API aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                                 aclprofAicoreMetrics aicoreMetrics,
                                                 const aclprofAicoreEvents* aicoreEvents,
                                                 uint64_t dataTypeConfig);
MSVP_PROF_API aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig);
/*
 * @brief Sets one collection option (before aclprofStart); config is configLength bytes of text.
 * @retval ACL_ERROR_INVALID_PROFILING_CONFIG (100010) a value out of its range
 * @retval ACL_ERROR_INVALID_PARAM (100000) unknown configType or NULL config
 */
MSVP_PROF_API aclError aclprofSetConfig(aclprofConfigType configType, const char* config,
                                        size_t configLength);
/*
 * @brief Stops the run started with the same config and writes its files: PROF_<id>/summary/
 * (op_summary, op_statistic, api_statistic CSVs) and PROF_<id>/timeline/msprof.json.
 * @retval ACL_ERROR_PROF_NOT_RUN (100043) not started
 * @retval ACL_ERROR_INVALID_PARAM (100000) a config other than the one started
 * @retval ACL_ERROR_WRITE_FILE (100004) a file could not be written
 */
MSVP_PROF_API aclError aclprofStop(const aclprofConfig* profilerConfig);

/* ---- Model subscription -------------------------------------------------------------------- */

/*
 * @brief After each execution of modelId, writes one fixed-size record per executed operator
 * (aclprofGetOpDescSize bytes each) to the pipe whose write-end file descriptor fd points to
 * (an int*). timeInfoSwitch 1 records start/end times.
 * @retval ACL_ERROR_INVALID_MODEL_ID (100011) modelId not loaded
 * @retval ACL_ERROR_PROF_REPEAT_SUBSCRIBE (148046) already subscribed
 * @retval ACL_ERROR_PROF_API_CONFLICT (148047) aclprofInit is active
 */
MSVP_PROF_API aclError aclprofModelSubscribe(uint32_t modelId,
                                             const aclprofSubscribeConfig* profSubscribeConfig);
MSVP_PROF_API aclError aclprofModelUnSubscribe(uint32_t modelId);
MSVP_PROF_API aclprofSubscribeConfig* aclprofCreateSubscribeConfig(
    int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics, void* fd);
MSVP_PROF_API aclError
aclprofDestroySubscribeConfig(const aclprofSubscribeConfig* profSubscribeConfig);
/* Bytes of one operator record in the subscription pipe. */
MSVP_PROF_API aclError aclprofGetOpDescSize(size_t* opDescSize);
/* Records in opInfo (opInfoLen bytes read from the pipe; a multiple of the record size). */
MSVP_PROF_API aclError aclprofGetOpNum(const void* opInfo, size_t opInfoLen, uint32_t* opNumber);
MSVP_PROF_API aclError aclprofGetOpTypeLen(const void* opInfo, size_t opInfoLen, uint32_t index,
                                           size_t* opTypeLen);
MSVP_PROF_API aclError aclprofGetOpType(const void* opInfo, size_t opInfoLen, uint32_t index,
                                        char* opType, size_t opTypeLen);
MSVP_PROF_API aclError aclprofGetOpNameLen(const void* opInfo, size_t opInfoLen, uint32_t index,
                                           size_t* opNameLen);
MSVP_PROF_API aclError aclprofGetOpName(const void* opInfo, size_t opInfoLen, uint32_t index,
                                        char* opName, size_t opNameLen);
/* Start and end (µs on the host's monotonic clock, the clock of the profile's timeline) and
   duration (µs) of record index; 0 on bad arguments. */
MSVP_PROF_API uint64_t aclprofGetOpStart(const void* opInfo, size_t opInfoLen, uint32_t index);
MSVP_PROF_API uint64_t aclprofGetOpEnd(const void* opInfo, size_t opInfoLen, uint32_t index);
MSVP_PROF_API uint64_t aclprofGetOpDuration(const void* opInfo, size_t opInfoLen, uint32_t index);
/* The model id of record index; 0 on bad arguments. */
MSVP_PROF_API size_t aclprofGetModelId(const void* opInfo, size_t opInfoLen, uint32_t index);
MSVP_PROF_API aclprofSubscribeOpFlag aclprofGetOpFlag(const void* opInfo, size_t opInfoLen,
                                                      uint32_t index);
/* ACL_SUBSCRIBE_ATTRI_THREADID: the executing thread's id as text; NULL on bad arguments. The
 * string lives in opInfo. */
MSVP_PROF_API const char* aclprofGetOpAttriValue(const void* opInfo, size_t opInfoLen,
                                                 uint32_t index, aclprofSubscribeOpAttri attri);

/* ---- Step info ----------------------------------------------------------------------------- */

/* Marks the start or end of one application step (an iteration) on stream's timeline. */
MSVP_PROF_API aclError aclprofGetStepTimestamp(aclprofStepInfo* stepInfo, aclprofStepTag tag,
                                               aclrtStream stream);
MSVP_PROF_API aclprofStepInfo* aclprofCreateStepInfo(void);
MSVP_PROF_API void aclprofDestroyStepInfo(aclprofStepInfo* stepinfo);

/* ---- msproftx: the application's own marks and ranges ----------------------------------- */

MSVP_PROF_API void* aclprofCreateStamp(void);
MSVP_PROF_API void aclprofDestroyStamp(void* stamp);
/* The text the stamp's mark or range shows (msgLen bytes, at most 128). */
MSVP_PROF_API aclError aclprofSetStampTraceMessage(void* stamp, const char* msg, uint32_t msgLen);
/* An instant on the calling thread's timeline. */
MSVP_PROF_API aclError aclprofMark(void* stamp);
/* Push/Pop: a range on the calling thread, nested like a stack. */
MSVP_PROF_API aclError aclprofPush(void* stamp);
MSVP_PROF_API aclError aclprofPop(void);
/* RangeStart/RangeStop: a range that may end on another thread, by id. */
MSVP_PROF_API aclError aclprofRangeStart(void* stamp, uint32_t* rangeId);
MSVP_PROF_API aclError aclprofRangeStop(uint32_t rangeId);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_PROF_H_ */

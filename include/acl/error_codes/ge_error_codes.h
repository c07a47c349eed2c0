/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * Graph-engine (GE) error codes that AscendCL model functions pass through unchanged.
 *
 * As in CANN these are `static const uint32_t` objects rather than macros: in C++ they are
 * constant expressions and may label `case`s; in C compare them with `==`. Numbering: 145xxx
 * caller errors, 245xxx resource errors, 345xxx state reports, 545xxx internal failures.
 */

#ifndef INC_EXTERNAL_GE_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GE_GE_ERROR_CODES_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parameter is invalid. */
static const uint32_t ACL_ERROR_GE_PARAM_INVALID = 145000U;
/* The model executor has not been initialised. */
static const uint32_t ACL_ERROR_GE_EXEC_NOT_INIT = 145001U;
/* The model path does not exist, cannot be opened, or names an empty or oversized file. */
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID = 145002U;
/* No loaded model has this id. */
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_ID_INVALID = 145003U;
/* The model data is not a valid offline model (bad header or length). */
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID = 145006U;
/* A model memory address is invalid. */
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_ADDR_INVALID = 145007U;
/* A model queue id is invalid. */
static const uint32_t ACL_ERROR_GE_EXEC_MODEL_QUEUE_ID_INVALID = 145008U;
/* The model is already loaded. */
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_MODEL_REPEATED = 145009U;
/* The address of the dynamic-shape input is invalid. */
static const uint32_t ACL_ERROR_GE_DYNAMIC_INPUT_ADDR_INVALID = 145011U;
/* The length of the dynamic-shape input is invalid. */
static const uint32_t ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID = 145012U;
/* The dynamic batch size is not one the model was compiled for. */
static const uint32_t ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID = 145013U;
/* The AIPP batch configuration is empty. */
static const uint32_t ACL_ERROR_GE_AIPP_BATCH_EMPTY = 145014U;
/* The model has no AIPP configuration. */
static const uint32_t ACL_ERROR_GE_AIPP_NOT_EXIST = 145015U;
/* The AIPP mode is invalid. */
static const uint32_t ACL_ERROR_GE_AIPP_MODE_INVALID = 145016U;
/* The operator task type is invalid. */
static const uint32_t ACL_ERROR_GE_OP_TASK_TYPE_INVALID = 145017U;
/* The operator kernel type is invalid. */
static const uint32_t ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID = 145018U;
/* The plug-in manager path is invalid. */
static const uint32_t ACL_ERROR_GE_PLGMGR_PATH_INVALID = 145019U;
/* The tensor format is invalid. */
static const uint32_t ACL_ERROR_GE_FORMAT_INVALID = 145020U;
/* The tensor shape is invalid. */
static const uint32_t ACL_ERROR_GE_SHAPE_INVALID = 145021U;
/* The tensor data type is invalid. */
static const uint32_t ACL_ERROR_GE_DATATYPE_INVALID = 145022U;
/* Host memory allocation failed. */
static const uint32_t ACL_ERROR_GE_MEMORY_ALLOCATION = 245000U;
/* A host memory operation failed. */
static const uint32_t ACL_ERROR_GE_MEMORY_OPERATE_FAILED = 245001U;
/* Device memory allocation or another device memory operation failed. */
static const uint32_t ACL_ERROR_GE_DEVICE_MEMORY_OPERATE_FAILED = 245002U;
/* The deployment is running in a degraded (sub-healthy) state after redeployment. */
static const uint32_t ACL_ERROR_GE_SUBHEALTHY = 345102U;
/* A user-defined function raised an exception. */
static const uint32_t ACL_ERROR_GE_USER_RAISE_EXCEPTION = 345103U;
/* Outputs of a user-defined function could not be aligned. */
static const uint32_t ACL_ERROR_GE_DATA_NOT_ALIGNED = 345104U;
/* Unknown graph-engine internal error. */
static const uint32_t ACL_ERROR_GE_INTERNAL_ERROR = 545000U;
/* Loading the model failed. */
static const uint32_t ACL_ERROR_GE_LOAD_MODEL = 545001U;
/* Loading the model partition failed. */
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_MODEL_PARTITION_FAILED = 545002U;
/* Loading the weight partition failed. */
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_WEIGHT_PARTITION_FAILED = 545003U;
/* Loading the task partition failed. */
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_TASK_PARTITION_FAILED = 545004U;
/* Loading the kernel partition failed. */
static const uint32_t ACL_ERROR_GE_EXEC_LOAD_KERNEL_PARTITION_FAILED = 545005U;
/* Releasing model data failed. */
static const uint32_t ACL_ERROR_GE_EXEC_RELEASE_MODEL_DATA = 545006U;
/* Handling an internal command failed. */
static const uint32_t ACL_ERROR_GE_COMMAND_HANDLE = 545007U;
/* Reading tensor information failed. */
static const uint32_t ACL_ERROR_GE_GET_TENSOR_INFO = 545008U;
/* Unloading the model failed. */
static const uint32_t ACL_ERROR_GE_UNLOAD_MODEL = 545009U;
/* Model execution timed out. */
static const uint32_t ACL_ERROR_GE_MODEL_EXECUTE_TIMEOUT = 545601U;
/* The deployment is being redeployed. */
static const uint32_t ACL_ERROR_GE_REDEPLOYING = 545602U;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_GE_GE_ERROR_CODES_H_ */

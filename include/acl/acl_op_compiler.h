/* Copyright 2026 The Kiln Authors */
/* SPDX-License-Identifier: Apache-2.0 */

/*
 * AscendCL single-operator compilation: compile one operator in the process (the model is kept
 * and found by later aclopExecuteV2 calls) and compile-and-run in one call, as onnxruntime's CANN
 * execution provider does. Programs link -lacl_op_compiler (docs/single-ops.md).
 *
 * Source-compatible with CANN's acl/acl_op_compiler.h.
 */

#ifndef INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_
#define INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType { ACL_COMPILE_SYS, ACL_COMPILE_UNREGISTERED } aclopCompileType;
typedef enum aclCompileType aclCompileType;

typedef enum {
  ACL_PRECISION_MODE,
  ACL_AICORE_NUM,
  ACL_AUTO_TUNE_MODE,
  ACL_OP_SELECT_IMPL_MODE,
  ACL_OPTYPELIST_FOR_IMPLMODE,
  ACL_OP_DEBUG_LEVEL,
  ACL_DEBUG_DIR,
  ACL_OP_COMPILER_CACHE_MODE,
  ACL_OP_COMPILER_CACHE_DIR,
  ACL_OP_PERFORMANCE_MODE,
  ACL_OP_JIT_COMPILE,
  ACL_OP_DETERMINISTIC,
  ACL_CUSTOMIZE_DTYPES,
  ACL_OP_PRECISION_MODE,
  ACL_ALLOW_HF32,
  ACL_PRECISION_MODE_V2,
  ACL_OP_DEBUG_OPTION
} aclCompileOpt;

typedef enum aclCompileFlag { ACL_OP_COMPILE_DEFAULT, ACL_OP_COMPILE_FUZZ } aclOpCompileFlag;
typedef enum aclCompileFlag aclCompileFlag;

typedef struct aclGraphDumpOption aclGraphDumpOption;

/* Compiles opType for these descs and attributes (ACL_ENGINE_SYS, ACL_COMPILE_SYS, opPath NULL)
 * and keeps the model for aclopExecuteV2 / aclopCreateHandle. -1 dims with
 * aclSetTensorShapeRange compile one model for every shape in the ranges. */
ACL_FUNC_VISIBILITY aclError aclopCompile(const char* opType, int numInputs,
                                          const aclTensorDesc* const inputDesc[], int numOutputs,
                                          const aclTensorDesc* const outputDesc[],
                                          const aclopAttr* attr, aclopEngineType engineType,
                                          aclopCompileType compileFlag, const char* opPath);

/* aclopCompile (or the model it made before), then aclopExecute on stream. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(
    const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
    const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
    aclDataBuffer* const outputs[], const aclopAttr* attr, aclopEngineType engineType,
    aclopCompileType compileFlag, const char* opPath, aclrtStream stream);

/* As aclopCompileAndExecute; the output descs get the outputs' dims, as aclopExecuteV2. */
ACL_FUNC_VISIBILITY aclError
aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                         aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                         aclDataBuffer* outputs[], aclopAttr* attr, aclopEngineType engineType,
                         aclopCompileType compileFlag, const char* opPath, aclrtStream stream);

/* Process-wide compile options. ACL_AUTO_TUNE_MODE: ACL_ERROR_FEATURE_UNSUPPORTED. */
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char* value);
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length);

/* Deprecated in CANN; recorded (a fuzzy compile makes the same model here). */
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag);

/* Graph dump of a single operator: not supported (ACL_ERROR_API_NOT_SUPPORT). */
ACL_FUNC_VISIBILITY aclError aclGenGraphAndDumpForOp(
    const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
    const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
    aclDataBuffer* const outputs[], const aclopAttr* attr, aclopEngineType engineType,
    const char* graphDumpPath, const aclGraphDumpOption* graphDumpOpt);
ACL_FUNC_VISIBILITY aclGraphDumpOption* aclCreateGraphDumpOpt(void);
ACL_FUNC_VISIBILITY aclError aclDestroyGraphDumpOpt(const aclGraphDumpOption* graphDumpOpt);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_ */
